/*
 * udpecho -- the network floor: a bare UDP echo server and its load sender.
 *
 * Design note
 *   The scaling study (tools/experiment/qwexp floor) states qwd's CPU time
 *   per request as a multiple of what the kernel alone costs to carry the
 *   same datagrams.  The "kernel alone" is this echo server: it does with
 *   the socket exactly what qwd's frame does, through the same code
 *   (src/net/udp.c: net_udp_open, 4 MiB buffers, a readiness wait, then
 *   at most 16 net_udp_recv_batch calls of NET_BATCH = 64 datagrams, each
 *   reply built in place with net_send_slot/net_send_commit and the lot
 *   sent with net_send_flush's sendmmsg at the end of the round, as qwd's
 *   reply phase does) and nothing else: no parsing, no game, no reply
 *   building beyond stamping a header.  Its CPU time per request is the
 *   floor under any UDP game server on this machine, measured on the
 *   system calls qwd makes.
 *
 *     udpecho --serve [--ip A] [--port P]
 *     udpecho --load N --rate R --size-in B --size-out B --duration S
 *             [--warmup S] [--server A:P] [--server-pid PID] [--json FILE]
 *             [--seed N] [--tick S]
 *
 *   qwbots cannot drive it (it is not QuakeWorld), so --load is the
 *   sender, built like qwbots' loop (docs/qwbots.md): N clients, each
 *   sending R requests a second from a random phase, one thread, one
 *   socket, due requests leaving in sendmmsg batches once a tick (1 ms),
 *   replies drained with recvmmsg and timed by the kernel's arrival stamp
 *   (SO_TIMESTAMPNS), so the tick adds nothing to the response time.
 *   Response times go into the project's histogram (qwd_hist, ns), so
 *   their p50 and p99 follow the rule of qwbots' and qwd's figures.
 *   A sender that falls more than one interval behind starts over from
 *   the present instead of sending a burst (counted as "skipped").
 *
 *   The request says how long its reply must be, so the server needs no
 *   configuration and one server serves every size.  Payload layout, the
 *   first 16 bytes of both requests and replies (little-endian):
 *
 *     0  u32  magic 0x43455751 ("QWEC")
 *     4  u16  reply length in bytes (16..1472; the server clamps)
 *     6  u16  client number (mod 65536)
 *     8  u64  send time of the request, CLOCK_REALTIME ns
 *
 *   then zero bytes up to the datagram's length.  The server copies the
 *   header into the reply; a datagram shorter than 16 bytes or with
 *   another magic is counted and not answered.
 *
 *   Measurement window: --warmup seconds after the start, --duration
 *   seconds long.  Requests are counted by their send time, replies by the
 *   send time they carry, so a reply to a window request that arrives
 *   just after the window still counts.  CPU time of this process and of
 *   --server-pid over the window is read from /proc/PID/task/<tid>/schedstat
 *   (time on a CPU in ns, summed over the threads); where schedstat is
 *   missing, from utime + stime of /proc/PID/stat (clock ticks); both
 *   through tools/lib/procstat.c.  The tick-based figure is reported as
 *   well (server_ticks_s), as qwbots reports it.
 *
 *   All buffers are allocated before the first packet; the loops allocate
 *   nothing.  The only global is the flag SIGINT/SIGTERM set (a handler
 *   has no other way to reach the loop).
 */
#include "qwd/common.h"
#include "qwd/net.h"
#include "qwtools.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum {
	ECHO_ROUNDS = 16,	/* recvmmsg calls per round, as qwd */
	RX_BATCH = NET_BATCH,	/* datagrams per recvmmsg of the sender */
	LOAD_BATCH = 256,	/* datagrams per sendmmsg of the sender */
	HDR_LEN = 16,
	MAX_PAYLOAD = 1472,	/* one Ethernet frame of UDP payload */
	BUF_BYTES = 4 << 20,	/* socket buffers, as qwd */
	MAX_CLIENTS = 65536
};

#define ECHO_MAGIC 0x43455751u
#define DEFAULT_PORT 27600

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* ---- small helpers ------------------------------------------------------ */

static void put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v)
{
	put_u16(p, (uint16_t)v);
	put_u16(p + 2, (uint16_t)(v >> 16));
}

static void put_u64(uint8_t *p, uint64_t v)
{
	put_u32(p, (uint32_t)v);
	put_u32(p + 4, (uint32_t)(v >> 32));
}

