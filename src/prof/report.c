/*
 * report.c -- the stats as text: the one-line report, the counter table
 * and the JSON lines of the stats file (the operator's commands that print
 * them are the server's, src/server/profcmd.c).
 *
 * Design note
 *   Everything is formatted from a struct prof_stats, a plain snapshot, so
 *   the formatters are pure functions of it (the tests feed them made-up
 *   figures) and the frame loop never pays for them.  Text is built into a
 *   caller's buffer with snprintf semantics (the length wanted is
 *   returned, the buffer is always terminated); a JSON line is built
 *   whole on the stack by the project's JSON writer (src/common/json.c)
 *   and written with one fwrite, so a reader tailing the file never sees
 *   half an object.  A figure that was not measured (NaN)
 *   is left out of the text and written as null in JSON: JSON has no NaN,
 *   and the runner must tell "not measured" from zero.
 */
#include "internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

struct sbuf {
	char *buf;
	size_t size;
	size_t len;		/* length wanted so far */
};

static void sb_printf(struct sbuf *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *s, const char *fmt, ...)
{
	size_t room = s->len < s->size ? s->size - s->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? s->buf + s->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		s->len += (size_t)n;
}

static int sb_result(struct sbuf *s)
{
	if (s->size && s->len < s->size)
		s->buf[s->len] = '\0';
	return s->len > INT32_MAX ? INT32_MAX : (int)s->len;
}

static const char *const mode_names[] = {
	"off", "none", "software", "all", "rotating",
};

const char *prof_counter_mode_name(int mode)
{
	return mode >= 0 && mode <= PROF_CTR_ROTATING ? mode_names[mode] : "?";
}

static double per_s(double v, double seconds)
{
	return seconds > 0.0 ? v / seconds : NAN;
}

/* ---- text ---------------------------------------------------------------- */

static void sb_ns(struct sbuf *s, uint64_t ns)
{
	if (ns < 1000)
		sb_printf(s, "%" PRIu64 "ns", ns);
	else if (ns < 10000)
		sb_printf(s, "%.1fus", (double)ns / 1e3);
	else if (ns < 1000000)
		sb_printf(s, "%.0fus", (double)ns / 1e3);
	else if (ns < 1000000000)
		sb_printf(s, "%.1fms", (double)ns / 1e6);
	else
		sb_printf(s, "%.2fs", (double)ns / 1e9);
}

static void sb_bps(struct sbuf *s, double bytes_per_s)
{
	if (isnan(bytes_per_s))
		sb_printf(s, "-");
	else if (bytes_per_s < 1e3)
		sb_printf(s, "%.0f B/s", bytes_per_s);
	else if (bytes_per_s < 1e6)
		sb_printf(s, "%.1f kB/s", bytes_per_s / 1e3);
	else
		sb_printf(s, "%.2f MB/s", bytes_per_s / 1e6);
}

static void line_counters(struct sbuf *s, const struct prof_stats *st)
{
	const struct prof_derived *b = &st->busy, *a = &st->all;

	if (st->counter_mode == PROF_CTR_OFF)
		return;
	if (st->counter_mode == PROF_CTR_NONE) {
		sb_printf(s, " | counters: none available");
		return;
	}
	sb_printf(s, " |");
	if (!isnan(b->ipc))
		sb_printf(s, " ipc %.2f", b->ipc);
	if (!isnan(b->branch_miss_rate))
		sb_printf(s, " br %.1f%%", b->branch_miss_rate * 100.0);
	if (!isnan(b->l1d_mpki) || !isnan(b->l1i_mpki) || !isnan(b->llc_mpki))
		sb_printf(s, " mpki");
	if (!isnan(b->l1d_mpki))
		sb_printf(s, " l1d %.1f", b->l1d_mpki);
	if (!isnan(b->l1i_mpki))
		sb_printf(s, " l1i %.1f", b->l1i_mpki);
	if (!isnan(b->llc_mpki))
		sb_printf(s, " llc %.2f", b->llc_mpki);
	if (!isnan(b->stall_frontend) || !isnan(b->stall_backend))
		sb_printf(s, " stall");
	if (!isnan(b->stall_frontend))
		sb_printf(s, " fe %.0f%%", b->stall_frontend * 100.0);
	if (!isnan(b->stall_backend))
		sb_printf(s, " be %.0f%%", b->stall_backend * 100.0);
	if (!isnan(b->cpu_share))
		sb_printf(s, " cpu %.0f%%", b->cpu_share * 100.0);
	if (!isnan(a->context_switches))
		sb_printf(s, " cs %.0f/s", per_s(a->context_switches, st->seconds));
	if (!isnan(a->page_faults))
		sb_printf(s, " pf %.0f/s", per_s(a->page_faults, st->seconds));
	if (st->counter_mode == PROF_CTR_SOFTWARE)
		sb_printf(s, " [sw only: no hw counters]");
	else if (st->counter_mode == PROF_CTR_ROTATING)
		sb_printf(s, " [rotating]");
	if (st->counters_user_only)
		sb_printf(s, " [user only]");
}

