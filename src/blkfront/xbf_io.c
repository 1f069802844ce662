// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * xen-blkfront-64k's I/O path: requests onto the rings (copied through
 * grant slots, or granted in place), responses validated off them, and
 * requests whose pages the backend still maps held until it lets go.
 */
#include "blkfront.h"

/* ---- killing a device ---- */

/*
 * Kill the device for a fault: from now on every request fails, the
 * backend's responses are ignored, and the kill work fails what is
 * outstanding.  Counts @why each time.  Callable from any context.
 */
void xbf_kill(struct xbf_info *info, enum xbf_err why, const char *what)
{
	xbf_count_err(info, why);
	if (xchg(&info->dead_error, true))
		return;
	WRITE_ONCE(info->dead, true);
	dev_err(&info->xbdev->dev,
		"%s; device disabled, all I/O to it now fails\n", what);
	schedule_work(&info->kill_work);
}

/*
 * An orderly end (unbind, backend closing): new I/O fails, but what is in
 * flight may still be answered.  The caller fails the rest (teardown).
 */
void xbf_shutdown(struct xbf_info *info, const char *why)
{
	if (xchg(&info->dead, true))
		return;
	dev_info(&info->xbdev->dev, "%s; I/O to the device now fails\n", why);
}

/* ---- requests the backend still maps ---- */

/* gnttab_try_end_foreign_access(), or a busy grant injected by debugfs */
static bool xbf_try_end(struct xbf_info *info, grant_ref_t gref)
{
	if (atomic_add_unless(&info->inject_revoke_busy, -1, 0))
		return false;
	return gnttab_try_end_foreign_access(gref);
}

/* Retry the grants still marked busy; return how many stay mapped. */
static unsigned int xbf_end_busy(struct xbf_info *info, struct xbf_rq *pdu)
{
	unsigned int i;

	for (i = 0; i < pdu->nr_segs; i++) {
		if (pdu->segs[i].busy && xbf_try_end(info, pdu->segs[i].gref)) {
			pdu->segs[i].busy = false;
			pdu->nr_busy--;
		}
	}
	return pdu->nr_busy;
}

/*
 * End the in-place grants of a zero-copy request with a checked revoke.
 * Return: the grants the backend still maps (marked busy, counted in
 * nr_busy); the request's pages must not go back to their owner while
 * any is.
 */
static unsigned int xbf_end_zero_copy(struct xbf_info *info,
				      struct xbf_rq *pdu)
{
	unsigned int i;

	if (!pdu->zero_copy)
		return 0;
	for (i = 0; i < pdu->nr_segs; i++)
		pdu->segs[i].busy = true;
	pdu->nr_busy = pdu->nr_segs;
	if (!xbf_end_busy(info, pdu)) {
		pdu->zero_copy = false;
		pdu->nr_segs = 0;
	}
	return pdu->nr_busy;
}

static void xbf_put_slots(struct xbf_ring *ring, struct xbf_rq *pdu)
{
	if (!pdu->nr_slots)
		return;
	xgp_front_put_bulk(ring->pool, pdu->slots, pdu->nr_slots);
	pdu->nr_slots = 0;
}

/* Why a request is held: the backend's fault, or I/O it still has. */
enum xbf_hold {
	XBF_HOLD_INFLIGHT,	/* failed while the backend still had it */
	XBF_HOLD_ANSWERED,	/* answered, yet its pages still mapped */
	XBF_HOLD_UNSENT,	/* never sent, yet its pages mapped */
};

/*
 * Hold a request whose pages the backend still maps: it is not completed
 * (its pages stay with the driver, so their owner cannot reuse them)
 * until every grant has ended; xbf_held_work() retries, then completes
 * it with an I/O error.  A backend that maps pages of a request it has
 * answered, or was never sent, breaks the protocol: the device is killed.
 * Any context.
 */
static void xbf_hold(struct xbf_info *info, struct xbf_rq *pdu,
		     enum xbf_hold why)
{
	static const char * const what[] = {
		[XBF_HOLD_INFLIGHT] = "in flight",
		[XBF_HOLD_ANSWERED] = "it answered",
		[XBF_HOLD_UNSENT] = "it was never sent",
	};
	unsigned long flags;

