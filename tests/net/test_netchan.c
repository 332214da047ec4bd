/*
 * test_netchan.c -- the netchan, both ends, on a simulated wire.
 *
 * Design note: a server-side and a client-side channel exchange packets
 * built by netchan_transmit and handed to netchan_process, with the test
 * playing the network: dropping, duplicating, delaying and reordering
 * packets on purpose.  The deterministic cases pin the header layout, the
 * even/odd bit, when a lost reliable is (and is not) sent again, loss
 * counting, the rate arithmetic, and the rejection of short, forged or
 * garbage packets with the protocol state untouched.  The random case
 * (fixed seeds) runs thousands of packets over a lossy, duplicating,
 * reordering wire and checks every reliable record arrives exactly once
 * and in order, and unreliable ones never go backwards.
 */
#include "../harness.h"

#include <qwd/net.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define QPORT 1234

struct pkt {
	uint8_t data[NETCHAN_MAX_PACKET];
	size_t len;
};

struct link {
	struct netchan srv, cli;
};

static void link_setup(struct link *l)
{
	struct net_addr srv_addr, cli_addr;

	assert_true(net_addr_parse("10.0.0.1:27500", 0, &srv_addr));
	assert_true(net_addr_parse("10.0.0.2:27001", 0, &cli_addr));
	netchan_setup(&l->srv, NETCHAN_SERVER, &cli_addr, QPORT, 0.0);
	netchan_setup(&l->cli, NETCHAN_CLIENT, &srv_addr, QPORT, 0.0);
	netchan_set_rate(&l->srv, NETCHAN_MAX_RATE);
	netchan_set_rate(&l->cli, NETCHAN_MAX_RATE);
}

static void xmit(struct netchan *c, const void *data, size_t len, double now,
		 struct pkt *p)
{
	p->len = netchan_transmit(c, data, len, now, p->data, sizeof(p->data));
	assert_true(p->len >= NETCHAN_HEADER);
}

static bool recv_pkt(struct netchan *c, const struct pkt *p, double now,
		     struct msg_buf *m)
{
	msg_init_read(m, (void *)p->data, p->len);
	return netchan_process(c, m, now);
}

static uint32_t word(const struct pkt *p, size_t at)
{
	return (uint32_t)p->data[at] | (uint32_t)p->data[at + 1] << 8 |
	       (uint32_t)p->data[at + 2] << 16 |
	       (uint32_t)p->data[at + 3] << 24;
}

static void put_word(uint8_t *p, uint32_t w)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(w >> (8 * i));
}

/* a hand-made client packet: header, qport, payload */
static void forge(struct pkt *p, uint32_t w1, uint32_t w2, const char *payload)
{
	size_t n = payload ? strlen(payload) + 1 : 0;

	put_word(p->data, w1);
	put_word(p->data + 4, w2);
	p->data[8] = QPORT & 0xff;
	p->data[9] = QPORT >> 8;
	if (n)
		memcpy(p->data + 10, payload, n);
	p->len = 10 + n;
}

/* ---- header and first packet ------------------------------------------ */

static void test_header_layout(void **state)
{
	struct link l;
	struct pkt p;
	struct msg_buf m;
	uint16_t qport = 0;

	(void)state;
	link_setup(&l);
	/* client: sequence 1 (never 0), ack 0, qport, then the payload */
	xmit(&l.cli, "abc", 3, 0.0, &p);
	assert_int_equal(p.len, NETCHAN_HEADER_QPORT + 3);
	assert_int_equal(word(&p, 0), 1);
	assert_int_equal(word(&p, 4), 0);
	assert_int_equal(p.data[8] | p.data[9] << 8, QPORT);
	assert_memory_equal(p.data + 10, "abc", 3);
	msg_init_read(&m, p.data, p.len);
	assert_true(netchan_peek_qport(&m, &qport));
	assert_int_equal(qport, QPORT);
	msg_init_read(&m, p.data, 9);
	assert_false(netchan_peek_qport(&m, &qport));

	/* the server reads past the qport: the payload is next */
	assert_true(recv_pkt(&l.srv, &p, 0.1, &m));
	assert_int_equal(msg_read_remaining(&m), 3);
	assert_int_equal(msg_read_byte(&m), 'a');
	assert_true(l.srv.last_received == 0.1);

	/* server: no qport; a reliable message sets the top bit and goes
	   first; the ack carries the client's sequence */
	msg_write_string(&l.srv.message, "rel");
	xmit(&l.srv, "un", 2, 0.2, &p);
	assert_int_equal(p.len, NETCHAN_HEADER + 4 + 2);
	assert_int_equal(word(&p, 0), 0x80000001u);
	assert_int_equal(word(&p, 4), 1);
	assert_memory_equal(p.data + 8, "rel\0un", 6);
	assert_true(recv_pkt(&l.cli, &p, 0.3, &m));
	assert_int_equal(msg_read_remaining(&m), 6);
	assert_int_equal(l.cli.incoming_reliable_sequence, 1);
}

