/*
 * test_rcon.c -- rcon as MVDSV's operators use it: hashed (ezQuake's
 * cl_crypt_rcon) accepted, plain refused unless sv_crypt_rcon 0, a
 * replayed digest and one out of the time window refused, the table of
 * used digests full, and what rcon may not touch.
 *
 * Design note
 *   Packets are built as ezQuake builds them (rcon_build_hashed, checked
 *   against sha1sum in tests/net/test_rcon.c) and sent over real sockets
 *   from 127.0.0.7.  Whether a command ran is read from what it changes
 *   (a cvar), not only from the answer, so a refusal that still ran the
 *   command fails.  The rcon budget is raised (sv_oob_rcon) so the
 *   several tries of a test all reach the checks under test.
 */
#include "srvfix.h"

#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void setup_rcon(struct srvfix *f)
{
	srvfix_start(f, 8);
	assert_int_equal(cvar_set(f->sv, "rcon_password", "secret"), 0);
	assert_int_equal(cvar_set(f->sv, "sv_oob_rcon", "100 100 1000 1000"), 0);
}

/* a packet of len bytes from 127.0.0.7; the answer's text after the
 * header and 'n' ("" when none came) */
static const char *send_rcon(struct srvfix *f, const void *pkt, size_t len)
{
	static char text[2048];
	uint8_t reply[2048];
	int fd = f->nsockets ? f->sockets[0] : srvfix_socket(f, "127.0.0.7");
	size_t n = srvfix_exchange(f, fd, pkt, len, reply, sizeof(reply) - 1, 1.0);

	if (n < 5) {
		text[0] = '\0';
		return text;
	}
	assert_memory_equal(reply, "\xff\xff\xff\xffn", 5);
	memcpy(text, reply + 5, n - 5);
	text[n - 5] = '\0';
	return text;
}

static const char *hashed(struct srvfix *f, const char *password, int64_t t,
			  int argc, const char *const *argv)
{
	uint8_t pkt[512];
	size_t n = rcon_build_hashed(pkt, sizeof(pkt), password, t, argc, argv);

	assert_true(n > 0);
	return send_rcon(f, pkt, n);
}

static const char *plain(struct srvfix *f, const char *line)
{
	char pkt[512];
	int n = snprintf(pkt, sizeof(pkt), "\xff\xff\xff\xff%s", line);

	return send_rcon(f, pkt, (size_t)n + 1);
}

static const char *hostname(const struct srvfix *f)
{
	return f->sv->hostname->string;
}

static void test_hashed_accepted_plain_refused(void **state)
{
	struct srvfix *f = *state;
	const char *set_one[] = {"hostname", "one"}, *info[] = {"serverinfo"};
	int64_t now = (int64_t)time(NULL);

	setup_rcon(f);
	assert_int_equal(f->sv->rcon->sv_crypt_rcon->value, 1);	/* the default */
	assert_string_equal(hashed(f, "secret", now, 2, set_one), "");
	assert_string_equal(hostname(f), "one");
	assert_non_null(strstr(hashed(f, "secret", now, 1, info), "small"));
	assert_int_equal(srvfix_log_count(f, "(hashed): hostname one"), 1);

	/* the password in clear is refused without being looked at */
	assert_string_equal(plain(f, "rcon secret hostname two"),
			    "plain rcon refused: this server takes hashed rcon only "
			    "(sv_crypt_rcon 1; ezQuake: cl_crypt_rcon 1)\n");
	assert_string_equal(hostname(f), "one");
	/* a wrong password, hashed */
	assert_string_equal(hashed(f, "guess", now, 2, set_one), "bad rcon password.\n");

	/* sv_crypt_rcon 0: both forms */
	assert_int_equal(cvar_set(f->sv, "sv_crypt_rcon", "0"), 0);
	assert_string_equal(plain(f, "rcon secret hostname two"), "");
	assert_string_equal(hostname(f), "two");
	assert_string_equal(plain(f, "rcon wrong hostname three"), "bad rcon password.\n");
	assert_string_equal(hostname(f), "two");
	{
		const char *set_four[] = {"hostname", "four"};

		assert_string_equal(hashed(f, "secret", now, 2, set_four), "");
		assert_string_equal(hostname(f), "four");
	}
	/* no rcon_password: rcon is off, whatever the form */
	assert_int_equal(cvar_set(f->sv, "rcon_password", ""), 0);
	assert_string_equal(plain(f, "rcon  hostname five"), "bad rcon password.\n");
	assert_string_equal(hostname(f), "four");
}

/* the refusal names the client's clock off the server's by `skew`
 * seconds, or one less (a second ticked before the server read it) */
static void assert_skew(const char *answer, long skew)
{
	const char *p = strstr(answer, "rcon refused: your clock is ");
	long said;

	assert_non_null(p);
	said = strtol(p + strlen("rcon refused: your clock is "), NULL, 10);
	assert_true(said == skew || said == skew - 1);
}

