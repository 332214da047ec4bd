/*
 * metrics.c -- the server's Prometheus page: qwd -metrics [ADDR:]PORT.
 *
 * Design note
 *   A feature of the server (hooks.h).  The endpoint and the text format
 *   are the metrics module's (qwd/metrics.h: libmicrohttpd without
 *   threads, our writer); this file only says what the page holds, read
 *   from the figures the server already keeps, so nothing is counted
 *   twice and nothing on the frame path changes:
 *     struct server_stats  requests, replies, chokes, malformed input by
 *                          kind, connects, the connectionless budgets,
 *                          downloads, the defences (core.h's table)
 *     struct net_stats     datagrams and bytes each way, socket errors
 *     the profiler         time per frame phase, and its total scope's
 *                          histograms (frame busy time, request time,
 *                          reply size, requests per frame)
 *     the clients          players, spectators
 *     the downloads feature  downloads in progress (its slots' files)
 *     the demo feature     the demo being recorded, the QTV viewers
 *     the level            map, game time, paused, limits
 *     the endpoint         its own requests and refusals
 *     the Agones feature   its calls, failures, allocations (agones.h)
 *   Names follow Prometheus' conventions (docs/metrics.md lists them):
 *   the qwd_ prefix, base units in the name (_seconds, _bytes), _total on
 *   counters, one family per meaning with labels for its kinds.  Counters
 *   are the server's totals since start (the profiler's since start or
 *   "stats reset", which Prometheus reads as a counter reset).
 *   Hooks: start opens the endpoint (a port taken ends the start-up with
 *   the reason logged), fds/io put it in the frame's select() and run it
 *   after, stop closes it.  A scrape builds the page in a buffer of
 *   SV_METRICS_PAGE bytes made at start (about 20 KB used with the
 *   defaults); the page is built only when asked for.
 */
#include "features.h"
#include "demo.h"
#include "downloads.h"
#include "agones.h"
#include "match_votes.h"

#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

#include "qwd/metrics.h"

enum { SV_METRICS_PAGE = 65536 };

struct sv_metrics {
	char listen[128];		/* the operator's [ADDR:]PORT */
	struct metrics *http;
};

/* the time histograms' bounds: 50 us .. 1 s, in ns */
static const uint64_t time_le[] = {
	50000, 100000, 250000, 500000, 1000000, 2500000, 5000000,
	10000000, 25000000, 50000000, 100000000, 250000000, 1000000000
};
/* a reply's bytes: up to the largest datagram a stock client takes */
static const uint64_t size_le[] = {32, 64, 128, 256, 512, 768, 1024, 1450};
static const uint64_t count_le[] = {0, 1, 2, 4, 8, 16, 32, 64, 128, 256};

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* one sample of a family with one label: name{label="value"} n */
static void sample_by(struct metrics_page *p, const char *name,
		      const char *label, const char *value, uint64_t n)
{
	struct metrics_label l = {label, value};

	metrics_sample_u64(p, name, &l, 1, n);
}

static void page_clients(const struct server *sv, struct metrics_page *p)
{
	int players = 0, specs = 0, spawned = 0, downloads = 0;

	for (int i = 0; i < sv->maxclients; i++) {
		const struct client *cl = &sv->clients[i];

		if (cl->state < CS_CONNECTED)
			continue;
		if (cl->spectator)
			specs++;
		else
			players++;
		spawned += cl->state == CS_SPAWNED;
		downloads += sv->downloads &&
			     sv->downloads->slot[i].file.open;
	}
	metrics_gauge(p, "qwd_players", "Players connected (in the game or "
		      "in their signon).", players);
	metrics_gauge(p, "qwd_spectators", "Spectators connected.", specs);
	metrics_gauge(p, "qwd_clients_in_game", "Clients (players and "
		      "spectators) past their signon.", spawned);
	metrics_gauge(p, "qwd_players_max", "The maxclients cvar.",
		      sv->max_players);
	metrics_gauge(p, "qwd_spectators_max", "The maxspectators cvar.",
		      sv->maxspectators->value);
	metrics_gauge(p, "qwd_downloads_active", "Clients with a download "
		      "in progress.", downloads);
}

