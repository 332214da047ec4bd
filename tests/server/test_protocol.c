/*
 * test_protocol.c -- the server against real protocol-28 clients
 * (src/client), end to end over UDP on the loopback, in one thread.
 *
 * Design note
 *   The fixture (srvfix.h) starts a struct server in-process on 127.0.0.1
 *   with an empty temporary base directory on one of the project's maps
 *   (small, changing to large), and the tests alternate server frames with
 *   client steps.  A second group runs the tests that walk and shoot and
 *   change maps again on two community maps (lqdm1, lqdm2, from the
 *   realmaps folder): a map compiled by another tool is an extra check,
 *   skipped when that folder is absent.  Assertions are about behaviour
 *   (states, positions, counters), never about how long things took.
 */
#include "../harness.h"
#include "srvfix.h"

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- tests ------------------------------------------------------------ */

static void test_oob_queries(void **state)
{
	struct srvfix *f = *state;
	uint8_t rep[1500];
	char text[1500];
	uint8_t k = 'k';
	int fd;

	srvfix_start(f, 8);
	fd = srvfix_socket(f, NULL);
	assert_true(fd >= 0);

	/* "ping" both ways: the bare byte 'l' */
	assert_int_equal(srvfix_exchange(f, fd, &k, 1, rep, sizeof(rep), 2.0), 1);
	assert_int_equal(rep[0], A2A_ACK);
	{
		uint8_t req[32];
		size_t n = qwc_build_oob(req, sizeof(req), "ping\n");

		assert_int_equal(srvfix_exchange(f, fd, req, n, rep, sizeof(rep), 2.0), 1);
		assert_int_equal(rep[0], A2A_ACK);
	}

	/* status: 'n', the serverinfo with the map */
	assert_true(srvfix_oob_text(f, fd, "status\n", text, sizeof(text)) > 1);
	assert_int_equal(text[0], A2C_PRINT);
	{
		char map[64];

		snprintf(map, sizeof(map), "\\map\\%s", f->maps[0]);
		assert_non_null(strstr(text, map));
	}
	assert_non_null(strstr(text, "\\maxclients\\8"));

	/* getchallenge: 'c' and a positive number */
	assert_true(srvfix_oob_text(f, fd, "getchallenge\n", text, sizeof(text)) > 1);
	assert_int_equal(text[0], S2C_CHALLENGE);
	assert_true(atol(text + 1) > 0);

	/* an unknown request gets nothing and is counted */
	{
		uint64_t bad = f->sv->stats.bad[BAD_OOB];

		assert_int_equal(srvfix_oob_text(f, fd, "frobnicate\n", text, sizeof(text)), 0);
		assert_int_equal(f->sv->stats.bad[BAD_OOB], bad + 1);
	}
}

static void test_connect_refusals(void **state)
{
	struct srvfix *f = *state;
	char rep[512];

	srvfix_start(f, 2);
	srvfix_connect_udp(f, PROTOCOL_VERSION, true, false, rep, sizeof(rep));
	assert_int_equal(rep[0], A2C_PRINT);
	assert_non_null(strstr(rep, "bad challenge"));

	srvfix_connect_udp(f, 27, false, false, rep, sizeof(rep));
	assert_int_equal(rep[0], A2C_PRINT);
	assert_non_null(strstr(rep, "wrong protocol"));

	/* two slots: two connects fit, the third is refused */
	srvfix_connect_udp(f, PROTOCOL_VERSION, false, false, rep, sizeof(rep));
	assert_int_equal(rep[0], S2C_CONNECTION);
	srvfix_connect_udp(f, PROTOCOL_VERSION, false, false, rep, sizeof(rep));
	assert_int_equal(rep[0], S2C_CONNECTION);
	srvfix_connect_udp(f, PROTOCOL_VERSION, false, false, rep, sizeof(rep));
	assert_int_equal(rep[0], A2C_PRINT);
	assert_non_null(strstr(rep, "server is full"));
}

static void test_connect_spawn_move(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *t;
	vec3_t start, dir, moved;
	float yaw;
	double end;

	srvfix_start(f, 8);
	t = srvfix_client(f, NULL, "walker", false, NULL);
	srvfix_connect(t);
	if (!srvfix_until_all(f, QWC_ACTIVE, 5.0))
		srvfix_dump_client(t);
	assert_int_equal(t->q.state, QWC_ACTIVE);
	assert_int_equal(t->q.protocol, PROTOCOL_VERSION);
	assert_string_equal(t->q.mapmodel, srvfix_map_model(f, 0));
	assert_int_equal(t->q.playernum, 0);
	assert_int_equal(f->sv->clients[0].state, CS_SPAWNED);
	assert_true(t->q.setangles > 0);
	assert_int_equal(t->q.stat[STAT_HEALTH], 100);
	/* its own userinfo came back in the spawn pages */
	assert_true(t->q.players[0].present);
	assert_string_equal(t->q.players[0].name, "walker");

	/* stand still a moment, then walk forward (the spawn's facing) */
	srvfix_run(f, 0.3, true);
	vec_copy(t->q.self_origin, start);
	yaw = t->q.setangle[1];
	t->q.cmd.angles[1] = yaw;
	t->q.cmd.forwardmove = 400;
	end = server_clock() + 1.0;
	while (server_clock() < end)
		srvfix_step(f, true);
	t->q.cmd.forwardmove = 0;
	srvfix_run(f, 0.1, true);
	vec_sub(t->q.self_origin, start, moved);
	vec_set(dir, cosf(yaw * (float)M_PI / 180.0f), sinf(yaw * (float)M_PI / 180.0f), 0);
	fprintf(stderr, "walked from %.1f %.1f %.1f by %.1f %.1f %.1f (yaw %.1f)\n",
		start[0], start[1], start[2], moved[0], moved[1], moved[2], yaw);
	assert_true(vec_dot(moved, dir) > 64.0f);
	/* mostly along the facing, not sideways */
	assert_true(fabsf(moved[0] * dir[1] - moved[1] * dir[0]) < vec_dot(moved, dir));
	assert_true(f->sv->stats.requests > 50);
	assert_int_equal(f->sv->stats.bad[BAD_CHECKSUM], 0);
	/* requests are acknowledged by replies */
	assert_true(t->q.stats.acks > 50);
	/* replies are deltas against frames the client acknowledged */
	fprintf(stderr, "packetentities %llu, deltas %llu, entities now %d\n",
		(unsigned long long)t->q.stats.packetentities,
		(unsigned long long)t->q.stats.deltas,
		qwc_current_frame(&t->q) ? qwc_current_frame(&t->q)->num : -1);
	assert_true(t->q.stats.deltas > 10);
	assert_non_null(qwc_current_frame(&t->q));
	for (int k = 0; k < QWC_BAD_KINDS; k++)
		assert_int_equal(t->q.stats.bad[k], 0);
}

