/*
 * player.c -- players: entering and leaving, spawning, dying and
 * respawning, obituaries and frags, and the level's end (id's client.qc
 * and player.qc).  What a player's command runs (the QuakeC around the
 * move) is clientcmd.c.
 *
 * Design note
 *   Spawning (deathmatch): a random info_player_deathmatch with no player
 *   within 84 units (QuakeC's SelectSpawnPoint); when every spot is taken
 *   (more players than spots), a free place on rings of 40 units around
 *   the spots, reachable from the spot, searched on from where the last
 *   search ended (at most SPAWN_TRIES places a spawn); only when that
 *   fails too, a spot at random, whose occupant is telefragged.
 *   The spots are the level's list, found when it loaded.  Whether a
 *   player is near a spot or in a place is asked of the areanode tree
 *   (world_area_find: the walk stops at the first player that answers,
 *   whichever it is, since only "any" is asked), so a spawn costs what
 *   is near it, not every slot; a place is asked for its players before
 *   the box test of every object there (in a crowd a player usually
 *   is).  Whether the map's walls leave room at a place, and let a player go
 *   there from its spot, is traced once a level and remembered
 *   (game.spawn_world): a full map tries the same places in and behind
 *   the walls on every respawn.
 *   During a match the match layer may pick one of KTX's spawn models
 *   (game_match_rules.spawn_model, KTX's k_spw 1-4): a player's last spot
 *   left out or drawn twice, and only a player within his guard
 *   (game_client.spawn_guard, KTX's k_1spawn) keeping the spot he stands
 *   at; the state is the spawner's own, so a respawn stays one player's
 *   global action.  Every spot kept: the rings, as above.
 *   Death: the backpack drops, the body falls (PM_DEAD), below -40 health
 *   it gibs; after 1 s (the death animation) the buttons must be released
 *   and pressed again to respawn, leaving the body behind (the last four
 *   stay: the body queue).
 *   Deathmatch 4 and 5 arm a player at spawn (starting_kit).
 *   Rules: fraglimit when a frag is counted, timelimit each frame; the
 *   level then ends with an intermission of at least 5 s, left by a
 *   button press (or at once when nobody is playing), to the map the
 *   infokey named after this map gives, else the trigger_changelevel's,
 *   else this one (samelevel 1: always this one).
 *   Under a match layer (struct game_match_rules) frags may not count
 *   (prewar) and the match, not the fraglimit or timelimit here, ends the
 *   level (game_end_level).
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

static const vec3_t player_mins = {-16, -16, -24};
static const vec3_t player_maxs = {16, 16, 32};

void player_precache(struct game *g)
{
	char name[64];

	g->m_player = g_precache_model(g, "progs/player.mdl");
	g->m_eyes = g_precache_model(g, "progs/eyes.mdl");
	g->m_h_player = g_precache_model(g, "progs/h_player.mdl");
	g->m_gib[0] = g_precache_model(g, "progs/gib1.mdl");
	g->m_gib[1] = g_precache_model(g, "progs/gib2.mdl");
	g->m_gib[2] = g_precache_model(g, "progs/gib3.mdl");
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "misc/r_tele%d.wav", i + 1);
		g->s_tele[i] = g_precache_sound(g, name);
	}
	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "player/pain%d.wav", i + 1);
		g->s_pain[i] = g_precache_sound(g, name);
	}
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "player/death%d.wav", i + 1);
		g->s_death[i] = g_precache_sound(g, name);
	}
	g->s_gib = g_precache_sound(g, "player/gib.wav");
	g->s_udeath = g_precache_sound(g, "player/udeath.wav");
	g->s_teledeath = g_precache_sound(g, "player/teledth1.wav");
	g->s_land = g_precache_sound(g, "player/land.wav");
	g->s_land2 = g_precache_sound(g, "player/land2.wav");
	g->s_h2ojump = g_precache_sound(g, "player/h2ojump.wav");
	g->s_inh2o = g_precache_sound(g, "player/inh2o.wav");
	g->s_inlava = g_precache_sound(g, "player/inlava.wav");
	g->s_slimbrn = g_precache_sound(g, "player/slimbrn2.wav");
	g->s_outwater = g_precache_sound(g, "misc/outwater.wav");
	g->s_gasp1 = g_precache_sound(g, "player/gasp1.wav");
	g->s_gasp2 = g_precache_sound(g, "player/gasp2.wav");
	g->s_drown = g_precache_sound(g, "player/drown1.wav");
	g->s_lburn = g_precache_sound(g, "player/lburn1.wav");
	g->s_windfly = g_precache_sound(g, "ambience/windfly.wav");
	g->s_talk = g_precache_sound(g, "misc/talk.wav");
	g->s_null = g_precache_sound(g, "misc/null.wav");
	g->s_tornoff = g_precache_sound(g, "player/tornoff2.wav");
	g->s_protect3 = g_precache_sound(g, "items/protect3.wav");
	g->s_damage3 = g_precache_sound(g, "items/damage3.wav");
	g->s_jump = g_precache_sound(g, "player/plyrjmp8.wav");
}

static void score(struct game *g, struct game_entity *killer,
		  struct game_entity *victim, int n);

/* ---- corpses ---------------------------------------------------------- */

/* four entities that take a dead player's look when he respawns, in turn,
 * so the last bodies stay where they fell */
void player_init_bodyque(struct game *g)
{
	for (int i = 0; i < 4; i++) {
		struct game_entity *b = g_spawn(g);

		g->bodyque[i] = b ? b->num : 0;
		if (b)
			b->classname = "bodyque";
	}
	g->bodyque_next = 0;
}

