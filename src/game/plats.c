/*
 * plats.c -- plats, trains and walls (id's plats.qc, func_wall and the
 * gates of misc.qc).
 *
 * Design note
 *   The numbers are id's:
 *     plat    speed 150, starts at the bottom (pos2 = top - height + 8, or
 *             - "height"); a trigger over it sends it up, it waits 3 s at
 *             the top, then goes down; standing on it at the top delays
 *             that by 1 s; blocked, it hurts 1 and reverses
 *     train   speed 100, dmg 2 (at most every 0.5 s when blocked); moves
 *             its mins corner from path_corner to path_corner, waiting
 *             each corner's wait
 *   func_episodegate is absent and func_bossgate a wall, as with the
 *   serverflags of a deathmatch server (0).
 */
#include "internal.h"

#include <string.h>

enum { PLAT_LOW_TRIGGER = 1 };

/* ---- plats ------------------------------------------------------------ */

static void plat_go_down(struct game *g, struct game_entity *self);

static void plat_hit_bottom(struct game *g, struct game_entity *self)
{
	g_sound(g, self, GAME_CHAN_VOICE, self->noise1, 1, GAME_ATTN_NORM);
	self->state = STATE_BOTTOM;
}

static void plat_go_down(struct game *g, struct game_entity *self)
{
	g_sound(g, self, GAME_CHAN_VOICE, self->noise, 1, GAME_ATTN_NORM);
	self->state = STATE_DOWN;
	sub_calc_move(g, self, self->pos2, self->speed, plat_hit_bottom);
}

static void plat_hit_top(struct game *g, struct game_entity *self)
{
	g_sound(g, self, GAME_CHAN_VOICE, self->noise1, 1, GAME_ATTN_NORM);
	self->state = STATE_TOP;
	self->think = plat_go_down;
	self->nextthink = self->ltime + 3;
}

static void plat_go_up(struct game *g, struct game_entity *self)
{
	g_sound(g, self, GAME_CHAN_VOICE, self->noise, 1, GAME_ATTN_NORM);
	self->state = STATE_UP;
	sub_calc_move(g, self, self->pos1, self->speed, plat_hit_top);
}

static void plat_center_touch(struct game *g, struct game_entity *self,
			      struct game_entity *other)
{
	struct game_entity *plat = self->enemy;

	if (!g_is_player(other) || other->health <= 0)
		return;
	if (plat->state == STATE_BOTTOM)
		plat_go_up(g, plat);
	else if (plat->state == STATE_TOP)
		plat->nextthink = plat->ltime + 1;
}

static void plat_crush(struct game *g, struct game_entity *self,
		       struct game_entity *other)
{
	combat_damage(g, other, self, self, 1, DT_SQUISH);
	if (self->state == STATE_UP)
		plat_go_down(g, self);
	else if (self->state == STATE_DOWN)
		plat_go_up(g, self);
}

static void plat_use(struct game *g, struct game_entity *self,
		     struct game_entity *activator)
{
	(void)activator;
	self->use = NULL;
	if (self->state == STATE_UP)
		plat_go_down(g, self);
}

static void spawn_plat(struct game *g, struct game_entity *e)
{
	vec3_t mins, maxs, tmin, tmax;
	struct game_entity *t;

	if (e->sounds == 0)
		e->sounds = 2;
	if (e->sounds == 1) {
		e->noise = g_precache_sound(g, "plats/plat1.wav");
		e->noise1 = g_precache_sound(g, "plats/plat2.wav");
	} else {
		e->noise = g_precache_sound(g, "plats/medplat1.wav");
		e->noise1 = g_precache_sound(g, "plats/medplat2.wav");
	}
	vec_copy(e->angles, e->mangle);
	vec_set(e->angles, 0, 0, 0);
	mover_brush_setup(g, e, SOLID_BSP, MOVETYPE_PUSH);
	e->classname = "plat";
	e->blocked = plat_crush;
	if (e->speed == 0)
		e->speed = 150;
	mover_model_bounds(g, e, mins, maxs);
	vec_copy(e->obj->origin, e->pos1);
	vec_copy(e->obj->origin, e->pos2);
	if (e->height != 0)
		e->pos2[2] = e->obj->origin[2] - e->height;
	else
		e->pos2[2] = e->obj->origin[2] - (maxs[2] - mins[2]) + 8;

	/* the trigger that starts it: over the plat, down its whole travel */
	t = g_spawn(g);
	if (t) {
		t->classname = "plat_trigger";
		t->touch = plat_center_touch;
		t->movetype = MOVETYPE_NONE;
		t->obj->solid = SOLID_TRIGGER;
		t->enemy = e;
		vec_set(tmin, mins[0] + 25, mins[1] + 25, 0);
		vec_set(tmax, maxs[0] - 25, maxs[1] - 25, maxs[2] + 8);
		tmin[2] = tmax[2] - (e->pos1[2] - e->pos2[2] + 8);
		if (e->spawnflags & PLAT_LOW_TRIGGER)
			tmax[2] = tmin[2] + 8;
		if (maxs[0] - mins[0] <= 50) {
			tmin[0] = (mins[0] + maxs[0]) / 2;
			tmax[0] = tmin[0] + 1;
		}
		if (maxs[1] - mins[1] <= 50) {
			tmin[1] = (mins[1] + maxs[1]) / 2;
			tmax[1] = tmin[1] + 1;
		}
		g_setsize(g, t, tmin, tmax);
	}
	if (e->targetname) {
		e->state = STATE_UP;
		e->use = plat_use;
	} else {
		g_setorigin(g, e, e->pos2);
		e->state = STATE_BOTTOM;
	}
}

