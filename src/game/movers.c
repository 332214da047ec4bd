/*
 * movers.c -- brush entities that move or trigger: doors, plats, buttons,
 * trains and their path corners, walls, and the trigger volumes
 * (multiple/once, relay, teleport, push, hurt, changelevel).
 *
 * Design note
 *   Everything that moves does it through sub_calc_move (QuakeC's
 *   SUB_CalcMove): a velocity that reaches the destination in a whole
 *   number of the mover's own time (ltime), then a think that snaps it
 *   there and calls the next step.  The numbers are id's (doors.qc,
 *   plats.qc, buttons.qc, triggers.qc):
 *     door    speed 100, wait 3 (-1: stays open), lip 8, dmg 2 when
 *             blocked (then it reverses); opened by a trigger field 60
 *             units around its linked group (doors whose boxes touch move
 *             together), unless it is shootable or targeted
 *     plat    speed 150, starts at the bottom (pos2 = top - height + 8, or
 *             - "height"); a trigger over it sends it up, it waits 3 s at
 *             the top, then goes down; standing on it at the top delays
 *             that by 1 s; blocked, it hurts 1 and reverses
 *     secret  func_door_secret: speed 50, out sideways (or down), along,
 *             back after 5 s; opened by use or by a shot
 *     button  speed 40, wait 1, lip 4; pressed by touch (or damage if it
 *             has health), fires its targets at the end of its travel
 *     train   speed 100, dmg 2 (at most every 0.5 s when blocked); moves
 *             its mins corner from path_corner to path_corner, waiting
 *             each corner's wait
 *     triggers: multiple (wait 0.2), once, relay, counter (fires after
 *             count uses, default 2), teleport (player out at the
 *             destination + 27 units up, facing its angle, 300 u/s
 *             forward, 0.7 s without control), push (speed 1000, x 10),
 *             hurt (dmg 5 at most once a second), changelevel (only
 *             names the next map in deathmatch), secret (a trigger_once
 *             that counts: total at spawn, found and svc_foundsecret
 *             when a player fires it, "You found a secret area!" and
 *             misc/secret.wav by default), monsterjump (monsters only:
 *             inert), onlyregistered (fires when "registered" is set),
 *             setskill (removed)
 *   And the rest of id's misc.qc a deathmatch map uses: ambient_* and
 *   the humming, crackling lights become static sounds in the signon,
 *   torches, flames and globes static models; a targeted light with a
 *   style of 32 or more toggles it between "m" and "a" (svc_lightstyle);
 *   other lights, info_null and air_bubbles are removed as id removes
 *   them; misc_explobox(2) blows up for 160 when shot to 20 damage;
 *   misc_fireball throws lava balls; func_episodegate is absent and
 *   func_bossgate a wall, as with the serverflags of a deathmatch server
 *   (0).
 *   Brush models have their origin at 0 and bounds in world units, so
 *   "mins" of QuakeC is the model's mins here.
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum {
	DOOR_START_OPEN = 1, DOOR_DONT_LINK = 4, DOOR_GOLD_KEY = 8,
	DOOR_SILVER_KEY = 16, DOOR_TOGGLE = 32,
	PLAT_LOW_TRIGGER = 1, TELEPORT_PLAYER_ONLY = 2, TELEPORT_SILENT = 2,
	PUSH_ONCE = 1,
	TRIGGER_NOTOUCH = 1
};

static void model_bounds(struct game *g, struct game_entity *e, vec3_t mins,
			 vec3_t maxs)
{
	const struct bsp_model *m = &g->map->models[e->obj->model > 0 ? e->obj->model : 0];

	vec_copy(m->mins, mins);
	vec_copy(m->maxs, maxs);
}

/* QuakeC's SetMovedir: angle -1 is up, -2 down, else the facing */
static void set_movedir(struct game_entity *e)
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

