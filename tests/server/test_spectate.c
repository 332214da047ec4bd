/*
 * test_spectate.c -- every client message of protocol 28, spectators
 * (ptrack and the tracked player's stats, clc_tmove and the PVS, their
 * slots and password, join and observe, status) and chat as MVDSV routes
 * it (say_team to the team, the spectators by sv_sayteam_to_spec and
 * sv_spectalk).
 *
 * Design note
 *   The clients are the client library's, on loopback addresses, with the
 *   userinfo a test gives them (team, "spectator", "*z_ext").  Datagrams a
 *   stock client can send but the library does not (clc_tmove,
 *   clc_upload, every order of every message) are built here and sent on
 *   the client's own channel (srvfix_send_raw), so the server takes them
 *   as that client's.  What is asserted is what the server did with them
 *   (its counters, the client's state) and what each client read (the
 *   prints holding a mark, the stats), never how long it took.
 *   The chat script (chat_script) runs on qwd and, when the Debian
 *   packages mvdsv and ktx are installed, on MVDSV 0.35 with KTX 1.42 as
 *   a child process with its console on a pipe: the same clients must
 *   reach the same members with the same lines on both (KTX routes chat
 *   itself, the same way as MVDSV's SV_Say; its own k_sayteam_to_spec and
 *   k_spectalk decide the engine's cvars, so the script sets those too).
 */
#include "../harness.h"
#include "srvfix.h"

#include <qwd/mvd.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bsd/string.h>

/* ---- helpers ----------------------------------------------------------- */

static struct srv_client *join_as(struct srvfix *f, const char *name,
				  const char *extra)
{
	struct srv_client *c = srvfix_client(f, NULL, name, false, extra);

	srvfix_connect(c);
	if (!srvfix_until(f, c, QWC_ACTIVE, 5.0))
		srvfix_dump_client(c);
	assert_int_equal(c->q.state, QWC_ACTIVE);
	return c;
}

static struct client *server_side(struct srvfix *f, const struct srv_client *c)
{
	return &f->sv->clients[c->q.playernum];
}

/* count from now the prints holding text, every client's from 0 */
static void mark(struct srvfix *f, const char *text)
{
	for (int i = 0; i < f->ncl; i++)
		if (f->cl[i])
			f->cl[i]->marked_prints = 0;
	f->print_mark = text;
}

/* a string command on c's reliable stream, then a few turns */
static void say(struct srvfix *f, struct srv_client *c, const char *text)
{
	assert_true(qwc_stringcmd(&c->q, text));
	srvfix_run(f, 0.3, true);
}

/* a clc_tmove to org, alone in a datagram of c's channel */
static void send_tmove(struct srv_client *c, const vec3_t org)
{
	uint8_t msg[16];
	struct msg_buf m;

	msg_init(&m, msg, sizeof(msg));
	msg_write_byte(&m, clc_tmove);
	for (int i = 0; i < 3; i++)
		msg_write_coord(&m, org[i]);
	srvfix_send_raw(c, -1, m.data, m.cursize);
}

/* c says cmd and reads one print holding text (a refusal, mostly) */
static void told(struct srvfix *f, struct srv_client *c, const char *cmd,
		 const char *text)
{
	mark(f, text);
	say(f, c, cmd);
	assert_int_equal(c->marked_prints, 1);
}

/* ---- every message, every order ----------------------------------------- */

enum { MSG_NOP, MSG_DELTA, MSG_MOVE, MSG_STRING, MSG_TMOVE, MSG_UPLOAD, MSG_KINDS };

/* one message of kind k into m (the move's checksum filled later: its
 * offset in *move_at) */
static void put_message(struct msg_buf *m, int k, int n, int delta,
			size_t *move_at, size_t *move_end, const vec3_t tmove)
{
	static const struct usercmd nullcmd;
	struct usercmd cmd = {.msec = 10, .forwardmove = (int16_t)n};
	char text[32];
	static const uint8_t upload[] = {1, 2, 3, 4, 5, 6, 7, 8};

	switch (k) {
	case MSG_NOP:
		msg_write_byte(m, clc_nop);
		break;
	case MSG_DELTA:
		msg_write_byte(m, clc_delta);
		msg_write_byte(m, delta);
		break;
	case MSG_MOVE:
		msg_write_byte(m, clc_move);
		*move_at = m->cursize;
		msg_write_byte(m, 0);
		msg_write_byte(m, 0);
		msg_write_delta_usercmd(m, &nullcmd, &cmd);
		msg_write_delta_usercmd(m, &cmd, &cmd);
		msg_write_delta_usercmd(m, &cmd, &cmd);
		*move_end = m->cursize;
		break;
	case MSG_STRING:
		snprintf(text, sizeof(text), "setinfo perm %d", n);
		msg_write_byte(m, clc_stringcmd);
		msg_write_string(m, text);
		break;
	case MSG_TMOVE:
		msg_write_byte(m, clc_tmove);
		for (int i = 0; i < 3; i++)
			msg_write_coord(m, tmove[i]);
		break;
	case MSG_UPLOAD:
		msg_write_byte(m, clc_upload);
		msg_write_short(m, (int)sizeof(upload));
		msg_write_byte(m, 50);
		msg_write_data(m, upload, sizeof(upload));
		break;
	}
}

