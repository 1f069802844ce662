// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Unit tests of the pure xen-netfront-pgnt logic (src/netfront/
 * xnf_core.c) for 4, 16 and 64 KB pages: transmit slot plans against a
 * model of random packets, transmit and receive response checks against
 * lying backends, static-grant tables, the control requests' data words
 * against io/netif.h's layout, and the per-queue control-ring negotiation
 * of persistent grants against fake netif.h backends that support it,
 * refuse it, offer a queue too little, refuse halfway, or answer out of
 * turn.  One PASS/FAIL
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
 * The data words of each static-grant request, as io/netif.h (Xen 4.17)
 * lays them out: data[0] the queue index for all three; GET: data[1] =
 * data[2] = 0; ADD and DEL: data[1] the table page's grant reference,
 * data[2] the number of entries in it.
 */
static void test_ctrl_req_data(void)
{
	struct xnf_pg_msg msg = { 0 };
	u32 d[XNF_CTRL_DATA_WORDS];
	static const u8 table_types[] = { XNF_CTRL_TYPE_ADD_GREF_MAPPING,
					  XNF_CTRL_TYPE_DEL_GREF_MAPPING };
	unsigned int i, k;

	msg.type = XNF_CTRL_TYPE_GET_GREF_MAPPING_SIZE;
	msg.queue = 3;
	memset(d, 0xa5, sizeof(d));
	xnf_ctrl_req_data(&msg, 0x1234, d);
	XT_CHECK(d[0] == 3 && d[1] == 0 && d[2] == 0,
		 "GET of queue 3: data %#x %#x %#x, want 3 0 0", d[0], d[1],
		 d[2]);
	msg.queue = 0;
	xnf_ctrl_req_data(&msg, 0x1234, d);
	XT_CHECK(!d[0] && !d[1] && !d[2], "GET of queue 0: data %#x %#x %#x",
		 d[0], d[1], d[2]);
	for (k = 0; k < ARRAY_SIZE(table_types); k++) {
		msg.type = table_types[k];
		msg.queue = 1;
		msg.first = 512;
		msg.count = 300;
		memset(d, 0xa5, sizeof(d));
		xnf_ctrl_req_data(&msg, 0x1234, d);
		XT_CHECK(d[0] == 1 && d[1] == 0x1234 && d[2] == 300,
			 "type %u of queue 1, table gref 0x1234, 300 entries: data %#x %#x %#x, want 1 0x1234 300",
			 msg.type, d[0], d[1], d[2]);
		for (i = 0; i < 1000 && !xt_failed; i++) {
			u32 q = xt_below(64), ref = xt_rand(), n = 1 + xt_below(512);

			msg.queue = q;
			msg.count = n;
			xnf_ctrl_req_data(&msg, ref, d);
			XT_CHECK(d[0] == q && d[1] == ref && d[2] == n,
				 "type %u queue %u gref %#x count %u: data %#x %#x %#x",
				 msg.type, q, ref, n, d[0], d[1], d[2]);
		}
	}
	msg.type = 0;
	xnf_ctrl_req_data(&msg, 0x1234, d);
	XT_CHECK(!d[0] && !d[1] && !d[2], "no request: data not zero");
}

/*
 * A fake backend that follows io/netif.h answers the negotiation of
 * several queues, reading each request only through its data words
 * (xnf_ctrl_req_data()) and the table page: GET_GREF_MAPPING_SIZE with a
 * queue index out of range or data[1]/data[2] not zero, or an ADD/DEL
 * naming another page than the table's or a count beyond it, is
 * INVALID_PARAMETER.  It supports static grants or not, offers each queue
 * some table size, may refuse a queue's k-th ADD or any DEL, may release
 * fewer than asked; the driver side negotiates queue by queue as
 * xnf_ctrl_work() does, then stops as xnf_ctrl_unmap() does.  Checked:
 * one request at a time, each naming its queue; a queue's ADDs cover its
 * grefs in order exactly once, its tx grefs read-only; a queue ends
 * MAPPED exactly when the backend offered it room and accepted every
 * ADD; NOT_SUPPORTED stops at the first GET; what was added is deleted,
 * whether on refusal or on stop.
 */
