// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Pure logic of xen-blkfront-64k (builds in userspace too): request
 * layout in 4 KB grants, zero-copy pieces, request sizes and response
 * checks.
 */
#include "blkfront_core.h"

static unsigned int xbf_div_up(unsigned long n, unsigned long d)
{
	return (n + d - 1) / d;
}

/**
 * xbf_effective_segs - indirect segments to use with a backend
 * @backend_max: the backend's feature-max-indirect-segments (0: none)
 * @wanted: the max_indirect_segments parameter
 *
 * Return: segments per indirect request, or 0 to use plain requests
 * only (backend without the feature, or a limit no better than 11).
 */
unsigned int xbf_effective_segs(unsigned int backend_max, unsigned int wanted)
{
	unsigned int n = min(backend_max, wanted);

	n = min(n, XBF_MAX_SEGS);
	return n <= XBF_MAX_DIRECT_SEGS ? 0 : n;
}

/**
 * xbf_size_requests - the request sizes of a new tag set
 * @max_indirect_segs: from xbf_effective_segs() at the first connect
 * @l: filled with the limits
 *
 * The largest request carries @max_indirect_segs 4 KB segments (11
 * without indirect segments), and at least one guest page.  Its slots
 * are counted for the worst split any later backend can impose: plain
 * requests (no indirect pages) or the fewest indirect segments per
 * request (12, one indirect page per ring request).
 *
 * Return: 0, or -EINVAL if the largest request cannot be planned.
 */
int xbf_size_requests(unsigned int max_indirect_segs, struct xbf_limits *l)
{
	unsigned int segs = max_indirect_segs ? : XBF_MAX_DIRECT_SEGS;
	unsigned int e, need;
	struct xbf_plan p;

	memset(l, 0, sizeof(*l));
	if (segs > XBF_MAX_SEGS)
		return -EINVAL;
	l->max_bytes = max_t(unsigned long, segs * XGP_GRANT_SIZE,
			     XGP_PAGE_SIZE);
	if (xbf_plan_request(l->max_bytes, max_indirect_segs, &p))
		return -EINVAL;
	l->max_segs = p.nr_grants;
	l->max_parts = p.nr_parts;
	/* e = 0: plain requests; then every indirect limit a backend may set */
	for (e = 0; e <= XBF_MAX_SEGS; e = e ? e + 1 : XBF_MAX_DIRECT_SEGS + 1) {
		if (xbf_plan_request(l->max_bytes, e, &p))
			return -EINVAL;
		need = p.nr_grants + p.nr_indirect;
		l->slots_per_rq = max(l->slots_per_rq, need);
	}
	return 0;
}

/**
 * xbf_sectors_ok - is a disk size from the backend usable
 * @sectors: the backend's "sectors" (512-byte units, whatever the disk's
 *	sector-size; untrusted)
 *
 * The block layer keeps a disk's size in bytes in a loff_t as well, so
 * the size in bytes must fit one.
 *
 * Return: true if usable.
 */
bool xbf_sectors_ok(u64 sectors)
{
	return sectors <= (u64)LLONG_MAX >> XBF_SECTOR_SHIFT;
}

/**
 * xbf_plan_request - lay a packed request out in grants and ring requests
 * @bytes: request length, a non-zero multiple of 512
 * @max_indirect_segs: from xbf_effective_segs(); 0 for plain requests
 * @p: filled with the plan
 *
 * Return: as for xbf_plan_segs() with DIV_ROUND_UP(@bytes, 4096) grants.
 */
int xbf_plan_request(unsigned long bytes, unsigned int max_indirect_segs,
		     struct xbf_plan *p)
{
	return xbf_plan_segs(xbf_div_up(bytes, XGP_GRANT_SIZE), bytes,
			     max_indirect_segs, p);
}

/**
 * xbf_plan_segs - lay @nr_segs data grants out in ring requests
 * @nr_segs: data grants (segments) of the request
 * @bytes: request length, a non-zero multiple of 512
 * @max_indirect_segs: from xbf_effective_segs(); 0 for plain requests
 * @p: filled with the plan
 *
 * Up to 11 grants go in one plain request.  Beyond that, with indirect
 * segments, each part carries up to @max_indirect_segs grants; without,
 * the request is split into plain requests of 11 grants.
 *
 * Return: 0, -EINVAL for a bad length or a segment count that cannot
 * hold @bytes (each grant carries 512 to 4096 bytes), -E2BIG if more
 * than XBF_MAX_PARTS ring requests would be needed.
 */
