// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLK_MQ_ALLOC_DISK_LIM
 *
 * 6.9: blk_mq_alloc_disk() gained a struct queue_limits argument
 * (set, lim, queuedata); before it took (set, queuedata) and limits were
 * applied afterwards with the blk_queue_*() setters.
 */
#include <linux/blk-mq.h>

struct gendisk *xps_probe(struct blk_mq_tag_set *set);
struct gendisk *xps_probe(struct blk_mq_tag_set *set)
{
	struct queue_limits lim = { .logical_block_size = 512 };

	return blk_mq_alloc_disk(set, &lim, NULL);
}