/* Player j's entry as viewer v gets it, from the player's cached entry,
 * is the same as the one encoded anew (the cache emptied first). */
static void assert_entry_direct(struct server *sv, int v, int j)
{
	uint8_t a[64], b[64];
	struct msg_buf ma, mb;

	msg_init(&ma, a, sizeof(a));
	msg_init(&mb, b, sizeof(b));
	assert_true(sv_write_player(sv, &sv->clients[v], j, &ma));
	sv->entries[j].valid = false;
	assert_true(sv_write_player(sv, &sv->clients[v], j, &mb));
	assert_int_equal(ma.cursize, mb.cursize);
	assert_memory_equal(a, b, ma.cursize);

	/* and both carry the player's state now: origin, frame, msec */
	const struct client *pc = &sv->clients[j];
	int num = game_player_entity(sv->game, j);
	int flags, msec = (int)(1000.0 * (sv->time - sv->entries[j].localtime));

	assert_int_equal(msg_read_byte(&ma), svc_playerinfo);
	assert_int_equal(msg_read_byte(&ma), j);
	flags = msg_read_short(&ma);
	for (int k = 0; k < 3; k++)
		assert_int_equal(msg_read_short(&ma),
				 (int)lrintf(sv->objs[num].origin[k] * 8.0f));
	assert_int_equal(msg_read_byte(&ma), sv->game->ents[num].frame);
	assert_int_equal(!!(flags & PF_MSEC), v != j && !pc->spectator);
	if (flags & PF_MSEC)
		assert_int_equal(msg_read_byte(&ma), msec > 255 ? 255 : (msec < 0 ? 0 : msec));
}

/* Another player's playerinfo entry is copied from a cache kept by its
 * inputs, checked again in the next reply phase after the game's changes
 * counter moved (the game's state) or the player's own move ran (its
 * command): after each input changes that way, every viewer still gets
 * the bytes a fresh encoding gives (a stale copy would differ).  The
 * sanitizer build checks the rule itself on every test (QWD_SELF_CHECK). */
static void test_player_entry_cache(void **state)
{
	struct srvfix *f = *state;
	struct server *sv;

	srvfix_start(f, 4);
	for (int i = 0; i < 3; i++)
		srvfix_connect(srvfix_client(f, NULL, i ? "other" : "viewer", false, NULL));
	assert_true(srvfix_until_all(f, QWC_ACTIVE, 5.0));
	f->cl[2]->q.cmd.forwardmove = 300;
	f->cl[2]->q.cmd.angles[1] = 45;
	srvfix_run(f, 0.3, true);
	sv = f->sv;
	int num = game_player_entity(sv->game, 2);
	struct game_entity *e = &sv->game->ents[num];
	struct client *pc = &sv->clients[2];

	for (int step = 0;; step++) {
		uint8_t prime[64];
		struct msg_buf mp;

		for (int v = 0; v < 3; v++)
			for (int j = 0; j < 3; j++)
				assert_entry_direct(sv, v, j);
		if (step == 16)
			break;
		/* fill the cache, then change one input */
		msg_init(&mp, prime, sizeof(prime));
		assert_true(sv_write_player(sv, &sv->clients[0], 2, &mp));
		switch (step) {
		case 0: sv->objs[num].origin[0] += 1.0f; break;
		case 1: e->frame++; break;
		case 2: e->skin = 1; break;
		case 3: e->effects = 4; break;
		case 4: e->modelindex = sv->game->m_player + 1; break;
		case 5: e->health = 0; break;
		case 6: e->angles[1] += 30; break;
		case 7: sv->game->clients[2].pm.velocity[2] = 200; break;
		case 8: pc->lastcmd.angles[0] += 10; e->health = 100; break;
		case 9: pc->lastcmd.forwardmove = -200; break;
		case 10: pc->lastcmd.sidemove = 100; break;
		case 11: pc->lastcmd.upmove = 50; break;
		case 12: pc->lastcmd.msec = 7; break;
		case 13: sv->entries[pc->slot].localtime -= 0.05; break;
		case 14: pc->spectator = true; break;
		default: pc->spectator = false; break;
		}
		sv_entry_sync(sv, pc);	/* as the server's side change does */
		/* as they arrive: the game's state through game code, which
		 * counts it; the command with the player's move; msec is the
		 * phase's clock */
		if (step <= 7 || step >= 14)
			sv->game->changes++;
		else if (step <= 12)
			sv->entries[pc->slot].moved = true;
		/* the world changes between reply phases, never within one */
		sv_reply_phase(sv);
	}
}