	pdu->status = BLK_STS_IOERR;
	dev_warn_ratelimited(&info->xbdev->dev,
			     "backend still maps %u page(s) of a request %s; it completes, with an error, once they are released\n",
			     pdu->nr_busy, what[why]);
	if (why != XBF_HOLD_INFLIGHT)
		xbf_kill(info, XBF_ERR_REVOKE,
			 "backend maps pages of a request it does not own");
	atomic64_inc(&info->stats.held_total);
	atomic64_inc(&xbf_totals.held_total);
	atomic_inc(&xbf_totals.held_now);
	spin_lock_irqsave(&info->held_lock, flags);
	list_add_tail(&pdu->held, &info->held);
	info->nr_held++;
	spin_unlock_irqrestore(&info->held_lock, flags);
	queue_delayed_work(system_wq, &info->held_work,
			   msecs_to_jiffies(XBF_HELD_RETRY_MIN));
}

void xbf_held_work(struct work_struct *work)
{
	struct xbf_info *info = container_of(to_delayed_work(work),
					     struct xbf_info, held_work);
	struct xbf_rq *pdu, *tmp;
	unsigned int n = 0, left;
	unsigned long flags;
	LIST_HEAD(done);

	spin_lock_irqsave(&info->held_lock, flags);
	list_for_each_entry_safe(pdu, tmp, &info->held, held) {
		if (!xbf_end_busy(info, pdu)) {
			list_move_tail(&pdu->held, &done);
			info->nr_held--;
		}
	}
	left = info->nr_held;
	if (left)
		info->held_delay = min(2 * info->held_delay,
				       XBF_HELD_RETRY_MAX);
	else
		info->held_delay = XBF_HELD_RETRY_MIN;
	spin_unlock_irqrestore(&info->held_lock, flags);

	list_for_each_entry_safe(pdu, tmp, &done, held) {
		list_del_init(&pdu->held);
		pdu->zero_copy = false;
		pdu->nr_segs = 0;
		atomic_dec(&xbf_totals.held_now);
		blk_mq_complete_request(blk_mq_rq_from_pdu(pdu));
		n++;
	}
	if (n)
		dev_info(&info->xbdev->dev,
			 "backend released the pages of %u held request(s), %u still held\n",
			 n, left);
	if (left)
		queue_delayed_work(system_wq, &info->held_work,
				   msecs_to_jiffies(info->held_delay));
	else
		wake_up_all(&info->held_wq);
}

unsigned int xbf_nr_held(struct xbf_info *info)
{
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&info->held_lock, flags);
	n = info->nr_held;
	spin_unlock_irqrestore(&info->held_lock, flags);
	return n;
}

/*
 * Give back everything a request holds: slots, and in-place grants.
 * Return: true if the request may complete now; false if the backend
 * still maps some of its pages: then it was held (xbf_hold()) and the
 * caller must leave it alone.
 */
static bool xbf_release_rq(struct xbf_ring *ring, struct xbf_rq *pdu,
			   enum xbf_hold why)
{
	xbf_put_slots(ring, pdu);
	if (!xbf_end_zero_copy(ring->info, pdu))
		return true;
	xbf_hold(ring->info, pdu, why);
	return false;
}

/* Copy between the request's pages and its packed data slots. */
static void xbf_copy(struct xbf_info *info, struct request *rq,
		     struct xbf_rq *pdu, bool to_slots)
{
	struct req_iterator iter;
	struct bio_vec bv;
	unsigned long pos = 0, copies = 0;

	rq_for_each_segment(bv, rq, iter) {
		struct xgp_copy_iter it;
		struct xgp_copy_frag f;

		xgp_copy_iter_init(&it, bv.bv_offset, pos, bv.bv_len);
		while (xgp_copy_next(&it, &f)) {
			struct page *pg = nth_page(bv.bv_page, f.page_idx);
			char *slot = (char *)pdu->slots[f.grant]->vaddr +
				     f.grant_off;
			char *va = kmap_local_page(pg);

			if (to_slots)
				memcpy(slot, va + f.page_off, f.len);
			else
				memcpy(va + f.page_off, slot, f.len);
			kunmap_local(va);
			copies++;
		}
		pos += bv.bv_len;
	}
	atomic64_add(copies, &info->stats.bounce_copies);
	atomic64_add(pos, &info->stats.bounce_bytes);
}

/* Finish a request whose parts all completed.  Ring lock held. */
static void xbf_finish_rq(struct xbf_ring *ring, struct request *rq,
			  struct xbf_rq *pdu)
{
	struct xbf_info *info = ring->info;

	if (pdu->status == BLK_STS_OK && req_op(rq) == REQ_OP_READ &&
	    (pdu->nr_slots || pdu->zero_copy)) {
		/* a killed device's data is never passed up, copied or not */
		if (xbf_killed(info))
			pdu->status = BLK_STS_IOERR;
		else if (!pdu->zero_copy)
			xbf_copy(info, rq, pdu, false);
	}
	if (xbf_release_rq(ring, pdu, XBF_HOLD_ANSWERED))
		blk_mq_complete_request(rq);
}

