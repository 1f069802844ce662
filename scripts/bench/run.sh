#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [blk|qspl|arm64|net|netpairs]: `make bench` (blk), `make bench-qspl`,
# `make bench-arm64`, `make bench-netfront` (net) and `make bench-net`
# (netpairs; `make bench-netpairs` too). Boots the
# lab with the benchmark scenario, collects the samples it emits into
# build/bench/<name>-<time>/samples.jsonl and prints the comparison tables
# (report.py). Never part of make check.
#
# Knobs (environment), passed into the lab as XPS_SCN_BENCH_*:
#   BENCH_VARIANTS  frontend variants, DRIVER[:PARAM=V[+PARAM=V]] separated
#                   by commas (default: xen-blkfront and xen-blkfront-64k,
#                   each with feature_persistent=1 and =0)
#   BENCH_WORKLOADS randread-4k,seqread-64k,randwrite-4k,build (default: all)
#   BENCH_REPS      pairs of runs                   (default 5)
#   BENCH_RUNTIME   seconds per run                 (default 10)
#   BENCH_JOBS      fio jobs                        (default 8)
#   BENCH_MARGIN    non-inferiority margin of the paired report (0.90)
#   BENCH_INSN      1: count instructions with the xps-insn QEMU plugin,
#                   the whole machine's per request (insns-per-req)
#   (beside the IOPS: blkback's KB per request around every run, and per
#   round and variant one traced run with Xen's grant operations,
#   grant_table_op calls and hypercalls per request, xentrace in dom0)
# qspl (tests/lab/scenarios/bench-qspl.sh):
#   BENCH_LEVELS    overcommit levels               (default 0.5x,1x,1.5x,2x)
#   BENCH_LOCKS     locks, the first the baseline   (default native,spinlock,pv,pv-unfair)
#   BENCH_QWORKLOADS counter,hash                   (default both)
#   BENCH_REPS      rounds                          (default 5)
#   BENCH_RUNTIME   seconds per run                 (default 3)
#   BENCH_NOPVSPIN  0: without the kernel's lock booted with nopvspin
#                   (a third guest; default 1)
#   the report adds every lock's paired ratio to the baseline per
#   workload, level and metric (margin 1.0: "not slower" means better);
#   the plot shows acq_per_s
# arm64 (tests/lab/scenarios/bench-a64.sh, the arm64 lab):
#   BENCH_SIZES     guest page sizes                (default 64k; 16k too)
#   BENCH_VARIANTS  as above (default: both drivers, feature_persistent=1)
#   BENCH_REPS      pairs of runs                   (default 5)
#   BENCH_BS        xps-verify block sizes          (default 1m)
#   BENCH_JOBS      xps-verify threads              (default 4)
# net (tests/lab/scenarios/bench-net.sh): xen-netfront-pgnt against the
# stock xen-netfront, iperf3 to dom0; the report adds, per workload, the
# paired ratio ours/stock with its 95 % interval and a non-inferiority
# verdict at BENCH_MARGIN:
#   BENCH_VARIANTS  two, the first the baseline     (default xen-netfront,
#                   xen-netfront-pgnt; DRIVER[:PARAM=V[+PARAM=V]])
#   BENCH_NWORKLOADS tcp-tx,tcp-rx,udp64-tx         (default all)
#   BENCH_REPS      pairs of runs, ABBA order       (default 5)
#   BENCH_RUNTIME   seconds per run                 (default 5)
#   BENCH_MARGIN    non-inferiority margin          (default 0.90)
#   BENCH_XEN       0: without the traced runs (per pair and variant, a
#                   tcp-tx and a tcp-rx run under xentrace: Xen's grant
#                   operations, grant_table_op calls and hypercalls per MB)
# netpairs (tests/lab/scenarios/bench-netpairs.sh): 1 to 4 guest pairs at
# once, iperf3 TCP domU to domU, the whole stack switched per variant;
# the report adds the seed 004 table (sum, average, min, max over the
# pairs per run) and every variant's paired ratio to the baseline:
#   BENCH_PVARIANTS stock,ours-nopg,ours            (default all three)
#   BENCH_PAIRS     pair counts                     (default 1,2,3,4)
#   BENCH_REPS      rounds, order rotated           (default 5)
#   BENCH_RUNTIME   seconds per run                 (default 10)
#   BENCH_MARGIN    as net                          (default 1.0)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
bench=${1:-blk}
case "$bench" in
blk) scenario="bench-blk" ;;
qspl) scenario="bench-qspl" ;;
arm64) scenario="bench-a64" ;;
net) scenario="bench-net" ;;
netpairs) scenario="bench-netpairs" ;;
*) echo "usage: $0 [blk|qspl|arm64|net|netpairs]" >&2; exit 2 ;;
esac
for k in VARIANTS WORKLOADS NWORKLOADS PVARIANTS PAIRS REPS RUNTIME JOBS LEVELS LOCKS QWORKLOADS NOPVSPIN SIZES BS INSN XEN; do
	v=BENCH_$k
	[ -z "${!v:-}" ] || export "XPS_SCN_BENCH_$k=${!v}"
done

out="$root/build/bench/$bench-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
arch=x86
if [ "$bench" = arm64 ]; then
	arch=arm64
	"$root/scripts/lab-modules.sh" --arch arm64 "$out/modules" >/dev/null
else
	"$root/scripts/lab-modules.sh" "$out/modules" >/dev/null
fi
rc=0
[ "${BENCH_INSN:-0}" != 1 ] || export XPS_LAB_INSN=1
XPS_LAB_OUT="$out" "$root/tests/lab/lab" --arch $arch run --modules "$out/modules" "$scenario" |
	tee "$out/lab.txt" || rc=$?
sed -n 's/^\(\[[^]]*\] \)\{0,1\}XPS-SAMPLE //p' "$out/$scenario/serial.log" >"$out/samples.jsonl"
# the instruction counts: the plugin's marks joined to the guest's requests
if [ -f "$out/$scenario/insn.txt" ]; then
	cp "$out/$scenario/insn.txt" "$out/insn-marks.txt"
	python3 "$root/scripts/bench/imarks.py" "$out/$scenario/serial.log" "$out/insn-marks.txt" >>"$out/samples.jsonl" || rc=1
fi
echo
echo "samples: $out/samples.jsonl ($(wc -l <"$out/samples.jsonl") lines)"
echo "kernel $("$root/tests/lab/lab" --arch $arch kver | xargs), Xen under QEMU TCG: compare variants within this run only"
echo
ropts=()
[ "$bench" != net ] && [ "$bench" != blk ] && [ "$bench" != arm64 ] || ropts=(--margin "${BENCH_MARGIN:-0.90}" --raw)
[ "$bench" != netpairs ] || ropts=(--margin "${BENCH_MARGIN:-1.0}" --raw)
[ "$bench" != qspl ] || ropts=(--margin "${BENCH_MARGIN:-1.0}" --plot-metric acq_per_s)
# report.args keeps report.py's options, so `make bench-tables` prints the
# same report once the run is kept in doc/bench-data/; tables.py writes
# report.txt (report.py's printout) and draws ratios.png (the per-round
# ratios) the same way here.
echo "${ropts[*]}" >"$out/report.args"
py=python3
[ ! -x /usr/bin/python3 ] || py=/usr/bin/python3
"$py" "$root/scripts/bench/tables.py" "$out"
cat "$out/report.txt"
echo "report: $out/report.txt$([ ! -f "$out/ratios.png" ] || echo ", plot: $out/ratios.png")"
exit $rc
