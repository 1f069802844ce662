// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * xen-netback-pgnt's pure logic: the transmit request parser, the
 * receive slot layout and the Toeplitz hash configuration.  See
 * xnb_core.h.
 */
#include "xnb_core.h"

#ifdef __KERNEL__
#include <asm/barrier.h>
#else
/* the kernel's barriers, as C11 atomics: the table before its index */
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
/* and the index before the table's entries */
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#endif

static enum xnb_tx_verdict xnb_tx_bad(struct xnb_tx_pkt *pkt,
				      enum xnb_tx_verdict v, const char *why)
{
	pkt->why = why;
	return v;
}

/*
 * An extra slot: byte 0 type, 1 flags, then for GSO 2-3 size and 4 type,
 * for a hash 2 type, 3 algorithm and 4-7 the value.
 */
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

static void xnb_extra_hash(const struct xnb_tx_slot *s, struct xnb_tx_pkt *pkt)
{
	u8 raw[sizeof(*s)];

	memcpy(raw, s, sizeof(raw));
	/* a type the frontend made up: no hash, as the stock backend does */
	if (raw[2] > XNB_HASH_TYPE_IPV6_TCP)
		return;
	pkt->has_hash = true;
	pkt->hash_type = raw[2];
	memcpy(&pkt->hash, &raw[4], sizeof(pkt->hash));
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
		} else if (type == XNB_EXTRA_TYPE_HASH) {
			xnb_extra_hash(&s[i], pkt);
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
 * @nr_extras: extra-info slots it carries (GSO, hash: up to XNB_RX_EXTRAS)
 * @s: the slots, in ring order
 * @max: room in @s
 *
 * Data is packed densely, 4 KB per slot from offset 0; the extras take
 * the slots right after the first data slot (netif.h), also when that is
 * the only data slot.
 *
 * Return: slots used (xnb_rx_slots()), or 0 if more than @max or more
 * than XNB_MAX_SLOTS data slots.
 */
unsigned int xnb_rx_plan(unsigned int len, unsigned int nr_extras,
			 struct xnb_rx_slot *s, unsigned int max)
{
	unsigned int n = xnb_rx_slots(len, nr_extras), k, off = 0;

	if (!len || n > max || nr_extras > XNB_RX_EXTRAS ||
	    xnb_rx_slots(len, 0) > XNB_MAX_SLOTS)
		return 0;
	for (k = 0; k < n; k++) {
		memset(&s[k], 0, sizeof(s[k]));
		if (k >= 1 && k <= nr_extras) {
			s[k].extra = k;
			continue;
		}
		s[k].off = off;
		s[k].len = len - off < XNB_PAGE ? len - off : XNB_PAGE;
		off += s[k].len;
		s[k].more = off < len;
	}
	return n;
}

/**
 * xnb_toeplitz - the Toeplitz hash of io/netif.h
 * @key: the key (octets past @keylen count as zero)
 * @keylen: its length
 * @buf: the input: addresses and ports in network order
 * @len: its length
 *
 * For each bit of @buf from the most significant of its first octet, if
 * the bit is set the result is xored with the 32 key bits starting at
 * that bit's position.
 *
 * Return: the hash.
 */
u32 xnb_toeplitz(const u8 *key, unsigned int keylen, const u8 *buf,
		 unsigned int len)
{
	unsigned int i, b, next = 4;
	u32 hash = 0, window = 0;
	u8 ahead;

	for (i = 0; i < 4; i++)
		window = window << 8 | (i < keylen ? key[i] : 0);
	for (i = 0; i < len; i++) {
		ahead = next < keylen ? key[next] : 0;
		next++;
		for (b = 0; b < 8; b++) {
			if (buf[i] & (0x80U >> b))
				hash ^= window;
			window = window << 1 | (ahead >> (7 - b) & 1U);
		}
	}
	return hash;
}

/* Back to what a frontend finds on connect: no hashing, a zero key. */
void xnb_hash_reset(struct xnb_hash *h)
{
	memset(h, 0, sizeof(*h));
}

/*
 * The message handlers return a XNB_CTRL_STATUS_*, answering as the
 * stock netback does where netif.h leaves room (SET_HASH_FLAGS without
 * an algorithm and a key longer than 40 octets: INVALID_PARAMETER).
 */
u32 xnb_hash_set_alg(struct xnb_hash *h, u32 alg)
{
	if (alg != XNB_HASH_ALG_NONE && alg != XNB_HASH_ALG_TOEPLITZ)
		return XNB_CTRL_STATUS_INVALID_PARAMETER;
	h->alg = alg;
	return XNB_CTRL_STATUS_SUCCESS;
}

u32 xnb_hash_get_flags(const struct xnb_hash *h, u32 *flags)
{
	if (h->alg == XNB_HASH_ALG_NONE)
		return XNB_CTRL_STATUS_NOT_SUPPORTED;
	*flags = XNB_HASH_FLAGS_ALL;
	return XNB_CTRL_STATUS_SUCCESS;
}

u32 xnb_hash_set_flags(struct xnb_hash *h, u32 flags)
{
	if ((flags & ~XNB_HASH_FLAGS_ALL) || h->alg == XNB_HASH_ALG_NONE)
		return XNB_CTRL_STATUS_INVALID_PARAMETER;
	h->flags = flags;
	return XNB_CTRL_STATUS_SUCCESS;
}

/* @key: @len octets already copied from the frontend (len checked here) */
u32 xnb_hash_set_key(struct xnb_hash *h, const u8 *key, u32 len)
{
	if (len > XNB_HASH_KEY_MAX)
		return XNB_CTRL_STATUS_INVALID_PARAMETER;
	memset(h->key, 0, sizeof(h->key));
	memcpy(h->key, key, len);
	return XNB_CTRL_STATUS_SUCCESS;
}

u32 xnb_hash_set_mapping_size(struct xnb_hash *h, u32 size)
{
	u32 *live = h->mapping[h->sel];

	if (size > XNB_HASH_MAPPING_MAX)
		return XNB_CTRL_STATUS_INVALID_PARAMETER;
	/* a new table reads zero: queue 0 until entries are set */
	memset(live, 0, sizeof(h->mapping[0]));
	h->size = size;
	return XNB_CTRL_STATUS_SUCCESS;
}

/* Whether entries [@off, @off + @len) lie in the table: before the copy */
u32 xnb_hash_mapping_check(const struct xnb_hash *h, u32 len, u32 off)
{
	if (!len || off + len < off || off + len > h->size)
		return XNB_CTRL_STATUS_INVALID_PARAMETER;
	return XNB_CTRL_STATUS_SUCCESS;
}

/**
 * xnb_hash_set_mapping - replace entries of the mapping table
 * @h: the configuration
 * @tbl: @len entries copied from the frontend (untrusted values)
 * @len: how many
 * @off: the first entry they replace
 * @nr_queues: the vif's queues: every entry must name one
 *
 * The new table is built aside and switched in only when every entry is
 * valid: a refused message leaves the old table in force.
 *
 * Return: a XNB_CTRL_STATUS_*.
 */
u32 xnb_hash_set_mapping(struct xnb_hash *h, const u32 *tbl, u32 len,
			 u32 off, unsigned int nr_queues)
{
	unsigned int next = !h->sel, i;
	u32 status = xnb_hash_mapping_check(h, len, off);

	if (status)
		return status;
	for (i = 0; i < len; i++)
		if (tbl[i] >= nr_queues)
			return XNB_CTRL_STATUS_INVALID_PARAMETER;
	memcpy(h->mapping[next], h->mapping[h->sel], sizeof(h->mapping[0]));
	memcpy(&h->mapping[next][off], tbl, len * sizeof(*tbl));
	/* the table's entries before the index that publishes it */
	smp_store_release(&h->sel, next);
	return XNB_CTRL_STATUS_SUCCESS;
}

/* The queue a packet of hash @hash goes to: an index below @nr_queues. */
unsigned int xnb_hash_queue(const struct xnb_hash *h, u32 hash,
			    unsigned int nr_queues)
{
	u32 size = READ_ONCE(h->size), q;

	if (!nr_queues)
		return 0;
	if (!size || size > XNB_HASH_MAPPING_MAX)
		return hash % nr_queues;
	/* the live table's index before its entries: see set_mapping */
	q = READ_ONCE(h->mapping[smp_load_acquire(&h->sel)][hash % size]);
	return q < nr_queues ? q : 0;
}
