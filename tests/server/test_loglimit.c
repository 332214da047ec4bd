/*
 * test_loglimit.c -- the limiter of remote-driven log lines (loglimit.c):
 * the limiter itself, driven with a set clock, and one flood end to end.
 *
 * Design note
 *   The unit test calls sv_log_from on a started server with sv->realtime
 *   set by hand (the limiter reads no other clock) and counts the lines
 *   the fixture's sink receives.  The end-to-end test is a connected
 *   client whose packets come from a new port each time, as a host
 *   hopping ports (or spoofing them) does: every one is a "client moved"
 *   line without the limiter.  The figures asserted are the cvars'
 *   defaults: sv_lograte 1, sv_logburst 10, sv_logtotal 50 (and four
 *   seconds of it at once).
 */
#include "../harness.h"
#include "srvfix.h"

#include <stdio.h>
#include <string.h>

enum { LOG_BURST = 10, LOG_TOTAL_BURST = 4 * 50 };

static struct net_addr addr(const char *text)
{
	struct net_addr a;

	assert_true(net_addr_parse(text, 27001, &a));
	return a;
}

static void test_limiter(void **state)
{
	struct srvfix *f = *state;
	struct server *sv;
	struct net_addr a, a2, b;
	double t0;

	srvfix_start(f, 2);
	sv = f->sv;
	t0 = sv->realtime;
	a = addr("10.0.0.1:27001");
	a2 = addr("10.0.0.1:27999");
	b = addr("10.0.0.2:27001");
	f->log_mark = "line from";

	/* one source: its burst, then nothing */
	for (int i = 0; i < 100; i++)
		sv_log_from(sv, &a, QWD_LOG_INFO, "line from a %d", i);
	assert_int_equal(f->log_matched, LOG_BURST);
	assert_int_equal(sv->stats.log_suppressed, 100 - LOG_BURST);
	/* another port of the same host shares its bucket */
	sv_log_from(sv, &a2, QWD_LOG_INFO, "line from a %d", -1);
	assert_int_equal(f->log_matched, LOG_BURST);
	/* another kind of line from it has a bucket of its own */
	sv_log_from(sv, &a, QWD_LOG_INFO, "line from a, of another kind");
	assert_int_equal(f->log_matched, LOG_BURST + 1);
	/* another host has its own */
	sv_log_from(sv, &b, QWD_LOG_INFO, "line from b %d", 0);
	assert_int_equal(f->log_matched, LOG_BURST + 2);
	/* below the log's level: no line and no token */
	sv_log_from(sv, &b, QWD_LOG_DEBUG, "line from b %d", 1);
	assert_int_equal(f->log_matched, LOG_BURST + 2);
	/* a second later: one line more (sv_lograte 1) */
	sv->realtime = t0 + 1.0;
	for (int i = 0; i < 5; i++)
		sv_log_from(sv, &a, QWD_LOG_INFO, "line from a %d", 100 + i);
	assert_int_equal(f->log_matched, LOG_BURST + 3);

	/* the summary: one line for the source and kind, with its count */
	f->log_mark = "suppressed";
	f->log_matched = 0;
	sv_log_summaries(sv, false);	/* not yet due */
	assert_int_equal(f->log_matched, 0);
	sv_log_summaries(sv, true);
	assert_int_equal(f->log_matched, 1);
	assert_string_equal(f->log_last,
			    "95 similar lines from 10.0.0.1 suppressed (line from a %d)");
	sv_log_summaries(sv, true);	/* told once */
	assert_int_equal(f->log_matched, 1);

	/* a spoofed flood, 5000 sources of a line each: the global bucket
	 * lets its burst through, the summaries are bounded by the table */
	sv->realtime = t0 + 100.0;
	f->log_mark = "spoofed";
	f->log_matched = 0;
	for (int i = 0; i < 5000; i++) {
		char text[32];

		snprintf(text, sizeof(text), "10.1.%d.%d", i / 250, i % 250 + 1);
		b = addr(text);
		sv_log_from(sv, &b, QWD_LOG_INFO, "spoofed %d", i);
	}
	assert_int_equal(f->log_matched, LOG_TOTAL_BURST);
	f->log_mark = "suppressed";
	f->log_matched = 0;
	sv_log_summaries(sv, true);
	assert_int_equal(f->log_matched, SV_LOG_HELD + 1);
	assert_string_equal(f->log_last, "4784 lines from other sources suppressed");

	/* sv_lograte 0: no limit */
	assert_int_equal(cvar_set(sv, "sv_lograte", "0"), 0);
	f->log_mark = "unlimited";
	f->log_matched = 0;
	for (int i = 0; i < 100; i++)
		sv_log_from(sv, &a, QWD_LOG_INFO, "unlimited %d", i);
	assert_int_equal(f->log_matched, 100);
}

/* A client's packets from a new port each time: a "client moved" line
 * each without the limiter; with it, the burst and the refill. */
static void test_port_hopping_flood(void **state)
{
	enum { PACKETS = 300 };
	struct srvfix *f = *state;
	struct srv_client *t;
	double start, elapsed;
	int fds[PACKETS];

	srvfix_start(f, 4);
	t = srvfix_client(f, NULL, "hopper", false, NULL);
	srvfix_connect(t);
	assert_true(srvfix_until_all(f, QWC_ACTIVE, 5.0));
	f->log_mark = "moved to";
	start = server_clock();
	/* every socket stays open to the end, so no port comes twice (a
	 * closed one's port may be handed out again at once) */
	for (int i = 0; i < PACKETS; i++) {
		char err[128];

		fds[i] = net_udp_open(t->ip, 0, err, sizeof(err));
		assert_true(fds[i] >= 0);
		srvfix_send_raw(t, fds[i], NULL, 0);
		server_frame(f->sv, 0.001);
	}
	/* a datagram the last frame did not see yet */
	for (int i = 0; i < 5; i++)
		server_frame(f->sv, 0.001);
	elapsed = server_clock() - start;
	for (int i = 0; i < PACKETS; i++)
		net_udp_close(fds[i]);
	print_message("%d packets from new ports in %.2f s: %d \"moved\" lines, "
		      "%llu suppressed\n", PACKETS, elapsed, f->log_matched,
		      (unsigned long long)f->sv->stats.log_suppressed);
	/* the server followed the client every time (QuakeWorld's NAT rule) */
	assert_int_equal(f->sv->stats.bad[BAD_UNKNOWN_CLIENT], 0);
	assert_true(f->log_matched >= LOG_BURST);
	assert_true(f->log_matched <= LOG_BURST + (int)elapsed + 1);
	assert_int_equal((int)f->sv->stats.log_suppressed, PACKETS - f->log_matched);
	/* and told how many it held back, naming the source */
	f->log_mark = "similar lines from 127.0.0.";
	f->log_matched = 0;
	sv_log_summaries(f->sv, true);
	assert_int_equal(f->log_matched, 1);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(test_limiter, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_port_hopping_flood, NULL, srvfix_test_teardown),
};

QWD_TEST_GROUP(server_loglimit, tests, srvfix_setup, srvfix_teardown)
