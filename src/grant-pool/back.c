// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Backend mapped-grant cache: the exported API around the pure core in
 * xgp_back_core.c, and the grant map/unmap hypercall batches.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <xen/grant_table.h>
#include <xen/interface/xen.h>
#include "internal.h"

/* Unmap ops per hypercall; small enough for the stack. */
#define XGP_UNMAP_CHUNK	16

static void xgp_cache_lock(void *priv)
	__acquires(priv)
{
	xgp_irqlock_acquire(&((struct xgp_back_cache *)priv)->lock);
}

static void xgp_cache_unlock(void *priv)
	__releases(priv)
{
	xgp_irqlock_release(&((struct xgp_back_cache *)priv)->lock);
}

static void *xgp_kaddr(struct page *page)
{
	return pfn_to_kaddr(page_to_pfn(page));
}

static int xgp_page_alloc(void *priv, struct page **page, void **vaddr)
{
	if (gnttab_alloc_pages(1, page))
		return -ENOMEM;
	*vaddr = xgp_kaddr(*page);
	return 0;
}

static void xgp_page_free(void *priv, struct page *page)
{
	gnttab_free_pages(1, &page);
}

/*
 * Unmap up to XGP_UNMAP_CHUNK entries.  One whose unmap failed may still
 * hold the foreign frame: it is marked stuck, its sub-page never reused.
 */
static unsigned int xgp_unmap_chunk(struct xgp_back_cache *cache,
				    struct xgp_back_entry **e, unsigned int n)
{
	struct gnttab_unmap_grant_ref unmap[XGP_UNMAP_CHUNK];
	struct page *pages[XGP_UNMAP_CHUNK];
	struct gntab_unmap_queue_data data = {
		.unmap_ops = unmap,
		.kunmap_ops = NULL,
		.pages = pages,
		.count = n,
	};
	unsigned int i, failed = 0;
	int ret;

	for (i = 0; i < n; i++) {
		gnttab_set_unmap_op(&unmap[i], (unsigned long)e[i]->vaddr,
				    GNTMAP_host_map, e[i]->handle);
		pages[i] = e[i]->page;
	}
	/* Waits for in-flight users of the pages (e.g. network skbs). */
	ret = gnttab_unmap_refs_sync(&data);
	for (i = 0; i < n; i++) {
		if (!ret && unmap[i].status == GNTST_okay)
			continue;
		pr_err("cache %s: unmap of gref %u from domain %u failed (%d/%d), leaking its page\n",
		       cache->name, e[i]->gref, e[i]->domid, ret,
		       unmap[i].status);
		e[i]->stuck = true;
		failed++;
	}
	return failed;
}

static unsigned int xgp_unmap(void *priv, struct xgp_back_entry **e,
			      unsigned int n)
{
	unsigned int done, failed = 0;

	for (done = 0; done < n; done += XGP_UNMAP_CHUNK)
		failed += xgp_unmap_chunk(priv, e + done,
					  min(n - done, XGP_UNMAP_CHUNK));
	return failed;
}

static void xgp_map_fail_all(struct xgp_back_entry **e, unsigned int n,
			     int err)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		e[i]->status = err;
}

/*
 * Collect the status of each op.  An entry that did map although the
 * batch as a whole failed is unmapped again right away.
 */
static void xgp_map_collect(struct xgp_back_cache *cache,
			    struct xgp_back_entry **e,
			    struct gnttab_map_grant_ref *ops,
			    unsigned int n, int ret)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		e[i]->handle = ops[i].handle;
		e[i]->status = 0;
		if (!ret && ops[i].status == GNTST_okay)
			continue;
		pr_err_ratelimited("cache %s: map of gref %u from domain %u failed (%d/%d)\n",
				   cache->name, e[i]->gref, e[i]->domid, ret,
				   ops[i].status);
		if (ops[i].status == GNTST_okay)
			xgp_unmap_chunk(cache, &e[i], 1);
		e[i]->status = -EIO;
	}
}

/*
 * Map each entry at the sub-page the core gave it (e->vaddr).  Where a
 * page holds several mappings, the foreign-page mark gnttab_map_refs()
 * sets and gnttab_unmap_refs() clears describes one of them at best:
 * nothing may read it, so the cache's pages never leave it (its users
 * copy through ->vaddr; no skb or bio points into them).
 */
