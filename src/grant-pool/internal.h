/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Private declarations of the xen-grant-pool kernel glue.
 */
#ifndef XGP_INTERNAL_H
#define XGP_INTERNAL_H

#include <linux/spinlock.h>
#include <linux/list.h>
#include <xen-pv-suite/grant_pool.h>

struct dentry;

/*
 * The pure cores take their lock through ops callbacks, which cannot hand
 * IRQ flags back to the caller: the holder keeps them beside the lock.
 */
struct xgp_irqlock {
	spinlock_t lock;	/* taken with IRQs saved */
	unsigned long flags;	/* saved by the holder */
};

#define XGP_IRQLOCK_INIT(name)	{ .lock = __SPIN_LOCK_UNLOCKED(name.lock) }

static inline void xgp_irqlock_init(struct xgp_irqlock *l)
{
	spin_lock_init(&l->lock);
}

static inline void xgp_irqlock_acquire(struct xgp_irqlock *l)
	__acquires(&l->lock)
{
	unsigned long flags;

	spin_lock_irqsave(&l->lock, flags);
	l->flags = flags;
}

static inline void xgp_irqlock_release(struct xgp_irqlock *l)
	__releases(&l->lock)
{
	spin_unlock_irqrestore(&l->lock, l->flags);
}

struct xgp_front_pool {
	struct xgp_front_core core;
	struct xgp_irqlock lock;	/* protects core */
	struct list_head node;		/* registry */
	struct dentry *dir;
	char name[XGP_NAME_LEN];
};

struct xgp_back_cache {
	struct xgp_back_core core;
	struct xgp_irqlock lock;	/* protects core */
	struct list_head node;		/* registry */
	struct dentry *dir;
	char name[XGP_NAME_LEN];
};

/* main.c: module parameters, read with READ_ONCE() at time of use */
extern unsigned int xgp_front_max_slots;
extern unsigned int xgp_back_cap;
extern unsigned int xgp_purge_batch;
extern unsigned int xgp_retry_ms;

/* main.c: pages whose grants a backend still maps */
extern struct xgp_deferred xgp_deferred;
extern const struct xgp_front_ops xgp_front_kops;
void xgp_deferred_kick(void);
void xgp_note_flagged(void);
unsigned int xgp_flagged_pools(void);

/* front.c / back.c: release with results, for the selftest */
void xgp_front_pool_release(struct xgp_front_pool *pool,
			    struct xgp_release_result *res);
unsigned int xgp_back_cache_release(struct xgp_back_cache *cache);

/* debugfs.c: registry of live objects and their stats files */
int xgp_debugfs_init(void);
void xgp_debugfs_exit(void);
int xgp_register_pool(struct xgp_front_pool *pool);
void xgp_unregister_pool(struct xgp_front_pool *pool);
int xgp_register_cache(struct xgp_back_cache *cache);
void xgp_unregister_cache(struct xgp_back_cache *cache);
bool xgp_valid_name(const char *name);
struct dentry *xgp_debugfs_root(void);

/* ring.c: rings a backend still maps */
unsigned int xgp_ring_retry(void);
unsigned int xgp_ring_exit(void);
void xgp_ring_stats(unsigned int *kept, u64 *freed, u64 *leaked);

/* selftest.c */
void xgp_selftest_init(struct dentry *root);
void xgp_selftest_exit(void);

#endif /* XGP_INTERNAL_H */
