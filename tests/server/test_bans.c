/*
 * test_bans.c -- addip and its kin on a running server: a banned address
 * is dropped and refused while another connects, the wildcards, safe
 * filters, filterban 0, expiry, the listip.cfg file, and the bans kept
 * through a restart of the real program.
 *
 * Design note
 *   The clients are protocol-28 clients on their own loopback addresses
 *   (127.0.0.2 the griefer, 127.0.0.3 the others), talking to the server
 *   over real sockets, so every packet goes through the receive path the
 *   filters guard.  What a refused address gets back is read from a raw
 *   socket on it: MVDSV's "banned." answer, and never a challenge.
 */
#include "srvfix.h"

#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>

static const char banned_answer[] = "\xff\xff\xff\xffn\nbanned.\n";

/* what the server answers a getchallenge from ip ("" when nothing came) */
static const char *challenge_answer(struct srvfix *f, const char *ip)
{
	static char text[256];
	uint8_t reply[256];
	int fd = srvfix_socket(f, ip);
	size_t n = srvfix_exchange(f, fd, "\xff\xff\xff\xffgetchallenge\n", 16,
				   reply, sizeof(reply) - 1, 1.0);

	memcpy(text, reply, n);
	text[n] = '\0';
	return text;
}

static void command(struct srvfix *f, const char *line)
{
	char out[1024];

	srvfix_command(f, line, out, sizeof(out));
}

static struct srv_client *join(struct srvfix *f, const char *ip, const char *name)
{
	struct srv_client *c = srvfix_client(f, ip, name, false, NULL);

	qwc_connect(&c->q, server_clock());
	return c;
}

static void test_ban_while_another_connects(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *griefer, *player, *late, *again;
	char out[1024];

	srvfix_start(f, 8);
	griefer = join(f, "127.0.0.2", "griefer");
	player = join(f, "127.0.0.3", "player");
	assert_true(srvfix_until(f, griefer, QWC_ACTIVE, 5.0));
	assert_true(srvfix_until(f, player, QWC_ACTIVE, 5.0));

	srvfix_command(f, "addip 127.0.0.2", out, sizeof(out));
	assert_non_null(strstr(out, "1 client dropped"));
	assert_int_equal(srvfix_clients_from(f, "127.0.0.2"), 0);
	assert_true(srvfix_until(f, griefer, QWC_DROPPED, 2.0));
	assert_int_equal(player->q.state, QWC_ACTIVE);
	assert_int_equal(srvfix_log_count(f, "dropped: banned"), 1);

	/* the banned address gets MVDSV's answer and no challenge, and its
	 * reconnect goes nowhere, while 127.0.0.3 joins meanwhile */
	assert_string_equal(challenge_answer(f, "127.0.0.2"), banned_answer);
	again = join(f, "127.0.0.2", "griefer");
	late = join(f, "127.0.0.3", "late");
	assert_true(srvfix_until(f, late, QWC_ACTIVE, 5.0));
	assert_true(srvfix_until(f, again, QWC_REFUSED, 3.0));
	assert_string_equal(again->q.reason, "\nbanned.\n");
	assert_int_equal(srvfix_clients_from(f, "127.0.0.2"), 0);
	assert_int_equal(srvfix_clients_from(f, "127.0.0.3"), 2);
	assert_int_equal(player->q.state, QWC_ACTIVE);
	assert_true(f->sv->bans->refused > 0);

	/* removeip lets it back */
	srvfix_command(f, "removeip 127.0.0.2", out, sizeof(out));
	assert_string_equal(out, "Removed.\n");
	srvfix_forget(f, again);
	again = join(f, "127.0.0.2", "reformed");
	assert_true(srvfix_until(f, again, QWC_ACTIVE, 5.0));
}

