/*
 * scenario.c -- the scenario helpers of scenario.h: .map text from
 * boxes, the map compiled by qm_compile and loaded by bsp_load_mem, the
 * mock services, and the tick loop.
 *
 * Design note: a box brush's six planes are written in id's format, three
 * points each, ordered so that (p0 - p1) x (p2 - p1) points out of the
 * box (docs/qwmap.md); the order is computed, not hand-written, so no
 * face can come out inverted.
 */
#include "../harness.h"
#include "scenario.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

#include "../../tools/qwmap/qwmap.h"

/* ---- .map text ---------------------------------------------------------- */

static void ms_printf(struct mapsrc *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ms_printf(struct mapsrc *m, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(m->text + m->len, m->cap - m->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < m->cap - m->len) {
			m->len += (size_t)n;
			return;
		}
		m->cap = m->cap * 2 + (size_t)n + 64;
		m->text = realloc(m->text, m->cap);
		if (!m->text)
			abort();
	}
}

void ms_init(struct mapsrc *m)
{
	m->cap = 4096;
	m->len = 0;
	m->text = malloc(m->cap);
	if (!m->text)
		abort();
	m->text[0] = '\0';
}

void ms_free(struct mapsrc *m)
{
	free(m->text);
	m->text = NULL;
}

void ms_open(struct mapsrc *m, const char *keys)
{
	ms_printf(m, "{\n%s\n", keys);
}

void ms_close(struct mapsrc *m)
{
	ms_printf(m, "}\n");
}

void ms_box(struct mapsrc *m, float x0, float y0, float z0, float x1,
	    float y1, float z1, const char *tex)
{
	const float lo[3] = {x0, y0, z0}, hi[3] = {x1, y1, z1};

	ms_printf(m, "{\n");
	for (int a = 0; a < 3; a++) {
		for (int side = 0; side < 2; side++) {
			int b = (a + 1) % 3, c = (a + 2) % 3;
			float p[3][3], d1[3], d2[3], n[3];

			for (int i = 0; i < 3; i++)
				p[i][a] = side ? hi[a] : lo[a];
			p[0][b] = lo[b]; p[0][c] = lo[c];
			p[1][b] = hi[b]; p[1][c] = lo[c];
			p[2][b] = lo[b]; p[2][c] = hi[c];
			for (int k = 0; k < 3; k++) {
				d1[k] = p[0][k] - p[1][k];
				d2[k] = p[2][k] - p[1][k];
			}
			n[0] = d1[1] * d2[2] - d1[2] * d2[1];
			n[1] = d1[2] * d2[0] - d1[0] * d2[2];
			n[2] = d1[0] * d2[1] - d1[1] * d2[0];
			if ((side ? n[a] : -n[a]) < 0) {
				for (int k = 0; k < 3; k++) {
					float t = p[0][k];

					p[0][k] = p[2][k];
					p[2][k] = t;
				}
			}
			ms_printf(m, "( %g %g %g ) ( %g %g %g ) ( %g %g %g ) %s 0 0 0 1 1\n",
				  p[0][0], p[0][1], p[0][2], p[1][0], p[1][1], p[1][2],
				  p[2][0], p[2][1], p[2][2], tex);
		}
	}
	ms_printf(m, "}\n");
}

void ms_room(struct mapsrc *m, float x0, float y0, float z0, float x1,
	     float y1, float z1)
{
	const float t = 16;

	ms_box(m, x0 - t, y0 - t, z0 - t, x1 + t, y1 + t, z0, "wall");	/* floor */
	ms_box(m, x0 - t, y0 - t, z1, x1 + t, y1 + t, z1 + t, "wall");	/* ceiling */
	ms_box(m, x0 - t, y0 - t, z0, x0, y1 + t, z1, "wall");
	ms_box(m, x1, y0 - t, z0, x1 + t, y1 + t, z1, "wall");
	ms_box(m, x0, y0 - t, z0, x1, y0, z1, "wall");
	ms_box(m, x0, y1, z0, x1, y1 + t, z1, "wall");
}

