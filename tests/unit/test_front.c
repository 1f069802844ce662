// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Front pool: limits, exhaustion, bad puts, failures while growing, the
 * checked revoke with a backend that keeps grants mapped, and a long
 * randomized run (single and bulk gets and puts, zeroed gets, the gref
 * list) checked against a reference model after every step.
 */
#include "harness.h"

static struct xgp_deferred fd;
static struct xgp_front_core fc;

static void front_setup(unsigned int max_slots)
{
	ff_reset();
	xgp_deferred_init(&fd, &ff_deferred_ops, NULL);
	xgp_front_core_init(&fc, &ff_pool_ops, NULL, &fd, 1, max_slots,
			    false);
}

static bool slot_sane(const struct xgp_slot *s)
{
	const struct ff_grant *g = &ff.g[s->gref];

	return s->gref < FF_MAX_GREFS && g->granted && g->page == s->page &&
	       s->page->live && s->offset == g->sub * XGP_GRANT_SIZE &&
	       (unsigned char *)s->vaddr == s->page->mem + s->offset;
}

static bool page_deferred(const struct page *pg)
{
	struct xgp_fpage *fp;

	list_for_each_entry(fp, &fd.pages, node)
		if (fp->page == pg)
			return true;
	return false;
}

void test_front_basic(void)
{
	struct xgp_front_stats st;
	struct xgp_slot *a, *b;

	front_setup(64);
	XT_CHECK(!xgp_front_core_get(&fc), "get from an empty pool");
	XT_CHECK(xgp_front_core_grow(&fc, 1, GFP_KERNEL) == 0, "grow");
	xgp_front_core_stats(&fc, &st);
	XT_CHECK(st.pages_allocated == 1 && st.slots == XGP_GRANTS_PER_PAGE,
		 "one page of %u slots, got %llu pages %llu slots",
		 XGP_GRANTS_PER_PAGE, st.pages_allocated, st.slots);
	a = xgp_front_core_get(&fc);
	XT_CHECK(a && slot_sane(a), "first get");
	XT_CHECK(xgp_front_core_put(&fc, a) == 0, "put");
	b = xgp_front_core_get(&fc);
	XT_CHECK(b == a, "most recently put slot comes back first");
	xgp_front_core_stats(&fc, &st);
	XT_CHECK(st.reused == 1 && st.gets == 2 && st.grants_issued ==
		 XGP_GRANTS_PER_PAGE, "reuse not counted: %llu", st.reused);
	XT_CHECK(xgp_front_core_put(&fc, b) == 0, "put");
	xgp_front_core_release(&fc, &(struct xgp_release_result){ 0 });
}

void test_front_limits(void)
{
	struct xgp_slot *s[6];
	struct xgp_front_stats st;
	unsigned int i;

	/* 5 is not a multiple of the slots per page for 16K/64K pages. */
	front_setup(5);
	XT_CHECK(xgp_front_core_grow(&fc, 5, GFP_KERNEL) == 0, "grow to 5");
	XT_CHECK(xgp_front_core_grow(&fc, 6, GFP_KERNEL) == -ENOSPC,
		 "grow beyond max");
	for (i = 0; i < 5; i++) {
		s[i] = xgp_front_core_get(&fc);
		XT_CHECK(s[i] && slot_sane(s[i]), "get %u", i);
	}
	XT_CHECK(!xgp_front_core_get(&fc), "6th get must fail");
	xgp_front_core_stats(&fc, &st);
	XT_CHECK(st.slots == 5 && st.slots_held == 5 && st.get_empty == 1 &&
		 st.limit_hits == 1, "stats %llu %llu %llu %llu", st.slots,
		 st.slots_held, st.get_empty, st.limit_hits);
	XT_CHECK(ff.grants_live == 5, "%u grants, want 5", ff.grants_live);
	for (i = 0; i < 5; i++)
		XT_CHECK(!xgp_front_core_put(&fc, s[i]), "put %u", i);
	xgp_front_core_release(&fc, &(struct xgp_release_result){ 0 });
	XT_CHECK(!ff.pages_live && !ff.grants_live, "release left pages");
	front_setup(0);
	XT_CHECK(xgp_front_core_grow(&fc, 1, GFP_KERNEL) == -ENOSPC,
		 "a pool with max 0 cannot grow");
}

