// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Userspace tests of the qspinlock-pv lock algorithm (src/qspinlock/
 * qspl_core.c), built twice: under TSan and under ASan + UBSan.
 *
 * Every pthread is one simulated CPU with its own MCS nodes.  The
 * hypervisor is a futex per CPU standing in for its event channel: kick
 * sets the CPU's pending word and wakes it, wait clears it, tests the
 * awaited word and sleeps while pending is clear, exactly the order the
 * Xen backend uses (xen_clear_irq_pending, test, SCHEDOP_poll).  A wait
 * that sleeps longer than QSPL_LOST_MS (default 10000 ms) without a kick
 * is a lost wakeup and fails the case.  Each CPU has a "preempted" flag
 * that the tests set while a thread pretends its vCPU was descheduled.
 *
 * Spin loops call qspl_port_relax(), where a test can play an interrupt
 * that takes a lock of a higher level (so up to five locks wait on one
 * CPU at a time: four MCS nodes and the nesting overflow path), or a
 * preemption.  Locks are levelled, lock[d] is only taken at nesting depth
 * d, which is the rule that keeps interrupt-nested spinlocks deadlock-free
 * in the kernel too.
 *
 * Stress cases run QSPL_STRESS_MS (default 1000 ms) with more threads
 * than cores and check: mutual exclusion (an owner field and a plain,
 * non-atomic counter per lock: TSan reports any overlap, the owner check
 * and the final count catch it under ASan), no lost wakeup, no deadlock
 * (a watchdog fails the case when no thread makes progress for 30 s) and
 * a clean end state (lock words zero, hash table empty).  Thread
 * interleavings are up to the OS scheduler; everything the test decides
 * itself comes from SEED.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <xen-pv-suite/qspl_core.h>
#include "xt.h"

#ifndef QSPL_SAN
#define QSPL_SAN "san"
#endif

#define NLEVELS		5	/* lock levels: 4 MCS nodes + overflow */
#define MAX_THREADS	16
#define WATCHDOG_MS	30000	/* no progress this long: deadlock */

struct sim_cpu {
	u32 pend;		/* the "event channel" pending bit (futex) */
	u32 preempted;		/* simulated: vCPU descheduled */
	u32 done;		/* thread finished */
	u32 spinning;		/* nest-overflow case: reached its spin */
	u32 halted;		/* in the futex wait right now */
	u64 progress;		/* top-level acquisitions, atomic */
	/* below: only the thread itself touches these until it is done */
	unsigned int depth;	/* level of the lock being acquired */
	unsigned int wait_nest;
	unsigned int relax_calls;
	u64 rng;
	u64 acq[NLEVELS];
	u64 lost;
	u64 waits;
	unsigned int max_depth;
	pthread_t th;
	struct sim *sim;
	unsigned int id;
};

struct sim_level {
	struct qspl lock;
	int owner;		/* -1 or the holding CPU, atomic */
	unsigned long counter;	/* plain: the data the lock protects */
} __aligned(64);

struct sim {
	struct qspl_env env;
	struct qspl_cpu *cpus;
	struct qspl_hash_entry *hash;
	struct sim_cpu sc[MAX_THREADS];
	struct sim_level lv[NLEVELS];
	unsigned int nr;
	unsigned int levels;
	unsigned int nest_permille;	/* per relax call: take a nested lock */
	unsigned int preempt_permille;	/* per relax call / critical section */
	unsigned int trylock_pct;
	unsigned int sleep_permille;	/* per critical section: sleep */
	unsigned int cs_loops;
	unsigned int think_loops;
	u32 stop;
	u64 violations;			/* atomic */
	char why[256];			/* first violation, set once */
	u32 why_set;
	void (*hook)(struct sim *s, unsigned int cpu);	/* extra relax hook */
};

static unsigned int lost_ms = 10000;
static unsigned int stress_ms = 1000;

/* ---- per-thread random numbers: xorshift64* ---- */

static u64 sim_rand(struct sim_cpu *c)
{
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return c->rng * 0x2545F4914F6CDD1DULL;
}

static void sim_violation(struct sim *s, const char *what, unsigned int cpu,
			  unsigned int level)
{
	__atomic_fetch_add(&s->violations, 1, __ATOMIC_RELAXED);
	if (!__atomic_exchange_n(&s->why_set, 1, __ATOMIC_ACQ_REL))
		snprintf(s->why, sizeof(s->why), "%s (cpu %u, level %u)",
			 what, cpu, level);
}

