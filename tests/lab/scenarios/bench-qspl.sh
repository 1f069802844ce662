# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034 # the scenario interface (<fn>_steps, _budget, _domus,
# RPC_REPLY, BF_SCN...) is read by dom0-init, the judge and the helpers
# bench-qspl - the seed 002 overcommit benchmark of qspinlock-pv: lock
# throughput at 0.5x, 1x, 1.5x and 2x vCPU overcommit of the lab's
# physical CPUs, the kernel's own spin_lock and the module's three modes
# compared in paired, rotating runs in one boot.
# A benchmark, never a test: run by scripts/bench/run.sh qspl, not by
# make check; numbers are emitted as samples, never judged.  The step
# fails only when a run produced no number.
#
# Overcommit = runnable vCPUs / physical CPUs (the lab's Xen has 2):
#   0.5x  the measuring domU qb on 1 vCPU (cpu1 offlined: its vCPU is
#         down in Xen), the hog domU qh idle
#   1x    qb on 2 vCPUs, qh idle
#   1.5x  qb on 2 vCPUs, qh with 1 busy vCPU
#   2x    qb on 2 vCPUs, qh with 2 busy vCPUs
# As in the seed, the competing load is another guest's vCPUs: a lock
# holder or a queue head in qb is preempted by qh's vCPUs.  (dom0 idles.)
# The hog is told how many busy loops to run through xenstore (never
# paused: a paused guest wakes to RCU stall warnings).
#
# Locks: spinlock (the kernel's spin_lock(); in a Xen PV guest that is the
# kernel's own PV queued lock), native (the module, no PV: the "native
# queued lock" baseline), pv (fair, halts and kicks), pv-unfair (steals).
# Workloads: counter (the harness: 200 ns critical section, 500 ns think
# time) and hash (a shared 256-bucket chained hash table, lookup plus
# insert or delete under the lock, no artificial delay).  2 kthreads per
# vCPU contend for the one lock.
#
# Samples (XPS-SAMPLE, scripts/bench/xpsstats.py): bench
# "qspl-<workload>-<level>", variant = the lock, series/level for the
# seed-style pivot table; metrics acq_per_s, fairness (thread_min /
# thread_max), wait_p99_us (upper bound of the 99th-percentile log2
# bucket), halts_per_s, kicks_per_s.
#
# Host knobs (XPS_SCN_*):
#   XPS_SCN_BENCH_LEVELS      comma-separated subset (0.5x,1x,1.5x,2x)
#   XPS_SCN_BENCH_LOCKS       comma-separated, the first is the baseline
#                             (native,spinlock,pv,pv-unfair); a lock may
#                             carry a module parameter, LOCK:spin_threshold=N
#                             (the variant's label keeps it)
#   XPS_SCN_BENCH_QWORKLOADS  counter,hash
#   XPS_SCN_BENCH_REPS        rounds (5)
#   XPS_SCN_BENCH_RUNTIME     seconds per run (3)
# Interface: see smoke.sh.

bench_qspl_steps="cpu-selfcheck sweep"
bench_qspl_domus="qb qh"
QB_LEVELS=$(echo "${XPS_SCN_BENCH_LEVELS:-0.5x,1x,1.5x,2x}" | tr , ' ')
QB_LOCKS=$(echo "${XPS_SCN_BENCH_LOCKS:-native,spinlock,pv,pv-unfair}" | tr , ' ')
QB_WORKLOADS=$(echo "${XPS_SCN_BENCH_QWORKLOADS:-counter,hash}" | tr , ' ')
QB_REPS=${XPS_SCN_BENCH_REPS:-5}
QB_RUNTIME=${XPS_SCN_BENCH_RUNTIME:-3}
# qs_load and qs_r (reload with parameters, read a result) come from the
# torture scenario, as the harness is the same
[ -f /xps/scenarios/qspinlock.sh ] && . /xps/scenarios/qspinlock.sh
# every run: its runtime plus a reload (about 3 s under TCG); every level
# change: vcpu-set and the guest onlining its CPUs (about 15 s)
bench_qspl_budget=$(( 300 + QB_REPS * $(echo "$QB_LEVELS" | wc -w) * \
	( $(echo "$QB_WORKLOADS" | wc -w) * $(echo "$QB_LOCKS" | wc -w) * (QB_RUNTIME + 4) + 15 ) ))

