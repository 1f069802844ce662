// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * xen-netfront-pgnt's data path.
 *
 * Transmit: a packet is copied densely into 4 KB slots of the queue's tx
 * pool (granted read-only to the backend once, when the pool grew) and
 * the skb is freed at once; a tx response gives its slot back.  Receive:
 * each rx request id owns one slot of the rx pool for the whole
 * connection; the backend copies a packet into the slots, the poll copies
 * it out into a fresh skb and posts the same slots again.  No page of the
 * stack is ever granted, so nothing the backend does can touch memory
 * the guest uses for anything else, and nothing waits for a revoke on the
 * data path.
 *
 * The backend is not trusted: each response is copied off the ring once
 * and validated (xnf_core.c) before it is acted on, the response producer
 * is bounded by what was posted, and the event channel is EOIed only when
 * the poll has nothing left to do.  A violation makes the device dead
 * (xnf_broken): carrier off, no more traffic, the event channel masked.
 */
#include "netfront.h"

static_assert(XEN_NETTXF_csum_blank == XNF_TXF_CSUM_BLANK);
static_assert(XEN_NETTXF_data_validated == XNF_TXF_DATA_VALIDATED);
static_assert(XEN_NETTXF_more_data == XNF_TXF_MORE_DATA);
static_assert(XEN_NETTXF_extra_info == XNF_TXF_EXTRA_INFO);
static_assert(XEN_NETRXF_data_validated == XNF_RXF_DATA_VALIDATED);
static_assert(XEN_NETRXF_csum_blank == XNF_RXF_CSUM_BLANK);
static_assert(XEN_NETRXF_more_data == XNF_RXF_MORE_DATA);
static_assert(XEN_NETRXF_extra_info == XNF_RXF_EXTRA_INFO);
static_assert(XNF_EXTRA_TYPE_GSO == XEN_NETIF_EXTRA_TYPE_GSO);
static_assert(XNF_EXTRA_FLAG_MORE == XEN_NETIF_EXTRA_FLAG_MORE);
static_assert(XNF_GSO_TYPE_TCPV4 == XEN_NETIF_GSO_TYPE_TCPV4);
static_assert(XNF_GSO_TYPE_TCPV6 == XEN_NETIF_GSO_TYPE_TCPV6);
static_assert(XNF_RSP_NULL == XEN_NETIF_RSP_NULL);
static_assert(XNF_RSP_OKAY == XEN_NETIF_RSP_OKAY);
static_assert(XNF_RSP_ERROR == XEN_NETIF_RSP_ERROR);
static_assert(XNF_RSP_DROPPED == XEN_NETIF_RSP_DROPPED);
static_assert(XNF_TX_MAX_DATA <= XNF_MAX_SLOTS);

/**
 * xnf_broken - the backend broke the protocol: kill the device
 * @info: the device
 * @fmt: what it did
 *
 * Said once.  Traffic stops (carrier off, tx queues stopped, every later
 * packet dropped); the polls stop reading the rings and leave the event
 * channels masked.  The rings and pools go at the next teardown.
 */
void xnf_broken(struct xnf_info *info, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	atomic64_inc(&info->protocol_errors);
	if (atomic_xchg(&info->broken, 1))
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	dev_err(&info->xbdev->dev, "backend broke the protocol: %pV; device disabled\n",
		&vaf);
	va_end(args);
	netif_carrier_off(info->netdev);
	netif_tx_stop_all_queues(info->netdev);
}

static bool xnf_is_broken(struct xnf_info *info)
{
	return atomic_read(&info->broken);
}

static void xnf_tx_count(struct xnf_queue *q, enum xnf_stat st, u64 n)
{
	u64_stats_update_begin(&q->stats->tx_syncp);
	q->stats->ext[st] += n;
	u64_stats_update_end(&q->stats->tx_syncp);
}

static void xnf_rx_count(struct xnf_queue *q, enum xnf_stat st, u64 n)
{
	u64_stats_update_begin(&q->stats->rx_syncp);
	q->stats->ext[st] += n;
	u64_stats_update_end(&q->stats->rx_syncp);
}

/* ---- transmit ---- */

static u32 xnf_tx_room(struct xnf_queue *q)
{
	u32 room = xgp_ring_room(q->tx.req_prod_pvt, q->tx.rsp_cons,
				 XNF_TX_RING_SIZE);

	return min_t(u32, room, q->tx_ids.size - q->tx_ids.inflight);
}

