// SPDX-License-Identifier: GPL-2.0
/*
 * xps-hostile-nf - a userspace net frontend for one vif of the domU it
 * runs in, in place of xen-netfront (issue #15): the lab's hostile-nb
 * scenario uses it to tell dom0's net backend lies a guest can tell.
 *
 * It uses the guest kernel's Xen devices directly (what libxengntshr and
 * libxenevtchn wrap), so it builds static on the host like the lab's
 * other tools: /dev/xen/gntalloc grants dom0 the tx, rx and control
 * rings, a control table page and NR_DATA data pages; /dev/xen/evtchn
 * allocates two unbound event channels (tx/rx shared, control).  The
 * xenstore handshake is the scenario's (hostile-nb.sh): the tool prints
 *
 *   ready tx-ring-ref=R rx-ring-ref=R event-channel=P ctrl-ring-ref=R event-channel-ctrl=P
 *
 * the scenario writes those keys (and the features) under the vif's
 * frontend directory, says Connected, waits for the backend to be
 * Connected and sends SIGUSR1.  The tool then tells its lie, once:
 *
 *   good       one 60-byte broadcast frame, one slot
 *   bad-gref   a frame whose grant reference was never granted
 *   runt       a 10-byte frame (shorter than an Ethernet header)
 *   sizes      two slots holding more than the first slot's packet size
 *   slots19    a packet of 19 data slots (one more than a packet may use)
 *   slots21    a packet of 21 data slots (more than any packet takes)
 *   cross      one slot at offset 4000 of 200 bytes: past its 4 KB grant
 *   bad-extra  an extra-info slot of type 7, which netif.h does not define
 *   prod-jump  the tx request producer 1000 past the requests
 *   ctrl-over  control ring: GET_GREF_MAPPING_SIZE (L), ADD_GREF_MAPPING
 *              of the NR_DATA data pages, then an ADD of L - NR_DATA + 1
 *              more: over the backend's limit
 *   ctrl-gref  ADD_GREF_MAPPING whose table gref was never granted
 *   ctrl-jump  the control request producer 1000 past the requests
 *   flood      FLOOD_SECS seconds of back-to-back 60-byte frames, the tx
 *              ring kept full
 *   vanish     exit at once: no Closing, rings and pages still granted
 *   none       nothing (a lie the scenario tells in xenstore)
 *
 * and prints "result: S" (the status of the lie's first response, OKAY,
 * ERROR, DROPPED, NULL or, for the control ring, SUCCESS,
 * NOT_SUPPORTED, INVALID_PARAMETER; "none" if none came within
 * RSP_WAIT_MS).  It then sends one good frame and prints "then: S":
 * whether the vif still works.  It stays
 * until SIGTERM.
 *
 *   xps-hostile-nf LIE
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

typedef uint16_t domid_t;
#include <xen/gntalloc.h>
#include <xen/evtchn.h>

#define PAGE		4096U
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* io/netif.h */
#define TXF_MORE_DATA	0x4U
#define TXF_EXTRA_INFO	0x8U
#define RSP_DROPPED	(-2)
#define RSP_ERROR	(-1)
#define RSP_OKAY	0
#define RSP_NULL	1
#define CTRL_GET_GREF_MAPPING_SIZE	8
#define CTRL_ADD_GREF_MAPPING		9
#define CTRL_SUCCESS			0
#define CTRL_NOT_SUPPORTED		1
#define CTRL_INVALID_PARAMETER		2
#define CTRL_BUFFER_OVERFLOW		3

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

struct ctrlreq {
	uint16_t id, type;
	uint32_t data[3];
};

struct ctrlrsp {
	uint16_t id, type;
	uint32_t status, data;
};

struct gref_ent {
	uint32_t ref;
	uint16_t flags, status;
};

struct sring {
	uint32_t req_prod, req_event, rsp_prod, rsp_event;
	uint8_t pad[48];
	uint8_t ring[];
};

