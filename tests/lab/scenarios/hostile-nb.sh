# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154 # the scenario interface (<fn>_steps, _budget, _domus,
# RPC_REPLY, BF_SCN...) is read by dom0-init, the judge and the helpers
# hostile-nb - xen-netback-pgnt in dom0 against a net frontend that lies
# (issue #15).  The frontend is not xen-netfront but xps-hostile-nf
# (tools/), a userspace frontend in the domU: it grants dom0 its rings
# and buffers through gntalloc and makes its event channels through
# evtchn; this scenario does the xenstore handshake for it.  Each case
# gets a new vif from dom0 (rpc hn-attach: xl network-attach, vif-bridge
# puts it on xpshn0, a bridge of its own, so that no other domU sees its
# frames), connects it, has the tool tell one lie, and asks
# dom0 how its backend took it (rpc hn-check: the backend's state and
# error node, the vif's counters, the kernel's lines about the vif since
# the attach); then dom0 detaches it (rpc hn-detach: xl network-detach,
# the domU answering Closing with Closed as a frontend does) and the vif
# must be gone.  Interface: see smoke.sh.  One domU (1 vCPU, no vif at
# boot, both netfronts blacklisted):
#   load        xen-evtchn and xen-gntalloc load
#   good        a well-behaved frame: answered OKAY, counted by the vif
#   bad-gref    a slot whose grant was never made: that packet answered
#               ERROR ("a grant copy from domain N failed"), the vif
#               still works (a good frame then: OKAY, still Connected)
#   runt        10 bytes: dropped ("shorter than an Ethernet header"),
#               answered ERROR; the vif still works
#   sizes       the second slot holds more than the packet's size:
#               dropped, ERROR; the vif still works
#   slots19     19 data slots (18 allowed): dropped, ERROR; still works
#   ctrl-over   control ring: ADD_GREF_MAPPING past the backend's limit
#               (GET_GREF_MAPPING_SIZE, the 24 buffers, then limit - 23
#               more): INVALID_PARAMETER ("over the limit"); still works
#   ctrl-gref   ADD_GREF_MAPPING with a table gref never granted:
#               INVALID_PARAMETER ("unreadable"); still works
#   flood       5 s of back-to-back frames, the tx ring always full:
#               every one answered OKAY; still works
#   slots21     21 data slots ("more slots than any packet takes")
#   cross       a slot past its 4 KB grant ("first slot crosses its 4 KB
#               grant")
#   bad-extra   an extra-info slot of type 7 ("unknown extra info type")
#   prod-jump   the tx request producer 1000 past the requests ("more
#               than a ring")
#   ctrl-jump   the control request producer 1000 ahead ("control
#               request producer ... more than a ring")
#               These five: the fault logged naming the vif and the
#               domain ("frontend of domain N fault: ...; disconnecting
#               the vif"), nothing answered, the backend Closing with an
#               error node
#   xs-queues   multi-queue-num-queues 99: no connection ("a number of
#               queues outside"), Closing
#   xs-ring-ref tx-ring-ref "lots": no connection ("reading ..."), Closing
#   vanish      (last) the frontend exits while connected, its rings and
#               buffers still granted, and never answers Closing: the
#               detach still ends, the vif goes
#   leaks       dom0: every vif of this domU gone, and, once the other
#               scenarios' domUs in the boot are gone too (make check:
#               netback's), xen-grant-pool's mapped grants back to 0
# The cases run beside the other scenarios of the boot.  netback's
# nb-reload reloads dom0's backend module, which would take this
# scenario's vif with it: each vif is attached and detached under the
# vif backend lock (lib.sh), which the reload takes too.
# Every case ends with its detach: the vif must be gone from dom0 within
# the detach's 60 s.  The judge's log-clean step adds: no
# BUG/WARNING/Oops in any log.
#
# XPS_SCN_HN_DRIVER=stock (make hostile-stock) runs the same cases
# against Debian's xen-netback: a step then passes when the detach still
# ends with the vif gone; what the backend answered and logged is in the
# step's line, for doc/hostile.md.  That run is a comparison, not a gate.

