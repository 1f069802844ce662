# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034 # the scenario interface (<fn>_steps, _budget, _domus,
# RPC_REPLY, BN_*) is read by dom0-init, the judge and the helpers
# bench-net - the net frontend benchmark: the suite's xen-netfront-pgnt
# against Debian's stock xen-netfront, both on dom0's stock xen-netback,
# in paired, alternating runs in one boot of one domU (bn, 2 vCPUs and
# 512 MB, so the vif gets 2 queues, as netfront.sh's nf).
# A benchmark, never a test: it is run by scripts/bench/run.sh net, not by
# make check; numbers are emitted as samples, never judged. Steps fail
# only when a run produced no number or a driver did not bind.
#
# Workloads (iperf3 to dom0's iperf3 server on 10.0.0.1):
#   tcp-tx    TCP domU->dom0, receiver Mbit/s, the first second omitted
#             (-O 1, the warm-up)
#   tcp-rx    TCP dom0->domU (-R), as tcp-tx
#   udp64-tx  UDP 64-byte datagrams domU->dom0 at an unlimited rate
#             (-u -b 0 -l 64), datagrams per second the server received
#             ((total - lost) / seconds of its summary); after a 1 s
#             warm-up run whose figures are dropped (iperf3's -O miscounts
#             UDP losses)
# Each runs BENCH_RUNTIME seconds.
# Variants: two, DRIVER[:PARAM=V[+PARAM=V]] each, the first the baseline
# (default: xen-netfront, xen-netfront-pgnt). Pairs alternate order (ABBA:
# baseline first in odd pairs, second in even ones) to cancel drift. A
# switch unbinds the vif from its driver, rmmods it (xenbus holds a module
# reference per bound device), modprobes the other, and brings the
# interface up again; dom0's netback reconnects.
# No module_blacklist= on the kernel command line: the kernel's module
# loader enforces it, so an explicit modprobe of the blacklisted driver
# would be refused too. Nothing in the lab's domU loads a driver by
# modalias, so the vif binds only to the driver the scenario loads; the
# bind step checks that the other one is not loaded.
#
# Samples: lines "XPS-SAMPLE <json>" (see scripts/bench/xpsstats.py) with
# the pair number as "run", so report.py --margin pairs them.
# Counted by Xen: per pair and variant, one more tcp-tx and one more
# tcp-rx run (those of BENCH_NWORKLOADS) under xentrace in dom0 (xt_start,
# lib.sh: every domain's PV hypercalls, grant-table operations by kind);
# per MB of the run's data as dom0's vif counted it (its rx bytes for
# tcp-tx, its tx bytes for tcp-rx): bench xen-<workload>, metrics
# grant_ops_per_mb, gnttab_calls_per_mb and hypercalls_per_mb.
#
# Host knobs (XPS_SCN_* reach the guests through run.conf):
#   XPS_SCN_BENCH_VARIANTS    two, comma-separated (see above)
#   XPS_SCN_BENCH_NWORKLOADS  comma-separated subset of the workloads above
#   XPS_SCN_BENCH_REPS        pairs (5)
#   XPS_SCN_BENCH_RUNTIME     seconds per run (5)
#   XPS_SCN_BENCH_XEN         0: no traced runs (1)
# Interface: see smoke.sh.

bench_net_steps="cpu-selfcheck bind sweep"
bench_net_domus="bn"
BN_VARIANTS=$(echo "${XPS_SCN_BENCH_VARIANTS:-xen-netfront,xen-netfront-pgnt}" | tr , ' ')
BN_WORKLOADS=$(echo "${XPS_SCN_BENCH_NWORKLOADS:-tcp-tx,tcp-rx,udp64-tx}" | tr , ' ')
BN_REPS=${XPS_SCN_BENCH_REPS:-5}
BN_RUNTIME=${XPS_SCN_BENCH_RUNTIME:-5}
BN_XEN=${XPS_SCN_BENCH_XEN:-1}
BN_DOM0=10.0.0.1
BN_PORT=5221
# Measured on the 2-core host (2026-12-02): the defaults (30 runs of 5 s,
# 5 switches) took 298 s with no other QEMU running; with another lab
# beside it, a run cost its runtime plus about 15 s of iperf3 start-up,
# warm-up and teardown, a switch (unbind, rmmod, modprobe, xenbus's wait,
# reconnect) about 30 s, at most one per pair thanks to the ABBA order,
# and the domU's CPU self-check a minute. Budget: 300 s plus 1.5x that.
# shellcheck disable=SC2086 # word splitting intended: a list
# (the traced runs: up to two more per variant and pair)
bench_net_budget=$(( 300 + 3 * BN_REPS * ( 2 * ($(echo $BN_WORKLOADS | wc -w) + 2 * BN_XEN) * (BN_RUNTIME + 15) + 30) / 2 ))

