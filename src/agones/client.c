/*
 * client.c -- the Agones sidecar's requests over libcurl's multi interface.
 *
 * Design note
 *   Why libcurl multi: its descriptors go into the caller's select()
 *   (curl_multi_fdset, curl_multi_timeout) and curl_multi_perform moves
 *   every transfer as far as it can without blocking, so the server's
 *   frame loop never waits on the sidecar; HTTP/1.1 (keep-alive, chunked
 *   bodies, the watch's endless response) is libcurl's to get right, not
 *   ours.  It is packaged (libcurl4-openssl-dev) and well kept.
 *
 *   The request's life:
 *     call -> queue[AGONES_QUEUE] -> a free transfer slot (x[]) -> libcurl
 *          -> done: answer parsed into the slot's fixed body -> cb.done
 *   A slot owns one easy handle (reused, curl_easy_reset) and its body
 *   buffer, both made at agones_open; the queue is a ring of fixed
 *   requests.  The queue's head starts only when no transfer of its group
 *   (state changes, health, metadata, players) is in flight, so the
 *   sidecar sees each group's calls in the order they were made (a player's
 *   connect before its disconnect); a read (the GameServer, the player
 *   counts) starts only when nothing is in flight, so it sees every
 *   earlier call's effect.  Until the sidecar has answered once
 *   (it may start after the server) one transfer runs at a time; a refused
 *   connection puts the request back at the head and holds the queue for a
 *   backoff doubling from AGONES_BACKOFF_MIN to AGONES_BACKOFF_MAX.
 *
 *   The watch is its own easy handle: a GET of /watch/gameserver held
 *   open; its body is cut into lines in a fixed buffer and each line is a
 *   {"result": GameServer} handed to cb.watch.  When it ends it is reopened
 *   after its own backoff.
 *
 *   Each kind of failure is logged the first time (logged[]) and counted
 *   every time (struct agones_stats).
 */
#include "qwd/agones.h"
#include "qwd/common.h"

#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>
#include <curl/curl.h>

enum group { G_STATE, G_HEALTH, G_META, G_PLAYERS, G_READ, G_NONE };

struct req {
	enum agones_call call;
	const char *method;	/* "GET", "POST", "PUT" */
	char path[AGONES_PATH_MAX];
	char body[AGONES_REQ_BODY_MAX];
	char key[AGONES_KEY_MAX];	/* what a later set replaces */
};

struct xfer {
	CURL *easy;
	bool busy;
	bool over;		/* the answer outgrew body */
	struct req req;
	size_t len;
	char body[AGONES_BODY_MAX];
};

struct agones {
	CURLM *multi;
	struct curl_slist *headers;
	char base[48];		/* "http://localhost:9358" */
	struct agones_callbacks cb;
	struct xfer x[AGONES_INFLIGHT];
	struct req queue[AGONES_QUEUE];
	int qhead, qlen;
	double now, retry_at, backoff;
	bool answered_once;
	/* the watch */
	CURL *watch;
	bool watch_want, watch_on, watch_seen;
	double watch_at, watch_backoff;
	size_t line_len;
	bool line_over;
	char line[AGONES_BODY_MAX];
	char url[AGONES_PATH_MAX + 48];
	char watch_url[AGONES_PATH_MAX + 48];
	struct agones_gs gs;	/* the last parsed GameServer */
	struct agones_stats st;
	bool logged[AGONES_FAILURES];
};

static const char *const failure_names[AGONES_FAILURES] = {
	[AGONES_FAIL_REFUSED] = "sidecar refused the connection (retrying)",
	[AGONES_FAIL_TRANSFER] = "transfer failed",
	[AGONES_FAIL_STATUS] = "HTTP status not 2xx",
	[AGONES_FAIL_BODY] = "answer not understood",
	[AGONES_FAIL_TOO_LONG] = "answer longer than the buffer",
	[AGONES_FAIL_QUEUE_FULL] = "queue full, call dropped",
	[AGONES_FAIL_WATCH_ENDED] = "watch stream ended (reopening)",
};