int xbf_plan_segs(unsigned int nr_segs, unsigned long bytes,
		  unsigned int max_indirect_segs, struct xbf_plan *p)
{
	unsigned int i, first, n, ind;

	memset(p, 0, sizeof(*p));
	if (!bytes || (bytes & ((1UL << XBF_SECTOR_SHIFT) - 1)) ||
	    bytes > (unsigned long)UINT_MAX)
		return -EINVAL;
	if (nr_segs < xbf_div_up(bytes, XGP_GRANT_SIZE) ||
	    nr_segs > bytes >> XBF_SECTOR_SHIFT)
		return -EINVAL;
	p->bytes = bytes;
	p->nr_grants = nr_segs;
	if (p->nr_grants <= XBF_MAX_DIRECT_SEGS) {
		p->segs_per_part = p->nr_grants;
	} else if (max_indirect_segs > XBF_MAX_DIRECT_SEGS) {
		p->indirect = true;
		p->segs_per_part = max_indirect_segs;
	} else {
		p->segs_per_part = XBF_MAX_DIRECT_SEGS;
	}
	p->nr_parts = xbf_div_up(p->nr_grants, p->segs_per_part);
	if (p->nr_parts > XBF_MAX_PARTS)
		return -E2BIG;
	for (i = 0; i < p->nr_parts; i++) {
		xbf_plan_part(p, i, &first, &n, &ind);
		p->nr_indirect += ind;
	}
	return 0;
}

/**
 * xbf_plan_part - the grants of one part of a plan
 * @p: plan
 * @part: part index (< p->nr_parts)
 * @first_grant: first data grant of the part
 * @nr_grants: data grants in the part
 * @nr_indirect: indirect pages the part needs (0 for a plain request)
 */
void xbf_plan_part(const struct xbf_plan *p, unsigned int part,
		   unsigned int *first_grant, unsigned int *nr_grants,
		   unsigned int *nr_indirect)
{
	unsigned int first = part * p->segs_per_part;
	unsigned int n = p->nr_grants - first;

	if (n > p->segs_per_part)
		n = p->segs_per_part;
	*first_grant = first;
	*nr_grants = n;
	*nr_indirect = p->indirect ? xbf_div_up(n, XBF_SEGS_PER_INDIRECT) : 0;
}

/**
 * xbf_plan_max_slots - grant slots the largest request needs
 * @max_bytes: largest request in bytes
 * @max_indirect_segs: as for xbf_plan_request()
 *
 * Return: data grants plus indirect pages, or 0 if @max_bytes cannot be
 * planned.
 */
unsigned int xbf_plan_max_slots(unsigned int max_bytes,
				unsigned int max_indirect_segs)
{
	struct xbf_plan p;

	if (xbf_plan_request(max_bytes, max_indirect_segs, &p))
		return 0;
	return p.nr_grants + p.nr_indirect;
}

/**
 * xbf_grant_sects - sector range of one data grant
 * @bytes: request length (multiple of 512)
 * @grant: grant index in the request
 * @first_sect: first sector in the grant (always 0: data is packed)
 * @last_sect: last sector in the grant (inclusive)
 */
void xbf_grant_sects(unsigned long bytes, unsigned int grant,
		     u8 *first_sect, u8 *last_sect)
{
	unsigned long start = (unsigned long)grant * XGP_GRANT_SIZE;
	unsigned long len = bytes - start;

	if (len > XGP_GRANT_SIZE)
		len = XGP_GRANT_SIZE;
	*first_sect = 0;
	*last_sect = (len >> XBF_SECTOR_SHIFT) - 1;
}

/**
 * xbf_direct_pieces - grants a zero-copy segment needs
 * @page_off: byte offset of the segment in its first page
 * @len: segment length
 * @sector_size: the disk's logical block size (512 to 4096, a power of 2)
 *
 * The segment is cut at 4 KB frame boundaries, one grant per piece.  The
 * backend refuses a segment that is not a whole number of logical blocks
 * (blkback answers BLKIF_RSP_ERROR), and since @sector_size divides 4096
 * every piece of a segment whose offset and length are multiples of it
 * is one too.
 *
 * Return: the number of 4 KB frames the segment touches, or 0 if it
 * cannot be granted in place: empty, or offset or length not a
 * multiple of @sector_size.
 */
unsigned int xbf_direct_pieces(unsigned long page_off, unsigned long len,
			       unsigned int sector_size)
{
	unsigned long mask = (unsigned long)sector_size - 1;
	unsigned long first, last;

	if (!len || (page_off & mask) || (len & mask))
		return 0;
	first = page_off / XGP_GRANT_SIZE;
	last = (page_off + len - 1) / XGP_GRANT_SIZE;
	return last - first + 1;
}

/**
 * xbf_direct_next - next grant of a zero-copy segment
 * @it: iterator from xgp_copy_iter_init() (@req_pos unused); the
 *	segment must have passed xbf_direct_pieces()
 * @p: filled with the piece
 *
 * Return: false once the segment is done.
 */
