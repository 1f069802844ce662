#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mutants.sh: the fuzz targets' self-test. Each mutant below breaks one
# check in a copy of a driver's source (a literal replacement that must
# match exactly once, so a change to the source that moves the check makes
# this FAIL instead of passing vacuously), builds the named targets
# against the copy, and runs each from its corpus for at most FUZZ_SECS
# (20). Every target must abort with its model's complaint (fuzz.h's
# fail(): "fuzz_<source>: <message>", the message matching WANT) within that
# time; a target that keeps passing means the fuzz step could not see the
# check go. One "PASS: fuzz/mutant-<name>" or "FAIL: ..." line each.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$here" || exit 1
secs=${FUZZ_SECS:-12}
out=build/mutants
rm -rf "$out"; mkdir -p "$out"
fail=0

# mutant NAME VAR FILE OLD NEW WANT TARGET...
#   VAR: the Makefile variable naming FILE's source (BLK_CORE, NET_CORE,
#   NETBACK_CORE, RING_CORE); OLD is replaced by NEW in a copy of FILE
mutant() {
	local name=$1 var=$2 file=$3 old=$4 new=$5 want=$6; shift 6
	local dir=$out/$name t log runs n copy
	mkdir -p "$dir/src"
	copy=$dir/src/$(basename "$file")
	n=$(OLD=$old NEW=$new python3 -c '
import os, sys
s = open(sys.argv[1]).read()
n = s.count(os.environ["OLD"])
if n == 1:
    open(sys.argv[2], "w").write(s.replace(os.environ["OLD"], os.environ["NEW"]))
print(n)' "$root/$file" "$copy")
	if [ "$n" != 1 ]; then
		echo "FAIL: fuzz/mutant-$name the text to break is in $file $n times, not once: update the mutant"
		fail=1; return
	fi
	if ! make -s B="$dir" "$var=$here/$copy" \
		"${@/#/$dir/fuzz_}" >"$dir/build.log" 2>&1; then
		echo "FAIL: fuzz/mutant-$name does not build: $(grep -m1 error "$dir/build.log")"
		fail=1; return
	fi
	for t in "$@"; do
		log=$dir/$t.log
		mkdir -p "$dir/corpus-$t"
		cp -a "corpus/$t/." "$dir/corpus-$t/"
		"$dir/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 \
			-seed=1 -print_final_stats=1 -artifact_prefix="$dir/$t-" \
			"$dir/corpus-$t" >"$log" 2>&1
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
		# libFuzzer counts the corpus it loads; the crash line says "#N"
		[ -n "$runs" ] || runs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
		if grep -Eq "$want" "$log" &&
			grep -Eq 'deadly signal|ERROR: (Address|Undefined)Sanitizer' "$log"; then
			echo "PASS: fuzz/mutant-$name $t aborted after ${runs:-?} runs: $(grep -m1 -E "$want" "$log" | cut -c1-160)"
		elif grep -q 'deadly signal\|ERROR: ' "$log"; then
			echo "FAIL: fuzz/mutant-$name $t failed, but not on \"$want\": $(grep -m1 -E "^fuzz_[a-z_]*: |ERROR: " "$log" | cut -c1-200) (log tests/fuzz/$log)"
			fail=1
		else
			echo "FAIL: fuzz/mutant-$name $t still passes after ${runs:-?} runs in $secs s: the check's loss goes unseen"
			fail=1
		fi
	done
}

# xen-blkfront-64k: a response's operation not checked against the request
mutant blk-op BLK_CORE src/blkfront/xbf_core.c \
	'	default:
		return XBF_RSP_BAD_OP;' \
	'	default:
		break;' \
	'^fuzz_blk_ring: .*model wrong operation' blk_ring
# the response producer trusted as far as the ring's size, not as far as
# the requests outstanding: responses to requests never sent
mutant ring-prod RING_CORE src/grant-pool/xgp_ring_core.c \
	'if (outstanding > ring_size || n > outstanding)' \
	'if (outstanding > ring_size || n > ring_size)' \
	'^fuzz_blk_ring: rsp_avail\(.*\) = 0' blk_ring
# slots reserved only for the first backend's indirect limit: a restore
# onto a backend with a smaller one no longer re-splits within them
mutant blk-slots BLK_CORE src/blkfront/xbf_core.c \
	'for (e = 0; e <= XBF_MAX_SEGS; e = e ? e + 1 : XBF_MAX_DIRECT_SEGS + 1) {' \
	'for (e = max_indirect_segs; e <= max_indirect_segs; e++) {' \
	'^fuzz_blk_limits: .*reserved' blk_limits_p12 blk_limits_p16
# xen-netfront-pgnt: a refused ADD leaves what was added mapped
mutant net-undo NET_CORE src/netfront/xnf_core.c \
	'		if (refused)
			return xnf_pg_undo(pg, next_id, msg);' \
	'		if (refused) {
			pg->state = XNF_PG_OFF;
			return 0;
		}' \
	'^fuzz_net_ctrl: OFF with [0-9]+ mapped' net_ctrl
# xen-netfront-pgnt: a transmit response's id not checked (stale or doubled)
mutant net-tx-id NET_CORE src/netfront/xnf_core.c \
	'	if (xgp_id_check(t, id, 0) != XGP_ID_OK)
		return XNF_TX_BAD_ID;
	xgp_id_complete' \
	'	xgp_id_complete' \
	'model id out of range or not outstanding|heap-buffer-overflow' net_rsp
# a receive response's offset ignored: bytes past the 4 KB grant
mutant net-rx-offset NET_CORE src/netfront/xnf_core.c \
	'if ((unsigned int)offset + (unsigned int)status > XGP_GRANT_SIZE)' \
	'if ((unsigned int)status > XGP_GRANT_SIZE)' \
	'^fuzz_net_rsp: .*model data beyond the grant' net_rsp
# xen-netback-pgnt: a further slot's bytes not bounded by its grant
mutant nb-slot-grant NB_CORE src/netback/xnb_core.c \
	'		if (s[i].offset + (u32)s[i].size > XNB_PAGE)
			return xnb_tx_bad(pkt, XNB_TX_FATAL,
					  "slot crosses its 4 KB grant");' \
	'' \
	'^fuzz_nb_tx: ' nb_tx
# the first slot's (what the others leave it) likewise
mutant nb-first-grant NB_CORE src/netback/xnb_core.c \
	'if (s[0].offset + pkt->first_len > XNB_PAGE)' \
	'if (s[0].offset > XNB_PAGE)' \
	'^fuzz_nb_tx: ' nb_tx
# a packet may chain more data slots than any packet takes
mutant nb-fatal-slots NB_CORE src/netback/xnb_core.c \
	'if (pkt->nr_data >= fatal_slots)' \
	'if (pkt->nr_data >= XNB_PARSE_SLOTS)' \
	'^fuzz_nb_tx: verdict' nb_tx
# a mapping entry naming a queue the vif does not have
mutant nb-map-queue NB_CORE src/netback/xnb_core.c \
	'		if (tbl[i] >= nr_queues)' \
	'		if (tbl[i] > nr_queues)' \
	'^fuzz_nb_hash: set_mapping: status' nb_hash
# offset + length wrapping round u32 passes the size check
mutant nb-map-wrap NB_CORE src/netback/xnb_core.c \
	'if (!len || off + len < off || off + len > h->size)' \
	'if (!len || off + len > h->size)' \
	'^fuzz_nb_hash: mapping_check|AddressSanitizer|SEGV' nb_hash
# a table set for more queues than the vif now steers over
mutant nb-steer NB_CORE src/netback/xnb_core.c \
	'return q < nr_queues ? q : 0;' \
	'return q;' \
	'^fuzz_nb_hash: hash .* to queue' nb_hash

exit $fail
