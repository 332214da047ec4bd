/*
 * test_rcon.c -- the hashed rcon digest: SHA-1 as linked (FIPS 180 test
 * vectors), the time stamp's byte order, the digest against one made by
 * another implementation, and the packet ezQuake sends.
 *
 * Design note: the known answer below was computed outside this code,
 * with coreutils' sha1sum, from the layout ezQuake's CL_Rcon_f writes:
 *   printf 'rcon secretC3B2A16500000000 say hello world ' | sha1sum
 * so a slip in the layout (order, a missing space, the time's byte order)
 * fails here and not only against ezQuake.
 */
#include "../harness.h"

#include <qwd/net.h>

#include <stdio.h>
#include <string.h>

#include <sha1.h>

static void hex(const uint8_t *d, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

/* FIPS 180-2 appendix A: "abc", the 448-bit message, a million 'a' */
static void test_sha1_vectors(void **state)
{
	static const struct {
		const char *msg;
		int repeat;
		const char *digest;
	} v[] = {
		{"abc", 1, "a9993e364706816aba3e25717850c26c9cd0d89d"},
		{"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
		 "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
		{"a", 1000000, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"},
		{"", 1, "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
	};
	char got[41];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		SHA1_CTX c;
		uint8_t d[SHA1_DIGEST_LENGTH];

		SHA1Init(&c);
		for (int r = 0; r < v[i].repeat; r++)
			SHA1Update(&c, (const uint8_t *)v[i].msg, strlen(v[i].msg));
		SHA1Final(d, &c);
		hex(d, sizeof(d), got);
		assert_string_equal(got, v[i].digest);
	}
}

static void test_time_stamp(void **state)
{
	char text[RCON_TIME_HEX + 1];
	int64_t t;

	(void)state;
	/* least significant byte first, two upper-case digits each */
	rcon_time_hex(0x65A1B2C3, text);
	assert_string_equal(text, "C3B2A16500000000");
	assert_true(rcon_time_parse(text, &t));
	assert_int_equal(t, 0x65A1B2C3);
	assert_true(rcon_time_parse("c3b2a16500000000", &t));
	assert_int_equal(t, 0x65A1B2C3);
	rcon_time_hex(0x0123456789ABCDEFll, text);
	assert_string_equal(text, "EFCDAB8967452301");
	assert_true(rcon_time_parse(text, &t));
	assert_int_equal(t, 0x0123456789ABCDEFll);
	assert_false(rcon_time_parse("C3B2A1650000000", &t));	/* 15 digits */
	assert_false(rcon_time_parse("C3B2A165000000G0", &t));
}

static void test_digest_known_answer(void **state)
{
	const char *argv[] = {"say", "hello", "world"};
	uint8_t d[RCON_SHA1], parsed[RCON_SHA1];
	char got[41];

	(void)state;
	rcon_digest("secret", "C3B2A16500000000", 3, argv, d);
	hex(d, sizeof(d), got);
	assert_string_equal(got, "327c7741751553655ce49d9173dd87ab29a7fe3e");
	assert_true(rcon_digest_parse("327C7741751553655CE49D9173DD87AB29A7FE3E", parsed));
	assert_memory_equal(parsed, d, RCON_SHA1);
	assert_false(rcon_digest_parse("327C7741751553655CE49D9173DD87AB29A7FE3", parsed));
	assert_false(rcon_digest_parse("327C7741751553655CE49D9173DD87AB29A7FEZE", parsed));
}

static void test_packet_as_ezquake_sends_it(void **state)
{
	const char *argv[] = {"say", "hello", "world"};
	const char want[] = "\xff\xff\xff\xff" "rcon 327C7741751553655CE49D9173DD87AB29A7FE3E"
			    "C3B2A16500000000 say hello world ";
	uint8_t buf[256];
	size_t n;

	(void)state;
	n = rcon_build_hashed(buf, sizeof(buf), "secret", 0x65A1B2C3, 3, argv);
	assert_int_equal(n, sizeof(want));	/* the NUL is sent too */
	assert_memory_equal(buf, want, sizeof(want));
	/* too small: nothing, never a cut packet */
	assert_int_equal(rcon_build_hashed(buf, 70, "secret", 0x65A1B2C3, 3, argv), 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_sha1_vectors),
	cmocka_unit_test(test_time_stamp),
	cmocka_unit_test(test_digest_known_answer),
	cmocka_unit_test(test_packet_as_ezquake_sends_it),
};

QWD_TEST_GROUP(rcon_digest, tests, NULL, NULL)