static void xnf_tx_drop(struct xnf_queue *q, struct sk_buff *skb,
			enum xnf_stat why)
{
	u64_stats_update_begin(&q->stats->tx_syncp);
	q->stats->tx_dropped++;
	if (why < XNF_ST_NR)
		q->stats->ext[why]++;
	u64_stats_update_end(&q->stats->tx_syncp);
	dev_kfree_skb_any(skb);
}

/* The GSO extra of a packet, or false if the stack sent a kind we never offered. */
static bool xnf_tx_gso(struct sk_buff *skb, struct xen_netif_extra_info *gso)
{
	unsigned int type = skb_shinfo(skb)->gso_type;

	memset(gso, 0, sizeof(*gso));
	gso->type = XEN_NETIF_EXTRA_TYPE_GSO;
	gso->u.gso.size = skb_shinfo(skb)->gso_size;
	if (type & SKB_GSO_TCPV4)
		gso->u.gso.type = XEN_NETIF_GSO_TYPE_TCPV4;
	else if (type & SKB_GSO_TCPV6)
		gso->u.gso.type = XEN_NETIF_GSO_TYPE_TCPV6;
	else
		return false;
	return gso->u.gso.size != 0;
}

netdev_tx_t xnf_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct xnf_info *info = netdev_priv(dev);
	struct xgp_slot *slots[XNF_TX_MAX_DATA];
	struct xen_netif_extra_info gso;
	unsigned int qi = skb_get_queue_mapping(skb);
	struct netdev_queue *txq = netdev_get_tx_queue(dev, qi);
	struct xnf_tx_plan plan;
	struct xnf_queue *q;
	unsigned long flags;
	bool is_gso, notify;
	u16 csum = 0;
	unsigned int i;

	if (!info->live || qi >= info->nr_queues || xnf_is_broken(info)) {
		dev_kfree_skb_any(skb);
		dev_core_stats_tx_dropped_inc(dev);
		return NETDEV_TX_OK;
	}
	q = &info->queues[qi];
	if (skb->len < ETH_HLEN || skb->len > XNF_MAX_TX_SIZE) {
		net_warn_ratelimited("%s: %u-byte frame: the wire carries %u to %u\n",
				     dev->name, skb->len, ETH_HLEN,
				     XNF_MAX_TX_SIZE);
		xnf_tx_drop(q, skb, XNF_ST_TX_TOO_BIG);
		return NETDEV_TX_OK;
	}
	is_gso = skb_is_gso(skb);
	if (is_gso && !xnf_tx_gso(skb, &gso)) {
		xnf_tx_drop(q, skb, XNF_ST_NR);
		return NETDEV_TX_OK;
	}
	if (xnf_tx_plan(skb->len, DIV_ROUND_UP(skb->len, XGP_GRANT_SIZE),
			is_gso, true, &plan)) {
		xnf_tx_drop(q, skb, XNF_ST_TX_TOO_BIG);
		return NETDEV_TX_OK;
	}
	if (skb->ip_summed == CHECKSUM_PARTIAL)
		csum = XEN_NETTXF_csum_blank | XEN_NETTXF_data_validated;
	else if (skb->ip_summed == CHECKSUM_UNNECESSARY)
		csum = XEN_NETTXF_data_validated;

	/* Slots first (the pool has its own lock), then the copy, unlocked. */
	if (!xgp_front_get_bulk(q->tx_pool, slots, plan.nr_slots, 0)) {
		/*
		 * Every outstanding request holds one slot and the pool has
		 * one per id, so this is the ring being full: stop, unless a
		 * completion freed room meanwhile.
		 */
		xnf_tx_count(q, XNF_ST_TX_BUSY, 1);
		spin_lock_irqsave(&q->tx_lock, flags);
		netif_tx_stop_queue(txq);
		if (xnf_tx_room(q) >= XNF_TX_MAX_RING)
			netif_tx_wake_queue(txq);
		spin_unlock_irqrestore(&q->tx_lock, flags);
		return NETDEV_TX_BUSY;
	}
	for (i = 0; i < plan.nr_slots; i++) {
		unsigned int off = i * XGP_GRANT_SIZE;
		unsigned int n = min_t(unsigned int, skb->len - off,
				       XGP_GRANT_SIZE);

		if (skb_copy_bits(skb, off, slots[i]->vaddr, n))
			break;
	}
	if (i < plan.nr_slots) {
		xgp_front_put_bulk(q->tx_pool, slots, plan.nr_slots);
		xnf_tx_drop(q, skb, XNF_ST_NR);
		return NETDEV_TX_OK;
	}

	spin_lock_irqsave(&q->tx_lock, flags);
	if (xnf_tx_room(q) < plan.nr_slots + plan.nr_extras) {
		spin_unlock_irqrestore(&q->tx_lock, flags);
		xgp_front_put_bulk(q->tx_pool, slots, plan.nr_slots);
		xnf_tx_count(q, XNF_ST_TX_BUSY, 1);
		netif_tx_stop_queue(txq);
		return NETDEV_TX_BUSY;
	}
	for (i = 0; i < plan.nr_slots; i++) {
		struct xen_netif_tx_request *req;
		u16 size, fl;
		int id;

		/* cannot fail: the room above counts free ids */
		id = xgp_id_get(&q->tx_ids, 0, (unsigned long)slots[i], 0);
		xnf_tx_slot_sizes(&plan, i, 0, &size, &fl);
		req = RING_GET_REQUEST(&q->tx, q->tx.req_prod_pvt++);
		req->gref = slots[i]->gref;
		req->offset = 0;
		req->size = size;
		req->flags = fl | (i ? 0 : csum);
		req->id = id;
		if (!i && plan.nr_extras) {
			struct xen_netif_extra_info *ex;

			ex = (struct xen_netif_extra_info *)
				RING_GET_REQUEST(&q->tx, q->tx.req_prod_pvt++);
			*ex = gso;
		}
	}
	RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&q->tx, notify);
	if (notify)
		notify_remote_via_irq(q->tx_irq ?: q->irq);

	u64_stats_update_begin(&q->stats->tx_syncp);
	q->stats->tx_packets++;
	q->stats->tx_bytes += skb->len;
	q->stats->ext[XNF_ST_TX_COPIED] += skb->len;
	q->stats->ext[XNF_ST_TX_SLOTS] += plan.nr_slots;
	if (is_gso)
		q->stats->ext[XNF_ST_TX_GSO]++;
	u64_stats_update_end(&q->stats->tx_syncp);

	/* Stopped under the lock the completions wake it under. */
	if (xnf_tx_room(q) < XNF_TX_MAX_RING)
		netif_tx_stop_queue(txq);
	spin_unlock_irqrestore(&q->tx_lock, flags);

	skb_tx_timestamp(skb);
	dev_consume_skb_any(skb);
	return NETDEV_TX_OK;
}