static void page_level(const struct server *sv, struct metrics_page *p)
{
	struct metrics_label map = {"map", sv->mapname};

	metrics_family(p, "qwd_level_info", METRICS_GAUGE,
		       "The level being played (1, its map as a label).");
	metrics_sample(p, "qwd_level_info", &map, 1, 1);
	metrics_gauge(p, "qwd_level_time_seconds", "Game time of the level "
		      "(stops while paused).", sv->time);
	metrics_gauge(p, "qwd_paused", "1 while the game is paused.",
		      sv->paused);
	metrics_gauge(p, "qwd_fraglimit", "The fraglimit cvar (0: none).",
		      sv->fraglimit->value);
	metrics_gauge(p, "qwd_timelimit_seconds", "The timelimit cvar in "
		      "seconds (0: none).", sv->timelimit->value * 60.0);
	metrics_gauge(p, "qwd_uptime_seconds", "Seconds since the server "
		      "started.", sv->realtime - sv->start_time);
	metrics_gauge(p, "qwd_load_ratio", "Busy share of the frame time in "
		      "the last load window (overload protection's measure).",
		      sv->load);
}

static void page_frames(const struct server *sv, struct metrics_page *p)
{
	struct prof_stats st;
	struct metrics_label l;

	prof_get_stats(sv->prof, PROF_SCOPE_TOTAL, &st);
	metrics_counter(p, "qwd_frames_total", "Server frames run.",
			sv->stats.frames);
	metrics_family(p, "qwd_frame_phase_seconds_total", METRICS_COUNTER,
		       "Wall time spent in each phase of the frame (the "
		       "profiler's total scope; idle is the wait in select).");
	for (int ph = 0; ph < PROF_PHASES; ph++) {
		l = (struct metrics_label){"phase", prof_phase_name(ph)};
		metrics_sample(p, "qwd_frame_phase_seconds_total", &l, 1,
			       (double)st.phase_ns[ph] * 1e-9);
	}
	metrics_family(p, "qwd_frame_busy_seconds", METRICS_HISTOGRAM,
		       "Frame time minus the idle wait.");
	metrics_histogram(p, "qwd_frame_busy_seconds", NULL, 0,
			  prof_total_hist(sv->prof, PROF_HIST_FRAME_BUSY),
			  time_le, N(time_le), 1e-9);
	metrics_family(p, "qwd_request_duration_seconds", METRICS_HISTOGRAM,
		       "From a client's packet's receive to its reply's "
		       "send (the longest-waiting request of each reply).");
	metrics_histogram(p, "qwd_request_duration_seconds", NULL, 0,
			  prof_total_hist(sv->prof, PROF_HIST_REQUEST_TIME),
			  time_le, N(time_le), 1e-9);
	metrics_family(p, "qwd_reply_size_bytes", METRICS_HISTOGRAM,
		       "Size of each reply datagram's payload.");
	metrics_histogram(p, "qwd_reply_size_bytes", NULL, 0,
			  prof_total_hist(sv->prof, PROF_HIST_REPLY_BYTES),
			  size_le, N(size_le), 1.0);
	metrics_family(p, "qwd_frame_requests", METRICS_HISTOGRAM,
		       "Client requests handled per frame.");
	metrics_histogram(p, "qwd_frame_requests", NULL, 0,
			  prof_total_hist(sv->prof,
					  PROF_HIST_REQUESTS_PER_FRAME),
			  count_le, N(count_le), 1.0);
}