/*
 * Take every outstanding request off a ring: fail it, or with @requeue
 * hand it back to the block layer to be sent again (resume).  A request
 * whose pages the backend still maps is held instead (never resent nor
 * completed while its old grants are live).  Ring lock held; returns
 * the number of block requests.
 */
unsigned int xbf_drain_ring(struct xbf_ring *ring, bool requeue)
{
	unsigned int id, n = 0;

	if (!ring->ids.ent)
		return 0;
	for (id = 0; id < ring->ids.size; id++) {
		struct xgp_id_ent *e = &ring->ids.ent[id];
		struct request *rq;
		struct xbf_rq *pdu;

		if (e->state != XGP_ID_INFLIGHT)
			continue;
		rq = (struct request *)e->cookie;
		pdu = blk_mq_rq_to_pdu(rq);
		xgp_id_put(&ring->ids, id);
		if (--pdu->parts_left)
			continue;
		n++;
		if (!xbf_release_rq(ring, pdu, XBF_HOLD_INFLIGHT))
			continue;
		if (requeue) {
			atomic64_inc(&ring->info->stats.requeued);
			blk_mq_requeue_request(rq, false);
		} else {
			pdu->status = BLK_STS_IOERR;
			blk_mq_complete_request(rq);
		}
	}
	return n;
}

/* Fail every outstanding request of a dead device.  info->mutex held. */
void xbf_fail_all(struct xbf_info *info)
{
	unsigned int i, n = 0;
	unsigned long flags;

	for (i = 0; info->rings_live && i < info->nr_rings; i++) {
		struct xbf_ring *ring = &info->rings[i];

		spin_lock_irqsave(&ring->lock, flags);
		n += xbf_drain_ring(ring, false);
		spin_unlock_irqrestore(&ring->lock, flags);
	}
	atomic64_add(n, &info->stats.errors[XBF_ERR_DEAD]);
	atomic64_add(n, &xbf_totals.errors[XBF_ERR_DEAD]);
	if (n)
		dev_info(&info->xbdev->dev, "failed %u outstanding request(s)\n",
			 n);
}

/* Requests on the rings, sent and not answered. */
static unsigned int xbf_inflight(struct xbf_info *info)
{
	unsigned int i, n = 0;
	unsigned long flags;

	for (i = 0; info->rings_live && i < info->nr_rings; i++) {
		struct xbf_ring *ring = &info->rings[i];

		spin_lock_irqsave(&ring->lock, flags);
		n += ring->ids.inflight;
		spin_unlock_irqrestore(&ring->lock, flags);
	}
	return n;
}

/*
 * Before an orderly disconnect: give the backend up to XBF_CLOSE_WAIT_MS
 * to answer what is in flight (responses are still read), so that it has
 * let go of those pages when the rings are torn down.  The mutex is taken
 * per look, so that backend state changes go on meanwhile.
 */
void xbf_wait_inflight(struct xbf_info *info)
{
	unsigned long end = jiffies + msecs_to_jiffies(XBF_CLOSE_WAIT_MS);
	unsigned int n;

	for (;;) {
		mutex_lock(&info->mutex);
		n = xbf_inflight(info);
		mutex_unlock(&info->mutex);
		if (!n || xbf_killed(info) || !time_before(jiffies, end))
			break;
		msleep(20);
	}
	if (n && !xbf_killed(info))
		dev_warn(&info->xbdev->dev,
			 "%u request(s) still unanswered after %u s; closing anyway\n",
			 n, XBF_CLOSE_WAIT_MS / 1000);
}

void xbf_kill_work(struct work_struct *work)
{
	struct xbf_info *info = container_of(work, struct xbf_info, kill_work);

	mutex_lock(&info->mutex);
	xbf_fail_all(info);
	mutex_unlock(&info->mutex);
	if (READ_ONCE(info->dead_error))
		xenbus_dev_error(info->xbdev, -EIO,
				 "frontend disabled the device");
}

/*
 * The backend cannot flush: stop sending flushes (they complete at once)
 * and tell the block layer the disk has no volatile cache, from process
 * context (xbf_wc_work()).  Any context.
 */
