/*
 * udp.c -- the server's one UDP socket: open, batch receive, batch send.
 *
 * Design note
 *   The frame loop drains the socket once per frame and answers every
 *   client at the end of it, so both directions go through batches of
 *   NET_BATCH datagrams: one recvmmsg reads up to 64 packets, one sendmmsg
 *   writes up to 64 replies.  The batches are fixed structs the caller
 *   allocates once; no call here allocates.  A send batch may instead be
 *   bound to an in-memory queue (mem.c), for a server driven in-process:
 *   one branch per flush; or to an io_uring (uring.c), where a flush
 *   queues the batch's sendmsg requests for the next wait to submit.
 *
 *   Receive buffers are NET_MAX_UDP_PACKET (8192) bytes.  The kernel cuts a
 *   bigger datagram to fit and says so with MSG_TRUNC in msg_flags; such a
 *   packet is no valid QuakeWorld packet (the largest is 1460 bytes), and
 *   parsing its cut copy would only mislead, so it is dropped and counted.
 *
 *   The socket is non-blocking and SO_REUSEADDR stays off: on Linux that
 *   option would let a second server bind the same UDP port and silently
 *   steal part of the traffic, so a clash must fail loudly instead.
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* a hint to add to the system's message for the usual bind failures */
static const char *bind_hint(int e)
{
	switch (e) {
	case EADDRINUSE:
		return " (is another server running on this port?)";
	case EACCES:
		return " (ports below 1024 need privileges)";
	case EADDRNOTAVAIL:
		return " (not an address of this machine)";
	default:
		return "";
	}
}

int net_udp_open(const char *ip, uint16_t port, char *err, size_t errsize)
{
	struct net_addr addr = {.ip = htonl(INADDR_ANY), .port = htons(port)};
	struct sockaddr_in sa;
	char text[NET_ADDR_STRLEN];
	int fd, off = 0;

	if (ip && *ip && !net_addr_parse(ip, port, &addr)) {
		snprintf(err, errsize, "bad bind address \"%s\" (want a.b.c.d)",
			 ip);
		return -1;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errsize, "socket: %s", strerror(errno));
		return -1;
	}
	/* the default already, said explicitly: see the design note */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &off, sizeof(off)) != 0) {
		snprintf(err, errsize, "setsockopt SO_REUSEADDR: %s",
			 strerror(errno));
		close(fd);
		return -1;
	}
	net_addr_to_sockaddr(&addr, &sa);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		int e = errno;

		snprintf(err, errsize, "bind %s: %s%s",
			 net_addr_format(&addr, text), strerror(e),
			 bind_hint(e));
		close(fd);
		return -1;
	}
	return fd;
}

bool net_udp_local_addr(int fd, struct net_addr *out)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	if (getsockname(fd, (struct sockaddr *)&sa, &len) != 0 ||
	    len < sizeof(sa) || sa.sin_family != AF_INET)
		return false;
	net_addr_from_sockaddr(&sa, out);
	return true;
}

bool net_udp_set_buffers(int fd, int bytes)
{
	bool ok = true;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes)) != 0)
		ok = false;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes)) != 0)
		ok = false;
	return ok;
}

