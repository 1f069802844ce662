// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Chunk splitting and the selftest pattern.  Built once per page size
 * (XGP_TEST_PAGE_SHIFT 12, 14, 16).
 */
#include "harness.h"

/* Walk a buffer and check every chunk against byte arithmetic. */
static void chunk_walk(unsigned long off, unsigned long len)
{
	struct xgp_chunk_iter it;
	struct xgp_chunk c;
	unsigned long pos = off, n = 0, total = 0;

	xgp_chunk_iter_init(&it, off, len);
	while (xgp_chunk_next(&it, &c)) {
		unsigned long at = c.page_idx * XGP_PAGE_SIZE +
				   (unsigned long)c.sub * XGP_GRANT_SIZE + c.off;

		XT_CHECK(at == pos, "off %lu len %lu: chunk %lu at %lu, want %lu",
			 off, len, n, at, pos);
		XT_CHECK(c.sub < XGP_GRANTS_PER_PAGE, "sub %u", c.sub);
		XT_CHECK(c.len >= 1 && c.off + c.len <= XGP_GRANT_SIZE,
			 "off %lu len %lu: chunk %lu off %u len %u crosses 4K",
			 off, len, n, c.off, c.len);
		XT_CHECK(!n || !c.off, "only the first chunk may start inside");
		pos += c.len;
		total += c.len;
		n++;
		/* Not the last: must end on the 4 KB boundary. */
		XT_CHECK(total == len || c.off + c.len == XGP_GRANT_SIZE,
			 "chunk %lu ends early", n - 1);
	}
	XT_CHECK(total == len, "off %lu len %lu: covered %lu", off, len, total);
	XT_CHECK(n == xgp_chunk_count(off, len),
		 "off %lu len %lu: %lu chunks, count says %lu", off, len, n,
		 xgp_chunk_count(off, len));
}

void test_chunk_boundaries(void)
{
	const unsigned long p = XGP_PAGE_SIZE, g = XGP_GRANT_SIZE;
	const unsigned long offs[] = { 0, 1, 511, 512, g - 1, g, g + 1,
				       p - g, p - 1, p, p + 1, 2 * p - 1 };
	const unsigned long lens[] = { 0, 1, 2, 511, g - 1, g, g + 1, 2 * g,
				       p - 1, p, p + 1, 3 * p + 5, 65536 + 3 };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(offs); i++)
		for (j = 0; j < ARRAY_SIZE(lens); j++) {
			chunk_walk(offs[i], lens[j]);
			XT_BAIL();
		}
}

void test_chunk_count(void)
{
	const unsigned long p = XGP_PAGE_SIZE;

	XT_CHECK(xgp_chunk_count(0, 0) == 0, "empty buffer");
	XT_CHECK(xgp_chunk_count(123, 0) == 0, "empty buffer at offset");
	XT_CHECK(xgp_chunk_count(0, 1) == 1, "one byte");
	XT_CHECK(xgp_chunk_count(0, 4096) == 1, "one grant");
	XT_CHECK(xgp_chunk_count(0, 4097) == 2, "one grant and a byte");
	XT_CHECK(xgp_chunk_count(4095, 2) == 2, "straddling two grants");
	XT_CHECK(xgp_chunk_count(4096, 4096) == 1, "second grant");
	XT_CHECK(xgp_chunk_count(0, p) == XGP_GRANTS_PER_PAGE, "whole page");
	XT_CHECK(xgp_chunk_count(512, p) == XGP_GRANTS_PER_PAGE + 1,
		 "whole page, misaligned");
	XT_CHECK(xgp_chunk_count(p - 1, 1) == 1, "last byte of the page");
	XT_CHECK(xgp_chunk_count(p - 1, 2) == 2, "across the page end");
}

void test_chunk_random(void)
{
	unsigned int i;

	for (i = 0; i < 20000; i++) {
		unsigned long off = xt_below(3 * XGP_PAGE_SIZE);
		unsigned long len = xt_below(4) ? xt_below(2 * XGP_GRANT_SIZE) :
				    xt_below(4 * XGP_PAGE_SIZE);

		chunk_walk(off, len);
		XT_BAIL();
	}
}

void test_pattern(void)
{
	static __le32 buf[XGP_PATTERN_WORDS];
	const unsigned char *b = (const unsigned char *)buf;

	XT_CHECK(xgp_pattern_word(0, 0) == 0x58475000U, "word 0 of slot 0");
	XT_CHECK(xgp_pattern_word(3, 5) == (0x58475000U ^ (3U << 12) ^ 5U),
		 "word 5 of slot 3");
	xgp_pattern_fill(buf, 0);
	XT_CHECK(b[0] == 0x00 && b[1] == 0x50 && b[2] == 0x47 && b[3] == 0x58,
		 "not little endian: %02x %02x %02x %02x",
		 b[0], b[1], b[2], b[3]);
	xgp_pattern_fill(buf, 7);
	XT_CHECK(xgp_pattern_check(buf, 7) == -1, "own pattern rejected");
	XT_CHECK(xgp_pattern_check(buf, 6) == 0, "other slot accepted");
	((unsigned char *)buf)[4 * 1023 + 2] ^= 1;
	XT_CHECK(xgp_pattern_check(buf, 7) == 1023,
		 "flip in the last word found at %d",
		 xgp_pattern_check(buf, 7));
}
