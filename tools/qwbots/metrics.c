/*
 * metrics.c -- totals over the bots, and the outputs (JSON, CSV, the
 * one-line progress display).
 *
 * Design note
 *   Response time is the time from sending a request to the first reply
 *   that acknowledges it (the netchan ack of the reply names the newest
 *   request the server had), the client-side figure of the QuakeWorld
 *   studies.  Samples go into one histogram per bot, the project's
 *   (struct qwd_hist: nanoseconds, log-linear, a percentile within 1/128
 *   of a recorded value, the same rule as qwd's request times).  Totals
 *   merge the bots' buckets, so the total p99 is the p99 of all samples,
 *   not a mean of p99s.
 *
 *   Rates are per second of the measurement window; response_rate is
 *   replies / requests over that window (1.0: every request answered).
 *   The writers never fail halfway silently: they return -1 when the
 *   stream reports an error.
 */
#include "qwbots.h"

#include <math.h>
#include <string.h>

/* a response-time figure in milliseconds: the quantile q (q < 0: the
 * mean) of a histogram of nanoseconds */
static double rt_ms(const struct qwd_hist *h, double q)
{
	return (q < 0 ? qwd_hist_mean(h) : (double)qwd_hist_quantile(h, q)) / 1e6;
}

/* ---- totals ------------------------------------------------------------ */

static double per(double a, double b)
{
	return b > 0 ? a / b : 0;
}

void qwb_totals_compute(const struct qwb_bot_stats *b, int n, double window,
			struct qwb_totals *t)
{
	double join_sum = 0;
	int joins = 0;

	memset(t, 0, sizeof(*t));
	qwd_hist_clear(&t->rt);
	t->bots = n;
	t->window = window;
	for (int i = 0; i < n; i++) {
		const struct qwb_bot_stats *s = &b[i];

		if (s->reached) {
			t->reached++;
			join_sum += s->join_s;
			joins++;
			if (s->join_s > t->join_max_s)
				t->join_max_s = s->join_s;
		}
		if (s->dropped)
			t->dropped++;
		if (s->state && strcmp(s->state, "active") == 0)
			t->in_game++;
		t->requests += s->requests;
		t->replies += s->replies;
		t->acks += s->acks;
		t->bytes_out += s->bytes_out;
		t->bytes_in += s->bytes_in;
		t->players_sum += s->players_sum;
		if (s->players_max > t->players_max)
			t->players_max = s->players_max;
		t->ents_replies += s->ents_replies;
		t->ents_sum += s->ents_sum;
		if (s->ents_max > t->ents_max)
			t->ents_max = s->ents_max;
		t->chokes += s->chokes;
		t->lost += s->lost;
		for (int k = 0; k < QWB_BAD_KINDS; k++) {
			t->bad[k] += s->bad[k];
			t->bad_total += s->bad[k];
		}
		qwd_hist_merge(&t->rt, &s->rt);
	}
	t->requests_per_s = per((double)t->requests, window);
	t->replies_per_s = per((double)t->replies, window);
	t->response_rate = per((double)t->replies, (double)t->requests);
	t->bytes_in_per_s = per((double)t->bytes_in, window);
	t->bytes_out_per_s = per((double)t->bytes_out, window);
	t->players_per_reply = per((double)t->players_sum, (double)t->replies);
	t->ents_per_reply = per((double)t->ents_sum, (double)t->ents_replies);
	t->join_mean_s = per(join_sum, joins);
}

/* ---- JSON -------------------------------------------------------------- */

static const char *bad_name(int k)
{
	return k < QWC_BAD_KINDS ? qwc_bad_name((enum qwc_bad_kind)k) : "oversized";
}

static void json_rt(struct json_out *j, const char *key, const struct qwd_hist *h)
{
	json_begin(j, key, '{');
	json_u64(j, "samples", h->count);
	json_num(j, "mean", rt_ms(h, -1));
	json_num(j, "p50", rt_ms(h, 0.50));
	json_num(j, "p90", rt_ms(h, 0.90));
	json_num(j, "p99", rt_ms(h, 0.99));
	json_num(j, "max", rt_ms(h, 1));
	json_end(j);
}

