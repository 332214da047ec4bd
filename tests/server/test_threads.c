/*
 * test_threads.c -- the real program with its reply phase on threads
 * (qwd -threads N -cpus LIST, docs/parallel.md): stock and QWDX players
 * over UDP join, move and are answered with deltas, nothing they read is
 * bad, and quit ends the process cleanly (the workers joined); options
 * out of range are refused before anything starts.  -threads auto: the
 * pool's size follows the predictor fed the need the server measured,
 * grows and shrinks within 1..max as the thresholds ask, players are
 * served all along, and the console's "threads" says so.
 *
 * Design note
 *   The byte-for-byte comparison with the sequential phase is
 *   tests/framebench's (in-process, in lockstep); this is the socket path:
 *   the workers' send batches are flushed into the real socket at the
 *   commit.  The CPU given to -cpus is one this process may run on (the
 *   test may itself be pinned), so the pinning cannot fail for want of a
 *   CPU.
 *   The predicted pool's decisions depend on the machine's speed only
 *   through the need; the test takes the need the server computed and
 *   checks what was done with it, and drives the direction with the
 *   thresholds (0: any work grows the pool; very high: it shrinks), so
 *   the outcome is the same on a fast machine and a slow one.
 */
#include "srvfix.h"

#include "../harness.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* the first CPU this process may run on, as text */
static void first_cpu(char *out, size_t size)
{
	cpu_set_t set;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set)) {
			snprintf(out, size, "%d", c);
			return;
		}
	fail_msg("no CPU in this process's affinity");
}

/* n players, half stock (slots below 32), half QWDX (above), in the game */
static void join_players(struct srvfix *f, struct srv_client **c, int n)
{
	for (int i = 0; i < n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "t%d", i);
		c[i] = srvfix_client(f, NULL, name, i % 2 == 1, NULL);
		srvfix_connect(c[i]);
	}
	assert_true(srvfix_until_all(f, QWC_ACTIVE, 5.0));
}

static void test_players_on_threads(void **state)
{
	struct srvfix *f = *state;
	char cpu[16];
	const char *extra[] = {"-maxclients", "64", "-threads", "2", "-cpus", cpu, NULL};
	struct srv_client *c[8];
	uint64_t replies[8];

	first_cpu(cpu, sizeof(cpu));
	srvfix_spawn(f, extra);
	assert_int_equal(srvfix_file_count(f, "qwd.log", "replies built by 2 threads"), 1);
	join_players(f, c, 8);
	/* both kinds in the game: four stock, four QWDX */
	assert_int_equal(srvfix_file_count(f, "qwd.log", "connected from"), 8);
	assert_int_equal(srvfix_file_count(f, "qwd.log", "(QWDX)"), 4);
	for (int i = 0; i < 8; i++)
		replies[i] = c[i]->q.stats.replies;
	srvfix_run(f, 1.0, true);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(c[i]->q.state, QWC_ACTIVE);
		/* answered all along, and from deltas */
		assert_true(c[i]->q.stats.replies > replies[i] + 10);
		assert_true(c[i]->q.stats.deltas > 0);
		assert_true(c[i]->q.valid_sequence > 0);
		for (int k = 0; k < QWC_BAD_KINDS; k++)
			assert_int_equal(c[i]->q.stats.bad[k], 0);
	}
	assert_true(srvfix_stop_child(f));
}

/* Step the in-process server with its players until the pool has
 * `want` workers active or 5 s pass; at every check the server closed,
 * its decision is what a copy of its predictor makes of the need it
 * measured, and the pool uses that many workers.  The checks seen. */
static int until_size(struct srvfix *f, int want)
{
	const struct sv_autopool *a = f->sv->autopool;
	struct pool_predictor mine = a->pr;
	unsigned checks = a->checks;
	int seen = 0;
	double end = server_clock() + 5.0;

	while (server_clock() < end && pool_active(f->sv->pool) != want) {
		srvfix_step(f, true);
		if (a->checks == checks)
			continue;
		assert_int_equal(a->checks, checks + 1);	/* one a frame at most */
		checks = a->checks;
		seen++;
		mine.alpha = a->alpha->value;
		mine.high = a->high->value;
		mine.low = a->low->value;
		assert_int_equal(pool_predictor_step(&mine, a->need), a->pr.size);
		assert_true(mine.gamma == a->pr.gamma);
		assert_int_equal(pool_active(f->sv->pool), a->pr.size);
		assert_true(a->pr.size >= 1 && a->pr.size <= 2);
	}
	assert_int_equal(pool_active(f->sv->pool), want);
	return seen;
}

