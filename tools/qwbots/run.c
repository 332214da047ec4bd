/*
 * run.c -- the bots' event loop: sockets, the request schedule, the join,
 * the measurement window.
 *
 * Design note
 *   One thread, batched system calls both ways, a loop paced by a tick.
 *
 *   Addresses.  A server's replies carry no qport, so each bot needs its
 *   own local address:port to tell its replies from the others'.  Against
 *   a server on the loopback every bot gets its own address in 127/8
 *   (127.1.0.1 + i: all of 127.0.0.0/8 is local on Linux) and one socket
 *   bound to 0.0.0.0 carries them all: requests leave through sendmmsg
 *   with an IP_PKTINFO control message naming the bot's source address,
 *   replies come in through recvmmsg with IP_PKTINFO telling which bot
 *   they were sent to.  So the whole load is a few system calls per tick
 *   whatever the number of bots, and a server's per-address limit on
 *   connectionless requests (qwd: 10/s, burst 20) never delays the join.
 *   With --source IP/COUNT a socket carries COUNT addresses (aliases on a
 *   real interface); with COUNT 1 (the default against a remote server)
 *   each bot has its own socket and port, and epoll tells which ones to
 *   read.
 *
 *   The loop.  Sleep until the next send is due (but at least a tick,
 *   1 ms, after the last round), read every socket that has data, send
 *   every request due within the tick in one batch.  Replies wait in the
 *   socket until the next round, as a client reads its packets once per
 *   frame, and are timed by the kernel's arrival stamp (SO_TIMESTAMPNS),
 *   so waiting does not inflate response times; and the process wakes at
 *   most 1000 times a second instead of once per reply.
 *
 *   Schedule.  Each bot sends one request every 1/rate seconds, each
 *   interval stretched by a uniform factor in [1 - jitter, 1 + jitter]
 *   and the first one offset by a uniform phase, so bots never fall into
 *   lockstep.  A binary heap orders the bots by their next send; every
 *   send due within `tick` of now goes out in the same sendmmsg batch.
 *   A bot late by more than an interval (a stalled process) starts over
 *   from now instead of sending a burst.
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
#include "qwbots.h"
#include "qwtools.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bsd/string.h>

#include "qwd/world.h"

enum {
	RX_BATCH = 64,
	RX_BUF = 2048,		/* replies are at most 1458 bytes */
	TX_BATCH = 256,
	MAX_EVENTS = 256,
	FEW_SOCKETS = 8,	/* read them all each tick, no epoll needed */
	SOCKBUF_SHARED = 16 << 20,
	SOCKBUF_SINGLE = 256 << 10
};

#define PKTINFO_SPACE CMSG_SPACE(sizeof(struct in_pktinfo))
#define RX_CTL_SPACE (PKTINFO_SPACE + CMSG_SPACE(sizeof(struct timespec)))

enum phase { PH_JOIN, PH_WARMUP, PH_MEASURE, PH_DRAIN, PH_LEAVE, PH_DONE };

static const char *const phase_names[] = {"join", "warmup", "measure", "drain",
					  "leave", "done"};

/* how long the replies to the window's last requests are waited for */
#define DRAIN_MAX 3.0

struct run;

struct bot {
	struct qwc q;
	struct run *run;
	struct qwb_bot_stats *st;
	int id;
	int sock;			/* index into run->fds */
	uint32_t ip;			/* source address, host order (pktinfo) */
	char info[MAX_INFO_STRING];
	struct qwb_rng rng;
	double next_send;
	double connect_time;
	bool in_game;
	bool out;			/* refused or dropped */
	bool track;

	struct qwb_walker walker;
	struct qwb_replay replay;
	struct qwb_spawnmatch spawn;
	const struct qwb_actions *actions;
	bool replaying, replay_over;
	vec3_t idle_angles;

	bool origin_valid;
	vec3_t last_origin;
	uint64_t replies_seen, chokes_seen;
	uint32_t first_window_seq;	/* its requests counted in the */
	uint32_t last_window_seq;	/* window: 0 none */
	enum qwc_state last_state;	/* for --verbose */
};

