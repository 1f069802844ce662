# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154 # the scenario interface (<fn>_steps, _budget, _domus,
# RPC_REPLY, BF_SCN...) is read by dom0-init, the judge and the helpers
# hostile-blk - xen-blkfront-64k against a block backend that lies (issue
# #15).  The backend is not blkback but xps-hostile-blk (tools/), a
# userspace backend in dom0: it maps the domU's ring with gntdev, binds
# its event channel and serves the disk from a file in dom0 with grant
# copies.  dom0 plays the toolstack's part on the domU's request (rpc
# hb-attach): it writes the vbd's frontend and backend xenstore nodes as
# libxl would (the backend's under backend/qdisk, where blkback does not
# look), waits for the frontend's ring-ref and event-channel,
# starts the tool and says Connected; rpc hb-detach stops the tool, says
# Closing and removes the nodes once the frontend has closed.  Interface:
# see smoke.sh.  One domU (1 vCPU) with no disk at boot:
#   load        xen-grant-pool and xen-blkfront-64k load
#   serve       a well-behaved backend: the disk appears with the file's
#               size, fio writes 16 MB (4-44 KB random) and reads it back
#               with sha256 verify; detached, the disk goes away
#   bad-id      from the 48th response on, ids the frontend never used
#   double      a completed id again, in place of the next response's
#   bad-op      the other direction's operation in the response
#   bad-status  a status blkif.h does not define (7)
#   prod-jump   the response producer 1000 past the responses
#               Each lie: the frontend logs the fault naming the device
#               ("vbd-N: queue 0: bad response from backend: <what>", or
#               "backend response producer out of range") and "device
#               disabled", the disk's xps/dead reads 1, fio ends with
#               errors within 90 s instead of hanging, and the detach
#               removes the disk
#   sector-size the backend offers sector-size 513: no disk, "backend
#               sector-size 513 unusable"
#   sectors     sectors "lots": no disk, "reading backend disk parameters"
#   ring-order  max-ring-page-order 99, the frontend allowing 4: a 16-page
#               ring, and fio verify passes through it
#   indirect    feature-max-indirect-segments 4294967295: the frontend
#               uses its own 128, and 512 KB writes verify through
#               indirect requests
#   keep-map    (XSA-396) from the 48th response on, the backend maps the
#               first page of a request it answers and keeps it mapped
#               until it is stopped: the frontend holds that request
#               ("backend still maps 1 page(s) of a request it
#               answered"), disables the device, and completes the
#               request with an error only once the detach stopped the
#               backend; fio ends with errors, the disk goes
#   quiet       from the 48th response on, responses without an event;
#               with request_timeout=3 the frontend reads them at each
#               timeout ("answered without an event"): fio's verify
#               passes, responses_unnotified counts them, not dead
#   storm       from the 48th response on, 64 events a millisecond with
#               nothing behind them, responses still right: fio verify
#               passes, not dead, no error
#   flip        while fio runs, the backend changes its features five
#               times, half a second apart, and says Connected again
#               after each (persistent grants, flush, indirect segments
#               0/256, sector size 512/4096): features are fixed at
#               connect, so fio verify passes with no indirect request,
#               no persistent grant, the sector size and size unchanged
#   vanish      (last) the backend stops answering after 48 responses,
#               then goes away with fio's requests in flight (the tool
#               stops, Closing): fio ends with errors within 60 s, the
#               disk goes
#   leaks       every grant-pool page and grant back after rmmod
# The judge's log-clean step adds: no BUG/WARNING/Oops in any log.
#
# XPS_SCN_HB_DRIVER=stock (make hostile-stock) runs every case against
# Debian's xen-blkfront instead, loaded with max_ring_page_order=4 (its
# parameter is read-only once loaded).  Its messages are its own, so a
# lie's step passes when fio ends with errors within 90 s (no hang, no
# silent success), the kernel logs a line about the device after the
# lie, and the detach removes the disk; ring-order and indirect pass on
# fio verify; leaks becomes a clean rmmod.  A disk whose fio hangs is
# left attached (see hb_lie).  That run is a comparison,
# not a gate: make check runs ours.

hostile_blk_steps="cpu-selfcheck load serve bad-id double bad-op bad-status prod-jump sector-size sectors ring-order indirect keep-map quiet storm flip vanish leaks"
hostile_blk_budget=900
hostile_blk_domus="hb"

