/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * The unit test runner shared by every test binary: failure recording,
 * the check macros, seeded random numbers and the loop that runs a case
 * table with one PASS/FAIL line per case.
 */
#ifndef XGP_TEST_XT_H
#define XGP_TEST_XT_H

#include <stdio.h>
#include <xen-pv-suite/xgp_port.h>

extern int xt_failed;
void xt_fail(const char *file, int line, const char *fmt, ...) __printf(3, 4);
const char *xt_reason(void);

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

/* xorshift64*, seeded per case by xt_run(). */
u64 xt_rand(void);
unsigned int xt_below(unsigned int n);
extern u64 xt_seed;

struct xt_case {
	const char *name;
	void (*fn)(void);
};

/*
 * Runs every case with its own random stream derived from SEED (or the
 * time), calling @before (if any) ahead of each; prints a header naming
 * @what and the seed, then "PASS: unit/<name>-p<N>k" or "FAIL: ... why"
 * per case.  Returns the exit status: 1 if any case failed, else 0.
 */
int xt_run(const char *what, const struct xt_case *cases, unsigned int nr,
	   void (*before)(void));

#endif /* XGP_TEST_XT_H */