struct rx_batch {
	struct mmsghdr hdr[RX_BATCH];
	struct iovec iov[RX_BATCH];
	struct sockaddr_in from[RX_BATCH];
	union {
		char buf[RX_CTL_SPACE];
		struct cmsghdr align;
	} ctl[RX_BATCH];
	uint8_t data[RX_BATCH][RX_BUF];
};

struct tx_batch {
	int count;
	int sock[TX_BATCH];
	uint32_t src[TX_BATCH];
	size_t len[TX_BATCH];
	struct sockaddr_in to[TX_BATCH];
	int bot[TX_BATCH];		/* whose request, -1: not one */
	uint32_t seq[TX_BATCH];		/* its netchan sequence */
	int order[TX_BATCH];
	struct mmsghdr hdr[TX_BATCH];
	struct iovec iov[TX_BATCH];
	union {
		char buf[PKTINFO_SPACE];
		struct cmsghdr align;
	} ctl[TX_BATCH];
	uint8_t data[TX_BATCH][NETCHAN_MAX_PACKET];
};

/* what the progress line and the series count: every bot in the game,
 * window or not */
struct live {
	uint64_t requests, replies, bytes_in, bytes_out, bad;
};

struct heap_entry {
	double when;		/* the bot's next send */
	int id;
};

struct run {
	const struct qwb_config *cfg;
	struct bot *bots;
	struct qwb_bot_stats *stats;
	int n;

	int *fds;
	int nfds;
	bool pktinfo;
	uint32_t first_ip;
	int per_sock;
	int epfd;
	const volatile sig_atomic_t *stop;
	struct sockaddr_in server_sa;

	struct heap_entry *heap;
	int heap_n;
	int n_in_game;		/* bots in the game now */
	int n_out;		/* bots refused or dropped */
	struct rx_batch *rx;
	struct tx_batch *tx;

	enum phase phase;
	double t0, join_deadline, phase_end;
	double window_start, window_end;
	bool measuring;		/* requests now are in the window */
	double drain_end;
	int next_join;
	int qwdx;
	uint32_t checksum2;
	char map[QWB_MAP_MAX];
	double interval;

	struct qwb_actions actions[QWB_MAX_ACTION_FILES];
	int nactions;

	FILE *record;
	double record_start;
	bool record_started;

	/* progress */
	bool tty;
	FILE *series;
	double next_progress;
	struct live live, live_prev;
	struct qwd_hist interval_rt;
	/* --series rows: every cfg->series_interval seconds, their own
	 * counters and response times (the progress line keeps 1 s) */
	struct live series_prev;
	struct qwd_hist series_rt;
	double next_series, series_from;

	/* the report */
	struct qwb_report report;
	double cpu_start_user, cpu_start_sys;
	double server_cpu_start;
	uint64_t foreign, unroutable, send_errors, send_calls, recv_calls;
};

/* ---- the send heap ----------------------------------------------------- */

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

/* ---- sending ----------------------------------------------------------- */

static void tx_send_run(struct run *r, int fd, struct mmsghdr *h, int count)
{
	int k = 0;

	while (k < count) {
		int sent = sendmmsg(fd, h + k, (unsigned)(count - k), 0);

		r->send_calls++;
		if (sent < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
				/* the socket buffer is full: these are lost */
				r->send_errors += (uint64_t)(count - k);
				return;
			}
			r->send_errors++;	/* this one was refused: skip it */
			k++;
			continue;
		}
		k += sent;
	}
}