hostile_nb_steps="cpu-selfcheck load good bad-gref runt sizes slots19 ctrl-over ctrl-gref flood slots21 cross bad-extra prod-jump ctrl-jump xs-queues xs-ring-ref vanish leaks"
# Alone: about 5 minutes; beside netback, and its leaks step waiting for
# netback's domUs (up to that scenario's 960 s budget), longer.
hostile_nb_budget=1500
hostile_nb_domus="hn"

[ -f /xps/scenarios/blkfront.sh ] && . /xps/scenarios/blkfront.sh
HN_STOCK=
[ "${XPS_SCN_HN_DRIVER:-ours}" = stock ] && HN_STOCK=1
HN_TOOL=/xps/bin/xps-hostile-nf

# ---- dom0 side --------------------------------------------------------------

hostile_nb_dom0_prepare() {
	if [ -n "$HN_STOCK" ]; then
		[ ! -e /sys/bus/xen-backend/drivers/vif-pgnt ] || rmmod xen_netback_pgnt || return 1
		modprobe xen-netback || return 1
	elif [ ! -e /sys/bus/xen-backend/drivers/vif-pgnt ]; then
		# (netback.sh's prepare, earlier in the same boot, loads it too)
		rmmod xen_netback 2>/dev/null
		modprobe xen-netback-pgnt || return 1
	fi
	ip link show xpshn0 >/dev/null 2>&1 || { ip link add name xpshn0 type bridge && ip link set xpshn0 up; } || return 1
	echo "xps: hostile-nb: dom0's backend drivers:" /sys/bus/xen-backend/drivers/vif*
}

hostile_nb_domU_cfg() { :; }
# neither netfront may take the vifs: the tool is their frontend
hostile_nb_domU_cmdline() { echo "module_blacklist=xen_netfront,xen_netfront_pgnt"; }

hn_be() { echo "/local/domain/0/backend/vif/$1/$2"; }

# hn_attach DOMID: the vif backend lock taken (hn_detach gives it back),
# a new vif on xpshn0; RPC_REPLY "ok devid=N"
hn_attach() {
	if ! vif_lock hostile-nb 240; then
		RPC_REPLY="error the vif backend lock still held by $(vif_locker) after 240 s"
		return
	fi
	_hl=$(xenstore-list "/local/domain/0/backend/vif/$1" 2>/dev/null | sort -n | tr '\n' ' ')
	_hm=$(dmesg | wc -l)
	if ! xl network-attach "$1" bridge=xpshn0 >/run/xps/hn-attach.log 2>&1; then
		RPC_REPLY="error xl network-attach: $(tail -n 2 /run/xps/hn-attach.log | tr '\n' ' ')"
		vif_unlock
		return
	fi
	for _hv in $(xenstore-list "/local/domain/0/backend/vif/$1" 2>/dev/null); do
		case " $_hl " in *" $_hv "*) ;; *) break ;; esac
		_hv=
	done
	if [ -z "$_hv" ]; then
		RPC_REPLY="error no new vif under backend/vif/$1"
		vif_unlock
		return
	fi
	echo "$_hm" >"/run/xps/hn-$1-$_hv.mark"
	# an error node a vif of the same number left behind
	xenstore-rm "/local/domain/0/error/backend/vif/$1/$_hv" 2>/dev/null
	RPC_REPLY="ok devid=$_hv"
}

# hn_check DOMID DEVID: how the backend took the lie
hn_check() {
	_be=$(hn_be "$1" "$2")
	_hm=$(cat "/run/xps/hn-$1-$2.mark" 2>/dev/null || echo 0)
	_rx=$(cat "/sys/class/net/vif$1.$2/statistics/rx_packets" 2>/dev/null || echo gone)
	_err=$(xenstore-read "/local/domain/0/error/backend/vif/$1/$2/error" 2>/dev/null ||
		xenstore-read "$_be/error" 2>/dev/null)
	_msg=$(dmesg | tail -n +$((_hm + 1)) | grep -E "vif$1\.$2|vif-$1-$2|domain $1 " |
		grep -vE 'entered (blocking|forwarding|disabled) state|renamed from' |
		sed 's/^\[[^]]*\] //' | tail -n 3 | tr '\n' '|' | tr -d "'")
	RPC_REPLY="state=$(xenstore-read "$_be/state" 2>/dev/null) rx_packets=$_rx error='${_err:-}' dmesg='${_msg:-}'"
}

