/*
 * antilag.c -- where a shooter saw the other players: a ring of each
 * player's recent positions, the rewind to a shooter's view time, and the
 * traces that meet the rewound players (MVDSV's sv_antilag).
 *
 * Design note
 *   Facts from MVDSV 0.35 (sv_user.c, sv_world.c, sv_phys.c, pr_cmds.c),
 *   which this follows to the same answer:
 *   - after each move packet a player's origin is kept with the game time
 *     of that packet (its localtime), at most one per time, in a ring of
 *     GAME_LAG_POSITIONS; with sv_antilag 0 the ring is emptied instead;
 *     setorigin (a spawn, a teleport) empties it too;
 *   - at each packet of a shooter the server names the time to rewind to
 *     (game_antilag_aim; src/server/user.c computes it from the reply the
 *     packet acknowledges);
 *   - a player is rewound when it is in the game and not dead (a
 *     spectator is, but is not solid), with at least one position:
 *     the time after its last move: its origin carried on by its velocity
 *     for at most GAME_LAG_MAX_EXTRAPOLATE seconds; one position: that
 *     one; else the last position before the time and the one after it,
 *     interpolated (MVDSV's search and its arithmetic: a double factor,
 *     a*(1-f) + b*f).  A time older than the ring: MVDSV's search ends on
 *     the newest and the oldest positions of a full ring (and
 *     extrapolates between them, as it does); a ring not yet full gives
 *     its oldest position (MVDSV reads before its array there);
 *   - sv_antilag 2: every traceline of a player, or of what a player
 *     owns, that may hit players meets the rewound players (each at its
 *     rewound origin, none where it stands); with sv_antilag_projectiles
 *     the moves of tossed and flying things a player owns do too.  1
 *     keeps the rings but rewinds only for a mod that asks (MVDSV's
 *     FL_LAGGEDMOVE); qwd's game never asks.
 *   The rewound positions of one shooter's packet are made at its first
 *   rewound trace and kept for the rest of the packet's commands (MVDSV
 *   makes them at the packet's start: nothing a packet does before its
 *   first shot moves another player).  A projectile's are made at each of
 *   its moves from its owner's time (MVDSV keeps the owner's of its last
 *   packet; the two differ only for a target whose commands came late).
 *
 *   Cost: a position per move (no search); a rewound trace walks every
 *   slot once (a binary search in the ring of each player there) the
 *   first time in a packet; the parallel frame's schedule asks
 *   game_antilag_reach once per player in a segment where someone fires.
 *   Rings and scratch are allocated with the game; nothing per frame.
 *   Threads: a move writes only its own player's ring and aim; the
 *   rewound traces (shots) run outside the parallel part (a firing move
 *   is never local), under the escape guard if one ever does.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

enum { LAG_VAR_MODE, LAG_VAR_PROJECTILES, LAG_VARS };
static const char *const lag_var_names[LAG_VARS] = {
	"sv_antilag", "sv_antilag_projectiles",
};

int g_antilag_create(struct game *g)
{
	size_t n = (size_t)g->max_clients;

	g->lag = calloc(n, sizeof(*g->lag));
	g->lag_ring = calloc(n * GAME_LAG_POSITIONS, sizeof(*g->lag_ring));
	g->lag_ids = calloc(n, sizeof(*g->lag_ids));
	g->lag_origins = calloc(n * 3, sizeof(*g->lag_origins));
	g->lag_boxes = calloc(n * 6, sizeof(*g->lag_boxes));
	g->lag_mark = calloc((size_t)g->max_entities, 1);
	if (!g->lag || !g->lag_ring || !g->lag_ids || !g->lag_origins ||
	    !g->lag_boxes || !g->lag_mark)
		return -1;
	for (size_t i = 0; i < n; i++)
		g->lag[i].ring = &g->lag_ring[i * GAME_LAG_POSITIONS];
	g->lag_cache_slot = -1;
	return 0;
}

void g_antilag_destroy(struct game *g)
{
	free(g->lag);
	free(g->lag_ring);
	free(g->lag_ids);
	free(g->lag_origins);
	free(g->lag_boxes);
	free(g->lag_mark);
}

void g_antilag_level(struct game *g)
{
	for (int i = 0; i < LAG_VARS; i++)
		g->lag_vars[i] = g->svc.cvar ?
			g->svc.cvar(g->svc.ctx, lag_var_names[i]) : NULL;
	for (int i = 0; i < g->max_clients; i++) {
		g->lag[i].next = 0;
		g->lag[i].aims = false;
	}
	g->lag_cache_slot = -1;
}

int game_antilag_mode(const struct game *g)
{
	return g->lag_vars[LAG_VAR_MODE] ? (int)*g->lag_vars[LAG_VAR_MODE] : 0;
}

static bool lag_projectiles(const struct game *g)
{
	return game_antilag_mode(g) == 2 && g->lag_vars[LAG_VAR_PROJECTILES] &&
	       *g->lag_vars[LAG_VAR_PROJECTILES] != 0;
}

void game_antilag_aim(struct game *g, int slot, bool on, double target)
{
	struct game_lag *l;

	if (slot < 0 || slot >= g->max_clients)
		return;
	l = &g->lag[slot];
	l->aims = on;
	l->target = target;
	l->serial++;
}

void game_antilag_record(struct game *g, int slot, double time)
{
	struct game_lag *l;
	const struct game_entity *e;

	if (slot < 0 || slot >= g->max_clients)
		return;
	l = &g->lag[slot];
	l->localtime = time;
	if (game_antilag_mode(g) == 0) {
		l->next = 0;
		return;
	}
	if (l->next > 0 &&
	    !(l->ring[(l->next - 1) % GAME_LAG_POSITIONS].time < time))
		return;
	e = &g->ents[game_player_entity(g, slot)];
	l->ring[l->next % GAME_LAG_POSITIONS].time = time;
	vec_copy(e->obj->origin, l->ring[l->next % GAME_LAG_POSITIONS].origin);
	l->next++;
}

void g_antilag_reset(struct game *g, const struct game_entity *e)
{
	if (e->client >= 0 && e->client < g->max_clients)
		g->lag[e->client].next = 0;
}

/* can slot be rewound at all (MVDSV: spawned, a position, not dead) */
static bool lag_present(const struct game *g, int slot)
{
	const struct game_client *cl = &g->clients[slot];

	return cl->active && g->lag[slot].next > 0 &&
	       (cl->spectator ||
		g->ents[game_player_entity(g, slot)].health > 0);
}

