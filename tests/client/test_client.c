/*
 * test_client.c -- the client library against a scripted server, no
 * sockets: the connect dialogue, the signon commands it answers with, the
 * clc_move layout and checksum, packet-entity deltas, and bad input.
 *
 * Design note: the "server" here is a netchan of the server side plus
 * hand-built svc messages, so each test states exactly what went on the
 * wire; the client's packets are read back with the same netchan and the
 * common msg_* readers the real server uses, so a layout slip on either
 * side shows as a failed assertion.
 */
#include "../harness.h"

#include <qwd/client.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct script {
	struct qwc c;
	struct netchan sv;	/* the server's end */
	double now;
	/* what the client's last packets carried */
	char cmds[16][128];
	int ncmds;
	bool had_move, had_delta;
	int delta;
	uint8_t checksum, want_checksum;
	struct usercmd moves[3];
};

static int setup(void **state)
{
	struct script *s = calloc(1, sizeof(*s));
	struct qwc_options o = {0};

	if (!s)
		return -1;
	net_addr_parse("127.0.0.1:27500", 0, &o.server);
	o.qport = 4321;
	o.track_entities = true;
	o.checksum2 = 0xfffffffeu;	/* prespawn must say -2 */
	o.extension = false;
	if (qwc_init(&s->c, &o) != 0)
		return -1;
	s->now = 100.0;
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct script *s = *state;

	qwc_free(&s->c);
	free(s);
	return 0;
}

static void feed_oob(struct script *s, const char *text)
{
	uint8_t buf[512];
	size_t n = qwc_build_oob(buf, sizeof(buf), text);

	qwc_receive(&s->c, buf, n, s->now);
}

/* one server packet with this unreliable payload (and any queued
 * reliable data in s->sv.message) */
static void feed(struct script *s, const void *data, size_t len)
{
	uint8_t pkt[NETCHAN_MAX_PACKET];
	size_t n = netchan_transmit(&s->sv, data, len, s->now, pkt, sizeof(pkt));

	assert_true(n > 0);
	qwc_receive(&s->c, pkt, n, s->now);
}

/* take the client's next packet and read it as the server would */
static void pull(struct script *s)
{
	static const struct usercmd null_cmd;
	uint8_t pkt[NETCHAN_MAX_PACKET];
	struct msg_buf m;
	size_t n;

	s->now += 0.02;
	n = qwc_packet(&s->c, s->now, true, pkt, sizeof(pkt));
	assert_true(n > 0);
	msg_init_read(&m, pkt, n);
	assert_true(netchan_process(&s->sv, &m, s->now));
	s->had_move = s->had_delta = false;
	while (msg_read_remaining(&m) > 0) {
		int op = msg_read_byte(&m);

		if (op == clc_stringcmd) {
			assert_true(s->ncmds < 16);
			msg_read_string(&m, s->cmds[s->ncmds++], 128);
		} else if (op == clc_move) {
			size_t start = m.readpos;

			s->had_move = true;
			s->checksum = (uint8_t)msg_read_byte(&m);
			msg_read_byte(&m);
			assert_true(msg_read_delta_usercmd(&m, &null_cmd, &s->moves[0]));
			assert_true(msg_read_delta_usercmd(&m, &s->moves[0], &s->moves[1]));
			assert_true(msg_read_delta_usercmd(&m, &s->moves[1], &s->moves[2]));
			s->want_checksum = com_block_sequence_crc_byte(
				pkt + start + 1, m.readpos - start - 1,
				s->sv.incoming_sequence);
		} else if (op == clc_delta) {
			s->had_delta = true;
			s->delta = msg_read_byte(&m);
		} else {
			fail_msg("unexpected clc %d", op);
		}
		assert_false(m.badread);
	}
}

static bool sent(const struct script *s, const char *cmd)
{
	for (int i = 0; i < s->ncmds; i++)
		if (strcmp(s->cmds[i], cmd) == 0)
			return true;
	return false;
}

