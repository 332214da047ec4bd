/*
 * test_agones.c -- the Agones SDK client against the tests' own sidecar
 * stand-in (tests/agones/sdkstub.py), and its readers on their own.
 *
 * Design note
 *   Each test starts the stand-in as a child on a loopback port (its own:
 *   the stand-in binds port 0 and prints it, or a port the kernel just
 *   handed out when the sidecar is to start late), drives the client with
 *   its own select() loop as the server would, and asks the stand-in
 *   what it was called with (GET /__calls, by a blocking libcurl request
 *   of the test's own).  The last two play qwd's own users of the client:
 *   the conformance mode (agones_conformance) and the server's feature
 *   (src/server/agones.c) in a server run in this process, frame by
 *   frame.  Every wait is bounded by a deadline and ends on
 *   a condition, never on a time alone.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "harness.h"
#include "qwd/agones.h"
#include "qwd/common.h"
#include "qwd/server.h"

#ifndef QWD_SRCDIR
#define QWD_SRCDIR "."
#endif

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the stand-in ------------------------------------------------------- */

struct stub {
	pid_t pid;
	int port;
};

static int kernel_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	close(fd);
	return ntohs(sa.sin_port);
}

/* start the stand-in on port (0: its pick) and wait for its port line */
static void stub_start(struct stub *s, int port)
{
	int p[2];
	char arg[16], line[32] = "";
	assert_int_equal(pipe(p), 0);
	snprintf(arg, sizeof(arg), "%d", port);
	s->pid = fork();
	assert_true(s->pid >= 0);
	if (s->pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execlp("python3", "python3", QWD_SRCDIR "/tests/agones/sdkstub.py",
		       "--port", arg, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	/* the port line, within 10 s */
	fd_set r;
	struct timeval tv = {10, 0};
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	assert_int_equal(select(p[0] + 1, &r, NULL, NULL, &tv), 1);
	ssize_t n = read(p[0], line, sizeof(line) - 1);
	close(p[0]);
	assert_true(n > 0);
	s->port = atoi(line);
	assert_true(s->port > 0);
}

static void stub_stop(struct stub *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
		s->pid = 0;
	}
}

static size_t into_buf(char *data, size_t size, size_t n, void *arg)
{
	char *buf = arg;
	size_t have = strlen(buf), len = size * n;
	if (have + len >= 65536)
		return 0;
	memcpy(buf + have, data, len);
	buf[have + len] = '\0';
	return len;
}

/* the test's own blocking request of the stand-in: its body, or NULL */
static const char *stub_req(const struct stub *s, const char *path,
			    const char *post)
{
	static char buf[65536];
	char url[128];
	buf[0] = '\0';
	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", s->port, path);
	CURL *e = curl_easy_init();
	assert_non_null(e);
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(e, CURLOPT_TIMEOUT, 10L);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, into_buf);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, buf);
	if (post)
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, post);
	assert_int_equal(curl_easy_perform(e), CURLE_OK);
	curl_easy_cleanup(e);
	return buf;
}

/* the names the stand-in recorded with status 200 (its /__calls text:
 * "name status" lines); *bad: the others */
static int stub_calls(const struct stub *s, char names[][32], int max,
		      int *bad)
{
	const char *p = stub_req(s, "/__calls", NULL);
	char name[32];
	int code, used, n = 0;
	*bad = 0;
	while (sscanf(p, "%31s %d\n%n", name, &code, &used) == 2) {
		p += used;
		if (code != 200) {
			print_message("stub: %s answered %d\n", name, code);
			(*bad)++;
		} else if (n < max) {
			snprintf(names[n++], 32, "%s", name);
		}
	}
	return n;
}

static int count_name(char names[][32], int n, const char *name)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += strcmp(names[i], name) == 0;
	return k;
}

/* ---- the client's side -------------------------------------------------- */

struct seen {
	struct agones_answer last[AGONES_CALLS];
	int done[AGONES_CALLS], failed[AGONES_CALLS];
	char uid[AGONES_ID_MAX], ts[32];
	int watch_changes;
	struct agones_gs watch_last;
	bool saw_allocated, saw_shutdown;
	int log_lines;
};

