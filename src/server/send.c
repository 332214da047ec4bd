/*
 * send.c -- building replies: players, entities, nails, stats; one per
 * request, in send batches.
 *
 * Design note
 *   A reply goes to each client that sent a request this frame (replies are
 *   client-paced, as in QuakeWorld).  Its unreliable part, after whatever
 *   reliable data the netchan adds first:
 *     svc_chokecount      replies held back by the client's rate, if any
 *     svc_updatestat(long) stats that changed (reliable, queued here)
 *     svc_setangle        when the server placed the view
 *     svc_playerinfo      each player whose leafs the client's fat PVS
 *                         touches (the client itself always); its own
 *                         entry carries no msec or command
 *     svc_(delta)packetentities  visible entities, delta-compressed
 *                         against the frame the client asked for with
 *                         clc_delta, else against the baselines
 *   Cost per reply: the fat PVS (a few leafs ORed), one pass over the
 *   players and one over the entities that can be drawn.  The phase
 *   groups those entities by the one leaf each touches (struct
 *   sv_send_leafs): a reply tests the leafs of the groups against its
 *   PVS, one by one only the entities of no or several leafs, and takes
 *   the seen in ascending order -- the entries a test of every one finds,
 *   for the cost of the leafs present, not of the entities (a crowd's
 *   bodies, gibs and shots: hundreds, most out of sight).  The groups'
 *   counts give the reply's entity count, the phase's list of nails its
 *   nails; a state is copied into the ring only when the delta merge
 *   reaches it (in a crowd the players' entries fill most of the datagram
 *   and the list is cut after a few entities).  Entity states of each
 *   reply go to one ring
 *   shared by all clients; a reply whose states the ring has overwritten
 *   can no longer be a delta base, and the client gets a full update (a
 *   valid protocol-28 answer) instead.  Nor can a reply sent while a
 *   message that clears the client's level (serverdata, "changing") is
 *   still queued or unacknowledged in its reliable stream: a packet that
 *   ran "new" and then "begin" puts the client in the game before it has
 *   read the serverdata, which wipes the frames it has by then.
 *
 *   The players' entries, and the grid that picks an extension client's
 *   players, are players.c's (sv_write_players).
 *
 *   Reliable data (the backlog, other players' texts and states, pings)
 *   is reliable.c's: the reliable part of a packet is settled there
 *   (sv_reliable_fill) before the reply is built, and the reply gets only
 *   the room left beside it.
 */
#include "core.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- stats ------------------------------------------------------------ */

/* A client's stats; a tracking spectator's are the tracked player's, so
 * its status bar is that player's (MVDSV's), and a spectator tracking
 * nobody has an empty one (what ezQuake shows under MVDSV and KTX:
 * health, ammo, weapon and items 0). */
static void update_stats(struct server *sv, struct client *cl)
{
	int from = sv_view_slot(sv, cl);

	if (cl->spectator && from == cl->slot)
		memset(cl->stats, 0, sizeof(cl->stats));
	else
		game_client_stats(sv->game, from, cl->stats, MAX_CL_STATS);
	for (int i = 0; i < MAX_CL_STATS; i++) {
		uint8_t buf[8];
		struct msg_buf m;

		if (cl->stats[i] == cl->sent_stats[i])
			continue;
		msg_init(&m, buf, sizeof(buf));
		if (cl->stats[i] >= 0 && cl->stats[i] <= 255) {
			msg_write_byte(&m, svc_updatestat);
			msg_write_byte(&m, i);
			msg_write_byte(&m, cl->stats[i]);
		} else {
			msg_write_byte(&m, svc_updatestatlong);
			msg_write_byte(&m, i);
			msg_write_long(&m, cl->stats[i]);
		}
		sv_reliable_write(cl, m.data, m.cursize);
		cl->sent_stats[i] = cl->stats[i];
	}
}

/* ---- packet entities -------------------------------------------------- */

/* the largest delta: flags and number (extension: two shorts), more
 * bits, five bytes, three origins and three angles */
#define ENTITY_DELTA_MAX (4 + 1 + 5 + 6 + 3)

/* One entity's delta, one record (all of it or, on overflow, none). */
static void write_delta(const struct entity_state *from,
			const struct entity_state *to, struct msg_buf *m,
			bool force, bool wide)
{
	uint8_t scratch[ENTITY_DELTA_MAX], *start, *p;
	int bits = 0;

	/* most entities of a delta did not change: the fields from
	 * modelindex to effects are 15 bytes with no padding among them */
	if (!force && memcmp(&to->modelindex, &from->modelindex,
			     offsetof(struct entity_state, effects) + 1 -
			     offsetof(struct entity_state, modelindex)) == 0)
		return;
	for (int k = 0; k < 3; k++)
		if (to->origin[k] != from->origin[k])
			bits |= U_ORIGIN1 << k;
	if (to->angles[0] != from->angles[0])
		bits |= U_ANGLE1;
	if (to->angles[1] != from->angles[1])
		bits |= U_ANGLE2;
	if (to->angles[2] != from->angles[2])
		bits |= U_ANGLE3;
	if (to->colormap != from->colormap)
		bits |= U_COLORMAP;
	if (to->skinnum != from->skinnum)
		bits |= U_SKIN;
	if (to->frame != from->frame)
		bits |= U_FRAME;
	if (to->effects != from->effects)
		bits |= U_EFFECTS;
	if (to->modelindex != from->modelindex)
		bits |= U_MODEL;
	if (bits & 511)
		bits |= U_MOREBITS;
	if (!bits && !force)
		return;
	/* extension: a flag word of 0 ends the list, so an entity sent
	 * unchanged carries an empty more-bits byte instead */
	if (wide && !bits)
		bits = U_MOREBITS;
	start = msg_record_begin(m, scratch, sizeof(scratch));
	p = start;
	if (wide) {
		/* extension: the flag word with no number in it, then the
		 * number as a short */
		p = msg_put_short(p, bits & ~511);
		p = msg_put_short(p, to->number);
	} else {
		p = msg_put_short(p, to->number | (bits & ~511));
	}
	if (bits & U_MOREBITS)
		p = msg_put_byte(p, bits & 255);
	if (bits & U_MODEL)
		p = msg_put_byte(p, to->modelindex);
	if (bits & U_FRAME)
		p = msg_put_byte(p, to->frame);
	if (bits & U_COLORMAP)
		p = msg_put_byte(p, to->colormap);
	if (bits & U_SKIN)
		p = msg_put_byte(p, to->skinnum);
	if (bits & U_EFFECTS)
		p = msg_put_byte(p, to->effects);
	if (bits & U_ORIGIN1)
		p = msg_put_short(p, to->origin[0]);
	if (bits & U_ANGLE1)
		p = msg_put_byte(p, to->angles[0]);
	if (bits & U_ORIGIN2)
		p = msg_put_short(p, to->origin[1]);
	if (bits & U_ANGLE2)
		p = msg_put_byte(p, to->angles[1]);
	if (bits & U_ORIGIN3)
		p = msg_put_short(p, to->origin[2]);
	if (bits & U_ANGLE3)
		p = msg_put_byte(p, to->angles[2]);
	msg_record_end(m, scratch, start, p);
}

