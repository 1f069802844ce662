# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034 # the scenario interface (<fn>_steps, _budget, _domus,
# RPC_REPLY, AN_*) is read by dom0-init, the judge and the helpers
# arm64-net - xen-netfront-pgnt against the stock arm64 xen-netback on
# guests of three page sizes, side by side (arm64 lab only: tests/lab/lab
# --arch arm64).  One domU per page size, each with one vif on xenbr0:
#   a4k   Debian's arm64 6.1 kernel (4 KB pages)
#   a16k  Debian's 6.12 arm64-16k kernel (16 KB pages)
#   a64k  6.1 with 64 KB pages (cross-built, lib/arm64-kernel.sh)
# The stock xen-netfront is kept out with module_blacklist=xen_netfront.
# Bulk data as in netfront.sh: busybox nc -e with dd at both ends, to a
# sink that answers "<sha256> <bytes>" of what it read, and from a source
# that sends "<sha256> <bytes>" and then that many fresh random bytes
# (netfront.sh's nf_helpers); dom0 serves them on 10.0.0.1, one port pair per page
# size (AN_PORT_<ps>: sink, +1: source).
# dom0 (arm64: busybox, no bash, no udev): xen-netback and bridge loaded
# here, and the vifs plugged into xenbr0 by a minimal hotplug script
# (script=xps-vif in the vif spec, written by the prepare step: Xen's
# vif-bridge is a bash script).  xenbr0 runs at MTU 9000 for the whole
# scenario (set by the user, the bridge keeps it whatever its ports have;
# the domUs at 1500 advertise their MSS) and goes back to 1500 at the end.
#
# Steps, for each PS of 4k 16k 64k (the step names carry it):
#   PS-load     the vif is bound to xen_netfront_pgnt (readlink of vif-0's
#               driver/module), the stock xen_netfront not loaded, the
#               page size is PS (KernelPageSize: the guests have no
#               getconf), the interface up with 10.0.0.<idx>, dom0
#               answers pings; the control ring's outcome against the
#               stock netback must be "per-packet grants: ..." in dmesg
#               (reported, with the driver's "connected:" line)
#   PS-sha256   AN_MB MB domU->dom0 and AN_MB MB dom0->domU, sha256 equal
#   PS-mtu      MTU 9000 on the domU's interface and its vif in dom0:
#               5 pings of 8900 bytes answered with no IP fragment created
#               or reassembled in the domU (/proc/net/snmp; dom0's
#               counters, shared by the three domUs, are reported), then
#               AN_MTU_MB MB each way verified: frames larger than one 4 KB
#               grant cut right on 16 and 64 KB pages; MTU 1500 again after
#   PS-unload   unbind + rmmod of xen-netfront-pgnt: no kernel trouble
#               line in the domU's dmesg, no grant-table message of a grant
#               still in use or leaked, the grant pool's debugfs stats with
#               no live page or grant; xen-grant-pool removed

arm64_net_steps="cpu-selfcheck"
for _ps in 4k 16k 64k; do
	for _s in load sha256 mtu unload; do
		arm64_net_steps="$arm64_net_steps $_ps-$_s"
	done
done
# Measured alone on the 2 cores, warm image cache (2026-12-02): with no
# other QEMU running, scenario 97-102 s (domUs 50-58 s each, side by
# side), boot total 119-121 s; with an x86 lab booting beside it, scenario
# 405 s (boot total 429 s).  Budget: the hang limit, as for arm64-blk.
arm64_net_budget=600
arm64_net_domus="a4k a16k a64k"
AN_MOD=xen-netfront-pgnt
AN_KMOD=xen_netfront_pgnt
AN_DOM0=10.0.0.1
AN_MB=16
AN_MTU_MB=8
# dom0's sink port per page size (its source: +1)
AN_PORT_4k=5320 AN_PORT_16k=5322 AN_PORT_64k=5324

