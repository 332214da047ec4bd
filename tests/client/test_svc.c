/*
 * test_svc.c -- the one walker of svc layouts (qwc_svc_skip).
 *
 * Design note: each message body below is written with the msg_* writers
 * by its protocol-28 (or qwd extension) layout, independently of the
 * walker, followed by a marker byte.  The walker must stop exactly on the
 * marker; the same body cut one byte short must fail with badread, never
 * read outside it.  An unknown svc byte and an unknown temp entity must
 * fail without badread (the walk cannot go on, nothing was cut).
 */
#include "../harness.h"

#include <qwd/client.h>
#include <qwd/protocol.h>

#include <string.h>

enum { MARK = 0xa5 };

static uint8_t buf[2048];

/* the walker over body[0..len) then MARK: stops on MARK; cut: badread */
static void check(int svc, unsigned form, const struct msg_buf *body)
{
	struct msg_buf m;
	size_t len = body->cursize;

	assert_false(body->overflowed);
	buf[len] = MARK;
	msg_init_read(&m, buf, len + 1);
	if (!qwc_svc_skip(&m, svc, form))
		fail_msg("svc %d (form %u): refused a whole message", svc, form);
	assert_int_equal(m.readpos, len);
	if (len == 0)
		return;
	msg_init_read(&m, buf, len - 1);
	assert_false(qwc_svc_skip(&m, svc, form));
	assert_true(m.badread);
}

static struct msg_buf *body(void)
{
	static struct msg_buf b;

	msg_init(&b, buf, sizeof(buf) - 1);
	return &b;
}

static void test_fixed_and_strings(void **state)
{
	struct msg_buf *b;

	(void)state;
	check(svc_nop, 0, body());
	check(svc_bigkick, 0, body());
	b = body();
	msg_write_short(b, 12);
	check(svc_setview, 0, b);
	b = body();
	msg_write_byte(b, 3);
	msg_write_short(b, -1);
	check(svc_updatefrags, 0, b);
	b = body();
	msg_write_short(b, 3);
	msg_write_short(b, -1);
	check(svcx_updatefrags, QWC_SVC_QWDX, b);
	b = body();
	msg_write_byte(b, PRINT_HIGH);
	msg_write_string(b, "hello there");
	check(svc_print, 0, b);
	b = body();
	msg_write_byte(b, 1);
	msg_write_string(b, "name");
	msg_write_string(b, "value");
	check(svc_setinfo, 0, b);
	b = body();
	msg_write_short(b, 5);
	msg_write_byte(b, 50);
	msg_write_data(b, "12345", 5);
	check(svc_download, 0, b);
	b = body();
	msg_write_short(b, -1);		/* no such file: no data */
	msg_write_byte(b, 0);
	check(svc_download, 0, b);
	b = body();
	msg_write_byte(b, 2);
	for (int i = 0; i < 2 * 6; i++)
		msg_write_byte(b, i);
	check(svc_nails, 0, b);
	/* chunked downloads: a start (or a refusal), then a chunk */
	b = body();
	msg_write_long(b, -1);
	msg_write_long(b, 5000);
	msg_write_string(b, "maps/small.bsp");
	check(svc_download, QWC_SVC_CHUNKED, b);
	b = body();
	msg_write_long(b, 3);
	for (int i = 0; i < FTE_CHUNK; i++)
		msg_write_byte(b, i);
	check(svc_download, QWC_SVC_CHUNKED, b);
}

static void test_sound_and_temp_entities(void **state)
{
	static const int types[] = {TE_SPIKE, TE_GUNSHOT, TE_LIGHTNING2, TE_BLOOD,
				    TE_LIGHTNINGBLOOD};
	struct msg_buf *b, m;

	(void)state;
	for (int flags = 0; flags < 4; flags++) {
		b = body();
		msg_write_short(b, 7 | (flags & 1 ? SND_VOLUME : 0) |
				       (flags & 2 ? SND_ATTENUATION : 0));
		if (flags & 1)
			msg_write_byte(b, 200);
		if (flags & 2)
			msg_write_byte(b, 64);
		msg_write_byte(b, 3);
		for (int k = 0; k < 3; k++)
			msg_write_coord(b, 10.0f * (float)k);
		check(svc_sound, 0, b);
	}
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		b = body();
		msg_write_byte(b, types[i]);
		if (types[i] == TE_GUNSHOT || types[i] == TE_BLOOD)
			msg_write_byte(b, 4);
		if (types[i] == TE_LIGHTNING2)
			msg_write_short(b, 9);
		for (int k = 0; k < (types[i] == TE_LIGHTNING2 ? 6 : 3); k++)
			msg_write_coord(b, 1.0f);
		check(svc_temp_entity, 0, b);
	}
	/* an unknown type, an unknown message: refused, nothing cut */
	buf[0] = 99;
	msg_init_read(&m, buf, 8);
	assert_false(qwc_svc_skip(&m, svc_temp_entity, 0));
	assert_false(m.badread);
	msg_init_read(&m, buf, 8);
	assert_false(qwc_svc_skip(&m, 99, 0));
	assert_false(m.badread);
	assert_false(qwc_svc_skip(&m, svc_bad, 0));
}

