// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * xen-netback-pgnt's data path: one NAPI poll per queue moves the
 * guest's transmitted packets into dom0 (tx ring) and dom0's packets for
 * the guest into its posted buffers (rx ring).
 *
 * Bytes move one of two ways.  A grant the frontend registered as a
 * static grant (ADD_GREF_MAPPING, xnb_ctrl.c) stays mapped, and the
 * bytes are copied with memcpy from or to that mapping.  Any other grant
 * is copied by Xen (GNTTABOP_copy), batched: the poll gathers up to
 * XNB_BATCH_PKTS packets' operations and issues one hypercall.  So a
 * frontend whose every buffer is registered costs no grant operation
 * per packet.
 *
 * Requests are copied off the shared ring before they are read, and a
 * transmitted packet is judged by xnb_tx_parse() before anything is
 * copied.  Ring indexes that no frontend could produce, slots crossing
 * their grant, unknown extras: the vif is disconnected (xnb_fatal).
 */
#include "netback.h"

static_assert(sizeof(struct xnb_tx_slot) ==
	      sizeof(struct xen_netif_tx_request));
static_assert(offsetof(struct xnb_tx_slot, gref) ==
	      offsetof(struct xen_netif_tx_request, gref));
static_assert(offsetof(struct xnb_tx_slot, offset) ==
	      offsetof(struct xen_netif_tx_request, offset));
static_assert(offsetof(struct xnb_tx_slot, flags) ==
	      offsetof(struct xen_netif_tx_request, flags));
static_assert(offsetof(struct xnb_tx_slot, id) ==
	      offsetof(struct xen_netif_tx_request, id));
static_assert(offsetof(struct xnb_tx_slot, size) ==
	      offsetof(struct xen_netif_tx_request, size));
static_assert(XEN_NETTXF_extra_info == XNB_TXF_EXTRA_INFO);
static_assert(XEN_NETTXF_more_data == XNB_TXF_MORE_DATA);
static_assert(XEN_NETTXF_csum_blank == XNB_TXF_CSUM_BLANK);
static_assert(XEN_NETTXF_data_validated == XNB_TXF_DATA_VALIDATED);
static_assert(XNB_EXTRA_TYPE_GSO == XEN_NETIF_EXTRA_TYPE_GSO);
static_assert(XNB_EXTRA_TYPE_HASH == XEN_NETIF_EXTRA_TYPE_HASH);
static_assert(XNB_HASH_ALG_TOEPLITZ == XEN_NETIF_CTRL_HASH_ALGORITHM_TOEPLITZ);
static_assert(XNB_HASH_TYPE_IPV6_TCP == _XEN_NETIF_CTRL_HASH_TYPE_IPV6_TCP);
static_assert(XNB_HASH_FLAGS_ALL ==
	      (XEN_NETIF_CTRL_HASH_TYPE_IPV4 | XEN_NETIF_CTRL_HASH_TYPE_IPV4_TCP |
	       XEN_NETIF_CTRL_HASH_TYPE_IPV6 | XEN_NETIF_CTRL_HASH_TYPE_IPV6_TCP));
static_assert(XNB_GSO_TYPE_TCPV4 == XEN_NETIF_GSO_TYPE_TCPV4);
static_assert(XNB_GSO_TYPE_TCPV6 == XEN_NETIF_GSO_TYPE_TCPV6);
static_assert(XNB_PAGE == XEN_PAGE_SIZE);
/* every op one packet can need fits a batch (see xnb_rx_room) */
static_assert(XNB_COPY_OPS >= 4 * (MAX_SKB_FRAGS + XNB_PARSE_SLOTS));

#define XNB_SKB_OPS	(2 * (MAX_SKB_FRAGS + XNB_PARSE_SLOTS))

static void xnb_count(struct xnb_queue *q, enum xnb_stat s, u64 v)
{
	u64_stats_update_begin(&q->stats->syncp);
	q->stats->ext[s] += v;
	u64_stats_update_end(&q->stats->syncp);
}

/* A registered static grant, referenced; NULL: copy through Xen. */
static struct xgp_back_entry *xnb_mapped(struct xnb_queue *q, u32 gref,
					 bool write)
{
	struct xgp_back_cache *cache = READ_ONCE(q->vif->cache);
	struct xgp_back_entry *e;

	if (!cache || !READ_ONCE(q->nr_mapped))
		return NULL;
	e = xgp_back_lookup(cache, gref);
	if (e && write && e->readonly) {
		xgp_back_put(cache, e);
		e = NULL;
	}
	if (!e)
		xnb_count(q, XNB_ST_FALLBACK, 1);
	return e;
}

static void xnb_unmapped_put(struct xnb_queue *q, struct xgp_back_entry *e)
{
	if (e)
		xgp_back_put(q->vif->cache, e);
}

/* Issue the batch's grant copies.  Returns false if the hypercall failed. */
static void xnb_copy_batch(struct xnb_queue *q, unsigned int nops)
{
	if (!nops)
		return;
	gnttab_batch_copy(q->copy, nops);
	u64_stats_update_begin(&q->stats->syncp);
	q->stats->ext[XNB_ST_GCOPY_OPS] += nops;
	q->stats->ext[XNB_ST_GCOPY_CALLS]++;
	u64_stats_update_end(&q->stats->syncp);
}