void player_copy_to_bodyque(struct game *g, struct game_entity *e)
{
	struct game_entity *b;
	int n = g->bodyque[g->bodyque_next];

	g->bodyque_next = (g->bodyque_next + 1) % 4;
	if (n <= 0)
		return;
	b = &g->ents[n];
	vec_copy(e->angles, b->angles);
	b->modelindex = e->modelindex;
	b->frame = e->frame;
	b->colormap = e->colormap;
	b->skin = e->skin;
	b->movetype = e->movetype;
	vec_copy(e->velocity, b->velocity);
	b->flags = 0;
	b->obj->solid = SOLID_NOT;
	vec_copy(e->obj->mins, b->obj->mins);
	vec_copy(e->obj->maxs, b->obj->maxs);
	g_setorigin(g, b, e->obj->origin);
}

/* ---- spawn spots ------------------------------------------------------ */

bool player_spawn_point(struct game *g, struct game_entity *e, const char *cls)
{
	(void)g;
	if (strcmp(cls, "info_player_deathmatch") != 0 &&
	    strcmp(cls, "info_player_start") != 0 &&
	    strcmp(cls, "info_player_start2") != 0 &&
	    strcmp(cls, "info_player_coop") != 0 &&
	    strcmp(cls, "info_player_team1") != 0 &&
	    strcmp(cls, "info_player_team2") != 0)
		return false;
	e->obj->solid = SOLID_NOT;
	vec_copy(e->angles, e->mangle);
	return true;
}

static bool is_spot(const struct game_entity *e, const char *cls)
{
	return e->inuse && strcmp(e->classname, cls) == 0;
}

/* A player another player's spawn must keep clear of: in the game, solid
 * (not dead, not a spectator) and not the one spawning. */
static struct game_entity *spawn_obstacle(struct game *g, int slot,
					  const struct game_entity *self)
{
	struct game_entity *p = &g->ents[game_player_entity(g, slot)];

	if (!g->clients[slot].active || p == self || p->obj->solid != SOLID_SLIDEBOX)
		return NULL;
	return p;
}

/* What a spawn asks of the players near a place: whether any is there
 * (the answer is the same whichever answers it).  The players are found
 * through the areanode tree (a solid player is linked there), so a test
 * costs what is near, not every slot, and the walk stops at the first
 * that answers. */
struct spawn_ask {
	struct game *g;
	const struct game_entity *self;
	const float *org;	/* near: within radius of it */
	float radius;
	const float *mins, *maxs;	/* overlaps: the box */
	int model;		/* kept: the spawn model (1: any near keeps) */
};

/* the obstacle an object found there is, or NULL */
static const struct game_entity *ask_obstacle(const struct spawn_ask *a,
					      const struct world_obj *obj)
{
	int slot = a->g->ents[obj->id].client;

	return slot < 0 ? NULL : spawn_obstacle(a->g, slot, a->self);
}

static bool is_near(const struct spawn_ask *a, const struct game_entity *p)
{
	vec3_t d;

	vec_sub(p->obj->origin, a->org, d);
	return g_vlen(d) <= a->radius;
}

static bool near_pred(void *ctx, const struct world_obj *obj)
{
	const struct spawn_ask *a = ctx;
	const struct game_entity *p = ask_obstacle(a, obj);

	return p && is_near(a, p);
}

/* near, and keeping the spot under the spawn model (spot_kept) */
static bool keeps_pred(void *ctx, const struct world_obj *obj)
{
	const struct spawn_ask *a = ctx;
	const struct game_entity *p = ask_obstacle(a, obj);

	return p && is_near(a, p) &&
	       (a->model == 1 ||
		a->g->clients[p->client].spawn_guard >= a->g->time);
}

/* the box and a player's overlap (touching is apart) */
static bool overlaps_pred(void *ctx, const struct world_obj *obj)
{
	const struct spawn_ask *a = ctx;
	const struct game_entity *p = ask_obstacle(a, obj);

	if (!p)
		return false;
	for (int k = 0; k < 3; k++)
		if (a->mins[k] >= p->obj->origin[k] + p->obj->maxs[k] ||
		    a->maxs[k] <= p->obj->origin[k] + p->obj->mins[k])
			return false;
	return true;
}

/* Is any player (not self) within radius of org, by pred's rule? */
static bool players_near(struct spawn_ask *a, world_area_pred pred)
{
	vec3_t mins, maxs;

	for (int k = 0; k < 3; k++) {
		mins[k] = a->org[k] - a->radius;
		maxs[k] = a->org[k] + a->radius;
	}
	return world_area_find(a->g->world, mins, maxs, AREA_SOLID, pred, a) != NULL;
}

static bool player_near(struct game *g, const vec3_t org, float radius,
			const struct game_entity *self)
{
	struct spawn_ask a = {.g = g, .self = self, .org = org, .radius = radius};

	return players_near(&a, near_pred);
}

/* Does nothing linked (nor a player) keep a player's box at org?  The
 * world model is the caller's (spawn_place_open): it never moves.
 * kept (or NULL): the entity of the player that kept the place the last
 * time, asked first; it is set to the one that keeps it now.  A full map's
 * searches find the same places taken by the same players again and
 * again, and the answer (is any player there?) is the walk's whichever
 * player gives it: the one remembered is taken only where the walk would
 * come to it (world_area_visits) and it overlaps. */
static bool box_free_objs(struct game *g, const vec3_t org,
			  struct game_entity *self, int32_t *kept)
{
	struct spawn_ask a = {.g = g, .self = self};
	const struct world_obj *found;
	vec3_t mins, maxs;

	/* the players first: in a crowd one is usually there, and the walk
	 * stops at it (both tests only read, so their order is free) */
	vec_add(org, player_mins, mins);
	vec_add(org, player_maxs, maxs);
	a.mins = mins;
	a.maxs = maxs;
	if (kept && *kept > 0 && *kept < g->max_entities) {
		const struct world_obj *o = g->ents[*kept].obj;

		if (world_area_visits(g->world, o, mins, maxs, AREA_SOLID) &&
		    overlaps_pred(&a, o)) {
			g->spawn_kept_hits++;
			return false;
		}
	}
	found = world_area_find(g->world, mins, maxs, AREA_SOLID,
				overlaps_pred, &a);
	if (found) {
		if (kept)
			*kept = found->id;
		return false;
	}
	return !world_test_box_objs(g->world, org, player_mins, player_maxs,
				    self->obj);
}

