/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - what every target in tests/fuzz shares: reading its script
 * off the input, and aborting with a message when a check disagrees with
 * the model (libFuzzer reports the abort and keeps the input).  Each
 * target defines FUZZ_NAME before including it.
 */
#ifndef XPS_FUZZ_H
#define XPS_FUZZ_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void __attribute__((noreturn, format(printf, 1, 2)))
fail(const char *fmt, ...)
{
	va_list ap;

	fputs(FUZZ_NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* the input, read front to back */
struct in {
	const uint8_t *d;
	size_t n;
};

/* take LEN bytes into V; -1 (nothing taken) when fewer are left */
static inline int take(struct in *in, void *v, size_t len)
{
	if (in->n < len)
		return -1;
	memcpy(v, in->d, len);
	in->d += len;
	in->n -= len;
	return 0;
}

#endif /* XPS_FUZZ_H */
