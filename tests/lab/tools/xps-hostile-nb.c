// SPDX-License-Identifier: GPL-2.0
/*
 * xps-hostile-nb - a userspace net backend for one vif of a domU, run in
 * the lab's dom0 in place of netback (issue #15): well-behaved at first,
 * so it shows the frontend's vif carrying frames both ways, then, from a
 * given response on, lying in one way the frontend must survive.
 *
 * It uses the kernel's Xen devices directly, as xps-hostile-blk does:
 * /dev/xen/gntdev maps the frontend's tx and rx rings and copies frames
 * into its rx buffers (IOCTL_GNTDEV_GRANT_COPY); /dev/xen/evtchn binds
 * its event channel (one for both rings).  The xenstore handshake is the
 * scenario's (hostile-nf.sh): it offers feature-rx-copy and one queue,
 * waits for the frontend's rings, starts this tool and says Connected
 * once it prints "ready".
 *
 *   xps-hostile-nb DOMID TX_RING_REF RX_RING_REF EVTCHN [LIE [AFTER]]
 *
 * Every transmitted slot is answered OKAY (extra-info slots NULL), its
 * data unread.  Every RX_EVERY_MS, while the frontend has a receive
 * buffer posted and has taken the frames before, one 60-byte broadcast
 * frame is copied into it and answered.  LIE, from the AFTER-th response of its ring on (default
 * 8):
 *   none          answer correctly (the default)
 *   tx-bad-id     a tx response with id 65535, which no request had
 *   tx-status     a tx response with status 7, which netif.h lacks
 *   rx-bad-id     an rx response whose id is not the one posted there
 *   rx-size       an rx response of 200 bytes at offset 4000: past the
 *                 4 KB grant
 *   rx-flags      an rx response with flag 0x100, which netif.h lacks
 *   rx-slots      one frame in 20 rx responses chained by more_data
 *   rx-prod-jump  the rx response producer 1000 past the responses
 * The lie is told once ("lied: ..." on stdout); the tool then answers as
 * before until SIGTERM and prints its counts.
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
#include <time.h>
#include <unistd.h>

typedef uint32_t grant_ref_t;
typedef uint16_t domid_t;
#include <xen/gntdev.h>
#include <xen/evtchn.h>

#define PAGE		4096U
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Xen's grant_table.h: which side of a grant copy is a grant */
#define GNTCOPY_dest_gref	(1U << 1)

/* io/netif.h */
#define TXF_MORE_DATA	0x4U
#define TXF_EXTRA_INFO	0x8U
#define RXF_MORE_DATA	0x4U
#define EXTRA_FLAG_MORE	0x1U
#define RSP_OKAY	0
#define RSP_NULL	1

struct txreq {
	uint32_t gref;
	uint16_t offset, flags, id, size;
};

struct txrsp {
	uint16_t id;
	int16_t status;
};

struct rxreq {
	uint16_t id, pad;
	uint32_t gref;
};

struct rxrsp {
	uint16_t id, offset, flags;
	int16_t status;
};

struct sring {
	uint32_t req_prod, req_event, rsp_prod, rsp_event;
	uint8_t pad[48];
	uint8_t ring[];
};

_Static_assert(sizeof(struct txreq) == 12, "xen_netif_tx_request");
_Static_assert(sizeof(struct rxrsp) == 8, "xen_netif_rx_response");
_Static_assert(sizeof(struct sring) == 64, "sring header");

#define TX_RING		256U	/* (4096 - 64) / 12, rounded down to 2^n */
#define RX_RING		256U	/* (4096 - 64) / 8 */
#define TX_ENT		sizeof(struct txreq)
#define RX_ENT		sizeof(struct rxreq)
#define RX_EVERY_MS	50
#define FRAME		60U
#define CHAIN		20U	/* rx-slots: responses of the one frame */

enum lie { L_NONE, L_TX_BAD_ID, L_TX_STATUS, L_RX_BAD_ID, L_RX_SIZE,
	   L_RX_FLAGS, L_RX_SLOTS, L_RX_PROD_JUMP };
static const char *const lie_names[] = {
	"none", "tx-bad-id", "tx-status", "rx-bad-id", "rx-size",
	"rx-flags", "rx-slots", "rx-prod-jump",
};

