/*
 * tests/match/test_vote.c -- the match's votes and admins over a
 * scripted game: votemap (passing, timing out, refused maps), the admin
 * code (refused, counted, locked out by address, granted; typed as
 * impulses), the admin
 * election, forcestart, forcebreak, lock and unlock, force_spec, kick,
 * mute, a leaver's rights gone.
 *
 * Design note: the game runs in memory on a scenario room (tests/game);
 * the match's services are mocked here: the console lines it runs ("map
 * dm2"), the maps on "disk" (dm2, dm3), the operator's map list, the
 * log lines, the kicks, each client's userid and address (one address
 * per slot unless a test shares one).  Time is stepped by hand (the
 * real clock the match is given), so the timeouts and lockouts are
 * asserted by what happens after them, not by how long anything took.
 */
#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/game.h"
#include "qwd/match.h"
#include "../game/scenario.h"

struct vfix {
	struct scen s;
	struct match *m;
	char lines[32][96];
	int num_lines;
	char logs[64][256];
	int num_logs;
	int kicked;		/* the last slot kicked, -1 none */
	const char *list[4];	/* the map list (NULL ended) */
	bool one_address;	/* every slot behind the same address */
	double now;
};

static void v_command(void *ctx, const char *line)
{
	struct vfix *f = ctx;

	if (f->num_lines < 32)
		snprintf(f->lines[f->num_lines++], sizeof(f->lines[0]), "%s", line);
}

static bool v_exists(void *ctx, const char *path)
{
	(void)ctx;
	return !strcmp(path, "maps/dm2.bsp") || !strcmp(path, "maps/dm3.bsp");
}

static void v_log(void *ctx, const char *line)
{
	struct vfix *f = ctx;

	if (f->num_logs < 64)
		snprintf(f->logs[f->num_logs++], sizeof(f->logs[0]), "%s", line);
}

static void v_kick(void *ctx, int slot, const char *why)
{
	struct vfix *f = ctx;

	(void)why;
	f->kicked = slot;
}

static bool v_info(void *ctx, int slot, int *userid, char *addr, size_t size)
{
	struct vfix *f = ctx;

	*userid = 100 + slot;
	snprintf(addr, size, "10.0.0.%d", f->one_address ? 1 : slot + 1);
	return true;
}

static bool v_list(void *ctx, int i, char *buf, size_t size)
{
	struct vfix *f = ctx;

	if (i < 0 || i >= 4 || !f->list[i])
		return false;
	snprintf(buf, size, "%s", f->list[i]);
	return true;
}

static int vsetup(void **state)
{
	struct vfix *f = calloc(1, sizeof(*f));
	struct match_services svc = {0};

	assert_non_null(f);
	f->s.mock.deathmatch = 1;
	scen_room_ok(&f->s, NULL);
	svc.ctx = f;
	svc.command = v_command;
	svc.file_exists = v_exists;
	svc.log = v_log;
	svc.kick = v_kick;
	svc.client_info = v_info;
	svc.map_list = v_list;
	f->kicked = -1;
	f->m = match_create(f->s.g, &svc);
	assert_non_null(f->m);
	match_level_begin(f->m);
	f->now = 1000;
	*state = f;
	return 0;
}

static int vteardown(void **state)
{
	struct vfix *f = *state;

	match_destroy(f->m);
	scen_free(&f->s);
	free(f);
	return 0;
}

/* the prints in plain letters (KTX's red and gold read as ASCII) */
static bool said(struct vfix *f, const char *text)
{
	static char buf[MOCK_PRINTS];	/* test-only scratch */

	match_plain_text(f->s.mock.prints, buf, sizeof(buf));
	return strstr(buf, text) != NULL;
}

static bool logged(struct vfix *f, const char *text)
{
	for (int i = 0; i < f->num_logs; i++)
		if (strstr(f->logs[i], text))
			return true;
	return false;
}

static bool ran(struct vfix *f, const char *line)
{
	for (int i = 0; i < f->num_lines; i++)
		if (!strcmp(f->lines[i], line))
			return true;
	return false;
}

/* seconds of game and match frames */
static void advance(struct vfix *f, double seconds)
{
	int n = (int)(seconds / SCEN_TICK + 0.5);

	for (int i = 0; i < n; i++) {
		scen_tick(&f->s);
		f->now += SCEN_TICK;
		match_frame(f->m, f->now);
	}
}

