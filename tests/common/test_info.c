/*
 * test_info.c -- info strings: lookup, set, remove, iteration, and the
 * malformed strings clients can send.
 *
 * Design note: every setter error is checked to leave the string exactly
 * as it was; size limits are probed at the last byte that fits and the
 * first that does not.
 */
#include "../harness.h"

#include <qwd/common.h>

#include <stdio.h>
#include <string.h>

static void assert_value(const char *s, const char *key, const char *want)
{
	char v[128];

	assert_true(info_value_for_key(s, key, v, sizeof(v)));
	assert_string_equal(v, want);
}

static void assert_absent(const char *s, const char *key)
{
	char v[8] = "junk";

	assert_false(info_value_for_key(s, key, v, sizeof(v)));
	assert_string_equal(v, "");
}

static void test_value_for_key(void **state)
{
	const char *s = "\\name\\player\\team\\red\\namex\\1";

	(void)state;
	assert_value(s, "name", "player");
	assert_value(s, "team", "red");
	assert_value(s, "namex", "1");
	assert_absent(s, "nam");  /* a prefix is not a key */
	assert_absent(s, "player"); /* a value is not a key */
	assert_absent(s, "");
	assert_absent("", "name");
	assert_absent("\\", "name");
}

static void test_value_truncated_to_buffer(void **state)
{
	char v[4];

	(void)state;
	assert_true(info_value_for_key("\\k\\abcdefgh", "k", v, sizeof(v)));
	assert_string_equal(v, "abc");
	/* no buffer at all: only the answer */
	assert_true(info_value_for_key("\\k\\abcdefgh", "k", NULL, 0));
	assert_false(info_value_for_key("\\k\\abcdefgh", "x", NULL, 0));
}

static void test_malformed_strings(void **state)
{
	(void)state;
	/* missing leading backslash */
	assert_value("name\\player\\team\\red", "name", "player");
	assert_value("name\\player\\team\\red", "team", "red");
	/* odd number of fields: the trailing key has no value */
	assert_value("\\a\\1\\b", "a", "1");
	assert_absent("\\a\\1\\b", "b");
	assert_absent("\\lonely", "lonely");
	/* empty value, and a trailing separator */
	assert_value("\\a\\\\b\\2", "a", "");
	assert_value("\\a\\\\b\\2", "b", "2");
	assert_value("\\a\\1\\b\\", "b", "");
	/* duplicates: the first one counts */
	assert_value("\\a\\1\\a\\2", "a", "1");
}

static void test_iteration(void **state)
{
	static const char *const want[][2] = {
		{"name", "player"}, {"team", ""}, {"*ver", "qwd 0.1"}};
	struct info_iter it;
	struct info_pair p;
	int n = 0;

	(void)state;
	info_iter_init(&it, "\\name\\player\\team\\\\*ver\\qwd 0.1\\dangling");
	while (info_iter_next(&it, &p)) {
		assert_true(n < 3);
		assert_int_equal(p.key_len, strlen(want[n][0]));
		assert_memory_equal(p.key, want[n][0], p.key_len);
		assert_int_equal(p.value_len, strlen(want[n][1]));
		assert_memory_equal(p.value, want[n][1], p.value_len);
		n++;
	}
	assert_int_equal(n, 3);
	/* the end is stable */
	assert_false(info_iter_next(&it, &p));

	info_iter_init(&it, "");
	assert_false(info_iter_next(&it, &p));
	info_iter_init(&it, "k\\v");
	assert_true(info_iter_next(&it, &p));
	assert_int_equal(p.key_len, 1);
	assert_int_equal(p.value_len, 1);
	assert_false(info_iter_next(&it, &p));
}

