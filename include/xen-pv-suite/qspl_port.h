/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Portability layer of the pure queued spinlock code (qspl_core.c).
 *
 * The lock algorithm builds both inside the qspinlock-pv module and as a
 * userspace program for the stress tests, so it uses only the primitives
 * below.  Every shared variable is accessed through them:
 *
 *   QSPL_READ(x), QSPL_WRITE(x, v)       relaxed (READ_ONCE/WRITE_ONCE)
 *   QSPL_LOAD_ACQ(x), QSPL_STORE_REL(x, v)
 *   QSPL_STORE_MB(x, v)                  store, then a full barrier
 *   QSPL_READ_MB(x)                      a load that a QSPL_STORE_MB()
 *                                        before it is ordered against
 *   QSPL_CMPXCHG*(p, old, new)           return the old value
 *   QSPL_XCHG(p, v)                      fully ordered
 *   QSPL_WARN_ONCE(cond)                 a broken invariant (kernel: warn
 *                                        once; tests: abort)
 *
 * In userspace these are GCC __atomic builtins (which TSan understands);
 * no standalone fence is used anywhere, so TSan sees every
 * synchronisation the algorithm relies on.  QSPL_STORE_MB/QSPL_READ_MB
 * are sequentially consistent there, which is what the store-buffer
 * (Dekker) handshakes between a halting waiter and its waker need.
 */
#ifndef XEN_PV_SUITE_QSPL_PORT_H
#define XEN_PV_SUITE_QSPL_PORT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/cache.h>
#include <linux/hash.h>
#include <linux/processor.h>
#include <asm/barrier.h>

/* The pairings of each barrier are listed at the top of qspl_core.c. */
#define QSPL_READ(x)			READ_ONCE(x)
#define QSPL_WRITE(x, v)		WRITE_ONCE(x, v)
#define QSPL_LOAD_ACQ(x)		smp_load_acquire(&(x)) /* see above */
#define QSPL_STORE_REL(x, v)		smp_store_release(&(x), v) /* above */
#define QSPL_STORE_MB(x, v)		smp_store_mb(x, v) /* see above */
#define QSPL_READ_MB(x)			READ_ONCE(x)
#define QSPL_CMPXCHG(p, o, n)		cmpxchg(p, o, n)
#define QSPL_CMPXCHG_ACQ(p, o, n)	cmpxchg_acquire(p, o, n)
#define QSPL_CMPXCHG_REL(p, o, n)	cmpxchg_release(p, o, n)
#define QSPL_XCHG(p, v)			xchg(p, v)

#define QSPL_RELAX(env, cpu)		cpu_relax()
/* A broken invariant: warn once, the caller recovers as it can. */
#define QSPL_WARN_ONCE(cond)		WARN_ON_ONCE(cond)
#define QSPL_CACHE_BYTES		SMP_CACHE_BYTES
#define qspl_hash_ptr(p, bits)		hash_ptr(p, bits)
/*
 * Statistics are per CPU and only written by their own CPU; an interrupt
 * that nests inside an increment may lose a count, which is fine for
 * counters that only feed the benchmark report.
 */
static inline void qspl_stat_inc(u64 *x)
{
	WRITE_ONCE(*x, READ_ONCE(*x) + 1);
}

static inline void qspl_stat_max(u64 *x, u64 v)
{
	if (v > READ_ONCE(*x))
		WRITE_ONCE(*x, v);
}

#else /* !__KERNEL__ */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <qspl_shim.h>

#define QSPL_READ(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define QSPL_WRITE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define QSPL_LOAD_ACQ(x)	__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define QSPL_STORE_REL(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define QSPL_STORE_MB(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)
#define QSPL_READ_MB(x)		__atomic_load_n(&(x), __ATOMIC_SEQ_CST)

#define qspl_cas_(p, o, n, ok, bad) ({					\
	__auto_type qspl_p_ = (p);					\
	__typeof__(*qspl_p_) qspl_old_ = (o);				\
	__atomic_compare_exchange_n(qspl_p_, &qspl_old_, (n), false,	\
				    (ok), (bad));			\
	qspl_old_; })
#define QSPL_CMPXCHG(p, o, n)	\
	qspl_cas_(p, o, n, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define QSPL_CMPXCHG_ACQ(p, o, n) \
	qspl_cas_(p, o, n, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)
#define QSPL_CMPXCHG_REL(p, o, n) \
	qspl_cas_(p, o, n, __ATOMIC_RELEASE, __ATOMIC_RELAXED)
#define QSPL_XCHG(p, v)		__atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)

struct qspl_env;
/*
 * Provided by the test program: called in every spin loop, so a test can
 * simulate an interrupt that takes another lock (nesting) or a vCPU that
 * is preempted while it spins.
 */
void qspl_port_relax(struct qspl_env *env, unsigned int cpu);
#define QSPL_RELAX(env, cpu)	qspl_port_relax(env, cpu)
#define QSPL_CACHE_BYTES	64
/* A broken invariant: the tests stop right there. */
static inline bool qspl_warn_once(bool cond)
{
	if (cond)
		abort();
	return false;
}

#define QSPL_WARN_ONCE(cond)	qspl_warn_once(cond)

static inline u32 qspl_hash_ptr(const void *p, unsigned int bits)
{
	return (u32)(((u64)(uintptr_t)p * 0x61C8864680B583EBULL) >> (64 - bits));
}

/* Only the simulated CPU's own thread writes its counters. */
static inline void qspl_stat_inc(u64 *x)
{
	(*x)++;
}

static inline void qspl_stat_max(u64 *x, u64 v)
{
	if (v > *x)
		*x = v;
}
#endif /* __KERNEL__ */

#endif /* XEN_PV_SUITE_QSPL_PORT_H */
