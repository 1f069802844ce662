// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * xen-netfront-pgnt's control ring: persistent grants over the protocol
 * Xen documents (io/netif.h, Xen 4.17), never over invented keys.
 *
 * Every packet already travels through the queues' slot pools, so the
 * only question is whether the backend maps those grants once or per
 * packet.  When it offers feature-ctrl-ring, the driver connects a
 * control ring and, once the backend is Connected, negotiates each queue
 * in turn, as netif.h defines the messages: GET_GREF_MAPPING_SIZE for
 * queue i (data[0] = i); if the answer covers that queue's pool grants,
 * it sends them in ADD_GREF_MAPPING table pages (data[0] = i, data[1] =
 * the table page's grant, data[2] = entries; its tx pool first,
 * read-only, then its rx pool).  Any other answer (INVALID_PARAMETER, a
 * size too small, a refused ADD after that queue's earlier ones are
 * deleted again) leaves that queue mapped per packet: nothing else
 * changes.  NOT_SUPPORTED (a stock netback) ends the negotiation: every
 * queue not yet mapped stays per packet.  Before an unbind closes the
 * device, each queue's mapping is deleted (DEL_GREF_MAPPING, the same
 * layout).  The state machine is xnf_pg, one per queue, and the request
 * layout is xnf_ctrl_req_data() (xnf_core.c, unit-tested); this file
 * moves their messages over the ring.  A malformed response kills the
 * device.
 */
#include "netfront.h"

static_assert(sizeof(struct xnf_gref) == 8);
static_assert(XEN_NETIF_CTRL_STATUS_SUCCESS == XNF_CTRL_STATUS_SUCCESS);
static_assert(XEN_NETIF_CTRL_STATUS_NOT_SUPPORTED ==
	      XNF_CTRL_STATUS_NOT_SUPPORTED);
static_assert(XEN_NETIF_CTRL_STATUS_INVALID_PARAMETER ==
	      XNF_CTRL_STATUS_INVALID_PARAMETER);
static_assert(XEN_NETIF_CTRL_STATUS_BUFFER_OVERFLOW ==
	      XNF_CTRL_STATUS_BUFFER_OVERFLOW);

bool xnf_feature_persistent = true;
module_param_named(feature_persistent, xnf_feature_persistent, bool, 0644);
MODULE_PARM_DESC(feature_persistent,
		 "Ask a backend that offers feature-ctrl-ring to map the queues' grant pools once (GET/ADD/DEL_GREF_MAPPING); without it, or when refused, the backend maps per packet (default 1 = on). Applies at the next connect.");

#define XNF_CTRL_RING_SIZE	__CONST_RING_SIZE(xen_netif_ctrl, XEN_PAGE_SIZE)

static const char *xnf_ctrl_type_str(u8 type)
{
	switch (type) {
	case XNF_CTRL_TYPE_GET_GREF_MAPPING_SIZE:
		return "GET_GREF_MAPPING_SIZE";
	case XNF_CTRL_TYPE_ADD_GREF_MAPPING:
		return "ADD_GREF_MAPPING";
	case XNF_CTRL_TYPE_DEL_GREF_MAPPING:
		return "DEL_GREF_MAPPING";
	default:
		return "?";
	}
}

static irqreturn_t xnf_ctrl_interrupt(int irq, void *dev_id)
{
	struct xnf_ctrl *c = dev_id;

	if (c->ring.sring && RING_HAS_UNCONSUMED_RESPONSES(&c->ring)) {
		wake_up(&c->wq);
		xen_irq_lateeoi(irq, 0);
	} else {
		xen_irq_lateeoi(irq, XEN_EOI_FLAG_SPURIOUS);
	}
	return IRQ_HANDLED;
}