static void sim_sleep_us(unsigned int us)
{
	struct timespec ts = { 0, (long)us * 1000L };

	nanosleep(&ts, NULL);
}

/* A compiler barrier: spin loops must re-read shared state. */
static void cpu_pause(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static void sim_preempt(struct sim_cpu *c)
{
	struct timespec ts = { 0, 20000 + (long)(sim_rand(c) % 80000) };

	__atomic_store_n(&c->preempted, 1, __ATOMIC_RELAXED);
	nanosleep(&ts, NULL);
	__atomic_store_n(&c->preempted, 0, __ATOMIC_RELAXED);
}

/* ---- the hypervisor: futex wait and kick ---- */

static long sim_futex(u32 *uaddr, int op, u32 val, const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

static void sim_critical(struct sim *s, unsigned int cpu, unsigned int level);

void qspl_port_relax(struct qspl_env *env, unsigned int cpu)
{
	struct sim *s = env->priv;
	struct sim_cpu *c;
	unsigned int r;

	cpu_pause();
	if (!s)
		return;
	c = &s->sc[cpu];
	if (s->hook)
		s->hook(s, cpu);
	/* Spinners share 2 cores with their peers: yield now and then. */
	if (!(++c->relax_calls & 255))
		sched_yield();
	r = (unsigned int)(sim_rand(c) % 1000000);
	if (r < s->preempt_permille * 1000U / 8) {
		sim_preempt(c);
	} else if (r < 500000U + s->nest_permille * 1000U / 8 &&
		   r >= 500000U && c->depth + 1 < s->levels) {
		/* An "interrupt" taking a lock one level up. */
		unsigned int saved = c->depth;

		sim_critical(s, cpu, saved + 1);
		c->depth = saved;
	}
}

/*
 * Halt while (*ptr & mask) == val.  Like the Xen backend, only the
 * outermost wait on a CPU clears its pending bit: an interrupt that
 * waits between our clear and our sleep must not eat our kick.
 */
static void sim_wait(struct qspl_env *env, unsigned int cpu, u32 *ptr,
		     u32 mask, u32 val)
{
	struct sim *s = env->priv;
	struct sim_cpu *c = &s->sc[cpu];
	struct timespec ts = { lost_ms / 1000, (lost_ms % 1000) * 1000000L };

	if (++c->wait_nest == 1)
		__atomic_store_n(&c->pend, 0, __ATOMIC_SEQ_CST);
	/* Interrupt points: between clearing and testing, and before halting. */
	qspl_port_relax(env, cpu);
	if ((__atomic_load_n(ptr, __ATOMIC_SEQ_CST) & mask) == val) {
		qspl_port_relax(env, cpu);
		c->waits++;
		__atomic_store_n(&c->halted, 1, __ATOMIC_SEQ_CST);
		if (sim_futex(&c->pend, FUTEX_WAIT_PRIVATE, 0, &ts) < 0 &&
		    errno == ETIMEDOUT) {
			c->lost++;
			sim_violation(s, "lost wakeup: halted without a kick",
				      cpu, c->depth);
		}
		__atomic_store_n(&c->halted, 0, __ATOMIC_SEQ_CST);
	}
	c->wait_nest--;
}

static void sim_kick(struct qspl_env *env, unsigned int cpu)
{
	struct sim *s = env->priv;
	struct sim_cpu *c = &s->sc[cpu];

	__atomic_store_n(&c->pend, 1, __ATOMIC_SEQ_CST);
	sim_futex(&c->pend, FUTEX_WAKE_PRIVATE, 1, NULL);
}

static bool sim_preempted(struct qspl_env *env, unsigned int cpu)
{
	struct sim *s = env->priv;

	return __atomic_load_n(&s->sc[cpu].preempted, __ATOMIC_RELAXED);
}

static const struct qspl_ops sim_ops = {
	.wait = sim_wait,
	.kick = sim_kick,
	.preempted = sim_preempted,
};

/* ---- the critical section ---- */

static void sim_body(struct sim *s, unsigned int cpu, unsigned int level)
{
	struct sim_level *lv = &s->lv[level];
	struct sim_cpu *c = &s->sc[cpu];
	unsigned long v;
	unsigned int i;

	if (__atomic_load_n(&lv->owner, __ATOMIC_RELAXED) != -1)
		sim_violation(s, "mutual exclusion: lock already owned", cpu,
			      level);
	__atomic_store_n(&lv->owner, (int)cpu, __ATOMIC_RELAXED);
	v = lv->counter;
	for (i = 0; i < s->cs_loops; i++)
		cpu_pause();
	if (s->preempt_permille &&
	    sim_rand(c) % 1000 < s->preempt_permille)
		sim_preempt(c);	/* the holder's vCPU loses its CPU */
	else if (level && !(sim_rand(c) & 15))
		sched_yield();	/* nested sections are long: contended */
	else if (s->sleep_permille && sim_rand(c) % 1000 < s->sleep_permille)
		sim_sleep_us(200);	/* long enough for waiters to halt */
	lv->counter = v + 1;
	if (__atomic_load_n(&lv->owner, __ATOMIC_RELAXED) != (int)cpu)
		sim_violation(s, "mutual exclusion: owner changed inside", cpu,
			      level);
	__atomic_store_n(&lv->owner, -1, __ATOMIC_RELAXED);
	c->acq[level]++;
	if (level > c->max_depth)
		c->max_depth = level;
}

static void sim_critical(struct sim *s, unsigned int cpu, unsigned int level)
{
	struct sim_cpu *c = &s->sc[cpu];

	c->depth = level;
	qspl_core_lock(&s->env, &s->lv[level].lock, cpu);
	sim_body(s, cpu, level);
	qspl_core_unlock(&s->env, &s->lv[level].lock, cpu);
}

static void *sim_thread(void *arg)
{
	struct sim_cpu *c = arg;
	struct sim *s = c->sim;
	unsigned int cpu = c->id, i;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		c->depth = 0;
		if (s->trylock_pct && sim_rand(c) % 100 < s->trylock_pct &&
		    qspl_core_trylock(&s->lv[0].lock)) {
			sim_body(s, cpu, 0);
			qspl_core_unlock(&s->env, &s->lv[0].lock, cpu);
		} else {
			sim_critical(s, cpu, 0);
		}
		__atomic_fetch_add(&c->progress, 1, __ATOMIC_RELAXED);
		for (i = (unsigned int)(sim_rand(c) % (s->think_loops + 1)); i;
		     i--)
			cpu_pause();
	}
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ---- setup, watchdog, end-state checks ---- */

static struct sim *sim_new(enum qspl_mode mode, unsigned int nr,
			   unsigned int spin_threshold)
{
	struct sim *s = calloc(1, sizeof(*s));
	unsigned int i, bits = qspl_hash_bits(nr);

	if (!s)
		abort();
	s->cpus = aligned_alloc(64, sizeof(*s->cpus) * nr);
	s->hash = calloc(1U << bits, sizeof(*s->hash));
	if (!s->cpus || !s->hash)
		abort();
	if (qspl_env_init(&s->env, mode, nr, s->cpus, s->hash, spin_threshold,
			  &sim_ops, s))
		abort();
	s->nr = nr;
	s->levels = 1;
	for (i = 0; i < NLEVELS; i++) {
		qspl_core_init(&s->lv[i].lock);
		s->lv[i].owner = -1;
	}
	for (i = 0; i < nr; i++) {
		s->sc[i].rng = (xt_seed + i) * 0x9E3779B97F4A7C15ULL | 1;
		s->sc[i].sim = s;
		s->sc[i].id = i;
	}
	return s;
}

static void sim_free(struct sim *s)
{
	free(s->cpus);
	free(s->hash);
	free(s);
}

static u64 sim_progress(struct sim *s)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < s->nr; i++)
		sum += __atomic_load_n(&s->sc[i].progress, __ATOMIC_RELAXED);
	return sum;
}

