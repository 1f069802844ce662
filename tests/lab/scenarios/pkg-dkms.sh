# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034 # the scenario interface (<fn>_steps, _budget, _domus,
# RPC_REPLY, BF_SCN...) is read by dom0-init, the judge and the helpers
# pkg-dkms - the lab booted with the modules a DKMS install of the Debian
# package built (tests/pkg/cycle.sh copies them out of its chroot; the lab
# puts them in /lib/modules/<kver>/updates/dkms, where DKMS does, with
# XPS_LAB_MODSUBDIR=dkms) and the package's modprobe.d file
# (XPS_LAB_MODPROBE_CONF) in dom0 and the domU.  Run by scripts/check.sh's
# pkg step.  Interface: see smoke.sh.  Steps:
#   dom0-modules  dom0 loads xen-grant-pool from updates/dkms, at the
#                 package's version
#   modprobe-conf the domU's modprobe configuration blacklists xen_blkfront
#   alias-load    the domU loads the drivers for its devices the way udev
#                 does (modprobe of each device's modalias): the vbd
#                 devices get xen-blkfront-64k from updates/dkms, the stock
#                 xen-blkfront stays out; the vif gets the stock
#                 xen-netfront: xen-netfront-pgnt is installed but the
#                 package's modprobe.d file keeps it from alias loading;
#                 the dom0 backend xen-netback-pgnt is installed in
#                 updates/dkms too (the same .ko files go to both guests;
#                 only its presence is checked, nothing loads it)
#   fio-verify    fio randwrite + crc32c verify on xvda
#   iperf3        iperf3 to dom0 over the vif
#   switch-net    the README's way to try xen-netfront-pgnt: unbind vif-0
#                 from the stock driver, modprobe ours (blacklisted only
#                 for alias loading): it binds and dom0 answers

pkg_dkms_steps="cpu-selfcheck dom0-modules modprobe-conf alias-load fio-verify iperf3 switch-net"
pkg_dkms_budget=600
pkg_dkms_domus="pk"

pkg_dkms_dom0_prepare() {
	truncate -s 128M /tmp/pk-disk.img || return 1
	PK_LOOP=$(losetup -f --show /tmp/pk-disk.img) || return 1
	iperf3 -s -D -p 5202 --logfile /run/xps/iperf3-pk.log || return 1
	_f=$(modinfo -n xen-grant-pool 2>/dev/null)
	if modprobe xen-grant-pool && case "$_f" in */updates/dkms/xen-grant-pool.ko) true ;; *) false ;; esac; then
		pass pkg-dkms/dom0-modules "$_f version $(modinfo -F version xen-grant-pool); xen-blkfront-64k at $(modinfo -n xen-blkfront-64k)"
	else
		fail pkg-dkms/dom0-modules "modinfo -n xen-grant-pool: ${_f:-none}"
	fi
	rmmod xen-grant-pool 2>/dev/null
	return 0
}

pkg_dkms_domU_cfg() {
	echo "disk = [ 'format=raw, vdev=xvda, access=rw, target=$PK_LOOP' ]"
	echo "vif = [ 'mac=00:16:3e:00:00:$(printf %02x "$2"), bridge=xenbr0' ]"
}

pkg_dkms_rpc() { RPC_REPLY="error reason=unknown-request"; }

