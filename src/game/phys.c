/*
 * phys.c -- the world phase: thinking, and moving what moves by itself
 * (MVDSV's sv_phys.c, for every movetype but the players' own walk).
 *
 * Design note
 *   Per entity and frame, by movetype:
 *     NONE        think only
 *     NOCLIP      think, then origin and angles advance, nothing clips
 *     PUSH        doors, plats, trains: they move in their own time
 *                 (ltime), which stands still while they are blocked;
 *                 what stands on them or would end up inside them is
 *                 carried, and what cannot be carried blocks them (their
 *                 blocked callback hurts it: crushing), moving back all
 *                 they had carried that step
 *     TOSS        gravity, clipped against the world; lands on a floor
 *                 (normal z > 0.7) and stops
 *     BOUNCE      as TOSS, bouncing off at 1.5 x the normal speed; stops
 *                 on a floor once slower than 60 upwards
 *     FLY         no gravity; FLYMISSILE also uses the missile-sized
 *                 boxes of monsters (MOVE_MISSILE)
 *   A move that hits something calls both touch callbacks (impact).  A
 *   mover that changed place in its think (SUB_CalcMove's snap to the
 *   destination) pushes again so riders follow the snap.
 *   Think: nextthink in (0, time + frametime] fires, with g->time set to
 *   the think time while it runs, as QuakeWorld's SV_RunThink does.
 *
 *   The carried set of a pusher comes from the areanode tree (solid and
 *   trigger lists, the pusher's swept box): QuakeWorld scans every entity
 *   and tests each against the world, which costs O(entities) hull traces
 *   per mover and frame; here only boxes that touch the move are tested.
 *   Objects that are not solid (gibs, corpses) are not in the tree's lists
 *   and are not carried.
 */
#include "internal.h"

#include <math.h>
#include <string.h>

enum { PUSH_MAX_MOVED = 128, THINKS_PER_FRAME = 16 };

#define MAX_VELOCITY 2000.0f
#define STOP_EPSILON 0.1f

bool phys_run_think(struct game *g, struct game_entity *e)
{
	for (int n = 0; n < THINKS_PER_FRAME; n++) {
		double t = e->nextthink, saved = g->time;

		if (t <= 0 || t > g->time + g->frametime || !e->think)
			return e->inuse;
		if (t < g->time)
			t = g->time;
		e->nextthink = 0;
		g->time = t;
		e->think(g, e);
		g->time = saved;
		if (!e->inuse)
			return false;
	}
	return e->inuse;
}

void phys_impact(struct game *g, struct game_entity *e1, struct game_entity *e2)
{
	if (e1->inuse && e1->touch && e1->obj->solid != SOLID_NOT)
		e1->touch(g, e1, e2);
	if (e1->inuse && e2->inuse && e2->touch && e2->obj->solid != SOLID_NOT)
		e2->touch(g, e2, e1);
}

void phys_touch_triggers(struct game *g, struct game_entity *e)
{
	struct world_obj *hits[64];
	int n = world_area_objs(g->world, e->obj->absmin, e->obj->absmax,
				AREA_TRIGGERS, hits, 64);

	if (n > 64)
		n = 64;
	for (int i = 0; i < n; i++) {
		struct game_entity *t = &g->ents[hits[i]->id];

		if (t == e || !t->inuse || !t->touch ||
		    t->obj->solid != SOLID_TRIGGER)
			continue;
		t->touch(g, t, e);
		if (!e->inuse)
			return;
	}
}

static void check_velocity(struct game_entity *e)
{
	for (int k = 0; k < 3; k++) {
		if (isnan(e->velocity[k]))
			e->velocity[k] = 0;
		if (e->velocity[k] > MAX_VELOCITY)
			e->velocity[k] = MAX_VELOCITY;
		else if (e->velocity[k] < -MAX_VELOCITY)
			e->velocity[k] = -MAX_VELOCITY;
	}
}

static void clip_velocity(const vec3_t in, const vec3_t normal, vec3_t out,
			  float overbounce)
{
	float backoff = vec_dot(in, normal) * overbounce;

	for (int k = 0; k < 3; k++) {
		out[k] = in[k] - normal[k] * backoff;
		if (out[k] > -STOP_EPSILON && out[k] < STOP_EPSILON)
			out[k] = 0;
	}
}