/* rings around the spots, and places tried per spawn, when every spot
 * is taken */
enum { SPAWN_RINGS = 12, SPAWN_TRIES = 1024 };

/* what the world says of a place of that search (game.spawn_world; 0:
 * not yet tried) */
enum spawn_place { SPAWN_OPEN = 1, SPAWN_IN_WALLS, SPAWN_WALLED_OFF };

int game_spawn_boxes(const struct game *g, int respawns, vec3_t *mins,
		     vec3_t *maxs, int max)
{
	/* select_spawn reads the players within 84 units of every spot and
	 * puts the player on a free one; only when none is free does it
	 * search the rings around them.  A spot no player's placed box comes
	 * near is free whatever the others' moves do. */
	const float near = 84 + 16 + 1;
	const char *cls = "info_player_deathmatch";
	int n = 0, sure = 0;
	float grow;

	for (int pass = 0; pass < 2 && n == 0; pass++) {
		for (int i = 1; i < g->num_entities; i++) {
			const struct game_entity *e = &g->ents[i];
			struct world_obj *objs[8];
			bool taken = false;
			int found;

			if (!is_spot(e, cls))
				continue;
			if (n == max)
				return -1;
			for (int k = 0; k < 3; k++) {
				mins[n][k] = e->obj->origin[k] - near;
				maxs[n][k] = e->obj->origin[k] + near;
			}
			found = world_area_any(g->world, mins[n], maxs[n],
					       AREA_SOLID, objs, 8);
			taken = found > 8;
			for (int k = 0; k < found && !taken; k++)
				taken = g->ents[objs[k]->id].client >= 0;
			sure += !taken;
			n++;
		}
		cls = "info_player_start";
	}
	if (n == 0)
		return -1;	/* no spot: the map's centre, anywhere */
	/* not enough spots surely free: the rings may be searched */
	grow = sure >= respawns ? 0 : 40.0f * SPAWN_RINGS;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 3; k++) {
			mins[i][k] -= grow;
			maxs[i][k] += grow;
		}
	return n;
}

/* the spots select_spawn chooses from: the deathmatch ones, else the
 * starts; how many.  The level's list (player_init_spawn_places) while
 * every spot of it still is one; else the entities are scanned again. */
static int scan_spawn_spots(struct game *g, struct game_entity **spots,
			    const char **found_cls)
{
	const char *cls = "info_player_deathmatch";
	int n = 0;

	for (int pass = 0; pass < 2 && n == 0; pass++) {
		for (int i = 1; i < g->num_entities && n < GAME_SPAWN_SPOTS; i++)
			if (is_spot(&g->ents[i], cls))
				spots[n++] = &g->ents[i];
		*found_cls = cls;
		cls = "info_player_start";
	}
	return n;
}

static int spawn_spots(struct game *g, struct game_entity **spots)
{
	const char *cls;
	int n = g->num_spawn_spots;

	for (int i = 0; i < n; i++) {
		spots[i] = &g->ents[g->spawn_spot[i]];
		if (!is_spot(spots[i], g->spawn_spot_cls))
			return scan_spawn_spots(g, spots, &cls);
	}
	return n > 0 ? n : scan_spawn_spots(g, spots, &cls);
}

/* the places of the search when every spot is taken (SPAWN_RINGS rings
 * of 40 units around each of n spots, 8 more on each ring) */
static int spawn_places(int n)
{
	int total = 0;

	for (int ring = 1; ring <= SPAWN_RINGS; ring++)
		total += 8 * ring * n;
	return total;
}

void player_init_spawn_places(struct game *g)
{
	struct game_entity *spots[GAME_SPAWN_SPOTS];
	int n = scan_spawn_spots(g, spots, &g->spawn_spot_cls);
	int total = spawn_places(n);

	for (int i = 0; i < n; i++)
		g->spawn_spot[i] = (int)(spots[i] - g->ents);
	g->num_spawn_spots = n;

	g->spawn_world_places = total;
	if (total > g->spawn_world_size) {
		uint8_t *m = realloc(g->spawn_world, (size_t)total);
		int32_t *k = m ? realloc(g->spawn_kept,
					 (size_t)total * sizeof(*k)) : NULL;

		if (m)
			g->spawn_world = m;
		if (!k) {
			/* the search then traces and walks every place, as
			 * without them */
			g->spawn_world_places = 0;
			return;
		}
		g->spawn_kept = k;
		g->spawn_world_size = total;
	}
	if (total > 0) {
		memset(g->spawn_world, 0, (size_t)total);
		memset(g->spawn_kept, 0, (size_t)total * sizeof(*g->spawn_kept));
	}
}

/* Does the map's own geometry leave room for a player at place `at` (p)
 * and let one go there from its spot (from)?  The world's part of
 * box_free_objs's test and of the move from the spot, which cannot
 * change during a level, so remembered per place: a full map's
 * searches try the same places in the walls, and behind them, again and
 * again.  Only the world model is traced here: a place it closes is
 * closed whatever else is there (a move the world stops, or that starts
 * in it, stays stopped when other hits are added). */
static bool spawn_place_open(struct game *g, int at, int total,
			     const vec3_t from, const vec3_t p)
{
	static const vec3_t zero = {0, 0, 0};
	struct trace tr;
	bool known = g->spawn_world && total == g->spawn_world_places;
	uint8_t state;

	if (known && g->spawn_world[at])
		return g->spawn_world[at] == SPAWN_OPEN;
	bsp_trace_box(g->map, 0, zero, player_mins, player_maxs, p, p, &tr);
	if (tr.startsolid) {
		state = SPAWN_IN_WALLS;
	} else {
		bsp_trace_box(g->map, 0, zero, player_mins, player_maxs, from,
			      p, &tr);
		state = tr.fraction < 1.0f || tr.startsolid ? SPAWN_WALLED_OFF :
			SPAWN_OPEN;
	}
	if (known)
		g->spawn_world[at] = state;
	return state == SPAWN_OPEN;
}

