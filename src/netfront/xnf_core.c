// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Pure logic of xen-netfront-pgnt (builds in userspace too): transmit
 * slot plans, response checks, static-grant tables and their control
 * ring negotiation.  See xnf_core.h.
 */
#include "xnf_core.h"

static unsigned int xnf_div_up(unsigned long n, unsigned long d)
{
	return (n + d - 1) / d;
}

/* ---- transmit ---- */

/**
 * xnf_tx_pieces - 4 KB frames a fragment granted in place touches
 * @page_off: byte offset of the fragment in its first page
 * @len: fragment length (any number of bytes)
 *
 * Return: the number of tx slots the fragment takes, 0 if it is empty.
 */
unsigned int xnf_tx_pieces(unsigned long page_off, unsigned long len)
{
	if (!len)
		return 0;
	return (page_off + len - 1) / XGP_GRANT_SIZE -
	       page_off / XGP_GRANT_SIZE + 1;
}

/**
 * xnf_tx_plan - lay a packet out in tx slots
 * @len: packet length, 1 to XNF_MAX_TX_SIZE bytes
 * @nr_pieces: slots its fragments take granted in place (sum of
 *	xnf_tx_pieces() over the linear part and the frags)
 * @gso: the packet carries a GSO extra-info slot
 * @persistent: the queue's slot pool is mapped by the backend: copy
 * @p: filled with the plan
 *
 * A packet is copied into 4 KB pool slots when the backend maps the pool
 * (persistent grants), and also when granting its fragments in place
 * would take more slots than every netback accepts (XNF_MAX_SLOTS, 18):
 * packed densely, it takes at most 16.
 *
 * Return: 0, or -EINVAL for a length the protocol cannot carry or a
 * piece count that cannot hold @len.
 */
int xnf_tx_plan(unsigned long len, unsigned int nr_pieces, bool gso,
		bool persistent, struct xnf_tx_plan *p)
{
	memset(p, 0, sizeof(*p));
	if (!len || len > XNF_MAX_TX_SIZE)
		return -EINVAL;
	if (nr_pieces < xnf_div_up(len, XGP_GRANT_SIZE) || nr_pieces > len)
		return -EINVAL;
	p->len = len;
	p->nr_extras = gso ? 1 : 0;
	if (persistent || nr_pieces > XNF_MAX_SLOTS) {
		p->copied = true;
		p->nr_slots = xnf_div_up(len, XGP_GRANT_SIZE);
	} else {
		p->nr_slots = nr_pieces;
	}
	return 0;
}

/**
 * xnf_tx_slot_sizes - size and flags of one data slot's tx request
 * @p: the plan
 * @slot: data slot index (< p->nr_slots)
 * @piece_len: bytes in the slot when granted in place (ignored copied)
 * @size: set to the request's size: the whole packet in slot 0, as the
 *	protocol wants, else the slot's own bytes
 * @flags: set to XNF_TXF_MORE_DATA and XNF_TXF_EXTRA_INFO as they apply
 *	(checksum flags are the caller's)
 */
void xnf_tx_slot_sizes(const struct xnf_tx_plan *p, unsigned int slot,
		       unsigned int piece_len, u16 *size, u16 *flags)
{
	unsigned long own = piece_len;

	if (p->copied) {
		own = p->len - (unsigned long)slot * XGP_GRANT_SIZE;
		if (own > XGP_GRANT_SIZE)
			own = XGP_GRANT_SIZE;
	}
	*size = slot ? own : p->len;
	*flags = 0;
	if (slot + 1 < p->nr_slots)
		*flags |= XNF_TXF_MORE_DATA;
	if (!slot && p->nr_extras)
		*flags |= XNF_TXF_EXTRA_INFO;
}

/* ---- responses ---- */

/**
 * xnf_tx_rsp_check - validate a tx response copied off the ring
 * @t: request ids of the queue's tx ring (tag 0)
 * @id: response id (untrusted)
 * @status: response status (untrusted)
 * @cookie: set to the request's cookie when the id is completed
 *
 * An extra-info slot's response carries NETIF_RSP_NULL and no id: it is
 * skipped.  For the others the id is released when the verdict is OK,
 * ERROR or DROPPED; on any other verdict nothing changes and the caller
 * must treat the backend as broken.
 *
 * Return: the verdict.
 */
