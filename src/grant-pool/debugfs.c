// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Registry of live pools and caches, and their statistics in debugfs:
 *   /sys/kernel/debug/xen-grant-pool/stats          global gauges
 *   /sys/kernel/debug/xen-grant-pool/<name>/stats   one pool or cache
 * Every file is "key value" lines.  Debugfs failures are not fatal: the
 * pools work without their statistics files.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/mutex.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include "internal.h"

struct xgp_stat_key {
	const char *key;
	size_t off;
};

#define XGP_FKEY(f) { #f, offsetof(struct xgp_front_stats, f) }
#define XGP_BKEY(f) { #f, offsetof(struct xgp_back_stats, f) }

static const struct xgp_stat_key xgp_front_keys[] = {
	XGP_FKEY(grants_issued), XGP_FKEY(grant_failures), XGP_FKEY(gets),
	XGP_FKEY(reused), XGP_FKEY(get_empty), XGP_FKEY(puts),
	XGP_FKEY(bad_puts), XGP_FKEY(revoked), XGP_FKEY(revoke_busy),
	XGP_FKEY(deferred_pages), XGP_FKEY(pages_allocated),
	XGP_FKEY(pages_freed), XGP_FKEY(alloc_failures),
	XGP_FKEY(limit_hits), XGP_FKEY(slots), XGP_FKEY(slots_free),
	XGP_FKEY(slots_held), XGP_FKEY(max_slots), XGP_FKEY(pages_live),
	XGP_FKEY(flagged),
};

static const struct xgp_stat_key xgp_back_keys[] = {
	XGP_BKEY(hits), XGP_BKEY(misses), XGP_BKEY(inserts),
	XGP_BKEY(purges), XGP_BKEY(evictions), XGP_BKEY(map_failures),
	XGP_BKEY(unmap_failures), XGP_BKEY(cap_rejects), XGP_BKEY(dup_maps),
	XGP_BKEY(bad_puts), XGP_BKEY(unmapped), XGP_BKEY(unmaps),
	XGP_BKEY(unmap_busy), XGP_BKEY(page_allocs), XGP_BKEY(page_frees),
	XGP_BKEY(page_alloc_failures), XGP_BKEY(mapped), XGP_BKEY(idle),
	XGP_BKEY(in_use), XGP_BKEY(cap), XGP_BKEY(pages), XGP_BKEY(stuck),
};

static DEFINE_MUTEX(xgp_registry_lock);	/* protects both lists */
static LIST_HEAD(xgp_pools);
static LIST_HEAD(xgp_caches);
static struct dentry *xgp_root;

static void xgp_show_keys(struct seq_file *m, const void *st,
			  const struct xgp_stat_key *keys, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		seq_printf(m, "%s %llu\n", keys[i].key,
			   *(const u64 *)((const char *)st + keys[i].off));
}

static int xgp_pool_stats_show(struct seq_file *m, void *v)
{
	struct xgp_front_pool *pool = m->private;
	struct xgp_front_stats st;

	xgp_front_core_stats(&pool->core, &st);
	seq_printf(m, "domid %u\n", pool->core.domid);
	xgp_show_keys(m, &st, xgp_front_keys, ARRAY_SIZE(xgp_front_keys));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xgp_pool_stats);

static int xgp_cache_stats_show(struct seq_file *m, void *v)
{
	struct xgp_back_cache *cache = m->private;
	struct xgp_back_stats st;

	xgp_back_core_stats(&cache->core, &st);
	seq_printf(m, "domid %u\n", cache->core.domid);
	xgp_show_keys(m, &st, xgp_back_keys, ARRAY_SIZE(xgp_back_keys));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xgp_cache_stats);

static int xgp_global_stats_show(struct seq_file *m, void *v)
{
	u64 pools = 0, caches = 0, pages = 0, grants = 0, mapped = 0, mpages = 0;
	struct xgp_front_pool *pool;
	struct xgp_back_cache *cache;
	struct xgp_front_stats fs;
	struct xgp_back_stats bs;
	u64 rings_freed, rings_leaked;
	unsigned int rings_kept;

	mutex_lock(&xgp_registry_lock);
	list_for_each_entry(pool, &xgp_pools, node) {
		xgp_front_core_stats(&pool->core, &fs);
		pools++;
		pages += fs.pages_live;
		grants += fs.slots;
	}
	list_for_each_entry(cache, &xgp_caches, node) {
		xgp_back_core_stats(&cache->core, &bs);
		caches++;
		mapped += bs.mapped;
		mpages += bs.pages;
	}
	mutex_unlock(&xgp_registry_lock);

	seq_printf(m, "pools %llu\ncaches %llu\npages_live %llu\n",
		   pools, caches, pages);
	seq_printf(m, "grants_live %llu\nmapped_live %llu\n", grants, mapped);
	seq_printf(m, "mapped_pages_live %llu\n", mpages);
	seq_printf(m, "deferred_pages %u\nleaked_pages %llu\n",
		   READ_ONCE(xgp_deferred.nr_pages), READ_ONCE(xgp_deferred.leaked));
	seq_printf(m, "deferred_freed %llu\nflagged_pools %u\n",
		   READ_ONCE(xgp_deferred.freed), xgp_flagged_pools());
	xgp_ring_stats(&rings_kept, &rings_freed, &rings_leaked);
	seq_printf(m, "rings_kept %u\nrings_freed %llu\nrings_leaked %llu\n",
		   rings_kept, rings_freed, rings_leaked);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xgp_global_stats);

