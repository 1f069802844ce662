// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLK_MQ_F_SHOULD_MERGE
 *
 * An old API: a blk-mq driver asked for bio merging with
 * BLK_MQ_F_SHOULD_MERGE in its tag set's flags (6.1 and 6.12 still do);
 * later kernels merge for every tag set and have no such flag (Debian's
 * 7.2 headers).
 */
#include <linux/blk-mq.h>

unsigned int xps_probe(void);
unsigned int xps_probe(void)
{
	return BLK_MQ_F_SHOULD_MERGE;
}
