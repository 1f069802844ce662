/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * The kernel attributes the pure qspinlock-pv code uses, for userspace
 * (on top of the suite's shim).  Written for the unit tests only.
 */
#ifndef QSPL_SHIM_H
#define QSPL_SHIM_H

#include <xgp_shim.h>

#ifndef __aligned
#define __aligned(x)	__attribute__((aligned(x)))
#endif

#endif /* QSPL_SHIM_H */
