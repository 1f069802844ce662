// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * xen-netback-pgnt's control ring: the static-grant messages of Xen's
 * io/netif.h, answered from a threaded interrupt (mapping may sleep).
 *
 *   GET_GREF_MAPPING_SIZE  data[0] queue: SUCCESS with max_gref_mappings,
 *                          NOT_SUPPORTED when that parameter is 0,
 *                          INVALID_PARAMETER for a queue out of range
 *   ADD_GREF_MAPPING       data[0] queue, data[1] table gref, data[2]
 *                          entries: all mapped (and kept mapped, pinned
 *                          in xen-grant-pool's cache) or none
 *   DEL_GREF_MAPPING       the same table: each entry's status says
 *                          whether it was unmapped; grefs never added
 *                          to that queue get INVALID_PARAMETER
 *
 * The table is copied in (and, for DEL, its statuses out) with one grant
 * copy each: the frontend cannot change an entry after it was checked.
 *
 * The Toeplitz hash messages (SET_HASH_ALGORITHM, GET/SET_HASH_FLAGS,
 * SET_HASH_KEY, GET/SET_HASH_MAPPING_SIZE, SET_HASH_MAPPING) are
 * answered as the stock netback answers them (xnb_core.c has the rules):
 * a 40-octet key, a 128-entry table whose entries must name a queue of
 * the vif, copied in first and switched in whole.  xnb_select_queue()
 * then steers each packet for the guest by that table and hands the
 * guest the hash in an extra-info slot.
 *
 * A control producer index no frontend could write disconnects the vif.
 */
#include "netback.h"

/* How long a DEL waits for the data path to drop a transient reference */
#define XNB_DEL_BUSY_TRIES	20

/* struct xen_netif_gref: 8 octets */
struct xnb_gref {
	u32 ref;
	u16 flags;
	u16 status;
};

static_assert(sizeof(struct xnb_gref) == 8);

/*
 * Copy @len octets from the start of the frontend's grant @ref into @buf
 * (@in) or from @buf to it (!@in).  @buf is a 4 KB-aligned buffer.
 */
static int xnb_ctrl_copy(struct xnb_vif *vif, u32 ref, void *buf,
			 unsigned int len, bool in)
{
	struct gnttab_copy op = {};

	if (!len)
		return 0;
	if (in) {
		op.flags = GNTCOPY_source_gref;
		op.source.u.ref = ref;
		op.source.domid = vif->domid;
		op.dest.u.gmfn = virt_to_gfn(buf);
		op.dest.domid = DOMID_SELF;
		op.dest.offset = xen_offset_in_page(buf);
	} else {
		op.flags = GNTCOPY_dest_gref;
		op.source.u.gmfn = virt_to_gfn(buf);
		op.source.domid = DOMID_SELF;
		op.source.offset = xen_offset_in_page(buf);
		op.dest.u.ref = ref;
		op.dest.domid = vif->domid;
	}
	op.len = len;
	gnttab_batch_copy(&op, 1);
	return op.status == GNTST_okay ? 0 : -EIO;
}

/* Copy the table page's first @n entries in (@in) or out (!@in). */
static int xnb_ctrl_table(struct xnb_vif *vif, u32 ref, struct xnb_gref *tbl,
			  unsigned int n, bool in)
{
	return xnb_ctrl_copy(vif, ref, tbl, n * sizeof(*tbl), in);
}

/*
 * A Toeplitz message.  @buf: a 4 KB buffer for the key or the table.
 * Returns the status; *@data the answer's data.
 */
static u32 xnb_ctrl_hash(struct xnb_vif *vif,
			 const struct xen_netif_ctrl_request *req, void *buf,
			 u32 *data)
{
	struct xnb_hash *h = &vif->hash;
	u32 status;

	switch (req->type) {
	case XNB_CTRL_TYPE_SET_HASH_ALGORITHM:
		return xnb_hash_set_alg(h, req->data[0]);
	case XNB_CTRL_TYPE_GET_HASH_FLAGS:
		return xnb_hash_get_flags(h, data);
	case XNB_CTRL_TYPE_SET_HASH_FLAGS:
		return xnb_hash_set_flags(h, req->data[0]);
	case XNB_CTRL_TYPE_SET_HASH_KEY:
		if (req->data[1] > XNB_HASH_KEY_MAX)
			return XNB_CTRL_STATUS_INVALID_PARAMETER;
		if (xnb_ctrl_copy(vif, req->data[0], buf, req->data[1], true))
			return XNB_CTRL_STATUS_INVALID_PARAMETER;
		return xnb_hash_set_key(h, buf, req->data[1]);
	case XNB_CTRL_TYPE_GET_HASH_MAPPING_SIZE:
		*data = XNB_HASH_MAPPING_MAX;
		return XNB_CTRL_STATUS_SUCCESS;
	case XNB_CTRL_TYPE_SET_HASH_MAPPING_SIZE:
		return xnb_hash_set_mapping_size(h, req->data[0]);
	case XNB_CTRL_TYPE_SET_HASH_MAPPING:
		status = xnb_hash_mapping_check(h, req->data[1], req->data[2]);
		if (status)
			return status;
		if (xnb_ctrl_copy(vif, req->data[0], buf,
				  req->data[1] * sizeof(u32), true))
			return XNB_CTRL_STATUS_INVALID_PARAMETER;
		return xnb_hash_set_mapping(h, buf, req->data[1], req->data[2],
					    vif->nr_queues);
	default:
		return XNB_CTRL_STATUS_NOT_SUPPORTED;
	}
}

static struct xgp_back_cache *xnb_cache(struct xnb_vif *vif)
{
	char name[XGP_NAME_LEN];
	struct xgp_back_cache *c;

	if (vif->cache)
		return vif->cache;
	snprintf(name, sizeof(name), "netback-%u.%u", vif->domid, vif->handle);
	c = xgp_back_cache_create(name, vif->domid,
				  max(vif->nr_queues *
				      READ_ONCE(xnb_max_gref_mappings), 1U));
	if (IS_ERR(c)) {
		netdev_warn(vif->dev, "no grant cache (%ld): static grants refused\n",
			    PTR_ERR(c));
		return NULL;
	}
	WRITE_ONCE(vif->cache, c);
	return c;
}

/* Unpin @n entries and unmap them now; returns how many were. */
static unsigned int xnb_unpin(struct xnb_vif *vif, struct xgp_back_entry **e,
			      unsigned int n, u32 *grefs, int *st)
{
	unsigned int i, done = 0, busy, tries;

	for (i = 0; i < n; i++) {
		grefs[i] = e[i]->gref;
		xgp_back_put(vif->cache, e[i]);
	}
	if (!n)
		return 0;
	done = xgp_back_unmap_grefs(vif->cache, grefs, n, st);
	/* the data path holds a reference only while it copies */
	for (tries = 0; done < n && tries < XNB_DEL_BUSY_TRIES; tries++) {
		busy = 0;
		for (i = 0; i < n; i++)
			if (st[i] == -EBUSY)
				busy++;
		if (!busy)
			break;
		usleep_range(50, 100);
		for (i = 0; i < n; i++) {
			if (st[i] != -EBUSY)
				continue;
			done += xgp_back_unmap_grefs(vif->cache, &grefs[i], 1,
						     &st[i]);
		}
	}
	atomic_sub(n, &vif->mapped);
	atomic64_add(done, &vif->unmap_ops);
	return done;
}

/* ADD_GREF_MAPPING: all or nothing.  Returns a XEN_NETIF_CTRL_STATUS_*. */
static u32 xnb_ctrl_add(struct xnb_vif *vif, struct xnb_queue *q,
			struct xnb_gref *tbl, unsigned int n)
{
	struct xgp_back_entry **e = q->mapped + q->nr_mapped;
	struct xgp_back_cache *cache = xnb_cache(vif);
	unsigned int i, nro = 0, nrw = 0;
	u32 *grefs;
	int err = 0, *st;

	if (!cache)
		return XEN_NETIF_CTRL_STATUS_INVALID_PARAMETER;
	grefs = kcalloc(n, sizeof(*grefs), GFP_KERNEL);
	st = kcalloc(n, sizeof(*st), GFP_KERNEL);
	if (!grefs || !st) {
		err = -ENOMEM;
		goto out;
	}
	/* a gref already registered (here or on another queue): refused */
	for (i = 0; i < n; i++) {
		struct xgp_back_entry *old = xgp_back_lookup(cache, tbl[i].ref);

		if (old) {
			xgp_back_put(cache, old);
			netdev_warn(vif->dev, "%s: ADD_GREF_MAPPING names gref %u, already mapped: refused\n",
				    q->name, tbl[i].ref);
			err = -EEXIST;
			goto out;
		}
	}
	/* read-only ones first, then the others: two batches */
	for (i = 0; i < n; i++)
		if (tbl[i].flags & XNB_GREF_READONLY)
			grefs[nro++] = tbl[i].ref;
	err = nro ? xgp_back_map(cache, grefs, nro, e, true) : 0;
	if (err)
		goto out;
	atomic_add(nro, &vif->mapped);
	atomic64_add(nro, &vif->map_ops);
	for (i = 0; i < n; i++)
		if (!(tbl[i].flags & XNB_GREF_READONLY))
			grefs[nro + nrw++] = tbl[i].ref;
	err = nrw ? xgp_back_map(cache, grefs + nro, nrw, e + nro, false) : 0;
	if (err) {
		xnb_unpin(vif, e, nro, grefs, st);
		goto out;
	}
	atomic_add(nrw, &vif->mapped);
	atomic64_add(nrw, &vif->map_ops);
	WRITE_ONCE(q->nr_mapped, q->nr_mapped + n);
out:
	kfree(st);
	kfree(grefs);
	if (!err)
		return XEN_NETIF_CTRL_STATUS_SUCCESS;
	atomic64_add(n, &vif->refused);
	if (err != -EEXIST)
		netdev_warn(vif->dev, "%s: ADD_GREF_MAPPING of %u grants failed (%d): refused, per-packet copies\n",
			    q->name, n, err);
	return XEN_NETIF_CTRL_STATUS_INVALID_PARAMETER;
}

/* DEL_GREF_MAPPING: each entry's status; returns how many were unmapped */
static u32 xnb_ctrl_del(struct xnb_vif *vif, struct xnb_queue *q,
			struct xnb_gref *tbl, unsigned int n)
{
	struct xgp_back_entry **del;
	unsigned int i, j, nr = 0, done;
	u32 *grefs;
	int *st;

	del = kcalloc(n, sizeof(*del), GFP_KERNEL);
	grefs = kcalloc(n, sizeof(*grefs), GFP_KERNEL);
	st = kcalloc(n, sizeof(*st), GFP_KERNEL);
	if (!del || !grefs || !st) {
		done = 0;
		for (i = 0; i < n; i++)
			tbl[i].status = XEN_NETIF_CTRL_STATUS_INVALID_PARAMETER;
		goto out;
	}
	for (i = 0; i < n; i++) {
		tbl[i].status = XEN_NETIF_CTRL_STATUS_INVALID_PARAMETER;
		for (j = 0; j < q->nr_mapped; j++) {
			if (q->mapped[j]->gref != tbl[i].ref)
				continue;
			del[nr++] = q->mapped[j];
			q->mapped[j] = q->mapped[q->nr_mapped - 1];
			WRITE_ONCE(q->nr_mapped, q->nr_mapped - 1);
			tbl[i].status = XEN_NETIF_CTRL_STATUS_SUCCESS;
			break;
		}
	}
	done = xnb_unpin(vif, del, nr, grefs, st);
	/* entries still busy stay mapped until the cache lets them go */
	for (i = 0, j = 0; i < n && j < nr; i++) {
		if (tbl[i].status != XEN_NETIF_CTRL_STATUS_SUCCESS)
			continue;
		if (st[j++])
			tbl[i].status = XEN_NETIF_CTRL_STATUS_INVALID_PARAMETER;
	}
	if (done < nr)
		netdev_warn(vif->dev, "%s: DEL_GREF_MAPPING: %u of %u grants still in use, left mapped\n",
			    q->name, nr - done, nr);
out:
	kfree(st);
	kfree(grefs);
	kfree(del);
	return done;
}

/* One request.  Fills @rsp. */
static void xnb_ctrl_one(struct xnb_vif *vif,
			 const struct xen_netif_ctrl_request *req,
			 struct xen_netif_ctrl_response *rsp,
			 struct xnb_gref *tbl)
{
	unsigned int limit;
	u32 queue = req->data[0], ref = req->data[1], n = req->data[2];
	struct xnb_queue *q;
	bool del;

	rsp->id = req->id;
	rsp->type = req->type;
	rsp->status = XEN_NETIF_CTRL_STATUS_NOT_SUPPORTED;
	rsp->data = 0;
	switch (req->type) {
	case XNB_CTRL_TYPE_GET_GREF_MAPPING_SIZE:
	case XNB_CTRL_TYPE_ADD_GREF_MAPPING:
	case XNB_CTRL_TYPE_DEL_GREF_MAPPING:
		break;
	default:
		rsp->status = xnb_ctrl_hash(vif, req, tbl, &rsp->data);
		return;
	}
	if (!READ_ONCE(xnb_max_gref_mappings))
		return;
	rsp->status = XEN_NETIF_CTRL_STATUS_INVALID_PARAMETER;
	if (queue >= vif->nr_queues)
		return;
	q = &vif->queues[queue];
	limit = q->map_limit;
	if (!limit)
		return;
	if (req->type == XNB_CTRL_TYPE_GET_GREF_MAPPING_SIZE) {
		rsp->status = XEN_NETIF_CTRL_STATUS_SUCCESS;
		rsp->data = limit;
		return;
	}
	if (!n || n > XNB_GREFS_PER_PAGE)
		return;
	del = req->type == XNB_CTRL_TYPE_DEL_GREF_MAPPING;
	if (!del && q->nr_mapped + n > limit) {
		atomic64_add(n, &vif->refused);
		netdev_warn(vif->dev, "%s: ADD_GREF_MAPPING of %u grants over the limit (%u mapped, %u allowed): refused\n",
			    q->name, n, q->nr_mapped, limit);
		return;
	}
	if (xnb_ctrl_table(vif, ref, tbl, n, true)) {
		netdev_warn(vif->dev, "%s: control table gref %u unreadable: refused\n",
			    q->name, ref);
		return;
	}
	if (!del) {
		rsp->status = xnb_ctrl_add(vif, q, tbl, n);
		return;
	}
	rsp->data = xnb_ctrl_del(vif, q, tbl, n);
	if (xnb_ctrl_table(vif, ref, tbl, n, false)) {
		netdev_warn(vif->dev, "%s: control table gref %u unwritable\n",
			    q->name, ref);
		return;
	}
	rsp->status = XEN_NETIF_CTRL_STATUS_SUCCESS;
}

static irqreturn_t xnb_ctrl_thread(int irq, void *dev_id)
{
	struct xnb_vif *vif = dev_id;
	unsigned int eoi = XEN_EOI_FLAG_SPURIOUS;
	struct xnb_gref *tbl;

	tbl = kmalloc(XEN_PAGE_SIZE, GFP_KERNEL);
	while (!READ_ONCE(vif->broken)) {
		struct xen_netif_ctrl_request req;
		struct xen_netif_ctrl_response rsp;
		unsigned int avail;
		int more;

		if (xnb_req_avail(READ_ONCE(vif->ctrl.sring->req_prod),
				  vif->ctrl.req_cons, XNB_CTRL_RING_SIZE,
				  &avail)) {
			xnb_fatal(vif, "control request producer %u, consumer %u: more than a ring",
				  vif->ctrl.sring->req_prod,
				  vif->ctrl.req_cons);
			break;
		}
		if (!avail) {
			RING_FINAL_CHECK_FOR_REQUESTS(&vif->ctrl, more);
			if (!more)
				break;
			continue;
		}
		virt_rmb(); /* the request after the producer covering it */
		RING_COPY_REQUEST(&vif->ctrl, vif->ctrl.req_cons, &req);
		vif->ctrl.req_cons++;
		if (tbl) {
			xnb_ctrl_one(vif, &req, &rsp, tbl);
		} else {
			rsp.id = req.id;
			rsp.type = req.type;
			rsp.status = XEN_NETIF_CTRL_STATUS_INVALID_PARAMETER;
			rsp.data = 0;
		}
		*RING_GET_RESPONSE(&vif->ctrl, vif->ctrl.rsp_prod_pvt) = rsp;
		vif->ctrl.rsp_prod_pvt++;
		RING_PUSH_RESPONSES_AND_CHECK_NOTIFY(&vif->ctrl, more);
		if (more)
			notify_remote_via_irq(irq);
		vif->ctrl_requests++;
		eoi = 0;
	}
	kfree(tbl);
	xen_irq_lateeoi(irq, eoi);
	return IRQ_HANDLED;
}

int xnb_ctrl_connect(struct xnb_vif *vif, grant_ref_t ref,
		     evtchn_port_t evtchn)
{
	struct xenbus_device *dev = vif->xbdev;
	struct xen_netif_ctrl_sring *sring;
	void *addr;
	int err;

	err = xenbus_map_ring_valloc(dev, &ref, 1, &addr);
	if (err)
		return err;
	sring = addr;
	BACK_RING_ATTACH(&vif->ctrl, sring, READ_ONCE(sring->rsp_prod),
			 XEN_PAGE_SIZE);
	/* a new frontend starts unhashed, whatever the last one set */
	xnb_hash_reset(&vif->hash);
	err = bind_interdomain_evtchn_to_irq_lateeoi(dev, evtchn);
	if (err < 0)
		goto unmap;
	vif->ctrl_irq = err;
	err = request_threaded_irq(vif->ctrl_irq, NULL, xnb_ctrl_thread,
				   IRQF_ONESHOT, "xen-netback-pgnt-ctrl", vif);
	if (err) {
		unbind_from_irqhandler(vif->ctrl_irq, vif);
		vif->ctrl_irq = 0;
		goto unmap;
	}
	return 0;
unmap:
	xenbus_unmap_ring_vfree(dev, vif->ctrl.sring);
	vif->ctrl.sring = NULL;
	return err;
}

void xnb_ctrl_disconnect(struct xnb_vif *vif)
{
	if (vif->ctrl_irq) {
		unbind_from_irqhandler(vif->ctrl_irq, vif);
		vif->ctrl_irq = 0;
	}
	/* packets queued from now on are steered by the stack again */
	WRITE_ONCE(vif->hash.alg, XNB_HASH_ALG_NONE);
	if (vif->ctrl.sring) {
		xenbus_unmap_ring_vfree(vif->xbdev, vif->ctrl.sring);
		vif->ctrl.sring = NULL;
	}
}

/* Disconnect: drop the queue's pins; the cache's destroy unmaps. */
void xnb_unmap_queue(struct xnb_vif *vif, struct xnb_queue *q)
{
	unsigned int i;

	for (i = 0; i < q->nr_mapped; i++)
		xgp_back_put(vif->cache, q->mapped[i]);
	atomic_sub(q->nr_mapped, &vif->mapped);
	atomic64_add(q->nr_mapped, &vif->unmap_ops);
	q->nr_mapped = 0;
}
