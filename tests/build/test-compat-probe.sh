#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-compat-probe.sh - scripts/compat-probe.sh against fake kernel
# header trees whose kbuild is a three-line Makefile: no kernel, no
# compiler, a second.  Prints PASS:/FAIL: build/compat-probe/<case> lines.
#   all         every probe builds: all of them present, exit 0
#   w1          the build was asked for W=1 (make passes it down in
#               MAKEFLAGS) and W=1 fails every file: the probes still
#               answer (before the fix all read as missing: failed)
#   broken      nothing builds (a compiler or a headers tree that cannot
#               build a module): exit 1 and an error saying so, not a
#               config with every feature missing (before the fix:
#               exit 0, 0 of 5 features)
#   too-old     5.10's headers: refused with the supported range
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
shtest_area=build/compat-probe
# shellcheck source=tests/lab/lib/shtest.sh
. "$root/tests/lab/lib/shtest.sh"
nprobes=$(find "$root/compat/probes" -name '*.c' | wc -l)

# kdir NAME RELEASE RULE: a fake headers tree whose every .o target runs
# RULE (make syntax; $(M) is the probe folder, $@ the target)
kdir() {
	mkdir -p "$sim/$1/include/generated"
	echo "#define UTS_RELEASE \"$2\"" >"$sim/$1/include/generated/utsrelease.h"
	printf '%%.o:\n\t%s\n' "$3" >"$sim/$1/Makefile"
}

# probe NAME [ENV...]: compat-probe.sh on fake tree NAME; prints its exit
# status, the count of HAVE_ defines and its first error line's first
# eight words (the scratch folder as SIM)
probe() {
	local k=$1 o rc
	shift
	rm -rf "$sim/out"
	o=$(env "$@" "$root/scripts/compat-probe.sh" "$sim/$k" "$sim/out" 2>&1)
	rc=$?
	echo "rc=$rc have=$(awk '/^#define HAVE_/ { n++ } END { print n + 0 }' "$sim/out/xps_config.h" 2>/dev/null || echo none)" \
		"$(grep -m1 '^error' <<<"$o" | sed "s|$sim|SIM|" | cut -d' ' -f1-8)"
}

kdir ok 6.12.0 '@touch $(M)/$@'
kdir w1 6.12.0 '@test -z "$(W)" && touch $(M)/$@'
kdir broken 6.12.0 '@echo "cc1: fatal error: no such compiler" >&2; exit 1'
kdir old 5.10.0-46-amd64 '@touch $(M)/$@'

check all "rc=0 have=$nprobes " "$(probe ok)"
check w1 "rc=0 have=$nprobes " "$(probe w1 MAKEFLAGS='-- W=1')"
check broken "rc=1 have=none error: the kernel headers in SIM/broken (6.12.0) cannot" "$(probe broken)"
check too-old "rc=1 have=none error: xen-pv-suite supports Linux 6.1 and later (built:" "$(probe old)"
[ "$fails" = 0 ]
