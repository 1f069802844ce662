#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lab-modules.sh [--arch arm64] [OUTDIR]
#
# Build every module against the headers of the exact kernel the lab boots
# (tests/lab/lab kver) and collect the .ko files in OUTDIR (default
# build/lab-modules), which `tests/lab/lab run --modules` places into the
# guests. Prints the KDIR it used on its last line.
#
# --arch arm64: cross-build (aarch64-linux-gnu-gcc, W=1) for each guest
# kernel of the arm64 lab (4, 16 and 64 KB pages) into OUTDIR/<kver>/
# (default build/lab-modules-arm64), one private copy of the tree per
# kernel; fails on a warning in our files or a wrong vermagic. Prints a
# PASS:/FAIL: line per kernel.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" = --arch ]; then
	[ "${2:-}" = arm64 ] || { echo "usage: $0 [--arch arm64] [OUTDIR]" >&2; exit 2; }
	out=${3:-$root/build/lab-modules-arm64}
	rm -rf "$out"
	fail=0
	while IFS='=' read -r ps kver; do
		t0=$(date +%s)
		kdir=$("$root/tests/lab/lab" --arch arm64 kdir "$ps")
		work=$root/build/arm64-modules/$ps
		rm -rf "$work"; mkdir -p "$work"
		(cd "$root" && git ls-files -co --exclude-standard -z |
			grep -zv '^build/' | xargs -0 cp --parents -t "$work")
		if ! ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
			make -C "$work" KDIR="$kdir" W=1 modules >"$work/build.log" 2>&1; then
			tail -n 20 "$work/build.log"
			echo "FAIL: matrix/arm64-$ps/$kver build failed (log: $work/build.log)"
			fail=1; continue
		fi
		warn=$(grep -E "^($work/)?(src|include|compat)/[^:]+:[0-9]+(:[0-9]+)?: warning" "$work/build.log" || true)
		mkdir -p "$out/$kver"
		bad=
		# shellcheck disable=SC2044 # .ko paths of our own tree: no spaces
		for m in $(find "$work/src" -name '*.ko'); do
			v=$(/sbin/modinfo -F vermagic "$m" | cut -d' ' -f1)
			[ "$v" = "$kver" ] || bad="$bad $(basename "$m"):$v"
			cp "$m" "$out/$kver/"
		done
		n=$(find "$out/$kver" -name '*.ko' | wc -l)
		if [ -n "$warn" ]; then
			echo "$warn"
			echo "FAIL: matrix/arm64-$ps/$kver W=1 warnings in our files"; fail=1
		elif [ "$n" = 0 ] || [ -n "$bad" ]; then
			echo "FAIL: matrix/arm64-$ps/$kver modules missing or wrong vermagic:${bad:- none built}"; fail=1
		else
			echo "PASS: matrix/arm64-$ps/$kver $n module(s) in $(($(date +%s) - t0))s"
		fi
	done < <("$root/tests/lab/lab" --arch arm64 kver)
	exit $fail
fi

out=${1:-$root/build/lab-modules}
kver=$("$root/tests/lab/lab" kver)
kdir=$("$root/scripts/headers.sh" "linux-headers-$kver")
make -C "$root" KDIR="$kdir" modules >&2
rm -rf "$out"
mkdir -p "$out"
find "$root/src" -name '*.ko' -exec cp -t "$out" {} +
echo "lab modules for $kver: $(cd "$out" && ls)" >&2
echo "$kdir"
