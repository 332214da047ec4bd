/*
 * doors.c -- doors, secret doors and buttons (id's doors.qc, buttons.qc).
 *
 * Design note
 *   The numbers are id's:
 *     door    speed 100, wait 3 (-1: stays open), lip 8, dmg 2 when
 *             blocked (then it reverses); opened by a trigger field 60
 *             units around its linked group (doors whose boxes touch move
 *             together), unless it is shootable or targeted
 *     secret  func_door_secret: speed 50, out sideways (or down), along,
 *             back after 5 s; opened by use or by a shot
 *     button  speed 40, wait 1, lip 4; pressed by touch (or damage if it
 *             has health), fires its targets at the end of its travel
 *   Every move goes through sub_calc_move (movers.c).
 */
#include "internal.h"

#include <math.h>
#include <string.h>

enum {
	DOOR_START_OPEN = 1, DOOR_DONT_LINK = 4, DOOR_GOLD_KEY = 8,
	DOOR_SILVER_KEY = 16, DOOR_TOGGLE = 32
};

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

	mover_set_movedir(e);
	e->max_health = e->health;
	mover_brush_setup(g, e, SOLID_BSP, MOVETYPE_PUSH);
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
	mover_model_bounds(g, e, mins, maxs);
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
		mover_model_bounds(g, self, cmins, cmaxs);
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
				mover_model_bounds(g, t, tmins, tmaxs);
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
	mover_model_bounds(g, self, mins, maxs);
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
	mover_brush_setup(g, e, SOLID_BSP, MOVETYPE_PUSH);
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
	mover_set_movedir(e);
	mover_brush_setup(g, e, SOLID_BSP, MOVETYPE_PUSH);
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
	mover_model_bounds(g, e, mins, maxs);
	vec_sub(maxs, mins, size);
	vec_copy(e->obj->origin, e->pos1);
	vec_ma(e->pos1, fabsf(vec_dot(e->movedir, size)) - e->lip, e->movedir, e->pos2);
}

bool doors_spawn(struct game *g, struct game_entity *e, const char *cls)
{
	if (strcmp(cls, "func_door") == 0)
		spawn_door(g, e);
	else if (strcmp(cls, "func_door_secret") == 0)
		spawn_door_secret(g, e);
	else if (strcmp(cls, "func_button") == 0)
		spawn_button(g, e);
	else
		return false;
	return true;
}
