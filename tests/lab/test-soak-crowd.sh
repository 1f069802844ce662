#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-soak-crowd.sh - the soak scenario's judge of a crowd domU's move
# (soak_crowd_judge) on the host, under dash and, when the host has it,
# busybox's sh and awk, with a fake /sys/block, a fake bf_fio and the
# loop's files in a scratch folder: no QEMU, no root.  Prints
# PASS:/FAIL: lab/soak-crowd/<case> lines.
#   ok          one resume, no error, a run after the move, the
#               reference verifies: an ok XPS-SOAK crowd-saves line
#   no-resume   the disk did not count a resume: bad
#   errors      an error counter moved: bad
#   loop-failed the loop failed a run meanwhile: bad
#   corrupt     the reference did not verify: bad, corrupt=1
#   migrate     move 2 is a crowd-migrate line
#   stock       Debian's driver: judged without counters
set -uo pipefail
shtest_area=soak-crowd
# shellcheck source=tests/lab/lib/shtest.sh
. "$(dirname "$0")/lib/shtest.sh"
sys=$sim/sys
mkdir -p "$sys/xvda/xps"

# case SHELL NAME MOVE RESUMES ERRORS FAILS REF [STOCK]: the counters move
# from resumes 3, errors 1, no failed run, to the given ones; REF: ok or
# corrupt (the reference's fio); prints the judge's XPS-SOAK line and
# its status
judge() {
	local sh path
	shell_of "$1"
	shift
	rm -f "$t"/*
	echo 3 >"$sys/xvda/xps/resumes"; echo 7 >"$sys/xvda/xps/requeued"; echo 1 >"$sys/xvda/xps/errors_io"
	echo 5 >"$t/bfl-a.runs"
	PATH=$path LAB_DIR=$here BFL_TMP=$t BFL_SYSBLOCK=$sys DOM=sk3 XPS_SCN_SOAK_GUESTS=8 $sh -c '
		_sys=$BFL_SYSBLOCK _ref=$5
		. "$LAB_DIR/scenarios/soak.sh"
		BFL_SYSBLOCK=$_sys
		[ -z "$6" ] || bf_use_stock
		up() { echo 0; }
		since() { echo 0; }
		wait_for() { shift; "$@"; }
		bf_drv() { echo "$BF_DRV"; }
		bf_fio() { if [ "$_ref" = ok ]; then echo "w=1 r=1 0s"; else echo "rc=1 fake"; return 1; fi; }
		bf_fio_corrupt() { true; }
		bfl_set_disks xvda
		eval "$(bfl_snap _s0)"
		echo "$2" >"$BFL_SYSBLOCK/xvda/xps/resumes"; echo "$3" >"$BFL_SYSBLOCK/xvda/xps/errors_io"
		[ "$4" = 0 ] || echo "run 5: rc=1" >"$BFL_TMP/bfl-a.fail"
		echo 7 >"$BFL_TMP/bfl-a.runs"; echo "$1" >"$BFL_TMP/bfl-a.after"
		soak_crowd_judge "$1" 4 9 >"$BFL_TMP/judge.out"; _jr=$?; grep XPS-SOAK "$BFL_TMP/judge.out"; echo "rc=$_jr"
	' sh "$@" 2>&1 | tr '\n' ' '
}

for sh in "${shells[@]}"; do
	check "ok ($sh)" "XPS-SOAK crowd-saves 3 ok 0 corrupt=0 hang=0 rc=0 " "$(judge "$sh" 1 4 1 0 ok)"
	check "no-resume ($sh)" "XPS-SOAK crowd-saves 3 bad 0 corrupt=0 hang=0 rc=1 " "$(judge "$sh" 1 3 1 0 ok)"
	check "errors ($sh)" "XPS-SOAK crowd-saves 3 bad 0 corrupt=0 hang=0 rc=1 " "$(judge "$sh" 1 4 2 0 ok)"
	check "loop-failed ($sh)" "XPS-SOAK crowd-saves 3 bad 0 corrupt=0 hang=0 rc=1 " "$(judge "$sh" 1 4 1 1 ok)"
	check "corrupt ($sh)" "XPS-SOAK crowd-saves 3 bad 0 corrupt=1 hang=0 rc=1 " "$(judge "$sh" 1 4 1 0 bad)"
	check "migrate ($sh)" "XPS-SOAK crowd-migrate 3 ok 0 corrupt=0 hang=0 rc=0 " "$(judge "$sh" 2 4 1 0 ok)"
	check "stock ($sh)" "XPS-SOAK crowd-saves 3 ok 0 corrupt=0 hang=0 rc=0 " "$(judge "$sh" 1 3 1 0 ok stock)"
done
[ "$fails" = 0 ]
