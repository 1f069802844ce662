// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Runs every unit test; one PASS/FAIL line each; exit status 1 on any
 * failure.  SEED=<n> in the environment reproduces a run.
 */
#include <stdio.h>
#include <time.h>
#include "harness.h"

struct xt_case {
	const char *name;
	void (*fn)(void);
};

static const struct xt_case cases[] = {
	{ "chunk_count", test_chunk_count },
	{ "chunk_boundaries", test_chunk_boundaries },
	{ "chunk_random", test_chunk_random },
	{ "pattern", test_pattern },
	{ "front_basic", test_front_basic },
	{ "front_limits", test_front_limits },
	{ "front_bad_put", test_front_bad_put },
	{ "front_grow_failures", test_front_grow_failures },
	{ "front_revoke_busy", test_front_revoke_busy },
	{ "front_leak", test_front_leak },
	{ "front_random", test_front_random },
	{ "back_basic", test_back_basic },
	{ "back_cap", test_back_cap },
	{ "back_lru_purge", test_back_lru_purge },
	{ "back_failures", test_back_failures },
	{ "back_random", test_back_random },
};

int main(void)
{
	const char *env = getenv("SEED");
	unsigned int i, failed = 0;
	u64 seed;

	/* Line buffered: a sanitizer abort must not swallow the results. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	seed = env ? strtoull(env, NULL, 0) : (u64)time(NULL);
	printf("# unit tests, %lu KB pages, seed %llu (rerun: SEED=%llu)\n",
	       XGP_PAGE_SIZE / 1024, (unsigned long long)seed,
	       (unsigned long long)seed);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		/* Each test gets its own stream so one can be rerun alone. */
		xt_seed = (seed + i) * 0x9E3779B97F4A7C15ULL | 1;
		xt_failed = 0;
		xgp_shim_fail_alloc_in = 0;
		cases[i].fn();
		if (xt_failed) {
			failed++;
			printf("FAIL: unit/%s-p%luk %s\n", cases[i].name,
			       XGP_PAGE_SIZE / 1024, xt_reason());
		} else {
			printf("PASS: unit/%s-p%luk\n", cases[i].name,
			       XGP_PAGE_SIZE / 1024);
		}
	}
	ff_reset();
	ff_teardown();
	return failed ? 1 : 0;
}
