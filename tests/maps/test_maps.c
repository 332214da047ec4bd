/*
 * test_maps.c -- the project's own maps (maps/small.map, maps/large.map,
 * compiled by `make maps` into build/maps/) as the server sees them.
 *
 * Design note
 *   The maps are the test bed of the scaling study: the small one forces
 *   players together, the large one spreads them over many objects.  What
 *   the study needs from them is checked here through qwd's own loader and
 *   server, not through the compiler that made them:
 *     - counts: rooms (named probe points from tests/maps/map_layout.h,
 *       written by maps/gen/mkmaps.py with the maps), spawn points, and
 *       for the large map the brush entities, liquids, teleporters and
 *       items a deathmatch level needs;
 *     - every spawn point is usable: its leaf is empty, a player box there
 *       is not in solid, and a trace down meets the floor within 256;
 *     - visibility: rooms joined by a corridor, doorway or stairs are in
 *       each other's PVS, and some sampled line of sight joins them;
 *       rooms listed as hidden are joined by none of the sampled lines
 *       (75 points spread over each room) and are not in each other's
 *       PVS;
 *     - floor area (standable, dry floor, sampled on a 32-unit grid):
 *       large >= 4 x small;
 *     - capacity: a server with 1024 slots spawns 1024 players on each map
 *       (src/server/level.c choose_spawn) with no two overlapping, none in
 *       the world or a door, each above a dry floor;
 *     - the arena (maps/arena.map, for tests that need more players in
 *       one view than the stock protocol's 32): more than 32 usable spawn
 *       points, each in the PVS and the line of sight of every other.
 *   The .bsp files are found in build/maps ($QWD_MAPS_DIR overrides), so the
 *   maps must be built first: `make test` builds `all`, which builds them.
 */
#include "../harness.h"

#include "../server/svall.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_layout.h"

enum {
	GRID = 32,		/* floor area sample spacing */
	PLAYERS = 1024,		/* the scaling study's largest count */
	FLOOR_REACH = 256	/* a spawn point's floor is at most this far */
};

static const vec3_t player_mins = {-16, -16, -24};
static const vec3_t player_maxs = {16, 16, 32};
static const vec3_t zero = {0, 0, 0};

struct map_desc {
	const char *name;
	const struct map_room *rooms;
	int num_rooms;
	const struct map_pair *seen, *hidden;
	int num_seen, num_hidden;
	const struct map_probe *probes;
	int num_probes;
	int spawns;
};

static const struct map_desc small_desc = {
	"small", small_rooms, SMALL_ROOMS,
	small_seen, small_hidden,
	(int)(sizeof(small_seen) / sizeof(small_seen[0])),
	(int)(sizeof(small_hidden) / sizeof(small_hidden[0])),
	small_probes, (int)(sizeof(small_probes) / sizeof(small_probes[0])),
	SMALL_SPAWNS
};

static const struct map_desc large_desc = {
	"large", large_rooms, LARGE_ROOMS,
	large_seen, large_hidden,
	(int)(sizeof(large_seen) / sizeof(large_seen[0])),
	(int)(sizeof(large_hidden) / sizeof(large_hidden[0])),
	large_probes, (int)(sizeof(large_probes) / sizeof(large_probes[0])),
	LARGE_SPAWNS
};

static void map_path(const char *name, char *out, size_t len)
{
	const char *d = getenv("QWD_MAPS_DIR");

	snprintf(out, len, "%s/%s.bsp", d && *d ? d : "build/maps", name);
}

static struct bsp_map *load(const char *name)
{
	char path[512], err[512];
	struct bsp_map *m;

	map_path(name, path, sizeof(path));
	m = bsp_load(path, err, sizeof(err));
	if (!m)
		fail_msg("%s (build the maps first: make maps): %s", path, err);
	return m;
}

/* ---- small helpers on the loaded map ------------------------------------ */

static void trace_player(const struct bsp_map *m, const vec3_t a,
			 const vec3_t b, struct trace *tr)
{
	bsp_trace_box(m, 0, zero, player_mins, player_maxs, a, b, tr);
}

