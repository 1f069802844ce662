/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * xen-blkfront-64k's private header: the device, ring and request types
 * and what its files share.  blkfront.c: module, parameters, xenbus state
 * machine and connect; xbf_io.c: the I/O path (requests, responses,
 * requests held while the backend maps their pages); xbf_ring.c: rings
 * and the negotiation that publishes them; xbf_disk.c: the gendisk, its
 * sysfs statistics and what the backend says about the disk.
 */
#ifndef XBF_BLKFRONT_H
#define XBF_BLKFRONT_H

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

#define XBF_DRV_NAME		"vbd-64k"
#define XBF_PARTS_PER_DISK	16
#define XBF_PARTS_PER_EXT_DISK	256
#define XBF_EXT_SHIFT		28
#define XBF_EXTENDED		BIT(XBF_EXT_SHIFT)
/* persistent grants a stock blkback keeps per ring (max_pgrants default) */
#define XBF_BACKEND_PGRANTS	1056U
/* Backoff of the retries that end a held request's grants (ms). */
#define XBF_HELD_RETRY_MIN	50U
#define XBF_HELD_RETRY_MAX	2000U
/* How long an unbind waits for the backend to answer what is in flight. */
#define XBF_CLOSE_WAIT_MS	10000U

/* module parameters, read with READ_ONCE() where they apply (blkfront.c) */
extern unsigned int xbf_max_indirect_segments;
extern unsigned int xbf_max_queues;
extern unsigned int xbf_max_ring_page_order;
extern bool xbf_feature_persistent;
extern bool xbf_trusted;
extern unsigned int xbf_request_timeout;
extern bool xbf_zero_copy;

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
	atomic64_t unnotified;	/* responses found by a timeout, not an event */
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
	/*
	 * Frozen for a save (xbf_suspend) until xbf_resume: the ring then
	 * holds what the old backend wrote, which the saved image may hold
	 * only in part; a request timeout must not read it.
	 */
	bool frozen;
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

/* Module-wide totals, also of devices already removed (debugfs "stats"). */
struct xbf_totals {
	atomic64_t errors[XBF_ERR_NR];
	atomic64_t held_total;
	atomic_t held_now;
	atomic64_t pool_busy;	/* pool grants still mapped when destroyed */
};

extern struct xbf_totals xbf_totals;

static inline void xbf_count_err(struct xbf_info *info, enum xbf_err e)
{
	atomic64_inc(&info->stats.errors[e]);
	atomic64_inc(&xbf_totals.errors[e]);
}

/* No new I/O: shut down or killed.  Set once, never cleared. */
static inline bool xbf_dead(struct xbf_info *info)
{
	return READ_ONCE(info->dead);
}

/* Killed for a fault: the backend's responses are no longer read. */
static inline bool xbf_killed(struct xbf_info *info)
{
	return READ_ONCE(info->dead_error);
}

/* xbf_io.c */
extern const struct blk_mq_ops xbf_mq_ops;
void xbf_kill(struct xbf_info *info, enum xbf_err why, const char *what);
void xbf_shutdown(struct xbf_info *info, const char *why);
void xbf_held_work(struct work_struct *work);
unsigned int xbf_nr_held(struct xbf_info *info);
unsigned int xbf_drain_ring(struct xbf_ring *ring, bool requeue);
void xbf_fail_all(struct xbf_info *info);
void xbf_wait_inflight(struct xbf_info *info);
void xbf_kill_work(struct work_struct *work);
void xbf_wc_work(struct work_struct *work);
irqreturn_t xbf_interrupt(int irq, void *dev_id);
void xbf_grow_work(struct work_struct *work);

/* xbf_ring.c */
void xbf_teardown(struct xbf_info *info, bool requeue);
void xbf_abort_resume(struct xbf_info *info);
int xbf_talk_to_backend(struct xbf_info *info);
int xbf_create_pools(struct xbf_info *info);

/* xbf_disk.c */
extern const struct attribute_group *xbf_attr_groups[];
int xbf_parse_vdevice(struct xbf_info *info);
int xbf_read_disk_info(struct xbf_info *info);
void xbf_read_features(struct xbf_info *info);
int xbf_alloc_disk(struct xbf_info *info);
void xbf_capacity_changed(struct xbf_info *info);

#endif /* XBF_BLKFRONT_H */
