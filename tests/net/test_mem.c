/*
 * test_mem.c -- the in-memory datagram queue (src/net/mem.c): records in
 * order, a full queue drops and counts, a send batch flushed into it
 * keeps a socket's figures, and batches flushed from several threads at
 * once all arrive whole (the reply workers' commit does that).
 *
 * Design note: every datagram carries its own number, its sender's and
 * a length that varies, so a record cut, overlapped or written twice
 * shows as a wrong number, a wrong byte or a count that does not add up.
 * The threads are joined before the queue is read, as the pool's
 * barrier orders the server's commit before the players read.
 */
#include "../harness.h"

#include <qwd/net.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 4, BATCHES = 200 };

static struct net_addr addr_of(int sender, int n)
{
	struct net_addr a = {.ip = 0x7f000001u + (uint32_t)sender,
			     .port = (uint16_t)(27500 + n % 1000)};

	return a;
}

/* datagram n of sender s: its length (17 .. 1216) and bytes */
static size_t body_len(int n)
{
	return 17 + (size_t)(n * 37) % 1200;
}

static void body_fill(uint8_t *p, int s, int n)
{
	size_t len = body_len(n);

	memset(p, 0, len);
	memcpy(p, &s, sizeof(s));
	memcpy(p + sizeof(s), &n, sizeof(n));
	for (size_t i = 2 * sizeof(int); i < len; i++)
		p[i] = (uint8_t)(s * 31 + n * 7 + (int)i);
}

static bool body_check(const uint8_t *p, size_t len, int *s, int *n)
{
	memcpy(s, p, sizeof(*s));
	memcpy(n, p + sizeof(*s), sizeof(*n));
	if (*s < 0 || *s >= THREADS || *n < 0 || len != body_len(*n))
		return false;
	for (size_t i = 2 * sizeof(int); i < len; i++)
		if (p[i] != (uint8_t)(*s * 31 + *n * 7 + (int)i))
			return false;
	return true;
}

/* a batch of NET_BATCH datagrams of sender s, numbered from first */
static void batch_fill(struct net_send_batch *b, int s, int first)
{
	for (int i = 0; i < NET_BATCH; i++) {
		size_t max;
		uint8_t *slot = net_send_slot(b, &max);
		struct net_addr to = addr_of(s, first + i);

		body_fill(slot, s, first + i);
		net_send_commit(b, &to, body_len(first + i));
	}
}

static void test_put_get_order(void **state)
{
	struct net_mem q;
	struct net_addr a, want;
	const uint8_t *data;
	size_t len;
	uint8_t buf[NET_MAX_UDP_PACKET];
	int s, n;

	(void)state;
	assert_int_equal(net_mem_init(&q, 1 << 16), 0);
	for (int i = 0; i < 20; i++) {
		struct net_addr to = addr_of(1, i);

		body_fill(buf, 1, i);
		assert_true(net_mem_put(&q, &to, buf, body_len(i)));
	}
	for (int i = 0; i < 20; i++) {
		assert_true(net_mem_get(&q, &a, &data, &len));
		assert_true(body_check(data, len, &s, &n));
		assert_int_equal(n, i);
		want = addr_of(1, i);
		assert_true(net_addr_equal(&a, &want));
	}
	assert_false(net_mem_get(&q, &a, &data, &len));
	assert_int_equal(q.dropped, 0);
	net_mem_free(&q);
}

static void test_full_drops_counted(void **state)
{
	struct net_mem q;
	struct net_addr to = addr_of(0, 0), a;
	uint8_t buf[NET_MAX_UDP_PACKET];
	const uint8_t *data;
	size_t len, kept = 0;

	(void)state;
	memset(buf, 7, sizeof(buf));
	assert_int_equal(net_mem_init(&q, 4096), 0);
	for (int i = 0; i < 10; i++)
		kept += net_mem_put(&q, &to, buf, 1000);
	assert_int_equal(kept, 4);		/* 1008 bytes a record */
	assert_int_equal(q.dropped, 6);
	/* too long for a datagram: refused whatever the room */
	assert_false(net_mem_put(&q, &to, buf, NET_MAX_UDP_PACKET + 1));
	assert_int_equal(q.dropped, 7);
	for (size_t i = 0; i < kept; i++)
		assert_true(net_mem_get(&q, &a, &data, &len));
	assert_false(net_mem_get(&q, &a, &data, &len));
	net_mem_free(&q);
}