/* the n-th of the 720 orders of the six kinds */
static void nth_order(int n, int order[MSG_KINDS])
{
	int pool[MSG_KINDS];

	for (int i = 0; i < MSG_KINDS; i++)
		pool[i] = i;
	for (int i = 0, left = MSG_KINDS; i < MSG_KINDS; i++, left--) {
		int pick = n % left;

		n /= left;
		order[i] = pool[pick];
		memmove(pool + pick, pool + pick + 1, sizeof(int) * (size_t)(left - pick - 1));
	}
}

/* Every order of the six messages ezQuake 3.6 can send to a protocol-28
 * server (it writes clc_tmove and clc_upload into its reliable stream),
 * in one datagram each, from c: the move runs, the command runs, the
 * delta is taken, the tmove places a spectator (a player's is counted),
 * the upload is refused, and nothing is counted malformed. */
static void every_order(struct srvfix *f, struct srv_client *c)
{
	struct client *cl = server_side(f, c);
	uint64_t bad[BAD_KINDS];
	int order[MSG_KINDS];

	/* the client's own packets in flight land first */
	srvfix_run(f, 0.1, false);
	memcpy(bad, f->sv->stats.bad, sizeof(bad));
	for (int n = 0; n < 720; n++) {
		uint8_t buf[256];
		struct msg_buf m;
		size_t move_at = 0, move_end = 0;
		uint64_t requests = f->sv->stats.requests;
		uint64_t tmoves = f->sv->stats.tmoves_ignored;
		uint64_t uploads = f->sv->stats.uploads_refused;
		int delta = (int)(c->q.valid_sequence & 0xff);
		vec3_t tmove = {-64.0f + (float)(n % 16) * 8.0f, 32.0f + (float)(n % 7) * 8.0f,
				24.0f + (float)(n % 5) * 8.0f};
		char want[32], got[32];
		int fwd = c->q.spectator ? 0 : n + 1;
		uint32_t seq;

		nth_order(n, order);
		msg_init(&m, buf, sizeof(buf));
		for (int i = 0; i < MSG_KINDS; i++)
			put_message(&m, order[i], fwd, delta, &move_at, &move_end, tmove);
		buf[move_at] = com_block_sequence_crc_byte(buf + move_at + 1,
							   move_end - move_at - 1,
							   c->q.chan.outgoing_sequence);
		seq = c->q.chan.outgoing_sequence;
		srvfix_send_raw(c, -1, m.data, m.cursize);
		for (int i = 0; i < 1000 && cl->chan.incoming_sequence < seq; i++)
			srvfix_step(f, false);
		assert_int_equal(cl->chan.incoming_sequence, seq);
		if (f->sv->stats.requests != requests + 1)
			fail_msg("order %d (%d %d %d %d %d %d): the move was lost", n,
				 order[0], order[1], order[2], order[3], order[4], order[5]);
		assert_int_equal(cl->lastcmd.forwardmove, fwd);
		snprintf(want, sizeof(want), "%d", fwd);
		assert_true(info_value_for_key(cl->userinfo, "perm", got, sizeof(got)));
		assert_string_equal(got, want);
		assert_int_equal(cl->delta_sequence, delta);
		assert_int_equal(f->sv->stats.uploads_refused, uploads + 1);
		if (c->q.spectator) {
			const float *o = f->sv->objs[game_player_entity(f->sv->game, cl->slot)].origin;

			assert_int_equal(f->sv->stats.tmoves_ignored, tmoves);
			for (int i = 0; i < 3; i++)
				assert_true(fabsf(o[i] - tmove[i]) < 0.2f);
		} else {
			assert_int_equal(f->sv->stats.tmoves_ignored, tmoves + 1);
		}
		assert_memory_equal(bad, f->sv->stats.bad, sizeof(bad));
		/* the client keeps up with the reliable stream (the upload's
		 * refusals, the userinfo changes): it reads, and these
		 * datagrams, on its channel, carry its acknowledgements; it
		 * sends none of its own, whose moves would come between */
		if (n % 8 == 7)
			srvfix_run(f, 0.05, false);
	}
	srvfix_run(f, 0.5, true);
	assert_int_equal(c->q.state, QWC_ACTIVE);
	assert_int_equal(cl->state, CS_SPAWNED);
	for (int k = 0; k < QWC_BAD_KINDS; k++)
		assert_int_equal(c->q.stats.bad[k], 0);
}

static void test_every_client_message_in_every_order(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *p, *s;

	srvfix_start(f, 8);
	/* the test's own commands are not what the budgets are about */
	assert_int_equal(cvar_set(f->sv, "sv_cmdrate", "0"), 0);
	assert_int_equal(cvar_set(f->sv, "sv_setinforate", "0"), 0);
	p = join_as(f, "player", NULL);
	s = join_as(f, "spec", "\\spectator\\1");
	assert_true(s->q.spectator);
	every_order(f, p);
	every_order(f, s);
	/* the refusal the client read */
	assert_int_equal(srvfix_log_count(f, "malformed"), 0);
}

