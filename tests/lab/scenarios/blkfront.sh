# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034 # the scenario interface (<fn>_steps, _budget, _domus,
# RPC_REPLY, BF_SCN...) is read by dom0-init, the judge and the helpers
# blkfront - the suite's xen-blkfront-64k against dom0's stock blkback.
# Interface: see smoke.sh.  One domU (2 vCPUs, so multi-queue is real)
# with the stock xen-blkfront blacklisted on its kernel command line:
# xvda and xvdb on loop devices in dom0.  The domU loads xen-grant-pool
# then xen-blkfront-64k from updates/xen-pv-suite and checks, in order:
#   load            both modules load from updates/xen-pv-suite
#   probe           xvda/xvdb appear, bound to vbd-64k (not vbd), the
#                   connect line is in dmesg, /sys/block/xvda/xps/* readable
#   fio-mixed       randwrite+verify crc32c, bssplit 512 B..1 MB
#   fio-unaligned   sha256, bs=3584 at 512 B-aligned offsets (not 4 KB)
#   fio-seq-1m      sha256, 1 MB sequential writes (indirect/split path)
#   trim            discard a written range, it reads back as zeroes
#   persistent      grants_reused grows, grants_issued bounded, errors 0
#   var-*           module reloaded with feature_persistent=0
#                   (var-nopersist), and with max_queues=1
#                   max_ring_page_order=2 max_indirect_segments=0 at once
#                   (var-limits): each reconnects, shows the settings in
#                   xps/, passes a short verify
#   zero-copy       (feature_persistent=0 still loaded) xps/zero_copy=1;
#                   fio with buffers at 512 B offsets and mixed sizes
#                   verifies; requests went out granted in place (more
#                   grants than requests: unaligned pieces), no bounce
#                   copy but for counted fallbacks, errors 0
#   zero-copy-4k    (still feature_persistent=0) xvdc has 4 KB logical
#                   sectors (a loop device with --sector-size 4096): fio
#                   with buffers at 512 B offsets verifies, those requests
#                   are copied (counted fallbacks: blkback refuses a
#                   segment that is not whole logical blocks), aligned
#                   ones still go in place, errors 0
#   var-copy        feature_persistent=0 zero_copy=0: copied again
#   cycles          unbind/bind and unbind+rmmod/modprobe cycles, each followed
#                   by a verify-only pass over data written before
#   fs              mke2fs -t ext4 on xvda, a tree of files written, synced,
#                   caches dropped, remounted: sha256 equal; e2fsck -fn
#                   clean (mke2fs/e2fsck/ext4 come with the domU image)
#   detach          xl block-detach of xvdb during fio: the I/O ends with
#                   errors within 60 s, no hang, xvdb goes away
#   attach          xl block-attach brings xvdb back, a verify passes
#   leaks           no grant-pool pages/grants live after the last rmmod
# Figures (IOPS, counters) are reported in the details, never judged.

blkfront_steps="cpu-selfcheck load probe fio-mixed fio-unaligned fio-seq-1m trim persistent var-nopersist zero-copy zero-copy-4k var-copy var-limits cycles fs detach attach leaks"
# 1256 s in the block lab boot of a clean-clone make check on an idle
# host (2026-12-03), cut off in its cycles, 1533 s in CI the same day;
# the budget only catches a hang
blkfront_budget=2400
blkfront_domus="bf"
BF_MOD=xen-blkfront-64k
BF_DRV=vbd-64k
# bf_use_stock: this domU runs Debian's xen-blkfront in place of ours (a
# scenario's reference run: XPS_SCN_HB_DRIVER, _MIG_DRIVER, _SOAK_DRIVER
# =stock); bf_stock says whether it does.  The stock driver's disks have
# no xps/ counters, and it is not kept off the disks at boot.
BF_STOCK=
bf_use_stock() { BF_STOCK=1 BF_MOD=xen-blkfront BF_DRV=vbd; }
bf_stock() { [ -n "$BF_STOCK" ]; }
# bf_domU_cmdline: ours takes the disks, Debian's driver blacklisted
bf_domU_cmdline() { bf_stock || echo "module_blacklist=xen_blkfront"; }
# 3 in make check; XPS_SCN_BF_CYCLES=N on the host sets N (check-full: 6)
BF_CYCLES=${XPS_SCN_BF_CYCLES:-3}

# bf_dm_disk NAME MB: dom0, a device-mapper device /dev/mapper/NAME over a
# loop device on a fresh MB file, which a scenario suspends (dmsetup
# suspend) to hold a disk's I/O in dom0.
bf_dm_disk() {
	truncate -s "$2M" "/tmp/$1.img" || return 1
	_lo=$(losetup -f --show "/tmp/$1.img") || return 1
	# No udev in dom0: libdevmapper makes the node itself.
	DM_DISABLE_UDEV=1; export DM_DISABLE_UDEV
	modprobe dm-mod || return 1
	dmsetup create --noudevsync "$1" --table "0 $(($2 * 2048)) linear $_lo 0" || return 1
	wait_for 10 test -b "/dev/mapper/$1"
}

