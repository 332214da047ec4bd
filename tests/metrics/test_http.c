/*
 * test_http.c -- the metrics endpoint over loopback (src/metrics/http.c):
 * the answers to good and bad requests, the connection caps, the counters.
 *
 * Design note: the endpoint runs in the test's own thread, as in the
 * server: pump() is the server's select() loop (metrics_fdset, select,
 * metrics_run) and the clients are non-blocking sockets on the same loop,
 * so nothing here waits on a timer: every loop ends when the answer is
 * complete (the server closes: each request says "Connection: close"),
 * bounded by a deadline only against a hang.  The caps are reached from
 * several loopback addresses (127.0.0.1 to .4, all Linux's loopback), so
 * the per-address cap and the global one are each met.  Port 0: the
 * kernel picks a free port.
 */
#include "../harness.h"

#include <qwd/metrics.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int pages;

static void page(void *ctx, struct metrics_page *p)
{
	(void)ctx;
	pages++;
	metrics_gauge(p, "qwd_test_value", "A test value.", 7);
}

static void big_page(void *ctx, struct metrics_page *p)
{
	(void)ctx;
	for (int i = 0; i < 1000; i++)
		metrics_gauge(p, "qwd_test_value", "A test value.", i);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* one turn of the server's loop, also waiting on the client fd c (-1:
 * none) for reading */
static void pump(struct metrics *m, int c, double wait)
{
	fd_set r, w;
	int maxfd = c;
	struct timeval tv;

	FD_ZERO(&r);
	FD_ZERO(&w);
	if (c >= 0)
		FD_SET(c, &r);
	metrics_fdset(m, &r, &w, NULL, &maxfd, &wait);
	tv.tv_sec = (time_t)wait;
	tv.tv_usec = (suseconds_t)((wait - (double)tv.tv_sec) * 1e6);
	if (select(maxfd + 1, &r, &w, NULL, &tv) > 0)
		metrics_run(m, &r, &w, NULL);
	else if (maxfd >= 0) {
		FD_ZERO(&r);
		FD_ZERO(&w);
		metrics_run(m, &r, &w, NULL);
	}
}

/* run the server's loop while cond holds (10 s at most: a hang fails the
 * assertion that follows, it does not stop the test) */
#define PUMP_WHILE(m, cond)                                          \
	for (double end_ = now() + 10; (cond) && now() < end_;)      \
		pump(m, -1, 0.05)