enum xnf_tx_verdict xnf_tx_rsp_check(struct xgp_idtab *t, u64 id,
				     int status, unsigned long *cookie)
{
	enum xnf_tx_verdict v;
	u8 aux;

	switch (status) {
	case XNF_RSP_NULL:
		return XNF_TX_NULL;
	case XNF_RSP_OKAY:
		v = XNF_TX_OK;
		break;
	case XNF_RSP_ERROR:
		v = XNF_TX_ERROR;
		break;
	case XNF_RSP_DROPPED:
		v = XNF_TX_DROPPED;
		break;
	default:
		return XNF_TX_BAD_STATUS;
	}
	if (xgp_id_check(t, id, 0) != XGP_ID_OK)
		return XNF_TX_BAD_ID;
	xgp_id_complete(t, id, cookie, &aux);
	return v;
}

#define XNF_RXF_KNOWN	(XNF_RXF_DATA_VALIDATED | XNF_RXF_CSUM_BLANK | \
			 XNF_RXF_MORE_DATA | XNF_RXF_EXTRA_INFO | \
			 XNF_RXF_GSO_PREFIX)

/**
 * xnf_rx_rsp_check - validate an rx data response copied off the ring
 * @id: response id (untrusted)
 * @want_id: the id posted in this ring slot (backends answer each rx
 *	request in its own slot; netfront has always relied on it)
 * @offset: data offset in the 4 KB grant (untrusted)
 * @flags: NETRXF_* (untrusted)
 * @status: bytes received, or a negative NETIF_RSP_* (untrusted)
 * @slot_in_packet: data slots of this packet before this one
 * @max_slots: data slots a packet may take
 *
 * Return: the verdict; XNF_RX_OK means @status bytes at @offset, all
 * inside the grant.
 */
enum xnf_rx_verdict xnf_rx_rsp_check(u16 id, u16 want_id, u16 offset,
				     u16 flags, s16 status,
				     unsigned int slot_in_packet,
				     unsigned int max_slots)
{
	if (slot_in_packet >= max_slots)
		return XNF_RX_TOO_MANY;
	if (id != want_id)
		return XNF_RX_BAD_ID;
	if (flags & ~XNF_RXF_KNOWN)
		return XNF_RX_BAD_FLAGS;
	if (status < 0)
		return XNF_RX_ERROR;
	if ((unsigned int)offset + (unsigned int)status > XGP_GRANT_SIZE)
		return XNF_RX_BAD_SIZE;
	return XNF_RX_OK;
}

/**
 * xnf_rx_extra_check - validate an rx extra-info slot
 * @type: XEN_NETIF_EXTRA_TYPE_* (untrusted)
 * @flags: XEN_NETIF_EXTRA_FLAG_* (untrusted; MORE chains another)
 * @gso_size: for GSO, the segment size (untrusted)
 * @gso_type: for GSO, XEN_NETIF_GSO_TYPE_* (untrusted)
 * @nth: extra slots of this packet before this one
 *
 * A backend sends a frontend GSO and hash extras only, each type once.
 *
 * Return: the verdict.
 */
enum xnf_extra_verdict xnf_rx_extra_check(u8 type, u8 flags, u16 gso_size,
					  u8 gso_type, unsigned int nth)
{
	if (nth >= XNF_EXTRA_TYPE_MAX - 1)
		return XNF_EXTRA_TOO_MANY;
	switch (type) {
	case XNF_EXTRA_TYPE_GSO:
		if (!gso_size || (gso_type != XNF_GSO_TYPE_TCPV4 &&
				  gso_type != XNF_GSO_TYPE_TCPV6))
			return XNF_EXTRA_BAD_GSO;
		return XNF_EXTRA_OK;
	case XNF_EXTRA_TYPE_HASH:
		return XNF_EXTRA_OK;
	default:
		return XNF_EXTRA_BAD_TYPE;
	}
}

const char *xnf_tx_verdict_str(enum xnf_tx_verdict v)
{
	static const char * const names[XNF_TX_NR] = {
		[XNF_TX_OK] = "okay",
		[XNF_TX_ERROR] = "error",
		[XNF_TX_DROPPED] = "dropped",
		[XNF_TX_NULL] = "null",
		[XNF_TX_BAD_ID] = "id out of range or not outstanding",
		[XNF_TX_BAD_STATUS] = "unknown status",
	};

	return (unsigned int)v < XNF_TX_NR ? names[v] : "?";
}

const char *xnf_rx_verdict_str(enum xnf_rx_verdict v)
{
	static const char * const names[XNF_RX_NR] = {
		[XNF_RX_OK] = "okay",
		[XNF_RX_ERROR] = "error",
		[XNF_RX_BAD_ID] = "id not the one posted in the slot",
		[XNF_RX_BAD_SIZE] = "data beyond the grant",
		[XNF_RX_TOO_MANY] = "too many slots for one packet",
		[XNF_RX_BAD_FLAGS] = "unknown flags",
	};

	return (unsigned int)v < XNF_RX_NR ? names[v] : "?";
}