static void tx_flush(struct run *r)
{
	struct tx_batch *t = r->tx;
	int start = 0;

	if (t->count == 0)
		return;
	for (int i = 0; i < t->count; i++)
		t->order[i] = i;
	/* several shared sockets: group each socket's datagrams (insertion
	 * sort; batches are short and nearly sorted by bot) */
	if (r->pktinfo && r->nfds > 1) {
		for (int i = 1; i < t->count; i++) {
			int v = t->order[i], j = i;

			while (j > 0 && t->sock[t->order[j - 1]] > t->sock[v]) {
				t->order[j] = t->order[j - 1];
				j--;
			}
			t->order[j] = v;
		}
	}
	for (int i = 0; i < t->count; i++) {
		int k = t->order[i];
		struct msghdr *m = &t->hdr[i].msg_hdr;

		t->iov[i].iov_base = t->data[k];
		t->iov[i].iov_len = t->len[k];
		memset(m, 0, sizeof(*m));
		m->msg_name = &t->to[k];
		m->msg_namelen = sizeof(t->to[k]);
		m->msg_iov = &t->iov[i];
		m->msg_iovlen = 1;
		if (r->pktinfo) {
			struct cmsghdr *c;
			struct in_pktinfo pi;

			memset(&t->ctl[i], 0, sizeof(t->ctl[i]));
			m->msg_control = t->ctl[i].buf;
			m->msg_controllen = sizeof(t->ctl[i].buf);
			c = CMSG_FIRSTHDR(m);
			c->cmsg_level = IPPROTO_IP;
			c->cmsg_type = IP_PKTINFO;
			c->cmsg_len = CMSG_LEN(sizeof(pi));
			memset(&pi, 0, sizeof(pi));
			pi.ipi_spec_dst.s_addr = htonl(t->src[k]);
			memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		}
	}
	/* a request's time is when it leaves, not when it was built: move
	 * the client library's stamps to now (a batch takes a while) */
	{
		double sent = qwd_clock_s(CLOCK_MONOTONIC);

		for (int i = 0; i < t->count; i++) {
			struct qwc_out *o;

			if (t->bot[i] < 0)
				continue;
			o = &r->bots[t->bot[i]].q.out[t->seq[i] & QWC_OUT_MASK];
			if (o->sequence == t->seq[i] && o->acktime < 0)
				o->senttime = sent;
		}
	}
	for (int i = 1; i <= t->count; i++) {
		if (i == t->count || t->sock[t->order[i]] != t->sock[t->order[start]]) {
			tx_send_run(r, r->fds[t->sock[t->order[start]]], &t->hdr[start],
				    i - start);
			start = i;
		}
	}
	t->count = 0;
}

/* build one bot's packet into the batch; returns its length (0: none) */
static size_t tx_packet(struct run *r, struct bot *b, double now)
{
	struct tx_batch *t = r->tx;
	bool netchan = b->q.state >= QWC_CONNECTED && b->q.state <= QWC_ACTIVE;
	size_t len;

	if (t->count == TX_BATCH)
		tx_flush(r);
	len = qwc_packet(&b->q, now, true, t->data[t->count], NETCHAN_MAX_PACKET);
	if (len == 0)
		return 0;
	t->bot[t->count] = netchan ? b->id : -1;
	t->seq[t->count] = b->q.chan.outgoing_sequence - 1;
	t->sock[t->count] = b->sock;
	t->src[t->count] = b->ip;
	t->len[t->count] = len;
	t->to[t->count] = r->server_sa;
	t->count++;
	return len;
}

/* a connectionless datagram a server asked the bot to send with a
 * stuffed "packet" command (MVDSV's real-address check) */
static void tx_stuffed_oob(struct run *r, struct bot *b)
{
	struct tx_batch *t = r->tx;
	struct net_addr to;
	size_t len;

	if (t->count == TX_BATCH)
		tx_flush(r);
	len = qwc_take_stuffed_oob(&b->q, t->data[t->count], NETCHAN_MAX_PACKET, &to);
	if (len == 0)
		return;
	t->bot[t->count] = -1;
	t->sock[t->count] = b->sock;
	t->src[t->count] = b->ip;
	t->len[t->count] = len;
	net_addr_to_sockaddr(&to, &t->to[t->count]);
	t->count++;
}

/* ---- behaviour --------------------------------------------------------- */