static void xbf_stop_flush(struct xbf_info *info, u8 op, enum xbf_verdict v)
{
	if (!xchg(&info->flush_op, 0))
		return;
	atomic64_inc(&info->stats.flush_stops);
	dev_warn(&info->xbdev->dev,
		 "backend answered a %s with '%s': flushes stop, the disk is treated as write-through\n",
		 op == BLKIF_OP_WRITE_BARRIER ? "write barrier" : "cache flush",
		 xbf_verdict_str(v));
	schedule_work(&info->wc_work);
}

/* A response that is not OKAY: what it means for the request. */
static void xbf_rsp_failed(struct xbf_info *info, struct xbf_rq *pdu, u8 op,
			   enum xbf_verdict v)
{
	bool stop = false;

	xbf_count_err(info, v == XBF_RSP_ERROR ? XBF_ERR_IO : XBF_ERR_NOTSUPP);
	switch (xbf_rsp_outcome(op, v, pdu->nr_segs, &stop)) {
	case XBF_OUT_OK:
		break;
	case XBF_OUT_NOTSUPP:
		pdu->status = BLK_STS_NOTSUPP;
		break;
	default:
		pdu->status = BLK_STS_IOERR;
		break;
	}
	if (stop)
		xbf_stop_flush(info, op, v);
}

void xbf_wc_work(struct work_struct *work)
{
	struct xbf_info *info = container_of(work, struct xbf_info, wc_work);
	int err;

	mutex_lock(&info->mutex);
	if (info->gd) {
		err = xps_blk_set_write_cache(info->gd, READ_ONCE(info->flush_op));
		if (err)
			dev_warn(&info->xbdev->dev,
				 "updating the write cache setting failed (%d)\n",
				 err);
	}
	mutex_unlock(&info->mutex);
}

/*
 * Read what the backend answered on @ring: each response is validated,
 * a bad one kills the device.  Return: the responses read (0: the event
 * that brought us here was spurious).  Any context; takes ring->lock.
 */
static unsigned int xbf_reap(struct xbf_ring *ring)
{
	struct xbf_info *info = ring->info;
	unsigned int nr_read = 0;
	bool rerun = false;
	unsigned long flags;
	RING_IDX rp, cons;
	int more;

	spin_lock_irqsave(&ring->lock, flags);
	/* after an orderly shutdown, what is in flight is still answered */
	if (xbf_killed(info) || READ_ONCE(info->state) != XBF_CONNECTED ||
	    !ring->ring.sring)
		goto out;
again:
	rp = READ_ONCE(ring->ring.sring->rsp_prod);
	virt_rmb();	/* read responses only after the producer */
	cons = ring->ring.rsp_cons;
	{
		u32 nr;

		if (xgp_rsp_avail(rp, cons, ring->ring.req_prod_pvt,
				  ring->ring.nr_ents, &nr)) {
			xbf_kill(info, XBF_ERR_PROTOCOL,
				 "backend response producer out of range");
			goto out;
		}
	}
	for (; cons != rp; cons++) {
		struct blkif_response rsp;
		enum xbf_verdict v;
		unsigned long cookie;
		struct request *rq;
		struct xbf_rq *pdu;
		u8 part;

		/* One copy off the shared page; only the copy is used. */
		RING_COPY_RESPONSE(&ring->ring, cons, &rsp);
		nr_read++;
		v = xbf_rsp_check(&ring->ids, rsp.id, rsp.operation,
				  rsp.status, &cookie, &part);
		if (v > XBF_RSP_NOTSUPP) {
			dev_err(&info->xbdev->dev,
				"queue %u: bad response from backend: %s (id %llu op %u status %d)\n",
				ring->index, xbf_verdict_str(v),
				(unsigned long long)rsp.id, rsp.operation,
				rsp.status);
			ring->ring.rsp_cons = cons + 1;
			xbf_kill(info, XBF_ERR_PROTOCOL,
				 "backend sent a malformed response");
			goto out;
		}
		rq = (struct request *)cookie;
		pdu = blk_mq_rq_to_pdu(rq);
		if (v != XBF_RSP_OKAY)
			xbf_rsp_failed(info, pdu, rsp.operation, v);
		if (!--pdu->parts_left)
			xbf_finish_rq(ring, rq, pdu);
	}
	ring->ring.rsp_cons = cons;
	RING_FINAL_CHECK_FOR_RESPONSES(&ring->ring, more);
	if (more)
		goto again;
	/*
	 * Room again for a request that waited: rerun every hardware
	 * queue, as another queue may share this ring (xbf_hctx_ring()).
	 */
	rerun = ring->stalled && nr_read;
	if (rerun)
		ring->stalled = false;
out:
	spin_unlock_irqrestore(&ring->lock, flags);
	if (rerun && info->gd)
		blk_mq_run_hw_queues(info->gd->queue, true);
	return nr_read;
}

