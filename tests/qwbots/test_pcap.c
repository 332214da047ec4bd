/*
 * test_pcap.c -- extracting an action file from a packet capture.
 *
 * Design note: the capture is made here, deterministically, with
 * pcap_dump: a real client (struct qwc) talks to a server-side netchan
 * that answers with a real signon (serverdata, modellist, "skins") and
 * then the player's svc_playerinfo; both directions are written as
 * IPv4/UDP frames (Ethernet, then raw IP with --client-port).  Some
 * client packets are left out of the capture (so the extractor must fill
 * gaps from the moves' older copies), one is written twice (a duplicate),
 * one with a broken checksum byte, and frames that are not the session's
 * UDP are mixed in.  Each step's forwardmove is its step number, so the
 * extracted stream shows exactly which commands came through.
 */
#include "../harness.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <math.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tools/qwbots/qwbots.h"

enum { STEPS = 30 };

struct capture {
	pcap_t *dead;
	pcap_dumper_t *dump;
	int dlt;
	double t;
};

static const uint32_t CLIENT_IP = 0x0a000002, SERVER_IP = 0x0a000001;
static const uint16_t CLIENT_PORT = 27001, SERVER_PORT = 27500;

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

/* one frame; frag: mark it a fragment; cut: capture fewer bytes */
static void frame(struct capture *c, uint32_t sip, uint16_t sport, uint32_t dip,
		  uint16_t dport, const void *data, size_t len, bool frag,
		  size_t cut)
{
	uint8_t buf[2048];
	size_t link = c->dlt == DLT_EN10MB ? 14 : 0, n = link + 28 + len;
	struct pcap_pkthdr h;
	uint8_t *ip = buf + link, *udp = ip + 20;

	assert_true(n <= sizeof(buf));
	memset(buf, 0, n);
	if (link) {
		memset(buf, 0x02, 12);
		put16(buf + 12, 0x0800);
	}
	ip[0] = 0x45;
	put16(ip + 2, (unsigned)(28 + len));
	put16(ip + 6, frag ? 0x2000 : 0x4000);	/* MF, or DF */
	ip[8] = 64;
	ip[9] = 17;
	put32(ip + 12, sip);
	put32(ip + 16, dip);
	put16(udp, sport);
	put16(udp + 2, dport);
	put16(udp + 4, (unsigned)(8 + len));
	memcpy(udp + 8, data, len);
	h.ts.tv_sec = (time_t)c->t;
	h.ts.tv_usec = (suseconds_t)lround((c->t - (double)h.ts.tv_sec) * 1e6);
	if (h.ts.tv_usec >= 1000000) {
		h.ts.tv_sec++;
		h.ts.tv_usec -= 1000000;
	}
	h.len = (bpf_u_int32)n;
	h.caplen = (bpf_u_int32)(cut && cut < n ? cut : n);
	pcap_dump((u_char *)c->dump, &h, buf);
}

static void c2s(struct capture *c, const void *d, size_t n)
{
	frame(c, CLIENT_IP, CLIENT_PORT, SERVER_IP, SERVER_PORT, d, n, false, 0);
}

static void s2c(struct capture *c, const void *d, size_t n)
{
	frame(c, SERVER_IP, SERVER_PORT, CLIENT_IP, CLIENT_PORT, d, n, false, 0);
}

/* the server's signon, as one reliable message */
static void queue_signon(struct netchan *sv)
{
	struct msg_buf *m = &sv->message;

	msg_write_byte(m, svc_serverdata);
	msg_write_long(m, PROTOCOL_VERSION);
	msg_write_long(m, 1);		/* servercount */
	msg_write_string(m, "qw");
	msg_write_byte(m, 0);		/* player number */
	msg_write_string(m, "Test Level");
	for (int i = 0; i < 10; i++)
		msg_write_float(m, 1.0f);
	msg_write_byte(m, svc_modellist);
	msg_write_byte(m, 0);
	msg_write_string(m, "maps/lqdm9.bsp");
	msg_write_string(m, "progs/player.mdl");
	msg_write_string(m, "");
	msg_write_byte(m, 0);
	msg_write_byte(m, svc_stufftext);
	msg_write_string(m, "skins\n");
}

