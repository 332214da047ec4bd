/*
 * io.c -- the bots' sockets and the batched system calls: one sendmmsg
 * per socket for every request due in a tick, recvmmsg to drain the
 * replies, epoll when there are many sockets.
 *
 * Design note
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
 *   Times.  A request's time is when its batch leaves (the client
 *   library's stamp is moved to then); a reply's is the kernel's arrival
 *   stamp (SO_TIMESTAMPNS), so a reply waiting in the socket for the next
 *   round is not counted late.
 */
#include "run.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

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

void io_tx_flush(struct run *r)
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
size_t io_tx_packet(struct run *r, struct bot *b, double now)
{
	struct tx_batch *t = r->tx;
	bool netchan = b->q.state >= QWC_CONNECTED && b->q.state <= QWC_ACTIVE;
	size_t len;

	if (t->count == TX_BATCH)
		io_tx_flush(r);
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
void io_tx_stuffed_oob(struct run *r, struct bot *b)
{
	struct tx_batch *t = r->tx;
	struct net_addr to;
	size_t len;

	if (t->count == TX_BATCH)
		io_tx_flush(r);
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
			run_deliver(r, b, x->data[i], x->hdr[i].msg_len,
				(m->msg_flags & MSG_TRUNC) != 0, t);
		}
		if (got < RX_BATCH)
			return;
	}
}

/* Sleep until `until` (monotonic seconds), then read every socket that
 * has something.  The loop does not wake for each reply: replies wait in
 * the socket (timed by the kernel) and are read once per tick, as a
 * client reads its packets once per frame; that caps the wake-ups at
 * 1/tick a second however many bots there are. */
void io_wait_events(struct run *r, double until)
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

int io_open_sockets(struct run *r, char *err, size_t errsize)
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

void io_bot_address(struct run *r, struct bot *b)
{
	struct net_addr a;

	net_udp_local_addr(r->fds[b->sock], &a);
	if (r->pktinfo)
		a.ip = htonl(b->ip);
	net_addr_format(&a, b->st->addr);
}