bool xbf_direct_next(struct xgp_copy_iter *it, struct xbf_direct_piece *p)
{
	unsigned long frame_off, len;

	if (!it->remain)
		return false;
	frame_off = it->src % XGP_GRANT_SIZE;
	len = min(it->remain, XGP_GRANT_SIZE - frame_off);
	p->page_idx = it->src / XGP_PAGE_SIZE;
	p->sub = (it->src % XGP_PAGE_SIZE) / XGP_GRANT_SIZE;
	p->first_sect = frame_off >> XBF_SECTOR_SHIFT;
	p->last_sect = (frame_off + len - 1) >> XBF_SECTOR_SHIFT;
	p->len = len;
	it->src += len;
	it->dst += len;
	it->remain -= len;
	return true;
}

/* ---- response validation ---- */

/**
 * xbf_rsp_check - validate a response copied off the ring
 * @t: request ids of the ring it came from
 * @id: response id (untrusted)
 * @op: response operation (untrusted)
 * @status: response status (untrusted)
 * @cookie: set to the request's cookie if the id is valid
 * @part: set to the request's part if the id is valid
 *
 * The id is released when the verdict is OKAY, ERROR or NOTSUPP, so a
 * second response for it is refused as NOT_INFLIGHT.  On any other
 * verdict nothing changes and the caller must treat the backend as
 * broken.
 *
 * Return: the verdict.
 */
enum xbf_verdict xbf_rsp_check(struct xgp_idtab *t, u64 id, u8 op,
			       int status, unsigned long *cookie, u8 *part)
{
	enum xbf_verdict v;

	switch (xgp_id_check(t, id, op)) {
	case XGP_ID_OK:
		break;
	case XGP_ID_BAD:
		return XBF_RSP_BAD_ID;
	case XGP_ID_NOT_INFLIGHT:
		return XBF_RSP_NOT_INFLIGHT;
	default:
		return XBF_RSP_BAD_OP;
	}
	switch (status) {
	case XBF_BLKIF_RSP_OKAY:
		v = XBF_RSP_OKAY;
		break;
	case XBF_BLKIF_RSP_ERROR:
		v = XBF_RSP_ERROR;
		break;
	case XBF_BLKIF_RSP_EOPNOTSUPP:
		v = XBF_RSP_NOTSUPP;
		break;
	default:
		return XBF_RSP_BAD_STATUS;
	}
	xgp_id_complete(t, id, cookie, part);
	return v;
}

const char *xbf_verdict_str(enum xbf_verdict v)
{
	static const char * const names[XBF_RSP_NR] = {
		[XBF_RSP_OKAY] = "okay",
		[XBF_RSP_ERROR] = "error",
		[XBF_RSP_NOTSUPP] = "not supported",
		[XBF_RSP_BAD_ID] = "id out of range",
		[XBF_RSP_NOT_INFLIGHT] = "id not outstanding",
		[XBF_RSP_BAD_OP] = "wrong operation",
		[XBF_RSP_BAD_STATUS] = "unknown status",
	};

	return (unsigned int)v < XBF_RSP_NR ? names[v] : "?";
}

/**
 * xbf_rsp_outcome - what a valid response means for its request
 * @op: the request's operation (XBF_BLKIF_OP_*)
 * @v: the response's verdict: XBF_RSP_OKAY, _ERROR or _NOTSUPP
 * @nr_segs: data segments of the request (0 for an empty flush)
 * @stop_flush: set to true when the backend showed that it cannot flush
 *	or drain: no more flushes should be sent to it (else unchanged)
 *
 * A flush or barrier the backend does not support (EOPNOTSUPP; blkback
 * also writes feature-flush-cache = 0 then) has nothing to flush: the
 * request succeeds and flushing stops, as in mainline.  Older backends
 * answered an empty barrier they could not honour with a plain ERROR,
 * which is read the same way.  A flush that failed with ERROR is a real
 * failure (the disk's cache could not be written back) and stays one.
 *
 * Return: the outcome to complete the request with.
 */
enum xbf_outcome xbf_rsp_outcome(u8 op, enum xbf_verdict v,
				 unsigned int nr_segs, bool *stop_flush)
{
	bool flush = op == XBF_BLKIF_OP_FLUSH_DISKCACHE ||
		     op == XBF_BLKIF_OP_WRITE_BARRIER;

	if (v == XBF_RSP_OKAY)
		return XBF_OUT_OK;
	if (flush && (v == XBF_RSP_NOTSUPP ||
		      (op == XBF_BLKIF_OP_WRITE_BARRIER && !nr_segs))) {
		*stop_flush = true;
		return XBF_OUT_OK;
	}
	return v == XBF_RSP_NOTSUPP ? XBF_OUT_NOTSUPP : XBF_OUT_IOERR;
}
