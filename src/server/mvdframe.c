/*
 * mvdframe.c -- what a demo holds: the gamestate a destination gets when
 * it joins, and the state each demo frame carries (the records, the
 * destinations and the events are mvd.c's; the shared state is
 * mvdwriter.h).
 *
 * Design note
 *   What goes in, MVDSV's layout (the events are mvd.c's, sv_mvd_message;
 *   the rest is built here):
 *     events     as the game makes them (sv_mvd_message from the
 *                services and the broadcasts): sounds, temporary
 *                entities, prints, centre prints, damage, kicks, the
 *                intermission, to everyone (MVD_ALL) or one player's view
 *                (MVD_SINGLE); consecutive messages for the same target
 *                share a record
 *     a frame    at most sv_demofps a second with players in the game
 *                (sv_demoIdlefps without), after the replies: changes of
 *                client infos, frags, light styles and serverinfo (found
 *                every 4th frame by comparing with what the demo last
 *                got, so no change is missed whatever made it), pings
 *                every sv_demopings seconds, each player's stats as its
 *                last reply carried them (MVD_STATS), then every
 *                player in the game in the demo form of svc_playerinfo
 *                (a delta against its last entry) and every entity with a
 *                model, without regard to anybody's view, delta-compressed
 *                against the frame before (svc_deltapacketentities), and
 *                the spikes (svc_nails2)
 *     paused     (pause.c) the changes and pings alone, in 0 ms frames
 *                (mvd.c): no player or entity moves
 *   Everything is compared with the copy in struct sv_mvd of what the
 *   demo last got, so a frame carries only changes, unless m->full (a
 *   destination joined, or a list did not fit) asks for everything.  A
 *   frame's state is built in a buffer on the stack and appended to the
 *   frame's records; only a gamestate, once per joining destination,
 *   allocates its writer.
 */
#include "demo.h"
#include "mvdwriter.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

/* ---- the gamestate ---------------------------------------------------- */

/* messages into records of at most MVD_MAX_RECORD for one destination */
struct gs_writer {
	struct server *sv;
	struct mvd_dest *d;
	uint8_t buf[MVD_MAX_RECORD];
	struct msg_buf m;
};

static void gs_flush(struct gs_writer *w)
{
	sv_mvd_dest_record(w->d, MVD_ALL, 0, w->m.data, w->m.cursize, w->sv->realtime);
	msg_clear(&w->m);
}

/* make room for a message of up to len bytes */
static struct msg_buf *gs_room(struct gs_writer *w, size_t len)
{
	if (w->m.cursize + len > MAX_MSGLEN / 2 * 3)
		gs_flush(w);
	return &w->m;
}

static void write_serverdata(struct server *sv, struct msg_buf *b, double time)
{
	const struct pmove_vars *mv = &sv->movevars;
	char line[MAX_SERVERINFO_STRING + 32];

	msg_write_byte(b, svc_serverdata);
	msg_write_long(b, (int32_t)MVD_MAGIC_MVD1);
	msg_write_long(b, (int32_t)MVD_PEXT1_HIDDEN_MESSAGES);
	msg_write_long(b, PROTOCOL_VERSION);
	msg_write_long(b, sv->spawncount);
	msg_write_string(b, sv->gamedir);
	msg_write_float(b, (float)time);
	msg_write_string(b, sv->levelname);
	msg_write_float(b, mv->gravity);
	msg_write_float(b, mv->stopspeed);
	msg_write_float(b, mv->maxspeed);
	msg_write_float(b, mv->spectatormaxspeed);
	msg_write_float(b, mv->accelerate);
	msg_write_float(b, mv->airaccelerate);
	msg_write_float(b, mv->wateraccelerate);
	msg_write_float(b, mv->friction);
	msg_write_float(b, mv->waterfriction);
	msg_write_float(b, mv->entgravity);
	msg_write_byte(b, svc_cdtrack);
	msg_write_byte(b, 0);
	msg_write_byte(b, svc_stufftext);
	snprintf(line, sizeof(line), "fullserverinfo \"%s\"\n", sv->serverinfo);
	msg_write_string(b, line);
}