/* the player's own entry: where it stands */
static size_t playerinfo(uint8_t *out, size_t max)
{
	struct msg_buf m;

	msg_init(&m, out, max);
	msg_write_byte(&m, svc_playerinfo);
	msg_write_byte(&m, 0);
	msg_write_short(&m, 0);
	msg_write_coord(&m, 100);
	msg_write_coord(&m, 200);
	msg_write_coord(&m, 24);
	msg_write_byte(&m, 0);
	return m.cursize;
}

static void oob(struct capture *c, struct qwc *cl, const char *text)
{
	uint8_t buf[256];
	size_t n = qwc_build_oob(buf, sizeof(buf), text);

	s2c(c, buf, n);
	qwc_receive(cl, buf, n, c->t);
}

static bool dropped(int step)
{
	return step == 10 || step == 14 || step == 15 || (step >= 20 && step <= 23);
}

/* write the whole session; returns the step whose packet carried begin */
static int make_capture(const char *path, int dlt)
{
	struct capture c = {0};
	struct qwc cl;
	struct qwc_options o = {0};
	struct netchan sv;
	struct net_addr caddr = {htonl(CLIENT_IP), htons(CLIENT_PORT)};
	uint8_t pkt[NETCHAN_MAX_PACKET], out[NETCHAN_MAX_PACKET], data[256];
	int begin_step = 0;
	size_t n;

	c.dlt = dlt;
	c.t = 1000.0;
	c.dead = pcap_open_dead(dlt, 65535);
	assert_non_null(c.dead);
	c.dump = pcap_dump_open(c.dead, path);
	assert_non_null(c.dump);

	/* noise first: other traffic, a fragment, a cut frame */
	frame(&c, 0x0a000009, 5000, SERVER_IP, 53, "xyz", 3, false, 0);
	frame(&c, CLIENT_IP, CLIENT_PORT, SERVER_IP, SERVER_PORT, "abcdefgh", 8, true, 0);
	frame(&c, CLIENT_IP, CLIENT_PORT, SERVER_IP, SERVER_PORT, "abcdefgh", 8, false, 30);

	assert_true(net_addr_parse("10.0.0.1", SERVER_PORT, &o.server));
	o.qport = 4321;
	o.packet_interval = 0.033;
	assert_int_equal(qwc_init(&cl, &o), 0);
	qwc_connect(&cl, c.t);
	n = qwc_packet(&cl, c.t, false, pkt, sizeof(pkt));	/* getchallenge */
	assert_true(n > 0);
	c2s(&c, pkt, n);
	c.t += 0.01;
	oob(&c, &cl, "c12345");
	c.t += 0.01;
	n = qwc_packet(&cl, c.t, false, pkt, sizeof(pkt));	/* connect */
	assert_true(n > 0 && memmem(pkt, n, "connect 28 4321 12345", 21));
	c2s(&c, pkt, n);
	c.t += 0.01;
	netchan_setup(&sv, NETCHAN_SERVER, &caddr, 4321, c.t);
	oob(&c, &cl, "j");
	assert_int_equal(cl.state, QWC_CONNECTED);

	for (int step = 1; step <= STEPS; step++) {
		struct msg_buf m;

		c.t += 0.033;
		cl.cmd.forwardmove = (int16_t)step;
		cl.cmd.angles[1] = (float)step;
		n = qwc_packet(&cl, c.t, true, pkt, sizeof(pkt));
		assert_true(n > 10);
		assert_int_equal(cl.chan.outgoing_sequence - 1, (uint32_t)step);
		if (!begin_step && memmem(pkt, n, "begin 1", 7))
			begin_step = step;
		c.t += 0.001;
		if (dropped(step))
			continue;	/* lost before the capture point */
		if (step == 26) {
			uint8_t bad[NETCHAN_MAX_PACKET];

			memcpy(bad, pkt, n);
			assert_int_equal(bad[10], clc_move);
			bad[11] ^= 0x5a;
			c2s(&c, bad, n);
		} else {
			c2s(&c, pkt, n);
		}
		if (step == 12)
			c2s(&c, pkt, n);	/* a duplicate */
		/* the server takes it in and answers */
		msg_init_read(&m, pkt, n);
		assert_true(netchan_process(&sv, &m, c.t));
		if (step == 1)
			queue_signon(&sv);
		n = netchan_transmit(&sv, data, step == 1 ? 0 : playerinfo(data, sizeof(data)),
				     c.t, out, sizeof(out));
		assert_true(n > 0);
		s2c(&c, out, n);
		qwc_receive(&cl, out, n, c.t);
	}
	/* the client went through the signon for real */
	assert_int_equal(cl.state, QWC_ACTIVE);
	qwc_free(&cl);
	pcap_dump_close(c.dump);
	pcap_close(c.dead);
	return begin_step;
}

