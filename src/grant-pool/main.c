// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * xen-grant-pool module: parameters, init/exit and the deferred-revoke
 * worker.
 *
 * A grant the backend still maps when its pool is destroyed cannot be
 * ended, and its page must not be freed or reused: the backend could
 * still read or write it (XSA-396).  Such pages are kept on one global
 * list and retried periodically until the backend unmaps them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/workqueue.h>
#include <linux/jiffies.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <xen/xen.h>
#include <xen/grant_table.h>
#include <xen/page.h>
#include "internal.h"

unsigned int xgp_front_max_slots = 1024;
module_param_named(front_max_slots, xgp_front_max_slots, uint, 0644);
MODULE_PARM_DESC(front_max_slots,
		 "Default upper bound of 4 KB grant slots per front pool (default 1024 slots = 4 MB). Runtime changes apply to pools created afterwards.");

unsigned int xgp_back_cap = 1024;
module_param_named(back_cap, xgp_back_cap, uint, 0644);
MODULE_PARM_DESC(back_cap,
		 "Default hard cap of mapped grants per backend cache (default 1024 entries = 4 MB). Runtime changes apply to caches created afterwards.");

unsigned int xgp_purge_batch = 64;
module_param_named(purge_batch, xgp_purge_batch, uint, 0644);
MODULE_PARM_DESC(purge_batch,
		 "Idle entries unmapped by one xgp_back_purge(cache, 0) call (default 64 entries). Runtime changes apply to the next call.");

unsigned int xgp_retry_ms = 1000;
module_param_named(retry_ms, xgp_retry_ms, uint, 0644);
MODULE_PARM_DESC(retry_ms,
		 "Interval between retries of revoking grants a backend still mapped (default 1000 ms, minimum 10). Runtime changes apply from the next retry.");

static struct xgp_irqlock xgp_deferred_lock = XGP_IRQLOCK_INIT(xgp_deferred_lock);
static void xgp_retry_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(xgp_retry_work, xgp_retry_fn);
struct xgp_deferred xgp_deferred;

/* ---- kernel implementation of the front ops ---- */

static void xgp_deferred_lock_fn(void *priv)
	__acquires(&xgp_deferred_lock.lock)
{
	xgp_irqlock_acquire(&xgp_deferred_lock);
}

static void xgp_deferred_unlock_fn(void *priv)
	__releases(&xgp_deferred_lock.lock)
{
	xgp_irqlock_release(&xgp_deferred_lock);
}

static int xgp_alloc_page(void *priv, gfp_t gfp, struct page **page,
			  void **vaddr)
{
	/*
	 * Zeroed: the backend can read the whole page as soon as it is
	 * granted, so no stale kernel data may be left in it.  Never
	 * highmem: the data is copied through the kernel mapping.
	 */
	struct page *pg = alloc_page(gfp | __GFP_ZERO);

	if (!pg)
		return -ENOMEM;
	*page = pg;
	*vaddr = page_address(pg);
	return 0;
}

static void xgp_free_page(void *priv, struct page *page)
{
	__free_page(page);
}

static int xgp_grant(void *priv, u16 domid, struct page *page,
		     unsigned int sub, bool readonly)
{
	return gnttab_grant_foreign_access(domid,
					   pfn_to_gfn(page_to_xen_pfn(page) + sub),
					   readonly);
}

static bool xgp_try_end(void *priv, u32 gref)
{
	return gnttab_try_end_foreign_access(gref);
}

static const struct xgp_front_ops xgp_deferred_kops = {
	.lock = xgp_deferred_lock_fn,
	.unlock = xgp_deferred_unlock_fn,
	.page_alloc = xgp_alloc_page,
	.page_free = xgp_free_page,
	.grant = xgp_grant,
	.try_end = xgp_try_end,
};

static void xgp_pool_lock(void *priv)
	__acquires(priv)
{
	xgp_irqlock_acquire(&((struct xgp_front_pool *)priv)->lock);
}

static void xgp_pool_unlock(void *priv)
	__releases(priv)
{
	xgp_irqlock_release(&((struct xgp_front_pool *)priv)->lock);
}

const struct xgp_front_ops xgp_front_kops = {
	.lock = xgp_pool_lock,
	.unlock = xgp_pool_unlock,
	.page_alloc = xgp_alloc_page,
	.page_free = xgp_free_page,
	.grant = xgp_grant,
	.try_end = xgp_try_end,
};

/* ---- deferred revoke ---- */

static unsigned long xgp_retry_delay(void)
{
	return msecs_to_jiffies(max(READ_ONCE(xgp_retry_ms), 10U));
}

/**
 * xgp_deferred_kick - make sure the deferred list gets retried
 */
void xgp_deferred_kick(void)
{
	schedule_delayed_work(&xgp_retry_work, xgp_retry_delay());
}

static atomic_t xgp_flagged = ATOMIC_INIT(0);

/**
 * xgp_note_flagged - count a pool destroyed with grants still mapped
 */
void xgp_note_flagged(void)
{
	atomic_inc(&xgp_flagged);
}

static void xgp_retry_fn(struct work_struct *work)
{
	unsigned int before = READ_ONCE(xgp_deferred.nr_pages);
	unsigned int left = xgp_deferred_retry(&xgp_deferred);
	unsigned int rings = xgp_ring_retry();

	if (left < before)
		pr_info("freed %u deferred page(s) after the backend unmapped them, %u left\n",
			before - left, left);
	if (left || rings)
		xgp_deferred_kick();
}

static int __init xgp_init(void)
{
	int err;

	BUILD_BUG_ON(XGP_GRANT_SIZE != XEN_PAGE_SIZE);
	BUILD_BUG_ON(XGP_GRANTS_PER_PAGE != XEN_PFN_PER_PAGE);
	/* struct xgp_bpage keeps its sub-pages in a u32 bitmap. */
	BUILD_BUG_ON(XGP_GRANTS_PER_PAGE > 32);

	if (!xen_domain())
		return -ENODEV;

	xgp_deferred_init(&xgp_deferred, &xgp_deferred_kops, NULL);
	err = xgp_debugfs_init();
	if (err)
		return err;
	xgp_selftest_init(xgp_debugfs_root());
	pr_info("loaded: %u grant(s) per page\n", XGP_GRANTS_PER_PAGE);
	return 0;
}

static void __exit xgp_exit(void)
{
	unsigned int leaked;

	xgp_selftest_exit();
	cancel_delayed_work_sync(&xgp_retry_work);
	xgp_deferred_retry(&xgp_deferred);
	leaked = xgp_deferred_leak(&xgp_deferred);
	if (leaked)
		pr_err("unloading with %u page(s) still mapped by a backend: leaking them deliberately, they are never freed\n",
		       leaked);
	leaked = xgp_ring_exit();
	if (leaked)
		pr_err("unloading with %u ring(s) still mapped by a backend: leaking them deliberately, they are never freed\n",
		       leaked);
	xgp_debugfs_exit();
}

/**
 * xgp_flagged_pools - pools destroyed while a backend still mapped grants
 *
 * Return: the count since module load.
 */
unsigned int xgp_flagged_pools(void)
{
	return atomic_read(&xgp_flagged);
}

module_init(xgp_init);
module_exit(xgp_exit);

MODULE_DESCRIPTION("Xen persistent grant pool and mapped-grant cache library");
MODULE_AUTHOR("xen-pv-suite developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(XPS_VERSION);
