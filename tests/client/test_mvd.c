/*
 * test_mvd.c -- the MVD reader and the QTV handshake helpers against
 * hand-built bytes: a small demo that must read to its end, and one
 * change to it for each fault the reader exists to find.
 *
 * Design note: the demo is built message by message with the common
 * msg_* writers and mvd_record_header, so each test says exactly what is
 * in it: a serverdata with the MVD1 magic, the lists, a baseline, a
 * player's userinfo and stats, three frames (a full entity list, a delta
 * that moves, removes and adds, a delta with nothing), EndOfDemo.  The
 * faults are the ways ezQuake would stop or misdraw (qwd/mvd.h lists
 * them); each variant changes one thing and must give that fault.
 */
#include "../harness.h"

#include <qwd/client.h>
#include <qwd/mvd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DEMO = 1 << 16 };

struct demo {
	uint8_t data[DEMO];
	size_t len;
};

static void rec(struct demo *d, int msec, int type, int to, const struct msg_buf *m)
{
	d->len += mvd_record_header(d->data + d->len, msec, type, (uint32_t)to,
				    (uint32_t)m->cursize);
	memcpy(d->data + d->len, m->data, m->cursize);
	d->len += m->cursize;
}

static uint8_t mb[8192];

static struct msg_buf *msg(void)
{
	static struct msg_buf m;

	msg_init(&m, mb, sizeof(mb));
	return &m;
}

static void serverdata(struct msg_buf *m, int protocol, bool fte_entities)
{
	msg_write_byte(m, svc_serverdata);
	if (fte_entities) {
		msg_write_long(m, (int32_t)MVD_MAGIC_FTE);
		msg_write_long(m, 0x00002000);	/* FTE_PEXT_ENTITYDBL */
	}
	msg_write_long(m, (int32_t)MVD_MAGIC_MVD1);
	msg_write_long(m, (int32_t)MVD_PEXT1_HIDDEN_MESSAGES);
	msg_write_long(m, protocol);
	msg_write_long(m, 7);		/* servercount */
	msg_write_string(m, "qw");
	msg_write_float(m, 10.0f);	/* demo time */
	msg_write_string(m, "test level");
	for (int i = 0; i < 10; i++)
		msg_write_float(m, 1.0f);
}

static void signon(struct demo *d, int protocol, bool fte)
{
	struct msg_buf *m = msg();

	serverdata(m, protocol, fte);
	rec(d, 0, MVD_ALL, 0, m);
	m = msg();
	msg_write_byte(m, svc_modellist);
	msg_write_byte(m, 0);
	msg_write_string(m, "maps/t.bsp");
	msg_write_string(m, "progs/player.mdl");
	msg_write_string(m, "progs/missile.mdl");
	msg_write_byte(m, 0);
	msg_write_byte(m, 0);
	msg_write_byte(m, svc_soundlist);
	msg_write_byte(m, 0);
	msg_write_string(m, "weapons/r_exp3.wav");
	msg_write_byte(m, 0);
	msg_write_byte(m, 0);
	msg_write_byte(m, svc_spawnbaseline);
	msg_write_short(m, 40);
	msg_write_byte(m, 3);		/* model */
	for (int i = 0; i < 3; i++)
		msg_write_byte(m, 0);
	for (int i = 0; i < 3; i++) {
		msg_write_short(m, 100 * 8);
		msg_write_byte(m, 0);
	}
	msg_write_byte(m, svc_updateuserinfo);
	msg_write_byte(m, 0);
	msg_write_long(m, 12);
	msg_write_string(m, "\\name\\alice\\team\\red");
	msg_write_byte(m, svc_updatefrags);
	msg_write_byte(m, 0);
	msg_write_short(m, 3);
	rec(d, 0, MVD_ALL, 0, m);
	m = msg();
	msg_write_byte(m, svc_updatestat);
	msg_write_byte(m, STAT_HEALTH);
	msg_write_byte(m, 100);
	rec(d, 0, MVD_STATS, 0, m);
}