/* id's client sends its first packet (the reliable "new") with sequence
 * 0; id's server drops it, we take it */
static void test_first_packet_sequence_zero(void **state)
{
	struct link l;
	struct pkt p, reply;
	struct msg_buf m;
	char s[8];

	(void)state;
	link_setup(&l);
	forge(&p, 0x80000000u, 0, "new");
	assert_true(recv_pkt(&l.srv, &p, 1.0, &m));
	msg_read_string(&m, s, sizeof(s));
	assert_string_equal(s, "new");
	assert_int_equal(l.srv.incoming_sequence, 0);
	assert_int_equal(l.srv.incoming_reliable_sequence, 1);
	assert_int_equal(l.srv.dropped, 0);
	/* seen once: a copy is a duplicate now */
	assert_false(recv_pkt(&l.srv, &p, 1.0, &m));
	assert_int_equal(l.srv.stale_count, 1);
	assert_int_equal(l.srv.incoming_reliable_sequence, 1);
	/* the reply acknowledges sequence 0 with the bit flipped, and its own
	   sequence is 1, which an id client (newest = 0) accepts */
	xmit(&l.srv, NULL, 0, 1.0, &reply);
	assert_int_equal(word(&reply, 0), 1);
	assert_int_equal(word(&reply, 4), 0x80000000u);
}

/* ---- reliable delivery ------------------------------------------------ */

static void test_even_odd_bit(void **state)
{
	struct link l;
	struct pkt p;
	struct msg_buf m;

	(void)state;
	link_setup(&l);
	for (int k = 1; k <= 4; k++) {
		uint8_t bit = (uint8_t)(k & 1);

		assert_true(netchan_can_reliable(&l.srv, 0.0));
		msg_write_long(&l.srv.message, k);
		xmit(&l.srv, NULL, 0, 0.0, &p);
		assert_int_equal(l.srv.reliable_sequence, bit);
		assert_true(word(&p, 0) & 0x80000000u);
		assert_false(netchan_can_reliable(&l.srv, 0.0));
		assert_int_equal(l.srv.message.cursize, 0);

		assert_true(recv_pkt(&l.cli, &p, 0.0, &m));
		assert_int_equal(msg_read_long(&m), k);
		assert_int_equal(l.cli.incoming_reliable_sequence, bit);

		xmit(&l.cli, NULL, 0, 0.0, &p);
		assert_int_equal(word(&p, 4) >> 31, bit);
		assert_true(recv_pkt(&l.srv, &p, 0.0, &m));
		assert_int_equal(l.srv.reliable_length, 0);
	}
}