static void write_remove(struct msg_buf *m, int number, bool wide)
{
	if (wide) {
		msg_write_short(m, U_REMOVE);
		msg_write_short(m, number);
	} else {
		msg_write_short(m, number | U_REMOVE);
	}
}

static struct entity_state *ring_at(const struct sv_ring *r, uint32_t abs)
{
	return &r->states[abs & (r->size - 1)];
}

/* A frame's states are all still in its ring, and stay there while this
 * reply reads them: the ring's end, as far as it gets by then, is less
 * than a ring's length past the frame's start.  The worker's own ring
 * ends at its next; another worker's ring may grow while this reply is
 * built (a parallel phase), up to its reach. */
static bool frame_intact(const struct server *sv, const struct sv_reply_worker *w,
			 const struct client_frame *f)
{
	const struct sv_ring *r = &sv->workers[f->ring].ring;

	/* two paths, so that no read of another worker's next is made,
	 * not even one the compiler would speculate for a select */
	if (f->ring == w->index)
		return w->ring.next - f->first_state <= w->ring.size;
	return r->reach - f->first_state <= r->size;
}

struct pull;
static bool emit_entities(struct server *sv, struct sv_reply_worker *w,
			  struct client *cl, struct msg_buf *m,
			  const struct client_frame *from, uint32_t first,
			  int *count, int max, struct pull *p);

/* One entity's state of this phase (made on first use, shared by every
 * reply of the phase) into the ring at abs. */
static inline void state_to_ring(struct server *sv, struct sv_ring *ring,
				 uint32_t abs, int num)
{
	if (sv->frame_stamp[num] != sv->reply_stamp) {
		sv_entity_state(sv, num, &sv->frame_states[num]);
		sv->frame_stamp[num] = sv->reply_stamp;
	}
	*ring_at(ring, abs) = sv->frame_states[num];
}

/* The sanitizer build (make check) proves the groups on every reply of
 * every test it runs: each entry's group answers as sv_obj_visible on the
 * entry itself, and the count is that of a test of every entry.  A
 * difference is an entity missing from (or wrongly in) a reply, so it
 * stops there. */
static void check_seen(const struct server *sv, const uint8_t *seen,
		       const uint8_t *pvs, int end, int count)
{
#ifdef QWD_SELF_CHECK
	const struct sv_send_leafs *x = &sv->send_leafs;
	int c = 0;

	for (int i = 0; i < sv->send_count; i++) {
		bool v = sv_obj_visible(&sv->objs[sv->send_list[i].num], pvs);

		if (v != (seen[x->group_of[i]] != 0)) {
			fprintf(stderr, "qwd: send list entry %d (entity %d) seen %d, visible %d\n",
				i, sv->send_list[i].num, seen[x->group_of[i]], v);
			abort();
		}
		c += v && !sv->send_list[i].nail && i < end;
	}
	if (c != count) {
		fprintf(stderr, "qwd: a reply's groups count %d entities, a test of each %d\n",
			count, c);
		abort();
	}
#else
	(void)sv;
	(void)seen;
	(void)pvs;
	(void)end;
	(void)count;
#endif
}

/* Which of the send list's groups pvs sees (w->seen): a leaf's group by
 * its leaf, the objects of no or several leafs each by sv_obj_visible --
 * the same answer as sv_obj_visible on every entry (an object of one
 * leaf is seen when that leaf is), for the leafs present instead of the
 * entities: in a crowd hundreds of bodies and missiles share a few dozen
 * leafs, most of them out of sight.  The count of seen entities that are
 * not nails, below entry `end` (p28: the stock client's end), from the
 * groups' counts; false without the index (the caller tests every
 * entry). */
static bool see_groups(struct server *sv, struct sv_reply_worker *w,
		       const uint8_t *pvs, bool p28, int *count)
{
	const struct sv_send_leafs *x = &sv->send_leafs;
	uint8_t *seen = w->seen;
	int end = p28 ? x->p28_end : sv->send_count, c = 0;

	if (!x->ready)
		return false;
	for (int d = 0; d < x->num_groups; d++) {
		seen[d] = bsp_vis_test(pvs, x->leafs[d]) != 0;
		if (seen[d])
			c += x->counts[2 * d + p28];
	}
	for (int k = 0; k < x->num_many; k++) {
		int i = x->many[k];

		seen[x->num_groups + k] =
			sv_obj_visible(&sv->objs[sv->send_list[i].num], pvs);
		if (seen[x->num_groups + k] && !sv->send_list[i].nail && i < end)
			c++;
	}
	*count = c;
	check_seen(sv, seen, pvs, end, c);
	return true;
}

/* A reply's entity states, taken into its ring in ascending order as the
 * merge reaches them (struct pull): with the leaf index, the count comes
 * from the groups' counts and the nails from the nails' list, and a state
 * is copied only when the datagram still has room for it -- in a crowd
 * the players' entries fill most of it, and the entities after the cut
 * cost nothing.  The reply is the one a copy of every visible state would
 * give: the same count (so the same ring positions, the same delta
 * bases), the same nails, the same states in the same order. */
struct pull {
	const uint8_t *seen;		/* NULL: all `done` already there */
	int next;			/* the send list's next entry to try */
	int done;			/* states in the ring from `first` */
};