static void page_traffic(const struct server *sv, struct metrics_page *p)
{
	const struct server_stats *st = &sv->stats;

	metrics_counter(p, "qwd_requests_total", "Client moves (clc_move) "
			"accepted.", st->requests);
	metrics_counter(p, "qwd_replies_total", "Replies sent to clients.",
			st->replies);
	metrics_counter(p, "qwd_chokes_total", "Replies held back by a "
			"client's rate.", st->chokes);
	metrics_counter(p, "qwd_received_packets_total", "UDP datagrams "
			"received.", sv->net.packets_in);
	metrics_counter(p, "qwd_received_bytes_total", "UDP payload bytes "
			"received.", sv->net.bytes_in);
	metrics_counter(p, "qwd_sent_packets_total", "UDP datagrams sent.",
			sv->net.packets_out);
	metrics_counter(p, "qwd_sent_bytes_total", "UDP payload bytes sent.",
			sv->net.bytes_out);
	metrics_family(p, "qwd_socket_errors_total", METRICS_COUNTER,
		       "Failed receive calls and datagrams the kernel "
		       "refused to send.");
	sample_by(p, "qwd_socket_errors_total", "op", "receive",
		  sv->net.recv_errors);
	sample_by(p, "qwd_socket_errors_total", "op", "send",
		  sv->net.send_errors);
	metrics_family(p, "qwd_bad_packets_total", METRICS_COUNTER,
		       "Malformed or unwanted input dropped, by reason.");
	/* the oversized count is the socket's (frame.c copies it) */
	for (int k = 0; k < BAD_KINDS; k++)
		sample_by(p, "qwd_bad_packets_total", "reason", sv_bad_name(k),
			  k == BAD_OVERSIZED ? sv->net.oversized_in
					     : st->bad[k]);
	metrics_counter(p, "qwd_connects_total", "Clients connected.",
			st->connects);
	metrics_counter(p, "qwd_connects_refused_total", "Connects refused "
			"(full, banned, bad password, load...).", st->refusals);
	metrics_counter(p, "qwd_client_drops_total", "Clients dropped "
			"(left, timed out, kicked).", st->drops);
}

static void page_oob(const struct server *sv, struct metrics_page *p)
{
	const struct server_stats *st = &sv->stats;
	struct metrics_label l[2];

	metrics_counter(p, "qwd_connectionless_received_total",
			"Connectionless packets received.", st->oob_in);
	metrics_counter(p, "qwd_connectionless_ratelimited_total",
			"Connectionless packets refused by the per-address "
			"rate limit.", st->ratelimited);
	metrics_family(p, "qwd_connectionless_requests_total",
		       METRICS_COUNTER, "Connectionless requests by kind: "
		       "answered, or refused by the kind's budget.");
	for (int k = 0; k < OOB_KINDS; k++) {
		l[0] = (struct metrics_label){"kind", sv_oob_kind_name(k)};
		l[1] = (struct metrics_label){"result", "answered"};
		metrics_sample_u64(p, "qwd_connectionless_requests_total", l,
				   2, st->oob_answered[k]);
		l[1].value = "limited";
		metrics_sample_u64(p, "qwd_connectionless_requests_total", l,
				   2, st->oob_limited[k]);
	}
	metrics_family(p, "qwd_connectionless_sent_bytes_total",
		       METRICS_COUNTER, "Payload bytes sent in answer to "
		       "connectionless requests, by kind.");
	for (int k = 0; k < OOB_KINDS; k++) {
		l[0] = (struct metrics_label){"kind", sv_oob_kind_name(k)};
		metrics_sample_u64(p, "qwd_connectionless_sent_bytes_total",
				   l, 1, st->oob_bytes[k]);
	}
}

static void page_defences(const struct server *sv, struct metrics_page *p)
{
	metrics_family(p, "qwd_defence_events_total", METRICS_COUNTER,
		       "What each defence against floods and overload did "
		       "(docs/security.md).");
	for (int i = 0; i < SV_DEFENCE_COUNTERS; i++)
		sample_by(p, "qwd_defence_events_total", "defence",
			  sv_defence_counters[i].name, sv_defence_count(sv, i));
}

static void page_downloads(const struct server *sv, struct metrics_page *p)
{
	const struct server_stats *st = &sv->stats;

	metrics_counter(p, "qwd_download_read_bytes_total", "Bytes read from "
			"disk for downloads.", st->download_read);
	metrics_counter(p, "qwd_download_sent_bytes_total", "Bytes of "
			"download chunks sent.", st->chunk_bytes);
	metrics_family(p, "qwd_download_chunks_total", METRICS_COUNTER,
		       "Download chunks sent, in a reply or out of band.");
	sample_by(p, "qwd_download_chunks_total", "way", "inband",
		  st->chunks_inband);
	sample_by(p, "qwd_download_chunks_total", "way", "oob",
		  st->chunks_oob);
	metrics_counter(p, "qwd_download_repeats_total", "Downloads asked "
			"for again while going.", st->download_repeats);
	metrics_counter(p, "qwd_download_chunk_requests_bad_total", "Chunk "
			"requests past the file's end or negative.",
			st->chunk_requests_bad);
}