static bool xnb_ops_ok(struct xnb_queue *q, unsigned int first,
		       unsigned int n)
{
	unsigned int i;

	for (i = first; i < first + n; i++)
		if (q->copy[i].status != GNTST_okay)
			return false;
	return true;
}

static void xnb_ring_fatal(struct xnb_queue *q, const char *ring, u32 prod,
			   u32 cons)
{
	xnb_fatal(q->vif, "%s: %s request producer %u, consumer %u: more than a ring",
		  q->name, ring, prod, cons);
}

/* ---- the Toeplitz hash a frontend asked for (xnb_ctrl.c) ---- */

/*
 * Hash @skb over what the frontend's flags name (TCP ports included when
 * both a TCP flag is set and the packet has a TCP header, as netif.h
 * says), or clear its hash: no hash extra goes with it then.
 */
static void xnb_skb_hash(struct xnb_vif *vif, struct sk_buff *skb)
{
	u32 flags = READ_ONCE(vif->hash.flags), l3, l4f;
	struct flow_keys flow;
	unsigned int n;
	bool l4;
	u8 buf[36];

	if (skb->protocol == htons(ETH_P_IP)) {
		l3 = XNB_HASH_IPV4;
		l4f = XNB_HASH_IPV4_TCP;
	} else if (skb->protocol == htons(ETH_P_IPV6)) {
		l3 = XNB_HASH_IPV6;
		l4f = XNB_HASH_IPV6_TCP;
	} else {
		goto none;
	}
	if (!(flags & (l3 | l4f)))
		goto none;
	memset(&flow, 0, sizeof(flow));
	if (!skb_flow_dissect_flow_keys(skb, &flow, 0))
		goto none;
	l4 = (flags & l4f) && flow.basic.ip_proto == IPPROTO_TCP &&
	     !(flow.control.flags & FLOW_DIS_IS_FRAGMENT);
	if (!l4 && !(flags & l3))
		goto none;
	if (l3 == XNB_HASH_IPV4 &&
	    flow.control.addr_type == FLOW_DISSECTOR_KEY_IPV4_ADDRS) {
		memcpy(buf, &flow.addrs.v4addrs.src, 4);
		memcpy(buf + 4, &flow.addrs.v4addrs.dst, 4);
		n = 8;
	} else if (l3 == XNB_HASH_IPV6 &&
		   flow.control.addr_type == FLOW_DISSECTOR_KEY_IPV6_ADDRS) {
		memcpy(buf, &flow.addrs.v6addrs.src, 16);
		memcpy(buf + 16, &flow.addrs.v6addrs.dst, 16);
		n = 32;
	} else {
		goto none;
	}
	if (l4) {
		memcpy(buf + n, &flow.ports.src, 2);
		memcpy(buf + n + 2, &flow.ports.dst, 2);
		n += 4;
	}
	__skb_set_sw_hash(skb, xnb_toeplitz(vif->hash.key, XNB_HASH_KEY_MAX,
					    buf, n), l4);
	return;
none:
	skb_clear_hash(skb);
}

/*
 * The queue of a packet for the guest: with no algorithm set, the
 * stack's choice; with Toeplitz, the frontend's table (or the hash
 * modulo the queues when it set no table).
 */
u16 xnb_select_queue(struct net_device *dev, struct sk_buff *skb,
		     struct net_device *sb_dev)
{
	struct xnb_vif *vif = netdev_priv(dev);
	unsigned int nq = dev->real_num_tx_queues;

	if (READ_ONCE(vif->hash.alg) == XNB_HASH_ALG_NONE)
		return netdev_pick_tx(dev, skb, sb_dev) % nq;
	xnb_skb_hash(vif, skb);
	return xnb_hash_queue(&vif->hash, skb_get_hash_raw(skb), nq);
}

/* ---- dom0 -> guest (the rx ring) ---- */

/* extra-info slots of a packet for the guest, in this order */
#define XNB_RX_EX_GSO	0x1U
#define XNB_RX_EX_HASH	0x2U

netdev_tx_t xnb_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct xnb_vif *vif = netdev_priv(dev);
	unsigned int index = skb_get_queue_mapping(skb);
	struct xnb_queue *q;

	/* pairs with the release in xnb_connect(): queues set up first */
	if (unlikely(!smp_load_acquire(&vif->connected) ||
		     READ_ONCE(vif->broken) || index >= vif->nr_queues)) {
		dev_core_stats_tx_dropped_inc(dev);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	q = &vif->queues[index];
	spin_lock(&q->rx_queue.lock);
	__skb_queue_tail(&q->rx_queue, skb);
	q->rx_queued += skb->len;
	if (q->rx_queued > READ_ONCE(xnb_rx_queue_bytes))
		netif_tx_stop_queue(netdev_get_tx_queue(dev, index));
	spin_unlock(&q->rx_queue.lock);
	napi_schedule(&q->napi);
	return NETDEV_TX_OK;
}

static struct sk_buff *xnb_rx_peek(struct xnb_queue *q)
{
	struct sk_buff *skb;

