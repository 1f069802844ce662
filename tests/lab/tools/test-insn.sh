#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-insn.sh - checks the instruction counter the benchmarks use
# (xps-insn.c, a QEMU TCG plugin, and its marker xps-imark.c) in QEMU's
# user mode (qemu-x86_64, Debian's qemu-user of the same QEMU version as
# the lab's): a marker, a loop of exactly 2 * SPIN instructions, the
# next marker. Prints PASS:/FAIL: lab/insn/<case> lines.
#   count     the two marks differ by 2 * SPIN plus the few instructions
#             around the loop (at most 64)
#   ids       each mark carries its own ID, and the exit line comes last
#   no-plugin without the plugin, xps-imark runs as two NOPs
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "PASS: lab/insn/$1"; }
bad() { echo "FAIL: lab/insn/$1 ${*:2}"; fails=$((fails + 1)); }

api=$("$here/../../../scripts/qemu-plugin-api.sh") || { bad setup "no qemu-plugin.h"; exit 1; }
command -v qemu-x86_64 >/dev/null || { bad setup "qemu-x86_64 missing (qemu-user)"; exit 1; }
cc -O2 -Wall -Wextra -Werror -static -o "$tmp/xps-imark" "$here/xps-imark.c" &&
cc -O2 -Wall -Wextra -Werror -shared -fPIC -I"$api" -o "$tmp/libxps-insn.so" "$here/xps-insn.c" -lpthread ||
	{ bad build "see the compiler's output above"; exit 1; }

spin=1000000
qemu-x86_64 -plugin "$tmp/libxps-insn.so,out=$tmp/marks" "$tmp/xps-imark" 41 $spin ||
	bad run "qemu-x86_64 with the plugin failed"
a=$(awk '$2 == 41 { print $3 }' "$tmp/marks")
b=$(awk '$2 == 42 { print $3 }' "$tmp/marks")
if [ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) -ge $((2 * spin)) ] && [ $((b - a)) -le $((2 * spin + 64)) ]; then
	ok count
else
	bad count "marks 41 and 42 differ by $((${b:-0} - ${a:-0})), want $((2 * spin)) to $((2 * spin + 64)): $(tr '\n' ';' <"$tmp/marks")"
fi
if [ "$(awk '{ print $2 }' "$tmp/marks" | xargs)" = "41 42 4294967295" ]; then ok ids
else bad ids "marks: $(awk '{ print $2 }' "$tmp/marks" | xargs)"; fi
if "$tmp/xps-imark" 7 10 && ! "$tmp/xps-imark" 4294967295 2>/dev/null; then ok no-plugin
else bad no-plugin "xps-imark failed natively, or took an ID with no room for ID + 1"; fi
[ "$fails" = 0 ]
