// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Test fakes.  They check the core's contract on every call: ops are
 * never called with a lock held, a page is never freed while a grant
 * points into it, a grant is never ended twice, an entry in use is never
 * unmapped.
 */
#include "harness.h"

/* ------------------------------------------------------------ front */

struct fake_front ff;

static void ff_assert_unlocked(const char *op)
{
	XT_EXPECT(!ff.pool_locked && !ff.deferred_locked,
		  "%s called with a lock held", op);
}

static void ff_pool_lock(void *priv)
{
	XT_EXPECT(!ff.pool_locked, "pool lock taken recursively");
	ff.pool_locked = true;
}

static void ff_pool_unlock(void *priv)
{
	XT_EXPECT(ff.pool_locked, "pool unlock without lock");
	ff.pool_locked = false;
}

static void ff_def_lock(void *priv)
{
	XT_EXPECT(!ff.deferred_locked, "deferred lock taken recursively");
	ff.deferred_locked = true;
}

static void ff_def_unlock(void *priv)
{
	XT_EXPECT(ff.deferred_locked, "deferred unlock without lock");
	ff.deferred_locked = false;
}

static int ff_page_alloc(void *priv, gfp_t gfp, struct page **page,
			 void **vaddr)
{
	struct page *pg;

	ff_assert_unlocked("page_alloc");
	if (ff.fail_next_alloc) {
		ff.fail_next_alloc = false;
		return -ENOMEM;
	}
	pg = calloc(1, sizeof(*pg));
	pg->mem = calloc(1, XGP_PAGE_SIZE);
	pg->live = true;
	ff.all = realloc(ff.all, (ff.nr_all + 1) * sizeof(*ff.all));
	ff.all[ff.nr_all++] = pg;
	ff.pages_live++;
	*page = pg;
	*vaddr = pg->mem;
	return 0;
}

static void ff_page_free(void *priv, struct page *page)
{
	ff_assert_unlocked("page_free");
	XT_EXPECT(page->live, "page freed twice");
	XT_EXPECT(!page->grants, "page freed with %u grant(s) not ended",
		  page->grants);
	/* Keep the memory: a later use of a dead page is detected. */
	page->live = false;
	ff.pages_live--;
}

static int ff_grant(void *priv, u16 domid, struct page *page,
		    unsigned int sub, bool readonly)
{
	u32 ref;

	ff_assert_unlocked("grant");
	XT_EXPECT(page->live, "granting a freed page");
	XT_EXPECT(sub < XGP_GRANTS_PER_PAGE, "grant of sub-page %u", sub);
	if (ff.fail_grant_in > 0 && !--ff.fail_grant_in)
		return -ENOSPC;
	/* Like gnttab: ended references are reused, most recent first. */
	if (ff.nr_free_grefs)
		ref = ff.free_grefs[--ff.nr_free_grefs];
	else if (ff.next_gref < FF_MAX_GREFS)
		ref = ff.next_gref++;
	else
		return -ENOSPC;
	ff.g[ref] = (struct ff_grant){ .granted = true, .page = page,
				       .sub = sub,
				       .mapped = ff.map_on_grant == ref + 1 };
	page->grants++;
	ff.grants_live++;
	return ref;
}

static bool ff_try_end(void *priv, u32 gref)
{
	struct ff_grant *g = &ff.g[gref];

	ff_assert_unlocked("try_end");
	if (gref >= FF_MAX_GREFS || !g->granted) {
		xt_fail(__FILE__, __LINE__, "ending gref %u not granted", gref);
		return false;
	}
	if (g->mapped)
		return false;
	g->granted = false;
	g->page->grants--;
	ff.grants_live--;
	ff.free_grefs[ff.nr_free_grefs++] = gref;
	return true;
}

const struct xgp_front_ops ff_pool_ops = {
	.lock = ff_pool_lock,
	.unlock = ff_pool_unlock,
	.page_alloc = ff_page_alloc,
	.page_free = ff_page_free,
	.grant = ff_grant,
	.try_end = ff_try_end,
};

const struct xgp_front_ops ff_deferred_ops = {
	.lock = ff_def_lock,
	.unlock = ff_def_unlock,
	.page_alloc = ff_page_alloc,
	.page_free = ff_page_free,
	.grant = ff_grant,
	.try_end = ff_try_end,
};

void ff_teardown(void)
{
	unsigned int i;

	for (i = 0; i < ff.nr_all; i++) {
		free(ff.all[i]->mem);
		free(ff.all[i]);
	}
	free(ff.all);
	ff.all = NULL;
	ff.nr_all = 0;
}

void ff_reset(void)
{
	ff_teardown();
	memset(&ff, 0, sizeof(ff));
	ff.next_gref = FF_FIRST_GREF;
}

/* ------------------------------------------------------------- back */

struct fake_back fb;

static void fb_lock(void *priv)
{
	XT_EXPECT(!fb.locked, "cache lock taken recursively");
	fb.locked = true;
}

static void fb_unlock(void *priv)
{
	XT_EXPECT(fb.locked, "cache unlock without lock");
	fb.locked = false;
}