/* ---- the mock ----------------------------------------------------------- */

static int mock_add(char list[][64], int *n, const char *name)
{
	for (int i = 1; i < *n; i++)
		if (strcmp(list[i], name) == 0)
			return i;
	if (*n >= 256)
		return 0;
	strlcpy(list[*n], name, 64);
	return (*n)++;
}

static int mk_precache_model(void *ctx, const char *name)
{
	struct mock *m = ctx;

	return mock_add(m->models, &m->num_models, name);
}

static int mk_precache_sound(void *ctx, const char *name)
{
	struct mock *m = ctx;

	return mock_add(m->sounds, &m->num_sounds, name);
}

static void mk_sound(void *ctx, int ent, int chan, int snd, float vol,
		     float attn, const vec3_t org)
{
	struct mock *m = ctx;

	(void)vol;
	(void)attn;
	if (m->num_snd < MOCK_LOG) {
		m->snd[m->num_snd].ent = ent;
		m->snd[m->num_snd].chan = chan;
		m->snd[m->num_snd].snd = snd;
		vec_copy(org, m->snd[m->num_snd].org);
	}
	m->num_snd++;
}

static void mk_static_sound(void *ctx, const vec3_t org, int snd, float vol,
			    float attn)
{
	struct mock *m = ctx;

	(void)org;
	(void)vol;
	(void)attn;
	if (snd > 0) {
		m->static_sounds++;
		if (snd < m->num_sounds) {
			strlcat(m->static_names, m->sounds[snd], sizeof(m->static_names));
			strlcat(m->static_names, " ", sizeof(m->static_names));
		}
	}
}

static void mk_found_secret(void *ctx)
{
	struct mock *m = ctx;

	m->found_secret_calls++;
}

static void mk_lightstyle(void *ctx, int style, const char *value)
{
	struct mock *m = ctx;

	m->lightstyle_calls++;
	m->last_style = style;
	strlcpy(m->last_style_value, value, sizeof(m->last_style_value));
}

static void mk_temp_entity(void *ctx, const struct game_temp_entity *te,
			   int multicast)
{
	struct mock *m = ctx;

	if (m->num_te < MOCK_LOG) {
		m->te[m->num_te] = *te;
		m->te_multicast[m->num_te] = multicast;
	}
	m->num_te++;
}

static void mk_print(void *ctx, int slot, int level, const char *text)
{
	struct mock *m = ctx;

	(void)slot;
	(void)level;
	if (m->prints_len + strlen(text) + 1 < sizeof(m->prints)) {
		strlcpy(m->prints + m->prints_len, text, sizeof(m->prints) - m->prints_len);
		m->prints_len += strlen(text);
	}
}

static void mk_centerprint(void *ctx, int slot, const char *text)
{
	struct mock *m = ctx;

	m->centerprint_slot = slot;
	m->centerprint_calls++;
	strlcpy(m->centerprint, text, sizeof(m->centerprint));
}

static void mk_stufftext(void *ctx, int slot, const char *text)
{
	struct mock *m = ctx;

	(void)slot;
	(void)text;
	m->stuff_calls++;
}

static void mk_frags(void *ctx, int slot, int frags)
{
	struct mock *m = ctx;

	if (slot >= 0 && slot < 64)
		m->frags[slot] = frags;
	m->frag_calls++;
}

static void mk_damage(void *ctx, int slot, int armor, int blood, const vec3_t from)
{
	struct mock *m = ctx;

	(void)slot;
	(void)armor;
	(void)blood;
	(void)from;
	m->damage_calls++;
}

static void mk_kick(void *ctx, int slot, bool big)
{
	struct mock *m = ctx;

	(void)slot;
	m->kick_calls++;
	if (big)
		m->big_kick_calls++;
}

static void mk_muzzleflash(void *ctx, int ent, const vec3_t org)
{
	struct mock *m = ctx;

	(void)ent;
	(void)org;
	m->muzzle_calls++;
}