static bool box_free(const struct bsp_map *m, const vec3_t org)
{
	struct trace tr;

	trace_player(m, org, org, &tr);
	return !tr.startsolid && !tr.allsolid;
}

/* distance from org down to the floor a player there lands on, or -1 */
static float floor_below(const struct bsp_map *m, const vec3_t org, float reach)
{
	vec3_t end = {org[0], org[1], org[2] - reach};
	struct trace tr;

	trace_player(m, org, end, &tr);
	if (tr.startsolid || tr.fraction >= 1.0f)
		return -1;
	return org[2] - tr.endpos[2];
}

static int room_index(const struct map_desc *d, const char *name)
{
	for (int i = 0; i < d->num_rooms; i++)
		if (strcmp(d->rooms[i].name, name) == 0)
			return i;
	fail_msg("%s: no room named %s in map_layout.h", d->name, name);
	return -1;
}

static int32_t room_leaf(const struct bsp_map *m, const struct map_desc *d,
			 const char *name)
{
	const struct map_room *r = &d->rooms[room_index(d, name)];
	int32_t leaf = bsp_point_leaf(m, r->probe);

	if (leaf <= 0 || leaf > m->num_visleafs ||
	    m->leafs[leaf].contents != CONTENTS_EMPTY)
		fail_msg("%s: room %s: probe (%g %g %g) is in leaf %d, not an "
			 "empty visible leaf", d->name, name, r->probe[0],
			 r->probe[1], r->probe[2], leaf);
	return leaf;
}

static uint32_t count_class(const struct bsp_map *m, const char *cls)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < m->ents.num_ents; i++) {
		const char *c = ent_value(&m->ents, i, "classname");

		n += c && strcmp(c, cls) == 0;
	}
	return n;
}

static bool entity_origin(const struct bsp_map *m, uint32_t i, vec3_t org)
{
	const char *s = ent_value(&m->ents, i, "origin");

	return s && sscanf(s, "%f %f %f", &org[0], &org[1], &org[2]) == 3;
}

/* ---- counts, rooms, spawn points ---------------------------------------- */

static void check_rooms_and_probes(const struct map_desc *d)
{
	struct bsp_map *m = load(d->name);

	for (int i = 0; i < d->num_rooms; i++) {
		room_leaf(m, d, d->rooms[i].name);
		if (!box_free(m, d->rooms[i].probe))
			fail_msg("%s: room %s: a player does not fit at its probe",
				 d->name, d->rooms[i].name);
	}
	for (int i = 0; i < d->num_probes; i++) {
		int c = bsp_point_contents(m, d->probes[i].point);

		if (c != d->probes[i].contents)
			fail_msg("%s: %s at (%g %g %g): contents %d, expected %d",
				 d->name, d->probes[i].name, d->probes[i].point[0],
				 d->probes[i].point[1], d->probes[i].point[2], c,
				 d->probes[i].contents);
	}
	bsp_free(m);
}

static void check_spawns(const struct map_desc *d, uint32_t min_spawns)
{
	struct bsp_map *m = load(d->name);
	uint32_t n = 0;

	for (uint32_t i = 0; i < m->ents.num_ents; i++) {
		const char *c = ent_value(&m->ents, i, "classname");
		vec3_t org;
		int32_t leaf;
		float fl;

		if (!c || (strcmp(c, "info_player_deathmatch") != 0 &&
			   strcmp(c, "info_player_start") != 0))
			continue;
		n += c[12] == 'd';
		if (!entity_origin(m, i, org))
			fail_msg("%s: entity %u (%s) has no origin", d->name, i, c);
		leaf = bsp_point_leaf(m, org);
		if (leaf <= 0 || m->leafs[leaf].contents != CONTENTS_EMPTY)
			fail_msg("%s: spawn (%g %g %g): leaf %d is not empty",
				 d->name, org[0], org[1], org[2], leaf);
		if (!box_free(m, org))
			fail_msg("%s: spawn (%g %g %g): a player box there is in solid",
				 d->name, org[0], org[1], org[2]);
		fl = floor_below(m, org, FLOOR_REACH);
		if (fl < 0)
			fail_msg("%s: spawn (%g %g %g): no floor within %d units",
				 d->name, org[0], org[1], org[2], FLOOR_REACH);
	}
	print_message("%s: %u deathmatch spawn points, all valid\n", d->name, n);
	assert_int_equal(n, (uint32_t)d->spawns);
	assert_true(n >= min_spawns);
	bsp_free(m);
}

