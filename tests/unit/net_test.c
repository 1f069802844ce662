// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Unit tests of the pure xen-netfront-pgnt logic (src/netfront/
 * xnf_core.c) for 4, 16 and 64 KB pages: transmit slot plans against a
 * model of random packets, transmit and receive response checks against
 * lying backends, static-grant tables, and the control-ring negotiation
 * of persistent grants against fake backends that support it, refuse it,
 * offer too little, refuse halfway, or answer out of turn.  One PASS/FAIL
 * line per test; SEED=<n> reproduces a randomized run.
 */
#include "xnf_core.h"
#include "xt.h"

/* ---- transmit ---- */

static void test_tx_pieces(void)
{
	const unsigned long g = XGP_GRANT_SIZE;

	XT_CHECK(xnf_tx_pieces(0, 0) == 0, "empty");
	XT_CHECK(xnf_tx_pieces(0, 1) == 1, "one byte");
	XT_CHECK(xnf_tx_pieces(g - 1, 2) == 2, "two bytes across a frame");
	XT_CHECK(xnf_tx_pieces(0, g) == 1, "one frame");
	XT_CHECK(xnf_tx_pieces(1, g) == 2, "a frame at offset 1");
	XT_CHECK(xnf_tx_pieces(XGP_PAGE_SIZE - 14, 1514) == 2,
		 "an Ethernet frame across a page end");
}

#define NT_MAX_FRAGS	20

/*
 * A random packet: fragments at random offsets, the plan, then each data
 * slot's size and flags: slot 0 says the packet's length, the others
 * their own bytes, and the bytes add up.
 */
static void nt_tx_case(void)
{
	unsigned long off[NT_MAX_FRAGS], len[NT_MAX_FRAGS], total = 0;
	unsigned int nfr = 1 + xt_below(NT_MAX_FRAGS), i, pieces = 0, k;
	bool gso = xt_below(2), persistent = xt_below(3) == 0;
	unsigned long slot_bytes[64], sum = 0;
	unsigned int nslot = 0;
	struct xnf_tx_plan p;
	u16 size, flags;

	for (i = 0; i < nfr; i++) {
		off[i] = xt_below(XGP_PAGE_SIZE);
		len[i] = 1 + xt_below(xt_below(4) ? 256 : 4 * XGP_GRANT_SIZE);
		if (total + len[i] > XNF_MAX_TX_SIZE)
			len[i] = 1;
		total += len[i];
		pieces += xnf_tx_pieces(off[i], len[i]);
	}
	if (total > XNF_MAX_TX_SIZE) {
		XT_CHECK(xnf_tx_plan(total, pieces, gso, persistent, &p) ==
			 -EINVAL, "%lu bytes accepted", total);
		return;
	}
	XT_CHECK(!xnf_tx_plan(total, pieces, gso, persistent, &p),
		 "plan of %lu bytes in %u pieces", total, pieces);
	XT_CHECK(p.copied == (persistent || pieces > XNF_MAX_SLOTS),
		 "copied %d, persistent %d, %u pieces", p.copied, persistent,
		 pieces);
	XT_CHECK(p.nr_slots <= XNF_MAX_SLOTS, "%u slots", p.nr_slots);
	XT_CHECK(p.nr_extras == (gso ? 1U : 0U), "extras");
	/* the slots' own bytes, as the driver would fill them */
	if (p.copied) {
		for (k = 0; k < p.nr_slots; k++) {
			unsigned long own = total - (unsigned long)k * XGP_GRANT_SIZE;

			slot_bytes[nslot++] = own > XGP_GRANT_SIZE ?
					      XGP_GRANT_SIZE : own;
		}
		XT_CHECK(nslot * XGP_GRANT_SIZE >= total &&
			 (nslot - 1) * XGP_GRANT_SIZE < total, "dense");
	} else {
		for (i = 0; i < nfr; i++) {
			unsigned long o = off[i], l = len[i];

			while (l) {
				unsigned long room = XGP_GRANT_SIZE - o % XGP_GRANT_SIZE;
				unsigned long n = l < room ? l : room;

				slot_bytes[nslot++] = n;
				o += n;
				l -= n;
			}
		}
	}
	XT_CHECK(nslot == p.nr_slots, "%u slot sizes for %u slots", nslot,
		 p.nr_slots);
	for (k = 0; k < nslot; k++) {
		xnf_tx_slot_sizes(&p, k, slot_bytes[k], &size, &flags);
		XT_CHECK(k ? size == slot_bytes[k] : size == total,
			 "slot %u size %u", k, size);
		XT_CHECK(!!(flags & XNF_TXF_MORE_DATA) == (k + 1 < nslot),
			 "slot %u more_data", k);
		XT_CHECK(!!(flags & XNF_TXF_EXTRA_INFO) == (!k && gso),
			 "slot %u extra_info", k);
		XT_CHECK(slot_bytes[k] >= 1 && slot_bytes[k] <= XGP_GRANT_SIZE,
			 "slot %u holds %lu bytes", k, slot_bytes[k]);
		sum += k ? size : 0;
	}
	/* the first slot's bytes: the packet minus the others (netif rule) */
	XT_CHECK(total - sum == slot_bytes[0], "first slot %lu, want %lu",
		 total - sum, slot_bytes[0]);
}

