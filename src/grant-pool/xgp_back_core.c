// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Backend mapped-grant cache bookkeeping (pure: builds in userspace too).
 *
 * A backend keeps grants it mapped once, keyed by (domid, gref), so a
 * frontend using persistent grants costs one map per gref, not one per
 * request.  Entries in use by an in-flight request hold a reference and
 * are never purged; idle entries sit on an LRU list.  The number of
 * mapped entries has a hard cap: the guest chooses the grefs, and must
 * not be able to make this domain map unbounded memory.  A backend whose
 * frontend registers grants for good (netif ADD/DEL_GREF_MAPPING) keeps
 * the reference of each map as a pin, so the entry is never purged or
 * evicted, and ends it with a targeted unmap of those grefs.
 *
 * Grants are 4 KB, pages may be larger: each page the cache maps into
 * holds XGP_GRANTS_PER_PAGE mappings, one per 4 KB sub-page.  A miss
 * takes a free sub-page of a page already held before it allocates a
 * new page, and a page goes back to the environment when its last
 * mapping is unmapped.  A sub-page whose unmap failed may still hold the
 * foreign frame: it stays taken for good, and so does its page.
 */
#include <xen-pv-suite/xgp_core.h>

/* Entries unmapped per ->unmap call; bounds the on-stack batch. */
#define XGP_BACK_UNMAP_BATCH	32

void xgp_back_core_init(struct xgp_back_core *c, const struct xgp_back_ops *ops,
			void *priv, gfp_t gfp, u16 domid, unsigned int cap)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->ops = ops;
	c->priv = priv;
	c->gfp = gfp;
	c->domid = domid;
	c->cap = cap;
	INIT_LIST_HEAD(&c->lru);
	INIT_LIST_HEAD(&c->bpages);
	INIT_LIST_HEAD(&c->partial);
	for (i = 0; i < ARRAY_SIZE(c->hash); i++)
		INIT_HLIST_HEAD(&c->hash[i]);
}

static struct hlist_head *xgp_back_bucket(struct xgp_back_core *c, u32 gref)
{
	u32 key = (gref ^ ((u32)c->domid << 20)) * 0x9E3779B1U;

	return &c->hash[key >> (32 - XGP_BACK_HASH_BITS)];
}

static struct xgp_back_entry *xgp_back_find(struct xgp_back_core *c, u32 gref)
{
	struct xgp_back_entry *e;

	hlist_for_each_entry(e, xgp_back_bucket(c, gref), hnode)
		if (e->gref == gref && e->domid == c->domid)
			return e;
	return NULL;
}

/* Take a reference; an idle entry leaves the LRU.  Called locked. */
static void xgp_back_hold(struct xgp_back_core *c, struct xgp_back_entry *e)
{
	if (!e->refs++) {
		list_del_init(&e->lru);
		c->nr_idle--;
	}
}

/* Drop a reference; the last one makes the entry idle.  Called locked. */
static void xgp_back_release(struct xgp_back_core *c, struct xgp_back_entry *e)
{
	if (!--e->refs) {
		list_add_tail(&e->lru, &c->lru);
		c->nr_idle++;
	}
}

/* Move up to @nr idle entries, oldest first, to @victims.  Locked. */
static unsigned int xgp_back_detach_idle(struct xgp_back_core *c,
					 unsigned int nr,
					 struct list_head *victims)
{
	struct xgp_back_entry *e;
	unsigned int n = 0;

	while (n < nr && !list_empty(&c->lru)) {
		e = list_first_entry(&c->lru, struct xgp_back_entry, lru);
		list_move_tail(&e->lru, victims);
		hlist_del_init(&e->hnode);
		c->nr_idle--;
		c->nr_mapped--;
		n++;
	}
	return n;
}

/* ---------------------------------------------------------------- pages */

