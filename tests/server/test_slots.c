/*
 * test_slots.c -- who gets a slot: the cap per address, the signon
 * deadline, and where extension (QWDX) clients go.
 *
 * Design note
 *   Connects are handed to the server in-process with the challenge it
 *   would have given (srvfix_connect_raw), from addresses and ports the
 *   test picks: one address with many ports is one host opening many
 *   clients.  Real players are qwc clients on their own 127.0.0.N and
 *   must reach the game.  The deadline test shortens sv_signontimeout to
 *   one second and runs generously past it; nothing asserts how long a
 *   step took.
 *   The load tests set the meter's input themselves (sv->load, or a
 *   window's busy seconds and its end handed to sv_load_window): what is
 *   tested is what the server does at a given load, not the machine's.
 */
#include "../harness.h"
#include "srvfix.h"

#include <stdio.h>
#include <string.h>

static void test_one_address_cannot_take_every_slot(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *real;
	char from[32];
	int got = 0;

	srvfix_start(f, 8);
	/* the default cap: four (a second between connects, so the
	 * address's connect budget is not what stops them) */
	for (int i = 0; i < 8; i++) {
		f->sv->realtime += 1.0;
		snprintf(from, sizeof(from), "127.0.0.9:%d", 27100 + i);
		got += srvfix_connect_raw(f, from, 100 + i, false) >= 0;
	}
	assert_int_equal(got, 4);
	assert_int_equal(srvfix_clients_from(f, "127.0.0.9"), 4);
	assert_int_equal(srvfix_log_count(f, "too many clients from your address"), 4);

	/* a player from elsewhere still gets in and plays */
	real = srvfix_client(f, "127.0.0.10", "real", false, NULL);
	qwc_connect(&real->q, server_clock());
	assert_true(srvfix_until(f, real, QWC_ACTIVE, 5.0));
	assert_int_equal(srvfix_clients_from(f, "127.0.0.10"), 1);

	/* 0 lifts the cap: the rest of the slots fill from that address */
	assert_int_equal(cvar_set(f->sv, "sv_maxclientsperip", "0"), 0);
	for (int i = 4; i < 8; i++) {
		f->sv->realtime += 1.0;
		snprintf(from, sizeof(from), "127.0.0.9:%d", 27100 + i);
		srvfix_connect_raw(f, from, 100 + i, false);
	}
	/* eight slots: four, the player, three more; the last one is full */
	assert_int_equal(srvfix_clients_from(f, "127.0.0.9"), 7);
	assert_int_equal(srvfix_log_count(f, "server is full"), 1);
	assert_int_equal(srvfix_connect_raw(f, "127.0.0.11", 100, false), -1);
	assert_int_equal(srvfix_log_count(f, "server is full"), 2);
}

static void test_reconnect_is_not_a_new_slot(void **state)
{
	struct srvfix *f = *state;

	srvfix_start(f, 8);
	for (int i = 0; i < 4; i++) {
		char from[32];

		snprintf(from, sizeof(from), "127.0.0.9:%d", 27100 + i);
		assert_true(srvfix_connect_raw(f, from, 100 + i, false) >= 0);
	}
	/* at the cap, the same (address, qport) coming again replaces its
	 * slot instead of being refused */
	assert_true(srvfix_connect_raw(f, "127.0.0.9:27200", 101, false) >= 0);
	assert_int_equal(srvfix_clients_from(f, "127.0.0.9"), 4);
	assert_int_equal(srvfix_log_count(f, "too many clients"), 0);
}