if [ -f /xps/scenarios/blkfront.sh ]; then
	. /xps/scenarios/blkfront.sh
	[ "${XPS_SCN_HB_DRIVER:-ours}" != stock ] || bf_use_stock
fi

HB_IMG=/tmp/hb.img
HB_TOOL=/xps/bin/xps-hostile-blk

hostile_blk_dom0_prepare() {
	truncate -s 64M "$HB_IMG"
}

hostile_blk_domU_cfg() { :; }
hostile_blk_domU_cmdline() { bf_domU_cmdline; }

# ---- dom0 side: the toolstack's part ------------------------------------
# under qdisk, the type of a userspace backend (QEMU's): dom0's blkback
# watches backend/vbd and would take the device (connect the ring and
# bind its event channel) before the tool
hb_be() { echo "/local/domain/0/backend/qdisk/$1/$2"; }
hb_fe() { echo "/local/domain/$1/device/vbd/$2"; }
hb_fe_state() { xenstore-read "$(hb_fe "$1" "$2")/state" 2>/dev/null; }

# hb_attach DOMID DEVID LIE AFTER [KEY=VALUE...]: the backend's xenstore
# values KEY (features, or lies about the disk) written before InitWait;
# sets RPC_REPLY
hb_attach() {
	_hd=$1 _hv=$2 _lie=$3 _after=$4; shift 4
	_be=$(hb_be "$_hd" "$_hv") _fe=$(hb_fe "$_hd" "$_hv")
	_log=/run/xps/hb-$_hd-$_hv.log
	xenstore-rm "$_fe" 2>/dev/null; xenstore-rm "$_be" 2>/dev/null
	# the backend's directory: dom0's, readable by the domU
	xenstore-write "$_be/frontend" "$_fe" "$_be/frontend-id" "$_hd" \
		"$_be/online" 1 "$_be/removable" 0 "$_be/type" phy \
		"$_be/mode" w "$_be/state" 1 &&
	xenstore-chmod -r "$_be" n0 "r$_hd" || { RPC_REPLY="error writing $_be"; return; }
	# the frontend's: the domU's, its vbd directory too (the toolstack
	# made none: the domU booted without a disk); state last, as the
	# frontend probes a device whose state reads Initialising
	xenstore-write "$_fe" "" &&
	xenstore-chmod "/local/domain/$_hd/device/vbd" "n$_hd" r0 &&
	xenstore-chmod "$_fe" "n$_hd" r0 &&
	xenstore-write "$_fe/backend" "$_be" "$_fe/backend-id" 0 \
		"$_fe/virtual-device" "$_hv" "$_fe/device-type" disk &&
	xenstore-write "$_fe/state" 1 || { RPC_REPLY="error writing $_fe"; return; }
	# InitWait with no feature: one page ring, one queue, plain requests
	_sz=$(stat -c %s "$HB_IMG")
	xenstore-write "$_be/sectors" $((_sz / 512)) "$_be/info" 0 \
		"$_be/sector-size" 512 "$_be/physical-sector-size" 512
	for _kv in "$@"; do xenstore-write "$_be/${_kv%%=*}" "${_kv#*=}"; done
	xenstore-write "$_be/state" 2
	if ! xs_await "$(hb_fe "$_hd" "$_hv")/state" 3 30 >/dev/null; then
		RPC_REPLY="error frontend state $(hb_fe_state "$_hd" "$_hv") after 30 s, not 3"
		return
	fi
	# one ring-ref, or ring-ref0... for a multi-page ring
	_ro=$(xenstore-read "$_fe/ring-page-order" 2>/dev/null)
	if [ -n "$_ro" ]; then
		_rr='' _i=0
		while [ "$_i" -lt $((1 << _ro)) ] 2>/dev/null; do
			_rr="$_rr${_rr:+,}$(xenstore-read "$_fe/ring-ref$_i" 2>/dev/null)"
			_i=$((_i + 1))
		done
	else
		_rr=$(xenstore-read "$_fe/ring-ref" 2>/dev/null)
	fi
	_ev=$(xenstore-read "$_fe/event-channel" 2>/dev/null)
	_pr=$(xenstore-read "$_fe/protocol" 2>/dev/null)
	if [ -z "$_rr" ] || [ -z "$_ev" ] || { [ -n "$_pr" ] && [ "$_pr" != x86_64-abi ]; }; then
		RPC_REPLY="error frontend ring-ref '$_rr' event-channel '$_ev' protocol '$_pr': not one x86_64 ring"
		return
	fi
	"$HB_TOOL" "$_hd" "$_rr" "$_ev" "$HB_IMG" "$_lie" "$_after" >"$_log" 2>&1 &
	echo $! >"/run/xps/hb-$_hd-$_hv.pid"
	if ! wait_for 10 grep -qs '^ready' "$_log"; then
		RPC_REPLY="error the backend did not start: $(head -c 200 "$_log")"
		return
	fi
	xenstore-write "$_be/state" 4
	RPC_REPLY="ok ring-page-order=${_ro:-none} evtchn=$_ev lie=$_lie after=$_after${1:+ $*}"
}

