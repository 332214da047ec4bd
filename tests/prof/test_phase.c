/*
 * test_phase.c -- phase accounting, frames, intervals and the traffic
 * figures, on a simulated clock.
 *
 * Design note: the fake PMU's clock drives the profiler, so every
 * duration is known exactly and the tests compare nanoseconds with ==.
 * Counters stay off here (test_counters.c covers them); the fake ops are
 * still passed so that nothing can reach the real system calls.
 */
#include "../harness.h"

#include "fake_pmu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct fixture {
	struct fake_pmu pmu;
	struct prof_perf_ops ops;
	struct log_capture logcap;
	struct qwd_log log;
	struct prof *p;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct prof_config cfg = {0};

	if (!fx)
		return -1;
	fake_pmu_init(&fx->pmu);
	fx->ops = fake_pmu_ops(&fx->pmu);
	fx->log = (struct qwd_log){log_capture_sink, &fx->logcap, QWD_LOG_DEBUG};
	cfg.log = &fx->log;
	cfg.max_clients = 8;
	cfg.interval_s = 1.0;
	cfg.clock = fake_pmu_clock(&fx->pmu);
	cfg.perf = &fx->ops;
	fx->p = prof_create(&cfg);
	if (!fx->p) {
		free(fx);
		return -1;
	}
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	prof_destroy(fx->p);
	free(fx);
	return 0;
}

/* one frame: idle, world, receive/execute interleaved, reply */
static void frame(struct fixture *fx, uint64_t idle, uint64_t world,
		  uint64_t recv, uint64_t exec, uint64_t reply)
{
	fake_pmu_advance(&fx->pmu, idle);
	prof_switch(fx->p, PROF_WORLD);
	fake_pmu_advance(&fx->pmu, world);
	prof_switch(fx->p, PROF_RECEIVE);
	fake_pmu_advance(&fx->pmu, recv / 2);
	prof_switch(fx->p, PROF_EXECUTE);
	fake_pmu_advance(&fx->pmu, exec / 2);
	prof_switch(fx->p, PROF_RECEIVE);
	fake_pmu_advance(&fx->pmu, recv - recv / 2);
	prof_switch(fx->p, PROF_EXECUTE);
	fake_pmu_advance(&fx->pmu, exec - exec / 2);
	prof_switch(fx->p, PROF_REPLY);
	fake_pmu_advance(&fx->pmu, reply);
	prof_frame_end(fx->p);
}

static void test_phases_tile_the_frame(void **state)
{
	struct fixture *fx = *state;
	const struct prof_frame_record *r;
	struct prof_stats st;
	uint64_t t0 = fx->pmu.now;

	frame(fx, 7000, 1000, 2000, 3000, 4000);
	r = prof_last_frame(fx->p);
	assert_int_equal(r->seq, 1);
	assert_int_equal(r->start_ns, t0);
	assert_int_equal(r->end_ns, t0 + 17000);
	assert_int_equal(r->phase_ns[PROF_IDLE], 7000);
	assert_int_equal(r->phase_ns[PROF_WORLD], 1000);
	assert_int_equal(r->phase_ns[PROF_RECEIVE], 2000);
	assert_int_equal(r->phase_ns[PROF_EXECUTE], 3000);
	assert_int_equal(r->phase_ns[PROF_REPLY], 4000);
	assert_int_equal(r->counter_group, -1);

	frame(fx, 10000, 0, 0, 0, 0);
	r = prof_last_frame(fx->p);
	assert_int_equal(r->seq, 2);
	assert_int_equal(r->phase_ns[PROF_IDLE], 10000);
	assert_int_equal(r->phase_ns[PROF_REPLY], 0);

	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_int_equal(st.frames, 2);
	assert_int_equal(st.phase_ns[PROF_IDLE], 17000);
	assert_int_equal(st.phase_ns[PROF_EXECUTE], 3000);
	assert_true(fabs(st.seconds - 27e-6) < 1e-12);
	assert_true(fabs(st.phase_share[PROF_IDLE] - 17.0 / 27.0) < 1e-12);
	assert_true(fabs(st.phase_share[PROF_WORLD] - 1.0 / 27.0) < 1e-12);
	/* frame busy time: the frame minus its wait */
	assert_int_equal(st.frame_busy_ns.count, 2);
	assert_int_equal(st.frame_busy_ns.max, 10000);
	/* counters off: mode off, derived figures not measured */
	assert_int_equal(st.counter_mode, PROF_CTR_OFF);
	assert_true(isnan(st.all.ipc) && isnan(st.phase[PROF_WORLD].cpu_share));
}

static void test_time_after_frame_end_is_next_frames_idle(void **state)
{
	struct fixture *fx = *state;

	frame(fx, 100, 100, 100, 100, 100);
	/* work the server does after frame end without switching counts as
	 * the next frame's idle: the time is never lost */
	fake_pmu_advance(&fx->pmu, 555);
	prof_switch(fx->p, PROF_WORLD);
	fake_pmu_advance(&fx->pmu, 5);
	prof_frame_end(fx->p);
	assert_int_equal(prof_last_frame(fx->p)->phase_ns[PROF_IDLE], 555);
	assert_int_equal(prof_last_frame(fx->p)->phase_ns[PROF_WORLD], 5);
}

