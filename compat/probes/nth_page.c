// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_NTH_PAGE
 *
 * An old API: nth_page(page, n), the n-th page after page where the
 * memmap need not be virtually contiguous.  Kernels after 6.12 removed
 * it (Debian's 7.2 headers have none): there a folio never spans memory
 * sections, so the pages of one bio_vec are consecutive struct pages.
 */
#include <linux/mm.h>

#ifndef nth_page
#error "no nth_page()"
#endif