/* sent(), with the spawn count put into the text */
static bool sent_sc(const struct script *s, const char *fmt, int sc)
{
	char text[128];

	snprintf(text, sizeof(text), fmt, sc);
	return sent(s, text);
}

/* connect through the dialogue to a netchan */
static void connect_client(struct script *s, bool extension)
{
	uint8_t pkt[NETCHAN_MAX_PACKET];
	size_t n;

	s->c.opt.extension = extension;
	qwc_connect(&s->c, s->now);
	n = qwc_packet(&s->c, s->now, false, pkt, sizeof(pkt));
	assert_int_equal(n, 4 + strlen("getchallenge\n"));
	assert_memory_equal(pkt + 4, "getchallenge\n", n - 4);
	/* no retry before the resend interval */
	assert_int_equal(qwc_packet(&s->c, s->now + 0.1, false, pkt, sizeof(pkt)), 0);
	feed_oob(s, "c12345");
	assert_int_equal(s->c.state, QWC_CONNECTING);
	n = qwc_packet(&s->c, s->now, false, pkt, sizeof(pkt));
	assert_true(n > 4);
	pkt[n] = '\0';
	assert_non_null(strstr((char *)pkt + 4, "connect 28 4321 12345 \"\\name\\"));
	if (extension)
		assert_non_null(strstr((char *)pkt + 4, "\"\nQWDX 1\n"));
	else
		assert_null(strstr((char *)pkt + 4, "QWDX"));
	feed_oob(s, "j");
	assert_int_equal(s->c.state, QWC_CONNECTED);
	netchan_setup(&s->sv, NETCHAN_SERVER, &s->c.opt.server, 4321, s->now);
	pull(s);
	assert_true(sent(s, "new"));
}

static void write_serverdata(struct msg_buf *m, int sc, int slot, bool wide)
{
	msg_write_byte(m, svc_serverdata);
	msg_write_long(m, PROTOCOL_VERSION);
	msg_write_long(m, sc);
	msg_write_string(m, "qw");
	if (wide)
		msg_write_short(m, slot);
	else
		msg_write_byte(m, slot);
	msg_write_string(m, "The Test Level");
	for (int i = 0; i < 10; i++)
		msg_write_float(m, (float)i);
	msg_write_byte(m, svc_cdtrack);
	msg_write_byte(m, 0);
	msg_write_byte(m, svc_stufftext);
	msg_write_string(m, "fullserverinfo \"\\map\\test\"\n");
}