static void page_demos(const struct server *sv, struct metrics_page *p)
{
	uint64_t bytes = 0;
	bool rec = sv_mvd_file(sv, &bytes) != NULL;

	metrics_gauge(p, "qwd_demo_recording", "1 while a demo (MVD) is "
		      "being recorded.", rec);
	metrics_gauge(p, "qwd_demo_recorded_bytes", "Bytes written to the "
		      "demo being recorded (0: none).", rec ? (double)bytes : 0);
	metrics_gauge(p, "qwd_qtv_viewers", "QTV streams connected.",
		      sv_mvd_streams(sv));
}

static void page_endpoint(const struct sv_metrics *m, struct metrics_page *p)
{
	const struct metrics_http_stats *h = metrics_http_stats(m->http);
	static const char *const results[] = {"ok", "healthz", "not_found",
					      "bad_method", "truncated"};
	const uint64_t counts[] = {h->scrapes, h->health, h->not_found,
				   h->bad_method, h->truncated};

	metrics_family(p, "qwd_metrics_requests_total", METRICS_COUNTER,
		       "Requests to this endpoint by answer (ok: /metrics "
		       "served, this one included).");
	for (int i = 0; i < N(results); i++)
		sample_by(p, "qwd_metrics_requests_total", "result", results[i],
			  counts[i]);
	metrics_family(p, "qwd_metrics_connections_refused_total",
		       METRICS_COUNTER, "Connections to this endpoint refused "
		       "by its caps.");
	sample_by(p, "qwd_metrics_connections_refused_total", "reason",
		  "total_cap", h->conn_limit);
	sample_by(p, "qwd_metrics_connections_refused_total", "reason",
		  "address_cap", h->conn_limit_ip);
	metrics_counter(p, "qwd_metrics_http_errors_total", "Malformed, "
			"oversized, timed-out or reset HTTP connections "
			"(libmicrohttpd's errors).", h->errors);
}

static void build_page(void *ctx, struct metrics_page *p)
{
	const struct server *sv = ctx;

	page_clients(sv, p);
	page_level(sv, p);
	page_frames(sv, p);
	page_traffic(sv, p);
	page_oob(sv, p);
	page_defences(sv, p);
	page_downloads(sv, p);
	page_demos(sv, p);
	sv_match_votes_metrics(sv, p);
	page_endpoint(sv->metrics, p);
	sv_agones_metrics(sv, p);
}

static int metrics_start(struct server *sv)
{
	struct sv_metrics *m = sv->metrics;
	char addr[64], err[256];
	int port;

	if (!metrics_parse_listen(m->listen, addr, sizeof(addr), &port, err,
				  sizeof(err)) ||
	    !(m->http = metrics_open(addr, port, SV_METRICS_PAGE, build_page,
				     sv, err, sizeof(err)))) {
		qwd_logf(&sv->log, QWD_LOG_ERROR, "-metrics %s: %s", m->listen,
			 err);
		return -1;
	}
	qwd_logf(&sv->log, QWD_LOG_INFO, "metrics: http://%s:%d/metrics", addr,
		 metrics_port(m->http));
	return 0;
}

static void metrics_fds(struct server *sv, fd_set *r, fd_set *w, int *maxfd,
			double *wait)
{
	if (sv->metrics->http)
		metrics_fdset(sv->metrics->http, r, w, NULL, maxfd, wait);
}

static void metrics_io(struct server *sv, const fd_set *r, const fd_set *w)
{
	if (sv->metrics->http)
		metrics_run(sv->metrics->http, r, w, NULL);
}

static void metrics_free(struct server *sv)
{
	if (!sv->metrics)
		return;
	metrics_close(sv->metrics->http);
	free(sv->metrics);
	sv->metrics = NULL;
}

static const struct sv_feature metrics_feature = {
	.name = "metrics",
	.start = metrics_start,
	.fds = metrics_fds,
	.io = metrics_io,
	.free = metrics_free,
};

int sv_metrics_register(struct server *sv, const char *listen)
{
	sv->metrics = NULL;
	if (!listen)
		return 0;	/* no -metrics: nothing registered */
	sv->metrics = calloc(1, sizeof(*sv->metrics));
	if (!sv->metrics)
		return -1;
	strlcpy(sv->metrics->listen, listen, sizeof(sv->metrics->listen));
	sv_feature_add(sv, &metrics_feature);
	return 0;
}