# hn_detach DOMID DEVID: xl network-detach (60 s at most); the vif must
# go; the vif backend lock given back
hn_detach() {
	_t=$(up)
	timeout 60 xl network-detach "$1" "$2" >/run/xps/hn-detach.log 2>&1
	_rc=$?
	if wait_for 10 sh -c "! test -e /sys/class/net/vif$1.$2"; then
		RPC_REPLY="ok xl exit $_rc after $(since "$_t") s, vif$1.$2 gone"
	else
		RPC_REPLY="error xl exit $_rc after $(since "$_t") s: $(tail -n 2 /run/xps/hn-detach.log | tr '\n' ' '); vif$1.$2 still there"
	fi
	vif_unlock
}

# hn_others DOMID: "none", or the other scenarios' domUs still running
hn_others() {
	_o=
	for _f in /run/xps/domus.*; do
		[ "$_f" = /run/xps/domus.hostile_nb ] && continue
		[ -f "$_f" ] || continue
		while read -r _d; do
			[ -e "/run/xps/$_d.gone" ] || _o="$_o $_d"
		done <"$_f"
	done
	RPC_REPLY=${_o:-none}
}

# hn_leaks DOMID: the domU's vifs left, and xen-grant-pool's mapped grants
hn_leaks() {
	_n=$(find /sys/class/net -maxdepth 1 -name "vif$1.*" | wc -l)
	_gp=/sys/kernel/debug/xen-grant-pool/stats
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	if [ -r "$_gp" ]; then
		RPC_REPLY="vifs=$_n $(awk '$1 == "caches" || $1 == "mapped_live" { printf "%s=%s ", $1, $2 }' "$_gp")"
	else
		RPC_REPLY="vifs=$_n"
	fi
}

hostile_nb_rpc() {
	_dom=$1 _cmd=$2; shift 2
	case "$_cmd" in
	hn-attach) hn_attach "$_dom" ;;
	hn-check) hn_check "$_dom" "$@" ;;
	hn-detach) hn_detach "$_dom" "$@" ;;
	hn-others) hn_others ;;
	hn-leaks) hn_leaks "$_dom" ;;
	*) RPC_REPLY="error reason=unknown-request" ;;
	esac
}

# ---- domU side --------------------------------------------------------------
hn_fe() { echo "/local/domain/$HN_DOMID/device/vif/$1"; }
hn_be_state() { xenstore-read "$(xenstore-read "$(hn_fe "$1")/backend")/state" 2>/dev/null; }
hn_be_is() { [ "$(hn_be_state "$1")" = "$2" ]; }
hn_be_ge() { _bs=$(hn_be_state "$1"); [ -n "$_bs" ] && [ "$_bs" -ge "$2" ]; }

# hn_up LIE [KEY=VALUE...]: a new vif, the tool started for LIE, its keys
# (and KEY=VALUE, lies the frontend tells in xenstore) written, Connected;
# sets _dv (devid), _log and _pid, _d; fails if the vif did not connect
hn_up() {
	_lie=$1 _pid="" _log=/dev/null; shift
	_r=$(rpc hn-attach)
	_d="attach: $_r;"
	case "$_r" in "ok devid="*) _dv=${_r#ok devid=} ;; *) _dv=; return 1 ;; esac
	_fe=$(hn_fe "$_dv")
	if ! wait_for 30 hn_be_is "$_dv" 2; then
		_d="$_d backend state $(hn_be_state "$_dv") after 30 s, not InitWait"; return 1
	fi
	_log=/tmp/hn-$_lie.log
	"$HN_TOOL" "$_lie" >"$_log" 2>&1 &
	_pid=$!
	if ! wait_for 10 grep -qs '^ready' "$_log"; then
		_d="$_d the tool did not start: $(head -c 200 "$_log")"; return 1
	fi
	for _kv in $(sed -n 's/^ready //p' "$_log") request-rx-copy=1 feature-rx-notify=1 feature-sg=1 "$@"; do
		xenstore-write "$_fe/${_kv%%=*}" "${_kv#*=}"
	done
	xenstore-write "$_fe/state" 4
}

# hn_connect LIE [KEY=VALUE...]: hn_up, and when that fails after the
# vif was made, the vif detached and the tool stopped again
hn_connect() {
	hn_up "$@" && return 0
	[ -z "$_dv" ] || hn_down
	return 1
}

