/*
 * test_metrics.c -- the response-time histogram, percentiles, totals and
 * the JSON / CSV writers.
 *
 * Design note: percentiles are nearest-rank; below 128 us the buckets are
 * one microsecond wide, so small samples have exact answers; above, the
 * answer must be within 1/128 of the true value.  Totals are checked on
 * hand-made bot figures whose rates are known.
 */
#include "../harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/qwbots/qwbots.h"

static void test_buckets(void **state)
{
	uint32_t prev = 0;

	(void)state;
	/* every value lies in its bucket; buckets never go backwards */
	for (uint64_t v = 0; v < 0x100000000ull; v = v < 5000 ? v + 1 : v + v / 97 + 1) {
		uint32_t i = qwb_hist_index((uint32_t)v);
		uint32_t lo = qwb_hist_lower(i);

		assert_true(i < QWB_HIST_BUCKETS);
		assert_true(i >= prev);
		assert_true(lo <= v);
		if (i + 1 < QWB_HIST_BUCKETS)
			assert_true(v < qwb_hist_lower(i + 1));
		prev = i;
	}
	assert_int_equal(qwb_hist_index(63), 63);
	assert_int_equal(qwb_hist_index(64), 64);
	assert_int_equal(qwb_hist_index(127), 127);
	assert_int_equal(qwb_hist_index(128), 128);
	assert_int_equal(qwb_hist_index(129), 128);
	assert_int_equal(qwb_hist_index(0xffffffffu), QWB_HIST_BUCKETS - 1);
}

static void test_exact_small(void **state)
{
	static struct qwb_hist h;

	(void)state;
	qwb_hist_clear(&h);
	assert_true(qwb_hist_percentile_us(&h, 50) == 0);
	assert_true(qwb_hist_mean_us(&h) == 0);
	/* 1..100 in a scrambled order */
	for (int i = 0; i < 100; i++)
		qwb_hist_add_us(&h, (uint32_t)(i * 37 % 100 + 1));
	assert_int_equal(h.count, 100);
	assert_int_equal(h.min_us, 1);
	assert_int_equal(h.max_us, 100);
	assert_true(qwb_hist_percentile_us(&h, 0) == 1);
	assert_true(qwb_hist_percentile_us(&h, 1) == 1);
	assert_true(qwb_hist_percentile_us(&h, 50) == 50);
	assert_true(qwb_hist_percentile_us(&h, 50.5) == 51);
	assert_true(qwb_hist_percentile_us(&h, 90) == 90);
	assert_true(qwb_hist_percentile_us(&h, 99) == 99);
	assert_true(qwb_hist_percentile_us(&h, 100) == 100);
	assert_true(qwb_hist_mean_us(&h) == 50.5);
	/* one sample: every percentile is it */
	qwb_hist_clear(&h);
	qwb_hist_add(&h, 0.0123456);
	assert_int_equal(h.max_us, 12346);
	assert_true(qwb_hist_percentile_us(&h, 1) == 12346);
	assert_true(qwb_hist_percentile_us(&h, 99) == 12346);
	/* negative (a clock step) and huge values are clamped, not UB */
	qwb_hist_add(&h, -1.0);
	qwb_hist_add(&h, 1e9);
	assert_int_equal(h.min_us, 0);
	assert_int_equal(h.max_us, 0xffffffffu);
}

static void test_precision(void **state)
{
	static struct qwb_hist h;
	static const double ps[] = {10, 50, 90, 99, 99.9};

	(void)state;
	qwb_hist_clear(&h);
	/* 1, 2, ..., 1000000 microseconds */
	for (uint32_t v = 1; v <= 1000000; v++)
		qwb_hist_add_us(&h, v);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		double want = ceil(ps[i] / 100.0 * 1e6);
		double got = qwb_hist_percentile_us(&h, ps[i]);

		if (fabs(got - want) > want / 128.0)
			fail_msg("p%g: %g, want %g", ps[i], got, want);
	}
	assert_true(fabs(qwb_hist_mean_us(&h) - 500000.5) < 1e-6);
}

static void test_merge(void **state)
{
	static struct qwb_hist a, b, all;

	(void)state;
	qwb_hist_clear(&a);
	qwb_hist_clear(&b);
	qwb_hist_clear(&all);
	for (uint32_t v = 0; v < 50000; v += 7) {
		qwb_hist_add_us(v % 3 ? &a : &b, v * 13);
		qwb_hist_add_us(&all, v * 13);
	}
	qwb_hist_merge(&a, &b);
	assert_memory_equal(&a, &all, sizeof(a));
	/* merging an empty one changes nothing, into an empty one copies */
	qwb_hist_clear(&b);
	qwb_hist_merge(&a, &b);
	assert_memory_equal(&a, &all, sizeof(a));
	qwb_hist_merge(&b, &all);
	assert_memory_equal(&b, &all, sizeof(b));
}

