// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Unit tests of xen-netback-pgnt's pure logic (src/netback/xnb_core.c):
 * the transmit request parser against well-formed packets and against
 * frontends that lie in every field (sizes, offsets, slot counts,
 * extras, the producer index), the receive slot layout, and the
 * Toeplitz hash and its control messages.  One PASS/FAIL line per test;
 * SEED=<n> reproduces a randomized run.
 */
#include "xnb_core.h"
#include "xt.h"

static struct xnb_tx_slot nb_slot(u32 gref, u16 off, u16 flags, u16 id,
				  u16 size)
{
	struct xnb_tx_slot s = { gref, off, flags, id, size };

	return s;
}

/* An extra-info slot: type, flags, gso.size, gso.type, as netif.h lays it */
static struct xnb_tx_slot nb_extra(u8 type, u8 flags, u16 gso_size,
				   u8 gso_type)
{
	struct xnb_tx_slot s;
	u8 raw[sizeof(s)] = { type, flags };

	memcpy(&raw[2], &gso_size, 2);
	raw[4] = gso_type;
	memcpy(&s, raw, sizeof(s));
	return s;
}

static enum xnb_tx_verdict nb_parse(const struct xnb_tx_slot *s,
				    unsigned int n, struct xnb_tx_pkt *p)
{
	return xnb_tx_parse(s, n, XNB_MAX_SLOTS, XNB_FATAL_SLOTS, p);
}

static void test_tx_simple(void)
{
	struct xnb_tx_slot s[4];
	struct xnb_tx_pkt p;

	s[0] = nb_slot(7, 100, XNB_TXF_CSUM_BLANK, 3, 1514);
	XT_CHECK(nb_parse(s, 1, &p) == XNB_TX_OK && p.nr_slots == 1 &&
		 p.nr_data == 1 && p.len == 1514 && p.first_len == 1514 &&
		 p.flags == XNB_TXF_CSUM_BLANK && !p.gso_size,
		 "one slot: %s", p.why ?: "");
	s[0] = nb_slot(7, 0, XNB_TXF_MORE_DATA, 1, 9000);
	s[1] = nb_slot(8, 0, XNB_TXF_MORE_DATA, 2, 4096);
	s[2] = nb_slot(9, 0, 0, 3, 904);
	s[3] = nb_slot(1, 0, 0, 4, 60);	/* the next packet */
	XT_CHECK(nb_parse(s, 4, &p) == XNB_TX_OK && p.nr_slots == 3 &&
		 p.nr_data == 3 && p.first_len == 4000, "three slots");
	s[0] = nb_slot(7, 0, 0, 1, 14);
	XT_CHECK(nb_parse(s, 1, &p) == XNB_TX_OK, "an Ethernet header alone");
}

static void test_tx_gso(void)
{
	struct xnb_tx_slot s[4];
	struct xnb_tx_pkt p;

	s[0] = nb_slot(7, 0, XNB_TXF_EXTRA_INFO | XNB_TXF_MORE_DATA |
		       XNB_TXF_CSUM_BLANK, 1, 6000);
	s[1] = nb_extra(XNB_EXTRA_TYPE_GSO, 0, 1448, XNB_GSO_TYPE_TCPV4);
	s[2] = nb_slot(8, 0, 0, 2, 2000);
	XT_CHECK(nb_parse(s, 3, &p) == XNB_TX_OK && p.nr_slots == 3 &&
		 p.nr_data == 2 && p.gso_size == 1448 &&
		 p.gso_type == XNB_GSO_TYPE_TCPV4 && p.extra_slot == 2U &&
		 p.first_len == 4000, "GSO: %s", p.why ?: "");
	s[1] = nb_extra(XNB_EXTRA_TYPE_GSO, 0, 0, XNB_GSO_TYPE_TCPV4);
	XT_CHECK(nb_parse(s, 3, &p) == XNB_TX_FATAL, "GSO size 0");
	s[1] = nb_extra(XNB_EXTRA_TYPE_GSO, 0, 1448, 9);
	XT_CHECK(nb_parse(s, 3, &p) == XNB_TX_DROP && p.nr_slots == 3,
		 "unknown GSO type: dropped, slots counted");
	s[1] = nb_extra(XNB_EXTRA_TYPE_MAX, 0, 0, 0);
	XT_CHECK(nb_parse(s, 3, &p) == XNB_TX_FATAL, "unknown extra type");
	s[1] = nb_extra(XNB_EXTRA_TYPE_NONE, 0, 0, 0);
	XT_CHECK(nb_parse(s, 3, &p) == XNB_TX_FATAL, "extra type none");
	/* two extras chained, then data */
	s[1] = nb_extra(XNB_EXTRA_TYPE_MCAST_ADD, XNB_EXTRA_FLAG_MORE, 0, 0);
	s[2] = nb_extra(XNB_EXTRA_TYPE_GSO, 0, 1448, XNB_GSO_TYPE_TCPV6);
	s[3] = nb_slot(8, 0, 0, 2, 2000);
	XT_CHECK(nb_parse(s, 4, &p) == XNB_TX_OK && p.nr_slots == 4 &&
		 p.extra_slot == 6U && p.gso_type == XNB_GSO_TYPE_TCPV6,
		 "two extras");
	s[2] = nb_extra(XNB_EXTRA_TYPE_MCAST_ADD, 0, 0, 0);
	XT_CHECK(nb_parse(s, 4, &p) == XNB_TX_FATAL, "an extra type twice");
	s[1] = nb_extra(XNB_EXTRA_TYPE_GSO, XNB_EXTRA_FLAG_MORE, 1448, 1);
	XT_CHECK(nb_parse(s, 2, &p) == XNB_TX_FATAL,
		 "extra chain beyond the producer");
}