static void test_small_layout(void **state)
{
	(void)state;
	assert_true(SMALL_ROOMS >= 8 && SMALL_ROOMS <= 12);
	check_rooms_and_probes(&small_desc);
	check_spawns(&small_desc, 32);
}

static void test_large_layout(void **state)
{
	(void)state;
	check_rooms_and_probes(&large_desc);
	check_spawns(&large_desc, 64);
}

/* The large map's objects: lifts, doors, teleporters with destinations,
 * liquids (checked as probes above), items and weapons. */
static void test_large_objects(void **state)
{
	static const char *const needed[] = {
		"func_plat", "func_door", "trigger_teleport",
		"info_teleport_destination", "item_health", "item_armor1",
		"weapon_rocketlauncher", "item_rockets", "item_shells",
		"item_spikes", "item_cells"
	};
	struct bsp_map *m = load("large");
	bool water = false, lava = false;

	(void)state;
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (count_class(m, needed[i]) == 0)
			fail_msg("large: no %s", needed[i]);
	for (int i = 0; i < large_desc.num_probes; i++) {
		water |= large_desc.probes[i].contents == CONTENTS_WATER;
		lava |= large_desc.probes[i].contents == CONTENTS_LAVA;
	}
	assert_true(water && lava);

	/* every teleporter leads to exactly one destination where a player
	 * fits (at the origin, and 27 higher where id's QuakeC puts him) */
	for (uint32_t i = 0; i < m->ents.num_ents; i++) {
		const char *c = ent_value(&m->ents, i, "classname");
		const char *target, *model;
		int found = 0;

		if (!c || strcmp(c, "trigger_teleport") != 0)
			continue;
		target = ent_value(&m->ents, i, "target");
		model = ent_value(&m->ents, i, "model");
		assert_non_null(target);
		assert_true(model && model[0] == '*' && atoi(model + 1) > 0 &&
			    atoi(model + 1) < m->num_models);
		for (uint32_t j = 0; j < m->ents.num_ents; j++) {
			const char *c2 = ent_value(&m->ents, j, "classname");
			const char *tn = ent_value(&m->ents, j, "targetname");
			vec3_t org;

			if (!c2 || strcmp(c2, "info_teleport_destination") != 0 ||
			    !tn || strcmp(tn, target) != 0)
				continue;
			found++;
			assert_true(entity_origin(m, j, org));
			if (!box_free(m, org) || floor_below(m, org, FLOOR_REACH) < 0)
				fail_msg("large: teleport destination %s (%g %g %g) "
					 "is not a free place above a floor", tn,
					 org[0], org[1], org[2]);
			org[2] += 27;
			assert_true(box_free(m, org));
		}
		if (found != 1)
			fail_msg("large: teleporter to %s has %d destinations",
				 target, found);
	}
	/* brush entities are models of the map */
	for (uint32_t i = 0; i < m->ents.num_ents; i++) {
		const char *c = ent_value(&m->ents, i, "classname");
		const char *model = ent_value(&m->ents, i, "model");

		if (c && (strcmp(c, "func_plat") == 0 || strcmp(c, "func_door") == 0))
			assert_true(model && model[0] == '*' &&
				    atoi(model + 1) < m->num_models);
	}
	bsp_free(m);
}

/* ---- visibility ---------------------------------------------------------- */

enum { SAMPLE_XY = 5, SAMPLE_Z = 3, SAMPLES = SAMPLE_XY * SAMPLE_XY * SAMPLE_Z };

/* Points spread over a room's open box (16 in from the walls; near the
 * floor, at eye height, under the ceiling), leaving out those inside
 * pillars, steps or a dais.  Returns how many. */