int prof_format_line(const struct prof_stats *st, char *buf, size_t size)
{
	struct sbuf s = {buf, size, 0};
	static const char *const short_names[PROF_PHASES] = {
		"world", "recv", "exec", "reply", "idle",
	};
	double sec = st->seconds;

	sb_printf(&s, "stats %.1fs %.0f fps |", sec,
		  sec > 0.0 ? (double)st->frames / sec : 0.0);
	if (st->untimed)
		sb_printf(&s, " timers off");
	else
		for (int ph = 0; ph < PROF_PHASES; ph++)
			sb_printf(&s, " %s %.1f%%", short_names[ph],
				  st->phase_share[ph] * 100.0);
	sb_printf(&s, " | req %.0f/s %.2f/frame rep %.0f/s",
		  sec > 0.0 ? (double)st->requests / sec : 0.0,
		  st->requests_per_frame.mean,
		  sec > 0.0 ? (double)st->replies / sec : 0.0);
	if (st->request_time_ns.count) {
		sb_printf(&s, " | rt p50 ");
		sb_ns(&s, st->request_time_ns.p50);
		sb_printf(&s, " p99 ");
		sb_ns(&s, st->request_time_ns.p99);
		sb_printf(&s, " max ");
		sb_ns(&s, st->request_time_ns.max);
	} else {
		sb_printf(&s, " | rt -");
	}
	if (st->reply_bytes.count)
		sb_printf(&s, " | reply %.0fB avg %" PRIu64 "B max", st->reply_bytes.mean,
			  st->reply_bytes.max);
	else
		sb_printf(&s, " | reply -");
	sb_printf(&s, " | in %.0f pkt/s ", sec > 0.0 ? (double)st->packets_in / sec : 0.0);
	sb_bps(&s, per_s((double)st->bytes_in, sec));
	sb_printf(&s, " out %.0f pkt/s ", sec > 0.0 ? (double)st->packets_out / sec : 0.0);
	sb_bps(&s, per_s((double)st->bytes_out, sec));
	sb_printf(&s, " | clients %d", st->clients_active);
	if (st->clients_active) {
		sb_printf(&s, " out avg ");
		sb_bps(&s, st->client_out_Bps_mean);
		sb_printf(&s, " max ");
		sb_bps(&s, st->client_out_Bps_max);
	}
	line_counters(&s, st);
	return sb_result(&s);
}

static void sb_fig(struct sbuf *s, double v, const char *fmt, double scale)
{
	if (isnan(v))
		sb_printf(s, " %9s", "-");
	else
		sb_printf(s, fmt, v * scale);
}

