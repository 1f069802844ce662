#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-soak-net.sh - the soak's transfer loop through the net pair
# (soak_net_loop) and its step (soak_net_down) on the host, under dash
# and, when the host has it, busybox's sh and awk, with fake transfers
# (nf_send, nf_recv), a fake unload and fake pools: no QEMU, no root.
# Prints PASS:/FAIL: lab/soak-net/<case> lines.
#   loop        runs that pass, fail (1) and corrupt (2) are counted in
#               the files every move's judge reads (bfl-n.runs, .fail,
#               .corrupt, .after) and in soak-net.all; a failed send
#               does not receive
#   down-ok     every run passed, the last transfer too, no pool left:
#               an ok XPS-SOAK net line with pool_live=0, net PASS
#   down-failed a failed and a corrupt run: bad, corrupt=1, net FAIL
#   down-pools  a pool that is not the block frontend's left after the
#               unload: bad, pool_live names it
#   down-grants ours with ours, the last reconnection mapped per packet
#               ("per-packet grants: ..."): bad
#   down-stock  Debian's frontend: no pool check, no grants line
#   pools       soak_net_pools on a fake debugfs: every pool but the
#               block frontend's, its live pages and its slots
#   pools-gone  only the block frontend's left: none
set -uo pipefail
shtest_area=lab/soak-net
# shellcheck source=tests/lab/lib/shtest.sh
. "$(dirname "$0")/lib/shtest.sh"

# run SHELL SCRIPT: SCRIPT after soak.sh, in SHELL, with the fakes: each
# nf_send or nf_recv takes the next exit from $sim/outcomes (the stop
# file appears once they are used up); pools from $sim/pools
run() {
	local sh path
	shell_of "$1"
	PATH=$path LAB_DIR=$here BFL_TMP=$t SIM=$sim $sh -c '
		. "$LAB_DIR/scenarios/soak.sh"
		[ -z "${STOCK:-}" ] || NF_DRIVER=stock
		up() { echo 0; }
		since() { echo 0; }
		renice() { :; }
		wait_for() { shift; "$@"; }
		fake() {
			_l=$(head -n 1 "$SIM/outcomes"); sed -i 1d "$SIM/outcomes"
			[ -s "$SIM/outcomes" ] || touch "$BFL_TMP/bfl.stop"
			echo "$1 fake rc=${_l:-0}"; return "${_l:-0}"
		}
		nf_send() { fake send; }
		nf_recv() { fake recv; }
		nf_unload() { _how=fake; }
		[ -n "${REAL_POOLS:-}" ] || soak_net_pools() { cat "$SIM/pools"; }
		dmesg() { cat "$SIM/dmesg"; }
		bf_step() { echo "STEP $1 $2"; }
		'"$2" 2>&1
}

for sh in "${shells[@]}"; do
	# loop: run 0 passes, run 1's send fails (no receive), run 2's
	# receive fails, run 3's receive is corrupt; moved once before
	rm -f "$t"/*; printf '0\n0\n1\n0\n1\n0\n2\n' >"$sim/outcomes"; echo 1 >"$t/bfl.moved"
	got=$(run "$sh" 'soak_net_loop >/dev/null; echo $(cat "$BFL_TMP/bfl-n.runs") $(wc -l <"$BFL_TMP/bfl-n.fail") $(cat "$BFL_TMP/bfl-n.corrupt") $(cat "$BFL_TMP/bfl-n.after") $(cat "$BFL_TMP/soak-net.all"); grep -c "" "$SIM/outcomes"')
	check "loop ($sh)" "4 3 3 1 0 1 1 2
0" "$got"

	# CASE|RUNS' EXITS|POOLS LEFT|LAST TRANSFER'S EXITS|GRANTS|STOCK
	# (GRANTS: the frontend's last grants line; a: maps all, n: none)
	for c in "down-ok|0 0 0||0 0|a|" \
		"down-failed|0 1 2||0 0|a|" \
		"down-pools|0 0|eth0-q0-tx:4/16 |0 0|a|" \
		"down-grants|0 0||0 0|n|" \
		"down-stock|0 0|eth0-q0-tx:4/16 |0 0|n|1"; do
		name=${c%%|*} rest=${c#*|}
		all=${rest%%|*} rest=${rest#*|}
		pools=${rest%%|*} rest=${rest#*|}
		outs=${rest%%|*} rest=${rest#*|}
		grants=${rest%%|*} stock=${rest#*|}
		{
			# (as the lab's domU logs them, 2026-12-07)
			echo "[  218.110947] vif-pgnt vif-0: persistent grants: the backend maps all 1024 pool grants of 2 queues"
			[ "$grants" = a ] || echo "[  248.117530] vif-pgnt vif-0: per-packet grants: the backend maps none of the 2 queues"
		} >"$sim/dmesg"
		rm -f "$t"/*
		echo "$all" | tr ' ' '\n' >"$t/soak-net.all"
		printf '%s' "$pools" >"$sim/pools"
		echo "$outs" | tr ' ' '\n' >"$sim/outcomes"
		got=$(STOCK=$stock run "$sh" 'SOAK_NET_BAD="" SOAK_NET_T0=0; soak_net_down | grep -o "^XPS-SOAK.*\|^STEP net [A-Z]*"' | tr '\n' '|')
		case $name in
		down-ok) want="XPS-SOAK net 1 ok 0 corrupt=0 hang=0 pool_live=0|STEP net PASS|" ;;
		down-failed) want="XPS-SOAK net 1 bad 0 corrupt=1 hang=0 pool_live=0|STEP net FAIL|" ;;
		down-pools) want="XPS-SOAK net 1 bad 0 corrupt=0 hang=0 pool_live=eth0-q0-tx:4/16,|STEP net FAIL|" ;;
		down-grants) want="XPS-SOAK net 1 bad 0 corrupt=0 hang=0 pool_live=0|STEP net FAIL|" ;;
		down-stock) want="XPS-SOAK net 1 ok 0 corrupt=0 hang=0|STEP net PASS|" ;;
		esac
		check "$name ($sh)" "$want" "$got"
	done
done
# pools: soak_net_pools reads a fake debugfs in one awk: the block
# frontend's pools (xbf*) left out, every other with its pages_live and
# slots; nothing when only the block frontend's are left
gp=$sim/gp
for sh in "${shells[@]}"; do
	rm -rf "$gp"
	mkdir -p "$gp/xbf-xvda" "$gp/xnf-vif-0-q0" "$gp/xnf-vif-0-q1"
	printf 'slots 64\npages_live 64\n' >"$gp/xbf-xvda/stats"
	printf 'grants_issued 9\nslots 512\nslots_free 500\npages_live 12\n' >"$gp/xnf-vif-0-q0/stats"
	printf 'pages_live 0\nslots 3\n' >"$gp/xnf-vif-0-q1/stats"
	check "pools ($sh)" "xnf-vif-0-q0:12/512 xnf-vif-0-q1:0/3 " "$(REAL_POOLS=1 run "$sh" "SOAK_GP_DEBUGFS=$gp; soak_net_pools")"
	rm -r "$gp"/xnf-*
	check "pools-gone ($sh)" "yes" "$(REAL_POOLS=1 run "$sh" "SOAK_GP_DEBUGFS=$gp; soak_net_pools_gone && echo yes")"
done
[ "$fails" = 0 ]