static void test_replay_and_window(void **state)
{
	struct srvfix *f = *state;
	const char *set_one[] = {"hostname", "one"}, *set_two[] = {"hostname", "two"};
	uint8_t pkt[512];
	int64_t now = (int64_t)time(NULL);
	size_t n;

	setup_rcon(f);
	n = rcon_build_hashed(pkt, sizeof(pkt), "secret", now, 2, set_one);
	assert_string_equal(send_rcon(f, pkt, n), "");
	assert_string_equal(hostname(f), "one");
	/* the very packet again: refused, not run */
	assert_int_equal(cvar_set(f->sv, "hostname", "zero"), 0);
	assert_non_null(strstr(send_rcon(f, pkt, n), "rcon refused: this command was "
							 "sent already"));
	assert_string_equal(hostname(f), "zero");
	assert_int_equal(f->sv->rcon->replays, 1);
	assert_int_equal(srvfix_log_count(f, ": digest already used"), 1);

	/* a time stamp outside sv_timestamplen (60); the server reads its
	 * clock a moment after `now`, maybe in the next second */
	assert_skew(hashed(f, "secret", now - 120, 2, set_two), -120);
	assert_skew(hashed(f, "secret", now + 300, 2, set_two), 300);
	assert_string_equal(hostname(f), "zero");
	/* inside it, either side */
	assert_string_equal(hashed(f, "secret", now - 50, 2, set_two), "");
	assert_string_equal(hostname(f), "two");
	assert_string_equal(hashed(f, "secret", now + 50, 2, set_one), "");
	assert_string_equal(hostname(f), "one");
	/* a narrower window */
	assert_int_equal(cvar_set(f->sv, "sv_timestamplen", "10"), 0);
	assert_non_null(strstr(hashed(f, "secret", now - 30, 2, set_two),
			       "(sv_timestamplen 10)"));
	assert_string_equal(hostname(f), "one");
	/* a digest that is not hex, or a time that is not */
	assert_string_equal(plain(f, "rcon ZZ7C7741751553655CE49D9173DD87AB29A7FE3EC3B2A16500000000 "
				 "hostname x"), "bad rcon password.\n");
	assert_string_equal(hostname(f), "one");
}

/* every digest accepted within the window is remembered: when the table
 * is full the next command is refused, and room comes back as the
 * remembered ones leave the window */
static void test_seen_table_full(void **state)
{
	struct srvfix *f = *state;
	struct net_addr from;
	struct net_args a;
	int64_t now = (int64_t)time(NULL);
	uint8_t pkt[256];
	char n_text[16];
	const char *argv[] = {"serverinfo", n_text};

	setup_rcon(f);
	assert_true(net_addr_parse("127.0.0.7:27001", 0, &from));
	for (int i = 0; i <= SV_RCON_SEEN; i++) {
		snprintf(n_text, sizeof(n_text), "%d", i);
		assert_true(rcon_build_hashed(pkt, sizeof(pkt), "secret", now - 50, 2, argv) > 0);
		assert_true(net_args_tokenize(&a, (char *)pkt + 4) > 0);
		sv_rcon(f->sv, &from, &a);
	}
	assert_int_equal(f->sv->rcon->accepted, SV_RCON_SEEN);
	assert_int_equal(srvfix_log_count(f, ": too many hashed commands in the window"), 1);
	/* with a 10 s window those stamped 50 s ago are out of it for good */
	assert_int_equal(cvar_set(f->sv, "sv_timestamplen", "10"), 0);
	snprintf(n_text, sizeof(n_text), "again");
	assert_true(rcon_build_hashed(pkt, sizeof(pkt), "secret", now, 2, argv) > 0);
	assert_true(net_args_tokenize(&a, (char *)pkt + 4) > 0);
	sv_rcon(f->sv, &from, &a);
	assert_int_equal(f->sv->rcon->accepted, SV_RCON_SEEN + 1);
}

/* what rcon may not do: the logs and the rcon rules */
static void test_forbidden_over_rcon(void **state)
{
	struct srvfix *f = *state;
	int64_t now = (int64_t)time(NULL);
	static const char *const lines[][3] = {
		{"sv_logdir", "/etc", NULL},
		{"set", "sv_logdir", "/etc"},
		{"logrcon", "off", NULL},
		{"sv_crypt_rcon", "0", NULL},
		{"SV_TIMESTAMPLEN", "9999", NULL},
	};
	char out[256];

	setup_rcon(f);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		int argc = lines[i][2] ? 3 : 2;
		const char *what = argc == 3 ? lines[i][1] : lines[i][0];

		snprintf(out, sizeof(out), "%s: not over rcon (the server's console or "
			 "config only)\n", what);
		assert_string_equal(hashed(f, "secret", now, argc, lines[i]), out);
	}
	assert_string_equal(f->sv->logs->sv_logdir->string, ".");
	assert_int_equal(f->sv->rcon->sv_crypt_rcon->value, 1);
	assert_int_equal(f->sv->rcon->sv_timestamplen->value, 60);
	/* the console may */
	srvfix_command(f, "sv_timestamplen 30", out, sizeof(out));
	assert_int_equal(f->sv->rcon->sv_timestamplen->value, 30);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_hashed_accepted_plain_refused, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_replay_and_window, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_seen_table_full, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_forbidden_over_rcon, srvfix_test_teardown),
};

QWD_TEST_GROUP(rcon, tests, srvfix_setup, srvfix_teardown)
