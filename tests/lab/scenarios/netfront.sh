# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034 # the scenario interface (<fn>_steps, _budget, _domus,
# RPC_REPLY, NF_*) is read by dom0-init, the judge and the helpers
# netfront - a Xen net frontend in a domU against dom0's stock xen-netback.
# Interface: see smoke.sh.  NF_DRIVER picks the frontend:
#   ours   xen-netfront-pgnt from updates/xen-pv-suite (--modules), the
#          stock xen-netfront kept out with module_blacklist=xen_netfront
#   stock  Debian's xen-netfront (the reference every step was developed
#          against: XPS_SCN_NF_DRIVER=stock tests/lab/lab run netfront)
# nf (2 vCPUs, so the vif gets 2 queues) runs the steps with the chosen
# driver.  A second domU, nf2 (1 vCPU, Debian's stock xen-netfront:
# NF_PEER_DRIVER), created when nf asks for it after its bind step, runs
# the nf2-* steps below beside nf's: the stock netfront's pairing with
# dom0's backend in the same boot (with the stock netback here, with
# xen-netback-pgnt in netback.sh); with dom0's backend ours it is also
# the far end of domu2domu.
# Bulk data: busybox nc -e with dd at both ends, to a sink that answers
# "<sha256> <bytes>" of what it read, and from a source that sends
# "<sha256> <bytes>" and then that many fresh random bytes (nf_helpers;
# dom0 serves both on 10.0.0.1:5311/5312, nf2 on :5400/5401).  Steps:
#   bind          the vif is bound to the chosen driver's module (readlink
#                 of vif-0's driver), the interface up with 10.0.0.<idx>;
#                 ours: its control ring asked the stock netback
#                 GET_GREF_MAPPING_SIZE and, answered NOT_SUPPORTED, maps
#                 per packet (the dmesg line says so)
#   ping          20 pings to dom0, no loss; 3 pings of 8000 bytes
#                 (fragmented at MTU 1500), no loss
#   iperf3-tx/rx  TCP domU->dom0 and dom0->domU (-R), 4 s each: bitrate
#                 reported, only "ran and moved data" judged
#   udp           iperf3 -u at 4 Mbit/s both ways, 3 s each: loss reported,
#                 judged only that datagrams arrived
#   sha256        32 MB domU->dom0 and 32 MB dom0->domU, sha256 equal
#   queues        queues negotiated (multi-queue-num-queues in the vif's
#                 frontend directory) = min(vCPUs, backend's
#                 multi-queue-max-queues, the driver's max_queues), as many
#                 tx queues in sysfs; a tx and an rx event channel per
#                 queue when the backend offers
#                 feature-split-event-channels (the stock netback does),
#                 else one (counted by irq name in /proc/interrupts);
#                 per-queue interrupt counts after 4 parallel flows are
#                 reported
#   steer         ours: receive steering through the backend's Toeplitz
#                 hash (io/netif.h's hash messages on the control ring):
#                 ethtool -x shows a 40-octet key and a 128-entry table;
#                 ethtool -X with the RSS verification key and weight 0 1
#                 sends them, dmesg says the backend took them, the
#                 backend's own view (its debugfs: xen-netback/vifD.0/ctrl
#                 or xen-netback-pgnt/vifD.0/hash) has that key and all 128
#                 entries on queue 1, ethtool -X returned within 10 s
#                 (its 7 messages waited 5 s each for a response event
#                 the frontend never asked for, before 2026-12-03's fix),
#                 and 4 flows dom0->domU raise
#                 q1's rx interrupts by 10 or more (q0's by at most 3); weight 1 0: the
#                 other way round; packets arrive with the backend's hash
#                 (ethtool -S rx_hash_packets grows)
#   stats         ours: ethtool -S shows the bulk data copied through
#                 the slots, no protocol error, one control request
#                 answered without a mapping, 2 x 2 x 256 pool grants;
#                 ethtool -l 2 combined channels (stock: not judged)
#   domu2domu     (backend ours) 32 MB nf->nf2 and 32 MB nf2->nf across
#                 dom0's bridge, sha256 equal; nf2's vif in dom0 (its
#                 ethtool -S): with the stock netfront every byte
#                 grant-copied, no grant mapped, no frontend fault
#   mtu9000       MTU 9000 on the domU's interface, dom0's vif and xenbr0
#                 (for a few seconds: other scenarios' domUs share xenbr0):
#                 5 pings of 8900 bytes answered with no IP fragment
#                 created or reassembled on either side (busybox ping has
#                 no -M do: /proc/net/snmp FragCreates/ReasmReqds stand in
#                 for it; the domU's are judged: what dom0 fragments the
#                 domU reassembles, and the other way round), 16 MB each
#                 way verified; MTU 1500 again after
#   reload        iperf3 running, the vif unbound and the driver rmmod'ed
#                 (xenbus holds a module reference per bound device, so
#                 rmmod alone is refused), modprobe max_queues=1 (ours:
#                 and split_event_channels=0): the interface comes back
#                 with one queue (ours: one event channel for both rings),
#                 16 MB each way verify; the later steps run on that one
#                 queue
#   detach-attach iperf3 running, xl network-detach from dom0 (the
#                 interface goes away), xl network-attach: the interface
#                 comes back, bound to the driver, 16 MB each way verify
#   save-restore  iperf3 running, xl save + xl restore of nf: the vif
#                 resumes, dom0 answers pings, 16 MB each way verify;
#                 ours: ethtool -X (key, equal 1) set before the save is
#                 sent again after the restore (one more dmesg line, the
#                 backend's debugfs holds key and table)
#   nf2-bind      (nf2) the vif bound to NF_PEER_DRIVER's module, dom0
#                 answering
#   nf2-ping ... nf2-sha256, nf2-mtu9000
#                 (nf2) ping, iperf3-tx/rx, udp, sha256 and mtu9000 as
#                 above, on dom0's iperf3 port 5215.  nf and nf2 take
#                 turns (dom0's mtu-lock) for their fragmented pings and
#                 MTU 9000 windows; in mtu9000 the domU's own fragment
#                 counters are judged, dom0's (shared) reported
#   clean         after the final unbind + rmmod: no kernel trouble lines
#                 in nf's dmesg, no grant-table message of a grant still
#                 in use or leaked; with xen-grant-pool loaded, no pool
#                 page or grant live; no ctrl-ring-ref or
#                 event-channel-ctrl left in the vif's xenstore directory
#                 (a stock netfront loaded next would fail to connect)
# With XPS_SCN_NB_DRIVER=ours, dom0 serves the vifs with xen-netback-pgnt
# (module loaded in place of xen-netback before any vif exists) and:
#   bind          ours: the backend maps every pool grant of every queue
#                 ("persistent grants: the backend maps all" in dmesg)
#   stats         ours: 4 control requests (GET + ADD per queue), 1024
#                 persistent grants
#   backend       16 MB each way verified, the vif's ethtool -S in dom0
#                 before and after: ours, every byte by memcpy from the
#                 static grants and not one grant copy; stock, every byte
#                 grant-copied and no grant mapped; no frontend fault
#   nb-reload     iperf3 running, dom0 unbinds every vif from vif-pgnt,
#                 rmmods and modprobes xen-netback-pgnt (no kernel trouble
#                 or grant-pool leak line in dom0's dmesg), and does what
#                 vif-bridge does when udev runs it for the new vif (puts
#                 it on xenbr0, writes hotplug-status): the frontend is
#                 served again, 16 MB each way verify; ours: it asked for
#                 static grants again and the backend maps them all; nf2
#                 (stock netfront) served again too: 8 MB each way
#                 nf<->nf2 verify
# Speeds and iperf3's outcome across a reload, detach or save are reported,
# never judged.

netfront_steps="cpu-selfcheck bind ping iperf3-tx iperf3-rx udp sha256 queues stats mtu9000 reload detach-attach save-restore clean"
# Measured with the stock driver, netfront alone, warm image cache, on the
# 2-core host: scenario 238 s (boot total 265 s) with the host quiet, 314 s
# (boot total 344 s) with builds beside it; save 9-12 s, restore 8-10 s.
# Ours (xen-netfront-pgnt) alone: 469-490 s; with a second lab on the
# same 2 cores it ran past 720 s in save-restore (every step before it
# passed).  Budget: about 2x ours alone; make check runs it in its own boot.
netfront_budget=960
netfront_domus="nf"

# ours | stock; XPS_SCN_NF_DRIVER on the host overrides it for a run.
# (netback.sh and netback-stock.sh run these steps under their own
# scenario names with other defaults: NF_SCN, NF_DEFAULT, NB_DEFAULT)
NF_SCN=${NF_SCN:-netfront}
NF_FN=$(echo "$NF_SCN" | tr - _)
NF_DRIVER=${XPS_SCN_NF_DRIVER:-${NF_DEFAULT:-ours}}
# nf2's driver; XPS_SCN_NF_PEER_DRIVER overrides it
NF_PEER_DRIVER=${XPS_SCN_NF_PEER_DRIVER:-stock}
case " $(cat /proc/cmdline 2>/dev/null) " in *" xps.dom=nf2 "*) NF_DRIVER=$NF_PEER_DRIVER ;; esac
case "$NF_DRIVER" in
stock) NF_MOD=xen-netfront NF_KMOD=xen_netfront ;;
*) NF_MOD=xen-netfront-pgnt NF_KMOD=xen_netfront_pgnt ;;
esac
# dom0's backend: stock (Debian's xen-netback) | ours (xen-netback-pgnt
# from updates/xen-pv-suite, loaded in place of xen-netback before any
# vif exists); XPS_SCN_NB_DRIVER on the host overrides it for a run, and
# XPS_SCN_NB_PARAMS (e.g. "threaded_napi=1") are its modprobe parameters.
NB_DRIVER=${XPS_SCN_NB_DRIVER:-${NB_DEFAULT:-stock}}
# ours: three more steps, domU to domU with nf2, the backend's own
# counters and its reload
[ "$NB_DRIVER" != ours ] || netfront_steps=$(echo "$netfront_steps backend nb-reload" | sed 's/ stats / stats domu2domu /')
# nf2's own pairing with dom0's backend, reported by nf2
NF_PEER_STEPS="nf2-bind nf2-ping nf2-iperf3-tx nf2-iperf3-rx nf2-udp nf2-sha256 nf2-mtu9000"
netfront_steps="$netfront_steps $NF_PEER_STEPS"
# receive steering: the stock frontend has no ethtool -X
[ "$NF_DRIVER" = stock ] || netfront_steps=$(echo "$netfront_steps" | sed 's/ queues / queues steer /')
NF_DOM0=10.0.0.1
# dom0's servers: iperf3 (one per step, so a test a reload or save cut
# short cannot hold up the next) and the nc sink and source
NF_IPERF=5211 NF_IPERF_RELOAD=5212 NF_IPERF_DETACH=5213 NF_IPERF_SAVE=5214
# nf2's steps' iperf3 server
NF_IPERF_PEER=5215
NF_SINK=5311 NF_SOURCE=5312
# nf2's nc sink and source
NF_PSINK=5400 NF_PSOURCE=5401
# the RSS verification key (the one the hash's published test vectors use)
NF_RSS_KEY=6d:5a:56:da:25:5b:0e:c2:41:67:25:3d:43:a3:8f:b0:d0:ca:2b:cb:ae:7b:30:b4:77:cb:2d:a3:80:30:f2:0c:6a:42:b7:3b:be:ac:01:fa

