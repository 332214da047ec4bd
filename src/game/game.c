/*
 * game.c -- the game's life cycle (create, level, frame) and the engine
 * builtins the rules use (spawn, remove, setorigin, sound, prints...).
 *
 * Design note
 *   A level starts from the map's entity lump: each entity's keys fill a
 *   struct game_entity, then its classname picks a spawn function (player.c
 *   spawn spots, items.c items, movers.c brush entities and triggers).  An
 *   entity flagged "not in deathmatch" (spawnflags 2048) is dropped as
 *   QuakeWorld's loader does; an unknown classname is reported once, with
 *   the position of its first occurrence, and skipped.
 *
 *   Entity numbers follow the layout in qwd/game.h.  Run-time entities
 *   (and the map's own, in lump order) come from [first_free, top): the
 *   lowest free number whose freetime is
 *   0.5 s old (QuakeWorld's ED_Alloc), the lowest bit of those that may
 *   be given (spawn_free: a full server's gibs and missiles made a scan
 *   long).
 *
 *   The random generator is xorshift64* in struct game: deterministic, and
 *   nothing here calls rand().
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

/* ---- randomness ------------------------------------------------------- */

double g_random(struct game *g)
{
	bool esc = g_escape_enter("the random stream");
	uint64_t x = g->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	g->rng = x;
	g_escape_leave(esc);
	return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

float g_crandom(struct game *g)
{
	return (float)(2.0 * (g_random(g) - 0.5));
}

/* ---- vectors ---------------------------------------------------------- */

void g_makevectors(const vec3_t angles, vec3_t fwd, vec3_t right, vec3_t up)
{
	float a = angles[1] * (float)(M_PI * 2 / 360);
	float sy = sinf(a), cy = cosf(a);
	a = angles[0] * (float)(M_PI * 2 / 360);
	float sp = sinf(a), cp = cosf(a);
	a = angles[2] * (float)(M_PI * 2 / 360);
	float sr = sinf(a), cr = cosf(a);

	if (fwd)
		vec_set(fwd, cp * cy, cp * sy, -sp);
	if (right)
		vec_set(right, -1 * sr * sp * cy + -1 * cr * -sy,
			-1 * sr * sp * sy + -1 * cr * cy, -1 * sr * cp);
	if (up)
		vec_set(up, cr * sp * cy + -sr * -sy, cr * sp * sy + -sr * cy,
			cr * cp);
}

void g_vectoangles(const vec3_t v, vec3_t angles)
{
	float yaw, pitch;

	if (v[1] == 0 && v[0] == 0) {
		yaw = 0;
		pitch = v[2] > 0 ? 90 : 270;
	} else {
		yaw = (float)(int)(atan2f(v[1], v[0]) * 180 / (float)M_PI);
		if (yaw < 0)
			yaw += 360;
		float forward = sqrtf(v[0] * v[0] + v[1] * v[1]);
		pitch = (float)(int)(atan2f(v[2], forward) * 180 / (float)M_PI);
		if (pitch < 0)
			pitch += 360;
	}
	vec_set(angles, pitch, yaw, 0);
}

float g_vlen(const vec3_t v)
{
	return sqrtf(vec_dot(v, v));
}

float g_normalize(vec3_t v)
{
	float l = g_vlen(v);

	if (l > 0)
		for (int k = 0; k < 3; k++)
			v[k] /= l;
	return l;
}

/* ---- entities --------------------------------------------------------- */

bool game_entity_acts_far(const struct game *g, int id)
{
	const struct game_entity *e;

	if (id <= 0 || id >= g->max_entities)
		return false;
	e = &g->ents[id];
	return e->inuse && (e->target || e->killtarget || e->map);
}

bool g_is_player(const struct game_entity *e)
{
	return e && e->client >= 0;
}

struct game_client *g_client(struct game *g, struct game_entity *e)
{
	return e && e->client >= 0 ? &g->clients[e->client] : NULL;
}

void g_touch_player(struct game *g, const struct game_entity *e)
{
	if (e && e->client >= 0)
		g->touched[e->client]++;
}

static void clear_entity(struct game_entity *e)
{
	int num = e->num;
	struct world_obj *o = e->obj;

	memset(e, 0, sizeof(*e));
	e->num = num;
	e->obj = o;
	e->client = -1;
	e->classname = "";
	o->linked = false;
	o->solid = SOLID_NOT;
	o->model = -1;
	o->owner = -1;
	o->monster = false;
	vec_set(o->origin, 0, 0, 0);
	vec_set(o->mins, 0, 0, 0);
	vec_set(o->maxs, 0, 0, 0);
}

void g_set_inuse(struct game *g, struct game_entity *e, bool inuse)
{
	uint64_t bit = 1ull << (e->num & 63);

	e->inuse = inuse;
	if (inuse)
		g->inuse_bits[e->num >> 6] |= bit;
	else
		g->inuse_bits[e->num >> 6] &= ~bit;
}

static struct game_entity *init_entity(struct game *g, int num)
{
	struct game_entity *e = &g->ents[num];

	if (e->obj->linked)
		world_unlink(g->world, e->obj);
	clear_entity(e);
	g_set_inuse(g, e, true);
	if (num >= g->num_entities)
		g->num_entities = num + 1;
	return e;
}

/* QuakeWorld's ED_Alloc gives the lowest free number whose freetime is
 * 0.5 s old (any, in the level's first 2 s).  A scan for it walks every
 * gib and missile of a full server, and the whole table when it is full,
 * on every spawn; instead the numbers that may be given are bits
 * (spawn_ready), and the ones freed since wait in a ring in the order
 * they were freed (the level's time does not go back), coming of age at
 * its head.  The lowest bit is then the scan's answer.  A number is
 * checked again when taken: only g_remove frees one. */
static bool spawn_young(const struct game *g, const struct game_entity *e)
{
	/* QuakeWorld's rule; the first 2 s of a level reuse at once */
	return e->freetime > 2.0 && g->time - e->freetime < 0.5;
}

static void spawn_ready_set(struct game *g, int num)
{
	g->spawn_ready[num >> 6] |= 1ull << (num & 63);
	if (num >> 6 < g->spawn_word)
		g->spawn_word = num >> 6;
}

/* every number of [first_free, top) free and ready: a level's start */
static void spawn_numbers_reset(struct game *g)
{
	memset(g->spawn_ready, 0, sizeof(*g->spawn_ready) * (size_t)g->spawn_words);
	g->spawn_word = g->spawn_words;
	g->spawn_young_head = g->spawn_young_count = 0;
	for (int i = g->first_free; i < g->top; i++)
		spawn_ready_set(g, i);
}

/* a number g_remove freed */
static void spawn_numbers_free(struct game *g, int num)
{
	int cap = g->max_entities;

	if (num < g->first_free || num >= g->top || g->spawn_young_count >= cap)
		return;
	g->spawn_young[(g->spawn_young_head + g->spawn_young_count) % cap] = num;
	g->spawn_young_count++;
}

static struct game_entity *spawn_free(struct game *g)
{
	int cap = g->max_entities;

	while (g->spawn_young_count > 0) {
		int num = g->spawn_young[g->spawn_young_head];

		if (spawn_young(g, &g->ents[num]))
			break;
		if (!g->ents[num].inuse)
			spawn_ready_set(g, num);
		g->spawn_young_head = (g->spawn_young_head + 1) % cap;
		g->spawn_young_count--;
	}
	for (int w = g->spawn_word; w < g->spawn_words; w++) {
		while (g->spawn_ready[w]) {
			int num = (w << 6) + __builtin_ctzll(g->spawn_ready[w]);

			g->spawn_ready[w] &= g->spawn_ready[w] - 1;
			g->spawn_word = w;
			if (num < g->first_free || num >= g->top ||
			    g->ents[num].inuse)
				continue;
			return init_entity(g, num);
		}
	}
	g->spawn_word = g->spawn_words;
	return NULL;
}

struct game_entity *g_spawn(struct game *g)
{
	bool esc = g_escape_enter("the entity allocator");
	struct game_entity *e = spawn_free(g);

	g_escape_leave(esc);
	return e;
}

void g_remove(struct game *g, struct game_entity *e)
{
	bool esc;

	if (!e || e->num == 0 || g_is_player(e))
		return;
	esc = g_escape_enter("the entity allocator");
	if (e->obj->linked)
		world_unlink(g->world, e->obj);
	clear_entity(e);
	g_set_inuse(g, e, false);
	e->freetime = g->time;
	spawn_numbers_free(g, e->num);
	g_escape_leave(esc);
}

void g_think_remove(struct game *g, struct game_entity *self)
{
	g_remove(g, self);
}

void g_link(struct game *g, struct game_entity *e, bool touch_triggers)
{
	if (!e->inuse)
		return;
	world_link(g->world, e->obj);
	if (touch_triggers)
		phys_touch_triggers(g, e);
}

void g_setorigin(struct game *g, struct game_entity *e, const vec3_t org)
{
	vec_copy(org, e->obj->origin);
	g_antilag_reset(g, e);	/* MVDSV: a player put somewhere anew */
	g_link(g, e, false);
}

void g_setsize(struct game *g, struct game_entity *e, const vec3_t mins,
	       const vec3_t maxs)
{
	vec_copy(mins, e->obj->mins);
	vec_copy(maxs, e->obj->maxs);
	g_link(g, e, false);
}

int g_precache_model(struct game *g, const char *name)
{
	return g->svc.precache_model ? g->svc.precache_model(g->svc.ctx, name) : 0;
}

int g_precache_sound(struct game *g, const char *name)
{
	return g->svc.precache_sound ? g->svc.precache_sound(g->svc.ctx, name) : 0;
}

void g_set_brush_model(struct game *g, struct game_entity *e, int sub)
{
	char name[16];

	snprintf(name, sizeof(name), "*%d", sub);
	e->modelindex = g_precache_model(g, name);
	e->model_saved = e->modelindex;
	e->obj->model = sub;
	vec_copy(g->map->models[sub].mins, e->obj->mins);
	vec_copy(g->map->models[sub].maxs, e->obj->maxs);
	g_link(g, e, false);
}

/* ---- services --------------------------------------------------------- */

static void entity_center(const struct game_entity *e, vec3_t out)
{
	if (e->obj->model > 0) {
		for (int k = 0; k < 3; k++)
			out[k] = e->obj->origin[k] +
				 (e->obj->mins[k] + e->obj->maxs[k]) * 0.5f;
	} else {
		vec_copy(e->obj->origin, out);
	}
}

void g_sound(struct game *g, struct game_entity *e, int chan, int snd,
	     float vol, float attn)
{
	vec3_t org;

	if (!g->svc.sound || snd <= 0)
		return;
	entity_center(e, org);
	g->svc.sound(g->svc.ctx, e->num, chan, snd, vol, attn, org);
}

void g_sound_at(struct game *g, const vec3_t org, int snd, float attn)
{
	if (g->svc.sound && snd > 0)
		g->svc.sound(g->svc.ctx, 0, GAME_CHAN_AUTO, snd, 1, attn, org);
}

void g_te_point(struct game *g, int type, const vec3_t org, int count,
		int multicast)
{
	struct game_temp_entity te;

	if (!g->svc.temp_entity)
		return;
	memset(&te, 0, sizeof(te));
	te.type = type;
	vec_copy(org, te.origin);
	te.count = count > 255 ? 255 : count;
	g->svc.temp_entity(g->svc.ctx, &te, multicast);
}

void g_te_beam(struct game *g, int type, int ent, const vec3_t start,
	       const vec3_t end)
{
	struct game_temp_entity te;

	if (!g->svc.temp_entity)
		return;
	memset(&te, 0, sizeof(te));
	te.type = type;
	te.entity = ent;
	vec_copy(start, te.origin);
	vec_copy(end, te.end);
	g->svc.temp_entity(g->svc.ctx, &te, GAME_MULTICAST_PHS);
}

void g_bprint(struct game *g, int level, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (!g->svc.print)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	g->svc.print(g->svc.ctx, -1, level, buf);
}

void g_sprint(struct game *g, struct game_entity *e, int level,
	      const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (!g->svc.print || !g_is_player(e))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	g->svc.print(g->svc.ctx, e->client, level, buf);
}

void g_centerprint(struct game *g, struct game_entity *e, const char *text)
{
	if (g->svc.centerprint && g_is_player(e))
		g->svc.centerprint(g->svc.ctx, e->client, text);
}

void g_stuff(struct game *g, struct game_entity *e, const char *text)
{
	if (g->svc.stufftext && g_is_player(e))
		g->svc.stufftext(g->svc.ctx, e->client, text);
}

void g_logf(struct game *g, int level, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (!g->svc.log)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	g->svc.log(g->svc.ctx, level, buf);
}

static const char *const rule_names[GAME_RULES] = {
	"deathmatch", "teamplay", "fraglimit", "timelimit", "samelevel",
};

/* A rule's value through the place its cvar lives; the name is looked up
 * only while the cvar has not been found (one made later is seen then). */
static float rule_value(struct game *g, int rule)
{
	if (!g->rule_vars[rule] && g->svc.cvar)
		g->rule_vars[rule] = g->svc.cvar(g->svc.ctx, rule_names[rule]);
	return g->rule_vars[rule] ? *g->rule_vars[rule] : 0.0f;
}

void game_set_pause(struct game *g, bool paused)
{
	if (g->svc.set_pause)
		g->svc.set_pause(g->svc.ctx, paused);
}

bool game_paused(struct game *g)
{
	if (!g->paused_var && g->svc.cvar)
		g->paused_var = g->svc.cvar(g->svc.ctx, "sv_paused");
	return g->paused_var && *g->paused_var != 0;
}

/* ---- traces ----------------------------------------------------------- */

void g_traceline(struct game *g, const vec3_t start, const vec3_t end,
		 bool nomonsters, struct game_entity *pass, struct trace *tr)
{
	static const vec3_t zero = {0, 0, 0};

	/* MVDSV's traceline: rewound for a player's shots with sv_antilag 2 */
	g_antilag_move(g, start, zero, zero, end,
		       nomonsters ? MOVE_NOMONSTERS : MOVE_NORMAL, pass, false,
		       tr);
}

struct game_entity *g_trace_ent(struct game *g, const struct trace *tr)
{
	if (tr->ent < 0 || tr->ent >= g->max_entities)
		return NULL;
	return &g->ents[tr->ent];
}

int g_pointcontents(struct game *g, const vec3_t p)
{
	return world_point_contents(g->world, p);
}

/* ---- targets ---------------------------------------------------------- */

struct game_entity *g_find_target(struct game *g, struct game_entity *from,
				  const char *targetname)
{
	int start = from ? from->num + 1 : 1;

	if (!targetname || !*targetname)
		return NULL;
	for (int i = start; i < g->num_entities; i++) {
		struct game_entity *e = &g->ents[i];

		if (e->inuse && e->targetname && strcmp(e->targetname, targetname) == 0)
			return e;
	}
	return NULL;
}

static void delayed_use(struct game *g, struct game_entity *self)
{
	struct game_entity *act = self->enemy;

	self->delay = 0;
	g_use_targets(g, self, act);
	g_remove(g, self);
}

/* QuakeC's SUB_UseTargets: the message to the activator, killtargets
 * removed, every entity named by target used; with a delay, a temporary
 * entity does it later. */
static void use_targets(struct game *g, struct game_entity *self,
			struct game_entity *activator);

void g_use_targets(struct game *g, struct game_entity *self,
		   struct game_entity *activator)
{
	/* what has no targets only prints (a service) or delays (g_spawn,
	 * guarded itself) */
	bool esc = (self->target || self->killtarget) &&
		   g_escape_enter("an entity's targets");

	use_targets(g, self, activator);
	g_escape_leave(esc);
}

static void use_targets(struct game *g, struct game_entity *self,
			struct game_entity *activator)
{
	if (self->delay > 0) {
		struct game_entity *t = g_spawn(g);

		if (!t)
			return;
		t->classname = "DelayedUse";
		t->nextthink = g->time + self->delay;
		t->think = delayed_use;
		t->enemy = activator;
		t->message = self->message;
		t->killtarget = self->killtarget;
		t->target = self->target;
		return;
	}
	if (activator && g_is_player(activator) && self->message &&
	    *self->message) {
		g_centerprint(g, activator, self->message);
		if (!self->noise)
			g_sound(g, activator, GAME_CHAN_VOICE, g->s_talk, 1,
				GAME_ATTN_NORM);
	}
	if (self->killtarget && *self->killtarget) {
		struct game_entity *t = NULL;

		while ((t = g_find_target(g, t, self->killtarget)) != NULL)
			g_remove(g, t);
	}
	if (self->target && *self->target) {
		struct game_entity *t = NULL;

		while ((t = g_find_target(g, t, self->target)) != NULL) {
			if (t->use && t != self)
				t->use(g, t, activator);
			if (!self->inuse)
				return;
		}
	}
}

/* ---- life cycle ------------------------------------------------------- */

struct game *game_create(const struct game_config *cfg)
{
	struct game *g;

	if (cfg->max_clients < 1 || cfg->max_clients > 4096 ||
	    cfg->max_entities < 1 + MAX_CLIENTS + cfg->max_clients + 16)
		return NULL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	/* the sizes first: game_destroy frees the tables by them */
	g->max_entities = cfg->max_entities;
	g->max_clients = cfg->max_clients;
	g->ents = qwd_table_alloc((size_t)cfg->max_entities * sizeof(*g->ents));
	g->spawn_words = (cfg->max_entities + 63) / 64;
	g->spawn_ready = calloc((size_t)g->spawn_words, sizeof(*g->spawn_ready));
	g->inuse_bits = calloc((size_t)g->spawn_words, sizeof(*g->inuse_bits));
	g->spawn_young = calloc((size_t)cfg->max_entities, sizeof(*g->spawn_young));
	g->clients = qwd_table_alloc((size_t)cfg->max_clients * sizeof(*g->clients));
	g->touched = calloc((size_t)cfg->max_clients, sizeof(*g->touched));
	if (!g->ents || !g->clients || !g->touched || !g->spawn_ready ||
	    !g->spawn_young || !g->inuse_bits) {
		game_destroy(g);
		return NULL;
	}
	if (g_antilag_create(g) < 0) {
		game_destroy(g);
		return NULL;
	}
	g->rng = cfg->seed ? cfg->seed : 0x9E3779B97F4A7C15ull;
	g->top = cfg->max_entities -
		 (cfg->max_clients > MAX_CLIENTS ?
		  cfg->max_clients - MAX_CLIENTS : 0);
	pmove_vars_default(&g->movevars);
	for (int i = 0; i < g->max_entities; i++) {
		g->ents[i].num = i;
		g->ents[i].client = -1;
	}
	return g;
}

void game_set_events(struct game *g, const struct game_events *ev)
{
	g->events = ev;
}

int game_ev_weapon_of(int deathtype)
{
	switch (deathtype) {
	case DT_AXE: return GAME_WP_AXE;
	case DT_SHOTGUN: return GAME_WP_SG;
	case DT_SUPER_SHOTGUN: return GAME_WP_SSG;
	case DT_NAIL: return GAME_WP_NG;
	case DT_SUPERNAIL: return GAME_WP_SNG;
	case DT_GRENADE: return GAME_WP_GL;
	case DT_ROCKET: return GAME_WP_RL;
	case DT_LIGHTNING: case DT_DISCHARGE: return GAME_WP_LG;
	default: return GAME_WP_NONE;
	}
}

void game_destroy(struct game *g)
{
	if (!g)
		return;
	g_antilag_destroy(g);
	free(g->spawn_world);
	free(g->spawn_kept);
	free(g->spawn_ready);
	free(g->inuse_bits);
	free(g->spawn_young);
	qwd_table_free(g->ents, (size_t)g->max_entities * sizeof(*g->ents));
	qwd_table_free(g->clients, (size_t)g->max_clients * sizeof(*g->clients));
	free(g->touched);
	free(g);
}

/* Map values are outside input: a number that is not finite, or beyond
 * any map's extent, counts as 0, so nothing downstream meets a NaN. */
enum { MAX_MAP_VALUE = 1 << 20 };

static float num(const char *v)
{
	double d = atof(v);

	return isfinite(d) && fabs(d) < MAX_MAP_VALUE ? (float)d : 0.0f;
}

static bool parse_vec(const char *s, vec3_t out)
{
	vec3_t v;

	if (!s || sscanf(s, "%f %f %f", &v[0], &v[1], &v[2]) != 3)
		return false;
	for (int k = 0; k < 3; k++)
		out[k] = isfinite(v[k]) && fabsf(v[k]) < MAX_MAP_VALUE ? v[k] : 0.0f;
	return true;
}

/* the keys of map entity i into e (what QuakeC's fields get) */
static void parse_keys(struct game *g, struct game_entity *e, uint32_t i,
		       const char **model)
{
	const struct ent_list *el = &g->map->ents;
	const struct ent_def *d = &el->ents[i];

	*model = NULL;
	for (uint32_t p = d->first_pair; p < d->first_pair + d->num_pairs; p++) {
		const char *k = ent_key_at(el, p), *v = ent_value_at(el, p);

		if (strcmp(k, "origin") == 0)
			parse_vec(v, e->obj->origin);
		else if (strcmp(k, "angle") == 0)
			vec_set(e->angles, 0, num(v), 0);
		else if (strcmp(k, "angles") == 0)
			parse_vec(v, e->angles);
		else if (strcmp(k, "model") == 0)
			*model = v;
		else if (strcmp(k, "target") == 0)
			e->target = v;
		else if (strcmp(k, "targetname") == 0)
			e->targetname = v;
		else if (strcmp(k, "killtarget") == 0)
			e->killtarget = v;
		else if (strcmp(k, "message") == 0)
			e->message = v;
		else if (strcmp(k, "map") == 0)
			e->map = v;
		else if (strcmp(k, "spawnflags") == 0)
			e->spawnflags = (int)num(v);
		else if (strcmp(k, "speed") == 0)
			e->speed = num(v);
		else if (strcmp(k, "wait") == 0)
			e->wait = num(v);
		else if (strcmp(k, "lip") == 0)
			e->lip = num(v);
		else if (strcmp(k, "dmg") == 0)
			e->dmg = num(v);
		else if (strcmp(k, "health") == 0)
			e->health = num(v);
		else if (strcmp(k, "delay") == 0)
			e->delay = num(v);
		else if (strcmp(k, "height") == 0)
			e->height = num(v);
		else if (strcmp(k, "sounds") == 0)
			e->sounds = (int)num(v);
		else if (strcmp(k, "count") == 0)
			e->count = num(v);
		else if (strcmp(k, "style") == 0)
			e->style = (int)num(v);
	}
}

static void report_unknown(struct game *g, const char *cls, const vec3_t org)
{
	for (int i = 0; i < g->num_unknown; i++)
		if (strcmp(g->unknown[i], cls) == 0)
			return;
	if (g->num_unknown < GAME_MAX_UNKNOWN)
		g->unknown[g->num_unknown++] = cls;
	g_logf(g, QWD_LOG_WARN, "%s: unknown classname %s at (%.0f %.0f %.0f), skipped",
	       g->mapname, cls, org[0], org[1], org[2]);
}

static void spawn_map_entities(struct game *g)
{
	const struct ent_list *el = &g->map->ents;

	g->first_free = 1 + MAX_CLIENTS;
	spawn_numbers_reset(g);
	for (uint32_t i = 0; i < el->num_ents; i++) {
		const char *cls = ent_value(el, i, "classname");
		const char *model;
		struct game_entity *e;

		if (cls && strcmp(cls, "worldspawn") == 0) {
			const char *wt = ent_value(el, i, "worldtype");

			g->worldtype = wt ? (int)num(wt) : 0;
			if (g->worldtype < 0 || g->worldtype > 2)
				g->worldtype = 0;
			continue;
		}
		if (!cls)
			continue;
		/* in lump order; what a spawn function spawns comes next */
		e = g_spawn(g);
		if (!e) {
			g_logf(g, QWD_LOG_WARN, "%s: too many entities, %s skipped",
			       g->mapname, cls);
			continue;
		}
		e->classname = cls;
		parse_keys(g, e, i, &model);
		if (e->spawnflags & SPAWNFLAG_NOT_DEATHMATCH) {
			g_remove(g, e);
			continue;
		}
		if (model && model[0] == '*') {
			int sub = (int)num(model + 1);

			if (sub <= 0 || sub >= g->map->num_models) {
				g_logf(g, QWD_LOG_WARN, "%s: %s: model %s does not exist, skipped",
				       g->mapname, cls, model);
				g_remove(g, e);
				continue;
			}
			e->obj->model = sub;
		}
		if (player_spawn_point(g, e, cls) || items_spawn(g, e, cls) ||
		    movers_spawn(g, e, cls))
			continue;
		report_unknown(g, cls, e->obj->origin);
		g_remove(g, e);
	}
}

static void read_rules(struct game *g)
{
	g->deathmatch = (int)rule_value(g, GAME_RULE_DEATHMATCH);
	if (g->deathmatch <= 0)
		g->deathmatch = 1;	/* qwd only plays deathmatch */
	g->teamplay = (int)rule_value(g, GAME_RULE_TEAMPLAY);
	g->fraglimit = rule_value(g, GAME_RULE_FRAGLIMIT);
	g->timelimit = rule_value(g, GAME_RULE_TIMELIMIT) * 60.0f;
	g->samelevel = (int)rule_value(g, GAME_RULE_SAMELEVEL);
}

int game_load_level(struct game *g, struct world *w,
		    const struct bsp_map *map, const char *mapname,
		    const struct game_services *svc, double time,
		    char *err, size_t errlen)
{
	g->changes++;
	if (w->max_objs < g->max_entities) {
		snprintf(err, errlen, "game: the world has %d objects, %d needed",
			 w->max_objs, g->max_entities);
		return -1;
	}
	g->svc = *svc;
	g->world = w;
	g->map = map;
	/* a map without liquids spares the local-move test its leaf walk */
	g->liquids = false;
	for (int32_t i = 1; i < map->num_leafs && !g->liquids; i++) {
		int c = map->leafs[i].contents;

		g->liquids = c == CONTENTS_WATER || c == CONTENTS_SLIME ||
			     c == CONTENTS_LAVA;
	}
	strlcpy(g->mapname, mapname, sizeof(g->mapname));
	g->nextmap[0] = '\0';
	g->time = time;
	g->frametime = 0;
	g->intermission = false;
	g->changed_level = false;
	g->num_unknown = 0;
	g->total_secrets = g->found_secrets = 0;
	g->spawn_cursor = 0;
	/* new services: their cvars are found anew */
	for (int i = 0; i < GAME_RULES; i++)
		g->rule_vars[i] = NULL;
	g->paused_var = NULL;
	read_rules(g);
	g_antilag_level(g);	/* its cvars, every ring emptied */

	for (int i = 0; i < g->max_entities; i++) {
		struct game_entity *e = &g->ents[i];

		e->obj = &w->objs[i];
		if (e->obj->linked)
			world_unlink(w, e->obj);
		clear_entity(e);
		e->freetime = 0;
	}
	memset(g->inuse_bits, 0, sizeof(*g->inuse_bits) * (size_t)g->spawn_words);
	g->num_entities = 1 + MAX_CLIENTS;
	{
		struct game_entity *world = init_entity(g, 0);

		world->classname = "worldspawn";
		world->obj->solid = SOLID_BSP;
		world->obj->model = 0;
		world->movetype = MOVETYPE_PUSH;
		world->takedamage = false;
	}
	player_precache(g);
	weapons_precache(g);
	items_precache(g);
	misc_world_lightstyles(g);	/* the worldspawn's, then the lights' */
	spawn_map_entities(g);
	movers_link_doors(g);
	player_init_bodyque(g);
	player_init_spawn_places(g);

	/* everyone comes back through the signon (the server sends
	 * "reconnect") and enters again with game_client_connect */
	memset(g->clients, 0, sizeof(*g->clients) * (size_t)g->max_clients);
	g->roster++;
	g->spectators = 0;
	return 0;
}

void game_frame(struct game *g, double time)
{
	if (!g->world)
		return;		/* no level yet */
	g->frametime = time - g->time;
	if (g->frametime < 0)
		g->frametime = 0;
	g->time = time;
	g->stats.frames++;
	read_rules(g);

	/* players move by their commands; all else here, in number order
	 * (QuakeWorld's SV_Physics) */
	phys_run_think(g, &g->ents[0]);
	for (int i = 1 + MAX_CLIENTS; i < g->num_entities && i < g->top; i++) {
		struct game_entity *e = &g->ents[i];

		if (!e->inuse)
			continue;
		g->stats.entity_runs++;
		phys_run_entity(g, e);
	}
	player_intermission_frame(g);
	if (!g->intermission && g->timelimit > 0 && g->time >= g->timelimit &&
	    !g->match.owns_limits)
		player_next_level(g);
}

/* ---- the match layer's calls ------------------------------------------ */

void game_set_match_rules(struct game *g, const struct game_match_rules *r)
{
	g->changes++;
	g->match = *r;
	if (g->world)
		items_apply_powerups(g);
}

void game_match_reset(struct game *g)
{
	g->changes++;
	if (!g->world)
		return;
	/* what flies goes (rockets, grenades, nails, gibs), the items
	 * come back */
	for (int i = 1 + MAX_CLIENTS; i < g->num_entities && i < g->top; i++) {
		struct game_entity *e = &g->ents[i];

		if (e->inuse && (e->movetype == MOVETYPE_FLYMISSILE ||
				 e->movetype == MOVETYPE_BOUNCE))
			g_remove(g, e);
	}
	items_match_reset(g);
	/* the players are put in one after another: under the spawn models
	 * those still at their old places keep them (guarded), so the reset
	 * telefrags no one */
	for (int s = 0; s < g->max_clients; s++) {
		g->clients[s].spawn_guard = g->time + GAME_SPAWN_GUARD;
		g->clients[s].last_spot = 0;
	}
	for (int s = 0; s < g->max_clients; s++) {
		struct game_client *cl = &g->clients[s];

		if (!cl->active || cl->spectator)
			continue;
		cl->frags = 0;
		player_put_in_server(g, s);
		if (g->svc.frags)
			g->svc.frags(g->svc.ctx, s, 0);
	}
}

void game_end_level(struct game *g)
{
	g->changes++;
	if (g->world)
		player_next_level(g);
}