static void test_wildcards_safe_and_filterban(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *a, *b;
	char out[1024];

	srvfix_start(f, 8);
	a = join(f, "127.0.0.4", "four");
	assert_true(srvfix_until(f, a, QWC_ACTIVE, 5.0));
	/* 0 octets are wildcards: 127.0.0 is all of 127.*.*.* */
	command(f, "addip 127.0.0");
	command(f, "addip 127.0.0.3 safe");
	assert_true(srvfix_until(f, a, QWC_DROPPED, 2.0));
	assert_string_equal(challenge_answer(f, "127.0.0.4"), banned_answer);
	assert_string_equal(challenge_answer(f, "127.9.8.7"), banned_answer);
	/* the safe filter is let in through the banned range */
	b = join(f, "127.0.0.3", "friend");
	assert_true(srvfix_until(f, b, QWC_ACTIVE, 5.0));

	srvfix_command(f, "listip", out, sizeof(out));
	assert_non_null(strstr(out, "Filter list:\n"
				    "127.  0.  0.  0 |  ban\n"
				    "127.  0.  0.  3 | safe\n"));

	/* filterban 0: only the listed "bans" (and safe filters) come in,
	 * and whoever else is connected goes at the next upkeep */
	command(f, "removeip 127.0.0.0");
	command(f, "removeip 127.0.0.3");
	command(f, "addip 127.0.0.5");
	command(f, "filterban 0");
	assert_true(srvfix_until(f, b, QWC_DROPPED, 2.0));
	srvfix_forget(f, a);
	a = join(f, "127.0.0.5", "guest");
	assert_true(srvfix_until(f, a, QWC_ACTIVE, 5.0));
	assert_string_equal(challenge_answer(f, "127.0.0.6"), banned_answer);
	assert_int_equal(challenge_answer(f, "127.0.0.5")[4], 'c');
}

static void test_expiry(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *c;
	char out[1024];

	srvfix_start(f, 8);
	command(f, "addip 127.0.0.2 ban +1");
	srvfix_command(f, "listip", out, sizeof(out));
	assert_non_null(strstr(out, "127.  0.  0.  2 |  ban | "));
	assert_string_equal(challenge_answer(f, "127.0.0.2"), banned_answer);
	/* the second passes; the upkeep drops the filter within a second */
	srvfix_run(f, 2.5, false);
	assert_int_equal(f->sv->bans->list.count, 0);
	c = join(f, "127.0.0.2", "back");
	assert_true(srvfix_until(f, c, QWC_ACTIVE, 5.0));
}

static void test_refused_commands(void **state)
{
	struct srvfix *f = *state;
	static const struct {
		const char *line, *answer;
	} cases[] = {
		{"addip", "Bad filter address: \n"},
		{"addip 0.0.0.0", "Bad filter address: 0.0.0.0\n"},
		{"addip 300.1.1.1", "Bad filter address: 300.1.1.1\n"},
		{"addip 1.2.3.4 kick", "Wrong filter type kick, use ban or safe\n"},
		{"addip 1.2.3.4 ban 10m", "Bad expiry 10m: +SECONDS from now, or a Unix "
					  "time (0: never)\n"},
		{"addip 1.2.3.4 ban -5", "Bad expiry -5: +SECONDS from now, or a Unix "
					 "time (0: never)\n"},
		{"removeip 1.2.3.4", "Didn't find 1.2.3.4.\n"},
		{"removeip x", "Bad filter address: x\n"},
	};
	char out[1024];

	srvfix_start(f, 8);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		srvfix_command(f, cases[i].line, out, sizeof(out));
		assert_string_equal(out, cases[i].answer);
	}
	assert_int_equal(f->sv->bans->list.count, 0);
}

/* a flood from a banned address: every packet dropped, few answered */
static void test_answers_bounded(void **state)
{
	struct srvfix *f = *state;
	struct net_stats st = {0};
	struct net_addr to;
	uint8_t ping = 'k';
	int fd, answers = 0;

	srvfix_start(f, 8);
	command(f, "addip 127.0.0.2");
	fd = srvfix_socket(f, "127.0.0.2");
	assert_true(net_addr_parse("127.0.0.1", f->sv->port, &to));
	for (int i = 0; i < 40; i++)
		assert_true(net_udp_send(fd, &to, &ping, 1, &st));
	srvfix_run(f, 0.3, false);
	while (net_udp_recv_batch(fd, f->rx, &st) > 0)
		for (size_t i = 0; i < f->rx->count; i++) {
			assert_memory_equal(f->rx->packets[i].data, banned_answer,
					    sizeof(banned_answer) - 1);
			answers++;
		}
	assert_int_equal(f->sv->bans->refused, 40);
	assert_true(answers >= 1);
	assert_true(answers <= 5);
	assert_int_equal(f->sv->stats.oob_answered[OOB_PING], 0);
}

