#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-judge.sh - checks lib/judge.sh on synthetic serial logs (no QEMU,
# no root, a few seconds).  Prints PASS:/FAIL: lab/judge/<case> lines.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0

# A log in which every smoke step passed.
good() {
	cat <<'EOF'
(XEN) [    1.000000] Xen version 4.17.7
XPS-SELFCHECK * dom0 OK sha256x3
XPS-DOMU smoke smoke 1 created_in=3s
[domU:smoke] XPS-SELFCHECK smoke smoke OK sha256x3
[domU:smoke] XPS-RESULT smoke/xvda PASS sectors=1
[domU:smoke] XPS-RESULT smoke/xvdb PASS sectors=1
[domU:smoke] XPS-RESULT smoke/net PASS up
[domU:smoke] XPS-RESULT smoke/fio-verify PASS ok
[domU:smoke] XPS-RESULT smoke/sha256-verify PASS ok
[domU:smoke] XPS-RESULT smoke/iperf3-up PASS 1Mbits/sec
[domU:smoke] XPS-RESULT smoke/iperf3-down PASS 1Mbits/sec
XPS-SCENARIO-END smoke 60
XPS-DONE uptime=90
EOF
}

# expect CASE RC PATTERN: judge $tmp/CASE, want exit RC and PATTERN in output.
expect() {
	local c=$1 rc=$2 pat=$3 got=0 out
	out=$("$here/lab" judge "$tmp/$c" smoke 2>&1) || got=$?
	if [ "$got" = "$rc" ] && grep -qE -- "$pat" <<<"$out"; then
		echo "PASS: lab/judge/$c"
	else
		echo "FAIL: lab/judge/$c exit=$got (want $rc), no line matching '$pat'"
		fails=$((fails + 1))
	fi
}

mk() { mkdir -p "$tmp/$1"; cat >"$tmp/$1/serial.log"; }

good | mk all-pass
expect all-pass 0 '^SUMMARY: 0 failure'

good | sed 's/smoke\/fio-verify PASS ok/smoke\/fio-verify FAIL verify: bad header/' | mk step-fail
expect step-fail 1 '^FAIL: lab/x86/smoke/fio-verify verify: bad header'

good | grep -v 'iperf3-down' | mk missing-step
expect missing-step 1 '^FAIL: lab/x86/smoke/iperf3-down no result'

# A step without a result shows the domU's last console lines (not its
# dmesg dump) and dom0's lines about it; past the budget, it says so.
past_budget() {
	good | grep -v -e 'iperf3-down' -e XPS-SCENARIO-END
	echo '[domU:smoke] xps: iperf3 -R to 10.0.0.1 started'
	echo 'xps: smoke: still waiting for the domU'
	echo 'XPS-RESULT smoke/domU-exit FAIL smoke still running after 900s; destroyed'
}
past_budget | mk tail-console
expect tail-console 1 '^TAIL: lab/x86/smoke/smoke xps: iperf3 -R to 10.0.0.1 started'
past_budget | mk tail-dom0
expect tail-dom0 1 '^TAIL: lab/x86/smoke/dom0 xps: smoke: still waiting'
past_budget | mk budget-why
expect budget-why 1 "^FAIL: lab/x86/smoke/iperf3-down no result \\(past the scenario's budget"
past_budget | mk budget-why-complete
expect budget-why-complete 1 "^FAIL: lab/x86/smoke/complete no end marker \\(past the scenario's budget"
{ good | grep -v -e 'iperf3-down'
  echo '[domU:smoke] XPS-DMESG-BEGIN domU:smoke'
  echo '[domU:smoke] [    1.0] dmesg line'
  echo '[domU:smoke] XPS-DMESG-END domU:smoke'; } | mk tail-no-dmesg
out=$("$here/lab" judge "$tmp/tail-no-dmesg" smoke 2>&1 || true)
if grep -q 'TAIL: .*dmesg line' <<<"$out"; then
	echo "FAIL: lab/judge/tail-no-dmesg the dmesg dump is in the tail"; fails=$((fails + 1))