# nf_helpers DIR: the programs busybox nc -e runs with the socket as
# stdin and stdout (nc itself copies 1 KB per poll: 0.8 MB/s under TCG;
# dd moves up to 1 MB per call).  Data is whole MB of fresh random bytes;
# a transfer starts with a line "<MB>" from the client.
#   nf-sink    server: read MB MB, answer "<sha256> <bytes>"
#   nf-source  server: answer "<sha256> <bytes>", then send MB MB
#   nf-put     client: send /tmp/nf-tx (NF_XMB MB), the answer to
#              /tmp/nf-tx.ans
#   nf-get     client: the header to /tmp/nf-rx.hdr, the data (to EOF) to
#              /tmp/nf-rx
# The servers touch /tmp/nf-served-<name> when they are done.
nf_helpers() {
	cat >"$1/nf-sink" <<'EOF'
#!/bin/sh
exec 2>>/tmp/nf-sink.log
read -r mb || exit 1
case "$mb" in ''|*[!0-9]*) exit 1 ;; esac
f=$(mktemp /tmp/nf-in.XXXXXX) || exit 1
dd of="$f" bs=1M count="$mb" iflag=fullblock 2>/dev/null
echo "$(sha256sum <"$f" | cut -c1-64) $(($(wc -c <"$f")))"
rm -f "$f"
touch /tmp/nf-served-sink
EOF
	cat >"$1/nf-source" <<'EOF'
#!/bin/sh
exec 2>>/tmp/nf-source.log
read -r mb || exit 1
case "$mb" in ''|*[!0-9]*) exit 1 ;; esac
f=$(mktemp /tmp/nf-out.XXXXXX) || exit 1
dd if=/dev/urandom of="$f" bs=1M count="$mb" iflag=fullblock 2>/dev/null
echo "$(sha256sum <"$f" | cut -c1-64) $(($(wc -c <"$f")))"
dd if="$f" bs=1M 2>/dev/null
rm -f "$f"
touch /tmp/nf-served-source
EOF
	cat >"$1/nf-put" <<'EOF'
#!/bin/sh
echo "$NF_XMB"
dd if=/tmp/nf-tx bs=1M 2>/dev/null
read -r sum n && echo "$sum $n" >/tmp/nf-tx.ans
EOF
	cat >"$1/nf-get" <<'EOF'
#!/bin/sh
echo "$NF_XMB"
read -r sum n && echo "$sum $n" >/tmp/nf-rx.hdr
dd of=/tmp/nf-rx bs=1M 2>/dev/null
EOF
	chmod 0755 "$1/nf-sink" "$1/nf-source" "$1/nf-put" "$1/nf-get"
}

# nf_snmp KEY [PROTO]: the PROTO: (default Ip:) counter KEY of
# /proc/net/snmp
nf_snmp() {
	awk -v k="$1" -v p="${2:-Ip}:" '$1 == p { if (!h) { for (i = 2; i <= NF; i++) n[i] = $i; h = 1 }
	                                else for (i = 2; i <= NF; i++) if (n[i] == k) print $i }' /proc/net/snmp
}

# ---- dom0 side ---------------------------------------------------------------

# XPS_SCN_NB_TRACE=1: every 15 s, the vifs' nonzero counters and irqs
nb_trace() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	while sleep 15; do
		for _v in /sys/class/net/vif*; do
			[ -e "$_v" ] || continue
			echo "xps-nb: ${_v##*/} $(ethtool -S "${_v##*/}" 2>/dev/null | awk -F': ' '$2 != 0 && NR > 1 { gsub(/ /, "", $1); printf "%s=%s ", $1, $2 }')"
		done
		cat /sys/kernel/debug/xen-netback-pgnt/vif*/io_ring 2>/dev/null | sed 's/^/xps-nb: /'
		grep vif /proc/interrupts | awk '{ s = 0; for (i = 2; i <= 3; i++) s += $i; printf "xps-nb: irq %s %s\n", $NF, s }'
	done
}

netfront_dom0_prepare() {
	nf_helpers /run/xps || return 1
	if [ "$NB_DRIVER" = ours ]; then
		rmmod xen_netback 2>/dev/null
		# shellcheck disable=SC2086 # word splitting intended: parameters
		modprobe xen-netback-pgnt ${XPS_SCN_NB_PARAMS:-} || return 1
		echo "xps: dom0 backend $(basename "$(readlink /sys/bus/xen-backend/drivers/vif-pgnt/module 2>/dev/null)")"
		[ -z "$XPS_SCN_NB_TRACE" ] || nb_trace &
	fi
	for _p in $NF_IPERF $NF_IPERF_RELOAD $NF_IPERF_DETACH $NF_IPERF_SAVE $NF_IPERF_PEER; do
		iperf3 -s -D -p "$_p" --logfile "/run/xps/iperf3-nf-$_p.log" || return 1
	done
	busybox nc -ll -p $NF_SINK -e /run/xps/nf-sink </dev/null >/dev/null 2>&1 &
	busybox nc -ll -p $NF_SOURCE -e /run/xps/nf-source </dev/null >/dev/null 2>&1 &
	rm -rf /run/xps/nf-peer-done /run/xps/nf2-steps-done /run/xps/mtu.lock
}

netfront_domU_cfg() {
	echo "vif = [ 'mac=00:16:3e:00:00:$(printf %02x "$2"), bridge=xenbr0' ]"
	echo "vcpus = 2"
}

# nf_cmdline [DRIVER]: the guest's kernel parameters for DRIVER (NF_DRIVER)
nf_cmdline() { [ "${1:-$NF_DRIVER}" = stock ] || echo "module_blacklist=xen_netfront"; }
netfront_domU_cmdline() { nf_cmdline; }

# nf_tail NAME FILE: one more console log of the domain onto ours (an
# incoming domain logs under its temporary name)
nf_tail() {
	( tail -n +1 -F "$2" 2>/dev/null &
	  echo $! >"/run/xps/$1.tail-${2##*--}"; wait ) | sed -u "s/\r\$//; s/^/[domU:$1] /" &
}

# nf_move NAME OLDID SEQ: in the background, xl save then xl restore of
# the domain while its traffic runs.  It is marked busy meanwhile so
# dom0-init does not take its absence for the end; under its new id it is
# served again, with the request that started this counted as answered.
nf_move() {
	_mn=$1 _mold=$2 _mseq=$3
	rpc_replied "$_mold" "$_mseq" || echo "xps: $_mn: request $_mseq's reply not read after 30 s; saving anyway"
	_mt=$(up)
	if xl save "$_mn" /tmp/nf.chk >/run/xps/nf-xl.log 2>&1; then
		_ms=$(since "$_mt") _mt=$(up)
		if xl restore /tmp/nf.chk >>/run/xps/nf-xl.log 2>&1; then
			_mr="ok save=${_ms}s restore=$(since "$_mt")s"
		else
			_mr="error xl restore: $(tail -n 3 /run/xps/nf-xl.log | tr '\n' ' ')"
		fi
	else
		_mr="error xl save: $(tail -n 3 /run/xps/nf-xl.log | tr '\n' ' ')"
	fi
	rm -f /tmp/nf.chk
	echo "xps: $_mn: save-restore: $_mr"
	_mnew=$(xl domid "$_mn" 2>/dev/null)
	for _f in /var/log/xen/console/guest-"$_mn"--*.log; do
		[ -f "$_f" ] && [ ! -e "/run/xps/$_mn.tail-${_f##*--}" ] && nf_tail "$_mn" "$_f"
	done
	if [ -n "$_mnew" ] && [ "$_mnew" != "$_mold" ]; then
		echo "xps: $_mn is domain $_mnew after save-restore"
		rpc_serve "$_mnew" "$NF_FN" "$_mseq" &
	fi
	echo "$_mr new_domid=${_mnew:-none}" >/run/xps/nf-move.log
	rm -f "/run/xps/$_mn.busy"
}