/* the largest recorded index j with a time before t among those the
 * ring still holds and MVDSV's search visits (next-N .. next-2), or -1 */
static int64_t lag_before(const struct game_lag *l, double t)
{
	int64_t lo = (int64_t)l->next - GAME_LAG_POSITIONS, hi = (int64_t)l->next - 2;
	int64_t found = -1;

	if (lo < 0)
		lo = 0;
	while (lo <= hi) {	/* times grow with the index */
		int64_t mid = lo + (hi - lo) / 2;

		if (l->ring[mid % GAME_LAG_POSITIONS].time < t) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

bool game_antilag_position(const struct game *g, int slot, double t,
			   vec3_t out)
{
	const struct game_lag *l;
	const struct game_entity *e;
	const struct game_lag_pos *base, *to;
	int64_t j;
	double f;

	if (slot < 0 || slot >= g->max_clients || !lag_present(g, slot))
		return false;
	l = &g->lag[slot];
	e = &g->ents[game_player_entity(g, slot)];
	if (t > l->localtime) {
		double dt = t - l->localtime;
		float s = (float)(dt < GAME_LAG_MAX_EXTRAPOLATE ? dt :
				  GAME_LAG_MAX_EXTRAPOLATE);

		for (int k = 0; k < 3; k++)
			out[k] = e->obj->origin[k] + s * e->velocity[k];
		return true;
	}
	if (l->next == 1) {
		vec_copy(l->ring[0].origin, out);
		return true;
	}
	j = lag_before(l, t);
	if (j < 0) {
		if (l->next <= GAME_LAG_POSITIONS) {
			vec_copy(l->ring[0].origin, out);
			return true;
		}
		/* MVDSV's search ran out on a full ring: it ends on index
		 * next-1-N, the newest, and interpolates toward the oldest */
		j = (int64_t)l->next - 1 - GAME_LAG_POSITIONS;
	}
	base = &l->ring[j % GAME_LAG_POSITIONS];
	to = &l->ring[(j + 1) % GAME_LAG_POSITIONS];
	f = (t - base->time) / (to->time - base->time);
	for (int k = 0; k < 3; k++)
		out[k] = (float)(base->origin[k] * (1 - f) + to->origin[k] * f);
	return true;
}

int game_antilag_reach(const struct game *g, int slot, double since,
		       vec3_t mins, vec3_t maxs)
{
	const struct game_lag *l;
	const struct game_entity *e;
	int64_t j, first;

	if (slot < 0 || slot >= g->max_clients || !lag_present(g, slot))
		return 0;
	l = &g->lag[slot];
	e = &g->ents[game_player_entity(g, slot)];
	/* the extrapolation: the origin carried on by the velocity */
	for (int k = 0; k < 3; k++) {
		float d = (float)GAME_LAG_MAX_EXTRAPOLATE * e->velocity[k];

		mins[k] = e->obj->origin[k] - (d < 0 ? -d : d);
		maxs[k] = e->obj->origin[k] + (d < 0 ? -d : d);
	}
	j = lag_before(l, since);
	if (j < 0) {
		if (l->next > GAME_LAG_POSITIONS)
			return -1;	/* older than the ring: anywhere */
		j = 0;
	}
	first = j;
	for (j = first; j < (int64_t)l->next; j++) {
		const float *o = l->ring[j % GAME_LAG_POSITIONS].origin;

		for (int k = 0; k < 3; k++) {
			if (o[k] < mins[k])
				mins[k] = o[k];
			if (o[k] > maxs[k])
				maxs[k] = o[k];
		}
	}
	for (int k = 0; k < 3; k++) {
		mins[k] += e->obj->mins[k];
		maxs[k] += e->obj->maxs[k];
	}
	return 1;
}

double game_antilag_target(const struct game *g, int slot, bool *aims)
{
	*aims = slot >= 0 && slot < g->max_clients && g->lag[slot].aims;
	return *aims ? g->lag[slot].target : 0;
}

/* the shooter whose view a trace of pass is rewound to, or -1: a player
 * itself, or the player that owns pass */
static int lag_shooter(const struct game_entity *pass)
{
	if (pass->client >= 0)
		return pass->client;
	if (pass->owner && pass->owner->client >= 0)
		return pass->owner->client;
	return -1;
}

/* every rewound player for shooter's time t into the scratch */
static void lag_build(struct game *g, double t)
{
	for (int i = 0; i < g->lag_num; i++)
		g->lag_mark[g->lag_ids[i]] = 0;
	g->lag_num = 0;
	for (int s = 0; s < g->max_clients; s++) {
		int id = game_player_entity(g, s);
		const float *o = &g->lag_origins[3 * g->lag_num];
		float *b = &g->lag_boxes[6 * g->lag_num];
		const struct world_obj *obj = g->ents[id].obj;

		if (!game_antilag_position(g, s, t,
					   &g->lag_origins[3 * g->lag_num]))
			continue;
		/* a player's box does not change size while it lives */
		for (int k = 0; k < 3; k++) {
			b[k] = o[k] + obj->mins[k];
			b[3 + k] = o[k] + obj->maxs[k];
		}
		g->lag_ids[g->lag_num++] = id;
		g->lag_mark[id] = 1;
	}
	g->lag_world.num = g->lag_num;
	g->lag_world.ids = g->lag_ids;
	g->lag_world.origins = g->lag_origins;
	g->lag_world.boxes = g->lag_boxes;
	g->lag_world.mark = g->lag_mark;
	g->stats.lag_builds++;
}

/* the rewound players for a trace of pass (kind: a traceline or a
 * projectile's move), or NULL when it is not rewound */
static const struct world_lag *lag_for(struct game *g,
				       const struct game_entity *pass,
				       bool projectile)
{
	int s;

	if (!pass || (projectile ? !lag_projectiles(g) :
		      game_antilag_mode(g) != 2))
		return NULL;
	s = lag_shooter(pass);
	if (s < 0 || s >= g->max_clients || !g->lag[s].aims)
		return NULL;
	/* the set made for this shooter's packet (a shot), or for its
	 * projectiles in this world frame, serves again: no player moves
	 * between */
	if (g->lag_cache_slot != s || g->lag_cache_serial != g->lag[s].serial ||
	    g->lag_cache_projectile != projectile ||
	    (projectile && g->lag_cache_frame != g->stats.frames)) {
		lag_build(g, g->lag[s].target);
		g->lag_cache_slot = s;
		g->lag_cache_serial = g->lag[s].serial;
		g->lag_cache_projectile = projectile;
		g->lag_cache_frame = g->stats.frames;
	}
	return &g->lag_world;
}

void g_antilag_move(struct game *g, const vec3_t start, const vec3_t mins,
		    const vec3_t maxs, const vec3_t end, enum move_kind kind,
		    struct game_entity *pass, bool projectile, struct trace *tr)
{
	const struct world_lag *lag;
	bool esc;

	if (kind == MOVE_NOMONSTERS || !pass ||
	    !(projectile ? lag_projectiles(g) : game_antilag_mode(g) == 2)) {
		world_move(g->world, start, mins, maxs, end, kind,
			   pass ? pass->obj : NULL, tr);
		return;
	}
	/* the scratch is the game's: one thread at a time */
	esc = g_escape_enter("the antilag rewind");
	lag = lag_for(g, pass, projectile);
	if (lag) {
		g->stats.lag_traces++;
		world_move_lagged(g->world, start, mins, maxs, end, kind,
				  pass->obj, lag, tr);
	} else {
		world_move(g->world, start, mins, maxs, end, kind, pass->obj,
			   tr);
	}
	g_escape_leave(esc);
}
