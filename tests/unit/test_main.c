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

const char *xt_reason(void);

#define TESTS(X)							\
	X(chunk_count) X(chunk_boundaries) X(chunk_random) X(pattern)	\
	X(front_basic) X(front_limits) X(front_bad_put)			\
	X(front_grow_failures) X(front_revoke_busy) X(front_leak)	\
	X(front_random)							\
	X(back_basic) X(back_cap) X(back_lru_purge) X(back_failures)	\
	X(back_random)

#define DECLARE(name) void test_##name(void);
TESTS(DECLARE)

struct xt_case {
	const char *name;
	void (*fn)(void);
};

#define ENTRY(name) { #name, test_##name },
static const struct xt_case cases[] = { TESTS(ENTRY) };

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
