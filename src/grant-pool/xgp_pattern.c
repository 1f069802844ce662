// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * Self-test data pattern shared by the front and back halves of the lab
 * selftest (pure: builds in userspace too).  Each 4 KB slot gets a
 * distinct pattern so a backend that mapped the wrong gref, or a
 * frontend that handed out the same chunk twice, is caught.
 */
#include <xen-pv-suite/xgp_chunk.h>

/**
 * xgp_pattern_fill - fill one 4 KB chunk with the pattern of slot @slot
 * @buf: start of the chunk (4-byte aligned)
 * @slot: slot number, 0-based in the order the grefs are listed
 */
void xgp_pattern_fill(void *buf, unsigned int slot)
{
	__le32 *w = buf;
	unsigned int j;

	for (j = 0; j < XGP_PATTERN_WORDS; j++)
		w[j] = cpu_to_le32(xgp_pattern_word(slot, j));
}

/**
 * xgp_pattern_check - verify one 4 KB chunk against slot @slot's pattern
 * @buf: start of the chunk (4-byte aligned)
 * @slot: slot number
 *
 * Return: -1 if the chunk matches, else the index of the first bad word.
 */
int xgp_pattern_check(const void *buf, unsigned int slot)
{
	const __le32 *w = buf;
	unsigned int j;

	for (j = 0; j < XGP_PATTERN_WORDS; j++)
		if (le32_to_cpu(w[j]) != xgp_pattern_word(slot, j))
			return j;
	return -1;
}
