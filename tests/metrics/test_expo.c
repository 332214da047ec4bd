/*
 * test_expo.c -- the Prometheus text writer (src/metrics/expo.c).
 *
 * Design note: the lines are compared whole against what the format
 * (text format 0.0.4) says they must be, so a missing escape, a bucket
 * that is not cumulative or a +Inf bucket that disagrees with _count
 * fails here.  A page with every kind of family is also handed to
 * Prometheus' own checker, promtool (Debian's prometheus package), when it
 * is installed: the format's authority, not our reading of it.
 */
#include "../harness.h"

#include <qwd/metrics.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[8192];

static void test_counter_gauge(void **state)
{
	struct metrics_page p;

	(void)state;
	metrics_page_init(&p, buf, sizeof(buf));
	metrics_counter(&p, "qwd_x_total", "Things.\nMore \\ text.", 42);
	metrics_gauge(&p, "qwd_y", "A level.", 0.5);
	metrics_gauge(&p, "qwd_z", "Whole.", 3);
	assert_false(p.truncated);
	assert_string_equal(buf,
		"# HELP qwd_x_total Things.\\nMore \\\\ text.\n"
		"# TYPE qwd_x_total counter\n"
		"qwd_x_total 42\n"
		"# HELP qwd_y A level.\n"
		"# TYPE qwd_y gauge\n"
		"qwd_y 0.5\n"
		"# HELP qwd_z Whole.\n"
		"# TYPE qwd_z gauge\n"
		"qwd_z 3\n");
	assert_int_equal(p.len, strlen(buf));
}

static void test_labels_escaped(void **state)
{
	struct metrics_page p;
	struct metrics_label l[2] = {{"reason", "a\\b\"c\nd"},
				     {"name", "\x01\xe9x\x7f"}};

	(void)state;
	metrics_page_init(&p, buf, sizeof(buf));
	metrics_sample_u64(&p, "qwd_drops_total", l, 2, 7);
	metrics_sample(&p, "qwd_v", l, 1, 1.0 / 0.0);
	metrics_sample(&p, "qwd_v", NULL, 0, 0.0 / 0.0);
	assert_string_equal(buf,
		"qwd_drops_total{reason=\"a\\\\b\\\"c\\nd\",name=\"??x?\"} 7\n"
		"qwd_v{reason=\"a\\\\b\\\"c\\nd\"} +Inf\n"
		"qwd_v NaN\n");
}