_Static_assert(sizeof(struct txreq) == 12, "xen_netif_tx_request");
_Static_assert(sizeof(struct rxreq) == 8, "xen_netif_rx_request");
_Static_assert(sizeof(struct ctrlreq) == 16, "xen_netif_ctrl_request");
_Static_assert(sizeof(struct ctrlrsp) == 12, "xen_netif_ctrl_response");
_Static_assert(sizeof(struct sring) == 64, "sring header");

/* (4096 - 64) / entry size, rounded down to a power of 2 */
#define TX_RING		256U	/* 12-byte entries */
#define RX_RING		256U	/* 8 */
#define CTRL_RING	128U	/* 16 */

/* the pages granted: the three rings, the control table, the data */
enum { P_TX, P_RX, P_CTRL, P_TABLE, P_DATA };
#define NR_DATA		24U
#define NR_RX_BUFS	8U	/* data pages 0-7 posted for receive */
#define NR_PAGES	(P_DATA + NR_DATA)
#define BAD_GREF	0x7ffffff0U
#define RSP_WAIT_MS	3000
#define FLOOD_SECS	5
#define FRAME		60U

static const char *const lies[] = {
	"none", "good", "bad-gref", "runt", "sizes", "slots19", "slots21",
	"cross", "bad-extra", "prod-jump", "ctrl-over", "ctrl-gref",
	"ctrl-jump", "flood", "vanish",
};

static volatile sig_atomic_t go, stop;
static int evt_fd;
static unsigned int port, ctrl_port;
static uint8_t *pages;
static uint32_t grefs[NR_PAGES];
static struct sring *tx, *rx, *ctl;
static uint32_t tx_prod, tx_cons, ctl_prod, ctl_cons;

