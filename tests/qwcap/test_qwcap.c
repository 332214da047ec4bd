/*
 * test_qwcap.c -- the capture analyser (tools/qwcap) on captures with
 * known contents.
 *
 * Design note: a session is written with the capture library (so the
 * writer and the reader meet only in the pcap file): a stock client that
 * goes getchallenge, connect, ping, ten moves and replies (signon data,
 * player infos, packet entities, prints), one malformed packet each way;
 * an extended client (QWDX) whose serverdata carries a short player
 * number (misread as a byte, every message after it would be bad), and
 * a datagram that is not the server's.  A client with FTE's chunked
 * downloads has a session of its own.  Every count the report gives is
 * compared with the count kept while writing.  Other captures check the
 * link types a tcpdump on loopback or Ethernet produces, the server port
 * guess, datagrams cut by the snap length, malformed frames, and random
 * bytes (under the sanitizers: no read outside a datagram).
 */
#include "../harness.h"

#include <qwd/capture.h>
#include <qwd/protocol.h>

#include <arpa/inet.h>
#include <math.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tools/qwcap/qwcap.h"

static char dir[64];
static char path[128];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/qwd-qwcap-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/s.pcap", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	rmdir(dir);
	return 0;
}

static struct net_addr addr(uint32_t ip, uint16_t port)
{
	struct net_addr a = {htonl(ip), htons(port)};

	return a;
}

/* ---- building packets -------------------------------------------------- */

static void netchan_header(struct msg_buf *m, uint32_t seq, bool reliable,
			   uint32_t ack, int qport)
{
	msg_write_long(m, (int32_t)(seq | (reliable ? 0x80000000u : 0)));
	msg_write_long(m, (int32_t)ack);
	if (qport >= 0)
		msg_write_short(m, qport);
}

/* clc_move with three commands; returns the bytes of the message */
static size_t write_move(struct msg_buf *m, int step)
{
	static const struct usercmd nullcmd;
	struct usercmd c[3];
	size_t start = m->cursize;

	memset(c, 0, sizeof(c));
	for (int k = 0; k < 3; k++) {
		c[k].msec = 13;
		c[k].forwardmove = (int16_t)(step * 10 + k);
		c[k].angles[1] = (float)(step * 3);
		c[k].buttons = (uint8_t)(k == 2 ? BUTTON_JUMP : 0);
	}
	msg_write_byte(m, clc_move);
	msg_write_byte(m, 0x5a);	/* checksum: not the analyser's business */
	msg_write_byte(m, 0);
	msg_write_delta_usercmd(m, &nullcmd, &c[0]);
	msg_write_delta_usercmd(m, &c[0], &c[1]);
	msg_write_delta_usercmd(m, &c[1], &c[2]);
	return m->cursize - start;
}

/* fte: FTE's words ahead of the protocol, chunked downloads in force */
static void write_serverdata(struct msg_buf *m, bool wide, bool fte)
{
	msg_write_byte(m, svc_serverdata);
	if (fte) {
		msg_write_long(m, (int32_t)PROTOCOL_VERSION_FTE);
		msg_write_long(m, (int32_t)FTE_PEXT_CHUNKEDDOWNLOADS);
	}
	msg_write_long(m, PROTOCOL_VERSION);
	msg_write_long(m, 7);
	msg_write_string(m, "qw");
	if (wide)
		msg_write_short(m, 300);
	else
		msg_write_byte(m, 3);
	msg_write_string(m, "The Test Level");
	for (int k = 0; k < 10; k++)
		msg_write_float(m, 1.0f + (float)k);
}

static void write_playerinfo(struct msg_buf *m, bool wide, int slot)
{
	static const struct usercmd nullcmd;
	struct usercmd cmd = {.msec = 12, .forwardmove = 320};

	msg_write_byte(m, wide ? svcx_playerinfo : svc_playerinfo);
	if (wide)
		msg_write_short(m, slot);
	else
		msg_write_byte(m, slot);
	msg_write_short(m, PF_MSEC | PF_COMMAND | PF_VELOCITY1 | PF_MODEL |
				   PF_WEAPONFRAME);
	for (int k = 0; k < 3; k++)
		msg_write_coord(m, 100.0f * (float)(k + 1));
	msg_write_byte(m, 4);		/* frame */
	msg_write_byte(m, 12);		/* msec */
	msg_write_delta_usercmd(m, &nullcmd, &cmd);
	msg_write_short(m, 250);	/* velocity x */
	msg_write_byte(m, 2);		/* model */
	msg_write_byte(m, 1);		/* weapon frame */
}

/* three updates: one with an origin and an angle, one with more bits,
 * one removal; then the end */