/* On a server of hundreds (extension slots) an event reaches the players
 * around its origin nearest cells first, SV_EVENT_TESTS of them at most:
 * 100 players in the event's cell, 100 in the ring around it and 100 in
 * the next all see the spot (their leafs are not narrowed), and exactly
 * the first two hundred and the first SV_EVENT_TESTS - 200 of the third
 * ring get the temp entity. */
static void test_event_reaches_nearest(void **state)
{
	struct srvfix *f = *state;
	struct server *sv;
	const struct sv_grid *g;
	int got[3] = {0, 0, 0};

	srvfix_start(f, 400);
	sv = f->sv;
	g = &sv->grid;
	assert_true(g->nx >= 5 && g->ny >= 5);
	int cx = g->nx / 2, cy = g->ny / 2;
	vec3_t org = {g->ox + ((float)cx + 0.5f) * g->cell,
		      g->oy + ((float)cy + 0.5f) * g->cell, 0};

	for (int j = 0; j < 300; j++) {
		struct client *cl = &sv->clients[j];
		int ring = j / 100;
		vec3_t at = {org[0] + (float)ring * g->cell, org[1], 0};

		cl->state = CS_SPAWNED;
		sv_entry_sync(sv, cl);
		cl->extended = true;
		cl->datagram_len = 0;
		sv->objs[game_player_entity(sv->game, j)].leafs_overflow = true;
		sv_grid_move(sv, j, at);
	}
	struct game_temp_entity te = {.type = TE_EXPLOSION};

	vec_copy(org, te.origin);
	sv->game_svc.temp_entity(sv->game_svc.ctx, &te, GAME_MULTICAST_PHS);
	for (int j = 0; j < 300; j++) {
		got[j / 100] += sv->clients[j].datagram_len > 0;
		sv_grid_remove(sv, j);
		sv->clients[j].state = CS_FREE;
		sv_entry_sync(sv, &sv->clients[j]);
	}
	assert_int_equal(got[0], 100);
	assert_int_equal(got[1], 100);
	assert_int_equal(got[2], SV_EVENT_TESTS - 200);
}

/* event k of the frame's log to everyone, in form f (0: extension, 1:
 * stock), appended to buf at *len (the test's model of a datagram) */
static void model_put(const struct server *sv, int f, uint32_t k, uint8_t *buf,
		      size_t *len)
{
	const struct sv_events *ev = &sv->events;
	size_t n = ev->at[f][k + 1] - ev->at[f][k];

	if (n == 0 || *len + n > SV_DATAGRAM)
		return;
	memcpy(buf + *len, ev->bytes[f] + ev->at[f][k], n);
	*len += n;
}

/* An event to everyone (a sound of no attenuation) is written once and
 * taken by each client before its datagram is next used: every client
 * ends up with the bytes it got when each event was written into every
 * datagram at once.  Its own events come between in their order (the
 * damage), a stock client gets the stock form (an entity past 511 sounds
 * from the world), a datagram with little room skips what does not fit
 * and takes a later event that does, a client that was not in the game
 * gets only what came after it joined, one that left gets nothing. */
static void test_events_to_everyone(void **state)
{
	struct srvfix *f = *state;
	struct server *sv;
	const vec3_t org = {0, 0, 0};
	uint8_t want[7][SV_DATAGRAM];
	size_t want_len[7] = {0};
	uint8_t dmg[SV_DATAGRAM];
	size_t dmg_len;

	srvfix_start(f, 400);
	sv = f->sv;
	for (int j = 0; j < 7; j++) {
		struct client *cl = &sv->clients[j];

		cl->state = j == 4 ? CS_CONNECTED : CS_SPAWNED;
		cl->extended = j != 3;
		cl->datagram_len = 0;
		sv_events_join(sv, cl);
	}
	/* 23 bytes of room: the first sound (12), not the second (12),
	 * the third (11) */
	sv->clients[5].datagram_len = SV_DATAGRAM - 23;
	memset(sv->clients[5].datagram, 0x55, SV_DATAGRAM - 23);
	memset(want[5], 0x55, SV_DATAGRAM - 23);
	want_len[5] = SV_DATAGRAM - 23;
	assert_true(sv->num_sounds > 1);

	/* S1 to everyone, from entity 600 */
	sv->game_svc.sound(sv->game_svc.ctx, 600, 1, 1, 0.5f, 0, org);
	assert_int_equal(sv->events.count, 1);
	for (int j = 0; j < 7; j++)
		if (j != 4)
			model_put(sv, j == 3 ? 1 : 0, 0, want[j], &want_len[j]);
	/* damage to client 0 alone: after S1 */
	sv->game_svc.damage(sv->game_svc.ctx, 0, 5, 10, org);
	dmg_len = sv->clients[0].datagram_len - want_len[0];
	assert_true(dmg_len > 0);
	memcpy(dmg, sv->clients[0].datagram + want_len[0], dmg_len);
	memcpy(want[0] + want_len[0], dmg, dmg_len);
	want_len[0] += dmg_len;
	/* S2, then client 4 joins and client 6 leaves, then S3 */
	sv->game_svc.sound(sv->game_svc.ctx, 600, 1, 1, 0.5f, 0, org);
	for (int j = 0; j < 7; j++)
		if (j != 4)
			model_put(sv, j == 3 ? 1 : 0, 1, want[j], &want_len[j]);
	sv->clients[4].state = CS_SPAWNED;
	sv->clients[4].datagram_len = 0;
	sv_events_join(sv, &sv->clients[4]);
	sv->clients[6].state = CS_CONNECTED;
	sv->game_svc.sound(sv->game_svc.ctx, 7, 1, 1, 1.0f, 0, org);
	for (int j = 0; j < 6; j++)
		model_put(sv, j == 3 ? 1 : 0, 2, want[j], &want_len[j]);
	/* the forms: the stock one sounds from the world past entity 511 */
	assert_true(sv->events.at[0][1] - sv->events.at[0][0] == 12);
	assert_true(sv->events.at[0][3] - sv->events.at[0][2] == 11);
	assert_memory_not_equal(sv->events.bytes[0], sv->events.bytes[1], 12);

	sv_events_settle(sv);
	assert_int_equal(sv->events.count, 0);
	for (int j = 0; j < 6; j++) {
		assert_int_equal(sv->clients[j].datagram_len, want_len[j]);
		assert_memory_equal(sv->clients[j].datagram, want[j], want_len[j]);
	}
	assert_int_equal(want_len[5], SV_DATAGRAM);	/* S1 and S3 */
	assert_int_equal(want_len[4], 11);		/* S3 alone */
	for (int j = 0; j < 7; j++) {
		sv->clients[j].state = CS_FREE;
		sv->clients[j].datagram_len = 0;
	}
}

