/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * xen-netfront-pgnt's private header: the device and queue types and what
 * its files share.  netfront.c: module, parameters, xenbus state machine,
 * connect and teardown, ethtool; xnf_io.c: the data path (transmit, the
 * NAPI poll, receive).
 */
#ifndef XNF_NETFRONT_H
#define XNF_NETFRONT_H

/* pr_fmt: compat/compat.h's net section */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/interrupt.h>
#include <linux/slab.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/skbuff.h>
#include <linux/if_ether.h>
#include <linux/u64_stats_sync.h>
#include <linux/rtnetlink.h>
#include <net/tcp.h>
#include <linux/delay.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <xen/xen.h>
#include <xen/xenbus.h>
#include <xen/grant_table.h>
#include <xen/events.h>
#include <xen/page.h>
#include <xen/platform_pci.h>
#include <xen/interface/io/netif.h>
#include <xen-pv-suite/grant_pool.h>
#include "xnf_core.h"

#define XNF_DRV_NAME		"vif-pgnt"

#define XNF_TX_RING_SIZE	__CONST_RING_SIZE(xen_netif_tx, XEN_PAGE_SIZE)
#define XNF_RX_RING_SIZE	__CONST_RING_SIZE(xen_netif_rx, XEN_PAGE_SIZE)
/* data slots of the largest packet, copied densely into 4 KB slots */
#define XNF_TX_MAX_DATA		DIV_ROUND_UP(XNF_MAX_TX_SIZE, XGP_GRANT_SIZE)
/* ring slots one packet may take: its data slots and one GSO extra */
#define XNF_TX_MAX_RING		(XNF_TX_MAX_DATA + 1)
/* data slots a received packet may take (what netback sends at most) */
#define XNF_RX_MAX_SLOTS	(XNF_MAX_SLOTS + 1)
/* bytes of a received packet copied into the skb's linear part */
#define XNF_RX_COPYBREAK	256U
/* Largest frame: the 16-bit size of a tx request. */
#define XNF_MAX_MTU		(XNF_MAX_TX_SIZE - ETH_HLEN)
/* How long an unbind waits for the backend at each step of the close. */
#define XNF_CLOSE_WAIT_MS	5000U

/* module parameters (netfront.c, xnf_ctrl.c) */
extern unsigned int xnf_max_queues;
extern bool xnf_feature_persistent;

/* ---- statistics ---- */

/* Counters behind ethtool -S beyond the netdev's own; per queue. */
enum xnf_stat {
	XNF_ST_TX_COPIED,	/* bytes copied into tx slots */
	XNF_ST_TX_SLOTS,	/* tx data slots sent */
	XNF_ST_TX_GSO,		/* GSO packets sent */
	XNF_ST_TX_BUSY,		/* xmit found the ring full */
	XNF_ST_TX_RSP_ERROR,	/* backend answered ERROR */
	XNF_ST_TX_RSP_DROPPED,	/* backend answered DROPPED */
	XNF_ST_TX_TOO_BIG,	/* frames the wire cannot describe */
	XNF_ST_RX_COPIED,	/* bytes copied out of rx slots */
	XNF_ST_RX_SLOTS,	/* rx data slots received */
	XNF_ST_RX_GSO,		/* GSO packets received */
	XNF_ST_RX_CSUM_PARTIAL,	/* received with the checksum left blank */
	XNF_ST_RX_RSP_ERROR,	/* backend answered a negative status */
	XNF_ST_RX_BAD_PKT,	/* dropped: unusable headers or checksum */
	XNF_ST_RX_NOMEM,	/* dropped: no memory for the skb */
	XNF_ST_RX_HASH,		/* received with the backend's hash */
	XNF_ST_NR,
};

/**
 * struct xnf_qstats - one queue's counters
 * @tx_syncp: guards the tx counters (xmit and tx completion)
 * @rx_syncp: guards the rx counters (NAPI)
 */
struct xnf_qstats {
	struct u64_stats_sync tx_syncp;
	u64 tx_packets;
	u64 tx_bytes;
	u64 tx_dropped;
	struct u64_stats_sync rx_syncp;
	u64 rx_packets;
	u64 rx_bytes;
	u64 rx_dropped;
	u64 rx_errors;
	/* enum xnf_stat, updated under the syncp of their direction */
	u64 ext[XNF_ST_NR];
};

struct xnf_info;