static void write_entities(struct msg_buf *m)
{
	msg_write_byte(m, svc_packetentities);
	msg_write_short(m, 5 | U_ORIGIN1 | U_ANGLE2);
	msg_write_short(m, 800);
	msg_write_byte(m, 64);
	msg_write_short(m, 7 | U_MOREBITS | U_FRAME);
	msg_write_byte(m, U_MODEL | U_SKIN);
	msg_write_byte(m, 9);		/* model */
	msg_write_byte(m, 1);		/* frame */
	msg_write_byte(m, 0);		/* skin */
	msg_write_short(m, 9 | U_REMOVE);
	msg_write_short(m, 0);
}

static void write_wide_delta(struct msg_buf *m)
{
	msg_write_byte(m, svcx_deltapacketentities);
	msg_write_byte(m, 1);		/* from */
	msg_write_short(m, U_ORIGIN1 | U_MOREBITS);
	msg_write_short(m, 600);	/* number: past protocol 28's 511 */
	msg_write_byte(m, U_EFFECTS);
	msg_write_byte(m, 8);		/* effects */
	msg_write_short(m, -16);	/* origin */
	msg_write_short(m, U_REMOVE);
	msg_write_short(m, 601);
	msg_write_short(m, 0);
}

/* ---- the session ------------------------------------------------------ */

/* what was written, per client and direction */
struct tally {
	uint64_t packets, bytes;
	uint32_t min, max;
};

static void tally(struct tally *t, size_t len)
{
	if (t->packets == 0 || len < t->min)
		t->min = (uint32_t)len;
	if (len > t->max)
		t->max = (uint32_t)len;
	t->packets++;
	t->bytes += len;
}

struct session {
	struct capture *cap;
	struct tally a[2], b[2];
	uint64_t move_bytes, print_bytes;
	int records;
};

static void in(struct session *s, struct tally *t, const struct net_addr *from,
	       const void *data, size_t len, double now)
{
	assert_true(capture_in(s->cap, from, data, len, now));
	tally(t, len);
	s->records++;
}

static void out(struct session *s, struct tally *t, const struct net_addr *to,
		const void *data, size_t len, double now)
{
	assert_true(capture_out(s->cap, to, data, len, now));
	tally(t, len);
	s->records++;
}

static const uint32_t SERVER_IP = 0x0a000001;

static void write_session(struct session *s, uint16_t port)
{
	struct net_addr sv = addr(SERVER_IP, port);
	struct net_addr ca = addr(0x0a000002, 27001), cb = addr(0x0a000003, 27005);
	struct net_addr x = addr(0x0a000009, 53), y = addr(0x0a000002, 5353);
	static const char getch[] = "\xff\xff\xff\xff" "getchallenge\n";
	static const char chal[] = "\xff\xff\xff\xff" "c12345";
	static const char conn_a[] =
		"\xff\xff\xff\xff" "connect 28 1234 12345 \"\\name\\a\"\n";
	static const char conn_b[] =
		"\xff\xff\xff\xff" "connect 28 777 12345 \"\\name\\b\"\n" QWDX_PROTOCOL_NAME " 1\n";
	static const char accept[] = "\xff\xff\xff\xff" "j";
	uint8_t buf[1500];
	struct msg_buf m;
	char err[256];

	memset(s, 0, sizeof(*s));
	s->cap = capture_open(path, 0, &sv, NULL, err, sizeof(err));
	assert_non_null(s->cap);
	capture_set_time_offset(s->cap, 0);

	in(s, &s->a[0], &ca, getch, sizeof(getch) - 1, 100.0);
	out(s, &s->a[1], &ca, chal, sizeof(chal), 100.1);
	in(s, &s->a[0], &ca, conn_a, sizeof(conn_a) - 1, 100.2);
	out(s, &s->a[1], &ca, accept, sizeof(accept) - 1, 100.3);
	in(s, &s->a[0], &ca, "k", 1, 100.35);
	out(s, &s->a[1], &ca, "l", 1, 100.36);
	for (int i = 0; i < 10; i++) {
		double t = 101.0 + i * 0.1;

		msg_init(&m, buf, sizeof(buf));
		netchan_header(&m, (uint32_t)i + 1, i == 0, (uint32_t)i, 1234);
		if (i == 0) {
			msg_write_byte(&m, clc_stringcmd);
			msg_write_string(&m, "new");
		}
		s->move_bytes += write_move(&m, i);
		if (i > 0) {
			msg_write_byte(&m, clc_delta);
			msg_write_byte(&m, i);
		}
		assert_false(m.overflowed);
		in(s, &s->a[0], &ca, buf, m.cursize, t);

		msg_init(&m, buf, sizeof(buf));
		netchan_header(&m, (uint32_t)i + 1, i == 0, (uint32_t)i + 1, -1);
		if (i == 0) {
			write_serverdata(&m, false, false);
			msg_write_byte(&m, svc_stufftext);
			msg_write_string(&m, "fullserverinfo \"\\maxclients\\8\"\n");
		} else {
			write_playerinfo(&m, false, 3);
			write_entities(&m);
			if (i % 3 == 0) {
				size_t start = m.cursize;

				msg_write_byte(&m, svc_print);
				msg_write_byte(&m, PRINT_HIGH);
				msg_write_string(&m, "frag\n");
				s->print_bytes += m.cursize - start;
			}
		}
		assert_false(m.overflowed);
		out(s, &s->a[1], &ca, buf, m.cursize, t + 0.01);
	}
	/* malformed: a move cut short; an unknown svc after a good one */
	msg_init(&m, buf, sizeof(buf));
	netchan_header(&m, 11, false, 10, 1234);
	msg_write_byte(&m, clc_move);
	msg_write_byte(&m, 0);
	in(s, &s->a[0], &ca, buf, m.cursize, 102.5);
	msg_init(&m, buf, sizeof(buf));
	netchan_header(&m, 11, false, 11, -1);
	msg_write_byte(&m, svc_nop);
	msg_write_byte(&m, 99);
	out(s, &s->a[1], &ca, buf, m.cursize, 102.6);

	/* the extended client */
	in(s, &s->b[0], &cb, conn_b, sizeof(conn_b) - 1, 103.0);
	msg_init(&m, buf, sizeof(buf));
	netchan_header(&m, 1, true, 0, -1);
	write_serverdata(&m, true, false);
	write_playerinfo(&m, true, 300);
	write_wide_delta(&m);
	out(s, &s->b[1], &cb, buf, m.cursize, 103.1);
	msg_init(&m, buf, sizeof(buf));
	netchan_header(&m, 1, false, 1, 777);
	write_move(&m, 0);
	in(s, &s->b[0], &cb, buf, m.cursize, 103.2);

	/* not the server's */
	assert_true(capture_packet(s->cap, &x, &y, "dns?", 4, 103.3));
	s->records++;
	assert_int_equal(capture_close(s->cap), 0);
	s->cap = NULL;
}

