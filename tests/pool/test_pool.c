/*
 * test_pool.c -- the worker pool (src/pool): every item exactly once, on
 * the worker pool_split names (pool_run) or on any (pool_run_shared),
 * results per worker, many rounds, one thread inline, a stalled worker
 * not holding a shared run, the active workers of a run (only they take
 * items), timed runs (the workers' time in items), the CPU pinning and
 * the CPU lists; the predicted pool's
 * predictor and need (qwd -threads auto) fed synthetic needs.
 *
 * Design note: each item writes only its own cells (the count of runs,
 * the worker and thread that ran it) and each worker only its own sum,
 * so the test itself is free of races and runs under make tsan as is;
 * what it checks after pool_run is what the barrier must make visible.
 */
#include "../harness.h"

#include "qwd/pool.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_ITEMS = 4096 };

struct run {
	int count[MAX_ITEMS];
	int worker[MAX_ITEMS];
	pthread_t thread[MAX_ITEMS];
	int cpu[MAX_ITEMS];
	long long sum[POOL_MAX_THREADS];
	int order[MAX_ITEMS];		/* item indices in the order run (1 thread) */
	int ran;
};

static void note(void *ctx, int worker, int item)
{
	struct run *r = ctx;

	r->count[item]++;
	r->worker[item] = worker;
	r->thread[item] = pthread_self();
	r->cpu[item] = sched_getcpu();
	r->sum[worker] += item;
}

static void note_order(void *ctx, int worker, int item)
{
	struct run *r = ctx;

	note(ctx, worker, item);
	r->order[r->ran++] = item;
}

/* one run of n items on p, checked item by item against pool_split */
static void check_run(struct pool *p, struct run *r, int n)
{
	int threads = pool_active(p);
	long long total = 0;

	memset(r, 0, sizeof(*r));
	pool_run(p, note, r, n);
	for (int w = 0; w < threads; w++) {
		int begin, end;
		long long want = 0;

		pool_split(n, threads, w, &begin, &end);
		for (int i = begin; i < end; i++) {
			assert_int_equal(r->count[i], 1);
			assert_int_equal(r->worker[i], w);
			want += i;
		}
		assert_true(r->sum[w] == want);
		total += r->sum[w];
	}
	assert_true(total == (long long)n * (n - 1) / 2);
}

/* one shared run of n items in chunks: each item once, the per-worker
 * sums adding up to the whole */
static void check_shared(struct pool *p, struct run *r, int n, int chunk)
{
	long long total = 0;

	memset(r, 0, sizeof(*r));
	pool_run_shared(p, note, r, n, chunk);
	for (int i = 0; i < n; i++) {
		assert_int_equal(r->count[i], 1);
		assert_true(r->worker[i] >= 0 && r->worker[i] < pool_active(p));
	}
	for (int w = 0; w < pool_threads(p); w++)
		total += r->sum[w];
	assert_true(total == (long long)n * (n - 1) / 2);
}

static void test_split_covers(void **state)
{
	(void)state;
	for (int threads = 1; threads <= 8; threads++)
		for (int n = 0; n <= 50; n++) {
			int next = 0;

			for (int w = 0; w < threads; w++) {
				int b, e;

				pool_split(n, threads, w, &b, &e);
				assert_int_equal(b, next);
				assert_true(e >= b);
				/* balanced: shares differ by one at most */
				assert_true(e - b <= n / threads + 1);
				assert_true(e - b >= n / threads);
				next = e;
			}
			assert_int_equal(next, n);
		}
}

/* a pool of threads and a run record for one test; done() frees both */
struct bench {
	struct pool *p;
	struct run *r;
};

static struct bench make(int threads)
{
	char err[128];
	struct bench b = {pool_create(threads, NULL, 0, err, sizeof(err)),
			  malloc(sizeof(struct run))};

	assert_non_null(b.p);
	assert_non_null(b.r);
	assert_int_equal(pool_threads(b.p), threads);
	return b;
}

static void done(struct bench b)
{
	pool_destroy(b.p);
	free(b.r);
}

static void test_each_item_once(void **state)
{
	struct bench b = make(3);

	(void)state;
	check_run(b.p, b.r, 1000);
	/* the workers beyond 0 are other threads than the caller's */
	for (int i = 0; i < 1000; i++)
		assert_int_equal(pthread_equal(b.r->thread[i], pthread_self()) != 0,
				 b.r->worker[i] == 0);
	done(b);
}