/* Connect-time part: the ring, its event channel and the table page. */
int xnf_ctrl_setup(struct xnf_info *info)
{
	struct xnf_ctrl *c = &info->ctrl;
	struct xenbus_device *dev = info->xbdev;
	struct xen_netif_ctrl_sring *sring;
	int err;

	c->ring_ref = INVALID_GRANT_REF;
	c->tbl_ref = INVALID_GRANT_REF;
	c->pg_on = READ_ONCE(xnf_feature_persistent);
	c->qs = kcalloc(info->nr_queues, sizeof(*c->qs), GFP_KERNEL);
	if (!c->qs)
		return -ENOMEM;
	c->nr_qs = info->nr_queues;
	sring = xgp_ring_alloc(dev->otherend_id, 0, &c->ring_ref, GFP_KERNEL);
	if (IS_ERR(sring))
		return PTR_ERR(sring);
	SHARED_RING_INIT(sring);
	FRONT_RING_INIT(&c->ring, sring, XEN_PAGE_SIZE);
	/* the backend writes each entry's status: granted read-write */
	c->tbl = xgp_ring_alloc(dev->otherend_id, 0, &c->tbl_ref, GFP_KERNEL);
	if (IS_ERR(c->tbl)) {
		err = PTR_ERR(c->tbl);
		c->tbl = NULL;
		return err;
	}
	err = xenbus_alloc_evtchn(dev, &c->evtchn);
	if (err)
		return err;
	snprintf(c->name, sizeof(c->name), "%s-ctrl", dev_name(&dev->dev));
	err = bind_evtchn_to_irqhandler_lateeoi(c->evtchn, xnf_ctrl_interrupt,
						0, c->name, c);
	if (err <= 0)
		return err ? err : -EINVAL;
	c->irq = err;
	c->live = true;
	return 0;
}

int xnf_ctrl_publish(struct xnf_info *info, struct xenbus_transaction xbt)
{
	struct xnf_ctrl *c = &info->ctrl;
	const char *dir = info->xbdev->nodename;

	if (!c->live)
		return 0;
	return xenbus_printf(xbt, dir, "ctrl-ring-ref", "%u", c->ring_ref) ?:
	       xenbus_printf(xbt, dir, "event-channel-ctrl", "%u", c->evtchn);
}

/* Release the ring (the work is not running).  rtnl held. */
void xnf_ctrl_free(struct xnf_info *info)
{
	struct xnf_ctrl *c = &info->ctrl;
	void *va = c->ring.sring;

	c->live = false;
	xnf_unbind(info, c, &c->irq, &c->evtchn);
	c->ring.sring = NULL;
	xnf_release_page(info, &va, &c->ring_ref, "control ring");
	va = c->tbl;
	c->tbl = NULL;
	xnf_release_page(info, &va, &c->tbl_ref, "control table");
	kfree(c->grefs);
	c->grefs = NULL;
	kfree(c->qs);
	c->qs = NULL;
	c->nr_qs = 0;
}

/* Pool grants the backend maps, over every queue (ethtool).  rtnl held. */
unsigned int xnf_ctrl_mapped(struct xnf_info *info)
{
	struct xnf_ctrl *c = &info->ctrl;
	unsigned int i, n = 0;

	for (i = 0; c->qs && i < c->nr_qs; i++)
		if (READ_ONCE(c->qs[i].pg.state) == XNF_PG_MAPPED)
			n += READ_ONCE(c->qs[i].pg.mapped);
	return n;
}

/* Fill the table page for entries [first, first + count) of a queue's. */
static void xnf_ctrl_table(struct xnf_ctrl *c, const struct xnf_ctrl_queue *cq,
			   unsigned int first, unsigned int count)
{
	unsigned int i;

	memset(c->tbl, 0, XEN_PAGE_SIZE);
	for (i = 0; i < count; i++)
		xnf_gref_table_fill(&c->tbl[i], 1, cq->grefs, cq->nr_grefs,
				    first + i, first + i < cq->nr_ro);
}

/*
 * Send @req and wait for its response (copied off the ring).  Return: 0,
 * -ETIMEDOUT, or -EPROTO for a response producer beyond what was sent
 * (the device is then dead).  ctrl.lock held.
 */
