// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * xen-netfront-pgnt: Xen virtual network interface frontend.
 *
 * Binds the "vif" xenbus devices in place of the stock xen-netfront and
 * presents each as an Ethernet interface with one tx/rx ring pair per
 * queue (multi-queue-num-queues), scatter-gather, TCPv4/TCPv6 GSO and
 * checksum offload both ways, and an MTU up to the largest frame the
 * wire's 16-bit size field describes.  Packet data travels only through
 * 4 KB slots of per-queue xen-grant-pool pools, granted once (xnf_io.c).
 *
 * The backend is not trusted: its xenstore values are checked before use
 * (a feature flag other than 0 or 1, a queue count of 0, a bad MAC make
 * the connect fail with a message), and its responses are validated
 * (xnf_io.c).
 *
 * This file: parameters, the xenbus state machine, connect and teardown,
 * the net_device and ethtool operations.
 */
#include "netfront.h"

unsigned int xnf_max_queues = 4;
module_param_named(max_queues, xnf_max_queues, uint, 0644);
MODULE_PARM_DESC(max_queues,
		 "Most queues (tx/rx ring pairs) per interface (default 4; also capped by online CPUs and the backend's multi-queue-max-queues; 0 = 1). Applies at the next connect (probe, or a restore).");

static bool xnf_split_evtchn = true;
module_param_named(split_event_channels, xnf_split_evtchn, bool, 0644);
MODULE_PARM_DESC(split_event_channels,
		 "Give each queue a tx and an rx event channel when the backend offers feature-split-event-channels, as the stock driver does (default 1 = on; 0 = one channel per queue). Applies at the next connect.");

/* ---- what the backend says ---- */

/*
 * A backend feature flag: absent is 0; anything but 0 or 1 is refused
 * (a backend that writes 7 does not know what it offers).
 */
