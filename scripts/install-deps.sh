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
	git kmod python3 shellcheck
	# the host tests of the lab's shell (dash; busybox, the domU's sh
	# and awk, for test-bfl-loops.sh; ps for test-rpc-serve.sh; tcc for
	# test-bench-build.sh, the compiler of bench-blk's domU)
	dash busybox procps tcc
	# the fuzz step: libFuzzer, ASan and UBSan come with clang 14's runtime
	clang-14 libclang-rt-14-dev
	# model checking (qspinlock-pv's wait/kick handshake)
	spin
	# the QEMU lab: Xen and the guests' kernels are unpacked, not installed
	qemu-system-x86 debootstrap cpio xz-utils gzip file util-linux
	# the benchmarks' plots (make bench-tables, scripts/bench/run.sh)
	python3-matplotlib
	# the instruction counter's test: its QEMU plugin in QEMU's user mode
	qemu-user
	# packaging (the .deb is only ever installed into a scratch chroot)
	debhelper dh-dkms dpkg-dev fakeroot lintian rpm rpmlint
	# the arm64 lab: Xen arm64 under qemu-system-aarch64, the modules and
	# the 64 KB-page guest kernel cross-built (the arm64 Xen, kernels and
	# dom0 tools come from apt as arm64 packages, unpacked, not installed)
	qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross bc flex bison
)

# The arm64 packages the lab unpacks need arm64 in apt's sources.
arch_added=0
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: apt lacks the arm64 architecture; run as root (sudo $0)" >&2
		exit 1
	fi
	dpkg --add-architecture arm64
	arch_added=1
fi

missing=()
for p in "${pkgs[@]}"; do
	[ "$(dpkg-query -W -f '${Status}' "$p" 2>/dev/null)" = "install ok installed" ] ||
		missing+=("$p")
done
# linux-headers-amd64 may be installed yet point at an ABI whose headers
# a newer package list has moved past; apt resolves that as an upgrade.
if [ ${#missing[@]} -eq 0 ] && [ "${XPS_DEPS_UPGRADE:-0}" = 0 ] && [ $arch_added = 0 ]; then
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
