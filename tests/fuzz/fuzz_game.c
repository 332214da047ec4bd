/*
 * fuzz_game.c -- libFuzzer target: what a connected client sends (clc_move,
 * clc_stringcmd, clc_delta; the signon and the other string commands),
 * and the reply the server builds for it.
 *
 * Design note
 *   Set-up (once): a server on a real map (netfix.c) and three protocol
 *   clients (src/client) brought in through the real handshake over the
 *   loopback, in lockstep with server_frame (fx_script): a stock client
 *   and one that negotiated QWDX, both in the game and exchanging
 *   delta-compressed replies, and a stock client stopped in its signon
 *   (model list received, prespawn next), since a client in the game
 *   ignores every signon command.  Then the server's copy of each client
 *   (struct client), the clients' own state, and the level are saved:
 *   the game (struct game, its entities and clients: a shot spawns a
 *   rocket, a touch picks up an item or fires a trigger), the collision
 *   objects, the player grid, the light styles, a pending level change,
 *   the reply state ring's cursor and the clock.
 *
 *   Input: one option byte, then the payload of one datagram.
 *     bits 0-2  sequence gap: 0-6 packets lost before this one, 7 = 25
 *               (past the 20 that execute_move replays)
 *     bit 3     the header says the packet carries a reliable message
 *     bit 4     sent by the QWDX client instead of the stock one
 *     bit 5     sent by the client in its signon (overrides bit 4)
 *     bit 6     then let the client answer: its library's own next
 *               datagram (qwc_packet: the ack, clc_delta, the commands the
 *               reply stuffed) 0.1 s later, and the server reply again --
 *               the second round drains the reliable backlog the first
 *               filled and acknowledges or resends the reliable message
 *   The harness writes the netchan header the sending client would write
 *   next (its next sequence plus the gap, its ack and even/odd bit, its
 *   qport) and hands the datagram to netchan_process and sv_client_packet,
 *   the path receive_packet() in frame.c takes (receive_packet is static;
 *   both calls are the server's own entry points, so no hook is needed),
 *   then sv_send_replies builds the reply.
 *   A move's checksum byte depends on the sequence, which the input does
 *   not know: in the input it is the difference (XOR) from the right one,
 *   so 0 is a valid move and anything else a failed checksum.
 *
 *   Every input starts from the saved state (restored by a few memcpy,
 *   not replayed, so the run keeps thousands of inputs a second): every
 *   client is put back where it was whatever the last input did (drop,
 *   kill, spawn, a download, a backlog overflow), so one input always
 *   meets the same server and a finding replays alone.  A dropped client
 *   is thus "reconnected" by restoring the state its real handshake
 *   reached, at no cost.
 *
 *   Checks beyond ASan/UBSan (a broken one aborts):
 *   - the server: the sender's name non-empty and free of control
 *     characters, userinfo terminated, reliable queues within bounds, a
 *     spawned player has a player entity, a finite origin and velocity;
 *     a client not in the game has no solid player box left behind;
 *   - the reply: the sending client's library parses it (it is the
 *     client's next datagram) and must count no malformed message
 *     (truncated, unknown svc, out of range, bad delta base, bad entity
 *     list, stuffed line too long; game_check_reply says why signon order
 *     is not checked).
 *
 *   Built a second time with -DFUZZ_STRINGCMDS as fuzz_stringcmd: the
 *   same set-up, checks and option byte, but the rest of the input is
 *   text, one in-game string command a line ("say ...", "setinfo ...",
 *   "download ...", "kill", the signon steps), each sent as its own
 *   clc_stringcmd in one datagram.  The packet target spends most of its
 *   inputs on the datagram's framing; this one spends them on what the
 *   commands' own parsers and budgets do with their arguments.
 */
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netfix.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
	GAME_PLAYERS = FX_CLIENTS,
	GAME_GAP_MASK = 7,
	GAME_BIG_GAP = 25,
	GAME_RELIABLE = 8,
	GAME_QWDX = 16,
	GAME_SIGNER = 32,
	GAME_ANSWER = 64
};