/* A cut-short tmove or upload is malformed: the datagram goes, counted. */
static void test_cut_tmove_and_upload(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *p;
	static const uint8_t cut_tmove[] = {clc_tmove, 0x10, 0x00, 0x20};
	static const uint8_t long_upload[] = {clc_upload, 0x40, 0x00, 50, 1, 2};
	static const uint8_t neg_upload[] = {clc_upload, 0xff, 0xff, 50};
	uint64_t truncated;

	srvfix_start(f, 8);
	p = join_as(f, "player", NULL);
	truncated = f->sv->stats.bad[BAD_TRUNCATED];
	srvfix_send_raw(p, -1, cut_tmove, sizeof(cut_tmove));
	srvfix_run(f, 0.05, false);
	srvfix_send_raw(p, -1, long_upload, sizeof(long_upload));
	srvfix_run(f, 0.05, false);
	srvfix_send_raw(p, -1, neg_upload, sizeof(neg_upload));
	srvfix_run(f, 0.05, false);
	assert_int_equal(f->sv->stats.bad[BAD_TRUNCATED], truncated + 3);
	assert_int_equal(f->sv->stats.uploads_refused, 0);
	srvfix_run(f, 0.3, true);
	assert_int_equal(p->q.state, QWC_ACTIVE);
}

/* ---- spectators --------------------------------------------------------- */

/* ptrack: the tracker's status bar is the tracked player's (health,
 * armour, ammo, weapon, items, weapon frame), the player's entry comes
 * with its weapon frame; "ptrack" alone gives the spectator its own. */
static void test_ptrack_sends_the_tracked_players_stats(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *a, *b, *s;
	struct game *g;
	char cmd[32];
	int ea;

	srvfix_start(f, 8);
	a = join_as(f, "alpha", NULL);
	b = join_as(f, "beta", NULL);
	s = join_as(f, "spec", "\\spectator\\1");
	g = f->sv->game;
	/* alpha's state, unlike anyone else's */
	ea = game_player_entity(g, a->q.playernum);
	g->ents[ea].health = 77;
	g->ents[ea].armorvalue = 45;
	g->ents[ea].items |= IT_ROCKET_LAUNCHER;
	g->ents[ea].weapon = IT_ROCKET_LAUNCHER;
	g->clients[a->q.playernum].ammo_rockets = 13;
	g->clients[a->q.playernum].ammo_shells = 42;
	g->clients[a->q.playernum].weaponframe = 3;
	g->changes++;
	srvfix_run(f, 0.3, true);
	/* not tracking: an empty bar (MVDSV and KTX: 0 health, ammo,
	 * weapon, items) */
	assert_int_equal(s->q.stat[STAT_ACTIVEWEAPON], 0);
	assert_int_equal(s->q.stat[STAT_HEALTH], 0);
	assert_int_equal(s->q.stat[STAT_SHELLS], 0);
	assert_int_equal(s->q.stat[STAT_ITEMS], 0);

	snprintf(cmd, sizeof(cmd), "ptrack %d", a->q.playernum);
	say(f, s, cmd);
	assert_int_equal(server_side(f, s)->spec_track, a->q.playernum + 1);
	assert_int_equal(s->q.stat[STAT_HEALTH], 77);
	assert_int_equal(s->q.stat[STAT_ARMOR], 45);
	assert_int_equal(s->q.stat[STAT_SHELLS], 42);
	assert_int_equal(s->q.stat[STAT_ROCKETS], 13);
	assert_int_equal(s->q.stat[STAT_AMMO], 13);
	assert_int_equal(s->q.stat[STAT_ACTIVEWEAPON], IT_ROCKET_LAUNCHER);
	assert_true(s->q.stat[STAT_ITEMS] & IT_ROCKET_LAUNCHER);
	assert_int_equal(s->q.stat[STAT_WEAPONFRAME], 3);
	assert_int_equal(s->q.stat[STAT_WEAPON], g->clients[a->q.playernum].weaponmodel);
	/* the tracked player's entry carries its weapon frame; the other
	 * player's, and what the other player sees of alpha, do not */
	assert_true(s->q.players[a->q.playernum].flags & PF_WEAPONFRAME);
	assert_false(b->q.players[a->q.playernum].flags & PF_WEAPONFRAME);

	/* a player cannot track; a bad number is refused and said */
	snprintf(cmd, sizeof(cmd), "ptrack %d", b->q.playernum);
	say(f, a, cmd);
	assert_int_equal(server_side(f, a)->spec_track, 0);
	told(f, s, "ptrack 31", "Invalid client to track");
	assert_int_equal(server_side(f, s)->spec_track, 0);
	snprintf(cmd, sizeof(cmd), "ptrack %d", s->q.playernum);	/* a spectator */
	say(f, s, cmd);
	assert_int_equal(s->marked_prints, 2);

	/* tracking beta, then "ptrack": its own bar again */
	snprintf(cmd, sizeof(cmd), "ptrack %d", b->q.playernum);
	say(f, s, cmd);
	assert_int_equal(s->q.stat[STAT_HEALTH], 100);
	assert_int_equal(s->q.stat[STAT_ACTIVEWEAPON], IT_SHOTGUN);
	/* the console says whom it tracks and what it was sent */
	{
		char out[4096], want[96];

		srvfix_command(f, "status", out, sizeof(out));
		snprintf(want, sizeof(want), "spectator tracking %d (health 100, armor 0, ammo 25)",
			 b->q.playernum);
		assert_non_null(strstr(out, want));
	}
	say(f, s, "ptrack");
	assert_int_equal(server_side(f, s)->spec_track, 0);
	assert_int_equal(s->q.stat[STAT_ACTIVEWEAPON], 0);
	assert_int_equal(s->q.stat[STAT_HEALTH], 0);
	/* a tracked player who leaves is tracked by nobody */
	snprintf(cmd, sizeof(cmd), "ptrack %d", a->q.playernum);
	say(f, s, cmd);
	assert_int_equal(s->q.stat[STAT_HEALTH], 77);
	qwc_disconnect(&a->q);
	srvfix_run(f, 0.3, true);
	assert_int_equal(server_side(f, s)->spec_track, 0);
	assert_int_equal(s->q.stat[STAT_HEALTH], 0);
}