# bf_attach NAME VDEV TARGET SECS LOG: dom0, xl block-attach of TARGET
# to domain NAME as VDEV with the lab's hotplug script, each try cut at
# SECS, xl's output in LOG; RPC_REPLY "ok" or the error.  A second try
# if libxl gives up: it gives blkback 10 s to reach InitWait, and in a
# loaded lab dom0's xenwatch thread once took longer ("unable to add
# device", CI 2026-12-02), and Xen's own hotplug script ran past libxl's
# 40 s (2026-12-03).  That is a slow dom0, not the frontend under test.
bf_attach() {
	for _try in 1 2; do
		if timeout "$4" xl block-attach "$1" "format=raw, vdev=$2, access=rw, script=xps-block, target=$3" >"$5" 2>&1; then
			RPC_REPLY=ok
			return 0
		fi
		RPC_REPLY="error attaching $2 (attempt $_try) $(tr '\n' ' ' <"$5" | cut -c1-200)"
		echo "xps: $1: $RPC_REPLY"
		xl block-detach "$1" "$2" >/dev/null 2>&1
		sleep 5
	done
	return 1
}

blkfront_dom0_prepare() {
	truncate -s 256M /tmp/bf-a.img || return 1
	truncate -s 128M /tmp/bf-b.img || return 1
	BF_LOOPA=$(losetup -f --show /tmp/bf-a.img) || return 1
	BF_LOOPB=$(losetup -f --show /tmp/bf-b.img) || return 1
	# xvdc: 4 KB logical sectors (blkback writes sector-size 4096)
	truncate -s 32M /tmp/bf-c.img || return 1
	BF_LOOPC=$(losetup -f --show --sector-size 4096 /tmp/bf-c.img) || return 1
}

blkfront_domU_cfg() {
	echo "memory = 512"
	echo "vcpus = 2"
	echo "disk = [ 'format=raw, vdev=xvda, access=rw, script=xps-block, target=$BF_LOOPA', 'format=raw, vdev=xvdb, access=rw, script=xps-block, target=$BF_LOOPB', 'format=raw, vdev=xvdc, access=rw, script=xps-block, target=$BF_LOOPC' ]"
}

# The stock driver must never bind; info lines on the console as they come.
blkfront_domU_cmdline() { echo "module_blacklist=xen_blkfront loglevel=7"; }

# detach: xl block-detach of xvdb in the background (it waits for the
# frontend to close); attach: xl block-attach of the same loop device.
blkfront_rpc() {
	case "$2" in
	detach)
		( xl block-detach "$1" xvdb >/run/xps/bf-detach.log 2>&1
		  echo "rc=$?" >>/run/xps/bf-detach.log ) &
		RPC_REPLY=ok ;;
	detach-log)
		RPC_REPLY=$(tr '\n' ' ' </run/xps/bf-detach.log 2>/dev/null | cut -c1-200) ;;
	attach) # with the lab's hotplug script, as at creation
		bf_attach "$1" xvdb "$BF_LOOPB" 120 /run/xps/bf-attach.log ;;
	*) RPC_REPLY="error reason=unknown-request" ;;
	esac
}

# ---- domU side --------------------------------------------------------------
# The helpers below serve blkfront-life.sh too: it sets BF_SCN and BF_STEPS.
bf_done() { echo "$1" >>/tmp/bf.done; }
bf_step() { # bf_step NAME PASS|FAIL DETAIL: report once
	result "${BF_SCN:-blkfront}/$1" "$2" "$3"; bf_done "$1"
}
# bf_run ONLY STEP CMD...: the step's verdict from CMD, which sets _d.
# ONLY, a comma-separated list of steps (the hostile scenarios'
# XPS_SCN_*_ONLY, for debugging), skips STEP when it is not in the list.
bf_run() {
	_o=$1 _s=$2; shift 2
	[ -z "$_o" ] || case ",$_o," in *",$_s,"*) ;; *) return 0 ;; esac
	_d=
	if "$@"; then bf_step "$_s" PASS "$_d"; else bf_step "$_s" FAIL "$_d"; fi
}
bf_fail_rest() {
	for _s in ${BF_STEPS:-$blkfront_steps}; do
		[ "$_s" = cpu-selfcheck ] && continue
		grep -q "^$_s\$" /tmp/bf.done 2>/dev/null || bf_step "$_s" FAIL "$1"
	done
}
bf_x() { cat "/sys/block/$1/xps/$2" 2>/dev/null; }
bf_xps() { # bf_xps DISK KEY...: "key=value ..." from /sys/block/DISK/xps
	_d=$1; shift
	for _k in "$@"; do printf '%s=%s ' "$_k" "$(bf_x "$_d" "$_k")"; done
}
bf_errs() { # sum of errors_* of DISK
	_n=0
	for _f in /sys/block/$1/xps/errors_*; do _n=$((_n + $(cat "$_f"))); done
	echo "$_n"
}
bf_gp() { awk -v k="$1" '$1 == k { print $2 }' /sys/kernel/debug/xen-grant-pool/stats 2>/dev/null; }

