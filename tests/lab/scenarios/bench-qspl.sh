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
#   0.5x  the measuring domU on 1 vCPU (cpu1 offlined: its vCPU is down
#         in Xen), the hog domU qh idle
#   1x    the measuring domU on 2 vCPUs, qh idle
#   1.5x  the measuring domU on 2 vCPUs, qh with 1 busy vCPU
#   2x    the measuring domU on 2 vCPUs, qh with 2 busy vCPUs
# As in the seed, the competing load is another guest's vCPUs: a lock
# holder or a queue head is preempted by qh's vCPUs.  Every domU's vCPU
# N is pinned to physical CPU N (xl cpus=), so the hog's vCPUs share
# exactly the measuring domU's; dom0's 2 vCPUs float and idle.  The hog
# is told how many busy loops to run through xenstore (never paused: a
# paused guest wakes to RCU stall warnings).
#
# Measuring domUs: qb (PV spinlocks on, the kernel's default) runs every
# lock of XPS_SCN_BENCH_LOCKS; qn, booted with nopvspin (6.1's name for
# xen_nopvspin), runs the kernel's spin_lock() once more, which is then
# the kernel's native queued lock.  They take turns at each level of
# each round (qb first in odd rounds, qn first in even ones); the one
# not measuring idles.  Each checks its kernel said "xen: PV spinlocks
# enabled" (qb) or "disabled" (qn).
#
# Locks: spinlock (the kernel's spin_lock(); in a Xen PV guest that is the
# kernel's own PV queued lock), spinlock-nopvspin (qn's), native (the
# module, no PV: the "native queued lock" baseline), pv (fair, halts and
# kicks), pv-unfair (steals).
# Workloads: counter (the harness: 200 ns critical section, 500 ns think
# time) and hash (a shared 256-bucket chained hash table, lookup plus
# insert or delete under the lock, no artificial delay).  2 kthreads per
# vCPU contend for the one lock.
#
# Samples (XPS-SAMPLE, scripts/bench/xpsstats.py): bench
# "qspl-<workload>-<level>", variant = the lock, run = the round, series
# and level for the seed-style pivot table; metrics acq_per_s, fairness
# (thread_min / thread_max), wait_p99_us (upper bound of the
# 99th-percentile log2 bucket), halts_per_s, kicks_per_s, and what the
# run achieved, around it:
#   steal_pct   the measuring domU's steal time (/proc/stat, which a Xen
#               guest takes from its vCPUs' runstate: runnable but not
#               running) over its online vCPUs' wall time, in %
#   own_pcpus   its CPU time as Xen counts it (xl list, dom0) over the
#               wall time: physical CPUs' worth it used
#   hog_pcpus   the same for qh: the hog's work rate (a busy loop's work
#               is the CPU time it gets), what a halting lock gives away
# (own_pcpus and hog_pcpus: 0.1 s resolution, a window the run plus the
# two dom0 requests around it)
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
#   XPS_SCN_BENCH_NOPVSPIN    0: no qn, no spinlock-nopvspin (1)
# Interface: see smoke.sh.

bench_qspl_steps="cpu-selfcheck sweep"
QB_LEVELS=$(echo "${XPS_SCN_BENCH_LEVELS:-0.5x,1x,1.5x,2x}" | tr , ' ')
QB_LOCKS=$(echo "${XPS_SCN_BENCH_LOCKS:-native,spinlock,pv,pv-unfair}" | tr , ' ')
QB_WORKLOADS=$(echo "${XPS_SCN_BENCH_QWORKLOADS:-counter,hash}" | tr , ' ')
QB_REPS=${XPS_SCN_BENCH_REPS:-5}
QB_RUNTIME=${XPS_SCN_BENCH_RUNTIME:-3}
QB_NOPV=${XPS_SCN_BENCH_NOPVSPIN:-1}
bench_qspl_domus="qb qh"
[ "$QB_NOPV" = 0 ] || bench_qspl_domus="qb qn qh"
# qs_load and qs_r (reload with parameters, read a result) come from the
# torture scenario, as the harness is the same
[ -f /xps/scenarios/qspinlock.sh ] && . /xps/scenarios/qspinlock.sh
# every run: its runtime plus a reload and two dom0 requests (2026-12-05,
# 1x and 2x, 3 s runs: 12.7 s a run, 127 s a level of a round); every
# level change: the guests onlining their CPUs (about 15 s each)
bench_qspl_budget=$(( 300 + QB_REPS * $(echo "$QB_LEVELS" | wc -w) * \
	( $(echo "$QB_WORKLOADS" | wc -w) * ($(echo "$QB_LOCKS" | wc -w) + 1) * (QB_RUNTIME + 10) + 30 ) ))