void test_front_bad_put(void)
{
	struct xgp_front_core other;
	struct xgp_release_result r;
	struct xgp_front_stats st;
	struct xgp_slot *s, *t;

	front_setup(8);
	xgp_front_core_init(&other, &ff_pool_ops, NULL, &fd, 1, 8, false);
	XT_CHECK(!xgp_front_core_grow(&fc, 1, GFP_KERNEL), "grow");
	XT_CHECK(!xgp_front_core_grow(&other, 1, GFP_KERNEL), "grow other");
	s = xgp_front_core_get(&fc);
	t = xgp_front_core_get(&other);
	XT_CHECK(s && t, "gets");
	XT_CHECK(xgp_front_core_put(&fc, t) == -EINVAL, "foreign put");
	XT_CHECK(xgp_front_core_put(&fc, NULL) == -EINVAL, "NULL put");
	XT_CHECK(xgp_front_core_put(&fc, s) == 0, "put");
	XT_CHECK(xgp_front_core_put(&fc, s) == -EINVAL, "double put");
	xgp_front_core_stats(&fc, &st);
	XT_CHECK(st.bad_puts == 3 && st.slots_free == st.slots,
		 "bad_puts %llu", st.bad_puts);
	XT_CHECK(!xgp_front_core_put(&other, t), "put other");
	xgp_front_core_release(&other, &r);
	xgp_front_core_release(&fc, &r);
	XT_CHECK(ff.pages_live == 0 && ff.grants_live == 0, "all ended");
}

void test_front_grow_failures(void)
{
	struct xgp_front_stats st;
	struct xgp_release_result r;
	u32 first;

	front_setup(64);
	ff.fail_next_alloc = true;
	XT_CHECK(xgp_front_core_grow(&fc, 1, GFP_KERNEL) == -ENOMEM,
		 "page allocation failure");
	xgp_shim_fail_alloc_in = 1;
	XT_CHECK(xgp_front_core_grow(&fc, 1, GFP_KERNEL) == -ENOMEM,
		 "metadata allocation failure");
	xgp_front_core_stats(&fc, &st);
	XT_CHECK(st.alloc_failures == 2 && !st.slots && !ff.pages_live,
		 "nothing may be left after allocation failures");

	/* Grant failure on the second chunk: the first is ended again. */
	if (XGP_GRANTS_PER_PAGE > 1) {
		ff.fail_grant_in = 2;
		XT_CHECK(xgp_front_core_grow(&fc, 2, GFP_KERNEL) == -ENOSPC,
			 "grant failure");
		XT_CHECK(!ff.pages_live && !ff.grants_live,
			 "half granted page not cleaned up");
		/* Same, but the backend guessed and mapped the first gref. */
		first = ff.nr_free_grefs ? ff.free_grefs[ff.nr_free_grefs - 1]
					 : ff.next_gref;
		ff.map_on_grant = first + 1;
		ff.fail_grant_in = 2;
		XT_CHECK(xgp_front_core_grow(&fc, 2, GFP_KERNEL) == -ENOSPC,
			 "grant failure, mapped");
		XT_CHECK(ff.pages_live == 1 && fd.nr_pages == 1,
			 "page with a mapped grant must be deferred");
		ff.map_on_grant = 0;
		XT_CHECK(xgp_deferred_retry(&fd) == 1, "freed while mapped");
		ff.g[first].mapped = false;
		XT_CHECK(xgp_deferred_retry(&fd) == 0, "retry");
		XT_CHECK(!ff.pages_live && !ff.grants_live, "freed after unmap");
	}
	xgp_front_core_stats(&fc, &st);
	XT_CHECK(!st.slots, "no slots after failures");
	XT_CHECK(xgp_front_core_grow(&fc, 1, GFP_KERNEL) == 0, "grow works");
	xgp_front_core_release(&fc, &r);
	XT_CHECK(!ff.pages_live, "released");
	XT_CHECK(xgp_front_core_grow(&fc, 1, GFP_KERNEL) == -ESHUTDOWN,
		 "grow after release");
	XT_CHECK(!xgp_front_core_get(&fc), "get after release");
}

