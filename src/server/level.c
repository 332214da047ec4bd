/*
 * level.c -- loading a level: the map, its precache lists, its entities,
 * their baselines and the signon buffers; spawning players.
 *
 * Design note
 *   server_map() loads the new map completely before touching the running
 *   level, so a map the loader refuses leaves the server as it was.  Then,
 *   in order: entities from the entity lump (spawn spots, brush entities,
 *   triggers; the deathmatch rules that give items and weapons life are the
 *   game's, issue 7), the model list ("maps/<name>.bsp", the submodels
 *   "*1".."*N", the player and eye models), baselines of every entity a
 *   client may be sent, and the signon buffers that carry those baselines
 *   (svc_spawnbaseline) and static entities (svc_spawnstatic) to clients
 *   in MAX_MSGLEN pieces at prespawn.
 *
 *   Entity numbers: 0 the world; 1..32 the player slots stock clients can
 *   see; then the map's entities (below 512 for protocol 28 as long as the
 *   map has fewer than 479 of them); then the player slots past 32, which
 *   only extension clients are told about (sv_player_entity()).
 *
 *   Map names resolve as QuakeWorld servers resolve them: maps/<name>.bsp
 *   under <basedir>/<gamedir>, then <basedir>/id1, then the maps folder this
 *   binary was built with (QWD_MAPDIR, so `qwd` with no arguments finds
 *   its bundled map); a name ending in ".bsp" is taken as a path.
 */
#include "qwd/server.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <bsd/string.h>

#ifndef QWD_MAPDIR
#define QWD_MAPDIR "maps"
#endif

/* id's lightstyle table as QuakeC's worldspawn sets it (game data every
 * QuakeWorld mod sends; clients animate lights with it) */
static const char *const default_lightstyles[] = {
	"m",
	"mmnmmommommnonmmonqnmmo",
	"abcdefghijklmnopqrstuvwxyzyxwvutsrqponmlkjihgfedcba",
	"mmmmmaaaaammmmmaaaaaabcdefgabcdefg",
	"mamamamamama",
	"jklmnopqrstuvwxyzyxwvutsrqponmlkj",
	"nmonqnmomnmomomno",
	"mmmaaaabcdefgmmmmaaaammmaamm",
	"mmmaaammmaaammmabcdefaaaammmmabcdefmmmaaaa",
	"aaaaaaaazzzzzzzz",
	"mmamammmmammamamaaamammma",
	"abcdefghijklmnopqrrqponmlkjihgfedcba",
};

static bool file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Map names are outside input (console, rcon): only plain names. */
static bool map_name_ok(const char *name)
{
	if (!*name || strlen(name) >= 56 || strstr(name, ".."))
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' ||
		      *p == '.' || *p == '/'))
			return false;
	return true;
}

static bool resolve_map(const struct server *sv, const char *name,
			char *path, size_t pathlen)
{
	const char *dirs[3];
	int n = 0;

	if (strlen(name) > 4 && strcmp(name + strlen(name) - 4, ".bsp") == 0) {
		strlcpy(path, name, pathlen);
		return file_exists(path);
	}
	if (sv->gamedir[0] && strcmp(sv->gamedir, "id1") != 0)
		dirs[n++] = sv->gamedir;
	dirs[n++] = "id1";
	for (int i = 0; i < n; i++) {
		snprintf(path, pathlen, "%s/%s/maps/%s.bsp", sv->basedir, dirs[i], name);
		if (file_exists(path))
			return true;
	}
	snprintf(path, pathlen, "%s/%s.bsp", QWD_MAPDIR, name);
	return file_exists(path);
}

static int add_model(struct server *sv, const char *name)
{
	for (int i = 1; i < sv->num_models; i++)
		if (strcmp(sv->model_names[i], name) == 0)
			return i;
	if (sv->num_models >= MAX_MODELS)
		return 0;
	strlcpy(sv->model_names[sv->num_models], name, sizeof(sv->model_names[0]));
	sv->model_precache[sv->num_models] = sv->model_names[sv->num_models];
	return sv->num_models++;
}

