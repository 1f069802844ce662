/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * The queued spinlock of qspinlock-pv as pure logic: it builds in the
 * kernel module and, unchanged, in the userspace stress tests.
 *
 * The lock is one 32-bit word:
 *
 *   bits  0- 7  locked byte: 0 free, QSPL_LOCKED (1) held, QSPL_SLOW (3)
 *               held and the queue head is halted and hashed, so the
 *               unlocker must look it up and kick it
 *   bit   8     pending: in native mode the one waiter that spins on the
 *               lock word instead of queueing; in pv-unfair mode set by
 *               the queue head while it spins, to stop lock stealing
 *   bits 16-17  tail nesting level (index of the per-CPU MCS node, 0-3)
 *   bits 18-31  tail CPU + 1 (0: no queue)
 *
 * Waiters queue on per-CPU MCS nodes, four per CPU so that a lock taken
 * in an interrupt while the CPU waits for another lock gets its own node;
 * a fifth nesting level falls back to spinning on trylock.  Only 32-bit
 * atomic operations on the whole word are used (no byte or halfword
 * stores into it): that is portable and lets TSan see every access.
 *
 * Paravirtual waiting (modes QSPL_PV and QSPL_PV_UNFAIR) goes through
 * struct qspl_ops:
 *
 *   wait(cpu, ptr, mask, val)  halt this CPU while (*ptr & mask) == val;
 *                              may return early (spuriously) at any time.
 *                              Must clear this CPU's kick before testing
 *                              *ptr, so that a kick sent after any change
 *                              of *ptr is never lost.
 *   kick(cpu)                  wake @cpu from wait (or make its next wait
 *                              return at once)
 *   preempted(cpu)             is that vCPU preempted by the hypervisor?
 *
 * A queued waiter spins spin_threshold times on its node (less if the
 * vCPU ahead of it is halted or preempted), then marks itself halted and
 * waits.  The queue head spins on the lock word, then puts (lock, node)
 * into a hash table, sets the locked byte to QSPL_SLOW and waits.  The
 * unlocker of a QSPL_SLOW lock removes the entry, releases the lock and
 * kicks the CPU it found.  When the lock owner passes the MCS queue on to
 * a waiter that is halted, it does not kick it (that would lengthen its
 * own critical section) but hashes the lock for it and sets QSPL_SLOW,
 * so that its own unlock does the kick.  See qspl_core.c for the
 * orderings and tests/spin/qspl_pv.pml for the model of this protocol.
 */
#ifndef XEN_PV_SUITE_QSPL_CORE_H
#define XEN_PV_SUITE_QSPL_CORE_H

#include <xen-pv-suite/qspl_port.h>

#define QSPL_LOCKED_MASK	0x000000ffU
#define QSPL_LOCKED		0x01U
#define QSPL_SLOW_BIT		0x02U
#define QSPL_SLOW		(QSPL_LOCKED | QSPL_SLOW_BIT)
#define QSPL_PENDING		0x00000100U
#define QSPL_LOCKED_PENDING	(QSPL_LOCKED_MASK | QSPL_PENDING)
#define QSPL_TAIL_IDX_SHIFT	16
#define QSPL_TAIL_IDX_MASK	0x00030000U
#define QSPL_TAIL_CPU_SHIFT	18
#define QSPL_TAIL_MASK		0xffff0000U
#define QSPL_MAX_NODES		4
#define QSPL_MAX_CPUS		((1U << (32 - QSPL_TAIL_CPU_SHIFT)) - 1)

/* Default spins before halting: 2^15, like the kernel's PV lock. */
#define QSPL_SPIN_THRESHOLD	32768U
/* A queued waiter looks at the vCPU ahead of it every 256 spins. */
#define QSPL_PREV_CHECK_MASK	0xffU

struct qspl {
	u32 val;
};

#define QSPL_UNLOCKED	{ 0 }

enum qspl_mode {
	QSPL_NATIVE = 0,	/* queued lock, waiters only spin */
	QSPL_PV,		/* fair: FIFO, waiters halt */
	QSPL_PV_UNFAIR,		/* newcomers may steal while the queue waits */
};

/* The vCPU state of a queue node, as its successor and owner see it. */
enum qspl_vcpu_state {
	QSPL_RUNNING = 0,
	QSPL_HALTED,		/* halted (or about to) in qspl_pv_wait_node */
	QSPL_HASHED,		/* the lock owner hashed the lock for us */
};

struct qspl_node {
	struct qspl_node *next;
	u32 locked;		/* 1: we are the queue head now */
	u32 state;		/* enum qspl_vcpu_state */
	u32 cpu;		/* constant: the CPU the node belongs to */
	u32 count;		/* node[0] only: nesting levels in use */
	u32 unhashed;		/* set by the unlocker that removed our entry */
};

