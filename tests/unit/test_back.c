// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Backend cache: hits and misses, the hard cap, LRU purge order, in-use
 * entries never purged, map failures, a gref listed twice in one map,
 * pinned entries under cap pressure, targeted unmaps, and a randomized
 * run checked against a reference model after every step.
 */
#include "harness.h"

static struct xgp_back_core bc;

static void back_setup(unsigned int cap)
{
	fb_reset();
	xgp_back_core_init(&bc, &fb_ops, NULL, GFP_KERNEL, 3, cap);
}

static struct xgp_back_entry *map1(u32 gref, bool ro, int *err)
{
	struct xgp_back_entry *e = NULL;

	*err = xgp_back_core_map(&bc, &gref, 1, &e, ro);
	return e;
}

/*
 * Every live page holds a mapping or a stuck sub-page (an empty page is
 * freed at once), the cache counts the pages the fake allocated, and no
 * more pages than the mappings need, one partial page aside.
 */
static void fb_check_pages(void)
{
	struct xgp_back_stats st;
	unsigned int i, k, subs = 0;

	for (i = 0; i < fb.nr_all; i++) {
		if (!fb.all[i]->live)
			continue;
		XT_EXPECT(fb.all[i]->subs, "an empty page is kept");
		for (k = 0; k < XGP_GRANTS_PER_PAGE; k++)
			subs += !!(fb.all[i]->subs & (1U << k));
	}
	XT_EXPECT(subs == fb.maps_live + fb.stuck,
		  "%u sub-pages in use for %u mappings and %u stuck", subs,
		  fb.maps_live, fb.stuck);
	xgp_back_core_stats(&bc, &st);
	XT_EXPECT(st.pages == fb.pages_live && st.stuck == fb.stuck,
		  "cache counts %llu pages %llu stuck, fake %u %u", st.pages,
		  st.stuck, fb.pages_live, fb.stuck);
	XT_EXPECT(st.page_allocs - st.page_frees == st.pages,
		  "allocs %llu frees %llu pages %llu", st.page_allocs,
		  st.page_frees, st.pages);
}

/* Unmap everything; only pages with a stuck sub-page may be left. */
static void back_drain(void)
{
	unsigned int i, stuck_pages = 0, leaked;

	xgp_back_core_purge(&bc, UINT_MAX);
	XT_EXPECT(!fb.maps_live, "%u mappings left", fb.maps_live);
	fb_check_pages();
	for (i = 0; i < fb.nr_all; i++)
		stuck_pages += fb.all[i]->live;
	leaked = xgp_back_core_fini(&bc);
	XT_EXPECT(leaked == stuck_pages, "fini leaked %u pages, %u are stuck",
		  leaked, stuck_pages);
}

void test_back_basic(void)
{
	const u32 g[3] = { 1, 2, 3 };
	struct xgp_back_entry *e[3], *h;
	struct xgp_back_stats st;
	unsigned int i;

	back_setup(16);
	XT_CHECK(!xgp_back_core_lookup(&bc, 2), "lookup in an empty cache");
	XT_CHECK(!xgp_back_core_map(&bc, g, 3, e, false), "map");
	for (i = 0; i < 3; i++)
		XT_CHECK(e[i] && e[i]->gref == g[i] &&
			 xgp_pattern_check(e[i]->vaddr, g[i]) < 0, "entry %u", i);
	h = xgp_back_core_lookup(&bc, 2);
	XT_CHECK(h == e[1] && h->refs == 2, "hit");
	xgp_back_core_stats(&bc, &st);
	XT_CHECK(st.hits == 1 && st.misses == 4 && st.inserts == 3 &&
		 st.mapped == 3 && st.in_use == 3 && st.idle == 0,
		 "stats h%llu m%llu i%llu", st.hits, st.misses, st.inserts);
	XT_CHECK(!xgp_back_core_put(&bc, h), "put");
	for (i = 0; i < 3; i++)
		XT_CHECK(!xgp_back_core_put(&bc, e[i]), "put %u", i);
	XT_CHECK(xgp_back_core_put(&bc, e[0]) == -EINVAL, "put without ref");
	xgp_back_core_stats(&bc, &st);
	XT_CHECK(st.idle == 3 && st.bad_puts == 1, "idle %llu", st.idle);
	XT_CHECK(!xgp_back_core_map(&bc, g, 3, e, false), "map again");
	XT_CHECK(fb.maps_live == 3, "hits must not map again");
	for (i = 0; i < 3; i++)
		xgp_back_core_put(&bc, e[i]);
	back_drain();
}