/* the next seen entity into the ring at first + p->done (the caller asks
 * for no more than the count see_groups gave) */
static void pull_next(struct server *sv, struct pull *p, struct sv_ring *ring,
		      uint32_t first)
{
	const int32_t *group_of = sv->send_leafs.group_of;
	int i = p->next;

	while (sv->send_list[i].nail || !p->seen[group_of[i]])
		i++;
	p->next = i + 1;
	state_to_ring(sv, ring, first + (uint32_t)p->done++, sv->send_list[i].num);
}

static void write_entities(struct server *sv, struct sv_reply_worker *w,
			   struct client *cl, const uint8_t *pvs,
			   struct msg_buf *m, int *nails, int *num_nails)
{
	struct sv_ring *ring = &w->ring;
	struct client_frame *frame = &cl->frames[cl->chan.incoming_sequence & UPDATE_MASK];
	int max = cl->extended ? QWDX_MAX_PACKET_ENTITIES : MAX_PACKET_ENTITIES;
	/* the phase's list (sv_reply_phase) ends below g->top; a stock
	 * client can be told of numbers below MAX_EDICTS_P28 only */
	int limit = cl->extended ? INT32_MAX : MAX_EDICTS_P28;
	struct client_frame *from = NULL;
	uint32_t first = ring->next;
	int count = 0;
	struct pull p = {0};

	*num_nails = 0;
	if (see_groups(sv, w, pvs, !cl->extended, &count)) {
		/* the seen entries by leaf: counted now, taken by the merge */
		const struct sv_send_leafs *x = &sv->send_leafs;
		int end = cl->extended ? sv->send_count : x->p28_end;

		if (count > max)
			count = max;
		for (int j = 0; j < x->num_nails && *num_nails < SV_MAX_NAILS; j++) {
			int i = x->nails[j];

			if (i >= end)
				break;
			if (w->seen[x->group_of[i]])
				nails[(*num_nails)++] = sv->send_list[i].num;
		}
		p.seen = w->seen;
	} else {
		/* no index: each entry tested, every state copied now */
		for (int i = 0; i < sv->send_count; i++) {
			const struct sv_send_item *it = &sv->send_list[i];

			if (it->num >= limit)
				break;
			if (!sv_obj_visible(&sv->objs[it->num], pvs))
				continue;
			if (it->nail) {
				if (*num_nails < SV_MAX_NAILS)
					nails[(*num_nails)++] = it->num;
			} else if (count < max) {
				state_to_ring(sv, ring, first + (uint32_t)count++, it->num);
			}
			if (count == max && *num_nails == SV_MAX_NAILS)
				break;
		}
		p.done = count;
	}
	ring->next += (uint32_t)count;

	/* the delta base: asked for, recent enough, its states still there */
	if (cl->delta_sequence >= 0) {
		struct client_frame *f = &cl->frames[cl->delta_sequence & UPDATE_MASK];
		uint32_t age = cl->chan.incoming_sequence - f->sequence;

		if (f->valid && f->delta_base &&
		    (f->sequence & 0xff) == (uint32_t)cl->delta_sequence &&
		    age < UPDATE_BACKUP - 1 && frame_intact(sv, w, f))
			from = f;
	}
	size_t mark = m->cursize;

	if (!emit_entities(sv, w, cl, m, from, first, &count, max, &p) && from) {
		/* the cut frame cannot be recorded against this base: a full
		 * update, cut where the room ends, instead */
		m->cursize = mark;
		m->overflowed = false;
		count = (int)(ring->next - first);
		emit_entities(sv, w, cl, m, NULL, first, &count, max, &p);
	}
	frame->first_state = first;
	frame->num_states = (uint16_t)count;
	frame->ring = (uint8_t)w->index;
}

/* The list of a reply, merged against the base frame `from` (or full, if
 * NULL), states [first, first + *count) of the ring.  When the datagram's
 * room runs out, the list ends there: entities below the cut are sent,
 * and the client keeps those of the base above it unchanged (it copies an
 * old frame's rest), so this frame is recorded as exactly that: the sent
 * states, then the base's rest copied after them in the ring.  False when
 * such a frame cannot be recorded (the copy would overrun the base's states
 * in the ring, or exceed the per-reply count); nothing is then final. */
enum { SV_RING_AHEAD = 6 };	/* entity states the delta's walk looks ahead */

static bool emit_entities(struct server *sv, struct sv_reply_worker *w,
			  struct client *cl, struct msg_buf *m,
			  const struct client_frame *from, uint32_t first,
			  int *count, int max, struct pull *p)
{
	enum { ENTITY_WORST = 20, END = 2 };
	struct sv_ring *ring = &w->ring;
	const struct sv_ring *base = from ? &sv->workers[from->ring].ring : NULL;
	bool wide = cl->extended;
	int newi = 0, oldi = 0, n = *count;
	int oldmax = from ? from->num_states : 0;

	if (from) {
		msg_write_byte(m, wide ? svcx_deltapacketentities : svc_deltapacketentities);
		msg_write_byte(m, cl->delta_sequence);
	} else {
		msg_write_byte(m, wide ? svcx_packetentities : svc_packetentities);
	}
	while (newi < n || oldi < oldmax) {
		if (m->cursize + ENTITY_WORST + END > m->maxsize)
			break;
		/* the base's states were written a round trip ago (cold), and
		 * the ring's slots the pull writes next are too: asked for
		 * SV_RING_AHEAD states ahead */
		if (oldi + SV_RING_AHEAD < oldmax)
			__builtin_prefetch(ring_at(base, from->first_state +
						   (uint32_t)(oldi + SV_RING_AHEAD)));
		if (newi + SV_RING_AHEAD < n)
			__builtin_prefetch(ring_at(ring, first + (uint32_t)(newi + SV_RING_AHEAD)), 1);
		if (newi < n && newi == p->done)
			pull_next(sv, p, ring, first);

		const struct entity_state *ns = newi < n ? ring_at(ring, first + (uint32_t)newi) : NULL;
		const struct entity_state *os = oldi < oldmax ? ring_at(base, from->first_state + (uint32_t)oldi) : NULL;
		int newnum = ns ? ns->number : 0x7fffffff;
		int oldnum = os ? os->number : 0x7fffffff;
		if (newnum == oldnum) {
			write_delta(os, ns, m, false, wide);
			newi++;
			oldi++;
		} else if (newnum < oldnum) {
			write_delta(&sv->baselines[newnum], ns, m, true, wide);
			newi++;
		} else {
			write_remove(m, oldnum, wide);
			oldi++;
		}
	}
	msg_write_short(m, 0);
	if (newi == n && oldi == oldmax)
		return true;

	/* cut: the frame is the sent states and the base's unsent rest */
	int tail = oldmax - oldi;
	uint32_t end = first + (uint32_t)newi + (uint32_t)tail;

	/* (in one ring the copy must not overwrite what it copies) */
	if (tail > 0 && (newi + tail > max ||
			 (base == ring &&
			  end - (from->first_state + (uint32_t)oldi) > ring->size)))
		return false;
	for (int k = 0; k < tail; k++)
		*ring_at(ring, first + (uint32_t)(newi + k)) =
			*ring_at(base, from->first_state + (uint32_t)(oldi + k));
	ring->next = end;
	*count = newi + tail;
	w->entity_cuts++;
	return true;
}