static void table_row(struct sbuf *s, const char *name, double share,
		      const struct prof_derived *d, double seconds)
{
	sb_printf(s, "%-8s", name);
	if (isnan(share))
		sb_printf(s, " %6s", "");
	else
		sb_printf(s, " %6.1f", share * 100.0);
	sb_fig(s, d->ipc, " %9.3f", 1.0);
	sb_fig(s, d->branch_miss_rate, " %8.2f%%", 100.0);
	sb_fig(s, d->l1d_mpki, " %9.2f", 1.0);
	sb_fig(s, d->l1i_mpki, " %9.2f", 1.0);
	sb_fig(s, d->llc_mpki, " %9.3f", 1.0);
	sb_fig(s, d->stall_frontend, " %8.1f%%", 100.0);
	sb_fig(s, d->stall_backend, " %8.1f%%", 100.0);
	sb_fig(s, d->cpu_share, " %8.1f%%", 100.0);
	sb_fig(s, per_s(d->context_switches, seconds), " %9.1f", 1.0);
	sb_fig(s, per_s(d->page_faults, seconds), " %9.1f", 1.0);
	sb_printf(s, "\n");
}

int prof_format_counters(const struct prof_stats *st, char *buf, size_t size)
{
	struct sbuf s = {buf, size, 0};
	bool first = true;

	sb_printf(&s, "counters: mode %s%s%s over %.1f s\n",
		  prof_counter_mode_name(st->counter_mode),
		  st->counters_user_only ? ", user space only" : "",
		  st->counters_merged ? ", receive includes execute" : "",
		  st->seconds);
	if (st->counter_mode == PROF_CTR_OFF)
		return sb_result(&s);
	sb_printf(&s, "counted:");
	for (int ev = 0; ev < PROF_EVENTS; ev++)
		if (st->events_counted & (1u << ev))
			sb_printf(&s, " %s", prof_event_name(ev));
	sb_printf(&s, "\nnot counted:");
	for (int ev = 0; ev < PROF_EVENTS; ev++)
		if (!(st->events_counted & (1u << ev))) {
			sb_printf(&s, "%s%s", first ? " " : ", ", prof_event_name(ev));
			first = false;
		}
	if (first)
		sb_printf(&s, " -");
	sb_printf(&s, "\n%-8s %6s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "phase",
		  "time%", "ipc", "br-miss", "l1d-mpki", "l1i-mpki", "llc-mpki",
		  "stall-fe", "stall-be", "cpu", "cs/s", "pf/s");
	for (int ph = 0; ph < PROF_PHASES; ph++)
		table_row(&s, prof_phase_name(ph), st->phase_share[ph], &st->phase[ph],
			  st->seconds);
	table_row(&s, "busy", 1.0 - st->phase_share[PROF_IDLE], &st->busy, st->seconds);
	table_row(&s, "all", 1.0, &st->all, st->seconds);
	return sb_result(&s);
}

/* ---- JSON ---------------------------------------------------------------- */

static void js_summary(struct json_out *j, const char *name,
		       const struct qwd_hist_summary *m, double scale)
{
	json_begin(j, name, '{');
	json_u64(j, "count", m->count);
	json_num(j, "mean", m->mean * scale);
	json_num(j, "p50", (double)m->p50 * scale);
	json_num(j, "p99", (double)m->p99 * scale);
	json_num(j, "max", (double)m->max * scale);
	json_end(j);
}

static void js_derived(struct json_out *j, const char *name,
		       const struct prof_derived *d)
{
	json_begin(j, name, '{');
	json_num(j, "ipc", d->ipc);
	json_num(j, "branch_miss_rate", d->branch_miss_rate);
	json_num(j, "l1d_mpki", d->l1d_mpki);
	json_num(j, "l1i_mpki", d->l1i_mpki);
	json_num(j, "llc_mpki", d->llc_mpki);
	json_num(j, "stall_frontend", d->stall_frontend);
	json_num(j, "stall_backend", d->stall_backend);
	json_num(j, "cpu_share", d->cpu_share);
	json_num(j, "cycles", d->cycles);
	json_num(j, "instructions", d->instructions);
	json_num(j, "context_switches", d->context_switches);
	json_num(j, "page_faults", d->page_faults);
	json_end(j);
}

