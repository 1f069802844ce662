/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * xen-netback-pgnt's private header.  netback.c: module, parameters,
 * xenbus state machine, the vifX.Y net device, connect and teardown,
 * ethtool; xnb_io.c: the data path (guest transmit into dom0, dom0's
 * packets into the guest) in one NAPI poll per queue; xnb_ctrl.c: the
 * control ring (static grants: GET/ADD/DEL_GREF_MAPPING).
 */
#ifndef XNB_NETBACK_H
#define XNB_NETBACK_H

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/interrupt.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/skbuff.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/delay.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/u64_stats_sync.h>
#include <linux/rtnetlink.h>
#include <linux/mutex.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <xen/xen.h>
#include <xen/xenbus.h>
#include <xen/grant_table.h>
#include <xen/events.h>
#include <xen/page.h>
#include <xen/interface/io/netif.h>
#include <xen-pv-suite/grant_pool.h>
#include "xnb_core.h"

#define XNB_DRV_NAME		"vif-pgnt"

#define XNB_TX_RING_SIZE	__CONST_RING_SIZE(xen_netif_tx, XEN_PAGE_SIZE)
#define XNB_RX_RING_SIZE	__CONST_RING_SIZE(xen_netif_rx, XEN_PAGE_SIZE)
#define XNB_CTRL_RING_SIZE	__CONST_RING_SIZE(xen_netif_ctrl, XEN_PAGE_SIZE)
/* bytes of a guest's packet put in the skb's linear part */
#define XNB_TX_LINEAR		128U
/* grant copy operations one poll batches into a hypercall */
#define XNB_COPY_OPS		256U
/* packets one batch carries (each direction) */
#define XNB_BATCH_PKTS		32U
/* table entries in one 4 KB page (struct xen_netif_gref) */
#define XNB_GREFS_PER_PAGE	(XEN_PAGE_SIZE / 8U)

/* module parameters (netback.c) */
extern unsigned int xnb_max_queues;
extern unsigned int xnb_max_gref_mappings;
extern unsigned int xnb_rx_queue_bytes;
extern unsigned int xnb_rx_drain_ms;
extern bool xnb_threaded_napi;

/* Counters behind ethtool -S beyond the netdev's own; per queue. */
enum xnb_stat {
	XNB_ST_TX_MEMCPY,	/* guest tx bytes read from a mapped grant */
	XNB_ST_TX_GCOPY,	/* guest tx bytes grant-copied */
	XNB_ST_TX_GSO,		/* GSO packets from the guest */
	XNB_ST_TX_DROP,		/* guest packets refused (malformed) */
	XNB_ST_TX_COPY_ERR,	/* grant copy failed: packet answered ERROR */
	XNB_ST_TX_CREDIT,	/* tx stopped by the rate limit */
	XNB_ST_RX_MEMCPY,	/* bytes written into a mapped guest grant */
	XNB_ST_RX_GCOPY,	/* bytes grant-copied into the guest */
	XNB_ST_RX_GSO,		/* GSO packets to the guest */
	XNB_ST_RX_COPY_ERR,	/* grant copy into the guest failed */
	XNB_ST_RX_DRAINED,	/* queued packets dropped: guest posted none */
	XNB_ST_RX_TOO_BIG,	/* packets needing more slots than allowed */
	XNB_ST_GCOPY_OPS,	/* grant copy operations issued */
	XNB_ST_GCOPY_CALLS,	/* grant copy hypercalls */
	XNB_ST_FALLBACK,	/* slots of a mapped queue whose gref was not */
	XNB_ST_TX_HASH,		/* guest packets that came with a hash */
	XNB_ST_RX_HASH,		/* packets to the guest with a hash extra */
	XNB_ST_NR,
};

/**
 * struct xnb_qstats - one queue's counters (written in its NAPI poll)
 * @syncp: guards all of them against 32-bit readers
 */
struct xnb_qstats {
	struct u64_stats_sync syncp;
	u64 tx_packets;		/* from the guest (the vif received) */
	u64 tx_bytes;
	u64 rx_packets;		/* to the guest (the vif sent) */
	u64 rx_bytes;
	u64 ext[XNB_ST_NR];
};