static int fb_page_alloc(void *priv, struct page **page, void **vaddr)
{
	struct page *pg;

	XT_EXPECT(!fb.locked, "page_alloc called with the lock held");
	if (fb.page_fail_in && !--fb.page_fail_in)
		return -ENOMEM;
	pg = calloc(1, sizeof(*pg));
	pg->mem = calloc(1, XGP_PAGE_SIZE);
	pg->live = true;
	fb.all = realloc(fb.all, (fb.nr_all + 1) * sizeof(*fb.all));
	fb.all[fb.nr_all++] = pg;
	fb.pages_live++;
	fb.pages_max = max(fb.pages_max, fb.pages_live);
	*page = pg;
	*vaddr = pg->mem;
	return 0;
}

static void fb_page_free(void *priv, struct page *page)
{
	XT_EXPECT(!fb.locked, "page_free called with the lock held");
	XT_EXPECT(page->live, "page freed twice");
	XT_EXPECT(!page->grants && !page->subs,
		  "page freed with %u grant(s) mapped in it (subs %#x)",
		  page->grants, page->subs);
	/* Free the memory: ASan reports a later use of a dead page. */
	free(page->mem);
	page->mem = NULL;
	page->live = false;
	fb.pages_live--;
}

/* The sub-page the core gave @e: checked, then its bit. */
static u32 fb_sub_bit(struct xgp_back_entry *e)
{
	struct page *pg = e->page;

	XT_EXPECT(pg && pg->live, "gref %u placed in a dead page", e->gref);
	XT_EXPECT(e->offset % XGP_GRANT_SIZE == 0 &&
		  e->offset < XGP_PAGE_SIZE, "gref %u at offset %u", e->gref,
		  e->offset);
	XT_EXPECT(e->vaddr == pg->mem + e->offset,
		  "gref %u: vaddr is not page + offset", e->gref);
	return 1U << (e->offset / XGP_GRANT_SIZE);
}

static void fb_map(void *priv, struct xgp_back_entry **e, unsigned int n)
{
	unsigned int i;
	u32 bit;

	XT_EXPECT(!fb.locked, "map called with the lock held");
	XT_EXPECT(n && n <= XGP_BACK_MAX_BATCH, "map batch of %u", n);
	fb.map_calls++;
	for (i = 0; i < n; i++) {
		u32 g = e[i]->gref;

		XT_EXPECT(g < FB_MAX_GREFS, "map of gref %u", g);
		bit = fb_sub_bit(e[i]);
		XT_EXPECT(!(e[i]->page->subs & bit),
			  "gref %u mapped over a sub-page in use", g);
		if (g >= FB_MAX_GREFS || fb.fail[g]) {
			e[i]->status = -EIO;
			if (g < FB_MAX_GREFS && fb.stuck_on_fail[g]) {
				/* mapped, and the undo failed too */
				e[i]->stuck = true;
				e[i]->page->subs |= bit;
				e[i]->page->grants++;
				fb.stuck++;
			}
			continue;
		}
		e[i]->page->subs |= bit;
		e[i]->page->grants++;
		xgp_pattern_fill(e[i]->vaddr, g);
		e[i]->handle = ++fb.next_handle;
		e[i]->status = 0;
		fb.mapped[g]++;
		fb.maps_live++;
	}
}

static unsigned int fb_unmap(void *priv, struct xgp_back_entry **e,
			     unsigned int n)
{
	unsigned int i, failed = 0;
	u32 bit;

	XT_EXPECT(!fb.locked, "unmap called with the lock held");
	XT_EXPECT(n, "unmap batch of 0");
	fb.unmap_calls++;
	fb.unmap_max = max(fb.unmap_max, n);
	for (i = 0; i < n; i++) {
		u32 g = e[i]->gref;

		if (fb.nr_unmap_log < FB_MAX_GREFS)
			fb.unmap_log[fb.nr_unmap_log++] = g;
		XT_EXPECT(!e[i]->refs, "unmapping gref %u in use (%u refs)",
			  g, e[i]->refs);
		XT_EXPECT(!e[i]->hnode.pprev, "unmapping gref %u still hashed",
			  g);
		XT_EXPECT(fb.mapped[g], "unmapping gref %u not mapped", g);
		bit = fb_sub_bit(e[i]);
		XT_EXPECT(e[i]->page->subs & bit,
			  "unmapping gref %u: its sub-page holds no mapping", g);
		XT_EXPECT(xgp_pattern_check(e[i]->vaddr, g) < 0,
			  "mapping of gref %u corrupted", g);
		fb.mapped[g]--;
		fb.maps_live--;
		if (fb.unmap_fail_in && !--fb.unmap_fail_in) {
			/* the foreign frame stays in the sub-page */
			e[i]->stuck = true;
			fb.stuck++;
			failed++;
			continue;
		}
		memset(e[i]->vaddr, 0, XGP_GRANT_SIZE);
		e[i]->page->subs &= ~bit;
		e[i]->page->grants--;
	}
	return failed;
}

const struct xgp_back_ops fb_ops = {
	.lock = fb_lock,
	.unlock = fb_unlock,
	.page_alloc = fb_page_alloc,
	.page_free = fb_page_free,
	.map = fb_map,
	.unmap = fb_unmap,
};

void fb_teardown(void)
{
	unsigned int i;

	for (i = 0; i < fb.nr_all; i++) {
		free(fb.all[i]->mem);
		free(fb.all[i]);
	}
	free(fb.all);
	fb.all = NULL;
	fb.nr_all = 0;
}

void fb_reset(void)
{
	fb_teardown();
	memset(&fb, 0, sizeof(fb));
}