/* serverdata .. begin, as the server drives it */
static void signon(struct script *s, int sc)
{
	uint8_t buf[1400];
	struct msg_buf m;

	msg_init(&m, buf, sizeof(buf));
	write_serverdata(&m, sc, 3, s->c.opt.extension);
	feed(s, m.data, m.cursize);
	assert_int_equal(s->c.servercount, sc);
	assert_int_equal(s->c.playernum, 3);
	assert_string_equal(s->c.serverinfo, "\\map\\test");
	pull(s);
	assert_true(sent_sc(s, "soundlist %d 0", sc));

	/* two pages of sounds: the first says "continue from 2" */
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_soundlist);
	msg_write_byte(&m, 0);
	msg_write_string(&m, "a.wav");
	msg_write_string(&m, "b.wav");
	msg_write_byte(&m, 0);
	msg_write_byte(&m, 2);
	feed(s, m.data, m.cursize);
	s->ncmds = 0;
	pull(s);
	assert_int_equal(s->ncmds, 1);
	assert_true(sent_sc(s, "soundlist %d 2", sc));
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_soundlist);
	msg_write_byte(&m, 2);
	msg_write_string(&m, "c.wav");
	msg_write_byte(&m, 0);
	msg_write_byte(&m, 0);
	feed(s, m.data, m.cursize);
	s->ncmds = 0;
	pull(s);
	assert_int_equal(s->c.sounds, 3);
	assert_true(sent_sc(s, "modellist %d 0", sc));

	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_modellist);
	msg_write_byte(&m, 0);
	msg_write_string(&m, "maps/test.bsp");
	msg_write_string(&m, "progs/player.mdl");
	msg_write_byte(&m, 0);
	msg_write_byte(&m, 0);
	feed(s, m.data, m.cursize);
	s->ncmds = 0;
	pull(s);
	assert_string_equal(s->c.mapmodel, "maps/test.bsp");
	assert_true(sent_sc(s, "prespawn %d 0 -2", sc));

	/* a baseline, then the stuffed steps, split over two messages and
	 * with a quoted ';' that must not split */
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_spawnbaseline);
	msg_write_short(&m, 40);
	msg_write_byte(&m, 2);
	msg_write_byte(&m, 0);
	msg_write_byte(&m, 0);
	msg_write_byte(&m, 0);
	for (int k = 0; k < 3; k++) {
		msg_write_short(&m, 80 * (k + 1));
		msg_write_byte(&m, 0);
	}
	msg_write_byte(&m, svc_stufftext);
	msg_write_string(&m, "cmd spawn 7 0;cmd say \"a;b\"; echo hi");
	msg_write_byte(&m, svc_stufftext);
	msg_write_string(&m, "\nskins\n");
	feed(s, m.data, m.cursize);
	s->ncmds = 0;
	pull(s);
	assert_true(sent(s, "spawn 7 0"));
	assert_true(sent(s, "say \"a;b\""));
	assert_true(sent_sc(s, "begin %d", sc));
	assert_int_equal(s->c.state, QWC_SPAWNED);
}

static void test_connect_and_signon(void **state)
{
	struct script *s = *state;

	connect_client(s, false);
	signon(s, 7);
	assert_false(s->c.extended);
	assert_int_equal(s->c.stats.signons, 1);
	for (int k = 0; k < QWC_BAD_KINDS; k++)
		assert_int_equal(s->c.stats.bad[k], 0);
}

static void test_refused(void **state)
{
	struct script *s = *state;
	uint8_t pkt[NETCHAN_MAX_PACKET];

	qwc_connect(&s->c, s->now);
	qwc_packet(&s->c, s->now, false, pkt, sizeof(pkt));
	feed_oob(s, "c99");
	qwc_packet(&s->c, s->now, false, pkt, sizeof(pkt));
	feed_oob(s, "n\nserver is full\n");
	assert_int_equal(s->c.state, QWC_REFUSED);
	assert_non_null(strstr(s->c.reason, "server is full"));
	assert_int_equal(qwc_packet(&s->c, s->now + 5, true, pkt, sizeof(pkt)), 0);
}

static void write_playerinfo(struct msg_buf *m, int slot, bool wide, float x)
{
	if (wide) {
		msg_write_byte(m, svcx_playerinfo);
		msg_write_short(m, slot);
	} else {
		msg_write_byte(m, svc_playerinfo);
		msg_write_byte(m, slot);
	}
	msg_write_short(m, PF_VELOCITY1 | PF_MODEL);
	msg_write_coord(m, x);
	msg_write_coord(m, 16);
	msg_write_coord(m, 24);
	msg_write_byte(m, 0);	/* frame */
	msg_write_short(m, 320);
	msg_write_byte(m, 5);
}

