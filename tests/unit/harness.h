/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Minimal unit test harness: checks, seeded random numbers, fakes of the
 * grant table and page allocator behind the xen-grant-pool ops tables.
 */
#ifndef XGP_TEST_HARNESS_H
#define XGP_TEST_HARNESS_H

#include <stdio.h>
#include <xen-pv-suite/xgp_core.h>

extern int xt_failed;
void xt_fail(const char *file, int line, const char *fmt, ...) __printf(3, 4);

/* Check; on failure record why and return from the (void) function. */
#define XT_CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			xt_fail(__FILE__, __LINE__, __VA_ARGS__);	\
			return;						\
		}							\
	} while (0)
/* Record a failure without returning (fakes, helpers). */
#define XT_EXPECT(cond, ...)						\
	do {								\
		if (!(cond))						\
			xt_fail(__FILE__, __LINE__, __VA_ARGS__);	\
	} while (0)
#define XT_BAIL()	do { if (xt_failed) return; } while (0)

u64 xt_rand(void);
unsigned int xt_below(unsigned int n);
extern u64 xt_seed;

/* ---- fake front environment: pages, grant table, backend mappings ---- */

struct page {
	unsigned char *mem;
	bool live;
	unsigned int grants;	/* grants currently pointing into it */
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
};

extern struct fake_back fb;
extern const struct xgp_back_ops fb_ops;
void fb_reset(void);

/* ---- the tests ---- */

const char *xt_reason(void);
void test_chunk_count(void);
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

#endif /* XGP_TEST_HARNESS_H */