/* Give @e the lowest free sub-page of @bp.  Called locked. */
static void xgp_bpage_take(struct xgp_bpage *bp, struct xgp_back_entry *e)
{
	unsigned int sub = 0;

	while (bp->used & (1U << sub))
		sub++;
	bp->used |= 1U << sub;
	if (++bp->nr_used == XGP_GRANTS_PER_PAGE)
		list_del_init(&bp->partial);
	e->bpage = bp;
	e->offset = sub * XGP_GRANT_SIZE;
	e->page = bp->page;
	e->vaddr = (char *)bp->vaddr + e->offset;
}

/*
 * Take @e's sub-page back; a stuck one stays taken for good.  A page
 * left with no sub-page taken moves to @empty, to be freed unlocked.
 * Called locked.
 */
static void xgp_bpage_give(struct xgp_back_core *c, struct xgp_back_entry *e,
			   struct list_head *empty)
{
	struct xgp_bpage *bp = e->bpage;

	if (!bp)
		return;
	e->bpage = NULL;
	e->page = NULL;
	e->vaddr = NULL;
	if (e->stuck) {
		c->nr_stuck++;
		return;
	}
	bp->used &= ~(1U << (e->offset / XGP_GRANT_SIZE));
	if (!--bp->nr_used) {
		list_del_init(&bp->partial);
		list_move_tail(&bp->node, empty);
		c->nr_pages--;
	} else if (list_empty(&bp->partial)) {
		list_add_tail(&bp->partial, &c->partial);
	}
}

/* Free the pages of @list (nothing mapped in them).  Called unlocked. */
static void xgp_bpage_free_list(struct xgp_back_core *c,
				struct list_head *list)
{
	struct xgp_bpage *bp, *tmp;
	unsigned int n = 0;

	list_for_each_entry_safe(bp, tmp, list, node) {
		list_del(&bp->node);
		c->ops->page_free(c->priv, bp->page);
		kfree(bp);
		n++;
	}
	if (!n)
		return;
	c->ops->lock(c->priv);
	c->stats.page_frees += n;
	c->ops->unlock(c->priv);
}

/* Give back the sub-pages of @n entries.  Called unlocked. */
static void xgp_bpage_give_all(struct xgp_back_core *c,
			       struct xgp_back_entry **e, unsigned int n)
{
	unsigned int i;
	LIST_HEAD(empty);

	c->ops->lock(c->priv);
	for (i = 0; i < n; i++)
		xgp_bpage_give(c, e[i], &empty);
	c->ops->unlock(c->priv);
	xgp_bpage_free_list(c, &empty);
}

/*
 * Place @n fresh entries: free sub-pages of the pages held first, then
 * as few new pages as the rest need.  All or nothing.  Called unlocked;
 * may sleep (->page_alloc).  Return: 0 or -ENOMEM.
 */
static int xgp_back_place(struct xgp_back_core *c, struct xgp_back_entry **e,
			  unsigned int n)
{
	struct xgp_bpage *bp, *tmp;
	unsigned int i = 0, k, need, failures = 0;
	LIST_HEAD(fresh);

	c->ops->lock(c->priv);
	while (i < n && !list_empty(&c->partial)) {
		bp = list_first_entry(&c->partial, struct xgp_bpage, partial);
		xgp_bpage_take(bp, e[i++]);
	}
	c->ops->unlock(c->priv);
	if (i == n)
		return 0;

	need = (n - i + XGP_GRANTS_PER_PAGE - 1) / XGP_GRANTS_PER_PAGE;
	for (k = 0; k < need; k++) {
		bp = kzalloc(sizeof(*bp), c->gfp);
		if (bp && c->ops->page_alloc(c->priv, &bp->page, &bp->vaddr)) {
			kfree(bp);
			bp = NULL;
		}
		if (!bp) {
			failures++;
			break;
		}
		INIT_LIST_HEAD(&bp->partial);
		list_add_tail(&bp->node, &fresh);
	}

	c->ops->lock(c->priv);
	c->stats.page_allocs += k;
	c->stats.page_alloc_failures += failures;
	if (failures) {
		c->ops->unlock(c->priv);
		xgp_bpage_free_list(c, &fresh);
		xgp_bpage_give_all(c, e, i);
		return -ENOMEM;
	}
	list_for_each_entry_safe(bp, tmp, &fresh, node) {
		list_move_tail(&bp->node, &c->bpages);
		list_add_tail(&bp->partial, &c->partial);
		c->nr_pages++;
		while (i < n && bp->nr_used < XGP_GRANTS_PER_PAGE)
			xgp_bpage_take(bp, e[i++]);
	}
	c->ops->unlock(c->priv);
	return 0;
}