/* clc_tmove moves a spectator's origin, and its replies are filtered by
 * the PVS from there: a tracked player is in them wherever it is. */
static void test_tmove_moves_the_spectators_pvs(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *p, *s;
	struct client *sc;
	const vec3_t to = {40.0f, -24.0f, 64.0f};
	vec3_t before;
	float *o;
	uint64_t ignored;
	char cmd[32];

	srvfix_start(f, 8);
	p = join_as(f, "player", NULL);
	s = join_as(f, "spec", "\\spectator\\1");
	sc = server_side(f, s);
	send_tmove(s, to);
	srvfix_run(f, 0.3, true);
	o = f->sv->objs[game_player_entity(f->sv->game, sc->slot)].origin;
	for (int i = 0; i < 3; i++)
		assert_true(fabsf(o[i] - to[i]) < 0.2f);
	/* the reply's PVS is taken from there (the eyes: 22 up) */
	assert_true(sc->pvs_valid);
	assert_true(fabsf(sc->pvs_view[0] - to[0]) < 0.2f);
	assert_true(fabsf(sc->pvs_view[1] - to[1]) < 0.2f);
	assert_true(fabsf(sc->pvs_view[2] - (to[2] + 22.0f)) < 0.2f);
	/* and the client reads its own origin there */
	assert_true(fabsf(s->q.self_origin[0] - to[0]) < 0.2f);

	/* a player's tmove is ignored and counted */
	ignored = f->sv->stats.tmoves_ignored;
	o = f->sv->objs[game_player_entity(f->sv->game, p->q.playernum)].origin;
	memcpy(before, o, sizeof(before));
	send_tmove(p, to);
	srvfix_run(f, 0.1, false);
	assert_int_equal(f->sv->stats.tmoves_ignored, ignored + 1);
	assert_memory_equal(before, o, sizeof(before));

	/* a tracked player is sent to its tracker whatever the PVS says:
	 * the spectator far outside the map sees nobody, until it tracks */
	{
		const vec3_t away = {3000.0f, 3000.0f, 3000.0f};
		uint32_t seen;

		send_tmove(s, away);
		srvfix_run(f, 0.3, true);
		seen = s->q.players[p->q.playernum].seen_count;
		srvfix_run(f, 0.3, true);
		assert_int_equal(s->q.players[p->q.playernum].seen_count, seen);
		snprintf(cmd, sizeof(cmd), "ptrack %d", p->q.playernum);
		say(f, s, cmd);
		srvfix_run(f, 0.3, true);
		assert_true(s->q.players[p->q.playernum].seen_count > seen + 5);
	}
}

/* a client that tries to connect and is refused: the refusal's text */
static const char *refused(struct srvfix *f, const char *name, const char *extra)
{
	struct srv_client *c = srvfix_client(f, NULL, name, false, extra);

	srvfix_connect(c);
	srvfix_run(f, 1.5, true);
	assert_int_not_equal(c->q.state, QWC_ACTIVE);
	return c->q.reason;
}

/* a connectionless status with these flags, from an address of its own
 * (status has a budget per address) */
static void status(struct srvfix *f, const char *flags, char *reply, size_t max)
{
	char text[32];

	snprintf(text, sizeof(text), "status%s%s", flags[0] ? " " : "", flags);
	assert_true(srvfix_oob_text(f, srvfix_socket(f, NULL), text, reply, max) > 0);
}

/* maxclients counts players and maxspectators spectators, each apart;
 * spectator_password is the spectator's own; status and the scoreboard's
 * userinfo list a spectator as MVDSV does. */
