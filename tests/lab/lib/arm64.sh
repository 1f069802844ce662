# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# arm64.sh - the arm64 lab: Xen 4.17 arm64 under qemu-system-aarch64
# (virt, virtualization=on, GICv3, TCG), Debian's arm64 6.1 dom0 and xl
# domUs of three page sizes:
#   4k   Debian's arm64 6.1 kernel (the dom0 kernel)
#   16k  Debian's linux-image-6.12.*+deb12-arm64-16k (a stock kernel)
#   64k  6.1 cross-built with 64 KB pages (lib/arm64-kernel.sh)
# No arm64 code runs on the host: the arm64 packages are unpacked with
# dpkg-deb, never installed or configured, and the guests' root
# filesystems are initramfs images of busybox, the Xen tools and their
# shared libraries.
#
# Cache: $LAB_CACHE/arm64/
#   debs/             arm64 .debs (apt-get download PKG:arm64)
#   k64/<key>/        the 64 KB kernel (lib/arm64-kernel.sh)
#   images/<key>/     xen dom0-Image dom0-base.cpio.gz (it holds the domU
#                     kernels as /root/Image-<ps>) domU-<ps>-base.cpio
#                     manifest
# <key> hashes every package's version, the k64 key and this file.

# dom0: the toolstack and what it links; domU: busybox, kmod, xenstore.
A64_DOM0_PKGS="xen-utils-4.17 xen-utils-common xenstore-utils libxenmisc4.17 libxenstore4 libxencall1 libxenevtchn1 libxenforeignmemory1 libxengnttab1 libxentoollog1 libxentoolcore1 libxendevicemodel1 libxenhypfs1 libyajl2 libc6 libgcc-s1 libncurses6 libtinfo6 libuuid1 libfdt1 libzstd1 liblzma5 libbz2-1.0 zlib1g busybox-static kmod libssl3"
A64_DOMU_PROGS="/bin/kmod /usr/bin/xenstore"
A64_XEN_PKG=xen-hypervisor-4.17-arm64
A64_DOM0_MODS="xen-evtchn xenfs xen-gntdev xen-gntalloc xen-privcmd xen-blkback loop xen-netback bridge"
A64_DOMU_MODS="xen-blkfront ext4"
# where the kernel has them as modules (ext4 asks for crc32c at mount;
# the 64 KB kernel has it built in)
A64_DOMU_OPT_MODS="crc32c_generic"
# XPS_LAB_A64_SIZES: a subset for a quicker look (the scenarios still
# expect every size: the missing ones fail)
A64_PAGE_SIZES=${XPS_LAB_A64_SIZES:-4k 16k 64k}
A64_TRIPLET=aarch64-linux-gnu

# a64_kver PS: the kernel release of the PS guest (4k: the arm64 twin of
# the x86 lab's kernel, so both labs test the same 6.1 ABI).
a64_kver() {
	local k
	case "$1" in
	4k) k=$(lab_kver | sed 's/-amd64$/-arm64/') ;;
	16k) k=$(apt-cache show --no-all-versions linux-headers-6.12-arm64-16k:arm64 2>/dev/null |
		sed -n 's/^Depends:.*linux-headers-\([0-9][^ ,]*-arm64-16k\).*/\1/p' | head -n1) ;;
	64k) k64_build >&2; k=$(cat "$K64_DIR/kver") ;;
	*) die "page size $1: one of $A64_PAGE_SIZES" ;;
	esac
	[ -n "$k" ] || die "no $1 arm64 kernel known to apt (dpkg --add-architecture arm64 && apt-get update; scripts/install-deps.sh does both)"
	echo "$k"
}

# a64_kdir PS: a header tree to build the suite's modules for PS against.
a64_kdir() {
	case "$1" in
	4k|16k) "$REPO_DIR/scripts/headers.sh" "linux-headers-$(a64_kver "$1"):arm64" ;;
	64k) k64_build >&2; echo "$K64_DIR/kdir" ;;
	esac
}

a64_has() { case " $A64_PAGE_SIZES " in *" $1 "*) return 0 ;; esac; return 1; }

# a64_fetch PKG: the arm64 .deb of PKG's candidate, cached in arm64/debs
a64_fetch() { fetch_deb "$1:arm64" "$LAB_CACHE/arm64/debs"; }

