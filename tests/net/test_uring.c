/*
 * test_uring.c -- the io_uring path of the server's socket (uring.c) on
 * 127.0.0.1: datagrams in and out, the oversized one dropped and counted
 * as on the select path, more datagrams than provided buffers, a backlog
 * of them read in one frame, a send
 * batch bigger than NET_BATCH, a descriptor polled in the same ring,
 * sys_ticrate's hold in one enter.
 *
 * Design note: a ring on socket b, a plain socket a as its peer.  Every
 * wait is bounded (net_uring_wait's timeout, a bounded number of rounds),
 * so a broken ring fails the test instead of hanging it.  Where the
 * kernel refuses io_uring (a seccomp profile, an old kernel) the tests
 * skip: the select path is then the only one the server can run.
 */
#include "../harness.h"

#include <qwd/net.h>

#include "udppair.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ring_setup(void **state)
{
	struct udp_pair *p = udp_pair_open("ring_setup");
	char err[256];

	if (!p)
		return -1;
	net_udp_set_buffers(p->a, 1 << 20);
	net_udp_set_buffers(p->b, 1 << 20);
	p->u = net_uring_create(p->b, err, sizeof(err));
	if (!p->u)
		fprintf(stderr, "io_uring refused: %s\n", err);
	else
		net_send_init_uring(p->tx, p->u, &p->st_b);
	*state = p;
	return 0;
}

static int ring_teardown(void **state)
{
	udp_pair_close(*state);
	return 0;
}

static struct udp_pair *ring_or_skip(void **state)
{
	struct udp_pair *p = *state;

	if (!p->u)
		skip();
	return p;
}

/* wait and receive on the ring until want datagrams or 100 rounds */
static size_t ring_drain(struct udp_pair *p, size_t want, size_t *lens)
{
	size_t seen = 0;

	for (int round = 0; round < 100 && seen < want; round++) {
		fd_set r, w;
		int n;

		FD_ZERO(&r);
		FD_ZERO(&w);
		net_uring_wait(p->u, 0, 0.2, &r, &w, -1, &p->st_b);
		while ((n = net_uring_recv_batch(p->u, p->rx, &p->st_b)) > 0) {
			for (int i = 0; i < n; i++, seen++) {
				assert_true(net_addr_equal(&p->rx->packets[i].from,
							   &p->addr_a));
				if (lens && seen < want)
					lens[seen] = p->rx->packets[i].len;
			}
		}
	}
	return seen;
}

static void test_oversized_dropped(void **state)
{
	struct udp_pair *p = ring_or_skip(state);
	static uint8_t big[NET_MAX_UDP_PACKET + 808];
	size_t lens[2];

	memset(big, 'x', sizeof(big));
	assert_true(net_udp_send(p->a, &p->addr_b, big, sizeof(big), &p->st_a));
	assert_true(net_udp_send(p->a, &p->addr_b, big, NET_MAX_UDP_PACKET,
				 &p->st_a));
	assert_true(net_udp_send(p->a, &p->addr_b, "packet 0", 8, &p->st_a));
	assert_int_equal(ring_drain(p, 2, lens), 2);
	assert_int_equal(lens[0], NET_MAX_UDP_PACKET);
	assert_int_equal(lens[1], 8);
	assert_int_equal(p->st_b.oversized_in, 1);
	assert_int_equal(p->st_b.packets_in, 2);
	assert_int_equal(p->st_b.recv_calls, 0);	/* no recvmmsg */
}

/* more datagrams than the ring has buffers: the multishot request ends
 * (ENOBUFS) and is armed again, nothing lost past the socket's buffer */
static void test_more_than_buffers(void **state)
{
	struct udp_pair *p = ring_or_skip(state);
	enum { N = 600 };

	for (int i = 0; i < N; i++) {
		char text[32];
		int n = snprintf(text, sizeof(text), "packet %d", i);

		assert_true(net_udp_send(p->a, &p->addr_b, text, (size_t)n,
					 &p->st_a));
	}
	assert_int_equal(ring_drain(p, N, NULL), N);
	assert_int_equal(p->st_b.packets_in, N);
	assert_int_equal(p->st_b.recv_errors, 0);
}

/* one server frame on the ring: a wait, then receive batches while they
 * come full, at most the frame's rounds (frame.c: RECV_ROUNDS of
 * NET_BATCH); the datagrams are checked to be "packet <k>" in order */
static size_t ring_frame(struct udp_pair *p, size_t *next)
{
	fd_set r, w;
	size_t seen = 0;

	FD_ZERO(&r);
	FD_ZERO(&w);
	net_uring_wait(p->u, 0, 0.2, &r, &w, -1, &p->st_b);
	for (int round = 0; round < 16; round++) {
		int n = net_uring_recv_batch(p->u, p->rx, &p->st_b);

		for (int i = 0; i < n; i++, seen++, (*next)++) {
			char text[32];
			int len = snprintf(text, sizeof(text), "packet %zu", *next);

			assert_int_equal(p->rx->packets[i].len, (size_t)len);
			assert_memory_equal(p->rx->packets[i].data, text,
					    (size_t)len);
		}
		if (n < NET_BATCH)
			break;
	}
	return seen;
}

/* a backlog bigger than the ring's buffers is read by one frame, in
 * order, as recvmmsg reads what the socket holds: the buffers a batch
 * gives back take the next datagrams at once.  With one ring's worth a
 * frame (the multishot armed again only with the next wait), a server
 * that fell behind at 2048 players stayed behind for seconds, reading
 * 224 requests a frame while more queued in its socket. */