static void test_spectator_slots_and_password(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *s1, *s2;
	char reply[2048], out[4096];

	srvfix_start(f, 2);
	assert_int_equal(cvar_set(f->sv, "maxspectators", "1"), 0);
	join_as(f, "alpha", NULL);
	join_as(f, "beta", NULL);
	/* the players' slots are full: a third player is refused... */
	assert_non_null(strstr(refused(f, "gamma", NULL), "server is full"));
	/* ...a spectator is not */
	s1 = join_as(f, "watcher", "\\spectator\\1");
	assert_true(s1->q.spectator);
	/* the spectators' are full now */
	assert_non_null(strstr(refused(f, "second", "\\spectator\\1"),
			       "all spectator slots taken"));

	/* the spectator's userinfo: "*spectator" set, its password gone */
	{
		const char *ui = server_side(f, s1)->userinfo;
		char v[16];

		assert_true(info_value_for_key(ui, "*spectator", v, sizeof(v)));
		assert_string_equal(v, "1");
		assert_false(info_value_for_key(ui, "spectator", v, sizeof(v)));
		/* and a later "setinfo spectator PASS" (ezQuake's observe sets
		 * the cvar) is not kept for everyone to read */
		say(f, s1, "setinfo spectator sekrit");
		assert_false(info_value_for_key(ui, "spectator", v, sizeof(v)));
	}

	/* status 0 (qstat's): the players only; 23 (ezQuake's browser):
	 * the spectator too, with frags -9999, "\s\", the team field */
	{
		static const struct {
			const char *flags, *has, *also, *lacks;
		} asks[] = {
			{"", "\"alpha\"", "\\maxspectators\\1", "watcher"},
			{"23", " -9999 ", "\"\\s\\watcher\" \"\" 1 2 \"\"", "no such"},
			{"6", "\"alpha\"", "watcher", "maxspectators"},	/* no serverinfo */
			{"12", " S ", "watcher", "alpha"},	/* spectators as players */
		};

		for (size_t i = 0; i < sizeof(asks) / sizeof(asks[0]); i++) {
			status(f, asks[i].flags, reply, sizeof(reply));
			assert_non_null(strstr(reply, asks[i].has));
			assert_non_null(strstr(reply, asks[i].also));
			assert_null(strstr(reply, asks[i].lacks));
		}
	}
	/* the console's */
	srvfix_command(f, "status", out, sizeof(out));
	assert_non_null(strstr(out, "players  2 of 2, spectators 1 of 1"));
	assert_non_null(strstr(out, " spectator\n"));

	/* spectator_password: "spectator 1" is no longer enough */
	qwc_disconnect(&s1->q);
	srvfix_run(f, 0.5, true);
	assert_int_equal(cvar_set(f->sv, "spectator_password", "sekrit"), 0);
	assert_int_equal(cvar_set(f->sv, "password", "players"), 0);
	assert_non_null(strstr(refused(f, "nopass", "\\spectator\\1"),
			       "requires a spectator password"));
	/* a player still needs the player password */
	assert_non_null(strstr(refused(f, "nopass2", NULL), "bad password"));
	/* the spectator's password, and no player password needed */
	s2 = join_as(f, "haspass", "\\spectator\\sekrit");
	assert_true(s2->q.spectator);
}

/* join and observe: sides change without a reconnect, within the limits
 * of the side joined, for clients that say they can. */
static void test_join_and_observe(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *p, *s, *old;
	struct client *sc;
	char v[16];

	srvfix_start(f, 2);
	p = join_as(f, "player", "\\*z_ext\\32");
	s = join_as(f, "spec", "\\spectator\\1\\*z_ext\\32");
	old = join_as(f, "old", "\\spectator\\1");
	sc = server_side(f, s);

	/* too soon after the connect: wait */
	told(f, s, "join", "Wait ");
	assert_true(sc->spectator);

	/* a client that did not say it can: told so */
	server_side(f, old)->connect_time -= 10;
	told(f, old, "join", "doesn't support this command");
	assert_true(server_side(f, old)->spectator);

	/* joins: a player in the same slot, the scoreboard told */
	sc->connect_time -= 10;
	say(f, s, "join");
	assert_false(sc->spectator);
	assert_int_equal(sc->state, CS_SPAWNED);
	assert_false(f->sv->game->clients[sc->slot].spectator);
	assert_false(info_value_for_key(sc->userinfo, "*spectator", v, sizeof(v)));
	srvfix_run(f, 0.3, true);
	assert_int_equal(sv_count_clients(f->sv, false), 2);

	/* the player slots are full now: the other spectator cannot join */
	server_side(f, old)->z_ext = Z_EXT_JOIN_OBSERVE;
	told(f, old, "join", "all player slots full");
	assert_true(server_side(f, old)->spectator);

	/* observe: back to a spectator, after its wait */
	told(f, s, "observe", "Wait ");
	sc->connect_time -= 10;
	say(f, s, "observe");
	assert_true(sc->spectator);
	assert_true(f->sv->game->clients[sc->slot].spectator);
	assert_true(info_value_for_key(sc->userinfo, "*spectator", v, sizeof(v)));
	/* with a spectator password the client must reconnect with it */
	server_side(f, p)->connect_time -= 10;
	assert_int_equal(cvar_set(f->sv, "spectator_password", "x"), 0);
	told(f, p, "observe", "requires a spectator password");
	assert_false(server_side(f, p)->spectator);
	/* and the spectators' limit holds */
	assert_int_equal(cvar_set(f->sv, "spectator_password", ""), 0);
	assert_int_equal(cvar_set(f->sv, "maxspectators", "2"), 0);
	told(f, p, "observe", "spectator/vip slots full");
	assert_false(server_side(f, p)->spectator);
	assert_int_equal(cvar_set(f->sv, "maxspectators", "3"), 0);
	say(f, p, "observe");
	assert_true(server_side(f, p)->spectator);
	srvfix_run(f, 0.3, true);
	for (int k = 0; k < QWC_BAD_KINDS; k++) {
		assert_int_equal(p->q.stats.bad[k], 0);
		assert_int_equal(s->q.stats.bad[k], 0);
	}
}

/* ---- chat ---------------------------------------------------------------- */

struct chat {	/* members in one run: heard() walks them */
	struct srv_client *red1, *red2, *blue1, *blue2;
	struct srv_client *spec_red, *spec_blue, *spec_none, *spec_team;
};

enum { CHAT_MEMBERS = 8 };

/* the clients that read a print holding the mark: a bit per member, in
 * the order of struct chat */
static unsigned heard(const struct chat *c)
{
	struct srv_client *const *all = &c->red1;
	unsigned bits = 0;

	for (unsigned i = 0; i < CHAT_MEMBERS; i++)
		if (all[i]->marked_prints)
			bits |= 1u << i;
	return bits;
}