/* Spikes in QuakeWorld's compact form (id's SV_EmitNailUpdate): 6 bytes
 * each, x, y and z as (v + 4096) / 2 in 12 bits, pitch in 4 bits and yaw
 * in 8, packed low bits first. */
static void write_nails(struct server *sv, const int *nails, int n,
			struct msg_buf *m)
{
	/* as many as the datagram still holds (a spike is drawn again from
	 * the next reply) */
	if (m->cursize + 2 + 6 * (size_t)n > m->maxsize)
		n = m->cursize + 2 < m->maxsize ? (int)((m->maxsize - m->cursize - 2) / 6) : 0;
	if (n == 0)
		return;
	msg_write_byte(m, svc_nails);
	msg_write_byte(m, n);
	for (int i = 0; i < n; i++)
		sv_write_nail(sv, nails[i], m);
}

void sv_write_nail(const struct server *sv, int num, struct msg_buf *m)
{
	const struct game_entity *e = &sv->game->ents[num];
	const float *org = sv->objs[num].origin;
	int x = ((int)(org[0] + 4096)) >> 1 & 4095;
	int y = ((int)(org[1] + 4096)) >> 1 & 4095;
	int z = ((int)(org[2] + 4096)) >> 1 & 4095;
	int p = (int)(16 * e->angles[0] / 360) & 15;
	int yaw = (int)(256 * e->angles[1] / 360) & 255;

	msg_write_byte(m, x & 255);
	msg_write_byte(m, (x >> 8) | ((y << 4) & 0xf0));
	msg_write_byte(m, (y >> 4) & 255);
	msg_write_byte(m, z & 255);
	msg_write_byte(m, (z >> 8) | (p << 4));
	msg_write_byte(m, yaw);
}

/* ---- one reply -------------------------------------------------------- */

/* The fat PVS of a client's view point: kept per client and walked again
 * only when the point moved (a player standing still reuses it); each
 * client's row is written by its own reply only */
static const uint8_t *view_pvs(struct server *sv, struct sv_reply_worker *w,
			       struct client *cl, const vec3_t view)
{
	uint8_t *row;

	if (!sv->view_pvs) {
		bsp_fat_pvs(sv->map, view, w->fatpvs);
		return w->fatpvs;
	}
	row = sv->view_pvs + (size_t)cl->slot * sv->view_pvs_row;
	if (!cl->pvs_valid || !vec_equal(cl->pvs_view, view)) {
		bsp_fat_pvs(sv->map, view, row);
		vec_copy(view, cl->pvs_view);
		cl->pvs_valid = true;
	}
	return row;
}

/* Where worker w builds its next datagram: the server's send batch, or
 * in a parallel phase the worker's own batches, which are never flushed
 * by it (the commit sends them). */
static uint8_t *reply_slot(struct server *sv, struct sv_reply_worker *w,
			   size_t *max)
{
	if (!w->parallel)
		return net_send_slot(sv->tx, max);
	if (w->batches[w->batch].count == NET_BATCH)
		w->batch++;
	return net_send_slot(&w->batches[w->batch], max);
}

static void send_reply(struct server *sv, struct sv_reply_worker *w,
		       struct client *cl)
{
	uint8_t data[MAX_DATAGRAM];
	struct msg_buf m;
	struct client_frame *frame;
	uint8_t *pkt;
	size_t max, n;
	int nails[SV_MAX_NAILS], num_nails = 0;

	/* the reliable part first, the stats that changed with it: what it
	 * takes of this packet is what the unreliable part may not use
	 * (netchan would drop the whole reply) */
	if (cl->state == CS_SPAWNED)
		update_stats(sv, cl);
	/* the level reset in flight was acknowledged: the client has read
	 * it, and its frames from this reply on are ours */
	if (cl->reset_state == SV_RESET_SENT && cl->chan.reliable_length == 0)
		cl->reset_state = SV_RESET_READ;
	sv_reliable_fill(sv, cl);
	n = netchan_next_reliable(&cl->chan);
	msg_init(&m, data, sizeof(data));
	m.maxsize = n < sizeof(data) ? sizeof(data) - n : 0;
	if (cl->chokecount) {
		msg_write_byte(&m, svc_chokecount);
		msg_write_byte(&m, cl->chokecount > 255 ? 255 : (int)cl->chokecount);
		cl->chokecount = 0;
	}
	if (cl->state == CS_SPAWNED) {
		int num = game_player_entity(sv->game, cl->slot);
		const struct world_obj *o = &sv->objs[num];
		vec3_t view;

		const uint8_t *pvs;

		vec_copy(o->origin, view);
		view[2] += 22;	/* the eyes: QuakeWorld's view offset */
		pvs = view_pvs(sv, w, cl, view);
		sv_write_players(sv, cl, pvs, &m);
		write_entities(sv, w, cl, pvs, &m, nails, &num_nails);
		write_nails(sv, nails, num_nails, &m);
		/* the game's events since the last reply, if they fit */
		sv_events_take(sv, cl);
		if (!m.overflowed && m.cursize + cl->datagram_len <= m.maxsize)
			msg_write_data(&m, cl->datagram, cl->datagram_len);
	}
	/* a chunk, if it fits: paid on the download's own rate */
	size_t chunk = sv_hooks_datagram(sv, cl, &m);