static void on_sig(int sig)
{
	if (sig == SIGUSR1)
		go = 1;
	else
		stop = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "xps-hostile-nf: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint8_t *page(unsigned int i)
{
	return pages + (size_t)i * PAGE;
}

/*
 * A backend that disconnected closed its end: the notify then fails,
 * which is no reason to stop (the "then" frame finds no answer).
 */
static void notify(unsigned int p)
{
	struct ioctl_evtchn_notify n = { .port = p };
	static int said;

	if (ioctl(evt_fd, IOCTL_EVTCHN_NOTIFY, &n) && !said++)
		printf("notify: port %u: %s\n", p, strerror(errno));
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Wait for an event until END (in now_ms() time), 10 ms at most, to look
 * at the rings again.  (A negative poll timeout would wait for ever.)
 */
static void wait_event(uint64_t end)
{
	struct pollfd pfd = { .fd = evt_fd, .events = POLLIN };
	uint64_t now = now_ms();
	uint32_t fired;
	int ms = end <= now ? 0 : end - now < 10 ? (int)(end - now) : 10;

	if (poll(&pfd, 1, ms) > 0 &&
	    read(evt_fd, &fired, sizeof(fired)) == sizeof(fired) &&
	    write(evt_fd, &fired, sizeof(fired)) != sizeof(fired))
		die("unmask");
}

static const char *tx_status(int st)
{
	switch (st) {
	case RSP_OKAY: return "OKAY";
	case RSP_ERROR: return "ERROR";
	case RSP_DROPPED: return "DROPPED";
	case RSP_NULL: return "NULL";
	case 1000: return "none";
	default: return "unknown";
	}
}

static const char *ctrl_status(uint32_t st)
{
	switch (st) {
	case CTRL_SUCCESS: return "SUCCESS";
	case CTRL_NOT_SUPPORTED: return "NOT_SUPPORTED";
	case CTRL_INVALID_PARAMETER: return "INVALID_PARAMETER";
	case CTRL_BUFFER_OVERFLOW: return "BUFFER_OVERFLOW";
	case 1000: return "none";
	default: return "unknown";
	}
}

/* Publish N tx slots (a copy each into the ring), then notify. */
static void tx_push(const struct txreq *s, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		memcpy(tx->ring + (size_t)(tx_prod++ % TX_RING) * sizeof(*s),
		       &s[i], sizeof(*s));
	__atomic_store_n(&tx->req_prod, tx_prod, __ATOMIC_RELEASE);
	notify(port);
}

/*
 * Collect the responses to the N slots pushed last; return the first
 * one's status, or 1000 if they did not all come within RSP_WAIT_MS.
 */
static int tx_wait(unsigned int n)
{
	uint64_t end = now_ms() + RSP_WAIT_MS;
	struct txrsp r;
	int first = 1000;
	uint32_t want = tx_cons + n;

	while (tx_cons != want) {
		uint32_t prod = __atomic_load_n(&tx->rsp_prod, __ATOMIC_ACQUIRE);

		while (tx_cons != prod && tx_cons != want) {
			memcpy(&r, tx->ring + (size_t)(tx_cons % TX_RING) * sizeof(struct txreq),
			       sizeof(r));
			if (first == 1000)
				first = r.status;
			tx_cons++;
		}
		__atomic_store_n(&tx->rsp_event, tx_cons + 1, __ATOMIC_SEQ_CST);
		if (tx_cons == want || now_ms() > end || stop)
			break;
		wait_event(end);
	}
	return tx_cons == want ? first : 1000;
}

/* A 60-byte broadcast frame of a local experimental type, in data page D. */
static struct txreq frame(unsigned int d, uint16_t id)
{
	static const uint8_t hdr[14] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x88, 0xb5,
	};
	struct txreq s = {
		.gref = grefs[P_DATA + d], .id = id, .size = FRAME,
	};

	memcpy(page(P_DATA + d), hdr, sizeof(hdr));
	memcpy(page(P_DATA + d) + sizeof(hdr), "xps-hostile-nf", 14);
	return s;
}

/* One good frame; its status. */
static int send_good(void)
{
	struct txreq s = frame(NR_RX_BUFS, 1);

	tx_push(&s, 1);
	return tx_wait(1);
}

/* A packet of N data slots, 64 bytes each, from the tx data pages. */
static int send_slots(unsigned int n)
{
	struct txreq s[32];
	unsigned int i;

	for (i = 0; i < n; i++) {
		s[i] = frame(NR_RX_BUFS + i % (NR_DATA - NR_RX_BUFS), (uint16_t)i);
		s[i].size = 64;
		if (i + 1 < n)
			s[i].flags = TXF_MORE_DATA;
	}
	s[0].size = (uint16_t)(64 * n);
	tx_push(s, n);
	return tx_wait(n);
}

/* One control request; its status (1000: no answer), *data its data. */
static uint32_t ctrl_call(uint16_t type, uint32_t d0, uint32_t d1, uint32_t d2,
			  uint32_t *data)
{
	struct ctrlreq q = { .id = (uint16_t)ctl_prod, .type = type,
			     .data = { d0, d1, d2 } };
	uint64_t end = now_ms() + RSP_WAIT_MS;
	struct ctrlrsp r;

	memcpy(ctl->ring + (size_t)(ctl_prod++ % CTRL_RING) * sizeof(q), &q,
	       sizeof(q));
	__atomic_store_n(&ctl->req_prod, ctl_prod, __ATOMIC_RELEASE);
	notify(ctrl_port);
	while (__atomic_load_n(&ctl->rsp_prod, __ATOMIC_ACQUIRE) == ctl_cons) {
		__atomic_store_n(&ctl->rsp_event, ctl_cons + 1, __ATOMIC_SEQ_CST);
		if (now_ms() > end || stop)
			return 1000;
		wait_event(end);
	}
	memcpy(&r, ctl->ring + (size_t)(ctl_cons++ % CTRL_RING) * sizeof(q),
	       sizeof(r));
	if (data)
		*data = r.data;
	return r.status;
}

/* ctrl-over: fill the backend's mapping limit and ask for one more */
static uint32_t ctrl_over(void)
{
	struct gref_ent *t = (struct gref_ent *)page(P_TABLE);
	uint32_t st, st_add, limit = 0;
	unsigned int i;

	st = ctrl_call(CTRL_GET_GREF_MAPPING_SIZE, 0, 0, 0, &limit);
	printf("control: GET_GREF_MAPPING_SIZE %s, %u\n", ctrl_status(st), limit);
	if (st != CTRL_SUCCESS)
		return st;
	if (limit <= NR_DATA || limit - NR_DATA + 1 > PAGE / sizeof(*t)) {
		printf("control: a limit of %u cannot be passed with one table\n",
		       limit);
		return 1000;
	}
	memset(t, 0, PAGE);
	for (i = 0; i < NR_DATA; i++)
		t[i].ref = grefs[P_DATA + i];
	st_add = ctrl_call(CTRL_ADD_GREF_MAPPING, 0, grefs[P_TABLE], NR_DATA, NULL);
	printf("control: ADD_GREF_MAPPING of the %u data pages: %s\n", NR_DATA,
	       ctrl_status(st_add));
	/* more entries than the limit leaves: each names a data page again */
	for (i = 0; i < limit - NR_DATA + 1; i++)
		t[i].ref = grefs[P_DATA + i % NR_DATA];
	st = ctrl_call(CTRL_ADD_GREF_MAPPING, 0, grefs[P_TABLE],
		       limit - NR_DATA + 1, NULL);
	printf("control: ADD_GREF_MAPPING of %u more: %s\n", limit - NR_DATA + 1,
	       ctrl_status(st));
	return st;
}

/* flood: the ring kept full of good frames for FLOOD_SECS; "result:" */
static void flood_ring(void)
{
	uint64_t end = now_ms() + FLOOD_SECS * 1000;
	unsigned long sent = 0, okay = 0, other = 0;
	struct txreq s = frame(NR_RX_BUFS, 0);
	struct txrsp r;
	uint32_t prod;

	while (!stop) {
		int pushing = now_ms() < end;

		if (pushing) {
			while (tx_prod - tx_cons < TX_RING) {
				s.id = (uint16_t)tx_prod;
				memcpy(tx->ring + (size_t)(tx_prod++ % TX_RING) * sizeof(s),
				       &s, sizeof(s));
				sent++;
			}
			__atomic_store_n(&tx->req_prod, tx_prod, __ATOMIC_RELEASE);
			notify(port);
		}
		prod = __atomic_load_n(&tx->rsp_prod, __ATOMIC_ACQUIRE);
		if (prod - tx_cons > tx_prod - tx_cons) {
			printf("flood: backend response producer %u, consumer %u, requests %u\n",
			       prod, tx_cons, tx_prod);
			break;
		}
		while (tx_cons != prod) {
			memcpy(&r, tx->ring + (size_t)(tx_cons++ % TX_RING) * sizeof(s),
			       sizeof(r));
			if (r.status == RSP_OKAY)
				okay++;
			else
				other++;
		}
		__atomic_store_n(&tx->rsp_event, tx_cons + 1, __ATOMIC_SEQ_CST);
		if (!pushing && tx_cons == tx_prod)
			break;
		if (!pushing && now_ms() > end + RSP_WAIT_MS) {
			printf("flood: %u frame(s) unanswered %d ms after the flood\n",
			       tx_prod - tx_cons, RSP_WAIT_MS);
			break;
		}
		wait_event(now_ms() + 10);
	}
	printf("flood: %lu frames in %d s, %lu OKAY, %lu other\n", sent,
	       FLOOD_SECS, okay, other);
	printf("result: %s\n", other || tx_prod != tx_cons ? "ERROR" : "OKAY");
}

static void tell(const char *lie)
{
	struct txreq s[2];
	int st = 1000;

	printf("lie: %s\n", lie);
	fflush(stdout);
	if (!strcmp(lie, "good")) {
		st = send_good();
	} else if (!strcmp(lie, "bad-gref")) {
		s[0] = frame(NR_RX_BUFS, 2);
		s[0].gref = BAD_GREF;
		tx_push(s, 1);
		st = tx_wait(1);
	} else if (!strcmp(lie, "runt")) {
		s[0] = frame(NR_RX_BUFS, 2);
		s[0].size = 10;
		tx_push(s, 1);
		st = tx_wait(1);
	} else if (!strcmp(lie, "sizes")) {
		/* a 100-byte packet whose second slot holds 200 */
		s[0] = frame(NR_RX_BUFS, 2);
		s[0].flags = TXF_MORE_DATA;
		s[0].size = 100;
		s[1] = frame(NR_RX_BUFS + 1, 3);
		s[1].size = 200;
		tx_push(s, 2);
		st = tx_wait(2);
	} else if (!strcmp(lie, "slots19")) {
		st = send_slots(19);
	} else if (!strcmp(lie, "slots21")) {
		st = send_slots(21);
	} else if (!strcmp(lie, "cross")) {
		s[0] = frame(NR_RX_BUFS, 2);
		s[0].offset = 4000;
		s[0].size = 200;
		tx_push(s, 1);
		st = tx_wait(1);
	} else if (!strcmp(lie, "bad-extra")) {
		s[0] = frame(NR_RX_BUFS, 2);
		s[0].flags = TXF_EXTRA_INFO;
		memset(&s[1], 0, sizeof(s[1]));
		((uint8_t *)&s[1])[0] = 7;	/* type 7, flags 0 */
		tx_push(s, 2);
		st = tx_wait(2);
	} else if (!strcmp(lie, "prod-jump")) {
		__atomic_store_n(&tx->req_prod, tx_prod + 1000, __ATOMIC_RELEASE);
		notify(port);
		usleep(RSP_WAIT_MS * 1000);
		printf("result: %s\n",
		       __atomic_load_n(&tx->rsp_prod, __ATOMIC_ACQUIRE) != tx_cons ?
		       "answered" : "none");
		/* the producer as it was, for "then" */
		__atomic_store_n(&tx->req_prod, tx_prod, __ATOMIC_RELEASE);
	} else if (!strcmp(lie, "ctrl-over")) {
		printf("result: %s\n", ctrl_status(ctrl_over()));
	} else if (!strcmp(lie, "ctrl-gref")) {
		printf("result: %s\n",
		       ctrl_status(ctrl_call(CTRL_ADD_GREF_MAPPING, 0, BAD_GREF, 4, NULL)));
	} else if (!strcmp(lie, "ctrl-jump")) {
		__atomic_store_n(&ctl->req_prod, ctl_prod + 1000, __ATOMIC_RELEASE);
		notify(ctrl_port);
		usleep(RSP_WAIT_MS * 1000);
		printf("result: %s\n",
		       __atomic_load_n(&ctl->rsp_prod, __ATOMIC_ACQUIRE) != ctl_cons ?
		       "answered" : "none");
	} else if (!strcmp(lie, "flood")) {
		flood_ring();
	}
	if (strncmp(lie, "ctrl-", 5) && strcmp(lie, "flood") &&
	    strcmp(lie, "prod-jump"))
		printf("result: %s\n", tx_status(st));
	fflush(stdout);
	printf("then: %s\n", tx_status(send_good()));
}

int main(int argc, char **argv)
{
	struct ioctl_evtchn_bind_unbound_port ub = { .remote_domain = 0 };
	struct ioctl_gntalloc_alloc_gref *ga;
	sigset_t mask, old;
	struct rxreq rq;
	unsigned int i;
	const char *lie;
	int gnt_fd, rc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s LIE\n", argv[0]);
		return 2;
	}
	lie = argv[1];
	for (i = 0; i < ARRAY_SIZE(lies); i++)
		if (!strcmp(lie, lies[i]))
			break;
	if (i == ARRAY_SIZE(lies)) {
		fprintf(stderr, "xps-hostile-nf: unknown lie %s\n", lie);
		return 2;
	}
	/* blocked but while waiting for them: none is missed */
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, &old);
	signal(SIGUSR1, on_sig);
	signal(SIGTERM, on_sig);
	signal(SIGINT, on_sig);

	gnt_fd = open("/dev/xen/gntalloc", O_RDWR);
	if (gnt_fd < 0)
		die("/dev/xen/gntalloc");
	ga = calloc(1, sizeof(*ga) + NR_PAGES * sizeof(ga->gref_ids[0]));
	if (!ga)
		die("calloc");
	ga->domid = 0;
	ga->flags = GNTALLOC_FLAG_WRITABLE;
	ga->count = NR_PAGES;
	if (ioctl(gnt_fd, IOCTL_GNTALLOC_ALLOC_GREF, ga))
		die("grant the pages");
	pages = mmap(NULL, (size_t)NR_PAGES * PAGE, PROT_READ | PROT_WRITE,
		     MAP_SHARED, gnt_fd, (off_t)ga->index);
	if (pages == MAP_FAILED)
		die("mmap the granted pages");
	memcpy(grefs, ga->gref_ids, sizeof(grefs));
	memset(pages, 0, (size_t)NR_PAGES * PAGE);
	tx = (struct sring *)page(P_TX);
	rx = (struct sring *)page(P_RX);
	ctl = (struct sring *)page(P_CTRL);
	/* SHARED_RING_INIT */
	tx->req_event = 1;
	tx->rsp_event = 1;
	rx->req_event = 1;
	rx->rsp_event = 1;
	ctl->req_event = 1;
	ctl->rsp_event = 1;
	/* receive buffers, so the backend has somewhere to put dom0's frames */
	for (i = 0; i < NR_RX_BUFS; i++) {
		rq.id = (uint16_t)i;
		rq.pad = 0;
		rq.gref = grefs[P_DATA + i];
		memcpy(rx->ring + (size_t)i * sizeof(rq), &rq, sizeof(rq));
	}
	__atomic_store_n(&rx->req_prod, NR_RX_BUFS, __ATOMIC_RELEASE);

	evt_fd = open("/dev/xen/evtchn", O_RDWR);
	if (evt_fd < 0)
		die("/dev/xen/evtchn");
	rc = ioctl(evt_fd, IOCTL_EVTCHN_BIND_UNBOUND_PORT, &ub);
	if (rc < 0)
		die("an event channel");
	port = rc;
	rc = ioctl(evt_fd, IOCTL_EVTCHN_BIND_UNBOUND_PORT, &ub);
	if (rc < 0)
		die("the control event channel");
	ctrl_port = rc;

	printf("ready tx-ring-ref=%u rx-ring-ref=%u event-channel=%u ctrl-ring-ref=%u event-channel-ctrl=%u\n",
	       grefs[P_TX], grefs[P_RX], port, grefs[P_CTRL], ctrl_port);
	fflush(stdout);
	while (!go && !stop)
		sigsuspend(&old);
	/* the lie runs with SIGTERM deliverable: its waits end early then */
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (go && !stop) {
		if (!strcmp(lie, "vanish")) {
			printf("lie: vanish: exits, its rings and pages still granted\n");
			fflush(stdout);
			_exit(0);
		}
		tell(lie);
		fflush(stdout);
	}
	sigprocmask(SIG_BLOCK, &mask, NULL);
	while (!stop)
		sigsuspend(&old);
	printf("end: tx %u requests, %u responses; control %u, %u\n", tx_prod,
	       tx_cons, ctl_prod, ctl_cons);
	return 0;
}
