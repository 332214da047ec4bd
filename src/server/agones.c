/*
 * agones.c -- the server's side of the Agones SDK: Ready, Health, labels,
 * player tracking, the allocation's settings, Shutdown (docs/fleet.md).
 *
 * Design note
 *   A feature of the server (hooks.h), on when qwd runs beside an Agones
 *   sidecar: AGONES_SDK_HTTP_PORT set (Agones sets it in the pod) or
 *   -agones PORT.  The HTTP and JSON are the agones module's
 *   (qwd/agones.h: libcurl's multi interface, jansson); this file says
 *   what to send when and what to do with what comes back:
 *     start        the client opened (no transfer yet); the watch asked for
 *     level_begin  the first level loaded (the socket is bound at start):
 *                  Ready, once (a later Ready would take an Allocated
 *                  server back to Ready); the capacity (maxclients, read
 *                  only); every level: the label "map"
 *     frame        every SV_AGONES_HEALTH s a Health ping, queued by the
 *                  frame itself so a frame that hangs stops the pings; the
 *                  label "players" when the count changed since the last
 *                  ping (so a burst of connects is one set)
 *     fds, io      the client's descriptors in the frame's select(), its
 *                  transfers advanced after it (never a wait)
 *     client_new   a player (not a spectator) taking its slot:
 *                  /alpha/player/connect with its userid; client_drop:
 *                  disconnect.  tracked[] holds the userid told per slot,
 *                  so a level change's signon again is not a connect again
 *     the watch    entering Allocated applies the allocation's settings
 *                  (annotation or label, the annotation first): qwd.map
 *                  (a level change, checked before it is asked for),
 *                  qwd.password (the password cvar), qwd.mode (kept for the
 *                  match layer that is being written, and set as the label
 *                  "mode"), qwd.players (the expected players, kept and
 *                  shown); an unusable value is logged and counted
 *     level_end    with sv_agones_onematch 1, an Allocated server whose
 *                  level ends (not by its own allocation's map) asks for
 *                  Shutdown: one match per server, the level being the
 *                  match until the match layer says otherwise.  A Reserved
 *                  server is not shut down (Agones' docs: it is kept until
 *                  its reservation ends and it returns to Ready)
 *     stop         Shutdown (quit, SIGTERM), and up to SV_AGONES_FLUSH s
 *                  for it and the last disconnects to reach the sidecar
 *   Console (and rcon): "agones" shows the state and the counters,
 *   "agones_reserve SECONDS" asks for Reserve (a matchmaker's hold),
 *   "agones_allocate" marks the server Allocated itself.  Every failure is
 *   the client's to log once and count; the counters are on the metrics
 *   page (sv_agones_metrics) and in "agones".  Memory: the client's, fixed
 *   at open, and tracked[] (maxclients) at registration.
 */
#include "features.h"
#include "agones.h"

#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

#include "qwd/agones.h"
#include "qwd/metrics.h"

#define SV_AGONES_HEALTH 2.0	/* seconds between Health pings */
#define SV_AGONES_FLUSH 1.0	/* shutdown's moment for the last calls */

enum { SV_AGONES_VALUE = 64 };	/* a label value's length in Kubernetes */

struct sv_agones {
	int port;
	struct agones *c;
	struct cvar *onematch;
	bool ready_sent, shutdown_sent, level_loaded, own_change,
	     capacity_sent;
	double next_health;
	int players_label;	/* the count last set, -1: none yet */
	char state[32];		/* the GameServer's, from the watch */
	char mode[SV_AGONES_VALUE];	/* qwd.mode of the allocation */
	char expected[16];		/* qwd.players of the allocation */
	int *tracked;		/* per slot: the userid told, 0: none */
	uint64_t allocations;	/* allocations applied */
	uint64_t bad_values;	/* qwd.* values not usable, labels not set */
	uint64_t health_sent;
};

/* a Kubernetes label value: up to 63 of [A-Za-z0-9-_.], starting and
 * ending with a letter or digit (or empty) */
static bool label_value_ok(const char *v)
{
	size_t n = strlen(v);

	if (n >= SV_AGONES_VALUE)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = v[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9');

		if (!alnum && ((i == 0 || i == n - 1) ||
			       (c != '-' && c != '_' && c != '.')))
			return false;
	}
	return true;
}

static void set_label(struct server *sv, const char *key, const char *value)
{
	struct sv_agones *ag = sv->agones;

	if (!label_value_ok(value)) {
		ag->bad_values++;
		qwd_logf(&sv->log, QWD_LOG_WARN, "agones: label %s: \"%s\" is "
			 "not a Kubernetes label value; not set", key, value);
		return;
	}
	agones_set_label(ag->c, key, value);
}