static void behave_replay(struct run *r, struct bot *b, double now)
{
	const struct qwb_actions *a = b->actions;
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
		qwb_walker_step(&b->walker, &r->cfg->walker, &b->rng, cmd);
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

/* ---- bot state --------------------------------------------------------- */

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
	qwb_walker_start(&b->walker, b->q.setangle[1]);
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
		char map[QWB_MAP_MAX], source[128];

		qwb_map_name(b->q.mapmodel, map, sizeof(map));
		snprintf(source, sizeof(source), "qwbots bot %d (%s), seed %llu, %s",
			 b->id, r->cfg->behaviour == QWB_WALKER ? "walker" :
				r->cfg->behaviour == QWB_REPLAY ? "replay" : "idle",
			 (unsigned long long)r->cfg->seed, r->cfg->server_text);
		qwb_actions_write_header(r->record, map, b->q.self_origin, source);
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
static void check_state(struct run *r, struct bot *b, double now)
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

/* ---- receiving --------------------------------------------------------- */

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

static void deliver(struct run *r, struct bot *b, const uint8_t *data,
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
		tx_stuffed_oob(r, b);
	check_state(r, b, now);
}

/* What the control messages of a datagram say: the address it was sent
 * to (IP_PKTINFO) and when the kernel took it in (SO_TIMESTAMPNS, on the
 * realtime clock). */
struct rx_info {
	uint32_t dst;		/* host order; 0: not given */
	bool have_time;
	struct timespec when;
};

static void rx_control(struct msghdr *m, struct rx_info *info)
{
	struct cmsghdr *c;

	memset(info, 0, sizeof(*info));
	for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			info->dst = ntohl(pi.ipi_addr.s_addr);
		} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			memcpy(&info->when, CMSG_DATA(c), sizeof(info->when));
			info->have_time = true;
		}
	}
}

/* which bot a datagram is for: by the socket, and with pktinfo by the
 * address it was sent to */
static struct bot *bot_for(struct run *r, int sock, uint32_t dst)
{
	int64_t k;

	if (!r->pktinfo)
		return sock < r->n ? &r->bots[sock] : NULL;
	k = (int64_t)dst - (int64_t)r->first_ip;
	if (k < 0 || k >= r->per_sock)
		return NULL;
	k += (int64_t)sock * r->per_sock;
	return k < r->n ? &r->bots[k] : NULL;
}

static void drain(struct run *r, int sock)
{
	struct rx_batch *x = r->rx;
	int fd = r->fds[sock];

	for (;;) {
		int got;
		double now, offset;

		for (int i = 0; i < RX_BATCH; i++) {
			struct msghdr *m = &x->hdr[i].msg_hdr;

			x->iov[i].iov_base = x->data[i];
			x->iov[i].iov_len = RX_BUF;
			m->msg_name = &x->from[i];
			m->msg_namelen = sizeof(x->from[i]);
			m->msg_iov = &x->iov[i];
			m->msg_iovlen = 1;
			m->msg_control = x->ctl[i].buf;
			m->msg_controllen = sizeof(x->ctl[i].buf);
			m->msg_flags = 0;
		}
		got = recvmmsg(fd, x->hdr, RX_BATCH, MSG_DONTWAIT, NULL);
		r->recv_calls++;
		if (got <= 0) {
			if (got < 0 && errno == EINTR)
				continue;
			return;
		}
		now = qwd_clock_s(CLOCK_MONOTONIC);
		offset = qwd_mono_to_wall_s();	/* kernel stamps onto our clock */
		for (int i = 0; i < got; i++) {
			struct msghdr *m = &x->hdr[i].msg_hdr;
			struct rx_info info;
			struct bot *b;
			double t = now;

			if (x->from[i].sin_addr.s_addr != r->server_sa.sin_addr.s_addr ||
			    x->from[i].sin_port != r->server_sa.sin_port) {
				r->foreign++;
				continue;
			}
			rx_control(m, &info);
			b = bot_for(r, sock, info.dst);
			if (!b) {
				r->unroutable++;
				continue;
			}
			/* the arrival, not the moment the loop came round to it;
			 * never later than now, whatever the clocks did */
			if (info.have_time) {
				t = (double)info.when.tv_sec + (double)info.when.tv_nsec * 1e-9 - offset;
				if (t > now || t < now - 1.0)
					t = now;
			}
			deliver(r, b, x->data[i], x->hdr[i].msg_len,
				(m->msg_flags & MSG_TRUNC) != 0, t);
		}
		if (got < RX_BATCH)
			return;
	}
}