# nf_peer_start NFIP: dom0, create nf2 (the far end of domu2domu) as
# dom0-init creates a domU, with one retry.  nf asks for it once its own
# boot is over and waits meanwhile: created beside a booting domU, the
# vif hotplug script outran libxl's 40 s timeout on a loaded host.  nf2
# gets 10.0.0.<nf's + 100>; dom0-init waits for it like for nf.
nf_peer_start() {
	_pidx=$(( ${1##*.} + 100 ))
	{
		echo 'name = "nf2"'
		echo 'type = "pv"'
		echo 'kernel = "/root/vmlinux"'
		echo 'ramdisk = "/xps/domU.cpio"'
		echo "extra = \"console=hvc0 loglevel=5 xps.scn=$NF_SCN xps.dom=nf2 xps.ip=10.0.0.$_pidx $(nf_cmdline "$NF_PEER_DRIVER")\""
		echo 'on_poweroff = "destroy"'
		echo 'on_crash = "destroy"'
		echo 'memory = 384'
		echo 'vcpus = 1'
		echo "vif = [ 'mac=00:16:3e:00:01:$(printf %02x "$_pidx"), bridge=xenbr0' ]"
	} >/run/xps/nf2.cfg
	_pr=
	for _pn in 1 2; do
		_pt=$(up)
		if xl create /run/xps/nf2.cfg >/run/xps/nf2.create.log 2>&1; then
			_pid=$(xl domid nf2)
			echo "XPS-DOMU nf2 $NF_SCN $_pid created_in=$(since "$_pt")s"
			( tail -n +1 -F /var/log/xen/console/guest-nf2.log 2>/dev/null &
			  echo $! >/run/xps/nf2.tail; wait ) | sed -u "s/\r\$//; s/^/[domU:nf2] /" &
			rpc_serve "$_pid" "$NF_FN" &
			echo nf2 >>"/run/xps/domus.$NF_FN"
			RPC_REPLY="ok 10.0.0.$_pidx created in $(since "$_pt")s${_pr:+ (attempt $_pn; 1: $_pr)}"
			return 0
		fi
		_pr=$(grep -m 2 -i error /run/xps/nf2.create.log | tr '\n' ' ' | cut -c1-200)
		echo "xps: xl create nf2 (attempt $_pn): $_pr"
		xl destroy nf2 >/dev/null 2>&1
	done
	RPC_REPLY="error xl create nf2: $_pr"
}

# nb_vif_stats DOMID: dom0 side; the nonzero ethtool -S counters of the
# domain's first vif as "name=value ...", "none" when there are none
nb_vif_stats() {
	_vs=$(ethtool -S "vif$1.0" 2>&1 | awk -F': *' 'NR > 1 && $2 != 0 { gsub(/ /, "", $1); printf "%s=%s ", $1, $2 }')
	echo "${_vs:-none}"
}

netfront_rpc() {
	_dom=$1 _cmd=$2; shift 2
	case "$_cmd" in
	peer-start) nf_peer_start "$1" ;;
	peer-done) touch /run/xps/nf-peer-done; RPC_REPLY=ok ;;
	peer-steps-done) touch /run/xps/nf2-steps-done; RPC_REPLY=ok ;; # nf2's
	peer-state) # finished: nf is done with nf2, or gone; steps-done:
		# nf2 has run its own steps; else waiting
		if [ -e /run/xps/nf-peer-done ] ||
		   { [ ! -e /run/xps/nf.busy ] && ! xl domid nf >/dev/null 2>&1; }; then
			RPC_REPLY=finished
		elif [ -e /run/xps/nf2-steps-done ]; then
			RPC_REPLY=steps-done
		else
			RPC_REPLY=waiting
		fi ;;
	# mtu-lock: xenbr0's MTU and IP fragments through it are the
	# domain's alone until its mtu-unlock (nf and nf2 take turns: at MTU
	# 9000 dom0's echo replies to the other's fragmented 8000-byte pings
	# would not fit its vif, and dom0's fragment counters are shared);
	# "busy <holder>" while another domain holds it
	mtu-lock)
		_lkn=$(xl domname "$_dom" 2>/dev/null)
		if mkdir /run/xps/mtu.lock 2>/dev/null; then
			echo "$_lkn" >/run/xps/mtu.lock/owner
			RPC_REPLY=ok
		elif [ "$(cat /run/xps/mtu.lock/owner 2>/dev/null)" = "$_lkn" ]; then
			RPC_REPLY=ok
		else
			RPC_REPLY="busy $(cat /run/xps/mtu.lock/owner 2>/dev/null)"
		fi ;;
	mtu-unlock)
		[ "$(cat /run/xps/mtu.lock/owner 2>/dev/null)" != "$(xl domname "$_dom" 2>/dev/null)" ] ||
			rm -rf /run/xps/mtu.lock
		RPC_REPLY=ok ;;
	snmp) RPC_REPLY="FragCreates=$(nf_snmp FragCreates) ReasmReqds=$(nf_snmp ReasmReqds)" ;;
	mtu) # mtu N: the domain's vifs and xenbr0
		RPC_REPLY=
		for _v in /sys/class/net/vif"$_dom".*; do
			[ -e "$_v" ] || continue
			ip link set dev "${_v##*/}" mtu "$1" || RPC_REPLY="error mtu $1 on ${_v##*/}"
		done
		ip link set dev xenbr0 mtu "$1" || RPC_REPLY="error mtu $1 on xenbr0"
		[ -n "$RPC_REPLY" ] || RPC_REPLY="ok $(for _v in /sys/class/net/vif"$_dom".* /sys/class/net/xenbr0; do
			printf '%s=%s ' "${_v##*/}" "$(cat "$_v/mtu" 2>/dev/null)"; done)" ;;
	net-detach) # net-detach DEVID: waits for the frontend to close
		_t=$(up)
		if timeout 90 xl network-detach "$_dom" "$1" >/run/xps/nf-detach.log 2>&1; then
			RPC_REPLY="ok ${_t:+$(since "$_t")s}"
		else
			RPC_REPLY="error rc=$? $(tr '\n' ' ' </run/xps/nf-detach.log | cut -c1-200)"
		fi ;;
	net-attach) # net-attach MAC
		_t=$(up)
		if timeout 90 xl network-attach "$_dom" "mac=$1" bridge=xenbr0 >/run/xps/nf-attach.log 2>&1; then
			RPC_REPLY="ok ${_t:+$(since "$_t")s} $(xl network-list "$_dom" 2>/dev/null | awk 'NR > 1 { printf "devid=%s state=%s ", $1, $5 }')"
		else
			RPC_REPLY="error rc=$? $(tr '\n' ' ' </run/xps/nf-attach.log | cut -c1-200)"
		fi ;;
	save-restore)
		_name=$(xl domname "$_dom")
		rm -f /run/xps/nf-move.log
		touch "/run/xps/$_name.busy"
		nf_move "$_name" "$_dom" "$RPC_SEQ" 2>/dev/null &
		RPC_REPLY=ok ;;
	move-log)
		RPC_REPLY=$(tr '\n' ' ' </run/xps/nf-move.log 2>/dev/null | cut -c1-300)
		[ -n "$RPC_REPLY" ] || RPC_REPLY=pending ;;
	nb-stats) RPC_REPLY=$(nb_vif_stats "$_dom") ;;
	peer-nb-stats) RPC_REPLY=$(nb_vif_stats "$(xl domid nf2 2>/dev/null)") ;; # nf2's
	# nb-lock: the vif backend lock, for the reload (which gives it
	# back): hostile-nb attaches vifs in the same boot
	nb-lock)
		if vif_lock "$NF_SCN nb-reload" 240; then RPC_REPLY=ok
		else RPC_REPLY="error the vif backend lock still held by $(vif_locker) after 240 s"; fi ;;
	nb-reload) nb_reload; vif_unlock ;;
	nb-hash) nb_hash "$_dom" ;;
	*) RPC_REPLY="error reason=unknown-request" ;;
	esac
}

# nb_hash DOMID: the hash settings of the domain's first vif as its
# backend holds them (its debugfs, either backend), as
# "alg=<name> key=<hex> map=<queue>:<entries>,...".  The stock netback's
# ctrl file prints "Hash Algorithm: TOEPLITZ", the key as rows of hex
# octets after "Hash Key:" and the table as rows after "Hash Mapping:".
nb_hash() {
	_hf=/sys/kernel/debug/xen-netback-pgnt/vif$1.0/hash
	if [ -r "$_hf" ]; then
		RPC_REPLY=$(awk '$1 == "algorithm" { a = $2 } $1 == "key" { k = $2 }
			$1 == "mapping" { for (i = 2; i <= NF; i++) n[$i]++ }
			END { m = ""; for (q in n) m = m (m == "" ? "" : ",") q ":" n[q]
				printf "alg=%s key=%s map=%s", a, k, m }' "$_hf")
		return
	fi
	_hf=/sys/kernel/debug/xen-netback/vif$1.0/ctrl
	if [ -r "$_hf" ]; then
		RPC_REPLY=$(awk '/^Hash Algorithm:/ { a = tolower($3) }
			/^Hash Key:/ { s = "k"; next } /^Hash Mapping:/ { s = "m"; next }
			/^$/ { s = ""; next }
			s == "k" { sub(/^\[[^]]*\]: */, ""); gsub(/ /, ""); k = k $0 }
			s == "m" { sub(/^\[[^]]*\]: */, ""); for (i = 1; i <= NF; i++) n[$i]++ }
			END { m = ""; for (q in n) m = m (m == "" ? "" : ",") q ":" n[q]
				printf "alg=%s key=%s map=%s", a, k, m }' "$_hf")
		return
	fi
	RPC_REPLY="none: no $_hf"
}

# Unbind every vif from xen-netback-pgnt, reload it, bridge the new vifs.
nb_reload() {
	_t=$(up)
	_d0=$(dmesg | grep -cE '(^|[^A-Za-z_])(BUG|WARNING|Oops)([^A-Za-z_]|$)|Call Trace|leaking|still in use')
	for _b in /sys/bus/xen-backend/drivers/vif-pgnt/vif-*; do
		[ -e "$_b" ] && echo "${_b##*/}" >/sys/bus/xen-backend/drivers/vif-pgnt/unbind
	done
	if ! rmmod xen_netback_pgnt 2>/run/xps/nb-rmmod.log; then
		RPC_REPLY="error rmmod: $(tr '\n' ' ' </run/xps/nb-rmmod.log | cut -c1-150)"
		modprobe xen-netback-pgnt
		return
	fi
	_m=$(nf_dt "$_t")
	# shellcheck disable=SC2086 # word splitting intended: parameters
	modprobe xen-netback-pgnt ${XPS_SCN_NB_PARAMS:-} || { RPC_REPLY="error modprobe"; return; }
	sleep 2
	# what vif-bridge does when udev runs it for the new vif (libxl ran
	# it only at the device's creation): bridge it, report connected
	_n=0
	for _v in /sys/class/net/vif*; do
		[ -e "$_v" ] || continue
		_vn=${_v##*/} _vd=${_vn#vif}
		ip link set dev "$_vn" master xenbr0 && ip link set dev "$_vn" up &&
			xenstore-write "/local/domain/0/backend/vif/${_vd%.*}/${_vd#*.}/hotplug-status" connected &&
			_n=$((_n + 1))
	done
	_d1=$(dmesg | grep -cE '(^|[^A-Za-z_])(BUG|WARNING|Oops)([^A-Za-z_]|$)|Call Trace|leaking|still in use')
	RPC_REPLY="ok rmmod ${_m}s, $_n vif(s) bridged again, $((_d1 - _d0)) trouble line(s)"
}

# ---- domU side ---------------------------------------------------------------

nf_done() { echo "$1" >>/tmp/nf.done; }
nf_step() { # nf_step NAME PASS|FAIL DETAIL: report once
	result "$NF_SCN/$1" "$2" "$3"; nf_done "$1"
}
# nf_fail_rest WHY [nf2]: every step not reported yet FAIL with WHY: nf's,
# or with nf2, nf2's own (NF_PEER_STEPS)
nf_fail_rest() {
	for _s in $netfront_steps; do
		case "$_s" in
		cpu-selfcheck) continue ;;
		nf2-*) [ "${2:-}" = nf2 ] || continue ;;
		*) [ "${2:-}" != nf2 ] || continue ;;
		esac
		grep -q "^$_s\$" /tmp/nf.done 2>/dev/null || nf_step "$_s" FAIL "$1"
	done
}
# nf_dt T0: seconds since T0 (an uptime), one decimal
nf_dt() { awk -v a="$1" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }'; }
# nf_rate BYTES SECS: MB/s
nf_rate() { awk -v b="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.1f", b / 1048576 / s; else print "-" }'; }

