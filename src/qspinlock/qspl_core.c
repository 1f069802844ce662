// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * The queued spinlock slow paths: pending bit, MCS queue, and the
 * paravirtual halt/kick protocol.  Pure logic, see qspl_core.h; built in
 * the module and in tests/unit.
 *
 * Orderings the PV protocol relies on (each pair is a store-buffer
 * handshake; QSPL_STORE_MB/QSPL_READ_MB or a fully ordered RMW on each
 * side, so at least one side sees the other):
 *
 *  (1) queued waiter                  owner passing the queue on
 *      node->state = HALTED (MB)      xchg(node->locked, 1)
 *      read node->locked              cmpxchg(node->state, HALTED, HASHED)
 *      => either the waiter sees locked and does not wait, or the owner
 *         sees HALTED and arranges the kick (hash + QSPL_SLOW).
 *
 *  (2) queue head                     unlocker
 *      hash(lock, node)               read locked byte == QSPL_SLOW (acq)
 *      RMW locked byte |= QSPL_SLOW   unhash(lock) -> node
 *      wait(locked byte == QSPL_SLOW) RMW clear locked byte, kick(cpu)
 *      => the unlocker only sees QSPL_SLOW after the entry is in the
 *         table; it clears QSPL_SLOW before the kick, and wait() clears
 *         the CPU's kick before it tests the byte, so the head either
 *         sees the byte cleared or gets the kick.
 *
 *  (3) unlocker                       queue head
 *      unhash(lock) -> node           (woken, or never halted)
 *      node->unhashed = 1 (release)   read node->unhashed == 1 (acquire)
 *      release: clear locked byte     read locked byte != QSPL_SLOW
 *                                     => hash again before halting again
 *      => the head never hashes while an entry of its may exist (the
 *         owner's, which may not be in the table yet, included), nor
 *         before the release that would wipe its new QSPL_SLOW.
 *
 * Invariant: the locked byte is QSPL_SLOW exactly while one hash entry
 * for the lock exists.  Only the queue head (or the owner on its behalf)
 * sets QSPL_SLOW, after inserting the entry; only the unlocker clears
 * it, after removing the entry (or the head itself, when it set it on a
 * lock that had just become free).
 */
#include <xen-pv-suite/qspl_core.h>

/* ---- lock word helpers: 32-bit RMW loops on the whole word ---- */

static u32 qspl_fetch_or(struct qspl *lock, u32 bits)
{
	u32 val = QSPL_READ(lock->val);

	for (;;) {
		u32 old = QSPL_CMPXCHG(&lock->val, val, val | bits);

		if (old == val)
			return old;
		val = old;
	}
}

static u32 qspl_fetch_andnot(struct qspl *lock, u32 bits)
{
	u32 val = QSPL_READ(lock->val);

	for (;;) {
		u32 old = QSPL_CMPXCHG(&lock->val, val, val & ~bits);

		if (old == val)
			return old;
		val = old;
	}
}

/* Publish @tail, keep locked and pending; returns the old word. */
static u32 qspl_xchg_tail(struct qspl *lock, u32 tail)
{
	u32 val = QSPL_READ(lock->val);

	for (;;) {
		u32 new = (val & QSPL_LOCKED_PENDING) | tail;
		u32 old = QSPL_CMPXCHG(&lock->val, val, new);

		if (old == val)
			return old;
		val = old;
	}
}

static u32 qspl_encode_tail(unsigned int cpu, unsigned int idx)
{
	return ((cpu + 1) << QSPL_TAIL_CPU_SHIFT) |
	       (idx << QSPL_TAIL_IDX_SHIFT);
}

static struct qspl_node *qspl_decode_tail(struct qspl_env *env, u32 tail)
{
	unsigned int cpu = (tail >> QSPL_TAIL_CPU_SHIFT) - 1;
	unsigned int idx = (tail & QSPL_TAIL_IDX_MASK) >> QSPL_TAIL_IDX_SHIFT;

	return &env->cpus[cpu].node[idx];
}

/* ---- the hash table of halted queue heads ---- */

static struct qspl_hash_entry *qspl_hash(struct qspl_env *env,
					 struct qspl *lock,
					 struct qspl_node *node,
					 unsigned int cpu)
{
	unsigned int size = 1U << env->hash_bits;
	unsigned int h = qspl_hash_ptr(lock, env->hash_bits);
	unsigned int i;

	for (i = 0; i < size; i++) {
		struct qspl_hash_entry *he = &env->hash[(h + i) & (size - 1)];

		if (QSPL_READ(he->lock))
			continue;
		if (QSPL_CMPXCHG(&he->lock, (struct qspl *)NULL, lock))
			continue;
		/* Ordered before QSPL_SLOW by the RMW that sets it. */
		QSPL_WRITE(he->node, node);
		qspl_stat_max(&env->cpus[cpu].stats.hash_hops_max, (u64)i + 1);
		return he;
	}
	/*
	 * Cannot happen: every lock has at most one entry, only while its
	 * head is halted, and the table has room for twice as many heads
	 * as the CPUs can have nesting levels.  The callers then do not
	 * halt (or kick at once).
	 */
	QSPL_WARN_ONCE(true);
	return NULL;
}

static struct qspl_node *qspl_unhash(struct qspl_env *env, struct qspl *lock)
{
	unsigned int size = 1U << env->hash_bits;
	unsigned int h = qspl_hash_ptr(lock, env->hash_bits);
	unsigned int i;

	for (i = 0; i < size; i++) {
		struct qspl_hash_entry *he = &env->hash[(h + i) & (size - 1)];

		if (QSPL_READ(he->lock) == lock) {
			struct qspl_node *node = QSPL_READ(he->node);

			QSPL_STORE_REL(he->lock, (struct qspl *)NULL);
			return node;
		}
	}
	/* QSPL_SLOW without an entry: the invariant is broken. */
	QSPL_WARN_ONCE(true);
	return NULL;
}

/* ---- native mode: the pending bit ---- */

/*
 * One waiter may spin on the lock word itself, with the pending bit set,
 * instead of queueing.  Returns true once it holds the lock.
 */
static bool qspl_native_pending(struct qspl_env *env, struct qspl *lock,
				unsigned int cpu, u32 val)
{
	if (val & ~QSPL_LOCKED_MASK)
		return false;		/* pending or queued already */
	val = qspl_fetch_or(lock, QSPL_PENDING);
	if (val & ~QSPL_LOCKED_MASK) {
		/* Lost the race: undo our pending bit (if it was ours). */
		if (!(val & QSPL_PENDING))
			qspl_fetch_andnot(lock, QSPL_PENDING);
		return false;
	}
	/* Nobody but us may take the lock now (the queue waits for us). */
	while (QSPL_LOAD_ACQ(lock->val) & QSPL_LOCKED_MASK)
		QSPL_RELAX(env, cpu);
	val = QSPL_READ(lock->val);
	for (;;) {
		u32 new = (val & ~QSPL_PENDING) | QSPL_LOCKED;
		u32 old = QSPL_CMPXCHG_ACQ(&lock->val, val, new);

		if (old == val)
			break;
		val = old;
	}
	qspl_stat_inc(&env->cpus[cpu].stats.pending);
	return true;
}

/* ---- pv-unfair mode: lock stealing ---- */

/*
 * Take a free lock ahead of the queue, as long as the queue head is not
 * actively spinning (pending set).  Returns false when the caller should
 * queue: there is no queue to jump, or its head spins for the lock.
 */
static bool qspl_steal(struct qspl_env *env, struct qspl *lock,
		       unsigned int cpu)
{
	for (;;) {
		u32 val = QSPL_READ(lock->val);

		if (!(val & QSPL_LOCKED_PENDING)) {
			if (QSPL_CMPXCHG_ACQ(&lock->val, val,
					     val | QSPL_LOCKED) == val) {
				qspl_stat_inc(&env->cpus[cpu].stats.steals);
				return true;
			}
			continue;
		}
		if (!(val & QSPL_TAIL_MASK) || (val & QSPL_PENDING))
			return false;
		QSPL_RELAX(env, cpu);
	}
}

/* ---- PV waiting ---- */

static bool qspl_prev_stalled(struct qspl_env *env, struct qspl_node *prev)
{
	if (QSPL_READ(prev->state) != QSPL_RUNNING)
		return true;
	return env->ops->preempted &&
	       env->ops->preempted(env, QSPL_READ(prev->cpu));
}

/* A queued waiter: spin on node->locked, then halt until it is set. */
static void qspl_pv_wait_node(struct qspl_env *env, struct qspl_node *node,
			      struct qspl_node *prev, unsigned int cpu)
{
	struct qspl_stats *st = &env->cpus[cpu].stats;
	unsigned int loop;
	bool early;

	for (;;) {
		early = false;
		for (loop = env->spin_threshold; loop; loop--) {
			if (QSPL_LOAD_ACQ(node->locked))
				return;
			if (!(loop & QSPL_PREV_CHECK_MASK) &&
			    qspl_prev_stalled(env, prev)) {
				early = true;
				break;
			}
			QSPL_RELAX(env, cpu);
		}
		/* Ordering (1): pairs with qspl_pv_pass_on(). */
		QSPL_STORE_MB(node->state, QSPL_HALTED);
		if (!QSPL_READ_MB(node->locked)) {
			qspl_stat_inc(&st->halts_node);
			if (early)
				qspl_stat_inc(&st->wait_early);
			env->ops->wait(env, cpu, &node->state, ~0U,
				       QSPL_HALTED);
		}
		/* Keep QSPL_HASHED: the head must not hash a second time. */
		QSPL_CMPXCHG(&node->state, (u32)QSPL_HALTED, (u32)QSPL_RUNNING);
		if (QSPL_LOAD_ACQ(node->locked))
			return;
		qspl_stat_inc(&st->spurious);
	}
}

/*
 * The owner hands the queue to @next.  If @next is halted, hash the lock
 * for it and set QSPL_SLOW (we hold the lock, so the byte goes from
 * QSPL_LOCKED to QSPL_SLOW) instead of kicking it now: our unlock will.
 */
static void qspl_pv_pass_on(struct qspl_env *env, struct qspl *lock,
			    struct qspl_node *next, unsigned int cpu)
{
	/* Ordering (1): the xchg orders the critical section and locked. */
	QSPL_XCHG(&next->locked, 1U);
	if (QSPL_CMPXCHG(&next->state, (u32)QSPL_HALTED, (u32)QSPL_HASHED) !=
	    QSPL_HALTED)
		return;
	if (!qspl_hash(env, lock, next, cpu)) {
		/* Table full: tell it there is no entry, and wake it now. */
		QSPL_STORE_REL(next->unhashed, 1U);
		env->ops->kick(env, QSPL_READ(next->cpu));
		return;
	}
	qspl_fetch_or(lock, QSPL_SLOW);
	qspl_stat_inc(&env->cpus[cpu].stats.hashed_for_next);
}

/* The queue head's attempt at the lock; true when it holds it. */
static bool qspl_pv_head_trylock(struct qspl *lock, bool unfair)
{
	u32 val = QSPL_READ(lock->val);

	while (!(val & QSPL_LOCKED_MASK)) {
		u32 new = unfair ? (val & ~QSPL_PENDING) | QSPL_LOCKED :
				   val | QSPL_LOCKED;
		u32 old = QSPL_CMPXCHG_ACQ(&lock->val, val, new);

		if (old == val)
			return true;
		val = old;
	}
	return false;
}

/*
 * The queue head: spin for the lock, then hash it, set QSPL_SLOW and halt
 * until the unlocker kicks us.  Returns holding the lock (locked byte
 * QSPL_LOCKED, pending clear).
 *
 * "mine": an entry for us is in the table, or is about to be (the owner
 * hashing for us on its way out of the slow path).  The unlocker that
 * removes our entry sets node->unhashed before it releases the lock, so
 * seeing it we know the entry is gone and hash again before halting
 * again (after a steal in pv-unfair, or a lock that was re-taken).  We
 * never hash while an entry of ours may exist: one entry per lock.
 */
static void qspl_pv_wait_head(struct qspl_env *env, struct qspl *lock,
			      struct qspl_node *node, unsigned int cpu)
{
	bool unfair = env->mode == QSPL_PV_UNFAIR;
	struct qspl_stats *st = &env->cpus[cpu].stats;
	struct qspl_hash_entry *he;
	unsigned int loop;
	bool mine;
	u32 val;

	mine = QSPL_READ(node->state) == QSPL_HASHED;
	for (;;) {
		/* What our successor's wait-early check looks at. */
		QSPL_WRITE(node->state, QSPL_RUNNING);
		if (unfair)
			qspl_fetch_or(lock, QSPL_PENDING);
		for (loop = env->spin_threshold; loop; loop--) {
			if (qspl_pv_head_trylock(lock, unfair))
				return;
			QSPL_RELAX(env, cpu);
		}
		/* Halting: let newcomers steal meanwhile. */
		if (unfair)
			qspl_fetch_andnot(lock, QSPL_PENDING);

		/*
		 * Gone only once the unlocker that marked it has also
		 * released: until then the byte stays QSPL_SLOW, and a new
		 * entry of ours would not survive its release.
		 */
		if (mine && QSPL_LOAD_ACQ(node->unhashed) &&
		    (QSPL_LOAD_ACQ(lock->val) & QSPL_LOCKED_MASK) != QSPL_SLOW)
			mine = false;
		if (!mine) {
			QSPL_WRITE(node->unhashed, 0U);
			/* Ordering (2): the entry before QSPL_SLOW. */
			he = qspl_hash(env, lock, node, cpu);
			if (!he)
				continue;	/* table full: spin on */
			val = qspl_fetch_or(lock, QSPL_SLOW);
			if (!(val & QSPL_LOCKED_MASK)) {
				/* It was free: it is ours, undo QSPL_SLOW. */
				qspl_fetch_andnot(lock, QSPL_SLOW_BIT);
				QSPL_STORE_REL(he->lock, (struct qspl *)NULL);
				return;
			}
			mine = true;
		}
		QSPL_WRITE(node->state, QSPL_HASHED);
		qspl_stat_inc(&st->halts_head);
		env->ops->wait(env, cpu, &lock->val, QSPL_LOCKED_MASK,
			       QSPL_SLOW);
		if ((QSPL_READ(lock->val) & QSPL_LOCKED_MASK) == QSPL_SLOW)
			qspl_stat_inc(&st->spurious);
	}
}

/* ---- the slow paths ---- */

static bool qspl_nested_trylock(struct qspl_env *env, struct qspl *lock,
				unsigned int cpu)
{
	if (env->mode == QSPL_PV_UNFAIR)
		return qspl_steal(env, lock, cpu);
	return qspl_core_trylock(lock);
}

void qspl_core_lock_slowpath(struct qspl_env *env, struct qspl *lock,
			     unsigned int cpu, u32 val)
{
	struct qspl_cpu *pc = &env->cpus[cpu];
	bool pv = env->mode != QSPL_NATIVE;
	struct qspl_node *node, *prev, *next;
	unsigned int idx;
	u32 tail, old;

	qspl_stat_inc(&pc->stats.slowpath);
	if (env->mode == QSPL_NATIVE) {
		if (qspl_native_pending(env, lock, cpu, val))
			return;
	} else if (env->mode == QSPL_PV_UNFAIR) {
		if (qspl_steal(env, lock, cpu))
			return;
	}

	qspl_stat_inc(&pc->stats.queued);
	idx = pc->node[0].count++;
	if (idx >= QSPL_MAX_NODES) {
		/* Nested deeper than we have nodes for: just spin. */
		qspl_stat_inc(&pc->stats.nest_overflow);
		while (!qspl_nested_trylock(env, lock, cpu))
			QSPL_RELAX(env, cpu);
		goto release;
	}
	tail = qspl_encode_tail(cpu, idx);
	node = &pc->node[idx];
	QSPL_WRITE(node->locked, 0U);
	QSPL_WRITE(node->next, (struct qspl_node *)NULL);
	QSPL_WRITE(node->state, (u32)QSPL_RUNNING);
	QSPL_WRITE(node->unhashed, 0U);

	/* The node's cache line was cold; the lock may be free by now. */
	if (qspl_core_trylock(lock))
		goto release;

	/* A fully ordered RMW: the node is initialised before it is seen. */
	old = qspl_xchg_tail(lock, tail);
	if (old & QSPL_TAIL_MASK) {
		prev = qspl_decode_tail(env, old);
		QSPL_STORE_REL(prev->next, node);
		if (pv)
			qspl_pv_wait_node(env, node, prev, cpu);
		else
			while (!QSPL_LOAD_ACQ(node->locked))
				QSPL_RELAX(env, cpu);
	}

	/* We are the queue head. */
	if (pv) {
		qspl_pv_wait_head(env, lock, node, cpu);
		val = QSPL_READ(lock->val);	/* locked byte QSPL_LOCKED */
	} else {
		while ((val = QSPL_LOAD_ACQ(lock->val)) & QSPL_LOCKED_PENDING)
			QSPL_RELAX(env, cpu);
	}

	/*
	 * Nobody else may set the locked byte now: newcomers see a tail
	 * and queue (or, stealing, see the byte set in pv modes).  If we
	 * are the last in the queue, take the lock and clear the tail in
	 * one go; otherwise take it (native) and pass the queue on.
	 *
	 * The cmpxchg also fails when a native newcomer sets pending for a
	 * moment (it sees our tail and takes it back).  Retry then rather
	 * than wait for a next node: that newcomer may be one nested too
	 * deep to queue (the trylock loop above), and then no next node
	 * ever comes while it spins on the lock we would hold.
	 */
	while ((val & QSPL_TAIL_MASK) == tail) {
		old = QSPL_CMPXCHG_ACQ(&lock->val, val,
				       QSPL_LOCKED | (val & QSPL_PENDING));
		if (old == val)
			goto release;
		val = old;
	}
	/* Somebody swapped in a newer tail: it will link to us. */
	if (!pv)
		qspl_fetch_or(lock, QSPL_LOCKED);

	while (!(next = QSPL_LOAD_ACQ(node->next)))
		QSPL_RELAX(env, cpu);
	if (pv)
		qspl_pv_pass_on(env, lock, next, cpu);
	else
		QSPL_STORE_REL(next->locked, 1U);
release:
	pc->node[0].count--;
}

void qspl_core_unlock_slowpath(struct qspl_env *env, struct qspl *lock,
			       unsigned int cpu)
{
	struct qspl_node *node;
	unsigned int target;

	/* Ordering (2): seeing QSPL_SLOW, we see the entry behind it. */
	QSPL_WARN_ONCE((QSPL_LOAD_ACQ(lock->val) & QSPL_LOCKED_MASK) !=
		       QSPL_SLOW);
	node = qspl_unhash(env, lock);
	target = 0;
	if (node) {
		target = QSPL_READ(node->cpu);
		/* Before the release: the head still waits on its node. */
		QSPL_STORE_REL(node->unhashed, 1U);
	}
	/* The lock (and its memory) may be gone after this; node is not. */
	qspl_fetch_andnot(lock, QSPL_LOCKED_MASK);
	if (!node)
		return;
	qspl_stat_inc(&env->cpus[cpu].stats.kicks);
	env->ops->kick(env, target);
}

/* ---- setup ---- */

unsigned int qspl_hash_bits(unsigned int nr_cpus)
{
	unsigned int bits = 6;

	while ((1U << bits) < 2U * QSPL_MAX_NODES * nr_cpus)
		bits++;
	return bits;
}

int qspl_env_init(struct qspl_env *env, enum qspl_mode mode,
		  unsigned int nr_cpus, struct qspl_cpu *cpus,
		  struct qspl_hash_entry *hash, unsigned int spin_threshold,
		  const struct qspl_ops *ops, void *priv)
{
	unsigned int cpu, i;

	if (!nr_cpus || nr_cpus > QSPL_MAX_CPUS || !cpus ||
	    mode > QSPL_PV_UNFAIR)
		return -EINVAL;
	if (mode != QSPL_NATIVE &&
	    (!hash || !ops || !ops->wait || !ops->kick))
		return -EINVAL;
	memset(env, 0, sizeof(*env));
	memset(cpus, 0, sizeof(*cpus) * nr_cpus);
	for (cpu = 0; cpu < nr_cpus; cpu++)
		for (i = 0; i < QSPL_MAX_NODES; i++)
			cpus[cpu].node[i].cpu = cpu;
	env->hash_bits = qspl_hash_bits(nr_cpus);
	if (hash)
		memset(hash, 0, sizeof(*hash) << env->hash_bits);
	env->mode = mode;
	env->nr_cpus = nr_cpus;
	env->spin_threshold = spin_threshold ? spin_threshold :
					       QSPL_SPIN_THRESHOLD;
	env->ops = ops;
	env->priv = priv;
	env->cpus = cpus;
	env->hash = hash;
	return 0;
}

static const char * const qspl_mode_names[] = {
	[QSPL_NATIVE] = "native",
	[QSPL_PV] = "pv",
	[QSPL_PV_UNFAIR] = "pv-unfair",
};

const char *qspl_mode_name(enum qspl_mode mode)
{
	return mode <= QSPL_PV_UNFAIR ? qspl_mode_names[mode] : "?";
}

int qspl_mode_parse(const char *s, enum qspl_mode *mode)
{
	unsigned int i;

	for (i = 0; i <= QSPL_PV_UNFAIR; i++) {
		size_t n = strlen(qspl_mode_names[i]);

		/* Accept a trailing newline, as sysfs writes have. */
		if (!strncmp(s, qspl_mode_names[i], n) &&
		    (s[n] == '\0' || (s[n] == '\n' && s[n + 1] == '\0'))) {
			*mode = (enum qspl_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}
