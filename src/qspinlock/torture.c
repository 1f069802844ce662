// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * The torture and benchmark harness, in debugfs:
 *
 *   /sys/kernel/debug/qspinlock-pv/
 *     threads_per_cpu  kthreads bound to each online CPU (default 2)
 *     duration_ms      length of a run (default 2000, at most 600000)
 *     cs_ns            busy time inside the critical section (default 100)
 *     think_ns         busy time between two acquisitions (default 500)
 *     kernel_lock      1: contend for a spinlock_t instead (comparison)
 *     irqsave          1: the _irqsave variants of either lock
 *     workload         0: counter (below); 1: hash table, each
 *                      acquisition looks a random key up in a shared
 *                      chained hash table and inserts or deletes it
 *     run              write anything: one run, the write returns after it
 *     results          the report of the last run, "key value" lines
 *     stats            the lock's per-CPU counters summed, now
 *
 * All threads contend for one lock.  The critical section checks an owner
 * field on entry and exit and updates a plain counter with a gap between
 * its read and write, so a broken lock shows as violations and as a
 * counter that differs from the number of acquisitions.  Each thread
 * records its acquisitions and the time it waited for the lock, in log2
 * buckets of nanoseconds.  The hash workload is a real data structure
 * under the lock (pointer chasing, cache misses, writes to shared lines);
 * after the run every bucket is walked and each entry's membership flag
 * checked against the chains, so a broken lock shows as a corrupt table.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/cpu.h>
#include <linux/list.h>
#include "internal.h"

#define QSPL_HIST	32	/* wait buckets: [2^i, 2^(i+1)) ns */
#define QSPL_MAX_NS	100000U	/* cs_ns and think_ns are capped here */
#define QSPL_REPORT	8192
#define QSPL_HKEYS	4096	/* hash workload: keys, half present */
#define QSPL_HBUCKETS	256

struct qspl_tcfg {
	u32 threads_per_cpu;
	u32 duration_ms;
	u32 cs_ns;
	u32 think_ns;
	u32 kernel_lock;
	u32 irqsave;
	u32 workload;
};

struct qspl_hentry {
	struct hlist_node node;
	bool present;
};

struct qspl_thread {
	struct task_struct *task;
	struct qspl_run *run;
	int id;
	u64 acq;
	u64 wait_max_ns;
	u32 rnd;			/* xorshift state, hash workload */
	u64 hist[QSPL_HIST];
};

/* One run; the shared lock and data each get their own cache line. */
struct qspl_run {
	struct qspl_tcfg cfg;
	struct qspl qlock ____cacheline_aligned;
	spinlock_t slock ____cacheline_aligned;
	int owner ____cacheline_aligned;	/* -1 or the holder's id */
	unsigned long counter;
	atomic_t violations ____cacheline_aligned;
	atomic_t ready;
	bool go;
	bool stop;
	unsigned int nr;
	struct qspl_thread *t;
	/* hash workload, only touched under the lock */
	struct hlist_head *buckets;
	struct qspl_hentry *entries;
	unsigned long present;
};

static struct qspl_tcfg qspl_tcfg = {
	.threads_per_cpu = 2,
	.duration_ms = 2000,
	.cs_ns = 100,
	.think_ns = 500,
};

static DEFINE_MUTEX(qspl_torture_mutex);	/* one run at a time */
static char *qspl_report;			/* last results */
static struct dentry *qspl_dir;

static void qspl_sum_stats(struct qspl_stats *t)
{
	unsigned int cpu;

	memset(t, 0, sizeof(*t));
	for (cpu = 0; cpu < qspl_env.nr_cpus; cpu++) {
		const struct qspl_stats *s = &qspl_env.cpus[cpu].stats;

		t->slowpath += READ_ONCE(s->slowpath);
		t->pending += READ_ONCE(s->pending);
		t->steals += READ_ONCE(s->steals);
		t->queued += READ_ONCE(s->queued);
		t->nest_overflow += READ_ONCE(s->nest_overflow);
		t->halts_node += READ_ONCE(s->halts_node);
		t->halts_head += READ_ONCE(s->halts_head);
		t->wait_early += READ_ONCE(s->wait_early);
		t->spurious += READ_ONCE(s->spurious);
		t->kicks += READ_ONCE(s->kicks);
		t->hashed_for_next += READ_ONCE(s->hashed_for_next);
		t->hash_hops_max = max(t->hash_hops_max,
				       READ_ONCE(s->hash_hops_max));
	}
}