#define GAME_TICK 0.02	/* clock advance of every input over the copy */
#define GAME_ANSWER_DELAY 0.1	/* before the client's answer */

struct game_player {
	struct fx_client *c;	/* its protocol client, in game->c */
	int slot;
	/* the server's side and the client's, as saved */
	struct client cl;
	struct fx_qwc_copy view;
};

/* The level as saved: the game (its struct, entities, clients), the
 * collision objects, and the server's state around them. */
struct game_level {
	struct game g;
	struct game_entity *ents;	/* g.max_entities */
	struct game_client *clients;	/* g.max_clients */
	struct world_obj *objs;		/* g.max_entities */
	struct sv_grid grid;
	char lightstyles[MAX_LIGHTSTYLES][MAX_STYLESTRING];
	char pending_map[64];
	double realtime, time;
	uint32_t state_ring_next;
};

struct game_fix {
	struct fx fx;
	struct fx_client c[GAME_PLAYERS];	/* fx_script's clients */
	struct game_player pl[GAME_PLAYERS];
	struct game_level level;
	uint8_t pkt[NET_MAX_UDP_PACKET];
	/* fuzz_stringcmd: the commands of one input, as a datagram's payload */
	uint8_t cmds[NET_MAX_UDP_PACKET - NETCHAN_HEADER_QPORT];
};

static struct game_fix *game;

static void game_fail(const char *what, long a, long b)
{
	fprintf(stderr, "fuzz_game: contract broken: %s [%ld %ld]\n", what, a,
		b);
	abort();
}

static void game_cleanup(void)
{
	if (!game)
		return;
	for (int i = 0; i < GAME_PLAYERS; i++) {
		fx_client_close(&game->c[i]);
		fx_qwc_copy_free(&game->pl[i].view);
	}
	free(game->level.ents);
	free(game->level.clients);
	free(game->level.objs);
	fx_close(&game->fx);
	free(game);
	game = NULL;
}

static int game_find_slot(const struct server *sv, uint16_t qport)
{
	for (int i = 0; i < sv->maxclients; i++)
		if (sv->clients[i].state >= CS_CONNECTED &&
		    sv->clients[i].chan.qport == qport)
			return i;
	return -1;
}

static int game_save_level(struct server *sv)
{
	struct game_level *l = &game->level;
	const struct game *g = sv->game;

	l->g = *g;
	l->ents = malloc((size_t)g->max_entities * sizeof(*l->ents));
	l->clients = malloc((size_t)g->max_clients * sizeof(*l->clients));
	l->objs = malloc((size_t)g->max_entities * sizeof(*l->objs));
	if (!l->ents || !l->clients || !l->objs)
		return -1;
	memcpy(l->ents, g->ents, (size_t)g->max_entities * sizeof(*l->ents));
	memcpy(l->clients, g->clients,
	       (size_t)g->max_clients * sizeof(*l->clients));
	memcpy(l->objs, sv->objs, (size_t)g->max_entities * sizeof(*l->objs));
	l->grid = sv->grid;
	memcpy(l->lightstyles, sv->lightstyles, sizeof(l->lightstyles));
	memcpy(l->pending_map, sv->pending_map, sizeof(l->pending_map));
	l->realtime = sv->realtime;
	l->time = sv->time;
	l->state_ring_next = sv->workers[0].ring.next;
	return 0;
}

static int game_save(void)
{
	struct server *sv = game->fx.sv;

	for (int i = 0; i < GAME_PLAYERS; i++) {
		struct game_player *p = &game->pl[i];
		enum client_state want = i == FX_SIGNER ? CS_CONNECTED : CS_SPAWNED;

		p->slot = game_find_slot(sv, p->c->q.opt.qport);
		if (p->slot < 0 || sv->clients[p->slot].state != want) {
			fprintf(stderr, "fuzz_game: client %d not where the script "
				"left it (%s)\n", i, qwc_state_name(p->c->q.state));
			return -1;
		}
		p->cl = sv->clients[p->slot];
		if (fx_qwc_save(&p->view, &p->c->q) != 0)
			return -1;
	}
	return game_save_level(sv);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct fx *f;

	(void)argc;
	(void)argv;
	game = calloc(1, sizeof(*game));
	if (!game)
		exit(1);
	for (int i = 0; i < GAME_PLAYERS; i++) {
		game->c[i].fd = -1;
		game->pl[i].c = &game->c[i];
	}
	atexit(game_cleanup);
	f = &game->fx;
	if (fx_open(f, FX_MAXCLIENTS) != 0)
		exit(1);
	if (fx_script(f, game->c, NULL, NULL, NULL) != 0)
		exit(1);
	if (game_save() != 0)
		exit(1);
	return 0;
}