/* the short names (a metrics label, the console's line) */
static const char *const failure_kinds[AGONES_FAILURES] = {
	[AGONES_FAIL_REFUSED] = "refused",
	[AGONES_FAIL_TRANSFER] = "transfer",
	[AGONES_FAIL_STATUS] = "status",
	[AGONES_FAIL_BODY] = "body",
	[AGONES_FAIL_TOO_LONG] = "too_long",
	[AGONES_FAIL_QUEUE_FULL] = "queue_full",
	[AGONES_FAIL_WATCH_ENDED] = "watch_ended",
};

const char *agones_failure_kind(enum agones_failure f)
{
	if ((int)f < 0 || f >= AGONES_FAILURES)
		return "?";
	return failure_kinds[f];
}

static void failure(struct agones *a, enum agones_failure f,
		    enum agones_call call, const char *detail)
{
	a->st.failed[f]++;
	if (a->logged[f])
		return;
	a->logged[f] = true;
	qwd_logf(a->cb.log, QWD_LOG_WARN,
		 "agones: %s: %s (%s); further ones counted, not logged",
		 agones_call_name(call), failure_names[f],
		 detail ? detail : "-");
}

static enum group group_of(enum agones_call c)
{
	switch (c) {
	case AGONES_READY:
	case AGONES_ALLOCATE:
	case AGONES_SHUTDOWN:
	case AGONES_RESERVE:
		return G_STATE;
	case AGONES_HEALTH:
		return G_HEALTH;
	case AGONES_SET_LABEL:
	case AGONES_SET_ANNOTATION:
		return G_META;
	case AGONES_PLAYER_CONNECT:
	case AGONES_PLAYER_DISCONNECT:
	case AGONES_SET_CAPACITY:
		return G_PLAYERS;
	case AGONES_GAMESERVER:
	case AGONES_GET_CAPACITY:
	case AGONES_PLAYER_COUNT:
	case AGONES_PLAYER_CONNECTED:
	case AGONES_PLAYERS:
		return G_READ;
	default:
		return G_NONE;
	}
}

int agones_env_port(void)
{
	const char *s = getenv("AGONES_SDK_HTTP_PORT");
	if (!s || !*s)
		return 0;
	char *end;
	long p = strtol(s, &end, 10);
	if (*end != '\0' || p <= 0 || p > 65535)
		return -1;
	return (int)p;
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct xfer *x = arg;
	size_t len = size * n;
	if (x->over || len >= sizeof(x->body) - x->len) {
		x->over = true;
		return len;	/* read on, report at the end */
	}
	memcpy(x->body + x->len, data, len);
	x->len += len;
	x->body[x->len] = '\0';
	return len;
}

static void watch_line(struct agones *a)
{
	size_t n = a->line_len;
	while (n > 0 && (a->line[n - 1] == '\r' || a->line[n - 1] == ' '))
		n--;
	if (n == 0)
		return;
	char err[128];
	if (agones_parse_gameserver(a->line, n, &a->gs, err, sizeof(err)) < 0) {
		failure(a, AGONES_FAIL_BODY, AGONES_WATCH, err);
		return;
	}
	a->st.watch_changes++;
	if (!a->watch_seen) {
		a->watch_seen = true;
		a->st.answered[AGONES_WATCH]++;
	}
	if (a->cb.watch)
		a->cb.watch(a->cb.ctx, &a->gs);
}

static size_t on_watch(char *data, size_t size, size_t n, void *arg)
{
	struct agones *a = arg;
	size_t len = size * n;
	long code = 0;
	curl_easy_getinfo(a->watch, CURLINFO_RESPONSE_CODE, &code);
	if (code != 200)
		return len;	/* an error's body: the status is counted */
	for (size_t i = 0; i < len; i++) {
		char c = data[i];
		if (c == '\n') {
			if (a->line_over)
				failure(a, AGONES_FAIL_TOO_LONG, AGONES_WATCH,
					"a watch line");
			else
				watch_line(a);
			a->line_len = 0;
			a->line_over = false;
			continue;
		}
		if (a->line_len + 1 >= sizeof(a->line)) {
			a->line_over = true;
			continue;
		}
		a->line[a->line_len++] = c;
	}
	return len;
}

static void common_opts(struct agones *a, CURL *e)
{
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http");
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, a->headers);
}

