#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-bfl-loops.sh - blkfront-life's fio loop bookkeeping on the host,
# under dash and, when the host has it, busybox's sh and awk (what the
# domU runs), with a fake bf_fio and a fake /sys/block: no QEMU, no
# root, seconds.  Prints PASS:/FAIL: lab/bfl-loops/<case> lines.
#   snap        bfl_snap's one awk gives each disk's resumes, requeued and
#               summed errors_*, each loop's runs and the .fail and
#               .corrupt lines, as the helpers that forked per file did
#   snap-stock  with Debian's driver (no counters): only the loops' counts
#   snap-more   a scenario's own loop (BFL_MORE_TAG, soak's transfers,
#               n): its runs as P_n_more, its .fail and .corrupt lines
#               in the sums
#   tags        bfl_set_disks: a loop's tag is its disk's letter
#   killed      a run that bfl_loops_stop's SIGTERM ended (fio exits 128)
#               is not counted as a failure, and the loop ends
#   own-fail    a run that failed by itself (fio exits 1) while the stop
#               was being asked for is counted (be6c3f9 skipped any
#               failure once the stop file existed: this case failed
#               before the fix)
#   moves       bfl_moves after save-restore's rounds: the driver is
#               reloaded with its defaults once round 1 passed (not
#               only when both did), and a failed reload fails saves
#               and migrate saying so (before 0ed4e1d both cases ran the
#               moves with round 2's parameters: this check failed)
#   move        bfl_move_one judges a move bad, and a hang, when a loop
#               ended no run begun after it within the wait (before the
#               fix the move passed: move-no-run-after failed); with
#               BFL_RUN_AFTER_EVERY, a move between asks only for I/O on
#               each disk after it, the loop's last for a whole run
set -uo pipefail
shtest_area=lab/bfl-loops
# shellcheck source=tests/lab/lib/shtest.sh
. "$(dirname "$0")/lib/shtest.sh"