static bool parse_vec(const char *s, vec3_t out)
{
	return s && sscanf(s, "%f %f %f", &out[0], &out[1], &out[2]) == 3;
}

/* entity index of a player slot (see the design note) */
int sv_player_entity(const struct server *sv, int slot)
{
	if (slot < MAX_CLIENTS)
		return slot + 1;
	return sv->first_ext_entity + (slot - MAX_CLIENTS);
}

static int alloc_entity(struct server *sv)
{
	if (sv->num_ents >= sv->max_entities)
		return -1;
	return sv->num_ents++;
}

static void quantise_state(const struct server *sv, int num,
			   struct entity_state *st)
{
	const struct entity *e = &sv->ents[num];
	const struct world_obj *o = &sv->objs[num];

	memset(st, 0, sizeof(*st));
	st->number = (uint16_t)num;
	st->modelindex = e->modelindex;
	for (int k = 0; k < 3; k++) {
		st->origin[k] = (int16_t)lrintf(o->origin[k] * 8.0f);
		st->angles[k] = (uint8_t)((int)(e->angles[k] * 256.0f / 360.0f) & 255);
	}
	st->frame = e->frame;
	st->colormap = e->colormap;
	st->skinnum = e->skin;
	st->effects = e->effects;
}

void sv_entity_state(const struct server *sv, int num, struct entity_state *st)
{
	quantise_state(sv, num, st);
}

/* Brush entities and spawn spots from the map; QuakeC-free, so only what
 * the engine itself needs.  Returns the number of unknown classes seen. */
static void spawn_map_entities(struct server *sv)
{
	const struct ent_list *el = &sv->map->ents;
	int dm_spots = 0;

	sv->num_spawns = 0;
	for (uint32_t i = 0; i < el->num_ents; i++) {
		const char *cls = ent_value(el, i, "classname");
		const char *model = ent_value(el, i, "model");
		vec3_t org = {0, 0, 0}, ang = {0, 0, 0};
		const char *a;

		if (!cls)
			continue;
		parse_vec(ent_value(el, i, "origin"), org);
		if ((a = ent_value(el, i, "angle")) != NULL)
			ang[1] = (float)atof(a);
		parse_vec(ent_value(el, i, "angles"), ang);

		if (strcmp(cls, "worldspawn") == 0) {
			const char *msg = ent_value(el, i, "message");

			strlcpy(sv->levelname, msg ? msg : "", sizeof(sv->levelname));
			continue;
		}
		if (strcmp(cls, "info_player_deathmatch") == 0 ||
		    strcmp(cls, "info_player_start") == 0 ||
		    strcmp(cls, "info_player_coop") == 0) {
			bool dm = cls[12] == 'd';

			/* deathmatch spots first; others only if there are none */
			if (dm && dm_spots == 0)
				sv->num_spawns = 0;
			if (!dm && dm_spots > 0)
				continue;
			if (sv->num_spawns < sv->max_entities) {
				vec_copy(org, sv->spawn_origin[sv->num_spawns]);
				vec_copy(ang, sv->spawn_angles[sv->num_spawns]);
				sv->num_spawns++;
			}
			dm_spots += dm;
			continue;
		}
		if (!model || model[0] != '*')
			continue;	/* point entities: the game's (issue 7) */

		int sub = atoi(model + 1);
		if (sub <= 0 || sub >= sv->map->num_models) {
			qwd_logf(&sv->log, QWD_LOG_WARN,
				 "map entity %u (%s): model %s does not exist, skipped",
				 i, cls, model);
			continue;
		}
		int num = alloc_entity(sv);
		if (num < 0) {
			qwd_logf(&sv->log, QWD_LOG_WARN, "too many entities, %s skipped", cls);
			continue;
		}
		struct entity *e = &sv->ents[num];
		struct world_obj *o = &sv->objs[num];

		memset(e, 0, sizeof(*e));
		vec_copy(org, o->origin);
		vec_copy(sv->map->models[sub].mins, o->mins);
		vec_copy(sv->map->models[sub].maxs, o->maxs);
		o->model = sub;
		o->owner = -1;
		if (strncmp(cls, "trigger_", 8) == 0) {
			/* touch volumes: collide as triggers, never drawn */
			e->kind = ENT_TRIGGER;
			o->solid = SOLID_TRIGGER;
		} else if (strcmp(cls, "func_illusionary") == 0) {
			e->kind = ENT_BRUSH;
			o->solid = SOLID_NOT;
			e->modelindex = (uint16_t)add_model(sv, model);
		} else {
			e->kind = ENT_BRUSH;
			o->solid = SOLID_BSP;
			e->modelindex = (uint16_t)add_model(sv, model);
		}
		world_link(&sv->world, o);
	}
	if (sv->num_spawns == 0) {
		/* a map with no spawn spot: the middle of the world, high */
		const struct bsp_model *w = &sv->map->models[0];

		for (int k = 0; k < 3; k++)
			sv->spawn_origin[0][k] = (w->mins[k] + w->maxs[k]) * 0.5f;
		vec_set(sv->spawn_angles[0], 0, 0, 0);
		sv->num_spawns = 1;
		qwd_logf(&sv->log, QWD_LOG_WARN, "%s has no spawn points", sv->mapname);
	}
}

