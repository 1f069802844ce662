// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLK_FEAT_FLAGS
 *
 * 6.11: cache, FUA and other queue features moved into
 * queue_limits.features (BLK_FEAT_WRITE_CACHE, BLK_FEAT_FUA); before,
 * blk_queue_write_cache() set them on the request queue.
 */
#include <linux/blkdev.h>

unsigned int xps_probe(void);
unsigned int xps_probe(void)
{
	struct queue_limits lim = { .features = BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA };

	return lim.features;
}
