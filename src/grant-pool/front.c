// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Frontend persistent grant pool: the exported API around the pure core
 * in xgp_front_core.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/err.h>
#include <linux/string.h>
#include <xen/interface/xen.h>
#include "internal.h"

/**
 * xgp_front_pool_create - create a persistent grant pool
 * @name: unique name, also the debugfs directory (< XGP_NAME_LEN, no '/')
 * @domid: backend domain the pages are granted to
 * @max_slots: upper bound of granted 4 KB slots; 0 for the module default
 * @flags: XGP_FRONT_READONLY to grant read-only
 *
 * The pool starts empty; fill it with xgp_front_prefill().  May sleep.
 *
 * Return: the pool, or ERR_PTR(-EINVAL, -EEXIST, -ENOMEM).
 */
struct xgp_front_pool *xgp_front_pool_create(const char *name, domid_t domid,
					     unsigned int max_slots,
					     unsigned int flags)
{
	struct xgp_front_pool *pool;
	int err;

	might_sleep();
	if (!xgp_valid_name(name) || domid >= DOMID_FIRST_RESERVED ||
	    (flags & ~XGP_FRONT_READONLY))
		return ERR_PTR(-EINVAL);
	if (!max_slots)
		max_slots = max(READ_ONCE(xgp_front_max_slots), 1U);

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	xgp_irqlock_init(&pool->lock);
	strscpy(pool->name, name, sizeof(pool->name));
	xgp_front_core_init(&pool->core, &xgp_front_kops, pool, &xgp_deferred,
			    domid, max_slots, flags & XGP_FRONT_READONLY);
	err = xgp_register_pool(pool);
	if (err) {
		kfree(pool);
		return ERR_PTR(err);
	}
	return pool;
}
EXPORT_SYMBOL_GPL(xgp_front_pool_create);

/**
 * xgp_front_pool_release - destroy a pool and report what the revoke did
 * @pool: pool; all slots should have been put back
 * @res: outcome of the checked revoke
 */
void xgp_front_pool_release(struct xgp_front_pool *pool,
			    struct xgp_release_result *res)
{
	xgp_unregister_pool(pool);
	xgp_front_core_release(&pool->core, res);
	if (res->held)
		pr_err("pool %s: destroyed with %u slot(s) still held by its user\n",
		       pool->name, res->held);
	if (res->busy) {
		pr_err("pool %s: backend domain %u still maps %u grant(s); %u page(s) kept aside and never reused, retried until unmapped\n",
		       pool->name, pool->core.domid, res->busy,
		       res->deferred_pages);
		xgp_note_flagged();
		xgp_deferred_kick();
	}
	kfree(pool);
}

/**
 * xgp_front_pool_destroy - revoke all grants of a pool and free it
 * @pool: pool (NULL or an ERR_PTR is ignored); every slot must be put
 *
 * Each grant is ended with a checked revoke.  A page whose grants the
 * backend still maps is not freed: it is kept on a deferred list and
 * freed once the backend unmaps it, and an error naming the pool is
 * logged.  May sleep.
 *
 * Return: the number of grants the backend still mapped (0: all ended).
 */
unsigned int xgp_front_pool_destroy(struct xgp_front_pool *pool)
{
	struct xgp_release_result res;

	if (IS_ERR_OR_NULL(pool))
		return 0;
	xgp_front_pool_release(pool, &res);
	return res.busy;
}
EXPORT_SYMBOL_GPL(xgp_front_pool_destroy);

/**
 * xgp_front_prefill - grant pages until @nr_free slots are free
 * @pool: pool
 * @nr_free: wanted number of free slots
 * @gfp: allocation flags (GFP_NOIO from block I/O setup paths)
 *
 * Pages are granted whole (PAGE_SIZE / 4 KB slots each) and never beyond
 * the pool's max_slots.  May sleep if @gfp allows; not from IRQ context.
 *
 * Return: 0, -ENOSPC if max_slots was reached first, -ENOMEM, or the
 * grant table error.  Slots granted before a failure stay in the pool.
 */
