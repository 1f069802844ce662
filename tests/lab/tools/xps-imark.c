// SPDX-License-Identifier: GPL-2.0
/*
 * xps-imark ID [SPIN] - execute the instruction-count marker with ID (a
 * number below 2^32) once, for the xps-insn QEMU plugin (see xps-insn.c),
 * which then records the machine's instruction count under ID. On a
 * machine without the plugin the marker is two NOPs: it does nothing.
 * With SPIN, then a loop of exactly 2 * SPIN instructions, then the
 * marker ID + 1: the plugin's own test (test-insn.sh).
 *
 * The marker's second NOP carries ID in its displacement, so the code is
 * written at run time into a fresh executable page and called there.
 * x86-64 only. Built static by the lab for dom0 and the domUs, and by
 * tests/lab/tools/test-insn.sh.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* the marker with ID at P, then ret: 15 bytes */
static void put_marker(unsigned char *p, uint32_t id)
{
	static const unsigned char magic[7] = { 0x0f, 0x1f, 0x80, 0x31, 0x53, 0x50, 0x58 };

	memcpy(p, magic, sizeof(magic));
	p[7] = 0x0f;	/* nopl ID(%rax) */
	p[8] = 0x1f;
	p[9] = 0x80;
	p[10] = id & 0xff;
	p[11] = (id >> 8) & 0xff;
	p[12] = (id >> 16) & 0xff;
	p[13] = (id >> 24) & 0xff;
	p[14] = 0xc3;	/* ret */
}

static unsigned long number(const char *s, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || end == s || v > max) {
		fprintf(stderr, "xps-imark: '%s' is not a number up to %lu\n", s, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long id, spin = 0;
	unsigned char *p;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: xps-imark ID [SPIN]\n");
		return 2;
	}
	id = number(argv[1], UINT32_MAX - 1);
	if (argc == 3)
		spin = number(argv[2], 1UL << 40);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("xps-imark: mmap");
		return 1;
	}
	put_marker(p, id);
	put_marker(p + 64, id + 1);
	__builtin___clear_cache((char *)p, (char *)p + 128);
	((void (*)(void))(uintptr_t)p)();
	if (spin) {
		/* dec and jnz: two instructions per turn */
		__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(spin) : : "cc");
		((void (*)(void))(uintptr_t)(p + 64))();
	}
	munmap(p, 4096);
	return 0;
}
