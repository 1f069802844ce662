/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Pure bookkeeping of xen-grant-pool: the persistent-grant slot pool of a
 * frontend, the list of pages whose grants could not be revoked yet, and
 * the mapped-grant cache of a backend.
 *
 * This code builds in the kernel and in userspace (unit tests).  Every
 * contact with Xen, the page allocator or a lock goes through an ops
 * table supplied by the caller, so tests can plug in fakes.  The core
 * calls ->lock/->unlock itself around its bookkeeping and calls every
 * other op with the lock dropped; ops that may sleep are marked below.
 */
#ifndef XEN_PV_SUITE_XGP_CORE_H
#define XEN_PV_SUITE_XGP_CORE_H

#include <xen-pv-suite/xgp_port.h>
#include <xen-pv-suite/xgp_chunk.h>

struct page;

/* ---------------------------------------------------------------- front */

enum xgp_slot_state {
	XGP_SLOT_UNUSED,	/* chunk never granted */
	XGP_SLOT_FREE,		/* granted, on the free list */
	XGP_SLOT_HELD,		/* granted, handed out to a caller */
	XGP_SLOT_ENDED,		/* grant revoked */
	XGP_SLOT_BUSY,		/* revoke refused: the backend still maps it */
};

struct xgp_fpage;

/**
 * struct xgp_slot - one 4 KB persistently granted chunk
 * @gref: grant reference the backend uses to map the chunk
 * @offset: byte offset of the chunk within @page
 * @page: page containing the chunk
 * @vaddr: kernel address of the chunk (page address + @offset)
 * @node: free-list linkage (core private)
 * @owner: page record the slot belongs to (core private)
 * @state: enum xgp_slot_state (core private)
 * @used: handed out before, so the next get is a reuse (core private)
 */
struct xgp_slot {
	u32 gref;
	unsigned int offset;
	struct page *page;
	void *vaddr;
	struct list_head node;
	struct xgp_fpage *owner;
	u8 state;
	bool used;
};

struct xgp_front_core;

/* A page backing XGP_GRANTS_PER_PAGE slots; freed only when all ended. */
struct xgp_fpage {
	struct list_head node;
	struct xgp_front_core *core;
	struct page *page;
	void *vaddr;
	unsigned int nr_granted;
	unsigned int nr_busy;
	struct xgp_slot slot[XGP_GRANTS_PER_PAGE];
};

/**
 * struct xgp_front_ops - environment of a front pool
 * @lock: take the pool lock (must be IRQ safe: gets/puts come from I/O paths)
 * @unlock: drop it
 * @page_alloc: allocate and zero one page; may sleep if @gfp allows
 * @page_free: free a page whose grants have all been ended
 * @grant: grant 4 KB chunk @sub of @page to @domid; gref or -errno
 * @try_end: end grant @gref; false if the remote domain still maps it
 */
struct xgp_front_ops {
	void (*lock)(void *priv);
	void (*unlock)(void *priv);
	int (*page_alloc)(void *priv, gfp_t gfp, struct page **page,
			  void **vaddr);
	void (*page_free)(void *priv, struct page *page);
	int (*grant)(void *priv, u16 domid, struct page *page,
		     unsigned int sub, bool readonly);
	bool (*try_end)(void *priv, u32 gref);
};

/**
 * struct xgp_deferred - pages whose grants the remote side still maps
 * @ops: only ->lock, ->unlock, ->try_end and ->page_free are used
 * @priv: passed to @ops
 * @pages: list of struct xgp_fpage
 * @nr_pages: length of @pages
 * @freed: pages freed after a successful retry
 * @leaked: pages given up on (xgp_deferred_leak())
 */
struct xgp_deferred {
	const struct xgp_front_ops *ops;
	void *priv;
	struct list_head pages;
	unsigned int nr_pages;
	u64 freed;
	u64 leaked;
};

/* Counters of a front pool; the gauges are filled by the snapshot. */
struct xgp_front_stats {
	u64 grants_issued;
	u64 grant_failures;
	u64 gets;
	u64 reused;
	u64 get_empty;
	u64 puts;
	u64 bad_puts;
	u64 revoked;
	u64 revoke_busy;
	u64 deferred_pages;
	u64 pages_allocated;
	u64 pages_freed;
	u64 alloc_failures;
	u64 limit_hits;
	/* gauges */
	u64 slots;
	u64 slots_free;
	u64 slots_held;
	u64 max_slots;
	u64 pages_live;
	u64 flagged;
};