irqreturn_t xbf_interrupt(int irq, void *dev_id)
{
	/* late EOI: a backend that only sends events is slowed down */
	xen_irq_lateeoi(irq, xbf_reap(dev_id) ? 0 : XEN_EOI_FLAG_SPURIOUS);
	return IRQ_HANDLED;
}

void xbf_grow_work(struct work_struct *work)
{
	struct xbf_ring *ring = container_of(work, struct xbf_ring, grow_work);
	struct xbf_info *info = ring->info;
	int err;

	if (!ring->pool)
		return;
	err = xgp_front_prefill(ring->pool, 2 * info->slots_per_rq, GFP_NOIO);
	if (err && err != -ENOSPC)
		dev_warn_ratelimited(&info->xbdev->dev,
				     "queue %u: growing the grant pool failed (%d)\n",
				     ring->index, err);
	if (info->gd)
		blk_mq_run_hw_queues(info->gd->queue, true);
}

/*
 * No free slot for a request.  A pool below its limit grows (the work
 * reruns the queues).  With requests in flight on this ring, their
 * completion frees slots and restarts the queue; otherwise the block
 * layer retries after a short delay.  No lock held.
 */
static blk_status_t xbf_slot_wait(struct xbf_ring *ring)
{
	struct xgp_front_stats st;
	unsigned long flags;
	unsigned int busy;

	atomic64_inc(&ring->info->stats.slot_waits);
	xgp_front_pool_stats(ring->pool, &st);
	if (st.slots < st.max_slots)
		schedule_work(&ring->grow_work);
	spin_lock_irqsave(&ring->lock, flags);
	busy = ring->ids.inflight;
	if (busy)
		ring->stalled = true;
	spin_unlock_irqrestore(&ring->lock, flags);
	return busy ? BLK_STS_DEV_RESOURCE : BLK_STS_RESOURCE;
}

/* Take @n more slots for a request; none kept if one is missing. */
static blk_status_t xbf_take_slots(struct xbf_ring *ring, struct xbf_rq *pdu,
				   unsigned int n, unsigned int flags)
{
	if (!n)
		return BLK_STS_OK;
	if (!xgp_front_get_bulk(ring->pool, pdu->slots, n, flags))
		return xbf_slot_wait(ring);
	pdu->nr_slots = n;
	return BLK_STS_OK;
}

/* Take the slots of a request and fill them.  No lock held. */
static blk_status_t xbf_get_slots(struct xbf_ring *ring, struct request *rq,
				  struct xbf_rq *pdu, const struct xbf_plan *p)
{
	struct xbf_info *info = ring->info;
	blk_status_t st;
	unsigned int i;

	/* an untrusted backend reads whole slots: a read's start zeroed */
	st = xbf_take_slots(ring, pdu, p->nr_grants + p->nr_indirect,
			    !info->trusted && req_op(rq) != REQ_OP_WRITE ?
			    XGP_GET_ZERO : 0);
	if (st != BLK_STS_OK)
		return st;
	for (i = 0; i < p->nr_grants; i++) {
		pdu->segs[i].gref = pdu->slots[i]->gref;
		xbf_grant_sects(p->bytes, i, &pdu->segs[i].first_sect,
				&pdu->segs[i].last_sect);
	}
	pdu->nr_segs = p->nr_grants;
	if (req_op(rq) == REQ_OP_WRITE) {
		unsigned int tail = p->bytes % XGP_GRANT_SIZE;

		xbf_copy(info, rq, pdu, true);
		/* the rest of the last slot holds older data: clear it */
		if (!info->trusted && tail)
			memset((char *)pdu->slots[p->nr_grants - 1]->vaddr + tail,
			       0, XGP_GRANT_SIZE - tail);
	}
	return BLK_STS_OK;
}

/*
 * Plan a zero-copy request: one segment per 4 KB piece of the block
 * layer's pages.  Return: 0, or -EINVAL (a piece not a whole number of
 * the disk's logical blocks) or
 * -E2BIG (more segments than the request limits allow): copy instead.
 */
static int xbf_plan_zero_copy(struct xbf_info *info, struct request *rq,
			      struct xbf_plan *p)
{
	struct req_iterator iter;
	struct bio_vec bv;
	unsigned int k, n = 0;