static int room_samples(const struct bsp_map *m, const struct map_room *r,
			vec3_t out[SAMPLES])
{
	const float z[SAMPLE_Z] = {r->mins[2] + 8, r->mins[2] + 48, r->maxs[2] - 8};
	int n = 0;

	for (int i = 0; i < SAMPLE_XY; i++) {
		for (int j = 0; j < SAMPLE_XY; j++) {
			for (int k = 0; k < SAMPLE_Z; k++) {
				float *p = out[n];

				p[0] = r->mins[0] + 16 + (r->maxs[0] - r->mins[0] - 32) *
				       (float)i / (SAMPLE_XY - 1);
				p[1] = r->mins[1] + 16 + (r->maxs[1] - r->mins[1] - 32) *
				       (float)j / (SAMPLE_XY - 1);
				p[2] = z[k];
				n += bsp_point_contents(m, p) != CONTENTS_SOLID;
			}
		}
	}
	return n;
}

/* how many of the sampled lines between two rooms are not blocked */
static int open_lines(const struct bsp_map *m, const struct map_room *a,
		      const struct map_room *b)
{
	vec3_t pa[SAMPLES], pb[SAMPLES];
	int na = room_samples(m, a, pa), nb = room_samples(m, b, pb), open = 0;

	for (int i = 0; i < na; i++) {
		for (int j = 0; j < nb; j++) {
			struct trace tr;

			bsp_trace_box(m, 0, zero, zero, zero, pa[i], pb[j], &tr);
			open += !tr.startsolid && tr.fraction >= 1.0f;
		}
	}
	return open;
}

static void check_pvs(const struct map_desc *d)
{
	struct bsp_map *m = load(d->name);

	assert_true(m->num_visleafs > 0 && m->vis_size > 0);
	for (int i = 0; i < d->num_seen; i++) {
		int32_t a = room_leaf(m, d, d->seen[i].a);
		int32_t b = room_leaf(m, d, d->seen[i].b);

		const struct map_room *ra = &d->rooms[room_index(d, d->seen[i].a)];
		const struct map_room *rb = &d->rooms[room_index(d, d->seen[i].b)];

		if (!bsp_vis_test(bsp_leaf_pvs(m, a), b) ||
		    !bsp_vis_test(bsp_leaf_pvs(m, b), a))
			fail_msg("%s: rooms %s and %s are joined but not in each "
				 "other's PVS", d->name, d->seen[i].a, d->seen[i].b);
		if (open_lines(m, ra, rb) == 0)
			fail_msg("%s: rooms %s and %s are listed as joined, but no "
				 "sampled line joins them", d->name, d->seen[i].a,
				 d->seen[i].b);
	}
	for (int i = 0; i < d->num_hidden; i++) {
		int32_t a = room_leaf(m, d, d->hidden[i].a);
		int32_t b = room_leaf(m, d, d->hidden[i].b);

		const struct map_room *ra = &d->rooms[room_index(d, d->hidden[i].a)];
		const struct map_room *rb = &d->rooms[room_index(d, d->hidden[i].b)];
		int open = open_lines(m, ra, rb);

		if (open)
			fail_msg("%s: rooms %s and %s are listed as hidden, but %d "
				 "sampled lines join them", d->name, d->hidden[i].a,
				 d->hidden[i].b, open);
		if (bsp_vis_test(bsp_leaf_pvs(m, a), b) ||
		    bsp_vis_test(bsp_leaf_pvs(m, b), a))
			fail_msg("%s: rooms %s and %s cannot see each other but "
				 "are in each other's PVS", d->name,
				 d->hidden[i].a, d->hidden[i].b);
	}
	bsp_free(m);
}

static void test_small_pvs(void **state)
{
	(void)state;
	check_pvs(&small_desc);
}

static void test_large_pvs(void **state)
{
	(void)state;
	check_pvs(&large_desc);
}