static void xgp_map(void *priv, struct xgp_back_entry **e, unsigned int n)
{
	struct xgp_back_cache *cache = priv;
	struct gnttab_map_grant_ref *ops;
	struct page **pages;
	unsigned int i;
	u32 flags;
	int ret;

	ops = kcalloc(n, sizeof(*ops), GFP_NOIO);
	pages = kcalloc(n, sizeof(*pages), GFP_NOIO);
	if (!ops || !pages) {
		xgp_map_fail_all(e, n, -ENOMEM);
		goto out;
	}
	for (i = 0; i < n; i++) {
		flags = GNTMAP_host_map;
		if (e[i]->readonly)
			flags |= GNTMAP_readonly;
		gnttab_set_map_op(&ops[i], (unsigned long)e[i]->vaddr, flags,
				  e[i]->gref, e[i]->domid);
		/*
		 * Xen writes the status of every op it processes.  One it
		 * never reached (the batch failed early) must not look
		 * mapped: kcalloc's zero is GNTST_okay.
		 */
		ops[i].status = GNTST_general_error;
		pages[i] = e[i]->page;
	}
	ret = gnttab_map_refs(ops, NULL, pages, n);
	xgp_map_collect(cache, e, ops, n, ret);
out:
	kfree(pages);
	kfree(ops);
}

static const struct xgp_back_ops xgp_back_kops = {
	.lock = xgp_cache_lock,
	.unlock = xgp_cache_unlock,
	.page_alloc = xgp_page_alloc,
	.page_free = xgp_page_free,
	.map = xgp_map,
	.unmap = xgp_unmap,
};

/**
 * xgp_back_cache_create - create a mapped-grant cache for one device
 * @name: unique name, also the debugfs directory (< XGP_NAME_LEN, no '/')
 * @domid: frontend domain whose grants are mapped
 * @cap: hard upper bound of mapped entries; 0 for the module default
 *
 * May sleep.  Return: the cache, or ERR_PTR(-EINVAL, -EEXIST, -ENOMEM).
 */
struct xgp_back_cache *xgp_back_cache_create(const char *name, domid_t domid,
					     unsigned int cap)
{
	struct xgp_back_cache *cache;
	int err;

	might_sleep();
	if (!xgp_valid_name(name) || domid >= DOMID_FIRST_RESERVED)
		return ERR_PTR(-EINVAL);
	if (!cap)
		cap = max(READ_ONCE(xgp_back_cap), 1U);

	cache = kzalloc(sizeof(*cache), GFP_KERNEL);
	if (!cache)
		return ERR_PTR(-ENOMEM);
	xgp_irqlock_init(&cache->lock);
	strscpy(cache->name, name, sizeof(cache->name));
	xgp_back_core_init(&cache->core, &xgp_back_kops, cache, GFP_NOIO,
			   domid, cap);
	err = xgp_register_cache(cache);
	if (err) {
		kfree(cache);
		return ERR_PTR(err);
	}
	return cache;
}
EXPORT_SYMBOL_GPL(xgp_back_cache_create);

/**
 * xgp_back_cache_release - unmap everything and free the cache
 * @cache: cache
 *
 * Return: the number of entries unmapped.
 */
unsigned int xgp_back_cache_release(struct xgp_back_cache *cache)
{
	struct xgp_back_stats st;
	unsigned int n, leaked;

	xgp_unregister_cache(cache);
	n = xgp_back_core_purge(&cache->core, UINT_MAX);
	xgp_back_core_stats(&cache->core, &st);
	/* In flight means the page may be under I/O: never unmap it here. */
	if (st.in_use)
		pr_err("cache %s: destroyed with %llu entries still in use, leaking their mappings\n",
		       cache->name, st.in_use);
	leaked = xgp_back_core_fini(&cache->core);
	if (leaked)
		pr_err("cache %s: destroyed holding %u page(s) that may still map a grant, leaking them\n",
		       cache->name, leaked);
	kfree(cache);
	return n;
}

/**
 * xgp_back_cache_destroy - unmap all entries and free the cache
 * @cache: cache (NULL or an ERR_PTR is ignored); every entry must be put
 *
 * May sleep.
 */
void xgp_back_cache_destroy(struct xgp_back_cache *cache)
{
	if (IS_ERR_OR_NULL(cache))
		return;
	xgp_back_cache_release(cache);
}
EXPORT_SYMBOL_GPL(xgp_back_cache_destroy);

/**
 * xgp_back_lookup - find a mapped grant and take a reference
 * @cache: cache
 * @gref: grant reference of the cache's frontend domain
 *
 * Any context.  Return: the entry, or NULL on a miss.
 */
struct xgp_back_entry *xgp_back_lookup(struct xgp_back_cache *cache,
				       grant_ref_t gref)
{
	return xgp_back_core_lookup(&cache->core, gref);
}
EXPORT_SYMBOL_GPL(xgp_back_lookup);

