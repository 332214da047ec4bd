/*
 * prof.c -- phase accounting, request and reply figures, scopes.
 *
 * Design note
 *   The frame is cut into phases by prof_switch(): each call reads the
 *   clock once and charges the time since the previous call to the phase
 *   that was in effect, so the phases of a frame tile it exactly and the
 *   shares of an interval add up to 100% (the studies' execution-time
 *   breakdown).  prof_frame_end() closes the frame at the point where the
 *   server is about to wait, folds the frame's record into the interval
 *   and the total, and reopens PROF_IDLE: the next frame starts with its
 *   wait.  Requests, replies and request times go straight into both
 *   scopes (two additions each); per-frame figures (requests per frame,
 *   busy time) are folded at frame end.  No call here allocates; the
 *   client arrays and histograms were sized by prof_create.
 *
 *   Timers off (prof_set_timers, qwd -notimers): prof_switch and prof_now
 *   return before reading the clock, so a frame costs one clock read (at
 *   its end, to close intervals) instead of two per packet and five per
 *   frame; requests, replies, sizes and traffic are still counted, phase
 *   times and request times are not (the scope says "untimed").  The
 *   switch takes effect at a frame end, so no frame is half timed.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_CLIENTS = 4096 };

static const char *const phase_names[PROF_PHASES] = {
	"world", "receive", "execute", "reply", "idle",
};

const char *prof_phase_name(int phase)
{
	return phase >= 0 && phase < PROF_PHASES ? phase_names[phase] : "?";
}

static uint64_t mono_default(void *ctx)
{
	(void)ctx;
	return qwd_clock_ns(CLOCK_MONOTONIC);
}

static uint64_t wall_default(void *ctx)
{
	(void)ctx;
	return qwd_clock_ns(CLOCK_REALTIME);
}

uint64_t prof_clock_ns(const struct prof *p)
{
	return p->clock.mono_ns(p->clock.ctx);
}

uint64_t prof_now(const struct prof *p)
{
	if (!p->timers)
		return 0;
	return p->clock.mono_ns(p->clock.ctx);
}

static void acc_clear(struct prof *p, struct prof_acc *a, uint64_t start)
{
	uint64_t *in = a->client_in, *out = a->client_out;

	memset(a, 0, sizeof(*a));
	a->client_in = in;
	a->client_out = out;
	a->start_ns = start;
	qwd_hist_clear(&a->request_time);
	qwd_hist_clear(&a->reply_bytes);
	qwd_hist_clear(&a->per_frame);
	qwd_hist_clear(&a->frame_busy);
	if (p->max_clients > 0) {
		memset(in, 0, (size_t)p->max_clients * sizeof(*in));
		memset(out, 0, (size_t)p->max_clients * sizeof(*out));
	}
}

struct prof *prof_create(const struct prof_config *cfg)
{
	struct prof *p = calloc(1, sizeof(*p));
	size_t n;

	if (!p)
		return NULL;
	p->clock = cfg->clock;
	if (!p->clock.mono_ns)
		p->clock.mono_ns = mono_default;
	if (!p->clock.wall_ns)
		p->clock.wall_ns = wall_default;
	p->log = cfg->log;
	p->max_clients = cfg->max_clients < 0 ? 0
			 : cfg->max_clients > MAX_CLIENTS ? MAX_CLIENTS
							  : cfg->max_clients;
	n = (size_t)p->max_clients;
	if (n) {
		p->client_mem = calloc(4 * n, sizeof(uint64_t));
		if (!p->client_mem) {
			free(p);
			return NULL;
		}
		p->interval.client_in = p->client_mem;
		p->interval.client_out = p->client_mem + n;
		p->total.client_in = p->client_mem + 2 * n;
		p->total.client_out = p->client_mem + 3 * n;
	}
	prof_set_interval(p, cfg->interval_s > 0 ? cfg->interval_s : 10.0);
	p->report_console = cfg->report_console;
	prof_ctr_init(p, cfg->perf, cfg->rotate_frames, cfg->counters_merge_rx_exec,
		      cfg->counter_sample);

	p->timers = p->timers_want = true;
	p->created_ns = prof_clock_ns(p);
	p->last_frame_end = p->created_ns;
	p->phase = PROF_IDLE;
	p->phase_start = p->created_ns;
	p->cur.start_ns = p->created_ns;
	p->cur.counter_group = -1;
	p->last.counter_group = -1;
	acc_clear(p, &p->interval, p->created_ns);
	acc_clear(p, &p->total, p->created_ns);
	prof_get_stats(p, PROF_SCOPE_INTERVAL, &p->last_stats);
	if (cfg->counters)
		prof_counters_set(p, true);
	return p;
}

void prof_destroy(struct prof *p)
{
	if (!p)
		return;
	prof_counters_set(p, false);
	free(p->client_mem);
	free(p);
}

/* ---- the frame path --------------------------------------------------- */