/* The arena's promise: whoever spawns there sees everyone else. */
static void test_arena_in_view(void **state)
{
	struct bsp_map *m = load("arena");
	vec3_t spots[128];
	int32_t leafs[128];
	int n = 0;

	(void)state;
	for (uint32_t i = 0; i < m->ents.num_ents; i++) {
		const char *c = ent_value(&m->ents, i, "classname");

		if (!c || strcmp(c, "info_player_deathmatch") != 0)
			continue;
		assert_true(n < 128);
		if (!entity_origin(m, i, spots[n]))
			fail_msg("arena: entity %u has no origin", i);
		leafs[n] = bsp_point_leaf(m, spots[n]);
		if (leafs[n] <= 0 || m->leafs[leafs[n]].contents != CONTENTS_EMPTY ||
		    !box_free(m, spots[n]) || floor_below(m, spots[n], FLOOR_REACH) < 0)
			fail_msg("arena: spawn (%g %g %g) is not usable", spots[n][0],
				 spots[n][1], spots[n][2]);
		n++;
	}
	print_message("arena: %d deathmatch spawn points\n", n);
	assert_true(n > MAX_CLIENTS);
	assert_true(m->num_visleafs > 0 && m->vis_size > 0);
	for (int i = 0; i < n; i++) {
		for (int j = i + 1; j < n; j++) {
			struct trace tr;

			if (!bsp_vis_test(bsp_leaf_pvs(m, leafs[i]), leafs[j]))
				fail_msg("arena: spawn %d is not in the PVS of spawn %d", j, i);
			bsp_trace_box(m, 0, zero, zero, zero, spots[i], spots[j], &tr);
			if (tr.startsolid || tr.fraction < 1.0f)
				fail_msg("arena: no line of sight from spawn %d to %d", i, j);
		}
	}
	bsp_free(m);
}

/* ---- floor area ------------------------------------------------------------ */

/* Square units of dry floor a player can stand on: on a GRID-spaced set of
 * columns, every floor a player box comes to rest on, walking down the
 * column from the top of the world, counts GRID x GRID when the player's
 * origin there is in open air (not water or lava). */
static double floor_area(const struct bsp_map *m)
{
	const struct bsp_model *w = &m->models[0];
	const struct bsp_hull *h1 = &w->hulls[1];
	double area = 0;

	for (float x = w->mins[0] + GRID / 2; x < w->maxs[0]; x += GRID) {
		for (float y = w->mins[1] + GRID / 2; y < w->maxs[1]; y += GRID) {
			float z = w->maxs[2];

			while (z > w->mins[2]) {
				vec3_t p = {x, y, z}, end = {x, y, w->mins[2] - 64};
				struct trace tr;

				/* down to the next open space of the column */
				while (z > w->mins[2] &&
				       bsp_hull_point_contents(h1, h1->firstclipnode, p) ==
				       CONTENTS_SOLID)
					p[2] = z -= 4;
				if (z <= w->mins[2])
					break;
				trace_player(m, p, end, &tr);
				if (tr.fraction >= 1.0f || tr.startsolid)
					break;
				if (bsp_point_contents(m, tr.endpos) == CONTENTS_EMPTY)
					area += (double)GRID * GRID;
				z = tr.endpos[2] - 4;
			}
		}
	}
	return area;
}

static void test_floor_area(void **state)
{
	struct bsp_map *s = load("small");
	struct bsp_map *l = load("large");
	double as, al;

	(void)state;
	as = floor_area(s);
	al = floor_area(l);
	print_message("floor area: small %.0f, large %.0f square units (%.2f x)\n",
		      as, al, al / as);
	/* the small map's nine rooms alone are more than 2.3 million */
	assert_true(as > 2.0e6);
	assert_true(al >= 4.0 * as);
	bsp_free(s);
	bsp_free(l);
}

/* ---- capacity: 1024 players spawned by the server ----------------------- */

static void quiet(void *ctx, int level, const char *line)
{
	(void)ctx;
	if (level >= QWD_LOG_WARN)
		fprintf(stderr, "server: %s\n", line);
}

/* the server of a capacity test, released by the teardown even when an
 * assertion leaves the test early */
struct capacity {
	struct server sv;
	bool up;	/* server_init succeeded: shut it down */
};

static int capacity_setup(void **state)
{
	struct capacity *c = calloc(1, sizeof(*c));

	*state = c;
	return c ? 0 : -1;
}

static int capacity_teardown(void **state)
{
	struct capacity *c = *state;

	if (c->up) {
		/* nobody is connected: no goodbye packets to send */
		for (int i = 0; i < c->sv.maxclients; i++)
			c->sv.clients[i].state = CS_FREE;
		server_shutdown(&c->sv);
	}
	free(c);
	return 0;
}