static void playerinfo(struct msg_buf *m, int slot, int16_t x)
{
	msg_write_byte(m, svc_playerinfo);
	msg_write_byte(m, slot);
	msg_write_short(m, MVD_DF_ORIGIN | MVD_DF_MODEL);
	msg_write_byte(m, 0);		/* frame */
	msg_write_short(m, x);
	msg_write_byte(m, 2);		/* model */
}

/* an entity update of the stock layout: word, then an origin x */
static void entity_x(struct msg_buf *m, int num, int16_t x)
{
	msg_write_short(m, num | U_ORIGIN1);
	msg_write_short(m, x);
}

/* three frames of one player and entity 40, then 41 */
static void frames(struct demo *d)
{
	struct msg_buf *m = msg();

	playerinfo(m, 0, 8 * 10);
	msg_write_byte(m, svc_packetentities);
	entity_x(m, 40, 8 * 110);
	msg_write_short(m, 0);
	rec(d, 13, MVD_ALL, 0, m);

	m = msg();
	msg_write_byte(m, svc_sound);
	msg_write_short(m, (40 << 3) | 1);
	msg_write_byte(m, 1);
	for (int i = 0; i < 3; i++)
		msg_write_short(m, 0);
	msg_write_byte(m, svc_print);
	msg_write_byte(m, PRINT_HIGH);
	msg_write_string(m, "alice fires\n");
	rec(d, 0, MVD_ALL, 0, m);

	m = msg();
	playerinfo(m, 0, 8 * 20);
	msg_write_byte(m, svc_deltapacketentities);
	msg_write_byte(m, 1);
	msg_write_short(m, 40 | U_REMOVE);
	entity_x(m, 41, 8 * 5);
	msg_write_short(m, 0);
	rec(d, 13, MVD_ALL, 0, m);

	m = msg();
	playerinfo(m, 0, 8 * 30);
	msg_write_byte(m, svc_deltapacketentities);
	msg_write_byte(m, 2);
	msg_write_short(m, 0);
	rec(d, 14, MVD_ALL, 0, m);
}

static void end(struct demo *d)
{
	struct msg_buf *m = msg();

	msg_write_byte(m, svc_disconnect);
	msg_write_string(m, MVD_END_TEXT);
	rec(d, 0, MVD_ALL, 0, m);
}

static struct demo *good_demo(void)
{
	struct demo *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	signon(d, PROTOCOL_VERSION, false);
	frames(d);
	end(d);
	return d;
}

static struct mvd_reader *reader(void)
{
	struct mvd_reader *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	mvd_reader_init(r);
	return r;
}

static void test_good_demo_reads_to_its_end(void **state)
{
	struct demo *d = good_demo();
	struct mvd_reader *r = reader();

	(void)state;
	assert_int_equal(mvd_read(r, d->data, d->len), d->len);
	assert_int_equal(r->fault, MVD_FAULT_NONE);
	assert_true(r->ended);
	assert_string_equal(r->end_text, "EndOfDemo");
	assert_int_equal(r->serverdatas, 1);
	assert_int_equal(r->mvd_ext1, MVD_PEXT1_HIDDEN_MESSAGES);
	assert_int_equal(r->servercount, 7);
	assert_string_equal(r->gamedir, "qw");
	assert_string_equal(r->levelname, "test level");
	assert_string_equal(r->mapmodel, "maps/t.bsp");
	assert_int_equal(r->models, 3);
	assert_int_equal(r->sounds, 1);
	assert_int_equal(r->frames, 3);
	assert_int_equal(r->records, 8);
	assert_true(r->time - r->start_time > 0.0399 && r->time - r->start_time < 0.0401);
	assert_int_equal(r->packetentities, 3);
	assert_int_equal(r->deltas, 2);
	assert_int_equal(r->max_entities_frame, 1);
	assert_int_equal(r->entities, 3);
	/* the list of the last frame: 41, moved from its (zero) baseline */
	assert_int_equal(r->list_count[r->cur], 1);
	assert_int_equal(r->lists[r->cur][0].number, 41);
	assert_int_equal(r->lists[r->cur][0].origin[0], 8 * 5);
	assert_true(r->players[0].present);
	assert_string_equal(r->players[0].name, "alice");
	assert_int_equal(r->players[0].userid, 12);
	assert_int_equal(r->players[0].frags, 3);
	assert_int_equal(r->players[0].stats[STAT_HEALTH], 100);
	assert_int_equal(r->players[0].first_origin[0], 8 * 10);
	assert_int_equal(r->players[0].origin[0], 8 * 30);
	assert_int_equal(r->players[0].playerinfos, 3);
	assert_int_equal(r->max_players_frame, 1);
	assert_int_equal(r->frames_with_players, 3);
	assert_int_equal(r->sounds_played, 1);
	assert_int_equal(r->prints, 1);
	assert_string_equal(r->last_print, "alice fires\n");
	free(d);
	free(r);
}