	rq_for_each_segment(bv, rq, iter) {
		k = xbf_direct_pieces(bv.bv_offset, bv.bv_len,
				      info->sector_size);
		if (!k)
			return -EINVAL;
		n += k;
		if (n > info->max_segs)
			return -E2BIG;
	}
	if (xbf_plan_segs(n, blk_rq_bytes(rq), info->max_indirect, p) ||
	    p->nr_parts > info->ring_size ||
	    p->nr_indirect > info->slots_per_rq)
		return -E2BIG;
	return 0;
}

/*
 * Grant a request's own pages in place (write: read-only grants) and
 * take slots for its indirect pages only.  No lock held.
 *
 * Return: BLK_STS_OK; BLK_STS_AGAIN if the grant table is out of
 * references (the caller copies instead); or the slot-wait status.
 */
static blk_status_t xbf_get_zero_copy(struct xbf_ring *ring,
				      struct request *rq, struct xbf_rq *pdu,
				      const struct xbf_plan *p)
{
	struct xbf_info *info = ring->info;
	bool ro = req_op(rq) == REQ_OP_WRITE;
	domid_t domid = info->xbdev->otherend_id;
	struct req_iterator iter;
	struct bio_vec bv;
	grant_ref_t head;
	blk_status_t st;
	unsigned int k = 0;

	st = xbf_take_slots(ring, pdu, p->nr_indirect, 0);
	if (st != BLK_STS_OK)
		return st;
	if (gnttab_alloc_grant_references(p->nr_grants, &head)) {
		xbf_put_slots(ring, pdu);
		return BLK_STS_AGAIN;
	}
	rq_for_each_segment(bv, rq, iter) {
		struct xbf_direct_piece pc;
		struct xgp_copy_iter it;

		xgp_copy_iter_init(&it, bv.bv_offset, 0, bv.bv_len);
		while (xbf_direct_next(&it, &pc)) {
			struct page *pg = nth_page(bv.bv_page, pc.page_idx);
			struct xbf_seg *seg = &pdu->segs[k++];

			seg->gref = gnttab_claim_grant_reference(&head);
			gnttab_grant_foreign_access_ref(seg->gref, domid,
							pfn_to_gfn(page_to_xen_pfn(pg) + pc.sub),
							ro);
			seg->first_sect = pc.first_sect;
			seg->last_sect = pc.last_sect;
		}
	}
	/* k == p->nr_grants: the plan counted the same pieces */
	pdu->nr_segs = k;
	pdu->zero_copy = true;
	atomic64_inc(&info->stats.zc_requests);
	atomic64_add(k, &info->stats.zc_grants);
	return BLK_STS_OK;
}

/* Write one part of a read/write request to the ring.  Ring lock held. */
static void xbf_put_rw_part(struct xbf_ring *ring, struct request *rq,
			    struct xbf_rq *pdu, const struct xbf_plan *p,
			    unsigned int part, unsigned int id, u8 op,
			    unsigned int *ind_slot, sector_t *sector_pos)
{
	struct xbf_info *info = ring->info;
	unsigned int first, n, nind, i;
	struct blkif_request req;
	sector_t sector = *sector_pos;

	xbf_plan_part(p, part, &first, &n, &nind);
	for (i = 0; i < n; i++)
		*sector_pos += pdu->segs[first + i].last_sect -
			       pdu->segs[first + i].first_sect + 1;
	memset(&req, 0, sizeof(req));
	if (!p->indirect) {
		req.operation = op;
		req.u.rw.nr_segments = n;
		req.u.rw.handle = info->handle;
		req.u.rw.id = id;
		req.u.rw.sector_number = sector;
		for (i = 0; i < n; i++) {
			struct blkif_request_segment *seg = &req.u.rw.seg[i];

			seg->gref = pdu->segs[first + i].gref;
			seg->first_sect = pdu->segs[first + i].first_sect;
			seg->last_sect = pdu->segs[first + i].last_sect;
		}
	} else {
		req.operation = BLKIF_OP_INDIRECT;
		req.u.indirect.indirect_op = op;
		req.u.indirect.nr_segments = n;
		req.u.indirect.id = id;
		req.u.indirect.sector_number = sector;
		req.u.indirect.handle = info->handle;
		for (i = 0; i < nind; i++) {
			struct xgp_slot *s = pdu->slots[*ind_slot + i];

			/* the backend reads the page: nothing stale beyond n */
			memset(s->vaddr, 0, XGP_GRANT_SIZE);
			req.u.indirect.indirect_grefs[i] = s->gref;
		}
		for (i = 0; i < n; i++) {
			struct xgp_slot *s = pdu->slots[*ind_slot +
							i / XBF_SEGS_PER_INDIRECT];
			struct blkif_request_segment *seg = s->vaddr;

			seg += i % XBF_SEGS_PER_INDIRECT;
			seg->gref = pdu->segs[first + i].gref;
			seg->first_sect = pdu->segs[first + i].first_sect;
			seg->last_sect = pdu->segs[first + i].last_sect;
		}
		*ind_slot += nind;
		atomic64_inc(&info->stats.indirect);
	}
	*RING_GET_REQUEST(&ring->ring, ring->ring.req_prod_pvt) = req;
	ring->ring.req_prod_pvt++;
}

