/*
 * run.c -- a run of the bots: the loop, its phases, each bot's state,
 * and the report.
 *
 * Design note
 *   The loop.  Sleep until the next send is due (but at least a tick,
 *   1 ms, after the last round), read every socket that has data, send
 *   every request due within the tick in one batch (io.c, sched.c).
 *   Replies wait in the socket until the next round, as a client reads
 *   its packets once per frame, and are timed by the kernel's arrival
 *   stamp, so waiting does not inflate response times; and the process
 *   wakes at most 1000 times a second instead of once per reply.
 *
 *   Phases.  join (bots started at --join-rate, until all are in the game
 *   or failed, or the join timeout) -> warmup -> the measurement window
 *   (--duration) -> drain (at most DRAIN_MAX, until every bot's last
 *   request of the window is answered) -> leave (every bot sends
 *   "drop").  The requests counted are those sent in the window by bots
 *   in the game (state active); the replies counted, with their bytes,
 *   times, players and entities, are those answering a counted request,
 *   whenever they come: so the response rate is exact at both ends of
 *   the window.  Joins, bad replies and positions cover the whole run.
 *
 *   Nothing is allocated after start-up: bots, their histograms, the
 *   batches and the heap are sized by --bots.
 */
#include "run.h"
#include "qwtools.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bsd/string.h>

#include "qwd/world.h"

const char *const qwb_phase_names[] = {"join", "warmup", "measure", "drain",
				       "leave", "done"};

static void enter_game(struct run *r, struct bot *b, double now)
{
	struct qwb_bot_stats *st = b->st;

	b->in_game = true;
	if (!st->reached) {
		st->reached = true;
		st->join_s = now - b->connect_time;
	}
	st->slot = b->q.playernum;
	vec_copy(b->q.setangle, b->idle_angles);
	b->idle_angles[0] = 0;
	b->idle_angles[2] = 0;
	qwt_walker_start(&b->walker, b->q.setangle[1]);
	if (b->actions) {
		b->replaying = false;
		b->replay_over = false;
		qwb_spawnmatch_begin(&b->spawn, r->cfg->match_spawn);
	}
	if (!st->have_origin) {
		st->have_origin = true;
		vec_copy(b->q.self_origin, st->origin_start);
		vec_copy(b->q.self_origin, st->origin_end);
	}
	vec_copy(b->q.self_origin, b->last_origin);
	b->origin_valid = true;
	if (r->record && b->id == r->cfg->record_bot && !r->record_started) {
		char map[ACTIONS_MAP_MAX], source[128];

		actions_map_name(b->q.mapmodel, map, sizeof(map));
		snprintf(source, sizeof(source), "qwbots bot %d (%s), seed %llu, %s",
			 b->id, r->cfg->behaviour == QWB_WALKER ? "walker" :
				r->cfg->behaviour == QWB_REPLAY ? "replay" : "idle",
			 (unsigned long long)r->cfg->seed, r->cfg->server_text);
		actions_write_header(r->record, map, b->q.self_origin, source);
		r->record_start = now;
		r->record_started = true;
	}
}

static void on_print(void *ctx, struct qwc *c, int level, const char *text)
{
	struct bot *b = ctx;

	(void)c;
	/* one output line per line of the print, each with its bot */
	while (*text) {
		const char *nl = strchr(text, '\n');
		int n = nl ? (int)(nl - text) : (int)strlen(text);

		fprintf(stderr, "qwbots: %s: print %d: %.*s\n", b->st->name, level, n, text);
		text += n + (nl ? 1 : 0);
	}
}

