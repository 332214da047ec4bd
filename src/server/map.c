/*
 * map.c -- the level change: "map NAME", the game's changelevel, the
 * first level at start-up.
 *
 * Design note
 *   The top of the core's level work: level.c finds and describes a
 *   level (its name, precaches, signon, entity states); this file puts a
 *   new one in place of the old and brings everything along.  A map the
 *   loader refuses leaves the level as it is.  From the moment the new map
 *   is loaded the old level is gone: the features are told it ends (the
 *   demo ends with it), the world, the precaches, the baselines and the
 *   signon are made again, every reply ring forgets its frames (no old
 *   frame is a delta base), each connected client restarts its signon
 *   ("changing", "reconnect") with the features told (a download goes
 *   on), and the features are told the new level began.  The game's clock
 *   starts at 1 s, unpaused, as in QuakeWorld.
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

int server_map(struct server *sv, const char *name, char *err, size_t errlen)
{
	char path[SV_PATH + 80];
	struct bsp_map *map;

	if (!sv_level_find(sv, name, path, sizeof(path), err, errlen))
		return -1;
	map = bsp_load(path, err, errlen);
	if (!map)
		return -1;

	/* from here on the new level replaces the old one */
	sv_hooks_level_end(sv);	/* the demo ends with it (mvd.c) */
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
	sv_level_read_name(sv);
	memset(sv->baselines, 0, sizeof(*sv->baselines) * (size_t)sv->max_entities);
	memset(sv->objs, 0, sizeof(*sv->objs) * (size_t)sv->max_entities);
	world_free(&sv->world);	/* the old level's lists */
	if (world_init_depth(&sv->world, map, sv->objs, sv->max_entities,
			     world_depth_for(sv->maxclients)) != 0) {
		snprintf(err, errlen, "map %s: out of memory for the areanode "
			 "lists of %d entities", sv->mapname, sv->max_entities);
		qwd_logf(&sv->log, QWD_LOG_ERROR, "%s", err);
		return -1;
	}
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
	sv_events_reset(sv);

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
	sv_level_build_signon(sv);
	sv_rings_forget(sv);	/* no old frame is a base */
	info_set_star_value_for_key(sv->serverinfo, sizeof(sv->serverinfo),
				    "map", sv->mapname);

	/* clients come along: each restarts its signon on the new level */
	for (int i = 0; i < sv->maxclients; i++) {
		struct client *cl = &sv->clients[i];

		if (cl->state < CS_CONNECTED)
			continue;
		cl->state = CS_CONNECTED;
		sv_entry_sync(sv, cl);
		cl->signon_since = sv->realtime;
		sv_client_setup(sv, cl);
		cl->styles_pending = 0;	/* the level's come with its spawn */
		sv_hooks_level_client(sv, cl);	/* a download goes on */
		sv_reliable_stufftext(cl, "changing\n");
		sv_reliable_stufftext(cl, "reconnect\n");
		sv_reliable_mark_reset(cl);	/* "changing" clears the level */
	}
	qwd_logf(&sv->log, QWD_LOG_INFO,
		 "map %s loaded from %s: %d models, %d sounds, %d entities, "
		 "checksum2 %d, %d signon buffers", sv->mapname, path,
		 sv->num_models, sv->num_sounds, sv->game->num_entities,
		 (int32_t)map->checksum2, sv->num_signon);
	sv_hooks_level_begin(sv);	/* the frag log's newmap */
	return 0;
}