static void test_tx_lies(void)
{
	struct xnb_tx_slot s[XNB_PARSE_SLOTS] = {};
	struct xnb_tx_pkt p;
	unsigned int i;

	XT_CHECK(nb_parse(s, 0, &p) == XNB_TX_FATAL, "nothing produced");
	s[0] = nb_slot(7, 4000, 0, 1, 200);
	XT_CHECK(nb_parse(s, 1, &p) == XNB_TX_FATAL, "first crosses its grant");
	s[0] = nb_slot(7, 0, XNB_TXF_MORE_DATA, 1, 3000);
	s[1] = nb_slot(8, 4095, 0, 2, 2);
	XT_CHECK(nb_parse(s, 2, &p) == XNB_TX_FATAL, "second crosses");
	s[1] = nb_slot(8, 0, 0, 2, 3001);
	XT_CHECK(nb_parse(s, 2, &p) == XNB_TX_DROP && p.nr_slots == 2,
		 "others larger than the packet");
	s[1] = nb_slot(8, 0, XNB_TXF_MORE_DATA, 2, 100);
	XT_CHECK(nb_parse(s, 2, &p) == XNB_TX_FATAL,
		 "more data beyond the producer");
	s[0] = nb_slot(7, 0, 0, 1, 13);
	XT_CHECK(nb_parse(s, 1, &p) == XNB_TX_DROP && p.nr_slots == 1,
		 "runt");
	/* 19 data slots: dropped; 20: the frontend is broken */
	for (i = 0; i < XNB_PARSE_SLOTS; i++)
		s[i] = nb_slot(i, 0, XNB_TXF_MORE_DATA, i, 100);
	s[0].size = 1000 + XNB_MAX_SLOTS * 100;
	s[XNB_MAX_SLOTS].flags = 0;
	XT_CHECK(nb_parse(s, XNB_PARSE_SLOTS, &p) == XNB_TX_DROP &&
		 p.nr_slots == XNB_MAX_SLOTS + 1, "19 slots: %s",
		 p.why ?: "");
	s[XNB_MAX_SLOTS].flags = XNB_TXF_MORE_DATA;
	s[XNB_MAX_SLOTS - 1].flags = 0;
	s[0].size = 1000 + (XNB_MAX_SLOTS - 1) * 100;
	XT_CHECK(nb_parse(s, XNB_PARSE_SLOTS, &p) == XNB_TX_OK &&
		 p.nr_slots == XNB_MAX_SLOTS, "18 slots");
	s[XNB_MAX_SLOTS - 1].flags = XNB_TXF_MORE_DATA;
	XT_CHECK(nb_parse(s, XNB_PARSE_SLOTS, &p) == XNB_TX_FATAL,
		 "endless chain");
	XT_CHECK(xnb_req_avail(10, 5, 256, &i) == 0 && i == 5, "avail");
	XT_CHECK(xnb_req_avail(5, 0xfffffffbU, 256, &i) == 0 && i == 10,
		 "avail across the wrap");
	XT_CHECK(xnb_req_avail(300, 5, 256, &i) == -EPROTO,
		 "producer beyond a ring");
	XT_CHECK(xnb_req_avail(4, 5, 256, &i) == -EPROTO, "producer behind");
}

