#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test-xtcount.sh - xps-xtcount (host build under ASan/UBSan) on streams
# written here in xentrace's record layout: grant copy, map and unmap
# operations summed from their count argument, with and without a cycle
# count, a 64-bit argument, a multicall subcall, other hypercalls and
# xentrace's own per-CPU records skipped, Xen's lost-records reports
# added up; a stream cut inside a record fails.
set -u
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
cc=${CC:-cc}
$cc -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined \
	-o "$d/xt" "$(dirname "$0")/xps-xtcount.c" || { echo "FAIL: tools/xps-xtcount build"; exit 1; }
p=0 f=0
t() { # t NAME WANT_RC WANT_OUTPUT PYTHON-RECORDS
	python3 - "$4" >"$d/in" <<'PY' || { f=$((f + 1)); echo "FAIL: tools/xps-xtcount/$1 stream"; return; }
import struct, sys
out = sys.stdout.buffer
def rec(event, words, cycles=False):
    hdr = event | (len(words) << 28) | (1 << 31 if cycles else 0)
    out.write(struct.pack("<I", hdr))
    if cycles:
        out.write(struct.pack("<II", 0x12345678, 0x9))
    out.write(struct.pack("<%dI" % len(words), *words))
A32 = lambda i: 1 << (20 + 2 * i)
A64 = lambda i: 2 << (20 + 2 * i)
HC, SUB, LOST, CPU = 0x0020100d, 0x0020200e, 0x0001f001, 0x0001f003
exec(sys.argv[1])
PY
	"$d/xt" <"$d/in" >"$d/out" 2>&1; _r=$?
	if [ "$_r" = "$2" ] && grep -qx "$3" "$d/out"; then p=$((p + 1)); echo "PASS: tools/xps-xtcount/$1"
	else f=$((f + 1)); echo "FAIL: tools/xps-xtcount/$1 rc=$_r want $2: $(head -c 300 "$d/out")"; fi
}
t empty 0 'records=0 lost=0 hypercalls=0 gnttab_calls=0 copy=0 map=0 unmap=0 other=0' 'pass'
t ops 0 'records=8 lost=0 hypercalls=6 gnttab_calls=5 copy=35 map=7 unmap=3 other=2' '
rec(CPU, [0, 4096])
rec(HC, [20 | A32(0) | A32(2), 5, 32], cycles=True)
rec(HC, [20 | A32(0) | A32(2), 5, 3])
rec(HC, [20 | A32(0) | A32(2), 0, 7], cycles=True)
rec(HC, [20 | A32(0) | A32(2), 1, 3])
rec(HC, [20 | A32(0) | A32(2), 6, 2])
rec(HC, [29 | A32(0), 1], cycles=True)
rec(0x00281001, [1, 2, 3])'
t wide-args 0 'records=2 lost=0 hypercalls=2 gnttab_calls=2 copy=9 map=0 unmap=0 other=0' '
rec(HC, [20 | A64(0) | A32(1) | A32(2), 5, 0, 1234, 4])
rec(SUB, [20 | A32(0) | A32(2), 5, 5], cycles=True)'
t no-count 0 'records=1 lost=0 hypercalls=1 gnttab_calls=1 copy=0 map=0 unmap=0 other=0' '
rec(HC, [20 | A32(0), 5])'
t lost 0 'records=3 lost=1005 hypercalls=1 gnttab_calls=1 copy=1 map=0 unmap=0 other=0' '
rec(LOST, [5, 0, 1, 2], cycles=True)
rec(HC, [20 | A32(0) | A32(2), 5, 1])
rec(LOST, [1000, 0, 0, 0])'
t truncated 1 'xps-xtcount: stream ends inside a record' '
rec(HC, [20 | A32(0) | A32(2), 5, 1])
out.write(struct.pack("<II", 20 | (3 << 28), 5))'
echo "xps-xtcount: $p passed, $f failed"
[ "$f" = 0 ]
