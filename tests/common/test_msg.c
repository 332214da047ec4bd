/*
 * test_msg.c -- bounded message buffers: wire layout, overflow, bad reads.
 *
 * Design note: buffers under test are malloc'd at their exact size, so
 * AddressSanitizer (make check) reports any byte touched outside them; the
 * canary test checks the same without the sanitizer.  Expected bytes are
 * the protocol's little-endian layouts written out by hand.
 */
#include "../harness.h"

#include <qwd/common.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *exact_buf(size_t n)
{
	/* malloc(0) may return NULL; keep one byte so the pointer is real,
	 * but the msg_buf is told the true size */
	uint8_t *p = malloc(n ? n : 1);

	assert_non_null(p);
	return p;
}

static void test_write_layout(void **state)
{
	uint8_t *mem = exact_buf(64);
	struct msg_buf b;
	static const uint8_t want[] = {
		0xfe,			/* byte 254 */
		0xfb,			/* char -5 */
		0x34, 0x12,		/* short 0x1234 */
		0xc7, 0xcf,		/* short -12345 */
		0x78, 0x56, 0x34, 0x12, /* long 0x12345678 */
		0x00, 0x00, 0x80, 0x3f, /* float 1.0 */
		'h',  'i',  0x00,	/* string */
		0x00,			/* NULL string */
		0x0c, 0x00,		/* coord 1.5 -> 12 */
		0x40,			/* angle 90 -> 64 */
		0x00, 0x20,		/* angle16 45 -> 8192 */
	};

	(void)state;
	msg_init(&b, mem, 64);
	msg_write_byte(&b, 254);
	msg_write_char(&b, -5);
	msg_write_short(&b, 0x1234);
	msg_write_short(&b, -12345);
	msg_write_long(&b, 0x12345678);
	msg_write_float(&b, 1.0f);
	msg_write_string(&b, "hi");
	msg_write_string(&b, NULL);
	msg_write_coord(&b, 1.5f);
	msg_write_angle(&b, 90.0f);
	msg_write_angle16(&b, 45.0f);
	assert_false(b.overflowed);
	assert_int_equal(b.cursize, sizeof(want));
	assert_memory_equal(mem, want, sizeof(want));
	free(mem);
}

static void test_round_trip(void **state)
{
	uint8_t *mem = exact_buf(128);
	struct msg_buf b;
	char s[32];

	(void)state;
	msg_init(&b, mem, 128);
	msg_write_byte(&b, 0);
	msg_write_byte(&b, 255);
	msg_write_char(&b, -128);
	msg_write_char(&b, 127);
	msg_write_short(&b, -32768);
	msg_write_short(&b, 32767);
	msg_write_long(&b, INT32_MIN);
	msg_write_long(&b, -1);
	msg_write_float(&b, -1234.5f);
	msg_write_float(&b, INFINITY);
	msg_write_string(&b, "hello world");
	msg_write_string(&b, "");
	msg_write_coord(&b, -4000.5f);
	msg_write_coord(&b, 123.125f);
	msg_write_angle(&b, -90.0f);
	msg_write_angle16(&b, 270.0f); /* comes back as -90 */
	msg_write_angle16(&b, -10.546875f);
	assert_false(b.overflowed);

	assert_int_equal(msg_read_byte(&b), 0);
	assert_int_equal(msg_read_byte(&b), 255);
	assert_int_equal(msg_read_char(&b), -128);
	assert_int_equal(msg_read_char(&b), 127);
	assert_int_equal(msg_read_short(&b), -32768);
	assert_int_equal(msg_read_short(&b), 32767);
	assert_int_equal(msg_read_long(&b), INT32_MIN);
	assert_int_equal(msg_read_long(&b), -1);
	assert_true(msg_read_float(&b) == -1234.5f);
	assert_true(isinf(msg_read_float(&b)));
	assert_int_equal(msg_read_string(&b, s, sizeof(s)), 11);
	assert_string_equal(s, "hello world");
	assert_int_equal(msg_read_string(&b, s, sizeof(s)), 0);
	assert_string_equal(s, "");
	assert_true(msg_read_coord(&b) == -4000.5f);
	assert_true(msg_read_coord(&b) == 123.125f);
	assert_true(msg_read_angle(&b) == -90.0f);
	assert_true(msg_read_angle16(&b) == -90.0f);
	assert_true(msg_read_angle16(&b) == -10.546875f);
	/* a legitimate -1 is told from a failure by the flag */
	assert_false(b.badread);
	assert_int_equal(msg_read_remaining(&b), 0);
	free(mem);
}