	spin_lock_bh(&q->rx_queue.lock);
	skb = skb_peek(&q->rx_queue);
	spin_unlock_bh(&q->rx_queue.lock);
	return skb;
}

static void xnb_rx_dequeue(struct xnb_queue *q, struct sk_buff *skb)
{
	spin_lock_bh(&q->rx_queue.lock);
	__skb_unlink(skb, &q->rx_queue);
	q->rx_queued -= skb->len;
	spin_unlock_bh(&q->rx_queue.lock);
}

static void xnb_rx_wake(struct xnb_queue *q)
{
	struct netdev_queue *txq = netdev_get_tx_queue(q->vif->dev, q->index);

	if (netif_tx_queue_stopped(txq) &&
	    READ_ONCE(q->rx_queued) < READ_ONCE(xnb_rx_queue_bytes) / 2)
		netif_tx_wake_queue(txq);
}

/*
 * Grant copies of skb bytes [off, off + len) into the guest's @gref at
 * offset 0, split at every source page and fragment boundary.
 */
static void xnb_rx_gcopy(struct xnb_queue *q, struct sk_buff *skb,
			 unsigned int off, unsigned int len, u32 gref,
			 unsigned int *nops)
{
	struct skb_shared_info *sh = skb_shinfo(skb);
	unsigned int goff = 0, f = 0, fstart = skb_headlen(skb);

	while (len) {
		struct gnttab_copy *op = &q->copy[(*nops)++];
		unsigned long poff;
		struct page *page;
		unsigned int seg;

		if (off < skb_headlen(skb)) {
			void *p = skb->data + off;

			page = virt_to_page(p);
			poff = offset_in_page(p);
			seg = skb_headlen(skb) - off;
		} else {
			/* no frag_list: the vif does not offer NETIF_F_FRAGLIST */
			while (f < sh->nr_frags &&
			       off >= fstart + skb_frag_size(&sh->frags[f]))
				fstart += skb_frag_size(&sh->frags[f++]);
			if (WARN_ON_ONCE(f >= sh->nr_frags)) {
				(*nops)--;
				return;
			}
			poff = skb_frag_off(&sh->frags[f]) + off - fstart;
			page = skb_frag_page(&sh->frags[f]) +
			       (poff >> PAGE_SHIFT);
			poff &= ~PAGE_MASK;
			seg = fstart + skb_frag_size(&sh->frags[f]) - off;
		}
		seg = min3(seg, len,
			   (unsigned int)(XEN_PAGE_SIZE -
					  (poff & ~XEN_PAGE_MASK)));
		memset(op, 0, sizeof(*op));
		op->flags = GNTCOPY_dest_gref;
		op->source.u.gmfn = pfn_to_gfn(page_to_xen_pfn(page) +
					       (poff >> XEN_PAGE_SHIFT));
		op->source.domid = DOMID_SELF;
		op->source.offset = poff & ~XEN_PAGE_MASK;
		op->dest.u.ref = gref;
		op->dest.domid = q->vif->domid;
		op->dest.offset = goff;
		op->len = seg;
		off += seg;
		goff += seg;
		len -= seg;
	}
}

/* Fill the extra-info response of the packet's @nth extra (from 1). */
static void xnb_rx_extra(struct sk_buff *skb, unsigned int ex,
			 unsigned int nth, struct xen_netif_extra_info *out)
{
	bool more = nth < hweight32(ex);

	memset(out, 0, sizeof(*out));
	if (nth == 1 && (ex & XNB_RX_EX_GSO)) {
		out->type = XEN_NETIF_EXTRA_TYPE_GSO;
		out->u.gso.size = skb_shinfo(skb)->gso_size;
		out->u.gso.type = skb_shinfo(skb)->gso_type & SKB_GSO_TCPV6 ?
				  XEN_NETIF_GSO_TYPE_TCPV6 :
				  XEN_NETIF_GSO_TYPE_TCPV4;
	} else {
		u32 hash = skb_get_hash_raw(skb);
		bool v4 = skb->protocol == htons(ETH_P_IP);

		out->type = XEN_NETIF_EXTRA_TYPE_HASH;
		out->u.hash.algorithm = XEN_NETIF_CTRL_HASH_ALGORITHM_TOEPLITZ;
		if (skb->l4_hash)
			out->u.hash.type = v4 ? XNB_HASH_TYPE_IPV4_TCP :
						XNB_HASH_TYPE_IPV6_TCP;
		else
			out->u.hash.type = v4 ? XNB_HASH_TYPE_IPV4 :
						XNB_HASH_TYPE_IPV6;
		memcpy(out->u.hash.value, &hash, sizeof(hash));
	}
	if (more)
		out->flags = XEN_NETIF_EXTRA_FLAG_MORE;
}

/* Put one packet into the guest's buffers; its responses are written. */
static void xnb_rx_one(struct xnb_queue *q, struct xnb_rx_build *b,
		       struct sk_buff *skb, unsigned int ex, unsigned int *nops)
{
	struct xnb_rx_slot plan[XNB_RX_MAX_SLOTS];
	unsigned int n, k, d = 0;