/* ---- trains ----------------------------------------------------------- */

static void train_next(struct game *g, struct game_entity *self);

static void train_wait(struct game *g, struct game_entity *self)
{
	if (self->wait != 0) {
		self->nextthink = self->ltime + self->wait;
		g_sound(g, self, GAME_CHAN_VOICE, self->noise, 1, GAME_ATTN_NORM);
	} else {
		self->nextthink = self->ltime + 0.1;
	}
	self->think = train_next;
}

static void train_next(struct game *g, struct game_entity *self)
{
	struct game_entity *t = g_find_target(g, NULL, self->target);
	vec3_t mins, maxs, dest;

	if (!t) {
		g_logf(g, QWD_LOG_WARN, "%s: func_train: no path_corner named %s",
		       g->mapname, self->target ? self->target : "");
		return;
	}
	self->target = t->target;
	self->wait = t->wait;
	g_sound(g, self, GAME_CHAN_VOICE, self->noise1, 1, GAME_ATTN_NORM);
	mover_model_bounds(g, self, mins, maxs);
	vec_sub(t->obj->origin, mins, dest);
	sub_calc_move(g, self, dest, self->speed, train_wait);
}

static void train_find(struct game *g, struct game_entity *self)
{
	struct game_entity *t = g_find_target(g, NULL, self->target);
	vec3_t mins, maxs, org;

	if (!t) {
		g_logf(g, QWD_LOG_WARN, "%s: func_train: no path_corner named %s",
		       g->mapname, self->target ? self->target : "");
		return;
	}
	self->target = t->target;
	mover_model_bounds(g, self, mins, maxs);
	vec_sub(t->obj->origin, mins, org);
	g_setorigin(g, self, org);
	if (!self->targetname) {
		self->nextthink = self->ltime + 0.1;
		self->think = train_next;
	}
}

static void train_use(struct game *g, struct game_entity *self,
		      struct game_entity *activator)
{
	(void)activator;
	if (self->think != train_find)
		return;
	train_next(g, self);
}

static void train_blocked(struct game *g, struct game_entity *self,
			  struct game_entity *other)
{
	if (g->time < self->attack_finished)
		return;
	self->attack_finished = g->time + 0.5;
	combat_damage(g, other, self, self, self->dmg, DT_SQUISH);
}

static void spawn_train(struct game *g, struct game_entity *e)
{
	if (e->speed == 0)
		e->speed = 100;
	if (e->dmg == 0)
		e->dmg = 2;
	if (e->sounds == 1) {
		e->noise = g_precache_sound(g, "plats/train2.wav");
		e->noise1 = g_precache_sound(g, "plats/train1.wav");
	} else {
		e->noise = e->noise1 = g_precache_sound(g, "misc/null.wav");
	}
	mover_brush_setup(g, e, SOLID_BSP, MOVETYPE_PUSH);
	e->classname = "train";
	e->blocked = train_blocked;
	e->use = train_use;
	if (!e->target) {
		g_logf(g, QWD_LOG_WARN, "%s: func_train without a target", g->mapname);
		return;
	}
	e->nextthink = e->ltime + 0.1;
	e->think = train_find;
}

/* ---- walls ------------------------------------------------------------ */

static void wall_use(struct game *g, struct game_entity *self,
		     struct game_entity *activator)
{
	(void)g;
	(void)activator;
	self->frame = 1 - self->frame;
}

bool plats_spawn(struct game *g, struct game_entity *e, const char *cls)
{
	if (strcmp(cls, "func_plat") == 0) {
		spawn_plat(g, e);
	} else if (strcmp(cls, "func_train") == 0) {
		spawn_train(g, e);
	} else if (strcmp(cls, "path_corner") == 0) {
		e->obj->solid = SOLID_NOT;
		g_link(g, e, false);
	} else if (strcmp(cls, "func_episodegate") == 0) {
		/* there only once its episode is done (serverflags, which a
		 * deathmatch server never sets): never here */
		g_remove(g, e);
	} else if (strcmp(cls, "func_wall") == 0 ||
		   strcmp(cls, "func_bossgate") == 0) {
		/* the boss gate stands until all four sigils (never in dm) */
		vec_set(e->angles, 0, 0, 0);
		mover_brush_setup(g, e, SOLID_BSP, MOVETYPE_PUSH);
		e->use = wall_use;
	} else if (strcmp(cls, "func_illusionary") == 0) {
		vec_set(e->angles, 0, 0, 0);
		mover_brush_setup(g, e, SOLID_NOT, MOVETYPE_NONE);
		e->is_static = true;
	} else {
		return false;
	}
	return true;
}
