// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * xen-netback-pgnt: a dom0 net backend for Xen guests' vif devices, in
 * place of xen-netback, that also serves persistent ("static") grants
 * over the netif control ring.
 *
 * The toolstack side is unchanged: xl creates the backend directory, the
 * driver creates vif<domid>.<handle> at probe and switches to InitWait,
 * which lets libxl run the vif hotplug script (vif-bridge adds the
 * interface to the bridge and writes hotplug-status = connected).  When
 * the frontend is Connected the driver maps its rings and binds its
 * event channels; the Connected state is published only once the
 * hotplug script has reported.  A frontend Closed with the device
 * offline (xl network-detach, domain destroy) unregisters it.
 *
 * Nothing the frontend writes is trusted: every xenstore value is range
 * checked before use, every ring index and request is checked in
 * xnb_io.c / xnb_core.c, and a fault that only a broken or hostile
 * frontend commits disconnects that vif (xnb_fatal), releasing
 * everything it held; other vifs and dom0 go on.
 */
#include "netback.h"

unsigned int xnb_max_queues;
module_param_named(max_queues, xnb_max_queues, uint, 0644);
MODULE_PARM_DESC(max_queues,
		 "Queues offered to a frontend (multi-queue-max-queues), also capped by online CPUs (default 0 = one per online CPU). Applies to vifs created later.");

static bool xnb_split_event_channels = true;
module_param_named(split_event_channels, xnb_split_event_channels, bool,
		   0644);
MODULE_PARM_DESC(split_event_channels,
		 "Offer feature-split-event-channels: a tx and an rx event channel per queue (default 1 = on). Applies to vifs created later.");

unsigned int xnb_max_gref_mappings = 2 * XNB_TX_RING_SIZE;
module_param_named(max_gref_mappings, xnb_max_gref_mappings, uint, 0644);
MODULE_PARM_DESC(max_gref_mappings,
		 "Static grants (ADD_GREF_MAPPING) a frontend may keep mapped per queue, the answer to GET_GREF_MAPPING_SIZE; 0 = answer NOT_SUPPORTED, every packet is grant-copied (default 512: both rings' worth). Applies at the next connect.");

unsigned int xnb_rx_queue_bytes = XNB_RX_RING_SIZE / 2 * XEN_PAGE_SIZE;
module_param_named(rx_queue_bytes, xnb_rx_queue_bytes, uint, 0644);
MODULE_PARM_DESC(rx_queue_bytes,
		 "Bytes queued per queue for a guest that posts no receive buffers before the vif's transmit queue is stopped (default 524288).");

unsigned int xnb_rx_drain_ms = 10000;
module_param_named(rx_drain_timeout_msecs, xnb_rx_drain_ms, uint, 0644);
MODULE_PARM_DESC(rx_drain_timeout_msecs,
		 "A guest that takes no packet for this long has its queued packets dropped (default 10000).");

bool xnb_threaded_napi;
module_param_named(threaded_napi, xnb_threaded_napi, bool, 0644);
MODULE_PARM_DESC(threaded_napi,
		 "Poll each queue in its own kernel thread (threaded NAPI) instead of in the softirq of whoever queued the packet (default 0). Read when a vif is created; /sys/class/net/vifD.H/threaded changes it later.");

static unsigned int xnb_nr_queues_max(void)
{
	unsigned int n = READ_ONCE(xnb_max_queues);

	if (!n || n > num_online_cpus())
		n = num_online_cpus();
	return max(n, 1U);
}

/* ---- the fatal path ---- */

/**
 * xnb_fatal - a fault only a broken or hostile frontend commits
 * @vif: the vif
 * @fmt: what it did
 *
 * Any context.  Logs once per connection, stops the data path at once
 * and disconnects the vif from process context (everything it held is
 * released); the frontend sees the backend Closing.
 */
void xnb_fatal(struct xnb_vif *vif, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (xchg(&vif->broken, true))
		return;
	atomic64_inc(&vif->faults);
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	netdev_err(vif->dev, "frontend of domain %u fault: %pV; disconnecting the vif\n",
		   vif->domid, &vaf);
	va_end(args);
	netif_carrier_off(vif->dev);
	schedule_work(&vif->fatal_work);
}

/* ---- connect and disconnect ---- */

static void xnb_queue_free(struct xnb_vif *vif, struct xnb_queue *q)
{
	xnb_queue_stop_io(q);
	xnb_unmap_queue(vif, q);
	if (q->tx.sring)
		xenbus_unmap_ring_vfree(vif->xbdev, q->tx.sring);
	if (q->rx.sring)
		xenbus_unmap_ring_vfree(vif->xbdev, q->rx.sring);
	q->tx.sring = NULL;
	q->rx.sring = NULL;
	kfree(q->mapped);
	q->mapped = NULL;
}