static void json_bad(struct json_out *j, const uint64_t *bad)
{
	json_begin(j, "bad", '{');
	for (int k = 0; k < QWB_BAD_KINDS; k++)
		json_u64(j, bad_name(k), bad[k]);
	json_end(j);
}

static void json_vec(struct json_out *j, const char *key, const float *v)
{
	json_begin(j, key, '[');
	for (int k = 0; k < 3; k++)
		json_fixed(j, NULL, v[k], 1);
	json_end(j);
}

static const char *behaviour_name(enum qwb_behaviour b)
{
	return b == QWB_WALKER ? "walker" : b == QWB_REPLAY ? "replay" : "idle";
}

static void json_config(struct json_out *j, const struct qwb_report *r)
{
	const struct qwb_config *c = r->cfg;

	json_break(j, 2);
	json_begin(j, "config", '{');
	json_str(j, "server", c->server_text);
	json_str(j, "map", r->map);
	json_i64(j, "bots", c->bots);
	json_num(j, "rate", c->rate);
	json_num(j, "jitter", c->jitter);
	json_num(j, "duration", c->duration);
	json_num(j, "warmup", c->warmup);
	json_num(j, "join_rate", c->join_rate);
	json_u64(j, "seed", c->seed);
	json_str(j, "behaviour", behaviour_name(c->behaviour));
	json_bool(j, "qwdx", r->qwdx);
	json_i64(j, "client_rate", c->client_rate);
	json_i64(j, "sockets", r->nsockets);
	if (c->behaviour == QWB_WALKER) {
		json_begin(j, "walker", '[');
		json_i64(j, NULL, c->walker.idle);
		json_i64(j, NULL, c->walker.walk);
		json_i64(j, NULL, c->walker.after);
		json_end(j);
	}
	json_begin(j, "action_files", '[');
	for (int i = 0; i < r->nactions; i++)
		json_str(j, NULL, r->action_files[i]);
	json_end(j);
	json_str(j, "started", r->started);
	json_end(j);
}

static void json_totals(struct json_out *j, const struct qwb_report *r,
			const struct qwb_totals *t)
{
	json_break(j, 2);
	json_begin(j, "totals", '{');
	json_i64(j, "bots", t->bots);
	json_i64(j, "bots_reached", t->reached);
	json_i64(j, "bots_in_game", t->in_game);
	json_i64(j, "bots_dropped", t->dropped);
	json_num(j, "window_s", t->window);
	json_fixed(j, "window_start_unix", r->window_start_unix, 3);
	json_fixed(j, "window_end_unix", r->window_end_unix, 3);
	json_num(j, "join_phase_s", r->join_phase_s);
	json_num(j, "join_mean_s", t->join_mean_s);
	json_num(j, "join_max_s", t->join_max_s);
	json_break(j, 4);
	json_u64(j, "requests", t->requests);
	json_u64(j, "replies", t->replies);
	json_u64(j, "acks", t->acks);
	json_num(j, "requests_per_s", t->requests_per_s);
	json_num(j, "replies_per_s", t->replies_per_s);
	json_num(j, "response_rate", t->response_rate);
	json_break(j, 4);
	json_rt(j, "response_time_ms", &t->rt);
	json_break(j, 4);
	json_u64(j, "bytes_in", t->bytes_in);
	json_u64(j, "bytes_out", t->bytes_out);
	json_num(j, "bytes_in_per_s", t->bytes_in_per_s);
	json_num(j, "bytes_out_per_s", t->bytes_out_per_s);
	json_num(j, "players_per_reply", t->players_per_reply);
	json_u64(j, "players_max", t->players_max);
	json_num(j, "entities_per_reply", t->ents_per_reply);
	json_u64(j, "entities_max", t->ents_max);
	json_u64(j, "entity_replies", t->ents_replies);
	json_u64(j, "chokes", t->chokes);
	json_u64(j, "lost", t->lost);
	json_break(j, 4);
	json_bad(j, t->bad);
	json_u64(j, "bad_total", t->bad_total);
	json_u64(j, "foreign", r->foreign);
	json_u64(j, "unroutable", r->unroutable);
	json_u64(j, "send_errors", r->send_errors);
	json_u64(j, "send_calls", r->send_calls);
	json_u64(j, "recv_calls", r->recv_calls);
	json_end(j);
}