#define NT_NQ		4
#define NT_MAXG		1200
#define NT_TBL_REF	0x2345U

struct nt_fq {
	unsigned int max;
	int refuse_add;		/* index of the ADD to refuse, -1: none */
	bool refuse_del;
	bool short_del;
	unsigned int adds;
	unsigned int held;
	/* what the backend holds mapped, by gref index in the queue */
	unsigned char mapped[NT_MAXG];
};

struct nt_fake {
	bool supported;
	unsigned int nq;
	unsigned int requests;
	struct nt_fq q[NT_NQ];
};

/* the driver side of one queue: its grefs, the tx pool's first */
struct nt_dq {
	u32 grefs[NT_MAXG];
	unsigned int n;
	unsigned int nr_ro;
	struct xnf_pg pg;
};

static u32 nt_gref(unsigned int q, unsigned int i)
{
	return 100000U * (q + 1) + 3 * i;
}

/* The backend's answer to one request: only data[] and the table. */
static void nt_backend(struct nt_fake *f, u8 type, const u32 *data,
		       const struct xnf_gref *tbl, u32 *status, u32 *rdata)
{
	u32 q = data[0], count = data[2];
	struct nt_fq *fq;
	unsigned int i, idx;

	*status = XNF_CTRL_STATUS_SUCCESS;
	*rdata = 0;
	f->requests++;
	if (!f->supported) {
		*status = XNF_CTRL_STATUS_NOT_SUPPORTED;
		return;
	}
	if (q >= f->nq) {
		*status = XNF_CTRL_STATUS_INVALID_PARAMETER;
		return;
	}
	fq = &f->q[q];
	switch (type) {
	case XNF_CTRL_TYPE_GET_GREF_MAPPING_SIZE:
		if (data[1] || data[2])
			*status = XNF_CTRL_STATUS_INVALID_PARAMETER;
		else
			*rdata = fq->max;
		return;
	case XNF_CTRL_TYPE_ADD_GREF_MAPPING:
		if (data[1] != NT_TBL_REF || !count ||
		    count > XNF_GREFS_PER_PAGE ||
		    (int)fq->adds++ == fq->refuse_add) {
			*status = XNF_CTRL_STATUS_INVALID_PARAMETER;
			return;
		}
		for (i = 0; i < count; i++) {
			idx = (tbl[i].ref - nt_gref(q, 0)) / 3;
			XT_EXPECT(tbl[i].ref == nt_gref(q, idx) && idx < NT_MAXG,
				  "ADD of queue %u: gref %u not its own", q,
				  tbl[i].ref);
			if (idx >= NT_MAXG)
				return;
			XT_EXPECT(!fq->mapped[idx], "queue %u gref %u added twice",
				  q, idx);
			fq->mapped[idx] = 1;
			fq->held++;
		}
		return;
	case XNF_CTRL_TYPE_DEL_GREF_MAPPING:
		if (data[1] != NT_TBL_REF || !count ||
		    count > XNF_GREFS_PER_PAGE || fq->refuse_del) {
			*status = XNF_CTRL_STATUS_INVALID_PARAMETER;
			return;
		}
		for (i = 0; i < count; i++) {
			idx = (tbl[i].ref - nt_gref(q, 0)) / 3;
			if (idx >= NT_MAXG || !fq->mapped[idx]) {
				XT_EXPECT(0, "queue %u: gref %u deleted unmapped",
					  q, tbl[i].ref);
				return;
			}
			fq->mapped[idx] = 0;
			fq->held--;
		}
		*rdata = count - (fq->short_del ? 1 : 0);
		return;
	default:
		XT_EXPECT(0, "unknown request %u", type);
		*status = XNF_CTRL_STATUS_NOT_SUPPORTED;
	}
}

