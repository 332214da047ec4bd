/*
 * test_match.c -- the match layer on an in-process server (its feature,
 * src/server/match.c) with two of the fixture's protocol-28 players:
 * ready, the countdown, the start, the serverinfo "status" key as the
 * clients see it, the end at the timelimit; and a refused setting.
 *
 * Design note
 *   The players type their commands as a client does (clc_stringcmd);
 *   the assertions read what the clients were sent (their serverinfo, the
 *   prints holding a mark) and the game's state.  The minute of the
 *   timelimit is not waited out: the server's clock is moved back before
 *   each frame, so the frame sees 0.1 s more pass than really did (as
 *   test_pause.c does), which is all a frame knows of time.
 */
#include "../harness.h"
#include "srvfix.h"

#include <qwd/client.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void console(struct srvfix *f, const char *line, char *out, size_t max)
{
	srvfix_command(f, line, out, max);
}

/* frames of 0.1 s each, the clients answering, for `seconds` */
static void frames(struct srvfix *f, double seconds)
{
	for (double done = 0; done < seconds; done += 0.1) {
		f->sv->realtime -= 0.1;
		f->sv->time_clock -= 0.1;
		srvfix_step(f, true);
	}
}

/* KTX's red text: the high bit set */
static const char *red(char *buf, size_t size, const char *s)
{
	size_t i = 0;

	for (; s[i] && i + 1 < size; i++)
		buf[i] = (char)((unsigned char)s[i] | 0x80);
	buf[i] = '\0';
	return buf;
}

static bool status_is(const char *info, const char *want)
{
	char v[64];

	return info_value_for_key(info, "status", v, sizeof(v)) && !strcmp(v, want);
}

/* the clients' serverinfo says want, within 2 s of stepping */
static bool clients_see(struct srvfix *f, struct srv_client *a,
			struct srv_client *b, const char *want)
{
	for (int i = 0; i < 40; i++) {
		if (status_is(a->q.serverinfo, want) && status_is(b->q.serverinfo, want))
			return true;
		srvfix_run(f, 0.05, true);
	}
	return false;
}

static void test_match_ready_countdown_timelimit(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *a, *b;
	char out[512], mark[64];

	srvfix_start(f, 8);
	console(f, "k_count 3", out, sizeof(out));
	console(f, "k_overtime 0", out, sizeof(out));
	console(f, "timelimit 1", out, sizeof(out));
	a = srvfix_player(f, "alice");
	b = srvfix_player(f, "bob");
	srvfix_run(f, 0.3, true);
	assert_true(status_is(f->sv->serverinfo, "Standby"));
	assert_true(clients_see(f, a, b, "Standby"));
	/* prewar: the clock does not run from the map's load */
	frames(f, 62);
	assert_false(f->sv->game->intermission);

	f->print_mark = red(mark, sizeof(mark), "is ready");
	qwc_stringcmd(&a->q, "ready");
	srvfix_run(f, 0.3, true);
	assert_true(a->marked_prints >= 1);
	assert_true(status_is(f->sv->serverinfo, "Standby"));
	qwc_stringcmd(&b->q, "ready");
	assert_true(clients_see(f, a, b, "Countdown"));

	f->print_mark = red(mark, sizeof(mark), "The match has begun!");
	a->marked_prints = b->marked_prints = 0;
	frames(f, 3.5);
	assert_true(clients_see(f, a, b, "1 min left"));
	srvfix_run(f, 0.2, true);
	assert_int_equal(a->marked_prints, 1);

	f->print_mark = "The match is over";
	a->marked_prints = b->marked_prints = 0;
	frames(f, 30);
	assert_int_equal(a->marked_prints, 0);
	assert_false(f->sv->game->intermission);
	frames(f, 31);
	assert_true(f->sv->game->intermission);
	assert_true(clients_see(f, a, b, "Standby"));
	assert_int_equal(a->marked_prints, 1);
	assert_int_equal(b->marked_prints, 1);
}

/* a value the match refuses is put back, the reason logged */
static void test_match_setting_refused(void **state)
{
	struct srvfix *f = *state;
	char out[512];

	srvfix_start(f, 8);
	console(f, "k_overtime 9", out, sizeof(out));
	srvfix_run(f, 0.2, false);
	console(f, "k_overtime", out, sizeof(out));
	assert_non_null(strstr(out, "\"1\""));
	assert_true(srvfix_log_count(f, "k_overtime: \"9\" is not a whole number from 0 to 3") >= 1);
	/* a KTX setting qwd does not have is named, not taken */
	console(f, "k_midair 1", out, sizeof(out));
	assert_non_null(strstr(out, "k_midair"));
	/* k_spw is the match's now: taken, and a value out of range refused */
	console(f, "k_spw 2", out, sizeof(out));
	srvfix_run(f, 0.2, false);
	console(f, "k_spw", out, sizeof(out));
	assert_non_null(strstr(out, "\"2\""));
	console(f, "k_spw 5", out, sizeof(out));
	srvfix_run(f, 0.2, false);
	console(f, "k_spw", out, sizeof(out));
	assert_non_null(strstr(out, "\"2\""));
}


