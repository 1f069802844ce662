// SPDX-License-Identifier: GPL-2.0
/*
 * xps-verify - a verified write/read pattern for block devices, for lab
 * guests that have no fio (the arm64 domUs).  Built static for each guest
 * architecture (tests/lab/tools/Makefile).
 *
 * Every 512-byte sector of the region holds a header (magic, its own
 * sector number, the run's seed) and bytes derived from (seed, sector),
 * so any read of any size checks every sector it covers, whichever write
 * put it there.  A write pass cuts the region into extents of sizes drawn
 * from --bs, shuffles them and hands them to --jobs threads; a verify
 * pass cuts it again, differently, so reads straddle the writes.  Each
 * I/O uses a buffer that starts --align bytes (a random multiple) past a
 * page boundary.  A sector from an older seed is a lost write; a sector
 * naming another sector is a misdirected one; the first few bad sectors
 * are printed with what they hold.
 *
 * usage: xps-verify [-w] [-v] -f DEV -o OFFSET -s SIZE [-b BS[,BS...]]
 *                   [-a ALIGN] [-j JOBS] [-S SEED] [-n] [-q]
 *   -w write pass, -v verify pass (both if neither), -n no O_DIRECT.
 * Sizes take k/m/g suffixes.  Exit status: 0 all good, 1 bad data or an
 * I/O error, 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SECT		512u
#define MAGIC		0x5850535645524659ull	/* "XPSVERFY" */
#define MAX_BS		16
#define MAX_BAD_SHOWN	5
#define MAX_IO		(16u << 20)

struct sect_hdr {
	uint64_t magic;
	uint64_t sector;
	uint64_t seed;
};

struct extent {
	uint64_t off;
	uint32_t len;
};

struct job {
	const struct extent *ext;
	size_t n;
	int fd;
	int writing;
	uint64_t seed;
	uint32_t align;
	uint32_t max_len;
	uint64_t rng;
	uint64_t bytes;
	uint64_t bad;
	int io_err;
};

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int bad_shown;
static int quiet;

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void fill_sector(unsigned char *p, uint64_t sector, uint64_t seed)
{
	struct sect_hdr h = { MAGIC, sector, seed };
	uint64_t s = seed ^ (sector * 0x2545f4914f6cdd1dull);
	unsigned int i;

	memcpy(p, &h, sizeof(h));
	for (i = sizeof(h); i < SECT; i += 8) {
		uint64_t v = splitmix(&s);

		memcpy(p + i, &v, 8);
	}
}

static void report_bad(uint64_t sector, const unsigned char *p, uint64_t seed)
{
	struct sect_hdr h;
	const char *what;

	memcpy(&h, p, sizeof(h));
	pthread_mutex_lock(&report_lock);
	if (bad_shown++ < MAX_BAD_SHOWN) {
		if (h.magic != MAGIC)
			what = "no pattern (never written, or overwritten)";
		else if (h.sector != sector)
			what = "another sector's data (misdirected)";
		else if (h.seed != seed)
			what = "an older run's data (lost write)";
		else
			what = "right header, wrong bytes (corrupted)";
		fprintf(stderr,
			"xps-verify: bad sector %" PRIu64 " (byte %" PRIu64 "): %s; header sector=%" PRIu64 " seed=%" PRIx64 ", want seed=%" PRIx64 "\n",
			sector, sector * SECT, what, h.sector, h.seed, seed);
	}
	pthread_mutex_unlock(&report_lock);
}

static void *run_job(void *arg)
{
	struct job *j = arg;
	unsigned char *base, *buf, *want = malloc(SECT);
	size_t i;

	if (!want || posix_memalign((void **)&base, 4096, j->max_len + 4096)) {
		j->io_err = ENOMEM;
		free(want);
		return NULL;
	}
	for (i = 0; i < j->n; i++) {
		const struct extent *e = &j->ext[i];
		uint32_t slots = 4096 / j->align, done = 0, k;
		ssize_t r;

		buf = base + (splitmix(&j->rng) % slots) * j->align;
		if (j->writing)
			for (k = 0; k < e->len; k += SECT)
				fill_sector(buf + k, (e->off + k) / SECT, j->seed);
		while (done < e->len) {
			if (j->writing)
				r = pwrite(j->fd, buf + done, e->len - done,
					   (off_t)(e->off + done));
			else
				r = pread(j->fd, buf + done, e->len - done,
					  (off_t)(e->off + done));
			if (r <= 0) {
				j->io_err = r < 0 ? errno : EIO;
				pthread_mutex_lock(&report_lock);
				fprintf(stderr, "xps-verify: %s of %u bytes at %" PRIu64 ": %s\n",
					j->writing ? "write" : "read", e->len - done,
					e->off + done, r < 0 ? strerror(errno) : "short");
				pthread_mutex_unlock(&report_lock);
				goto out;
			}
			done += (uint32_t)r;
		}
		j->bytes += e->len;
		if (j->writing)
			continue;
		for (k = 0; k < e->len; k += SECT) {
			uint64_t sector = (e->off + k) / SECT;

			fill_sector(want, sector, j->seed);
			if (memcmp(buf + k, want, SECT)) {
				j->bad++;
				report_bad(sector, buf + k, j->seed);
			}
		}
	}
out:
	free(base);
	free(want);
	return NULL;
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (end == s || *end)
		return -1;
	*out = v;
	return 0;
}