/* Unmap and free detached entries in batches.  Called unlocked. */
static void xgp_back_unmap_list(struct xgp_back_core *c,
				struct list_head *list)
{
	struct xgp_back_entry *batch[XGP_BACK_UNMAP_BATCH];
	unsigned int i, n, done = 0, failed = 0;
	LIST_HEAD(empty);

	while (!list_empty(list)) {
		n = 0;
		while (n < XGP_BACK_UNMAP_BATCH && !list_empty(list)) {
			batch[n] = list_first_entry(list, struct xgp_back_entry,
						    lru);
			list_del_init(&batch[n]->lru);
			n++;
		}
		failed += c->ops->unmap(c->priv, batch, n);
		done += n;
		c->ops->lock(c->priv);
		for (i = 0; i < n; i++)
			xgp_bpage_give(c, batch[i], &empty);
		c->ops->unlock(c->priv);
		for (i = 0; i < n; i++)
			kfree(batch[i]);
	}
	if (!done)
		return;
	xgp_bpage_free_list(c, &empty);
	c->ops->lock(c->priv);
	c->stats.unmapped += done - failed;
	c->stats.unmap_failures += failed;
	c->ops->unlock(c->priv);
}

/**
 * xgp_back_core_lookup - find a mapped grant and take a reference
 * @c: cache
 * @gref: grant reference of the cache's domain
 *
 * Return: the entry (release it with xgp_back_core_put()), or NULL.
 */
struct xgp_back_entry *xgp_back_core_lookup(struct xgp_back_core *c, u32 gref)
{
	struct xgp_back_entry *e;

	c->ops->lock(c->priv);
	e = xgp_back_find(c, gref);
	if (e) {
		xgp_back_hold(c, e);
		c->stats.hits++;
	} else {
		c->stats.misses++;
	}
	c->ops->unlock(c->priv);
	return e;
}

/**
 * xgp_back_core_put - drop a reference taken by lookup or map
 * @c: cache
 * @e: entry
 *
 * Return: 0, or -EINVAL if @e holds no reference (nothing changes).
 */
int xgp_back_core_put(struct xgp_back_core *c, struct xgp_back_entry *e)
{
	int ret = 0;

	c->ops->lock(c->priv);
	if (!e || !e->refs) {
		c->stats.bad_puts++;
		ret = -EINVAL;
	} else {
		xgp_back_release(c, e);
	}
	c->ops->unlock(c->priv);
	return ret;
}

/**
 * xgp_back_core_purge - unmap up to @nr idle entries, oldest first
 * @c: cache
 * @nr: how many; UINT_MAX for all idle entries
 *
 * Entries in use are never touched.  May sleep (->unmap).
 *
 * Return: the number of entries purged.
 */
unsigned int xgp_back_core_purge(struct xgp_back_core *c, unsigned int nr)
{
	unsigned int n;
	LIST_HEAD(victims);

	c->ops->lock(c->priv);
	n = xgp_back_detach_idle(c, nr, &victims);
	c->stats.purges += n;
	c->ops->unlock(c->priv);
	xgp_back_unmap_list(c, &victims);
	return n;
}

/*
 * Detach the idle entries of @grefs onto @victims and set each status.
 * Called locked.  Returns how many were detached.
 */
