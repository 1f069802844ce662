/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Pure logic of xen-netfront-pgnt: how a packet's bytes go into 4 KB
 * transmit slots at any guest page size, what the backend's transmit and
 * receive responses may say (each checked before it is acted upon), the
 * grant-reference tables of the netif control ring's static-grant
 * messages, and the state machine that asks a backend to map a queue's
 * grant pool once (persistent grants) or falls back to per-packet grants.
 *
 * Builds in the kernel and in userspace (tests/unit); it includes only
 * xgp_port.h and xgp_ring.h and never touches Xen, locks or sk_buffs.
 *
 * The wire formats are Xen's public io/netif.h (Xen 4.17); the values are
 * repeated here because the kernel's copy of that header lacks the
 * static-grant control messages, and so that the tests build anywhere.
 */
#ifndef XNF_CORE_H
#define XNF_CORE_H

#include <xen-pv-suite/xgp_port.h>
#include <xen-pv-suite/xgp_ring.h>

/* ---- netif wire values ---- */

#define XNF_TXF_CSUM_BLANK	0x1U
#define XNF_TXF_DATA_VALIDATED	0x2U
#define XNF_TXF_MORE_DATA	0x4U
#define XNF_TXF_EXTRA_INFO	0x8U

#define XNF_RXF_DATA_VALIDATED	0x1U
#define XNF_RXF_CSUM_BLANK	0x2U
#define XNF_RXF_MORE_DATA	0x4U
#define XNF_RXF_EXTRA_INFO	0x8U
#define XNF_RXF_GSO_PREFIX	0x10U

#define XNF_RSP_DROPPED		(-2)
#define XNF_RSP_ERROR		(-1)
#define XNF_RSP_OKAY		0
#define XNF_RSP_NULL		1	/* tx: the slot carried extra info */

#define XNF_EXTRA_TYPE_NONE	0
#define XNF_EXTRA_TYPE_GSO	1
#define XNF_EXTRA_TYPE_MCAST_ADD 2
#define XNF_EXTRA_TYPE_MCAST_DEL 3
#define XNF_EXTRA_TYPE_HASH	4
#define XNF_EXTRA_TYPE_MAX	5
#define XNF_EXTRA_FLAG_MORE	0x1U

#define XNF_GSO_TYPE_NONE	0
#define XNF_GSO_TYPE_TCPV4	1
#define XNF_GSO_TYPE_TCPV6	2

/* the largest packet a tx request's 16-bit size can describe */
#define XNF_MAX_TX_SIZE		0xffffU
/* slots of one packet every netback accepts (XEN_NETBK_LEGACY_SLOTS_MAX) */
#define XNF_MAX_SLOTS		18U

/* the Toeplitz hash messages (io/netif.h) */
#define XNF_CTRL_TYPE_GET_HASH_FLAGS		1
#define XNF_CTRL_TYPE_SET_HASH_FLAGS		2
#define XNF_CTRL_TYPE_SET_HASH_KEY		3
#define XNF_CTRL_TYPE_GET_HASH_MAPPING_SIZE	4
#define XNF_CTRL_TYPE_SET_HASH_MAPPING_SIZE	5
#define XNF_CTRL_TYPE_SET_HASH_MAPPING		6
#define XNF_CTRL_TYPE_SET_HASH_ALGORITHM	7
#define XNF_HASH_ALG_NONE			0
#define XNF_HASH_ALG_TOEPLITZ			1
/* hash types: the HASH extra's type is the bit number */
#define XNF_HASH_TYPE_IPV4			0
#define XNF_HASH_TYPE_IPV4_TCP			1
#define XNF_HASH_TYPE_IPV6			2
#define XNF_HASH_TYPE_IPV6_TCP			3
#define XNF_HASH_FLAGS_ALL			0xfU

#define XNF_CTRL_TYPE_GET_GREF_MAPPING_SIZE	8
#define XNF_CTRL_TYPE_ADD_GREF_MAPPING		9
#define XNF_CTRL_TYPE_DEL_GREF_MAPPING		10
#define XNF_CTRL_STATUS_SUCCESS			0
#define XNF_CTRL_STATUS_NOT_SUPPORTED		1
#define XNF_CTRL_STATUS_INVALID_PARAMETER	2
#define XNF_CTRL_STATUS_BUFFER_OVERFLOW		3

/**
 * struct xnf_gref - one entry of a static-grant table (struct
 * xen_netif_gref: 8 octets, little endian as the guest's)
 * @ref: grant reference
 * @flags: XNF_GREF_READONLY
 * @status: XNF_CTRL_STATUS_*, written by the backend (DEL only)
 */
struct xnf_gref {
	u32 ref;
	u16 flags;
	u16 status;
};

#define XNF_GREF_READONLY	0x1U
/* table entries in one 4 KB page */
#define XNF_GREFS_PER_PAGE	(XGP_GRANT_SIZE / 8U)

/* ---- transmit: a packet's bytes in slots ---- */

/**
 * struct xnf_tx_plan - how a packet goes onto the tx ring
 * @len: packet length in bytes
 * @nr_slots: data slots (tx requests with data)
 * @nr_extras: extra-info slots after the first (GSO: 1)
 * @copied: the bytes are copied into 4 KB pool slots, densely (byte b in
 *	slot b / 4096 at offset b % 4096); else each fragment is granted in
 *	place, cut at 4 KB frame boundaries
 */
struct xnf_tx_plan {
	unsigned long len;
	unsigned int nr_slots;
	unsigned int nr_extras;
	bool copied;
};

unsigned int xnf_tx_pieces(unsigned long page_off, unsigned long len);
int xnf_tx_plan(unsigned long len, unsigned int nr_pieces, bool gso,
		bool persistent, struct xnf_tx_plan *p);
