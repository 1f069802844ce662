#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kbuild-check.sh sparse|w1 KDIR
#
# Rebuild every module with sparse (C=2) or with W=1 and fail on any
# finding that points into our own files. Findings inside the kernel's
# headers are the kernel's business and are not counted.
set -euo pipefail

mode=${1:?usage: kbuild-check.sh sparse|w1 KDIR}
kdir=${2:?usage: kbuild-check.sh sparse|w1 KDIR}
root=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp "${TMPDIR:-/tmp}/xps-$mode.XXXXXX")
trap 'rm -f "$log"' EXIT

case "$mode" in
sparse)	flags=(C=2) ;;
w1)	flags=(W=1) ;;
*)	echo "unknown mode $mode" >&2; exit 2 ;;
esac

# W=1 changes the command line, so kbuild rebuilds everything; C=2 runs
# sparse on every file whether or not it is rebuilt.
rc=0
make -C "$kdir" M="$root" -j"${JOBS:-2}" "${flags[@]}" modules >"$log" 2>&1 || rc=$?
ours=$(grep -E "^($root/)?(src|include|compat)/[^:]+:[0-9]+(:[0-9]+)?: (warning|error)" "$log" || true)
if [ $rc -ne 0 ]; then
	cat "$log" >&2
	echo "FAIL: build/$mode build failed (rc=$rc)"
	exit 1
fi
if [ -n "$ours" ]; then
	echo "$ours"
	echo "FAIL: build/$mode $(echo "$ours" | wc -l) finding(s) in our files"
	exit 1
fi
echo "PASS: build/$mode"