void test_back_cap(void)
{
	struct xgp_back_entry *e[5];
	struct xgp_back_stats st;
	unsigned int i;
	int err;

	back_setup(4);
	for (i = 0; i < 4; i++)
		XT_CHECK((e[i] = map1(10 + i, false, &err)), "map %u", i);
	XT_CHECK(!map1(20, false, &err) && err == -ENOSPC,
		 "cap exceeded with everything in use: %d", err);
	xgp_back_core_stats(&bc, &st);
	XT_CHECK(st.cap_rejects == 1 && fb.maps_live == 4 && st.mapped == 4,
		 "after reject");
	/* A batch larger than the cap can never fit. */
	xgp_back_core_put(&bc, e[2]);
	xgp_back_core_put(&bc, e[0]);
	e[4] = map1(20, false, &err);
	XT_CHECK(e[4], "map with an idle entry to evict: %d", err);
	XT_CHECK(!fb.mapped[12] && fb.mapped[10], "LRU victim must be 12");
	xgp_back_core_stats(&bc, &st);
	XT_CHECK(st.evictions == 1 && st.mapped == 4 && fb.maps_live == 4,
		 "evictions %llu", st.evictions);
	xgp_back_core_put(&bc, e[1]);
	xgp_back_core_put(&bc, e[3]);
	xgp_back_core_put(&bc, e[4]);
	back_drain();
}

void test_back_lru_purge(void)
{
	const u32 order[5] = { 3, 1, 5, 2, 4 };
	struct xgp_back_entry *e[6], *h;
	unsigned int i;
	int err;

	back_setup(10);
	for (i = 1; i <= 5; i++)
		XT_CHECK((e[i] = map1(i, false, &err)), "map %u", i);
	for (i = 0; i < 5; i++)
		xgp_back_core_put(&bc, e[order[i]]);
	/* LRU now 3 1 5 2 4; a hit moves 1 to the young end. */
	h = xgp_back_core_lookup(&bc, 1);
	XT_CHECK(h, "hit");
	xgp_back_core_put(&bc, h);
	/* Hold 5: purge all but one must skip it. */
	h = xgp_back_core_lookup(&bc, 5);
	XT_CHECK(xgp_back_core_purge(&bc, 2) == 2, "purge 2");
	XT_CHECK(!fb.mapped[3] && !fb.mapped[2] && fb.mapped[5] &&
		 fb.mapped[4] && fb.mapped[1], "purge order 3 2, held 5 kept");
	XT_CHECK(xgp_back_core_purge(&bc, UINT_MAX) == 2, "purge the rest");
	XT_CHECK(fb.mapped[5] && fb.maps_live == 1, "in-use entry purged");
	xgp_back_core_put(&bc, h);
	back_drain();
}

void test_back_failures(void)
{
	const u32 g[4] = { 5, 6, 7, 8 };
	struct xgp_back_entry *e[4], *x;
	struct xgp_back_stats st;
	unsigned int i;
	int err;

	back_setup(8);
	fb.fail[7] = true;
	XT_CHECK(xgp_back_core_map(&bc, g, 4, e, false) == -EIO, "map error");
	for (i = 0; i < 4; i++)
		XT_CHECK(!e[i], "out[%u] set after failure", i);
	xgp_back_core_stats(&bc, &st);
	XT_CHECK(st.map_failures == 1 && st.mapped == 3 && st.idle == 3 &&
		 fb.maps_live == 3, "after a failed batch");
	fb.fail[7] = false;

	/* Read-only mappings cannot serve writes. */
	x = map1(30, true, &err);
	XT_CHECK(x, "read-only map");
	xgp_back_core_put(&bc, x);
	XT_CHECK(!map1(30, false, &err) && err == -EACCES, "write via ro");
	XT_CHECK((x = map1(30, true, &err)), "read via ro");
	xgp_back_core_put(&bc, x);

	/* Metadata allocation failure undoes the reservation. */
	xgp_shim_fail_alloc_in = 1;
	XT_CHECK(!map1(40, false, &err) && err == -ENOMEM, "nomem: %d", err);
	XT_CHECK(bc.nr_reserved == 0, "reservation leaked");
	xgp_shim_fail_alloc_in = 2;
	XT_CHECK(!map1(40, false, &err) && err == -ENOMEM, "nomem 2: %d", err);

	XT_CHECK(xgp_back_core_map(&bc, g, 0, e, false) == -EINVAL, "n 0");
	XT_CHECK(xgp_back_core_map(&bc, g, XGP_BACK_MAX_BATCH + 1, e, false) ==
		 -EINVAL, "n too big");
	fb.unmap_fail_in = 1;
	back_drain();
	xgp_back_core_stats(&bc, &st);
	XT_CHECK(st.unmap_failures == 1, "unmap failure not counted");
}