static void on_done(void *ctx, const struct agones_answer *a)
{
	struct seen *s = ctx;
	s->last[a->call] = *a;
	s->last[a->call].gs = NULL;
	s->last[a->call].error = NULL;
	if (!a->ok) {
		s->failed[a->call]++;
		return;
	}
	s->done[a->call]++;
	if (a->call == AGONES_GAMESERVER) {
		snprintf(s->uid, sizeof(s->uid), "%s", a->gs->uid);
		snprintf(s->ts, sizeof(s->ts), "%s", a->gs->creation_timestamp);
	}
}

static void on_watch(void *ctx, const struct agones_gs *gs)
{
	struct seen *s = ctx;
	s->watch_changes++;
	s->watch_last = *gs;
	s->saw_allocated |= strcmp(gs->state, "Allocated") == 0;
	s->saw_shutdown |= strcmp(gs->state, "Shutdown") == 0;
}

static void count_log(void *ctx, int level, const char *line)
{
	struct seen *s = ctx;
	(void)level;
	(void)line;
	s->log_lines++;
}

/* a log that counts its lines */
struct qwd_log_shim {
	struct qwd_log log;
};

static struct agones *open_client(int port, struct seen *s,
				  struct qwd_log_shim *shim)
{
	char err[128];
	shim->log.sink = count_log;
	shim->log.ctx = s;
	shim->log.min_level = 0;
	struct agones_callbacks cb = {
		.ctx = s, .done = on_done, .watch = on_watch, .log = &shim->log};
	struct agones *a = agones_open(port, &cb, err, sizeof(err));
	if (!a)
		print_message("%s\n", err);
	assert_non_null(a);
	return a;
}

/* a test's state: the stand-in, what the client reported, its log */
struct fix {
	struct stub st;
	struct seen s;
	struct qwd_log_shim shim;
};

/* the stand-in on a port of its own, and a client of it */
static struct agones *stub_and_client(struct fix *f)
{
	stub_start(&f->st, 0);
	return open_client(f->st.port, &f->s, &f->shim);
}

/* the frame loop's part: select on the client's descriptors, run it,
 * until done(ctx) or the deadline */
static bool pump(struct agones *a, bool (*done)(struct agones *, void *),
		 void *ctx, double seconds)
{
	double end = now_s() + seconds;
	while (now_s() < end) {
		agones_run(a, now_s());
		if (done(a, ctx))
			return true;
		fd_set r, w, e;
		FD_ZERO(&r);
		FD_ZERO(&w);
		FD_ZERO(&e);
		int maxfd = -1;
		double t = 0.05;
		agones_fdset(a, &r, &w, &e, &maxfd, &t);
		struct timeval tv = {0, (long)(t * 1e6)};
		select(maxfd + 1, &r, &w, &e, &tv);
	}
	return done(a, ctx);
}

static bool idle(struct agones *a, void *ctx)
{
	(void)ctx;
	return agones_pending(a) == 0;
}

static bool gs_answered(struct agones *a, void *ctx)
{
	struct seen *s = ctx;
	return agones_pending(a) == 0 && s->done[AGONES_GAMESERVER] > 0;
}

static bool idle_and_shutdown_seen(struct agones *a, void *ctx)
{
	struct seen *s = ctx;
	return agones_pending(a) == 0 && s->saw_shutdown;
}

/* ---- tests -------------------------------------------------------------- */

static const char *const conformance[] = {
	"ready", "allocate", "setlabel", "setannotation", "gameserver",
	"health", "shutdown", "watch", "reserve", "setplayercapacity",
	"getplayercapacity", "playerconnect", "isplayerconnected",
	"getconnectedplayers", "playerdisconnect", "getplayercount"};

