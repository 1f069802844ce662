# SPDX-License-Identifier: GPL-2.0
# bench-blk - the seed 000 block benchmark: fio libaio 4 KB random reads
# (iodepth 32) on a null_blk-backed disk, with the frontend driver's
# module parameter swept across values in paired, alternating runs in one
# boot, and the same fio run on null_blk in dom0 as the ceiling.
# A benchmark, never a test: it is run by scripts/bench/run.sh, not by
# make check, and numbers are emitted as samples, never judged. Steps
# fail only when a run produced no number.
#
# Samples: lines "XPS-SAMPLE <json>" (see scripts/bench/xpsstats.py).
# Host knobs (XPS_SCN_* reach the guests through run.conf):
#   XPS_SCN_BENCH_DRIVER   frontend module under test (xen-blkfront)
#   XPS_SCN_BENCH_SWEEP    PARAM:V1,V2,... of that module (feature_persistent:0,1);
#                          the parameter must be writable (0644): it is set
#                          in sysfs, then dom0 detaches and re-attaches the
#                          disk so the frontend reconnects with it
#   XPS_SCN_BENCH_REPS     pairs of runs (5)
#   XPS_SCN_BENCH_RUNTIME  seconds per fio run, after a 2 s ramp (10)
#   XPS_SCN_BENCH_JOBS     fio jobs (4; the seed used 8 on real hardware)
# Interface: see smoke.sh.

bench_blk_steps="cpu-selfcheck attach sweep ceiling"
bench_blk_domus="bench"
BB_DRIVER=${XPS_SCN_BENCH_DRIVER:-xen-blkfront}
BB_SWEEP=${XPS_SCN_BENCH_SWEEP:-feature_persistent:0,1}
BB_REPS=${XPS_SCN_BENCH_REPS:-5}
BB_RUNTIME=${XPS_SCN_BENCH_RUNTIME:-10}
BB_JOBS=${XPS_SCN_BENCH_JOBS:-4}
BB_PARAM=${BB_SWEEP%%:*}
BB_VALUES=$(echo "${BB_SWEEP#*:}" | tr , ' ')
# Every run costs its runtime, a ramp, fio start-up and a re-attach
# (about 15 s under TCG); the rest is boot and slack.
bench_blk_budget=$(( 300 + BB_REPS * ($(echo $BB_VALUES | wc -w) + 1) * (BB_RUNTIME + 30) ))

# The sweep re-attaches the disk once per run. Xen's own block hotplug
# script serialises on a lock that its slow "remove" (under TCG) still
# holds when the next "add" comes, and libxl kills the add after its
# timeout; the bench only needs what blkback reads: the device's
# major:minor (hex) and the hotplug status.
BB_DISK="format=raw, vdev=xvda, access=rw, script=xps-bench-block, target=/dev/nullb0"

bench_blk_dom0_prepare() {
	modprobe null_blk nr_devices=1 gb=1 || return 1
	cat >/etc/xen/scripts/xps-bench-block <<'HOTPLUG'
#!/bin/sh
case "$1" in
add)
	dev=$(xenstore-read "$XENBUS_PATH/params") &&
	xenstore-write "$XENBUS_PATH/physical-device" "$(stat -L -c %t:%T "$dev")" \
		"$XENBUS_PATH/physical-device-path" "$dev" \
		"$XENBUS_PATH/hotplug-status" connected ;;
remove)
	xenstore-rm "$XENBUS_PATH/hotplug-status" 2>/dev/null ;;
esac
exit 0
HOTPLUG
	chmod 0755 /etc/xen/scripts/xps-bench-block
}

bench_blk_domU_cfg() {
	echo "disk = [ '$BB_DISK' ]"
}

# bb_fio DEV: run the seed's job on DEV, print the read IOPS (terse field 8).
bb_fio() {
	fio --name=randread --filename="$1" --rw=randread --bs=4k --ioengine=libaio \
		--iodepth=32 --numjobs="$BB_JOBS" --direct=1 --ramp_time=2 \
		--runtime="$BB_RUNTIME" --time_based --group_reporting \
		--output-format=terse --terse-version=3 2>/dev/null |
		awk -F';' 'NF > 8 { printf "%.1f\n", $8 }' | tail -n 1
}