/* after the client library took in a datagram or built one */
void run_check_state(struct run *r, struct bot *b, double now)
{
	enum qwc_state s = b->q.state;

	if (r->cfg->verbose && s != b->last_state) {
		fprintf(stderr, "qwbots: %s: %s -> %s%s%s\n", b->st->name,
			qwc_state_name(b->last_state), qwc_state_name(s),
			b->q.reason[0] ? ": " : "", b->q.reason);
		b->last_state = s;
	}

	if (s == QWC_ACTIVE && !b->in_game) {
		enter_game(r, b, now);
		r->n_in_game++;
	} else if (s != QWC_ACTIVE && b->in_game) {
		b->in_game = false;	/* a map change: the signon again */
		r->n_in_game--;
	}
	if ((s == QWC_DROPPED || s == QWC_REFUSED) && !b->out) {
		b->out = true;	/* for good: a bot never reconnects */
		r->n_out++;
		strlcpy(b->st->reason, b->q.reason, sizeof(b->st->reason));
		if (b->st->reached && s == QWC_DROPPED)
			b->st->dropped = true;
	}
}

/* A request counted in the window (sent in it by the bot in the game):
 * whatever answers it is counted too, also when the answer comes after
 * the window (the drain phase waits for it), so the response rate is
 * exact at both ends of the window.  A bot's counted requests are the
 * run of sequences first..last. */
static bool counted(const struct bot *b, uint32_t seq)
{
	return b->first_window_seq && seq >= b->first_window_seq &&
	       seq <= b->last_window_seq;
}

static void on_ack(void *ctx, struct qwc *c, const struct qwc_out *o, double now)
{
	struct bot *b = ctx;
	struct run *r = b->run;

	(void)c;
	if (!b->in_game)
		return;
	qwd_hist_add_s(&r->interval_rt, now - o->senttime);
	qwd_hist_add_s(&r->series_rt, now - o->senttime);
	if (counted(b, o->sequence)) {
		qwd_hist_add_s(&b->st->rt, now - o->senttime);
		b->st->acks++;
	}
}

static void reply_metrics(struct run *r, struct bot *b, size_t len)
{
	struct qwb_bot_stats *st = b->st;
	const struct qwc *q = &b->q;
	uint64_t players = (uint64_t)(q->total_seen > 0 ? q->total_seen : 0);

	r->live.replies++;
	r->live.bytes_in += len;
	if (q->self_seen_sequence == q->last_reply_sequence) {
		float d[3];
		double step, far;

		vec_sub(q->self_origin, b->last_origin, d);
		step = sqrt((double)vec_dot(d, d));
		if (b->origin_valid && step < QWB_TELEPORT)
			st->path += step;
		vec_copy(q->self_origin, b->last_origin);
		b->origin_valid = true;
		vec_copy(q->self_origin, st->origin_end);
		vec_sub(q->self_origin, st->origin_start, d);
		far = sqrt((double)vec_dot(d, d));
		if (far > st->moved_max)
			st->moved_max = far;
	}
	/* a reply counts for the window when the request it answers (the
	 * newest it acknowledges) was counted there */
	if (!counted(b, q->chan.incoming_acknowledged))
		return;
	st->replies++;
	st->bytes_in += len;
	st->players_sum += players;
	if (players > st->players_max)
		st->players_max = players;
	st->lost += q->chan.dropped;
	st->chokes += q->stats.chokes - b->chokes_seen;
	if (b->track) {
		const struct qwc_entity_frame *f = qwc_current_frame(q);

		if (f && f->sequence == q->last_reply_sequence) {
			st->ents_replies++;
			st->ents_sum += f->num;
			if (f->num > st->ents_max)
				st->ents_max = f->num;
		}
	}
}

static uint64_t bad_sum(const struct qwc *q)
{
	uint64_t n = 0;

	for (int k = 0; k < QWC_BAD_KINDS; k++)
		n += q->stats.bad[k];
	return n;
}

