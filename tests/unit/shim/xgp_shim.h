/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Userspace stand-ins for the few kernel facilities the pure
 * xen-grant-pool code uses: fixed-size types, list_head, hlist, kzalloc
 * (with fault injection), byte order.  Written for the unit tests only.
 */
#ifndef XGP_SHIM_H
#define XGP_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <limits.h>
#include <endian.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef int16_t s16;
typedef uint32_t u32;
typedef unsigned long long u64;	/* as in the kernel: printed with %llu */
typedef uint32_t __le32;
typedef unsigned int gfp_t;

#define GFP_KERNEL	0x1U
#define GFP_NOIO	0x2U
#define GFP_ATOMIC	0x4U

#define cpu_to_le32(x)	htole32(x)
#define le32_to_cpu(x)	le32toh(x)

#define __printf(a, b)	__attribute__((format(printf, a, b)))
/* the pure code xen-grant-pool exports to the frontends */
#define EXPORT_SYMBOL_GPL(sym)	extern int xgp_shim_export_dummy
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define min(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); \
		     _a < _b ? _a : _b; })
#define max(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); \
		     _a > _b ? _a : _b; })
#define max_t(t, a, b)	max((t)(a), (t)(b))

/* Allocation with fault injection: see xgp_shim_fail_alloc_in. */
extern long xgp_shim_fail_alloc_in;
void *xgp_shim_zalloc(size_t size);
#define kzalloc(size, gfp)	xgp_shim_zalloc(size)
#define kcalloc(n, size, gfp)	xgp_shim_zalloc((n) * (size))
#define kfree(p)		free(p)

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline void xgp_list_insert(struct list_head *n, struct list_head *prev,
				   struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

static inline void list_add(struct list_head *n, struct list_head *h)
{
	xgp_list_insert(n, h, h->next);
}

static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	xgp_list_insert(n, h->prev, h);
}

static inline void list_del(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	e->next = NULL;	/* poison: a second del crashes under ASan */
	e->prev = NULL;
}

static inline void list_del_init(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	INIT_LIST_HEAD(e);
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

static inline void list_move_tail(struct list_head *e, struct list_head *h)
{
	list_del(e);
	list_add_tail(e, h);
}

static inline void list_splice_tail(struct list_head *l, struct list_head *h)
{
	if (list_empty(l))
		return;
	l->next->prev = h->prev;
	h->prev->next = l->next;
	l->prev->next = h;
	h->prev = l->prev;
}

static inline void list_splice_init(struct list_head *l, struct list_head *h)
{
	if (list_empty(l))
		return;
	/* Prepend @l to @h. */
	l->prev->next = h->next;
	h->next->prev = l->prev;
	h->next = l->next;
	l->next->prev = h;
	INIT_LIST_HEAD(l);
}

#define list_entry(p, type, member) container_of(p, type, member)
#define list_first_entry(h, type, member) list_entry((h)->next, type, member)
#define list_next_entry(p, member) \
	list_entry((p)->member.next, __typeof__(*(p)), member)
#define list_for_each_entry(p, h, member)				\
	for (p = list_first_entry(h, __typeof__(*p), member);		\
	     &p->member != (h); p = list_next_entry(p, member))
#define list_for_each_entry_safe(p, n, h, member)			\
	for (p = list_first_entry(h, __typeof__(*p), member),		\
	     n = list_next_entry(p, member);				\
	     &p->member != (h); p = n, n = list_next_entry(n, member))

struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct hlist_head {
	struct hlist_node *first;
};

#define INIT_HLIST_HEAD(h) ((h)->first = NULL)

static inline void INIT_HLIST_NODE(struct hlist_node *n)
{
	n->next = NULL;
	n->pprev = NULL;
}

static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	n->next = h->first;
	if (h->first)
		h->first->pprev = &n->next;
	h->first = n;
	n->pprev = &h->first;
}

static inline void hlist_del_init(struct hlist_node *n)
{
	if (!n->pprev)
		return;
	*n->pprev = n->next;
	if (n->next)
		n->next->pprev = n->pprev;
	INIT_HLIST_NODE(n);
}

#define hlist_entry_safe(p, type, member) \
	((p) ? container_of(p, type, member) : NULL)
#define hlist_for_each_entry(p, h, member)				\
	for (p = hlist_entry_safe((h)->first, __typeof__(*p), member);	\
	     p; p = hlist_entry_safe(p->member.next, __typeof__(*p), member))

#endif /* XGP_SHIM_H */