/* Take everything down.  vif->lock held. */
static void xnb_disconnect(struct xnb_vif *vif)
{
	unsigned int i;

	if (!vif->queues)
		return;
	netif_carrier_off(vif->dev);
	netif_tx_disable(vif->dev);
	vif->connected = false;
	/* no xmit may look at the queues after this */
	synchronize_net();
	xnb_ctrl_disconnect(vif);
	for (i = 0; i < vif->nr_queues; i++)
		xnb_queue_free(vif, &vif->queues[i]);
	if (vif->cache) {
		xgp_back_cache_destroy(vif->cache);
		vif->cache = NULL;
	}
	vfree(vif->queues);
	vif->queues = NULL;
	vif->nr_queues = 0;
}

static void xnb_fatal_work(struct work_struct *work)
{
	struct xnb_vif *vif = container_of(work, struct xnb_vif, fatal_work);

	mutex_lock(&vif->lock);
	xnb_disconnect(vif);
	/* xenbus_dev_fatal() switches to Closing */
	vif->state = XenbusStateClosing;
	xenbus_dev_fatal(vif->xbdev, -EPROTO,
			 "frontend protocol fault (see dom0's kernel log)");
	mutex_unlock(&vif->lock);
}

/* Read "<dir>/<node>" as an unsigned in [min, max]; -errno if not. */
static int xnb_read_uint(const char *dir, const char *node, unsigned int min,
			 unsigned int max, unsigned int *val)
{
	int err = xenbus_scanf(XBT_NIL, dir, node, "%u", val);

	if (err < 0)
		return err;
	if (err != 1 || *val < min || *val > max)
		return -ERANGE;
	return 0;
}

/*
 * Bind the frontend's @port, storing the irq before its handler can run:
 * an event already pending (a restored guest, a rebound backend) is
 * delivered the moment the handler is installed, and the poll it starts
 * notifies the frontend through that irq.
 */
static int xnb_bind(struct xnb_queue *q, evtchn_port_t port,
		    irq_handler_t handler, const char *name, unsigned int *irq)
{
	struct xnb_vif *vif = q->vif;
	int err;

	err = bind_interdomain_evtchn_to_irq_lateeoi(vif->xbdev, port);
	if (err < 0)
		return err;
	WRITE_ONCE(*irq, err);
	err = request_irq(*irq, handler, 0, name, q);
	if (err) {
		/* as xen-netback does for its control ring */
		unbind_from_irqhandler(*irq, q);
		*irq = 0;
	}
	return err;
}

static int xnb_queue_connect(struct xnb_vif *vif, struct xnb_queue *q)
{
	struct xenbus_device *dev = vif->xbdev;
	unsigned int tx_ref, rx_ref, tx_port, rx_port;
	struct xen_netif_tx_sring *sring_tx;
	struct xen_netif_rx_sring *sring_rx;
	char *dir;
	void *addr;
	int err;

	q->map_limit = READ_ONCE(xnb_max_gref_mappings);
	if (q->map_limit) {
		q->mapped = kcalloc(q->map_limit, sizeof(*q->mapped),
				    GFP_KERNEL);
		if (!q->mapped)
			return -ENOMEM;
	}
	if (vif->nr_queues == 1)
		dir = kstrdup(dev->otherend, GFP_KERNEL);
	else
		dir = kasprintf(GFP_KERNEL, "%s/queue-%u", dev->otherend,
				q->index);
	if (!dir)
		return -ENOMEM;
	err = xnb_read_uint(dir, "tx-ring-ref", 0, U32_MAX, &tx_ref);
	if (!err)
		err = xnb_read_uint(dir, "rx-ring-ref", 0, U32_MAX, &rx_ref);
	if (err) {
		xenbus_dev_fatal(dev, err, "reading %s/tx-ring-ref, rx-ring-ref",
				 dir);
		goto out;
	}
	if (xnb_read_uint(dir, "event-channel-tx", 1, U32_MAX, &tx_port) ||
	    xnb_read_uint(dir, "event-channel-rx", 1, U32_MAX, &rx_port)) {
		err = xnb_read_uint(dir, "event-channel", 1, U32_MAX, &tx_port);
		if (err) {
			xenbus_dev_fatal(dev, err,
					 "reading %s/event-channel(-tx/-rx)",
					 dir);
			goto out;
		}
		rx_port = tx_port;
	}

	err = xenbus_map_ring_valloc(dev, &tx_ref, 1, &addr);
	if (err)
		goto out;
	/* a rebound backend goes on where the last one stopped */
	sring_tx = addr;
	BACK_RING_ATTACH(&q->tx, sring_tx, READ_ONCE(sring_tx->rsp_prod),
			 XEN_PAGE_SIZE);
	err = xenbus_map_ring_valloc(dev, &rx_ref, 1, &addr);
	if (err)
		goto out;
	sring_rx = addr;
	BACK_RING_ATTACH(&q->rx, sring_rx, READ_ONCE(sring_rx->rsp_prod),
			 XEN_PAGE_SIZE);

	xnb_queue_init_io(q);
	if (tx_port == rx_port) {
		snprintf(q->tx_irq_name, sizeof(q->tx_irq_name), "%s",
			 q->name);
		err = xnb_bind(q, tx_port, xnb_interrupt, q->tx_irq_name,
			       &q->tx_irq);
	} else {
		snprintf(q->tx_irq_name, sizeof(q->tx_irq_name), "%s-tx",
			 q->name);
		snprintf(q->rx_irq_name, sizeof(q->rx_irq_name), "%s-rx",
			 q->name);
		err = xnb_bind(q, tx_port, xnb_tx_interrupt, q->tx_irq_name,
			       &q->tx_irq);
		if (!err)
			err = xnb_bind(q, rx_port, xnb_rx_interrupt,
				       q->rx_irq_name, &q->rx_irq);
	}
	if (err)
		xenbus_dev_fatal(dev, err, "binding event channels %u/%u of %s",
				 tx_port, rx_port, q->name);
out:
	kfree(dir);
	return err;
}