nf_vif() { for _d in /sys/bus/xen/devices/vif-*; do [ -e "$_d" ] && { echo "${_d##*/}"; return 0; }; done; return 1; }
# nf_if: the network interface of the (first) vif
nf_if() { for _d in /sys/bus/xen/devices/vif-*/net/*; do [ -e "$_d" ] && { echo "${_d##*/}"; return 0; }; done; return 1; }
# nf_mod VIF: the module of the driver VIF is bound to
nf_mod() { basename "$(readlink "/sys/bus/xen/devices/$1/driver/module" 2>/dev/null)"; }
nf_drv() { basename "$(readlink "/sys/bus/xen/devices/$1/driver" 2>/dev/null)"; }

# nf_built: ours is in the guest's updates/xen-pv-suite (stock always is)
nf_built() {
	[ "$NF_DRIVER" = stock ] || [ -f "/lib/modules/$(uname -r)/updates/xen-pv-suite/$NF_MOD.ko" ]
}
nf_load() { modprobe "$NF_MOD" "$@" && wait_for 30 nf_if >/dev/null; }

# nf_up: the interface configured with $IP, dom0 answering (30 s)
nf_up() {
	_if=$(nf_if) || return 1
	ip link set lo up
	ip addr add "$IP/24" dev "$_if" 2>/dev/null
	ip link set "$_if" up && wait_for 30 ping -c1 -W1 $NF_DOM0 >/dev/null 2>&1
}

# nf_unbind_all: every vif unbound from its driver (the interfaces go)
nf_unbind_all() {
	for _d in /sys/bus/xen/devices/vif-*; do
		[ -e "$_d/driver" ] && echo "${_d##*/}" >"$_d/driver/unbind"
	done
	wait_for 30 sh -c '! ls /sys/bus/xen/devices/vif-*/net/* >/dev/null 2>&1'
}
# nf_unload: xenbus holds a module reference for every bound device:
# unbind them all (under traffic, the teardown happens here), then rmmod.
# Sets _how to what it did.
nf_unload() {
	_how="unbind+rmmod"
	: >/tmp/nf-rmmod.log
	nf_unbind_all || { _how="unbind (interfaces still there after 30 s)"; return 1; }
	rmmod "$NF_MOD" 2>/tmp/nf-rmmod.log
}

# nf_ping DEST ARGS...: busybox ping; prints "sent/received loss avg-rtt",
# fails unless every ping was answered
nf_ping() {
	_pd=$1; shift
	ping "$@" "$_pd" >/tmp/nf-ping.log 2>&1
	_pt=$(sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) packets received.*/\1 \2/p' /tmp/nf-ping.log)
	_pa=$(sed -n 's|^round-trip min/avg/max = [0-9.]*/\([0-9.]*\)/.*|\1|p' /tmp/nf-ping.log)
	set -- $_pt
	echo "${1:-?}/${2:-?} answered, avg ${_pa:-?} ms"
	[ -n "${1:-}" ] && [ "$1" -gt 0 ] && [ "$1" = "${2:-}" ]
}

# nf_iperf TAG PORT SECS ARGS...: iperf3 to dom0; prints "<amount> at
# <bitrate>" of the receiver, fails unless it ran and moved data
nf_iperf() {
	_it=$1 _ip=$2 _is=$3; shift 3
	iperf3 -c $NF_DOM0 -p "$_ip" -t "$_is" --connect-timeout 10000 "$@" >"/tmp/nf-iperf-$_it.log" 2>&1
	_irc=$?
	# "[  5]   0.00-4.00   sec  5.12 MBytes  10.7 Mbits/sec      receiver"
	_iv=$(awk '/receiver$/ { a = $(NF-4); u = $(NF-3); r = $(NF-2) " " $(NF-1) } END { if (u != "") print a, u, r }' "/tmp/nf-iperf-$_it.log")
	# shellcheck disable=SC2086 # word splitting intended: the fields
	set -- $_iv
	if [ $_irc = 0 ] && [ -n "${1:-}" ] && [ "$(awk -v a="$1" 'BEGIN { print (a > 0) }')" = 1 ]; then
		echo "$1 $2 at $3 $4"
		return 0
	fi
	echo "rc=$_irc ${_iv:-no summary}: $(grep -iE 'error|refused|unable' "/tmp/nf-iperf-$_it.log" | head -n 2 | tr '\n' ' ' | cut -c1-160)"
	return 1
}

# nf_udp ARGS...: iperf3 -u at 4 Mbit/s for 3 s; prints the receiver's
# rate, lost/total (pct) and jitter; fails unless datagrams arrived
nf_udp() {
	iperf3 -c $NF_DOM0 -p $NF_IPERF -u -b 4M -t 3 --connect-timeout 10000 "$@" >/tmp/nf-udp.log 2>&1
	_urc=$?
	# "... 3.58 MBytes  9.87 Mbits/sec  0.123 ms  0/2589 (0%)  receiver"
	_uv=$(awk '/receiver$/ { print $(NF-6), $(NF-5), $(NF-2), $(NF-1), $(NF-4), $(NF-3) }' /tmp/nf-udp.log | tail -n 1)
	# shellcheck disable=SC2086 # word splitting intended: the fields
	set -- $_uv
	_ulost=${3%/*} _utot=${3#*/}
	if [ $_urc = 0 ] && [ -n "${3:-}" ] && [ "$_utot" -gt "$_ulost" ] 2>/dev/null; then
		echo "$1 $2, lost $3 $4, jitter $5 $6"
		return 0
	fi
	echo "rc=$_urc ${_uv:-no summary}: $(grep -iE 'error|refused|unable' /tmp/nf-udp.log | head -n 2 | tr '\n' ' ' | cut -c1-160)"
	return 1
}