/* The game is wired in: a client's packet entities carry the map's items
 * (entities the game spawned with FL_ITEM), a rocket fired at the floor
 * reaches the client as a missile entity, a sound and an explosion temp
 * entity, and "kill" costs two frags that every client is told of. */
static void test_game_items_rocket_frags(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *t, *o;
	struct game *g;
	struct game_entity *pe;
	const struct qwc_entity_frame *fr;
	int items = 0, rocket_model, snd0, te0;
	bool rocket_seen = false;
	double end;

	srvfix_start(f, 8);
	/* stock deathmatch: frags count from the start (no match layer) */
	{
		char out[256];

		srvfix_command(f, "k_matchless 1", out, sizeof(out));
	}
	g = f->sv->game;
	t = srvfix_client(f, NULL, "gunner", false, NULL);
	o = srvfix_client(f, NULL, "watcher", false, NULL);
	srvfix_connect(t);
	srvfix_connect(o);
	if (!srvfix_until_all(f, QWC_ACTIVE, 5.0)) {
		srvfix_dump_client(t);
		srvfix_dump_client(o);
	}
	assert_int_equal(t->q.state, QWC_ACTIVE);
	assert_int_equal(o->q.state, QWC_ACTIVE);
	srvfix_run(f, 0.3, true);

	/* items somewhere in view: each one the client holds is an item of
	 * the game, drawn with a model of the precache list */
	fr = qwc_current_frame(&t->q);
	assert_non_null(fr);
	for (int i = 0; i < fr->num; i++) {
		const struct game_entity *e = &g->ents[fr->ents[i].number];

		assert_true(e->inuse);
		assert_int_equal(fr->ents[i].modelindex, e->modelindex);
		if (e->flags & FL_ITEM)
			items++;
	}
	/* not every spawn sees an item: walk the view over all of them by
	 * asking for what the game has, then check one is sent somewhere */
	if (items == 0) {
		for (int i = 1 + MAX_CLIENTS; i < g->num_entities && !items; i++)
			items += g->ents[i].inuse && (g->ents[i].flags & FL_ITEM);
		assert_true(items > 0);
		print_message("no item in view of the spawn spot; %d in the game\n", items);
	} else {
		print_message("%d items in the client's packet entities\n", items);
	}

	/* a rocket launcher with rockets, aimed at the floor */
	pe = &g->ents[game_player_entity(g, t->q.playernum)];
	pe->items |= IT_ROCKET_LAUNCHER | IT_ROCKETS;
	g->clients[t->q.playernum].ammo_rockets = 10;
	rocket_model = 0;
	for (int i = 1; i < f->sv->num_models; i++)
		if (strcmp(f->sv->model_names[i], "progs/missile.mdl") == 0)
			rocket_model = i;
	assert_true(rocket_model > 0);
	snd0 = (int)o->q.stats.sounds + (int)t->q.stats.sounds;
	te0 = (int)t->q.stats.temp_entities;
	t->q.cmd.impulse = 7;
	srvfix_run(f, 0.3, true);
	t->q.cmd.impulse = 0;
	assert_int_equal(pe->weapon, IT_ROCKET_LAUNCHER);
	t->q.cmd.angles[0] = 30;	/* down, ahead: the rocket flies a bit */
	t->q.cmd.buttons = 1;
	end = server_clock() + 1.5;
	while (server_clock() < end && t->q.stats.temp_entities == (uint64_t)te0) {
		srvfix_step(f, true);
		fr = qwc_current_frame(&t->q);
		for (int i = 0; fr && i < fr->num; i++)
			rocket_seen |= fr->ents[i].modelindex == rocket_model;
	}
	t->q.cmd.buttons = 0;
	srvfix_run(f, 0.2, true);
	fprintf(stderr, "rocket seen %d, temp entities %llu (last %d), sounds %llu, "
		"health %d, rockets %d\n", rocket_seen,
		(unsigned long long)t->q.stats.temp_entities,
		t->q.stats.last_temp_entity, (unsigned long long)t->q.stats.sounds,
		t->q.stat[STAT_HEALTH], t->q.stat[STAT_ROCKETS]);
	assert_true(g->stats.shots > 0);
	assert_true(t->q.stats.temp_entities > (uint64_t)te0);
	assert_true((int)(o->q.stats.sounds + t->q.stats.sounds) > snd0);
	assert_true(t->q.stat[STAT_ROCKETS] < 10);

	/* frags: a suicide costs two, and the other client hears of it */
	assert_true(qwc_stringcmd(&t->q, "kill"));
	end = server_clock() + 2.0;
	while (server_clock() < end && o->q.players[t->q.playernum].frags != -2)
		srvfix_step(f, true);
	assert_int_equal(o->q.players[t->q.playernum].frags, -2);
	assert_int_equal(t->q.players[t->q.playernum].frags, -2);
	assert_int_equal(f->sv->clients[t->q.playernum].frags, -2);
	for (int k = 0; k < QWC_BAD_KINDS; k++) {
		assert_int_equal(t->q.stats.bad[k], 0);
		assert_int_equal(o->q.stats.bad[k], 0);
	}
}