static void sim_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void sim_dump(struct sim *s)
{
	unsigned int i, j;

	for (i = 0; i < s->levels; i++)
		printf("#   lock[%u] = 0x%08x\n", i,
		       __atomic_load_n(&s->lv[i].lock.val, __ATOMIC_RELAXED));
	for (i = 0; i < s->nr; i++) {
		printf("#   cpu %u: progress %llu done %u pend %u nodes",
		       i, __atomic_load_n(&s->sc[i].progress, __ATOMIC_RELAXED),
		       __atomic_load_n(&s->sc[i].done, __ATOMIC_RELAXED),
		       __atomic_load_n(&s->sc[i].pend, __ATOMIC_RELAXED));
		for (j = 0; j < QSPL_MAX_NODES; j++) {
			struct qspl_node *n = &s->cpus[i].node[j];

			printf(" [locked %u state %u]",
			       __atomic_load_n(&n->locked, __ATOMIC_RELAXED),
			       __atomic_load_n(&n->state, __ATOMIC_RELAXED));
		}
		printf("\n");
	}
}

/*
 * Runs the threads for @ms; returns false (after printing FAIL) if the
 * watchdog fired, in which case the threads are stuck and the program
 * has to end.
 */
static bool sim_run(struct sim *s, unsigned int ms, const char *name)
{
	unsigned int i, waited = 0, still = 0;
	u64 last = 0, now;

	for (i = 0; i < s->nr; i++)
		if (pthread_create(&s->sc[i].th, NULL, sim_thread, &s->sc[i]))
			abort();
	for (;;) {
		sim_sleep_ms(50);
		waited += 50;
		if (waited == ms)
			__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
		now = sim_progress(s);
		still = now == last ? still + 50 : 0;
		last = now;
		if (waited >= ms) {
			for (i = 0; i < s->nr; i++)
				if (!__atomic_load_n(&s->sc[i].done,
						     __ATOMIC_ACQUIRE))
					break;
			if (i == s->nr)
				break;
		}
		if (still >= WATCHDOG_MS) {
			printf("# watchdog: no progress for %u s\n",
			       WATCHDOG_MS / 1000);
			sim_dump(s);
			if (getenv("QSPL_HANG")) {	/* to attach a debugger */
				printf("# QSPL_HANG: pid %d waits\n", getpid());
				for (;;)
					pause();
			}
			/* Stuck for good, or only starved for that long? */
			__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
			sim_sleep_ms(WATCHDOG_MS);
			for (i = 0; i < s->nr; i++)
				if (!__atomic_load_n(&s->sc[i].done,
						     __ATOMIC_ACQUIRE))
					break;
			printf("FAIL: unit/qspl-%s-%s %s: no thread made progress for %u s\n",
			       name, QSPL_SAN,
			       i == s->nr ? "starvation (all finished later)" :
					    "deadlock",
			       WATCHDOG_MS / 1000);
			return false;
		}
	}
	for (i = 0; i < s->nr; i++)
		pthread_join(s->sc[i].th, NULL);
	return true;
}

