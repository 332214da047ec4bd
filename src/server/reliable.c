/*
 * reliable.c -- the reliable stream to each client: its backlog, other
 * players' texts and states, the scoreboard's pings.
 *
 * Design note
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
 *   Nothing here allocates: the backlog and the pending sets are part of
 *   struct client, sized at start-up.
 */
#include "core.h"

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

/* backlog records: uint16 length, then the bytes; the queue starts at
 * backlog_off, so a drain moves no bytes (an append moves the queue to
 * the front only when it would run past the end) */
static void backlog_drain(struct client *cl)
{
	const uint8_t *q = cl->backlog + cl->backlog_off;
	size_t pos = 0;

	while (pos + 2 <= cl->backlog_len) {
		size_t n = (size_t)q[pos] | (size_t)q[pos + 1] << 8;

		if (cl->chan.message.cursize + n > reliable_limit(cl) &&
		    cl->chan.message.cursize > 0)
			break;
		msg_write_data(&cl->chan.message, q + pos + 2, n);
		pos += 2 + n;
	}
	if (pos) {
		cl->backlog_len -= pos;
		cl->backlog_off = cl->backlog_len ? cl->backlog_off + pos : 0;
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
		sv_mark_due(cl);
		return;
	}
	if (cl->backlog_off + cl->backlog_len + 2 + len > SV_BACKLOG) {
		memmove(cl->backlog, cl->backlog + cl->backlog_off, cl->backlog_len);
		cl->backlog_off = 0;
	}

	uint8_t *end = cl->backlog + cl->backlog_off + cl->backlog_len;

	end[0] = (uint8_t)len;
	end[1] = (uint8_t)(len >> 8);
	memcpy(end + 2, data, len);
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
	sv_hooks_message(sv, -1, 0, buf, n);
	for (int i = 0; i < sv->maxclients; i++)
		if (sv->clients[i].state == CS_SPAWNED)
			sv_reliable_text(sv, &sv->clients[i], buf, n);
}

/* The head of a per-slot message: protocol 28's byte slot below 32, the
 * extension's form with a short slot above (docs/protocol-extension.md). */
static uint8_t *put_slot(uint8_t *p, int svc, int svcx, int slot)
{
	if (slot >= MAX_CLIENTS) {
		p = msg_put_byte(p, svcx);
		return msg_put_short(p, slot);
	}
	p = msg_put_byte(p, svc);
	return msg_put_byte(p, slot);
}

/* one per-slot head into m (none of it when it does not fit) */
static void write_slot(struct msg_buf *m, int svc, int svcx, int slot)
{
	uint8_t *p = msg_get_space(m, slot >= MAX_CLIENTS ? 3 : 2);

	if (p)
		put_slot(p, svc, svcx, slot);
}

/* the userinfo other players see of who ("" when the slot is empty; no
 * secrets: password is never kept), its length without the terminator */
static const char *shown_info(const struct client *who, size_t *len)
{
	if (who->state < CS_CONNECTED) {
		*len = 0;
		return "";
	}
	*len = strnlen(who->userinfo, sizeof(who->userinfo) - 1);
	return who->userinfo;
}

/* the bytes sv_write_client_info writes for who: five per-slot heads,
 * frags, ping, loss, enter time, userid, the userinfo string */
static size_t client_info_size(const struct client *who)
{
	size_t len;

	shown_info(who, &len);
	return 5 * (who->slot >= MAX_CLIENTS ? 3 : 2) + 2 + 2 + 1 + 4 + 4 +
	       len + 1;
}

/* Everything a client shows about another player: frags, ping, loss,
 * enter time, userinfo.  Slots past 32 use the extension's messages.
 * One write of client_info_size bytes (none of it when it does not fit);
 * the same bytes for every receiver, so a flush can size it before it
 * builds it. */
void sv_write_client_info(struct server *sv, struct client *to,
			  struct client *who, struct msg_buf *m)
{
	bool present = who->state >= CS_CONNECTED;
	float enter = present ? (float)(sv->realtime - who->connect_time) : 0.0f;
	uint32_t enter_bits;
	size_t len;
	const char *info = shown_info(who, &len);
	uint8_t *p = msg_get_space(m, client_info_size(who));

