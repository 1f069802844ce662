#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install-deps.sh: install (as root, with apt) everything the build, the
# checks and the QEMU lab need on a Debian 12 machine. Safe to run again:
# apt is only called when something is missing.
set -euo pipefail

pkgs=(
	# build and static checks
	make gcc libc6-dev linux-headers-amd64 sparse dwarves linux-source-6.1
	git kmod python3
	# model checking (qspinlock-pv's wait/kick handshake)
	spin
	# the QEMU lab: Xen and the guests' kernels are unpacked, not installed
	qemu-system-x86 debootstrap cpio xz-utils gzip file util-linux
	# packaging (the .deb is only ever installed into a scratch chroot)
	debhelper dh-dkms dpkg-dev fakeroot lintian rpm rpmlint
)

missing=()
for p in "${pkgs[@]}"; do
	[ "$(dpkg-query -W -f '${Status}' "$p" 2>/dev/null)" = "install ok installed" ] ||
		missing+=("$p")
done
# linux-headers-amd64 may be installed yet point at an ABI whose headers
# a newer package list has moved past; apt resolves that as an upgrade.
if [ ${#missing[@]} -eq 0 ] && [ "${XPS_DEPS_UPGRADE:-0}" = 0 ]; then
	echo "install-deps: all ${#pkgs[@]} packages present"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing ${missing[*]}; run as root (sudo $0)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${pkgs[@]}"