/**
 * struct xgp_front_core - persistent grant pool of one frontend device
 * @ops: environment
 * @priv: passed to @ops
 * @deferred: where pages with busy grants go on release
 * @domid: backend domain the pages are granted to
 * @readonly: grant read-only
 * @dead: released; gets fail and grows are refused
 * @flagged: a grant was still mapped by the backend at release
 * @max_slots: upper bound of granted slots
 * @nr_slots: granted slots
 * @nr_pending: slots reserved by a grow in progress
 * @nr_free: length of @free
 * @nr_pages: length of @pages
 * @free: free slots, most recently put first (cache warm)
 * @pages: all pages of the pool
 * @stats: counters
 */
struct xgp_front_core {
	const struct xgp_front_ops *ops;
	void *priv;
	struct xgp_deferred *deferred;
	u16 domid;
	bool readonly;
	bool dead;
	bool flagged;
	unsigned int max_slots;
	unsigned int nr_slots;
	unsigned int nr_pending;
	unsigned int nr_free;
	unsigned int nr_pages;
	struct list_head free;
	struct list_head pages;
	struct xgp_front_stats stats;
};

void xgp_deferred_init(struct xgp_deferred *d, const struct xgp_front_ops *ops,
		       void *priv);
unsigned int xgp_deferred_retry(struct xgp_deferred *d);
unsigned int xgp_deferred_leak(struct xgp_deferred *d);

void xgp_front_core_init(struct xgp_front_core *c,
			 const struct xgp_front_ops *ops, void *priv,
			 struct xgp_deferred *deferred, u16 domid,
			 unsigned int max_slots, bool readonly);
int xgp_front_core_grow(struct xgp_front_core *c, unsigned int nr_free,
			gfp_t gfp);
struct xgp_slot *xgp_front_core_get(struct xgp_front_core *c);
int xgp_front_core_put(struct xgp_front_core *c, struct xgp_slot *slot);

/**
 * struct xgp_release_result - outcome of releasing a front pool
 * @revoked: grants ended
 * @busy: grants the backend still maps (their pages were deferred)
 * @held: slots the caller had not put back (a caller bug)
 * @deferred_pages: pages moved to the deferred list
 */
struct xgp_release_result {
	unsigned int revoked;
	unsigned int busy;
	unsigned int held;
	unsigned int deferred_pages;
};

unsigned int xgp_front_core_get_bulk(struct xgp_front_core *c,
				     struct xgp_slot **slots, unsigned int n,
				     bool zero);
unsigned int xgp_front_core_put_bulk(struct xgp_front_core *c,
				     struct xgp_slot **slots, unsigned int n);
unsigned int xgp_front_core_grefs(struct xgp_front_core *c, u32 *grefs,
				  unsigned int max);
void xgp_front_core_release(struct xgp_front_core *c,
			    struct xgp_release_result *res);
void xgp_front_core_stats(struct xgp_front_core *c,
			  struct xgp_front_stats *out);

/* ----------------------------------------------------------------- back */

#define XGP_BACK_HASH_BITS	8
#define XGP_BACK_MAX_BATCH	1024U

struct xgp_bpage;

/**
 * struct xgp_back_entry - one grant mapped by a backend
 * @gref: grant reference
 * @domid: granting domain
 * @readonly: mapped read-only
 * @handle: grant handle returned by the map
 * @status: result of the last map attempt (0 or -errno; core/ops private)
 * @stuck: set by ->map or ->unmap when the 4 KB sub-page may still hold
 *	the foreign frame (an unmap failed): it is never reused
 * @offset: byte offset of the mapping within @page (a multiple of 4 KB)
 * @page: page the grant is mapped into, at @offset
 * @vaddr: kernel address of the mapping (page address + @offset)
 * @bpage: page record the sub-page belongs to (core private)
 * @hnode: hash linkage (core private)
 * @lru: idle LRU or unmap-batch linkage (core private)
 * @refs: in-flight users; idle (purgeable) at 0 (core private)
 */
struct xgp_back_entry {
	u32 gref;
	u16 domid;
	bool readonly;
	bool stuck;
	u32 handle;
	int status;
	unsigned int offset;
	struct page *page;
	void *vaddr;
	struct xgp_bpage *bpage;
	struct hlist_node hnode;
	struct list_head lru;
	unsigned int refs;
};

/*
 * A page the backend maps grants into: XGP_GRANTS_PER_PAGE 4 KB
 * sub-pages, one mapping each, so a dom0 with 64 KB pages does not spend
 * a whole page on every 4 KB grant.  Freed when its last sub-page is
 * given back; a stuck sub-page is never given back.  Core private.
 * @node: c->bpages linkage
 * @partial: c->partial linkage while a sub-page is free
 * @page: the page
 * @vaddr: its kernel address
 * @used: bitmap of sub-pages taken (mapped, being mapped, or stuck)
 * @nr_used: bits set in @used
 */
