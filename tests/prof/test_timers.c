/*
 * test_timers.c -- the phase timers switched off (qwd -notimers): no
 * clock read per phase or packet, one per frame, counts kept.
 *
 * Design note: the profiler's clock is a counting fake, so "off skips the
 * clock reads" is checked as a number of calls, not as a time.  The
 * overhead benchmark (qwexp overhead) relies on exactly this: its
 * baseline configuration must not pay for the timers it compares.
 */
#include "../harness.h"

#include "fake_pmu.h"

#include <stdlib.h>
#include <string.h>

struct counting_clock {
	uint64_t now;
	int reads;
};

static uint64_t counting_mono(void *ctx)
{
	struct counting_clock *c = ctx;

	c->reads++;
	return c->now;
}

struct fixture {
	struct counting_clock clk;
	struct fake_pmu pmu;
	struct prof_perf_ops ops;
	struct log_capture logcap;
	struct qwd_log log;
	struct prof *p;
};

static struct fixture *make(void)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct prof_config cfg = {0};

	assert_non_null(fx);
	fake_pmu_init(&fx->pmu);
	fx->ops = fake_pmu_ops(&fx->pmu);
	fx->log = (struct qwd_log){log_capture_sink, &fx->logcap, QWD_LOG_DEBUG};
	fx->clk.now = 1000000;
	cfg.log = &fx->log;
	cfg.max_clients = 4;
	cfg.interval_s = 1.0;
	cfg.clock.mono_ns = counting_mono;
	cfg.clock.ctx = &fx->clk;
	cfg.perf = &fx->ops;
	fx->p = prof_create(&cfg);
	assert_non_null(fx->p);
	return fx;
}

static void destroy(struct fixture *fx)
{
	prof_destroy(fx->p);
	free(fx);
}

/* what the server does in one frame with one request and one reply */
static void server_frame_like(struct fixture *fx)
{
	uint64_t t;

	fx->clk.now += 1000;
	prof_switch(fx->p, PROF_WORLD);
	fx->clk.now += 1000;
	prof_switch(fx->p, PROF_RECEIVE);
	t = prof_now(fx->p);
	prof_request(fx->p, 1, 40);
	prof_switch(fx->p, PROF_EXECUTE);
	fx->clk.now += 1000;
	prof_switch(fx->p, PROF_RECEIVE);
	prof_switch(fx->p, PROF_REPLY);
	fx->clk.now += 1000;
	prof_reply(fx->p, 1, 300);
	prof_request_done(fx->p, t, prof_now(fx->p));
	prof_switch(fx->p, PROF_WORLD);
	prof_frame_end(fx->p);
}

static void test_on_by_default_reads_per_phase(void **state)
{
	struct fixture *fx = make();
	int before;

	(void)state;
	assert_true(prof_timers_on(fx->p));
	before = fx->clk.reads;
	server_frame_like(fx);
	/* 6 switches, 2 prof_now, 1 frame end */
	assert_int_equal(fx->clk.reads - before, 9);
	destroy(fx);
}

static void test_off_reads_once_per_frame_and_keeps_counts(void **state)
{
	struct fixture *fx = make();
	struct prof_stats st;
	int before;

	(void)state;
	prof_set_timers(fx->p, false);
	assert_false(prof_timers_on(fx->p));
	prof_reset(fx->p);	/* applies the setting, as qwd's start does */
	before = fx->clk.reads;
	for (int i = 0; i < 10; i++)
		server_frame_like(fx);
	assert_int_equal(fx->clk.reads - before, 10);
	assert_int_equal(prof_now(fx->p), 0);
	assert_int_equal(prof_switch(fx->p, PROF_WORLD), 0);

	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_true(st.untimed);
	assert_int_equal(st.frames, 10);
	assert_int_equal(st.requests, 10);
	assert_int_equal(st.replies, 10);
	assert_int_equal(st.reply_bytes.count, 10);
	assert_int_equal(st.request_time_ns.count, 0);
	assert_int_equal(st.frame_busy_ns.count, 0);
	for (int ph = 0; ph < PROF_PHASES; ph++)
		assert_int_equal(st.phase_ns[ph], 0);
	assert_true(st.seconds > 0.0);
	destroy(fx);
}