/* the SDK conformance sequence, as the REST test client plays it */
static void test_conformance_sequence(void **state)
{
	struct fix *f = *state;
	struct agones *a = stub_and_client(f);

	agones_watch(a);
	assert_int_equal(agones_ready(a), 0);
	assert_int_equal(agones_health(a), 0);
	assert_int_equal(agones_reserve(a, 5), 0);
	assert_int_equal(agones_allocate(a), 0);
	assert_int_equal(agones_gameserver(a), 0);
	assert_true(pump(a, gs_answered, &f->s, 10));
	assert_string_equal(f->s.ts, "1700000000");
	assert_string_equal(f->s.uid, "0b1d3c2a-7a1e-4c5e-9f00-5eed5eed5eed");

	assert_int_equal(agones_set_label(a, "creationTimestamp", f->s.ts), 0);
	assert_int_equal(agones_set_annotation(a, "UID", f->s.uid), 0);
	assert_int_equal(agones_set_capacity(a, 10), 0);
	assert_int_equal(agones_get_capacity(a), 0);
	assert_int_equal(agones_player_connect(a, "1234"), 0);
	assert_int_equal(agones_player_connected(a, "1234"), 0);
	assert_int_equal(agones_players(a), 0);
	assert_true(pump(a, idle, NULL, 10));
	assert_int_equal(f->s.last[AGONES_GET_CAPACITY].count, 10);
	assert_true(f->s.last[AGONES_PLAYER_CONNECT].flag);
	assert_true(f->s.last[AGONES_PLAYER_CONNECTED].flag);
	assert_int_equal(f->s.last[AGONES_PLAYERS].num_ids, 1);

	assert_int_equal(agones_player_disconnect(a, "1234"), 0);
	assert_int_equal(agones_player_count(a), 0);
	assert_int_equal(agones_shutdown(a), 0);
	assert_true(pump(a, idle_and_shutdown_seen, &f->s, 10));
	assert_true(f->s.last[AGONES_PLAYER_DISCONNECT].flag);
	assert_int_equal(f->s.last[AGONES_PLAYER_COUNT].count, 0);

	/* every call answered, nothing failed */
	const struct agones_stats *stats = agones_stats(a);
	for (int k = 0; k < AGONES_FAILURES; k++)
		if (stats->failed[k] != 0)
			fail_msg("failure kind %d counted %llu", k,
				 (unsigned long long)stats->failed[k]);
	for (int c = 0; c < AGONES_CALLS; c++)
		if (c != AGONES_WATCH)
			assert_int_equal(f->s.failed[c], 0);
	/* the watch saw the label set with the proto's prefix */
	assert_true(f->s.saw_allocated);
	assert_string_equal(agones_gs_label(&f->s.watch_last,
					    "agones.dev/sdk-creationTimestamp"),
			    "1700000000");
	assert_string_equal(agones_gs_annotation(&f->s.watch_last,
						 "agones.dev/sdk-UID"),
			    f->s.uid);

	/* the stand-in's record: the conformance set, each call accepted */
	char names[64][32];
	int bad, n = stub_calls(&f->st, names, 64, &bad);
	assert_int_equal(bad, 0);
	for (size_t i = 0; i < sizeof(conformance) / sizeof(*conformance); i++)
		if (count_name(names, n, conformance[i]) == 0)
			fail_msg("the stand-in never got %s", conformance[i]);
	assert_int_equal(count_name(names, n, "ready"), 1);
	assert_int_equal(f->s.log_lines, 0);
	agones_close(a);
	stub_stop(&f->st);
}

static bool allocated(struct agones *a, void *ctx)
{
	(void)a;
	return ((struct seen *)ctx)->saw_allocated;
}

static bool watching(struct agones *a, void *ctx)
{
	(void)a;
	return ((struct seen *)ctx)->watch_changes > 0;
}

/* an allocation's labels and annotations reach the watch callback */
static void test_watch_allocation(void **state)
{
	struct fix *f = *state;
	struct agones *a = stub_and_client(f);
	agones_watch(a);
	agones_ready(a);
	assert_true(pump(a, watching, &f->s, 10));
	assert_false(f->s.saw_allocated);
	stub_req(&f->st, "/__allocate",
			     "{\"labels\":{\"qwd.map\":\"dm4\",\"qwd.mode\":"
			     "\"duel\"},\"annotations\":{\"qwd.password\":"
			     "\"s3cret\",\"qwd.players\":\"2\"}}");
	assert_true(pump(a, allocated, &f->s, 10));
	assert_string_equal(f->s.watch_last.state, "Allocated");
	assert_string_equal(agones_gs_label(&f->s.watch_last, "qwd.map"), "dm4");
	assert_string_equal(agones_gs_label(&f->s.watch_last, "qwd.mode"), "duel");
	assert_string_equal(agones_gs_annotation(&f->s.watch_last,
						 "qwd.password"),
			    "s3cret");
	assert_string_equal(agones_gs_annotation(&f->s.watch_last, "qwd.players"),
			    "2");
	assert_int_equal(agones_stats(a)->failed[AGONES_FAIL_WATCH_ENDED], 0);
	agones_close(a);
	stub_stop(&f->st);
}