/* Append one message to the signon buffers, starting a new buffer when it
 * does not fit in the current one. */
static void signon_add(struct server *sv, const uint8_t *data, size_t len)
{
	if (sv->num_signon == 0 ||
	    sv->signon_len[sv->num_signon - 1] + len > MAX_MSGLEN - 64) {
		if (sv->num_signon == SV_SIGNON_BUFFERS)
			return;
		sv->signon_len[sv->num_signon++] = 0;
	}
	memcpy(sv->signon[sv->num_signon - 1] + sv->signon_len[sv->num_signon - 1],
	       data, len);
	sv->signon_len[sv->num_signon - 1] += len;
}

static void build_signon(struct server *sv)
{
	uint8_t buf[64];
	struct msg_buf m;

	sv->num_signon = 0;
	for (int num = 0; num < sv->num_ents; num++) {
		struct entity *e = &sv->ents[num];
		struct entity_state *b = &e->baseline;

		if (e->kind != ENT_BRUSH || !e->modelindex)
			continue;
		quantise_state(sv, num, b);
		e->has_baseline = true;
		msg_init(&m, buf, sizeof(buf));
		if (sv->objs[num].solid == SOLID_NOT) {
			msg_write_byte(&m, svc_spawnstatic);
		} else {
			if (num >= MAX_EDICTS_P28)
				continue;	/* stock clients cannot have it */
			msg_write_byte(&m, svc_spawnbaseline);
			msg_write_short(&m, num);
		}
		msg_write_byte(&m, b->modelindex);
		msg_write_byte(&m, b->frame);
		msg_write_byte(&m, b->colormap);
		msg_write_byte(&m, b->skinnum);
		for (int k = 0; k < 3; k++) {
			msg_write_short(&m, b->origin[k]);
			msg_write_byte(&m, b->angles[k]);
		}
		signon_add(sv, m.data, m.cursize);
	}
	if (sv->num_signon == 0)
		sv->signon_len[sv->num_signon++] = 0;
}

