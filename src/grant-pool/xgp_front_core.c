// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Persistent grant pool bookkeeping (pure: builds in userspace too).
 *
 * Pages are granted to one backend once, in whole pages of
 * XGP_GRANTS_PER_PAGE 4 KB slots, on a sleepable grow path.  Gets and puts
 * only move slots on a free list, so they are cheap and never allocate.
 * On release every grant is ended with a checked revoke: a page whose
 * grants the backend still maps is never freed or reused, it goes to the
 * deferred list and is retried until the backend lets go.
 */
#include <xen-pv-suite/xgp_core.h>

void xgp_deferred_init(struct xgp_deferred *d, const struct xgp_front_ops *ops,
		       void *priv)
{
	memset(d, 0, sizeof(*d));
	d->ops = ops;
	d->priv = priv;
	INIT_LIST_HEAD(&d->pages);
}

/*
 * End every grant of @fp not ended yet.  Returns the number of grants
 * the remote side still maps; *revoked counts the ones ended now.
 */
static unsigned int xgp_fpage_end(const struct xgp_front_ops *ops, void *priv,
				  struct xgp_fpage *fp, unsigned int *revoked)
{
	unsigned int i, busy = 0;

	for (i = 0; i < XGP_GRANTS_PER_PAGE; i++) {
		struct xgp_slot *s = &fp->slot[i];

		if (s->state == XGP_SLOT_UNUSED || s->state == XGP_SLOT_ENDED)
			continue;
		if (ops->try_end(priv, s->gref)) {
			s->state = XGP_SLOT_ENDED;
			(*revoked)++;
		} else {
			s->state = XGP_SLOT_BUSY;
			busy++;
		}
	}
	fp->nr_busy = busy;
	return busy;
}

/*
 * Retire a page detached from its pool: free it if every grant could be
 * ended, else park it on the deferred list.  Returns the busy grants.
 */
static unsigned int xgp_fpage_retire(struct xgp_deferred *d,
				     struct xgp_fpage *fp,
				     unsigned int *revoked)
{
	unsigned int busy = xgp_fpage_end(d->ops, d->priv, fp, revoked);

	if (!busy) {
		d->ops->page_free(d->priv, fp->page);
		kfree(fp);
		return 0;
	}
	d->ops->lock(d->priv);
	list_add_tail(&fp->node, &d->pages);
	d->nr_pages++;
	d->ops->unlock(d->priv);
	return busy;
}

/**
 * xgp_deferred_retry - retry ending the grants of deferred pages
 * @d: deferred list
 *
 * Pages whose grants have all been ended are freed.  Only one caller at
 * a time (the retry worker); additions may run concurrently.
 *
 * Return: the number of pages still deferred.
 */
unsigned int xgp_deferred_retry(struct xgp_deferred *d)
{
	struct xgp_fpage *fp, *tmp;
	unsigned int revoked = 0, freed = 0, left;
	LIST_HEAD(work);

	d->ops->lock(d->priv);
	list_splice_init(&d->pages, &work);
	d->ops->unlock(d->priv);

	list_for_each_entry_safe(fp, tmp, &work, node) {
		if (xgp_fpage_end(d->ops, d->priv, fp, &revoked))
			continue;
		list_del(&fp->node);
		d->ops->page_free(d->priv, fp->page);
		kfree(fp);
		freed++;
	}

	d->ops->lock(d->priv);
	list_splice_tail(&work, &d->pages);
	d->nr_pages -= freed;
	d->freed += freed;
	left = d->nr_pages;
	d->ops->unlock(d->priv);
	return left;
}

/**
 * xgp_deferred_leak - give up on all deferred pages
 * @d: deferred list
 *
 * Used at module unload: the pages are still mapped by another domain,
 * so they are deliberately never freed.  Only the metadata is released.
 *
 * Return: the number of pages leaked.
 */