static int xnf_ctrl_xfer(struct xnf_info *info,
			 const struct xen_netif_ctrl_request *req,
			 struct xen_netif_ctrl_response *rsp)
{
	struct xnf_ctrl *c = &info->ctrl;
	RING_IDX prod;
	bool notify;
	u32 nr;

	lockdep_assert_held(&c->lock);
	*RING_GET_REQUEST(&c->ring, c->ring.req_prod_pvt) = *req;
	c->ring.req_prod_pvt++;
	/*
	 * Ask for an event when this response is pushed: the backend
	 * notifies only when its producer passes rsp_event, which is ours
	 * to move.  Ordered before the request by the push's barrier.
	 */
	c->ring.sring->rsp_event = c->ring.rsp_cons + 1;
	RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&c->ring, notify);
	if (notify)
		notify_remote_via_irq(c->irq);
	c->requests++;

	if (!wait_event_timeout(c->wq, RING_HAS_UNCONSUMED_RESPONSES(&c->ring),
				msecs_to_jiffies(XNF_CLOSE_WAIT_MS)))
		return -ETIMEDOUT;
	prod = READ_ONCE(c->ring.sring->rsp_prod);
	virt_rmb();	/* the response, after the producer that covers it */
	if (xgp_rsp_avail(prod, c->ring.rsp_cons, c->ring.req_prod_pvt,
			  XNF_CTRL_RING_SIZE, &nr) || nr != 1) {
		xnf_broken(info, "control ring: response producer %u, consumer %u, requests %u",
			   prod, c->ring.rsp_cons, c->ring.req_prod_pvt);
		return -EPROTO;
	}
	RING_COPY_RESPONSE(&c->ring, c->ring.rsp_cons, rsp);
	c->ring.rsp_cons++;
	return 0;
}

/* One message of a queue's negotiation: see xnf_ctrl_xfer(). */
static int xnf_ctrl_call(struct xnf_info *info, struct xnf_ctrl_queue *cq,
			 const struct xnf_pg_msg *msg,
			 struct xen_netif_ctrl_response *rsp)
{
	struct xnf_ctrl *c = &info->ctrl;
	struct xen_netif_ctrl_request req = {};

	static_assert(ARRAY_SIZE(req.data) == XNF_CTRL_DATA_WORDS);
	if (msg->type == XNF_CTRL_TYPE_ADD_GREF_MAPPING ||
	    msg->type == XNF_CTRL_TYPE_DEL_GREF_MAPPING)
		xnf_ctrl_table(c, cq, msg->first, msg->count);
	req.id = cq->pg.id;
	req.type = msg->type;
	xnf_ctrl_req_data(msg, c->tbl_ref, req.data);
	return xnf_ctrl_xfer(info, &req, rsp);
}

/*
 * Run a queue's state machine until it has nothing to send.
 * Return: 0, or -EIO when the ring is no longer usable (no answer in
 * time, or the device is dead): no other request may follow.
 */
static int xnf_ctrl_run(struct xnf_info *info, struct xnf_ctrl_queue *cq,
			struct xnf_pg_msg *msg)
{
	struct xnf_ctrl *c = &info->ctrl;
	struct xen_netif_ctrl_response rsp;
	u8 last = 0;
	int err;

	while (msg->type) {
		last = msg->type;
		err = xnf_ctrl_call(info, cq, msg, &rsp);
		if (err == -ETIMEDOUT) {
			/* a late answer would be out of step: stop using it */
			dev_warn(&info->xbdev->dev, "control ring: no answer to %s of queue %u in %u ms; the backend maps per packet\n",
				 xnf_ctrl_type_str(msg->type), msg->queue,
				 XNF_CLOSE_WAIT_MS);
			cq->pg.state = XNF_PG_OFF;
			c->live = false;
			return -EIO;
		}
		if (err)
			return -EIO;
		err = xnf_pg_response(&cq->pg, rsp.id, rsp.type, rsp.status,
				      rsp.data, ++c->next_id, msg);
		if (err == -EPROTO) {
			xnf_broken(info,
				   "control ring: rsp id %u type %u status %u to %s of queue %u id %u",
				   rsp.id, rsp.type, rsp.status,
				   xnf_ctrl_type_str(last), cq->pg.queue,
				   cq->pg.id);
			return -EIO;
		}
		if (err == -EIO)
			dev_warn(&info->xbdev->dev, "backend refused DEL_GREF_MAPPING of queue %u (status %u, %u of %u); the revokes will tell\n",
				 cq->pg.queue, rsp.status, rsp.data,
				 cq->pg.chunk);
	}
	return 0;
}