/* Send @msg for @dq and feed the answers back until nothing is left. */
static int nt_run(struct nt_fake *f, struct nt_dq *dq, struct xnf_pg_msg *msg,
		  u16 *id)
{
	static struct xnf_gref tbl[XNF_GREFS_PER_PAGE];
	u32 data[XNF_CTRL_DATA_WORDS], status, rdata;
	unsigned int i, steps = 0;
	int rc = 0;

	while (msg->type && steps++ < 100 && !xt_failed) {
		XT_EXPECT(dq->pg.type == msg->type && dq->pg.id == *id,
			  "outstanding request not recorded");
		XT_EXPECT(msg->queue == dq->pg.queue, "request of queue %u for %u",
			  msg->queue, dq->pg.queue);
		memset(tbl, 0xee, sizeof(tbl));
		if (msg->type != XNF_CTRL_TYPE_GET_GREF_MAPPING_SIZE) {
			XT_EXPECT(msg->count >= 1 && msg->count <= 512 &&
				  msg->first + msg->count <= dq->n,
				  "queue %u: %u+%u of %u", msg->queue,
				  msg->first, msg->count, dq->n);
			/* as xnf_ctrl_table() */
			for (i = 0; i < msg->count; i++)
				xnf_gref_table_fill(&tbl[i], 1, dq->grefs, dq->n,
						    msg->first + i,
						    msg->first + i < dq->nr_ro);
			for (i = 0; i < msg->count; i++)
				XT_EXPECT(!!(tbl[i].flags & XNF_GREF_READONLY) ==
					  (msg->first + i < dq->nr_ro),
					  "queue %u entry %u: flags %#x",
					  msg->queue, msg->first + i,
					  tbl[i].flags);
		}
		xnf_ctrl_req_data(msg, NT_TBL_REF, data);
		nt_backend(f, msg->type, data, tbl, &status, &rdata);
		rc = xnf_pg_response(&dq->pg, *id, msg->type, status, rdata,
				     *id + 1, msg);
		++*id;
	}
	XT_EXPECT(steps < 100, "no end");
	return rc;
}