/* Tx responses: give the slots back, wake the queue.  Return: more to do. */
static bool xnf_tx_complete(struct xnf_queue *q)
{
	struct xnf_info *info = q->info;
	struct xgp_slot *done[32];
	struct netdev_queue *txq = netdev_get_tx_queue(info->netdev, q->index);
	unsigned int nr_done = 0, errors = 0, dropped = 0;
	unsigned long flags;
	RING_IDX cons, prod;
	bool more = false;
	u32 nr;

	spin_lock_irqsave(&q->tx_lock, flags);
	prod = READ_ONCE(q->tx.sring->rsp_prod);
	virt_rmb();	/* the responses up to prod, after prod itself */
	if (xgp_rsp_avail(prod, q->tx.rsp_cons, q->tx.req_prod_pvt,
			  XNF_TX_RING_SIZE, &nr)) {
		spin_unlock_irqrestore(&q->tx_lock, flags);
		xnf_broken(info, "queue %u: tx response producer %u, consumer %u, requests %u",
			   q->index, prod, q->tx.rsp_cons, q->tx.req_prod_pvt);
		return false;
	}
	for (cons = q->tx.rsp_cons; cons != prod; cons++) {
		struct xen_netif_tx_response rsp;
		enum xnf_tx_verdict v;
		unsigned long cookie;

		RING_COPY_RESPONSE(&q->tx, cons, &rsp);
		v = xnf_tx_rsp_check(&q->tx_ids, rsp.id, rsp.status, &cookie);
		if (v == XNF_TX_NULL)
			continue;
		if (v != XNF_TX_OK && v != XNF_TX_ERROR && v != XNF_TX_DROPPED) {
			q->tx.rsp_cons = cons;
			spin_unlock_irqrestore(&q->tx_lock, flags);
			xgp_front_put_bulk(q->tx_pool, done, nr_done);
			xnf_broken(info, "queue %u: tx response id %u status %d: %s",
				   q->index, rsp.id, rsp.status,
				   xnf_tx_verdict_str(v));
			return false;
		}
		errors += v == XNF_TX_ERROR;
		dropped += v == XNF_TX_DROPPED;
		done[nr_done++] = (struct xgp_slot *)cookie;
		if (nr_done == ARRAY_SIZE(done)) {
			xgp_front_put_bulk(q->tx_pool, done, nr_done);
			nr_done = 0;
		}
	}
	q->tx.rsp_cons = cons;
	RING_FINAL_CHECK_FOR_RESPONSES(&q->tx, more);
	if (netif_tx_queue_stopped(txq) && !xnf_is_broken(info) &&
	    xnf_tx_room(q) >= XNF_TX_MAX_RING)
		netif_tx_wake_queue(txq);
	spin_unlock_irqrestore(&q->tx_lock, flags);
	xgp_front_put_bulk(q->tx_pool, done, nr_done);
	if (errors || dropped) {
		u64_stats_update_begin(&q->stats->tx_syncp);
		q->stats->ext[XNF_ST_TX_RSP_ERROR] += errors;
		q->stats->ext[XNF_ST_TX_RSP_DROPPED] += dropped;
		q->stats->tx_dropped += errors + dropped;
		u64_stats_update_end(&q->stats->tx_syncp);
	}
	return more;
}