a64_images_key() {
	local p
	{
		# shellcheck disable=SC2046
		apt_candidates $(for p in $A64_DOM0_PKGS $A64_XEN_PKG "linux-image-$(a64_kver 4k)" \
			"linux-image-$(a64_kver 16k)-unsigned"; do echo "$p:arm64"; done)
		echo "sizes=$A64_PAGE_SIZES"
		! a64_has 64k || k64_key
		sha256sum <"$LAB_DIR/lib/arm64.sh"
	} | sha256sum | cut -c1-16
}

# a64_needed ROOT FILE...: the shared libraries FILEs load, recursively,
# as paths inside ROOT (read from the ELF headers: nothing arm64 runs).
a64_needed() {
	local root=$1 f so d seen=" " todo; shift
	todo="$*"
	while [ -n "$todo" ]; do
		# shellcheck disable=SC2086 # word splitting intended: a list
		set -- $todo; f=$1; shift; todo="$*"
		for so in $(readelf -d "$root$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case "$seen" in *" $so "*) continue ;; esac
			seen="$seen$so "
			for d in /lib/$A64_TRIPLET /usr/lib/$A64_TRIPLET /lib /usr/lib; do
				if [ -e "$root$d/$so" ]; then echo "$d/$so"; todo="$todo $d/$so"; continue 2; fi
			done
			die "arm64 image: $f needs $so, which no unpacked package has (add its package to A64_DOM0_PKGS)"
		done
	done
	echo /lib/ld-linux-aarch64.so.1
}

# a64_copy ROOT DEST PATH...: PATHs (and symlink targets) from ROOT to DEST.
a64_copy() {
	local root=$1 dest=$2 p; shift 2
	for p in "$@"; do
		mkdir -p "$dest$(dirname "$p")"
		cp -a "$root$p" "$dest$p"
		if [ -L "$root$p" ]; then
			local t; t=$(readlink "$root$p")
			case "$t" in /*) ;; *) t=$(dirname "$p")/$t ;; esac
			[ -e "$dest$t" ] || a64_copy "$root" "$dest" "$t"
		fi
	done
}

# a64_kernel PS OUT: unpack the PS kernel's package into OUT (tree with
# /boot and /lib/modules, depmod'ed); prints the kernel image's path.
a64_kernel() {
	local ps=$1 out=$2 kver deb
	kver=$(a64_kver "$ps")
	mkdir -p "$out"
	case "$ps" in
	4k) deb=$(a64_fetch "linux-image-$kver") ;;
	16k) deb=$(a64_fetch "linux-image-$kver-unsigned") ;;
	64k)
		k64_build >&2
		cp -a "$K64_DIR/mods/." "$out/"
		mkdir -p "$out/boot"; cp "$K64_DIR/Image.gz" "$out/boot/vmlinuz-$kver"
		deb= ;;
	esac
	[ -z "$deb" ] || dpkg-deb -x "$deb" "$out"
	depmod -b "$out" "$kver"
	echo "$out/boot/vmlinuz-$kver"
}

a64_build_dom0() { # a64_build_dom0 ROOT KTREE KVER OUT
	local root=$1 kt=$2 kver=$3 out=$4 d
	d=$(mktemp -d "$out.dom0.XXXX")
	cp -a "$root/." "$d/"
	rm -rf "$d"/usr/share/{doc,man,info,locale,lintian,bug,bash-completion} \
		"$d"/usr/lib/python3* "$d"/usr/lib/$A64_TRIPLET/{gconv,engines-3,ossl-modules}
	# Everything the toolstack runs must find its libraries.
	a64_needed "$d" /usr/lib/xen-4.17/bin/xl /usr/lib/xen-4.17/bin/xenstored \
		/usr/lib/xen-4.17/bin/xenconsoled /usr/lib/xen-4.17/bin/xen-init-dom0 \
		/usr/lib/xen-4.17/bin/libxl-save-helper /usr/bin/xenstore /bin/kmod >/dev/null
	mkdir -p "$d"/{proc,sys,dev,tmp,run,root,sbin,usr/sbin} "$d"/var/{lib,log,run}/xen
	ln -sf busybox "$d/bin/sh"
	for a in modprobe insmod rmmod lsmod depmod modinfo; do ln -sf /bin/kmod "$d/sbin/$a"; done
	# shellcheck disable=SC2086 # word splitting intended: a list
	copy_mods "$kt" "$d" "$kver" $A64_DOM0_MODS
	local ps
	for ps in $A64_PAGE_SIZES; do cp "$out/Image-$ps" "$d/root/Image-$ps"; done
	cpio_of "$d" | gzip -1 >"$out/dom0-base.cpio.gz"
	rm -rf "$d"
}

a64_build_domU() { # a64_build_domU ROOT KTREE KVER OUT PS
	local root=$1 kt=$2 kver=$3 out=$4 ps=$5 d a p
	d=$(mktemp -d "$out.domU.XXXX")
	mkdir -p "$d"/{bin,sbin,proc,sys,dev,tmp,etc,run,usr/bin,usr/sbin}
	# shellcheck disable=SC2086,SC2046 # word splitting intended: lists
	a64_copy "$root" "$d" /bin/busybox $A64_DOMU_PROGS $(a64_needed "$root" $A64_DOMU_PROGS)
	for a in modprobe insmod rmmod lsmod depmod modinfo; do ln -sf /bin/kmod "$d/sbin/$a"; done
	for a in read write ls list exists rm chmod watch; do ln -sf xenstore "$d/usr/bin/xenstore-$a"; done
	ln -sf busybox "$d/bin/sh"
	local mods=$A64_DOMU_MODS m
	for m in $A64_DOMU_OPT_MODS; do
		[ -z "$(mod_closure "$kt" "$kver" "$m")" ] || mods="$mods $m"
	done
	# shellcheck disable=SC2086 # word splitting intended: a list
	copy_mods "$kt" "$d" "$kver" $mods
	cpio_of "$d" >"$out/domU-$ps-base.cpio"
	rm -rf "$d"
}

# a64_images_build [--rebuild]: ensure the arm64 image set; sets IMAGES_DIR.
a64_images_build() {
	local key dir tmp t0 p ps kver img
	! a64_has 64k || k64_build
	key=$(a64_images_key); dir=$LAB_CACHE/arm64/images/$key
	if [ -f "$dir/manifest" ] && [ "${1:-}" != --rebuild ]; then
		log "images: reusing $dir"; IMAGES_DIR=$dir; return
	fi
	mkdir -p "$LAB_CACHE/arm64/images"
	exec 9>"$LAB_CACHE/arm64/.lock"
	flock 9
	if [ -f "$dir/manifest" ] && [ "${1:-}" != --rebuild ]; then
		exec 9>&-; IMAGES_DIR=$dir; return
	fi
	need_tools apt-get dpkg-deb cpio gzip depmod readelf
	t0=$(now)
	tmp=$dir.tmp.$$; rm -rf "$tmp"; mkdir -p "$tmp/root"
	for p in $A64_DOM0_PKGS; do dpkg-deb -x "$(a64_fetch "$p")" "$tmp/root"; done
	dpkg-deb --fsys-tarfile "$(a64_fetch $A64_XEN_PKG)" | tar -xO ./boot/xen-4.17-arm64 >"$tmp/xen"
	for ps in $A64_PAGE_SIZES; do
		img=$(a64_kernel "$ps" "$tmp/k-$ps")
		cp "$img" "$tmp/Image-$ps"
		a64_build_domU "$tmp/root" "$tmp/k-$ps" "$(a64_kver "$ps")" "$tmp" "$ps"
	done
	cp "$tmp/Image-4k" "$tmp/dom0-Image"
	a64_build_dom0 "$tmp/root" "$tmp/k-4k" "$(a64_kver 4k)" "$tmp"
	# the domU kernels live on inside dom0-base.cpio.gz only
	rm -rf "$tmp"/root "$tmp"/k-* "$tmp"/Image-*
	{
		echo "arch=arm64"
		echo "kver=$(a64_kver 4k)"
		for ps in $A64_PAGE_SIZES; do echo "kver_$ps=$(a64_kver "$ps")"; done
		for p in $A64_DOM0_PKGS $A64_XEN_PKG; do echo "$p=$(apt_candidate "$p:arm64")"; done
		! a64_has 64k || echo "k64_key=$(k64_key)"
		echo "images_key=$key"
	} >"$tmp/manifest"
	rm -rf "$dir"; mv "$tmp" "$dir"
	find "$LAB_CACHE/arm64/images" -mindepth 1 -maxdepth 1 ! -name "$key" -exec rm -rf {} +
	time_line images-build "$t0"
	log "images: built $dir ($(du -sh "$dir" | cut -f1))"
	# shellcheck disable=SC2034 # IMAGES_DIR is read by its callers
	IMAGES_DIR=$dir
	exec 9>&-
}

# a64_tools OUT: the guests' own test programs, built static for arm64.
a64_tools() {
	mkdir -p "$1"
	$A64_TRIPLET-gcc -O2 -Wall -static -pthread -o "$1/xps-verify" "$LAB_DIR/tools/xps-verify.c" ||
		die "cannot cross-build xps-verify"
}

# a64_overlay_build IMAGES WORK MODULES SCENARIOS...: WORK/dom0.cpio, with
# one domU image per page size (its kernel's modules from MODULES/<kver>).
a64_overlay_build() {
	local img=$1 work=$2 modules=$3 ps kver m size; shift 3
	rm -rf "$work"; mkdir -p "$work/o-dom0/xps" "$work/tools"
	a64_tools "$work/tools"
	for ps in $A64_PAGE_SIZES; do
		kver=$(sed -n "s/^kver_$ps=//p" "$img/manifest")
		m=
		if [ -n "$modules" ]; then
			m=$modules/$kver
			[ -d "$m" ] || die "--modules $modules has no $kver/ (scripts/lab-modules.sh --arch arm64)"
			check_modules "$m" "$kver"
		fi
		rm -rf "$work/o-domU"; mkdir -p "$work/o-domU/usr/bin"
		overlay_tree "$work/o-domU" domU "$kver" "$m" "$@"
		cp "$work/tools/xps-verify" "$work/o-domU/usr/bin/"
		{ cat "$img/domU-$ps-base.cpio"; cpio_of "$work/o-domU"; } >"$work/o-dom0/xps/domU-$ps.cpio"
	done
	overlay_tree "$work/o-dom0" dom0 "$(sed -n 's/^kver=//p' "$img/manifest")" "" "$@"
	mkdir -p "$work/o-dom0/usr/bin"; cp "$work/tools/xps-verify" "$work/o-dom0/usr/bin/"
	cp "$img/dom0-base.cpio.gz" "$work/dom0.cpio"
	size=$(stat -c %s "$work/dom0.cpio")
	head -c $(( (4 - size % 4) % 4 )) /dev/zero >>"$work/dom0.cpio"
	cpio_of "$work/o-dom0" >>"$work/dom0.cpio"
	rm -rf "$work/o-domU" "$work/o-dom0" "$work/tools"
}

# QEMU: the CPU must have EL2 (Xen) and a 16 KB granule (the 16k guest):
# cortex-a57 has none.
A64_CPU=${XPS_LAB_A64_CPU:-cortex-a76}
A64_MEM=3G
A64_XEN_ARGS="console=dtuart dom0_mem=1024M,max:1024M dom0_max_vcpus=2 loglvl=all guest_loglvl=all console_timestamps=boot"
A64_DOM0_ARGS="console=hvc0 earlycon=xen rdinit=/init loglevel=5"

# a64_qemu IMAGES WORK SERIAL: the QEMU command line (on stdout, NUL-separated).
# QEMU's own DTB sits at 0x48000000: the blobs stay clear of it.
a64_qemu() {
	local img=$1 work=$2 serial=$3
	printf '%s\0' qemu-system-aarch64 \
		-machine virt,virtualization=on,gic-version=3 -accel tcg,thread=multi \
		-cpu "$A64_CPU" -smp 2 -m "$A64_MEM" \
		-display none -monitor none -nic none -no-reboot \
		-serial "file:$serial" \
		-kernel "$img/xen" -append "$A64_XEN_ARGS" \
		-device "guest-loader,addr=0x42000000,kernel=$img/dom0-Image,bootargs=$A64_DOM0_ARGS" \
		-device "guest-loader,addr=0x49000000,initrd=$work/dom0.cpio"
}