static void mk_setangle(void *ctx, int slot, const vec3_t ang)
{
	struct mock *m = ctx;

	(void)slot;
	vec_copy(ang, m->setangle);
	m->setangle_calls++;
}

static void mk_intermission(void *ctx, const vec3_t org, const vec3_t ang)
{
	struct mock *m = ctx;

	(void)org;
	(void)ang;
	m->intermission_calls++;
}

static void mk_change_level(void *ctx, const char *map)
{
	struct mock *m = ctx;

	strlcpy(m->change_map, map, sizeof(m->change_map));
	m->change_calls++;
}

static const float *mk_cvar(void *ctx, const char *name)
{
	struct mock *m = ctx;

	if (strcmp(name, "deathmatch") == 0)
		return &m->deathmatch;
	if (strcmp(name, "teamplay") == 0)
		return &m->teamplay;
	if (strcmp(name, "fraglimit") == 0)
		return &m->fraglimit;
	if (strcmp(name, "timelimit") == 0)
		return &m->timelimit;
	if (strcmp(name, "samelevel") == 0)
		return &m->samelevel;
	if (strcmp(name, "sv_antilag") == 0)
		return &m->antilag;
	if (strcmp(name, "sv_antilag_projectiles") == 0)
		return &m->antilag_projectiles;
	if (strcmp(name, "sv_paused") == 0)
		return &m->paused;
	if (strcmp(name, "pausable") == 0)
		return &m->pausable;
	return NULL;
}

static void mk_set_pause(void *ctx, bool paused)
{
	struct mock *m = ctx;

	m->pause_calls++;
	m->paused = paused ? 1.0f : 0.0f;
}

static const char *mk_infokey(void *ctx, const char *key)
{
	struct mock *m = ctx;

	if (m->infokey_key && strcmp(key, m->infokey_key) == 0)
		return m->infokey_value;
	return NULL;
}

static void mk_log(void *ctx, int level, const char *text)
{
	struct mock *m = ctx;
	size_t n = strlen(m->logs);

	(void)level;
	m->log_calls++;
	if (n + strlen(text) + 2 < sizeof(m->logs)) {
		strlcat(m->logs, text, sizeof(m->logs));
		strlcat(m->logs, "\n", sizeof(m->logs));
	}
}

int mock_sounds(const struct mock *m, const char *name)
{
	int n = 0;

	for (int i = 0; i < m->num_snd && i < MOCK_LOG; i++)
		if (strcmp(m->sounds[m->snd[i].snd], name) == 0)
			n++;
	return n;
}

int mock_temp_entities(const struct mock *m, int type)
{
	int n = 0;

	for (int i = 0; i < m->num_te && i < MOCK_LOG; i++)
		if (m->te[i].type == type)
			n++;
	return n;
}

int mock_model_index(const struct mock *m, const char *name)
{
	for (int i = 1; i < m->num_models; i++)
		if (strcmp(m->models[i], name) == 0)
			return i;
	return 0;
}

/* ---- scenarios ---------------------------------------------------------- */

static void services(struct scen *s)
{
	struct game_services *v = &s->svc;

	memset(v, 0, sizeof(*v));
	v->ctx = &s->mock;
	v->precache_model = mk_precache_model;
	v->precache_sound = mk_precache_sound;
	v->sound = mk_sound;
	v->temp_entity = mk_temp_entity;
	v->static_sound = mk_static_sound;
	v->muzzleflash = mk_muzzleflash;
	v->print = mk_print;
	v->centerprint = mk_centerprint;
	v->stufftext = mk_stufftext;
	v->frags = mk_frags;
	v->damage = mk_damage;
	v->kick = mk_kick;
	v->setangle = mk_setangle;
	v->intermission = mk_intermission;
	v->change_level = mk_change_level;
	v->cvar = mk_cvar;
	v->infokey = mk_infokey;
	v->set_pause = mk_set_pause;
	v->log = mk_log;
	v->found_secret = mk_found_secret;
	v->lightstyle = mk_lightstyle;
}

