/*
 * autopool.c -- qwd -threads auto: the reply phase's pool sized by a
 * prediction of the next period's need (docs/parallel.md, "The predicted
 * pool (-threads auto)").
 *
 * Design note
 *   The pool is made once with its largest size (-threads-max, default
 *   the online CPUs) and this file only changes how many of its workers
 *   a run uses (pool_set_active): no thread is made or ended while the
 *   server runs, and the workers' memory (rings, batches) stays as it
 *   was made, so a worker left out simply builds nothing.
 *   The need is read from the frame's own figures, accumulated over a
 *   check period (sv_threads_period): the workers' time in the items of
 *   the pool's runs in the reply phase (timed runs, pool_take_busy_ns,
 *   taken after each run send.c reports) is the parallel work; the rest
 *   of the frames' busy time (the phase timers, all but idle, less the
 *   runs' wall time) is the sequential part; the period's
 *   length is on the server's clock (the real one, or the driver's in
 *   framebench).  pool_need turns the three into workers, and the
 *   predictor (pool_predictor_step, pure, tested in tests/pool) into the
 *   size.  A period with the phase timers off ("stats timers off",
 *   -notimers) has no figures: it decides nothing and the size stays.
 *   One INFO line per change of size, with the need behind it.
 */
#include "autopool.h"
#include "features.h"

#include <stdlib.h>
#include <string.h>

static void autopool_init(struct server *sv, bool on)
{
	struct sv_autopool *a = sv->autopool;

	a->period = cvar_register(sv, "sv_threads_period", "0.4", 0,
				  "-threads auto: seconds between two decisions "
				  "on the pool's size (at least 0.05)");
	a->alpha = cvar_register(sv, "sv_threads_alpha", "0.5", 0,
				 "-threads auto: weight of the last period's "
				 "need in the prediction (0-1)");
	a->high = cvar_register(sv, "sv_threads_high", "0.75", 0,
				"-threads auto: grow the pool when the predicted "
				"need passes this x its size");
	a->low = cvar_register(sv, "sv_threads_low", "0.5", 0,
			       "-threads auto: shrink it when the predicted need "
			       "falls below this x (its size - 1)");
	if (!on || sv->threads < 2) {
		if (sv->threads > 1)
			qwd_logf(&sv->log, QWD_LOG_INFO, "replies built by %d threads",
				 sv->threads);
		else if (on)
			qwd_logf(&sv->log, QWD_LOG_INFO,
				 "-threads auto: one CPU, the sequential frame");
		return;
	}
	a->on = true;
	pool_predictor_init(&a->pr, sv->threads, a->alpha->value, a->high->value,
			    a->low->value);
	pool_set_active(sv->pool, a->pr.size);
	pool_set_timing(sv->pool, true);
	a->period_start = sv->realtime;
	qwd_logf(&sv->log, QWD_LOG_INFO,
		 "replies built by 1 to %d threads (-threads auto), %d now",
		 sv->threads, a->pr.size);
}

static void autopool_run(struct server *sv, uint64_t ns)
{
	struct sv_autopool *a = sv->autopool;

	if (!a->on)
		return;
	a->parallel_ns += ns;
	a->work_ns += (double)pool_take_busy_ns(sv->pool);
}

/* the period's need into the predictor, its size into the pool */
static void decide(struct server *sv, double period)
{
	struct sv_autopool *a = sv->autopool;
	uint64_t serial_ns = a->busy_ns > a->parallel_ns ? a->busy_ns - a->parallel_ns : 0;
	int before = a->pr.size;

	a->need = pool_need(period, serial_ns / 1e9, a->work_ns / 1e9);
	a->pr.alpha = a->alpha->value;
	a->pr.high = a->high->value;
	a->pr.low = a->low->value;
	pool_predictor_step(&a->pr, a->need);
	a->checks++;
	if (a->pr.size == before)
		return;
	pool_set_active(sv->pool, a->pr.size);
	qwd_logf(&sv->log, QWD_LOG_INFO,
		 "threads: need %.2f, predicted %.2f: %d -> %d workers",
		 a->need, a->pr.gamma, before, a->pr.size);
}

static void autopool_frame(struct server *sv)
{
	struct sv_autopool *a = sv->autopool;
	const struct prof_frame_record *rec;
	double period, every;

	if (!a->on)
		return;
	rec = prof_last_frame(sv->prof);
	for (int ph = 0; ph < PROF_PHASES; ph++)
		if (ph != PROF_IDLE)
			a->busy_ns += rec->phase_ns[ph];
	period = sv->realtime - a->period_start;
	every = a->period->value < 0.05 ? 0.05 : a->period->value;
	if (period < every)
		return;
	if (prof_timers_on(sv->prof))
		decide(sv, period);
	a->period_start = sv->realtime;
	a->busy_ns = a->parallel_ns = 0;
	a->work_ns = 0;
}

void sv_cmd_threads(struct server *sv, const struct net_args *args, FILE *out)
{
	const struct sv_autopool *a = sv->autopool;

	(void)args;
	if (!a->on) {
		fprintf(out, "threads: %d (%s)\n", sv->threads > 1 ? sv->threads : 1,
			sv->threads > 1 ? "fixed, -threads N" : "the sequential frame");
		return;
	}
	fprintf(out, "threads: auto, %d active of %d, need %.3f predicted %.3f, "
		"%u changes in %u checks\n", pool_active(sv->pool), sv->threads,
		a->need, a->pr.gamma, a->pr.changes, a->checks);
}

static void autopool_free(struct server *sv)
{
	free(sv->autopool);
	sv->autopool = NULL;
}

static const struct sv_feature autopool_feature = {
	.name = "autopool",
	.pool_ran = autopool_run,
	.frame_closed = autopool_frame,
	.free = autopool_free,
};

int sv_autopool_register(struct server *sv, bool on)
{
	sv->autopool = calloc(1, sizeof(*sv->autopool));
	if (!sv->autopool)
		return -1;
	autopool_init(sv, on);
	sv_command_add(sv, "threads", sv_cmd_threads,
		       "the reply phase's workers: active, max, the predicted need (-threads auto)");
	sv_feature_add(sv, &autopool_feature);
	return 0;
}