struct agones *agones_open(int port, const struct agones_callbacks *cb,
			   char *err, size_t errsize)
{
	if (port <= 0 || port > 65535) {
		snprintf(err, errsize, "agones: port %d is not a port", port);
		return NULL;
	}
	if (curl_global_init(CURL_GLOBAL_NOTHING) != CURLE_OK) {
		strlcpy(err, "agones: curl_global_init failed", errsize);
		return NULL;
	}
	struct agones *a = calloc(1, sizeof(*a));
	if (!a) {
		strlcpy(err, "agones: out of memory", errsize);
		return NULL;
	}
	if (cb)
		a->cb = *cb;
	snprintf(a->base, sizeof(a->base), "http://localhost:%d", port);
	snprintf(a->watch_url, sizeof(a->watch_url), "%s/watch/gameserver",
		 a->base);
	a->backoff = AGONES_BACKOFF_MIN;
	a->watch_backoff = AGONES_BACKOFF_MIN;
	a->multi = curl_multi_init();
	a->headers = curl_slist_append(NULL, "Content-Type: application/json");
	if (a->headers)
		a->headers = curl_slist_append(a->headers, "Expect:");
	a->watch = curl_easy_init();
	bool ok = a->multi && a->headers && a->watch;
	for (int i = 0; ok && i < AGONES_INFLIGHT; i++)
		ok = (a->x[i].easy = curl_easy_init()) != NULL;
	if (!ok) {
		strlcpy(err, "agones: libcurl could not set up its handles",
			errsize);
		agones_close(a);
		return NULL;
	}
	return a;
}

void agones_close(struct agones *a)
{
	if (!a)
		return;
	for (int i = 0; i < AGONES_INFLIGHT; i++) {
		if (!a->x[i].easy)
			continue;
		if (a->x[i].busy)
			curl_multi_remove_handle(a->multi, a->x[i].easy);
		curl_easy_cleanup(a->x[i].easy);
	}
	if (a->watch) {
		if (a->watch_on)
			curl_multi_remove_handle(a->multi, a->watch);
		curl_easy_cleanup(a->watch);
	}
	if (a->multi)
		curl_multi_cleanup(a->multi);
	curl_slist_free_all(a->headers);
	free(a);
}

/* ---- the queue ---------------------------------------------------------- */

static struct req *queued(struct agones *a, int i)
{
	return &a->queue[(a->qhead + i) % AGONES_QUEUE];
}

static int push(struct agones *a, enum agones_call call, const char *method,
		const char *path, const char *body, const char *key)
{
	/* a later set of the same key, a second health ping: merged */
	if (key || call == AGONES_HEALTH) {
		for (int i = 0; i < a->qlen; i++) {
			struct req *q = queued(a, i);
			if (q->call != call ||
			    (key && strcmp(q->key, key) != 0))
				continue;
			strlcpy(q->body, body, sizeof(q->body));
			a->st.coalesced++;
			return 0;
		}
	}
	if (a->qlen >= AGONES_QUEUE) {
		failure(a, AGONES_FAIL_QUEUE_FULL, call, NULL);
		return -1;
	}
	struct req *r = queued(a, a->qlen++);
	r->call = call;
	r->method = method;
	strlcpy(r->path, path, sizeof(r->path));
	strlcpy(r->body, body, sizeof(r->body));
	strlcpy(r->key, key ? key : "", sizeof(r->key));
	return 0;
}

/* back at the head (a refused connection) */
static void push_front(struct agones *a, const struct req *r)
{
	if (a->qlen >= AGONES_QUEUE) {
		failure(a, AGONES_FAIL_QUEUE_FULL, r->call, "a retry");
		return;
	}
	a->qhead = (a->qhead + AGONES_QUEUE - 1) % AGONES_QUEUE;
	a->qlen++;
	*queued(a, 0) = *r;
}

static bool group_busy(const struct agones *a, enum group g)
{
	if (g == G_READ)	/* a read waits for every earlier call */
		for (int i = 0; i < AGONES_INFLIGHT; i++)
			if (a->x[i].busy)
				return true;
	for (int i = 0; i < AGONES_INFLIGHT; i++)
		if (a->x[i].busy && group_of(a->x[i].req.call) == g)
			return true;
	return false;
}

