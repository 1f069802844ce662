// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * xen-blkfront-64k: Xen virtual block device frontend.
 *
 * Binds the "vbd" xenbus devices and presents them as /dev/xvd* disks.
 * Data travels through 4 KB grant slots of a per-queue xen-grant-pool
 * pool: a 64 KB guest page backs sixteen slots, and with
 * feature-persistent the backend maps each slot once.  Requests are
 * densely packed into the slots (see blkfront_core.h) and go to the
 * backend as plain, indirect or split ring requests.
 *
 * One exception, "zero copy": when the backend is trusted and maps every
 * grant per request anyway (no persistent grants), copying buys nothing,
 * so the block layer's own pages are granted in 4 KB pieces instead,
 * ended with a checked revoke when the response arrives.
 *
 * The backend is not trusted: responses are copied off the shared ring
 * before use and validated (id, outstanding, operation, status), the
 * response producer is bounded by what was sent, events are handled with
 * late EOI, and every grant end is checked.  A protocol violation kills
 * the device: every outstanding and future request fails with an I/O
 * error, nothing the backend wrote for a failed request is passed up.
 */
/* pr_fmt ("xen_blkfront_64k: ") comes from the block section of compat.h */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/interrupt.h>
#include <linux/slab.h>
#include <linux/highmem.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/major.h>
#include <linux/delay.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/wait.h>
#include <xen/xen.h>
#include <xen/xenbus.h>
#include <xen/grant_table.h>
#include <xen/events.h>
#include <xen/page.h>
#include <xen/platform_pci.h>
#include <xen/interface/grant_table.h>
#include <xen/interface/io/blkif.h>
#include <xen/interface/io/protocols.h>
#include <xen-pv-suite/grant_pool.h>
#include "blkfront_core.h"

/* blkfront_core.h repeats these for the userspace tests */
static_assert(XBF_BLKIF_OP_READ == BLKIF_OP_READ);
static_assert(XBF_BLKIF_OP_WRITE == BLKIF_OP_WRITE);
static_assert(XBF_BLKIF_OP_WRITE_BARRIER == BLKIF_OP_WRITE_BARRIER);
static_assert(XBF_BLKIF_OP_FLUSH_DISKCACHE == BLKIF_OP_FLUSH_DISKCACHE);
static_assert(XBF_BLKIF_OP_DISCARD == BLKIF_OP_DISCARD);

#define XBF_DRV_NAME		"vbd-64k"
#define XBF_PARTS_PER_DISK	16
#define XBF_PARTS_PER_EXT_DISK	256
#define XBF_EXT_SHIFT		28
#define XBF_EXTENDED		BIT(XBF_EXT_SHIFT)
/* persistent grants a stock blkback keeps per ring (max_pgrants default) */
#define XBF_BACKEND_PGRANTS	1056U

/* ---- parameters: read at the next connect ---- */

static unsigned int xbf_max_indirect_segments = 128;
module_param_named(max_indirect_segments, xbf_max_indirect_segments, uint,
		   0644);
MODULE_PARM_DESC(max_indirect_segments,
		 "Most 4 KB segments per indirect request (default 128 = 512 KB per request at any page size; 0 or <= 11 disables indirect requests; capped by the backend and at 256). Sets the largest request at a device's first connect; every later connect (restore) splits requests anew for it and the backend.");

static unsigned int xbf_max_queues = 4;
module_param_named(max_queues, xbf_max_queues, uint, 0644);
MODULE_PARM_DESC(max_queues,
		 "Most hardware queues (rings) per device (default 4; also capped by online CPUs and the backend). Applies to devices probed afterwards.");

static unsigned int xbf_max_ring_page_order;
module_param_named(max_ring_page_order, xbf_max_ring_page_order, uint, 0644);
MODULE_PARM_DESC(max_ring_page_order,
		 "Log2 of the 4 KB pages per ring (default 0 = 1 page, 32 requests; max 4 = 16 pages, 512 requests; capped by the backend). Applies to devices probed afterwards.");

static bool xbf_feature_persistent = true;
module_param_named(feature_persistent, xbf_feature_persistent, bool, 0644);
MODULE_PARM_DESC(feature_persistent,
		 "Offer persistent grants to the backend (default 1 = on). Applies at the next connect.");

static bool xbf_trusted = true;
module_param_named(trusted, xbf_trusted, bool, 0644);
MODULE_PARM_DESC(trusted,
		 "Trust backends (default 1); 0, or xenstore key 'trusted' = 0 for a device, zeroes every slot before the backend sees it. Applies at the next connect.");

static unsigned int xbf_request_timeout;
module_param_named(request_timeout, xbf_request_timeout, uint, 0644);
MODULE_PARM_DESC(request_timeout,
		 "Seconds a request may stay unanswered before the device is disabled (default 0 = wait forever, as the stock driver does). Applies to devices probed afterwards.");

static bool xbf_zero_copy = true;
module_param_named(zero_copy, xbf_zero_copy, bool, 0644);
MODULE_PARM_DESC(zero_copy,
		 "Without persistent grants and with a trusted backend, grant the block layer's pages in place instead of copying through slots (default 1 = on). Applies at the next connect.");

/* ---- statistics ---- */

enum xbf_err {
	XBF_ERR_IO,		/* backend answered BLKIF_RSP_ERROR */
	XBF_ERR_NOTSUPP,	/* backend answered BLKIF_RSP_EOPNOTSUPP */
	XBF_ERR_PROTOCOL,	/* malformed response or ring index */
	XBF_ERR_REVOKE,		/* a grant the backend would not release */
	XBF_ERR_DEAD,		/* requests failed by a dead device */
	XBF_ERR_TIMEOUT,	/* a request stayed unanswered too long */
	XBF_ERR_NR,
};

struct xbf_stats {
	atomic64_t requests;
	atomic64_t segments;
	atomic64_t split;
	atomic64_t indirect;
	atomic64_t bounce_copies;
	atomic64_t bounce_bytes;
	atomic64_t slot_waits;	/* no free slot: request retried later */
	atomic64_t resumes;	/* reconnects after a restore or migration */
	atomic64_t requeued;	/* in-flight requests replayed on resume */
	atomic64_t zc_requests;	/* requests granted in place */
	atomic64_t zc_grants;	/* grants of the block layer's pages */
	atomic64_t zc_fallbacks; /* zero-copy requests copied after all */
	atomic64_t flush_stops;	/* backend showed it cannot flush */
	atomic64_t held_total;	/* requests held until their pages were released */
	atomic64_t errors[XBF_ERR_NR];
	/* pool counters of pools already destroyed */
	atomic64_t pool_issued;
	atomic64_t pool_reused;
};