static int xnb_read_features(struct xnb_vif *vif)
{
	const char *fe = vif->xbdev->otherend;

	if (!xenbus_read_unsigned(fe, "request-rx-copy", 0)) {
		xenbus_dev_fatal(vif->xbdev, -EOPNOTSUPP,
				 "frontend lacks request-rx-copy (the only receive mode)");
		return -EOPNOTSUPP;
	}
	if (!xenbus_read_unsigned(fe, "feature-rx-notify", 0)) {
		xenbus_dev_fatal(vif->xbdev, -EOPNOTSUPP,
				 "frontend lacks feature-rx-notify");
		return -EOPNOTSUPP;
	}
	vif->can_sg = !!xenbus_read_unsigned(fe, "feature-sg", 0);
	vif->gso4 = !!xenbus_read_unsigned(fe, "feature-gso-tcpv4", 0);
	vif->gso6 = !!xenbus_read_unsigned(fe, "feature-gso-tcpv6", 0);
	vif->ip_csum = !xenbus_read_unsigned(fe, "feature-no-csum-offload", 0);
	vif->ipv6_csum = !!xenbus_read_unsigned(fe,
						"feature-ipv6-csum-offload", 0);
	return 0;
}

static void xnb_connect_ctrl(struct xnb_vif *vif)
{
	const char *fe = vif->xbdev->otherend;
	unsigned int ref, port;

	if (xnb_read_uint(fe, "ctrl-ring-ref", 0, U32_MAX, &ref))
		return;
	if (xnb_read_uint(fe, "event-channel-ctrl", 1, U32_MAX, &port)) {
		netdev_warn(vif->dev, "frontend gave ctrl-ring-ref but no valid event-channel-ctrl: no control ring\n");
		return;
	}
	if (xnb_ctrl_connect(vif, ref, port))
		netdev_warn(vif->dev, "control ring %u/%u not connected: no static grants\n",
			    ref, port);
}

/* Frontend Connected: map everything.  vif->lock held. */
static int xnb_connect(struct xnb_vif *vif)
{
	struct xenbus_device *dev = vif->xbdev;
	unsigned int i, nr;
	int err;

	vif->broken = false;
	err = xnb_read_uint(dev->otherend, "multi-queue-num-queues", 1,
			    xnb_nr_queues_max(), &nr);
	if (err == -ENOENT) {
		nr = 1;
	} else if (err) {
		xenbus_dev_fatal(dev, -EINVAL,
				 "frontend asked for a number of queues outside 1 - %u",
				 xnb_nr_queues_max());
		return -EINVAL;
	}
	if (nr > vif->dev->num_tx_queues) {
		xenbus_dev_fatal(dev, -EINVAL,
				 "frontend asked for %u queues, the vif has %u",
				 nr, vif->dev->num_tx_queues);
		return -EINVAL;
	}
	err = xnb_read_features(vif);
	if (err)
		return err;
	vif->queues = vzalloc(array_size(nr, sizeof(*vif->queues)));
	if (!vif->queues)
		return -ENOMEM;
	vif->nr_queues = nr;
	for (i = 0; i < nr; i++) {
		struct xnb_queue *q = &vif->queues[i];

		q->vif = vif;
		q->index = i;
		q->stats = &vif->qstats[i];
		snprintf(q->name, sizeof(q->name), "%s-q%u", vif->dev->name, i);
		err = xnb_queue_connect(vif, q);
		if (err)
			goto fail;
	}
	xnb_read_rate(vif);
	xnb_connect_ctrl(vif);

	rtnl_lock();
	netif_set_real_num_tx_queues(vif->dev, nr);
	netif_set_real_num_rx_queues(vif->dev, nr);
	netdev_update_features(vif->dev);
	rtnl_unlock();
	/* pairs with the acquire in xnb_start_xmit() */
	smp_store_release(&vif->connected, true);
	netif_carrier_on(vif->dev);
	netif_tx_wake_all_queues(vif->dev);
	netdev_info(vif->dev, "connected: %u queue%s, %s event channels, %s\n",
		    nr, nr == 1 ? "" : "s",
		    vif->queues[0].rx_irq ? "split" : "shared",
		    vif->ctrl.sring ? "control ring" : "no control ring");
	return 0;
fail:
	xnb_disconnect(vif);
	return err;
}

