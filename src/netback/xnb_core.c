// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * xen-netback-pgnt's pure logic: the transmit request parser.  See
 * xnb_core.h.
 */
#include "xnb_core.h"

static enum xnb_tx_verdict xnb_tx_bad(struct xnb_tx_pkt *pkt,
				      enum xnb_tx_verdict v, const char *why)
{
	pkt->why = why;
	return v;
}

/* An extra slot: byte 0 type, 1 flags, 2-3 gso.size, 4 gso.type. */
static void xnb_extra_decode(const struct xnb_tx_slot *s, u8 *type, u8 *flags,
			     u16 *gso_size, u8 *gso_type)
{
	u8 raw[sizeof(*s)];

	memcpy(raw, s, sizeof(raw));
	*type = raw[0];
	*flags = raw[1];
	memcpy(gso_size, &raw[2], sizeof(*gso_size));
	*gso_type = raw[4];
}

/*
 * Extra-info slots after the first request.  Sets *next to the slot after
 * them.  DROP or FATAL as the stock backend would.
 */
static enum xnb_tx_verdict xnb_tx_extras(const struct xnb_tx_slot *s,
					 unsigned int avail,
					 struct xnb_tx_pkt *pkt,
					 unsigned int *next)
{
	enum xnb_tx_verdict v = XNB_TX_OK;
	unsigned int i = 1, seen = 0;
	u8 type, flags, gso_type;
	u16 gso_size;

	do {
		if (i >= avail)
			return xnb_tx_bad(pkt, XNB_TX_FATAL,
					  "extra info beyond the producer");
		if (i > XNB_MAX_EXTRAS)
			return xnb_tx_bad(pkt, XNB_TX_FATAL,
					  "too many extra info slots");
		xnb_extra_decode(&s[i], &type, &flags, &gso_size, &gso_type);
		if (type == XNB_EXTRA_TYPE_NONE || type >= XNB_EXTRA_TYPE_MAX)
			return xnb_tx_bad(pkt, XNB_TX_FATAL,
					  "unknown extra info type");
		if (seen & (1U << type))
			return xnb_tx_bad(pkt, XNB_TX_FATAL,
					  "extra info type repeated");
		seen |= 1U << type;
		pkt->extra_slot |= 1U << i;
		if (type == XNB_EXTRA_TYPE_GSO) {
			if (!gso_size)
				return xnb_tx_bad(pkt, XNB_TX_FATAL,
						  "GSO size zero");
			if (gso_type != XNB_GSO_TYPE_TCPV4 &&
			    gso_type != XNB_GSO_TYPE_TCPV6)
				v = xnb_tx_bad(pkt, XNB_TX_DROP,
					       "unknown GSO type");
			pkt->gso_size = gso_size;
			pkt->gso_type = gso_type;
		}
		i++;
	} while (flags & XNB_EXTRA_FLAG_MORE);
	*next = i;
	return v;
}

/**
 * xnb_tx_parse - judge the packet that starts at the ring's consumer
 * @s: private copies of the slots from the consumer on
 * @avail: how many of them the frontend has produced (>= 1)
 * @max_slots: data slots accepted (XNB_MAX_SLOTS); more: DROP
 * @fatal_slots: data slots that make the frontend broken (> @max_slots)
 * @pkt: the result
 *
 * A frontend publishes whole packets: one that ends beyond the producer
 * is broken, as is a slot that crosses its 4 KB grant or an unknown
 * extra.  A packet that is merely unusable (more data in the other
 * slots than the first announces, shorter than an Ethernet header, more
 * than @max_slots slots, an unknown GSO type) is dropped: its slots are
 * consumed and answered with an error.
 *
 * Return: XNB_TX_OK, XNB_TX_DROP or XNB_TX_FATAL (@pkt->why says why).
 */
enum xnb_tx_verdict xnb_tx_parse(const struct xnb_tx_slot *s,
				 unsigned int avail, unsigned int max_slots,
				 unsigned int fatal_slots,
				 struct xnb_tx_pkt *pkt)
{
	enum xnb_tx_verdict v = XNB_TX_OK;
	unsigned int i = 1, rest = 0;
	u16 flags;

	memset(pkt, 0, sizeof(*pkt));
	if (!avail)
		return xnb_tx_bad(pkt, XNB_TX_FATAL, "no request");
	pkt->flags = s[0].flags;
	pkt->len = s[0].size;
	pkt->nr_data = 1;
	if (s[0].flags & XNB_TXF_EXTRA_INFO) {
		v = xnb_tx_extras(s, avail, pkt, &i);
		if (v == XNB_TX_FATAL)
			return v;
	}
	flags = s[0].flags;
	while (flags & XNB_TXF_MORE_DATA) {
		if (i >= avail)
			return xnb_tx_bad(pkt, XNB_TX_FATAL,
					  "packet continues beyond the producer");
		if (pkt->nr_data >= fatal_slots)
			return xnb_tx_bad(pkt, XNB_TX_FATAL,
					  "more slots than any packet takes");
		if (s[i].offset + (u32)s[i].size > XNB_PAGE)
			return xnb_tx_bad(pkt, XNB_TX_FATAL,
					  "slot crosses its 4 KB grant");
		rest += s[i].size;
		flags = s[i].flags;
		pkt->nr_data++;
		i++;
	}
	pkt->nr_slots = i;
	if (v != XNB_TX_OK)
		return v;
	if (rest > pkt->len)
		return xnb_tx_bad(pkt, XNB_TX_DROP,
				  "slots hold more than the packet size");
	pkt->first_len = pkt->len - rest;
	if (s[0].offset + pkt->first_len > XNB_PAGE)
		return xnb_tx_bad(pkt, XNB_TX_FATAL,
				  "first slot crosses its 4 KB grant");
	if (pkt->nr_data > max_slots)
		return xnb_tx_bad(pkt, XNB_TX_DROP, "more slots than allowed");
	if (pkt->len < XNB_MIN_FRAME)
		return xnb_tx_bad(pkt, XNB_TX_DROP,
				  "shorter than an Ethernet header");
	return XNB_TX_OK;
}

/**
 * xnb_rx_plan - lay a packet for the guest out in its receive slots
 * @len: packet length (> 0)
 * @gso: it carries a GSO extra
 * @s: the slots, in ring order
 * @max: room in @s
 *
 * Data is packed densely, 4 KB per slot from offset 0; the GSO extra
 * takes the slot right after the first data slot (netif.h), also when
 * that is the only data slot.
 *
 * Return: slots used (xnb_rx_slots()), or 0 if more than @max.
 */
unsigned int xnb_rx_plan(unsigned int len, bool gso, struct xnb_rx_slot *s,
			 unsigned int max)
{
	unsigned int n = xnb_rx_slots(len, gso), k, off = 0;

	if (!len || n > max)
		return 0;
	for (k = 0; k < n; k++) {
		memset(&s[k], 0, sizeof(s[k]));
		if (gso && k == 1) {
			s[k].extra = true;
			continue;
		}
		s[k].off = off;
		s[k].len = len - off < XNB_PAGE ? len - off : XNB_PAGE;
		off += s[k].len;
		s[k].more = off < len;
	}
	return n;
}
