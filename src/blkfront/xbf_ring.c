// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * xen-blkfront-64k's rings: granted, published to the backend with the
 * negotiated queues and ring size, and torn down with checked revokes;
 * the grant-slot pools that go with them.
 */
#include "blkfront.h"

/* End the ring grants with a checked revoke; keep the pages if mapped. */
static void xbf_free_ring_pages(struct xbf_ring *ring)
{
	struct xbf_info *info = ring->info;
	unsigned int busy;

	/*
	 * A ring the backend still maps is kept by the grant pool, never
	 * reused, and freed once it lets go: blkback keeps its ring mapped
	 * until the next connect when it had I/O in flight at the close.
	 */
	busy = xgp_ring_release(info->xbdev->otherend_id, ring->ring_va,
				info->ring_order, ring->ring_ref);
	if (busy) {
		xbf_count_err(info, XBF_ERR_REVOKE);
		dev_warn(&info->xbdev->dev,
			 "queue %u: backend still maps %u ring page(s); kept until it lets go\n",
			 ring->index, busy);
	}
	ring->ring_va = NULL;
}

static void xbf_destroy_pool(struct xbf_ring *ring)
{
	struct xbf_info *info = ring->info;
	struct xgp_front_stats st;
	unsigned int busy;

	if (!ring->pool)
		return;
	cancel_work_sync(&ring->grow_work);
	xgp_front_pool_stats(ring->pool, &st);
	atomic64_add(st.grants_issued, &info->stats.pool_issued);
	atomic64_add(st.reused, &info->stats.pool_reused);
	/* the destroy's own revokes: slots the backend still maps */
	busy = xgp_front_pool_destroy(ring->pool);
	if (busy) {
		xbf_count_err(info, XBF_ERR_REVOKE);
		atomic64_add(busy, &xbf_totals.pool_busy);
	}
	ring->pool = NULL;
}

/*
 * Tear a ring down.  Outstanding requests are requeued or failed.  The
 * queue must be quiesced (no xbf_queue_rq running) when it exists.
 */
static void xbf_free_ring(struct xbf_ring *ring, bool requeue)
{
	unsigned long flags;

	if (ring->irq > 0) {
		unbind_from_irqhandler(ring->irq, ring);
		ring->irq = 0;
		ring->evtchn = 0;
	} else if (ring->evtchn) {
		xenbus_free_evtchn(ring->info->xbdev, ring->evtchn);
		ring->evtchn = 0;
	}
	spin_lock_irqsave(&ring->lock, flags);
	xbf_drain_ring(ring, requeue);
	/* a request timeout's xbf_reap() must not look at it any more */
	ring->ring.sring = NULL;
	spin_unlock_irqrestore(&ring->lock, flags);
	xbf_destroy_pool(ring);
	xgp_idtab_destroy(&ring->ids);
	xbf_free_ring_pages(ring);
}

/*
 * The ring array itself lives as long as the device (the hardware
 * queues point into it); this releases what each ring holds.
 */
static void xbf_free_rings(struct xbf_info *info, bool requeue)
{
	unsigned int i;

	if (!info->rings_live)
		return;
	for (i = 0; i < info->nr_rings; i++)
		xbf_free_ring(&info->rings[i], requeue);
	info->rings_live = false;
}

/*
 * Release the rings with the queue quiesced.  With @requeue (resume)
 * the queue stays quiesced until the backend is connected again; a
 * device still resuming already has its queue quiesced.  info->mutex
 * held.
 */
void xbf_teardown(struct xbf_info *info, bool requeue)
{
	bool resuming = info->state == XBF_RESUMING;

	if (info->gd && !resuming)
		blk_mq_quiesce_queue(info->gd->queue);
	xbf_free_rings(info, requeue);
	if (requeue)
		return;
	WRITE_ONCE(info->state, XBF_DISCONNECTED);
	if (info->gd) {
		blk_mq_unquiesce_queue(info->gd->queue);
		blk_mq_kick_requeue_list(info->gd->queue);
	}
}

/* A resume that cannot complete: let the (dead) queue fail its I/O. */
void xbf_abort_resume(struct xbf_info *info)
{
	if (info->state != XBF_RESUMING)
		return;
	WRITE_ONCE(info->state, XBF_DISCONNECTED);
	if (info->gd) {
		blk_mq_unquiesce_queue(info->gd->queue);
		blk_mq_kick_requeue_list(info->gd->queue);
	}
}