/* ---- xenbus state ---- */

static void xnb_switch_state(struct xnb_vif *vif, enum xenbus_state state)
{
	vif->state = state;
	/* published when the hotplug script reports (xnb_hotplug_changed) */
	if (!vif->have_hotplug_watch)
		xenbus_switch_state(vif->xbdev, state);
}

/* Also after the watch fired (have_hotplug_watch already false). */
static void xnb_hotplug_unwatch(struct xnb_vif *vif)
{
	vif->have_hotplug_watch = false;
	if (!vif->hotplug_watch.node)
		return;
	unregister_xenbus_watch(&vif->hotplug_watch);
	kfree(vif->hotplug_watch.node);
	vif->hotplug_watch.node = NULL;
}

static void xnb_hotplug_changed(struct xenbus_watch *watch, const char *path,
				const char *token)
{
	struct xnb_vif *vif = container_of(watch, struct xnb_vif,
					   hotplug_watch);
	unsigned int len;
	char *str;

	str = xenbus_read(XBT_NIL, vif->xbdev->nodename, "hotplug-status",
			  &len);
	if (IS_ERR(str))
		return;
	if (len == strlen("connected") && !memcmp(str, "connected", len)) {
		xenbus_switch_state(vif->xbdev, vif->state);
		/* the watch goes on the xenwatch thread: unregister later */
		vif->have_hotplug_watch = false;
	}
	kfree(str);
}

static void xnb_rate_changed(struct xenbus_watch *watch, const char *path,
			     const char *token)
{
	struct xnb_vif *vif = container_of(watch, struct xnb_vif, rate_watch);

	mutex_lock(&vif->lock);
	if (vif->connected)
		xnb_read_rate(vif);
	mutex_unlock(&vif->lock);
}

static void xnb_unwatch_all(struct xnb_vif *vif)
{
	xnb_hotplug_unwatch(vif);
	if (vif->have_rate_watch) {
		unregister_xenbus_watch(&vif->rate_watch);
		kfree(vif->rate_watch.node);
		vif->rate_watch.node = NULL;
		vif->have_rate_watch = false;
	}
}

/* The path the frontend's state asks for; vif->lock held. */
static void xnb_set_state(struct xnb_vif *vif, enum xenbus_state want)
{
	struct xenbus_device *dev = vif->xbdev;

	switch (want) {
	case XenbusStateInitWait:
		if (vif->state == XenbusStateConnected)
			xnb_disconnect(vif);
		if (vif->state != XenbusStateInitWait)
			xnb_switch_state(vif, XenbusStateInitWait);
		break;
	case XenbusStateConnected:
		if (vif->state == XenbusStateConnected)
			break;
		if (vif->state != XenbusStateInitWait)
			xnb_switch_state(vif, XenbusStateInitWait);
		if (xnb_connect(vif))
			break;
		xnb_hotplug_unwatch(vif);
		if (!xenbus_watch_pathfmt(dev, &vif->hotplug_watch, NULL,
					  xnb_hotplug_changed, "%s/%s",
					  dev->nodename, "hotplug-status"))
			vif->have_hotplug_watch = true;
		xnb_switch_state(vif, XenbusStateConnected);
		/* the script may have reported before the watch was set */
		if (vif->have_hotplug_watch)
			xnb_hotplug_changed(&vif->hotplug_watch, NULL, NULL);
		break;
	case XenbusStateClosing:
	case XenbusStateClosed:
		xnb_disconnect(vif);
		if (vif->state != XenbusStateClosing &&
		    vif->state != XenbusStateClosed)
			xnb_switch_state(vif, XenbusStateClosing);
		if (want == XenbusStateClosed)
			xnb_switch_state(vif, XenbusStateClosed);
		break;
	default:
		break;
	}
}

static void xnb_frontend_changed(struct xenbus_device *dev,
				 enum xenbus_state fe_state)
{
	struct xnb_vif *vif = dev_get_drvdata(&dev->dev);

	mutex_lock(&vif->lock);
	vif->frontend_state = fe_state;
	switch (fe_state) {
	case XenbusStateInitialising:
		xnb_set_state(vif, XenbusStateInitWait);
		break;
	case XenbusStateInitialised:
		break;
	case XenbusStateConnected:
		xnb_set_state(vif, XenbusStateConnected);
		break;
	case XenbusStateReconfiguring:
		xenbus_switch_state(dev, XenbusStateReconfigured);
		break;
	case XenbusStateClosing:
		xnb_set_state(vif, XenbusStateClosing);
		break;
	case XenbusStateClosed:
		xnb_set_state(vif, XenbusStateClosed);
		if (xenbus_dev_is_online(dev))
			break;
		fallthrough;
	case XenbusStateUnknown:
		xnb_set_state(vif, XenbusStateClosed);
		mutex_unlock(&vif->lock);
		device_unregister(&dev->dev);
		return;
	default:
		xenbus_dev_fatal(dev, -EINVAL, "frontend in state %d",
				 fe_state);
		break;
	}
	mutex_unlock(&vif->lock);
}

