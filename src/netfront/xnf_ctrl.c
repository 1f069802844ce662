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
 * control ring and, once the backend is Connected, asks
 * GET_GREF_MAPPING_SIZE; if the answer covers every pool grant, it sends
 * them in ADD_GREF_MAPPING table pages (tx pools read-only).  Any other
 * answer (NOT_SUPPORTED from a stock netback, INVALID_PARAMETER, a size
 * too small, a refused ADD after the earlier ones are deleted again)
 * leaves the backend mapping per packet: nothing else changes.  Before an
 * unbind closes the device, the mapping is deleted (DEL_GREF_MAPPING).
 * The state machine is xnf_pg (xnf_core.c, unit-tested); this file moves
 * its messages over the ring.  A malformed response kills the device.
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
	bitmap_free(c->readonly);
	c->readonly = NULL;
	kfree(c->grefs);
	c->grefs = NULL;
	c->nr_grefs = 0;
	memset(&c->pg, 0, sizeof(c->pg));
}

/* Fill the table page for entries [first, first + count) of the list. */
static void xnf_ctrl_table(struct xnf_ctrl *c, unsigned int first,
			   unsigned int count)
{
	unsigned int i;

	memset(c->tbl, 0, XEN_PAGE_SIZE);
	for (i = 0; i < count; i++)
		xnf_gref_table_fill(&c->tbl[i], 1, c->grefs, c->nr_grefs,
				    first + i,
				    test_bit(first + i, c->readonly));
}

/*
 * Send one request and wait for its response (copied off the ring).
 * Return: 0, -ETIMEDOUT, or -EPROTO for a response producer beyond what
 * was sent (the device is then dead).
 */
static int xnf_ctrl_call(struct xnf_info *info, const struct xnf_pg_msg *msg,
			 struct xen_netif_ctrl_response *rsp)
{
	struct xnf_ctrl *c = &info->ctrl;
	struct xen_netif_ctrl_request *req;
	RING_IDX prod;
	bool notify;
	u32 nr;

	req = RING_GET_REQUEST(&c->ring, c->ring.req_prod_pvt);
	memset(req, 0, sizeof(*req));
	req->id = c->pg.id;
	req->type = msg->type;
	if (msg->type == XNF_CTRL_TYPE_ADD_GREF_MAPPING ||
	    msg->type == XNF_CTRL_TYPE_DEL_GREF_MAPPING) {
		xnf_ctrl_table(c, msg->first, msg->count);
		req->data[0] = c->tbl_ref;
		req->data[1] = msg->count;
	}
	c->ring.req_prod_pvt++;
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

/* Run the state machine until it has nothing to send. */
static void xnf_ctrl_run(struct xnf_info *info, struct xnf_pg_msg *msg)
{
	struct xnf_ctrl *c = &info->ctrl;
	struct xen_netif_ctrl_response rsp;
	u8 last = 0;
	int err;

	while (msg->type) {
		last = msg->type;
		err = xnf_ctrl_call(info, msg, &rsp);
		if (err == -ETIMEDOUT) {
			/* a late answer would be out of step: stop using it */
			dev_warn(&info->xbdev->dev, "control ring: no answer to %s in %u ms; the backend maps per packet\n",
				 xnf_ctrl_type_str(msg->type),
				 XNF_CLOSE_WAIT_MS);
			c->pg.state = XNF_PG_OFF;
			c->live = false;
			return;
		}
		if (err)
			return;
		c->last_status = rsp.status;
		err = xnf_pg_response(&c->pg, rsp.id, rsp.type, rsp.status,
				      rsp.data, ++c->next_id, msg);
		if (err == -EPROTO) {
			xnf_broken(info, "control ring: rsp id %u type %u status %u to %s id %u",
				   rsp.id, rsp.type, rsp.status,
				   xnf_ctrl_type_str(last), c->pg.id);
			return;
		}
		if (err == -EIO)
			dev_warn(&info->xbdev->dev, "backend refused DEL_GREF_MAPPING (status %u, %u of %u); the revokes will tell\n",
				 rsp.status, rsp.data, c->pg.chunk);
	}
}

/* Every queue's pool grants: q0 tx, q0 rx, q1 tx, ...; tx read-only. */
static int xnf_ctrl_collect(struct xnf_info *info)
{
	struct xnf_ctrl *c = &info->ctrl;
	unsigned int i, n, max = info->nr_queues * 2 * XNF_TX_RING_SIZE;

	c->grefs = kcalloc(max, sizeof(*c->grefs), GFP_KERNEL);
	c->readonly = bitmap_zalloc(max, GFP_KERNEL);
	if (!c->grefs || !c->readonly)
		return -ENOMEM;
	c->nr_grefs = 0;
	for (i = 0; i < info->nr_queues; i++) {
		struct xnf_queue *q = &info->queues[i];

		n = xgp_front_pool_grefs(q->tx_pool, c->grefs + c->nr_grefs,
					 max - c->nr_grefs);
		bitmap_set(c->readonly, c->nr_grefs, n);
		c->nr_grefs += n;
		n = xgp_front_pool_grefs(q->rx_pool, c->grefs + c->nr_grefs,
					 max - c->nr_grefs);
		c->nr_grefs += n;
	}
	return 0;
}

/* Backend Connected: ask it to map the pools.  Process context. */
void xnf_ctrl_work(struct work_struct *work)
{
	struct xnf_info *info = container_of(work, struct xnf_info,
					     ctrl_work);
	struct xnf_ctrl *c = &info->ctrl;
	struct xnf_pg_msg msg;

	if (!c->live || c->pg.state != XNF_PG_OFF || c->grefs)
		return;
	if (xnf_ctrl_collect(info)) {
		dev_warn(&info->xbdev->dev, "no memory for the grant list; the backend maps per packet\n");
		return;
	}
	xnf_pg_start(&c->pg, c->nr_grefs, ++c->next_id, &msg);
	xnf_ctrl_run(info, &msg);
	if (c->pg.state == XNF_PG_MAPPED)
		dev_info(&info->xbdev->dev, "persistent grants: the backend maps all %u pool grants\n",
			 c->pg.mapped);
	else if (c->pg.state == XNF_PG_OFF && !c->pg.backend_max)
		dev_info(&info->xbdev->dev, "per-packet grants: GET_GREF_MAPPING_SIZE answered status %u%s\n",
			 c->last_status,
			 c->last_status == XNF_CTRL_STATUS_NOT_SUPPORTED ?
			 " (NOT_SUPPORTED)" : "");
	else if (c->pg.state == XNF_PG_OFF)
		dev_info(&info->xbdev->dev, "per-packet grants: backend mapping size %u for %u grants, last status %u\n",
			 c->pg.backend_max, c->nr_grefs, c->last_status);
}

/* Before an unbind closes the device: delete the mapping. */
void xnf_ctrl_unmap(struct xnf_info *info)
{
	struct xnf_ctrl *c = &info->ctrl;
	struct xnf_pg_msg msg;
	unsigned int mapped = c->pg.mapped;

	flush_work(&info->ctrl_work);
	if (!c->live || c->pg.state != XNF_PG_MAPPED)
		return;
	xnf_pg_stop(&c->pg, ++c->next_id, &msg);
	xnf_ctrl_run(info, &msg);
	if (c->pg.state == XNF_PG_OFF && !c->pg.mapped)
		dev_info(&info->xbdev->dev, "persistent grants: the backend unmapped all %u\n",
			 mapped);
}
