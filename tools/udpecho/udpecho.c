/*
 * udpecho -- the network floor: a bare UDP echo server and its load sender.
 *
 * Design note
 *   The scaling study (tools/experiment/qwexp floor) states qwd's CPU time
 *   per request as a multiple of what the kernel alone costs to carry the
 *   same datagrams.  The "kernel alone" is this echo server: it does with
 *   the socket exactly what qwd's frame does (src/server/frame.c: wait in
 *   a readiness call, drain the socket with recvmmsg, NET_BATCH = 64
 *   datagrams a call and at most 16 calls a round, answer with sendmmsg,
 *   4 MiB socket buffers) and nothing else: no parsing, no game, no reply
 *   building beyond stamping a header.  Its CPU time per request is the
 *   floor under any UDP game server on this machine.
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
 *   missing, from utime + stime of /proc/PID/stat (clock ticks).  The
 *   tick-based figure is reported as well (server_ticks_s), as qwbots
 *   reports it.
 *
 *   All buffers are allocated before the first packet; the loops allocate
 *   nothing.  The only global is the flag SIGINT/SIGTERM set (a handler
 *   has no other way to reach the loop).
 */
#include "qwd/common.h"

#include <arpa/inet.h>
#include <dirent.h>
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
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

enum {
	ECHO_BATCH = 64,	/* datagrams per recvmmsg, as qwd's NET_BATCH */
	ECHO_ROUNDS = 16,	/* recvmmsg calls per round, as qwd */
	LOAD_BATCH = 256,	/* datagrams per sendmmsg of the sender */
	HDR_LEN = 16,
	MAX_PAYLOAD = 1472,	/* one Ethernet frame of UDP payload */
	BUF_BYTES = 4 << 20,	/* socket buffers, as qwd */
	HIST_US = 200000,	/* response times to 200 ms at 1 us; beyond: top */
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

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

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

/* a whole-string number within [lo, hi], or false */
static bool parse_num(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* "A.B.C.D:PORT" or "A.B.C.D" (then PORT = def_port) */
static bool parse_addr(const char *s, int def_port, struct sockaddr_in *sa)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	size_t hl = colon ? (size_t)(colon - s) : strlen(s);
	double port = def_port;

	if (hl == 0 || hl >= sizeof(host))
		return false;
	memcpy(host, s, hl);
	host[hl] = '\0';
	if (colon && !parse_num(colon + 1, 1, 65535, &port))
		return false;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &sa->sin_addr) == 1;
}

static int open_socket(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int bytes = BUF_BYTES;

	if (fd < 0) {
		perror("udpecho: socket");
		return -1;
	}
	/* best effort, as qwd: the kernel caps it at rmem_max */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
	return fd;
}

/* ---- CPU time of a process ---------------------------------------------- */

/* utime + stime of /proc/PID/stat in seconds (clock ticks), -1 if unknown.
 * The command name may hold blanks and parentheses: fields are counted
 * from the last ')'. */
static double proc_ticks_s(long pid)
{
	char path[64], buf[1024];
	unsigned long long ut, st;
	const char *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	/* after ')': state(3) ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt cmajflt utime(14) stime(15) */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* time on a CPU of every thread of PID, from schedstat (ns precision);
 * falls back to the tick count; -1 if the process is gone */
static double proc_cpu_s(long pid)
{
	char path[64];
	struct dirent *de;
	double sum = 0;
	bool any = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		char spath[300];
		unsigned long long ns;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(spath, sizeof(spath), "/proc/%ld/task/%s/schedstat", pid, de->d_name);
		f = fopen(spath, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &ns) == 1) {
			sum += (double)ns * 1e-9;
			any = true;
		}
		fclose(f);
	}
	closedir(d);
	/* schedstat reads 0 when the kernel keeps no run-time statistics */
	if (!any || sum <= 0)
		return proc_ticks_s(pid);
	return sum;
}

/* ---- the echo server ----------------------------------------------------- */

struct echo_server {
	int fd;
	struct mmsghdr in_hdr[ECHO_BATCH], out_hdr[ECHO_BATCH];
	struct iovec in_iov[ECHO_BATCH], out_iov[ECHO_BATCH];
	struct sockaddr_in from[ECHO_BATCH];
	uint8_t in[ECHO_BATCH][MAX_PAYLOAD];
	uint8_t out[ECHO_BATCH][MAX_PAYLOAD];	/* zero past the header, always */
	uint64_t packets_in, bytes_in, packets_out, bytes_out, bad, send_drops;
};

/* Answer the n datagrams just read; returns how many replies were built. */
static int echo_build(struct echo_server *s, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++) {
		unsigned len = s->in_hdr[i].msg_len;
		const uint8_t *p = s->in[i];
		unsigned want;

		s->packets_in++;
		s->bytes_in += len;
		if (len < HDR_LEN || get_u32(p) != ECHO_MAGIC) {
			s->bad++;
			continue;
		}
		want = get_u16(p + 4);
		if (want < HDR_LEN)
			want = HDR_LEN;
		if (want > MAX_PAYLOAD)
			want = MAX_PAYLOAD;
		memcpy(s->out[k], p, HDR_LEN);
		s->out_iov[k].iov_len = want;
		s->out_hdr[k].msg_hdr.msg_name = &s->from[i];
		s->out_hdr[k].msg_hdr.msg_namelen = sizeof(s->from[i]);
		k++;
	}
	return k;
}