	n = xnb_rx_plan(skb->len, hweight32(ex), plan, ARRAY_SIZE(plan));
	b->skb = skb;
	b->first_rsp = q->rx.rsp_prod_pvt;
	for (k = 0; k < n; k++) {
		struct xen_netif_rx_request req;
		struct xen_netif_rx_response *rsp;
		struct xgp_back_entry *e;
		u16 flags = 0;

		RING_COPY_REQUEST(&q->rx, q->rx.req_cons, &req);
		q->rx.req_cons++;
		if (plan[k].extra) {
			xnb_rx_extra(skb, ex, plan[k].extra,
				     (struct xen_netif_extra_info *)
				     RING_GET_RESPONSE(&q->rx,
						       q->rx.rsp_prod_pvt));
			q->rx.rsp_prod_pvt++;
			continue;
		}
		if (k == 0) {
			if (skb->ip_summed == CHECKSUM_PARTIAL)
				flags |= XEN_NETRXF_csum_blank |
					 XEN_NETRXF_data_validated;
			else if (skb->ip_summed == CHECKSUM_UNNECESSARY)
				flags |= XEN_NETRXF_data_validated;
			if (ex)
				flags |= XEN_NETRXF_extra_info;
		}
		if (plan[k].more)
			flags |= XEN_NETRXF_more_data;
		rsp = RING_GET_RESPONSE(&q->rx, q->rx.rsp_prod_pvt);
		q->rx.rsp_prod_pvt++;
		rsp->id = req.id;
		rsp->offset = 0;
		rsp->flags = flags;
		rsp->status = plan[k].len;

		b->rsp_of_slot[d] = k;
		b->op_of_slot[d] = *nops;
		e = xnb_mapped(q, req.gref, true);
		if (e) {
			/* the mapping is the whole 4 KB grant */
			skb_copy_bits(skb, plan[k].off, e->vaddr, plan[k].len);
			xnb_unmapped_put(q, e);
			xnb_count(q, XNB_ST_RX_MEMCPY, plan[k].len);
		} else {
			xnb_rx_gcopy(q, skb, plan[k].off, plan[k].len, req.gref,
				     nops);
			xnb_count(q, XNB_ST_RX_GCOPY, plan[k].len);
		}
		b->nr_ops_of_slot[d] = *nops - b->op_of_slot[d];
		d++;
	}
	b->nr_data = d;
}

/* After the batch's copies: an error status where a copy failed. */
static void xnb_rx_finish(struct xnb_queue *q, struct xnb_rx_build *b,
			  unsigned int ex)
{
	struct sk_buff *skb = b->skb;
	unsigned int d;
	bool bad = false;

	for (d = 0; d < b->nr_data; d++) {
		struct xen_netif_rx_response *rsp;
		RING_IDX i = b->first_rsp + b->rsp_of_slot[d];

		if (xnb_ops_ok(q, b->op_of_slot[d], b->nr_ops_of_slot[d]))
			continue;
		rsp = RING_GET_RESPONSE(&q->rx, i);
		rsp->status = XEN_NETIF_RSP_ERROR;
		bad = true;
	}
	u64_stats_update_begin(&q->stats->syncp);
	if (bad) {
		q->stats->ext[XNB_ST_RX_COPY_ERR]++;
	} else {
		q->stats->rx_packets++;
		q->stats->rx_bytes += skb->len;
		if (ex & XNB_RX_EX_GSO)
			q->stats->ext[XNB_ST_RX_GSO]++;
		if (ex & XNB_RX_EX_HASH)
			q->stats->ext[XNB_ST_RX_HASH]++;
	}
	u64_stats_update_end(&q->stats->syncp);
	if (bad)
		net_warn_ratelimited("%s: a grant copy into domain %u failed: packet answered with an error\n",
				     q->name, q->vif->domid);
	dev_consume_skb_any(skb);
}

/* The extras a packet for the guest carries: XNB_RX_EX_* */
static unsigned int xnb_rx_extras(struct xnb_queue *q, struct sk_buff *skb)
{
	unsigned int ex = 0;

	if (skb_is_gso(skb) &&
	    (skb_shinfo(skb)->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)))
		ex |= XNB_RX_EX_GSO;
	/* hashed by xnb_select_queue() since the frontend set Toeplitz */
	if (skb->sw_hash &&
	    READ_ONCE(q->vif->hash.alg) != XNB_HASH_ALG_NONE)
		ex |= XNB_RX_EX_HASH;
	return ex;
}

/* Queued packets the guest took nothing of for too long are dropped. */
static void xnb_rx_drain(struct xnb_queue *q)
{
	struct sk_buff_head drop;
	unsigned int n;

	__skb_queue_head_init(&drop);
	spin_lock_bh(&q->rx_queue.lock);
	skb_queue_splice_init(&q->rx_queue, &drop);
	q->rx_queued = 0;
	spin_unlock_bh(&q->rx_queue.lock);
	n = skb_queue_len(&drop);
	__skb_queue_purge(&drop);
	xnb_count(q, XNB_ST_RX_DRAINED, n);
	if (n)
		net_info_ratelimited("%s: domain %u posted no receive buffer for %u ms: %u packets dropped\n",
				     q->name, q->vif->domid,
				     READ_ONCE(xnb_rx_drain_ms), n);
	q->rx_last_progress = jiffies;
	xnb_rx_wake(q);
}