/*
 * Give back the slots of tx requests still outstanding at a teardown
 * (the backend is gone or closed; the pool's destroy checks each grant).
 */
void xnf_tx_release_all(struct xnf_queue *q)
{
	unsigned int id;

	if (!q->tx_ids.ent)
		return;
	for (id = 0; id < q->tx_ids.size; id++) {
		unsigned long cookie;
		u8 aux;

		if (q->tx_ids.ent[id].state != XGP_ID_INFLIGHT)
			continue;
		xgp_id_complete(&q->tx_ids, id, &cookie, &aux);
		xgp_front_put(q->tx_pool, (struct xgp_slot *)cookie);
	}
}

/* ---- receive ---- */

/* One data slot of a received packet: where its bytes are. */
struct xnf_rx_seg {
	const u8 *va;
	unsigned int len;
};

struct xnf_rx_pkt {
	struct xnf_rx_seg seg[XNF_RX_MAX_SLOTS];
	unsigned int nr_segs;
	unsigned int len;
	u16 flags;
	struct xen_netif_extra_info gso;
	bool has_gso;
	bool has_hash;
	bool hash_l4;
	u32 hash;
};

/* Copy @len bytes of the packet, from segment *@si offset *@so on. */
static void xnf_rx_copy(const struct xnf_rx_pkt *pkt, unsigned int *si,
			unsigned int *so, u8 *dst, unsigned int len)
{
	while (len) {
		const struct xnf_rx_seg *s = &pkt->seg[*si];
		unsigned int n = min(len, s->len - *so);

		memcpy(dst, s->va + *so, n);	/* n may be 0: an empty slot */
		dst += n;
		len -= n;
		*so += n;
		if (*so == s->len) {
			(*si)++;
			*so = 0;
		}
	}
}

/* Build the skb of a checked packet; NULL (and counted) if it cannot be. */
static struct sk_buff *xnf_rx_skb(struct xnf_queue *q,
				  const struct xnf_rx_pkt *pkt)
{
	unsigned int head = min(pkt->len, XNF_RX_COPYBREAK);
	unsigned int left = pkt->len - head, si = 0, so = 0;
	struct sk_buff *skb;

	if (DIV_ROUND_UP(left, PAGE_SIZE) > MAX_SKB_FRAGS) {
		xnf_rx_count(q, XNF_ST_RX_BAD_PKT, 1);
		return NULL;
	}
	skb = napi_alloc_skb(&q->napi, head);
	if (!skb) {
		xnf_rx_count(q, XNF_ST_RX_NOMEM, 1);
		return NULL;
	}
	xnf_rx_copy(pkt, &si, &so, skb_put(skb, head), head);
	while (left) {
		unsigned int n = min_t(unsigned int, left, PAGE_SIZE);
		struct page *page = alloc_page(GFP_ATOMIC | __GFP_NOWARN);

		if (!page) {
			kfree_skb(skb);
			xnf_rx_count(q, XNF_ST_RX_NOMEM, 1);
			return NULL;
		}
		xnf_rx_copy(pkt, &si, &so, page_address(page), n);
		skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, page, 0, n,
				PAGE_SIZE);
		left -= n;
	}
	return skb;
}