/* Each queue's pool grants, its tx pool's (read-only) then its rx pool's. */
static int xnf_ctrl_collect(struct xnf_info *info)
{
	struct xnf_ctrl *c = &info->ctrl;
	const unsigned int per_q = 2 * XNF_TX_RING_SIZE;
	unsigned int i, n;

	c->grefs = kcalloc(c->nr_qs, per_q * sizeof(*c->grefs), GFP_KERNEL);
	if (!c->grefs)
		return -ENOMEM;
	for (i = 0; i < c->nr_qs; i++) {
		struct xnf_ctrl_queue *cq = &c->qs[i];
		struct xnf_queue *q = &info->queues[i];

		cq->grefs = c->grefs + i * per_q;
		n = xgp_front_pool_grefs(q->tx_pool, cq->grefs, per_q);
		if (n > per_q)
			return -E2BIG;
		cq->nr_ro = n;
		n = xgp_front_pool_grefs(q->rx_pool, cq->grefs + cq->nr_ro,
					 per_q - cq->nr_ro);
		if (n > per_q - cq->nr_ro)
			return -E2BIG;
		cq->nr_grefs = cq->nr_ro + n;
	}
	return 0;
}

/* Say what a queue the backend does not map got for an answer. */
static void xnf_ctrl_report(struct xnf_info *info,
			    const struct xnf_ctrl_queue *cq)
{
	const struct xnf_pg *pg = &cq->pg;

	if (!pg->nr_grefs)
		dev_info(&info->xbdev->dev, "queue %u: per-packet grants: no pool grant to map\n",
			 pg->queue);
	else if (!pg->backend_max)
		dev_info(&info->xbdev->dev, "queue %u: per-packet grants: GET_GREF_MAPPING_SIZE answered status %u, size 0\n",
			 pg->queue, pg->status);
	else
		dev_info(&info->xbdev->dev, "queue %u: per-packet grants: backend mapping size %u for %u grants, last status %u\n",
			 pg->queue, pg->backend_max, pg->nr_grefs, pg->status);
}

/* Ask the backend to map the pools.  ctrl.lock held. */
static void xnf_ctrl_negotiate(struct xnf_info *info)
{
	struct xnf_ctrl *c = &info->ctrl;
	unsigned int i, nr_mapped = 0, grants = 0;
	struct xnf_pg_msg msg;
	int err;

	if (!c->live || !c->pg_on || !c->qs || c->grefs)
		return;
	err = xnf_ctrl_collect(info);
	if (err) {
		dev_warn(&info->xbdev->dev, "%s the grant list; the backend maps per packet\n",
			 err == -ENOMEM ? "no memory for" : "a pool too large for");
		return;
	}
	for (i = 0; i < c->nr_qs; i++) {
		struct xnf_ctrl_queue *cq = &c->qs[i];

		xnf_pg_start(&cq->pg, i, cq->nr_grefs, ++c->next_id, &msg);
		if (xnf_ctrl_run(info, cq, &msg))
			return;		/* said why */
		if (xnf_pg_unsupported(&cq->pg)) {
			/* a stock netback: no queue is asked again */
			dev_info(&info->xbdev->dev, "per-packet grants: GET_GREF_MAPPING_SIZE of queue %u answered status %u (NOT_SUPPORTED)%s\n",
				 i, cq->pg.status,
				 nr_mapped ? "; earlier queues stay mapped" :
				 "");
			return;
		}
		if (cq->pg.state != XNF_PG_MAPPED) {
			xnf_ctrl_report(info, cq);
			continue;
		}
		nr_mapped++;
		grants += cq->pg.mapped;
	}
	if (nr_mapped == c->nr_qs)
		dev_info(&info->xbdev->dev, "persistent grants: the backend maps all %u pool grants of %u queues\n",
			 grants, c->nr_qs);
	else if (nr_mapped)
		dev_info(&info->xbdev->dev, "persistent grants: the backend maps %u pool grants of %u of %u queues; the others per packet\n",
			 grants, nr_mapped, c->nr_qs);
	else
		dev_info(&info->xbdev->dev, "per-packet grants: the backend maps none of the %u queues\n",
			 c->nr_qs);
}

