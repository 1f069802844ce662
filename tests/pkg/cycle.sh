#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cycle.sh DIST MODOUT: the sysadmin's path with the Debian package, for
# real, in a scratch Debian 12 chroot (never on this host): the chroot
# holds linux-headers for the lab's kernel and for the newest 6.12, and
# the lab's kernel image (so update-initramfs has an initramfs to build).
#   install   apt installs DIST/deb/xen-pv-suite-dkms_<v>_all.deb; DKMS
#             builds and installs every module for both kernels into
#             /lib/modules/<k>/updates/dkms, modinfo shows version <v>;
#             the modprobe.d file is in place; the initramfs the package's
#             trigger rebuilt (update-initramfs -u: the newest kernel's)
#             carries xen-blkfront-64k, xen-grant-pool and the blacklist
#   kernel    a further kernel's headers arrive later: the kernel hook
#             (/etc/kernel/header_postinst.d/dkms) builds for it
#   upgrade   a rebuilt package of version <v>+ci1 (same sources, bumped
#             VERSION and changelog) upgrades it: the modules are rebuilt
#             as <v>+ci1 for every kernel, the old version is gone from DKMS
#   purge     apt purge: no module, no /usr/src tree, no modprobe.d file,
#             no DKMS state left
#   rpm       the DKMS rpm installs into a scratch rpm root (rpm --root,
#             --nodeps: this is not an rpm system) with its files where
#             they belong
# The modules DKMS built for the lab's kernel are copied to MODOUT for the
# lab boot that follows (scenario pkg-dkms).  The chroot base is cached in
# $XPS_CACHE/pkg, keyed by the package set and its apt candidates.
# Prints PASS:/FAIL: lines; exits non-zero on any failure.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lab/lib/common.sh"
. "$here/../lab/lib/rootfs.sh"

dist=${1:?usage: cycle.sh DIST MODOUT}
modout=${2:?usage: cycle.sh DIST MODOUT}
dist=$(cd "$dist" && pwd)
version=$(cat "$REPO_DIR/VERSION")
deb=$dist/deb/xen-pv-suite-dkms_${version}_all.deb
rc=0
pass() { echo "PASS: pkg/$*"; }
fail() { echo "FAIL: pkg/$*"; rc=1; }
[ -f "$deb" ] || { fail "install $deb missing (make packages)"; exit 1; }
need_root "the packaging cycle"

kver=$(lab_kver)
k612=$(apt-cache pkgnames linux-headers-6.12. 2>/dev/null |
	grep -E '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' | sort -V | tail -n 1)
