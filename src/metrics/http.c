/*
 * http.c -- the metrics endpoint: libmicrohttpd in external-select mode,
 * our dispatch of (method, url), our counters.
 *
 * Design note
 *   libmicrohttpd owns the sockets and the HTTP parsing; it is started
 *   without MHD_USE_INTERNAL_POLLING_THREAD, so it never runs on its own:
 *   metrics_fdset puts its descriptors in the server's select() and
 *   metrics_run lets it accept, read and write what that select() found
 *   ready.  Nothing blocks, and an idle endpoint costs one descriptor in
 *   the set.
 *   Bounds, each against an attack on a server that must keep its frame
 *   rate: connections at once (METRICS_CONN_MAX) and per address
 *   (METRICS_CONN_PER_IP) stop a flood of open sockets; the idle timeout
 *   (METRICS_TIMEOUT_S) stops a slow client holding one; the memory per
 *   connection (METRICS_CONN_MEMORY) bounds the request line and headers
 *   (libmicrohttpd answers 414/431 beyond it).  The two connection caps
 *   are checked here, in the accept policy (which libmicrohttpd asks
 *   before it takes a connection), so each refusal is counted by its
 *   reason; libmicrohttpd's own caps are set one above them as a backstop
 *   (its check runs first and would refuse silently).
 *   The fixed answers (healthz, 404, 405, 500) are built once at open and
 *   reused (libmicrohttpd counts their references); only the page is
 *   copied into a response per scrape, as a connection may still be
 *   sending the last page when the next is written.
 *   libmicrohttpd's error messages (a malformed request, a timeout, a
 *   reset) go to a logger that counts them (errors) and prints nothing:
 *   an unbounded stream of them is the client's to make, not ours to log.
 */
#include "qwd/metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct metrics {
	struct MHD_Daemon *daemon;
	int port;
	metrics_page_fn page_fn;
	void *ctx;
	char *page_buf;
	size_t page_size;
	struct MHD_Response *fixed[4];	/* healthz, 404, 405, 500 */
	/* the open connections' addresses, for the per-address cap */
	struct in_addr peer[METRICS_CONN_MAX];
	bool used[METRICS_CONN_MAX];
	fd_set no_except;
	struct metrics_http_stats st;
};

enum { FIXED_HEALTHZ, FIXED_NOT_FOUND, FIXED_BAD_METHOD, FIXED_TRUNCATED };

enum metrics_route metrics_dispatch(const char *method, const char *url)
{
	bool get, head;

	get = method && strcmp(method, "GET") == 0;
	head = method && strcmp(method, "HEAD") == 0;
	if (!get && !head)
		return METRICS_ROUTE_BAD_METHOD;
	if (url && strcmp(url, "/metrics") == 0)
		return METRICS_ROUTE_METRICS;
	if (url && strcmp(url, "/healthz") == 0)
		return METRICS_ROUTE_HEALTHZ;
	return METRICS_ROUTE_NOT_FOUND;
}

int metrics_route_status(enum metrics_route r)
{
	switch (r) {
	case METRICS_ROUTE_METRICS:
	case METRICS_ROUTE_HEALTHZ:
		return 200;
	case METRICS_ROUTE_NOT_FOUND:
		return 404;
	case METRICS_ROUTE_BAD_METHOD:
		return 405;
	}
	return 500;
}

bool metrics_parse_listen(const char *s, char *addr, size_t size, int *port,
			  char *err, size_t errsize)
{
	const char *colon = strrchr(s, ':');
	const char *ps = colon ? colon + 1 : s;
	size_t alen = colon ? (size_t)(colon - s) : 0;
	struct in_addr a;
	long long v;

	if (!qwd_parse_int(ps, 0, 65535, false, &v)) {
		snprintf(err, errsize, "\"%s\": the port is not a "
			 "number 0..65535 (ADDR:PORT or PORT)", s);
		return false;
	}
	if (!colon) {
		snprintf(addr, size, "127.0.0.1");
	} else if (alen == 0 || alen >= size || alen >= INET_ADDRSTRLEN) {
		snprintf(err, errsize, "\"%s\": no IPv4 address "
			 "before the ':'", s);
		return false;
	} else {
		memcpy(addr, s, alen);
		addr[alen] = '\0';
		if (inet_pton(AF_INET, addr, &a) != 1) {
			snprintf(err, errsize, "\"%s\": '%s' is not "
				 "an IPv4 address", s, addr);
			return false;
		}
	}
	*port = (int)v;
	return true;
}

