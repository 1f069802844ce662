// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Lab selftest: /sys/kernel/debug/xen-grant-pool/selftest.
 *
 * One command per write(2); a read returns the result of the last
 * command as one line of space separated key=value pairs, starting with
 * "ok" or "error".  Commands:
 *   front <domid> <nr_slots>   grant, fill with the pattern, hold
 *   back <domid> <g0,g1,...>   map, verify against the pattern, cache;
 *                              check a targeted unmap (busy, unmapped,
 *                              listed twice, unknown) and map it again
 *   back-release               unmap and destroy the selftest cache
 *   front-release              revoke (checked) and destroy the pool
 * The lab runs "front" in a guest and "back" in its backend domain.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/kernel.h>
#include <linux/uaccess.h>
#include <xen/interface/xen.h>
#include "internal.h"

#define XGP_ST_MAX_SLOTS	1024U
#define XGP_ST_CMD_MAX		(XGP_ST_MAX_SLOTS * 11 + 64)
#define XGP_ST_RESULT_MAX	(XGP_ST_MAX_SLOTS * 11 + 128)

static DEFINE_MUTEX(xgp_st_lock);	/* serializes commands and reads */
static char *xgp_st_result;
static size_t xgp_st_len;
static struct xgp_front_pool *xgp_st_pool;
static struct xgp_slot **xgp_st_slots;
static unsigned int xgp_st_nr_slots;
static struct xgp_back_cache *xgp_st_cache;
static struct dentry *xgp_st_file;

static void xgp_st_set(const char *fmt, ...) __printf(1, 2);
static void xgp_st_set(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	xgp_st_len = vscnprintf(xgp_st_result, XGP_ST_RESULT_MAX, fmt, args);
	va_end(args);
}

static void xgp_st_append(const char *fmt, ...) __printf(1, 2);
static void xgp_st_append(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	xgp_st_len += vscnprintf(xgp_st_result + xgp_st_len,
				 XGP_ST_RESULT_MAX - xgp_st_len, fmt, args);
	va_end(args);
}

static int xgp_st_error(int err, const char *reason)
{
	xgp_st_set("error reason=%s", reason);
	return err;
}

static int xgp_st_parse_domid(const char *s, domid_t *domid)
{
	u16 v;

	if (!s || kstrtou16(s, 0, &v) || v >= DOMID_FIRST_RESERVED)
		return -EINVAL;
	*domid = v;
	return 0;
}

/* ---------------------------------------------------------------- front */

static void xgp_st_put_all(void)
{
	unsigned int i;

	for (i = 0; i < xgp_st_nr_slots; i++) {
		if (xgp_st_slots[i])
			xgp_front_put(xgp_st_pool, xgp_st_slots[i]);
		xgp_st_slots[i] = NULL;
	}
}

static int xgp_st_get_all(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		xgp_st_slots[i] = xgp_front_get(xgp_st_pool);
		if (!xgp_st_slots[i])
			return -ENOSPC;
		xgp_pattern_fill(xgp_st_slots[i]->vaddr, i);
	}
	return 0;
}

static bool xgp_st_gref_in(u32 gref, const u32 *set, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (set[i] == gref)
			return true;
	return false;
}

/* Put everything back, get it again: the same grefs, no new grants. */
static int xgp_st_front_reuse(unsigned int n, u64 *reused)
{
	struct xgp_front_stats before, after;
	unsigned int i;
	u32 *first;
	int err;

	first = kcalloc(n, sizeof(*first), GFP_KERNEL);
	if (!first)
		return xgp_st_error(-ENOMEM, "nomem");
	for (i = 0; i < n; i++)
		first[i] = xgp_st_slots[i]->gref;
	xgp_front_pool_stats(xgp_st_pool, &before);
	xgp_st_put_all();
	err = xgp_st_get_all(n);
	xgp_front_pool_stats(xgp_st_pool, &after);
	if (err) {
		err = xgp_st_error(-EIO, "reuse");
		goto out;
	}
	for (i = 0; i < n; i++)
		if (!xgp_st_gref_in(xgp_st_slots[i]->gref, first, n))
			err = -EIO;
	if (err || after.grants_issued != before.grants_issued) {
		err = xgp_st_error(-EIO, "reuse");
		goto out;
	}
	*reused = after.reused - before.reused;
out:
	kfree(first);
	return err;
}

static void xgp_st_front_teardown(struct xgp_release_result *res)
{
	struct xgp_release_result dummy;

	xgp_st_put_all();
	xgp_front_pool_release(xgp_st_pool, res ? res : &dummy);
	xgp_st_pool = NULL;
	xgp_st_nr_slots = 0;
}