/* a whole file into buf (terminated); its length, or -1 */
static long slurp(const char *path, char *buf, size_t size)
{
	FILE *fp = fopen(path, "r");
	size_t n;

	if (!fp)
		return -1;
	n = fread(buf, 1, size - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return (long)n;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* demo_tmp_record 1: the countdown starts the match's demo, named as KTX
 * names it; the end keeps it and writes KTX's JSON beside it; a countdown
 * broken off removes its demo */
static void test_match_demo_and_stats(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *a, *b;
	char out[512], dir[256], path[512], name[128], mark[64];
	static char json[65536];
	const char *rec;

	srvfix_start(f, 8);
	console(f, "k_count 3", out, sizeof(out));
	console(f, "k_overtime 0", out, sizeof(out));
	console(f, "timelimit 1", out, sizeof(out));
	console(f, "demo_tmp_record 1", out, sizeof(out));
	console(f, "k_mode 1", out, sizeof(out));	/* a duel */
	a = srvfix_player(f, "alice");
	b = srvfix_player(f, "bob");
	/* her shirt is the server's to tell the statistics (the game keeps
	 * only the pants) */
	qwc_stringcmd(&a->q, "setinfo topcolor 12");
	srvfix_run(f, 0.3, true);
	snprintf(dir, sizeof(dir), "%s/qw/demos", f->dir);

	/* a countdown broken off: its demo goes */
	qwc_stringcmd(&a->q, "ready");
	qwc_stringcmd(&b->q, "ready");
	assert_true(clients_see(f, a, b, "Countdown"));
	rec = sv_mvd_file(f->sv, NULL);
	assert_non_null(rec);
	snprintf(name, sizeof(name), "duel_alice_vs_bob[%s].mvd", f->sv->mapname);
	assert_string_equal(rec, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_true(exists(path));
	qwc_stringcmd(&a->q, "break");
	assert_true(clients_see(f, a, b, "Standby"));
	assert_null(sv_mvd_file(f->sv, NULL));
	assert_false(exists(path));

	/* played to the end: the demo kept, the statistics beside it */
	qwc_stringcmd(&a->q, "ready");
	assert_true(clients_see(f, a, b, "Countdown"));
	assert_non_null(sv_mvd_file(f->sv, NULL));
	qwc_stringcmd(&b->q, "ready");
	frames(f, 3.5);
	assert_true(clients_see(f, a, b, "1 min left"));
	/* mid-match the commands answer; "stats" prints the blocks */
	f->print_mark = red(mark, sizeof(mark), "Player statistics");
	a->marked_prints = 0;
	qwc_stringcmd(&a->q, "stats");
	srvfix_run(f, 0.3, true);
	assert_true(a->marked_prints >= 1);
	frames(f, 61);
	assert_true(f->sv->game->intermission);
	assert_null(sv_mvd_file(f->sv, NULL));
	assert_true(exists(path));
	snprintf(path, sizeof(path), "%s/duel_alice_vs_bob[%s].json", dir,
		 f->sv->mapname);
	assert_true(slurp(path, json, sizeof(json)) > 0);
	assert_non_null(strstr(json, "\"alice\""));
	assert_non_null(strstr(json, "\"bob\""));
	assert_non_null(strstr(json, "\"top-color\": 12"));
	assert_non_null(strstr(json, "\"players\""));
	assert_non_null(strstr(json, "\"mode\": \"duel\""));
	assert_non_null(strstr(json, "\"demo\": \"duel_alice_vs_bob["));
	/* and the end's blocks reached the players; laststats repeats them */
	a->marked_prints = 0;
	qwc_stringcmd(&a->q, "laststats");
	srvfix_run(f, 0.3, true);
	assert_true(a->marked_prints >= 1);
}

/* a player entering is shown the MOTD (the motd command says it is
 * already showing); a mode command's words become the serverinfo
 * "matchtag" every client sees */
static void test_match_motd_and_matchtag(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *a, *b;
	char v[64];

	srvfix_start(f, 8);
	a = srvfix_player(f, "alice");
	b = srvfix_player(f, "bob");
	f->print_mark = "Already showing motd";
	srvfix_run(f, 0.3, true);
	qwc_stringcmd(&a->q, "motd");
	srvfix_run(f, 0.3, true);
	assert_int_equal(a->marked_prints, 1);

	qwc_stringcmd(&a->q, "ffa cup final");
	for (int i = 0; i < 40 && !info_value_for_key(b->q.serverinfo, "matchtag", v, sizeof(v)); i++)
		srvfix_run(f, 0.05, true);
	assert_true(info_value_for_key(b->q.serverinfo, "matchtag", v, sizeof(v)));
	assert_string_equal(v, "cup final");
	assert_true(info_value_for_key(f->sv->serverinfo, "matchtag", v, sizeof(v)));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_match_demo_and_stats, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_match_ready_countdown_timelimit, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_match_setting_refused, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_match_motd_and_matchtag, srvfix_test_teardown),
};

QWD_TEST_GROUP(server_match, tests, srvfix_setup, srvfix_teardown)