static int xnf_rss_apply(struct xnf_info *info);

/* Backend Connected: the pools, then the steering.  Process context. */
void xnf_ctrl_work(struct work_struct *work)
{
	struct xnf_info *info = container_of(work, struct xnf_info,
					     ctrl_work);
	struct xnf_ctrl *c = &info->ctrl;

	mutex_lock(&c->lock);
	xnf_ctrl_negotiate(info);
	if (c->live && info->rss.user)
		xnf_rss_apply(info);
	mutex_unlock(&c->lock);
}

/**
 * xnf_ctrl_rebound - the backend driver was rebound under us
 * @info: the device, Connected
 *
 * A backend driver unbound and bound again (module reload: xenbus
 * keeps the frontend Connected) goes through InitWait and serves the
 * same rings, but whatever the old instance mapped went with it.  Forget
 * the negotiation, so that the backend's Connected asks again.  Called
 * from the xenbus watch, before that Connected.
 */
void xnf_ctrl_rebound(struct xnf_info *info)
{
	struct xnf_ctrl *c = &info->ctrl;
	unsigned int i;

	flush_work(&info->ctrl_work);
	mutex_lock(&c->lock);
	if (!c->live || !c->grefs)
		goto out;
	for (i = 0; i < c->nr_qs; i++)
		memset(&c->qs[i].pg, 0, sizeof(c->qs[i].pg));
	kfree(c->grefs);
	c->grefs = NULL;
	dev_info(&info->xbdev->dev, "backend rebound: static grants asked for again\n");
out:
	mutex_unlock(&c->lock);
}

/* Before an unbind closes the device: delete each queue's mapping. */
void xnf_ctrl_unmap(struct xnf_info *info)
{
	struct xnf_ctrl *c = &info->ctrl;
	unsigned int i, nr_q = 0, grants = 0, left = 0;
	struct xnf_pg_msg msg;

	flush_work(&info->ctrl_work);
	mutex_lock(&c->lock);
	for (i = 0; c->live && i < c->nr_qs; i++) {
		struct xnf_ctrl_queue *cq = &c->qs[i];
		unsigned int mapped = cq->pg.mapped;

		if (cq->pg.state != XNF_PG_MAPPED)
			continue;
		nr_q++;
		xnf_pg_stop(&cq->pg, ++c->next_id, &msg);
		if (xnf_ctrl_run(info, cq, &msg)) {
			mutex_unlock(&c->lock);
			return;		/* said why */
		}
		if (cq->pg.state == XNF_PG_OFF && !cq->pg.mapped)
			grants += mapped;
		else
			left++;
	}
	mutex_unlock(&c->lock);
	if (nr_q && !left)
		dev_info(&info->xbdev->dev, "persistent grants: the backend unmapped all %u pool grants of %u queues\n",
			 grants, nr_q);
	else if (nr_q)
		dev_info(&info->xbdev->dev, "persistent grants: the backend unmapped %u pool grants; %u of %u queues not (DEL_GREF_MAPPING refused)\n",
			 grants, left, nr_q);
}

/* ---- receive steering: the Toeplitz messages, from ethtool -x/-X ---- */

