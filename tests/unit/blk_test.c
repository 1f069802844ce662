// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Unit tests of the pure xen-blkfront-64k logic (src/blkfront/xbf_core.c):
 * request layout in 4 KB grants for 4, 16 and 64 KB pages, zero-copy
 * pieces, plain/indirect/split limits, request sizes, and response
 * validation against malformed responses (on top of xen-grant-pool's
 * request ids, tested in test_ring.c).  One PASS/FAIL line per test; SEED=<n>
 * reproduces a randomized run.
 */
#include "blkfront_core.h"
#include "xt.h"

static const unsigned int bt_limits[] = { 0, 8, 11, 12, 32, 128, 256, 4096, 9999 };

/* Every plan covers its grants exactly, within the protocol's limits. */
static void bt_plan_one(unsigned long bytes, unsigned int max_ind)
{
	unsigned int eff = xbf_effective_segs(max_ind, max_ind);
	unsigned int i, first, n, ind, next = 0, ind_total = 0;
	struct xbf_plan p;
	int err;

	err = xbf_plan_request(bytes, eff, &p);
	if (err == -E2BIG) {
		unsigned long g = (bytes + XGP_GRANT_SIZE - 1) / XGP_GRANT_SIZE;

		XT_CHECK(!eff || g > XBF_MAX_PARTS * eff,
			 "bytes %lu eff %u: E2BIG too early", bytes, eff);
		XT_CHECK(eff || g > XBF_MAX_PARTS * XBF_MAX_DIRECT_SEGS,
			 "bytes %lu direct: E2BIG too early", bytes);
		return;
	}
	XT_CHECK(!err, "bytes %lu eff %u: err %d", bytes, eff, err);
	XT_CHECK(p.nr_grants == (bytes + XGP_GRANT_SIZE - 1) / XGP_GRANT_SIZE,
		 "bytes %lu: %u grants", bytes, p.nr_grants);
	XT_CHECK(p.nr_parts >= 1 && p.nr_parts <= XBF_MAX_PARTS,
		 "bytes %lu: %u parts", bytes, p.nr_parts);
	XT_CHECK(!p.indirect || p.nr_grants > XBF_MAX_DIRECT_SEGS,
		 "bytes %lu: indirect for a request that fits plain", bytes);
	XT_CHECK(p.indirect || p.nr_parts == 1 || !eff,
		 "bytes %lu: split although indirect is available", bytes);
	for (i = 0; i < p.nr_parts; i++) {
		xbf_plan_part(&p, i, &first, &n, &ind);
		XT_CHECK(first == next, "part %u starts at %u, want %u", i,
			 first, next);
		XT_CHECK(n >= 1, "part %u empty", i);
		if (p.indirect) {
			XT_CHECK(n <= eff, "part %u: %u > %u segs", i, n, eff);
			XT_CHECK(ind >= 1 && ind <= XBF_MAX_INDIRECT_PAGES,
				 "part %u: %u indirect pages", i, ind);
			XT_CHECK(ind * XBF_SEGS_PER_INDIRECT >= n &&
				 (ind - 1) * XBF_SEGS_PER_INDIRECT < n,
				 "part %u: %u indirect pages for %u segs", i,
				 ind, n);
		} else {
			XT_CHECK(n <= XBF_MAX_DIRECT_SEGS,
				 "part %u: %u plain segs", i, n);
			XT_CHECK(!ind, "plain part with indirect pages");
		}
		next += n;
		ind_total += ind;
	}
	XT_CHECK(next == p.nr_grants, "parts cover %u of %u", next, p.nr_grants);
	XT_CHECK(ind_total == p.nr_indirect, "indirect %u vs %u", ind_total,
		 p.nr_indirect);
}