static void close_phase(struct prof *p, uint64_t now)
{
	if (now > p->phase_start)
		p->cur.phase_ns[p->phase] += now - p->phase_start;
}

uint64_t prof_switch(struct prof *p, enum prof_phase next)
{
	uint64_t now;

	if (!p->timers)
		return 0;
	now = p->clock.mono_ns(p->clock.ctx);
	if ((unsigned)next >= PROF_PHASES)
		return now;
	close_phase(p, now);
	p->phase = next;
	p->phase_start = now;
	if (p->ctr.on)
		prof_ctr_boundary(p, next, now, false);
	return now;
}

enum prof_phase prof_phase_now(const struct prof *p)
{
	return p->phase;
}

/* the timer setting asked for, at a frame boundary; counters need the
 * phase boundaries, so they close with the timers */
static void apply_timers(struct prof *p)
{
	if (p->timers == p->timers_want)
		return;
	if (!p->timers_want && p->ctr.on) {
		prof_counters_set(p, false);
		qwd_logf(p->log, QWD_LOG_WARN,
			 "counters: closed, the phase timers are off");
	}
	p->timers = p->timers_want;
}

void prof_set_timers(struct prof *p, bool on)
{
	p->timers_want = on;
}

bool prof_timers_on(const struct prof *p)
{
	return p->timers_want;
}

static void acc_add_frame(struct prof_acc *a, const struct prof_frame_record *f,
			  const struct prof_ctr_acc *ctr, uint64_t busy, bool timed)
{
	a->frames++;
	a->untimed |= !timed;
	for (int ph = 0; ph < PROF_PHASES; ph++)
		a->phase_ns[ph] += f->phase_ns[ph];
	a->requests += f->requests;
	a->replies += f->replies;
	qwd_hist_add(&a->per_frame, f->requests);
	if (timed)
		qwd_hist_add(&a->frame_busy, busy);
	/* a frame without counter reads left its counter sums zero: adding
	 * them would cost ~800 instructions a frame for nothing */
	if (ctr->on)
		prof_ctr_acc_add(&a->ctr, ctr);
}

void prof_frame_end(struct prof *p)
{
	uint64_t now = p->clock.mono_ns(p->clock.ctx);
	uint64_t dur, busy;

	if (p->timers)
		close_phase(p, now);
	if (p->ctr.on)
		prof_ctr_boundary(p, PROF_IDLE, now, true);
	p->cur.seq = ++p->frame_seq;
	p->cur.end_ns = now;
	p->cur.counter_group = p->ctr.on && p->ctr.rotating ? p->ctr.active : -1;
	dur = now > p->cur.start_ns ? now - p->cur.start_ns : 0;
	busy = dur > p->cur.phase_ns[PROF_IDLE] ? dur - p->cur.phase_ns[PROF_IDLE] : 0;
	acc_add_frame(&p->interval, &p->cur, &p->cur_ctr, busy, p->timers);
	acc_add_frame(&p->total, &p->cur, &p->cur_ctr, busy, p->timers);
	p->last = p->cur;

	memset(&p->cur, 0, sizeof(p->cur));
	p->cur.start_ns = now;
	if (p->cur_ctr.on)
		prof_ctr_acc_clear(&p->cur_ctr);
	p->phase = PROF_IDLE;
	p->phase_start = now;
	p->last_frame_end = now;
	prof_ctr_frame_end(p);
	apply_timers(p);
}

