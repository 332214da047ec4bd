/*
 * test_oob.c -- connectionless packets and the line tokenizer.
 *
 * Design note: the tokenizer cases are the ones a hostile or merely odd
 * client produces: quotes (closed, unclosed, empty, glued to words),
 * comments, blanks of every kind, high-bit characters, too many
 * arguments, lines at and over the length limit, and random bytes, where
 * only the invariants are checked.
 */
#include "../harness.h"

#include <qwd/net.h>

#include <stdio.h>
#include <string.h>

static struct net_args args; /* big: keep it off the stack */

static void test_connectionless(void **state)
{
	uint8_t d[8] = {0xff, 0xff, 0xff, 0xff, 'p', 'i', 'n', 'g'};
	struct msg_buf m;

	(void)state;
	msg_init_read(&m, d, sizeof(d));
	assert_true(oob_is_connectionless(&m));
	msg_init_read(&m, d, 4);
	assert_true(oob_is_connectionless(&m));
	msg_init_read(&m, d, 3);
	assert_false(oob_is_connectionless(&m));
	d[3] = 0x7f; /* a netchan header with the reliable bit */
	msg_init_read(&m, d, sizeof(d));
	assert_false(oob_is_connectionless(&m));
}

static void test_build_oob(void **state)
{
	uint8_t out[16];

	(void)state;
	assert_int_equal(net_build_oob(out, sizeof(out), "c%d", 12345), 10);
	assert_memory_equal(out, "\xff\xff\xff\xff" "c12345", 10);
	/* 11 text bytes need 4 + 11 + NUL room = 16: fits exactly */
	assert_int_equal(net_build_oob(out, sizeof(out), "%s", "n0123456789"),
			 15);
	/* one more does not, and nothing cut is returned */
	assert_int_equal(
		net_build_oob(out, sizeof(out), "%s", "n0123456789a"), 0);
	assert_int_equal(net_build_oob(out, 4, "x"), 0);
	assert_int_equal(net_build_oob(out, 5, "%s", ""), 4);
}

static void expect_args(const char *text, int argc, const char *const *argv)
{
	int n = net_args_tokenize(&args, text);

	if (n != argc)
		fail_msg("\"%s\": argc %d, want %d", text, n, argc);
	for (int i = 0; i < argc; i++)
		assert_string_equal(net_args_argv(&args, i), argv[i]);
	assert_string_equal(net_args_argv(&args, argc), "");
	assert_string_equal(net_args_argv(&args, -1), "");
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__})

static void test_tokenize_basic(void **state)
{
	(void)state;
	expect_args("", 0, ARGS(""));
	expect_args("   \t\r ", 0, ARGS(""));
	expect_args("status", 1, ARGS("status"));
	expect_args("  getchallenge  ", 1, ARGS("getchallenge"));
	expect_args("a\tb\rc  d", 4, ARGS("a", "b", "c", "d"));
	expect_args("connect 28 1234 5678 \"\\name\\unnamed\\rate\\2500\"", 5,
		    ARGS("connect", "28", "1234", "5678",
			 "\\name\\unnamed\\rate\\2500"));
}

static void test_tokenize_quotes(void **state)
{
	(void)state;
	expect_args("say \"hello   world\"", 2, ARGS("say", "hello   world"));
	expect_args("a \"\" b", 3, ARGS("a", "", "b"));
	expect_args("a \"b c", 2, ARGS("a", "b c"));
	expect_args("\"abc\"def", 2, ARGS("abc", "def"));
	expect_args("ab\"cd ef\"", 2, ARGS("ab\"cd", "ef\""));
	expect_args("\"a // b\" c", 2, ARGS("a // b", "c"));
	expect_args("\"", 1, ARGS(""));
}

static void test_tokenize_comments_and_lines(void **state)
{
	(void)state;
	expect_args("a b // c d", 2, ARGS("a", "b"));
	expect_args("// all comment", 0, ARGS(""));
	expect_args("a//b c", 2, ARGS("a//b", "c"));
	expect_args("a /b", 2, ARGS("a", "/b"));

	/* one line only; next says where the following one starts */
	assert_int_equal(net_args_tokenize(&args, "a b\nc d"), 2);
	assert_int_equal(args.next, 4);
	assert_int_equal(net_args_tokenize(&args, "a b"), 2);
	assert_int_equal(args.next, 3);
	assert_int_equal(net_args_tokenize(&args, "\nx"), 0);
	assert_int_equal(args.next, 1);
	/* a quote does not run into the next line (the next command) */
	assert_int_equal(net_args_tokenize(&args, "say \"x\nquit\""), 2);
	assert_string_equal(net_args_argv(&args, 1), "x");
	/* neither does a comment */
	assert_int_equal(net_args_tokenize(&args, "a // x\nquit"), 1);
}

static void test_tokenize_high_bytes(void **state)
{
	(void)state;
	expect_args("name \x80\xe1\xff x", 3, ARGS("name", "\x80\xe1\xff", "x"));
}