static void test_plan_limits(void)
{
	const unsigned long g = XGP_GRANT_SIZE;
	struct xbf_plan p;

	XT_CHECK(xbf_plan_request(0, 0, &p) == -EINVAL, "0 bytes");
	XT_CHECK(xbf_plan_request(100, 0, &p) == -EINVAL, "100 bytes");
	XT_CHECK(xbf_plan_request(513, 128, &p) == -EINVAL, "513 bytes");
	/* 11 grants: plain; 12: indirect when available, else split */
	XT_CHECK(!xbf_plan_request(11 * g, 128, &p) && !p.indirect &&
		 p.nr_parts == 1, "11 grants");
	XT_CHECK(!xbf_plan_request(12 * g, 128, &p) && p.indirect &&
		 p.nr_parts == 1 && p.nr_indirect == 1, "12 grants indirect");
	XT_CHECK(!xbf_plan_request(12 * g, 0, &p) && !p.indirect &&
		 p.nr_parts == 2, "12 grants plain split");
	/* a 64 KB page without indirect: 16 grants in 11 + 5 */
	XT_CHECK(!xbf_plan_request(16 * g, 0, &p) && p.nr_parts == 2 &&
		 p.segs_per_part == 11, "64 KB plain");
	/* default 128 segments: 512 KB in one indirect request, one page */
	XT_CHECK(!xbf_plan_request(128 * g, 128, &p) && p.nr_parts == 1 &&
		 p.nr_indirect == 1, "512 KB");
	XT_CHECK(xbf_plan_max_slots(128 * g, 128) == 129, "max slots 512 KB");
	/* 513 segments need two indirect pages */
	XT_CHECK(!xbf_plan_request(513 * g, 1024, &p) && p.nr_indirect == 2,
		 "513 segs");
	XT_CHECK(!xbf_plan_request(XBF_MAX_PARTS * XBF_MAX_DIRECT_SEGS * g, 0,
				   &p) && p.nr_parts == XBF_MAX_PARTS,
		 "largest plain split");
	XT_CHECK(xbf_plan_request((XBF_MAX_PARTS * XBF_MAX_DIRECT_SEGS + 1) * g,
				  0, &p) == -E2BIG, "one grant more");
	/* effective segments */
	XT_CHECK(xbf_effective_segs(0, 128) == 0, "no backend indirect");
	XT_CHECK(xbf_effective_segs(256, 128) == 128, "min");
	XT_CHECK(xbf_effective_segs(8, 128) == 0, "<= 11 is plain");
	XT_CHECK(xbf_effective_segs(100000, 100000) == XBF_MAX_SEGS, "cap");
	XT_CHECK(xbf_effective_segs(4096, 4096) == XBF_MAX_SEGS, "4096 capped");
	XT_CHECK(xbf_effective_segs(256, 0) == 0, "param 0");
}

/*
 * The request sizes fixed at the first connect hold for any backend met
 * later (a restore onto another dom0, a lowered max_indirect_segments):
 * the largest request can always be re-split into ring requests that
 * fit the smallest ring and the slots set aside per request, and the
 * per-request driver data stays small enough for the tag set (one
 * slot pointer per slot, one 8-byte segment per data segment).
 */
static const unsigned int bt_lim[] = { 0, 1, 8, 11, 12, 13, 16, 32, 100, 128,
				       255, 256, 257, 512, 1024, 4095, 4096,
				       9999, 100000 };

static void test_limits(void)
{
	unsigned int i, j, k, m;

	for (i = 0; i < ARRAY_SIZE(bt_lim); i++)
		for (j = 0; j < ARRAY_SIZE(bt_lim); j++) {
			unsigned int eff = xbf_effective_segs(bt_lim[i], bt_lim[j]);
			struct xbf_limits l;
			unsigned long pdu;

			XT_CHECK(!xbf_size_requests(eff, &l),
				 "backend %u param %u: eff %u refused",
				 bt_lim[i], bt_lim[j], eff);
			XT_CHECK(l.max_bytes >= XGP_PAGE_SIZE &&
				 l.max_segs * XGP_GRANT_SIZE == l.max_bytes,
				 "eff %u: %u bytes in %u segs", eff, l.max_bytes,
				 l.max_segs);
			pdu = l.slots_per_rq * 8UL + l.max_segs * 8UL;
			XT_CHECK(pdu <= 8192, "backend %u param %u: %lu bytes of "
				 "driver data per request (%u slots, %u segs)",
				 bt_lim[i], bt_lim[j], pdu, l.slots_per_rq,
				 l.max_segs);
			XT_CHECK(l.max_parts >= 1 &&
				 l.max_parts <= XBF_MIN_RING_SIZE,
				 "eff %u: %u parts", eff, l.max_parts);
			/* every later limit: re-split, within the slots */
			for (k = 0; k < ARRAY_SIZE(bt_lim); k++)
				for (m = 0; m < ARRAY_SIZE(bt_lim); m++) {
					unsigned int e2 = xbf_effective_segs(bt_lim[k],
									     bt_lim[m]);
					struct xbf_plan p;

					XT_CHECK(!xbf_plan_request(l.max_bytes, e2, &p),
						 "first eff %u (%u bytes), later %u: "
						 "cannot be sent", eff, l.max_bytes, e2);
					XT_CHECK(p.nr_parts <= XBF_MIN_RING_SIZE &&
						 p.nr_grants + p.nr_indirect <=
						 l.slots_per_rq,
						 "first eff %u, later %u: %u parts, "
						 "%u slots of %u", eff, e2, p.nr_parts,
						 p.nr_grants + p.nr_indirect,
						 l.slots_per_rq);
				}
		}
}