static void sim_sum_stats(struct sim *s, struct qspl_stats *t)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < s->nr; i++) {
		struct qspl_stats *st = &s->cpus[i].stats;

		t->slowpath += st->slowpath;
		t->pending += st->pending;
		t->steals += st->steals;
		t->queued += st->queued;
		t->nest_overflow += st->nest_overflow;
		t->halts_node += st->halts_node;
		t->halts_head += st->halts_head;
		t->wait_early += st->wait_early;
		t->spurious += st->spurious;
		t->kicks += st->kicks;
		t->hashed_for_next += st->hashed_for_next;
		if (st->hash_hops_max > t->hash_hops_max)
			t->hash_hops_max = st->hash_hops_max;
	}
}

/* The checks every stress case ends with. */
static void sim_check_end(struct sim *s)
{
	u64 acq[NLEVELS] = { 0 }, total = 0, lost = 0;
	unsigned int i, l, depth = 0;
	struct qspl_stats t;

	for (i = 0; i < s->nr; i++) {
		for (l = 0; l < NLEVELS; l++)
			acq[l] += s->sc[i].acq[l];
		lost += s->sc[i].lost;
		if (s->sc[i].max_depth > depth)
			depth = s->sc[i].max_depth;
		XT_EXPECT(s->cpus[i].node[0].count == 0,
			  "cpu %u: %u nesting levels still in use", i,
			  s->cpus[i].node[0].count);
	}
	for (l = 0; l < NLEVELS; l++)
		total += acq[l];
	sim_sum_stats(s, &t);
	printf("# %s: %u threads, %llu acquisitions (nested %llu, deepest level %u),",
	       qspl_mode_name(s->env.mode), s->nr, total, total - acq[0],
	       depth);
	printf(" slowpath %llu, pending %llu, steals %llu, queued %llu,",
	       t.slowpath, t.pending, t.steals, t.queued);
	printf(" nest overflow %llu, halts %llu+%llu (early %llu),",
	       t.nest_overflow, t.halts_node, t.halts_head, t.wait_early);
	printf(" spurious %llu, kicks %llu, hashed for next %llu, hash hops max %llu\n",
	       t.spurious, t.kicks, t.hashed_for_next, t.hash_hops_max);
	XT_CHECK(!s->violations, "%llu violation(s), first: %s",
		 s->violations, s->why);
	XT_CHECK(!lost, "%llu lost wakeup(s)", lost);
	for (l = 0; l < NLEVELS; l++) {
		XT_CHECK(s->lv[l].counter == acq[l],
			 "level %u: counter %lu != %llu acquisitions (lost updates)",
			 l, s->lv[l].counter, acq[l]);
		XT_CHECK(s->lv[l].lock.val == 0,
			 "level %u: lock word 0x%08x after the run", l,
			 s->lv[l].lock.val);
	}
	for (i = 0; i < (1U << s->env.hash_bits); i++)
		XT_CHECK(!s->hash[i].lock, "hash entry %u still set", i);
	XT_CHECK(acq[0] > 0, "no acquisitions at all");
	if (s->env.mode != QSPL_NATIVE) {
		XT_CHECK(t.halts_node + t.halts_head > 0 && t.kicks > 0,
			 "PV mode but nobody halted (%llu+%llu) or kicked (%llu)",
			 t.halts_node, t.halts_head, t.kicks);
		XT_CHECK(t.kicks <= t.halts_head + t.hashed_for_next,
			 "%llu kicks but only %llu head halts + %llu hashed for next",
			 t.kicks, t.halts_head, t.hashed_for_next);
	} else {
		XT_CHECK(t.halts_node + t.halts_head == 0 && t.kicks == 0,
			 "native mode halted or kicked");
		XT_CHECK(t.queued > 0, "native: nobody queued");
	}
	if (s->env.mode == QSPL_PV_UNFAIR)
		XT_CHECK(t.steals > 0, "pv-unfair: no lock was stolen");
	if (s->levels > 1)
		XT_CHECK(depth >= (s->levels > 3 ? 3U : s->levels - 1),
			 "nesting never went deeper than level %u", depth);
}

