#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh [STEP...]: everything `make check` (and so CI) runs.
#
# Each step prints one line per test, "PASS: <name>" or "FAIL: <name>
# <why>"; a step that prints none is judged by its exit code. A lab step
# with a step that has no result adds "TAIL: " lines (the domU's and
# dom0's last words about it), so a CI log alone says where it stopped.
# Every step runs even after a failure, its log is kept in
# build/check/<step>.log, and the last line is "N passed, N failed".
# Steps: unit fuzz spin tools style w1 sparse params matrix lab net netback
# migrate pkg arm64 (the default: make check, what CI runs; each step's
# seconds are in its TIME: line), and netpairs and netback-stock: lab
# boots that `make check-full` (the step "full": all of them) adds, with
# the stock drivers' smoke scenario in the lab step. hostile-stock (make
# hostile-stock, in neither): hostile-blk's cases against Debian's
# xen-blkfront, hostile-nf's against its xen-netfront and hostile-nb's
# against its xen-netback, for comparison.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
logs="$root/build/check"
mkdir -p "$logs"
cd "$root" || exit 1

# netpairs (eight domUs in a 6 GB boot: 426-630 s) is check-full's: with
# it, CI took 88 minutes with a warm cache (2026-12-07), and a cold one
# adds the images and the arm64 kernel
check_steps=(unit fuzz spin tools style w1 sparse params matrix lab net netback migrate pkg arm64)
steps=()
for s in "$@"; do
	case "$s" in
	# and, in the block lab boot, the stock drivers' smoke test and the
	# reload loops at their longer counts
	full)	steps+=("${check_steps[@]}" netpairs netback-stock)
		export XPS_LAB_SCENARIOS=${XPS_LAB_SCENARIOS:-smoke grant-pool blkfront blkfront-life blkfront-held qspinlock}
		export XPS_SCN_GP_CYCLES=${XPS_SCN_GP_CYCLES:-10}
		export XPS_SCN_BF_CYCLES=${XPS_SCN_BF_CYCLES:-6}
		export XPS_SCN_BFL_CYCLES=${XPS_SCN_BFL_CYCLES:-6}
		export XPS_SCN_BFL_FULL=${XPS_SCN_BFL_FULL:-1} ;;
	*)	steps+=("$s") ;;
	esac
