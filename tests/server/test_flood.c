/*
 * test_flood.c -- one client flooding the server, and a burst of leaves,
 * while stock protocol-28 players look on (srvfix.h: in-process server,
 * real clients over loopback).
 *
 * Design note
 *   Each flood is what an attacker sends: raw netchan packets of up to a
 *   datagram the server reads (NET_MAX_UDP_PACKET), full of string
 *   commands.  The first part of each flood stays within "far over": the
 *   flooder is muted or its commands ignored, and counted; the second goes
 *   far over and drops it.  Throughout, the 16 stock players stay
 *   connected (in the game on the server, active on their side), and end
 *   up with the server's newest names and frags of every slot; a normal
 *   signon never touches the budgets (no command ignored while 16 players
 *   and the flooder join).  The figures asserted are the cvars' defaults.
 */
#include "../harness.h"
#include "srvfix.h"

#include <stdio.h>
#include <string.h>

enum {
	PLAYERS = 16,
	FP_MESSAGES = 4,	/* fp_messages */
	SETINFO_BURST = 20,	/* sv_setinfoburst */
	KILL_BURST = 20		/* sv_killburst */
};

static uint8_t payload[NET_MAX_UDP_PACKET];

/* every client in the game within `seconds`, else those that are not are
 * shown and the test fails */
static void all_active(struct srvfix *f, double seconds)
{
	if (srvfix_until_all(f, QWC_ACTIVE, seconds))
		return;
	for (int i = 0; i < f->ncl; i++)
		if (f->cl[i]->q.state != QWC_ACTIVE)
			srvfix_dump_client(f->cl[i]);
	fail_msg("not every client reached the game");
}

/* PLAYERS stock players and one more, the flooder, all in the game on
 * the project's map small */
static struct srv_client *join(struct srvfix *f, int maxclients)
{
	char name[16];
	struct srv_client *flooder;

	srvfix_start(f, maxclients);
	for (int i = 0; i < PLAYERS; i++) {
		snprintf(name, sizeof(name), "p%02d", i);
		srvfix_connect(srvfix_client(f, NULL, name, false, NULL));
	}
	flooder = srvfix_client(f, NULL, "flooder", false, NULL);
	srvfix_connect(flooder);
	all_active(f, 10.0);
	srvfix_run(f, 0.3, true);
	/* a signon, and the players' first moves, are within every budget */
	assert_int_equal(f->sv->stats.cmds_ignored, 0);
	return flooder;
}

/* every player still connected: active on its side, in the game on ours */
static void assert_players_stay(struct srvfix *f)
{
	for (int i = 0; i < PLAYERS; i++) {
		const struct srv_client *t = f->cl[i];

		if (t->q.state != QWC_ACTIVE)
			srvfix_dump_client(t);
		assert_int_equal(t->q.state, QWC_ACTIVE);
		assert_int_equal(f->sv->clients[t->q.playernum].state, CS_SPAWNED);
		for (int k = 0; k < QWC_BAD_KINDS; k++)
			assert_int_equal(t->q.stats.bad[k], 0);
	}
}

/* every player sees the name and frags the server has for each slot */
static void assert_scoreboards_current(struct srvfix *f)
{
	for (int i = 0; i < PLAYERS; i++) {
		const struct qwc *q = &f->cl[i]->q;

		for (int s = 0; s < f->sv->maxclients; s++) {
			const struct client *c = &f->sv->clients[s];

			assert_int_equal(q->players[s].present, c->state >= CS_CONNECTED);
			if (c->state < CS_CONNECTED)
				continue;
			assert_string_equal(q->players[s].name, c->name);
			assert_int_equal(q->players[s].frags, c->frags);
		}
	}
}

static void assert_dropped(struct srvfix *f, struct srv_client *flooder, int slot)
{
	assert_true(f->sv->clients[slot].state < CS_CONNECTED);
	assert_int_equal(f->sv->stats.flood_drops, 1);
	assert_int_equal(flooder->q.state, QWC_DROPPED);
}