# run SHELL SCRIPT: SCRIPT after blkfront-life.sh, in SHELL, with
# bfl_lines KIND: how many lines the loops' bfl-TAG.KIND files hold,
# all of them together (the sum bfl_snap's one awk must match)
run() {
	local sh path
	shell_of "$1"
	shift
	PATH=$path LAB_DIR=$here BFL_TMP=$t $sh -c ". $here/scenarios/blkfront-life.sh
		bfl_lines() { bfl_cat \"\$1\" | wc -l; }
		$1" 2>&1
}

# a fake /sys/block: xvda, xvdb, xvdc with our driver's counters
sys=$sim/sys
put() { mkdir -p "$sys/$1/xps"; echo "$3" >"$sys/$1/xps/$2"; }
put xvda resumes 2; put xvda requeued 5; put xvda errors_io 1; put xvda errors_resp 3
put xvdb resumes 1; put xvdb requeued 0; put xvdb errors_io 0
put xvdc resumes 4; put xvdc requeued 17; put xvdc errors_io 0; put xvdc errors_resp 2

loopfiles() {
	rm -f "$t"/*
	echo 3 >"$t/bfl-a.runs"
	echo 12 >"$t/bfl-b.runs"
	printf 'run 1: rc=1\nrun 2: rc=1\n' >"$t/bfl-a.fail"
	echo "run 0: rc=1" >"$t/bfl-c.fail"
	echo 7 >"$t/bfl-b.corrupt"
}

for sh in "${shells[@]}"; do
	loopfiles
	got=$(run "$sh" "BFL_SYSBLOCK=$sys; bfl_set_disks 'xvda xvdb xvdc'; eval \"\$(bfl_snap _s0)\"
		echo \$_s0_r_xvda \$_s0_q_xvda \$_s0_e_xvda \$_s0_r_xvdb \$_s0_q_xvdb \$_s0_e_xvdb \$_s0_r_xvdc \$_s0_q_xvdc \$_s0_e_xvdc \
			\$_s0_n_a \$_s0_n_b \$_s0_n_c \$_s0_f \$_s0_c \$(bfl_lines fail) \$(bfl_lines corrupt) \$(bfl_runs b)")
	check "snap ($sh)" "2 5 4 1 0 0 4 17 2 3 12 0 3 1 3 1 12" "$got"

	got=$(run "$sh" "BFL_SYSBLOCK=$sys BF_STOCK=1; bfl_set_disks 'xvda xvdb xvdc'; bfl_snap _s1")
	check "snap-stock ($sh)" "_s1_n_a=3 _s1_n_b=12 _s1_n_c=0 _s1_f=3 _s1_c=1" "$got"

	# a scenario's own loop (soak's transfers, tag n) beside the fio ones
	echo 5 >"$t/bfl-n.runs"; echo "run 4: rc=1" >"$t/bfl-n.fail"; echo 4 >"$t/bfl-n.corrupt"
	got=$(run "$sh" "BFL_SYSBLOCK=$sys BF_STOCK=1; bfl_set_disks 'xvda xvdb xvdc'; BFL_MORE_TAG=n BFL_TAGS=\"\$BFL_TAGS n\"; bfl_snap _s2")
	check "snap-more ($sh)" "_s2_n_a=3 _s2_n_b=12 _s2_n_c=0 _s2_f=4 _s2_c=2 _s2_n_more=5" "$got"
	rm -f "$t"/bfl-n.*

	got=$(run "$sh" "bfl_set_disks 'xvda xvdb'; echo \"\$BFL_TAGS\"; bfl_set_disks 'xvda xvdb xvdc'; echo \"\$BFL_TAGS\"")
	check "tags ($sh)" "a b
a b c" "$got"

	# bfl_loop with a fake fio: each call takes the next outcome from
	# $sim/outcomes: ok, or "RC [stop]" (stop: the stop file appears
	# while the run ends, as when bfl_loops_stop's kill ended it)
	fake='bf_fio() {
		_l=$(head -n 1 '"$sim"'/outcomes); sed -i 1d '"$sim"'/outcomes
		case "$_l" in ok|"") echo "w=1 r=1 0s"; return 0 ;; esac
		case "$_l" in *stop) touch "$BFL_TMP/bfl.stop" ;; esac
		echo "rc=${_l%% *} after 0s (limit ${2}s): fake"; return 1
	}
	bf_fio_corrupt() { return 1; }'
	# CHECK/CASE:OUTCOMES:FAILURES:RUNS
	for c in "killed/killed:ok|128 stop:0:1" "killed/killed-early:ok|143 stop:0:1" \
		"own-fail/own-fail:ok|1 stop:1:2" "own-fail/fail-then-killed:1|128 stop:1:1"; do
		n=${c%%/*} c=${c#*/}
		name=${c%%:*} rest=${c#*:}
		outs=${rest%%:*} rest=${rest#*:}
		wantf=${rest%%:*} wantr=${rest#*:}
		rm -f "$t"/*
		echo "$outs" | tr '|' '\n' >"$sim/outcomes"
		got=$(run "$sh" "$fake
			bfl_loop xvdz a 0 crc32c; echo \$(bfl_set_disks xvda; bfl_lines fail) \$(bfl_runs a)")
		check "$n ($sh, $name)" "$wantf $wantr" "$got"
	done

	# bfl_moves OK with a fake driver (its load's exit: $sim/loadrc),
	# no /dev/xvda on the host: moves that would run say "no disk"
	fake='blkfront_life_steps="saves migrate"
	bf_unload() { echo unload; }
	bf_load() { echo load; return "$(cat '"$sim"'/loadrc)"; }
	wait_for() { return 0; }
	bf_xps() { echo persistent=1 zero_copy=0; }
	bf_step() { echo "$1 $2 $3"; }
	bfl_move_loop() { echo "$1 moved"; }'
	why="did not run: the driver's reload with its defaults after save-restore failed: persistent=1 zero_copy=0"
	nodisk="saves FAIL did not run (no disk)
migrate FAIL did not run (no disk)"
	# CASE:OK:LOADRC:WANT
	for c in "reload-fails:2:1:unload
load
saves FAIL $why
migrate FAIL $why" "round-2-failed:1:1:unload
load
saves FAIL $why
migrate FAIL $why" "reload-ok:2:0:unload
load
$nodisk" "none-ran:x:0:$nodisk"; do
		name=${c%%:*} rest=${c#*:}
		ok=${rest%%:*} rest=${rest#*:}
		echo "${rest%%:*}" >"$sim/loadrc"
		got=$(run "$sh" "$fake
			bfl_moves $ok")
		check "moves ($sh, $name)" "${rest#*:}" "$got"
	done

	# bfl_move_one with fake rpc, xenstore and fio, on a copy of the
	# fake /sys/block: a migration that worked (new domain id, one
	# resume a disk, the reference verifies); AFTER: the loops that then
	# ended a run begun after it (before the fix, none but a was judged
	# fine: move-no-run-after failed)
	fake='BFL_SYSBLOCK='"$sim"'/msys
	up() { echo 0; }
	since() { echo 0; }
	wait_for() {
		shift
		for _k in $IO; do
			read -r _r _x _x _x _w _rest <$BFL_SYSBLOCK/$_k/stat
			echo "$_r 0 0 0 $((_w + 1)) 0" >$BFL_SYSBLOCK/$_k/stat
		done
		"$@"
	}
	PATH='"$sim"'/bin:$PATH
	rpc() { echo ok; }
	bfl_poll() {
		for _k in xvda xvdb xvdc; do
			echo $(($(cat $BFL_SYSBLOCK/$_k/xps/resumes) + 1)) >$BFL_SYSBLOCK/$_k/xps/resumes
		done
		echo 6 >'"$sim"'/domid
		for _k in $AFTER; do echo 1 >"$BFL_TMP/bfl-$_k.after"; done
		echo "ok migrate=9s"
	}
	bf_fio() { echo "w=0 r=1 0s"; }
	bf_drv() { echo vbd-64k; }
	bf_step() { echo "$1 $2 $3"; }
	BF_DRV=vbd-64k'
	mkdir -p "$sim/bin"
	printf '#!/bin/sh\ncat %s/domid\n' "$sim" >"$sim/bin/xenstore-read"
	chmod +x "$sim/bin/xenstore-read"
	# CASE:EVERY:LAST:AFTER:IO:WANT (BFL_RUN_AFTER_EVERY, the loop's
	# last move, the disks with I/O after the move; WANT: the return,
	# then what bf_step said, cut).  Move 1 of 3 with EVERY 5 asks only
	# for I/O on each disk after it; the last move for a whole run.
	for c in "move-ok:1:1:a b c::0" "move-no-run-after:1:1:a::1 migrate FAIL bad: no-run-after:b,c" \
		"move-io:5:3::xvda xvdb xvdc:0" "move-no-io:5:3:a b c:xvda xvdb:1 migrate FAIL bad: no-io-after" \
		"move-last:5:1:a b:xvda xvdb xvdc:1 migrate FAIL bad: no-run-after:c"; do
		name=${c%%:*} rest=${c#*:}
		every=${rest%%:*} rest=${rest#*:}
		last=${rest%%:*} rest=${rest#*:}
		after=${rest%%:*} rest=${rest#*:}
		io=${rest%%:*}
		rm -f "$t"/*; echo 5 >"$sim/domid"
		rm -rf "$sim/msys"; cp -r "$sys" "$sim/msys"
		for d in xvda xvdb xvdc; do echo "10 0 0 0 20 0" >"$sim/msys/$d/stat"; done
		got=$(AFTER=$after IO=$io run "$sh" "$fake
			bfl_set_disks 'xvda xvdb xvdc'
			BFL_RUN_AFTER_EVERY=$every _mlast=$last
			bfl_move_one migrate migrate '' 1 >\"\$BFL_TMP/step\"; echo \$? \$(sed -n 's/.*\\(bad:[^;]*\\);.*/\\1/p' \"\$BFL_TMP/step\")")
		want=${rest#*:}
		[ "${want%% *}" = 1 ] && want="1 ${want#* migrate FAIL }"
		check "move ($sh, $name)" "$want" "$got"
	done
done

[ "$fails" = 0 ]
