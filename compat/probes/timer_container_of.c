// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_TIMER_CONTAINER_OF
 *
 * 6.16: from_timer() was renamed timer_container_of() (and the old name
 * later removed).
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