/* a collision object back as saved, relinked if it changed (its list
 * links are not compared: they change with its neighbours) */
static void game_restore_obj(struct world *w, struct world_obj *o,
			     const struct world_obj *saved)
{
	const size_t skip = sizeof(o->link);
	struct area_link unlinked;

	if (memcmp((const char *)o + skip, (const char *)saved + skip,
		   sizeof(*o) - skip) == 0)
		return;
	world_unlink(w, o);
	unlinked = o->link;
	*o = *saved;
	o->link = unlinked;
	o->linked = false;
	if (saved->linked)
		world_link(w, o);
}

/* The level back as saved.  Entities and objects are compared first and
 * copied only when they differ: an input touches a few (the player, a
 * rocket, an item), and relinking all of them would cost a millisecond. */
static void game_restore_level(struct server *sv)
{
	const struct game_level *l = &game->level;
	struct game *g = sv->game;
	int n = g->num_entities > l->g.num_entities ? g->num_entities
						    : l->g.num_entities;

	if (n > g->max_entities)
		n = g->max_entities;
	/* the level's entities, and the players of the slots past 32 at the
	 * top (a QWDX client's: the server has slots there beside the
	 * spectators') */
	for (int i = 0; i < g->max_entities; i++) {
		if (i == n)
			i = l->g.top > n ? l->g.top : n;
		if (i >= g->max_entities)
			break;
		if (memcmp(&g->ents[i], &l->ents[i], sizeof(g->ents[i])) != 0)
			g->ents[i] = l->ents[i];
		game_restore_obj(&sv->world, &sv->objs[i], &l->objs[i]);
	}
	*g = l->g;
	memcpy(g->clients, l->clients, (size_t)g->max_clients * sizeof(*l->clients));
	sv->grid = l->grid;
	memcpy(sv->lightstyles, l->lightstyles, sizeof(l->lightstyles));
	memcpy(sv->pending_map, l->pending_map, sizeof(l->pending_map));
	sv->realtime = l->realtime + GAME_TICK;
	sv->time = l->time + GAME_TICK;
	sv->workers[0].ring.next = sv->workers[0].ring.reach = l->state_ring_next;
}

static void game_restore(void)
{
	struct server *sv = game->fx.sv;

	for (int i = 0; i < GAME_PLAYERS; i++) {
		struct game_player *p = &game->pl[i];
		struct client *cl = &sv->clients[p->slot];

		/* the copy has no download going */
		sv_file_close(&sv->downloads->slot[p->slot].file);
		memset(&sv->downloads->slot[p->slot], 0, sizeof(struct sv_download));
		*cl = p->cl;
		cl->chan.message.data = cl->chan.message_buf;
	}
	game_restore_level(sv);
	sv_rehash_clients(sv);
}

