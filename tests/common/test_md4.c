/*
 * test_md4.c -- MD4 against RFC 1320, and the QW block checksum.
 *
 * Design note: the digests not in the RFC (padding boundaries, a 1000-byte
 * and a 1 MB pattern, two community map files) and every block checksum
 * were computed outside qwd with `openssl dgst -md4 -provider legacy`, the
 * checksum by reading that digest as four little-endian words and XORing
 * them.  The map files are an optional extra (../shared/realmaps); the
 * 1 MB pattern, larger than most maps, always runs.
 */
#include "../harness.h"

#include <qwd/common.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hex16(const uint8_t d[16], char out[33])
{
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void assert_md4(const void *data, size_t len, const char *want)
{
	uint8_t d[16];
	char got[33];

	md4_digest(data, len, d);
	hex16(d, got);
	assert_string_equal(got, want);
}

static void test_rfc1320_vectors(void **state)
{
	static const struct {
		const char *msg, *digest;
	} v[] = {
		{"", "31d6cfe0d16ae931b73c59d7e0c089c0"},
		{"a", "bde52cb31de33e46245e05fbdbd6fb24"},
		{"abc", "a448017aaf21d8525fc10ae87aa6729d"},
		{"message digest", "d9130a8164549fe818874806e1c7014b"},
		{"abcdefghijklmnopqrstuvwxyz",
		 "d79e1c308aa5bbcdeea8ed63df412da9"},
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		 "0123456789",
		 "043f8582f241db351ce627e153e7f0e4"},
		{"1234567890123456789012345678901234567890"
		 "1234567890123456789012345678901234567890",
		 "e33b4ddc9c38f2199c3e7b164fcc0536"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_md4(v[i].msg, strlen(v[i].msg), v[i].digest);
}

/* lengths around the 56-byte padding boundary and the 64-byte block */
static void test_padding_boundaries(void **state)
{
	static const struct {
		size_t len;
		const char *digest;
	} v[] = {
		{55, "c889c81dd86c4d2e025778944ea02881"},
		{56, "d5f9a9e9257077a5f08b0b92f348b0ad"},
		{63, "7ea3da77432d44c323671097d1348fc8"},
		{64, "52f5076fabd22680234a3fa9f9dc5732"},
		{65, "330e377bf231f3cacfecc2c182fe7e5b"},
	};
	char a[65];

	(void)state;
	memset(a, 'a', sizeof(a));
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_md4(a, v[i].len, v[i].digest);
}

static void fill_pattern(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + 3);
}

/* feeding the data in pieces of any size gives the one-shot digest */
static void test_incremental_matches_oneshot(void **state)
{
	static const size_t chunks[] = {1, 3, 63, 64, 65, 127, 1000};
	uint8_t data[1000], want[16], got[16];
	char hex[33];

	(void)state;
	fill_pattern(data, sizeof(data));
	md4_digest(data, sizeof(data), want);
	hex16(want, hex);
	assert_string_equal(hex, "9a27d966bf4984d8597862b1c33bfbba");

	for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		struct md4_ctx ctx;

		md4_init(&ctx);
		for (size_t off = 0; off < sizeof(data); off += chunks[c]) {
			size_t n = sizeof(data) - off < chunks[c]
					   ? sizeof(data) - off
					   : chunks[c];

			md4_update(&ctx, data + off, n);
			md4_update(&ctx, NULL, 0);
		}
		md4_final(&ctx, got);
		assert_memory_equal(got, want, 16);
	}
}

static void test_block_checksum(void **state)
{
	static const char fox[] = "The quick brown fox jumps over the lazy dog";
	uint8_t data[1000];

	(void)state;
	assert_int_equal(com_block_checksum("", 0), 0xc6f640b7u);
	assert_int_equal(com_block_checksum("abc", 3), 0x5da10e2eu);
	assert_int_equal(com_block_checksum(fox, strlen(fox)), 0x4e91f187u);
	fill_pattern(data, sizeof(data));
	assert_int_equal(com_block_checksum(data, sizeof(data)), 0xb5c42dbfu);
}

/* many blocks, and an input the size of a map file: 2^20 + 7 bytes */
static void test_block_checksum_large(void **state)
{
	enum { LEN = (1 << 20) + 7 };
	uint8_t *data = malloc(LEN), d[16];
	char hex[33];

	(void)state;
	assert_non_null(data);
	fill_pattern(data, LEN);
	md4_digest(data, LEN, d);
	hex16(d, hex);
	assert_string_equal(hex, "e4d47d5c326427b02508c55698423db1");
	assert_int_equal(com_block_checksum(data, LEN), 0x0ba2fa6bu);
	free(data);
}

/* a whole real map: many blocks, and the input size the loader sees */
static void test_block_checksum_real_map(void **state)
{
	static const struct {
		const char *file;
		uint32_t sum;
	} v[] = {
		{"lqdm1.bsp", 0x906c3e5bu},
		{"ewt_testslime.bsp", 0x9ae20083u},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const char *path = qwd_realmap(v[i].file);
		uint8_t *data;
		size_t size = 0;

		if (!path)
			qwd_skip_no_realmaps();
		data = qwd_read_file(path, &size);
		if (!data)
			fail_msg("%s: cannot read the map", path);
		assert_int_equal(com_block_checksum(data, size), v[i].sum);
		free(data);
	}
}

static const struct CMUnitTest md4_tests[] = {
	cmocka_unit_test(test_rfc1320_vectors),
	cmocka_unit_test(test_padding_boundaries),
	cmocka_unit_test(test_incremental_matches_oneshot),
	cmocka_unit_test(test_block_checksum),
	cmocka_unit_test(test_block_checksum_large),
	cmocka_unit_test(test_block_checksum_real_map),
};

QWD_TEST_GROUP(common_md4, md4_tests, NULL, NULL)
