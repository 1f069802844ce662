// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_nb_tx - libFuzzer target: a lying frontend's transmit requests
 * against xen-netback-pgnt's parser (xnb_tx_parse in
 * src/netback/xnb_core.c) and its producer check (xnb_req_avail), with a
 * reference model.
 *
 * Input: a producer and consumer index, the slots the frontend has
 * produced (1 to XNB_PARSE_SLOTS, as xnb_tx_take copies them; sometimes
 * none), the data-slot limits (mostly the driver's 18 and 20), then the
 * slots, 12 octets each, exactly as the frontend wrote them.  The slots
 * sit in a heap block of exactly that size: a read past the producer is
 * an ASan report.
 *
 * What must hold:
 * - a producer more than a ring ahead of the consumer is refused, and
 *   the count is prod - cons otherwise;
 * - the verdict is the model's: FATAL for a packet that runs past the
 *   producer, crosses its 4 KB grant, has more data slots than
 *   fatal_slots or bad extras; DROP for one that is only unusable;
 * - a packet that is not FATAL takes between 1 and the produced slots,
 *   its data and extra slots adding up to them, so the ring moves on and
 *   never past the producer;
 * - an OK packet is at least an Ethernet header, has at most max_slots
 *   data slots, and every one of its slots (the first one with what the
 *   others leave it) lies inside its 4 KB grant, the sizes adding up to
 *   the packet's length.
 */

#define FUZZ_NAME "fuzz_nb_tx"
#include "fuzz.h"

#include <xgp_shim.h>
#include "xnb_core.h"

#define RING 256U

struct model {
	enum xnb_tx_verdict v;
	unsigned int nr_slots, nr_data, len, first_len;
};

static u8 octet(const struct xnb_tx_slot *s, unsigned int k)
{
	u8 raw[sizeof(*s)];

	memcpy(raw, s, sizeof(raw));
	return raw[k];
}

/*
 * The rules of xnb_tx_parse's comment and of netif.h, walked the other
 * way round: first find where the packet ends, then judge it.
 */
static void model(const struct xnb_tx_slot *s, unsigned int avail,
		  unsigned int max_slots, unsigned int fatal_slots,
		  struct model *m)
{
	unsigned int i = 1, seen = 0, rest = 0, nextra = 0;
	bool drop = false, more;
	u16 gso_size;
	u8 type;

	memset(m, 0, sizeof(*m));
	m->v = XNB_TX_FATAL;
	if (!avail)
		return;
	if (s[0].flags & XNB_TXF_EXTRA_INFO) {
		do {
			if (i >= avail || nextra == XNB_MAX_EXTRAS)
				return;
			type = octet(&s[i], 0);
			if (!type || type >= XNB_EXTRA_TYPE_MAX ||
			    (seen & (1U << type)))
				return;
			seen |= 1U << type;
			if (type == XNB_EXTRA_TYPE_GSO) {
				gso_size = octet(&s[i], 2) | octet(&s[i], 3) << 8;
				if (!gso_size)
					return;
				if (octet(&s[i], 4) != XNB_GSO_TYPE_TCPV4 &&
				    octet(&s[i], 4) != XNB_GSO_TYPE_TCPV6)
					drop = true;
			}
			nextra++;
		} while (octet(&s[i++], 1) & XNB_EXTRA_FLAG_MORE);
	}
	m->nr_data = 1;
	for (more = s[0].flags & XNB_TXF_MORE_DATA; more; i++) {
		if (i >= avail || m->nr_data >= fatal_slots ||
		    s[i].offset + s[i].size > (int)XNB_PAGE)
			return;
		rest += s[i].size;
		m->nr_data++;
		more = s[i].flags & XNB_TXF_MORE_DATA;
	}
	m->nr_slots = i;
	m->len = s[0].size;
	if (drop || rest > m->len) {
		m->v = XNB_TX_DROP;
		return;
	}
	m->first_len = m->len - rest;
	if (s[0].offset + m->first_len > XNB_PAGE)
		return;
	if (m->nr_data > max_slots || m->len < XNB_MIN_FRAME)
		m->v = XNB_TX_DROP;
	else
		m->v = XNB_TX_OK;
}

static const char *vname(enum xnb_tx_verdict v)
{
	return v == XNB_TX_OK ? "OK" : v == XNB_TX_DROP ? "DROP" :
	       v == XNB_TX_FATAL ? "FATAL" : "?";
}

/* what every packet that is not FATAL must be, whatever the model says */
static void invariants(const struct xnb_tx_slot *s, unsigned int avail,
		       unsigned int max_slots, enum xnb_tx_verdict v,
		       const struct xnb_tx_pkt *p)
{
	unsigned int i, sum, data = 0;

	if (v != XNB_TX_OK && !p->why)
		fail("%s without a reason", vname(v));
	if (v == XNB_TX_FATAL)
		return;
	if (!p->nr_slots || p->nr_slots > avail)
		fail("%s takes %u slots of %u produced", vname(v), p->nr_slots,
		     avail);
	if (p->extra_slot & ~((p->nr_slots >= 32 ? 0U : 1U << p->nr_slots) - 2U))
		fail("extra slots %#x outside 1..%u", p->extra_slot,
		     p->nr_slots - 1);
	for (i = 0; i < p->nr_slots; i++)
		data += !(p->extra_slot & (1U << i));
	if (data != p->nr_data)
		fail("%u data slots counted, %u said", data, p->nr_data);
	if (v != XNB_TX_OK)
		return;
	if (p->len < XNB_MIN_FRAME || p->nr_data > max_slots)
		fail("OK: %u bytes in %u data slots (limit %u)", p->len,
		     p->nr_data, max_slots);
	if (p->len != s[0].size || s[0].offset + p->first_len > XNB_PAGE)
		fail("OK: first slot %u bytes at %u, len %u", p->first_len,
		     s[0].offset, p->len);
	sum = p->first_len;
	for (i = 1; i < p->nr_slots; i++) {
		if (p->extra_slot & (1U << i))
			continue;
		if (s[i].offset + s[i].size > (int)XNB_PAGE)
			fail("OK: slot %u has %u bytes at %u", i, s[i].size,
			     s[i].offset);
		sum += s[i].size;
	}
	if (sum != p->len)
		fail("OK: slots hold %u bytes of %u", sum, p->len);
	if (p->gso_size && p->gso_type != XNB_GSO_TYPE_TCPV4 &&
	    p->gso_type != XNB_GSO_TYPE_TCPV6)
		fail("OK with GSO type %u", p->gso_type);
	if (p->has_hash && p->hash_type > XNB_HASH_TYPE_IPV6_TCP)
		fail("OK with hash type %u", p->hash_type);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };
	struct {
		u32 prod, cons;
		u8 avail, max_slots, fatal_slots, mode;
	} __attribute__((packed)) h;
	unsigned int avail, max_slots, fatal_slots, nr, i;
	struct xnb_tx_slot *s;
	enum xnb_tx_verdict v;
	struct xnb_tx_pkt p;
	struct model m;
	int rc;

	if (take(&in, &h, sizeof(h)))
		return 0;
	/* the producer check */
	if (h.mode & 1)
		h.prod = h.cons + h.avail;
	rc = xnb_req_avail(h.prod, h.cons, RING, &nr);
	if (!rc == (h.prod - h.cons > RING) ||
	    (!rc && nr != h.prod - h.cons))
		fail("req_avail(%u, %u) = %d, %u", h.prod, h.cons, rc, nr);
	/* the slots xnb_tx_take hands the parser: at most XNB_PARSE_SLOTS */
	avail = h.avail % (XNB_PARSE_SLOTS + 1);
	if (!avail && !(h.mode & 2))
		avail = 1;
	if (h.mode & 4) {	/* other limits, fatal_slots > max_slots */
		max_slots = 1 + h.max_slots % XNB_PARSE_SLOTS;
		fatal_slots = max_slots + 1 + h.fatal_slots % 4;
	} else {
		max_slots = XNB_MAX_SLOTS;
		fatal_slots = XNB_FATAL_SLOTS;
	}
	s = malloc(avail * sizeof(*s));
	for (i = 0; i < avail; i++)
		if (take(&in, &s[i], sizeof(*s)))
			memset(&s[i], 0, sizeof(*s));
	v = xnb_tx_parse(s, avail, max_slots, fatal_slots, &p);
	model(s, avail, max_slots, fatal_slots, &m);
	if (v != m.v)
		fail("verdict %s (%s), model %s; %u produced, limits %u/%u",
		     vname(v), p.why ?: "", vname(m.v), avail, max_slots,
		     fatal_slots);
	if (v != XNB_TX_FATAL &&
	    (p.nr_slots != m.nr_slots || p.nr_data != m.nr_data))
		fail("%s: %u slots, %u data; model %u, %u", vname(v),
		     p.nr_slots, p.nr_data, m.nr_slots, m.nr_data);
	if (v == XNB_TX_OK && p.first_len != m.first_len)
		fail("first slot %u bytes, model %u", p.first_len, m.first_len);
	invariants(s, avail, max_slots, v, &p);
	free(s);
	return 0;
}