void run_deliver(struct run *r, struct bot *b, const uint8_t *data,
		    size_t len, bool cut, double now)
{
	uint64_t bad_before;

	if (r->phase >= PH_LEAVE)
		return;	/* answers to "drop": nothing to learn */
	if (cut) {
		b->st->bad[QWB_BAD_OVERSIZED]++;
		r->live.bad++;
		return;
	}
	bad_before = bad_sum(&b->q);
	qwc_receive(&b->q, data, len, now);
	r->live.bad += bad_sum(&b->q) - bad_before;
	for (int k = 0; k < QWC_BAD_KINDS; k++)
		b->st->bad[k] = b->q.stats.bad[k];
	if (b->q.stats.replies != b->replies_seen && b->in_game &&
	    b->q.state == QWC_ACTIVE)
		reply_metrics(r, b, len);
	b->replies_seen = b->q.stats.replies;
	b->chokes_seen = b->q.stats.chokes;
	b->st->signons = b->q.stats.signons;
	if (b->q.stuffed_oob_pending)
		io_tx_stuffed_oob(r, b);
	run_check_state(r, b, now);
}

static int make_bots(struct run *r, char *err, size_t errsize)
{
	const struct qwb_config *c = r->cfg;
	struct qwt_rng qr;
	uint32_t qbase;

	r->bots = calloc((size_t)r->n, sizeof(*r->bots));
	r->stats = calloc((size_t)r->n, sizeof(*r->stats));
	r->heap = calloc((size_t)r->n, sizeof(*r->heap));
	if (!r->bots || !r->stats || !r->heap) {
		snprintf(err, errsize, "out of memory for %d bots", r->n);
		return -1;
	}
	/* qports: distinct for every bot (bots sharing an address are told
	 * apart by them), starting at a seeded offset */
	qwt_rng_seed(&qr, c->seed, 0xfffffffful);
	qbase = qwt_rng_below(&qr, 65000);
	for (int i = 0; i < r->n; i++) {
		struct bot *b = &r->bots[i];
		struct qwc_options o = {0};
		char info_extra[128] = "";

		b->run = r;
		b->st = &r->stats[i];
		b->id = i;
		b->st->id = i;
		b->st->slot = -1;
		b->st->actions_file = -1;
		b->st->state = "disconnected";
		qwd_hist_clear(&b->st->rt);
		snprintf(b->st->name, sizeof(b->st->name), "%s%04d", c->name_prefix, i);
		qwt_rng_seed(&b->rng, c->seed, (uint64_t)i + 1);
		b->sock = r->pktinfo ? i / r->per_sock : i;
		b->ip = r->pktinfo ? r->first_ip + (uint32_t)(i % r->per_sock) : r->first_ip;
		if (c->userinfo_extra)
			snprintf(info_extra, sizeof(info_extra), "%s%s",
				 c->userinfo_extra[0] == '\\' ? "" : "\\",
				 c->userinfo_extra);
		/* what a stock client sends: name, colours, rate, and the
		 * player and eye model checksums of id's data */
		snprintf(b->info, sizeof(b->info),
			 "\\name\\%s\\topcolor\\%u\\bottomcolor\\%u\\rate\\%d"
			 "\\pmodel\\33168\\emodel\\6967%s",
			 b->st->name, qwt_rng_below(&b->rng, 14),
			 qwt_rng_below(&b->rng, 14), c->client_rate, info_extra);
		if (c->behaviour == QWB_REPLAY && r->nactions > 0) {
			b->actions = &r->actions[i % r->nactions];
			b->st->actions_file = i % r->nactions;
		}
		b->track = i < c->track_entities;
		o.server = c->server;
		o.qport = (uint16_t)(1 + (qbase + (uint32_t)i) % 65535);
		o.userinfo = b->info;
		o.extension = r->qwdx;
		o.checksum2 = r->checksum2;
		o.max_players = r->qwdx ? 64 : MAX_CLIENTS;
		o.track_entities = b->track;
		o.packet_interval = r->interval;
		o.resend_interval = 1.0;
		o.on_ack = on_ack;
		o.on_print = c->verbose ? on_print : NULL;
		o.ctx = b;
		if (qwc_init(&b->q, &o) != 0) {
			snprintf(err, errsize, "out of memory for bot %d", i);
			return -1;
		}
		io_bot_address(r, b);
	}
	return 0;
}

