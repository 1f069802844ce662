// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLK_MQ_F_SHOULD_MERGE
 *
 * An old API: until 6.13 a blk-mq driver asked for bio merging with
 * BLK_MQ_F_SHOULD_MERGE in its tag set's flags; 6.14 made merging the
 * default and removed the flag.
 */
#include <linux/blk-mq.h>

unsigned int xps_probe(void);
unsigned int xps_probe(void)
{
	return BLK_MQ_F_SHOULD_MERGE;
}
