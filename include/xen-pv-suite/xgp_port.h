/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Portability header for the pure parts of xen-grant-pool.
 *
 * The bookkeeping code (slot lists, chunk accounting, cache LRU and cap
 * policy, test pattern) must build both as part of the kernel module and
 * as a plain userspace program for the unit tests.  It therefore includes
 * only this header, which maps to kernel headers in the kernel and to a
 * small shim (tests/unit/shim/) in userspace.  Nothing here may pull in
 * Xen or hypercall headers.
 */
#ifndef XEN_PV_SUITE_XGP_PORT_H
#define XEN_PV_SUITE_XGP_PORT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/gfp.h>
#include <asm/byteorder.h>
#include <linux/export.h>

#define XGP_PAGE_SHIFT		PAGE_SHIFT
#else
#include <xgp_shim.h>

#ifndef XGP_TEST_PAGE_SHIFT
#define XGP_TEST_PAGE_SHIFT	12
#endif
#define XGP_PAGE_SHIFT		XGP_TEST_PAGE_SHIFT
#endif

/* Xen grants always cover 4 KB, whatever the guest page size. */
#define XGP_GRANT_SHIFT		12
#define XGP_GRANT_SIZE		4096U	/* 1 << XGP_GRANT_SHIFT */
#define XGP_PAGE_SIZE		((unsigned long)XGP_GRANT_SIZE * XGP_GRANTS_PER_PAGE)
#define XGP_GRANTS_PER_PAGE	(1U << (XGP_PAGE_SHIFT - XGP_GRANT_SHIFT))

#endif /* XEN_PV_SUITE_XGP_PORT_H */