static int load_inputs(struct run *r, char *err, size_t errsize)
{
	const struct qwb_config *c = r->cfg;

	if (c->map_path) {
		char e[256];
		struct bsp_map *m = bsp_load(c->map_path, e, sizeof(e));

		if (!m) {
			snprintf(err, errsize, "--map %s: %s", c->map_path, e);
			return -1;
		}
		r->checksum2 = m->checksum2;
		bsp_free(m);
		actions_map_name(c->map_path, r->map, sizeof(r->map));
	} else {
		strlcpy(r->map, "unknown", sizeof(r->map));
	}
	if (c->have_checksum)
		r->checksum2 = c->checksum2;
	if (c->behaviour == QWB_REPLAY) {
		for (int i = 0; i < c->nactions; i++) {
			struct actions_stats ps;

			if (actions_load(c->actions[i], &r->actions[i], &ps, err,
					     errsize) != 0) {
				size_t l = strlen(err);

				if (ps.bad_lines > 1 && l + 40 < errsize)
					snprintf(err + l, errsize - l, " (%zu bad lines in all)",
						 ps.bad_lines);
				return -1;
			}
			r->nactions++;
			if (r->actions[i].n == 0) {
				snprintf(err, errsize, "%s: no commands", c->actions[i]);
				return -1;
			}
		}
	}
	if (c->record_path) {
		if (c->record_bot >= c->bots) {
			snprintf(err, errsize, "--record-bot %d: there are %d bots",
				 c->record_bot, c->bots);
			return -1;
		}
		r->record = fopen(c->record_path, "w");
		if (!r->record) {
			snprintf(err, errsize, "%s: %s", c->record_path, strerror(errno));
			return -1;
		}
	}
	if (c->series_path) {
		r->series = fopen(c->series_path, "w");
		if (!r->series) {
			snprintf(err, errsize, "%s: %s", c->series_path, strerror(errno));
			return -1;
		}
		fprintf(r->series, "t,phase,in_game,requests_per_s,replies_per_s,"
				   "response_rate,rt_p50_ms,rt_p99_ms,rt_max_ms,"
				   "bytes_in_per_s,bytes_out_per_s,bad\n");
	}
	return 0;
}

static void run_free(struct run *r)
{
	if (r->bots)
		for (int i = 0; i < r->n; i++)
			qwc_free(&r->bots[i].q);
	if (r->fds)
		for (int i = 0; i < r->nfds; i++)
			if (r->fds[i] >= 0)
				close(r->fds[i]);
	if (r->epfd >= 0)
		close(r->epfd);
	for (int i = 0; i < r->nactions; i++)
		actions_free(&r->actions[i]);
	if (r->record)
		fclose(r->record);
	if (r->series)
		fclose(r->series);
	free(r->fds);
	free(r->bots);
	free(r->stats);
	free(r->heap);
	free(r->rx);
	free(r->tx);
}

/* every bot started is in the game or out for good */
static bool join_settled(const struct run *r)
{
	return r->next_join >= r->n && r->n_in_game + r->n_out >= r->n;
}

/* every bot in the game has had an answer to its last request of the
 * window (O(bots), run only while draining, at most a second) */
static bool window_answered(const struct run *r)
{
	for (int i = 0; i < r->n; i++) {
		const struct bot *b = &r->bots[i];

		if (b->in_game && b->last_window_seq &&
		    b->q.chan.incoming_acknowledged < b->last_window_seq)
			return false;
	}
	return true;
}

static void start_window(struct run *r, double now)
{
	r->phase = PH_MEASURE;
	r->measuring = true;
	r->window_start = now;
	r->window_end = now + r->cfg->duration;
	r->report.window_start_unix = qwd_clock_s(CLOCK_REALTIME);
	for (int i = 0; i < r->n; i++)
		r->bots[i].chokes_seen = r->bots[i].q.stats.chokes;
	qwt_self_cpu(&r->cpu_start_user, &r->cpu_start_sys);
	r->server_cpu_start = qwt_proc_cpu_ticks_s(r->cfg->server_pid);
}