static void nt_pg_case(void)
{
	static struct nt_fake f;
	static struct nt_dq dq[NT_NQ];
	struct xnf_pg_msg msg;
	unsigned int q, i, asked = 0;
	int rc[NT_NQ] = { 0 };
	bool stopped = false;
	u16 id = 1;

	memset(&f, 0, sizeof(f));
	f.supported = xt_below(4) != 0;
	f.nq = 1 + xt_below(NT_NQ);
	for (q = 0; q < f.nq; q++) {
		struct nt_fq *fq = &f.q[q];

		dq[q].n = xt_below(3) ? 1 + xt_below(NT_MAXG) : xt_below(4) * 256;
		dq[q].nr_ro = xt_below(dq[q].n + 1);
		for (i = 0; i < dq[q].n; i++)
			dq[q].grefs[i] = nt_gref(q, i);
		fq->max = xt_below(3) ? dq[q].n + xt_below(100) :
			  xt_below(dq[q].n + 1);
		fq->refuse_add = xt_below(4) ? -1 : (int)xt_below(4);
		fq->refuse_del = !xt_below(8);
		fq->short_del = !xt_below(8);
	}
	/* connect: queue by queue, as xnf_ctrl_work() */
	for (q = 0; q < f.nq && !stopped; q++) {
		xnf_pg_start(&dq[q].pg, q, dq[q].n, id, &msg);
		rc[q] = nt_run(&f, &dq[q], &msg, &id);
		XT_BAIL();
		asked++;
		stopped = xnf_pg_unsupported(&dq[q].pg);
	}
	if (!f.supported) {
		/* a queue without grefs asks nothing; the first that asks stops */
		for (i = 0; i < f.nq && !dq[i].n; i++)
			;
		XT_CHECK(f.requests == (i < f.nq) && stopped == (i < f.nq) &&
			 asked == (i < f.nq ? i + 1 : f.nq),
			 "NOT_SUPPORTED: %u requests, %u of %u queues asked",
			 f.requests, asked, f.nq);
		for (q = 0; q < asked; q++)
			XT_CHECK(dq[q].pg.state == XNF_PG_OFF, "queue %u: state %u",
				 q, dq[q].pg.state);
		return;
	}
	XT_CHECK(!stopped && asked == f.nq, "supported: stopped after %u",
		 asked);
	for (q = 0; q < f.nq; q++) {
		struct nt_fq *fq = &f.q[q];
		bool want = dq[q].n && fq->max >= dq[q].n &&
			    (fq->refuse_add < 0 ||
			     (unsigned int)fq->refuse_add >= (dq[q].n + 511) / 512);

		XT_CHECK((dq[q].pg.state == XNF_PG_MAPPED) == want,
			 "queue %u of %u: n %u max %u refuse_add %d: state %u",
			 q, f.nq, dq[q].n, fq->max, fq->refuse_add,
			 dq[q].pg.state);
		if (want)
			XT_CHECK(fq->held == dq[q].n && dq[q].pg.mapped == dq[q].n,
				 "queue %u: backend holds %u of %u", q, fq->held,
				 dq[q].n);
		else if (!fq->refuse_del && !fq->short_del)
			XT_CHECK(!fq->held && dq[q].pg.state == XNF_PG_OFF,
				 "queue %u refused: backend holds %u, state %u",
				 q, fq->held, dq[q].pg.state);
	}
	/* unbind: each mapped queue deleted, as xnf_ctrl_unmap() */
	for (q = 0; q < f.nq; q++) {
		if (dq[q].pg.state != XNF_PG_MAPPED)
			continue;
		xnf_pg_stop(&dq[q].pg, id, &msg);
		XT_CHECK(msg.type == XNF_CTRL_TYPE_DEL_GREF_MAPPING &&
			 msg.queue == q, "stop of queue %u: type %u queue %u",
			 q, msg.type, msg.queue);
		rc[q] = nt_run(&f, &dq[q], &msg, &id);
		XT_BAIL();
	}
	for (q = 0; q < f.nq; q++) {
		struct nt_fq *fq = &f.q[q];

		XT_CHECK(dq[q].pg.state == XNF_PG_OFF, "queue %u: state %u", q,
			 dq[q].pg.state);
		if (fq->refuse_del || fq->short_del)
			XT_CHECK(!fq->held || rc[q] == -EIO,
				 "queue %u: refused DEL not reported", q);
		else
			XT_CHECK(!fq->held && !dq[q].pg.mapped && !rc[q],
				 "queue %u: %u still mapped, rc %d", q, fq->held,
				 rc[q]);
	}
}

