/*
 * test_masters.c -- setmaster and heartbeats, seen by a master of our own:
 * the ping, the heartbeat at start, on a change of players and every 300
 * s, `heartbeat`, the shutdown notice, the master's ping answered; the
 * real program's start and quit; and qstat reading the list a master
 * built from the heartbeats (quakestat -qwm), then querying the server.
 *
 * Design note
 *   The master is a UDP socket of the test on 127.0.0.9.  Times the server
 *   waits for (300 s, the 10 s between heartbeats on a change of players)
 *   are not waited out: the test moves the time of the last heartbeat
 *   back (masters.last_sent), which is what the server reads.
 */
#include "srvfix.h"

#include "../harness.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the next datagram to the master, as text ("" when none came in s) */
static const char *master_reads(struct srvfix *f, int fd, double s)
{
	static char text[256];
	uint8_t buf[256];
	size_t n = srvfix_exchange(f, fd, NULL, 0, buf, sizeof(buf) - 1, s);

	memcpy(text, buf, n);
	text[n] = '\0';
	return text;
}

static uint16_t port_of(int fd)
{
	struct net_addr a;

	assert_true(net_udp_local_addr(fd, &a));
	return ntohs(a.port);
}

static void test_heartbeats(void **state)
{
	struct srvfix *f = *state;
	char line[64], out[512], want[256];
	uint8_t reply[16];
	int m;
	struct srv_client *c;
	uint64_t short_headers;

	srvfix_start(f, 8);
	m = srvfix_socket(f, "127.0.0.9");
	snprintf(line, sizeof(line), "setmaster 127.0.0.9:%u", port_of(m));
	srvfix_command(f, line, out, sizeof(out));
	snprintf(want, sizeof(want), "Master server at 127.0.0.9:%u\nSending a ping.\n",
		 port_of(m));
	assert_string_equal(out, want);

	/* the ping ('k' and a NUL, no header), then the first heartbeat */
	{
		uint8_t buf[8];
		size_t n = srvfix_exchange(f, m, NULL, 0, buf, sizeof(buf), 1.0);

		assert_int_equal(n, 2);
		assert_memory_equal(buf, "k\0", 2);
	}
	assert_string_equal(master_reads(f, m, 1.0), "a\n1\n0\n");
	assert_string_equal(master_reads(f, m, 0.5), "");

	/* the master's answer to the ping is taken quietly; its own ping is
	 * answered */
	short_headers = f->sv->stats.bad[BAD_SHORT_HEADER];
	assert_int_equal(srvfix_exchange(f, m, "l", 1, reply, sizeof(reply), 0.3), 0);
	assert_int_equal(f->sv->stats.bad[BAD_SHORT_HEADER], short_headers);
	assert_int_equal(srvfix_exchange(f, m, "k", 1, reply, sizeof(reply), 1.0), 1);
	assert_int_equal(reply[0], 'l');

	/* a player joins: a heartbeat, but not within 10 s of the last */
	c = srvfix_client(f, "127.0.0.2", "player", false, NULL);
	qwc_connect(&c->q, server_clock());
	assert_true(srvfix_until(f, c, QWC_ACTIVE, 5.0));
	assert_string_equal(master_reads(f, m, 0.3), "");
	f->sv->masters->last_sent -= 11;
	assert_string_equal(master_reads(f, m, 1.0), "a\n2\n1\n");

	/* `heartbeat` sends one now; then one every 300 s, players or not */
	srvfix_command(f, "heartbeat", out, sizeof(out));
	assert_string_equal(master_reads(f, m, 1.0), "a\n3\n1\n");
	f->sv->masters->last_sent -= 299;
	assert_string_equal(master_reads(f, m, 0.3), "");
	f->sv->masters->last_sent -= 2;
	assert_string_equal(master_reads(f, m, 1.0), "a\n4\n1\n");

	/* the server stops: "C\n" */
	server_shutdown(f->sv);
	free(f->sv);
	f->sv = NULL;
	{
		struct net_stats st = {0};
		double end = server_clock() + 1.0;
		int n = 0;

		while (n == 0 && server_clock() < end)
			n = net_udp_recv_batch(m, f->rx, &st);
		assert_int_equal(n, 1);
		assert_int_equal(f->rx->packets[0].len, 2);
		assert_memory_equal(f->rx->packets[0].data, "C\n", 2);
	}
}

