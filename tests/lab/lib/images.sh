# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# images.sh - build (or reuse) the cached boot images of the x86 lab.
#
# Cache layout (under $LAB_CACHE):
#   debs/                  .deb files fetched with `apt-get download`
#   rootfs/<rkey>/root     Debian chroot that all guest images come from
#   images/<ikey>/         xen.elf vmlinux dom0-base.cpio.gz domU-base.cpio
#                          domU-cc.cpio
#                          manifest (versions + keys)
# <rkey> hashes the rootfs package set, the apt candidate version of each
# listed package and rootfs.sh; <ikey> hashes <rkey>, the exact versions of
# xen-hypervisor-4.17-amd64 and linux-image-<kver>, and this file.  A changed version or a
# changed image recipe therefore builds a new entry; nothing is overwritten.

# Stock modules (plus their dependencies) each guest image carries.
DOM0_MODS="xen-evtchn xenfs xen-gntdev xen-gntalloc xen-privcmd xen-blkback xen-netback bridge loop null_blk tun dm-mod"
DOMU_MODS="xen-blkfront xen-netfront xen-evtchn xenfs xen-gntdev xen-gntalloc ext4 crc32c_generic"
# Programs copied (with their shared libraries) into the busybox domU image.
# mke2fs/e2fsck (e2fsprogs, in every minbase rootfs) for filesystem tests;
# busybox's own mke2fs makes ext2 only: call /usr/bin/mke2fs by path.
DOMU_PROGS="/usr/bin/fio /usr/bin/iperf3 /bin/kmod /usr/bin/xenstore /usr/bin/sha256sum /sbin/mke2fs /sbin/e2fsck /usr/sbin/ethtool"

images_key() {
	local kver=$1
	printf '%s\n%s=%s\n%s=%s\n%s\n' "$(rootfs_key)" "$XEN_PKG" "$(apt_candidate $XEN_PKG)" \
		"linux-image-$kver" "$(apt_candidate linux-image-"$kver")" \
		"$(sha256sum <"$LAB_DIR/lib/images.sh")" | sha256sum | cut -c1-16
}

# extract_vmlinux BZIMAGE OUT: Xen builds a PV dom0 from the plain ELF in
# milliseconds, but needs 7-15 s under TCG to unpack Debian's XZ bzImage.
extract_vmlinux() {
	local pos
	for pos in $(grep -abo $'\xfd7zXZ\x00' "$1" | cut -d: -f1); do
		tail -c+$((pos + 1)) "$1" | xz -dc >"$2" 2>/dev/null || true
		file "$2" | grep -q ELF && return 0
	done
	die "no ELF vmlinux inside $1"
}