/* an allocation's setting: its annotation, else its label, else NULL */
static const char *setting(const struct agones_gs *gs, const char *key)
{
	const char *v = agones_gs_annotation(gs, key);

	return v ? v : agones_gs_label(gs, key);
}

static void apply_allocation(struct server *sv, const struct agones_gs *gs)
{
	struct sv_agones *ag = sv->agones;
	const char *map = setting(gs, "qwd.map");
	const char *password = setting(gs, "qwd.password");
	const char *mode = setting(gs, "qwd.mode");
	const char *players = setting(gs, "qwd.players");
	char path[SV_PATH + 80], err[256];

	ag->allocations++;
	if (map && *map && strcmp(map, sv->mapname) != 0) {
		if (strlen(map) >= sizeof(sv->pending_map) ||
		    !sv_level_find(sv, map, path, sizeof(path), err,
				   sizeof(err))) {
			ag->bad_values++;
			qwd_logf(&sv->log, QWD_LOG_WARN, "agones: qwd.map \"%s\" "
				 "refused, staying on %s: %s", map, sv->mapname,
				 strlen(map) >= sizeof(sv->pending_map) ?
				 "name too long" : err);
		} else {
			/* loaded by the frame, as the game's changelevel */
			strlcpy(sv->pending_map, map, sizeof(sv->pending_map));
			ag->own_change = true;
		}
	}
	if (password && cvar_set(sv, "password", password) != 0) {
		ag->bad_values++;
		qwd_logf(&sv->log, QWD_LOG_WARN, "agones: qwd.password not set");
	}
	if (mode) {
		strlcpy(ag->mode, mode, sizeof(ag->mode));
		set_label(sv, "mode", mode);
	}
	if (players) {
		char *end;
		long n = strtol(players, &end, 10);

		if (*players && !*end && n >= 0 && n <= sv->max_players) {
			snprintf(ag->expected, sizeof(ag->expected), "%ld", n);
		} else {
			ag->bad_values++;
			qwd_logf(&sv->log, QWD_LOG_WARN, "agones: qwd.players "
				 "\"%s\" is not 0 to maxclients (%d)", players,
				 sv->max_players);
		}
	}
	qwd_logf(&sv->log, QWD_LOG_INFO, "agones: allocated (%s): map %s, mode "
		 "%s, password %s, expected players %s", gs->name,
		 ag->own_change ? sv->pending_map : sv->mapname,
		 ag->mode[0] ? ag->mode : "-", password ? "set" : "unchanged",
		 ag->expected[0] ? ag->expected : "-");
}

static void on_watch(void *ctx, const struct agones_gs *gs)
{
	struct server *sv = ctx;
	struct sv_agones *ag = sv->agones;
	bool was = strcmp(ag->state, "Allocated") == 0;

	if (strcmp(ag->state, gs->state) != 0)
		qwd_logf(&sv->log, QWD_LOG_INFO, "agones: GameServer %s: %s",
			 gs->name, gs->state);
	strlcpy(ag->state, gs->state, sizeof(ag->state));
	if (!was && strcmp(gs->state, "Allocated") == 0)
		apply_allocation(sv, gs);
}

static int agones_start(struct server *sv)
{
	struct sv_agones *ag = sv->agones;
	struct agones_callbacks cb = {.ctx = sv, .watch = on_watch,
				      .log = &sv->log};
	char err[256];

	ag->c = agones_open(ag->port, &cb, err, sizeof(err));
	if (!ag->c) {
		qwd_logf(&sv->log, QWD_LOG_ERROR, "agones: %s", err);
		return -1;
	}
	agones_watch(ag->c);
	qwd_logf(&sv->log, QWD_LOG_INFO, "agones: the SDK sidecar at "
		 "http://localhost:%d", ag->port);
	return 0;
}

static void agones_fds(struct server *sv, fd_set *r, fd_set *w, int *maxfd,
		       double *wait)
{
	fd_set e;	/* libcurl's exceptions: the frame watches none */

	FD_ZERO(&e);
	agones_fdset(sv->agones->c, r, w, &e, maxfd, wait);
}

static void agones_io(struct server *sv, const fd_set *r, const fd_set *w)
{
	(void)r;
	(void)w;
	agones_run(sv->agones->c, sv->realtime);
}

static void agones_frame(struct server *sv)
{
	struct sv_agones *ag = sv->agones;
	int players;

	if (sv->realtime < ag->next_health || ag->shutdown_sent)
		return;
	ag->next_health = sv->realtime + SV_AGONES_HEALTH;
	agones_health(ag->c);
	ag->health_sent++;
	players = sv_count_clients(sv, false);
	if (ag->level_loaded && players != ag->players_label) {
		char n[16];

		snprintf(n, sizeof(n), "%d", players);
		agones_set_label(ag->c, "players", n);
		ag->players_label = players;
	}
}