enum xbf_state {
	XBF_DISCONNECTED,
	XBF_CONNECTED,
	XBF_RESUMING,
};

struct xbf_info;

struct xbf_ring {
	struct xbf_info *info;
	unsigned int index;
	spinlock_t lock;		/* ring, ids */
	struct blkif_front_ring ring;
	void *ring_va;
	grant_ref_t ring_ref[XENBUS_MAX_RING_GRANTS];
	evtchn_port_t evtchn;
	int irq;
	struct xgp_idtab ids;
	struct xgp_front_pool *pool;
	struct work_struct grow_work;
	bool stalled;			/* a request waited for room: rerun */
	char name[XGP_NAME_LEN];
};

struct xbf_info {
	struct xenbus_device *xbdev;
	struct mutex mutex;		/* state changes, rings, sysfs reads */
	struct list_head node;
	struct gendisk *gd;
	struct blk_mq_tag_set tag_set;
	bool tag_set_ready;
	bool disk_added;
	unsigned int vdevice;
	unsigned int first_minor;
	unsigned int nr_minors;
	unsigned int disk_idx;
	u16 handle;
	enum xbf_state state;
	bool dead;			/* no new I/O; set once, never cleared */
	bool dead_error;		/* killed: responses no longer read */
	bool rings_live;		/* rings allocated and published */
	struct work_struct kill_work;
	struct work_struct add_work;	/* device_add_disk(), see xbf_add_work() */
	struct work_struct wc_work;	/* write cache on/off, xbf_wc_work() */
	/* requests whose pages the backend still maps, see xbf_hold() */
	spinlock_t held_lock;
	struct list_head held;
	unsigned int nr_held;
	unsigned int held_delay;	/* ms until the next retry */
	struct delayed_work held_work;
	wait_queue_head_t held_wq;
	unsigned int timeout;		/* request_timeout at probe, seconds */
	struct dentry *debugfs;
	atomic_t inject_revoke_busy;	/* debugfs fault injection */
	atomic_t inject_unsent;
	/* negotiated at talk time */
	unsigned int nr_rings;
	unsigned int ring_order;
	unsigned int ring_size;
	struct xbf_ring *rings;
	bool offer_persistent;
	bool trusted;
	/* negotiated at connect time */
	bool persistent;
	bool zero_copy;			/* trusted, !persistent, parameter on */
	u8 flush_op;			/* 0: no flush */
	bool discard;
	bool secure_discard;
	u64 sectors;
	unsigned int sector_size;
	unsigned int physical_sector_size;
	unsigned int vdisk_info;
	unsigned int max_indirect;	/* segments per indirect request, 0: none */
	/* fixed at the first connect (tag set, xbf_size_requests()) */
	unsigned int nr_hw;		/* hardware queues; rings <= this */
	unsigned int max_bytes;
	unsigned int max_segs;		/* data segments per request */
	unsigned int slots_per_rq;	/* for any later re-split */
	unsigned int depth;
	struct xbf_stats stats;
};

/* A data segment as the backend sees it. */
struct xbf_seg {
	grant_ref_t gref;
	u8 first_sect;
	u8 last_sect;
	bool busy;			/* zero copy: still mapped by the backend */
};

/*
 * Per-request data behind each struct request.  Behind it: slots_per_rq
 * slot pointers (copy: data slots, then indirect pages; zero copy:
 * indirect pages only), then max_segs segments.
 */
struct xbf_rq {
	struct xbf_ring *ring;
	struct xbf_seg *segs;
	struct list_head held;		/* on xbf_info.held */
	blk_status_t status;
	u8 parts_left;
	u8 nr_parts;
	bool zero_copy;			/* segs grant the request's pages */
	unsigned int nr_slots;
	unsigned int nr_segs;
	unsigned int nr_busy;		/* zero-copy grants still mapped */
	struct xgp_slot *slots[];
};

static LIST_HEAD(xbf_devices);
static DEFINE_MUTEX(xbf_devices_lock);
static bool xbf_major_registered;

/*
 * Module-wide totals, also of devices already removed (debugfs "stats"):
 * what happened during an unbind stays readable after it.
 */
static struct {
	atomic64_t errors[XBF_ERR_NR];
	atomic64_t held_total;
	atomic_t held_now;
	atomic64_t pool_busy;	/* pool grants still mapped when destroyed */
} xbf_totals;
static struct dentry *xbf_debugfs_root;

/* Backoff of the retries that end a held request's grants (ms). */
#define XBF_HELD_RETRY_MIN	50U
#define XBF_HELD_RETRY_MAX	2000U
/* How long an unbind waits for the backend to answer what is in flight. */
#define XBF_CLOSE_WAIT_MS	10000U

static void xbf_count_err(struct xbf_info *info, enum xbf_err e)
{
	atomic64_inc(&info->stats.errors[e]);
	atomic64_inc(&xbf_totals.errors[e]);
}

/* ---- killing a device ---- */

static bool xbf_dead(struct xbf_info *info)
{
	return READ_ONCE(info->dead);
}

/* Killed for a fault: the backend's responses are no longer read. */
static bool xbf_killed(struct xbf_info *info)
{
	return READ_ONCE(info->dead_error);
}

/*
 * Kill the device for a fault: from now on every request fails, the
 * backend's responses are ignored, and the kill work fails what is
 * outstanding.  Counts @why each time.  Callable from any context.
 */
