/*
 * sched.c -- union-find and LPT assignment (qwd/sched.h has the design).
 *
 * Design note
 *   The sort of LPT is qsort_r over job indices with the weights as
 *   context, the index breaking ties, so equal inputs give equal
 *   schedules whatever the C library's sort does with equal keys.  The
 *   least-loaded worker is found by a scan: W is at most a few dozen,
 *   and a heap would only pay past hundreds.
 */
#include "qwd/sched.h"

#include <stdlib.h>

void sched_uf_init(struct sched_uf *u, int *parent, int *size, int n)
{
	u->parent = parent;
	u->size = size;
	u->n = n;
	sched_uf_reset(u);
}

void sched_uf_reset(struct sched_uf *u)
{
	for (int i = 0; i < u->n; i++) {
		u->parent[i] = i;
		u->size[i] = 1;
	}
}

int sched_uf_find(struct sched_uf *u, int x)
{
	/* path halving: every other node on the way points to its
	 * grandparent, one pass, no recursion */
	while (u->parent[x] != x) {
		u->parent[x] = u->parent[u->parent[x]];
		x = u->parent[x];
	}
	return x;
}

int sched_uf_union(struct sched_uf *u, int a, int b)
{
	int ra = sched_uf_find(u, a), rb = sched_uf_find(u, b);

	if (ra == rb)
		return ra;
	if (u->size[ra] < u->size[rb]) {
		int t = ra;

		ra = rb;
		rb = t;
	}
	u->parent[rb] = ra;
	u->size[ra] += u->size[rb];
	return ra;
}

static int heavier_first(const void *a, const void *b, void *ctx)
{
	const uint64_t *w = ctx;
	int i = *(const int *)a, j = *(const int *)b;

	if (w[i] != w[j])
		return w[i] > w[j] ? -1 : 1;
	return (i > j) - (i < j);
}

uint64_t sched_lpt(const uint64_t *weight, int njobs, int workers,
		   int *order, int *job_worker, uint64_t *load)
{
	uint64_t l[SCHED_MAX_WORKERS] = { 0 }, makespan = 0;

	if (workers < 1)
		workers = 1;
	if (workers > SCHED_MAX_WORKERS)
		workers = SCHED_MAX_WORKERS;
	for (int i = 0; i < njobs; i++)
		order[i] = i;
	if (njobs > 1)
		qsort_r(order, (size_t)njobs, sizeof(*order), heavier_first,
			(void *)weight);
	for (int k = 0; k < njobs; k++) {
		int j = order[k], best = 0;

		for (int w = 1; w < workers; w++)
			if (l[w] < l[best])
				best = w;
		l[best] += weight[j];
		if (job_worker)
			job_worker[j] = best;
	}
	for (int w = 0; w < workers; w++) {
		if (l[w] > makespan)
			makespan = l[w];
		if (load)
			load[w] = l[w];
	}
	return makespan;
}
