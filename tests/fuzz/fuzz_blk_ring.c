// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_blk_ring - libFuzzer target: a lying block backend's responses
 * against xen-blkfront-64k's own checks (src/blkfront/xbf_core.c,
 * src/grant-pool/xgp_ring_core.c), compared with a reference model.
 *
 * The input is a script.  Its first bytes pick the ring size (32 to 512
 * requests) and where the 32-bit ring indexes start (so that they wrap);
 * then each command byte either issues a request (an operation and a
 * part byte from the input) or lets the backend publish a response
 * producer index (any 32-bit value the input gives) followed by that
 * many responses (an id, an operation and a status, all from the input).
 *
 * What must hold, whatever the backend says:
 * - xgp_rsp_avail() refuses a producer index claiming more responses than
 *   requests are outstanding, and accepts every other;
 * - xbf_rsp_check() gives the model's verdict: an id outside the ring,
 *   an id not outstanding (stale or double), an operation that is not
 *   the request's and an unknown status are each refused and change
 *   nothing; a valid response hands back exactly the request's cookie
 *   and part and frees its id, once;
 * - xbf_rsp_outcome() succeeds a request only on OKAY, or on a flush or
 *   barrier the backend cannot do (which stops flushing);
 * - the id table's own count matches the model's after every step.
 * A refused response ends the script, as it ends the device.
 * Any mismatch aborts (a crash libFuzzer reports); so do ASan and UBSan.
 */

#define FUZZ_NAME "fuzz_blk_ring"
#include "fuzz.h"

#include <xgp_shim.h>
#include <xen-pv-suite/xgp_ring.h>
#include "blkfront_core.h"

struct model_ent {
	int inflight;
	uint8_t op;
	uint8_t part;
	unsigned long cookie;
};

static const uint8_t ops[] = {
	XBF_BLKIF_OP_READ, XBF_BLKIF_OP_WRITE, XBF_BLKIF_OP_WRITE_BARRIER,
	XBF_BLKIF_OP_FLUSH_DISKCACHE, XBF_BLKIF_OP_DISCARD,
};

static enum xbf_verdict model_verdict(const struct model_ent *m,
				      unsigned int size, uint64_t id,
				      uint8_t op, int status)
{
	if (id >= size)
		return XBF_RSP_BAD_ID;
	if (!m[id].inflight)
		return XBF_RSP_NOT_INFLIGHT;
	if (m[id].op != op)
		return XBF_RSP_BAD_OP;
	switch (status) {
	case XBF_BLKIF_RSP_OKAY:
		return XBF_RSP_OKAY;
	case XBF_BLKIF_RSP_ERROR:
		return XBF_RSP_ERROR;
	case XBF_BLKIF_RSP_EOPNOTSUPP:
		return XBF_RSP_NOTSUPP;
	default:
		return XBF_RSP_BAD_STATUS;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };
	struct xgp_idtab t;
	struct model_ent *m;
	unsigned int ring, inflight = 0;
	unsigned long next_cookie = 1;
	uint32_t req_prod, rsp_cons;
	uint8_t order, c;

	if (take(&in, &order, 1) || take(&in, &rsp_cons, 4))
		return 0;
	ring = 32u << (order % 5);
	req_prod = rsp_cons;
	if (xgp_idtab_init(&t, ring))
		fail("idtab_init(%u) failed", ring);
	m = calloc(ring, sizeof(*m));
	if (!m)
		abort();

	while (!take(&in, &c, 1)) {
		if (c & 1) {	/* the frontend issues a request */
			uint8_t o, part;
			int id;

			if (take(&in, &o, 1) || take(&in, &part, 1))
				break;
			if (!xgp_ring_room(req_prod, rsp_cons, ring))
				continue;
			o = ops[o % sizeof(ops)];
			id = xgp_id_get(&t, o, next_cookie, part);
			if (id < 0) {
				if (inflight < ring)
					fail("no id with %u of %u in flight", inflight, ring);
				continue;
			}
			if ((unsigned int)id >= ring || m[id].inflight)
				fail("id %d handed out twice or out of range", id);
			m[id] = (struct model_ent){ 1, o, part, next_cookie++ };
			inflight++;
			req_prod++;
		} else {	/* the backend publishes rsp_prod and responses */
			uint32_t prod, nr, k, outstanding = req_prod - rsp_cons;
			bool want_ok, ok;
			int rc;

			if (take(&in, &prod, 4))
				break;
			if (c & 2)	/* mostly plausible values */
				prod = rsp_cons + prod % (outstanding + 2);
			rc = xgp_rsp_avail(prod, rsp_cons, req_prod, ring, &nr);
			want_ok = outstanding <= ring && prod - rsp_cons <= outstanding;
			ok = rc == 0;
			if (ok != want_ok || (ok && nr != prod - rsp_cons))
				fail("rsp_avail(%u, %u, %u) = %d, nr %u", prod, rsp_cons,
				     req_prod, rc, nr);
			if (rc)
				goto dead;	/* the device is stopped */
			for (k = 0; k < nr; k++) {
				uint64_t id;
				uint8_t op, part = 0xee;
				int32_t status;
				unsigned long cookie = 0;
				enum xbf_verdict v, want;
				enum xbf_outcome out;
				bool stop = false;

				if (take(&in, &id, 8) || take(&in, &op, 1) ||
				    take(&in, &status, 4))
					goto dead;
				/* small ids and statuses most of the time */
				if (!(c & 4))
					id %= ring + 2;
				if (!(c & 8))
					status = (int)(status % 4) - 2;
				want = model_verdict(m, ring, id, op, status);
				v = xbf_rsp_check(&t, id, op, status, &cookie, &part);
				rsp_cons++;
				if (v != want)
					fail("verdict %s, model %s (id %llu op %u status %d)",
					     xbf_verdict_str(v), xbf_verdict_str(want),
					     (unsigned long long)id, op, status);
				if (v > XBF_RSP_NOTSUPP)
					goto dead;
				if (cookie != m[id].cookie || part != m[id].part)
					fail("id %llu: cookie %lu part %u, issued %lu %u",
					     (unsigned long long)id, cookie, part,
					     m[id].cookie, m[id].part);
				m[id].inflight = 0;
				inflight--;
				out = xbf_rsp_outcome(op, v, part & 1, &stop);
				if (out == XBF_OUT_OK && v != XBF_RSP_OKAY &&
				    !(stop && (op == XBF_BLKIF_OP_FLUSH_DISKCACHE ||
					       op == XBF_BLKIF_OP_WRITE_BARRIER)))
					fail("op %u verdict %s succeeded", op, xbf_verdict_str(v));
				if (stop && op != XBF_BLKIF_OP_FLUSH_DISKCACHE &&
				    op != XBF_BLKIF_OP_WRITE_BARRIER)
					fail("op %u stopped flushing", op);
			}
		}
		if (t.inflight != inflight)
			fail("idtab counts %u in flight, model %u", t.inflight, inflight);
	}
dead:
	xgp_idtab_destroy(&t);
	free(m);
	return 0;
}