# mod_closure MODROOT KVER MOD...: relative paths of MODs and their deps,
# read from modules.dep (depmod -b on the extracted tree; nothing is
# loaded on the host).
mod_closure() {
	local root=$1 kver=$2; shift 2
	local dep=$root/lib/modules/$kver/modules.dep m
	for m in "$@"; do
		m=${m//-/[-_]}
		awk -v re="/${m}\\.ko(\\.[a-z]+)?:" '$1 ~ re { sub(":", "", $1); print; exit }' "$dep" |
			tr ' ' '\n'
	done | grep . | sort -u
}

# copy_mods SRCROOT DSTROOT KVER MOD...: copy modules + deps, then depmod.
copy_mods() {
	local src=$1 dst=$2 kver=$3; shift 3
	local rel n=0
	for rel in $(mod_closure "$src" "$kver" "$@"); do
		mkdir -p "$dst/lib/modules/$kver/$(dirname "$rel")"
		cp "$src/lib/modules/$kver/$rel" "$dst/lib/modules/$kver/$rel"
		n=$((n + 1))
	done
	[ "$n" -ge "$#" ] || die "module closure of '$*' has only $n files"
	cp "$src/lib/modules/$kver/"modules.{order,builtin,builtin.modinfo} "$dst/lib/modules/$kver/" 2>/dev/null || true
	depmod -b "$dst" "$kver"
}

# cpio_of DIR: newc archive of DIR on stdout.
cpio_of() { (cd "$1" && find . | LC_ALL=C sort | cpio -H newc -o --quiet -R 0:0); }

build_dom0_base() {
	local rootfs=$1 kern=$2 kver=$3 out=$4 d
	d=$(mktemp -d "$out.dom0.XXXX")
	cp -a "$rootfs/." "$d/"
	# Trim what a test boot never reads: every MB is unpacked by an
	# emulated CPU at each boot.
	rm -rf "$d"/usr/share/{doc,man,info,locale,i18n,lintian,bug,zoneinfo} \
		"$d"/var/cache/apt/* "$d"/var/lib/apt/lists/* "$d"/var/cache/debconf/*-old \
		"$d"/usr/lib/x86_64-linux-gnu/gconv "$d"/etc/apt/sources.list.d/* \
		"$d"/usr/include "$d"/usr/lib/x86_64-linux-gnu/tcc
	find "$d/usr/lib/x86_64-linux-gnu" -maxdepth 1 -name '*.a' -delete
	find "$d/usr/lib" -name __pycache__ -prune -exec rm -rf {} + 2>/dev/null || true
	# shellcheck disable=SC2086 # word splitting intended: a list
	copy_mods "$kern" "$d" "$kver" $DOM0_MODS
	mkdir -p "$d/root"
	cp "$out/vmlinux" "$d/root/vmlinux"   # domU kernel (same build as dom0)
	cpio_of "$d" | gzip -1 >"$out/dom0-base.cpio.gz"
	rm -rf "$d"
}

# copy_libs ROOTFS DEST PROG...: the shared libraries PROGs load (and the
# loader), from ROOTFS into DEST at the same paths.
copy_libs() {
	local rootfs=$1 dest=$2 l; shift 2
	chroot "$rootfs" ldd "$@" | awk '/=>/ { print $3 } /ld-linux/ { print $1 }' | grep '^/' | sort -u |
	while read -r l; do mkdir -p "$dest$(dirname "$l")"; cp -L "$rootfs$l" "$dest$l"; done
}

build_domU_base() {
	local rootfs=$1 kern=$2 kver=$3 out=$4 d p a
	d=$(mktemp -d "$out.domU.XXXX")
	mkdir -p "$d"/{bin,sbin,proc,sys,dev,tmp,etc,run,usr/bin,usr/sbin}
	cp "$rootfs/bin/busybox" "$d/bin/busybox"
	for p in $DOMU_PROGS; do
		cp "$rootfs$p" "$d/usr/bin/"
		copy_libs "$rootfs" "$d" "$p"
	done
	for a in $(chroot "$rootfs" /bin/busybox --list); do
		[ -e "$d/bin/$a" ] || ln -s busybox "$d/bin/$a"
	done
	# kmod, not busybox, for module handling (depmod'ed tree, updates/ dir).
	for a in modprobe insmod rmmod lsmod depmod modinfo; do
		rm -f "$d/bin/$a"; ln -s ../usr/bin/kmod "$d/sbin/$a"
	done
	rm -f "$d/bin/sha256sum"
	for a in read write ls list exists rm chmod watch; do ln -s xenstore "$d/usr/bin/xenstore-$a"; done
	# shellcheck disable=SC2086 # word splitting intended: a list
	copy_mods "$kern" "$d" "$kver" $DOMU_MODS
	# Uncompressed on purpose: libxenguest only gunzips the first member
	# of a ramdisk, and the per-run overlay is appended to this archive.
	cpio_of "$d" >"$out/domU-base.cpio"
	rm -rf "$d"
}

# build_domU_cc ROOTFS OUT: OUT/domU-cc.cpio, a C toolchain for the domU
# (tcc, make, the libc headers and start files), appended to the domU
# image only for scenarios that set <scenario>_domU_cc=1 (bench-blk's
# build workload): everyone else boots without its 40 MB.
build_domU_cc() {
	local rootfs=$1 out=$2 d f
	d=$(mktemp -d "$out.cc.XXXX")
	mkdir -p "$d/usr/bin" "$d/usr/lib/x86_64-linux-gnu"
	cp "$rootfs/usr/bin/tcc" "$rootfs/usr/bin/make" "$d/usr/bin/"
	cp -a "$rootfs/usr/include" "$d/usr/"
	cp -a "$rootfs/usr/lib/x86_64-linux-gnu/tcc" "$d/usr/lib/x86_64-linux-gnu/"
	for f in crt1.o crti.o crtn.o libc.so libc_nonshared.a libm.so libm.a; do
		[ -e "$rootfs/usr/lib/x86_64-linux-gnu/$f" ] && cp -a "$rootfs/usr/lib/x86_64-linux-gnu/$f" "$d/usr/lib/x86_64-linux-gnu/"
	done
	# their shared libraries (make needs libdl, which fio does not)
	copy_libs "$rootfs" "$d" /usr/bin/make /usr/bin/tcc
	# tcc links against libc.so.6, which names the dynamic loader: tcc
	# looks for it beside libc, where the domU image has none (/lib64 only)
	cp -L "$rootfs/lib64/ld-linux-x86-64.so.2" "$d/lib/x86_64-linux-gnu/"
	cpio_of "$d" >"$out/domU-cc.cpio"
	rm -rf "$d"
}

# images_build [--rebuild]: ensure the image set exists; sets IMAGES_DIR.
images_build() {
	local kver key dir tmp rkey rootfs t0 kdeb xdeb
	kver=$(lab_kver)
	key=$(images_key "$kver"); dir=$LAB_CACHE/images/$key
	if [ -f "$dir/manifest" ] && [ "${1:-}" != --rebuild ]; then
		log "images: reusing $dir"; IMAGES_DIR=$dir; return
	fi
	need_root "building images"
	# One builder at a time per cache (parallel CI jobs, two terminals).
	mkdir -p "$LAB_CACHE"
	exec 9>"$LAB_CACHE/.lock"
	flock 9
	if [ -f "$dir/manifest" ] && [ "${1:-}" != --rebuild ]; then
		exec 9>&-; log "images: reusing $dir (built meanwhile)"; IMAGES_DIR=$dir; return
	fi
	need_tools apt-get dpkg-deb debootstrap cpio gzip xz file depmod chroot unshare
	t0=$(now)
	rkey=$(rootfs_key); rootfs=$LAB_CACHE/rootfs/$rkey
	[ "${1:-}" = --rebuild ] && rm -rf "$rootfs" "$dir"
	if [ ! -f "$rootfs/done" ]; then
		rootfs_build "$rootfs"
		touch "$rootfs/done"
	fi
	tmp=$LAB_CACHE/images/$key.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp/k"
	log "images: kernel $kver, $XEN_PKG $(apt_candidate $XEN_PKG)"
	kdeb=$(fetch_deb "linux-image-$kver"); xdeb=$(fetch_deb "$XEN_PKG")
	dpkg-deb -x "$kdeb" "$tmp/k"
	depmod -b "$tmp/k" "$kver"
	extract_vmlinux "$tmp/k/boot/vmlinuz-$kver" "$tmp/vmlinux"
	dpkg-deb --fsys-tarfile "$xdeb" | tar -xO --wildcards './boot/xen-4.17-amd64.gz' | gunzip >"$tmp/xen.elf"
	file "$tmp/xen.elf" | grep -q ELF || die "xen.elf is not an ELF file"
	build_dom0_base "$rootfs/root" "$tmp/k" "$kver" "$tmp" >&2
	build_domU_base "$rootfs/root" "$tmp/k" "$kver" "$tmp" >&2
	build_domU_cc "$rootfs/root" "$tmp" >&2
	rm -rf "$tmp/k"
	{
		echo "kver=$kver"
		echo "linux-image-$kver=$(apt_candidate "linux-image-$kver")"
		echo "$XEN_PKG=$(apt_candidate $XEN_PKG)"
		echo "rootfs_key=$rkey"
		echo "images_key=$key"
		cat "$rootfs/packages"
	} >"$tmp/manifest"
	rm -rf "$dir"; mv "$tmp" "$dir"
	# Older entries are dead weight (about 600 MB each): keep the current ones.
	find "$LAB_CACHE/rootfs" "$LAB_CACHE/images" -mindepth 1 -maxdepth 1 \
		! -name "$rkey" ! -name "$key" -exec rm -rf {} +
	find "$LAB_CACHE/debs" -name "*.deb" ! -samefile "$kdeb" ! -samefile "$xdeb" -delete
	time_line images-build "$t0"
	log "images: built $dir ($(du -sh "$dir" | cut -f1))"
	# shellcheck disable=SC2034 # IMAGES_DIR is read by its callers
	IMAGES_DIR=$dir
	exec 9>&-
}