static void xbf_kill(struct xbf_info *info, enum xbf_err why, const char *what)
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
static void xbf_shutdown(struct xbf_info *info, const char *why)
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
	pdu->nr_busy = 0;
	for (i = 0; i < pdu->nr_segs; i++) {
		pdu->segs[i].busy = !xbf_try_end(info, pdu->segs[i].gref);
		pdu->nr_busy += pdu->segs[i].busy;
	}
	if (!pdu->nr_busy) {
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

static void xbf_held_work(struct work_struct *work)
{
	struct xbf_info *info = container_of(to_delayed_work(work),
					     struct xbf_info, held_work);
	struct xbf_rq *pdu, *tmp;
	unsigned int i, n = 0, left;
	unsigned long flags;
	LIST_HEAD(done);

	spin_lock_irqsave(&info->held_lock, flags);
	list_for_each_entry_safe(pdu, tmp, &info->held, held) {
		for (i = 0; i < pdu->nr_segs; i++) {
			if (pdu->segs[i].busy &&
			    xbf_try_end(info, pdu->segs[i].gref)) {
				pdu->segs[i].busy = false;
				pdu->nr_busy--;
			}
		}
		if (!pdu->nr_busy) {
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

static unsigned int xbf_nr_held(struct xbf_info *info)
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
static unsigned int xbf_drain_ring(struct xbf_ring *ring, bool requeue)
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
static void xbf_fail_all(struct xbf_info *info)
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
static void xbf_wait_inflight(struct xbf_info *info)
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

static void xbf_kill_work(struct work_struct *work)
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

static void xbf_wc_work(struct work_struct *work)
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

static irqreturn_t xbf_interrupt(int irq, void *dev_id)
{
	struct xbf_ring *ring = dev_id;
	struct xbf_info *info = ring->info;
	unsigned int eoi = XEN_EOI_FLAG_SPURIOUS;
	bool rerun = false;
	unsigned long flags;
	RING_IDX rp, cons;
	int more;

	spin_lock_irqsave(&ring->lock, flags);
	/* after an orderly shutdown, what is in flight is still answered */
	if (xbf_killed(info) || READ_ONCE(info->state) != XBF_CONNECTED)
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
		eoi = 0;
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
	rerun = ring->stalled && eoi == 0;
	if (rerun)
		ring->stalled = false;
out:
	spin_unlock_irqrestore(&ring->lock, flags);
	if (rerun && info->gd)
		blk_mq_run_hw_queues(info->gd->queue, true);
	xen_irq_lateeoi(irq, eoi);
	return IRQ_HANDLED;
}

static void xbf_grow_work(struct work_struct *work)
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
 * A request unanswered for request_timeout seconds: the backend is stuck
 * (or its disk is).  Disable the device, which fails what is outstanding;
 * a zero-copy request whose pages the backend still maps is held until it
 * lets go (its pages must not go back to their owner before).  With no
 * timeout set, the stock driver's behaviour: wait forever.
 */
static enum blk_eh_timer_return xbf_timeout(struct request *rq)
{
	struct xbf_info *info = rq->q->queuedata;

	if (!info->timeout || xbf_dead(info))
		return BLK_EH_RESET_TIMER;
	dev_err(&info->xbdev->dev,
		"a request is unanswered after %u s (request_timeout)\n",
		info->timeout);
	xbf_kill(info, XBF_ERR_TIMEOUT, "backend stopped answering");
	return BLK_EH_RESET_TIMER;
}

static const struct blk_mq_ops xbf_mq_ops = {
	.queue_rq = xbf_queue_rq,
	.complete = xbf_complete_rq,
	.init_hctx = xbf_init_hctx,
	.timeout = xbf_timeout,
};

/* ---- rings ---- */

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
static void xbf_teardown(struct xbf_info *info, bool requeue)
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
static void xbf_abort_resume(struct xbf_info *info)
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

/* Allocate the rings and publish them; then switch to Initialised. */
static int xbf_talk_to_backend(struct xbf_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	struct xenbus_transaction xbt;
	const char *what = "allocating rings";
	unsigned int i, be_order, be_queues, nr;
	char *path = NULL;
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

	path = kmalloc(strlen(dev->nodename) + 16, GFP_NOIO);
	if (!path) {
		err = -ENOMEM;
		goto fail;
	}
again:
	what = "starting transaction";
	err = xenbus_transaction_start(&xbt);
	if (err)
		goto fail;
	what = "writing ring references";
	/* earlier connections used at most one queue per CPU */
	xbf_clear_ring_keys(xbt, dev->nodename,
			    max(min(be_queues, nr_cpu_ids), info->nr_rings));
	if (info->ring_order) {
		err = xenbus_printf(xbt, dev->nodename, "ring-page-order",
				    "%u", info->ring_order);
		if (err)
			goto abort;
	}
	if (info->nr_rings == 1) {
		err = xbf_write_ring(info, &info->rings[0], xbt, dev->nodename);
		if (err)
			goto abort;
	} else {
		err = xenbus_printf(xbt, dev->nodename,
				    "multi-queue-num-queues", "%u",
				    info->nr_rings);
		if (err)
			goto abort;
		for (i = 0; i < info->nr_rings; i++) {
			sprintf(path, "%s/queue-%u", dev->nodename, i);
			err = xbf_write_ring(info, &info->rings[i], xbt, path);
			if (err)
				goto abort;
		}
	}
	what = "writing protocol";
	err = xenbus_printf(xbt, dev->nodename, "protocol", "%s",
			    XEN_IO_PROTO_ABI_NATIVE);
	if (err)
		goto abort;
	err = xenbus_printf(xbt, dev->nodename, "feature-persistent", "%u",
			    info->offer_persistent);
	if (err)
		goto abort;
	err = xenbus_transaction_end(xbt, 0);
	if (err == -EAGAIN)
		goto again;
	if (err) {
		what = "completing transaction";
		goto fail;
	}
	kfree(path);
	xenbus_switch_state(dev, XenbusStateInitialised);
	return 0;

abort:
	xenbus_transaction_end(xbt, 1);
fail:
	kfree(path);
	xenbus_dev_fatal(dev, err, "%s", what);
	xbf_free_rings(info, false);
	return err;
}

/* ---- disk ---- */

static void xbf_disk_name(char *buf, size_t len, unsigned int idx)
{
	char tmp[8];
	unsigned int n = 0, i;
	size_t at;

	idx++;
	while (idx && n < sizeof(tmp)) {
		idx--;
		tmp[n++] = 'a' + idx % 26;
		idx /= 26;
	}
	at = scnprintf(buf, len, "xvd");
	for (i = 0; i < n && at + 1 < len; i++)
		buf[at++] = tmp[n - 1 - i];
	buf[at] = '\0';
}

static int xbf_parse_vdevice(struct xbf_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	unsigned int v, major;
	const char *p;
	int err;

	err = xenbus_scanf(XBT_NIL, dev->nodename, "virtual-device", "%u", &v);
	if (err != 1)
		err = xenbus_scanf(XBT_NIL, dev->nodename,
				   "virtual-device-ext", "%u", &v);
	if (err != 1) {
		dev_err(&dev->dev, "no virtual-device in xenstore\n");
		return -ENODEV;
	}
	info->vdevice = v;
	if (v & XBF_EXTENDED) {
		info->first_minor = v & (XBF_EXTENDED - 1);
		info->nr_minors = XBF_PARTS_PER_EXT_DISK;
	} else {
		major = v >> 8;
		if (major != XENVBD_MAJOR) {
			dev_err(&dev->dev,
				"virtual-device %#x: only xvd (major %u) and extended numbers are supported\n",
				v, XENVBD_MAJOR);
			return -ENODEV;
		}
		info->first_minor = v & 0xff;
		info->nr_minors = XBF_PARTS_PER_DISK;
	}
	if (info->first_minor & (info->nr_minors - 1) ||
	    info->first_minor >= (1U << MINORBITS)) {
		dev_err(&dev->dev, "virtual-device %#x is a partition or out of range\n",
			v);
		return -ENODEV;
	}
	info->disk_idx = info->first_minor / info->nr_minors;
	p = strrchr(dev->nodename, '/');
	if (!p || kstrtou16(p + 1, 0, &info->handle))
		info->handle = v & 0xffff;
	return 0;
}

static bool xbf_minor_taken(struct xbf_info *info)
{
	struct xbf_info *o;

	list_for_each_entry(o, &xbf_devices, node)
		if (o != info &&
		    info->first_minor < o->first_minor + o->nr_minors &&
		    o->first_minor < info->first_minor + info->nr_minors)
			return true;
	return false;
}

static ssize_t xbf_show_u64(struct device *dev, char *buf, u64 v)
{
	return sysfs_emit(buf, "%llu\n", (unsigned long long)v);
}

static struct xbf_info *xbf_dev_info(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

#define XBF_STAT_ATTR(name, expr)					\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	struct xbf_info *info = xbf_dev_info(dev);			\
									\
	return xbf_show_u64(dev, buf, (expr));				\
}									\
static DEVICE_ATTR_RO(name)

#define XBF_ST(f)	atomic64_read(&info->stats.f)

XBF_STAT_ATTR(requests, XBF_ST(requests));
XBF_STAT_ATTR(segments, XBF_ST(segments));
XBF_STAT_ATTR(requests_split, XBF_ST(split));
XBF_STAT_ATTR(requests_indirect, XBF_ST(indirect));
XBF_STAT_ATTR(bounce_copies, XBF_ST(bounce_copies));
XBF_STAT_ATTR(bounce_bytes, XBF_ST(bounce_bytes));
XBF_STAT_ATTR(errors_io, XBF_ST(errors[XBF_ERR_IO]));
XBF_STAT_ATTR(errors_notsupp, XBF_ST(errors[XBF_ERR_NOTSUPP]));
XBF_STAT_ATTR(errors_protocol, XBF_ST(errors[XBF_ERR_PROTOCOL]));
XBF_STAT_ATTR(slot_waits, XBF_ST(slot_waits));
XBF_STAT_ATTR(resumes, XBF_ST(resumes));
XBF_STAT_ATTR(requeued, XBF_ST(requeued));
XBF_STAT_ATTR(zero_copy_requests, XBF_ST(zc_requests));
XBF_STAT_ATTR(zero_copy_grants, XBF_ST(zc_grants));
XBF_STAT_ATTR(zero_copy_fallbacks, XBF_ST(zc_fallbacks));
XBF_STAT_ATTR(flush_stops, XBF_ST(flush_stops));
XBF_STAT_ATTR(errors_revoke, XBF_ST(errors[XBF_ERR_REVOKE]));
XBF_STAT_ATTR(errors_dead, XBF_ST(errors[XBF_ERR_DEAD]));
XBF_STAT_ATTR(errors_timeout, XBF_ST(errors[XBF_ERR_TIMEOUT]));
XBF_STAT_ATTR(requests_held, xbf_nr_held(info));
XBF_STAT_ATTR(requests_held_total, XBF_ST(held_total));
XBF_STAT_ATTR(persistent, info->persistent);
XBF_STAT_ATTR(trusted, info->trusted);
XBF_STAT_ATTR(zero_copy, info->zero_copy);
XBF_STAT_ATTR(flush, READ_ONCE(info->flush_op) != 0);
XBF_STAT_ATTR(nr_queues, info->nr_rings);
XBF_STAT_ATTR(ring_pages, 1U << info->ring_order);
XBF_STAT_ATTR(max_indirect_segments, info->max_indirect);
XBF_STAT_ATTR(dead, xbf_dead(info));

/* Pool counters: live pools plus pools destroyed before. */
static void xbf_pool_sums(struct xbf_info *info, u64 *issued, u64 *reused)
{
	struct xgp_front_stats st;
	unsigned int i;

	mutex_lock(&info->mutex);
	*issued = XBF_ST(pool_issued);
	*reused = XBF_ST(pool_reused);
	for (i = 0; info->rings_live && i < info->nr_rings; i++) {
		if (!info->rings[i].pool)
			continue;
		xgp_front_pool_stats(info->rings[i].pool, &st);
		*issued += st.grants_issued;
		*reused += st.reused;
	}
	mutex_unlock(&info->mutex);
}

static ssize_t grants_issued_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	u64 issued, reused;

	xbf_pool_sums(xbf_dev_info(dev), &issued, &reused);
	return xbf_show_u64(dev, buf, issued);
}
static DEVICE_ATTR_RO(grants_issued);

static ssize_t grants_reused_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	u64 issued, reused;

	xbf_pool_sums(xbf_dev_info(dev), &issued, &reused);
	return xbf_show_u64(dev, buf, reused);
}
static DEVICE_ATTR_RO(grants_reused);

/*
 * Each reuse of a slot saves this frontend a grant and an end of access
 * and, with persistent grants, saves the backend a map and an unmap.
 */
static ssize_t grant_ops_saved_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct xbf_info *info = xbf_dev_info(dev);
	u64 issued, reused;

	xbf_pool_sums(info, &issued, &reused);
	return xbf_show_u64(dev, buf, 2 * reused);
}
static DEVICE_ATTR_RO(grant_ops_saved);

static ssize_t map_ops_saved_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	struct xbf_info *info = xbf_dev_info(dev);
	u64 issued, reused;

	xbf_pool_sums(info, &issued, &reused);
	return xbf_show_u64(dev, buf, info->persistent ? 2 * reused : 0);
}
static DEVICE_ATTR_RO(map_ops_saved);

