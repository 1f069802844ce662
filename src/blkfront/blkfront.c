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
#include "blkfront.h"

/* blkfront_core.h repeats these for the userspace tests */
static_assert(XBF_BLKIF_OP_READ == BLKIF_OP_READ);
static_assert(XBF_BLKIF_OP_WRITE == BLKIF_OP_WRITE);
static_assert(XBF_BLKIF_OP_WRITE_BARRIER == BLKIF_OP_WRITE_BARRIER);
static_assert(XBF_BLKIF_OP_FLUSH_DISKCACHE == BLKIF_OP_FLUSH_DISKCACHE);
static_assert(XBF_BLKIF_OP_DISCARD == BLKIF_OP_DISCARD);

/* ---- parameters (doc/parameters.md: when each is read) ---- */

unsigned int xbf_max_indirect_segments = 128;
module_param_named(max_indirect_segments, xbf_max_indirect_segments, uint,
		   0644);
MODULE_PARM_DESC(max_indirect_segments,
		 "Most 4 KB segments per indirect request (default 128 = 512 KB per request at any page size; 0 or <= 11 disables indirect requests; capped by the backend and at 256). Sets the largest request at a device's first connect; every later connect (restore) splits requests anew for it and the backend.");

unsigned int xbf_max_queues = 4;
module_param_named(max_queues, xbf_max_queues, uint, 0644);
MODULE_PARM_DESC(max_queues,
		 "Most hardware queues (rings) per device (default 4; also capped by online CPUs and the backend). Applies to devices probed afterwards.");

unsigned int xbf_max_ring_page_order;
module_param_named(max_ring_page_order, xbf_max_ring_page_order, uint, 0644);
MODULE_PARM_DESC(max_ring_page_order,
		 "Log2 of the 4 KB pages per ring (default 0 = 1 page, 32 requests; max 4 = 16 pages, 512 requests; capped by the backend). Applies at the next connect (probe, or a restore).");

bool xbf_feature_persistent = true;
module_param_named(feature_persistent, xbf_feature_persistent, bool, 0644);
MODULE_PARM_DESC(feature_persistent,
		 "Offer persistent grants to the backend (default 1 = on). Applies at the next connect.");

bool xbf_trusted = true;
module_param_named(trusted, xbf_trusted, bool, 0644);
MODULE_PARM_DESC(trusted,
		 "Trust backends (default 1); 0, or xenstore key 'trusted' = 0 for a device, zeroes every slot before the backend sees it. Applies at the next connect.");

unsigned int xbf_request_timeout;
module_param_named(request_timeout, xbf_request_timeout, uint, 0644);
MODULE_PARM_DESC(request_timeout,
		 "Seconds a request may stay unanswered before the device is disabled (default 0 = wait forever, as the stock driver does). Applies to devices probed afterwards.");

bool xbf_zero_copy = true;
module_param_named(zero_copy, xbf_zero_copy, bool, 0644);
MODULE_PARM_DESC(zero_copy,
		 "Without persistent grants and with a trusted backend, grant the block layer's pages in place instead of copying through slots (default 1 = on). Applies at the next connect.");

static LIST_HEAD(xbf_devices);
static DEFINE_MUTEX(xbf_devices_lock);
static bool xbf_major_registered;

/* Another device of ours uses minors this one needs.  xbf_devices_lock held. */
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

/*
 * Module-wide totals, also of devices already removed (debugfs "stats"):
 * what happened during an unbind stays readable after it.
 */
struct xbf_totals xbf_totals;
static struct dentry *xbf_debugfs_root;

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

	st = xenbus_read_driver_state(dev, dev->otherend);
	if (st == XenbusStateClosed || st == XenbusStateUnknown)
		return;
	xenbus_switch_state(dev, XenbusStateClosing);
	end = jiffies + 2 * HZ;
	do {
		st = xenbus_read_driver_state(dev, dev->otherend);
		if (st >= XenbusStateClosing || st == XenbusStateUnknown)
			break;
		msleep(20);
	} while (time_before(jiffies, end));
	xenbus_switch_state(dev, XenbusStateClosed);
	end = jiffies + 5 * HZ;
	do {
		st = xenbus_read_driver_state(dev, dev->otherend);
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
	unsigned int held;

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
	held = xbf_nr_held(info);
	if (held)
		dev_warn(&dev->dev, "waiting for the backend to release the pages of %u request(s)\n",
			 held);
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
 * Before a save: from now until xbf_resume, a request timeout leaves the
 * ring alone.  After the restore the old backend's responses on it may
 * not match the saved data pages (a read's data copied before the
 * response was written); xbf_resume sends every request in flight again
 * instead, as the stock driver does.  A suspend that is cancelled has no
 * callback: the flag then stays, and timeouts read no ring on this
 * device until its next resume (2026-12-06, CI: a timeout after a
 * restore completed 12 held requests from the old ring, so none were
 * replayed).
 */
static int xbf_suspend(struct xenbus_device *dev)
{
	struct xbf_info *info = dev_get_drvdata(&dev->dev);

	WRITE_ONCE(info->frozen, true);
	return 0;
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
		WRITE_ONCE(info->frozen, false);
		mutex_unlock(&info->mutex);
		return 0;
	}
	xbf_teardown(info, true);
	WRITE_ONCE(info->state, XBF_RESUMING);
	/* the old rings are gone: nothing stale left to read */
	WRITE_ONCE(info->frozen, false);
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
	.suspend = xbf_suspend,
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