# an_guest PS: the xl lines that boot the PS guest kernel and its image
an_guest() {
	echo "kernel = \"/root/Image-$1\""
	echo "ramdisk = \"/xps/domU-$1.cpio\""
}
an_port() { eval "echo \$AN_PORT_$1"; }

# The transfer helpers (nf_helpers, nf_send, nf_recv), nf_snmp, nf_dt,
# nf_rate and the vif lookups (nf_vif, nf_if, nf_mod, nf_drv) are
# netfront.sh's.  On the host (the judge reads only the
# variables above) there is no /xps.
[ -f /xps/scenarios/netfront.sh ] && . /xps/scenarios/netfront.sh

# ---- dom0 side ---------------------------------------------------------------

arm64_net_dom0_prepare() {
	modprobe xen-netback || return 1
	modprobe bridge || return 1
	# dom0-init made it (ip link add ... type bridge loads bridge itself)
	if [ ! -e /sys/class/net/xenbr0 ]; then
		ip link add xenbr0 type bridge && ip addr add $AN_DOM0/24 dev xenbr0 && ip link set xenbr0 up || return 1
	fi
	ip link set dev xenbr0 mtu 9000 || return 1
	# xps-vif: a minimal vif hotplug script (libxl runs it with online /
	# offline, the interface in $vif); netback connects once
	# hotplug-status says so.
	cat >/etc/xen/scripts/xps-vif <<'EOF'
#!/bin/sh
exec >>/run/xps/xps-vif.log 2>&1
if [ -z "${vif:-}" ]; then d=${XENBUS_PATH#*/vif/}; vif=vif${d%%/*}.${d#*/}; fi
echo "xps-vif $1 $vif $XENBUS_PATH"
case "$1" in
online|add)
	br=$(xenstore-read "$XENBUS_PATH/bridge" 2>/dev/null) || br=xenbr0
	ip link set dev "$vif" master "$br" && ip link set dev "$vif" up &&
	xenstore-write "$XENBUS_PATH/hotplug-status" connected ;;
offline|remove)
	ip link set dev "$vif" nomaster 2>/dev/null
	xenstore-rm "$XENBUS_PATH/hotplug-status" 2>/dev/null ;;
esac
exit 0
EOF
	chmod 0755 /etc/xen/scripts/xps-vif
	nf_helpers /run/xps || return 1
	: >/run/xps/an-nc.pids
	for _ps in 4k 16k 64k; do
		_p=$(an_port $_ps)
		busybox nc -ll -p "$_p" -e /run/xps/nf-sink </dev/null >/dev/null 2>&1 &
		echo $! >>/run/xps/an-nc.pids
		busybox nc -ll -p $((_p + 1)) -e /run/xps/nf-source </dev/null >/dev/null 2>&1 &
		echo $! >>/run/xps/an-nc.pids
	done
}

arm64_net_domU_cfg() {
	_ps=${1#a}
	an_guest "$_ps"
	echo "memory = 320"
	echo "vcpus = 2"
	echo "vif = [ 'mac=00:16:3e:00:00:$(printf %02x "$2"), bridge=xenbr0, script=xps-vif' ]"
}

arm64_net_domU_cmdline() { echo "module_blacklist=xen_netfront"; }

arm64_net_rpc() {
	_dom=$1 _cmd=$2; shift 2
	case "$_cmd" in
	snmp) RPC_REPLY="FragCreates=$(nf_snmp FragCreates) ReasmReqds=$(nf_snmp ReasmReqds)" ;;
	mtu) # mtu N: the domain's vifs (xenbr0 stays at 9000)
		RPC_REPLY=
		for _v in /sys/class/net/vif"$_dom".*; do
			[ -e "$_v" ] || continue
			ip link set dev "${_v##*/}" mtu "$1" || RPC_REPLY="error mtu $1 on ${_v##*/}"
		done
		[ -n "$RPC_REPLY" ] || RPC_REPLY="ok $(for _v in /sys/class/net/vif"$_dom".* /sys/class/net/xenbr0; do
			printf '%s=%s ' "${_v##*/}" "$(cat "$_v/mtu" 2>/dev/null)"; done)" ;;
	*) RPC_REPLY="error reason=unknown-request" ;;
	esac
}