static int start_on(struct scen *s, int max_clients, int max_entities,
		    char *err, size_t errlen)
{
	struct game_config cfg = {max_entities, max_clients, 12345};
	char name[80];

	s->objs = calloc((size_t)max_entities, sizeof(*s->objs));
	s->g = game_create(&cfg);
	if (!s->objs || !s->g) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (world_init(&s->world, s->map, s->objs, max_entities) != 0) {
		snprintf(err, errlen, "out of memory for the areanode lists");
		return -1;
	}
	s->mock.num_models = 1;
	s->mock.num_sounds = 1;
	if (s->mock.deathmatch == 0)
		s->mock.deathmatch = 1;
	/* the server's model list starts with the map and its submodels */
	snprintf(name, sizeof(name), "maps/%s.bsp", "test");
	mk_precache_model(&s->mock, name);
	for (int i = 1; i < s->map->num_models; i++) {
		snprintf(name, sizeof(name), "*%d", i);
		mk_precache_model(&s->mock, name);
	}
	services(s);
	s->time = 1.0;
	return game_load_level(s->g, &s->world, s->map, "test", &s->svc, s->time,
			       err, errlen);
}

int scen_start_lump(struct scen *s, const char *maptext, const char *lump,
		    char *err, size_t errlen)
{
	struct qm_ctx ctx = {"scenario.map", err, errlen, NULL, 0};
	struct qm_options opt = {false};
	struct qm_output out;

	memset(&out, 0, sizeof(out));
	if (qm_compile(&ctx, maptext, strlen(maptext), &opt, &out) != 0)
		return -1;
	s->map = bsp_load_mem("scenario.bsp", out.data, out.size, err, errlen);
	qm_output_free(&out);
	if (!s->map)
		return -1;
	ent_free(&s->map->ents);
	if (ent_parse(lump, strlen(lump), &s->map->ents, err, errlen) != 0)
		return -1;
	return start_on(s, SCEN_MAX_CLIENTS, SCEN_MAX_ENTITIES, err, errlen);
}

int scen_start(struct scen *s, const char *maptext, int max_clients,
	       int max_entities, char *err, size_t errlen)
{
	struct qm_ctx ctx = {"scenario.map", err, errlen, NULL, 0};
	struct qm_options opt = {false};
	struct qm_output out;

	memset(&out, 0, sizeof(out));
	if (qm_compile(&ctx, maptext, strlen(maptext), &opt, &out) != 0)
		return -1;
	s->map = bsp_load_mem("scenario.bsp", out.data, out.size, err, errlen);
	qm_output_free(&out);
	if (!s->map)
		return -1;
	return start_on(s, max_clients, max_entities, err, errlen);
}

int scen_start_file(struct scen *s, const char *path, int max_clients,
		    int max_entities, char *err, size_t errlen)
{
	s->map = bsp_load(path, err, errlen);
	if (!s->map)
		return -1;
	return start_on(s, max_clients, max_entities, err, errlen);
}

int scen_start_room(struct scen *s, void (*extra)(struct mapsrc *m),
		    char *err, size_t errlen)
{
	struct mapsrc m;
	int rc;

	ms_init(&m);
	ms_open(&m, "\"classname\" \"worldspawn\"");
	ms_room(&m, -512, -512, 0, 512, 512, 384);
	ms_close(&m);
	ms_open(&m, "\"classname\" \"info_player_deathmatch\" \"origin\" \"-256 -256 24\"");
	ms_close(&m);
	ms_open(&m, "\"classname\" \"info_player_deathmatch\" \"origin\" \"256 -256 24\"");
	ms_close(&m);
	if (extra)
		extra(&m);
	rc = scen_start(s, m.text, SCEN_MAX_CLIENTS, SCEN_MAX_ENTITIES, err, errlen);
	ms_free(&m);
	return rc;
}