/* A disk size the block layer can hold in bytes (loff_t) */
static void test_sectors(void)
{
	const u64 top = (u64)LLONG_MAX >> XBF_SECTOR_SHIFT;

	XT_CHECK(xbf_sectors_ok(0) && xbf_sectors_ok(131072), "small");
	XT_CHECK(xbf_sectors_ok(top), "largest: %llu", top);
	XT_CHECK(!xbf_sectors_ok(top + 1), "bytes overflow loff_t");
	XT_CHECK(!xbf_sectors_ok((u64)LLONG_MAX), "2^63 - 1");
	XT_CHECK(!xbf_sectors_ok(~0ULL), "2^64 - 1");
}

static void test_plan_random(void)
{
	unsigned int i, j;

	for (i = 0; i < 20000; i++) {
		unsigned long bytes = (1 + xt_below(8 * 1024)) * 512UL;

		j = xt_below(ARRAY_SIZE(bt_limits));
		bt_plan_one(bytes, bt_limits[j]);
		if (xt_failed)
			return;
	}
}

static void test_grant_sects(void)
{
	unsigned long bytes;

	for (bytes = 512; bytes <= 64 * 4096; bytes += 512) {
		unsigned int n = (bytes + XGP_GRANT_SIZE - 1) / XGP_GRANT_SIZE;
		unsigned long sum = 0;
		unsigned int i;
		u8 f, l;

		for (i = 0; i < n; i++) {
			xbf_grant_sects(bytes, i, &f, &l);
			XT_CHECK(f == 0 && l >= f && l < XBF_SECTORS_PER_GRANT,
				 "bytes %lu grant %u: %u..%u", bytes, i, f, l);
			XT_CHECK(i == n - 1 || l == XBF_SECTORS_PER_GRANT - 1,
				 "bytes %lu grant %u not full", bytes, i);
			sum += (unsigned long)(l - f + 1) << XBF_SECTOR_SHIFT;
		}
		XT_CHECK(sum == bytes, "bytes %lu: sectors cover %lu", bytes,
			 sum);
	}
}