/* Does a player keep spot s from self under spawn model `model`?  Under
 * 1 every living player within 84 units does; under 2-4 only one still
 * in its guard (KTX's k_1spawn), the others are telefragged there. */
static bool spot_kept(struct game *g, const struct game_entity *s,
		      const struct game_entity *self, int model)
{
	struct spawn_ask a = {.g = g, .self = self, .org = s->obj->origin,
			      .radius = 84, .model = model};

	return players_near(&a, keeps_pred);
}

/* one draw among the spots not kept; under 1-3 the player's last spot is
 * left out (KTX: when the map has more than 2) */
static struct game_entity *model_draw(struct game *g, struct game_entity *self,
				      struct game_entity **spots, int n, int model)
{
	struct game_entity *pick[GAME_SPAWN_SPOTS];
	const struct game_client *cl = &g->clients[self->client];
	int np = 0;

	for (int i = 0; i < n; i++) {
		if (model != 4 && n > 2 && cl->last_spot == (int)(spots[i] - g->ents))
			continue;
		if (!spot_kept(g, spots[i], self, model))
			pick[np++] = spots[i];
	}
	if (np == 0)
		return NULL;
	return pick[(int)(g_random(g) * np) % np];
}

/* KTX's k_spw 1-4 (SelectSpawnPoint): the spot, NULL when every one is
 * kept.  The spawner is guarded from then on, and remembers the spot. */
static struct game_entity *model_spawn(struct game *g, struct game_entity *self,
				       struct game_entity **spots, int n, int model)
{
	struct game_client *cl = &g->clients[self->client];
	struct game_entity *s = model_draw(g, self, spots, n, model);

	/* model 4: its last spot drawn again is drawn once more, so it
	 * comes back seldom rather than never */
	if (s && model == 4 && cl->last_spot == (int)(s - g->ents))
		s = model_draw(g, self, spots, n, model);
	cl->spawn_guard = g->time + GAME_SPAWN_GUARD;
	if (s && n > 2)
		cl->last_spot = (int)(s - g->ents);
	return s;
}

static void select_spawn(struct game *g, struct game_entity *self, vec3_t org,
			 vec3_t ang)
{
	struct game_entity *spots[GAME_SPAWN_SPOTS], *free_spots[GAME_SPAWN_SPOTS];
	int n = spawn_spots(g, spots), nfree = 0;
	if (n == 0) {
		const struct bsp_model *w = &g->map->models[0];

		for (int k = 0; k < 3; k++)
			org[k] = (w->mins[k] + w->maxs[k]) * 0.5f;
		vec_set(ang, 0, 0, 0);
		return;
	}
	int model = g->match.spawn_model;

	if (model > 0 && model <= 4) {
		struct game_entity *s = model_spawn(g, self, spots, n, model);

		if (s) {
			vec_copy(s->obj->origin, org);
			vec_copy(s->mangle, ang);
			return;
		}
		/* every spot kept: qwd searches the rings around them, as
		 * for model 0, where KTX puts the player on one at random */
	} else {
		for (int i = 0; i < n; i++)
			if (!player_near(g, spots[i]->obj->origin, 84, self))
				free_spots[nfree++] = spots[i];
	}
	if (nfree > 0) {
		struct game_entity *s = free_spots[(int)(g_random(g) * nfree) % nfree];

		vec_copy(s->obj->origin, org);
		vec_copy(s->mangle, ang);
		return;
	}
	/* every spot taken: a free place near one.  The places (SPAWN_RINGS
	 * rings of 40 units around each spot, 8 more on each ring) are one
	 * sequence, ring by ring, and a search goes on from where the last
	 * one ended, at most SPAWN_TRIES places: a map filling up finds its
	 * next place in a few tries, not after every place already taken */
	int first = (int)(g_random(g) * n) % n, total = spawn_places(n);
	int at = g->spawn_cursor >= 0 ? g->spawn_cursor % total : 0;

	bool known = g->spawn_world && total == g->spawn_world_places;

	for (int t = 0; t < total && t < SPAWN_TRIES; t++, at = (at + 1) % total) {
		int ring = 1, rem = at;

		/* closed by the walls, as remembered: not even placed */
		if (known && g->spawn_world[at] > SPAWN_OPEN)
			continue;
		while (rem >= 8 * ring * n) {
			rem -= 8 * ring * n;
			ring++;
		}
		struct game_entity *s = spots[rem / (8 * ring)];
		int k = rem % (8 * ring);
		float a = (float)k * 6.2831853f / (float)(8 * ring);
		vec3_t p = {s->obj->origin[0] + 40.0f * (float)ring * cosf(a),
			    s->obj->origin[1] + 40.0f * (float)ring * sinf(a),
			    s->obj->origin[2] + 1};
		struct trace tr;

		/* in the walls or walled off from the spot (remembered), or
		 * taken (the objects there) */
		if (!spawn_place_open(g, at, total, s->obj->origin, p) ||
		    !box_free_objs(g, p, self, known ? &g->spawn_kept[at] : NULL))
			continue;
		world_move(g->world, s->obj->origin, player_mins, player_maxs,
			   p, MOVE_NOMONSTERS, self->obj, &tr);
		if (tr.fraction < 1.0f || tr.startsolid)
			continue;
		g->spawn_cursor = at;
		vec_copy(p, org);
		org[2] -= 1;
		vec_copy(s->mangle, ang);
		return;
	}
	g->spawn_cursor = at;	/* the next search looks further on */
	vec_copy(spots[first]->obj->origin, org);
	vec_copy(spots[first]->mangle, ang);
}

/* ---- fog and telefrags ------------------------------------------------ */

