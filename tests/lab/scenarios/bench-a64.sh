# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034 # the scenario interface (<fn>_steps, _budget, _domus,
# RPC_REPLY, BF_SCN...) is read by dom0-init, the judge and the helpers
# bench-a64 - the arm64 benchmark (`make bench-arm64`, never make check):
# on a 64 KB-page guest (XPS_SCN_BENCH_SIZES: 64k by default; 16k too if
# named), the stock xen-blkfront against xen-blkfront-64k, both with
# persistent grants, in paired alternating runs in one boot.
#
# Per run: dom0 detaches xvda, the domU drops its caches and counts its
# free pages, loads the variant's driver, dom0 attaches xvda again; then
# xps-verify writes and verifies 64 MB in 1 MB (default) blocks with 4
# threads (XPS_SCN_BENCH_JOBS: 8 keeps about 2100 grants in flight, as
# many as the stock driver holds from connect, so that ours' on-demand
# pool grows to about the stock driver's count). The free pages are counted again afterwards, caches dropped.
#
# The free pages: the page allocator's own counts, after
# /proc/sys/vm/stat_refresh folded every CPU's pending counter updates
# into them: /proc/zoneinfo's "pages free" of every zone plus the pages
# on the per-CPU free lists ("count:" of every pageset), which MemFree
# leaves out (with 64 KB pages a per-CPU list holds megabytes, and
# MemFree alone once gave ours less than its own pool, 2026-12-01).
#
# Samples (XPS-SAMPLE, scripts/bench/report.py):
#   mem_kb       free memory lost to the connected, exercised driver: its
#                grant pages and everything else it allocated (lower is
#                better)
#   memfree_kb   the same by MemFree alone, as before
#   pool_kb      ours only: grant-pool pages x PAGE_SIZE
#   pool_grants  ours only: the 4 KB grants those pages carry
#   write_mbps, verify_mbps   the pattern's throughput
#   request_kb   the queue's max_hw_sectors_kb (the largest request)
#   backend_rd_kb, backend_wr_kb   KB per request as blkback received them
#                (its statistics of xvda in dom0, rd_sect / rd_req and
#                wr_sect / wr_req, around the xps-verify run): the request
#                sizes measured outside both frontends

BA_SIZES=$(echo "${XPS_SCN_BENCH_SIZES:-64k}" | tr , ' ')
bench_a64_steps="cpu-selfcheck $(for _s in $BA_SIZES; do printf 'attach-%s sweep-%s ' "$_s" "$_s"; done)"
BA_VARIANTS=$(echo "${XPS_SCN_BENCH_VARIANTS:-xen-blkfront:feature_persistent=1,xen-blkfront-64k:feature_persistent=1}" | tr , ' ')
BA_REPS=${XPS_SCN_BENCH_REPS:-5}
BA_BS=${XPS_SCN_BENCH_BS:-1m}
BA_JOBS=${XPS_SCN_BENCH_JOBS:-4}
bench_a64_domus=$(for _s in $BA_SIZES; do printf 'b%s ' "$_s"; done)
bench_a64_budget=$(( 300 + BA_REPS * $(echo "$BA_VARIANTS" | wc -w) * 150 ))

# a64_loops, a64_guest
[ -f /xps/scenarios/arm64-blk.sh ] && . /xps/scenarios/arm64-blk.sh

# shellcheck disable=SC2086
bench_a64_dom0_prepare() { a64_loops ba 160 $BA_SIZES; }

# No disk at boot: each run's driver is loaded before its disk comes.
bench_a64_domU_cfg() {
	a64_guest "${1#b}"
	echo "memory = 768"
	echo "vcpus = 2"
}