/* Hand a built packet to the stack, with its checksum and GSO state. */
static void xnf_rx_deliver(struct xnf_queue *q, struct sk_buff *skb,
			   const struct xnf_rx_pkt *pkt)
{
	struct net_device *dev = q->info->netdev;
	unsigned int len = skb->len;

	if (pkt->has_gso) {
		skb_shinfo(skb)->gso_size = pkt->gso.u.gso.size;
		skb_shinfo(skb)->gso_type = SKB_GSO_DODGY |
			(pkt->gso.u.gso.type == XEN_NETIF_GSO_TYPE_TCPV4 ?
			 SKB_GSO_TCPV4 : SKB_GSO_TCPV6);
		skb_shinfo(skb)->gso_segs = 0;
	}
	skb->protocol = eth_type_trans(skb, dev);
	skb_reset_network_header(skb);
	if (pkt->has_hash)
		skb_set_hash(skb, pkt->hash, pkt->hash_l4 ? PKT_HASH_TYPE_L4 :
			     PKT_HASH_TYPE_L3);
	if (pkt->flags & XEN_NETRXF_csum_blank) {
		/* the sender left the checksum to be filled: find its place */
		skb->ip_summed = CHECKSUM_PARTIAL;
		if (skb_checksum_setup(skb, false)) {
			kfree_skb(skb);
			xnf_rx_count(q, XNF_ST_RX_BAD_PKT, 1);
			u64_stats_update_begin(&q->stats->rx_syncp);
			q->stats->rx_errors++;
			u64_stats_update_end(&q->stats->rx_syncp);
			return;
		}
	} else if (pkt->flags & XEN_NETRXF_data_validated) {
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	} else if (pkt->has_gso) {
		/* GSO needs a partial checksum; netback always sets one */
		kfree_skb(skb);
		xnf_rx_count(q, XNF_ST_RX_BAD_PKT, 1);
		return;
	}
	u64_stats_update_begin(&q->stats->rx_syncp);
	q->stats->rx_packets++;
	q->stats->rx_bytes += len;
	q->stats->ext[XNF_ST_RX_COPIED] += pkt->len;
	q->stats->ext[XNF_ST_RX_SLOTS] += pkt->nr_segs;
	if (pkt->has_gso)
		q->stats->ext[XNF_ST_RX_GSO]++;
	if (pkt->flags & XEN_NETRXF_csum_blank)
		q->stats->ext[XNF_ST_RX_CSUM_PARTIAL]++;
	if (pkt->has_hash)
		q->stats->ext[XNF_ST_RX_HASH]++;
	u64_stats_update_end(&q->stats->rx_syncp);
	napi_gro_receive(&q->napi, skb);
}

/*
 * The extra-info slots after a packet's first data slot, from *@i on;
 * *@i ends past them.  Return: false if the backend broke the protocol.
 */
static bool xnf_rx_extras(struct xnf_queue *q, RING_IDX *i, RING_IDX prod,
			  struct xnf_rx_pkt *pkt)
{
	struct xen_netif_extra_info ex;
	enum xnf_extra_verdict ev;
	unsigned int nth = 0;

	do {
		if (*i == prod) {
			xnf_broken(q->info, "queue %u: rx extras end past rsp_prod %u",
				   q->index, prod);
			return false;
		}
		memcpy(&ex, RING_GET_RESPONSE(&q->rx, *i), sizeof(ex));
		ev = xnf_rx_extra_check(ex.type, ex.flags, ex.u.gso.size,
					ex.u.gso.type, nth++);
		if (ev != XNF_EXTRA_OK) {
			xnf_broken(q->info, "queue %u: rx extra %u (type %u flags %#x): %d",
				   q->index, *i, ex.type, ex.flags, ev);
			return false;
		}
		if (ex.type == XEN_NETIF_EXTRA_TYPE_GSO) {
			pkt->gso = ex;
			pkt->has_gso = true;
		} else if (ex.type == XEN_NETIF_EXTRA_TYPE_HASH &&
			   ex.u.hash.algorithm == XNF_HASH_ALG_TOEPLITZ &&
			   ex.u.hash.type <= XNF_HASH_TYPE_IPV6_TCP) {
			/* only steers our stack: any value is harmless */
			pkt->has_hash = true;
			pkt->hash_l4 = ex.u.hash.type ==
				       XNF_HASH_TYPE_IPV4_TCP ||
				       ex.u.hash.type == XNF_HASH_TYPE_IPV6_TCP;
			memcpy(&pkt->hash, ex.u.hash.value, sizeof(pkt->hash));
		}
		(*i)++;
	} while (ex.flags & XEN_NETIF_EXTRA_FLAG_MORE);
	return true;
}