/*
 * Move queued packets into the guest's buffers.  Returns false when the
 * frontend is broken (its producer index is impossible).
 */
static bool xnb_rx_work(struct xnb_queue *q)
{
	for (;;) {
		unsigned int nb = 0, nops = 0, i, need = 0, avail;
		struct sk_buff *skb;
		bool notify;

		while (nb < XNB_BATCH_PKTS && nops + XNB_SKB_OPS <= XNB_COPY_OPS) {
			unsigned int ex;

			skb = xnb_rx_peek(q);
			if (!skb)
				break;
			ex = xnb_rx_extras(q, skb);
			need = xnb_rx_slots(skb->len, hweight32(ex));
			if (xnb_rx_slots(skb->len, 0) > XNB_MAX_SLOTS) {
				xnb_rx_dequeue(q, skb);
				xnb_count(q, XNB_ST_RX_TOO_BIG, 1);
				dev_kfree_skb_any(skb);
				need = 0;
				continue;
			}
			if (xnb_req_avail(READ_ONCE(q->rx.sring->req_prod),
					  q->rx.req_cons, XNB_RX_RING_SIZE,
					  &avail)) {
				xnb_ring_fatal(q, "rx", q->rx.sring->req_prod,
					       q->rx.req_cons);
				return false;
			}
			/* requests before the producer that covers them */
			virt_rmb();
			if (avail < need)
				break;
			need = 0;
			xnb_rx_dequeue(q, skb);
			q->rxb[nb].ex = ex;
			xnb_rx_one(q, &q->rxb[nb++], skb, ex, &nops);
		}
		if (nb) {
			xnb_copy_batch(q, nops);
			for (i = 0; i < nb; i++)
				xnb_rx_finish(q, &q->rxb[i], q->rxb[i].ex);
			RING_PUSH_RESPONSES_AND_CHECK_NOTIFY(&q->rx, notify);
			if (notify)
				notify_remote_via_irq(q->rx_irq ?: q->tx_irq);
			q->rx_last_progress = jiffies;
			xnb_rx_wake(q);
		}
		if (nb)
			continue;
		if (!need)
			return true;
		/* waiting for buffers: ask for an event when enough come */
		q->rx.sring->req_event = q->rx.req_cons + need;
		mb(); /* req_event before re-reading the producer */
		if (READ_ONCE(q->rx.sring->req_prod) - q->rx.req_cons >= need)
			continue;
		if (time_after(jiffies, q->rx_last_progress +
			       msecs_to_jiffies(READ_ONCE(xnb_rx_drain_ms)))) {
			xnb_rx_drain(q);
			return true;
		}
		mod_timer(&q->rx_drain, q->rx_last_progress +
			  msecs_to_jiffies(READ_ONCE(xnb_rx_drain_ms)) + 1);
		return true;
	}
}

static void xnb_rx_drain_timer(struct timer_list *t)
{
	struct xnb_queue *q = timer_container_of(q, t, rx_drain);

	napi_schedule(&q->napi);
}

/* ---- guest -> dom0 (the tx ring) ---- */

static void xnb_credit_timer(struct timer_list *t)
{
	struct xnb_queue *q = timer_container_of(q, t, credit_timeout);

	WRITE_ONCE(q->credit_stalled, false);
	napi_schedule(&q->napi);
}

/* May the guest send @len more bytes now?  Else wait for the refill. */
static bool xnb_credit(struct xnb_queue *q, unsigned int len)
{
	unsigned long window = usecs_to_jiffies(q->credit_usec);
	unsigned long max_burst;

	if (!q->credit_bytes)
		return true;
	/* one window may carry the largest packet, or the rate if larger */
	max_burst = max_t(unsigned long, q->credit_bytes, 131072UL);
	if (time_after_eq(jiffies, q->credit_window_start + window)) {
		q->remaining_credit = min(q->remaining_credit +
					  q->credit_bytes, max_burst);
		q->credit_window_start = jiffies;
	}
	if (len <= q->remaining_credit) {
		q->remaining_credit -= len;
		return true;
	}
	WRITE_ONCE(q->credit_stalled, true);
	mod_timer(&q->credit_timeout, q->credit_window_start + window);
	xnb_count(q, XNB_ST_TX_CREDIT, 1);
	return false;
}

/*
 * Copy @len bytes from (gref, goff) to the skb at @dpos: memcpy from a
 * static grant's mapping, else grant copy ops split at every
 * destination page.
 */