static void test_bad_phase_ignored(void **state)
{
	struct fixture *fx = *state;

	prof_switch(fx->p, PROF_WORLD);
	fake_pmu_advance(&fx->pmu, 100);
	prof_switch(fx->p, (enum prof_phase)PROF_PHASES);
	prof_switch(fx->p, (enum prof_phase)-1);
	fake_pmu_advance(&fx->pmu, 100);
	prof_frame_end(fx->p);
	assert_int_equal(prof_last_frame(fx->p)->phase_ns[PROF_WORLD], 200);
}

static void test_requests_replies_and_times(void **state)
{
	struct fixture *fx = *state;
	struct prof_stats st;
	uint64_t recv;

	/* frame 1: three requests from two clients, two replies */
	prof_switch(fx->p, PROF_RECEIVE);
	recv = prof_now(fx->p);
	prof_request(fx->p, 0, 40);
	prof_request(fx->p, 1, 50);
	prof_request(fx->p, 1, 60);
	prof_request(fx->p, 99, 1000);	/* out of range: totals only */
	fake_pmu_advance(&fx->pmu, 100000);
	prof_switch(fx->p, PROF_REPLY);
	prof_reply(fx->p, 0, 300);
	prof_request_done(fx->p, recv, prof_now(fx->p));
	fake_pmu_advance(&fx->pmu, 20000);
	prof_reply(fx->p, 1, 1400);
	prof_request_done(fx->p, recv, prof_now(fx->p));
	prof_request_done(fx->p, 0, prof_now(fx->p));		/* ignored */
	prof_request_done(fx->p, prof_now(fx->p) + 1, prof_now(fx->p));
	prof_reply(fx->p, -3, 10);	/* out of range slot: totals only */
	fake_pmu_advance(&fx->pmu, 880000);
	prof_frame_end(fx->p);
	/* frame 2: nothing */
	fake_pmu_advance(&fx->pmu, 1000000);
	prof_frame_end(fx->p);

	assert_int_equal(prof_last_frame(fx->p)->requests, 0);
	prof_get_stats(fx->p, PROF_SCOPE_INTERVAL, &st);
	assert_int_equal(st.requests, 4);
	assert_int_equal(st.replies, 3);
	assert_int_equal(st.requests_per_frame.count, 2);
	assert_true(fabs(st.requests_per_frame.mean - 2.0) < 1e-12);
	assert_int_equal(st.requests_per_frame.max, 4);
	assert_int_equal(st.request_time_ns.count, 2);
	assert_int_equal(st.request_time_ns.max, 120000);
	assert_int_equal(st.request_time_ns.p50, 100000);
	assert_int_equal(st.reply_bytes.count, 3);
	assert_int_equal(st.reply_bytes.max, 1400);
	assert_true(fabs(st.reply_bytes.mean - 570.0) < 1e-9);
	/* per-client bandwidth over 2 ms: client 0 in 40 B out 300 B,
	 * client 1 in 110 B out 1400 B */
	assert_true(fabs(st.seconds - 0.002) < 1e-12);
	assert_int_equal(st.clients_active, 2);
	assert_true(fabs(st.client_in_Bps_max - 55000.0) < 1e-6);
	assert_true(fabs(st.client_in_Bps_mean - 37500.0) < 1e-6);
	assert_true(fabs(st.client_out_Bps_max - 700000.0) < 1e-6);
	assert_true(fabs(st.client_out_Bps_mean - 425000.0) < 1e-6);

	/* a new client in slot 1 starts from zero */
	prof_client_reset(fx->p, 1);
	prof_client_reset(fx->p, 1000);
	prof_get_stats(fx->p, PROF_SCOPE_INTERVAL, &st);
	assert_int_equal(st.clients_active, 1);
	assert_true(fabs(st.client_out_Bps_max - 150000.0) < 1e-6);
}

static void test_net_totals(void **state)
{
	struct fixture *fx = *state;
	struct prof_stats st;

	/* cumulative, as the socket counts; the first call counts from 0 */
	prof_net_totals(fx->p, 10, 1000, 8, 4000);
	prof_net_totals(fx->p, 15, 1500, 12, 6000);
	/* the owner zeroed its counters: the new values are all new */
	prof_net_totals(fx->p, 2, 200, 1, 500);
	fake_pmu_advance(&fx->pmu, 1000000);
	prof_frame_end(fx->p);
	prof_get_stats(fx->p, PROF_SCOPE_INTERVAL, &st);
	assert_int_equal(st.packets_in, 17);
	assert_int_equal(st.bytes_in, 1700);
	assert_int_equal(st.packets_out, 13);
	assert_int_equal(st.bytes_out, 6500);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_int_equal(st.packets_in, 17);
}