/**
 * xgp_back_map - get referenced mappings of a batch of grants
 * @cache: cache
 * @grefs: grant references of the frontend domain
 * @n: number of grefs, 1 .. XGP_BACK_MAX_BATCH
 * @out: receives one entry per gref; its 4 KB are at ->vaddr (->page at
 *	->offset).  The page may hold other grants' mappings: copy through
 *	->vaddr, never hand ->page to the network or block layer
 * @readonly: the request only reads the granted memory
 *
 * Cached grants are reused, the others are mapped in one batch.  If the
 * cap would be exceeded, least recently used idle entries are unmapped
 * first; in-use entries never are, so a reference kept as a pin keeps
 * its entry mapped until it is put.  All or nothing: on error no
 * reference is held and @out is all NULL.  @grefs must not name a gref
 * twice: such a call is refused with -EINVAL, nothing looked up or
 * mapped, so the @out entries of a successful call are all distinct,
 * each with one reference of its own.  A gref already cached (mapped by
 * an earlier call, or concurrently) is a hit: the same entry, one more
 * reference.  May sleep (process context).
 *
 * Return: 0, -EINVAL (bad arguments or a gref listed twice), -EACCES
 * (write through a read-only mapping),
 * -ENOSPC (cap reached by in-use entries), -ENOMEM or -EIO.
 */
int xgp_back_map(struct xgp_back_cache *cache, const grant_ref_t *grefs,
		 unsigned int n, struct xgp_back_entry **out, bool readonly)
{
	might_sleep();
	return xgp_back_core_map(&cache->core, grefs, n, out, readonly);
}
EXPORT_SYMBOL_GPL(xgp_back_map);

/**
 * xgp_back_put - drop a reference taken by lookup or map
 * @cache: cache the entry belongs to
 * @entry: entry
 *
 * Any context.  The entry stays mapped and becomes purgeable when idle.
 */
void xgp_back_put(struct xgp_back_cache *cache, struct xgp_back_entry *entry)
{
	if (xgp_back_core_put(&cache->core, entry))
		pr_err_ratelimited("cache %s: refused put of an entry without references\n",
				   cache->name);
}
EXPORT_SYMBOL_GPL(xgp_back_put);

/**
 * xgp_back_unmap_grefs - unmap listed grants now, unless in use
 * @cache: cache
 * @grefs: grant references of the frontend domain
 * @n: number of grefs; any number (the list is walked in small batches)
 * @status: NULL, or one int per gref: 0 (unmapped), -ENOENT (not mapped
 *	in this cache) or -EBUSY (it still has references: left mapped and
 *	unchanged, still found by lookup)
 *
 * For a backend that pins persistent grants (netif ADD/DEL_GREF_MAPPING):
 * it keeps the reference xgp_back_map() gave it for as long as the
 * frontend's registration lasts, so the entry is never purged or
 * evicted; to end one it drops that pin with xgp_back_put() and then
 * unmaps the gref here.  -EBUSY then means another user (the data path)
 * holds a transient reference at that instant; retry later.
 *
 * The list is taken in order and each status tells what that gref found:
 * a gref listed again after it was unmapped gets -ENOENT (one that is
 * still referenced gets -EBUSY again).  The unmaps go to the hypervisor
 * in batches.  An unmap the hypervisor refuses is logged, its page
 * leaked (never reused) and counted in unmap_failures; the entry has
 * left the cache all the same and its status is 0.  May sleep.
 *
 * Return: the number of grefs unmapped (status 0).
 */
unsigned int xgp_back_unmap_grefs(struct xgp_back_cache *cache,
				  const grant_ref_t *grefs, unsigned int n,
				  int *status)
{
	might_sleep();
	return xgp_back_core_unmap(&cache->core, grefs, n, status);
}
EXPORT_SYMBOL_GPL(xgp_back_unmap_grefs);

/**
 * xgp_back_purge - unmap idle entries, least recently used first
 * @cache: cache
 * @nr: how many at most; 0 for the purge_batch module parameter
 *
 * May sleep.  Return: the number of entries unmapped.
 */
unsigned int xgp_back_purge(struct xgp_back_cache *cache, unsigned int nr)
{
	might_sleep();
	if (!nr)
		nr = READ_ONCE(xgp_purge_batch);
	return xgp_back_core_purge(&cache->core, nr);
}
EXPORT_SYMBOL_GPL(xgp_back_purge);

/**
 * xgp_back_cache_stats - snapshot a cache's statistics
 * @cache: cache
 * @out: counters and gauges
 */
void xgp_back_cache_stats(struct xgp_back_cache *cache,
			  struct xgp_back_stats *out)
{
	xgp_back_core_stats(&cache->core, out);
}
EXPORT_SYMBOL_GPL(xgp_back_cache_stats);