/* ---- the cases ---- */

static enum qspl_mode cur_mode;
static bool watchdog_fired;

static void stress(const char *name, unsigned int threads,
		   unsigned int spin, unsigned int levels,
		   unsigned int nest, unsigned int preempt,
		   unsigned int trylock, unsigned int cs, unsigned int think,
		   unsigned int sleep)
{
	struct sim *s = sim_new(cur_mode, threads, spin);
	char full[64];

	s->levels = levels;
	s->nest_permille = nest;
	s->preempt_permille = preempt;
	s->trylock_pct = trylock;
	s->sleep_permille = sleep;
	s->cs_loops = cs;
	s->think_loops = think;
	snprintf(full, sizeof(full), "%s-%s", qspl_mode_name(cur_mode), name);
	if (!sim_run(s, stress_ms, full)) {
		watchdog_fired = true;
		return;	/* threads are stuck: leak s, the program ends */
	}
	sim_check_end(s);
	sim_free(s);
}

/* 6 threads on (typically) 2 cores, one lock, short critical sections. */
static void case_mutex(void)
{
	stress("mutex", 6, 512, 1, 0, 0, 10, 20, 50, 10);
}

/* Interrupt-style nesting: up to 5 locks waited for on one CPU. */
static void case_nest(void)
{
	stress("nest", 6, 128, NLEVELS, 400, 0, 0, 10, 20, 0);
}

/* 8 threads, vCPUs preempted while spinning and while holding. */
static void case_preempt(void)
{
	stress("preempt", 8, 2048, 2, 5, 3, 5, 30, 30, 0);
}

/*
 * Deterministic: CPU 1 already has all four nodes in use and must take
 * the overflow path (spin on trylock) while CPU 0 holds the lock.
 */
static void overflow_hook(struct sim *s, unsigned int cpu)
{
	if (cpu == 1)
		__atomic_store_n(&s->sc[1].spinning, 1, __ATOMIC_RELEASE);
}

static void *overflow_thread(void *arg)
{
	struct sim *s = arg;

	s->cpus[1].node[0].count = QSPL_MAX_NODES;
	qspl_core_lock(&s->env, &s->lv[0].lock, 1);
	sim_body(s, 1, 0);
	qspl_core_unlock(&s->env, &s->lv[0].lock, 1);
	s->cpus[1].node[0].count = 0;
	return NULL;
}

