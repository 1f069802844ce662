// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Allocation with fault injection for the unit tests.
 */
#include <xgp_shim.h>

/* > 0: the allocation that brings this to 0 fails. */
long xgp_shim_fail_alloc_in;

void *xgp_shim_zalloc(size_t size)
{
	if (xgp_shim_fail_alloc_in > 0 && !--xgp_shim_fail_alloc_in)
		return NULL;
	return calloc(1, size ? size : 1);
}
