/*
 * test_crc.c -- CRC-16-CCITT and the clc_move checksum byte.
 *
 * Design note: the CRC is checked against the published check value of
 * CRC-16/CCITT-FALSE and against a bit-by-bit reference written here
 * (independent of the table in crc.c).  The checksum byte is checked
 * against that reference fed with table bytes copied by hand from id's
 * chktbl, against values computed by a separate Python model of id's
 * COM_BlockSequenceCRCByte, and by properties that follow from its
 * definition (60-byte cap, period of the sequence dependence).
 */
#include "../harness.h"

#include <qwd/common.h>

#include <string.h>

/* one bit at a time, MSB first, poly 0x1021, no reflection, no xor-out */
static uint16_t ref_crc(const uint8_t *p, size_t n)
{
	uint16_t crc = 0xffff;

	for (size_t i = 0; i < n; i++) {
		crc ^= (uint16_t)(p[i] << 8);
		for (int bit = 0; bit < 8; bit++)
			crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021)
					     : (uint16_t)(crc << 1);
	}
	return crc;
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

static void test_check_value(void **state)
{
	(void)state;
	assert_int_equal(crc_block("123456789", 9), 0x29b1);
	assert_int_equal(crc_block("", 0), 0xffff);
	assert_int_equal(crc_block("A", 1), 0xb915);
}

static void test_matches_bitwise_reference(void **state)
{
	uint8_t buf[300];

	(void)state;
	for (size_t len = 0; len <= sizeof(buf); len += 13) {
		fill(buf, len, (unsigned)len);
		assert_int_equal(crc_block(buf, len), ref_crc(buf, len));
	}
}

static void test_update_in_pieces(void **state)
{
	uint8_t buf[200];
	uint16_t crc = CRC_INIT;

	(void)state;
	fill(buf, sizeof(buf), 7);
	crc = crc_update(crc, buf, 1);
	crc = crc_update(crc, buf + 1, 99);
	crc = crc_update(crc, buf + 100, 0);
	crc = crc_update(crc, buf + 100, 100);
	assert_int_equal(crc, crc_block(buf, sizeof(buf)));
}

/* the byte as id defines it, from four table bytes given by the test */
static uint8_t ref_seq_byte(const uint8_t *base, size_t len, uint32_t seq,
			    const uint8_t t[4])
{
	uint8_t buf[64];

	if (len > 60)
		len = 60;
	memcpy(buf, base, len);
	buf[len] = (uint8_t)(seq & 0xff) ^ t[0];
	buf[len + 1] = t[1];
	buf[len + 2] = (uint8_t)((seq >> 8) & 0xff) ^ t[2];
	buf[len + 3] = t[3];
	return (uint8_t)(ref_crc(buf, len + 4) & 0xff);
}

static void test_sequence_byte_against_table(void **state)
{
	/* chktbl bytes at sequence % 1020, copied from id's common.c */
	static const struct {
		uint32_t seq;
		uint8_t t[4];
	} v[] = {
		{0, {0x78, 0xd2, 0x94, 0xe3}},
		{1, {0xd2, 0x94, 0xe3, 0x41}},
		{16, {0x23, 0xd2, 0xe5, 0xf2}},
		{508, {0x19, 0xfd, 0xc2, 0xd3}},
		{509, {0xfd, 0xc2, 0xd3, 0x00}}, /* runs into the zeros */
		{600, {0, 0, 0, 0}},
		{1019, {0, 0, 0, 0}},
		{1020, {0x78, 0xd2, 0x94, 0xe3}}, /* wraps to 0 */
		{1021 + 1020 * 300, {0xd2, 0x94, 0xe3, 0x41}},
	};
	uint8_t base[40];

	(void)state;
	fill(base, sizeof(base), 99);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		for (size_t len = 0; len <= sizeof(base); len += 20)
			assert_int_equal(
				com_block_sequence_crc_byte(base, len, v[i].seq),
				ref_seq_byte(base, len, v[i].seq, v[i].t));
	}
}

/* values from a separate Python model of id's function (the input is the
 * bytes 1, 2, ..., 39) */
static void test_sequence_byte_known_values(void **state)
{
	static const struct {
		uint32_t seq;
		uint8_t want;
	} v[] = {
		{0, 0x14},	   {1, 0x16},	  {2, 0x0c},	 {100, 0xa4},
		{509, 0xe6},	   {510, 0x1a},	  {511, 0x79},	 {512, 0x56},
		{600, 0xae},	   {1019, 0x35},  {1020, 0x38},	 {70000, 0x03},
		{0x7fffffff, 0xdc},
	};
	uint8_t base[39], longer[100];

	(void)state;
	for (size_t i = 0; i < sizeof(base); i++)
		base[i] = (uint8_t)(i + 1);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(
			com_block_sequence_crc_byte(base, sizeof(base), v[i].seq),
			v[i].want);

	assert_int_equal(com_block_sequence_crc_byte(NULL, 0, 0), 0xe0);
	assert_int_equal(com_block_sequence_crc_byte("", 0, 12345), 0x11);
	for (size_t i = 0; i < sizeof(longer); i++)
		longer[i] = (uint8_t)(i * 13 + 5);
	assert_int_equal(com_block_sequence_crc_byte(longer, sizeof(longer), 777),
			 0x46);
}

static void test_sequence_byte_properties(void **state)
{
	/* the byte depends on the sequence through sequence % 1020 and its
	 * low 16 bits only: lcm(1020, 65536) = 16711680 */
	const uint32_t period = 16711680u;
	uint8_t buf[80];
	int differs = 0;

	(void)state;
	fill(buf, sizeof(buf), 5);
	for (uint32_t seq = 0; seq < 5000; seq += 7) {
		uint8_t b = com_block_sequence_crc_byte(buf, 30, seq);

		assert_int_equal(b, com_block_sequence_crc_byte(buf, 30,
								seq + period));
		/* only the first 60 bytes count */
		assert_int_equal(com_block_sequence_crc_byte(buf, 80, seq),
				 com_block_sequence_crc_byte(buf, 60, seq));
		/* the sequence matters: not a constant function */
		differs += b != com_block_sequence_crc_byte(buf, 30, seq + 1);
	}
	assert_true(differs > 500);
}

static const struct CMUnitTest crc_tests[] = {
	cmocka_unit_test(test_check_value),
	cmocka_unit_test(test_matches_bitwise_reference),
	cmocka_unit_test(test_update_in_pieces),
	cmocka_unit_test(test_sequence_byte_against_table),
	cmocka_unit_test(test_sequence_byte_known_values),
	cmocka_unit_test(test_sequence_byte_properties),
};

QWD_TEST_GROUP(common_crc, crc_tests, NULL, NULL)
