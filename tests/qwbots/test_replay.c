/*
 * test_replay.c -- qwbots' replay of an action file by time, the spawn
 * matching before it, and the command line.
 *
 * Design note: a replay is checked request by request on a file whose
 * lines are known (which line a request takes, the buttons and impulses
 * of the lines passed over), spawn matching on made-up origins and
 * health, the command line on every option's accepted and refused forms.
 */
#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/qwbots/qwbots.h"

#define HEAD "qwbots-actions 1\nmap lqdm1\n"

static int parse(const char *text, struct actions *a,
		 struct actions_stats *st, char *err, size_t errsize)
{
	return actions_parse("t.act", text, strlen(text), a, st, err, errsize);
}

static void test_replay(void **state)
{
	static const char text[] = HEAD
		"0.0 10 0 10 0 100 0 0 0 0\n"
		"0.1 10 0 20 0 200 0 0 2 0\n"	/* jump */
		"0.2 10 0 30 0 300 0 0 1 4\n"	/* fire, impulse 4 */
		"0.3 10 0 40 0 400 0 0 0 6\n"
		"0.4 10 0 50 0 500 0 0 1 0\n";
	struct actions a;
	struct qwb_replay r = {0};
	struct usercmd c;
	char err[256];

	(void)state;
	assert_int_equal(parse(text, &a, NULL, err, sizeof(err)), 0);
	qwb_replay_begin(&r, &a, 100.0);
	assert_int_equal(r.loops, 1);
	/* t = 0.05: line 0 */
	assert_true(qwb_replay_step(&r, 100.05, &c));
	assert_int_equal(c.forwardmove, 100);
	assert_true(c.angles[1] == 10.0f);
	/* t = 0.08: nothing new, line 0 held */
	assert_true(qwb_replay_step(&r, 100.08, &c));
	assert_int_equal(c.forwardmove, 100);
	/* t = 0.25: lines 1 and 2 passed: the newest's moves, both buttons,
	 * the impulse */
	assert_true(qwb_replay_step(&r, 100.25, &c));
	assert_int_equal(c.forwardmove, 300);
	assert_true(c.angles[1] == 30.0f);
	assert_int_equal(c.buttons, 3);
	assert_int_equal(c.impulse, 4);
	/* held again: the button stays, the impulse does not repeat */
	assert_true(qwb_replay_step(&r, 100.27, &c));
	assert_int_equal(c.buttons, 1);
	assert_int_equal(c.impulse, 0);
	/* t = 1.0: lines 3 and 4, the first impulse kept */
	assert_true(qwb_replay_step(&r, 101.0, &c));
	assert_int_equal(c.forwardmove, 500);
	assert_int_equal(c.impulse, 6);
	/* played out */
	assert_false(qwb_replay_step(&r, 101.1, &c));
	assert_int_equal(c.forwardmove, 0);
	/* again from the start */
	qwb_replay_begin(&r, &a, 200.0);
	assert_int_equal(r.loops, 2);
	assert_true(qwb_replay_step(&r, 200.0, &c));
	assert_int_equal(c.forwardmove, 100);
	actions_free(&a);
}

static void test_replay_before_first(void **state)
{
	struct actions a;
	struct qwb_replay r = {0};
	struct usercmd c;
	char err[256];

	(void)state;
	assert_int_equal(parse(HEAD "0.5 10 5 77 0 100 0 0 2 3\n", &a, NULL, err, sizeof(err)), 0);
	qwb_replay_begin(&r, &a, 0);
	/* before the first line: its facing, no move, no buttons */
	assert_true(qwb_replay_step(&r, 0.1, &c));
	assert_true(c.angles[1] == 77.0f);
	assert_int_equal(c.forwardmove, 0);
	assert_int_equal(c.buttons, 0);
	assert_int_equal(c.impulse, 0);
	assert_true(qwb_replay_step(&r, 0.6, &c));
	assert_int_equal(c.forwardmove, 100);
	assert_int_equal(c.impulse, 3);
	actions_free(&a);
}

