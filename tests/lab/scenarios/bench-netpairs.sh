# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154 # the scenario interface (<fn>_steps, _budget,
# _domus) is read by dom0-init, the judge and the helpers; np_* and nf_*
# come from netpairs.sh and netfront.sh, sourced below
# bench-netpairs - the seed 004 benchmark: 1 to 4 guest pairs at once,
# each paK sending TCP to its pbK across dom0's bridge (iperf3, receiver
# Mbit/s, the first second omitted), per run the sum, average, minimum
# and maximum over the pairs; then 64-byte UDP from pa1 to pb1 (datagrams
# per second received).  The eight domUs and their start are netpairs.sh's.
# A benchmark, never a test: run by scripts/bench/run.sh netpairs, not by
# make check; numbers are emitted as samples, never judged.
#
# Variants (the whole net stack switches, frontends and dom0's backend):
#   stock      Debian's xen-netfront on Debian's xen-netback
#   ours       xen-netfront-pgnt on xen-netback-pgnt: persistent grants
#              (the backend maps the frontends' pool grants once, then
#              memcpy)
#   ours-nopg  the same pair with xen-netfront-pgnt feature_persistent=0:
#              the backend grant-copies every packet from the pool slots
# Rounds rotate the order of the variants (round r starts with variant
# r mod V), so each is measured first, in the middle and last equally
# often; samples carry the round as "run" for the paired report.
# A switch: every domU unbinds and rmmods its frontend; dom0 unbinds each
# vif from its backend driver and binds it to the other (both modules
# stay loaded), bridges the new vif and writes hotplug-status as
# vif-bridge does; every domU loads the new frontend and pings dom0.
# The backend's own counters (ours: ethtool -S of the vifs) give grant
# copy operations per MB for each run.  Xen's count, independent of the
# backend: per round and variant one more 1-pair TCP run with xentrace in
# dom0 recording PV hypercall entries (-e 0x00203000: every PV guest's
# hypercalls, multicall subcalls included), fed to xps-xtcount
# (tests/lab/tools, built by the host for dom0), which sums the operations of
# every grant_table_op by command; per MB the vifs received from their
# guests: netpairs-xen-1p grant_ops_per_mb, gnttab_calls_per_mb and
# hypercalls_per_mb.  Those are system-wide (the frontends make no grant
# hypercall per packet: they write their grant table entries directly).
# The traced run is not one of the throughput samples (tracing costs
# dom0 time).
#
# Host knobs (XPS_SCN_* reach the guests through run.conf):
#   XPS_SCN_BENCH_PVARIANTS  comma-separated, the first the baseline
#                            (default stock,ours-nopg,ours)
#   XPS_SCN_BENCH_PAIRS      pair counts (default 1,2,3,4)
#   XPS_SCN_BENCH_REPS       rounds (5)
#   XPS_SCN_BENCH_RUNTIME    seconds per iperf3 run (10)
# Interface: see smoke.sh.

BP_VARIANTS=$(echo "${XPS_SCN_BENCH_PVARIANTS:-stock,ours-nopg,ours}" | tr , ' ')
BP_PAIRS=$(echo "${XPS_SCN_BENCH_PAIRS:-1,2,3,4}" | tr , ' ')
BP_REPS=${XPS_SCN_BENCH_REPS:-5}
BP_RUNTIME=${XPS_SCN_BENCH_RUNTIME:-10}
BP_PORT=5240

# bp_front VARIANT, bp_fparams VARIANT, bp_back VARIANT (the xenbus
# backend driver's name), bp_nb VARIANT (netfront.sh's NB_DRIVER)
bp_front() { case "$1" in stock) echo xen-netfront ;; *) echo xen-netfront-pgnt ;; esac; }
bp_fparams() { case "$1" in ours-nopg) echo feature_persistent=0 ;; esac; }
bp_back() { case "$1" in stock) echo vif ;; *) echo vif-pgnt ;; esac; }
bp_nb() { case "$1" in stock) echo stock ;; *) echo ours ;; esac; }
bp_first() { set -- $BP_VARIANTS; echo "$1"; }