static void say(struct vfix *f, int slot, const char *a0, const char *a1)
{
	const char *argv[2] = {a0, a1};

	assert_true(match_command(f->m, slot, a1 ? 2 : 1, argv));
	advance(f, 1.1);	/* past the one-a-second gap */
}

static void players(struct vfix *f, int n)
{
	static const char *const names[] = {"alice", "bob", "carol", "dave"};

	for (int i = 0; i < n; i++)
		scen_join(&f->s, i, names[i]);
	advance(f, 0.3);
}

static void setv(struct vfix *f, const char *name, const char *value)
{
	char err[160];

	assert_int_equal(match_set(f->m, name, value, err, sizeof(err)), 0);
}

static void login(struct vfix *f, int slot)
{
	setv(f, "k_admincode", "s3cret");
	say(f, slot, "admin", "s3cret");
	assert_true(said(f, "gains admins status"));
}

/* ---- the tests -------------------------------------------------------- */

static void test_votemap_majority_changes_map(void **state)
{
	struct vfix *f = *state;

	players(f, 3);	/* 51% of 3: 2 votes */
	say(f, 0, "votemap", "dm2");
	assert_true(said(f, "alice suggests map dm2"));
	assert_false(ran(f, "map dm2"));
	say(f, 1, "votemap", "DM2");
	assert_true(said(f, "bob agrees on map dm2"));
	assert_true(said(f, "Majority votes for mapchange."));
	assert_true(ran(f, "map dm2"));
	assert_true(logged(f, "vote: map dm2 passed (2 of 3 players)"));
	assert_int_equal(match_vote_stats(f->m)->votes_passed, 1);
}

static void test_votemap_percentage_and_timeout(void **state)
{
	struct vfix *f = *state;

	players(f, 3);
	setv(f, "k_vp_map", "100");	/* all three */
	say(f, 0, "votemap", "dm2");
	say(f, 1, "votemap", "dm2");
	assert_false(ran(f, "map dm2"));
	advance(f, 60);
	assert_true(said(f, "The voting has timed out."));
	assert_int_equal(match_vote_stats(f->m)->votes_timed_out, 1);
	say(f, 2, "votemap", "dm2");	/* the two earlier votes are gone */
	assert_true(said(f, "carol suggests map dm2"));
	assert_false(ran(f, "map dm2"));
}

static void test_votemap_refuses_missing_and_unlisted(void **state)
{
	struct vfix *f = *state;

	players(f, 2);
	say(f, 0, "votemap", "nosuch");
	assert_true(said(f, "Map 'nosuch' not available on this server"));
	say(f, 0, "votemap", "../../etc/passwd");
	assert_true(said(f, "is not a map name"));
	f->list[0] = "dm3";	/* the operator's list: dm2 is on disk, not on it */
	say(f, 0, "votemap", "dm2");
	assert_true(said(f, "Map 'dm2' not available on this server"));
	assert_int_equal(match_vote_stats(f->m)->maps_refused, 3);
	say(f, 0, "maps", NULL);
	assert_true(said(f, "dm3"));
	assert_true(said(f, "End of list (1/1 maps)"));
	assert_int_equal(f->num_lines, 0);
}

static void test_vote_spam_bounded(void **state)
{
	struct vfix *f = *state;
	const char *a[2] = {"votemap", "dm2"};
	const char *b[2] = {"votemap", "dm3"};

	players(f, 3);
	for (int i = 0; i < 20; i++) {
		assert_true(match_command(f->m, 0, 2, a));
		assert_true(match_command(f->m, 0, 2, b));
	}
	assert_true(said(f, "Wait 1 second!"));
	assert_int_equal(match_vote_stats(f->m)->votes_cast, 1);
	assert_int_equal(match_vote_stats(f->m)->votes_refused, 39);
}