/* the datagram the client would send next, with the input's payload */
static size_t game_build(struct game_player *p, uint8_t opt,
			 const uint8_t *payload, size_t len)
{
	struct netchan *ch = &p->c->q.chan;
	uint32_t gap = opt & GAME_GAP_MASK;
	uint32_t seq, w1, w2;
	uint8_t *pkt = game->pkt;
	size_t cks, end;

	if (gap == GAME_GAP_MASK)
		gap = GAME_BIG_GAP;
	seq = ch->outgoing_sequence + gap;
	w1 = seq | ((opt & GAME_RELIABLE) ? 0x80000000u : 0);
	w2 = ch->incoming_sequence |
	     ((uint32_t)ch->incoming_reliable_sequence << 31);
	for (int i = 0; i < 4; i++) {
		pkt[i] = (uint8_t)(w1 >> (8 * i));
		pkt[4 + i] = (uint8_t)(w2 >> (8 * i));
	}
	pkt[8] = (uint8_t)ch->qport;
	pkt[9] = (uint8_t)(ch->qport >> 8);
	if (len)
		memcpy(pkt + NETCHAN_HEADER_QPORT, payload, len);
	if (fx_find_move(pkt + NETCHAN_HEADER_QPORT, len, &cks, &end)) {
		uint8_t *m = pkt + NETCHAN_HEADER_QPORT;

		m[cks] ^= com_block_sequence_crc_byte(m + cks + 1, end - cks - 1,
						      seq);
	}
	/* the client has now sent it: the reply's ack is legitimate */
	ch->outgoing_sequence = seq + 1;
	return NETCHAN_HEADER_QPORT + len;
}

/* receive_packet's path, minus the socket and the client lookup */
static void game_deliver(struct game_player *p, size_t len)
{
	struct server *sv = game->fx.sv;
	struct client *cl = &sv->clients[p->slot];
	struct msg_buf m;
	uint16_t qport;

	msg_init_read(&m, game->pkt, len);
	if (!netchan_peek_qport(&m, &qport) || qport != cl->chan.qport)
		game_fail("fixture: the header does not name the client", qport,
			  cl->chan.qport);
	if (netchan_process(&cl->chan, &m, sv->realtime))
		sv_client_packet(sv, cl, &m);
}

static void game_drain(int fd, struct qwc *q, double now)
{
	int got;

	while ((got = net_udp_recv_batch(fd, game->fx.rx, &game->fx.net)) > 0) {
		for (int i = 0; i < got && q; i++)
			qwc_receive(q, game->fx.rx->packets[i].data,
				    game->fx.rx->packets[i].len, now);
		if (got < NET_BATCH)
			break;
	}
}

static void game_check_server(const struct game_player *p)
{
	const struct server *sv = game->fx.sv;
	const struct client *cl = &sv->clients[p->slot];
	int num = sv_player_entity(sv, p->slot);
	const struct world_obj *o = &sv->objs[num];

	if (cl->state != CS_SPAWNED && o->linked && o->solid != SOLID_NOT)
		game_fail("solid player box of a client not in the game",
			  p->slot, cl->state);
	if (cl->state < CS_CONNECTED)
		return;
	if (!memchr(cl->name, '\0', sizeof(cl->name)) || !cl->name[0])
		game_fail("client name empty or unterminated", p->slot, 0);
	for (const char *s = cl->name; *s; s++)
		if ((unsigned char)*s < 32)
			game_fail("control character in a client name", p->slot,
				  (unsigned char)*s);
	if (!memchr(cl->userinfo, '\0', sizeof(cl->userinfo)))
		game_fail("userinfo unterminated", p->slot, 0);
	if (cl->backlog_len > SV_BACKLOG ||
	    cl->chan.message.cursize > cl->chan.message.maxsize)
		game_fail("reliable queue past its size", (long)cl->backlog_len,
			  (long)cl->chan.message.cursize);
	if (cl->state != CS_SPAWNED)
		return;
	if (!sv->game->ents[num].inuse)
		game_fail("spawned client without a player entity", p->slot, num);
	for (int k = 0; k < 3; k++) {
		const struct pmove_player *pm = &sv->game->clients[p->slot].pm;

		if (!isfinite(pm->origin[k]) || !isfinite(pm->velocity[k]) ||
		    !isfinite(o->origin[k]))
			game_fail("player origin or velocity not finite", p->slot, k);
	}
}

/* The sender parsed the reply: nothing in it may be malformed.  Not
 * counted: connectionless and header kinds (none reach the parser), and
 * signon messages out of order: a fuzzed client asks for signon steps in
 * any order (spawn, then modellist, in one packet), the server answers
 * each in order, and the client library then sees a model list after
 * "skins" -- the request's fault, not the reply's. */
