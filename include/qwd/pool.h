/*
 * qwd/pool.h -- a pool of persistent worker threads for the parallel
 * frame: "run fn over items [0, n), split among the workers, and wait".
 *
 * Design note
 *   The bulk-synchronous frame (docs/parallel.md) hands a phase's work to
 *   N workers and waits for all of them at a barrier before it goes on.
 *   The calling thread (the coordinator) is worker 0 and does its share;
 *   workers 1..N-1 are threads created once by pool_create, which sleep
 *   on a condition variable between runs (no spinning while idle) and
 *   are ended by pool_destroy.  With one thread there is no thread at
 *   all: pool_run calls fn for every item in order, inline.
 *   A run uses the pool's first `active` workers (pool_set_active; all
 *   of them unless set): the others wake, see that the run is not
 *   theirs, and sleep again, so a pool made once at its largest can be
 *   used at any size in between (qwd -threads auto); one active is the
 *   inline case.  The predictor that chooses the size is here too, a
 *   pure function of the needs it is given.
 *
 *   Two splits.  pool_run's is static and contiguous: worker w takes
 *   the items pool_split(n, threads, w) gives, so the caller knows before
 *   a run which worker does which item (worker order is item order).
 *   pool_run_shared's is dynamic: the workers take runs of items from a
 *   shared counter, so a worker preempted by the system (a busy host)
 *   delays nobody; the caller must then be ready for any worker to take
 *   any item.  Either way every item runs exactly once, on exactly one
 *   worker, and everything the workers wrote is visible to the caller
 *   when the call returns (the barrier is a mutex hand-off).
 *
 *   Nothing allocates after pool_create; pool_run takes no lock while a
 *   worker works.  The workers block every signal, so the process's
 *   signal handlers run on the coordinator's thread as before.  CPUs:
 *   given a list, the coordinator is pinned to its first entry and worker
 *   w to entry w (modulo its length), with pthread_setaffinity_np.
 *   The module stands on common only: it sees no server, no client.
 */
#ifndef QWD_POOL_H
#define QWD_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the most threads a pool takes (qwd -threads) */
#define POOL_MAX_THREADS 64

struct pool;

/* one item of a run: ctx as given to pool_run, the worker running it
 * (0 .. threads - 1; 0 is the caller's thread), the item's index */
typedef void (*pool_fn)(void *ctx, int worker, int item);

/* threads workers (1 .. POOL_MAX_THREADS), the caller being worker 0;
 * cpus (num_cpus entries, or NULL / 0: none) pins them as the design
 * note says.  NULL with the reason in err. */
struct pool *pool_create(int threads, const int *cpus, int num_cpus,
			 char *err, size_t errsize);
/* ends and joins the workers (NULL: nothing) */
void pool_destroy(struct pool *p);
int pool_threads(const struct pool *p);
/* The workers a run uses: the first n (1 .. pool_threads; clamped), the
 * others sleeping through it; pool_threads at creation.  The caller's
 * thread, between runs (qwd -threads auto changes it). */
void pool_set_active(struct pool *p, int n);
int pool_active(const struct pool *p);
/* Timed runs (off at creation): each worker adds the time it spends in
 * its items (two clock reads per chunk, or per static share) to its own
 * sum; pool_take_busy_ns returns the workers' sums since the last call
 * and zeroes them.  The caller's thread, between runs. */
void pool_set_timing(struct pool *p, bool on);
uint64_t pool_take_busy_ns(struct pool *p);

/* the items [*begin, *end) worker w takes of n split among threads */
void pool_split(int n, int threads, int worker, int *begin, int *end);

/* fn(ctx, worker, item) for every item of [0, n), split by pool_split,
 * returning when all have run */
void pool_run(struct pool *p, pool_fn fn, void *ctx, int n);
/* The same, the items taken in runs of `chunk` (>= 1, in order) by
 * whichever worker is free: a worker the system has not scheduled yet
 * leaves its part to the others instead of holding the barrier.  Which
 * worker runs an item is not known before. */
void pool_run_shared(struct pool *p, pool_fn fn, void *ctx, int n, int chunk);

/* A CPU list, "0,1", "0-3", "0-1,4": the numbers in order into cpus (at
 * most max, each below 1024); their count, or -1 when the text is not
 * such a list or holds more than max. */
int pool_parse_cpus(const char *s, int *cpus, int max);

/* ---- the predicted pool (qwd -threads auto, docs/parallel.md) ------- */

/* The size of a pool from the need of the periods before, the
 * dynamic thread-pool study's predictor: every period the need t(n) (in
 * workers) updates the prediction Gamma(n+1) = alpha t(n) + (1 - alpha)
 * Gamma(n); the size grows by one when Gamma > high x size and shrinks by
 * one when Gamma < low x (size - 1), and stays between; always 1 .. max.
 * Pure: no clock, no thread; the caller sets alpha, high and low (cvars)
 * before a step as it likes. */
struct pool_predictor {
	double alpha;		/* weight of the newest need, 0..1 */
	double high, low;	/* thresholds per worker; low above high is
				 * taken as high (no size both grows and
				 * shrinks) */
	int max;		/* largest size, >= 1 */
	int size;		/* the size now, 1 .. max */
	double gamma;		/* the prediction, Gamma; 0 at first */
	unsigned changes;	/* steps that changed the size */
};

/* size 1, Gamma 0 */
void pool_predictor_init(struct pool_predictor *pr, int max, double alpha,
			 double high, double low);
/* One period's need (negative or NaN counts as 0): the new size. */
int pool_predictor_step(struct pool_predictor *pr, double need);

/* The need of a period in workers: the work of the parallel runs
 * (worker-seconds in their items, pool_take_busy_ns) over the time
 * the rest of the frame left them (the period's wall time less the
 * frame's sequential busy time), at least 1/20 of the period;
 * POOL_MAX_THREADS at most.  0 for an empty period. */
double pool_need(double period_s, double serial_s, double parallel_work_s);

#endif
