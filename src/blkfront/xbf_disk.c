// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * xen-blkfront-64k's disks: names and minors, what the backend says about
 * the disk (size, sectors, features, each value checked), the gendisk
 * and its sysfs statistics.
 */
#include "blkfront.h"

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

int xbf_parse_vdevice(struct xbf_info *info)
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
XBF_STAT_ATTR(responses_unnotified, XBF_ST(unnotified));
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
	&dev_attr_responses_unnotified.attr,
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

const struct attribute_group *xbf_attr_groups[] = {
	&xbf_attr_group,
	NULL,
};

static const struct block_device_operations xbf_fops = {
	.owner = THIS_MODULE,
};

/* Read the backend's disk parameters; validate every value. */
int xbf_read_disk_info(struct xbf_info *info)
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

void xbf_read_features(struct xbf_info *info)
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

int xbf_alloc_disk(struct xbf_info *info)
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

/* The backend says Connected again: its disk may have grown or shrunk. */
void xbf_capacity_changed(struct xbf_info *info)
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