static void play_teleport(struct game *g, struct game_entity *self)
{
	int i = (int)(g_random(g) * 5) % 5;

	g_sound(g, self, GAME_CHAN_VOICE, g->s_tele[i], 1, GAME_ATTN_NORM);
	g_remove(g, self);
}

void player_spawn_tfog(struct game *g, const vec3_t org)
{
	struct game_entity *s = g_spawn(g);

	g_te_point(g, TE_TELEPORT, org, 0, GAME_MULTICAST_PHS);
	if (!s)
		return;
	s->classname = "tfog";
	s->obj->solid = SOLID_NOT;
	vec_copy(org, s->obj->origin);
	g_link(g, s, false);
	s->nextthink = g->time + 0.2;
	s->think = play_teleport;
}

/* slot s telefragged by mover at org, if living and its box meets the
 * mover's (1 unit larger) */
static void telefrag_one(struct game *g, int s, const vec3_t org,
			 struct game_entity *mover)
{
	struct game_entity *p = &g->ents[game_player_entity(g, s)];

	if (!g->clients[s].active || p == mover || p->health <= 0 || !p->takedamage)
		return;
	for (int k = 0; k < 3; k++)
		if (org[k] + mover->obj->mins[k] - 1 > p->obj->origin[k] + p->obj->maxs[k] ||
		    org[k] + mover->obj->maxs[k] + 1 < p->obj->origin[k] + p->obj->mins[k])
			return;
	combat_damage(g, p, mover, mover, 50000, DT_TELEFRAG);
}

/* QuakeC's spawn_tdeath, done at once: every living player whose box
 * meets the mover's box (1 unit larger) at org dies, in slot order.
 * Such a player is linked (solid; the dead, the intermission's and the
 * disconnected are not damageable), its placed box holding its box grown
 * by a unit, so the tree finds every one in id order, which is slot
 * order (game_player_entity); spectators are damageable but not linked:
 * while there are any, in a deferred phase (a link then waits for its
 * commit), and when the tree finds more than fit, every slot is tested,
 * as QuakeC does. */
enum { TELEFRAG_MAX = 256 };

void player_telefrag(struct game *g, const vec3_t org, struct game_entity *mover)
{
	struct world_obj *objs[TELEFRAG_MAX];
	int slots[TELEFRAG_MAX], n = -1, k = 0;
	vec3_t mins, maxs;

	if (g->spectators == 0 && !g->world->deferred) {
		for (int i = 0; i < 3; i++) {
			mins[i] = org[i] + mover->obj->mins[i] - 1;
			maxs[i] = org[i] + mover->obj->maxs[i] + 1;
		}
		n = world_area_objs(g->world, mins, maxs, AREA_SOLID, objs,
				    TELEFRAG_MAX);
	}
	if (n < 0 || n > TELEFRAG_MAX) {
		for (int s = 0; s < g->max_clients; s++)
			telefrag_one(g, s, org, mover);
		return;
	}
	/* the slots first: a death relinks what the tree gave */
	for (int i = 0; i < n; i++) {
		int s = g->ents[objs[i]->id].client;

		if (s >= 0 && objs[i]->id == game_player_entity(g, s))
			slots[k++] = s;
	}
	for (int i = 0; i < k; i++)
		telefrag_one(g, slots[i], org, mover);
}

/* ---- entering the game ------------------------------------------------ */

static void player_setangle(struct game *g, struct game_entity *e, const vec3_t ang)
{
	struct game_client *cl = g_client(g, e);

	vec_copy(ang, cl->v_angle);
	cl->fixangle = true;
	if (g->svc.setangle)
		g->svc.setangle(g->svc.ctx, e->client, ang);
}

/* deathmatch 4 and 5 (client.qc's PutClientInServer): players start
 * armed, in red armour and with 3 s of the pentagram.  4: every weapon
 * but the grenade launcher with 255 of each ammunition (localinfo "axe"
 * non-zero: the axe and shotgun only, without shells), 250 health;
 * 5: every weapon, 30 shells, 80 nails, 10 rockets, 30 cells, 200
 * health. */
static void starting_kit(struct game *g, struct game_entity *e,
			 struct game_client *cl)
{
	static const int arsenal = IT_NAILGUN | IT_SUPER_NAILGUN | IT_SUPER_SHOTGUN |
				   IT_ROCKET_LAUNCHER | IT_LIGHTNING;

	if (g->deathmatch == 4) {
		const char *axe = g->svc.infokey ? g->svc.infokey(g->svc.ctx, "axe") : NULL;

		cl->ammo_shells = 0;
		if (!axe || atof(axe) == 0) {
			cl->ammo_shells = cl->ammo_nails = 255;
			cl->ammo_rockets = cl->ammo_cells = 255;
			e->items |= arsenal;
		}
		e->health = 250;
	} else {
		cl->ammo_nails = 80;
		cl->ammo_shells = 30;
		cl->ammo_rockets = 10;
		cl->ammo_cells = 30;
		e->items |= arsenal | IT_GRENADE_LAUNCHER;
		e->health = 200;
	}
	e->items = (e->items & ~(IT_ARMOR1 | IT_ARMOR2)) | IT_ARMOR3;
	e->armorvalue = 200;
	e->armortype = 0.8f;
	e->items |= IT_INVULNERABILITY;
	cl->invincible_time = 1;
	cl->invincible_finished = g->time + 3;
}