static void js_counters(struct json_out *j, const struct prof_stats *st)
{
	if (st->counter_mode == PROF_CTR_OFF) {
		json_null(j, "counters");
		return;
	}
	json_begin(j, "counters", '{');
	json_str(j, "mode", prof_counter_mode_name(st->counter_mode));
	json_bool(j, "user_only", st->counters_user_only);
	json_bool(j, "merged_rx_exec", st->counters_merged);
	json_begin(j, "events", '[');
	for (int ev = 0; ev < PROF_EVENTS; ev++)
		if (st->events_counted & (1u << ev))
			json_str(j, NULL, prof_event_name(ev));
	json_end(j);
	json_begin(j, "phases", '{');
	for (int ph = 0; ph < PROF_PHASES; ph++)
		js_derived(j, prof_phase_name(ph), &st->phase[ph]);
	js_derived(j, "busy", &st->busy);
	js_derived(j, "all", &st->all);
	json_end(j);
	json_end(j);
}

static void js_build(struct json_out *j, const struct prof_stats *st)
{
	double sec = st->seconds;

	json_begin(j, NULL, '{');
	json_str(j, "schema", "qwd-stats/1");
	json_u64(j, "seq", st->seq);
	/* microseconds of a Unix time need 16 digits, more than %.9g */
	json_fixed(j, "time", st->wall_time, 6);
	json_num(j, "uptime_s", st->uptime_s);
	json_num(j, "interval_s", sec);
	json_u64(j, "frames", st->frames);
	/* "timers": false when some frame of the interval was not timed:
	 * its phase times are then missing from phase_ns */
	json_bool(j, "timers", !st->untimed);
	json_begin(j, "phase_ns", '{');
	for (int ph = 0; ph < PROF_PHASES; ph++)
		json_u64(j, prof_phase_name(ph), st->phase_ns[ph]);
	json_end(j);
	json_begin(j, "phase_share", '{');
	for (int ph = 0; ph < PROF_PHASES; ph++)
		json_num(j, prof_phase_name(ph), st->phase_share[ph]);
	json_end(j);
	json_u64(j, "requests", st->requests);
	json_num(j, "requests_per_s", per_s((double)st->requests, sec));
	json_u64(j, "replies", st->replies);
	json_num(j, "replies_per_s", per_s((double)st->replies, sec));
	js_summary(j, "requests_per_frame", &st->requests_per_frame, 1.0);
	js_summary(j, "request_time_us", &st->request_time_ns, 1e-3);
	js_summary(j, "reply_bytes", &st->reply_bytes, 1.0);
	js_summary(j, "frame_busy_us", &st->frame_busy_ns, 1e-3);
	json_begin(j, "net", '{');
	json_u64(j, "packets_in", st->packets_in);
	json_u64(j, "bytes_in", st->bytes_in);
	json_u64(j, "packets_out", st->packets_out);
	json_u64(j, "bytes_out", st->bytes_out);
	json_num(j, "packets_in_per_s", per_s((double)st->packets_in, sec));
	json_num(j, "bytes_in_per_s", per_s((double)st->bytes_in, sec));
	json_num(j, "packets_out_per_s", per_s((double)st->packets_out, sec));
	json_num(j, "bytes_out_per_s", per_s((double)st->bytes_out, sec));
	json_end(j);
	json_begin(j, "clients", '{');
	json_i64(j, "active", st->clients_active);
	json_num(j, "in_Bps_mean", st->client_in_Bps_mean);
	json_num(j, "in_Bps_max", st->client_in_Bps_max);
	json_num(j, "out_Bps_mean", st->client_out_Bps_mean);
	json_num(j, "out_Bps_max", st->client_out_Bps_max);
	json_end(j);
	js_counters(j, st);
	json_end(j);
	json_raw(j, "\n");
}

int prof_write_json(const struct prof_stats *st, FILE *f)
{
	char buf[16384];
	struct json_out j;

	json_init(&j, NULL, buf, sizeof(buf));
	js_build(&j, st);
	return json_finish(&j, f);
}
