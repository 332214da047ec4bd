/*
 * metrics.c -- response-time histograms, totals, and the outputs (JSON,
 * CSV, the one-line progress display).
 *
 * Design note
 *   Response time is the time from sending a request to the first reply
 *   that acknowledges it (the netchan ack of the reply names the newest
 *   request the server had), the client-side figure of the QuakeWorld
 *   studies.  Samples go into a fixed log-linear histogram per bot: a
 *   value v < 64 us has its own bucket; above, the bucket is the top
 *   seven significant bits of v, so 64 buckets per power of two and a
 *   relative width of at most 1/64.  A percentile is reported as the
 *   middle of its bucket (clamped to the recorded min and max), within
 *   1/128 of a value actually recorded.  Totals merge the bots' buckets,
 *   so the total p99 is the p99 of all samples, not a mean of p99s.
 *
 *   Rates are per second of the measurement window; response_rate is
 *   replies / requests over that window (1.0: every request answered).
 *   The writers never fail halfway silently: they return -1 when the
 *   stream reports an error.
 */
#include "qwbots.h"

#include <math.h>
#include <string.h>

/* ---- histogram --------------------------------------------------------- */

void qwb_hist_clear(struct qwb_hist *h)
{
	memset(h, 0, sizeof(*h));
}

uint32_t qwb_hist_index(uint32_t us)
{
	int msb;

	if (us < QWB_HIST_SUB)
		return us;
	msb = 31 - __builtin_clz(us);	/* >= QWB_HIST_SUB_BITS */
	return (uint32_t)QWB_HIST_SUB +
	       (uint32_t)(msb - QWB_HIST_SUB_BITS) * QWB_HIST_SUB +
	       ((us >> (msb - QWB_HIST_SUB_BITS)) & (QWB_HIST_SUB - 1));
}

uint32_t qwb_hist_lower(uint32_t index)
{
	uint32_t e, sub;

	if (index < QWB_HIST_SUB)
		return index;
	e = (index - QWB_HIST_SUB) / QWB_HIST_SUB; /* msb - SUB_BITS */
	sub = (index - QWB_HIST_SUB) % QWB_HIST_SUB;
	return (QWB_HIST_SUB + sub) << e;
}

/* width of a bucket: 1 below 64, then 2^(msb - 6) */
static uint32_t bucket_width(uint32_t index)
{
	if (index < QWB_HIST_SUB)
		return 1;
	return 1u << ((index - QWB_HIST_SUB) / QWB_HIST_SUB);
}

void qwb_hist_add_us(struct qwb_hist *h, uint32_t us)
{
	if (h->count == 0 || us < h->min_us)
		h->min_us = us;
	if (us > h->max_us)
		h->max_us = us;
	h->count++;
	h->sum_us += us;
	h->bucket[qwb_hist_index(us)]++;
}

void qwb_hist_add(struct qwb_hist *h, double seconds)
{
	double us = seconds * 1e6 + 0.5;

	if (!(us >= 0))
		us = 0;	/* a clock step backwards, or NaN */
	if (us > 4294967295.0)
		us = 4294967295.0;
	qwb_hist_add_us(h, (uint32_t)us);
}

void qwb_hist_merge(struct qwb_hist *into, const struct qwb_hist *from)
{
	if (from->count == 0)
		return;
	if (into->count == 0 || from->min_us < into->min_us)
		into->min_us = from->min_us;
	if (from->max_us > into->max_us)
		into->max_us = from->max_us;
	into->count += from->count;
	into->sum_us += from->sum_us;
	for (int i = 0; i < QWB_HIST_BUCKETS; i++)
		into->bucket[i] += from->bucket[i];
}

double qwb_hist_percentile_us(const struct qwb_hist *h, double p)
{
	uint64_t rank, seen = 0;
	double v;

	if (h->count == 0)
		return 0;
	if (!(p > 0))
		return h->min_us;
	if (p >= 100)
		return h->max_us;
	/* nearest rank: the ceil(p/100 * N)-th smallest sample */
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (uint32_t i = 0; i < QWB_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen < rank)
			continue;
		v = qwb_hist_lower(i) + (bucket_width(i) - 1) / 2.0;
		if (v < h->min_us)
			v = h->min_us;
		if (v > h->max_us)
			v = h->max_us;
		return v;
	}
	return h->max_us;
}

