/*
 * level.c -- loading a level: the map, its precache lists, its entities,
 * their baselines and the signon buffers; spawning players.
 *
 * Design note
 *   server_map() loads the new map completely before touching the running
 *   level, so a map the loader refuses leaves the server as it was.  Then,
 *   in order: the model list ("maps/<name>.bsp", the submodels "*1".."*N"),
 *   the world, and the game's level (game_load_level: it spawns the map's
 *   entities and precaches through the services, which add to the model
 *   and sound lists and put static sounds in the signon, and sets the
 *   light styles, which start the level empty: id's defaults are the
 *   worldspawn's, so a switchable light that starts off stays off); last the
 *   baselines of every entity in use with a model (svc_spawnbaseline) and
 *   the static ones (svc_spawnstatic, func_illusionary), appended to the
 *   signon buffers clients receive at prespawn in MAX_MSGLEN pieces.
 *
 *   Entity numbers (the game's layout, game.h): 0 the world; 1..32 the
 *   player slots stock clients can see; then the map's entities and what
 *   the game spawns while it runs (below 512 for protocol 28 while the map
 *   has fewer than 479 of them); the player slots past 32 at the top of
 *   the array, which only extension clients are told about.
 *
 *   Map names resolve as QuakeWorld servers resolve them: maps/<name>.bsp
 *   under <basedir>/<gamedir>, then <basedir>/id1, then the bundled maps
 *   (so `qwd` with no arguments finds "small"); a name ending in ".bsp" is
 *   taken as a path.  The bundled maps are found beside the binary, so the
 *   same binary works where it was built (build/qwd, build/maps/), where
 *   `make install` put it (bin/qwd, share/qwd/maps/) and in the container,
 *   and else in the folder it was built with (QWD_MAPDIR).
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bsd/string.h>

#ifndef QWD_MAPDIR
#define QWD_MAPDIR "maps"
#endif

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
	snprintf(path, pathlen, "%s/%s.bsp", sv_bundled_map_dir(), name);
	return file_exists(path);
}

int sv_add_model(struct server *sv, const char *name)
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

int sv_add_sound(struct server *sv, const char *name)
{
	for (int i = 1; i < sv->num_sounds; i++)
		if (strcmp(sv->sound_names[i], name) == 0)
			return i;
	if (sv->num_sounds >= MAX_SOUNDS)
		return 0;
	strlcpy(sv->sound_names[sv->num_sounds], name, sizeof(sv->sound_names[0]));
	sv->sound_precache[sv->num_sounds] = sv->sound_names[sv->num_sounds];
	return sv->num_sounds++;
}

int sv_write_list_page(const struct server *sv, bool models, int start,
		       struct msg_buf *m)
{
	int count = models ? sv->num_models : sv->num_sounds;
	const char *const *names = models ? sv->model_precache : sv->sound_precache;
	size_t begin = m->cursize;
	int i;

	msg_write_byte(m, models ? svc_modellist : svc_soundlist);
	msg_write_byte(m, start);
	for (i = start + 1; i < count && m->cursize - begin < MAX_MSGLEN / 2; i++)
		msg_write_string(m, names[i]);
	msg_write_byte(m, 0);
	msg_write_byte(m, i < count ? i - 1 : 0);
	return i < count ? i - 1 : 0;
}

/* A folder holding small.bsp, the map qwd serves by default. */
static bool is_map_dir(const char *dir)
{
	char path[2 * SV_PATH];

	snprintf(path, sizeof(path), "%s/small.bsp", dir);
	return file_exists(path);
}

/* The bundled maps' folder, found once (at server_init, before anything
 * else runs) and a constant of the process from then on:
 * <exe dir>/maps, <exe dir>/../share/qwd/maps, else QWD_MAPDIR. */
const char *sv_bundled_map_dir(void)
{
	static char dir[SV_PATH];
	char exe[SV_PATH];
	ssize_t n;
	char *slash;

	if (dir[0])
		return dir;
	strlcpy(dir, QWD_MAPDIR, sizeof(dir));
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return dir;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return dir;
	*slash = '\0';
	{
		char near[SV_PATH + 32], shared[SV_PATH + 32];

		snprintf(near, sizeof(near), "%s/maps", exe);
		snprintf(shared, sizeof(shared), "%s/../share/qwd/maps", exe);
		if (is_map_dir(near))
			strlcpy(dir, near, sizeof(dir));
		else if (is_map_dir(shared))
			strlcpy(dir, shared, sizeof(dir));
	}
	return dir;
}

/* entity index of a player slot (see the design note) */
int sv_player_entity(const struct server *sv, int slot)
{
	return game_player_entity(sv->game, slot);
}

static void quantise_state(const struct server *sv, int num,
			   struct entity_state *st)
{
	const struct game_entity *e = &sv->game->ents[num];
	const struct world_obj *o = &sv->objs[num];

	memset(st, 0, sizeof(*st));
	st->number = (uint16_t)num;
	st->modelindex = (uint16_t)e->modelindex;
	for (int k = 0; k < 3; k++) {
		st->origin[k] = (int16_t)lrintf(o->origin[k] * 8.0f);
		st->angles[k] = (uint8_t)((int)(e->angles[k] * 256.0f / 360.0f) & 255);
	}
	st->frame = (uint8_t)e->frame;
	st->colormap = (uint8_t)e->colormap;
	st->skinnum = (uint8_t)e->skin;
	st->effects = (uint8_t)e->effects;
}

void sv_entity_state(const struct server *sv, int num, struct entity_state *st)
{
	quantise_state(sv, num, st);
}