	(void)to;
	if (!p)
		return;
	memcpy(&enter_bits, &enter, sizeof(enter_bits));
	p = put_slot(p, svc_updatefrags, svcx_updatefrags, who->slot);
	p = msg_put_short(p, present ? who->frags : 0);
	p = put_slot(p, svc_updateping, svcx_updateping, who->slot);
	p = msg_put_short(p, 0);
	p = put_slot(p, svc_updatepl, svcx_updatepl, who->slot);
	p = msg_put_byte(p, present ? who->lossage : 0);
	p = put_slot(p, svc_updateentertime, svcx_updateentertime, who->slot);
	p = msg_put_long(p, (int32_t)enter_bits);
	p = put_slot(p, svc_updateuserinfo, svcx_updateuserinfo, who->slot);
	p = msg_put_long(p, present ? who->userid : 0);
	memcpy(p, info, len);
	p[len] = '\0';
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
	int w = cl->info_cursor >> 6;

	if (cl->frags_pending_count)
		frags_flush(sv, cl, cap);
	if (cl->styles_pending)
		styles_flush(sv, cl, cap);
	for (int n = 0; n <= WORDS && cl->info_pending_count > 0; n++, w = (w + 1) % WORDS) {
		while (cl->info_pending[w]) {
			int slot = w * 64 + __builtin_ctzll(cl->info_pending[w]);
			struct client *who = slot < sv->maxclients ? &sv->clients[slot] : NULL;

			/* sized first: an info that does not fit is not built
			 * (in a crowd every reply stops at one) */
			if (cl->chan.message.cursize + (who ? client_info_size(who) : 0) > cap) {
				cl->info_cursor = slot;
				return;
			}
			if (who)
				sv_write_client_info(sv, cl, who, &cl->chan.message);
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
	return (size_t)cl->backlog[cl->backlog_off] |
	       (size_t)cl->backlog[cl->backlog_off + 1] << 8;
}

/* The next reliable message, from the backlog and the pending sets (the
 * order is the design note's). */
void sv_reliable_fill(struct server *sv, struct client *cl)
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

/* Everyone's ping and packet loss (the scoreboard), slots from *from
 * below limit, into m while they fit; *from is left at the first slot not
 * written. */
static void write_pings(struct server *sv, int *from, int limit,
			struct msg_buf *m)
{
	for (; *from < limit; (*from)++) {
		const struct client *c = &sv->clients[*from];

		if (c->state != CS_SPAWNED)
			continue;
		if (m->cursize + 12 > m->maxsize)
			return;
		write_slot(m, svc_updateping, svcx_updateping, *from);
		msg_write_short(m, sv_client_ping(c));
		write_slot(m, svc_updatepl, svcx_updatepl, *from);
		msg_write_byte(m, c->lossage);
	}
}

/* Everyone's ping and packet loss to one client; slots past 32 only to
 * extension clients. */
void sv_send_pings(struct server *sv, struct client *cl)
{
	int limit = cl->extended ? sv->maxclients
				 : (sv->maxclients < MAX_CLIENTS ? sv->maxclients : MAX_CLIENTS);
	uint8_t buf[MAX_MSGLEN];
	struct msg_buf m;
	int from = 0;

	do {
		msg_init(&m, buf, sizeof(buf));
		write_pings(sv, &from, limit, &m);
		sv_reliable_write(cl, m.data, m.cursize);
	} while (from < limit);
}

/* The same to a stock client during a reply phase: every stock client
 * gets the same bytes, so they are made once per phase. */
void sv_send_stock_pings(struct server *sv, struct client *cl)
{
	struct msg_buf m;
	int from = 0;

	if (sv->stock_pings_stamp != sv->reply_stamp) {
		msg_init(&m, sv->stock_pings, sizeof(sv->stock_pings));
		write_pings(sv, &from, sv->maxclients < MAX_CLIENTS ? sv->maxclients
								   : MAX_CLIENTS, &m);
		sv->stock_pings_len = m.cursize;
		sv->stock_pings_stamp = sv->reply_stamp;
	}
	sv_reliable_write(cl, sv->stock_pings, sv->stock_pings_len);
}

void sv_serverinfo_changed(struct server *sv, const char *key,
			   const char *value)
{
	for (int i = 0; i < sv->maxclients && sv->clients; i++) {
		uint8_t buf[200];
		struct msg_buf m;

		if (sv->clients[i].state < CS_CONNECTED)
			continue;
		msg_init(&m, buf, sizeof(buf));
		msg_write_byte(&m, svc_serverinfo);
		msg_write_string(&m, key);
		msg_write_string(&m, value);
		sv_reliable_write(&sv->clients[i], m.data, m.cursize);
	}
}