static void xgp_st_front_report(unsigned int n, u64 reused)
{
	struct xgp_front_stats st;
	unsigned int i;

	xgp_front_pool_stats(xgp_st_pool, &st);
	xgp_st_set("ok grefs=");
	for (i = 0; i < n; i++)
		xgp_st_append("%s%u", i ? "," : "", xgp_st_slots[i]->gref);
	xgp_st_append(" pages=%llu slots=%u reused=%llu",
		      st.pages_allocated, n, reused);
}

static int xgp_st_front(char *args)
{
	char *sdom = strsep(&args, " "), *snr = strsep(&args, " ");
	struct xgp_front_pool *pool;
	unsigned int n;
	domid_t domid;
	u64 reused;
	int err;

	if (args || !snr || kstrtouint(snr, 0, &n))
		return xgp_st_error(-EINVAL, "syntax");
	if (xgp_st_parse_domid(sdom, &domid))
		return xgp_st_error(-EINVAL, "domid");
	if (!n || n > XGP_ST_MAX_SLOTS)
		return xgp_st_error(-EINVAL, "range");
	if (xgp_st_pool)
		return xgp_st_error(-EBUSY, "busy");

	pool = xgp_front_pool_create("selftest-front", domid, 0, 0);
	if (IS_ERR(pool))
		return xgp_st_error(PTR_ERR(pool), "create");
	xgp_st_pool = pool;
	xgp_st_nr_slots = n;
	err = xgp_front_prefill(pool, n, GFP_KERNEL);
	if (!err)
		err = xgp_st_get_all(n);
	if (err) {
		xgp_st_front_teardown(NULL);
		return xgp_st_error(err == -ENOMEM ? -ENOMEM : -ENOSPC,
				    err == -ENOMEM ? "nomem" : "exhausted");
	}
	err = xgp_st_front_reuse(n, &reused);
	if (err) {
		xgp_st_front_teardown(NULL);
		return err;
	}
	xgp_st_front_report(n, reused);
	return 0;
}

static int xgp_st_front_release(char *args)
{
	struct xgp_release_result res;

	if (args)
		return xgp_st_error(-EINVAL, "syntax");
	if (!xgp_st_pool)
		return xgp_st_error(-ENOENT, "absent");
	xgp_st_front_teardown(&res);
	xgp_st_set("ok revoked=%u busy=%u", res.revoked, res.busy);
	return 0;
}

/* ----------------------------------------------------------------- back */

static int xgp_st_parse_grefs(char *list, u32 *grefs, unsigned int *n)
{
	char *tok;

	*n = 0;
	while ((tok = strsep(&list, ","))) {
		if (*n == XGP_ST_MAX_SLOTS)
			return -ERANGE;
		if (kstrtou32(tok, 0, &grefs[*n]))
			return -EINVAL;
		(*n)++;
	}
	return *n ? 0 : -EINVAL;
}

static void xgp_st_back_put(struct xgp_back_entry **e, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (e[i])
			xgp_back_put(xgp_st_cache, e[i]);
}

/* Look every gref up (expecting a miss), then map them in one batch. */
static int xgp_st_back_map(u32 *grefs, unsigned int n,
			   struct xgp_back_entry **e, unsigned int *misses)
{
	struct xgp_back_entry *hit;
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		hit = xgp_back_lookup(xgp_st_cache, grefs[i]);
		if (hit) {
			xgp_back_put(xgp_st_cache, hit);
			xgp_st_set("error reason=duplicate index=%u", i);
			return -EINVAL;
		}
		(*misses)++;
	}
	err = xgp_back_map(xgp_st_cache, grefs, n, e, true);
	if (err == -ENOSPC)
		return xgp_st_error(err, "cap");
	if (err)
		return xgp_st_error(err, "map");
	return 0;
}

static int xgp_st_back_verify(u32 *grefs, unsigned int n,
			      struct xgp_back_entry **e, unsigned int *hits)
{
	struct xgp_back_entry *again;
	unsigned int i;
	int bad;

	for (i = 0; i < n; i++) {
		bad = xgp_pattern_check(e[i]->vaddr, i);
		if (bad >= 0) {
			xgp_st_set("error reason=verify index=%u word=%d gref=%u",
				   i, bad, grefs[i]);
			return -EIO;
		}
	}
	for (i = 0; i < n; i++) {
		again = xgp_back_lookup(xgp_st_cache, grefs[i]);
		if (again != e[i]) {
			if (again)
				xgp_back_put(xgp_st_cache, again);
			xgp_st_set("error reason=lookup index=%u", i);
			return -EIO;
		}
		xgp_back_put(xgp_st_cache, again);
		(*hits)++;
	}
	return 0;
}