static int xbf_setup_ring(struct xbf_info *info, struct xbf_ring *ring)
{
	struct xenbus_device *dev = info->xbdev;
	unsigned int i, nr = 1U << info->ring_order;
	struct blkif_sring *sring;
	void *va;
	int err;

	for (i = 0; i < XENBUS_MAX_RING_GRANTS; i++)
		ring->ring_ref[i] = INVALID_GRANT_REF;
	va = xgp_ring_alloc(dev->otherend_id, info->ring_order, ring->ring_ref,
			    GFP_NOIO);
	if (IS_ERR(va))
		return PTR_ERR(va);
	ring->ring_va = va;
	sring = ring->ring_va;
	SHARED_RING_INIT(sring);
	FRONT_RING_INIT(&ring->ring, sring, nr * XEN_PAGE_SIZE);

	err = xgp_idtab_init(&ring->ids, RING_SIZE(&ring->ring));
	if (err)
		return err;
	err = xenbus_alloc_evtchn(dev, &ring->evtchn);
	if (err)
		return err;
	err = bind_evtchn_to_irqhandler_lateeoi(ring->evtchn, xbf_interrupt,
						0, ring->name, ring);
	if (err <= 0)
		return err ? err : -EINVAL;
	ring->irq = err;
	return 0;
}

static int xbf_write_ring(struct xbf_info *info, struct xbf_ring *ring,
			  struct xenbus_transaction xbt, const char *dir)
{
	unsigned int i, nr = 1U << info->ring_order;
	char key[24];	/* "ring-ref%u" for any unsigned int */
	int err;

	if (info->ring_order) {
		for (i = 0; i < nr; i++) {
			snprintf(key, sizeof(key), "ring-ref%u", i);
			err = xenbus_printf(xbt, dir, key, "%u",
					    ring->ring_ref[i]);
			if (err)
				return err;
		}
	} else {
		err = xenbus_printf(xbt, dir, "ring-ref", "%u",
				    ring->ring_ref[0]);
		if (err)
			return err;
	}
	return xenbus_printf(xbt, dir, "event-channel", "%u", ring->evtchn);
}

/*
 * Remove the ring keys an earlier connection may have left in our
 * xenstore directory (another driver, or this one with other
 * parameters): a stale ring-page-order, multi-queue-num-queues or
 * queue-%u would make the backend map old grant references.  Missing
 * keys are not an error.
 */
static void xbf_clear_ring_keys(struct xenbus_transaction xbt,
				const char *dir, unsigned int nr_queues)
{
	unsigned int i;
	char key[24];	/* "queue-%u" for any unsigned int */

	xenbus_rm(xbt, dir, "ring-page-order");
	xenbus_rm(xbt, dir, "multi-queue-num-queues");
	xenbus_rm(xbt, dir, "event-channel");
	xenbus_rm(xbt, dir, "ring-ref");
	for (i = 0; i < XENBUS_MAX_RING_GRANTS; i++) {
		snprintf(key, sizeof(key), "ring-ref%u", i);
		xenbus_rm(xbt, dir, key);
	}
	for (i = 0; i < nr_queues; i++) {
		snprintf(key, sizeof(key), "queue-%u", i);
		xenbus_rm(xbt, dir, key);
	}
}

struct xbf_publish {
	struct xbf_info *info;
	unsigned int stale_queues;	/* queue-%u keys to clear */
};

/* The keys of this connection (xgp_xs_publish's writer). */
static int xbf_write_keys(struct xenbus_transaction xbt, void *arg,
			  const char **what)
{
	struct xbf_publish *pub = arg;
	struct xbf_info *info = pub->info;
	const char *dir = info->xbdev->nodename;
	unsigned int i;
	int err;

	*what = "writing ring references";
	xbf_clear_ring_keys(xbt, dir, pub->stale_queues);
	if (info->ring_order) {
		err = xenbus_printf(xbt, dir, "ring-page-order", "%u",
				    info->ring_order);
		if (err)
			return err;
	}
	if (info->nr_rings == 1) {
		err = xbf_write_ring(info, &info->rings[0], xbt, dir);
		if (err)
			return err;
	} else {
		err = xenbus_printf(xbt, dir, "multi-queue-num-queues", "%u",
				    info->nr_rings);
		if (err)
			return err;
		for (i = 0; i < info->nr_rings; i++) {
			char *path = kasprintf(GFP_NOIO, "%s/queue-%u", dir, i);

			if (!path)
				return -ENOMEM;
			err = xbf_write_ring(info, &info->rings[i], xbt, path);
			kfree(path);
			if (err)
				return err;
		}
	}
	*what = "writing protocol";
	return xenbus_printf(xbt, dir, "protocol", "%s",
			     XEN_IO_PROTO_ABI_NATIVE) ?:
	       xenbus_printf(xbt, dir, "feature-persistent", "%u",
			     info->offer_persistent);
}

