/*
 * qwd/metrics.h -- the Prometheus endpoint: the text exposition writer and
 * a bounded HTTP server for /metrics and /healthz.
 *
 * Design note
 *   Two parts, both blind to the game: the server's page builder
 *   (src/server/metrics.c) reads its own figures and calls the writer;
 *   this module only formats numbers and serves bytes.
 *
 *   The writer (expo.c) is ours: the Prometheus text format 0.0.4 is a
 *   line per sample,
 *       # HELP name text          (text: \\ and \n escaped)
 *       # TYPE name counter|gauge|histogram
 *       name{label="value",...} number
 *   with label values escaped as \\, \" and \n.  It writes into a buffer
 *   the caller owns (sized once at start-up), never allocates, and on
 *   overflow stops writing and says so (metrics_page.truncated), so a page
 *   is either whole or refused, never cut in the middle of a line.
 *   Histograms come from the project's one histogram (struct qwd_hist):
 *   its 1856 log-linear buckets are folded into the few cumulative `le`
 *   bounds the caller names (qwd_hist_count_le, in common).
 *
 *   The HTTP server (http.c) is libmicrohttpd, not ours: HTTP parsing is
 *   where the attacks are, and libmicrohttpd is a well-kept, Debian-
 *   packaged library that runs without threads in "external select" mode
 *   (MHD_get_fdset2, MHD_get_timeout, MHD_run_from_select), so its sockets
 *   join the server's own select() and a scrape costs the frame loop
 *   nothing while no one asks.  It is bounded by its own options: a
 *   connection cap (also per address), a timeout on idle connections and a
 *   memory cap per connection (a request line or header beyond it is
 *   answered 414/431 by libmicrohttpd).  The dispatch of a request (method,
 *   url) to an answer is ours and a pure function (metrics_dispatch), so
 *   it is fuzzed apart from the sockets: GET and HEAD of /metrics and
 *   /healthz are answered, another path is 404, another method 405.
 *   Every request and every refusal is counted, by reason.
 *
 *   Errors: metrics_open returns NULL with the reason in err.
 */
#ifndef QWD_METRICS_H
#define QWD_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/select.h>

#include "qwd/common.h"

/* ---- the exposition writer (expo.c) ----------------------------------- */

enum metrics_type {
	METRICS_COUNTER = 0,
	METRICS_GAUGE,
	METRICS_HISTOGRAM
};

/* One page being written into buf[size] (caller-owned).  len never counts
 * a partial line: a line that does not fit is not written, truncated is
 * set and every later call does nothing. */
struct metrics_page {
	char *buf;
	size_t size, len;
	bool truncated;
};

struct metrics_label {
	const char *name;	/* [a-zA-Z_][a-zA-Z0-9_]*: the caller's constant */
	const char *value;	/* any bytes: escaped */
};

void metrics_page_init(struct metrics_page *p, char *buf, size_t size);

/* "# HELP name help" and "# TYPE name type" (help's \ and newline
 * escaped).  A counter's name ends in _total (Prometheus' convention,
 * which promtool checks); the caller names it so. */
void metrics_family(struct metrics_page *p, const char *name,
		    enum metrics_type type, const char *help);
/* one sample: name{labels} value (labels may be NULL when n is 0); a
 * value that is a whole number below 2^53 is written as one, NaN as NaN,
 * infinities as +Inf/-Inf */
void metrics_sample(struct metrics_page *p, const char *name,
		    const struct metrics_label *labels, int n, double value);
/* an exact count: name{labels} value */
void metrics_sample_u64(struct metrics_page *p, const char *name,
			const struct metrics_label *labels, int n,
			uint64_t value);
/* family and one unlabelled sample, the common case */
void metrics_counter(struct metrics_page *p, const char *name,
		     const char *help, uint64_t value);
void metrics_gauge(struct metrics_page *p, const char *name,
		   const char *help, double value);
/* The samples of a histogram family: name_bucket{labels,le="B"} for each
 * bound of le[] (in h's unit, ascending), then le="+Inf", name_sum and
 * name_count; every number in h's unit times scale (1e-9: nanoseconds
 * written as seconds).  A bucket counts the values in h's buckets that
 * lie wholly at or below its bound (qwd_hist_count_le). */