static void test_admin_wrong_code_locked_out(void **state)
{
	struct vfix *f = *state;

	players(f, 2);
	f->one_address = true;
	setv(f, "k_admincode", "s3cret");
	say(f, 1, "admin", "guess1");
	assert_true(said(f, "Access denied..."));
	say(f, 1, "admin", "guess2");	/* 1.1 s later: KTX's 5 s wait */
	assert_true(said(f, "Wait 4 seconds!"));
	advance(f, 5);
	say(f, 1, "admin", "guess2");
	advance(f, 5);
	say(f, 1, "admin", "guess3");
	assert_true(said(f, "3 wrong codes: no logins from you for 60 seconds"));
	assert_int_equal(match_vote_stats(f->m)->admin_denied, 3);
	/* reconnecting, or another slot behind the address, does not help */
	match_client_gone(f->m, 1);
	advance(f, 6);
	say(f, 0, "admin", "s3cret");
	assert_true(said(f, "too many wrong codes from your address"));
	assert_false(said(f, "gains admins status"));
	assert_true(match_vote_stats(f->m)->admin_lockouts >= 1);
	for (int i = 0; i < f->num_logs; i++)
		assert_null(strstr(f->logs[i], "s3cret"));
	assert_true(logged(f, "admin: wrong admin code from bob (userid 101, 10.0.0.1) (1 of 3)"));
	advance(f, 60);
	say(f, 0, "admin", "s3cret");
	assert_true(said(f, "alice gains admins status!"));
	assert_true(logged(f, "admin: alice (userid 100, 10.0.0.1) logged in"));
	assert_int_equal(match_vote_stats(f->m)->admin_granted, 1);
}

/* one number key: impulse d in one move */
static void type_digit(struct vfix *f, int slot, int d)
{
	f->s.held[slot].impulse = (uint8_t)d;
	advance(f, SCEN_TICK);
	f->s.held[slot].impulse = 0;
	advance(f, 0.1);
}

/* KTX's "admin" alone, then six impulses 1-9: the digits change no
 * weapon, "N more to go", the sixth logs in; a wrong one waits 5 s as
 * the argument's; "admin" again cancels; no election meanwhile */
static void test_admin_code_by_impulses(void **state)
{
	struct vfix *f = *state;

	players(f, 2);
	scen_give(&f->s, 0, IT_NAILGUN, 50);
	setv(f, "k_admincode", "123456");
	say(f, 0, "admin", NULL);
	assert_true(said(f, "Use numbers or impulses to enter code"));
	say(f, 0, "elect", NULL);
	assert_true(said(f, "Finish entering the code first"));
	type_digit(f, 0, 1);	/* 1 would be the axe */
	assert_int_equal(scen_player(&f->s, 0)->weapon, IT_NAILGUN);
	assert_true(said(f, "5 more to go"));
	for (int d = 2; d <= 5; d++)
		type_digit(f, 0, d);
	assert_true(said(f, "1 more to go"));
	assert_false(said(f, "gains admins status"));
	type_digit(f, 0, 6);
	assert_true(said(f, "alice gains admins status!"));
	assert_int_equal(scen_player(&f->s, 0)->weapon, IT_NAILGUN);
	/* done: the number keys are weapons again */
	type_digit(f, 0, 1);
	assert_int_equal(scen_player(&f->s, 0)->weapon, IT_AXE);
	/* bob: wrong, then the 5 s wait */
	say(f, 1, "admin", NULL);
	for (int i = 0; i < 6; i++)
		type_digit(f, 1, 9);
	assert_true(said(f, "Access denied..."));
	assert_int_equal(match_vote_stats(f->m)->admin_denied, 1);
	say(f, 1, "admin", NULL);
	for (int i = 0; i < 6; i++)
		type_digit(f, 1, 1 + i);
	assert_true(said(f, "Wait 4 seconds!") || said(f, "Wait 3 seconds!"));
	assert_false(said(f, "bob gains admins status"));
	/* "admin" again while typing cancels */
	say(f, 1, "admin", NULL);
	type_digit(f, 1, 1);
	say(f, 1, "admin", NULL);
	assert_true(said(f, "admin code canceled"));
	type_digit(f, 1, 2);	/* a weapon again: the shotgun */
	assert_int_equal(scen_player(&f->s, 1)->weapon, IT_SHOTGUN);
	for (int i = 0; i < f->num_logs; i++)
		assert_null(strstr(f->logs[i], "123456"));
	assert_true(logged(f, "admin: alice (userid 100, 10.0.0.1) logged in"));
}