bench_qspl_dom0_prepare() { :; }
bench_qspl_domU_cfg() {
	case "$1" in
	qb) echo "memory = 384"; echo "vcpus = 2" ;;
	qh) echo "memory = 384"; echo "vcpus = 2" ;;
	esac
}

# hog H: qh runs H busy loops (it acknowledges in data/xps/hog-ack);
# hog-stop: the hog goes
bench_qspl_rpc() {
	case "$2" in
	hog)
		_q=$(xl domid qh 2>/dev/null) || { RPC_REPLY="error reason=no-hog"; return; }
		xs_put "$_q" data/xps/hog "$3"
		_n=0
		while [ "$(xenstore-read "/local/domain/$_q/data/xps/hog-ack" 2>/dev/null)" != "$3" ]; do
			_n=$((_n + 1)); [ $_n -lt 240 ] || { RPC_REPLY="error reason=hog-no-ack"; return; }
			sleep 0.5
		done
		RPC_REPLY="ok" ;;
	hog-stop)
		xl destroy qh; RPC_REPLY=ok ;;
	*) RPC_REPLY="error reason=unknown-request" ;;
	esac
}

# the hog domU: as many busy loops as data/xps/hog says, niced so this
# loop still gets to read the key
qh_main() {
	_pids='' _have=none
	while :; do
		_want=$(xenstore-read data/xps/hog 2>/dev/null || echo 0)
		if [ "$_want" != "$_have" ]; then
			# shellcheck disable=SC2086 # a list of pids
			[ -z "$_pids" ] || kill $_pids 2>/dev/null
			_pids=''
			_i=0
			while [ $_i -lt "$_want" ]; do
				nice -n 19 sh -c 'while :; do :; done' &
				_pids="$_pids $!"
				_i=$((_i + 1))
			done
			_have=$_want
			xenstore-write data/xps/hog-ack "$_have"
		fi
		sleep 1
	done
}

# qb_cpus N: N of qb's 2 vCPUs online
qb_cpus() {
	_c=0
	[ "$1" -ge 2 ] && _c=1
	echo "$_c" >/sys/devices/system/cpu/cpu1/online 2>/dev/null
	wait_for 30 sh -c "[ \$(nproc) = $1 ]"
}

qb_sample() { # qb_sample WORKLOAD LEVEL METRIC UNIT HIGHER LOCK REP VALUE
	echo "XPS-SAMPLE {\"bench\": \"qspl-$1-$2\", \"series\": \"qspl-$1\", \"level\": \"$2\", \"metric\": \"$3\", \"unit\": \"$4\", \"variant\": \"$6\", \"params\": {}, \"run\": $7, \"value\": $8, \"higher_is_better\": $5}"
}

# qb_run LOCK WORKLOAD: reload for LOCK, one run; 0 if it produced results
qb_run() {
	_mode=${1%%:*} _kl=0 _parm=
	case "$1" in *:*) _parm=${1#*:} ;; esac
	[ "$_mode" != spinlock ] || _mode=native _kl=1
	# shellcheck disable=SC2086 # a param=value word, or none
	qs_load mode="$_mode" $_parm || return 1
	echo 2 >"$QS_DIR/threads_per_cpu" && echo $((QB_RUNTIME * 1000)) >"$QS_DIR/duration_ms" &&
	echo "$_kl" >"$QS_DIR/kernel_lock" && echo 0 >"$QS_DIR/irqsave" || return 1
	if [ "$2" = hash ]; then
		echo 1 >"$QS_DIR/workload" && echo 0 >"$QS_DIR/cs_ns" && echo 200 >"$QS_DIR/think_ns"
	else
		echo 0 >"$QS_DIR/workload" && echo 200 >"$QS_DIR/cs_ns" && echo 500 >"$QS_DIR/think_ns"
	fi || return 1
	timeout $((QB_RUNTIME + 120)) sh -c "echo 1 >$QS_DIR/run" &&
		[ "$(qs_r violations)" = 0 ] && [ "$(qs_r lost_updates)" = 0 ] &&
		[ -n "$(qs_r acquisitions_per_s)" ]
}