static int busy_count(const struct agones *a)
{
	int n = 0;
	for (int i = 0; i < AGONES_INFLIGHT; i++)
		n += a->x[i].busy;
	return n;
}

static void start(struct agones *a, struct xfer *x)
{
	x->req = *queued(a, 0);
	a->qhead = (a->qhead + 1) % AGONES_QUEUE;
	a->qlen--;
	x->busy = true;
	x->over = false;
	x->len = 0;
	x->body[0] = '\0';
	CURL *e = x->easy;
	curl_easy_reset(e);
	common_opts(a, e);
	snprintf(a->url, sizeof(a->url), "%s%s", a->base, x->req.path);
	curl_easy_setopt(e, CURLOPT_URL, a->url);	/* curl copies it */
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, AGONES_TIMEOUT_MS);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
	if (strcmp(x->req.method, "GET") == 0) {
		curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
	} else {
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, x->req.body);
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE,
				 (long)strlen(x->req.body));
		if (strcmp(x->req.method, "PUT") == 0)
			curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "PUT");
	}
	a->st.sent[x->req.call]++;
	curl_multi_add_handle(a->multi, e);
}

static void start_queued(struct agones *a)
{
	if (a->qlen == 0 || a->now < a->retry_at)
		return;
	int limit = a->answered_once ? AGONES_INFLIGHT : 1;
	while (a->qlen > 0 && busy_count(a) < limit &&
	       !group_busy(a, group_of(queued(a, 0)->call))) {
		struct xfer *x = NULL;
		for (int i = 0; i < AGONES_INFLIGHT && !x; i++)
			if (!a->x[i].busy)
				x = &a->x[i];
		start(a, x);
	}
}

static void start_watch(struct agones *a)
{
	if (!a->watch_want || a->watch_on || a->now < a->watch_at)
		return;
	CURL *e = a->watch;
	curl_easy_reset(e);
	common_opts(a, e);
	curl_easy_setopt(e, CURLOPT_URL, a->watch_url);
	curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_watch);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, a);
	curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	a->line_len = 0;
	a->line_over = false;
	a->watch_seen = false;
	a->watch_on = true;
	a->st.sent[AGONES_WATCH]++;
	curl_multi_add_handle(a->multi, e);
}

/* ---- endings ------------------------------------------------------------ */

static double next_backoff(double b)
{
	b *= 2;
	return b > AGONES_BACKOFF_MAX ? AGONES_BACKOFF_MAX : b;
}

static void watch_ended(struct agones *a, CURLcode rc)
{
	curl_multi_remove_handle(a->multi, a->watch);
	a->watch_on = false;
	long code = 0;
	curl_easy_getinfo(a->watch, CURLINFO_RESPONSE_CODE, &code);
	if (rc == CURLE_COULDNT_CONNECT)
		failure(a, AGONES_FAIL_REFUSED, AGONES_WATCH,
			curl_easy_strerror(rc));
	else if (rc != CURLE_OK)
		failure(a, AGONES_FAIL_TRANSFER, AGONES_WATCH,
			curl_easy_strerror(rc));
	else if (code != 200)
		failure(a, AGONES_FAIL_STATUS, AGONES_WATCH, NULL);
	else
		failure(a, AGONES_FAIL_WATCH_ENDED, AGONES_WATCH, NULL);
	if (a->watch_seen)
		a->watch_backoff = AGONES_BACKOFF_MIN;
	a->watch_at = a->now + a->watch_backoff;
	a->watch_backoff = next_backoff(a->watch_backoff);
}