int xgp_front_prefill(struct xgp_front_pool *pool, unsigned int nr_free,
		      gfp_t gfp)
{
	might_sleep_if(gfpflags_allow_blocking(gfp));
	return xgp_front_core_grow(&pool->core, nr_free, gfp);
}
EXPORT_SYMBOL_GPL(xgp_front_prefill);

/**
 * xgp_front_get - take a free slot
 * @pool: pool
 *
 * Never allocates or sleeps; any context.  The slot's ->gref is granted
 * to the pool's backend, ->vaddr addresses its 4 KB.
 *
 * Return: a slot, or NULL if none is free (fall back to a non-persistent
 * grant, or prefill from a sleepable context).
 */
struct xgp_slot *xgp_front_get(struct xgp_front_pool *pool)
{
	return xgp_front_core_get(&pool->core);
}
EXPORT_SYMBOL_GPL(xgp_front_get);

/**
 * xgp_front_put - give a slot back to its pool
 * @pool: pool the slot came from
 * @slot: slot returned by xgp_front_get()
 *
 * Any context.  A slot not held from @pool is refused and logged.
 */
void xgp_front_put(struct xgp_front_pool *pool, struct xgp_slot *slot)
{
	if (xgp_front_core_put(&pool->core, slot))
		pr_err_ratelimited("pool %s: refused put of a slot not held from it\n",
				   pool->name);
}
EXPORT_SYMBOL_GPL(xgp_front_put);

/**
 * xgp_front_get_bulk - take @n free slots at once, all or none
 * @pool: pool
 * @slots: filled with @n slots
 * @n: slots wanted
 * @flags: XGP_GET_ZERO clears each slot's 4 KB before it is returned
 *	(for data an untrusted backend may read beyond what is written)
 *
 * One lock round trip for the lot; never allocates or sleeps; any
 * context.
 *
 * Return: @n, or 0 if fewer than @n slots are free (none taken).
 */
unsigned int xgp_front_get_bulk(struct xgp_front_pool *pool,
				struct xgp_slot **slots, unsigned int n,
				unsigned int flags)
{
	return xgp_front_core_get_bulk(&pool->core, slots, n,
				       flags & XGP_GET_ZERO);
}
EXPORT_SYMBOL_GPL(xgp_front_get_bulk);

/**
 * xgp_front_put_bulk - give @n slots back at once
 * @pool: pool the slots came from
 * @slots: slots from xgp_front_get() or xgp_front_get_bulk()
 * @n: how many
 *
 * Any context.  Slots not held from @pool are refused and logged.
 */
void xgp_front_put_bulk(struct xgp_front_pool *pool, struct xgp_slot **slots,
			unsigned int n)
{
	unsigned int bad = xgp_front_core_put_bulk(&pool->core, slots, n);

	if (bad)
		pr_err_ratelimited("pool %s: refused put of %u slot(s) not held from it\n",
				   pool->name, bad);
}
EXPORT_SYMBOL_GPL(xgp_front_put_bulk);

/**
 * xgp_front_pool_grefs - list the grant references of a pool's slots
 * @pool: pool
 * @grefs: filled with up to @max references
 * @max: room in @grefs
 *
 * Every granted slot, free or held: what a backend maps to use the
 * pool persistently (a netif ADD_GREF_MAPPING table lists them).  Any
 * context.
 *
 * Return: the number of slots; more than @max means the list was cut.
 */
unsigned int xgp_front_pool_grefs(struct xgp_front_pool *pool, u32 *grefs,
				  unsigned int max)
{
	return xgp_front_core_grefs(&pool->core, grefs, max);
}
EXPORT_SYMBOL_GPL(xgp_front_pool_grefs);

/**
 * xgp_front_pool_stats - snapshot a pool's statistics
 * @pool: pool
 * @out: counters and gauges
 */
void xgp_front_pool_stats(struct xgp_front_pool *pool,
			  struct xgp_front_stats *out)
{
	xgp_front_core_stats(&pool->core, out);
}
EXPORT_SYMBOL_GPL(xgp_front_pool_stats);