static void echo_send(struct echo_server *s, int k)
{
	int done = 0;

	while (done < k) {
		int m = sendmmsg(s->fd, s->out_hdr + done, (unsigned)(k - done), MSG_DONTWAIT);

		if (m < 0) {
			if (errno == EINTR)
				continue;
			/* full send buffer or a refused peer: the rest is lost */
			s->send_drops += (uint64_t)(k - done);
			return;
		}
		for (int i = done; i < done + m; i++) {
			s->packets_out++;
			s->bytes_out += s->out_iov[i].iov_len;
		}
		done += m;
	}
}

static int run_server(const struct sockaddr_in *bind_to)
{
	struct echo_server *s = calloc(1, sizeof(*s));
	struct pollfd pfd;

	if (!s) {
		fprintf(stderr, "udpecho: out of memory\n");
		return 2;
	}
	s->fd = open_socket();
	if (s->fd < 0) {
		free(s);
		return 2;
	}
	if (bind(s->fd, (const struct sockaddr *)bind_to, sizeof(*bind_to)) != 0) {
		fprintf(stderr, "udpecho: bind %s:%d: %s\n", inet_ntoa(bind_to->sin_addr),
			ntohs(bind_to->sin_port), strerror(errno));
		close(s->fd);
		free(s);
		return 2;
	}
	for (int i = 0; i < ECHO_BATCH; i++) {
		s->in_iov[i].iov_base = s->in[i];
		s->in_iov[i].iov_len = sizeof(s->in[i]);
		s->in_hdr[i].msg_hdr.msg_iov = &s->in_iov[i];
		s->in_hdr[i].msg_hdr.msg_iovlen = 1;
		s->out_iov[i].iov_base = s->out[i];
		s->out_hdr[i].msg_hdr.msg_iov = &s->out_iov[i];
		s->out_hdr[i].msg_hdr.msg_iovlen = 1;
	}
	fprintf(stderr, "udpecho: serving on %s:%d\n", inet_ntoa(bind_to->sin_addr),
		ntohs(bind_to->sin_port));
	pfd.fd = s->fd;
	pfd.events = POLLIN;
	while (!stop_requested) {
		/* the wait, as qwd's select(); 200 ms so a signal is seen soon */
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		for (int round = 0; round < ECHO_ROUNDS; round++) {
			int n;

			for (int i = 0; i < ECHO_BATCH; i++) {
				s->in_hdr[i].msg_hdr.msg_name = &s->from[i];
				s->in_hdr[i].msg_hdr.msg_namelen = sizeof(s->from[i]);
			}
			n = recvmmsg(s->fd, s->in_hdr, ECHO_BATCH, MSG_DONTWAIT, NULL);
			if (n <= 0)
				break;
			echo_send(s, echo_build(s, n));
			if (n < ECHO_BATCH)
				break;
		}
	}
	fprintf(stderr, "udpecho: served %" PRIu64 " datagrams in (%" PRIu64 " bytes), %"
		PRIu64 " out (%" PRIu64 " bytes), %" PRIu64 " bad, %" PRIu64 " not sent\n",
		s->packets_in, s->bytes_in, s->packets_out, s->bytes_out, s->bad,
		s->send_drops);
	close(s->fd);
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
	struct mmsghdr rx_hdr[ECHO_BATCH];
	struct iovec rx_iov[ECHO_BATCH];
	uint8_t (*rx)[MAX_PAYLOAD];
	char (*rx_ctl)[CMSG_SPACE(sizeof(struct timespec))];

	/* results, window only */
	uint64_t requests, replies, bytes_out, bytes_in, bad, skipped, send_errors;
	uint32_t *hist;			/* response time, 1 us buckets */
	uint64_t samples;
	double rt_sum_us, rt_max_us;
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
	uint64_t now = real_ns();

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
	double us;

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
	us = arrival > sent ? (double)(arrival - sent) * 1e-3 : 0;
	l->rt_sum_us += us;
	if (us > l->rt_max_us)
		l->rt_max_us = us;
	l->hist[us < HIST_US ? (size_t)us : HIST_US - 1]++;
	l->samples++;
}

static void rx_drain(struct load *l)
{
	for (;;) {
		int n;

		for (int i = 0; i < ECHO_BATCH; i++) {
			l->rx_hdr[i].msg_hdr.msg_control = l->rx_ctl[i];
			l->rx_hdr[i].msg_hdr.msg_controllen = sizeof(l->rx_ctl[i]);
		}
		n = recvmmsg(l->fd, l->rx_hdr, ECHO_BATCH, MSG_DONTWAIT, NULL);
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
				arrival = real_ns();
			take_reply(l, &l->rx_hdr[i], l->rx[i], arrival);
		}
		if (n < ECHO_BATCH)
			return;
	}
}

