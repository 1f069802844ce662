// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Unit tests of xen-netback-pgnt's pure logic (src/netback/xnb_core.c):
 * the transmit request parser against well-formed packets and against
 * frontends that lie in every field (sizes, offsets, slot counts,
 * extras, the producer index).  One PASS/FAIL line per test; SEED=<n>
 * reproduces a randomized run.
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
}

/*
 * Receive layouts: every byte once, in order, 4 KB per data slot, the
 * GSO extra right after the first data slot even when the packet fits
 * one slot (a GSO packet of two small segments).
 */
static void test_rx_plan(void)
{
	struct xnb_rx_slot s[XNB_MAX_SLOTS];
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
	for (len = 1; len < 70000 && !xt_failed; len += 1 + xt_below(997)) {
		bool gso = xt_below(2);

		n = xnb_rx_plan(len, gso, s, XNB_MAX_SLOTS);
		if (!n) {
			XT_CHECK(xnb_rx_slots(len, gso) > XNB_MAX_SLOTS,
				 "len %u refused", len);
			continue;
		}
		for (k = 0, off = 0; k < n; k++) {
			if (s[k].extra) {
				XT_CHECK(gso && k == 1, "extra at %u", k);
				continue;
			}
			XT_CHECK(s[k].off == off && s[k].len &&
				 s[k].len <= XNB_PAGE, "len %u slot %u", len,
				 k);
			off += s[k].len;
			XT_CHECK(s[k].more == (off < len), "more_data");
		}
		XT_CHECK(off == len && (!gso || (n >= 2 && s[1].extra)),
			 "len %u gso %d: %u bytes in %u slots", len, gso, off,
			 n);
	}
}

static const struct xt_case nb_cases[] = {
	{ "netback_tx_simple", test_tx_simple },
	{ "netback_tx_gso", test_tx_gso },
	{ "netback_tx_lies", test_tx_lies },
	{ "netback_tx_random", test_tx_random },
	{ "netback_rx_slots", test_rx_slots },
	{ "netback_rx_plan", test_rx_plan },
};

int main(void)
{
	return xt_run("netback unit tests", nb_cases, ARRAY_SIZE(nb_cases),
		      NULL);
}
