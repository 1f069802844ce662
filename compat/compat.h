/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * The one place where kernel API differences live. Kbuild force-includes
 * this header into every object, so driver code is written against the
 * newest kernel API and never tests a version number.
 *
 * Each difference is detected by a probe in compat/probes/ (see
 * scripts/compat-probe.sh), which yields HAVE_<NAME> in xps_config.h.
 * Where an older kernel lacks a feature, the shim for it goes below,
 * next to its probe's name. The suite supports Linux 6.1 and later
 * (tested: Debian's 6.1 and 6.12); older kernels are refused by the
 * probe script rather than failing somewhere deep in a driver.
 */
#ifndef XPS_COMPAT_H
#define XPS_COMPAT_H

/*
 * Written by scripts/compat-probe.sh, which the top-level Makefile runs
 * before Kbuild (and which refuses kernels older than the supported
 * range). If this include fails, build with "make KDIR=...", not with a
 * bare "make -C $KDIR M=$PWD".
 */
#include <xps_config.h>

/*
 * HAVE_XEN_ALLOC_UNPOPULATED_PAGES: no shim. Every supported kernel has it;
 * a kernel without it is not one the suite can run on.
 */
#if !defined(HAVE_XEN_ALLOC_UNPOPULATED_PAGES)
#error "this kernel lacks xen_alloc_unpopulated_pages() (Linux 5.9+); is CONFIG_XEN enabled?"
#endif

/*
 * HAVE_BLK_MQ_ALLOC_DISK_LIM and HAVE_BLK_FEAT_FLAGS (6.9 and 6.11 block
 * layer queue_limits rework) are probed for the block frontend; their
 * shims are added with it.
 */

#endif /* XPS_COMPAT_H */