enum { RED1 = 1, RED2 = 2, BLUE1 = 4, BLUE2 = 8, SPEC_RED = 16, SPEC_BLUE = 32,
       SPEC_NONE = 64, SPEC_TEAM = 128, EVERYONE = 255, SPECS = 240 };

static unsigned said(struct srvfix *f, struct chat *c, struct srv_client *who,
		     const char *cmd, const char *text_mark)
{
	mark(f, text_mark);
	say(f, who, cmd);
	return heard(c);
}

/* One step of the chat script: a setting (on qwd a cvar, on MVDSV a
 * console line), or who says what, who must read it (a bit per member),
 * and the line one reader must get. */
struct chat_step {
	const char *set, *value;	/* a setting, when set */
	int who;			/* member index (struct chat's order) */
	const char *cmd, *mark;
	unsigned heard;
	int reader;			/* -1: no text checked */
	const char *text;
};

enum { M_RED1, M_RED2, M_BLUE1, M_BLUE2, M_SPEC_RED, M_SPEC_BLUE, M_SPEC_NONE,
       M_SPEC_TEAM };

/* What MVDSV's SV_Say does, step by step; run on qwd and on MVDSV with
 * KTX alike (test_say_team_as_mvdsv).  spec_red tracks red2, spec_blue
 * blue1; spec_team is a spectator with team red; teamplay is on. */
static const struct chat_step chat_script[] = {
	/* a plain team message: the sender and its team, nobody else */
	{NULL, NULL, M_RED1, "say_team \"need rl\"", "need rl", RED1 | RED2,
	 M_RED2, "(red1): need rl\n"},
	{NULL, NULL, M_BLUE2, "say_team at quad", "at quad", BLUE1 | BLUE2,
	 M_BLUE1, "(blue2): at quad\n"},
	/* one holding the client's $\ mark (a carriage return) reaches, with
	 * sv_sayteam_to_spec, the spectators tracking a player of the team
	 * or on it (KTX's stock mvdsv.cfg turns it off: set here) */
	{"sv_sayteam_to_spec", "1", 0, NULL, NULL, 0, -1, NULL},
	{NULL, NULL, M_RED1, "say_team \"quad\rtaken\"", "taken",
	 RED1 | RED2 | SPEC_RED | SPEC_TEAM, -1, NULL},
	{NULL, NULL, M_BLUE1, "say_team \"ra\rup\"", "up", BLUE1 | BLUE2 | SPEC_BLUE,
	 -1, NULL},
	{"sv_sayteam_to_spec", "0", 0, NULL, NULL, 0, -1, NULL},
	{NULL, NULL, M_RED1, "say_team \"mh\rlost\"", "lost", RED1 | RED2, -1, NULL},
	/* everyone's say */
	{NULL, NULL, M_BLUE2, "say gg all", "gg all", EVERYONE, M_SPEC_NONE,
	 "blue2: gg all\n"},
	/* a spectator's say: everyone with sv_spectalk, else the spectators,
	 * as "[SPEC] name: text" */
	{"sv_spectalk", "1", 0, NULL, NULL, 0, -1, NULL},
	{NULL, NULL, M_SPEC_NONE, "say nice shot", "nice shot", EVERYONE, M_RED1,
	 "specnone: nice shot\n"},
	{"sv_spectalk", "0", 0, NULL, NULL, 0, -1, NULL},
	{NULL, NULL, M_SPEC_NONE, "say psst", "psst", SPECS, M_SPEC_RED,
	 "[SPEC] specnone: psst\n"},
	/* a spectator's say_team: the spectators only */
	{"sv_spectalk", "1", 0, NULL, NULL, 0, -1, NULL},
	{NULL, NULL, M_SPEC_TEAM, "say_team spec chat", "spec chat", SPECS,
	 M_SPEC_NONE, "[SPEC] specteam: spec chat\n"},
};

/* the eight members in (a server started, set for chat), the spectators
 * tracking */
static void chat_join(struct srvfix *f, struct chat *c)
{
	char cmd[64];

	c->red1 = join_as(f, "red1", "\\team\\red");
	c->red2 = join_as(f, "red2", "\\team\\red");
	c->blue1 = join_as(f, "blue1", "\\team\\blue");
	c->blue2 = join_as(f, "blue2", "\\team\\blue");
	c->spec_red = join_as(f, "specred", "\\spectator\\1");
	c->spec_blue = join_as(f, "specblue", "\\spectator\\1");
	c->spec_none = join_as(f, "specnone", "\\spectator\\1");
	c->spec_team = join_as(f, "specteam", "\\spectator\\1\\team\\red");
	snprintf(cmd, sizeof(cmd), "ptrack %d", c->red2->q.playernum);
	say(f, c->spec_red, cmd);
	snprintf(cmd, sizeof(cmd), "ptrack %d", c->blue1->q.playernum);
	say(f, c->spec_blue, cmd);
}

/* the script's steps on the server f runs (its settings through set);
 * each step's outcome is checked, naming the server on a failure */