static void test_many_rounds(void **state)
{
	struct bench b = make(2);

	(void)state;
	/* sizes from none, fewer than the workers, to thousands */
	for (int round = 0; round < 2000; round++)
		check_run(b.p, b.r, (round * 37) % (round % 2 ? 9 : MAX_ITEMS));
	done(b);
}

static void test_shared_each_item_once(void **state)
{
	struct bench b = make(3);

	(void)state;
	for (int round = 0; round < 1000; round++)
		check_shared(b.p, b.r, (round * 53) % MAX_ITEMS, 1 + round % 17);
	done(b);
}

/* A worker stalled in its first item: the caller's thread goes on
 * taking items past its static half and lets the stalled one go only
 * once it has taken all it could (every item but those of the stalled
 * worker's chunk).  With the static split this would never end. */
struct stall {
	int n, chunk;
	atomic_int done0;	/* items worker 0 ran */
	atomic_bool release;
	int count[MAX_ITEMS];
};

static void stall_item(void *ctx, int worker, int item)
{
	struct stall *s = ctx;

	s->count[item]++;
	if (worker != 0) {
		while (!atomic_load(&s->release))
			sched_yield();
		return;
	}
	if (atomic_fetch_add(&s->done0, 1) + 1 >= s->n - s->chunk)
		atomic_store(&s->release, true);
}

static void test_shared_stalled_worker(void **state)
{
	struct stall *s = calloc(1, sizeof(*s));
	char err[128];
	struct pool *p = pool_create(2, NULL, 0, err, sizeof(err));

	(void)state;
	assert_non_null(s);
	assert_non_null(p);
	s->n = 400;
	s->chunk = 4;
	pool_run_shared(p, stall_item, s, s->n, s->chunk);
	assert_true(atomic_load(&s->done0) >= s->n - s->chunk);
	for (int i = 0; i < s->n; i++)
		assert_int_equal(s->count[i], 1);
	pool_destroy(p);
	free(s);
}

static void test_one_thread_inline(void **state)
{
	struct run *r = calloc(1, sizeof(*r));
	char err[128];
	struct pool *p = pool_create(1, NULL, 0, err, sizeof(err));

	(void)state;
	assert_non_null(r);
	assert_non_null(p);
	pool_run(p, note_order, r, 100);
	pool_run_shared(p, note_order, r, 100, 7);
	for (int i = 0; i < 200; i++) {
		int item = i % 100;

		assert_int_equal(r->order[i], item);	/* in order */
		assert_int_equal(r->worker[item], 0);
		assert_true(pthread_equal(r->thread[item], pthread_self()));
	}
	assert_int_equal(r->ran, 200);
	pool_destroy(p);
	free(r);
}

static void test_pinned(void **state)
{
	struct run *r = malloc(sizeof(*r));
	cpu_set_t saved;
	char err[128];
	int cpu = -1;

	(void)state;
	assert_non_null(r);
	assert_int_equal(sched_getaffinity(0, sizeof(saved), &saved), 0);
	for (int c = 0; c < CPU_SETSIZE && cpu < 0; c++)
		if (CPU_ISSET(c, &saved))
			cpu = c;
	assert_true(cpu >= 0);

	int cpus[1] = {cpu};
	struct pool *p = pool_create(2, cpus, 1, err, sizeof(err));

	assert_non_null(p);
	check_run(p, r, 64);
	for (int i = 0; i < 64; i++)
		assert_int_equal(r->cpu[i], cpu);
	pool_destroy(p);
	assert_int_equal(sched_setaffinity(0, sizeof(saved), &saved), 0);
	free(r);
}

static void test_refused(void **state)
{
	char err[128] = "";
	int bad[1] = {100000};

	(void)state;
	assert_null(pool_create(0, NULL, 0, err, sizeof(err)));
	assert_true(err[0] != '\0');
	err[0] = '\0';
	assert_null(pool_create(POOL_MAX_THREADS + 1, NULL, 0, err, sizeof(err)));
	assert_true(err[0] != '\0');
	err[0] = '\0';
	assert_null(pool_create(2, bad, 1, err, sizeof(err)));
	assert_true(err[0] != '\0');
}