/*
 * Random slots: the parser never reads beyond what was produced (ASan
 * would see it: the array is exactly @n long), and an OK packet's
 * accounting is consistent.
 */
static void test_tx_random(void)
{
	unsigned int iter;

	for (iter = 0; iter < 200000 && !xt_failed; iter++) {
		unsigned int n = 1 + xt_below(XNB_PARSE_SLOTS), i, sum = 0;
		struct xnb_tx_slot *s = malloc(n * sizeof(*s));
		struct xnb_tx_pkt p;
		enum xnb_tx_verdict v;

		for (i = 0; i < n; i++) {
			u64 r = xt_rand();

			memcpy(&s[i], &r, sizeof(r));
			s[i].size = xt_below(2) ? xt_rand() : xt_below(5000);
			s[i].offset = xt_below(2) ? xt_rand() : xt_below(4200);
			s[i].flags = xt_below(16);
		}
		v = nb_parse(s, n, &p);
		if (v == XNB_TX_OK) {
			for (i = 1; i < p.nr_slots; i++)
				if (!(p.extra_slot & (1U << i)))
					sum += s[i].size;
			XT_CHECK(p.nr_slots <= n && p.first_len + sum == p.len &&
				 s[0].offset + p.first_len <= XNB_PAGE &&
				 p.nr_data <= XNB_MAX_SLOTS && p.len >= 14,
				 "OK packet inconsistent");
		} else {
			XT_CHECK(p.why, "no reason");
		}
		if (v != XNB_TX_FATAL)
			XT_CHECK(p.nr_slots >= 1 && p.nr_slots <= n,
				 "slots %u of %u", p.nr_slots, n);
		free(s);
	}
}

static void test_rx_slots(void)
{
	XT_CHECK(xnb_rx_slots(60, false) == 1, "small");
	XT_CHECK(xnb_rx_slots(4096, false) == 1, "a page");
	XT_CHECK(xnb_rx_slots(4097, true) == 3, "a page and a byte, GSO");
	XT_CHECK(xnb_rx_slots(65536 + 66, true) == 18, "largest GSO");
	XT_CHECK(xnb_rx_slots(65536 + 66, 2) == 19, "largest GSO, hashed");
}

/*
 * Receive layouts: every byte once, in order, 4 KB per data slot, the
 * GSO extra right after the first data slot even when the packet fits
 * one slot (a GSO packet of two small segments).
 */
static void test_rx_plan(void)
{
	struct xnb_rx_slot s[XNB_RX_MAX_SLOTS];
	unsigned int len, n, k, off;

	n = xnb_rx_plan(2962, true, s, XNB_MAX_SLOTS);
	XT_CHECK(n == 2 && !s[0].extra && s[0].len == 2962 && !s[0].more &&
		 s[1].extra, "small GSO packet: data, then the extra");
	n = xnb_rx_plan(9000, true, s, XNB_MAX_SLOTS);
	XT_CHECK(n == 4 && s[1].extra && s[0].more && s[2].more &&
		 !s[3].more && s[3].len == 9000 - 8192, "9000 B GSO");
	XT_CHECK(xnb_rx_plan(65536 + 66, true, s, XNB_MAX_SLOTS) == 18,
		 "largest GSO fits");
	XT_CHECK(!xnb_rx_plan(XNB_MAX_SLOTS * XNB_PAGE + 1, false, s,
			      XNB_MAX_SLOTS), "too big refused");
	XT_CHECK(!xnb_rx_plan(0, false, s, XNB_MAX_SLOTS), "empty refused");
	n = xnb_rx_plan(60, 2, s, XNB_RX_MAX_SLOTS);
	XT_CHECK(n == 3 && !s[0].extra && s[0].len == 60 && !s[0].more &&
		 s[1].extra == 1 && s[2].extra == 2,
		 "hashed GSO packet in one slot: data, GSO, hash");
	XT_CHECK(xnb_rx_plan(65536 + 66, 2, s, XNB_RX_MAX_SLOTS) == 19,
		 "largest GSO with a hash fits");
	XT_CHECK(!xnb_rx_plan(XNB_MAX_SLOTS * XNB_PAGE + 1, 0, s,
			      XNB_RX_MAX_SLOTS),
		 "more data slots than XNB_MAX_SLOTS refused with room");
	XT_CHECK(!xnb_rx_plan(100, 3, s, XNB_RX_MAX_SLOTS),
		 "three extras refused");
	for (len = 1; len < 70000 && !xt_failed; len += 1 + xt_below(997)) {
		unsigned int nx = xt_below(XNB_RX_EXTRAS + 1);

		n = xnb_rx_plan(len, nx, s, XNB_RX_MAX_SLOTS);
		if (!n) {
			XT_CHECK(xnb_rx_slots(len, 0) > XNB_MAX_SLOTS,
				 "len %u refused", len);
			continue;
		}
		XT_CHECK(n == xnb_rx_slots(len, nx), "len %u: %u slots", len,
			 n);
		for (k = 0, off = 0; k < n; k++) {
			if (s[k].extra) {
				XT_CHECK(k >= 1 && k <= nx && s[k].extra == k,
					 "extra at %u", k);
				continue;
			}
			XT_CHECK(s[k].off == off && s[k].len &&
				 s[k].len <= XNB_PAGE, "len %u slot %u", len,
				 k);
			off += s[k].len;
			XT_CHECK(s[k].more == (off < len), "more_data");
		}
		XT_CHECK(off == len && (!nx || (n >= 2 && s[1].extra)),
			 "len %u extras %u: %u bytes in %u slots", len, nx, off,
			 n);
	}
}