static void check_extract(int dlt, int client_port)
{
	char path[] = "/tmp/qwbots-cap-XXXXXX";
	struct actions a;
	struct qwb_pcap_stats st;
	char err[256];
	int fd = mkstemp(path), begin, want = 0;

	assert_true(fd >= 0);
	close(fd);
	begin = make_capture(path, dlt);
	assert_true(begin >= 1 && begin < 10);
	if (qwb_pcap_extract(path, client_port, &a, &st, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	unlink(path);

	assert_string_equal(a.map, "lqdm9");
	assert_true(a.has_spawn);
	assert_true(a.spawn[0] == 100 && a.spawn[1] == 200 && a.spawn[2] == 24);
	assert_true(st.saw_begin);
	/* kept: every step from the begin on, but 20 and 21 (four in a row
	 * missing, only three copies per move) */
	for (int s = begin; s <= STEPS; s++)
		if (s != 20 && s != 21)
			want++;
	assert_int_equal(a.n, (size_t)want);
	assert_int_equal(st.commands, (uint64_t)want);
	{
		size_t i = 0;

		for (int s = begin; s <= STEPS; s++) {
			if (s == 20 || s == 21)
				continue;
			assert_int_equal(a.v[i].cmd.forwardmove, s);
			assert_true(fabsf(a.v[i].cmd.angles[1] - (float)s) < 0.01f);
			assert_int_equal(a.v[i].cmd.msec, 34);
			if (i)
				assert_true(a.v[i].time >= a.v[i - 1].time);
			i++;
		}
	}
	assert_true(a.v[0].time == 0);
	assert_true(fabs(a.v[a.n - 1].time - (STEPS - begin) * 0.034) < 0.003);
	/* 10 (1), 14-15 (2), 22-23 (2), 26 behind its bad checksum (1) */
	assert_int_equal(st.recovered, 6);
	assert_int_equal(st.lost, 2);
	assert_int_equal(st.duplicates, 1);
	assert_int_equal(st.bad_checksum, 1);
	assert_int_equal(st.before_begin, (uint64_t)(begin - 1));
	assert_int_equal(st.client_packets, STEPS - 7 + 1);
	assert_int_equal(st.server_packets, STEPS - 7);
	assert_true(st.skipped >= 3);
	assert_int_equal(st.bad_messages, 0);
	actions_free(&a);
}

static void test_extract_ethernet(void **state)
{
	(void)state;
	check_extract(DLT_EN10MB, 0);
}

static void test_extract_raw_port(void **state)
{
	(void)state;
	check_extract(DLT_RAW, CLIENT_PORT);
}

static void test_no_session(void **state)
{
	char path[] = "/tmp/qwbots-cap-XXXXXX";
	struct capture c = {0};
	struct actions a;
	struct qwb_pcap_stats st;
	char err[256];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	c.dlt = DLT_EN10MB;
	c.dead = pcap_open_dead(c.dlt, 65535);
	c.dump = pcap_dump_open(c.dead, path);
	assert_non_null(c.dump);
	frame(&c, 1, 2, 3, 4, "\xff\xff\xff\xffstatus\n", 11, false, 0);
	pcap_dump_close(c.dump);
	pcap_close(c.dead);
	assert_int_equal(qwb_pcap_extract(path, 0, &a, &st, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no client found"));
	assert_int_equal(qwb_pcap_extract(path, 999, &a, &st, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "that port"));
	/* not a capture at all */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "hello, world\n", 13), 13);
	close(fd);
	assert_int_equal(qwb_pcap_extract(path, 0, &a, &st, err, sizeof(err)), -1);
	assert_non_null(strstr(err, path));
	unlink(path);
	assert_int_equal(qwb_pcap_extract("/nonexistent.pcap", 0, &a, &st, err, sizeof(err)), -1);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_extract_ethernet),
	cmocka_unit_test(test_extract_raw_port),
	cmocka_unit_test(test_no_session),
};

QWD_TEST_GROUP(qwbots_pcap, tests, NULL, NULL)