void test_front_revoke_busy(void)
{
	struct xgp_slot *s[3 * XGP_GRANTS_PER_PAGE];
	unsigned int i, n = ARRAY_SIZE(s);
	struct xgp_release_result r;
	struct xgp_front_stats st;
	struct page *busy_page;

	front_setup(n);
	XT_CHECK(!xgp_front_core_grow(&fc, n, GFP_KERNEL), "grow");
	for (i = 0; i < n; i++)
		XT_CHECK((s[i] = xgp_front_core_get(&fc)), "get %u", i);
	/* The backend keeps one grant of one page mapped. */
	ff.g[s[1]->gref].mapped = true;
	busy_page = s[1]->page;
	for (i = 0; i < n; i++)
		xgp_front_core_put(&fc, s[i]);
	xgp_front_core_release(&fc, &r);
	XT_CHECK(r.busy == 1 && r.revoked == n - 1 && r.deferred_pages == 1 &&
		 !r.held, "release: revoked %u busy %u deferred %u held %u",
		 r.revoked, r.busy, r.deferred_pages, r.held);
	XT_CHECK(busy_page->live && ff.pages_live == 1, "busy page freed");
	xgp_front_core_stats(&fc, &st);
	XT_CHECK(st.flagged && st.revoke_busy == 1 && st.pages_freed == 2,
		 "stats after release");
	XT_CHECK(xgp_deferred_retry(&fd) == 1 && busy_page->live,
		 "freed while still mapped");
	ff.g[s[1]->gref].mapped = false;
	XT_CHECK(xgp_deferred_retry(&fd) == 0, "retry after unmap");
	XT_CHECK(!busy_page->live && !ff.pages_live && !ff.grants_live,
		 "not freed after unmap");
	XT_CHECK(fd.freed == 1, "deferred freed %llu", fd.freed);
}

void test_front_leak(void)
{
	struct xgp_release_result r;
	struct xgp_slot *s;

	front_setup(8);
	XT_CHECK(!xgp_front_core_grow(&fc, 1, GFP_KERNEL), "grow");
	s = xgp_front_core_get(&fc);
	XT_CHECK(s, "get");
	ff.g[s->gref].mapped = true;
	/* Destroyed while held: counted, and still never freed while mapped */
	xgp_front_core_release(&fc, &r);
	XT_CHECK(r.held == 1 && r.busy == 1, "held %u busy %u", r.held, r.busy);
	XT_CHECK(xgp_deferred_leak(&fd) == 1 && fd.leaked == 1, "leak count");
	XT_CHECK(ff.pages_live == 1, "a leaked page must not be freed");
}

/* ---- randomized run against a model ---- */

#define FR_MAX	48

struct front_model {
	struct xgp_slot *held[FR_MAX];
	u32 tag[FR_MAX];
	unsigned int nr_held;
	unsigned int granted;
	unsigned int free;
	unsigned int max;
};

static struct front_model m;

static void fr_new_pool(void)
{
	m.max = 1 + xt_below(FR_MAX);
	m.nr_held = 0;
	m.granted = 0;
	m.free = 0;
	xgp_front_core_init(&fc, &ff_pool_ops, NULL, &fd, 1, m.max, false);
}

static void fr_get(void)
{
	struct xgp_slot *s = xgp_front_core_get(&fc);
	unsigned int i;

	if (!m.free) {
		XT_CHECK(!s, "get succeeded with nothing free");
		return;
	}
	XT_CHECK(s && slot_sane(s), "get failed or bad slot");
	XT_CHECK(!page_deferred(s->page), "deferred page handed out");
	for (i = 0; i < m.nr_held; i++)
		XT_CHECK(m.held[i] != s, "slot handed out twice");
	m.tag[m.nr_held] = (u32)xt_rand();
	memcpy(s->vaddr, &m.tag[m.nr_held], 4);
	memcpy((char *)s->vaddr + XGP_GRANT_SIZE - 4, &m.tag[m.nr_held], 4);
	m.held[m.nr_held++] = s;
	m.free--;
}

static void fr_put(bool twice)
{
	unsigned int i = xt_below(m.nr_held);
	struct xgp_slot *s;

	if (!m.nr_held)
		return;
	s = m.held[i];
	XT_CHECK(!memcmp(s->vaddr, &m.tag[i], 4) &&
		 !memcmp((char *)s->vaddr + XGP_GRANT_SIZE - 4, &m.tag[i], 4),
		 "slot data clobbered while held");
	XT_CHECK(xgp_front_core_put(&fc, s) == 0, "put");
	m.held[i] = m.held[--m.nr_held];
	m.tag[i] = m.tag[m.nr_held];
	m.free++;
	if (twice)
		XT_CHECK(xgp_front_core_put(&fc, s) == -EINVAL, "double put");
}