static void test_intervals(void **state)
{
	struct fixture *fx = *state;
	struct prof_stats st;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int closed = 0;

	assert_non_null(f);
	prof_set_stats_file(fx->p, f);
	prof_set_report_console(fx->p, true);
	/* interval 1 s, frames of 100 ms (10 ms busy): the 10th frame end
	 * closes the first interval */
	for (int i = 1; i <= 25; i++) {
		prof_request(fx->p, 0, 50);
		frame(fx, 90000000, 2000000, 3000000, 4000000, 1000000);
		if (prof_periodic(fx->p)) {
			closed++;
			assert_int_equal(i % 10, 0);
		}
	}
	assert_int_equal(closed, 2);
	prof_get_stats(fx->p, PROF_SCOPE_LAST, &st);
	assert_int_equal(st.seq, 2);
	assert_int_equal(st.frames, 10);
	assert_int_equal(st.requests, 10);
	assert_true(fabs(st.seconds - 1.0) < 1e-9);
	assert_true(fabs(st.uptime_s - 2.0) < 1e-9);
	assert_true(fabs(st.phase_share[PROF_IDLE] - 0.9) < 1e-9);
	prof_get_stats(fx->p, PROF_SCOPE_INTERVAL, &st);
	assert_int_equal(st.frames, 5);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_int_equal(st.frames, 25);
	assert_int_equal(st.requests, 25);

	/* the partial interval on shutdown */
	prof_interval_close(fx->p);
	prof_get_stats(fx->p, PROF_SCOPE_LAST, &st);
	assert_int_equal(st.seq, 3);
	assert_int_equal(st.frames, 5);
	fclose(f);
	prof_set_stats_file(fx->p, NULL);

	/* three JSON lines, one per interval, and three console lines */
	{
		int lines = 0;
		char *save = NULL;

		for (char *l = strtok_r(text, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save)) {
			lines++;
			assert_true(json_text_valid(l));
			assert_true(json_text_num(l, "seq") == lines);
		}
		assert_int_equal(lines, 3);
	}
	free(text);
	assert_int_equal(log_capture_count(&fx->logcap, "stats 1.0s 10 fps"), 2);
	assert_int_equal(log_capture_count(&fx->logcap, "stats 0.5s 10 fps"), 1);
}

static void test_reset(void **state)
{
	struct fixture *fx = *state;
	struct prof_stats st;

	prof_request(fx->p, 2, 10);
	frame(fx, 1000, 1000, 1000, 1000, 1000);
	prof_reply(fx->p, 2, 10);
	prof_switch(fx->p, PROF_WORLD);
	fake_pmu_advance(&fx->pmu, 777);
	prof_reset(fx->p);
	fake_pmu_advance(&fx->pmu, 300);
	prof_frame_end(fx->p);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_int_equal(st.frames, 1);
	assert_int_equal(st.replies, 0);
	assert_int_equal(st.requests, 0);
	assert_int_equal(st.reply_bytes.count, 0);
	assert_int_equal(st.clients_active, 0);
	assert_int_equal(st.phase_ns[PROF_WORLD], 300);	/* 777 forgotten */
	assert_true(fabs(st.seconds - 300e-9) < 1e-15);
	/* a frame record survives, the next is numbered on */
	assert_int_equal(prof_last_frame(fx->p)->seq, 2);
}

static void test_periodic_not_before_interval(void **state)
{
	struct fixture *fx = *state;

	prof_set_interval(fx->p, 0.5);
	fake_pmu_advance(&fx->pmu, 499999999);
	prof_frame_end(fx->p);
	assert_false(prof_periodic(fx->p));
	fake_pmu_advance(&fx->pmu, 1);
	prof_frame_end(fx->p);
	assert_true(prof_periodic(fx->p));
	assert_false(prof_periodic(fx->p));
	/* a reset in the middle of a frame does not make one due */
	fake_pmu_advance(&fx->pmu, 10);
	prof_reset(fx->p);
	assert_false(prof_periodic(fx->p));
}

static const struct CMUnitTest phase_tests[] = {
	cmocka_unit_test_setup_teardown(test_phases_tile_the_frame, setup, teardown),
	cmocka_unit_test_setup_teardown(test_time_after_frame_end_is_next_frames_idle,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_bad_phase_ignored, setup, teardown),
	cmocka_unit_test_setup_teardown(test_requests_replies_and_times, setup, teardown),
	cmocka_unit_test_setup_teardown(test_net_totals, setup, teardown),
	cmocka_unit_test_setup_teardown(test_intervals, setup, teardown),
	cmocka_unit_test_setup_teardown(test_reset, setup, teardown),
	cmocka_unit_test_setup_teardown(test_periodic_not_before_interval, setup,
					teardown),
};

QWD_TEST_GROUP(prof_phase, phase_tests, NULL, NULL)