/* bits of xnf_queue.eoi_pending */
#define XNF_EOI_IRQ	0	/* xnf_queue.irq */
#define XNF_EOI_TX_IRQ	1	/* xnf_queue.tx_irq */

/**
 * struct xnf_queue - one tx/rx ring pair, its event channel and NAPI
 * @info: the device
 * @index: queue number
 * @name: "vif-<devid>-q<index>", also the grant pools' names (-tx, -rx)
 * @napi: polls both rings
 * @irq: the irq (late EOI) of @evtchn, 0 when not bound
 * @evtchn: event channel of both rings, or of the rx ring alone when the
 *	channels are split
 * @tx_irq: the irq (late EOI) of @tx_evtchn, 0 when not bound
 * @tx_evtchn: the tx ring's own event channel (split channels), else 0
 * @eoi_pending: XNF_EOI_* bits: the irqs whose event awaits its EOI at
 *	the end of the poll
 * @tx_name: irq name of @tx_irq, "<name>-tx"
 * @rx_name: irq name of @irq with split channels, "<name>-rx"
 * @tx_lock: serialises the tx ring, its ids and the slot accounting
 * @tx: tx front ring
 * @tx_ring_ref: its grant
 * @tx_ids: tx request ids; cookie = the xgp_slot the request carries
 * @tx_pool: slots packets are copied into (granted read-only, once)
 * @rx: rx front ring
 * @rx_ring_ref: its grant
 * @rx_pool: slots the backend copies packets into
 * @rx_slot: the slot posted with rx request id i, for the whole connection
 * @stats: its counters (in the device: they outlive a reconnect)
 */
struct xnf_queue {
	struct xnf_info *info;
	unsigned int index;
	char name[XGP_NAME_LEN];
	struct napi_struct napi;
	unsigned int irq;
	evtchn_port_t evtchn;
	unsigned int tx_irq;
	evtchn_port_t tx_evtchn;
	unsigned long eoi_pending;
	char tx_name[XGP_NAME_LEN + 3];
	char rx_name[XGP_NAME_LEN + 3];

	spinlock_t tx_lock;	/* tx ring, tx_ids, tx slot accounting */
	struct xen_netif_tx_front_ring tx;
	grant_ref_t tx_ring_ref;
	struct xgp_idtab tx_ids;
	struct xgp_front_pool *tx_pool;

	struct xen_netif_rx_front_ring rx;
	grant_ref_t rx_ring_ref;
	struct xgp_front_pool *rx_pool;
	struct xgp_slot *rx_slot[XNF_RX_RING_SIZE];

	struct xnf_qstats *stats;
};

/**
 * struct xnf_ctrl_queue - one queue's static grants (xnf_ctrl.c)
 * @pg: its persistent-grant negotiation (xnf_core.c)
 * @grefs: its pool grants in table order, the tx pool's first (in
 *	xnf_ctrl.grefs)
 * @nr_grefs: how many
 * @nr_ro: of them, the tx pool's (read-only): the first @nr_ro
 */
struct xnf_ctrl_queue {
	struct xnf_pg pg;
	u32 *grefs;
	unsigned int nr_grefs;
	unsigned int nr_ro;
};

/**
 * struct xnf_ctrl - the control ring (xnf_ctrl.c)
 * @live: connected, and answering in time
 * @ring: front ring
 * @ring_ref: its grant
 * @evtchn: its event channel
 * @irq: its irq (late EOI), 0 when not bound
 * @name: irq name
 * @wq: woken by a response
 * @tbl: the ADD/DEL table page (4 KB, granted read-write)
 * @tbl_ref: its grant
 * @next_id: request ids
 * @qs: static grants of each queue (@nr_qs, the connection's queues)
 * @nr_qs: how many
 * @grefs: every queue's pool grants (@qs point into it); set once the
 *	negotiation has begun
 * @requests: control requests sent
 * @lock: one request outstanding at a time: the negotiation (ctrl_work),
 *	ethtool's steering changes and the unmap take turns
 * @pg_on: feature_persistent when the ring was set up: negotiate
 */
struct xnf_ctrl {
	struct mutex lock;	/* one request outstanding: see above */
	bool pg_on;
	bool live;
	struct xen_netif_ctrl_front_ring ring;
	grant_ref_t ring_ref;
	evtchn_port_t evtchn;
	unsigned int irq;
	char name[XGP_NAME_LEN];
	wait_queue_head_t wq;
	struct xnf_gref *tbl;
	grant_ref_t tbl_ref;
	u16 next_id;
	struct xnf_ctrl_queue *qs;
	unsigned int nr_qs;
	u32 *grefs;
	u64 requests;
};