int server_map(struct server *sv, const char *name, char *err, size_t errlen)
{
	char path[SV_PATH + 80];
	struct bsp_map *map;

	if (!map_name_ok(name)) {
		snprintf(err, errlen, "map \"%s\": not a valid map name", name);
		return -1;
	}
	if (!resolve_map(sv, name, path, sizeof(path))) {
		snprintf(err, errlen, "map \"%s\": no maps/%s.bsp under %s/%s, %s/id1 or %s",
			 name, name, sv->basedir, sv->gamedir, sv->basedir, QWD_MAPDIR);
		return -1;
	}
	map = bsp_load(path, err, errlen);
	if (!map)
		return -1;

	/* from here on the new level replaces the old one */
	bsp_free(sv->map);
	sv->map = map;
	{
		const char *base = strrchr(name, '/');
		char *dot;

		strlcpy(sv->mapname, base ? base + 1 : name, sizeof(sv->mapname));
		dot = strrchr(sv->mapname, '.');
		if (dot && strcmp(dot, ".bsp") == 0)
			*dot = '\0';
	}
	sv->spawncount++;
	sv->time = 1.0;		/* QuakeWorld starts levels at 1 s */
	memset(sv->ents, 0, sizeof(*sv->ents) * (size_t)sv->max_entities);
	memset(sv->objs, 0, sizeof(*sv->objs) * (size_t)sv->max_entities);
	world_init(&sv->world, map, sv->objs, sv->max_entities);
	sv_grid_init(sv);
	sv->objs[0].solid = SOLID_BSP;
	sv->objs[0].model = 0;
	sv->ents[0].kind = ENT_WORLD;

	/* model list */
	sv->num_models = 1;
	sv->model_names[0][0] = '\0';
	sv->model_precache[0] = sv->model_names[0];
	{
		char mapmodel[80];

		snprintf(mapmodel, sizeof(mapmodel), "maps/%s.bsp", sv->mapname);
		add_model(sv, mapmodel);
	}
	for (int i = 1; i < map->num_models && sv->num_models < MAX_MODELS - 2; i++) {
		char sub[16];

		snprintf(sub, sizeof(sub), "*%d", i);
		add_model(sv, sub);
	}
	sv->player_model = add_model(sv, "progs/player.mdl");
	add_model(sv, "progs/eyes.mdl");
	sv->num_sounds = 1;
	sv->sound_precache[0] = "";

	/* entities: world, the 32 stock player slots, the map's, then the
	 * extension player slots */
	sv->num_ents = 1 + MAX_CLIENTS;
	for (int i = 1; i <= MAX_CLIENTS; i++)
		sv->ents[i].kind = ENT_FREE;
	spawn_map_entities(sv);
	sv->first_ext_entity = sv->num_ents;
	if (sv->maxclients > MAX_CLIENTS)
		sv->num_ents += sv->maxclients - MAX_CLIENTS;
	if (sv->num_ents > sv->max_entities)
		sv->num_ents = sv->max_entities;
	build_signon(sv);

	for (int i = 0; i < MAX_LIGHTSTYLES; i++) {
		const char *s = i < (int)(sizeof(default_lightstyles) / sizeof(default_lightstyles[0]))
				? default_lightstyles[i] : (i == 63 ? "a" : "");
		strlcpy(sv->lightstyles[i], s, sizeof(sv->lightstyles[i]));
	}
	sv->next_spawn = 0;
	sv->state_ring_next += sv->state_ring_size;	/* no old frame is a base */
	info_set_star_value_for_key(sv->serverinfo, sizeof(sv->serverinfo),
				    "map", sv->mapname);

	/* clients come along: each restarts its signon on the new level */
	for (int i = 0; i < sv->maxclients; i++) {
		struct client *cl = &sv->clients[i];

		if (cl->state < CS_CONNECTED)
			continue;
		cl->state = CS_CONNECTED;
		sv_client_setup(sv, cl);
		sv_reliable_stufftext(cl, "changing\n");
		sv_reliable_stufftext(cl, "reconnect\n");
	}
	qwd_logf(&sv->log, QWD_LOG_INFO,
		 "map %s loaded from %s: %d models, %d entities, %d spawn points, "
		 "checksum2 %d, %d signon buffers", sv->mapname, path,
		 sv->num_models, sv->num_ents, sv->num_spawns,
		 (int32_t)map->checksum2, sv->num_signon);
	return 0;
}

/* ---- player spawn ----------------------------------------------------- */

static const vec3_t player_mins = {-16, -16, -24};
static const vec3_t player_maxs = {16, 16, 32};