/* Malformed responses: every bad one is refused and changes nothing. */
static void test_rsp_malformed(void)
{
	struct xgp_idtab t;
	unsigned long cookie = 0;
	u8 part = 0;
	int a, b, i;

	XT_CHECK(!xgp_idtab_init(&t, 32), "init");
	a = xgp_id_get(&t, 0, 0x1000, 0);	/* read */
	b = xgp_id_get(&t, 1, 0x2000, 1);	/* write */
	XT_CHECK(a == 0 && b == 1 && t.inflight == 2, "ids %d %d", a, b);
	XT_CHECK(xbf_rsp_check(&t, 32, 0, 0, &cookie, &part) == XBF_RSP_BAD_ID,
		 "id == size");
	XT_CHECK(xbf_rsp_check(&t, ~0ULL, 0, 0, &cookie, &part) ==
		 XBF_RSP_BAD_ID, "id ~0");
	XT_CHECK(xbf_rsp_check(&t, 1ULL << 32, 0, 0, &cookie, &part) ==
		 XBF_RSP_BAD_ID, "id 2^32 (no truncation)");
	XT_CHECK(xbf_rsp_check(&t, 5, 0, 0, &cookie, &part) ==
		 XBF_RSP_NOT_INFLIGHT, "never issued");
	XT_CHECK(xbf_rsp_check(&t, a, 1, 0, &cookie, &part) == XBF_RSP_BAD_OP,
		 "wrong op");
	XT_CHECK(xbf_rsp_check(&t, a, 0, 1, &cookie, &part) ==
		 XBF_RSP_BAD_STATUS, "status 1");
	XT_CHECK(xbf_rsp_check(&t, a, 0, -3, &cookie, &part) ==
		 XBF_RSP_BAD_STATUS, "status -3");
	XT_CHECK(xbf_rsp_check(&t, a, 0, 0x7fff, &cookie, &part) ==
		 XBF_RSP_BAD_STATUS, "status 0x7fff");
	XT_CHECK(t.inflight == 2 && cookie == 0, "bad responses changed state");
	XT_CHECK(xbf_rsp_check(&t, a, 0, 0, &cookie, &part) == XBF_RSP_OKAY &&
		 cookie == 0x1000 && part == 0, "good response");
	XT_CHECK(xbf_rsp_check(&t, a, 0, 0, &cookie, &part) ==
		 XBF_RSP_NOT_INFLIGHT, "double completion");
	XT_CHECK(xbf_rsp_check(&t, b, 1, -1, &cookie, &part) == XBF_RSP_ERROR &&
		 cookie == 0x2000 && part == 1, "error status");
	XT_CHECK(t.inflight == 0, "inflight %u", t.inflight);
	/* exhaust, then one more */
	for (i = 0; i < 32; i++)
		XT_CHECK(xgp_id_get(&t, 0, i + 1, 0) >= 0, "get %d", i);
	XT_CHECK(xgp_id_get(&t, 0, 99, 0) == -ENOSPC, "33rd id");
	XT_CHECK(xbf_rsp_check(&t, 7, 0, -2, &cookie, &part) ==
		 XBF_RSP_NOTSUPP && cookie == 8, "eopnotsupp");
	XT_CHECK(xgp_id_get(&t, 3, 99, 0) == 7, "freed id reused");
	xgp_id_put(&t, 40);	/* ignored */
	xgp_idtab_reset(&t);
	XT_CHECK(t.inflight == 0 && xgp_id_get(&t, 0, 1, 0) == 0, "reset");
	xgp_idtab_destroy(&t);
	XT_CHECK(!strcmp(xbf_verdict_str(XBF_RSP_BAD_OP), "wrong operation"),
		 "verdict name");
}

/* Random ids against a model: outstanding set, ops, cookies. */
static void test_rsp_random(void)
{
	enum { N = 64 };
	struct xgp_idtab t;
	bool out[N] = { 0 };
	u8 ops[N] = { 0 };
	unsigned long cookie;
	unsigned int inflight = 0, i;
	u8 part;

	XT_CHECK(!xgp_idtab_init(&t, N), "init");
	for (i = 0; i < 200000; i++) {
		unsigned int r = xt_below(4);

		if (r == 0) {
			u8 op = xt_below(7);
			int id = xgp_id_get(&t, op, 1000 + i, op);

			if (inflight == N) {
				XT_CHECK(id == -ENOSPC, "full but got %d", id);
				continue;
			}
			XT_CHECK(id >= 0 && id < N && !out[id], "got %d", id);
			out[id] = true;
			ops[id] = op;
			inflight++;
		} else {
			u64 id = xt_below(3) ? xt_below(N) : xt_rand();
			u8 op = xt_below(4) ? (id < N ? ops[id] : 0) : xt_below(256);
			int st = xt_below(4) ? 0 : (int)xt_below(9) - 4;
			enum xbf_verdict v = xbf_rsp_check(&t, id, op, st,
							   &cookie, &part);
			enum xbf_verdict want;

			if (id >= N)
				want = XBF_RSP_BAD_ID;
			else if (!out[id])
				want = XBF_RSP_NOT_INFLIGHT;
			else if (op != ops[id])
				want = XBF_RSP_BAD_OP;
			else if (st == 0)
				want = XBF_RSP_OKAY;
			else if (st == -1)
				want = XBF_RSP_ERROR;
			else if (st == -2)
				want = XBF_RSP_NOTSUPP;
			else
				want = XBF_RSP_BAD_STATUS;
			XT_CHECK(v == want, "step %u id %llu op %u st %d: %s, want %s",
				 i, id, op, st, xbf_verdict_str(v),
				 xbf_verdict_str(want));
			if (want <= XBF_RSP_NOTSUPP) {
				XT_CHECK(part == ops[id], "part");
				out[id] = false;
				inflight--;
			}
		}
		XT_CHECK(t.inflight == inflight, "inflight %u vs %u",
			 t.inflight, inflight);
	}
	xgp_idtab_destroy(&t);
}

