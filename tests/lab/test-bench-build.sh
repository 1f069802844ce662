#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-bench-build.sh - bench-blk's build workload on the host: the
# project tools/pack-project.sh packs for the bench domU, unpacked into a
# scratch directory and built as the domU builds it (make -j2 CC=tcc
# bench-build; gcc where tcc is not installed), then the quickest program
# built runs its tests.  Until 2026-12-05 every bench build failed in the
# domU (a header the unit tests need was not on the bench's include
# path) and no check saw it.  Prints PASS:/FAIL: lab/bench-build/<case>.
#   builds  the six programs build from the packed files alone
#   runs    build/xgp_test_p12 passes its tests
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=tcc
command -v tcc >/dev/null || cc=gcc
fails=0
if "$here/tools/pack-project.sh" "$tmp/project.tar" && mkdir "$tmp/w" &&
	tar -xf "$tmp/project.tar" -C "$tmp/w" &&
	make -s -j2 -C "$tmp/w/tests/unit" CC="$cc" bench-build >"$tmp/build.log" 2>&1; then
	n=$(find "$tmp/w/tests/unit/build" -type f -perm -u+x | wc -l)
	if [ "$n" = 6 ]; then echo "PASS: lab/bench-build/builds 6 programs with $cc"
	else echo "FAIL: lab/bench-build/builds $n programs, not 6"; fails=1; fi
else
	echo "FAIL: lab/bench-build/builds with $cc: $(tail -n 3 "$tmp/build.log" 2>/dev/null | tr '\n' ' ')"
	fails=1
fi
if [ -x "$tmp/w/tests/unit/build/xgp_test_p12" ] &&
	"$tmp/w/tests/unit/build/xgp_test_p12" >"$tmp/run.log" 2>&1; then
	echo "PASS: lab/bench-build/runs xgp_test_p12"
else
	echo "FAIL: lab/bench-build/runs xgp_test_p12: $(tail -n 2 "$tmp/run.log" 2>/dev/null | tr '\n' ' ')"
	fails=1
fi
exit $fails