static void test_chat_flood(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *flooder = join(f, PLAYERS + 1);
	int slot = flooder->q.playernum;
	char say[300];
	size_t n;

	/* 31 lines of 250 bytes a packet, two packets: a chat flood */
	snprintf(say, sizeof(say), "say FLOODTEXT %0240d", 7);
	f->print_mark = "FLOODTEXT";
	n = srvfix_stringcmds(payload, sizeof(payload), say, 31);
	srvfix_send_raw(flooder, -1, payload, n);
	srvfix_send_raw(flooder, -1, payload, n);
	srvfix_run(f, 1.0, true);
	print_message("chat flood: %llu says muted, %llu mutes, %llu texts dropped\n",
		      (unsigned long long)f->sv->stats.says_muted,
		      (unsigned long long)f->sv->stats.mutes,
		      (unsigned long long)f->sv->stats.prints_dropped);
	assert_players_stay(f);
	/* everyone heard the first fp_messages lines, then the flooder was
	 * muted, told so, and kept */
	for (int i = 0; i < PLAYERS; i++) {
		assert_int_equal(f->cl[i]->marked_prints, FP_MESSAGES);
		assert_int_equal(f->cl[i]->last_mark_level, PRINT_CHAT);
	}
	assert_int_equal(f->sv->stats.mutes, 1);
	assert_int_equal(f->sv->stats.says_muted, 62 - FP_MESSAGES);
	assert_int_equal(f->sv->clients[slot].state, CS_SPAWNED);
	assert_non_null(strstr(flooder->q.last_print, "can't talk"));
	assert_int_equal(f->sv->stats.flood_drops, 0);

	/* far over: twelve packets more, and it is dropped */
	for (int i = 0; i < 12; i++)
		srvfix_send_raw(flooder, -1, payload, n);
	srvfix_run(f, 1.0, true);
	assert_dropped(f, flooder, slot);
	assert_players_stay(f);
	for (int i = 0; i < PLAYERS; i++)
		assert_int_equal(f->cl[i]->marked_prints, FP_MESSAGES);
	assert_true(f->sv->stats.cmds_ignored > 0);
}

/* "setinfo name <base><i>" for i from first, count of them */
static size_t setinfos(const char *base, int first, int count)
{
	size_t n = 0;

	for (int i = first; i < first + count; i++) {
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "setinfo name %s%03d", base, i);
		n += srvfix_stringcmds(payload + n, sizeof(payload) - n, cmd, 1);
	}
	return n;
}

static void test_setinfo_flood(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *flooder = join(f, PLAYERS + 1);
	int slot = flooder->q.playernum;
	char want[32];
	size_t n;

	/* a hundred name changes in one packet: the first SETINFO_BURST
	 * count, the rest are ignored */
	n = setinfos("flood", 0, 100);
	srvfix_send_raw(flooder, -1, payload, n);
	srvfix_run(f, 1.0, true);
	print_message("setinfo flood: %llu ignored, %llu updates folded\n",
		      (unsigned long long)f->sv->stats.cmds_ignored,
		      (unsigned long long)f->sv->stats.infos_folded);
	assert_players_stay(f);
	assert_int_equal(f->sv->stats.cmds_ignored, 100 - SETINFO_BURST);
	assert_int_equal(f->sv->clients[slot].state, CS_SPAWNED);
	/* everyone has the newest name: the last one accepted */
	snprintf(want, sizeof(want), "flood%03d", SETINFO_BURST - 1);
	assert_string_equal(f->sv->clients[slot].name, want);
	assert_scoreboards_current(f);
	/* each player got the flooder's info fewer times than it changed */
	assert_true(f->sv->stats.infos_folded > 0);
	assert_true(f->cl[0]->q.players[slot].info_updates < SETINFO_BURST);

	/* far over: five packets more, and it is dropped */
	for (int i = 1; i <= 5; i++) {
		n = setinfos("more", 100 * i, 100);
		srvfix_send_raw(flooder, -1, payload, n);
	}
	srvfix_run(f, 1.0, true);
	assert_dropped(f, flooder, slot);
	assert_players_stay(f);
	assert_scoreboards_current(f);
}

