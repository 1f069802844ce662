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

#define QSPL_READ(x)			READ_ONCE(x)
#define QSPL_WRITE(x, v)		WRITE_ONCE(x, v)
#define QSPL_LOAD_ACQ(x)		smp_load_acquire(&(x))
#define QSPL_STORE_REL(x, v)		smp_store_release(&(x), v)
#define QSPL_STORE_MB(x, v)		smp_store_mb(x, v)
#define QSPL_READ_MB(x)			READ_ONCE(x)
#define QSPL_CMPXCHG(p, o, n)		cmpxchg(p, o, n)
#define QSPL_CMPXCHG_ACQ(p, o, n)	cmpxchg_acquire(p, o, n)
#define QSPL_CMPXCHG_REL(p, o, n)	cmpxchg_release(p, o, n)
#define QSPL_XCHG(p, v)			xchg(p, v)

#define QSPL_RELAX(env, cpu)		cpu_relax()
#define QSPL_BUG()			BUG()
#define QSPL_CACHE_ALIGNED		____cacheline_aligned
#define qspl_hash_ptr(p, bits)		hash_ptr(p, bits)
/*
 * Statistics are per CPU and only written by their own CPU; an interrupt
 * that nests inside an increment may lose a count, which is fine for
 * counters that only feed the benchmark report.
 */
#define QSPL_STAT_INC(x)		WRITE_ONCE(x, READ_ONCE(x) + 1)
#define QSPL_STAT_MAX(x, v)					\
	do {							\
		if ((v) > READ_ONCE(x))				\
			WRITE_ONCE(x, v);			\
	} while (0)

#else /* !__KERNEL__ */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <xgp_shim.h>

#define QSPL_READ(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define QSPL_WRITE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define QSPL_LOAD_ACQ(x)	__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define QSPL_STORE_REL(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define QSPL_STORE_MB(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)
#define QSPL_READ_MB(x)		__atomic_load_n(&(x), __ATOMIC_SEQ_CST)

#define qspl_cas_(p, o, n, ok, bad) ({					\
	__typeof__(*(p)) qspl_old_ = (o);				\
	__atomic_compare_exchange_n((p), &qspl_old_, (n), false,	\
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
#define QSPL_BUG()		abort()
#define QSPL_CACHE_ALIGNED	__attribute__((aligned(64)))
static inline u32 qspl_hash_ptr(const void *p, unsigned int bits)
{
	return (u32)(((u64)(uintptr_t)p * 0x61C8864680B583EBULL) >> (64 - bits));
}

#define QSPL_STAT_INC(x)	((x)++)
#define QSPL_STAT_MAX(x, v)	do { if ((v) > (x)) (x) = (v); } while (0)
#endif /* __KERNEL__ */

#endif /* XEN_PV_SUITE_QSPL_PORT_H */