static int client(struct metrics *m, const char *from)
{
	struct sockaddr_in a;
	int s = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(s >= 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	inet_pton(AF_INET, from, &a.sin_addr);
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	a.sin_port = htons((uint16_t)metrics_port(m));
	fcntl(s, F_SETFL, O_NONBLOCK);
	if (connect(s, (struct sockaddr *)&a, sizeof(a)) != 0)
		assert_int_equal(errno, EINPROGRESS);
	return s;
}

/* send req whole, read the answer to the server's close; its length */
static size_t exchange(struct metrics *m, const char *req, char *out,
		       size_t size)
{
	int c = client(m, "127.0.0.1");
	size_t sent = 0, len = strlen(req), got = 0;
	double end = now() + 10;
	ssize_t n;

	while (now() < end) {
		if (sent < len) {
			n = send(c, req + sent, len - sent, MSG_NOSIGNAL);
			if (n > 0)
				sent += (size_t)n;
		}
		pump(m, c, 0.05);
		n = recv(c, out + got, size - 1 - got, 0);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			break;
		if (n > 0)
			got += (size_t)n;
	}
	close(c);
	out[got] = '\0';
	return got;
}

static char reply[65536];

/* "GET /path" as a whole request (closing after the answer); the answer */
static const char *ask(struct metrics *m, const char *line)
{
	char req[256];

	snprintf(req, sizeof(req),
		 "%s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", line);
	exchange(m, req, reply, sizeof(reply));
	return reply;
}

static struct metrics *open_endpoint(metrics_page_fn fn, size_t size)
{
	char err[256];
	struct metrics *m = metrics_open("127.0.0.1", 0, size, fn, NULL, err,
					 sizeof(err));

	if (!m)
		fail_msg("%s", err);
	assert_true(metrics_port(m) > 0);
	return m;
}

static void test_get_metrics(void **state)
{
	struct metrics *m = open_endpoint(page, 4096);
	const struct metrics_http_stats *st = metrics_http_stats(m);

	(void)state;
	pages = 0;
	ask(m, "GET /metrics");
	assert_non_null(strstr(reply, "HTTP/1.1 200"));
	assert_non_null(strstr(reply, "text/plain; version=0.0.4"));
	assert_non_null(strstr(reply, "\r\n\r\n# HELP qwd_test_value A test value.\n"));
	assert_non_null(strstr(reply, "\nqwd_test_value 7\n"));
	/* HEAD: the headers without the page */
	ask(m, "HEAD /metrics");
	assert_non_null(strstr(reply, "HTTP/1.1 200"));
	assert_null(strstr(reply, "qwd_test_value"));
	ask(m, "GET /healthz");
	assert_non_null(strstr(reply, "HTTP/1.1 200"));
	assert_non_null(strstr(reply, "\r\n\r\nok\n"));
	assert_int_equal(st->requests, 3);
	assert_int_equal(st->scrapes, 2);
	assert_int_equal(st->health, 1);
	assert_int_equal(pages, 2);
	metrics_close(m);
}

static void test_bad_requests(void **state)
{
	static char longreq[40000];
	struct metrics *m = open_endpoint(page, 4096);
	const struct metrics_http_stats *st = metrics_http_stats(m);

	(void)state;
	exchange(m, "POST /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
		    "Content-Length: 5\r\n\r\nhello", reply, sizeof(reply));
	assert_non_null(strstr(reply, "HTTP/1.1 405"));
	assert_non_null(strstr(reply, "Allow: GET, HEAD"));
	ask(m, "GET /etc/passwd");
	assert_non_null(strstr(reply, "HTTP/1.1 404"));
	ask(m, "GET /metrics/");
	assert_non_null(strstr(reply, "HTTP/1.1 404"));
	/* a request line beyond the connection's memory: libmicrohttpd's
	 * own 414, counted among its errors, never dispatched */
	snprintf(longreq, sizeof(longreq), "GET /");
	memset(longreq + 5, 'a', 30000);
	snprintf(longreq + 30005, sizeof(longreq) - 30005,
		 " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	exchange(m, longreq, reply, sizeof(reply));
	assert_non_null(strstr(reply, "HTTP/1.1 414"));
	/* not HTTP at all */
	exchange(m, "\x16\x03\x01 garbage\r\n\r\n", reply, sizeof(reply));
	assert_null(strstr(reply, "HTTP/1.1 200"));
	assert_int_equal(st->requests, 3);
	assert_int_equal(st->bad_method, 1);
	assert_int_equal(st->not_found, 2);
	assert_int_equal(st->scrapes, 0);
	assert_true(st->errors >= 2);
	assert_int_equal(st->open, 0);
	metrics_close(m);
}

/* a page beyond its buffer: 500, counted, never half a page */
static void test_truncated_page(void **state)
{
	struct metrics *m = open_endpoint(big_page, 1024);
	const struct metrics_http_stats *st = metrics_http_stats(m);

	(void)state;
	ask(m, "GET /metrics");
	assert_non_null(strstr(reply, "HTTP/1.1 500"));
	assert_null(strstr(reply, "qwd_test_value"));
	assert_int_equal(st->truncated, 1);
	assert_int_equal(st->scrapes, 0);
	metrics_close(m);
}

/* idle connections: 2 from each of 4 addresses fill the global cap (8),
 * a ninth is refused by it; with room made, 127.0.0.1 reaches its own cap
 * (4) and its fifth is refused by that one; each refusal is counted by
 * its reason and the endpoint still answers afterwards */
static void test_connection_caps(void **state)
{
	struct metrics *m = open_endpoint(page, 4096);
	const struct metrics_http_stats *st = metrics_http_stats(m);
	static const char *from[] = {"127.0.0.1", "127.0.0.2", "127.0.0.3",
				     "127.0.0.4"};
	int c[16], n = 0;

	(void)state;
	/* 2 from each address: 8, the global cap */
	for (int i = 0; i < 8; i++) {
		c[n++] = client(m, from[i % 4]);
		PUMP_WHILE(m, st->conn_accepted < (uint64_t)n);
	}
	assert_int_equal(st->open, 8);
	/* a ninth from a fresh address: the global cap */
	c[n++] = client(m, "127.0.0.5");
	PUMP_WHILE(m, st->conn_limit < 1);
	assert_int_equal(st->conn_limit, 1);
	assert_int_equal(st->open, 8);
	/* free one of 127.0.0.2's: a third from 127.0.0.1 is taken, then
	 * 127.0.0.1 holds 3; free two more elsewhere and send two more from
	 * 127.0.0.1: the first is its 4th (taken), the second over its cap */
	close(c[1]);
	PUMP_WHILE(m, st->open > 7);
	c[n++] = client(m, "127.0.0.1");
	PUMP_WHILE(m, st->conn_accepted < 9);
	assert_int_equal(st->open, 8);
	close(c[2]);
	close(c[3]);
	PUMP_WHILE(m, st->open > 6);
	c[n++] = client(m, "127.0.0.1");
	PUMP_WHILE(m, st->conn_accepted < 10);
	c[n++] = client(m, "127.0.0.1");
	PUMP_WHILE(m, st->conn_limit_ip < 1);
	assert_int_equal(st->conn_limit_ip, 1);
	assert_int_equal(st->conn_limit, 1);
	assert_int_equal(st->open, 7);
	/* the endpoint still answers (127.0.0.1 back under its cap) */
	close(c[0]);
	PUMP_WHILE(m, st->open > 6);
	ask(m, "GET /healthz");
	assert_non_null(strstr(reply, "HTTP/1.1 200"));
	for (int i = 0; i < n; i++)
		if (i > 3)
			close(c[i]);
	metrics_close(m);
}

static void test_dispatch(void **state)
{
	(void)state;
	assert_int_equal(metrics_dispatch("GET", "/metrics"), METRICS_ROUTE_METRICS);
	assert_int_equal(metrics_dispatch("HEAD", "/healthz"), METRICS_ROUTE_HEALTHZ);
	assert_int_equal(metrics_dispatch("GET", "/"), METRICS_ROUTE_NOT_FOUND);
	assert_int_equal(metrics_dispatch("get", "/metrics"), METRICS_ROUTE_BAD_METHOD);
	assert_int_equal(metrics_dispatch("DELETE", "/metrics"), METRICS_ROUTE_BAD_METHOD);
	assert_int_equal(metrics_dispatch(NULL, NULL), METRICS_ROUTE_BAD_METHOD);
	assert_int_equal(metrics_dispatch("GET", NULL), METRICS_ROUTE_NOT_FOUND);
	assert_int_equal(metrics_route_status(METRICS_ROUTE_BAD_METHOD), 405);
	assert_int_equal(metrics_route_status(METRICS_ROUTE_NOT_FOUND), 404);
}

static void test_open_errors(void **state)
{
	char err[256];

	(void)state;
	assert_null(metrics_open("localhost:1", 0, 4096, page, NULL, err,
				 sizeof(err)));
	assert_non_null(strstr(err, "not an IPv4 address"));
	assert_null(metrics_open(NULL, 70000, 4096, page, NULL, err,
				 sizeof(err)));
	assert_non_null(strstr(err, "out of range"));
}

/* qwd -metrics [ADDR:]PORT: loopback when no address, clear errors */
static void test_parse_listen(void **state)
{
	char addr[64], err[256];
	int port = -1;

	(void)state;
	assert_true(metrics_parse_listen("9100", addr, sizeof(addr), &port,
					 err, sizeof(err)));
	assert_string_equal(addr, "127.0.0.1");
	assert_int_equal(port, 9100);
	assert_true(metrics_parse_listen("0.0.0.0:0", addr, sizeof(addr),
					 &port, err, sizeof(err)));
	assert_string_equal(addr, "0.0.0.0");
	assert_int_equal(port, 0);
	assert_false(metrics_parse_listen("127.0.0.1:99999", addr,
					  sizeof(addr), &port, err, sizeof(err)));
	assert_non_null(strstr(err, "port"));
	assert_false(metrics_parse_listen(":9100", addr, sizeof(addr), &port,
					  err, sizeof(err)));
	assert_non_null(strstr(err, "no IPv4 address"));
	assert_false(metrics_parse_listen("localhost:9100", addr, sizeof(addr),
					  &port, err, sizeof(err)));
	assert_non_null(strstr(err, "'localhost' is not an IPv4 address"));
	assert_false(metrics_parse_listen("", addr, sizeof(addr), &port, err,
					  sizeof(err)));
}

static const struct CMUnitTest http_tests[] = {
	cmocka_unit_test(test_parse_listen),
	cmocka_unit_test(test_dispatch),
	cmocka_unit_test(test_open_errors),
	cmocka_unit_test(test_get_metrics),
	cmocka_unit_test(test_bad_requests),
	cmocka_unit_test(test_truncated_page),
	cmocka_unit_test(test_connection_caps),
};

QWD_TEST_GROUP(metrics_http, http_tests, NULL, NULL)
