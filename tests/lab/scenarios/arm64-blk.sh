# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034 # the scenario interface (<fn>_steps, _budget, _domus,
# RPC_REPLY, BF_SCN...) is read by dom0-init, the judge and the helpers
# arm64-blk - xen-blkfront-64k against the stock arm64 blkback on guests
# of three page sizes, side by side (arm64 lab only: tests/lab/lab --arch
# arm64).  One domU per page size, each with xvda on a loop device:
#   a4k   Debian's arm64 6.1 kernel (4 KB pages)
#   a16k  Debian's 6.12 arm64-16k kernel (16 KB pages)
#   a64k  6.1 with 64 KB pages (cross-built, lib/arm64-kernel.sh)
# The domUs have no fio: xps-verify (tests/lab/tools) writes and checks a
# per-sector pattern with block sizes from 512 B to 1 MB, buffers at
# 512 B offsets, 4 threads, then reads it back in other sizes.
#
# Steps, for each PS of 4k 16k 64k (the step names carry it):
#   PS-load        the suite's driver owns xvda (vbd-64k), the stock
#                  xen-blkfront never loaded, PAGE_SIZE is PS
#   PS-persist     defaults (persistent grants, indirect segments): the
#                  pattern verifies; grant pool: PS/4 KB grants per pool
#                  page; 1 MB sequential reads: requests of at least
#                  512 KB (segments per request >= 128)
#   PS-zero-copy   feature_persistent=0: pages granted in place, PS/4 KB
#                  grants per page; verifies
#   PS-copy        feature_persistent=0 zero_copy=0: bounce copies; verifies
#   PS-noindirect  max_indirect_segments=0: at most 11 segments per ring
#                  request, so a 64 KB page's 16 grants are split across
#                  requests; verifies, requests_split > 0 where PS > 16 KB
#   PS-fs          mke2fs, a tree of files written, remounted, compared
#   PS-backmap     16k and 64k only: xen-grant-pool's backend cache on
#                  this page size: the domU grants AB_BM_GRANTS 4 KB slots
#                  to itself and maps them back through the cache (the
#                  selftest's front and back, as grant-pool.sh runs them
#                  across dom0 and a domU); the pattern verifies, the
#                  cache's pages are ceil(grants / (PS / 4 KB)) (the
#                  selftest checks it), and after the release nothing is
#                  mapped and no grant of the step is left.  Not on 4k:
#                  one grant per page there, as in the x86 grant-pool
#                  scenario; and Debian's arm64 6.1 domU answers the first
#                  ballooned page a mapping needs with a WARNING in
#                  vmemmap_populate (its balloon's memory hotplug; lab,
#                  2026-12-04), a stock kernel fault no step here is for
#   PS-unload      unbind, rmmod: no grant-pool page left

# ab_steps PS: the steps of one page size
ab_steps() {
	if [ "$1" = 4k ]; then echo load persist zero-copy copy noindirect fs unload
	else echo load persist zero-copy copy noindirect fs backmap unload; fi
}
arm64_blk_steps="cpu-selfcheck"
for _ps in 4k 16k 64k; do
	for _s in $(ab_steps $_ps); do
		arm64_blk_steps="$arm64_blk_steps $_ps-$_s"
	done
done
# 55-84 s measured on the 2 cores: 600 s is the hang limit, not a target
arm64_blk_budget=600
arm64_blk_domus="a4k a16k a64k"
AB_MOD=xen-blkfront-64k
AB_DRV=vbd-64k
AB_BM_GRANTS=40

# a64_loops TAG MB PS...: dom0, a loop device of MB per page size, its
# name in /run/xps/TAG-PS.loop (bench-a64 uses these too)
a64_loops() {
	_tag=$1 _mb=$2; shift 2
	for _d in "$@"; do
		truncate -s "${_mb}M" "/tmp/$_tag-$_d.img" || return 1
		_l=$(losetup -f) && losetup "$_l" "/tmp/$_tag-$_d.img" || return 1
		echo "$_l" >"/run/xps/$_tag-$_d.loop"
	done
}
# a64_guest PS: the xl lines that boot the PS guest kernel and its image
a64_guest() {
	echo "kernel = \"/root/Image-$1\""
	echo "ramdisk = \"/xps/domU-$1.cpio\""
}

arm64_blk_dom0_prepare() { a64_loops ab 96 4k 16k 64k; }