/* a byte at a time, as a slow stream brings it: the same demo */
static void test_demo_in_pieces(void **state)
{
	struct demo *d = good_demo();
	struct mvd_reader *whole = reader(), *r = reader();
	size_t have = 0, taken = 0;

	(void)state;
	mvd_read(whole, d->data, d->len);
	for (size_t i = 0; i < d->len; i++) {
		have++;
		taken += mvd_read(r, d->data + taken, have - taken);
	}
	assert_int_equal(taken, d->len);
	assert_int_equal(r->fault, MVD_FAULT_NONE);
	assert_int_equal(r->records, whole->records);
	assert_int_equal(r->frames, whole->frames);
	assert_int_equal(r->messages, whole->messages);
	assert_true(r->ended);
	/* a record cut short is left for later, not a fault */
	mvd_reader_init(r);
	assert_true(mvd_read(r, d->data, d->len - 3) < d->len - 3);
	assert_int_equal(r->fault, MVD_FAULT_NONE);
	assert_false(r->ended);
	free(d);
	free(whole);
	free(r);
}

/* the good demo with one change: that fault, at that record */
static void expect_fault(struct demo *d, enum mvd_fault f)
{
	struct mvd_reader *r = reader();

	mvd_read(r, d->data, d->len);
	if (r->fault != f)
		fail_msg("wanted \"%s\", read \"%s\" (%s)", mvd_fault_name(f),
			 mvd_fault_name(r->fault), r->fault_text);
	assert_true(r->fault_offset < d->len);
	free(r);
	free(d);
}

static struct demo *signed_on(void)
{
	struct demo *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	signon(d, PROTOCOL_VERSION, false);
	return d;
}

static void test_framing_faults(void **state)
{
	struct demo *d;
	struct msg_buf *m;

	(void)state;
	/* a client demo's usercmd record */
	d = good_demo();
	d->data[1] = MVD_CMD;
	expect_fault(d, MVD_FAULT_TYPE);
	/* a record longer than ezQuake's buffer */
	d = signed_on();
	d->len += mvd_record_header(d->data + d->len, 0, MVD_ALL, 0, MVD_MAX_RECORD + 1);
	memset(d->data + d->len, svc_nop, MVD_MAX_RECORD + 1);
	d->len += MVD_MAX_RECORD + 1;
	expect_fault(d, MVD_FAULT_LENGTH);
	/* something before the serverdata */
	d = calloc(1, sizeof(*d));
	assert_non_null(d);
	m = msg();
	msg_write_byte(m, svc_nop);
	rec(d, 0, MVD_ALL, 0, m);
	signon(d, PROTOCOL_VERSION, false);
	expect_fault(d, MVD_FAULT_START);
	/* another protocol; FTE's wider entity numbers */
	d = calloc(1, sizeof(*d));
	assert_non_null(d);
	signon(d, 27, false);
	expect_fault(d, MVD_FAULT_PROTOCOL);
	d = calloc(1, sizeof(*d));
	assert_non_null(d);
	signon(d, PROTOCOL_VERSION, true);
	expect_fault(d, MVD_FAULT_PROTOCOL);
	/* a print whose string runs past its record */
	d = signed_on();
	m = msg();
	msg_write_byte(m, svc_print);
	msg_write_byte(m, PRINT_HIGH);
	msg_write_data(m, "no end", 6);
	rec(d, 0, MVD_ALL, 0, m);
	expect_fault(d, MVD_FAULT_TRUNCATED);
	/* qwd's extension messages never go in a demo */
	d = signed_on();
	m = msg();
	msg_write_byte(m, svcx_playerinfo);
	msg_write_short(m, 40);
	rec(d, 0, MVD_ALL, 0, m);
	expect_fault(d, MVD_FAULT_SVC);
}

