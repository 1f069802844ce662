# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154 # the scenario interface (<fn>_steps, _budget,
# _domus) is read by dom0-init, the judge and the helpers; the nf_* helpers
# and NF_* settings come from netfront.sh, sourced below
# netpairs - xen-netback-pgnt in dom0 serving four guest pairs at once:
# eight domUs (pa1 pb1 ... pa4 pb4, 1 vCPU and 384 MB each: with less the
# 90 MB initramfs does not unpack, tmpfs gets half the RAM), 3 GB, more
# than the 1980 MB a 4 GB lab leaves beside dom0, so this scenario's boot
# gets 6 GB.  All with xen-netfront-pgnt (NF_DRIVER, as netfront.sh;
# XPS_SCN_NF_DRIVER and XPS_SCN_NB_DRIVER override), each paK
# talking to its pbK across dom0's bridge.  pa1 leads; dom0 keeps the
# state (who is up at which address, the round, the results).  Steps:
#   bind      every domU bound to the driver, dom0 answering its pings;
#             ours with ours: each says "the backend maps all" (its 512
#             pool grants, one queue)
#   pairs1    round 1: pa1 <-> pb1 alone; pairs2: pairs 1 and 2 at once;
#   pairs2    pairs4: all four at once.  In a round each paK sends NP_MB
#   pairs4    of fresh random data to pbK's sink and receives NP_MB from
#             pbK's source, both at once, sha256 and size compared; the
#             round's aggregate MB/s (all bytes over the slowest pair's
#             time) is reported, never judged
#   backend   ours in dom0: the vifs' ethtool -S summed around pairs4:
#             every byte of it by memcpy (each byte crosses two vifs),
#             0 grant copy operations, 8 x 512 grants mapped, no fault;
#             stock netback: not judged beyond "no vif-pgnt"
#   clean     every domU unbound and rmmod'ed its driver with no kernel
#             trouble or grant message in its dmesg and no xen-grant-pool
#             grant or page live (each reports to dom0; pa1 judges)
#   dom0-clean  dom0, after the eight domains are gone: no vif left, ours:
#             xen-grant-pool has no cache and no mapping live, rmmod
#             xen-netback-pgnt works, no kernel trouble line in dom0's
#             dmesg since the scenario began
# (bench-netpairs.sh runs this machinery under its own name: NP_SCN, and
# the drivers it boots with: NP_NF_DEFAULT, NP_NB_DEFAULT)
NP_SCN=${NP_SCN:-netpairs}
NP_FN=$(echo "$NP_SCN" | tr - _)
NF_SCN=$NP_SCN NF_DEFAULT=${NP_NF_DEFAULT:-ours} NB_DEFAULT=${NP_NB_DEFAULT:-ours}
. "${LAB_DIR:-/xps}/scenarios/netfront.sh"
netpairs_steps="cpu-selfcheck bind pairs1 pairs2 pairs4 backend clean dom0-clean"
# dom0-init creates pa1; pa1, once its vif is up, has dom0 create the
# other seven one after the other (np_spawn): created back to back beside
# booting domains, the eighth's vif-bridge hotplug ran past libxl's 40 s
# and xl create failed (first run, 2026-12-02).
netpairs_domus="pa1"
# (bench-netpairs.sh may ask for fewer pairs: NP_PAIRS)
NP_PAIRS=${NP_PAIRS:-4}
NP_DOMUS=$(_k=1; while [ $_k -le "$NP_PAIRS" ]; do printf 'pa%d pb%d ' $_k $_k; _k=$((_k + 1)); done)
NP_SPAWN=${NP_DOMUS#pa1 }
# the CPU self-check in pa1 only: eight at once took minutes of TCG time
netpairs_selfcheck_domus="pa1"
netpairs_lab_mem=6144
NP_MB=${XPS_SCN_NP_MB:-4}
# Measured on the 2-core host (2026-12-02): 686 s of scenario time with
# the host idle (307 s of it until the eight domUs were up), the make
# check step 571 s in a clean-clone CI run. Budget about twice that.
netpairs_budget=1500

NP_TROUBLE='(^|[^A-Za-z_])(BUG|WARNING|Oops)([^A-Za-z_]|$)|Call Trace|general protection|soft lockup|hung task'

# ---- dom0 side ---------------------------------------------------------------

netpairs_dom0_prepare() {
	rm -rf /run/xps/np
	mkdir -p /run/xps/np || return 1
	echo 0 >/run/xps/np/round
	dmesg | grep -cE "$NP_TROUBLE" >/run/xps/np/trouble0
	# what dom0 spends its time on while eight domains run (the vif
	# hotplug script must finish within libxl's 40 s)
	while sleep 60; do
		echo "xps-np: dom0 load $(cut -d' ' -f1-3 /proc/loadavg); CPU % over 3 s: $(xentop -b -i 2 -d 3 2>/dev/null | awk '$1 == "NAME" { f++; next } f == 2 { printf "%s=%s ", $1, $4 }')"
		[ -e /run/xps/np/finished ] && break
	done &
	netfront_dom0_prepare
}

netpairs_domU_cfg() {
	echo "vif = [ 'mac=00:16:3e:00:00:$(printf %02x "$2"), bridge=xenbr0' ]"
	echo "memory = 384"
	echo "vcpus = 1"
}
netpairs_domU_cmdline() { nf_cmdline; }

# np_vifs_sum: the vifs' ethtool -S counters summed, "name=value ..."
np_vifs_sum() {
	for _v in /sys/class/net/vif*; do
		[ -e "$_v" ] && ethtool -S "${_v##*/}" 2>/dev/null
	done | awk -F': *' 'NF == 2 && $2 ~ /^[0-9]+$/ { gsub(/ /, "", $1); s[$1] += $2 }
		END { for (k in s) printf "%s=%.0f ", k, s[k] }'
}

# np_spawn: dom0 creates NP_SPAWN one after the other (three attempts
# each, 10 s apart), at 10.0.0.151... with MACs
# 00:16:3e:00:02:01...; dom0-init waits for them as for its own
np_spawn() {
	_sk=0
	for _sd in $NP_SPAWN; do
		_sk=$((_sk + 1))
		{
			echo "name = \"$_sd\""
			echo 'type = "pv"'
			echo 'kernel = "/root/vmlinux"'
			echo 'ramdisk = "/xps/domU.cpio"'
			echo "extra = \"console=hvc0 loglevel=5 xps.scn=$NP_SCN xps.dom=$_sd xps.ip=10.0.0.$((150 + _sk)) $("${NP_FN}_domU_cmdline" "$_sd")\""
			echo 'on_poweroff = "destroy"'
			echo 'on_crash = "destroy"'
			echo 'memory = 384'
			echo 'vcpus = 1'
			echo "vif = [ 'mac=00:16:3e:00:02:$(printf %02x "$_sk"), bridge=xenbr0' ]"
		} >"/run/xps/$_sd.cfg"
		_sok='' _sr=
		for _sa in 1 2 3; do
			_st=$(up)
			if xl create "/run/xps/$_sd.cfg" >"/run/xps/$_sd.create.log" 2>&1; then
				_sid=$(xl domid "$_sd")
				echo "XPS-DOMU $_sd $NP_SCN $_sid created_in=$(since "$_st")s${_sr:+ (attempt $_sa)}"
				( tail -n +1 -F "/var/log/xen/console/guest-$_sd.log" 2>/dev/null &
				  echo $! >"/run/xps/$_sd.tail"; wait ) | sed -u "s/\r\$//; s/^/[domU:$_sd] /" &
				rpc_serve "$_sid" "$NP_FN" &
				echo "$_sd" >>"/run/xps/domus.$NP_FN"
				_sok=1
				break
			fi
			_sr=$(grep -m 2 -i error "/run/xps/$_sd.create.log" | tr '\n' ' ' | cut -c1-200)
			echo "xps: xl create $_sd (attempt $_sa): $_sr"
			xl destroy "$_sd" >/dev/null 2>&1
			sleep 5
		done
		if [ -z "$_sok" ]; then
			echo "create-failed" >"/run/xps/np/up-$_sd"
			continue
		fi
		# a little time for its boot before the next one's vif-bridge
		sleep 10
	done
	touch /run/xps/np/spawned
}

netpairs_rpc() {
	_dom=$1 _cmd=$2; shift 2
	_np=/run/xps/np
	case "$_cmd" in
	up) # up NAME IP STATUS...
		_n=$1
		echo "$2" >"$_np/ip-$_n"
		echo "$_dom" >"$_np/id-$_n"
		shift 2
		echo "$*" >"$_np/up-$_n"
		RPC_REPLY=ok ;;
	spawn) np_spawn </dev/null 2>/dev/null & RPC_REPLY=ok ;;
	ups) # "N running|done name=status ...": the domUs that said up (or
		# could not be created); done once np_spawn is over
		RPC_REPLY="$(find "$_np" -name 'up-*' | wc -l) $([ -e "$_np/spawned" ] && echo "done" || echo running)"
		for _f in "$_np"/up-*; do
			[ -e "$_f" ] && RPC_REPLY="$RPC_REPLY ${_f##*/up-}=$(tr ' ' _ <"$_f")"
		done ;;
	peer) RPC_REPLY=$(cat "$_np/ip-$1" 2>/dev/null) ;;
	go) # the round into dom0's state and every domU's data/np/round
		echo "$1" >"$_np/round"
		for _f in "$_np"/id-*; do
			[ -e "$_f" ] && xs_put "$(cat "$_f")" data/np/round "$1"
		done
		RPC_REPLY=ok ;;
	round) RPC_REPLY=$(cat "$_np/round") ;;
	res) # res ROUND K PASS|FAIL DETAIL...
		_r=$1 _k=$2; shift 2
		echo "$*" >"$_np/res-$_r-$_k"
		RPC_REPLY=ok ;;
	nres) RPC_REPLY=$(find "$_np" -name "res-$1-*" | wc -l) ;;
	# (an empty reply reads "ok" on the other side: "none" when missing)
	getres) RPC_REPLY=$(cat "$_np/res-$1-$2" 2>/dev/null) || RPC_REPLY=none ;;
	getresall) # getresall ROUND: "K=result ..." (a result's spaces as _)
		RPC_REPLY=
		for _f in "$_np/res-$1-"*; do
			[ -e "$_f" ] && RPC_REPLY="$RPC_REPLY ${_f##*/res-"$1"-}=$(tr ' ' _ <"$_f")"
		done
		RPC_REPLY=${RPC_REPLY# }
		[ -n "$RPC_REPLY" ] || RPC_REPLY=none ;;
	clean) # clean NAME DETAIL...
		_n=$1; shift
		echo "$*" >"$_np/clean-$_n"
		RPC_REPLY=ok ;;
	ncleans) RPC_REPLY=$(find "$_np" -name 'clean-*' | wc -l) ;;
	getclean) RPC_REPLY=$(cat "$_np/clean-$1" 2>/dev/null) || RPC_REPLY=none ;;
	nb-sum) RPC_REPLY=$(np_vifs_sum); [ -n "$RPC_REPLY" ] || RPC_REPLY=none ;;
	*) RPC_REPLY="error reason=unknown-request" ;;
	esac
}