static int xnf_read_feature(struct xnf_info *info, const char *key,
			    bool *out)
{
	struct xenbus_device *dev = info->xbdev;
	unsigned int v = xenbus_read_unsigned(dev->otherend, key, 0);

	if (v > 1) {
		dev_err(&dev->dev, "backend %s = %u: not 0 or 1\n", key, v);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int xnf_read_backend(struct xnf_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	bool rx_copy;
	int err;

	err = xnf_read_feature(info, "feature-rx-copy", &rx_copy) ?:
	      xnf_read_feature(info, "feature-sg", &info->be_sg) ?:
	      xnf_read_feature(info, "feature-gso-tcpv4", &info->be_gso4) ?:
	      xnf_read_feature(info, "feature-gso-tcpv6", &info->be_gso6) ?:
	      xnf_read_feature(info, "feature-ipv6-csum-offload",
			       &info->be_csum6) ?:
	      xnf_read_feature(info, "feature-ctrl-ring", &info->be_ctrl) ?:
	      xnf_read_feature(info, "feature-split-event-channels",
			       &info->be_split);
	if (err)
		return err;
	if (!rx_copy) {
		dev_err(&dev->dev, "backend lacks feature-rx-copy (the only receive mode there is)\n");
		return -EOPNOTSUPP;
	}
	info->be_max_queues = xenbus_read_unsigned(dev->otherend,
						   "multi-queue-max-queues", 1);
	if (!info->be_max_queues) {
		dev_err(&dev->dev, "backend multi-queue-max-queues = 0\n");
		return -EINVAL;
	}
	return 0;
}

/* The MAC the toolstack wrote for us: six hex octets, unicast. */
static int xnf_read_mac(struct xenbus_device *dev, u8 *mac)
{
	int n = 0, got;
	char *s;

	s = xenbus_read(XBT_NIL, dev->nodename, "mac", NULL);
	if (IS_ERR(s))
		return PTR_ERR(s);
	got = sscanf(s, "%2hhx:%2hhx:%2hhx:%2hhx:%2hhx:%2hhx%n", &mac[0],
		     &mac[1], &mac[2], &mac[3], &mac[4], &mac[5], &n);
	if (got != ETH_ALEN || s[n] || !is_valid_ether_addr(mac)) {
		dev_err(&dev->dev, "mac \"%s\" is not a unicast MAC address\n",
			s);
		kfree(s);
		return -EINVAL;
	}
	kfree(s);
	return 0;
}

/* ---- queues ---- */

static void xnf_destroy_pool(struct xnf_info *info,
			     struct xgp_front_pool **pool)
{
	unsigned int busy;

	if (!*pool)
		return;
	busy = xgp_front_pool_destroy(*pool);
	if (busy) {
		atomic64_add(busy, &info->revoke_busy);
		dev_warn(&info->xbdev->dev, "backend still maps %u slot(s); the pool keeps them until it lets go\n",
			 busy);
	}
	*pool = NULL;
}

/*
 * End the grant of one shared 4 KB page (a ring, the control table); one
 * the backend still maps is kept by xen-grant-pool until it lets go.
 */
void xnf_release_page(struct xnf_info *info, void **va, grant_ref_t *ref,
		      const char *what)
{
	unsigned int busy;

	if (!*va)
		return;
	busy = xgp_ring_release(info->xbdev->otherend_id, *va, 0, ref);
	if (busy) {
		atomic64_add(busy, &info->revoke_busy);
		dev_warn(&info->xbdev->dev, "backend still maps the %s page; kept until it lets go\n",
			 what);
	}
	*va = NULL;
}

/* An event channel of @q and its irq, as far as they got set up. */
static int xnf_bind(struct xnf_queue *q, evtchn_port_t *port,
		    unsigned int *irq, irq_handler_t handler, const char *name)
{
	int err;

	err = xenbus_alloc_evtchn(q->info->xbdev, port);
	if (err)
		return err;
	err = bind_evtchn_to_irqhandler_lateeoi(*port, handler, 0, name, q);
	if (err <= 0)
		return err ? err : -EINVAL;
	*irq = err;
	return 0;
}

/* Unbind an irq bound with @dev_id, or free a port not bound yet. */
void xnf_unbind(struct xnf_info *info, void *dev_id, unsigned int *irq,
		evtchn_port_t *port)
{
	if (*irq)
		unbind_from_irqhandler(*irq, dev_id);	/* closes the port */
	else if (*port)
		xenbus_free_evtchn(info->xbdev, *port);
	*irq = 0;
	*port = 0;
}

/* Free what one queue holds; its NAPI is disabled (or never enabled). */
static void xnf_free_queue(struct xnf_queue *q)
{
	struct xnf_info *info = q->info;
	void *va;

	if (!info)	/* never set up: an earlier queue failed */
		return;
	xnf_unbind(info, q, &q->irq, &q->evtchn);
	xnf_unbind(info, q, &q->tx_irq, &q->tx_evtchn);
	netif_napi_del(&q->napi);
	if (q->rx_pool && q->rx_slot[0])
		xgp_front_put_bulk(q->rx_pool, q->rx_slot, XNF_RX_RING_SIZE);
	memset(q->rx_slot, 0, sizeof(q->rx_slot));
	if (q->tx_pool)
		xnf_tx_release_all(q);
	xnf_destroy_pool(info, &q->tx_pool);
	xnf_destroy_pool(info, &q->rx_pool);
	xgp_idtab_destroy(&q->tx_ids);
	va = q->tx.sring;
	xnf_release_page(info, &va, &q->tx_ring_ref, "tx ring");
	q->tx.sring = NULL;
	va = q->rx.sring;
	xnf_release_page(info, &va, &q->rx_ring_ref, "rx ring");
	q->rx.sring = NULL;
}

static struct xgp_front_pool *xnf_make_pool(struct xnf_queue *q,
					    const char *dir,
					    unsigned int flags)
{
	struct xgp_front_pool *pool;
	char name[XGP_NAME_LEN];
	int err;

	snprintf(name, sizeof(name), "%.24s-%s", q->name, dir);
	pool = xgp_front_pool_create(name, q->info->xbdev->otherend_id,
				     XNF_TX_RING_SIZE, flags);
	if (IS_ERR(pool))
		return pool;
	/* all at once: the tx accounting relies on one slot per id */
	err = xgp_front_prefill(pool, XNF_TX_RING_SIZE, GFP_KERNEL);
	if (err) {
		xgp_front_pool_destroy(pool);
		return ERR_PTR(err);
	}
	return pool;
}

static int xnf_setup_queue(struct xnf_queue *q)
{
	struct xenbus_device *dev = q->info->xbdev;
	struct xen_netif_tx_sring *txs;
	struct xen_netif_rx_sring *rxs;
	int err;

	spin_lock_init(&q->tx_lock);
	q->tx_ring_ref = INVALID_GRANT_REF;
	q->rx_ring_ref = INVALID_GRANT_REF;
	netif_napi_add(q->info->netdev, &q->napi, xnf_poll);

	q->tx_pool = xnf_make_pool(q, "tx", XGP_FRONT_READONLY);
	if (IS_ERR(q->tx_pool)) {
		err = PTR_ERR(q->tx_pool);
		q->tx_pool = NULL;
		return err;
	}
	q->rx_pool = xnf_make_pool(q, "rx", 0);
	if (IS_ERR(q->rx_pool)) {
		err = PTR_ERR(q->rx_pool);
		q->rx_pool = NULL;
		return err;
	}
	if (!xgp_front_get_bulk(q->rx_pool, q->rx_slot, XNF_RX_RING_SIZE, 0))
		return -ENOMEM;
	err = xgp_idtab_init(&q->tx_ids, XNF_TX_RING_SIZE);
	if (err)
		return err;

	txs = xgp_ring_alloc(dev->otherend_id, 0, &q->tx_ring_ref, GFP_KERNEL);
	if (IS_ERR(txs))
		return PTR_ERR(txs);
	SHARED_RING_INIT(txs);
	FRONT_RING_INIT(&q->tx, txs, XEN_PAGE_SIZE);
	rxs = xgp_ring_alloc(dev->otherend_id, 0, &q->rx_ring_ref, GFP_KERNEL);
	if (IS_ERR(rxs))
		return PTR_ERR(rxs);
	SHARED_RING_INIT(rxs);
	FRONT_RING_INIT(&q->rx, rxs, XEN_PAGE_SIZE);

	if (q->info->split) {
		snprintf(q->tx_name, sizeof(q->tx_name), "%s-tx", q->name);
		snprintf(q->rx_name, sizeof(q->rx_name), "%s-rx", q->name);
		err = xnf_bind(q, &q->tx_evtchn, &q->tx_irq, xnf_tx_interrupt,
			       q->tx_name) ?:
		      xnf_bind(q, &q->evtchn, &q->irq, xnf_rx_interrupt,
			       q->rx_name);
	} else {
		err = xnf_bind(q, &q->evtchn, &q->irq, xnf_interrupt, q->name);
	}
	if (err)
		return err;
	xnf_rx_post_all(q);
	return 0;
}

/*
 * Tear the queues down.  rtnl held; traffic is stopped here first.  The
 * backend is closed or gone, so the checked revokes normally succeed.
 */
static void xnf_teardown(struct xnf_info *info)
{
	struct net_device *netdev = info->netdev;
	unsigned int i;

	ASSERT_RTNL();
	cancel_work_sync(&info->ctrl_work);
	xnf_ctrl_free(info);
	if (!info->queues)
		return;
	netif_carrier_off(netdev);
	netif_tx_disable(netdev);
	if (info->live && netif_running(netdev))
		for (i = 0; i < info->nr_queues; i++)
			napi_disable(&info->queues[i].napi);
	info->live = false;
	for (i = 0; i < info->nr_queues; i++)
		xnf_free_queue(&info->queues[i]);
	kfree(info->queues);
	info->queues = NULL;
	info->nr_queues = 0;
}

static int xnf_write_queue(struct xenbus_transaction xbt, const char *dir,
			   struct xnf_queue *q)
{
	int err;

	err = xenbus_printf(xbt, dir, "tx-ring-ref", "%u", q->tx_ring_ref) ?:
	      xenbus_printf(xbt, dir, "rx-ring-ref", "%u", q->rx_ring_ref);
	if (err || !q->tx_evtchn)
		return err ?: xenbus_printf(xbt, dir, "event-channel", "%u",
					    q->evtchn);
	return xenbus_printf(xbt, dir, "event-channel-tx", "%u", q->tx_evtchn) ?:
	       xenbus_printf(xbt, dir, "event-channel-rx", "%u", q->evtchn);
}

/*
 * Keys another driver (or an earlier connection) may have left: a stale
 * split event channel or queue count would make the backend bind what
 * no longer exists.
 */
static void xnf_clear_keys(struct xenbus_transaction xbt, const char *dir,
			   unsigned int nr_queues)
{
	static const char * const keys[] = {
		"tx-ring-ref", "rx-ring-ref", "event-channel",
		"event-channel-tx", "event-channel-rx",
		"multi-queue-num-queues", "feature-ctrl-ring",
		"ctrl-ring-ref", "event-channel-ctrl", "feature-xdp",
	};
	unsigned int i;
	char key[24];

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		xenbus_rm(xbt, dir, keys[i]);
	for (i = 0; i < max(nr_queues, xnf_max_queues); i++) {
		snprintf(key, sizeof(key), "queue-%u", i);
		xenbus_rm(xbt, dir, key);
	}
}

/* The keys of this connection (xgp_xs_publish's writer). */
static int xnf_write_keys(struct xenbus_transaction xbt, void *arg,
			  const char **what)
{
	struct xnf_info *info = arg;
	const char *dir = info->xbdev->nodename;
	unsigned int i;
	int err;

	xnf_clear_keys(xbt, dir, info->nr_queues);
	if (info->nr_queues == 1) {
		*what = "writing the ring keys";
		err = xnf_write_queue(xbt, dir, &info->queues[0]);
		if (err)
			return err;
	} else {
		*what = "writing multi-queue-num-queues";
		err = xenbus_printf(xbt, dir, "multi-queue-num-queues", "%u",
				    info->nr_queues);
		if (err)
			return err;
		*what = "writing a queue's ring keys";
		for (i = 0; i < info->nr_queues; i++) {
			char *path = kasprintf(GFP_KERNEL, "%s/queue-%u", dir, i);

			if (!path)
				return -ENOMEM;
			err = xnf_write_queue(xbt, path, &info->queues[i]);
			kfree(path);
			if (err)
				return err;
		}
	}
	*what = "writing the control ring keys";
	err = xnf_ctrl_publish(info, xbt);
	if (err)
		return err;
	*what = "writing the features";
	return xenbus_write(xbt, dir, "request-rx-copy", "1") ?:
	       xenbus_write(xbt, dir, "feature-rx-notify", "1") ?:
	       xenbus_write(xbt, dir, "feature-sg", "1") ?:
	       xenbus_write(xbt, dir, "feature-gso-tcpv4", "1") ?:
	       xenbus_write(xbt, dir, "feature-gso-tcpv6", "1") ?:
	       xenbus_write(xbt, dir, "feature-ipv6-csum-offload", "1");
}

/* Apply what this backend supports to the interface.  rtnl held. */
static void xnf_apply_backend(struct xnf_info *info)
{
	struct net_device *netdev = info->netdev;

	netdev->max_mtu = info->be_sg ? XNF_MAX_MTU : ETH_DATA_LEN;
	if (netdev->mtu > netdev->max_mtu) {
		dev_info(&info->xbdev->dev, "backend lacks feature-sg: MTU %u -> %u\n",
			 netdev->mtu, netdev->max_mtu);
		dev_set_mtu(netdev, netdev->max_mtu);
	}
	netdev_update_features(netdev);
	netif_set_real_num_tx_queues(netdev, info->nr_queues);
	netif_set_real_num_rx_queues(netdev, info->nr_queues);
}

/* Build the queues, publish them and go Connected.  Backend in InitWait. */
static int xnf_connect(struct xnf_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	struct net_device *netdev = info->netdev;
	unsigned int i, nr;
	int err;

	err = xnf_read_backend(info);
	if (err) {
		xenbus_dev_fatal(dev, err, "reading the backend's features");
		return err;
	}
	nr = min3(max(READ_ONCE(xnf_max_queues), 1U), num_online_cpus(),
		  info->be_max_queues);
	nr = min_t(unsigned int, nr, netdev->num_tx_queues);

	rtnl_lock();
	xnf_teardown(info);
	info->queues = kcalloc(nr, sizeof(*info->queues), GFP_KERNEL);
	if (!info->queues) {
		rtnl_unlock();
		xenbus_dev_fatal(dev, -ENOMEM, "allocating %u queues", nr);
		return -ENOMEM;
	}
	info->nr_queues = nr;
	info->split = info->be_split && READ_ONCE(xnf_split_evtchn);
	atomic_set(&info->broken, 0);
	for (i = 0; i < nr; i++) {
		struct xnf_queue *q = &info->queues[i];

		q->info = info;
		q->index = i;
		q->stats = &info->qstats[i];
		snprintf(q->name, sizeof(q->name), "%s-q%u",
			 dev_name(&dev->dev), i);
		err = xnf_setup_queue(q);
		if (err) {
			xenbus_dev_fatal(dev, err, "setting up queue %u", i);
			goto fail;
		}
	}
	/* persistent grants, steering: either may want the ring */
	if (info->be_ctrl) {
		err = xnf_ctrl_setup(info);
		if (err) {
			xenbus_dev_fatal(dev, err, "setting up the control ring");
			goto fail;
		}
	}
	err = xgp_xs_publish(dev, xnf_write_keys, info);
	if (err)
		goto fail;
	xnf_apply_backend(info);
	info->live = true;
	if (netif_running(netdev)) {
		for (i = 0; i < nr; i++) {
			napi_enable(&info->queues[i].napi);
			napi_schedule(&info->queues[i].napi);
		}
	}
	netif_tx_wake_all_queues(netdev);
	netif_carrier_on(netdev);
	rtnl_unlock();
	xenbus_switch_state(dev, XenbusStateConnected);
	dev_info(&dev->dev, "connected: %u queue(s), MTU max %u, sg %u, gso %u/%u, control ring %u, split event channels %u\n",
		 nr, netdev->max_mtu, info->be_sg, info->be_gso4,
		 info->be_gso6, info->ctrl.live, info->split);
	return 0;
fail:
	xnf_teardown(info);
	rtnl_unlock();
	return err;
}

static void xnf_backend_changed(struct xenbus_device *dev,
				enum xenbus_state backend_state)
{
	struct xnf_info *info = dev_get_drvdata(&dev->dev);

	dev_dbg(&dev->dev, "backend %s, we are %s\n",
		xenbus_strstate(backend_state), xenbus_strstate(dev->state));
	switch (backend_state) {
	case XenbusStateInitialising:
	case XenbusStateInitialised:
	case XenbusStateReconfiguring:
	case XenbusStateReconfigured:
	case XenbusStateUnknown:
		break;
	case XenbusStateInitWait:
		if (dev->state == XenbusStateConnected)
			xnf_ctrl_rebound(info);
		if (dev->state != XenbusStateInitialising)
			break;
		xnf_connect(info);
		break;
	case XenbusStateConnected:
		netdev_notify_peers(info->netdev);
		if (info->ctrl.live)
			schedule_work(&info->ctrl_work);
		break;
	case XenbusStateClosed:
		if (dev->state == XenbusStateClosed)
			break;
		fallthrough;	/* the backend skipped Closing */
	case XenbusStateClosing:
		/*
		 * Left over from a driver bound before us: the backend
		 * answers our Initialising with InitWait.
		 */
		if (dev->state == XenbusStateInitialising && !info->live)
			break;
		rtnl_lock();
		netif_carrier_off(info->netdev);
		netif_tx_disable(info->netdev);
		rtnl_unlock();
		xenbus_frontend_closed(dev);
		break;
	}
}

/* ---- net_device ---- */

static int xnf_open(struct net_device *netdev)
{
	struct xnf_info *info = netdev_priv(netdev);
	unsigned int i;

	if (info->live) {
		for (i = 0; i < info->nr_queues; i++) {
			napi_enable(&info->queues[i].napi);
			napi_schedule(&info->queues[i].napi);
		}
	}
	netif_tx_start_all_queues(netdev);
	return 0;
}

static int xnf_close(struct net_device *netdev)
{
	struct xnf_info *info = netdev_priv(netdev);
	unsigned int i;

	netif_tx_stop_all_queues(netdev);
	if (info->live)
		for (i = 0; i < info->nr_queues; i++)
			napi_disable(&info->queues[i].napi);
	return 0;
}

static netdev_features_t xnf_fix_features(struct net_device *netdev,
					  netdev_features_t features)
{
	struct xnf_info *info = netdev_priv(netdev);

	if (!info->be_sg)
		features &= ~NETIF_F_SG;
	if (!info->be_gso4)
		features &= ~NETIF_F_TSO;
	if (!info->be_gso6)
		features &= ~NETIF_F_TSO6;
	if (!info->be_csum6)
		features &= ~NETIF_F_IPV6_CSUM;
	return features;
}

static void xnf_get_stats64(struct net_device *netdev,
			    struct rtnl_link_stats64 *tot)
{
	struct xnf_info *info = netdev_priv(netdev);
	unsigned int i, start;

	/* the counters live as long as the device: no lock needed */
	for (i = 0; i < netdev->num_tx_queues; i++) {
		struct xnf_qstats *s = &info->qstats[i];
		u64 tp, tb, td, rp, rb, rd, re;

		do {
			start = u64_stats_fetch_begin(&s->tx_syncp);
			tp = s->tx_packets;
			tb = s->tx_bytes;
			td = s->tx_dropped;
		} while (u64_stats_fetch_retry(&s->tx_syncp, start));
		do {
			start = u64_stats_fetch_begin(&s->rx_syncp);
			rp = s->rx_packets;
			rb = s->rx_bytes;
			rd = s->rx_dropped;
			re = s->rx_errors;
		} while (u64_stats_fetch_retry(&s->rx_syncp, start));
		tot->tx_packets += tp;
		tot->tx_bytes += tb;
		tot->tx_dropped += td;
		tot->rx_packets += rp;
		tot->rx_bytes += rb;
		tot->rx_dropped += rd;
		tot->rx_errors += re;
	}
}

static const struct net_device_ops xnf_netdev_ops = {
	.ndo_open = xnf_open,
	.ndo_stop = xnf_close,
	.ndo_start_xmit = xnf_start_xmit,
	.ndo_fix_features = xnf_fix_features,
	.ndo_get_stats64 = xnf_get_stats64,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

/* ---- ethtool ---- */

static const char xnf_stat_names[][ETH_GSTRING_LEN] = {
	[XNF_ST_TX_COPIED] = "tx_copied_bytes",
	[XNF_ST_TX_SLOTS] = "tx_slots",
	[XNF_ST_TX_GSO] = "tx_gso_packets",
	[XNF_ST_TX_BUSY] = "tx_ring_full",
	[XNF_ST_TX_RSP_ERROR] = "tx_rsp_error",
	[XNF_ST_TX_RSP_DROPPED] = "tx_rsp_dropped",
	[XNF_ST_TX_TOO_BIG] = "tx_too_big",
	[XNF_ST_RX_COPIED] = "rx_copied_bytes",
	[XNF_ST_RX_SLOTS] = "rx_slots",
	[XNF_ST_RX_GSO] = "rx_gso_packets",
	[XNF_ST_RX_CSUM_PARTIAL] = "rx_csum_partial",
	[XNF_ST_RX_RSP_ERROR] = "rx_rsp_error",
	[XNF_ST_RX_BAD_PKT] = "rx_bad_packet",
	[XNF_ST_RX_NOMEM] = "rx_nomem",
	[XNF_ST_RX_HASH] = "rx_hash_packets",
};

static_assert(ARRAY_SIZE(xnf_stat_names) == XNF_ST_NR);

/* device-wide counters after the per-queue ones */
static const char xnf_dev_stat_names[][ETH_GSTRING_LEN] = {
	"queues", "protocol_errors", "revoke_busy", "pool_grants",
	"pool_reused", "ctrl_requests", "persistent_grants",
};

static int xnf_get_sset_count(struct net_device *netdev, int sset)
{
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return ARRAY_SIZE(xnf_stat_names) + ARRAY_SIZE(xnf_dev_stat_names);
}

static void xnf_get_strings(struct net_device *netdev, u32 sset, u8 *data)
{
	if (sset != ETH_SS_STATS)
		return;
	memcpy(data, xnf_stat_names, sizeof(xnf_stat_names));
	memcpy(data + sizeof(xnf_stat_names), xnf_dev_stat_names,
	       sizeof(xnf_dev_stat_names));
}

static void xnf_get_ethtool_stats(struct net_device *netdev,
				  struct ethtool_stats *stats, u64 *data)
{
	struct xnf_info *info = netdev_priv(netdev);
	u64 *dev_data = data + XNF_ST_NR;
	unsigned int i, j, start;

	memset(data, 0, sizeof(u64) * (XNF_ST_NR +
				       ARRAY_SIZE(xnf_dev_stat_names)));
	for (i = 0; i < netdev->num_tx_queues; i++) {
		struct xnf_qstats *qs = &info->qstats[i];
		u64 v[XNF_ST_NR];

		do {
			start = u64_stats_fetch_begin(&qs->tx_syncp);
			for (j = 0; j < XNF_ST_RX_COPIED; j++)
				v[j] = qs->ext[j];
		} while (u64_stats_fetch_retry(&qs->tx_syncp, start));
		do {
			start = u64_stats_fetch_begin(&qs->rx_syncp);
			for (j = XNF_ST_RX_COPIED; j < XNF_ST_NR; j++)
				v[j] = qs->ext[j];
		} while (u64_stats_fetch_retry(&qs->rx_syncp, start));
		for (j = 0; j < XNF_ST_NR; j++)
			data[j] += v[j];
	}
	/* ethtool ops run under rtnl: the queues cannot go away */
	for (i = 0; info->queues && i < info->nr_queues; i++) {
		struct xnf_queue *q = &info->queues[i];
		struct xgp_front_stats st;

		if (q->tx_pool) {
			xgp_front_pool_stats(q->tx_pool, &st);
			dev_data[3] += st.grants_issued;
			dev_data[4] += st.reused;
		}
		if (q->rx_pool) {
			xgp_front_pool_stats(q->rx_pool, &st);
			dev_data[3] += st.grants_issued;
			dev_data[4] += st.reused;
		}
	}
	dev_data[0] = info->nr_queues;
	dev_data[1] = atomic64_read(&info->protocol_errors);
	dev_data[2] = atomic64_read(&info->revoke_busy);
	dev_data[5] = info->ctrl.requests;
	dev_data[6] = xnf_ctrl_mapped(info);	/* the sum over queues */
}

static void xnf_get_drvinfo(struct net_device *netdev,
			    struct ethtool_drvinfo *di)
{
	struct xnf_info *info = netdev_priv(netdev);

	strscpy(di->driver, KBUILD_MODNAME, sizeof(di->driver));
	strscpy(di->version, XPS_VERSION, sizeof(di->version));
	strscpy(di->bus_info, dev_name(&info->xbdev->dev),
		sizeof(di->bus_info));
}

static void xnf_get_channels(struct net_device *netdev,
			     struct ethtool_channels *ch)
{
	struct xnf_info *info = netdev_priv(netdev);

	ch->max_combined = netdev->num_tx_queues;
	ch->combined_count = info->nr_queues;
}

/*
 * Receive steering: the backend picks each packet's queue by a Toeplitz
 * hash and this table (io/netif.h's hash messages over the control
 * ring).  Nothing is sent until ethtool -X sets a key or a table.
 */
static int xnf_get_rxnfc(struct net_device *netdev, struct ethtool_rxnfc *nfc,
			 u32 *rules)
{
	struct xnf_info *info = netdev_priv(netdev);

	if (nfc->cmd != ETHTOOL_GRXRINGS)
		return -EOPNOTSUPP;
	nfc->data = max(info->nr_queues, 1U);
	return 0;
}

static u32 xnf_get_rxfh_key_size(struct net_device *netdev)
{
	struct xnf_info *info = netdev_priv(netdev);

	return info->be_ctrl ? XNF_RSS_KEY_SIZE : 0;
}

static u32 xnf_get_rxfh_indir_size(struct net_device *netdev)
{
	struct xnf_info *info = netdev_priv(netdev);

	return info->be_ctrl ? XNF_RSS_INDIR_SIZE : 0;
}

static int xnf_get_rxfh(struct net_device *netdev,
			struct ethtool_rxfh_param *p)
{
	p->hfunc = ETH_RSS_HASH_TOP;
	return xnf_rss_get(netdev_priv(netdev), p->indir, p->key);
}

static int xnf_set_rxfh(struct net_device *netdev,
			struct ethtool_rxfh_param *p,
			struct netlink_ext_ack *extack)
{
	if (p->hfunc != ETH_RSS_HASH_NO_CHANGE && p->hfunc != ETH_RSS_HASH_TOP)
		return -EOPNOTSUPP;
	return xnf_rss_set(netdev_priv(netdev), p->indir, p->key);
}

XPS_ETHTOOL_RXFH(xnf_get_rxfh, xnf_set_rxfh);

const struct ethtool_ops xnf_ethtool_ops = {
	.get_drvinfo = xnf_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = xnf_get_sset_count,
	.get_strings = xnf_get_strings,
	.get_ethtool_stats = xnf_get_ethtool_stats,
	.get_channels = xnf_get_channels,
	.get_rxnfc = xnf_get_rxnfc,
	.get_rxfh_key_size = xnf_get_rxfh_key_size,
	.get_rxfh_indir_size = xnf_get_rxfh_indir_size,
	.get_rxfh = xps_ethtool_get_rxfh(xnf_get_rxfh),
	.set_rxfh = xps_ethtool_set_rxfh(xnf_set_rxfh),
};

/* ---- xenbus driver ---- */

static int xnf_probe(struct xenbus_device *dev,
		     const struct xenbus_device_id *id)
{
	unsigned int max = clamp(READ_ONCE(xnf_max_queues), 1U,
				 num_possible_cpus());
	struct net_device *netdev;
	struct xnf_info *info;
	u8 mac[ETH_ALEN];
	unsigned int i;
	int err;

	err = xnf_read_mac(dev, mac);
	if (err) {
		xenbus_dev_fatal(dev, err, "reading the MAC address");
		return err;
	}
	netdev = alloc_etherdev_mq(sizeof(*info), max);
	if (!netdev)
		return -ENOMEM;
	info = netdev_priv(netdev);
	info->xbdev = dev;
	info->netdev = netdev;
	atomic64_set(&info->protocol_errors, 0);
	INIT_WORK(&info->ctrl_work, xnf_ctrl_work);
	init_waitqueue_head(&info->ctrl.wq);
	mutex_init(&info->ctrl.lock);
	netdev_rss_key_fill(info->rss.key, sizeof(info->rss.key));
	atomic64_set(&info->revoke_busy, 0);
	info->qstats = kcalloc(max, sizeof(*info->qstats), GFP_KERNEL);
	if (!info->qstats) {
		free_netdev(netdev);
		return -ENOMEM;
	}
	for (i = 0; i < max; i++) {
		u64_stats_init(&info->qstats[i].tx_syncp);
		u64_stats_init(&info->qstats[i].rx_syncp);
	}
	eth_hw_addr_set(netdev, mac);
	netdev->netdev_ops = &xnf_netdev_ops;
	netdev->ethtool_ops = &xnf_ethtool_ops;
	netdev->hw_features = NETIF_F_SG | NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM |
			      NETIF_F_TSO | NETIF_F_TSO6;
	netdev->features = netdev->hw_features | NETIF_F_RXCSUM;
	netdev->min_mtu = ETH_MIN_MTU;
	netdev->max_mtu = XNF_MAX_MTU;
	netif_set_tso_max_size(netdev, XNF_MAX_TX_SIZE - MAX_TCP_HEADER);
	SET_NETDEV_DEV(netdev, &dev->dev);
	netif_carrier_off(netdev);
	dev_set_drvdata(&dev->dev, info);

	err = register_netdev(netdev);
	if (err) {
		dev_set_drvdata(&dev->dev, NULL);
		kfree(info->qstats);
		free_netdev(netdev);
		xenbus_dev_fatal(dev, err, "registering the interface");
		return err;
	}
	/*
	 * A driver unbound before us left the device Closed; saying
	 * Initialising again re-arms a Closed backend (it goes InitWait).
	 */
	dev->state = XenbusStateUnknown;
	err = xenbus_switch_state(dev, XenbusStateInitialising);
	if (err) {
		unregister_netdev(netdev);
		dev_set_drvdata(&dev->dev, NULL);
		kfree(info->qstats);
		free_netdev(netdev);
		return err;
	}
	dev_info(&dev->dev, "%s: %pM, up to %u queue(s)\n", netdev->name,
		 mac, max);
	return 0;
}

/* Wait until the backend is in a state of @mask; false after @ms. */
static bool xnf_wait_backend(struct xenbus_device *dev, unsigned int mask,
			     unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	/* the otherend watch is gone by remove(): poll */
	for (;;) {
		if (mask & BIT(xenbus_read_driver_state(dev, dev->otherend)))
			return true;
		if (time_after(jiffies, end))
			return false;
		msleep(20);
	}
}

/*
 * Close in order before the grants go: tell the backend, let it unmap
 * (Closing), then Closed.  A backend that does not answer within
 * XNF_CLOSE_WAIT_MS per step is left behind; its grants are then
 * revoked with checks (kept while it still maps them).
 */
static void xnf_bus_close(struct xnf_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	unsigned int closed = BIT(XenbusStateClosed) | BIT(XenbusStateUnknown);

	if (dev->state == XenbusStateClosed ||
	    xnf_wait_backend(dev, closed, 0))
		return;
	xenbus_switch_state(dev, XenbusStateClosing);
	if (!xnf_wait_backend(dev, closed | BIT(XenbusStateClosing),
			      XNF_CLOSE_WAIT_MS))
		dev_warn(&dev->dev, "backend did not answer Closing in %u ms\n",
			 XNF_CLOSE_WAIT_MS);
	xenbus_switch_state(dev, XenbusStateClosed);
	if (!xnf_wait_backend(dev, closed | BIT(XenbusStateInitWait),
			      XNF_CLOSE_WAIT_MS))
		dev_warn(&dev->dev, "backend did not close in %u ms\n",
			 XNF_CLOSE_WAIT_MS);
}

static void xnf_remove(struct xenbus_device *dev)
{
	struct xnf_info *info = dev_get_drvdata(&dev->dev);

	if (!info)
		return;
	/* the backend must still be connected to unmap */
	if (dev->state == XenbusStateConnected)
		xnf_ctrl_unmap(info);
	xnf_bus_close(info);
	/*
	 * The ring keys the next driver overwrites, but a stock netfront
	 * writes no control ring: netback would map our stale one and fail.
	 */
	xenbus_rm(XBT_NIL, dev->nodename, "ctrl-ring-ref");
	xenbus_rm(XBT_NIL, dev->nodename, "event-channel-ctrl");
	/*
	 * Carrier off (in the teardown) while the interface is registered:
	 * after unregister_netdev() it would queue a linkwatch event holding
	 * a reference nobody waits for, run after free_netdev().
	 */
	rtnl_lock();
	xnf_teardown(info);
	rtnl_unlock();
	unregister_netdev(info->netdev);
	dev_set_drvdata(&dev->dev, NULL);
	kfree(info->qstats);
	free_netdev(info->netdev);
}

/* After a restore: the old backend is gone; reconnect from InitWait. */
static int xnf_resume(struct xenbus_device *dev)
{
	struct xnf_info *info = dev_get_drvdata(&dev->dev);

	rtnl_lock();
	xnf_teardown(info);
	rtnl_unlock();
	return 0;
}

static const struct xenbus_device_id xnf_ids[] = {
	{ "vif" },
	{ "" }
};

static struct xenbus_driver xnf_driver = {
	.name = XNF_DRV_NAME,
	.ids = xnf_ids,
	.probe = xnf_probe,
	.remove = xnf_remove,
	.resume = xnf_resume,
	.otherend_changed = xnf_backend_changed,
	.not_essential = true,
};

static int __init xnf_init(void)
{
	BUILD_BUG_ON(XGP_GRANT_SIZE != XEN_PAGE_SIZE);
	BUILD_BUG_ON(XNF_TX_RING_SIZE != XNF_RX_RING_SIZE);
	BUILD_BUG_ON(!is_power_of_2(XNF_RX_RING_SIZE));
	if (!xen_domain())
		return -ENODEV;
	if (xen_hvm_domain() && !xen_has_pv_nic_devices())
		return -ENODEV;
	return xenbus_register_frontend(&xnf_driver);
}

static void __exit xnf_exit(void)
{
	xenbus_unregister_driver(&xnf_driver);
}

module_init(xnf_init);
module_exit(xnf_exit);

MODULE_DESCRIPTION("Xen virtual network interface frontend for any page size, with grant-pool slots and hardened response checks");
MODULE_LICENSE("GPL");
MODULE_VERSION(XPS_VERSION);
MODULE_ALIAS("xen:vif");
MODULE_SOFTDEP("pre: xen-grant-pool");