static void test_set_and_replace(void **state)
{
	char s[MAX_INFO_STRING] = "";

	(void)state;
	assert_int_equal(info_set_value_for_key(s, sizeof(s), "name", "bob"),
			 INFO_OK);
	assert_string_equal(s, "\\name\\bob");
	assert_int_equal(info_set_value_for_key(s, sizeof(s), "team", "red"),
			 INFO_OK);
	assert_int_equal(info_set_value_for_key(s, sizeof(s), "name", "alice"),
			 INFO_OK);
	assert_string_equal(s, "\\team\\red\\name\\alice");
	/* an empty (or NULL) value removes the key */
	assert_int_equal(info_set_value_for_key(s, sizeof(s), "team", ""),
			 INFO_OK);
	assert_string_equal(s, "\\name\\alice");
	assert_int_equal(info_set_value_for_key(s, sizeof(s), "name", NULL),
			 INFO_OK);
	assert_string_equal(s, "");
	/* high-bit characters (Quake's coloured text) are allowed */
	assert_int_equal(info_set_value_for_key(s, sizeof(s), "name",
						"\xe2\xe2x"),
			 INFO_OK);
	assert_value(s, "name", "\xe2\xe2x");
}

static void test_remove_key(void **state)
{
	char s[64] = "\\a\\1\\b\\2\\a\\3\\c\\4";

	(void)state;
	assert_true(info_remove_key(s, "a"));
	assert_string_equal(s, "\\b\\2\\c\\4"); /* every duplicate */
	assert_false(info_remove_key(s, "a"));
	assert_false(info_remove_key(s, "b\\2"));
	assert_string_equal(s, "\\b\\2\\c\\4");
	assert_true(info_remove_key(s, "c"));
	assert_string_equal(s, "\\b\\2");
	assert_true(info_remove_key(s, "b"));
	assert_string_equal(s, "");

	/* the first pair without its leading backslash */
	strcpy(s, "a\\1\\b\\2");
	assert_true(info_remove_key(s, "a"));
	assert_string_equal(s, "\\b\\2");
	strcpy(s, "a\\1\\b\\2");
	assert_true(info_remove_key(s, "b"));
	assert_string_equal(s, "a\\1");
}

static void test_set_rejects_bad_fields(void **state)
{
	char s[MAX_INFO_STRING] = "\\name\\bob";
	char long_field[INFO_MAX_FIELD + 2];
	static const struct {
		const char *key, *value;
		enum info_result want;
	} v[] = {
		{"na\\me", "x", INFO_ERR_BADCHAR},
		{"name", "x\\y", INFO_ERR_BADCHAR},
		{"name", "say \"hi\"", INFO_ERR_BADCHAR},
		{"name", "two\nlines", INFO_ERR_BADCHAR},
		{"na\rme", "x", INFO_ERR_BADCHAR},
		{"", "x", INFO_ERR_EMPTYKEY},
		{"*spectator", "1", INFO_ERR_STARKEY},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_int_equal(info_set_value_for_key(s, sizeof(s), v[i].key,
							v[i].value),
				 v[i].want);
		assert_string_equal(s, "\\name\\bob");
	}

	/* 63 characters are allowed, 64 are not, for keys and values */
	memset(long_field, 'k', sizeof(long_field));
	long_field[INFO_MAX_FIELD + 1] = '\0';
	assert_int_equal(info_set_value_for_key(s, sizeof(s), long_field, "v"),
			 INFO_ERR_TOOLONG);
	assert_int_equal(info_set_value_for_key(s, sizeof(s), "k", long_field),
			 INFO_ERR_TOOLONG);
	assert_string_equal(s, "\\name\\bob");
	long_field[INFO_MAX_FIELD] = '\0';
	assert_int_equal(info_set_value_for_key(s, sizeof(s), long_field,
						long_field),
			 INFO_OK);
	assert_value(s, long_field, long_field);

	/* the server may set star keys */
	assert_int_equal(info_set_star_value_for_key(s, sizeof(s), "*spectator",
						     "1"),
			 INFO_OK);
	assert_value(s, "*spectator", "1");
}

