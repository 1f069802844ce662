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
# and dom0's side of the crowd's turns (soak_rpc, soak_crowd_mover) in a
# fake run folder (XPS_RUN), with xl's moves faked:
#   poll-wait   no crowd-go yet, bfl still there: a poll answers wait
#   go          crowd-go starts the mover once, however often it comes;
#               then a domU not at its turn hears soon
#   gone        bfl's domain gone: the first poll starts the mover
#   turn-stop   turn at the domU the mover is at, stop once done with it
#   count       crowd-count: how many reported, how many loaded
#   mover       the mover takes each domU that loaded in turn, save then
#               migrate, and tells every domU, loaded or not, to stop
#   not-ready   a domU whose loop never starts is not moved, and stops
set -uo pipefail
shtest_area=lab/soak-crowd
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

# in_soak SHELL GUESTS SCRIPT [ARG...]: SCRIPT after soak.sh (GUESTS in
# all) in SHELL, with ARGs, in a fresh run folder $sim/run (XPS_RUN),
# for at most 20 s
in_soak() {
	local sh path
	shell_of "$1"
	rm -rf "$sim/run"; mkdir -p "$sim/run"
	PATH=$path LAB_DIR=$here BFL_TMP=$t XPS_RUN=$sim/run XPS_SCN_SOAK_GUESTS=$2 timeout 20 $sh -c \
		". \"\$LAB_DIR/scenarios/soak.sh\"
		$3" sh "${@:4}"
}

# proto SHELL PREP CALL...: soak_rpc from domain 5 for each CALL
# ("crowd-poll sk1"), in a run folder PREP set up (shell code, in it),
# the mover faked (it notes it started); prints the replies and how
# often the mover started
proto() {
	in_soak "$1" 8 '
		soak_crowd_mover() { echo started >>"$SOAK_RUN/mover.log"; }
		(cd "$SOAK_RUN" && eval "$1")
		shift
		for _c in "$@"; do
			RPC_REPLY=""
			soak_rpc 5 $_c; wait
			printf "%s " "$RPC_REPLY"
		done
		echo "movers=$(cat "$SOAK_RUN/mover.log" 2>/dev/null | wc -l)"
	' "${@:2}" 2>&1
}

# mover SHELL PREP: soak_crowd_mover over sk1..sk3 in a run folder PREP
# set up; a move is noted and the domU judges it at once; prints the
# moves, its notes and the domUs told to stop
mover() {
	in_soak "$1" 4 '
		up() { echo 0; }
		since() { echo "$SINCE"; }
		sleep() { :; }
		soak_crowd_move() {
			echo "$1:$2" >>"$SOAK_RUN/moves"
			grep -c "^$1:" "$SOAK_RUN/moves" >"$SOAK_RUN/soak-settled-$1"
		}
		(cd "$SOAK_RUN" && eval "$1")
		soak_crowd_mover
		cat "$SOAK_RUN/moves" 2>/dev/null
		echo "turn=$(cat "$SOAK_RUN/soak-turn") stop:"; cd "$SOAK_RUN" && ls soak-stop-*
	' "${@:2}" 2>&1 | tr '\n' ' '
}

for sh in "${shells[@]}"; do
	check "poll-wait ($sh)" "wait movers=0" "$(proto "$sh" '' 'crowd-poll sk1')"
	check "go ($sh)" "wait ok soon ok soon movers=1" \
		"$(proto "$sh" '' 'crowd-poll sk1' crowd-go 'crowd-poll sk1' crowd-go 'crowd-poll sk2')"
	check "gone ($sh)" "wait soon movers=1" "$(proto "$sh" 'touch bfl.gone' 'crowd-poll sk1' 'crowd-poll sk1')"
	check "turn-stop ($sh)" "stop turn soon movers=0" \
		"$(proto "$sh" 'mkdir soak-mover; echo sk2 >soak-turn; touch soak-stop-sk1' \
			'crowd-poll sk1' 'crowd-poll sk2' 'crowd-poll sk3')"
	check "count ($sh)" "ok ok 2 1 ok 2 1 movers=0" \
		"$(proto "$sh" '' 'crowd-up sk1 ok' 'crowd-up sk2 failed' crowd-count 'crowd-up sk1 ok' crowd-count)"
	check "mover ($sh)" "sk1:save-restore sk1:migrate sk3:save-restore sk3:migrate turn=sk3 stop: soak-stop-sk1 soak-stop-sk2 soak-stop-sk3 " \
		"$(SINCE=0 mover "$sh" 'echo ok >soak-up-sk1; echo failed >soak-up-sk2; echo ok >soak-up-sk3; touch soak-ready-sk1 soak-ready-sk3')"
	check "not-ready ($sh)" "xps: sk1: its loop not running after 600 s; not moved turn=sk1 stop: soak-stop-sk1 soak-stop-sk2 soak-stop-sk3 " \
		"$(SINCE=600 mover "$sh" 'echo ok >soak-up-sk1')"
done

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