static void check_capacity(struct capacity *c, const char *name)
{
	struct server_options opt = {0};
	struct server *sv = &c->sv;
	char path[512], err[512];
	int on_spots = 0;

	opt.basedir = "/nonexistent";
	opt.ip = "127.0.0.1";
	opt.port = 0;
	opt.maxclients = PLAYERS;
	assert_int_equal(server_init(sv, &opt), 0);
	c->up = true;
	sv->log.sink = quiet;
	map_path(name, path, sizeof(path));
	if (server_map(sv, path, err, sizeof(err)) != 0)
		fail_msg("%s: %s", path, err);

	/* one at a time: the first player that lands on someone shows how
	 * many the map holds */
	for (int i = 0; i < PLAYERS; i++) {
		const struct world_obj *o;

		sv->clients[i].state = CS_SPAWNED;
		sv->clients[i].slot = i;
		game_client_connect(sv->game, i, "player", false);
		o = &sv->objs[game_player_entity(sv->game, i)];
		if (world_test_box(&sv->world, o->origin, player_mins,
				   player_maxs, o))
			fail_msg("%s: player %d spawned at (%g %g %g) is stuck in "
				 "the world or another player: the map holds %d",
				 name, i, o->origin[0], o->origin[1],
				 o->origin[2], i);
	}
	for (int i = 0; i < PLAYERS; i++) {
		const struct world_obj *a = &sv->objs[game_player_entity(sv->game, i)];
		vec3_t down = {a->origin[0], a->origin[1], a->origin[2] - 64};
		struct trace tr;

		for (int s = 1; s < sv->game->num_entities; s++) {
			const struct game_entity *spot = &sv->game->ents[s];

			if (spot->inuse &&
			    strcmp(spot->classname, "info_player_deathmatch") == 0 &&
			    fabsf(spot->obj->origin[0] - a->origin[0]) < 0.5f &&
			    fabsf(spot->obj->origin[1] - a->origin[1]) < 0.5f)
				on_spots++;
		}
		if (world_test_box(&sv->world, a->origin, player_mins,
				   player_maxs, a))
			fail_msg("%s: player %d at (%g %g %g) is stuck", name, i,
				 a->origin[0], a->origin[1], a->origin[2]);
		world_move(&sv->world, a->origin, player_mins, player_maxs, down,
			   MOVE_NOMONSTERS, a, &tr);
		if (tr.fraction >= 1.0f ||
		    world_point_contents(&sv->world, a->origin) != CONTENTS_EMPTY)
			fail_msg("%s: player %d at (%g %g %g) is not above a dry floor",
				 name, i, a->origin[0], a->origin[1], a->origin[2]);
		for (int j = i + 1; j < PLAYERS; j++) {
			const struct world_obj *b = &sv->objs[game_player_entity(sv->game, j)];

			if (fabsf(a->origin[0] - b->origin[0]) < 32 &&
			    fabsf(a->origin[1] - b->origin[1]) < 32 &&
			    fabsf(a->origin[2] - b->origin[2]) < 56)
				fail_msg("%s: players %d and %d overlap at (%g %g %g)",
					 name, i, j, a->origin[0], a->origin[1],
					 a->origin[2]);
		}
	}
	print_message("%s: %d players spawned, %d on spawn points, none "
		      "overlapping\n", name, PLAYERS, on_spots);
}

static void test_small_capacity(void **state)
{
	check_capacity(*state, "small");
}

static void test_large_capacity(void **state)
{
	check_capacity(*state, "large");
}

static const struct CMUnitTest map_tests[] = {
	cmocka_unit_test(test_small_layout),
	cmocka_unit_test(test_large_layout),
	cmocka_unit_test(test_large_objects),
	cmocka_unit_test(test_small_pvs),
	cmocka_unit_test(test_large_pvs),
	cmocka_unit_test(test_arena_in_view),
	cmocka_unit_test(test_floor_area),
	cmocka_unit_test_setup_teardown(test_small_capacity, capacity_setup,
					capacity_teardown),
	cmocka_unit_test_setup_teardown(test_large_capacity, capacity_setup,
					capacity_teardown),
};

QWD_TEST_GROUP(maps, map_tests, NULL, NULL)
