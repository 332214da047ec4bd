/*
 * qwd/sched.h -- the SCHEDULE of a parallel frame, as pure functions:
 * union-find (which clients' requests touch the same entities) and
 * Longest-Processing-Time-first assignment of the resulting jobs to
 * workers.
 *
 * Design note
 *   Nothing here knows a client, an entity or a map: the server
 *   (src/server/sched.c) turns a frame's requests into node ids and
 *   unions, and jobs into weights; tools and tests drive the same
 *   functions with made-up figures.  Every array is the caller's, sized
 *   once (at level load or server start); no call allocates, so the
 *   functions can run every frame.
 *
 *   Union-find: union by size and path compression (halving), so a
 *   frame's finds and unions cost about constant time each.  A root's
 *   size is the number of nodes in its set.
 *
 *   LPT: jobs sorted by weight, heaviest first (ties: lower job index
 *   first), each given to the least-loaded worker (ties: lower worker
 *   index).  Graham's bound: the makespan is at most 4/3 - 1/(3W) times
 *   the optimum.  Given measured costs it is also the simulation of a
 *   frame on W workers: the makespan is the time the slowest worker
 *   needs, sum / makespan the speedup the schedule allows.
 */
#ifndef QWD_SCHED_H
#define QWD_SCHED_H

#include <stdint.h>

/* ---- union-find ------------------------------------------------------ */

struct sched_uf {
	int *parent;		/* caller's, n entries */
	int *size;		/* caller's, n entries; meaningful at roots */
	int n;
};

/* take the caller's arrays (n entries each) and make every node its own
 * set */
void sched_uf_init(struct sched_uf *u, int *parent, int *size, int n);
/* every node its own set again */
void sched_uf_reset(struct sched_uf *u);
/* the root of x's set (x in [0, n)); compresses the path */
int sched_uf_find(struct sched_uf *u, int x);
/* join the sets of a and b; returns the root of the joined set */
int sched_uf_union(struct sched_uf *u, int a, int b);

/* ---- Longest Processing Time first ----------------------------------- */

enum { SCHED_MAX_WORKERS = 64 };

/* Assign njobs jobs of the given weights to workers (1..SCHED_MAX_WORKERS)
 * workers.  order is scratch of njobs entries (left holding the jobs,
 * heaviest first); job_worker (njobs entries) gets each job's worker and
 * load (workers entries) each worker's total; either may be NULL.
 * Returns the makespan, the largest load (0 for no jobs). */
uint64_t sched_lpt(const uint64_t *weight, int njobs, int workers,
		   int *order, int *job_worker, uint64_t *load);

#endif
