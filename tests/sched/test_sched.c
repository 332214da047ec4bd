/*
 * test_sched.c -- union-find and LPT (qwd/sched.h).
 *
 * Design note: components are checked on graphs whose answer is known by
 * construction (a chain, two stars, isolated nodes, a cycle) and, on
 * random graphs, against a plain flood fill of the same edges; path
 * compression is checked to leave every node's set as it was and to
 * shorten the paths.  LPT is checked on known answers (7 6 5 4 3 2 on 2
 * and 3 workers, worked by hand below) and, on small random cases,
 * against a brute-force optimum: never above Graham's 4/3 - 1/(3W)
 * times it, never below it, and each load the sum of its jobs.
 */
#include "../harness.h"

#include <qwd/common.h>
#include <qwd/sched.h>

#include <string.h>

enum { N = 64 };

static int parent[N], size[N];

static void test_uf_chain_and_stars(void **state)
{
	struct sched_uf u;

	(void)state;
	sched_uf_init(&u, parent, size, N);
	/* chain 0-1-2-3-4, stars around 10 (11..15) and 20 (21..23), the
	 * rest alone */
	for (int i = 0; i < 4; i++)
		sched_uf_union(&u, i, i + 1);
	for (int i = 11; i <= 15; i++)
		sched_uf_union(&u, 10, i);
	for (int i = 21; i <= 23; i++)
		sched_uf_union(&u, i, 20);
	for (int i = 1; i <= 4; i++)
		assert_int_equal(sched_uf_find(&u, i), sched_uf_find(&u, 0));
	for (int i = 11; i <= 15; i++)
		assert_int_equal(sched_uf_find(&u, i), sched_uf_find(&u, 10));
	assert_int_not_equal(sched_uf_find(&u, 0), sched_uf_find(&u, 10));
	assert_int_not_equal(sched_uf_find(&u, 10), sched_uf_find(&u, 20));
	assert_int_equal(size[sched_uf_find(&u, 0)], 5);
	assert_int_equal(size[sched_uf_find(&u, 10)], 6);
	assert_int_equal(size[sched_uf_find(&u, 20)], 4);
	assert_int_equal(sched_uf_find(&u, 30), 30);
	assert_int_equal(size[30], 1);
	/* joining two sets through any of their members: one set of 11 */
	sched_uf_union(&u, 4, 13);
	assert_int_equal(sched_uf_find(&u, 0), sched_uf_find(&u, 15));
	assert_int_equal(size[sched_uf_find(&u, 2)], 11);
	/* a union within a set changes nothing */
	assert_int_equal(sched_uf_union(&u, 1, 12), sched_uf_find(&u, 0));
	assert_int_equal(size[sched_uf_find(&u, 2)], 11);
	sched_uf_reset(&u);
	for (int i = 0; i < N; i++) {
		assert_int_equal(sched_uf_find(&u, i), i);
		assert_int_equal(size[i], 1);
	}
}

/* the depth of x: links followed to its root, without compressing */
static int depth(int x)
{
	int d = 0;

	while (parent[x] != x) {
		x = parent[x];
		d++;
	}
	return d;
}

static void test_uf_path_compression(void **state)
{
	struct sched_uf u;
	int root_before[N];

	(void)state;
	sched_uf_init(&u, parent, size, N);
	/* a long path built by hand (as union by size never builds one):
	 * i -> i+1 for 0..39, two sets beside it */
	for (int i = 0; i < 39; i++)
		parent[i] = i + 1;
	size[39] = 40;
	sched_uf_union(&u, 40, 41);
	sched_uf_union(&u, 42, 43);
	for (int i = 0; i < N; i++) {
		int r = i;

		while (parent[r] != r)
			r = parent[r];
		root_before[i] = r;
	}
	assert_int_equal(depth(0), 39);
	assert_int_equal(sched_uf_find(&u, 0), 39);
	/* halving: the path from 0 is at most half as long now */
	assert_true(depth(0) <= 20);
	for (int i = 0; i < N; i++)
		assert_int_equal(sched_uf_find(&u, i), root_before[i]);
	/* a find of every node leaves the 40-node path at most two deep */
	for (int i = 0; i < N; i++)
		assert_true(depth(i) <= 2);
}