arm64_net_dom0_finish() {
	sed 's/^/xps: arm64-net: /' /run/xps/xps-vif.log 2>/dev/null
	ip link set dev xenbr0 mtu 1500
	for _p in $(cat /run/xps/an-nc.pids 2>/dev/null); do kill "$_p" 2>/dev/null; done
	rm -f /run/xps/an-nc.pids
}

# ---- domU side ---------------------------------------------------------------

an_gp() { awk -v k="$1" '$1 == k { print $2 }' /sys/kernel/debug/xen-grant-pool/stats 2>/dev/null; }
an_page_kb() { awk '/^KernelPageSize:/ { print $2; exit }' /proc/self/smaps; }

# an_up: the interface configured with $IP, dom0 answering (60 s)
an_up() {
	_if=$(nf_if) || return 1
	ip link set lo up
	ip addr add "$IP/24" dev "$_if" 2>/dev/null
	ip link set "$_if" up && wait_for 60 ping -c1 -W1 $AN_DOM0 >/dev/null 2>&1
}

# an_ping DEST ARGS...: prints "sent/received answered, avg"; fails unless
# every ping was answered
an_ping() {
	_pd=$1; shift
	ping "$@" "$_pd" >/tmp/an-ping.log 2>&1
	_pt=$(sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) packets received.*/\1 \2/p' /tmp/an-ping.log)
	_pa=$(sed -n 's|^round-trip min/avg/max = [0-9.]*/\([0-9.]*\)/.*|\1|p' /tmp/an-ping.log)
	# shellcheck disable=SC2086 # word splitting intended: the fields
	set -- $_pt
	_pl="${1:-?}/${2:-?} answered, avg ${_pa:-?} ms"
	if [ -n "${1:-}" ] && [ "$1" -gt 0 ] && [ "$1" = "${2:-}" ]; then
		echo "$_pl"
		return 0
	fi
	echo "$_pl$(an_pingdiag)"
	return 1
}

# an_pingdiag: where the lost pings went, for the failure line: the ICMP
# and IP counters, the interface's, each queue's interrupt count, and the
# driver's nonzero error counters
an_pingdiag() {
	_pi=$(nf_if)
	printf ' [ping: %s; Icmp OutEchos %s InEchoReps %s InErrors %s InCsumErrors %s; Ip InDiscards %s InHdrErrors %s; %s rx %s dropped %s; irqs: %s; %s]' \
		"$(grep -v '^$' /tmp/an-ping.log | tail -n 2 | tr '\n' ' ')" \
		"$(nf_snmp OutEchos Icmp)" "$(nf_snmp InEchoReps Icmp)" "$(nf_snmp InErrors Icmp)" \
		"$(nf_snmp InCsumErrors Icmp)" "$(nf_snmp InDiscards)" "$(nf_snmp InHdrErrors)" "$_pi" \
		"$(cat "/sys/class/net/$_pi/statistics/rx_packets" 2>/dev/null)" \
		"$(cat "/sys/class/net/$_pi/statistics/rx_dropped" 2>/dev/null)" \
		"$(awk '/vif-/ { n = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; printf "%s%s=%d", s, $NF, n; s = " " }' /proc/interrupts)" \
		"$(ethtool -S "$_pi" 2>/dev/null | awk '$2 != 0 && /err|drop|bad|nomem|busy|too_big/ { printf "%s%s", s, $0; s = "," }')"
}

# an_both MB: MB each way; prints both outcomes, fails if either does
an_both() {
	_bo='' _bo2=
	_bo=$(nf_send $AN_DOM0 "$AN_PORT" "$1") && _bo2=$(nf_recv $AN_DOM0 $((AN_PORT + 1)) "$1")
	_brc=$?
	echo "$_bo; ${_bo2:-}"
	return $_brc
}