static const char *xnf_hash_msg_str(u16 type)
{
	static const char * const names[] = {
		[XNF_CTRL_TYPE_GET_HASH_FLAGS] = "GET_HASH_FLAGS",
		[XNF_CTRL_TYPE_SET_HASH_FLAGS] = "SET_HASH_FLAGS",
		[XNF_CTRL_TYPE_SET_HASH_KEY] = "SET_HASH_KEY",
		[XNF_CTRL_TYPE_GET_HASH_MAPPING_SIZE] = "GET_HASH_MAPPING_SIZE",
		[XNF_CTRL_TYPE_SET_HASH_MAPPING_SIZE] = "SET_HASH_MAPPING_SIZE",
		[XNF_CTRL_TYPE_SET_HASH_MAPPING] = "SET_HASH_MAPPING",
		[XNF_CTRL_TYPE_SET_HASH_ALGORITHM] = "SET_HASH_ALGORITHM",
	};

	return type < ARRAY_SIZE(names) && names[type] ? names[type] : "?";
}

/*
 * One hash message.  Return: the backend's status (>= 0, a known one),
 * or -EIO when the ring is unusable (no answer in time: it is not used
 * again; an answer to something else: the device is dead).
 */
static int xnf_hash_msg(struct xnf_info *info, u16 type, u32 d0, u32 d1,
			u32 d2, u32 *data)
{
	struct xnf_ctrl *c = &info->ctrl;
	struct xen_netif_ctrl_request req = {
		.id = ++c->next_id, .type = type, .data = { d0, d1, d2 },
	};
	struct xen_netif_ctrl_response rsp;
	int err;

	err = xnf_ctrl_xfer(info, &req, &rsp);
	if (err == -ETIMEDOUT) {
		dev_warn(&info->xbdev->dev, "control ring: no answer to %s in %u ms; not used again\n",
			 xnf_hash_msg_str(type), XNF_CLOSE_WAIT_MS);
		c->live = false;
	}
	if (err)
		return -EIO;
	if (xnf_ctrl_rsp_check(req.id, req.type, rsp.id, rsp.type,
			       rsp.status)) {
		xnf_broken(info, "control ring: rsp id %u type %u status %u to %s id %u",
			   rsp.id, rsp.type, rsp.status,
			   xnf_hash_msg_str(type), req.id);
		return -EIO;
	}
	if (data)
		*data = rsp.data;
	return rsp.status;
}

/*
 * Send the whole configuration: algorithm, flags, key, table.  A refusal
 * turns the algorithm off again, so the backend steers as it did.
 * ctrl.lock held.  Return: 0 or -errno (said in dmesg).
 */