/* A player who joins after you is announced at once (name on the
 * scoreboard), and one who leaves is cleared: for stock clients directly,
 * for extension clients through the pending infos (send.c). */
static void check_late_join(struct srvfix *f, bool extension)
{
	struct srv_client *a, *b, *c;

	srvfix_start(f, 40);
	a = srvfix_client(f, NULL, "first", extension, NULL);
	srvfix_connect(a);
	assert_true(srvfix_until_all(f, QWC_ACTIVE, 5.0));
	srvfix_run(f, 0.2, true);
	b = srvfix_client(f, NULL, "second", extension, NULL);
	srvfix_connect(b);
	c = srvfix_client(f, NULL, "third", extension, NULL);
	srvfix_connect(c);
	assert_true(srvfix_until_all(f, QWC_ACTIVE, 5.0));
	srvfix_run(f, 0.3, true);
	assert_true(a->q.players[b->q.playernum].present);
	assert_string_equal(a->q.players[b->q.playernum].name, "second");
	assert_string_equal(a->q.players[c->q.playernum].name, "third");
	assert_string_equal(b->q.players[a->q.playernum].name, "first");
	assert_string_equal(c->q.players[b->q.playernum].name, "second");
	assert_string_equal(b->q.players[b->q.playernum].name, "second");

	/* frags reach everyone (extension clients: once per burst, the
	 * newest count) */
	for (int k = 1; k <= 3; k++) {
		f->sv->clients[c->q.playernum].frags = k;
		sv_send_frags(f->sv, c->q.playernum);
	}
	srvfix_run(f, 0.3, true);
	assert_int_equal(a->q.players[c->q.playernum].frags, 3);
	assert_int_equal(b->q.players[c->q.playernum].frags, 3);

	/* a broadcast text: to everyone, unless an extension client's queue
	 * is past half full; then dropped for it and counted */
	{
		struct client *ca = &f->sv->clients[a->q.playernum];
		uint64_t prints = a->q.stats.prints, dropped = f->sv->stats.prints_dropped;

		ca->backlog_len = SV_BACKLOG / 2;
		sv_broadcast_printf(f->sv, PRINT_HIGH, "crowded\n");
		ca->backlog_len = 0;
		assert_int_equal(f->sv->stats.prints_dropped, dropped + (extension ? 1 : 0));
		sv_broadcast_printf(f->sv, PRINT_HIGH, "quiet\n");
		srvfix_run(f, 0.3, true);
		assert_true(a->q.stats.prints > prints);
	}

	qwc_disconnect(&b->q);
	srvfix_run(f, 0.3, true);
	assert_false(a->q.players[b->q.playernum].present);
	assert_false(c->q.players[b->q.playernum].present);
	for (int k = 0; k < QWC_BAD_KINDS; k++) {
		assert_int_equal(a->q.stats.bad[k], 0);
		assert_int_equal(c->q.stats.bad[k], 0);
	}
	/* nothing left pending once the channels drained */
	assert_int_equal(f->sv->clients[a->q.playernum].info_pending_count, 0);
}

/* The game's secret and light-switch services reach the players. */
static void test_secret_and_lightstyle(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *a;
	uint64_t styles;

	srvfix_start(f, 8);
	a = srvfix_client(f, NULL, "seeker", false, NULL);
	srvfix_connect(a);
	assert_true(srvfix_until_all(f, QWC_ACTIVE, 5.0));
	srvfix_run(f, 0.1, true);
	styles = a->q.stats.lightstyles;
	assert_int_equal(a->q.stats.secrets, 0);
	f->sv->game_svc.found_secret(f->sv->game_svc.ctx);
	f->sv->game_svc.lightstyle(f->sv->game_svc.ctx, 40, "az");
	srvfix_run(f, 0.3, true);
	assert_int_equal(a->q.stats.secrets, 1);
	assert_int_equal(a->q.stats.lightstyles, styles + 1);
	assert_int_equal(a->q.stats.last_lightstyle, 40);
	/* kept for those who join later */
	assert_string_equal(f->sv->lightstyles[40], "az");
	/* out of range: ignored */
	f->sv->game_svc.lightstyle(f->sv->game_svc.ctx, 64, "z");
	srvfix_run(f, 0.2, true);
	assert_int_equal(a->q.stats.lightstyles, styles + 1);
}

static void test_late_join_stock(void **state)
{
	check_late_join(*state, false);
}

static void test_late_join_extension(void **state)
{
	check_late_join(*state, true);
}