# hb_detach DOMID DEVID: stop the backend, Closing, wait for the frontend
# to close (20 s), Closed, remove both directories; sets RPC_REPLY
hb_detach() {
	_be=$(hb_be "$1" "$2") _fe=$(hb_fe "$1" "$2")
	_log=/run/xps/hb-$1-$2.log
	_pid=$(cat "/run/xps/hb-$1-$2.pid" 2>/dev/null)
	if [ -n "$_pid" ]; then
		kill "$_pid" 2>/dev/null
		wait_for 10 proc_gone "$_pid"
	fi
	xenstore-write "$_be/state" 5
	if xs_await "$_fe/state" 6 20 >/dev/null; then _fs=closed; else _fs="state $(hb_fe_state "$1" "$2")"; fi
	xenstore-write "$_be/state" 6
	xenstore-rm "$_fe"; xenstore-rm "$_be"
	RPC_REPLY="ok frontend $_fs; $(grep -E '^(lied|end|frontend)' "$_log" | tr '\n' ' ')"
}

# hb_be_flip DOMID DEVID: while connected, the backend's features change
# five times, half a second apart (persistent grants, flush, indirect
# segments and sector size, on then off...), each time followed by
# Connected again, which fires the frontend's watch
hb_be_flip() {
	_be=$(hb_be "$1" "$2") _i=0
	while [ "$_i" -lt 5 ]; do
		_on=$(((_i + 1) % 2))
		xenstore-write "$_be/feature-persistent" $_on "$_be/feature-flush-cache" $_on \
			"$_be/feature-max-indirect-segments" $((_on * 256)) \
			"$_be/sector-size" $((512 << (_on * 3))) "$_be/state" 4 || break
		sleep 0.5
		_i=$((_i + 1))
	done
	RPC_REPLY="ok $_i flips"
}

# hb_stop_all: stop every backend still running (a disk a failed case
# left attached); one that still maps the domU's ring when the domU goes
# leaves a dying domain behind (2026-12-06: dom0 then logged soft
# lockups for a minute)
hb_stop_all() {
	pkill -TERM -x xps-hostile-blk
	if wait_for 10 sh -c '! pgrep -x xps-hostile-blk >/dev/null'; then
		RPC_REPLY=ok
	else
		RPC_REPLY="error still running: $(pgrep -x xps-hostile-blk | tr '\n' ' ')"
	fi
}

hostile_blk_rpc() {
	_dom=$1 _cmd=$2; shift 2
	case "$_cmd" in
	hb-attach) hb_attach "$_dom" "$@" ;;
	hb-flip) hb_be_flip "$_dom" "$@" ;;
	hb-stop) hb_stop_all ;;
	hb-detach) hb_detach "$_dom" "$@" ;;
	*) RPC_REPLY="error reason=unknown-request" ;;
	esac
}

# ---- domU side ------------------------------------------------------------
# hb_dev LETTER: the vbd number of xvd<LETTER> (202 << 8 | 16 * index)
hb_dev() {
	_i=$(printf '%d' "'$1"); echo $((51712 + 16 * (_i - 97)))
}

