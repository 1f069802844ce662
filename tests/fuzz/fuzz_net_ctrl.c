// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_net_ctrl - libFuzzer target: a lying backend on netif.h's control
 * ring against xen-netfront-pgnt's static-grant negotiation
 * (xnf_pg_start, xnf_pg_response, xnf_pg_stop in src/netfront/xnf_core.c).
 *
 * Input: the queue's grant count (0 to 4 x 512) and then one response a
 * step: most of the time the id and type the driver waits for, with a
 * status and data word from the input; sometimes anything.  A step may
 * instead ask for the teardown (xnf_pg_stop).
 *
 * What must hold, whatever the backend answers:
 * - a response to nothing outstanding, of another id or type, or with a
 *   status netif.h does not define is refused (-EPROTO, state BROKEN,
 *   nothing more sent), and every other one accepted;
 * - every ADD_GREF_MAPPING asks for the entries right after those already
 *   mapped, every DEL_GREF_MAPPING for entries already mapped, at most
 *   one table page (512 entries) and at least one entry each;
 * - the entries mapped never exceed the queue's grants; MAPPED means all
 *   of them; a refused ADD leads to DELs of all that were added (or OFF
 *   when none were), never to grants left mapped behind the driver's
 *   back: the state is OFF with entries mapped only after a DEL the
 *   backend refused or answered short (-EIO), which leaves them to the
 *   checked revoke at teardown;
 * - a request is outstanding exactly when a message was asked for, of
 *   the queue the negotiation is for;
 * - the negotiation ends: each accepted response moves it forward.
 */

#define FUZZ_NAME "fuzz_net_ctrl"
#include "fuzz.h"

#include <xgp_shim.h>
#include <xen-pv-suite/xgp_ring.h>
#include "xnf_core.h"

/* what a message asks for, against the state before it */
static void check_msg(const struct xnf_pg *pg, const struct xnf_pg_msg *msg,
		      unsigned int mapped_before, u32 queue)
{
	if (!!msg->type != !!pg->type || (msg->type && msg->type != pg->type))
		fail("message type %u, outstanding %u", msg->type, pg->type);
	if (!msg->type)
		return;
	if (msg->queue != queue)
		fail("message for queue %u, negotiating %u", msg->queue, queue);
	switch (msg->type) {
	case XNF_CTRL_TYPE_GET_GREF_MAPPING_SIZE:
		break;
	case XNF_CTRL_TYPE_ADD_GREF_MAPPING:
		if (msg->first != pg->mapped || !msg->count ||
		    msg->count > XNF_GREFS_PER_PAGE ||
		    msg->first + msg->count > pg->nr_grefs)
			fail("ADD %u+%u with %u of %u mapped", msg->first,
			     msg->count, pg->mapped, pg->nr_grefs);
		break;
	case XNF_CTRL_TYPE_DEL_GREF_MAPPING:
		if (!msg->count || msg->count > XNF_GREFS_PER_PAGE ||
		    msg->first + msg->count > pg->mapped ||
		    pg->mapped != mapped_before)
			fail("DEL %u+%u with %u mapped (%u before)", msg->first,
			     msg->count, pg->mapped, mapped_before);
		break;
	default:
		fail("message type %u", msg->type);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };
	struct xnf_pg pg;
	struct xnf_pg_msg msg;
	unsigned int steps = 0, limit;
	u16 nr, next_id = 1;
	u32 queue = 3;
	u8 c;

	if (take(&in, &nr, 2))
		return 0;
	nr %= 4 * XNF_GREFS_PER_PAGE + 1;
	xnf_pg_start(&pg, queue, nr, next_id++, &msg);
	check_msg(&pg, &msg, 0, queue);
	if (!nr && pg.state != XNF_PG_OFF)
		fail("nothing to map, state %u", pg.state);
	/* sizing, then ADDs and DELs of at most a page each, twice over */
	limit = 4 + 4 * (nr / XNF_GREFS_PER_PAGE + 1);

	while (!take(&in, &c, 1)) {
		unsigned int mapped = pg.mapped, state = pg.state;
		bool outstanding = pg.type != 0, plausible;
		u16 id = pg.id, type = pg.type;
		u32 status, word;
		int rc;

		if ((c & 0xf) == 0xf) {	/* the driver tears the queue down */
			xnf_pg_stop(&pg, next_id++, &msg);
			if (state == XNF_PG_MAPPED) {
				if (msg.type != XNF_CTRL_TYPE_DEL_GREF_MAPPING ||
				    msg.first)
					fail("teardown of a mapped queue sends %u",
					     msg.type);
				check_msg(&pg, &msg, mapped, queue);
			} else if (msg.type) {
				fail("teardown in state %u sends %u", state, msg.type);
			} else if (pg.type != (outstanding ? type : 0)) {
				fail("teardown changed the outstanding request");
			}
			continue;
		}
		if (take(&in, &status, 4) || take(&in, &word, 4))
			break;
		if (!(c & 1))
			status %= 4;
		if (c & 2) {	/* the data word near what it should be */
			word = (state == XNF_PG_SIZING ? nr : pg.chunk) +
			       (word % 3) - 1;
		}
		if (c & 0x10) {	/* another id or type */
			u16 v;

			if (take(&in, &v, 2))
				break;
			if (c & 0x20)
				id = v;
			else
				type = v;
		}
		plausible = outstanding && id == pg.id && type == pg.type &&
			    status <= XNF_CTRL_STATUS_BUFFER_OVERFLOW;
		rc = xnf_pg_response(&pg, id, type, status, word, next_id++,
				     &msg);
		if (!plausible) {
			if (rc != -EPROTO || pg.state != XNF_PG_BROKEN ||
			    pg.type || msg.type)
				fail("bad response (id %u type %u status %u) gave %d, state %u",
				     id, type, status, rc, pg.state);
			return 0;	/* the queue is dead */
		}
		if (rc == -EPROTO)
			fail("response id %u type %u status %u refused", id,
			     type, status);
		if (pg.mapped > pg.nr_grefs)
			fail("%u of %u mapped", pg.mapped, pg.nr_grefs);
		if (pg.state == XNF_PG_MAPPED && pg.mapped != pg.nr_grefs)
			fail("MAPPED with %u of %u", pg.mapped, pg.nr_grefs);
		if (rc == -EIO && (state != XNF_PG_DELETING || pg.state != XNF_PG_OFF))
			fail("-EIO from state %u to %u", state, pg.state);
		if (pg.state == XNF_PG_OFF && pg.mapped && rc != -EIO)
			fail("OFF with %u mapped and no DEL refused", pg.mapped);
		if (pg.state == XNF_PG_OFF && pg.type)
			fail("OFF with type %u outstanding", pg.type);
		if (state == XNF_PG_ADDING && status && !mapped &&
		    pg.state != XNF_PG_OFF)
			fail("refused first ADD left state %u", pg.state);
		if (state == XNF_PG_ADDING && status && mapped &&
		    pg.state != XNF_PG_DELETING)
			fail("refused ADD with %u mapped left state %u", mapped,
			     pg.state);
		check_msg(&pg, &msg, state == XNF_PG_DELETING ? mapped : pg.mapped,
			  queue);
		if (++steps > limit)
			fail("%u responses and still negotiating %u grants (state %u)",
			     steps, nr, pg.state);
	}
	return 0;
}
