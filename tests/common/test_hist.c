/*
 * test_hist.c -- the log-linear histogram.
 *
 * Design note: percentiles are checked against the exact answer from a
 * sorted copy of the same values (rank ceil(q * n)), for distributions
 * that stress different bucket ranges: log-uniform over 1 us .. 10 s (the
 * request-time range), a narrow cluster, a bimodal mix and small integers
 * (requests per frame, exact buckets).  The promise is 1/128 relative
 * error (half a bucket) plus one for integer rounding, and that is what
 * the tests allow: a scheme with half as many sub-buckets, or one that
 * reports a bucket's edge instead of its middle, fails them.
 */
#include "../harness.h"

#include <qwd/common.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct qwd_hist hist, hist2, hist3;

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static double rng_unit(void)
{
	return (double)(rng() >> 11) / 9007199254740992.0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t exact_quantile(const uint64_t *sorted, size_t n, double q)
{
	double r = q * (double)n;
	size_t rank = (size_t)r;

	if ((double)rank < r)
		rank++;
	if (rank == 0)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

static void check_against_sorted(uint64_t *v, size_t n)
{
	static const double qs[] = {0.0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75,
				    0.9, 0.99, 0.999, 1.0};

	qwd_hist_clear(&hist);
	for (size_t i = 0; i < n; i++)
		qwd_hist_add(&hist, v[i]);
	qsort(v, n, sizeof(*v), cmp_u64);
	assert_int_equal(hist.count, n);
	assert_int_equal(hist.min, v[0]);
	assert_int_equal(hist.max, v[n - 1]);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint64_t want = exact_quantile(v, n, qs[i]);
		uint64_t got = qwd_hist_quantile(&hist, qs[i]);
		uint64_t err = got > want ? got - want : want - got;

		if (err > want / 128 + 1)
			fail_msg("q %.3f: got %llu, exact %llu", qs[i],
				 (unsigned long long)got, (unsigned long long)want);
	}
}

static void test_log_uniform_times(void **state)
{
	enum { N = 50000 };
	uint64_t *v = malloc(N * sizeof(*v));

	(void)state;
	assert_non_null(v);
	/* 1 us .. 10 s, log-uniform */
	for (size_t i = 0; i < N; i++)
		v[i] = (uint64_t)(1e3 * pow(1e7, rng_unit()));
	check_against_sorted(v, N);
	free(v);
}

static void test_cluster_and_bimodal(void **state)
{
	enum { N = 20000 };
	uint64_t *v = malloc(N * sizeof(*v));

	(void)state;
	assert_non_null(v);
	for (size_t i = 0; i < N; i++)
		v[i] = 250000 + rng() % 5000;	/* 250..255 us */
	check_against_sorted(v, N);
	for (size_t i = 0; i < N; i++)
		v[i] = (i % 100 < 97) ? 80000 + rng() % 40000	/* 80..120 us */
				      : 3000000 + rng() % 7000000; /* 3..10 ms */
	check_against_sorted(v, N);
	free(v);
}

static void test_small_values_exact(void **state)
{
	uint64_t v[1000];

	(void)state;
	for (size_t i = 0; i < 1000; i++)
		v[i] = rng() % 64;
	qwd_hist_clear(&hist);
	for (size_t i = 0; i < 1000; i++)
		qwd_hist_add(&hist, v[i]);
	qsort(v, 1000, sizeof(*v), cmp_u64);
	/* below 64 every value has its own bucket: quantiles are exact */
	for (double q = 0.05; q < 1.0; q += 0.05)
		assert_int_equal(qwd_hist_quantile(&hist, q), exact_quantile(v, 1000, q));
}

static void test_single_value_and_empty(void **state)
{
	struct qwd_hist_summary s;

	(void)state;
	qwd_hist_clear(&hist);
	qwd_hist_summarize(&hist, &s);
	assert_int_equal(s.count, 0);
	assert_int_equal(s.p50, 0);
	assert_int_equal(s.p99, 0);
	assert_int_equal(s.max, 0);
	assert_true(s.mean == 0.0);
	assert_int_equal(qwd_hist_quantile(&hist, 0.5), 0);

	/* one value: every quantile is that value, not its bucket's middle */
	qwd_hist_add(&hist, 123456789);
	qwd_hist_summarize(&hist, &s);
	assert_int_equal(s.count, 1);
	assert_int_equal(s.p50, 123456789);
	assert_int_equal(s.p99, 123456789);
	assert_int_equal(s.max, 123456789);
	assert_true(fabs(s.mean - 123456789.0) < 1e-6);
	/* out-of-range q is clamped */
	assert_int_equal(qwd_hist_quantile(&hist, -1.0), 123456789);
	assert_int_equal(qwd_hist_quantile(&hist, 7.0), 123456789);
	assert_int_equal(qwd_hist_quantile(&hist, NAN), 123456789);
}

static void test_overflow_bucket(void **state)
{
	(void)state;
	qwd_hist_clear(&hist);
	for (int i = 0; i < 98; i++)
		qwd_hist_add(&hist, 1000);
	qwd_hist_add(&hist, (uint64_t)1 << 40);	/* beyond the top */
	qwd_hist_add(&hist, UINT64_MAX / 4);
	assert_int_equal(hist.count, 100);
	assert_int_equal(hist.max, UINT64_MAX / 4);
	assert_int_equal(qwd_hist_quantile(&hist, 1.0), UINT64_MAX / 4);
	assert_in_range(qwd_hist_quantile(&hist, 0.5), 1000 - 1000 / 64, 1000 + 1000 / 64);
	/* rank 99 is in the overflow bucket: reported as the max seen, a
	 * value that was recorded, never a made-up middle */
	assert_int_equal(qwd_hist_quantile(&hist, 0.99), UINT64_MAX / 4);
}

static void test_merge(void **state)
{
	(void)state;
	qwd_hist_clear(&hist);
	qwd_hist_clear(&hist2);
	qwd_hist_clear(&hist3);
	for (int i = 0; i < 5000; i++) {
		uint64_t a = rng() % 10000000, b = rng() % 1000;

		qwd_hist_add(&hist, a);
		qwd_hist_add(&hist2, b);
		qwd_hist_add(&hist3, a);
		qwd_hist_add(&hist3, b);
	}
	qwd_hist_merge(&hist, &hist2);
	assert_memory_equal(&hist, &hist3, sizeof(hist));
	/* merging an empty one changes nothing, min included */
	qwd_hist_clear(&hist2);
	qwd_hist_merge(&hist, &hist2);
	assert_memory_equal(&hist, &hist3, sizeof(hist));
}

static void test_mean_and_summary(void **state)
{
	struct qwd_hist_summary s;

	(void)state;
	qwd_hist_clear(&hist);
	for (uint64_t v = 1; v <= 100; v++)
		qwd_hist_add(&hist, v * 1000);
	qwd_hist_summarize(&hist, &s);
	assert_int_equal(s.count, 100);
	assert_true(fabs(s.mean - 50500.0) < 1e-9);
	assert_true(s.p50 >= 50000 - 50000 / 64 && s.p50 <= 50000 + 50000 / 64);
	assert_true(s.p99 >= 99000 - 99000 / 64 && s.p99 <= 99000 + 99000 / 64);
	assert_int_equal(s.max, 100000);
}

/* times in seconds go in as rounded nanoseconds; a clock that stepped
 * back (negative) or NaN counts as 0, a huge time as the top bucket */
static void test_seconds(void **state)
{
	(void)state;
	qwd_hist_clear(&hist);
	qwd_hist_add_s(&hist, 0.0123456789);
	assert_int_equal(hist.max, 12345679);
	qwd_hist_add_s(&hist, -1.0);
	qwd_hist_add_s(&hist, NAN);
	assert_int_equal(hist.min, 0);
	assert_int_equal(hist.count, 3);
	qwd_hist_add_s(&hist, 1e30);
	assert_true(hist.max > (uint64_t)1 << 63);
	assert_int_equal(hist.bucket[QWD_HIST_BUCKETS - 1], 1);
}

/* the cumulative count at a bound: exact at bucket edges, never counting a
 * value above the bound, short by at most one straddling bucket */
static void test_count_le(void **state)
{
	static const uint64_t v[] = {0, 5, 63, 64, 100, 1000, 1023, 1024,
				     999999, 1000000, 1ull << 40};
	uint64_t exact;

	(void)state;
	qwd_hist_clear(&hist);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		qwd_hist_add(&hist, v[i]);
	assert_int_equal(qwd_hist_count_le(&hist, 0), 1);
	assert_int_equal(qwd_hist_count_le(&hist, 63), 3);
	assert_int_equal(qwd_hist_count_le(&hist, 64), 4);
	assert_int_equal(qwd_hist_count_le(&hist, 1023), 7);	/* 1023 + 1: an edge */
	assert_int_equal(qwd_hist_count_le(&hist, UINT64_MAX), 10); /* top: +Inf only */
	for (uint64_t b = 1; b < 2000000; b = b * 3 + 1) {
		exact = 0;
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			exact += v[i] <= b;
		assert_true(qwd_hist_count_le(&hist, b) <= exact);
		assert_true(qwd_hist_count_le(&hist, b + b / 64 + 1) >= exact);
	}
}

static const struct CMUnitTest hist_tests[] = {
	cmocka_unit_test(test_log_uniform_times),
	cmocka_unit_test(test_cluster_and_bimodal),
	cmocka_unit_test(test_small_values_exact),
	cmocka_unit_test(test_single_value_and_empty),
	cmocka_unit_test(test_overflow_bucket),
	cmocka_unit_test(test_merge),
	cmocka_unit_test(test_mean_and_summary),
	cmocka_unit_test(test_seconds),
	cmocka_unit_test(test_count_le),
};

QWD_TEST_GROUP(prof_hist, hist_tests, NULL, NULL)