static void end_window(struct run *r, double now)
{
	double u, s;

	r->measuring = false;
	r->window_end = now;
	r->report.window_end_unix = qwd_clock_s(CLOCK_REALTIME);
	qwt_self_cpu(&u, &s);
	r->report.cpu_user_s = u - r->cpu_start_user;
	r->report.cpu_sys_s = s - r->cpu_start_sys;
	if (r->server_cpu_start >= 0) {
		double e = qwt_proc_cpu_ticks_s(r->cfg->server_pid);

		r->report.server_cpu_s = e >= 0 ? e - r->server_cpu_start : -1;
	}
}

/* every connected bot says "drop", in one batch */
static void leave(struct run *r, double now)
{
	for (int i = 0; i < r->n; i++) {
		struct bot *b = &r->bots[i];
		enum qwc_state s = b->q.state;

		b->st->state = qwc_state_name(s);
		b->st->slot = b->q.playernum;
		if (s >= QWC_CONNECTED && s <= QWC_ACTIVE) {
			qwc_disconnect(&b->q);
			io_tx_packet(r, b, now);
		}
	}
	io_tx_flush(r);
	r->phase = PH_DONE;
}

static void advance(struct run *r, double now, bool stop)
{
	if (stop && r->phase < PH_LEAVE) {
		if (r->measuring)
			end_window(r, now);
		r->phase = PH_LEAVE;
	}
	switch (r->phase) {
	case PH_JOIN:
		if (join_settled(r) || now >= r->join_deadline) {
			r->report.join_phase_s = now - r->t0;
			r->phase = PH_WARMUP;
			r->phase_end = now + r->cfg->warmup;
		}
		if (r->phase != PH_WARMUP)
			break;
		/* fall through */
	case PH_WARMUP:
		if (now >= r->phase_end)
			start_window(r, now);
		break;
	case PH_MEASURE:
		if (now >= r->window_end) {
			end_window(r, now);
			r->phase = PH_DRAIN;
			r->drain_end = now + DRAIN_MAX;
		}
		break;
	case PH_DRAIN:
		if (now >= r->drain_end || window_answered(r))
			r->phase = PH_LEAVE;
		break;
	default:
		break;
	}
	if (r->phase == PH_LEAVE)
		leave(r, now);
}

/* one --series row: the figures since the last row, over its real span */
static void series_row(struct run *r, double now, int in_game)
{
	struct live d;
	double span = now - r->series_from;

	if (span <= 0)
		span = 1;
	d.requests = r->live.requests - r->series_prev.requests;
	d.replies = r->live.replies - r->series_prev.replies;
	d.bytes_in = r->live.bytes_in - r->series_prev.bytes_in;
	d.bytes_out = r->live.bytes_out - r->series_prev.bytes_out;
	fprintf(r->series, "%.1f,%s,%d,%.1f,%.1f,%.4f,%.3f,%.3f,%.3f,%.0f,%.0f,%llu\n",
		now - r->t0, qwb_phase_names[r->phase], in_game,
		(double)d.requests / span, (double)d.replies / span,
		d.requests ? (double)d.replies / (double)d.requests : 0,
		(double)qwd_hist_quantile(&r->series_rt, 0.50) / 1e6,
		(double)qwd_hist_quantile(&r->series_rt, 0.99) / 1e6,
		(double)qwd_hist_quantile(&r->series_rt, 1) / 1e6, (double)d.bytes_in / span,
		(double)d.bytes_out / span, (unsigned long long)r->live.bad);
	fflush(r->series);
	r->series_prev = r->live;
	r->series_from = now;
	r->next_series += r->cfg->series_interval;
	qwd_hist_clear(&r->series_rt);
}

