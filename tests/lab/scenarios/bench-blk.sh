# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034 # the scenario interface (<fn>_steps, _budget, _domus,
# RPC_REPLY, BF_SCN...) is read by dom0-init, the judge and the helpers
# bench-blk - the seed 000 block benchmark: fio libaio on a null_blk-backed
# disk, frontend variants (driver and module parameters) compared in
# paired, alternating runs in one boot, and the same fio runs on null_blk
# in dom0 as the ceiling.
# A benchmark, never a test: it is run by scripts/bench/run.sh, not by
# make check, and numbers are emitted as samples, never judged. Steps
# fail only when a run produced no number.
#
# Workloads (fio, direct, libaio, time based after a 2 s ramp):
#   randread-4k   4 KB random reads, iodepth 32 (the seed's job)
#   seqread-64k   64 KB sequential reads, iodepth 32
#   randwrite-4k  4 KB random writes, iodepth 32
#   build         the macro workload, in the spirit of seeds 001 and 003
#                 (repeated builds, median and spread): on ext4 on xvdb (a
#                 loop device in dom0), caches dropped, unpack a small C
#                 project (the suite's own userspace unit tests and pure
#                 driver code, as tools/pack-project.sh packs it) and build
#                 six of its test programs (its Makefile's bench-build)
#                 with tcc and make -j2, then sync; seconds, two builds per
#                 variant and pair (so 10 over 5 pairs); one of each
#                 build's programs must run and pass
# Variants: DRIVER:PARAM=V[+PARAM=V] each. Between variants dom0 detaches
# the disk, the domU unloads both frontends and loads the variant's driver
# with its parameters, dom0 attaches the disk again. The two drivers never
# bind together: the domU has no disk at boot.
#
# Samples: lines "XPS-SAMPLE <json>" (see scripts/bench/xpsstats.py); the
# bench name carries the parameters, the variant the driver, so each
# table reads ours against stock at one setting. For xen-blkfront-64k the
# grant operations per I/O are sampled too: with persistent grants the
# new grants the frontend issued (the backend maps each once), without
# them a map and an unmap per 4 KB segment, divided by the requests the
# driver sent in the same window (fio's ramp included): per block request.
# Counted outside the frontends, for both drivers:
# - at the backend: blkback's statistics of xvda in dom0 around every fio
#   run give the requests it served and their mean size
#   (backend-kb-per-req, KB per request as blkback received it, merges
#   in the guest included);
# - by Xen: per round and variant, one more run of the first fio workload
#   under xentrace in dom0 (xt_start, lib.sh: every domain's PV hypercall
#   entries, multicall subcalls included, counted by xps-xtcount). Its
#   samples, under the bench "xen-<workload>[params]", divide Xen's
#   grant-table operations (map, unmap, copy and the rest), grant_table_op
#   calls and all hypercalls by the requests blkback served in the same
#   window. Not a throughput sample: tracing costs dom0 time.
#
# Host knobs (XPS_SCN_* reach the guests through run.conf):
#   XPS_SCN_BENCH_VARIANTS   space-separated, "," for space in the variable
#                            (default: both drivers, feature_persistent 1 and 0)
#   XPS_SCN_BENCH_WORKLOADS  comma-separated subset of the workloads above
#   XPS_SCN_BENCH_REPS       pairs of runs (5)
#   XPS_SCN_BENCH_RUNTIME    seconds per fio run, after a 2 s ramp (10)
#   XPS_SCN_BENCH_JOBS       fio jobs (8, as in the seed)
#   XPS_SCN_BENCH_INSN       1: the boot runs the xps-insn QEMU plugin
#                            (XPS_LAB_INSN); every fio run is bracketed by
#                            xps-imark markers and an XPS-ISAMPLE line asks
#                            for the whole machine's instructions per
#                            request blkback served (scripts/bench/imarks.py)
# Interface: see smoke.sh.