static void xnb_tx_fill(struct xnb_queue *q, struct sk_buff *skb,
			unsigned int dpos, u32 gref, unsigned int goff,
			unsigned int len, unsigned int *nops)
{
	struct xgp_back_entry *e = xnb_mapped(q, gref, false);
	unsigned int lin = skb_headlen(skb);

	xnb_count(q, e ? XNB_ST_TX_MEMCPY : XNB_ST_TX_GCOPY, len);
	while (len) {
		unsigned int seg;
		void *dst;

		if (dpos < lin) {
			dst = skb->data + dpos;
			seg = lin - dpos;
		} else {
			unsigned int f = (dpos - lin) / PAGE_SIZE;
			unsigned int foff = (dpos - lin) % PAGE_SIZE;
			skb_frag_t *frag = &skb_shinfo(skb)->frags[f];

			dst = page_address(skb_frag_page(frag)) + foff;
			seg = skb_frag_size(frag) - foff;
		}
		seg = min3(seg, len, (unsigned int)(XEN_PAGE_SIZE -
				  ((unsigned long)dst & ~XEN_PAGE_MASK)));
		if (e) {
			memcpy(dst, e->vaddr + goff, seg);
		} else {
			struct gnttab_copy *op = &q->copy[(*nops)++];

			memset(op, 0, sizeof(*op));
			op->flags = GNTCOPY_source_gref;
			op->source.u.ref = gref;
			op->source.domid = q->vif->domid;
			op->source.offset = goff;
			op->dest.u.gmfn = virt_to_gfn(dst);
			op->dest.domid = DOMID_SELF;
			op->dest.offset = (unsigned long)dst & ~XEN_PAGE_MASK;
			op->len = seg;
		}
		dpos += seg;
		goff += seg;
		len -= seg;
	}
	xnb_unmapped_put(q, e);
}

/* Allocate the packet's skb and start its copies. */
static int xnb_tx_build(struct xnb_queue *q, struct xnb_tx_build *b,
			unsigned int *nops)
{
	const struct xnb_tx_pkt *pkt = &b->pkt;
	unsigned int lin = min(pkt->len, XNB_TX_LINEAR);
	unsigned int rest = pkt->len - lin, i, f = 0, dpos;
	struct sk_buff *skb;

	skb = napi_alloc_skb(&q->napi, lin);
	if (!skb)
		return -ENOMEM;
	skb_put(skb, lin);
	while (rest) {
		unsigned int sz = min_t(unsigned int, rest, PAGE_SIZE);
		struct page *page = alloc_page(GFP_ATOMIC | __GFP_NOWARN);

		if (!page || f >= MAX_SKB_FRAGS) {
			if (page)
				__free_page(page);
			kfree_skb(skb);
			return -ENOMEM;
		}
		skb_fill_page_desc(skb, f++, page, 0, sz);
		skb->len += sz;
		skb->data_len += sz;
		skb->truesize += PAGE_SIZE;
		rest -= sz;
	}
	b->skb = skb;
	b->first_op = *nops;
	xnb_tx_fill(q, skb, 0, q->slots[0].gref, q->slots[0].offset,
		    pkt->first_len, nops);
	dpos = pkt->first_len;
	for (i = 1; i < pkt->nr_slots; i++) {
		if (pkt->extra_slot & (1U << i))
			continue;
		xnb_tx_fill(q, skb, dpos, q->slots[i].gref,
			    q->slots[i].offset, q->slots[i].size, nops);
		dpos += q->slots[i].size;
	}
	b->nr_ops = *nops - b->first_op;
	return 0;
}

/* After the copies: hand the packet to the stack.  0 or -errno. */
static int xnb_tx_deliver(struct xnb_queue *q, struct xnb_tx_build *b)
{
	struct sk_buff *skb = b->skb;
	const struct xnb_tx_pkt *pkt = &b->pkt;
	bool recalc = false;
	unsigned int len = skb->len;

	skb->dev = q->vif->dev;
	skb->protocol = eth_type_trans(skb, skb->dev);
	skb_reset_network_header(skb);
	if (pkt->flags & XNB_TXF_CSUM_BLANK)
		skb->ip_summed = CHECKSUM_PARTIAL;
	else if (pkt->flags & XNB_TXF_DATA_VALIDATED)
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	if (pkt->gso_size) {
		skb_shinfo(skb)->gso_size = pkt->gso_size;
		skb_shinfo(skb)->gso_type =
			(pkt->gso_type == XNB_GSO_TYPE_TCPV4 ?
			 SKB_GSO_TCPV4 : SKB_GSO_TCPV6) | SKB_GSO_DODGY;
		skb_shinfo(skb)->gso_segs = 0;
		if (skb->ip_summed != CHECKSUM_PARTIAL) {
			skb->ip_summed = CHECKSUM_PARTIAL;
			recalc = true;
		}
	}
	if (skb->ip_summed == CHECKSUM_PARTIAL &&
	    skb_checksum_setup(skb, recalc))
		return -EPROTO;
	skb_probe_transport_header(skb);
	if (pkt->has_hash)
		skb_set_hash(skb, pkt->hash,
			     pkt->hash_type == XNB_HASH_TYPE_IPV4_TCP ||
			     pkt->hash_type == XNB_HASH_TYPE_IPV6_TCP ?
			     PKT_HASH_TYPE_L4 : PKT_HASH_TYPE_L3);
	skb_record_rx_queue(skb, q->index);
	b->skb = NULL;
	u64_stats_update_begin(&q->stats->syncp);
	q->stats->tx_packets++;
	q->stats->tx_bytes += len;
	if (pkt->gso_size)
		q->stats->ext[XNB_ST_TX_GSO]++;
	if (pkt->has_hash)
		q->stats->ext[XNB_ST_TX_HASH]++;
	u64_stats_update_end(&q->stats->syncp);
	napi_gro_receive(&q->napi, skb);
	return 0;
}

