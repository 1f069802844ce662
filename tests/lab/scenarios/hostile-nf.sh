# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154 # the scenario interface (<fn>_steps, _budget, _domus,
# RPC_REPLY, BF_SCN...) is read by dom0-init, the judge and the helpers
# hostile-nf - xen-netfront-pgnt against a net backend that lies (issue
# #15).  dom0's netback is not involved: dom0 plays the toolstack (rpc
# hf-attach), writing the vif's frontend nodes and a backend directory
# under backend/xps-vif, where no backend driver looks, with the
# features a netback offers (feature-rx-copy, feature-sg, one queue),
# then InitWait.  The backend is either xenstore alone (the xs-* cases)
# or xps-hostile-nb (tools/), a userspace net backend in dom0 that maps
# the frontend's rings through gntdev, answers every transmitted slot
# and copies a 60-byte frame into a posted receive buffer every 50 ms;
# dom0 starts it once the frontend is Connected, then says Connected.
# rpc hf-detach stops the tool, says Closing, waits for the frontend's
# Closed and removes both directories; the device must then be gone.
# Interface: see smoke.sh.  One domU (1 vCPU, no vif at boot,
# xen-netfront blacklisted):
#   load        xen-grant-pool and xen-netfront-pgnt load
#   good        the tool honest: the interface up, frames received (the
#               interface's rx_packets), ARP requests sent and answered
#   tx-bad-id   from the 2nd transmitted packet on, response id 65535
#   tx-status   from the 2nd, status 7
#   rx-bad-id   from the 8th frame on, a response id not the one posted
#               in that slot
#   rx-size     200 bytes at offset 4000 (past the 4 KB grant)
#   rx-flags    flag 0x100
#   rx-slots    one frame in 20 responses chained by more_data
#   rx-prod-jump the response producer 1000 past the responses
#               Each ring lie: "backend broke the protocol: ...<what>;
#               device disabled" naming the device, carrier off, frames
#               received before the lie, and a detach that removes the
#               device
#   The frontend must refuse a backend whose xenstore values lie at its
#   first read: a dmesg line naming the device and the value, no
#   connection (its state Closing, an error node), and a detach that
#   removes the device:
#   xs-mac      the toolstack's mac is ff:ff:ff:ff:ff:ff (not unicast):
#               "mac ... is not a unicast MAC address", no interface
#   xs-rx-copy  no feature-rx-copy: "backend lacks feature-rx-copy"
#   xs-feature  feature-sg 7: "backend feature-sg = 7: not 0 or 1"
#   xs-queues   multi-queue-max-queues 0: "backend multi-queue-max-queues
#               = 0"
#   alive       the module still unloads and loads, no device left
# The judge's log-clean step adds: no BUG/WARNING/Oops in any log.
#
# XPS_SCN_HF_DRIVER=stock (make hostile-stock) runs the cases against
# Debian's xen-netfront: a step then passes when the detach removes the
# device; what the driver logged is in the step's line.

hostile_nf_steps="cpu-selfcheck load good tx-bad-id tx-status rx-bad-id rx-size rx-flags rx-slots rx-prod-jump xs-mac xs-rx-copy xs-feature xs-queues alive"
# alone: about 170 s; beside netfront's traffic in the net boot, about 450 s
hostile_nf_budget=900
hostile_nf_domus="hf"

[ -f /xps/scenarios/blkfront.sh ] && . /xps/scenarios/blkfront.sh
HF_STOCK=
[ "${XPS_SCN_HF_DRIVER:-ours}" = stock ] && HF_STOCK=1
HF_MOD=xen-netfront-pgnt
[ -z "$HF_STOCK" ] || HF_MOD=xen-netfront

hostile_nf_dom0_prepare() { :; }
hostile_nf_domU_cfg() { :; }
hostile_nf_domU_cmdline() { [ -n "$HF_STOCK" ] || echo "module_blacklist=xen_netfront"; }

# ---- dom0 side: the toolstack's part and the backend's ---------------------
hf_be() { echo "/local/domain/0/backend/xps-vif/$1/$2"; }
hf_fe() { echo "/local/domain/$1/device/vif/$2"; }

HF_TOOL=/xps/bin/xps-hostile-nb

