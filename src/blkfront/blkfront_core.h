/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Pure logic of xen-blkfront-64k: how a request's bytes are laid out in
 * 4 KB grants and ring requests, which zero-copy segments can be granted
 * in place, the request sizes a tag set is made for, and what the
 * backend's responses mean.  The mechanics every frontend shares (request
 * ids, ring accounting, the packed copy iterator) are xen-grant-pool's,
 * in xgp_ring.h.
 *
 * Builds in the kernel and in userspace (tests/unit); it includes only
 * xgp_port.h and xgp_ring.h and never touches Xen, locks or the block
 * layer.
 *
 * Copied requests travel through frontend-owned 4 KB grant slots, packed
 * densely: byte b of a request lives in grant b / 4096 at offset
 * b % 4096, whatever the guest page size and whatever the offsets of
 * the block layer's segments.  So a request of N bytes needs exactly
 * DIV_ROUND_UP(N, 4096) data grants.
 *
 * Zero-copy requests (trusted backend, no persistent grants) grant the
 * block layer's own pages instead: each segment is cut at 4 KB frame
 * boundaries into pieces (xbf_direct_next()), one grant per piece, so
 * an unaligned segment can need more grants than its length suggests.
 */
#ifndef XEN_PV_SUITE_BLKFRONT_CORE_H
#define XEN_PV_SUITE_BLKFRONT_CORE_H

#include <xen-pv-suite/xgp_port.h>
#include <xen-pv-suite/xgp_ring.h>

#define XBF_SECTOR_SHIFT	9
#define XBF_SECTORS_PER_GRANT	(XGP_GRANT_SIZE >> XBF_SECTOR_SHIFT)
/* blkif.h: segments in a plain request, indirect pages in an indirect one */
#define XBF_MAX_DIRECT_SEGS	11U
#define XBF_MAX_INDIRECT_PAGES	8U
/* sizeof(struct blkif_request_segment) is 8: 512 per 4 KB indirect page */
#define XBF_SEG_DESC_SIZE	8U
#define XBF_SEGS_PER_INDIRECT	(XGP_GRANT_SIZE / XBF_SEG_DESC_SIZE)
/*
 * Most 4 KB data segments per block request (1 MB).  Linux's blkback
 * offers 256 indirect segments at most, and a request this large can
 * still be sent after a restore onto a backend without indirect
 * segments: 24 plain ring requests fit the smallest ring (one page, 32
 * entries).  It also keeps the per-request driver data a few KB (see
 * struct xbf_limits).
 */
#define XBF_MAX_SEGS		256U
/* blkif ring entries in one 4 KB page: __CONST_RING_SIZE(blkif, 4096) */
#define XBF_MIN_RING_SIZE	32U
/* Ring requests one block request may be split into: 256 / 11, rounded up */
#define XBF_MAX_PARTS		24U

/**
 * struct xbf_plan - how one block request goes onto the ring
 * @bytes: request length in bytes (a multiple of 512)
 * @nr_grants: data grants (4 KB each, densely packed)
 * @nr_parts: ring requests the block request is split into
 * @segs_per_part: data grants in each part but possibly the last
 * @indirect: the parts are BLKIF_OP_INDIRECT requests
 * @nr_indirect: indirect descriptor pages over all parts
 */
struct xbf_plan {
	unsigned long bytes;
	unsigned int nr_grants;
	unsigned int nr_parts;
	unsigned int segs_per_part;
	bool indirect;
	unsigned int nr_indirect;
};

/**
 * struct xbf_limits - request sizes, fixed when the tag set is made
 * @max_bytes: largest block request (the queue's max_hw_sectors)
 * @max_segs: 4 KB data segments of the largest request
 * @slots_per_rq: grant slots a request may need under ANY later limit
 *	(data segments plus indirect pages): the requests in flight at a
 *	restore are re-split for the new backend's limits, which may allow
 *	fewer indirect segments, or none
 * @max_parts: ring requests of the largest request under the first
 *	limit (the queue depth is the ring size over this)
 */
struct xbf_limits {
	unsigned int max_bytes;
	unsigned int max_segs;
	unsigned int slots_per_rq;
	unsigned int max_parts;
};

int xbf_size_requests(unsigned int max_indirect_segs, struct xbf_limits *l);
bool xbf_sectors_ok(u64 sectors);
int xbf_plan_request(unsigned long bytes, unsigned int max_indirect_segs,
		     struct xbf_plan *p);
int xbf_plan_segs(unsigned int nr_segs, unsigned long bytes,
		  unsigned int max_indirect_segs, struct xbf_plan *p);
void xbf_plan_part(const struct xbf_plan *p, unsigned int part,
		   unsigned int *first_grant, unsigned int *nr_grants,
		   unsigned int *nr_indirect);
unsigned int xbf_plan_max_slots(unsigned int max_bytes,
				unsigned int max_indirect_segs);
void xbf_grant_sects(unsigned long bytes, unsigned int grant,
		     u8 *first_sect, u8 *last_sect);
unsigned int xbf_effective_segs(unsigned int backend_max,
				unsigned int wanted);

/**
 * struct xbf_direct_piece - one grant of a zero-copy segment
 * @page_idx: page index relative to the segment's first page
 * @sub: 4 KB frame within that page
 * @first_sect: first sector used in the frame
 * @last_sect: last sector used in the frame (inclusive)
 * @len: bytes; never crosses a 4 KB frame
 */
struct xbf_direct_piece {
	unsigned long page_idx;
	unsigned int sub;
	u8 first_sect;
	u8 last_sect;
	unsigned int len;
};

unsigned int xbf_direct_pieces(unsigned long page_off, unsigned long len,
			       unsigned int sector_size);
bool xbf_direct_next(struct xgp_copy_iter *it, struct xbf_direct_piece *p);

/* ---- response validation ---- */

/* Verdicts on a response; the first three complete the id. */
enum xbf_verdict {
	XBF_RSP_OKAY,
	XBF_RSP_ERROR,
	XBF_RSP_NOTSUPP,
	XBF_RSP_BAD_ID,		/* id outside the table */
	XBF_RSP_NOT_INFLIGHT,	/* id free: stale or double completion */
	XBF_RSP_BAD_OP,		/* operation differs from the request's */
	XBF_RSP_BAD_STATUS,	/* status no BLKIF_RSP_* value */
	XBF_RSP_NR,
};

/* blkif.h values, repeated so that userspace tests can use them */
#define XBF_BLKIF_RSP_EOPNOTSUPP	(-2)
#define XBF_BLKIF_RSP_ERROR		(-1)
#define XBF_BLKIF_RSP_OKAY		0
#define XBF_BLKIF_OP_READ		0
#define XBF_BLKIF_OP_WRITE		1
#define XBF_BLKIF_OP_WRITE_BARRIER	2
#define XBF_BLKIF_OP_FLUSH_DISKCACHE	3
#define XBF_BLKIF_OP_DISCARD		5

/* What a validated response means for its block request. */
enum xbf_outcome {
	XBF_OUT_OK,
	XBF_OUT_IOERR,
	XBF_OUT_NOTSUPP,
};

enum xbf_verdict xbf_rsp_check(struct xgp_idtab *t, u64 id, u8 op,
			       int status, unsigned long *cookie, u8 *part);
const char *xbf_verdict_str(enum xbf_verdict v);
enum xbf_outcome xbf_rsp_outcome(u8 op, enum xbf_verdict v,
				 unsigned int nr_segs, bool *stop_flush);

#endif /* XEN_PV_SUITE_BLKFRONT_CORE_H */