static uint16_t get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)get_u16(p) | ((uint32_t)get_u16(p + 2) << 16);
}

static uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | ((uint64_t)get_u32(p + 4) << 32);
}

static bool parse_num(const char *s, double lo, double hi, double *out)
{
	return s && qwd_parse_double(s, lo, hi, out);
}

/* "A.B.C.D:PORT" or "A.B.C.D" (then PORT = def_port) */
static bool parse_addr(const char *s, int def_port, struct sockaddr_in *sa)
{
	struct net_addr a;

	if (!net_addr_parse(s, (uint16_t)def_port, &a))
		return false;
	net_addr_to_sockaddr(&a, sa);
	return true;
}

/* ---- the echo server ----------------------------------------------------- */

struct echo_server {
	int fd;
	struct net_stats st;
	struct net_recv_batch in;
	struct net_send_batch out;
	uint64_t bad;
};

/* Answer the datagrams of one batch: each reply is the request's header
 * and zeros up to the length it asks for, built in a send slot.  Only the
 * first HDR_LEN bytes of a slot are ever written, so the rest stays the
 * zeros calloc gave it, and a reply costs no more than qwd's copy. */
static void echo_build(struct echo_server *s)
{
	for (size_t i = 0; i < s->in.count; i++) {
		const struct net_packet *p = &s->in.packets[i];
		uint8_t *out;
		size_t max;
		unsigned want;

		if (p->len < HDR_LEN || get_u32(p->data) != ECHO_MAGIC) {
			s->bad++;
			continue;
		}
		want = get_u16(p->data + 4);
		if (want < HDR_LEN)
			want = HDR_LEN;
		if (want > MAX_PAYLOAD)
			want = MAX_PAYLOAD;
		out = net_send_slot(&s->out, &max);
		memcpy(out, p->data, HDR_LEN);
		net_send_commit(&s->out, &p->from, want);
	}
}

static int run_server(const char *ip, int port)
{
	struct echo_server *s = calloc(1, sizeof(*s));
	struct pollfd pfd;
	char err[256];

	if (!s) {
		fprintf(stderr, "udpecho: out of memory\n");
		return 2;
	}
	s->fd = net_udp_open(ip, (uint16_t)port, err, sizeof(err));
	if (s->fd < 0) {
		fprintf(stderr, "udpecho: %s\n", err);
		free(s);
		return 2;
	}
	/* best effort, as qwd: the kernel caps it at rmem_max */
	net_udp_set_buffers(s->fd, BUF_BYTES);
	net_send_init(&s->out, s->fd, &s->st);
	fprintf(stderr, "udpecho: serving on %s:%d\n", ip, port);
	pfd.fd = s->fd;
	pfd.events = POLLIN;
	while (!stop_requested) {
		/* the wait, as qwd's select(); 200 ms so a signal is seen soon */
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		for (int round = 0; round < ECHO_ROUNDS; round++) {
			int n = net_udp_recv_batch(s->fd, &s->in, &s->st);

			if (n < 0)
				break;
			echo_build(s);
			if (n < NET_BATCH)
				break;
		}
		net_send_flush(&s->out);
	}
	fprintf(stderr, "udpecho: served %" PRIu64 " datagrams in (%" PRIu64 " bytes), %"
		PRIu64 " out (%" PRIu64 " bytes), %" PRIu64 " bad, %" PRIu64 " not sent\n",
		s->st.packets_in, s->st.bytes_in, s->st.packets_out, s->st.bytes_out, s->bad,
		s->st.send_errors);
	net_udp_close(s->fd);
	free(s);
	return 0;
}

/* ---- the load sender ------------------------------------------------------ */

struct load_config {
	int clients;
	double rate, duration, warmup, tick;
	int size_in, size_out;
	long server_pid;
	unsigned long long seed;
	struct sockaddr_in server;
	const char *json;
};

struct load {
	const struct load_config *cfg;
	int fd;
	double *phase;			/* phases in [0, period), sorted: client i
					 * is the one with the i-th phase */
	double period, t_start, win_start, win_end;
	uint64_t cycle;			/* periods completed by the schedule */
	int next;			/* index into phase[] of the next send */
	uint64_t win_start_real, win_end_real;
	bool in_window, window_done;

	/* send side */
	struct mmsghdr tx_hdr[LOAD_BATCH];
	struct iovec tx_iov[LOAD_BATCH];
	uint8_t (*tx)[MAX_PAYLOAD];
	int tx_count;