# hb_serve: a well-behaved backend serves real I/O; sets _d
hb_serve() {
	hb_attach_disk b none 0 || return 1
	if ! wait_for 30 test -b /dev/xvdb; then
		_d="$_d no /dev/xvdb after 30 s"; return 1
	fi
	_sz=$(blockdev --getsize64 /dev/xvdb)
	_ok=1
	[ "$_sz" = 67108864 ] || _ok=
	if _o=$(bf_fio hb-serve 240 --name=serve --filename=/dev/xvdb --rw=randwrite \
		--bsrange=4k-44k --size=16M --iodepth=8 --verify=sha256 --do_verify=1); then
		_d="$_d size $_sz, fio 16M verify sha256 $_o"
	else
		_ok=; _d="$_d size $_sz, fio $_o"
	fi
	bf_stock || _d="$_d $(bf_xps xvdb requests dead)"
	hb_detach_disk b
	[ -n "$_ok" ]
}

# hb_lie STEP LETTER WANT: the backend tells LIE (= STEP) from the 48th
# response on; the frontend must log WANT naming the device, disable it,
# let fio end with errors, and let go of it on detach; sets _d
hb_lie() {
	_st=$1 _l=$2 _want=$3
	hb_attach_disk "$_l" "$_st" 48 || return 1
	if ! wait_for 30 test -b "/dev/xvd$_l"; then
		_d="$_d no /dev/xvd$_l after 30 s"; return 1
	fi
	_ok=1 _t1=$(up)
	# in the background: fio stuck in uninterruptible I/O would outlive
	# timeout's signal, and this step must go on to detach the disk
	hb_fio_bg "$_st" --name="$_st" --filename="/dev/xvd$_l" --rw=randwrite \
		--bsrange=4k-44k --size=16M --iodepth=8 --verify=sha256 --do_verify=1
	_hung=
	if ! wait_for 90 grep -q '^rc=' "/tmp/hb-$_st.out"; then
		_ok='' _hung=1; _d="$_d fio hung: no end 90 s after it started, $(hb_inflight "$_l") request(s) in flight;"
	elif grep -q '^rc=0' "/tmp/hb-$_st.out"; then
		_ok=; _d="$_d fio passed: $(head -n 1 "/tmp/hb-$_st.out")"
	else
		_d="$_d fio failed as it should: $(head -n 1 "/tmp/hb-$_st.out" | cut -c1-120)"
	fi
	if bf_stock; then
		# its own words: any line about the disk since the attach
		_m=$(dmesg | awk -v t="$_t1" -F'[][]' '$2 + 0 >= t' |
			grep -E "xvd$_l|vbd-$_dv|blkfront|blkif" | tail -n 3 | sed 's/^\[[^]]*\] //' | tr '\n' '|')
		[ -n "$_m" ] || _ok=
		_d="$_d dmesg: '${_m:-nothing}'"
	else
		_m=$(dmesg | grep "vbd-$_dv: .*$_want" | tail -n 1 | sed 's/^\[[^]]*\] //')
		_k=$(dmesg | grep "vbd-$_dv: .*device disabled" | tail -n 1 | sed 's/^\[[^]]*\] //')
		[ -n "$_m" ] && [ -n "$_k" ] || _ok=
		_dead=$(bf_x "xvd$_l" dead)
		[ "$_dead" = 1 ] || _ok=
		_d="$_d dmesg: '${_m:-no \"$_want\"}' '${_k:-not disabled}' dead=$_dead"
	fi
	# A disk whose requests hang is left attached: removing it blocks
	# the frontend's xenwatch thread in del_gendisk (Debian's
	# xen-blkfront after bad-id, 2026-12-06: "task xenwatch:24 blocked
	# for more than 120 seconds"), and with it every later case
	if [ -n "$_hung" ]; then
		_d="$_d; left attached (its requests hang)"
		return 1
	fi
	hb_detach_disk "$_l"
	[ -n "$_ok" ]
}

# hb_attach_disk LETTER LIE AFTER [KEY=VALUE]: rpc hb-attach for
# xvd<LETTER>; _d starts with dom0's reply; fails if dom0 refused
hb_attach_disk() {
	_dv=$(hb_dev "$1"); shift
	_r=$(rpc hb-attach "$_dv" "$@")
	_d="attach: $_r;"
	case "$_r" in ok*) return 0 ;; *) return 1 ;; esac
}
# hb_detach_disk LETTER: rpc hb-detach; the disk must then be gone
# within 30 s, or _ok is cleared
hb_detach_disk() {
	_r=$(rpc hb-detach "$(hb_dev "$1")")
	_d="$_d; detach: $_r"
	wait_for 30 sh -c "! test -e /sys/block/xvd$1" || { _ok=; _d="$_d; xvd$1 still there 30 s after the detach"; }
}