# qb_emit WORKLOAD LEVEL LOCK REP: the samples of the last run
qb_emit() {
	_s=$(awk '$1 == "elapsed_ns" { e = $2 } $1 == "thread_min" { mn = $2 } $1 == "thread_max" { mx = $2 }
		$1 == "halts" { h = $2 } $1 == "kicks" { k = $2 }
		$1 ~ /^wait_ns_2\^/ { sub(/wait_ns_2\^/, "", $1); b[$1 + 0] = $2; n += $2 }
		END { p = 0; c = 0; w = 2; for (i = 0; i < 64; i++) { c += b[i]; if (c >= 0.99 * n) { p = w / 1000; break }; w *= 2 }
		      printf "%.4f %.3f %.1f %.1f", mx ? mn / mx : 0, p, h * 1e9 / e, k * 1e9 / e }' "$QS_DIR/results")
	# shellcheck disable=SC2086 # four numbers
	set -- "$1" "$2" "$3" "$4" $_s
	qb_sample "$1" "$2" acq_per_s acq/s true "$3" "$4" "$(qs_r acquisitions_per_s)"
	qb_sample "$1" "$2" fairness min/max true "$3" "$4" "$5"
	qb_sample "$1" "$2" wait_p99_us us false "$3" "$4" "$6"
	qb_sample "$1" "$2" halts_per_s 1/s false "$3" "$4" "$7"
	qb_sample "$1" "$2" kicks_per_s 1/s false "$3" "$4" "$8"
}

bench_qspl_domU() {
	if [ "$1" = qh ]; then
		qh_main	# until dom0 destroys the domain
		return
	fi
	if ! modinfo qspinlock-pv >/dev/null 2>&1; then
		fail bench-qspl/sweep "qspinlock-pv.ko missing from --modules"; return
	fi
	_t=$(up) _runs=0 _bad=
	_rep=1
	while [ $_rep -le "$QB_REPS" ]; do
		for _lv in $QB_LEVELS; do
			case "$_lv" in
			0.5x) _v=1 _h=0 ;; 1x) _v=2 _h=0 ;; 1.5x) _v=2 _h=1 ;; 2x) _v=2 _h=2 ;;
			*) _bad="$_bad level-$_lv"; continue ;;
			esac
			_r=$(rpc hog "$_h")
			case "$_r" in ok*) ;; *) _bad="$_bad $_lv:$_r"; continue ;; esac
			qb_cpus "$_v" || { _bad="$_bad $_lv:nproc=$(nproc)"; continue; }
			echo "xps: round $_rep level $_lv: $(nproc) vCPUs here, hog $_h busy"
			for _wl in $QB_WORKLOADS; do
				# rotate the lock order each round: pairs, not a drift
				_order=$QB_LOCKS _k=1
				while [ $_k -lt "$_rep" ]; do
					_order="$(echo "$_order" | cut -d' ' -f2-) $(echo "$_order" | cut -d' ' -f1)"
					_k=$((_k + 1))
				done
				for _lk in $_order; do
					if qb_run "$_lk" "$_wl"; then
						qb_emit "$_wl" "$_lv" "$_lk" "$_rep"
						_runs=$((_runs + 1))
					else
						_bad="$_bad $_wl/$_lv/$_lk:$(qs_r violations)/$(qs_r lost_updates)"
					fi
				done
			done
		done
		_rep=$((_rep + 1))
	done
	rmmod qspinlock-pv 2>/dev/null
	qb_cpus 2
	rpc hog-stop >/dev/null
	if [ -z "$_bad" ]; then
		pass bench-qspl/sweep "$_runs runs in $(since "$_t")s"
	else
		fail bench-qspl/sweep "$_runs runs in $(since "$_t")s; failed:$(echo "$_bad" | cut -c1-300)"
	fi
}