arm64_blk_domU_cfg() {
	_ps=${1#a}
	a64_guest "$_ps"
	echo "memory = 448"
	echo "vcpus = 2"
	echo "disk = [ 'format=raw, vdev=xvda, access=rw, script=xps-block, target=$(cat "/run/xps/ab-$_ps.loop")' ]"
}

arm64_blk_domU_cmdline() { echo "module_blacklist=xen_blkfront"; }

ab_x() { cat "/sys/block/xvda/xps/$1" 2>/dev/null; }
ab_gp() { # ab_gp KEY: the grant pool's global statistic
	awk -v k="$1" '$1 == k { print $2 }' /sys/kernel/debug/xen-grant-pool/stats 2>/dev/null
}
ab_load() { # ab_load PARAM...: (re)load the driver, xvda back within 60 s
	if [ -e /sys/bus/xen/drivers/$AB_DRV/vbd-51712 ]; then
		echo vbd-51712 >/sys/bus/xen/drivers/$AB_DRV/unbind
	fi
	rmmod $AB_MOD 2>/dev/null
	modprobe $AB_MOD "$@" && wait_for 60 test -r /sys/block/xvda/xps/requests
}
# ab_verify TAG OFFSET SIZE BS...: write + verify, then a read-back in
# other sizes; prints the figures; fails on any bad sector or I/O error.
ab_verify() {
	_tag=$1 _off=$2 _sz=$3 _bs=$4
	_seed=$(( $(cat /tmp/ab.seed 2>/dev/null || echo 100) + 1 ))
	echo "$_seed" >/tmp/ab.seed
	xps-verify -f /dev/xvda -o "$_off" -s "$_sz" -b "$_bs" -a 512 -j 4 -S "$_seed" >"/tmp/ab-$_tag.log" 2>&1 &&
	xps-verify -v -f /dev/xvda -o "$_off" -s "$_sz" -b 1536,12k,192k,1m -a 1024 -j 3 -S "$_seed" >>"/tmp/ab-$_tag.log" 2>&1
	_rc=$?
	tr '\n' ' ' <"/tmp/ab-$_tag.log" | sed 's/  */ /g' | cut -c1-400
	return $_rc
}
AB_BS=512,1k,3584,4k,16k,60k,64k,256k,1m

ab_page_kb() {
	awk '/^KernelPageSize:/ { print $2; exit }' /proc/self/smaps
}

arm64_blk_domU() {
	ps=${1#a}
	want_kb=${ps%k}
	# --- load
	if ! modprobe xen-grant-pool || ! ab_load; then
		fail "arm64-blk/$ps-load" "modprobe or no xvda: $(dmesg | grep -iE 'vbd|xbf|blkfront|grant' | tail -n 3 | tr '\n' ' ')"
		for s in $(ab_steps "$ps"); do [ "$s" = load ] || fail "arm64-blk/$ps-$s" "not loaded"; done
		return
	fi
	drv=$(basename "$(readlink /sys/block/xvda/device/driver 2>/dev/null)")
	pkb=$(ab_page_kb)
	if [ "$drv" = $AB_DRV ] && [ "$pkb" = "$want_kb" ] && ! lsmod | grep -q '^xen_blkfront '; then
		pass "arm64-blk/$ps-load" "kernel $(uname -r) page ${pkb} kB driver $drv $(dmesg | grep -m1 'xvda: [0-9]* sectors' | sed 's/.*xvda: //')"
	else
		fail "arm64-blk/$ps-load" "driver=$drv page=${pkb}kB want ${want_kb}kB stock=$(lsmod | grep -c '^xen_blkfront ')"
	fi

	# --- persistent grants, indirect segments (the defaults)
	r0=$(ab_x requests) s0=$(ab_x segments)
	if o=$(ab_verify persist 0 24M "$AB_BS"); then
		# 1 MB sequential reads: the biggest requests the queue allows
		r1=$(ab_x requests) s1=$(ab_x segments)
		dd if=/dev/xvda of=/dev/null bs=1M count=16 iflag=direct 2>/dev/null
		r2=$(ab_x requests) s2=$(ab_x segments)
		per=$(( (s2 - s1) / (r2 - r1 > 0 ? r2 - r1 : 1) ))
		pages=$(ab_gp pages_live) grants=$(ab_gp grants_live)
		gpp=$(( grants / (pages > 0 ? pages : 1) ))
		det="persistent=$(ab_x persistent) indirect=$(ab_x max_indirect_segments) max_hw_kb=$(cat /sys/block/xvda/queue/max_hw_sectors_kb) grant pool: $grants grants in $pages pages = $gpp per page; 1M reads: $((r2 - r1)) requests, $per segments each; reused=$(ab_x grants_reused) bounce_bytes=$(ab_x bounce_bytes); $o"
		if [ "$(ab_x persistent)" = 1 ] && [ "$gpp" = $((want_kb / 4)) ] && [ "$per" -ge 128 ] &&
		   [ "$(ab_x errors_io)" = 0 ]; then
			pass "arm64-blk/$ps-persist" "$det"
		else
			fail "arm64-blk/$ps-persist" "want persistent=1, $((want_kb / 4)) grants per page, >= 128 segments per 1M-read request: $det"
		fi
	else
		fail "arm64-blk/$ps-persist" "verify: $o"
	fi
	: "$r0" "$s0"

	# --- zero copy (no persistent grants, trusted backend)
	if ab_load feature_persistent=0 && [ "$(ab_x zero_copy)" = 1 ]; then
		z0=$(ab_x zero_copy_requests) g0=$(ab_x zero_copy_grants)
		if o=$(ab_verify zc 24M 16M "$AB_BS"); then
			dz=$(( $(ab_x zero_copy_requests) - z0 )) dg=$(( $(ab_x zero_copy_grants) - g0 ))
			pass "arm64-blk/$ps-zero-copy" "requests +$dz grants +$dg fallbacks $(ab_x zero_copy_fallbacks) bounce_bytes $(ab_x bounce_bytes); $o"
		else
			fail "arm64-blk/$ps-zero-copy" "verify: $o"
		fi
	else
		fail "arm64-blk/$ps-zero-copy" "reload feature_persistent=0: zero_copy=$(ab_x zero_copy)"
	fi

	# --- bounce copies without persistent grants
	if ab_load feature_persistent=0 zero_copy=0 && [ "$(ab_x zero_copy)" = 0 ]; then
		if o=$(ab_verify copy 40M 16M "$AB_BS") && [ "$(ab_x bounce_bytes)" -gt 0 ]; then
			pass "arm64-blk/$ps-copy" "bounce_bytes=$(ab_x bounce_bytes) bounce_copies=$(ab_x bounce_copies); $o"
		else
			fail "arm64-blk/$ps-copy" "bounce_bytes=$(ab_x bounce_bytes): $o"
		fi
	else
		fail "arm64-blk/$ps-copy" "reload zero_copy=0 failed"
	fi

	# --- no indirect segments: 11 per ring request
	if ab_load max_indirect_segments=0 && [ "$(ab_x max_indirect_segments)" = 0 ]; then
		if o=$(ab_verify noind 56M 16M "$AB_BS"); then
			det="requests=$(ab_x requests) split=$(ab_x requests_split) indirect=$(ab_x requests_indirect) max_hw_kb=$(cat /sys/block/xvda/queue/max_hw_sectors_kb); $o"
			if [ "$(ab_x requests_indirect)" = 0 ] &&
			   { [ "$want_kb" -le 16 ] || [ "$(ab_x requests_split)" -gt 0 ]; }; then
				pass "arm64-blk/$ps-noindirect" "$det"
			else
				fail "arm64-blk/$ps-noindirect" "want no indirect request (and splits on a 64 KB guest): $det"
			fi
		else
			fail "arm64-blk/$ps-noindirect" "verify: $o"
		fi
	else
		fail "arm64-blk/$ps-noindirect" "reload max_indirect_segments=0 failed"
	fi

	# --- filesystem round trip (defaults again)
	if ab_load && o=$(ab_fs); then
		pass "arm64-blk/$ps-fs" "$o"
	else
		fail "arm64-blk/$ps-fs" "${o:-reload failed}"
	fi

	# --- the backend cache: grants of this domU mapped back into it
	if [ "$ps" = 4k ]; then
		:
	elif o=$(ab_backmap "$AB_BM_GRANTS" $((want_kb / 4))); then
		pass "arm64-blk/$ps-backmap" "$o"
	else
		fail "arm64-blk/$ps-backmap" "$o"
	fi

	# --- unload
	echo vbd-51712 >/sys/bus/xen/drivers/$AB_DRV/unbind 2>/dev/null
	if rmmod $AB_MOD && [ "$(ab_gp pages_live)" = 0 ] && [ "$(ab_gp grants_live)" = 0 ] && rmmod xen-grant-pool; then
		pass "arm64-blk/$ps-unload" "no grant-pool page or grant left; modules removed"
	else
		fail "arm64-blk/$ps-unload" "pages_live=$(ab_gp pages_live) grants_live=$(ab_gp grants_live) $(lsmod | grep -E 'xen_blkfront_64k|xen_grant_pool' | tr '\n' ' ')"
	fi
}

# ab_backmap N G: the selftest grants N slots to this domain and maps
# them back through a backend cache, G grants per page; prints the
# replies; fails unless all verify, per_page is G, and the releases leave
# nothing mapped and only the grants of before (the block pool's).
ab_backmap() {
	_st=/sys/kernel/debug/xen-grant-pool/selftest
	_me=$(xenstore-read domid) || { echo "no domid in xenstore"; return 1; }
	_gl0=$(ab_gp grants_live)
	echo "front $_me $1" >$_st 2>/dev/null; _f=$(head -n1 $_st 2>/dev/null)
	case $_f in ok*) ;; *) echo "front: $_f"; return 1 ;; esac
	echo "back $_me $(kv "$_f" grefs)" >$_st 2>/dev/null; _b=$(head -n1 $_st 2>/dev/null)
	echo back-release >$_st 2>/dev/null; _r=$(head -n1 $_st 2>/dev/null)
	echo front-release >$_st 2>/dev/null; _fr=$(head -n1 $_st 2>/dev/null)
	_live="mapped_live=$(ab_gp mapped_live) mapped_pages_live=$(ab_gp mapped_pages_live) grants_live=$(ab_gp grants_live)"
	echo "back: $_b; $_r; $_fr; $_live (before: grants_live=$_gl0)"
	case $_b in ok*) ;; *) return 1 ;; esac
	[ "$(kv "$_b" verified)" = "$1" ] && [ "$(kv "$_b" per_page)" = "$2" ] &&
		[ "$(kv "$_fr" busy)" = 0 ] &&
		[ "$_live" = "mapped_live=0 mapped_pages_live=0 grants_live=$_gl0" ]
}