static void xnb_tx_respond(struct xnb_queue *q, struct xnb_tx_build *b,
			   s16 status)
{
	unsigned int i;

	for (i = 0; i < b->pkt.nr_slots; i++) {
		struct xen_netif_tx_response *rsp;

		rsp = RING_GET_RESPONSE(&q->tx, q->tx.rsp_prod_pvt);
		q->tx.rsp_prod_pvt++;
		if (b->pkt.extra_slot & (1U << i)) {
			rsp->status = XEN_NETIF_RSP_NULL;
			continue;
		}
		rsp->id = b->ids[i];
		rsp->status = status;
	}
}

/* Finish a batch: deliver, answer, notify. */
static void xnb_tx_complete(struct xnb_queue *q, unsigned int nb)
{
	unsigned int i;
	bool notify;

	for (i = 0; i < nb; i++) {
		struct xnb_tx_build *b = &q->txb[i];
		s16 status = XEN_NETIF_RSP_OKAY;

		if (b->drop) {
			status = XEN_NETIF_RSP_ERROR;
		} else if (!xnb_ops_ok(q, b->first_op, b->nr_ops)) {
			net_warn_ratelimited("%s: a grant copy from domain %u failed: packet answered with an error\n",
					     q->name, q->vif->domid);
			xnb_count(q, XNB_ST_TX_COPY_ERR, 1);
			status = XEN_NETIF_RSP_ERROR;
		} else if (xnb_tx_deliver(q, b)) {
			xnb_count(q, XNB_ST_TX_DROP, 1);
			status = XEN_NETIF_RSP_ERROR;
		}
		if (b->skb) {
			kfree_skb(b->skb);
			b->skb = NULL;
		}
		xnb_tx_respond(q, b, status);
	}
	RING_PUSH_RESPONSES_AND_CHECK_NOTIFY(&q->tx, notify);
	if (notify)
		notify_remote_via_irq(q->tx_irq);
}

/* Take the next packet off the tx ring.  1: taken, 0: none, -1: broken. */
static int xnb_tx_take(struct xnb_queue *q, struct xnb_tx_build *b,
		       unsigned int *nops)
{
	unsigned int avail, n, i;
	enum xnb_tx_verdict v;

	if (xnb_req_avail(READ_ONCE(q->tx.sring->req_prod), q->tx.req_cons,
			  XNB_TX_RING_SIZE, &avail)) {
		xnb_ring_fatal(q, "tx", q->tx.sring->req_prod, q->tx.req_cons);
		return -1;
	}
	virt_rmb(); /* requests before the producer that covers them */
	if (!avail)
		return 0;
	n = min_t(unsigned int, avail, XNB_PARSE_SLOTS);
	for (i = 0; i < n; i++)
		RING_COPY_REQUEST(&q->tx, q->tx.req_cons + i,
				  (struct xen_netif_tx_request *)&q->slots[i]);
	v = xnb_tx_parse(q->slots, n, XNB_MAX_SLOTS, XNB_FATAL_SLOTS, &b->pkt);
	if (v == XNB_TX_FATAL) {
		xnb_fatal(q->vif, "%s: tx request %u: %s", q->name,
			  q->tx.req_cons, b->pkt.why);
		return -1;
	}
	if (!xnb_credit(q, b->pkt.len))
		return 0;
	for (i = 0; i < b->pkt.nr_slots; i++)
		b->ids[i] = q->slots[i].id;
	q->tx.req_cons += b->pkt.nr_slots;
	b->skb = NULL;
	b->nr_ops = 0;
	b->drop = v == XNB_TX_DROP;
	if (b->drop) {
		net_warn_ratelimited("%s: domain %u sent a malformed packet (%s): dropped\n",
				     q->name, q->vif->domid, b->pkt.why);
		xnb_count(q, XNB_ST_TX_DROP, 1);
		return 1;
	}
	if (xnb_tx_build(q, b, nops))
		b->drop = true;
	return 1;
}

/* Returns packets taken, or -1 when the frontend is broken. */
static int xnb_tx_work(struct xnb_queue *q, int budget)
{
	int done = 0;

	while (done < budget && !READ_ONCE(q->credit_stalled)) {
		unsigned int nb = 0, nops = 0;
		int r = 1;

		while (nb < XNB_BATCH_PKTS && done + nb < budget &&
		       nops + XNB_SKB_OPS <= XNB_COPY_OPS) {
			r = xnb_tx_take(q, &q->txb[nb], &nops);
			if (r <= 0)
				break;
			nb++;
		}
		if (nb) {
			xnb_copy_batch(q, nops);
			xnb_tx_complete(q, nb);
		}
		done += nb;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
	}
	return done;
}

/* ---- the poll and the interrupts ---- */

/*
 * The irq to EOI is the one the handler saw: an event pending on the
 * frontend's port (a rebound backend, a restored guest) is delivered as
 * soon as the irq is bound, before q->tx_irq / q->rx_irq are set.
 */