static void test_moves_and_checksum(void **state)
{
	struct script *s = *state;
	uint8_t buf[256];
	struct msg_buf m;

	connect_client(s, false);
	signon(s, 7);
	s->c.cmd.forwardmove = 400;
	s->c.cmd.angles[1] = 90;
	for (int i = 0; i < 3; i++) {
		pull(s);
		assert_true(s->had_move);
		assert_int_equal(s->checksum, s->want_checksum);
	}
	assert_int_equal(s->moves[2].forwardmove, 400);
	assert_int_equal(s->moves[0].forwardmove, 400);
	assert_true(s->moves[2].msec > 0);
	assert_false(s->had_delta);	/* no valid frame yet */

	/* a reply with our own player and a full entity list */
	msg_init(&m, buf, sizeof(buf));
	write_playerinfo(&m, 3, false, 100);
	msg_write_byte(&m, svc_packetentities);
	msg_write_short(&m, 40);	/* unchanged from the baseline */
	msg_write_short(&m, 0);
	feed(s, m.data, m.cursize);
	assert_int_equal(s->c.state, QWC_ACTIVE);
	assert_true(s->c.self_seen);
	assert_true(s->c.self_origin[0] == 100.0f);
	assert_non_null(qwc_current_frame(&s->c));
	assert_int_equal(qwc_current_frame(&s->c)->num, 1);
	assert_int_equal(qwc_current_frame(&s->c)->ents[0].origin[2], 240);
	pull(s);
	assert_true(s->had_delta);
	assert_int_equal(s->delta, (int)(s->sv.outgoing_sequence - 1) & 0xff);
	assert_int_equal(s->checksum, s->want_checksum);
	/* the reply acknowledged a request: response time bookkeeping */
	assert_true(s->c.stats.acks > 0);
}

static void test_entity_deltas(void **state)
{
	struct script *s = *state;
	uint8_t buf[256];
	struct msg_buf m;
	const struct qwc_entity_frame *fr;
	uint32_t base;

	connect_client(s, false);
	signon(s, 7);
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_packetentities);
	msg_write_short(&m, 40);
	msg_write_short(&m, 41 | U_ORIGIN1);	/* no baseline: from zero */
	msg_write_short(&m, 8 * 7);
	msg_write_short(&m, 0);
	base = s->sv.outgoing_sequence;
	feed(s, m.data, m.cursize);
	fr = qwc_current_frame(&s->c);
	assert_non_null(fr);
	assert_int_equal(fr->num, 2);
	assert_int_equal(fr->ents[1].number, 41);
	assert_int_equal(fr->ents[1].origin[0], 56);

	/* delta: 40 removed, 41 moved and re-skinned (more bits), 45 new */
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_deltapacketentities);
	msg_write_byte(&m, (int)(base & 0xff));
	msg_write_short(&m, 40 | U_REMOVE);
	msg_write_short(&m, 41 | U_ORIGIN2 | U_MOREBITS);
	msg_write_byte(&m, U_SKIN);
	msg_write_byte(&m, 4);
	msg_write_short(&m, -8);
	msg_write_short(&m, 45);
	msg_write_short(&m, 0);
	feed(s, m.data, m.cursize);
	fr = qwc_current_frame(&s->c);
	assert_non_null(fr);
	assert_int_equal(fr->num, 2);
	assert_int_equal(fr->ents[0].number, 41);
	assert_int_equal(fr->ents[0].origin[0], 56);
	assert_int_equal(fr->ents[0].origin[1], -8);
	assert_int_equal(fr->ents[0].skinnum, 4);
	assert_int_equal(fr->ents[1].number, 45);
	for (int k = 0; k < QWC_BAD_KINDS; k++)
		assert_int_equal(s->c.stats.bad[k], 0);

	/* a delta from a frame never received: counted, full update asked */
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_deltapacketentities);
	msg_write_byte(&m, (int)((base + 200) & 0xff));
	msg_write_short(&m, 0);
	feed(s, m.data, m.cursize);
	assert_int_equal(s->c.stats.bad[QWC_BAD_DELTA], 1);
	assert_null(qwc_current_frame(&s->c));
	pull(s);
	assert_false(s->had_delta);
}

/* without entity tracking the client still parses lists and asks for
 * deltas, so a load generator loads the server as real clients do */