bench_blk_steps="cpu-selfcheck attach sweep ceiling"
bench_blk_domus="bench"
BB_VARIANTS=$(echo "${XPS_SCN_BENCH_VARIANTS:-xen-blkfront:feature_persistent=1,xen-blkfront-64k:feature_persistent=1,xen-blkfront:feature_persistent=0,xen-blkfront-64k:feature_persistent=0}" | tr , ' ')
BB_WORKLOADS=$(echo "${XPS_SCN_BENCH_WORKLOADS:-randread-4k,seqread-64k,randwrite-4k,build}" | tr , ' ')
BB_BUILDS=2
# The build workload's toolchain (tcc, make, libc headers) comes with the
# domU image only for scenarios that ask (lib/overlay.sh).
bench_blk_domU_cc=1
BB_REPS=${XPS_SCN_BENCH_REPS:-5}
BB_RUNTIME=${XPS_SCN_BENCH_RUNTIME:-10}
BB_JOBS=${XPS_SCN_BENCH_JOBS:-8}
BB_INSN=${XPS_SCN_BENCH_INSN:-0}
# Every run costs its runtime, a ramp and fio start-up (about 8 s under
# TCG); every variant change a detach, reload and attach (about 30 s).
# shellcheck disable=SC2086 # word splitting intended: a list
# The traced run: one more fio run and four requests per variant.
bench_blk_budget=$(( 300 + BB_REPS * ( ($(echo $BB_VARIANTS | wc -w) + 1) * $(echo $BB_WORKLOADS | wc -w) * (BB_RUNTIME + 14) + $(echo $BB_VARIANTS | wc -w) * (30 + BB_RUNTIME + 20)) ))

# The sweep re-attaches the disk once per variant: with the lab's minimal
# hotplug script (guest/xps-block), as Xen's own is too slow under TCG.
BB_DISK="format=raw, vdev=xvda, access=rw, script=xps-block, target=/dev/nullb0"

bench_blk_dom0_prepare() {
	modprobe null_blk nr_devices=1 gb=1 || return 1
	# the build workload's disk: null_blk keeps no data
	truncate -s 256M /tmp/bb-build.img && BB_LOOP=$(losetup -f --show /tmp/bb-build.img)
}

# No disk at boot: the first variant's driver is loaded before it comes.
bench_blk_domU_cfg() { echo "memory = 512"; echo "vcpus = 2"; }

# bb_fio DEV WORKLOAD: run it on DEV; print "IOPS IOS" (terse v3: read
# kB field 6, IOPS 8; write kB 47, IOPS 49; I/Os = kB / block size).
bb_fio() {
	case "$2" in
	randread-4k) _rw=randread _bs=4 ;;
	seqread-64k) _rw=read _bs=64 ;;
	randwrite-4k) _rw=randwrite _bs=4 ;;
	*) return 1 ;;
	esac
	fio --name="$2" --filename="$1" --rw=$_rw --bs=${_bs}k --ioengine=libaio --allow_file_create=0 \
		--iodepth=32 --numjobs="$BB_JOBS" --direct=1 --ramp_time=2 \
		--runtime="$BB_RUNTIME" --time_based --group_reporting \
		--output-format=terse --terse-version=3 2>/dev/null |
		awk -F';' -v bs=$_bs 'NF > 50 { if ($8 > 0) print $8, int($6 / bs); else print $49, int($47 / bs) }' | tail -n 1
}

# bb_sample BENCH METRIC UNIT HIGHER VARIANT PARAMS_JSON RUN VALUE
bb_sample() {
	echo "XPS-SAMPLE {\"bench\": \"$1\", \"metric\": \"$2\", \"unit\": \"$3\", \"variant\": \"$5\", \"params\": {$6}, \"run\": $7, \"value\": $8, \"higher_is_better\": $4}"
}

bench_blk_rpc() {
	_dom=$1 _cmd=$2; shift 2
	_name=$(xl domname "$_dom")
	case "$_cmd" in
	detach)
		RPC_REPLY=ok
		for _v in 51712:xvda 51728:xvdb; do
			if xl block-list "$_name" 2>/dev/null | grep -q "^${_v%:*} " &&
			   ! xl block-detach "$_name" "${_v#*:}" >/tmp/bb-detach.log 2>&1; then
				RPC_REPLY="error reason=block-detach ${_v#*:} $(tr '\n' ' ' </tmp/bb-detach.log | cut -c1-120)"
			fi
		done ;;
	attach)
		if xl block-attach "$_name" "$BB_DISK" >/tmp/bb-attach.log 2>&1 &&
		   xl block-attach "$_name" "format=raw, vdev=xvdb, access=rw, script=xps-block, target=$BB_LOOP" >>/tmp/bb-attach.log 2>&1; then
			RPC_REPLY=ok
		else
			RPC_REPLY="error reason=block-attach $(tr '\n' ' ' </tmp/bb-attach.log | cut -c1-120)"
		fi ;;
	ceiling)
		RPC_REPLY=$(bb_fio /dev/nullb0 "$1")
		[ -n "$RPC_REPLY" ] || RPC_REPLY=none ;;
	bstat)	vbd_stat "$_dom" ;;	# (lib.sh)
	xt-start) xt_start ;;
	xt-stop) xt_stop ;;
	*)	RPC_REPLY=unknown-request ;;
	esac
}

