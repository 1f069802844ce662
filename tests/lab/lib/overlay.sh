# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# overlay.sh - per-run initramfs overlays on top of the cached base images.
#
# The kernel unpacks concatenated cpio archives in order, later files
# replacing earlier ones, so a run only archives its own small files
# (init scripts, scenarios, the suite's .ko files) and appends them:
#   dom0.cpio = dom0-base.cpio.gz + pad + dom0 overlay (includes domU.cpio)
#   domU.cpio = domU-base.cpio + domU overlay          (uncompressed)

# overlay_tree DIR ROLE KVER MODULES SCENARIOS...: populate one overlay.
overlay_tree() {
	local d=$1 role=$2 kver=$3 modules=$4 s; shift 4
	mkdir -p "$d/xps/scenarios"
	install -m 0755 "$LAB_DIR/guest/$role-init" "$d/init"
	cp "$LAB_DIR/guest/lib.sh" "$d/xps/lib.sh"
	[ "$role" = domU ] || install -m 0755 "$LAB_DIR/guest/xps-block" "$d/xps/xps-block"
	# x86 dom0 (no libc headers in its image): the lab's host-built
	# tools (bench-netpairs: xps-xtcount; hostile-blk: xps-hostile-blk); and in every x86 guest the
	# instruction-count marker (xps-imark; the benchmarks' counts with
	# XPS_LAB_INSN, boot.sh)
	if [ "$LAB_ARCH" = x86 ]; then
		mkdir -p "$d/xps/bin"
		${CC:-cc} -O2 -Wall -static -s -o "$d/xps/bin/xps-imark" "$LAB_DIR/tools/xps-imark.c" ||
			die "cannot build xps-imark"
	fi
	if [ "$role" = dom0 ] && [ "$LAB_ARCH" = x86 ]; then
		${CC:-cc} -O2 -Wall -static -s -o "$d/xps/bin/xps-xtcount" "$LAB_DIR/tools/xps-xtcount.c" ||
			die "cannot build xps-xtcount"
		# hostile-blk's userspace block backend
		${CC:-cc} -O2 -Wall -Wextra -static -s -o "$d/xps/bin/xps-hostile-blk" \
			"$LAB_DIR/tools/xps-hostile-blk.c" || die "cannot build xps-hostile-blk"
		# hostile-nf's userspace net backend
		${CC:-cc} -O2 -Wall -Wextra -static -s -o "$d/xps/bin/xps-hostile-nb" \
			"$LAB_DIR/tools/xps-hostile-nb.c" || die "cannot build xps-hostile-nb"
	fi
	# hostile-nb's userspace net frontend, in the x86 domUs
	if [ "$role" = domU ] && [ "$LAB_ARCH" = x86 ]; then
		${CC:-cc} -O2 -Wall -Wextra -static -s -o "$d/xps/bin/xps-hostile-nf" \
			"$LAB_DIR/tools/xps-hostile-nf.c" || die "cannot build xps-hostile-nf"
	fi
	# All of them: a scenario may use another's helpers (blkfront-life
	# sources blkfront.sh); only those named run.
	cp "$LAB_DIR"/scenarios/*.sh "$d/xps/scenarios/"
	printf 'SCENARIOS="%s"\nKVER=%s\nARCH=%s\n' "$*" "$kver" "$LAB_ARCH" >"$d/xps/run.conf"
	# Host variables named XPS_SCN_* parametrize scenarios (a benchmark's
	# repetitions and parameter sweep): they reach the guests' run.conf.
	local v
	for v in ${!XPS_SCN_@}; do
		case "${!v}" in *[!A-Za-z0-9_.,:=/+-]*) die "$v: only [A-Za-z0-9_.,:=/+-] allowed" ;; esac
		printf '%s=%s\n' "$v" "${!v}" >>"$d/xps/run.conf"
	done
	# The CPU self-check compares the guests' digests with the host's.
	seq 1 200000 | sha256sum | cut -d' ' -f1 >"$d/xps/selfcheck.sha256"
	if [ -n "$modules" ]; then
		# dom0's Debian rootfs is merged-/usr: /lib is a symlink there, and
		# the kernel's cpio unpacker replaces an existing path of another
		# type, so a "lib" directory in the overlay would delete /lib and
		# every shared library with it.  The domU image has a real /lib.
		# XPS_LAB_MODSUBDIR: updates/<this> (dkms for the modules a
		# DKMS install built, where DKMS itself puts them)
		local md=lib/modules/$kver/updates/${XPS_LAB_MODSUBDIR:-xen-pv-suite}
		[ "$role" = dom0 ] && md=usr/$md
		mkdir -p "$d/$md"
		find "$modules" -name '*.ko' -exec cp {} "$d/$md/" \;
	fi
	# XPS_LAB_MODPROBE_CONF: a modprobe.d file for both guests (the one the
	# packages install)
	if [ -n "${XPS_LAB_MODPROBE_CONF:-}" ]; then
		mkdir -p "$d/etc/modprobe.d"
		cp "$XPS_LAB_MODPROBE_CONF" "$d/etc/modprobe.d/xen-pv-suite.conf"
	fi
}

# check_modules DIR KVER: refuse .ko files built for another kernel (they
# would fail to load in the guests and look like a driver bug).
check_modules() {
	local dir=$1 kver=$2 ko vm n=0
	[ -d "$dir" ] || die "--modules $dir: no such directory"
	while IFS= read -r ko; do
		vm=$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)
		[ "$vm" = "$kver" ] || die "$ko was built for '$vm', the lab boots $kver (make KDIR=/usr/src/linux-headers-$kver)"
		n=$((n + 1))
	done < <(find "$dir" -name '*.ko')
	log "modules: $n .ko file(s) from $dir"
}

# overlay_build IMAGES WORK MODULES SCENARIOS...: writes WORK/dom0.cpio.
overlay_build() {
	local img=$1 work=$2 modules=$3 kver size; shift 3
	kver=$(sed -n 's/^kver=//p' "$img/manifest")
	[ -z "$modules" ] || check_modules "$modules" "$kver"
	case " $* " in *" grant-pool "*)
		[ -n "$modules" ] && [ -n "$(find "$modules" -name xen-grant-pool.ko)" ] ||
			log "warning: no xen-grant-pool.ko in --modules: grant-pool steps will FAIL 'module not built'" ;;
	esac
	rm -rf "$work"; mkdir -p "$work/o-domU" "$work/o-dom0/xps"
	overlay_tree "$work/o-domU" domU "$kver" "$modules" "$@"
	overlay_tree "$work/o-dom0" dom0 "$kver" "$modules" "$@"
	# A scenario that builds C code in its domU (<scenario>_domU_cc=1) gets
	# the toolchain image and the project it builds: the suite's own
	# userspace unit tests with the pure driver code (a real, small C
	# project with a Makefile), as a tarball.
	local cc='' s
	for s in "$@"; do [ "$(scenario_var "$s" domU_cc)" = 1 ] && cc=1; done
	if [ -n "$cc" ]; then
		"$LAB_DIR/tools/pack-project.sh" "$work/o-domU/xps/project.tar" ||
			die "cannot pack the build workload's project"
	fi
	{ cat "$img/domU-base.cpio"; [ -z "$cc" ] || cat "$img/domU-cc.cpio"; cpio_of "$work/o-domU"; } >"$work/o-dom0/xps/domU.cpio"
	cp "$img/dom0-base.cpio.gz" "$work/dom0.cpio"
	# The kernel only looks for the next cpio header at a 4-byte aligned
	# offset after a compressed member; zero bytes in between are skipped.
	size=$(stat -c %s "$work/dom0.cpio")
	head -c $(( (4 - size % 4) % 4 )) /dev/zero >>"$work/dom0.cpio"
	cpio_of "$work/o-dom0" >>"$work/dom0.cpio"
	rm -rf "$work/o-domU" "$work/o-dom0"
}