/* A gref named twice in one map call: -EINVAL, nothing looked up or mapped. */
void test_back_dup_map(void)
{
	static u32 big[XGP_BACK_MAX_BATCH];
	static struct xgp_back_entry *out[XGP_BACK_MAX_BATCH];
	const u32 d[2] = { 50, 50 }, h[3] = { 60, 61, 60 };
	struct xgp_back_entry *e[3], *x;
	struct xgp_back_stats before, after;
	unsigned int i;
	int err;

	back_setup(2 * XGP_BACK_MAX_BATCH);
	e[0] = (void *)&bc;	/* must be cleared on error */
	e[1] = e[0];
	XT_CHECK(xgp_back_core_map(&bc, d, 2, e, false) == -EINVAL,
		 "duplicate miss accepted");
	XT_CHECK(!e[0] && !e[1], "out not cleared");
	XT_CHECK(!fb.map_calls && !fb.mapped[50] && !bc.nr_mapped,
		 "a refused batch mapped something");

	/* A cached gref twice: refused, no reference taken. */
	XT_CHECK((x = map1(60, false, &err)), "map 60");
	xgp_back_core_put(&bc, x);
	xgp_back_core_stats(&bc, &before);
	XT_CHECK(xgp_back_core_map(&bc, h, 3, e, false) == -EINVAL,
		 "duplicate hit accepted");
	xgp_back_core_stats(&bc, &after);
	XT_CHECK(!x->refs && after.idle == 1 && !fb.mapped[61] &&
		 after.hits == before.hits && after.misses == before.misses,
		 "refused batch changed the cache");

	/* The filter: the same gref first and last of a full batch ... */
	for (i = 0; i < XGP_BACK_MAX_BATCH; i++)
		big[i] = 100 + i;
	big[XGP_BACK_MAX_BATCH - 1] = big[0];
	XT_CHECK(xgp_back_core_map(&bc, big, XGP_BACK_MAX_BATCH, out, true) ==
		 -EINVAL, "far duplicate accepted");
	/* ... and a full batch of distinct grefs, many sharing filter bits. */
	for (i = 0; i < XGP_BACK_MAX_BATCH; i++)
		big[i] = 100 + 3 * i;
	XT_CHECK(!xgp_back_core_map(&bc, big, XGP_BACK_MAX_BATCH, out, true),
		 "distinct batch refused");
	for (i = 0; i < XGP_BACK_MAX_BATCH; i++) {
		XT_CHECK(out[i] && out[i]->gref == big[i] && out[i]->refs == 1,
			 "entry %u", i);
		xgp_back_core_put(&bc, out[i]);
	}
	back_drain();
}

/*
 * Pins: references a backend keeps while a frontend's registration lasts.
 * Cap pressure and purges never touch them; ending one is put + unmap.
 */
void test_back_pinned(void)
{
	const u32 pins[3] = { 7, 8, 9 };
	struct xgp_back_entry *p[3], *x;
	struct xgp_back_stats st;
	u32 handle[3];
	unsigned int i, round;
	int err, status;

	back_setup(4);
	XT_CHECK(!xgp_back_core_map(&bc, pins, 3, p, true), "pin");
	for (i = 0; i < 3; i++)
		handle[i] = p[i]->handle;
	for (round = 0; round < 200; round++) {
		x = map1(100 + round, false, &err);
		XT_CHECK(x, "round %u: %d", round, err);
		xgp_back_core_put(&bc, x);
		if (round % 7 == 0)
			xgp_back_core_purge(&bc, UINT_MAX);
	}
	xgp_back_core_purge(&bc, UINT_MAX);
	xgp_back_core_stats(&bc, &st);
	XT_CHECK(st.evictions >= 150 && st.mapped == 3 && st.in_use == 3 &&
		 fb.maps_live == 3, "evictions %llu mapped %llu",
		 st.evictions, st.mapped);
	for (i = 0; i < 3; i++) {
		x = xgp_back_core_lookup(&bc, pins[i]);
		XT_CHECK(x == p[i] && fb.mapped[pins[i]] == 1 &&
			 x->handle == handle[i] &&
			 xgp_pattern_check(x->vaddr, pins[i]) < 0,
			 "pin %u lost or remapped", pins[i]);
		xgp_back_core_put(&bc, x);
	}
	/* The cap full of pins and one in-flight entry: nothing to evict. */
	XT_CHECK((x = map1(500, false, &err)), "last free place");
	XT_CHECK(!map1(501, false, &err) && err == -ENOSPC, "over the cap");
	xgp_back_core_put(&bc, x);

	/* A pin cannot be unmapped; put first, then it can. */
	XT_CHECK(xgp_back_core_unmap(&bc, &pins[0], 1, &status) == 0 &&
		 status == -EBUSY && fb.mapped[7] == 1, "pinned unmapped");
	xgp_back_core_put(&bc, p[0]);
	XT_CHECK(xgp_back_core_unmap(&bc, &pins[0], 1, &status) == 1 &&
		 !status && !fb.mapped[7], "unpinned not unmapped");
	xgp_back_core_put(&bc, p[1]);
	xgp_back_core_put(&bc, p[2]);
	back_drain();
}