static void test_tokenize_rest(void **state)
{
	(void)state;
	assert_int_equal(net_args_tokenize(&args,
					   "rcon secret  kick \"bad guy\"  \r"),
			 4);
	assert_string_equal(net_args_rest(&args, 2), "kick \"bad guy\"");
	assert_string_equal(net_args_rest(&args, 0),
			    "rcon secret  kick \"bad guy\"");
	assert_string_equal(net_args_rest(&args, 4), "");
	assert_string_equal(net_args_rest(&args, -1), "");

	assert_int_equal(net_args_tokenize(&args, "say hi // there\nnext"), 2);
	assert_string_equal(net_args_rest(&args, 1), "hi // there");
	assert_int_equal(net_args_tokenize(&args, "say"), 1);
	assert_string_equal(net_args_rest(&args, 1), "");
}

static void test_tokenize_limits(void **state)
{
	static char text[4 * NET_ARGS_LINE];
	size_t n = 0;

	(void)state;
	/* more than NET_ARGS_MAX arguments: the extra ones are dropped, the
	   rest of the line still has them */
	for (int i = 0; i < NET_ARGS_MAX + 20; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%d ", i);
	assert_true(n < NET_ARGS_LINE);
	assert_int_equal(net_args_tokenize(&args, text), NET_ARGS_MAX);
	assert_string_equal(net_args_argv(&args, NET_ARGS_MAX - 1), "79");
	assert_string_equal(net_args_argv(&args, NET_ARGS_MAX), "");
	assert_non_null(strstr(net_args_rest(&args, 79), "99"));

	/* the longest line allowed, as one token */
	memset(text, 'x', NET_ARGS_LINE - 1);
	text[NET_ARGS_LINE - 1] = '\0';
	assert_int_equal(net_args_tokenize(&args, text), 1);
	assert_int_equal(strlen(net_args_argv(&args, 0)), NET_ARGS_LINE - 1);
	/* one more byte is refused */
	memset(text, 'x', NET_ARGS_LINE);
	text[NET_ARGS_LINE] = '\0';
	assert_int_equal(net_args_tokenize(&args, text), -1);
	assert_int_equal(args.argc, 0);
	assert_string_equal(net_args_argv(&args, 0), "");
	assert_int_equal(args.next, NET_ARGS_LINE);
	/* but a long second line does not matter */
	memcpy(text, "ok\n", 3);
	assert_int_equal(net_args_tokenize(&args, text), 1);

	/* the worst case for storage: many one-letter arguments */
	for (size_t i = 0; i + 1 < NET_ARGS_LINE - 1; i += 2) {
		text[i] = 'a';
		text[i + 1] = ' ';
	}
	text[NET_ARGS_LINE - 1] = '\0';
	assert_int_equal(net_args_tokenize(&args, text), NET_ARGS_MAX);
	/* and many empty quoted ones */
	for (size_t i = 0; i + 2 < NET_ARGS_LINE - 1; i += 3)
		memcpy(text + i, "\"\" ", 3);
	assert_int_equal(net_args_tokenize(&args, text), NET_ARGS_MAX);
	assert_string_equal(net_args_argv(&args, 5), "");
}

static void test_tokenize_random(void **state)
{
	static char text[NET_ARGS_LINE + 64];
	uint32_t seed = 2463534242u;

	(void)state;
	for (int round = 0; round < 3000; round++) {
		size_t len = (size_t)round % (sizeof(text) - 1);
		int argc;

		for (size_t i = 0; i < len; i++) {
			seed ^= seed << 13;
			seed ^= seed >> 17;
			seed ^= seed << 5;
			/* mostly the interesting bytes */
			text[i] = (char)((seed & 3) == 0	 ? '"'
					 : (seed & 3) == 1 ? ' '
					 : (seed & 7) == 2 ? '/'
							   : (seed >> 8));
			if (text[i] == '\0')
				text[i] = 'z';
		}
		text[len] = '\0';
		argc = net_args_tokenize(&args, text);
		assert_true(argc >= -1 && argc <= NET_ARGS_MAX);
		assert_true(args.next <= len + 1);
		for (int i = 0; i < args.argc; i++) {
			assert_true(strlen(net_args_argv(&args, i)) < NET_ARGS_LINE);
			assert_true(strlen(net_args_rest(&args, i)) <
				    NET_ARGS_LINE);
		}
	}
}

static const struct CMUnitTest oob_tests[] = {
	cmocka_unit_test(test_connectionless),
	cmocka_unit_test(test_build_oob),
	cmocka_unit_test(test_tokenize_basic),
	cmocka_unit_test(test_tokenize_quotes),
	cmocka_unit_test(test_tokenize_comments_and_lines),
	cmocka_unit_test(test_tokenize_high_bytes),
	cmocka_unit_test(test_tokenize_rest),
	cmocka_unit_test(test_tokenize_limits),
	cmocka_unit_test(test_tokenize_random),
};

QWD_TEST_GROUP(net_oob, oob_tests, NULL, NULL)
