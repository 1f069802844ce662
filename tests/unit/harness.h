/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Fakes of the grant table and page allocator behind the xen-grant-pool
 * ops tables, and the grant-pool tests; the runner itself is in xt.h.
 */
#ifndef XGP_TEST_HARNESS_H
#define XGP_TEST_HARNESS_H

#include <xen-pv-suite/xgp_core.h>
#include "xt.h"

/* ---- fake front environment: pages, grant table, backend mappings ---- */

struct page {
	unsigned char *mem;
	bool live;
	unsigned int grants;	/* grants currently pointing into it */
	u32 subs;		/* back: sub-pages a grant is mapped into */
};

#define FF_MAX_GREFS	65536U
#define FF_FIRST_GREF	8U

struct ff_grant {
	bool granted;
	bool mapped;	/* the fake backend maps it */
	struct page *page;
	unsigned int sub;
};

struct fake_front {
	bool pool_locked;
	bool deferred_locked;
	bool fail_next_alloc;
	int fail_grant_in;	/* > 0: the grant that brings it to 0 fails */
	u32 map_on_grant;	/* gref + 1: the backend maps it at once */
	unsigned int pages_live;
	unsigned int grants_live;
	struct ff_grant g[FF_MAX_GREFS];
	u32 free_grefs[FF_MAX_GREFS];
	unsigned int nr_free_grefs;
	u32 next_gref;
	struct page **all;
	unsigned int nr_all;
};

extern struct fake_front ff;
extern const struct xgp_front_ops ff_pool_ops;
extern const struct xgp_front_ops ff_deferred_ops;
void ff_reset(void);
void ff_teardown(void);

/* ---- fake back environment ---- */

#define FB_MAX_GREFS	4096U

struct fake_back {
	bool locked;
	bool fail[FB_MAX_GREFS];	/* map of this gref fails */
	unsigned int maps_live;
	unsigned int mapped[FB_MAX_GREFS];	/* live mappings per gref */
	unsigned int unmap_fail_in;
	u32 next_handle;
	unsigned int map_calls;		/* ->map calls */
	unsigned int unmap_calls;	/* ->unmap calls */
	unsigned int unmap_max;		/* largest ->unmap batch */
	unsigned int nr_unmap_log;	/* entries in unmap_log */
	u32 unmap_log[FB_MAX_GREFS];	/* grefs unmapped, in call order */
	bool stuck_on_fail[FB_MAX_GREFS];	/* a failed map stays mapped */
	unsigned int page_fail_in;	/* > 0: the alloc that brings it to 0 fails */
	unsigned int pages_live;	/* allocated, not freed */
	unsigned int pages_max;		/* most pages live at once */
	unsigned int stuck;		/* sub-pages left mapped for good */
	struct page **all;
	unsigned int nr_all;
};

extern struct fake_back fb;
extern const struct xgp_back_ops fb_ops;
void fb_reset(void);
void fb_teardown(void);

/* ---- the tests ---- */

void test_chunk_count(void);
void test_ring_ids_malformed(void);
void test_ring_ids_random(void);
void test_ring_accounting(void);
void test_ring_copy(void);
void test_chunk_boundaries(void);
void test_chunk_random(void);
void test_pattern(void);
void test_front_basic(void);
void test_front_limits(void);
void test_front_bad_put(void);
void test_front_grow_failures(void);
void test_front_revoke_busy(void);
void test_front_leak(void);
void test_front_random(void);
void test_back_basic(void);
void test_back_cap(void);
void test_back_lru_purge(void);
void test_back_failures(void);
void test_back_random(void);
void test_back_dup_map(void);
void test_back_pinned(void);
void test_back_unmap(void);
void test_back_unmap_batches(void);
void test_back_pages(void);
void test_back_stuck(void);

#endif /* XGP_TEST_HARNESS_H */