static void test_tx_plan(void)
{
	struct xnf_tx_plan p;
	unsigned int i;

	XT_CHECK(xnf_tx_plan(0, 0, false, false, &p) == -EINVAL, "empty");
	XT_CHECK(xnf_tx_plan(65536, 17, false, false, &p) == -EINVAL,
		 "65536 bytes");
	XT_CHECK(xnf_tx_plan(100, 0, false, false, &p) == -EINVAL,
		 "fewer pieces than frames");
	XT_CHECK(xnf_tx_plan(5, 6, false, false, &p) == -EINVAL,
		 "more pieces than bytes");
	XT_CHECK(!xnf_tx_plan(65535, 40, true, false, &p) && p.copied &&
		 p.nr_slots == 16 && p.nr_extras == 1, "64 KB GSO, 40 pieces");
	XT_CHECK(!xnf_tx_plan(1514, 2, false, false, &p) && !p.copied &&
		 p.nr_slots == 2, "1514 bytes, 2 pieces in place");
	XT_CHECK(!xnf_tx_plan(1514, 2, false, true, &p) && p.copied &&
		 p.nr_slots == 1, "1514 bytes persistent: one slot");
	for (i = 0; i < 20000 && !xt_failed; i++)
		nt_tx_case();
}

/* ---- responses ---- */

static void test_tx_rsp(void)
{
	struct xgp_idtab t;
	unsigned long cookie = 0;
	int a, b;

	XT_CHECK(!xgp_idtab_init(&t, 256), "init");
	a = xgp_id_get(&t, 0, 0x100, 0);
	b = xgp_id_get(&t, 0, 0x200, 0);
	XT_CHECK(xnf_tx_rsp_check(&t, 9999, XNF_RSP_NULL, &cookie) ==
		 XNF_TX_NULL && t.inflight == 2, "NULL skipped, any id");
	XT_CHECK(xnf_tx_rsp_check(&t, 256, XNF_RSP_OKAY, &cookie) ==
		 XNF_TX_BAD_ID, "id == ring size");
	XT_CHECK(xnf_tx_rsp_check(&t, 7, XNF_RSP_OKAY, &cookie) ==
		 XNF_TX_BAD_ID, "id not outstanding");
	XT_CHECK(xnf_tx_rsp_check(&t, a, 2, &cookie) == XNF_TX_BAD_STATUS &&
		 t.inflight == 2, "status 2 changes nothing");
	XT_CHECK(xnf_tx_rsp_check(&t, a, -3, &cookie) == XNF_TX_BAD_STATUS,
		 "status -3");
	XT_CHECK(xnf_tx_rsp_check(&t, a, XNF_RSP_OKAY, &cookie) == XNF_TX_OK &&
		 cookie == 0x100 && t.inflight == 1, "okay");
	XT_CHECK(xnf_tx_rsp_check(&t, a, XNF_RSP_OKAY, &cookie) ==
		 XNF_TX_BAD_ID, "double completion");
	XT_CHECK(xnf_tx_rsp_check(&t, b, XNF_RSP_DROPPED, &cookie) ==
		 XNF_TX_DROPPED && cookie == 0x200 && !t.inflight, "dropped");
	xgp_idtab_destroy(&t);
	XT_CHECK(!strcmp(xnf_tx_verdict_str(XNF_TX_BAD_STATUS),
			 "unknown status"), "name");
}