static void test_switch_waits_for_the_frame_end(void **state)
{
	struct fixture *fx = make();
	struct prof_stats st;

	(void)state;
	fx->clk.now += 1000;
	prof_switch(fx->p, PROF_WORLD);
	prof_set_timers(fx->p, false);
	/* the frame in progress stays timed to its end */
	fx->clk.now += 500;
	prof_switch(fx->p, PROF_REPLY);
	fx->clk.now += 700;
	prof_frame_end(fx->p);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_false(st.untimed);
	assert_int_equal(st.phase_ns[PROF_WORLD], 500);
	assert_int_equal(st.phase_ns[PROF_REPLY], 700);

	server_frame_like(fx);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_true(st.untimed);
	assert_int_equal(st.phase_ns[PROF_WORLD], 500);

	/* back on: the next frame is timed again from its start */
	prof_set_timers(fx->p, true);
	server_frame_like(fx);	/* still off: applied at its end */
	prof_reset(fx->p);
	server_frame_like(fx);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_false(st.untimed);
	assert_int_equal(st.phase_ns[PROF_WORLD] + st.phase_ns[PROF_RECEIVE] +
			 st.phase_ns[PROF_EXECUTE] + st.phase_ns[PROF_REPLY] +
			 st.phase_ns[PROF_IDLE], 4000);
	assert_int_equal(st.request_time_ns.count, 1);
	destroy(fx);
}

static void test_counters_need_the_timers(void **state)
{
	struct fixture *fx = make();

	(void)state;
	fx->pmu.hw_counters = 0;	/* software events only, like the VMs */
	assert_true(prof_counters_set(fx->p, true) > 0);
	prof_set_timers(fx->p, false);
	server_frame_like(fx);
	assert_false(prof_counters_on(fx->p));
	assert_int_equal(fx->pmu.open_fds, 0);
	assert_int_equal(log_capture_count(&fx->logcap, "phase timers are off"), 1);
	assert_int_equal(prof_counters_set(fx->p, true), 0);
	assert_false(prof_counters_on(fx->p));
	assert_int_equal(log_capture_count(&fx->logcap, "-notimers"), 1);
	destroy(fx);
}

static void test_reports_say_untimed(void **state)
{
	struct fixture *fx = make();
	struct prof_stats st;
	char line[1024], json[8192], v[32];
	FILE *f;
	size_t n;

	(void)state;
	prof_set_timers(fx->p, false);
	assert_false(prof_timers_on(fx->p));
	server_frame_like(fx);	/* timed: the setting waits for its end */
	prof_interval_close(fx->p);
	server_frame_like(fx);
	prof_get_stats(fx->p, PROF_SCOPE_INTERVAL, &st);
	prof_format_line(&st, line, sizeof(line));
	assert_non_null(strstr(line, "timers off"));
	assert_null(strstr(line, "idle"));

	f = tmpfile();
	assert_non_null(f);
	assert_int_equal(prof_write_json(&st, f), 0);
	rewind(f);
	n = fread(json, 1, sizeof(json) - 1, f);
	json[n] = '\0';
	fclose(f);
	assert_true(json_text_get(json, "timers", v, sizeof(v)));
	assert_string_equal(v, "false");
	destroy(fx);
}

static const struct CMUnitTest timer_tests[] = {
	cmocka_unit_test(test_on_by_default_reads_per_phase),
	cmocka_unit_test(test_off_reads_once_per_frame_and_keeps_counts),
	cmocka_unit_test(test_switch_waits_for_the_frame_end),
	cmocka_unit_test(test_counters_need_the_timers),
	cmocka_unit_test(test_reports_say_untimed),
};

QWD_TEST_GROUP(prof_timers, timer_tests, NULL, NULL)