# hn_closer DEVID: in the background, answer the backend's Closing with
# Closed, as a frontend does (the detach waits for it)
hn_closer() {
	( wait_for 90 hn_be_ge "$1" 5 && xenstore-write "$(hn_fe "$1")/state" 6 ) &
	_cpid=$!
}

# hn_down [noclose]: detach the vif (closing for it unless noclose),
# stop the tool; clears _ok if the vif stayed
hn_down() {
	_cpid=
	[ "${1:-}" = noclose ] || hn_closer "$_dv"
	_r=$(rpc hn-detach "$_dv")
	_d="$_d; detach: $_r"
	case "$_r" in ok*) ;; *) _ok= ;; esac
	[ -z "$_cpid" ] || kill "$_cpid" 2>/dev/null
	if [ -n "$_pid" ]; then
		kill "$_pid" 2>/dev/null
		wait_for 10 proc_gone "$_pid"
	fi
	_d="$_d; tool: $(grep '^end' "$_log" | tr '\n' ' ')"
}

# hn_tell: the lie told, "then:" (or its end) printed within 30 s; _d
hn_tell() {
	kill -USR1 "$_pid"
	wait_for 30 grep -qE '^(then:|lie: vanish)' "$_log"
	_res=$(sed -n 's/^result: //p' "$_log")
	_then=$(sed -n 's/^then: //p' "$_log")
	_d="$_d tool: $(grep -E '^(control|flood):' "$_log" | tr '\n' ' ')result $_res, then $_then;"
}

# hn_chk: dom0's view into _ck and _d
hn_chk() {
	_ck=$(rpc hn-check "$_dv")
	_d="$_d dom0: $_ck"
}

# hn_lives LIE RESULT WANT: the lie answered RESULT, dom0 logged WANT
# about the vif (nothing when WANT is empty), and the vif still works:
# a good frame then is answered OKAY, the backend still Connected; _d
hn_lives() {
	_ok=1
	hn_connect "$1" || return 1
	if ! wait_for 30 hn_be_is "$_dv" 4; then
		_d="$_d backend state $(hn_be_state "$_dv") after 30 s, not Connected"; _ok=
	else
		hn_tell
		sleep 1
		hn_chk
		if [ -z "$HN_STOCK" ]; then
			[ "$_res" = "$2" ] && [ "$_then" = OKAY ] || _ok=
			case "$_ck" in "state=4 "*) ;; *) _ok= ;; esac
			[ -z "$3" ] || case "$_ck" in *"$3"*) ;; *) _ok=; _d="$_d (no \"$3\")" ;; esac
		fi
	fi
	hn_down
	[ -n "$_ok" ]
}

# hn_fatal LIE WANT: the backend logs WANT as the frontend's fault,
# answers nothing more and goes Closing with an error node; _d
hn_fatal() {
	_ok=1
	hn_connect "$1" || return 1
	if ! wait_for 30 hn_be_is "$_dv" 4; then
		_d="$_d backend state $(hn_be_state "$_dv") after 30 s, not Connected"; _ok=
	else
		hn_tell
		wait_for 10 hn_be_ge "$_dv" 5
		hn_chk
		if [ -z "$HN_STOCK" ]; then
			# nothing answered, the lie's packet nor the good one
			[ "$_res" = none ] && [ "$_then" = none ] || _ok=
			case "$_ck" in "state=5 "*|"state=6 "*) ;; *) _ok= ;; esac
			case "$_ck" in *"error=''"*) _ok=; _d="$_d (no error node)" ;; esac
			case "$_ck" in *"fault: "*"$2"*"disconnecting the vif"*) ;; *) _ok=; _d="$_d (no \"$2\")" ;; esac
		fi
	fi
	hn_down
	[ -n "$_ok" ]
}

