#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-soak-table.sh: scripts/soak.sh --table on a made-up run folder: the
# rows count each step's cycles (of the counts the scenario planned),
# failures, corruptions and hangs, keep the worst pool reading, and the
# footer the judge's bad lines and the checks; and which fio failures
# count as corruptions.  Run by make check's tools step.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
d=$t/soak
mkdir -p "$d"
cat >"$d/serial.log" <<'EOF'
[domU:bfl] XPS-SOAK-PLAN saves=50 migrate=20 reload-load=100
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
printf '12:[domU:bfl] WARNING: CPU: 0 PID: 1\n40:[ 1390.04] watchdog: BUG: soft lockup - CPU#0 stuck for 26s!\n41:[ 1390.07] Call Trace:\n' >"$d/bad-lines.txt"
got=$("$root/scripts/soak.sh" --table "$t")
want='| step | cycles done | of | failed | corruptions | hangs | pool pages / grants left | seconds (sum, longest) |
|---|---|---|---|---|---|---|---|
| saves | 3 | 50 | 1 | 1 | 1 | - | 1040, 900 |
| migrate | 1 | 20 | 0 | 0 | 0 | - | 40, 40 |
| reload-load | 3 | 100 | 2 | 1 | 1 | 3 / 5 | 21, 9 |

leaks (after the last rmmod): PASS after rmmod: pages_live=0 grants_live=0 deferred=0 leaked=0
kernel BUG/WARNING/Oops lines (the judge'"'"'s bad-lines.txt, Xen, dom0 and domUs): 3 (domU bfl 1, dom0 2)
checks: 1 passed, 1 failed
FAIL: lab/x86/soak/saves bad: xvdc'
r=0
if [ "$got" = "$want" ]; then
	echo "PASS: tools/soak-table"
else
	echo "FAIL: tools/soak-table"
	diff <(echo "$want") <(echo "$got")
	r=1
fi

# The corruptions column counts runs that bf_fio_corrupt (blkfront.sh)
# calls corrupt: fio's verify failures, not I/O errors or timeouts (the
# lines below are in the formats of fio's verify.c and io_u.c).
(
	. "$root/tests/lab/scenarios/blkfront.sh"
	tag=xps-soak-table-$$
	trap 'rm -f /tmp/fio-$tag-*.log' EXIT
	printf '%s\n' 'crc32c: verify failed at file /dev/xvda offset 1048576, length 4096 (requested block: offset=1048576, length=4096, flags=88)' \
		'       Expected CRC: 1c3f4a2b' \
		'fio: pid=301, err=84/file:io_u.c:2211, func=io_u_sync_complete, error=Invalid or incomplete multibyte or wide character' >"/tmp/fio-$tag-crc.log"
	echo 'verify: bad magic header 0, wanted acca at file /dev/xvdb offset 0, length 65536 (requested block: offset=0, length=65536)' >"/tmp/fio-$tag-magic.log"
	echo 'fio: pid=302, err=84/file:io_u.c:2211, func=io_u_queued_complete, error=Invalid or incomplete multibyte or wide character' >"/tmp/fio-$tag-eilseq.log"
	echo 'fio: io_u error on file /dev/xvdc: Input/output error: write offset=0, buflen=65536' >"/tmp/fio-$tag-eio.log"
	echo 'fio: pid=303, err=5/file:io_u.c:1845, func=io_u error, error=Input/output error' >>"/tmp/fio-$tag-eio.log"
	: >"/tmp/fio-$tag-timeout.log"
	ok=1
	for c in crc magic eilseq; do bf_fio_corrupt "$tag-$c" || { echo "not counted as corrupt: $c"; ok=; }; done
	for c in eio timeout none; do ! bf_fio_corrupt "$tag-$c" || { echo "counted as corrupt: $c"; ok=; }; done
	[ -n "$ok" ]
) && echo "PASS: tools/soak-fio-corrupt" || { echo "FAIL: tools/soak-fio-corrupt"; r=1; }
exit $r