/* Hash workload: look a random key up, delete it if there, else insert. */
static void qspl_hash_op(struct qspl_run *r, struct qspl_thread *t)
{
	struct qspl_hentry *e, *want;
	struct hlist_head *b;
	u32 x = t->rnd;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	t->rnd = x;
	want = &r->entries[x % QSPL_HKEYS];
	b = &r->buckets[(x % QSPL_HKEYS) % QSPL_HBUCKETS];
	hlist_for_each_entry(e, b, node)
		if (e == want)
			break;
	if (e) {
		hlist_del_init(&e->node);
		e->present = false;
		r->present--;
	} else {
		hlist_add_head(&want->node, b);
		want->present = true;
		r->present++;
	}
}

/* After a hash run: chains and flags agree.  Return: inconsistencies. */
static unsigned int qspl_hash_check(struct qspl_run *r)
{
	struct qspl_hentry *e;
	unsigned long seen = 0, flagged = 0;
	unsigned int i, bad = 0;

	for (i = 0; i < QSPL_HBUCKETS; i++)
		hlist_for_each_entry(e, &r->buckets[i], node) {
			if (!e->present ||
			    (e - r->entries) % QSPL_HBUCKETS != i)
				bad++;
			if (++seen > QSPL_HKEYS)
				return bad + 1;	/* a cycle */
		}
	for (i = 0; i < QSPL_HKEYS; i++)
		flagged += r->entries[i].present;
	return bad + (seen != flagged) + (seen != r->present);
}

static int qspl_hash_init(struct qspl_run *r)
{
	unsigned int i;

	r->buckets = kcalloc(QSPL_HBUCKETS, sizeof(*r->buckets), GFP_KERNEL);
	r->entries = kcalloc(QSPL_HKEYS, sizeof(*r->entries), GFP_KERNEL);
	if (!r->buckets || !r->entries)
		return -ENOMEM;
	for (i = 0; i < QSPL_HBUCKETS; i++)
		INIT_HLIST_HEAD(&r->buckets[i]);
	for (i = 0; i < QSPL_HKEYS; i += 2) {
		hlist_add_head(&r->entries[i].node,
			       &r->buckets[i % QSPL_HBUCKETS]);
		r->entries[i].present = true;
		r->present++;
	}
	return 0;
}

static void qspl_critical(struct qspl_run *r, struct qspl_thread *t)
{
	unsigned long v;

	if (READ_ONCE(r->owner) != -1)
		atomic_inc(&r->violations);
	WRITE_ONCE(r->owner, t->id);
	v = r->counter;
	if (r->cfg.workload)
		qspl_hash_op(r, t);
	ndelay(r->cfg.cs_ns);
	r->counter = v + 1;
	if (READ_ONCE(r->owner) != t->id)
		atomic_inc(&r->violations);
	WRITE_ONCE(r->owner, -1);
}

/* One acquisition of the kernel's spinlock; returns the wait in ns. */
static u64 qspl_one_kernel(struct qspl_run *r, struct qspl_thread *t)
{
	unsigned long flags = 0;
	u64 t0 = ktime_get_ns(), wait;

	if (r->cfg.irqsave)
		spin_lock_irqsave(&r->slock, flags);
	else
		spin_lock(&r->slock);
	wait = ktime_get_ns() - t0;
	qspl_critical(r, t);
	if (r->cfg.irqsave)
		spin_unlock_irqrestore(&r->slock, flags);
	else
		spin_unlock(&r->slock);
	return wait;
}

/* One acquisition of our lock; returns the wait in ns. */
static u64 qspl_one_qspl(struct qspl_run *r, struct qspl_thread *t)
{
	unsigned long flags = 0;
	u64 t0 = ktime_get_ns(), wait;

	if (r->cfg.irqsave)
		flags = qspl_lock_irqsave(&r->qlock);
	else
		qspl_lock(&r->qlock);
	wait = ktime_get_ns() - t0;
	qspl_critical(r, t);
	if (r->cfg.irqsave)
		qspl_unlock_irqrestore(&r->qlock, flags);
	else
		qspl_unlock(&r->qlock);
	return wait;
}

static void qspl_one(struct qspl_run *r, struct qspl_thread *t)
{
	u64 wait = r->cfg.kernel_lock ? qspl_one_kernel(r, t) :
					qspl_one_qspl(r, t);

	t->acq++;
	t->wait_max_ns = max(t->wait_max_ns, wait);
	t->hist[min_t(unsigned int, ilog2(wait | 1), QSPL_HIST - 1)]++;
}