static void check_tally(const struct qwcap_dir_stats *d, const struct tally *t)
{
	uint64_t sum = 0;

	assert_int_equal(d->packets, t->packets);
	assert_int_equal(d->bytes, t->bytes);
	assert_int_equal(d->min, t->min);
	assert_int_equal(d->max, t->max);
	for (int b = 0; b < QWCAP_BUCKETS; b++)
		sum += d->hist[b];
	assert_int_equal(sum, t->packets);
}

static void test_session_counts(void **state)
{
	struct qwcap_options opt = {0};
	struct qwcap_report r;
	struct session s;
	const struct qwcap_client *a, *b;
	const struct qwcap_dir_stats *d;
	char err[256];

	(void)state;
	write_session(&s, PORT_SERVER);
	assert_int_equal(qwcap_analyze(path, &opt, &r, err, sizeof(err)), 0);
	assert_int_equal(r.dlt, DLT_RAW);
	assert_int_equal(r.server_port, PORT_SERVER);
	assert_false(r.port_guessed);
	assert_int_equal(r.frames, (uint64_t)s.records);
	assert_int_equal(r.udp, (uint64_t)s.records);
	assert_int_equal(r.skipped, 0);
	assert_int_equal(r.other, 1);
	assert_int_equal(r.nclients, 2);
	assert_true(fabs(r.first - 100.0) < 1e-6 && fabs(r.last - 103.2) < 1e-6);

	a = &r.clients[0];
	assert_int_equal(ntohl(a->addr.ip), 0x0a000002);
	assert_int_equal(ntohs(a->addr.port), 27001);
	assert_int_equal(ntohl(a->server.ip), SERVER_IP);
	assert_int_equal(a->qport, 1234);
	assert_false(a->extended);
	assert_true(fabs(a->first - 100.0) < 1e-6 && fabs(a->last - 102.6) < 1e-6);

	d = &a->dir[QWCAP_C2S];
	check_tally(d, &s.a[0]);
	assert_int_equal(d->connectionless, 3);
	assert_int_equal(d->oob[QWCAP_OOB_GETCHALLENGE], 1);
	assert_int_equal(d->oob[QWCAP_OOB_CONNECT], 1);
	assert_int_equal(d->oob[QWCAP_OOB_PING], 1);
	assert_int_equal(d->netchan, 11);
	assert_int_equal(d->reliable, 1);
	assert_int_equal(d->bad, 1);
	assert_int_equal(d->cut, 0);
	assert_int_equal(d->msg[clc_move], 10);
	assert_int_equal(d->msg_bytes[clc_move], s.move_bytes);
	assert_int_equal(d->msg[clc_delta], 9);
	assert_int_equal(d->msg_bytes[clc_delta], 18);
	assert_int_equal(d->msg[clc_stringcmd], 1);
	assert_int_equal(d->msg_bytes[clc_stringcmd], 5);
	assert_int_equal(d->messages, 20);
	assert_int_equal(d->hist[0], 2);	/* the ping, the cut move (12) */

	d = &a->dir[QWCAP_S2C];
	check_tally(d, &s.a[1]);
	assert_int_equal(d->connectionless, 3);
	assert_int_equal(d->oob[QWCAP_OOB_CHALLENGE], 1);
	assert_int_equal(d->oob[QWCAP_OOB_ACCEPT], 1);
	assert_int_equal(d->oob[QWCAP_OOB_ACK], 1);
	assert_int_equal(d->netchan, 11);
	assert_int_equal(d->reliable, 1);
	assert_int_equal(d->bad, 1);
	assert_int_equal(d->msg[svc_serverdata], 1);
	assert_int_equal(d->msg[svc_stufftext], 1);
	assert_int_equal(d->msg[svc_playerinfo], 9);
	assert_int_equal(d->msg[svc_packetentities], 9);
	assert_int_equal(d->msg_bytes[svc_packetentities], 9 * 16);
	assert_int_equal(d->msg[svc_print], 3);
	assert_int_equal(d->msg_bytes[svc_print], s.print_bytes);
	assert_int_equal(d->msg[svc_nop], 1);
	assert_int_equal(d->msg[99], 0);
	assert_int_equal(d->messages, 1 + 1 + 9 + 9 + 3 + 1);

	b = &r.clients[1];
	assert_int_equal(ntohs(b->addr.port), 27005);
	assert_int_equal(b->qport, 777);
	assert_true(b->extended);
	check_tally(&b->dir[QWCAP_C2S], &s.b[0]);
	check_tally(&b->dir[QWCAP_S2C], &s.b[1]);
	d = &b->dir[QWCAP_S2C];
	assert_int_equal(d->bad, 0);
	assert_int_equal(d->msg[svc_serverdata], 1);
	assert_int_equal(d->msg[svcx_playerinfo], 1);
	assert_int_equal(d->msg[svcx_deltapacketentities], 1);
	assert_int_equal(d->msg_bytes[svcx_deltapacketentities], 1 + 1 + 2 + 2 + 1 + 1 + 2 + 2 + 2 + 2);
	assert_int_equal(b->dir[QWCAP_C2S].msg[clc_move], 1);

	/* totals: the two clients together */
	for (int k = 0; k < QWCAP_DIRS; k++) {
		const struct qwcap_dir_stats *t = &r.total[k];

		assert_int_equal(t->packets, s.a[k].packets + s.b[k].packets);
		assert_int_equal(t->bytes, s.a[k].bytes + s.b[k].bytes);
		assert_int_equal(t->bad, 1);
		assert_int_equal(t->min, s.a[k].min < s.b[k].min ? s.a[k].min : s.b[k].min);
	}
	assert_int_equal(r.total[QWCAP_C2S].msg[clc_move], 11);
	assert_true(fabs(qwcap_rate(a->dir[0].packets, a->last - a->first) -
			 14 / 2.6) < 1e-9);
	qwcap_report_free(&r);
}