/* Microsoft's RSS verification key, as the stock backend's users set it */
static const u8 nb_rss_key[XNB_HASH_KEY_MAX] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/*
 * The published RSS verification vectors: source then destination
 * address, then source and destination port (io/netif.h's order), with
 * the IPv4 and the IPv4+TCP hash of each.
 */
static const struct {
	u8 src[4], dst[4];
	u16 sport, dport;
	u32 ip, tcp;
} nb_v4[] = {
	{ { 66, 9, 149, 187 }, { 161, 142, 100, 80 }, 2794, 1766,
	  0x323e8fc2, 0x51ccc178 },
	{ { 199, 92, 111, 2 }, { 65, 69, 140, 83 }, 14230, 4739,
	  0xd718262a, 0xc626b0ea },
	{ { 24, 19, 198, 95 }, { 12, 22, 207, 184 }, 12898, 38024,
	  0xd2d0a5de, 0x5c2b394a },
	{ { 38, 27, 205, 30 }, { 209, 142, 163, 6 }, 48228, 2217,
	  0x82989176, 0xafc7327f },
	{ { 153, 39, 163, 191 }, { 202, 188, 127, 2 }, 44251, 1303,
	  0x5d1809c5, 0x10e828a2 },
};

static void nb_put16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void test_toeplitz(void)
{
	static const u8 key4[XNB_HASH_KEY_MAX] = { 0x6d, 0x5a, 0x56, 0xda };
	/* 3ffe:2501:200:1fff::7 port 2794 -> 3ffe:2501:200:3::1 port 1766 */
	static const u8 v6[36] = {
		0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff,
		0, 0, 0, 0, 0, 0, 0, 0x07,
		0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03,
		0, 0, 0, 0, 0, 0, 0, 0x01,
		0x0a, 0xea, 0x06, 0xe6,
	};
	unsigned int i;
	u8 buf[12];

	for (i = 0; i < ARRAY_SIZE(nb_v4); i++) {
		memcpy(buf, nb_v4[i].src, 4);
		memcpy(buf + 4, nb_v4[i].dst, 4);
		nb_put16(buf + 8, nb_v4[i].sport);
		nb_put16(buf + 10, nb_v4[i].dport);
		XT_CHECK(xnb_toeplitz(nb_rss_key, sizeof(nb_rss_key), buf, 8) ==
			 nb_v4[i].ip, "vector %u IPv4: %#x", i,
			 xnb_toeplitz(nb_rss_key, sizeof(nb_rss_key), buf, 8));
		XT_CHECK(xnb_toeplitz(nb_rss_key, sizeof(nb_rss_key), buf,
				      12) == nb_v4[i].tcp,
			 "vector %u IPv4+TCP: %#x", i,
			 xnb_toeplitz(nb_rss_key, sizeof(nb_rss_key), buf,
				      12));
	}
	XT_CHECK(xnb_toeplitz(nb_rss_key, sizeof(nb_rss_key), v6, 32) ==
		 0x2cc18cd5, "IPv6 vector");
	XT_CHECK(xnb_toeplitz(nb_rss_key, sizeof(nb_rss_key), v6, 36) ==
		 0x40207d3d, "IPv6+TCP vector");
	/* key octets past its length are zero: a short key, a zero key */
	XT_CHECK(xnb_toeplitz(nb_rss_key, 4, buf, 12) ==
		 xnb_toeplitz(key4, sizeof(key4), buf, 12),
		 "a 4-octet key is zero-padded");
	XT_CHECK(!xnb_toeplitz(nb_rss_key, 0, v6, 36), "no key: hash 0");
}

