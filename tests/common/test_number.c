/*
 * test_number.c -- strict number parsing (qwd_parse_int, qwd_parse_double).
 *
 * Design note: the promise is "the whole string, in range, or false with
 * the output untouched"; each case below breaks one part of it (junk
 * after the number, an empty string, a bound, an overflow, octal, NaN)
 * and checks that the output kept its sentinel.
 */
#include "../harness.h"

#include <qwd/common.h>

#include <limits.h>

static void test_integers(void **state)
{
	long long v = -7;

	(void)state;
	assert_true(qwd_parse_int("42", 0, 100, false, &v));
	assert_int_equal(v, 42);
	assert_true(qwd_parse_int("-32768", -32768, 32767, false, &v));
	assert_int_equal(v, -32768);
	assert_true(qwd_parse_int("010", 0, 100, true, &v));
	assert_int_equal(v, 10);		/* never octal */
	assert_true(qwd_parse_int("0x1F", 0, 100, true, &v));
	assert_int_equal(v, 31);

	v = -7;
	assert_false(qwd_parse_int("0x1F", 0, 100, false, &v));	/* hex not allowed */
	assert_false(qwd_parse_int("", 0, 100, false, &v));
	assert_false(qwd_parse_int("12x", 0, 100, false, &v));
	assert_false(qwd_parse_int("101", 0, 100, false, &v));
	assert_false(qwd_parse_int("-1", 0, 100, false, &v));
	assert_false(qwd_parse_int("99999999999999999999", 0, LLONG_MAX, false, &v));
	assert_int_equal(v, -7);
}

static void test_doubles(void **state)
{
	double d = -7;

	(void)state;
	assert_true(qwd_parse_double("0.25", 0, 1, &d));
	assert_true(d == 0.25);
	assert_true(qwd_parse_double("-360", -360, 360, &d));
	assert_true(d == -360);

	d = -7;
	assert_false(qwd_parse_double("", 0, 1, &d));
	assert_false(qwd_parse_double("0.5s", 0, 1, &d));
	assert_false(qwd_parse_double("1.5", 0, 1, &d));
	assert_false(qwd_parse_double("nan", -1e9, 1e9, &d));
	assert_false(qwd_parse_double("inf", -1e300, 1e300, &d));
	assert_false(qwd_parse_double("1e999", 0, 1e300, &d));	/* overflow */
	assert_true(d == -7);
}

static const struct CMUnitTest number_tests[] = {
	cmocka_unit_test(test_integers),
	cmocka_unit_test(test_doubles),
};

QWD_TEST_GROUP(common_number, number_tests, NULL, NULL)
