/*
 * send.c -- building replies, and the reliable stream to each client.
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
 *   players and one over the entities that can be drawn, each tested by a
 *   bit per touched leaf.  Entity states of each reply go to one ring
 *   shared by all clients; a reply whose states the ring has overwritten
 *   can no longer be a delta base, and the client gets a full update (a
 *   valid protocol-28 answer) instead.  Nor can a reply sent while a
 *   message that clears the client's level (serverdata, "changing") is
 *   still queued or unacknowledged in its reliable stream: a packet that
 *   ran "new" and then "begin" puts the client in the game before it has
 *   read the serverdata, which wipes the frames it has by then.
 *
 *   Reliable data: netchan holds one message of MAX_MSGLEN; what does not
 *   fit waits in the client's backlog as whole svc messages (a message is
 *   never split between two reliable packets, the client parses each on its
 *   own) and moves into the netchan as room appears.  The reliable part of
 *   a packet is settled before the reply is built, and the reply gets only
 *   the room left beside it: netchan would otherwise drop the whole
 *   unreliable part, and a crowded reply (self, 64 players, the entities)
 *   is nearly a full datagram.
 *
 *   Whose traffic may overflow the backlog: only the client's own (its
 *   signon, downloads, stats, the stufftexts and prints addressed to it);
 *   that drops it, as in QuakeWorld, since its view of the game would be
 *   wrong.  Nothing other players cause ever does, for stock and extension
 *   clients alike:
 *   - texts to everyone (chat, obituaries, "timed out") go into a backlog
 *     only below its texts mark (3/4 of it for a stock client, 1/2 for an
 *     extension client, whose crowd says far more); past it the text is
 *     dropped for that client and counted, and once its backlog has
 *     drained the client is told how many it missed;
 *   - state that others change (client infos: name, frags, entry time,
 *     userinfo of each slot; frags; light styles) is never queued as
 *     messages: the slot (or style) is marked in the client's pending set,
 *     and the newest state of it is written when the reliable message has
 *     room, a few hundred bytes a packet.  A thousand joins or a flood of
 *     setinfo marks each slot once; every client still ends up with the
 *     newest name, frags and userinfo of every slot it may see (stock
 *     clients: the 32 protocol-28 slots, with protocol-28 messages).
 *   In the signon the stream keeps its order: pending states follow a
 *   drained backlog, and a stock client gets none before it is in the game
 *   (its spawn pages carry every slot's state).  In the game the order of
 *   states against texts does not matter, and pending states go first in
 *   each reliable message unless the backlog's next message would then not
 *   fit, so neither starves the other.
  */
#include "qwd/server.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- the reliable stream ---------------------------------------------- */

/* How full a reliable message may get: all of it for a stock client, as
 * in QuakeWorld; for an extension client, whose crowded replies fill a
 * datagram, about half, so a stream of prints and frags never starves
 * the reply (a larger single message still goes, alone). */
static size_t reliable_limit(const struct client *cl)
{
	return cl->extended ? SV_RELIABLE_EXT : cl->chan.message.maxsize;
}

/* backlog records: uint16 length, then the bytes */
static void backlog_drain(struct client *cl)
{
	size_t pos = 0;

	while (pos + 2 <= cl->backlog_len) {
		size_t n = (size_t)cl->backlog[pos] | (size_t)cl->backlog[pos + 1] << 8;

		if (cl->chan.message.cursize + n > reliable_limit(cl) &&
		    cl->chan.message.cursize > 0)
			break;
		msg_write_data(&cl->chan.message, cl->backlog + pos + 2, n);
		pos += 2 + n;
	}
	if (pos) {
		memmove(cl->backlog, cl->backlog + pos, cl->backlog_len - pos);
		cl->backlog_len -= pos;
		cl->reset_backlog_end = cl->reset_backlog_end > pos
			? cl->reset_backlog_end - pos : 0;
	}
}

void sv_reliable_write(struct client *cl, const void *data, size_t len)
{
	if (len == 0 || cl->state < CS_CONNECTED)
		return;
	if (cl->backlog_len == 0 &&
	    cl->chan.message.cursize + len <= reliable_limit(cl)) {
		msg_write_data(&cl->chan.message, data, len);
		return;
	}
	if (len > MAX_MSGLEN || cl->backlog_len + 2 + len > SV_BACKLOG) {
		cl->backlog_overflowed = true;
		return;
	}
	cl->backlog[cl->backlog_len] = (uint8_t)len;
	cl->backlog[cl->backlog_len + 1] = (uint8_t)(len >> 8);
	memcpy(cl->backlog + cl->backlog_len + 2, data, len);
	cl->backlog_len += 2 + len;
}

