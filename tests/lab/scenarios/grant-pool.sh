# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034 # the scenario interface (<fn>_steps, _budget, _domus,
# RPC_REPLY, BF_SCN...) is read by dom0-init, the judge and the helpers
# grant-pool - the suite's xen-grant-pool.ko across a real grant boundary.
# Interface: see smoke.sh.  Module contract (debugfs xen-grant-pool/):
#   stats     "key value" lines: pools caches pages_live grants_live
#             mapped_live deferred_pages leaked_pages ...
#   selftest  write one command, read one line "ok k=v ..." | "error reason=..."
#     front <domid> <n>   (domU) grant n slots to <domid>, fill a pattern
#                         -> ok grefs=g0,g1,... pages=N slots=N reused=N
#     back <domid> <grefs> (dom0) map + verify -> ok mapped=N verified=N hits=N misses=N
#                         pages=P per_page=G (P = ceil(N / G): the grants of
#                         one batch share pages, G 4 KB grants per page)
#                         unmap=1 unmap_busy=1 unmap_absent=2 remapped=1 (a
#                         targeted unmap checked, the gref mapped again)
#     back-release        -> ok unmapped=N
#     front-release       -> ok revoked=N busy=N (busy pages are deferred
#                            and freed by a worker once dom0 unmaps)
# The domU drives; dom0 acts on requests sent through xenstore (lib.sh rpc)
# and reads the grant references the domU publishes in data/gp/grefs.

grant_pool_steps="cpu-selfcheck dom0-load domU-load front-grant back-map front-release-busy back-release deferred-drain dom0-cycles domU-cycles dom0-leaks domU-leaks dom0-memfree domU-memfree"
# Seconds from domU creation. Quiet 2-core host: 120-320 s; with a second
# QEMU on the same cores it took 600+ s (the reload cycles were cut off);
# 971 s in the block lab boot of CI on 2026-12-03 (its dom0 reload cycles
# 609 s).  The boot lasts as long as blkfront-life anyway: the budget
# only catches a hang.
grant_pool_budget=1500
grant_pool_domus="gp"
GP_MOD=xen-grant-pool
GP_DIR=/sys/kernel/debug/xen-grant-pool
# reload cycles on each side: 4 in make check, XPS_SCN_GP_CYCLES=N on the
# host sets N (make check-full: 10); every third cycle, and the last,
# also runs a front/back round
GP_CYCLES=${XPS_SCN_GP_CYCLES:-4}
GP_SELFTEST_CYCLES="$(i=3; while [ $i -lt "$GP_CYCLES" ]; do printf '%s ' $i; i=$((i + 3)); done)$GP_CYCLES"

grant_pool_dom0_prepare() { :; }
grant_pool_domU_cfg() { echo "memory = 384"; }

gp_have_module() { modinfo "$GP_MOD" >/dev/null 2>&1; }
gp_selftest() { # gp_selftest CMD...: prints the one result line
	echo "$*" >"$GP_DIR/selftest" 2>/dev/null || { echo "error reason=write-failed"; return; }
	head -n1 "$GP_DIR/selftest" 2>/dev/null || echo "error reason=read-failed"
}
gp_stat() { awk -v k="$1" '$1 == k { print $2 }' "$GP_DIR/stats" 2>/dev/null; }
gp_load() { modprobe "$GP_MOD" && [ -r "$GP_DIR/selftest" ]; }
gp_unload() { rmmod "$GP_MOD"; }
# gp_reload N: one unload/load cycle; prints nothing, fails on error
gp_reload() { gp_unload && gp_load; }
gp_live_zero() { # pages_live/grants_live/mapped_live/leaked all zero
	[ "$(gp_stat pages_live)" = 0 ] && [ "$(gp_stat grants_live)" = 0 ] &&
	[ "$(gp_stat mapped_live)" = 0 ] && [ "$(gp_stat leaked_pages)" = 0 ]
}
gp_stats_line() { tr '\n' ' ' <"$GP_DIR/stats" 2>/dev/null | cut -c1-200; }