# hb_fio_bg TAG ARGS...: bf_fio (a 180 s limit) in the background; its
# line and then "rc=N" in /tmp/hb-TAG.out
hb_fio_bg() {
	# the file named before bf_fio runs: it sets _tag (to hb-TAG), and
	# "rc=0" went to /tmp/hb-hb-TAG.out, so a fio that passed looked hung
	_tag=$1 _hbf=/tmp/hb-$1.out; shift
	rm -f "$_hbf"
	( bf_fio "hb-$_tag" 180 "$@" >"$_hbf"; echo "rc=$?" >>"$_hbf" ) &
}

# hb_inflight LETTER: requests of xvd<LETTER> in flight; hb_held: some,
# and still some 2 s later
# shellcheck disable=SC2046 # "reads writes": two words wanted
hb_inflight() { set -- $(cat "/sys/block/xvd$1/inflight" 2>/dev/null) 0 0; echo $(($1 + $2)); }
hb_held() { [ "$(hb_inflight "$1")" -gt 0 ] && sleep 2 && [ "$(hb_inflight "$1")" -gt 0 ]; }

# hb_vanish LETTER: the backend stops answering after 48 responses and,
# with fio's requests in flight, goes away (hb-detach: the tool stops,
# Closing): fio must end with errors within 60 s, the disk must go; _d
hb_vanish() {
	_l=$1
	hb_attach_disk "$_l" silent 48 || return 1
	wait_for 30 test -b "/dev/xvd$_l" || { _d="$_d no /dev/xvd$_l after 30 s"; return 1; }
	hb_fio_bg vanish --name=vanish --filename="/dev/xvd$_l" --rw=randwrite \
		--bsrange=4k-44k --size=16M --iodepth=8 --verify=sha256 --do_verify=1
	# in flight and unanswered: the inflight count stays above 0
	if ! wait_for 30 hb_held "$_l"; then
		_d="$_d no request held in flight"; return 1
	fi
	_fl=$(hb_inflight "$_l")
	_t=$(up) _ok=1 _d="$_d $_fl in flight"
	hb_detach_disk "$_l"
	wait_for 60 grep -q '^rc=' /tmp/hb-vanish.out || _ok=
	_d="$_d; fio after $(since "$_t") s: $(tr '\n' ' ' </tmp/hb-vanish.out | cut -c1-160)"
	grep -q '^rc=0' /tmp/hb-vanish.out && { _ok=; _d="$_d (fio passed?)"; }
	_d="$_d; dmesg: $(dmesg | grep -E "vbd-$_dv: |xvd$_l" | tail -n 2 | sed 's/^\[[^]]*\] //' | tr '\n' ' ')"
	[ -n "$_ok" ]
}

# hb_xs_bad LETTER WANT KEY=VALUE: the backend offers an unusable disk
# parameter: no disk may appear, the frontend must say WANT; _d
hb_xs_bad() {
	_l=$1 _want=$2
	hb_attach_disk "$_l" none 0 "$3" || return 1
	_ok=1
	# the stock driver: its own words, any line about the device
	bf_stock && _want='.'
	wait_for 15 sh -c "dmesg | grep -q 'vbd-$_dv: .*$_want'" || _ok=
	test -b "/dev/xvd$_l" && { _ok=; _d="$_d /dev/xvd$_l appeared ($(cat "/sys/block/xvd$_l/size") sectors)"; }
	_d="$_d dmesg: '$(dmesg | grep "vbd-$_dv: " | tail -n 2 | sed 's/^\[[^]]*\] //' | tr '\n' ' ')'"
	hb_detach_disk "$_l"
	[ -n "$_ok" ]
}

# hb_clamped LETTER FIO_ARGS KEY=VALUE: the backend offers a feature with
# an absurd value; the frontend must clamp it and the disk must work
# (fio verify); _d
hb_clamped() {
	_l=$1 _fa=$2
	hb_attach_disk "$_l" none 0 "$3" || return 1
	wait_for 30 test -b "/dev/xvd$_l" || { _d="$_d no /dev/xvd$_l after 30 s"; return 1; }
	_ok=1
	# shellcheck disable=SC2086 # word splitting intended: fio's arguments
	if _o=$(bf_fio "hb-$_l" 240 --name=clamped --filename="/dev/xvd$_l" --size=16M \
		--iodepth=8 --verify=sha256 --do_verify=1 $_fa); then
		_d="$_d fio 16M verify sha256 $_o"
	else
		_ok=; _d="$_d fio $_o"
	fi
	bf_stock || _d="$_d $(bf_xps "xvd$_l" ring_pages max_indirect_segments requests_indirect dead)"
	hb_detach_disk "$_l"
	[ -n "$_ok" ]
}

