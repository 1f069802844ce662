#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-soak-table.sh: scripts/soak.sh --table on a made-up run folder: the
# rows count each step's cycles, failures, corruptions and hangs, keep
# the worst pool reading, and the footer the judge's bad lines and the
# checks.  Run by make check's tools step.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
d=$t/soak
mkdir -p "$d"
cat >"$d/serial.log" <<'EOF'
[domU:bfl] XPS-RESULT soak/load PASS drivers vbd-64k/vbd-64k
[domU:bfl] XPS-SOAK saves 1 ok 60 corrupt=0 hang=0
[domU:bfl] XPS-SOAK saves 2 ok 80 corrupt=0 hang=0
[domU:bfl] XPS-SOAK saves 3 bad 900 corrupt=1 hang=1
[domU:bfl] XPS-SOAK migrate 1 ok 40 corrupt=0 hang=0
[domU:bfl] XPS-SOAK reload-load 1 ok 5 corrupt=0 hang=0 pool_live=0
[domU:bfl] XPS-SOAK reload-load 2 bad 9 corrupt=0 hang=1 pool_live=3/5
[domU:bfl] XPS-SOAK reload-load 3 bad 7 corrupt=1 hang=0 pool_live=1/1
[domU:bfl] XPS-RESULT soak/leaks PASS after rmmod: pages_live=0 grants_live=0 deferred=0 leaked=0
EOF
printf 'PASS: lab/x86/soak/load\nFAIL: lab/x86/soak/saves bad: xvdc\n' >"$d/results.txt"
printf '12:[domU:bfl] WARNING: CPU: 0 PID: 1\n' >"$d/bad-lines.txt"
got=$(SOAK_WANT="saves=50 migrate=20 reload-load=100" "$root/scripts/soak.sh" --table "$t")
want='| step | cycles done | of | failed | corruptions | hangs | pool pages / grants left | seconds (sum, longest) |
|---|---|---|---|---|---|---|---|
| saves | 3 | 50 | 1 | 1 | 1 | - | 1040, 900 |
| migrate | 1 | 20 | 0 | 0 | 0 | - | 40, 40 |
| reload-load | 3 | 100 | 2 | 1 | 1 | 3 / 5 | 21, 9 |

leaks (after the last rmmod): PASS after rmmod: pages_live=0 grants_live=0 deferred=0 leaked=0
kernel BUG/WARNING/Oops lines (the judge'"'"'s bad-lines.txt, dom0 and domUs): 1
checks: 1 passed, 1 failed
FAIL: lab/x86/soak/saves bad: xvdc'
if [ "$got" = "$want" ]; then
	echo "PASS: tools/soak-table"
else
	echo "FAIL: tools/soak-table"
	diff <(echo "$want") <(echo "$got")
	exit 1
fi