static bool ready_answered(struct agones *a, void *ctx)
{
	struct seen *s = ctx;
	return agones_pending(a) == 0 && s->done[AGONES_READY] == 1 &&
	       s->watch_changes > 0;
}

static bool refused_twice(struct agones *a, void *ctx)
{
	(void)ctx;
	return agones_stats(a)->failed[AGONES_FAIL_REFUSED] >= 3;
}

/* the sidecar starts after the server: retried, logged once, counted */
static void test_late_sidecar(void **state)
{
	struct fix *f = *state;
	int port = kernel_port();
	struct agones *a = open_client(port, &f->s, &f->shim);
	agones_watch(a);
	agones_ready(a);
	agones_health(a);
	assert_true(pump(a, refused_twice, &f->s, 10));
	const struct agones_stats *stats = agones_stats(a);
	assert_true(stats->sent[AGONES_READY] >= 2);
	assert_int_equal(stats->answered[AGONES_READY], 0);
	assert_int_equal(f->s.done[AGONES_READY] + f->s.failed[AGONES_READY], 0);
	assert_int_equal(f->s.log_lines, 1);	/* refused: logged once */

	stub_start(&f->st, port);
	assert_int_equal(f->st.port, port);
	assert_true(pump(a, ready_answered, &f->s, 20));
	assert_int_equal(f->s.failed[AGONES_READY], 0);
	assert_int_equal(f->s.done[AGONES_HEALTH], 1);
	char names[64][32];
	int bad, n = stub_calls(&f->st, names, 64, &bad);
	assert_int_equal(bad, 0);
	assert_int_equal(count_name(names, n, "ready"), 1);
	assert_int_equal(count_name(names, n, "health"), 1);
	assert_true(count_name(names, n, "watch") >= 1);
	assert_int_equal(f->s.log_lines, 1);
	agones_close(a);
	stub_stop(&f->st);
}

/* answers the contract refuses: counted each time, logged once */
static void test_failures_counted(void **state)
{
	struct fix *f = *state;
	struct agones *a = stub_and_client(f);
	agones_reserve(a, -1);	/* the stand-in: 400 */
	assert_true(pump(a, idle, NULL, 10));
	agones_player_connect(a, "7");	/* capacity 0: 400 */
	assert_true(pump(a, idle, NULL, 10));
	assert_int_equal(f->s.failed[AGONES_RESERVE], 1);
	assert_int_equal(f->s.last[AGONES_RESERVE].status, 400);
	assert_int_equal(f->s.failed[AGONES_PLAYER_CONNECT], 1);
	assert_int_equal(agones_stats(a)->failed[AGONES_FAIL_STATUS], 2);
	assert_int_equal(f->s.log_lines, 1);
	agones_close(a);
	stub_stop(&f->st);
}

/* the queue: bounded, repeated sets merged (no transfer runs) */
static void test_queue_bounds(void **state)
{
	(void)state;
	struct seen s = {0};
	struct qwd_log_shim shim;
	struct agones *a = open_client(kernel_port(), &s, &shim);
	for (int i = 0; i < 10; i++)
		assert_int_equal(agones_health(a), 0);
	assert_int_equal(agones_set_label(a, "map", "dm2"), 0);
	assert_int_equal(agones_set_label(a, "map", "dm4"), 0);
	assert_int_equal(agones_set_label(a, "players", "1"), 0);
	assert_int_equal(agones_set_capacity(a, 8), 0);
	assert_int_equal(agones_set_capacity(a, 16), 0);
	assert_int_equal(agones_pending(a), 4);
	assert_int_equal(agones_stats(a)->coalesced, 11);
	char id[16];
	int refused = 0;
	for (int i = 0; i < AGONES_QUEUE + 4; i++) {
		snprintf(id, sizeof(id), "%d", i);
		refused += agones_player_connect(a, id) < 0;
	}
	assert_int_equal(agones_pending(a), AGONES_QUEUE);
	assert_int_equal(refused, 8);
	assert_int_equal(agones_stats(a)->failed[AGONES_FAIL_QUEUE_FULL], 8);
	assert_int_equal(agones_player_connected(a, "a/b"), -1);
	agones_close(a);
}

