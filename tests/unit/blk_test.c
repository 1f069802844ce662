// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Unit tests of the pure xen-blkfront-64k logic (src/blkfront/xbf_core.c):
 * request layout in 4 KB grants for 4, 16 and 64 KB pages, copy
 * fragments for odd offsets and lengths, plain/indirect/split limits,
 * ring index and request id accounting, and response validation
 * against malformed responses.  One PASS/FAIL line per test; SEED=<n>
 * reproduces a randomized run.
 */
#include <stdio.h>
#include <stdarg.h>
#include <time.h>
#include <xen-pv-suite/blkfront_core.h>

static int bt_failed;
static char bt_why[512];
static u64 bt_state;

static void __printf(3, 4) bt_fail(const char *file, int line,
				   const char *fmt, ...)
{
	va_list ap;
	int n;

	if (bt_failed++)
		return;
	n = snprintf(bt_why, sizeof(bt_why), "%s:%d: ", file, line);
	va_start(ap, fmt);
	vsnprintf(bt_why + n, sizeof(bt_why) - n, fmt, ap);
	va_end(ap);
}

#define BT_CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			bt_fail(__FILE__, __LINE__, __VA_ARGS__);	\
			return;						\
		}							\
	} while (0)

static u64 bt_rand(void)
{
	/* xorshift64* */
	bt_state ^= bt_state >> 12;
	bt_state ^= bt_state << 25;
	bt_state ^= bt_state >> 27;
	return bt_state * 0x2545F4914F6CDD1DULL;
}

static unsigned int bt_below(unsigned int n)
{
	return n ? bt_rand() % n : 0;
}

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

		BT_CHECK(!eff || g > XBF_MAX_PARTS * eff,
			 "bytes %lu eff %u: E2BIG too early", bytes, eff);
		BT_CHECK(eff || g > XBF_MAX_PARTS * XBF_MAX_DIRECT_SEGS,
			 "bytes %lu direct: E2BIG too early", bytes);
		return;
	}
	BT_CHECK(!err, "bytes %lu eff %u: err %d", bytes, eff, err);
	BT_CHECK(p.nr_grants == (bytes + XGP_GRANT_SIZE - 1) / XGP_GRANT_SIZE,
		 "bytes %lu: %u grants", bytes, p.nr_grants);
	BT_CHECK(p.nr_parts >= 1 && p.nr_parts <= XBF_MAX_PARTS,
		 "bytes %lu: %u parts", bytes, p.nr_parts);
	BT_CHECK(!p.indirect || p.nr_grants > XBF_MAX_DIRECT_SEGS,
		 "bytes %lu: indirect for a request that fits plain", bytes);
	BT_CHECK(p.indirect || p.nr_parts == 1 || !eff,
		 "bytes %lu: split although indirect is available", bytes);
	for (i = 0; i < p.nr_parts; i++) {
		xbf_plan_part(&p, i, &first, &n, &ind);
		BT_CHECK(first == next, "part %u starts at %u, want %u", i,
			 first, next);
		BT_CHECK(n >= 1, "part %u empty", i);
		if (p.indirect) {
			BT_CHECK(n <= eff, "part %u: %u > %u segs", i, n, eff);
			BT_CHECK(ind >= 1 && ind <= XBF_MAX_INDIRECT_PAGES,
				 "part %u: %u indirect pages", i, ind);
			BT_CHECK(ind * XBF_SEGS_PER_INDIRECT >= n &&
				 (ind - 1) * XBF_SEGS_PER_INDIRECT < n,
				 "part %u: %u indirect pages for %u segs", i,
				 ind, n);
		} else {
			BT_CHECK(n <= XBF_MAX_DIRECT_SEGS,
				 "part %u: %u plain segs", i, n);
			BT_CHECK(!ind, "plain part with indirect pages");
		}
		next += n;
		ind_total += ind;
	}
	BT_CHECK(next == p.nr_grants, "parts cover %u of %u", next, p.nr_grants);
	BT_CHECK(ind_total == p.nr_indirect, "indirect %u vs %u", ind_total,
		 p.nr_indirect);
}

