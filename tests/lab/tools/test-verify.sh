#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test-verify.sh - xps-verify on a file (no O_DIRECT, host build under
# ASan/UBSan): good data passes; a flipped byte, a misdirected sector and
# a stale run are each caught.  No root, no device, a second.
set -u
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
cc=${CC:-cc}
$cc -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -pthread \
	-o "$d/xv" "$(dirname "$0")/xps-verify.c" || { echo "FAIL: tools/xps-verify build"; exit 1; }
img=$d/img; truncate -s 16M "$img"
p=0 f=0
t() { # t NAME WANT_RC CMD...
	_n=$1 _w=$2; shift 2
	"$@" >"$d/out" 2>&1; _r=$?
	if [ "$_r" = "$_w" ]; then p=$((p + 1)); echo "PASS: tools/xps-verify/$_n"
	else f=$((f + 1)); echo "FAIL: tools/xps-verify/$_n rc=$_r want $_w: $(head -c 300 "$d/out")"; fi
}
x() { "$d/xv" -n -f "$img" -o 1m -s 8m "$@"; }
t write-verify 0 x -b 512,3584,4k,64k,1m -j 4 -S 7
t reverify-other-sizes 0 x -v -b 1536,128k -a 1024 -S 7
t stale-seed 1 x -v -b 4k -S 8
printf 'X' | dd of="$img" bs=1 seek=$((2 * 1048576 + 700)) conv=notrunc 2>/dev/null
t flipped-byte 1 x -v -b 64k -S 7
grep -q 'wrong bytes (corrupted)' "$d/out" || { f=$((f + 1)); echo "FAIL: tools/xps-verify/flipped-byte-report $(head -c 200 "$d/out")"; }
x -w -b 1m -S 7 >/dev/null 2>&1
dd if="$img" of="$img" bs=512 skip=4096 seek=4100 count=1 conv=notrunc 2>/dev/null
t misdirected 1 x -v -b 1m -S 7
grep -q 'misdirected' "$d/out" || { f=$((f + 1)); echo "FAIL: tools/xps-verify/misdirected-report $(head -c 200 "$d/out")"; }
t usage 2 "$d/xv" -f "$img" -s 1000
echo "xps-verify: $p passed, $f failed"
[ "$f" = 0 ]