static void test_qwdx_clients_take_high_slots_first(void **state)
{
	struct srvfix *f = *state;
	char from[32];
	int slot;

	/* 36 players; 68 slots with the spectators' 32 (spectate.c) */
	srvfix_start(f, 36);
	/* four extension clients: slots 32..35, the stock slots stay free */
	for (int i = 0; i < 4; i++) {
		snprintf(from, sizeof(from), "127.0.1.%d", i + 1);
		slot = srvfix_connect_raw(f, from, 200 + i, true);
		assert_int_equal(slot, MAX_CLIENTS + i);
		assert_true(f->sv->clients[slot].extended);
	}
	/* a stock client gets slot 0 */
	assert_int_equal(srvfix_connect_raw(f, "127.0.2.1", 300, false), 0);
	/* the next extension client still takes a high slot */
	slot = srvfix_connect_raw(f, "127.0.1.9", 209, true);
	assert_int_equal(slot, MAX_CLIENTS + 4);
	/* stock clients fill 1..30: 36 players, maxclients */
	for (int i = 1; i < MAX_CLIENTS - 1; i++) {
		snprintf(from, sizeof(from), "127.0.3.%d", i);
		assert_int_equal(srvfix_connect_raw(f, from, 400 + i, false), i);
	}
	assert_int_equal(srvfix_connect_raw(f, "127.0.4.1", 500, false), -1);
	assert_int_equal(srvfix_log_count(f, "server is full"), 1);
}

static void test_qwdx_clients_leave_stock_clients_room(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *stock;
	char from[32];

	/* 64 slots, 32 extension clients: all above 31, so a stock
	 * player still joins (before: they took 0..31 and locked it out) */
	srvfix_start(f, 64);
	for (int i = 0; i < 32; i++) {
		snprintf(from, sizeof(from), "127.0.5.%d", i + 1);
		assert_true(srvfix_connect_raw(f, from, 600 + i, true) >= MAX_CLIENTS);
	}
	stock = srvfix_client(f, "127.0.6.1", "stock", false, NULL);
	qwc_connect(&stock->q, server_clock());
	assert_true(srvfix_until(f, stock, QWC_ACTIVE, 5.0));
	assert_true(stock->q.playernum < MAX_CLIENTS);
}

static void test_signon_deadline(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *real;
	int idle;

	srvfix_start(f, 8);
	assert_int_equal(cvar_set(f->sv, "sv_signontimeout", "1"), 0);
	/* connects and never says "new": holds a slot, plays nothing */
	idle = srvfix_connect_raw(f, "127.0.0.20", 700, false);
	assert_true(idle >= 0);
	real = srvfix_client(f, "127.0.0.21", "real", false, NULL);
	qwc_connect(&real->q, server_clock());
	assert_true(srvfix_until(f, real, QWC_ACTIVE, 5.0));

	srvfix_run(f, 2.5, true);
	assert_true(f->sv->clients[idle].state < CS_CONNECTED);
	assert_int_equal(srvfix_log_count(f, "did not enter the game within 1 s"), 1);
	assert_int_equal(srvfix_clients_from(f, "127.0.0.20"), 0);
	/* the player who entered is not touched by the deadline */
	assert_int_equal(real->q.state, QWC_ACTIVE);
	assert_int_equal(srvfix_clients_from(f, "127.0.0.21"), 1);

	/* 0: no deadline */
	assert_int_equal(cvar_set(f->sv, "sv_signontimeout", "0"), 0);
	idle = srvfix_connect_raw(f, "127.0.0.22", 701, false);
	assert_true(idle >= 0);
	srvfix_run(f, 1.5, true);
	assert_int_equal(f->sv->clients[idle].state, CS_CONNECTED);
}

/* A busy server refuses the extension's bots first, then stock players;
 * sv_maxload 0 turns it off.  Every refusal says why and is counted. */
static void test_busy_server_refuses_joins(void **state)
{
	struct srvfix *f = *state;

	srvfix_start(f, 64);
	assert_string_equal(cvar_get(f->sv, "sv_maxload")->string, "0.9");
	f->sv->load = 0.5;
	assert_true(srvfix_connect_raw(f, "127.0.7.1", 800, true) >= 0);
	f->sv->load = 0.92;
	/* over sv_maxload: a bot is refused, a stock player still gets in
	 * (its limit is halfway to 1: 0.95) */
	assert_int_equal(srvfix_connect_raw(f, "127.0.7.2", 801, true), -1);
	assert_int_equal(srvfix_log_count(f, "server is busy (load 92%, over 90%)"), 1);
	assert_true(srvfix_connect_raw(f, "127.0.7.3", 802, false) >= 0);
	f->sv->load = 0.96;
	assert_int_equal(srvfix_connect_raw(f, "127.0.7.4", 803, false), -1);
	assert_int_equal(srvfix_log_count(f, "server is busy (load 96%, over 95%)"), 1);
	assert_int_equal((int)f->sv->stats.busy_refusals, 2);
	/* 0: no admission by load */
	assert_int_equal(cvar_set(f->sv, "sv_maxload", "0"), 0);
	f->sv->load = 1.0;
	assert_true(srvfix_connect_raw(f, "127.0.7.5", 804, true) >= 0);
	assert_int_equal((int)f->sv->stats.busy_refusals, 2);
}