/* Every rx data response, against a model of what may be believed. */
static void test_rx_rsp(void)
{
	const u16 known = XNF_RXF_DATA_VALIDATED | XNF_RXF_CSUM_BLANK |
			  XNF_RXF_MORE_DATA | XNF_RXF_EXTRA_INFO |
			  XNF_RXF_GSO_PREFIX;
	unsigned int i;

	XT_CHECK(xnf_rx_rsp_check(3, 3, 0, 0, 1514, 0, 18) == XNF_RX_OK,
		 "a frame");
	XT_CHECK(xnf_rx_rsp_check(3, 3, 2583, 0, 1514, 0, 18) == XNF_RX_BAD_SIZE,
		 "one byte beyond the grant");
	XT_CHECK(xnf_rx_rsp_check(3, 3, 2582, 0, 1514, 0, 18) == XNF_RX_OK,
		 "ends at the grant's end");
	XT_CHECK(xnf_rx_rsp_check(3, 3, 0, 0, 0x7fff, 0, 18) == XNF_RX_BAD_SIZE,
		 "32767 bytes");
	XT_CHECK(xnf_rx_rsp_check(3, 3, 0xffff, 0, 1, 0, 18) == XNF_RX_BAD_SIZE,
		 "offset 65535");
	XT_CHECK(xnf_rx_rsp_check(4, 3, 0, 0, 60, 0, 18) == XNF_RX_BAD_ID,
		 "another slot's id");
	XT_CHECK(xnf_rx_rsp_check(3, 3, 0, 0, -1, 0, 18) == XNF_RX_ERROR,
		 "error status");
	XT_CHECK(xnf_rx_rsp_check(3, 3, 0, 0x80, 60, 0, 18) == XNF_RX_BAD_FLAGS,
		 "unknown flag");
	XT_CHECK(xnf_rx_rsp_check(3, 3, 0, 0, 60, 18, 18) == XNF_RX_TOO_MANY,
		 "a 19th slot");
	for (i = 0; i < 200000 && !xt_failed; i++) {
		u16 want = xt_below(256), id = xt_below(4) ? want : xt_below(256);
		u16 off = xt_below(4) ? xt_below(XGP_GRANT_SIZE) : xt_rand();
		u16 flags = xt_below(4) ? xt_below(32) : xt_rand();
		s16 st = xt_below(4) ? (s16)xt_below(XGP_GRANT_SIZE + 1) :
			 (s16)xt_rand();
		unsigned int nth = xt_below(20);
		enum xnf_rx_verdict v = xnf_rx_rsp_check(id, want, off, flags,
							 st, nth, 18), m;

		if (nth >= 18)
			m = XNF_RX_TOO_MANY;
		else if (id != want)
			m = XNF_RX_BAD_ID;
		else if (flags & ~known)
			m = XNF_RX_BAD_FLAGS;
		else if (st < 0)
			m = XNF_RX_ERROR;
		else if ((unsigned long)off + st > XGP_GRANT_SIZE)
			m = XNF_RX_BAD_SIZE;
		else
			m = XNF_RX_OK;
		XT_CHECK(v == m, "id %u/%u off %u flags %#x status %d nth %u: %s, want %s",
			 id, want, off, flags, st, nth, xnf_rx_verdict_str(v),
			 xnf_rx_verdict_str(m));
	}
}

static void test_rx_extra(void)
{
	XT_CHECK(xnf_rx_extra_check(XNF_EXTRA_TYPE_GSO, 0, 1448,
				    XNF_GSO_TYPE_TCPV4, 0) == XNF_EXTRA_OK,
		 "GSO TCPv4");
	XT_CHECK(xnf_rx_extra_check(XNF_EXTRA_TYPE_GSO, 0, 1428,
				    XNF_GSO_TYPE_TCPV6, 0) == XNF_EXTRA_OK,
		 "GSO TCPv6");
	XT_CHECK(xnf_rx_extra_check(XNF_EXTRA_TYPE_GSO, 0, 0,
				    XNF_GSO_TYPE_TCPV4, 0) == XNF_EXTRA_BAD_GSO,
		 "GSO size 0");
	XT_CHECK(xnf_rx_extra_check(XNF_EXTRA_TYPE_GSO, 0, 1448, 3, 0) ==
		 XNF_EXTRA_BAD_GSO, "GSO type 3");
	XT_CHECK(xnf_rx_extra_check(XNF_EXTRA_TYPE_GSO, 0, 1448,
				    XNF_GSO_TYPE_NONE, 0) == XNF_EXTRA_BAD_GSO,
		 "GSO type none");
	XT_CHECK(xnf_rx_extra_check(XNF_EXTRA_TYPE_HASH, 0, 0, 0, 1) ==
		 XNF_EXTRA_OK, "hash");
	XT_CHECK(xnf_rx_extra_check(XNF_EXTRA_TYPE_NONE, 0, 0, 0, 0) ==
		 XNF_EXTRA_BAD_TYPE, "type none");
	XT_CHECK(xnf_rx_extra_check(XNF_EXTRA_TYPE_MCAST_ADD, 0, 0, 0, 0) ==
		 XNF_EXTRA_BAD_TYPE, "multicast is tx only");
	XT_CHECK(xnf_rx_extra_check(XNF_EXTRA_TYPE_MAX, 0, 0, 0, 0) ==
		 XNF_EXTRA_BAD_TYPE, "type max");
	XT_CHECK(xnf_rx_extra_check(XNF_EXTRA_TYPE_HASH, XNF_EXTRA_FLAG_MORE,
				    0, 0, XNF_EXTRA_TYPE_MAX - 1) ==
		 XNF_EXTRA_TOO_MANY, "endless chain");
}