static void agones_level_begin(struct server *sv)
{
	struct sv_agones *ag = sv->agones;

	ag->level_loaded = true;
	ag->own_change = false;
	set_label(sv, "map", sv->mapname);
	if (!ag->capacity_sent) {
		agones_set_capacity(ag->c, sv->max_players);
		ag->capacity_sent = true;
	}
	if (!ag->ready_sent) {
		agones_ready(ag->c);
		ag->ready_sent = true;
		qwd_logf(&sv->log, QWD_LOG_INFO, "agones: Ready (level %s "
			 "loaded)", sv->mapname);
	}
}

static void shutdown_once(struct server *sv, const char *why)
{
	struct sv_agones *ag = sv->agones;

	if (ag->shutdown_sent)
		return;
	ag->shutdown_sent = true;
	agones_shutdown(ag->c);
	qwd_logf(&sv->log, QWD_LOG_INFO, "agones: Shutdown (%s)", why);
}

static void agones_level_end(struct server *sv)
{
	struct sv_agones *ag = sv->agones;

	if (ag->level_loaded && ag->onematch->value != 0 && !ag->own_change &&
	    strcmp(ag->state, "Allocated") == 0)
		shutdown_once(sv, "sv_agones_onematch: the match's level ended");
}

static void untrack(struct sv_agones *ag, int slot)
{
	char id[16];

	if (!ag->tracked[slot])
		return;
	snprintf(id, sizeof(id), "%d", ag->tracked[slot]);
	agones_player_disconnect(ag->c, id);
	ag->tracked[slot] = 0;
}

static void agones_client_new(struct server *sv, struct client *cl)
{
	struct sv_agones *ag = sv->agones;
	int slot = (int)(cl - sv->clients);
	char id[16];

	if (cl->spectator || ag->tracked[slot] != cl->userid)
		untrack(ag, slot);
	if (cl->spectator || ag->tracked[slot] == cl->userid)
		return;
	snprintf(id, sizeof(id), "%d", cl->userid);
	agones_player_connect(ag->c, id);
	ag->tracked[slot] = cl->userid;
}

static void agones_client_drop(struct server *sv, struct client *cl)
{
	untrack(sv->agones, (int)(cl - sv->clients));
}

static void agones_stop(struct server *sv)
{
	struct sv_agones *ag = sv->agones;
	double end;

	if (!ag->c)
		return;
	shutdown_once(sv, sv->quit_reason[0] ? sv->quit_reason : "quit");
	/* a bounded moment for it and the clients' disconnects */
	end = sv_clock(sv) + SV_AGONES_FLUSH;
	while (agones_pending(ag->c) > 0 && sv_clock(sv) < end)
		if (agones_poll(ag->c, end - sv_clock(sv)) < 0)
			break;	/* a signal: stop waiting */
	if (agones_pending(ag->c) > 0)
		qwd_logf(&sv->log, QWD_LOG_WARN, "agones: %d calls not "
			 "answered at shutdown", agones_pending(ag->c));
}

static void agones_free(struct server *sv)
{
	if (!sv->agones)
		return;
	if (sv->agones->c)
		agones_close(sv->agones->c);
	free(sv->agones->tracked);
	free(sv->agones);
	sv->agones = NULL;
}

static void c_agones(struct server *sv, const struct net_args *a, FILE *out)
{
	const struct sv_agones *ag = sv->agones;
	const struct agones_stats *st = agones_stats(ag->c);

	(void)a;
	fprintf(out, "agones: sidecar port %d, GameServer %s, ready %s, "
		"shutdown %s\n", ag->port, ag->state[0] ? ag->state : "(not "
		"seen yet)", ag->ready_sent ? "sent" : "not yet",
		ag->shutdown_sent ? "sent" : "no");
	fprintf(out, "allocation: mode %s, expected players %s; allocations "
		"%llu, unusable values %llu\n", ag->mode[0] ? ag->mode : "-",
		ag->expected[0] ? ag->expected : "-",
		(unsigned long long)ag->allocations,
		(unsigned long long)ag->bad_values);
	fprintf(out, "calls (sent/answered):");
	for (int c = 0; c < AGONES_CALLS; c++)
		if (st->sent[c])
			fprintf(out, " %s %llu/%llu", agones_call_name(c),
				(unsigned long long)st->sent[c],
				(unsigned long long)st->answered[c]);
	fprintf(out, "\nfailures:");
	for (int f = 0; f < AGONES_FAILURES; f++)
		fprintf(out, " %s %llu", agones_failure_kind(f),
			(unsigned long long)st->failed[f]);
	fprintf(out, "; coalesced %llu, watch changes %llu, pending %d\n",
		(unsigned long long)st->coalesced,
		(unsigned long long)st->watch_changes, agones_pending(ag->c));
}