# ---- dom0 side --------------------------------------------------------------
grant_pool_rpc() {
	_dom=$1 _cmd=$2; shift 2
	case "$_cmd" in
	start)
		GP_MEM0=$(memfree_kb)
		if ! gp_have_module; then
			fail grant-pool/dom0-load "module not built ($GP_MOD.ko missing from --modules)"
			for _s in back-map back-release dom0-cycles dom0-leaks dom0-memfree; do
				fail "grant-pool/$_s" "module not built"
			done
			RPC_REPLY="error reason=no-module"; return
		fi
		if gp_load; then pass grant-pool/dom0-load "$(gp_stats_line)"; RPC_REPLY=ok
		else fail grant-pool/dom0-load "modprobe $GP_MOD failed"; RPC_REPLY="error reason=load"; fi ;;
	back)     # the domU published grefs in data/gp/grefs
		_g=$(xenstore-read "/local/domain/$_dom/data/gp/grefs")
		RPC_REPLY=$(gp_selftest back "$_dom" "$_g")
		if [ "$1" = report ]; then
			if [ "$(kv "$RPC_REPLY" verified)" = "$2" ]; then pass grant-pool/back-map "$RPC_REPLY"
			else fail grant-pool/back-map "expected verified=$2: $RPC_REPLY"; fi
		fi ;;
	back-release)
		RPC_REPLY=$(gp_selftest back-release)
		if [ "$1" = report ]; then
			if [ "$(kv "$RPC_REPLY" unmapped)" = "$2" ]; then pass grant-pool/back-release "$RPC_REPLY"
			else fail grant-pool/back-release "expected unmapped=$2: $RPC_REPLY"; fi
		fi ;;
	reload)
		if gp_reload; then RPC_REPLY=ok; else RPC_REPLY="error reason=reload"; fi ;;
	cycles-done)  # $1 = number of failed cycles seen by the domU for dom0
		if [ "$1" = 0 ]; then pass grant-pool/dom0-cycles "$GP_CYCLES modprobe/rmmod cycles"
		else fail grant-pool/dom0-cycles "$1 of $GP_CYCLES reload cycles failed"; fi
		if gp_live_zero; then pass grant-pool/dom0-leaks "$(gp_stats_line)"
		else fail grant-pool/dom0-leaks "$(gp_stats_line)"; fi
		gp_unload || fail grant-pool/dom0-leaks "final rmmod failed"
		gp_memfree_report dom0 "$GP_MEM0" 65536
		RPC_REPLY=ok ;;
	*) RPC_REPLY="error reason=unknown-request" ;;
	esac
}