void player_put_in_server(struct game *g, int slot)
{
	struct game_client *cl = &g->clients[slot];
	struct game_entity *e = &g->ents[game_player_entity(g, slot)];
	vec3_t org, ang, fwd, fog;

	if (e->obj->linked)
		world_unlink(g->world, e->obj);
	memset(&e->velocity, 0, sizeof(e->velocity));
	g_set_inuse(g, e, true);
	e->classname = "player";
	e->client = slot;
	e->health = 100;
	e->max_health = 100;
	e->takedamage = true;
	e->obj->solid = cl->spectator ? SOLID_NOT : SOLID_SLIDEBOX;
	e->obj->model = -1;
	e->obj->owner = -1;
	e->movetype = MOVETYPE_WALK;
	e->flags = FL_CLIENT;
	e->effects = 0;
	e->deadflag = DEAD_NO;
	e->items = IT_SHOTGUN | IT_AXE;
	e->armortype = 0;
	e->armorvalue = 0;
	e->weapon = IT_SHOTGUN;
	e->attack_finished = g->time;
	e->die = player_player_die;
	e->touch = NULL;
	e->think = NULL;
	e->nextthink = 0;
	e->frame = 0;
	e->skin = 0;
	e->colormap = slot < MAX_CLIENTS ? slot + 1 : 0;
	e->netname = cl->name;
	cl->ammo_shells = 25;
	cl->ammo_nails = cl->ammo_rockets = cl->ammo_cells = 0;
	cl->super_damage_finished = cl->invincible_finished = 0;
	cl->invisible_finished = cl->radsuit_finished = 0;
	cl->air_finished = g->time + 12;
	cl->drown_dmg = 2;
	cl->dmg_take = cl->dmg_save = 0;
	cl->refire = false;
	cl->impulse = 0;
	cl->last_fired = 0;
	cl->teleport_time = 0;
	cl->anim_prio = ANIM_BASIC;
	cl->anim_time = 0;
	cl->weaponframe = 0;
	cl->axe_pending = false;
	cl->super_time = cl->invincible_time = 0;
	cl->invisible_time = cl->rad_time = 0;
	weapons_set_current(g, e);
	if (g->deathmatch == 4 || g->deathmatch == 5)
		starting_kit(g, e, cl);
	e->modelindex = cl->spectator ? 0 : g->m_player;
	vec_copy(player_mins, e->obj->mins);
	vec_copy(player_maxs, e->obj->maxs);

	select_spawn(g, e, org, ang);
	org[2] += 1;
	vec_copy(org, e->obj->origin);
	g_antilag_reset(g, e);	/* QuakeC's setorigin at the spawn */
	vec_copy(ang, e->angles);
	pmove_player_reset(&cl->pm, org, ang);
	cl->pm.pm_type = cl->spectator ? PM_SPECTATOR : PM_NORMAL;
	player_setangle(g, e, ang);
	g_link(g, e, false);
	if (cl->spectator)
		return;
	g_makevectors(e->angles, fwd, NULL, NULL);
	vec_ma(org, 20, fwd, fog);
	player_spawn_tfog(g, fog);
	G_EVENT(g, spawn, slot);
	player_telefrag(g, org, e);
}

void game_client_connect(struct game *g, int slot, const char *name,
			 bool spectator)
{
	struct game_client *cl;

	g->changes++;
	if (slot < 0 || slot >= g->max_clients || !g->world)
		return;		/* no level yet */
	cl = &g->clients[slot];
	g->spectators -= cl->active && cl->spectator;
	g->roster++;
	memset(cl, 0, sizeof(*cl));
	cl->active = true;
	cl->spectator = spectator;
	g->spectators += spectator;
	strlcpy(cl->name, name ? name : "player", sizeof(cl->name));
	if (!spectator)
		g_bprint(g, PRINT_HIGH, "%s entered the game\n", cl->name);
	player_put_in_server(g, slot);
	if (g->svc.frags)
		g->svc.frags(g->svc.ctx, slot, 0);
}

void game_client_disconnect(struct game *g, int slot)
{
	struct game_client *cl;
	struct game_entity *e;

	g->changes++;
	if (slot < 0 || slot >= g->max_clients || !g->clients[slot].active)
		return;
	cl = &g->clients[slot];
	e = &g->ents[game_player_entity(g, slot)];
	if (!cl->spectator) {
		g_bprint(g, PRINT_HIGH, "%s left the game with %d frags\n", cl->name,
			 cl->frags);
		g_sound(g, e, GAME_CHAN_BODY, g->s_tornoff, 1, GAME_ATTN_NONE);
	}
	if (e->obj->linked)
		world_unlink(g->world, e->obj);
	e->obj->solid = SOLID_NOT;
	g_set_inuse(g, e, false);
	e->modelindex = 0;
	e->takedamage = false;
	g->spectators -= cl->spectator;
	g->roster++;
	cl->active = false;
}

void game_spectator_move(struct game *g, int slot, const vec3_t origin)
{
	struct game_client *cl;
	struct game_entity *e;

	if (slot < 0 || slot >= g->max_clients || !g->clients[slot].active ||
	    !g->clients[slot].spectator)
		return;
	g->changes++;
	cl = &g->clients[slot];
	e = &g->ents[game_player_entity(g, slot)];
	vec_copy(origin, e->obj->origin);
	vec_copy(origin, cl->pm.origin);
	/* a spectator is not solid: linked for its leafs (the PVS), it
	 * touches nothing */
	g_link(g, e, false);
}

void game_client_kill(struct game *g, int slot)
{
	struct game_client *cl;
	struct game_entity *e;

	g->changes++;
	if (slot < 0 || slot >= g->max_clients || !g->clients[slot].active ||
	    g->clients[slot].spectator || g->intermission)
		return;
	/* KTX's ClientKill: no suicide while paused (a respawn would move
	 * the player in a world that stands still) */
	if (game_paused(g))
		return;
	cl = &g->clients[slot];
	e = &g->ents[game_player_entity(g, slot)];
	if (e->deadflag)
		return;
	g_bprint(g, PRINT_MEDIUM, "%s suicides\n", cl->name);
	if (g->events) {
		/* KTX's "kill" is T_Damage(self, self, self, 999999): its
		 * statistics count the health and armour as self damage */
		struct game_ev_damage d = {.attacker = slot, .target = slot,
			.deathtype = DT_NONE, .weapon = GAME_WP_NONE,
			.health = e->health > 0 ? e->health : 0,
			.armour = e->armortype > 0 ? e->armorvalue : 0,
			.target_items = e->items};
		struct game_ev_kill k = {.killer = slot, .victim = slot,
			.deathtype = DT_NONE, .weapon = GAME_WP_NONE,
			.flags = GAME_KILL_SUICIDE | GAME_KILL_COMMAND,
			.victim_items = e->items};

		G_EVENT(g, damage, &d);
		G_EVENT(g, kill, &k);
	}
	e->modelindex = g->m_player;
	e->frame = FR_DEATHA + 10;	/* QuakeC's set_suicide_frame */
	score(g, e, e, -2);
	player_copy_to_bodyque(g, e);
	player_put_in_server(g, slot);
}