static void test_32_clients(void **state)
{
	struct srvfix *f = *state;
	bool slot_used[MAX_CLIENTS] = {false};
	char name[32];

	srvfix_start(f, 32);
	for (int i = 0; i < 32; i++) {
		snprintf(name, sizeof(name), "p%02d", i);
		srvfix_connect(srvfix_client(f, NULL, name, false, NULL));
	}
	if (!srvfix_until_all(f, QWC_ACTIVE, 10.0))
		for (int i = 0; i < f->ncl; i++)
			if (f->cl[i]->q.state != QWC_ACTIVE)
				srvfix_dump_client(f->cl[i]);
	assert_true(srvfix_all_in_state(f, QWC_ACTIVE));
	/* let everyone hear of everyone, and see who is visible */
	srvfix_run(f, 0.5, true);
	for (int i = 0; i < 32; i++) {
		const struct qwc *q = &f->cl[i]->q;
		int others_seen = 0, infos = 0;

		assert_true(q->playernum >= 0 && q->playernum < MAX_CLIENTS);
		assert_false(slot_used[q->playernum]);
		slot_used[q->playernum] = true;
		for (int s = 0; s < MAX_CLIENTS; s++) {
			if (q->players[s].present)
				infos++;
			if (s != q->playernum && q->players[s].seen_count > 0)
				others_seen++;
		}
		/* told of all 32 through userinfo updates */
		assert_int_equal(infos, 32);
		/* 32 players on small's 72 spots: nine rooms, each open
		 * to its neighbours, so nobody stands alone */
		assert_true(others_seen > 0);
		assert_true(q->self_seen);
		for (int k = 0; k < QWC_BAD_KINDS; k++)
			if (q->stats.bad[k])
				srvfix_dump_client(f->cl[i]);
		assert_int_equal(q->stats.bad[QWC_BAD_SVC], 0);
		assert_int_equal(q->stats.bad[QWC_BAD_TRUNCATED], 0);
	}
	for (int s = 0; s < MAX_CLIENTS; s++)
		assert_true(slot_used[s]);
}

static void test_map_change(void **state)
{
	struct srvfix *f = *state;
	char err[256];
	int old;

	srvfix_start(f, 8);
	srvfix_connect(srvfix_client(f, NULL, "a", false, NULL));
	srvfix_connect(srvfix_client(f, NULL, "b", false, NULL));
	assert_true(srvfix_until_all(f, QWC_ACTIVE, 5.0));
	old = f->cl[0]->q.servercount;
	assert_int_equal(server_map(f->sv, f->maps[1], err, sizeof(err)), 0);
	/* the clients fall back to the signon and come through it again */
	{
		double end = server_clock() + 5.0;

		while (server_clock() < end) {
			srvfix_step(f, true);
			if (srvfix_all_in_state(f, QWC_ACTIVE) &&
			    f->cl[0]->q.servercount != old &&
			    f->cl[1]->q.servercount != old)
				break;
		}
	}
	for (int i = 0; i < 2; i++) {
		if (f->cl[i]->q.state != QWC_ACTIVE)
			srvfix_dump_client(f->cl[i]);
		assert_int_equal(f->cl[i]->q.state, QWC_ACTIVE);
		assert_int_equal(f->cl[i]->q.servercount, f->sv->spawncount);
		assert_string_equal(f->cl[i]->q.mapmodel, srvfix_map_model(f, 1));
		assert_int_equal(f->cl[i]->q.stats.signons, 2);
		assert_int_equal(f->sv->clients[f->cl[i]->q.playernum].state, CS_SPAWNED);
	}
}

/* "new" and "begin" in one packet, behind a reliable backlog: the client
 * is in the game before it has read the serverdata, which clears its
 * entity frames when it comes.  No reply sent before then may be a delta
 * base: the client would count the delta as against a frame it lacks. */
static void test_begin_before_serverdata(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *t;
	uint8_t payload[1024];
	char cmd[64];
	size_t n = 0;
	double end;

	srvfix_start(f, 8);
	t = srvfix_client(f, NULL, "hasty", false, NULL);
	srvfix_connect(t);
	end = server_clock() + 5.0;
	while (server_clock() < end && t->q.state != QWC_CONNECTED)
		srvfix_step(f, true);
	assert_int_equal(t->q.state, QWC_CONNECTED);
	assert_int_equal(f->sv->clients[0].state, CS_CONNECTED);
	/* spawn pages enough to hold the serverdata back a reply or more
	 * (each holds the 32 stock slots: the players' and the spectators';
	 * more than two and the last page would be cut, its rest stuffed as
	 * "cmd spawn", which this out-of-order signon does not follow) */
	snprintf(cmd, sizeof(cmd), "spawn %d 0", f->sv->spawncount);
	n += srvfix_stringcmds(payload + n, sizeof(payload) - n, cmd, 2);
	n += srvfix_stringcmds(payload + n, sizeof(payload) - n, "new", 1);
	snprintf(cmd, sizeof(cmd), "spawn %d 0", f->sv->spawncount);
	n += srvfix_stringcmds(payload + n, sizeof(payload) - n, cmd, 1);
	snprintf(cmd, sizeof(cmd), "begin %d", f->sv->spawncount);
	n += srvfix_stringcmds(payload + n, sizeof(payload) - n, cmd, 1);
	srvfix_send_raw(t, -1, payload, n);
	srvfix_run(f, 1.0, true);
	fprintf(stderr, "packetentities %llu, deltas %llu, bad deltas %llu\n",
		(unsigned long long)t->q.stats.packetentities,
		(unsigned long long)t->q.stats.deltas,
		(unsigned long long)t->q.stats.bad[QWC_BAD_DELTA]);
	assert_int_equal(f->sv->clients[0].state, CS_SPAWNED);
	/* the client kept asking for deltas, and got only valid ones */
	assert_true(t->q.stats.deltas > 10);
	assert_int_equal(t->q.stats.bad[QWC_BAD_DELTA], 0);
	assert_int_equal(t->q.stats.bad[QWC_BAD_ENTITIES], 0);
}