static void test_coord_and_angle_conversions(void **state)
{
	uint8_t mem[32];
	struct msg_buf b;

	(void)state;
	msg_init(&b, mem, sizeof(mem));
	msg_write_coord(&b, 0.2f);	  /* 1.6 truncates to 1 */
	msg_write_coord(&b, -0.2f);	  /* toward zero: -1 */
	msg_write_coord(&b, 5000.0f);	  /* saturates */
	msg_write_coord(&b, -5000.0f);
	msg_write_coord(&b, NAN);
	msg_write_coord(&b, 1e30f);
	msg_write_angle(&b, 360.0f);	  /* 256 & 255 = 0 */
	msg_write_angle(&b, 1e30f);	  /* no undefined conversion */
	msg_write_angle16(&b, 360.0f);
	msg_write_angle16(&b, -1e30f);
	assert_false(b.overflowed);

	assert_true(msg_read_coord(&b) == 0.125f);
	assert_true(msg_read_coord(&b) == -0.125f);
	assert_int_equal(msg_read_short(&b), 32767);
	assert_int_equal(msg_read_short(&b), -32768);
	assert_int_equal(msg_read_short(&b), 0);
	assert_int_equal(msg_read_short(&b), 32767);
	assert_int_equal(msg_read_byte(&b), 0);
	msg_read_byte(&b);
	assert_int_equal(msg_read_short(&b), 0);
	msg_read_short(&b);
	assert_false(b.badread);
}

static void test_read_past_end(void **state)
{
	uint8_t *mem = exact_buf(3);
	struct msg_buf b;

	(void)state;
	mem[0] = 1;
	mem[1] = 2;
	mem[2] = 3;
	msg_init_read(&b, mem, 3);
	assert_int_equal(msg_read_remaining(&b), 3);
	assert_int_equal(msg_read_long(&b), -1);
	assert_true(b.badread);
	/* sticky: the bytes that are there are not read after a failure */
	assert_int_equal(msg_read_byte(&b), -1);
	assert_int_equal(msg_read_remaining(&b), 0);

	msg_begin_reading(&b);
	assert_false(b.badread);
	assert_int_equal(msg_read_short(&b), 0x0201);
	assert_int_equal(msg_read_short(&b), -1);
	assert_true(b.badread);

	/* each failed read returns its documented neutral value */
	msg_begin_reading(&b);
	assert_true(msg_read_data(&b, (uint8_t[3]){0}, 3));
	assert_int_equal(msg_read_char(&b), -1);
	assert_true(msg_read_float(&b) == 0.0f);
	assert_true(msg_read_coord(&b) == 0.0f);
	assert_true(msg_read_angle(&b) == 0.0f);
	assert_true(msg_read_angle16(&b) == 0.0f);
	assert_true(b.badread);
	free(mem);
}

static void test_read_empty_buffer(void **state)
{
	uint8_t *mem = exact_buf(0);
	struct msg_buf b;
	char s[4] = "xyz";

	(void)state;
	msg_init_read(&b, mem, 0);
	assert_int_equal(msg_read_byte(&b), -1);
	assert_true(b.badread);
	msg_begin_reading(&b);
	assert_int_equal(msg_read_string(&b, s, sizeof(s)), 0);
	assert_string_equal(s, "");
	assert_true(b.badread);
	free(mem);
}

