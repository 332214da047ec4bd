/*
 * loglimit.c -- the log lines a remote source drives, rate-limited per
 * source address and kind of line.
 *
 * Design note
 *   Chat, refused connects, rcon, "client moved", downloads, signon
 *   restarts: each is a log line that someone on the network decides to
 *   cause, and a line costs the server a format and a write (and the
 *   operator's disk).  They all go through sv_log_from, which keeps a
 *   token bucket per source ip and kind of line (the call's format:
 *   sv_lograte lines a second, sv_logburst at once) and one for all of
 *   them (sv_logtotal a second, four seconds' worth at once), in the
 *   rate limiter of the connectionless requests (net.h: a fixed table of
 *   SipHash-chosen sets, nothing allocated per packet; the kind is mixed
 *   into the ip it is keyed by).
 *   - Per ip, not per port: a client hopping ports (a "client moved" each
 *     time) or a flood from one host on many ports shares one bucket.
 *   - Per kind: a client asking for thirty files the server lacks still
 *     gets its "entered the game" logged, and a chat flood does not hide
 *     the drop that ends it.  A source can thus write a line a second of
 *     each of the dozen kinds, a few kB/s at most.
 *   - A spoofed flood of many addresses gets fresh buckets, and the global
 *     bucket is what bounds it.
 *
 *   A line held back is counted in a small table by source and kind
 *   (SV_LOG_HELD of them, the rest counted together), and every
 *   SUMMARY_EVERY seconds each gets one line "N similar lines from ADDR
 *   suppressed (kind)"; the summaries are bounded by the table, SV_LOG_HELD
 *   + 1 lines per period whatever the flood.  Lines below the log's level
 *   cost nothing, not even a token.  sv_lograte 0 turns the limit off.  A
 *   client's drop is not limited: a source causes one per connection, and
 *   the operator needs to see why.
 */
#include "base.h"

#include <stdarg.h>
#include <string.h>

enum { SUMMARY_EVERY = 10 };	/* seconds */

/* the limiter's figures from the cvars, which may change at run time */
static void limits_from_cvars(struct server *sv)
{
	struct ratelimit *rl = &sv->loglimit.rl;

	rl->rate = sv->sv_lograte->value;
	rl->burst = sv->sv_logburst->value >= 1.0 ? sv->sv_logburst->value : 1.0;
	rl->global_rate = sv->sv_logtotal->value;
	rl->global_burst = rl->global_rate >= 1.0 ? 4.0 * rl->global_rate : 1.0;
}

void sv_log_limit_init(struct server *sv)
{
	struct sv_log_limit *l = &sv->loglimit;

	ratelimit_init(&l->rl, &sv->secret, sv->sv_lograte->value,
		       sv->sv_logburst->value, sv->sv_logtotal->value,
		       4.0 * sv->sv_logtotal->value);
	l->num_held = 0;
	l->others = 0;
	l->last_summary = sv->realtime;
}

/* one more line of kind `fmt` held back from `from` */
static void hold(struct sv_log_limit *l, const struct net_addr *from,
		 const char *fmt)
{
	for (int i = 0; i < l->num_held; i++)
		if (l->held[i].fmt == fmt && net_addr_equal_ip(&l->held[i].from, from)) {
			l->held[i].lines++;
			return;
		}
	if (l->num_held == SV_LOG_HELD) {
		l->others++;
		return;
	}
	l->held[l->num_held].from = *from;
	l->held[l->num_held].fmt = fmt;
	l->held[l->num_held].lines = 1;
	l->num_held++;
}

void sv_log_from(struct server *sv, const struct net_addr *from, int level,
		 const char *fmt, ...)
{
	va_list ap;

	if (level < sv->log.min_level)
		return;
	if (sv->sv_lograte->value > 0) {
		/* the bucket's key: the ip mixed with the kind (the format, a
		 * literal of one call site); two sources share one only if an
		 * ip is forged to collide, which suppresses nothing a forged
		 * flood could not through the global bucket */
		struct net_addr key = *from;

		key.ip ^= (uint32_t)(((uintptr_t)fmt * 0x9E3779B97F4A7C15ull) >> 32);
		limits_from_cvars(sv);
		if (!ratelimit_allow(&sv->loglimit.rl, &key, sv->realtime)) {
			hold(&sv->loglimit, from, fmt);
			sv->stats.log_suppressed++;
			return;
		}
	}
	va_start(ap, fmt);
	qwd_vlogf(&sv->log, level, fmt, ap);
	va_end(ap);
}

void sv_log_summaries(struct server *sv, bool force)
{
	struct sv_log_limit *l = &sv->loglimit;
	char a[NET_ADDR_STRLEN];

	if (!force && sv->realtime - l->last_summary < SUMMARY_EVERY)
		return;
	l->last_summary = sv->realtime;
	for (int i = 0; i < l->num_held; i++) {
		char *port;

		/* the source is the ip: the port is only the first line's */
		net_addr_format(&l->held[i].from, a);
		if ((port = strchr(a, ':')) != NULL)
			*port = '\0';
		qwd_logf(&sv->log, QWD_LOG_INFO, "%u similar lines from %s suppressed (%s)",
			 l->held[i].lines, a, l->held[i].fmt);
	}
	if (l->others)
		qwd_logf(&sv->log, QWD_LOG_INFO,
			 "%u lines from other sources suppressed", l->others);
	l->num_held = 0;
	l->others = 0;
}