static unsigned int xgp_back_detach_grefs(struct xgp_back_core *c,
					  const u32 *grefs, unsigned int n,
					  int *status,
					  struct list_head *victims)
{
	struct xgp_back_entry *e;
	unsigned int i, done = 0;
	int st;

	for (i = 0; i < n; i++) {
		e = xgp_back_find(c, grefs[i]);
		if (!e) {
			st = -ENOENT;
		} else if (e->refs) {
			c->stats.unmap_busy++;
			st = -EBUSY;
		} else {
			list_move_tail(&e->lru, victims);
			hlist_del_init(&e->hnode);
			c->nr_idle--;
			c->nr_mapped--;
			done++;
			st = 0;
		}
		if (status)
			status[i] = st;
	}
	c->stats.unmaps += done;
	return done;
}

/**
 * xgp_back_core_unmap - unmap the idle entries of a list of grants now
 * @c: cache
 * @grefs: grant references of the cache's domain
 * @n: number of grefs, any
 * @status: NULL, or receives per gref 0 (unmapped), -ENOENT (not mapped
 *	in this cache) or -EBUSY (referenced: left mapped and unchanged)
 *
 * The list is taken in order, XGP_BACK_UNMAP_BATCH grefs per lock hold,
 * and each status tells what that gref found: a gref listed again after
 * it was unmapped gets -ENOENT (one still referenced gets -EBUSY again).
 * The entries found idle leave the cache under the lock and are
 * unmapped outside it, in batches, as a purge does; an unmap the
 * environment refuses still counts as unmapped here (its page is leaked
 * and counted in unmap_failures).  May sleep (->unmap).
 *
 * Return: the number of entries unmapped (status 0).
 */
unsigned int xgp_back_core_unmap(struct xgp_back_core *c, const u32 *grefs,
				 unsigned int n, int *status)
{
	unsigned int off, k, done = 0;
	LIST_HEAD(victims);

	if (!grefs)
		return 0;
	for (off = 0; off < n; off += k) {
		k = min(n - off, (unsigned int)XGP_BACK_UNMAP_BATCH);
		c->ops->lock(c->priv);
		done += xgp_back_detach_grefs(c, grefs + off, k,
					      status ? status + off : NULL,
					      &victims);
		c->ops->unlock(c->priv);
		xgp_back_unmap_list(c, &victims);
	}
	return done;
}

static void xgp_back_drop_all(struct xgp_back_core *c,
			      struct xgp_back_entry **out, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (out[i])
			xgp_back_release(c, out[i]);
		out[i] = NULL;
	}
}

/* Bits of the on-stack filter of xgp_back_has_dup(): 128 bytes. */
#define XGP_BACK_DUP_BITS	10

/*
 * Does @grefs name a gref twice?  A gref whose filter bit is already set
 * is compared with the grefs before it, so a list without repeats costs
 * about O(n); the worst case is O(n^2) with n <= XGP_BACK_MAX_BATCH.
 */
static bool xgp_back_has_dup(const u32 *grefs, unsigned int n)
{
	u64 seen[(1U << XGP_BACK_DUP_BITS) / 64] = { 0 };
	unsigned int i, j;
	u32 h;

	for (i = 0; i < n; i++) {
		h = (grefs[i] * 0x9E3779B1U) >> (32 - XGP_BACK_DUP_BITS);
		if (seen[h / 64] & (1ULL << (h % 64))) {
			for (j = 0; j < i; j++)
				if (grefs[j] == grefs[i])
					return true;
		}
		seen[h / 64] |= 1ULL << (h % 64);
	}
	return false;
}

/*
 * Phase 1, locked: reference the hits, count the misses and make room
 * for them under the cap, evicting idle entries onto @victims.
 * Returns the number of misses (reserved) or -errno.
 */