bench_net_dom0_prepare() {
	iperf3 -s -D -p $BN_PORT --logfile /run/xps/iperf3-bn.log
}

bench_net_domU_cfg() {
	echo "vif = [ 'mac=00:16:3e:00:00:$(printf %02x "$2"), bridge=xenbr0' ]"
	echo "memory = 512"
	echo "vcpus = 2"
}

# xt-start, xt-stop: xentrace and the vifs' bytes (xt_vif_start and
# xt_vif_stop, lib.sh)
bench_net_rpc() {
	case "$2" in
	xt-start) xt_vif_start ;;
	xt-stop) xt_vif_stop ;;
	*) RPC_REPLY="error reason=unknown-request" ;;
	esac
}

# bn_sample BENCH METRIC UNIT HIGHER VARIANT PARAMS_JSON RUN VALUE
bn_sample() {
	echo "XPS-SAMPLE {\"bench\": \"$1\", \"metric\": \"$2\", \"unit\": \"$3\", \"variant\": \"$5\", \"params\": {$6}, \"run\": $7, \"value\": $8, \"higher_is_better\": $4}"
}

bn_vif() { for _d in /sys/bus/xen/devices/vif-*; do [ -e "$_d" ] && { echo "${_d##*/}"; return 0; }; done; return 1; }
bn_if() { for _d in /sys/bus/xen/devices/vif-*/net/*; do [ -e "$_d" ] && { echo "${_d##*/}"; return 0; }; done; return 1; }
bn_mod() { basename "$(readlink "/sys/bus/xen/devices/$1/driver/module" 2>/dev/null)"; }
bn_kmod() { echo "$1" | tr - _; }
bn_loaded() { lsmod | grep -q "^$(bn_kmod "$1") "; }

# bn_unload: every vif unbound, then both drivers rmmod'ed.
# Workaround, not part of what is measured: xen-netfront-pgnt leaves its
# control ring's keys (ctrl-ring-ref, event-channel-ctrl) in the vif's
# frontend directory when it is unbound (found by this benchmark, first
# run 2026-12-02). The stock xen-netfront does not know them, so netback
# then maps the stale ring grant, fails ("mapping in shared page ...",
# "connecting control ring") and the stock driver never connects. Ours
# clears such keys itself on connect; for the stock driver they are
# removed here, and each removal is logged.
bn_unload() {
	for _d in /sys/bus/xen/devices/vif-*; do
		[ -e "$_d/driver" ] && echo "${_d##*/}" >"$_d/driver/unbind"
	done
	wait_for 30 sh -c '! ls /sys/bus/xen/devices/vif-*/net/* >/dev/null 2>&1' || return 1
	for _d in /sys/bus/xen/devices/vif-*; do
		_n=$(cat "$_d/nodename" 2>/dev/null) || continue
		if xenstore-read "$_n/ctrl-ring-ref" >/dev/null 2>&1; then
			echo "bench-net: workaround: removing $_n/ctrl-ring-ref=$(xenstore-read "$_n/ctrl-ring-ref") and event-channel-ctrl left after the unbind"
			xenstore-rm "$_n/ctrl-ring-ref" 2>/dev/null
			xenstore-rm "$_n/event-channel-ctrl" 2>/dev/null
		fi
	done
	for _m in xen-netfront xen-netfront-pgnt; do
		! bn_loaded "$_m" || rmmod "$_m" || return 1
	done
}