k612=${k612#linux-headers-}
# a third kernel for the "headers arrive later" step: the cloud flavour of
# the lab's release (its headers are small and share the common package)
klate=${kver%-amd64}-cloud-amd64
[ -n "$k612" ] || { fail "install no linux-headers-6.12 candidate"; exit 1; }
PKG_SET="dkms gcc make libc6-dev kmod initramfs-tools linux-image-$kver linux-headers-$kver linux-headers-$k612"
PKG_CACHE=${XPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xen-pv-suite}/pkg
# Bump when the way the base is made (below) changes.
CHROOT_RECIPE=1
# shellcheck disable=SC2086
key=$(printf '%s\n%s\n' "$(apt_candidates $PKG_SET linux-headers-$klate | xargs)" "$CHROOT_RECIPE" |
	sha256sum | cut -c1-16)
base=$PKG_CACHE/chroot-$key.tar

# ---- the cached chroot base ----
t0=$(now)
mkdir -p "$PKG_CACHE"
exec 9>"$PKG_CACHE/.lock"
flock 9
if [ ! -f "$base" ]; then
	b=$(mktemp -d "$PKG_CACHE/build.XXXX")
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	mirror=$(host_debian_repos | awk -v c="$codename" '$2 == c { print $1; exit }')
	log "pkg: debootstrap $codename into $b"
	if ! debootstrap --variant=minbase "$codename" "$b/root" "$mirror" >"$b/debootstrap.log" 2>&1; then
		tail -n 20 "$b/debootstrap.log"; fail "install debootstrap failed"; rm -rf "$b"; exit 1
	fi
	host_debian_repos | awk '{ print "deb", $1, $2, "main" }' >"$b/root/etc/apt/sources.list"
	printf '#!/bin/sh\nexit 101\n' >"$b/root/usr/sbin/policy-rc.d"; chmod +x "$b/root/usr/sbin/policy-rc.d"
	if ! unshare --mount --propagation private sh -ec '
		cp -L /etc/resolv.conf "$1/etc/resolv.conf"
		mount -t proc proc "$1/proc"
		chroot "$1" sh -ec "
			export DEBIAN_FRONTEND=noninteractive LC_ALL=C
			apt-get update -q
			apt-get install -y -q --no-install-recommends $2
			apt-get clean"' sh "$b/root" "$PKG_SET" >"$b/apt.log" 2>&1; then
		tail -n 20 "$b/apt.log"; fail "install apt in the chroot failed"; rm -rf "$b"; exit 1
	fi
	tar -C "$b/root" -cf "$base.tmp" . && mv "$base.tmp" "$base"
	rm -rf "$b"
	find "$PKG_CACHE" -maxdepth 1 -name 'chroot-*.tar' ! -name "${base##*/}" -delete
fi
exec 9>&-
time_line pkg/chroot "$t0"

work=$(mktemp -d /tmp/xps-pkg.XXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir "$root"
tar -C "$root" -xf "$base"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"

# cr CMD: run a shell command in the chroot (proc, sys and dev mounted in
# a private namespace that vanishes with it); output to $work/last.log
cr() {
	unshare --mount --propagation private sh -c '
		mount -t proc proc "$1/proc" && mount --rbind /sys "$1/sys" &&
		mount --rbind /dev "$1/dev" || exit 99
		chroot "$1" env DEBIAN_FRONTEND=noninteractive LC_ALL=C PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -c "$2"
	' sh "$root" "$1" >"$work/last.log" 2>&1
}
lastlog() { tail -n "${1:-4}" "$work/last.log" | tr '\n' ' ' | cut -c1-400; }
mods="xen-grant-pool xen-blkfront-64k qspinlock-pv xen-netfront-pgnt xen-netback-pgnt"
# built K V: every module in updates/dkms for kernel K, at version V
# (compressed where the kernel's config says so: 6.12 has .ko.xz)
built() {
	cr "for m in $mods; do f=/lib/modules/$1/updates/dkms/\$m.ko; [ -f \$f ] || f=\$f.xz; [ -f \$f ] || { echo missing \$f; exit 1; };
	    v=\$(modinfo -F version \$f); [ \"\$v\" = $2 ] || { echo \$m version \$v; exit 1; }; done"
}

# ---- install ----
cp "$deb" "$root/tmp/"
t0=$(now)
if cr "apt-get install -y -q /tmp/${deb##*/}"; then
	if built "$kver" "$version" && built "$k612" "$version"; then
		pass "install apt install: DKMS built $mods for $kver and $k612 in $(( $(now) - t0 ))s, version $version"
	else
		fail "install modules: $(lastlog)"
	fi
else
	fail "install apt-get install: $(lastlog 8)"
fi
knew=$(printf '%s\n' "$kver" "$k612" | sort -V | tail -n 1)
if cr "test -f /etc/modprobe.d/xen-pv-suite.conf && grep -q '^blacklist xen-blkfront\$' /etc/modprobe.d/xen-pv-suite.conf &&
       lsinitramfs /boot/initrd.img-$knew > /tmp/initrd.list &&
       grep -q 'updates/dkms/xen-blkfront-64k.ko' /tmp/initrd.list &&
       grep -q 'updates/dkms/xen-grant-pool.ko' /tmp/initrd.list &&
       grep -q 'etc/modprobe.d/xen-pv-suite.conf' /tmp/initrd.list && echo \$(wc -l </tmp/initrd.list) files"; then
	pass "initramfs /boot/initrd.img-$knew holds xen-blkfront-64k, xen-grant-pool and the blacklist ($(lastlog 1))"
else
	fail "initramfs $(lastlog)"
fi
# modules for the lab boot: exactly what DKMS installed for the lab kernel
rm -rf "$modout"; mkdir -p "$modout"
cp "$root/lib/modules/$kver/updates/dkms/"*.ko "$modout/" 2>/dev/null
# DKMS may compress modules (xz) where the kernel config says so
for z in "$modout"/*.ko.xz; do [ -e "$z" ] && xz -d "$z"; done

# ---- a kernel's headers arrive later ----
t0=$(now)
if cr "apt-get install -y -q --no-install-recommends linux-headers-$klate"; then
	if built "$klate" "$version"; then
		pass "kernel linux-headers-$klate installed later: DKMS built for it in $(( $(now) - t0 ))s"
	else
		fail "kernel $(lastlog)"
	fi
else
	fail "kernel apt-get install linux-headers-$klate: $(lastlog 6)"
fi

# ---- upgrade to a rebuilt package ----
v2=$version+ci1
t0=$(now)
up=$work/up
mkdir -p "$up"
tar -C "$up" -xzf "$dist/xen-pv-suite-$version.tar.gz"
(
	cd "$up/xen-pv-suite-$version" &&
	echo "$v2" >VERSION &&
	sed -i "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"#MODULE_VERSION#\"/" dkms.conf &&
	{ printf 'xen-pv-suite (%s) unstable; urgency=medium\n\n  * CI rebuild for the upgrade test.\n\n -- %s  %s\n\n' \
		"$v2" "$(sed -n 's/^ -- \(.*>\)  .*/\1/p' debian/changelog | head -n 1)" "$(date -R)"
	  cat debian/changelog; } >debian/changelog.new && mv debian/changelog.new debian/changelog &&
	dpkg-buildpackage -us -uc -b >"$up/build.log" 2>&1
) || { fail "upgrade rebuild $v2: $(tail -n 3 "$up/build.log" 2>/dev/null | tr '\n' ' ')"; }
deb2=$up/xen-pv-suite-dkms_${v2}_all.deb
if [ -f "$deb2" ]; then
	cp "$deb2" "$root/tmp/"
	if cr "apt-get install -y -q /tmp/${deb2##*/}"; then
		if built "$kver" "$v2" && built "$k612" "$v2" && built "$klate" "$v2" &&
		   cr "dkms status -m xen-pv-suite | grep -v '/$v2,' | grep . && exit 1; ! test -e /usr/src/xen-pv-suite-$version"; then
			pass "upgrade $version -> $v2: rebuilt for 3 kernels in $(( $(now) - t0 ))s, $version gone from DKMS and /usr/src"
		else
			fail "upgrade after: $(lastlog)"
		fi
	else
		fail "upgrade apt-get install: $(lastlog 8)"
	fi
fi

# ---- purge ----
if cr "apt-get purge -y -q xen-pv-suite-dkms"; then
	if cr "! ls /lib/modules/*/updates/dkms/xen-*.ko /lib/modules/*/updates/dkms/qspinlock-pv.ko 2>/dev/null &&
	       ! ls -d /usr/src/xen-pv-suite-* 2>/dev/null && ! test -e /etc/modprobe.d/xen-pv-suite.conf &&
	       ! ls -d /var/lib/dkms/xen-pv-suite 2>/dev/null && ! dpkg -l xen-pv-suite-dkms 2>/dev/null | grep -q '^[ir]'"; then
		pass "purge no module, source tree, modprobe.d file or DKMS state left"
	else
		fail "purge left: $(lastlog)"
	fi
else
	fail "purge apt-get purge: $(lastlog 6)"
fi

# ---- the DKMS rpm, into a scratch rpm root ----
rpmf=$(ls "$dist"/rpm/RPMS/noarch/xen-pv-suite-dkms-*.noarch.rpm 2>/dev/null | head -n 1)
if [ -z "$rpmf" ]; then
	fail "rpm no DKMS rpm in $dist/rpm (make packages)"
else
	rr=$work/rpmroot
	mkdir -p "$rr"
	# --noscripts: the scriptlets call dkms, which belongs to the target
	# system; here only the payload and the database are checked.
	if rpm --root "$rr" --initdb && rpm --root "$rr" -ivh --nodeps --noscripts "$rpmf" >"$work/rpm.log" 2>&1 &&
	   [ -f "$rr/usr/src/xen-pv-suite-$version/dkms.conf" ] &&
	   grep -q "^PACKAGE_VERSION=\"$version\"" "$rr/usr/src/xen-pv-suite-$version/dkms.conf" &&
	   [ -f "$rr/usr/lib/modprobe.d/xen-pv-suite.conf" ] &&
	   rpm --root "$rr" -V --nodeps xen-pv-suite-dkms >>"$work/rpm.log" 2>&1 &&
	   rpm --root "$rr" -e --noscripts xen-pv-suite-dkms >>"$work/rpm.log" 2>&1 &&
	   ! [ -e "$rr/usr/src/xen-pv-suite-$version" ]; then
		pass "rpm ${rpmf##*/} installed into a scratch rpm root, verified (rpm -V), erased"
	else
		fail "rpm $(tail -n 4 "$work/rpm.log" | tr '\n' ' ')"
	fi
fi
exit $rc