static void test_untracked_deltas(void **state)
{
	struct script *s = *state;
	struct qwc_options o = s->c.opt;
	uint8_t buf[64];
	struct msg_buf m;
	uint32_t base;

	qwc_free(&s->c);
	o.track_entities = false;
	assert_int_equal(qwc_init(&s->c, &o), 0);
	connect_client(s, false);
	signon(s, 7);
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_packetentities);
	msg_write_short(&m, 41 | U_ORIGIN1);
	msg_write_short(&m, 8);
	msg_write_short(&m, 0);
	base = s->sv.outgoing_sequence;
	feed(s, m.data, m.cursize);
	assert_null(qwc_current_frame(&s->c));
	pull(s);
	assert_true(s->had_delta);
	assert_int_equal(s->delta, (int)(base & 0xff));
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_deltapacketentities);
	msg_write_byte(&m, (int)(base & 0xff));
	msg_write_short(&m, 41 | U_REMOVE);
	msg_write_short(&m, 0);
	feed(s, m.data, m.cursize);
	pull(s);
	assert_true(s->had_delta);
	assert_int_equal(s->delta, (int)((base + 1) & 0xff));
	for (int k = 0; k < QWC_BAD_KINDS; k++)
		assert_int_equal(s->c.stats.bad[k], 0);
}

static void test_extension_messages(void **state)
{
	struct script *s = *state;
	uint8_t buf[512];
	struct msg_buf m;

	connect_client(s, true);
	signon(s, 7);
	assert_true(s->c.extended);
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svcx_updateuserinfo);
	msg_write_short(&m, 40);
	msg_write_long(&m, 77);
	msg_write_string(&m, "\\name\\far");
	msg_write_byte(&m, svcx_updatefrags);
	msg_write_short(&m, 40);
	msg_write_short(&m, -3);
	write_playerinfo(&m, 40, true, 8);
	write_playerinfo(&m, 3, true, 16);
	msg_write_byte(&m, svcx_packetentities);
	msg_write_short(&m, U_ORIGIN1);
	msg_write_short(&m, 600);
	msg_write_short(&m, 80);
	msg_write_short(&m, 0);
	feed(s, m.data, m.cursize);
	assert_string_equal(s->c.players[40].name, "far");
	assert_int_equal(s->c.players[40].frags, -3);
	assert_int_equal(s->c.players[40].seen_count, 1);
	assert_int_equal(s->c.num_seen, 2);
	assert_int_equal(s->c.state, QWC_ACTIVE);
	assert_non_null(qwc_current_frame(&s->c));
	assert_int_equal(qwc_current_frame(&s->c)->ents[0].number, 600);
	for (int k = 0; k < QWC_BAD_KINDS; k++)
		assert_int_equal(s->c.stats.bad[k], 0);
}

