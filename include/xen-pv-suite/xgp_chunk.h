/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Splitting buffers into 4 KB Xen grant chunks.
 *
 * A Linux page may be larger than a Xen grant (16 KB or 64 KB pages on
 * arm64), and a block layer segment may start at any byte and, with
 * multi-page bio_vecs, extend past the end of its first page.  Every
 * driver needs to walk such a buffer one grant at a time; these helpers
 * do it once.  They are pure arithmetic and build in userspace too.
 */
#ifndef XEN_PV_SUITE_XGP_CHUNK_H
#define XEN_PV_SUITE_XGP_CHUNK_H

#include <xen-pv-suite/xgp_port.h>

/**
 * struct xgp_chunk - one 4 KB grant-sized piece of a buffer
 * @page_idx: page index relative to the buffer's first page
 * @sub: 4 KB sub-page index within that page (0 .. XGP_GRANTS_PER_PAGE - 1)
 * @off: byte offset of the data within the 4 KB chunk
 * @len: number of bytes in this chunk (1 .. XGP_GRANT_SIZE)
 */
struct xgp_chunk {
	unsigned long page_idx;
	unsigned int sub;
	unsigned int off;
	unsigned int len;
};

/**
 * struct xgp_chunk_iter - state of a walk over a buffer
 * @pos: byte position relative to the start of the first page
 * @remain: bytes not yet returned
 */
struct xgp_chunk_iter {
	unsigned long pos;
	unsigned long remain;
};

/**
 * xgp_chunk_iter_init - start walking a buffer
 * @it: iterator
 * @offset: byte offset of the data in its first page (may exceed a page)
 * @len: length in bytes; 0 yields no chunks
 */
static inline void xgp_chunk_iter_init(struct xgp_chunk_iter *it,
				       unsigned long offset, unsigned long len)
{
	it->pos = offset;
	it->remain = len;
}

/**
 * xgp_chunk_next - return the next 4 KB chunk of the buffer
 * @it: iterator set up by xgp_chunk_iter_init()
 * @c: filled with the chunk
 *
 * Typical use::
 *
 *	xgp_chunk_iter_init(&it, bv->bv_offset, bv->bv_len);
 *	while (xgp_chunk_next(&it, &c))
 *		grant chunk c.sub of page nth_page(bv->bv_page, c.page_idx);
 *
 * Return: true if @c was filled, false once the buffer is exhausted.
 */
static inline bool xgp_chunk_next(struct xgp_chunk_iter *it,
				  struct xgp_chunk *c)
{
	unsigned long grant = it->pos >> XGP_GRANT_SHIFT;
	unsigned int off = it->pos & (XGP_GRANT_SIZE - 1);
	unsigned int room = XGP_GRANT_SIZE - off;

	if (!it->remain)
		return false;
	c->page_idx = grant / XGP_GRANTS_PER_PAGE;
	c->sub = grant % XGP_GRANTS_PER_PAGE;
	c->off = off;
	c->len = it->remain < room ? it->remain : room;
	it->pos += c->len;
	it->remain -= c->len;
	return true;
}

/**
 * xgp_chunk_count - number of 4 KB grants a buffer touches
 * @offset: byte offset of the data in its first page
 * @len: length in bytes
 *
 * Use it to size requests: a bio_vec (bv_offset, bv_len) needs
 * xgp_chunk_count(bv_offset, bv_len) grants.
 *
 * Return: the number of chunks xgp_chunk_next() will produce.
 */
static inline unsigned long xgp_chunk_count(unsigned long offset,
					    unsigned long len)
{
	unsigned long first, last;

	if (!len)
		return 0;
	first = offset >> XGP_GRANT_SHIFT;
	last = (offset + len - 1) >> XGP_GRANT_SHIFT;
	return last - first + 1;
}

/*
 * Self-test pattern: 32-bit word @j of slot @slot, stored little endian,
 * so that a frontend and a backend of different endianness agree.
 */
#define XGP_PATTERN_BASE	0x58475000U
#define XGP_PATTERN_WORDS	(XGP_GRANT_SIZE / 4)

static inline u32 xgp_pattern_word(unsigned int slot, unsigned int j)
{
	return XGP_PATTERN_BASE ^ ((u32)slot << 12) ^ j;
}

void xgp_pattern_fill(void *buf, unsigned int slot);
int xgp_pattern_check(const void *buf, unsigned int slot);

#endif /* XEN_PV_SUITE_XGP_CHUNK_H */