int sv_mvd_stock_slots(const struct server *sv)
{
	return sv->maxclients < MVD_PLAYERS ? sv->maxclients : MVD_PLAYERS;
}

/* a slot's client info as the demo carries it, and the copy it compares
 * against from then on */
static void write_info(struct server *sv, int slot, struct msg_buf *b)
{
	struct client *c = &sv->clients[slot];
	struct mvd_slot *s = &sv->mvd->slots[slot];

	sv_write_client_info(sv, NULL, c, b);
	s->present = c->state >= CS_CONNECTED;
	s->userid = c->userid;
	s->frags = c->frags;
	memcpy(s->userinfo, c->userinfo, sizeof(s->userinfo));
}

void sv_mvd_gamestate(struct server *sv, struct mvd_dest *d)
{
	struct sv_mvd *m = sv->mvd;
	struct gs_writer *w = malloc(sizeof(*w));
	int next;

	/* once per joining destination, not per frame: the buffer is bigger
	 * than a frame's stack should be */
	if (!w) {
		sv_mvd_dest_fail(d, "out of memory");
		return;
	}
	w->sv = sv;
	w->d = d;
	msg_init(&w->m, w->buf, sizeof(w->buf));
	write_serverdata(sv, &w->m, m->prevtime);
	gs_flush(w);
	for (int models = 0; models < 2; models++) {
		next = 0;
		do {
			next = sv_write_list_page(sv, models, next, gs_room(w, MAX_MSGLEN));
		} while (next);
		gs_flush(w);
	}
	/* baselines, statics, static sounds */
	for (int n = 0; n < sv->num_signon; n++)
		msg_write_data(gs_room(w, sv->signon_len[n]), sv->signon[n],
			       sv->signon_len[n]);
	{
		char line[64];

		snprintf(line, sizeof(line), "cmd spawn %d 0\n", sv->spawncount);
		msg_write_byte(gs_room(w, 64), svc_stufftext);
		msg_write_string(&w->m, line);
	}
	gs_flush(w);
	for (int i = 0; i < sv_mvd_stock_slots(sv); i++)
		write_info(sv, i, gs_room(w, MAX_INFO_STRING + 64));
	gs_flush(w);
	for (int i = 0; i < MAX_LIGHTSTYLES; i++) {
		struct msg_buf *b = gs_room(w, MAX_STYLESTRING + 4);

		msg_write_byte(b, svc_lightstyle);
		msg_write_byte(b, i);
		msg_write_string(b, sv->lightstyles[i]);
		strlcpy(m->lightstyles[i], sv->lightstyles[i], sizeof(m->lightstyles[i]));
	}
	if (sv->paused) {	/* a viewer joining a pause sees it paused */
		msg_write_byte(gs_room(w, 2), svc_setpause);
		msg_write_byte(&w->m, 1);
	}
	msg_write_byte(gs_room(w, 8), svc_stufftext);
	msg_write_string(&w->m, "skins\n");
	gs_flush(w);
	memcpy(m->serverinfo, sv->serverinfo, sizeof(m->serverinfo));
	free(w);
	d->gamestate = false;
	m->full = true;
}

/* ---- the frame -------------------------------------------------------- */

/* client infos, frags, light styles and serverinfo that changed since the
 * demo last got them */