unsigned int xgp_deferred_leak(struct xgp_deferred *d)
{
	struct xgp_fpage *fp, *tmp;
	unsigned int n;
	LIST_HEAD(work);

	d->ops->lock(d->priv);
	list_splice_init(&d->pages, &work);
	n = d->nr_pages;
	d->nr_pages = 0;
	d->leaked += n;
	d->ops->unlock(d->priv);

	list_for_each_entry_safe(fp, tmp, &work, node) {
		list_del(&fp->node);
		kfree(fp);
	}
	return n;
}

void xgp_front_core_init(struct xgp_front_core *c,
			 const struct xgp_front_ops *ops, void *priv,
			 struct xgp_deferred *deferred, u16 domid,
			 unsigned int max_slots, bool readonly)
{
	memset(c, 0, sizeof(*c));
	c->ops = ops;
	c->priv = priv;
	c->deferred = deferred;
	c->domid = domid;
	c->max_slots = max_slots;
	c->readonly = readonly;
	INIT_LIST_HEAD(&c->free);
	INIT_LIST_HEAD(&c->pages);
}

static void xgp_front_count(struct xgp_front_core *c, u64 *counter)
{
	c->ops->lock(c->priv);
	(*counter)++;
	c->ops->unlock(c->priv);
}

/* Grant the first @n chunks of @fp; on failure undo.  Called unlocked. */
static int xgp_fpage_grant(struct xgp_front_core *c, struct xgp_fpage *fp,
			   unsigned int n)
{
	unsigned int i, revoked = 0;
	int ref;

	for (i = 0; i < n; i++) {
		struct xgp_slot *s = &fp->slot[i];

		ref = c->ops->grant(c->priv, c->domid, fp->page, i,
				    c->readonly);
		if (ref < 0)
			goto undo;
		s->gref = ref;
		s->offset = i * XGP_GRANT_SIZE;
		s->page = fp->page;
		s->vaddr = (char *)fp->vaddr + s->offset;
		s->owner = fp;
		s->state = XGP_SLOT_FREE;
		fp->nr_granted++;
	}
	return 0;

undo:
	xgp_front_count(c, &c->stats.grant_failures);
	/*
	 * The grefs never left this function, but a hostile backend can map
	 * any gref granted to it, so even these need a checked revoke.
	 */
	xgp_fpage_retire(c->deferred, fp, &revoked);
	return ref;
}

/* Allocate and grant one page with @n slots.  Called unlocked. */
static struct xgp_fpage *xgp_fpage_build(struct xgp_front_core *c,
					 unsigned int n, gfp_t gfp, int *err)
{
	struct xgp_fpage *fp;

	fp = kzalloc(sizeof(*fp), gfp);
	if (!fp) {
		*err = -ENOMEM;
		goto fail;
	}
	*err = c->ops->page_alloc(c->priv, gfp, &fp->page, &fp->vaddr);
	if (*err) {
		kfree(fp);
		goto fail;
	}
	fp->core = c;
	*err = xgp_fpage_grant(c, fp, n);
	return *err ? NULL : fp;

fail:
	xgp_front_count(c, &c->stats.alloc_failures);
	return NULL;
}

/* Publish a freshly granted page's slots.  Called locked. */
static void xgp_fpage_add(struct xgp_front_core *c, struct xgp_fpage *fp)
{
	unsigned int i;

	list_add_tail(&fp->node, &c->pages);
	c->nr_pages++;
	for (i = 0; i < fp->nr_granted; i++)
		list_add_tail(&fp->slot[i].node, &c->free);
	c->nr_slots += fp->nr_granted;
	c->nr_free += fp->nr_granted;
	c->stats.grants_issued += fp->nr_granted;
	c->stats.pages_allocated++;
}

/*
 * Reserve room for one more page.  Called locked.  Returns the number of
 * slots reserved, 0 if nothing is needed, or -errno.
 */
static int xgp_front_reserve(struct xgp_front_core *c, unsigned int nr_free)
{
	unsigned int room;

	if (c->dead)
		return -ESHUTDOWN;
	if (c->nr_free + c->nr_pending >= nr_free)
		return 0;
	room = c->max_slots - c->nr_slots - c->nr_pending;
	if (!room) {
		c->stats.limit_hits++;
		return -ENOSPC;
	}
	room = min(room, XGP_GRANTS_PER_PAGE);
	c->nr_pending += room;
	return room;
}