NP_SCN=bench-netpairs
# as many pairs as the largest count asked for
NP_PAIRS=$(echo "$BP_PAIRS" | tr ' ' '\n' | sort -n | tail -n 1)
NP_NF_DEFAULT=$(bp_nb "$(bp_first)")
NP_NB_DEFAULT=$(bp_nb "$(bp_first)")
. "${LAB_DIR:-/xps}/scenarios/netpairs.sh"
bench_netpairs_steps="cpu-selfcheck bind sweep"
bench_netpairs_domus="pa1"
bench_netpairs_selfcheck_domus="pa1"
bench_netpairs_lab_mem=6144
# Budget: the domUs' start as netpairs (about 5 min), per round and
# variant a switch (estimate 90 s) and one run per pair count, the UDP
# run and the traced run (runtime plus about 15 s each), 1.5x that.
# shellcheck disable=SC2086 # word splitting intended: lists
bench_netpairs_budget=$(( 300 + 3 * BP_REPS * $(echo $BP_VARIANTS | wc -w) * (90 + ($(echo $BP_PAIRS | wc -w) + 2) * (BP_RUNTIME + 15)) / 2 ))

# ---- dom0 side ---------------------------------------------------------------

bench_netpairs_dom0_prepare() {
	netpairs_dom0_prepare || return 1
	# both backends loaded; new vifs go to the first variant's (the
	# driver registered first probes first)
	if [ "$NB_DRIVER" = ours ]; then
		modprobe xen-netback
	else
		modprobe xen-netback-pgnt
	fi
	echo "xps: dom0 backends: $(cd /sys/bus/xen-backend/drivers && echo *)"
}
bench_netpairs_domU_cfg() { netpairs_domU_cfg "$@"; }
bench_netpairs_domU_cmdline() { :; }

# bp_switch DRIVER: every vif to the backend driver DRIVER (vif or
# vif-pgnt), then what vif-bridge does for a new vif
bp_switch() {
	_n=0 _e=
	for _b in /sys/bus/xen-backend/devices/vif-*; do
		[ -e "$_b" ] || continue
		_cur=$(basename "$(readlink "$_b/driver" 2>/dev/null)")
		if [ "$_cur" != "$1" ]; then
			[ -z "$_cur" ] || echo "${_b##*/}" >"/sys/bus/xen-backend/drivers/$_cur/unbind"
			echo "${_b##*/}" >"/sys/bus/xen-backend/drivers/$1/bind" || _e="$_e ${_b##*/}"
		fi
		_n=$((_n + 1))
	done
	sleep 2
	for _v in /sys/class/net/vif*; do
		[ -e "$_v" ] || continue
		_vn=${_v##*/} _vd=${_vn#vif}
		ip link set dev "$_vn" master xenbr0 && ip link set dev "$_vn" up &&
			xenstore-write "/local/domain/0/backend/vif/${_vd%.*}/${_vd#*.}/hotplug-status" connected
	done
	RPC_REPLY="ok $_n vif(s) on $1${_e:+, bind failed:$_e}"
}

bench_netpairs_rpc() {
	case "$2" in
	nb-switch) bp_switch "$3" ;;
	xt-start) xt_vif_start ;;	# (lib.sh)
	xt-stop) xt_vif_stop ;;
	*) netpairs_rpc "$@" ;;
	esac
}

# ---- domU side ---------------------------------------------------------------

# bp_sample BENCH METRIC UNIT HIGHER VARIANT PAIRS RUN VALUE: the pair
# count is in the bench's name (a table compares variants at one count)
# and in "pairs" (the seed 004 table)
bp_sample() {
	echo "XPS-SAMPLE {\"bench\": \"$1-$6p\", \"metric\": \"$2\", \"unit\": \"$3\", \"variant\": \"$5\", \"pairs\": $6, \"run\": $7, \"value\": $8, \"higher_is_better\": $4}"
}