# nf_send HOST PORT MB [RETRY_SECS]: MB MB of fresh random data to HOST's
# sink, which answers its sha256 and size; prints the figures, fails on
# any difference (2: the size was right, the sha256 not: corrupted).
# RETRY_SECS: keep trying to connect that long.
nf_send() {
	_sh=$1 _sp=$2 _smb=$3 _sr=${4:-0}
	dd if=/dev/urandom of=/tmp/nf-tx bs=1M count="$_smb" iflag=fullblock 2>/dev/null ||
		{ echo "no random file"; return 1; }
	_ssum=$(sha256sum </tmp/nf-tx | cut -c1-64)
	_st0=$(up)
	while :; do
		rm -f /tmp/nf-tx.ans
		_st=$(up)
		# (not on stdout: its sleep would hold $(...) open)
		nf_stallwatch "$_sh" "$_st" >&2 &
		_swp=$!
		NF_XMB=$_smb timeout 300 nc "$_sh" "$_sp" -e /tmp/nf-put 2>/dev/null
		kill "$_swp" 2>/dev/null; wait "$_swp" 2>/dev/null
		[ ! -s /tmp/nf-tx.ans ] && [ "$(since "$_st0")" -lt "$_sr" ] || break
		sleep 2
	done
	_sdt=$(nf_dt "$_st")
	_sans=$(cat /tmp/nf-tx.ans 2>/dev/null)
	rm -f /tmp/nf-tx /tmp/nf-tx.ans
	# shellcheck disable=SC2086 # word splitting intended: "<sha256> <bytes>"
	set -- $_sans
	if [ "${1:-}" = "$_ssum" ] && [ "${2:-}" = $((_smb * 1048576)) ]; then
		echo "${_smb}MB ->$_sh:$_sp ${_sdt}s ($(nf_rate "$2" "$_sdt") MB/s) sha256 equal ${_ssum%"${_ssum#????????????}"}"
		return 0
	fi
	echo "${_smb}MB ->$_sh:$_sp after ${_sdt}s: sent sha256 ${_ssum%"${_ssum#????????????}"}, the sink answered '${_sans:-nothing}'"
	# 2: all the bytes arrived, not the ones sent
	[ "${2:-}" != $((_smb * 1048576)) ] || return 2
	return 1
}

# nf_stallwatch HOST START: for a transfer to HOST begun at START (up)
# that should take seconds: from 60 s on, every 60 s, the TCP state of
# the connections to HOST and the interface's nonzero counters, so a
# stall says where it stuck (CI 2026-12-05: an nb-reload transfer sat
# for 300 s with nothing answered and nothing else on record)
nf_stallwatch() {
	sleep 60
	while :; do
		echo "xps: transfer to $1 still running after $(since "$2")s: $(ss -tinH dst "$1" 2>/dev/null | tr -s ' \t\n' ' ' | cut -c1-500); $(nf_if) $(ethtool -S "$(nf_if)" 2>/dev/null | awk -F': *' 'NR > 1 && $2 != 0 { gsub(/ /, "", $1); printf "%s=%s ", $1, $2 }' | cut -c1-400)"
		sleep 60
	done
}

# nf_recv HOST PORT MB [RETRY_SECS]: MB MB of fresh random data from HOST's
# source; its sha256 and size compared with what it announced (fails
# 2 when the size was right and the sha256 not)
nf_recv() {
	_rh=$1 _rp=$2 _rmb=$3 _rr=${4:-0}
	_rt0=$(up)
	while :; do
		rm -f /tmp/nf-rx.hdr; : >/tmp/nf-rx
		_rt=$(up)
		NF_XMB=$_rmb timeout 300 nc "$_rh" "$_rp" -e /tmp/nf-get 2>/dev/null
		[ ! -s /tmp/nf-rx.hdr ] && [ "$(since "$_rt0")" -lt "$_rr" ] || break
		sleep 2
	done
	_rdt=$(nf_dt "$_rt")
	_rhdr=$(cat /tmp/nf-rx.hdr 2>/dev/null)
	_rsum=$(sha256sum </tmp/nf-rx | cut -c1-64)
	_rn=$(($(wc -c </tmp/nf-rx)))
	rm -f /tmp/nf-rx /tmp/nf-rx.hdr
	# shellcheck disable=SC2086 # word splitting intended: "<sha256> <bytes>"
	set -- $_rhdr
	if [ -n "${1:-}" ] && [ "$1" = "$_rsum" ] && [ "${2:-}" = "$_rn" ] && [ "$_rn" = $((_rmb * 1048576)) ]; then
		echo "${_rmb}MB <-$_rh:$_rp ${_rdt}s ($(nf_rate "$_rn" "$_rdt") MB/s) sha256 equal ${_rsum%"${_rsum#????????????}"}"
		return 0
	fi
	echo "${_rmb}MB <-$_rh:$_rp after ${_rdt}s: announced '${_rhdr:-nothing}', received $_rn bytes sha256 ${_rsum%"${_rsum#????????????}"}"
	# 2: as many bytes as announced, not the ones sent
	[ -z "${1:-}" ] || [ "${2:-}" != "$_rn" ] || [ "$_rn" != $((_rmb * 1048576)) ] || return 2
	return 1
}

# nf_both STEP MB PREFIX: MB each way with dom0, step PASS or FAIL with PREFIX
nf_both() {
	_bo='' _bo2=
	if _bo=$(nf_send $NF_DOM0 $NF_SINK "$2") && _bo2=$(nf_recv $NF_DOM0 $NF_SOURCE "$2"); then
		nf_step "$1" PASS "$3; $_bo; $_bo2"
	else
		nf_step "$1" FAIL "$3; $_bo; ${_bo2:-}"
	fi
}

# nf_bg_iperf PORT SECS TAG: iperf3 to dom0 in the background; its pid in _bgp
nf_bg_iperf() {
	iperf3 -c $NF_DOM0 -p "$1" -t "$2" --connect-timeout 10000 >"/tmp/nf-iperf-$3.log" 2>&1 &
	_bgp=$!
}
# nf_bg_end TAG SECS: wait up to SECS for it, then kill it; its outcome
# (never judged) in _bgo.  Not in $(...): a subshell cannot wait for it.
nf_bg_end() {
	if wait_for "$2" sh -c "! kill -0 $_bgp 2>/dev/null"; then
		wait "$_bgp"; _bgrc=$?
	else
		kill -9 "$_bgp" 2>/dev/null; wait "$_bgp" 2>/dev/null; _bgrc=killed
	fi
	_bgr=$(awk '/receiver$/ { print $(NF-4) $(NF-3), "at", $(NF-2) $(NF-1) }' "/tmp/nf-iperf-$1.log" | tail -n 1)
	_bgo="iperf3 rc=$_bgrc ${_bgr:-$(grep -iE 'error|unable|interrupt' "/tmp/nf-iperf-$1.log" | head -n 1 | cut -c1-100)}"
}

# nf_queues: step queues
nf_queues() {
	_qv=$(nf_vif) _qif=$(nf_if)
	_qn=$(cat "/sys/bus/xen/devices/$_qv/nodename" 2>/dev/null)
	_qbe=$(xenstore-read "$_qn/backend" 2>/dev/null)
	# netfront writes multi-queue-num-queues only for more than one queue
	_qnum=$(xenstore-read "$_qn/multi-queue-num-queues" 2>/dev/null) || _qnum=1
	_qbmax=$(xenstore-read "$_qbe/multi-queue-max-queues" 2>/dev/null) || _qbmax=1
	_qdmax=$(cat "/sys/module/$NF_KMOD/parameters/max_queues" 2>/dev/null)
	_qcpu=$(nproc)
	_qwant=$_qcpu
	[ "$_qbmax" -ge "$_qwant" ] || _qwant=$_qbmax
	# (ours: max_queues=0 means 1; stock turns 0 into its default at load)
	[ "$_qdmax" != 0 ] || _qdmax=1
	[ -z "$_qdmax" ] || [ "$_qdmax" -ge "$_qwant" ] || _qwant=$_qdmax
	_qtx=$(($(ls -d /sys/class/net/"$_qif"/queues/tx-* 2>/dev/null | wc -l)))
	_qrx=$(($(ls -d /sys/class/net/"$_qif"/queues/rx-* 2>/dev/null | wc -l)))
	# 4 flows each way, then the interrupts of each queue's event channels
	_qo=$(nf_iperf queues $NF_IPERF 3 -P 4) _qo2=$(nf_iperf queues-r $NF_IPERF 3 -P 4 -R)
	# stock: vif0-q0-tx/-rx (split channels); ours: vif-0-q0 (one per queue)
	_qirq=$(awk '$NF ~ /-q[0-9]+(-(tx|rx))?$/ { n = 0; for (i = 2; i < NF; i++) if ($i ~ /^[0-9]+$/) n += $i; printf "%s=%d ", $NF, n }' /proc/interrupts)
	# the backend offers split channels: each queue gets a tx and an rx
	# one (stock netback does; so must both frontends take them)
	_qsp=$(xenstore-read "$_qbe/feature-split-event-channels" 2>/dev/null) || _qsp=0
	_qch=$(nf_evtchns "$_qirq")
	if [ "$_qsp" = 1 ]; then _qchw="$_qnum $_qnum 0"; else _qchw="0 0 $_qnum"; fi
	_qd="$_qn: multi-queue-num-queues=$_qnum (vCPUs $_qcpu, backend max $_qbmax, max_queues ${_qdmax:-?}); sysfs tx=$_qtx rx=$_qrx; backend feature-split-event-channels=$_qsp, event channels tx/rx/both $_qch; irqs after -P 4 each way: ${_qirq:-none}; tx $_qo; rx $_qo2"
	if [ "$_qnum" = "$_qwant" ] && [ "$_qtx" = "$_qnum" ] && [ "$_qwant" -ge 2 ] && [ "$_qch" = "$_qchw" ]; then
		nf_step queues PASS "$_qd"
	else
		nf_step queues FAIL "want $_qwant queue(s), at least 2, event channels tx/rx/both $_qchw: $_qd"
	fi
}

# nf_rxirqs: each queue's rx interrupts so far, "q0=N q1=N" (the rx
# channel when split, else the queue's only one)
nf_rxirqs() {
	awk '$NF ~ /-q[0-9]+(-rx)?$/ { n = 0; for (i = 2; i < NF; i++) if ($i ~ /^[0-9]+$/) n += $i
		q = $NF; sub(/-rx$/, "", q); sub(/.*-/, "", q); printf "%s=%d ", q, n }' /proc/interrupts
}

# nf_steer_run WEIGHTS...: ethtool -X weight, then 4 flows dom0->domU;
# sets _sw (what happened) and _sq0/_sq1 (rx interrupts on q0/q1)
nf_steer_run() {
	_sif=$(nf_if)
	_st=$(up)
	if ! _sx=$(ethtool -X "$_sif" hkey "$NF_RSS_KEY" weight "$@" 2>&1); then
		_sw="ethtool -X weight $*: $(echo "$_sx" | tr '\n' ' ' | cut -c1-120)" _sq0=x _sq1=x
		return 1
	fi
	# its seven control messages, each answered at once by both
	# backends: seconds, not the 5 s per message of a missed event
	_sxt=$(nf_dt "$_st")
	_sb=$(nf_rxirqs)
	_so=$(nf_iperf steer $NF_IPERF 3 -P 4 -R)
	_sa=$(nf_rxirqs)
	_sq0=$(nb_delta "$_sb" "$_sa" q0) _sq1=$(nb_delta "$_sb" "$_sa" q1)
	_sh=$(rpc nb-hash)
	_sw="weight $*: ethtool -X ${_sxt}s, rx irqs q0 +$_sq0 q1 +$_sq1 ($_so); backend: $_sh"
	awk -v t="$_sxt" 'BEGIN { exit !(t < 10) }'
}

# nf_steer: step steer (ours).  The chosen queue's rx interrupts must
# rise by at least 10, the other's by at most 3: under load NAPI takes
# many packets per interrupt (nf2's transfers beside it: +18 for 8 MB)
nf_steer() {
	_sif=$(nf_if)
	_sx=$(ethtool -x "$_sif" 2>&1)
	_sk=$(echo "$_sx" | awk 'f { print; exit } /^RSS hash key:/ { f = 1 }' | tr -d ':')
	_sn=$(echo "$_sx" | awk '/^ *[0-9]+:/ { n += NF - 1 } END { print n + 0 }')
	_sd="ethtool -x: key ${#_sk} hex digits, $_sn table entries, $(echo "$_sx" | grep -c 'toeplitz: on') toeplitz"
	_sh0=$(ethtool -S "$_sif" 2>/dev/null | awk '$1 == "rx_hash_packets:" { print $2 }')
	_sm0=$(dmesg | grep -c 'receive steering: Toeplitz')
	_sr0=$(ethtool -S "$_sif" 2>/dev/null | awk '$1 == "ctrl_requests:" { print $2 }')
	_sok=yes
	[ "${#_sk}" = 80 ] && [ "$_sn" = 128 ] || _sok=no
	_skey=$(echo "$NF_RSS_KEY" | tr -d ':')
	nf_steer_run 0 1 || _sok=no
	_sd="$_sd; $_sw"
	case "$_sw" in *"alg=toeplitz key=$_skey map=1:128"*) ;; *) _sok=no ;; esac
	[ "$_sq0" != x ] && [ "$_sq0" -le 3 ] && [ "$_sq1" -ge 10 ] || _sok=no
	nf_steer_run 1 0 || _sok=no
	_sd="$_sd; $_sw"
	case "$_sw" in *"alg=toeplitz key=$_skey map=0:128"*) ;; *) _sok=no ;; esac
	[ "$_sq1" != x ] && [ "$_sq1" -le 3 ] && [ "$_sq0" -ge 10 ] || _sok=no
	_sh1=$(ethtool -S "$_sif" 2>/dev/null | awk '$1 == "rx_hash_packets:" { print $2 }')
	_sm1=$(dmesg | grep -c 'receive steering: Toeplitz')
	# the stats step counts the negotiation's requests, not these
	NF_STEER_REQS=$(($(ethtool -S "$_sif" 2>/dev/null | awk '$1 == "ctrl_requests:" { print $2 }') - ${_sr0:-0}))
	_sd="$_sd; $NF_STEER_REQS control requests; rx_hash_packets ${_sh0:-?} -> ${_sh1:-?}; dmesg 'receive steering: Toeplitz' +$((_sm1 - _sm0)) $(dmesg | grep 'receive steering' | tail -n 1 | cut -c1-120)"
	[ "${_sh1:-0}" -gt "${_sh0:-0}" ] && [ $((_sm1 - _sm0)) -ge 2 ] || _sok=no
	if [ $_sok = yes ]; then
		nf_step steer PASS "$_sd"
	else
		nf_step steer FAIL "want a 40-octet key and 128 entries, ethtool -X within 10 s, the backend holding key and table, the chosen queue's rx interrupts up by >= 10, the other's by <= 3, hashed packets: $_sd"
	fi
}