# bf_fio TAG SECS ARGS...: fio on a deadline; log in /tmp/fio-TAG.log.
# Prints "w=<write IOPS> r=<read IOPS> <secs>s" or the first error lines.
# Its pid (busybox's timeout execs fio in its own process) goes to
# /tmp/fio-TAG.pid.
bf_fio() {
	_tag=$1 _secs=$2; shift 2
	_t=$(up)
	# allow_file_create=0: with the disk gone (unbind, detach) fio would
	# otherwise create a regular file of that name in /dev, which then
	# hides the disk's node when it comes back.
	timeout "$_secs" fio --output-format=normal --verify_fatal=1 --ioengine=libaio --allow_file_create=0 \
		--direct=1 "$@" >"/tmp/fio-$_tag.log" 2>&1 &
	echo $! >"/tmp/fio-$_tag.pid"
	wait $!
	_rc=$?
	if [ $_rc = 0 ]; then
		_w=$(awk '/write: IOPS=/ { sub(/.*IOPS=/, ""); sub(/,.*/, ""); print; exit }' "/tmp/fio-$_tag.log")
		_r=$(awk '/read: IOPS=/ { sub(/.*IOPS=/, ""); sub(/,.*/, ""); print; exit }' "/tmp/fio-$_tag.log")
		echo "w=${_w:--} r=${_r:--} $(since "$_t")s"
		return 0
	fi
	echo "rc=$_rc after $(since "$_t")s (limit ${_secs}s): $(grep -iE 'verify|error|bad|fail' "/tmp/fio-$_tag.log" | head -n 3 | tr '\n' ' ' | cut -c1-300)"
	return 1
}
# bf_fio_corrupt TAG: bf_fio TAG's run failed because data did not
# verify (fio's verify messages, or its job error EILSEQ, 84, which fio
# gives a verify failure), not for an I/O error or a timeout
bf_fio_corrupt() { grep -qE 'verify failed|verify: bad|err= *84/' "/tmp/fio-$1.log" 2>/dev/null; }
bf_fio_step() { # bf_fio_step STEP DESC SECS ARGS...
	_st=$1 _desc=$2; shift 2
	if _o=$(bf_fio "$_st" "$@"); then bf_step "$_st" PASS "$_desc $_o"
	else bf_step "$_st" FAIL "$_desc $_o"; fi
}

bf_load() { # bf_load [PARAMS...]: modprobe, then both disks within 30 s
	modprobe "$BF_MOD" "$@" || return 1
	wait_for 30 test -b /dev/xvda && wait_for 10 test -b /dev/xvdb &&
		{ bf_stock || wait_for 10 test -r /sys/block/xvda/xps/requests; }
}
# xenbus holds a module reference for every bound device: unbind them all
# first, then the module can go.
bf_unbind_all() {
	for _d in /sys/bus/xen/drivers/$BF_DRV/vbd-*; do
		[ -e "$_d" ] && echo "${_d##*/}" >/sys/bus/xen/drivers/$BF_DRV/unbind
	done
	wait_for 10 sh -c '! test -e /sys/block/xvda && ! test -e /sys/block/xvdb'
}
bf_unload() {
	bf_unbind_all && rmmod "$BF_MOD" && return 0
	echo "xps: unload failed, refcnt=$(cat /sys/module/xen_blkfront_64k/refcnt 2>/dev/null)"
	return 1
}
# bf_built: both modules are in the guest's updates/xen-pv-suite
bf_built() {
	_ko=/lib/modules/$(uname -r)/updates/xen-pv-suite
	[ -f "$_ko/$BF_MOD.ko" ] && [ -f "$_ko/xen-grant-pool.ko" ]
}
# bf_leaks_step: step "leaks", every grant-pool page and grant back after
# the last unload
bf_leaks_step() {
	bf_unload
	if wait_for 20 sh -c '[ "$(awk "\$1==\"pages_live\"{print \$2}" /sys/kernel/debug/xen-grant-pool/stats)" = 0 ] &&
	                      [ "$(awk "\$1==\"grants_live\"{print \$2}" /sys/kernel/debug/xen-grant-pool/stats)" = 0 ]'; then
		bf_step leaks PASS "after rmmod: pages_live=0 grants_live=0 deferred=$(bf_gp deferred_pages) leaked=$(bf_gp leaked_pages)"
	else
		bf_step leaks FAIL "after rmmod: $(tr '\n' ' ' </sys/kernel/debug/xen-grant-pool/stats | cut -c1-200)"
	fi
}
bf_drv() { basename "$(readlink "/sys/block/$1/device/driver" 2>/dev/null)"; }