void prof_request(struct prof *p, int slot, size_t bytes)
{
	p->cur.requests++;
	if (slot >= 0 && slot < p->max_clients) {
		p->interval.client_in[slot] += bytes;
		p->total.client_in[slot] += bytes;
	}
}

void prof_reply(struct prof *p, int slot, size_t bytes)
{
	p->cur.replies++;
	qwd_hist_add(&p->interval.reply_bytes, bytes);
	qwd_hist_add(&p->total.reply_bytes, bytes);
	if (slot >= 0 && slot < p->max_clients) {
		p->interval.client_out[slot] += bytes;
		p->total.client_out[slot] += bytes;
	}
}

void prof_request_done(struct prof *p, uint64_t recv_ns, uint64_t reply_ns)
{
	if (recv_ns == 0 || recv_ns > reply_ns)
		return;
	qwd_hist_add(&p->interval.request_time, reply_ns - recv_ns);
	qwd_hist_add(&p->total.request_time, reply_ns - recv_ns);
}

void prof_net_totals(struct prof *p, uint64_t packets_in, uint64_t bytes_in,
		     uint64_t packets_out, uint64_t bytes_out)
{
	const uint64_t now[4] = {packets_in, bytes_in, packets_out, bytes_out};
	uint64_t d[4];

	for (int i = 0; i < 4; i++) {
		/* a counter that went down was zeroed by its owner */
		d[i] = now[i] >= p->net_last[i] ? now[i] - p->net_last[i] : now[i];
		p->net_last[i] = now[i];
	}
	p->interval.packets_in += d[0];
	p->interval.bytes_in += d[1];
	p->interval.packets_out += d[2];
	p->interval.bytes_out += d[3];
	p->total.packets_in += d[0];
	p->total.bytes_in += d[1];
	p->total.packets_out += d[2];
	p->total.bytes_out += d[3];
}

void prof_client_reset(struct prof *p, int slot)
{
	if (slot < 0 || slot >= p->max_clients)
		return;
	p->interval.client_in[slot] = p->interval.client_out[slot] = 0;
	p->total.client_in[slot] = p->total.client_out[slot] = 0;
}

void prof_reset(struct prof *p)
{
	uint64_t now = prof_clock_ns(p);
	int group = p->cur.counter_group;

	acc_clear(p, &p->interval, now);
	acc_clear(p, &p->total, now);
	memset(&p->cur, 0, sizeof(p->cur));
	p->cur.start_ns = now;
	p->cur.counter_group = group;
	prof_ctr_acc_clear(&p->cur_ctr);
	p->phase_start = now;
	p->last_frame_end = now;
	apply_timers(p);
	if (p->ctr.on)
		prof_ctr_rebase(p, now);
}

const struct prof_frame_record *prof_last_frame(const struct prof *p)
{
	return &p->last;
}

/* ---- settings ---------------------------------------------------------- */

void prof_set_stats_file(struct prof *p, FILE *f)
{
	p->stats_file = f;
	p->told_write_error = false;
}

void prof_set_interval(struct prof *p, double seconds)
{
	if (!(seconds >= 0.001))
		seconds = 0.001;
	if (seconds > 86400.0)
		seconds = 86400.0;
	p->interval_ns = (uint64_t)(seconds * 1e9);
}

void prof_set_report_console(struct prof *p, bool on)
{
	p->report_console = on;
}