/* is a player box at org free of the world and of other players? */
static bool spot_free(struct server *sv, const vec3_t org, int self)
{
	struct world_obj *hits[8];

	if (world_test_box(&sv->world, org, player_mins, player_maxs,
			   &sv->objs[self]))
		return false;
	vec3_t mins, maxs;
	vec_add(org, player_mins, mins);
	vec_add(org, player_maxs, maxs);
	int n = world_area_objs(&sv->world, mins, maxs, AREA_SOLID, hits, 8);
	for (int i = 0; i < n && i < 8; i++)
		if (hits[i]->id != self && sv->ents[hits[i]->id].kind == ENT_PLAYER)
			return false;
	return true;
}

/* A spawn spot for a player: the next spot in turn that nobody stands on;
 * when all are taken, a free place near one of them (rings of 40 units,
 * so hundreds of players can join a map with eight spots). */
static void choose_spawn(struct server *sv, int self, vec3_t org, vec3_t ang)
{
	int n = sv->num_spawns;

	for (int i = 0; i < n; i++) {
		int s = (sv->next_spawn + i) % n;

		if (spot_free(sv, sv->spawn_origin[s], self)) {
			vec_copy(sv->spawn_origin[s], org);
			vec_copy(sv->spawn_angles[s], ang);
			sv->next_spawn = (s + 1) % n;
			return;
		}
	}
	for (int ring = 1; ring <= 12; ring++) {
		for (int i = 0; i < n; i++) {
			int s = (sv->next_spawn + i) % n;

			for (int k = 0; k < 8 * ring; k++) {
				float a = (float)k * 6.2831853f / (float)(8 * ring);
				vec3_t p = {sv->spawn_origin[s][0] + 40.0f * (float)ring * cosf(a),
					    sv->spawn_origin[s][1] + 40.0f * (float)ring * sinf(a),
					    sv->spawn_origin[s][2]};
				struct trace tr;

				if (!spot_free(sv, p, self))
					continue;
				/* reachable from the spot: no wall in between */
				world_move(&sv->world, sv->spawn_origin[s], player_mins,
					   player_maxs, p, MOVE_NOMONSTERS, &sv->objs[self], &tr);
				if (tr.fraction < 1.0f || tr.startsolid)
					continue;
				vec_copy(p, org);
				vec_copy(sv->spawn_angles[s], ang);
				sv->next_spawn = (s + 1) % n;
				return;
			}
		}
	}
	/* everything is full: stack on the next spot (players may overlap) */
	vec_copy(sv->spawn_origin[sv->next_spawn], org);
	vec_copy(sv->spawn_angles[sv->next_spawn], ang);
	sv->next_spawn = (sv->next_spawn + 1) % n;
}

void sv_spawn_player(struct server *sv, struct client *cl)
{
	int num = sv_player_entity(sv, cl->slot);
	struct entity *e = &sv->ents[num];
	struct world_obj *o = &sv->objs[num];
	vec3_t org, ang;

	world_unlink(&sv->world, o);
	memset(e, 0, sizeof(*e));
	e->kind = ENT_PLAYER;
	e->modelindex = (uint16_t)sv->player_model;
	e->health = 100;
	e->colormap = (uint8_t)(cl->slot < MAX_CLIENTS ? cl->slot + 1 : 0);
	choose_spawn(sv, num, org, ang);
	org[2] += 1;	/* as QuakeWorld: a unit above the spot */
	o->solid = cl->spectator ? SOLID_NOT : SOLID_SLIDEBOX;
	o->model = -1;
	o->owner = -1;
	vec_copy(org, o->origin);
	vec_copy(player_mins, o->mins);
	vec_copy(player_maxs, o->maxs);
	world_link(&sv->world, o);
	sv_grid_move(sv, cl->slot, org);
	vec_copy(ang, e->angles);
	pmove_player_reset(&cl->pm, org, ang);
	cl->pm.pm_type = cl->spectator ? PM_SPECTATOR : PM_NORMAL;
}