	cl->datagram_len = 0;
	if (m.overflowed) {
		msg_clear(&m);	/* an unreliable part that did not fit is lost */
		chunk = 0;
	}

	frame = &cl->frames[cl->chan.outgoing_sequence & UPDATE_MASK];
	frame->sequence = cl->chan.outgoing_sequence;
	frame->senttime = sv->realtime;
	frame->sv_time = sv->time;
	frame->ping_time = -1;
	frame->valid = true;
	/* a reply that may reach the client before a level reset it has not
	 * read would be wiped by it: never a delta base */
	frame->delta_base = cl->reset_state == SV_RESET_READ;
	if (cl->state != CS_SPAWNED)
		frame->num_states = 0;

	pkt = reply_slot(sv, w, &max);
	uint32_t skipped = cl->chan.unreliable_skipped;

	n = netchan_transmit(&cl->chan, m.data, m.cursize, sv->realtime, pkt, max);
	/* a chunk that went with the reply is the download's to pay for */
	if (chunk && cl->chan.unreliable_skipped == skipped)
		netchan_refund(&cl->chan, chunk, sv->realtime);
	if (cl->chan.fatal_error) {
		if (w->parallel)
			w->drops[w->num_drops++] = cl;
		else
			sv_drop_client(sv, cl, "reliable channel overflowed");
		return;
	}
	/* the queued reset was in the message, which is now in flight */
	if (cl->reset_state == SV_RESET_QUEUED && cl->reset_backlog_end == 0 &&
	    cl->chan.message.cursize == 0)
		cl->reset_state = SV_RESET_SENT;
	cl->replies++;
	w->replies++;
	if (w->parallel) {
		struct sv_reply_done *d = &w->done[w->num_done++];

		net_send_commit(&w->batches[w->batch], &cl->chan.remote, n);
		d->slot = cl->slot;
		d->bytes = (uint32_t)n;
		d->request_ns = cl->request_ns;
		d->reply_ns = prof_now(sv->prof);
		return;
	}
	if (sv->capture)
		capture_out(sv->capture, &cl->chan.remote, pkt, n, sv->realtime);
	net_send_commit(sv->tx, &cl->chan.remote, n);
	prof_reply(sv->prof, cl->slot, n);
	prof_request_done(sv->prof, cl->request_ns, prof_now(sv->prof));
}

/* The phase's send list grouped by leaf (struct sv_send_leafs): one pass
 * over it; no allocation but the per-leaf slots when a map with more
 * leafs than any before loads (without them, or with the workers' seen
 * arrays missing, replies test every entry as before). */
static void send_leafs_build(struct server *sv)
{
	struct sv_send_leafs *x = &sv->send_leafs;
	int nleafs = sv->map ? sv->map->num_leafs : 0;

	x->ready = false;
	if (!x->group_of || !sv->workers || !sv->workers[0].seen ||
	    (x->enabled && x->enabled->value == 0))
		return;
	if (x->num_slots < nleafs) {
		int32_t *slot = calloc((size_t)nleafs, sizeof(*slot));

		if (!slot)
			return;
		free(x->slot);
		x->slot = slot;
		x->num_slots = nleafs;
	}
	x->num_groups = x->num_many = x->num_nails = 0;
	x->p28_end = sv->send_count;
	for (int i = 0; i < sv->send_count; i++) {
		const struct sv_send_item *it = &sv->send_list[i];
		int32_t leaf = sv->objs[it->num].leaf1;
		int d;

		if (it->num >= MAX_EDICTS_P28 && x->p28_end == sv->send_count)
			x->p28_end = i;
		if (it->nail)
			x->nails[x->num_nails++] = i;
		if (leaf < 0 || leaf >= x->num_slots) {
			x->group_of[i] = -1 - x->num_many;
			x->many[x->num_many++] = i;
			continue;
		}
		if (x->slot[leaf] == 0) {
			x->leafs[x->num_groups] = leaf;
			x->counts[2 * x->num_groups] = 0;
			x->counts[2 * x->num_groups + 1] = 0;
			x->slot[leaf] = ++x->num_groups;
		}
		d = x->slot[leaf] - 1;
		x->group_of[i] = d;
		if (!it->nail) {
			x->counts[2 * d]++;
			x->counts[2 * d + 1] += it->num < MAX_EDICTS_P28;
		}
	}
	/* the many after the groups in a reply's seen[] */
	for (int k = 0; k < x->num_many; k++)
		x->group_of[x->many[k]] = x->num_groups + k;
	for (int d = 0; d < x->num_groups; d++)
		x->slot[x->leafs[d]] = 0;
	x->ready = true;
}

enum { SV_SEND_AHEAD = 4 };	/* entities the send list's walk looks ahead */

/* The sanitizer build (make check) proves the game's bits on every phase:
 * a number's bit set exactly while its entity is in use. */
static void check_inuse_bits(const struct game *g, int first, int limit)
{
#ifdef QWD_SELF_CHECK
	for (int num = first; num < limit; num++) {
		bool bit = (g->inuse_bits[num >> 6] >> (num & 63)) & 1;

		if (bit != g->ents[num].inuse) {
			fprintf(stderr, "qwd: entity %d in use %d, its bit %d\n", num,
				g->ents[num].inuse, bit);
			abort();
		}
	}
#else
	(void)g;
	(void)first;
	(void)limit;
#endif
}

