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

bool net_mem_put(struct net_mem *q, const struct net_addr *addr,
		 const void *data, size_t len)
{
	struct mem_record r;

	if (len > NET_MAX_UDP_PACKET || q->size - q->tail < record_size(len)) {
		q->dropped++;
		return false;
	}
	r.ip = addr->ip;
	r.port = addr->port;
	r.len = (uint16_t)len;
	memcpy(q->buf + q->tail, &r, sizeof(r));
	memcpy(q->buf + q->tail + sizeof(r), data, len);
	q->tail += record_size(len);
	return true;
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