elif grep -q '^TAIL: lab/x86/smoke/smoke XPS-RESULT smoke/iperf3-up' <<<"$out"; then
	echo "PASS: lab/judge/tail-no-dmesg"
else
	echo "FAIL: lab/judge/tail-no-dmesg no tail before the dump"; fails=$((fails + 1))
fi
out=$("$here/lab" judge "$tmp/all-pass" smoke 2>&1 || true)
if grep -q '^TAIL: ' <<<"$out"; then
	echo "FAIL: lab/judge/no-tail-on-pass a passing run printed TAIL lines"; fails=$((fails + 1))
else
	echo "PASS: lab/judge/no-tail-on-pass"
fi

good | grep -v -e XPS-DONE -e XPS-SCENARIO-END | mk hang
expect hang 1 '^FAIL: lab/x86/smoke/complete no end marker'

{ good; echo '[domU:smoke] [   12.5] WARNING: CPU: 0 PID: 1 at drivers/block/xen-blkfront.c:1 x'; } | mk domU-warning
expect domU-warning 1 '^FAIL: lab/x86/smoke/log-clean .*xen-blkfront'

{ good; echo '(XEN) [   2.0] Assertion failed'; echo '[   30.1] BUG: kernel NULL pointer dereference'; } | mk dom0-bug
expect dom0-bug 1 '^FAIL: lab/x86/smoke/log-clean .*NULL pointer'

{ good; echo '[   30.1] xen: DEBUG_WARNINGS=n CONFIG_BUGFIX'; } | mk no-false-positive
expect no-false-positive 0 '^PASS: lab/x86/smoke/log-clean'

good | sed 's/^\[domU:smoke\] XPS-SELFCHECK.*/[domU:smoke] XPS-LABFAULT smoke smoke cpu-selfcheck mismatch: sha256#2/' | mk lab-fault
expect lab-fault 3 '^FAIL: lab/x86/smoke/cpu-selfcheck LAB FAULT'

# judge_live: the console's progress while QEMU runs. Fed the log in two
# parts, the second ending mid-line, it reports each milestone once, and
# the half-written line only when it is complete.
live() {
	( # shellcheck source=lib/common.sh
	  . "$here/lib/common.sh"
	  # shellcheck source=lib/judge.sh
	  . "$here/lib/judge.sh"
	  for t in 10 20 30; do
		  cat "$tmp/live/part$t" >>"$tmp/live/serial.log" 2>/dev/null || true
		  judge_live "$tmp/live/serial.log" "$t"
	  done )
}
mkdir -p "$tmp/live"
good | head -n 5 >"$tmp/live/part10"
{ good | sed -n 6,7p; printf '[domU:smoke] XPS-RESULT smoke/fio-'; } >"$tmp/live/part20"
{ echo 'verify PASS ok'; echo '[   30.1] BUG: kernel NULL pointer dereference'
  good | sed -n '9,$p'; } >"$tmp/live/part30"
out=$(live)
want='LIVE: [+10s] lab/x86/smoke domU smoke up, domid 1, created_in=3s
LIVE: [+10s] lab/x86/smoke/xvda PASS sectors=1
LIVE: [+20s] lab/x86/smoke/xvdb PASS sectors=1
LIVE: [+20s] lab/x86/smoke/net PASS up
LIVE: [+30s] lab/x86/smoke/fio-verify PASS ok
LIVE: [+30s] lab/x86 trouble: [   30.1] BUG: kernel NULL pointer dereference
LIVE: [+30s] lab/x86/smoke/sha256-verify PASS ok
LIVE: [+30s] lab/x86/smoke/iperf3-up PASS 1Mbits/sec
LIVE: [+30s] lab/x86/smoke/iperf3-down PASS 1Mbits/sec
LIVE: [+30s] lab/x86/smoke ended after 60s
LIVE: [+30s] lab/x86 dom0 done'
if [ "$out" = "$want" ]; then
	echo "PASS: lab/judge/live"
else
	echo "FAIL: lab/judge/live printed:"; sed 's/^/    /' <<<"$out"; fails=$((fails + 1))
fi

[ "$fails" = 0 ]