# hn_xs LIE KEY=VALUE WANT: the frontend's KEY lies: the backend must not
# connect, must log WANT and go Closing; _d
hn_xs() {
	_ok=1
	hn_connect none "$2" || return 1
	# Connected (a lie taken) or Closing (refused), whichever comes
	wait_for 15 hn_be_ge "$_dv" 4
	if hn_be_is "$_dv" 4; then
		_d="$_d backend Connected in spite of $2;"
		[ -n "$HN_STOCK" ] || _ok=
		wait_for 10 hn_be_ge "$_dv" 5
	fi
	hn_chk
	if [ -z "$HN_STOCK" ]; then
		case "$_ck" in "state=5 "*|"state=6 "*) ;; *) _ok= ;; esac
		case "$_ck" in *"$3"*) ;; *) _ok=; _d="$_d (no \"$3\")" ;; esac
	fi
	hn_down
	[ -n "$_ok" ]
}

# hn_vanish: the frontend exits while connected and never closes: the
# detach must still end and the vif go; _d
hn_vanish() {
	_ok=1
	hn_connect vanish || return 1
	wait_for 30 hn_be_is "$_dv" 4 || { _d="$_d backend state $(hn_be_state "$_dv") after 30 s, not Connected"; _ok=; }
	hn_tell
	wait_for 10 proc_gone "$_pid" || { _ok=; _d="$_d the tool did not exit;"; }
	hn_chk
	hn_down noclose
	[ -n "$_ok" ]
}

# hn_leak: every vif of this domU gone; ours: once the other domUs of
# the boot are gone (their vifs' grants are mapped too), no mapped grant
# left
hn_leak() {
	_t=$(up) _w=
	while _w=$(rpc hn-others) && [ "$_w" != none ] && [ "$(since "$_t")" -lt 900 ]; do
		sleep 5
	done
	_r=$(rpc hn-leaks)
	_d="dom0: $_r; waited $(since "$_t") s for the other domUs"
	[ "$_w" = none ] || { _d="$_d, still running: $_w"; return 1; }
	case "$_r" in "vifs=0"*) ;; *) return 1 ;; esac
	[ -n "$HN_STOCK" ] || case "$_r" in *"mapped_live=0 "*) ;; *) return 1 ;; esac
}

# hn_run STEP CMD...: bf_run's; XPS_SCN_HN_ONLY=step,step (debugging)
# runs only those (and load, leaks)
hn_run() { bf_run "${XPS_SCN_HN_ONLY:-}" "$@"; }

hostile_nb_domU() {
	BF_SCN=hostile-nb BF_STEPS=$hostile_nb_steps
	: >/tmp/bf.done
	HN_DOMID=$(xenstore-read domid)
	if ! modprobe xen-evtchn || ! modprobe xen-gntalloc ||
	   ! wait_for 10 test -c /dev/xen/gntalloc || ! test -c /dev/xen/evtchn || ! test -x "$HN_TOOL"; then
		bf_step load FAIL "xen-evtchn, xen-gntalloc or $HN_TOOL missing: $(echo /dev/xen/*)"
		bf_fail_rest "no tool"; return
	fi
	bf_step load PASS "xen-evtchn, xen-gntalloc, $HN_TOOL"
	hn_run good hn_lives good OKAY ''
	hn_run bad-gref hn_lives bad-gref ERROR "a grant copy from domain $HN_DOMID failed"
	hn_run runt hn_lives runt ERROR "shorter than an Ethernet header"
	hn_run sizes hn_lives sizes ERROR "slots hold more than the packet size"
	hn_run slots19 hn_lives slots19 ERROR "more slots than allowed"
	hn_run ctrl-over hn_lives ctrl-over INVALID_PARAMETER "over the limit"
	hn_run ctrl-gref hn_lives ctrl-gref INVALID_PARAMETER "unreadable: refused"
	hn_run flood hn_lives flood OKAY ''
	hn_run slots21 hn_fatal slots21 "more slots than any packet takes"
	hn_run cross hn_fatal cross "first slot crosses its 4 KB grant"
	hn_run bad-extra hn_fatal bad-extra "unknown extra info type"
	hn_run prod-jump hn_fatal prod-jump "more than a ring"
	hn_run ctrl-jump hn_fatal ctrl-jump "control request producer"
	hn_run xs-queues hn_xs xs-queues multi-queue-num-queues=99 "number of queues outside"
	hn_run xs-ring-ref hn_xs xs-ring-ref tx-ring-ref=lots "tx-ring-ref"
	hn_run vanish hn_vanish
	hn_run leaks hn_leak
	bf_fail_rest "not reached"
}
