/*
 * triggers.c -- the trigger volumes (id's triggers.qc) and the teleport
 * destinations.
 *
 * Design note
 *   The numbers are id's: multiple (wait 0.2), once, relay, counter
 *   (fires after count uses, default 2), teleport (player out at the
 *   destination + 27 units up, facing its angle, 300 u/s forward, 0.7 s
 *   without control), push (speed 1000, x 10), hurt (dmg 5 at most once
 *   a second), changelevel (only names the next map in deathmatch),
 *   secret (a trigger_once that counts: total at spawn, found and
 *   svc_foundsecret when a player fires it, "You found a secret area!"
 *   and misc/secret.wav by default), monsterjump (monsters only: inert),
 *   onlyregistered (fires when "registered" is set), setskill (removed).
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

enum {
	TELEPORT_PLAYER_ONLY = 2, TELEPORT_SILENT = 2,
	PUSH_ONCE = 1,
	TRIGGER_NOTOUCH = 1
};

/* ---- triggers --------------------------------------------------------- */

static void init_trigger(struct game *g, struct game_entity *e)
{
	if (e->angles[0] != 0 || e->angles[1] != 0 || e->angles[2] != 0)
		mover_set_movedir(e);
	mover_brush_setup(g, e, SOLID_TRIGGER, MOVETYPE_NONE);
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
		if (g->match.spawn_model >= 2)	/* KTX: a teleport guards too */
			cl->spawn_guard = g->time + GAME_TELEPORT_GUARD;
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

bool game_entity_far_box(const struct game *g, int id, vec3_t mins,
			 vec3_t maxs)
{
	const struct game_entity *e, *t = NULL;

	if (id <= 0 || id >= g->max_entities)
		return false;
	e = &g->ents[id];
	if (!e->inuse || e->touch != teleport_touch || e->killtarget ||
	    !e->target)
		return false;
	/* the destination teleport_touch will find; the search writes
	 * nothing */
	t = g_find_target((struct game *)g, NULL, e->target);
	if (!t || t->target || t->killtarget)
		return false;	/* what it uses acts further on */
	/* a player lands there, telefrags what is there, and runs on at
	 * 300 u/s for the rest of its commands (the caller adds their reach) */
	for (int k = 0; k < 3; k++) {
		mins[k] = t->obj->origin[k] - 16 - 64;
		maxs[k] = t->obj->origin[k] + 32 + 64;
	}
	return true;
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
	const float *registered = g->svc.cvar ? g->svc.cvar(g->svc.ctx, "registered") : NULL;

	if (registered && *registered != 0) {
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

bool triggers_spawn(struct game *g, struct game_entity *e, const char *cls)
{
	if (strcmp(cls, "trigger_multiple") == 0) {
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
			mover_static_sound(g, mid, "ambience/hum1.wav", 0.5f);
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
	} else {
		return false;
	}
	return true;
}