# ---- xvdc (vbd-51744) alone, for blkfront-held and blkfront-life's
# resume-unbind: rebinding it with other parameters, I/O on it
BF_PARAMS=/sys/module/xen_blkfront_64k/parameters
BF_DBG=/sys/kernel/debug/xen-blkfront-64k
bf_tot() { awk -v k="$1" '$1 == k { print $2 }' "$BF_DBG/stats" 2>/dev/null; }
# bf_c_unbind: xvdc's frontend unbound, the disk gone (else BF_C_WHY says so)
bf_c_unbind() {
	BF_C_WHY=''
	echo vbd-51744 >/sys/bus/xen/drivers/$BF_DRV/unbind 2>/dev/null
	wait_for 20 sh -c '! test -e /sys/block/xvdc' || { BF_C_WHY="xvdc still there 20 s after its unbind"; return 1; }
}
# bf_c_bind [PARAM=VALUE...]: xvdc bound again with these module
# parameters for its probe (each is put back afterwards).  Waits up to
# 90 s: on a loaded lab dom0's blkback has taken longer than 30 s to
# answer a reconnect (CI, 2026-12-03).  When xvdc does not come back,
# BF_C_WHY says where the handshake stopped (also on the console).
bf_c_bind() {
	_saved='' BF_C_WHY=''
	for _kv in "$@"; do
		_saved="$_saved ${_kv%%=*}=$(cat "$BF_PARAMS/${_kv%%=*}" 2>/dev/null)"
		echo "${_kv#*=}" >"$BF_PARAMS/${_kv%%=*}" || echo "xps: no parameter ${_kv%%=*}"
	done
	_bct=$(up)
	echo vbd-51744 >/sys/bus/xen/drivers/$BF_DRV/bind
	wait_for 90 test -r /sys/block/xvdc/xps/requests
	_rc=$?
	for _kv in $_saved; do echo "${_kv#*=}" >"$BF_PARAMS/${_kv%%=*}" 2>/dev/null; done
	if [ $_rc != 0 ]; then
		_be=$(xenstore-read device/vbd/51744/backend 2>/dev/null)
		BF_C_WHY="xvdc not back $(since "$_bct")s after the bind ($*): frontend state $(xenstore-read device/vbd/51744/state 2>/dev/null), backend state $(xenstore-read "$_be/state" 2>/dev/null), driver '$(basename "$(readlink /sys/bus/xen/devices/vbd-51744/driver 2>/dev/null)")'; $(dmesg | grep -E 'vbd|xbf|blkfront|xenbus' | tail -n 2 | tr '\n' ' ')"
		echo "xps: $BF_C_WHY"
	fi
	return $_rc
}
# shellcheck disable=SC2046 # "reads writes": two words wanted
bf_c_inflight() { set -- $(cat /sys/block/xvdc/inflight 2>/dev/null) 0 0; [ $(($1 + $2)) -gt 0 ]; }
# bf_c_fio SECS: random 16 KB reads and writes on xvdc in the background;
# its pid in _fp
bf_c_fio() {
	fio --name=held --filename=/dev/xvdc --ioengine=libaio --direct=1 --rw=randrw \
		--bs=16k --size=8M --iodepth=4 --time_based --runtime="$1" \
		--allow_file_create=0 >/tmp/fio-held.log 2>&1 &
	_fp=$!
}
bf_c_fio_err() { grep -m1 -oE 'error=[A-Za-z/ ]+|err=[ 0-9-]+' /tmp/fio-held.log | head -n1; }

# The data set the reload checks read back (fio regenerates the same
# offsets and patterns with verify_only).
BF_REF="--name=ref --filename=/dev/xvdb --rw=randwrite --bssplit=4k/50:64k/30:512k/20 --size=6M --iodepth=8 --verify=crc32c"