	/* receive side */
	struct mmsghdr rx_hdr[RX_BATCH];
	struct iovec rx_iov[RX_BATCH];
	uint8_t (*rx)[MAX_PAYLOAD];
	char (*rx_ctl)[CMSG_SPACE(sizeof(struct timespec))];

	/* results, window only */
	uint64_t requests, replies, bytes_out, bytes_in, bad, skipped, send_errors;
	struct qwd_hist rt;		/* response times, ns */
	double cpu_self0, cpu_self1, cpu_srv0, cpu_srv1, ticks_srv0, ticks_srv1;
};

static int cmp_phase(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* random phases, sorted: the sends of one period are then in phase order
 * and the schedule is a pointer walking round the array */
static void make_schedule(struct load *l)
{
	uint64_t s = l->cfg->seed;
	int n = l->cfg->clients;

	for (int i = 0; i < n; i++)
		l->phase[i] = qwd_rng_unit(&s) * l->period;
	qsort(l->phase, (size_t)n, sizeof(l->phase[0]), cmp_phase);
}

static double next_due(const struct load *l)
{
	return l->t_start + (double)l->cycle * l->period + l->phase[l->next];
}

static void advance_schedule(struct load *l)
{
	if (++l->next == l->cfg->clients) {
		l->next = 0;
		l->cycle++;
	}
}

static void tx_flush(struct load *l)
{
	int done = 0;

	while (done < l->tx_count) {
		int m = sendmmsg(l->fd, l->tx_hdr + done, (unsigned)(l->tx_count - done), 0);

		if (m < 0) {
			if (errno == EINTR)
				continue;
			l->send_errors += (uint64_t)(l->tx_count - done);
			break;
		}
		done += m;
	}
	l->tx_count = 0;
}

static void tx_one(struct load *l, int client)
{
	uint8_t *p = l->tx[l->tx_count];
	uint64_t now = qwd_clock_ns(CLOCK_REALTIME);

	put_u32(p, ECHO_MAGIC);
	put_u16(p + 4, (uint16_t)l->cfg->size_out);
	put_u16(p + 6, (uint16_t)client);
	put_u64(p + 8, now);
	if (l->in_window && now >= l->win_start_real) {
		l->requests++;
		l->bytes_out += (uint64_t)l->cfg->size_in;
	}
	if (++l->tx_count == LOAD_BATCH)
		tx_flush(l);
}

static void take_reply(struct load *l, const struct mmsghdr *h, const uint8_t *p,
		       uint64_t arrival)
{
	uint64_t sent;

	if (h->msg_len < HDR_LEN || get_u32(p) != ECHO_MAGIC) {
		l->bad++;
		return;
	}
	sent = get_u64(p + 8);
	if (sent < l->win_start_real || (l->win_end_real && sent >= l->win_end_real) ||
	    l->win_start_real == 0)
		return;
	l->replies++;
	l->bytes_in += h->msg_len;
	qwd_hist_add(&l->rt, arrival > sent ? arrival - sent : 0);
}

static void rx_drain(struct load *l)
{
	for (;;) {
		int n;

		for (int i = 0; i < RX_BATCH; i++) {
			l->rx_hdr[i].msg_hdr.msg_control = l->rx_ctl[i];
			l->rx_hdr[i].msg_hdr.msg_controllen = sizeof(l->rx_ctl[i]);
		}
		n = recvmmsg(l->fd, l->rx_hdr, RX_BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			return;
		for (int i = 0; i < n; i++) {
			struct msghdr *m = &l->rx_hdr[i].msg_hdr;
			uint64_t arrival = 0;

			for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
				struct timespec ts;

				if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS &&
				    c->cmsg_len >= CMSG_LEN(sizeof(ts))) {
					memcpy(&ts, CMSG_DATA(c), sizeof(ts));
					arrival = (uint64_t)ts.tv_sec * 1000000000u +
						  (uint64_t)ts.tv_nsec;
				}
			}
			if (!arrival)
				arrival = qwd_clock_ns(CLOCK_REALTIME);
			take_reply(l, &l->rx_hdr[i], l->rx[i], arrival);
		}
		if (n < RX_BATCH)
			return;
	}
}

