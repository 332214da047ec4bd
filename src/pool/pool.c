/*
 * pool.c -- the worker threads of the parallel frame (qwd/pool.h).
 *
 * Design note
 *   A run is announced under one mutex: its function, context, item
 *   count and chunk, and a generation number that each run increments; a
 *   worker sleeps on `start` until the generation moves past the one it
 *   saw last, copies the run under the mutex and works unlocked.  The
 *   barrier counts items, not workers: each worker adds the items it ran
 *   to `done_items` (release), the one that completes the run signals
 *   `done` under the mutex, and the coordinator, its own part over,
 *   sleeps on `done` until every item is done (acquire).  So a worker the
 *   system has not scheduled yet holds no one up when the others took
 *   its part (a shared run): it wakes later, finds nothing to take, and
 *   sleeps again.
 *   A shared run hands out its items from one 64-bit word, the run's
 *   generation (low 32 bits of it) above the next item, taken a chunk at
 *   a time by compare-and-swap: a worker that copied an old run and was
 *   preempted before taking anything sees another generation in the word
 *   and takes nothing, so it can never run a new run's items with an old
 *   run's function.  A static run (pool_run) gives each worker its
 *   pool_split range; the barrier then waits for that worker's items too.
 *   The workers active in a run are copied under the mutex with the run
 *   (run_active), so a change of pool_set_active between runs is seen by
 *   every worker with the run it concerns; a worker beyond them takes
 *   nothing, and the static split is over the active ones only.
 *   A timed run (pool_set_timing) adds each worker's time in its items
 *   to the worker's own cell before it counts them done, so the barrier
 *   that shows the run's writes shows the cells too.
 *   The release/acquire pair on done_items, and the mutex at the start,
 *   are the happens-before edges that make every write of a run visible
 *   to the coordinator when the call returns, and everything it wrote
 *   before visible to the workers (ThreadSanitizer checks it: make tsan).
 */
#include "qwd/pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the largest CPU number a list may name */
#define POOL_MAX_CPU 1023

struct pool_worker {
	struct pool *pool;
	int index;
	uint64_t busy_ns;		/* in items, timed runs; its own cell */
	pthread_t thread;
	bool started;
};

struct pool {
	int threads;
	int active;			/* the coordinator's setting */
	int run_active;			/* the run's, under mu */
	bool timed, run_timed;		/* the same for pool_set_timing */
	pthread_mutex_t mu;
	pthread_cond_t start, done;
	unsigned long generation;
	bool stop;
	pool_fn fn;
	void *ctx;
	int n;
	int chunk;			/* 0: the static split */
	_Atomic uint64_t take;		/* a shared run's generation << 32 | next item */
	atomic_int done_items;		/* items of this run done */
	struct pool_worker worker[POOL_MAX_THREADS];
};

void pool_split(int n, int threads, int worker, int *begin, int *end)
{
	long long nn = n < 0 ? 0 : n;

	*begin = (int)(nn * worker / threads);
	*end = (int)(nn * (worker + 1) / threads);
}