void sv_mvd_write_changes(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;
	uint8_t buf[MAX_INFO_STRING + 128];
	struct msg_buf b;

	for (int i = 0; i < sv_mvd_stock_slots(sv); i++) {
		const struct client *c = &sv->clients[i];
		struct mvd_slot *s = &m->slots[i];
		bool present = c->state >= CS_CONNECTED;

		msg_init(&b, buf, sizeof(buf));
		if (present != s->present ||
		    (present && (c->userid != s->userid ||
				 strcmp(c->userinfo, s->userinfo) != 0))) {
			write_info(sv, i, &b);
		} else if (present && c->frags != s->frags) {
			msg_write_byte(&b, svc_updatefrags);
			msg_write_byte(&b, i);
			msg_write_short(&b, c->frags);
			s->frags = c->frags;
		}
		if (b.cursize)
			sv_mvd_frame_add(m, MVD_ALL, 0, b.data, b.cursize, MVD_FRAME_BUF);
	}
	for (int i = 0; i < MAX_LIGHTSTYLES; i++) {
		if (strcmp(m->lightstyles[i], sv->lightstyles[i]) == 0)
			continue;
		strlcpy(m->lightstyles[i], sv->lightstyles[i], sizeof(m->lightstyles[i]));
		msg_init(&b, buf, sizeof(buf));
		msg_write_byte(&b, svc_lightstyle);
		msg_write_byte(&b, i);
		msg_write_string(&b, m->lightstyles[i]);
		sv_mvd_frame_add(m, MVD_ALL, 0, b.data, b.cursize, MVD_FRAME_BUF);
	}
	if (strcmp(m->serverinfo, sv->serverinfo) != 0) {
		struct info_iter it;
		struct info_pair p;
		char key[64], was[256], now[256];

		info_iter_init(&it, sv->serverinfo);
		while (info_iter_next(&it, &p)) {
			if (p.key_len >= sizeof(key) || p.value_len >= sizeof(now))
				continue;
			memcpy(key, p.key, p.key_len);
			key[p.key_len] = '\0';
			memcpy(now, p.value, p.value_len);
			now[p.value_len] = '\0';
			if (info_value_for_key(m->serverinfo, key, was, sizeof(was)) &&
			    strcmp(was, now) == 0)
				continue;
			msg_init(&b, buf, sizeof(buf));
			msg_write_byte(&b, svc_serverinfo);
			msg_write_string(&b, key);
			msg_write_string(&b, now);
			sv_mvd_frame_add(m, MVD_ALL, 0, b.data, b.cursize, MVD_FRAME_BUF);
		}
		memcpy(m->serverinfo, sv->serverinfo, sizeof(m->serverinfo));
	}
}

static void write_pings(struct server *sv)
{
	uint8_t buf[MVD_PLAYERS * 7];
	struct msg_buf b;

	msg_init(&b, buf, sizeof(buf));
	for (int i = 0; i < sv_mvd_stock_slots(sv); i++) {
		const struct client *c = &sv->clients[i];

		if (c->state != CS_SPAWNED)
			continue;
		msg_write_byte(&b, svc_updateping);
		msg_write_byte(&b, i);
		msg_write_short(&b, sv_client_ping(c));
		msg_write_byte(&b, svc_updatepl);
		msg_write_byte(&b, i);
		msg_write_byte(&b, c->lossage);
	}
	if (b.cursize)
		sv_mvd_frame_add(sv->mvd, MVD_ALL, 0, b.data, b.cursize, MVD_FRAME_BUF);
}

bool sv_mvd_in_demo(const struct client *c)
{
	return c->state == CS_SPAWNED && !c->spectator;
}

/* each player's stats as its last reply carried them (send.c makes them
 * for every reply: the same numbers, not made again) */
static void write_stats(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;

	for (int i = 0; i < sv_mvd_stock_slots(sv); i++) {
		struct mvd_slot *s = &m->slots[i];
		const int32_t *stats = sv->clients[i].stats;
		uint8_t buf[MAX_CL_STATS * 6];
		struct msg_buf b;

		if (!sv_mvd_in_demo(&sv->clients[i])) {
			s->stats_sent = false;
			continue;
		}
		/* most frames change no stat of most players */
		if (s->stats_sent && !m->full && memcmp(stats, s->stats, sizeof(s->stats)) == 0)
			continue;
		msg_init(&b, buf, sizeof(buf));
		for (int k = 0; k < MAX_CL_STATS; k++) {
			if (s->stats_sent && !m->full && stats[k] == s->stats[k])
				continue;
			if (stats[k] >= 0 && stats[k] <= 255) {
				msg_write_byte(&b, svc_updatestat);
				msg_write_byte(&b, k);
				msg_write_byte(&b, stats[k]);
			} else {
				msg_write_byte(&b, svc_updatestatlong);
				msg_write_byte(&b, k);
				msg_write_long(&b, stats[k]);
			}
			s->stats[k] = stats[k];
		}
		s->stats_sent = true;
		if (b.cursize)
			sv_mvd_frame_add(m, MVD_STATS, i, b.data, b.cursize, MVD_FRAME_BUF);
	}
}