static void test_send_batch_figures(void **state)
{
	struct net_mem q;
	struct net_stats st = {0};
	struct net_send_batch *b = calloc(1, sizeof(*b));
	struct net_addr a;
	const uint8_t *data;
	size_t len, bytes = 0;
	int s, n;

	(void)state;
	assert_non_null(b);
	/* room for part of the batch: the rest dropped and counted */
	assert_int_equal(net_mem_init(&q, 16384), 0);
	net_send_init_mem(b, &q, &st);
	batch_fill(b, 2, 0);
	size_t sent = net_send_flush(b);

	assert_int_equal(b->count, 0);
	assert_true(sent > 0 && sent < NET_BATCH);
	assert_int_equal(st.packets_out, sent);
	assert_int_equal(st.send_errors, NET_BATCH - sent);
	assert_int_equal(st.send_calls, NET_BATCH);
	assert_int_equal(q.dropped, NET_BATCH - sent);
	for (size_t i = 0; i < sent; i++) {
		assert_true(net_mem_get(&q, &a, &data, &len));
		assert_true(body_check(data, len, &s, &n));
		bytes += len;
	}
	assert_int_equal(st.bytes_out, bytes);
	assert_false(net_mem_get(&q, &a, &data, &len));
	net_mem_free(&q);
	free(b);
}

struct flusher {
	struct net_mem *q;
	struct net_send_batch *b;
	struct net_stats st;
	pthread_barrier_t *start;
	int sender;
};

/* even senders flush whole batches, odd ones put datagram by datagram
 * (net_mem_send): both ways take their places from the same tail */
static void *flush_thread(void *arg)
{
	struct flusher *f = arg;

	/* all at once: the flushes overlap */
	pthread_barrier_wait(f->start);
	for (int k = 0; k < BATCHES; k++) {
		batch_fill(f->b, f->sender, k * NET_BATCH);
		if (f->sender % 2 == 0) {
			net_send_flush(f->b);
			continue;
		}
		for (size_t i = 0; i < f->b->count; i++) {
			struct net_addr to;

			net_addr_from_sockaddr(&f->b->name[i], &to);
			net_mem_send(f->q, &to, f->b->buf[i], f->b->len[i], &f->st);
		}
		f->b->count = 0;
	}
	return NULL;
}

static void test_send_batch_threads(void **state)
{
	static bool seen[THREADS][BATCHES * NET_BATCH];
	pthread_barrier_t start;
	struct net_mem q;
	struct flusher f[THREADS];
	pthread_t t[THREADS];
	struct net_addr a, want;
	const uint8_t *data;
	size_t len, total = 0;
	int s, n;

	(void)state;
	memset(seen, 0, sizeof(seen));
	/* room for all: THREADS x BATCHES x NET_BATCH records of 625 bytes
	 * on average, 32 MB */
	assert_int_equal(net_mem_init(&q, 48u << 20), 0);
	assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (int i = 0; i < THREADS; i++) {
		f[i] = (struct flusher){.q = &q, .sender = i, .start = &start};
		f[i].b = calloc(1, sizeof(*f[i].b));
		assert_non_null(f[i].b);
		net_send_init_mem(f[i].b, &q, &f[i].st);
	}
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, flush_thread, &f[i]), 0);
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	while (net_mem_get(&q, &a, &data, &len)) {
		assert_true(body_check(data, len, &s, &n));
		assert_true(n < BATCHES * NET_BATCH);
		assert_false(seen[s][n]);
		seen[s][n] = true;
		want = addr_of(s, n);
		assert_true(net_addr_equal(&a, &want));
		total++;
	}
	assert_int_equal(total, THREADS * BATCHES * NET_BATCH);
	assert_int_equal(q.dropped, 0);
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(f[i].st.packets_out, BATCHES * NET_BATCH);
		assert_int_equal(f[i].st.send_errors, 0);
		free(f[i].b);
	}
	pthread_barrier_destroy(&start);
	net_mem_free(&q);
}

static const struct CMUnitTest mem_tests[] = {
	cmocka_unit_test(test_put_get_order),
	cmocka_unit_test(test_full_drops_counted),
	cmocka_unit_test(test_send_batch_figures),
	cmocka_unit_test(test_send_batch_threads),
};

QWD_TEST_GROUP(net_mem, mem_tests, NULL, NULL)
