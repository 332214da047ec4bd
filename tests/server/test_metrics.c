/*
 * test_metrics.c -- qwd -metrics (src/server/metrics.c): the page of a
 * running server with real clients, and a start-up that cannot listen.
 *
 * Design note
 *   The server is build/qwd as a child (srvfix_spawn): its endpoint runs
 *   in its own frame loop, as an operator's does, and the test fetches
 *   the page over loopback with a plain blocking socket (5 s timeouts).
 *   What is asserted is what the page must say about what the test did:
 *   the players and the spectator it connected, the level, a malformed
 *   message counted under its reason, and the page's own request count.
 *   Prometheus itself reading the page is tests/interop/prometheus.sh.
 *   The metrics port is one the kernel gave a socket of the test, closed
 *   just before the spawn.
 */
#include "../harness.h"
#include "srvfix.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* a listening TCP socket on 127.0.0.1 (port 0: any); its port in *port */
static int listener(int *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(s >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(s, 1), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return s;
}

static char page[65536];

/* GET path from 127.0.0.1:port (HTTP/1.0: the server closes); the body */
static const char *get(int port, const char *path)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	struct timeval tv = {.tv_sec = 5};
	char req[128];
	size_t got = 0;
	ssize_t n;
	int s = socket(AF_INET, SOCK_STREAM, 0);
	const char *body;

	assert_true(s >= 0);
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	assert_int_equal(connect(s, (struct sockaddr *)&a, sizeof(a)), 0);
	snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\n\r\n", path);
	assert_int_equal(send(s, req, strlen(req), MSG_NOSIGNAL),
			 (ssize_t)strlen(req));
	while (got + 1 < sizeof(page) &&
	       (n = recv(s, page + got, sizeof(page) - 1 - got, 0)) > 0)
		got += (size_t)n;
	close(s);
	page[got] = '\0';
	assert_non_null(strstr(page, " 200 "));
	body = strstr(page, "\r\n\r\n");
	assert_non_null(body);
	return body + 4;
}

/* the value of the sample written exactly `name` (labels included) */
static double value(const char *text, const char *name)
{
	char key[160];
	const char *at;

	snprintf(key, sizeof(key), "\n%s ", name);
	at = strstr(text - 1, key);
	if (!at)
		fail_msg("no sample %s on the page", name);
	return strtod(at + strlen(key), NULL);
}

static void test_page_of_a_running_server(void **state)
{
	struct srvfix *f = *state;
	char addr[32], line[64];
	const char *extra[] = {"-metrics", addr, NULL};
	const char *p;
	struct srv_client *c[3], *spec;
	static const uint8_t junk[] = {0x7f, 0x7f};	/* no such clc_ */
	int port, s = listener(&port);

	close(s);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	srvfix_spawn(f, extra);
	snprintf(line, sizeof(line), "metrics: http://127.0.0.1:%d/metrics", port);
	assert_int_equal(srvfix_file_count(f, "qwd.log", line), 1);
	p = get(port, "/metrics");
	assert_int_equal(value(p, "qwd_players"), 0);
	assert_int_equal(value(p, "qwd_level_info{map=\"small\"}"), 1);
	assert_int_equal(value(p, "qwd_metrics_requests_total{result=\"ok\"}"), 1);

	for (int i = 0; i < 3; i++) {
		char name[8];

		snprintf(name, sizeof(name), "m%d", i);
		c[i] = srvfix_player(f, name);
	}
	spec = srvfix_client(f, NULL, "watcher", false, "\\spectator\\1");
	srvfix_connect(spec);
	assert_true(srvfix_until(f, spec, QWC_ACTIVE, 5.0));
	srvfix_send_raw(c[0], -1, junk, sizeof(junk));
	qwc_stringcmd(&c[1]->q, "votemap nosuchmap");	/* refused, counted */
	srvfix_run(f, 0.3, true);
	p = get(port, "/metrics");
	assert_int_equal(value(p, "qwd_players"), 3);
	assert_int_equal(value(p, "qwd_spectators"), 1);
	assert_int_equal(value(p, "qwd_clients_in_game"), 4);
	assert_int_equal(value(p, "qwd_connects_total"), 4);
	assert_true(value(p, "qwd_bad_packets_total{reason=\"bad message byte\"}") >= 1);
	assert_true(value(p, "qwd_requests_total") > 0);
	assert_true(value(p, "qwd_request_duration_seconds_count") > 0);
	assert_int_equal(value(p, "qwd_metrics_requests_total{result=\"ok\"}"), 2);
	assert_int_equal(value(p, "qwd_match_admin_votes_total{kind=\"maps_refused\"}"), 1);
	assert_int_equal(value(p, "qwd_match_locked"), 0);
	assert_int_equal(value(p, "qwd_match_state{state=\"prewar\"}"), 1);
	assert_int_equal(value(p, "qwd_match_state{state=\"playing\"}"), 0);
	assert_true(strstr(get(port, "/healthz"), "ok\n") != NULL);
	assert_true(srvfix_stop_child(f));
}

/* a metrics port in use, or no address at all: no server, the reason said */
static void test_cannot_listen(void **state)
{
	char addr[32];
	struct server_options opt = {.ip = "127.0.0.1", .port = 0, .metrics = addr};
	struct server *sv;
	int port, s = listener(&port);

	(void)state;
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	sv = server_create(&opt);
	assert_null(sv);
	close(s);
	snprintf(addr, sizeof(addr), "localhost:%d", port);
	sv = server_create(&opt);
	assert_null(sv);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_page_of_a_running_server,
				  srvfix_test_teardown),
	cmocka_unit_test_teardown(test_cannot_listen, srvfix_test_teardown),
};

QWD_TEST_GROUP(server_metrics, tests, srvfix_setup, srvfix_teardown)