# nf_evtchns "NAME=COUNT ...": how many of the queues' irqs are tx, rx
# and shared ones ("<tx> <rx> <both>")
nf_evtchns() {
	echo "$1" | tr ' ' '\n' | awk '/-q[0-9]+-tx=/ { t++; next } /-q[0-9]+-rx=/ { r++; next }
		/-q[0-9]+=/ { b++ } END { print t + 0, r + 0, b + 0 }'
}

# nf_stats: step stats (ours: ethtool -S and -l after the bulk steps)
nf_stats() {
	_sif=$(nf_if)
	_ss=$(ethtool -S "$_sif" 2>&1) _sl=$(ethtool -l "$_sif" 2>&1)
	if [ "$NF_DRIVER" = stock ]; then
		nf_step stats PASS "stock: $(echo "$_ss" | grep -c ':') ethtool -S lines (not judged)"
		return
	fi
	_sv() { echo "$_ss" | awk -v k="$1:" '$1 == k { print $2 }'; }
	_stx=$(_sv tx_copied_bytes) _srx=$(_sv rx_copied_bytes)
	_spe=$(_sv protocol_errors) _scr=$(_sv ctrl_requests)
	_spg=$(_sv persistent_grants) _sq=$(_sv queues) _sgr=$(_sv pool_grants)
	_scomb=$(echo "$_sl" | awk '/Current hardware settings/ { c = 1 } c && /^Combined:/ { print $2; exit }')
	_sd="tx_copied_bytes=$_stx rx_copied_bytes=$_srx protocol_errors=$_spe ctrl_requests=$_scr persistent_grants=$_spg queues=$_sq pool_grants=$_sgr; ethtool -l combined=$_scomb"
	# 32 MB each way went through the slots (sha256), more with iperf3;
	# one control request (GET_GREF_MAPPING_SIZE, NOT_SUPPORTED), no
	# mapping; 2 queues x (tx + rx pool) x 256 slots granted once
	# ours: GET + ADD per queue, and all of them mapped
	_wcr=1 _wpg=0
	[ "$NB_DRIVER" = stock ] || _wcr=4 _wpg=1024
	_wcr=$((_wcr + ${NF_STEER_REQS:-0}))
	if [ "${_stx:-0}" -ge 33554432 ] && [ "${_srx:-0}" -ge 33554432 ] &&
	   [ "$_spe" = 0 ] && [ "$_scr" = $_wcr ] && [ "$_spg" = $_wpg ] &&
	   [ "$_sq" = 2 ] && [ "$_scomb" = 2 ] && [ "$_sgr" = 1024 ]; then
		nf_step stats PASS "$_sd"
	else
		nf_step stats FAIL "want >= 32 MB copied each way, 0 protocol errors, $_wcr control request(s), $_wpg persistent, 2 queues, 1024 pool grants: $_sd $(echo "$_ss" | head -n 3 | tr '\n' ' ')"
	fi
}

# nf_mtu_lock: xenbr0's MTU and IP fragments through it are this
# domain's until nf_mtu_unlock (dom0's mtu-lock; nf and nf2 take turns);
# waits up to 300 s, prints the holder when it gives up
nf_mtu_lock() {
	_lkt=$(up)
	while :; do
		_lkr=$(rpc mtu-lock)
		[ "$_lkr" = ok ] && return 0
		[ "$(since "$_lkt")" -lt 300 ] || { echo "dom0's mtu-lock after 300 s: $_lkr"; return 1; }
		sleep 2
	done
}
nf_mtu_unlock() { rpc mtu-unlock >/dev/null; }

# nf_mtu9000 [STEP]: step mtu9000 (or STEP).  The domU's own fragment
# counters are judged; dom0's are reported: they count every domU's
# traffic (the lock keeps the others' fragments away, but not their
# reassembly timeouts)
nf_mtu9000() {
	_mst=${1:-mtu9000}
	_mif=$(nf_if)
	if ! _mlk=$(nf_mtu_lock); then nf_step "$_mst" FAIL "$_mlk"; return; fi
	_mr=$(rpc mtu 9000)
	case "$_mr" in ok*) ;; *) nf_step "$_mst" FAIL "dom0: $_mr"; rpc mtu 1500 >/dev/null; nf_mtu_unlock; return ;; esac
	if ! ip link set "$_mif" mtu 9000; then
		nf_step "$_mst" FAIL "ip link set $_mif mtu 9000 refused; dom0 $_mr"; rpc mtu 1500 >/dev/null; nf_mtu_unlock; return
	fi
	_mfc=$(nf_snmp FragCreates) _mrr=$(nf_snmp ReasmReqds) _md0=$(rpc snmp)
	_mp=$(nf_ping $NF_DOM0 -c 5 -i 0.2 -W 5 -s 8900); _mpok=$?
	_mfc2=$(nf_snmp FragCreates) _mrr2=$(nf_snmp ReasmReqds) _md1=$(rpc snmp)
	_mo='' _mo2=
	_mok=
	if [ $_mpok = 0 ] && [ "$_mfc" = "$_mfc2" ] && [ "$_mrr" = "$_mrr2" ] &&
	   _mo=$(nf_send $NF_DOM0 $NF_SINK 16) && _mo2=$(nf_recv $NF_DOM0 $NF_SOURCE 16); then
		_mok=1
	fi
	_md="$_mif mtu $(cat "/sys/class/net/$_mif/mtu"), dom0 $_mr; ping -s 8900: $_mp; IP fragments: domU FragCreates $_mfc->$_mfc2 ReasmReqds $_mrr->$_mrr2, dom0 $_md0 -> $_md1; $_mo; ${_mo2:-}"
	ip link set "$_mif" mtu 1500
	_mr2=$(rpc mtu 1500)
	nf_mtu_unlock
	if [ -n "$_mok" ]; then nf_step "$_mst" PASS "$_md; back to 1500 ($_mr2)"
	else nf_step "$_mst" FAIL "want all answered, no fragments, data equal: $_md"; fi
}

# nf_traffic [PREFIX]: the steps ping, iperf3-tx, iperf3-rx, udp and
# sha256 with dom0 (named PREFIX<step>), on dom0's iperf3 port NF_IPERF
nf_traffic() {
	_tp=${1:-} _tif=$(nf_if)
	# fragmented pings: not while the other domain has xenbr0 at MTU 9000
	_to='' _to2='' _tlk=
	_tlk=$(nf_mtu_lock) || _tlk="; without the lock: $_tlk"
	if _to=$(nf_ping $NF_DOM0 -c 20 -i 0.2 -W 5) && _to2=$(nf_ping $NF_DOM0 -c 3 -i 0.5 -W 5 -s 8000); then
		nf_step "${_tp}ping" PASS "20 x 56 B: $_to; 3 x 8000 B: $_to2"
	else
		nf_step "${_tp}ping" FAIL "20 x 56 B: $_to; 3 x 8000 B: ${_to2:-not run}$_tlk"
	fi
	nf_mtu_unlock

	# iperf3 both ways, UDP both ways
	if _to=$(nf_iperf tx $NF_IPERF 4); then nf_step "${_tp}iperf3-tx" PASS "$IP->dom0 $_to"; else nf_step "${_tp}iperf3-tx" FAIL "$IP->dom0 $_to"; fi
	if _to=$(nf_iperf rx $NF_IPERF 4 -R); then nf_step "${_tp}iperf3-rx" PASS "dom0->$IP $_to"; else nf_step "${_tp}iperf3-rx" FAIL "dom0->$IP $_to"; fi
	_to='' _to2=
	if _to=$(nf_udp) && _to2=$(nf_udp -R); then
		nf_step "${_tp}udp" PASS "4 Mbit/s 3 s: $IP->dom0 $_to; dom0->$IP $_to2"
	else
		nf_step "${_tp}udp" FAIL "$IP->dom0 $_to; dom0->$IP ${_to2:-not run}"
	fi

	nf_both "${_tp}sha256" 32 "$_tif"
}

# nf_domu2domu: step domu2domu, nf with nf2 across xenbr0 (NF_PEER: the
# answer to peer-start)
nf_domu2domu() {
	_pip=$(nf_peer_ip) || { nf_step domu2domu FAIL "nf2 not created: $NF_PEER"; return; }
	if ! wait_for 180 ping -c1 -W1 "$_pip" >/dev/null 2>&1; then
		nf_step domu2domu FAIL "nf2 ($_pip) does not answer pings after 180 s"
		rpc peer-done >/dev/null
		return
	fi
	_po='' _po2=
	_pb0=$(rpc peer-nb-stats)
	if _po=$(nf_send "$_pip" $NF_PSINK 32 60) && _po2=$(nf_recv "$_pip" $NF_PSOURCE 32 60); then
		_pok=y
	else
		_pok=n
	fi
	_pb1=$(rpc peer-nb-stats)
	_ptg=$(nb_delta "$_pb0" "$_pb1" tx_gcopy_bytes) _prg=$(nb_delta "$_pb0" "$_pb1" rx_gcopy_bytes)
	_ptm=$(nb_delta "$_pb0" "$_pb1" tx_memcpy_bytes) _prm=$(nb_delta "$_pb0" "$_pb1" rx_memcpy_bytes)
	_pmap=$(nb_get "$_pb1" mapped_grants) _pflt=$(nb_get "$_pb1" faults)
	_pdet="nf $IP ($NF_DRIVER) <-> nf2 $_pip ($NF_PEER_DRIVER): $_po; ${_po2:-}; nf2's vif in dom0: tx grant-copied $_ptg B, rx grant-copied $_prg B, memcpy $_ptm/$_prm B, mapped_grants=$_pmap faults=$_pflt"
	# the stock netfront grants per packet: the backend copies it all
	if [ "$NF_PEER_DRIVER" = stock ] && { [ "$_ptg" -lt 33554432 ] || [ "$_prg" -lt 33554432 ] ||
	   [ "$_ptm" != 0 ] || [ "$_prm" != 0 ] || [ "$_pmap" != 0 ]; }; then
		_pok=n
	fi
	[ "$_pflt" = 0 ] || _pok=n
	if [ $_pok = y ]; then
		nf_step domu2domu PASS "$_pdet"
	else
		nf_step domu2domu FAIL "want 32 MB each way equal, nf2's vif (a stock netfront) all grant-copied, nothing mapped, no fault: $_pdet"
	fi
}