void test_back_unmap(void)
{
	const u32 g[5] = { 1, 2, 3, 4, 5 }, del[6] = { 2, 4, 9, 2, 3, 4 };
	const int want[6] = { 0, -EBUSY, -ENOENT, -ENOENT, 0, -EBUSY };
	struct xgp_back_entry *e[5], *x;
	struct xgp_back_stats st;
	int status[6], err;
	unsigned int i;
	u32 one;

	back_setup(16);
	XT_CHECK(!xgp_back_core_map(&bc, g, 5, e, false), "map");
	/* 1, 2, 3 idle (LRU 3 1 2); 4 and 5 in use. */
	xgp_back_core_put(&bc, e[2]);
	xgp_back_core_put(&bc, e[0]);
	xgp_back_core_put(&bc, e[1]);
	for (i = 0; i < 6; i++)
		status[i] = 12345;
	XT_CHECK(xgp_back_core_unmap(&bc, del, 6, status) == 2, "unmapped");
	for (i = 0; i < 6; i++)
		XT_CHECK(status[i] == want[i], "status[%u] = %d, want %d",
			 i, status[i], want[i]);
	/* ->unmap saw exactly 2 and 3, in list order, in one batch. */
	XT_CHECK(fb.unmap_calls == 1 && fb.nr_unmap_log == 2 &&
		 fb.unmap_log[0] == 2 && fb.unmap_log[1] == 3,
		 "unmap calls %u, entries %u", fb.unmap_calls, fb.nr_unmap_log);
	XT_CHECK(!fb.mapped[2] && !fb.mapped[3] && fb.mapped[1] &&
		 fb.mapped[4] && fb.mapped[5] && !fb.locked, "fake state");
	xgp_back_core_stats(&bc, &st);
	XT_CHECK(st.unmaps == 2 && st.unmap_busy == 2 && st.unmapped == 2 &&
		 !st.unmap_failures && !st.purges && st.mapped == 3 &&
		 st.idle == 1 && st.in_use == 2,
		 "unmaps %llu busy %llu unmapped %llu mapped %llu idle %llu",
		 st.unmaps, st.unmap_busy, st.unmapped, st.mapped, st.idle);

	/* The busy entry is intact: same entry, same mapping, found. */
	x = xgp_back_core_lookup(&bc, 4);
	XT_CHECK(x == e[3] && x->refs == 2 &&
		 xgp_pattern_check(x->vaddr, 4) < 0, "busy entry changed");
	xgp_back_core_put(&bc, x);
	XT_CHECK(!xgp_back_core_lookup(&bc, 2) && !xgp_back_core_lookup(&bc, 3),
		 "unmapped entry still found");

	/* The LRU holds only 1 now: a purge takes it and nothing else. */
	XT_CHECK(xgp_back_core_purge(&bc, UINT_MAX) == 1 && !fb.mapped[1] &&
		 fb.maps_live == 2, "purge after unmap");

	/* Unknown grefs only, and n 0: no ->unmap call at all. */
	fb.unmap_calls = 0;
	one = 77;
	XT_CHECK(xgp_back_core_unmap(&bc, &one, 1, status) == 0 &&
		 status[0] == -ENOENT, "unknown gref");
	XT_CHECK(xgp_back_core_unmap(&bc, g, 0, status) == 0, "n 0");
	XT_CHECK(xgp_back_core_unmap(&bc, NULL, 3, status) == 0, "no list");
	XT_CHECK(!fb.unmap_calls, "->unmap called for nothing");

	/* The backend's DEL: put the pin, then unmap; status may be NULL. */
	xgp_back_core_put(&bc, e[3]);
	one = 4;
	XT_CHECK(xgp_back_core_unmap(&bc, &one, 1, NULL) == 1 &&
		 !fb.mapped[4], "unpinned entry not unmapped");

	/* A gref unmapped maps afresh. */
	XT_CHECK((x = map1(2, false, &err)) && fb.mapped[2] == 1, "remap");
	xgp_back_core_put(&bc, x);

	/* An unmap the environment refuses: gone from the cache, counted. */
	fb.unmap_fail_in = 1;
	one = 2;
	XT_CHECK(xgp_back_core_unmap(&bc, &one, 1, status) == 1 && !status[0],
		 "failed unmap");
	xgp_back_core_stats(&bc, &st);
	XT_CHECK(st.unmap_failures == 1 && st.unmaps == 4 && st.mapped == 1,
		 "failures %llu unmaps %llu", st.unmap_failures, st.unmaps);
	xgp_back_core_put(&bc, e[4]);
	back_drain();
}