/*
 * The control messages as the stock netback answers them, in the order
 * a frontend sends them, and every refusal leaving the state as it was.
 */
static void test_hash_msgs(void)
{
	struct xnb_hash h;
	u32 flags = 0, tbl[XNB_HASH_MAPPING_MAX], i;
	u8 key[XNB_HASH_KEY_MAX + 1];

	xnb_hash_reset(&h);
	XT_CHECK(xnb_hash_get_flags(&h, &flags) ==
		 XNB_CTRL_STATUS_NOT_SUPPORTED, "flags before an algorithm");
	XT_CHECK(xnb_hash_set_flags(&h, XNB_HASH_IPV4) ==
		 XNB_CTRL_STATUS_INVALID_PARAMETER,
		 "set flags before an algorithm");
	XT_CHECK(xnb_hash_set_alg(&h, 2) == XNB_CTRL_STATUS_INVALID_PARAMETER &&
		 h.alg == XNB_HASH_ALG_NONE, "unknown algorithm");
	XT_CHECK(xnb_hash_set_alg(&h, XNB_HASH_ALG_TOEPLITZ) ==
		 XNB_CTRL_STATUS_SUCCESS, "Toeplitz");
	XT_CHECK(xnb_hash_get_flags(&h, &flags) == XNB_CTRL_STATUS_SUCCESS &&
		 flags == 0xf, "supported flags %#x", flags);
	XT_CHECK(xnb_hash_set_flags(&h, 0x10) ==
		 XNB_CTRL_STATUS_INVALID_PARAMETER && !h.flags,
		 "unknown flag");
	XT_CHECK(xnb_hash_set_flags(&h, XNB_HASH_IPV4_TCP | XNB_HASH_IPV4) ==
		 XNB_CTRL_STATUS_SUCCESS && h.flags == 3, "flags set");

	memset(key, 0xab, sizeof(key));
	XT_CHECK(xnb_hash_set_key(&h, key, 41) ==
		 XNB_CTRL_STATUS_INVALID_PARAMETER && !h.key[0],
		 "41-octet key");
	XT_CHECK(xnb_hash_set_key(&h, nb_rss_key, 40) ==
		 XNB_CTRL_STATUS_SUCCESS && h.key[39] == 0xfa, "40-octet key");
	XT_CHECK(xnb_hash_set_key(&h, key, 3) == XNB_CTRL_STATUS_SUCCESS &&
		 h.key[2] == 0xab && !h.key[3] && !h.key[39],
		 "a shorter key clears the rest");
	XT_CHECK(xnb_hash_set_key(&h, key, 0) == XNB_CTRL_STATUS_SUCCESS &&
		 !h.key[0], "an empty key clears it");

	XT_CHECK(xnb_hash_queue(&h, 7, 4) == 3, "no table: modulo queues");
	XT_CHECK(xnb_hash_set_mapping_size(&h, 129) ==
		 XNB_CTRL_STATUS_INVALID_PARAMETER && !h.size, "size 129");
	XT_CHECK(xnb_hash_set_mapping_size(&h, 128) == XNB_CTRL_STATUS_SUCCESS,
		 "size 128");
	XT_CHECK(xnb_hash_queue(&h, 7, 4) == 0, "a new table reads zero");
	for (i = 0; i < 128; i++)
		tbl[i] = i % 2 ? 3 : 1;
	XT_CHECK(xnb_hash_set_mapping(&h, tbl, 128, 0, 4) ==
		 XNB_CTRL_STATUS_SUCCESS, "whole table");
	XT_CHECK(xnb_hash_queue(&h, 128 + 5, 4) == 3 &&
		 xnb_hash_queue(&h, 6, 4) == 1, "entry = hash mod size");
	tbl[0] = 2;
	tbl[1] = 4;
	XT_CHECK(xnb_hash_set_mapping(&h, tbl, 2, 10, 4) ==
		 XNB_CTRL_STATUS_INVALID_PARAMETER &&
		 xnb_hash_queue(&h, 10, 4) == 1,
		 "an entry naming queue 4 of 4: refused, old table kept");
	XT_CHECK(xnb_hash_set_mapping(&h, tbl, 1, 10, 4) ==
		 XNB_CTRL_STATUS_SUCCESS && xnb_hash_queue(&h, 10, 4) == 2 &&
		 xnb_hash_queue(&h, 12, 4) == 1, "a sub-table at 10");
	XT_CHECK(xnb_hash_set_mapping(&h, tbl, 1, 128, 4) ==
		 XNB_CTRL_STATUS_INVALID_PARAMETER, "offset past the size");
	XT_CHECK(xnb_hash_set_mapping(&h, tbl, 2, 0xffffffffU, 4) ==
		 XNB_CTRL_STATUS_INVALID_PARAMETER, "offset wraps");
	XT_CHECK(xnb_hash_mapping_check(&h, 1025, 0) ==
		 XNB_CTRL_STATUS_INVALID_PARAMETER, "longer than a page");
	XT_CHECK(xnb_hash_queue(&h, 10, 2) == 0,
		 "an entry past the queues now: queue 0");
	XT_CHECK(xnb_hash_set_mapping_size(&h, 4) == XNB_CTRL_STATUS_SUCCESS &&
		 xnb_hash_queue(&h, 10, 4) == 0, "resize clears the table");
	XT_CHECK(xnb_hash_set_mapping_size(&h, 0) == XNB_CTRL_STATUS_SUCCESS &&
		 xnb_hash_queue(&h, 10, 4) == 2, "size 0: modulo again");
	XT_CHECK(xnb_hash_set_alg(&h, XNB_HASH_ALG_NONE) ==
		 XNB_CTRL_STATUS_SUCCESS && h.flags == 3,
		 "NONE keeps the flags, as the stock backend does");
}

