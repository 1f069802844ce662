# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# boot.sh - one bounded QEMU boot of Xen + dom0 (+ the scenarios' domUs).

# QEMU's CPU model.  Plain `max` crashes the PV dom0 (SMAP: Xen's PV
# guests run their kernel in ring 3 with user mappings); with XSAVE
# exposed, programs inside PV guests computed wrong results under TCG.
# `max,-smap,-xsave` passed 30 of 30 checks; `qemu64` works but is slower.
LAB_CPU=${XPS_LAB_CPU:-max,-smap,-xsave}
# Guest RAM in MB: dom0 has 1536 of it, the domUs share what is left
# (about 1980 MB free at 4 GB).  A scenario that needs more sets
# <fn>_lab_mem (MB); a boot takes the largest of its scenarios'.
LAB_MEM=${XPS_LAB_MEM:-4096}
LAB_SMP=2
XEN_ARGS="console=com1 com1=115200,8n1 dom0_mem=1536M,max:1536M dom0_max_vcpus=$LAB_SMP loglvl=all guest_loglvl=all console_timestamps=boot"
# loglevel=5: the kernel prints warnings and worse on the console as they
# happen (they survive a hang); the full dmesg is dumped at the end.
# XPS_LAB_DOM0_ARGS adds to it: Debian's 6.1 runs preempt=voluntary
# (PREEMPT_DYNAMIC), where nothing reschedules a task inside a long
# privcmd hypercall (the evtchn upcall's irqentry_exit_cond_resched is
# a NOP), so "preempt=full" boots dom0 where the toolstack's hypercalls
# can be preempted, to compare the soak's soft lockups
DOM0_ARGS="console=hvc0 loglevel=5${XPS_LAB_DOM0_ARGS:+ $XPS_LAB_DOM0_ARGS}"

scenario_var() { # scenario_var SCENARIO VAR: e.g. steps, budget
	( fn=${1//-/_}; . "$LAB_DIR/scenarios/$1.sh"; eval "echo \"\${${fn}_$2:-}\"" )
}

# run_boot IMAGES MODULES TIMEOUT KEEP SCENARIOS...
run_boot() {
	local img=$1 modules=$2 tmo=$3 keep=$4; shift 4
	local name dir work s t0 tq rc=0 booted='' domu=
	name=$(IFS=+; echo "$*"); dir=$LAB_OUT/$name; work=$dir/work
	rm -rf "$dir"; mkdir -p "$dir"
	if [ -z "$tmo" ]; then
		# The scenarios run side by side and dom0 enforces each budget
		# itself, so QEMU's limit is the largest budget plus boot/shutdown.
		local b; tmo=0
		for s in "$@"; do b=$(scenario_var "$s" budget); [ "$b" -le "$tmo" ] || tmo=$b; done
		tmo=$((tmo + 420))
	fi
	local mem=$LAB_MEM m
	for s in "$@"; do m=$(scenario_var "$s" lab_mem); [ -z "$m" ] || [ "$m" -le "$mem" ] || mem=$m; done
	t0=$(now)
	if [ "$LAB_ARCH" = arm64 ]; then
		a64_overlay_build "$img" "$work" "$modules" "$@"
	else
		overlay_build "$img" "$work" "$modules" "$@"
	fi
	time_line overlay "$t0"
	# -initrd takes "file args,file2": a comma inside a path is written ",,".
	esc() { echo "${1//,/,,}"; }
	log "boot: $name (timeout ${tmo}s, log $dir/serial.log)"
	tq=$(now)
	# A hypervisor with shadow paging, which xl migrate of a PV guest
	# needs (debs.sh: xen_shadow_elf), for a boot with a scenario
	# that asks for it (<fn>_lab_xen=shadow) or with XPS_LAB_XEN=shadow
	local xen=$img/xen.elf xenv=${XPS_LAB_XEN:-}
	for s in "$@"; do [ "$(scenario_var "$s" lab_xen)" != shadow ] || xenv=shadow; done
	if [ "$xenv" = shadow ] && [ "$LAB_ARCH" != arm64 ]; then
		xen=$(xen_shadow_elf) || return 1
		log "boot: Xen with shadow paging: $xen"
	fi
	# No host network: the guests' only network is xenbr0 inside dom0.
	local qemu
	if [ "$LAB_ARCH" = arm64 ]; then
		mapfile -d '' qemu < <(a64_qemu "$img" "$work" "$dir/serial.log")
	else
		# shellcheck disable=SC2054 # QEMU's options are comma-separated
		qemu=(qemu-system-x86_64
			-machine pc -accel tcg,thread=multi -cpu "$LAB_CPU" -smp "$LAB_SMP" -m "$mem"
			-display none -vga none -monitor none -nic none -no-reboot
			-serial "file:$dir/serial.log"
			-kernel "$xen" -append "$XEN_ARGS"
			-initrd "$(esc "$img/vmlinux") $DOM0_ARGS,$(esc "$work/dom0.cpio")")
	fi
	# XPS_LAB_INSN=1 (x86, the benchmarks' BENCH_INSN): the xps-insn
	# plugin counts the machine's instructions into $dir/insn.txt at each
	# xps-imark marker a guest runs (tests/lab/tools/xps-insn.c).
	if [ "${XPS_LAB_INSN:-0}" = 1 ] && [ "$LAB_ARCH" = x86 ]; then
		local api
		api=$("$REPO_DIR/scripts/qemu-plugin-api.sh") || die "no QEMU plugin API header"
		${CC:-cc} -O2 -Wall -shared -fPIC -I"$api" -o "$dir/libxps-insn.so" \
			"$LAB_DIR/tools/xps-insn.c" -lpthread || die "cannot build the xps-insn plugin"
		qemu+=(-plugin "$dir/libxps-insn.so,out=$dir/insn.txt")
		log "boot: counting instructions (xps-insn) into $dir/insn.txt"
	fi
	timeout --kill-after=10 "$tmo" "${qemu[@]}" >"$dir/qemu.log" 2>&1 &
	local qpid=$!
	# Follow progress for the timing and LIVE lines while QEMU runs.
	# shellcheck disable=SC2034 # judge_live (judge.sh) reads and advances it
	JUDGE_LIVE_SEEN=0
	while kill -0 "$qpid" 2>/dev/null; do
		judge_live "$dir/serial.log" "$(($(now) - tq))"
		if [ -z "$booted" ] && grep -q '^XPS-DAEMONS dom0' "$dir/serial.log" 2>/dev/null; then
			booted=1; time_line "boot/dom0-ready" "$tq"
		fi
		if [ -z "$domu" ] && grep -q 'XPS-BOOT domU:' "$dir/serial.log" 2>/dev/null; then
			domu=1; time_line "boot/first-domU-init" "$tq"
		fi
		sleep 1
	done
	wait "$qpid" || rc=$?
	judge_live "$dir/serial.log" "$(($(now) - tq))"
	echo "qemu_rc=$rc" >>"$dir/qemu.log"
	[ "$rc" = 124 ] || [ "$rc" = 137 ] && log "boot: QEMU killed after ${tmo}s timeout"
	time_line "boot/total" "$tq"
	[ -n "$keep" ] || rm -rf "$work"
	judge_run "$dir" "$@"
}