struct xgp_bpage {
	struct list_head node;
	struct list_head partial;
	struct page *page;
	void *vaddr;
	u32 used;
	unsigned int nr_used;
};

/**
 * struct xgp_back_ops - environment of a backend cache
 * @lock: take the cache lock (IRQ safe: puts come from I/O completion)
 * @unlock: drop it
 * @page_alloc: allocate one page to map grants into (its frames not
 *	populated); 0 or -ENOMEM; may sleep
 * @page_free: free a page allocated by @page_alloc, nothing mapped in it
 * @map: map @n entries (@gref, @domid, @readonly set) at @vaddr (in
 *	@page at @offset); set @handle and @status (0 or -errno) of each.
 *	A failed entry is left unmapped, or marked @stuck; may sleep
 * @unmap: unmap @n entries; mark @stuck each one that could not be
 *	unmapped and return how many those were; may sleep
 */
struct xgp_back_ops {
	void (*lock)(void *priv);
	void (*unlock)(void *priv);
	int (*page_alloc)(void *priv, struct page **page, void **vaddr);
	void (*page_free)(void *priv, struct page *page);
	void (*map)(void *priv, struct xgp_back_entry **e, unsigned int n);
	unsigned int (*unmap)(void *priv, struct xgp_back_entry **e,
			      unsigned int n);
};

/*
 * Counters of a backend cache; the gauges are filled by the snapshot.
 * @purges, @evictions and @unmaps count entries that left the cache by
 * purge, by eviction under the cap and by targeted unmap; @unmapped and
 * @unmap_failures what the environment then did with them.  @unmap_busy
 * counts targeted unmaps refused because the entry was referenced.
 */
struct xgp_back_stats {
	u64 hits;
	u64 misses;
	u64 inserts;
	u64 purges;
	u64 evictions;
	u64 map_failures;
	u64 unmap_failures;
	u64 cap_rejects;
	u64 dup_maps;
	u64 bad_puts;
	u64 unmapped;
	u64 unmaps;
	u64 unmap_busy;
	u64 page_allocs;
	u64 page_frees;
	u64 page_alloc_failures;
	/* gauges */
	u64 mapped;
	u64 idle;
	u64 in_use;
	u64 cap;
	u64 pages;
	u64 stuck;
};

/**
 * struct xgp_back_core - mapped-grant cache of one backend device
 * @ops: environment
 * @priv: passed to @ops
 * @gfp: allocation flags for entry metadata (the map path may sleep)
 * @domid: frontend domain
 * @cap: hard upper bound of mapped entries
 * @nr_mapped: entries mapped, idle or in use
 * @nr_reserved: entries being mapped right now
 * @nr_idle: length of @lru
 * @nr_pages: length of @bpages
 * @nr_stuck: sub-pages never to be reused (their unmap failed)
 * @lru: idle entries, least recently used first
 * @bpages: every page mapped into (struct xgp_bpage)
 * @partial: the pages with a free sub-page
 * @hash: (domid, gref) -> entry
 * @stats: counters
 */
struct xgp_back_core {
	const struct xgp_back_ops *ops;
	void *priv;
	gfp_t gfp;
	u16 domid;
	unsigned int cap;
	unsigned int nr_mapped;
	unsigned int nr_reserved;
	unsigned int nr_idle;
	unsigned int nr_pages;
	unsigned int nr_stuck;
	struct list_head lru;
	struct list_head bpages;
	struct list_head partial;
	struct hlist_head hash[1U << XGP_BACK_HASH_BITS];
	struct xgp_back_stats stats;
};

void xgp_back_core_init(struct xgp_back_core *c, const struct xgp_back_ops *ops,
			void *priv, gfp_t gfp, u16 domid, unsigned int cap);
struct xgp_back_entry *xgp_back_core_lookup(struct xgp_back_core *c, u32 gref);
int xgp_back_core_map(struct xgp_back_core *c, const u32 *grefs,
		      unsigned int n, struct xgp_back_entry **out,
		      bool readonly);
int xgp_back_core_put(struct xgp_back_core *c, struct xgp_back_entry *e);
unsigned int xgp_back_core_purge(struct xgp_back_core *c, unsigned int nr);
unsigned int xgp_back_core_unmap(struct xgp_back_core *c, const u32 *grefs,
				 unsigned int n, int *status);
void xgp_back_core_stats(struct xgp_back_core *c,
			 struct xgp_back_stats *out);
unsigned int xgp_back_core_fini(struct xgp_back_core *c);

#endif /* XEN_PV_SUITE_XGP_CORE_H */