/* random graphs against a flood fill of the same edges */
static void test_uf_random_vs_flood(void **state)
{
	uint64_t rng = 7;
	int ea[N], eb[N], label[N], stack[N];

	(void)state;
	for (int round = 0; round < 200; round++) {
		struct sched_uf u;
		int edges = (int)qwd_rng_below(&rng, N);

		sched_uf_init(&u, parent, size, N);
		for (int e = 0; e < edges; e++) {
			ea[e] = (int)qwd_rng_below(&rng, N);
			eb[e] = (int)qwd_rng_below(&rng, N);
			sched_uf_union(&u, ea[e], eb[e]);
		}
		memset(label, -1, sizeof(label));
		for (int s = 0; s < N; s++) {
			int top = 0, count = 0;

			if (label[s] >= 0)
				continue;
			label[s] = s;
			stack[top++] = s;
			while (top > 0) {
				int x = stack[--top];

				count++;
				for (int e = 0; e < edges; e++) {
					int y = ea[e] == x ? eb[e] : eb[e] == x ? ea[e] : -1;

					if (y >= 0 && label[y] < 0) {
						label[y] = s;
						stack[top++] = y;
					}
				}
			}
			assert_int_equal(size[sched_uf_find(&u, s)], count);
		}
		for (int a = 0; a < N; a++)
			for (int b = a + 1; b < N; b++)
				assert_int_equal(label[a] == label[b],
						 sched_uf_find(&u, a) == sched_uf_find(&u, b));
	}
}

static void test_lpt_known(void **state)
{
	static const uint64_t w[] = { 7, 6, 5, 4, 3, 2 };
	int order[6], jw[6];
	uint64_t load[4];	/* the most workers given a load array below */

	(void)state;
	/* 2 workers: 7->A, 6->B, 5->B(11), 4->A(11), 3->A(14), 2->B(13) */
	assert_int_equal(sched_lpt(w, 6, 2, order, jw, load), 14);
	assert_int_equal(load[0], 14);
	assert_int_equal(load[1], 13);
	assert_int_equal(jw[0], 0);
	assert_int_equal(jw[1], 1);
	assert_int_equal(jw[2], 1);
	assert_int_equal(jw[3], 0);
	assert_int_equal(jw[4], 0);
	assert_int_equal(jw[5], 1);
	/* 3 workers: 7, 6, 5 alone, 4->C(9), 3->B(9), 2->A(9) */
	assert_int_equal(sched_lpt(w, 6, 3, order, jw, load), 9);
	for (int k = 0; k < 3; k++)
		assert_int_equal(load[k], 9);
	/* the order is heaviest first whatever the input order */
	{
		static const uint64_t v[] = { 2, 7, 3, 7, 5 };
		int o[5];

		assert_int_equal(sched_lpt(v, 5, 1, o, NULL, NULL), 24);
		assert_int_equal(o[0], 1);
		assert_int_equal(o[1], 3);
		assert_int_equal(o[2], 4);
		assert_int_equal(o[3], 2);
		assert_int_equal(o[4], 0);
	}
	/* no jobs: nothing to wait for; more workers than jobs: the largest */
	assert_int_equal(sched_lpt(w, 0, 4, order, jw, load), 0);
	assert_int_equal(sched_lpt(w, 2, 16, order, NULL, NULL), 7);
}

/* the optimum makespan by trying every assignment */
static uint64_t brute_optimum(const uint64_t *w, int n, int workers)
{
	int assign[8] = { 0 };
	uint64_t best = UINT64_MAX;

	for (;;) {
		uint64_t l[4] = { 0 }, m = 0;
		int i;

		for (i = 0; i < n; i++)
			l[assign[i]] += w[i];
		for (i = 0; i < workers; i++)
			if (l[i] > m)
				m = l[i];
		if (m < best)
			best = m;
		for (i = 0; i < n && ++assign[i] == workers; i++)
			assign[i] = 0;
		if (i == n)
			return best;
	}
}

static void test_lpt_bound(void **state)
{
	uint64_t rng = 11;

	(void)state;
	for (int round = 0; round < 400; round++) {
		int n = 1 + (int)qwd_rng_below(&rng, 8);
		int workers = 2 + (int)qwd_rng_below(&rng, 3);
		uint64_t w[8], load[4], sum = 0, check[4] = { 0 };
		int order[8], jw[8];
		uint64_t lpt, opt;

		for (int i = 0; i < n; i++) {
			w[i] = 1 + qwd_rng_below(&rng, 100);
			sum += w[i];
		}
		lpt = sched_lpt(w, n, workers, order, jw, load);
		opt = brute_optimum(w, n, workers);
		assert_true(lpt >= opt);
		/* lpt / opt <= 4/3 - 1/(3W), in integers */
		assert_true(lpt * 3 * (uint64_t)workers <=
			    opt * (4 * (uint64_t)workers - 1));
		for (int i = 0; i < n; i++) {
			assert_in_range(jw[i], 0, workers - 1);
			check[jw[i]] += w[i];
		}
		for (int k = 0; k < workers; k++) {
			assert_int_equal(check[k], load[k]);
			assert_true(load[k] <= lpt);
			sum -= load[k];
		}
		assert_int_equal(sum, 0);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_uf_chain_and_stars),
	cmocka_unit_test(test_uf_path_compression),
	cmocka_unit_test(test_uf_random_vs_flood),
	cmocka_unit_test(test_lpt_known),
	cmocka_unit_test(test_lpt_bound),
};

QWD_TEST_GROUP(sched, tests, NULL, NULL)
