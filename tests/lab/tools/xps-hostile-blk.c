// SPDX-License-Identifier: GPL-2.0
/*
 * xps-hostile-blk - a userspace block backend for one vbd of a domU, run
 * in the lab's dom0 in place of blkback (issue #15): well-behaved by
 * default, so it first proves it serves real I/O to a frontend, then, from
 * a given response on, lying in one way the frontend must survive.
 *
 * It uses the kernel's Xen devices directly (what libxengnttab and
 * libxenevtchn wrap), so it builds static on the host like the lab's other
 * dom0 tools: /dev/xen/gntdev maps the frontend's one-page ring and copies
 * segment data with grant copies (IOCTL_GNTDEV_GRANT_COPY, as QEMU's
 * qdisk does); /dev/xen/evtchn binds the frontend's event channel.  The
 * xenstore handshake is the scenario's (hostile-blk.sh): it writes the
 * backend's nodes, waits for the frontend's ring-ref and event-channel,
 * starts this tool with them, and says Connected once it prints "ready".
 *
 *   xps-hostile-blk DOMID RING_REFS EVTCHN FILE [LIE [AFTER]]
 *
 * RING_REFS: the ring's grant references, comma-separated (ring-ref, or
 * ring-ref0... when the frontend took a multi-page ring).  Requests are
 * served from FILE (512-byte sectors): reads, writes, and indirect ones
 * (BLKIF_OP_INDIRECT, up to 8 indirect pages) when the scenario offered
 * feature-max-indirect-segments; anything else is answered
 * EOPNOTSUPP.  LIE, from the
 * AFTER-th response on (default 0: the first):
 *   none        answer correctly (the default)
 *   bad-id      a response whose id the frontend never used (2^32 + id)
 *   double      a response completed again: the id of the response just
 *               sent in place of the next one's (the count stays right)
 *   bad-op      the operation of the other direction (read <-> write)
 *   bad-status  status 7, which blkif.h does not define
 *   prod-jump   the response producer moved 1000 past the responses
 *   silent      no answer at all (the requests stay in flight)
 *   quiet       correct responses, published without a notify
 *   storm       correct responses, and STORM_BURST notifies with nothing
 *               new behind them at every turn of the loop (every 1 ms)
 *   keep-map    the first page of the next plain request is mapped
 *               through gntdev and stays mapped until the tool exits
 *               (XSA-396: the frontend must not hand that page back);
 *               the request is answered correctly
 * Each lie is told once on stdout ("lied: ..."); the tool then keeps
 * serving as told until SIGTERM, and prints its counts on exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

typedef uint32_t grant_ref_t;
typedef uint16_t domid_t;
#include <xen/gntdev.h>
#include <xen/evtchn.h>

/* Xen's grant_table.h: which side of a grant copy is a grant */
#define GNTCOPY_source_gref	(1U << 0)
#define GNTCOPY_dest_gref	(1U << 1)

/* io/blkif.h, the x86_64 (native) layout */
#define BLKIF_OP_READ		0
#define BLKIF_OP_WRITE		1
#define BLKIF_OP_INDIRECT	6
#define BLKIF_MAX_INDIRECT_PAGES 8
#define SEGS_PER_INDIRECT	(PAGE / sizeof(struct seg))
#define MAX_SEGS		(BLKIF_MAX_INDIRECT_PAGES * SEGS_PER_INDIRECT)
#define BLKIF_RSP_EOPNOTSUPP	(-2)
#define BLKIF_RSP_ERROR		(-1)
#define BLKIF_RSP_OKAY		0
#define BLKIF_MAX_SEGS		11
#define SECTOR			512U
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define PAGE			4096U

struct seg {
	uint32_t gref;
	uint8_t first_sect, last_sect;
	uint16_t pad;
};

struct req {
	uint8_t op, nr_segs;
	uint16_t handle;
	uint32_t pad;
	uint64_t id, sector;
	struct seg seg[BLKIF_MAX_SEGS];
};