static void test_size_limit(void **state)
{
	/* "\k\" + value: 3 + n bytes; with size 16, n = 12 is the largest
	 * that leaves room for the NUL */
	char s[16] = "";
	char buf[32];

	(void)state;
	assert_int_equal(info_set_value_for_key(s, sizeof(s), "k",
						"0123456789abc"),
			 INFO_ERR_NOROOM);
	assert_string_equal(s, "");
	assert_int_equal(info_set_value_for_key(s, sizeof(s), "k",
						"0123456789ab"),
			 INFO_OK);
	assert_int_equal(strlen(s), 15);

	/* a longer replacement that does not fit keeps the old value */
	assert_int_equal(info_set_value_for_key(s, sizeof(s), "k",
						"0123456789abX"),
			 INFO_ERR_NOROOM);
	assert_value(s, "k", "0123456789ab");
	/* a replacement that fits only once the old pair is gone is fine */
	assert_int_equal(info_set_value_for_key(s, sizeof(s), "k",
						"ba9876543210"),
			 INFO_OK);
	assert_string_equal(s, "\\k\\ba9876543210");

	/* a string not terminated within its size is refused, untouched */
	memcpy(buf, "\\a\\bcdefgh", 11);
	assert_int_equal(info_set_value_for_key(buf, 4, "x", "y"),
			 INFO_ERR_NOROOM);
	assert_string_equal(buf, "\\a\\bcdefgh");
	assert_int_equal(info_set_value_for_key(buf, 0, "x", "y"),
			 INFO_ERR_NOROOM);
}

/* fill a userinfo until it refuses: it never reaches MAX_INFO_STRING */
static void test_fill_userinfo(void **state)
{
	char s[MAX_INFO_STRING + 8];
	int ok = 0, last = INFO_OK;

	(void)state;
	memset(s, 0x5a, sizeof(s));
	s[0] = '\0';
	for (int i = 0; i < 100; i++) {
		char key[8];

		snprintf(key, sizeof(key), "k%d", i);
		last = info_set_value_for_key(s, MAX_INFO_STRING, key, "value");
		if (last != INFO_OK)
			break;
		ok++;
		assert_true(strlen(s) < MAX_INFO_STRING);
	}
	assert_int_equal(last, INFO_ERR_NOROOM);
	assert_true(ok > 10);
	/* nothing was written past the given size */
	for (size_t i = MAX_INFO_STRING; i < sizeof(s); i++)
		assert_int_equal((unsigned char)s[i], 0x5a);
}

static void test_set_on_malformed(void **state)
{
	char s[64];

	(void)state;
	/* a dangling key is dropped by a setter, so it cannot swallow the
	 * new pair as its value */
	strcpy(s, "\\a\\1\\dangling");
	assert_int_equal(info_set_value_for_key(s, sizeof(s), "b", "2"),
			 INFO_OK);
	assert_string_equal(s, "\\a\\1\\b\\2");

	strcpy(s, "a\\1");
	assert_int_equal(info_set_value_for_key(s, sizeof(s), "b", "2"),
			 INFO_OK);
	assert_string_equal(s, "a\\1\\b\\2");
	assert_value(s, "a", "1");

	/* duplicates are all replaced, so the new value is what reads back */
	strcpy(s, "\\a\\1\\a\\2");
	assert_int_equal(info_set_value_for_key(s, sizeof(s), "a", "3"),
			 INFO_OK);
	assert_string_equal(s, "\\a\\3");
}

static const struct CMUnitTest info_tests[] = {
	cmocka_unit_test(test_value_for_key),
	cmocka_unit_test(test_value_truncated_to_buffer),
	cmocka_unit_test(test_malformed_strings),
	cmocka_unit_test(test_iteration),
	cmocka_unit_test(test_set_and_replace),
	cmocka_unit_test(test_remove_key),
	cmocka_unit_test(test_set_rejects_bad_fields),
	cmocka_unit_test(test_size_limit),
	cmocka_unit_test(test_fill_userinfo),
	cmocka_unit_test(test_set_on_malformed),
};

QWD_TEST_GROUP(common_info, info_tests, NULL, NULL)