static void test_setmaster_forms(void **state)
{
	struct srvfix *f = *state;
	char out[1024];

	srvfix_start(f, 8);
	/* no port: 27000 */
	srvfix_command(f, "setmaster 127.0.0.9", out, sizeof(out));
	assert_string_equal(out, "Master server at 127.0.0.9:27000\nSending a ping.\n");
	srvfix_command(f, "setmaster", out, sizeof(out));
	assert_string_equal(out, "Master server at 127.0.0.9:27000 (127.0.0.9)\n");
	/* at most 8; an address that does not resolve is left out */
	srvfix_command(f, "setmaster 127.0.0.1:1 127.0.0.1:2 127.0.0.1:3 127.0.0.1:4 "
		       "no.such.host.invalid 127.0.0.1:5 127.0.0.1:6 127.0.0.1:7 "
		       "127.0.0.1:8 127.0.0.1:9", out, sizeof(out));
	assert_non_null(strstr(out, "Bad master server no.such.host.invalid: "));
	assert_non_null(strstr(out, "At most 8 master servers: 127.0.0.1:9 and the rest "
				    "are left out\n"));
	assert_int_equal(f->sv->masters->count, 8);
	srvfix_command(f, "setmaster none", out, sizeof(out));
	assert_string_equal(out, "Setting nomaster mode.\n");
	assert_int_equal(f->sv->masters->count, 0);
	srvfix_command(f, "heartbeat", out, sizeof(out));
	assert_non_null(strstr(out, "No master servers"));
}

/* the real program: a heartbeat right after start, the notice at quit */
static void test_program_start_and_quit(void **state)
{
	struct srvfix *f = *state;
	char where[32];
	const char *extra[] = {"+setmaster", where, NULL};
	int m = srvfix_socket(f, "127.0.0.9");

	snprintf(where, sizeof(where), "127.0.0.9:%u", port_of(m));
	srvfix_spawn(f, extra);
	assert_string_equal(master_reads(f, m, 2.0), "k");	/* 'k' NUL */
	assert_string_equal(master_reads(f, m, 2.0), "a\n1\n0\n");
	assert_true(srvfix_stop_child(f));
	assert_string_equal(master_reads(f, m, 1.0), "C\n");
}

/* a master of our own, as small as qstat needs: it keeps the address the
 * heartbeats come from, and answers "c\n" with them ("\xff\xff\xff\xff"
 * 'd' '\n', then 4 bytes of ip and 2 of port per server) */
struct tiny_master {
	int fd;
	struct net_addr server;	/* from the heartbeat; ip 0 until one came */
	int queries;
};

static void master_turn(struct srvfix *f, void *ctx)
{
	struct tiny_master *tm = ctx;
	struct net_stats st = {0};

	if (net_udp_recv_batch(tm->fd, f->rx, &st) <= 0)
		return;
	for (size_t i = 0; i < f->rx->count; i++) {
		const struct net_packet *p = &f->rx->packets[i];

		if (p->len > 2 && p->data[0] == 'a' && p->data[1] == '\n')
			tm->server = p->from;
		if (p->len >= 2 && p->data[0] == 'c' && p->data[1] == '\n' && tm->server.ip) {
			uint8_t list[12] = {0xff, 0xff, 0xff, 0xff, 'd', '\n'};

			memcpy(list + 6, &tm->server.ip, 4);
			memcpy(list + 10, &tm->server.port, 2);
			net_udp_send(tm->fd, &p->from, list, sizeof(list), &st);
			tm->queries++;
		}
	}
}

static void test_quakestat_reads_the_list(void **state)
{
	struct srvfix *f = *state;
	struct tiny_master tm = {0};
	char line[64], out[4096], master[32], server[32];
	const char *argv[] = {"/usr/bin/quakestat", "-nh", "-qwm", master, NULL};
	struct srv_client *c;

	if (access(argv[0], X_OK) != 0)
		qwd_skip("no /usr/bin/quakestat (Debian package qstat)");
	srvfix_start(f, 8);
	srvfix_command(f, "hostname heartbeat-test", out, sizeof(out));
	c = srvfix_client(f, "127.0.0.2", "listed", false, NULL);
	qwc_connect(&c->q, server_clock());
	assert_true(srvfix_until(f, c, QWC_ACTIVE, 5.0));

	tm.fd = srvfix_socket(f, "127.0.0.9");
	snprintf(master, sizeof(master), "127.0.0.9:%u", port_of(tm.fd));
	snprintf(line, sizeof(line), "setmaster %s", master);
	srvfix_command(f, line, out, sizeof(out));
	for (int i = 0; i < 200 && !tm.server.ip; i++) {
		srvfix_step(f, true);
		master_turn(f, &tm);
	}
	assert_true(tm.server.ip != 0);
	net_addr_format(&tm.server, server);
	snprintf(line, sizeof(line), "127.0.0.1:%u", f->sv->port);
	assert_string_equal(server, line);	/* from the game port */

	bool ok = srvfix_program(f, argv, out, sizeof(out), 10.0, master_turn, &tm);

	fprintf(stderr, "quakestat said:\n%s", out);
	assert_true(ok);
	assert_int_equal(tm.queries, 1);
	assert_non_null(strstr(out, server));
	assert_non_null(strstr(out, "heartbeat-test"));
	assert_non_null(strstr(out, "small"));
	assert_non_null(strstr(out, "1/8"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_heartbeats, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_setmaster_forms, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_program_start_and_quit, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_quakestat_reads_the_list, srvfix_test_teardown),
};

QWD_TEST_GROUP(masters, tests, srvfix_setup, srvfix_teardown)