# dom0-clean, once all eight domains are gone
netpairs_dom0_finish() {
	touch /run/xps/np/finished
	_cv=$(ls -d /sys/class/net/vif* 2>/dev/null | wc -l)
	_cs=
	if [ "$NB_DRIVER" = ours ]; then
		_gs=/sys/kernel/debug/xen-grant-pool/stats
		mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
		wait_for 20 sh -c "[ \"\$(awk '\$1 == \"mapped_live\" { print \$2 }' $_gs)\" = 0 ] &&
		                   [ \"\$(awk '\$1 == \"caches\" { print \$2 }' $_gs)\" = 0 ]"
		_cs="xen-grant-pool: $(tr '\n' ' ' <$_gs | cut -c1-160)"
		_cok=$(awk '$1 == "mapped_live" || $1 == "caches" { s += $2 } END { print s == 0 ? "y" : "n" }' $_gs)
		if rmmod xen_netback_pgnt 2>/run/xps/np/rmmod.log; then
			_cs="$_cs; rmmod xen-netback-pgnt ok"
		else
			_cs="$_cs; rmmod xen-netback-pgnt: $(tr '\n' ' ' </run/xps/np/rmmod.log | cut -c1-100)"
			_cok=n
		fi
	else
		_cok=y
	fi
	sleep 1
	_ct=$(( $(dmesg | grep -cE "$NP_TROUBLE") - $(cat /run/xps/np/trouble0) ))
	_cd="$_cv vif(s) left; $_cs; $_ct kernel trouble line(s) in dom0's dmesg since the scenario began"
	if [ "$_cv" = 0 ] && [ "$_cok" = y ] && [ "$_ct" = 0 ]; then
		pass netpairs/dom0-clean "$_cd"
	else
		fail netpairs/dom0-clean "want no vif, no cache or mapping, rmmod, no trouble: $_cd; $(dmesg | grep -E "$NP_TROUBLE" | tail -n 1)"
	fi
}

# ---- domU side ---------------------------------------------------------------

# np_round: the round dom0 last announced (0 before the first): read from
# this domain's own xenstore area, so waiting costs dom0 nothing
np_round() { xenstore-read data/np/round 2>/dev/null || echo 0; }
# np_next LAST: the round once it is not LAST, or LAST after about 30 s.
# Blocks in a xenstore watch: seven domUs polling in loops of fork and
# exec (costly for PV guests under TCG) took 11 % of the lab's CPU each.
np_next() {
	_nr=$(np_round)
	if [ "$_nr" = "$1" ]; then
		# fires once when set, once more on a change; set before the
		# second look, so no change falls between the look and the watch
		timeout 30 xenstore-watch -n 2 data/np/round >/dev/null 2>&1 &
		_nw=$!
		sleep 0.3
		_nr=$(np_round)
		if [ "$_nr" = "$1" ]; then
			wait "$_nw"
			_nr=$(np_round)
		else
			kill "$_nw" 2>/dev/null
			wait "$_nw" 2>/dev/null
		fi
	fi
	echo "$_nr"
}

# np_wait SECS CMD WANT: poll rpc CMD every 4 s until it answers WANT
np_wait() {
	_wt=$(up)
	while [ "$(since "$_wt")" -lt "$1" ]; do
		[ "$(rpc "$2")" = "$3" ] && return 0
		sleep 4
	done
	return 1
}

# np_pair ROUND: paK's transfers with pbK (both ways at once); the result
# to dom0 as "PASS|FAIL <secs> <detail>"
np_pair() {
	_k=${DOM#pa}
	_pip=$(rpc peer "pb$_k")
	_pt=$(up)
	nf_send "$_pip" $NF_PSINK "$NP_MB" 60 >/tmp/np-send 2>&1 &
	_pp1=$!
	nf_recv "$_pip" $NF_PSOURCE "$NP_MB" 60 >/tmp/np-recv 2>&1 &
	_pp2=$!
	wait $_pp1; _pr1=$?
	wait $_pp2; _pr2=$?
	_pv=FAIL
	[ $_pr1 = 0 ] && [ $_pr2 = 0 ] && _pv=PASS
	rpc res "$1" "$_k" "$_pv" "$(nf_dt "$_pt")" "pair $_k $IP<->$_pip: $(cat /tmp/np-send); $(cat /tmp/np-recv)" >/dev/null
}

# np_rounds: paK (K > 1) joins each round that includes it until "end"
np_rounds() {
	_k=${DOM#pa} _last=0 _n=0
	# about 30 s per look when nothing changes: 1500 s
	while [ $_n -lt 50 ]; do
		_r=$(np_next "$_last")
		[ "$_r" = end ] && return
		if [ "$_r" != "$_last" ] && [ "$_r" -ge "$_k" ] 2>/dev/null; then
			np_pair "$_r"
		fi
		_last=$_r _n=$((_n + 1))
	done
}

# np_start_all: pa1 has dom0 create the other domUs and waits until every
# one said up, or none more is coming (300 s after the last was created:
# with dom0 at weight 1024 the last two took over 90 s to boot and bind,
# 2026-12-03).  NP_UPS: "N name=status ..."; NP_T0: when pa1 asked.
# True when all are up and ok.
np_start_all() {
	NP_UPS='' NP_T0=$(up) _ld=
	rpc spawn >/dev/null
	while [ "$(since "$NP_T0")" -lt 900 ]; do
		NP_UPS=$(rpc ups)
		[ "${NP_UPS%% *}" = $((NP_PAIRS * 2)) ] && break
		case "$NP_UPS" in *" done "*) [ -n "$_ld" ] || _ld=$(up)
			[ "$(since "$_ld")" -lt 300 ] || break ;;
		esac
		sleep 5
	done
	# without "running" / "done"
	NP_UPS=$(echo "$NP_UPS" | cut -d' ' -f1,3-)
	[ "${NP_UPS%% *}" = $((NP_PAIRS * 2)) ] &&
		! echo "${NP_UPS#* }" | tr ' ' '\n' | grep . | grep -qv '=ok$'
}

# np_lead: pa1 runs the steps
np_lead() {
	: >/tmp/nf.done
	if np_start_all; then
		nf_step bind PASS "all $((NP_PAIRS * 2)) up $(since "$NP_T0")s after pa1 was: ${NP_UPS#* }"
	else
		nf_step bind FAIL "want $((NP_PAIRS * 2)) domUs bound and up: ${NP_UPS:-none}"
	fi
	for _r in 1 2 4; do
		[ "$_r" = 4 ] && _s0=$(rpc nb-sum)
		_gt=$(up)
		rpc go "$_r" >/dev/null
		np_pair "$_r"
		_n=0
		while [ "$(since "$_gt")" -lt 420 ]; do
			_n=$(rpc nres "$_r")
			[ "$_n" -ge "$_r" ] && break
			sleep 2
		done
		_rd='' _rok=y _rmax=0
		_k=1
		while [ "$_k" -le "$_r" ]; do
			# "PASS|FAIL <secs> <detail>"
			_o=$(rpc getres "$_r" "$_k")
			# shellcheck disable=SC2086 # word splitting intended: fields
			set -- $_o
			[ "${1:-}" = PASS ] || _rok=n
			_rmax=$(awk -v a="$_rmax" -v b="${2:-0}" 'BEGIN { print (b > a) ? b : a }')
			_rd="$_rd; ${_o:-pair $_k: no result}"
			_k=$((_k + 1))
		done
		_ragg=$(nf_rate $((2 * _r * NP_MB * 1048576)) "$_rmax")
		_rd="$_r pair(s) at once, $((2 * _r * NP_MB)) MB in ${_rmax}s ($_ragg MB/s together)$_rd"
		if [ "$_n" -ge "$_r" ] && [ $_rok = y ]; then
			nf_step "pairs$_r" PASS "$_rd"
		else
			nf_step "pairs$_r" FAIL "want every pair's data equal both ways: $_rd"
		fi
	done
	_s1=$(rpc nb-sum)
	np_backend "$_s0" "$_s1"
	rpc go end >/dev/null
}

# np_backend BEFORE AFTER: step backend from the summed vif counters
np_backend() {
	if [ "$NB_DRIVER" != ours ]; then
		nf_step backend PASS "dom0's netback is the stock one: not judged (${2:-none})"
		return
	fi
	_btm=$(nb_delta "$1" "$2" tx_memcpy_bytes) _btg=$(nb_delta "$1" "$2" tx_gcopy_bytes)
	_brm=$(nb_delta "$1" "$2" rx_memcpy_bytes) _brg=$(nb_delta "$1" "$2" rx_gcopy_bytes)
	_bops=$(nb_delta "$1" "$2" grant_copy_ops)
	_bmap=$(nb_get "$2" mapped_grants) _bflt=$(nb_get "$2" faults)
	# pairs4 moved 2 x 4 x NP_MB; each byte left one guest (tx) and
	# entered another (rx)
	_bmb=$((2 * NP_PAIRS * NP_MB * 1048576))
	_bmw=$((NP_PAIRS * 2 * 512))
	_bdet="the ${NP_PAIRS}x2 vifs during pairs4 ($((_bmb / 1048576)) MB): tx memcpy $_btm B, tx grant-copied $_btg B, rx memcpy $_brm B, rx grant-copied $_brg B, $_bops grant copy ops; mapped_grants=$_bmap faults=$_bflt"
	if [ "$_btm" -ge $_bmb ] && [ "$_brm" -ge $_bmb ] && [ "$_btg" = 0 ] &&
	   [ "$_brg" = 0 ] && [ "$_bops" = 0 ] && [ "$_bmap" = $_bmw ] && [ "$_bflt" = 0 ]; then
		nf_step backend PASS "$_bdet"
	else
		nf_step backend FAIL "want >= $_bmb B each way by memcpy, 0 grant copies, $_bmw mapped, no fault: $_bdet"
	fi
}

# np_clean: unload the driver, then this domU's verdict to dom0
np_clean() {
	nf_unload || _how="$_how failed: $(tr '\n' ' ' </tmp/nf-rmmod.log | cut -c1-80)"
	sleep 2
	_cb=$(dmesg | grep -cE "$NP_TROUBLE")
	_cg=$(dmesg | grep -cE 'g\.e\. .*(still in use|still pending)|leaking g\.e\.')
	_cp=ok
	if [ -r /sys/kernel/debug/xen-grant-pool/stats ]; then
		wait_for 20 sh -c '[ "$(awk "\$1==\"grants_live\"{print \$2}" /sys/kernel/debug/xen-grant-pool/stats)" = 0 ] &&
		                   [ "$(awk "\$1==\"pages_live\"{print \$2}" /sys/kernel/debug/xen-grant-pool/stats)" = 0 ]' ||
			_cp=live
	fi
	_cm=gone
	lsmod | grep -q "^$NF_KMOD " && _cm=loaded
	_cv=ok
	[ "$_cb" = 0 ] && [ "$_cg" = 0 ] && [ $_cp = ok ] && [ $_cm = gone ] || _cv=bad
	rpc clean "$DOM" "$_cv $_how: module $_cm, $_cb trouble, $_cg grant message(s), pool $_cp" >/dev/null
}

netpairs_domU() {
	nf_helpers /tmp
	_st=ok
	if ! nf_built || ! nf_load; then
		_st="no interface: $(dmesg | grep -iE 'vif|netfront' | tail -n 1 | cut -c1-80)"
	elif ! nf_up; then
		_st="dom0 unreachable"
	elif [ "$NF_DRIVER" != stock ]; then
		wait_for 30 sh -c 'dmesg | grep -q "per-packet grants\|persistent grants:"'
		_pg=$(dmesg | grep -o 'per-packet grants: .*\|persistent grants: .*' | tail -n 1)
		case "$NB_DRIVER:$_pg" in
		stock:*NOT_SUPPORTED*|ours:*"persistent grants: the backend maps all"*) ;;
		*) _st="grants: ${_pg:-no line}" ;;
		esac
	fi
	case "$DOM" in
	pb*)
		nc -ll -p $NF_PSINK -e /tmp/nf-sink </dev/null >/dev/null 2>&1 &
		_np1=$!
		nc -ll -p $NF_PSOURCE -e /tmp/nf-source </dev/null >/dev/null 2>&1 &
		_np2=$! ;;
	esac
	rpc up "$DOM" "$IP" "$_st" >/dev/null
	case "$DOM" in
	pa1) np_lead ;;
	pa*) np_rounds ;;
	pb*) _r=0 _n=0
		while [ "$_r" != end ] && [ $_n -lt 50 ]; do _r=$(np_next "$_r"); _n=$((_n + 1)); done
		kill "$_np1" "$_np2" 2>/dev/null ;;
	esac
	np_clean
	if [ "$DOM" = pa1 ]; then
		np_wait 180 ncleans $((NP_PAIRS * 2))
		_cd='' _cok=y
		for _d in $NP_DOMUS; do
			_o=$(rpc getclean "$_d")
			[ "${_o%% *}" = ok ] || _cok=n
			_cd="$_cd; $_d: ${_o:-no report}"
		done
		if [ $_cok = y ]; then nf_step clean PASS "${_cd#; }"
		else nf_step clean FAIL "want every domU clean: ${_cd#; }"; fi
		for _s in $netpairs_steps; do
			[ "$_s" = cpu-selfcheck ] || [ "$_s" = dom0-clean ] && continue
			grep -q "^$_s\$" /tmp/nf.done 2>/dev/null || nf_step "$_s" FAIL "not reached"
		done
	fi
}