static int xnf_rss_apply(struct xnf_info *info)
{
	struct xnf_ctrl *c = &info->ctrl;
	struct xnf_rss *r = &info->rss;
	u32 flags = 0, size = 0, i, *tbl = (u32 *)c->tbl;
	u16 step;
	int st;

	lockdep_assert_held(&c->lock);
	if (!c->live || atomic_read(&info->broken))
		return -ENOTCONN;
	for (i = 0; r->indir_set && i < XNF_RSS_INDIR_SIZE; i++) {
		if (r->indir[i] < info->nr_queues)
			continue;
		dev_info(&info->xbdev->dev, "receive steering: the table names queue %u of %u: default spread instead\n",
			 r->indir[i], info->nr_queues);
		r->indir_set = false;
	}
	for (i = 0; !r->indir_set && i < XNF_RSS_INDIR_SIZE; i++)
		r->indir[i] = ethtool_rxfh_indir_default(i, info->nr_queues);

	step = XNF_CTRL_TYPE_SET_HASH_ALGORITHM;
	st = xnf_hash_msg(info, step, XNF_HASH_ALG_TOEPLITZ, 0, 0, NULL);
	if (st)
		goto refused;
	step = XNF_CTRL_TYPE_GET_HASH_FLAGS;
	st = xnf_hash_msg(info, step, 0, 0, 0, &flags);
	if (st || !(flags & XNF_HASH_FLAGS_ALL))
		goto refused;
	step = XNF_CTRL_TYPE_SET_HASH_FLAGS;
	st = xnf_hash_msg(info, step, flags & XNF_HASH_FLAGS_ALL, 0, 0, NULL);
	if (st)
		goto refused;
	memset(c->tbl, 0, XEN_PAGE_SIZE);
	memcpy(c->tbl, r->key, XNF_RSS_KEY_SIZE);
	step = XNF_CTRL_TYPE_SET_HASH_KEY;
	st = xnf_hash_msg(info, step, c->tbl_ref, XNF_RSS_KEY_SIZE, 0, NULL);
	if (st)
		goto refused;
	step = XNF_CTRL_TYPE_GET_HASH_MAPPING_SIZE;
	st = xnf_hash_msg(info, step, 0, 0, 0, &size);
	if (st || size < XNF_RSS_INDIR_SIZE)
		goto refused;
	step = XNF_CTRL_TYPE_SET_HASH_MAPPING_SIZE;
	st = xnf_hash_msg(info, step, XNF_RSS_INDIR_SIZE, 0, 0, NULL);
	if (st)
		goto refused;
	memset(c->tbl, 0, XEN_PAGE_SIZE);
	for (i = 0; i < XNF_RSS_INDIR_SIZE; i++)
		tbl[i] = r->indir[i];
	step = XNF_CTRL_TYPE_SET_HASH_MAPPING;
	st = xnf_hash_msg(info, step, c->tbl_ref, XNF_RSS_INDIR_SIZE, 0, NULL);
	if (st)
		goto refused;
	dev_info(&info->xbdev->dev, "receive steering: Toeplitz, hash types %#x, %u-entry table over %u queues\n",
		 flags & XNF_HASH_FLAGS_ALL, XNF_RSS_INDIR_SIZE,
		 info->nr_queues);
	return 0;
refused:
	if (st < 0)
		return st;	/* said why */
	dev_warn(&info->xbdev->dev, "receive steering: the backend answered %s with status %u (data %u): left to the backend\n",
		 xnf_hash_msg_str(step), st,
		 step == XNF_CTRL_TYPE_GET_HASH_FLAGS ? flags : size);
	if (step != XNF_CTRL_TYPE_SET_HASH_ALGORITHM)
		xnf_hash_msg(info, XNF_CTRL_TYPE_SET_HASH_ALGORITHM,
			     XNF_HASH_ALG_NONE, 0, 0, NULL);
	return -EIO;
}

/* ethtool -x: the table and key in force (or to be sent).  rtnl held. */
int xnf_rss_get(struct xnf_info *info, u32 *indir, u8 *key)
{
	struct xnf_rss *r = &info->rss;
	unsigned int i, nq = max(info->nr_queues, 1U);

	if (!info->be_ctrl)
		return -EOPNOTSUPP;
	mutex_lock(&info->ctrl.lock);
	if (key)
		memcpy(key, r->key, XNF_RSS_KEY_SIZE);
	for (i = 0; indir && i < XNF_RSS_INDIR_SIZE; i++)
		indir[i] = r->indir_set ? r->indir[i] :
			   ethtool_rxfh_indir_default(i, nq);
	mutex_unlock(&info->ctrl.lock);
	return 0;
}

/*
 * ethtool -X: keep what the user set and send it now if connected (else
 * at the next connect).  @indir, @key: NULL for unchanged.  rtnl held.
 */
int xnf_rss_set(struct xnf_info *info, const u32 *indir, const u8 *key)
{
	struct xnf_rss *r = &info->rss;
	int err = 0;

	if (!info->be_ctrl)
		return -EOPNOTSUPP;
	mutex_lock(&info->ctrl.lock);
	if (key)
		memcpy(r->key, key, XNF_RSS_KEY_SIZE);
	if (indir) {
		memcpy(r->indir, indir, sizeof(r->indir));
		r->indir_set = true;
	}
	r->user = true;
	if (info->ctrl.live)
		err = xnf_rss_apply(info);
	mutex_unlock(&info->ctrl.lock);
	return err;
}