static struct attribute *xbf_attrs[] = {
	&dev_attr_requests.attr,
	&dev_attr_segments.attr,
	&dev_attr_requests_split.attr,
	&dev_attr_requests_indirect.attr,
	&dev_attr_bounce_copies.attr,
	&dev_attr_bounce_bytes.attr,
	&dev_attr_slot_waits.attr,
	&dev_attr_resumes.attr,
	&dev_attr_requeued.attr,
	&dev_attr_zero_copy_requests.attr,
	&dev_attr_zero_copy_grants.attr,
	&dev_attr_zero_copy_fallbacks.attr,
	&dev_attr_flush_stops.attr,
	&dev_attr_grants_issued.attr,
	&dev_attr_grants_reused.attr,
	&dev_attr_grant_ops_saved.attr,
	&dev_attr_map_ops_saved.attr,
	&dev_attr_errors_io.attr,
	&dev_attr_errors_notsupp.attr,
	&dev_attr_errors_protocol.attr,
	&dev_attr_errors_revoke.attr,
	&dev_attr_errors_dead.attr,
	&dev_attr_errors_timeout.attr,
	&dev_attr_requests_held.attr,
	&dev_attr_requests_held_total.attr,
	&dev_attr_persistent.attr,
	&dev_attr_trusted.attr,
	&dev_attr_zero_copy.attr,
	&dev_attr_flush.attr,
	&dev_attr_nr_queues.attr,
	&dev_attr_ring_pages.attr,
	&dev_attr_max_indirect_segments.attr,
	&dev_attr_dead.attr,
	NULL,
};

