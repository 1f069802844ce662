#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh [--merge] BIN CORPUS SECS: one libFuzzer target for SECS seconds,
# from a scratch copy of CORPUS (with --merge, the inputs that add
# coverage are merged back into CORPUS). Prints "PASS: fuzz/<target> ..."
# with the runs done and the coverage reached, or "FAIL: fuzz/<target>"
# with the crash's first report lines; the crashing input is kept in
# build/<target>-crash-*.
set -uo pipefail
merge=0
[ "${1:-}" = --merge ] && { merge=1; shift; }
bin=$1 corpus=$2 secs=$3
name=$(basename "$bin"); name=${name#fuzz_}
here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" build "$corpus"
cp -a "$corpus/." "$work/corpus/" 2>/dev/null
log=build/$name.log
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
	-artifact_prefix="build/$name-" "$work/corpus" >"$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
if [ $rc = 0 ]; then
	if [ $merge = 1 ]; then
		"$bin" -merge=1 "$corpus" "$work/corpus" >>"$log" 2>&1 || rc=1
	fi
	echo "PASS: fuzz/$name ${runs:-?} runs in ${secs} s, ${cov:-cov ?}, corpus $(find "$corpus" -type f | wc -l) inputs"
else
	echo "FAIL: fuzz/$name rc=$rc after ${runs:-?} runs: $(grep -m3 -E 'fuzz_|ERROR|SUMMARY' "$log" | tr '\n' ' ' | cut -c1-300) (log tests/fuzz/$log)"
fi
exit $rc