bench_a64_rpc() {
	_dom=$1 _cmd=$2
	_name=$(xl domname "$_dom")
	case "$_cmd" in
	detach)
		RPC_REPLY=ok
		if xl block-list "$_name" 2>/dev/null | grep -q '^51712 ' &&
		   ! xl block-detach "$_name" xvda >/tmp/ba-detach.log 2>&1; then
			RPC_REPLY="error reason=block-detach $(tr '\n' ' ' </tmp/ba-detach.log | cut -c1-120)"
		fi ;;
	attach)
		if xl block-attach "$_name" "format=raw, vdev=xvda, access=rw, script=xps-block, target=$(cat "/run/xps/ba-${_name#b}.loop")" >/tmp/ba-attach.log 2>&1; then
			RPC_REPLY=ok
		else
			RPC_REPLY="error reason=block-attach $(tr '\n' ' ' </tmp/ba-attach.log | cut -c1-120)"
		fi ;;
	bstat)	vbd_stat "$_dom" ;;	# (lib.sh)
	*)	RPC_REPLY=unknown-request ;;
	esac
}

# ba_reqkb B0 B1: "READ_KB WRITE_KB", the mean KB per read and per write
# request blkback served between two bstat replies (sectors of 512
# bytes); nothing when either is no reply or a direction saw no request
ba_reqkb() {
	echo "$1 $2" | awk 'NF == 8 && $5 > $1 && $7 > $3 {
		printf "%.1f %.1f\n", ($6 - $2) / 2 / ($5 - $1), ($8 - $4) / 2 / ($7 - $3) }'
}

# ba_free: "FREE_KB MEMFREE_KB" after dropping the caches: the free
# pages as above, and MemFree
ba_free() {
	sync; echo 3 >/proc/sys/vm/drop_caches; sleep 1
	echo 1 >/proc/sys/vm/stat_refresh 2>/dev/null
	awk -v kb="$(awk '/^KernelPageSize:/ { print $2; exit }' /proc/self/smaps)" \
		'FILENAME ~ /zoneinfo/ && $1 == "pages" && $2 == "free" { f += $3 }
		 FILENAME ~ /zoneinfo/ && $1 == "count:" { f += $2 }
		 FILENAME ~ /meminfo/ && $1 == "MemFree:" { m = $2 }
		 END { printf "%d %d\n", f * kb, m }' /proc/zoneinfo /proc/meminfo
}
ba_busname() { case "$1" in xen-blkfront) echo vbd ;; *) echo vbd-64k ;; esac; }

# ba_variant DRIVER:P=V+P=V: detach, free memory, load, attach; sets
# BA_MEM0 (ba_free's two figures).
ba_variant() {
	_drv=${1%%:*} _params=
	case "$1" in *:*) _params=$(echo "${1#*:}" | tr + ' ') ;; esac
	_r=$(rpc detach)
	[ "$_r" = ok ] || { echo "bench-a64: detach: $_r"; return 1; }
	wait_for 60 sh -c '! test -e /sys/block/xvda' || { echo "bench-a64: xvda still there"; return 1; }
	for _m in xen-blkfront xen-blkfront-64k xen-grant-pool; do
		! lsmod | grep -q "^$(echo $_m | tr - _) " || rmmod "$_m" || return 1
	done
	BA_MEM0=$(ba_free)
	# shellcheck disable=SC2086
	modprobe "$_drv" $_params || { echo "bench-a64: modprobe $_drv $_params failed"; return 1; }
	_r=$(rpc attach)
	[ "$_r" = ok ] || { echo "bench-a64: attach: $_r"; return 1; }
	wait_for 60 test -b /dev/xvda &&
		[ "$(basename "$(readlink /sys/block/xvda/device/driver)")" = "$(ba_busname "$_drv")" ]
}

ba_sample() { # ba_sample BENCH METRIC UNIT HIGHER VARIANT RUN VALUE
	echo "XPS-SAMPLE {\"bench\": \"$1\", \"metric\": \"$2\", \"unit\": \"$3\", \"variant\": \"$5\", \"params\": {}, \"run\": $6, \"value\": $7, \"higher_is_better\": $4}"
}