/* a struct whose cursize was corrupted beyond maxsize still stays inside */
static void test_corrupt_cursize_is_bounded(void **state)
{
	uint8_t *mem = exact_buf(4);
	struct msg_buf b;

	(void)state;
	memset(mem, 0xab, 4);
	msg_init_read(&b, mem, 4);
	b.cursize = 1000;
	assert_int_equal(msg_read_long(&b), (int32_t)0xabababab);
	assert_int_equal(msg_read_byte(&b), -1);
	assert_true(b.badread);
	/* and writes refuse rather than append past maxsize */
	msg_write_byte(&b, 1);
	assert_true(b.overflowed);
	free(mem);
}

static void test_overflow_drops_write(void **state)
{
	uint8_t *mem = exact_buf(8);
	struct msg_buf b;

	(void)state;
	msg_init(&b, mem, 8);
	msg_write_long(&b, 0x11223344);
	msg_write_string(&b, "toolong"); /* 8 bytes, 4 left: all or nothing */
	assert_true(b.overflowed);
	assert_int_equal(b.cursize, 4);
	/* later writes that would fit are dropped too: no holes */
	msg_write_byte(&b, 7);
	assert_int_equal(b.cursize, 4);
	assert_null(msg_get_space(&b, 1));

	msg_begin_reading(&b);
	assert_int_equal(msg_read_long(&b), 0x11223344);

	msg_clear(&b);
	assert_false(b.overflowed);
	assert_int_equal(b.cursize, 0);
	msg_write_long(&b, 1);
	msg_write_long(&b, 2);
	assert_false(b.overflowed);
	assert_int_equal(b.cursize, 8);
	msg_write_byte(&b, 3); /* exactly full: one more overflows */
	assert_true(b.overflowed);
	assert_int_equal(b.cursize, 8);
	free(mem);
}

static void test_overflow_allowed_clears(void **state)
{
	uint8_t *mem = exact_buf(8);
	struct msg_buf b;

	(void)state;
	msg_init(&b, mem, 8);
	b.allow_overflow = true;
	msg_write_long(&b, 1);
	msg_write_long(&b, 2);
	msg_write_short(&b, 0x0605);
	assert_true(b.overflowed);
	assert_int_equal(b.cursize, 2); /* cleared, then the write landed */
	assert_int_equal(mem[0], 5);
	assert_int_equal(mem[1], 6);
	msg_write_byte(&b, 9); /* writing goes on after the clear */
	assert_int_equal(b.cursize, 3);
	assert_true(b.overflowed);

	/* larger than the whole buffer: cleared and nothing written */
	msg_write_data(&b, (uint8_t[9]){0}, 9);
	assert_true(b.overflowed);
	assert_int_equal(b.cursize, 0);
	free(mem);
}

static void test_canaries_untouched(void **state)
{
	uint8_t mem[48];
	struct msg_buf b;
	char out[64];

	(void)state;
	memset(mem, 0xcc, sizeof(mem));
	/* the buffer is mem[16..32); both sides are canaries */
	msg_init(&b, mem + 16, 16);
	for (int i = 0; i < 40; i++)
		msg_write_long(&b, -1);
	msg_write_string(&b, "a string longer than sixteen bytes");
	assert_true(b.overflowed);
	assert_int_equal(b.cursize, 16);
	for (int i = 0; i < 16; i++) {
		assert_int_equal(mem[i], 0xcc);
		assert_int_equal(mem[32 + i], 0xcc);
	}

	/* reads of a string without NUL stop at the end of the buffer */
	msg_begin_reading(&b);
	assert_int_equal(msg_read_string(&b, out, sizeof(out)), 16);
	assert_true(b.badread);
	for (int i = 0; i < 16; i++)
		assert_int_equal((uint8_t)out[i], 0xff);
}

