// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_XEN_ALLOC_UNPOPULATED_PAGES
 *
 * 5.9: xen_alloc_unpopulated_pages() replaced alloc_xenballooned_pages()
 * as the source of frames for foreign grant mappings. Kept as a probe so a
 * vendor kernel that backports neither fails here with a clear message
 * rather than deep inside a driver.
 */
#include <linux/types.h>
#include <xen/xen.h>

int xps_probe(unsigned int nr, struct page **pages);
int xps_probe(unsigned int nr, struct page **pages)
{
	return xen_alloc_unpopulated_pages(nr, pages);
}
