/*
 * test_recorder.c -- the server's command recorder (src/capture/commands.c)
 * read back by the load generator's own action-file reader.
 *
 * Design note: the recorder exists to make files qwbots accepts, so each
 * test writes through recorder_* into a temporary folder and parses the
 * result with actions_load (src/common/actions.c, linked into this
 * program): the round trip is checked against the real reader, not
 * against a copy of the format.  Bounds, the empty file, a clock that
 * goes back, odd angles and refused paths are covered too.
 */
#include "../harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qwd/capture.h"

#include "../../tools/qwbots/qwbots.h"

struct log_count {
	int lines;
	char last[256];
};

static void count_sink(void *ctx, int level, const char *line)
{
	struct log_count *c = ctx;

	(void)level;
	c->lines++;
	snprintf(c->last, sizeof(c->last), "%s", line);
}

struct fixture {
	char dir[64];
	char path[128];
	struct log_count logc;
	struct qwd_log log;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/qwd-record-XXXXXX");
	if (!mkdtemp(fx->dir)) {
		free(fx);
		return -1;
	}
	snprintf(fx->path, sizeof(fx->path), "%s/rec.act", fx->dir);
	fx->log = (struct qwd_log){count_sink, &fx->logc, QWD_LOG_DEBUG};
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char p[160];

	unlink(fx->path);
	snprintf(p, sizeof(p), "%s/link.act", fx->dir);
	unlink(p);
	rmdir(fx->dir);
	free(fx);
	return 0;
}

static struct usercmd cmd_of(int msec, float pitch, float yaw, int fwd, int side,
			     int up, int buttons, int impulse)
{
	struct usercmd c;

	memset(&c, 0, sizeof(c));
	c.msec = (uint8_t)msec;
	c.angles[0] = pitch;
	c.angles[1] = yaw;
	c.forwardmove = (int16_t)fwd;
	c.sidemove = (int16_t)side;
	c.upmove = (int16_t)up;
	c.buttons = (uint8_t)buttons;
	c.impulse = (uint8_t)impulse;
	return c;
}

static void load(const char *path, struct actions *a)
{
	struct actions_stats st;
	char err[256] = "";
	int rc = actions_load(path, a, &st, err, sizeof(err));

	if (rc != 0)
		fail_msg("the reader refused the recording: %s", err);
	assert_int_equal(st.bad_lines, 0);
}

static void test_round_trip(void **state)
{
	struct fixture *fx = *state;
	struct recorder *r;
	struct recorder_stats st;
	struct actions a;
	const float origin[3] = {480.0f, -352.5f, 88.25f};
	struct usercmd c[4];
	char err[128];

	c[0] = cmd_of(33, -10.5f, 90.0f, 400, 0, 0, 0, 0);
	c[1] = cmd_of(34, 0.0f, 370.0f, -400, 200, 0, 2, 0);	/* yaw wraps to 10 */
	c[2] = cmd_of(13, 80.0f, -725.0f, 0, 0, 350, 1, 5);	/* -725 wraps to -5 */
	c[3] = cmd_of(255, 0.0f, 0.0f, 32767, -32768, 0, 255, 255);
	r = recorder_open(fx->path, 0, "", "qwd test, userid 3", &fx->log, err,
			  sizeof(err));
	assert_non_null(r);
	recorder_set_map(r, "lqdm1");	/* the level loaded after the start */
	assert_true(recorder_cmd(r, 100.0, origin, &c[0]));
	recorder_set_map(r, "e1m1");	/* too late: the header is written */
	assert_true(recorder_cmd(r, 100.0333, NULL, &c[1]));
	assert_true(recorder_cmd(r, 100.0333, NULL, &c[2]));
	assert_true(recorder_cmd(r, 102.5, NULL, &c[3]));
	recorder_get_stats(r, &st);
	assert_int_equal(st.commands, 4);
	assert_int_equal(st.dropped, 0);
	assert_false(st.full);
	assert_int_equal(recorder_close(r), 0);

	load(fx->path, &a);
	assert_string_equal(a.map, "lqdm1");
	assert_true(a.has_spawn);
	assert_float_equal(a.spawn[0], 480.0f, 1e-3);
	assert_float_equal(a.spawn[1], -352.5f, 1e-3);
	assert_float_equal(a.spawn[2], 88.25f, 1e-3);
	assert_string_equal(a.source, "qwd test, userid 3");
	assert_int_equal(a.n, 4);
	assert_float_equal(a.v[0].time, 0.0, 1e-9);
	assert_float_equal(a.v[1].time, 0.033, 1e-9);
	assert_float_equal(a.v[2].time, 0.033, 1e-9);
	assert_float_equal(a.v[3].time, 2.5, 1e-9);
	assert_int_equal(a.v[0].cmd.msec, 33);
	assert_float_equal(a.v[0].cmd.angles[0], -10.5f, 1e-4);
	assert_float_equal(a.v[0].cmd.angles[1], 90.0f, 1e-4);
	assert_int_equal(a.v[0].cmd.forwardmove, 400);
	assert_float_equal(a.v[1].cmd.angles[1], 10.0f, 1e-3);
	assert_int_equal(a.v[1].cmd.forwardmove, -400);
	assert_int_equal(a.v[1].cmd.sidemove, 200);
	assert_int_equal(a.v[1].cmd.buttons, 2);
	assert_float_equal(a.v[2].cmd.angles[1], -5.0f, 1e-3);
	assert_int_equal(a.v[2].cmd.upmove, 350);
	assert_int_equal(a.v[2].cmd.impulse, 5);
	assert_int_equal(a.v[3].cmd.msec, 255);
	assert_int_equal(a.v[3].cmd.forwardmove, 32767);
	assert_int_equal(a.v[3].cmd.sidemove, -32768);
	assert_int_equal(a.v[3].cmd.buttons, 255);
	assert_int_equal(a.v[3].cmd.impulse, 255);
	actions_free(&a);
}

