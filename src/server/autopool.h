/*
 * src/server/autopool.h -- the predicted pool: qwd -threads auto
 *
 * Design note
 *   A feature of the server (hooks.h): autopool.c.
 *   The pool's runs (the pool_ran hook) and each frame's busy time
 *   (frame_end) feed a predictor that sets how many of the workers the next
 *   period uses; "threads" on the console.  It touches sv->pool's size
 *   and sv->autopool->
 */
#ifndef QWD_SERVER_AUTOPOOL_H
#define QWD_SERVER_AUTOPOOL_H

#include "core.h"

/* One check period's figures and the predictor they feed; all zero
 * (off) unless -threads auto with more than one thread. */
struct sv_autopool {
	bool on;
	struct pool_predictor pr;	/* pr.size: the workers active now */
	struct cvar *period, *alpha, *high, *low;
	double period_start;		/* sv->realtime the period began */
	uint64_t busy_ns;		/* the frames' busy time (all but idle) */
	uint64_t parallel_ns;		/* of which the pool's runs, wall */
	double work_ns;			/* the workers' time in the runs' items */
	double need;			/* the last closed period's */
	unsigned checks;		/* periods closed */
};

/* autopool.c: "threads": active, max, need, prediction, changes */
void sv_cmd_threads(struct server *sv, const struct net_args *a, FILE *out);

#endif