static void test_no_code_no_login(void **state)
{
	struct vfix *f = *state;

	players(f, 1);
	say(f, 0, "admin", "");	/* k_admincode empty: nothing matches */
	assert_true(said(f, "Access denied..."));
	setv(f, "k_admincode", "none");
	advance(f, 5);
	say(f, 0, "admin", "none");
	assert_true(said(f, "Access denied..."));
	assert_false(said(f, "gains admins status"));
}

static void test_admin_commands_need_admin(void **state)
{
	struct vfix *f = *state;

	players(f, 2);
	say(f, 0, "commands", NULL);
	assert_false(said(f, "force match to start"));	/* admins' only */
	say(f, 0, "forcestart", NULL);
	assert_true(said(f, "forcestart: you must be an admin"));
	say(f, 0, "kick", "bob");
	assert_int_equal(f->kicked, -1);
	assert_int_equal(match_state(f->m), MATCH_PREWAR);
	assert_int_equal(match_vote_stats(f->m)->admin_refused, 2);
}

static void test_forcestart_and_forcebreak(void **state)
{
	struct vfix *f = *state;

	players(f, 2);
	login(f, 0);
	say(f, 0, "commands", NULL);
	assert_true(said(f, "force match to start"));
	say(f, 1, "ready", NULL);	/* alice is not ready */
	say(f, 0, "forcestart", NULL);
	assert_true(said(f, "alice forces matchstart!"));
	assert_int_equal(match_state(f->m), MATCH_COUNTDOWN);
	advance(f, 11);
	assert_int_equal(match_state(f->m), MATCH_PLAYING);
	say(f, 0, "forcebreak", NULL);
	assert_true(said(f, "alice forces a break!"));
	assert_int_equal(match_state(f->m), MATCH_PREWAR);
	assert_true(logged(f, "admin: admin alice (userid 100, 10.0.0.1): forcestart"));
	assert_true(logged(f, "forcebreak"));
	assert_int_equal(match_vote_stats(f->m)->admin_actions, 2);
}

static void test_elected_admin(void **state)
{
	struct vfix *f = *state;

	players(f, 3);
	say(f, 2, "elect", NULL);
	assert_true(said(f, "carol has requested admin rights!"));
	say(f, 0, "yes", NULL);	/* carol's own and alice's: 2 of 3 */
	assert_true(said(f, "carol gains admins status!"));
	assert_true(logged(f, "carol elected admin (2 of 3 players)"));
	say(f, 2, "lock", NULL);
	assert_true(match_locked(f->m));
	/* an election nobody answers runs out after 60 s */
	say(f, 1, "elect", NULL);
	advance(f, 61);
	assert_true(said(f, "Election aborted"));
	say(f, 1, "forcestart", NULL);
	assert_true(said(f, "forcestart: you must be an admin"));
}

static void test_elect_refused_when_off(void **state)
{
	struct vfix *f = *state;

	players(f, 2);
	setv(f, "k_allowvoteadmin", "0");
	say(f, 0, "elect", NULL);
	assert_true(said(f, "Admin election is not allowed on this server"));
	say(f, 1, "yes", NULL);
	assert_true(said(f, "No election to vote in"));
}

static void test_lock_unlock(void **state)
{
	struct vfix *f = *state;

	players(f, 2);
	login(f, 0);
	assert_false(match_locked(f->m));
	say(f, 0, "lock", NULL);
	assert_true(match_locked(f->m));
	assert_true(said(f, "alice locked server"));
	say(f, 0, "unlock", NULL);
	assert_false(match_locked(f->m));
	assert_true(said(f, "alice unlocked server"));
	assert_true(logged(f, ": lock"));
	assert_true(logged(f, ": unlock"));
	/* the last admin leaves a locked server: it unlocks */
	say(f, 0, "lock", NULL);
	assert_true(match_locked(f->m));
	game_client_disconnect(f->s.g, 0);
	match_client_gone(f->m, 0);
	assert_false(match_locked(f->m));
	assert_true(said(f, "Server unlocked: no admin left"));
}