/* Lists longer than a map batch, with repeats, unknowns and busy ones. */
void test_back_unmap_batches(void)
{
	enum { NG = 1500, NL = NG + NG / 4 + 40 };
	static struct xgp_back_entry *e[NG];
	static u32 g[NG], list[NL];
	static int status[NL], want[NL];
	static bool gone[NG];
	struct xgp_back_entry *held[10];
	struct xgp_back_stats st;
	unsigned int i, j, nl = 0, nheld = 0, expect = 0, busy = 0;

	back_setup(2048);
	for (i = 0; i < NG; i++)
		g[i] = 1000 + i;
	XT_CHECK(!xgp_back_core_map(&bc, g, XGP_BACK_MAX_BATCH, e, false),
		 "map 1");
	XT_CHECK(!xgp_back_core_map(&bc, g + XGP_BACK_MAX_BATCH,
				    NG - XGP_BACK_MAX_BATCH,
				    e + XGP_BACK_MAX_BATCH, false), "map 2");
	for (i = 0; i < NG; i++)
		if (i % 150 != 7)
			xgp_back_core_put(&bc, e[i]);
		else
			held[nheld++] = e[i];
	/* Every gref, every fourth again, some unknown ones at the end. */
	for (i = 0; i < NG; i++)
		list[nl++] = g[i];
	for (i = 0; i < NG; i += 4)
		list[nl++] = g[i];
	for (; nl < NL; nl++)
		list[nl] = 4000 + nl % 20;	/* unknown, repeated */
	for (i = 0; i < NL; i++) {
		u32 k = list[i] - 1000;

		if (list[i] >= 1000 + NG || gone[k]) {
			want[i] = -ENOENT;
		} else if (k % 150 == 7) {
			want[i] = -EBUSY;
			busy++;
		} else {
			want[i] = 0;
			gone[k] = true;
			expect++;
		}
	}
	fb.unmap_calls = 0;
	fb.nr_unmap_log = 0;
	XT_CHECK(xgp_back_core_unmap(&bc, list, NL, status) == expect,
		 "unmapped count");
	for (i = 0; i < NL; i++)
		XT_CHECK(status[i] == want[i], "status[%u] of gref %u = %d, want %d",
			 i, list[i], status[i], want[i]);
	XT_CHECK(fb.unmap_max <= 32 && fb.unmap_calls >= expect / 32 &&
		 fb.nr_unmap_log == expect && fb.maps_live == nheld,
		 "batches: %u calls, max %u, %u entries, %u live",
		 fb.unmap_calls, fb.unmap_max, fb.nr_unmap_log, fb.maps_live);
	for (i = 0, j = 0; i < NL; i++)
		if (!want[i])
			XT_CHECK(fb.unmap_log[j++] == list[i],
				 "unmap order at list[%u]", i);
	xgp_back_core_stats(&bc, &st);
	XT_CHECK(st.unmaps == expect && st.unmap_busy == busy &&
		 st.unmapped == expect && st.mapped == nheld && !st.idle,
		 "stats");
	for (i = 0; i < nheld; i++)
		xgp_back_core_put(&bc, held[i]);
	back_drain();
}

/* ---- randomized run against a model ---- */

#define BR_GREFS	40U
#define BR_HOLD		64U