# bp_unload: every vif unbound, whichever frontend unloaded
bp_unload() {
	nf_unbind_all || return 1
	for _m in xen_netfront xen_netfront_pgnt; do
		! lsmod | grep -q "^$_m " || rmmod "$_m" || return 1
	done
}

# bp_load VARIANT: its frontend loaded, the interface up, dom0 answering
bp_load() {
	# shellcheck disable=SC2046 # word splitting intended: parameters
	modprobe "$(bp_front "$1")" $(bp_fparams "$1") && wait_for 30 nf_if >/dev/null && nf_up
}

# bp_iperf ARGS...: iperf3 to this pair's pb; prints the receiver's
# Mbit/s (TCP) or datagrams per second (-u), nothing when it failed
bp_iperf() {
	_k=${DOM#pa}
	_pip=$(rpc peer "pb$_k")
	# shellcheck disable=SC2086 # word splitting intended: arguments
	timeout $((BP_RUNTIME + 60)) iperf3 -c "$_pip" -p $BP_PORT -t "$BP_RUNTIME" --connect-timeout 10000 "$@" >/tmp/bp-iperf.log 2>&1 || return 1
	case " $* " in
	*" -u "*) iperf3_receiver udp /tmp/bp-iperf.log ;;
	*) iperf3_receiver tcp /tmp/bp-iperf.log ;;
	esac
}

# bp_act SEQ ACTION: this domU's part of an action; the result to dom0
# as res SEQ <name> <value|ok|fail ...>
#   unload          every domU
#   load:VARIANT    every domU
#   tcp:N, udp:N    paK with K <= N
bp_act() {
	_ak=${DOM#p?}
	case "$2" in
	unload) if bp_unload; then _av=ok; else _av="fail $(lsmod | grep xen_netfront | tr '\n' ' ')"; fi ;;
	load:*) if bp_load "${2#load:}"; then _av=ok; else _av="fail $(dmesg | grep -iE 'vif|netfront' | tail -n 1 | cut -c1-80)"; fi ;;
	tcp:*|udp:*)
		case "$DOM" in pa*) ;; *) return ;; esac
		[ "$_ak" -le "${2#*:}" ] || return
		case "$2" in
		tcp:*) _av=$(bp_iperf -O 1) ;;
		udp:*) timeout 60 iperf3 -c "$(rpc peer "pb$_ak")" -p $BP_PORT -u -b 0 -l 64 -t 1 --connect-timeout 10000 >/dev/null 2>&1
			_av=$(bp_iperf -u -b 0 -l 64) ;;
		esac
		[ -n "$_av" ] || _av="fail $(grep -iE 'error|unable' /tmp/bp-iperf.log | head -n 1 | cut -c1-80)" ;;
	esac
	rpc res "$1" "$DOM" "$_av" >/dev/null
}

# bp_worker: every domU but pa1 acts on each new "SEQ:ACTION" until end
bp_worker() {
	_last=0 _n=0
	# about 30 s per look when nothing changes: 2 hours
	while [ $_n -lt 240 ]; do
		_r=$(np_next "$_last")
		[ "$_r" = end ] && return
		if [ "$_r" != "$_last" ]; then
			bp_act "${_r%%:*}" "${_r#*:}"
			_n=0
		fi
		_last=$_r _n=$((_n + 1))
	done
}

# bp_do ACTION WANT SECS: pa1 starts ACTION, does its part, waits up to
# SECS for WANT results; the results ("name=value ...") in BP_RES
BP_SEQ=0
bp_do() {
	BP_SEQ=$((BP_SEQ + 1))
	rpc go "$BP_SEQ:$1" >/dev/null
	bp_act "$BP_SEQ" "$1"
	_dt=$(up)
	while [ "$(since "$_dt")" -lt "$3" ] && [ "$(rpc nres "$BP_SEQ")" -lt "$2" ]; do sleep 2; done
	# one request for all (eight getres cost pa1 several seconds a run)
	BP_RES=$(rpc getresall "$BP_SEQ")
	case "$BP_RES" in none|ok|rpc-timeout) BP_RES= ;; *) BP_RES=" $BP_RES" ;; esac
}