static void test_player_faults(void **state)
{
	struct demo *d;
	struct msg_buf *m;

	(void)state;
	/* a player number of the extension's slots */
	d = signed_on();
	m = msg();
	playerinfo(m, MAX_CLIENTS, 0);
	rec(d, 13, MVD_ALL, 0, m);
	expect_fault(d, MVD_FAULT_RANGE);
	/* a stat for nobody in particular */
	d = signed_on();
	m = msg();
	msg_write_byte(m, svc_updatestat);
	msg_write_byte(m, STAT_HEALTH);
	msg_write_byte(m, 50);
	rec(d, 0, MVD_ALL, 0, m);
	expect_fault(d, MVD_FAULT_RANGE);
	/* a stat past the 32 */
	d = signed_on();
	m = msg();
	msg_write_byte(m, svc_updatestatlong);
	msg_write_byte(m, MAX_CL_STATS);
	msg_write_long(m, 1);
	rec(d, 0, MVD_STATS, 3, m);
	expect_fault(d, MVD_FAULT_RANGE);
}

/* one frame's records: an entity list after the signon */
static void list(struct demo *d, int msec, bool delta, int num, int bits)
{
	struct msg_buf *m = msg();

	msg_write_byte(m, delta ? svc_deltapacketentities : svc_packetentities);
	if (delta)
		msg_write_byte(m, 0);
	if (num) {
		msg_write_short(m, num | bits);
		if (bits & U_ORIGIN1)
			msg_write_short(m, 0);
	}
	msg_write_short(m, 0);
	rec(d, msec, MVD_ALL, 0, m);
}

static void test_entity_faults(void **state)
{
	struct demo *d;
	struct msg_buf *m;

	(void)state;
	/* a delta first, with no list before it */
	d = signed_on();
	list(d, 13, true, 40, U_ORIGIN1);
	expect_fault(d, MVD_FAULT_DELTA);
	/* a delta two frames after the last list */
	d = signed_on();
	list(d, 13, false, 40, U_ORIGIN1);
	m = msg();
	msg_write_byte(m, svc_nop);
	rec(d, 13, MVD_ALL, 0, m);
	list(d, 13, true, 0, 0);
	expect_fault(d, MVD_FAULT_DELTA);
	/* two lists in one frame */
	d = signed_on();
	list(d, 13, false, 40, U_ORIGIN1);
	list(d, 0, true, 0, 0);
	expect_fault(d, MVD_FAULT_FRAME);
	/* removing what the base does not hold */
	d = signed_on();
	list(d, 13, false, 40, U_ORIGIN1);
	list(d, 13, true, 41, U_REMOVE);
	expect_fault(d, MVD_FAULT_ENTITIES);
	/* numbers out of order */
	d = signed_on();
	m = msg();
	msg_write_byte(m, svc_packetentities);
	entity_x(m, 50, 0);
	entity_x(m, 45, 0);
	msg_write_short(m, 0);
	rec(d, 13, MVD_ALL, 0, m);
	expect_fault(d, MVD_FAULT_ENTITIES);
	/* more entities than ezQuake keeps */
	d = signed_on();
	m = msg();
	msg_write_byte(m, svc_packetentities);
	for (int i = 0; i <= MVD_MAX_PACKET_ENTITIES; i++)
		msg_write_short(m, 100 + i);
	msg_write_short(m, 0);
	rec(d, 13, MVD_ALL, 0, m);
	expect_fault(d, MVD_FAULT_ENTITIES);
	/* a new level: its first list is full again */
	d = good_demo();
	signon(d, PROTOCOL_VERSION, false);
	list(d, 13, true, 0, 0);
	expect_fault(d, MVD_FAULT_DELTA);
}

/* ---- the QTV handshake ------------------------------------------------ */