/* ---- static grants ---- */

/**
 * xnf_gref_table_fill - one page of an ADD or DEL_GREF_MAPPING table
 * @tbl: the table page (XNF_GREFS_PER_PAGE entries fit a 4 KB page)
 * @max: entries @tbl holds
 * @grefs: the pool's grant references (xgp_front_pool_grefs())
 * @n: how many
 * @from: first of them to put in this page
 * @readonly: the backend may only read the pages (a tx pool)
 *
 * Return: entries written, min(@max, @n - @from); 0 if @from >= @n.
 */
unsigned int xnf_gref_table_fill(struct xnf_gref *tbl, unsigned int max,
				 const u32 *grefs, unsigned int n,
				 unsigned int from, bool readonly)
{
	unsigned int i, k;

	if (from >= n)
		return 0;
	k = min(max, n - from);
	for (i = 0; i < k; i++) {
		tbl[i].ref = grefs[from + i];
		tbl[i].flags = readonly ? XNF_GREF_READONLY : 0;
		tbl[i].status = 0;
	}
	return k;
}

/* Ask for the next table page of an ADD or a DEL. */
static void xnf_pg_chunk(struct xnf_pg *pg, u8 type, unsigned int end,
			 u16 id, struct xnf_pg_msg *msg)
{
	pg->chunk = min(XNF_GREFS_PER_PAGE, end - pg->pos);
	pg->type = type;
	pg->id = id;
	msg->type = type;
	msg->queue = pg->queue;
	msg->first = pg->pos;
	msg->count = pg->chunk;
}

/**
 * xnf_pg_start - begin the persistent-grant negotiation of a queue
 * @pg: state, reset here
 * @queue: the queue's index (every request of it names it)
 * @nr_grefs: grants of the queue's pools (0: nothing to map)
 * @id: id for the control request
 * @msg: set to the request to send (type 0: none, per-packet grants)
 */
void xnf_pg_start(struct xnf_pg *pg, u32 queue, unsigned int nr_grefs,
		  u16 id, struct xnf_pg_msg *msg)
{
	memset(pg, 0, sizeof(*pg));
	memset(msg, 0, sizeof(*msg));
	pg->queue = queue;
	pg->nr_grefs = nr_grefs;
	if (!nr_grefs)
		return;
	pg->state = XNF_PG_SIZING;
	pg->type = XNF_CTRL_TYPE_GET_GREF_MAPPING_SIZE;
	pg->id = id;
	msg->type = pg->type;
	msg->queue = queue;
}

/* The backend gave up (or was made to) with @pg->mapped entries mapped. */
static int xnf_pg_undo(struct xnf_pg *pg, u16 next_id, struct xnf_pg_msg *msg)
{
	pg->pos = 0;
	if (!pg->mapped) {
		pg->state = XNF_PG_OFF;
		pg->type = 0;
		return 0;
	}
	pg->state = XNF_PG_DELETING;
	xnf_pg_chunk(pg, XNF_CTRL_TYPE_DEL_GREF_MAPPING, pg->mapped, next_id,
		     msg);
	return 0;
}

/**
 * xnf_pg_response - act on a control response (copied off the ring)
 * @pg: state
 * @id: response id (untrusted)
 * @type: response type (untrusted)
 * @status: XEN_NETIF_CTRL_STATUS_* (untrusted)
 * @data: response data (untrusted)
 * @next_id: id for a control request this one leads to
 * @msg: set to the next request to send (type 0: none)
 *
 * NOT_SUPPORTED and INVALID_PARAMETER to GET_GREF_MAPPING_SIZE, a size
 * smaller than the pools, or a refused ADD mean per-packet grants (what
 * was added before is deleted first).  A refused DEL leaves the grants
 * to the checked revoke at teardown.
 *
 * @pg->status keeps @status (for the driver's report).
 *
 * Return: 0; -EIO when a DEL was refused or released fewer than asked
 * (state OFF); -EPROTO for a response to nothing outstanding, of another
 * id or type, or with an unknown status (state BROKEN).
 */