static void test_kick_mute_force_spec(void **state)
{
	struct vfix *f = *state;
	int stuffs;

	players(f, 4);
	login(f, 0);
	say(f, 0, "mute", "bob");
	assert_true(match_muted(f->m, 1));
	assert_false(match_muted(f->m, 2));
	say(f, 0, "unmute", "101");	/* by userid */
	assert_false(match_muted(f->m, 1));
	stuffs = f->s.mock.stuff_calls;
	say(f, 0, "force_spec", "carol");
	assert_true(f->s.mock.stuff_calls > stuffs);
	assert_true(logged(f, "force_spec carol"));
	say(f, 0, "kick", "dave");
	assert_int_equal(f->kicked, 3);
	assert_true(said(f, "dave was kicked by alice"));
	say(f, 0, "kick", "nobody");
	assert_true(said(f, "kick: client nobody not found"));
}

static void test_elected_cannot_kick_real_admin(void **state)
{
	struct vfix *f = *state;

	players(f, 3);
	login(f, 0);
	say(f, 1, "elect", NULL);
	say(f, 2, "yes", NULL);
	assert_true(said(f, "bob gains admins status!"));
	say(f, 1, "kick", "alice");
	assert_true(said(f, "You can't kick real admin"));
	assert_int_equal(f->kicked, -1);
}

static void test_leaver_loses_rights(void **state)
{
	struct vfix *f = *state;

	players(f, 2);
	login(f, 0);
	say(f, 0, "mute", "bob");
	game_client_disconnect(f->s.g, 0);
	match_client_gone(f->m, 0);	/* as the server's drop says */
	advance(f, 0.2);
	scen_join(&f->s, 0, "eve");	/* the next one in the slot */
	advance(f, 0.3);
	say(f, 0, "lock", NULL);
	assert_true(said(f, "lock: you must be an admin"));
	assert_false(match_locked(f->m));
	game_client_disconnect(f->s.g, 1);
	match_client_gone(f->m, 1);
	advance(f, 0.2);
	assert_false(match_muted(f->m, 1));
}

static void test_break_vote_uses_k_vp_break(void **state)
{
	struct vfix *f = *state;

	players(f, 3);
	setv(f, "k_vp_break", "100");
	say(f, 0, "ready", NULL);
	say(f, 1, "ready", NULL);
	say(f, 2, "ready", NULL);
	advance(f, 11);
	assert_int_equal(match_state(f->m), MATCH_PLAYING);
	say(f, 0, "break", NULL);
	say(f, 1, "break", NULL);
	assert_int_equal(match_state(f->m), MATCH_PLAYING);	/* 2 of 3 < 100% */
	say(f, 2, "break", NULL);
	assert_int_equal(match_state(f->m), MATCH_PREWAR);
}

static const struct CMUnitTest vote_tests[] = {
	cmocka_unit_test_setup_teardown(test_votemap_majority_changes_map, vsetup, vteardown),
	cmocka_unit_test_setup_teardown(test_votemap_percentage_and_timeout, vsetup, vteardown),
	cmocka_unit_test_setup_teardown(test_votemap_refuses_missing_and_unlisted, vsetup, vteardown),
	cmocka_unit_test_setup_teardown(test_vote_spam_bounded, vsetup, vteardown),
	cmocka_unit_test_setup_teardown(test_admin_wrong_code_locked_out, vsetup, vteardown),
	cmocka_unit_test_setup_teardown(test_no_code_no_login, vsetup, vteardown),
	cmocka_unit_test_setup_teardown(test_admin_code_by_impulses, vsetup, vteardown),
	cmocka_unit_test_setup_teardown(test_admin_commands_need_admin, vsetup, vteardown),
	cmocka_unit_test_setup_teardown(test_forcestart_and_forcebreak, vsetup, vteardown),
	cmocka_unit_test_setup_teardown(test_elected_admin, vsetup, vteardown),
	cmocka_unit_test_setup_teardown(test_elect_refused_when_off, vsetup, vteardown),
	cmocka_unit_test_setup_teardown(test_lock_unlock, vsetup, vteardown),
	cmocka_unit_test_setup_teardown(test_kick_mute_force_spec, vsetup, vteardown),
	cmocka_unit_test_setup_teardown(test_elected_cannot_kick_real_admin, vsetup, vteardown),
	cmocka_unit_test_setup_teardown(test_leaver_loses_rights, vsetup, vteardown),
	cmocka_unit_test_setup_teardown(test_break_vote_uses_k_vp_break, vsetup, vteardown),
};

QWD_TEST_GROUP(vote, vote_tests, NULL, NULL)