/* ---- one send ---------------------------------------------------------- */

static void reschedule(struct run *r, struct bot *b, double now)
{
	double f = 1.0 + r->cfg->jitter * (2.0 * qwb_rng_unit(&b->rng) - 1.0);

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
	len = tx_packet(r, b, now);
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
			qwb_actions_write_line(r->record, now - r->record_start,
					       &b->q.sent[2]);
	}
	check_state(r, b, now);
	reschedule(r, b, now);
}

static void send_due(struct run *r, double now)
{
	while (r->heap_n > 0 && r->heap[0].when <= now + r->cfg->tick)
		send_one(r, &r->bots[heap_pop(r)], now);
	tx_flush(r);
}

/* ---- set-up ------------------------------------------------------------ */

static int raise_fd_limit(int need, char *err, size_t errsize)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 0;
	if (rl.rlim_cur >= (rlim_t)need)
		return 0;
	if (rl.rlim_max < (rlim_t)need) {
		rl.rlim_max = (rlim_t)need;
	}
	rl.rlim_cur = (rlim_t)need;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
		snprintf(err, errsize, "need %d file descriptors (one socket per "
				       "bot), RLIMIT_NOFILE allows fewer: %s; use "
				       "--source IP/COUNT or raise ulimit -n",
			 need, strerror(errno));
		return -1;
	}
	return 0;
}

static void big_buffers(int fd, int bytes)
{
	/* as root, past net.core.rmem_max; otherwise as far as allowed */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bytes, sizeof(bytes)) != 0)
		net_udp_set_buffers(fd, bytes);
}