static void test_retransmit_after_loss(void **state)
{
	struct link l;
	struct pkt s1, s2, s3, s4, c;
	struct msg_buf m;

	(void)state;
	link_setup(&l);
	msg_write_string(&l.srv.message, "R1");
	xmit(&l.srv, NULL, 0, 0.0, &s1); /* lost */
	assert_int_equal(l.srv.last_reliable_sequence, 1);

	/* more reliable data queued meanwhile waits for the next message */
	msg_write_string(&l.srv.message, "R2");

	/* the client has seen nothing: no evidence of loss yet */
	xmit(&l.cli, NULL, 0, 0.0, &c);
	assert_true(recv_pkt(&l.srv, &c, 0.0, &m));
	xmit(&l.srv, "u2", 2, 0.0, &s2);
	assert_false(word(&s2, 0) & 0x80000000u);
	assert_int_equal(s2.len, NETCHAN_HEADER + 2);

	/* the client acks S2 with the old bit: S1 was lost, send it again */
	assert_true(recv_pkt(&l.cli, &s2, 0.0, &m));
	assert_int_equal(l.cli.dropped, 0); /* the first packet sets the base */
	xmit(&l.cli, NULL, 0, 0.0, &c);
	assert_true(recv_pkt(&l.srv, &c, 0.0, &m));
	xmit(&l.srv, "u3", 2, 0.0, &s3);
	assert_int_equal(word(&s3, 0), 0x80000003u);
	assert_memory_equal(s3.data + 8, "R1\0u3", 5);
	assert_int_equal(l.srv.last_reliable_sequence, 3);

	/* an ack that predates the retransmission triggers nothing more */
	xmit(&l.cli, NULL, 0, 0.0, &c);
	assert_true(recv_pkt(&l.srv, &c, 0.0, &m));
	xmit(&l.srv, NULL, 0, 0.0, &s4);
	assert_false(word(&s4, 0) & 0x80000000u);

	/* S3 arrives once; its copy and the lost S1 turning up late do not */
	assert_true(recv_pkt(&l.cli, &s3, 0.0, &m));
	assert_int_equal(l.cli.incoming_reliable_sequence, 1);
	assert_false(recv_pkt(&l.cli, &s3, 0.0, &m));
	assert_false(recv_pkt(&l.cli, &s1, 0.0, &m));
	assert_int_equal(l.cli.incoming_reliable_sequence, 1);
	assert_true(recv_pkt(&l.cli, &s4, 0.0, &m));

	/* the ack clears it; R2 goes next, with the other bit */
	xmit(&l.cli, NULL, 0, 0.0, &c);
	assert_true(recv_pkt(&l.srv, &c, 0.0, &m));
	assert_int_equal(l.srv.reliable_length, 0);
	xmit(&l.srv, NULL, 0, 0.0, &s1);
	assert_int_equal(l.srv.reliable_sequence, 0);
	assert_memory_equal(s1.data + 8, "R2", 3);
}

/* a forged header with the right even/odd bit but an ack older than the
 * packet that carried the reliable must not cancel it */
static void test_low_ack_does_not_clear_reliable(void **state)
{
	struct link l;
	struct pkt p;
	struct msg_buf m;

	(void)state;
	link_setup(&l);
	xmit(&l.srv, NULL, 0, 0.0, &p);	    /* sequence 1 */
	msg_write_string(&l.srv.message, "R");
	xmit(&l.srv, NULL, 0, 0.0, &p);	    /* sequence 2 carries it */
	forge(&p, 5, 1u | 0x80000000u, NULL); /* acks 1 with bit 1 */
	assert_true(recv_pkt(&l.srv, &p, 0.0, &m));
	assert_int_not_equal(l.srv.reliable_length, 0);
	forge(&p, 6, 2u | 0x80000000u, NULL); /* acks 2 with bit 1 */
	assert_true(recv_pkt(&l.srv, &p, 0.0, &m));
	assert_int_equal(l.srv.reliable_length, 0);
}

/* ---- loss, duplicates, garbage ---------------------------------------- */

static void test_drop_counting(void **state)
{
	struct link l;
	struct pkt c[9];
	struct msg_buf m;

	(void)state;
	link_setup(&l);
	for (int i = 1; i <= 8; i++)
		xmit(&l.cli, NULL, 0, 0.0, &c[i]);
	assert_true(recv_pkt(&l.srv, &c[1], 0.0, &m));
	assert_true(recv_pkt(&l.srv, &c[2], 0.0, &m));
	assert_int_equal(l.srv.drop_count, 0);
	/* 3 missing */
	assert_true(recv_pkt(&l.srv, &c[4], 0.0, &m));
	assert_int_equal(l.srv.dropped, 1);
	assert_int_equal(l.srv.drop_count, 1);
	assert_int_equal(l.srv.dropped_total, 1);
	/* 5 and 6 missing */
	assert_true(recv_pkt(&l.srv, &c[7], 0.0, &m));
	assert_int_equal(l.srv.dropped, 2);
	assert_int_equal(l.srv.drop_count, 2);
	assert_int_equal(l.srv.dropped_total, 3);
	/* late and repeated packets are refused and change nothing */
	assert_false(recv_pkt(&l.srv, &c[6], 0.0, &m));
	assert_false(recv_pkt(&l.srv, &c[3], 0.0, &m));
	assert_false(recv_pkt(&l.srv, &c[7], 0.0, &m));
	assert_int_equal(l.srv.stale_count, 3);
	assert_int_equal(l.srv.good_count, 4);
	assert_int_equal(l.srv.incoming_sequence, 7);
	assert_int_equal(l.srv.dropped, 2);
	/* back in step */
	assert_true(recv_pkt(&l.srv, &c[8], 0.0, &m));
	assert_int_equal(l.srv.dropped, 0);
	assert_int_equal(l.srv.drop_count, 2);
}