# hb_keep LETTER: the backend keeps a page of an answered request mapped
# (keep-map, XSA-396); the request must be held, the device disabled, and
# fio must end with errors once the detach stopped the backend; _d
hb_keep() {
	_l=$1 _want="backend still maps 1 page(s) of a request it answered"
	hb_attach_disk "$_l" keep-map 48 || return 1
	wait_for 30 test -b "/dev/xvd$_l" || { _d="$_d no /dev/xvd$_l after 30 s"; return 1; }
	_ok=1
	hb_fio_bg keep-map --name=keep-map --filename="/dev/xvd$_l" --rw=randwrite \
		--bsrange=4k-44k --size=16M --iodepth=8 --verify=sha256 --do_verify=1
	if wait_for 60 sh -c "dmesg | grep -q 'vbd-$_dv: $_want'"; then
		_d="$_d dmesg: '$_want'"
	else
		_ok=; _d="$_d no '$_want' within 60 s"
	fi
	# held, not completed: its page is not handed back while mapped
	wait_for 10 sh -c "[ \"\$(cat /sys/block/xvd$_l/xps/dead)\" = 1 ]"
	_d="$_d $(bf_xps "xvd$_l" zero_copy dead requests_held errors_revoke)"
	[ "$(bf_x "xvd$_l" dead)" = 1 ] && [ "$(bf_x "xvd$_l" requests_held)" -ge 1 ] || _ok=
	grep -q '^rc=' /tmp/hb-keep-map.out && { _ok=; _d="$_d; fio ended before the backend let go"; }
	hb_detach_disk "$_l"
	wait_for 30 grep -q '^rc=' /tmp/hb-keep-map.out || { _ok=; _d="$_d; fio still running 30 s after the detach"; }
	grep -q '^rc=0' /tmp/hb-keep-map.out && { _ok=; _d="$_d (fio passed?)"; }
	_d="$_d; fio: $(head -n 1 /tmp/hb-keep-map.out | cut -c1-100); dmesg: '$(dmesg | grep "vbd-$_dv: backend released" | tail -n 1 | sed 's/^\[[^]]*\] //')'"
	[ -n "$_ok" ]
}

# hb_quiet LETTER: responses without an event from the 48th on; ours, with
# request_timeout=3, reads them at each timeout: fio verify must pass
# (within 120 s) with the device alive; _d
hb_quiet() {
	_l=$1
	bf_stock || echo 3 >"/sys/module/$_mod/parameters/request_timeout"
	hb_attach_disk "$_l" quiet 48; _ar=$?
	# read at the device's probe: the next disks wait forever again
	bf_stock || echo 0 >"/sys/module/$_mod/parameters/request_timeout"
	[ "$_ar" = 0 ] || return 1
	wait_for 30 test -b "/dev/xvd$_l" || { _d="$_d no /dev/xvd$_l after 30 s"; return 1; }
	_ok=1
	hb_fio_bg quiet --name=quiet --filename="/dev/xvd$_l" --rw=write --bs=44k \
		--size=2M --iodepth=16 --verify=sha256 --do_verify=1
	if ! wait_for 120 grep -q '^rc=' /tmp/hb-quiet.out; then
		_d="$_d fio hung: no end 120 s after it started, $(hb_inflight "$_l") request(s) in flight; left attached (its requests hang)"
		return 1
	fi
	grep -q '^rc=0' /tmp/hb-quiet.out || _ok=
	_d="$_d fio: $(head -n 1 /tmp/hb-quiet.out | cut -c1-100)"
	if ! bf_stock; then
		_d="$_d $(bf_xps "xvd$_l" responses_unnotified errors_timeout dead) dmesg: '$(dmesg | grep "vbd-$_dv: .*without an event" | tail -n 1 | sed 's/^\[[^]]*\] //')'"
		[ "$(bf_x "xvd$_l" responses_unnotified)" -gt 0 ] && [ "$(bf_x "xvd$_l" dead)" = 0 ] || _ok=
	fi
	hb_detach_disk "$_l"
	[ -n "$_ok" ]
}