# bb_build: one build of the project on ext4 on xvdb; prints its seconds.
bb_build() {
	rm -rf /mnt/bb/w; sync; echo 3 >/proc/sys/vm/drop_caches
	_t=$(up)
	mkdir /mnt/bb/w && tar -xf /xps/project.tar -C /mnt/bb/w &&
		make -s -j2 -C /mnt/bb/w/tests/unit CC=tcc bench-build >/tmp/bb-build.log 2>&1 &&
		sync || { echo "bench-blk: build failed: $(tail -n 3 /tmp/bb-build.log | tr '\n' ' ')" >&2; return 1; }
	_s=$(awk -v a="$_t" -v b="$(up)" 'BEGIN { printf "%.2f", b - a }')
	# the programs built must be real: the quickest (3 s under TCG; all
	# six take minutes) runs its tests and passes, outside the timing
	/mnt/bb/w/tests/unit/build/xgp_test_p12 >/tmp/bb-run.log 2>&1 ||
		{ echo "bench-blk: the built xgp_test_p12 fails its tests" >&2; return 1; }
	echo "$_s"
}

# bb_variant DRIVER:P=V+P=V: detach, load DRIVER with its parameters, attach.
bb_variant() {
	_drv=${1%%:*} _params=
	case "$1" in *:*) _params=$(echo "${1#*:}" | tr + ' ') ;; esac
	# busybox has no mountpoint(1)
	! grep -q ' /mnt/bb ' /proc/mounts || umount /mnt/bb || { echo "bench-blk: umount /mnt/bb failed"; return 1; }
	_r=$(rpc detach)
	[ "$_r" = ok ] || { echo "bench-blk: detach: $_r"; return 1; }
	wait_for 60 sh -c '! test -e /sys/block/xvda && ! test -e /sys/block/xvdb' || { echo "bench-blk: xvda/xvdb still there"; return 1; }
	for _m in xen-blkfront xen-blkfront-64k; do
		! lsmod | grep -q "^$(echo $_m | tr - _) " || rmmod "$_m" || return 1
	done
	# shellcheck disable=SC2086
	modprobe "$_drv" $_params || { echo "bench-blk: modprobe $_drv $_params failed"; return 1; }
	_r=$(rpc attach)
	[ "$_r" = ok ] || { echo "bench-blk: attach: $_r"; return 1; }
	wait_for 60 test -b /dev/xvda && wait_for 30 test -b /dev/xvdb &&
		dd if=/dev/xvda of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &&
		[ "$(basename "$(readlink /sys/block/xvda/device/driver)")" = "$(bb_busname "$_drv")" ] || return 1
	case " $BB_WORKLOADS " in *" build "*) ;; *) return 0 ;; esac
	mkdir -p /mnt/bb && /usr/bin/mke2fs -q -F -t ext4 /dev/xvdb >/dev/null 2>&1 &&
		mount -t ext4 /dev/xvdb /mnt/bb
}
# bb_imark: runs the next instruction-count marker, prints its ID (the
# count lives in a file: it is called inside $())
bb_imark() {
	_mi=$(( $(cat /tmp/xps.imark 2>/dev/null || echo 999) + 1 ))
	echo "$_mi" >/tmp/xps.imark
	/xps/bin/xps-imark "$_mi" && echo "$_mi"
}

# bb_backend B0 B1: "REQUESTS KB" blkback served between two bstat
# replies (sectors of 512 bytes); "0 0" when either is no reply
bb_backend() {
	echo "$1 $2" | awk 'NF == 8 { printf "%d %.1f", $5 - $1 + $7 - $3, ($6 - $2 + $8 - $4) / 2; ok = 1 }
		END { if (!ok) print "0 0" }'
}