static void c_agones_reserve(struct server *sv, const struct net_args *a,
			     FILE *out)
{
	const char *s = net_args_argv(a, 1);
	char *end;
	long secs = strtol(s, &end, 10);

	if (a->argc != 2 || !*s || *end || secs < 0) {
		fprintf(out, "usage: agones_reserve SECONDS (0: until an "
			"allocation or Ready)\n");
		return;
	}
	agones_reserve(sv->agones->c, secs);
	fprintf(out, "agones: Reserve %ld s asked for\n", secs);
}

static void c_agones_allocate(struct server *sv, const struct net_args *a,
			      FILE *out)
{
	(void)a;
	agones_allocate(sv->agones->c);
	fprintf(out, "agones: Allocate asked for\n");
}

void sv_agones_metrics(const struct server *sv, struct metrics_page *p)
{
	const struct sv_agones *ag = sv->agones;
	const struct agones_stats *st;
	struct metrics_label l[2];

	if (!ag || !ag->c)
		return;
	st = agones_stats(ag->c);
	metrics_family(p, "qwd_agones_calls_total", METRICS_COUNTER,
		       "Calls to the Agones SDK sidecar by name: started, "
		       "and answered as the call expects.");
	for (int c = 0; c < AGONES_CALLS; c++) {
		l[0] = (struct metrics_label){"call", agones_call_name(c)};
		l[1] = (struct metrics_label){"result", "sent"};
		metrics_sample_u64(p, "qwd_agones_calls_total", l, 2,
				   st->sent[c]);
		l[1].value = "answered";
		metrics_sample_u64(p, "qwd_agones_calls_total", l, 2,
				   st->answered[c]);
	}
	metrics_family(p, "qwd_agones_failures_total", METRICS_COUNTER,
		       "Failed calls to the sidecar by kind (refused: the "
		       "sidecar not up yet, retried).");
	for (int f = 0; f < AGONES_FAILURES; f++) {
		l[0] = (struct metrics_label){"kind", agones_failure_kind(f)};
		metrics_sample_u64(p, "qwd_agones_failures_total", l, 1,
				   st->failed[f]);
	}
	metrics_counter(p, "qwd_agones_allocations_total", "Allocations "
			"whose qwd.* settings were applied.", ag->allocations);
	metrics_counter(p, "qwd_agones_bad_values_total", "qwd.* settings "
			"and labels not usable (logged).", ag->bad_values);
	metrics_gauge(p, "qwd_agones_allocated", "1 while the GameServer is "
		      "Allocated (as the watch last said).",
		      strcmp(ag->state, "Allocated") == 0);
}

static const struct sv_feature agones_feature = {
	.name = "agones",
	.start = agones_start,
	.fds = agones_fds,
	.io = agones_io,
	.frame = agones_frame,
	.level_end = agones_level_end,
	.level_begin = agones_level_begin,
	.client_new = agones_client_new,
	.client_drop = agones_client_drop,
	.stop = agones_stop,
	.free = agones_free,
};

int sv_agones_register(struct server *sv, int port)
{
	sv->agones = NULL;
	if (port <= 0)
		return 0;	/* no sidecar: nothing registered */
	sv->agones = calloc(1, sizeof(*sv->agones));
	if (!sv->agones)
		return -1;
	sv->agones->tracked = calloc((size_t)sv->maxclients, sizeof(int));
	if (!sv->agones->tracked) {
		free(sv->agones);
		sv->agones = NULL;
		return -1;
	}
	sv->agones->port = port;
	sv->agones->players_label = -1;
	sv->agones->onematch = cvar_register(sv, "sv_agones_onematch", "0", 0,
		"1: one match per server: an Allocated server asks Agones for "
		"Shutdown when its level ends");
	sv_command_add(sv, "agones", c_agones, "the Agones SDK client's "
		       "state and counters");
	sv_command_add(sv, "agones_reserve", c_agones_reserve,
		       "agones_reserve SECONDS: ask Agones for Reserve (not "
		       "allocated, not deleted; 0: until allocated)");
	sv_command_add(sv, "agones_allocate", c_agones_allocate,
		       "mark this GameServer Allocated (a matchmaker's own "
		       "allocation)");
	sv_feature_add(sv, &agones_feature);
	return 0;
}