/* the protocol state: everything but the reject counters */
static void assert_same_state(const struct netchan *a, const struct netchan *b)
{
	assert_int_equal(a->outgoing_sequence, b->outgoing_sequence);
	assert_int_equal(a->incoming_sequence, b->incoming_sequence);
	assert_int_equal(a->incoming_acknowledged, b->incoming_acknowledged);
	assert_int_equal(a->incoming_reliable_acknowledged,
			 b->incoming_reliable_acknowledged);
	assert_int_equal(a->incoming_reliable_sequence,
			 b->incoming_reliable_sequence);
	assert_int_equal(a->received_any, b->received_any);
	assert_int_equal(a->reliable_sequence, b->reliable_sequence);
	assert_int_equal(a->last_reliable_sequence, b->last_reliable_sequence);
	assert_int_equal(a->reliable_length, b->reliable_length);
	assert_int_equal(a->dropped, b->dropped);
	assert_int_equal(a->drop_count, b->drop_count);
	assert_int_equal(a->dropped_total, b->dropped_total);
	assert_int_equal(a->good_count, b->good_count);
	assert_int_equal(a->fatal_error, b->fatal_error);
	assert_int_equal(a->message.cursize, b->message.cursize);
	assert_true(a->last_received == b->last_received);
	assert_true(a->cleartime == b->cleartime);
}

static void test_garbage_rejected(void **state)
{
	static struct link l;
	static struct netchan snap_srv, snap_cli;
	struct pkt p, good;
	struct msg_buf m;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	uint32_t bad_before;

	(void)state;
	link_setup(&l);
	/* some history first, with a reliable in flight both ways */
	msg_write_string(&l.srv.message, "srv-rel");
	msg_write_string(&l.cli.message, "cli-rel");
	for (int i = 0; i < 3; i++) {
		xmit(&l.cli, NULL, 0, 0.0, &good);
		assert_true(recv_pkt(&l.srv, &good, 0.0, &m));
	}
	xmit(&l.srv, NULL, 0, 0.0, &good);
	memcpy(&snap_srv, &l.srv, sizeof(snap_srv));
	memcpy(&snap_cli, &l.cli, sizeof(snap_cli));

	/* too short: the server needs 10 bytes, the client 8 */
	memset(p.data, 0, sizeof(p.data));
	put_word(p.data, 100);
	for (p.len = 0; p.len < NETCHAN_HEADER_QPORT; p.len++)
		assert_false(recv_pkt(&l.srv, &p, 9.0, &m));
	for (p.len = 0; p.len < NETCHAN_HEADER; p.len++)
		assert_false(recv_pkt(&l.cli, &p, 9.0, &m));
	assert_int_equal(l.srv.bad_count, NETCHAN_HEADER_QPORT);
	assert_int_equal(l.cli.bad_count, NETCHAN_HEADER);

	/* acks of sequences never sent (the server has sent 1 so far) */
	forge(&p, 100, 2, NULL);
	assert_false(recv_pkt(&l.srv, &p, 9.0, &m));
	forge(&p, 100, 0x7fffffffu, NULL);
	assert_false(recv_pkt(&l.srv, &p, 9.0, &m));
	/* the connectionless marker is no netchan packet */
	forge(&p, 0xffffffffu, 0, NULL);
	assert_false(recv_pkt(&l.srv, &p, 9.0, &m));
	/* a replay of an old packet */
	xmit(&l.cli, NULL, 0, 0.0, &good);
	memcpy(&snap_cli, &l.cli, sizeof(snap_cli));
	put_word(good.data, 2);
	assert_false(recv_pkt(&l.srv, &good, 9.0, &m));

	/* random bytes of every length */
	bad_before = l.srv.bad_count + l.srv.stale_count;
	for (int i = 0; i < 2000; i++) {
		p.len = (size_t)i % 64;
		for (size_t k = 0; k < p.len; k++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			p.data[k] = (uint8_t)seed;
		}
		assert_false(recv_pkt(&l.srv, &p, 9.0, &m));
		assert_false(recv_pkt(&l.cli, &p, 9.0, &m));
	}
	assert_int_equal(l.srv.bad_count + l.srv.stale_count, bad_before + 2000);
	assert_same_state(&l.srv, &snap_srv);
	assert_same_state(&l.cli, &snap_cli);

	/* and the link still works */
	put_word(good.data, 4);
	assert_true(recv_pkt(&l.srv, &good, 9.0, &m));
}

