/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * xen-grant-pool: grant handling shared by the xen-pv-suite drivers.
 *
 * Frontend side: a pool of pages persistently granted to one backend.
 * Slots (4 KB grant chunks) are taken per request and given back; data
 * is copied through them.  Growing the pool allocates and grants and may
 * sleep; get and put never allocate and may be called with IRQs off.
 * Destroying the pool ends every grant with a checked revoke: pages the
 * backend still maps are never freed or reused but retried later.
 *
 * Shared rings: xgp_ring_alloc() grants 2^order zeroed 4 KB pages;
 * xgp_ring_release() revokes them the same way, keeping a ring the
 * backend still maps until it lets go.  xgp_xs_publish() writes a
 * frontend's keys in one xenstore transaction, retried on -EAGAIN.
 *
 * Backend side: a cache of mapped grants keyed by (domid, gref) with a
 * hard cap on mapped entries per device and LRU purge of idle entries.
 * A referenced entry is never purged or evicted: a backend with
 * persistent grants keeps the reference of each map as a pin and ends
 * it with xgp_back_put() and xgp_back_unmap_grefs().
 *
 * Statistics: /sys/kernel/debug/xen-grant-pool/<name>/stats.
 */
#ifndef XEN_PV_SUITE_GRANT_POOL_H
#define XEN_PV_SUITE_GRANT_POOL_H

#include <linux/types.h>
#include <xen/grant_table.h>
#include <xen/xenbus.h>
#include <xen-pv-suite/xgp_core.h>
#include <xen-pv-suite/xgp_chunk.h>

/* Longest pool or cache name, including the NUL; also the debugfs dir. */
#define XGP_NAME_LEN		32

/* xgp_front_pool_create() flags */
#define XGP_FRONT_READONLY	0x1U	/* backend may only read the pages */

/* xgp_front_get_bulk() flags */
#define XGP_GET_ZERO		0x1U	/* clear each slot's 4 KB first */

struct xgp_front_pool;
struct xgp_back_cache;

struct xgp_front_pool *xgp_front_pool_create(const char *name, domid_t domid,
					     unsigned int max_slots,
					     unsigned int flags);
unsigned int xgp_front_pool_destroy(struct xgp_front_pool *pool);
int xgp_front_prefill(struct xgp_front_pool *pool, unsigned int nr_free,
		      gfp_t gfp);
struct xgp_slot *xgp_front_get(struct xgp_front_pool *pool);
void xgp_front_put(struct xgp_front_pool *pool, struct xgp_slot *slot);
unsigned int xgp_front_get_bulk(struct xgp_front_pool *pool,
				struct xgp_slot **slots, unsigned int n,
				unsigned int flags);
void xgp_front_put_bulk(struct xgp_front_pool *pool, struct xgp_slot **slots,
			unsigned int n);
unsigned int xgp_front_pool_grefs(struct xgp_front_pool *pool, u32 *grefs,
				  unsigned int max);
void xgp_front_pool_stats(struct xgp_front_pool *pool,
			  struct xgp_front_stats *out);

void *xgp_ring_alloc(domid_t domid, unsigned int order, grant_ref_t *refs,
		     gfp_t gfp);
unsigned int xgp_ring_release(domid_t domid, void *va, unsigned int order,
			      grant_ref_t *refs);
int xgp_xs_publish(struct xenbus_device *dev,
		   int (*write)(struct xenbus_transaction xbt, void *arg,
				const char **what),
		   void *arg);

struct xgp_back_cache *xgp_back_cache_create(const char *name, domid_t domid,
					     unsigned int cap);
void xgp_back_cache_destroy(struct xgp_back_cache *cache);
struct xgp_back_entry *xgp_back_lookup(struct xgp_back_cache *cache,
				       grant_ref_t gref);
int xgp_back_map(struct xgp_back_cache *cache, const grant_ref_t *grefs,
		 unsigned int n, struct xgp_back_entry **out, bool readonly);
void xgp_back_put(struct xgp_back_cache *cache, struct xgp_back_entry *entry);
unsigned int xgp_back_unmap_grefs(struct xgp_back_cache *cache,
				  const grant_ref_t *grefs, unsigned int n,
				  int *status);
unsigned int xgp_back_purge(struct xgp_back_cache *cache, unsigned int nr);
void xgp_back_cache_stats(struct xgp_back_cache *cache,
			  struct xgp_back_stats *out);

#endif /* XEN_PV_SUITE_GRANT_POOL_H */