static void test_writeip_file_and_reload(void **state)
{
	struct srvfix *f = *state;
	char path[256], out[1024], want[300];
	uint8_t *text;
	size_t len;
	long long expires;
	const struct net_addr two = {.ip = htonl(0x7f000002)};

	srvfix_start(f, 8);
	command(f, "addip 127.0.0.2");
	command(f, "addip 10.20 safe +3600");
	command(f, "addip 192.168.1.* ban 0");
	srvfix_command(f, "writeip", out, sizeof(out));
	snprintf(path, sizeof(path), "%s/qw/listip.cfg", f->dir);
	snprintf(want, sizeof(want), "Writing %s.\n", path);
	assert_string_equal(out, want);

	/* MVDSV's lines: safe first, the type padded, absolute expiry */
	text = qwd_read_file(path, &len);
	assert_non_null(text);
	text[len] = '\0';
	assert_int_equal(sscanf((char *)text, "addip 10.20.0.0 safe %lld\n", &expires), 1);
	assert_true(llabs(expires - ((long long)time(NULL) + 3600)) < 10);
	assert_non_null(strstr((char *)text, "\naddip 127.0.0.2  ban 0\n"
					     "addip 192.168.1.0  ban 0\n"));
	free(text);

	/* a new server in the same folder has them */
	srvfix_start(f, 8);
	assert_int_equal(f->sv->bans->list.count, 3);
	assert_true(sv_banned(f->sv, &two));
	srvfix_command(f, "listip", out, sizeof(out));
	assert_non_null(strstr(out, "192.168.  1.  0 |  ban\n"));
	assert_non_null(strstr(out, " 10. 20.  0.  0 | safe | "));
	unlink(path);
}

/* the real program: a ban from the console, written, and still there
 * after a restart; the other address plays on throughout */
static void test_restart_keeps_bans(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *griefer, *player, *late;
	char path[256];

	snprintf(path, sizeof(path), "%s/qw/listip.cfg", f->dir);
	unlink(path);
	srvfix_spawn(f, NULL);
	griefer = join(f, "127.0.0.2", "griefer");
	player = join(f, "127.0.0.3", "player");
	assert_true(srvfix_until(f, griefer, QWC_ACTIVE, 5.0));
	assert_true(srvfix_until(f, player, QWC_ACTIVE, 5.0));

	srvfix_console(f, "addip 127.0.0.2");
	srvfix_console(f, "writeip");
	assert_true(srvfix_until(f, griefer, QWC_DROPPED, 3.0));
	late = join(f, "127.0.0.3", "late");
	assert_true(srvfix_until(f, late, QWC_ACTIVE, 5.0));
	assert_int_equal(player->q.state, QWC_ACTIVE);
	assert_true(srvfix_stop_child(f));

	srvfix_spawn(f, NULL);
	assert_int_equal(srvfix_file_count(f, "qwd.log", "1 address filters from"), 1);
	assert_string_equal(challenge_answer(f, "127.0.0.2"), banned_answer);
	griefer = join(f, "127.0.0.2", "griefer");
	player = join(f, "127.0.0.3", "player");
	assert_true(srvfix_until(f, player, QWC_ACTIVE, 5.0));
	assert_true(srvfix_until(f, griefer, QWC_REFUSED, 3.0));
	assert_true(srvfix_stop_child(f));
	unlink(path);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_ban_while_another_connects, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_wildcards_safe_and_filterban, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_expiry, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_refused_commands, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_answers_bounded, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_writeip_file_and_reload, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_restart_keeps_bans, srvfix_test_teardown),
};

QWD_TEST_GROUP(bans, tests, srvfix_setup, srvfix_teardown)
