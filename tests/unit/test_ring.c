// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Unit tests of the frontend mechanics xen-grant-pool shares
 * (src/grant-pool/xgp_ring_core.c): request ids against a model and
 * against malformed responses, ring index accounting, and the packed
 * copy iterator for odd offsets and lengths on 4, 16 and 64 KB pages.
 */
#include <stdlib.h>
#include <xen-pv-suite/xgp_ring.h>
#include "harness.h"

/* Malformed response ids: each is refused and changes nothing. */
void test_ring_ids_malformed(void)
{
	struct xgp_idtab t;
	unsigned long cookie = 0;
	u8 aux = 0;
	int a, b, i;

	XT_CHECK(!xgp_idtab_init(&t, 32), "init");
	a = xgp_id_get(&t, 0, 0x1000, 7);
	b = xgp_id_get(&t, 1, 0x2000, 9);
	XT_CHECK(a == 0 && b == 1 && t.inflight == 2, "ids %d %d", a, b);
	XT_CHECK(xgp_id_check(&t, 32, 0) == XGP_ID_BAD, "id == size");
	XT_CHECK(xgp_id_check(&t, ~0ULL, 0) == XGP_ID_BAD, "id ~0");
	XT_CHECK(xgp_id_check(&t, 1ULL << 32, 0) == XGP_ID_BAD,
		 "id 2^32 (no truncation)");
	XT_CHECK(xgp_id_check(&t, 5, 0) == XGP_ID_NOT_INFLIGHT, "never issued");
	XT_CHECK(xgp_id_check(&t, a, 1) == XGP_ID_BAD_TAG, "wrong tag");
	XT_CHECK(t.inflight == 2, "checks changed state");
	XT_CHECK(xgp_id_check(&t, a, 0) == XGP_ID_OK, "good id");
	xgp_id_complete(&t, a, &cookie, &aux);
	XT_CHECK(cookie == 0x1000 && aux == 7 && t.inflight == 1, "complete");
	XT_CHECK(xgp_id_check(&t, a, 0) == XGP_ID_NOT_INFLIGHT,
		 "double completion");
	for (i = 0; i < 31; i++)
		XT_CHECK(xgp_id_get(&t, 0, i + 1, 0) >= 0, "get %d", i);
	XT_CHECK(xgp_id_get(&t, 0, 99, 0) == -ENOSPC, "33rd id");
	xgp_id_put(&t, 40);	/* ignored */
	xgp_id_put(&t, b);
	XT_CHECK(xgp_id_get(&t, 3, 99, 0) == b, "freed id reused");
	xgp_idtab_reset(&t);
	XT_CHECK(t.inflight == 0 && xgp_id_get(&t, 0, 1, 0) == 0, "reset");
	xgp_idtab_destroy(&t);
	XT_CHECK(!t.ent && !t.size, "destroy");
}

/* Random gets, checks and completions against a model. */
void test_ring_ids_random(void)
{
	enum { N = 64 };
	struct xgp_idtab t;
	bool out[N] = { 0 };
	u8 tags[N] = { 0 }, auxs[N] = { 0 };
	unsigned long cookies[N] = { 0 }, cookie;
	unsigned int inflight = 0, i;
	u8 aux;

	XT_CHECK(!xgp_idtab_init(&t, N), "init");
	for (i = 0; i < 200000; i++) {
		if (xt_below(3) == 0) {
			u8 tag = xt_below(7);
			int id = xgp_id_get(&t, tag, 1000 + i, i & 0xff);

			if (inflight == N) {
				XT_CHECK(id == -ENOSPC, "full but got %d", id);
				continue;
			}
			XT_CHECK(id >= 0 && id < N && !out[id], "got %d", id);
			out[id] = true;
			tags[id] = tag;
			auxs[id] = i & 0xff;
			cookies[id] = 1000 + i;
			inflight++;
		} else {
			u64 id = xt_below(3) ? xt_below(N) : xt_rand();
			u8 tag = xt_below(4) ? (id < N ? tags[id] : 0) : xt_below(256);
			enum xgp_id_verdict v = xgp_id_check(&t, id, tag), want;

			if (id >= N)
				want = XGP_ID_BAD;
			else if (!out[id])
				want = XGP_ID_NOT_INFLIGHT;
			else if (tag != tags[id])
				want = XGP_ID_BAD_TAG;
			else
				want = XGP_ID_OK;
			XT_CHECK(v == want, "step %u id %llu tag %u: %d, want %d",
				 i, id, tag, v, want);
			if (v == XGP_ID_OK) {
				xgp_id_complete(&t, id, &cookie, &aux);
				XT_CHECK(cookie == cookies[id] && aux == auxs[id],
					 "step %u: cookie or aux", i);
				out[id] = false;
				inflight--;
			}
		}
		XT_CHECK(t.inflight == inflight, "inflight %u vs %u",
			 t.inflight, inflight);
	}
	xgp_idtab_destroy(&t);
}