bench_a64_domU() {
	_ps=${1#b}
	if ba_variant "${BA_VARIANTS%% *}"; then
		pass "bench-a64/attach-$_ps" "${BA_VARIANTS%% *} driver=$(basename "$(readlink /sys/block/xvda/device/driver)") page $(awk '/^KernelPageSize:/ { print $2; exit }' /proc/self/smaps) kB"
	else
		fail "bench-a64/attach-$_ps" "no /dev/xvda with ${BA_VARIANTS%% *}"
		return
	fi
	_rep=1 _bad=0 _n=0
	while [ "$_rep" -le "$BA_REPS" ]; do
		_order=$BA_VARIANTS
		[ $((_rep % 2)) = 0 ] && _order=$(echo "$BA_VARIANTS" | tr ' ' '\n' | sed -n '1!G;h;$p' | xargs)
		for _v in $_order; do
			# every run starts from a fresh load: the memory figure
			# is the driver's from connect on
			if ! ba_variant "$_v"; then _bad=$((_bad + 1)); continue; fi
			_drv=${_v%%:*}
			_b="a64-$_ps"
			_b0=$(rpc bstat)
			if ! _o=$(xps-verify -f /dev/xvda -o 0 -s 64M -b "$BA_BS" -a 4096 -j "$BA_JOBS" -S $((_rep * 10 + _n))); then
				echo "bench-a64: $_v run $_rep: $_o"; _bad=$((_bad + 1)); continue
			fi
			_w=$(echo "$_o" | sed -n 's/^write:.*(\([0-9.]*\) MB\/s).*/\1/p')
			_r=$(echo "$_o" | sed -n 's/^verify:.*(\([0-9.]*\) MB\/s).*/\1/p')
			_kb=$(ba_reqkb "$_b0" "$(rpc bstat)")
			if [ -z "$_kb" ]; then
				echo "bench-a64: $_v run $_rep: no blkback statistics ($_b0)"; _bad=$((_bad + 1)); continue
			fi
			# shellcheck disable=SC2086,SC2046 # two figures, before and after
			set -- $BA_MEM0 $(ba_free)
			ba_sample "$_b" mem_kb kB false "$_drv" "$_rep" $(($1 - $3))
			ba_sample "$_b" memfree_kb kB false "$_drv" "$_rep" $(($2 - $4))
			ba_sample "$_b" write_mbps MB/s true "$_drv" "$_rep" "$_w"
			ba_sample "$_b" verify_mbps MB/s true "$_drv" "$_rep" "$_r"
			ba_sample "$_b" request_kb kB true "$_drv" "$_rep" "$(cat /sys/block/xvda/queue/max_hw_sectors_kb)"
			ba_sample "$_b" backend_rd_kb kB true "$_drv" "$_rep" "${_kb% *}"
			ba_sample "$_b" backend_wr_kb kB true "$_drv" "$_rep" "${_kb#* }"
			if [ "$_drv" = xen-blkfront-64k ]; then
				_pp=$(awk '$1 == "pages_live" { print $2 }' /sys/kernel/debug/xen-grant-pool/stats)
				_pg=$(awk '$1 == "grants_live" { print $2 }' /sys/kernel/debug/xen-grant-pool/stats)
				ba_sample "$_b" pool_kb kB false "$_drv" "$_rep" $(( _pp * $(awk '/^KernelPageSize:/ { print $2; exit }' /proc/self/smaps) ))
				ba_sample "$_b" pool_grants grants false "$_drv" "$_rep" "$_pg"
			fi
			_n=$((_n + 1))
		done
		_rep=$((_rep + 1))
	done
	if [ "$_bad" = 0 ] && [ "$_n" -gt 0 ]; then
		pass "bench-a64/sweep-$_ps" "$_n runs"
	else
		fail "bench-a64/sweep-$_ps" "$_n runs, $_bad failed"
	fi
}
