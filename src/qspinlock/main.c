// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * qspinlock-pv module: parameters, the exported lock API, init and exit.
 *
 * The module cannot replace the kernel's own spinlocks (their call sites
 * are patched at boot and the Xen lock setup is __init); it provides a
 * queued spinlock type for other modules, and a torture/benchmark
 * harness in debugfs that compares it with spin_lock().
 *
 * mode=pv and mode=pv-unfair need a Xen guest: anywhere else (bare metal,
 * KVM, ...) the module refuses to load with -ENODEV and says so; it does
 * not fall back to native silently.  mode=native loads anywhere the
 * module builds.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/cpumask.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>
#include <xen/xen.h>
#include "internal.h"

static char *qspl_mode_param = "native";
module_param_named(mode, qspl_mode_param, charp, 0444);
MODULE_PARM_DESC(mode,
		 "Lock mode: native (queued lock, waiters spin), pv (fair; waiters halt in Xen and are kicked), pv-unfair (pv, and newcomers may steal the lock while the queue head is not spinning) (default native). The pv modes refuse to load outside a Xen guest.");

static unsigned int qspl_spin_threshold = QSPL_SPIN_THRESHOLD;
module_param_named(spin_threshold, qspl_spin_threshold, uint, 0444);
MODULE_PARM_DESC(spin_threshold,
		 "Spins before a pv waiter halts (default 32768, as the kernel's own PV lock).");

struct qspl_env qspl_env;
static struct qspl_cpu *qspl_cpus;
static struct qspl_hash_entry *qspl_hash_table;

/* ---- the exported API ---- */

void qspl_init(struct qspl *lock)
{
	qspl_core_init(lock);
}
EXPORT_SYMBOL_GPL(qspl_init);

void qspl_lock(struct qspl *lock)
{
	preempt_disable();
	qspl_core_lock(&qspl_env, lock, smp_processor_id());
}
EXPORT_SYMBOL_GPL(qspl_lock);

void qspl_unlock(struct qspl *lock)
{
	qspl_core_unlock(&qspl_env, lock, smp_processor_id());
	preempt_enable();
}
EXPORT_SYMBOL_GPL(qspl_unlock);

int qspl_trylock(struct qspl *lock)
{
	preempt_disable();
	if (qspl_core_trylock(lock))
		return 1;
	preempt_enable();
	return 0;
}
EXPORT_SYMBOL_GPL(qspl_trylock);

unsigned long qspl_lock_irqsave(struct qspl *lock)
{
	unsigned long flags;

	local_irq_save(flags);
	preempt_disable();
	qspl_core_lock(&qspl_env, lock, smp_processor_id());
	return flags;
}
EXPORT_SYMBOL_GPL(qspl_lock_irqsave);

void qspl_unlock_irqrestore(struct qspl *lock, unsigned long flags)
{
	qspl_core_unlock(&qspl_env, lock, smp_processor_id());
	local_irq_restore(flags);
	preempt_enable();
}
EXPORT_SYMBOL_GPL(qspl_unlock_irqrestore);

/* ---- init and exit ---- */

static void qspl_free(void)
{
	kfree(qspl_hash_table);
	qspl_hash_table = NULL;
	kfree(qspl_cpus);
	qspl_cpus = NULL;
}

static int __init qspl_mod_init(void)
{
	enum qspl_mode mode;
	bool pv;
	int rc;

	if (qspl_mode_parse(qspl_mode_param, &mode)) {
		pr_err("mode=%s: use native, pv or pv-unfair\n",
		       qspl_mode_param);
		return -EINVAL;
	}
	pv = mode != QSPL_NATIVE;
	if (pv && !xen_domain()) {
		pr_err("mode=%s needs a Xen guest and this is not one; load with mode=native\n",
		       qspl_mode_name(mode));
		return -ENODEV;
	}
	if (nr_cpu_ids > QSPL_MAX_CPUS) {
		pr_err("%u possible CPUs, the lock word has room for %u\n",
		       nr_cpu_ids, QSPL_MAX_CPUS);
		return -EINVAL;
	}
	qspl_cpus = kcalloc(nr_cpu_ids, sizeof(*qspl_cpus), GFP_KERNEL);
	if (!qspl_cpus)
		return -ENOMEM;
	if (pv) {
		qspl_hash_table = kcalloc(1U << qspl_hash_bits(nr_cpu_ids),
					  sizeof(*qspl_hash_table), GFP_KERNEL);
		if (!qspl_hash_table) {
			rc = -ENOMEM;
			goto err_free;
		}
		rc = qspl_xen_init();
		if (rc)
			goto err_free;
	}
	rc = qspl_env_init(&qspl_env, mode, nr_cpu_ids, qspl_cpus,
			   qspl_hash_table, qspl_spin_threshold,
			   pv ? &qspl_xen_ops : NULL, NULL);
	if (rc)
		goto err_xen;
	qspl_torture_init();
	pr_info("mode %s, %u CPUs, spin threshold %u, %u event channels\n",
		qspl_mode_name(mode), nr_cpu_ids, qspl_env.spin_threshold,
		qspl_xen_channels());
	return 0;

err_xen:
	if (pv)
		qspl_xen_exit();
err_free:
	qspl_free();
	return rc;
}

static void __exit qspl_mod_exit(void)
{
	/* Modules using our locks hold a reference: no lock is in use. */
	qspl_torture_exit();
	if (qspl_env.mode != QSPL_NATIVE)
		qspl_xen_exit();
	qspl_free();
	pr_info("unloaded, %u event channels left\n", qspl_xen_channels());
}

module_init(qspl_mod_init);
module_exit(qspl_mod_exit);

MODULE_DESCRIPTION("Queued spinlock with paravirtual waiting on Xen (native, pv, pv-unfair)");
MODULE_AUTHOR("xen-pv-suite developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(XPS_VERSION);
