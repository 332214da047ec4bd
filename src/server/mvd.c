/*
 * mvd.c -- the demo record stream: one writer of MVD records (qwd/mvd.h)
 * for the demo file and every QTV stream.
 *
 * Design note
 *   The writer builds each demo frame once, as records, in one buffer
 *   sized at start-up, and hands the same bytes to every destination
 *   (dest): the file being recorded and the QTV streams.  Only what one
 *   destination alone needs is written for it alone: its signon (the
 *   "gamestate": serverdata, lists, signon buffers, client infos, light
 *   styles) when it joins, and "EndOfDemo" when a file closes.
 *
 *   What goes in, MVDSV's layout:
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
 *   The first record of a frame carries the milliseconds since the last
 *   one (the demo clock follows the level's time); the others 0.  A
 *   frame is written only when the clock moved, so each frame holds one
 *   entity list, as ezQuake needs.
 *   A destination that joins (a stream, a file after a stream) gets its
 *   gamestate at once, and the next frame goes to everyone in full (all
 *   player fields, a full entity list, all stats): every destination is
 *   then in step, whatever it missed, at the cost of one larger frame.
 *   Protocol 28 has 32 player slots and entity numbers below 512: the
 *   players of the extension slots (32 and up) are not in a demo.
 *
 *   Output: a file is written through a buffer of its own, flushed when
 *   half full and at least once a second (write(2), errors stop the
 *   recording with MVDSV's message); a stream through a non-blocking
 *   socket: bytes the socket does not take wait in the stream's backlog
 *   (qtv_streambuffer KB, allocated when the stream joins; the socket's
 *   own buffer is bounded to a quarter of it, at most 64 KB, as loopback
 *   would let it grow to megabytes); a stream is sent to 20 times a
 *   second (or when 16 KB wait), not every frame, since a send costs
 *   more than the frame it carries; a stream whose backlog would
 *   overflow, or that took nothing for qtv_streamtimeout seconds, is
 *   dropped: a slow viewer never holds up the frame.  Nothing here
 *   allocates per frame.
 */
#include "internal.h"

#include <qwd/mvd.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bsd/string.h>

/* seconds between sends to a stream */
#define MVD_STREAM_PUSH 0.05

enum {
	MVD_FRAME_BUF = 1 << 16,	/* one frame's records */
	MVD_EVENTS_MAX = MVD_FRAME_BUF - 3 * MVD_MAX_RECORD, /* room for events */
	MVD_FILE_BUF = 1 << 16,
	MVD_STREAM_SNDBUF = 64 << 10,	/* at most, the kernel's share */
	MVD_STREAM_PUSH_BYTES = 16 << 10,	/* sent at once from this much */
	MVD_CHANGES_EVERY = 4,		/* frames between looks at infos */
	MVD_DESTS = 33,			/* a file and up to 32 streams */
	MVD_PLAYERS = MAX_CLIENTS
};

struct mvd_dest {
	bool used;
	bool stream;
	bool failed;		/* closed at the next flush */
	bool gamestate;		/* its signon is due (a new level) */
	int fd;
	int id;
	char name[96];		/* a file's name in the folder, a stream's peer */
	char path[SV_PATH + 160];	/* a file's path */
	char why[80];		/* why it failed */
	uint8_t *buf;		/* bytes not written yet */
	size_t len, cap;
	uint64_t total;		/* bytes handed to it */
	double since;		/* when it joined */
	double io_time;		/* a stream's last progress, a file's flush */
	double pushed;		/* a stream's last send */
};

/* what the demo last got of a player slot */
struct mvd_slot {
	bool shown;		/* a playerinfo went out and is the base */
	int16_t origin[3], angles[3];
	uint8_t frame, model, skin, effects, weaponframe;
	bool stats_sent;
	int32_t stats[MAX_CL_STATS];
	bool present;		/* client info as last written */
	int userid, frags;
	char userinfo[MAX_INFO_STRING];
};

struct sv_mvd {
	struct mvd_dest dests[MVD_DESTS];
	int ndests;
	int top;		/* dests[top..] are all free */
	int next_id;
	struct cvar *demofps, *idlefps, *pings, *streamtimeout, *streambuffer;
	struct cvar *maxsize, *silent;

