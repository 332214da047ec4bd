/*
 * test_actions.c -- the action file (src/common/actions.c): parsing good
 * and malformed files, writing and reading back.
 *
 * Design note: every malformed case names the line the parser must
 * report and a word of the reason, so a message that points at the wrong
 * line fails.  Files are parsed from memory (actions_parse), except
 * the round trip, which goes through a temporary file.  The replay of a
 * file by the load generator is tests/qwbots/test_replay.c.
 */
#include "../harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <qwd/actions.h>

#define HEAD "qwbots-actions 1\nmap lqdm1\n"

static int parse(const char *text, struct actions *a,
		 struct actions_stats *st, char *err, size_t errsize)
{
	return actions_parse("t.act", text, strlen(text), a, st, err, errsize);
}

static void test_good(void **state)
{
	static const char text[] =
		"# recorded by hand\r\n"
		"qwbots-actions 1\r\n"
		"\n"
		"map lqdm1\n"
		"spawn 480 -352.5 88\n"
		"source a test,  with spaces\n"
		"# time msec pitch yaw roll forward side up buttons impulse\n"
		"0.000 33 0 90 0 400 0 0 0 0\n"
		"   0.033\t33 -10.5 91 0 400 -200 0 2 0   \n"
		"0.033 13 0 92 0 0 0 0 1 5\n"
		"# a comment between commands\n"
		"1.5 255 80 -180 360 -32768 32767 0 255 255";
	struct actions a;
	struct actions_stats st;
	char err[256];

	(void)state;
	if (parse(text, &a, &st, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(st.bad_lines, 0);
	assert_int_equal(st.commands, 4);
	assert_int_equal(st.lines, 12);
	assert_string_equal(a.map, "lqdm1");
	assert_true(a.has_spawn);
	assert_true(a.spawn[0] == 480.0f && a.spawn[1] == -352.5f && a.spawn[2] == 88.0f);
	assert_string_equal(a.source, "a test,  with spaces");
	assert_int_equal(a.n, 4);
	assert_true(a.v[1].time == 0.033);
	assert_int_equal(a.v[1].cmd.msec, 33);
	assert_true(a.v[1].cmd.angles[0] == -10.5f && a.v[1].cmd.angles[1] == 91.0f);
	assert_int_equal(a.v[1].cmd.forwardmove, 400);
	assert_int_equal(a.v[1].cmd.sidemove, -200);
	assert_int_equal(a.v[1].cmd.buttons, 2);
	assert_int_equal(a.v[2].cmd.impulse, 5);
	assert_int_equal(a.v[3].cmd.msec, 255);
	assert_int_equal(a.v[3].cmd.forwardmove, -32768);
	assert_int_equal(a.v[3].cmd.sidemove, 32767);
	assert_int_equal(a.v[3].cmd.buttons, 255);
	actions_free(&a);

	/* spawn none, no source, no commands */
	if (parse("qwbots-actions 1\nmap x\nspawn none\n", &a, &st, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_false(a.has_spawn);
	assert_int_equal(a.n, 0);
	actions_free(&a);
}

struct bad_case {
	const char *text;
	size_t line;		/* the line the error must name */
	const char *words;	/* in the message */
};

static void test_malformed(void **state)
{
	static const struct bad_case cases[] = {
		{"", 0, "empty"},
		{"# only a comment\n", 1, "empty"},
		{"map lqdm1\n", 1, "not an action file"},
		{"qwbots-actions 2\nmap x\n", 1, "unsupported version"},
		{"qwbots-actions one\n", 1, "unsupported version"},
		{"qwbots-actions 1\n", 1, "no \"map\" line"},
		{"qwbots-actions 1\n0 1 0 0 0 0 0 0 0 0\n", 2, "before the \"map\""},
		{HEAD "colour red\n", 3, "unknown header"},
		{HEAD "map\n", 3, "one name"},
		/* a map the writer could not write back as it is */
		{"qwbots-actions 1\nmap lqdm1\r \n", 2, "no control"},
		{HEAD "spawn 1 2\n", 3, "three coordinates"},
		{HEAD "spawn 1 two 3\n", 3, "not a number"},
		{HEAD "0 1 0 0 0 0 0 0 0\n", 3, "has 9"},
		{HEAD "0 1 0 0 0 0 0 0 0 0 0\n", 3, "has 11"},
		{HEAD "0 1 0 0 0 0 0 0 0 0\n0.5 1 0 0 0 0 0 0 0 0\n0.4 1 0 0 0 0 0 0 0 0\n",
		 5, "goes back"},
		{HEAD "-1 1 0 0 0 0 0 0 0 0\n", 3, "time"},
		{HEAD "0x 1 0 0 0 0 0 0 0 0\n", 3, "time"},
		{HEAD "0 256 0 0 0 0 0 0 0 0\n", 3, "msec"},
		{HEAD "0 1.5 0 0 0 0 0 0 0 0\n", 3, "msec"},
		{HEAD "0 1 0 400 0 0 0 0 0 0\n", 3, "yaw"},
		{HEAD "0 1 nan 0 0 0 0 0 0 0\n", 3, "pitch"},
		{HEAD "0 1 0 0 0 40000 0 0 0 0\n", 3, "forward"},
		{HEAD "0 1 0 0 0 0 0 -32769 0 0\n", 3, "up"},
		{HEAD "0 1 0 0 0 0 0 0 -1 0\n", 3, "buttons"},
		{HEAD "0 1 0 0 0 0 0 0 0 256\n", 3, "impulse"},
		{HEAD "0 1 0 0 0 0 0 0 0 0\nspawn 1 2 3\n", 4, "after the first command"},
	};
	struct actions a;
	struct actions_stats st;
	char err[256], needle[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_case *c = &cases[i];

		assert_int_equal(parse(c->text, &a, &st, err, sizeof(err)), -1);
		assert_true(st.bad_lines >= 1);
		assert_int_equal(a.n, 0);
		assert_null(a.v);
		snprintf(needle, sizeof(needle), "t.act:%zu: ", c->line);
		if (!strstr(err, needle) || !strstr(err, c->words))
			fail_msg("case %zu: \"%s\" does not name line %zu and \"%s\"", i,
				 err, c->line, c->words);
	}
}

static void test_bytes(void **state)
{
	char text[2048];
	struct actions a;
	struct actions_stats st;
	char err[256];
	size_t n;

	(void)state;
	/* a NUL inside a line */
	n = (size_t)snprintf(text, sizeof(text), HEAD "0 1 0 0 0 0 0 0 0 0\n");
	text[n - 3] = '\0';
	assert_int_equal(actions_parse("t.act", text, n, &a, &st, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "t.act:3: a NUL"));
	/* a line of 1100 bytes */
	n = (size_t)snprintf(text, sizeof(text), HEAD "0 ");
	memset(text + n, '1', 1100);
	n += 1100;
	text[n++] = '\n';
	assert_int_equal(actions_parse("t.act", text, n, &a, &st, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "t.act:3: line longer"));
	/* the length is honoured: the bad tail beyond it is never seen */
	strcpy(text, HEAD "0 1 0 0 0 0 0 0 0 0\ngarbage");
	assert_int_equal(actions_parse("t.act", text, strlen(HEAD "0 1 0 0 0 0 0 0 0 0\n"),
					   &a, &st, err, sizeof(err)), 0);
	assert_int_equal(a.n, 1);
	actions_free(&a);
}

static void test_counted(void **state)
{
	static const char text[] = HEAD
		"0 1 0 0 0 0 0 0 0 0\n"
		"0 1 0 0 0 0 0 0 0\n"		/* line 4 */
		"0.1 1 0 0 0 0 0 0 0 0\n"
		"0.2 999 0 0 0 0 0 0 0 0\n"	/* line 6 */
		"wat\n"				/* line 7 */
		"0.3 1 0 0 0 0 0 0 0 0\n";
	struct actions a;
	struct actions_stats st;
	char err[256];

	(void)state;
	assert_int_equal(parse(text, &a, &st, err, sizeof(err)), -1);
	assert_int_equal(st.bad_lines, 3);
	assert_int_equal(st.first_bad_line, 4);
	assert_non_null(strstr(err, "t.act:4: "));
	assert_int_equal(st.lines, 8);
}

static void test_round_trip(void **state)
{
	char path[] = "/tmp/qwbots-act-XXXXXX", err[256];
	struct actions a = {0}, b;
	struct actions_stats st;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	strcpy(a.map, "lqdm7");
	a.has_spawn = true;
	vec_set(a.spawn, 1.5f, -2.25f, 24);
	strcpy(a.source, "test");
	for (int i = 0; i < 500; i++) {
		struct usercmd c = {0};

		c.msec = (uint8_t)(10 + i % 40);
		vec_set(c.angles, (float)(i % 80) - 70.0f, (float)(i * 7 % 360) - 180.0f, 0);
		c.forwardmove = (int16_t)(i * 97 - 20000);
		c.sidemove = (int16_t)-i;
		c.upmove = (int16_t)(i % 3 ? 0 : 200);
		c.buttons = (uint8_t)(i % 4);
		c.impulse = (uint8_t)(i % 50 == 0 ? 7 : 0);
		assert_true(actions_push(&a, i * 0.0331, &c));
	}
	assert_int_equal(actions_save(path, &a, err, sizeof(err)), 0);
	if (actions_load(path, &b, &st, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	unlink(path);
	assert_int_equal(b.n, a.n);
	assert_string_equal(b.map, "lqdm7");
	assert_true(b.has_spawn && b.spawn[1] == -2.25f);
	assert_string_equal(b.source, "test");
	for (size_t i = 0; i < a.n; i++) {
		const struct usercmd *x = &a.v[i].cmd, *y = &b.v[i].cmd;

		assert_true(b.v[i].time - a.v[i].time < 0.0006 &&
			    a.v[i].time - b.v[i].time < 0.0006);
		assert_int_equal(x->msec, y->msec);
		for (int k = 0; k < 3; k++)
			assert_true(x->angles[k] - y->angles[k] < 0.0001f &&
				    y->angles[k] - x->angles[k] < 0.0001f);
		assert_int_equal(x->forwardmove, y->forwardmove);
		assert_int_equal(x->sidemove, y->sidemove);
		assert_int_equal(x->upmove, y->upmove);
		assert_int_equal(x->buttons, y->buttons);
		assert_int_equal(x->impulse, y->impulse);
	}
	actions_free(&a);
	actions_free(&b);
	/* a file that is not there */
	assert_int_equal(actions_load("/nonexistent/x.act", &b, &st, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/x.act"));
}

static void test_header_words(void **state)
{
	static const float nan3[3] = {0, NAN, 0};
	char buf[256];

	(void)state;
	actions_format_header(buf, sizeof(buf), "e1m1 x", nan3, "a\nb");
	assert_non_null(strstr(buf, "map unknown\n"));
	assert_non_null(strstr(buf, "spawn none\n"));
	assert_non_null(strstr(buf, "source a b\n"));
	actions_format_header(buf, sizeof(buf), "dm\xe9", NULL, "");
	assert_non_null(strstr(buf, "map dm\xe9\n"));
	assert_null(strstr(buf, "source"));
}

static void test_map_name(void **state)
{
	char out[16];

	(void)state;
	actions_map_name("maps/lqdm1.bsp", out, sizeof(out));
	assert_string_equal(out, "lqdm1");
	actions_map_name("/a/b/ewt_glasstest.bsp", out, sizeof(out));
	assert_string_equal(out, "ewt_glasstest");
	actions_map_name("small", out, sizeof(out));
	assert_string_equal(out, "small");
	actions_map_name("maps/.bsp", out, sizeof(out));
	assert_string_equal(out, "unknown");
	actions_map_name("a_very_long_map_name_indeed.bsp", out, sizeof(out));
	assert_int_equal(strlen(out), sizeof(out) - 1);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_good),
	cmocka_unit_test(test_malformed),
	cmocka_unit_test(test_bytes),
	cmocka_unit_test(test_counted),
	cmocka_unit_test(test_round_trip),
	cmocka_unit_test(test_header_words),
	cmocka_unit_test(test_map_name),
};

QWD_TEST_GROUP(common_actions, tests, NULL, NULL)
