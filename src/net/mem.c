/*
 * mem.c -- datagrams queued in memory: the socket's stand-in for a server
 * driven in-process (qwd/net.h, "in-memory datagrams").
 *
 * Design note
 *   A frame benchmark must time the frame, not the kernel: its players'
 *   requests reach the server through a net_mem queue and the replies
 *   leave through another, with the same batch structs and counters the
 *   socket path fills, so everything past the receive call and before
 *   the send call runs as it does on the network.
 *
 *   Layout: records one after another in buf, each a header (address,
 *   length) and the bytes, padded to 8.  head is the oldest record, tail
 *   the end; when a get empties the queue both go back to 0, which is why
 *   a get's bytes stay valid only until the next put.  A put that does not
 *   fit is dropped and counted, as a full socket buffer drops.
 *
 *   The socket path pays one branch per batch for this (net_send_flush
 *   tests b->mem, udp.c; the server tests its link once per receive
 *   call).
 *
 *   Puts may run on several threads at once, as sends on one socket may
 *   (the reply workers flush their own batches): a put takes its
 *   record's place with a compare-and-swap of the tail and copies into
 *   it; the order between threads is whichever came first.  Gets, init
 *   and free are one thread's, between such runs.
 */
#include <qwd/net.h>

#include <stdlib.h>
#include <string.h>

struct mem_record {
	uint32_t ip;
	uint16_t port;
	uint16_t len;
};

static size_t record_size(size_t len)
{
	return (sizeof(struct mem_record) + len + 7) & ~(size_t)7;
}

int net_mem_init(struct net_mem *q, size_t bytes)
{
	memset(q, 0, sizeof(*q));
	q->buf = malloc(bytes);
	if (!q->buf)
		return -1;
	q->size = bytes;
	return 0;
}

void net_mem_free(struct net_mem *q)
{
	free(q->buf);
	memset(q, 0, sizeof(*q));
}

/* need bytes of the queue from *at on, taken with one compare-and-swap
 * of the tail (puts may come from several threads at once: the reply
 * workers' commit); false when they do not fit */
static bool mem_take(struct net_mem *q, size_t need, size_t *at)
{
	size_t t = __atomic_load_n(&q->tail, __ATOMIC_RELAXED);

	do {
		if (q->size - t < need)
			return false;
	} while (!__atomic_compare_exchange_n(&q->tail, &t, t + need, true,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	*at = t;
	return true;
}

/* one record into the place taken at `at`; its size */
static size_t mem_write(struct net_mem *q, size_t at, const struct net_addr *addr,
			const void *data, size_t len)
{
	struct mem_record r = {.ip = addr->ip, .port = addr->port,
			       .len = (uint16_t)len};

	memcpy(q->buf + at, &r, sizeof(r));
	memcpy(q->buf + at + sizeof(r), data, len);
	return record_size(len);
}

bool net_mem_put(struct net_mem *q, const struct net_addr *addr,
		 const void *data, size_t len)
{
	size_t at;

	if (len > NET_MAX_UDP_PACKET || !mem_take(q, record_size(len), &at)) {
		__atomic_fetch_add(&q->dropped, 1, __ATOMIC_RELAXED);
		return false;
	}
	mem_write(q, at, addr, data, len);
	return true;
}

size_t net_mem_send_batch(struct net_mem *q, struct net_send_batch *b)
{
	struct net_stats *st = b->stats;
	size_t need = 0, at = 0, sent = 0;

	/* the whole batch in one place when it fits (one swap, and each
	 * thread's records on lines of their own), else one by one */
	for (size_t i = 0; i < b->count; i++)
		need += b->len[i] <= NET_MAX_UDP_PACKET ? record_size(b->len[i]) : 0;
	bool whole = mem_take(q, need, &at);

	for (size_t i = 0; i < b->count; i++) {
		struct net_addr to;

		net_addr_from_sockaddr(&b->name[i], &to);
		st->send_calls++;
		if (whole && b->len[i] <= NET_MAX_UDP_PACKET) {
			at += mem_write(q, at, &to, b->buf[i], b->len[i]);
		} else if (!net_mem_put(q, &to, b->buf[i], b->len[i])) {
			st->send_errors++;
			continue;
		}
		st->packets_out++;
		st->bytes_out += b->len[i];
		sent++;
	}
	b->count = 0;
	return sent;
}

bool net_mem_get(struct net_mem *q, struct net_addr *addr,
		 const uint8_t **data, size_t *len)
{
	struct mem_record r;

	if (q->head >= q->tail) {
		q->head = q->tail = 0;
		return false;
	}
	memcpy(&r, q->buf + q->head, sizeof(r));
	addr->ip = r.ip;
	addr->port = r.port;
	*data = q->buf + q->head + sizeof(r);
	*len = r.len;
	q->head += record_size(r.len);
	if (q->head >= q->tail)
		q->head = q->tail = 0;	/* the bytes stay until the next put */
	return true;
}

int net_mem_recv_batch(struct net_mem *q, struct net_recv_batch *b,
		       struct net_stats *st)
{
	const uint8_t *data;
	struct net_addr from;
	size_t len;

	b->count = 0;
	st->recv_calls++;
	while (b->count < NET_BATCH && net_mem_get(q, &from, &data, &len)) {
		struct net_packet *p = &b->packets[b->count];

		memcpy(b->buf[b->count], data, len);
		p->from = from;
		p->data = b->buf[b->count];
		p->len = len;
		b->count++;
		st->packets_in++;
		st->bytes_in += len;
	}
	return (int)b->count;
}

bool net_mem_send(struct net_mem *q, const struct net_addr *to,
		  const void *data, size_t len, struct net_stats *st)
{
	st->send_calls++;
	if (!net_mem_put(q, to, data, len)) {
		st->send_errors++;
		return false;
	}
	st->packets_out++;
	st->bytes_out += len;
	return true;
}

void net_send_init_mem(struct net_send_batch *b, struct net_mem *q,
		       struct net_stats *st)
{
	net_send_init(b, -1, st);
	b->mem = q;
}