static void test_escape_bounds(void **state)
{
	char out[6];

	(void)state;
	/* the length it wanted, and a terminated prefix */
	assert_int_equal(metrics_escape_label("ab\"\"", 4, out, sizeof(out)), 6);
	assert_string_equal(out, "ab\\\"\\");
	assert_int_equal(metrics_escape_label("", 0, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	assert_int_equal(metrics_escape_label("abc", 3, NULL, 0), 3);
}

static void test_histogram(void **state)
{
	static struct qwd_hist h;
	static const uint64_t le[] = {1000, 1000000, 1000000000};
	struct metrics_label l = {"phase", "world"};
	struct metrics_page p;

	(void)state;
	qwd_hist_clear(&h);
	qwd_hist_add(&h, 500);		/* 0.5 us */
	qwd_hist_add(&h, 2000);		/* 2 us */
	qwd_hist_add(&h, 3000000);	/* 3 ms */
	qwd_hist_add(&h, 30000000000ull);	/* 30 s: +Inf only */
	metrics_page_init(&p, buf, sizeof(buf));
	metrics_histogram(&p, "qwd_t_seconds", &l, 1, &h, le, 3, 1e-9);
	assert_string_equal(buf,
		"qwd_t_seconds_bucket{phase=\"world\",le=\"1e-06\"} 1\n"
		"qwd_t_seconds_bucket{phase=\"world\",le=\"0.001\"} 2\n"
		"qwd_t_seconds_bucket{phase=\"world\",le=\"1\"} 3\n"
		"qwd_t_seconds_bucket{phase=\"world\",le=\"+Inf\"} 4\n"
		"qwd_t_seconds_sum{phase=\"world\"} 30.0030025\n"
		"qwd_t_seconds_count{phase=\"world\"} 4\n");
	metrics_page_init(&p, buf, sizeof(buf));
	metrics_histogram(&p, "qwd_b_bytes", NULL, 0, &h, le, 1, 1.0);
	assert_non_null(strstr(buf, "qwd_b_bytes_bucket{le=\"1000\"} 1\n"));
	assert_non_null(strstr(buf, "qwd_b_bytes_bucket{le=\"+Inf\"} 4\n"));
}

/* a page that does not fit ends on its last whole line and says so */
static void test_truncated(void **state)
{
	char small[40];
	struct metrics_page p;

	(void)state;
	metrics_page_init(&p, small, sizeof(small));
	metrics_sample_u64(&p, "qwd_a", NULL, 0, 1);
	metrics_sample_u64(&p, "qwd_b", NULL, 0, 2);
	metrics_sample_u64(&p, "qwd_long_name_that_does_not_fit", NULL, 0, 3);
	metrics_sample_u64(&p, "qwd_c", NULL, 0, 4);	/* fits, but after */
	assert_true(p.truncated);
	assert_string_equal(small, "qwd_a 1\nqwd_b 2\n");
	assert_int_equal(p.len, 16);
	/* a label value that runs past the end: the page still ends there */
	metrics_page_init(&p, small, sizeof(small));
	metrics_sample_u64(&p, "qwd_a", NULL, 0, 1);
	metrics_sample_u64(&p, "qwd_b", &(struct metrics_label){"v",
			   "a long value past the end"}, 1, 2);
	assert_true(p.truncated);
	assert_string_equal(small, "qwd_a 1\n");
}

/* a page with every kind of family, as the server writes them */
static size_t sample_page(char *out, size_t size)
{
	static struct qwd_hist h;
	static const uint64_t le[] = {100000, 1000000, 10000000};
	struct metrics_label a = {"phase", "world"}, b = {"phase", "idle"};
	struct metrics_label r[2] = {{"reason", "bad \"packet\"\n"},
				     {"defence", "x\\y"}};
	struct metrics_page p;

	qwd_hist_clear(&h);
	for (uint64_t v = 1000; v < 50000000; v = v * 3 / 2)
		qwd_hist_add(&h, v);
	metrics_page_init(&p, out, size);
	metrics_gauge(&p, "qwd_players", "Players connected.", 3);
	metrics_counter(&p, "qwd_requests_total", "Requests.", 12345);
	metrics_family(&p, "qwd_drops_total", METRICS_COUNTER, "Drops.");
	metrics_sample_u64(&p, "qwd_drops_total", r, 2, 9);
	metrics_family(&p, "qwd_frame_seconds", METRICS_HISTOGRAM, "Frames.");
	metrics_histogram(&p, "qwd_frame_seconds", &a, 1, &h, le, 3, 1e-9);
	metrics_histogram(&p, "qwd_frame_seconds", &b, 1, &h, le, 3, 1e-9);
	assert_false(p.truncated);
	return p.len;
}

static void test_promtool(void **state)
{
	char path[] = "/tmp/qwd-metrics-XXXXXX", cmd[256], out[512];
	size_t len, got;
	FILE *f, *pipe;
	int fd, rc;

	(void)state;
	if (system("command -v promtool >/dev/null 2>&1") != 0)
		qwd_skip("promtool not installed (Debian's prometheus package; "
			 "scripts/deps.sh interop)");
	len = sample_page(buf, sizeof(buf));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s 2>&1", path);
	pipe = popen(cmd, "r");
	assert_non_null(pipe);
	got = fread(out, 1, sizeof(out) - 1, pipe);
	out[got] = '\0';
	rc = pclose(pipe);
	unlink(path);
	if (rc != 0 || got != 0)
		fail_msg("promtool check metrics (exit %d): %s\npage:\n%s", rc,
			 out, buf);
}

static const struct CMUnitTest expo_tests[] = {
	cmocka_unit_test(test_counter_gauge),
	cmocka_unit_test(test_labels_escaped),
	cmocka_unit_test(test_escape_bounds),
	cmocka_unit_test(test_histogram),
	cmocka_unit_test(test_truncated),
	cmocka_unit_test(test_promtool),
};

QWD_TEST_GROUP(metrics_expo, expo_tests, NULL, NULL)
