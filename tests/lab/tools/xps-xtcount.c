// SPDX-License-Identifier: GPL-2.0
/*
 * xps-xtcount - count grant-table operations in a xentrace stream, so that
 * the net benchmark can quote Xen's own count next to the backend's.
 *
 * Reads xentrace's binary output on stdin (xentrace -e 0x00203000: PV
 * hypercall entry records) and prints one line:
 *
 *   records=R lost=L hypercalls=H gnttab_calls=G copy=C map=M unmap=U other=O
 *
 * hypercalls counts every TRC_PV_HYPERCALL_V2 (and multicall subcall)
 * record; gnttab_calls those for grant_table_op; copy, map and unmap sum
 * the operations those calls asked for (Xen records each grant_table_op
 * with its cmd and count arguments); other sums the rest of the grant
 * commands.  lost adds up Xen's lost-records reports (a trace buffer that
 * overflowed): a count with lost > 0 is a lower bound.
 *
 * The stream is a sequence of struct t_rec (xen/include/public/trace.h):
 * a header word (event in bits 0-27, the number of extra words in bits
 * 28-30, a cycle count present when bit 31 is set), two words of cycle
 * count if present, then the extra words.  xentrace's own per-CPU
 * records use the same layout.
 *
 * Exit status: 0, or 1 when the stream ends inside a record.
 * Built by dom0 in the lab (tcc) and by tests/lab/tools/test-xtcount.sh.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define TRC_LOST_RECORDS	0x0001f001u
#define TRC_PV_HYPERCALL_V2	0x0020100du
#define TRC_PV_HYPERCALL_SUBCALL 0x0020200eu
#define HYPERVISOR_grant_table_op 20u
#define GNTTABOP_map_grant_ref	0u
#define GNTTABOP_unmap_grant_ref 1u
#define GNTTABOP_copy		5u

struct counts {
	uint64_t records, lost, hypercalls, gnttab_calls;
	uint64_t copy, map, unmap, other;
};

/*
 * One hypercall record: word 0 holds the op in bits 0-19 and, per
 * argument i (0-5), two bits at 20 + 2i: 1 a 32-bit value follows, 2 a
 * 64-bit one (two words), 0 absent.  grant_table_op records cmd (arg 0)
 * and count (arg 2).
 */
static void hypercall(struct counts *c, const uint32_t *w, unsigned int n)
{
	uint64_t arg[6] = { 0 };
	int have[6] = { 0 };
	unsigned int i, k = 1;

	c->hypercalls++;
	if (n < 1 || (w[0] & 0xfffff) != HYPERVISOR_grant_table_op)
		return;
	c->gnttab_calls++;
	for (i = 0; i < 6; i++) {
		unsigned int f = (w[0] >> (20 + 2 * i)) & 3;

		if (f == 1 && k < n) {
			arg[i] = w[k++];
			have[i] = 1;
		} else if (f == 2 && k + 1 < n) {
			arg[i] = w[k] | (uint64_t)w[k + 1] << 32;
			k += 2;
			have[i] = 1;
		}
	}
	if (!have[0] || !have[2])
		return;
	switch (arg[0]) {
	case GNTTABOP_copy:
		c->copy += arg[2];
		break;
	case GNTTABOP_map_grant_ref:
		c->map += arg[2];
		break;
	case GNTTABOP_unmap_grant_ref:
		c->unmap += arg[2];
		break;
	default:
		c->other += arg[2];
	}
}

int main(void)
{
	struct counts c = { 0 };
	uint32_t hdr, w[9];

	while (fread(&hdr, sizeof(hdr), 1, stdin) == 1) {
		unsigned int event = hdr & 0x0fffffff;
		unsigned int extra = (hdr >> 28) & 7;
		unsigned int cyc = hdr >> 31 ? 2 : 0;

		if (fread(w, sizeof(w[0]), cyc + extra, stdin) != cyc + extra) {
			fprintf(stderr, "xps-xtcount: stream ends inside a record\n");
			return 1;
		}
		c.records++;
		if (event == TRC_LOST_RECORDS && extra >= 1)
			c.lost += w[cyc];
		else if (event == TRC_PV_HYPERCALL_V2 || event == TRC_PV_HYPERCALL_SUBCALL)
			hypercall(&c, w + cyc, extra);
	}
	printf("records=%" PRIu64 " lost=%" PRIu64 " hypercalls=%" PRIu64
	       " gnttab_calls=%" PRIu64 " copy=%" PRIu64 " map=%" PRIu64
	       " unmap=%" PRIu64 " other=%" PRIu64 "\n",
	       c.records, c.lost, c.hypercalls, c.gnttab_calls,
	       c.copy, c.map, c.unmap, c.other);
	return 0;
}