static int open_sockets(struct run *r, char *err, size_t errsize)
{
	const struct qwb_config *c = r->cfg;
	uint32_t server_ip = ntohl(c->server.ip);

	if (c->source_set) {
		r->first_ip = c->source_ip;
		r->per_sock = c->source_count;
	} else if ((server_ip >> 24) == 127) {
		r->first_ip = (127u << 24) | (1u << 16) | 1u;	/* 127.1.0.1 */
		r->per_sock = r->n;
	} else {
		r->first_ip = 0;
		r->per_sock = 1;
	}
	if (r->per_sock > r->n)
		r->per_sock = r->n;
	r->pktinfo = r->per_sock > 1;
	r->nfds = r->pktinfo ? (r->n + r->per_sock - 1) / r->per_sock : r->n;
	if (raise_fd_limit(r->nfds + 64, err, errsize))
		return -1;
	r->fds = calloc((size_t)r->nfds, sizeof(*r->fds));
	if (!r->fds) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	for (int i = 0; i < r->nfds; i++)
		r->fds[i] = -1;
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0) {
		snprintf(err, errsize, "epoll_create1: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < r->nfds; i++) {
		char ip[INET_ADDRSTRLEN] = "";
		struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
		int one = 1;

		if (!r->pktinfo && r->first_ip) {
			struct in_addr a = {.s_addr = htonl(r->first_ip)};

			inet_ntop(AF_INET, &a, ip, sizeof(ip));
		}
		r->fds[i] = net_udp_open(ip, 0, err, errsize);
		if (r->fds[i] < 0)
			return -1;
		if (r->pktinfo &&
		    setsockopt(r->fds[i], IPPROTO_IP, IP_PKTINFO, &one, sizeof(one)) != 0) {
			snprintf(err, errsize, "IP_PKTINFO: %s", strerror(errno));
			return -1;
		}
		/* arrival times from the kernel: a reply waits up to a tick
		 * before the loop reads it, and must not be timed late */
		if (setsockopt(r->fds[i], SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) != 0) {
			snprintf(err, errsize, "SO_TIMESTAMPNS: %s", strerror(errno));
			return -1;
		}
		big_buffers(r->fds[i], r->pktinfo ? SOCKBUF_SHARED : SOCKBUF_SINGLE);
		if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->fds[i], &ev) != 0) {
			snprintf(err, errsize, "epoll_ctl: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void bot_address(struct run *r, struct bot *b)
{
	struct net_addr a;

	net_udp_local_addr(r->fds[b->sock], &a);
	if (r->pktinfo)
		a.ip = htonl(b->ip);
	net_addr_format(&a, b->st->addr);
}

static int make_bots(struct run *r, char *err, size_t errsize)
{
	const struct qwb_config *c = r->cfg;
	struct qwb_rng qr;
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
	qwb_rng_seed(&qr, c->seed, 0xfffffffful);
	qbase = qwb_rng_below(&qr, 65000);
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
		qwb_rng_seed(&b->rng, c->seed, (uint64_t)i + 1);
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
			 b->st->name, qwb_rng_below(&b->rng, 14),
			 qwb_rng_below(&b->rng, 14), c->client_rate, info_extra);
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
		bot_address(r, b);
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
		qwb_map_name(c->map_path, r->map, sizeof(r->map));
	} else {
		strlcpy(r->map, "unknown", sizeof(r->map));
	}
	if (c->have_checksum)
		r->checksum2 = c->checksum2;
	if (c->behaviour == QWB_REPLAY) {
		for (int i = 0; i < c->nactions; i++) {
			struct qwb_parse_stats ps;

			if (qwb_actions_load(c->actions[i], &r->actions[i], &ps, err,
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
		qwb_actions_free(&r->actions[i]);
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

/* ---- phases ------------------------------------------------------------ */

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

static void start_joins(struct run *r, double now)
{
	while (r->next_join < r->n &&
	       now >= r->t0 + (double)r->next_join / r->cfg->join_rate) {
		struct bot *b = &r->bots[r->next_join++];

		qwc_connect(&b->q, now);
		b->connect_time = now;
		b->next_send = now + qwb_rng_unit(&b->rng) * r->interval;
		heap_push(r, b->id);
	}
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
			tx_packet(r, b, now);
		}
	}
	tx_flush(r);
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

/* ---- progress ---------------------------------------------------------- */

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
		now - r->t0, phase_names[r->phase], in_game,
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
		qwb_progress_line(line, sizeof(line), now - r->t0, phase_names[r->phase],
				  in_game, r->n, (double)d.requests / span,
				  (double)d.replies / span, &r->interval_rt,
				  (double)d.bytes_in / span, (double)d.bytes_out / span,
				  d.bad);
		fprintf(stderr, "\r%s\033[K%s", line, final ? "\n" : "");
	}
	if (!final)
		qwd_hist_clear(&r->interval_rt);
}

/* ---- the loop ---------------------------------------------------------- */

/* Sleep until `until` (monotonic seconds), then read every socket that
 * has something.  The loop does not wake for each reply: replies wait in
 * the socket (timed by the kernel) and are read once per tick, as a
 * client reads its packets once per frame; that caps the wake-ups at
 * 1/tick a second however many bots there are. */
static void wait_events(struct run *r, double until)
{
	struct epoll_event ev[MAX_EVENTS];
	struct timespec ts;
	int n;

	if (until > qwd_clock_s(CLOCK_MONOTONIC)) {
		ts.tv_sec = (time_t)until;
		ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			if (r->stop && *r->stop)
				break;
	}
	if (r->nfds <= FEW_SOCKETS) {
		for (int i = 0; i < r->nfds; i++)
			drain(r, i);
		return;
	}
	do {
		n = epoll_wait(r->epfd, ev, MAX_EVENTS, 0);
		for (int i = 0; i < n; i++)
			drain(r, (int)ev[i].data.u32);
	} while (n == MAX_EVENTS);
}

/* when the loop must next run: the first send due (less the tick, as
 * sends due within it go together), a join, a phase's end, the progress
 * line; but not sooner than a tick after the last run */
static double next_wake(const struct run *r, double last)
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
		wait_events(r, next_wake(r, now));
		now = qwd_clock_s(CLOCK_MONOTONIC);
		start_joins(r, now);
		send_due(r, now);
		advance(r, now, stop && *stop);
		progress(r, now, false);
	}
	progress(r, now, true);
}

/* ---- the report -------------------------------------------------------- */

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
	if (load_inputs(r, err, sizeof(err)) || open_sockets(r, err, sizeof(err)) ||
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