static void test_malformed_packets(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *t;
	static const uint8_t garbage[] = {0xee, 0x12, 0x34};
	static const uint8_t cut_move[] = {clc_move, 0x00, 0x00, 0xff};
	static const uint8_t no_nul[] = {clc_stringcmd, 's', 'a', 'y'};
	static const uint8_t short_hdr[] = {1, 2, 3, 4, 5};
	uint64_t before[BAD_KINDS], replies;

	srvfix_start(f, 8);
	t = srvfix_client(f, NULL, "fuzz", false, NULL);
	srvfix_connect(t);
	assert_true(srvfix_until_all(f, QWC_ACTIVE, 5.0));
	memcpy(before, f->sv->stats.bad, sizeof(before));

	srvfix_send_raw(t, -1, garbage, sizeof(garbage));
	srvfix_run(f, 0.05, false);
	assert_int_equal(f->sv->stats.bad[BAD_MESSAGE_BYTE], before[BAD_MESSAGE_BYTE] + 1);

	srvfix_send_raw(t, -1, cut_move, sizeof(cut_move));
	srvfix_run(f, 0.05, false);
	assert_int_equal(f->sv->stats.bad[BAD_TRUNCATED], before[BAD_TRUNCATED] + 1);

	srvfix_send_raw(t, -1, no_nul, sizeof(no_nul));
	srvfix_run(f, 0.05, false);
	assert_int_equal(f->sv->stats.bad[BAD_STRING], before[BAD_STRING] + 1);

	assert_true(net_udp_send(t->fd, &t->q.opt.server, short_hdr,
				 sizeof(short_hdr), &t->net));
	srvfix_run(f, 0.05, false);
	assert_int_equal(f->sv->stats.bad[BAD_SHORT_HEADER], before[BAD_SHORT_HEADER] + 1);

	/* the client goes on as before */
	replies = t->q.stats.replies;
	srvfix_run(f, 0.3, true);
	assert_int_equal(t->q.state, QWC_ACTIVE);
	assert_true(t->q.stats.replies > replies + 5);
	assert_int_equal(f->sv->clients[t->q.playernum].state, CS_SPAWNED);
	for (int k = 0; k < QWC_BAD_KINDS; k++)
		assert_int_equal(t->q.stats.bad[k], 0);
}

static void test_qwdx_slot(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *narrow, *t, *t2;
	char rep[512];
	bool wide_seen = false;
	uint32_t updates;

	srvfix_start(f, 40);
	/* a stock client in slot 0, bare connects in the other 31 stock slots */
	narrow = srvfix_client(f, NULL, "narrow", false, NULL);
	srvfix_connect(narrow);
	assert_true(srvfix_until_all(f, QWC_ACTIVE, 5.0));
	for (int i = 1; i < MAX_CLIENTS; i++) {
		srvfix_connect_udp(f, PROTOCOL_VERSION, false, false, rep, sizeof(rep));
		assert_int_equal(rep[0], S2C_CONNECTION);
	}
	/* a stock client is refused now; extended ones are not */
	srvfix_connect_udp(f, PROTOCOL_VERSION, false, false, rep, sizeof(rep));
	assert_int_equal(rep[0], A2C_PRINT);
	assert_non_null(strstr(rep, "protocol 28 clients"));

	t = srvfix_client(f, NULL, "wide", true, NULL);
	srvfix_connect(t);
	t2 = srvfix_client(f, NULL, "wide2", true, NULL);
	srvfix_connect(t2);
	if (!srvfix_until_all(f, QWC_ACTIVE, 5.0))
		srvfix_dump_client(t);
	assert_int_equal(t->q.state, QWC_ACTIVE);
	assert_int_equal(t2->q.state, QWC_ACTIVE);
	assert_true(t->q.extended);
	assert_true(t->q.playernum >= MAX_CLIENTS);
	assert_true(t2->q.playernum >= MAX_CLIENTS);
	assert_true(f->sv->clients[t->q.playernum].extended);
	srvfix_run(f, 0.2, true);
	/* its own entry came as svcx_playerinfo: only those carry slot >= 32 */
	for (int i = 0; i < t->q.num_seen; i++)
		if (t->q.seen[i].slot == t->q.playernum)
			wide_seen = true;
	assert_true(wide_seen);
	assert_true(t->q.players[t->q.playernum].present);
	/* the wide clients know each other (svcx_updateuserinfo) */
	assert_string_equal(t->q.players[t2->q.playernum].name, "wide2");
	assert_string_equal(t2->q.players[t->q.playernum].name, "wide");
	assert_string_equal(t->q.players[0].name, "narrow");

	/* a userinfo change of a wide slot reaches the other wide client
	 * once, and the stock client never hears of slots >= 32 */
	updates = t2->q.players[t->q.playernum].info_updates;
	assert_true(qwc_stringcmd(&t->q, "setinfo team red"));
	srvfix_run(f, 0.3, true);
	/* exactly once to each extended client */
	assert_int_equal(t2->q.players[t->q.playernum].info_updates, updates + 1);
	assert_true(t2->q.players[t->q.playernum].info_updates > updates);
	for (int k = 0; k < QWC_BAD_KINDS; k++)
		assert_int_equal(narrow->q.stats.bad[k], 0);
	assert_int_equal(narrow->q.stats.players_untracked, 0);
	for (int s = MAX_CLIENTS; s < narrow->q.opt.max_players; s++)
		assert_int_equal(narrow->q.players[s].info_updates, 0);

	/* an entity sent unchanged from its baseline must not end the wide
	 * entity list early (its word is U_MOREBITS, not 0) */
	assert_int_equal(t->q.stats.bad[QWC_BAD_SVC], 0);
	for (int k = 0; k < QWC_BAD_KINDS; k++)
		if (k != QWC_BAD_SVC)
			assert_int_equal(t->q.stats.bad[k], 0);
}