void sv_reply_phase(struct server *sv)
{
	const struct game *g = sv->game;

	/* stamps older than this phase are stale; after a wrap, all are */
	if (++sv->reply_stamp == 0) {
		memset(sv->frame_stamp, 0, sizeof(*sv->frame_stamp) * (size_t)sv->max_entities);
		for (int i = 0; i < sv->maxclients; i++)
			sv->entries[i].msec_stamp = 0;
		sv->stock_pings_stamp = 0;
		sv->reply_stamp = 1;
	}
	if (g->changes != sv->entry_changes) {
		sv->entry_changes = g->changes;
		if (++sv->entry_epoch == 0) {
			for (int i = 0; i < sv->maxclients; i++) {
				sv->entries[i].valid = false;
				sv->seen[i].epoch = 0;
			}
			sv->entry_epoch = 1;
		}
	}
	/* the map's and run-time entities: players travel in svc_playerinfo,
	 * and the extension's player slots sit from g->top up */
	int limit = g->num_entities < g->top ? g->num_entities : g->top;

	/* the numbers in use first, from the game's bits (a third of the
	 * numbers below the high-water mark in a crowd's fight: the rest
	 * are never read), into the send list's slots, which the walk
	 * below then keeps in place (it writes at most where it read) */
	int n = 0, first = MAX_CLIENTS + 1;

	for (int w = first >> 6; w <= (limit - 1) >> 6 && limit > first; w++) {
		uint64_t bits = g->inuse_bits[w];

		if (w == first >> 6)
			bits &= ~0ull << (first & 63);
		if (w == (limit - 1) >> 6 && (limit & 63))
			bits &= ~(~0ull << (limit & 63));
		while (bits) {
			sv->send_list[n++].num = (w << 6) + __builtin_ctzll(bits);
			bits &= bits - 1;
		}
	}
	check_inuse_bits(g, first, limit);
	sv->send_count = 0;
	for (int i = 0; i < n; i++) {
		int num = sv->send_list[i].num;
		const struct game_entity *e = &g->ents[num];
		struct sv_send_item *it;

		/* every entity's first line (game.h) read, a page apart
		 * every eight: asked for ahead */
		if (i + SV_SEND_AHEAD < n)
			__builtin_prefetch(&g->ents[sv->send_list[i + SV_SEND_AHEAD].num].inuse);
		if (!sv_entity_sendable(e))
			continue;
		it = &sv->send_list[sv->send_count++];
		it->num = num;
		it->nail = e->nail;
	}
	send_leafs_build(sv);
}

/* the counters the workers kept into the server's figures */
static void fold_counts(struct server *sv, struct sv_reply_worker *w)
{
	sv->stats.replies += w->replies;
	sv->stats.entity_cuts += w->entity_cuts;
	w->replies = w->entity_cuts = 0;
}

/* every 2 s, the scoreboard's pings and loss to stock clients (an
 * extension client asks with "pings": to a thousand players the
 * broadcast would be a million messages); true when this phase sends
 * them */
static bool pings_due(struct server *sv)
{
	bool pings = sv->realtime - sv->last_pings > 2.0;

	if (pings)
		sv->last_pings = sv->realtime;
	return pings;
}

/* A client's turn in the reply phase before its reply: dropped when its
 * backlog overflowed, the scoreboard's pings, its rate; true when a reply
 * is to be built for it now. */
static inline __attribute__((always_inline)) bool
reply_due(struct server *sv, struct client *cl, bool pings)
{
	if (cl->state < CS_CONNECTED)
		return false;
	if (cl->backlog_overflowed) {
		sv_drop_client(sv, cl, "too much reliable data queued");
		return false;
	}
	/* the scoreboard's pings wait for a drained backlog (the next ones
	 * come 2 s later) */
	if (pings && cl->state == CS_SPAWNED && !cl->extended &&
	    cl->backlog_len == 0)
		sv_send_stock_pings(sv, cl);
	if (!cl->send_reply)
		return false;
	cl->send_reply = false;
	/* the rate: a spawned client's reply may be choked (and said so in
	 * the next one), and so may a stock download (a block per reply);
	 * the rest of the signon always goes, a chunked download's too (its
	 * chunks are paced in transfer.c) */
	if ((cl->state == CS_SPAWNED ||
	     cl->transfer_open) &&
	    !netchan_can_packet(&cl->chan, sv->realtime)) {
		cl->chokecount++;
		sv->stats.chokes++;
		return false;
	}
	return true;
}

/* The turn after `from` that next_turn would give, left in place. */
static int peek_turn(const struct server *sv, int from, bool all)
{
	int words = (sv->maxclients + 63) / 64;

	if (all)
		return from < sv->maxclients ? from : -1;
	for (int k = from >> 6; k < words; k++) {
		uint64_t bits = sv->reply_due[k];

		if (k == from >> 6)
			bits &= ~0ull << (from & 63);
		if (bits)
			return k * 64 + __builtin_ctzll(bits);
	}
	return -1;
}

/* The next slot from `from` on whose turn has work (its reply_due bit,
 * taken off as it is found), or -1.  A turn that marks a later slot
 * (a broadcast overflowing a backlog) is seen in this phase, as a walk
 * of every slot would see it.  When the pings are due every slot has a
 * turn: the bits are cleared and every slot is given. */
static int next_turn(struct server *sv, int from, bool all)
{
	int t = peek_turn(sv, from, all);

	if (all) {
		if (from == 0)
			memset(sv->reply_due, 0, sizeof(*sv->reply_due) *
			       (size_t)((sv->maxclients + 63) / 64));
	} else if (t >= 0) {
		sv->reply_due[t >> 6] &= ~(1ull << (t & 63));
	}
	return t;
}

/* What the turn of client j reads first, asked of memory while the turn
 * before it works (a reply is thousands of instructions: one turn ahead
 * is enough): its state, channel head and reply fields, its stats, the
 * start of its events, its player's object (the view) and entry. */
static void turn_prefetch(const struct server *sv, int j)
{
	const struct client *cl = &sv->clients[j];

	__builtin_prefetch(&cl->state);
	__builtin_prefetch(&cl->chan.reliable_length);
	__builtin_prefetch(&cl->datagram_len);
	__builtin_prefetch(&cl->send_reply);
	__builtin_prefetch(&cl->stats[0]);
	__builtin_prefetch(&cl->sent_stats[0]);
	__builtin_prefetch(cl->datagram);
	if (sv->game) {
		const struct world_obj *o = &sv->objs[game_player_entity(sv->game, j)];

		__builtin_prefetch((const char *)o + 64);	/* origin */
		__builtin_prefetch(&sv->entries[j]);
	}
}

static void send_replies_sequential(struct server *sv)
{
	struct sv_reply_worker *w = &sv->workers[0];

	sv_reply_phase(sv);
	bool pings = pings_due(sv);

	for (int i = next_turn(sv, 0, pings); i >= 0; i = next_turn(sv, i + 1, pings)) {
		int after = peek_turn(sv, i + 1, pings);

		if (after >= 0)
			turn_prefetch(sv, after);
		if (reply_due(sv, &sv->clients[i], pings))
			send_reply(sv, w, &sv->clients[i]);
	}
	fold_counts(sv, w);
	sv_hooks_replies_sent(sv);	/* chunks out of band, after the replies */
	net_send_flush(sv->tx);
}

