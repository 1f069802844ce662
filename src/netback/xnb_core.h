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

/* The Toeplitz hash messages (io/netif.h "Control messages") */
#define XNB_CTRL_TYPE_GET_HASH_FLAGS		1
#define XNB_CTRL_TYPE_SET_HASH_FLAGS		2
#define XNB_CTRL_TYPE_SET_HASH_KEY		3
#define XNB_CTRL_TYPE_GET_HASH_MAPPING_SIZE	4
#define XNB_CTRL_TYPE_SET_HASH_MAPPING_SIZE	5
#define XNB_CTRL_TYPE_SET_HASH_MAPPING		6
#define XNB_CTRL_TYPE_SET_HASH_ALGORITHM	7

#define XNB_CTRL_STATUS_SUCCESS			0
#define XNB_CTRL_STATUS_NOT_SUPPORTED		1
#define XNB_CTRL_STATUS_INVALID_PARAMETER	2
#define XNB_CTRL_STATUS_BUFFER_OVERFLOW		3

#define XNB_HASH_ALG_NONE	0
#define XNB_HASH_ALG_TOEPLITZ	1

/* hash types: bit numbers as the HASH extra carries them, then flags */
#define XNB_HASH_TYPE_IPV4	0
#define XNB_HASH_TYPE_IPV4_TCP	1
#define XNB_HASH_TYPE_IPV6	2
#define XNB_HASH_TYPE_IPV6_TCP	3
#define XNB_HASH_IPV4		0x1U	/* 1 << XNB_HASH_TYPE_IPV4 */
#define XNB_HASH_IPV4_TCP	0x2U
#define XNB_HASH_IPV6		0x4U
#define XNB_HASH_IPV6_TCP	0x8U
#define XNB_HASH_FLAGS_ALL	0xfU

/* the stock backend's limits: 40-octet key, 128-entry mapping table */
#define XNB_HASH_KEY_MAX	40U
#define XNB_HASH_MAPPING_MAX	128U

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
 * @has_hash: a hash extra of a known type came with it
 * @hash_type: its XNB_HASH_TYPE_*
 * @hash: its value, as the frontend wrote it (host order)
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
	bool has_hash;
	u8 hash_type;
	u32 hash;
	const char *why;
};

enum xnb_tx_verdict xnb_tx_parse(const struct xnb_tx_slot *s,
				 unsigned int avail, unsigned int max_slots,
				 unsigned int fatal_slots,
				 struct xnb_tx_pkt *pkt);

/* extra-info slots a packet for the guest may carry: GSO and hash */
#define XNB_RX_EXTRAS		2U
/* receive slots of one packet: data (at most XNB_MAX_SLOTS) and extras */
#define XNB_RX_MAX_SLOTS	(XNB_MAX_SLOTS + XNB_RX_EXTRAS)

/* 4 KB receive slots a packet of @len bytes takes, and its extras */
static inline unsigned int xnb_rx_slots(unsigned int len,
					unsigned int nr_extras)
{
	return (len + XNB_PAGE - 1) / XNB_PAGE + nr_extras;
}

/**
 * struct xnb_rx_slot - what one receive slot of a packet carries
 * @extra: an extra-info slot (no data): the packet's @extra-th, from 1
 * @off: first byte of the packet in this slot
 * @len: bytes in it
 * @more: XEN_NETRXF_more_data: data slots follow
 */
struct xnb_rx_slot {
	unsigned int extra;
	unsigned int off;
	unsigned int len;
	bool more;
};

unsigned int xnb_rx_plan(unsigned int len, unsigned int nr_extras,
			 struct xnb_rx_slot *s, unsigned int max);

u32 xnb_toeplitz(const u8 *key, unsigned int keylen, const u8 *buf,
		 unsigned int len);

/**
 * struct xnb_hash - a vif's Toeplitz configuration, as its frontend set it
 * @alg: XNB_HASH_ALG_*
 * @flags: XNB_HASH_* types to compute
 * @key: the key, zero past what the frontend gave
 * @size: entries of the mapping table in use; 0: hash modulo queues
 * @mapping: two tables; @sel is the live one, the other is built
 * @sel: 0 or 1
 *
 * The control thread changes it; the transmit path reads it without a
 * lock, as the stock backend does: a packet hashed during a change may
 * pick the old queue.  A table is built aside and switched in whole.
 */
struct xnb_hash {
	u32 alg;
	u32 flags;
	u8 key[XNB_HASH_KEY_MAX];
	u32 size;
	u32 mapping[2][XNB_HASH_MAPPING_MAX];
	unsigned int sel;
};

void xnb_hash_reset(struct xnb_hash *h);
u32 xnb_hash_set_alg(struct xnb_hash *h, u32 alg);
u32 xnb_hash_get_flags(const struct xnb_hash *h, u32 *flags);
u32 xnb_hash_set_flags(struct xnb_hash *h, u32 flags);
u32 xnb_hash_set_key(struct xnb_hash *h, const u8 *key, u32 len);
u32 xnb_hash_set_mapping_size(struct xnb_hash *h, u32 size);
u32 xnb_hash_mapping_check(const struct xnb_hash *h, u32 len, u32 off);
u32 xnb_hash_set_mapping(struct xnb_hash *h, const u32 *tbl, u32 len,
			 u32 off, unsigned int nr_queues);
unsigned int xnb_hash_queue(const struct xnb_hash *h, u32 hash,
			    unsigned int nr_queues);

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