void prof_get_settings(const struct prof *p, struct prof_settings *out)
{
	const struct prof_counters *c = &p->ctr;

	memset(out, 0, sizeof(*out));
	out->report_console = p->report_console;
	out->interval_s = (double)p->interval_ns * 1e-9;
	out->stats_file = p->stats_file != NULL;
	out->timers = p->timers_want;
	out->counters = c->on;
	if (!c->on)
		out->counter_mode = PROF_CTR_OFF;
	else if (c->rotating)
		out->counter_mode = PROF_CTR_ROTATING;
	else if (c->hw)
		out->counter_mode = PROF_CTR_ALL;
	else
		out->counter_mode = c->g[PROF_GROUP_SW].nopen ? PROF_CTR_SOFTWARE
							      : PROF_CTR_NONE;
	prof_ctr_groups_open(p, out->groups, sizeof(out->groups));
	out->user_only = c->user_only;
	out->merge = c->merge;
	out->sample_every = c->sample_every;
	out->read_errors = c->read_errors;
}

/* ---- figures ----------------------------------------------------------- */

static void derived_nan(struct prof_derived *d)
{
	d->ipc = d->branch_miss_rate = NAN;
	d->l1d_mpki = d->l1i_mpki = d->llc_mpki = NAN;
	d->stall_frontend = d->stall_backend = d->cpu_share = NAN;
	d->cycles = d->instructions = NAN;
	d->context_switches = d->page_faults = NAN;
}

static void stats_counters(const struct prof_acc *a, struct prof_stats *st)
{
	struct prof_ctr_acc c = a->ctr;
	uint64_t ns[PROF_PHASES];
	const unsigned all = (1u << PROF_PHASES) - 1;

	memcpy(ns, a->phase_ns, sizeof(ns));
	st->counters_user_only = c.user_only;
	st->counters_merged = c.merged;
	st->events_counted = 0;
	for (int g = 0; g < PROF_GROUPS; g++)
		for (int m = 0; m < prof_group_size(g); m++)
			if (c.counted[g] & (1u << m))
				st->events_counted |= 1u << prof_group_event(g, m);
	if (!c.on)
		st->counter_mode = PROF_CTR_OFF;
	else if (c.rotating)
		st->counter_mode = PROF_CTR_ROTATING;
	else if (c.hw)
		st->counter_mode = PROF_CTR_ALL;
	else if (st->events_counted)
		st->counter_mode = PROF_CTR_SOFTWARE;
	else
		st->counter_mode = PROF_CTR_NONE;
	for (int ph = 0; ph < PROF_PHASES; ph++)
		derived_nan(&st->phase[ph]);
	derived_nan(&st->busy);
	derived_nan(&st->all);
	if (!c.on)
		return;
	if (c.merged) {
		/* receive's counter phase also covered execute's time */
		for (int g = 0; g < PROF_GROUPS; g++) {
			for (int m = 0; m < PROF_GROUP_MAX; m++) {
				c.value[g][m][PROF_RECEIVE] += c.value[g][m][PROF_EXECUTE];
				c.value[g][m][PROF_EXECUTE] = 0.0;
			}
			c.covered_ns[g][PROF_RECEIVE] += c.covered_ns[g][PROF_EXECUTE];
			c.covered_ns[g][PROF_EXECUTE] = 0;
		}
		ns[PROF_RECEIVE] += ns[PROF_EXECUTE];
		ns[PROF_EXECUTE] = 0;
	}
	for (int ph = 0; ph < PROF_PHASES; ph++)
		if (!(c.merged && ph == PROF_EXECUTE))
			prof_ctr_derive(&c, ns, 1u << ph, &st->phase[ph]);
	prof_ctr_derive(&c, ns, all & ~(1u << PROF_IDLE), &st->busy);
	prof_ctr_derive(&c, ns, all, &st->all);
}

static void stats_clients(const struct prof *p, const struct prof_acc *a,
			  struct prof_stats *st)
{
	double in_sum = 0.0, out_sum = 0.0;

	st->clients_active = 0;
	st->client_in_Bps_mean = st->client_in_Bps_max = 0.0;
	st->client_out_Bps_mean = st->client_out_Bps_max = 0.0;
	if (st->seconds <= 0.0)
		return;
	for (int i = 0; i < p->max_clients; i++) {
		double in = (double)a->client_in[i] / st->seconds;
		double out = (double)a->client_out[i] / st->seconds;

		if (a->client_in[i] == 0 && a->client_out[i] == 0)
			continue;
		st->clients_active++;
		in_sum += in;
		out_sum += out;
		if (in > st->client_in_Bps_max)
			st->client_in_Bps_max = in;
		if (out > st->client_out_Bps_max)
			st->client_out_Bps_max = out;
	}
	if (st->clients_active) {
		st->client_in_Bps_mean = in_sum / st->clients_active;
		st->client_out_Bps_mean = out_sum / st->clients_active;
	}
}