/*
 * Parse the packet whose first response is at @cons (before @prod).
 * Return: the slots it took, 0 if the backend broke the protocol (the
 * device is then dead), with pkt->len 0 if the packet is to be dropped.
 */
static unsigned int xnf_rx_parse(struct xnf_queue *q, RING_IDX cons,
				 RING_IDX prod, struct xnf_rx_pkt *pkt)
{
	bool more, error = false;
	RING_IDX i = cons;

	pkt->nr_segs = 0;
	pkt->len = 0;
	pkt->flags = 0;
	pkt->has_gso = false;
	pkt->has_hash = false;
	do {
		struct xen_netif_rx_response rsp;
		enum xnf_rx_verdict v;

		if (i == prod) {
			xnf_broken(q->info, "queue %u: rx packet at %u ends past rsp_prod %u",
				   q->index, cons, prod);
			return 0;
		}
		RING_COPY_RESPONSE(&q->rx, i, &rsp);
		v = xnf_rx_rsp_check(rsp.id, i & (XNF_RX_RING_SIZE - 1),
				     rsp.offset, rsp.flags, rsp.status,
				     pkt->nr_segs, XNF_RX_MAX_SLOTS);
		if (v != XNF_RX_OK && v != XNF_RX_ERROR) {
			xnf_broken(q->info, "q%u: rx rsp %u id %u off %u flags %#x status %d: %s",
				   q->index, i, rsp.id, rsp.offset, rsp.flags,
				   rsp.status, xnf_rx_verdict_str(v));
			return 0;
		}
		if (v == XNF_RX_ERROR) {
			error = true;
		} else {
			struct xnf_rx_seg *seg = &pkt->seg[pkt->nr_segs];

			seg->va = (const u8 *)q->rx_slot[rsp.id]->vaddr +
				  rsp.offset;
			seg->len = rsp.status;
			pkt->len += rsp.status;
		}
		if (!pkt->nr_segs)
			pkt->flags = rsp.flags;
		pkt->nr_segs++;
		more = rsp.flags & XEN_NETRXF_more_data;
		i++;
		/* the extras follow the first data slot */
		if (pkt->nr_segs == 1 && (rsp.flags & XEN_NETRXF_extra_info) &&
		    !xnf_rx_extras(q, &i, prod, pkt))
			return 0;
	} while (more);

	if (error || pkt->len < ETH_HLEN) {
		xnf_rx_count(q, error ? XNF_ST_RX_RSP_ERROR : XNF_ST_RX_BAD_PKT,
			     1);
		u64_stats_update_begin(&q->stats->rx_syncp);
		q->stats->rx_errors++;
		u64_stats_update_end(&q->stats->rx_syncp);
		pkt->len = 0;
	}
	return i - cons;
}

/* Post every rx slot again: request at index r carries id r % size. */
static void xnf_rx_repost(struct xnf_queue *q, RING_IDX upto)
{
	bool notify;

	while (q->rx.req_prod_pvt != upto) {
		RING_IDX r = q->rx.req_prod_pvt;
		struct xen_netif_rx_request *req = RING_GET_REQUEST(&q->rx, r);
		unsigned int id = r & (XNF_RX_RING_SIZE - 1);

		req->id = id;
		req->gref = q->rx_slot[id]->gref;
		q->rx.req_prod_pvt++;
	}
	RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&q->rx, notify);
	if (notify)
		notify_remote_via_irq(q->irq);
}

/* At connect: the whole rx ring gets requests, one slot each. */
void xnf_rx_post_all(struct xnf_queue *q)
{
	xnf_rx_repost(q, q->rx.rsp_cons + XNF_RX_RING_SIZE);
}