/* feed the meter n windows of 0.5 s, busy for the given share */
static void load_windows(struct server *sv, double *t, int n, double share,
			 bool backlog)
{
	for (int i = 0; i < n; i++) {
		sv->load_backlog_now = backlog;
		sv->load_busy = 0.5 * share;
		*t += 0.5;
		sv_load_window(sv, *t);
	}
}

/* The meter reads busy over wall time; a saturated server with a backlog
 * lets its newest players go, bots before stock players, only after more
 * than a second of it, and stops once it keeps up. */
static void test_overload_lets_the_newest_go(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *a, *b, *bot;
	double t = 1000.0;

	srvfix_start(f, 64);
	a = srvfix_player(f, "first");
	b = srvfix_player(f, "second");
	bot = srvfix_client(f, NULL, "bot", true, NULL);
	qwc_connect(&bot->q, server_clock());
	assert_true(srvfix_until(f, bot, QWC_ACTIVE, 5.0));
	assert_true(bot->q.playernum >= MAX_CLIENTS);

	f->sv->load_window_start = t;
	load_windows(f->sv, &t, 1, 0.3, false);
	assert_true(f->sv->load > 0.29 && f->sv->load < 0.31);
	/* saturated without a backlog: keeping up, nobody goes */
	load_windows(f->sv, &t, 4, 1.0, false);
	assert_true(f->sv->load > 0.99);
	assert_int_equal((int)f->sv->stats.overload_drops, 0);
	/* with a backlog: two windows (a second) are a burst */
	load_windows(f->sv, &t, 2, 1.0, true);
	assert_int_equal((int)f->sv->stats.overload_drops, 0);
	/* the third: the bot goes first, though it is not the newest */
	load_windows(f->sv, &t, 1, 1.0, true);
	assert_int_equal((int)f->sv->stats.overload_drops, 1);
	assert_int_equal(f->sv->clients[bot->q.playernum].state < CS_CONNECTED, 1);
	assert_int_equal(srvfix_log_count(f, "overload: load 100%, dropping client"), 1);
	/* then the newest stock player */
	load_windows(f->sv, &t, 1, 1.0, true);
	assert_int_equal((int)f->sv->stats.overload_drops, 2);
	assert_true(f->sv->clients[b->q.playernum].state < CS_CONNECTED);
	assert_int_equal(f->sv->clients[a->q.playernum].state, CS_SPAWNED);
	/* keeping up again: the count of overloaded windows starts over */
	load_windows(f->sv, &t, 1, 0.5, false);
	load_windows(f->sv, &t, 2, 1.0, true);
	assert_int_equal((int)f->sv->stats.overload_drops, 2);
	/* sv_overloaddrop 0: saturated for long, nobody goes */
	assert_int_equal(cvar_set(f->sv, "sv_overloaddrop", "0"), 0);
	load_windows(f->sv, &t, 10, 1.0, true);
	assert_int_equal((int)f->sv->stats.overload_drops, 2);
	assert_int_equal(f->sv->clients[a->q.playernum].state, CS_SPAWNED);
	/* the player let go was told why */
	srvfix_run(f, 0.3, true);
	assert_int_equal(b->q.state, QWC_DROPPED);
	assert_non_null(strstr(b->q.last_print, "server overloaded"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_one_address_cannot_take_every_slot, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_reconnect_is_not_a_new_slot, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_qwdx_clients_take_high_slots_first, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_qwdx_clients_leave_stock_clients_room, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_signon_deadline, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_busy_server_refuses_joins, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_overload_lets_the_newest_go, srvfix_test_teardown),
};

QWD_TEST_GROUP(slots, tests, srvfix_setup, srvfix_teardown)