/* every prefix of a valid reply, and noise: no crash, bad input counted */
static void test_bad_input(void **state)
{
	struct script *s = *state;
	uint8_t buf[512], noise[600];
	struct msg_buf m;
	uint64_t bad_before;
	uint32_t x = 12345;

	connect_client(s, false);
	signon(s, 7);
	msg_init(&m, buf, sizeof(buf));
	write_playerinfo(&m, 3, false, 1);
	msg_write_byte(&m, svc_sound);
	msg_write_short(&m, 1 | (1 << 15)	/* SND_VOLUME */);
	msg_write_byte(&m, 255);
	msg_write_byte(&m, 1);
	for (int k = 0; k < 3; k++)
		msg_write_coord(&m, 0);
	msg_write_byte(&m, svc_temp_entity);
	msg_write_byte(&m, 5);	/* lightning: entity, start, end */
	msg_write_short(&m, 1);
	for (int k = 0; k < 6; k++)
		msg_write_coord(&m, 0);
	msg_write_byte(&m, svc_nails);
	msg_write_byte(&m, 1);
	msg_write_data(&m, "\0\0\0\0\0\0", 6);
	msg_write_byte(&m, svc_updateuserinfo);
	msg_write_byte(&m, 2);
	msg_write_long(&m, 9);
	msg_write_string(&m, "\\name\\x");
	msg_write_byte(&m, svc_packetentities);
	msg_write_short(&m, 40 | U_MOREBITS | U_ORIGIN1);
	msg_write_byte(&m, U_MODEL);
	msg_write_byte(&m, 3);
	msg_write_short(&m, 8);
	msg_write_short(&m, 0);
	feed(s, m.data, m.cursize);
	for (int k = 0; k < QWC_BAD_KINDS; k++)
		assert_int_equal(s->c.stats.bad[k], 0);
	assert_string_equal(s->c.players[2].name, "x");

	bad_before = s->c.stats.bad[QWC_BAD_TRUNCATED];
	for (size_t cut = 1; cut < m.cursize; cut++)
		feed(s, m.data, cut);
	assert_true(s->c.stats.bad[QWC_BAD_TRUNCATED] > bad_before);

	/* each short stat, print and stufftext is counted, once */
	{
		static const uint8_t stat_cut[] = {svc_updatestat, 3};
		static const uint8_t print_cut[] = {svc_print, 2, 'h', 'i'};
		static const uint8_t stuff_cut[] = {svc_stufftext, 'c', 'm'};

		bad_before = s->c.stats.bad[QWC_BAD_TRUNCATED];
		feed(s, stat_cut, sizeof(stat_cut));
		assert_int_equal(s->c.stats.bad[QWC_BAD_TRUNCATED], bad_before + 1);
		feed(s, print_cut, sizeof(print_cut));
		assert_int_equal(s->c.stats.bad[QWC_BAD_TRUNCATED], bad_before + 2);
		feed(s, stuff_cut, sizeof(stuff_cut));
		assert_int_equal(s->c.stats.bad[QWC_BAD_TRUNCATED], bad_before + 3);
	}

	/* a player number out of range for protocol 28 */
	msg_init(&m, buf, sizeof(buf));
	write_playerinfo(&m, 200, false, 1);
	bad_before = s->c.stats.bad[QWC_BAD_RANGE];
	feed(s, m.data, m.cursize);
	assert_int_equal(s->c.stats.bad[QWC_BAD_RANGE], bad_before + 1);
	/* an unknown svc byte stops the parse and is counted */
	{
		uint8_t b = 150;

		feed(s, &b, 1);
		assert_int_equal(s->c.stats.bad[QWC_BAD_SVC], 1);
	}
	/* noise, as payloads and as whole datagrams */
	for (int round = 0; round < 2000; round++) {
		size_t len = 1 + round % sizeof(noise);

		for (size_t i = 0; i < len; i++) {
			x = x * 1103515245u + 12345u;
			noise[i] = (uint8_t)(x >> 16);
		}
		if (round & 1)
			feed(s, noise, len > 1400 ? 1400 : len);
		else
			qwc_receive(&s->c, noise, len, s->now);
	}
	/* noise holds svc_disconnect bytes: the client ends up dropped,
	 * which is the right answer, never a crash */
	assert_true(s->c.stats.bad[QWC_BAD_SVC] > 1);
}

static void test_map_change_restart(void **state)
{
	struct script *s = *state;
	uint8_t buf[64];
	struct msg_buf m;

	connect_client(s, false);
	signon(s, 7);
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_stufftext);
	msg_write_string(&m, "changing\n");
	msg_write_byte(&m, svc_stufftext);
	msg_write_string(&m, "reconnect\n");
	feed(s, m.data, m.cursize);
	assert_int_equal(s->c.state, QWC_CONNECTED);
	s->ncmds = 0;
	pull(s);
	assert_int_equal(s->ncmds, 1);
	assert_true(sent(s, "new"));
	signon(s, 8);
	assert_int_equal(s->c.stats.signons, 2);
}

/* a chunk of the scripted file: byte i of the file is i * 7 */
static void write_chunk(struct msg_buf *m, int32_t chunk)
{
	msg_write_byte(m, svc_download);
	msg_write_long(m, chunk);
	for (int i = 0; i < FTE_CHUNK; i++)
		msg_write_byte(m, (chunk * FTE_CHUNK + i) * 7);
}