/* the readers on their own */
static void test_parse(void **state)
{
	(void)state;
	static struct agones_gs gs;
	struct agones_answer ans = {0};
	char err[128];
#define P(s) agones_parse_gameserver(s, strlen(s), &gs, err, sizeof(err))
	assert_int_equal(P(""), -1);
	assert_int_equal(P("[]"), -1);
	assert_int_equal(P("{}"), -1);
	assert_int_equal(P("{\"result\":3}"), -1);
	assert_int_equal(P("{\"status\":{\"state\":7}}"), -1);
	assert_string_equal(err, "status.state");
	assert_int_equal(P("{\"object_meta\":{\"creation_timestamp\":\"x\"}}"),
			 -1);
	assert_int_equal(P("{\"object_meta\":{\"creation_timestamp\":12}}"), 0);
	assert_string_equal(gs.creation_timestamp, "12");
	/* a value past AGONES_VALUE_MAX and a non-string: left out */
	char big[600];
	char longv[AGONES_VALUE_MAX + 8];
	memset(longv, 'v', sizeof(longv) - 1);
	longv[sizeof(longv) - 1] = '\0';
	snprintf(big, sizeof(big),
		 "{\"result\":{\"object_meta\":{\"labels\":{\"a\":\"1\","
		 "\"b\":\"%s\",\"c\":3}},\"status\":{\"state\":\"Ready\"}}}",
		 longv);
	assert_int_equal(P(big), 0);
	assert_int_equal(gs.num_labels, 1);
	assert_int_equal(gs.skipped, 2);
	assert_string_equal(gs.state, "Ready");
	assert_null(agones_gs_label(&gs, "b"));
#undef P
#define A(c, s) agones_parse_answer(c, s, strlen(s), &ans, &gs, err, sizeof(err))
	assert_int_equal(A(AGONES_GET_CAPACITY, "{\"count\":\"10\"}"), 0);
	assert_int_equal(ans.count, 10);
	assert_int_equal(A(AGONES_GET_CAPACITY, "{\"count\":\"ten\"}"), -1);
	assert_int_equal(A(AGONES_PLAYER_CONNECT, "{}"), 0);
	assert_false(ans.flag);	/* proto3 leaves false out */
	assert_int_equal(A(AGONES_PLAYER_CONNECT, "{\"bool\":\"yes\"}"), -1);
	assert_int_equal(A(AGONES_PLAYERS, "{\"list\":[\"1\",\"2\"]}"), 0);
	assert_int_equal(ans.num_ids, 2);
	assert_int_equal(A(AGONES_READY, "{}"), 0);
	assert_int_equal(A(AGONES_READY, "null"), -1);
#undef A
	assert_string_equal(agones_call_name(AGONES_SET_CAPACITY),
			    "setplayercapacity");
}

/* qwd -agones-conformance's sequence: every call answered, each name of
 * the SDK server's conformance list recorded once or more */
static void test_conformance_mode(void **state)
{
	struct fix *f = *state;
	struct qwd_log quiet = {.min_level = QWD_LOG_WARN};
	char why[256] = "", names[64][32];
	int bad, n;

	stub_start(&f->st, 0);
	if (agones_conformance(f->st.port, &quiet, why, sizeof(why)) != 0)
		fail_msg("conformance: %s", why);
	n = stub_calls(&f->st, names, 64, &bad);
	assert_int_equal(bad, 0);
	for (size_t i = 0; i < sizeof(conformance) / sizeof(*conformance); i++)
		if (count_name(names, n, conformance[i]) == 0)
			fail_msg("the stand-in never got %s", conformance[i]);
	assert_int_equal(count_name(names, n, "shutdown"), 1);
}