static void test_backlog_one_frame(void **state)
{
	struct udp_pair *p = ring_or_skip(state);
	enum { N = 1200, FRAME_MOST = 16 * NET_BATCH };
	size_t next = 0, first, second;

	for (int i = 0; i < N; i++) {
		char text[32];
		int len = snprintf(text, sizeof(text), "packet %d", i);

		assert_true(net_udp_send(p->a, &p->addr_b, text, (size_t)len,
					 &p->st_a));
	}
	first = ring_frame(p, &next);
	second = ring_frame(p, &next);
	assert_int_equal(first, FRAME_MOST);
	assert_int_equal(second, N - FRAME_MOST);
	assert_int_equal(p->st_b.recv_errors, 0);
}

/* a send batch of 150: two full batches settle in the ring, the rest go
 * with the next wait */
static void test_send_batch(void **state)
{
	struct udp_pair *p = ring_or_skip(state);
	enum { N = 150 };
	size_t seen = 0;
	fd_set r, w;

	for (int i = 0; i < N; i++) {
		size_t max;
		uint8_t *slot = net_send_slot(p->tx, &max);
		int n = snprintf((char *)slot, max, "packet %d", i);

		net_send_commit(p->tx, &p->addr_a, (size_t)n);
	}
	net_send_flush(p->tx);
	FD_ZERO(&r);
	FD_ZERO(&w);
	net_uring_wait(p->u, 0, 0, &r, &w, -1, &p->st_b);
	for (int round = 0; round < 100 && seen < N; round++) {
		struct pollfd pfd = {.fd = p->a, .events = POLLIN};
		int n;

		if (poll(&pfd, 1, 1000) <= 0)
			break;
		n = net_udp_recv_batch(p->a, p->rx, &p->st_a);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++, seen++) {
			char expect[32];
			int len = snprintf(expect, sizeof(expect), "packet %zu", seen);

			assert_int_equal(p->rx->packets[i].len, (size_t)len);
			assert_memory_equal(p->rx->packets[i].data, expect, (size_t)len);
		}
	}
	assert_int_equal(seen, N);
	/* every completion seen by the next wait */
	FD_ZERO(&r);
	FD_ZERO(&w);
	net_uring_wait(p->u, 0, 0, &r, &w, -1, &p->st_b);
	assert_int_equal(p->st_b.packets_out, N);
	assert_int_equal(p->st_b.send_errors, 0);
	assert_int_equal(p->st_b.send_calls, 0);	/* no sendmmsg */
}

/* a feature's descriptor: polled in the ring, reported as select would */
static void test_descriptor_polled(void **state)
{
	struct udp_pair *p = ring_or_skip(state);
	int pfd[2];
	fd_set r, w;
	bool ready = false;

	assert_int_equal(pipe(pfd), 0);
	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_SET(pfd[0], &r);
	net_uring_wait(p->u, 0, 0.05, &r, &w, pfd[0], &p->st_b);
	assert_false(FD_ISSET(pfd[0], &r));	/* nothing written yet */
	assert_int_equal(write(pfd[1], "x", 1), 1);
	for (int round = 0; round < 20 && !ready; round++) {
		FD_ZERO(&r);
		FD_ZERO(&w);
		FD_SET(pfd[0], &r);
		net_uring_wait(p->u, 0, 0.2, &r, &w, pfd[0], &p->st_b);
		ready = FD_ISSET(pfd[0], &r);
	}
	assert_true(ready);
	/* no longer wanted: its poll is removed, nothing reported */
	FD_ZERO(&r);
	FD_ZERO(&w);
	net_uring_wait(p->u, 0, 0.01, &r, &w, -1, &p->st_b);
	assert_false(FD_ISSET(pfd[0], &r));
	close(pfd[0]);
	close(pfd[1]);
}

/* sys_ticrate's hold: what came during it is read by the same enter */
static void test_hold_one_enter(void **state)
{
	struct udp_pair *p = ring_or_skip(state);
	uint64_t enters;
	fd_set r, w;

	for (int i = 0; i < 3; i++)
		assert_true(net_udp_send(p->a, &p->addr_b, "held", 4, &p->st_a));
	FD_ZERO(&r);
	FD_ZERO(&w);
	enters = p->st_b.enter_calls;
	net_uring_wait(p->u, 0.05, 1.0, &r, &w, -1, &p->st_b);
	assert_int_equal(p->st_b.enter_calls - enters, 1);
	assert_int_equal(net_uring_recv_batch(p->u, p->rx, &p->st_b), 3);
}

static void test_path_names(void **state)
{
	enum net_path n = NET_PATH_SELECT;

	(void)state;
	assert_true(net_path_parse("uring", &n));
	assert_int_equal(n, NET_PATH_URING);
	assert_true(net_path_parse("auto", &n));
	assert_int_equal(n, NET_PATH_AUTO);
	assert_false(net_path_parse("epoll", &n));
	assert_false(net_path_parse(NULL, &n));
	assert_string_equal(net_path_name(NET_PATH_SELECT), "select");
}

static const struct CMUnitTest uring_tests[] = {
	cmocka_unit_test_setup_teardown(test_oversized_dropped, ring_setup,
					ring_teardown),
	cmocka_unit_test_setup_teardown(test_more_than_buffers, ring_setup,
					ring_teardown),
	cmocka_unit_test_setup_teardown(test_backlog_one_frame, ring_setup,
					ring_teardown),
	cmocka_unit_test_setup_teardown(test_send_batch, ring_setup,
					ring_teardown),
	cmocka_unit_test_setup_teardown(test_descriptor_polled, ring_setup,
					ring_teardown),
	cmocka_unit_test_setup_teardown(test_hold_one_enter, ring_setup,
					ring_teardown),
	cmocka_unit_test(test_path_names),
};

QWD_TEST_GROUP(net_uring, uring_tests, NULL, NULL)