/* ---- debugfs: <debugfs>/xen-netback-pgnt/vifD.H/io_ring ---- */

static struct dentry *xnb_debugfs_root;

static int xnb_io_ring_show(struct seq_file *m, void *v)
{
	struct xnb_vif *vif = m->private;
	unsigned int i;

	mutex_lock(&vif->lock);
	seq_printf(m, "connected %d broken %d queues %u mapped %d\n",
		   vif->connected, READ_ONCE(vif->broken), vif->nr_queues,
		   atomic_read(&vif->mapped));
	for (i = 0; vif->queues && i < vif->nr_queues; i++) {
		struct xnb_queue *q = &vif->queues[i];

		if (!q->tx.sring || !q->rx.sring)
			continue;
		seq_printf(m, "q%u tx req_prod %u req_cons %u req_event %u rsp_prod %u rsp_prod_pvt %u rsp_event %u\n",
			   i, READ_ONCE(q->tx.sring->req_prod), q->tx.req_cons,
			   READ_ONCE(q->tx.sring->req_event),
			   READ_ONCE(q->tx.sring->rsp_prod),
			   q->tx.rsp_prod_pvt,
			   READ_ONCE(q->tx.sring->rsp_event));
		seq_printf(m, "q%u rx req_prod %u req_cons %u req_event %u rsp_prod %u rsp_prod_pvt %u rsp_event %u queued %u/%u B\n",
			   i, READ_ONCE(q->rx.sring->req_prod), q->rx.req_cons,
			   READ_ONCE(q->rx.sring->req_event),
			   READ_ONCE(q->rx.sring->rsp_prod),
			   q->rx.rsp_prod_pvt,
			   READ_ONCE(q->rx.sring->rsp_event),
			   skb_queue_len(&q->rx_queue), READ_ONCE(q->rx_queued));
		seq_printf(m, "q%u irqs %u/%u eoi_pending %lx napi %lx credit %lu/%lu stalled %d\n",
			   i, q->tx_irq, q->rx_irq, READ_ONCE(q->eoi_pending),
			   READ_ONCE(q->napi.state), q->remaining_credit,
			   q->credit_bytes, READ_ONCE(q->credit_stalled));
	}
	mutex_unlock(&vif->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xnb_io_ring);

/* <debugfs>/xen-netback-pgnt/vifD.H/hash: what the frontend set */
static int xnb_hash_show(struct seq_file *m, void *v)
{
	struct xnb_vif *vif = m->private;
	const struct xnb_hash *h = &vif->hash;
	unsigned int i, size = READ_ONCE(h->size);
	/* the live table's index before its entries (xnb_hash_set_mapping) */
	const u32 *tbl = h->mapping[smp_load_acquire(&h->sel)];

	seq_printf(m, "algorithm %s\nflags %#x\nkey ",
		   READ_ONCE(h->alg) == XNB_HASH_ALG_TOEPLITZ ? "toeplitz" :
		   "none", READ_ONCE(h->flags));
	for (i = 0; i < XNB_HASH_KEY_MAX; i++)
		seq_printf(m, "%02x", h->key[i]);
	seq_printf(m, "\nmapping_size %u\nmapping", size);
	for (i = 0; i < size && i < XNB_HASH_MAPPING_MAX; i++)
		seq_printf(m, " %u", tbl[i]);
	seq_putc(m, '\n');
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xnb_hash);

static void xnb_debugfs_add(struct xnb_vif *vif)
{
	vif->debugfs = debugfs_create_dir(vif->dev->name, xnb_debugfs_root);
	debugfs_create_file("io_ring", 0400, vif->debugfs, vif,
			    &xnb_io_ring_fops);
	debugfs_create_file("hash", 0400, vif->debugfs, vif, &xnb_hash_fops);
}

/* ---- the net device ---- */

static int xnb_open(struct net_device *dev)
{
	netif_tx_start_all_queues(dev);
	return 0;
}

static int xnb_close(struct net_device *dev)
{
	netif_tx_stop_all_queues(dev);
	return 0;
}

static netdev_features_t xnb_fix_features(struct net_device *dev,
					  netdev_features_t features)
{
	struct xnb_vif *vif = netdev_priv(dev);

	if (!vif->can_sg)
		features &= ~NETIF_F_SG;
	if (!vif->gso4)
		features &= ~NETIF_F_TSO;
	if (!vif->gso6)
		features &= ~NETIF_F_TSO6;
	if (!vif->ip_csum)
		features &= ~NETIF_F_IP_CSUM;
	if (!vif->ipv6_csum)
		features &= ~NETIF_F_IPV6_CSUM;
	return features;
}

static int xnb_change_mtu(struct net_device *dev, int mtu)
{
	struct xnb_vif *vif = netdev_priv(dev);
	int max = vif->can_sg ? ETH_MAX_MTU - VLAN_ETH_HLEN : ETH_DATA_LEN;

	if (mtu > max)
		return -EINVAL;
	dev->mtu = mtu;
	return 0;
}

static void xnb_get_stats64(struct net_device *dev,
			    struct rtnl_link_stats64 *tot)
{
	struct xnb_vif *vif = netdev_priv(dev);
	unsigned int i, start;

	for (i = 0; i < dev->num_tx_queues; i++) {
		struct xnb_qstats *qs = &vif->qstats[i];
		u64 rxp, rxb, txp, txb, drop, err;

		do {
			start = u64_stats_fetch_begin(&qs->syncp);
			/* the guest's tx is what the vif receives */
			rxp = qs->tx_packets;
			rxb = qs->tx_bytes;
			txp = qs->rx_packets;
			txb = qs->rx_bytes;
			drop = qs->ext[XNB_ST_RX_DRAINED] +
			       qs->ext[XNB_ST_RX_TOO_BIG] +
			       qs->ext[XNB_ST_RX_COPY_ERR];
			err = qs->ext[XNB_ST_TX_DROP] +
			      qs->ext[XNB_ST_TX_COPY_ERR];
		} while (u64_stats_fetch_retry(&qs->syncp, start));
		tot->rx_packets += rxp;
		tot->rx_bytes += rxb;
		tot->tx_packets += txp;
		tot->tx_bytes += txb;
		tot->tx_dropped += drop;
		tot->rx_errors += err;
	}
}

static const struct net_device_ops xnb_netdev_ops = {
	.ndo_open = xnb_open,
	.ndo_stop = xnb_close,
	.ndo_start_xmit = xnb_start_xmit,
	.ndo_select_queue = xnb_select_queue,
	.ndo_fix_features = xnb_fix_features,
	.ndo_change_mtu = xnb_change_mtu,
	.ndo_get_stats64 = xnb_get_stats64,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

/* ---- ethtool ---- */

static const char xnb_stat_names[][ETH_GSTRING_LEN] = {
	[XNB_ST_TX_MEMCPY] = "tx_memcpy_bytes",
	[XNB_ST_TX_GCOPY] = "tx_gcopy_bytes",
	[XNB_ST_TX_GSO] = "tx_gso_packets",
	[XNB_ST_TX_DROP] = "tx_malformed",
	[XNB_ST_TX_COPY_ERR] = "tx_copy_errors",
	[XNB_ST_TX_CREDIT] = "tx_credit_waits",
	[XNB_ST_RX_MEMCPY] = "rx_memcpy_bytes",
	[XNB_ST_RX_GCOPY] = "rx_gcopy_bytes",
	[XNB_ST_RX_GSO] = "rx_gso_packets",
	[XNB_ST_RX_COPY_ERR] = "rx_copy_errors",
	[XNB_ST_RX_DRAINED] = "rx_drained",
	[XNB_ST_RX_TOO_BIG] = "rx_too_big",
	[XNB_ST_GCOPY_OPS] = "grant_copy_ops",
	[XNB_ST_GCOPY_CALLS] = "grant_copy_calls",
	[XNB_ST_FALLBACK] = "unmapped_slots",
	[XNB_ST_TX_HASH] = "tx_hash_packets",
	[XNB_ST_RX_HASH] = "rx_hash_packets",
};

static_assert(ARRAY_SIZE(xnb_stat_names) == XNB_ST_NR);

static const char xnb_dev_stat_names[][ETH_GSTRING_LEN] = {
	"queues", "mapped_grants", "refused_mappings", "ctrl_requests",
	"faults", "map_ops", "unmap_ops",
};

static int xnb_get_sset_count(struct net_device *dev, int sset)
{
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return ARRAY_SIZE(xnb_stat_names) + ARRAY_SIZE(xnb_dev_stat_names);
}

static void xnb_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	if (sset != ETH_SS_STATS)
		return;
	memcpy(data, xnb_stat_names, sizeof(xnb_stat_names));
	memcpy(data + sizeof(xnb_stat_names), xnb_dev_stat_names,
	       sizeof(xnb_dev_stat_names));
}

static void xnb_get_ethtool_stats(struct net_device *dev,
				  struct ethtool_stats *stats, u64 *data)
{
	struct xnb_vif *vif = netdev_priv(dev);
	u64 *dev_data = data + XNB_ST_NR;
	unsigned int i, j, start;

	memset(data, 0, sizeof(u64) * (XNB_ST_NR +
				       ARRAY_SIZE(xnb_dev_stat_names)));
	for (i = 0; i < dev->num_tx_queues; i++) {
		struct xnb_qstats *qs = &vif->qstats[i];
		u64 v[XNB_ST_NR];

		do {
			start = u64_stats_fetch_begin(&qs->syncp);
			for (j = 0; j < XNB_ST_NR; j++)
				v[j] = qs->ext[j];
		} while (u64_stats_fetch_retry(&qs->syncp, start));
		for (j = 0; j < XNB_ST_NR; j++)
			data[j] += v[j];
	}
	/* no vif->lock here: connect takes rtnl under it */
	dev_data[0] = READ_ONCE(vif->nr_queues);
	dev_data[1] = atomic_read(&vif->mapped);
	dev_data[2] = atomic64_read(&vif->refused);
	dev_data[3] = READ_ONCE(vif->ctrl_requests);
	dev_data[4] = atomic64_read(&vif->faults);
	dev_data[5] = atomic64_read(&vif->map_ops);
	dev_data[6] = atomic64_read(&vif->unmap_ops);
}

static void xnb_get_drvinfo(struct net_device *dev,
			    struct ethtool_drvinfo *di)
{
	struct xnb_vif *vif = netdev_priv(dev);

	strscpy(di->driver, KBUILD_MODNAME, sizeof(di->driver));
	strscpy(di->version, XPS_VERSION, sizeof(di->version));
	strscpy(di->bus_info, dev_name(&vif->xbdev->dev),
		sizeof(di->bus_info));
}

static const struct ethtool_ops xnb_ethtool_ops = {
	.get_drvinfo = xnb_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = xnb_get_sset_count,
	.get_strings = xnb_get_strings,
	.get_ethtool_stats = xnb_get_ethtool_stats,
};

static int xnb_create_netdev(struct xenbus_device *xbdev,
			     struct xnb_vif **out)
{
	static const u8 dummy_addr[ETH_ALEN] = {
		0xfe, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	unsigned int handle, nr = xnb_nr_queues_max();
	struct net_device *dev;
	struct xnb_vif *vif;
	char name[IFNAMSIZ];
	int err;

	err = xnb_read_uint(xbdev->nodename, "handle", 0, INT_MAX, &handle);
	if (err) {
		xenbus_dev_fatal(xbdev, err, "reading handle");
		return err;
	}
	snprintf(name, sizeof(name), "vif%u.%u", xbdev->otherend_id, handle);
	dev = alloc_netdev_mq(sizeof(*vif), name, NET_NAME_UNKNOWN,
			      ether_setup, nr);
	if (!dev)
		return -ENOMEM;
	SET_NETDEV_DEV(dev, &xbdev->dev);
	vif = netdev_priv(dev);
	vif->dev = dev;
	vif->xbdev = xbdev;
	vif->domid = xbdev->otherend_id;
	vif->handle = handle;
	vif->state = XenbusStateInitialising;
	mutex_init(&vif->lock);
	INIT_WORK(&vif->fatal_work, xnb_fatal_work);
	vif->qstats = kcalloc(nr, sizeof(*vif->qstats), GFP_KERNEL);
	if (!vif->qstats) {
		free_netdev(dev);
		return -ENOMEM;
	}
	for (handle = 0; handle < nr; handle++)
		u64_stats_init(&vif->qstats[handle].syncp);
	/* until the frontend says what it takes */
	vif->can_sg = true;
	vif->gso4 = true;
	vif->gso6 = true;
	vif->ip_csum = true;
	vif->ipv6_csum = true;

	dev->netdev_ops = &xnb_netdev_ops;
	dev->ethtool_ops = &xnb_ethtool_ops;
	/*
	 * No NETIF_F_FRAGLIST: the receive copy walks the linear part and
	 * the page fragments only; the stack linearizes a frag_list skb.
	 */
	dev->hw_features = NETIF_F_SG | NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM |
			   NETIF_F_TSO | NETIF_F_TSO6;
	dev->features = dev->hw_features | NETIF_F_RXCSUM;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = ETH_MAX_MTU - VLAN_ETH_HLEN;
	/* a bridge takes the lowest port address: never ours */
	eth_hw_addr_set(dev, dummy_addr);
	dev->tx_queue_len = 32;
	netif_carrier_off(dev);
	err = register_netdev(dev);
	if (err) {
		kfree(vif->qstats);
		free_netdev(dev);
		return err;
	}
	/* the queues' NAPI instances, added at connect, inherit it */
	if (READ_ONCE(xnb_threaded_napi)) {
		rtnl_lock();
		err = dev_set_threaded(dev, NETDEV_NAPI_THREADED_ENABLED);
		rtnl_unlock();
		if (err)
			netdev_warn(dev, "threaded NAPI refused (%d): softirq polling\n",
				    err);
	}
	*out = vif;
	return 0;
}

static void xnb_destroy_netdev(struct xnb_vif *vif)
{
	struct net_device *dev = vif->dev;
	struct xnb_qstats *qstats = vif->qstats;

	unregister_netdev(dev);
	kfree(qstats);
	free_netdev(dev);
}

static int xnb_write_features(struct xenbus_device *dev)
{
	struct xenbus_transaction xbt;
	const char *what;
	int err;

again:
	err = xenbus_transaction_start(&xbt);
	if (err) {
		xenbus_dev_fatal(dev, err, "starting transaction");
		return err;
	}
	what = "feature keys";
	err = xenbus_write(xbt, dev->nodename, "feature-sg", "1") ?:
	      xenbus_write(xbt, dev->nodename, "feature-gso-tcpv4", "1") ?:
	      xenbus_write(xbt, dev->nodename, "feature-gso-tcpv6", "1") ?:
	      xenbus_write(xbt, dev->nodename, "feature-ipv6-csum-offload",
			   "1") ?:
	      xenbus_write(xbt, dev->nodename, "feature-rx-copy", "1") ?:
	      xenbus_write(xbt, dev->nodename, "feature-rx-flip", "0") ?:
	      xenbus_printf(xbt, dev->nodename, "feature-split-event-channels",
			    "%u", READ_ONCE(xnb_split_event_channels)) ?:
	      xenbus_printf(xbt, dev->nodename, "multi-queue-max-queues",
			    "%u", xnb_nr_queues_max()) ?:
	      xenbus_write(xbt, dev->nodename, "feature-ctrl-ring", "1");
	if (err) {
		xenbus_transaction_end(xbt, 1);
		xenbus_dev_fatal(dev, err, "writing %s", what);
		return err;
	}
	err = xenbus_transaction_end(xbt, 0);
	if (err == -EAGAIN)
		goto again;
	if (err)
		xenbus_dev_fatal(dev, err, "completing transaction");
	return err;
}

static int xnb_uevent(xps_uevent_const struct xenbus_device *xbdev,
		      struct kobj_uevent_env *env)
{
	struct xnb_vif *vif = dev_get_drvdata(&xbdev->dev);

	if (!vif)
		return 0;
	if (vif->hotplug_script &&
	    add_uevent_var(env, "script=%s", vif->hotplug_script))
		return -ENOMEM;
	return add_uevent_var(env, "vif=%s", vif->dev->name);
}

static int xnb_probe(struct xenbus_device *xbdev,
		     const struct xenbus_device_id *id)
{
	struct xnb_vif *vif;
	const char *script;
	int err;

	err = xnb_write_features(xbdev);
	if (err)
		return err;
	err = xnb_create_netdev(xbdev, &vif);
	if (err) {
		xenbus_dev_fatal(xbdev, err, "creating the vif");
		return err;
	}
	dev_set_drvdata(&xbdev->dev, vif);
	xnb_debugfs_add(vif);
	script = xenbus_read(XBT_NIL, xbdev->nodename, "script", NULL);
	vif->hotplug_script = IS_ERR(script) ? NULL : script;
	mutex_lock(&vif->lock);
	xnb_switch_state(vif, XenbusStateInitWait);
	mutex_unlock(&vif->lock);
	if (!xenbus_watch_pathfmt(xbdev, &vif->rate_watch, NULL,
				  xnb_rate_changed, "%s/rate",
				  xbdev->nodename))
		vif->have_rate_watch = true;
	/* the hotplug script runs on this */
	kobject_uevent(&xbdev->dev.kobj, KOBJ_ONLINE);
	return 0;
}

static void xnb_remove(struct xenbus_device *xbdev)
{
	struct xnb_vif *vif = dev_get_drvdata(&xbdev->dev);

	debugfs_remove_recursive(vif->debugfs);
	xnb_unwatch_all(vif);
	xenbus_rm(XBT_NIL, xbdev->nodename, "hotplug-status");
	kobject_uevent(&xbdev->dev.kobj, KOBJ_OFFLINE);
	cancel_work_sync(&vif->fatal_work);
	mutex_lock(&vif->lock);
	xnb_disconnect(vif);
	mutex_unlock(&vif->lock);
	kfree(vif->hotplug_script);
	dev_set_drvdata(&xbdev->dev, NULL);
	xnb_destroy_netdev(vif);
}

static const struct xenbus_device_id xnb_ids[] = {
	{ "vif" },
	{ "" }
};

static struct xenbus_driver xnb_driver = {
	.name = XNB_DRV_NAME,
	.ids = xnb_ids,
	.probe = xnb_probe,
	.remove = xnb_remove,
	.uevent = xnb_uevent,
	.otherend_changed = xnb_frontend_changed,
	.allow_rebind = true,
};

static int __init xnb_init(void)
{
	int err;

	if (!xen_domain())
		return -ENODEV;
	if (xnb_max_gref_mappings > XGP_BACK_MAX_BATCH) {
		pr_warn("max_gref_mappings %u above %u: using %u\n",
			xnb_max_gref_mappings, XGP_BACK_MAX_BATCH,
			XGP_BACK_MAX_BATCH);
		xnb_max_gref_mappings = XGP_BACK_MAX_BATCH;
	}
	xnb_debugfs_root = debugfs_create_dir("xen-netback-pgnt", NULL);
	err = xenbus_register_backend(&xnb_driver);
	if (err)
		debugfs_remove_recursive(xnb_debugfs_root);
	return err;
}
module_init(xnb_init);

static void __exit xnb_exit(void)
{
	xenbus_unregister_driver(&xnb_driver);
	debugfs_remove_recursive(xnb_debugfs_root);
}
module_exit(xnb_exit);

MODULE_DESCRIPTION("Xen net backend with persistent (static) grants");
MODULE_LICENSE("GPL");
MODULE_ALIAS("xen-backend:vif");
MODULE_VERSION(XPS_VERSION);