struct rsp {
	uint64_t id;
	uint8_t op;
	uint8_t pad;
	int16_t status;
	uint32_t pad2;
};

/* BLKIF_OP_INDIRECT (x86_64 layout, packed like the kernel's) */
struct req_ind {
	uint8_t op, indirect_op;
	uint16_t nr_segs;
	uint32_t pad;
	uint64_t id, sector;
	uint16_t handle, pad2;
	uint32_t indirect_grefs[BLKIF_MAX_INDIRECT_PAGES];
	uint32_t pad3;
} __attribute__((packed));

union entry {
	struct req req;
	struct req_ind ind;
	struct rsp rsp;
};

struct sring {
	uint32_t req_prod, req_event, rsp_prod, rsp_event;
	uint8_t pad[48];
	union entry ring[];
};

_Static_assert(sizeof(struct req) == 112, "blkif_request");
_Static_assert(sizeof(struct rsp) == 16, "blkif_response");
_Static_assert(sizeof(struct req_ind) == 64, "blkif_request_indirect");
_Static_assert(sizeof(struct sring) == 64, "sring header");

/* entries: (pages * 4096 - 64) / 112 rounded down to a power of 2 */
static uint32_t ring_size;
#define MAX_RING_PAGES	16U

enum lie { L_NONE, L_BAD_ID, L_DOUBLE, L_BAD_OP, L_BAD_STATUS, L_PROD_JUMP,
	   L_SILENT, L_QUIET, L_STORM, L_KEEP_MAP };
static const char *const lie_names[] = {
	"none", "bad-id", "double", "bad-op", "bad-status", "prod-jump",
	"silent", "quiet", "storm", "keep-map",
};

#define STORM_BURST	64

static volatile sig_atomic_t stop;
static int gnt_fd, evt_fd, file_fd;
static unsigned int domid, port, ring_pages;
static struct sring *sr;
static uint32_t rsp_prod_pvt, req_cons;
static unsigned long nr_req, nr_rsp, nr_err, nr_lies, nr_storm;
static void *kept;	/* keep-map: the page kept mapped */

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "xps-hostile-blk: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void notify(void)
{
	struct ioctl_evtchn_notify n = { .port = port };

	if (ioctl(evt_fd, IOCTL_EVTCHN_NOTIFY, &n))
		die("notify");
}

/* Copy NR segments between FILE at SECTOR and the frontend's grants. */
static int16_t copy_segs(int write, uint64_t sector, const struct seg *sg,
			 unsigned int nr)
{
	struct gntdev_grant_copy_segment *cs;
	struct ioctl_gntdev_grant_copy gc;
	static uint8_t *buf;
	int16_t st = BLKIF_RSP_ERROR;
	size_t total = 0, len;
	unsigned int i;
	off_t off;

	if (!buf)
		buf = malloc((size_t)MAX_SEGS * PAGE);
	if (!buf)
		die("malloc");
	cs = calloc(nr, sizeof(*cs));
	if (!cs)
		die("calloc");
	for (i = 0; i < nr; i++) {
		const struct seg *s = &sg[i];

		if (s->last_sect >= PAGE / SECTOR || s->first_sect > s->last_sect)
			goto out;
		len = (size_t)(s->last_sect - s->first_sect + 1) * SECTOR;
		if (!write) {
			cs[i].source.virt = buf + total;
			cs[i].dest.foreign.ref = s->gref;
			cs[i].dest.foreign.offset = s->first_sect * SECTOR;
			cs[i].dest.foreign.domid = domid;
			cs[i].flags = GNTCOPY_dest_gref;
		} else {
			cs[i].source.foreign.ref = s->gref;
			cs[i].source.foreign.offset = s->first_sect * SECTOR;
			cs[i].source.foreign.domid = domid;
			cs[i].dest.virt = buf + total;
			cs[i].flags = GNTCOPY_source_gref;
		}
		cs[i].len = len;
		total += len;
	}
	gc.count = nr;
	gc.segments = cs;
	off = (off_t)sector * SECTOR;
	if (!write && pread(file_fd, buf, total, off) != (ssize_t)total)
		goto out;
	if (ioctl(gnt_fd, IOCTL_GNTDEV_GRANT_COPY, &gc))
		goto out;
	for (i = 0; i < nr; i++)
		if (cs[i].status)
			goto out;
	if (write && pwrite(file_fd, buf, total, off) != (ssize_t)total)
		goto out;
	st = BLKIF_RSP_OKAY;
out:
	free(cs);
	return st;
}