static void test_plan_limits(void)
{
	const unsigned long g = XGP_GRANT_SIZE;
	struct xbf_plan p;

	BT_CHECK(xbf_plan_request(0, 0, &p) == -EINVAL, "0 bytes");
	BT_CHECK(xbf_plan_request(100, 0, &p) == -EINVAL, "100 bytes");
	BT_CHECK(xbf_plan_request(513, 128, &p) == -EINVAL, "513 bytes");
	/* 11 grants: plain; 12: indirect when available, else split */
	BT_CHECK(!xbf_plan_request(11 * g, 128, &p) && !p.indirect &&
		 p.nr_parts == 1, "11 grants");
	BT_CHECK(!xbf_plan_request(12 * g, 128, &p) && p.indirect &&
		 p.nr_parts == 1 && p.nr_indirect == 1, "12 grants indirect");
	BT_CHECK(!xbf_plan_request(12 * g, 0, &p) && !p.indirect &&
		 p.nr_parts == 2, "12 grants plain split");
	/* a 64 KB page without indirect: 16 grants in 11 + 5 */
	BT_CHECK(!xbf_plan_request(16 * g, 0, &p) && p.nr_parts == 2 &&
		 p.segs_per_part == 11, "64 KB plain");
	/* default 128 segments: 512 KB in one indirect request, one page */
	BT_CHECK(!xbf_plan_request(128 * g, 128, &p) && p.nr_parts == 1 &&
		 p.nr_indirect == 1, "512 KB");
	BT_CHECK(xbf_plan_max_slots(128 * g, 128) == 129, "max slots 512 KB");
	/* 513 segments need two indirect pages */
	BT_CHECK(!xbf_plan_request(513 * g, 1024, &p) && p.nr_indirect == 2,
		 "513 segs");
	BT_CHECK(xbf_plan_request(45 * g, 0, &p) == -E2BIG, "45 plain grants");
	/* effective segments */
	BT_CHECK(xbf_effective_segs(0, 128) == 0, "no backend indirect");
	BT_CHECK(xbf_effective_segs(256, 128) == 128, "min");
	BT_CHECK(xbf_effective_segs(8, 128) == 0, "<= 11 is plain");
	BT_CHECK(xbf_effective_segs(100000, 100000) == 4096, "8 pages cap");
	BT_CHECK(xbf_effective_segs(256, 0) == 0, "param 0");
}

static void test_plan_random(void)
{
	unsigned int i, j;

	for (i = 0; i < 20000; i++) {
		unsigned long bytes = (1 + bt_below(8 * 1024)) * 512UL;

		j = bt_below(ARRAY_SIZE(bt_limits));
		bt_plan_one(bytes, bt_limits[j]);
		if (bt_failed)
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
			BT_CHECK(f == 0 && l >= f && l < XBF_SECTORS_PER_GRANT,
				 "bytes %lu grant %u: %u..%u", bytes, i, f, l);
			BT_CHECK(i == n - 1 || l == XBF_SECTORS_PER_GRANT - 1,
				 "bytes %lu grant %u not full", bytes, i);
			sum += (unsigned long)(l - f + 1) << XBF_SECTOR_SHIFT;
		}
		BT_CHECK(sum == bytes, "bytes %lu: sectors cover %lu", bytes,
			 sum);
	}
}

#define BT_MAX_SEGS	16
#define BT_MAX_BYTES	(BT_MAX_SEGS * 4 * 65536UL)

/*
 * A request made of segments at random offsets of random pages (odd
 * lengths too: the block layer only promises the total is aligned),
 * copied into packed grants and back through the fragments.
 */