static int xgp_back_prepare(struct xgp_back_core *c, const u32 *grefs,
			    unsigned int n, struct xgp_back_entry **out,
			    bool readonly, struct list_head *victims)
{
	struct xgp_back_entry *e;
	unsigned int i, nmiss = 0, want;

	for (i = 0; i < n; i++) {
		e = xgp_back_find(c, grefs[i]);
		if (!e) {
			c->stats.misses++;
			nmiss++;
			continue;
		}
		if (e->readonly && !readonly) {
			/* A read-only mapping cannot serve a write. */
			xgp_back_drop_all(c, out, n);
			return -EACCES;
		}
		xgp_back_hold(c, e);
		c->stats.hits++;
		out[i] = e;
	}
	want = c->nr_mapped + c->nr_reserved + nmiss;
	if (want > c->cap) {
		if (want - c->cap > c->nr_idle) {
			c->stats.cap_rejects++;
			xgp_back_drop_all(c, out, n);
			return -ENOSPC;
		}
		c->stats.evictions += xgp_back_detach_idle(c, want - c->cap,
							   victims);
	}
	c->nr_reserved += nmiss;
	return nmiss;
}

/* Allocate metadata for the misses of a request, in request order. */
static struct xgp_back_entry **
xgp_back_alloc_fresh(struct xgp_back_core *c, const u32 *grefs, unsigned int n,
		     struct xgp_back_entry **out, unsigned int nmiss,
		     bool readonly)
{
	struct xgp_back_entry **fresh;
	unsigned int i, k = 0;

	fresh = kcalloc(nmiss, sizeof(*fresh), c->gfp);
	if (!fresh)
		return NULL;
	for (i = 0; i < n; i++) {
		if (out[i])
			continue;
		fresh[k] = kzalloc(sizeof(*fresh[k]), c->gfp);
		if (!fresh[k])
			goto fail;
		fresh[k]->gref = grefs[i];
		fresh[k]->domid = c->domid;
		fresh[k]->readonly = readonly;
		INIT_LIST_HEAD(&fresh[k]->lru);
		INIT_HLIST_NODE(&fresh[k]->hnode);
		k++;
	}
	return fresh;
fail:
	while (k--)
		kfree(fresh[k]);
	kfree(fresh);
	return NULL;
}

/*
 * Phase 3, locked: insert what mapped, reference it in @out.  A gref
 * mapped concurrently by another caller keeps the first mapping and
 * ours goes to @dups.  Failed entries give their sub-page back (pages
 * left empty go to @empty) and stay in @fresh for freeing; inserted
 * ones are cleared from it.
 */
static int xgp_back_commit(struct xgp_back_core *c, unsigned int n,
			   struct xgp_back_entry **out,
			   struct xgp_back_entry **fresh, unsigned int nmiss,
			   struct list_head *dups, struct list_head *empty)
{
	struct xgp_back_entry *e, *old;
	unsigned int i, k = 0;
	int err = 0;

	c->nr_reserved -= nmiss;
	for (i = 0; i < n; i++) {
		if (out[i])
			continue;
		e = fresh[k++];
		if (e->status) {
			c->stats.map_failures++;
			err = err ?: e->status;
			xgp_bpage_give(c, e, empty);
			continue;
		}
		fresh[k - 1] = NULL;
		old = xgp_back_find(c, e->gref);
		if (old) {
			c->stats.dup_maps++;
			xgp_back_hold(c, old);
			out[i] = old;
			list_add_tail(&e->lru, dups);
			continue;
		}
		hlist_add_head(&e->hnode, xgp_back_bucket(c, e->gref));
		e->refs = 1;
		c->nr_mapped++;
		c->stats.inserts++;
		out[i] = e;
	}
	if (err)
		xgp_back_drop_all(c, out, n);
	return err;
}