/* Serve one request (a private copy of its ring slot). */
static int16_t serve(const union entry *e)
{
	static struct seg segs[MAX_SEGS];
	struct gntdev_grant_copy_segment cs[BLKIF_MAX_INDIRECT_PAGES];
	struct ioctl_gntdev_grant_copy gc = { .segments = cs };
	const struct req_ind *ri = &e->ind;
	const struct req *rq = &e->req;
	unsigned int i, pages;

	if (rq->op == BLKIF_OP_READ || rq->op == BLKIF_OP_WRITE) {
		if (!rq->nr_segs || rq->nr_segs > BLKIF_MAX_SEGS)
			return BLKIF_RSP_ERROR;
		return copy_segs(rq->op == BLKIF_OP_WRITE, rq->sector, rq->seg,
				 rq->nr_segs);
	}
	if (rq->op != BLKIF_OP_INDIRECT)
		return BLKIF_RSP_EOPNOTSUPP;
	if ((ri->indirect_op != BLKIF_OP_READ &&
	     ri->indirect_op != BLKIF_OP_WRITE) ||
	    !ri->nr_segs || ri->nr_segs > MAX_SEGS)
		return BLKIF_RSP_ERROR;
	/* the segment lists, copied in from the indirect pages */
	pages = (ri->nr_segs + SEGS_PER_INDIRECT - 1) / SEGS_PER_INDIRECT;
	memset(cs, 0, sizeof(cs));
	for (i = 0; i < pages; i++) {
		cs[i].source.foreign.ref = ri->indirect_grefs[i];
		cs[i].source.foreign.domid = domid;
		cs[i].dest.virt = (uint8_t *)segs + (size_t)i * PAGE;
		cs[i].len = PAGE;
		cs[i].flags = GNTCOPY_source_gref;
	}
	gc.count = pages;
	if (ioctl(gnt_fd, IOCTL_GNTDEV_GRANT_COPY, &gc))
		return BLKIF_RSP_ERROR;
	for (i = 0; i < pages; i++)
		if (cs[i].status)
			return BLKIF_RSP_ERROR;
	return copy_segs(ri->indirect_op == BLKIF_OP_WRITE, ri->sector, segs,
			 ri->nr_segs);
}

static void put_rsp(const struct rsp *r)
{
	memcpy(&sr->ring[rsp_prod_pvt % ring_size].rsp, r, sizeof(*r));
	rsp_prod_pvt++;
}

static void tell(enum lie lie, const struct req *rq)
{
	nr_lies++;
	if (nr_lies == 1)
		printf("lied: %s on response %lu (request id %llu op %u)\n",
		       lie_names[lie], nr_rsp, (unsigned long long)rq->id,
		       rq->op);
	fflush(stdout);
}

/*
 * keep-map: map the frontend's grant GREF (read-only: a write request's
 * page is granted so) and keep it mapped until the process exits, which
 * unmaps it.  1: mapped.
 */
static int keep_map(uint32_t gref)
{
	struct ioctl_gntdev_map_grant_ref m = {
		.count = 1,
		.refs[0] = { .domid = domid, .ref = gref },
	};
	uint8_t *p;

	if (ioctl(gnt_fd, IOCTL_GNTDEV_MAP_GRANT_REF, &m)) {
		printf("keep-map: mapping grant %u failed: %s\n", gref,
		       strerror(errno));
		fflush(stdout);
		return 0;
	}
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, gnt_fd, m.index);
	if (p == MAP_FAILED) {
		printf("keep-map: mmap of grant %u failed: %s\n", gref,
		       strerror(errno));
		fflush(stdout);
		return 0;
	}
	(void)__atomic_load_n(p, __ATOMIC_RELAXED);	/* touch it */
	kept = p;
	printf("keep-map: grant %u of domain %u mapped, kept until exit\n",
	       gref, domid);
	fflush(stdout);
	return 1;
}