/* A gref the list does not name: the cache has never seen it. */
static u32 xgp_st_unknown_gref(const u32 *grefs, unsigned int n)
{
	u32 g = 1;

	while (xgp_st_gref_in(g, grefs, n))
		g++;
	return g;
}

/*
 * With every entry still referenced: a map naming a gref twice is
 * refused, and a targeted unmap of a referenced entry is too (-EBUSY),
 * leaving it mapped and found.
 */
static int xgp_st_back_busy(u32 *grefs, unsigned int n,
			    struct xgp_back_entry **e)
{
	struct xgp_back_entry *dup[2] = { NULL, NULL }, *again;
	u32 twice[2] = { grefs[0], grefs[0] };
	int st = 0;

	if (xgp_back_map(xgp_st_cache, twice, 2, dup, true) != -EINVAL) {
		xgp_st_back_put(dup, 2);
		return xgp_st_error(-EIO, "dup-map");
	}
	if (xgp_back_unmap_grefs(xgp_st_cache, grefs, 1, &st) || st != -EBUSY) {
		xgp_st_set("error reason=unmap-busy status=%d", st);
		return -EIO;
	}
	again = xgp_back_lookup(xgp_st_cache, grefs[0]);
	if (again)
		xgp_back_put(xgp_st_cache, again);
	if (again != e[0] || xgp_pattern_check(e[0]->vaddr, 0) >= 0)
		return xgp_st_error(-EIO, "unmap-busy-changed");
	return 0;
}

/*
 * With every entry idle: unmap the last gref (listed twice) and one the
 * cache never saw; the hypervisor must accept the unmap.  Then map the
 * gref again and verify it, so the cache ends as "back" left it.
 */
static int xgp_st_back_unmap(u32 *grefs, unsigned int n)
{
	u32 last = grefs[n - 1], list[3];
	struct xgp_back_stats before, after;
	struct xgp_back_entry *e;
	int st[3], err;
	unsigned int done;

	list[0] = last;
	list[1] = last;
	list[2] = xgp_st_unknown_gref(grefs, n);
	xgp_back_cache_stats(xgp_st_cache, &before);
	done = xgp_back_unmap_grefs(xgp_st_cache, list, 3, st);
	xgp_back_cache_stats(xgp_st_cache, &after);
	if (done != 1 || st[0] || st[1] != -ENOENT || st[2] != -ENOENT) {
		xgp_st_set("error reason=unmap done=%u status=%d,%d,%d",
			   done, st[0], st[1], st[2]);
		return -EIO;
	}
	if (after.unmaps != before.unmaps + 1 ||
	    after.unmapped != before.unmapped + 1 ||
	    after.unmap_failures != before.unmap_failures ||
	    after.mapped != before.mapped - 1)
		return xgp_st_error(-EIO, "unmap-stats");
	e = xgp_back_lookup(xgp_st_cache, last);
	if (e) {
		xgp_back_put(xgp_st_cache, e);
		return xgp_st_error(-EIO, "unmap-still-cached");
	}
	err = xgp_back_map(xgp_st_cache, &last, 1, &e, true);
	if (err)
		return xgp_st_error(err, "remap");
	err = xgp_pattern_check(e->vaddr, n - 1) >= 0 ? -EIO : 0;
	xgp_back_put(xgp_st_cache, e);
	return err ? xgp_st_error(err, "remap-verify") : 0;
}

static int xgp_st_back_run(domid_t domid, u32 *grefs, unsigned int n,
			   struct xgp_back_entry **e)
{
	struct xgp_back_cache *cache;
	unsigned int hits = 0, misses = 0;
	struct xgp_back_stats st;
	int err;

	cache = xgp_back_cache_create("selftest-back", domid, 0);
	if (IS_ERR(cache))
		return xgp_st_error(PTR_ERR(cache), "create");
	xgp_st_cache = cache;
	err = xgp_st_back_map(grefs, n, e, &misses);
	/* One batch into a new cache: the grants share pages. */
	xgp_back_cache_stats(xgp_st_cache, &st);
	if (!err && st.pages != DIV_ROUND_UP(n, XGP_GRANTS_PER_PAGE)) {
		xgp_st_set("error reason=pages pages=%llu grants=%u per_page=%u",
			   st.pages, n, XGP_GRANTS_PER_PAGE);
		err = -EIO;
	}
	if (!err)
		err = xgp_st_back_verify(grefs, n, e, &hits);
	if (!err)
		err = xgp_st_back_busy(grefs, n, e);
	xgp_st_back_put(e, n);
	if (!err)
		err = xgp_st_back_unmap(grefs, n);
	if (err) {
		xgp_back_cache_release(xgp_st_cache);
		xgp_st_cache = NULL;
		return err;
	}
	xgp_st_set("ok mapped=%u verified=%u hits=%u misses=%u pages=%llu per_page=%u",
		   n, n, hits, misses, st.pages, XGP_GRANTS_PER_PAGE);
	xgp_st_append(" unmap=1 unmap_busy=1 unmap_absent=2 remapped=1");
	return 0;
}