/* Receive steering the backend does for us (ethtool -x/-X) */
#define XNF_RSS_KEY_SIZE	40U	/* what the stock netback takes */
#define XNF_RSS_INDIR_SIZE	128U

/**
 * struct xnf_rss - the Toeplitz steering the user asked for
 * @user: ethtool -X set a key or a table: sent at every connect
 * @indir_set: @indir came from the user (else the default spread)
 * @key: the hash key (random until the user sets one)
 * @indir: the table: hash % 128 -> receive queue
 */
struct xnf_rss {
	bool user;
	bool indir_set;
	u8 key[XNF_RSS_KEY_SIZE];
	u32 indir[XNF_RSS_INDIR_SIZE];
};

/**
 * struct xnf_info - one vif
 * @xbdev: the xenbus device
 * @netdev: the network interface
 * @queues: @nr_queues queues while connected, else NULL
 * @nr_queues: queues of this connection
 * @live: the queues exist and may carry traffic (rtnl held to change)
 * @broken: the backend broke the protocol: the device is dead
 * @be_sg: backend feature-sg
 * @be_gso4: backend feature-gso-tcpv4
 * @be_gso6: backend feature-gso-tcpv6
 * @be_csum6: backend feature-ipv6-csum-offload
 * @be_max_queues: backend multi-queue-max-queues (1 when absent)
 * @be_ctrl: backend feature-ctrl-ring
 * @be_split: backend feature-split-event-channels
 * @split: this connection's queues have a tx and an rx event channel each
 * @ctrl: the control ring
 * @ctrl_work: runs the mapping negotiation once the backend is Connected,
 *	and sends the steering the user set
 * @rss: that steering (under @ctrl.lock)
 * @protocol_errors: backend protocol violations seen
 * @revoke_busy: grants the backend still mapped at a teardown
 * @qstats: counters of each possible queue (num_tx_queues)
 */
struct xnf_info {
	struct xenbus_device *xbdev;
	struct net_device *netdev;
	struct xnf_queue *queues;
	unsigned int nr_queues;
	bool live;
	atomic_t broken;
	bool be_sg;
	bool be_gso4;
	bool be_gso6;
	bool be_csum6;
	unsigned int be_max_queues;
	bool be_ctrl;
	bool be_split;
	bool split;
	struct xnf_ctrl ctrl;
	struct work_struct ctrl_work;
	struct xnf_rss rss;
	atomic64_t protocol_errors;
	atomic64_t revoke_busy;
	struct xnf_qstats *qstats;
};

/* xnf_io.c */
netdev_tx_t xnf_start_xmit(struct sk_buff *skb, struct net_device *dev);
int xnf_poll(struct napi_struct *napi, int budget);
irqreturn_t xnf_interrupt(int irq, void *dev_id);
irqreturn_t xnf_tx_interrupt(int irq, void *dev_id);
irqreturn_t xnf_rx_interrupt(int irq, void *dev_id);
void xnf_rx_post_all(struct xnf_queue *q);
void xnf_tx_release_all(struct xnf_queue *q);
void xnf_broken(struct xnf_info *info, const char *fmt, ...) __printf(2, 3);

/* xnf_ctrl.c */
int xnf_ctrl_setup(struct xnf_info *info);
int xnf_ctrl_publish(struct xnf_info *info, struct xenbus_transaction xbt);
void xnf_ctrl_free(struct xnf_info *info);
void xnf_ctrl_work(struct work_struct *work);
void xnf_ctrl_rebound(struct xnf_info *info);
void xnf_ctrl_unmap(struct xnf_info *info);
unsigned int xnf_ctrl_mapped(struct xnf_info *info);
int xnf_rss_get(struct xnf_info *info, u32 *indir, u8 *key);
int xnf_rss_set(struct xnf_info *info, const u32 *indir, const u8 *key);

/* netfront.c */
extern const struct ethtool_ops xnf_ethtool_ops;
void xnf_release_page(struct xnf_info *info, void **va, grant_ref_t *ref,
		      const char *what);
void xnf_unbind(struct xnf_info *info, void *dev_id, unsigned int *irq,
		evtchn_port_t *port);

#endif /* XNF_NETFRONT_H */