# bn_variant DRIVER[:P=V+P=V]: unload, load DRIVER with its parameters,
# interface up with $IP and dom0 answering; BN_WHY says what failed
bn_variant() {
	_drv=${1%%:*} _params=
	case "$1" in *:*) _params=$(echo "${1#*:}" | tr + ' ') ;; esac
	bn_unload || { BN_WHY="unbind or rmmod failed: $(lsmod | grep xen_netfront | tr '\n' ' ')"; return 1; }
	# shellcheck disable=SC2086 # word splitting intended: the parameters
	modprobe "$_drv" $_params 2>/tmp/bn-modprobe.log ||
		{ BN_WHY="modprobe $_drv $_params: $(tr '\n' ' ' </tmp/bn-modprobe.log)"; return 1; }
	wait_for 30 bn_if >/dev/null || { BN_WHY="$_drv: no interface within 30 s"; return 1; }
	_if=$(bn_if)
	ip link set lo up
	ip addr add "$IP/24" dev "$_if" 2>/dev/null
	# (wait_for counts tries: a ping that times out takes 1.5 s of them)
	if ! ip link set "$_if" up || ! wait_for 20 ping -c1 -W1 $BN_DOM0 >/dev/null 2>&1; then
		BN_WHY="$_drv: $_if up, dom0 unreachable after 20 pings: $(dmesg | grep -iE 'vif|netfront|xenbus' | tail -n 2 | tr '\n' ' ')"; return 1
	fi
	[ "$(bn_mod "$(bn_vif)")" = "$(bn_kmod "$_drv")" ] ||
		{ BN_WHY="vif bound to $(bn_mod "$(bn_vif)"), not $_drv"; return 1; }
	# a short TCP run so the first measured one does not start cold
	timeout 60 iperf3 -c $BN_DOM0 -p $BN_PORT -t 1 --connect-timeout 10000 >/dev/null 2>&1
	return 0
}

# bn_run WORKLOAD: one measured run; prints the value (Mbit/s or
# datagrams/s), nothing when the run failed
bn_run() {
	case "$1" in
	tcp-tx) _a="-O 1" ;;
	tcp-rx) _a="-O 1 -R" ;;
	udp64-tx)
		timeout 60 iperf3 -c $BN_DOM0 -p $BN_PORT -u -b 0 -l 64 -t 1 --connect-timeout 10000 >/dev/null 2>&1
		_a="-u -b 0 -l 64" ;;
	*) return 1 ;;
	esac
	# shellcheck disable=SC2086 # word splitting intended: the arguments
	# a run whose traffic stopped would otherwise wait forever
	timeout $((BN_RUNTIME + 60)) iperf3 -c $BN_DOM0 -p $BN_PORT -t "$BN_RUNTIME" --connect-timeout 10000 $_a >/tmp/bn-iperf.log 2>&1 || {
		echo "bench-net: $1: iperf3 failed: $(grep -iE 'error|refused|unable' /tmp/bn-iperf.log | head -n 2 | tr '\n' ' ')" >&2
		return 1
	}
	case "$1" in
	tcp-*) iperf3_receiver tcp /tmp/bn-iperf.log ;;
	udp*) iperf3_receiver udp /tmp/bn-iperf.log ;;
	esac
}

# bn_traced DRIVER PARAMS_JSON PAIR: tcp-tx and tcp-rx (those measured)
# once more each, under xentrace; Xen's counts per MB as samples.
# _bn_bad counts a failure, _bn_xn a traced run.
bn_traced() {
	for _bx_w in tcp-tx tcp-rx; do
		case " $BN_WORKLOADS " in *" $_bx_w "*) ;; *) continue ;; esac
		_bx_s=$(rpc xt-start)
		[ "$_bx_s" = ok ] || { echo "bench-net: xentrace with $1, $_bx_w, pair $3: $_bx_s"; _bn_bad=$((_bn_bad + 1)); continue; }
		_bx_v=$(bn_run "$_bx_w")
		_bx_r=$(rpc xt-stop)
		echo "bench-net: xentrace with $1, $_bx_w, pair $3: $_bx_r; iperf3: ${_bx_v:-failed}"
		_bx_b=$(kv "$_bx_r" rx)
		[ "$_bx_w" = tcp-tx ] || _bx_b=$(kv "$_bx_r" tx)
		case "$_bx_r" in ok*) [ -n "$_bx_v" ] && [ "${_bx_b:-0}" -gt 0 ] ;; *) false ;; esac ||
			{ _bn_bad=$((_bn_bad + 1)); continue; }
		for _bx_m in grant_ops gnttab_calls hypercalls; do
			case $_bx_m in
			grant_ops) _bx_c=$(xt_grant_ops "$_bx_r") _bx_u=ops/MB ;;
			*) _bx_c=$(kv "$_bx_r" $_bx_m) _bx_u=calls/MB ;;
			esac
			bn_sample "xen-$_bx_w" "${_bx_m}_per_mb" "$_bx_u" false "$1" "$2" "$3" \
				"$(awk -v o="$_bx_c" -v b="$_bx_b" 'BEGIN { printf "%.2f", o / (b / 1048576) }')"
		done
		_bn_xn=$((_bn_xn + 1))
	done
}