/* Writes go to the netchan's message only while the backlog is empty, so
 * the message just queued ends where the backlog ends (0: it is in the
 * message). */
void sv_reliable_mark_reset(struct client *cl)
{
	cl->reset_state = SV_RESET_QUEUED;
	cl->reset_backlog_end = cl->backlog_len;
}

/* A text message (svc_print with its level, or svc_stufftext when level
 * is -1) formatted into buf; returns its length. */
__attribute__((format(printf, 4, 0)))
static size_t text_msg(uint8_t *buf, size_t size, int level, const char *fmt,
		       va_list ap)
{
	char text[1024];
	struct msg_buf m;

	vsnprintf(text, sizeof(text), fmt, ap);
	msg_init(&m, buf, size);
	if (level < 0) {
		msg_write_byte(&m, svc_stufftext);
	} else {
		msg_write_byte(&m, svc_print);
		msg_write_byte(&m, level);
	}
	msg_write_string(&m, text);
	return m.cursize;
}

void sv_reliable_printf(struct client *cl, int level, const char *fmt, ...)
{
	uint8_t buf[1100];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = text_msg(buf, sizeof(buf), level, fmt, ap);
	va_end(ap);
	sv_reliable_write(cl, buf, n);
}

void sv_reliable_stufftext(struct client *cl, const char *fmt, ...)
{
	uint8_t buf[1100];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = text_msg(buf, sizeof(buf), -1, fmt, ap);
	va_end(ap);
	sv_reliable_write(cl, buf, n);
}

/* How far other players' texts may fill a client's backlog: an extension
 * client in a crowd hears of hundreds of deaths a second and keeps its
 * queue short; a stock client (32 players at most) keeps more of them. */
static size_t texts_mark(const struct client *cl)
{
	return cl->extended ? SV_TEXTS_EXT : SV_TEXTS_STOCK;
}

bool sv_reliable_text(struct server *sv, struct client *cl, const void *data,
		      size_t len)
{
	if (cl->backlog_len + 2 + len > texts_mark(cl)) {
		cl->texts_dropped++;
		sv->stats.prints_dropped++;
		return false;
	}
	sv_reliable_write(cl, data, len);
	return true;
}

void sv_broadcast_printf(struct server *sv, int level, const char *fmt, ...)
{
	uint8_t buf[1100];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = text_msg(buf, sizeof(buf), level, fmt, ap);
	va_end(ap);
	sv_mvd_message(sv, -1, buf, n);
	for (int i = 0; i < sv->maxclients; i++)
		if (sv->clients[i].state == CS_SPAWNED)
			sv_reliable_text(sv, &sv->clients[i], buf, n);
}

/* The head of a per-slot message: protocol 28's byte slot below 32, the
 * extension's form with a short slot above (docs/protocol-extension.md). */
static void write_slot(struct msg_buf *m, int svc, int svcx, int slot)
{
	if (slot >= MAX_CLIENTS) {
		msg_write_byte(m, svcx);
		msg_write_short(m, slot);
	} else {
		msg_write_byte(m, svc);
		msg_write_byte(m, slot);
	}
}

/* Everything a client shows about another player: frags, ping, loss,
 * enter time, userinfo.  Slots past 32 use the extension's messages. */
void sv_write_client_info(struct server *sv, struct client *to,
			  struct client *who, struct msg_buf *m)
{
	bool present = who->state >= CS_CONNECTED;
	char info[MAX_INFO_STRING];

	(void)to;
	write_slot(m, svc_updatefrags, svcx_updatefrags, who->slot);
	msg_write_short(m, present ? who->frags : 0);
	write_slot(m, svc_updateping, svcx_updateping, who->slot);
	msg_write_short(m, 0);
	write_slot(m, svc_updatepl, svcx_updatepl, who->slot);
	msg_write_byte(m, present ? who->lossage : 0);
	write_slot(m, svc_updateentertime, svcx_updateentertime, who->slot);
	msg_write_float(m, present ? (float)(sv->realtime - who->connect_time) : 0.0f);
	write_slot(m, svc_updateuserinfo, svcx_updateuserinfo, who->slot);
	msg_write_long(m, present ? who->userid : 0);
	info[0] = '\0';
	if (present) {
		/* what other players see: no secrets (password is never kept) */
		memcpy(info, who->userinfo, sizeof(info));
	}
	msg_write_string(m, info);
}

