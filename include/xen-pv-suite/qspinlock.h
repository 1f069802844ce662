/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * The API of the qspinlock-pv module: a 4-byte queued spinlock with
 * paravirtual waiting on Xen, for other modules.  It does not (cannot)
 * replace the kernel's own spinlocks.
 *
 * The semantics are spin_lock()'s: qspl_lock() disables preemption until
 * qspl_unlock(), which must run on the same CPU; a lock also taken in
 * interrupt context must be taken with qspl_lock_irqsave() elsewhere.
 * The mode (native, pv, pv-unfair) is the module's, chosen at load time.
 */
#ifndef XEN_PV_SUITE_QSPINLOCK_H
#define XEN_PV_SUITE_QSPINLOCK_H

#include <xen-pv-suite/qspl_core.h>

void qspl_init(struct qspl *lock);
void qspl_lock(struct qspl *lock);
void qspl_unlock(struct qspl *lock);
/* Returns 1 with the lock held (and preemption disabled), else 0. */
int qspl_trylock(struct qspl *lock);
unsigned long qspl_lock_irqsave(struct qspl *lock);
void qspl_unlock_irqrestore(struct qspl *lock, unsigned long flags);

#endif /* XEN_PV_SUITE_QSPINLOCK_H */