# hf_attach DOMID DEVID [tool=LIE,AFTER] [KEY=VALUE...]: the vif's
# nodes, the backend's features with KEY=VALUE over them (a key "fe-K"
# goes to the frontend's directory as K, "K=" removes K), then InitWait;
# with tool=, xps-hostile-nb serves the rings once the frontend is
# Connected, and the backend says Connected; sets RPC_REPLY
hf_attach() {
	_hd=$1 _hv=$2 _tool=; shift 2
	case "${1:-}" in tool=*) _tool=${1#tool=}; shift ;; esac
	_be=$(hf_be "$_hd" "$_hv") _fe=$(hf_fe "$_hd" "$_hv")
	xenstore-rm "$_fe" 2>/dev/null; xenstore-rm "$_be" 2>/dev/null
	xenstore-rm "/local/domain/$_hd/error/device/vif/$_hv" 2>/dev/null
	if ! xenstore-write "$_be/frontend" "$_fe" "$_be/frontend-id" "$_hd" \
		"$_be/online" 1 "$_be/handle" "$_hv" "$_be/state" 1 ||
	   ! xenstore-chmod -r "$_be" n0 "r$_hd"; then
		RPC_REPLY="error writing $_be"; return
	fi
	if ! xenstore-write "$_fe" "" ||
	   ! xenstore-chmod "/local/domain/$_hd/device/vif" "n$_hd" r0 ||
	   ! xenstore-chmod "$_fe" "n$_hd" r0 ||
	   ! xenstore-write "$_fe/backend" "$_be" "$_fe/backend-id" 0 \
		"$_fe/handle" "$_hv" "$_fe/mac" "00:16:3e:00:02:$(printf %02x "$_hv")"; then
		RPC_REPLY="error writing $_fe"; return
	fi
	xenstore-write "$_be/feature-rx-copy" 1 "$_be/feature-sg" 1 \
		"$_be/feature-gso-tcpv4" 1 "$_be/multi-queue-max-queues" 1
	for _kv in "$@"; do
		case "$_kv" in
		fe-*) _kv=${_kv#fe-}; xenstore-write "$_fe/${_kv%%=*}" "${_kv#*=}" ;;
		*=) xenstore-rm "$_be/${_kv%=}" ;;
		*) xenstore-write "$_be/${_kv%%=*}" "${_kv#*=}" ;;
		esac
	done
	# the frontend's state last: it probes a device that reads Initialising
	xenstore-write "$_fe/state" 1 "$_be/state" 2
	if [ -n "$_tool" ]; then
		if ! xs_await "$_fe/state" 4 30 >/dev/null; then
			RPC_REPLY="error frontend state $(xenstore-read "$_fe/state" 2>/dev/null) after 30 s, not Connected"
			return
		fi
		_log=/run/xps/hf-$_hd-$_hv.log
		# shellcheck disable=SC2046 # the four values, one word each
		"$HF_TOOL" "$_hd" $(xenstore-read "$_fe/tx-ring-ref" "$_fe/rx-ring-ref" "$_fe/event-channel") \
			"${_tool%,*}" "${_tool#*,}" >"$_log" 2>&1 &
		echo $! >"/run/xps/hf-$_hd-$_hv.pid"
		if ! wait_for 10 grep -qs '^ready' "$_log"; then
			RPC_REPLY="error the backend did not start: $(head -c 200 "$_log")"
			return
		fi
		xenstore-write "$_be/state" 4
	fi
	RPC_REPLY="ok${_tool:+ tool=$_tool}${1:+ $*}"
}

# hf_detach DOMID DEVID: Closing, the frontend's Closed (10 s), Closed,
# both directories removed; sets RPC_REPLY
hf_detach() {
	_be=$(hf_be "$1" "$2") _fe=$(hf_fe "$1" "$2")
	_log=/run/xps/hf-$1-$2.log _pid=$(cat "/run/xps/hf-$1-$2.pid" 2>/dev/null)
	rm -f "/run/xps/hf-$1-$2.pid"
	if [ -n "$_pid" ]; then
		kill "$_pid" 2>/dev/null
		wait_for 10 proc_gone "$_pid"
	fi
	xenstore-write "$_be/state" 5
	if xs_await "$_fe/state" 6 10 >/dev/null; then
		_fs=closed
	else
		_fs="state $(xenstore-read "$_fe/state" 2>/dev/null)"
	fi
	xenstore-write "$_be/state" 6
	xenstore-rm "$_fe"; xenstore-rm "$_be"
	RPC_REPLY="ok frontend $_fs${_pid:+; $(grep -E '^(lied|end|frontend)' "$_log" | tr '\n' ' ')}"
}