/* Flush and barrier answers: downgraded where the backend cannot flush. */
static void test_rsp_outcome(void)
{
	const u8 flush = XBF_BLKIF_OP_FLUSH_DISKCACHE;
	const u8 barrier = XBF_BLKIF_OP_WRITE_BARRIER;
	bool stop = false;

	XT_CHECK(xbf_rsp_outcome(flush, XBF_RSP_NOTSUPP, 0, &stop) ==
		 XBF_OUT_OK && stop, "flush EOPNOTSUPP: ok, stop flushing");
	stop = false;
	XT_CHECK(xbf_rsp_outcome(barrier, XBF_RSP_NOTSUPP, 0, &stop) ==
		 XBF_OUT_OK && stop, "barrier EOPNOTSUPP: ok, stop");
	stop = false;
	XT_CHECK(xbf_rsp_outcome(barrier, XBF_RSP_ERROR, 0, &stop) ==
		 XBF_OUT_OK && stop, "empty barrier ERROR: ok, stop");
	stop = false;
	XT_CHECK(xbf_rsp_outcome(barrier, XBF_RSP_ERROR, 3, &stop) ==
		 XBF_OUT_IOERR && !stop, "barrier with data ERROR");
	XT_CHECK(xbf_rsp_outcome(flush, XBF_RSP_ERROR, 0, &stop) ==
		 XBF_OUT_IOERR && !stop, "flush ERROR is a real failure");
	XT_CHECK(xbf_rsp_outcome(flush, XBF_RSP_OKAY, 0, &stop) ==
		 XBF_OUT_OK && !stop, "flush ok");
	XT_CHECK(xbf_rsp_outcome(XBF_BLKIF_OP_WRITE, XBF_RSP_NOTSUPP, 4,
				 &stop) == XBF_OUT_NOTSUPP && !stop,
		 "write EOPNOTSUPP");
	XT_CHECK(xbf_rsp_outcome(XBF_BLKIF_OP_DISCARD, XBF_RSP_NOTSUPP, 0,
				 &stop) == XBF_OUT_NOTSUPP && !stop,
		 "discard EOPNOTSUPP");
	XT_CHECK(xbf_rsp_outcome(XBF_BLKIF_OP_READ, XBF_RSP_ERROR, 1, &stop) ==
		 XBF_OUT_IOERR && !stop, "read ERROR");
	XT_CHECK(xbf_rsp_outcome(XBF_BLKIF_OP_READ, XBF_RSP_OKAY, 1, &stop) ==
		 XBF_OUT_OK && !stop, "read ok");
}

/*
 * Zero-copy segments: every piece stays inside one 4 KB frame, the
 * pieces cover the segment in order, the sector range of each piece
 * names exactly its bytes, and the count matches xbf_direct_pieces().
 * A misaligned segment is refused (the caller copies it instead).
 */
static void bt_direct_one(unsigned long off, unsigned long len,
			  unsigned int ss)
{
	struct xbf_direct_piece pc;
	struct xgp_copy_iter it;
	unsigned long pos = off, done = 0;
	unsigned int n = 0, want = xbf_direct_pieces(off, len, ss);

	XT_CHECK(want, "off %lu len %lu refused", off, len);
	xgp_copy_iter_init(&it, off, 0, len);
	while (xbf_direct_next(&it, &pc)) {
		unsigned long at = pc.page_idx * XGP_PAGE_SIZE +
				   (unsigned long)pc.sub * XGP_GRANT_SIZE +
				   ((unsigned long)pc.first_sect << XBF_SECTOR_SHIFT);

		XT_CHECK(pc.sub < XGP_PAGE_SIZE / XGP_GRANT_SIZE,
			 "off %lu len %lu: frame %u of a page", off, len, pc.sub);
		XT_CHECK(pc.first_sect <= pc.last_sect &&
			 pc.last_sect < XBF_SECTORS_PER_GRANT,
			 "off %lu len %lu: sectors %u..%u", off, len,
			 pc.first_sect, pc.last_sect);
		XT_CHECK(pc.len == (unsigned int)(pc.last_sect - pc.first_sect + 1)
			 << XBF_SECTOR_SHIFT, "off %lu len %lu: len %u vs sectors",
			 off, len, pc.len);
		XT_CHECK(at == pos, "off %lu len %lu: piece at %lu, want %lu",
			 off, len, at, pos);
		XT_CHECK(n == 0 || pc.first_sect == 0,
			 "off %lu len %lu: inner piece not frame-aligned", off,
			 len);
		/* blkback: a segment is whole logical blocks, or an error */
		XT_CHECK(!((pc.first_sect << XBF_SECTOR_SHIFT) % ss) &&
			 !(pc.len % ss), "off %lu len %lu: piece %u+%u is not "
			 "whole %u-byte sectors", off, len,
			 pc.first_sect << XBF_SECTOR_SHIFT, pc.len, ss);
		pos += pc.len;
		done += pc.len;
		n++;
		if (xt_failed)
			return;
	}
	XT_CHECK(done == len, "off %lu len %lu: pieces cover %lu", off, len,
		 done);
	XT_CHECK(n == want, "off %lu len %lu: %u pieces, counted %u", off, len,
		 n, want);
}

