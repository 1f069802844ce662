/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * What the parts of qspinlock-pv share.
 */
#ifndef QSPL_INTERNAL_H
#define QSPL_INTERNAL_H

#include <xen-pv-suite/qspinlock.h>

extern struct qspl_env qspl_env;

/* xen.c: one IPI event channel per online CPU for wait and kick. */
extern const struct qspl_ops qspl_xen_ops;
int qspl_xen_init(void);
void qspl_xen_exit(void);
unsigned int qspl_xen_channels(void);

/* torture.c: the debugfs-triggered harness; failures are not fatal. */
void qspl_torture_init(void);
void qspl_torture_exit(void);

#endif /* QSPL_INTERNAL_H */
