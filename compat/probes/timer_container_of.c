// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_TIMER_CONTAINER_OF
 *
 * After 6.12: from_timer() was renamed timer_container_of(), and
 * Debian's 7.2 headers have only the new name.
 */
#include <linux/timer.h>

struct xps_probe_t {
	struct timer_list t;
};

struct xps_probe_t *xps_probe(struct timer_list *t);
struct xps_probe_t *xps_probe(struct timer_list *t)
{
	struct xps_probe_t *x = timer_container_of(x, t, t);

	return x;
}
