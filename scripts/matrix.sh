#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# matrix.sh [PACKAGE | suite:SUITE ...]
#
# Build every module with W=1 against each Debian header set this machine
# can get, in a private copy of the tree per kernel, and check that every
# module came out with the right vermagic and no warning in our files.
# Default set: bookworm's 6.1 generic, cloud and rt (the ABI the
# metapackages point at) and the newest 6.12 generic, cloud and rt that
# bookworm-security ships, built here (this host is bookworm, with its
# gcc-12); then, for each suite of XPS_MATRIX_SUITES (trixie sid
# experimental), the kernel its linux-headers-amd64 points at (for
# experimental, experimental's), amd64 and arm64 (cross), built inside
# a chroot of that suite with the compiler the headers name
# (scripts/suite-root.sh; needs root).
# XPS_MATRIX_SUITES='' leaves the suites out.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/build/matrix"

meta_dep() {
	apt-cache depends "$1" 2>/dev/null | sed -n 's/^ *Depends: \(linux-headers-.*\)/\1/p' | head -n 1
}

newest() {
	apt-cache pkgnames linux-headers-6.12. 2>/dev/null | grep -E "^linux-headers-6\.12\.[0-9]+\+deb12-$1\$" |
		sort -V | tail -n 1
}

if [ $# -gt 0 ]; then
	sets=("$@")
else
	sets=()
	for m in linux-headers-amd64 linux-headers-cloud-amd64 linux-headers-rt-amd64; do
		p=$(meta_dep "$m")
		[ -n "$p" ] && sets+=("$p") || echo "FAIL: matrix/$m no header package found"
	done
	for f in amd64 cloud-amd64 rt-amd64; do
		p=$(newest "$f")
		[ -n "$p" ] && sets+=("$p") || echo "FAIL: matrix/6.12-$f no header package found"
	done
	for su in ${XPS_MATRIX_SUITES-trixie sid experimental}; do sets+=("suite:$su"); done
fi

fail=0
# copy_tree DIR: the tree's files (not build/) into DIR, afresh
copy_tree() {
	rm -rf "$1"
	mkdir -p "$1"
	(cd "$root" && git ls-files -co --exclude-standard -z |
		grep -zv '^build/' | xargs -0 cp --parents -t "$1")
}

# judge NAME KREL WORK T0: the build in WORK (its build.log) for KREL:
# no warning in our files (their paths as the host or the chroot, /w,
# saw them), every module built with KREL's vermagic
judge() {
	local name=$1 krel=$2 work=$3 t0=$4 log=$3/build.log warn mods bad m v
	warn=$(grep -E "^($work/|/w/)?(src|include|compat)/[^:]+:[0-9]+(:[0-9]+)?: warning" "$log" || true)
	mods=$(find "$work/src" -name '*.ko' | sort)
	bad=""
	for m in $mods; do
		v=$(/sbin/modinfo -F vermagic "$m" | cut -d' ' -f1)
		[ "$v" = "$krel" ] || bad="$bad $(basename "$m"):$v"
	done
	if [ -n "$warn" ]; then
		echo "$warn"
		echo "FAIL: matrix/$name W=1 warnings in our files"
		fail=1
	elif [ -z "$mods" ] || [ -n "$bad" ]; then
		echo "FAIL: matrix/$name modules missing or wrong vermagic:${bad:- none built}"
		fail=1
	else
		echo "PASS: matrix/$name $(echo "$mods" | wc -w) module(s) in $(($(date +%s) - t0))s"
	fi
}

# in_suite ROOT WORK CMD: CMD (sh) in the chroot ROOT with WORK at /w
in_suite() {
	unshare --mount --propagation private sh -c '
		mkdir -p "$1/w" && mount --bind "$2" "$1/w" && mount -t proc proc "$1/proc" || exit 99
		chroot "$1" env LC_ALL=C PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -c "$3"
	' sh "$@"
}

# suite SUITE: its amd64 and arm64 kernels, built in its chroot
suite() {
	local su=$1 sroot krel work t0 name
	t0=$(date +%s)
	if ! sroot=$("$root/scripts/suite-root.sh" "$su"); then
		echo "FAIL: matrix/$su no build chroot (scripts/suite-root.sh $su)"
		fail=1
		return
	fi
	# shellcheck disable=SC1091 # made by suite-root.sh
	. "$sroot/xps-suite.env"
	[ -n "$KREL_ARM64" ] || echo "matrix: $su: no arm64 headers of ${KREL%-amd64} on the mirror; amd64 alone"
	for krel in "$KREL" $KREL_ARM64; do
		t0=$(date +%s)
		name="$su/$krel"
		work="$out/$su-$krel"
		copy_tree "$work"
		if ! in_suite "$sroot" "$work" "make -C /w KDIR=/usr/src/linux-headers-$krel W=1 modules" \
			>"$work/build.log" 2>&1; then
			tail -n 30 "$work/build.log"
			echo "FAIL: matrix/$name build failed (log: $work/build.log)"
			fail=1
			continue
		fi
		judge "$name ($(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' \
			"$sroot/usr/src/linux-headers-$krel/.config"))" "$krel" "$work" "$t0"
	done
}

for pkg in "${sets[@]}"; do
	case "$pkg" in suite:*) suite "${pkg#suite:}"; continue ;; esac
	krel=${pkg#linux-headers-}
	t0=$(date +%s)
	if ! kdir=$("$root/scripts/headers.sh" "$pkg"); then
		echo "FAIL: matrix/$krel headers unavailable"
		fail=1
		continue
	fi
	work="$out/$krel"
	copy_tree "$work"
	log="$work/build.log"
	if ! make -C "$work" KDIR="$kdir" W=1 modules >"$log" 2>&1; then
		tail -n 30 "$log"
		echo "FAIL: matrix/$krel build failed (log: $log)"
		fail=1
		continue
	fi
	judge "$krel" "$krel" "$work" "$t0"
done
exit $fail