static void test_parse_cpus(void **state)
{
	int c[8];

	(void)state;
	assert_int_equal(pool_parse_cpus("0,1", c, 8), 2);
	assert_int_equal(c[0], 0);
	assert_int_equal(c[1], 1);
	assert_int_equal(pool_parse_cpus("0-1", c, 8), 2);
	assert_int_equal(c[0], 0);
	assert_int_equal(c[1], 1);
	assert_int_equal(pool_parse_cpus("2-4,7", c, 8), 4);
	assert_int_equal(c[0], 2);
	assert_int_equal(c[2], 4);
	assert_int_equal(c[3], 7);
	assert_int_equal(pool_parse_cpus("5", c, 8), 1);
	assert_int_equal(c[0], 5);
	assert_int_equal(pool_parse_cpus("", c, 8), -1);
	assert_int_equal(pool_parse_cpus("a", c, 8), -1);
	assert_int_equal(pool_parse_cpus("1,", c, 8), -1);
	assert_int_equal(pool_parse_cpus("3-1", c, 8), -1);
	assert_int_equal(pool_parse_cpus("0-", c, 8), -1);
	assert_int_equal(pool_parse_cpus("1 ,2", c, 8), -1);
	assert_int_equal(pool_parse_cpus("99999", c, 8), -1);
	assert_int_equal(pool_parse_cpus("0-8", c, 8), -1);	/* nine */
	assert_int_equal(pool_parse_cpus("0-7", c, 8), 8);
}

/* Fewer workers active: the runs use only them, whatever the pool's
 * size; one active is the caller's thread inline; the setting is clamped
 * to 1 .. threads, and all of them work again once set back. */
static void test_active_workers(void **state)
{
	struct bench b = make(4);

	(void)state;
	for (int round = 0; round < 600; round++) {
		int active = 1 + round % 4;

		pool_set_active(b.p, active);
		assert_int_equal(pool_active(b.p), active);
		check_run(b.p, b.r, (round * 41) % MAX_ITEMS);
		check_shared(b.p, b.r, (round * 53) % MAX_ITEMS, 1 + round % 9);
		if (active == 1)
			for (int i = 0; i < (round * 53) % MAX_ITEMS; i++)
				assert_true(pthread_equal(b.r->thread[i], pthread_self()));
	}
	pool_set_active(b.p, 0);
	assert_int_equal(pool_active(b.p), 1);
	pool_set_active(b.p, 9);
	assert_int_equal(pool_active(b.p), 4);
	check_run(b.p, b.r, 1000);
	done(b);
}

/* an item that sleeps 1 ms */
static void nap(void *ctx, int worker, int item)
{
	struct timespec ms = {0, 1000000};

	(void)ctx;
	(void)worker;
	(void)item;
	nanosleep(&ms, NULL);
}

/* Timed runs: the workers' time in items adds up to at least the items'
 * own (eight naps of 1 ms: 8 ms whoever ran them, on any number of
 * workers), whether the run is static, shared or inline; untimed runs
 * add nothing, and a take zeroes the sums. */
static void test_busy_time(void **state)
{
	struct bench b = make(3);

	(void)state;
	pool_run(b.p, nap, NULL, 8);
	assert_true(pool_take_busy_ns(b.p) == 0);
	pool_set_timing(b.p, true);
	for (int active = 1; active <= 3; active++) {
		pool_set_active(b.p, active);
		pool_run(b.p, nap, NULL, 8);
		assert_true(pool_take_busy_ns(b.p) >= 8000000u);
		pool_run_shared(b.p, nap, NULL, 8, 1);
		assert_true(pool_take_busy_ns(b.p) >= 8000000u);
		assert_true(pool_take_busy_ns(b.p) == 0);
	}
	pool_set_timing(b.p, false);
	pool_run_shared(b.p, nap, NULL, 8, 1);
	assert_true(pool_take_busy_ns(b.p) == 0);
	done(b);
}

/* the thresholds of the tests: grow above 0.75 x size, shrink below
 * 0.5 x (size - 1) */
static struct pool_predictor predictor(int max, double alpha)
{
	struct pool_predictor pr;

	pool_predictor_init(&pr, max, alpha, 0.75, 0.5);
	assert_int_equal(pr.size, 1);
	assert_true(pr.gamma == 0);
	return pr;
}

/* a need rising past every size's threshold: one step more each period,
 * never past max */
static void test_predictor_rising(void **state)
{
	struct pool_predictor pr = predictor(4, 1.0);
	int want[] = {1, 2, 3, 4, 4, 4};

	(void)state;
	for (int i = 0; i < 6; i++)
		assert_int_equal(pool_predictor_step(&pr, 0.5 + i * 1.0), want[i]);
	assert_int_equal(pr.changes, 3);
	/* a need far above any pool: one step a period still, at most max */
	pr = predictor(3, 0.5);
	assert_int_equal(pool_predictor_step(&pr, 100), 2);
	assert_int_equal(pool_predictor_step(&pr, 100), 3);
	assert_int_equal(pool_predictor_step(&pr, 100), 3);
}