bench_qspl_dom0_prepare() { :; }
bench_qspl_domU_cfg() {
	echo "memory = 384"
	echo "vcpus = 2"
	echo 'cpus = ["0", "1"]'
}
bench_qspl_domU_cmdline() { [ "$1" != qn ] || echo nopvspin; }

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
		# where every vCPU runs (the pinning), once per level
		xl vcpu-list | sed 's/^/xps: vcpu-list: /'
		RPC_REPLY="ok" ;;
	hog-stop)
		xl destroy qh; RPC_REPLY=ok ;;
	cpu)
		# every domain's CPU seconds (Xen's count) at dom0's uptime
		RPC_REPLY="t=$(up)$(xl list | awk 'NR > 1 { printf " %s=%s", $1, $6 }')" ;;
	turn)
		# turn LEVEL REP: qn measures, answers "ok" or what went wrong;
		# turn end: qn is done.  dom0 waits on a xenstore watch: a poll
		# (xenstore-read twice a second, 2026-12-05's first run) took
		# CPU from qn's runs only, a tenth of a physical CPU and more
		_q=$(xl domid qn 2>/dev/null) || { RPC_REPLY="error reason=no-qn"; return; }
		xs_put "$_q" data/xps/turn "$3${4:+ $4}"
		[ "$3" != end ] || { RPC_REPLY=ok; return; }
		_d=$(xs_await "/local/domain/$_q/data/xps/turn-done" "$3 $4 *" 250)
		case "$_d" in "$3 $4 "*) RPC_REPLY=${_d#"$3 $4 "} ;; *) RPC_REPLY="error reason=qn-no-answer" ;; esac ;;
	*) RPC_REPLY="error reason=unknown-request" ;;
	esac
}

# the hog domU: as many busy loops as data/xps/hog says, reniced so this
# loop still gets to read the key; it acknowledges once every loop runs.
# (The domU's busybox has no nice: until 2026-12-05 "nice -n 19 sh -c"
# failed with "nice: not found" and the hog never ran a loop, so the
# 1.5x and 2x of the runs before had an idle hog.)  It waits on a
# xenstore watch: a poll, a xenstore-read every second, cost the idle
# hog 0.17-0.18 of a physical CPU under TCG, so 1x was not idle either.
qh_main() {
	_pids='' _have=none
	_hp=/local/domain/$(xenstore-read domid)/data/xps/hog
	xenstore-watch "$_hp" 2>/dev/null | while read -r _; do
		_want=$(xenstore-read "$_hp" 2>/dev/null || echo 0)
		[ "$_want" != "$_have" ] || continue
		# shellcheck disable=SC2086 # a list of pids
		[ -z "$_pids" ] || kill $_pids 2>/dev/null
		_pids=''
		_i=0
		while [ $_i -lt "$_want" ]; do
			sh -c 'while :; do :; done' &
			_pids="$_pids $!"
			renice -n 19 -p $! >/dev/null
			_i=$((_i + 1))
		done
		_have=$_want
		sleep 0.5
		for _p in $_pids; do kill -0 "$_p" 2>/dev/null || _have="error: loop $_p is not running"; done
		echo "xps: hog: $_want busy loop(s):$_pids"
		xenstore-write data/xps/hog-ack "$_have"
	done
}

# qb_cpus N: N of this domU's 2 vCPUs online
qb_cpus() {
	_c=0
	[ "$1" -ge 2 ] && _c=1
	echo "$_c" >/sys/devices/system/cpu/cpu1/online 2>/dev/null
	wait_for 30 sh -c "[ \$(nproc) = $1 ]"
}

# qb_level LEVEL: "VCPUS HOGS" of an overcommit level, or fails
qb_level() {
	case "$1" in
	0.5x) echo "1 0" ;; 1x) echo "2 0" ;; 1.5x) echo "2 1" ;; 2x) echo "2 2" ;;
	*) return 1 ;;
	esac
}

# qb_pvspin: what this kernel said of its PV spinlocks (enabled,
# disabled, or unknown)
qb_pvspin() {
	_p=$(dmesg | sed -n 's/.*xen: PV spinlocks \([a-z]*\).*/\1/p' | tail -n 1)
	echo "${_p:-unknown}"
}

