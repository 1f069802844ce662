#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-dkms-conf.sh - dkms.conf's BUILD_EXCLUSIVE_KERNEL, applied as DKMS
# applies it (bash's =~ on the kernel release), against kernel releases
# Debian ships and a few edges, next to scripts/compat-probe.sh's own
# floor (run on a fake header tree of that release): a kernel DKMS
# builds for must be one the probes accept, and one they refuse must be
# skipped by DKMS before make runs.  Prints PASS:/FAIL:
# build/dkms-conf/<release> lines.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sim=$(mktemp -d)
trap 'rm -rf "$sim"' EXIT
fails=0

# shellcheck disable=SC2034 # read by the sourced dkms.conf
dkms_builds() { # RELEASE: yes when DKMS would build for it
	(kernelver=$1 kernel_source_dir=$sim kernel_config=/nonexistent
	 # shellcheck source=dkms.conf
	 . "$root/dkms.conf"
	 if [[ ${BUILD_EXCLUSIVE_KERNEL:-} && ! $1 =~ $BUILD_EXCLUSIVE_KERNEL ]]; then echo no; else echo yes; fi)
}

probes_accept() { # RELEASE: yes when compat-probe.sh takes its headers
	rm -rf "$sim/k" "$sim/out"
	mkdir -p "$sim/k/include/generated"
	echo "#define UTS_RELEASE \"$1\"" >"$sim/k/include/generated/utsrelease.h"
	printf '%%.o:\n\t@touch $(M)/$@\n' >"$sim/k/Makefile"
	if "$root/scripts/compat-probe.sh" "$sim/k" "$sim/out" 2>/dev/null; then echo yes; else echo no; fi
}

# RELEASE WANT: Debian 11, 12, 13, sid and experimental's, and edges
while read -r rel want; do
	d=$(dkms_builds "$rel") p=$(probes_accept "$rel")
	if [ "$d" = "$want" ] && [ "$p" = "$want" ]; then
		echo "PASS: build/dkms-conf/$rel dkms builds: $d, probes accept: $p"
	else
		echo "FAIL: build/dkms-conf/$rel want $want from both; dkms builds: $d, probes accept: $p"
		fails=$((fails + 1))
	fi
done <<'LIST'
4.19.0-27-amd64 no
5.10.0-46-amd64 no
6.0.12-amd64 no
6.1.0-57-amd64 yes
6.1.0-57-cloud-amd64 yes
6.9.1 yes
6.12.118+deb13-amd64 yes
7.2.13+deb14-amd64 yes
7.3-amd64 yes
7.10.0-rc1 yes
10.0.0 yes
LIST
[ "$fails" = 0 ]