static void count_error(void *cls, const char *fmt, va_list ap)
{
	struct metrics *m = cls;

	(void)fmt;
	(void)ap;
	m->st.errors++;
}

static int peers_from(const struct metrics *m, struct in_addr a)
{
	int n = 0;

	for (int i = 0; i < METRICS_CONN_MAX; i++)
		n += m->used[i] && m->peer[i].s_addr == a.s_addr;
	return n;
}

static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr,
				     socklen_t len)
{
	struct metrics *m = cls;
	struct in_addr a = {0};

	if (len >= (socklen_t)sizeof(struct sockaddr_in) &&
	    addr->sa_family == AF_INET)
		a = ((const struct sockaddr_in *)(const void *)addr)->sin_addr;
	if (m->st.open >= METRICS_CONN_MAX) {
		m->st.conn_limit++;
		return MHD_NO;
	}
	if (peers_from(m, a) >= METRICS_CONN_PER_IP) {
		m->st.conn_limit_ip++;
		return MHD_NO;
	}
	return MHD_YES;
}

static void notify_connection(void *cls, struct MHD_Connection *c,
			      void **socket_context,
			      enum MHD_ConnectionNotificationCode code)
{
	struct metrics *m = cls;
	const union MHD_ConnectionInfo *ci;
	int i;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		for (i = 0; i < METRICS_CONN_MAX && m->used[i]; i++)
			;
		if (i == METRICS_CONN_MAX)	/* the policy let no more in */
			return;
		ci = MHD_get_connection_info(c,
			MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		m->peer[i].s_addr = 0;
		if (ci && ci->client_addr &&
		    ci->client_addr->sa_family == AF_INET)
			m->peer[i] = ((const struct sockaddr_in *)
				      (const void *)ci->client_addr)->sin_addr;
		m->used[i] = true;
		*socket_context = &m->used[i];
		m->st.open++;
		m->st.conn_accepted++;
		return;
	}
	if (*socket_context) {
		*(bool *)*socket_context = false;
		*socket_context = NULL;
		m->st.open--;
	}
}

static enum MHD_Result queue(struct MHD_Connection *c, int status,
			     struct MHD_Response *r)
{
	return MHD_queue_response(c, (unsigned)status, r);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	struct metrics *m = cls;
	struct metrics_page p;
	struct MHD_Response *r;
	enum metrics_route route;
	enum MHD_Result ret;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)req_cls;
	m->st.requests++;
	route = metrics_dispatch(method, url);
	switch (route) {
	case METRICS_ROUTE_HEALTHZ:
		m->st.health++;
		return queue(c, 200, m->fixed[FIXED_HEALTHZ]);
	case METRICS_ROUTE_NOT_FOUND:
		m->st.not_found++;
		return queue(c, 404, m->fixed[FIXED_NOT_FOUND]);
	case METRICS_ROUTE_BAD_METHOD:
		m->st.bad_method++;
		return queue(c, 405, m->fixed[FIXED_BAD_METHOD]);
	case METRICS_ROUTE_METRICS:
		break;
	}
	/* counted before the page is written, so the page includes itself */
	m->st.scrapes++;
	metrics_page_init(&p, m->page_buf, m->page_size);
	m->page_fn(m->ctx, &p);
	if (p.truncated) {
		m->st.scrapes--;
		m->st.truncated++;
		return queue(c, 500, m->fixed[FIXED_TRUNCATED]);
	}
	r = MHD_create_response_from_buffer(p.len, p.buf,
					    MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", CONTENT_TYPE);
	ret = queue(c, 200, r);
	MHD_destroy_response(r);
	return ret;
}

static struct MHD_Response *fixed(const char *body)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer(strlen(body), (void *)body,
					    MHD_RESPMEM_PERSISTENT);
	if (r)
		MHD_add_response_header(r, "Content-Type",
					"text/plain; charset=utf-8");
	return r;
}