/* ---- the parallel reply phase (docs/parallel.md) ---------------------- */

/* Items a worker takes at once from the phase's shared counters: a few
 * replies (a few microseconds each), so the last ones spread over the
 * workers; many cache fills (a fraction of a microsecond each). */
enum { REPLY_CHUNK = 8, PREFILL_CHUNK = 256 };

/* The phase's caches that replies fill on first use in the sequential
 * frame, filled before the workers only read them: the wire state of
 * every entity a reply may carry, the entry of every player in the game. */
static void prefill_item(void *ctx, int worker, int item)
{
	struct server *sv = ctx;

	(void)worker;
	if (item < sv->send_count) {
		int num = sv->send_list[item].num;

		sv_entity_state(sv, num, &sv->frame_states[num]);
		sv->frame_stamp[num] = sv->reply_stamp;
		return;
	}
	item -= sv->send_count;
	sv_player_seen_refresh(sv, item);
	if (sv->clients[item].state == CS_SPAWNED)
		sv_player_entry_refresh(sv, item);
}

static void reply_item(void *ctx, int worker, int item)
{
	struct server *sv = ctx;

	send_reply(sv, &sv->workers[worker], &sv->clients[sv->reply_list[item]]);
}

/* a worker's sending figures into the server's (the receiving ones are
 * the coordinator's alone) */
static void net_stats_fold(struct net_stats *to, struct net_stats *from)
{
	to->packets_out += from->packets_out;
	to->bytes_out += from->bytes_out;
	to->send_errors += from->send_errors;
	to->send_calls += from->send_calls;
	memset(from, 0, sizeof(*from));
}

/* One worker's datagrams out, in the order it built them: captured
 * first when a capture runs (the coordinator's, in worker order), else
 * by whichever thread of the pool takes the item (flush_item).  Only the
 * worker's own batches and figures are written. */
static void commit_flush(struct server *sv, struct sv_reply_worker *w)
{
	for (int b = 0; b <= w->batch; b++) {
		struct net_send_batch *batch = &w->batches[b];

		for (size_t i = 0; sv->capture && i < batch->count; i++) {
			struct net_addr to;

			net_addr_from_sockaddr(&batch->name[i], &to);
			capture_out(sv->capture, &to, batch->buf[i], batch->len[i],
				    sv->realtime);
		}
		net_send_flush(batch);
	}
}

static void flush_item(void *ctx, int worker, int item)
{
	struct server *sv = ctx;

	(void)worker;
	commit_flush(sv, &sv->workers[item]);
}

/* The rest of a worker's commit, on the coordinator in worker order:
 * its figures into the server's and the profiler's. */
static void commit_settle(struct server *sv, struct sv_reply_worker *w)
{
	net_stats_fold(&sv->net, &w->net);
	for (int i = 0; i < w->num_done; i++) {
		const struct sv_reply_done *d = &w->done[i];

		prof_reply(sv->prof, d->slot, d->bytes);
		prof_request_done(sv->prof, d->request_ns, d->reply_ns);
	}
	fold_counts(sv, w);
	w->ring.reach = w->ring.next;
	w->parallel = false;
}

/* SCHEDULE, the workers, COMMIT (docs/parallel.md, "Threads and the
 * REPLY phase", says why each piece is where it is). */
static void send_replies_parallel(struct server *sv)
{
	int n = 0, later = sv->maxclients;

	sv_reply_phase(sv);
	bool pings = pings_due(sv);

	/* the turns in slot order, on this thread; a reply that may carry a
	 * download chunk (disk, the server's download figures) is built
	 * here after the workers', the others by them.  The list holds the
	 * workers' slots from its start, the later ones from its end. */
	for (int i = next_turn(sv, 0, pings); i >= 0; i = next_turn(sv, i + 1, pings)) {
		struct client *cl = &sv->clients[i];

		if (!reply_due(sv, cl, pings))
			continue;
		if (cl->transfer_pending)
			sv->reply_list[--later] = i;
		else
			sv->reply_list[n++] = i;
	}
	uint64_t t0 = prof_now(sv->prof);

	pool_run_shared(sv->pool, prefill_item, sv, sv->send_count + sv->maxclients,
			PREFILL_CHUNK);
	sv_hooks_pool_ran(sv, prof_now(sv->prof) - t0);

	/* how far each ring may get: a reply writes at most its client's
	 * entity count of states, and any worker may build any reply */
	uint32_t bound = 0;

	for (int i = 0; i < n; i++) {
		const struct client *cl = &sv->clients[sv->reply_list[i]];

		if (cl->state == CS_SPAWNED)
			bound += cl->extended ? QWDX_MAX_PACKET_ENTITIES : MAX_PACKET_ENTITIES;
	}
	for (int k = 0; k < sv->threads; k++) {
		struct sv_reply_worker *w = &sv->workers[k];

		w->ring.reach = w->ring.next + bound;
		w->parallel = true;
		w->batch = 0;
		w->num_done = w->num_drops = 0;
	}
	t0 = prof_now(sv->prof);
	pool_run_shared(sv->pool, reply_item, sv, n, REPLY_CHUNK);
	sv_hooks_pool_ran(sv, prof_now(sv->prof) - t0);

	/* COMMIT: what the frame queued before the replies goes first; then
	 * the workers' datagrams, each worker's by one thread (the sends are
	 * most of a reply's kernel time: not one thread's alone), or all on
	 * this one in worker order when they are captured */
	net_send_flush(sv->tx);
	if (sv->capture) {
		for (int k = 0; k < sv->threads; k++)
			commit_flush(sv, &sv->workers[k]);
	} else {
		t0 = prof_now(sv->prof);
		pool_run_shared(sv->pool, flush_item, sv, sv->threads, 1);
		sv_hooks_pool_ran(sv, prof_now(sv->prof) - t0);
	}
	for (int k = 0; k < sv->threads; k++)
		commit_settle(sv, &sv->workers[k]);
	for (int k = 0; k < sv->threads; k++)
		for (int i = 0; i < sv->workers[k].num_drops; i++)
			sv_drop_client(sv, sv->workers[k].drops[i],
				       "reliable channel overflowed");
	for (int i = sv->maxclients - 1; i >= later; i--)
		send_reply(sv, &sv->workers[0], &sv->clients[sv->reply_list[i]]);
	fold_counts(sv, &sv->workers[0]);
	sv_hooks_replies_sent(sv);	/* chunks out of band, after the replies */
	net_send_flush(sv->tx);
}