/* a console command's output, into buf */
static void command(struct server *sv, const char *line, char *buf,
		    size_t size)
{
	FILE *out = fmemopen(buf, size, "w");

	assert_non_null(out);
	server_command(sv, line, out);
	fclose(out);
}

/* frames until cond, within secs */
static bool frames_until(struct server *sv, bool (*cond)(struct fix *),
			 struct fix *f, double secs)
{
	double end = now_s() + secs;

	while (now_s() < end) {
		server_frame(sv, 0.02);
		if (cond(f))
			return true;
	}
	return false;
}

static int calls_named(struct fix *f, const char *name)
{
	char names[256][32];
	int bad, n = stub_calls(&f->st, names, 256, &bad);

	assert_int_equal(bad, 0);
	return count_name(names, n, name);
}

static bool ready_and_pinged(struct fix *f)
{
	return calls_named(f, "ready") == 1 && calls_named(f, "health") >= 1 &&
	       calls_named(f, "setplayercapacity") == 1 &&
	       calls_named(f, "setlabel") >= 2;	/* map, players */
}

static struct server *feature_sv;

static bool on_arena(struct fix *f)
{
	char buf[256];

	(void)f;
	command(feature_sv, "map", buf, sizeof(buf));
	return strstr(buf, "map: arena") != NULL;
}

/* the server's feature: Ready after the level, pings, labels, capacity;
 * an allocation's qwd.map changes the level; destroy sends Shutdown */
static void test_server_feature(void **state)
{
	struct fix *f = *state;
	struct server_options opt = {.port = 0, .maxclients = 8,
				     .quiet = true};
	char err[256], buf[2048];
	struct server *sv;

	stub_start(&f->st, 0);
	opt.agones_port = f->st.port;
	sv = server_create(&opt);
	assert_non_null(sv);
	feature_sv = sv;
	assert_int_equal(server_map(sv, "small", err, sizeof(err)), 0);
	server_begin(sv, -1);
	assert_true(frames_until(sv, ready_and_pinged, f, 10));
	stub_req(&f->st, "/__allocate", "{\"annotations\":{\"qwd.map\":"
		 "\"arena\",\"qwd.players\":\"2\"},\"labels\":{\"qwd.mode\""
		 ":\"duel\"}}");
	assert_true(frames_until(sv, on_arena, f, 10));
	command(sv, "agones", buf, sizeof(buf));
	if (!strstr(buf, "GameServer Allocated") ||
	    !strstr(buf, "mode duel, expected players 2; allocations 1, "
			 "unusable values 0"))
		fail_msg("agones said: %s", buf);
	server_destroy(sv);
	feature_sv = NULL;
	assert_int_equal(calls_named(f, "shutdown"), 1);
	assert_int_equal(calls_named(f, "ready"), 1);
}

/* the fixture: the stand-in stopped even when a test fails */
static int fix_setup(void **state)
{
	static struct fix f;
	memset(&f, 0, sizeof(f));
	*state = &f;
	return 0;
}

static int fix_teardown(void **state)
{
	struct fix *f = *state;
	stub_stop(&f->st);
	return 0;
}

static const struct CMUnitTest agones_tests[] = {
	cmocka_unit_test(test_parse),
	cmocka_unit_test(test_queue_bounds),
	cmocka_unit_test_setup_teardown(test_conformance_sequence, fix_setup, fix_teardown),
	cmocka_unit_test_setup_teardown(test_watch_allocation, fix_setup, fix_teardown),
	cmocka_unit_test_setup_teardown(test_late_sidecar, fix_setup, fix_teardown),
	cmocka_unit_test_setup_teardown(test_failures_counted, fix_setup, fix_teardown),
	cmocka_unit_test_setup_teardown(test_conformance_mode, fix_setup, fix_teardown),
	cmocka_unit_test_setup_teardown(test_server_feature, fix_setup, fix_teardown),
};
QWD_TEST_GROUP(agones, agones_tests, NULL, NULL);