int xnf_pg_response(struct xnf_pg *pg, u16 id, u16 type, u32 status,
		    u32 data, u16 next_id, struct xnf_pg_msg *msg)
{
	bool refused;

	memset(msg, 0, sizeof(*msg));
	if (!pg->type || id != pg->id || type != pg->type ||
	    status > XNF_CTRL_STATUS_BUFFER_OVERFLOW) {
		pg->state = XNF_PG_BROKEN;
		pg->type = 0;
		return -EPROTO;
	}
	refused = status != XNF_CTRL_STATUS_SUCCESS;
	pg->type = 0;
	pg->status = status;
	switch (pg->state) {
	case XNF_PG_SIZING:
		pg->backend_max = refused ? 0 : data;
		if (refused || data < pg->nr_grefs) {
			pg->state = XNF_PG_OFF;
			return 0;
		}
		pg->state = XNF_PG_ADDING;
		pg->pos = 0;
		xnf_pg_chunk(pg, XNF_CTRL_TYPE_ADD_GREF_MAPPING, pg->nr_grefs,
			     next_id, msg);
		return 0;
	case XNF_PG_ADDING:
		if (refused)
			return xnf_pg_undo(pg, next_id, msg);
		pg->mapped += pg->chunk;
		pg->pos = pg->mapped;
		if (pg->mapped == pg->nr_grefs) {
			pg->state = XNF_PG_MAPPED;
			return 0;
		}
		xnf_pg_chunk(pg, XNF_CTRL_TYPE_ADD_GREF_MAPPING, pg->nr_grefs,
			     next_id, msg);
		return 0;
	case XNF_PG_DELETING:
		if (refused || data != pg->chunk) {
			pg->state = XNF_PG_OFF;
			return -EIO;
		}
		pg->pos += pg->chunk;
		if (pg->pos == pg->mapped) {
			pg->mapped = 0;
			pg->state = XNF_PG_OFF;
			return 0;
		}
		xnf_pg_chunk(pg, XNF_CTRL_TYPE_DEL_GREF_MAPPING, pg->mapped,
			     next_id, msg);
		return 0;
	default:
		pg->state = XNF_PG_BROKEN;
		return -EPROTO;
	}
}

/**
 * xnf_pg_stop - undo the mapping before the pools are revoked
 * @pg: state
 * @id: id for the control request
 * @msg: set to the request to send (type 0: none)
 *
 * With every gref mapped, DEL_GREF_MAPPING them table page by table
 * page.  With a request outstanding, nothing is sent: its response is
 * awaited (or the backend is gone and the revokes tell).
 */
void xnf_pg_stop(struct xnf_pg *pg, u16 id, struct xnf_pg_msg *msg)
{
	memset(msg, 0, sizeof(*msg));
	if (pg->state != XNF_PG_MAPPED)
		return;
	xnf_pg_undo(pg, id, msg);
}

/**
 * xnf_pg_unsupported - the backend has no static grants at all
 * @pg: state of a queue after its negotiation
 *
 * Return: true when GET_GREF_MAPPING_SIZE was answered NOT_SUPPORTED (a
 * stock netback): no other queue needs to ask.
 */
bool xnf_pg_unsupported(const struct xnf_pg *pg)
{
	return pg->state == XNF_PG_OFF && !pg->backend_max && !pg->mapped &&
	       pg->status == XNF_CTRL_STATUS_NOT_SUPPORTED;
}

/**
 * xnf_ctrl_req_data - the data words of a static-grant control request
 * @msg: the request (xnf_pg_start(), xnf_pg_response(), xnf_pg_stop())
 * @tbl_ref: grant reference of the table page holding @msg's entries
 * @data: set to the request's data[0..2]
 *
 * As io/netif.h (Xen 4.17) lays them out: GET_GREF_MAPPING_SIZE carries
 * the queue index in data[0], data[1] and data[2] zero; ADD and
 * DEL_GREF_MAPPING carry the queue index, the table page's grant
 * reference and the number of entries in it.  Any other type: all zero.
 */
void xnf_ctrl_req_data(const struct xnf_pg_msg *msg, u32 tbl_ref,
		       u32 data[XNF_CTRL_DATA_WORDS])
{
	memset(data, 0, XNF_CTRL_DATA_WORDS * sizeof(*data));
	switch (msg->type) {
	case XNF_CTRL_TYPE_GET_GREF_MAPPING_SIZE:
		data[0] = msg->queue;
		break;
	case XNF_CTRL_TYPE_ADD_GREF_MAPPING:
	case XNF_CTRL_TYPE_DEL_GREF_MAPPING:
		data[0] = msg->queue;
		data[1] = tbl_ref;
		data[2] = msg->count;
		break;
	default:
		break;
	}
}