static void json_bot(struct json_out *j, const struct qwb_bot_stats *s, double window)
{
	json_break(j, 4);
	json_begin(j, NULL, '{');
	json_i64(j, "id", s->id);
	json_str(j, "name", s->name);
	json_str(j, "addr", s->addr);
	json_str(j, "state", s->state ? s->state : "?");
	json_str(j, "reason", s->reason);
	json_i64(j, "slot", s->slot);
	json_bool(j, "reached", s->reached);
	json_bool(j, "dropped", s->dropped);
	json_num(j, "join_s", s->reached ? s->join_s : -1);
	json_u64(j, "requests", s->requests);
	json_u64(j, "replies", s->replies);
	json_num(j, "requests_per_s", per((double)s->requests, window));
	json_num(j, "replies_per_s", per((double)s->replies, window));
	json_num(j, "response_rate", per((double)s->replies, (double)s->requests));
	json_rt(j, "response_time_ms", &s->rt);
	json_num(j, "bytes_in_per_s", per((double)s->bytes_in, window));
	json_num(j, "bytes_out_per_s", per((double)s->bytes_out, window));
	json_num(j, "players_per_reply", per((double)s->players_sum, (double)s->replies));
	json_num(j, "entities_per_reply",
		 s->ents_replies ? per((double)s->ents_sum, (double)s->ents_replies) : -1);
	json_u64(j, "chokes", s->chokes);
	json_u64(j, "lost", s->lost);
	json_u64(j, "signons", s->signons);
	json_bad(j, s->bad);
	if (s->have_origin) {
		json_vec(j, "origin_start", s->origin_start);
		json_vec(j, "origin_end", s->origin_end);
	}
	json_num(j, "moved", s->moved_max);
	json_num(j, "path", s->path);
	json_begin(j, "actions", '{');
	json_u64(j, "jump", s->walker_actions[QWT_ACT_JUMP]);
	json_u64(j, "fire", s->walker_actions[QWT_ACT_FIRE]);
	json_u64(j, "turn", s->walker_actions[QWT_ACT_TURN]);
	json_end(j);
	if (s->actions_file >= 0) {
		json_i64(j, "actions_file", s->actions_file);
		json_u64(j, "replay_starts", s->replay_starts);
		json_u64(j, "spawn_matches", s->spawn_matches);
		json_u64(j, "spawn_kills", s->spawn_kills);
	}
	json_end(j);
}

int qwb_write_json(FILE *f, const struct qwb_report *r,
		   const struct qwb_bot_stats *b, int n,
		   const struct qwb_totals *t)
{
	struct json_out j;

	json_init(&j, f, NULL, 0);
	j.spaced = true;
	j.digits = 6;
	json_begin(&j, NULL, '{');
	json_break(&j, 2);
	json_i64(&j, "qwbots", 1);
	json_config(&j, r);
	json_totals(&j, r, t);
	json_break(&j, 2);
	json_begin(&j, "cpu", '{');
	json_num(&j, "user_s", r->cpu_user_s);
	json_num(&j, "sys_s", r->cpu_sys_s);
	json_num(&j, "percent", per(r->cpu_user_s + r->cpu_sys_s, t->window) * 100.0);
	json_num(&j, "server_s", r->server_cpu_s);
	json_num(&j, "server_percent",
		 r->server_cpu_s >= 0 ? per(r->server_cpu_s, t->window) * 100.0 : -1);
	json_end(&j);
	json_break(&j, 2);
	json_begin(&j, "bots", '[');
	for (int i = 0; i < n; i++)
		json_bot(&j, &b[i], t->window);
	json_break(&j, 2);
	json_end(&j);
	json_break(&j, 0);
	json_end(&j);
	json_raw(&j, "\n");
	return json_finish(&j, NULL);
}

