#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-bfl-loops.sh - blkfront-life's fio loop bookkeeping on the host,
# under dash and, when the host has it, busybox's sh and awk (what the
# domU runs): no QEMU, no root, seconds.  Prints PASS:/FAIL:
# lab/bfl-loops/<case> lines.
#   tags        bfl_set_disks: a loop's tag is its disk's letter
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sim=$(mktemp -d)
trap 'rm -rf "$sim"; rm -f /tmp/bfl-[abc].* /tmp/bfl.stop /tmp/bfl.moved' EXIT
fails=0

shells=(dash)
if command -v busybox >/dev/null; then
	mkdir -p "$sim/bb"
	ln -s "$(command -v busybox)" "$sim/bb/awk"
	shells+=(busybox)
fi

# run SHELL SCRIPT: SCRIPT after blkfront-life.sh, in SHELL
run() {
	local sh=$1 path=$PATH
	shift
	if [ "$sh" = busybox ]; then sh="busybox sh" path=$sim/bb:$PATH; fi
	PATH=$path LAB_DIR=$here $sh -c ". $here/scenarios/blkfront-life.sh; $1" 2>&1
}

check() { # check NAME WANT GOT
	if [ "$2" = "$3" ]; then
		echo "PASS: lab/bfl-loops/$1"
	else
		echo "FAIL: lab/bfl-loops/$1 want '$2', got '$3'"
		fails=$((fails + 1))
	fi
}

for sh in "${shells[@]}"; do
	got=$(run "$sh" "bfl_set_disks 'xvda xvdb'; echo \"\$BFL_TAGS\"; bfl_set_disks 'xvda xvdb xvdc'; echo \"\$BFL_TAGS\"")
	check "tags ($sh)" "a b
a b c" "$got"

done

[ "$fails" = 0 ]