struct xnb_vif;

/* bits of xnb_queue.eoi_pending */
#define XNB_EOI_TX	0
#define XNB_EOI_RX	1

/* one guest packet being built while its grant copies are batched */
struct xnb_tx_build {
	struct sk_buff *skb;
	struct xnb_tx_pkt pkt;
	u16 ids[XNB_FATAL_SLOTS + XNB_MAX_EXTRAS + 1];
	unsigned int first_op;
	unsigned int nr_ops;
	bool drop;
};

/* one packet to the guest: its responses await the batch's copies */
struct xnb_rx_build {
	struct sk_buff *skb;
	unsigned int ex;		/* its extras: XNB_RX_EX_* */
	RING_IDX first_rsp;
	unsigned int nr_data;
	unsigned int first_op;
	u16 op_of_slot[XNB_MAX_SLOTS];	/* first copy op of each data slot */
	u16 nr_ops_of_slot[XNB_MAX_SLOTS];
	u8 rsp_of_slot[XNB_MAX_SLOTS];	/* its response, from first_rsp */
};

/**
 * struct xnb_queue - one tx/rx ring pair of a vif
 * @vif: the device
 * @index: queue number
 * @name: "vifD.H-qN"
 * @napi: polls both rings and the packets queued for the guest
 * @tx_irq: irq (late EOI) of the tx ring's event channel (the only one
 *	when the channels are not split)
 * @rx_irq: irq of the rx ring's channel when split, else 0
 * @eoi_pending: XNB_EOI_* bits awaiting their EOI at the poll's end
 * @eoi_irq: the irq each XNB_EOI_* bit stands for (as its handler saw it)
 * @tx: back ring of the guest's transmit requests
 * @rx: back ring of the guest's receive buffers
 * @rx_queue: packets for the guest waiting for receive buffers
 * @rx_queued: bytes in @rx_queue
 * @rx_last_progress: jiffies when the guest last took a packet
 * @credit_bytes: rate limit: bytes per @credit_usec (0: no limit)
 * @credit_usec: rate limit period
 * @remaining_credit: bytes the guest may still send this period
 * @credit_timeout: refills @remaining_credit
 * @credit_stalled: the tx ring waits for the refill
 * @mapped: grants the frontend registered for this queue (pinned)
 * @nr_mapped: how many
 * @map_limit: room in @mapped (max_gref_mappings at connect)
 * @copy: grant copy operations of the current batch
 * @txb: guest packets of the current batch
 * @rxb: packets to the guest of the current batch
 * @slots: a private copy of the tx slots being parsed
 * @stats: counters (in the vif: they outlive a reconnect)
 */
struct xnb_queue {
	struct xnb_vif *vif;
	unsigned int index;
	char name[IFNAMSIZ + 16];		/* "<dev>-q<index>" */
	char tx_irq_name[IFNAMSIZ + 20];	/* name and "-tx" */
	char rx_irq_name[IFNAMSIZ + 20];
	struct napi_struct napi;
	bool napi_added;
	unsigned int tx_irq;
	unsigned int rx_irq;
	unsigned long eoi_pending;
	unsigned int eoi_irq[2];

	struct xen_netif_tx_back_ring tx;
	struct xen_netif_rx_back_ring rx;

	struct sk_buff_head rx_queue;
	unsigned int rx_queued;
	unsigned long rx_last_progress;
	struct timer_list rx_drain;

	unsigned long credit_bytes;
	unsigned long credit_usec;
	unsigned long remaining_credit;
	unsigned long credit_window_start;
	struct timer_list credit_timeout;
	bool credit_stalled;

	struct xgp_back_entry **mapped;
	unsigned int nr_mapped;
	unsigned int map_limit;

	struct gnttab_copy copy[XNB_COPY_OPS];
	struct xnb_tx_build txb[XNB_BATCH_PKTS];
	struct xnb_rx_build rxb[XNB_BATCH_PKTS];
	struct xnb_tx_slot slots[XNB_PARSE_SLOTS];

