/*
 * uring.c -- the server's socket through one io_uring: receive, send and
 * the frame's wait in one io_uring_enter per wakeup.
 *
 * Design note
 *   On the select path a wakeup costs three system calls or more (select,
 *   recvmmsg, sendmmsg) for the one or two requests a busy server's
 *   wakeup serves; here it costs one.  The ring holds:
 *     - one multishot recvmsg on the socket, into a ring of URING_BUFS
 *       provided buffers (each an io_uring_recvmsg_out, the sender's
 *       address and NET_MAX_UDP_PACKET bytes): a datagram arriving is a
 *       completion, no call.  A buffer handed out in a receive batch goes
 *       back to the kernel at the next batch (the batch's contract: valid
 *       until the next call).  The request ends when the buffers run out
 *       (ENOBUFS) or on an error; it is armed again at the next batch,
 *       and when that batch has fewer than NET_BATCH datagrams ready it
 *       goes in at once with the buffers just given back: a backlog of
 *       more than a ring's worth is read in one frame, as recvmmsg reads
 *       what the socket holds.  (One ring's worth a frame made a server
 *       once behind stay behind: it answered at most ~224 requests a
 *       frame while more queued in the socket, for seconds at 2048
 *       players.)
 *       A datagram cut to fit (MSG_TRUNC) is dropped and counted, as
 *       udp.c does.
 *     - the replies: a flush of a bound send batch (udp.c) turns each
 *       datagram into a sendmsg request, left unsubmitted; the next wait
 *       submits them with its own enter, so the frame's replies, its
 *       wait and its receives share one call (a server whose caller
 *       does not loop at once submits them at the frame's end instead,
 *       net_send_sync: server_defer_sends).  The batch's buffers are the
 *       ring's until their completions come back (b->inflight): a slot
 *       asked for before that settles first (submit and wait), which on a
 *       UDP socket, sent inline, never blocks for long.
 *     - the features' descriptors (QTV, the metrics page, the console):
 *       each gets a one-shot POLL_ADD in the same ring when it is wanted
 *       and a POLL_REMOVE when it no longer is, so a wakeup for any of
 *       them is the same enter.  A generation in each poll's user_data
 *       tells a stale completion (a poll removed and re-added) from the
 *       live one.  A descriptor closed and reopened under the same number
 *       within one frame keeps the old poll (which refers to the old
 *       file); a zero-timeout select on the wanted set after a wait that
 *       timed out, and every SELECT_CHECK wakeups, finds such a
 *       descriptor ready and re-arms its poll.  Chosen over a select after
 *       every wakeup: that would be a second call per wakeup whenever any
 *       descriptor is registered (the console almost always is).
 *   The ring is set up SINGLE_ISSUER | DEFER_TASKRUN where the kernel has
 *   them (6.1): completions are produced only inside our enter, never by
 *   interrupting the frame.  So datagrams arriving between the wait and
 *   the RECEIVE phase would wait for the next frame, where recvmmsg would
 *   have read them; TASKRUN_FLAG makes the kernel say so in the SQ ring's
 *   flags, and a receive batch then fetches them (one io_uring_enter, only
 *   when something is pending).  Sizes are fixed at creation: SQ URING_SQ
 *   entries, CQ twice that, which holds every buffer's completion plus a
 *   batch of sends plus the polls, so the CQ cannot overflow.
 */
#include "internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <liburing.h>

enum {
	URING_SQ = 512,		/* sends (NET_BATCH), re-arms, polls */
	URING_BUFS = 256,	/* provided receive buffers, a power of 2 */
	URING_BGID = 7,		/* their group id */
	SELECT_CHECK = 16,	/* wakeups between checks of the polls */
	URING_FETCHES = 4,	/* task-work fetches a receive batch may make */
};

/* what a completion is for: the top byte of user_data */
enum {
	TAG_RECV = 1,
	TAG_SEND = 2,
	TAG_POLL = 3,
	TAG_IGNORE = 4,		/* poll removals */
};
#define TAG(u) ((unsigned)((u) >> 56))
#define MAKE_TAG(t, gen, fd) \
	((uint64_t)(t) << 56 | (uint64_t)(uint32_t)(gen) << 16 | (uint64_t)(uint16_t)(fd))