/* Per-CPU counters, written only by their own CPU. */
struct qspl_stats {
	u64 slowpath;		/* lock calls that did not take the fast path */
	u64 pending;		/* native: got it through the pending bit */
	u64 steals;		/* pv-unfair: got it ahead of the queue */
	u64 queued;		/* waited in the MCS queue */
	u64 nest_overflow;	/* a fifth nesting level: spun on trylock */
	u64 halts_node;		/* waits of a queued waiter */
	u64 halts_head;		/* waits of the queue head */
	u64 wait_early;		/* halted early: vCPU ahead halted/preempted */
	u64 spurious;		/* woke up without the awaited change */
	u64 kicks;		/* kicks sent by unlock */
	u64 hashed_for_next;	/* owner hashed the lock for a halted next */
	u64 hash_hops_max;	/* longest probe sequence in the hash table */
};

/* One cache line (or a few) per CPU: no false sharing between CPUs. */
struct qspl_cpu {
	struct qspl_node node[QSPL_MAX_NODES];
	struct qspl_stats stats;
} __aligned(QSPL_CACHE_BYTES);

struct qspl_hash_entry {
	struct qspl *lock;
	struct qspl_node *node;
};

struct qspl_env;

struct qspl_ops {
	void (*wait)(struct qspl_env *env, unsigned int cpu, u32 *ptr,
		     u32 mask, u32 val);
	void (*kick)(struct qspl_env *env, unsigned int cpu);
	bool (*preempted)(struct qspl_env *env, unsigned int cpu); /* or NULL */
};

/*
 * Everything the lock code shares between CPUs besides the locks
 * themselves.  Filled by qspl_env_init() and read-only afterwards.
 */
struct qspl_env {
	enum qspl_mode mode;
	unsigned int nr_cpus;
	unsigned int spin_threshold;
	const struct qspl_ops *ops;
	void *priv;
	struct qspl_cpu *cpus;			/* nr_cpus entries */
	struct qspl_hash_entry *hash;		/* 1 << hash_bits entries */
	unsigned int hash_bits;
};

/*
 * Hash table size for @nr_cpus: at most one entry per lock whose head is
 * halted, and at most QSPL_MAX_NODES such heads per CPU; twice that,
 * rounded up to a power of two, keeps probe sequences short.
 */
unsigned int qspl_hash_bits(unsigned int nr_cpus);

/*
 * @cpus: nr_cpus entries, @hash: 1 << qspl_hash_bits(nr_cpus) entries
 * (or NULL in native mode), both allocated by the caller; zeroed here.
 * @spin_threshold 0 means QSPL_SPIN_THRESHOLD.  Returns 0 or -EINVAL.
 */
int qspl_env_init(struct qspl_env *env, enum qspl_mode mode,
		  unsigned int nr_cpus, struct qspl_cpu *cpus,
		  struct qspl_hash_entry *hash, unsigned int spin_threshold,
		  const struct qspl_ops *ops, void *priv);

const char *qspl_mode_name(enum qspl_mode mode);
int qspl_mode_parse(const char *s, enum qspl_mode *mode);

static inline void qspl_core_init(struct qspl *lock)
{
	QSPL_WRITE(lock->val, 0);
}

static inline bool qspl_core_is_locked(struct qspl *lock)
{
	return QSPL_READ(lock->val) & QSPL_LOCKED_MASK;
}

/* Succeeds only on a free lock with nobody queued or pending. */
static inline bool qspl_core_trylock(struct qspl *lock)
{
	if (QSPL_READ(lock->val))
		return false;
	return QSPL_CMPXCHG_ACQ(&lock->val, 0U, QSPL_LOCKED) == 0;
}

void qspl_core_lock_slowpath(struct qspl_env *env, struct qspl *lock,
			     unsigned int cpu, u32 val);
void qspl_core_unlock_slowpath(struct qspl_env *env, struct qspl *lock,
			       unsigned int cpu);

/*
 * @cpu is the calling CPU; the caller keeps it from changing (kernel:
 * preemption disabled) from before lock until after unlock returns.
 */
static inline void qspl_core_lock(struct qspl_env *env, struct qspl *lock,
				  unsigned int cpu)
{
	u32 val = QSPL_CMPXCHG_ACQ(&lock->val, 0U, QSPL_LOCKED);

	if (val)
		qspl_core_lock_slowpath(env, lock, cpu, val);
}

static inline void qspl_core_unlock(struct qspl_env *env, struct qspl *lock,
				    unsigned int cpu)
{
	u32 val = QSPL_READ(lock->val);

	/* Clear the locked byte unless it says a halted head waits. */
	for (;;) {
		u32 old;

		if ((val & QSPL_LOCKED_MASK) == QSPL_SLOW)
			break;
		old = QSPL_CMPXCHG_REL(&lock->val, val,
				       val & ~QSPL_LOCKED_MASK);
		if (old == val)
			return;
		val = old;
	}
	qspl_core_unlock_slowpath(env, lock, cpu);
}

#endif /* XEN_PV_SUITE_QSPL_CORE_H */