/*
 * The ring of a hardware queue.  Fewer rings than hardware queues after a
 * restore onto a backend that offers fewer: queues share them.  nr_rings
 * changes only while the queue is quiesced (xbf_resume() to connect).
 */
static struct xbf_ring *xbf_hctx_ring(struct xbf_info *info,
				      struct blk_mq_hw_ctx *hctx)
{
	return &info->rings[hctx->queue_num % info->nr_rings];
}

static blk_status_t xbf_queue_rq(struct blk_mq_hw_ctx *hctx,
				 const struct blk_mq_queue_data *bd)
{
	struct xbf_info *info = hctx->driver_data;
	struct xbf_ring *ring = xbf_hctx_ring(info, hctx);
	struct request *rq = bd->rq;
	struct xbf_rq *pdu = blk_mq_rq_to_pdu(rq);
	struct blkif_request req;
	struct xbf_plan plan;
	unsigned long flags;
	unsigned int i, ind_slot;
	blk_status_t st;
	int id, notify;
	u8 op;

	pdu->ring = ring;
	pdu->segs = (struct xbf_seg *)&pdu->slots[info->slots_per_rq];
	INIT_LIST_HEAD(&pdu->held);
	pdu->status = BLK_STS_OK;
	pdu->nr_slots = 0;
	pdu->nr_segs = 0;
	pdu->nr_busy = 0;
	pdu->zero_copy = false;
	pdu->nr_parts = 1;

	if (xbf_dead(info))
		return BLK_STS_IOERR;
	if (READ_ONCE(info->state) != XBF_CONNECTED)
		return BLK_STS_DEV_RESOURCE;

	blk_mq_start_request(rq);
	memset(&req, 0, sizeof(req));
	memset(&plan, 0, sizeof(plan));
	switch (req_op(rq)) {
	case REQ_OP_FLUSH:
		/* 0 also after the backend showed it cannot flush */
		op = READ_ONCE(info->flush_op);
		if (!op) {
			blk_mq_end_request(rq, BLK_STS_OK);
			return BLK_STS_OK;
		}
		req.operation = op;
		req.u.rw.handle = info->handle;
		break;
	case REQ_OP_DISCARD:
	case REQ_OP_SECURE_ERASE:
		if (!info->discard)
			return BLK_STS_NOTSUPP;
		op = BLKIF_OP_DISCARD;
		req.operation = op;
		req.u.discard.flag = req_op(rq) == REQ_OP_SECURE_ERASE ?
				     BLKIF_DISCARD_SECURE : 0;
		req.u.discard.sector_number = blk_rq_pos(rq);
		req.u.discard.nr_sectors = blk_rq_sectors(rq);
		break;
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		op = req_op(rq) == REQ_OP_READ ? BLKIF_OP_READ : BLKIF_OP_WRITE;
		st = BLK_STS_AGAIN;
		if (info->zero_copy) {
			if (!xbf_plan_zero_copy(info, rq, &plan))
				st = xbf_get_zero_copy(ring, rq, pdu, &plan);
			if (st == BLK_STS_AGAIN)
				atomic64_inc(&info->stats.zc_fallbacks);
		}
		if (st == BLK_STS_AGAIN) {
			if (xbf_plan_request(blk_rq_bytes(rq),
					     info->max_indirect, &plan) ||
			    plan.nr_grants + plan.nr_indirect >
			    info->slots_per_rq) {
				dev_err_ratelimited(&info->xbdev->dev,
						    "request of %u bytes does not fit the negotiated limits\n",
						    blk_rq_bytes(rq));
				return BLK_STS_IOERR;
			}
			st = xbf_get_slots(ring, rq, pdu, &plan);
		}
		if (st != BLK_STS_OK)
			return st;
		pdu->nr_parts = plan.nr_parts;
		break;
	default:
		return BLK_STS_NOTSUPP;
	}

	spin_lock_irqsave(&ring->lock, flags);
	if (xbf_dead(info)) {
		st = BLK_STS_IOERR;
		goto unsent;
	}
	if (xgp_ring_room(ring->ring.req_prod_pvt, ring->ring.rsp_cons,
			  ring->ring.nr_ents) < pdu->nr_parts ||
	    ring->ids.size - ring->ids.inflight < pdu->nr_parts ||
	    atomic_add_unless(&info->inject_unsent, -1, 0)) {
		/* a completion on this ring runs the queues again */
		ring->stalled = true;
		st = BLK_STS_DEV_RESOURCE;
		goto unsent;
	}
	pdu->parts_left = pdu->nr_parts;
	if (!plan.nr_grants) {
		id = xgp_id_get(&ring->ids, op, (unsigned long)rq, 0);
		/* the id fits: checked just above */
		req.u.other.id = id;
		*RING_GET_REQUEST(&ring->ring, ring->ring.req_prod_pvt) = req;
		ring->ring.req_prod_pvt++;
	} else {
		sector_t sector = blk_rq_pos(rq);

		ind_slot = pdu->zero_copy ? 0 : plan.nr_grants;
		for (i = 0; i < plan.nr_parts; i++) {
			id = xgp_id_get(&ring->ids, op, (unsigned long)rq, i);
			xbf_put_rw_part(ring, rq, pdu, &plan, i, id, op,
					&ind_slot, &sector);
		}
		atomic64_add(plan.nr_grants, &info->stats.segments);
		if (plan.nr_parts > 1)
			atomic64_inc(&info->stats.split);
	}
	atomic64_inc(&info->stats.requests);
	RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&ring->ring, notify);
	spin_unlock_irqrestore(&ring->lock, flags);
	if (notify)
		notify_remote_via_irq(ring->irq);
	return BLK_STS_OK;