/* ---- sizes and overflow ----------------------------------------------- */

static void test_unreliable_that_does_not_fit(void **state)
{
	static uint8_t big[NET_MAX_MSGLEN + 1];
	struct link l;
	struct pkt p;

	(void)state;
	link_setup(&l);
	memset(big, 'u', sizeof(big));
	/* exactly MAX_DATAGRAM of unreliable data fits, one more does not */
	xmit(&l.srv, big, NET_MAX_DATAGRAM, 0.0, &p);
	assert_int_equal(p.len, NETCHAN_HEADER + NET_MAX_DATAGRAM);
	xmit(&l.srv, big, NET_MAX_DATAGRAM + 1, 0.0, &p);
	assert_int_equal(p.len, NETCHAN_HEADER);
	assert_int_equal(l.srv.unreliable_skipped, 1);

	/* a large reliable leaves no room: it goes alone */
	msg_write_data(&l.srv.message, big, 1400);
	xmit(&l.srv, big, 100, 0.0, &p);
	assert_int_equal(p.len, NETCHAN_HEADER + 1400);
	assert_int_equal(l.srv.unreliable_skipped, 2);
	/* while it is in flight (not resent) the datagram has room again */
	xmit(&l.srv, big, 100, 0.0, &p);
	assert_int_equal(p.len, NETCHAN_HEADER + 100);

	/* a client packet never exceeds NETCHAN_MAX_PACKET either */
	xmit(&l.cli, big, NET_MAX_DATAGRAM, 0.0, &p);
	assert_int_equal(p.len, NETCHAN_MAX_PACKET);
}

static void test_overflow_is_fatal(void **state)
{
	static uint8_t big[NET_MAX_MSGLEN];
	struct link l;
	struct pkt p;

	(void)state;
	link_setup(&l);
	msg_write_data(&l.srv.message, big, sizeof(big));
	assert_false(l.srv.message.overflowed);
	msg_write_byte(&l.srv.message, 1);
	assert_true(l.srv.message.overflowed);
	assert_int_equal(netchan_transmit(&l.srv, NULL, 0, 0.0, p.data,
					  sizeof(p.data)),
			 0);
	assert_true(l.srv.fatal_error);
	assert_int_equal(netchan_transmit(&l.srv, NULL, 0, 0.0, p.data,
					  sizeof(p.data)),
			 0);
	assert_int_equal(l.srv.outgoing_sequence, 1);
	/* cleared, one last packet (a disconnect) can still go */
	msg_clear(&l.srv.message);
	xmit(&l.srv, "d", 1, 0.0, &p);
	assert_int_equal(p.len, NETCHAN_HEADER + 1);
	assert_true(l.srv.fatal_error);
}

static void test_small_out_buffer(void **state)
{
	struct link l;
	struct pkt p;

	(void)state;
	link_setup(&l);
	msg_write_string(&l.srv.message, "R");
	assert_int_equal(netchan_transmit(&l.srv, NULL, 0, 0.0, p.data,
					  NETCHAN_MAX_PACKET - 1),
			 0);
	assert_false(l.srv.fatal_error);
	assert_int_equal(l.srv.outgoing_sequence, 1);
	assert_int_equal(l.srv.reliable_length, 0);
	assert_int_equal(l.srv.message.cursize, 2);
}

/* ---- rate ------------------------------------------------------------- */