/* the same chunk out of band, with a download number */
static void feed_oob_chunk(struct script *s, int32_t number, int32_t chunk,
			   size_t cut)
{
	uint8_t buf[NET_MAX_UDP_PACKET];
	struct msg_buf m;

	msg_init(&m, buf, sizeof(buf));
	msg_write_long(&m, -1);
	msg_write_byte(&m, A2C_PRINT);
	msg_write_data(&m, FTE_CHUNK_OOB_TAG, sizeof(FTE_CHUNK_OOB_TAG) - 1);
	msg_write_long(&m, number);
	write_chunk(&m, chunk);
	qwc_receive(&s->c, buf, m.cursize - cut, s->now);
}

/* FTE's negotiation and a chunked download against a scripted server:
 * the offer read past the challenge's NUL, the connect line, the
 * serverdata prefix, the requests, chunks in band and out of band, and
 * what must be refused: a chunk past the file, another download's number,
 * an out-of-band chunk cut short */
static void test_chunked_download(void **state)
{
	struct script *s = *state;
	uint8_t pkt[NETCHAN_MAX_PACKET], buf[1400];
	struct msg_buf m;
	const size_t size = 2 * FTE_CHUNK + 452;
	size_t n;

	s->c.opt.fte_extensions = FTE_PEXT_CHUNKEDDOWNLOADS;
	qwc_connect(&s->c, s->now);
	qwc_packet(&s->c, s->now, false, pkt, sizeof(pkt));
	/* "c77", a NUL, the offer (an unknown tag first, then FTEX) */
	msg_init(&m, buf, sizeof(buf));
	msg_write_long(&m, -1);
	msg_write_data(&m, "c77", 4);
	msg_write_long(&m, 0x32455446);
	msg_write_long(&m, 1);
	msg_write_long(&m, (int32_t)PROTOCOL_VERSION_FTE);
	msg_write_long(&m, (int32_t)(FTE_PEXT_CHUNKEDDOWNLOADS | 0x1));
	qwc_receive(&s->c, buf, m.cursize, s->now);
	assert_int_equal(s->c.challenge, 77);
	assert_int_equal(s->c.fte_offered, FTE_PEXT_CHUNKEDDOWNLOADS | 0x1);
	assert_int_equal(s->c.fte, FTE_PEXT_CHUNKEDDOWNLOADS);
	n = qwc_packet(&s->c, s->now, false, pkt, sizeof(pkt));
	pkt[n] = '\0';
	assert_non_null(strstr((char *)pkt + 4, "\"\n0x58455446 0x20000000\n"));
	feed_oob(s, "j");
	netchan_setup(&s->sv, NETCHAN_SERVER, &s->c.opt.server, 4321, s->now);
	pull(s);

	/* the serverdata says chunked downloads are in force */
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_serverdata);
	msg_write_long(&m, (int32_t)PROTOCOL_VERSION_FTE);
	msg_write_long(&m, (int32_t)FTE_PEXT_CHUNKEDDOWNLOADS);
	msg_write_long(&m, PROTOCOL_VERSION);
	msg_write_long(&m, 7);
	msg_write_string(&m, "qw");
	msg_write_byte(&m, 3);
	msg_write_string(&m, "The Test Level");
	for (int i = 0; i < 10; i++)
		msg_write_float(&m, (float)i);
	feed(s, m.data, m.cursize);
	assert_int_equal(s->c.fte_server, FTE_PEXT_CHUNKEDDOWNLOADS);
	assert_int_equal(s->c.servercount, 7);

	assert_true(qwc_download(&s->c, "maps/x.bsp"));
	s->ncmds = 0;
	pull(s);
	assert_true(sent(s, "download maps/x.bsp"));
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_download);
	msg_write_long(&m, -1);
	msg_write_long(&m, (int32_t)size);
	msg_write_string(&m, "maps/x.bsp");
	feed(s, m.data, m.cursize);
	assert_int_equal(s->c.dl.state, QWC_DL_RUNNING);
	assert_int_equal(s->c.dl.number, 1);
	s->ncmds = 0;
	pull(s);
	assert_true(sent(s, "nextdl 0 0 1"));
	assert_true(sent(s, "nextdl 1 0 1"));
	assert_true(sent(s, "nextdl 2 0 1"));
	assert_int_equal(s->ncmds, 3);
	/* asked once: not again before the retry */
	s->ncmds = 0;
	pull(s);
	assert_int_equal(s->ncmds, 0);

	/* past the file's end: counted, nothing written */
	msg_init(&m, buf, sizeof(buf));
	write_chunk(&m, 3);
	feed(s, m.data, m.cursize);
	assert_int_equal(s->c.stats.bad[QWC_BAD_RANGE], 1);
	assert_int_equal(s->c.dl.received, 0);
	/* chunk 1 in a reply; chunk 0 out of band: first with another
	 * download's number (a leftover), then cut short, then right */
	msg_init(&m, buf, sizeof(buf));
	write_chunk(&m, 1);
	feed(s, m.data, m.cursize);
	feed_oob_chunk(s, 5, 0, 0);
	assert_int_equal(s->c.dl.stale, 1);
	feed_oob_chunk(s, 1, 0, 10);
	assert_int_equal(s->c.stats.bad[QWC_BAD_OOB], 1);
	assert_int_equal(s->c.dl.received, 1);
	feed_oob_chunk(s, 1, 0, 0);
	assert_int_equal(s->c.dl.received, 2);
	assert_int_equal(s->c.dl.chunks_oob, 1);
	assert_int_equal(s->c.dl.chunks_inband, 1);
	/* the same chunk again is a duplicate; the last one ends it */
	feed_oob_chunk(s, 1, 0, 0);
	assert_int_equal(s->c.dl.duplicates, 1);
	msg_init(&m, buf, sizeof(buf));
	write_chunk(&m, 2);
	feed(s, m.data, m.cursize);
	assert_int_equal(s->c.dl.state, QWC_DL_DONE);
	for (size_t i = 0; i < size; i++)
		assert_int_equal(s->c.dl.data[i], (uint8_t)(i * 7));
	s->ncmds = 0;
	pull(s);
	assert_true(sent(s, "nextdl -1 100 1"));

	/* a refusal: no such file */
	assert_true(qwc_download(&s->c, "maps/y.bsp"));
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_download);
	msg_write_long(&m, -1);
	msg_write_long(&m, -1);
	msg_write_string(&m, "maps/y.bsp");
	feed(s, m.data, m.cursize);
	assert_int_equal(s->c.dl.state, QWC_DL_REFUSED);
	assert_int_equal(s->c.dl.refusal, -1);
	/* a chunk cut short in a reply ends that packet's parse */
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_download);
	msg_write_long(&m, 0);
	msg_write_data(&m, "short", 5);
	feed(s, m.data, m.cursize);
	assert_int_equal(s->c.stats.bad[QWC_BAD_TRUNCATED], 1);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(test_connect_and_signon, setup, teardown),
	cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
	cmocka_unit_test_setup_teardown(test_moves_and_checksum, setup, teardown),
	cmocka_unit_test_setup_teardown(test_entity_deltas, setup, teardown),
	cmocka_unit_test_setup_teardown(test_untracked_deltas, setup, teardown),
	cmocka_unit_test_setup_teardown(test_extension_messages, setup, teardown),
	cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
	cmocka_unit_test_setup_teardown(test_map_change_restart, setup, teardown),
	cmocka_unit_test_setup_teardown(test_chunked_download, setup, teardown),
};

QWD_TEST_GROUP(client_library, tests, NULL, NULL)
