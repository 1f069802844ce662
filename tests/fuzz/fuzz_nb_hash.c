// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_nb_hash - libFuzzer target: a lying frontend's Toeplitz hash
 * control messages against xen-netback-pgnt's handlers (xnb_hash_* in
 * src/netback/xnb_core.c), with a reference model, and the hash itself
 * against a bit-by-bit one.
 *
 * Input: the vif's queue count, then messages: SET_HASH_ALGORITHM,
 * GET/SET_HASH_FLAGS, SET_HASH_KEY (the key in a heap block of exactly
 * the length the frontend claims, up to 255 octets), SET_HASH_MAPPING_SIZE,
 * SET_HASH_MAPPING (offset and length anywhere in u32, the entries in a
 * heap block of that length, up to 255), a reset (reconnect), a packet
 * to steer (its hash, and a queue count that may differ from the one
 * the table was set for) and a Toeplitz hash of an input.
 *
 * What must hold:
 * - each message's status is the model's (the stock netback's answers);
 *   a refused message changes nothing, an accepted one exactly what it
 *   says: the live table equals the model's after every message;
 * - an entry naming a queue the vif does not have is refused, and no
 *   entry outside the table's size is ever written (ASan);
 * - every packet is steered to a queue below the count it is steered
 *   with, the model's queue;
 * - xnb_toeplitz equals the definition: for each set bit of the input,
 *   the 32 key bits from that bit's position, the key zero past its end.
 */

#define FUZZ_NAME "fuzz_nb_hash"
#include "fuzz.h"

#include <xgp_shim.h>
#include "xnb_core.h"

struct model {
	u32 alg, flags, size;
	u8 key[XNB_HASH_KEY_MAX];
	u32 table[XNB_HASH_MAPPING_MAX];
};

static u32 toeplitz_ref(const u8 *key, unsigned int keylen, const u8 *buf,
			unsigned int len)
{
	unsigned int bit, k;
	u32 hash = 0, w;

	for (bit = 0; bit < len * 8; bit++) {
		if (!(buf[bit / 8] & (0x80U >> (bit % 8))))
			continue;
		w = 0;
		for (k = 0; k < 32; k++) {
			unsigned int kb = bit + k;
			unsigned int on = kb / 8 < keylen &&
					  (key[kb / 8] & (0x80U >> (kb % 8)));

			w = w << 1 | on;
		}
		hash ^= w;
	}
	return hash;
}

static void same(const struct xnb_hash *h, const struct model *m,
		 const char *after)
{
	const u32 *live = h->mapping[h->sel];

	if (h->alg != m->alg || h->flags != m->flags || h->size != m->size)
		fail("after %s: alg %u flags %#x size %u; model %u %#x %u",
		     after, h->alg, h->flags, h->size, m->alg, m->flags,
		     m->size);
	if (memcmp(h->key, m->key, sizeof(m->key)))
		fail("after %s: the key differs from the model's", after);
	/* entries past the size are never read: compare those in use */
	if (memcmp(live, m->table, m->size * sizeof(u32)))
		fail("after %s: the live table differs from the model's",
		     after);
}

static void status(const char *what, u32 got, u32 want)
{
	if (got != want)
		fail("%s: status %u, model %u", what, got, want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };
	static struct xnb_hash h;
	struct model m;
	u8 nrq, op, len, how;
	u32 v, off, want, got, i, flags;
	unsigned int q, n;
	u8 *buf;
	u32 *tbl;

	if (take(&in, &nrq, 1))
		return 0;
	nrq = 1 + nrq % 16;
	xnb_hash_reset(&h);
	memset(&m, 0, sizeof(m));
	while (!take(&in, &op, 1)) {
		switch (op % 9) {
		case 0:	/* SET_HASH_ALGORITHM */
			if (take(&in, &v, 4))
				return 0;
			if (op & 0x80)
				v %= 3;
			want = v <= XNB_HASH_ALG_TOEPLITZ ? 0 :
			       XNB_CTRL_STATUS_INVALID_PARAMETER;
			status("set_alg", xnb_hash_set_alg(&h, v), want);
			if (!want)
				m.alg = v;
			same(&h, &m, "set_alg");
			break;
		case 1:	/* GET_HASH_FLAGS */
			flags = 0x5a5a;
			want = m.alg ? 0 : XNB_CTRL_STATUS_NOT_SUPPORTED;
			status("get_flags", xnb_hash_get_flags(&h, &flags), want);
			if (!want && flags != XNB_HASH_FLAGS_ALL)
				fail("get_flags: %#x", flags);
			break;
		case 2:	/* SET_HASH_FLAGS */
			if (take(&in, &v, 4))
				return 0;
			if (op & 0x80)
				v &= 0x1f;
			want = (v & ~XNB_HASH_FLAGS_ALL) || !m.alg ?
			       XNB_CTRL_STATUS_INVALID_PARAMETER : 0;
			status("set_flags", xnb_hash_set_flags(&h, v), want);
			if (!want)
				m.flags = v;
			same(&h, &m, "set_flags");
			break;
		case 3:	/* SET_HASH_KEY: the octets the frontend claims */
			if (take(&in, &len, 1))
				return 0;
			buf = malloc(len ?: 1);
			for (i = 0; i < len; i++)
				if (take(&in, &buf[i], 1))
					buf[i] = (u8)i;
			want = len > XNB_HASH_KEY_MAX ?
			       XNB_CTRL_STATUS_INVALID_PARAMETER : 0;
			status("set_key", xnb_hash_set_key(&h, buf, len), want);
			if (!want) {
				memset(m.key, 0, sizeof(m.key));
				memcpy(m.key, buf, len);
			}
			free(buf);
			same(&h, &m, "set_key");
			break;
		case 4:	/* SET_HASH_MAPPING_SIZE */
			if (take(&in, &v, 4))
				return 0;
			if (op & 0x80)
				v %= XNB_HASH_MAPPING_MAX + 4;
			want = v > XNB_HASH_MAPPING_MAX ?
			       XNB_CTRL_STATUS_INVALID_PARAMETER : 0;
			status("set_mapping_size",
			       xnb_hash_set_mapping_size(&h, v), want);
			if (!want) {
				m.size = v;
				memset(m.table, 0, sizeof(m.table));
			}
			same(&h, &m, "set_mapping_size");
			break;
		case 5:	/* SET_HASH_MAPPING: [off, off + len) */
			if (take(&in, &how, 1) || take(&in, &off, 4) ||
			    take(&in, &len, 1))
				return 0;
			if ((how & 3) == 1)		/* in or near the table */
				off %= XNB_HASH_MAPPING_MAX + 4;
			else if ((how & 3) == 2)	/* off + len wraps round */
				off = 0U - off % 300U;
			tbl = malloc((len ?: 1) * sizeof(*tbl));
			for (i = 0; i < len; i++) {
				u8 e;

				if (take(&in, &e, 1))
					e = 0;
				/* mostly queues the vif has, or just past */
				if (!(how & 4))
					tbl[i] = e % nrq;
				else
					tbl[i] = how & 8 ? e : e % (nrq + 2U);
			}
			want = !len || (u64)off + len > m.size ?
			       XNB_CTRL_STATUS_INVALID_PARAMETER : 0;
			for (i = 0; !want && i < len; i++)
				if (tbl[i] >= nrq)
					want = XNB_CTRL_STATUS_INVALID_PARAMETER;
			status("mapping_check",
			       xnb_hash_mapping_check(&h, len, off),
			       !len || (u64)off + len > m.size ?
			       XNB_CTRL_STATUS_INVALID_PARAMETER : 0);
			status("set_mapping",
			       xnb_hash_set_mapping(&h, tbl, len, off, nrq), want);
			if (!want)
				memcpy(&m.table[off], tbl, len * sizeof(*tbl));
			free(tbl);
			same(&h, &m, "set_mapping");
			break;
		case 6:	/* the vif reconnects */
			xnb_hash_reset(&h);
			memset(&m, 0, sizeof(m));
			same(&h, &m, "reset");
			break;
		case 7:	/* steer a packet, maybe with another queue count */
			if (take(&in, &v, 4) || take(&in, &len, 1))
				return 0;
			n = op & 0x80 ? len % 20 : nrq;
			q = xnb_hash_queue(&h, v, n);
			if (!n)
				want = 0;
			else if (!m.size)
				want = v % n;
			else
				want = m.table[v % m.size] < n ?
				       m.table[v % m.size] : 0;
			if (q != want || (n && q >= n))
				fail("hash %#x to queue %u of %u, model %u", v, q,
				     n, want);
			break;
		case 8:	/* the Toeplitz hash of an input */
			if (take(&in, &len, 1))
				return 0;
			len %= 40;
			buf = malloc(len ?: 1);
			for (i = 0; i < len; i++)
				if (take(&in, &buf[i], 1))
					buf[i] = 0xff;
			n = op & 0x80 ? XNB_HASH_KEY_MAX : op % XNB_HASH_KEY_MAX;
			got = xnb_toeplitz(h.key, n, buf, len);
			want = toeplitz_ref(h.key, n, buf, len);
			free(buf);
			if (got != want)
				fail("toeplitz of %u octets, key %u: %#x, by definition %#x",
				     len, n, got, want);
			break;
		}
	}
	return 0;
}
