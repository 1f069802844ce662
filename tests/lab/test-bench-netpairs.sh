#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-bench-netpairs.sh - runs bench-netpairs' round loop (bp_lead, as pa1
# runs it) on the host under dash, against a fake dom0 behind lib.sh's own
# rpc (xenstore-read/-write stubs) and a fake iperf3: no QEMU, no root,
# seconds.  The frontend switches are stubbed; what is checked is the
# bookkeeping that turns results into samples.  Prints PASS:/FAIL:
# lab/bench-netpairs/<case> lines.
#   samples   every TCP, UDP and xentrace sample each round and variant
#             should give, and the sweep line's run count (the 2026-12-02
#             smoke run lost the UDP sample when another domU's result
#             followed pa1's, and counted its runs in rpc's own _n)
#   udp-fail  a UDP result that is no number is a failed run, not a sample
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sim=$(mktemp -d); trap 'rm -rf "$sim"' EXIT
fails=0
command -v dash >/dev/null || { echo "FAIL: lab/bench-netpairs/setup dash is not installed"; exit 1; }

mkdir -p "$sim/bin"
# The fake dom0. rpc() writes "SEQ CMD ARGS" to data/xps/req, waits for
# data/xps/ack = SEQ (on a watch) and reads data/xps/res. For tcp:N it answers for
# pa1..paN (pa1's own value first, then the others', as dom0 lists them),
# for everything else pa1's value and "ok" for the other domUs.
cat >"$sim/bin/xenstore-write" <<'EOF'
#!/bin/sh
[ "$1" = data/xps/req ] && echo "$2" >"$SIM/req"
exit 0
EOF
cat >"$sim/bin/xenstore-read" <<'EOF'
#!/bin/sh
set -- "$1" $(cat "$SIM/req")
case "$1" in
domid) echo 5 ;;
*data/xps/ack) echo "$2" ;;
data/xps/res)
	shift 2
	case "$1" in
	go) echo "$2" >"$SIM/action"; echo ok ;;
	res) echo "$4" >"$SIM/pa1"; echo ok ;;
	nres) echo 99 ;;
	peer) echo 10.0.0.102 ;;
	nb-switch) echo "ok 4 vif(s) on $2" ;;
	nb-sum) # counters that grow by 1 MB and 0 grant copies a look
		n=$(( $(cat "$SIM/nbsum" 2>/dev/null || echo 0) + 1 )); echo $n >"$SIM/nbsum"
		echo "grant_copy_ops=0 tx_memcpy_bytes=$((n * 1048576)) tx_gcopy_bytes=0" ;;
	xt-start) echo ok ;;
	xt-stop) echo "ok rx=2097152 tx=65536 records=100 lost=0 hypercalls=50 gnttab_calls=4 copy=40 map=12 unmap=10 other=2" ;;
	getresall)
		a=$(sed 's/^[0-9]*://' "$SIM/action") v=$(cat "$SIM/pa1")
		out="pa1=$v"
		case "$a" in tcp:*) k=2; while [ $k -le "${a#tcp:}" ]; do out="$out pa$k=1$k.5"; k=$((k + 1)); done ;; esac
		k=1; while [ $k -le "$NP_PAIRS" ]; do out="$out pb$k=ok"; k=$((k + 1)); done
		case "$a" in tcp:*) ;; *) k=2; while [ $k -le "$NP_PAIRS" ]; do out="$out pa$k=ok"; k=$((k + 1)); done ;; esac
		echo "$out" ;;
	*) echo ok ;;
	esac ;;
esac
EOF
# rpc awaits its ack on a watch (xs_await): fired once when set, as
# xenstored's are, then nothing
cat >"$sim/bin/xenstore-watch" <<'EOF'
#!/bin/sh
echo "$1"
exec sleep 60
EOF
# iperf3 as the guests' reports it: a TCP or a UDP receiver line, or
# (IPERF_UDP=garbled) a UDP line with no datagram count
cat >"$sim/bin/iperf3" <<'EOF'
#!/bin/sh
case " $* " in
*" -u "*) if [ "${IPERF_UDP:-}" = garbled ]; then echo "[  5]   0.00-1.00   sec  0 Bytes  0 bits/sec  receiver"
	  else echo "[  5]   0.00-1.00   sec  1.43 MBytes  2.40 Mbits/sec  0.1 ms  12/23468 (0.05%)  receiver"; fi ;;
*) echo "[  5]   0.00-1.00   sec  5.12 MBytes  266 Mbits/sec      receiver" ;;
esac
EOF
chmod +x "$sim/bin/"*

# run_lead REPS: bp_lead for variants stock and ours, 1 and 2 pairs
run_lead() {
	rm -f /tmp/xps.rpcseq
	# shellcheck disable=SC2016 # the script is expanded by dash, not here
	SIM=$sim NP_PAIRS=2 PATH="$sim/bin:$PATH" LAB_DIR=$here \
	XPS_SCN_BENCH_PVARIANTS=stock,ours XPS_SCN_BENCH_PAIRS=1,2 XPS_SCN_BENCH_REPS=$1 XPS_SCN_BENCH_RUNTIME=1 \
	dash -c '
		. "$LAB_DIR/guest/lib.sh"
		. "$LAB_DIR/scenarios/bench-netpairs.sh"
		DOM=pa1 NP_T0=$(up)
		np_start_all() { return 0; }
		bp_unload() { return 0; }
		bp_load() { return 0; }
		bp_lead'
	rm -f /tmp/xps.rpcseq /tmp/bp-iperf.log
}

# count PATTERN OUT
count() { grep -cE -- "$1" <<<"$2"; }

out=$(run_lead 2 2>&1)
# per round and variant: 1 + 2 pair samples, 2 sums, 2 grant-op samples
# (ours only), 1 UDP sample, 3 xentrace samples, of which the grant
# operations per MB are the fake's 40 + 12 + 10 + 2 over its 2 MB
want="pair=12 sum=8 gops=4 udp=4 xen=12 xops=4"
got="pair=$(count '"metric": "pair"' "$out") sum=$(count '"metric": "sum"' "$out") gops=$(count '"metric": "grant_copy_ops_per_mb"' "$out") udp=$(count '"bench": "netpairs-udp64-1p".*"value": 23456' "$out") xen=$(count '"bench": "netpairs-xen-1p"' "$out") xops=$(count '"metric": "grant_ops_per_mb".*"value": 32.00,' "$out")"
# 2 rounds x 2 variants x (2 TCP + 1 UDP + 1 traced) runs
if [ "$got" = "$want" ] && grep -q 'bench-netpairs/sweep PASS 16 runs, 2 rounds of stock ours' <<<"$out"; then
	echo "PASS: lab/bench-netpairs/samples"
else
	echo "FAIL: lab/bench-netpairs/samples got $got, want $want; $(grep -E 'bench-netpairs/sweep|bench-netpairs:' <<<"$out" | head -n 3 | tr '\n' ' ')"
	fails=$((fails + 1))
fi

out=$(IPERF_UDP=garbled run_lead 1 2>&1)
if [ "$(count '"bench": "netpairs-udp64' "$out")" = 0 ] &&
   grep -q 'bench-netpairs/sweep FAIL 2 of 8 runs or switches failed' <<<"$out"; then
	echo "PASS: lab/bench-netpairs/udp-fail"
else
	echo "FAIL: lab/bench-netpairs/udp-fail $(grep -E 'udp64|bench-netpairs/sweep' <<<"$out" | head -n 3 | tr '\n' ' ')"
	fails=$((fails + 1))
fi

[ "$fails" = 0 ]