static void test_serverdata_and_lists(void **state)
{
	struct msg_buf *b;

	(void)state;
	for (int wide = 0; wide < 2; wide++) {
		b = body();
		msg_write_long(b, PROTOCOL_VERSION);
		msg_write_long(b, 4);
		msg_write_string(b, "qw");
		if (wide)
			msg_write_short(b, 1000);
		else
			msg_write_byte(b, 3);
		msg_write_string(b, "The Abandoned Base");
		for (int i = 0; i < 10; i++)
			msg_write_float(b, 1.0f);
		check(svc_serverdata, wide ? QWC_SVC_QWDX : 0, b);
	}
	/* FTE's extension words ahead of the protocol, as MVDSV sends them */
	b = body();
	msg_write_long(b, (int32_t)PROTOCOL_VERSION_FTE);
	msg_write_long(b, (int32_t)FTE_PEXT_CHUNKEDDOWNLOADS);
	msg_write_long(b, PROTOCOL_VERSION);
	msg_write_long(b, 4);
	msg_write_string(b, "qw");
	msg_write_byte(b, 3);
	msg_write_string(b, "small");
	for (int i = 0; i < 10; i++)
		msg_write_float(b, 1.0f);
	check(svc_serverdata, QWC_SVC_CHUNKED, b);
	b = body();
	msg_write_byte(b, 0);
	msg_write_string(b, "maps/small.bsp");
	msg_write_string(b, "progs/player.mdl");
	msg_write_byte(b, 0);		/* end of the list */
	msg_write_byte(b, 0);		/* no next page */
	check(svc_modellist, 0, b);
}

static void test_players_and_entities(void **state)
{
	static const struct usercmd nullcmd;
	struct usercmd cmd = {.msec = 13, .forwardmove = 320, .buttons = 1};
	struct msg_buf *b;

	(void)state;
	for (int wide = 0; wide < 2; wide++) {
		b = body();
		if (wide)
			msg_write_short(b, 700);
		else
			msg_write_byte(b, 5);
		msg_write_short(b, PF_MSEC | PF_COMMAND | PF_VELOCITY2 | PF_MODEL |
				   PF_WEAPONFRAME);
		for (int k = 0; k < 3; k++)
			msg_write_coord(b, 8.0f);
		msg_write_byte(b, 2);			/* frame */
		msg_write_byte(b, 13);			/* msec */
		msg_write_delta_usercmd(b, &nullcmd, &cmd);
		msg_write_short(b, 300);		/* velocity[1] */
		msg_write_byte(b, 4);			/* model */
		msg_write_byte(b, 1);			/* weaponframe */
		check(wide ? svcx_playerinfo : svc_playerinfo, wide ? QWC_SVC_QWDX : 0, b);
	}
	for (int wide = 0; wide < 2; wide++) {
		b = body();
		msg_write_byte(b, 17);			/* delta from */
		/* an update with more bits, a remove, then the end */
		msg_write_short(b, (wide ? 0 : 40) | U_ORIGIN1 | U_MOREBITS);
		if (wide)
			msg_write_short(b, 1040);
		msg_write_byte(b, U_MODEL | U_SKIN);
		msg_write_byte(b, 7);			/* model */
		msg_write_byte(b, 1);			/* skin */
		msg_write_short(b, 512);		/* origin[0] */
		msg_write_short(b, (wide ? 0 : 41) | U_REMOVE);
		if (wide)
			msg_write_short(b, 1041);
		msg_write_short(b, 0);
		check(wide ? svcx_deltapacketentities : svc_deltapacketentities,
		      wide ? QWC_SVC_QWDX : 0, b);
	}
}

static const struct CMUnitTest svc_tests[] = {
	cmocka_unit_test(test_fixed_and_strings),
	cmocka_unit_test(test_sound_and_temp_entities),
	cmocka_unit_test(test_serverdata_and_lists),
	cmocka_unit_test(test_players_and_entities),
};

QWD_TEST_GROUP(client_svc, svc_tests, NULL, NULL)
