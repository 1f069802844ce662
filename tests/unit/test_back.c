// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Backend cache: hits and misses, the hard cap, LRU purge order, in-use
 * entries never purged, map failures, and a randomized run checked
 * against a reference model after every step.
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

static void back_drain(void)
{
	xgp_back_core_purge(&bc, UINT_MAX);
	XT_EXPECT(!fb.maps_live, "%u mappings left", fb.maps_live);
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

	/* A gref twice in one batch is mapped once. */
	{
		const u32 d[2] = { 50, 50 };

		XT_CHECK(!xgp_back_core_map(&bc, d, 2, e, false), "dup map");
		XT_CHECK(e[0] == e[1] && e[0]->refs == 2 && fb.mapped[50] == 1,
			 "duplicate mapped twice");
		xgp_back_core_put(&bc, e[0]);
		xgp_back_core_put(&bc, e[1]);
	}
	XT_CHECK(xgp_back_core_map(&bc, g, 0, e, false) == -EINVAL, "n 0");
	XT_CHECK(xgp_back_core_map(&bc, g, XGP_BACK_MAX_BATCH + 1, e, false) ==
		 -EINVAL, "n too big");
	fb.unmap_fail_in = 1;
	back_drain();
	xgp_back_core_stats(&bc, &st);
	XT_CHECK(st.unmap_failures == 1, "unmap failure not counted");
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

static void br_check(void)
{
	struct xgp_back_stats st;
	unsigned int g;

	XT_BAIL();
	xgp_back_core_stats(&bc, &st);
	XT_CHECK(st.mapped == bm_count(false) && st.idle == bm_count(true) &&
		 st.mapped <= bm.cap, "cache %llu/%llu model %u/%u cap %u",
		 st.mapped, st.idle, bm_count(false), bm_count(true), bm.cap);
	for (g = 0; g < BR_GREFS; g++)
		XT_CHECK(fb.mapped[g] == bm.mapped[g],
			 "gref %u mapped %u, model %d", g, fb.mapped[g],
			 bm.mapped[g]);
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
		else if (op < 92)
			br_lookup();
		else
			br_purge();
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
