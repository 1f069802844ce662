#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# matrix.sh [PACKAGE...]
#
# Build every module with W=1 against each Debian header set this machine
# can get, in a private copy of the tree per kernel, and check that every
# module came out with the right vermagic and no warning in our files.
# Default set: bookworm's 6.1 generic, cloud and rt (the ABI the
# metapackages point at) and the newest 6.12 generic, cloud and rt that
# bookworm-security ships.
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
fi

fail=0
for pkg in "${sets[@]}"; do
	krel=${pkg#linux-headers-}
	t0=$(date +%s)
	if ! kdir=$("$root/scripts/headers.sh" "$pkg"); then
		echo "FAIL: matrix/$krel headers unavailable"
		fail=1
		continue
	fi
	work="$out/$krel"
	rm -rf "$work"
	mkdir -p "$work"
	(cd "$root" && git ls-files -co --exclude-standard -z |
		grep -zv '^build/' | xargs -0 cp --parents -t "$work")
	log="$work/build.log"
	if ! make -C "$work" KDIR="$kdir" W=1 modules >"$log" 2>&1; then
		tail -n 30 "$log"
		echo "FAIL: matrix/$krel build failed (log: $log)"
		fail=1
		continue
	fi
	warn=$(grep -E "^($work/)?(src|include|compat)/[^:]+:[0-9]+(:[0-9]+)?: warning" "$log" || true)
	mods=$(find "$work/src" -name '*.ko' | sort)
	bad=""
	for m in $mods; do
		v=$(/sbin/modinfo -F vermagic "$m" | cut -d' ' -f1)
		[ "$v" = "$krel" ] || bad="$bad $(basename "$m"):$v"
	done
	if [ -n "$warn" ]; then
		echo "$warn"
		echo "FAIL: matrix/$krel W=1 warnings in our files"
		fail=1
	elif [ -z "$mods" ] || [ -n "$bad" ]; then
		echo "FAIL: matrix/$krel modules missing or wrong vermagic:${bad:- none built}"
		fail=1
	else
		echo "PASS: matrix/$krel $(echo "$mods" | wc -w) module(s) in $(($(date +%s) - t0))s"
	fi
done
exit $fail