# bb_traced WORKLOAD DRIVER PARAMS ROUND: one fio run under xentrace in
# dom0; Xen's counts per request blkback served as samples. _bb_bad
# counts a failure, _bb_xn a traced run.
bb_traced() {
	_xs=$(rpc xt-start)
	[ "$_xs" = ok ] || { echo "bench-blk: xentrace with $2${3:+[$3]}, round $4: $_xs"; _bb_bad=$((_bb_bad + 1)); return; }
	_xb0=$(rpc bstat)
	_xo=$(bb_fio /dev/xvda "$1")
	_xb1=$(rpc bstat)
	_xr=$(rpc xt-stop)
	_xq=$(bb_backend "$_xb0" "$_xb1"); _xq=${_xq%% *}
	echo "bench-blk: xentrace with $2${3:+[$3]}, $1, round $4: $_xr; blkback requests=$_xq; fio: $_xo"
	case "$_xr" in ok*) [ "$_xq" -gt 0 ] && [ -n "$_xo" ] ;; *) false ;; esac ||
		{ _bb_bad=$((_bb_bad + 1)); return; }
	_xr=${_xr#ok }
	for _xm in grant_ops gnttab_calls hypercalls; do
		case $_xm in
		grant_ops) _xc=$(xt_grant_ops "$_xr") _xu=ops ;;
		*) _xc=$(kv "$_xr" $_xm) _xu=calls ;;
		esac
		bb_sample "xen-$1${3:+[$3]}" "${_xm}_per_req" "$_xu" false "$2" "" "$4" \
			"$(awk -v o="$_xc" -v q="$_xq" 'BEGIN { printf "%.4f", o / q }')"
	done
	_bb_xn=$((_bb_xn + 1))
}

bb_busname() { case "$1" in xen-blkfront) echo vbd ;; xen-blkfront-64k) echo vbd-64k ;; *) echo "$1" ;; esac; }
bb_stat() { cat "/sys/block/xvda/xps/$1" 2>/dev/null || echo 0; }

