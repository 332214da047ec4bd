/*
 * tests/net/udppair.c -- the loopback socket pair of udppair.h.
 *
 * Design note: everything is made once per test, as the server makes its
 * batches at start-up; a failure prints the socket layer's reason.
 */
#include "udppair.h"

#include <stdio.h>
#include <stdlib.h>

struct udp_pair *udp_pair_open(const char *who)
{
	struct udp_pair *p = calloc(1, sizeof(*p));
	char err[256] = "out of memory";

	if (!p)
		return NULL;
	p->a = p->b = -1;
	p->rx = calloc(1, sizeof(*p->rx));
	p->tx = calloc(1, sizeof(*p->tx));
	if (p->rx && p->tx) {
		p->a = net_udp_open("127.0.0.1", 0, err, sizeof(err));
		if (p->a >= 0)
			p->b = net_udp_open("127.0.0.1", 0, err, sizeof(err));
	}
	if (p->a < 0 || p->b < 0 || !net_udp_local_addr(p->a, &p->addr_a) ||
	    !net_udp_local_addr(p->b, &p->addr_b)) {
		fprintf(stderr, "%s: %s\n", who, err);
		udp_pair_close(p);
		return NULL;
	}
	return p;
}

void udp_pair_close(struct udp_pair *p)
{
	if (!p)
		return;
	net_uring_destroy(p->u);
	if (p->a >= 0)
		net_udp_close(p->a);
	if (p->b >= 0)
		net_udp_close(p->b);
	free(p->rx);
	free(p->tx);
	free(p);
}