static void test_read_string_truncates_but_consumes(void **state)
{
	static const char wire[] = "abcdefgh\0Z";
	uint8_t *mem = exact_buf(sizeof(wire) - 1);
	struct msg_buf b;
	char small[4];

	(void)state;
	memcpy(mem, wire, sizeof(wire) - 1);
	msg_init_read(&b, mem, sizeof(wire) - 1);
	assert_int_equal(msg_read_string(&b, small, sizeof(small)), 3);
	assert_string_equal(small, "abc");
	assert_false(b.badread);
	/* the rest of the string was consumed: the next read is 'Z' */
	assert_int_equal(msg_read_byte(&b), 'Z');

	/* no room at all: the string is skipped */
	msg_begin_reading(&b);
	assert_int_equal(msg_read_string(&b, NULL, 0), 0);
	assert_int_equal(msg_read_byte(&b), 'Z');

	/* 'Z' has no terminator: badread, but what was there is returned */
	msg_begin_reading(&b);
	msg_read_string(&b, NULL, 0);
	assert_int_equal(msg_read_string(&b, small, sizeof(small)), 1);
	assert_string_equal(small, "Z");
	assert_true(b.badread);
	free(mem);
}

static void test_read_string_line(void **state)
{
	static const char wire[] = "cmd one\ncmd two\0rest";
	uint8_t *mem = exact_buf(sizeof(wire));
	struct msg_buf b;
	char s[32];

	(void)state;
	memcpy(mem, wire, sizeof(wire));
	msg_init_read(&b, mem, sizeof(wire));
	assert_int_equal(msg_read_string_line(&b, s, sizeof(s)), 7);
	assert_string_equal(s, "cmd one");
	msg_read_string_line(&b, s, sizeof(s));
	assert_string_equal(s, "cmd two");
	msg_read_string_line(&b, s, sizeof(s));
	assert_string_equal(s, "rest");
	assert_false(b.badread); /* the array's own NUL ends "rest" */
	msg_read_string_line(&b, s, sizeof(s));
	assert_true(b.badread);

	/* msg_read_string does not stop at a newline */
	msg_begin_reading(&b);
	msg_read_string(&b, s, sizeof(s));
	assert_string_equal(s, "cmd one\ncmd two");
	free(mem);
}

static void test_raw_data_and_space(void **state)
{
	uint8_t *mem = exact_buf(10);
	struct msg_buf b;
	uint8_t out[6] = {0};
	uint8_t *p;

	(void)state;
	msg_init(&b, mem, 10);
	msg_write_data(&b, "\x01\x02\x03", 3);
	msg_write_data(&b, NULL, 0);
	p = msg_get_space(&b, 3);
	assert_ptr_equal(p, mem + 3);
	memcpy(p, "\x04\x05\x06", 3);
	assert_int_equal(b.cursize, 6);

	assert_true(msg_read_data(&b, out, 6));
	assert_memory_equal(out, "\x01\x02\x03\x04\x05\x06", 6);
	assert_true(msg_read_data(&b, out, 0));
	assert_false(msg_read_data(&b, out, 1));
	assert_true(b.badread);
	free(mem);
}

static const struct CMUnitTest msg_tests[] = {
	cmocka_unit_test(test_write_layout),
	cmocka_unit_test(test_round_trip),
	cmocka_unit_test(test_coord_and_angle_conversions),
	cmocka_unit_test(test_read_past_end),
	cmocka_unit_test(test_read_empty_buffer),
	cmocka_unit_test(test_corrupt_cursize_is_bounded),
	cmocka_unit_test(test_overflow_drops_write),
	cmocka_unit_test(test_overflow_allowed_clears),
	cmocka_unit_test(test_canaries_untouched),
	cmocka_unit_test(test_read_string_truncates_but_consumes),
	cmocka_unit_test(test_read_string_line),
	cmocka_unit_test(test_raw_data_and_space),
};

QWD_TEST_GROUP(common_msg, msg_tests, NULL, NULL)