struct back_model {
	bool mapped[BR_GREFS];
	unsigned int refs[BR_GREFS];
	u64 idle_since[BR_GREFS];	/* LRU position: smaller is older */
	u64 clock;
	unsigned int cap;
	struct xgp_back_entry *held[BR_HOLD];
	unsigned int nr_held;
	u64 unmaps;
	u64 unmap_busy;
};

static struct back_model bm;

static unsigned int bm_count(bool idle_only)
{
	unsigned int g, n = 0;

	for (g = 0; g < BR_GREFS; g++)
		n += bm.mapped[g] && (!idle_only || !bm.refs[g]);
	return n;
}

static void bm_release(u32 g)
{
	if (!--bm.refs[g])
		bm.idle_since[g] = ++bm.clock;
}

static void bm_evict_oldest(void)
{
	unsigned int g, best = BR_GREFS;

	for (g = 0; g < BR_GREFS; g++)
		if (bm.mapped[g] && !bm.refs[g] &&
		    (best == BR_GREFS || bm.idle_since[g] < bm.idle_since[best]))
			best = g;
	if (best < BR_GREFS)
		bm.mapped[best] = false;
}

static void br_map(void)
{
	struct xgp_back_entry *out[8];
	unsigned int i, j, n = 1 + xt_below(8), nmiss = 0, over;
	bool miss[8], fail = false;
	int err, expect = 0;
	u32 g[8];

	if (n > BR_HOLD - bm.nr_held)
		return;
	for (i = 0; i < n; i++) {
		do {	/* distinct grefs: duplicates are tested elsewhere */
			g[i] = xt_below(BR_GREFS);
			for (j = 0; j < i && g[j] != g[i]; j++)
				;
		} while (j < i);
		fb.fail[g[i]] = !xt_below(30);
		miss[i] = !bm.mapped[g[i]];
		nmiss += miss[i];
		fail |= miss[i] && fb.fail[g[i]];
	}
	err = xgp_back_core_map(&bc, g, n, out, false);

	/* Model: hold the hits, then make room among the idle, then map. */
	for (i = 0; i < n; i++)
		if (!miss[i])
			bm.refs[g[i]]++;
	over = bm_count(false) + nmiss > bm.cap ?
	       bm_count(false) + nmiss - bm.cap : 0;
	if (over > bm_count(true)) {
		expect = -ENOSPC;
		for (i = 0; i < n; i++)
			if (!miss[i])
				bm_release(g[i]);
	} else {
		while (over--)
			bm_evict_oldest();
		for (i = 0; i < n; i++) {
			if (!miss[i] || fb.fail[g[i]])
				continue;
			bm.mapped[g[i]] = true;
			bm.refs[g[i]] = 1;
		}
		for (i = 0; fail && i < n; i++)
			if (bm.mapped[g[i]])
				bm_release(g[i]);
		expect = fail ? -EIO : 0;
	}
	XT_CHECK(err == expect, "map of %u: %d, want %d", n, err, expect);
	for (i = 0; !err && i < n; i++)
		bm.held[bm.nr_held++] = out[i];
}

static void br_put(void)
{
	unsigned int i = xt_below(bm.nr_held);
	struct xgp_back_entry *e;

	if (!bm.nr_held)
		return;
	e = bm.held[i];
	bm.held[i] = bm.held[--bm.nr_held];
	XT_CHECK(!xgp_back_core_put(&bc, e), "put");
	bm_release(e->gref);
}

static void br_lookup(void)
{
	u32 g = xt_below(BR_GREFS);
	struct xgp_back_entry *e;

	if (bm.nr_held == BR_HOLD)
		return;
	e = xgp_back_core_lookup(&bc, g);
	XT_CHECK(!!e == bm.mapped[g], "lookup %u: %p, model %d", g, (void *)e,
		 bm.mapped[g]);
	if (!e)
		return;
	bm.refs[g]++;
	bm.held[bm.nr_held++] = e;
}

static void br_purge(void)
{
	unsigned int nr = xt_below(6), idle = bm_count(true), k;

	k = min(nr, idle);
	XT_CHECK(xgp_back_core_purge(&bc, nr) == k, "purge %u", nr);
	while (k--)
		bm_evict_oldest();
}