static double hist_percentile(const struct load *l, double q)
{
	uint64_t rank, seen = 0;

	if (!l->samples)
		return 0;
	rank = (uint64_t)ceil(q * (double)l->samples);
	if (rank < 1)
		rank = 1;
	for (size_t i = 0; i < HIST_US; i++) {
		seen += l->hist[i];
		if (seen >= rank)
			return fmin((double)i + 0.5, l->rt_max_us);
	}
	return l->rt_max_us;
}

static void window_mark(struct load *l, bool start)
{
	double self = proc_cpu_s((long)getpid());
	double srv = l->cfg->server_pid > 0 ? proc_cpu_s(l->cfg->server_pid) : -1;
	double ticks = l->cfg->server_pid > 0 ? proc_ticks_s(l->cfg->server_pid) : -1;

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

	l->t_start = mono_now() + 0.01;
	l->win_start = l->t_start + c->warmup;
	l->win_end = l->win_start + c->duration;
	while (!stop_requested) {
		double now = mono_now(), wake;
		struct timespec ts;

		if (!l->in_window && !l->window_done && now >= l->win_start) {
			l->in_window = true;
			l->win_start_real = real_ns();
			window_mark(l, true);
		}
		if (l->in_window && now >= l->win_end) {
			l->in_window = false;
			l->window_done = true;
			l->win_end_real = real_ns();
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
		l->win_end_real = real_ns();
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

	if (win <= 0)
		win = 1e-9;
	fprintf(f, "{\n  \"udpecho\": 1,\n");
	fprintf(f, "  \"config\": {\"clients\": %d, \"rate\": %g, \"size_in\": %d, "
		"\"size_out\": %d, \"duration\": %g, \"warmup\": %g, \"server\": \"%s:%d\", "
		"\"server_pid\": %ld, \"seed\": %llu},\n",
		c->clients, c->rate, c->size_in, c->size_out, c->duration, c->warmup,
		inet_ntoa(c->server.sin_addr), ntohs(c->server.sin_port), c->server_pid,
		c->seed);
	fprintf(f, "  \"totals\": {\"window_s\": %.6f, \"requests\": %" PRIu64
		", \"replies\": %" PRIu64 ", \"requests_per_s\": %.3f, \"replies_per_s\": %.3f, "
		"\"response_rate\": %.6f, \"bytes_out_per_s\": %.1f, \"bytes_in_per_s\": %.1f, "
		"\"bad\": %" PRIu64 ", \"skipped\": %" PRIu64 ", \"send_errors\": %" PRIu64 ",\n",
		win, l->requests, l->replies, (double)l->requests / win,
		(double)l->replies / win,
		l->requests ? (double)l->replies / (double)l->requests : 0,
		(double)l->bytes_out / win, (double)l->bytes_in / win, l->bad, l->skipped,
		l->send_errors);
	fprintf(f, "    \"response_time_ms\": {\"samples\": %" PRIu64 ", \"mean\": %.4f, "
		"\"p50\": %.4f, \"p99\": %.4f, \"max\": %.4f}},\n",
		l->samples, l->samples ? l->rt_sum_us / (double)l->samples / 1000 : 0,
		hist_percentile(l, 0.50) / 1000, hist_percentile(l, 0.99) / 1000,
		l->rt_max_us / 1000);
	fprintf(f, "  \"cpu\": {\"client_s\": %.6f, \"client_percent\": %.3f, "
		"\"server_s\": %.6f, \"server_percent\": %.3f, \"server_ticks_s\": %.2f, "
		"\"server_us_per_request\": %.4f, \"client_us_per_request\": %.4f}\n}\n",
		self, 100 * self / win, srv, srv >= 0 ? 100 * srv / win : -1, ticks,
		srv >= 0 && l->requests ? srv * 1e6 / (double)l->requests : -1,
		l->requests ? self * 1e6 / (double)l->requests : -1);
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
	l->rx = calloc(ECHO_BATCH, sizeof(*l->rx));
	l->rx_ctl = calloc(ECHO_BATCH, sizeof(*l->rx_ctl));
	l->hist = calloc(HIST_US, sizeof(*l->hist));
	if (!l->phase || !l->tx || !l->rx || !l->rx_ctl || !l->hist) {
		fprintf(stderr, "udpecho: out of memory\n");
		status = 2;
		goto out;
	}
	l->fd = open_socket();
	if (l->fd < 0) {
		status = 2;
		goto out;
	}
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
	for (int i = 0; i < ECHO_BATCH; i++) {
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
	free(l->hist);
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
	struct sockaddr_in bind_to;
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

	if (serve) {
		char spec[80];

		snprintf(spec, sizeof(spec), "%s:%d", ip, (int)port);
		if (!parse_addr(spec, DEFAULT_PORT, &bind_to)) {
			fprintf(stderr, "udpecho: bad --ip \"%s\"\n", ip);
			return 2;
		}
		return run_server(&bind_to);
	}
	return run_load(&c);
}
