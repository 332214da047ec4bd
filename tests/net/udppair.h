/*
 * tests/net/udppair.h -- two UDP sockets on 127.0.0.1 that talk to each
 * other, with the batches the server's socket paths use: the fixture of
 * test_udp.c (the select path) and test_uring.c (the ring on b).
 *
 * Design note: one owner for the pair, so both paths' tests start from
 * the same sockets; the ring is test_uring's and stays NULL otherwise.
 */
#ifndef QWD_TESTS_NET_UDPPAIR_H
#define QWD_TESTS_NET_UDPPAIR_H

#include <qwd/net.h>

struct udp_pair {
	int a, b;
	struct net_addr addr_a, addr_b;
	struct net_stats st_a, st_b;
	struct net_recv_batch *rx;
	struct net_send_batch *tx;
	struct net_uring *u;	/* test_uring's ring on b, else NULL */
};

/* a pair bound to ephemeral loopback ports with its batches, or NULL
 * (the reason printed, naming who) */
struct udp_pair *udp_pair_open(const char *who);
/* the ring (when one was made), the sockets, the batches */
void udp_pair_close(struct udp_pair *p);

#endif
