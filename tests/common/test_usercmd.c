/*
 * test_usercmd.c -- the protocol-28 delta usercmd.
 *
 * Design note: the byte-exact case is worked out by hand from the layout
 * in id's MSG_WriteDeltaUsercmd and protocol.h (CM_ANGLE2 is bit 7, msec
 * last and always there).  Angles in the round trips are multiples of
 * 360/65536 inside [-180, 180), so they survive the angle16 encoding
 * exactly and can be compared with ==.
 */
#include "../harness.h"

#include <qwd/common.h>

#include <stdlib.h>
#include <string.h>

static const struct usercmd null_cmd;

static struct usercmd make_cmd(uint8_t msec, float a0, float a1, float a2,
			       int16_t fwd, int16_t side, int16_t up,
			       uint8_t buttons, uint8_t impulse)
{
	struct usercmd c = {.msec = msec,
			    .forwardmove = fwd,
			    .sidemove = side,
			    .upmove = up,
			    .buttons = buttons,
			    .impulse = impulse};

	vec_set(c.angles, a0, a1, a2);
	return c;
}

static void assert_cmd_equal(const struct usercmd *a, const struct usercmd *b)
{
	assert_int_equal(a->msec, b->msec);
	for (int i = 0; i < 3; i++)
		assert_true(a->angles[i] == b->angles[i]);
	assert_int_equal(a->forwardmove, b->forwardmove);
	assert_int_equal(a->sidemove, b->sidemove);
	assert_int_equal(a->upmove, b->upmove);
	assert_int_equal(a->buttons, b->buttons);
	assert_int_equal(a->impulse, b->impulse);
}

static void test_bit_layout(void **state)
{
	uint8_t mem[32];
	struct msg_buf b;
	struct usercmd c = make_cmd(13, 0, 90, 0, 400, 0, 0, 2, 0);
	static const uint8_t want[] = {
		CM_ANGLE2 | CM_FORWARD | CM_BUTTONS, /* 0xa4 */
		0x00, 0x40, /* angle 1 (yaw) 90 -> 16384 */
		0x90, 0x01, /* forward 400 */
		0x02,	    /* buttons */
		0x0d,	    /* msec, last */
	};

	(void)state;
	assert_int_equal(want[0], 0xa4);
	msg_init(&b, mem, sizeof(mem));
	msg_write_delta_usercmd(&b, &null_cmd, &c);
	assert_int_equal(b.cursize, sizeof(want));
	assert_memory_equal(mem, want, sizeof(want));

	/* nothing changed: the bits byte is 0 and msec still follows */
	msg_clear(&b);
	msg_write_delta_usercmd(&b, &c, &c);
	assert_int_equal(b.cursize, 2);
	assert_int_equal(mem[0], 0);
	assert_int_equal(mem[1], 13);
}

static void test_field_order_all_bits(void **state)
{
	uint8_t mem[MSG_DELTA_USERCMD_MAX];
	struct msg_buf b;
	struct usercmd c = make_cmd(255, -45, 180 - 360.0f / 65536, 1.40625f,
				    -1, 2, -3, 0x81, 0x7f);
	static const uint8_t want[MSG_DELTA_USERCMD_MAX] = {
		0xff,
		0x00, 0xe0, /* angle 0: -45 -> -8192 */
		0xff, 0x7f, /* angle 1: 32767 */
		0x00, 0x01, /* angle 2: 256 */
		0xff, 0xff, /* forward -1 */
		0x02, 0x00, /* side 2 */
		0xfd, 0xff, /* up -3 */
		0x81,	    /* buttons */
		0x7f,	    /* impulse */
		0xff,	    /* msec */
	};

	(void)state;
	msg_init(&b, mem, sizeof(mem));
	msg_write_delta_usercmd(&b, &null_cmd, &c);
	assert_false(b.overflowed);
	assert_int_equal(b.cursize, MSG_DELTA_USERCMD_MAX);
	assert_memory_equal(mem, want, sizeof(want));
}

static void test_round_trip_chain(void **state)
{
	/* as in clc_move: oldest from null, then each from the previous */
	struct usercmd cmds[4] = {
		make_cmd(12, 10.546875f, -90, 0, 320, 0, 0, 0, 0),
		make_cmd(13, 10.546875f, -87.1875f, 0, 320, -350, 0, 1, 0),
		make_cmd(13, -70.3125f, 179.99450684f, 2.8125f, 0, 0, 200, 3, 7),
		make_cmd(0, 0, 0, 0, 0, 0, 0, 0, 0),
	};
	uint8_t mem[64];
	struct msg_buf b;
	struct usercmd prev = null_cmd, got = null_cmd;

	(void)state;
	msg_init(&b, mem, sizeof(mem));
	for (int i = 0; i < 4; i++) {
		msg_write_delta_usercmd(&b, &prev, &cmds[i]);
		prev = cmds[i];
	}
	assert_false(b.overflowed);

	prev = null_cmd;
	for (int i = 0; i < 4; i++) {
		assert_true(msg_read_delta_usercmd(&b, &prev, &got));
		assert_cmd_equal(&got, &cmds[i]);
		prev = got;
	}
	assert_false(b.badread);
	assert_int_equal(msg_read_remaining(&b), 0);
}

