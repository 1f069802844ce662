// SPDX-License-Identifier: GPL-2.0
/*
 * xps-insn - a QEMU TCG plugin that counts the instructions the whole
 * emulated machine executes (Xen, dom0 and every domU alike) and reports
 * the count whenever a guest program executes a marker, so that a
 * benchmark can quote instructions per request: a cost figure that does
 * not depend on how busy the host is, as wall time under TCG does.
 *
 *   qemu-system-x86_64 ... -plugin libxps-insn.so,out=FILE
 *
 * Counting: every translated block adds its instruction count to its
 * vCPU's counter when it starts to execute (a block left early by an
 * exception or interrupt is counted whole: a small over-count). Each
 * vCPU thread writes only its own counter.
 *
 * Marker: two multi-byte NOPs in a row, "nopl 0x58505331(%rax)" (the
 * bytes 0f 1f 80 31 53 50 58, "1SPX") and "nopl ID(%rax)" (0f 1f 80 and
 * ID, 32 bits little endian). They do nothing in any privilege level,
 * so any guest program may run them (tests/lab/tools/xps-imark.c). When
 * the first executes, the plugin appends to FILE:
 *
 *   mark ID TOTAL VCPU0 VCPU1 ...
 *
 * (the per-vCPU counts under system emulation only) and, at exit, the
 * same line with ID 4294967295.
 *
 * TOTAL is the sum over the vCPUs at that moment (the other vCPUs'
 * counters are read while they run: exact to the block). Another
 * instruction sequence never matches: the ID's NOP must follow the
 * magic one in the same block.
 *
 * Built against the API header of the QEMU that runs it (Debian's qemu
 * source, scripts/qemu-plugin-api.sh), by tests/lab/lib/boot.sh for a
 * benchmark boot and by tests/lab/tools/test-insn.sh.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MARK_LEN 7
static const unsigned char mark_magic[MARK_LEN] = {
	0x0f, 0x1f, 0x80, 0x31, 0x53, 0x50, 0x58
};

struct vcpu_count {
	uint64_t insns;
	char pad[56];		/* one cache line each */
};

static struct vcpu_count *counts;
static int nr_vcpus;
static int nr_print;		/* per-vCPU columns: system emulation only */
static FILE *out;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void tb_exec(unsigned int vcpu, void *udata)
{
	if (vcpu < (unsigned int)nr_vcpus)
		__atomic_store_n(&counts[vcpu].insns,
				 __atomic_load_n(&counts[vcpu].insns, __ATOMIC_RELAXED) +
				 (uintptr_t)udata, __ATOMIC_RELAXED);
}

static void mark_exec(unsigned int vcpu, void *udata)
{
	uint64_t total = 0, v[64];
	int i, n = nr_vcpus;

	(void)vcpu;
	for (i = 0; i < n; i++) {
		v[i] = __atomic_load_n(&counts[i].insns, __ATOMIC_RELAXED);
		total += v[i];
	}
	pthread_mutex_lock(&out_lock);
	fprintf(out, "mark %" PRIu32 " %" PRIu64, (uint32_t)(uintptr_t)udata, total);
	for (i = 0; i < nr_print; i++)
		fprintf(out, " %" PRIu64, v[i]);
	fputc('\n', out);
	fflush(out);
	pthread_mutex_unlock(&out_lock);
}

static bool insn_is(struct qemu_plugin_insn *insn, const unsigned char *magic, size_t len)
{
	return qemu_plugin_insn_size(insn) == len &&
	       !memcmp(qemu_plugin_insn_data(insn), magic, len);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     (void *)(uintptr_t)n);
	for (i = 0; i + 1 < n; i++) {
		struct qemu_plugin_insn *m = qemu_plugin_tb_get_insn(tb, i);
		struct qemu_plugin_insn *idn = qemu_plugin_tb_get_insn(tb, i + 1);
		const unsigned char *d;
		uint32_t mid;

		if (!insn_is(m, mark_magic, MARK_LEN) || qemu_plugin_insn_size(idn) != MARK_LEN)
			continue;
		d = qemu_plugin_insn_data(idn);
		if (d[0] != 0x0f || d[1] != 0x1f || d[2] != 0x80)
			continue;
		mid = (uint32_t)d[3] | (uint32_t)d[4] << 8 | (uint32_t)d[5] << 16 |
		      (uint32_t)d[6] << 24;
		qemu_plugin_register_vcpu_insn_exec_cb(m, mark_exec, QEMU_PLUGIN_CB_NO_REGS,
						       (void *)(uintptr_t)mid);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	mark_exec(0, (void *)(uintptr_t)0xffffffffu);
	fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
	if (!path) {
		fprintf(stderr, "xps-insn: no out=FILE argument\n");
		return 1;
	}
	/* user mode (the test): a vCPU per thread */
	nr_vcpus = info->system_emulation ? info->system.max_vcpus : 64;
	if (nr_vcpus < 1 || nr_vcpus > 64)
		nr_vcpus = 64;
	nr_print = info->system_emulation ? nr_vcpus : 0;
	counts = calloc(nr_vcpus, sizeof(*counts));
	out = fopen(path, "w");
	if (!counts || !out) {
		fprintf(stderr, "xps-insn: cannot open %s\n", path);
		return 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