bench_blk_domU() {
	modprobe ext4
	_bb_first=${BB_VARIANTS%% *}
	if bb_variant "$_bb_first"; then
		pass bench-blk/attach "$_bb_first sectors=$(cat /sys/block/xvda/size) driver=$(basename "$(readlink /sys/block/xvda/device/driver)")"
	else
		fail bench-blk/attach "first variant $_bb_first: no /dev/xvda"
		return
	fi
	_bb_bad=0 _bb_cbad=0 _bb_cs=0 _bb_n=0 _bb_xn=0 _bb_rep=1 _bb_cur=$_bb_first
	# the traced run's workload: the first fio one
	_bb_tw=$(echo "$BB_WORKLOADS" | tr ' ' '\n' | grep -v '^build$' | head -n 1)
	while [ "$_bb_rep" -le "$BB_REPS" ]; do
		# Alternate the order inside each pair so neither variant always
		# runs first (warm caches, host load drifting over the boot).
		_bb_order=$BB_VARIANTS
		[ $((_bb_rep % 2)) = 0 ] && _bb_order=$(echo "$BB_VARIANTS" | tr ' ' '\n' | sed -n '1!G;h;$p' | xargs)
		for _bb_v in $_bb_order; do
			if [ "$_bb_v" != "$_bb_cur" ] && ! bb_variant "$_bb_v"; then
				echo "bench-blk: could not switch to $_bb_v"
				_bb_bad=$((_bb_bad + 1)); _bb_cur=; continue
			fi
			_bb_cur=$_bb_v
			_bb_drv=${_bb_v%%:*} _bb_p=
			case "$_bb_v" in *:*) _bb_p=${_bb_v#*:} ;; esac
			for _bb_w in $BB_WORKLOADS; do
				if [ "$_bb_w" = build ]; then
					_bb_k=1
					while [ $_bb_k -le $BB_BUILDS ]; do
						if _bb_sec=$(bb_build); then
							bb_sample "build${_bb_p:+[$_bb_p]}" seconds s false "$_bb_drv" "" "$_bb_rep" "$_bb_sec"
							_bb_n=$((_bb_n + 1))
						else
							_bb_bad=$((_bb_bad + 1))
						fi
						_bb_k=$((_bb_k + 1))
					done
					continue
				fi
				_g0=$(bb_stat grants_issued) _s0=$(bb_stat segments) _q0=$(bb_stat requests)
				_b0=$(rpc bstat) _m0='' _m1=''
				[ "$BB_INSN" != 1 ] || _m0=$(bb_imark)
				_bb_out=$(bb_fio /dev/xvda "$_bb_w")
				[ "$BB_INSN" != 1 ] || _m1=$(bb_imark)
				_b1=$(rpc bstat)
				_bb_iops=${_bb_out%% *} _bb_ios=${_bb_out#* }
				if [ -z "$_bb_out" ]; then
					_bb_bad=$((_bb_bad + 1)); continue
				fi
				bb_sample "$_bb_w${_bb_p:+[$_bb_p]}" iops IO/s true "$_bb_drv" "" "$_bb_rep" "$_bb_iops"
				_bb_n=$((_bb_n + 1))
				_bk=$(bb_backend "$_b0" "$_b1")
				if [ "${_bk%% *}" -gt 0 ]; then
					bb_sample "$_bb_w${_bb_p:+[$_bb_p]}" backend-kb-per-req KB null "$_bb_drv" "" "$_bb_rep" \
						"$(echo "$_bk" | awk '{ printf "%.2f", $2 / $1 }')"
					[ -z "$_m1" ] || echo "XPS-ISAMPLE {\"bench\": \"$_bb_w${_bb_p:+[$_bb_p]}\", \"metric\": \"insns-per-req\", \"unit\": \"insn\", \"variant\": \"$_bb_drv\", \"params\": {}, \"run\": $_bb_rep, \"imark\": [$_m0, $_m1], \"per\": ${_bk%% *}, \"higher_is_better\": false}"
				else
					echo "bench-blk: no blkback statistics for $_bb_v, $_bb_w: $_b0 -> $_b1"
					_bb_bad=$((_bb_bad + 1))
				fi
				if [ "$_bb_drv" = xen-blkfront-64k ]; then
					_g=$(( $(bb_stat grants_issued) - _g0 )) _s=$(( $(bb_stat segments) - _s0 ))
					# per request the driver counted over the same window
					# (fio's own count leaves out its ramp)
					_bb_ios=$(( $(bb_stat requests) - _q0 ))
					# persistent: one map per new grant; otherwise a map and an unmap per segment
					if [ "$(bb_stat persistent)" = 1 ]; then _ops=$_g; else _ops=$((2 * _s)); fi
					[ "$_bb_ios" -gt 0 ] || _bb_ios=1
					bb_sample "$_bb_w${_bb_p:+[$_bb_p]}" backend-grant-ops-per-io ops false "$_bb_drv" \
						"" "$_bb_rep" "$(awk -v a="$_ops" -v b="$_bb_ios" 'BEGIN { printf "%.4f", a / b }')"
				fi
			done
			[ -z "$_bb_tw" ] || bb_traced "$_bb_tw" "$_bb_drv" "$_bb_p" "$_bb_rep"
		done
		for _bb_w in $BB_WORKLOADS; do
			[ "$_bb_w" != build ] || continue
			_bb_c=$(rpc ceiling "$_bb_w")
			case "$_bb_c" in
			[0-9]*) # one ceiling sample in every table of this workload
				for _bb_p in $(echo "$BB_VARIANTS" | tr ' ' '\n' | awk -F: '{ print (NF > 1 ? $2 : "-") }' | sort -u); do
					[ "$_bb_p" != - ] || _bb_p=
					bb_sample "$_bb_w${_bb_p:+[$_bb_p]}" iops IO/s true "null_blk-in-dom0" "" "$_bb_rep" "${_bb_c%% *}"
					_bb_cs=$((_bb_cs + 1))
				done ;;
			*) _bb_cbad=$((_bb_cbad + 1)) ;;
			esac
		done
		_bb_rep=$((_bb_rep + 1))
	done
	if [ "$_bb_bad" = 0 ]; then pass bench-blk/sweep "$_bb_n runs: {$BB_VARIANTS} x {$BB_WORKLOADS}, $_bb_xn traced"
	else fail bench-blk/sweep "$_bb_bad run(s) produced no number"; fi
	# (the build workload has no ceiling: with it alone, there is none)
	if [ -z "$_bb_tw" ]; then pass bench-blk/ceiling "no fio workload, no ceiling run"
	elif [ "$_bb_cbad" = 0 ] && [ "$_bb_cs" -gt 0 ]; then pass bench-blk/ceiling "$_bb_cs samples: $BB_REPS x {$BB_WORKLOADS} on dom0's null_blk"
	else fail bench-blk/ceiling "$_bb_cbad ceiling run(s) produced no number"; fi
}
