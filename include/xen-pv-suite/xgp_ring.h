/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Pure frontend mechanics every Xen PV frontend of the suite needs, kept
 * in xen-grant-pool so that each frontend does not grow its own copy:
 *
 * - a request-id table: every request sent on a shared ring carries an
 *   id from it; a response is accepted only for an id that is in range
 *   and outstanding, with the tag (operation) the request had, and then
 *   releases the id, so a stale or repeated response is refused;
 * - ring index accounting that bounds the response producer the backend
 *   publishes by what was sent (RING_IDX arithmetic, wraps at 2^32);
 * - the packed copy iterator: bytes of a buffer spread over pages at any
 *   offset, copied densely into 4 KB grants (byte b of the data lives in
 *   grant b / 4096 at offset b % 4096), whatever the guest page size.
 *
 * Builds in the kernel (exported by xen-grant-pool) and in userspace
 * (tests/unit); it includes only xgp_port.h and never touches Xen or a
 * lock: callers serialise access to one table.
 */
#ifndef XEN_PV_SUITE_XGP_RING_H
#define XEN_PV_SUITE_XGP_RING_H

#include <xen-pv-suite/xgp_port.h>

/* ---- request ids ---- */

enum xgp_id_state {
	XGP_ID_FREE,
	XGP_ID_INFLIGHT,
};

/**
 * struct xgp_id_ent - one request id
 * @cookie: caller's request
 * @next_free: free-list link
 * @state: enum xgp_id_state
 * @tag: what the response must echo (blkif: the operation)
 * @aux: caller's byte (blkfront: the part of a split request)
 */
struct xgp_id_ent {
	unsigned long cookie;
	unsigned int next_free;
	u8 state;
	u8 tag;
	u8 aux;
};

/**
 * struct xgp_idtab - request ids of one ring
 * @size: number of ids (the ring size)
 * @inflight: ids handed out and not completed
 * @free_head: first free id, @size if none
 * @ent: @size entries
 */
struct xgp_idtab {
	unsigned int size;
	unsigned int inflight;
	unsigned int free_head;
	struct xgp_id_ent *ent;
};

/* What a response's id says; only XGP_ID_OK may be completed. */
enum xgp_id_verdict {
	XGP_ID_OK,
	XGP_ID_BAD,		/* id outside the table */
	XGP_ID_NOT_INFLIGHT,	/* id free: stale or double completion */
	XGP_ID_BAD_TAG,		/* tag differs from the request's */
};

int xgp_idtab_init(struct xgp_idtab *t, unsigned int size);
void xgp_idtab_destroy(struct xgp_idtab *t);
void xgp_idtab_reset(struct xgp_idtab *t);
int xgp_id_get(struct xgp_idtab *t, u8 tag, unsigned long cookie, u8 aux);
void xgp_id_put(struct xgp_idtab *t, unsigned int id);
enum xgp_id_verdict xgp_id_check(const struct xgp_idtab *t, u64 id, u8 tag);
void xgp_id_complete(struct xgp_idtab *t, unsigned int id,
		     unsigned long *cookie, u8 *aux);

/* ---- ring index accounting ---- */

int xgp_rsp_avail(u32 rsp_prod, u32 rsp_cons, u32 req_prod_pvt,
		  u32 ring_size, u32 *nr);
u32 xgp_ring_room(u32 req_prod_pvt, u32 rsp_cons, u32 ring_size);

/* ---- packed copy iterator ---- */

/**
 * struct xgp_copy_frag - one piece of a copy between a page and a grant
 * @page_idx: page index relative to the segment's first page
 * @page_off: byte offset in that page
 * @grant: grant (slot) index in the packed data
 * @grant_off: byte offset in that 4 KB grant
 * @len: bytes; never crosses a page or a grant boundary
 */
struct xgp_copy_frag {
	unsigned long page_idx;
	unsigned int page_off;
	unsigned int grant;
	unsigned int grant_off;
	unsigned int len;
};

/**
 * struct xgp_copy_iter - walk a segment in copy fragments
 * @src: byte position relative to the segment's first page
 * @dst: byte position in the packed data
 * @remain: bytes left
 */
struct xgp_copy_iter {
	unsigned long src;
	unsigned long dst;
	unsigned long remain;
};

static inline void xgp_copy_iter_init(struct xgp_copy_iter *it,
				      unsigned long page_off,
				      unsigned long pos, unsigned long len)
{
	it->src = page_off;
	it->dst = pos;
	it->remain = len;
}

bool xgp_copy_next(struct xgp_copy_iter *it, struct xgp_copy_frag *f);

#endif /* XEN_PV_SUITE_XGP_RING_H */