static void chat_run(struct srvfix *f, struct chat *c, const char *server,
		     void (*set)(struct srvfix *f, const char *name, const char *value))
{
	struct srv_client *const *all = &c->red1;

	for (size_t i = 0; i < sizeof(chat_script) / sizeof(chat_script[0]); i++) {
		const struct chat_step *st = &chat_script[i];
		unsigned got;

		if (st->set) {
			set(f, st->set, st->value);
			continue;
		}
		got = said(f, c, all[st->who], st->cmd, st->mark);
		if (got != st->heard)
			fail_msg("%s: \"%s\" from member %d reached 0x%02x, not 0x%02x",
				 server, st->cmd, st->who, got, st->heard);
		if (st->reader >= 0 && strcmp(all[st->reader]->q.last_print, st->text) != 0)
			fail_msg("%s: \"%s\" read as \"%s\", not \"%s\"", server, st->cmd,
				 all[st->reader]->q.last_print, st->text);
	}
}

static void qwd_set(struct srvfix *f, const char *name, const char *value)
{
	assert_int_equal(cvar_set(f->sv, name, value), 0);
}

static void test_say_team_reaches_the_team(void **state)
{
	struct srvfix *f = *state;
	struct chat c;

	srvfix_start(f, 8);
	qwd_set(f, "teamplay", "2");
	qwd_set(f, "fp_messages", "0");	/* till the end */
	chat_join(f, &c);
	chat_run(f, &c, "qwd", qwd_set);
	/* without teamplay a team message reaches its sender alone */
	qwd_set(f, "teamplay", "0");
	assert_int_equal(said(f, &c, c.red1, "say_team alone", "alone"), RED1);
	/* the flood budget holds for team messages too */
	qwd_set(f, "teamplay", "2");
	qwd_set(f, "fp_messages", "4");
	{
		uint64_t muted = f->sv->stats.says_muted;

		for (int i = 0; i < 12; i++)
			assert_true(qwc_stringcmd(&c.red2->q, "say_team spam"));
		srvfix_run(f, 0.5, true);
		assert_true(f->sv->stats.says_muted > muted);
	}
}

/* where text sits in the demo's bytes, as a svc_print of PRINT_CHAT
 * opening its record: the record's type and (MVD_MULTIPLE) mask; false
 * when it is not there */
static bool demo_chat(const uint8_t *d, size_t n, const char *text, int *type,
		      uint32_t *mask)
{
	size_t len = strlen(text);

	for (size_t i = 12; i + len <= n; i++) {
		const uint8_t *h;

		if (memcmp(d + i, text, len) != 0 || d[i - 2] != svc_print ||
		    d[i - 1] != PRINT_CHAT)
			continue;
		h = d + i - 2 - 4;	/* the record's length */
		if ((h[-1] & 7) == MVD_ALL) {
			*type = MVD_ALL;
			*mask = 0;
			return true;
		}
		h -= 4;			/* a MULTIPLE record's mask */
		*type = h[-1] & 7;
		*mask = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 |
			(uint32_t)h[3] << 24;
		return true;
	}
	return false;
}

/* The demo (and QTV, the same records) gets what MVDSV writes: a say for
 * everyone's view, a team message and a spectators' chat only for the
 * views of those who read it. */
static void test_chat_in_the_demo(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *r1, *r2, *b1, *sp;
	char out[1024], path[256];
	struct mvd_reader *rd;
	uint8_t *data;
	size_t size;
	int type;
	uint32_t mask;

	srvfix_start(f, 8);
	qwd_set(f, "teamplay", "2");
	qwd_set(f, "fp_messages", "0");
	r1 = join_as(f, "red1", "\\team\\red");
	r2 = join_as(f, "red2", "\\team\\red");
	b1 = join_as(f, "blue1", "\\team\\blue");
	sp = join_as(f, "spec", "\\spectator\\1");
	srvfix_command(f, "record chat", out, sizeof(out));
	srvfix_run(f, 0.3, true);
	say(f, r1, "say_team secret plan");
	say(f, b1, "say hello all");
	qwd_set(f, "sv_spectalk", "0");
	say(f, sp, "say spec only");
	srvfix_command(f, "stop", out, sizeof(out));

	snprintf(path, sizeof(path), "%s/qw/demos/chat.mvd", f->dir);
	data = qwd_read_file(path, &size);
	assert_non_null(data);
	rd = calloc(1, sizeof(*rd));
	assert_non_null(rd);
	mvd_reader_init(rd);
	assert_int_equal(mvd_read(rd, data, size), size);
	assert_int_equal(rd->fault, 0);
	free(rd);
	assert_true(demo_chat(data, size, "(red1): secret plan\n", &type, &mask));
	assert_int_equal(type, MVD_MULTIPLE);
	assert_int_equal(mask, 1u << r1->q.playernum | 1u << r2->q.playernum);
	assert_true(demo_chat(data, size, "blue1: hello all\n", &type, &mask));
	assert_int_equal(type, MVD_ALL);
	assert_true(demo_chat(data, size, "[SPEC] spec: spec only\n", &type, &mask));
	assert_int_equal(type, MVD_MULTIPLE);
	assert_int_equal(mask, 1u << sp->q.playernum);
	free(data);
}

/* ---- the same against MVDSV with KTX ------------------------------------ */

static const char *const mvdsv_bin = "/usr/games/mvdsv";
static const char *const ktx_data = "/usr/share/games/quake/ktx";
static const char *const ktx_progs = "/usr/lib/quakeworld/ktx/qwprogs.so";

/* a console line to MVDSV; KTX sets sv_sayteam_to_spec and sv_spectalk
 * itself from its own k_sayteam_to_spec (3: always) and k_spectalk, so
 * those are set too */