static void test_bound_keeps_a_readable_prefix(void **state)
{
	struct fixture *fx = *state;
	struct recorder *r;
	struct recorder_stats st;
	struct actions a;
	struct usercmd c = cmd_of(33, 1.0f, 2.0f, 400, 0, 0, 0, 0);
	const float origin[3] = {0, 0, 0};
	char err[128];
	struct stat sb;

	r = recorder_open(fx->path, 1024, "small", NULL, &fx->log, err, sizeof(err));
	assert_non_null(r);
	for (int i = 0; i < 100; i++)
		recorder_cmd(r, i * 0.033, origin, &c);
	recorder_get_stats(r, &st);
	assert_true(st.full);
	assert_false(st.write_error);
	assert_true(st.commands > 5);
	assert_int_equal(st.commands + st.dropped, 100);
	assert_true(st.bytes <= 1024);
	assert_int_equal(fx->logc.lines, 1);	/* said once */
	assert_non_null(strstr(fx->logc.last, "size bound"));
	assert_int_equal(recorder_close(r), 0);

	assert_int_equal(stat(fx->path, &sb), 0);
	assert_int_equal((uint64_t)sb.st_size, st.bytes);
	assert_int_equal(sb.st_mode & 0777, 0600);
	load(fx->path, &a);
	assert_int_equal(a.n, st.commands);
	actions_free(&a);
}

static void test_empty_recording_is_a_valid_file(void **state)
{
	struct fixture *fx = *state;
	struct recorder *r;
	struct actions a;
	char err[128];

	/* a map name the reader could not take as one word */
	r = recorder_open(fx->path, 0, "two words", "nobody moved", &fx->log, err,
			  sizeof(err));
	assert_non_null(r);
	assert_int_equal(recorder_close(r), 0);
	load(fx->path, &a);
	assert_int_equal(a.n, 0);
	assert_false(a.has_spawn);
	assert_string_equal(a.map, "unknown");
	actions_free(&a);
}

static void test_clock_going_back_and_bad_values(void **state)
{
	struct fixture *fx = *state;
	struct recorder *r;
	struct actions a;
	struct usercmd c = cmd_of(20, 0.0f, 0.0f, 0, 0, 0, 0, 0);
	const float bad_origin[3] = {INFINITY, 0, 0};
	char err[128];

	r = recorder_open(fx->path, 0, "small", "", &fx->log, err, sizeof(err));
	assert_non_null(r);
	c.angles[1] = NAN;	/* NaN from a client: written as 0 */
	assert_true(recorder_cmd(r, 50.0, bad_origin, &c));	/* spawn none */
	c.angles[1] = 45.0f;
	assert_true(recorder_cmd(r, 51.0, NULL, &c));
	assert_true(recorder_cmd(r, 50.5, NULL, &c));	/* went back */
	assert_true(recorder_cmd(r, 52.0, NULL, &c));
	assert_int_equal(recorder_close(r), 0);
	load(fx->path, &a);
	assert_false(a.has_spawn);
	assert_int_equal(a.n, 4);
	assert_float_equal(a.v[0].cmd.angles[1], 0.0f, 1e-6);
	assert_float_equal(a.v[1].time, 1.0, 1e-9);
	assert_float_equal(a.v[2].time, 1.0, 1e-9);
	assert_float_equal(a.v[3].time, 2.0, 1e-9);
	actions_free(&a);
}

static void test_refused_paths_and_bounds(void **state)
{
	struct fixture *fx = *state;
	char err[256], link[160];
	FILE *f;

	assert_null(recorder_open(fx->path, 100, "small", "", &fx->log, err, sizeof(err)));
	assert_non_null(strstr(err, "too small"));
	assert_null(recorder_open("/nonexistent-dir/x.act", 0, "small", "", &fx->log,
				  err, sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent-dir/x.act"));

	/* no writing through a symbolic link */
	f = fopen(fx->path, "w");
	assert_non_null(f);
	fputs("keep\n", f);
	fclose(f);
	snprintf(link, sizeof(link), "%s/link.act", fx->dir);
	assert_int_equal(symlink(fx->path, link), 0);
	assert_null(recorder_open(link, 0, "small", "", &fx->log, err, sizeof(err)));
	f = fopen(fx->path, "r");
	assert_non_null(f);
	assert_non_null(fgets(err, sizeof(err), f));
	fclose(f);
	assert_string_equal(err, "keep\n");

	assert_false(recorder_cmd(NULL, 0.0, NULL, NULL));
	assert_int_equal(recorder_close(NULL), 0);
}

static const struct CMUnitTest recorder_tests[] = {
	cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
	cmocka_unit_test_setup_teardown(test_bound_keeps_a_readable_prefix, setup, teardown),
	cmocka_unit_test_setup_teardown(test_empty_recording_is_a_valid_file, setup, teardown),
	cmocka_unit_test_setup_teardown(test_clock_going_back_and_bad_values, setup, teardown),
	cmocka_unit_test_setup_teardown(test_refused_paths_and_bounds, setup, teardown),
};

QWD_TEST_GROUP(qwbots_recorder, recorder_tests, NULL, NULL)