static void test_kill_flood(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *flooder = join(f, PLAYERS + 1);
	int slot = flooder->q.playernum;
	uint64_t ignored = f->sv->stats.cmds_ignored;
	size_t n;

	/* a hundred suicides in one packet: KILL_BURST of them happen, and
	 * everyone hears of each */
	f->print_mark = "flooder suicides";
	n = srvfix_stringcmds(payload, sizeof(payload), "kill", 100);
	srvfix_send_raw(flooder, -1, payload, n);
	srvfix_run(f, 1.0, true);
	print_message("kill flood: %llu ignored, %llu texts dropped, frags %d\n",
		      (unsigned long long)f->sv->stats.cmds_ignored,
		      (unsigned long long)f->sv->stats.prints_dropped,
		      f->sv->clients[slot].frags);
	assert_players_stay(f);
	assert_int_equal(f->sv->stats.cmds_ignored, ignored + 100 - KILL_BURST);
	assert_int_equal(f->sv->clients[slot].state, CS_SPAWNED);
	for (int i = 0; i < PLAYERS; i++)
		assert_int_equal(f->cl[i]->marked_prints, KILL_BURST);
	/* the frags of every respawn (a suicide, and any telefrag) as the
	 * server has them */
	assert_scoreboards_current(f);

	/* a packet of 500: far over, dropped */
	n = srvfix_stringcmds(payload, sizeof(payload), "kill", 500);
	srvfix_send_raw(flooder, -1, payload, n);
	srvfix_run(f, 1.0, true);
	assert_dropped(f, flooder, slot);
	assert_players_stay(f);
	assert_scoreboards_current(f);
}

/* A mass timeout: BOTS extension clients fall silent at once, and the
 * burst of "timed out" and "left the game" texts, and of slots emptied,
 * reaches stock observers, who stay and end with the right scoreboard. */
static void test_mass_leave(void **state)
{
	enum { BOTS = 160, OBSERVERS = 4 };
	struct srvfix *f = *state;
	char name[16];
	double end;
	int left;

	srvfix_start(f, BOTS + OBSERVERS);
	for (int i = 0; i < OBSERVERS; i++) {
		snprintf(name, sizeof(name), "obs%d", i);
		srvfix_connect(srvfix_client(f, NULL, name, false, "\\spectator\\1"));
	}
	all_active(f, 5.0);
	f->track_entities = false;
	for (int i = 0; i < BOTS; i++) {
		snprintf(name, sizeof(name), "bot%03d", i);
		srvfix_connect(srvfix_client(f, NULL, name, true, NULL));
	}
	all_active(f, 30.0);
	srvfix_run(f, 0.5, true);
	assert_int_equal(f->sv->stats.cmds_ignored, 0);

	/* the bots go silent; the observers carry on */
	assert_int_equal(cvar_set(f->sv, "timeout", "1"), 0);
	end = server_clock() + 10.0;
	do {
		server_frame(f->sv, 0.001);
		for (int i = 0; i < f->ncl; i++)
			srvfix_client_step(f, f->cl[i], i < OBSERVERS);
		left = 0;
		for (int i = OBSERVERS; i < f->ncl; i++)
			left += f->sv->clients[f->cl[i]->q.playernum].state >= CS_CONNECTED;
	} while (left > 0 && server_clock() < end);
	assert_int_equal(left, 0);
	for (int k = 0; k < 100; k++) {
		server_frame(f->sv, 0.001);
		for (int i = 0; i < OBSERVERS; i++)
			srvfix_client_step(f, f->cl[i], true);
	}
	srvfix_run(f, 1.0, true);
	print_message("mass leave: %d bots timed out, %llu texts dropped, "
		      "%llu updates folded\n", BOTS,
		      (unsigned long long)f->sv->stats.prints_dropped,
		      (unsigned long long)f->sv->stats.infos_folded);
	for (int i = 0; i < OBSERVERS; i++) {
		const struct srv_client *t = f->cl[i];

		if (t->q.state != QWC_ACTIVE)
			srvfix_dump_client(t);
		assert_int_equal(t->q.state, QWC_ACTIVE);
		assert_int_equal(f->sv->clients[t->q.playernum].state, CS_SPAWNED);
		/* every protocol-28 slot as the server has it: the observers
		 * present, the bots' slots empty */
		for (int s = 0; s < MAX_CLIENTS; s++)
			assert_int_equal(t->q.players[s].present,
					 f->sv->clients[s].state >= CS_CONNECTED);
		for (int k = 0; k < QWC_BAD_KINDS; k++)
			assert_int_equal(t->q.stats.bad[k], 0);
	}
	assert_int_equal(f->sv->stats.drops, BOTS);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(test_chat_flood, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_setinfo_flood, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_kill_flood, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_mass_leave, NULL, srvfix_test_teardown),
};

QWD_TEST_GROUP(server_flood, tests, srvfix_setup, srvfix_teardown)