static void game_check_reply(const struct game_player *p)
{
	const struct qwc_stats *now = &p->c->q.stats;
	const struct qwc_stats *was = &p->view.q.stats;

	for (int k = 0; k < QWC_BAD_KINDS; k++) {
		if (k == QWC_BAD_OOB || k == QWC_BAD_HEADER ||
		    k == QWC_BAD_STALE || k == QWC_BAD_SIGNON)
			continue;
		if (now->bad[k] != was->bad[k]) {
			char what[128];

			snprintf(what, sizeof(what), "the server sent what its "
				 "client counts as bad: %s",
				 qwc_bad_name((enum qwc_bad_kind)k));
			fprintf(stderr, "fuzz_game: reply to client %d (last svc "
				"%d, unknown svc %d)\n", p->slot, now->last_svc,
				now->last_bad_svc);
			game_fail(what, k, (long)now->bad[k]);
		}
	}
}

/* one exchange: the datagram in game->pkt to the server, the reply back
 * to the sender's client library, both sides checked */
static void game_exchange(struct game_player *p, size_t n, double now)
{
	struct server *sv = game->fx.sv;
	struct client *cl = &sv->clients[p->slot];
	uint64_t replies = cl->replies, drops = sv->stats.drops;

	game_deliver(p, n);
	sv_send_replies(sv);
	game_check_server(p);
	/* the loopback delivers at once; wait a little only if it did not */
	if (cl->replies != replies || sv->stats.drops != drops) {
		struct pollfd pf = { .fd = p->c->fd, .events = POLLIN };

		poll(&pf, 1, 20);
	}
	game_drain(p->c->fd, &p->c->q, now);
	game_check_reply(p);
}

#ifdef FUZZ_STRINGCMDS
/* text lines -> clc_stringcmd messages in game->cmds, cut where a
 * datagram's payload ends; returns the payload's length */
static size_t game_stringcmds(const uint8_t *text, size_t len)
{
	size_t room = sizeof(game->cmds), n = 0, i = 0;

	while (i < len) {
		const uint8_t *nl = memchr(text + i, '\n', len - i);
		size_t line = nl ? (size_t)(nl - (text + i)) : len - i;

		if (n + line + 2 > room)
			break;
		game->cmds[n++] = clc_stringcmd;
		for (size_t k = 0; k < line; k++)	/* a NUL would end it early */
			game->cmds[n++] = text[i + k] ? text[i + k] : ' ';
		game->cmds[n++] = '\0';
		i += line + 1;
	}
	return n;
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct game_player *p;
	struct qwc *q;
	size_t n;

	if (size < 1 || size - 1 > sizeof(game->pkt) - NETCHAN_HEADER_QPORT)
		return 0;
	p = &game->pl[(data[0] & GAME_SIGNER) ? FX_SIGNER
			: (data[0] & GAME_QWDX) ? FX_WIDE : FX_STOCK];
	q = &p->c->q;
	game_restore();
	fx_qwc_restore(q, &p->view);
	/* anything still queued on the socket belongs to an older input */
	game_drain(p->c->fd, NULL, 0);

#ifdef FUZZ_STRINGCMDS
	n = game_stringcmds(data + 1, size - 1);
	game_exchange(p, game_build(p, data[0], game->cmds, n), p->c->now);
#else
	game_exchange(p, game_build(p, data[0], data + 1, size - 1), p->c->now);
#endif
	if (!(data[0] & GAME_ANSWER) || q->state < QWC_CONNECTED ||
	    q->state > QWC_ACTIVE)
		return 0;
	/* the client answers as it would (acks, deltas, the commands the
	 * reply stuffed), a frame later so the rate lets the reply go */
	game->fx.sv->realtime += GAME_ANSWER_DELAY;
	game->fx.sv->time += GAME_ANSWER_DELAY;
	n = qwc_packet(q, p->c->now + GAME_ANSWER_DELAY, true, game->pkt,
		       sizeof(game->pkt));
	if (n)
		game_exchange(p, n, p->c->now + GAME_ANSWER_DELAY);
	return 0;
}
