/*
 * qwd/agones.h -- the Agones SDK client: the game server's side of the
 * sidecar's REST interface (http://localhost:$AGONES_SDK_HTTP_PORT).
 *
 * Design note
 *   Agones runs an SDK server beside every game server; the game server
 *   tells it Ready, pings Health, sets labels, tracks players and watches
 *   its GameServer for the allocation.  The sidecar speaks HTTP/1.1 with
 *   JSON bodies (proto field names, 64-bit integers as strings; the
 *   watch is one long GET whose chunked body is one {"result":GameServer}
 *   line per change).  HTTP is not ours to write: the requests go through
 *   libcurl's multi interface, whose descriptors join the caller's select()
 *   (agones_fdset) and whose transfers advance in agones_run, so nothing
 *   here ever waits; chunked bodies, keep-alive and partial writes stay
 *   libcurl's.  JSON is read with jansson; what is taken from it (state,
 *   name, uid, labels, annotations, counts) is copied into the fixed
 *   struct agones_gs, every string bounded.
 *
 *   Memory is fixed at agones_open: AGONES_INFLIGHT transfers, each with
 *   its easy handle and body buffer, a queue of AGONES_QUEUE requests
 *   (a label, annotation or capacity set replaces a queued one of the
 *   same key, a queued health ping absorbs the next), the watch's line
 *   buffer.  A full queue refuses the call (counted).  While the sidecar
 *   refuses connections (it may start after the server) the request goes
 *   back to the queue's head and the queue waits, backing off from
 *   AGONES_BACKOFF_MIN to AGONES_BACKOFF_MAX seconds.  Each kind of
 *   failure is logged the first time only and counted every time.
 */
#ifndef QWD_AGONES_H
#define QWD_AGONES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/select.h>

/* common.h is not included: its JSON writer's names (json_null) clash
 * with jansson's, which parse.c includes */
struct qwd_log;

enum {
	AGONES_DEFAULT_PORT = 9358,
	AGONES_INFLIGHT = 4,	/* transfers at once, the watch apart */
	AGONES_QUEUE = 32,	/* requests waiting */
	AGONES_BODY_MAX = 16384,	/* an answer, or one watch line */
	AGONES_REQ_BODY_MAX = 512,
	AGONES_PATH_MAX = 160,
	AGONES_KV_MAX = 16,	/* labels, annotations kept per GameServer */
	AGONES_KEY_MAX = 96,
	AGONES_VALUE_MAX = 128,
	AGONES_ID_MAX = 64	/* a player id, a uid, a name */
};
#define AGONES_BACKOFF_MIN 0.1
#define AGONES_BACKOFF_MAX 5.0
#define AGONES_TIMEOUT_MS 5000L	/* a request's whole time (not the watch) */

enum agones_call {
	AGONES_READY,
	AGONES_ALLOCATE,
	AGONES_SHUTDOWN,
	AGONES_HEALTH,
	AGONES_RESERVE,
	AGONES_SET_LABEL,
	AGONES_SET_ANNOTATION,
	AGONES_GAMESERVER,
	AGONES_WATCH,
	AGONES_PLAYER_CONNECT,
	AGONES_PLAYER_DISCONNECT,
	AGONES_SET_CAPACITY,
	AGONES_GET_CAPACITY,
	AGONES_PLAYER_COUNT,
	AGONES_PLAYER_CONNECTED,	/* is one id connected */
	AGONES_PLAYERS,			/* the connected ids */
	AGONES_CALLS
};

/* the name the SDK server's test mode records a call under ("ready",
 * "setlabel", "playerconnect", ...) */
const char *agones_call_name(enum agones_call call);

struct agones_kv {
	char key[AGONES_KEY_MAX];
	char value[AGONES_VALUE_MAX];
};

/* What qwd reads of a GameServer (sdk.proto's GameServer). */
struct agones_gs {
	char state[32];		/* status.state: "Ready", "Allocated", ... */
	char name[AGONES_ID_MAX];
	char uid[AGONES_ID_MAX];
	char creation_timestamp[32];	/* int64 as the sidecar wrote it */
	int64_t players_count, players_capacity;	/* status.players */
	int num_labels, num_annotations;
	struct agones_kv labels[AGONES_KV_MAX];
	struct agones_kv annotations[AGONES_KV_MAX];
	int skipped;		/* entries left out: too long, too many */
};

/* a label's or an annotation's value, or NULL */
const char *agones_gs_label(const struct agones_gs *gs, const char *key);
const char *agones_gs_annotation(const struct agones_gs *gs, const char *key);

/* A finished call. */
struct agones_answer {
	enum agones_call call;
	bool ok;		/* 2xx and a body that parsed */
	int status;		/* HTTP status, 0 when none came */
	bool flag;		/* {"bool": ...} of the player calls */
	int64_t count;		/* {"count": "N"} */
	int num_ids;		/* {"list": [...]} */
	const struct agones_gs *gs;	/* AGONES_GAMESERVER: the answer */
	const char *error;	/* !ok: what went wrong */
};