/**
 * xgp_valid_name - check a pool or cache name
 * @name: name
 *
 * Return: true if usable as a debugfs directory name.
 */
bool xgp_valid_name(const char *name)
{
	size_t len;

	if (!name)
		return false;
	len = strnlen(name, XGP_NAME_LEN);
	return len && len < XGP_NAME_LEN && !strchr(name, '/') &&
	       strcmp(name, "stats") && strcmp(name, "selftest") &&
	       strcmp(name, ".") && strcmp(name, "..");
}

/* Caller holds xgp_registry_lock. */
static bool xgp_name_taken(const char *name)
{
	struct xgp_front_pool *pool;
	struct xgp_back_cache *cache;

	list_for_each_entry(pool, &xgp_pools, node)
		if (!strcmp(pool->name, name))
			return true;
	list_for_each_entry(cache, &xgp_caches, node)
		if (!strcmp(cache->name, name))
			return true;
	return false;
}

static struct dentry *xgp_add_dir(const char *name, void *obj,
				  const struct file_operations *fops)
{
	struct dentry *dir = debugfs_create_dir(name, xgp_root);

	debugfs_create_file("stats", 0444, dir, obj, fops);
	return dir;
}

/**
 * xgp_register_pool - make a pool visible in the registry and debugfs
 * @pool: pool with its name set
 *
 * Return: 0, or -EEXIST if a pool or cache already has that name.
 */
int xgp_register_pool(struct xgp_front_pool *pool)
{
	int err = 0;

	mutex_lock(&xgp_registry_lock);
	if (xgp_name_taken(pool->name)) {
		err = -EEXIST;
	} else {
		list_add_tail(&pool->node, &xgp_pools);
		pool->dir = xgp_add_dir(pool->name, pool, &xgp_pool_stats_fops);
	}
	mutex_unlock(&xgp_registry_lock);
	return err;
}

/**
 * xgp_unregister_pool - remove a pool from the registry and debugfs
 * @pool: registered pool
 *
 * Waits for readers of its stats file to finish.
 */
void xgp_unregister_pool(struct xgp_front_pool *pool)
{
	mutex_lock(&xgp_registry_lock);
	list_del(&pool->node);
	mutex_unlock(&xgp_registry_lock);
	debugfs_remove_recursive(pool->dir);
}

/**
 * xgp_register_cache - make a cache visible in the registry and debugfs
 * @cache: cache with its name set
 *
 * Return: 0, or -EEXIST if a pool or cache already has that name.
 */
int xgp_register_cache(struct xgp_back_cache *cache)
{
	int err = 0;

	mutex_lock(&xgp_registry_lock);
	if (xgp_name_taken(cache->name)) {
		err = -EEXIST;
	} else {
		list_add_tail(&cache->node, &xgp_caches);
		cache->dir = xgp_add_dir(cache->name, cache,
					 &xgp_cache_stats_fops);
	}
	mutex_unlock(&xgp_registry_lock);
	return err;
}

/**
 * xgp_unregister_cache - remove a cache from the registry and debugfs
 * @cache: registered cache
 */
void xgp_unregister_cache(struct xgp_back_cache *cache)
{
	mutex_lock(&xgp_registry_lock);
	list_del(&cache->node);
	mutex_unlock(&xgp_registry_lock);
	debugfs_remove_recursive(cache->dir);
}

struct dentry *xgp_debugfs_root(void)
{
	return xgp_root;
}

int xgp_debugfs_init(void)
{
	xgp_root = debugfs_create_dir("xen-grant-pool", NULL);
	debugfs_create_file("stats", 0444, xgp_root, NULL,
			    &xgp_global_stats_fops);
	return 0;
}

void xgp_debugfs_exit(void)
{
	debugfs_remove_recursive(xgp_root);
	xgp_root = NULL;
}