static size_t count_char(const char *s, size_t n, char c)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += s[i] == c;
	return k;
}

static void test_session_output(void **state)
{
	struct qwcap_options opt = {0};
	struct qwcap_report r;
	struct session s;
	char err[256], *text = NULL, *line, *next;
	size_t size = 0, commas = 0;
	int rows = 0;
	FILE *f;

	(void)state;
	write_session(&s, PORT_SERVER);
	assert_int_equal(qwcap_analyze(path, &opt, &r, err, sizeof(err)), 0);

	f = open_memstream(&text, &size);
	assert_non_null(f);
	qwcap_print(&r, f);
	fclose(f);
	assert_non_null(strstr(text, "client 10.0.0.2:27001 qport 1234 |"));
	assert_non_null(strstr(text, "client 10.0.0.3:27005 qport 777 QWDX |"));
	assert_non_null(strstr(text, "clc_move 10 ("));
	assert_non_null(strstr(text, "svc_playerinfo 9 ("));
	assert_non_null(strstr(text, "svcx_deltapacketentities 1 ("));
	assert_non_null(strstr(text, "getchallenge 1"));
	assert_non_null(strstr(text, "size distribution"));
	assert_non_null(strstr(text, "1451+"));
	free(text);

	text = NULL;
	f = open_memstream(&text, &size);
	assert_non_null(f);
	qwcap_print_csv(&r, f);
	fclose(f);
	/* a header and 2 rows per client and for the totals, all as wide */
	for (line = text; *line; line = next) {
		size_t n;

		next = strchr(line, '\n');
		assert_non_null(next);
		n = (size_t)(next - line);
		next++;
		if (rows == 0) {
			commas = count_char(line, n, ',');
			assert_true(strncmp(line, "client,qport,", 13) == 0);
		} else {
			assert_int_equal(count_char(line, n, ','), commas);
		}
		rows++;
	}
	assert_int_equal(rows, 1 + 2 * 2 + 2);
	assert_non_null(strstr(text, "\n10.0.0.2:27001,1234,0,c2s,"));
	assert_non_null(strstr(text, "\nall,,0,s2c,"));
	free(text);
	qwcap_report_free(&r);
}