/* Allocate the rings and publish them; then switch to Initialised. */
int xbf_talk_to_backend(struct xbf_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	unsigned int i, be_order, be_queues, nr;
	struct xbf_publish pub;
	int err;

	be_order = xenbus_read_unsigned(dev->otherend, "max-ring-page-order",
					0);
	info->ring_order = min3(READ_ONCE(xbf_max_ring_page_order), be_order,
				(unsigned int)XENBUS_MAX_RING_GRANT_ORDER);
	be_queues = xenbus_read_unsigned(dev->otherend,
					 "multi-queue-max-queues", 1);
	if (!info->rings) {
		nr = min3(READ_ONCE(xbf_max_queues), be_queues,
			  num_online_cpus());
		info->nr_hw = max(nr, 1U);
		info->nr_rings = info->nr_hw;
	} else {
		/*
		 * After a restore the backend (another dom0, other settings)
		 * may offer fewer queues: the hardware queues then share
		 * rings (xbf_hctx_ring()).  Never more rings than hardware
		 * queues, which were fixed with the tag set.
		 */
		nr = min(info->nr_hw, max(be_queues, 1U));
		if (nr != info->nr_rings)
			dev_info(&dev->dev, "backend offers %u queue(s): %u ring(s) for %u hardware queue(s), was %u\n",
				 be_queues, nr, info->nr_hw, info->nr_rings);
		info->nr_rings = nr;
	}
	info->offer_persistent = READ_ONCE(xbf_feature_persistent);
	info->trusted = READ_ONCE(xbf_trusted) &&
			xenbus_read_unsigned(dev->nodename, "trusted", 1);

	if (!info->rings) {
		info->rings = kcalloc(info->nr_hw, sizeof(*info->rings),
				      GFP_NOIO);
		if (!info->rings)
			return -ENOMEM;
	}
	info->rings_live = true;
	for (i = 0; i < info->nr_rings; i++) {
		struct xbf_ring *ring = &info->rings[i];

		memset(ring, 0, sizeof(*ring));
		ring->info = info;
		ring->index = i;
		spin_lock_init(&ring->lock);
		INIT_WORK(&ring->grow_work, xbf_grow_work);
		snprintf(ring->name, sizeof(ring->name), "xbf%u-q%u",
			 info->vdevice, i);
		err = xbf_setup_ring(info, ring);
		if (err)
			goto fail;
	}
	info->ring_size = RING_SIZE(&info->rings[0].ring);

	/* earlier connections used at most one queue per CPU */
	pub.info = info;
	pub.stale_queues = max(min(be_queues, nr_cpu_ids), info->nr_rings);
	err = xgp_xs_publish(dev, xbf_write_keys, &pub);
	if (err) {
		xbf_free_rings(info, false);
		return err;
	}
	xenbus_switch_state(dev, XenbusStateInitialised);
	return 0;

fail:
	xenbus_dev_fatal(dev, err, "allocating rings");
	xbf_free_rings(info, false);
	return err;
}

/*
 * Create the slot pools of every ring, sized for the queue depth but
 * within what a stock blkback keeps mapped per ring (its max_pgrants
 * default): beyond that it maps and unmaps per request and keeps purging
 * its persistent grants, which costs far more than waiting for a slot.
 */
int xbf_create_pools(struct xbf_info *info)
{
	unsigned int i, max = info->depth * info->slots_per_rq;
	unsigned int prefill;
	int err;

	max = max(min(max, XBF_BACKEND_PGRANTS), info->slots_per_rq);
	prefill = min(max, 4 * info->slots_per_rq);

	for (i = 0; i < info->nr_rings; i++) {
		struct xbf_ring *ring = &info->rings[i];
		struct xgp_front_pool *pool;

		pool = xgp_front_pool_create(ring->name,
					     info->xbdev->otherend_id, max, 0);
		if (IS_ERR(pool))
			return PTR_ERR(pool);
		ring->pool = pool;
		err = xgp_front_prefill(pool, prefill, GFP_NOIO);
		if (err && err != -ENOSPC)
			return err;
	}
	return 0;
}
