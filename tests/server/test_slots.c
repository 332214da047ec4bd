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
	/* with the high slots full an extension client takes a low one */
	slot = srvfix_connect_raw(f, "127.0.1.9", 209, true);
	assert_int_equal(slot, 1);
	assert_true(f->sv->clients[1].extended);
	/* and stock clients fill the rest of 0..31 */
	for (int i = 2; i < MAX_CLIENTS; i++) {
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

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_one_address_cannot_take_every_slot, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_reconnect_is_not_a_new_slot, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_qwdx_clients_take_high_slots_first, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_qwdx_clients_leave_stock_clients_room, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_signon_deadline, srvfix_test_teardown),
};

QWD_TEST_GROUP(slots, tests, srvfix_setup, srvfix_teardown)
