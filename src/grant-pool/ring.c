// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Shared rings for the suite's frontends: 2^order 4 KB pages, zeroed and
 * granted to one backend, ended with a checked revoke.  A ring the backend
 * still maps when its frontend lets go (blkback keeps its ring mapped
 * until the next connect when it had I/O in flight at the close) is never
 * freed or reused while mapped: it goes on a list that the pool's retry
 * work walks, and is freed once every grant has ended.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/overflow.h>
#include <xen/xen.h>
#include <xen/grant_table.h>
#include <xen/page.h>
#include <xen/xenbus.h>
#include "internal.h"

/* A ring a backend still maps: freed once every grant has ended. */
struct xgp_kept_ring {
	struct list_head node;
	void *va;
	domid_t domid;
	unsigned int nr;		/* 4 KB pages */
	grant_ref_t refs[];		/* INVALID_GRANT_REF once ended */
};

static DEFINE_SPINLOCK(xgp_rings_lock);
static LIST_HEAD(xgp_kept_rings);
static unsigned int xgp_rings_kept;	/* on the list */
static u64 xgp_rings_freed;		/* freed after a retry */
static u64 xgp_rings_leaked;		/* never freed (module exit, no memory) */

/* End what can be ended; return the grants still mapped. */
static unsigned int xgp_ring_end(grant_ref_t *refs, unsigned int nr)
{
	unsigned int i, busy = 0;

	for (i = 0; i < nr; i++) {
		if (refs[i] == INVALID_GRANT_REF)
			continue;
		if (gnttab_try_end_foreign_access(refs[i]))
			refs[i] = INVALID_GRANT_REF;
		else
			busy++;
	}
	return busy;
}

/**
 * xgp_ring_alloc - allocate and grant a shared ring
 * @domid: backend domain
 * @order: log2 of the 4 KB pages (at most XENBUS_MAX_RING_GRANT_ORDER)
 * @refs: filled with the 1 << @order grant references
 * @gfp: allocation flags (GFP_NOIO from block I/O paths)
 *
 * The pages are virtually contiguous and zeroed: the backend can read
 * them as soon as they are granted.  May sleep if @gfp allows.
 *
 * Return: the ring's address, or an ERR_PTR (-EINVAL, -ENOMEM, or the
 * grant table's error).
 */
void *xgp_ring_alloc(domid_t domid, unsigned int order, grant_ref_t *refs,
		     gfp_t gfp)
{
	unsigned int i, nr = 1U << order;
	void *va;
	int ref;

	if (order > XENBUS_MAX_RING_GRANT_ORDER)
		return ERR_PTR(-EINVAL);
	for (i = 0; i < nr; i++)
		refs[i] = INVALID_GRANT_REF;
	va = alloc_pages_exact(nr * XEN_PAGE_SIZE, gfp | __GFP_ZERO);
	if (!va)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < nr; i++) {
		ref = gnttab_grant_foreign_access(domid,
						  virt_to_gfn((char *)va +
							      i * XEN_PAGE_SIZE),
						  0);
		if (ref < 0) {
			/* never published: every grant so far ends */
			xgp_ring_release(domid, va, order, refs);
			return ERR_PTR(ref);
		}
		refs[i] = ref;
	}
	return va;
}
EXPORT_SYMBOL_GPL(xgp_ring_alloc);

/**
 * xgp_ring_release - end a ring's grants and free it
 * @domid: backend domain (for the message)
 * @va: the ring (NULL is ignored)
 * @order: as given to xgp_ring_alloc()
 * @refs: its grant references; all set to INVALID_GRANT_REF on return
 *
 * Every grant is ended with a checked revoke.  If the backend still maps
 * any, the ring is kept (never freed or reused) and retried with the
 * pool's deferred pages (retry_ms), then freed once all have ended.  May
 * sleep.
 *
 * Return: the grants the backend still mapped (0: the ring is freed).
 */