/* Take what the frontend produced; answer it as told. */
static void round_trip(enum lie lie, unsigned long after)
{
	uint32_t prod = __atomic_load_n(&sr->req_prod, __ATOMIC_ACQUIRE);
	uint64_t prev_id = 0;
	int answered = 0;
	enum lie now;
	union entry e;
	struct req rq;
	struct rsp r;

	if (prod - req_cons > ring_size) {
		printf("frontend request producer %u out of range (consumer %u)\n",
		       prod, req_cons);
		fflush(stdout);
		stop = 1;
		return;
	}
	while (req_cons != prod) {
		/* one copy off the shared page; only the copy is used */
		memcpy(&e, &sr->ring[req_cons % ring_size], sizeof(e));
		memcpy(&rq, &e.req, sizeof(rq));
		if (rq.op == BLKIF_OP_INDIRECT) {	/* its id and data operation */
			rq.id = e.ind.id;
			rq.op = e.ind.indirect_op;
		}
		req_cons++;
		nr_req++;
		now = nr_rsp >= after ? lie : L_NONE;

		if (now == L_SILENT) {
			tell(now, &rq);
			continue;
		}
		/* one page of the first plain request from AFTER on */
		if (now == L_KEEP_MAP && !kept && e.req.op != BLKIF_OP_INDIRECT &&
		    rq.nr_segs && keep_map(rq.seg[0].gref))
			tell(now, &rq);
		memset(&r, 0, sizeof(r));
		r.id = rq.id;
		r.op = rq.op;	/* an indirect request's data operation, as blkback */
		r.status = serve(&e);
		if (r.status)
			nr_err++;
		switch (now) {
		case L_BAD_ID:
			r.id += 1ULL << 32;
			tell(now, &rq);
			break;
		case L_BAD_OP:
			r.op = rq.op == BLKIF_OP_READ ? BLKIF_OP_WRITE : BLKIF_OP_READ;
			tell(now, &rq);
			break;
		case L_BAD_STATUS:
			r.status = 7;
			tell(now, &rq);
			break;
		default:
			break;
		}
		/* the batch's previous response, whose id is no longer in flight */
		if (now == L_DOUBLE && answered) {
			r.id = prev_id;
			tell(now, &rq);
		}
		put_rsp(&r);
		nr_rsp++;
		prev_id = r.id;
		answered = 1;
	}
	if (answered) {
		uint32_t p = rsp_prod_pvt;

		if (lie == L_PROD_JUMP && nr_rsp > after) {
			p += 1000;
			tell(lie, &rq);
		}
		__atomic_store_n(&sr->rsp_prod, p, __ATOMIC_RELEASE);
		if (lie == L_QUIET && nr_rsp > after)
			tell(lie, &rq);
		else
			notify();
	}
	/* ask for an event at the next request */
	__atomic_store_n(&sr->req_event, req_cons + 1, __ATOMIC_SEQ_CST);
}

