/*
 * sched.c -- the request schedule: which bot sends next, when, and what
 * its command is.
 *
 * Design note
 *   Each bot sends one request every 1/rate seconds, each interval
 *   stretched by a uniform factor in [1 - jitter, 1 + jitter] and the
 *   first one offset by a uniform phase, so bots never fall into
 *   lockstep.  A binary heap orders the bots by their next send; every
 *   send due within `tick` of now goes out in the same sendmmsg batch.
 *   A bot late by more than an interval (a stalled process) starts over
 *   from now instead of sending a burst.  The command each request
 *   carries comes from the bot's behaviour (behave.c: the walker, an
 *   action file's replay, idle).
 */
#include "run.h"

#include <string.h>

/* The key lives in the heap entry, not in the bot: the bots are large
 * and scattered, and a sift that reads them misses the cache at every
 * level; 1024 entries of 16 bytes stay in it. */
static bool heap_less(const struct run *r, int a, int b)
{
	return r->heap[a].when < r->heap[b].when;
}

static void heap_swap(struct run *r, int a, int b)
{
	struct heap_entry t = r->heap[a];

	r->heap[a] = r->heap[b];
	r->heap[b] = t;
}

static void heap_push(struct run *r, int id)
{
	int i = r->heap_n++;

	r->heap[i].when = r->bots[id].next_send;
	r->heap[i].id = id;
	while (i > 0 && heap_less(r, i, (i - 1) / 2)) {
		heap_swap(r, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static int heap_pop(struct run *r)
{
	int top = r->heap[0].id, i = 0;

	r->heap[0] = r->heap[--r->heap_n];
	for (;;) {
		int l = 2 * i + 1, m = i;

		if (l < r->heap_n && heap_less(r, l, m))
			m = l;
		if (l + 1 < r->heap_n && heap_less(r, l + 1, m))
			m = l + 1;
		if (m == i)
			break;
		heap_swap(r, i, m);
		i = m;
	}
	return top;
}

static void behave_replay(struct run *r, struct bot *b, double now)
{
	const struct actions *a = b->actions;
	struct usercmd *cmd = &b->q.cmd;

	if (b->replay_over) {
		memset(cmd, 0, sizeof(*cmd));
		vec_copy(b->idle_angles, cmd->angles);
		return;
	}
	if (!b->replaying) {
		if (a->has_spawn && r->cfg->match_spawn > 0) {
			enum qwb_spawn_do d = qwb_spawnmatch_step(
				&b->spawn, a->spawn, b->q.self_origin,
				b->q.stat[STAT_HEALTH], cmd);

			if (d == QWB_SPAWN_KILL) {
				qwc_stringcmd(&b->q, "kill");
				b->st->spawn_kills++;
			}
			if (d != QWB_SPAWN_PLAY)
				return;
			b->st->spawn_matches += b->spawn.matched;
		}
		qwb_replay_begin(&b->replay, a, now);
		b->st->replay_starts = b->replay.loops;
		b->replaying = true;
	}
	if (qwb_replay_step(&b->replay, now, cmd))
		return;
	/* the end of the stream */
	b->replaying = false;
	vec_copy(a->n ? a->v[a->n - 1].cmd.angles : b->idle_angles, b->idle_angles);
	if (r->cfg->replay_loop) {
		qwb_spawnmatch_begin(&b->spawn, r->cfg->match_spawn);
	} else {
		b->replay_over = true;
	}
	memset(cmd, 0, sizeof(*cmd));
	vec_copy(b->idle_angles, cmd->angles);
}

/* fill the bot's command for the request about to go out */
static void behave(struct run *r, struct bot *b, double now)
{
	struct usercmd *cmd = &b->q.cmd;

	if (!b->in_game) {
		/* the signon: empty moves, as a stock client sends */
		memset(cmd, 0, sizeof(*cmd));
		return;
	}
	switch (r->cfg->behaviour) {
	case QWB_WALKER:
		qwt_walker_step(&b->walker, &r->cfg->walker, &b->rng, cmd);
		memcpy(b->st->walker_actions, b->walker.actions,
		       sizeof(b->st->walker_actions));
		break;
	case QWB_REPLAY:
		behave_replay(r, b, now);
		break;
	default:
		memset(cmd, 0, sizeof(*cmd));
		vec_copy(b->idle_angles, cmd->angles);
		break;
	}
}

static void reschedule(struct run *r, struct bot *b, double now)
{
	double f = 1.0 + r->cfg->jitter * (2.0 * qwt_rng_unit(&b->rng) - 1.0);

	b->next_send += r->interval * f;
	if (b->next_send < now - r->interval)
		b->next_send = now + r->interval * f;
	heap_push(r, b->id);
}

static void send_one(struct run *r, struct bot *b, double now)
{
	enum qwc_state s = b->q.state;
	size_t len;
	bool in_game = b->in_game;

	if (s == QWC_DISCONNECTED || s == QWC_DROPPED || s == QWC_REFUSED)
		return;	/* out of the run: not rescheduled */
	behave(r, b, now);
	len = io_tx_packet(r, b, now);
	if (len && in_game) {
		r->live.requests++;
		r->live.bytes_out += len;
		if (r->measuring) {
			b->st->requests++;
			b->st->bytes_out += len;
			b->last_window_seq = b->q.chan.outgoing_sequence - 1;
			if (!b->first_window_seq)
				b->first_window_seq = b->last_window_seq;
		}
		if (r->record_started && b->id == r->cfg->record_bot)
			actions_write_line(r->record, now - r->record_start,
					       &b->q.sent[2]);
	}
	run_check_state(r, b, now);
	reschedule(r, b, now);
}

void sched_send_due(struct run *r, double now)
{
	while (r->heap_n > 0 && r->heap[0].when <= now + r->cfg->tick)
		send_one(r, &r->bots[heap_pop(r)], now);
	io_tx_flush(r);
}

void sched_start_joins(struct run *r, double now)
{
	while (r->next_join < r->n &&
	       now >= r->t0 + (double)r->next_join / r->cfg->join_rate) {
		struct bot *b = &r->bots[r->next_join++];

		qwc_connect(&b->q, now);
		b->connect_time = now;
		b->next_send = now + qwt_rng_unit(&b->rng) * r->interval;
		heap_push(r, b->id);
	}
}

/* when the loop must next run: the first send due (less the tick, as
 * sends due within it go together), a join, a phase's end, the progress
 * line; but not sooner than a tick after the last run */
double sched_next_wake(const struct run *r, double last)
{
	double w = r->next_progress;

	if (r->heap_n > 0 && r->heap[0].when - r->cfg->tick < w)
		w = r->heap[0].when - r->cfg->tick;
	if (r->next_join < r->n) {
		double j = r->t0 + (double)r->next_join / r->cfg->join_rate;

		if (j < w)
			w = j;
	}
	if (r->phase == PH_JOIN && r->join_deadline < w)
		w = r->join_deadline;
	if (r->phase == PH_WARMUP && r->phase_end < w)
		w = r->phase_end;
	if (r->phase == PH_MEASURE && r->window_end < w)
		w = r->window_end;
	if (r->phase == PH_DRAIN && r->drain_end < w)
		w = r->drain_end;
	if (w < last + r->cfg->tick)
		w = last + r->cfg->tick;
	return w;
}