void test_ring_accounting(void)
{
	u32 nr;

	XT_CHECK(!xgp_rsp_avail(5, 2, 7, 32, &nr) && nr == 3, "simple");
	XT_CHECK(xgp_rsp_avail(8, 2, 7, 32, &nr) == -EPROTO && nr == 0,
		 "more responses than requests");
	XT_CHECK(xgp_rsp_avail(1, 2, 7, 32, &nr) == -EPROTO,
		 "producer behind consumer");
	XT_CHECK(!xgp_rsp_avail(3, 0xfffffffeU, 5, 32, &nr) && nr == 5,
		 "wrap");
	XT_CHECK(xgp_rsp_avail(0x80000000U, 0, 40, 32, &nr) == -EPROTO,
		 "more outstanding than the ring holds");
	XT_CHECK(!xgp_rsp_avail(7, 7, 7, 32, &nr) && nr == 0, "none");
	XT_CHECK(xgp_ring_room(7, 7, 32) == 32, "empty ring");
	XT_CHECK(xgp_ring_room(39, 7, 32) == 0, "full ring");
	XT_CHECK(xgp_ring_room(2, 0xfffffff0U, 32) == 14, "wrap free");
	XT_CHECK(xgp_ring_room(100, 7, 32) == 0, "inconsistent");
}

#define RT_MAX_SEGS	16
#define RT_MAX_BYTES	(RT_MAX_SEGS * 4 * 65536UL)

/*
 * A request made of segments at random offsets of random pages (odd
 * lengths too: the block layer only promises the total is aligned),
 * copied into packed grants and back through the fragments.
 */