static int xgp_st_back(char *args)
{
	char *sdom = strsep(&args, " "), *list = strsep(&args, " ");
	struct xgp_back_entry **e = NULL;
	unsigned int n;
	domid_t domid;
	u32 *grefs;
	int err;

	if (args || !list)
		return xgp_st_error(-EINVAL, "syntax");
	if (xgp_st_parse_domid(sdom, &domid))
		return xgp_st_error(-EINVAL, "domid");
	if (xgp_st_cache)
		return xgp_st_error(-EBUSY, "busy");
	grefs = kcalloc(XGP_ST_MAX_SLOTS, sizeof(*grefs), GFP_KERNEL);
	if (grefs)
		e = kcalloc(XGP_ST_MAX_SLOTS, sizeof(*e), GFP_KERNEL);
	if (!e) {
		err = xgp_st_error(-ENOMEM, "nomem");
		goto out;
	}
	err = xgp_st_parse_grefs(list, grefs, &n);
	if (err)
		err = xgp_st_error(-EINVAL, err == -ERANGE ? "range" : "syntax");
	else
		err = xgp_st_back_run(domid, grefs, n, e);
out:
	kfree(e);
	kfree(grefs);
	return err;
}

static int xgp_st_back_release(char *args)
{
	unsigned int n;

	if (args)
		return xgp_st_error(-EINVAL, "syntax");
	if (!xgp_st_cache)
		return xgp_st_error(-ENOENT, "absent");
	n = xgp_back_cache_release(xgp_st_cache);
	xgp_st_cache = NULL;
	xgp_st_set("ok unmapped=%u", n);
	return 0;
}

/* ------------------------------------------------------------- the file */

static int xgp_st_run(char *line)
{
	char *args = strim(line);
	char *cmd = strsep(&args, " ");

	if (args) {
		args = skip_spaces(args);
		if (!*args)
			args = NULL;
	}
	if (!strcmp(cmd, "front"))
		return xgp_st_front(args);
	if (!strcmp(cmd, "back"))
		return xgp_st_back(args);
	if (!strcmp(cmd, "front-release"))
		return xgp_st_front_release(args);
	if (!strcmp(cmd, "back-release"))
		return xgp_st_back_release(args);
	return xgp_st_error(-EINVAL, "command");
}

static ssize_t xgp_st_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char *line;
	int err;

	if (!count || count > XGP_ST_CMD_MAX)
		return -EINVAL;
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	mutex_lock(&xgp_st_lock);
	err = xgp_st_run(line);
	mutex_unlock(&xgp_st_lock);
	kfree(line);
	return err ? err : count;
}

static ssize_t xgp_st_read(struct file *file, char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&xgp_st_lock);
	xgp_st_result[xgp_st_len] = '\n';
	ret = simple_read_from_buffer(ubuf, count, ppos, xgp_st_result,
				      xgp_st_len + 1);
	mutex_unlock(&xgp_st_lock);
	return ret;
}

static const struct file_operations xgp_st_fops = {
	.owner = THIS_MODULE,
	.write = xgp_st_write,
	.read = xgp_st_read,
	.llseek = default_llseek,
};

/**
 * xgp_selftest_init - create the selftest file
 * @root: debugfs directory of the module
 *
 * Without memory for its buffers the selftest is simply not offered.
 */
void xgp_selftest_init(struct dentry *root)
{
	xgp_st_result = kzalloc(XGP_ST_RESULT_MAX + 1, GFP_KERNEL);
	xgp_st_slots = kcalloc(XGP_ST_MAX_SLOTS, sizeof(*xgp_st_slots),
			       GFP_KERNEL);
	if (!xgp_st_result || !xgp_st_slots) {
		pr_err("no memory for the selftest, not offering it\n");
		return;
	}
	xgp_st_set("error reason=none");
	xgp_st_file = debugfs_create_file("selftest", 0600, root, NULL,
					  &xgp_st_fops);
}

/**
 * xgp_selftest_exit - release whatever the selftest still holds
 *
 * Removes the file first (waiting for running commands), so no
 * command can race with the teardown.
 */
void xgp_selftest_exit(void)
{
	debugfs_remove(xgp_st_file);
	xgp_st_file = NULL;
	if (xgp_st_cache)
		xgp_back_cache_release(xgp_st_cache);
	xgp_st_cache = NULL;
	if (xgp_st_pool)
		xgp_st_front_teardown(NULL);
	kfree(xgp_st_slots);
	kfree(xgp_st_result);
}