/* Targeted unmap of a few grefs, repeats allowed, checked in order. */
static void br_unmap(void)
{
	unsigned int i, n = 1 + xt_below(6), done, expect = 0;
	int status[6], want;
	u32 g[6];

	for (i = 0; i < n; i++)
		g[i] = xt_below(BR_GREFS);
	done = xgp_back_core_unmap(&bc, g, n, status);
	for (i = 0; i < n; i++) {
		if (!bm.mapped[g[i]]) {
			want = -ENOENT;
		} else if (bm.refs[g[i]]) {
			want = -EBUSY;
			bm.unmap_busy++;
		} else {
			want = 0;
			bm.mapped[g[i]] = false;
			expect++;
		}
		XT_CHECK(status[i] == want, "unmap of gref %u: %d, want %d",
			 g[i], status[i], want);
	}
	XT_CHECK(done == expect, "unmapped %u, want %u", done, expect);
	bm.unmaps += expect;
}

static void br_check(void)
{
	struct xgp_back_stats st;
	unsigned int g;

	XT_BAIL();
	xgp_back_core_stats(&bc, &st);
	XT_CHECK(st.mapped == bm_count(false) && st.idle == bm_count(true) &&
		 st.mapped <= bm.cap, "cache %llu/%llu model %u/%u cap %u",
		 st.mapped, st.idle, bm_count(false), bm_count(true), bm.cap);
	XT_CHECK(st.unmaps == bm.unmaps && st.unmap_busy == bm.unmap_busy,
		 "unmaps %llu busy %llu, model %llu %llu", st.unmaps,
		 st.unmap_busy, bm.unmaps, bm.unmap_busy);
	for (g = 0; g < BR_GREFS; g++)
		XT_CHECK(fb.mapped[g] == bm.mapped[g],
			 "gref %u mapped %u, model %d", g, fb.mapped[g],
			 bm.mapped[g]);
	fb_check_pages();
}

void test_back_random(void)
{
	unsigned int step, op;

	back_setup(4 + xt_below(BR_GREFS));
	memset(&bm, 0, sizeof(bm));
	bm.cap = bc.cap;
	for (step = 0; step < 20000; step++) {
		op = xt_below(100);
		if (op < 35)
			br_map();
		else if (op < 75)
			br_put();
		else if (op < 88)
			br_lookup();
		else if (op < 94)
			br_purge();
		else
			br_unmap();
		br_check();
		if (xt_failed) {
			printf("# back_random failed at step %u (cap %u)\n",
			       step, bm.cap);
			return;
		}
	}
	while (bm.nr_held)
		br_put();
	memset(fb.fail, 0, sizeof(fb.fail));
	back_drain();
}

/*
 * Several 4 KB grants share one page: a batch takes as few pages as it
 * needs, a free sub-page of a page held is used before a new page is
 * allocated, a page is freed with its last mapping, and a failed page
 * allocation gives back the sub-pages the batch had taken.
 */
