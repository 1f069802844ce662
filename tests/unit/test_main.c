// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Runs every unit test; one PASS/FAIL line each; exit status 1 on any
 * failure.  SEED=<n> in the environment reproduces a run.
 */
#include "harness.h"

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
	{ "back_dup_map", test_back_dup_map },
	{ "back_pinned", test_back_pinned },
	{ "back_unmap", test_back_unmap },
	{ "back_unmap_batches", test_back_unmap_batches },
	{ "back_pages", test_back_pages },
	{ "back_stuck", test_back_stuck },
	{ "ring_ids_malformed", test_ring_ids_malformed },
	{ "ring_ids_random", test_ring_ids_random },
	{ "ring_accounting", test_ring_accounting },
	{ "ring_copy", test_ring_copy },
};

/* No fault injection left over from the previous test. */
static void before_each(void)
{
	xgp_shim_fail_alloc_in = 0;
}

int main(void)
{
	int rc = xt_run("unit tests", cases, ARRAY_SIZE(cases), before_each);

	ff_reset();
	ff_teardown();
	fb_teardown();
	return rc;
}