struct agones_callbacks {
	void *ctx;
	/* every call's end (NULL: not told) */
	void (*done)(void *ctx, const struct agones_answer *a);
	/* the watch: one change of the GameServer */
	void (*watch)(void *ctx, const struct agones_gs *gs);
	/* where the lines go (NULL: stderr) */
	const struct qwd_log *log;
};

enum agones_failure {
	AGONES_FAIL_REFUSED,	/* no sidecar (yet): retried */
	AGONES_FAIL_TRANSFER,	/* another transport error, a timeout */
	AGONES_FAIL_STATUS,	/* an HTTP status other than 2xx */
	AGONES_FAIL_BODY,	/* an answer that is not what the call gets */
	AGONES_FAIL_TOO_LONG,	/* an answer or a watch line over the buffer */
	AGONES_FAIL_QUEUE_FULL,	/* a call refused: the queue was full */
	AGONES_FAIL_WATCH_ENDED,	/* the watch stream ended: reopened */
	AGONES_FAILURES
};

/* a failure kind's short name ("refused", "queue_full", ...) */
const char *agones_failure_kind(enum agones_failure f);

struct agones_stats {
	uint64_t sent[AGONES_CALLS];	/* transfers started */
	uint64_t answered[AGONES_CALLS];	/* ended ok */
	uint64_t failed[AGONES_FAILURES];
	uint64_t coalesced;	/* calls merged into a queued one */
	uint64_t watch_changes;
};

struct agones;

/* Open the client of the sidecar at http://localhost:port (no transfer
 * starts until agones_run).  NULL with the reason in err. */
struct agones *agones_open(int port, const struct agones_callbacks *cb,
			   char *err, size_t errsize);
void agones_close(struct agones *a);

/* The port from AGONES_SDK_HTTP_PORT: 0 when unset (Agones off), -1 when
 * set but not a port. */
int agones_env_port(void);

/* The caller's select(): libcurl's descriptors into r, w, e (*maxfd
 * raised) and *timeout (seconds) lowered to when agones_run is due. */
void agones_fdset(struct agones *a, fd_set *r, fd_set *w, fd_set *e,
		  int *maxfd, double *timeout);
/* Start what is queued, advance the transfers, deliver what ended.  now:
 * the caller's clock in seconds (monotonic). */
void agones_run(struct agones *a, double now);
/* For a caller with no select() of its own (the conformance run, the
 * server's last moment at shutdown): wait up to `wait` seconds on the
 * client's descriptors alone, then agones_run with the monotonic clock
 * (the server's own clock: qwd_clock_s(CLOCK_MONOTONIC)).  -1 when
 * select failed (a signal), else 0. */
int agones_poll(struct agones *a, double wait);

/* The calls: queued; 0, or -1 when the queue is full (counted). */
int agones_ready(struct agones *a);
int agones_health(struct agones *a);
int agones_shutdown(struct agones *a);
int agones_allocate(struct agones *a);
int agones_reserve(struct agones *a, int64_t seconds);
int agones_set_label(struct agones *a, const char *key, const char *value);
int agones_set_annotation(struct agones *a, const char *key,
			  const char *value);
int agones_gameserver(struct agones *a);
int agones_player_connect(struct agones *a, const char *id);
int agones_player_disconnect(struct agones *a, const char *id);
int agones_set_capacity(struct agones *a, int64_t count);
int agones_get_capacity(struct agones *a);
int agones_player_count(struct agones *a);
int agones_player_connected(struct agones *a, const char *id);
int agones_players(struct agones *a);
/* Open the watch stream (kept open, reopened after backoff when it ends
 * or fails). */
void agones_watch(struct agones *a);

/* transfers in flight and requests queued (0 and 0: everything answered) */
int agones_pending(const struct agones *a);
const struct agones_stats *agones_stats(const struct agones *a);

/* The SDK conformance sequence (conformance.c), played once against the
 * sidecar at port as Agones' REST test client plays it: ready, health,
 * reserve, allocate, gameserver, setlabel, setannotation, the player
 * calls, the watch, shutdown.  0 when every call answered as expected,
 * else -1 with the first failing call and why in `why`. */
int agones_conformance(int port, const struct qwd_log *log, char *why,
		       size_t size);

/* The readers of the sidecar's bytes (fuzzed: tests/fuzz/fuzz_agones.c).
 * A GameServer, bare or as a watch line's {"result": ...}: 0, or -1 with
 * the reason in err.  An answer to call (its flag, count, ids): the
 * same. */
int agones_parse_gameserver(const char *text, size_t len,
			    struct agones_gs *gs, char *err, size_t errsize);
int agones_parse_answer(enum agones_call call, const char *text, size_t len,
			struct agones_answer *a, struct agones_gs *gs,
			char *err, size_t errsize);

#endif