static int qspl_thread_fn(void *arg)
{
	struct qspl_thread *t = arg;
	struct qspl_run *r = t->run;

	atomic_inc(&r->ready);
	while (!READ_ONCE(r->go) && !kthread_should_stop())
		schedule_timeout_interruptible(1);
	while (!READ_ONCE(r->stop) && !kthread_should_stop()) {
		qspl_one(r, t);
		ndelay(r->cfg.think_ns);
		cond_resched();
	}
	/* Park until kthread_stop(), so the results stay ours to read. */
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static void qspl_report_run(struct qspl_run *r, const struct qspl_stats *a,
			    const struct qspl_stats *b, u64 elapsed_ns)
{
	u64 total = 0, min_acq = U64_MAX, max_acq = 0, wait_max = 0;
	u64 hist[QSPL_HIST] = { 0 };
	size_t n = 0, sz = QSPL_REPORT;
	char *p = qspl_report;
	unsigned int i, j;

	for (i = 0; i < r->nr; i++) {
		struct qspl_thread *t = &r->t[i];

		total += t->acq;
		min_acq = min(min_acq, t->acq);
		max_acq = max(max_acq, t->acq);
		wait_max = max(wait_max, t->wait_max_ns);
		for (j = 0; j < QSPL_HIST; j++)
			hist[j] += t->hist[j];
	}
	if (!r->nr)
		min_acq = 0;
	n += scnprintf(p + n, sz - n, "lock %s\nworkload %s\n",
		       r->cfg.kernel_lock ? "spinlock" :
		       qspl_mode_name(qspl_env.mode),
		       r->cfg.workload ? "hash" : "counter");
	n += scnprintf(p + n, sz - n,
		       "irqsave %u\nthreads %u\nonline_cpus %u\ncs_ns %u\nthink_ns %u\nelapsed_ns %llu\n",
		       r->cfg.irqsave, r->nr, num_online_cpus(), r->cfg.cs_ns,
		       r->cfg.think_ns, elapsed_ns);
	n += scnprintf(p + n, sz - n,
		       "acquisitions %llu\nacquisitions_per_s %llu\nthread_min %llu\nthread_max %llu\nwait_max_ns %llu\n",
		       total,
		       elapsed_ns ? div64_u64(total * NSEC_PER_SEC, elapsed_ns) : 0,
		       min_acq, max_acq, wait_max);
	n += scnprintf(p + n, sz - n, "violations %u\nlost_updates %lld\n",
		       atomic_read(&r->violations),
		       (long long)total - (long long)r->counter);
	n += scnprintf(p + n, sz - n,
		       "halts %llu\nhalts_node %llu\nhalts_head %llu\nwait_early %llu\nkicks %llu\nhashed_for_next %llu\nspurious %llu\nsteals %llu\npending %llu\nqueued %llu\nslowpath %llu\n",
		       (b->halts_node + b->halts_head) -
		       (a->halts_node + a->halts_head),
		       b->halts_node - a->halts_node,
		       b->halts_head - a->halts_head,
		       b->wait_early - a->wait_early, b->kicks - a->kicks,
		       b->hashed_for_next - a->hashed_for_next,
		       b->spurious - a->spurious, b->steals - a->steals,
		       b->pending - a->pending, b->queued - a->queued,
		       b->slowpath - a->slowpath);
	for (j = 0; j < QSPL_HIST; j++)
		if (hist[j])
			n += scnprintf(p + n, sz - n, "wait_ns_2^%u %llu\n", j,
				       hist[j]);
}

static int qspl_torture_run(void)
{
	struct qspl_stats before, after;
	struct qspl_run *r;
	unsigned int cpu, i, k;
	u64 t0, elapsed;
	int rc = 0;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->cfg = qspl_tcfg;
	r->cfg.threads_per_cpu = clamp_val(r->cfg.threads_per_cpu, 1, 64);
	r->cfg.duration_ms = clamp_val(r->cfg.duration_ms, 10, 600000);
	r->cfg.cs_ns = min(r->cfg.cs_ns, QSPL_MAX_NS);
	r->cfg.think_ns = min(r->cfg.think_ns, QSPL_MAX_NS);
	r->cfg.workload = !!r->cfg.workload;
	qspl_init(&r->qlock);
	spin_lock_init(&r->slock);
	r->owner = -1;
	atomic_set(&r->violations, 0);
	atomic_set(&r->ready, 0);
	if (r->cfg.workload) {
		rc = qspl_hash_init(r);
		if (rc)
			goto out_free;
	}

	cpus_read_lock();
	r->t = kcalloc(num_online_cpus() * r->cfg.threads_per_cpu,
		       sizeof(*r->t), GFP_KERNEL);
	if (!r->t) {
		rc = -ENOMEM;
		goto out_unlock;
	}
	for_each_online_cpu(cpu) {
		for (k = 0; k < r->cfg.threads_per_cpu; k++) {
			struct qspl_thread *t = &r->t[r->nr];

			t->run = r;
			t->id = r->nr;
			t->rnd = 2463534242U + 7919U * r->nr;
			t->task = kthread_create_on_cpu(qspl_thread_fn, t, cpu,
							"qspl_torture/%u");
			if (IS_ERR(t->task)) {
				rc = PTR_ERR(t->task);
				t->task = NULL;
				goto out_stop;
			}
			r->nr++;
			wake_up_process(t->task);
		}
	}
	while (atomic_read(&r->ready) < r->nr)
		schedule_timeout_interruptible(1);
	qspl_sum_stats(&before);
	t0 = ktime_get_ns();
	WRITE_ONCE(r->go, true);
	msleep_interruptible(r->cfg.duration_ms);
	WRITE_ONCE(r->stop, true);
out_stop:
	for (i = 0; i < r->nr; i++)
		kthread_stop(r->t[i].task);
	if (!rc) {
		elapsed = ktime_get_ns() - t0;
		qspl_sum_stats(&after);
		if (r->cfg.workload) {
			unsigned int bad = qspl_hash_check(r);

			if (bad)
				pr_err("torture: hash table corrupt (%u inconsistencies)\n",
				       bad);
			atomic_add(bad, &r->violations);
		}
		qspl_report_run(r, &before, &after, elapsed);
		if (atomic_read(&r->violations))
			pr_err("torture: %u mutual exclusion violations\n",
			       atomic_read(&r->violations));
	}
out_unlock:
	cpus_read_unlock();
out_free:
	kfree(r->t);
	kfree(r->buckets);
	kfree(r->entries);
	kfree(r);
	return rc;
}

static ssize_t qspl_run_write(struct file *file, const char __user *buf,
			      size_t len, loff_t *ppos)
{
	int rc;

	if (mutex_lock_interruptible(&qspl_torture_mutex))
		return -EINTR;
	rc = qspl_torture_run();
	mutex_unlock(&qspl_torture_mutex);
	return rc ? rc : len;
}

static const struct file_operations qspl_run_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = qspl_run_write,
	.llseek = noop_llseek,
};