/**
 * xgp_front_core_grow - grant pages until @nr_free slots are free
 * @c: pool
 * @nr_free: wanted number of free slots
 * @gfp: allocation flags; the ops may sleep if they allow it
 *
 * Return: 0 on success, -ENOSPC if the pool's slot limit is reached
 * first, -ENOMEM or the grant error, -ESHUTDOWN after release.
 */
int xgp_front_core_grow(struct xgp_front_core *c, unsigned int nr_free,
			gfp_t gfp)
{
	struct xgp_fpage *fp;
	unsigned int revoked = 0;
	int n, err;

	for (;;) {
		c->ops->lock(c->priv);
		n = xgp_front_reserve(c, nr_free);
		c->ops->unlock(c->priv);
		if (n <= 0)
			return n;

		fp = xgp_fpage_build(c, n, gfp, &err);

		c->ops->lock(c->priv);
		c->nr_pending -= n;
		if (fp && !c->dead) {
			xgp_fpage_add(c, fp);
			fp = NULL;
		} else if (fp) {
			err = -ESHUTDOWN;
		}
		c->ops->unlock(c->priv);
		if (fp)
			xgp_fpage_retire(c->deferred, fp, &revoked);
		if (err)
			return err;
	}
}

/**
 * xgp_front_core_get - take a free slot
 * @c: pool
 *
 * Never allocates.  Return: a slot, or NULL if none is free.
 */
struct xgp_slot *xgp_front_core_get(struct xgp_front_core *c)
{
	struct xgp_slot *s;

	return xgp_front_core_get_bulk(c, &s, 1, false) ? s : NULL;
}

/**
 * xgp_front_core_put - give a slot back
 * @c: pool the slot was taken from
 * @slot: slot
 *
 * Return: 0, or -EINVAL if @slot is not held from @c (nothing changes).
 */
int xgp_front_core_put(struct xgp_front_core *c, struct xgp_slot *slot)
{
	return xgp_front_core_put_bulk(c, &slot, 1) ? -EINVAL : 0;
}

/**
 * xgp_front_core_get_bulk - take @n free slots, all or none
 * @c: pool
 * @slots: filled with @n slots
 * @n: slots wanted
 * @zero: clear each slot's 4 KB (after the lock is dropped)
 *
 * One lock round trip for the lot.  Never allocates.
 *
 * Return: @n, or 0 if fewer than @n are free (nothing taken).
 */
unsigned int xgp_front_core_get_bulk(struct xgp_front_core *c,
				     struct xgp_slot **slots, unsigned int n,
				     bool zero)
{
	unsigned int i;

	c->ops->lock(c->priv);
	if (c->dead || c->nr_free < n) {
		c->stats.get_empty++;
		c->ops->unlock(c->priv);
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct xgp_slot *s = list_first_entry(&c->free,
						      struct xgp_slot, node);

		list_del_init(&s->node);
		s->state = XGP_SLOT_HELD;
		if (s->used)
			c->stats.reused++;
		s->used = true;
		slots[i] = s;
	}
	c->nr_free -= n;
	c->stats.gets += n;
	c->ops->unlock(c->priv);
	for (i = 0; zero && i < n; i++)
		memset(slots[i]->vaddr, 0, XGP_GRANT_SIZE);
	return n;
}

/**
 * xgp_front_core_put_bulk - give @n slots back
 * @c: pool the slots were taken from
 * @slots: the slots (each entry is left as it is)
 * @n: how many
 *
 * Return: how many were refused (not held from @c); the others are back.
 */
unsigned int xgp_front_core_put_bulk(struct xgp_front_core *c,
				     struct xgp_slot **slots, unsigned int n)
{
	unsigned int i, bad = 0;