bench_net_domU() {
	# shellcheck disable=SC2086 # word splitting intended: the two variants
	set -- $BN_VARIANTS
	if [ $# != 2 ]; then
		fail bench-net/bind "want two variants, got: $BN_VARIANTS"
		fail bench-net/sweep "not run"
		return
	fi
	_bn_first=$1
	if bn_variant "$_bn_first"; then
		_bv=$(bn_vif)
		pass bench-net/bind "$_bv -> $(bn_mod "$_bv") ($(modinfo -F filename "${_bn_first%%:*}" 2>/dev/null)), $(bn_if) $IP up, dom0 answers; queues $(xenstore-read "$(cat "/sys/bus/xen/devices/$_bv/nodename")/multi-queue-num-queues" 2>/dev/null || echo 1); loaded: $(lsmod | awk '/^xen_netfront/ { printf "%s ", $1 }')"
	else
		fail bench-net/bind "first variant $_bn_first: $BN_WHY"
		fail bench-net/sweep "not run"
		return
	fi
	_bn_bad=0 _bn_n=0 _bn_xn=0 _bn_rep=1 _bn_cur=$_bn_first
	while [ "$_bn_rep" -le "$BN_REPS" ]; do
		# ABBA: the baseline first in odd pairs, second in even ones
		_bn_order=$BN_VARIANTS
		[ $((_bn_rep % 2)) = 0 ] && _bn_order="$2 $1"
		for _bn_v in $_bn_order; do
			if [ "$_bn_v" != "$_bn_cur" ] && ! bn_variant "$_bn_v"; then
				echo "bench-net: could not switch to $_bn_v: $BN_WHY"
				_bn_bad=$((_bn_bad + 1)); _bn_cur=; continue
			fi
			_bn_cur=$_bn_v
			_bn_drv=${_bn_v%%:*} _bn_p=
			# the parameters as JSON members: "P": "V", ...
			case "$_bn_v" in *:*) _bn_p=$(echo "${_bn_v#*:}" | awk -F+ '{ for (i = 1; i <= NF; i++) { split($i, a, "=")
				printf "%s\"%s\": \"%s\"", (i > 1 ? ", " : ""), a[1], a[2] } }') ;; esac
			for _bn_w in $BN_WORKLOADS; do
				_bn_val=$(bn_run "$_bn_w")
				if [ -z "$_bn_val" ]; then
					echo "bench-net: $_bn_w with $_bn_v, pair $_bn_rep: no number: $(grep -E 'receiver|error' /tmp/bn-iperf.log | tail -n 2 | tr '\n' ' ')"
					_bn_bad=$((_bn_bad + 1)); continue
				fi
				# iperf3's receiver line, for the record
				echo "bench-net: pair $_bn_rep $_bn_v $_bn_w: $(grep 'receiver$' /tmp/bn-iperf.log | tail -n 1 | tr -s ' ')"
				case "$_bn_w" in
				udp*) bn_sample "$_bn_w" datagrams-per-s pkt/s true "$_bn_drv" "$_bn_p" "$_bn_rep" "$_bn_val" ;;
				*) bn_sample "$_bn_w" throughput Mbit/s true "$_bn_drv" "$_bn_p" "$_bn_rep" "$_bn_val" ;;
				esac
				_bn_n=$((_bn_n + 1))
			done
			[ "$BN_XEN" = 0 ] || bn_traced "$_bn_drv" "$_bn_p" "$_bn_rep"
		done
		_bn_rep=$((_bn_rep + 1))
	done
	bn_unload || echo "bench-net: final unbind or rmmod failed"
	_bn_trouble=$(dmesg | grep -cE '(^|[^A-Za-z_])(BUG|WARNING|Oops)([^A-Za-z_]|$)|Call Trace|general protection|soft lockup|hung task')
	if [ "$_bn_bad" = 0 ]; then pass bench-net/sweep "$_bn_n runs and $_bn_xn traced: $BN_REPS pairs x {$BN_VARIANTS} x {$BN_WORKLOADS}, ${BN_RUNTIME}s each; dmesg: $_bn_trouble kernel trouble line(s)"
	else fail bench-net/sweep "$_bn_bad run(s) or switch(es) produced no number; dmesg: $_bn_trouble kernel trouble line(s)"; fi
}
