/*
 * test_oob_budgets.c -- each kind of connectionless request spends its
 * own budget: a getchallenge flood does not starve a real player, a valid
 * challenge gets a connect through a spent connect budget, and a status
 * flood reflects a bounded number of bytes, and few replies to any one
 * address.
 *
 * Design note
 *   Spoofed floods are handed to sv_connectionless in-process from
 *   addresses in 127.16/12 (srvfix_oob), with sv->realtime stepped by the
 *   test, so "50 000 a second" is exact and the counts are too.  The real
 *   player and the victim are sockets of their own (127.0.0.N), whose
 *   mail the test reads: what the server answered them is what arrived.
 */
#include "../harness.h"
#include "srvfix.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a socket on ip and its "ip:port" */
static int own_socket(const char *ip, char name[NET_ADDR_STRLEN])
{
	char err[128];
	struct net_addr a;
	int fd = net_udp_open(ip, 0, err, sizeof(err));

	if (fd < 0)
		fail_msg("socket on %s: %s", ip, err);
	assert_true(net_udp_local_addr(fd, &a));
	net_addr_format(&a, name);
	return fd;
}

/* the connectionless replies waiting on fd: count, last text in out */
static int replies(struct srvfix *f, int fd, char *out, size_t max)
{
	struct net_stats st = {0};
	int n = 0;

	out[0] = '\0';
	while (net_udp_recv_batch(fd, f->rx, &st) > 0)
		for (size_t i = 0; i < f->rx->count; i++) {
			const struct net_packet *p = &f->rx->packets[i];
			size_t len = p->len > 4 ? p->len - 4 : 0;

			if (len >= max)
				len = max - 1;
			memcpy(out, p->data + (p->len > 4 ? 4 : 0), len);
			out[len] = '\0';
			n++;
		}
	return n;
}

/* the i-th spoofed source */
static void spoofed(char from[NET_ADDR_STRLEN], uint32_t i)
{
	struct net_addr a = {.ip = htonl(0x7f100000u + (i & 0xfffff)), .port = htons(27001)};

	net_addr_format(&a, from);
}

static void test_getchallenge_flood_does_not_starve_a_player(void **state)
{
	struct srvfix *f = *state;
	char me[NET_ADDR_STRLEN], from[NET_ADDR_STRLEN], text[256], line[320];
	double t0;
	int fd;

	srvfix_start(f, 8);
	fd = own_socket("127.0.0.40", me);
	t0 = f->sv->realtime;
	/* one second at 50 000 spoofed getchallenges a second, the player's
	 * own in the middle */
	for (uint32_t i = 0; i < 50000; i++) {
		f->sv->realtime = t0 + i / 50000.0;
		spoofed(from, i);
		srvfix_oob(f, from, "getchallenge\n");
		if (i == 25000)
			srvfix_oob(f, me, "getchallenge\n");
	}
	assert_int_equal(replies(f, fd, text, sizeof(text)), 1);
	assert_int_equal(text[0], S2C_CHALLENGE);
	assert_true(f->sv->stats.oob_answered[OOB_GETCHALLENGE] > 25000);

	/* spoofed connects (no valid challenge) spend the global connect
	 * budget ... */
	for (uint32_t i = 0; i < 5000; i++) {
		spoofed(from, 100000 + i);
		srvfix_oob(f, from, "connect 28 5 12345 \"\\\\name\\\\x\"\n");
	}
	assert_true(f->sv->stats.oob_limited[OOB_CONNECT] > 0);
	/* ... and a connect with the challenge the player was given still
	 * gets its slot */
	snprintf(line, sizeof(line), "connect 28 777 %d \"\\\\name\\\\player\"\n",
		 atoi(text + 1));
	srvfix_oob(f, me, line);
	assert_int_equal(replies(f, fd, text, sizeof(text)), 1);
	assert_int_equal(text[0], S2C_CONNECTION);
	assert_int_equal(srvfix_clients_from(f, "127.0.0.40"), 1);
	net_udp_close(fd);
}