static void stats_of(struct prof *p, const struct prof_acc *a,
		     struct prof_stats *st)
{
	uint64_t end = p->last_frame_end, mono = prof_clock_ns(p), sum = 0;
	uint64_t wall = p->clock.wall_ns(p->clock.ctx);

	memset(st, 0, sizeof(*st));
	st->uptime_s = (double)(end - p->created_ns) * 1e-9;
	st->wall_time = (double)wall * 1e-9 - (double)(mono - end) * 1e-9;
	st->seconds = end > a->start_ns ? (double)(end - a->start_ns) * 1e-9 : 0.0;
	st->frames = a->frames;
	st->untimed = a->untimed;
	for (int ph = 0; ph < PROF_PHASES; ph++) {
		st->phase_ns[ph] = a->phase_ns[ph];
		sum += a->phase_ns[ph];
	}
	for (int ph = 0; ph < PROF_PHASES; ph++)
		st->phase_share[ph] = sum ? (double)a->phase_ns[ph] / (double)sum : 0.0;
	st->requests = a->requests;
	st->replies = a->replies;
	st->packets_in = a->packets_in;
	st->bytes_in = a->bytes_in;
	st->packets_out = a->packets_out;
	st->bytes_out = a->bytes_out;
	qwd_hist_summarize(&a->request_time, &st->request_time_ns);
	qwd_hist_summarize(&a->reply_bytes, &st->reply_bytes);
	qwd_hist_summarize(&a->per_frame, &st->requests_per_frame);
	qwd_hist_summarize(&a->frame_busy, &st->frame_busy_ns);
	stats_clients(p, a, st);
	stats_counters(a, st);
}

void prof_get_stats(struct prof *p, enum prof_scope scope, struct prof_stats *out)
{
	switch (scope) {
	case PROF_SCOPE_LAST:
		*out = p->last_stats;
		break;
	case PROF_SCOPE_TOTAL:
		stats_of(p, &p->total, out);
		break;
	case PROF_SCOPE_INTERVAL:
	default:
		stats_of(p, &p->interval, out);
		break;
	}
}

const struct qwd_hist *prof_total_hist(const struct prof *p,
				       enum prof_hist_kind kind)
{
	switch (kind) {
	case PROF_HIST_REQUEST_TIME:
		return &p->total.request_time;
	case PROF_HIST_REPLY_BYTES:
		return &p->total.reply_bytes;
	case PROF_HIST_REQUESTS_PER_FRAME:
		return &p->total.per_frame;
	case PROF_HIST_FRAME_BUSY:
		return &p->total.frame_busy;
	case PROF_HISTS:
		break;
	}
	return NULL;
}

/* ---- intervals ---------------------------------------------------------- */

bool prof_periodic(struct prof *p)
{
	if (p->last_frame_end < p->interval.start_ns ||
	    p->last_frame_end - p->interval.start_ns < p->interval_ns)
		return false;
	prof_interval_close(p);
	return true;
}

void prof_interval_close(struct prof *p)
{
	stats_of(p, &p->interval, &p->last_stats);
	p->last_stats.seq = ++p->interval_seq;
	if (p->stats_file && prof_write_json(&p->last_stats, p->stats_file) != 0 &&
	    !p->told_write_error) {
		p->told_write_error = true;
		qwd_logf(p->log, QWD_LOG_ERROR, "stats: writing the stats file failed");
	}
	if (p->report_console) {
		char line[QWD_LOG_LINE_MAX];

		prof_format_line(&p->last_stats, line, sizeof(line));
		qwd_logf(p->log, QWD_LOG_INFO, "%s", line);
	}
	acc_clear(p, &p->interval, p->last_frame_end);
}