static const struct attribute_group xbf_attr_group = {
	.name = "xps",
	.attrs = xbf_attrs,
};

static const struct attribute_group *xbf_attr_groups[] = {
	&xbf_attr_group,
	NULL,
};

static const struct block_device_operations xbf_fops = {
	.owner = THIS_MODULE,
};

/* Read the backend's disk parameters; validate every value. */
static int xbf_read_disk_info(struct xbf_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	unsigned long long sectors;
	unsigned int binfo, ssize, pssize;
	int err;

	err = xenbus_gather(XBT_NIL, dev->otherend, "sectors", "%llu",
			    &sectors, "info", "%u", &binfo, "sector-size",
			    "%u", &ssize, NULL);
	if (err) {
		xenbus_dev_fatal(dev, err, "reading backend disk parameters");
		return err;
	}
	pssize = xenbus_read_unsigned(dev->otherend, "physical-sector-size",
				      ssize);
	if (ssize < 512 || ssize > XGP_GRANT_SIZE || !is_power_of_2(ssize)) {
		dev_err(&dev->dev, "backend sector-size %u unusable\n", ssize);
		return -EINVAL;
	}
	if (pssize < ssize || !is_power_of_2(pssize) || pssize > (1U << 20))
		pssize = ssize;
	if (!xbf_sectors_ok(sectors)) {
		dev_err(&dev->dev, "backend size %llu sectors unusable\n",
			sectors);
		return -EINVAL;
	}
	info->sectors = sectors;
	info->vdisk_info = binfo;
	info->sector_size = ssize;
	info->physical_sector_size = pssize;
	return 0;
}

static void xbf_read_features(struct xbf_info *info)
{
	const char *oe = info->xbdev->otherend;

	info->flush_op = 0;
	if (xenbus_read_unsigned(oe, "feature-flush-cache", 0))
		info->flush_op = BLKIF_OP_FLUSH_DISKCACHE;
	else if (xenbus_read_unsigned(oe, "feature-barrier", 0))
		info->flush_op = BLKIF_OP_WRITE_BARRIER;
	info->discard = xenbus_read_unsigned(oe, "feature-discard", 0);
	info->secure_discard = info->discard &&
			       xenbus_read_unsigned(oe, "discard-secure", 0);
	info->persistent = info->offer_persistent &&
			   xenbus_read_unsigned(oe, "feature-persistent", 0);
	info->zero_copy = READ_ONCE(xbf_zero_copy) && info->trusted &&
			  !info->persistent;
}

static int xbf_alloc_disk(struct xbf_info *info)
{
	const char *oe = info->xbdev->otherend;
	struct queue_limits lim = { 0 };
	xps_blk_features_t features = 0;
	struct gendisk *gd;
	int err;

	memset(&info->tag_set, 0, sizeof(info->tag_set));
	info->tag_set.ops = &xbf_mq_ops;
	info->tag_set.nr_hw_queues = info->nr_hw;
	info->tag_set.queue_depth = info->depth;
	info->tag_set.numa_node = NUMA_NO_NODE;
	info->tag_set.flags = BLK_MQ_F_SHOULD_MERGE;
	info->tag_set.cmd_size = sizeof(struct xbf_rq) +
				 info->slots_per_rq * sizeof(struct xgp_slot *) +
				 info->max_segs * sizeof(struct xbf_seg);
	info->tag_set.driver_data = info;
	/* without a timeout set, xbf_timeout() just rearms the default */
	if (info->timeout)
		info->tag_set.timeout = info->timeout * HZ;
	err = blk_mq_alloc_tag_set(&info->tag_set);
	if (err)
		return err;
	info->tag_set_ready = true;

	lim.logical_block_size = info->sector_size;
	lim.physical_block_size = info->physical_sector_size;
	lim.max_hw_sectors = info->max_bytes >> XBF_SECTOR_SHIFT;
	lim.max_segments = min(info->max_bytes / 512, (unsigned int)USHRT_MAX);
	if (info->discard) {
		lim.max_hw_discard_sectors = UINT_MAX >> XBF_SECTOR_SHIFT;
		lim.discard_granularity =
			xenbus_read_unsigned(oe, "discard-granularity",
					     info->sector_size);
		if (!lim.discard_granularity ||
		    !is_power_of_2(lim.discard_granularity))
			lim.discard_granularity = info->sector_size;
		lim.discard_alignment =
			xenbus_read_unsigned(oe, "discard-alignment", 0);
		if (lim.discard_alignment >= lim.discard_granularity)
			lim.discard_alignment = 0;
		if (info->secure_discard)
			lim.max_secure_erase_sectors = UINT_MAX >>
						       XBF_SECTOR_SHIFT;
	}
	if (info->flush_op)
		features |= BLK_FEAT_WRITE_CACHE;

	gd = xps_blk_mq_alloc_disk(&info->tag_set, &lim, features, info);
	if (IS_ERR(gd)) {
		blk_mq_free_tag_set(&info->tag_set);
		info->tag_set_ready = false;
		return PTR_ERR(gd);
	}
	gd->major = XENVBD_MAJOR;
	gd->first_minor = info->first_minor;
	gd->minors = info->nr_minors;
	gd->fops = &xbf_fops;
	gd->private_data = info;
	if (info->vdisk_info & (VDISK_REMOVABLE | VDISK_CDROM))
		gd->flags |= GENHD_FL_REMOVABLE;
	xbf_disk_name(gd->disk_name, sizeof(gd->disk_name), info->disk_idx);
	set_capacity(gd, info->sectors);
	set_disk_ro(gd, info->vdisk_info & VDISK_READONLY);
	info->gd = gd;
	return 0;
}