static void window_mark(struct load *l, bool start)
{
	double self = qwt_proc_cpu_s((long)getpid());
	double srv = qwt_proc_cpu_s(l->cfg->server_pid);
	double ticks = qwt_proc_cpu_ticks_s(l->cfg->server_pid);

	if (start) {
		l->cpu_self0 = self;
		l->cpu_srv0 = srv;
		l->ticks_srv0 = ticks;
	} else {
		l->cpu_self1 = self;
		l->cpu_srv1 = srv;
		l->ticks_srv1 = ticks;
	}
}

/* warmup, window, then a short drain for the window's last replies */
static void load_loop(struct load *l)
{
	const struct load_config *c = l->cfg;
	const double drain = 0.2;
	double last_round = 0;

	l->t_start = qwd_clock_s(CLOCK_MONOTONIC) + 0.01;
	l->win_start = l->t_start + c->warmup;
	l->win_end = l->win_start + c->duration;
	while (!stop_requested) {
		double now = qwd_clock_s(CLOCK_MONOTONIC), wake;
		struct timespec ts;

		if (!l->in_window && !l->window_done && now >= l->win_start) {
			l->in_window = true;
			l->win_start_real = qwd_clock_ns(CLOCK_REALTIME);
			window_mark(l, true);
		}
		if (l->in_window && now >= l->win_end) {
			l->in_window = false;
			l->window_done = true;
			l->win_end_real = qwd_clock_ns(CLOCK_REALTIME);
			window_mark(l, false);
		}
		rx_drain(l);
		if (l->window_done && now >= l->win_end + drain)
			break;
		if (!l->window_done) {
			/* behind by more than an interval: start over from now */
			if (now - next_due(l) > l->period) {
				double lag = now - next_due(l);
				uint64_t whole = (uint64_t)(lag / l->period);

				l->t_start += (double)whole * l->period;
				l->skipped += whole * (uint64_t)c->clients;
			}
			while (next_due(l) <= now + c->tick) {
				tx_one(l, l->next);
				advance_schedule(l);
			}
			tx_flush(l);
		}
		last_round = now;
		wake = l->window_done ? l->win_end + drain : fmin(next_due(l), l->win_end);
		if (wake < last_round + c->tick)
			wake = last_round + c->tick;
		ts.tv_sec = (time_t)wake;
		ts.tv_nsec = (long)((wake - (double)ts.tv_sec) * 1e9);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR &&
		       !stop_requested)
			;
	}
	if (l->in_window) {	/* stopped by a signal inside the window */
		l->win_end_real = qwd_clock_ns(CLOCK_REALTIME);
		window_mark(l, false);
	}
}

static void write_json(const struct load *l, FILE *f)
{
	const struct load_config *c = l->cfg;
	double win = (double)(l->win_end_real - l->win_start_real) * 1e-9;
	double self = l->cpu_self1 - l->cpu_self0;
	double srv = c->server_pid > 0 && l->cpu_srv0 >= 0 && l->cpu_srv1 >= 0 ?
		     l->cpu_srv1 - l->cpu_srv0 : -1;
	double ticks = c->server_pid > 0 && l->ticks_srv0 >= 0 && l->ticks_srv1 >= 0 ?
		       l->ticks_srv1 - l->ticks_srv0 : -1;
	char server[NET_ADDR_STRLEN];
	struct net_addr sa;
	struct json_out j;

	if (win <= 0)
		win = 1e-9;
	net_addr_from_sockaddr(&c->server, &sa);
	json_init(&j, f, NULL, 0);
	j.spaced = true;
	j.digits = 6;
	json_begin(&j, NULL, '{');
	json_break(&j, 2);
	json_i64(&j, "udpecho", 1);
	json_break(&j, 2);
	json_begin(&j, "config", '{');
	json_i64(&j, "clients", c->clients);
	json_num(&j, "rate", c->rate);
	json_i64(&j, "size_in", c->size_in);
	json_i64(&j, "size_out", c->size_out);
	json_num(&j, "duration", c->duration);
	json_num(&j, "warmup", c->warmup);
	json_str(&j, "server", net_addr_format(&sa, server));
	json_i64(&j, "server_pid", c->server_pid);
	json_u64(&j, "seed", c->seed);
	json_end(&j);
	json_break(&j, 2);
	json_begin(&j, "totals", '{');
	json_fixed(&j, "window_s", win, 6);
	json_u64(&j, "requests", l->requests);
	json_u64(&j, "replies", l->replies);
	json_fixed(&j, "requests_per_s", (double)l->requests / win, 3);
	json_fixed(&j, "replies_per_s", (double)l->replies / win, 3);
	json_fixed(&j, "response_rate",
		   l->requests ? (double)l->replies / (double)l->requests : 0, 6);
	json_fixed(&j, "bytes_out_per_s", (double)l->bytes_out / win, 1);
	json_fixed(&j, "bytes_in_per_s", (double)l->bytes_in / win, 1);
	json_u64(&j, "bad", l->bad);
	json_u64(&j, "skipped", l->skipped);
	json_u64(&j, "send_errors", l->send_errors);
	json_break(&j, 4);
	json_begin(&j, "response_time_ms", '{');
	json_u64(&j, "samples", l->rt.count);
	json_fixed(&j, "mean", qwd_hist_mean(&l->rt) / 1e6, 4);
	json_fixed(&j, "p50", (double)qwd_hist_quantile(&l->rt, 0.50) / 1e6, 4);
	json_fixed(&j, "p99", (double)qwd_hist_quantile(&l->rt, 0.99) / 1e6, 4);
	json_fixed(&j, "max", (double)qwd_hist_quantile(&l->rt, 1) / 1e6, 4);
	json_end(&j);
	json_end(&j);
	json_break(&j, 2);
	json_begin(&j, "cpu", '{');
	json_fixed(&j, "client_s", self, 6);
	json_fixed(&j, "client_percent", 100 * self / win, 3);
	json_fixed(&j, "server_s", srv, 6);
	json_fixed(&j, "server_percent", srv >= 0 ? 100 * srv / win : -1, 3);
	json_fixed(&j, "server_ticks_s", ticks, 2);
	json_fixed(&j, "server_us_per_request",
		   srv >= 0 && l->requests ? srv * 1e6 / (double)l->requests : -1, 4);
	json_fixed(&j, "client_us_per_request",
		   l->requests ? self * 1e6 / (double)l->requests : -1, 4);
	json_end(&j);
	json_break(&j, 0);
	json_end(&j);
	json_raw(&j, "\n");
}