# ab_fs: ext2 (busybox mke2fs) mounted by ext4; files written, synced,
# caches dropped, remounted, compared.
ab_fs() {
	modprobe ext4 2>/dev/null
	mke2fs -q -b 4096 /dev/xvda 16384 >/tmp/ab-mkfs.log 2>&1 || { echo "mke2fs: $(tail -n 2 /tmp/ab-mkfs.log)"; return 1; }
	mkdir -p /mnt/ab && mount -t ext4 /dev/xvda /mnt/ab || { echo "mount failed: $(dmesg | tail -n 2 | tr '\n' ' ')"; return 1; }
	mkdir -p /mnt/ab/t/mods /mnt/ab/t/rand
	cp -a "/lib/modules/$(uname -r)" /mnt/ab/t/mods/ 2>/dev/null
	_i=0
	for _k in 1 3 4 7 16 33 64 100 250 1024; do
		dd if=/dev/urandom of=/mnt/ab/t/rand/f$_i bs=1k count=$_k 2>/dev/null
		dd if=/dev/urandom of=/mnt/ab/t/rand/g$_i bs=512 count=$((_k + 1)) 2>/dev/null
		_i=$((_i + 1))
	done
	(cd /mnt/ab/t && find . -type f | sort | xargs sha256sum) >/tmp/ab-fs.sums
	_n=$(wc -l </tmp/ab-fs.sums) _kb=$(du -sk /mnt/ab/t | cut -f1)
	sync; umount /mnt/ab || { echo "umount failed"; return 1; }
	echo 3 >/proc/sys/vm/drop_caches
	mount -t ext4 -o ro /dev/xvda /mnt/ab || { echo "remount failed"; return 1; }
	(cd /mnt/ab/t && sha256sum -c /tmp/ab-fs.sums) >/tmp/ab-fs.check 2>&1; _rc=$?
	umount /mnt/ab
	[ $_rc = 0 ] || { echo "sha256 mismatch: $(grep -v ': OK' /tmp/ab-fs.check | head -n 3 | tr '\n' ' ')"; return 1; }
	echo "$_n files, $_kb kB: sha256 equal after remount"
}