/*
 * Create the slot pools of every ring, sized for the queue depth but
 * within what a stock blkback keeps mapped per ring (its max_pgrants
 * default): beyond that it maps and unmaps per request and keeps purging
 * its persistent grants, which costs far more than waiting for a slot.
 */
static int xbf_create_pools(struct xbf_info *info)
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

/* The backend says Connected again: its disk may have grown or shrunk. */
static void xbf_capacity_changed(struct xbf_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	unsigned long long sectors;

	if (xenbus_scanf(XBT_NIL, dev->otherend, "sectors", "%llu",
			 &sectors) != 1 || sectors == info->sectors)
		return;
	if (!xbf_sectors_ok(sectors)) {
		dev_err(&dev->dev, "backend size %llu sectors unusable\n",
			sectors);
		xbf_kill(info, XBF_ERR_PROTOCOL, "backend reported a bad disk size");
		return;
	}
	dev_info(&dev->dev, "capacity changed from %llu to %llu sectors\n",
		 (unsigned long long)info->sectors, sectors);
	info->sectors = sectors;
	set_capacity_and_notify(info->gd, sectors);
}

static void xbf_connect(struct xbf_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	unsigned int be_ind, want;
	bool first = !info->tag_set_ready;
	int err;

	if (info->state == XBF_CONNECTED) {
		xbf_capacity_changed(info);
		return;
	}
	if (!info->rings_live || xbf_dead(info))
		return;

	err = xbf_read_disk_info(info);
	if (err)
		goto fail;
	xbf_read_features(info);
	be_ind = xenbus_read_unsigned(dev->otherend,
				      "feature-max-indirect-segments", 0);
	/*
	 * Re-read at every connect: the requests in flight at a restore
	 * are re-split in xbf_queue_rq() for whatever this backend allows,
	 * within the sizes fixed at the first connect.
	 */
	want = READ_ONCE(xbf_max_indirect_segments);
	info->max_indirect = xbf_effective_segs(be_ind, want);
	if (first) {
		struct xbf_limits l;

		if (xbf_size_requests(info->max_indirect, &l)) {
			err = -EINVAL;
			goto fail;
		}
		info->max_bytes = l.max_bytes;
		info->max_segs = l.max_segs;
		info->slots_per_rq = l.slots_per_rq;
		info->depth = max(info->ring_size / l.max_parts, 1U);
	}

	err = xbf_create_pools(info);
	if (err)
		goto fail;
	if (first) {
		err = xbf_alloc_disk(info);
		if (err)
			goto fail;
	}
	WRITE_ONCE(info->state, XBF_CONNECTED);
	xenbus_switch_state(dev, XenbusStateConnected);

	if (first) {
		queue_work(system_long_wq, &info->add_work);
	} else {
		atomic64_inc(&info->stats.resumes);
		/* the new backend may flush where the old did not, or not */
		schedule_work(&info->wc_work);
		set_capacity_and_notify(info->gd, info->sectors);
		blk_mq_unquiesce_queue(info->gd->queue);
		blk_mq_kick_requeue_list(info->gd->queue);
	}
	dev_info(&dev->dev,
		 "%s: %llu sectors of %u B, %u queue(s), %u-page ring, %s, %s grants, %u KB per request%s%s%s\n",
		 info->gd->disk_name, (unsigned long long)info->sectors,
		 info->sector_size, info->nr_rings, 1U << info->ring_order,
		 info->max_indirect ? "indirect" : "plain",
		 info->persistent ? "persistent" :
		 info->zero_copy ? "zero-copy" : "copied",
		 info->max_bytes / 1024, info->flush_op ? ", flush" : "",
		 info->discard ? ", discard" : "",
		 info->trusted ? "" : ", untrusted backend");
	return;

fail:
	xenbus_dev_fatal(dev, err, "connecting to the backend");
	xbf_kill(info, XBF_ERR_DEAD, "connecting to the backend failed");
	xbf_abort_resume(info);
}

/*
 * Register the disk.  device_add_disk() reads the partition table, and a
 * backend that never answers holds that read for as long as it likes:
 * so not in the xenwatch thread (xbf_connect() runs there), which would
 * stop every xenbus watch of the guest meanwhile, other devices' probes
 * included.  Unbind kills the device first, which fails the read and so
 * ends this work.
 */
static void xbf_add_work(struct work_struct *work)
{
	struct xbf_info *info = container_of(work, struct xbf_info, add_work);
	struct xenbus_device *dev = info->xbdev;
	int err;

	err = device_add_disk(&dev->dev, info->gd, xbf_attr_groups);
	if (err) {
		dev_err(&dev->dev, "adding the disk failed (%d)\n", err);
		xbf_kill(info, XBF_ERR_DEAD, "disk registration failed");
		return;
	}
	/* read by xbf_remove() only after cancel_work_sync() */
	info->disk_added = true;
}