/*
 * A hash extra from the guest: its type and value reach the packet; a
 * type netif.h does not define is ignored (the stock backend's rule),
 * the packet still goes through.
 */
static void test_tx_hash(void)
{
	struct xnb_tx_slot s[3];
	struct xnb_tx_pkt p;
	u32 v = 0xdeadbeef;
	u8 raw[sizeof(s[1])] = { XNB_EXTRA_TYPE_HASH, 0, XNB_HASH_TYPE_IPV6_TCP,
				 XNB_HASH_ALG_TOEPLITZ };

	memcpy(&raw[4], &v, 4);
	s[0] = nb_slot(10, 0, XNB_TXF_EXTRA_INFO, 1, 60);
	memcpy(&s[1], raw, sizeof(raw));
	s[2] = nb_slot(11, 0, 0, 2, 0);
	XT_CHECK(nb_parse(s, 2, &p) == XNB_TX_OK && p.has_hash &&
		 p.hash == v && p.hash_type == XNB_HASH_TYPE_IPV6_TCP &&
		 p.nr_slots == 2 && p.extra_slot == 2, "hash extra read");
	raw[2] = 4;
	memcpy(&s[1], raw, sizeof(raw));
	XT_CHECK(nb_parse(s, 2, &p) == XNB_TX_OK && !p.has_hash,
		 "unknown hash type: no hash, packet kept");
}

static const struct xt_case nb_cases[] = {
	{ "netback_tx_simple", test_tx_simple },
	{ "netback_tx_gso", test_tx_gso },
	{ "netback_tx_lies", test_tx_lies },
	{ "netback_tx_random", test_tx_random },
	{ "netback_rx_slots", test_rx_slots },
	{ "netback_rx_plan", test_rx_plan },
	{ "netback_tx_hash", test_tx_hash },
	{ "netback_toeplitz", test_toeplitz },
	{ "netback_hash_msgs", test_hash_msgs },
};

int main(void)
{
	return xt_run("netback unit tests", nb_cases, ARRAY_SIZE(nb_cases),
		      NULL);
}