	/* the frame being built */
	uint8_t frame[MVD_FRAME_BUF];
	size_t frame_len;
	bool rec_open;		/* the last record may take more messages */
	int rec_type, rec_to;
	size_t rec_len_at;	/* offset of its length field */
	uint32_t rec_len;
	uint64_t events_dropped;

	/* the demo clock and level */
	double prevtime;	/* demo time of the last frame */
	double last_frame;	/* realtime of the last frame */
	double last_pings;
	int spawncount;		/* level of the gamestates written, -1 none */
	bool full;		/* the next frame in full */
	uint32_t sequence;	/* frames written, for the delta byte */

	struct mvd_slot slots[MVD_PLAYERS];
	char lightstyles[MAX_LIGHTSTYLES][MAX_STYLESTRING];
	char serverinfo[MAX_SERVERINFO_STRING];
	struct entity_state ents[2][MVD_MAX_PACKET_ENTITIES];
	int nents[2];
	int cur;		/* ents[cur]: the last frame's list */
	bool have_base;

	/* figures */
	uint64_t frames, bytes, ns, entity_cuts;
};

/* ---- records ---------------------------------------------------------- */

static void rec_close(struct sv_mvd *m)
{
	m->rec_open = false;
}

/* Room for len bytes of messages for (type, to) at the end of the frame:
 * in the open record when it is for the same target and has room, else
 * in a new one.  NULL when the frame buffer is full up to limit. */
static uint8_t *frame_space(struct sv_mvd *m, int type, int to, size_t len,
			    size_t limit)
{
	uint8_t *p;

	if (len == 0 || len > MVD_MAX_RECORD)
		return NULL;
	if (m->rec_open && m->rec_type == type && m->rec_to == to &&
	    m->rec_len + len <= MVD_MAX_RECORD) {
		if (m->frame_len + len > limit)
			return NULL;
		m->rec_len += (uint32_t)len;
		for (int i = 0; i < 4; i++)
			m->frame[m->rec_len_at + (size_t)i] = (uint8_t)(m->rec_len >> (8 * i));
	} else {
		if (m->frame_len + MVD_HEADER_MAX + len > limit)
			return NULL;
		m->frame_len += mvd_record_header(m->frame + m->frame_len, 0, type,
						  (uint32_t)to, (uint32_t)len);
		m->rec_open = true;
		m->rec_type = type;
		m->rec_to = to;
		m->rec_len = (uint32_t)len;
		m->rec_len_at = m->frame_len - 4;
	}
	p = m->frame + m->frame_len;
	m->frame_len += len;
	return p;
}

static bool frame_add(struct sv_mvd *m, int type, int to, const void *data,
		      size_t len, size_t limit)
{
	uint8_t *p = frame_space(m, type, to, len, limit);

	if (!p)
		return false;
	memcpy(p, data, len);
	return true;
}

/* ---- destinations ----------------------------------------------------- */

static void dest_fail(struct mvd_dest *d, const char *why)
{
	if (!d->failed)
		strlcpy(d->why, why, sizeof(d->why));
	d->failed = true;
}

/* a file: everything waiting, written out */
static void file_flush(struct mvd_dest *d, double now)
{
	size_t done = 0;

	while (done < d->len && !d->failed) {
		ssize_t n = write(d->fd, d->buf + done, d->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			dest_fail(d, n < 0 ? strerror(errno) : "nothing written");
			break;
		}
		done += (size_t)n;
	}
	d->len = 0;
	d->io_time = now;
}

/* a stream: as much of the backlog as the socket takes now */
static void stream_push(struct mvd_dest *d, double now)
{
	size_t done = 0;

	while (done < d->len) {
		ssize_t n = send(d->fd, d->buf + done, d->len - done,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			dest_fail(d, n < 0 ? strerror(errno) : "connection closed");
			return;
		}
		done += (size_t)n;
		d->io_time = now;
	}
	memmove(d->buf, d->buf + done, d->len - done);
	d->len -= done;
}

static void dest_put(struct mvd_dest *d, const void *data, size_t len, double now)
{
	if (d->failed || len == 0)
		return;
	d->total += len;
	if (!d->stream) {
		if (d->len + len > d->cap)
			file_flush(d, now);
		if (len > d->cap) {	/* never: a frame is smaller */
			dest_fail(d, "a frame larger than the file buffer");
			return;
		}
		memcpy(d->buf + d->len, data, len);
		d->len += len;
		return;
	}
	if (d->len + len > d->cap) {
		stream_push(d, now);
		if (d->len + len > d->cap) {
			dest_fail(d, "too slow: more than qtv_streambuffer waiting");
			return;
		}
	}
	memcpy(d->buf + d->len, data, len);
	d->len += len;
}

