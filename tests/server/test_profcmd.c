/*
 * test_profcmd.c -- the operator's "stats" and "counters" commands
 * (src/server/profcmd.c) over a real profiler on the fake PMU.
 *
 * Design note: the commands are the server's grammar over prof's public
 * API, so they are driven here through sv_prof_command with a profiler
 * made on tests/prof/fake_pmu.c (linked into this program by the
 * Makefile): a VM without hardware events, a clock the test moves.  Each
 * command's output is checked, and its effect through prof's getters.
 */
#include "../harness.h"

#include "../prof/fake_pmu.h"

#include "../server/svall.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run_cmd(struct prof *p, const char *line, char *out, size_t size)
{
	const char *argv[8];
	char copy[128], *save = NULL;
	int argc = 0, rc;
	FILE *f;

	strcpy(copy, line);
	for (char *t = strtok_r(copy, " ", &save); t && argc < 8;
	     t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	f = fmemopen(out, size, "w");
	assert_non_null(f);
	rc = sv_prof_command(p, argc, argv, f);
	fclose(f);
	return rc;
}

static void test_commands(void **state)
{
	struct fake_pmu *pmu = calloc(1, sizeof(*pmu));
	struct prof_perf_ops ops;
	struct log_capture cap = {0};
	struct qwd_log log = {log_capture_sink, &cap, QWD_LOG_DEBUG};
	struct prof_config cfg = {0};
	struct prof *p;
	char out[4096];

	(void)state;
	assert_non_null(pmu);
	fake_pmu_init(pmu);
	fake_pmu_default_rates(pmu);
	pmu->hw_counters = 0;
	ops = fake_pmu_ops(pmu);
	cfg.log = &log;
	cfg.clock = fake_pmu_clock(pmu);
	cfg.perf = &ops;
	p = prof_create(&cfg);
	assert_non_null(p);

	fake_pmu_advance(pmu, 1000000);
	prof_switch(p, PROF_WORLD);
	fake_pmu_advance(pmu, 1000000);
	prof_frame_end(p);

	assert_int_equal(run_cmd(p, "stats", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "interval so far: stats 0.0s 500 fps | world 50.0%"));
	assert_non_null(strstr(out, "total: stats"));
	assert_non_null(strstr(out, "console report off, every 10.0 s; stats file off"));
	assert_int_equal(run_cmd(p, "stats show", out, sizeof(out)), 0);
	assert_int_equal(run_cmd(p, "stats on", out, sizeof(out)), 0);
	assert_string_equal(out, "console report on\n");
	assert_int_equal(run_cmd(p, "stats interval 2.5", out, sizeof(out)), 0);
	assert_string_equal(out, "stats interval 2.5 s\n");
	assert_int_equal(run_cmd(p, "stats interval 0", out, sizeof(out)), -1);
	assert_non_null(strstr(out, "usage: stats"));
	assert_int_equal(run_cmd(p, "stats interval 3x", out, sizeof(out)), -1);
	assert_int_equal(run_cmd(p, "stats bogus", out, sizeof(out)), -1);
	assert_int_equal(run_cmd(p, "stats reset", out, sizeof(out)), 0);
	assert_int_equal(run_cmd(p, "stats", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "total: stats 0.0s 0 fps"));
	assert_non_null(strstr(out, "console report on, every 2.5 s"));
	assert_int_equal(run_cmd(p, "stats timers off", out, sizeof(out)), 0);
	assert_string_equal(out, "phase timers off from the next frame\n");
	assert_false(prof_timers_on(p));
	assert_int_equal(run_cmd(p, "stats timers maybe", out, sizeof(out)), -1);
	assert_int_equal(run_cmd(p, "stats timers on", out, sizeof(out)), 0);
	assert_true(prof_timers_on(p));

	assert_int_equal(run_cmd(p, "counters", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "counters off, mode off"));
	assert_int_equal(run_cmd(p, "counters on", out, sizeof(out)), 0);
	assert_string_equal(out, "counters on: 3 event(s), mode software\n");
	assert_int_equal(log_capture_count(&cap, "hardware events not supported"), 1);
	assert_int_equal(run_cmd(p, "counters", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "counters on, mode software, groups [S]"));
	prof_switch(p, PROF_WORLD);
	pmu->phase = PROF_WORLD;
	fake_pmu_advance(pmu, 1000000);
	prof_frame_end(p);
	assert_int_equal(run_cmd(p, "counters report", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "counters: mode software"));
	assert_non_null(strstr(out, "counted: task-clock context-switches page-faults\n"));
	assert_non_null(strstr(out, "\nworld     100.0         -"));
	assert_int_equal(run_cmd(p, "counters merge on", out, sizeof(out)), 0);
	assert_string_equal(out, "counters: receive and execute share one counter phase\n");
	assert_int_equal(run_cmd(p, "counters merge", out, sizeof(out)), -1);
	assert_int_equal(run_cmd(p, "counters sample 4", out, sizeof(out)), 0);
	assert_string_equal(out, "counters: read in one frame of 4\n");
	assert_int_equal(run_cmd(p, "counters sample 0", out, sizeof(out)), -1);
	assert_int_equal(run_cmd(p, "counters", out, sizeof(out)), 0);
	assert_non_null(strstr(out, ", receive+execute merged, read in 1 frame of 4,"));
	assert_int_equal(run_cmd(p, "counters off", out, sizeof(out)), 0);
	assert_false(prof_counters_on(p));
	assert_int_equal(pmu->open_fds, 0);
	assert_int_equal(run_cmd(p, "counters sideways", out, sizeof(out)), -1);
	assert_non_null(strstr(out, "usage: counters"));
	assert_int_equal(run_cmd(p, "frobnicate", out, sizeof(out)), -1);
	assert_int_equal(sv_prof_command(p, 0, NULL, stdout), -1);
	prof_destroy(p);
	free(pmu);
}

static const struct CMUnitTest profcmd_tests[] = {
	cmocka_unit_test(test_commands),
};

QWD_TEST_GROUP(server_profcmd, profcmd_tests, NULL, NULL)
