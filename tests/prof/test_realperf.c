/*
 * test_realperf.c -- the real perf_event on this machine, and what a
 * phase switch costs.
 *
 * Design note: the project's VMs have no PMU ("perf stat -e instructions"
 * prints "not supported"), so opening the counters for real must degrade
 * cleanly: one log line, software events if the kernel allows them, the
 * timers unaffected.  On a machine with a PMU the same test checks that
 * the hardware figures are plausible instead; either way it asserts
 * behaviour, never timing.  The benchmark prints the cost of a switch
 * (counters off, on, and on with receive/execute merged) for the report;
 * its only assertions are that the switches were accounted.
 */
#include "../harness.h"

#include "fake_pmu.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

static void spin(uint64_t ns)
{
	uint64_t end = mono() + ns;
	uint64_t x = 1;

	while (mono() < end)
		for (int i = 0; i < 100; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

static void nap(long ns)
{
	struct timespec ts = {0, ns};

	nanosleep(&ts, NULL);
}

static const uint32_t hw_events = (1u << PROF_EV_TASK_CLOCK) - 1;

static void test_real_perf_event(void **state)
{
	struct log_capture cap = {0};
	struct qwd_log log = {log_capture_sink, &cap, QWD_LOG_DEBUG};
	struct prof_config cfg = {0};
	struct prof_stats st;
	struct prof *p;
	char line[1024];

	(void)state;
	cfg.log = &log;
	cfg.max_clients = 4;
	cfg.counters = true;
	p = prof_create(&cfg);
	assert_non_null(p);
	assert_true(prof_counters_on(p));
	for (int f = 0; f < 20; f++) {
		nap(300000);			/* idle: asleep */
		prof_switch(p, PROF_WORLD);
		spin(200000);			/* world: on the CPU */
		prof_switch(p, PROF_REPLY);
		spin(50000);
		prof_frame_end(p);
	}
	prof_get_stats(p, PROF_SCOPE_TOTAL, &st);
	prof_format_line(&st, line, sizeof(line));
	printf("real perf_event: mode %s\n  %s\n  log: %s",
	       prof_counter_mode_name(st.counter_mode), line, cap.text);

	/* the server ran normally */
	assert_int_equal(st.frames, 20);
	assert_true(st.phase_ns[PROF_WORLD] >= 20 * 200000ull);
	assert_true(st.phase_ns[PROF_IDLE] >= 20 * 300000ull);

	if (st.events_counted & hw_events) {
		/* a machine with a PMU */
		assert_true(st.counter_mode == PROF_CTR_ALL ||
			    st.counter_mode == PROF_CTR_ROTATING);
		assert_true(isfinite(st.phase[PROF_WORLD].ipc) &&
			    st.phase[PROF_WORLD].ipc > 0.0);
	} else {
		/* no PMU: said once, as a warning */
		assert_int_equal(log_capture_count(&cap, "hardware events not supported") +
					 log_capture_count(&cap, "phase timers only"),
				 1);
		assert_int_equal(cap.warn_lines, 1);
		assert_true(isnan(st.all.ipc));
		assert_null(strstr(line, "ipc"));
		if (st.events_counted & (1u << PROF_EV_TASK_CLOCK)) {
			/* task-clock is readable: spinning is on the CPU,
			 * sleeping is not */
			assert_int_equal(st.counter_mode, PROF_CTR_SOFTWARE);
			assert_true(st.phase[PROF_WORLD].cpu_share > 0.2);
			assert_true(st.phase[PROF_IDLE].cpu_share <
				    st.phase[PROF_WORLD].cpu_share);
			assert_non_null(strstr(line, "[sw only: no hw counters]"));
		} else {
			assert_int_equal(st.counter_mode, PROF_CTR_NONE);
		}
	}
	/* off closes everything and the timers go on */
	prof_counters_set(p, false);
	assert_false(prof_counters_on(p));
	prof_switch(p, PROF_WORLD);
	prof_frame_end(p);
	prof_get_stats(p, PROF_SCOPE_TOTAL, &st);
	assert_int_equal(st.frames, 21);
	prof_destroy(p);
}

/* ns per switch over n receive/execute switches */
static double bench_switches(struct prof *p, int n)
{
	uint64_t t0, t1;

	prof_switch(p, PROF_RECEIVE);
	t0 = mono();
	for (int i = 0; i < n; i += 2) {
		prof_switch(p, PROF_EXECUTE);
		prof_switch(p, PROF_RECEIVE);
	}
	t1 = mono();
	prof_frame_end(p);
	return (double)(t1 - t0) / n;
}

static void test_switch_cost(void **state)
{
	struct prof_config cfg = {0};
	struct qwd_log quiet = {log_capture_sink, NULL, QWD_LOG_ERROR + 1};
	struct prof_stats st;
	struct prof *p;
	double off, on, merged, clock_cost, per_req, frame_end;
	uint64_t t0;
	enum { N = 400000, N_ON = 20000 };

	(void)state;
	cfg.log = &quiet;
	cfg.max_clients = 64;
	p = prof_create(&cfg);
	assert_non_null(p);

	t0 = mono();
	for (int i = 0; i < N; i++)
		sink += prof_now(p);
	clock_cost = (double)(mono() - t0) / N;

	off = bench_switches(p, N);
	t0 = mono();
	for (int i = 0; i < N; i++) {
		prof_request(p, i & 63, 60);
		prof_reply(p, i & 63, 500);
		prof_request_done(p, 1000, 1000 + (uint64_t)i);
	}
	per_req = (double)(mono() - t0) / N;
	prof_get_stats(p, PROF_SCOPE_TOTAL, &st);
	assert_int_equal(st.frames, 1);
	assert_int_equal(st.requests, 0);	/* counted at the next frame end */
	assert_int_equal(st.reply_bytes.count, N);
	assert_true(st.phase_ns[PROF_RECEIVE] > 0 && st.phase_ns[PROF_EXECUTE] > 0);

	t0 = mono();
	for (int i = 0; i < N; i++)
		prof_frame_end(p);
	frame_end = (double)(mono() - t0) / N;

	prof_counters_set(p, true);
	on = bench_switches(p, N_ON);
	prof_counters_merge(p, true);
	merged = bench_switches(p, N);
	prof_get_stats(p, PROF_SCOPE_TOTAL, &st);
	assert_int_equal(st.frames, 3 + N);
	assert_int_equal(st.requests, N);

	printf("prof benchmark (this machine, %s):\n"
	       "  clock read (prof_now)                  %6.1f ns\n"
	       "  prof_switch, counters off              %6.1f ns\n"
	       "  prof_switch, counters on (%-8s)     %6.1f ns\n"
	       "  prof_switch, counters on, rx/exec merged %4.1f ns\n"
	       "  prof_request+prof_reply+request_done   %6.1f ns\n"
	       "  prof_frame_end, counters off           %6.1f ns\n"
	       "  two switches per packet, counters off: %.0f ns per packet\n",
	       prof_counter_mode_name(st.counter_mode), clock_cost, off,
	       prof_counter_mode_name(st.counter_mode), on, merged, per_req, frame_end, 2 * off);
	prof_destroy(p);
}

static const struct CMUnitTest realperf_tests[] = {
	cmocka_unit_test(test_real_perf_event),
	cmocka_unit_test(test_switch_cost),
};

QWD_TEST_GROUP(prof_realperf, realperf_tests, NULL, NULL)