unsent:
	/*
	 * Never sent, so every grant must end.  One the backend maps all
	 * the same is held (and kills the device): the request is ours now.
	 */
	if (!xbf_release_rq(ring, pdu, XBF_HOLD_UNSENT))
		st = BLK_STS_OK;
	spin_unlock_irqrestore(&ring->lock, flags);
	return st;
}

static void xbf_complete_rq(struct request *rq)
{
	struct xbf_rq *pdu = blk_mq_rq_to_pdu(rq);

	blk_mq_end_request(rq, pdu->status);
}

static int xbf_init_hctx(struct blk_mq_hw_ctx *hctx, void *data,
			 unsigned int index)
{
	struct xbf_info *info = data;	/* tag_set.driver_data */

	if (index >= info->nr_hw)
		return -EINVAL;
	hctx->driver_data = info;
	return 0;
}

/*
 * A request unanswered for request_timeout seconds (or the block layer's
 * 30 s without one).  First look at its ring: a backend that wrote its
 * responses without an event has answered, and what it answered is read
 * now, validated as always (the way NVMe polls its completion queue on a
 * timeout), except while frozen for a save (xbf_suspend()).  Really
 * unanswered, with a timeout set: the backend is stuck
 * (or its disk is).  Disable the device, which fails what is outstanding;
 * a zero-copy request whose pages the backend still maps is held until it
 * lets go (its pages must not go back to their owner before).  With no
 * timeout set, the stock driver's behaviour: wait forever.
 */
static enum blk_eh_timer_return xbf_timeout(struct request *rq)
{
	struct xbf_info *info = rq->q->queuedata;
	struct xbf_ring *ring = xbf_hctx_ring(info, rq->mq_hctx);
	unsigned int n;

	if (xbf_dead(info))
		return BLK_EH_RESET_TIMER;
	n = READ_ONCE(info->frozen) ? 0 : xbf_reap(ring);
	if (n) {
		atomic64_add(n, &info->stats.unnotified);
		dev_warn_ratelimited(&info->xbdev->dev,
				     "queue %u: %u response(s) found by the request timeout: the backend answered without an event\n",
				     ring->index, n);
	}
	if (blk_mq_rq_state(rq) != MQ_RQ_IN_FLIGHT)
		return BLK_EH_DONE;
	if (!info->timeout || xbf_dead(info))
		return BLK_EH_RESET_TIMER;
	dev_err(&info->xbdev->dev,
		"a request is unanswered after %u s (request_timeout)\n",
		info->timeout);
	xbf_kill(info, XBF_ERR_TIMEOUT, "backend stopped answering");
	return BLK_EH_RESET_TIMER;
}

const struct blk_mq_ops xbf_mq_ops = {
	.queue_rq = xbf_queue_rq,
	.complete = xbf_complete_rq,
	.init_hctx = xbf_init_hctx,
	.timeout = xbf_timeout,
};