bf_variant() { # bf_variant STEP "XPSKEY=WANT..." PARAM...
	_st=$1 _kw=$2; shift 2
	bf_unload || { bf_step "$_st" FAIL "rmmod failed"; return 1; }
	if ! bf_load "$@"; then
		bf_step "$_st" FAIL "$* : disks did not come back: $(dmesg | grep -E 'vbd|xbf|blkfront' | tail -n 2 | tr '\n' ' ')"
		return 1
	fi
	for _k in $_kw; do
		_got=$(bf_x xvda "${_k%%=*}")
		if [ "$_got" != "${_k#*=}" ]; then
			bf_step "$_st" FAIL "$*: xps/${_k%%=*}=$_got, want ${_k#*=}"; return 0
		fi
	done
	_o='' _o2=	# POSIX sh has no locals: never report an earlier step's output
	# shellcheck disable=SC2086 # word splitting intended: fio arguments
	if _o=$(bf_fio "$_st" 120 --name="$_st" --filename=/dev/xvda --rw=randwrite \
		--bssplit=512/10:4k/40:64k/30:1m/20 --offset=160M --size=4M --iodepth=8 \
		--verify=crc32c) &&
	   _o2=$(bf_fio "$_st-ref" 120 $BF_REF --verify_only); then
		bf_step "$_st" PASS "$* $(bf_xps xvda persistent nr_queues ring_pages max_indirect_segments) verify $_o; ref $_o2"
	else
		bf_step "$_st" FAIL "$*: ${_o2:-$_o}"
	fi
}

# bf_zero_copy: step zero-copy, with the module loaded feature_persistent=0
bf_zero_copy() {
	if [ "$(bf_x xvda zero_copy)" != 1 ] || [ "$(bf_x xvda persistent)" != 0 ]; then
		bf_step zero-copy FAIL "want zero_copy=1 persistent=0: $(bf_xps xvda zero_copy persistent trusted)"
		return
	fi
	_z0=$(bf_x xvda zero_copy_requests) _g0=$(bf_x xvda zero_copy_grants)
	_b0=$(bf_x xvda bounce_bytes) _f0=$(bf_x xvda zero_copy_fallbacks) _e0=$(bf_errs xvda)
	_o='' _o2='' _o3=
	# shellcheck disable=SC2086 # word splitting intended: fio arguments
	if _o=$(bf_fio zc-unaligned 120 --name=zcu --filename=/dev/xvda --rw=randwrite \
		--bs=3584 --blockalign=512 --offset=176M --size=1M --iodepth=8 \
		--iomem_align=512 --verify=sha256) &&
	   _o2=$(bf_fio zc-mixed 120 --name=zcm --filename=/dev/xvda --rw=randwrite \
		--bssplit=512/10:4k/40:64k/30:1m/20 --offset=184M --size=4M --iodepth=8 \
		--verify=crc32c) &&
	   _o3=$(bf_fio zc-ref 120 $BF_REF --verify_only); then :
	else
		bf_step zero-copy FAIL "verify: ${_o3:-${_o2:-$_o}} $(bf_xps xvda zero_copy_requests zero_copy_fallbacks slot_waits) dmesg: $(dmesg | grep -iE 'vbd|xvd' | tail -n 2 | tr '\n' ' ')"
		return
	fi
	_dz=$(( $(bf_x xvda zero_copy_requests) - _z0 )) _dg=$(( $(bf_x xvda zero_copy_grants) - _g0 ))
	_db=$(( $(bf_x xvda bounce_bytes) - _b0 )) _df=$(( $(bf_x xvda zero_copy_fallbacks) - _f0 ))
	_de=$(( $(bf_errs xvda) - _e0 ))
	_st="requests +$_dz grants +$_dg fallbacks +$_df bounce_bytes +$_db errors +$_de; unaligned $_o; mixed $_o2; ref $_o3"
	if [ "$_dz" -gt 0 ] && [ "$_dg" -gt "$_dz" ] && [ "$_de" = 0 ] &&
	   { [ "$_df" -gt 0 ] || [ "$_db" = 0 ]; }; then
		bf_step zero-copy PASS "$_st"
	else
		bf_step zero-copy FAIL "want requests > 0, grants > requests, no bounce without fallback, errors 0: $_st"
	fi
}