void net_udp_close(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* ---- receive ---------------------------------------------------------- */

/* Point every header of the batch at its own buffer and name.  namelen,
 * msg_flags and msg_len are outputs of a call, written only for the
 * datagrams it returned, so after the first call only those headers are
 * set again; a batch never prepared (or copied elsewhere: its pointers
 * lead to the old place) gets all of them. */
static void recv_prepare(struct net_recv_batch *b)
{
	size_t n = b->hdr[0].msg_hdr.msg_iov == &b->iov[0] && b->used <= NET_BATCH
			   ? b->used : NET_BATCH;

	for (size_t i = 0; i < n; i++) {
		struct msghdr *h = &b->hdr[i].msg_hdr;

		b->iov[i].iov_base = b->buf[i];
		b->iov[i].iov_len = NET_MAX_UDP_PACKET;
		memset(h, 0, sizeof(*h));
		h->msg_name = &b->name[i];
		h->msg_namelen = sizeof(b->name[i]);
		h->msg_iov = &b->iov[i];
		h->msg_iovlen = 1;
		b->hdr[i].msg_len = 0;
	}
	b->used = 0;
}

int net_udp_recv_batch(int fd, struct net_recv_batch *b, struct net_stats *st)
{
	int n;

	b->count = 0;
	recv_prepare(b);
	do {
		st->recv_calls++;
		n = recvmmsg(fd, b->hdr, NET_BATCH, MSG_DONTWAIT, NULL);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		st->recv_errors++;
		b->used = NET_BATCH;	/* what the kernel wrote is unknown */
		return -1;
	}
	b->used = (size_t)n;
	for (int i = 0; i < n; i++) {
		const struct msghdr *h = &b->hdr[i].msg_hdr;
		struct net_packet *p;

		if (h->msg_flags & MSG_TRUNC) {
			st->oversized_in++;
			continue;
		}
		if (h->msg_namelen < sizeof(struct sockaddr_in) ||
		    b->name[i].sin_family != AF_INET) {
			st->recv_errors++;
			continue;
		}
		p = &b->packets[b->count++];
		net_addr_from_sockaddr(&b->name[i], &p->from);
		p->data = b->buf[i];
		p->len = b->hdr[i].msg_len;
		st->packets_in++;
		st->bytes_in += p->len;
	}
	return (int)b->count;
}

/* ---- send ------------------------------------------------------------- */

bool net_udp_send(int fd, const struct net_addr *to, const void *data,
		  size_t len, struct net_stats *st)
{
	struct sockaddr_in sa;
	ssize_t n;

	net_addr_to_sockaddr(to, &sa);
	do {
		st->send_calls++;
		n = sendto(fd, data, len, MSG_DONTWAIT, (struct sockaddr *)&sa,
			   sizeof(sa));
	} while (n < 0 && errno == EINTR);
	if (n < 0 || (size_t)n != len) {
		st->send_errors++;
		return false;
	}
	st->packets_out++;
	st->bytes_out += len;
	return true;
}

void net_send_init(struct net_send_batch *b, int fd, struct net_stats *st)
{
	b->fd = fd;
	b->mem = NULL;
	b->uring = NULL;
	b->inflight = 0;
	b->stats = st;
	b->count = 0;
}

uint8_t *net_send_slot(struct net_send_batch *b, size_t *max)
{
	if (b->count == NET_BATCH)
		net_send_flush(b);
	/* the ring may still be sending from these buffers (uring.c) */
	if (b->inflight)
		net_uring_settle(b);
	*max = NET_MAX_UDP_PACKET;
	return b->buf[b->count];
}

void net_send_commit(struct net_send_batch *b, const struct net_addr *to,
		     size_t len)
{
	size_t i = b->count;
	struct msghdr *h = &b->hdr[i].msg_hdr;

	if (len == 0)
		return;
	if (len > NET_MAX_UDP_PACKET || i == NET_BATCH) {
		/* a caller bug; losing the packet beats sending garbage */
		b->stats->send_errors++;
		return;
	}
	net_addr_to_sockaddr(to, &b->name[i]);
	b->len[i] = len;
	b->iov[i].iov_base = b->buf[i];
	b->iov[i].iov_len = len;
	memset(h, 0, sizeof(*h));
	h->msg_name = &b->name[i];
	h->msg_namelen = sizeof(b->name[i]);
	h->msg_iov = &b->iov[i];
	h->msg_iovlen = 1;
	b->count++;
}

size_t net_send_flush(struct net_send_batch *b)
{
	struct net_stats *st = b->stats;
	size_t i = 0, sent = 0;

	if (b->mem)
		return net_mem_send_batch(b->mem, b);
	if (b->uring)
		return net_uring_queue(b);
	while (i < b->count) {
		int n;

		st->send_calls++;
		n = sendmmsg(b->fd, b->hdr + i, (unsigned)(b->count - i),
			     MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
			      errno == ENOBUFS)) {
			/* the socket buffer is full: the rest would fail too */
			st->send_errors += b->count - i;
			break;
		}
		if (n <= 0) {
			/* this datagram was refused (say, an unreachable
			   destination); the others may still go */
			st->send_errors++;
			i++;
			continue;
		}
		for (size_t k = i; k < i + (size_t)n; k++) {
			st->packets_out++;
			st->bytes_out += b->hdr[k].msg_len;
		}
		sent += (size_t)n;
		i += (size_t)n;
	}
	b->count = 0;
	return sent;
}
