// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * The Xen backend of the pv modes: wait, kick and vcpu_is_preempted.
 *
 * Every CPU online at load time gets its own IPI event channel
 * (EVTCHNOP_bind_ipi to its vCPU), mapped to an irq with
 * bind_evtchn_to_irqhandler() and never enabled (IRQF_NO_AUTOEN), so the
 * channel stays masked: a kick only sets its pending bit, which is what
 * SCHEDOP_poll waits for.  CPUs that come online later have no channel:
 * their waits return at once (they spin) and nobody needs to kick them.
 * Unloading unbinds every irq, which closes its event channel.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/interrupt.h>
#include <linux/hardirq.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/cpu.h>
#include <linux/sched.h>
#include <xen/xen.h>
#include <xen/events.h>
#include <xen/xen-ops.h>
#include <xen/interface/event_channel.h>
#include <asm/xen/hypercall.h>
#include "internal.h"

static int *qspl_irq;			/* nr_cpu_ids entries, -1: none */
static char (*qspl_irq_name)[16];
static unsigned int qspl_nr_channels;
static DEFINE_PER_CPU(unsigned int, qspl_wait_nest);

unsigned int qspl_xen_channels(void)
{
	return qspl_nr_channels;
}

/* Never called: the irq is never enabled.  Required by request_irq(). */
static irqreturn_t qspl_xen_interrupt(int irq, void *dev_id)
{
	return IRQ_HANDLED;
}

/*
 * Halt this CPU while (*ptr & mask) == val, until kicked.  Only the
 * outermost wait on a CPU clears its pending bit: a wait in an interrupt
 * that arrives between our clear and our poll must not eat the kick that
 * is meant for us (it polls without clearing; at worst it returns at
 * once and spins).  The clear comes before the test, so a kick sent
 * after any change of *ptr is seen by the poll.
 */
static void qspl_xen_wait(struct qspl_env *env, unsigned int cpu, u32 *ptr,
			  u32 mask, u32 val)
{
	int irq = READ_ONCE(qspl_irq[cpu]);

	if (irq < 0 || in_nmi())
		return;
	if (this_cpu_inc_return(qspl_wait_nest) == 1) {
		xen_clear_irq_pending(irq);
		smp_mb();	/* the clear before the test of *ptr */
	}
	if ((READ_ONCE(*ptr) & mask) == val)
		xen_poll_irq_timeout(irq, 0);	/* 0: no timeout */
	this_cpu_dec(qspl_wait_nest);
}

static void qspl_xen_kick(struct qspl_env *env, unsigned int cpu)
{
	int irq = READ_ONCE(qspl_irq[cpu]);

	if (irq >= 0)
		notify_remote_via_irq(irq);
}

static bool qspl_xen_preempted(struct qspl_env *env, unsigned int cpu)
{
	return vcpu_is_preempted(cpu);
}

const struct qspl_ops qspl_xen_ops = {
	.wait = qspl_xen_wait,
	.kick = qspl_xen_kick,
	.preempted = qspl_xen_preempted,
};

/*
 * After a failed bind_evtchn_to_irqhandler() the port may or may not
 * have been closed already (it closes it when request_irq() fails, not
 * when the mapping fails): close it only if it is still our unmapped IPI.
 */
static void qspl_xen_drop_port(evtchn_port_t port, unsigned int cpu)
{
	struct evtchn_status status = { .dom = DOMID_SELF, .port = port };
	struct evtchn_close close = { .port = port };

	if (HYPERVISOR_event_channel_op(EVTCHNOP_status, &status) ||
	    status.status != EVTCHNSTAT_ipi ||
	    status.vcpu != xen_vcpu_nr(cpu) || irq_from_evtchn(port) >= 0)
		return;
	if (HYPERVISOR_event_channel_op(EVTCHNOP_close, &close))
		pr_warn("cpu %u: cannot close event channel %u\n", cpu, port);
}

static int qspl_xen_bind(unsigned int cpu)
{
	struct evtchn_bind_ipi bind = { .vcpu = xen_vcpu_nr(cpu) };
	int irq, rc;

	rc = HYPERVISOR_event_channel_op(EVTCHNOP_bind_ipi, &bind);
	if (rc)
		return rc;
	snprintf(qspl_irq_name[cpu], sizeof(qspl_irq_name[cpu]), "qspl%u",
		 cpu);
	irq = bind_evtchn_to_irqhandler(bind.port, qspl_xen_interrupt,
					IRQF_NO_AUTOEN, qspl_irq_name[cpu],
					&qspl_irq[cpu]);
	if (irq < 0) {
		qspl_xen_drop_port(bind.port, cpu);
		return irq;
	}
	WRITE_ONCE(qspl_irq[cpu], irq);
	qspl_nr_channels++;
	return 0;
}

void qspl_xen_exit(void)
{
	unsigned int cpu;

	for (cpu = 0; qspl_irq && cpu < nr_cpu_ids; cpu++) {
		if (qspl_irq[cpu] < 0)
			continue;
		unbind_from_irqhandler(qspl_irq[cpu], &qspl_irq[cpu]);
		qspl_irq[cpu] = -1;
		qspl_nr_channels--;
	}
	kfree(qspl_irq);
	qspl_irq = NULL;
	kfree(qspl_irq_name);
	qspl_irq_name = NULL;
}

int qspl_xen_init(void)
{
	unsigned int cpu;
	int rc = 0;

	qspl_irq = kmalloc_array(nr_cpu_ids, sizeof(*qspl_irq), GFP_KERNEL);
	if (!qspl_irq)
		return -ENOMEM;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		qspl_irq[cpu] = -1;
	qspl_irq_name = kcalloc(nr_cpu_ids, sizeof(*qspl_irq_name),
				GFP_KERNEL);
	if (!qspl_irq_name) {
		rc = -ENOMEM;
		goto out;
	}
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		rc = qspl_xen_bind(cpu);
		if (rc) {
			pr_err("cpu %u: cannot bind an IPI event channel (%d)\n",
			       cpu, rc);
			break;
		}
	}
	cpus_read_unlock();
out:
	if (rc)
		qspl_xen_exit();
	return rc;
}