hostile_nf_rpc() {
	_dom=$1 _cmd=$2; shift 2
	case "$_cmd" in
	hf-attach) hf_attach "$_dom" "$@" ;;
	hf-detach) hf_detach "$_dom" "$@" ;;
	*) RPC_REPLY="error reason=unknown-request" ;;
	esac
}

# ---- domU side --------------------------------------------------------------
hf_fe_state() { xenstore-read "device/vif/$1/state" 2>/dev/null; }
hf_fe_ge() { _fs=$(hf_fe_state "$1"); [ -n "$_fs" ] && [ "$_fs" -ge "$2" ]; }

# hf_xs DEVID WANT KEY=VALUE...: the backend (or, fe-KEY, the toolstack)
# lies with KEY=VALUE; the frontend must log WANT naming vif-DEVID, go
# Closing with an error node and never Connected, and let the detach
# remove the device; _d
hf_xs() {
	_dv=$1 _want=$2; shift 2
	_ok=1 _t1=$(up)
	_r=$(rpc hf-attach "$_dv" "$@")
	_d="attach: $_r;"
	case "$_r" in ok*) ;; *) return 1 ;; esac
	# Closing (refused) or Connected (taken), whichever comes
	wait_for 20 hf_fe_ge "$_dv" 4
	_st=$(hf_fe_state "$_dv")
	_err=$(xenstore-read "error/device/vif/$_dv/error" 2>/dev/null)
	_m=$(dmesg | awk -v t="$_t1" -F'[][]' '$2 + 0 >= t' | grep "vif-$_dv: " |
		tail -n 3 | sed 's/^\[[^]]*\] //' | tr '\n' '|')
	_d="$_d frontend state $_st, error '$_err', dmesg '$_m'"
	if [ -z "$HF_STOCK" ]; then
		[ "$_st" = 5 ] || [ "$_st" = 6 ] || _ok=
		[ -n "$_err" ] || _ok=
		case "$_m" in *"$_want"*) ;; *) _ok=; _d="$_d (no \"$_want\")" ;; esac
	fi
	_r=$(rpc hf-detach "$_dv")
	_d="$_d; detach: $_r"
	wait_for 20 sh -c "! test -e /sys/bus/xen/devices/vif-$_dv" ||
		{ _ok=; _d="$_d; vif-$_dv still there 20 s after the detach"; }
	[ -n "$_ok" ]
}

# hf_if DEVID: the interface of vif-DEVID
hf_if() { _i=$(ls "/sys/bus/xen/devices/vif-$1/net" 2>/dev/null) && [ -n "$_i" ] && echo "$_i"; }
hf_rx() { cat "/sys/class/net/$1/statistics/rx_packets" 2>/dev/null || echo 0; }