	c->ops->lock(c->priv);
	for (i = 0; i < n; i++) {
		struct xgp_slot *s = slots[i];

		if (!s || s->state != XGP_SLOT_HELD || !s->owner ||
		    s->owner->core != c) {
			bad++;
			continue;
		}
		s->state = XGP_SLOT_FREE;
		/* Most recently used first: its data is still warm. */
		list_add(&s->node, &c->free);
		c->nr_free++;
		c->stats.puts++;
	}
	c->stats.bad_puts += bad;
	c->ops->unlock(c->priv);
	return bad;
}

/**
 * xgp_front_core_grefs - the grant references of every slot of a pool
 * @c: pool
 * @grefs: filled with up to @max references, page by page, slot by slot
 * @max: room in @grefs
 *
 * Free and held slots alike: what a backend must map to use the pool
 * persistently (netif's XEN_NETIF_CTRL_TYPE_ADD_GREF_MAPPING lists them).
 *
 * Return: the number of slots (which may exceed @max: then only @max
 * were written).
 */
unsigned int xgp_front_core_grefs(struct xgp_front_core *c, u32 *grefs,
				  unsigned int max)
{
	struct xgp_fpage *fp;
	unsigned int i, n = 0;

	c->ops->lock(c->priv);
	list_for_each_entry(fp, &c->pages, node) {
		for (i = 0; i < XGP_GRANTS_PER_PAGE; i++) {
			const struct xgp_slot *s = &fp->slot[i];

			if (s->state != XGP_SLOT_FREE &&
			    s->state != XGP_SLOT_HELD)
				continue;
			if (n < max)
				grefs[n] = s->gref;
			n++;
		}
	}
	c->ops->unlock(c->priv);
	return n;
}

static unsigned int xgp_fpage_held(struct xgp_fpage *fp)
{
	unsigned int i, held = 0;

	for (i = 0; i < XGP_GRANTS_PER_PAGE; i++)
		held += fp->slot[i].state == XGP_SLOT_HELD;
	return held;
}

/**
 * xgp_front_core_release - revoke all grants of a pool (checked)
 * @c: pool; no get, put or grow may follow
 * @res: outcome
 *
 * Pages whose grants are all ended are freed; the others go to the
 * deferred list and @c is flagged.
 */
void xgp_front_core_release(struct xgp_front_core *c,
			    struct xgp_release_result *res)
{
	struct xgp_fpage *fp, *tmp;
	unsigned int busy, freed = 0;
	LIST_HEAD(work);

	memset(res, 0, sizeof(*res));
	c->ops->lock(c->priv);
	c->dead = true;
	list_splice_init(&c->pages, &work);
	INIT_LIST_HEAD(&c->free);
	c->nr_free = 0;
	c->nr_slots = 0;
	c->nr_pages = 0;
	c->ops->unlock(c->priv);

	list_for_each_entry_safe(fp, tmp, &work, node) {
		list_del(&fp->node);
		res->held += xgp_fpage_held(fp);
		busy = xgp_fpage_retire(c->deferred, fp, &res->revoked);
		res->busy += busy;
		if (busy)
			res->deferred_pages++;
		else
			freed++;
	}

	c->ops->lock(c->priv);
	c->stats.revoked += res->revoked;
	c->stats.revoke_busy += res->busy;
	c->stats.deferred_pages += res->deferred_pages;
	c->stats.pages_freed += freed;
	if (res->busy)
		c->flagged = true;
	c->ops->unlock(c->priv);
}

/**
 * xgp_front_core_stats - snapshot the counters of a pool
 * @c: pool
 * @out: filled with counters and gauges
 */
void xgp_front_core_stats(struct xgp_front_core *c,
			  struct xgp_front_stats *out)
{
	c->ops->lock(c->priv);
	*out = c->stats;
	out->slots = c->nr_slots;
	out->slots_free = c->nr_free;
	out->slots_held = c->nr_slots - c->nr_free;
	out->max_slots = c->max_slots;
	out->pages_live = c->nr_pages;
	out->flagged = c->flagged;
	c->ops->unlock(c->priv);
}