# bp_variant VARIANT: the whole stack switched; fails with BP_WHY
bp_variant() {
	bp_do unload $((2 * NP_PAIRS)) 120
	case "$BP_RES" in *=fail*) BP_WHY="unload:$BP_RES"; return 1 ;; esac
	_sw=$(rpc nb-switch "$(bp_back "$1")")
	case "$_sw" in "ok "*", bind failed"*|ok\ 0\ *|[!o]*) BP_WHY="dom0: $_sw"; return 1 ;; esac
	bp_do "load:$1" $((2 * NP_PAIRS)) 180
	case "$BP_RES" in *=fail*) BP_WHY="load:$BP_RES"; return 1 ;; esac
	[ "$(echo "$BP_RES" | wc -w)" = $((2 * NP_PAIRS)) ] || { BP_WHY="load: only$BP_RES"; return 1; }
	echo "bench-netpairs: now $1 (dom0: $_sw)"
}

# bp_nbops VARIANT: grant_copy_ops and the bytes the vifs moved, "<ops>
# <bytes>"; "0 0" for the stock backend, which has no such counters
# (dom0 runs ethtool -S on every vif: seconds under TCG)
bp_nbops() {
	[ "$(bp_nb "$1")" = ours ] || { echo "0 0"; return; }
	_s=$(rpc nb-sum)
	echo "$(nb_get "$_s" grant_copy_ops) $(($(nb_get "$_s" tx_memcpy_bytes) + $(nb_get "$_s" tx_gcopy_bytes)))"
}

# bp_traced VARIANT ROUND: one 1-pair TCP run under xentrace; Xen's
# grant operation and hypercall counts per MB as samples.  BP_BAD counts
# a failure.
bp_traced() {
	_xs=$(rpc xt-start)
	case "$_xs" in
	ok) ;;
	*) echo "bench-netpairs: xentrace with $1, round $2: $_xs"; BP_BAD=$((BP_BAD + 1)); return ;;
	esac
	bp_do tcp:1 1 $((BP_RUNTIME + 120))
	_xr=$(rpc xt-stop)
	echo "bench-netpairs: xentrace with $1, round $2: $_xr (run:$BP_RES)"
	_xb=$(nb_get "${_xr#ok }" rx)	# the bytes the guests sent (dom0's vifs received)
	case "$_xr" in
	ok*) [ "$_xb" -gt 0 ] ;;
	*) false ;;
	esac || { BP_BAD=$((BP_BAD + 1)); return; }
	for _xm in grant_ops gnttab_calls hypercalls; do
		case $_xm in
		grant_ops) _xc=$(xt_grant_ops "$_xr") ;;
		*) _xc=$(nb_get "$_xr" $_xm) ;;
		esac
		_xu=calls/MB; [ $_xm = grant_ops ] && _xu=ops/MB
		bp_sample netpairs-xen "${_xm}_per_mb" "$_xu" false "$1" 1 "$2" \
			"$(awk -v o="$_xc" -v b="$_xb" 'BEGIN { printf "%.2f", o / (b / 1048576) }')"
	done
	BP_N=$((BP_N + 1))
}