# hb_irqs NAME: the interrupts taken so far by the handler NAME, every CPU
hb_irqs() {
	awk -v n="$1" '$NF == n { s = 0; for (i = 2; i < NF - 2; i++) s += $i; print s }' /proc/interrupts
}

# hb_storm LETTER: an event storm with nothing behind it from the 48th
# response on; fio verify must pass, the device stay alive; _d
hb_storm() {
	_l=$1
	hb_attach_disk "$_l" storm 48 || return 1
	wait_for 30 test -b "/dev/xvd$_l" || { _d="$_d no /dev/xvd$_l after 30 s"; return 1; }
	_ok=1 _irq0=$(hb_irqs "xbf$_dv-q0")
	if _o=$(bf_fio hb-storm 240 --name=storm --filename="/dev/xvd$_l" --rw=randwrite \
		--bsrange=4k-44k --size=8M --iodepth=8 --verify=sha256 --do_verify=1); then
		_d="$_d fio 8M verify sha256 $_o"
	else
		_ok=; _d="$_d fio $_o"
	fi
	if ! bf_stock; then
		_irq1=$(hb_irqs "xbf$_dv-q0")
		_d="$_d interrupts +$((${_irq1:-0} - ${_irq0:-0})) $(bf_xps "xvd$_l" dead errors_protocol errors_io)"
		[ "$(bf_x "xvd$_l" dead)" = 0 ] && [ "$(bf_errs "xvd$_l")" = 0 ] || _ok=
	fi
	hb_detach_disk "$_l"
	case "$_d" in *"lied: storm"*) ;; *) _ok=; _d="$_d (no storm told)" ;; esac
	[ -n "$_ok" ]
}

# hb_flip LETTER: the backend's features change while connected, five
# times; they must not change what the frontend does; _d
hb_flip() {
	_l=$1
	hb_attach_disk "$_l" none 0 || return 1
	wait_for 30 test -b "/dev/xvd$_l" || { _d="$_d no /dev/xvd$_l after 30 s"; return 1; }
	_ok=1 _lbs=$(cat "/sys/block/xvd$_l/queue/logical_block_size") _sz=$(blockdev --getsize64 "/dev/xvd$_l")
	hb_fio_bg flip --name=flip --filename="/dev/xvd$_l" --rw=randwrite \
		--bsrange=4k-44k --size=16M --iodepth=8 --verify=sha256 --do_verify=1
	_t=$(up) _r=$(rpc hb-flip "$_dv")
	case "$_r" in "ok 5 flips") ;; *) _ok= ;; esac
	_d="$_d flip: $_r in $(since "$_t") s;"
	grep -q '^rc=' /tmp/hb-flip.out && { _ok=; _d="$_d fio ended before the last flip;"; }
	if ! wait_for 180 grep -q '^rc=' /tmp/hb-flip.out; then
		_d="$_d fio hung: no end 180 s after it started, $(hb_inflight "$_l") in flight"
		bf_stock && { _d="$_d; left attached"; return 1; }
		_d="$_d $(bf_xps "xvd$_l" requests dead) dmesg: '$(dmesg | grep "vbd-$_dv: " | tail -n 2 | sed 's/^\[[^]]*\] //' | tr '\n' ' ')'"
		hb_detach_disk "$_l"
		return 1
	fi
	grep -q '^rc=0' /tmp/hb-flip.out || _ok=
	_d="$_d fio: $(head -n 1 /tmp/hb-flip.out | cut -c1-100);"
	_lbs2=$(cat "/sys/block/xvd$_l/queue/logical_block_size") _sz2=$(blockdev --getsize64 "/dev/xvd$_l")
	_d="$_d logical block $_lbs -> $_lbs2, size $_sz -> $_sz2"
	[ "$_lbs" = "$_lbs2" ] && [ "$_sz" = "$_sz2" ] || _ok=
	if ! bf_stock; then
		_d="$_d $(bf_xps "xvd$_l" persistent requests_indirect flush dead)"
		[ "$(bf_x "xvd$_l" requests_indirect)" = 0 ] && [ "$(bf_x "xvd$_l" persistent)" = 0 ] &&
			[ "$(bf_x "xvd$_l" dead)" = 0 ] || _ok=
	fi
	hb_detach_disk "$_l"
	[ -n "$_ok" ]
}