static void ended(struct agones *a, struct xfer *x, CURLcode rc)
{
	curl_multi_remove_handle(a->multi, x->easy);
	x->busy = false;
	struct agones_answer ans = {.call = x->req.call};
	char err[160] = "";
	long code = 0;
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code);
	ans.status = (int)code;
	if (rc == CURLE_COULDNT_CONNECT) {
		failure(a, AGONES_FAIL_REFUSED, x->req.call,
			curl_easy_strerror(rc));
		push_front(a, &x->req);
		a->retry_at = a->now + a->backoff;
		a->backoff = next_backoff(a->backoff);
		return;
	}
	if (rc != CURLE_OK) {
		strlcpy(err, curl_easy_strerror(rc), sizeof(err));
		failure(a, AGONES_FAIL_TRANSFER, x->req.call, err);
	} else {
		a->answered_once = true;
		a->backoff = AGONES_BACKOFF_MIN;
		if (code < 200 || code > 299) {
			snprintf(err, sizeof(err), "HTTP %ld: %.100s", code,
				 x->body);
			failure(a, AGONES_FAIL_STATUS, x->req.call, err);
		} else if (x->over) {
			strlcpy(err, "answer too long", sizeof(err));
			failure(a, AGONES_FAIL_TOO_LONG, x->req.call, NULL);
		} else if (agones_parse_answer(x->req.call, x->body, x->len,
					       &ans, &a->gs, err,
					       sizeof(err)) < 0) {
			failure(a, AGONES_FAIL_BODY, x->req.call, err);
		} else {
			ans.ok = true;
			a->st.answered[x->req.call]++;
		}
	}
	ans.error = ans.ok ? NULL : err;
	if (a->cb.done)
		a->cb.done(a->cb.ctx, &ans);
}

void agones_run(struct agones *a, double now)
{
	a->now = now;
	start_watch(a);
	start_queued(a);
	int running;
	curl_multi_perform(a->multi, &running);
	CURLMsg *m;
	int left;
	while ((m = curl_multi_info_read(a->multi, &left))) {
		if (m->msg != CURLMSG_DONE)
			continue;
		CURL *e = m->easy_handle;
		CURLcode rc = m->data.result;
		if (e == a->watch) {
			watch_ended(a, rc);
			continue;
		}
		struct xfer *x = NULL;
		curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&x);
		if (x)
			ended(a, x, rc);
	}
	/* what the endings freed or queued goes out in this same run */
	start_queued(a);
	curl_multi_perform(a->multi, &running);
}

void agones_fdset(struct agones *a, fd_set *r, fd_set *w, fd_set *e,
		  int *maxfd, double *timeout)
{
	int max = -1;
	curl_multi_fdset(a->multi, r, w, e, &max);
	if (max > *maxfd)
		*maxfd = max;
	long ms = -1;
	curl_multi_timeout(a->multi, &ms);
	double t = ms >= 0 ? ms / 1000.0 : *timeout;
	/* transfers with no descriptor yet (resolving): curl's advice */
	if (max < 0 && (busy_count(a) > 0 || a->watch_on) && t > 0.1)
		t = 0.1;
	if (a->qlen > 0 && busy_count(a) < AGONES_INFLIGHT) {
		double due = a->retry_at - a->now;
		if (due < t)
			t = due;
	}
	if (a->watch_want && !a->watch_on && a->watch_at - a->now < t)
		t = a->watch_at - a->now;
	if (t < 0)
		t = 0;
	if (t < *timeout)
		*timeout = t;
}

int agones_poll(struct agones *a, double wait)
{
	fd_set r, w, e;
	int maxfd = -1, rc;
	struct timeval tv;

	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_ZERO(&e);
	agones_fdset(a, &r, &w, &e, &maxfd, &wait);
	if (wait < 0)
		wait = 0;
	tv.tv_sec = (time_t)wait;
	tv.tv_usec = (suseconds_t)((wait - (double)tv.tv_sec) * 1e6);
	rc = select(maxfd + 1, &r, &w, &e, &tv);
	agones_run(a, qwd_clock_s(CLOCK_MONOTONIC));
	return rc < 0 ? -1 : 0;
}

int agones_pending(const struct agones *a)
{
	return busy_count(a) + a->qlen;
}

const struct agones_stats *agones_stats(const struct agones *a)
{
	return &a->st;
}

/* ---- the calls ---------------------------------------------------------- */

int agones_ready(struct agones *a)
{
	return push(a, AGONES_READY, "POST", "/ready", "{}", NULL);
}

int agones_allocate(struct agones *a)
{
	return push(a, AGONES_ALLOCATE, "POST", "/allocate", "{}", NULL);
}

int agones_shutdown(struct agones *a)
{
	return push(a, AGONES_SHUTDOWN, "POST", "/shutdown", "{}", NULL);
}

int agones_health(struct agones *a)
{
	return push(a, AGONES_HEALTH, "POST", "/health", "{}", NULL);
}