/* move e by push, touching triggers on the way; returns the trace */
static void push_entity(struct game *g, struct game_entity *e,
			const vec3_t push, struct trace *tr)
{
	vec3_t end;
	enum move_kind kind = MOVE_NORMAL;

	vec_add(e->obj->origin, push, end);
	if (e->movetype == MOVETYPE_FLYMISSILE)
		kind = MOVE_MISSILE;
	else if (e->obj->solid == SOLID_TRIGGER || e->obj->solid == SOLID_NOT)
		kind = MOVE_NOMONSTERS;
	/* MVDSV: with sv_antilag 2 and sv_antilag_projectiles a player's
	 * tossed and flying things meet the players where it saw them */
	g_antilag_move(g, e->obj->origin, e->obj->mins, e->obj->maxs, end,
		       kind, e, true, tr);
	vec_copy(tr->endpos, e->obj->origin);
	g_link(g, e, true);
	if (tr->ent >= 0 && e->inuse)
		phys_impact(g, e, &g->ents[tr->ent]);
}

static void physics_toss(struct game *g, struct game_entity *e)
{
	struct trace tr;
	vec3_t move;
	float dt = (float)g->frametime;

	if (!phys_run_think(g, e))
		return;
	if (e->velocity[2] > 0)
		e->flags &= ~FL_ONGROUND;
	if (e->flags & FL_ONGROUND)
		return;
	check_velocity(e);
	if (e->movetype != MOVETYPE_FLY && e->movetype != MOVETYPE_FLYMISSILE)
		e->velocity[2] -= g->movevars.gravity * dt;
	vec_ma(e->angles, dt, e->avelocity, e->angles);
	for (int k = 0; k < 3; k++)
		move[k] = e->velocity[k] * dt;
	push_entity(g, e, move, &tr);
	if (tr.fraction == 1.0f || !e->inuse)
		return;
	clip_velocity(e->velocity, tr.plane.normal, e->velocity,
		      e->movetype == MOVETYPE_BOUNCE ? 1.5f : 1.0f);
	if (tr.plane.normal[2] > 0.7f &&
	    (e->velocity[2] < 60 || e->movetype != MOVETYPE_BOUNCE)) {
		e->flags |= FL_ONGROUND;
		e->groundentity = tr.ent >= 0 ? &g->ents[tr.ent] : &g->ents[0];
		vec_set(e->velocity, 0, 0, 0);
		vec_set(e->avelocity, 0, 0, 0);
	}
}

static void physics_noclip(struct game *g, struct game_entity *e)
{
	float dt = (float)g->frametime;

	if (!phys_run_think(g, e))
		return;
	vec_ma(e->angles, dt, e->avelocity, e->angles);
	vec_ma(e->obj->origin, dt, e->velocity, e->obj->origin);
	g_link(g, e, false);
}

static bool stuck(struct game *g, struct game_entity *e)
{
	return world_test_box(g->world, e->obj->origin, e->obj->mins,
			      e->obj->maxs, e->obj);
}

static bool carriable(const struct game_entity *c)
{
	return c->inuse && c->movetype != MOVETYPE_PUSH &&
	       c->movetype != MOVETYPE_NONE && c->movetype != MOVETYPE_NOCLIP;
}

static void relink_moved(struct game *g, struct game_entity *c)
{
	struct game_client *cl = g_client(g, c);

	if (cl)
		vec_copy(c->obj->origin, cl->pm.origin);
	g_touch_player(g, c);
	g_link(g, c, false);
}

/* QuakeWorld's SV_Push: move the pusher by move, carrying what it
 * touches; false (everything put back) when something blocks it */