void game_client_userinfo(struct game *g, int slot, const char *name,
			  const char *team, int bottomcolor)
{
	struct game_client *cl;

	g->changes++;
	if (slot < 0 || slot >= g->max_clients)
		return;
	cl = &g->clients[slot];
	if (name)
		strlcpy(cl->name, name, sizeof(cl->name));
	strlcpy(cl->team, team ? team : "", sizeof(cl->team));
	cl->bottomcolor = bottomcolor;
}

/* ---- death ------------------------------------------------------------ */

void player_player_die(struct game *g, struct game_entity *self,
		       struct game_entity *attacker)
{
	struct game_client *cl = g_client(g, self);

	(void)attacker;
	items_drop_powerups(g, self);	/* with the time still on them */
	self->items &= ~(IT_INVISIBILITY | IT_INVULNERABILITY | IT_QUAD | IT_SUIT);
	cl->invisible_finished = cl->invincible_finished = 0;
	cl->super_damage_finished = cl->radsuit_finished = 0;
	self->modelindex = g->m_player;
	items_drop_backpack(g, self);
	cl->weaponmodel = 0;
	cl->refire = false;
	cl->axe_pending = false;
	self->deadflag = DEAD_DYING;
	cl->death_time = g->time;
	self->obj->solid = SOLID_NOT;
	g_link(g, self, false);
	self->flags &= ~FL_ONGROUND;
	self->movetype = MOVETYPE_TOSS;
	if (self->velocity[2] < 10)
		self->velocity[2] += (float)g_random(g) * 300;
	vec_copy(self->velocity, cl->pm.velocity);
	g->stats.kills++;
	if (self->health < -40) {
		combat_throw_gibs(g, self);
		self->deadflag = DEAD_DEAD;
		return;
	}
	g_sound(g, self, GAME_CHAN_VOICE, g->s_death[(int)(g_random(g) * 5) % 5], 1,
		GAME_ATTN_NORM);
	self->angles[0] = self->angles[2] = 0;
	cl->anim_prio = ANIM_BASIC;
	if (self->weapon == IT_AXE)
		player_anim_start(g, self, FR_AXDETH, FR_AXDETH + 8, ANIM_DEATH, 0);
	else
		player_anim_start(g, self, FR_DEATHA, FR_DEATHA + 10, ANIM_DEATH, 0);
}

void player_frags_changed(struct game *g, struct game_entity *player)
{
	struct game_client *cl = g_client(g, player);

	if (!cl)
		return;
	if (g->svc.frags)
		g->svc.frags(g->svc.ctx, player->client, cl->frags);
	player_check_rules(g, player);
}

static void add_frags(struct game *g, struct game_entity *p, int n)
{
	struct game_client *cl = g_client(g, p);

	if (!cl || g->match.no_frags)
		return;
	cl->frags += n;
	player_frags_changed(g, p);
}

/* n frags to killer for victim's death, told to the frag log as QuakeC's
 * logfrag(killer, victim) is: a frag names both, a loss the loser twice */
static void score(struct game *g, struct game_entity *killer,
		  struct game_entity *victim, int n)
{
	if (g_client(g, killer) && g_client(g, victim) && g->svc.logfrag)
		g->svc.logfrag(g->svc.ctx, killer->client, victim->client);
	add_frags(g, killer, n);
}

static const char *pick(struct game *g, const char *a, const char *b)
{
	return g_random(g) < 0.5 ? a : b;
}

/* QuakeC's ClientObituary: who killed whom, and the frags */
void player_obituary(struct game *g, struct game_entity *targ,
		     struct game_entity *attacker)
{
	struct game_client *tc = g_client(g, targ), *ac = g_client(g, attacker);
	const char *tn = tc ? tc->name : "", *an = ac ? ac->name : "";
	bool team = ac && tc && g->teamplay && tc->team[0] &&
		    strcmp(tc->team, ac->team) == 0;
	int dt = targ->deathtype;