/* ---- CSV --------------------------------------------------------------- */

static void csv_row(FILE *f, const char *id, const char *name, const char *state,
		    int reached, double join_s, uint64_t requests, uint64_t replies,
		    double window, const struct qwd_hist *rt, uint64_t bytes_in,
		    uint64_t bytes_out, double players, double ents, uint64_t bad)
{
	fprintf(f, "%s,%s,%s,%d,%.3f,%llu,%llu,%.3f,%.3f,%.4f,%.3f,%.3f,%.3f,%.3f,"
		   "%.1f,%.1f,%.2f,%.2f,%llu\n",
		id, name, state, reached, join_s, (unsigned long long)requests,
		(unsigned long long)replies, per((double)requests, window),
		per((double)replies, window), per((double)replies, (double)requests),
		rt_ms(rt, -1), rt_ms(rt, 0.50), rt_ms(rt, 0.99), rt_ms(rt, 1),
		per((double)bytes_in, window),
		per((double)bytes_out, window), players, ents, (unsigned long long)bad);
}

int qwb_write_csv(FILE *f, const struct qwb_bot_stats *b, int n,
		  const struct qwb_totals *t)
{
	char id[16];

	fprintf(f, "id,name,state,reached,join_s,requests,replies,requests_per_s,"
		   "replies_per_s,response_rate,rt_mean_ms,rt_p50_ms,rt_p99_ms,"
		   "rt_max_ms,bytes_in_per_s,bytes_out_per_s,players_per_reply,"
		   "entities_per_reply,bad\n");
	for (int i = 0; i < n; i++) {
		const struct qwb_bot_stats *s = &b[i];
		uint64_t bad = 0;

		for (int k = 0; k < QWB_BAD_KINDS; k++)
			bad += s->bad[k];
		snprintf(id, sizeof(id), "%d", s->id);
		csv_row(f, id, s->name, s->state ? s->state : "?", s->reached,
			s->reached ? s->join_s : -1, s->requests, s->replies, t->window,
			&s->rt, s->bytes_in, s->bytes_out,
			per((double)s->players_sum, (double)s->replies),
			s->ents_replies ? per((double)s->ents_sum, (double)s->ents_replies) : -1,
			bad);
	}
	csv_row(f, "total", "", "", t->reached, t->join_mean_s, t->requests,
		t->replies, t->window, &t->rt, t->bytes_in, t->bytes_out,
		t->players_per_reply, t->ents_replies ? t->ents_per_reply : -1,
		t->bad_total);
	return ferror(f) ? -1 : 0;
}

/* ---- progress ---------------------------------------------------------- */

static void human_bytes(char *out, size_t outsize, double bps)
{
	if (bps >= 1e6)
		snprintf(out, outsize, "%.1fMB/s", bps / 1e6);
	else
		snprintf(out, outsize, "%.0fkB/s", bps / 1e3);
}

void qwb_progress_line(char *out, size_t outsize, double t, const char *phase,
		       int in_game, int bots, double req_s, double rep_s,
		       const struct qwd_hist *interval, double in_bps,
		       double out_bps, uint64_t bad)
{
	char in[24], ob[24];

	human_bytes(in, sizeof(in), in_bps);
	human_bytes(ob, sizeof(ob), out_bps);
	snprintf(out, outsize,
		 "%6.1fs %-7s bots %d/%d  req %.0f/s  rep %.0f/s (%.1f%%)  "
		 "rt p50 %.2fms p99 %.2fms  in %s out %s  bad %llu",
		 t, phase, in_game, bots, req_s, rep_s,
		 req_s > 0 ? rep_s / req_s * 100.0 : 0.0,
		 rt_ms(interval, 0.50), rt_ms(interval, 0.99), in, ob,
		 (unsigned long long)bad);
}