static void test_pg(void)
{
	struct xnf_pg pg;
	struct xnf_pg_msg msg;
	unsigned int i;

	/* no grefs: nothing to negotiate */
	xnf_pg_start(&pg, 0, 0, 1, &msg);
	XT_CHECK(!msg.type && pg.state == XNF_PG_OFF &&
		 !xnf_pg_unsupported(&pg), "empty pool");
	/* a response to nothing, or out of turn: the backend is broken */
	XT_CHECK(xnf_pg_response(&pg, 1, XNF_CTRL_TYPE_GET_GREF_MAPPING_SIZE,
				 0, 10, 2, &msg) == -EPROTO &&
		 pg.state == XNF_PG_BROKEN, "response to nothing");
	xnf_pg_start(&pg, 0, 100, 5, &msg);
	XT_CHECK(xnf_pg_response(&pg, 6, msg.type, 0, 1000, 7, &msg) ==
		 -EPROTO && pg.state == XNF_PG_BROKEN, "wrong id");
	xnf_pg_start(&pg, 0, 100, 5, &msg);
	XT_CHECK(xnf_pg_response(&pg, 5, XNF_CTRL_TYPE_ADD_GREF_MAPPING, 0,
				 1000, 7, &msg) == -EPROTO, "wrong type");
	xnf_pg_start(&pg, 0, 100, 5, &msg);
	XT_CHECK(xnf_pg_response(&pg, 5, msg.type, 9, 1000, 7, &msg) ==
		 -EPROTO, "unknown status");
	/* NOT_SUPPORTED: per packet, and no other queue need ask */
	xnf_pg_start(&pg, 0, 100, 5, &msg);
	XT_CHECK(!xnf_pg_response(&pg, 5, msg.type,
				  XNF_CTRL_STATUS_NOT_SUPPORTED, 0, 6, &msg) &&
		 !msg.type && pg.state == XNF_PG_OFF &&
		 xnf_pg_unsupported(&pg), "not supported");
	/* INVALID_PARAMETER (a queue out of range): this queue only */
	xnf_pg_start(&pg, 7, 100, 5, &msg);
	XT_CHECK(!xnf_pg_response(&pg, 5, msg.type,
				  XNF_CTRL_STATUS_INVALID_PARAMETER, 0, 6,
				  &msg) && !msg.type && pg.state == XNF_PG_OFF &&
		 !xnf_pg_unsupported(&pg), "invalid parameter");
	/* a backend with room for 100 in queue 2: one ADD, mapped */
	xnf_pg_start(&pg, 2, 100, 5, &msg);
	XT_CHECK(msg.type == XNF_CTRL_TYPE_GET_GREF_MAPPING_SIZE &&
		 msg.queue == 2, "GET of queue 2");
	XT_CHECK(!xnf_pg_response(&pg, 5, msg.type, 0, 100, 6, &msg) &&
		 msg.type == XNF_CTRL_TYPE_ADD_GREF_MAPPING && msg.first == 0 &&
		 msg.count == 100 && msg.queue == 2 &&
		 pg.state == XNF_PG_ADDING, "sized");
	XT_CHECK(!xnf_pg_response(&pg, 6, msg.type, 0, 0, 7, &msg) &&
		 !msg.type && pg.state == XNF_PG_MAPPED, "mapped");
	XT_CHECK(xnf_pg_response(&pg, 6, XNF_CTRL_TYPE_ADD_GREF_MAPPING, 0, 0,
				 7, &msg) == -EPROTO, "a second response");
	for (i = 0; i < 5000 && !xt_failed; i++)
		nt_pg_case();
}

/*
 * A control response answers the request only with its id and type and
 * a status netif.h defines; anything else is a lying backend.
 */
static void test_ctrl_rsp_check(void)
{
	u32 st;

	for (st = 0; st <= XNF_CTRL_STATUS_BUFFER_OVERFLOW; st++)
		XT_CHECK(!xnf_ctrl_rsp_check(7, XNF_CTRL_TYPE_SET_HASH_KEY, 7,
					     XNF_CTRL_TYPE_SET_HASH_KEY, st),
			 "status %u accepted", st);
	XT_CHECK(xnf_ctrl_rsp_check(7, XNF_CTRL_TYPE_SET_HASH_KEY, 7,
				    XNF_CTRL_TYPE_SET_HASH_KEY, 4) == -EPROTO,
		 "status 4");
	XT_CHECK(xnf_ctrl_rsp_check(7, XNF_CTRL_TYPE_SET_HASH_KEY, 7,
				    XNF_CTRL_TYPE_SET_HASH_KEY,
				    0x80000000U) == -EPROTO, "status 2^31");
	XT_CHECK(xnf_ctrl_rsp_check(7, XNF_CTRL_TYPE_SET_HASH_KEY, 8,
				    XNF_CTRL_TYPE_SET_HASH_KEY, 0) == -EPROTO,
		 "another id");
	XT_CHECK(xnf_ctrl_rsp_check(7, XNF_CTRL_TYPE_SET_HASH_KEY, 7,
				    XNF_CTRL_TYPE_SET_HASH_MAPPING, 0) ==
		 -EPROTO, "another type");
}

static const struct xt_case nt_cases[] = {
	{ "net_tx_pieces", test_tx_pieces },
	{ "net_tx_plan", test_tx_plan },
	{ "net_tx_rsp", test_tx_rsp },
	{ "net_rx_rsp", test_rx_rsp },
	{ "net_rx_extra", test_rx_extra },
	{ "net_gref_table", test_gref_table },
	{ "net_ctrl_req_data", test_ctrl_req_data },
	{ "net_pg", test_pg },
	{ "net_ctrl_rsp_check", test_ctrl_rsp_check },
};

int main(void)
{
	return xt_run("netfront unit tests", nt_cases, ARRAY_SIZE(nt_cases),
		      NULL);
}
