/*
 * test_votes.c -- the match's votes and admins on an in-process server
 * (src/server/match_votes.c) with the fixture's protocol-28 players: a
 * votemap that changes the level (an admin still one after it); an admin login, a forcestart and a
 * lock that refuses a new player (and lets him in once unlocked); a
 * muted player's chat dropped, then the player kicked.
 *
 * Design note
 *   The players type their commands as a client does (clc_stringcmd);
 *   the assertions read the server's level, the match's state, the
 *   refused client's reason, the prints holding a mark and the log.
 *   The vote gap (one vote a second per player) is stepped past with
 *   the fixture's frames, never slept.
 */
#include "../harness.h"
#include "srvfix.h"

#include <qwd/client.h>
#include <qwd/match.h>

#include <stdio.h>
#include <string.h>

static void test_votes_votemap_changes_level(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *a, *b;
	char line[96], out[256];

	srvfix_start(f, 8);
	srvfix_command(f, "k_admincode 7531", out, sizeof(out));
	a = srvfix_player(f, "alice");
	b = srvfix_player(f, "bob");
	srvfix_run(f, 0.3, true);
	qwc_stringcmd(&a->q, "admin 7531");
	srvfix_run(f, 0.3, true);
	/* a map the server does not have is refused with its name */
	f->print_mark = "Map 'nosuchmap' not available on this server";
	qwc_stringcmd(&a->q, "votemap nosuchmap");
	srvfix_run(f, 0.5, true);
	assert_int_equal(a->marked_prints, 1);
	assert_string_equal(f->sv->mapname, f->maps[0]);

	snprintf(line, sizeof(line), "votemap %s", f->maps[1]);
	qwc_stringcmd(&a->q, line);
	srvfix_run(f, 0.5, true);
	assert_string_equal(f->sv->mapname, f->maps[0]);	/* 1 of 2 */
	qwc_stringcmd(&b->q, line);
	srvfix_run(f, 1.0, true);
	assert_string_equal(f->sv->mapname, f->maps[1]);
	assert_true(srvfix_log_count(f, "vote: map") >= 1);
	srvfix_command(f, "votestats", out, sizeof(out));
	assert_non_null(strstr(out, "1 maps refused, 1 passed"));
	/* the admin stays one through the level change's reconnect */
	assert_true(srvfix_until_all(f, QWC_ACTIVE, 5.0));
	qwc_stringcmd(&a->q, "lock");
	srvfix_run(f, 0.3, true);
	assert_true(match_locked(sv_match_get(f->sv)));
}

static void test_votes_admin_forcestart_lock(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *a, *c;
	char out[256];

	srvfix_start(f, 8);
	srvfix_command(f, "k_admincode 7531", out, sizeof(out));
	srvfix_command(f, "k_count 3", out, sizeof(out));
	a = srvfix_player(f, "alice");
	(void)srvfix_player(f, "bob");
	srvfix_run(f, 0.3, true);
	qwc_stringcmd(&a->q, "admin 1111");
	srvfix_run(f, 0.3, true);
	qwc_stringcmd(&a->q, "forcestart");
	srvfix_run(f, 0.3, true);
	assert_int_equal(match_state(sv_match_get(f->sv)), MATCH_PREWAR);
	assert_true(srvfix_log_count(f, "wrong admin code from alice") >= 1);
	assert_int_equal(srvfix_log_count(f, "1111"), 0);

	srvfix_run(f, 5.5, true);	/* KTX's 5 s after a wrong code */
	qwc_stringcmd(&a->q, "admin 7531");
	srvfix_run(f, 0.3, true);
	qwc_stringcmd(&a->q, "forcestart");
	srvfix_run(f, 0.3, true);
	assert_int_equal(match_state(sv_match_get(f->sv)), MATCH_COUNTDOWN);
	assert_true(srvfix_log_count(f, "logged in with the admin code") >= 1);
	assert_int_equal(srvfix_log_count(f, "7531"), 0);

	qwc_stringcmd(&a->q, "lock");
	srvfix_run(f, 0.3, true);
	assert_true(match_locked(sv_match_get(f->sv)));
	c = srvfix_client(f, NULL, "carol", false, NULL);
	srvfix_connect(c);
	assert_true(srvfix_until(f, c, QWC_REFUSED, 3.0));
	assert_non_null(strstr(c->q.reason, "locked"));

	qwc_stringcmd(&a->q, "unlock");
	srvfix_run(f, 0.3, true);
	assert_false(match_locked(sv_match_get(f->sv)));
	c = srvfix_client(f, NULL, "carol", false, NULL);
	srvfix_connect(c);
	assert_true(srvfix_until(f, c, QWC_ACTIVE, 5.0));
}

static void test_votes_mute(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *a, *b;
	char out[256];

	srvfix_start(f, 8);
	srvfix_command(f, "k_admincode 7531", out, sizeof(out));
	a = srvfix_player(f, "alice");
	b = srvfix_player(f, "bob");
	srvfix_run(f, 0.3, true);
	qwc_stringcmd(&a->q, "admin 7531");
	srvfix_run(f, 0.3, true);
	qwc_stringcmd(&a->q, "mute bob");
	srvfix_run(f, 0.3, true);
	f->print_mark = "hello from bob";
	qwc_stringcmd(&b->q, "say hello from bob");
	srvfix_run(f, 0.5, true);
	assert_int_equal(a->marked_prints, 0);
	qwc_stringcmd(&a->q, "unmute bob");
	srvfix_run(f, 0.3, true);
	qwc_stringcmd(&b->q, "say hello from bob");
	srvfix_run(f, 0.5, true);
	assert_int_equal(a->marked_prints, 1);
	assert_int_equal(match_vote_stats(sv_match_get(f->sv))->muted_says, 1);
	/* and out */
	qwc_stringcmd(&a->q, "kick bob");
	assert_true(srvfix_until(f, b, QWC_DROPPED, 3.0));
	assert_true(srvfix_log_count(f, "kick bob") >= 1);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_votes_votemap_changes_level, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_votes_admin_forcestart_lock, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_votes_mute, srvfix_test_teardown),
};

QWD_TEST_GROUP(server_votes, tests, srvfix_setup, srvfix_teardown)
