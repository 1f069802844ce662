# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# rootfs.sh - the Debian chroot every guest image is cut out of.
#
# debootstrap --variant=minbase lays down the base system, then apt inside
# the chroot installs $ROOTFS_PKGS from the host's own Debian sources, so
# every package (xen-utils in particular) has the same version as the apt
# candidates the kernel and hypervisor are taken from.  No mirror is named
# here: it is read from the host's apt configuration at run time.

# Package set of the dom0 rootfs (the domU image is cut out of it).
# dmsetup: blkfront-life holds a disk's I/O in device-mapper.
# tcc, libc6-dev, make: the C toolchain of bench-blk's build workload
# (only in domU-cc.cpio, appended for the scenarios that ask for it).
ROOTFS_PKGS="xen-utils-4.17 xenstore-utils iproute2 bridge-utils kmod fio iperf3 busybox procps util-linux dmsetup tcc libc6-dev make ethtool"

# rootfs_key: hash of the package set, each package's candidate version
# and this recipe.
rootfs_key() {
	# shellcheck disable=SC2086
	printf '%s\n%s\n' "$(apt_candidates $ROOTFS_PKGS | xargs)" "$(sha256sum <"$LAB_DIR/lib/rootfs.sh")" |
		sha256sum | cut -c1-16
}

# host_debian_repos: "URI SUITE" lines for the host's Debian main repos of
# its release (SUITE, SUITE-updates, SUITE-security), as apt sees them.
host_debian_repos() {
	local codename
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	apt-cache policy | awk -v c="$codename" '
		$1 ~ /^[0-9]+$/ && $5 == "Packages" && $4 == "amd64" {
			n = split($3, a, "/")
			if (a[2] == "main" && (a[1] == c || a[1] == c "-updates" || a[1] == c "-security"))
				print $2, a[1]
		}' | sort -u
}

rootfs_build() {
	local dir=$1 codename mirror root=$1/root t0
	t0=$(now)
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	mirror=$(host_debian_repos | awk -v c="$codename" '$2 == c { print $1; exit }')
	[ -n "$mirror" ] || die "no Debian '$codename' main repository in the host's apt sources"
	log "rootfs: debootstrap $codename (minbase) into $root"
	rm -rf "$dir"; mkdir -p "$dir"
	debootstrap --variant=minbase "$codename" "$root" "$mirror" >"$dir/debootstrap.log" 2>&1 ||
		{ tail -n 30 "$dir/debootstrap.log" >&2; die "debootstrap failed (log: $dir/debootstrap.log)"; }
	host_debian_repos | awk '{ print "deb", $1, $2, "main" }' >"$root/etc/apt/sources.list"
	apt-config dump | grep -i '^Acquire::[a-z]*::Proxy ' >"$root/etc/apt/apt.conf.d/99lab-proxy" || true
	cp -L /etc/resolv.conf "$root/etc/resolv.conf"
	# Keep package scripts from starting daemons on the host.
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"; chmod +x "$root/usr/sbin/policy-rc.d"
	log "rootfs: apt-get install $ROOTFS_PKGS"
	# A private mount namespace: /proc inside the chroot vanishes with it.
	unshare --mount --propagation private sh -ec '
		mount -t proc proc "$1/proc"
		chroot "$1" sh -ec "
			export DEBIAN_FRONTEND=noninteractive LC_ALL=C
			apt-get update -q
			apt-get install -y -q --no-install-recommends $2
			apt-get clean"
	' sh "$root" "$ROOTFS_PKGS" >"$dir/apt.log" 2>&1 ||
		{ tail -n 30 "$dir/apt.log" >&2; die "apt-get install in the chroot failed (log: $dir/apt.log)"; }
	rm -f "$root/usr/sbin/policy-rc.d" "$root/etc/resolv.conf" "$root/etc/apt/apt.conf.d/99lab-proxy"
	chroot "$root" dpkg-query -W -f '${Package}=${Version}\n' | sort >"$dir/packages"
	time_line rootfs-build "$t0"
}