/* a provided buffer: the recvmsg_out header, the name, the datagram */
#define URING_BUF_SIZE \
	(sizeof(struct io_uring_recvmsg_out) + sizeof(struct sockaddr_in) + \
	 NET_MAX_UDP_PACKET)

struct uring_ready {
	uint16_t bid;
	uint32_t len;
};

struct net_uring {
	struct io_uring ring;
	int fd;
	struct io_uring_buf_ring *br;
	size_t br_bytes;
	uint8_t *bufs;		/* URING_BUFS * URING_BUF_SIZE */
	struct msghdr recv_msg;	/* the multishot's layout: name, no control */
	bool armed;		/* the multishot recvmsg is live or queued */
	bool arm_queued;	/* queued, not yet submitted */
	/* completed datagrams not yet handed out, in arrival order */
	struct uring_ready ready[URING_BUFS];
	size_t ready_head, ready_count;
	/* buffers the last batch lent out, returned at the next */
	uint16_t held[NET_BATCH];
	size_t nheld;
	struct net_send_batch *tx;	/* the bound send batch */
	unsigned queued;	/* requests prepared, not submitted */
	/* polls: per descriptor, POLLIN/POLLOUT armed and the generation */
	uint8_t poll_armed[FD_SETSIZE];
	uint8_t poll_stale[FD_SETSIZE];	/* re-arm at the next wait */
	uint32_t poll_gen[FD_SETSIZE];
	int poll_top;		/* highest descriptor ever armed, -1 none */
	uint64_t wakeups;
};

bool net_path_parse(const char *s, enum net_path *out)
{
	static const char *const names[] = {"auto", "select", "uring"};

	for (int i = 0; i < 3; i++)
		if (s && !strcmp(s, names[i])) {
			*out = (enum net_path)i;
			return true;
		}
	return false;
}

const char *net_path_name(enum net_path p)
{
	switch (p) {
	case NET_PATH_SELECT:
		return "select";
	case NET_PATH_URING:
		return "uring";
	default:
		return "auto";
	}
}

/* everything prepared went in with the call just made */
static void submitted(struct net_uring *u)
{
	u->queued = 0;
	u->arm_queued = false;
}

/* a free submission entry; when the SQ is full, what is queued goes in
 * first (never in a steady frame: URING_SQ exceeds a frame's requests) */
static struct io_uring_sqe *get_sqe(struct net_uring *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe) {
		io_uring_submit(&u->ring);
		if (u->tx && u->tx->stats)
			u->tx->stats->enter_calls++;
		submitted(u);
		sqe = io_uring_get_sqe(&u->ring);
	}
	if (sqe)
		u->queued++;
	return sqe;
}