static int run_load(const struct load_config *c)
{
	struct load *l = calloc(1, sizeof(*l));
	int on = 1, status = 0;

	if (!l) {
		fprintf(stderr, "udpecho: out of memory\n");
		return 2;
	}
	l->fd = -1;
	l->cfg = c;
	l->period = 1.0 / c->rate;
	l->phase = calloc((size_t)c->clients, sizeof(*l->phase));
	l->tx = calloc(LOAD_BATCH, sizeof(*l->tx));
	l->rx = calloc(RX_BATCH, sizeof(*l->rx));
	l->rx_ctl = calloc(RX_BATCH, sizeof(*l->rx_ctl));
	if (!l->phase || !l->tx || !l->rx || !l->rx_ctl) {
		fprintf(stderr, "udpecho: out of memory\n");
		status = 2;
		goto out;
	}
	qwd_hist_clear(&l->rt);
	l->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (l->fd < 0) {
		perror("udpecho: socket");
		status = 2;
		goto out;
	}
	net_udp_set_buffers(l->fd, BUF_BYTES);
	(void)setsockopt(l->fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
	/* connected: the kernel skips the route look-up per datagram, and only
	 * the server's datagrams reach the socket */
	if (connect(l->fd, (const struct sockaddr *)&c->server, sizeof(c->server)) != 0) {
		fprintf(stderr, "udpecho: connect: %s\n", strerror(errno));
		status = 2;
		goto out;
	}
	for (int i = 0; i < LOAD_BATCH; i++) {
		l->tx_iov[i].iov_base = l->tx[i];
		l->tx_iov[i].iov_len = (size_t)c->size_in;
		l->tx_hdr[i].msg_hdr.msg_iov = &l->tx_iov[i];
		l->tx_hdr[i].msg_hdr.msg_iovlen = 1;
	}
	for (int i = 0; i < RX_BATCH; i++) {
		l->rx_iov[i].iov_base = l->rx[i];
		l->rx_iov[i].iov_len = sizeof(l->rx[i]);
		l->rx_hdr[i].msg_hdr.msg_iov = &l->rx_iov[i];
		l->rx_hdr[i].msg_hdr.msg_iovlen = 1;
	}
	make_schedule(l);
	load_loop(l);
	write_json(l, stdout);
	if (c->json) {
		FILE *f = fopen(c->json, "w");

		if (!f) {
			fprintf(stderr, "udpecho: %s: %s\n", c->json, strerror(errno));
			status = 2;
		} else {
			write_json(l, f);
			if (fclose(f) != 0)
				status = 2;
		}
	}
	if (l->replies == 0)
		fprintf(stderr, "udpecho: no reply in the window (is the server running on %s:%d?)\n",
			inet_ntoa(c->server.sin_addr), ntohs(c->server.sin_port));
out:
	if (l->fd >= 0)
		close(l->fd);
	free(l->phase);
	free(l->tx);
	free(l->rx);
	free(l->rx_ctl);
	free(l);
	return status;
}

/* ---- command line ---------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: udpecho --serve [--ip A] [--port P]\n"
		"       udpecho --load N --rate R --size-in B --size-out B --duration S\n"
		"               [--warmup S] [--server A:P] [--server-pid PID] [--json FILE]\n"
		"               [--seed N] [--tick S]\n"
		"A bare UDP echo server (recvmmsg/sendmmsg, as qwd's frame does with its\n"
		"socket) and a sender of N clients at R requests/s each, B-byte requests,\n"
		"asking for B-byte replies; the sender prints JSON (window totals, response\n"
		"time, CPU seconds of itself and of --server-pid over the window).\n"
		"Defaults: --ip 127.0.0.1 --port %d --server 127.0.0.1:%d --warmup 1\n"
		"--rate 30 --size-in 32 --size-out 64 --duration 10 --tick 0.001\n",
		DEFAULT_PORT, DEFAULT_PORT);
}

int main(int argc, char **argv)
{
	struct load_config c = {
		.clients = 0, .rate = 30, .duration = 10, .warmup = 1, .tick = 0.001,
		.size_in = 32, .size_out = 64, .seed = 1,
	};
	struct sigaction sa;
	bool serve = false;
	const char *ip = "127.0.0.1";
	double port = DEFAULT_PORT;

	parse_addr("127.0.0.1", DEFAULT_PORT, &c.server);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		double x = 0;
		bool ok = true;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--serve")) {
			serve = true;
			continue;
		}
		if (!v) {
			fprintf(stderr, "udpecho: %s needs a value (or is unknown)\n", a);
			usage(stderr);
			return 2;
		}
		i++;
		if (!strcmp(a, "--ip")) {
			ip = v;
		} else if (!strcmp(a, "--port")) {
			ok = parse_num(v, 1, 65535, &port);
		} else if (!strcmp(a, "--load")) {
			ok = parse_num(v, 1, MAX_CLIENTS, &x);
			c.clients = (int)x;
		} else if (!strcmp(a, "--rate")) {
			ok = parse_num(v, 0.1, 10000, &c.rate);
		} else if (!strcmp(a, "--size-in")) {
			ok = parse_num(v, HDR_LEN, MAX_PAYLOAD, &x);
			c.size_in = (int)x;
		} else if (!strcmp(a, "--size-out")) {
			ok = parse_num(v, HDR_LEN, MAX_PAYLOAD, &x);
			c.size_out = (int)x;
		} else if (!strcmp(a, "--duration")) {
			ok = parse_num(v, 0.1, 86400, &c.duration);
		} else if (!strcmp(a, "--warmup")) {
			ok = parse_num(v, 0, 3600, &c.warmup);
		} else if (!strcmp(a, "--tick")) {
			ok = parse_num(v, 0.0001, 0.1, &c.tick);
		} else if (!strcmp(a, "--server")) {
			ok = parse_addr(v, DEFAULT_PORT, &c.server);
		} else if (!strcmp(a, "--server-pid")) {
			ok = parse_num(v, 1, 4194304, &x);
			c.server_pid = (long)x;
		} else if (!strcmp(a, "--seed")) {
			ok = parse_num(v, 0, 1e15, &x);
			c.seed = (unsigned long long)x;
		} else if (!strcmp(a, "--json")) {
			c.json = v;
		} else {
			fprintf(stderr, "udpecho: unknown option %s\n", a);
			usage(stderr);
			return 2;
		}
		if (!ok) {
			fprintf(stderr, "udpecho: bad value for %s: \"%s\"\n", a, v);
			return 2;
		}
	}
	if (serve == (c.clients > 0)) {
		fprintf(stderr, "udpecho: say --serve or --load N (one of them)\n");
		usage(stderr);
		return 2;
	}

	/* no SA_RESTART: a signal ends the server's poll() at once */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (serve)
		return run_server(ip, (int)port);
	return run_load(&c);
}