/* a steady need between the thresholds keeps the size */
static void test_predictor_steady(void **state)
{
	struct pool_predictor pr = predictor(8, 0.5);

	(void)state;
	for (int i = 0; i < 20; i++)
		pool_predictor_step(&pr, 2.0);
	/* Gamma near 2.0: 3 workers hold it (0.5 x 2 = 1 < 2 < 0.75 x 3) */
	assert_int_equal(pr.size, 3);
	for (int i = 0; i < 50; i++)
		assert_int_equal(pool_predictor_step(&pr, i % 2 ? 1.3 : 2.2), 3);
	assert_int_equal(pr.changes, 2);
}

/* a falling need shrinks step by step down to 1, never below */
static void test_predictor_falling(void **state)
{
	struct pool_predictor pr = predictor(4, 1.0);
	int want[] = {3, 2, 1, 1};

	(void)state;
	for (int i = 0; i < 4; i++)
		pool_predictor_step(&pr, 10);
	assert_int_equal(pr.size, 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pool_predictor_step(&pr, 0), want[i]);
	/* what no need can be counts as none */
	assert_int_equal(pool_predictor_step(&pr, -3), 1);
	assert_int_equal(pool_predictor_step(&pr, 0.0 / 0.0), 1);
	assert_true(pr.gamma == 0);
}

/* one period's spike is smoothed by alpha: with 0.5 it does not reach
 * the threshold that the same need, unsmoothed, passes */
static void test_predictor_spike(void **state)
{
	struct pool_predictor smooth = predictor(4, 0.5), raw = predictor(4, 1.0);

	(void)state;
	for (int i = 0; i < 10; i++) {
		pool_predictor_step(&smooth, 0.2);
		pool_predictor_step(&raw, 0.2);
	}
	/* Gamma = 0.5 x 1.2 + 0.5 x 0.2 = 0.7, below 0.75 */
	assert_int_equal(pool_predictor_step(&smooth, 1.2), 1);
	assert_true(smooth.gamma > 0.69 && smooth.gamma < 0.71);
	assert_int_equal(pool_predictor_step(&raw, 1.2), 2);
	/* the spike over, the prediction decays by half each period */
	pool_predictor_step(&smooth, 0.2);
	assert_true(smooth.gamma > 0.44 && smooth.gamma < 0.46);
	assert_int_equal(smooth.changes, 0);
	/* low above high is taken as high: no size both grows and shrinks */
	struct pool_predictor odd = predictor(4, 1.0);

	odd.low = 2.0;
	assert_int_equal(pool_predictor_step(&odd, 0.8), 2);
	assert_int_equal(pool_predictor_step(&odd, 0.8), 2);
}

/* the need: parallel work over the time the sequential part left */
static void test_need(void **state)
{
	(void)state;
	assert_true(pool_need(0.4, 0, 0) == 0);
	assert_true(pool_need(0, 0.1, 0.1) == 0);
	/* 0.2 s of work, 0.4 s of wall, nothing else: half a worker */
	assert_true(pool_need(0.4, 0, 0.2) == 0.5);
	/* the same with 0.3 s sequential: it had 0.1 s, two workers */
	assert_true(fabs(pool_need(0.4, 0.3, 0.2) - 2.0) < 1e-9);
	/* the sequential part left nothing: counted as 1/20 of the period */
	assert_true(fabs(pool_need(0.4, 0.5, 0.02) - 1.0) < 1e-9);
	assert_true(pool_need(0.4, 0.4, 100) == POOL_MAX_THREADS);
}

static const struct CMUnitTest pool_tests[] = {
	cmocka_unit_test(test_split_covers),
	cmocka_unit_test(test_each_item_once),
	cmocka_unit_test(test_many_rounds),
	cmocka_unit_test(test_shared_each_item_once),
	cmocka_unit_test(test_shared_stalled_worker),
	cmocka_unit_test(test_one_thread_inline),
	cmocka_unit_test(test_pinned),
	cmocka_unit_test(test_refused),
	cmocka_unit_test(test_parse_cpus),
	cmocka_unit_test(test_active_workers),
	cmocka_unit_test(test_busy_time),
	cmocka_unit_test(test_predictor_rising),
	cmocka_unit_test(test_predictor_steady),
	cmocka_unit_test(test_predictor_falling),
	cmocka_unit_test(test_predictor_spike),
	cmocka_unit_test(test_need),
};
QWD_TEST_GROUP(pool, pool_tests, NULL, NULL);