/**
 * xgp_back_core_map - look up or map a batch of grants, referencing each
 * @c: cache
 * @grefs: grant references
 * @n: number of grefs, 1 .. XGP_BACK_MAX_BATCH
 * @out: receives one referenced entry per gref
 * @readonly: the request only reads the granted memory
 *
 * Hits are served from the cache; misses are mapped in one batch.  All
 * or nothing: on error no reference is held and @out is all NULL, but
 * grants that did map stay cached (idle).  @grefs naming a gref twice
 * is refused with -EINVAL before anything is looked up or mapped, so
 * each entry in @out is distinct and holds exactly one reference of this
 * call.  May sleep.
 *
 * Return: 0, -EINVAL (bad arguments, or a gref listed twice), -EACCES
 * (write through a read-only entry),
 * -ENOSPC (cap reached with no idle entry to evict), -ENOMEM, or the
 * first map error.
 */
int xgp_back_core_map(struct xgp_back_core *c, const u32 *grefs,
		      unsigned int n, struct xgp_back_entry **out,
		      bool readonly)
{
	struct xgp_back_entry **fresh;
	unsigned int i;
	LIST_HEAD(victims);
	LIST_HEAD(dups);
	LIST_HEAD(empty);
	int nmiss, err;

	if (!grefs || !out || !n || n > XGP_BACK_MAX_BATCH)
		return -EINVAL;
	for (i = 0; i < n; i++)
		out[i] = NULL;
	if (xgp_back_has_dup(grefs, n))
		return -EINVAL;

	c->ops->lock(c->priv);
	nmiss = xgp_back_prepare(c, grefs, n, out, readonly, &victims);
	c->ops->unlock(c->priv);
	xgp_back_unmap_list(c, &victims);
	if (nmiss <= 0)
		return nmiss;

	fresh = xgp_back_alloc_fresh(c, grefs, n, out, nmiss, readonly);
	if (fresh) {
		if (!xgp_back_place(c, fresh, nmiss))
			c->ops->map(c->priv, fresh, nmiss);
		else
			for (i = 0; i < (unsigned int)nmiss; i++)
				fresh[i]->status = -ENOMEM;
	}

	c->ops->lock(c->priv);
	if (fresh) {
		err = xgp_back_commit(c, n, out, fresh, nmiss, &dups, &empty);
	} else {
		c->nr_reserved -= nmiss;
		xgp_back_drop_all(c, out, n);
		err = -ENOMEM;
	}
	c->ops->unlock(c->priv);

	xgp_bpage_free_list(c, &empty);
	xgp_back_unmap_list(c, &dups);
	if (fresh) {
		for (i = 0; i < (unsigned int)nmiss; i++)
			kfree(fresh[i]);
		kfree(fresh);
	}
	return err;
}

/**
 * xgp_back_core_stats - snapshot the counters of a cache
 * @c: cache
 * @out: filled with counters and gauges
 */
void xgp_back_core_stats(struct xgp_back_core *c, struct xgp_back_stats *out)
{
	c->ops->lock(c->priv);
	*out = c->stats;
	out->mapped = c->nr_mapped;
	out->idle = c->nr_idle;
	out->in_use = c->nr_mapped - c->nr_idle;
	out->cap = c->cap;
	out->pages = c->nr_pages;
	out->stuck = c->nr_stuck;
	c->ops->unlock(c->priv);
}

/**
 * xgp_back_core_fini - forget the pages a cache still holds
 * @c: cache, every entry unmapped (purged or unmapped by gref) before
 *
 * The pages still held are those with a stuck sub-page (their unmap
 * failed) and those of entries the caller never put: each may still
 * hold a foreign frame, so it is never freed.  Its record is freed, the
 * page itself leaked.
 *
 * Return: the number of pages leaked.
 */
unsigned int xgp_back_core_fini(struct xgp_back_core *c)
{
	struct xgp_bpage *bp, *tmp;
	unsigned int n = 0;

	list_for_each_entry_safe(bp, tmp, &c->bpages, node) {
		list_del(&bp->node);
		kfree(bp);
		n++;
	}
	INIT_LIST_HEAD(&c->partial);
	c->nr_pages = 0;
	return n;
}