static void brush_setup(struct game *g, struct game_entity *e, int solid,
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

/* ---- doors ------------------------------------------------------------ */

static void door_go_down(struct game *g, struct game_entity *self);
static void door_go_up(struct game *g, struct game_entity *self,
		       struct game_entity *activator);

static void door_hit_bottom(struct game *g, struct game_entity *self)
{
	g_sound(g, self, GAME_CHAN_VOICE, self->noise1, 1, GAME_ATTN_NORM);
	self->state = STATE_BOTTOM;
}

static void door_go_down(struct game *g, struct game_entity *self)
{
	g_sound(g, self, GAME_CHAN_VOICE, self->noise2, 1, GAME_ATTN_NORM);
	if (self->max_health > 0) {
		self->takedamage = true;
		self->health = self->max_health;
	}
	self->state = STATE_DOWN;
	sub_calc_move(g, self, self->pos1, self->speed, door_hit_bottom);
}

static void door_hit_top(struct game *g, struct game_entity *self)
{
	g_sound(g, self, GAME_CHAN_VOICE, self->noise1, 1, GAME_ATTN_NORM);
	self->state = STATE_TOP;
	if (self->spawnflags & DOOR_TOGGLE)
		return;
	self->think = door_go_down;
	self->nextthink = self->ltime + self->wait;
}

static void door_go_up(struct game *g, struct game_entity *self,
		       struct game_entity *activator)
{
	if (self->state == STATE_UP)
		return;
	if (self->state == STATE_TOP) {
		self->nextthink = self->ltime + self->wait;
		return;
	}
	g_sound(g, self, GAME_CHAN_VOICE, self->noise2, 1, GAME_ATTN_NORM);
	self->state = STATE_UP;
	sub_calc_move(g, self, self->pos2, self->speed, door_hit_top);
	g_use_targets(g, self, activator);
}

/* all doors of the linked group (a loop through enemy) move together */
static void door_fire(struct game *g, struct game_entity *self,
		      struct game_entity *activator)
{
	struct game_entity *e = self->owner ? self->owner : self;
	struct game_entity *start = e;
	int guard = 0;

	e->message = NULL;
	if (e->spawnflags & DOOR_TOGGLE &&
	    (e->state == STATE_UP || e->state == STATE_TOP)) {
		do {
			door_go_down(g, e);
			e = e->enemy;
		} while (e && e != start && e->num != 0 && ++guard < 256);
		return;
	}
	do {
		e->chain = activator;	/* QuakeC's goalentity: who opened it */
		door_go_up(g, e, activator);
		e = e->enemy;
	} while (e && e != start && e->num != 0 && ++guard < 256);
}

static void door_use(struct game *g, struct game_entity *self,
		     struct game_entity *activator)
{
	self->message = NULL;
	if (self->owner)
		self->owner->message = NULL;
	door_fire(g, self, activator);
}

static void door_trigger_touch(struct game *g, struct game_entity *self,
			       struct game_entity *other)
{
	if (other->health <= 0)
		return;
	if (g->time < self->attack_finished)
		return;
	self->attack_finished = g->time + 1;
	door_use(g, self->owner, other);
}

static void door_touch(struct game *g, struct game_entity *self,
		       struct game_entity *other)
{
	static const char *const need[3][2] = {
		{"You need the silver key", "You need the gold key"},
		{"You need the silver runekey", "You need the gold runekey"},
		{"You need the silver keycard", "You need the gold keycard"}};
	struct game_entity *o = self->owner ? self->owner : self;

	if (!g_is_player(other) || o->attack_finished > g->time)
		return;
	o->attack_finished = g->time + 2;
	if (o->message && *o->message) {
		g_centerprint(g, other, o->message);
		g_sound(g, other, GAME_CHAN_VOICE, g->s_talk, 1, GAME_ATTN_NORM);
	}
	if (!o->items)
		return;
	/* a key door: opened once by a player who has its key, which he
	 * gives up */
	if ((o->items & other->items) != o->items) {
		g_centerprint(g, other, need[g->worldtype][o->items == IT_KEY2]);
		g_sound(g, self, GAME_CHAN_ITEM, self->noise3, 1, GAME_ATTN_NORM);
		return;
	}
	other->items &= ~o->items;
	self->touch = NULL;
	if (self->enemy)
		self->enemy->touch = NULL;
	g_sound(g, self, GAME_CHAN_ITEM, o->noise, 1, GAME_ATTN_NORM);
	door_use(g, o, other);
}

static void door_blocked(struct game *g, struct game_entity *self,
			 struct game_entity *other)
{
	combat_damage(g, other, self, self->chain ? self->chain : self,
		      self->dmg, DT_SQUISH);
	if (self->wait >= 0) {
		if (self->state == STATE_DOWN)
			door_go_up(g, self, self->chain);
		else
			door_go_down(g, self);
	}
}

static void door_killed(struct game *g, struct game_entity *self,
			struct game_entity *attacker)
{
	struct game_entity *o = self->owner ? self->owner : self;

	o->health = o->max_health;
	o->takedamage = false;
	door_use(g, o, attacker);
}

static void door_sounds(struct game *g, struct game_entity *e)
{
	static const char *const stop[] = {"misc/null.wav", "doors/drclos4.wav",
		"doors/hydro2.wav", "doors/stndr2.wav", "doors/ddoor2.wav"};
	static const char *const move[] = {"misc/null.wav", "doors/doormv1.wav",
		"doors/hydro1.wav", "doors/stndr1.wav", "doors/ddoor1.wav"};
	int s = e->sounds >= 0 && e->sounds <= 4 ? e->sounds : 0;

	e->noise1 = g_precache_sound(g, stop[s]);
	e->noise2 = g_precache_sound(g, move[s]);
}

/* the sounds of a key door: trying without the key, opening with it */
static void door_key_sounds(struct game *g, struct game_entity *e)
{
	static const char *const try_[3] = {"doors/medtry.wav", "doors/runetry.wav",
		"doors/basetry.wav"};
	static const char *const use[3] = {"doors/meduse.wav", "doors/runeuse.wav",
		"doors/baseuse.wav"};

	e->noise3 = g_precache_sound(g, try_[g->worldtype]);
	e->noise = g_precache_sound(g, use[g->worldtype]);
}

static void spawn_door(struct game *g, struct game_entity *e)
{
	vec3_t mins, maxs, size;

	set_movedir(e);
	e->max_health = e->health;
	brush_setup(g, e, SOLID_BSP, MOVETYPE_PUSH);
	e->classname = "door";
	door_sounds(g, e);
	e->blocked = door_blocked;
	e->use = door_use;
	e->touch = door_touch;
	if (e->speed == 0)
		e->speed = 100;
	if (e->wait == 0)
		e->wait = 3;
	if (e->lip == 0)
		e->lip = 8;
	if (e->dmg == 0)
		e->dmg = 2;
	model_bounds(g, e, mins, maxs);
	vec_sub(maxs, mins, size);
	vec_copy(e->obj->origin, e->pos1);
	vec_ma(e->pos1, fabsf(vec_dot(e->movedir, size)) - e->lip, e->movedir, e->pos2);
	if (e->spawnflags & DOOR_START_OPEN) {
		g_setorigin(g, e, e->pos2);
		vec_copy(e->pos1, e->pos2);
		vec_copy(e->obj->origin, e->pos1);
	}
	e->state = STATE_BOTTOM;
	if (e->health > 0) {
		e->takedamage = true;
		e->die = door_killed;
	}
	if (e->spawnflags & (DOOR_SILVER_KEY | DOOR_GOLD_KEY)) {
		e->items = e->spawnflags & DOOR_GOLD_KEY ? IT_KEY2 : IT_KEY1;
		e->wait = -1;
		door_key_sounds(g, e);
	}
}

static bool boxes_touch(const vec3_t amin, const vec3_t amax,
			const vec3_t bmin, const vec3_t bmax)
{
	for (int k = 0; k < 3; k++)
		if (amin[k] > bmax[k] || amax[k] < bmin[k])
			return false;
	return true;
}

static void spawn_field(struct game *g, struct game_entity *owner,
			const vec3_t cmins, const vec3_t cmaxs)
{
	struct game_entity *t = g_spawn(g);
	vec3_t mins, maxs;

	if (!t)
		return;
	t->classname = "door_trigger";
	t->movetype = MOVETYPE_NONE;
	t->obj->solid = SOLID_TRIGGER;
	t->owner = owner;
	t->touch = door_trigger_touch;
	vec_set(mins, cmins[0] - 60, cmins[1] - 60, cmins[2] - 8);
	vec_set(maxs, cmaxs[0] + 60, cmaxs[1] + 60, cmaxs[2] + 8);
	g_setsize(g, t, mins, maxs);
}

/* QuakeC's LinkDoors, once all doors exist: doors whose boxes touch form
 * a loop through enemy with the first as owner; a group that is not
 * shootable nor targeted gets a trigger field around it. */
void movers_link_doors(struct game *g)
{
	for (int i = 1; i < g->num_entities; i++) {
		struct game_entity *self = &g->ents[i];
		vec3_t cmins, cmaxs;
		bool shootable = false, targeted = false, keyed = false;

		if (!self->inuse || strcmp(self->classname, "door") != 0 || self->enemy)
			continue;
		if (self->spawnflags & DOOR_DONT_LINK) {
			self->owner = self->enemy = self;
			continue;
		}
		model_bounds(g, self, cmins, cmaxs);
		struct game_entity *last = self;

		self->owner = self;
		shootable = self->health > 0;
		targeted = self->targetname != NULL;
		keyed = self->items != 0;
		/* grow the group until no other door touches it */
		for (bool grew = true; grew;) {
			grew = false;
			for (int j = i + 1; j < g->num_entities; j++) {
				struct game_entity *t = &g->ents[j];
				vec3_t tmins, tmaxs;

				if (!t->inuse || t->owner || strcmp(t->classname, "door") != 0 ||
				    (t->spawnflags & DOOR_DONT_LINK))
					continue;
				model_bounds(g, t, tmins, tmaxs);
				if (!boxes_touch(cmins, cmaxs, tmins, tmaxs))
					continue;
				t->owner = self;
				last->enemy = t;
				last = t;
				if (t->health > 0) {
					self->health = t->health;
					shootable = true;
				}
				if (t->targetname) {
					self->targetname = t->targetname;
					targeted = true;
				}
				if (t->message && *t->message)
					self->message = t->message;
				keyed |= t->items != 0;
				for (int k = 0; k < 3; k++) {
					cmins[k] = fminf(cmins[k], tmins[k]);
					cmaxs[k] = fmaxf(cmaxs[k], tmaxs[k]);
				}
				grew = true;
			}
		}
		last->enemy = self;
		if (!shootable && !targeted && !keyed)
			spawn_field(g, self, cmins, cmaxs);
	}
}

/* ---- secret doors ------------------------------------------------------ */

/* func_door_secret (doors.qc): on use, damage or a shot it backs out
 * sideways (or down), then slides along its facing, waits (5 s), and
 * returns the same way; speed 50, a second's pause between legs. */
enum { SECRET_OPEN_ONCE = 1, SECRET_1ST_LEFT = 2, SECRET_1ST_DOWN = 4,
       SECRET_NO_SHOOT = 8, SECRET_YES_SHOOT = 16 };

static void secret_use(struct game *g, struct game_entity *self,
		       struct game_entity *activator);

static bool secret_shootable(const struct game_entity *e)
{
	return !e->targetname || (e->spawnflags & SECRET_YES_SHOOT);
}

static void secret_pain(struct game *g, struct game_entity *self,
			struct game_entity *attacker)
{
	secret_use(g, self, attacker);
}

static void secret_done(struct game *g, struct game_entity *self)
{
	if (secret_shootable(self)) {
		self->health = 10000;
		self->takedamage = true;
		self->pain = secret_pain;
	}
	g_sound(g, self, GAME_CHAN_VOICE, self->noise3, 1, GAME_ATTN_NORM);
}

static void secret_move6(struct game *g, struct game_entity *self)
{
	g_sound(g, self, GAME_CHAN_VOICE, self->noise2, 1, GAME_ATTN_NORM);
	sub_calc_move(g, self, self->oldorigin, self->speed, secret_done);
}

static void secret_move5(struct game *g, struct game_entity *self)
{
	self->nextthink = self->ltime + 1.0;
	self->think = secret_move6;
	g_sound(g, self, GAME_CHAN_VOICE, self->noise3, 1, GAME_ATTN_NORM);
}

static void secret_move4(struct game *g, struct game_entity *self)
{
	g_sound(g, self, GAME_CHAN_VOICE, self->noise2, 1, GAME_ATTN_NORM);
	sub_calc_move(g, self, self->dest1, self->speed, secret_move5);
}

static void secret_move3(struct game *g, struct game_entity *self)
{
	g_sound(g, self, GAME_CHAN_VOICE, self->noise3, 1, GAME_ATTN_NORM);
	if (!(self->spawnflags & SECRET_OPEN_ONCE)) {
		self->nextthink = self->ltime + self->wait;
		self->think = secret_move4;
	}
}

static void secret_move2(struct game *g, struct game_entity *self)
{
	g_sound(g, self, GAME_CHAN_VOICE, self->noise2, 1, GAME_ATTN_NORM);
	sub_calc_move(g, self, self->dest2, self->speed, secret_move3);
}

static void secret_move1(struct game *g, struct game_entity *self)
{
	self->nextthink = self->ltime + 1.0;
	self->think = secret_move2;
	g_sound(g, self, GAME_CHAN_VOICE, self->noise3, 1, GAME_ATTN_NORM);
}

static void secret_use(struct game *g, struct game_entity *self,
		       struct game_entity *activator)
{
	vec3_t fwd, right, up, mins, maxs, size;
	float side = self->spawnflags & SECRET_1ST_LEFT ? -1.0f : 1.0f;

	self->health = 10000;
	if (!vec_equal(self->obj->origin, self->oldorigin))
		return;		/* still moving */
	self->message = NULL;
	g_use_targets(g, self, activator);
	if (!(self->spawnflags & SECRET_NO_SHOOT)) {
		self->pain = NULL;
		self->takedamage = false;
	}
	vec_set(self->velocity, 0, 0, 0);
	g_sound(g, self, GAME_CHAN_VOICE, self->noise1, 1, GAME_ATTN_NORM);
	g_makevectors(self->mangle, fwd, right, up);
	model_bounds(g, self, mins, maxs);
	vec_sub(maxs, mins, size);
	if (self->t_width == 0)
		self->t_width = fabsf(vec_dot(self->spawnflags & SECRET_1ST_DOWN ? up : right, size));
	if (self->t_length == 0)
		self->t_length = fabsf(vec_dot(fwd, size));
	if (self->spawnflags & SECRET_1ST_DOWN)
		vec_ma(self->obj->origin, -self->t_width, up, self->dest1);
	else
		vec_ma(self->obj->origin, self->t_width * side, right, self->dest1);
	vec_ma(self->dest1, self->t_length, fwd, self->dest2);
	sub_calc_move(g, self, self->dest1, self->speed, secret_move1);
	g_sound(g, self, GAME_CHAN_VOICE, self->noise2, 1, GAME_ATTN_NORM);
}

static void secret_blocked(struct game *g, struct game_entity *self,
			   struct game_entity *other)
{
	if (g->time < self->attack_finished)
		return;
	self->attack_finished = g->time + 0.5;
	combat_damage(g, other, self, self, self->dmg, DT_SQUISH);
}

static void secret_die(struct game *g, struct game_entity *self,
		       struct game_entity *attacker)
{
	secret_use(g, self, attacker);
}

static void spawn_door_secret(struct game *g, struct game_entity *e)
{
	static const char *const n1[4] = {NULL, "doors/latch2.wav",
		"doors/airdoor2.wav", "doors/basesec2.wav"};
	static const char *const n2[4] = {NULL, "doors/winch2.wav",
		"doors/airdoor1.wav", "doors/basesec1.wav"};
	static const char *const n3[4] = {NULL, "doors/drclos4.wav",
		"doors/airdoor2.wav", "doors/basesec2.wav"};
	int s;

	if (e->sounds <= 0 || e->sounds > 3)
		e->sounds = 3;
	s = e->sounds;
	e->noise1 = g_precache_sound(g, n1[s]);
	e->noise2 = g_precache_sound(g, n2[s]);
	e->noise3 = g_precache_sound(g, n3[s]);
	if (e->dmg == 0)
		e->dmg = 2;
	vec_copy(e->angles, e->mangle);
	vec_set(e->angles, 0, 0, 0);
	brush_setup(g, e, SOLID_BSP, MOVETYPE_PUSH);
	e->classname = "door_secret";
	e->touch = door_touch;
	e->blocked = secret_blocked;
	e->speed = 50;
	e->use = secret_use;
	if (secret_shootable(e)) {
		e->health = 10000;
		e->takedamage = true;
		e->pain = secret_pain;
		e->die = secret_die;
	}
	vec_copy(e->obj->origin, e->oldorigin);
	if (e->wait == 0)
		e->wait = 5;
}

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
	brush_setup(g, e, SOLID_BSP, MOVETYPE_PUSH);
	e->classname = "plat";
	e->blocked = plat_crush;
	if (e->speed == 0)
		e->speed = 150;
	model_bounds(g, e, mins, maxs);
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

/* ---- buttons ---------------------------------------------------------- */

static void button_done(struct game *g, struct game_entity *self)
{
	(void)g;
	self->state = STATE_BOTTOM;
}

static void button_return(struct game *g, struct game_entity *self)
{
	self->state = STATE_DOWN;
	sub_calc_move(g, self, self->pos1, self->speed, button_done);
	self->frame = 0;
	if (self->max_health > 0)
		self->takedamage = true;
}

static void button_wait(struct game *g, struct game_entity *self)
{
	self->state = STATE_TOP;
	self->nextthink = self->ltime + self->wait;
	self->think = button_return;
	g_use_targets(g, self, self->enemy);
	self->frame = 1;
}

static void button_fire(struct game *g, struct game_entity *self)
{
	if (self->state == STATE_UP || self->state == STATE_TOP)
		return;
	g_sound(g, self, GAME_CHAN_VOICE, self->noise, 1, GAME_ATTN_NORM);
	self->state = STATE_UP;
	sub_calc_move(g, self, self->pos2, self->speed, button_wait);
}

static void button_touch(struct game *g, struct game_entity *self,
			 struct game_entity *other)
{
	if (!g_is_player(other))
		return;
	self->enemy = other;
	button_fire(g, self);
}

static void button_use(struct game *g, struct game_entity *self,
		       struct game_entity *activator)
{
	self->enemy = activator;
	button_fire(g, self);
}

static void button_killed(struct game *g, struct game_entity *self,
			  struct game_entity *attacker)
{
	self->enemy = attacker;
	self->health = self->max_health;
	self->takedamage = false;
	button_fire(g, self);
}

static void spawn_button(struct game *g, struct game_entity *e)
{
	static const char *const sounds[] = {"buttons/airbut1.wav",
		"buttons/switch21.wav", "buttons/switch02.wav", "buttons/switch04.wav"};
	vec3_t mins, maxs, size;

	e->noise = g_precache_sound(g, sounds[e->sounds >= 0 && e->sounds <= 3 ? e->sounds : 0]);
	set_movedir(e);
	brush_setup(g, e, SOLID_BSP, MOVETYPE_PUSH);
	e->use = button_use;
	if (e->health > 0) {
		e->max_health = e->health;
		e->die = button_killed;
		e->takedamage = true;
	} else {
		e->touch = button_touch;
	}
	if (e->speed == 0)
		e->speed = 40;
	if (e->wait == 0)
		e->wait = 1;
	if (e->lip == 0)
		e->lip = 4;
	e->state = STATE_BOTTOM;
	model_bounds(g, e, mins, maxs);
	vec_sub(maxs, mins, size);
	vec_copy(e->obj->origin, e->pos1);
	vec_ma(e->pos1, fabsf(vec_dot(e->movedir, size)) - e->lip, e->movedir, e->pos2);
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
	model_bounds(g, self, mins, maxs);
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
	model_bounds(g, self, mins, maxs);
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
	brush_setup(g, e, SOLID_BSP, MOVETYPE_PUSH);
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

/* ---- triggers --------------------------------------------------------- */

static void init_trigger(struct game *g, struct game_entity *e)
{
	if (e->angles[0] != 0 || e->angles[1] != 0 || e->angles[2] != 0)
		set_movedir(e);
	brush_setup(g, e, SOLID_TRIGGER, MOVETYPE_NONE);
	e->modelindex = 0;	/* never drawn */
	e->model_saved = 0;
}

static void multi_wait(struct game *g, struct game_entity *self)
{
	(void)g;
	if (self->max_health > 0) {
		self->health = self->max_health;
		self->takedamage = true;
	}
}

static void multi_trigger(struct game *g, struct game_entity *self)
{
	if (self->nextthink > g->time)
		return;		/* already triggered */
	if (strcmp(self->classname, "trigger_secret") == 0) {
		if (!g_is_player(self->enemy))
			return;
		g->found_secrets++;
		if (g->svc.found_secret)
			g->svc.found_secret(g->svc.ctx);
	}
	if (self->noise)
		g_sound(g, self, GAME_CHAN_VOICE, self->noise, 1, GAME_ATTN_NORM);
	self->takedamage = false;
	g_use_targets(g, self, self->enemy);
	if (!self->inuse)
		return;
	if (self->wait > 0) {
		self->think = multi_wait;
		self->nextthink = g->time + self->wait;
	} else {
		/* not removed here: a touch runs inside the area walk */
		self->touch = NULL;
		self->nextthink = g->time + 0.1;
		self->think = g_think_remove;
	}
}

static void multi_touch(struct game *g, struct game_entity *self,
			struct game_entity *other)
{
	if (!g_is_player(other))
		return;
	if (self->movedir[0] != 0 || self->movedir[1] != 0 || self->movedir[2] != 0) {
		vec3_t fwd;

		g_makevectors(other->angles, fwd, NULL, NULL);
		if (vec_dot(fwd, self->movedir) < 0)
			return;
	}
	self->enemy = other;
	multi_trigger(g, self);
}

static void multi_use(struct game *g, struct game_entity *self,
		      struct game_entity *activator)
{
	self->enemy = activator;
	multi_trigger(g, self);
}

static void multi_killed(struct game *g, struct game_entity *self,
			 struct game_entity *attacker)
{
	self->enemy = attacker;
	multi_trigger(g, self);
}

static void spawn_trigger_multiple(struct game *g, struct game_entity *e)
{
	static const char *const sounds[] = {NULL, "misc/secret.wav",
		"misc/talk.wav", "misc/trigger1.wav"};

	if (e->sounds >= 1 && e->sounds <= 3)
		e->noise = g_precache_sound(g, sounds[e->sounds]);
	if (e->wait == 0)
		e->wait = 0.2f;
	e->use = multi_use;
	init_trigger(g, e);
	if (e->health > 0) {
		e->max_health = e->health;
		e->die = multi_killed;
		e->takedamage = true;
		e->obj->solid = SOLID_BBOX;
		g_link(g, e, false);
	} else if (!(e->spawnflags & TRIGGER_NOTOUCH)) {
		e->touch = multi_touch;
	}
}

/* fires its targets when used count times (default 2) */
static void counter_use(struct game *g, struct game_entity *self,
			struct game_entity *activator)
{
	bool tell = g_is_player(activator) && !(self->spawnflags & 1);
	char msg[64];

	self->count -= 1;
	if (self->count < 0)
		return;
	if (self->count != 0) {
		if (tell) {
			if (self->count >= 4)
				snprintf(msg, sizeof(msg), "There are more to go...");
			else
				snprintf(msg, sizeof(msg), "Only %d more to go...", (int)self->count);
			g_centerprint(g, activator, msg);
		}
		return;
	}
	if (tell)
		g_centerprint(g, activator, "Sequence completed!");
	self->enemy = activator;
	multi_trigger(g, self);
}

static void relay_use(struct game *g, struct game_entity *self,
		      struct game_entity *activator)
{
	g_use_targets(g, self, activator);
}

static void teleport_use(struct game *g, struct game_entity *self,
			 struct game_entity *activator)
{
	(void)activator;
	self->nextthink = g->time + 0.2;
	self->think = NULL;
}

static void teleport_touch(struct game *g, struct game_entity *self,
			   struct game_entity *other)
{
	struct game_entity *t;
	vec3_t fwd, org;
	struct game_client *cl;

	if (self->targetname && self->nextthink < g->time)
		return;		/* targeted and not fired yet */
	if ((self->spawnflags & TELEPORT_PLAYER_ONLY) && !g_is_player(other))
		return;
	if (other->health <= 0 || other->obj->solid != SOLID_SLIDEBOX)
		return;
	g_use_targets(g, self, other);
	player_spawn_tfog(g, other->obj->origin);
	t = g_find_target(g, NULL, self->target);
	if (!t) {
		g_logf(g, QWD_LOG_WARN, "%s: trigger_teleport: no destination %s",
		       g->mapname, self->target ? self->target : "");
		return;
	}
	g_makevectors(t->mangle, fwd, NULL, NULL);
	vec_ma(t->obj->origin, 32, fwd, org);
	player_spawn_tfog(g, org);
	player_telefrag(g, t->obj->origin, other);
	g_setorigin(g, other, t->obj->origin);
	vec_copy(t->mangle, other->angles);
	cl = g_client(g, other);
	if (cl) {
		vec_copy(t->mangle, cl->v_angle);
		cl->fixangle = true;
		cl->teleport_time = g->time + 0.7;
		cl->pm.waterjumptime = 0.7f;
		vec_copy(other->obj->origin, cl->pm.origin);
		g_vscale(fwd, 300, other->velocity);
		vec_copy(other->velocity, cl->pm.velocity);
		if (g->svc.setangle)
			g->svc.setangle(g->svc.ctx, other->client, t->mangle);
	}
	other->flags &= ~FL_ONGROUND;
	g_link(g, other, true);
}

static void push_touch(struct game *g, struct game_entity *self,
		       struct game_entity *other)
{
	struct game_client *cl = g_client(g, other);

	if (strcmp(other->classname, "grenade") == 0 || other->health > 0) {
		g_vscale(self->movedir, self->speed * 10, other->velocity);
		if (cl) {
			vec_copy(other->velocity, cl->pm.velocity);
			if (other->fly_sound < g->time) {
				other->fly_sound = g->time + 1.5;
				g_sound(g, other, GAME_CHAN_AUTO, g->s_windfly, 1,
					GAME_ATTN_NORM);
			}
		}
	}
	if (self->spawnflags & PUSH_ONCE) {
		self->touch = NULL;
		self->nextthink = g->time + 0.1;
		self->think = g_think_remove;
	}
}

static void hurt_on(struct game *g, struct game_entity *self)
{
	(void)g;
	self->obj->solid = SOLID_TRIGGER;
}

static void hurt_touch(struct game *g, struct game_entity *self,
		       struct game_entity *other)
{
	if (!other->takedamage)
		return;
	/* off for a second; still linked, so no relink is needed */
	self->obj->solid = SOLID_NOT;
	combat_damage(g, other, self, self, self->dmg, DT_HURT);
	self->think = hurt_on;
	self->nextthink = g->time + 1;
}

static void info_destination(struct game *g, struct game_entity *e)
{
	vec_copy(e->angles, e->mangle);
	vec_set(e->angles, 0, 0, 0);
	e->obj->origin[2] += 27;
	e->obj->solid = SOLID_NOT;
	g_link(g, e, false);
}

/* ---- ambient sounds and fireballs ------------------------------------- */

static void static_sound(struct game *g, const vec3_t org, const char *name,
			 float vol)
{
	int s = g_precache_sound(g, name);

	if (g->svc.static_sound && s > 0)
		g->svc.static_sound(g->svc.ctx, org, s, vol, GAME_ATTN_STATIC);
}

/* id's ambient_* entities (misc.qc): a looping sound where they stand */
static bool ambient(struct game *g, struct game_entity *e, const char *cls)
{
	static const struct { const char *cls, *wav; float vol; } table[] = {
		{"ambient_comp_hum", "ambience/comp1.wav", 1},
		{"ambient_drip", "ambience/drip1.wav", 0.5f},
		{"ambient_drone", "ambience/drone6.wav", 0.5f},
		{"ambient_flouro_buzz", "ambience/buzz1.wav", 1},
		{"ambient_light_buzz", "ambience/fl_hum1.wav", 0.5f},
		{"ambient_suck_wind", "ambience/suck1.wav", 1},
		{"ambient_swamp1", "ambience/swamp1.wav", 0.5f},
		{"ambient_swamp2", "ambience/swamp2.wav", 0.5f},
		{"ambient_thunder", "ambience/thunder1.wav", 0.5f},
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (strcmp(cls, table[i].cls) == 0) {
			static_sound(g, e->obj->origin, table[i].wav, table[i].vol);
			return true;
		}
	}
	return false;
}

static void fireball_touch(struct game *g, struct game_entity *self,
			   struct game_entity *other)
{
	combat_damage(g, other, self, self, 20, DT_FIREBALL);
	g_remove(g, self);
}

/* misc_fireball (misc.qc): a lava ball thrown up every 3-8 s.  id's
 * default speed line compares instead of assigning (speed == 1000), so
 * a fireball without "speed" goes up at 0-200 u/s; kept as it plays. */
static void fire_fly(struct game *g, struct game_entity *self)
{
	struct game_entity *f = g_spawn(g);

	self->nextthink = g->time + g_random(g) * 5 + 3;
	if (!f)
		return;
	f->classname = "fireball";
	f->obj->solid = SOLID_TRIGGER;
	f->movetype = MOVETYPE_TOSS;
	vec_set(f->velocity, (float)g_random(g) * 100 - 50,
		(float)g_random(g) * 100 - 50, self->speed + (float)g_random(g) * 200);
	f->modelindex = g->m_lavaball;
	f->nextthink = g->time + 5;
	f->think = g_think_remove;
	f->touch = fireball_touch;
	g_setorigin(g, f, self->obj->origin);
}

static void spawn_fireball(struct game *g, struct game_entity *e)
{
	e->classname = "fireball_source";
	e->obj->solid = SOLID_NOT;
	e->movetype = MOVETYPE_NONE;
	g->m_lavaball = g_precache_model(g, "progs/lavaball.mdl");
	g_precache_sound(g, "misc/fbfire.wav");	/* id precaches it with the model */
	e->think = fire_fly;
	e->nextthink = g->time + g_random(g) * 5;
	g_link(g, e, false);
}

/* trigger_secret: a trigger_once that counts (total_secrets at spawn,
 * found_secrets and svc_foundsecret when a player fires it), with "You
 * found a secret area!" and misc/secret.wav unless told otherwise */
static void spawn_trigger_secret(struct game *g, struct game_entity *e)
{
	g->total_secrets++;
	e->wait = -1;
	if (!e->message || !*e->message)
		e->message = "You found a secret area!";
	if (e->sounds == 0)
		e->sounds = 1;
	spawn_trigger_multiple(g, e);
}

/* trigger_onlyregistered: fires (once) for a player when the server says
 * "registered"; else shows its message, at most every 2 s */
static void onlyregistered_touch(struct game *g, struct game_entity *self,
				 struct game_entity *other)
{
	if (!g_is_player(other) || self->attack_finished > g->time)
		return;
	self->attack_finished = g->time + 2;
	if (g->svc.cvar && g->svc.cvar(g->svc.ctx, "registered") != 0) {
		self->message = "";
		g_use_targets(g, self, other);
		self->touch = NULL;
		self->think = g_think_remove;
		self->nextthink = g->time + 0.1;	/* not inside the area walk */
		return;
	}
	if (self->message && *self->message) {
		g_centerprint(g, other, self->message);
		g_sound(g, other, GAME_CHAN_BODY, g->s_talk, 1, GAME_ATTN_NORM);
	}
}

/* ---- lights ----------------------------------------------------------- */

enum { LIGHT_START_OFF = 1, LIGHT_FIRST_SWITCHED_STYLE = 32 };

static void lightstyle(struct game *g, int style, const char *value)
{
	if (g->svc.lightstyle && style >= 0 && style < 64)
		g->svc.lightstyle(g->svc.ctx, style, value);
}

/* a targeted light toggles its style between "m" (on) and "a" (off) */
static void light_use(struct game *g, struct game_entity *self,
		      struct game_entity *activator)
{
	(void)activator;
	self->spawnflags ^= LIGHT_START_OFF;
	lightstyle(g, self->style, self->spawnflags & LIGHT_START_OFF ? "a" : "m");
}

static bool switched_light(struct game *g, struct game_entity *e)
{
	if (e->style < LIGHT_FIRST_SWITCHED_STYLE)
		return false;
	e->use = light_use;
	e->obj->solid = SOLID_NOT;
	lightstyle(g, e->style, e->spawnflags & LIGHT_START_OFF ? "a" : "m");
	return true;
}

/* a light drawn as a model: sent once in the signon (makestatic) */
static void static_model(struct game *g, struct game_entity *e,
			 const char *model, int frame)
{
	e->modelindex = g_precache_model(g, model);
	e->frame = frame;
	e->obj->solid = SOLID_NOT;
	e->movetype = MOVETYPE_NONE;
	e->is_static = true;
	g_link(g, e, false);
}

/* id's light entities (misc.qc): the inert ones go, targeted ones with a
 * style of 32 or more switch it, fluorescent tubes hum, torches and
 * flames are static models that crackle (static sounds) */
static bool spawn_light(struct game *g, struct game_entity *e, const char *cls)
{
	static const char *const fire = "ambience/fire1.wav";

	if (strcmp(cls, "light") == 0) {
		if (!e->targetname || !*e->targetname || !switched_light(g, e))
			g_remove(g, e);
	} else if (strcmp(cls, "light_fluoro") == 0) {
		static_sound(g, e->obj->origin, "ambience/fl_hum1.wav", 0.5f);
		if (!switched_light(g, e))
			g_remove(g, e);
	} else if (strcmp(cls, "light_fluorospark") == 0) {
		static_sound(g, e->obj->origin, "ambience/buzz1.wav", 0.5f);
		g_remove(g, e);
	} else if (strcmp(cls, "light_globe") == 0) {
		static_model(g, e, "progs/s_light.spr", 0);
	} else if (strcmp(cls, "light_torch_small_walltorch") == 0) {
		static_model(g, e, "progs/flame.mdl", 0);
		static_sound(g, e->obj->origin, fire, 0.5f);
	} else if (strcmp(cls, "light_flame_large_yellow") == 0) {
		static_model(g, e, "progs/flame2.mdl", 1);
		static_sound(g, e->obj->origin, fire, 0.5f);
	} else if (strcmp(cls, "light_flame_small_yellow") == 0 ||
		   strcmp(cls, "light_flame_small_white") == 0) {
		static_model(g, e, "progs/flame2.mdl", 0);
		static_sound(g, e->obj->origin, fire, 0.5f);
	} else {
		return false;
	}
	return true;
}

/* ---- exploding boxes -------------------------------------------------- */

static void barrel_explode(struct game *g, struct game_entity *self,
			   struct game_entity *attacker)
{
	vec3_t org;

	(void)attacker;
	self->takedamage = false;
	self->classname = "explo_box";
	combat_radius(g, self, self, 160, &g->ents[0], DT_EXPLOBOX);
	vec_copy(self->obj->origin, org);
	org[2] += 32;
	g_te_point(g, GAME_TE_EXPLOSION, org, 0, GAME_MULTICAST_PHS);
	g_remove(g, self);
}

/* misc_explobox (32 x 32 x 64) and misc_explobox2 (32 x 32 x 32): 20
 * health, blow up for 160 splash; put on the floor at spawn (2 units up,
 * then dropped; gone only when the drop was over 250 units, as id's) */
static void spawn_explobox(struct game *g, struct game_entity *e, bool small)
{
	vec3_t mins = {0, 0, 0}, maxs = {32, 32, small ? 32 : 64};
	float oldz;

	e->obj->solid = SOLID_BBOX;
	e->movetype = MOVETYPE_NONE;
	e->modelindex = e->model_saved =
		g_precache_model(g, small ? "maps/b_exbox2.bsp" : "maps/b_explob.bsp");
	g_precache_sound(g, "weapons/r_exp3.wav");
	g_setsize(g, e, mins, maxs);
	e->health = 20;
	e->die = barrel_explode;
	e->takedamage = true;
	e->obj->origin[2] += 2;
	oldz = e->obj->origin[2];
	phys_droptofloor(g, e);
	if (oldz - e->obj->origin[2] > 250) {
		g_logf(g, QWD_LOG_WARN, "%s: %s fell out of the level at (%.0f %.0f %.0f)",
		       g->mapname, e->classname, e->obj->origin[0],
		       e->obj->origin[1], e->obj->origin[2]);
		g_remove(g, e);
	}
}

/* ---- traps ------------------------------------------------------------ */

enum { TRAP_SUPERSPIKE = 1, TRAP_LASER = 2 };

static int trap_kind(const struct game_entity *e)
{
	return e->spawnflags & TRAP_LASER ? 2 : e->spawnflags & TRAP_SUPERSPIKE ? 1 : 0;
}

static void trap_use(struct game *g, struct game_entity *self,
		     struct game_entity *activator)
{
	(void)activator;
	weapons_trap_shot(g, self, trap_kind(self));
}

static void trap_think(struct game *g, struct game_entity *self)
{
	weapons_trap_shot(g, self, trap_kind(self));
	self->nextthink = g->time + self->wait;
}

/* trap_spikeshooter fires when used; trap_shooter every "wait" s (1),
 * from the level's start */
static void spawn_trap(struct game *g, struct game_entity *e, bool repeat)
{
	set_movedir(e);
	e->use = trap_use;
	e->obj->solid = SOLID_NOT;
	if (e->spawnflags & TRAP_LASER) {
		g->m_laser = g_precache_model(g, "progs/laser.mdl");
		g->s_enfire = g_precache_sound(g, "enforcer/enfire.wav");
		g->s_enfstop = g_precache_sound(g, "enforcer/enfstop.wav");
	} else {
		g->s_sspike = g_precache_sound(g, "weapons/spike2.wav");
	}
	if (repeat) {
		if (e->wait == 0)
			e->wait = 1;
		/* id's absolute time (nextthink + wait + ltime): at once */
		e->nextthink = e->wait;
		e->think = trap_think;
	}
	g_link(g, e, false);
}

bool movers_spawn(struct game *g, struct game_entity *e, const char *cls)
{
	if (strcmp(cls, "func_door") == 0) {
		spawn_door(g, e);
	} else if (strcmp(cls, "func_door_secret") == 0) {
		spawn_door_secret(g, e);
	} else if (strcmp(cls, "func_plat") == 0) {
		spawn_plat(g, e);
	} else if (strcmp(cls, "func_button") == 0) {
		spawn_button(g, e);
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
		brush_setup(g, e, SOLID_BSP, MOVETYPE_PUSH);
		e->use = wall_use;
	} else if (strcmp(cls, "func_illusionary") == 0) {
		vec_set(e->angles, 0, 0, 0);
		brush_setup(g, e, SOLID_NOT, MOVETYPE_NONE);
		e->is_static = true;
	} else if (strcmp(cls, "trigger_multiple") == 0) {
		spawn_trigger_multiple(g, e);
	} else if (strcmp(cls, "trigger_once") == 0) {
		e->wait = -1;
		spawn_trigger_multiple(g, e);
	} else if (strcmp(cls, "trigger_secret") == 0) {
		spawn_trigger_secret(g, e);
	} else if (strcmp(cls, "trigger_monsterjump") == 0) {
		/* throws monsters only: a trigger no player sets off */
		if (e->speed == 0)
			e->speed = 200;
		if (e->height == 0)
			e->height = 200;
		if (e->angles[0] == 0 && e->angles[1] == 0 && e->angles[2] == 0)
			e->angles[1] = 360;
		init_trigger(g, e);
	} else if (strcmp(cls, "trigger_setskill") == 0) {
		g_remove(g, e);	/* the start map's skill selector */
	} else if (strcmp(cls, "trigger_onlyregistered") == 0) {
		init_trigger(g, e);
		e->touch = onlyregistered_touch;
	} else if (strcmp(cls, "trigger_relay") == 0) {
		e->use = relay_use;
	} else if (strcmp(cls, "trigger_counter") == 0) {
		e->wait = -1;
		if (e->count == 0)
			e->count = 2;
		e->use = counter_use;
	} else if (strcmp(cls, "trigger_teleport") == 0) {
		init_trigger(g, e);
		e->touch = teleport_touch;
		e->use = teleport_use;
		if (!(e->spawnflags & TELEPORT_SILENT)) {
			vec3_t mid;
			const struct bsp_model *bm = &g->map->models[e->obj->model > 0 ? e->obj->model : 0];

			for (int k = 0; k < 3; k++)
				mid[k] = (bm->mins[k] + bm->maxs[k]) * 0.5f;
			static_sound(g, mid, "ambience/hum1.wav", 0.5f);
		}
	} else if (strcmp(cls, "info_teleport_destination") == 0) {
		info_destination(g, e);
	} else if (strcmp(cls, "trigger_push") == 0) {
		init_trigger(g, e);
		e->touch = push_touch;
		if (e->speed == 0)
			e->speed = 1000;
	} else if (strcmp(cls, "trigger_hurt") == 0) {
		init_trigger(g, e);
		e->touch = hurt_touch;
		if (e->dmg == 0)
			e->dmg = 5;
	} else if (strcmp(cls, "trigger_changelevel") == 0) {
		/* deathmatch ignores it but for the rotation */
		if (e->map && !g->nextmap[0]) {
			size_t n = strlen(e->map);

			if (n < sizeof(g->nextmap))
				memcpy(g->nextmap, e->map, n + 1);
		}
		init_trigger(g, e);
	} else if (strncmp(cls, "ambient_", 8) == 0 && ambient(g, e, cls)) {
		g_remove(g, e);	/* the sound is static: in the signon */
	} else if (strcmp(cls, "misc_fireball") == 0) {
		spawn_fireball(g, e);
	} else if (strncmp(cls, "light", 5) == 0 && spawn_light(g, e, cls)) {
		/* done */
	} else if (strcmp(cls, "misc_explobox") == 0 ||
		   strcmp(cls, "misc_explobox2") == 0) {
		spawn_explobox(g, e, cls[13] == '2');
	} else if (strcmp(cls, "trap_spikeshooter") == 0 ||
		   strcmp(cls, "trap_shooter") == 0) {
		spawn_trap(g, e, cls[5] == 's' && cls[6] == 'h');
	} else if (strcmp(cls, "info_null") == 0 ||
		   strcmp(cls, "air_bubbles") == 0) {
		g_remove(g, e);	/* QuakeWorld removes both at once */
	} else if (strcmp(cls, "info_notnull") == 0 ||
		   strcmp(cls, "info_intermission") == 0) {
		e->obj->solid = SOLID_NOT;
		vec_copy(e->angles, e->mangle);
	} else {
		return false;
	}
	return true;
}