double qwb_hist_mean_us(const struct qwb_hist *h)
{
	return h->count ? (double)h->sum_us / (double)h->count : 0;
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
		qwb_hist_merge(&t->rt, &s->rt);
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

/* a JSON string: quotes, backslashes and control characters escaped */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else if (c >= 0x80)
			fprintf(f, "\\u%04x", c);	/* Quake's charset, not UTF-8 */
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* a number that is always valid JSON (no NaN or infinity) */
static void json_num(FILE *f, double v)
{
	if (!isfinite(v))
		v = 0;
	fprintf(f, "%.6g", v);
}

static void json_rt(FILE *f, const struct qwb_hist *h)
{
	fprintf(f, "{\"samples\": %llu, \"mean\": ", (unsigned long long)h->count);
	json_num(f, qwb_hist_mean_us(h) / 1000.0);
	fprintf(f, ", \"p50\": ");
	json_num(f, qwb_hist_percentile_us(h, 50) / 1000.0);
	fprintf(f, ", \"p90\": ");
	json_num(f, qwb_hist_percentile_us(h, 90) / 1000.0);
	fprintf(f, ", \"p99\": ");
	json_num(f, qwb_hist_percentile_us(h, 99) / 1000.0);
	fprintf(f, ", \"max\": ");
	json_num(f, h->count ? h->max_us / 1000.0 : 0);
	fprintf(f, "}");
}

static void json_bad(FILE *f, const uint64_t *bad)
{
	fprintf(f, "{");
	for (int k = 0; k < QWB_BAD_KINDS; k++)
		fprintf(f, "%s\"%s\": %llu", k ? ", " : "", bad_name(k),
			(unsigned long long)bad[k]);
	fprintf(f, "}");
}

static void json_vec(FILE *f, const float *v)
{
	fprintf(f, "[%.1f, %.1f, %.1f]", v[0], v[1], v[2]);
}

static const char *behaviour_name(enum qwb_behaviour b)
{
	return b == QWB_WALKER ? "walker" : b == QWB_REPLAY ? "replay" : "idle";
}

static void json_config(FILE *f, const struct qwb_report *r)
{
	const struct qwb_config *c = r->cfg;

	fprintf(f, "  \"config\": {\"server\": ");
	json_str(f, c->server_text);
	fprintf(f, ", \"map\": ");
	json_str(f, r->map);
	fprintf(f, ", \"bots\": %d, \"rate\": ", c->bots);
	json_num(f, c->rate);
	fprintf(f, ", \"jitter\": ");
	json_num(f, c->jitter);
	fprintf(f, ", \"duration\": ");
	json_num(f, c->duration);
	fprintf(f, ", \"warmup\": ");
	json_num(f, c->warmup);
	fprintf(f, ", \"join_rate\": ");
	json_num(f, c->join_rate);
	fprintf(f, ", \"seed\": %llu, \"behaviour\": \"%s\", \"qwdx\": %s, "
		   "\"client_rate\": %d, \"sockets\": %d",
		(unsigned long long)c->seed, behaviour_name(c->behaviour),
		r->qwdx ? "true" : "false", c->client_rate, r->nsockets);
	if (c->behaviour == QWB_WALKER)
		fprintf(f, ", \"walker\": [%d, %d, %d]", c->walker.idle,
			c->walker.walk, c->walker.after);
	fprintf(f, ", \"action_files\": [");
	for (int i = 0; i < r->nactions; i++) {
		if (i)
			fprintf(f, ", ");
		json_str(f, r->action_files[i]);
	}
	fprintf(f, "], \"started\": ");
	json_str(f, r->started);
	fprintf(f, "},\n");
}

static void json_totals(FILE *f, const struct qwb_report *r,
			const struct qwb_totals *t)
{
	fprintf(f, "  \"totals\": {\"bots\": %d, \"bots_reached\": %d, "
		   "\"bots_in_game\": %d, \"bots_dropped\": %d, \"window_s\": ",
		t->bots, t->reached, t->in_game, t->dropped);
	json_num(f, t->window);
	fprintf(f, ", \"window_start_unix\": %.3f, \"window_end_unix\": %.3f",
		r->window_start_unix, r->window_end_unix);
	fprintf(f, ", \"join_phase_s\": ");
	json_num(f, r->join_phase_s);
	fprintf(f, ", \"join_mean_s\": ");
	json_num(f, t->join_mean_s);
	fprintf(f, ", \"join_max_s\": ");
	json_num(f, t->join_max_s);
	fprintf(f, ",\n    \"requests\": %llu, \"replies\": %llu, \"acks\": %llu, "
		   "\"requests_per_s\": ",
		(unsigned long long)t->requests, (unsigned long long)t->replies,
		(unsigned long long)t->acks);
	json_num(f, t->requests_per_s);
	fprintf(f, ", \"replies_per_s\": ");
	json_num(f, t->replies_per_s);
	fprintf(f, ", \"response_rate\": ");
	json_num(f, t->response_rate);
	fprintf(f, ",\n    \"response_time_ms\": ");
	json_rt(f, &t->rt);
	fprintf(f, ",\n    \"bytes_in\": %llu, \"bytes_out\": %llu, \"bytes_in_per_s\": ",
		(unsigned long long)t->bytes_in, (unsigned long long)t->bytes_out);
	json_num(f, t->bytes_in_per_s);
	fprintf(f, ", \"bytes_out_per_s\": ");
	json_num(f, t->bytes_out_per_s);
	fprintf(f, ", \"players_per_reply\": ");
	json_num(f, t->players_per_reply);
	fprintf(f, ", \"players_max\": %llu, \"entities_per_reply\": ",
		(unsigned long long)t->players_max);
	json_num(f, t->ents_per_reply);
	fprintf(f, ", \"entities_max\": %llu, \"entity_replies\": %llu, "
		   "\"chokes\": %llu, \"lost\": %llu,\n    \"bad\": ",
		(unsigned long long)t->ents_max, (unsigned long long)t->ents_replies,
		(unsigned long long)t->chokes, (unsigned long long)t->lost);
	json_bad(f, t->bad);
	fprintf(f, ", \"bad_total\": %llu, \"foreign\": %llu, \"unroutable\": %llu, "
		   "\"send_errors\": %llu, \"send_calls\": %llu, \"recv_calls\": %llu},\n",
		(unsigned long long)t->bad_total, (unsigned long long)r->foreign,
		(unsigned long long)r->unroutable, (unsigned long long)r->send_errors,
		(unsigned long long)r->send_calls, (unsigned long long)r->recv_calls);
}

static void json_bot(FILE *f, const struct qwb_bot_stats *s, double window)
{
	fprintf(f, "    {\"id\": %d, \"name\": ", s->id);
	json_str(f, s->name);
	fprintf(f, ", \"addr\": ");
	json_str(f, s->addr);
	fprintf(f, ", \"state\": ");
	json_str(f, s->state ? s->state : "?");
	fprintf(f, ", \"reason\": ");
	json_str(f, s->reason);
	fprintf(f, ", \"slot\": %d, \"reached\": %s, \"dropped\": %s, \"join_s\": ",
		s->slot, s->reached ? "true" : "false", s->dropped ? "true" : "false");
	json_num(f, s->reached ? s->join_s : -1);
	fprintf(f, ", \"requests\": %llu, \"replies\": %llu, \"requests_per_s\": ",
		(unsigned long long)s->requests, (unsigned long long)s->replies);
	json_num(f, per((double)s->requests, window));
	fprintf(f, ", \"replies_per_s\": ");
	json_num(f, per((double)s->replies, window));
	fprintf(f, ", \"response_rate\": ");
	json_num(f, per((double)s->replies, (double)s->requests));
	fprintf(f, ", \"response_time_ms\": ");
	json_rt(f, &s->rt);
	fprintf(f, ", \"bytes_in_per_s\": ");
	json_num(f, per((double)s->bytes_in, window));
	fprintf(f, ", \"bytes_out_per_s\": ");
	json_num(f, per((double)s->bytes_out, window));
	fprintf(f, ", \"players_per_reply\": ");
	json_num(f, per((double)s->players_sum, (double)s->replies));
	fprintf(f, ", \"entities_per_reply\": ");
	json_num(f, s->ents_replies ? per((double)s->ents_sum, (double)s->ents_replies) : -1);
	fprintf(f, ", \"chokes\": %llu, \"lost\": %llu, \"signons\": %llu, \"bad\": ",
		(unsigned long long)s->chokes, (unsigned long long)s->lost,
		(unsigned long long)s->signons);
	json_bad(f, s->bad);
	if (s->have_origin) {
		fprintf(f, ", \"origin_start\": ");
		json_vec(f, s->origin_start);
		fprintf(f, ", \"origin_end\": ");
		json_vec(f, s->origin_end);
	}
	fprintf(f, ", \"moved\": ");
	json_num(f, s->moved_max);
	fprintf(f, ", \"path\": ");
	json_num(f, s->path);
	fprintf(f, ", \"actions\": {\"jump\": %u, \"fire\": %u, \"turn\": %u}",
		s->walker_actions[QWB_ACT_JUMP], s->walker_actions[QWB_ACT_FIRE],
		s->walker_actions[QWB_ACT_TURN]);
	if (s->actions_file >= 0)
		fprintf(f, ", \"actions_file\": %d, \"replay_starts\": %u, "
			   "\"spawn_matches\": %u, \"spawn_kills\": %u",
			s->actions_file, s->replay_starts, s->spawn_matches,
			s->spawn_kills);
	fprintf(f, "}");
}

int qwb_write_json(FILE *f, const struct qwb_report *r,
		   const struct qwb_bot_stats *b, int n,
		   const struct qwb_totals *t)
{
	fprintf(f, "{\n  \"qwbots\": 1,\n");
	json_config(f, r);
	json_totals(f, r, t);
	fprintf(f, "  \"cpu\": {\"user_s\": ");
	json_num(f, r->cpu_user_s);
	fprintf(f, ", \"sys_s\": ");
	json_num(f, r->cpu_sys_s);
	fprintf(f, ", \"percent\": ");
	json_num(f, per(r->cpu_user_s + r->cpu_sys_s, t->window) * 100.0);
	fprintf(f, ", \"server_s\": ");
	json_num(f, r->server_cpu_s);
	fprintf(f, ", \"server_percent\": ");
	json_num(f, r->server_cpu_s >= 0 ? per(r->server_cpu_s, t->window) * 100.0 : -1);
	fprintf(f, "},\n  \"bots\": [\n");
	for (int i = 0; i < n; i++) {
		json_bot(f, &b[i], t->window);
		fprintf(f, "%s\n", i + 1 < n ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	return ferror(f) ? -1 : 0;
}

/* ---- CSV --------------------------------------------------------------- */

static void csv_row(FILE *f, const char *id, const char *name, const char *state,
		    int reached, double join_s, uint64_t requests, uint64_t replies,
		    double window, const struct qwb_hist *rt, uint64_t bytes_in,
		    uint64_t bytes_out, double players, double ents, uint64_t bad)
{
	fprintf(f, "%s,%s,%s,%d,%.3f,%llu,%llu,%.3f,%.3f,%.4f,%.3f,%.3f,%.3f,%.3f,"
		   "%.1f,%.1f,%.2f,%.2f,%llu\n",
		id, name, state, reached, join_s, (unsigned long long)requests,
		(unsigned long long)replies, per((double)requests, window),
		per((double)replies, window), per((double)replies, (double)requests),
		qwb_hist_mean_us(rt) / 1000.0, qwb_hist_percentile_us(rt, 50) / 1000.0,
		qwb_hist_percentile_us(rt, 99) / 1000.0,
		rt->count ? rt->max_us / 1000.0 : 0, per((double)bytes_in, window),
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
		       const struct qwb_hist *interval, double in_bps,
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
		 qwb_hist_percentile_us(interval, 50) / 1000.0,
		 qwb_hist_percentile_us(interval, 99) / 1000.0, in, ob,
		 (unsigned long long)bad);
}