/* one record for one destination */
static void dest_record(struct mvd_dest *d, int type, int to, const void *data,
			size_t len, double now)
{
	uint8_t head[MVD_HEADER_MAX];

	if (len == 0)
		return;
	dest_put(d, head, mvd_record_header(head, 0, type, (uint32_t)to, (uint32_t)len), now);
	dest_put(d, data, len, now);
}

static void dest_release(struct server *sv, struct mvd_dest *d)
{
	struct sv_mvd *m = sv->mvd;

	if (d->fd >= 0)
		close(d->fd);
	free(d->buf);
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	m->ndests--;
	while (m->top > 0 && !m->dests[m->top - 1].used)
		m->top--;
	if (m->ndests == 0) {
		/* nobody listens: the next destination starts afresh */
		m->frame_len = 0;
		rec_close(m);
		m->spawncount = -1;
	}
}

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
	dest_record(w->d, MVD_ALL, 0, w->m.data, w->m.cursize, w->sv->realtime);
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

static int stock_slots(const struct server *sv)
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

static void gamestate(struct server *sv, struct mvd_dest *d)
{
	struct sv_mvd *m = sv->mvd;
	struct gs_writer *w = malloc(sizeof(*w));
	int next;

	/* once per joining destination, not per frame: the buffer is bigger
	 * than a frame's stack should be */
	if (!w) {
		dest_fail(d, "out of memory");
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
	for (int i = 0; i < stock_slots(sv); i++)
		write_info(sv, i, gs_room(w, MAX_INFO_STRING + 64));
	gs_flush(w);
	for (int i = 0; i < MAX_LIGHTSTYLES; i++) {
		struct msg_buf *b = gs_room(w, MAX_STYLESTRING + 4);

		msg_write_byte(b, svc_lightstyle);
		msg_write_byte(b, i);
		msg_write_string(b, sv->lightstyles[i]);
		strlcpy(m->lightstyles[i], sv->lightstyles[i], sizeof(m->lightstyles[i]));
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
static void write_changes(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;
	uint8_t buf[MAX_INFO_STRING + 128];
	struct msg_buf b;

	for (int i = 0; i < stock_slots(sv); i++) {
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
			frame_add(m, MVD_ALL, 0, b.data, b.cursize, MVD_FRAME_BUF);
	}
	for (int i = 0; i < MAX_LIGHTSTYLES; i++) {
		if (strcmp(m->lightstyles[i], sv->lightstyles[i]) == 0)
			continue;
		strlcpy(m->lightstyles[i], sv->lightstyles[i], sizeof(m->lightstyles[i]));
		msg_init(&b, buf, sizeof(buf));
		msg_write_byte(&b, svc_lightstyle);
		msg_write_byte(&b, i);
		msg_write_string(&b, m->lightstyles[i]);
		frame_add(m, MVD_ALL, 0, b.data, b.cursize, MVD_FRAME_BUF);
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
			frame_add(m, MVD_ALL, 0, b.data, b.cursize, MVD_FRAME_BUF);
		}
		memcpy(m->serverinfo, sv->serverinfo, sizeof(m->serverinfo));
	}
}

static void write_pings(struct server *sv)
{
	uint8_t buf[MVD_PLAYERS * 7];
	struct msg_buf b;

	msg_init(&b, buf, sizeof(buf));
	for (int i = 0; i < stock_slots(sv); i++) {
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
		frame_add(sv->mvd, MVD_ALL, 0, b.data, b.cursize, MVD_FRAME_BUF);
}

static bool in_demo(const struct client *c)
{
	return c->state == CS_SPAWNED && !c->spectator;
}

/* each player's stats as its last reply carried them (send.c makes them
 * for every reply: the same numbers, not made again) */
static void write_stats(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;

	for (int i = 0; i < stock_slots(sv); i++) {
		struct mvd_slot *s = &m->slots[i];
		const int32_t *stats = sv->clients[i].stats;
		uint8_t buf[MAX_CL_STATS * 6];
		struct msg_buf b;

		if (!in_demo(&sv->clients[i])) {
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
			frame_add(m, MVD_STATS, i, b.data, b.cursize, MVD_FRAME_BUF);
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

		if (!e->inuse || !e->modelindex || e->is_static || e->client >= 0)
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

/* the frame's state, its records appended after the events */
static void write_state(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;
	uint8_t buf[MVD_MAX_RECORD];
	struct msg_buf b;

	/* a name, frags or a light style a few frames late is no loss; the
	 * comparisons are most of a frame's cost otherwise */
	if (m->full || (m->sequence & (MVD_CHANGES_EVERY - 1)) == 0)
		write_changes(sv);
	if (sv->realtime - m->last_pings >= m->pings->value && m->pings->value > 0) {
		write_pings(sv);
		m->last_pings = sv->realtime;
	}
	write_stats(sv);
	msg_init(&b, buf, sizeof(buf));
	for (int i = 0; i < stock_slots(sv); i++) {
		if (in_demo(&sv->clients[i]))
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
	frame_add(m, MVD_ALL, 0, b.data, b.cursize, MVD_FRAME_BUF);
	m->full = false;
}

/* the frame so far to every destination, its first record stamped with
 * msec */
static void frame_out(struct server *sv, int msec)
{
	struct sv_mvd *m = sv->mvd;

	if (m->frame_len == 0)
		return;
	m->frame[0] = (uint8_t)msec;
	for (int i = 0; i < m->top; i++)
		if (m->dests[i].used && !m->dests[i].gamestate)
			dest_put(&m->dests[i], m->frame, m->frame_len, sv->realtime);
	m->bytes += m->frame_len;
	m->frame_len = 0;
	rec_close(m);
}

/* the records a destination gets alone, after the frame so far */
static void end_of_demo(struct server *sv, struct mvd_dest *d)
{
	uint8_t buf[16];
	struct msg_buf b;

	msg_init(&b, buf, sizeof(buf));
	msg_write_byte(&b, svc_disconnect);
	msg_write_string(&b, MVD_END_TEXT);
	dest_record(d, MVD_ALL, 0, b.data, b.cursize, sv->realtime);
}

/* ---- entry points ----------------------------------------------------- */

int sv_mvd_init(struct server *sv)
{
	struct sv_mvd *m = calloc(1, sizeof(*m));

	if (!m)
		return -1;
	for (int i = 0; i < MVD_DESTS; i++)
		m->dests[i].fd = -1;
	m->spawncount = -1;
	m->demofps = cvar_register(sv, "sv_demofps", "77", 0,
				   "demo frames a second with players in the game");
	m->idlefps = cvar_register(sv, "sv_demoIdlefps", "10", 0,
				   "demo frames a second without players");
	m->pings = cvar_register(sv, "sv_demopings", "3", 0,
				 "seconds between the pings written to demos (0: none)");
	m->maxsize = cvar_register(sv, "sv_demoMaxSize", "20480", 0,
				   "KB a demo may reach; recording stops there (0: no limit)");
	m->silent = cvar_register(sv, "sv_silentrecord", "0", 0,
				  "1: players are not told when a demo starts or ends");
	m->streambuffer = cvar_register(sv, "qtv_streambuffer", "1024", 0,
					"KB of a QTV stream that may wait for a slow viewer "
					"before it is dropped (16..65536)");
	m->streamtimeout = cvar_register(sv, "qtv_streamtimeout", "45", 0,
					 "seconds a QTV stream may take nothing before it "
					 "is dropped");
	sv->mvd = m;
	return 0;
}

void sv_mvd_free(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;

	if (!m)
		return;
	for (int i = 0; i < MVD_DESTS; i++)
		if (m->dests[i].used)
			dest_release(sv, &m->dests[i]);
	free(m);
	sv->mvd = NULL;
}

bool sv_mvd_active(const struct server *sv)
{
	return sv->mvd && sv->mvd->ndests > 0;
}

void sv_mvd_message(struct server *sv, int slot, const void *data, size_t len)
{
	struct sv_mvd *m = sv->mvd;

	if (!m || m->ndests == 0 || slot >= MVD_PLAYERS)
		return;
	if (!frame_add(m, slot < 0 ? MVD_ALL : MVD_SINGLE, slot < 0 ? 0 : slot,
		       data, len, MVD_EVENTS_MAX))
		m->events_dropped++;
}

void sv_mvd_setangle(struct server *sv, int slot, const vec3_t angles)
{
	uint8_t buf[8];
	struct msg_buf b;

	if (!sv_mvd_active(sv) || slot < 0 || slot >= MVD_PLAYERS)
		return;
	/* a demo names whose view it is */
	msg_init(&b, buf, sizeof(buf));
	msg_write_byte(&b, svc_setangle);
	msg_write_byte(&b, slot);
	for (int k = 0; k < 3; k++)
		msg_write_angle(&b, angles[k]);
	sv_mvd_message(sv, -1, b.data, b.cursize);
}

static bool m_silent(const struct server *sv)
{
	return sv->mvd->silent->value != 0;
}

static struct mvd_dest *new_dest(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;

	for (int i = 0; i < MVD_DESTS; i++) {
		struct mvd_dest *d = &m->dests[i];

		if (d->used)
			continue;
		memset(d, 0, sizeof(*d));
		d->used = true;
		d->fd = -1;
		d->id = ++m->next_id;
		if (i >= m->top)
			m->top = i + 1;
		d->since = d->io_time = sv->realtime;
		return d;
	}
	return NULL;
}

/* a destination joins: the demo clock starts when it is the first one,
 * changes of the frame so far go to the others before it gets its
 * gamestate (which holds the state they describe) */
static void dest_join(struct server *sv, struct mvd_dest *d)
{
	struct sv_mvd *m = sv->mvd;

	if (m->ndests++ == 0) {
		m->prevtime = sv->time;
		m->last_frame = sv->realtime;
		m->last_pings = sv->realtime;
		m->frame_len = 0;
		rec_close(m);
		m->spawncount = sv->spawncount;
		memset(m->slots, 0, sizeof(m->slots));
		m->have_base = false;
	} else {
		write_changes(sv);
	}
	gamestate(sv, d);
}

int sv_mvd_open_file(struct server *sv, const char *path, const char *name,
		     char *err, size_t errlen)
{
	struct mvd_dest *d;
	int fd;

	if (!sv->map) {
		snprintf(err, errlen, "no level loaded yet");
		return -1;
	}
	if (sv_mvd_file(sv, NULL)) {
		snprintf(err, errlen, "already recording %s (stop or cancel it first)",
			 sv_mvd_file(sv, NULL));
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	d = new_dest(sv);
	if (d)
		d->buf = malloc(MVD_FILE_BUF);
	if (!d || !d->buf) {
		if (d)
			d->used = false;
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	d->fd = fd;
	d->cap = MVD_FILE_BUF;
	strlcpy(d->name, name, sizeof(d->name));
	strlcpy(d->path, path, sizeof(d->path));
	if (m_silent(sv))
		qwd_logf(&sv->log, QWD_LOG_INFO, "demo %s started", name);
	else
		sv_broadcast_printf(sv, PRINT_CHAT, "Server starts recording (disk):\n%s\n", name);
	dest_join(sv, d);
	return 0;
}

static struct mvd_dest *file_dest(const struct server *sv)
{
	if (!sv->mvd)
		return NULL;
	for (int i = 0; i < MVD_DESTS; i++)
		if (sv->mvd->dests[i].used && !sv->mvd->dests[i].stream)
			return &sv->mvd->dests[i];
	return NULL;
}

const char *sv_mvd_file(const struct server *sv, uint64_t *bytes)
{
	struct mvd_dest *d = file_dest(sv);

	if (!d)
		return NULL;
	if (bytes)
		*bytes = d->total;
	return d->name;
}

/* The file ends: the frame so far goes out first (so its last events are
 * in it), then EndOfDemo, to the file only; a cancelled file is removed.
 * The players are told as MVDSV tells them. */
long long sv_mvd_stop_file(struct server *sv, enum sv_demo_stop why)
{
	static const char *const said[] = {
		[DEMO_STOP_DONE] = "Server recording completed\n",
		[DEMO_STOP_CANCEL] = "Server recording canceled, demo removed\n",
		[DEMO_STOP_FULL] = "Server recording stopped\nMax demo size exceeded\n",
		[DEMO_STOP_ERROR] = "Error in MVD/QTV recording, recording stopped\n",
		[DEMO_STOP_QUIET] = NULL,
	};
	struct mvd_dest *d = file_dest(sv);
	bool remove = why == DEMO_STOP_CANCEL;
	long long total;
	bool ok;

	if (!d)
		return -1;
	frame_out(sv, 0);
	end_of_demo(sv, d);
	file_flush(d, sv->realtime);
	ok = !d->failed;
	total = (long long)d->total;
	if (remove || !ok)
		unlink(d->path);
	qwd_logf(&sv->log, QWD_LOG_INFO, "demo %s %s: %lld bytes, %.0f s%s%s", d->name,
		 remove ? "cancelled and removed" : ok ? "written" : "failed",
		 total, sv->realtime - d->since, ok ? "" : ": ", ok ? "" : d->why);
	dest_release(sv, d);
	if (!ok)
		why = DEMO_STOP_ERROR;
	if (said[why] && !(m_silent(sv) &&
			   (why == DEMO_STOP_DONE || why == DEMO_STOP_CANCEL)))
		sv_broadcast_printf(sv, PRINT_CHAT, "%s", said[why]);
	return ok ? total : -1;
}

bool sv_mvd_add_stream(struct server *sv, int fd, const char *peer)
{
	struct mvd_dest *d = new_dest(sv);
	double kb = sv->mvd->streambuffer->value;
	size_t cap = (size_t)(kb < 16 ? 16 : kb > 65536 ? 65536 : kb) * 1024;
	int sndbuf = (int)(cap / 4 < MVD_STREAM_SNDBUF ? cap / 4 : MVD_STREAM_SNDBUF);

	if (d)
		d->buf = malloc(cap);
	if (!d || !d->buf) {
		if (d)
			d->used = false;
		return false;
	}
	d->fd = fd;
	d->stream = true;
	d->cap = cap;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	strlcpy(d->name, peer, sizeof(d->name));
	dest_join(sv, d);
	stream_push(d, sv->realtime);
	qwd_logf(&sv->log, QWD_LOG_INFO, "QTV stream %d to %s started", d->id, peer);
	return true;
}

int sv_mvd_streams(const struct server *sv)
{
	int n = 0;

	for (int i = 0; sv->mvd && i < MVD_DESTS; i++)
		n += sv->mvd->dests[i].used && sv->mvd->dests[i].stream;
	return n;
}

void sv_mvd_list_streams(const struct server *sv, FILE *out)
{
	for (int i = 0; sv->mvd && i < MVD_DESTS; i++) {
		const struct mvd_dest *d = &sv->mvd->dests[i];

		if (d->used && d->stream)
			fprintf(out, "%4d %-22s %6.0f s %10llu bytes, %zu waiting\n", d->id,
				d->name, sv->realtime - d->since,
				(unsigned long long)d->total, d->len);
	}
}

int sv_mvd_close_stream(struct server *sv, int id)
{
	int n = 0;

	for (int i = 0; sv->mvd && i < MVD_DESTS; i++) {
		struct mvd_dest *d = &sv->mvd->dests[i];

		if (d->used && d->stream && (id < 0 || d->id == id)) {
			dest_fail(d, "closed by the operator");
			n++;
		}
	}
	return n;
}

void sv_mvd_figures(const struct server *sv, FILE *out)
{
	const struct sv_mvd *m = sv->mvd;

	if (!m)
		return;
	fprintf(out, "demo frames %llu, %llu bytes, %.1f us a frame, %llu events "
		"dropped, %llu entities left out\n",
		(unsigned long long)m->frames, (unsigned long long)m->bytes,
		m->frames ? (double)m->ns / (double)m->frames / 1000.0 : 0.0,
		(unsigned long long)m->events_dropped,
		(unsigned long long)m->entity_cuts);
}

/* before a level is replaced: the frame so far and EndOfDemo to everyone
 * (a QTV viewer ignores it, a file ends), the file closed; the streams
 * get the next level's gamestate when it is up */
void sv_mvd_level_end(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;

	if (!sv_mvd_active(sv))
		return;
	frame_out(sv, 0);
	for (int i = 0; i < MVD_DESTS; i++) {
		struct mvd_dest *d = &m->dests[i];

		if (!d->used || !d->stream)
			continue;
		end_of_demo(sv, d);
		d->gamestate = true;
	}
	if (file_dest(sv))
		sv_mvd_stop_file(sv, DEMO_STOP_DONE);
	m->spawncount = -1;
}

/* destinations that failed are closed, with a word in the log (and to
 * the players for a file, as MVDSV says it) */
static void reap(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;

	for (int i = 0; i < m->top; i++) {
		struct mvd_dest *d = &m->dests[i];

		if (!d->used || !d->failed)
			continue;
		if (d->stream) {
			qwd_logf(&sv->log, QWD_LOG_INFO, "QTV stream %d to %s dropped: %s",
				 d->id, d->name, d->why);
			dest_release(sv, d);
		} else {
			qwd_logf(&sv->log, QWD_LOG_WARN, "demo %s: %s", d->name, d->why);
			sv_mvd_stop_file(sv, DEMO_STOP_ERROR);
		}
	}
}

/* what streams send is read and dropped (a proxy's chat and user lists);
 * a closed connection is seen here */
static void stream_input(struct mvd_dest *d)
{
	uint8_t tmp[2048];

	for (int k = 0; k < 4; k++) {
		ssize_t n = recv(d->fd, tmp, sizeof(tmp), MSG_DONTWAIT);

		if (n > 0)
			continue;
		if (n == 0)
			dest_fail(d, "connection closed by the viewer");
		else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			dest_fail(d, strerror(errno));
		return;
	}
}

void sv_mvd_frame(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;
	bool players = false;
	double fps;
	int msec;

	if (!m || m->ndests == 0 || !sv->map)
		return;
	uint64_t t0 = prof_now(sv->prof);

	/* a new level: its gamestate to whoever waits for it */
	if (m->spawncount != sv->spawncount) {
		m->spawncount = sv->spawncount;
		m->prevtime = sv->time;
		m->last_frame = sv->realtime;
		memset(m->slots, 0, sizeof(m->slots));
		m->have_base = false;
		for (int i = 0; i < m->top; i++)
			if (m->dests[i].used && m->dests[i].gamestate)
				gamestate(sv, &m->dests[i]);
	}
	for (int i = 0; i < stock_slots(sv) && !players; i++)
		players = in_demo(&sv->clients[i]);
	fps = players ? m->demofps->value : m->idlefps->value;
	if (fps < 4)
		fps = 4;
	if (fps > 500)
		fps = 500;
	msec = (int)((sv->time - m->prevtime) * 1000.0);
	if (sv->realtime - m->last_frame >= 1.0 / fps && msec >= 1) {
		/* the demo clock keeps the level's pace; a stall longer than a
		 * record can say is cut short, as MVDSV does */
		m->prevtime += msec * 0.001;
		if (msec > 255)
			msec = 255;
		m->last_frame = sv->realtime;
		write_state(sv);
		frame_out(sv, msec);
		m->sequence++;
		m->frames++;
	}
	for (int i = 0; i < m->top; i++) {
		struct mvd_dest *d = &m->dests[i];

		if (!d->used || d->failed)
			continue;
		if (!d->stream) {
			if (d->len > d->cap / 2 || sv->realtime - d->io_time >= 1.0)
				file_flush(d, sv->realtime);
			if (m->maxsize->value > 0 &&
			    d->total > (uint64_t)m->maxsize->value * 1024)
				sv_mvd_stop_file(sv, DEMO_STOP_FULL);
			continue;
		}
		/* a few sends a second: a send to a stream costs tens of
		 * microseconds (the peer's TCP work is done in it, on
		 * loopback), a viewer buffers half a second anyway */
		if (sv->realtime - d->pushed < MVD_STREAM_PUSH && d->len < MVD_STREAM_PUSH_BYTES)
			continue;
		d->pushed = sv->realtime;
		stream_input(d);
		stream_push(d, sv->realtime);
		if (d->len && sv->realtime - d->io_time > m->streamtimeout->value)
			dest_fail(d, "took nothing for qtv_streamtimeout seconds");
	}
	reap(sv);
	m->ns += prof_now(sv->prof) - t0;
}

void sv_mvd_shutdown(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;

	if (!sv_mvd_active(sv))
		return;
	if (file_dest(sv))
		sv_mvd_stop_file(sv, DEMO_STOP_QUIET);
	frame_out(sv, 0);
	for (int i = 0; i < MVD_DESTS; i++) {
		struct mvd_dest *d = &m->dests[i];

		if (!d->used)
			continue;
		end_of_demo(sv, d);
		/* a last try to hand over what waits, without blocking */
		stream_push(d, sv->realtime);
		qwd_logf(&sv->log, QWD_LOG_INFO, "QTV stream %d to %s ended: server shut down",
			 d->id, d->name);
		dest_release(sv, d);
	}
}