/* Every client that may see the slot gets it marked, the client itself
 * too; the newest state of it goes when its reliable channel has room. */
void sv_broadcast_client_info(struct server *sv, struct client *who)
{
	for (int i = 0; i < sv->maxclients; i++) {
		struct client *to = &sv->clients[i];

		if (to->state < CS_CONNECTED || (who->slot >= MAX_CLIENTS && !to->extended))
			continue;
		if (!sv_info_mark(to, who->slot))
			sv->stats.infos_folded++;
	}
}

/* a slot into a pending set (a bit per slot and a count); false when it
 * was marked already */
static bool pending_mark(uint64_t *set, int *count, int slot)
{
	uint64_t bit = 1ull << (slot & 63);

	if (slot < 0 || slot >= SV_MAX_CLIENTS || (set[slot >> 6] & bit))
		return false;
	set[slot >> 6] |= bit;
	(*count)++;
	return true;
}

bool sv_frags_mark(struct client *to, int slot)
{
	return pending_mark(to->frags_pending, &to->frags_pending_count, slot);
}

bool sv_info_mark(struct client *to, int slot)
{
	return pending_mark(to->info_pending, &to->info_pending_count, slot);
}

void sv_pending_clear(struct client *cl)
{
	memset(cl->info_pending, 0, sizeof(cl->info_pending));
	memset(cl->frags_pending, 0, sizeof(cl->frags_pending));
	cl->info_pending_count = cl->frags_pending_count = 0;
	cl->info_cursor = 0;
	cl->styles_pending = 0;
}

/* pending frags first: small, and what a scoreboard shows most */
static void frags_flush(struct server *sv, struct client *cl, size_t cap)
{
	for (int w = 0; w < SV_MAX_CLIENTS / 64 && cl->frags_pending_count > 0; w++) {
		while (cl->frags_pending[w]) {
			int slot = w * 64 + __builtin_ctzll(cl->frags_pending[w]);
			uint8_t buf[8];
			struct msg_buf m;

			if (cl->chan.message.cursize + 5 > cap)
				return;
			msg_init(&m, buf, sizeof(buf));
			if (slot >= MAX_CLIENTS) {
				msg_write_byte(&m, svcx_updatefrags);
				msg_write_short(&m, slot);
			} else {
				msg_write_byte(&m, svc_updatefrags);
				msg_write_byte(&m, slot);
			}
			msg_write_short(&m, slot < sv->maxclients ? sv->clients[slot].frags : 0);
			msg_write_data(&cl->chan.message, m.data, m.cursize);
			cl->frags_pending[w] &= cl->frags_pending[w] - 1;
			cl->frags_pending_count--;
		}
	}
}

static void styles_flush(struct server *sv, struct client *cl, size_t cap)
{
	while (cl->styles_pending) {
		int style = __builtin_ctzll(cl->styles_pending);
		const char *value = sv->lightstyles[style];

		if (cl->chan.message.cursize + 3 + strlen(value) > cap)
			return;
		msg_write_byte(&cl->chan.message, svc_lightstyle);
		msg_write_byte(&cl->chan.message, style);
		msg_write_string(&cl->chan.message, value);
		cl->styles_pending &= cl->styles_pending - 1;
	}
}

/* Pending frags, light styles and client infos into the reliable message
 * while it stays under cap bytes (the rest of the packet is for the reply
 * itself: self, the players and entities around).  The info scan starts
 * where the last one stopped, so every slot gets its turn. */
static void pending_flush(struct server *sv, struct client *cl, size_t cap)
{
	enum { WORDS = SV_MAX_CLIENTS / 64 };
	uint8_t buf[MAX_MSGLEN];
	struct msg_buf m;
	int w = cl->info_cursor >> 6;

	if (cl->frags_pending_count)
		frags_flush(sv, cl, cap);
	if (cl->styles_pending)
		styles_flush(sv, cl, cap);
	for (int n = 0; n <= WORDS && cl->info_pending_count > 0; n++, w = (w + 1) % WORDS) {
		while (cl->info_pending[w]) {
			int slot = w * 64 + __builtin_ctzll(cl->info_pending[w]);

			msg_init(&m, buf, sizeof(buf));
			if (slot < sv->maxclients)
				sv_write_client_info(sv, cl, &sv->clients[slot], &m);
			if (cl->chan.message.cursize + m.cursize > cap) {
				cl->info_cursor = slot;
				return;
			}
			msg_write_data(&cl->chan.message, m.data, m.cursize);
			cl->info_pending[w] &= cl->info_pending[w] - 1;
			cl->info_pending_count--;
		}
	}
	cl->info_cursor = w * 64;
}

