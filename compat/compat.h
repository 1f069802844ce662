/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * The one place where kernel API differences live. Kbuild force-includes
 * this header into every object, so driver code is written against the
 * newest kernel API and never tests a version number.
 *
 * Each difference is detected by a probe in compat/probes/ (see
 * scripts/compat-probe.sh), which yields HAVE_<NAME> in xps_config.h.
 * Where an older kernel lacks a feature, the shim for it goes below,
 * next to its probe's name. The suite supports Linux 6.1 and later
 * (built: Debian's 6.1, 6.12, 7.2 and 7.3-rc; booted: 6.1); older
 * kernels are refused by the probe script rather than failing somewhere
 * deep in a driver.
 */
#ifndef XPS_COMPAT_H
#define XPS_COMPAT_H

/*
 * Written by scripts/compat-probe.sh, which the top-level Makefile runs
 * before Kbuild (and which refuses kernels older than the supported
 * range). If this include fails, build with "make KDIR=...", not with a
 * bare "make -C $KDIR M=$PWD".
 */
#include <xps_config.h>

/*
 * The kernel headers this file reads come before the driver's first
 * line, so a pr_fmt defined there would come too late (and printk.h's
 * default would already stand): every object gets the suite's usual
 * "module: " prefix from here.  A driver that defines the same again
 * changes nothing.
 */
#ifndef pr_fmt
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#endif

/*
 * HAVE_XEN_ALLOC_UNPOPULATED_PAGES: no shim. Every supported kernel has it;
 * a kernel without it is not one the suite can run on.
 */
#if !defined(HAVE_XEN_ALLOC_UNPOPULATED_PAGES)
#error "this kernel lacks xen_alloc_unpopulated_pages() (Linux 5.9+); is CONFIG_XEN enabled?"
#endif

/* ------------------------------------------------------------- xenbus */
/*
 * HAVE_XENBUS_UEVENT_CONST (6.3): xenbus_driver.uevent takes a const
 * struct xenbus_device.  A backend's uevent callback is declared
 *   static int f(xps_uevent_const struct xenbus_device *dev, ...)
 * which is the newest prototype where the kernel has it.
 */
#ifdef HAVE_XENBUS_UEVENT_CONST
#define xps_uevent_const const
#else
#define xps_uevent_const
#endif

/*
 * HAVE_XENBUS_READ_DRIVER_STATE_DEV (after 6.12): drivers write
 * xenbus_read_driver_state(dev, path); older kernels read the path alone.
 * xenbus.h is read here, so its declaration comes before the name is
 * taken over, and the driver's own #include of it is a no-op.
 */
#ifndef HAVE_XENBUS_READ_DRIVER_STATE_DEV
#include <xen/xenbus.h>

static inline enum xenbus_state
xps_xenbus_read_driver_state(const struct xenbus_device *dev, const char *path)
{
	return xenbus_read_driver_state(path);
}

#define xenbus_read_driver_state xps_xenbus_read_driver_state
#endif

/* ------------------------------------------------------------ timers */
/* HAVE_TIMER_CONTAINER_OF (after 6.12): from_timer()'s new name. */
#ifndef HAVE_TIMER_CONTAINER_OF
#define timer_container_of(var, timer, field) from_timer(var, timer, field)
#endif

/* ---------------------------------------------------------------- mm */
/*
 * HAVE_NTH_PAGE: kernels after 6.12 removed nth_page(), since there a
 * folio (so a bio_vec's pages) never spans memory sections: its pages
 * are consecutive struct pages.  Drivers keep writing nth_page(),
 * which older kernels need where the memmap is not virtually
 * contiguous.
 */
#ifndef HAVE_NTH_PAGE
#define nth_page(page, n) ((page) + (n))
#endif

/* ----------------------------------------------------------- netdev */
/*
 * HAVE_NETDEV_NAPI_THREADED (after 6.12): dev_set_threaded() takes an
 * enum netdev_napi_threaded; older kernels take a bool.
 */
#ifndef HAVE_NETDEV_NAPI_THREADED
#define NETDEV_NAPI_THREADED_ENABLED true
#endif

/* ------------------------------------------------------------ block */
/*
 * Only objects built with -DXPS_BLOCK (src/blkfront/Kbuild) see this
 * section, so modules without a block device do not pull in blk-mq.
 *
 * HAVE_BLK_MQ_ALLOC_DISK_LIM (6.9): blk_mq_alloc_disk(set, lim, data).
 * HAVE_BLK_FEAT_FLAGS (6.11): queue features in queue_limits.features.
 *
 * Drivers fill a struct queue_limits and pass their features separately
 * to xps_blk_mq_alloc_disk(), which on new kernels is blk_mq_alloc_disk()
 * with lim->features set, and on old kernels allocates the disk and
 * applies the limits with the blk_queue_*() setters that 6.9-6.11
 * removed.  Only the limits the suite's block drivers set are applied:
 * logical/physical block size, max_hw_sectors, max_segments,
 * max_segment_size, discard and secure erase limits.
 */
#ifdef XPS_BLOCK
#include <linux/err.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>

#ifdef HAVE_BLK_FEAT_FLAGS
#define xps_blk_features_t typeof(((struct queue_limits *)0)->features)
#else
#define xps_blk_features_t unsigned int
#define BLK_FEAT_WRITE_CACHE	BIT(0)
#define BLK_FEAT_FUA		BIT(1)
#endif

static inline struct gendisk *
xps_blk_mq_alloc_disk(struct blk_mq_tag_set *set, struct queue_limits *lim,
		      xps_blk_features_t features, void *queuedata)
{
	struct gendisk *disk;

#ifdef HAVE_BLK_FEAT_FLAGS
	lim->features |= features;
#endif
#ifdef HAVE_BLK_MQ_ALLOC_DISK_LIM
	disk = blk_mq_alloc_disk(set, lim, queuedata);
#else
	disk = blk_mq_alloc_disk(set, queuedata);
	if (!IS_ERR(disk)) {
		struct request_queue *q = disk->queue;

		blk_queue_logical_block_size(q, lim->logical_block_size);
		blk_queue_physical_block_size(q, lim->physical_block_size);
		blk_queue_max_hw_sectors(q, lim->max_hw_sectors);
		blk_queue_max_segments(q, lim->max_segments);
		if (lim->max_segment_size)
			blk_queue_max_segment_size(q, lim->max_segment_size);
		blk_queue_max_discard_sectors(q, lim->max_hw_discard_sectors);
		q->limits.discard_granularity = lim->discard_granularity;
		q->limits.discard_alignment = lim->discard_alignment;
		blk_queue_max_secure_erase_sectors(q,
						   lim->max_secure_erase_sectors);
	}
#endif
#ifndef HAVE_BLK_FEAT_FLAGS
	if (!IS_ERR(disk))
		blk_queue_write_cache(disk->queue,
				      features & BLK_FEAT_WRITE_CACHE,
				      features & BLK_FEAT_FUA);
#endif
	return disk;
}

/*
 * HAVE_BLK_MQ_F_SHOULD_MERGE (6.1, 6.12): those kernels merge bios
 * only for a tag set that asks, with BLK_MQ_F_SHOULD_MERGE; later ones
 * (7.2) merge for every tag set.  Drivers call blk_mq_alloc_tag_set()
 * without it; on the old kernels the flag is added here.
 */
#ifdef HAVE_BLK_MQ_F_SHOULD_MERGE
static inline int xps_blk_mq_alloc_tag_set(struct blk_mq_tag_set *set)
{
	set->flags |= BLK_MQ_F_SHOULD_MERGE;
	return blk_mq_alloc_tag_set(set);
}

#define blk_mq_alloc_tag_set xps_blk_mq_alloc_tag_set
#endif

/*
 * Switch the disk's volatile write cache (flushes) on or off after it was
 * allocated: off when the backend shows that it cannot flush, back on if
 * a later backend can.  Process context.  The queue is not frozen: a
 * freeze would wait for requests a frontend may hold until its backend
 * lets go of their pages, and a flush that was already queued is harmless
 * (the driver completes it at once when it no longer flushes).
 */
static inline int xps_blk_set_write_cache(struct gendisk *disk, bool on)
{
#ifdef HAVE_BLK_FEAT_FLAGS
	struct queue_limits lim = queue_limits_start_update(disk->queue);

	if (on)
		lim.features |= BLK_FEAT_WRITE_CACHE;
	else
		lim.features &= ~(BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA);
	return queue_limits_commit_update(disk->queue, &lim);
#else
	blk_queue_write_cache(disk->queue, on, false);
	return 0;
#endif
}
#endif /* XPS_BLOCK */

/* -------------------------------------------------------------- net */
/*
 * Only objects built with -DXPS_NET (src/netfront/Kbuild) see this.
 *
 * HAVE_ETHTOOL_RXFH_PARAM (6.8): get_rxfh(dev, param) and
 * set_rxfh(dev, param, extack).  Drivers write those; on older kernels
 * XPS_ETHTOOL_RXFH(get, set) defines the old-style ops around them and
 * xps_ethtool_get_rxfh()/xps_ethtool_set_rxfh() name what goes into the
 * ethtool_ops.  The stand-in struct carries the fields those kernels had.
 */
#ifdef XPS_NET
#include <linux/ethtool.h>

#ifdef HAVE_ETHTOOL_RXFH_PARAM
#define XPS_ETHTOOL_RXFH(get, set)	struct ethtool_rxfh_param
#define xps_ethtool_get_rxfh(get)	get
#define xps_ethtool_set_rxfh(set)	set
#else
struct ethtool_rxfh_param {
	u8 hfunc;
	u32 indir_size;
	u32 *indir;
	u32 key_size;
	u8 *key;
};

#define XPS_ETHTOOL_RXFH(get, set)					\
static int get##_args(struct net_device *dev, u32 *indir, u8 *key,	\
		      u8 *hfunc)					\
{									\
	struct ethtool_rxfh_param p = { .indir = indir, .key = key };	\
	int err = get(dev, &p);						\
									\
	if (hfunc)							\
		*hfunc = p.hfunc;					\
	return err;							\
}									\
static int set##_args(struct net_device *dev, const u32 *indir,	\
		      const u8 *key, const u8 hfunc)			\
{									\
	struct ethtool_rxfh_param p = {					\
		.hfunc = hfunc, .indir = (u32 *)indir, .key = (u8 *)key,	\
	};								\
									\
	return set(dev, &p, NULL);					\
}									\
struct ethtool_rxfh_param
#define xps_ethtool_get_rxfh(get)	get##_args
#define xps_ethtool_set_rxfh(set)	set##_args
#endif
#endif /* XPS_NET */

#endif /* XPS_COMPAT_H */
