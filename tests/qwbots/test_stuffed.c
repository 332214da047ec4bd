/*
 * test_stuffed.c -- the stuffed "packet" command the load generator
 * relies on against MVDSV (qwc_take_stuffed_oob in the client library).
 *
 * Design note: a client is brought to the connected state with real
 * connectionless replies, then fed a server-side netchan packet carrying
 * svc_stufftext lines; what the client leaves to send is compared byte
 * for byte with what id's client sends for the same command: four 0xFF
 * bytes and the contents with "\n" turned into a newline, to the address
 * named (port 27500 when none is given; the server's own address for a
 * loopback or any-address destination from a remote server).
 */
#include "../harness.h"

#include <arpa/inet.h>
#include <string.h>

#include "qwd/client.h"

static void connected(struct qwc *c, const char *server)
{
	struct qwc_options o = {0};
	uint8_t buf[NETCHAN_MAX_PACKET];

	assert_true(net_addr_parse(server, 27500, &o.server));
	assert_int_equal(qwc_init(c, &o), 0);
	qwc_connect(c, 1.0);
	assert_true(qwc_packet(c, 1.0, false, buf, sizeof(buf)) > 0);
	assert_true(qwc_receive(c, (const uint8_t *)"\xff\xff\xff\xff" "c7", 6, 1.0));
	assert_true(qwc_packet(c, 1.0, false, buf, sizeof(buf)) > 0);
	assert_true(qwc_receive(c, (const uint8_t *)"\xff\xff\xff\xff" "j", 5, 1.0));
	assert_int_equal(c->state, QWC_CONNECTED);
	/* one packet out, so the server's ack below is of a sent sequence */
	assert_true(qwc_packet(c, 1.1, true, buf, sizeof(buf)) > 0);
}

/* a server packet with one stufftext */
static void stuff(struct qwc *c, struct netchan *sv, const char *text)
{
	uint8_t payload[512], out[NETCHAN_MAX_PACKET];
	struct msg_buf m;
	size_t n;

	msg_init(&m, payload, sizeof(payload));
	msg_write_byte(&m, svc_stufftext);
	msg_write_string(&m, text);
	n = netchan_transmit(sv, m.data, m.cursize, 1.2, out, sizeof(out));
	assert_true(n > 0);
	assert_true(qwc_receive(c, out, n, 1.2));
}

static void test_packet(void **state)
{
	struct qwc c;
	struct netchan sv;
	struct net_addr caddr, to, want;
	uint8_t out[QWC_STUFFED_OOB_MAX];
	size_t n;

	(void)state;
	connected(&c, "127.0.0.1:27600");
	assert_true(net_addr_parse("127.1.0.9:5000", 0, &caddr));
	netchan_setup(&sv, NETCHAN_SERVER, &caddr, c.opt.qport, 1.0);

	/* nothing waiting yet */
	assert_int_equal(qwc_take_stuffed_oob(&c, out, sizeof(out), &to), 0);

	/* MVDSV's real-address check, as it stuffs it */
	stuff(&c, &sv, "packet 127.0.0.1:27600 \"ip 3 243507949\"\ncmd new\n");
	n = qwc_take_stuffed_oob(&c, out, sizeof(out), &to);
	assert_int_equal(n, 4 + strlen("ip 3 243507949"));
	assert_memory_equal(out, "\xff\xff\xff\xff" "ip 3 243507949", n);
	assert_true(net_addr_parse("127.0.0.1:27600", 0, &want));
	assert_true(net_addr_equal(&to, &want));
	/* taken: gone */
	assert_int_equal(qwc_take_stuffed_oob(&c, out, sizeof(out), &to), 0);

	/* "\n" in the contents is a newline; no port means 27500 */
	stuff(&c, &sv, "packet 10.1.2.3 \"a\\nb\"\n");
	n = qwc_take_stuffed_oob(&c, out, sizeof(out), &to);
	assert_int_equal(n, 7);
	assert_memory_equal(out, "\xff\xff\xff\xff" "a\nb", 7);
	assert_int_equal(ntohs(to.port), 27500);
	/* too small a buffer: nothing copied, still waiting */
	stuff(&c, &sv, "packet 10.1.2.3:1 \"abcdef\"\n");
	assert_int_equal(qwc_take_stuffed_oob(&c, out, 5, &to), 0);
	assert_int_equal(qwc_take_stuffed_oob(&c, out, sizeof(out), &to), 10);

	/* malformed commands leave nothing */
	stuff(&c, &sv, "packet nowhere \"x\"\npacket 1.2.3.4\n");
	assert_int_equal(qwc_take_stuffed_oob(&c, out, sizeof(out), &to), 0);
	assert_int_equal(c.state, QWC_CONNECTED);
	qwc_free(&c);
}

static void test_packet_remote(void **state)
{
	struct qwc c;
	struct netchan sv;
	struct net_addr caddr, to;
	uint8_t out[QWC_STUFFED_OOB_MAX];

	(void)state;
	/* a remote server that names its loopback or any-address: the
	 * datagram goes to the server itself */
	connected(&c, "192.0.2.7:27510");
	assert_true(net_addr_parse("10.0.0.2:5000", 0, &caddr));
	netchan_setup(&sv, NETCHAN_SERVER, &caddr, c.opt.qport, 1.0);
	stuff(&c, &sv, "packet 127.0.0.1:27510 \"ip 1 2\"\n");
	assert_true(qwc_take_stuffed_oob(&c, out, sizeof(out), &to) > 0);
	assert_true(to.ip == c.opt.server.ip);
	assert_int_equal(ntohs(to.port), 27510);
	stuff(&c, &sv, "packet 0.0.0.0:27510 \"ip 1 2\"\n");
	assert_true(qwc_take_stuffed_oob(&c, out, sizeof(out), &to) > 0);
	assert_true(to.ip == c.opt.server.ip);
	qwc_free(&c);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_packet),
	cmocka_unit_test(test_packet_remote),
};

QWD_TEST_GROUP(qwbots_stuffed, tests, NULL, NULL)
