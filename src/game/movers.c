/*
 * movers.c -- what the brush entities that move share, and the one entry
 * point that spawns every mover, trigger and misc.qc entity by class.
 *
 * Design note
 *   The map's entities beyond items (items.c), weapons' projectiles
 *   (weapons.c) and players (player.c) are id's doors.qc, plats.qc,
 *   buttons.qc, triggers.qc and misc.qc, one file a subject:
 *     doors.c     func_door (linked groups and their trigger field),
 *                 func_door_secret, func_button
 *     plats.c     func_plat, func_train and its path_corners, func_wall,
 *                 func_illusionary, the episode and boss gates
 *     triggers.c  trigger_* and info_teleport_destination
 *     misc.c      ambient sounds, lights, fireballs, exploding boxes,
 *                 traps, the info_ markers
 *   movers_spawn asks each in turn; a class name belongs to one of them.
 *   Everything that moves does it through sub_calc_move (QuakeC's
 *   SUB_CalcMove): a velocity that reaches the destination in a whole
 *   number of the mover's own time (ltime), then a think that snaps it
 *   there and calls the next step.  Brush models have their origin at 0
 *   and bounds in world units, so "mins" of QuakeC is the model's mins
 *   here.  Spawning happens at level load only: nothing here is on the
 *   frame's path but the thinks the movers schedule.
 */
#include "internal.h"

void mover_model_bounds(struct game *g, struct game_entity *e, vec3_t mins,
			vec3_t maxs)
{
	const struct bsp_model *m = &g->map->models[e->obj->model > 0 ? e->obj->model : 0];

	vec_copy(m->mins, mins);
	vec_copy(m->maxs, maxs);
}

/* QuakeC's SetMovedir: angle -1 is up, -2 down, else the facing */
void mover_set_movedir(struct game_entity *e)
{
	if (e->angles[0] == 0 && e->angles[1] == -1 && e->angles[2] == 0)
		vec_set(e->movedir, 0, 0, 1);
	else if (e->angles[0] == 0 && e->angles[1] == -2 && e->angles[2] == 0)
		vec_set(e->movedir, 0, 0, -1);
	else
		g_makevectors(e->angles, e->movedir, NULL, NULL);
	vec_set(e->angles, 0, 0, 0);
}

static void calc_move_done(struct game *g, struct game_entity *e)
{
	g_setorigin(g, e, e->finaldest);
	vec_set(e->velocity, 0, 0, 0);
	e->nextthink = -1;
	if (e->think1)
		e->think1(g, e);
}

void sub_calc_move(struct game *g, struct game_entity *e, const vec3_t dest,
		   float speed, game_think_fn done)
{
	vec3_t delta;
	float len, traveltime;

	(void)g;
	e->think1 = done;
	vec_copy(dest, e->finaldest);
	e->think = calc_move_done;
	vec_sub(dest, e->obj->origin, delta);
	len = g_vlen(delta);
	traveltime = speed > 0 ? len / speed : 0;
	if (len == 0 || traveltime < 0.1f) {
		vec_set(e->velocity, 0, 0, 0);
		e->nextthink = e->ltime + 0.1;
		return;
	}
	e->nextthink = e->ltime + traveltime;
	for (int k = 0; k < 3; k++)
		e->velocity[k] = delta[k] / traveltime;
}

void mover_brush_setup(struct game *g, struct game_entity *e, int solid,
		       int movetype)
{
	int sub = e->obj->model;

	e->obj->solid = solid;
	e->movetype = movetype;
	if (sub > 0)
		g_set_brush_model(g, e, sub);
	else
		g_link(g, e, false);
}

/* a looping sound where it stands, sent once in the signon */
void mover_static_sound(struct game *g, const vec3_t org, const char *name,
			float vol)
{
	int s = g_precache_sound(g, name);

	if (g->svc.static_sound && s > 0)
		g->svc.static_sound(g->svc.ctx, org, s, vol, GAME_ATTN_STATIC);
}

bool movers_spawn(struct game *g, struct game_entity *e, const char *cls)
{
	return doors_spawn(g, e, cls) || plats_spawn(g, e, cls) ||
	       triggers_spawn(g, e, cls) || misc_spawn(g, e, cls);
}