int main(int argc, char **argv)
{
	struct ioctl_gntdev_map_grant_ref *map;
	char *refs, *tok, *save;
	struct ioctl_evtchn_bind_interdomain bind;
	unsigned long after = 0;
	enum lie lie = L_NONE;
	struct pollfd pfd;
	uint32_t fired;
	unsigned int i;
	int rc;

	if (argc < 5 || argc > 7) {
		fprintf(stderr, "usage: %s DOMID RING_REF EVTCHN FILE [LIE [AFTER]]\n",
			argv[0]);
		return 2;
	}
	domid = strtoul(argv[1], NULL, 0);
	if (argc > 5) {
		for (i = 0; i < ARRAY_SIZE(lie_names); i++)
			if (!strcmp(argv[5], lie_names[i]))
				lie = i;
		if (lie == L_NONE && strcmp(argv[5], "none")) {
			fprintf(stderr, "xps-hostile-blk: unknown lie %s\n", argv[5]);
			return 2;
		}
	}
	if (argc > 6)
		after = strtoul(argv[6], NULL, 0);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	file_fd = open(argv[4], O_RDWR);
	if (file_fd < 0)
		die(argv[4]);
	gnt_fd = open("/dev/xen/gntdev", O_RDWR);
	if (gnt_fd < 0)
		die("/dev/xen/gntdev");
	map = calloc(1, sizeof(*map) + MAX_RING_PAGES * sizeof(map->refs[0]));
	refs = strdup(argv[2]);
	if (!map || !refs)
		die("calloc");
	for (tok = strtok_r(refs, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (ring_pages == MAX_RING_PAGES) {
			fprintf(stderr, "xps-hostile-blk: more than %u ring pages\n",
				MAX_RING_PAGES);
			return 2;
		}
		map->refs[ring_pages].domid = domid;
		map->refs[ring_pages++].ref = strtoul(tok, NULL, 0);
	}
	map->count = ring_pages;
	if (!ring_pages || ioctl(gnt_fd, IOCTL_GNTDEV_MAP_GRANT_REF, map))
		die("map the ring");
	sr = mmap(NULL, (size_t)ring_pages * PAGE, PROT_READ | PROT_WRITE,
		  MAP_SHARED, gnt_fd, map->index);
	if (sr == MAP_FAILED)
		die("mmap the ring");
	ring_size = (ring_pages * PAGE - sizeof(*sr)) / sizeof(union entry);
	while (ring_size & (ring_size - 1))
		ring_size &= ring_size - 1;
	evt_fd = open("/dev/xen/evtchn", O_RDWR);
	if (evt_fd < 0)
		die("/dev/xen/evtchn");
	bind.remote_domain = domid;
	bind.remote_port = strtoul(argv[3], NULL, 0);
	rc = ioctl(evt_fd, IOCTL_EVTCHN_BIND_INTERDOMAIN, &bind);
	if (rc < 0)
		die("bind the event channel");
	port = rc;
	/* a fresh ring: the frontend initialised it (SHARED_RING_INIT) */
	rsp_prod_pvt = __atomic_load_n(&sr->rsp_prod, __ATOMIC_ACQUIRE);
	req_cons = rsp_prod_pvt;
	printf("ready: domain %u ring %s (%u pages, %u entries) port %u (local %u) lie %s after %lu\n",
	       domid, argv[2], ring_pages, ring_size, bind.remote_port, port,
	       lie_names[lie], after);
	fflush(stdout);
	pfd.fd = evt_fd;
	pfd.events = POLLIN;
	while (!stop) {
		int storm = lie == L_STORM && nr_rsp >= after;

		/* and look once more after asking, as RING_FINAL_CHECK does */
		do
			round_trip(lie, after);
		while (!stop && __atomic_load_n(&sr->req_prod, __ATOMIC_SEQ_CST) != req_cons);
		if (storm) {
			if (!nr_storm) {
				printf("lied: storm from response %lu, %u notifies a turn\n",
				       nr_rsp, STORM_BURST);
				fflush(stdout);
			}
			for (i = 0; i < STORM_BURST; i++)
				notify();
			nr_storm += STORM_BURST;
			nr_lies++;
		}
		rc = poll(&pfd, 1, storm ? 1 : 1000);
		if (rc < 0 && errno != EINTR)
			die("poll");
		if (rc > 0 && read(evt_fd, &fired, sizeof(fired)) == sizeof(fired) &&
		    write(evt_fd, &fired, sizeof(fired)) != sizeof(fired))
			die("unmask");
	}
	printf("end: %lu requests, %lu responses, %lu errors, %lu lies, %lu storm notifies\n",
	       nr_req, nr_rsp, nr_err, nr_lies, nr_storm);
	munmap(sr, (size_t)ring_pages * PAGE);
	close(evt_fd);
	close(gnt_fd);
	return 0;
}