static void test_auto_pool(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *c[4];
	uint64_t replies[4];
	char out[512];

	f->threads_auto = true;
	f->threads_max = 2;
	srvfix_start(f, 16);
	assert_true(f->sv->autopool->on);
	assert_int_equal(pool_threads(f->sv->pool), 2);
	assert_int_equal(pool_active(f->sv->pool), 1);
	srvfix_command(f, "threads", out, sizeof(out));
	assert_non_null(strstr(out, "auto, 1 active of 2"));
	srvfix_command(f, "set sv_threads_period 0.05", out, sizeof(out));
	join_players(f, c, 4);

	/* any predicted need above nothing grows it, one step: to 2 */
	srvfix_command(f, "set sv_threads_high 0", out, sizeof(out));
	srvfix_command(f, "set sv_threads_low 0", out, sizeof(out));
	assert_true(until_size(f, 2) >= 1);
	assert_int_equal(f->sv->autopool->pr.changes, 1);
	assert_int_equal(srvfix_log_count(f, "-> 2 workers"), 1);
	srvfix_command(f, "threads", out, sizeof(out));
	assert_non_null(strstr(out, "auto, 2 active of 2"));
	assert_non_null(strstr(out, "1 changes"));

	/* never above max, and the players are answered by two workers */
	for (int i = 0; i < 4; i++)
		replies[i] = c[i]->q.stats.replies;
	assert_true(until_size(f, 2) == 0);
	srvfix_run(f, 0.5, true);
	assert_int_equal(pool_active(f->sv->pool), 2);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(c[i]->q.state, QWC_ACTIVE);
		assert_true(c[i]->q.stats.replies > replies[i] + 5);
		for (int k = 0; k < QWC_BAD_KINDS; k++)
			assert_int_equal(c[i]->q.stats.bad[k], 0);
	}

	/* thresholds no need reaches: back to 1, and no lower */
	srvfix_command(f, "set sv_threads_high 1000", out, sizeof(out));
	srvfix_command(f, "set sv_threads_low 1000", out, sizeof(out));
	assert_true(until_size(f, 1) >= 1);
	assert_int_equal(f->sv->autopool->pr.changes, 2);
	assert_int_equal(srvfix_log_count(f, "2 -> 1 workers"), 1);
	unsigned checks = f->sv->autopool->checks;

	srvfix_run(f, 0.3, true);
	assert_true(f->sv->autopool->checks > checks);
	assert_int_equal(pool_active(f->sv->pool), 1);
	assert_int_equal(f->sv->autopool->pr.changes, 2);
	for (int i = 0; i < 4; i++)
		assert_int_equal(c[i]->q.state, QWC_ACTIVE);
}

/* the real program with -threads auto: starts, serves, says how many */
static void test_auto_program(void **state)
{
	struct srvfix *f = *state;
	const char *extra[] = {"-threads", "auto", "-threads-max", "2", NULL};
	struct srv_client *c;

	srvfix_spawn(f, extra);
	assert_int_equal(srvfix_file_count(f, "qwd.log", "replies built by 1 to 2 threads"), 1);
	c = srvfix_client(f, NULL, "p", false, NULL);
	srvfix_connect(c);
	assert_true(srvfix_until(f, c, QWC_ACTIVE, 5.0));
	srvfix_run(f, 0.5, true);
	assert_true(c->q.stats.deltas > 0);
	srvfix_console(f, "threads");
	srvfix_run(f, 0.3, true);
	assert_int_equal(srvfix_file_count(f, "qwd.log", "threads: auto, "), 1);
	assert_int_equal(srvfix_file_count(f, "qwd.log", " of 2, need "), 1);
	assert_true(srvfix_stop_child(f));
}

/* build/qwd with these arguments: its exit status */
static int qwd_status(const char *args)
{
	char cmd[PATH_MAX + 128];
	int st;

	assert_non_null(qwd_build_dir());
	snprintf(cmd, sizeof(cmd), "%s/qwd -noconsole %s >/dev/null 2>&1 </dev/null",
		 qwd_build_dir(), args);
	st = system(cmd);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void test_options_refused(void **state)
{
	char cpu[16], ok[64];

	(void)state;
	first_cpu(cpu, sizeof(cpu));
	/* well-formed: taken, the server starts and quits (status 0) */
	snprintf(ok, sizeof(ok), "-port 0 -threads 3 -cpus %s +quit", cpu);
	assert_int_equal(qwd_status(ok), 0);
	assert_int_equal(qwd_status("-threads 0"), 2);
	assert_int_equal(qwd_status("-threads 65"), 2);
	assert_int_equal(qwd_status("-threads automatic"), 2);
	assert_int_equal(qwd_status("-port 0 -threads auto -threads-max 2 +quit"), 0);
	assert_int_equal(qwd_status("-threads auto -threads-max 0"), 2);
	assert_int_equal(qwd_status("-threads auto -threads-max 65"), 2);
	assert_int_equal(qwd_status("-cpus 1,"), 2);
	assert_int_equal(qwd_status("-cpus two"), 2);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_players_on_threads, srvfix_test_teardown),
	cmocka_unit_test(test_options_refused),
	cmocka_unit_test_teardown(test_auto_pool, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_auto_program, srvfix_test_teardown),
};

QWD_TEST_GROUP(threads, tests, srvfix_setup, srvfix_teardown)
