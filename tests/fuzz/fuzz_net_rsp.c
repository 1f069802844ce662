// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_net_rsp - libFuzzer target: a lying backend's transmit and receive
 * responses against xen-netfront-pgnt's checks (xnf_tx_rsp_check,
 * xnf_rx_rsp_check, xnf_rx_extra_check in src/netfront/xnf_core.c),
 * compared with a reference model.
 *
 * Input: a ring size, then commands: send a packet slot (an id is taken),
 * a transmit response (id and status from the input), a receive slot's
 * response (id, offset, flags, status, its place in the packet) or an
 * extra-info slot (type, GSO fields, its place in the chain).
 *
 * What must hold:
 * - a transmit response with a status netif.h does not define, or an id
 *   out of range or not outstanding (stale, double) is refused and
 *   changes nothing; NULL (an extra slot's answer) completes nothing; a
 *   valid one hands back the slot's cookie, once;
 * - a receive response is accepted only in the slot it was posted to,
 *   with known flags, within the packet's slot limit, and with its bytes
 *   inside the 4 KB grant: offset + size <= 4096, whatever the values;
 * - an extra-info slot is accepted only as a GSO extra with a size and a
 *   TCP type, or a hash extra, at most four in a chain.
 */

#define FUZZ_NAME "fuzz_net_rsp"
#include "fuzz.h"

#include <xgp_shim.h>
#include <xen-pv-suite/xgp_ring.h>
#include "xnf_core.h"

#define RXF_KNOWN (XNF_RXF_DATA_VALIDATED | XNF_RXF_CSUM_BLANK | \
		   XNF_RXF_MORE_DATA | XNF_RXF_EXTRA_INFO | XNF_RXF_GSO_PREFIX)

static void rx_case(struct in *in, u8 c)
{
	struct {
		u16 id, want, offset, flags;
		s16 status;
		u8 slot;
	} __attribute__((packed)) r;
	enum xnf_rx_verdict v, want;

	if (take(in, &r, sizeof(r)))
		return;
	if (c & 0x10)
		r.id = r.want;
	if (c & 0x20)
		r.flags &= RXF_KNOWN;
	if (c & 0x40)
		r.offset %= XGP_GRANT_SIZE + 2;
	r.slot %= XNF_MAX_SLOTS + 2;
	if (r.slot >= XNF_MAX_SLOTS)
		want = XNF_RX_TOO_MANY;
	else if (r.id != r.want)
		want = XNF_RX_BAD_ID;
	else if (r.flags & ~RXF_KNOWN)
		want = XNF_RX_BAD_FLAGS;
	else if (r.status < 0)
		want = XNF_RX_ERROR;
	else if ((unsigned int)r.offset + (unsigned int)r.status > XGP_GRANT_SIZE)
		want = XNF_RX_BAD_SIZE;
	else
		want = XNF_RX_OK;
	v = xnf_rx_rsp_check(r.id, r.want, r.offset, r.flags, r.status, r.slot,
			     XNF_MAX_SLOTS);
	if (v != want)
		fail("rx verdict %s, model %s (id %u/%u off %u flags %#x status %d slot %u)",
		     xnf_rx_verdict_str(v), xnf_rx_verdict_str(want), r.id,
		     r.want, r.offset, r.flags, r.status, r.slot);
	if (v == XNF_RX_OK && (long)r.offset + r.status > (long)XGP_GRANT_SIZE)
		fail("rx accepted %d bytes at %u", r.status, r.offset);
}

static void extra_case(struct in *in)
{
	struct {
		u8 type, flags;
		u16 gso_size;
		u8 gso_type, nth;
	} __attribute__((packed)) e;
	enum xnf_extra_verdict v;
	bool ok, accepted;

	if (take(in, &e, sizeof(e)))
		return;
	e.nth %= 6;
	v = xnf_rx_extra_check(e.type, e.flags, e.gso_size, e.gso_type, e.nth);
	ok = e.nth < XNF_EXTRA_TYPE_MAX - 1 &&
	     ((e.type == XNF_EXTRA_TYPE_GSO && e.gso_size &&
	       (e.gso_type == XNF_GSO_TYPE_TCPV4 ||
		e.gso_type == XNF_GSO_TYPE_TCPV6)) ||
	      e.type == XNF_EXTRA_TYPE_HASH);
	accepted = v == XNF_EXTRA_OK;
	if (accepted != ok)
		fail("extra type %u gso %u/%u nth %u: verdict %d", e.type,
		     e.gso_size, e.gso_type, e.nth, v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };
	struct xgp_idtab t;
	unsigned long *cookie_of;
	unsigned long next_cookie = 1;
	unsigned int ring, inflight = 0;
	u8 order, c;

	if (take(&in, &order, 1))
		return 0;
	ring = 64u << (order % 4);
	if (xgp_idtab_init(&t, ring))
		fail("idtab_init(%u)", ring);
	cookie_of = calloc(ring, sizeof(*cookie_of));
	if (!cookie_of)
		abort();

	while (!take(&in, &c, 1)) {
		switch (c & 3) {
		case 0: {	/* a transmit slot posted */
			int id = xgp_id_get(&t, 0, next_cookie, 0);

			if (id < 0) {
				if (inflight < ring)
					fail("no id with %u of %u in flight",
					     inflight, ring);
				break;
			}
			if ((unsigned int)id >= ring || cookie_of[id])
				fail("id %d handed out twice or out of range", id);
			cookie_of[id] = next_cookie++;
			inflight++;
			break;
		}
		case 1: {	/* a transmit response */
			u64 id;
			int32_t status;
			unsigned long cookie = 0;
			enum xnf_tx_verdict v, want;

			if (take(&in, &id, 8) || take(&in, &status, 4))
				goto out;
			if (!(c & 4))
				id %= ring + 2;
			if (!(c & 8))
				status = status % 4 - 2;
			switch (status) {
			case XNF_RSP_NULL:
				want = XNF_TX_NULL;
				break;
			case XNF_RSP_OKAY:
			case XNF_RSP_ERROR:
			case XNF_RSP_DROPPED:
				want = id >= ring || !cookie_of[id] ? XNF_TX_BAD_ID :
				       status == XNF_RSP_OKAY ? XNF_TX_OK :
				       status == XNF_RSP_ERROR ? XNF_TX_ERROR :
				       XNF_TX_DROPPED;
				break;
			default:
				want = XNF_TX_BAD_STATUS;
			}
			v = xnf_tx_rsp_check(&t, id, status, &cookie);
			if (v != want)
				fail("tx verdict %s, model %s (id %llu status %d)",
				     xnf_tx_verdict_str(v), xnf_tx_verdict_str(want),
				     (unsigned long long)id, status);
			if (v > XNF_TX_NULL)
				goto out;	/* the device is stopped */
			if (v != XNF_TX_NULL) {
				if (cookie != cookie_of[id])
					fail("id %llu: cookie %lu, posted %lu",
					     (unsigned long long)id, cookie,
					     cookie_of[id]);
				cookie_of[id] = 0;
				inflight--;
			}
			break;
		}
		case 2:
			rx_case(&in, c);
			break;
		default:
			extra_case(&in);
		}
		if (t.inflight != inflight)
			fail("idtab counts %u in flight, model %u", t.inflight,
			     inflight);
	}
out:
	xgp_idtab_destroy(&t);
	free(cookie_of);
	return 0;
}