static void nest_overflow(struct sim *s)
{
	pthread_t th;

	s->hook = overflow_hook;
	qspl_core_lock(&s->env, &s->lv[0].lock, 0);
	/* As if another CPU were pending: CPU 1 cannot use the pending bit. */
	__atomic_fetch_or(&s->lv[0].lock.val, QSPL_PENDING, __ATOMIC_SEQ_CST);
	if (pthread_create(&th, NULL, overflow_thread, s))
		abort();
	while (!__atomic_load_n(&s->sc[1].spinning, __ATOMIC_ACQUIRE))
		sched_yield();
	sim_body(s, 0, 0);
	__atomic_fetch_and(&s->lv[0].lock.val, ~QSPL_PENDING, __ATOMIC_SEQ_CST);
	qspl_core_unlock(&s->env, &s->lv[0].lock, 0);
	pthread_join(th, NULL);
	XT_CHECK(s->cpus[1].stats.nest_overflow == 1,
		 "overflow path taken %llu times",
		 s->cpus[1].stats.nest_overflow);
	XT_CHECK(s->lv[0].counter == 2 && !s->violations,
		 "counter %lu, %llu violations", s->lv[0].counter,
		 s->violations);
	XT_CHECK(s->lv[0].lock.val == 0, "lock word 0x%08x",
		 s->lv[0].lock.val);
}

static void case_nest_overflow(void)
{
	struct sim *s = sim_new(cur_mode, 2, 64);

	nest_overflow(s);
	sim_free(s);
}

/*
 * Deterministic hand-over: CPU 0 holds the lock while CPU 1 becomes the
 * queue head and CPU 2 queues behind it.  In pv mode both halt before
 * CPU 0 unlocks: the unlock must kick CPU 1 (hashed head), and CPU 1,
 * passing the queue on to a halted CPU 2, hashes the lock for it and
 * kicks it at its own unlock.  In native mode they spin; in pv-unfair
 * CPU 2 spins trying to steal while CPU 1 halts.
 */