static void xnb_eoi(struct xnb_queue *q)
{
	if (test_and_clear_bit(XNB_EOI_TX, &q->eoi_pending))
		xen_irq_lateeoi(READ_ONCE(q->eoi_irq[XNB_EOI_TX]), 0);
	if (test_and_clear_bit(XNB_EOI_RX, &q->eoi_pending))
		xen_irq_lateeoi(READ_ONCE(q->eoi_irq[XNB_EOI_RX]), 0);
}

int xnb_poll(struct napi_struct *napi, int budget)
{
	struct xnb_queue *q = container_of(napi, struct xnb_queue, napi);
	int work = 0;
	int more;

	if (!READ_ONCE(q->vif->broken) && xnb_rx_work(q))
		work = xnb_tx_work(q, budget);
	if (work < 0 || READ_ONCE(q->vif->broken)) {
		napi_complete(napi);
		xnb_eoi(q);
		return 0;
	}
	if (work >= budget)
		return budget;
	if (!napi_complete_done(napi, work))
		return work;
	xnb_eoi(q);
	if (!READ_ONCE(q->credit_stalled)) {
		RING_FINAL_CHECK_FOR_REQUESTS(&q->tx, more);
		if (more)
			napi_schedule(napi);
	}
	return work;
}

static void xnb_event(struct xnb_queue *q, unsigned int bit,
		      unsigned int irq, bool work)
{
	if (!work || READ_ONCE(q->vif->broken)) {
		xen_irq_lateeoi(irq, XEN_EOI_FLAG_SPURIOUS);
		return;
	}
	WRITE_ONCE(q->eoi_irq[bit], irq);
	/* the irq before the bit that says it needs its EOI */
	smp_mb__before_atomic();
	set_bit(bit, &q->eoi_pending);
	napi_schedule(&q->napi);
}

static bool xnb_tx_pending(struct xnb_queue *q)
{
	return q->tx.sring && RING_HAS_UNCONSUMED_REQUESTS(&q->tx);
}

static bool xnb_rx_pending(struct xnb_queue *q)
{
	return !skb_queue_empty_lockless(&q->rx_queue);
}

irqreturn_t xnb_tx_interrupt(int irq, void *dev_id)
{
	struct xnb_queue *q = dev_id;

	xnb_event(q, XNB_EOI_TX, irq, xnb_tx_pending(q));
	return IRQ_HANDLED;
}

irqreturn_t xnb_rx_interrupt(int irq, void *dev_id)
{
	struct xnb_queue *q = dev_id;

	xnb_event(q, XNB_EOI_RX, irq, xnb_rx_pending(q));
	return IRQ_HANDLED;
}

irqreturn_t xnb_interrupt(int irq, void *dev_id)
{
	struct xnb_queue *q = dev_id;

	xnb_event(q, XNB_EOI_TX, irq, xnb_tx_pending(q) || xnb_rx_pending(q));
	return IRQ_HANDLED;
}

void xnb_queue_init_io(struct xnb_queue *q)
{
	skb_queue_head_init(&q->rx_queue);
	q->rx_queued = 0;
	q->rx_last_progress = jiffies;
	timer_setup(&q->rx_drain, xnb_rx_drain_timer, 0);
	timer_setup(&q->credit_timeout, xnb_credit_timer, 0);
	netif_napi_add(q->vif->dev, &q->napi, xnb_poll);
	napi_enable(&q->napi);
	q->napi_added = true;
}

void xnb_queue_stop_io(struct xnb_queue *q)
{
	if (q->tx_irq)
		unbind_from_irqhandler(q->tx_irq, q);
	if (q->rx_irq)
		unbind_from_irqhandler(q->rx_irq, q);
	q->tx_irq = 0;
	q->rx_irq = 0;
	if (!q->napi_added)
		return;
	napi_disable(&q->napi);
	timer_delete_sync(&q->rx_drain);
	timer_delete_sync(&q->credit_timeout);
	netif_napi_del(&q->napi);
	q->napi_added = false;
	skb_queue_purge(&q->rx_queue);
	q->rx_queued = 0;
}

/* The "rate" node: "<bytes>,<usec>" per period; absent: no limit. */
void xnb_read_rate(struct xnb_vif *vif)
{
	unsigned long bytes = 0, usec = 0;
	unsigned int i;
	char *s;

	s = xenbus_read(XBT_NIL, vif->xbdev->nodename, "rate", NULL);
	if (!IS_ERR(s)) {
		if (sscanf(s, "%lu,%lu", &bytes, &usec) != 2 || !usec ||
		    usec > 10UL * USEC_PER_SEC) {
			netdev_warn(vif->dev, "ignoring rate \"%s\": want <bytes>,<usec> with usec in 1 - 10000000\n",
				    s);
			bytes = 0;
			usec = 0;
		}
		kfree(s);
	}
	for (i = 0; vif->queues && i < vif->nr_queues; i++) {
		struct xnb_queue *q = &vif->queues[i];

		q->credit_usec = usec;
		q->remaining_credit = bytes;
		q->credit_window_start = jiffies;
		WRITE_ONCE(q->credit_bytes, bytes);
	}
	if (bytes)
		netdev_info(vif->dev, "rate limit %lu bytes per %lu us\n",
			    bytes, usec);
}
