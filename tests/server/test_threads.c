/*
 * test_threads.c -- the real program with its reply phase on threads
 * (qwd -threads N -cpus LIST, docs/parallel.md): stock and QWDX players
 * over UDP join, move and are answered with deltas, nothing they read is
 * bad, and quit ends the process cleanly (the workers joined); options
 * out of range are refused before anything starts.
 *
 * Design note
 *   The byte-for-byte comparison with the sequential phase is
 *   tests/framebench's (in-process, in lockstep); this is the socket path:
 *   the workers' send batches are flushed into the real socket at the
 *   commit.  The CPU given to -cpus is one this process may run on (the
 *   test may itself be pinned), so the pinning cannot fail for want of a
 *   CPU.
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
	for (int i = 0; i < 8; i++) {
		char name[16];

		snprintf(name, sizeof(name), "t%d", i);
		/* half stock (slots below 32), half QWDX (above) */
		c[i] = srvfix_client(f, NULL, name, i % 2 == 1, NULL);
		srvfix_connect(c[i]);
	}
	assert_true(srvfix_until_all(f, QWC_ACTIVE, 5.0));
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
	assert_int_equal(qwd_status("-cpus 1,"), 2);
	assert_int_equal(qwd_status("-cpus two"), 2);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_players_on_threads, srvfix_test_teardown),
	cmocka_unit_test(test_options_refused),
};

QWD_TEST_GROUP(threads, tests, srvfix_setup, srvfix_teardown)