static void test_direct(void)
{
	unsigned long p = XGP_PAGE_SIZE, g = XGP_GRANT_SIZE;
	unsigned int i;
	struct xbf_plan pl;

	XT_CHECK(xbf_direct_pieces(0, g, 512) == 1, "aligned 4 KB");
	XT_CHECK(xbf_direct_pieces(512, g, 512) == 2, "4 KB at 512");
	XT_CHECK(xbf_direct_pieces(g - 512, 1024, 512) == 2,
		 "1 KB across a frame");
	XT_CHECK(xbf_direct_pieces(0, p, 512) == p / g, "one page");
	XT_CHECK(!xbf_direct_pieces(0, 0, 512), "empty");
	XT_CHECK(!xbf_direct_pieces(1, 512, 512), "odd offset");
	XT_CHECK(!xbf_direct_pieces(0, 700, 512), "odd length");
	/* 4 KB logical blocks: only whole, aligned blocks go in place */
	XT_CHECK(xbf_direct_pieces(0, g, 4096) == 1, "4Kn aligned");
	XT_CHECK(!xbf_direct_pieces(512, g, 4096), "4Kn at 512");
	XT_CHECK(!xbf_direct_pieces(0, 3584, 4096), "4Kn short");
	XT_CHECK(!xbf_direct_pieces(2048, 2048, 4096), "4Kn half frame");
	XT_CHECK(xbf_direct_pieces(1024, 3072, 1024) == 1, "1 KB sectors");
	XT_CHECK(!xbf_direct_pieces(512, 1024, 1024), "1 KB sectors at 512");
	bt_direct_one(0, 512, 512);
	bt_direct_one(g - 512, 1024, 512);
	bt_direct_one(p - 512, 512, 512);
	bt_direct_one(0, p, 512);
	bt_direct_one(0, p, 4096);
	for (i = 0; i < 20000 && !xt_failed; i++) {
		unsigned int ss = 512U << xt_below(4);
		unsigned long off = xt_below(p / 512) * 512;
		unsigned long len = (1 + xt_below(2 * p / 512)) * 512;

		if (xbf_direct_pieces(off, len, ss)) {
			bt_direct_one(off, len, ss);
		} else {
			XT_CHECK(off % ss || len % ss, "ss %u off %lu len %lu "
				 "refused", ss, off, len);
		}
	}
	/* a plan over more grants than the bytes pack into */
	XT_CHECK(!xbf_plan_segs(12, 11 * g, 0, &pl) && pl.nr_parts == 2 &&
		 pl.nr_grants == 12, "12 pieces of 44 KB, plain");
	XT_CHECK(!xbf_plan_segs(12, 11 * g, 128, &pl) && pl.indirect &&
		 pl.nr_parts == 1 && pl.nr_indirect == 1, "12 pieces, indirect");
	XT_CHECK(xbf_plan_segs(1, 2 * g, 128, &pl) == -EINVAL,
		 "fewer grants than 4 KB frames");
	XT_CHECK(xbf_plan_segs(3, 1024, 128, &pl) == -EINVAL,
		 "more grants than sectors");
	XT_CHECK(!xbf_plan_segs(2, 1024, 128, &pl) && !pl.indirect,
		 "two one-sector pieces");
}

static const struct xt_case bt_cases[] = {
	{ "blk_plan_limits", test_plan_limits },
	{ "blk_plan_random", test_plan_random },
	{ "blk_limits", test_limits },
	{ "blk_sectors", test_sectors },
	{ "blk_grant_sects", test_grant_sects },
	{ "blk_direct", test_direct },
	{ "blk_rsp_malformed", test_rsp_malformed },
	{ "blk_rsp_random", test_rsp_random },
	{ "blk_rsp_outcome", test_rsp_outcome },
};

int main(void)
{
	return xt_run("blkfront unit tests", bt_cases, ARRAY_SIZE(bt_cases),
		      NULL);
}