static void rt_copy_case(unsigned int nsegs, const unsigned long *off,
			 const unsigned long *len, unsigned char *src,
			 unsigned char *grants, unsigned char *back)
{
	unsigned long pos = 0, seg_base = 0, total = 0;
	struct xgp_copy_frag f;
	struct xgp_copy_iter it;
	unsigned int s;

	for (s = 0; s < nsegs; s++)
		total += len[s];
	memset(grants, 0xee, RT_MAX_BYTES);
	for (s = 0; s < nsegs; s++) {
		unsigned long done = 0;

		xgp_copy_iter_init(&it, off[s], pos, len[s]);
		while (xgp_copy_next(&it, &f)) {
			unsigned long from = seg_base +
				f.page_idx * XGP_PAGE_SIZE + f.page_off;
			unsigned long to = (unsigned long)f.grant *
				XGP_GRANT_SIZE + f.grant_off;

			XT_CHECK(f.len >= 1, "empty fragment");
			XT_CHECK(f.page_off + f.len <= XGP_PAGE_SIZE,
				 "seg %u: fragment crosses a page", s);
			XT_CHECK(f.grant_off + f.len <= XGP_GRANT_SIZE,
				 "seg %u: fragment crosses a grant", s);
			XT_CHECK(from == seg_base + off[s] + done,
				 "seg %u: source %lu, want %lu", s, from,
				 seg_base + off[s] + done);
			XT_CHECK(to == pos + done, "seg %u: dest %lu want %lu",
				 s, to, pos + done);
			memcpy(grants + to, src + from, f.len);
			done += f.len;
		}
		XT_CHECK(done == len[s], "seg %u copied %lu of %lu", s, done,
			 len[s]);
		pos += len[s];
		/* next segment in other pages */
		seg_base += ((off[s] + len[s]) / XGP_PAGE_SIZE + 1) *
			    XGP_PAGE_SIZE;
	}
	/* packed: the grants hold the segments' bytes back to back */
	pos = 0;
	seg_base = 0;
	for (s = 0; s < nsegs; s++) {
		XT_CHECK(!memcmp(grants + pos, src + seg_base + off[s], len[s]),
			 "seg %u data differs in the grants", s);
		pos += len[s];
		seg_base += ((off[s] + len[s]) / XGP_PAGE_SIZE + 1) *
			    XGP_PAGE_SIZE;
	}
	XT_CHECK(grants[total] == 0xee, "wrote past the request");
	/* and back (the read direction) */
	pos = 0;
	seg_base = 0;
	for (s = 0; s < nsegs; s++) {
		xgp_copy_iter_init(&it, off[s], pos, len[s]);
		while (xgp_copy_next(&it, &f))
			memcpy(back + seg_base + f.page_idx * XGP_PAGE_SIZE +
			       f.page_off, grants + (unsigned long)f.grant *
			       XGP_GRANT_SIZE + f.grant_off, f.len);
		XT_CHECK(!memcmp(back + seg_base + off[s], src + seg_base + off[s],
				 len[s]), "seg %u: read back differs", s);
		pos += len[s];
		seg_base += ((off[s] + len[s]) / XGP_PAGE_SIZE + 1) *
			    XGP_PAGE_SIZE;
	}
}

void test_ring_copy(void)
{
	const unsigned long p = XGP_PAGE_SIZE, g = XGP_GRANT_SIZE;
	const unsigned long offs[] = { 0, 1, 511, 512, g - 1, g, g + 7,
				       p - 512, p - 1 };
	const unsigned long lens[] = { 1, 3, 511, 512, 1000, g - 1, g, g + 1,
				       p - 1, p, p + 513, 2 * p + 512 };
	unsigned char *src, *grants, *back;
	unsigned long off[RT_MAX_SEGS], len[RT_MAX_SEGS];
	unsigned int i, j, k, n, iter;

	src = malloc(RT_MAX_SEGS * 4 * 65536UL);
	back = calloc(1, RT_MAX_SEGS * 4 * 65536UL);
	grants = malloc(RT_MAX_BYTES + 1);
	XT_CHECK(src && back && grants, "out of memory");
	for (i = 0; i < RT_MAX_SEGS * 4 * 65536UL; i++)
		src[i] = xt_rand();
	/* fixed: two segments, every offset/length pair, odd lengths too */
	for (i = 0; i < ARRAY_SIZE(offs) && !xt_failed; i++)
		for (j = 0; j < ARRAY_SIZE(lens) && !xt_failed; j++)
			for (k = 0; k < ARRAY_SIZE(offs) && !xt_failed; k++) {
				off[0] = offs[i];
				len[0] = lens[j];
				off[1] = offs[k];
				len[1] = lens[ARRAY_SIZE(lens) - 1 - j];
				rt_copy_case(2, off, len, src, grants, back);
			}
	/* random */
	for (iter = 0; iter < 3000 && !xt_failed; iter++) {
		n = 1 + xt_below(RT_MAX_SEGS);
		for (i = 0; i < n; i++) {
			off[i] = xt_below(p);
			len[i] = 1 + xt_below(2 * p);
			if (len[i] > 3 * 65536UL - off[i])
				len[i] = 1;
		}
		rt_copy_case(n, off, len, src, grants, back);
	}
	free(src);
	free(back);
	free(grants);
}