static volatile sig_atomic_t stop;
static int gnt_fd, evt_fd;
static unsigned int domid, port;
static struct sring *tx, *rx;
static uint32_t tx_cons, tx_pvt, rx_cons, rx_pvt;
static unsigned long nr_tx, nr_rx, nr_lies;
static enum lie lie;
static unsigned long after = 8;
static uint8_t frame[FRAME];

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "xps-hostile-nb: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void notify(void)
{
	struct ioctl_evtchn_notify n = { .port = port };

	if (ioctl(evt_fd, IOCTL_EVTCHN_NOTIFY, &n))
		die("notify");
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void tell(const char *what)
{
	if (!nr_lies++)
		printf("lied: %s %s\n", lie_names[lie], what);
	fflush(stdout);
}

/* Answer what the frontend transmitted.  1: responses published. */
static int tx_round(void)
{
	uint32_t prod = __atomic_load_n(&tx->req_prod, __ATOMIC_ACQUIRE);
	int extra = 0, any = 0;
	struct txreq q;
	struct txrsp r;

	if (prod - tx_cons > TX_RING) {
		printf("frontend tx request producer %u out of range (consumer %u)\n",
		       prod, tx_cons);
		stop = 1;
		return 0;
	}
	while (tx_cons != prod) {
		memcpy(&q, tx->ring + (size_t)(tx_cons++ % TX_RING) * TX_ENT,
		       sizeof(q));
		r.id = q.id;
		r.status = RSP_OKAY;
		if (extra) {	/* an extra-info slot: byte 1 its flags */
			r.status = RSP_NULL;
			extra = ((uint8_t *)&q)[1] & EXTRA_FLAG_MORE;
		} else {
			extra = !!(q.flags & TXF_EXTRA_INFO);
			if (nr_tx >= after && lie == L_TX_BAD_ID) {
				r.id = 65535;
				tell("(tx response id 65535)");
			} else if (nr_tx >= after && lie == L_TX_STATUS) {
				r.status = 7;
				tell("(tx response status 7)");
			}
			nr_tx++;
		}
		memcpy(tx->ring + (size_t)(tx_pvt++ % TX_RING) * TX_ENT, &r,
		       sizeof(r));
		any = 1;
	}
	if (any)
		__atomic_store_n(&tx->rsp_prod, tx_pvt, __ATOMIC_RELEASE);
	__atomic_store_n(&tx->req_event, tx_cons + 1, __ATOMIC_SEQ_CST);
	return any;
}

/* Copy the frame into the frontend's buffer GREF.  0: copied. */
static int copy_to(uint32_t gref)
{
	struct gntdev_grant_copy_segment cs = {
		.source.virt = frame,
		.dest.foreign = { .ref = gref, .offset = 0, .domid = domid },
		.len = FRAME,
		.flags = GNTCOPY_dest_gref,
	};
	struct ioctl_gntdev_grant_copy gc = { .count = 1, .segments = &cs };

	if (ioctl(gnt_fd, IOCTL_GNTDEV_GRANT_COPY, &gc) || cs.status)
		return -1;
	return 0;
}

/* One frame into the next posted buffer(s).  1: responses published. */
static int rx_round(void)
{
	uint32_t prod = __atomic_load_n(&rx->req_prod, __ATOMIC_ACQUIRE);
	unsigned int i, n = 1;
	int lying = nr_rx >= after;
	struct rxreq q;
	struct rxrsp r;

	if (prod - rx_cons > RX_RING) {
		printf("frontend rx request producer %u out of range (consumer %u)\n",
		       prod, rx_cons);
		stop = 1;
		return 0;
	}
	/*
	 * The next frame only once the frontend has taken the last ones
	 * (asks for an event past them), so the AFTER good frames have
	 * been received before the lie: a frontend whose interface is not
	 * up yet takes none.
	 */
	if ((int32_t)(__atomic_load_n(&rx->rsp_event, __ATOMIC_ACQUIRE) - rx_pvt) <= 0)
		return 0;
	if (lying && lie == L_RX_SLOTS)
		n = CHAIN;
	if (prod - rx_cons < n)
		return 0;	/* not enough buffers posted */
	for (i = 0; i < n; i++) {
		memcpy(&q, rx->ring + (size_t)(rx_cons++ % RX_RING) * RX_ENT,
		       sizeof(q));
		memset(&r, 0, sizeof(r));
		r.id = q.id;
		r.status = copy_to(q.gref) ? -1 : (int16_t)FRAME;
		if (lying && lie == L_RX_BAD_ID) {
			r.id = q.id + 1;
			tell("(rx response id one past the posted one)");
		} else if (lying && lie == L_RX_SIZE) {
			r.offset = 4000;
			r.status = 200;
			tell("(rx response 200 bytes at offset 4000)");
		} else if (lying && lie == L_RX_FLAGS) {
			r.flags = 0x100;
			tell("(rx response flags 0x100)");
		} else if (n > 1) {
			if (i + 1 < n)
				r.flags = RXF_MORE_DATA;
			if (i + 1 == n)
				tell("(one frame in 20 rx responses)");
		}
		memcpy(rx->ring + (size_t)(rx_pvt++ % RX_RING) * RX_ENT, &r,
		       sizeof(r));
	}
	nr_rx++;
	if (lying && lie == L_RX_PROD_JUMP) {
		__atomic_store_n(&rx->rsp_prod, rx_pvt + 1000, __ATOMIC_RELEASE);
		tell("(rx response producer 1000 past the responses)");
	} else {
		__atomic_store_n(&rx->rsp_prod, rx_pvt, __ATOMIC_RELEASE);
	}
	return 1;
}

int main(int argc, char **argv)
{
	struct ioctl_gntdev_map_grant_ref *map;
	struct ioctl_evtchn_bind_interdomain bind;
	uint64_t next_rx = 0;
	struct pollfd pfd;
	uint32_t fired;
	unsigned int i;
	uint8_t *rings;
	int rc;

	if (argc < 5 || argc > 7) {
		fprintf(stderr, "usage: %s DOMID TX_RING_REF RX_RING_REF EVTCHN [LIE [AFTER]]\n",
			argv[0]);
		return 2;
	}
	domid = strtoul(argv[1], NULL, 0);
	if (argc > 5) {
		for (i = 0; i < ARRAY_SIZE(lie_names); i++)
			if (!strcmp(argv[5], lie_names[i]))
				lie = i;
		if (lie == L_NONE && strcmp(argv[5], "none")) {
			fprintf(stderr, "xps-hostile-nb: unknown lie %s\n", argv[5]);
			return 2;
		}
	}
	if (argc > 6)
		after = strtoul(argv[6], NULL, 0);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	/* a broadcast frame of a local experimental type */
	memset(frame, 0xff, 6);
	memcpy(frame + 6, "\x02\x00\x00\x00\x00\x02\x88\xb5", 8);
	memcpy(frame + 14, "xps-hostile-nb", 14);

	gnt_fd = open("/dev/xen/gntdev", O_RDWR);
	if (gnt_fd < 0)
		die("/dev/xen/gntdev");
	map = calloc(1, sizeof(*map) + 2 * sizeof(map->refs[0]));
	if (!map)
		die("calloc");
	map->count = 2;
	map->refs[0].domid = domid;
	map->refs[0].ref = strtoul(argv[2], NULL, 0);
	map->refs[1].domid = domid;
	map->refs[1].ref = strtoul(argv[3], NULL, 0);
	if (ioctl(gnt_fd, IOCTL_GNTDEV_MAP_GRANT_REF, map))
		die("map the rings");
	rings = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
		     gnt_fd, map->index);
	if (rings == MAP_FAILED)
		die("mmap the rings");
	tx = (struct sring *)rings;
	rx = (struct sring *)(rings + PAGE);
	evt_fd = open("/dev/xen/evtchn", O_RDWR);
	if (evt_fd < 0)
		die("/dev/xen/evtchn");
	bind.remote_domain = domid;
	bind.remote_port = strtoul(argv[4], NULL, 0);
	rc = ioctl(evt_fd, IOCTL_EVTCHN_BIND_INTERDOMAIN, &bind);
	if (rc < 0)
		die("bind the event channel");
	port = rc;
	/* fresh rings: the frontend initialised them */
	tx_pvt = __atomic_load_n(&tx->rsp_prod, __ATOMIC_ACQUIRE);
	tx_cons = tx_pvt;
	rx_pvt = __atomic_load_n(&rx->rsp_prod, __ATOMIC_ACQUIRE);
	rx_cons = rx_pvt;
	printf("ready: domain %u tx %s rx %s port %u (local %u) lie %s after %lu\n",
	       domid, argv[2], argv[3], bind.remote_port, port,
	       lie_names[lie], after);
	fflush(stdout);
	pfd.fd = evt_fd;
	pfd.events = POLLIN;
	while (!stop) {
		int sent = tx_round();

		if (now_ms() >= next_rx) {
			sent |= rx_round();
			next_rx = now_ms() + RX_EVERY_MS;
		}
		if (sent)
			notify();
		rc = poll(&pfd, 1, RX_EVERY_MS);
		if (rc < 0 && errno != EINTR)
			die("poll");
		if (rc > 0 && read(evt_fd, &fired, sizeof(fired)) == sizeof(fired) &&
		    write(evt_fd, &fired, sizeof(fired)) != sizeof(fired))
			die("unmask");
	}
	printf("end: %lu tx packets answered, %lu rx frames sent, %lu lies\n",
	       nr_tx, nr_rx, nr_lies);
	munmap(rings, 2 * PAGE);
	close(evt_fd);
	close(gnt_fd);
	return 0;
}
