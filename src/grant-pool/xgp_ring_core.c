// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Pure frontend mechanics shared by the suite's frontends (builds in
 * userspace too): request ids and their validation, ring index
 * accounting, the packed 4 KB copy iterator.  See xgp_ring.h.
 */
#include <xen-pv-suite/xgp_ring.h>

/* ---- request ids ---- */

/**
 * xgp_idtab_init - allocate the ids of a ring, all free
 * @t: table
 * @size: number of ids
 *
 * Return: 0 or -ENOMEM.
 */
int xgp_idtab_init(struct xgp_idtab *t, unsigned int size)
{
	memset(t, 0, sizeof(*t));
	t->ent = kcalloc(size, sizeof(*t->ent), GFP_KERNEL);
	if (!t->ent)
		return -ENOMEM;
	t->size = size;
	xgp_idtab_reset(t);
	return 0;
}
EXPORT_SYMBOL_GPL(xgp_idtab_init);

/**
 * xgp_idtab_destroy - free the ids of a ring
 * @t: table (may be all zero)
 */
void xgp_idtab_destroy(struct xgp_idtab *t)
{
	kfree(t->ent);
	t->ent = NULL;
	t->size = 0;
}
EXPORT_SYMBOL_GPL(xgp_idtab_destroy);

/**
 * xgp_idtab_reset - mark every id free (after the caller failed or
 * requeued all requests)
 * @t: table
 */
void xgp_idtab_reset(struct xgp_idtab *t)
{
	unsigned int i;

	for (i = 0; i < t->size; i++) {
		t->ent[i].state = XGP_ID_FREE;
		t->ent[i].cookie = 0;
		t->ent[i].next_free = i + 1;
	}
	t->free_head = 0;
	t->inflight = 0;
}
EXPORT_SYMBOL_GPL(xgp_idtab_reset);

/**
 * xgp_id_get - take a free id for a ring request
 * @t: table
 * @tag: what the response must echo
 * @cookie: caller's request
 * @aux: caller's byte, returned by xgp_id_complete()
 *
 * Return: the id, or -ENOSPC.
 */
int xgp_id_get(struct xgp_idtab *t, u8 tag, unsigned long cookie, u8 aux)
{
	unsigned int id = t->free_head;
	struct xgp_id_ent *e;

	if (id >= t->size)
		return -ENOSPC;
	e = &t->ent[id];
	t->free_head = e->next_free;
	e->state = XGP_ID_INFLIGHT;
	e->tag = tag;
	e->cookie = cookie;
	e->aux = aux;
	t->inflight++;
	return id;
}
EXPORT_SYMBOL_GPL(xgp_id_get);

/**
 * xgp_id_put - give an id back without a response (request not sent, or
 * failed by the frontend); an id not outstanding is ignored
 * @t: table
 * @id: an id from xgp_id_get()
 */
void xgp_id_put(struct xgp_idtab *t, unsigned int id)
{
	struct xgp_id_ent *e;

	if (id >= t->size || t->ent[id].state != XGP_ID_INFLIGHT)
		return;
	e = &t->ent[id];
	e->state = XGP_ID_FREE;
	e->cookie = 0;
	e->next_free = t->free_head;
	t->free_head = id;
	t->inflight--;
}
EXPORT_SYMBOL_GPL(xgp_id_put);

/**
 * xgp_id_check - validate the id and tag of a response copied off a ring
 * @t: table of the ring it came from
 * @id: response id (untrusted; 64 bits, so nothing is truncated)
 * @tag: response tag (untrusted)
 *
 * Changes nothing: after XGP_ID_OK the caller validates the rest of the
 * response and completes the id with xgp_id_complete().
 *
 * Return: the verdict.
 */
enum xgp_id_verdict xgp_id_check(const struct xgp_idtab *t, u64 id, u8 tag)
{
	if (id >= t->size)
		return XGP_ID_BAD;
	if (t->ent[id].state != XGP_ID_INFLIGHT)
		return XGP_ID_NOT_INFLIGHT;
	if (t->ent[id].tag != tag)
		return XGP_ID_BAD_TAG;
	return XGP_ID_OK;
}
EXPORT_SYMBOL_GPL(xgp_id_check);

/**
 * xgp_id_complete - release an id that xgp_id_check() accepted
 * @t: table
 * @id: the id
 * @cookie: set to the request's cookie
 * @aux: set to the request's aux byte
 *
 * A second response for the id is refused by xgp_id_check() from now on.
 */
void xgp_id_complete(struct xgp_idtab *t, unsigned int id,
		     unsigned long *cookie, u8 *aux)
{
	*cookie = t->ent[id].cookie;
	*aux = t->ent[id].aux;
	xgp_id_put(t, id);
}
EXPORT_SYMBOL_GPL(xgp_id_complete);

/* ---- ring indexes ---- */

/**
 * xgp_rsp_avail - how many new responses the backend published
 * @rsp_prod: the backend's response producer (untrusted, read once)
 * @rsp_cons: our consumer
 * @req_prod_pvt: our request producer
 * @ring_size: entries in the ring
 * @nr: set to the number of new responses
 *
 * Return: 0, or -EPROTO if the backend claims more responses than
 * requests are outstanding (or than fit in the ring).
 */
int xgp_rsp_avail(u32 rsp_prod, u32 rsp_cons, u32 req_prod_pvt,
		  u32 ring_size, u32 *nr)
{
	u32 n = rsp_prod - rsp_cons;
	u32 outstanding = req_prod_pvt - rsp_cons;

	*nr = 0;
	if (outstanding > ring_size || n > outstanding)
		return -EPROTO;
	*nr = n;
	return 0;
}
EXPORT_SYMBOL_GPL(xgp_rsp_avail);

/**
 * xgp_ring_room - request slots free in the ring
 * @req_prod_pvt: our request producer
 * @rsp_cons: our response consumer
 * @ring_size: entries in the ring
 *
 * Return: free slots (0 if the indexes are inconsistent).
 */
u32 xgp_ring_room(u32 req_prod_pvt, u32 rsp_cons, u32 ring_size)
{
	u32 used = req_prod_pvt - rsp_cons;

	return used > ring_size ? 0 : ring_size - used;
}
EXPORT_SYMBOL_GPL(xgp_ring_room);

/* ---- packed copy iterator ---- */

/**
 * xgp_copy_next - next fragment of a segment copy
 * @it: iterator from xgp_copy_iter_init()
 * @f: filled with the fragment
 *
 * Return: false once the segment is done.
 */
bool xgp_copy_next(struct xgp_copy_iter *it, struct xgp_copy_frag *f)
{
	unsigned long page_room, grant_room, len;

	if (!it->remain)
		return false;
	f->page_idx = it->src / XGP_PAGE_SIZE;
	f->page_off = it->src % XGP_PAGE_SIZE;
	f->grant = it->dst / XGP_GRANT_SIZE;
	f->grant_off = it->dst % XGP_GRANT_SIZE;
	page_room = XGP_PAGE_SIZE - f->page_off;
	grant_room = XGP_GRANT_SIZE - f->grant_off;
	len = min(it->remain, min(page_room, grant_room));
	f->len = len;
	it->src += len;
	it->dst += len;
	it->remain -= len;
	return true;
}
EXPORT_SYMBOL_GPL(xgp_copy_next);