/* size of the backlog's next message, 0 when it is empty */
static size_t backlog_head(const struct client *cl)
{
	if (cl->backlog_len < 2)
		return 0;
	return (size_t)cl->backlog[0] | (size_t)cl->backlog[1] << 8;
}

/* The next reliable message, from the backlog and the pending sets (the
 * order is the design note's). */
static void reliable_fill(struct server *sv, struct client *cl)
{
	bool pending = cl->info_pending_count || cl->frags_pending_count ||
		       cl->styles_pending;

	if (cl->state != CS_SPAWNED) {
		backlog_drain(cl);
		if (pending && cl->extended && cl->backlog_len == 0)
			pending_flush(sv, cl, SV_INFO_RELIABLE);
		return;
	}
	if (cl->texts_dropped && cl->backlog_len == 0) {
		uint32_t n = cl->texts_dropped;

		cl->texts_dropped = 0;
		sv_reliable_printf(cl, PRINT_HIGH,
				   "(%u message%s to everyone not shown: too many at once)\n",
				   n, n == 1 ? "" : "s");
	}
	if (pending) {
		size_t head = backlog_head(cl), limit = reliable_limit(cl);
		size_t cap = SV_INFO_RELIABLE;

		if (head && cap + head > limit)
			cap = head < limit ? limit - head : 0;
		pending_flush(sv, cl, cap);
	}
	backlog_drain(cl);
}

/* ---- pings and packet loss -------------------------------------------- */

int sv_client_ping(const struct client *c)
{
	float t = 0;
	int n = 0;

	for (int f = 0; f < UPDATE_BACKUP; f++)
		if (c->frames[f].valid && c->frames[f].ping_time > 0) {
			t += c->frames[f].ping_time;
			n++;
		}
	return n ? (int)(t / (float)n * 1000.0f) : 0;
}

/* Everyone's ping and packet loss to one client (the scoreboard); slots
 * past 32 only to extension clients. */
void sv_send_pings(struct server *sv, struct client *cl)
{
	int limit = cl->extended ? sv->maxclients
				 : (sv->maxclients < MAX_CLIENTS ? sv->maxclients : MAX_CLIENTS);
	uint8_t buf[MAX_MSGLEN];
	struct msg_buf m;

	msg_init(&m, buf, sizeof(buf));
	for (int i = 0; i < limit; i++) {
		struct client *c = &sv->clients[i];

		if (c->state != CS_SPAWNED)
			continue;
		if (m.cursize + 12 > sizeof(buf)) {
			sv_reliable_write(cl, m.data, m.cursize);
			msg_clear(&m);
		}
		write_slot(&m, svc_updateping, svcx_updateping, i);
		msg_write_short(&m, sv_client_ping(c));
		write_slot(&m, svc_updatepl, svcx_updatepl, i);
		msg_write_byte(&m, c->lossage);
	}
	sv_reliable_write(cl, m.data, m.cursize);
}

/* ---- stats ------------------------------------------------------------ */