void test_back_pages(void)
{
	enum { G = XGP_GRANTS_PER_PAGE };
	static u32 g[3 * G + 1];
	static struct xgp_back_entry *e[3 * G + 1];
	struct xgp_back_entry *x;
	struct xgp_back_stats st;
	unsigned int i;
	u32 one;
	int err;

	back_setup(8 * G);
	for (i = 0; i < 3 * G + 1; i++)
		g[i] = 100 + i;
	XT_CHECK(!xgp_back_core_map(&bc, g, G, e, false), "map a page's worth");
	XT_CHECK(fb.pages_live == 1, "%u grants took %u pages", G,
		 fb.pages_live);
	for (i = 1; i < G; i++)
		XT_CHECK(e[i]->page == e[0]->page &&
			 e[i]->offset == i * XGP_GRANT_SIZE, "entry %u at %u", i,
			 e[i]->offset);
	XT_CHECK(!xgp_back_core_map(&bc, g + G, 2 * G + 1, e + G, false),
		 "map 2 pages and one grant");
	XT_CHECK(fb.pages_live == 4, "%u more grants took %u pages", 2 * G + 1,
		 fb.pages_live - 1);
	fb_check_pages();

	/* The last page is partial (G > 1): the next miss goes there. */
	for (i = 0; i < 3 * G + 1; i++)
		xgp_back_core_put(&bc, e[i]);
	one = 100;
	XT_CHECK(xgp_back_core_unmap(&bc, &one, 1, NULL) == 1, "unmap one");
	XT_CHECK(fb.pages_live == (G > 1 ? 4U : 3U),
		 "a page with mappings left was freed, or an empty one kept: %u",
		 fb.pages_live);
	xgp_back_core_stats(&bc, &st);
	x = map1(500, false, &err);
	XT_CHECK(x, "map into a freed sub-page: %d", err);
	XT_CHECK(G == 1 || x->page == e[1]->page || x->page == e[3 * G]->page,
		 "the miss did not go to a partial page");
	fb_check_pages();
	{
		struct xgp_back_stats st2;

		xgp_back_core_stats(&bc, &st2);
		XT_CHECK(st2.page_allocs == st.page_allocs + (G == 1),
			 "page allocated with a free sub-page held (%llu -> %llu)",
			 st.page_allocs, st2.page_allocs);
	}
	xgp_back_core_put(&bc, x);

	/* Unmapping a whole page's grants frees that page. */
	for (i = G; i < 2 * G; i++)
		XT_CHECK(xgp_back_core_unmap(&bc, &g[i], 1, NULL) == 1,
			 "unmap %u", g[i]);
	fb_check_pages();
	XT_CHECK(fb.pages_live == 3, "page of unmapped grants kept: %u",
		 fb.pages_live);

	/*
	 * Page allocation fails in a batch that first took the free
	 * sub-pages: -ENOMEM, nothing mapped, the sub-pages free again.
	 */
	back_drain();
	back_setup(8 * G);
	XT_CHECK(!xgp_back_core_map(&bc, g, G + 1, e, false), "map G + 1");
	for (i = 0; i < G + 1; i++)
		xgp_back_core_put(&bc, e[i]);
	fb.page_fail_in = 1;
	xgp_back_core_stats(&bc, &st);
	XT_CHECK(xgp_back_core_map(&bc, g + 2 * G, G + 1, e, false) == -ENOMEM,
		 "page allocation failure not reported");
	for (i = 0; i < G + 1; i++)
		XT_CHECK(!e[i], "out[%u] set after failure", i);
	fb_check_pages();
	{
		struct xgp_back_stats st2;

		xgp_back_core_stats(&bc, &st2);
		XT_CHECK(st2.page_alloc_failures == 1 &&
			 st2.map_failures == st.map_failures + G + 1 &&
			 st2.mapped == G + 1 && bc.nr_reserved == 0 &&
			 fb.maps_live == G + 1 && fb.pages_live == 2,
			 "after the failure: mapped %llu pages %u",
			 st2.mapped, fb.pages_live);
	}
	/* The sub-pages given back serve the next batch. */
	if (G > 1) {
		XT_CHECK(!xgp_back_core_map(&bc, g + 2 * G, G - 1, e, false),
			 "map into the partial page");
		XT_CHECK(fb.pages_live == 2,
			 "a page allocated with room held: %u", fb.pages_live);
		for (i = 0; i + 1 < G; i++)
			xgp_back_core_put(&bc, e[i]);
	}
	back_drain();
}

/*
 * A sub-page whose unmap failed (or whose failed map could not be
 * undone) may still hold the foreign frame: it is never mapped into
 * again, and its page is never freed; fini forgets such pages.
 */
void test_back_stuck(void)
{
	enum { G = XGP_GRANTS_PER_PAGE };
	static u32 g[2 * G];
	static struct xgp_back_entry *e[2 * G];
	struct xgp_back_stats st;
	unsigned int i;
	int err;

	back_setup(8 * G);
	for (i = 0; i < 2 * G; i++)
		g[i] = 200 + i;
	XT_CHECK(!xgp_back_core_map(&bc, g, G, e, false), "map");
	for (i = 0; i < G; i++)
		xgp_back_core_put(&bc, e[i]);
	fb.unmap_fail_in = 1;
	XT_CHECK(xgp_back_core_purge(&bc, UINT_MAX) == G, "purge");
	xgp_back_core_stats(&bc, &st);
	XT_CHECK(st.stuck == 1 && st.unmap_failures == 1 && st.pages == 1 &&
		 fb.pages_live == 1, "stuck %llu pages %llu", st.stuck,
		 st.pages);
	fb_check_pages();
	/* G more grants: G - 1 fit beside the stuck one, one takes a page. */
	XT_CHECK(!xgp_back_core_map(&bc, g + G, G, e, false), "map again");
	XT_CHECK(fb.pages_live == 2, "pages %u", fb.pages_live);
	fb_check_pages();
	for (i = 0; i < G; i++)
		xgp_back_core_put(&bc, e[i]);

	/* A failed map the environment could not undo. */
	fb.fail[300] = true;
	fb.stuck_on_fail[300] = true;
	XT_CHECK(!map1(300, false, &err) && err == -EIO, "map failure: %d", err);
	xgp_back_core_stats(&bc, &st);
	XT_CHECK(st.stuck == 2 && st.map_failures == 1, "stuck %llu", st.stuck);
	fb_check_pages();
	back_drain();
}