static void progress(struct run *r, double now, bool final)
{
	struct live d;
	double span = 1.0;
	char line[256];
	int in_game;

	if (now < r->next_progress && !final)
		return;
	if (!final)
		r->next_progress += 1.0;
	if (final && !r->tty)
		return;
	d.requests = r->live.requests - r->live_prev.requests;
	d.replies = r->live.replies - r->live_prev.replies;
	d.bytes_in = r->live.bytes_in - r->live_prev.bytes_in;
	d.bytes_out = r->live.bytes_out - r->live_prev.bytes_out;
	d.bad = r->live.bad;
	in_game = r->n_in_game;
	if (!final) {
		r->live_prev = r->live;
		if (r->series && now >= r->next_series)
			series_row(r, now, in_game);
	}
	if (r->tty) {
		qwb_progress_line(line, sizeof(line), now - r->t0, qwb_phase_names[r->phase],
				  in_game, r->n, (double)d.requests / span,
				  (double)d.replies / span, &r->interval_rt,
				  (double)d.bytes_in / span, (double)d.bytes_out / span,
				  d.bad);
		fprintf(stderr, "\r%s\033[K%s", line, final ? "\n" : "");
	}
	if (!final)
		qwd_hist_clear(&r->interval_rt);
}

static void loop(struct run *r, const volatile sig_atomic_t *stop)
{
	double now = qwd_clock_s(CLOCK_MONOTONIC);

	r->t0 = now;
	r->next_progress = now + 1.0;
	r->series_from = now;
	r->next_series = now + r->cfg->series_interval;
	r->join_deadline = now + (double)r->n / r->cfg->join_rate + r->cfg->join_timeout;
	r->phase = PH_JOIN;
	while (r->phase != PH_DONE) {
		io_wait_events(r, sched_next_wake(r, now));
		now = qwd_clock_s(CLOCK_MONOTONIC);
		sched_start_joins(r, now);
		sched_send_due(r, now);
		advance(r, now, stop && *stop);
		progress(r, now, false);
	}
	progress(r, now, true);
}

static void summary(const struct run *r, const struct qwb_totals *t)
{
	const struct qwb_report *p = &r->report;

	fprintf(stderr, "qwbots: %d/%d bots reached the game (join %.2f s mean, "
			"%.2f s max), %d in the game at the end, %d dropped; "
			"window %.1f s\n",
		t->reached, t->bots, t->join_mean_s, t->join_max_s, t->in_game,
		t->dropped, t->window);
	fprintf(stderr, "qwbots: requests %llu (%.1f/s), replies %llu (%.1f/s), "
			"response rate %.4f\n",
		(unsigned long long)t->requests, t->requests_per_s,
		(unsigned long long)t->replies, t->replies_per_s, t->response_rate);
	fprintf(stderr, "qwbots: response time mean %.3f ms, p50 %.3f, p99 %.3f, "
			"max %.3f ms (%llu samples)\n",
		qwd_hist_mean(&t->rt) / 1e6,
		(double)qwd_hist_quantile(&t->rt, 0.50) / 1e6,
		(double)qwd_hist_quantile(&t->rt, 0.99) / 1e6,
		(double)qwd_hist_quantile(&t->rt, 1) / 1e6,
		(unsigned long long)t->rt.count);
	fprintf(stderr, "qwbots: in %.1f kB/s, out %.1f kB/s; players/reply %.2f, "
			"entities/reply %.2f; bad replies %llu, foreign %llu\n",
		t->bytes_in_per_s / 1000.0, t->bytes_out_per_s / 1000.0,
		t->players_per_reply, t->ents_per_reply,
		(unsigned long long)t->bad_total, (unsigned long long)p->foreign);
	fprintf(stderr, "qwbots: cpu %.2f s user + %.2f s sys (%.1f%% of the window)",
		p->cpu_user_s, p->cpu_sys_s,
		t->window > 0 ? (p->cpu_user_s + p->cpu_sys_s) / t->window * 100.0 : 0.0);
	if (p->server_cpu_s >= 0)
		fprintf(stderr, "; server cpu %.2f s (%.1f%%)", p->server_cpu_s,
			t->window > 0 ? p->server_cpu_s / t->window * 100.0 : 0.0);
	fprintf(stderr, "\n");
	for (int i = 0; i < r->n; i++) {
		const struct qwb_bot_stats *s = &r->stats[i];

		if (!s->reached)
			fprintf(stderr, "qwbots: %s never reached the game: %s%s%s\n",
				s->name, s->state, s->reason[0] ? ", " : "", s->reason);
	}
}