void scen_give(struct scen *s, int slot, int weapon, int ammo)
{
	struct game_entity *e = scen_player(s, slot);
	struct game_client *cl = scen_client(s, slot);

	e->items |= weapon;
	e->weapon = weapon;
	switch (weapon) {
	case IT_ROCKET_LAUNCHER:
	case IT_GRENADE_LAUNCHER: cl->ammo_rockets = ammo; break;
	case IT_NAILGUN:
	case IT_SUPER_NAILGUN: cl->ammo_nails = ammo; break;
	case IT_LIGHTNING: cl->ammo_cells = ammo; break;
	case IT_AXE: break;
	default: cl->ammo_shells = ammo; break;
	}
}

void scen_free(struct scen *s)
{
	game_destroy(s->g);
	world_free(&s->world);
	free(s->objs);
	bsp_free(s->map);
	s->g = NULL;
	s->objs = NULL;
	s->map = NULL;
}

struct game_entity *scen_player(struct scen *s, int slot)
{
	return &s->g->ents[game_player_entity(s->g, slot)];
}

struct game_client *scen_client(struct scen *s, int slot)
{
	return &s->g->clients[slot];
}

struct game_entity *scen_join(struct scen *s, int slot, const char *name)
{
	game_client_connect(s->g, slot, name, false);
	s->playing[slot] = true;
	memset(&s->held[slot], 0, sizeof(s->held[slot]));
	s->held[slot].msec = 13;
	return scen_player(s, slot);
}

void scen_place(struct scen *s, int slot, float x, float y, float z, float yaw)
{
	struct game_entity *e = scen_player(s, slot);
	struct game_client *cl = scen_client(s, slot);

	vec_set(e->obj->origin, x, y, z);
	vec_set(e->velocity, 0, 0, 0);
	vec_set(e->angles, 0, yaw, 0);
	vec_set(cl->v_angle, 0, yaw, 0);
	vec_copy(e->obj->origin, cl->pm.origin);
	vec_set(cl->pm.velocity, 0, 0, 0);
	world_link(&s->world, e->obj);
	s->held[slot].angles[1] = yaw;
}

void scen_hold(struct scen *s, int slot, float pitch, float yaw, int fwd,
	       int side, int buttons)
{
	struct usercmd *c = &s->held[slot];

	c->angles[0] = pitch;
	c->angles[1] = yaw;
	c->forwardmove = (int16_t)fwd;
	c->sidemove = (int16_t)side;
	c->buttons = (uint8_t)buttons;
	c->msec = 13;
}

void scen_tick(struct scen *s)
{
	s->time += SCEN_TICK;
	game_frame(s->g, s->time);
	for (int i = 0; i < SCEN_MAX_CLIENTS && i < s->g->max_clients; i++)
		if (s->playing[i])
			game_client_cmd(s->g, i, &s->held[i]);
}

void scen_run(struct scen *s, double seconds)
{
	int n = (int)(seconds / SCEN_TICK + 0.5);

	for (int i = 0; i < n; i++)
		scen_tick(s);
}

struct game_entity *scen_find(struct scen *s, const char *classname)
{
	for (int i = 1; i < s->g->num_entities; i++)
		if (s->g->ents[i].inuse && strcmp(s->g->ents[i].classname, classname) == 0)
			return &s->g->ents[i];
	return NULL;
}

int scen_count(struct scen *s, const char *classname)
{
	int n = 0;

	for (int i = 1; i < s->g->num_entities; i++)
		if (s->g->ents[i].inuse && strcmp(s->g->ents[i].classname, classname) == 0)
			n++;
	return n;
}

int scen_fx_setup(void **state)
{
	struct scen *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	*state = s;
	return 0;
}

int scen_fx_teardown(void **state)
{
	struct scen *s = *state;

	scen_free(s);
	free(s);
	return 0;
}

void scen_room_ok(struct scen *s, void (*extra)(struct mapsrc *m))
{
	char err[256] = "";
	int rc = scen_start_room(s, extra, err, sizeof(err));

	if (rc != 0)
		fprintf(stderr, "scenario: %s\n", err);
	assert_int_equal(rc, 0);
}