static void test_rate(void **state)
{
	static uint8_t data[1000];
	struct link l;
	struct pkt p;

	(void)state;
	link_setup(&l);
	netchan_set_rate(&l.srv, 2500);
	assert_true(fabs(l.srv.rate - 1.0 / 2500) < 1e-15);
	assert_true(netchan_can_packet(&l.srv, 10.0));

	/* 1008 bytes at 2500 B/s clear 0.4032 s after an idle start */
	xmit(&l.srv, data, sizeof(data), 10.0, &p);
	assert_int_equal(p.len, 1008);
	assert_true(fabs(l.srv.cleartime - 10.4032) < 1e-9);
	/* 200 bytes (0.08 s) of backlog are allowed, no more */
	assert_false(netchan_can_packet(&l.srv, 10.0));
	assert_false(netchan_can_packet(&l.srv, 10.32));
	assert_true(netchan_can_packet(&l.srv, 10.33));
	/* sending while behind adds to the backlog rather than restarting */
	xmit(&l.srv, NULL, 0, 10.33, &p);
	assert_true(fabs(l.srv.cleartime - (10.4032 + 8 / 2500.0)) < 1e-9);
	/* idle time is not banked */
	xmit(&l.srv, NULL, 0, 100.0, &p);
	assert_true(fabs(l.srv.cleartime - (100.0 + 8 / 2500.0)) < 1e-9);

	/* a reliable in flight blocks new reliables whatever the rate */
	msg_write_byte(&l.srv.message, 1);
	xmit(&l.srv, NULL, 0, 200.0, &p);
	assert_true(netchan_can_packet(&l.srv, 300.0));
	assert_false(netchan_can_reliable(&l.srv, 300.0));

	netchan_set_rate(&l.srv, 1);
	assert_true(fabs(l.srv.rate - 1.0 / NETCHAN_MIN_RATE) < 1e-15);
	netchan_set_rate(&l.srv, 0);
	assert_true(fabs(l.srv.rate - 1.0 / NETCHAN_DEFAULT_RATE) < 1e-15);
	netchan_set_rate(&l.srv, 1000000000);
	assert_true(fabs(l.srv.rate - 1.0 / NETCHAN_MAX_RATE) < 1e-15);
}

/* ---- the lossy wire ----------------------------------------------------- */

enum { IN_FLIGHT = 256, RECORD = 5 };

struct wire {
	struct pkt pkt[IN_FLIGHT];
	double due[IN_FLIGHT];
	bool used[IN_FLIGHT];
};

struct end {
	struct netchan *chan;
	int32_t queued;		/* reliable records queued so far */
	int32_t next_rel;	/* next reliable record expected from peer */
	int32_t unrel_sent;
	int32_t last_unrel;	/* newest unreliable record seen from peer */
	uint32_t reliable_sends; /* packets sent with the reliable bit */
	uint32_t new_reliables;	 /* distinct reliable messages */
};

struct sim {
	uint64_t rng;
	double loss, dup, jitter;
};

static double rnd(struct sim *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return (double)(s->rng >> 11) / (double)(1ull << 53);
}

static void wire_put(struct wire *w, const struct pkt *p, double due)
{
	for (int i = 0; i < IN_FLIGHT; i++) {
		if (!w->used[i]) {
			w->pkt[i] = *p;
			w->due[i] = due;
			w->used[i] = true;
			return;
		}
	}
	/* a full wire drops the packet, like a full router queue */
}

/* parse a payload of records: 'R' reliable n, 'U' unreliable n */
static void consume(struct end *to, struct msg_buf *m)
{
	while (msg_read_remaining(m) >= RECORD) {
		int type = msg_read_byte(m);
		int32_t v = msg_read_long(m);

		if (type == 'R') {
			assert_int_equal(v, to->next_rel);
			to->next_rel++;
		} else {
			assert_int_equal(type, 'U');
			assert_true(v > to->last_unrel);
			to->last_unrel = v;
		}
	}
	assert_int_equal(msg_read_remaining(m), 0);
	assert_false(m->badread);
}