done
[ ${#steps[@]} -gt 0 ] || steps=("${check_steps[@]}")

# The kernel the lab boots is the one every single-kernel check builds for.
lab_kdir() {
	[ -n "${LAB_KDIR:-}" ] || LAB_KDIR=$(scripts/headers.sh "linux-headers-$(tests/lab/lab kver)")
	echo "$LAB_KDIR"
}

run_step() {
	case "$1" in
	unit)	make -s -C tests/unit check ;;
	# the drivers' validation code under libFuzzer, 20 s a target
	fuzz)	make -s -C tests/fuzz check ;;
	spin)	tests/spin/check.sh ;;
	tools)	local r=0	# each runs even after a failure
		python3 tests/bench/test_xpsstats.py || r=1
		# Debian's python3: install-deps gives it python3-matplotlib
		/usr/bin/python3 tests/bench/test_tables.py || r=1
		/usr/bin/python3 scripts/bench/tables.py --check || r=1
		tests/lab/test-judge.sh || r=1
		tests/lab/tools/test-verify.sh || r=1
		tests/lab/tools/test-xtcount.sh || r=1
		tests/lab/tools/test-insn.sh || r=1
		tests/lab/test-bench-netpairs.sh || r=1
		tests/lab/test-bench-build.sh || r=1
		tests/lab/test-rpc-serve.sh || r=1
		tests/lab/test-bfl-loops.sh || r=1
		tests/lab/test-soak-table.sh || r=1
		tests/lab/test-soak-crowd.sh || r=1
		tests/lab/test-soak-net.sh || r=1
		tests/build/test-compat-probe.sh || r=1
		tests/build/test-dkms-conf.sh || r=1
		return $r ;;
	style)	scripts/style.sh ;;
	w1)	make -s compat KDIR="$(lab_kdir)" && scripts/kbuild-check.sh w1 "$(lab_kdir)" ;;
	sparse)	make -s compat KDIR="$(lab_kdir)" && scripts/kbuild-check.sh sparse "$(lab_kdir)" ;;
	params)	scripts/lab-modules.sh "$root/build/lab-modules" >/dev/null &&
		scripts/check-params.sh "$root"/build/lab-modules/*.ko ;;
	matrix)	scripts/matrix.sh ;;
	lab)	# shellcheck disable=SC2086 # word splitting intended: a list
		scripts/lab-modules.sh "$root/build/lab-modules" >/dev/null &&
		tests/lab/lab run --modules "$root/build/lab-modules" ${XPS_LAB_SCENARIOS:-grant-pool blkfront blkfront-life blkfront-held qspinlock} ;;
	# xen-netfront-pgnt in its own boot: its two domUs move hundreds of
	# MB, which would slow the block scenarios past their budgets; and
	# beside them xen-blkfront-64k against the lying userspace backend
	# (hostile-blk: 202 s alone, light I/O) and xen-netfront-pgnt
	# against the lying userspace net backend (hostile-nf: 170 s alone)
	net)	scripts/lab-modules.sh "$root/build/lab-modules" >/dev/null &&
		XPS_LAB_OUT="$root/build/lab-net" \
			tests/lab/lab run --modules "$root/build/lab-modules" netfront hostile-blk hostile-nf ;;
	# xen-netback-pgnt in dom0, each in its own boot: against
	# xen-netfront-pgnt (persistent grants end to end, with a stock
	# netfront as domu2domu's far end) and, beside it, against the lying
	# userspace frontend (hostile-nb: 680 s for both, 775 s when it
	# waited for netback's domUs); four guest pairs at once on it (eight
	# domUs, a 6 GB boot); check-full only: against the stock netfront
	# in every step
	netback|netback-stock|netpairs)
		local with=
		[ "$1" != netback ] || with=hostile-nb
		# shellcheck disable=SC2086 # word splitting intended: none or one
		scripts/lab-modules.sh "$root/build/lab-modules" >/dev/null &&
		XPS_LAB_OUT="$root/build/lab-$1" \
			tests/lab/lab run --modules "$root/build/lab-modules" "$1" $with ;;
	# xen-blkfront-64k across blkfront-life's two xl save/restore rounds
	# (out of the crowded lab boot) and three live migrations with its
	# fio verify loops running (#16), in a boot whose Xen can migrate PV
	# guests (scenarios/migrate.sh: Debian's bookworm build, with shadow
	# paging; bookworm-security's, the lab's default, refuses)
	migrate) scripts/lab-modules.sh "$root/build/lab-modules" >/dev/null &&
		XPS_LAB_OUT="$root/build/lab-migrate" \
			tests/lab/lab run --modules "$root/build/lab-modules" migrate ;;
	# make dist, the .deb and both .rpm (lintian, rpmlint), the apt
	# install / new kernel / upgrade / purge cycle in a Debian 12 chroot,
	# then the lab booted with the modules DKMS built there
	pkg)	local t
		t=$(make -s dist) && scripts/packages.sh "$root/build/dist" "$t" &&
		tests/pkg/cycle.sh "$root/build/dist" "$root/build/pkg-modules" || return 1
		XPS_LAB_MODSUBDIR=dkms XPS_LAB_OUT="$root/build/lab-pkg" \
		XPS_LAB_MODPROBE_CONF="$root/packaging/modprobe.d/xen-pv-suite.conf" \
			tests/lab/lab run --modules "$root/build/pkg-modules" pkg-dkms ;;
	# the arm64 lab: the modules cross-built (W=1) for the 4, 16 and
	# 64 KB-page guest kernels (the 64 KB one is built once and cached),
	# then one boot with a domU of each page size
	# and a second boot for xen-netfront-pgnt on the same three guests
	# (six domUs do not fit the arm64 lab's memory)
	arm64)	local r=0
		scripts/lab-modules.sh --arch arm64 "$root/build/lab-modules-arm64" || return 1
		XPS_LAB_OUT="$root/build/lab-arm64" \
			tests/lab/lab --arch arm64 run --modules "$root/build/lab-modules-arm64" arm64-blk || r=1
		XPS_LAB_OUT="$root/build/lab-arm64-net" \
			tests/lab/lab --arch arm64 run --modules "$root/build/lab-modules-arm64" arm64-net || r=1
		return $r ;;
	# hostile-blk's cases against Debian's xen-blkfront, hostile-nf's
	# against its xen-netfront and hostile-nb's against its xen-netback
	# (after the others), in one boot: a comparison (make
	# hostile-stock), in neither check nor check-full
	hostile-stock)
		XPS_SCN_HB_DRIVER=stock XPS_SCN_HN_DRIVER=stock XPS_SCN_HF_DRIVER=stock \
		XPS_LAB_OUT="$root/build/lab-hostile-stock" \
			tests/lab/lab run hostile-blk hostile-nf hostile-nb ;;
	*)	echo "FAIL: check/$1 unknown step"; return 1 ;;
	esac
}

passed=0
failed=0

# run_logged STEP [live]: the step into its log; its start, exit code and
# seconds into $logs/STEP.run. With "live", the step's LIVE: lines (a lab
# boot's progress, tests/lab/lib/judge.sh) also reach the console as they
# come.
run_logged() {
	local t0 rc
	t0=$(date +%s)
	if [ -n "${2:-}" ]; then
		run_step "$1" 2>&1 | tee "$logs/$1.log" | { grep --line-buffered '^LIVE: ' || true; }
		rc=${PIPESTATUS[0]}
	else
		run_step "$1" >"$logs/$1.log" 2>&1
		rc=$?
		echo "LIVE: [$(date +%T)] check/$1 finished: exit $rc after $(($(date +%s) - t0))s"
	fi
	echo "$(date -d "@$t0" +%T) $rc $(($(date +%s) - t0))" >"$logs/$1.run"
}

# report STEP [noheader]: its lines, as the step printed them, and the tally
report() {
	local start rc secs p f
	read -r start rc secs <"$logs/$1.run"
	[ -n "${2:-}" ] || echo "=== $1 ($start)"
	grep -E '^(PASS|FAIL|TIME|TAIL): ' "$logs/$1.log"
	p=$(grep -c '^PASS: ' "$logs/$1.log")
	f=$(grep -c '^FAIL: ' "$logs/$1.log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		tail -n 40 "$logs/$1.log"
		echo "FAIL: $1 exited with status $rc"
		f=1
	elif [ "$rc" -eq 0 ] && [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		echo "PASS: $1"
		p=1
	fi
	[ "$f" -eq 0 ] || echo "    (log: $logs/$1.log)"
	echo "TIME: check/$1 ${secs}s"
	passed=$((passed + p))
	failed=$((failed + f))
}

# The host-only steps run as two queues side by side, one for each core:
# the ones that build kernel modules in the tree (one at a time: they
# share its objects) with style, and the rest. Their lines are printed
# in the order asked for once both are done. In the cold CI run of
# 2026-12-07 the builds took 330 s and the rest 468 s (style 63 of it):
# style, which builds nothing, evens them. The lab steps then run one
# after the other: each boot keeps both cores busy, and its budgets
# assume so.
# Tried on 2026-12-06: the migrate boot beside pkg's chroot builds took
# 1012 s for both, against 896 s one after the other (its migrations
# took 73 to 80 s each instead of 14 to 28 s).
builds=() others=() rest=()
for s in "${steps[@]}"; do
	case "$s" in
	w1|sparse|params|matrix|style)	builds+=("$s") ;;
	unit|fuzz|spin|tools)		others+=("$s") ;;
	*)				rest+=("$s") ;;
	esac
done
if [ $((${#builds[@]} + ${#others[@]})) -gt 0 ]; then
	t0=$(date +%s)
	( for s in "${builds[@]}"; do run_logged "$s"; done ) &
	( for s in "${others[@]}"; do run_logged "$s"; done ) &
	wait
	for s in "${steps[@]}"; do
		case " ${builds[*]} ${others[*]} " in *" $s "*) report "$s" ;; esac
	done
	echo "TIME: check/host-steps $(($(date +%s) - t0))s"
fi
for s in "${rest[@]}"; do
	echo "=== $s ($(date +%T))"
	run_logged "$s" live
	report "$s" noheader
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