void sv_send_replies(struct server *sv)
{
	if (sv->threads > 1)
		send_replies_parallel(sv);
	else
		send_replies_sequential(sv);
}

/* ---- the workers' memory ---------------------------------------------- */

int sv_threads_max(int max)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	if (max <= 0)
		max = online > 0 ? (int)(online < POOL_MAX_THREADS ? online : POOL_MAX_THREADS) : 1;
	return max < POOL_MAX_THREADS ? max : POOL_MAX_THREADS;
}

int sv_reply_workers_init(struct server *sv, int threads, const int *cpus,
			  int num_cpus)
{
	/* reply states: about 1.5 s of full replies at 30 Hz for everyone,
	 * at least 64 frames of 64 entities, in each ring */
	uint32_t size = 1u << 16;
	char err[256];

	if (threads < 1)
		threads = 1;
	if (threads > POOL_MAX_THREADS) {
		qwd_logf(&sv->log, QWD_LOG_ERROR, "threads: at most %d", POOL_MAX_THREADS);
		return -1;
	}
	while (size < (uint32_t)sv->maxclients * 64 * 8 && size < (1u << 22))
		size <<= 1;
	sv->workers = aligned_alloc(_Alignof(struct sv_reply_worker),
				    (size_t)threads * sizeof(*sv->workers));
	if (!sv->workers)
		goto oom;
	memset(sv->workers, 0, (size_t)threads * sizeof(*sv->workers));
	sv->threads = threads;
	{
		struct sv_send_leafs *x = &sv->send_leafs;
		size_t n = (size_t)sv->max_entities + 1;

		x->leafs = calloc(n, sizeof(*x->leafs));
		x->group_of = calloc(n, sizeof(*x->group_of));
		x->many = calloc(n, sizeof(*x->many));
		x->nails = calloc(n, sizeof(*x->nails));
		x->counts = calloc(2 * n, sizeof(*x->counts));
		if (!x->leafs || !x->group_of || !x->many || !x->nails ||
		    !x->counts)
			goto oom;
		x->enabled = cvar_register(sv, "sv_send_leafs", "1", 0,
					   "replies find their entities by "
					   "leaf (1) or test every one (0): "
					   "the same replies");
	}
	if (threads > 1) {
		sv->reply_list = calloc((size_t)sv->maxclients, sizeof(*sv->reply_list));
		if (!sv->reply_list)
			goto oom;
	}
	for (int k = 0; k < threads; k++) {
		struct sv_reply_worker *w = &sv->workers[k];
		/* a worker may build every reply of a phase */
		int most = sv->maxclients;

		w->index = k;
		w->ring.size = size;
		w->ring.states = qwd_table_alloc(size * sizeof(*w->ring.states));
		w->fatpvs = calloc(1, (size_t)(BSP_MAX_MAP_LEAFS / 8));
		w->seen = calloc((size_t)sv->max_entities + 1, sizeof(*w->seen));
		if (!w->ring.states || !w->fatpvs || !w->seen)
			goto oom;
		if (threads == 1)
			continue;
		w->num_batches = (most + NET_BATCH - 1) / NET_BATCH;
		w->batches = calloc((size_t)w->num_batches, sizeof(*w->batches));
		w->done = calloc((size_t)most, sizeof(*w->done));
		w->drops = calloc((size_t)most, sizeof(*w->drops));
		if (!w->batches || !w->done || !w->drops)
			goto oom;
		for (int b = 0; b < w->num_batches; b++) {
			if (sv->link)
				net_send_init_mem(&w->batches[b], sv->link->out, &w->net);
			else
				net_send_init(&w->batches[b], sv->sock, &w->net);
		}
	}
	if (threads > 1 || (cpus && num_cpus > 0)) {
		sv->pool = pool_create(threads, cpus, num_cpus, err, sizeof(err));
		if (!sv->pool) {
			qwd_logf(&sv->log, QWD_LOG_ERROR, "%s", err);
			return -1;
		}
	}
	return 0;
oom:
	qwd_logf(&sv->log, QWD_LOG_ERROR, "out of memory for %d reply workers", threads);
	return -1;
}

void sv_reply_workers_free(struct server *sv)
{
	pool_destroy(sv->pool);
	sv->pool = NULL;
	for (int k = 0; sv->workers && k < sv->threads; k++) {
		struct sv_reply_worker *w = &sv->workers[k];

		qwd_table_free(w->ring.states, w->ring.size * sizeof(*w->ring.states));
		free(w->fatpvs);
		free(w->seen);
		free(w->batches);
		free(w->done);
		free(w->drops);
	}
	free(sv->workers);
	sv->workers = NULL;
	free(sv->send_leafs.leafs);
	free(sv->send_leafs.group_of);
	free(sv->send_leafs.many);
	free(sv->send_leafs.nails);
	free(sv->send_leafs.counts);
	free(sv->send_leafs.slot);
	sv->send_leafs = (struct sv_send_leafs){.enabled = sv->send_leafs.enabled};
	free(sv->reply_list);
	sv->reply_list = NULL;
	sv->threads = 0;
}

void sv_rings_forget(struct server *sv)
{
	for (int k = 0; k < sv->threads; k++) {
		struct sv_ring *r = &sv->workers[k].ring;

		r->next += r->size;
		r->reach = r->next;
	}
}

/* ---- the stock entity layout, for the demo writer (mvdframe.c) ------ */

void sv_write_entity_delta(const struct entity_state *from,
			   const struct entity_state *to, struct msg_buf *m,
			   bool force)
{
	write_delta(from, to, m, force, false);
}

void sv_write_entity_remove(struct msg_buf *m, int number)
{
	write_remove(m, number, false);
}