static bool push_move(struct game *g, struct game_entity *p, const vec3_t move)
{
	struct world_obj *cand[PUSH_MAX_MOVED];
	struct game_entity *moved[PUSH_MAX_MOVED];
	vec3_t moved_from[PUSH_MAX_MOVED];
	vec3_t mins, maxs, qmins, qmaxs, pushorig;
	int num_moved = 0, n, total = 0;
	struct game_entity *list[2 * PUSH_MAX_MOVED];

	for (int k = 0; k < 3; k++) {
		mins[k] = p->obj->absmin[k] + move[k];
		maxs[k] = p->obj->absmax[k] + move[k];
		qmins[k] = fminf(mins[k], p->obj->absmin[k]) - 2;
		qmaxs[k] = fmaxf(maxs[k], p->obj->absmax[k]) + 2;
	}
	/* candidates: anything near the swept box (riders stand on top) */
	n = world_area_objs(g->world, qmins, qmaxs, AREA_SOLID, cand, PUSH_MAX_MOVED);
	for (int i = 0; i < n && i < PUSH_MAX_MOVED; i++)
		list[total++] = &g->ents[cand[i]->id];
	n = world_area_objs(g->world, qmins, qmaxs, AREA_TRIGGERS, cand, PUSH_MAX_MOVED);
	for (int i = 0; i < n && i < PUSH_MAX_MOVED; i++)
		list[total++] = &g->ents[cand[i]->id];

	vec_copy(p->obj->origin, pushorig);
	vec_add(p->obj->origin, move, p->obj->origin);
	g_link(g, p, false);

	for (int i = 0; i < total; i++) {
		struct game_entity *c = list[i];
		bool block;

		if (c == p || !carriable(c))
			continue;
		/* already stuck in something else: leave it alone */
		p->obj->solid = SOLID_NOT;
		block = stuck(g, c);
		p->obj->solid = SOLID_BSP;
		if (block)
			continue;
		if (!((c->flags & FL_ONGROUND) && c->groundentity == p)) {
			if (c->obj->absmin[0] >= maxs[0] || c->obj->absmin[1] >= maxs[1] ||
			    c->obj->absmin[2] >= maxs[2] || c->obj->absmax[0] <= mins[0] ||
			    c->obj->absmax[1] <= mins[1] || c->obj->absmax[2] <= mins[2])
				continue;
			if (!stuck(g, c))
				continue;
		}
		if (num_moved == PUSH_MAX_MOVED)
			break;
		vec_copy(c->obj->origin, moved_from[num_moved]);
		moved[num_moved++] = c;
		vec_add(c->obj->origin, move, c->obj->origin);
		if (!stuck(g, c)) {
			relink_moved(g, c);
			continue;
		}
		/* it may stay where it was */
		vec_sub(c->obj->origin, move, c->obj->origin);
		if (!stuck(g, c)) {
			num_moved--;
			continue;
		}
		if (c->obj->mins[0] == c->obj->maxs[0]) {
			relink_moved(g, c);
			continue;
		}
		if (c->obj->solid == SOLID_NOT || c->obj->solid == SOLID_TRIGGER) {
			/* a corpse or an item: squash its box */
			c->obj->mins[0] = c->obj->mins[1] = 0;
			vec_copy(c->obj->mins, c->obj->maxs);
			relink_moved(g, c);
			continue;
		}
		/* blocked: the pusher goes back, then hurts what blocks it */
		vec_copy(pushorig, p->obj->origin);
		g_link(g, p, false);
		for (int j = 0; j < num_moved; j++) {
			vec_copy(moved_from[j], moved[j]->obj->origin);
			relink_moved(g, moved[j]);
		}
		if (p->blocked)
			p->blocked(g, p, c);
		return false;
	}
	return true;
}

static void push_for(struct game *g, struct game_entity *p, float movetime)
{
	vec3_t move;

	if (p->velocity[0] == 0 && p->velocity[1] == 0 && p->velocity[2] == 0) {
		p->ltime += movetime;
		return;
	}
	for (int k = 0; k < 3; k++)
		move[k] = p->velocity[k] * movetime;
	if (push_move(g, p, move))
		p->ltime += movetime;
}

static void physics_pusher(struct game *g, struct game_entity *e)
{
	double oldltime = e->ltime, thinktime = e->nextthink;
	double movetime;

	if (thinktime < e->ltime + g->frametime) {
		movetime = thinktime - e->ltime;
		if (movetime < 0)
			movetime = 0;
	} else {
		movetime = g->frametime;
	}
	if (movetime > 0)
		push_for(g, e, (float)movetime);
	if (thinktime > oldltime && thinktime <= e->ltime && e->think) {
		vec3_t oldorg, move;

		vec_copy(e->obj->origin, oldorg);
		e->nextthink = 0;
		e->think(g, e);
		if (!e->inuse)
			return;
		vec_sub(e->obj->origin, oldorg, move);
		if (g_vlen(move) > 1.0f / 64) {
			vec_copy(oldorg, e->obj->origin);
			g_link(g, e, false);
			push_move(g, e, move);
		}
	}
}

void phys_run_entity(struct game *g, struct game_entity *e)
{
	switch (e->movetype) {
	case MOVETYPE_PUSH:
		physics_pusher(g, e);
		break;
	case MOVETYPE_NONE:
	case MOVETYPE_WALK:
		phys_run_think(g, e);
		break;
	case MOVETYPE_NOCLIP:
		physics_noclip(g, e);
		break;
	case MOVETYPE_TOSS:
	case MOVETYPE_BOUNCE:
	case MOVETYPE_FLY:
	case MOVETYPE_FLYMISSILE:
		physics_toss(g, e);
		break;
	default:
		break;
	}
}

/* QuakeC's droptofloor: down at most 256 units onto something solid */
bool phys_droptofloor(struct game *g, struct game_entity *e)
{
	struct trace tr;
	vec3_t end;

	vec_copy(e->obj->origin, end);
	end[2] -= 256;
	world_move(g->world, e->obj->origin, e->obj->mins, e->obj->maxs, end,
		   MOVE_NORMAL, e->obj, &tr);
	if (tr.fraction == 1.0f || tr.allsolid)
		return false;
	vec_copy(tr.endpos, e->obj->origin);
	g_link(g, e, false);
	e->flags |= FL_ONGROUND;
	e->groundentity = tr.ent >= 0 ? &g->ents[tr.ent] : &g->ents[0];
	return true;
}
