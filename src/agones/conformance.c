/*
 * conformance.c -- the Agones SDK conformance sequence played once
 * against a sidecar: `qwd -agones-conformance [PORT]`.
 *
 * Design note
 *   The SDK server's test mode (sdk-server --test=ready,allocate,...)
 *   records which calls a client made and fails when one of its list is
 *   missing; Agones' own REST test client plays them in one order, with
 *   fixed values (a reserve of 5 s, the label creationTimestamp and the
 *   annotation UID taken from the GameServer, a capacity of 10, the
 *   player "1234").  This plays the same sequence with the same values
 *   over our client (client.c), one call at a time: each is queued, the
 *   client is driven through select() until that call's answer arrives
 *   (or STEP_SECONDS pass: a sidecar not up yet is retried by the client
 *   meanwhile), and the answer is checked (a 2xx and the body the call
 *   gets; capacity read back 10, the player connected, listed, then
 *   gone, the count 0).  The watch is opened first and must have
 *   delivered the GameServer once before shutdown.  The first call that
 *   does not answer as expected ends the run, named in the result.
 *   Nothing here is the server's: it runs before any level or socket.
 */
#include "qwd/agones.h"
#include "qwd/common.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <bsd/string.h>

enum { STEP_SECONDS = 10 };

struct run {
	struct agones *a;
	enum agones_call want;
	bool got;
	struct agones_answer ans;
	struct agones_gs gs;	/* the GAMESERVER answer's copy */
	int watch_lines;
};

static void on_done(void *ctx, const struct agones_answer *a)
{
	struct run *r = ctx;

	if (a->call != r->want || r->got)
		return;
	r->got = true;
	r->ans = *a;
	r->ans.gs = NULL;
	r->ans.error = NULL;
	if (a->gs)
		r->gs = *a->gs;
}

static void on_watch(void *ctx, const struct agones_gs *gs)
{
	struct run *r = ctx;

	(void)gs;
	r->watch_lines++;
}

/* drive the client until done() is true or `secs` pass */
static bool pump(struct run *r, bool (*done)(const struct run *), double secs)
{
	double end = qwd_clock_s(CLOCK_MONOTONIC) + secs;

	while (!done(r)) {
		double now = qwd_clock_s(CLOCK_MONOTONIC);

		if (now >= end)
			return false;
		agones_poll(r->a, end - now < 0.1 ? end - now : 0.1);
	}
	return true;
}

static bool answered(const struct run *r)
{
	return r->got;
}

static bool watched(const struct run *r)
{
	return r->watch_lines > 0;
}

/* one call: queued by `queue`, its answer awaited and checked */
static bool step(struct run *r, enum agones_call call, int queued,
		 char *why, size_t size)
{
	r->want = call;
	r->got = false;
	if (queued != 0) {
		snprintf(why, size, "%s: not queued", agones_call_name(call));
		return false;
	}
	if (!pump(r, answered, STEP_SECONDS)) {
		snprintf(why, size, "%s: no answer in %d s",
			 agones_call_name(call), STEP_SECONDS);
		return false;
	}
	if (!r->ans.ok) {
		snprintf(why, size, "%s: failed (HTTP status %d)",
			 agones_call_name(call), r->ans.status);
		return false;
	}
	return true;
}

static bool expect(bool ok, enum agones_call call, const char *what,
		   char *why, size_t size)
{
	if (!ok)
		snprintf(why, size, "%s: %s", agones_call_name(call), what);
	return ok;
}

static bool sequence(struct run *r, const struct qwd_log *log, char *why,
		     size_t size)
{
	struct agones *a = r->a;
	char ts[sizeof(r->gs.creation_timestamp)], uid[sizeof(r->gs.uid)];

	agones_watch(a);
	if (!step(r, AGONES_READY, agones_ready(a), why, size) ||
	    !step(r, AGONES_HEALTH, agones_health(a), why, size) ||
	    !step(r, AGONES_RESERVE, agones_reserve(a, 5), why, size) ||
	    !step(r, AGONES_ALLOCATE, agones_allocate(a), why, size) ||
	    !step(r, AGONES_GAMESERVER, agones_gameserver(a), why, size))
		return false;
	strlcpy(ts, r->gs.creation_timestamp, sizeof(ts));
	strlcpy(uid, r->gs.uid, sizeof(uid));
	qwd_logf(log, QWD_LOG_INFO, "agones conformance: gameserver %s, uid "
		 "%s, state %s, created %s", r->gs.name, uid, r->gs.state, ts);
	if (!step(r, AGONES_SET_LABEL,
		  agones_set_label(a, "creationTimestamp", ts), why, size) ||
	    !step(r, AGONES_SET_ANNOTATION, agones_set_annotation(a, "UID", uid),
		  why, size) ||
	    !step(r, AGONES_SET_CAPACITY, agones_set_capacity(a, 10), why,
		  size) ||
	    !step(r, AGONES_GET_CAPACITY, agones_get_capacity(a), why, size) ||
	    !expect(r->ans.count == 10, AGONES_GET_CAPACITY,
		    "capacity read back is not 10", why, size) ||
	    !step(r, AGONES_PLAYER_CONNECT, agones_player_connect(a, "1234"),
		  why, size) ||
	    !expect(r->ans.flag, AGONES_PLAYER_CONNECT,
		    "answered false for a new player", why, size) ||
	    !step(r, AGONES_PLAYER_CONNECTED,
		  agones_player_connected(a, "1234"), why, size) ||
	    !expect(r->ans.flag, AGONES_PLAYER_CONNECTED,
		    "the player connected is not", why, size) ||
	    !step(r, AGONES_PLAYERS, agones_players(a), why, size) ||
	    !expect(r->ans.num_ids == 1, AGONES_PLAYERS,
		    "the list is not the one player", why, size) ||
	    !step(r, AGONES_PLAYER_DISCONNECT,
		  agones_player_disconnect(a, "1234"), why, size) ||
	    !expect(r->ans.flag, AGONES_PLAYER_DISCONNECT,
		    "answered false for a connected player", why, size) ||
	    !step(r, AGONES_PLAYER_COUNT, agones_player_count(a), why, size) ||
	    !expect(r->ans.count == 0, AGONES_PLAYER_COUNT,
		    "the count after the disconnect is not 0", why, size))
		return false;
	if (!pump(r, watched, STEP_SECONDS)) {
		snprintf(why, size, "watch: no GameServer line in %d s",
			 STEP_SECONDS);
		return false;
	}
	return step(r, AGONES_SHUTDOWN, agones_shutdown(a), why, size);
}

int agones_conformance(int port, const struct qwd_log *log, char *why,
		       size_t size)
{
	struct run r;
	struct agones_callbacks cb = {.ctx = &r, .done = on_done,
				      .watch = on_watch, .log = log};
	bool ok;

	memset(&r, 0, sizeof(r));
	r.a = agones_open(port, &cb, why, size);
	if (!r.a)
		return -1;
	ok = sequence(&r, log, why, size);
	if (ok)
		qwd_logf(log, QWD_LOG_INFO, "agones conformance: every call "
			 "answered as expected (%d watch lines)",
			 r.watch_lines);
	agones_close(r.a);
	return ok ? 0 : -1;
}
