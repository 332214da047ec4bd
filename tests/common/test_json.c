/*
 * test_json.c -- the JSON writer (src/common/json.c).
 *
 * Design note: each document is compared whole with the text it must be,
 * so the commas, the escapes and the layout are all pinned down: compact
 * and spaced members, nested objects and arrays, a string with every kind
 * of byte that needs escaping (Quake's high bytes included), NaN and
 * infinity as null, json_break's lines.  A buffer too small must not be
 * written, and the count of bytes asked for must say how much was needed.
 */
#include "../harness.h"

#include <qwd/common.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_compact(void **state)
{
	char buf[256];
	struct json_out j;

	(void)state;
	json_init(&j, NULL, buf, sizeof(buf));
	json_begin(&j, NULL, '{');
	json_str(&j, "s", "a\"b\\c\n\x01\x7f\xe9");
	json_u64(&j, "u", 18446744073709551615ull);
	json_i64(&j, "i", -3);
	json_num(&j, "n", 0.1);
	json_num(&j, "nan", NAN);
	json_fixed(&j, "inf", INFINITY, 2);
	json_fixed(&j, "f", 2.0 / 3.0, 3);
	json_bool(&j, "t", true);
	json_null(&j, "z");
	json_begin(&j, "a", '[');
	json_begin(&j, NULL, '{');
	json_end(&j);
	json_str(&j, NULL, "x");
	json_end(&j);
	json_end(&j);
	json_raw(&j, "\n");
	assert_int_equal(json_finish(&j, NULL), 0);
	assert_string_equal(buf,
		"{\"s\":\"a\\\"b\\\\c\\u000a\\u0001\\u007f\\u00e9\","
		"\"u\":18446744073709551615,\"i\":-3,\"n\":0.1,\"nan\":null,"
		"\"inf\":null,\"f\":0.667,\"t\":true,\"z\":null,\"a\":[{},\"x\"]}\n");
	assert_int_equal(j.len, strlen(buf));
}

static void test_spaced_lines_to_a_stream(void **state)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	struct json_out j;

	(void)state;
	assert_non_null(f);
	json_init(&j, f, NULL, 0);
	j.spaced = true;
	j.digits = 3;
	json_begin(&j, NULL, '{');
	json_break(&j, 2);
	json_i64(&j, "one", 1);
	json_break(&j, 2);
	json_begin(&j, "list", '[');
	json_num(&j, NULL, 3.14159);
	json_num(&j, NULL, 2);
	json_end(&j);
	json_break(&j, 0);
	json_end(&j);
	assert_int_equal(json_finish(&j, NULL), 0);
	fclose(f);
	assert_string_equal(text, "{\n  \"one\": 1,\n  \"list\": [3.14, 2]\n}");
	free(text);
}

static void test_too_small_and_misuse(void **state)
{
	char buf[8], big[64];
	struct json_out j;
	FILE *f = tmpfile();

	(void)state;
	assert_non_null(f);
	json_init(&j, NULL, buf, sizeof(buf));
	json_begin(&j, NULL, '{');
	json_str(&j, "key", "value");
	json_end(&j);
	/* cut: never written, but terminated, and the length wanted known */
	assert_int_equal(json_finish(&j, f), -1);
	assert_int_equal(ftell(f), 0);
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
	assert_int_equal(j.len, strlen("{\"key\":\"value\"}"));
	/* an object left open, or closed once too often */
	json_init(&j, NULL, big, sizeof(big));
	json_begin(&j, NULL, '{');
	assert_int_equal(json_finish(&j, NULL), -1);
	json_init(&j, NULL, big, sizeof(big));
	json_end(&j);
	assert_int_equal(json_finish(&j, NULL), -1);
	/* a whole line goes out with one write */
	json_init(&j, NULL, big, sizeof(big));
	json_begin(&j, NULL, '[');
	json_end(&j);
	json_raw(&j, "\n");
	assert_int_equal(json_finish(&j, f), 0);
	assert_int_equal(ftell(f), 3);
	fclose(f);
}

static const struct CMUnitTest json_tests[] = {
	cmocka_unit_test(test_compact),
	cmocka_unit_test(test_spaced_lines_to_a_stream),
	cmocka_unit_test(test_too_small_and_misuse),
};

QWD_TEST_GROUP(common_json, json_tests, NULL, NULL)