/* the level's name for the scoreboard: worldspawn's message */
static void read_levelname(struct server *sv)
{
	const struct ent_list *el = &sv->map->ents;

	sv->levelname[0] = '\0';
	for (uint32_t i = 0; i < el->num_ents; i++) {
		const char *cls = ent_value(el, i, "classname");
		const char *msg = ent_value(el, i, "message");

		if (cls && strcmp(cls, "worldspawn") == 0) {
			strlcpy(sv->levelname, msg ? msg : "", sizeof(sv->levelname));
			return;
		}
	}
}

/* Append one message to the signon buffers, starting a new buffer when it
 * does not fit in the current one. */
void sv_signon_add(struct server *sv, const uint8_t *data, size_t len)
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

/* Baselines of the entities in use with a model, and the static ones;
 * appended after what game_load_level put in the signon (static sounds). */
static void build_signon(struct server *sv)
{
	const struct game *g = sv->game;
	uint8_t buf[64];
	struct msg_buf m;

	for (int num = 1; num < g->num_entities; num++) {
		const struct game_entity *e = &g->ents[num];
		struct entity_state *b = &sv->baselines[num];

		if (!e->inuse || !e->modelindex || e->client >= 0)
			continue;
		msg_init(&m, buf, sizeof(buf));
		if (e->is_static) {
			quantise_state(sv, num, b);
			msg_write_byte(&m, svc_spawnstatic);
		} else {
			if (num >= MAX_EDICTS_P28)
				continue;	/* stock clients cannot have it */
			quantise_state(sv, num, b);
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
		if (e->is_static)
			memset(b, 0, sizeof(*b));	/* never in packet entities */
		sv_signon_add(sv, m.data, m.cursize);
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
			 name, name, sv->basedir, sv->gamedir, sv->basedir,
			 sv_bundled_map_dir());
		return -1;
	}
	map = bsp_load(path, err, errlen);
	if (!map)
		return -1;

	/* from here on the new level replaces the old one */
	sv_mvd_level_end(sv);
	bsp_free(sv->map);
	sv->map = map;
	/* a fat PVS is a function of the map and the view point: the old
	 * level's are void, and the rows are this map's size */
	free(sv->view_pvs);
	sv->view_pvs_row = (size_t)map->vis_row_bytes;
	sv->view_pvs = calloc((size_t)sv->maxclients, sv->view_pvs_row ? sv->view_pvs_row : 1);
	for (int i = 0; i < sv->maxclients; i++)
		sv->clients[i].pvs_valid = false;
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
	sv->physics_time = sv->time;
	sv_pause_level(sv);
	sv->pending_map[0] = '\0';
	read_levelname(sv);
	memset(sv->baselines, 0, sizeof(*sv->baselines) * (size_t)sv->max_entities);
	memset(sv->objs, 0, sizeof(*sv->objs) * (size_t)sv->max_entities);
	world_init_depth(&sv->world, map, sv->objs, sv->max_entities,
			 world_depth_for(sv->maxclients));
	sv_grid_init(sv);

	/* model list: the map and its submodels first, as clients expect */
	sv->num_models = 1;
	sv->model_names[0][0] = '\0';
	sv->model_precache[0] = sv->model_names[0];
	{
		char mapmodel[80];

		snprintf(mapmodel, sizeof(mapmodel), "maps/%s.bsp", sv->mapname);
		sv_add_model(sv, mapmodel);
	}
	for (int i = 1; i < map->num_models && sv->num_models < MAX_MODELS - 2; i++) {
		char sub[16];

		snprintf(sub, sizeof(sub), "*%d", i);
		sv_add_model(sv, sub);
	}
	sv->num_sounds = 1;
	sv->sound_names[0][0] = '\0';
	sv->sound_precache[0] = sv->sound_names[0];
	sv->num_signon = 0;
	for (int i = 0; i < sv->maxclients; i++)
		sv->clients[i].datagram_len = 0;

	/* the game's level: entities, precaches, static sounds, and the light
	 * styles (the worldspawn's, then the switchable lights'; the rest
	 * stay empty) */
	for (int i = 0; i < MAX_LIGHTSTYLES; i++)
		sv->lightstyles[i][0] = '\0';
	sv->game->movevars = sv->movevars;
	if (game_load_level(sv->game, &sv->world, map, sv->mapname, &sv->game_svc,
			    sv->time, err, errlen) != 0) {
		qwd_logf(&sv->log, QWD_LOG_ERROR, "map %s: %s", sv->mapname, err);
		return -1;
	}
	build_signon(sv);
	sv_rings_forget(sv);	/* no old frame is a base */
	info_set_star_value_for_key(sv->serverinfo, sizeof(sv->serverinfo),
				    "map", sv->mapname);

	/* clients come along: each restarts its signon on the new level */
	for (int i = 0; i < sv->maxclients; i++) {
		struct client *cl = &sv->clients[i];

		if (cl->state < CS_CONNECTED)
			continue;
		cl->state = CS_CONNECTED;
		cl->signon_since = sv->realtime;
		sv_client_setup(sv, cl);
		cl->styles_pending = 0;	/* the level's come with its spawn */
		sv_download_level_changed(sv, cl);
		sv_reliable_stufftext(cl, "changing\n");
		sv_reliable_stufftext(cl, "reconnect\n");
		sv_reliable_mark_reset(cl);	/* "changing" clears the level */
	}
	qwd_logf(&sv->log, QWD_LOG_INFO,
		 "map %s loaded from %s: %d models, %d sounds, %d entities, "
		 "checksum2 %d, %d signon buffers", sv->mapname, path,
		 sv->num_models, sv->num_sounds, sv->game->num_entities,
		 (int32_t)map->checksum2, sv->num_signon);
	sv_log_newmap(sv);
	return 0;
}