# nf_peer_wait: nf, until nf2 has reported its own steps (at most 600 s)
nf_peer_wait() {
	nf_peer_ip >/dev/null || return 0
	_pwt=$(up)
	while [ "$(since "$_pwt")" -lt 600 ] && [ "$(rpc peer-state)" = waiting ]; do
		sleep 3
	done
	echo "xps: nf: waited $(since "$_pwt")s for nf2's steps"
}

# nf_peer: nf2 (NF_PEER_DRIVER: the stock netfront by default): its own
# pairing with dom0's backend (NF_PEER_STEPS: bind, then nf_traffic and
# nf_mtu9000 as nf2-<step>, on its own iperf3 port), beside nf's steps;
# the far end of domu2domu and of nb-reload's last check, the sink and
# source served until nf is done with them (at most 1200 s)
nf_peer() {
	: >/tmp/nf.done
	_pok=no
	if ! nf_built || ! nf_load; then
		nf_step nf2-bind FAIL "$NF_MOD did not load or no interface: $(dmesg | grep -iE 'vif|netfront' | tail -n 2 | tr '\n' ' ')"
	else
		_pu=yes
		nf_up || _pu=no
		_pv=$(nf_vif)
		_pd="$_pv -> driver $(nf_drv "$_pv") (module $(nf_mod "$_pv")), $(nf_if) $IP/24 up, dom0's $NB_DRIVER backend answers: $_pu"
		if [ "$(nf_mod "$_pv")" = "$NF_KMOD" ] && [ $_pu = yes ]; then
			nf_step nf2-bind PASS "$_pd"
			_pok=yes
		else
			nf_step nf2-bind FAIL "want module $NF_KMOD, dom0 answering: $_pd"
		fi
	fi
	nf_helpers /tmp
	nc -ll -p $NF_PSINK -e /tmp/nf-sink </dev/null >/dev/null 2>&1 &
	_pp1=$!
	nc -ll -p $NF_PSOURCE -e /tmp/nf-source </dev/null >/dev/null 2>&1 &
	_pp2=$!
	echo "xps: nf2: $(nf_vif) bound to $(nf_mod "$(nf_vif)"), serving on $IP:$NF_PSINK and :$NF_PSOURCE"
	if [ $_pok = yes ]; then
		NF_IPERF=$NF_IPERF_PEER
		nf_traffic nf2-
		nf_mtu9000 nf2-mtu9000
	fi
	nf_fail_rest "no interface" nf2
	rpc peer-steps-done >/dev/null
	_pt=$(up)
	while [ "$(since "$_pt")" -lt 1200 ]; do
		[ "$(rpc peer-state)" = finished ] && break
		sleep 3
	done
	kill "$_pp1" "$_pp2" 2>/dev/null
	echo "xps: nf2: done after $(since "$_pt")s, served sink=$(test -e /tmp/nf-served-sink && echo yes || echo no) source=$(test -e /tmp/nf-served-source && echo yes || echo no)"
	nf_unbind_all; rmmod "$NF_MOD" || echo "xps: nf2: rmmod $NF_MOD failed"
}

netfront_domU() {
	if [ "$1" = nf2 ]; then nf_peer; return; fi
	: >/tmp/nf.done
	nf_main
	# nf2 waits for this (also when nf gave up early)
	rpc peer-done >/dev/null
	nf_fail_rest "not reached"
}

# nb_get COUNTERS NAME: a counter of an nb-stats reply (0 if absent)
nb_get() { echo " $1 " | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k { v = $2 } END { print v + 0 }'; }
# nb_delta BEFORE AFTER NAME: how much a counter grew between two replies
nb_delta() { echo $(($(nb_get "$2" "$3") - $(nb_get "$1" "$3"))); }
# nf_peer_ip: nf2's address from NF_PEER (the answer to peer-start:
# "ok 10.0.0.N ..."); fails when nf2 was not created
nf_peer_ip() {
	case "$NF_PEER" in
	ok\ 10.0.0.*) _npi=${NF_PEER#ok }; echo "${_npi%% *}" ;;
	*) return 1 ;;
	esac
}

# backend: what xen-netback-pgnt counted around 16 MB each way
nb_backend() {
	_b0=$(rpc nb-stats)
	_bo='' _bo2=
	_bo=$(nf_send $NF_DOM0 $NF_SINK 16) && _bo2=$(nf_recv $NF_DOM0 $NF_SOURCE 16)
	_brc=$?
	_b1=$(rpc nb-stats)
	_btm=$(nb_delta "$_b0" "$_b1" tx_memcpy_bytes) _btg=$(nb_delta "$_b0" "$_b1" tx_gcopy_bytes)
	_brm=$(nb_delta "$_b0" "$_b1" rx_memcpy_bytes) _brg=$(nb_delta "$_b0" "$_b1" rx_gcopy_bytes)
	_bops=$(nb_delta "$_b0" "$_b1" grant_copy_ops) _bmap=$(nb_get "$_b1" mapped_grants)
	_bflt=$(nb_get "$_b1" faults)
	_bdet="during 16 MB each way: tx memcpy $_btm B, tx grant-copied $_btg B, rx memcpy $_brm B, rx grant-copied $_brg B, $_bops grant copy ops; mapped_grants=$_bmap faults=$_bflt; $_bo; $_bo2"
	_bmb=16777216
	if [ "$NF_DRIVER" = stock ]; then
		# the stock netfront grants per packet: nothing to map
		_bok=$([ "$_btg" -ge $_bmb ] && [ "$_brg" -ge $_bmb ] && [ "$_btm" = 0 ] && [ "$_brm" = 0 ] && [ "$_bmap" = 0 ] && echo y)
	else
		_bok=$([ "$_btm" -ge $_bmb ] && [ "$_brm" -ge $_bmb ] && [ "$_btg" = 0 ] && [ "$_brg" = 0 ] && [ "$_bops" = 0 ] && [ "$_bmap" = 1024 ] && echo y)
	fi
	if [ "$_brc" = 0 ] && [ "$_bflt" = 0 ] && [ "$_bok" = y ]; then
		nf_step backend PASS "$_bdet"
	elif [ "$NF_DRIVER" = stock ]; then
		nf_step backend FAIL "want every byte grant-copied, none mapped, no fault: $_bdet"
	else
		nf_step backend FAIL "want every byte by memcpy from 1024 static grants, 0 grant copies, no fault: $_bdet"
	fi
}

# nb-reload: the backend module reloaded under a running iperf3
nb_reload_step() {
	_rb0=$(dmesg | grep -c 'persistent grants: the backend maps all')
	# no other scenario's vif attached while the module goes
	_rl=$(rpc nb-lock)
	if [ "$_rl" != ok ]; then
		nf_step nb-reload FAIL "dom0: $_rl"
		return
	fi
	nf_bg_iperf $NF_IPERF_RELOAD 15 nbreload
	sleep 3
	_rt=$(up)
	_rr=$(rpc nb-reload)
	if [ "${_rr%% *}" != ok ] || ! wait_for 60 ping -c1 -W1 $NF_DOM0 >/dev/null 2>&1; then
		nf_bg_end nbreload 1
		nf_step nb-reload FAIL "dom0: $_rr; dom0 answers: $(ping -c1 -W1 $NF_DOM0 >/dev/null 2>&1 && echo yes || echo no); $_bgo"
		return
	fi
	_rtb=$(nf_dt "$_rt")
	nf_bg_end nbreload 30
	_rpg=ok
	if [ "$NF_DRIVER" != stock ]; then
		wait_for 30 sh -c "[ \$(dmesg | grep -c 'persistent grants: the backend maps all') -gt $_rb0 ]" || _rpg=bad
		_rrb=$(dmesg | grep -c 'backend rebound')
	fi
	_rd="dom0: $_rr; dom0 answers ${_rtb}s after the request${_rrb:+; frontend: rebound $_rrb, mapped again: $_rpg}; $_bgo"
	case "$_rr" in *" 0 trouble line(s)"*) ;; *) _rpg=bad ;; esac
	# nf2 (the stock netfront) was served by the reloaded backend too
	_rpo=
	if ! _rpip=$(nf_peer_ip); then
		_rpo="nf2 not created: $NF_PEER"; _rpg=bad
	elif wait_for 60 ping -c1 -W1 "$_rpip" >/dev/null 2>&1 &&
	     _rpo=$(nf_send "$_rpip" $NF_PSINK 8 30) && _rpo2=$(nf_recv "$_rpip" $NF_PSOURCE 8 30); then
		_rpo="nf2 ($NF_PEER_DRIVER): $_rpo; $_rpo2"
	else
		_rpo="nf2 ($NF_PEER_DRIVER) $_rpip not served after the reload: ${_rpo:-no ping answer}"; _rpg=bad
	fi
	rpc peer-done >/dev/null
	_rd="$_rd; $_rpo"
	if [ $_rpg = ok ]; then
		nf_both nb-reload 16 "$_rd"
	else
		nf_step nb-reload FAIL "want no dom0 trouble line, ours: the static grants mapped again, nf2 served again: $_rd"
	fi
}