static void test_status_flood_is_bounded(void **state)
{
	struct srvfix *f = *state;
	char victim[NET_ADDR_STRLEN], from[NET_ADDR_STRLEN], text[2048];
	int fd, to_victim[3] = {0, 0, 0};
	uint64_t bytes0;
	double t0;

	srvfix_start(f, 32);
	/* players, so status answers are large */
	for (int i = 0; i < 24; i++) {
		snprintf(from, sizeof(from), "127.0.7.%d", i + 1);
		assert_true(srvfix_connect_raw(f, from, 800 + i, false) >= 0);
	}
	fd = own_socket("127.0.0.41", victim);
	bytes0 = f->sv->stats.oob_bytes[OOB_STATUS];
	t0 = f->sv->realtime;
	/* three seconds at 10 000 spoofed status a second, one in 16 of them
	 * "from" the victim */
	for (uint32_t i = 0; i < 30000; i++) {
		f->sv->realtime = t0 + i / 10000.0;
		if (i % 16 == 0) {
			srvfix_oob(f, victim, "status\n");
		} else {
			spoofed(from, i);
			srvfix_oob(f, from, "status\n");
		}
		if (i % 10000 == 9999)
			to_victim[i / 10000] = replies(f, fd, text, sizeof(text));
	}
	uint64_t bytes = f->sv->stats.oob_bytes[OOB_STATUS] - bytes0;

	fprintf(stderr, "status flood: %llu bytes in 3 s, to the victim %d %d %d a second\n",
		(unsigned long long)bytes, to_victim[0], to_victim[1], to_victim[2]);
	/* the answers are large: more than the players' lines */
	assert_true(f->sv->status_estimate > 24 * 20);
	/* at most 150 kB a second in all (the default: 100 kB/s, 20 kB of
	 * burst, one answer over the estimate) */
	assert_true(bytes <= 3 * 150000);
	assert_true(bytes > 0);
	assert_true(f->sv->stats.oob_limited[OOB_STATUS] > 25000);
	/* at most 5 a second to one address */
	for (int s = 0; s < 3; s++) {
		assert_true(to_victim[s] >= 1);
		assert_true(to_victim[s] <= 5);
	}
	net_udp_close(fd);
}

static void test_kinds_do_not_share_a_budget(void **state)
{
	struct srvfix *f = *state;
	char me[NET_ADDR_STRLEN], text[2048];
	int fd;

	srvfix_start(f, 8);
	fd = own_socket("127.0.0.42", me);
	/* one address spends its status budget ... */
	for (int i = 0; i < 20; i++)
		srvfix_oob(f, me, "status\n");
	assert_int_equal(replies(f, fd, text, sizeof(text)), 3);
	/* ... and still gets a challenge and a ping at the same moment */
	srvfix_oob(f, me, "getchallenge\n");
	assert_int_equal(replies(f, fd, text, sizeof(text)), 1);
	assert_int_equal(text[0], S2C_CHALLENGE);
	srvfix_oob(f, me, "ping\n");
	{
		uint8_t k = A2A_PING;
		struct net_addr a;
		struct msg_buf m;

		assert_true(net_addr_parse(me, 0, &a));
		msg_init_read(&m, &k, 1);
		for (int i = 0; i < 20; i++)
			sv_connectionless(f->sv, &a, &m);
	}
	/* pings have their own budget too: 8 at once */
	assert_int_equal(f->sv->stats.oob_answered[OOB_PING], 8);
	assert_int_equal(f->sv->stats.oob_limited[OOB_PING], 13);
	assert_int_equal(f->sv->stats.oob_answered[OOB_STATUS], 3);
	assert_int_equal(f->sv->stats.oob_limited[OOB_STATUS], 17);

	/* the budgets follow their cvars */
	assert_int_equal(cvar_set(f->sv, "sv_oob_status", "1 10 1e9 1e9"), 0);
	for (int i = 0; i < 20; i++)
		srvfix_oob(f, me, "status\n");
	replies(f, fd, text, sizeof(text));
	assert_int_equal(f->sv->stats.oob_answered[OOB_STATUS], 13);
	/* a value that does not parse keeps the default, and says so */
	assert_int_equal(cvar_set(f->sv, "sv_oob_status", "lots"), 0);
	srvfix_oob(f, me, "status\n");
	assert_int_equal(srvfix_log_count(f, "want RATE BURST GLOBAL GLOBALBURST"), 1);
	net_udp_close(fd);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_getchallenge_flood_does_not_starve_a_player, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_status_flood_is_bounded, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_kinds_do_not_share_a_budget, srvfix_test_teardown),
};

QWD_TEST_GROUP(oob_budgets, tests, srvfix_setup, srvfix_teardown)