qb_sample() { # qb_sample WORKLOAD LEVEL METRIC UNIT HIGHER LOCK REP VALUE
	echo "XPS-SAMPLE {\"bench\": \"qspl-$1-$2\", \"series\": \"qspl-$1\", \"level\": \"$2\", \"metric\": \"$3\", \"unit\": \"$4\", \"variant\": \"$6\", \"params\": {}, \"run\": $7, \"value\": $8, \"higher_is_better\": $5}"
}

# qb_stat: "UPTIME STEAL" of this domU, both in seconds (steal summed
# over its CPUs, /proc/stat's USER_HZ ticks)
qb_stat() {
	awk 'NR == FNR { u = $1; next } $1 == "cpu" { printf "%s %.2f\n", u, $9 / 100; exit }' /proc/uptime /proc/stat
}

# qb_run LOCK WORKLOAD: reload for LOCK, one run; 0 if it produced
# results.  Around the run: QB_C0/QB_C1 (dom0's cpu reply) and
# QB_S0/QB_S1 (qb_stat)
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
	# (dom0 answers at once, and rpc waits on a watch: the window is tight)
	QB_C0=$(rpc cpu) QB_S0=$(qb_stat)
	timeout $((QB_RUNTIME + 120)) sh -c "echo 1 >$QS_DIR/run"
	_rc=$?
	QB_S1=$(qb_stat) QB_C1=$(rpc cpu)
	[ $_rc = 0 ] && [ "$(qs_r violations)" = 0 ] && [ "$(qs_r lost_updates)" = 0 ] &&
		[ -n "$(qs_r acquisitions_per_s)" ]
}

# qb_emit WORKLOAD LEVEL LOCK REP: the samples of the last run; fails
# when the overcommit could not be measured (dom0 did not answer)
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
	# shellcheck disable=SC2086 # "uptime steal" twice
	_st=$(echo $QB_S0 $QB_S1 | awk -v n="$(nproc)" '$3 > $1 { printf "%.2f", 100 * ($4 - $2) / (($3 - $1) * n) }')
	[ -z "$_st" ] || qb_sample "$1" "$2" steal_pct % false "$3" "$4" "$_st"
	_t0=$(kv "$QB_C0" t) _t1=$(kv "$QB_C1" t)
	_o0=$(kv "$QB_C0" "$QB_ME") _o1=$(kv "$QB_C1" "$QB_ME")
	_h0=$(kv "$QB_C0" qh) _h1=$(kv "$QB_C1" qh)
	[ -n "$_t0" ] && [ -n "$_t1" ] && [ -n "$_o0" ] && [ -n "$_o1" ] && [ -n "$_h0" ] && [ -n "$_h1" ] ||
		return 1
	_w=$(awk -v a="$_t0" -v b="$_t1" -v c="$_o0" -v d="$_o1" -v e="$_h0" -v f="$_h1" \
		'BEGIN { if (b > a) printf "%.3f %.3f", (d - c) / (b - a), (f - e) / (b - a) }')
	[ -n "$_w" ] || return 1
	qb_sample "$1" "$2" own_pcpus pCPUs false "$3" "$4" "${_w% *}"
	qb_sample "$1" "$2" hog_pcpus pCPUs true "$3" "$4" "${_w#* }"
}

# qb_measure LEVEL REP LOCK...: this domU's vCPUs set for LEVEL, then
# every workload with each LOCK; what failed goes to QB_BAD (a file),
# each run with samples adds a line to QB_RUNS
QB_BAD=/tmp/xps-qb-bad QB_RUNS=/tmp/xps-qb-runs
qb_measure() {
	_ml=$1 _mr=$2
	shift 2
	# shellcheck disable=SC2046 # "VCPUS HOGS"
	set -- $(qb_level "$_ml") "$@"
	qb_cpus "$1" || { echo " $_ml:nproc=$(nproc)" >>$QB_BAD; return; }
	shift 2
	for _wl in $QB_WORKLOADS; do
		for _lk in "$@"; do
			_lab=$_lk
			[ "$QB_ME" != qn ] || _lab=$_lk-nopvspin
			if qb_run "$_lk" "$_wl"; then
				qb_emit "$_wl" "$_ml" "$_lab" "$_mr" || echo " $_wl/$_ml/$_lab:no-cpu-times" >>$QB_BAD
				echo "$_wl/$_ml/$_lab" >>$QB_RUNS
			else
				echo " $_wl/$_ml/$_lab:$(qs_r violations)/$(qs_r lost_updates)" >>$QB_BAD
			fi
		done
	done
}