static int xnf_rx(struct xnf_queue *q, int budget, bool *more)
{
	struct xnf_info *info = q->info;
	struct xnf_rx_pkt pkt;
	RING_IDX cons, prod;
	int done = 0;
	u32 nr;

	*more = false;
	prod = READ_ONCE(q->rx.sring->rsp_prod);
	virt_rmb();	/* the responses up to prod, after prod itself */
	if (xgp_rsp_avail(prod, q->rx.rsp_cons, q->rx.req_prod_pvt,
			  XNF_RX_RING_SIZE, &nr)) {
		xnf_broken(info, "queue %u: rx response producer %u, consumer %u, requests %u",
			   q->index, prod, q->rx.rsp_cons, q->rx.req_prod_pvt);
		return 0;
	}
	cons = q->rx.rsp_cons;
	while (cons != prod && done < budget) {
		unsigned int used = xnf_rx_parse(q, cons, prod, &pkt);
		struct sk_buff *skb;

		if (!used)
			return done;
		if (pkt.len) {
			skb = xnf_rx_skb(q, &pkt);
			if (skb) {
				xnf_rx_deliver(q, skb, &pkt);
			} else {
				u64_stats_update_begin(&q->stats->rx_syncp);
				q->stats->rx_dropped++;
				u64_stats_update_end(&q->stats->rx_syncp);
			}
		}
		cons += used;
		done++;
	}
	q->rx.rsp_cons = cons;
	/* the data is copied out: the same slots go back to the backend */
	xnf_rx_repost(q, cons + XNF_RX_RING_SIZE);
	if (cons != prod)
		*more = true;
	else
		RING_FINAL_CHECK_FOR_RESPONSES(&q->rx, *more);
	return done;
}

int xnf_poll(struct napi_struct *napi, int budget)
{
	struct xnf_queue *q = container_of(napi, struct xnf_queue, napi);
	bool more_tx = false, more_rx = false;
	int done = 0;

	if (!xnf_is_broken(q->info))
		more_tx = xnf_tx_complete(q);
	if (!xnf_is_broken(q->info))
		done = xnf_rx(q, budget, &more_rx);
	if (xnf_is_broken(q->info)) {
		/* dead: no EOI, so the backend's events stay masked */
		napi_complete(napi);
		return 0;
	}
	if (done >= budget)
		return budget;
	if (more_tx || more_rx) {
		/* stay scheduled: responses arrived during this poll */
		return budget;
	}
	if (napi_complete_done(napi, done)) {
		if (test_and_clear_bit(XNF_EOI_IRQ, &q->eoi_pending))
			xen_irq_lateeoi(q->irq, 0);
		if (test_and_clear_bit(XNF_EOI_TX_IRQ, &q->eoi_pending))
			xen_irq_lateeoi(q->tx_irq, 0);
	}
	return done;
}

/*
 * An event with responses to handle leaves its EOI to the end of the
 * poll; one with nothing to do counts against the backend (spurious).
 * A dead device EOIs nothing, so the backend's events stay masked.
 */
static irqreturn_t xnf_event(struct xnf_queue *q, int irq, unsigned int bit,
			     bool work)
{
	if (xnf_is_broken(q->info))
		return IRQ_HANDLED;
	if (work) {
		set_bit(bit, &q->eoi_pending);
		napi_schedule(&q->napi);
	} else {
		xen_irq_lateeoi(irq, XEN_EOI_FLAG_SPURIOUS);
	}
	return IRQ_HANDLED;
}

/* One event channel for both rings. */
irqreturn_t xnf_interrupt(int irq, void *dev_id)
{
	struct xnf_queue *q = dev_id;

	return xnf_event(q, irq, XNF_EOI_IRQ,
			 RING_HAS_UNCONSUMED_RESPONSES(&q->rx) ||
			 RING_HAS_UNCONSUMED_RESPONSES(&q->tx));
}

/* Split channels (feature-split-event-channels): the tx ring's. */
irqreturn_t xnf_tx_interrupt(int irq, void *dev_id)
{
	struct xnf_queue *q = dev_id;

	return xnf_event(q, irq, XNF_EOI_TX_IRQ,
			 RING_HAS_UNCONSUMED_RESPONSES(&q->tx));
}

/* Split channels: the rx ring's (xnf_queue.irq). */
irqreturn_t xnf_rx_interrupt(int irq, void *dev_id)
{
	struct xnf_queue *q = dev_id;

	return xnf_event(q, irq, XNF_EOI_IRQ,
			 RING_HAS_UNCONSUMED_RESPONSES(&q->rx));
}