static void test_qtv_request_text(void **state)
{
	struct qtv_request rq = {
		.version = 1,
		.userinfo = "\\name\\viewer",
		.auth = "SHA3_512 MD4 PLAIN",
		.password = "pw",
	};
	char text[512];
	size_t n;

	(void)state;
	n = qtv_build_request(&rq, text, sizeof(text));
	assert_int_equal(n, strlen(text));
	assert_string_equal(text, "QTV\nVERSION: 1\nUSERINFO: \"\\name\\viewer\"\n"
			    "AUTH: SHA3_512\nAUTH: MD4\nAUTH: PLAIN\nPASSWORD: \"pw\"\n\n");
	/* what does not fit is not sent half */
	assert_int_equal(qtv_build_request(&rq, text, 20), 0);
	rq = (struct qtv_request){0};
	assert_int_equal(qtv_build_request(&rq, text, sizeof(text)), 5);
	assert_string_equal(text, "QTV\n\n");
}

static void test_qtv_reply_reading(void **state)
{
	static const char begin[] = "QTVSV 1\nBEGIN\n\n\x01\x06";
	static const char ask[] = "QTVSV 1\nAUTH: MD4\nCHALLENGE: abc123\n\n";
	struct qtv_reply rp;

	(void)state;
	qtv_parse_reply((const uint8_t *)begin, sizeof(begin) - 1, &rp);
	assert_int_equal(rp.answer, QTV_ANSWER_BEGIN);
	assert_int_equal(rp.header_len, sizeof(begin) - 1 - 2);
	qtv_parse_reply((const uint8_t *)QTV_ERR_BAD_PASSWORD,
			strlen(QTV_ERR_BAD_PASSWORD), &rp);
	assert_int_equal(rp.answer, QTV_ANSWER_ERROR);
	assert_string_equal(rp.text, "Bad password.");
	qtv_parse_reply((const uint8_t *)QTV_ERR_INIT_STREAM,
			strlen(QTV_ERR_INIT_STREAM), &rp);
	assert_int_equal(rp.answer, QTV_ANSWER_ERROR);
	qtv_parse_reply((const uint8_t *)ask, strlen(ask), &rp);
	assert_int_equal(rp.answer, QTV_ANSWER_AUTH);
	assert_string_equal(rp.auth, "MD4");
	assert_string_equal(rp.challenge, "abc123");
	/* not there yet; not a QTV server */
	qtv_parse_reply((const uint8_t *)begin, 10, &rp);
	assert_int_equal(rp.answer, QTV_ANSWER_PARTIAL);
	qtv_parse_reply((const uint8_t *)"HTTP/1.0 400\n\n", 14, &rp);
	assert_int_equal(rp.answer, QTV_ANSWER_BAD);
}

/* the digests as ezQuake computes them; the SHA3 vector is the standard
 * one for "abc" (FIPS 202), here as challenge "ab" and password "c" */
static void test_qtv_digests(void **state)
{
	char out[160];

	(void)state;
	assert_true(qtv_digest("SHA3_512", "ab", "c", out, sizeof(out)));
	assert_string_equal(out, "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e"
			    "10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0");
	/* MD4("abc") = a448017aaf21d8525fc10ae87aa6729d (RFC 1320), read as
	 * four little-endian words */
	assert_true(qtv_digest("MD4", "a", "bc", out, sizeof(out)));
	assert_string_equal(out, "7A0148A452D821AFE80AC15F9D72A67A");
	/* CRC-16-CCITT-FALSE("123456789") = 0x29B1 */
	assert_true(qtv_digest("CCITT", "1234", "56789", out, sizeof(out)));
	assert_string_equal(out, "0x29B1");
	assert_true(qtv_digest("PLAIN", "ignored", "secret", out, sizeof(out)));
	assert_string_equal(out, "secret");
	assert_false(qtv_digest("ROT13", "a", "b", out, sizeof(out)));
	assert_false(qtv_digest("SHA3_512", "a", "b", out, 64));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_good_demo_reads_to_its_end),
	cmocka_unit_test(test_demo_in_pieces),
	cmocka_unit_test(test_framing_faults),
	cmocka_unit_test(test_player_faults),
	cmocka_unit_test(test_entity_faults),
	cmocka_unit_test(test_qtv_request_text),
	cmocka_unit_test(test_qtv_reply_reading),
	cmocka_unit_test(test_qtv_digests),
};

QWD_TEST_GROUP(mvd_reader, tests, NULL, NULL)