/* Bulk get, all or nothing, sometimes zeroed; then the grefs listed. */
static void fr_get_bulk(void)
{
	struct xgp_slot *s[FR_MAX];
	unsigned int n = 1 + xt_below(8), i, j, got;
	bool zero = xt_below(2);
	u32 grefs[FR_MAX];

	if (m.nr_held + n > FR_MAX)
		return;
	for (i = 0; i < n; i++)
		s[i] = NULL;
	got = xgp_front_core_get_bulk(&fc, s, n, zero);
	if (m.free < n) {
		XT_CHECK(!got && !s[0], "bulk get of %u with %u free", n,
			 m.free);
		return;
	}
	XT_CHECK(got == n, "bulk get of %u with %u free: %u", n, m.free, got);
	for (i = 0; i < n; i++) {
		XT_CHECK(slot_sane(s[i]), "bulk slot %u", i);
		XT_CHECK(!page_deferred(s[i]->page), "deferred page handed out");
		for (j = 0; j < m.nr_held; j++)
			XT_CHECK(m.held[j] != s[i], "slot handed out twice");
		for (j = 0; j < i; j++)
			XT_CHECK(s[j] != s[i], "slot twice in one bulk get");
		if (zero) {
			unsigned char *b = s[i]->vaddr;

			for (j = 0; j < XGP_GRANT_SIZE; j++)
				XT_CHECK(!b[j], "zeroed slot has byte %u set", j);
		}
		m.tag[m.nr_held] = (u32)xt_rand();
		memcpy(s[i]->vaddr, &m.tag[m.nr_held], 4);
		memcpy((char *)s[i]->vaddr + XGP_GRANT_SIZE - 4,
		       &m.tag[m.nr_held], 4);
		m.held[m.nr_held++] = s[i];
		m.free--;
	}
	/* every granted slot listed once, held ones among them */
	XT_CHECK(xgp_front_core_grefs(&fc, grefs, FR_MAX) == m.granted,
		 "grefs of %u slots", m.granted);
	for (i = 0; i < m.nr_held; i++) {
		for (j = 0; j < m.granted; j++)
			if (grefs[j] == m.held[i]->gref)
				break;
		XT_CHECK(j < m.granted, "held slot's gref not listed");
	}
}

/* Bulk put of a random run of held slots, with a bad one now and then. */
static void fr_put_bulk(void)
{
	struct xgp_slot *s[FR_MAX + 1], bogus;
	unsigned int n, i, want_bad = 0;

	if (!m.nr_held)
		return;
	n = 1 + xt_below(m.nr_held);
	for (i = 0; i < n; i++) {
		unsigned int k = m.nr_held - 1 - i;

		XT_CHECK(!memcmp(m.held[k]->vaddr, &m.tag[k], 4),
			 "slot data clobbered while held");
		s[i] = m.held[k];
	}
	if (!xt_below(4)) {
		memset(&bogus, 0, sizeof(bogus));
		s[n++] = xt_below(2) ? NULL : &bogus;
		want_bad = 1;
	}
	XT_CHECK(xgp_front_core_put_bulk(&fc, s, n) == want_bad,
		 "bulk put refused count");
	m.nr_held -= n - want_bad;
	m.free += n - want_bad;
}

static void fr_grow(void)
{
	unsigned int want = xt_below(m.max + 4);
	bool fail = !xt_below(8);
	int ret, expect = 0;

	ff.fail_next_alloc = fail;
	ret = xgp_front_core_grow(&fc, want, GFP_KERNEL);
	/* Model: whole pages (or what is left under max) until enough. */
	while (m.free < want) {
		unsigned int k = min(XGP_GRANTS_PER_PAGE, m.max - m.granted);

		if (!k) {
			expect = -ENOSPC;
			break;
		}
		if (fail) {
			expect = -ENOMEM;
			break;
		}
		m.granted += k;
		m.free += k;
	}
	ff.fail_next_alloc = false;
	XT_CHECK(ret == expect, "grow(%u) = %d, want %d", want, ret, expect);
}