/* count items done; the one that completes the run wakes the caller */
static void finished(struct pool *p, int items, int n)
{
	if (atomic_fetch_add_explicit(&p->done_items, items,
				      memory_order_acq_rel) + items == n) {
		pthread_mutex_lock(&p->mu);
		pthread_cond_signal(&p->done);
		pthread_mutex_unlock(&p->mu);
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* items [begin, end) on worker w, their time into its cell when timed */
static void run_items(struct pool *p, pool_fn fn, void *ctx, int w, int begin,
		      int end, bool timed)
{
	uint64_t t0 = timed ? now_ns() : 0;

	for (int i = begin; i < end; i++)
		fn(ctx, w, i);
	if (timed)
		p->worker[w].busy_ns += now_ns() - t0;
}

/* worker w's part of the run of generation gen */
static void run_share(struct pool *p, pool_fn fn, void *ctx, int n,
		      int chunk, int w, uint32_t gen, bool timed)
{
	int begin, end;

	if (chunk == 0) {
		pool_split(n, p->run_active, w, &begin, &end);
		run_items(p, fn, ctx, w, begin, end, timed);
		if (end > begin)
			finished(p, end - begin, n);
		return;
	}
	uint64_t word = atomic_load_explicit(&p->take, memory_order_relaxed);

	while ((uint32_t)(word >> 32) == gen && (int)(uint32_t)word < n) {
		begin = (int)(uint32_t)word;
		end = begin + chunk < n ? begin + chunk : n;
		if (!atomic_compare_exchange_weak_explicit(
			    &p->take, &word, (uint64_t)gen << 32 | (uint32_t)end,
			    memory_order_relaxed, memory_order_relaxed))
			continue;
		run_items(p, fn, ctx, w, begin, end, timed);
		finished(p, end - begin, n);
		word = atomic_load_explicit(&p->take, memory_order_relaxed);
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
		/* not in this run: its items go to the others */
		if (me->index >= p->run_active)
			continue;
		pool_fn fn = p->fn;
		void *ctx = p->ctx;
		int n = p->n, chunk = p->chunk;
		bool timed = p->run_timed;

		pthread_mutex_unlock(&p->mu);
		run_share(p, fn, ctx, n, chunk, me->index, (uint32_t)seen, timed);
		pthread_mutex_lock(&p->mu);
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
	p->active = p->run_active = threads;
	atomic_init(&p->take, 0);
	atomic_init(&p->done_items, 0);
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

void pool_set_active(struct pool *p, int n)
{
	p->active = n < 1 ? 1 : n > p->threads ? p->threads : n;
}

int pool_active(const struct pool *p)
{
	return p->active;
}

void pool_set_timing(struct pool *p, bool on)
{
	p->timed = on;
}

uint64_t pool_take_busy_ns(struct pool *p)
{
	uint64_t sum = 0;

	for (int w = 0; w < p->threads; w++) {
		sum += p->worker[w].busy_ns;
		p->worker[w].busy_ns = 0;
	}
	return sum;
}

static void run(struct pool *p, pool_fn fn, void *ctx, int n, int chunk)
{
	if (n <= 0)
		return;
	if (p->active == 1) {
		run_items(p, fn, ctx, 0, 0, n, p->timed);
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->fn = fn;
	p->ctx = ctx;
	p->n = n;
	p->chunk = chunk;
	p->run_active = p->active;
	p->run_timed = p->timed;
	p->generation++;
	atomic_store_explicit(&p->done_items, 0, memory_order_relaxed);
	atomic_store_explicit(&p->take, (uint64_t)(uint32_t)p->generation << 32,
			      memory_order_relaxed);
	pthread_cond_broadcast(&p->start);
	pthread_mutex_unlock(&p->mu);

	run_share(p, fn, ctx, n, chunk, 0, (uint32_t)p->generation, p->timed);

	pthread_mutex_lock(&p->mu);
	while (atomic_load_explicit(&p->done_items, memory_order_acquire) < n)
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

/* ---- the predicted pool ------------------------------------------------ */

void pool_predictor_init(struct pool_predictor *pr, int max, double alpha,
			 double high, double low)
{
	memset(pr, 0, sizeof(*pr));
	pr->max = max < 1 ? 1 : max;
	pr->alpha = alpha;
	pr->high = high;
	pr->low = low;
	pr->size = 1;
}

int pool_predictor_step(struct pool_predictor *pr, double need)
{
	double alpha = pr->alpha < 0 ? 0 : pr->alpha > 1 ? 1 : pr->alpha;
	double low = pr->low > pr->high ? pr->high : pr->low;
	int size = pr->size;

	if (!(need > 0))
		need = 0;
	pr->gamma = alpha * need + (1 - alpha) * pr->gamma;
	if (pr->gamma > pr->high * size && size < pr->max)
		size++;
	else if (pr->gamma < low * (size - 1) && size > 1)
		size--;
	if (size > pr->max)
		size = pr->max;
	if (size != pr->size)
		pr->changes++;
	pr->size = size;
	return size;
}

double pool_need(double period_s, double serial_s, double parallel_work_s)
{
	double left;

	if (!(period_s > 0) || !(parallel_work_s > 0))
		return 0;
	left = period_s - (serial_s > 0 ? serial_s : 0);
	if (left < period_s / 20)
		left = period_s / 20;
	return parallel_work_s / left < POOL_MAX_THREADS ? parallel_work_s / left
							  : POOL_MAX_THREADS;
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