# hb_ring_order LETTER: the frontend allows 16 pages
# (max_ring_page_order=4), the backend claims order 99: a 16-page ring
hb_ring_order() {
	bf_stock || echo 4 >"/sys/module/$_mod/parameters/max_ring_page_order"
	hb_clamped "$1" "--rw=randwrite --bsrange=4k-44k" max-ring-page-order=99; _rc=$?
	bf_stock || echo 0 >"/sys/module/$_mod/parameters/max_ring_page_order"
	[ "$_rc" = 0 ] && case "$_d" in *"ring-page-order=4 "*) true ;; *) false ;; esac &&
		{ bf_stock || [ "$(echo "$_d" | sed -n 's/.*ring_pages=\([0-9]*\).*/\1/p')" = 16 ]; }
}

# hb_indirect LETTER: feature-max-indirect-segments 2^32-1; ours keeps its
# own 128
hb_indirect() {
	hb_clamped "$1" "--rw=write --bs=512k" feature-max-indirect-segments=4294967295 &&
		{ bf_stock || [ "$(echo "$_d" | sed -n 's/.*max_indirect_segments=\([0-9]*\).*/\1/p')" = 128 ]; }
}

# hb_run STEP CMD...: bf_run's; XPS_SCN_HB_ONLY=step,step (debugging)
# runs only those (and load, leaks)
hb_run() { bf_run "${XPS_SCN_HB_ONLY:-}" "$@"; }

hostile_blk_domU() {
	BF_SCN=hostile-blk BF_STEPS=$hostile_blk_steps
	: >/tmp/bf.done
	if bf_stock; then
		_mod=xen_blkfront
		if ! modprobe xen-blkfront max_ring_page_order=4; then
			bf_step load FAIL "modprobe xen-blkfront: $(dmesg | tail -n 3 | tr '\n' ' ')"
			bf_fail_rest "module did not load"; return
		fi
		bf_step load PASS "Debian's xen-blkfront loaded (max_ring_page_order=4), no disk yet"
	else
		_mod=xen_blkfront_64k
		if ! bf_built; then
			bf_step load FAIL "module not built ($BF_MOD.ko / xen-grant-pool.ko missing from --modules)"
			bf_fail_rest "module not built"; return
		fi
		if ! modprobe xen-grant-pool || ! modprobe "$BF_MOD"; then
			bf_step load FAIL "modprobe: $(dmesg | tail -n 3 | tr '\n' ' ')"
			bf_fail_rest "module did not load"; return
		fi
		bf_step load PASS "xen-grant-pool and $BF_MOD loaded, no disk yet"
	fi
	hb_run serve hb_serve
	hb_run bad-id hb_lie bad-id c "bad response from backend: id out of range"
	hb_run double hb_lie double d "bad response from backend: id not outstanding"
	hb_run bad-op hb_lie bad-op e "bad response from backend: wrong operation"
	hb_run bad-status hb_lie bad-status f "bad response from backend: unknown status"
	hb_run prod-jump hb_lie prod-jump g "backend response producer out of range"
	hb_run sector-size hb_xs_bad i "backend sector-size 513 unusable" sector-size=513
	hb_run sectors hb_xs_bad j "reading backend disk parameters" sectors=lots
	hb_run ring-order hb_ring_order k
	hb_run indirect hb_indirect l
	# Debian's driver: its own words, fio ending with errors (hb_lie)
	if bf_stock; then hb_run keep-map hb_lie keep-map m x
	else hb_run keep-map hb_keep m; fi
	hb_run quiet hb_quiet n
	hb_run storm hb_storm o
	hb_run flip hb_flip p
	# last: with Debian's xen-blkfront the vanished backend's requests
	# may hang, and the disk's removal then blocks xenwatch
	hb_run vanish hb_vanish h
	rpc hb-stop >/dev/null
	if bf_stock; then
		if rmmod xen-blkfront; then bf_step leaks PASS "rmmod xen-blkfront"
		else bf_step leaks FAIL "rmmod xen-blkfront: refcnt $(cat /sys/module/xen_blkfront/refcnt)"; fi
	else
		bf_leaks_step
	fi
	bf_fail_rest "not reached"
}