# qn: at each turn dom0 writes data/xps/turn = "LEVEL REP" (or "end");
# qn measures the kernel's spin_lock() and answers data/xps/turn-done =
# "LEVEL REP ok" or "LEVEL REP <what failed>".  It waits on a xenstore
# watch, not a poll, so it costs qb's runs nothing while it idles.
qn_main() {
	_qp=/local/domain/$(xenstore-read domid)/data/xps/turn
	# (a fifo, not a pipe: the watch is killed at the end, a pipeline
	# would wait for it forever, as it did in the first run)
	rm -f /tmp/qn.watch; mkfifo /tmp/qn.watch
	xenstore-watch "$_qp" >/tmp/qn.watch 2>/dev/null &
	_qw=$!
	_last=
	echo "xps: qn: PV spinlocks $(qb_pvspin)"
	while read -r _; do
		_turn=$(xenstore-read "$_qp" 2>/dev/null) || continue
		[ -n "$_turn" ] && [ "$_turn" != "$_last" ] || continue
		_last=$_turn
		[ "$_turn" != end ] || break
		: >$QB_BAD
		[ "$(qb_pvspin)" = disabled ] || echo " PV-spinlocks-$(qb_pvspin)" >>$QB_BAD
		# shellcheck disable=SC2086 # "LEVEL REP"
		qb_measure $_turn spinlock
		_bad=$(tr -d '\n' <$QB_BAD)
		xenstore-write data/xps/turn-done "$_turn ${_bad:-ok}"
	done </tmp/qn.watch
	kill "$_qw" 2>/dev/null
	rmmod qspinlock-pv 2>/dev/null
}

# qb_turn LEVEL REP: qn's turn (when there is a qn); prints what failed
qb_turn() {
	[ "$QB_NOPV" != 0 ] || return 0
	_tr=$(rpc turn "$1" "$2")
	[ "$_tr" = ok ] || echo " qn@$1/$2:$(echo "$_tr" | tr ' ' ,)"
}

bench_qspl_domU() {
	QB_ME=$1
	if [ "$1" = qh ]; then
		qh_main	# until dom0 destroys the domain
		return
	fi
	if ! modinfo qspinlock-pv >/dev/null 2>&1; then
		[ "$1" = qn ] || fail bench-qspl/sweep "qspinlock-pv.ko missing from --modules"
		return
	fi
	if [ "$1" = qn ]; then
		qn_main
		return
	fi
	_t=$(up) _bad=
	: >$QB_BAD; : >$QB_RUNS
	echo "xps: qb: PV spinlocks $(qb_pvspin)"
	[ "$(qb_pvspin)" = enabled ] || _bad=" qb:PV-spinlocks-$(qb_pvspin)"
	_rep=1
	while [ $_rep -le "$QB_REPS" ]; do
		# rotate the lock order each round: pairs, not a drift
		_order=$QB_LOCKS _k=1
		while [ $_k -lt "$_rep" ]; do
			# (cut -f2- of a single lock printed it whole: each round
			# from the second measured a lone lock twice)
			_order="${_order#* } ${_order%% *}"
			[ "$QB_LOCKS" != "${QB_LOCKS#* }" ] || _order=$QB_LOCKS
			_k=$((_k + 1))
		done
		for _lv in $QB_LEVELS; do
			if ! _lh=$(qb_level "$_lv"); then _bad="$_bad level-$_lv"; continue; fi
			_r=$(rpc hog "${_lh#* }")
			case "$_r" in ok*) ;; *) _bad="$_bad $_lv:$_r"; continue ;; esac
			echo "xps: round $_rep level $_lv: hog ${_lh#* } busy"
			# qn first in even rounds
			[ $((_rep % 2)) = 1 ] || _bad="$_bad$(qb_turn "$_lv" "$_rep")"
			# shellcheck disable=SC2086 # the locks
			qb_measure "$_lv" "$_rep" $_order
			[ $((_rep % 2)) = 0 ] || _bad="$_bad$(qb_turn "$_lv" "$_rep")"
		done
		_rep=$((_rep + 1))
	done
	rmmod qspinlock-pv 2>/dev/null
	qb_cpus 2
	[ "$QB_NOPV" = 0 ] || rpc turn end >/dev/null
	rpc hog-stop >/dev/null
	_bad="$_bad$(tr -d '\n' <$QB_BAD)"
	_runs="$(grep -c . $QB_RUNS) runs here, qn's in its turns"
	if [ -z "$_bad" ]; then
		pass bench-qspl/sweep "$_runs, in $(since "$_t")s"
	else
		fail bench-qspl/sweep "$_runs, in $(since "$_t")s; failed:$(echo "$_bad" | cut -c1-300)"
	fi
}