static int write_outputs(struct run *r, const struct qwb_totals *t)
{
	const struct qwb_config *c = r->cfg;
	int rc = 0;

	if (c->json_path) {
		FILE *f = fopen(c->json_path, "w");

		if (!f || qwb_write_json(f, &r->report, r->stats, r->n, t) != 0) {
			fprintf(stderr, "qwbots: cannot write %s: %s\n", c->json_path,
				strerror(errno));
			rc = -1;
		}
		if (f && fclose(f) != 0)
			rc = -1;
	}
	if (c->csv_path) {
		FILE *f = fopen(c->csv_path, "w");

		if (!f || qwb_write_csv(f, r->stats, r->n, t) != 0) {
			fprintf(stderr, "qwbots: cannot write %s: %s\n", c->csv_path,
				strerror(errno));
			rc = -1;
		}
		if (f && fclose(f) != 0)
			rc = -1;
	}
	return rc;
}

int qwb_run(const struct qwb_config *cfg, const volatile sig_atomic_t *stop)
{
	struct run *r = calloc(1, sizeof(*r));
	struct qwb_totals *t = calloc(1, sizeof(*t));
	char err[512], started[32];
	time_t wall = time(NULL);
	struct tm tm;
	int status;

	if (!r || !t) {
		fprintf(stderr, "qwbots: out of memory\n");
		free(r);
		free(t);
		return 2;
	}
	r->cfg = cfg;
	r->n = cfg->bots;
	r->epfd = -1;
	r->interval = 1.0 / cfg->rate;
	r->stop = stop;
	r->qwdx = cfg->qwdx == QWB_QWDX_ON || (cfg->qwdx == QWB_QWDX_AUTO && cfg->bots > MAX_CLIENTS);
	r->tty = cfg->progress == 1 || (cfg->progress < 0 && isatty(STDERR_FILENO));
	r->report.server_cpu_s = -1;
	qwd_hist_clear(&r->interval_rt);
	qwd_hist_clear(&r->series_rt);
	net_addr_to_sockaddr(&cfg->server, &r->server_sa);
	gmtime_r(&wall, &tm);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	r->rx = calloc(1, sizeof(*r->rx));
	r->tx = calloc(1, sizeof(*r->tx));
	if (!r->rx || !r->tx) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	if (load_inputs(r, err, sizeof(err)) || io_open_sockets(r, err, sizeof(err)) ||
	    make_bots(r, err, sizeof(err)))
		goto fail;

	loop(r, stop);

	r->report.cfg = cfg;
	r->report.map = r->map;
	r->report.started = started;
	r->report.qwdx = r->qwdx;
	r->report.nsockets = r->nfds;
	r->report.foreign = r->foreign;
	r->report.unroutable = r->unroutable;
	r->report.send_errors = r->send_errors;
	r->report.send_calls = r->send_calls;
	r->report.recv_calls = r->recv_calls;
	r->report.action_files = cfg->actions;
	r->report.nactions = cfg->behaviour == QWB_REPLAY ? cfg->nactions : 0;
	qwb_totals_compute(r->stats, r->n,
			   r->window_end > r->window_start ? r->window_end - r->window_start : 0,
			   t);
	if (!cfg->quiet)
		summary(r, t);
	status = t->reached < t->bots ? 1 : t->dropped > 0 ? 3 : 0;
	if (write_outputs(r, t) != 0)
		status = 2;
	run_free(r);
	free(r);
	free(t);
	return status;

fail:
	fprintf(stderr, "qwbots: %s\n", err);
	run_free(r);
	free(r);
	free(t);
	return 2;
}