/*
 * Backend going away (xl block-detach): fail the I/O and say Closed, upon
 * which the backend unmaps everything; the rings are released once it
 * is Closed, so that every grant end succeeds.
 */
static void xbf_closing(struct xbf_info *info, enum xenbus_state be_state)
{
	struct xenbus_device *dev = info->xbdev;

	if (dev->state != XenbusStateClosed) {
		xbf_shutdown(info, "backend is closing");
		xbf_fail_all(info);
		xenbus_frontend_closed(dev);
	}
	if (be_state == XenbusStateClosed)
		xbf_teardown(info, false);
}

/*
 * Orderly disconnect before releasing the rings (unbind, rmmod): say
 * Closing then Closed and give the backend a few seconds to unmap.
 * No watch fires during remove, so the backend state is polled.
 */
static void xbf_disconnect_backend(struct xbf_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	enum xenbus_state st;
	unsigned long end;

	st = xenbus_read_driver_state(dev->otherend);
	if (st == XenbusStateClosed || st == XenbusStateUnknown)
		return;
	xenbus_switch_state(dev, XenbusStateClosing);
	end = jiffies + 2 * HZ;
	do {
		st = xenbus_read_driver_state(dev->otherend);
		if (st >= XenbusStateClosing || st == XenbusStateUnknown)
			break;
		msleep(20);
	} while (time_before(jiffies, end));
	xenbus_switch_state(dev, XenbusStateClosed);
	end = jiffies + 5 * HZ;
	do {
		st = xenbus_read_driver_state(dev->otherend);
		if (st == XenbusStateClosed || st == XenbusStateUnknown)
			return;
		msleep(20);
	} while (time_before(jiffies, end));
	dev_info(&dev->dev, "backend did not close within 5 s (state %d)\n",
		 st);
}

static void xbf_backend_changed(struct xenbus_device *dev,
				enum xenbus_state backend_state)
{
	struct xbf_info *info = dev_get_drvdata(&dev->dev);

	mutex_lock(&info->mutex);
	switch (backend_state) {
	case XenbusStateInitWait:
		if (dev->state != XenbusStateInitialising || info->rings_live)
			break;
		if (xbf_talk_to_backend(info))
			xbf_kill(info, XBF_ERR_DEAD, "negotiation failed");
		break;
	case XenbusStateConnected:
		if (dev->state != XenbusStateInitialised &&
		    dev->state != XenbusStateConnected)
			break;
		xbf_connect(info);
		break;
	case XenbusStateClosed:
	case XenbusStateClosing:
		/*
		 * Left over from a driver bound before us: the backend
		 * answers our Initialising with InitWait.
		 */
		if (dev->state == XenbusStateInitialising && !info->rings_live &&
		    !info->gd)
			break;
		xbf_closing(info, backend_state);
		break;
	default:
		break;
	}
	mutex_unlock(&info->mutex);
}

/* ---- debugfs: module-wide totals, fault injection ---- */

static int xbf_stats_show(struct seq_file *m, void *v)
{
	static const char * const names[XBF_ERR_NR] = {
		[XBF_ERR_IO] = "errors_io",
		[XBF_ERR_NOTSUPP] = "errors_notsupp",
		[XBF_ERR_PROTOCOL] = "errors_protocol",
		[XBF_ERR_REVOKE] = "errors_revoke",
		[XBF_ERR_DEAD] = "errors_dead",
		[XBF_ERR_TIMEOUT] = "errors_timeout",
	};
	unsigned int i;

	for (i = 0; i < XBF_ERR_NR; i++)
		seq_printf(m, "%s %lld\n", names[i],
			   (long long)atomic64_read(&xbf_totals.errors[i]));
	seq_printf(m, "requests_held %d\n", atomic_read(&xbf_totals.held_now));
	seq_printf(m, "requests_held_total %lld\n",
		   (long long)atomic64_read(&xbf_totals.held_total));
	seq_printf(m, "pool_grants_busy %lld\n",
		   (long long)atomic64_read(&xbf_totals.pool_busy));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xbf_stats);

/*
 * <debugfs>/xen-blkfront-64k/vbd-<n>/, root only: inject_revoke_busy N
 * makes the next N grant ends of zero-copy requests report the grant
 * still mapped (the retries really end it); inject_unsent N makes the
 * next N requests find the ring full after their grants were made, so
 * they are released unsent.  Together they stand for a backend that
 * maps pages it was never given, which no stock backend does.
 */
static void xbf_debugfs_add(struct xbf_info *info)
{
	if (IS_ERR_OR_NULL(xbf_debugfs_root))
		return;
	info->debugfs = debugfs_create_dir(dev_name(&info->xbdev->dev),
					   xbf_debugfs_root);
	debugfs_create_atomic_t("inject_revoke_busy", 0600, info->debugfs,
				&info->inject_revoke_busy);
	debugfs_create_atomic_t("inject_unsent", 0600, info->debugfs,
				&info->inject_unsent);
}

static int xbf_probe(struct xenbus_device *dev,
		     const struct xenbus_device_id *id)
{
	struct xbf_info *info;
	int err;

	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	info->xbdev = dev;
	mutex_init(&info->mutex);
	INIT_LIST_HEAD(&info->node);
	INIT_WORK(&info->kill_work, xbf_kill_work);
	INIT_WORK(&info->add_work, xbf_add_work);
	INIT_WORK(&info->wc_work, xbf_wc_work);
	spin_lock_init(&info->held_lock);
	INIT_LIST_HEAD(&info->held);
	info->held_delay = XBF_HELD_RETRY_MIN;
	INIT_DELAYED_WORK(&info->held_work, xbf_held_work);
	init_waitqueue_head(&info->held_wq);
	info->timeout = READ_ONCE(xbf_request_timeout);
	err = xbf_parse_vdevice(info);
	if (err)
		goto fail;

	mutex_lock(&xbf_devices_lock);
	if (xbf_minor_taken(info)) {
		mutex_unlock(&xbf_devices_lock);
		dev_err(&dev->dev, "minors %u..%u already in use\n",
			info->first_minor,
			info->first_minor + info->nr_minors - 1);
		err = -EBUSY;
		goto fail;
	}
	list_add_tail(&info->node, &xbf_devices);
	mutex_unlock(&xbf_devices_lock);
	dev_set_drvdata(&dev->dev, info);
	xbf_debugfs_add(info);

	/*
	 * A driver unbound before us left the device Closed; saying
	 * Initialising again re-arms a Closed backend (it goes InitWait).
	 */
	dev->state = XenbusStateUnknown;
	err = xenbus_switch_state(dev, XenbusStateInitialising);
	if (err) {
		debugfs_remove_recursive(info->debugfs);
		dev_set_drvdata(&dev->dev, NULL);
		mutex_lock(&xbf_devices_lock);
		list_del(&info->node);
		mutex_unlock(&xbf_devices_lock);
		goto fail;
	}
	return 0;
fail:
	kfree(info);
	return err;
}