/* ---- static grants ---- */

static void test_gref_table(void)
{
	static struct xnf_gref tbl[XNF_GREFS_PER_PAGE];
	static u32 grefs[1500];
	unsigned int n, from, k, got, i;

	XT_CHECK(sizeof(struct xnf_gref) == 8, "entry of %zu bytes",
		 sizeof(struct xnf_gref));
	XT_CHECK(XNF_GREFS_PER_PAGE == 512, "%u per page", XNF_GREFS_PER_PAGE);
	for (i = 0; i < 1500; i++)
		grefs[i] = 1000 + 7 * i;
	for (n = 0; n <= 1500 && !xt_failed; n += 1 + xt_below(97)) {
		bool ro = xt_below(2);

		for (from = 0, k = 0; from < n; from += got, k++) {
			got = xnf_gref_table_fill(tbl, XNF_GREFS_PER_PAGE, grefs,
						  n, from, ro);
			XT_CHECK(got == (n - from < 512 ? n - from : 512),
				 "n %u from %u: %u entries", n, from, got);
			for (i = 0; i < got; i++)
				XT_CHECK(tbl[i].ref == grefs[from + i] &&
					 tbl[i].flags == (ro ? XNF_GREF_READONLY : 0) &&
					 !tbl[i].status, "entry %u", i);
		}
		XT_CHECK(k == (n + 511) / 512, "%u pages for %u grefs", k, n);
		XT_CHECK(!xnf_gref_table_fill(tbl, 512, grefs, n, n, ro),
			 "nothing past the end");
	}
}

/*
 * A fake backend answers the negotiation: it supports static grants or
 * not, offers some table size, may refuse the k-th ADD or any DEL, may
 * release fewer than asked; the driver side maps, then stops.  Checked:
 * one request at a time, ADDs cover the grefs in order exactly once, a
 * mapping ends MAPPED only when all are accepted, and what was added is
 * deleted, whether on refusal or on stop.
 */
struct nt_fake {
	bool supported;
	unsigned int max;
	int refuse_add;		/* index of the ADD to refuse, -1: none */
	bool refuse_del;
	bool short_del;
	/* what the backend holds mapped, as a bitmap over gref indexes */
	unsigned char mapped[4096];
};

static void nt_pg_case(void)
{
	struct nt_fake f = { 0 };
	struct xnf_pg pg;
	struct xnf_pg_msg msg;
	unsigned int n = xt_below(3000), adds = 0, i, steps = 0, held = 0;
	u16 id = 1;
	int rc = 0;

	f.supported = xt_below(4) != 0;
	f.max = xt_below(3) ? n + xt_below(100) : xt_below(n + 1);
	f.refuse_add = xt_below(4) ? -1 : (int)xt_below(8);
	f.refuse_del = !xt_below(8);
	f.short_del = !xt_below(8);
	xnf_pg_start(&pg, n, id, &msg);
	while (msg.type && steps++ < 100) {
		u32 status = XNF_CTRL_STATUS_SUCCESS, data = 0;

		XT_CHECK(pg.type == msg.type && pg.id == id,
			 "outstanding request not recorded");
		switch (msg.type) {
		case XNF_CTRL_TYPE_GET_GREF_MAPPING_SIZE:
			if (!f.supported)
				status = XNF_CTRL_STATUS_NOT_SUPPORTED;
			data = f.supported ? f.max : 0;
			break;
		case XNF_CTRL_TYPE_ADD_GREF_MAPPING:
			XT_CHECK(msg.first == (unsigned int)adds * 512 &&
				 msg.count >= 1 && msg.count <= 512 &&
				 msg.first + msg.count <= n,
				 "ADD %u: %u+%u of %u", adds, msg.first,
				 msg.count, n);
			if ((int)adds++ == f.refuse_add) {
				status = XNF_CTRL_STATUS_INVALID_PARAMETER;
				break;
			}
			for (i = msg.first; i < msg.first + msg.count; i++) {
				XT_CHECK(!f.mapped[i], "gref %u added twice", i);
				f.mapped[i] = 1;
				held++;
			}
			break;
		case XNF_CTRL_TYPE_DEL_GREF_MAPPING:
			XT_CHECK(msg.count >= 1 && msg.count <= 512, "DEL count");
			if (f.refuse_del) {
				status = XNF_CTRL_STATUS_INVALID_PARAMETER;
				break;
			}
			for (i = msg.first; i < msg.first + msg.count; i++) {
				XT_CHECK(f.mapped[i], "gref %u deleted unmapped", i);
				f.mapped[i] = 0;
				held--;
			}
			data = msg.count - (f.short_del ? 1 : 0);
			break;
		default:
			XT_CHECK(0, "unknown request %u", msg.type);
		}
		rc = xnf_pg_response(&pg, id, msg.type, status, data, id + 1,
				     &msg);
		id++;
		if (!msg.type && pg.state == XNF_PG_MAPPED)
			xnf_pg_stop(&pg, id, &msg);
	}
	XT_CHECK(steps < 100, "no end");
	if (!f.supported || f.max < n || !n) {
		XT_CHECK(pg.state == XNF_PG_OFF && !held && !adds,
			 "n %u max %u supported %d: state %u held %u adds %u",
			 n, f.max, f.supported, pg.state, held, adds);
		return;
	}
	/* everything added is deleted again, unless the backend refused */
	if (f.refuse_del || f.short_del) {
		XT_CHECK(pg.state == XNF_PG_OFF, "state %u", pg.state);
		XT_CHECK(!held || rc == -EIO, "refused DEL not reported");
	} else {
		XT_CHECK(pg.state == XNF_PG_OFF && !held && !pg.mapped && !rc,
			 "n %u: state %u, %u still mapped, rc %d", n, pg.state,
			 held, rc);
	}
}