static void *handover_thread(void *arg)
{
	struct sim_cpu *c = arg;

	sim_critical(c->sim, c->id, 0);
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool handover_ready(struct sim *s)
{
	u32 val = __atomic_load_n(&s->lv[0].lock.val, __ATOMIC_SEQ_CST);
	bool h1 = __atomic_load_n(&s->sc[1].halted, __ATOMIC_SEQ_CST);
	bool h2 = __atomic_load_n(&s->sc[2].halted, __ATOMIC_SEQ_CST);

	switch (s->env.mode) {
	case QSPL_PV:		/* head halted, CPU 2 queued and halted */
		return h1 && h2 && (val & QSPL_LOCKED_MASK) == QSPL_SLOW;
	case QSPL_PV_UNFAIR:	/* head halted; CPU 2 spins to steal */
		return h1 && (val & QSPL_LOCKED_MASK) == QSPL_SLOW &&
		       __atomic_load_n(&s->sc[2].spinning, __ATOMIC_SEQ_CST);
	default:		/* CPU 1 pending or queued, CPU 2 queued */
		return (val >> QSPL_TAIL_CPU_SHIFT) == 3;
	}
}

static void handover_hook(struct sim *s, unsigned int cpu)
{
	if (cpu == 2)
		__atomic_store_n(&s->sc[2].spinning, 1, __ATOMIC_SEQ_CST);
}

static void handover(struct sim *s)
{
	struct qspl_stats t;
	unsigned int i, ms = 0;

	s->hook = handover_hook;
	qspl_core_lock(&s->env, &s->lv[0].lock, 0);
	if (pthread_create(&s->sc[1].th, NULL, handover_thread, &s->sc[1]))
		abort();
	/* CPU 1 first: wait until it is pending, queued or halted. */
	while (!(__atomic_load_n(&s->lv[0].lock.val, __ATOMIC_SEQ_CST) &
		 ~QSPL_LOCKED_MASK) && ms < 10000) {
		sim_sleep_ms(1);
		ms++;
	}
	if (pthread_create(&s->sc[2].th, NULL, handover_thread, &s->sc[2]))
		abort();
	while (!handover_ready(s) && ms < 10000) {
		sim_sleep_ms(1);
		ms++;
	}
	XT_EXPECT(ms < 10000, "CPUs 1 and 2 never got into place: lock 0x%08x, halted %u %u",
		  s->lv[0].lock.val, s->sc[1].halted, s->sc[2].halted);
	sim_body(s, 0, 0);
	qspl_core_unlock(&s->env, &s->lv[0].lock, 0);
	for (i = 1; i <= 2; i++)
		pthread_join(s->sc[i].th, NULL);
	XT_BAIL();
	sim_sum_stats(s, &t);
	XT_CHECK(s->lv[0].counter == 3 && !s->violations,
		 "counter %lu, %llu violations: %s", s->lv[0].counter,
		 s->violations, s->why);
	XT_CHECK(s->lv[0].lock.val == 0, "lock word 0x%08x after",
		 s->lv[0].lock.val);
	XT_CHECK(!s->hash[qspl_hash_ptr(&s->lv[0].lock, s->env.hash_bits)].lock,
		 "hash entry left behind");
	if (s->env.mode == QSPL_NATIVE) {
		XT_CHECK(t.kicks == 0 && t.halts_head + t.halts_node == 0,
			 "native kicked or halted");
		return;
	}
	XT_CHECK(s->cpus[0].stats.kicks == 1, "unlock of CPU 0 kicked %llu",
		 s->cpus[0].stats.kicks);
	XT_CHECK(s->cpus[1].stats.halts_head >= 1, "CPU 1 never halted as head");
	if (s->env.mode == QSPL_PV) {
		XT_CHECK(s->cpus[2].stats.halts_node >= 1,
			 "CPU 2 never halted in the queue");
		XT_CHECK(s->cpus[1].stats.hashed_for_next == 1 &&
			 s->cpus[1].stats.kicks == 1,
			 "CPU 1 hashed for next %llu times, kicked %llu",
			 s->cpus[1].stats.hashed_for_next,
			 s->cpus[1].stats.kicks);
	}
}

static void case_handover(void)
{
	struct sim *s = sim_new(cur_mode, 3, 64);

	handover(s);
	sim_free(s);
}

/* Single-threaded: lock word transitions, trylock, the mode names. */
static void word(struct sim *s)
{
	struct qspl *l = &s->lv[0].lock;
	enum qspl_mode m;

	XT_CHECK(!qspl_core_is_locked(l), "fresh lock is locked");
	XT_CHECK(qspl_core_trylock(l), "trylock of a free lock failed");
	XT_CHECK(l->val == QSPL_LOCKED, "held: 0x%08x", l->val);
	XT_CHECK(!qspl_core_trylock(l), "trylock of a held lock succeeded");
	qspl_core_unlock(&s->env, l, 0);
	XT_CHECK(l->val == 0, "after unlock: 0x%08x", l->val);
	qspl_core_lock(&s->env, l, 0);
	XT_CHECK(l->val == QSPL_LOCKED, "lock: 0x%08x", l->val);
	/* Unlock keeps bits other than the locked byte. */
	l->val |= QSPL_PENDING;
	qspl_core_unlock(&s->env, l, 0);
	XT_CHECK(l->val == QSPL_PENDING, "unlock with pending: 0x%08x",
		 l->val);
	XT_CHECK(!qspl_core_trylock(l), "trylock with pending succeeded");
	l->val = 0;
	XT_CHECK(qspl_env_init(&s->env, QSPL_PV, 1, s->cpus, NULL, 0, &sim_ops,
			       s) == -EINVAL, "PV env without a hash table");
	XT_CHECK(qspl_env_init(&s->env, QSPL_NATIVE, 0, s->cpus, NULL, 0, NULL,
			       s) == -EINVAL, "env with no CPUs");
	XT_CHECK(!qspl_mode_parse("pv-unfair\n", &m) && m == QSPL_PV_UNFAIR,
		 "parse pv-unfair");
	XT_CHECK(!qspl_mode_parse("native", &m) && m == QSPL_NATIVE,
		 "parse native");
	XT_CHECK(qspl_mode_parse("pv-", &m) == -EINVAL, "parse pv-");
	XT_CHECK(qspl_mode_parse("pvx", &m) == -EINVAL, "parse pvx");
	XT_CHECK(!strcmp(qspl_mode_name(QSPL_PV), "pv"), "name of pv");
	XT_CHECK(qspl_hash_bits(1) == 6 && qspl_hash_bits(8) == 6 &&
		 qspl_hash_bits(9) == 7 && qspl_hash_bits(16383) == 17,
		 "hash sizes");
}

static void case_word(void)
{
	struct sim *s = sim_new(cur_mode, 1, 0);

	word(s);
	sim_free(s);
}

/*
 * Single-threaded: fill the whole hash table of a one-CPU environment
 * with QSPL_SLOW locks (heavy probing), then unlock them in another order
 * and check that each unlock found its own entry and kicked its CPU.
 */
static unsigned int kicked[64];
static unsigned int kicks_seen;

static void record_kick(struct qspl_env *env, unsigned int cpu)
{
	if (kicks_seen < ARRAY_SIZE(kicked))
		kicked[kicks_seen] = cpu;
	kicks_seen++;
}

static void no_wait(struct qspl_env *env, unsigned int cpu, u32 *ptr,
		    u32 mask, u32 val)
{
}

static const struct qspl_ops record_ops = {
	.wait = no_wait,
	.kick = record_kick,
};

static void hash_fill(unsigned int n, struct qspl_cpu *cpus,
		      struct qspl_hash_entry *hash, struct qspl *locks)
{
	struct qspl_env env;
	unsigned int i, j;

	XT_EXPECT(!qspl_env_init(&env, QSPL_PV, 4, cpus, hash, 0, &record_ops,
				 NULL), "env init");
	XT_BAIL();
	/* What qspl_hash() leaves behind, for n locks of CPU (i % 4). */
	for (i = 0; i < n; i++) {
		unsigned int h = qspl_hash_ptr(&locks[i], env.hash_bits);

		for (j = 0; j < n; j++) {
			struct qspl_hash_entry *he = &hash[(h + j) & (n - 1)];

			if (!he->lock) {
				he->lock = &locks[i];
				he->node = &cpus[i % 4].node[i % QSPL_MAX_NODES];
				break;
			}
		}
		locks[i].val = QSPL_SLOW | QSPL_TAIL_MASK;
	}
	for (i = 0; i < n; i++) {
		unsigned int k = (i * 37 + 11) % n;	/* n is a power of 2 */

		kicks_seen = 0;
		qspl_core_unlock(&env, &locks[k], 0);
		XT_CHECK(kicks_seen == 1 && kicked[0] == k % 4,
			 "unlock of lock %u: %u kicks, cpu %u", k, kicks_seen,
			 kicked[0]);
		XT_CHECK(locks[k].val == QSPL_TAIL_MASK,
			 "unlock of lock %u left 0x%08x", k, locks[k].val);
	}
	for (i = 0; i < n; i++)
		XT_CHECK(!hash[i].lock, "entry %u left behind", i);
}

static void case_hash(void)
{
	unsigned int n = 1U << qspl_hash_bits(4);
	struct qspl_cpu *cpus = aligned_alloc(64, sizeof(*cpus) * 4);
	struct qspl_hash_entry *hash = calloc(n, sizeof(*hash));
	struct qspl *locks = calloc(n, sizeof(*locks));

	if (!cpus || !hash || !locks)
		abort();
	hash_fill(n, cpus, hash, locks);
	free(cpus);
	free(hash);
	free(locks);
}

/* ---- the runner: one PASS/FAIL line per case, as in xt.h ---- */

struct qspl_case {
	const char *name;
	void (*fn)(void);
};

static const struct qspl_case cases[] = {
	{ "word", case_word },
	{ "hash", case_hash },
	{ "nest-overflow", case_nest_overflow },
	{ "handover", case_handover },
	{ "mutex", case_mutex },
	{ "nest", case_nest },
	{ "preempt", case_preempt },
};

static const enum qspl_mode modes[] = { QSPL_NATIVE, QSPL_PV, QSPL_PV_UNFAIR };

int main(void)
{
	const char *env = getenv("SEED");
	unsigned int m, i, n = 0, failed = 0;
	u64 seed;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("QSPL_STRESS_MS"))
		stress_ms = (unsigned int)strtoul(getenv("QSPL_STRESS_MS"),
						  NULL, 0) / 50 * 50;
	if (stress_ms < 50)
		stress_ms = 50;
	if (getenv("QSPL_LOST_MS"))
		lost_ms = (unsigned int)strtoul(getenv("QSPL_LOST_MS"), NULL, 0);
	seed = env ? strtoull(env, NULL, 0) : (u64)time(NULL);
	printf("# qspinlock-pv lock algorithm (%s), %u ms per stress case,",
	       QSPL_SAN, stress_ms);
	printf(" lost wakeup after %u ms, seed %llu (rerun: SEED=%llu)\n",
	       lost_ms, seed, seed);
	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		for (i = 0; i < ARRAY_SIZE(cases); i++, n++) {
			/* The mode-independent cases run once. */
			if (m && cases[i].fn == case_hash)
				continue;
			cur_mode = modes[m];
			xt_seed = (seed + n) * 0x9E3779B97F4A7C15ULL | 1;
			xt_failed = 0;
			cases[i].fn();
			if (watchdog_fired)
				return 1;	/* stuck threads: stop here */
			if (xt_failed) {
				failed++;
				printf("FAIL: unit/qspl-%s-%s-%s %s\n",
				       qspl_mode_name(cur_mode), cases[i].name,
				       QSPL_SAN, xt_reason());
			} else {
				printf("PASS: unit/qspl-%s-%s-%s\n",
				       qspl_mode_name(cur_mode), cases[i].name,
				       QSPL_SAN);
			}
		}
	}
	return failed ? 1 : 0;
}