static int16_t quantise(float v, float scale)
{
	long q = lrintf(v * scale);

	return (int16_t)(q > 32767 ? 32767 : q < -32768 ? -32768 : q);
}

/* svc_playerinfo in the demo form: what changed since the last entry */
static void write_player(struct server *sv, int i, struct msg_buf *b)
{
	struct sv_mvd *m = sv->mvd;
	struct mvd_slot *s = &m->slots[i];
	const struct game *g = sv->game;
	int num = game_player_entity(g, i);
	const struct game_entity *e = &g->ents[num];
	const struct game_client *gc = &g->clients[i];
	struct mvd_slot now;
	int flags = 0;

	for (int k = 0; k < 3; k++)
		now.origin[k] = quantise(sv->objs[num].origin[k], 8.0f);
	if (e->health <= 0) {
		/* a corpse does not look around */
		now.angles[0] = 0;
		now.angles[1] = quantise(e->angles[1], 65536.0f / 360.0f);
	} else {
		now.angles[0] = quantise(gc->v_angle[0], 65536.0f / 360.0f);
		now.angles[1] = quantise(gc->v_angle[1], 65536.0f / 360.0f);
	}
	now.angles[2] = 0;
	now.frame = (uint8_t)e->frame;
	now.model = (uint8_t)e->modelindex;
	now.skin = (uint8_t)e->skin;
	now.effects = (uint8_t)e->effects;
	now.weaponframe = (uint8_t)gc->weaponframe;

	bool all = m->full || !s->shown;

	for (int k = 0; k < 3; k++) {
		if (all || now.origin[k] != s->origin[k])
			flags |= MVD_DF_ORIGIN << k;
		if (all || now.angles[k] != s->angles[k])
			flags |= MVD_DF_ANGLES << k;
	}
	if (all || now.model != s->model)
		flags |= MVD_DF_MODEL;
	if (all || now.skin != s->skin)
		flags |= MVD_DF_SKINNUM;
	if (all || now.effects != s->effects)
		flags |= MVD_DF_EFFECTS;
	if (all || now.weaponframe != s->weaponframe)
		flags |= MVD_DF_WEAPONFRAME;
	if (e->health <= 0)
		flags |= MVD_DF_DEAD;
	if (e->modelindex && e->modelindex == g->m_h_player)
		flags |= MVD_DF_GIB;

	msg_write_byte(b, svc_playerinfo);
	msg_write_byte(b, i);
	msg_write_short(b, flags);
	msg_write_byte(b, now.frame);
	for (int k = 0; k < 3; k++)
		if (flags & (MVD_DF_ORIGIN << k))
			msg_write_short(b, now.origin[k]);
	for (int k = 0; k < 3; k++)
		if (flags & (MVD_DF_ANGLES << k))
			msg_write_short(b, now.angles[k]);
	if (flags & MVD_DF_MODEL)
		msg_write_byte(b, now.model);
	if (flags & MVD_DF_SKINNUM)
		msg_write_byte(b, now.skin);
	if (flags & MVD_DF_EFFECTS)
		msg_write_byte(b, now.effects);
	if (flags & MVD_DF_WEAPONFRAME)
		msg_write_byte(b, now.weaponframe);
	memcpy(s->origin, now.origin, sizeof(s->origin));
	memcpy(s->angles, now.angles, sizeof(s->angles));
	s->frame = now.frame;
	s->model = now.model;
	s->skin = now.skin;
	s->effects = now.effects;
	s->weaponframe = now.weaponframe;
	s->shown = true;
}

/* Every entity with a model (players travel as playerinfo), against the
 * last frame's list; the spikes apart. */