static void fill_bot(struct qwb_bot_stats *s, int id, uint64_t req, uint64_t rep,
		     uint32_t rt_us)
{
	memset(s, 0, sizeof(*s));
	s->id = id;
	snprintf(s->name, sizeof(s->name), "bot%04d", id);
	s->state = "active";
	s->reached = true;
	s->join_s = 0.1 * (id + 1);
	s->requests = req;
	s->replies = rep;
	s->bytes_out = req * 40;
	s->bytes_in = rep * 500;
	s->players_sum = rep * 3;
	s->players_max = 4;
	s->actions_file = -1;
	for (uint64_t i = 0; i < rep; i++)
		qwb_hist_add_us(&s->rt, rt_us);
}

static void test_totals(void **state)
{
	static struct qwb_bot_stats b[3];
	static struct qwb_totals t;

	(void)state;
	fill_bot(&b[0], 0, 300, 300, 1000);
	fill_bot(&b[1], 1, 300, 270, 3000);
	fill_bot(&b[2], 2, 0, 0, 0);
	b[2].reached = false;
	b[2].state = "connected";
	b[1].bad[QWC_BAD_SVC] = 2;
	b[1].bad[QWB_BAD_OVERSIZED] = 1;
	qwb_totals_compute(b, 3, 10.0, &t);
	assert_int_equal(t.bots, 3);
	assert_int_equal(t.reached, 2);
	assert_int_equal(t.in_game, 2);
	assert_int_equal(t.requests, 600);
	assert_int_equal(t.replies, 570);
	assert_true(fabs(t.requests_per_s - 60.0) < 1e-9);
	assert_true(fabs(t.replies_per_s - 57.0) < 1e-9);
	assert_true(fabs(t.response_rate - 0.95) < 1e-9);
	assert_true(fabs(t.bytes_in_per_s - 570 * 500 / 10.0) < 1e-9);
	assert_true(fabs(t.players_per_reply - 3.0) < 1e-9);
	assert_int_equal(t.bad[QWC_BAD_SVC], 2);
	assert_int_equal(t.bad_total, 3);
	assert_true(fabs(t.join_mean_s - 0.15) < 1e-9);
	assert_true(fabs(t.join_max_s - 0.2) < 1e-9);
	/* the total p50 is over all 570 samples: 300 of 1 ms, 270 of 3 ms */
	assert_int_equal(t.rt.count, 570);
	assert_true(fabs(qwb_hist_percentile_us(&t.rt, 50) - 1000) <= 1000 / 128.0);
	assert_true(fabs(qwb_hist_percentile_us(&t.rt, 99) - 3000) <= 3000 / 128.0);
	/* an empty window: rates are 0, not NaN */
	qwb_totals_compute(b, 3, 0, &t);
	assert_true(t.requests_per_s == 0);
}

static void test_writers(void **state)
{
	static struct qwb_bot_stats b[2];
	static struct qwb_totals t;
	struct qwb_config cfg;
	struct qwb_report r;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	fill_bot(&b[0], 0, 30, 29, 500);
	fill_bot(&b[1], 1, 30, 30, 700);
	strcpy(b[1].reason, "a \"quoted\"\nreason\\");
	qwb_totals_compute(b, 2, 1.0, &t);
	qwb_config_defaults(&cfg);
	memset(&r, 0, sizeof(r));
	r.cfg = &cfg;
	r.map = "lqdm1";
	r.started = "2024-01-01T00:00:00Z";
	r.server_cpu_s = -1;

	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(qwb_write_json(f, &r, b, 2, &t), 0);
	fclose(f);
	assert_non_null(strstr(text, "\"response_rate\": 0.983333"));
	assert_non_null(strstr(text, "\"bots_reached\": 2"));
	assert_non_null(strstr(text, "\"reason\": \"a \\\"quoted\\\"\\u000areason\\\\\""));
	assert_null(strstr(text, "nan"));
	assert_null(strstr(text, "inf"));
	free(text);

	text = NULL;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(qwb_write_csv(f, b, 2, &t), 0);
	fclose(f);
	assert_true(strncmp(text, "id,name,state,", 14) == 0);
	assert_non_null(strstr(text, "\n0,bot0000,active,1,"));
	assert_non_null(strstr(text, "\ntotal,,,2,"));
	free(text);
}

static void test_progress_line(void **state)
{
	static struct qwb_hist h;
	char line[256];

	(void)state;
	qwb_hist_clear(&h);
	qwb_hist_add_us(&h, 1500);
	qwb_progress_line(line, sizeof(line), 12.0, "measure", 16, 16, 480, 470, &h,
			  2.5e6, 40e3, 0);
	assert_non_null(strstr(line, "bots 16/16"));
	assert_non_null(strstr(line, "req 480/s"));
	assert_non_null(strstr(line, "(97.9%)"));
	assert_non_null(strstr(line, "2.5MB/s"));
	assert_null(strchr(line, '\n'));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_buckets),
	cmocka_unit_test(test_exact_small),
	cmocka_unit_test(test_precision),
	cmocka_unit_test(test_merge),
	cmocka_unit_test(test_totals),
	cmocka_unit_test(test_writers),
	cmocka_unit_test(test_progress_line),
};

QWD_TEST_GROUP(qwbots_metrics, tests, NULL, NULL)