static void test_spawnmatch(void **state)
{
	const float target[3] = {100, 200, 24};
	const float there[3] = {108, 190, 40};
	const float elsewhere[3] = {-500, 0, 24};
	const float elsewhere2[3] = {700, 0, 24};
	struct qwb_spawnmatch s;
	struct usercmd c;

	(void)state;
	/* already there: play at once */
	qwb_spawnmatch_begin(&s, 4);
	assert_int_equal(qwb_spawnmatch_step(&s, target, there, 100, &c), QWB_SPAWN_PLAY);
	assert_true(s.matched);
	assert_int_equal(s.tries, 0);

	/* elsewhere: kill, wait (pressing attack every other frame) until
	 * the origin changes with the player alive, then look again */
	qwb_spawnmatch_begin(&s, 4);
	assert_int_equal(qwb_spawnmatch_step(&s, target, elsewhere, 100, &c), QWB_SPAWN_KILL);
	assert_int_equal(s.tries, 1);
	assert_int_equal(qwb_spawnmatch_step(&s, target, elsewhere, 0, &c), QWB_SPAWN_WAIT);
	assert_int_equal(c.buttons, 0);
	assert_int_equal(qwb_spawnmatch_step(&s, target, elsewhere, 0, &c), QWB_SPAWN_WAIT);
	assert_int_equal(c.buttons, BUTTON_ATTACK);
	/* dead and moved: still waiting */
	assert_int_equal(qwb_spawnmatch_step(&s, target, elsewhere2, 0, &c), QWB_SPAWN_WAIT);
	assert_true(s.waiting);
	/* alive and moved: the next frame looks */
	assert_int_equal(qwb_spawnmatch_step(&s, target, elsewhere2, 100, &c), QWB_SPAWN_WAIT);
	assert_false(s.waiting);
	assert_int_equal(qwb_spawnmatch_step(&s, target, elsewhere2, 100, &c), QWB_SPAWN_KILL);
	assert_int_equal(s.tries, 2);
	assert_int_equal(qwb_spawnmatch_step(&s, target, elsewhere2, 100, &c), QWB_SPAWN_WAIT);
	assert_int_equal(qwb_spawnmatch_step(&s, target, there, 100, &c), QWB_SPAWN_WAIT);
	assert_int_equal(qwb_spawnmatch_step(&s, target, there, 100, &c), QWB_SPAWN_PLAY);
	assert_true(s.matched);
	assert_int_equal(s.tries, 2);

	/* never there: give up after max_tries, each wait bounded */
	qwb_spawnmatch_begin(&s, 2);
	for (int f = 0; f < 4 * QWB_SPAWN_WAIT_MAX; f++)
		if (qwb_spawnmatch_step(&s, target, elsewhere, 100, &c) == QWB_SPAWN_PLAY)
			break;
	assert_true(s.done);
	assert_false(s.matched);
	assert_int_equal(s.tries, 2);
}

static int args(struct qwb_config *c, char *err, size_t errsize, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;

	argv[argc++] = (char *)"qwbots";
	va_start(ap, errsize);
	for (char *s; (s = va_arg(ap, char *)) != NULL;)
		argv[argc++] = s;
	va_end(ap);
	qwb_config_defaults(c);
	return qwb_args_parse(c, argc, argv, err, errsize);
}

static void test_args(void **state)
{
	struct qwb_config c;
	char err[256];

	(void)state;
	assert_int_equal(args(&c, err, sizeof(err), "--server", "127.0.0.1:27501",
			      "--bots", "1024", "--rate", "77", "--duration=20",
			      "--map", "x.bsp", "--json", "o.json", "--seed", "9",
			      "--walker", "4,2,3", "--source", "127.2.0.1/100",
			      "--qwdx", "off", NULL),
			 0);
	assert_int_equal(c.bots, 1024);
	assert_true(c.rate == 77.0 && c.duration == 20.0);
	assert_string_equal(c.server_text, "127.0.0.1:27501");
	assert_string_equal(c.json_path, "o.json");
	assert_int_equal(c.seed, 9);
	assert_int_equal(c.walker.idle, 4);
	assert_int_equal(c.walker.after, 3);
	assert_int_equal(c.source_ip, (127u << 24) | (2u << 16) | 1u);
	assert_int_equal(c.source_count, 100);
	assert_int_equal(c.qwdx, QWB_QWDX_OFF);
	/* defaults: the studies' workload */
	assert_int_equal(args(&c, err, sizeof(err), "--checksum", "-12345", NULL), 0);
	assert_true(c.rate == 30.0);
	assert_int_equal(c.behaviour, QWB_WALKER);
	assert_int_equal(c.walker.idle, 10);
	assert_int_equal(c.checksum2, (uint32_t)-12345);
	/* actions imply replay */
	assert_int_equal(args(&c, err, sizeof(err), "--map", "m", "--actions", "a.act",
			      "--actions", "b.act", NULL), 0);
	assert_int_equal(c.behaviour, QWB_REPLAY);
	assert_int_equal(c.nactions, 2);
	/* errors name the option */
	assert_int_equal(args(&c, err, sizeof(err), "--bots", "0", "--map", "m", NULL), -1);
	assert_non_null(strstr(err, "--bots"));
	assert_int_equal(args(&c, err, sizeof(err), "--rate", "fast", NULL), -1);
	assert_non_null(strstr(err, "--rate"));
	assert_int_equal(args(&c, err, sizeof(err), "--frobnicate", NULL), -1);
	assert_non_null(strstr(err, "--frobnicate"));
	assert_int_equal(args(&c, err, sizeof(err), "--bots", NULL), -1);
	assert_non_null(strstr(err, "needs a value"));
	assert_int_equal(args(&c, err, sizeof(err), "--bots", "4", NULL), -1);
	assert_non_null(strstr(err, "--map"));
	assert_int_equal(args(&c, err, sizeof(err), "--source", "1.2.3/4", "--map", "m", NULL), -1);
	assert_int_equal(args(&c, err, sizeof(err), "--walker", "1,2", "--map", "m", NULL), -1);
	assert_int_equal(args(&c, err, sizeof(err), "--behaviour", "replay", "--map", "m", NULL), -1);
	assert_non_null(strstr(err, "--actions"));
	assert_int_equal(args(&c, err, sizeof(err), "--from-pcap", "x.pcap", NULL), -1);
	assert_non_null(strstr(err, "--out"));
	assert_int_equal(args(&c, err, sizeof(err), "--help", NULL), 0);
	assert_int_equal(c.mode, QWB_MODE_HELP);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_replay),
	cmocka_unit_test(test_replay_before_first),
	cmocka_unit_test(test_spawnmatch),
	cmocka_unit_test(test_args),
};

QWD_TEST_GROUP(qwbots_replay, tests, NULL, NULL)