static int qspl_results_show(struct seq_file *m, void *v)
{
	mutex_lock(&qspl_torture_mutex);
	seq_puts(m, qspl_report[0] ? qspl_report : "no run yet\n");
	mutex_unlock(&qspl_torture_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(qspl_results);

static int qspl_stats_show(struct seq_file *m, void *v)
{
	struct qspl_stats t;

	qspl_sum_stats(&t);
	seq_printf(m, "mode %s\nspin_threshold %u\nevent_channels %u\n",
		   qspl_mode_name(qspl_env.mode), qspl_env.spin_threshold,
		   qspl_xen_channels());
	seq_printf(m,
		   "slowpath %llu\npending %llu\nsteals %llu\nqueued %llu\nnest_overflow %llu\nhalts_node %llu\nhalts_head %llu\nwait_early %llu\nspurious %llu\nkicks %llu\nhashed_for_next %llu\nhash_hops_max %llu\n",
		   t.slowpath, t.pending, t.steals, t.queued, t.nest_overflow,
		   t.halts_node, t.halts_head, t.wait_early, t.spurious,
		   t.kicks, t.hashed_for_next, t.hash_hops_max);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(qspl_stats);

void qspl_torture_init(void)
{
	qspl_report = kzalloc(QSPL_REPORT, GFP_KERNEL);
	if (!qspl_report)
		return;		/* the lock works without its harness */
	qspl_dir = debugfs_create_dir("qspinlock-pv", NULL);
	debugfs_create_u32("threads_per_cpu", 0644, qspl_dir,
			   &qspl_tcfg.threads_per_cpu);
	debugfs_create_u32("duration_ms", 0644, qspl_dir,
			   &qspl_tcfg.duration_ms);
	debugfs_create_u32("cs_ns", 0644, qspl_dir, &qspl_tcfg.cs_ns);
	debugfs_create_u32("think_ns", 0644, qspl_dir, &qspl_tcfg.think_ns);
	debugfs_create_u32("kernel_lock", 0644, qspl_dir,
			   &qspl_tcfg.kernel_lock);
	debugfs_create_u32("irqsave", 0644, qspl_dir, &qspl_tcfg.irqsave);
	debugfs_create_u32("workload", 0644, qspl_dir, &qspl_tcfg.workload);
	debugfs_create_file("run", 0200, qspl_dir, NULL, &qspl_run_fops);
	debugfs_create_file("results", 0444, qspl_dir, NULL,
			    &qspl_results_fops);
	debugfs_create_file("stats", 0444, qspl_dir, NULL, &qspl_stats_fops);
}

void qspl_torture_exit(void)
{
	/* Removing the files waits for open writers: no run is going on. */
	debugfs_remove_recursive(qspl_dir);
	qspl_dir = NULL;
	kfree(qspl_report);
	qspl_report = NULL;
}