static void update_stats(struct server *sv, struct client *cl)
{
	game_client_stats(sv->game, cl->slot, cl->stats, MAX_CL_STATS);
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

/* ---- visibility ------------------------------------------------------- */

static bool obj_visible(const struct world_obj *o, const uint8_t *pvs)
{
	if (o->leafs_overflow)
		return true;
	for (int i = 0; i < o->num_leafs; i++)
		if (bsp_vis_test(pvs, o->leafnums[i]))
			return true;
	return false;
}

/* ---- players ---------------------------------------------------------- */

static int16_t coord8(float f)
{
	/* MVDSV rounds origins to the nearest 1/8 unit */
	long v = lrintf(f * 8.0f);

	if (v > 32767)
		v = 32767;
	if (v < -32768)
		v = -32768;
	return (int16_t)v;
}

/* One svc_playerinfo (or its extension form), one record; false when it
 * did not fit. */
static bool write_player(struct server *sv, struct client *cl, int j,
			 struct msg_buf *m)
{
	/* the largest entry: number, flags, origin, frame, msec, a whole
	 * usercmd, velocity and four bytes */
	enum { PLAYER_ENTRY_MAX = 3 + 2 + 6 + 1 + 1 + MSG_DELTA_USERCMD_MAX + 6 + 4 };
	static const struct usercmd nullcmd;
	uint8_t scratch[PLAYER_ENTRY_MAX], *start, *p;
	struct client *pc = &sv->clients[j];
	const struct game *g = sv->game;
	int num = game_player_entity(g, j);
	const struct game_entity *e = &g->ents[num];
	const struct game_client *gc = &g->clients[j];
	const struct world_obj *o = &sv->objs[num];
	size_t mark = m->cursize;
	int flags;

	flags = PF_MSEC | PF_COMMAND;
	if (e->modelindex != g->m_player)
		flags |= PF_MODEL;
	for (int k = 0; k < 3; k++)
		if ((int)gc->pm.velocity[k])
			flags |= PF_VELOCITY1 << k;
	if (e->effects)
		flags |= PF_EFFECTS;
	if (e->skin)
		flags |= PF_SKINNUM;
	if (e->health <= 0)
		flags |= PF_DEAD;
	if (e->modelindex && e->modelindex == g->m_h_player)
		flags |= PF_GIB;
	if (pc->spectator) {
		flags &= PF_VELOCITY1 | PF_VELOCITY2 | PF_VELOCITY3;
	} else if (pc == cl) {
		flags &= ~(PF_MSEC | PF_COMMAND);
		if (gc->weaponframe)
			flags |= PF_WEAPONFRAME;
	}

	start = msg_record_begin(m, scratch, sizeof(scratch));
	p = start;
	if (j >= MAX_CLIENTS || cl->extended) {
		p = msg_put_byte(p, svcx_playerinfo);
		p = msg_put_short(p, j);
	} else {
		p = msg_put_byte(p, svc_playerinfo);
		p = msg_put_byte(p, j);
	}
	p = msg_put_short(p, flags);
	for (int k = 0; k < 3; k++)
		p = msg_put_short(p, coord8(o->origin[k]));
	p = msg_put_byte(p, e->frame);
	if (flags & PF_MSEC) {
		int msec = (int)(1000.0 * (sv->time - pc->localtime));

		p = msg_put_byte(p, msec > 255 ? 255 : (msec < 0 ? 0 : msec));
	}
	if (flags & PF_COMMAND) {
		struct usercmd c = pc->lastcmd;

		if (e->health <= 0) {
			/* a corpse does not look around */
			c.angles[0] = 0;
			c.angles[1] = e->angles[1];
			c.angles[2] = 0;
		}
		c.buttons = 0;
		c.impulse = 0;
		p = msg_put_delta_usercmd(p, &nullcmd, &c);
	}
	for (int k = 0; k < 3; k++)
		if (flags & (PF_VELOCITY1 << k))
			p = msg_put_short(p, (int)gc->pm.velocity[k]);
	if (flags & PF_MODEL)
		p = msg_put_byte(p, e->modelindex);
	if (flags & PF_SKINNUM)
		p = msg_put_byte(p, e->skin);
	if (flags & PF_EFFECTS)
		p = msg_put_byte(p, e->effects);
	if (flags & PF_WEAPONFRAME)
		p = msg_put_byte(p, gc->weaponframe);
	msg_record_end(m, scratch, start, p);
	if (m->overflowed) {
		m->cursize = mark;
		m->overflowed = false;
		return false;
	}
	return true;
}

static bool player_shown(struct server *sv, struct client *cl, int j,
			 const uint8_t *pvs)
{
	const struct client *pc = &sv->clients[j];

	if (pc->state != CS_SPAWNED)
		return false;
	if (pc == cl)
		return true;
	return !pc->spectator &&
	       obj_visible(&sv->objs[game_player_entity(sv->game, j)], pvs);
}

/* The players a client sees.  A stock client can only be told of slots
 * 0..31: they are all tested.  An extension client on a server of
 * hundreds is served from the player grid, nearest cells first, and a reply
 * holds at most SV_REPLY_PLAYERS players after at most SV_REPLY_TESTS
 * visibility tests: the work per reply is bounded, not proportional to the
 * number of players (which would make a frame grow with their square). */
static void write_players(struct server *sv, struct client *cl,
			  const uint8_t *pvs, struct msg_buf *m)
{
	if (!cl->extended || sv->maxclients <= MAX_CLIENTS) {
		int limit = sv->maxclients < MAX_CLIENTS ? sv->maxclients : MAX_CLIENTS;

		for (int j = 0; j < limit; j++)
			if (player_shown(sv, cl, j, pvs) && !write_player(sv, cl, j, m))
				break;
		return;
	}

	const struct sv_grid *g = &sv->grid;
	int shown = 0, tests = 0;

	if (!write_player(sv, cl, cl->slot, m))
		return;
	int cx = g->cell_x[cl->slot], cy = g->cell_y[cl->slot];
	int rings = g->nx > g->ny ? g->nx : g->ny;

	for (int r = 0; r < rings && shown < SV_REPLY_PLAYERS && tests < SV_REPLY_TESTS; r++) {
		for (int y = cy - r; y <= cy + r; y++) {
			if (y < 0 || y >= g->ny)
				continue;
			/* the ring: full rows at the top and bottom, two cells
			 * in between */
			int step = (y == cy - r || y == cy + r) ? 1 : 2 * r;

			for (int x = cx - r; x <= cx + r; x += step ? step : 1) {
				if (x < 0 || x >= g->nx)
					continue;
				for (int j = g->head[y * g->nx + x]; j >= 0; j = g->next[j]) {
					if (j == cl->slot)
						continue;
					if (++tests > SV_REPLY_TESTS || shown >= SV_REPLY_PLAYERS)
						return;
					if (!player_shown(sv, cl, j, pvs))
						continue;
					if (!write_player(sv, cl, j, m))
						return;
					shown++;
				}
			}
		}
	}
}

/* ---- the player grid -------------------------------------------------- */

void sv_grid_init(struct server *sv)
{
	struct sv_grid *g = &sv->grid;
	const struct bsp_model *w = &sv->map->models[0];
	float sx = w->maxs[0] - w->mins[0], sy = w->maxs[1] - w->mins[1];

	g->cell = SV_GRID_CELL;
	while (sx / g->cell > SV_GRID_DIM || sy / g->cell > SV_GRID_DIM)
		g->cell *= 2;
	g->ox = w->mins[0];
	g->oy = w->mins[1];
	g->nx = (int)(sx / g->cell) + 1;
	g->ny = (int)(sy / g->cell) + 1;
	for (int i = 0; i < g->nx * g->ny; i++)
		g->head[i] = -1;
	for (int i = 0; i < sv->maxclients; i++) {
		g->cell_x[i] = g->cell_y[i] = 0;
		g->in[i] = false;
	}
}

void sv_grid_remove(struct server *sv, int slot)
{
	struct sv_grid *g = &sv->grid;
	int c;
	int16_t *p;

	if (!g->in[slot])
		return;
	c = g->cell_y[slot] * g->nx + g->cell_x[slot];
	for (p = &g->head[c]; *p >= 0; p = &g->next[*p])
		if (*p == slot) {
			*p = g->next[slot];
			break;
		}
	g->in[slot] = false;
}

/* put (or keep) a player in the cell of its origin; O(players in the
 * cell) when it changes cell, nothing otherwise */
void sv_grid_move(struct server *sv, int slot, const vec3_t org)
{
	struct sv_grid *g = &sv->grid;
	int x = (int)((org[0] - g->ox) / g->cell), y = (int)((org[1] - g->oy) / g->cell);

	if (x < 0)
		x = 0;
	if (x >= g->nx)
		x = g->nx - 1;
	if (y < 0)
		y = 0;
	if (y >= g->ny)
		y = g->ny - 1;
	if (g->in[slot] && g->cell_x[slot] == x && g->cell_y[slot] == y)
		return;
	sv_grid_remove(sv, slot);
	g->cell_x[slot] = (int16_t)x;
	g->cell_y[slot] = (int16_t)y;
	g->next[slot] = g->head[y * g->nx + x];
	g->head[y * g->nx + x] = (int16_t)slot;
	g->in[slot] = true;
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

static struct entity_state *ring_at(struct server *sv, uint32_t abs)
{
	return &sv->state_ring[abs & (sv->state_ring_size - 1)];
}

static bool emit_entities(struct server *sv, struct client *cl,
			  struct msg_buf *m, const struct client_frame *from,
			  uint32_t first, int *count, int max);

static void write_entities(struct server *sv, struct client *cl,
			   const uint8_t *pvs, struct msg_buf *m, int *nails,
			   int *num_nails)
{
	struct client_frame *frame = &cl->frames[cl->chan.incoming_sequence & UPDATE_MASK];
	int max = cl->extended ? QWDX_MAX_PACKET_ENTITIES : MAX_PACKET_ENTITIES;
	const struct game *g = sv->game;
	/* the map's and run-time entities: players travel in svc_playerinfo,
	 * and the extension's player slots sit from g->top up */
	int limit = g->num_entities < g->top ? g->num_entities : g->top;

	if (!cl->extended && limit > MAX_EDICTS_P28)
		limit = MAX_EDICTS_P28;
	struct client_frame *from = NULL;
	uint32_t first = sv->state_ring_next;
	int count = 0;

	*num_nails = 0;
	/* gather this reply's states into the ring */
	for (int num = MAX_CLIENTS + 1; num < limit; num++) {
		const struct game_entity *e = &g->ents[num];

		if (!e->inuse || !e->modelindex || e->is_static || e->client >= 0)
			continue;
		if (!obj_visible(&sv->objs[num], pvs))
			continue;
		if (e->nail) {
			if (*num_nails < SV_MAX_NAILS)
				nails[(*num_nails)++] = num;
			continue;
		}
		if (count == max)
			continue;
		if (sv->frame_stamp[num] != sv->reply_stamp) {
			sv_entity_state(sv, num, &sv->frame_states[num]);
			sv->frame_stamp[num] = sv->reply_stamp;
		}
		*ring_at(sv, first + (uint32_t)count) = sv->frame_states[num];
		count++;
	}
	sv->state_ring_next += (uint32_t)count;

	/* the delta base: asked for, recent enough, its states still there */
	if (cl->delta_sequence >= 0) {
		struct client_frame *f = &cl->frames[cl->delta_sequence & UPDATE_MASK];
		uint32_t age = cl->chan.incoming_sequence - f->sequence;

		if (f->valid && f->delta_base &&
		    (f->sequence & 0xff) == (uint32_t)cl->delta_sequence &&
		    age < UPDATE_BACKUP - 1 &&
		    sv->state_ring_next - f->first_state <= sv->state_ring_size)
			from = f;
	}
	size_t mark = m->cursize;

	if (!emit_entities(sv, cl, m, from, first, &count, max) && from) {
		/* the cut frame cannot be recorded against this base: a full
		 * update, cut where the room ends, instead */
		m->cursize = mark;
		m->overflowed = false;
		count = (int)(sv->state_ring_next - first);
		emit_entities(sv, cl, m, NULL, first, &count, max);
	}
	frame->first_state = first;
	frame->num_states = (uint16_t)count;
}

/* The list of a reply, merged against the base frame `from` (or full, if
 * NULL), states [first, first + *count) of the ring.  When the datagram's
 * room runs out, the list ends there: entities below the cut are sent,
 * and the client keeps those of the base above it unchanged (it copies an
 * old frame's rest), so this frame is recorded as exactly that: the sent
 * states, then the base's rest copied after them in the ring.  False when
 * such a frame cannot be recorded (the copy would overrun the base's states
 * in the ring, or exceed the per-reply count); nothing is then final. */
static bool emit_entities(struct server *sv, struct client *cl,
			  struct msg_buf *m, const struct client_frame *from,
			  uint32_t first, int *count, int max)
{
	enum { ENTITY_WORST = 20, END = 2 };
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
		const struct entity_state *ns = newi < n ? ring_at(sv, first + (uint32_t)newi) : NULL;
		const struct entity_state *os = oldi < oldmax ? ring_at(sv, from->first_state + (uint32_t)oldi) : NULL;
		int newnum = ns ? ns->number : 0x7fffffff;
		int oldnum = os ? os->number : 0x7fffffff;

		if (m->cursize + ENTITY_WORST + END > m->maxsize)
			break;
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

	if (tail > 0 && (newi + tail > max ||
			 end - (from->first_state + (uint32_t)oldi) > sv->state_ring_size))
		return false;
	for (int k = 0; k < tail; k++)
		*ring_at(sv, first + (uint32_t)(newi + k)) =
			*ring_at(sv, from->first_state + (uint32_t)(oldi + k));
	sv->state_ring_next = end;
	*count = newi + tail;
	sv->stats.entity_cuts++;
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

static void send_reply(struct server *sv, struct client *cl)
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
	reliable_fill(sv, cl);
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

		vec_copy(o->origin, view);
		view[2] += 22;	/* the eyes: QuakeWorld's view offset */
		bsp_fat_pvs(sv->map, view, sv->fatpvs);
		write_players(sv, cl, sv->fatpvs, &m);
		write_entities(sv, cl, sv->fatpvs, &m, nails, &num_nails);
		write_nails(sv, nails, num_nails, &m);
		/* the game's events since the last reply, if they fit */
		if (!m.overflowed && m.cursize + cl->datagram_len <= m.maxsize)
			msg_write_data(&m, cl->datagram, cl->datagram_len);
	}
	sv_download_datagram(sv, cl, &m);	/* a chunk, if it fits */
	cl->datagram_len = 0;
	if (m.overflowed)
		msg_clear(&m);	/* an unreliable part that did not fit is lost */

	frame = &cl->frames[cl->chan.outgoing_sequence & UPDATE_MASK];
	frame->sequence = cl->chan.outgoing_sequence;
	frame->senttime = sv->realtime;
	frame->ping_time = -1;
	frame->valid = true;
	/* a reply that may reach the client before a level reset it has not
	 * read would be wiped by it: never a delta base */
	frame->delta_base = cl->reset_state == SV_RESET_READ;
	if (cl->state != CS_SPAWNED)
		frame->num_states = 0;

	pkt = net_send_slot(sv->tx, &max);
	n = netchan_transmit(&cl->chan, m.data, m.cursize, sv->realtime, pkt, max);
	if (cl->chan.fatal_error) {
		sv_drop_client(sv, cl, "reliable channel overflowed");
		return;
	}
	/* the queued reset was in the message, which is now in flight */
	if (cl->reset_state == SV_RESET_QUEUED && cl->reset_backlog_end == 0 &&
	    cl->chan.message.cursize == 0)
		cl->reset_state = SV_RESET_SENT;
	if (sv->capture)
		capture_out(sv->capture, &cl->chan.remote, pkt, n, sv->realtime);
	net_send_commit(sv->tx, &cl->chan.remote, n);
	prof_reply(sv->prof, cl->slot, n);
	prof_request_done(sv->prof, cl->request_ns, prof_now(sv->prof));
	cl->replies++;
	sv->stats.replies++;
}

void sv_send_replies(struct server *sv)
{
	/* a new reply phase: every entity's state is made anew, once */
	if (++sv->reply_stamp == 0) {
		memset(sv->frame_stamp, 0, sizeof(*sv->frame_stamp) * (size_t)sv->max_entities);
		sv->reply_stamp = 1;
	}
	/* every 2 s, the scoreboard's pings and loss to stock clients (an
	 * extension client asks with "pings": to a thousand players the
	 * broadcast would be a million messages) */
	bool pings = sv->realtime - sv->last_pings > 2.0;

	if (pings)
		sv->last_pings = sv->realtime;
	for (int i = 0; i < sv->maxclients; i++) {
		struct client *cl = &sv->clients[i];

		if (cl->state < CS_CONNECTED)
			continue;
		if (cl->backlog_overflowed) {
			sv_drop_client(sv, cl, "too much reliable data queued");
			continue;
		}
		/* the scoreboard's pings wait for a drained backlog (the
		 * next ones come 2 s later) */
		if (pings && cl->state == CS_SPAWNED && !cl->extended &&
		    cl->backlog_len == 0)
			sv_send_pings(sv, cl);
		if (!cl->send_reply)
			continue;
		cl->send_reply = false;
		/* the rate: a spawned client's reply may be choked (and said
		 * so in the next one), and so may a stock download (a block
		 * per reply); the rest of the signon always goes, a chunked
		 * download's too (its chunks are paced in transfer.c) */
		if ((cl->state == CS_SPAWNED ||
		     (cl->dl.open && !(cl->fte & FTE_PEXT_CHUNKEDDOWNLOADS))) &&
		    !netchan_can_packet(&cl->chan, sv->realtime)) {
			cl->chokecount++;
			sv->stats.chokes++;
			continue;
		}
		send_reply(sv, cl);
	}
	sv_download_pump(sv);	/* chunks out of band, after the replies */
	net_send_flush(sv->tx);
}

/* ---- the stock entity layout, for the demo writer (mvd.c) ------------- */

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