/* Without --server-port: 27500 if present, else the busiest port; a given
 * port wins. */
static void test_server_port(void **state)
{
	struct qwcap_options opt = {0};
	struct qwcap_report r;
	struct session s;
	char err[256];

	(void)state;
	write_session(&s, 26000);
	assert_int_equal(qwcap_analyze(path, &opt, &r, err, sizeof(err)), 0);
	assert_int_equal(r.server_port, 26000);
	assert_true(r.port_guessed);
	assert_int_equal(r.nclients, 2);
	assert_int_equal(r.clients[0].dir[QWCAP_C2S].msg[clc_move], 10);
	qwcap_report_free(&r);

	/* seen from the DNS port's side, everything else is "other" */
	opt.server_port = 53;
	assert_int_equal(qwcap_analyze(path, &opt, &r, err, sizeof(err)), 0);
	assert_int_equal(r.server_port, 53);
	assert_false(r.port_guessed);
	assert_int_equal(r.nclients, 1);
	assert_int_equal(r.other, (uint64_t)s.records - 1);
	qwcap_report_free(&r);

	assert_int_equal(qwcap_analyze("/nonexistent.pcap", &opt, &r, err,
				       sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent.pcap"));
	qwcap_report_free(&r);
}

/* ---- link types -------------------------------------------------------- */

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* an IPv4/UDP datagram with len bytes of payload at p; returns its size */
static size_t ip_udp(uint8_t *p, uint32_t sip, uint16_t sport, uint32_t dip,
		     uint16_t dport, const void *data, size_t len)
{
	uint32_t s = htonl(sip), d = htonl(dip);

	memset(p, 0, 28);
	p[0] = 0x45;
	put16(p + 2, (unsigned)(28 + len));
	p[8] = 64;
	p[9] = 17;
	memcpy(p + 12, &s, 4);
	memcpy(p + 16, &d, 4);
	put16(p + 20, sport);
	put16(p + 22, dport);
	put16(p + 24, (unsigned)(8 + len));
	memcpy(p + 28, data, len);
	return 28 + len;
}

/* the link header of dlt in front of an IPv4 packet; returns its size */
static size_t link_header(int dlt, uint8_t *p, unsigned ethertype)
{
	switch (dlt) {
	case DLT_EN10MB:
		memset(p, 0, 12);
		put16(p + 12, ethertype);
		return 14;
	case DLT_LINUX_SLL:
		memset(p, 0, 16);
		put16(p + 14, ethertype);
		return 16;
	case DLT_LINUX_SLL2:
		memset(p, 0, 20);
		put16(p, ethertype);
		return 20;
	case DLT_NULL:		/* host order, little-endian here */
		memset(p, 0, 4);
		p[0] = ethertype == 0x0800 ? 2 : 24;
		return 4;
	case DLT_LOOP:		/* network order */
		memset(p, 0, 4);
		p[3] = ethertype == 0x0800 ? 2 : 24;
		return 4;
	default:
		return 0;
	}
}

static void dump(pcap_dumper_t *pd, const uint8_t *frame, size_t len,
		 size_t caplen, double t)
{
	struct pcap_pkthdr h;

	h.ts.tv_sec = (time_t)t;
	h.ts.tv_usec = (suseconds_t)lround((t - floor(t)) * 1e6);
	h.len = (bpf_u_int32)len;
	h.caplen = (bpf_u_int32)caplen;
	pcap_dump((u_char *)pd, &h, frame);
}

/* two requests, two replies and a frame that is not IPv4, as tcpdump on
 * an interface of this link type would write them */
static void test_link_types(void **state)
{
	static const int dlts[] = {DLT_EN10MB, DLT_LINUX_SLL, DLT_LINUX_SLL2,
				   DLT_NULL, DLT_LOOP, DLT_RAW};
	uint8_t frame[256], payload[64];
	struct qwcap_options opt = {0};
	struct qwcap_report r;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(dlts) / sizeof(dlts[0]); i++) {
		pcap_t *dead = pcap_open_dead(dlts[i], 65535);
		pcap_dumper_t *pd = pcap_dump_open(dead, path);
		struct msg_buf m;
		size_t n;

		assert_non_null(pd);
		for (int k = 0; k < 2; k++) {
			msg_init(&m, payload, sizeof(payload));
			netchan_header(&m, (uint32_t)k + 1, false, (uint32_t)k, 99);
			write_move(&m, k);
			n = link_header(dlts[i], frame, 0x0800);
			n += ip_udp(frame + n, 0x7f000001, 40000, 0x7f000001, 27500,
				    payload, m.cursize);
			dump(pd, frame, n, n, 5.0 + k);

			msg_init(&m, payload, sizeof(payload));
			netchan_header(&m, (uint32_t)k + 1, false, (uint32_t)k + 1, -1);
			write_entities(&m);
			n = link_header(dlts[i], frame, 0x0800);
			n += ip_udp(frame + n, 0x7f000001, 27500, 0x7f000001, 40000,
				    payload, m.cursize);
			dump(pd, frame, n, n, 5.01 + k);
		}
		/* ARP (or an unknown family, or IPv6 for raw IP) */
		n = link_header(dlts[i], frame, 0x0806);
		memset(frame + n, 0x60, 40);
		dump(pd, frame, n + 40, n + 40, 6.0);
		pcap_dump_close(pd);
		pcap_close(dead);

		assert_int_equal(qwcap_analyze(path, &opt, &r, err, sizeof(err)), 0);
		assert_int_equal(r.dlt, dlts[i]);
		assert_int_equal(r.frames, 5);
		assert_int_equal(r.skipped, 1);
		assert_int_equal(r.nclients, 1);
		assert_int_equal(r.clients[0].qport, 99);
		assert_int_equal(r.clients[0].dir[QWCAP_C2S].msg[clc_move], 2);
		assert_int_equal(r.clients[0].dir[QWCAP_S2C].msg[svc_packetentities], 2);
		assert_int_equal(r.total[QWCAP_C2S].bad + r.total[QWCAP_S2C].bad, 0);
		qwcap_report_free(&r);
	}
}

/* A capture with a short snap length: sizes from the headers, the
 * messages not walked, nothing counted bad. */
static void test_snaplen_cut(void **state)
{
	uint8_t frame[600], payload[500];
	struct qwcap_options opt = {0};
	struct qwcap_report r;
	pcap_t *dead = pcap_open_dead(DLT_RAW, 68);
	pcap_dumper_t *pd = pcap_dump_open(dead, path);
	struct msg_buf m;
	char err[256];
	size_t n;

	(void)state;
	assert_non_null(pd);
	msg_init(&m, payload, sizeof(payload));
	netchan_header(&m, 5, true, 4, -1);
	for (int k = 0; k < 20; k++)
		write_entities(&m);
	n = ip_udp(frame, 0x0a000001, 27500, 0x0a000002, 27001, payload, m.cursize);
	dump(pd, frame, n, 68, 1.0);
	/* a connectionless reply cut the same way */
	memset(payload, 'x', 300);
	memcpy(payload, "\xff\xff\xff\xffn", 5);
	n = ip_udp(frame, 0x0a000001, 27500, 0x0a000002, 27001, payload, 300);
	dump(pd, frame, n, 68, 1.5);
	pcap_dump_close(pd);
	pcap_close(dead);

	assert_int_equal(qwcap_analyze(path, &opt, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nclients, 1);
	assert_int_equal(r.total[QWCAP_S2C].packets, 2);
	assert_int_equal(r.total[QWCAP_S2C].bytes, m.cursize + 300);
	assert_int_equal(r.total[QWCAP_S2C].max, m.cursize);
	assert_int_equal(r.total[QWCAP_S2C].cut, 2);
	assert_int_equal(r.total[QWCAP_S2C].netchan, 1);
	assert_int_equal(r.total[QWCAP_S2C].reliable, 1);
	assert_int_equal(r.total[QWCAP_S2C].oob[QWCAP_OOB_PRINT], 1);
	assert_int_equal(r.total[QWCAP_S2C].messages, 0);
	assert_int_equal(r.total[QWCAP_S2C].bad, 0);
	qwcap_report_free(&r);
}

static void test_frame_checks(void **state)
{
	uint8_t f[128];
	struct qwt_udp u;
	size_t n;

	(void)state;
	n = ip_udp(f, 1, 1000, 2, 2000, "abcdef", 6);
	assert_true(qwt_frame_udp(DLT_RAW, f, n, &u));
	assert_int_equal(ntohs(u.src.port), 1000);
	assert_int_equal(ntohs(u.dst.port), 2000);
	assert_int_equal(u.len, 6);
	assert_int_equal(u.caplen, 6);
	assert_memory_equal(u.data, "abcdef", 6);
	assert_true(qwt_frame_udp(DLT_RAW, f, n - 2, &u));	/* cut */
	assert_int_equal(u.len, 6);
	assert_int_equal(u.caplen, 4);
	assert_false(qwt_frame_udp(DLT_RAW, f, 27, &u));	/* no UDP header */
	assert_false(qwt_frame_udp(DLT_RAW, f, 0, &u));
	assert_false(qwt_frame_udp(12345, f, n, &u));		/* unknown link */

	f[6] = 0x20;						/* more fragments */
	assert_false(qwt_frame_udp(DLT_RAW, f, n, &u));
	f[6] = 0;
	f[7] = 5;						/* a later fragment */
	assert_false(qwt_frame_udp(DLT_RAW, f, n, &u));
	f[7] = 0;
	f[9] = 6;						/* TCP */
	assert_false(qwt_frame_udp(DLT_RAW, f, n, &u));
	f[9] = 17;
	put16(f + 24, 40);					/* UDP past IP */
	assert_false(qwt_frame_udp(DLT_RAW, f, n, &u));
	put16(f + 24, 7);					/* shorter than its header */
	assert_false(qwt_frame_udp(DLT_RAW, f, n, &u));
	put16(f + 24, 14);
	f[0] = 0x44;						/* IHL 16 */
	assert_false(qwt_frame_udp(DLT_RAW, f, n, &u));
	f[0] = 0x46;						/* options: the UDP header moves */
	assert_false(qwt_frame_udp(DLT_RAW, f, n, &u));	/* and reads a bad length */
	f[0] = 0x65;
	assert_false(qwt_frame_udp(DLT_RAW, f, n, &u));	/* IPv6 */

	/* Ethernet with two VLAN tags */
	memset(f, 0, 12);
	put16(f + 12, 0x88a8);
	put16(f + 16, 0x8100);
	put16(f + 20, 0x0800);
	n = 22 + ip_udp(f + 22, 1, 27500, 2, 3, "q", 1);
	assert_true(qwt_frame_udp(DLT_EN10MB, f, n, &u));
	assert_int_equal(u.len, 1);
	assert_false(qwt_frame_udp(DLT_EN10MB, f, 17, &u));	/* tags cut */
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

/* Random bytes never make the analyser read outside a datagram (the
 * sanitizer build checks), and the books always balance. */
static void test_random_datagrams(void **state)
{
	struct qwcap_report r;
	enum { N = 20000 };
	static const int dlts[] = {DLT_EN10MB, DLT_LINUX_SLL, DLT_LINUX_SLL2,
				   DLT_NULL, DLT_LOOP, DLT_RAW};

	(void)state;
	qwcap_report_init(&r, 27500, 16);
	for (int i = 0; i < N; i++) {
		size_t len = rng() % 120;
		uint8_t *p = malloc(len ? len : 1);	/* exact size: ASan sees overreads */
		struct qwt_udp u;

		assert_non_null(p);
		for (size_t k = 0; k < len; k++)
			p[k] = (uint8_t)rng();
		/* half of them with a plausible netchan header */
		if (len >= 10 && (rng() & 1))
			memset(p + 4, 0, 4);
		if (len >= 1 && rng() % 8 == 0)
			p[len > 10 ? 10 : 0] = (uint8_t)(rng() % 8);	/* a real clc */
		u.src = addr(0x0a000000 + rng() % 40, 27000 + (uint16_t)(rng() % 3));
		u.dst = addr(0x0a000001, 27500);
		if (rng() & 1) {
			struct net_addr t = u.src;

			u.src = u.dst;
			u.dst = t;
		}
		u.data = p;
		u.len = len;
		u.caplen = rng() % 4 ? len : len / 2;
		qwcap_datagram(&r, &u, (double)i);

		/* and the same bytes as a frame of some link type */
		(void)qwt_frame_udp(dlts[rng() % 6], p, len, &u);
		free(p);
	}
	assert_int_equal(r.nclients, 16);
	assert_int_equal(r.total[0].packets + r.total[1].packets + r.over_limit, N);
	for (int d = 0; d < QWCAP_DIRS; d++) {
		const struct qwcap_dir_stats *t = &r.total[d];
		uint64_t sum = 0, msgs = 0;

		for (int b = 0; b < QWCAP_BUCKETS; b++)
			sum += t->hist[b];
		for (int c = 0; c < 256; c++)
			msgs += t->msg[c];
		assert_int_equal(sum, t->packets);
		assert_int_equal(msgs, t->messages);
		assert_true(t->connectionless + t->netchan <= t->packets);
		assert_true(t->reliable <= t->netchan);
		assert_true(t->bad > 0);
	}
	qwcap_report_free(&r);
}

/* a client that took FTE's chunked downloads: its serverdata starts with
 * FTE's tag and flags, and its svc_download messages are chunked (a
 * start, a chunk in a reply); a chunk out of band is a print.  Misread as
 * protocol 28, every one of them would be bad. */
static void test_fte_session(void **state)
{
	static const char conn[] = "\xff\xff\xff\xff"
		"connect 28 555 12345 \"\\name\\c\"\n0x58455446 0x20000000\n";
	struct net_addr sv = addr(SERVER_IP, PORT_SERVER), ca = addr(0x0a000004, 27009);
	struct qwcap_options opt = {0};
	struct qwcap_report r;
	const struct qwcap_dir_stats *d;
	uint8_t buf[1500];
	struct msg_buf m;
	struct capture *cap;
	char err[256];

	(void)state;
	cap = capture_open(path, 0, &sv, NULL, err, sizeof(err));
	assert_non_null(cap);
	capture_set_time_offset(cap, 0);
	assert_true(capture_in(cap, &ca, conn, sizeof(conn) - 1, 1.0));
	msg_init(&m, buf, sizeof(buf));
	netchan_header(&m, 1, true, 0, -1);
	write_serverdata(&m, false, true);
	msg_write_byte(&m, svc_download);
	msg_write_long(&m, -1);
	msg_write_long(&m, 5000);
	msg_write_string(&m, "maps/x.bsp");
	assert_true(capture_out(cap, &ca, buf, m.cursize, 1.1));
	msg_init(&m, buf, sizeof(buf));
	netchan_header(&m, 2, false, 1, -1);
	msg_write_byte(&m, svc_download);
	msg_write_long(&m, 3);
	for (int k = 0; k < FTE_CHUNK; k++)
		msg_write_byte(&m, k);
	msg_write_byte(&m, svc_nop);
	assert_true(capture_out(cap, &ca, buf, m.cursize, 1.2));
	msg_init(&m, buf, sizeof(buf));
	msg_write_long(&m, -1);
	msg_write_byte(&m, A2C_PRINT);
	msg_write_data(&m, FTE_CHUNK_OOB_TAG, sizeof(FTE_CHUNK_OOB_TAG) - 1);
	msg_write_long(&m, 1);
	msg_write_byte(&m, svc_download);
	msg_write_long(&m, 4);
	for (int k = 0; k < FTE_CHUNK; k++)
		msg_write_byte(&m, k);
	assert_true(capture_out(cap, &ca, buf, m.cursize, 1.3));
	assert_int_equal(capture_close(cap), 0);

	assert_int_equal(qwcap_analyze(path, &opt, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nclients, 1);
	assert_int_equal(r.clients[0].qport, 555);
	assert_int_equal(r.clients[0].fte, FTE_PEXT_CHUNKEDDOWNLOADS);
	assert_false(r.clients[0].extended);
	d = &r.clients[0].dir[QWCAP_S2C];
	assert_int_equal(d->bad, 0);
	assert_int_equal(d->msg[svc_serverdata], 1);
	assert_int_equal(d->msg[svc_download], 2);
	assert_int_equal(d->msg_bytes[svc_download], (1 + 4 + 4 + 11) + (1 + 4 + FTE_CHUNK));
	assert_int_equal(d->msg[svc_nop], 1);
	assert_int_equal(d->oob[QWCAP_OOB_PRINT], 1);
	qwcap_report_free(&r);
}

static const struct CMUnitTest qwcap_tests[] = {
	cmocka_unit_test_setup_teardown(test_session_counts, setup, teardown),
	cmocka_unit_test_setup_teardown(test_session_output, setup, teardown),
	cmocka_unit_test_setup_teardown(test_fte_session, setup, teardown),
	cmocka_unit_test_setup_teardown(test_server_port, setup, teardown),
	cmocka_unit_test_setup_teardown(test_link_types, setup, teardown),
	cmocka_unit_test_setup_teardown(test_snaplen_cut, setup, teardown),
	cmocka_unit_test(test_frame_checks),
	cmocka_unit_test(test_random_datagrams),
};

QWD_TEST_GROUP(qwcap, qwcap_tests, NULL, NULL)