# bb_sample VARIANT PARAMS_JSON RUN VALUE
bb_sample() {
	echo "XPS-SAMPLE {\"bench\": \"fio-randread-4k-qd32\", \"metric\": \"iops\", \"unit\": \"IO/s\", \"variant\": \"$1\", \"params\": {$2}, \"run\": $3, \"value\": $4, \"higher_is_better\": true}"
}

bench_blk_rpc() {
	_dom=$1 _cmd=$2; shift 2
	case "$_cmd" in
	reattach)
		_name=$(xl domname "$_dom")
		if ! xl block-detach "$_name" xvda >/tmp/bb-detach.log 2>&1; then
			RPC_REPLY="error reason=block-detach $(tr '\n' ' ' </tmp/bb-detach.log | cut -c1-120)"
			return
		fi
		if xl block-attach "$_name" "$BB_DISK"; then
			RPC_REPLY=ok
		else
			RPC_REPLY="error reason=block-attach"
		fi ;;
	ceiling)
		RPC_REPLY=$(bb_fio /dev/nullb0)
		[ -n "$RPC_REPLY" ] || RPC_REPLY=none ;;
	*)	RPC_REPLY=unknown-request ;;
	esac
}

# bb_set VALUE: set the swept parameter and reconnect the disk with it.
bb_set() {
	echo "$1" >"/sys/module/$(echo "$BB_DRIVER" | tr - _)/parameters/$BB_PARAM" || return 1
	_r=$(rpc reattach)
	[ "$_r" = ok ] || { echo "bench-blk: reattach: $_r"; return 1; }
	# The old xvda goes away and a new one comes up with the new setting.
	wait_for 60 test -b /dev/xvda &&
		dd if=/dev/xvda of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
}

bench_blk_domU() {
	modprobe "$BB_DRIVER"
	if wait_for 30 test -b /dev/xvda; then
		pass bench-blk/attach "$BB_DRIVER sectors=$(cat /sys/block/xvda/size)"
	else
		fail bench-blk/attach "no /dev/xvda after 30s"
		return
	fi
	_bb_bad=0 _bb_cbad=0 _bb_n=0 _bb_rep=1
	while [ "$_bb_rep" -le "$BB_REPS" ]; do
		# Alternate the order inside each pair so neither setting always
		# runs first (warm caches, host load drifting over the boot).
		_bb_order=$BB_VALUES
		[ $((_bb_rep % 2)) = 0 ] && _bb_order=$(echo "$BB_VALUES" | tr ' ' '\n' | sed -n '1!G;h;$p' | xargs)
		for _bb_v in $_bb_order; do
			if ! bb_set "$_bb_v"; then
				echo "bench-blk: could not set $BB_PARAM=$_bb_v and reconnect"
				_bb_bad=$((_bb_bad + 1)); continue
			fi
			_bb_iops=$(bb_fio /dev/xvda)
			if [ -n "$_bb_iops" ]; then
				bb_sample "$BB_DRIVER" "\"$BB_PARAM\": \"$_bb_v\"" "$_bb_rep" "$_bb_iops"
				_bb_n=$((_bb_n + 1))
			else
				_bb_bad=$((_bb_bad + 1))
			fi
		done
		_bb_c=$(rpc ceiling)
		case "$_bb_c" in
		[0-9]*) bb_sample "null_blk-in-dom0" "" "$_bb_rep" "$_bb_c" ;;
		*) _bb_cbad=$((_bb_cbad + 1)) ;;
		esac
		_bb_rep=$((_bb_rep + 1))
	done
	if [ "$_bb_bad" = 0 ]; then pass bench-blk/sweep "$_bb_n runs of $BB_PARAM in {$BB_VALUES}"
	else fail bench-blk/sweep "$_bb_bad run(s) produced no number"; fi
	if [ "$_bb_cbad" = 0 ]; then pass bench-blk/ceiling "$BB_REPS runs on dom0's null_blk"
	else fail bench-blk/ceiling "$_bb_cbad ceiling run(s) produced no number"; fi
}