static void fr_release(void)
{
	struct xgp_release_result r;
	unsigned int i, mapped = 0;
	u32 gref;

	/* The backend keeps some of the pool's grants mapped. */
	for (i = 0; i < m.nr_held; i++) {
		gref = m.held[i]->gref;
		if (!xt_below(3) && !ff.g[gref].mapped) {
			ff.g[gref].mapped = true;
			mapped++;
		}
	}
	xgp_front_core_release(&fc, &r);
	XT_CHECK(r.busy == mapped && r.revoked + r.busy == m.granted &&
		 r.held == m.nr_held, "release: busy %u/%u revoked %u held %u",
		 r.busy, mapped, r.revoked, r.held);
	fr_new_pool();
}

/* The backend lets go of a random mapped grant. */
static void fr_unmap(void)
{
	unsigned int i, start = xt_below(FF_MAX_GREFS);

	for (i = 0; i < 256; i++) {
		struct ff_grant *g = &ff.g[(start + i) % FF_MAX_GREFS];

		if (g->mapped) {
			g->mapped = false;
			return;
		}
	}
}

static void fr_check(void)
{
	struct xgp_front_stats st;
	struct xgp_fpage *fp;
	unsigned int i, busy = 0, pb;

	XT_BAIL();
	list_for_each_entry(fp, &fd.pages, node) {
		XT_CHECK(fp->page->live, "deferred page freed");
		pb = 0;
		for (i = 0; i < XGP_GRANTS_PER_PAGE; i++) {
			if (fp->slot[i].state != XGP_SLOT_BUSY)
				continue;
			XT_CHECK(ff.g[fp->slot[i].gref].granted,
				 "busy grant not granted");
			pb++;
		}
		XT_CHECK(pb, "deferred page without busy grant");
		busy += pb;
	}
	xgp_front_core_stats(&fc, &st);
	XT_CHECK(st.slots == m.granted && st.slots_free == m.free &&
		 st.slots_held == m.nr_held, "pool %llu/%llu/%llu model %u/%u/%u",
		 st.slots, st.slots_free, st.slots_held, m.granted, m.free,
		 m.nr_held);
	XT_CHECK(ff.pages_live == fc.nr_pages + fd.nr_pages,
		 "live pages %u, pool %u + deferred %u", ff.pages_live,
		 fc.nr_pages, fd.nr_pages);
	XT_CHECK(ff.grants_live == m.granted + busy,
		 "live grants %u, want %u", ff.grants_live, m.granted + busy);
}

/* Retry; afterwards every deferred page must still be mapped. */
static void fr_retry(void)
{
	struct xgp_fpage *fp;
	unsigned int i;
	bool mapped;

	xgp_deferred_retry(&fd);
	list_for_each_entry(fp, &fd.pages, node) {
		mapped = false;
		for (i = 0; i < XGP_GRANTS_PER_PAGE; i++)
			mapped |= fp->slot[i].state == XGP_SLOT_BUSY &&
				  ff.g[fp->slot[i].gref].mapped;
		XT_CHECK(mapped, "retry kept a page nobody maps");
	}
}

void test_front_random(void)
{
	unsigned int step, op, steps = 20000;

	front_setup(1);
	memset(&m, 0, sizeof(m));
	fr_new_pool();
	for (step = 0; step < steps; step++) {
		op = xt_below(100);
		if (op < 28)
			fr_get();
		else if (op < 35)
			fr_get_bulk();
		else if (op < 58)
			fr_put(op < 38);
		else if (op < 65)
			fr_put_bulk();
		else if (op < 80)
			fr_grow();
		else if (op < 82)
			fr_release();
		else if (op < 90)
			fr_unmap();
		else
			fr_retry();
		fr_check();
		if (xt_failed) {
			printf("# front_random failed at step %u\n", step);
			return;
		}
	}
	/* Drain: the backend unmaps everything, the pool is released. */
	while (m.nr_held)
		fr_put(false);
	fr_release();
	for (op = 0; op < FF_MAX_GREFS; op++)
		ff.g[op].mapped = false;
	XT_CHECK(xgp_deferred_retry(&fd) == 0, "deferred pages left");
	xgp_front_core_release(&fc, &(struct xgp_release_result){ 0 });
	XT_CHECK(!ff.pages_live && !ff.grants_live, "%u pages %u grants left",
		 ff.pages_live, ff.grants_live);
}