# hf_ring DEVID LIE AFTER WANT: the tool lies from its AFTER-th response
# on; the frontend must log WANT ("backend broke the protocol: ...")
# naming vif-DEVID, drop its carrier, and let the detach remove the
# device; LIE none: frames must come in and go out instead; _d
hf_ring() {
	_dv=$1 _lie=$2 _after=$3 _want=$4
	_ok=1 _t1=$(up)
	_r=$(rpc hf-attach "$_dv" "tool=$_lie,$_after")
	_d="attach: $_r;"
	case "$_r" in ok*) ;; *) return 1 ;; esac
	if ! _if=$(wait_for 20 hf_if "$_dv"); then
		_d="$_d no interface for vif-$_dv"; _ok=
	else
		_if=$(hf_if "$_dv")
		ip link set "$_if" up
		ip addr add "10.9.$_dv.2/24" dev "$_if"
		# transmitted packets: ARP requests for a host that is not there
		ping -c 3 -W 1 "10.9.$_dv.1" >/dev/null 2>&1
		if [ "$_lie" = none ]; then
			sleep 2
			_rx=$(hf_rx "$_if")
			_tx=$(cat "/sys/class/net/$_if/statistics/tx_packets")
			_d="$_d $_if rx_packets=$_rx tx_packets=$_tx carrier=$(cat "/sys/class/net/$_if/carrier")"
			[ "$_rx" -ge 20 ] && [ "$_tx" -ge 1 ] || _ok=
		else
			wait_for 20 sh -c "dmesg | grep -q 'vif-$_dv: .*$_want'"
			_d="$_d $_if rx_packets=$(hf_rx "$_if") carrier=$(cat "/sys/class/net/$_if/carrier" 2>/dev/null)"
		fi
	fi
	_m=$(dmesg | awk -v t="$_t1" -F'[][]' '$2 + 0 >= t' | grep -E "vif-$_dv: |${_if:-vif-$_dv}" |
		grep -v 'link becomes ready' | tail -n 2 | sed 's/^\[[^]]*\] //' | tr '\n' '|')
	_d="$_d dmesg '$_m'"
	if [ -z "$HF_STOCK" ] && [ "$_lie" != none ]; then
		case "$_m" in *"backend broke the protocol: "*"$_want"*"device disabled"*) ;; *) _ok=; _d="$_d (no \"$_want\")" ;; esac
		case "$_d" in *"carrier=0"*) ;; *) _ok= ;; esac
		# the frames before the lie came in
		case "$_lie" in rx-*) [ "$(hf_rx "$_if")" -ge 1 ] || _ok= ;; esac
	fi
	_r=$(rpc hf-detach "$_dv")
	_d="$_d; detach: $_r"
	wait_for 20 sh -c "! test -e /sys/bus/xen/devices/vif-$_dv" ||
		{ _ok=; _d="$_d; vif-$_dv still there 20 s after the detach"; }
	[ -n "$_ok" ]
}

# hf_alive: no vif device left, the module unloads and loads again
hf_alive() {
	_n=$(find /sys/bus/xen/devices -maxdepth 1 -name 'vif-*' | wc -l)
	_d="vif devices left: $_n"
	[ "$_n" = 0 ] || return 1
	if ! rmmod "$HF_MOD"; then _d="$_d; rmmod $HF_MOD failed"; return 1; fi
	if ! modprobe "$HF_MOD"; then _d="$_d; modprobe $HF_MOD failed"; return 1; fi
	_d="$_d; rmmod and modprobe $HF_MOD"
}

# hf_run STEP CMD...: bf_run's; XPS_SCN_HF_ONLY=step,step (debugging)
# runs only those (and load)
hf_run() { bf_run "${XPS_SCN_HF_ONLY:-}" "$@"; }

hostile_nf_domU() {
	BF_SCN=hostile-nf BF_STEPS=$hostile_nf_steps
	: >/tmp/bf.done
	if [ -z "$HF_STOCK" ] && ! modprobe xen-grant-pool; then
		bf_step load FAIL "modprobe xen-grant-pool: $(dmesg | tail -n 2 | tr '\n' ' ')"
		bf_fail_rest "module did not load"; return
	fi
	if ! modprobe "$HF_MOD"; then
		bf_step load FAIL "modprobe $HF_MOD: $(dmesg | tail -n 2 | tr '\n' ' ')"
		bf_fail_rest "module did not load"; return
	fi
	bf_step load PASS "$HF_MOD loaded, no vif yet"
	hf_run good hf_ring 11 none 0 ''
	hf_run tx-bad-id hf_ring 12 tx-bad-id 2 'tx response id 65535 status 0: id out of range or not outstanding'
	hf_run tx-status hf_ring 13 tx-status 2 'status 7: unknown status'
	hf_run rx-bad-id hf_ring 14 rx-bad-id 8 'id not the one posted in the slot'
	hf_run rx-size hf_ring 15 rx-size 8 'data beyond the grant'
	hf_run rx-flags hf_ring 16 rx-flags 8 'unknown flags'
	hf_run rx-slots hf_ring 17 rx-slots 8 'too many slots for one packet'
	hf_run rx-prod-jump hf_ring 18 rx-prod-jump 8 'rx response producer'
	hf_run xs-mac hf_xs 1 'is not a unicast MAC address' fe-mac=ff:ff:ff:ff:ff:ff
	hf_run xs-rx-copy hf_xs 2 'backend lacks feature-rx-copy' feature-rx-copy=
	hf_run xs-feature hf_xs 3 'backend feature-sg = 7: not 0 or 1' feature-sg=7
	hf_run xs-queues hf_xs 4 'backend multi-queue-max-queues = 0' multi-queue-max-queues=0
	hf_run alive hf_alive
	bf_fail_rest "not reached"
}