	if (!tc)
		return;
	if (g->deathmatch > 3 && dt == DT_SELFWATER) {
		/* id's text, with its stray space after the newline */
		g_bprint(g, PRINT_MEDIUM, "%s electrocutes himself.\n ", tn);
		add_frags(g, targ, -1);
		return;
	}
	if (dt == DT_TELEFRAG && ac && attacker != targ) {
		g_bprint(g, PRINT_MEDIUM, "%s was telefragged by %s\n", tn, an);
		score(g, attacker, targ, 1);
		return;
	}
	if (dt == DT_SQUISH) {
		if (ac && team && attacker != targ) {
			g_bprint(g, PRINT_MEDIUM, "%s squished a teammate\n", an);
			score(g, attacker, attacker, -1);
		} else if (ac && attacker != targ) {
			g_bprint(g, PRINT_MEDIUM, "%s squishes %s\n", an, tn);
			score(g, attacker, targ, 1);
		} else {
			g_bprint(g, PRINT_MEDIUM, "%s was squished\n", tn);
			score(g, targ, targ, -1);
		}
		return;
	}
	if (ac) {
		const char *s1 = " was killed by ", *s2 = "\n";

		if (attacker == targ) {
			const char *how = " becomes bored with life\n";

			if (dt == DT_GRENADE)
				how = " tries to put the pin back in\n";
			else if (dt == DT_DISCHARGE && targ->watertype == CONTENTS_SLIME)
				how = " discharges into the slime\n";
			else if (dt == DT_DISCHARGE && targ->watertype == CONTENTS_LAVA)
				how = " discharges into the lava\n";
			else if (dt == DT_DISCHARGE)
				how = " discharges into the water.\n";
			g_bprint(g, PRINT_MEDIUM, "%s%s", tn, how);
			score(g, attacker, attacker, -1);
			return;
		}
		if (g->teamplay == 2 && team) {
			static const char *const lines[4] = {" mows down a teammate\n",
				" checks his glasses\n", " gets a frag for the other team\n",
				" loses another friend\n"};

			g_bprint(g, PRINT_MEDIUM, "%s%s", an, lines[(int)(g_random(g) * 4) % 4]);
			score(g, attacker, attacker, -1);
			return;
		}
		switch (dt) {
		case DT_NAIL:
			s1 = " was nailed by ";
			break;
		case DT_SUPERNAIL:
			s1 = " was punctured by ";
			break;
		case DT_GRENADE:
			s1 = targ->health < -40 ? " was gibbed by " : " eats ";
			s2 = targ->health < -40 ? "'s grenade\n" : "'s pineapple\n";
			break;
		case DT_ROCKET:
			if (ac->super_damage_finished > 0 && targ->health < -40) {
				double r = g_random(g);

				if (r >= 0.6) {
					g_bprint(g, PRINT_MEDIUM, "%s rips %s a new one\n", an, tn);
					score(g, attacker, targ, 1);
					return;
				}
				s1 = r < 0.3 ? " was brutalized by " : " was smeared by ";
				s2 = "'s quad rocket\n";
			} else {
				s1 = targ->health < -40 ? " was gibbed by " : " rides ";
				s2 = "'s rocket\n";
			}
			break;
		case DT_AXE:
			s1 = " was ax-murdered by ";
			break;
		case DT_SHOTGUN:
			s1 = " chewed on ";
			s2 = "'s boomstick\n";
			break;
		case DT_SUPER_SHOTGUN:
			s1 = " ate 2 loads of ";
			s2 = "'s buckshot\n";
			break;
		case DT_LIGHTNING:
		case DT_DISCHARGE:
			s1 = " accepts ";
			s2 = attacker->waterlevel > 1 ? "'s discharge\n" : "'s shaft\n";
			break;
		default:
			break;
		}
		g_bprint(g, PRINT_MEDIUM, "%s%s%s%s", tn, s1, an, s2);
		score(g, attacker, targ, 1);
		return;
	}
	/* the world killed him */
	const char *how = " died\n";

	if (targ->watertype == CONTENTS_WATER && dt == DT_WATER)
		how = pick(g, " sleeps with the fishes\n", " sucks it down\n");
	else if (targ->watertype == CONTENTS_SLIME && dt == DT_WATER)
		how = pick(g, " gulped a load of slime\n", " can't exist on slime alone\n");
	else if (targ->watertype == CONTENTS_LAVA && dt == DT_WATER)
		how = targ->health < -15 ? " burst into flames\n" :
		      pick(g, " turned into hot slag\n", " visits the Volcano God\n");
	else if (dt == DT_EXPLOBOX)
		how = " blew up\n";
	else if (dt == DT_FALLING)
		how = " fell to his death\n";
	else if (dt == DT_FIREBALL)
		how = " ate a lavaball\n";
	g_bprint(g, PRINT_MEDIUM, "%s%s", tn, how);
	score(g, targ, targ, -1);
}

/* ---- the level's end -------------------------------------------------- */

void player_check_rules(struct game *g, struct game_entity *player)
{
	struct game_client *cl = g_client(g, player);

	if (g->intermission || !cl || g->match.owns_limits)
		return;
	if (g->fraglimit > 0 && cl->frags >= g->fraglimit)
		player_next_level(g);
}

static struct game_entity *find_class(struct game *g, const char *cls)
{
	for (int i = 1; i < g->num_entities; i++)
		if (g->ents[i].inuse && strcmp(g->ents[i].classname, cls) == 0)
			return &g->ents[i];
	return NULL;
}

void player_next_level(struct game *g)
{
	struct game_entity *spot;
	vec3_t org = {0, 0, 0}, ang = {0, 0, 0};

	if (g->intermission)
		return;
	g->changes++;		/* everyone goes to the intermission spot */
	g->intermission = true;
	g->intermission_exit = g->time + 5;
	spot = find_class(g, "info_intermission");
	if (!spot)
		spot = find_class(g, "info_player_start");
	if (!spot)
		spot = find_class(g, "info_player_deathmatch");
	if (spot) {
		vec_copy(spot->obj->origin, org);
		vec_copy(spot->mangle, ang);
	}
	if (g->svc.intermission)
		g->svc.intermission(g->svc.ctx, org, ang);
	for (int s = 0; s < g->max_clients; s++) {
		struct game_entity *p = &g->ents[game_player_entity(g, s)];

		if (!g->clients[s].active)
			continue;
		g->clients[s].intermission = true;
		p->takedamage = false;
		p->obj->solid = SOLID_NOT;
		p->movetype = MOVETYPE_NONE;
		p->modelindex = 0;
		g_link(g, p, false);
	}
}

void player_goto_next_map(struct game *g)
{
	const char *next = g->mapname;
	const char *info = g->svc.infokey ? g->svc.infokey(g->svc.ctx, g->mapname) : NULL;

	if (g->changed_level)
		return;
	if (g->samelevel != 1) {
		if (info && *info)
			next = info;
		else if (g->nextmap[0])
			next = g->nextmap;
	}
	g->changed_level = true;
	if (g->svc.change_level)
		g->svc.change_level(g->svc.ctx, next);
}

void player_intermission_frame(struct game *g)
{
	bool anyone = false;

	if (!g->intermission || g->time < g->intermission_exit)
		return;
	for (int s = 0; s < g->max_clients; s++)
		if (g->clients[s].active && !g->clients[s].spectator)
			anyone = true;
	if (!anyone)
		player_goto_next_map(g);
}