static void mvdsv_set(struct srvfix *f, const char *name, const char *value)
{
	char line[160];
	int n;

	if (!strcmp(name, "sv_sayteam_to_spec"))
		n = snprintf(line, sizeof(line), "k_sayteam_to_spec %s\n%s %s\n",
			     strcmp(value, "0") ? "3" : "0", name, value);
	else if (!strcmp(name, "sv_spectalk"))
		n = snprintf(line, sizeof(line), "k_spectalk %s\n%s %s\n", value, name, value);
	else
		n = snprintf(line, sizeof(line), "%s %s\n", name, value);
	assert_int_equal(write(f->child_in, line, (size_t)n), n);
	srvfix_run(f, 0.3, true);
}

/* a free UDP port on 127.0.0.1 */
static uint16_t some_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	uint16_t port;

	assert_true(fd >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* MVDSV with KTX as the fixture's child, serving the fixture's first map
 * from a base folder laid out as it wants (id1/maps with the item boxes,
 * ktx/ with the package's data), its console a pipe; false when it
 * cannot be had */
static bool mvdsv_start(struct srvfix *f)
{
	char base[128], path[PATH_MAX], log[160], port[16];
	const char *map = qwd_bundled_map(f->maps[0]);
	char dir[PATH_MAX];
	DIR *d;
	struct dirent *e;
	int in[2];

	snprintf(base, sizeof(base), "%s/mvdsv", f->dir);
	snprintf(path, sizeof(path), "%s/id1/maps", base);
	srvfix_write(f, "mvdsv/id1/maps/.keep", "");
	srvfix_write(f, "mvdsv/ktx/.keep", "");
	/* the map and its neighbours (the b_*.bsp item boxes) */
	strlcpy(dir, map, sizeof(dir));
	*strrchr(dir, '/') = '\0';
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d))) {
		char from[PATH_MAX + 256], to[PATH_MAX + 256];

		if (strncmp(e->d_name, "b_", 2) != 0 && strcmp(e->d_name, strrchr(map, '/') + 1) != 0)
			continue;
		snprintf(from, sizeof(from), "%s/%s", dir, e->d_name);
		snprintf(to, sizeof(to), "%s/%s", path, e->d_name);
		assert_int_equal(symlink(from, to), 0);
	}
	closedir(d);
	d = opendir(ktx_data);
	if (!d)
		return false;
	while ((e = readdir(d))) {
		char from[PATH_MAX + 256], to[PATH_MAX + 256];

		if (e->d_name[0] == '.')
			continue;
		snprintf(from, sizeof(from), "%s/%s", ktx_data, e->d_name);
		snprintf(to, sizeof(to), "%s/ktx/%s", base, e->d_name);
		assert_int_equal(symlink(from, to), 0);
	}
	closedir(d);
	snprintf(path, sizeof(path), "%s/ktx/qwprogs.so", base);
	if (access(path, F_OK) != 0)
		assert_int_equal(symlink(ktx_progs, path), 0);

	f->child_port = some_port();
	snprintf(port, sizeof(port), "%u", f->child_port);
	snprintf(log, sizeof(log), "%s/mvdsv.log", base);
	assert_int_equal(pipe(in), 0);
	signal(SIGPIPE, SIG_IGN);
	f->child = fork();
	assert_true(f->child >= 0);
	if (f->child == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);

		dup2(in[0], 0);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		close(in[1]);
		if (chdir(base) != 0)
			_exit(126);
		/* no real-address check (the test's clients answer no
		 * "packet" stuff); KTX's stock configs otherwise (its 4on4
		 * mode, teamplay 2) */
		execl(mvdsv_bin, "mvdsv", "-basedir", base, "-game", "ktx", "-ip", "127.0.0.1",
		      "-port", port, "+set", "sv_getrealip", "0", "+map", f->maps[0],
		      (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	f->child_in = in[1];
	/* up when it answers a status */
	{
		int fd = srvfix_socket(f, NULL);
		char reply[2048];

		for (int i = 0; i < 20; i++)
			if (srvfix_oob_text(f, fd, "status", reply, sizeof(reply)) > 0)
				return true;
	}
	fail_msg("MVDSV did not answer (see %s)", log);
	return false;
}

/* The same chat script against MVDSV 0.35 with KTX 1.42: the same
 * clients reach the same members with the same lines. */
static void test_say_team_as_mvdsv(void **state)
{
	struct srvfix *f = *state;
	struct chat c;

	if (access(mvdsv_bin, X_OK) != 0 || access(ktx_progs, R_OK) != 0) {
		qwd_skip_reason(__func__, "needs MVDSV and KTX (Debian packages mvdsv, ktx)");
		skip();
	}
	if (!mvdsv_start(f)) {
		qwd_skip_reason(__func__, "no KTX data in /usr/share/games/quake/ktx");
		skip();
	}
	mvdsv_set(f, "teamplay", "2");
	chat_join(f, &c);
	chat_run(f, &c, "MVDSV+KTX", mvdsv_set);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_every_client_message_in_every_order, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_cut_tmove_and_upload, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_ptrack_sends_the_tracked_players_stats, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_tmove_moves_the_spectators_pvs, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_spectator_slots_and_password, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_join_and_observe, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_say_team_reaches_the_team, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_chat_in_the_demo, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_say_team_as_mvdsv, srvfix_test_teardown),
};

QWD_TEST_GROUP(spectate, tests, srvfix_setup, srvfix_teardown)
