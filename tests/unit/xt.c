// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * The shared unit test runner: see xt.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include "xt.h"

int xt_failed;
static char xt_why[512];
u64 xt_seed;

void xt_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (xt_failed++)
		return;
	n = snprintf(xt_why, sizeof(xt_why), "%s:%d: ", file, line);
	va_start(ap, fmt);
	vsnprintf(xt_why + n, sizeof(xt_why) - n, fmt, ap);
	va_end(ap);
}

const char *xt_reason(void)
{
	return xt_why;
}

/* xorshift64*: reproducible from the printed seed. */
u64 xt_rand(void)
{
	xt_seed ^= xt_seed >> 12;
	xt_seed ^= xt_seed << 25;
	xt_seed ^= xt_seed >> 27;
	return xt_seed * 0x2545F4914F6CDD1DULL;
}

unsigned int xt_below(unsigned int n)
{
	return n ? (unsigned int)(xt_rand() % n) : 0;
}

int xt_run(const char *what, const struct xt_case *cases, unsigned int nr,
	   void (*before)(void))
{
	const char *env = getenv("SEED");
	unsigned int i, failed = 0;
	u64 seed;

	/* Line buffered: a sanitizer abort must not swallow the results. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	seed = env ? strtoull(env, NULL, 0) : (u64)time(NULL);
	printf("# %s, %lu KB pages, seed %llu (rerun: SEED=%llu)\n", what,
	       XGP_PAGE_SIZE / 1024, seed, seed);
	for (i = 0; i < nr; i++) {
		/* Each test gets its own stream so one can be rerun alone. */
		xt_seed = (seed + i) * 0x9E3779B97F4A7C15ULL | 1;
		xt_failed = 0;
		if (before)
			before();
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
	return failed ? 1 : 0;
}