unsigned int xgp_ring_release(domid_t domid, void *va, unsigned int order,
			      grant_ref_t *refs)
{
	unsigned int i, nr = 1U << order, busy;
	struct xgp_kept_ring *kr;

	if (!va)
		return 0;
	busy = xgp_ring_end(refs, nr);
	if (!busy) {
		free_pages_exact(va, nr * XEN_PAGE_SIZE);
		return 0;
	}
	kr = kmalloc(struct_size(kr, refs, nr), GFP_NOIO);
	if (!kr) {
		spin_lock(&xgp_rings_lock);
		xgp_rings_leaked++;
		spin_unlock(&xgp_rings_lock);
		pr_err("backend domain %u still maps %u of %u ring page(s); no memory to track them: kept for ever\n",
		       domid, busy, nr);
	} else {
		kr->va = va;
		kr->domid = domid;
		kr->nr = nr;
		memcpy(kr->refs, refs, nr * sizeof(*refs));
		spin_lock(&xgp_rings_lock);
		list_add_tail(&kr->node, &xgp_kept_rings);
		xgp_rings_kept++;
		spin_unlock(&xgp_rings_lock);
		pr_err("backend domain %u still maps %u of %u ring page(s); kept aside, never reused, freed once unmapped\n",
		       domid, busy, nr);
		xgp_deferred_kick();
	}
	for (i = 0; i < nr; i++)
		refs[i] = INVALID_GRANT_REF;
	return busy;
}
EXPORT_SYMBOL_GPL(xgp_ring_release);

/**
 * xgp_xs_publish - write a frontend's keys in one xenstore transaction
 * @dev: the frontend
 * @write: writes the keys within @xbt; on an error, *@what names the
 *	keys it was writing
 * @arg: for @write
 *
 * The whole transaction is written again while xenstore answers -EAGAIN
 * at its end (another writer came between).  Any other failure aborts it
 * and xenbus_dev_fatal() names what failed.  May sleep.
 *
 * Return: 0, or the error.
 */
int xgp_xs_publish(struct xenbus_device *dev,
		   int (*write)(struct xenbus_transaction xbt, void *arg,
				const char **what),
		   void *arg)
{
	struct xenbus_transaction xbt;
	const char *what;
	int err;

again:
	what = "starting transaction";
	err = xenbus_transaction_start(&xbt);
	if (err)
		goto fail;
	err = write(xbt, arg, &what);
	if (err) {
		xenbus_transaction_end(xbt, 1);
		goto fail;
	}
	err = xenbus_transaction_end(xbt, 0);
	if (err == -EAGAIN)
		goto again;
	what = "completing transaction";
	if (!err)
		return 0;
fail:
	xenbus_dev_fatal(dev, err, "%s", what);
	return err;
}
EXPORT_SYMBOL_GPL(xgp_xs_publish);

/**
 * xgp_ring_retry - retry the rings a backend still mapped
 *
 * Called from the pool's retry work.  Return: rings still kept.
 */
unsigned int xgp_ring_retry(void)
{
	struct xgp_kept_ring *kr, *tmp;
	unsigned int freed = 0, left;
	LIST_HEAD(done);

	spin_lock(&xgp_rings_lock);
	list_for_each_entry_safe(kr, tmp, &xgp_kept_rings, node) {
		if (xgp_ring_end(kr->refs, kr->nr))
			continue;
		list_move_tail(&kr->node, &done);
		xgp_rings_kept--;
		xgp_rings_freed++;
		freed++;
	}
	left = xgp_rings_kept;
	spin_unlock(&xgp_rings_lock);

	list_for_each_entry_safe(kr, tmp, &done, node) {
		free_pages_exact(kr->va, kr->nr * XEN_PAGE_SIZE);
		kfree(kr);
	}
	if (freed)
		pr_info("freed %u ring(s) after the backend unmapped them, %u left\n",
			freed, left);
	return left;
}

/**
 * xgp_ring_exit - module exit: rings still mapped are leaked on purpose
 *
 * Return: the rings leaked.
 */
unsigned int xgp_ring_exit(void)
{
	struct xgp_kept_ring *kr, *tmp;
	unsigned int n;

	xgp_ring_retry();
	spin_lock(&xgp_rings_lock);
	n = xgp_rings_kept;
	xgp_rings_leaked += n;
	xgp_rings_kept = 0;
	list_for_each_entry_safe(kr, tmp, &xgp_kept_rings, node) {
		/* the memory stays; only the record goes */
		list_del(&kr->node);
		kfree(kr);
	}
	spin_unlock(&xgp_rings_lock);
	return n;
}

/**
 * xgp_ring_stats - counters of kept rings, for debugfs
 * @kept: rings on the list now
 * @freed: rings freed after a retry
 * @leaked: rings never freed
 */
void xgp_ring_stats(unsigned int *kept, u64 *freed, u64 *leaked)
{
	spin_lock(&xgp_rings_lock);
	*kept = xgp_rings_kept;
	*freed = xgp_rings_freed;
	*leaked = xgp_rings_leaked;
	spin_unlock(&xgp_rings_lock);
}