struct metrics *metrics_open(const char *addr, int port, size_t page_size,
			     metrics_page_fn page_fn, void *ctx, char *err,
			     size_t errsize)
{
	struct metrics *m;
	struct sockaddr_in sa;
	const union MHD_DaemonInfo *di;

	if (!addr || !*addr)
		addr = "127.0.0.1";
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		snprintf(err, errsize, "'%s' is not an IPv4 address",
			 addr);
		return NULL;
	}
	if (port < 0 || port > 65535) {
		snprintf(err, errsize, "port %d is out of range", port);
		return NULL;
	}
	if (page_size < 64 || !page_fn) {
		snprintf(err, errsize, "no page to serve");
		return NULL;
	}
	sa.sin_port = htons((uint16_t)port);
	m = calloc(1, sizeof(*m));
	if (m)
		m->page_buf = malloc(page_size);
	if (!m || !m->page_buf) {
		snprintf(err, errsize, "out of memory");
		goto err;
	}
	m->page_size = page_size;
	m->page_fn = page_fn;
	m->ctx = ctx;
	FD_ZERO(&m->no_except);
	m->fixed[FIXED_HEALTHZ] = fixed("ok\n");
	m->fixed[FIXED_NOT_FOUND] = fixed("not found: this server has "
					  "/metrics and /healthz\n");
	m->fixed[FIXED_BAD_METHOD] = fixed("method not allowed: GET or "
					   "HEAD only\n");
	m->fixed[FIXED_TRUNCATED] = fixed("the page did not fit its buffer\n");
	for (int i = 0; i < 4; i++)
		if (!m->fixed[i]) {
			snprintf(err, errsize, "out of memory");
			goto err;
		}
	MHD_add_response_header(m->fixed[FIXED_BAD_METHOD], "Allow",
				"GET, HEAD");
	/* no MHD_USE_INTERNAL_POLLING_THREAD: runs from our select() only */
	m->daemon = MHD_start_daemon(
		MHD_USE_ERROR_LOG, 0, accept_policy, m, answer, m,
		MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)&sa,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_CONN_MAX + 1,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned)METRICS_CONN_PER_IP + 1,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)METRICS_CONN_MEMORY,
		MHD_OPTION_EXTERNAL_LOGGER, count_error, m,
		MHD_OPTION_NOTIFY_CONNECTION, notify_connection, m,
		MHD_OPTION_END);
	if (!m->daemon) {
		snprintf(err, errsize, "cannot listen on %s:%d (%s)",
			 addr, port, errno ? strerror(errno) : "libmicrohttpd");
		goto err;
	}
	di = MHD_get_daemon_info(m->daemon, MHD_DAEMON_INFO_BIND_PORT);
	m->port = di ? di->port : port;
	return m;
err:
	metrics_close(m);
	return NULL;
}

int metrics_port(const struct metrics *m)
{
	return m->port;
}

void metrics_fdset(struct metrics *m, fd_set *r, fd_set *w, fd_set *e,
		   int *maxfd, double *wait)
{
	MHD_socket mx = *maxfd;
	MHD_UNSIGNED_LONG_LONG ms;

	if (MHD_get_fdset2(m->daemon, r, w, e ? e : &m->no_except, &mx,
			   FD_SETSIZE) == MHD_YES && mx > *maxfd)
		*maxfd = mx;
	if (!e)
		FD_ZERO(&m->no_except);
	if (wait && MHD_get_timeout(m->daemon, &ms) == MHD_YES &&
	    (double)ms / 1000.0 < *wait)
		*wait = (double)ms / 1000.0;
}

void metrics_run(struct metrics *m, const fd_set *r, const fd_set *w,
		 const fd_set *e)
{
	MHD_run_from_select(m->daemon, r, w, e ? e : &m->no_except);
}

const struct metrics_http_stats *metrics_http_stats(const struct metrics *m)
{
	return &m->st;
}

void metrics_close(struct metrics *m)
{
	if (!m)
		return;
	if (m->daemon)
		MHD_stop_daemon(m->daemon);
	for (int i = 0; i < 4; i++)
		if (m->fixed[i])
			MHD_destroy_response(m->fixed[i]);
	free(m->page_buf);
	free(m);
}