static void test_pg(void)
{
	struct xnf_pg pg;
	struct xnf_pg_msg msg;
	unsigned int i;

	/* no grefs: nothing to negotiate */
	xnf_pg_start(&pg, 0, 1, &msg);
	XT_CHECK(!msg.type && pg.state == XNF_PG_OFF, "empty pool");
	/* a response to nothing, or out of turn: the backend is broken */
	XT_CHECK(xnf_pg_response(&pg, 1, XNF_CTRL_TYPE_GET_GREF_MAPPING_SIZE,
				 0, 10, 2, &msg) == -EPROTO &&
		 pg.state == XNF_PG_BROKEN, "response to nothing");
	xnf_pg_start(&pg, 100, 5, &msg);
	XT_CHECK(xnf_pg_response(&pg, 6, msg.type, 0, 1000, 7, &msg) ==
		 -EPROTO && pg.state == XNF_PG_BROKEN, "wrong id");
	xnf_pg_start(&pg, 100, 5, &msg);
	XT_CHECK(xnf_pg_response(&pg, 5, XNF_CTRL_TYPE_ADD_GREF_MAPPING, 0,
				 1000, 7, &msg) == -EPROTO, "wrong type");
	xnf_pg_start(&pg, 100, 5, &msg);
	XT_CHECK(xnf_pg_response(&pg, 5, msg.type, 9, 1000, 7, &msg) ==
		 -EPROTO, "unknown status");
	/* a backend with room for 100: one ADD, mapped */
	xnf_pg_start(&pg, 100, 5, &msg);
	XT_CHECK(!xnf_pg_response(&pg, 5, msg.type, 0, 100, 6, &msg) &&
		 msg.type == XNF_CTRL_TYPE_ADD_GREF_MAPPING && msg.first == 0 &&
		 msg.count == 100 && pg.state == XNF_PG_ADDING, "sized");
	XT_CHECK(!xnf_pg_response(&pg, 6, msg.type, 0, 0, 7, &msg) &&
		 !msg.type && pg.state == XNF_PG_MAPPED, "mapped");
	XT_CHECK(xnf_pg_response(&pg, 6, XNF_CTRL_TYPE_ADD_GREF_MAPPING, 0, 0,
				 7, &msg) == -EPROTO, "a second response");
	for (i = 0; i < 5000 && !xt_failed; i++)
		nt_pg_case();
}

static const struct xt_case nt_cases[] = {
	{ "net_tx_pieces", test_tx_pieces },
	{ "net_tx_plan", test_tx_plan },
	{ "net_tx_rsp", test_tx_rsp },
	{ "net_rx_rsp", test_rx_rsp },
	{ "net_rx_extra", test_rx_extra },
	{ "net_gref_table", test_gref_table },
	{ "net_pg", test_pg },
};

int main(void)
{
	return xt_run("netfront unit tests", nt_cases, ARRAY_SIZE(nt_cases),
		      NULL);
}