void metrics_histogram(struct metrics_page *p, const char *name,
		       const struct metrics_label *labels, int n,
		       const struct qwd_hist *h, const uint64_t *le, int nle,
		       double scale);

/* Escape a label value into out[size] (always terminated when size > 0):
 * \ " and newline as \\ \" \n; other control bytes and bytes that are not
 * ASCII (Quake's coloured characters are not UTF-8) as '?'.  Returns the
 * length it wanted, as snprintf. */
size_t metrics_escape_label(const char *in, size_t inlen, char *out,
			    size_t size);

/* ---- the HTTP endpoint (http.c) --------------------------------------- */

enum {
	METRICS_CONN_MAX = 8,		/* connections at once (all addresses) */
	METRICS_CONN_PER_IP = 4,	/* from one address */
	METRICS_TIMEOUT_S = 5,		/* an idle connection is closed */
	METRICS_CONN_MEMORY = 16384	/* a connection's request and headers */
};

/* what metrics_dispatch decided */
enum metrics_route {
	METRICS_ROUTE_METRICS = 0,	/* 200, the page */
	METRICS_ROUTE_HEALTHZ,		/* 200, "ok\n" */
	METRICS_ROUTE_NOT_FOUND,	/* 404: a path we do not serve */
	METRICS_ROUTE_BAD_METHOD	/* 405: not GET or HEAD */
};

/* The answer to a request: method and url as the client sent them (url
 * without its query string), any bytes; never NULL.  Pure: no state. */
enum metrics_route metrics_dispatch(const char *method, const char *url);
/* the HTTP status of a route */
int metrics_route_status(enum metrics_route r);

/* Writes the page into p; the endpoint answers 500 when p is truncated. */
typedef void (*metrics_page_fn)(void *ctx, struct metrics_page *p);

struct metrics_http_stats {
	uint64_t requests;		/* requests dispatched */
	uint64_t scrapes;		/* /metrics answered 200 */
	uint64_t health;		/* /healthz answered 200 */
	uint64_t not_found;		/* 404 */
	uint64_t bad_method;		/* 405 */
	uint64_t truncated;		/* 500: the page did not fit */
	uint64_t conn_limit;		/* connections refused: all at the cap */
	uint64_t conn_limit_ip;		/* refused: that address at its cap */
	uint64_t conn_accepted;
	uint64_t errors;		/* libmicrohttpd's own: malformed,
					   too long, timed out, reset */
	int open;			/* connections open now */
};

struct metrics;

/* The operator's "ADDR:PORT" or "PORT" (qwd -metrics): addr (dotted IPv4,
 * "127.0.0.1" when only a port is given: loopback by default) into
 * addr[size], the port 0..65535; false with the reason in err. */
bool metrics_parse_listen(const char *s, char *addr, size_t size, int *port,
			  char *err, size_t errsize);

/* Listen on addr (dotted IPv4, "127.0.0.1" when NULL or "") and port (0:
 * any; metrics_port says which) and answer with page_fn(ctx, ...) into a
 * buffer of page_size bytes allocated here.  NULL with err on failure. */
struct metrics *metrics_open(const char *addr, int port, size_t page_size,
			     metrics_page_fn page_fn, void *ctx, char *err,
			     size_t errsize);
int metrics_port(const struct metrics *m);
/* Add the endpoint's descriptors to the caller's select() sets (raising
 * *maxfd, the highest descriptor) and lower *wait (seconds) when it has a
 * timeout due sooner.  e may be NULL (the endpoint then keeps its own). */
void metrics_fdset(struct metrics *m, fd_set *r, fd_set *w, fd_set *e,
		   int *maxfd, double *wait);
/* After the select(): accept, read, answer what is ready (never blocks). */
void metrics_run(struct metrics *m, const fd_set *r, const fd_set *w,
		 const fd_set *e);
const struct metrics_http_stats *metrics_http_stats(const struct metrics *m);
void metrics_close(struct metrics *m);

#endif