static void send_one(struct sim *s, struct end *from, struct wire *w,
		     double now, bool queue_more)
{
	struct netchan *c = from->chan;
	uint8_t unrel[RECORD];
	struct msg_buf u;
	struct pkt p;
	uint8_t seq_before = c->reliable_sequence;

	/* queue reliable records at random, while they fit */
	if (queue_more && rnd(s) < 0.5 &&
	    c->message.cursize + RECORD <= c->message.maxsize) {
		msg_write_byte(&c->message, 'R');
		msg_write_long(&c->message, from->queued++);
	}
	msg_init(&u, unrel, sizeof(unrel));
	msg_write_byte(&u, 'U');
	msg_write_long(&u, ++from->unrel_sent);
	xmit(c, unrel, u.cursize, now, &p);
	if (word(&p, 0) & 0x80000000u)
		from->reliable_sends++;
	if (c->reliable_sequence != seq_before)
		from->new_reliables++;

	if (rnd(s) < s->loss)
		return;
	wire_put(w, &p, now + 0.02 + s->jitter * rnd(s));
	if (rnd(s) < s->dup)
		wire_put(w, &p, now + 0.02 + s->jitter * rnd(s));
}

static void deliver_due(struct wire *w, struct end *to, double now)
{
	struct msg_buf m;

	for (int i = 0; i < IN_FLIGHT; i++) {
		if (!w->used[i] || w->due[i] > now)
			continue;
		w->used[i] = false;
		if (recv_pkt(to->chan, &w->pkt[i], now, &m))
			consume(to, &m);
	}
}

static void run_lossy_link(uint64_t seed)
{
	static struct link l;
	static struct wire to_srv, to_cli;
	struct end srv = {.chan = &l.srv}, cli = {.chan = &l.cli};
	struct sim s = {.rng = seed, .loss = 0.25, .dup = 0.1, .jitter = 0.1};
	double now = 0.0;

	link_setup(&l);
	memset(&to_srv, 0, sizeof(to_srv));
	memset(&to_cli, 0, sizeof(to_cli));
	for (int step = 0; step < 4000; step++, now += 0.013) {
		bool lossy = step < 3000;

		if (!lossy) {
			s.loss = 0.0;
			s.dup = 0.0;
		}
		send_one(&s, &cli, &to_srv, now, lossy);
		send_one(&s, &srv, &to_cli, now, lossy);
		deliver_due(&to_srv, &srv, now);
		deliver_due(&to_cli, &cli, now);
	}

	assert_true(srv.queued > 500 && cli.queued > 500);
	/* everything queued arrived, once, in order (consume checks order) */
	assert_int_equal(cli.next_rel, srv.queued);
	assert_int_equal(srv.next_rel, cli.queued);
	assert_int_equal(l.srv.reliable_length, 0);
	assert_int_equal(l.cli.reliable_length, 0);
	assert_int_equal(l.srv.message.cursize, 0);
	assert_false(l.srv.fatal_error || l.cli.fatal_error);
	/* the wire really was hostile, and the netchan noticed */
	assert_true(srv.reliable_sends > srv.new_reliables);
	assert_true(cli.reliable_sends > cli.new_reliables);
	assert_true(l.srv.drop_count > 100 && l.cli.drop_count > 100);
	assert_true(l.srv.stale_count > 100 && l.cli.stale_count > 100);
	assert_int_equal(l.srv.bad_count + l.cli.bad_count, 0);
}

static void test_lossy_link(void **state)
{
	(void)state;
	run_lossy_link(1);
	run_lossy_link(0xdeadbeefcafef00dull);
	run_lossy_link(12345678901ull);
}

static const struct CMUnitTest netchan_tests[] = {
	cmocka_unit_test(test_header_layout),
	cmocka_unit_test(test_first_packet_sequence_zero),
	cmocka_unit_test(test_even_odd_bit),
	cmocka_unit_test(test_retransmit_after_loss),
	cmocka_unit_test(test_low_ack_does_not_clear_reliable),
	cmocka_unit_test(test_drop_counting),
	cmocka_unit_test(test_garbage_rejected),
	cmocka_unit_test(test_unreliable_that_does_not_fit),
	cmocka_unit_test(test_overflow_is_fatal),
	cmocka_unit_test(test_small_out_buffer),
	cmocka_unit_test(test_rate),
	cmocka_unit_test(test_lossy_link),
};

QWD_TEST_GROUP(netchan, netchan_tests, NULL, NULL)