/* a JSON object of string members k1:v1[, k2:v2] into buf */
static int body2(char *buf, size_t size, const char *k1, const char *v1,
		 const char *k2, const char *v2)
{
	struct json_out j;
	json_init(&j, NULL, buf, size);
	json_begin(&j, NULL, '{');
	json_str(&j, k1, v1);
	if (k2)
		json_str(&j, k2, v2);
	json_end(&j);
	return json_finish(&j, NULL);
}

static int int64_body(struct agones *a, enum agones_call call,
		      const char *method, const char *path,
		      const char *field, int64_t n, const char *key)
{
	char num[24], body[64];
	snprintf(num, sizeof(num), "%lld", (long long)n);	/* as a string */
	body2(body, sizeof(body), field, num, NULL, NULL);
	return push(a, call, method, path, body, key);
}

int agones_reserve(struct agones *a, int64_t seconds)
{
	return int64_body(a, AGONES_RESERVE, "POST", "/reserve", "seconds",
			  seconds, NULL);
}

static int set_meta(struct agones *a, enum agones_call call,
		    const char *path, const char *key, const char *value)
{
	char body[AGONES_REQ_BODY_MAX];
	if (strlen(key) >= AGONES_KEY_MAX ||
	    body2(body, sizeof(body), "key", key, "value", value) < 0) {
		failure(a, AGONES_FAIL_BODY, call, "key or value too long");
		return -1;
	}
	return push(a, call, "PUT", path, body, key);
}

int agones_set_label(struct agones *a, const char *key, const char *value)
{
	return set_meta(a, AGONES_SET_LABEL, "/metadata/label", key, value);
}

int agones_set_annotation(struct agones *a, const char *key,
			  const char *value)
{
	return set_meta(a, AGONES_SET_ANNOTATION, "/metadata/annotation", key,
			value);
}

int agones_gameserver(struct agones *a)
{
	return push(a, AGONES_GAMESERVER, "GET", "/gameserver", "", NULL);
}

static int player_call(struct agones *a, enum agones_call call,
		       const char *path, const char *id)
{
	char body[AGONES_REQ_BODY_MAX];
	if (strlen(id) >= AGONES_ID_MAX ||
	    body2(body, sizeof(body), "playerID", id, NULL, NULL) < 0) {
		failure(a, AGONES_FAIL_BODY, call, "player id too long");
		return -1;
	}
	return push(a, call, "POST", path, body, NULL);
}

int agones_player_connect(struct agones *a, const char *id)
{
	return player_call(a, AGONES_PLAYER_CONNECT, "/alpha/player/connect",
			   id);
}

int agones_player_disconnect(struct agones *a, const char *id)
{
	return player_call(a, AGONES_PLAYER_DISCONNECT,
			   "/alpha/player/disconnect", id);
}

int agones_set_capacity(struct agones *a, int64_t count)
{
	return int64_body(a, AGONES_SET_CAPACITY, "PUT",
			  "/alpha/player/capacity", "count", count,
			  "capacity");
}

int agones_get_capacity(struct agones *a)
{
	return push(a, AGONES_GET_CAPACITY, "GET", "/alpha/player/capacity",
		    "", NULL);
}

int agones_player_count(struct agones *a)
{
	return push(a, AGONES_PLAYER_COUNT, "GET", "/alpha/player/count", "",
		    NULL);
}

int agones_player_connected(struct agones *a, const char *id)
{
	char path[AGONES_PATH_MAX];
	/* ids are the server's userids (digits); anything else is refused
	 * rather than escaped into the path */
	for (const char *p = id; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z') || *p == '-' || *p == '_')) {
			failure(a, AGONES_FAIL_BODY, AGONES_PLAYER_CONNECTED,
				"player id not [A-Za-z0-9_-]");
			return -1;
		}
	if (!*id || strlen(id) >= AGONES_ID_MAX)
		return -1;
	snprintf(path, sizeof(path), "/alpha/player/connected/%s", id);
	return push(a, AGONES_PLAYER_CONNECTED, "GET", path, "", NULL);
}

int agones_players(struct agones *a)
{
	return push(a, AGONES_PLAYERS, "GET", "/alpha/player/connected", "",
		    NULL);
}

void agones_watch(struct agones *a)
{
	a->watch_want = true;
}
