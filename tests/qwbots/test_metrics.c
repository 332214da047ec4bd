/*
 * test_metrics.c -- totals over the bots and the JSON / CSV writers.
 *
 * Design note: totals are checked on hand-made bot figures whose rates
 * are known.  The histogram itself is the project's (tests/common/
 * test_hist.c); here the point is that qwbots reports its figures, so
 * the JSON's p50 and p99 are qwd_hist_quantile's of the same samples,
 * in milliseconds.
 */
#include "../harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/qwbots/qwbots.h"

static void fill_bot(struct qwb_bot_stats *s, int id, uint64_t req, uint64_t rep,
		     uint32_t rt_us)
{
	memset(s, 0, sizeof(*s));
	qwd_hist_clear(&s->rt);
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
		qwd_hist_add(&s->rt, (uint64_t)rt_us * 1000);
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
	assert_true(fabs((double)qwd_hist_quantile(&t.rt, 0.50) - 1e6) <= 1e6 / 128.0);
	assert_true(fabs((double)qwd_hist_quantile(&t.rt, 0.99) - 3e6) <= 3e6 / 128.0);
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
	char *text = NULL, want[64];
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
	/* the figures are the histogram's, in milliseconds */
	snprintf(want, sizeof(want), "\"p99\": %.6g, \"max\": 0.7}",
		 (double)qwd_hist_quantile(&t.rt, 0.99) / 1e6);
	assert_non_null(strstr(text, want));
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
	static struct qwd_hist h;
	char line[256];

	(void)state;
	qwd_hist_clear(&h);
	qwd_hist_add(&h, 1500000);
	qwb_progress_line(line, sizeof(line), 12.0, "measure", 16, 16, 480, 470, &h,
			  2.5e6, 40e3, 0);
	assert_non_null(strstr(line, "bots 16/16"));
	assert_non_null(strstr(line, "req 480/s"));
	assert_non_null(strstr(line, "(97.9%)"));
	assert_non_null(strstr(line, "2.5MB/s"));
	assert_null(strchr(line, '\n'));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_totals),
	cmocka_unit_test(test_writers),
	cmocka_unit_test(test_progress_line),
};

QWD_TEST_GROUP(qwbots_metrics, tests, NULL, NULL)
