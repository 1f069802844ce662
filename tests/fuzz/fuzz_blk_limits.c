// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_blk_limits - libFuzzer target: the request limits xen-blkfront-64k
 * derives from a backend's xenstore values (feature-max-indirect-segments,
 * sectors), at the first connect and at a restore onto another backend.
 *
 * Input: the module parameter max_indirect_segments, the first backend's
 * and a later backend's feature-max-indirect-segments (any 32-bit value),
 * a request length and a segment count, the backend's "sectors".
 *
 * What must hold:
 * - xbf_effective_segs() never exceeds the parameter, the backend's value
 *   or 256, and is 0 (plain requests) at 11 or below;
 * - the tag set's limits (xbf_size_requests) are made for any first
 *   backend;
 * - every request the queue can hold (a multiple of 512 up to max_bytes,
 *   its segments between one per 4 KB and one per 512 bytes) can be
 *   planned again for the later backend: its parts cover the segments in
 *   order, none carries more than that backend allows, and all its grant
 *   slots fit the slots_per_rq reserved for it (the restore-onto-a-
 *   smaller-backend defect of 2026-11);
 * - xbf_sectors_ok() accepts exactly the sizes whose bytes fit a loff_t.
 */

#define FUZZ_NAME "fuzz_blk_limits"
#include "fuzz.h"

#include <xgp_shim.h>
#include <xen-pv-suite/xgp_ring.h>
#include "blkfront_core.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct {
		uint16_t param;
		uint32_t first, later;
		uint32_t bytes, segs;
		uint64_t sectors;
	} __attribute__((packed)) v;
	unsigned int e1, e2, cap, i, next = 0, slots;
	unsigned long bytes;
	struct xbf_limits l;
	struct xbf_plan p;
	int rc;

	if (size < sizeof(v))
		return 0;
	memcpy(&v, data, sizeof(v));

	e1 = xbf_effective_segs(v.first, v.param);
	e2 = xbf_effective_segs(v.later, v.param);
	if (e1 > v.first || e1 > v.param || e1 > XBF_MAX_SEGS ||
	    (e1 && e1 <= XBF_MAX_DIRECT_SEGS))
		fail("effective_segs(%u, %u) = %u", v.first, v.param, e1);
	rc = xbf_size_requests(e1, &l);
	if (rc)
		fail("size_requests(%u) = %d", e1, rc);

	/* a request the queue holds: 512 B to max_bytes */
	bytes = ((unsigned long)v.bytes % (l.max_bytes >> XBF_SECTOR_SHIFT) + 1)
		<< XBF_SECTOR_SHIFT;
	/* its segments: one per 4 KB at least, one per sector at most */
	i = (bytes + XGP_GRANT_SIZE - 1) / XGP_GRANT_SIZE;
	if (i < l.max_segs) {
		unsigned int most = bytes >> XBF_SECTOR_SHIFT;

		if (most > l.max_segs)
			most = l.max_segs;
		i += v.segs % (most - i + 1);
	}
	rc = xbf_plan_segs(i, bytes, e2, &p);
	if (rc)
		fail("plan_segs(%u, %lu, %u) = %d after first %u", i, bytes, e2,
		     rc, e1);
	cap = e2 ? e2 : XBF_MAX_DIRECT_SEGS;
	slots = 0;
	for (i = 0; i < p.nr_parts; i++) {
		unsigned int first, n, ind;

		xbf_plan_part(&p, i, &first, &n, &ind);
		if (first != next || !n || (n > cap && n > XBF_MAX_DIRECT_SEGS))
			fail("part %u: grants %u+%u, expected from %u, at most %u",
			     i, first, n, next, cap);
		if (!p.indirect && n > XBF_MAX_DIRECT_SEGS)
			fail("plain part %u with %u grants", i, n);
		next = first + n;
		slots += n + ind;
	}
	if (next != p.nr_grants)
		fail("parts cover %u of %u grants", next, p.nr_grants);
	if (slots > l.slots_per_rq)
		fail("%u slots for %lu bytes under %u, %u reserved (first %u)",
		     slots, bytes, e2, l.slots_per_rq, e1);

	if (xbf_sectors_ok(v.sectors) !=
	    (v.sectors <= (uint64_t)INT64_MAX / 512))
		fail("sectors_ok(%llu)", (unsigned long long)v.sectors);
	return 0;
}