/* Cut [off, off + size) into extents of sizes from bs[], then shuffle. */
static struct extent *cut(uint64_t off, uint64_t size, const uint32_t *bs,
			  unsigned int nbs, uint64_t *rng, size_t *n)
{
	size_t cap = size / SECT + 1, i;
	struct extent *e = calloc(cap, sizeof(*e));
	uint64_t pos = 0;

	if (!e)
		return NULL;
	*n = 0;
	while (pos < size) {
		uint32_t len = bs[splitmix(rng) % nbs];

		if (len > size - pos)
			len = (uint32_t)(size - pos);
		e[*n].off = off + pos;
		e[(*n)++].len = len;
		pos += len;
	}
	for (i = *n; i > 1; i--) {
		size_t k = splitmix(rng) % i;
		struct extent t = e[i - 1];

		e[i - 1] = e[k];
		e[k] = t;
	}
	return e;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One pass; prints a summary line.  Return: 0, or 1 on bad data/errors. */
static int pass(int fd, int writing, uint64_t off, uint64_t size,
		const uint32_t *bs, unsigned int nbs, uint32_t align,
		unsigned int jobs, uint64_t seed, uint64_t *rng)
{
	struct job jb[64];
	pthread_t th[64];
	uint64_t bytes = 0, bad = 0;
	uint32_t max_len = 0;
	size_t n, per;
	struct extent *e;
	double t0, dt;
	int err = 0;
	unsigned int k;

	e = cut(off, size, bs, nbs, rng, &n);
	if (!e)
		return 1;
	for (k = 0; k < nbs; k++)
		if (bs[k] > max_len)
			max_len = bs[k];
	per = (n + jobs - 1) / jobs;
	t0 = now();
	for (k = 0; k < jobs; k++) {
		size_t first = k * per;

		memset(&jb[k], 0, sizeof(jb[k]));
		jb[k].ext = e + (first < n ? first : n);
		jb[k].n = first < n ? (n - first < per ? n - first : per) : 0;
		jb[k].fd = fd;
		jb[k].writing = writing;
		jb[k].seed = seed;
		jb[k].align = align;
		jb[k].max_len = max_len;
		jb[k].rng = splitmix(rng);
		if (pthread_create(&th[k], NULL, run_job, &jb[k])) {
			jobs = k;
			err = 1;
			break;
		}
	}
	for (k = 0; k < jobs; k++) {
		pthread_join(th[k], NULL);
		bytes += jb[k].bytes;
		bad += jb[k].bad;
		err |= jb[k].io_err != 0;
	}
	if (writing && !err && fdatasync(fd)) {
		fprintf(stderr, "xps-verify: fdatasync: %s\n", strerror(errno));
		err = 1;
	}
	dt = now() - t0;
	if (!quiet || err || bad)
		printf("%s: %zu I/Os, %" PRIu64 " bytes in %.2fs (%.1f MB/s), bad sectors %" PRIu64 "%s\n",
		       writing ? "write" : "verify", n, bytes, dt,
		       dt > 0 ? bytes / dt / 1e6 : 0.0, bad,
		       err ? ", I/O errors" : "");
	free(e);
	return err || bad;
}

int main(int argc, char **argv)
{
	uint64_t off = 0, size = 0, seed = 1, rng, v;
	uint32_t bs[MAX_BS] = { 4096 }, align = 512;
	unsigned int nbs = 1, jobs = 4;
	int do_w = 0, do_v = 0, direct = 1, fd, c, rc = 0;
	const char *dev = NULL;
	char *tok, *save;

	while ((c = getopt(argc, argv, "wvf:o:s:b:a:j:S:nq")) != -1) {
		switch (c) {
		case 'w': do_w = 1; break;
		case 'v': do_v = 1; break;
		case 'f': dev = optarg; break;
		case 'o': if (parse_size(optarg, &off)) goto usage; break;
		case 's': if (parse_size(optarg, &size)) goto usage; break;
		case 'a':
			if (parse_size(optarg, &v) || !v || v > 4096 ||
			    v % SECT || 4096 % v)
				goto usage;
			align = (uint32_t)v;
			break;
		case 'j': jobs = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		case 'n': direct = 0; break;
		case 'q': quiet = 1; break;
		case 'b':
			nbs = 0;
			for (tok = strtok_r(optarg, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (nbs == MAX_BS || parse_size(tok, &v) || !v ||
				    v % SECT || v > MAX_IO)
					goto usage;
				bs[nbs++] = (uint32_t)v;
			}
			if (!nbs)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (!dev || !size || size % SECT || off % SECT || !jobs || jobs > 64)
		goto usage;
	if (!do_w && !do_v)
		do_w = do_v = 1;
	fd = open(dev, (do_w ? O_RDWR : O_RDONLY) | (direct ? O_DIRECT : 0));
	if (fd < 0) {
		fprintf(stderr, "xps-verify: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	rng = seed * 0x9e3779b97f4a7c15ull + off;
	if (do_w)
		rc |= pass(fd, 1, off, size, bs, nbs, align, jobs, seed, &rng);
	if (do_v && !rc)
		rc |= pass(fd, 0, off, size, bs, nbs, align, jobs, seed, &rng);
	close(fd);
	return rc;
usage:
	fprintf(stderr,
		"usage: xps-verify [-w] [-v] -f DEV -o OFFSET -s SIZE [-b BS[,BS...]] [-a ALIGN] [-j JOBS] [-S SEED] [-n] [-q]\n");
	return 2;
}