nf_main() {
	nf_helpers /tmp

	# bind
	if ! nf_built; then
		nf_step bind FAIL "module not built ($NF_MOD.ko missing from --modules)"
		nf_fail_rest "module not built"; return
	fi
	if ! nf_load; then
		nf_step bind FAIL "modprobe $NF_MOD or no interface within 30 s: $(dmesg | grep -iE 'vif|netfront' | tail -n 3 | tr '\n' ' ')"
		nf_fail_rest "no interface"; return
	fi
	vif=$(nf_vif) ifc=$(nf_if)
	mod=$(nf_mod "$vif") drv=$(nf_drv "$vif")
	stock=
	[ "$NF_DRIVER" = stock ] || ! lsmod | grep -q '^xen_netfront ' || stock=" (stock xen_netfront loaded too)"
	if ! nf_up; then
		nf_step bind FAIL "$vif -> $drv ($mod), $ifc: dom0 unreachable from $IP within 30 s"
		nf_fail_rest "no network"; return
	fi
	bd="$vif -> driver $drv (module $mod, $(modinfo -F filename "$NF_MOD" 2>/dev/null)), state $(cat "/sys/bus/xen/devices/$vif/state"); $ifc $(cat "/sys/class/net/$ifc/address") $IP/24 up, dom0 answers"
	# ours against the stock netback: the control ring is connected and
	# GET_GREF_MAPPING_SIZE answered NOT_SUPPORTED, so it maps per packet
	pg=ok
	if [ "$NF_DRIVER" != stock ]; then
		wait_for 30 sh -c 'dmesg | grep -q "per-packet grants\|persistent grants:"'
		pg=$(dmesg | grep -o 'per-packet grants: .*\|persistent grants: .*' | tail -n 1)
		bd="$bd; $pg"
		# stock netback: NOT_SUPPORTED; ours: every queue mapped
		case "$NB_DRIVER:$pg" in
		stock:*NOT_SUPPORTED*|ours:*"persistent grants: the backend maps all"*) pg=ok ;;
		*) pg=bad ;;
		esac
	fi
	if [ "$mod" = "$NF_KMOD" ] && [ -z "$stock" ] && [ $pg = ok ]; then
		nf_step bind PASS "$bd"
	else
		nf_step bind FAIL "want module $NF_KMOD (and, ours, NOT_SUPPORTED from a stock netback, every queue mapped by ours): $bd$stock"
	fi
	# nf2 boots, and runs its own steps, while the next steps run
	NF_PEER=$(rpc peer-start "$IP")
	echo "xps: nf: peer-start: $NF_PEER"
	nf_peer_ip >/dev/null || nf_fail_rest "nf2 not created: $NF_PEER" nf2

	nf_traffic
	[ "$NB_DRIVER" != ours ] || nb_backend
	nf_queues
	[ "$NF_DRIVER" = stock ] || nf_steer
	nf_stats
	[ "$NB_DRIVER" != ours ] || nf_domu2domu
	nf_mtu9000
	# nb-reload unbinds nf2's vif too: not before nf2's own steps are over
	[ "$NB_DRIVER" != ours ] || { nf_peer_wait; nb_reload_step; }

	# reload with iperf3 running
	nf_bg_iperf $NF_IPERF_RELOAD 15 reload
	sleep 3
	t=$(up)
	if ! nf_unload; then
		nf_bg_end reload 1
		nf_step reload FAIL "$_how failed: $(tr '\n' ' ' </tmp/nf-rmmod.log | cut -c1-120) refcnt $(cat /sys/module/$NF_KMOD/refcnt 2>/dev/null); $_bgo"
	else
		tu=$(nf_dt "$t")
		# back with one queue: the rest of the scenario runs on it
		# ours: with one event channel per queue too, so the rest of the
		# scenario runs the unsplit path
		if [ "$NF_DRIVER" = stock ]; then rargs=max_queues=1 rchw='?'; else rargs="max_queues=1 split_event_channels=0" rchw="0 0 1"; fi
		# shellcheck disable=SC2086 # word splitting intended: parameters
		if nf_load $rargs && nf_up; then
			tb=$(nf_dt "$t")
			nf_bg_end reload 30
			rq=$(($(ls -d /sys/class/net/"$(nf_if)"/queues/tx-* 2>/dev/null | wc -l)))
			rch=$(nf_evtchns "$(awk '$NF ~ /-q[0-9]+(-(tx|rx))?$/ { printf "%s=1 ", $NF }' /proc/interrupts)")
			[ "$rchw" != '?' ] || rchw=$rch
			rd="$_how ${tu}s, modprobe $rargs: $(nf_vif) -> $(nf_mod "$(nf_vif)"), $(nf_if) back with $rq tx queue(s), event channels tx/rx/both $rch, and dom0 answers ${tb}s after the rmmod; $_bgo"
			if [ "$(nf_mod "$(nf_vif)")" = "$NF_KMOD" ] && [ "$rq" = 1 ] && [ "$rch" = "$rchw" ]; then
				nf_both reload 16 "$rd"
			else
				nf_step reload FAIL "want module $NF_KMOD, 1 queue, event channels tx/rx/both $rchw: $rd"
			fi
		else
			nf_bg_end reload 1
			nf_step reload FAIL "$_how ${tu}s; modprobe: no interface or dom0 unreachable: $(dmesg | grep -iE 'vif|netfront' | tail -n 2 | tr '\n' ' '); $_bgo"
			nf_load >/dev/null 2>&1; nf_up
		fi
	fi

	# detach + attach from dom0, iperf3 running
	vif=$(nf_vif) ifc=$(nf_if)
	mac=$(cat "/sys/class/net/$ifc/address" 2>/dev/null)
	nf_bg_iperf $NF_IPERF_DETACH 15 detach
	sleep 3
	r=$(rpc net-detach "${vif#vif-}")
	gone=no
	wait_for 30 sh -c '! ls /sys/bus/xen/devices/vif-*/net/* >/dev/null 2>&1' && gone=yes
	nf_bg_end detach 5; bg=$_bgo
	r2=$(rpc net-attach "$mac")
	if [ "${r%% *}" = ok ] && [ $gone = yes ] && [ "${r2%% *}" = ok ] && wait_for 60 nf_if && nf_up; then
		v2=$(nf_vif)
		ad="network-detach $vif: $r, $ifc gone, $bg; network-attach: $r2: $v2 -> $(nf_mod "$v2"), $(nf_if) up"
		if [ "$(nf_mod "$v2")" = "$NF_KMOD" ]; then nf_both detach-attach 16 "$ad"
		else nf_step detach-attach FAIL "want module $NF_KMOD: $ad"; fi
	else
		nf_step detach-attach FAIL "network-detach $vif: $r, interface gone: $gone, $bg; network-attach $mac: $r2; interface: $(nf_if || echo none)"
		nf_if >/dev/null || { rpc net-attach "$mac" >/dev/null; wait_for 60 nf_if; }
		nf_up
	fi

	# xl save + xl restore with iperf3 running; ours: with steering set,
	# which the frontend must send again to the restored connection
	vif=$(nf_vif) ifc=$(nf_if)
	ss0=$(dmesg | grep -c 'receive steering: Toeplitz')
	[ "$NF_DRIVER" = stock ] || ethtool -X "$ifc" hkey "$NF_RSS_KEY" equal 1 >/dev/null 2>&1 || ss0=none
	nf_bg_iperf $NF_IPERF_SAVE 20 save
	sleep 3
	t=$(up) r=$(rpc save-restore) m=pending
	if [ "$r" = ok ]; then
		while [ "$(since "$t")" -lt 400 ]; do
			m=$(rpc move-log)
			case "$m" in pending|rpc-timeout|"") sleep 2 ;; *) break ;; esac
		done
	fi
	case "$m" in
	ok*)
		if wait_for 60 ping -c1 -W1 $NF_DOM0 >/dev/null 2>&1; then
			tb=$(nf_dt "$t")
			nf_bg_end save 30
			sd="$m; $vif -> $(nf_mod "$vif") state $(cat "/sys/bus/xen/devices/$vif/state"), dom0 answers ${tb}s after the request; $_bgo"
			ss=ok
			if [ "$NF_DRIVER" != stock ]; then
				sh2=
				[ "$ss0" = none ] || ! wait_for 30 sh -c "[ \$(dmesg | grep -c 'receive steering: Toeplitz') -gt $((ss0 + 1)) ]" ||
					sh2=$(rpc nb-hash)
				[ "$sh2" = "alg=toeplitz key=$(echo "$NF_RSS_KEY" | tr -d :) map=0:128" ] || ss=bad
				sd="$sd; steering (ethtool -X equal 1 before the save) sent again: ${sh2:-no dmesg line}"
			fi
			if [ $ss = ok ]; then nf_both save-restore 16 "$sd"
			else nf_step save-restore FAIL "want the steering sent again to the restored connection: $sd"; fi
		else
			nf_bg_end save 1
			nf_step save-restore FAIL "$m; dom0 unreachable 60 s after the restore ($vif state $(cat "/sys/bus/xen/devices/$vif/state" 2>/dev/null)); $_bgo"
		fi ;;
	*) nf_bg_end save 1; nf_step save-restore FAIL "rpc $r: $m; $_bgo" ;;
	esac

	# clean: the last unload, then the kernel log
	cn=$(cat "/sys/bus/xen/devices/$(nf_vif)/nodename" 2>/dev/null)
	nf_unload || _how="$_how failed: $(tr '\n' ' ' </tmp/nf-rmmod.log | cut -c1-120) refcnt $(cat /sys/module/$NF_KMOD/refcnt 2>/dev/null)"
	uh=$_how
	sleep 2
	bad=$(dmesg | grep -E '(^|[^A-Za-z_])(BUG|WARNING|Oops)([^A-Za-z_]|$)|Call Trace|general protection|soft lockup|hung task' | head -n 1)
	nbad=$(dmesg | grep -cE '(^|[^A-Za-z_])(BUG|WARNING|Oops)([^A-Za-z_]|$)|Call Trace|general protection|soft lockup|hung task')
	gnt=$(dmesg | grep -E 'g\.e\. .*(still in use|still pending)|leaking g\.e\.' | head -n 1)
	ngnt=$(dmesg | grep -cE 'g\.e\. .*(still in use|still pending)|leaking g\.e\.')
	pool=
	if [ -r /sys/kernel/debug/xen-grant-pool/stats ]; then
		wait_for 20 sh -c '[ "$(awk "\$1==\"grants_live\"{print \$2}" /sys/kernel/debug/xen-grant-pool/stats)" = 0 ] &&
		                   [ "$(awk "\$1==\"pages_live\"{print \$2}" /sys/kernel/debug/xen-grant-pool/stats)" = 0 ]' ||
			pool="xen-grant-pool: $(tr '\n' ' ' </sys/kernel/debug/xen-grant-pool/stats | cut -c1-160)"
	fi
	gone=yes
	lsmod | grep -q "^$NF_KMOD " && gone=no
	# a control ring left in xenstore would make netback fail the next
	# (stock) driver's connect: mapping a grant that is gone
	stale=
	for k in ctrl-ring-ref event-channel-ctrl; do
		xenstore-read "$cn/$k" >/dev/null 2>&1 && stale="$stale $k"
	done
	cd="$uh: module gone $gone; dmesg: $nbad kernel trouble line(s), $ngnt grant message(s)${pool:+; $pool}; $cn control ring keys left:${stale:- none}"
	if [ "$nbad" = 0 ] && [ "$ngnt" = 0 ] && [ -z "$pool" ] && [ $gone = yes ] &&
	   [ -n "$cn" ] && [ -z "$stale" ]; then
		nf_step clean PASS "$cd"
	else
		nf_step clean FAIL "$cd; first: ${bad:-$gnt}"
	fi
}
