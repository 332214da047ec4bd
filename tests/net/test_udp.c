/*
 * test_udp.c -- real sockets on 127.0.0.1: batch send, batch receive,
 * oversized datagrams, bind errors.
 *
 * Design note: two sockets bound to ephemeral loopback ports talk to each
 * other.  Loopback delivery is immediate on Linux, but every wait is a
 * poll() with a timeout and a bounded number of rounds, so a broken
 * socket fails the test instead of hanging it.  The batches are heap
 * allocated once per test, as the server does at start-up.
 */
#include "../harness.h"

#include <qwd/net.h>

#include "udppair.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int pair_setup(void **state)
{
	struct udp_pair *p = udp_pair_open("pair_setup");

	*state = p;
	return p ? 0 : -1;
}

static int pair_teardown(void **state)
{
	udp_pair_close(*state);
	return 0;
}

/* Receive on fd until `want` datagrams were seen or a poll times out;
 * calls `each` for every packet.  Returns the number seen. */
static size_t drain(int fd, struct net_recv_batch *rx, struct net_stats *st,
		    size_t want,
		    void (*each)(const struct net_packet *, size_t, void *),
		    void *ctx)
{
	size_t seen = 0;

	for (int round = 0; round < 100 && seen < want; round++) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int n;

		if (poll(&pfd, 1, 1000) <= 0)
			break;
		n = net_udp_recv_batch(fd, rx, st);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++) {
			if (each)
				each(&rx->packets[i], seen, ctx);
			seen++;
		}
	}
	return seen;
}

static void check_numbered(const struct net_packet *pk, size_t index,
			   void *ctx)
{
	const struct net_addr *from = ctx;
	char expect[32];
	int n = snprintf(expect, sizeof(expect), "packet %zu", index);

	assert_true(net_addr_equal(&pk->from, from));
	assert_int_equal(pk->len, (size_t)n);
	assert_memory_equal(pk->data, expect, (size_t)n);
}

static void test_open_local_addr(void **state)
{
	struct udp_pair *p = *state;
	char text[NET_ADDR_STRLEN];

	assert_int_not_equal(p->addr_a.port, 0);
	assert_int_not_equal(p->addr_a.port, p->addr_b.port);
	net_addr_format(&p->addr_a, text);
	assert_memory_equal(text, "127.0.0.1:", 10);
}

static void test_bind_errors(void **state)
{
	struct udp_pair *p = *state;
	char err[256] = "";
	uint16_t port = ntohs(p->addr_a.port);

	assert_int_equal(net_udp_open("127.0.0.1", port, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "another server"));
	assert_non_null(strstr(err, "127.0.0.1:"));

	err[0] = '\0';
	assert_int_equal(net_udp_open("not-an-ip", 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bad bind address"));
}

static void test_send_recv_single(void **state)
{
	struct udp_pair *p = *state;
	struct net_stats before = p->st_a;

	assert_true(net_udp_send(p->a, &p->addr_b, "packet 0", 8, &p->st_a));
	assert_int_equal(p->st_a.packets_out, before.packets_out + 1);
	assert_int_equal(p->st_a.bytes_out, before.bytes_out + 8);
	assert_int_equal(drain(p->b, p->rx, &p->st_b, 1, check_numbered,
			       &p->addr_a),
			 1);
	assert_int_equal(p->st_b.packets_in, 1);
	assert_int_equal(p->st_b.bytes_in, 8);
	/* nothing more waiting: a non-blocking read returns 0 */
	assert_int_equal(net_udp_recv_batch(p->b, p->rx, &p->st_b), 0);
	assert_int_equal(p->rx->count, 0);
}

/* more datagrams than one batch holds: the send batch flushes itself when
 * full, the receiver needs several recvmmsg calls */
static void test_batch_roundtrip(void **state)
{
	struct udp_pair *p = *state;
	const size_t total = NET_BATCH + NET_BATCH / 2 + 3;
	size_t sent_before_flush;

	net_udp_set_buffers(p->b, 1 << 20);
	net_send_init(p->tx, p->a, &p->st_a);
	for (size_t i = 0; i < total; i++) {
		size_t max;
		uint8_t *slot = net_send_slot(p->tx, &max);
		int n;

		assert_int_equal(max, NET_MAX_UDP_PACKET);
		n = snprintf((char *)slot, max, "packet %zu", i);
		net_send_commit(p->tx, &p->addr_b, (size_t)n);
	}
	sent_before_flush = (size_t)p->st_a.packets_out;
	assert_int_equal(sent_before_flush, NET_BATCH);
	assert_int_equal(net_send_flush(p->tx), total - NET_BATCH);
	assert_int_equal(p->st_a.packets_out, total);
	assert_int_equal(p->st_a.send_errors, 0);
	/* two sendmmsg calls for all of it */
	assert_int_equal(p->st_a.send_calls, 2);
	/* an empty flush sends nothing; a commit of 0 bytes queues nothing */
	net_send_slot(p->tx, &(size_t){0});
	net_send_commit(p->tx, &p->addr_b, 0);
	assert_int_equal(net_send_flush(p->tx), 0);

	assert_int_equal(drain(p->b, p->rx, &p->st_b, total, check_numbered,
			       &p->addr_a),
			 total);
	assert_int_equal(p->st_b.packets_in, total);
	assert_true(p->st_b.recv_calls < total);
}

/* a datagram over NET_MAX_UDP_PACKET is cut by the kernel, seen through
 * MSG_TRUNC, dropped and counted; the one after it arrives normally */
static void test_oversized_dropped(void **state)
{
	struct udp_pair *p = *state;
	static uint8_t big[NET_MAX_UDP_PACKET + 808];
	size_t seen = 0;

	memset(big, 'x', sizeof(big));
	assert_true(net_udp_send(p->a, &p->addr_b, big, sizeof(big), &p->st_a));
	/* exactly the limit is still fine */
	assert_true(net_udp_send(p->a, &p->addr_b, big, NET_MAX_UDP_PACKET,
				 &p->st_a));
	assert_true(net_udp_send(p->a, &p->addr_b, "packet 0", 8, &p->st_a));

	for (int round = 0; round < 100 && seen < 2; round++) {
		struct pollfd pfd = {.fd = p->b, .events = POLLIN};
		int n;

		if (poll(&pfd, 1, 1000) <= 0)
			break;
		n = net_udp_recv_batch(p->b, p->rx, &p->st_b);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++, seen++) {
			const struct net_packet *pk = &p->rx->packets[i];

			if (seen == 0) {
				assert_int_equal(pk->len, NET_MAX_UDP_PACKET);
			} else {
				assert_int_equal(pk->len, 8);
				assert_memory_equal(pk->data, "packet 0", 8);
			}
		}
	}
	assert_int_equal(seen, 2);
	assert_int_equal(p->st_b.oversized_in, 1);
	assert_int_equal(p->st_b.packets_in, 2);
}

static const struct CMUnitTest udp_tests[] = {
	cmocka_unit_test_setup_teardown(test_open_local_addr, pair_setup,
					pair_teardown),
	cmocka_unit_test_setup_teardown(test_bind_errors, pair_setup,
					pair_teardown),
	cmocka_unit_test_setup_teardown(test_send_recv_single, pair_setup,
					pair_teardown),
	cmocka_unit_test_setup_teardown(test_batch_roundtrip, pair_setup,
					pair_teardown),
	cmocka_unit_test_setup_teardown(test_oversized_dropped, pair_setup,
					pair_teardown),
};

QWD_TEST_GROUP(net_udp, udp_tests, NULL, NULL)