static void write_entities(struct server *sv, struct msg_buf *b)
{
	struct sv_mvd *m = sv->mvd;
	const struct game *g = sv->game;
	int limit = g->num_entities < g->top ? g->num_entities : g->top;
	struct entity_state *to = m->ents[!m->cur];
	const struct entity_state *from = m->ents[m->cur];
	int n = 0, oldn = m->have_base && !m->full ? m->nents[m->cur] : 0;
	int nails[SV_MAX_NAILS], num_nails = 0;
	bool delta = m->have_base && !m->full;

	if (limit > MAX_EDICTS_P28)
		limit = MAX_EDICTS_P28;
	for (int num = MAX_CLIENTS + 1; num < limit; num++) {
		const struct game_entity *e = &g->ents[num];

		if (!sv_entity_sendable(e))
			continue;
		if (e->nail) {
			if (num_nails < SV_MAX_NAILS)
				nails[num_nails++] = num;
			continue;
		}
		if (n == MVD_MAX_PACKET_ENTITIES) {
			m->entity_cuts++;
			continue;
		}
		/* the replies of this frame may have made it already */
		if (sv->frame_stamp[num] == sv->reply_stamp)
			to[n] = sv->frame_states[num];
		else
			sv_entity_state(sv, num, &to[n]);
		n++;
	}
	if (delta) {
		msg_write_byte(b, svc_deltapacketentities);
		msg_write_byte(b, (int)(m->sequence & 255));
	} else {
		msg_write_byte(b, svc_packetentities);
	}
	for (int newi = 0, oldi = 0; newi < n || oldi < oldn;) {
		int newnum = newi < n ? to[newi].number : 0x7fffffff;
		int oldnum = oldi < oldn ? from[oldi].number : 0x7fffffff;

		if (newnum == oldnum) {
			sv_write_entity_delta(&from[oldi++], &to[newi++], b, false);
		} else if (newnum < oldnum) {
			sv_write_entity_delta(&sv->baselines[newnum], &to[newi++], b, true);
		} else {
			sv_write_entity_remove(b, oldnum);
			oldi++;
		}
	}
	msg_write_short(b, 0);
	if (num_nails) {
		msg_write_byte(b, svc_nails2);
		msg_write_byte(b, num_nails);
		for (int i = 0; i < num_nails; i++) {
			msg_write_byte(b, nails[i] & 255);
			sv_write_nail(sv, nails[i], b);
		}
	}
	m->cur = !m->cur;
	m->nents[m->cur] = n;
	m->have_base = true;
}

static void pings_when_due(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;

	if (sv->realtime - m->last_pings >= m->pings->value && m->pings->value > 0) {
		write_pings(sv);
		m->last_pings = sv->realtime;
	}
}

/* a paused frame: nothing moves, so only what changes without the world
 * (names, frags, pings) */
void sv_mvd_write_paused(struct server *sv)
{
	sv_mvd_write_changes(sv);
	pings_when_due(sv);
}

/* the frame's state, its records appended after the events */
void sv_mvd_write_state(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;
	uint8_t buf[MVD_MAX_RECORD];
	struct msg_buf b;

	/* a name, frags or a light style a few frames late is no loss; the
	 * comparisons are most of a frame's cost otherwise */
	if (m->full || (m->sequence & (MVD_CHANGES_EVERY - 1)) == 0)
		sv_mvd_write_changes(sv);
	pings_when_due(sv);
	write_stats(sv);
	msg_init(&b, buf, sizeof(buf));
	for (int i = 0; i < sv_mvd_stock_slots(sv); i++) {
		if (sv_mvd_in_demo(&sv->clients[i]))
			write_player(sv, i, &b);
		else
			m->slots[i].shown = false;
	}
	/* 32 players and 300 entities take well under a record; a list that
	 * did not fit all the same is not sent, and the next frame is full */
	size_t players = b.cursize;

	write_entities(sv, &b);
	if (b.overflowed) {
		b.overflowed = false;
		b.cursize = players;
		m->have_base = false;
	}
	sv_mvd_frame_add(m, MVD_ALL, 0, b.data, b.cursize, MVD_FRAME_BUF);
	m->full = false;
}
