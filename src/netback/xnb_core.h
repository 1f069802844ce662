/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Pure logic of xen-netback-pgnt: what a frontend's transmit requests
 * may say, checked before any byte is copied.  The frontend is not
 * trusted: every field of every slot is read once, from a private copy
 * of the ring, and judged here.  Builds in the kernel and in userspace
 * (tests/unit); it includes only xgp_port.h and never touches Xen.
 *
 * The wire format is Xen's public io/netif.h.  A packet is its first
 * request (size = the whole packet), then the extra-info slots the first
 * one announces (XEN_NETTXF_extra_info, chained by
 * XEN_NETIF_EXTRA_FLAG_MORE), then one request per further piece while
 * XEN_NETTXF_more_data is set.  The first slot holds what the others do
 * not: first.size minus the sum of their sizes.
 */
#ifndef XNB_CORE_H
#define XNB_CORE_H

#include <xen-pv-suite/xgp_port.h>

#define XNB_TXF_CSUM_BLANK	0x1U
#define XNB_TXF_DATA_VALIDATED	0x2U
#define XNB_TXF_MORE_DATA	0x4U
#define XNB_TXF_EXTRA_INFO	0x8U

#define XNB_EXTRA_TYPE_NONE	0
#define XNB_EXTRA_TYPE_GSO	1
#define XNB_EXTRA_TYPE_MCAST_ADD 2
#define XNB_EXTRA_TYPE_MCAST_DEL 3
#define XNB_EXTRA_TYPE_HASH	4
#define XNB_EXTRA_TYPE_MAX	5
#define XNB_EXTRA_FLAG_MORE	0x1U

#define XNB_GSO_TYPE_TCPV4	1
#define XNB_GSO_TYPE_TCPV6	2

/*
 * The static-grant control messages: in Xen's io/netif.h (4.17), not in
 * the kernel's copy of it.
 */
#define XNB_CTRL_TYPE_GET_GREF_MAPPING_SIZE	8
#define XNB_CTRL_TYPE_ADD_GREF_MAPPING		9
#define XNB_CTRL_TYPE_DEL_GREF_MAPPING		10
#define XNB_GREF_READONLY			0x1U

#define XNB_PAGE		4096U
/* the shortest frame: an Ethernet header */
#define XNB_MIN_FRAME		14U
/* data slots every backend accepts (XEN_NETBK_LEGACY_SLOTS_MAX) */
#define XNB_MAX_SLOTS		18U
/* a frontend asking for more than this many slots is disconnected */
#define XNB_FATAL_SLOTS		20U
/* extra-info slots one packet may carry (one of each type) */
#define XNB_MAX_EXTRAS		(XNB_EXTRA_TYPE_MAX - 1)
/* ring slots xnb_tx_parse() may need to see for one packet */
#define XNB_PARSE_SLOTS		(XNB_FATAL_SLOTS + XNB_MAX_EXTRAS + 1)

/* One ring slot as the frontend wrote it (struct xen_netif_tx_request). */
struct xnb_tx_slot {
	u32 gref;
	u16 offset;
	u16 flags;
	u16 id;
	u16 size;
};

enum xnb_tx_verdict {
	XNB_TX_OK,		/* build the packet */
	XNB_TX_DROP,		/* consume its slots, answer ERROR */
	XNB_TX_FATAL,		/* the frontend is broken: disconnect it */
};

/**
 * struct xnb_tx_pkt - one packet as parsed from the ring
 * @nr_slots: ring slots it takes (data and extras); valid unless FATAL
 * @nr_data: data slots
 * @len: packet length (the first request's size)
 * @first_len: bytes in the first slot
 * @flags: the first request's flags
 * @gso_size: MSS of a GSO packet, 0 if none
 * @gso_type: XNB_GSO_TYPE_* (valid when @gso_size)
 * @extra_slot: ring offset of each slot that is an extra (bitmap)
 * @why: what was wrong (DROP, FATAL), a constant string
 */
struct xnb_tx_pkt {
	unsigned int nr_slots;
	unsigned int nr_data;
	unsigned int len;
	unsigned int first_len;
	u16 flags;
	u16 gso_size;
	u8 gso_type;
	u32 extra_slot;
	const char *why;
};

enum xnb_tx_verdict xnb_tx_parse(const struct xnb_tx_slot *s,
				 unsigned int avail, unsigned int max_slots,
				 unsigned int fatal_slots,
				 struct xnb_tx_pkt *pkt);

/* 4 KB receive slots a packet of @len bytes takes, and a GSO extra */
static inline unsigned int xnb_rx_slots(unsigned int len, bool gso)
{
	return (len + XNB_PAGE - 1) / XNB_PAGE + (gso ? 1U : 0U);
}

/**
 * struct xnb_rx_slot - what one receive slot of a packet carries
 * @extra: the GSO extra info (no data)
 * @off: first byte of the packet in this slot
 * @len: bytes in it
 * @more: XEN_NETRXF_more_data: data slots follow
 */
struct xnb_rx_slot {
	bool extra;
	unsigned int off;
	unsigned int len;
	bool more;
};

unsigned int xnb_rx_plan(unsigned int len, bool gso, struct xnb_rx_slot *s,
			 unsigned int max);

/**
 * xnb_req_avail - requests a frontend has produced and we not consumed
 * @prod: its producer index (untrusted)
 * @cons: our consumer index
 * @size: ring size
 * @nr: set to the count
 *
 * Return: 0, or -EPROTO if the producer claims more than a ring holds.
 */
static inline int xnb_req_avail(u32 prod, u32 cons, u32 size,
				unsigned int *nr)
{
	*nr = prod - cons;
	return *nr > size ? -EPROTO : 0;
}

#endif /* XNB_CORE_H */