static void arm_recv(struct net_uring *u)
{
	struct io_uring_sqe *sqe = get_sqe(u);

	if (!sqe)
		return;
	io_uring_prep_recvmsg_multishot(sqe, u->fd, &u->recv_msg, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = URING_BGID;
	io_uring_sqe_set_data64(sqe, MAKE_TAG(TAG_RECV, 0, 0));
	u->armed = true;
	u->arm_queued = true;
}

static void give_back(struct net_uring *u, uint16_t bid, int i)
{
	io_uring_buf_ring_add(u->br, u->bufs + (size_t)bid * URING_BUF_SIZE,
			      URING_BUF_SIZE, bid,
			      io_uring_buf_ring_mask(URING_BUFS), i);
}

struct net_uring *net_uring_create(int fd, char *err, size_t errsize)
{
	struct io_uring_params p;
	struct io_uring_buf_reg reg;
	struct net_uring *u;
	int r;

	if (fd < 0 || fd >= FD_SETSIZE) {
		snprintf(err, errsize, "bad socket %d", fd);
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	if (!u) {
		snprintf(err, errsize, "out of memory");
		return NULL;
	}
	u->fd = fd;
	u->poll_top = -1;
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
		  IORING_SETUP_TASKRUN_FLAG;
	r = io_uring_queue_init_params(URING_SQ, &u->ring, &p);
	if (r == -EINVAL) {	/* before 6.1: completions as task work */
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
		r = io_uring_queue_init_params(URING_SQ, &u->ring, &p);
	}
	if (r == -EINVAL) {
		memset(&p, 0, sizeof(p));
		r = io_uring_queue_init_params(URING_SQ, &u->ring, &p);
	}
	if (r < 0) {
		snprintf(err, errsize, "io_uring_setup: %s", strerror(-r));
		free(u);
		return NULL;
	}
	if (!(p.features & IORING_FEAT_EXT_ARG)) {
		snprintf(err, errsize, "io_uring lacks IORING_FEAT_EXT_ARG "
			 "(kernel before 5.11)");
		goto fail_ring;
	}
	u->bufs = malloc((size_t)URING_BUFS * URING_BUF_SIZE);
	u->br_bytes = URING_BUFS * sizeof(struct io_uring_buf);
	u->br = mmap(NULL, u->br_bytes, PROT_READ | PROT_WRITE,
		     MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	if (!u->bufs || u->br == MAP_FAILED) {
		snprintf(err, errsize, "out of memory for the receive buffers");
		if (u->br == MAP_FAILED)
			u->br = NULL;
		goto fail_ring;
	}
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (uint64_t)(uintptr_t)u->br;
	reg.ring_entries = URING_BUFS;
	reg.bgid = URING_BGID;
	r = io_uring_register_buf_ring(&u->ring, &reg, 0);
	if (r < 0) {
		snprintf(err, errsize, "io_uring provided buffer ring: %s "
			 "(kernel before 5.19)", strerror(-r));
		goto fail_ring;
	}
	io_uring_buf_ring_init(u->br);
	for (int i = 0; i < URING_BUFS; i++)
		give_back(u, (uint16_t)i, i);
	io_uring_buf_ring_advance(u->br, URING_BUFS);
	u->recv_msg.msg_namelen = sizeof(struct sockaddr_in);
	u->recv_msg.msg_controllen = 0;
	arm_recv(u);
	/* a kernel without multishot recvmsg (before 6.0) says so now */
	r = io_uring_submit(&u->ring);
	submitted(u);
	if (r < 0) {
		snprintf(err, errsize, "io_uring submit: %s", strerror(-r));
		goto fail_ring;
	}
	{
		struct io_uring_cqe *cqe;

		if (io_uring_peek_cqe(&u->ring, &cqe) == 0 &&
		    TAG(cqe->user_data) == TAG_RECV && cqe->res < 0 &&
		    cqe->res != -ENOBUFS) {
			snprintf(err, errsize, "io_uring multishot recvmsg: %s",
				 strerror(-cqe->res));
			goto fail_ring;
		}
	}
	return u;

fail_ring:
	io_uring_queue_exit(&u->ring);
	if (u->br)
		munmap(u->br, u->br_bytes);
	free(u->bufs);
	free(u);
	return NULL;
}

/* one completion: a datagram kept for the next batch, a send counted, a
 * descriptor found ready */
static void complete(struct net_uring *u, const struct io_uring_cqe *cqe,
		     fd_set *fds, fd_set *wfds, bool *polled)
{
	uint64_t ud = cqe->user_data;
	struct net_stats *st = u->tx ? u->tx->stats : NULL;

	switch (TAG(ud)) {
	case TAG_RECV:
		if (!(cqe->flags & IORING_CQE_F_MORE))
			u->armed = false;
		if (cqe->flags & IORING_CQE_F_BUFFER) {
			struct uring_ready *r;

			r = &u->ready[(u->ready_head + u->ready_count) % URING_BUFS];
			r->bid = (uint16_t)(cqe->flags >> IORING_CQE_BUFFER_SHIFT);
			r->len = cqe->res < 0 ? 0 : (uint32_t)cqe->res;
			u->ready_count++;
		} else if (cqe->res < 0 && cqe->res != -ENOBUFS && st) {
			st->recv_errors++;
		}
		break;
	case TAG_SEND:
		if (u->tx && u->tx->inflight)
			u->tx->inflight--;
		if (!st)
			break;
		if (cqe->res < 0) {
			st->send_errors++;
		} else {
			st->packets_out++;
			st->bytes_out += (uint64_t)cqe->res;
		}
		break;
	case TAG_POLL: {
		int fd = (int)(ud & 0xFFFF);
		uint32_t gen = (uint32_t)(ud >> 16);

		if (fd >= FD_SETSIZE || u->poll_gen[fd] != gen)
			break;	/* a poll since removed or replaced */
		*polled = true;
		if (cqe->res >= 0) {
			unsigned ev = (unsigned)cqe->res;

			if ((u->poll_armed[fd] & 1) && fds &&
			    (ev & (POLLIN | POLLHUP | POLLERR)))
				FD_SET(fd, fds);
			if ((u->poll_armed[fd] & 2) && wfds &&
			    (ev & (POLLOUT | POLLHUP | POLLERR)))
				FD_SET(fd, wfds);
		}
		u->poll_armed[fd] = 0;	/* one-shot: spent */
		break;
	}
	default:
		break;
	}
}

static void reap(struct net_uring *u, fd_set *fds, fd_set *wfds,
		 bool *polled)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&u->ring, head, cqe) {
		complete(u, cqe, fds, wfds, polled);
		n++;
	}
	io_uring_cq_advance(&u->ring, n);
}

int net_uring_recv_batch(struct net_uring *u, struct net_recv_batch *b,
			 struct net_stats *st)
{
	bool polled = false;

	b->count = 0;
	for (size_t i = 0; i < u->nheld; i++)
		give_back(u, u->held[i], (int)i);
	io_uring_buf_ring_advance(u->br, (int)u->nheld);
	u->nheld = 0;
	reap(u, NULL, NULL, &polled);
	/* the multishot ran out of buffers while the socket still held
	 * datagrams: the buffers just given back take the next of them now,
	 * so a frame reads a backlog as recvmmsg would (up to the frame's
	 * rounds), not only what one ring of buffers held */
	if ((!u->armed || u->arm_queued) && u->ready_count < NET_BATCH) {
		if (!u->armed)
			arm_recv(u);
		st->enter_calls++;
		io_uring_submit_and_get_events(&u->ring);
		submitted(u);
		reap(u, NULL, NULL, &polled);
	}
	/* datagrams that came after the wait's enter (or the re-arm's, the
	 * kernel receiving a few dozen at a time) are task work the kernel
	 * holds for our next call: when it says some is pending, fetch it
	 * now, as recvmmsg would read what the socket holds */
	for (int i = 0; i < URING_FETCHES && u->ready_count < NET_BATCH &&
	     (IO_URING_READ_ONCE(*u->ring.sq.kflags) & IORING_SQ_TASKRUN); i++) {
		st->enter_calls++;
		io_uring_get_events(&u->ring);
		reap(u, NULL, NULL, &polled);
	}
	if (!u->armed)
		arm_recv(u);	/* goes in with the next wait */
	while (u->ready_count && u->nheld < NET_BATCH) {
		const struct uring_ready *r = &u->ready[u->ready_head];
		uint8_t *buf = u->bufs + (size_t)r->bid * URING_BUF_SIZE;
		struct io_uring_recvmsg_out *o;
		const struct sockaddr_in *name;
		struct net_packet *p;

		u->ready_head = (u->ready_head + 1) % URING_BUFS;
		u->ready_count--;
		u->held[u->nheld++] = r->bid;
		o = io_uring_recvmsg_validate(buf, (int)r->len, &u->recv_msg);
		if (!o) {
			st->recv_errors++;
			continue;
		}
		if (o->flags & MSG_TRUNC) {
			st->oversized_in++;
			continue;
		}
		name = io_uring_recvmsg_name(o);
		if (o->namelen < sizeof(struct sockaddr_in) ||
		    name->sin_family != AF_INET) {
			st->recv_errors++;
			continue;
		}
		p = &b->packets[b->count++];
		net_addr_from_sockaddr(name, &p->from);
		p->data = io_uring_recvmsg_payload(o, &u->recv_msg);
		p->len = io_uring_recvmsg_payload_length(o, (int)r->len,
							 &u->recv_msg);
		st->packets_in++;
		st->bytes_in += p->len;
	}
	return (int)b->count;
}

/* bring the ring's polls in line with the wanted sets */
static void sync_polls(struct net_uring *u, const fd_set *fds,
		       const fd_set *wfds, int maxfd)
{
	int top = maxfd > u->poll_top ? maxfd : u->poll_top;

	if (top >= FD_SETSIZE)
		top = FD_SETSIZE - 1;
	for (int fd = 0; fd <= top; fd++) {
		uint8_t want = 0;
		struct io_uring_sqe *sqe;

		if (fd <= maxfd) {
			want = (uint8_t)((FD_ISSET(fd, fds) ? 1 : 0) |
					 (FD_ISSET(fd, wfds) ? 2 : 0));
		}
		if (want == u->poll_armed[fd] && !u->poll_stale[fd])
			continue;
		if (u->poll_armed[fd]) {
			sqe = get_sqe(u);
			if (!sqe)
				return;
			io_uring_prep_poll_remove(sqe, MAKE_TAG(TAG_POLL,
				u->poll_gen[fd], fd));
			io_uring_sqe_set_data64(sqe, MAKE_TAG(TAG_IGNORE, 0, 0));
			u->poll_armed[fd] = 0;
		}
		u->poll_stale[fd] = 0;
		u->poll_gen[fd]++;
		if (!want)
			continue;
		sqe = get_sqe(u);
		if (!sqe)
			return;
		io_uring_prep_poll_add(sqe, fd, (want & 1 ? POLLIN : 0) |
				       (want & 2 ? POLLOUT : 0));
		io_uring_sqe_set_data64(sqe, MAKE_TAG(TAG_POLL, u->poll_gen[fd], fd));
		u->poll_armed[fd] = want;
		if (fd > u->poll_top)
			u->poll_top = fd;
	}
}

/* a descriptor select finds ready that no poll reported: its poll is on
 * an older file of that number; re-armed at the next wait */
static void check_polls(struct net_uring *u, fd_set *fds, fd_set *wfds,
			const fd_set *want, const fd_set *wwant, int maxfd)
{
	fd_set r = *want, w = *wwant;
	struct timeval tv = {0, 0};

	if (select(maxfd + 1, &r, &w, NULL, &tv) <= 0)
		return;
	for (int fd = 0; fd <= maxfd; fd++) {
		if ((FD_ISSET(fd, &r) && !FD_ISSET(fd, fds)) ||
		    (FD_ISSET(fd, &w) && !FD_ISSET(fd, wfds)))
			u->poll_stale[fd] = 1;
		if (FD_ISSET(fd, &r))
			FD_SET(fd, fds);
		if (FD_ISSET(fd, &w))
			FD_SET(fd, wfds);
	}
}

/* one enter: submit, wait up to secs for nr completions, reap them */
static int enter(struct net_uring *u, unsigned nr, double secs, fd_set *fds,
		 fd_set *wfds, bool *polled, struct net_stats *st)
{
	struct __kernel_timespec ts;
	struct io_uring_cqe *cqe;
	int r;

	if (secs < 0)
		secs = 0;
	ts.tv_sec = (long long)secs;
	ts.tv_nsec = (long long)((secs - (double)ts.tv_sec) * 1e9);
	st->enter_calls++;
	r = io_uring_submit_and_wait_timeout(&u->ring, &cqe, nr, &ts, NULL);
	submitted(u);
	if (r < 0 && r != -ETIME && r != -EINTR && r != -EAGAIN &&
	    r != -EBUSY)
		st->recv_errors++;
	reap(u, fds, wfds, polled);
	return r;
}

static bool any_fd(const fd_set *fds, const fd_set *wfds, int maxfd)
{
	for (int fd = 0; fd <= maxfd; fd++)
		if (FD_ISSET(fd, fds) || FD_ISSET(fd, wfds))
			return true;
	return false;
}

void net_uring_wait(struct net_uring *u, double hold, double wait,
		    fd_set *fds, fd_set *wfds, int maxfd, struct net_stats *st)
{
	fd_set want, wwant;
	bool polled = false;
	unsigned nr;
	int r;

	if (maxfd >= FD_SETSIZE)
		maxfd = FD_SETSIZE - 1;
	if (maxfd >= 0) {
		want = *fds;
		wwant = *wfds;
	} else {
		FD_ZERO(&want);
		FD_ZERO(&wwant);
	}
	sync_polls(u, &want, &wwant, maxfd);
	FD_ZERO(fds);
	FD_ZERO(wfds);
	if (!u->armed)
		arm_recv(u);
	/* datagrams still waiting to be handed out: look, do not sleep */
	if (u->ready_count || wait < 0)
		wait = 0;
	r = 0;
	if (hold > 0 && !u->ready_count) {
		/* the whole hold, whatever comes (more than the CQ holds is
		 * never reached: the timeout ends it); what came meanwhile
		 * is the frame's, without a second enter */
		r = enter(u, 2 * URING_SQ, hold, fds, wfds, &polled, st);
	}
	if (!(hold > 0) || (!u->ready_count && !any_fd(fds, wfds, maxfd))) {
		/* the sends submitted now complete too: wait for one more
		 * than they */
		nr = (unsigned)(u->tx ? u->tx->inflight : 0) + 1;
		r = enter(u, nr, u->ready_count ? 0 : wait, fds, wfds, &polled, st);
	}
	u->wakeups++;
	if (maxfd >= 0 && (r == -ETIME || u->wakeups % SELECT_CHECK == 0)) {
		st->wait_calls++;	/* a select, counted as a call */
		check_polls(u, fds, wfds, &want, &wwant, maxfd);
	}
}

void net_send_init_uring(struct net_send_batch *b, struct net_uring *u,
			 struct net_stats *st)
{
	net_send_init(b, u->fd, st);
	b->uring = u;
	u->tx = b;
}

size_t net_uring_queue(struct net_send_batch *b)
{
	struct net_uring *u = b->uring;
	size_t n = 0;

	for (size_t i = 0; i < b->count; i++) {
		struct io_uring_sqe *sqe = get_sqe(u);

		if (!sqe) {
			b->stats->send_errors += b->count - i;
			break;
		}
		io_uring_prep_sendmsg(sqe, u->fd, &b->hdr[i].msg_hdr, 0);
		io_uring_sqe_set_data64(sqe, MAKE_TAG(TAG_SEND, 0, i));
		b->inflight++;
		n++;
	}
	b->count = 0;
	return n;
}

void net_uring_settle(struct net_send_batch *b)
{
	struct net_uring *u = b->uring;
	bool polled = false;

	if (!u)
		return;
	reap(u, NULL, NULL, &polled);
	while (b->inflight) {
		struct io_uring_cqe *cqe;
		int r;

		b->stats->enter_calls++;
		r = io_uring_submit_and_wait(&u->ring, 1);
		submitted(u);
		if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY) {
			/* the ring is broken: the sends are lost */
			b->stats->send_errors += b->inflight;
			b->inflight = 0;
			break;
		}
		(void)cqe;
		/* polls and datagrams reaped here keep: a poll's result is
		 * dropped (its descriptor re-polled next wait) */
		reap(u, NULL, NULL, &polled);
	}
}

void net_send_sync(struct net_send_batch *b)
{
	if (b->uring && b->uring->queued) {
		b->stats->enter_calls++;
		io_uring_submit(&b->uring->ring);
		submitted(b->uring);
	}
}

void net_uring_destroy(struct net_uring *u)
{
	if (!u)
		return;
	if (u->tx) {
		net_uring_settle(u->tx);
		u->tx->uring = NULL;
	}
	io_uring_queue_exit(&u->ring);
	munmap(u->br, u->br_bytes);
	free(u->bufs);
	free(u);
}