an_trouble() {
	dmesg | grep -E '(^|[^A-Za-z_])(BUG|WARNING|Oops)([^A-Za-z_]|$)|Call Trace|general protection|soft lockup|hung task'
}

arm64_net_domU() {
	ps=${1#a}
	want_kb=${ps%k}
	AN_PORT=$(an_port "$ps")
	S=arm64-net/$ps
	nf_helpers /tmp

	# --- load
	if [ ! -f "/lib/modules/$(uname -r)/updates/xen-pv-suite/$AN_MOD.ko" ]; then
		for s in load sha256 mtu unload; do fail "$S-$s" "module not built ($AN_MOD.ko missing from --modules)"; done
		return
	fi
	t=$(up)
	if ! modprobe xen-grant-pool || ! modprobe $AN_MOD || ! wait_for 30 nf_if >/dev/null; then
		fail "$S-load" "modprobe $AN_MOD or no interface within 30 s: $(dmesg | grep -iE 'vif|netfront|grant' | tail -n 3 | tr '\n' ' ')"
		for s in sha256 mtu unload; do fail "$S-$s" "not loaded"; done
		return
	fi
	vif=$(nf_vif) ifc=$(nf_if)
	mod=$(nf_mod "$vif") drv=$(nf_drv "$vif") pkb=$(an_page_kb)
	stock=$(lsmod | grep -c '^xen_netfront ')
	if ! an_up; then
		fail "$S-load" "$vif -> $drv ($mod), $ifc: dom0 unreachable from $IP within 60 s"
		for s in sha256 mtu; do fail "$S-$s" "no network"; done
	else
		tl=$(nf_dt "$t")
		wait_for 30 sh -c 'dmesg | grep -q "per-packet grants\|persistent grants:"'
		pg=$(dmesg | grep -o 'per-packet grants: .*\|persistent grants: .*' | tail -n 1)
		cn=$(dmesg | grep -o 'vif-pgnt vif-0: connected: .*' | tail -n 1)
		o=$(an_ping $AN_DOM0 -c 5 -i 0.2 -W 5)
		prc=$?
		ld="kernel $(uname -r) page ${pkb} kB; $vif -> driver $drv (module $mod), state $(cat "/sys/bus/xen/devices/$vif/state"), max_queues=$(cat /sys/module/$AN_KMOD/parameters/max_queues 2>/dev/null) feature_persistent=$(cat /sys/module/$AN_KMOD/parameters/feature_persistent 2>/dev/null) queues=$(($(ls -d /sys/class/net/"$ifc"/queues/tx-* 2>/dev/null | wc -l))); $ifc $IP/24 up ${tl}s after modprobe, ping dom0 $o; ${cn#vif-pgnt vif-0: }; ${pg:-no control ring line in dmesg}"
		if [ "$mod" = $AN_KMOD ] && [ "$stock" = 0 ] && [ "$pkb" = "$want_kb" ] && [ $prc = 0 ] &&
		   [ "${pg#per-packet grants: }" != "$pg" ]; then
			pass "$S-load" "$ld"
		else
			fail "$S-load" "want module $AN_KMOD, no xen_netfront (loaded: $stock), page ${want_kb} kB, pings answered, per-packet grants against the stock netback: $ld"
		fi

		# --- sha256
		rt=$(nf_snmp RetransSegs Tcp)
		o=$(an_both $AN_MB)
		orc=$?
		o="$o; domU TCP RetransSegs +$(($(nf_snmp RetransSegs Tcp) - rt))"
		if [ $orc = 0 ]; then pass "$S-sha256" "$ifc: $o"; else fail "$S-sha256" "$ifc: $o"; fi

		# --- mtu 9000
		an_mtu
	fi

	# --- unload
	echo "$vif" >"/sys/bus/xen/devices/$vif/driver/unbind" 2>/dev/null
	wait_for 30 sh -c '! ls /sys/bus/xen/devices/vif-*/net/* >/dev/null 2>&1'
	rmmod $AN_MOD 2>/tmp/an-rmmod.log
	gone=yes
	lsmod | grep -q "^$AN_KMOD " && gone="no ($(tr '\n' ' ' </tmp/an-rmmod.log | cut -c1-100))"
	sleep 1
	nbad=$(an_trouble | wc -l)
	ngnt=$(dmesg | grep -cE 'g\.e\. .*(still in use|still pending)|leaking g\.e\.')
	pool=ok
	wait_for 20 sh -c '[ "$(awk "\$1==\"grants_live\"{print \$2}" /sys/kernel/debug/xen-grant-pool/stats)" = 0 ] &&
	                   [ "$(awk "\$1==\"pages_live\"{print \$2}" /sys/kernel/debug/xen-grant-pool/stats)" = 0 ]' || pool=bad
	ud="unbind+rmmod: module gone $gone; grant pool pages_live=$(an_gp pages_live) grants_live=$(an_gp grants_live); dmesg: $nbad kernel trouble line(s), $ngnt grant message(s)"
	gp=removed
	rmmod xen-grant-pool 2>/dev/null || gp="still loaded"
	if [ "$gone" = yes ] && [ $pool = ok ] && [ "$nbad" = 0 ] && [ "$ngnt" = 0 ] && [ "$gp" = removed ]; then
		pass "$S-unload" "$ud; xen-grant-pool $gp"
	else
		fail "$S-unload" "$ud; xen-grant-pool $gp; first: $(an_trouble | head -n 1)$(dmesg | grep -m1 -E 'g\.e\. .*(still in use|still pending)|leaking g\.e\.')"
	fi
}

# an_mtu: step PS-mtu
an_mtu() {
	_mr=$(rpc mtu 9000)
	case "$_mr" in ok*) ;; *) fail "$S-mtu" "dom0: $_mr"; rpc mtu 1500 >/dev/null; return ;; esac
	if ! ip link set "$ifc" mtu 9000; then
		fail "$S-mtu" "ip link set $ifc mtu 9000 refused; dom0 $_mr"; rpc mtu 1500 >/dev/null; return
	fi
	_mfc=$(nf_snmp FragCreates) _mrr=$(nf_snmp ReasmReqds) _md0=$(rpc snmp)
	_mp=$(an_ping $AN_DOM0 -c 5 -i 0.2 -W 5 -s 8900); _mpok=$?
	_mfc2=$(nf_snmp FragCreates) _mrr2=$(nf_snmp ReasmReqds) _md1=$(rpc snmp)
	# dom0's counters are shared by the three domUs: another one's
	# 8900-byte pings may run at the same time, at MTU 9000 too, so a
	# change there is reported, the domU's own counters are judged
	_mo=
	_mok=
	_mrt=$(nf_snmp RetransSegs Tcp)
	if [ $_mpok = 0 ] && [ "$_mfc" = "$_mfc2" ] && [ "$_mrr" = "$_mrr2" ] && _mo=$(an_both $AN_MTU_MB); then
		_mok=1
	fi
	[ -n "$_mo" ] || _mo=$(an_both $AN_MTU_MB)
	_mo="$_mo; domU TCP RetransSegs +$(($(nf_snmp RetransSegs Tcp) - _mrt))"
	_md="$ifc mtu $(cat "/sys/class/net/$ifc/mtu"), dom0 $_mr; ping -s 8900: $_mp; IP fragments: domU FragCreates $_mfc->$_mfc2 ReasmReqds $_mrr->$_mrr2, dom0 $_md0 -> $_md1; $_mo"
	ip link set "$ifc" mtu 1500
	_mr2=$(rpc mtu 1500)
	if [ -n "$_mok" ]; then pass "$S-mtu" "$_md; back to 1500 ($_mr2)"
	else fail "$S-mtu" "want all answered, no fragments, data equal: $_md"; fi
}