# bp_lead: pa1 runs the rounds (BP_N runs done, BP_BAD failed: globals,
# as rpc's own counter is _n)
bp_lead() {
	if ! np_start_all; then
		fail bench-netpairs/bind "want $((2 * NP_PAIRS)) domUs up: ${NP_UPS:-none}"
		fail bench-netpairs/sweep "not run"
		rpc go end >/dev/null
		return
	fi
	pass bench-netpairs/bind "$((2 * NP_PAIRS)) up $(since "$NP_T0")s after pa1; variants: $BP_VARIANTS"
	_cur=$(bp_first) BP_BAD=0 BP_N=0 _rep=1
	# shellcheck disable=SC2086 # word splitting intended: a list
	_nv=$(echo $BP_VARIANTS | wc -w)
	while [ "$_rep" -le "$BP_REPS" ]; do
		# rotate: round r starts with variant (r - 1) mod V
		# shellcheck disable=SC2086 # word splitting intended: a list
		_order=$(echo $BP_VARIANTS $BP_VARIANTS | tr ' ' '\n' | sed -n "$(( (_rep - 1) % _nv + 1 )),$(( (_rep - 1) % _nv + _nv ))p" | xargs)
		for _v in $_order; do
			if [ "$_v" != "$_cur" ]; then
				if ! bp_variant "$_v"; then
					echo "bench-netpairs: could not switch to $_v: $BP_WHY"
					BP_BAD=$((BP_BAD + 1)); _cur=; continue
				fi
				_cur=$_v
			fi
			for _p in $BP_PAIRS; do
				_o0=$(bp_nbops "$_v")
				bp_do "tcp:$_p" "$_p" $((BP_RUNTIME + 120))
				_o1=$(bp_nbops "$_v")
				_vals=$(echo "$BP_RES" | tr ' ' '\n' | sed -n 's/^pa[0-9]*=\([0-9.]*\)$/\1/p' | xargs)
				# shellcheck disable=SC2086 # word splitting intended: values
				if [ "$(echo $_vals | wc -w)" != "$_p" ]; then
					echo "bench-netpairs: tcp $_p pair(s) with $_v, round $_rep: $BP_RES"
					BP_BAD=$((BP_BAD + 1)); continue
				fi
				for _x in $_vals; do bp_sample netpairs-tcp pair Mbit/s true "$_v" "$_p" "$_rep" "$_x"; done
				# shellcheck disable=SC2086 # word splitting intended: values
				bp_sample netpairs-tcp sum Mbit/s true "$_v" "$_p" "$_rep" \
					"$(echo $_vals | awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i; printf "%.2f", s }')"
				# shellcheck disable=SC2086 # word splitting intended: fields
				set -- $_o0 $_o1
				if [ "$(bp_nb "$_v")" = ours ] && [ $(($4 - $2)) -gt 0 ]; then
					bp_sample netpairs-tcp grant_copy_ops_per_mb ops/MB false "$_v" "$_p" "$_rep" \
						"$(awk -v o=$(($3 - $1)) -v b=$(($4 - $2)) 'BEGIN { printf "%.2f", o / (b / 1048576) }')"
				fi
				BP_N=$((BP_N + 1))
			done
			bp_do udp:1 1 $((BP_RUNTIME + 120))
			_u=$(echo "$BP_RES" | tr ' ' '\n' | sed -n 's/^pa1=\([0-9][0-9]*\)$/\1/p')
			if [ -n "$_u" ]; then
				bp_sample netpairs-udp64 datagrams dgram/s true "$_v" 1 "$_rep" "$_u"
				BP_N=$((BP_N + 1))
			else
				echo "bench-netpairs: udp64 with $_v, round $_rep: $BP_RES"
				BP_BAD=$((BP_BAD + 1))
			fi
			bp_traced "$_v" "$_rep"
		done
		_rep=$((_rep + 1))
	done
	rpc go end >/dev/null
	if [ "$BP_BAD" = 0 ]; then
		pass bench-netpairs/sweep "$BP_N runs, $BP_REPS rounds of $BP_VARIANTS, $(since "$NP_T0")s"
	else
		fail bench-netpairs/sweep "$BP_BAD of $((BP_N + BP_BAD)) runs or switches failed (see the bench-netpairs: lines)"
	fi
}

bench_netpairs_domU() {
	_st=ok
	if ! bp_load "$(bp_first)"; then
		_st="no interface or dom0 unreachable: $(dmesg | grep -iE 'vif|netfront' | tail -n 1 | cut -c1-80)"
	fi
	case "$DOM" in pb*) iperf3 -s -D -p $BP_PORT --logfile /tmp/bp-iperf-s.log ;; esac
	rpc up "$DOM" "$IP" "$_st" >/dev/null
	case "$DOM" in
	pa1) bp_lead ;;
	*) bp_worker ;;
	esac
	bp_unload
}
