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
#include "core.h"

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
void sv_level_read_name(struct server *sv)
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
void sv_level_build_signon(struct server *sv)
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

bool sv_level_find(const struct server *sv, const char *name, char *path,
		   size_t size, char *err, size_t errlen)
{
	if (!map_name_ok(name)) {
		snprintf(err, errlen, "map \"%s\": not a valid map name", name);
		return false;
	}
	if (!resolve_map(sv, name, path, size)) {
		snprintf(err, errlen, "map \"%s\": no maps/%s.bsp under %s/%s, %s/id1 or %s",
			 name, name, sv->basedir, sv->gamedir, sv->basedir,
			 sv_bundled_map_dir());
		return false;
	}
	return true;
}