# gp_memfree_report WHO BEFORE LIMIT_KB: BEFORE is memfree_kb's "free:shmem".
# Judged on the MemFree drop minus tmpfs growth (other scenarios run at the
# same time: smoke's loop-device file lives on dom0's tmpfs); fails only
# beyond LIMIT, as slab and log growth make small deltas noise.
gp_memfree_report() {
	_after=$(memfree_kb)
	_df=$(( ${2%:*} - ${_after%:*} )); _ds=$(( ${_after#*:} - ${2#*:} ))
	_d=$(( _df - _ds ))
	_txt="MemFree drop=${_df}kB tmpfs growth=${_ds}kB net=${_d}kB (limit ${3}kB)"
	if [ "$_d" -le "$3" ]; then pass "grant-pool/$1-memfree" "$_txt"
	else fail "grant-pool/$1-memfree" "$_txt"; fi
}

# ---- domU side --------------------------------------------------------------
gp_fail_rest() { # gp_fail_rest REASON: every remaining step fails clearly
	for _s in $grant_pool_steps; do
		[ "$_s" = cpu-selfcheck ] && continue
		grep -q "^$_s\$" /tmp/gp.done 2>/dev/null || fail "grant-pool/$_s" "$1"
	done
}
gp_done() { echo "$1" >>/tmp/gp.done; }
step() { # step NAME PASS|FAIL DETAIL: report once, remember it
	result "grant-pool/$1" "$2" "$3"; gp_done "$1"
}

# gp_round N: one front/back round with N slots, no dom0 mapping at release
gp_round() {
	_r=$(gp_selftest front 0 "$1"); _g=$(kv "$_r" grefs)
	[ -n "$_g" ] || { echo "front: $_r"; return 1; }
	xenstore-write data/gp/grefs "$_g"
	_r=$(rpc back); [ "$(kv "$_r" verified)" = "$1" ] || { echo "back: $_r"; return 1; }
	_r=$(rpc back-release); [ "$(kv "$_r" unmapped)" = "$1" ] || { echo "back-release: $_r"; return 1; }
	_r=$(gp_selftest front-release)
	[ "$(kv "$_r" revoked)" = "$1" ] && [ "$(kv "$_r" busy)" = 0 ] || { echo "front-release: $_r"; return 1; }
}

grant_pool_domU() {
	: >/tmp/gp.done
	gp_done dom0-load; gp_done back-map; gp_done back-release
	gp_done dom0-cycles; gp_done dom0-leaks; gp_done dom0-memfree
	mem0=$(memfree_kb)
	r=$(rpc start)
	if ! gp_have_module; then
		step domU-load FAIL "module not built ($GP_MOD.ko missing from --modules)"
		gp_fail_rest "module not built"; return
	fi
	if ! gp_load; then step domU-load FAIL "modprobe $GP_MOD failed"; gp_fail_rest "module did not load"; return; fi
	step domU-load PASS "$(gp_stats_line)"
	case "$r" in ok*) ;; *) gp_fail_rest "dom0 side did not load: $r"; return ;; esac

	# 64 slots granted to dom0, mapped and verified there.
	r=$(gp_selftest front 0 64); grefs=$(kv "$r" grefs)
	if [ "$(kv "$r" slots)" = 64 ] && [ -n "$grefs" ]; then step front-grant PASS "${r%% grefs=*} pages=$(kv "$r" pages) slots=64 reused=$(kv "$r" reused)"
	else step front-grant FAIL "$r"; gp_fail_rest "front 0 64 failed"; return; fi
	xenstore-write data/gp/grefs "$grefs"
	rpc back report 64 >/dev/null

	# Revoke while dom0 still maps: busy pages must be deferred, not freed.
	r=$(gp_selftest front-release); dp=$(gp_stat deferred_pages)
	if [ "${r%% *}" = ok ] && [ "$(kv "$r" busy)" -gt 0 ] 2>/dev/null && [ "${dp:-0}" -gt 0 ]; then
		step front-release-busy PASS "$r deferred_pages=$dp"
	else
		step front-release-busy FAIL "expected busy>0 and deferred_pages>0: $r deferred_pages=$dp"
	fi
	rpc back-release report 64 >/dev/null
	if wait_for 60 sh -c "[ \"\$(awk '\$1==\"deferred_pages\"{print \$2}' $GP_DIR/stats)\" = 0 ] &&
	                      [ \"\$(awk '\$1==\"leaked_pages\"{print \$2}' $GP_DIR/stats)\" = 0 ]"; then
		step deferred-drain PASS "deferred_pages=0 leaked_pages=0"
	else
		step deferred-drain FAIL "after 60s: $(gp_stats_line)"
	fi

	# Reload cycles on both sides, some with a front/back round.
	bad0=0 badu=0 rounds=0 detail=
	i=1
	while [ $i -le $GP_CYCLES ]; do
		[ "$(rpc reload)" = ok ] || bad0=$((bad0 + 1))
		if gp_reload; then
			case " $GP_SELFTEST_CYCLES " in *" $i "*)
				if out=$(gp_round 8); then rounds=$((rounds + 1))
				else badu=$((badu + 1)); detail="$detail cycle$i:$out"; fi ;;
			esac
		else
			badu=$((badu + 1)); detail="$detail cycle$i:reload"; gp_load
		fi
		i=$((i + 1))
	done
	if [ $badu = 0 ]; then step domU-cycles PASS "$GP_CYCLES modprobe/rmmod cycles, $rounds front/back rounds"
	else step domU-cycles FAIL "$badu bad:$detail"; fi
	if gp_live_zero; then step domU-leaks PASS "$(gp_stats_line)"
	else step domU-leaks FAIL "$(gp_stats_line)"; fi
	rpc cycles-done $bad0 >/dev/null
	gp_unload || echo "xps: final rmmod in domU failed"
	gp_memfree_report domU "$mem0" 16384
}
