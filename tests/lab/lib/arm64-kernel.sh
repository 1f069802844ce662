# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# arm64-kernel.sh - the arm64 lab's 64 KB-page guest kernel, cross-built
# from Debian's linux-source-6.1 (no Debian flavour has 64 KB pages).
#
# Cache: $LAB_CACHE/arm64/k64/<key>/
#   Image.gz             the kernel xl boots as a domU
#   kver                 its release (6.1.<n>-xps64k)
#   mods/lib/modules/    its modules (modules_install)
#   kdir/                a stripped tree that builds out-of-tree modules
#                        (k64_strip; about 60 MB)
# <key> hashes linux-source-6.1's version, the config fragment
# (tests/lab/arm64/kernel-64k.config) and this file, so a new source
# package or fragment builds a new kernel; about 10-12 min on 2 cores.

K64_FRAG=$LAB_DIR/arm64/kernel-64k.config
K64_SRC_PKG=linux-source-6.1
# Bump when the build itself (not the stripping below) changes: the built
# source tree is kept under this key until a stripped tree from it has
# built a test module, so mending k64_strip never rebuilds the kernel.
K64_BUILD_RECIPE=1

k64_src_key() {
	printf '%s=%s\n%s\nrecipe=%s\n' "$K64_SRC_PKG" "$(apt_candidate $K64_SRC_PKG)" \
		"$(sha256sum <"$K64_FRAG")" "$K64_BUILD_RECIPE" | sha256sum | cut -c1-16
}

k64_key() {
	printf '%s\n%s\n' "$(k64_src_key)" "$(sha256sum <"$LAB_DIR/lib/arm64-kernel.sh")" |
		sha256sum | cut -c1-16
}

# k64_strip SRC DST: what `make M=...` reads of a built kernel tree: the
# top Makefile, arch/arm64's, the headers (generated ones included), the
# built scripts/ and the configuration and symbol versions.
k64_strip() {
	local src=$1 dst=$2
	mkdir -p "$dst"
	(cd "$src" && {
		echo .config; echo Module.symvers; echo Makefile
		find arch/arm64 -maxdepth 1 -type f -name 'Makefile*'
		find include arch/arm64/include scripts -type f ! -name '*.o' ! -name '.*.cmd'
		find arch/arm64/kernel -maxdepth 1 -name '*.lds*'
	} | sort -u | cpio -pdm --quiet "$dst")
}

# k64_selftest KDIR: an out-of-tree module builds against KDIR.
k64_selftest() {
	local d
	d=$(mktemp -d "${TMPDIR:-/tmp}/xps-k64.XXXX")
	printf '%s\n' '#include <linux/module.h>' 'static int __init t_init(void) { return PAGE_SIZE == 65536 ? 0 : -EINVAL; }' \
		'module_init(t_init);' 'MODULE_LICENSE("GPL");' >"$d/t.c"
	echo 'obj-m += t.o' >"$d/Kbuild"
	if ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- make -C "$1" M="$d" modules >"$d/log" 2>&1 && [ -f "$d/t.ko" ]; then
		rm -rf "$d"; return 0
	fi
	tail -n 20 "$d/log" >&2; rm -rf "$d"; return 1
}

# k64_build: ensure the kernel is cached; sets K64_DIR.
k64_build() {
	local key dir tmp deb src t0 rel l
	key=$(k64_key); dir=$LAB_CACHE/arm64/k64/$key
	if [ -f "$dir/done" ]; then K64_DIR=$dir; return; fi
	need_tools aarch64-linux-gnu-gcc make bc flex bison xz cpio
	mkdir -p "$LAB_CACHE/arm64/k64"
	exec 8>"$LAB_CACHE/arm64/k64/.lock"
	flock 8
	if [ -f "$dir/done" ]; then exec 8>&-; K64_DIR=$dir; return; fi
	t0=$(now)
	src=$LAB_CACHE/arm64/k64/src-$(k64_src_key)/linux-source-6.1
	if [ ! -f "$src/.xps-built" ]; then
		rm -rf "${src%/*}"; mkdir -p "${src%/*}"
		deb=$(fetch_deb $K64_SRC_PKG)
		log "k64: unpacking $(basename "$deb")"
		dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './usr/src/linux-source-6.1.tar.xz' |
			xz -dc | tar -x -C "${src%/*}"
		[ -f "$src/Makefile" ] || die "k64: no kernel tree in $deb"
		log "k64: allnoconfig + $(basename "$K64_FRAG"), building (about 10-12 min on 2 cores)"
		(
			cd "$src"
			export ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
			make -s KCONFIG_ALLCONFIG="$K64_FRAG" allnoconfig
			make -j"${XPS_JOBS:-2}" Image.gz modules
		) >"${src%/*}/build.log" 2>&1 || { tail -n 30 "${src%/*}/build.log" >&2; die "k64: kernel build failed (log: ${src%/*}/build.log)"; }
		# Every line of the fragment must have survived Kconfig.
		while IFS= read -r l; do
			case "$l" in CONFIG_*) grep -qx "$l" "$src/.config" || die "k64: $l did not stick (dependencies missing?)" ;; esac
		done <"$K64_FRAG"
		touch "$src/.xps-built"
	fi
	tmp=$dir.tmp.$$; rm -rf "$tmp"; mkdir -p "$tmp"
	rel=$(cat "$src/include/config/kernel.release")
	(cd "$src" && ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
		make -s INSTALL_MOD_PATH="$tmp/mods" INSTALL_MOD_STRIP=1 modules_install) ||
		die "k64: modules_install failed"
	rm -f "$tmp/mods/lib/modules/$rel/build" "$tmp/mods/lib/modules/$rel/source"
	cp "$src/arch/arm64/boot/Image.gz" "$tmp/Image.gz"
	echo "$rel" >"$tmp/kver"
	k64_strip "$src" "$tmp/kdir"
	k64_selftest "$tmp/kdir" || die "k64: a module does not build against the stripped tree $tmp/kdir (k64_strip; the built tree stays in ${src%/*})"
	rm -rf "$dir"; mv "$tmp" "$dir"
	touch "$dir/done"
	rm -rf "${src%/*}"
	find "$LAB_CACHE/arm64/k64" -mindepth 1 -maxdepth 1 -type d ! -name "$key" -exec rm -rf {} +
	time_line k64-build "$t0"
	log "k64: $rel built ($(du -sh "$dir" | cut -f1))"
	# shellcheck disable=SC2034 # K64_DIR is read by its callers
	K64_DIR=$dir
	exec 8>&-
}