	struct xnb_qstats *stats;
};

/**
 * struct xnb_vif - one guest's vif (the net device's private data)
 * @dev: vifD.H
 * @xbdev: its xenbus backend device
 * @domid: the guest
 * @handle: the vif's handle (devid)
 * @lock: serialises connect, disconnect and the fatal path
 * @state: our xenbus state as we mean it (the store may lag: hotplug)
 * @frontend_state: the frontend's last state
 * @hotplug_script: the backend's "script" node (uevent)
 * @hotplug_watch: on "hotplug-status" until the script said connected
 * @have_hotplug_watch: @hotplug_watch is registered
 * @rate_watch: on "rate"
 * @have_rate_watch: @rate_watch is registered
 * @connected: queues and rings live
 * @broken: a fatal frontend fault; the data path stops
 * @fatal_work: disconnects after a fatal fault
 * @can_sg, @gso4, @gso6, @ip_csum, @ipv6_csum: frontend features
 * @queues: @nr_queues queues while connected
 * @ctrl: control back ring (or sring NULL)
 * @ctrl_irq: its irq (threaded, late EOI), 0 if none
 * @cache: mapped-grant cache of the static grants (NULL until an ADD)
 * @ctrl_requests: control requests answered
 * @hash: the Toeplitz configuration the frontend set (reset at connect)
 * @refused: static grants refused (ADD failed or over the limit)
 * @faults: fatal frontend faults seen
 * @mapped: static grants mapped now, all queues
 * @map_ops: static grants mapped since the vif was created
 * @unmap_ops: static grants unmapped since the vif was created
 * @qstats: per-queue counters, dev->num_tx_queues of them
 * @debugfs: its debugfs directory (io_ring: the rings' indexes)
 */
struct xnb_vif {
	struct net_device *dev;
	struct xenbus_device *xbdev;
	domid_t domid;
	unsigned int handle;
	struct mutex lock;	/* connect, disconnect, fatal path */
	enum xenbus_state state;
	enum xenbus_state frontend_state;
	const char *hotplug_script;
	struct xenbus_watch hotplug_watch;
	bool have_hotplug_watch;
	struct xenbus_watch rate_watch;
	bool have_rate_watch;
	bool connected;
	bool broken;
	struct work_struct fatal_work;
	bool can_sg, gso4, gso6, ip_csum, ipv6_csum;

	struct xnb_queue *queues;
	unsigned int nr_queues;

	struct xen_netif_ctrl_back_ring ctrl;
	unsigned int ctrl_irq;
	struct xgp_back_cache *cache;
	u64 ctrl_requests;
	struct xnb_hash hash;
	atomic64_t refused;
	atomic64_t faults;
	atomic_t mapped;
	atomic64_t map_ops;
	atomic64_t unmap_ops;

	struct xnb_qstats *qstats;
	struct dentry *debugfs;
};

/* netback.c */
__printf(2, 3) void xnb_fatal(struct xnb_vif *vif, const char *fmt, ...);

/* xnb_io.c */
netdev_tx_t xnb_start_xmit(struct sk_buff *skb, struct net_device *dev);
u16 xnb_select_queue(struct net_device *dev, struct sk_buff *skb,
		     struct net_device *sb_dev);
int xnb_poll(struct napi_struct *napi, int budget);
irqreturn_t xnb_tx_interrupt(int irq, void *dev_id);
irqreturn_t xnb_rx_interrupt(int irq, void *dev_id);
irqreturn_t xnb_interrupt(int irq, void *dev_id);
void xnb_queue_init_io(struct xnb_queue *q);
void xnb_queue_stop_io(struct xnb_queue *q);
void xnb_read_rate(struct xnb_vif *vif);

/* xnb_ctrl.c */
int xnb_ctrl_connect(struct xnb_vif *vif, grant_ref_t ref,
		     evtchn_port_t evtchn);
void xnb_ctrl_disconnect(struct xnb_vif *vif);
void xnb_unmap_queue(struct xnb_vif *vif, struct xnb_queue *q);

#endif /* XNB_NETBACK_H */
