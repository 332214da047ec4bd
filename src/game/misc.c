/*
 * misc.c -- the rest of id's misc.qc a deathmatch map uses: ambient
 * sounds, lights, fireballs, exploding boxes, traps, the info_ markers.
 *
 * Design note
 *   ambient_* and the humming, crackling lights become static sounds in
 *   the signon, torches, flames and globes static models.  Light styles
 *   are the game's, as in QuakeC: the worldspawn sets id's twelve
 *   animated styles (0-11) and 63 ("a") before any entity spawns; a
 *   targeted light with a style of 32 or more then sets its own ("a" when
 *   it starts off, spawnflags 1, else "m") and toggles it when used
 *   (svc_lightstyle); styles nobody sets stay empty.  Other lights, info_null and air_bubbles are removed
 *   as id removes them; misc_explobox(2) blows up for 160 when shot to 20
 *   damage; misc_fireball throws lava balls; trap_spikeshooter and
 *   trap_shooter fire nails or lasers when used (or on a timer).
 */
#include "internal.h"

#include <string.h>

/* ---- ambient sounds and fireballs ------------------------------------- */

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
			mover_static_sound(g, e->obj->origin, table[i].wav, table[i].vol);
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

/* ---- lights ----------------------------------------------------------- */

enum { LIGHT_START_OFF = 1, LIGHT_FIRST_SWITCHED_STYLE = 32 };

static void lightstyle(struct game *g, int style, const char *value)
{
	if (g->svc.lightstyle && style >= 0 && style < 64)
		g->svc.lightstyle(g->svc.ctx, style, value);
}

/* id's styles as world.qc's worldspawn sets them (what clients animate
 * lights with; 32-62 are the switchable lights') */
void misc_world_lightstyles(struct game *g)
{
	static const char *const styles[] = {
		"m",						/* normal */
		"mmnmmommommnonmmonqnmmo",			/* flicker 1 */
		"abcdefghijklmnopqrstuvwxyzyxwvutsrqponmlkjihgfedcba", /* slow strong pulse */
		"mmmmmaaaaammmmmaaaaaabcdefgabcdefg",		/* candle 1 */
		"mamamamamama",					/* fast strobe */
		"jklmnopqrstuvwxyzyxwvutsrqponmlkj",		/* gentle pulse */
		"nmonqnmomnmomomno",				/* flicker 2 */
		"mmmaaaabcdefgmmmmaaaammmaamm",			/* candle 2 */
		"mmmaaammmaaammmabcdefaaaammmmabcdefmmmaaaa",	/* candle 3 */
		"aaaaaaaazzzzzzzz",				/* slow strobe */
		"mmamammmmammamamaaamammma",			/* fluorescent flicker */
		"abcdefghijklmnopqrrqponmlkjihgfedcba",		/* slow pulse, not to black */
	};

	for (int i = 0; i < (int)(sizeof(styles) / sizeof(styles[0])); i++)
		lightstyle(g, i, styles[i]);
	lightstyle(g, 63, "a");
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
		mover_static_sound(g, e->obj->origin, "ambience/fl_hum1.wav", 0.5f);
		if (!switched_light(g, e))
			g_remove(g, e);
	} else if (strcmp(cls, "light_fluorospark") == 0) {
		mover_static_sound(g, e->obj->origin, "ambience/buzz1.wav", 0.5f);
		g_remove(g, e);
	} else if (strcmp(cls, "light_globe") == 0) {
		static_model(g, e, "progs/s_light.spr", 0);
	} else if (strcmp(cls, "light_torch_small_walltorch") == 0) {
		static_model(g, e, "progs/flame.mdl", 0);
		mover_static_sound(g, e->obj->origin, fire, 0.5f);
	} else if (strcmp(cls, "light_flame_large_yellow") == 0) {
		static_model(g, e, "progs/flame2.mdl", 1);
		mover_static_sound(g, e->obj->origin, fire, 0.5f);
	} else if (strcmp(cls, "light_flame_small_yellow") == 0 ||
		   strcmp(cls, "light_flame_small_white") == 0) {
		static_model(g, e, "progs/flame2.mdl", 0);
		mover_static_sound(g, e->obj->origin, fire, 0.5f);
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
	g_te_point(g, TE_EXPLOSION, org, 0, GAME_MULTICAST_PHS);
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
	mover_set_movedir(e);
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

bool misc_spawn(struct game *g, struct game_entity *e, const char *cls)
{
	if (strncmp(cls, "ambient_", 8) == 0 && ambient(g, e, cls)) {
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
