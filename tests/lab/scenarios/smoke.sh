# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034 # the scenario interface (<fn>_steps, _budget, _domus,
# RPC_REPLY, BF_SCN...) is read by dom0-init, the judge and the helpers
# smoke - the stock Debian PV frontends against dom0's backends: a domU
# with xen-blkfront (xvda on a loop device, xvdb on null_blk) and
# xen-netfront (a vif on xenbr0).  Functional only: numbers are reported,
# never judged.
#
# Scenario interface (sourced by dom0-init and domU-init; POSIX sh; the
# host reads <fn>_steps and <fn>_budget, fn = name with - -> _):
#   <fn>_steps          steps the judge expects a result for
#   <fn>_budget         seconds from domU creation until dom0 gives up
#   <fn>_domus          domU names (one xl config each)
#   <fn>_selfcheck_domus optional: the domUs that run the emulated-CPU
#                       self-check (default: all)
#   <fn>_lab_mem        optional: guest RAM in MB the boot needs (4096)
#   <fn>_dom0_prepare   dom0: backing devices, servers (before xl create)
#   <fn>_domU_cfg NAME IDX  dom0: extra xl config lines for domU NAME
#   <fn>_domU_cmdline NAME  dom0: optional, extra domU kernel arguments
#   <fn>_rpc DOMID CMD ARGS dom0: handle a domU request, set RPC_REPLY
#   <fn>_dom0_finish    dom0: optional, after the domUs are gone
#   <fn>_domU NAME      domU: the test itself (one function for all the
#                       scenario's domUs: branch on NAME)
# Each domU gets 10.0.0.<idx> on xenbr0 (dom0 is 10.0.0.1), MAC
# 00:16:3e:00:00:<idx>, and memory = 384 / vcpus = 1 unless its config
# lines set those keys.

smoke_steps="cpu-selfcheck xvda xvdb net fio-verify sha256-verify iperf3-up iperf3-down"
# Quiet 2-core host: 80-120 s; 720 s seen with a second QEMU running.
smoke_budget=900
smoke_domus="smoke"

smoke_dom0_prepare() {
	# phy: on a loop device is more reliable than a file: target (the
	# file path goes through an extra loop setup in the hotplug script).
	truncate -s 256M /tmp/smoke-disk.img || return 1
	SMOKE_LOOP=$(losetup -f --show /tmp/smoke-disk.img) || return 1
	modprobe null_blk nr_devices=1 gb=1 || return 1
	iperf3 -s -D -p 5201 --logfile /run/xps/iperf3-smoke.log || return 1
}

smoke_domU_cfg() {
	echo "disk = [ 'format=raw, vdev=xvda, access=rw, target=$SMOKE_LOOP', 'format=raw, vdev=xvdb, access=rw, target=/dev/nullb0' ]"
	echo "vif = [ 'mac=00:16:3e:00:00:$(printf %02x "$2"), bridge=xenbr0' ]"
}

smoke_rpc() { RPC_REPLY="unknown-request"; }

# iperf3_run DIRFLAG: prints "<exit> <receiver bitrate>"
smoke_iperf3() {
	# shellcheck disable=SC2086 # word splitting intended: intended
	iperf3 -c 10.0.0.1 -p 5201 -t 4 $1 >/tmp/iperf3.log 2>&1
	_rc=$?
	_bw=$(awk '/receiver/ { print $(NF-2) $(NF-1) }' /tmp/iperf3.log | tail -n1)
	echo "$_rc ${_bw:-none}"
}

smoke_domU() {
	modprobe xen-blkfront; modprobe xen-netfront
	if wait_for 20 test -b /dev/xvda; then
		pass smoke/xvda "sectors=$(cat /sys/block/xvda/size)"
	else
		fail smoke/xvda "no /dev/xvda after 20s"
	fi
	if wait_for 10 test -b /dev/xvdb &&
	   dd if=/dev/xvdb of=/dev/null bs=64k count=64 iflag=direct 2>/dev/null; then
		pass smoke/xvdb "sectors=$(cat /sys/block/xvdb/size) read-4M-direct"
	else
		fail smoke/xvdb "no readable /dev/xvdb"
	fi

	if [ -b /dev/xvda ]; then
		t=$(up)
		# Mixed 4k..64k random writes, then read back and check every block.
		if fio --name=verify --filename=/dev/xvda --ioengine=libaio --direct=1 --iodepth=8 \
			--rw=randwrite --bsrange=4k-64k --size=64M --verify=crc32c --do_verify=1 \
			--verify_fatal=1 --randrepeat=0 >/tmp/fio1.log 2>&1; then
			pass smoke/fio-verify "64M randwrite 4k-64k crc32c $(awk '/write: IOPS/ { print $2 $3 }' /tmp/fio1.log | tr -d ,) ${t:+$(since "$t")s}"
		else
			fail smoke/fio-verify "$(grep -iE 'verify|error|bad' /tmp/fio1.log | head -n 3 | tr '\n' ' ')"
		fi
		t=$(up)
		if fio --name=sha --filename=/dev/xvda --ioengine=libaio --direct=1 --iodepth=4 \
			--rw=write --bs=64k --offset=64M --size=32M --verify=sha256 --do_verify=1 \
			--verify_fatal=1 >/tmp/fio2.log 2>&1; then
			pass smoke/sha256-verify "32M seq 64k sha256 $(since "$t")s"
		else
			fail smoke/sha256-verify "$(grep -iE 'verify|error|bad' /tmp/fio2.log | head -n 3 | tr '\n' ' ')"
		fi
	else
		fail smoke/fio-verify "no xvda"; fail smoke/sha256-verify "no xvda"
	fi

	ip link set lo up
	if wait_for 20 test -e /sys/class/net/eth0 &&
	   ip addr add "$IP/24" dev eth0 && ip link set eth0 up &&
	   wait_for 30 ping -c1 -W1 10.0.0.1 >/dev/null 2>&1; then
		pass smoke/net "eth0 $IP reaches dom0 on xenbr0"
		# shellcheck disable=SC2046 # "<exit> <bitrate>": two words wanted
		set -- $(smoke_iperf3 "")
		if [ "$1" = 0 ] && [ "$2" != none ] && [ "${2%%[!0-9.]*}" != 0 ] && [ "${2%%[!0-9.]*}" != 0.00 ]; then
			pass smoke/iperf3-up "domU->dom0 $2"
		else
			fail smoke/iperf3-up "rc=$1 bitrate=$2 $(tail -n 2 /tmp/iperf3.log | tr '\n' ' ')"
		fi
		# shellcheck disable=SC2046 # "<exit> <bitrate>": two words wanted
		set -- $(smoke_iperf3 -R)
		if [ "$1" = 0 ] && [ "$2" != none ] && [ "${2%%[!0-9.]*}" != 0 ] && [ "${2%%[!0-9.]*}" != 0.00 ]; then
			pass smoke/iperf3-down "dom0->domU $2"
		else
			fail smoke/iperf3-down "rc=$1 bitrate=$2 $(tail -n 2 /tmp/iperf3.log | tr '\n' ' ')"
		fi
	else
		fail smoke/net "eth0 missing or dom0 unreachable"
		fail smoke/iperf3-up "no network"; fail smoke/iperf3-down "no network"
	fi
}
