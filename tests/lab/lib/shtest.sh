# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # shared with the sourcing test:
# it sets shtest_area and reads here, sh and path
# shtest.sh - what the host tests of the scenarios' shell code share
# (test-bfl-loops.sh, test-soak-crowd.sh, test-soak-net.sh and
# tests/build/test-compat-probe.sh source it after setting shtest_area,
# their lines' prefix: lab/soak-net): $here, the test's folder; a
# scratch folder $sim,
# removed on exit, with $t in it (blkfront-life.sh's BFL_TMP); $shells,
# the shells a domU's code must run in: dash and, when the host has it,
# busybox's sh (with busybox's awk, which busybox finds on PATH);
# check NAME WANT GOT, a PASS:/FAIL: $shtest_area/NAME line, a
# failure counted in $fails; and shell_of SHELL, which sets $sh (the
# command) and $path (the PATH) that run code in SHELL.
here=$(cd "$(dirname "$0")" && pwd)
sim=$(mktemp -d)
trap 'rm -rf "$sim"' EXIT
t=$sim/tmp
mkdir -p "$t"
fails=0

shells=(dash)
if command -v busybox >/dev/null; then
	mkdir -p "$sim/bb"
	ln -s "$(command -v busybox)" "$sim/bb/awk"
	shells+=(busybox)
fi

check() { # check NAME WANT GOT
	if [ "$2" = "$3" ]; then
		echo "PASS: $shtest_area/$1"
	else
		echo "FAIL: $shtest_area/$1 want '$2', got '$3'"
		fails=$((fails + 1))
	fi
}

# shell_of SHELL: sh and path for SHELL (the caller declares them local)
shell_of() {
	sh=$1 path=$PATH
	[ "$1" != busybox ] || { sh="busybox sh" path=$sim/bb:$PATH; }
}