# bf_zero_copy_4k: step zero-copy-4k on xvdc (4 KB logical sectors), with
# the module loaded feature_persistent=0
bf_zero_copy_4k() {
	wait_for 10 test -r /sys/block/xvdc/xps/zero_copy
	_lbs=$(cat /sys/block/xvdc/queue/logical_block_size 2>/dev/null)
	if [ "$_lbs" != 4096 ] || [ "$(bf_x xvdc zero_copy)" != 1 ]; then
		bf_step zero-copy-4k FAIL "want xvdc with 4096 B logical sectors, zero_copy=1: lbs=${_lbs:-none} $(bf_xps xvdc zero_copy persistent)"
		return
	fi
	_z0=$(bf_x xvdc zero_copy_requests) _f0=$(bf_x xvdc zero_copy_fallbacks) _e0=$(bf_errs xvdc)
	_o='' _o2=
	# buffers at 512 B offsets: every 4 KB block straddles two frames
	if _o=$(bf_fio zc4k-unaligned 120 --name=zc4u --filename=/dev/xvdc --rw=randwrite \
		--bssplit=4k/50:16k/25:64k/25 --blockalign=4k --iomem_align=512 --size=4M \
		--iodepth=8 --verify=sha256) &&
	   _o2=$(bf_fio zc4k-aligned 120 --name=zc4a --filename=/dev/xvdc --rw=randwrite \
		--bssplit=4k/50:64k/30:1m/20 --offset=8M --size=4M --iodepth=8 --verify=crc32c); then :
	else
		bf_step zero-copy-4k FAIL "verify: ${_o2:-$_o} $(bf_xps xvdc zero_copy_requests zero_copy_fallbacks errors_io) dmesg: $(dmesg | grep -iE 'vbd|xvdc' | tail -n 2 | tr '\n' ' ')"
		return
	fi
	_dz=$(( $(bf_x xvdc zero_copy_requests) - _z0 )) _df=$(( $(bf_x xvdc zero_copy_fallbacks) - _f0 ))
	_de=$(( $(bf_errs xvdc) - _e0 ))
	_st="lbs 4096: in place +$_dz, copied (fallbacks) +$_df, errors +$_de; 512 B-offset buffers $_o; aligned $_o2"
	if [ "$_dz" -gt 0 ] && [ "$_df" -gt 0 ] && [ "$_de" = 0 ]; then
		bf_step zero-copy-4k PASS "$_st"
	else
		bf_step zero-copy-4k FAIL "want in place > 0, fallbacks > 0, errors 0: $_st"
	fi
}

# bf_fs: ext4 on xvda, a tree written, compared after a remount, fsck'ed
bf_fs() {
	[ -x /usr/bin/mke2fs ] && [ -x /usr/bin/e2fsck ] || { echo "mke2fs/e2fsck missing from the domU image"; return 1; }
	modprobe ext4 || { echo "modprobe ext4 failed"; return 1; }
	/usr/bin/mke2fs -q -F -t ext4 -b 4096 /dev/xvda 32768 >/tmp/mkfs.log 2>&1 ||
		{ echo "mke2fs: $(tail -n 2 /tmp/mkfs.log | tr '\n' ' ')"; return 1; }
	mkdir -p /mnt/bf && mount -t ext4 /dev/xvda /mnt/bf || { echo "mount failed"; return 1; }
	mkdir -p /mnt/bf/tree/mods /mnt/bf/tree/rand
	cp -a "/lib/modules/$(uname -r)/kernel" /mnt/bf/tree/mods/ 2>/dev/null
	cp /usr/bin/fio /mnt/bf/tree/
	_i=0
	for _k in 1 3 4 7 12 16 33 64 100 128 250 511 1024 2048; do
		dd if=/dev/urandom of=/mnt/bf/tree/rand/f$_i bs=1k count=$_k 2>/dev/null
		dd if=/dev/urandom of=/mnt/bf/tree/rand/g$_i bs=512 count=$((_k + 1)) 2>/dev/null
		_i=$((_i + 1))
	done
	(cd /mnt/bf/tree && find . -type f | sort | xargs sha256sum) >/tmp/fs.sums
	_n=$(wc -l </tmp/fs.sums) _kb=$(du -sk /mnt/bf/tree | cut -f1)
	sync; umount /mnt/bf || { echo "umount failed"; return 1; }
	echo 3 >/proc/sys/vm/drop_caches
	mount -t ext4 -o ro /dev/xvda /mnt/bf || { echo "remount failed"; return 1; }
	(cd /mnt/bf/tree && sha256sum -c /tmp/fs.sums) >/tmp/fs.check 2>&1; _rc=$?
	umount /mnt/bf
	[ $_rc = 0 ] || { echo "sha256 mismatch: $(grep -v ': OK' /tmp/fs.check | head -n 3 | tr '\n' ' ')"; return 1; }
	/usr/bin/e2fsck -fn /dev/xvda >/tmp/fsck.log 2>&1 ||
		{ echo "e2fsck -fn: $(tail -n 3 /tmp/fsck.log | tr '\n' ' ')"; return 1; }
	echo "ext4 128M: $_n files ${_kb}kB written, synced, caches dropped, sha256 equal after remount; e2fsck -fn clean"
}
bf_fs_step() {
	if [ ! -b /dev/xvda ]; then bf_step fs FAIL "no xvda"; return; fi
	if _o=$(bf_fs); then bf_step fs PASS "$_o"; else bf_step fs FAIL "$_o"; fi
}