/*
 * Unbind (or rmmod, or the device's xenstore directory gone).  In order:
 * new I/O fails; a resume still waiting for its backend lets go of the
 * requeued requests (they fail now, else removing the disk would wait on
 * a quiesced queue forever); the backend gets a bounded time to answer
 * what is in flight; it is told to close; the rings are torn down, which
 * fails what is left, except requests whose pages the backend still
 * maps: those are held until it lets go (xbf_hold()), and removing the
 * disk waits for them, since handing the pages back would let the
 * backend write into memory that is reused.
 */
static void xbf_remove(struct xenbus_device *dev)
{
	struct xbf_info *info = dev_get_drvdata(&dev->dev);

	if (!info)
		return;
	mutex_lock(&info->mutex);
	xbf_shutdown(info, "unbinding");
	xbf_abort_resume(info);
	mutex_unlock(&info->mutex);
	xbf_wait_inflight(info);
	mutex_lock(&info->mutex);
	if (info->rings_live)
		xbf_disconnect_backend(info);
	xbf_teardown(info, false);
	mutex_unlock(&info->mutex);
	flush_work(&info->kill_work);
	/* a partition read still outstanding has failed (or is held) */
	cancel_work_sync(&info->add_work);
	if (xbf_nr_held(info))
		dev_warn(&dev->dev, "waiting for the backend to release the pages of %u request(s)\n",
			 xbf_nr_held(info));
	if (info->disk_added)
		del_gendisk(info->gd);
	wait_event(info->held_wq, !xbf_nr_held(info));
	cancel_delayed_work_sync(&info->held_work);
	flush_work(&info->kill_work);
	cancel_work_sync(&info->wc_work);
	if (info->gd)
		put_disk(info->gd);
	if (info->tag_set_ready)
		blk_mq_free_tag_set(&info->tag_set);
	debugfs_remove_recursive(info->debugfs);
	mutex_lock(&xbf_devices_lock);
	list_del(&info->node);
	mutex_unlock(&xbf_devices_lock);
	dev_set_drvdata(&dev->dev, NULL);
	kfree(info->rings);
	kfree(info);
}

/*
 * After a restore the old rings are gone: requeue what was in flight,
 * renegotiate, and send it again once the backend is connected.
 */
static int xbf_resume(struct xenbus_device *dev)
{
	struct xbf_info *info = dev_get_drvdata(&dev->dev);
	int err;

	mutex_lock(&info->mutex);
	if (xbf_dead(info)) {
		xbf_teardown(info, false);
		mutex_unlock(&info->mutex);
		return 0;
	}
	xbf_teardown(info, true);
	WRITE_ONCE(info->state, XBF_RESUMING);
	err = xbf_talk_to_backend(info);
	if (err) {
		xbf_kill(info, XBF_ERR_DEAD, "renegotiation after resume failed");
		xbf_abort_resume(info);
	}
	mutex_unlock(&info->mutex);
	return err;
}

static const struct xenbus_device_id xbf_ids[] = {
	{ "vbd" },
	{ "" }
};

static struct xenbus_driver xbf_driver = {
	.name = XBF_DRV_NAME,
	.ids = xbf_ids,
	.probe = xbf_probe,
	.remove = xbf_remove,
	.resume = xbf_resume,
	.otherend_changed = xbf_backend_changed,
	.not_essential = true,
};

static int __init xbf_init(void)
{
	int err;

	BUILD_BUG_ON(XGP_GRANT_SIZE != XEN_PAGE_SIZE);
	BUILD_BUG_ON(sizeof(struct blkif_request_segment) != XBF_SEG_DESC_SIZE);
	if (!xen_domain())
		return -ENODEV;
	if (xen_hvm_domain() && !xen_has_pv_disk_devices())
		return -ENODEV;
	if (xbf_max_ring_page_order > XENBUS_MAX_RING_GRANT_ORDER) {
		pr_info("max_ring_page_order %u capped to %u\n",
			xbf_max_ring_page_order, XENBUS_MAX_RING_GRANT_ORDER);
		xbf_max_ring_page_order = XENBUS_MAX_RING_GRANT_ORDER;
	}
	err = register_blkdev(XENVBD_MAJOR, "xvd");
	if (err)
		pr_info("major %u is taken (stock xen-blkfront loaded?); disks are created anyway\n",
			XENVBD_MAJOR);
	else
		xbf_major_registered = true;
	xbf_debugfs_root = debugfs_create_dir("xen-blkfront-64k", NULL);
	debugfs_create_file("stats", 0444, xbf_debugfs_root, NULL,
			    &xbf_stats_fops);
	err = xenbus_register_frontend(&xbf_driver);
	if (err) {
		debugfs_remove_recursive(xbf_debugfs_root);
		if (xbf_major_registered)
			unregister_blkdev(XENVBD_MAJOR, "xvd");
	}
	return err;
}

static void __exit xbf_exit(void)
{
	xenbus_unregister_driver(&xbf_driver);
	debugfs_remove_recursive(xbf_debugfs_root);
	if (xbf_major_registered)
		unregister_blkdev(XENVBD_MAJOR, "xvd");
}

module_init(xbf_init);
module_exit(xbf_exit);

MODULE_DESCRIPTION("Xen virtual block device frontend for any page size, with persistent grants and hardened response checks");
MODULE_LICENSE("GPL");
MODULE_VERSION(XPS_VERSION);
MODULE_ALIAS("xen:vbd");
MODULE_SOFTDEP("pre: xen-grant-pool");