void xnf_tx_slot_sizes(const struct xnf_tx_plan *p, unsigned int slot,
		       unsigned int piece_len, u16 *size, u16 *flags);

/* ---- responses ---- */

enum xnf_tx_verdict {
	XNF_TX_OK,		/* sent */
	XNF_TX_ERROR,		/* backend could not send it */
	XNF_TX_DROPPED,		/* backend dropped it */
	XNF_TX_NULL,		/* the response of an extra-info slot: skip */
	XNF_TX_BAD_ID,		/* id out of range or not outstanding */
	XNF_TX_BAD_STATUS,	/* no NETIF_RSP_* value */
	XNF_TX_NR,
};

enum xnf_tx_verdict xnf_tx_rsp_check(struct xgp_idtab *t, u64 id,
				     int status, unsigned long *cookie);

enum xnf_rx_verdict {
	XNF_RX_OK,		/* @len bytes at the response's offset */
	XNF_RX_ERROR,		/* the backend reports an error: drop */
	XNF_RX_BAD_ID,		/* not the id posted in this slot */
	XNF_RX_BAD_SIZE,	/* offset + size beyond the 4 KB grant */
	XNF_RX_TOO_MANY,	/* more slots than a packet may take */
	XNF_RX_BAD_FLAGS,	/* flags no NETRXF_* value */
	XNF_RX_NR,
};

enum xnf_rx_verdict xnf_rx_rsp_check(u16 id, u16 want_id, u16 offset,
				     u16 flags, s16 status,
				     unsigned int slot_in_packet,
				     unsigned int max_slots);

enum xnf_extra_verdict {
	XNF_EXTRA_OK,
	XNF_EXTRA_BAD_TYPE,	/* none, or beyond the known types */
	XNF_EXTRA_BAD_GSO,	/* GSO type or size not usable */
	XNF_EXTRA_TOO_MANY,	/* chain longer than the types */
};

enum xnf_extra_verdict xnf_rx_extra_check(u8 type, u8 flags, u16 gso_size,
					  u8 gso_type, unsigned int nth);

const char *xnf_tx_verdict_str(enum xnf_tx_verdict v);
const char *xnf_rx_verdict_str(enum xnf_rx_verdict v);

/* ---- static grants: tables and the control-ring state machine ---- */

unsigned int xnf_gref_table_fill(struct xnf_gref *tbl, unsigned int max,
				 const u32 *grefs, unsigned int n,
				 unsigned int from, bool readonly);

enum xnf_pg_state {
	XNF_PG_OFF,		/* per-packet grants: no control ring, or refused */
	XNF_PG_SIZING,		/* GET_GREF_MAPPING_SIZE sent */
	XNF_PG_ADDING,		/* ADD_GREF_MAPPING of a table page sent */
	XNF_PG_MAPPED,		/* every pool gref mapped by the backend */
	XNF_PG_DELETING,	/* DEL_GREF_MAPPING of a table page sent */
	XNF_PG_BROKEN,		/* the backend broke the protocol */
};

/**
 * struct xnf_pg - persistent-grant negotiation of one queue
 * @state: enum xnf_pg_state
 * @type: control message outstanding (XNF_CTRL_TYPE_*), 0 for none
 * @id: its request id
 * @queue: the queue's index, data[0] of each of its requests
 * @nr_grefs: grants of the queue's pools to map
 * @mapped: of them, entries the backend has accepted (a prefix)
 * @pos: first entry of the outstanding ADD or DEL
 * @chunk: entries in it
 * @backend_max: what GET_GREF_MAPPING_SIZE answered
 * @status: status of the last response (XNF_CTRL_STATUS_*)
 */
struct xnf_pg {
	u8 state;
	u8 type;
	u16 id;
	u32 queue;
	unsigned int nr_grefs;
	unsigned int mapped;
	unsigned int pos;
	unsigned int chunk;
	unsigned int backend_max;
	u32 status;
};

/**
 * struct xnf_pg_msg - a control request the driver must send
 * @type: XNF_CTRL_TYPE_*, 0 for none
 * @queue: the queue it is about
 * @first: for ADD and DEL, the first of the queue's grefs in the table page
 * @count: for ADD and DEL, entries in it
 */
struct xnf_pg_msg {
	u8 type;
	u32 queue;
	unsigned int first;
	unsigned int count;
};

void xnf_pg_start(struct xnf_pg *pg, u32 queue, unsigned int nr_grefs,
		  u16 id, struct xnf_pg_msg *msg);
int xnf_pg_response(struct xnf_pg *pg, u16 id, u16 type, u32 status,
		    u32 data, u16 next_id, struct xnf_pg_msg *msg);
void xnf_pg_stop(struct xnf_pg *pg, u16 id, struct xnf_pg_msg *msg);
bool xnf_pg_unsupported(const struct xnf_pg *pg);

/* data[] words of a netif control request */
#define XNF_CTRL_DATA_WORDS	3
void xnf_ctrl_req_data(const struct xnf_pg_msg *msg, u32 tbl_ref,
		       u32 data[XNF_CTRL_DATA_WORDS]);

/**
 * xnf_ctrl_rsp_check - whether a control response answers the request
 * @req_id: the request's id
 * @req_type: its type
 * @id: the response's id (untrusted)
 * @type: its type (untrusted)
 * @status: its status (untrusted)
 *
 * Return: 0, or -EPROTO for another id or type, or a status netif.h
 * does not define.
 */
static inline int xnf_ctrl_rsp_check(u16 req_id, u16 req_type, u16 id,
				     u16 type, u32 status)
{
	if (id != req_id || type != req_type ||
	    status > XNF_CTRL_STATUS_BUFFER_OVERFLOW)
		return -EPROTO;
	return 0;
}

#endif /* XNF_CORE_H */
