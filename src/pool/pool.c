/*
 * pool.c -- the worker threads of the parallel frame (qwd/pool.h).
 *
 * Design note
 *   One mutex guards the run in progress: its function, context, item
 *   count, a generation number that a new run increments, and the count
 *   of workers still running it.  A worker sleeps on `start` until the
 *   generation moves past the one it ran last, copies the run under the
 *   mutex, works unlocked, and takes the mutex again to count itself done
 *   (the last one signals `done`).  The coordinator does its own share
 *   between announcing the run and waiting on `done`.  Because a worker
 *   copies the run before it counts itself done, and the coordinator
 *   starts no run before all have counted themselves done, a run's
 *   fields are never changed while a worker may still read them.
 *   A shared run (pool_run_shared) hands out its items from an atomic
 *   counter, a chunk per fetch-and-add; relaxed order is enough, since
 *   the counter orders nothing but itself (the mutex hand-offs do the
 *   rest).
 *   The mutex hand-offs at start and end are the happens-before edges
 *   that make every write of a run visible to the coordinator after
 *   pool_run, and everything the coordinator wrote before visible to the
 *   workers (ThreadSanitizer sees the same edges: make tsan).
 */
#include "qwd/pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the largest CPU number a list may name */
#define POOL_MAX_CPU 1023

struct pool_worker {
	struct pool *pool;
	int index;
	pthread_t thread;
	bool started;
};

struct pool {
	int threads;
	pthread_mutex_t mu;
	pthread_cond_t start, done;
	unsigned long generation;
	bool stop;
	pool_fn fn;
	void *ctx;
	int n;
	int chunk;			/* 0: the static split */
	atomic_int next;		/* a shared run's next item */
	int remaining;			/* workers 1.. still in this run */
	struct pool_worker worker[POOL_MAX_THREADS];
};

void pool_split(int n, int threads, int worker, int *begin, int *end)
{
	long long nn = n < 0 ? 0 : n;

	*begin = (int)(nn * worker / threads);
	*end = (int)(nn * (worker + 1) / threads);
}

static void run_share(struct pool *p, pool_fn fn, void *ctx, int n,
		      int chunk, int w)
{
	int begin, end;

	if (chunk == 0) {
		pool_split(n, p->threads, w, &begin, &end);
		for (int i = begin; i < end; i++)
			fn(ctx, w, i);
		return;
	}
	while ((begin = atomic_fetch_add_explicit(&p->next, chunk,
						  memory_order_relaxed)) < n) {
		end = begin + chunk < n ? begin + chunk : n;
		for (int i = begin; i < end; i++)
			fn(ctx, w, i);
	}
}

static void *worker_main(void *arg)
{
	struct pool_worker *me = arg;
	struct pool *p = me->pool;
	unsigned long seen = 0;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->generation == seen && !p->stop)
			pthread_cond_wait(&p->start, &p->mu);
		if (p->stop)
			break;
		seen = p->generation;
		pool_fn fn = p->fn;
		void *ctx = p->ctx;
		int n = p->n, chunk = p->chunk;

		pthread_mutex_unlock(&p->mu);
		run_share(p, fn, ctx, n, chunk, me->index);
		pthread_mutex_lock(&p->mu);
		if (--p->remaining == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static bool pin(pthread_t t, int cpu, char *err, size_t errsize)
{
	cpu_set_t set;
	int rc;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	rc = pthread_setaffinity_np(t, sizeof(set), &set);
	if (rc != 0) {
		snprintf(err, errsize, "cannot pin a thread to CPU %d: %s", cpu,
			 strerror(rc));
		return false;
	}
	return true;
}

struct pool *pool_create(int threads, const int *cpus, int num_cpus,
			 char *err, size_t errsize)
{
	struct pool *p;
	sigset_t all, old;

	if (threads < 1 || threads > POOL_MAX_THREADS) {
		snprintf(err, errsize, "threads: %d is not in 1..%d", threads,
			 POOL_MAX_THREADS);
		return NULL;
	}
	for (int i = 0; cpus && i < num_cpus; i++)
		if (cpus[i] < 0 || cpus[i] > POOL_MAX_CPU) {
			snprintf(err, errsize, "CPU %d is not in 0..%d", cpus[i],
				 POOL_MAX_CPU);
			return NULL;
		}
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errsize, "out of memory for the worker pool");
		return NULL;
	}
	p->threads = threads;
	atomic_init(&p->next, 0);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->start, NULL);
	pthread_cond_init(&p->done, NULL);
	if (cpus && num_cpus > 0 && !pin(pthread_self(), cpus[0], err, errsize)) {
		pool_destroy(p);
		return NULL;
	}
	/* the workers inherit a mask that blocks every signal */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int w = 1; w < threads; w++) {
		struct pool_worker *k = &p->worker[w];
		int rc;

		k->pool = p;
		k->index = w;
		rc = pthread_create(&k->thread, NULL, worker_main, k);
		if (rc != 0) {
			snprintf(err, errsize, "cannot start worker thread %d: %s", w,
				 strerror(rc));
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			pool_destroy(p);
			return NULL;
		}
		k->started = true;
		if (cpus && num_cpus > 0 &&
		    !pin(k->thread, cpus[w % num_cpus], err, errsize)) {
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			pool_destroy(p);
			return NULL;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return p;
}

void pool_destroy(struct pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->start);
	pthread_mutex_unlock(&p->mu);
	for (int w = 1; w < p->threads; w++)
		if (p->worker[w].started)
			pthread_join(p->worker[w].thread, NULL);
	pthread_cond_destroy(&p->start);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

int pool_threads(const struct pool *p)
{
	return p->threads;
}

static void run(struct pool *p, pool_fn fn, void *ctx, int n, int chunk)
{
	if (n <= 0)
		return;
	if (p->threads == 1) {
		for (int i = 0; i < n; i++)
			fn(ctx, 0, i);
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->fn = fn;
	p->ctx = ctx;
	p->n = n;
	p->chunk = chunk;
	atomic_store_explicit(&p->next, 0, memory_order_relaxed);
	p->remaining = p->threads - 1;
	p->generation++;
	pthread_cond_broadcast(&p->start);
	pthread_mutex_unlock(&p->mu);

	run_share(p, fn, ctx, n, chunk, 0);

	pthread_mutex_lock(&p->mu);
	while (p->remaining > 0)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

void pool_run(struct pool *p, pool_fn fn, void *ctx, int n)
{
	run(p, fn, ctx, n, 0);
}

void pool_run_shared(struct pool *p, pool_fn fn, void *ctx, int n, int chunk)
{
	run(p, fn, ctx, n, chunk < 1 ? 1 : chunk);
}

/* one decimal number at *s (advanced past it); -1 when none or too big */
static int cpu_number(const char **s)
{
	int v = 0;

	if (**s < '0' || **s > '9')
		return -1;
	while (**s >= '0' && **s <= '9') {
		v = v * 10 + (**s - '0');
		if (v > POOL_MAX_CPU)
			return -1;
		(*s)++;
	}
	return v;
}

int pool_parse_cpus(const char *s, int *cpus, int max)
{
	int count = 0;

	if (!s || !*s)
		return -1;
	for (;;) {
		int lo = cpu_number(&s), hi = lo;

		if (lo < 0)
			return -1;
		if (*s == '-') {
			s++;
			hi = cpu_number(&s);
			if (hi < lo)
				return -1;
		}
		for (int c = lo; c <= hi; c++) {
			if (count == max)
				return -1;
			cpus[count++] = c;
		}
		if (*s == '\0')
			return count;
		if (*s != ',')
			return -1;
		s++;
	}
}