blkfront_domU() {
	: >/tmp/bf.done
	if ! bf_built; then
		bf_step load FAIL "module not built ($BF_MOD.ko / xen-grant-pool.ko missing from --modules)"
		bf_fail_rest "module not built"; return
	fi
	if ! modprobe xen-grant-pool || ! modprobe "$BF_MOD"; then
		bf_step load FAIL "modprobe failed: $(dmesg | tail -n 3 | tr '\n' ' ')"
		bf_fail_rest "module did not load"; return
	fi
	if lsmod | grep -q '^xen_blkfront '; then
		bf_step load FAIL "stock xen_blkfront is loaded too"
	else
		bf_step load PASS "$(modinfo -F filename "$BF_MOD") $(modinfo -F filename xen-grant-pool)"
	fi

	# 1. probe/connect
	if ! wait_for 30 test -b /dev/xvda || ! wait_for 10 test -b /dev/xvdb; then
		bf_step probe FAIL "no /dev/xvda or /dev/xvdb after 40s: $(dmesg | grep -iE 'vbd|xbf|blkfront' | tail -n 3 | tr '\n' ' ')"
		bf_fail_rest "no disks"; return
	fi
	conn=$(dmesg | grep -m1 'xvda: [0-9]* sectors of')
	da=$(bf_drv xvda) db=$(bf_drv xvdb)
	unread=
	for f in /sys/block/xvda/xps/*; do cat "$f" >/dev/null 2>&1 || unread="$unread ${f##*/}"; done
	if [ "$da" = "$BF_DRV" ] && [ "$db" = "$BF_DRV" ] && [ -n "$conn" ] && [ -z "$unread" ] &&
	   dd if=/dev/xvdb of=/dev/null bs=64k count=16 iflag=direct 2>/dev/null; then
		bf_step probe PASS "driver=$da ${conn#*: } $(bf_xps xvda nr_queues ring_pages persistent max_indirect_segments trusted) discard_max=$(cat /sys/block/xvda/queue/discard_max_bytes)"
	else
		bf_step probe FAIL "driver xvda=$da xvdb=$db conn='${conn#*: }' unreadable:${unread:-none}"
	fi

	# 2. fio verify on xvda
	bf_fio_step fio-mixed "12M randwrite bssplit 512..1M crc32c" 240 \
		--name=mixed --filename=/dev/xvda --rw=randwrite \
		--bssplit=512/10:4k/30:8k/10:64k/20:256k/15:1m/15 --size=12M --iodepth=8 \
		--verify=crc32c
	iss0=$(bf_x xvda grants_issued) reu0=$(bf_x xvda grants_reused)
	bf_fio_step fio-unaligned "1M randwrite bs=3584 512-aligned offsets sha256" 240 \
		--name=unaligned --filename=/dev/xvda --rw=randwrite --bs=3584 --blockalign=512 \
		--offset=64M --size=1M --iodepth=8 --iomem_align=512 --verify=sha256
	bf_fio_step fio-seq-1m "8M seq 1M sha256" 240 \
		--name=seq --filename=/dev/xvda --rw=write --bs=1m --offset=96M --size=8M \
		--iodepth=4 --verify=sha256

	# trim: a written range reads back as zeroes after discard
	if [ "$(cat /sys/block/xvda/queue/discard_max_bytes)" = 0 ]; then
		bf_step trim PASS "skipped: backend offers no discard"
	elif _o='' _o2='' nz= && _o=$(bf_fio trimw 120 --name=trimw --filename=/dev/xvda --rw=write --bs=64k \
			--offset=136M --size=4M --verify=crc32c) &&
	     _o2=$(bf_fio trim 120 --name=trim --filename=/dev/xvda --rw=randtrim --bs=64k \
			--offset=136M --size=4M) &&
	     nz=$(dd if=/dev/xvda bs=64k skip=2176 count=64 iflag=direct 2>/dev/null | tr -d '\000' | wc -c) &&
	     [ "$nz" = 0 ]; then
		bf_step trim PASS "4M written ($_o), randtrim 64k ($_o2), reads back zeroes"
	else
		bf_step trim FAIL "write: $_o trim: $_o2 nonzero bytes after trim: ${nz:-?}"
	fi

	# 3. persistent grants after all that
	iss=$(bf_x xvda grants_issued) reu=$(bf_x xvda grants_reused) err=$(bf_errs xvda)
	st="$(bf_xps xvda requests segments requests_indirect requests_split grants_issued grants_reused map_ops_saved bounce_bytes slot_waits) errors=$err"
	lim=$(( $(bf_x xvda nr_queues) * 1056 ))
	st="$st; after fio-mixed: issued +$((iss - iss0)) reused +$((reu - reu0))"
	if [ "$(bf_x xvda persistent)" = 1 ] && [ "${reu:-0}" -gt "${iss:-0}" ] &&
	   [ "${iss:-0}" -le "$lim" ] && [ $((reu - reu0)) -gt $((iss - iss0)) ] && [ "$err" = 0 ]; then
		bf_step persistent PASS "$st"
	else
		bf_step persistent FAIL "want persistent=1, reused > issued <= $lim, errors 0: $st"
	fi

	# the data set the reloads read back, on xvdb
	# shellcheck disable=SC2086 # word splitting intended: fio arguments
	if ! o=$(bf_fio ref 240 $BF_REF); then
		echo "xps: reference write failed: $o"
	fi

	# 4. parameter variants (module reloads)
	bf_variant var-nopersist persistent=0 feature_persistent=0
	bf_zero_copy
	bf_zero_copy_4k
	bf_variant var-copy zero_copy=0 feature_persistent=0 zero_copy=0
	# one reload for the three limits (a reload and a verify each took
	# 130-160 s of the lab boot's budget, 2026-12-03)
	bf_variant var-limits "nr_queues=1 ring_pages=4 max_indirect_segments=0" \
		max_queues=1 max_ring_page_order=2 max_indirect_segments=0
	# back to the defaults
	bf_unload && bf_load || echo "xps: reload with defaults failed"

	# 6. unbind/bind and rmmod/modprobe cycles, verify in between
	bad=0 detail='' i=1
	while [ $i -le $BF_CYCLES ]; do
		if [ $((i % 2)) = 1 ]; then
			how=unbind
			bf_unbind_all
			for d in /sys/bus/xen/devices/vbd-*; do
				echo "${d##*/}" >/sys/bus/xen/drivers/$BF_DRV/bind
			done
			wait_for 30 test -r /sys/block/xvda/xps/requests && wait_for 10 test -b /dev/xvdb
			ok=$?
		else
			how=unbind+rmmod+modprobe
			bf_unload && bf_load; ok=$?
		fi
		# shellcheck disable=SC2086 # word splitting intended: fio arguments
		if [ $ok != 0 ]; then
			bad=$((bad + 1)); detail="$detail $i:$how-no-disk"
		elif ! o=$(bf_fio "cyc$i" 120 $BF_REF --verify_only); then
			bad=$((bad + 1)); detail="$detail $i:$how-verify:$o"
		fi
		i=$((i + 1))
	done
	if [ $bad = 0 ]; then
		bf_step cycles PASS "$BF_CYCLES cycles (unbind/bind, unbind+rmmod/modprobe alternating), 6M verify_only after each; $(bf_xps xvda errors_io errors_protocol errors_revoke)"
	else
		bf_step cycles FAIL "$bad of $BF_CYCLES bad:$detail"
	fi

	# 5. filesystem round trip on xvda
	bf_fs_step

	# 7. block-detach during I/O, then attach
	fio --name=detach --filename=/dev/xvdb --ioengine=libaio --direct=1 --rw=randrw --allow_file_create=0 \
		--bs=64k --size=64M --iodepth=8 --time_based --runtime=300 >/tmp/fio-detach.log 2>&1 &
	fpid=$!
	sleep 3
	r=$(rpc detach)
	t=$(up)
	if wait_for 60 sh -c "! kill -0 $fpid 2>/dev/null"; then
		wait $fpid; frc=$?
		gone=no; wait_for 30 sh -c '! test -e /sys/block/xvdb' && gone=yes
		if [ "$frc" != 0 ] && [ $gone = yes ]; then
			bf_step detach PASS "fio rc=$frc ended $(since "$t")s after block-detach ($(grep -m1 -oE 'error=[A-Za-z/ ]+' /tmp/fio-detach.log | head -n1)), xvdb gone; $(rpc detach-log)"
		else
			bf_step detach FAIL "fio rc=$frc xvdb gone=$gone; $(rpc detach-log)"
		fi
	else
		kill -9 $fpid 2>/dev/null
		bf_step detach FAIL "fio still running 60s after block-detach ($r; $(rpc detach-log)): hang"
	fi
	r=$(rpc attach)
	if [ "$r" = ok ] && wait_for 60 test -r /sys/block/xvdb/xps/requests &&
	   o=$(bf_fio attach 120 --name=attach --filename=/dev/xvdb --rw=randwrite \
		--bssplit=4k/50:64k/50 --size=4M --iodepth=8 --verify=crc32c); then
		bf_step attach PASS "xvdb back ($(bf_drv xvdb)), verify $o"
	else
		bf_step attach FAIL "attach: $r; xvdb=$(test -e /sys/block/xvdb && echo present || echo absent) ${o:-}"
	fi

	# leaks: every grant back after the last unload
	bf_leaks_step
	bf_fail_rest "not reached"
}