static void bt_copy_case(unsigned int nsegs, const unsigned long *off,
			 const unsigned long *len, unsigned char *src,
			 unsigned char *grants, unsigned char *back)
{
	unsigned long pos = 0, seg_base = 0, total = 0;
	struct xbf_copy_frag f;
	struct xbf_copy_iter it;
	unsigned int s;

	for (s = 0; s < nsegs; s++)
		total += len[s];
	memset(grants, 0xee, BT_MAX_BYTES);
	for (s = 0; s < nsegs; s++) {
		unsigned long done = 0;

		xbf_copy_iter_init(&it, off[s], pos, len[s]);
		while (xbf_copy_next(&it, &f)) {
			unsigned long from = seg_base +
				f.page_idx * XGP_PAGE_SIZE + f.page_off;
			unsigned long to = (unsigned long)f.grant *
				XGP_GRANT_SIZE + f.grant_off;

			BT_CHECK(f.len >= 1, "empty fragment");
			BT_CHECK(f.page_off + f.len <= XGP_PAGE_SIZE,
				 "seg %u: fragment crosses a page", s);
			BT_CHECK(f.grant_off + f.len <= XGP_GRANT_SIZE,
				 "seg %u: fragment crosses a grant", s);
			BT_CHECK(from == seg_base + off[s] + done,
				 "seg %u: source %lu, want %lu", s, from,
				 seg_base + off[s] + done);
			BT_CHECK(to == pos + done, "seg %u: dest %lu want %lu",
				 s, to, pos + done);
			memcpy(grants + to, src + from, f.len);
			done += f.len;
		}
		BT_CHECK(done == len[s], "seg %u copied %lu of %lu", s, done,
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
		BT_CHECK(!memcmp(grants + pos, src + seg_base + off[s], len[s]),
			 "seg %u data differs in the grants", s);
		pos += len[s];
		seg_base += ((off[s] + len[s]) / XGP_PAGE_SIZE + 1) *
			    XGP_PAGE_SIZE;
	}
	BT_CHECK(grants[total] == 0xee, "wrote past the request");
	/* and back (the read direction) */
	pos = 0;
	seg_base = 0;
	for (s = 0; s < nsegs; s++) {
		xbf_copy_iter_init(&it, off[s], pos, len[s]);
		while (xbf_copy_next(&it, &f))
			memcpy(back + seg_base + f.page_idx * XGP_PAGE_SIZE +
			       f.page_off, grants + (unsigned long)f.grant *
			       XGP_GRANT_SIZE + f.grant_off, f.len);
		BT_CHECK(!memcmp(back + seg_base + off[s], src + seg_base + off[s],
				 len[s]), "seg %u: read back differs", s);
		pos += len[s];
		seg_base += ((off[s] + len[s]) / XGP_PAGE_SIZE + 1) *
			    XGP_PAGE_SIZE;
	}
}

static void test_copy(void)
{
	const unsigned long p = XGP_PAGE_SIZE, g = XGP_GRANT_SIZE;
	const unsigned long offs[] = { 0, 1, 511, 512, g - 1, g, g + 7,
				       p - 512, p - 1 };
	const unsigned long lens[] = { 1, 3, 511, 512, 1000, g - 1, g, g + 1,
				       p - 1, p, p + 513, 2 * p + 512 };
	unsigned char *src, *grants, *back;
	unsigned long off[BT_MAX_SEGS], len[BT_MAX_SEGS];
	unsigned int i, j, k, n, iter;

	src = malloc(BT_MAX_SEGS * 4 * 65536UL);
	back = calloc(1, BT_MAX_SEGS * 4 * 65536UL);
	grants = malloc(BT_MAX_BYTES + 1);
	BT_CHECK(src && back && grants, "out of memory");
	for (i = 0; i < BT_MAX_SEGS * 4 * 65536UL; i++)
		src[i] = bt_rand();
	/* fixed: two segments, every offset/length pair, odd lengths too */
	for (i = 0; i < ARRAY_SIZE(offs) && !bt_failed; i++)
		for (j = 0; j < ARRAY_SIZE(lens) && !bt_failed; j++)
			for (k = 0; k < ARRAY_SIZE(offs) && !bt_failed; k++) {
				off[0] = offs[i];
				len[0] = lens[j];
				off[1] = offs[k];
				len[1] = lens[ARRAY_SIZE(lens) - 1 - j];
				bt_copy_case(2, off, len, src, grants, back);
			}
	/* random */
	for (iter = 0; iter < 3000 && !bt_failed; iter++) {
		n = 1 + bt_below(BT_MAX_SEGS);
		for (i = 0; i < n; i++) {
			off[i] = bt_below(p);
			len[i] = 1 + bt_below(2 * p);
			if (len[i] > 3 * 65536UL - off[i])
				len[i] = 1;
		}
		bt_copy_case(n, off, len, src, grants, back);
	}
	free(src);
	free(back);
	free(grants);
}

/* Malformed responses: every bad one is refused and changes nothing. */
static void test_rsp_malformed(void)
{
	struct xbf_idtab t;
	unsigned long cookie = 0;
	u8 part = 0;
	int a, b, i;

	BT_CHECK(!xbf_idtab_init(&t, 32), "init");
	a = xbf_id_get(&t, 0, 0x1000, 0);	/* read */
	b = xbf_id_get(&t, 1, 0x2000, 1);	/* write */
	BT_CHECK(a == 0 && b == 1 && t.inflight == 2, "ids %d %d", a, b);
	BT_CHECK(xbf_rsp_check(&t, 32, 0, 0, &cookie, &part) == XBF_RSP_BAD_ID,
		 "id == size");
	BT_CHECK(xbf_rsp_check(&t, ~0ULL, 0, 0, &cookie, &part) ==
		 XBF_RSP_BAD_ID, "id ~0");
	BT_CHECK(xbf_rsp_check(&t, 1ULL << 32, 0, 0, &cookie, &part) ==
		 XBF_RSP_BAD_ID, "id 2^32 (no truncation)");
	BT_CHECK(xbf_rsp_check(&t, 5, 0, 0, &cookie, &part) ==
		 XBF_RSP_NOT_INFLIGHT, "never issued");
	BT_CHECK(xbf_rsp_check(&t, a, 1, 0, &cookie, &part) == XBF_RSP_BAD_OP,
		 "wrong op");
	BT_CHECK(xbf_rsp_check(&t, a, 0, 1, &cookie, &part) ==
		 XBF_RSP_BAD_STATUS, "status 1");
	BT_CHECK(xbf_rsp_check(&t, a, 0, -3, &cookie, &part) ==
		 XBF_RSP_BAD_STATUS, "status -3");
	BT_CHECK(xbf_rsp_check(&t, a, 0, 0x7fff, &cookie, &part) ==
		 XBF_RSP_BAD_STATUS, "status 0x7fff");
	BT_CHECK(t.inflight == 2 && cookie == 0, "bad responses changed state");
	BT_CHECK(xbf_rsp_check(&t, a, 0, 0, &cookie, &part) == XBF_RSP_OKAY &&
		 cookie == 0x1000 && part == 0, "good response");
	BT_CHECK(xbf_rsp_check(&t, a, 0, 0, &cookie, &part) ==
		 XBF_RSP_NOT_INFLIGHT, "double completion");
	BT_CHECK(xbf_rsp_check(&t, b, 1, -1, &cookie, &part) == XBF_RSP_ERROR &&
		 cookie == 0x2000 && part == 1, "error status");
	BT_CHECK(t.inflight == 0, "inflight %u", t.inflight);
	/* exhaust, then one more */
	for (i = 0; i < 32; i++)
		BT_CHECK(xbf_id_get(&t, 0, i + 1, 0) >= 0, "get %d", i);
	BT_CHECK(xbf_id_get(&t, 0, 99, 0) == -ENOSPC, "33rd id");
	BT_CHECK(xbf_rsp_check(&t, 7, 0, -2, &cookie, &part) ==
		 XBF_RSP_NOTSUPP && cookie == 8, "eopnotsupp");
	BT_CHECK(xbf_id_get(&t, 3, 99, 0) == 7, "freed id reused");
	xbf_id_put(&t, 40);	/* ignored */
	xbf_idtab_reset(&t);
	BT_CHECK(t.inflight == 0 && xbf_id_get(&t, 0, 1, 0) == 0, "reset");
	xbf_idtab_destroy(&t);
	BT_CHECK(!strcmp(xbf_verdict_str(XBF_RSP_BAD_OP), "wrong operation"),
		 "verdict name");
}

/* Random ids against a model: outstanding set, ops, cookies. */
static void test_rsp_random(void)
{
	enum { N = 64 };
	struct xbf_idtab t;
	bool out[N] = { 0 };
	u8 ops[N] = { 0 };
	unsigned long cookie;
	unsigned int inflight = 0, i;
	u8 part;

	BT_CHECK(!xbf_idtab_init(&t, N), "init");
	for (i = 0; i < 200000; i++) {
		unsigned int r = bt_below(4);

		if (r == 0) {
			u8 op = bt_below(7);
			int id = xbf_id_get(&t, op, 1000 + i, op);

			if (inflight == N) {
				BT_CHECK(id == -ENOSPC, "full but got %d", id);
				continue;
			}
			BT_CHECK(id >= 0 && id < N && !out[id], "got %d", id);
			out[id] = true;
			ops[id] = op;
			inflight++;
		} else {
			u64 id = bt_below(3) ? bt_below(N) : bt_rand();
			u8 op = bt_below(4) ? (id < N ? ops[id] : 0) : bt_below(256);
			int st = bt_below(4) ? 0 : (int)bt_below(9) - 4;
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
			BT_CHECK(v == want, "step %u id %llu op %u st %d: %s, want %s",
				 i, id, op, st, xbf_verdict_str(v),
				 xbf_verdict_str(want));
			if (want <= XBF_RSP_NOTSUPP) {
				BT_CHECK(part == ops[id], "part");
				out[id] = false;
				inflight--;
			}
		}
		BT_CHECK(t.inflight == inflight, "inflight %u vs %u",
			 t.inflight, inflight);
	}
	xbf_idtab_destroy(&t);
}

static void test_ring_accounting(void)
{
	u32 nr;

	BT_CHECK(!xbf_rsp_avail(5, 2, 7, 32, &nr) && nr == 3, "simple");
	BT_CHECK(xbf_rsp_avail(8, 2, 7, 32, &nr) == -EPROTO && nr == 0,
		 "more responses than requests");
	BT_CHECK(xbf_rsp_avail(1, 2, 7, 32, &nr) == -EPROTO,
		 "producer behind consumer");
	BT_CHECK(!xbf_rsp_avail(3, 0xfffffffeU, 5, 32, &nr) && nr == 5,
		 "wrap");
	BT_CHECK(xbf_rsp_avail(0x80000000U, 0, 40, 32, &nr) == -EPROTO,
		 "more outstanding than the ring holds");
	BT_CHECK(!xbf_rsp_avail(7, 7, 7, 32, &nr) && nr == 0, "none");
	BT_CHECK(xbf_ring_free(7, 7, 32) == 32, "empty ring");
	BT_CHECK(xbf_ring_free(39, 7, 32) == 0, "full ring");
	BT_CHECK(xbf_ring_free(2, 0xfffffff0U, 32) == 14, "wrap free");
	BT_CHECK(xbf_ring_free(100, 7, 32) == 0, "inconsistent");
}

struct bt_case {
	const char *name;
	void (*fn)(void);
};

static const struct bt_case bt_cases[] = {
	{ "blk_plan_limits", test_plan_limits },
	{ "blk_plan_random", test_plan_random },
	{ "blk_grant_sects", test_grant_sects },
	{ "blk_copy", test_copy },
	{ "blk_rsp_malformed", test_rsp_malformed },
	{ "blk_rsp_random", test_rsp_random },
	{ "blk_ring_accounting", test_ring_accounting },
};

int main(void)
{
	const char *env = getenv("SEED");
	unsigned int i, failed = 0;
	u64 seed;

	setvbuf(stdout, NULL, _IOLBF, 0);
	seed = env ? strtoull(env, NULL, 0) : (u64)time(NULL);
	printf("# blkfront unit tests, %lu KB pages, seed %llu\n",
	       XGP_PAGE_SIZE / 1024, seed);
	for (i = 0; i < ARRAY_SIZE(bt_cases); i++) {
		bt_state = (seed + i) * 0x9E3779B97F4A7C15ULL | 1;
		bt_failed = 0;
		bt_cases[i].fn();
		if (bt_failed) {
			failed++;
			printf("FAIL: unit/%s-p%luk %s\n", bt_cases[i].name,
			       XGP_PAGE_SIZE / 1024, bt_why);
		} else {
			printf("PASS: unit/%s-p%luk\n", bt_cases[i].name,
			       XGP_PAGE_SIZE / 1024);
		}
	}
	return failed ? 1 : 0;
}