static void test_read_in_place(void **state)
{
	uint8_t mem[32];
	struct msg_buf b;
	struct usercmd c = make_cmd(9, 0, 45, 0, 0, 100, 0, 0, 0);
	struct usercmd cur = make_cmd(20, 5.625f, 0, 0, 7, 0, 0, 0, 1);
	struct usercmd want = cur;

	(void)state;
	msg_init(&b, mem, sizeof(mem));
	msg_write_delta_usercmd(&b, &cur, &c);
	/* out and from are the same object */
	assert_true(msg_read_delta_usercmd(&b, &cur, &cur));
	want = c;
	assert_cmd_equal(&cur, &want);
}

static void test_angle_wraps_to_signed(void **state)
{
	uint8_t mem[16];
	struct msg_buf b;
	struct usercmd c = make_cmd(1, 270, 0, 0, 0, 0, 0, 0, 0), got;

	(void)state;
	msg_init(&b, mem, sizeof(mem));
	msg_write_delta_usercmd(&b, &null_cmd, &c);
	assert_true(msg_read_delta_usercmd(&b, &null_cmd, &got));
	assert_true(got.angles[0] == -90.0f);
}

static void test_truncated_input(void **state)
{
	struct usercmd c = make_cmd(33, -45, 30.9375f, 15.46875f, 100, -200, 300, 5, 9);
	struct usercmd from = make_cmd(1, 2.8125f, 0, 0, 1, 1, 1, 1, 1), got;
	uint8_t full[MSG_DELTA_USERCMD_MAX];
	struct msg_buf b;
	size_t n;

	(void)state;
	msg_init(&b, full, sizeof(full));
	msg_write_delta_usercmd(&b, &from, &c);
	n = b.cursize;
	assert_int_equal(n, MSG_DELTA_USERCMD_MAX);

	/* every strict prefix, in a buffer of exactly that size */
	for (size_t len = 0; len < n; len++) {
		uint8_t *mem = malloc(len ? len : 1);

		assert_non_null(mem);
		memcpy(mem, full, len);
		msg_init_read(&b, mem, len);
		got = c;
		assert_false(msg_read_delta_usercmd(&b, &from, &got));
		assert_true(b.badread);
		assert_cmd_equal(&got, &from);
		free(mem);
	}

	msg_init_read(&b, full, n);
	assert_true(msg_read_delta_usercmd(&b, &from, &got));
	assert_cmd_equal(&got, &c);
}

static void test_overflow_writes_nothing(void **state)
{
	uint8_t mem[8];
	struct msg_buf b;
	struct usercmd c = make_cmd(33, -45, 30.9375f, 15.46875f, 100, -200, 300, 5, 9);

	(void)state;
	msg_init(&b, mem, sizeof(mem));
	msg_write_byte(&b, CM_ANGLE1); /* some earlier content */
	msg_write_delta_usercmd(&b, &null_cmd, &c);
	assert_true(b.overflowed);
	assert_int_equal(b.cursize, 1);
}

/* garbage never crashes the reader and never reads past the buffer */
static void test_garbage_input(void **state)
{
	unsigned seed = 1;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		size_t len = (size_t)(round % 40);
		uint8_t *mem = malloc(len ? len : 1);
		struct msg_buf b;
		struct usercmd got;

		assert_non_null(mem);
		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			mem[i] = (uint8_t)(seed >> 16);
		}
		msg_init_read(&b, mem, len);
		while (msg_read_delta_usercmd(&b, &null_cmd, &got))
			assert_true(b.readpos <= len);
		assert_true(b.badread);
		free(mem);
	}
}

static const struct CMUnitTest usercmd_tests[] = {
	cmocka_unit_test(test_bit_layout),
	cmocka_unit_test(test_field_order_all_bits),
	cmocka_unit_test(test_round_trip_chain),
	cmocka_unit_test(test_read_in_place),
	cmocka_unit_test(test_angle_wraps_to_signed),
	cmocka_unit_test(test_truncated_input),
	cmocka_unit_test(test_overflow_writes_nothing),
	cmocka_unit_test(test_garbage_input),
};

QWD_TEST_GROUP(common_usercmd, usercmd_tests, NULL, NULL)