static void test_timeout(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *t;
	int slot;
	double end;

	srvfix_start(f, 8);
	assert_int_equal(cvar_set(f->sv, "timeout", "0.5"), 0);
	t = srvfix_client(f, NULL, "silent", false, NULL);
	srvfix_connect(t);
	assert_true(srvfix_until_all(f, QWC_ACTIVE, 5.0));
	slot = t->q.playernum;
	assert_int_equal(f->sv->clients[slot].state, CS_SPAWNED);
	end = server_clock() + 3.0;
	while (server_clock() < end && f->sv->clients[slot].state >= CS_CONNECTED)
		srvfix_step(f, false);
	assert_true(f->sv->clients[slot].state < CS_CONNECTED);
	assert_true(f->sv->stats.drops >= 1);
	/* the drop was told to the client (svc_disconnect) */
	srvfix_step(f, false);
	assert_int_equal(t->q.state, QWC_DROPPED);
}

static void test_rcon(void **state)
{
	struct srvfix *f = *state;
	char text[2048];
	int fd;

	srvfix_start(f, 8);
	/* no password set: refused */
	fd = srvfix_socket(f, NULL);
	srvfix_oob_text(f, fd, "rcon secret status\n", text, sizeof(text));
	assert_int_equal(text[0], A2C_PRINT);
	assert_non_null(strstr(text, "bad rcon password"));

	assert_int_equal(cvar_set(f->sv, "rcon_password", "secret"), 0);
	/* the plain form, which sv_crypt_rcon 0 allows (hashed: test_rcon.c) */
	assert_int_equal(cvar_set(f->sv, "sv_crypt_rcon", "0"), 0);
	fd = srvfix_socket(f, NULL);
	srvfix_oob_text(f, fd, "rcon wrong status\n", text, sizeof(text));
	assert_non_null(strstr(text, "bad rcon password"));

	fd = srvfix_socket(f, NULL);
	srvfix_oob_text(f, fd, "rcon secret serverinfo\n", text, sizeof(text));
	assert_int_equal(text[0], A2C_PRINT);
	assert_null(strstr(text, "bad rcon password"));
	assert_non_null(strstr(text, f->maps[0]));
}

static void test_quakestat(void **state)
{
	struct srvfix *f = *state;
	char addr[64], out[8192];
	int pipefd[2];
	size_t len = 0;
	pid_t pid;
	double end;
	int status = 0;
	bool exited = false;

	if (access("/usr/bin/quakestat", X_OK) != 0)
		qwd_skip("no /usr/bin/quakestat (Debian package qstat)");
	srvfix_start(f, 8);
	srvfix_connect(srvfix_client(f, NULL, "statme", false, NULL));
	assert_true(srvfix_until_all(f, QWC_ACTIVE, 5.0));

	snprintf(addr, sizeof(addr), "127.0.0.1:%u", f->sv->port);
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		execl("/usr/bin/quakestat", "quakestat", "-P", "-nh", "-qws", addr,
		      (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	{
		int fl = fcntl(pipefd[0], F_GETFL);

		fcntl(pipefd[0], F_SETFL, fl | O_NONBLOCK);
	}
	end = server_clock() + 5.0;
	while (server_clock() < end) {
		ssize_t n;

		srvfix_step(f, true);
		while (len < sizeof(out) - 1 &&
		       (n = read(pipefd[0], out + len, sizeof(out) - 1 - len)) > 0)
			len += (size_t)n;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			exited = true;
			break;
		}
	}
	if (!exited) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	{
		ssize_t n;

		while (len < sizeof(out) - 1 &&
		       (n = read(pipefd[0], out + len, sizeof(out) - 1 - len)) > 0)
			len += (size_t)n;
	}
	close(pipefd[0]);
	out[len] = '\0';
	fprintf(stderr, "quakestat said:\n%s", out);
	assert_true(exited);
	assert_non_null(strstr(out, addr));
	assert_non_null(strstr(out, f->maps[0]));
	assert_non_null(strstr(out, "statme"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(test_oob_queries, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_connect_refusals, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_connect_spawn_move, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_game_items_rocket_frags, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_32_clients, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_player_entry_cache, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_event_reaches_nearest, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_events_to_everyone, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_late_join_stock, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_secret_and_lightstyle, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_late_join_extension, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_map_change, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_malformed_packets, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_begin_before_serverdata, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_qwdx_slot, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_timeout, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_rcon, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_quakestat, NULL, srvfix_test_teardown),
};

QWD_TEST_GROUP(server_protocol, tests, srvfix_setup, srvfix_teardown)

/* The same walk, game and map change on maps another compiler made. */
static void need_realmaps(const struct srvfix *f, const char *test)
{
	if (!f->have_maps) {
		qwd_skip_reason(test, "no community maps lqdm1.bsp, lqdm2.bsp in "
				"$QWD_REALMAPS or ../shared/realmaps");
		skip();
	}
}

static void test_realmaps_spawn_move(void **state)
{
	need_realmaps(*state, __func__);
	test_connect_spawn_move(state);
}

static void test_realmaps_items_rocket_frags(void **state)
{
	need_realmaps(*state, __func__);
	test_game_items_rocket_frags(state);
}

static void test_realmaps_map_change(void **state)
{
	need_realmaps(*state, __func__);
	test_map_change(state);
}

static const struct CMUnitTest realmap_tests[] = {
	cmocka_unit_test_setup_teardown(test_realmaps_spawn_move, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_realmaps_items_rocket_frags, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_realmaps_map_change, NULL, srvfix_test_teardown),
};

QWD_TEST_GROUP(server_protocol_realmaps, realmap_tests, srvfix_setup_realmaps, srvfix_teardown)