pkg_dkms_domU() {
	if modprobe -c | grep -q '^blacklist xen_blkfront$'; then
		pass pkg-dkms/modprobe-conf "/etc/modprobe.d/xen-pv-suite.conf: $(grep -c . /etc/modprobe.d/xen-pv-suite.conf) lines, blacklist xen_blkfront in effect"
	else
		fail pkg-dkms/modprobe-conf "no blacklist of xen_blkfront in modprobe -c"
	fi
	# what udev does for each device: modprobe its modalias
	for a in $(cat /sys/bus/xen/devices/*/modalias 2>/dev/null | sort -u); do
		modprobe "$a" || echo "xps: modprobe $a failed"
	done
	wait_for 30 test -b /dev/xvda
	bd=$(basename "$(readlink /sys/bus/xen/devices/vbd-51712/driver 2>/dev/null)")
	nd=$(basename "$(readlink /sys/bus/xen/devices/vif-0/driver 2>/dev/null)")
	f=$(modinfo -n xen-blkfront-64k 2>/dev/null)
	nb=$(modinfo -n xen-netback-pgnt 2>/dev/null)
	# xen-netfront-pgnt is installed but blacklisted: the vif stays stock
	if [ "$bd" = vbd-64k ] && ! grep -q '^xen_blkfront ' /proc/modules &&
	   [ "$nd" = vif ] && ! grep -q '^xen_netfront_pgnt ' /proc/modules &&
	   [ -n "$(modinfo -n xen-netfront-pgnt 2>/dev/null)" ] &&
	   case "$nb" in */updates/dkms/xen-netback-pgnt.ko) true ;; *) false ;; esac &&
	   case "$f" in */updates/dkms/xen-blkfront-64k.ko) true ;; *) false ;; esac; then
		pass pkg-dkms/alias-load "vbd-51712 -> $bd ($f, version $(modinfo -F version xen-blkfront-64k)); vif-0 -> ${nd:-none} (stock); installed: $nb; loaded: $(awk '{ print $1 }' /proc/modules | grep -E 'xen|qspl' | xargs)"
	else
		fail pkg-dkms/alias-load "vbd-51712 -> ${bd:-none}, xen_blkfront loaded: $(grep -c '^xen_blkfront ' /proc/modules), modinfo -n: ${f:-none}; vif-0 -> ${nd:-none} (want the stock vif), xen_netfront_pgnt loaded: $(grep -c '^xen_netfront_pgnt ' /proc/modules), installed: $(modinfo -n xen-netfront-pgnt 2>/dev/null || echo no); xen-netback-pgnt installed: ${nb:-no}"
	fi
	if [ -b /dev/xvda ] && fio --name=pk --filename=/dev/xvda --ioengine=libaio --direct=1 --iodepth=8 \
		--rw=randwrite --bssplit=4k/50:64k/30:512k/20 --size=32M --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --allow_file_create=0 >/tmp/fio-pk.log 2>&1; then
		pass pkg-dkms/fio-verify "32M randwrite 4k..512k crc32c on $(basename "$(readlink /sys/block/xvda/device/driver)")"
	else
		fail pkg-dkms/fio-verify "$(grep -iE 'verify|error|bad' /tmp/fio-pk.log | head -n 3 | tr '\n' ' ')"
	fi
	ip link set lo up
	if wait_for 20 test -e /sys/class/net/eth0 &&
	   ip addr add "$IP/24" dev eth0 && ip link set eth0 up &&
	   wait_for 30 ping -c 1 -W 1 10.0.0.1 >/dev/null 2>&1 &&
	   iperf3 -c 10.0.0.1 -p 5202 -t 3 >/tmp/iperf3-pk.log 2>&1; then
		pass pkg-dkms/iperf3 "$(awk '/receiver/ { print $(NF-2) $(NF-1) }' /tmp/iperf3-pk.log | tail -n 1) over ${nd:-?}"
	else
		fail pkg-dkms/iperf3 "$(tail -n 2 /tmp/iperf3-pk.log 2>/dev/null | tr '\n' ' ')"
	fi
	# the README's way to try ours on a vif the stock driver holds
	echo vif-0 >/sys/bus/xen/drivers/vif/unbind 2>/dev/null
	modprobe xen-netfront-pgnt
	if wait_for 30 test -e /sys/class/net/eth0 &&
	   [ "$(basename "$(readlink /sys/bus/xen/devices/vif-0/driver 2>/dev/null)")" = vif-pgnt ] &&
	   ip addr add "$IP/24" dev eth0 && ip link set eth0 up &&
	   wait_for 30 ping -c 1 -W 1 10.0.0.1 >/dev/null 2>&1; then
		pass pkg-dkms/switch-net "unbind from vif, modprobe xen-netfront-pgnt ($(modinfo -n xen-netfront-pgnt)): vif-0 -> vif-pgnt, dom0 answers"
	else
		fail pkg-dkms/switch-net "vif-0 -> $(basename "$(readlink /sys/bus/xen/devices/vif-0/driver 2>/dev/null)"), eth0: $(test -e /sys/class/net/eth0 && echo yes || echo no); $(dmesg | grep -i 'vif' | tail -n 2 | tr '\n' ' ')"
	fi
}
