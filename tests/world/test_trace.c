/*
 * tests/world/test_trace.c -- hull traces (src/world/trace.c).
 *
 * Design note: the exact numbers come from QuakeWorld's rules: a trace
 * stops 1/32 unit in front of the plane it hits, points on a plane count
 * as its front side, and hull 1 is the world grown by the player box.  The
 * synthetic room (room_map.h) makes every expected value computable by
 * hand; whole maps then check what must hold on any sane map: players
 * spawn free and stand on floors, a segment's obstructions agree seen from
 * either end, and brush submodels (doors) trace in their own space.  The
 * whole maps are the bundled ones (maps/NAME.map, compiled by qwmap) and,
 * as an optional extra, the community deathmatch maps.
 */
#include "../harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "qwd/world.h"
#include "room_map.h"

#define EPS (1.0f / 32)

static const vec3_t player_mins = {-16, -16, -24};
static const vec3_t player_maxs = {16, 16, 32};
static const vec3_t zero = {0, 0, 0};

static int setup_room(void **state)
{
	struct room_map *r = malloc(sizeof(*r));

	if (!r)
		return -1;
	room_map_build(r);
	*state = r;
	return 0;
}

static int teardown_room(void **state)
{
	free(*state);
	return 0;
}

static const struct bsp_hull *room_hull(void **state, int model, int h)
{
	struct room_map *r = *state;

	return &r->models[model].hulls[h];
}

/* ---- synthetic room ------------------------------------------------------ */

static void test_point_contents(void **state)
{
	struct room_map *r = *state;
	const struct bsp_hull *h0 = room_hull(state, 0, 0);
	const struct bsp_hull *h1 = room_hull(state, 0, 1);

	assert_int_equal(bsp_point_contents(&r->map, (vec3_t){0, 0, 128}),
			 CONTENTS_EMPTY);
	assert_int_equal(bsp_point_contents(&r->map, (vec3_t){600, 0, 128}),
			 CONTENTS_SOLID);
	assert_int_equal(bsp_point_contents(&r->map, (vec3_t){0, 0, -1}),
			 CONTENTS_SOLID);
	assert_int_equal(bsp_point_contents(&r->map, (vec3_t){0, 300, 10}),
			 CONTENTS_SOLID);
	/* a point on a plane is on its front side: the floor (front up) is
	 * open, the +x wall (front outward) is solid */
	assert_int_equal(bsp_point_contents(&r->map, (vec3_t){0, 0, 0}),
			 CONTENTS_EMPTY);
	assert_int_equal(bsp_point_contents(&r->map, (vec3_t){512, 0, 10}),
			 CONTENTS_SOLID);
	assert_int_equal(bsp_hull_point_contents(h0, h0->firstclipnode,
						 (vec3_t){511.9f, 0, 10}),
			 CONTENTS_EMPTY);

	/* hull 1: the player's origin must stay 24 above the floor and 16
	 * from the walls */
	assert_int_equal(bsp_hull_point_contents(h1, h1->firstclipnode,
						 (vec3_t){0, 0, 23}),
			 CONTENTS_SOLID);
	assert_int_equal(bsp_hull_point_contents(h1, h1->firstclipnode,
						 (vec3_t){0, 0, 24}),
			 CONTENTS_EMPTY);
	assert_int_equal(bsp_hull_point_contents(h1, h1->firstclipnode,
						 (vec3_t){497, 0, 100}),
			 CONTENTS_SOLID);

	/* a node index outside the hull reads as solid, never out of bounds */
	assert_int_equal(bsp_hull_point_contents(h1, 1000, (vec3_t){0, 0, 100}),
			 CONTENTS_SOLID);
}

static void test_trace_hits_wall(void **state)
{
	struct trace tr;

	bsp_trace_hull(room_hull(state, 0, 0), (vec3_t){0, 0, 128},
		       (vec3_t){1024, 0, 128}, &tr);
	assert_false(tr.allsolid);
	assert_false(tr.startsolid);
	assert_true(tr.inopen);
	assert_false(tr.inwater);
	assert_int_equal(tr.ent, -1);
	/* stopped 1/32 in front of x = 512 */
	assert_float_equal(tr.endpos[0], 512 - EPS, 0);
	assert_float_equal(tr.endpos[1], 0, 0);
	assert_float_equal(tr.endpos[2], 128, 0);
	assert_float_equal(tr.fraction, (512 - EPS) / 1024, 1e-6);
	assert_float_equal(tr.plane.normal[0], -1, 0);
	assert_float_equal(tr.plane.normal[1], 0, 0);
	assert_float_equal(tr.plane.normal[2], 0, 0);
	/* a flipped normal keeps +0 components, as id's 0 - n does */
	assert_false(signbit(tr.plane.normal[1]));
	assert_false(signbit(tr.plane.normal[2]));
	assert_float_equal(tr.plane.dist, -512, 0);

	/* diagonally into the floor: the normal faces the mover */
	bsp_trace_hull(room_hull(state, 0, 0), (vec3_t){0, 0, 100},
		       (vec3_t){100, 50, -100}, &tr);
	assert_float_equal(tr.plane.normal[2], 1, 0);
	assert_float_equal(tr.plane.dist, 0, 0);
	assert_float_equal(tr.endpos[2], EPS, 1e-5);
	assert_float_equal(tr.fraction, (100 - EPS) / 200, 1e-6);
	assert_float_equal(tr.endpos[0], 100 * tr.fraction, 1e-4);
	assert_float_equal(tr.endpos[1], 50 * tr.fraction, 1e-4);

	/* the ceiling, with the player hull: 32 below it */
	bsp_trace_hull(room_hull(state, 0, 1), (vec3_t){0, 0, 100},
		       (vec3_t){0, 0, 400}, &tr);
	assert_float_equal(tr.endpos[2], 256 - 32 - EPS, 0);
	assert_float_equal(tr.plane.normal[2], -1, 0);
}

static void test_trace_unblocked(void **state)
{
	struct trace tr;

	bsp_trace_hull(room_hull(state, 0, 0), (vec3_t){-100, 0, 128},
		       (vec3_t){100, 20, 30}, &tr);
	assert_float_equal(tr.fraction, 1, 0);
	assert_false(tr.allsolid);
	assert_false(tr.startsolid);
	assert_true(tr.inopen);
	assert_float_equal(tr.endpos[0], 100, 0);
	assert_float_equal(tr.endpos[1], 20, 0);
	assert_float_equal(tr.endpos[2], 30, 0);
}

static void test_trace_parallel(void **state)
{
	const struct bsp_hull *h0 = room_hull(state, 0, 0);
	struct trace tr;

	/* just inside a wall, along it */
	bsp_trace_hull(h0, (vec3_t){-300, 255.9f, 128}, (vec3_t){300, 255.9f, 128},
		       &tr);
	assert_float_equal(tr.fraction, 1, 0);
	assert_false(tr.startsolid);

	/* exactly on the floor plane: its front side, so free */
	bsp_trace_hull(h0, (vec3_t){-300, 0, 0}, (vec3_t){300, 0, 0}, &tr);
	assert_float_equal(tr.fraction, 1, 0);
	assert_false(tr.allsolid);

	/* just under the floor, along it: all in solid */
	bsp_trace_hull(h0, (vec3_t){-300, 0, -0.01f}, (vec3_t){300, 0, -0.01f},
		       &tr);
	assert_true(tr.allsolid);
	assert_true(tr.startsolid);
	assert_float_equal(tr.fraction, 1, 0);
}

static void test_trace_solid_starts(void **state)
{
	const struct bsp_hull *h0 = room_hull(state, 0, 0);
	struct trace tr;

	/* all in solid */
	bsp_trace_hull(h0, (vec3_t){600, 0, 128}, (vec3_t){700, 0, 128}, &tr);
	assert_true(tr.allsolid);
	assert_true(tr.startsolid);
	assert_false(tr.inopen);
	assert_float_equal(tr.fraction, 1, 0);
	assert_float_equal(tr.endpos[0], 700, 0);

	/* out of solid into the room: the move is not blocked */
	bsp_trace_hull(h0, (vec3_t){600, 0, 128}, (vec3_t){0, 0, 128}, &tr);
	assert_true(tr.startsolid);
	assert_false(tr.allsolid);
	assert_true(tr.inopen);
	assert_float_equal(tr.fraction, 1, 0);

	/* out of solid through the room into the opposite wall: blocked
	 * there, and the solid start is still reported */
	bsp_trace_hull(h0, (vec3_t){600, 0, 128}, (vec3_t){-600, 0, 128}, &tr);
	assert_true(tr.startsolid);
	assert_false(tr.allsolid);
	assert_float_equal(tr.endpos[0], -512 + EPS, 1e-4);
	assert_float_equal(tr.plane.normal[0], 1, 0);

	/* from one solid into another across a plane, never in the open:
	 * no impact is recorded */
	bsp_trace_hull(h0, (vec3_t){0, 0, -50}, (vec3_t){600, 0, -50}, &tr);
	assert_true(tr.allsolid);
	assert_true(tr.startsolid);
	assert_float_equal(tr.fraction, 1, 0);
	assert_float_equal(tr.endpos[0], 600, 0);

	/* a zero-length move in the open */
	bsp_trace_hull(h0, (vec3_t){5, 5, 5}, (vec3_t){5, 5, 5}, &tr);
	assert_false(tr.startsolid);
	assert_false(tr.allsolid);
	assert_float_equal(tr.fraction, 1, 0);
}

static void test_hull_for_size(void **state)
{
	struct room_map *r = *state;
	const struct bsp_model *m = &r->models[0];
	vec3_t off;

	assert_ptr_equal(bsp_hull_for_size(m, zero, zero, off), &m->hulls[0]);
	assert_float_equal(off[0], 0, 0);
	assert_ptr_equal(bsp_hull_for_size(m, (vec3_t){-1, -1, -1},
					   (vec3_t){1.9f, 50, 50}, off),
			 &m->hulls[0]);
	/* a point hull traces the box's mins corner */
	assert_float_equal(off[0], -1, 0);
	assert_float_equal(off[2], -1, 0);
	assert_ptr_equal(bsp_hull_for_size(m, player_mins, player_maxs, off),
			 &m->hulls[1]);
	assert_true(vec_equal(off, zero));
	assert_ptr_equal(bsp_hull_for_size(m, (vec3_t){-1.5f, 0, 0},
					   (vec3_t){1.5f, 0, 0}, off),
			 &m->hulls[1]);
	assert_ptr_equal(bsp_hull_for_size(m, (vec3_t){-16, -16, 0},
					   (vec3_t){16.5f, 16, 56}, off),
			 &m->hulls[2]);
	assert_ptr_equal(bsp_hull_for_size(m, (vec3_t){-32, -32, -24},
					   (vec3_t){32, 32, 64}, off),
			 &m->hulls[2]);
	assert_true(vec_equal(off, zero));
	/* only x decides: tall and thin is still hull 0 */
	assert_ptr_equal(bsp_hull_for_size(m, (vec3_t){0, -100, -100},
					   (vec3_t){2, 100, 100}, off),
			 &m->hulls[0]);
}

static void test_trace_box_offsets(void **state)
{
	struct room_map *r = *state;
	struct trace tr;

	/* a player-width box whose origin is at its feet: hull 1, offset so
	 * that the feet land 1/32 above the floor */
	bsp_trace_box(&r->map, 0, zero, (vec3_t){-16, -16, 0},
		      (vec3_t){16, 16, 56}, (vec3_t){0, 0, 128},
		      (vec3_t){0, 0, -100}, &tr);
	assert_float_equal(tr.endpos[2], EPS, 1e-4);
	assert_float_equal(tr.plane.normal[2], 1, 0);
	assert_float_equal(tr.fraction, (128 - EPS) / 228, 1e-6);

	/* the standard player box against the +y wall */
	bsp_trace_box(&r->map, 0, zero, player_mins, player_maxs,
		      (vec3_t){0, 0, 100}, (vec3_t){0, 1000, 100}, &tr);
	assert_float_equal(tr.endpos[1], 256 - 16 - EPS, 0);
	assert_float_equal(tr.plane.normal[1], -1, 0);

	/* the large hull against the -x wall */
	bsp_trace_box(&r->map, 0, zero, (vec3_t){-32, -32, -24},
		      (vec3_t){32, 32, 64}, (vec3_t){0, 0, 100},
		      (vec3_t){-1000, 0, 100}, &tr);
	assert_float_equal(tr.endpos[0], -512 + 32 + EPS, 0);

	/* an unblocked box move ends exactly at end, in world space */
	bsp_trace_box(&r->map, 0, zero, (vec3_t){-16, -16, 0},
		      (vec3_t){16, 16, 56}, (vec3_t){0, 0, 50},
		      (vec3_t){10, 20, 60}, &tr);
	assert_float_equal(tr.fraction, 1, 0);
	assert_float_equal(tr.endpos[0], 10, 0);
	assert_float_equal(tr.endpos[1], 20, 0);
	assert_float_equal(tr.endpos[2], 60, 0);

	/* a model that does not exist blocks nothing */
	bsp_trace_box(&r->map, 7, zero, zero, zero, (vec3_t){0, 0, 50},
		      (vec3_t){5000, 0, 50}, &tr);
	assert_float_equal(tr.fraction, 1, 0);
	assert_false(tr.allsolid);
	assert_false(tr.startsolid);
}

static void test_trace_submodel(void **state)
{
	struct room_map *r = *state;
	const vec3_t at = {100, 0, 0}, raised = {100, 0, 64};
	struct trace tr, tr2;

	/* the block (x -8..8 in its own space) placed at x = 100 */
	bsp_trace_box(&r->map, 1, at, zero, zero, (vec3_t){0, 0, 64},
		      (vec3_t){200, 0, 64}, &tr);
	assert_float_equal(tr.endpos[0], 92 - EPS, 0);
	assert_float_equal(tr.endpos[2], 64, 0);
	assert_float_equal(tr.plane.normal[0], -1, 0);
	assert_false(tr.startsolid);

	/* the player hull stops 16 earlier */
	bsp_trace_box(&r->map, 1, at, player_mins, player_maxs,
		      (vec3_t){0, 0, 64}, (vec3_t){200, 0, 64}, &tr);
	assert_float_equal(tr.endpos[0], 92 - 16 - EPS, 0);

	/* moved up by 64 with the trace: the same hit, moved up by 64 */
	bsp_trace_box(&r->map, 1, raised, player_mins, player_maxs,
		      (vec3_t){0, 0, 128}, (vec3_t){200, 0, 128}, &tr2);
	assert_float_equal(tr2.fraction, tr.fraction, 0);
	assert_float_equal(tr2.endpos[0], tr.endpos[0], 0);
	assert_float_equal(tr2.endpos[2], tr.endpos[2] + 64, 0);

	/* over the top of the block: free */
	bsp_trace_box(&r->map, 1, at, zero, zero, (vec3_t){0, 0, 129},
		      (vec3_t){200, 0, 129}, &tr);
	assert_float_equal(tr.fraction, 1, 0);

	/* inside it */
	bsp_trace_box(&r->map, 1, at, zero, zero, (vec3_t){100, 0, 64},
		      (vec3_t){101, 0, 64}, &tr);
	assert_true(tr.allsolid);
}

/* A hull with water below z = 32 in an open world. */
static void test_trace_water(void **state)
{
	struct bsp_plane plane = {{0, 0, 1}, 32, 2, 0, {0, 0}};
	struct bsp_clipnode node = {0, {CONTENTS_EMPTY, CONTENTS_WATER}};
	struct bsp_hull hull = {&node, &plane, 0, 0, {0, 0, 0}, {0, 0, 0}};
	struct trace tr;

	(void)state;
	assert_int_equal(bsp_hull_point_contents(&hull, 0, (vec3_t){0, 0, 0}),
			 CONTENTS_WATER);
	bsp_trace_hull(&hull, (vec3_t){0, 0, 100}, (vec3_t){0, 0, 0}, &tr);
	assert_float_equal(tr.fraction, 1, 0);
	assert_true(tr.inopen);
	assert_true(tr.inwater);
	assert_false(tr.allsolid);

	bsp_trace_hull(&hull, (vec3_t){0, 0, 10}, (vec3_t){0, 0, 0}, &tr);
	assert_false(tr.inopen);
	assert_true(tr.inwater);
}

/*
 * The impact point can land in solid that the near half of the trace never
 * saw: here a far-side plane just past x = 100 puts the impact point in a
 * thin near-side slab (99.98 .. 100).  QuakeWorld then backs the fraction
 * off in steps of 0.1 of the piece being traced until the point is clear,
 * or gives up when it would pass 0 and leaves the point where it was.
 *   A: x = 100   front -> C, back -> B
 *   B: x = 99.98 front -> solid, back -> empty
 *   C: x = 100.02 front -> solid, back -> empty
 */
static void test_trace_backoff(void **state)
{
	struct bsp_plane planes[3] = {
		{{1, 0, 0}, 100, 0, 0, {0, 0}},
		{{1, 0, 0}, 99.98f, 0, 0, {0, 0}},
		{{1, 0, 0}, 100.02f, 0, 0, {0, 0}},
	};
	struct bsp_clipnode nodes[3] = {
		{0, {2, 1}},
		{1, {CONTENTS_SOLID, CONTENTS_EMPTY}},
		{2, {CONTENTS_SOLID, CONTENTS_EMPTY}},
	};
	struct bsp_hull hull = {nodes, planes, 0, 2, {0, 0, 0}, {0, 0, 0}};
	struct trace tr;

	(void)state;
	/* a short move: the backed-off point is clear of the slab */
	bsp_trace_hull(&hull, (vec3_t){0, 0, 0}, (vec3_t){100.1f, 0, 0}, &tr);
	assert_false(tr.startsolid);
	assert_true(tr.fraction < 1);
	assert_float_equal(tr.plane.normal[0], -1, 0);
	assert_int_not_equal(bsp_hull_point_contents(&hull, 0, tr.endpos),
			     CONTENTS_SOLID);
	assert_true(tr.endpos[0] > 99.97f && tr.endpos[0] < 99.98f);
	assert_float_equal(tr.endpos[0], tr.fraction * 100.1f, 1e-3);

	/* a long move: one step of 0.1 would pass the start of the piece, so
	 * the point is left in the slab */
	bsp_trace_hull(&hull, (vec3_t){0, 0, 0}, (vec3_t){200, 0, 0}, &tr);
	assert_true(tr.fraction < 1);
	assert_int_equal(bsp_hull_point_contents(&hull, 0, tr.endpos),
			 CONTENTS_SOLID);
	assert_true(tr.endpos[0] > 99.98f && tr.endpos[0] < 100);
}

/* ---- real maps ------------------------------------------------------------ */

static const char *const dm_maps[] = {
	"lqdm1.bsp", "lqdm2.bsp", "lqdm3.bsp", "lqdm4.bsp", "lqdm5.bsp",
	"lqdm6.bsp", "lqdm7.bsp", "lqdm8.bsp", "lqdm9.bsp", "lqdm10.bsp",
	"lqdm11.bsp", "lqdm12.bsp", "lqdm13.bsp", "lqdm2_bsp2.bsp",
	"lqdm11_2psb.bsp",
};

static struct bsp_map *load_path(const char *path)
{
	char err[512];
	struct bsp_map *map = bsp_load(path, err, sizeof(err));

	if (!map)
		fail_msg("%s", err);
	return map;
}

static const char *const bundled_dm[] = {"small", "large"};

enum { MAX_SPOTS = 128 };

/* origins of every entity of this class; returns how many (at most max) */
static int class_origins(const struct bsp_map *map, const char *classname,
			 vec3_t *out, int max)
{
	int n = 0;

	for (uint32_t i = 0; i < map->ents.num_ents && n < max; i++) {
		const char *c = ent_value(&map->ents, i, "classname");
		const char *o = ent_value(&map->ents, i, "origin");

		if (!c || !o || strcmp(c, classname) != 0)
			continue;
		if (sscanf(o, "%f %f %f", &out[n][0], &out[n][1], &out[n][2]) == 3)
			n++;
	}
	return n;
}

/* every deathmatch spawn point (at least 8) is free and over a floor */
static void check_spawns(const struct bsp_map *map)
{
	vec3_t spots[MAX_SPOTS];
	int n = class_origins(map, "info_player_deathmatch", spots, MAX_SPOTS);

	assert_true(n >= 8);
	for (int i = 0; i < n; i++) {
		struct trace tr;
		vec3_t down;

		bsp_trace_box(map, 0, zero, player_mins, player_maxs,
			      spots[i], spots[i], &tr);
		if (tr.startsolid)
			fail_msg("%s: spawn %d (%g %g %g) in solid", map->name, i,
				 spots[i][0], spots[i][1], spots[i][2]);

		vec_copy(spots[i], down);
		down[2] -= 256;
		bsp_trace_box(map, 0, zero, player_mins, player_maxs,
			      spots[i], down, &tr);
		if (tr.fraction >= 1 || tr.plane.normal[2] <= 0.7f)
			fail_msg("%s: spawn %d: no floor (fraction %g "
				 "normal z %g)", map->name, i,
				 tr.fraction, tr.plane.normal[2]);
		assert_false(tr.startsolid);
		/* standing on it: the hull is clear at the end */
		assert_int_not_equal(
			bsp_hull_point_contents(
				&map->models[0].hulls[1],
				map->models[0].hulls[1].firstclipnode,
				tr.endpos),
			CONTENTS_SOLID);
	}
}

static void test_bundled_spawns(void **state)
{
	(void)state;
	for (size_t m = 0; m < sizeof(bundled_dm) / sizeof(bundled_dm[0]); m++) {
		struct bsp_map *map = load_path(qwd_bundled_map(bundled_dm[m]));

		check_spawns(map);
		bsp_free(map);
	}
}

static void test_realmap_spawns(void **state)
{
	(void)state;
	if (!qwd_realmaps_dir())
		qwd_skip_no_realmaps();
	for (size_t m = 0; m < sizeof(dm_maps) / sizeof(dm_maps[0]); m++) {
		struct bsp_map *map = load_path(qwd_realmap(dm_maps[m]));

		check_spawns(map);
		bsp_free(map);
	}
}

static float dist3(const vec3_t a, const vec3_t b)
{
	vec3_t d;

	vec_sub(a, b, d);
	return sqrtf(vec_dot(d, d));
}

/*
 * Between two open points, the first obstruction seen from one end comes
 * no later than the last seen from the other, and a clear segment is clear
 * both ways.  The ends are nudged a few units off the map grid: spawn
 * points sit on whole units, and a segment that passes within 1/32 unit
 * of a brush edge may graze it one way and not the other, which is how
 * QuakeWorld's trace behaves (it splits a move 1/32 short of each plane).
 * The bundled maps put their spawn points and walls on one lattice, so
 * with nudges under a unit some segments pass that close to a corner
 * (small: 4 of 5112, e.g. (-960 -960) to (-832 -128) crosses the corner
 * (-896 -544) of the corridor's wall).
 */
struct reverse_count {
	int pairs, blocked;
};

static void check_reverse(const struct bsp_map *map, struct reverse_count *c)
{
	static const vec3_t nudge_a = {3.7f, 2.3f, 0.5f};
	static const vec3_t nudge_b = {-2.9f, 4.1f, 0.7f};
	vec3_t spots[MAX_SPOTS];
	int n = class_origins(map, "info_player_deathmatch", spots, MAX_SPOTS);

	for (int h = 0; h < 2; h++) {
		const vec3_t *bmin = h ? &player_mins : &zero;
		const vec3_t *bmax = h ? &player_maxs : &zero;

		for (int i = 0; i < n; i++) {
			for (int j = i + 1; j < n; j++) {
				struct trace f, b;
				vec3_t pa, pb;
				float len;

				vec_add(spots[i], nudge_a, pa);
				vec_add(spots[j], nudge_b, pb);
				len = dist3(pa, pb);
				bsp_trace_box(map, 0, zero, *bmin, *bmax, pa, pb, &f);
				bsp_trace_box(map, 0, zero, *bmin, *bmax, pb, pa, &b);
				assert_false(f.startsolid);
				assert_false(b.startsolid);
				c->pairs++;
				if ((f.fraction < 1) != (b.fraction < 1))
					fail_msg("%s: %d-%d hull %d: fractions %g / %g",
						 map->name, i, j, h, f.fraction,
						 b.fraction);
				if (f.fraction == 1)
					continue;
				c->blocked++;
				assert_true(dist3(pa, f.endpos) + dist3(pb, b.endpos) <=
					    len + 0.1f);
				/* the fraction measures the end point */
				assert_float_equal(f.fraction * len,
						   dist3(pa, f.endpos), 0.05);
				assert_float_equal(b.fraction * len,
						   dist3(pb, b.endpos), 0.05);
			}
		}
	}
}

/* the test must have looked at both kinds of segment */
static void check_reverse_count(const struct reverse_count *c)
{
	print_message("%d segments, %d blocked\n", c->pairs, c->blocked);
	assert_true(c->pairs > 100);
	assert_true(c->blocked > 10 && c->blocked < c->pairs);
}

static void test_bundled_reverse(void **state)
{
	(void)state;
	for (size_t m = 0; m < sizeof(bundled_dm) / sizeof(bundled_dm[0]); m++) {
		struct bsp_map *map = load_path(qwd_bundled_map(bundled_dm[m]));
		struct reverse_count c = {0, 0};

		check_reverse(map, &c);
		check_reverse_count(&c);
		bsp_free(map);
	}
}

/* bsp_point_liquid against the whole walk, at random points over the
 * map's bounds: the liquid where the walk finds one (or sky), else
 * CONTENTS_EMPTY.  Counts what it saw into seen[0] (liquid) and
 * seen[1] (none). */
static void check_liquid(const struct bsp_map *map, int *seen)
{
	const struct bsp_model *w = &map->models[0];
	uint64_t rng = 7;

	for (int i = 0; i < 20000; i++) {
		vec3_t p;
		int c, want;

		for (int k = 0; k < 3; k++)
			p[k] = w->mins[k] + (float)qwd_rng_unit(&rng) *
			       (w->maxs[k] - w->mins[k]);
		c = bsp_point_contents(map, p);
		want = c <= CONTENTS_WATER ? c : CONTENTS_EMPTY;
		if (bsp_point_liquid(map, p) != want)
			fail_msg("%s: (%g %g %g) contents %d, liquid %d", map->name,
				 (double)p[0], (double)p[1], (double)p[2], c,
				 bsp_point_liquid(map, p));
		seen[want == CONTENTS_EMPTY]++;
	}
}

/* a node's summary says whether a liquid leaf lies below it: the root
 * of a map without liquids says no (the walk stops at once), the large
 * map's (water and lava) says yes, and some of its subtrees no */
static void test_bundled_liquid(void **state)
{
	(void)state;
	for (size_t m = 0; m < sizeof(bundled_dm) / sizeof(bundled_dm[0]); m++) {
		struct bsp_map *map = load_path(qwd_bundled_map(bundled_dm[m]));
		int seen[2] = {0, 0}, dry = 0, any = 0;

		check_liquid(map, seen);
		for (int32_t i = 1; i < map->num_leafs; i++)
			any |= map->leafs[i].contents <= CONTENTS_WATER;
		for (int32_t i = 0; i < map->num_nodes; i++)
			dry += !map->hull0_liquid[i];
		print_message("%s: %d points in liquid, %d not; %d of %d nodes dry\n",
			      bundled_dm[m], seen[0], seen[1], dry, map->num_nodes);
		assert_int_equal(map->hull0_liquid[map->models[0].headnode[0]], any);
		assert_true(seen[1] > 0);
		if (any) {
			assert_true(seen[0] > 0);
			assert_true(dry > 0 && dry < map->num_nodes);
		} else {
			assert_int_equal(dry, map->num_nodes);
		}
		bsp_free(map);
	}
}

static void test_realmap_liquid(void **state)
{
	int seen[2] = {0, 0};

	(void)state;
	if (!qwd_realmaps_dir())
		qwd_skip_no_realmaps();
	for (size_t m = 0; m < sizeof(dm_maps) / sizeof(dm_maps[0]); m++) {
		struct bsp_map *map = load_path(qwd_realmap(dm_maps[m]));

		check_liquid(map, seen);
		bsp_free(map);
	}
	print_message("%d points in liquid, %d not\n", seen[0], seen[1]);
	assert_true(seen[0] > 0 && seen[1] > 0);
}

static void test_realmap_reverse(void **state)
{
	struct reverse_count c = {0, 0};

	(void)state;
	if (!qwd_realmaps_dir())
		qwd_skip_no_realmaps();
	for (size_t m = 0; m < sizeof(dm_maps) / sizeof(dm_maps[0]); m++) {
		struct bsp_map *map = load_path(qwd_realmap(dm_maps[m]));

		check_reverse(map, &c);
		bsp_free(map);
	}
	check_reverse_count(&c);
}

/* Every func_door of a map: brush models traced in their own space.
 * Returns how many doors there were. */
static int check_doors(const struct bsp_map *map)
{
	int doors = 0;

	for (uint32_t i = 0; i < map->ents.num_ents; i++) {
		const char *c = ent_value(&map->ents, i, "classname");
		const char *mod = ent_value(&map->ents, i, "model");
		const struct bsp_model *bm;
		const struct bsp_hull *h0;
		vec3_t center, from, to, shift = {0, 0, 64};
		struct trace tr, tr2;
		int num;

		if (!c || !mod || strcmp(c, "func_door") != 0 || mod[0] != '*')
			continue;
		num = atoi(mod + 1);
		assert_true(num > 0 && num < map->num_models);
		bm = &map->models[num];
		for (int k = 0; k < 3; k++)
			center[k] = 0.5f * (bm->mins[k] + bm->maxs[k]);

		/* the middle of a door is inside its brush */
		h0 = &bm->hulls[0];
		assert_int_equal(bsp_hull_point_contents(h0, h0->firstclipnode,
							 center),
				 CONTENTS_SOLID);

		/* a point moving at it along x stops at its bounds */
		vec_copy(center, from);
		vec_copy(center, to);
		from[0] = bm->mins[0] - 64;
		bsp_trace_box(map, num, zero, zero, zero, from, to, &tr);
		assert_true(tr.fraction < 1);
		assert_false(tr.startsolid);
		assert_true(tr.endpos[0] >= bm->mins[0] - 1.5f &&
			    tr.endpos[0] < bm->maxs[0]);
		assert_true(tr.plane.normal[0] < 0);

		/* a player stops 16 units earlier (the models' own hull 1) */
		bsp_trace_box(map, num, zero, player_mins, player_maxs, from, to,
			      &tr);
		assert_true(tr.fraction < 1);
		assert_true(tr.endpos[0] >= bm->mins[0] - 16 - 1.5f &&
			    tr.endpos[0] <= bm->mins[0] - 16 + 0.5f);

		/* the door moved up by 64 and the move with it: same result,
		 * moved up by 64 */
		vec_add(from, shift, from);
		vec_add(to, shift, to);
		bsp_trace_box(map, num, shift, player_mins, player_maxs, from,
			      to, &tr2);
		assert_float_equal(tr2.fraction, tr.fraction, 1e-6);
		assert_float_equal(tr2.endpos[0], tr.endpos[0], 1e-3);
		assert_float_equal(tr2.endpos[2], tr.endpos[2] + 64, 1e-3);

		doors++;
	}
	return doors;
}

/* small's four corridor doors; large's four round the courtyard and the
 * tunnel's (maps/gen/mkmaps.py) */
static void test_bundled_doors(void **state)
{
	static const struct {
		const char *name;
		int doors;
	} maps[] = {{"small", 4}, {"large", 5}};

	(void)state;
	for (size_t m = 0; m < sizeof(maps) / sizeof(maps[0]); m++) {
		struct bsp_map *map = load_path(qwd_bundled_map(maps[m].name));

		assert_int_equal(check_doors(map), maps[m].doors);
		bsp_free(map);
	}
}

/* ericw-tools' lightstest1, compiled by another compiler: three doors */
static void test_realmap_doors(void **state)
{
	struct bsp_map *map;

	(void)state;
	if (!qwd_realmaps_dir())
		qwd_skip_no_realmaps();
	map = load_path(qwd_realmap("ewt_lightstest1.bsp"));
	assert_int_equal(check_doors(map), 3);
	bsp_free(map);
}

/* The box hull: solid exactly inside its six planes (faces at the max
 * side are outside, at the min side inside: a point on a plane counts as
 * its front); the direct test answers as the walk, NaN included; set
 * moves the planes of a hull laid out once. */
static void test_box_hull(void **state)
{
	static const float coords[] = {-9, -8, -7.99f, 0, 3.99f, 4, 4.01f, 20};
	const vec3_t mins = {-8, -8, -8}, maxs = {4, 4, 4};
	const vec3_t mins2 = {100, 0, 0}, maxs2 = {101, 1, 1};
	struct bsp_box_hull b;
	int n = 0, solid = 0;

	(void)state;
	bsp_box_hull_init(&b);
	bsp_box_hull_set(&b, mins, maxs);
	for (int x = 0; x < 8; x++)
		for (int y = 0; y < 8; y++)
			for (int z = 0; z < 8; z++) {
				vec3_t p = {coords[x], coords[y], coords[z]};
				int c = bsp_hull_point_contents(&b.hull, 0, p);
				bool inside = p[0] >= -8 && p[0] < 4 && p[1] >= -8 &&
					      p[1] < 4 && p[2] >= -8 && p[2] < 4;

				assert_int_equal(c, inside ? CONTENTS_SOLID : CONTENTS_EMPTY);
				assert_int_equal(bsp_box_point_solid(mins, maxs, p), inside);
				n++;
				solid += inside;
			}
	assert_int_equal(n, 512);
	assert_int_equal(solid, 4 * 4 * 4);
	for (int k = 0; k < 3; k++) {
		vec3_t p = {0, 0, 0};

		p[k] = NAN;
		assert_int_equal(bsp_hull_point_contents(&b.hull, 0, p), CONTENTS_EMPTY);
		assert_false(bsp_box_point_solid(mins, maxs, p));
	}
	bsp_box_hull_set(&b, mins2, maxs2);
	assert_int_equal(bsp_hull_point_contents(&b.hull, 0, (vec3_t){0, 0, 0}),
			 CONTENTS_EMPTY);
	assert_int_equal(bsp_hull_point_contents(&b.hull, 0, (vec3_t){100.5f, 0.5f, 0.5f}),
			 CONTENTS_SOLID);
}

/* The box hull's unrolled walk (bsp_trace_box_hull) gives the generic
 * walk's trace bit for bit: random boxes and segments on a grid of 1/8
 * units and off it (faces touched, starts inside, along a face, zero
 * length, ends on a plane), and every kind of answer is met. */
static void test_box_hull_trace(void **state)
{
	uint64_t rng = 11;
	struct bsp_box_hull b;
	int hits = 0, misses = 0, inside = 0;

	(void)state;
	bsp_box_hull_init(&b);
	for (int i = 0; i < 200000; i++) {
		vec3_t mins, maxs, a, z;
		struct trace want, got;
		bool grid = i & 1;

		for (int k = 0; k < 3; k++) {
			float c = (float)(qwd_rng_unit(&rng) * 64 - 32);
			float h = (float)(qwd_rng_unit(&rng) * 24 + 1);

			if (grid) {
				c = floorf(c * 8) / 8;
				h = floorf(h * 8) / 8 + 1;
			}
			mins[k] = c - h;
			maxs[k] = c + h;
			a[k] = (float)(qwd_rng_unit(&rng) * 96 - 48);
			z[k] = (float)(qwd_rng_unit(&rng) * 96 - 48);
			if (grid) {
				a[k] = floorf(a[k] * 8) / 8;
				z[k] = floorf(z[k] * 8) / 8;
			}
		}
		switch (i % 7) {
		case 0: vec_copy(a, z); break;			/* a test */
		case 1: z[i % 3] = a[i % 3]; break;		/* along an axis plane */
		case 2: a[i % 3] = maxs[i % 3]; break;		/* on a face */
		case 3: z[i % 3] = mins[i % 3]; break;
		default: break;
		}
		bsp_box_hull_set(&b, mins, maxs);
		bsp_trace_hull(&b.hull, a, z, &want);
		bsp_trace_box_hull(&b, a, z, &got);
		if (memcmp(&want, &got, sizeof(want)) != 0)
			fail_msg("box (%g %g %g)-(%g %g %g), (%g %g %g) -> (%g %g %g): "
				 "fraction %a against %a", (double)mins[0],
				 (double)mins[1], (double)mins[2], (double)maxs[0],
				 (double)maxs[1], (double)maxs[2], (double)a[0],
				 (double)a[1], (double)a[2], (double)z[0],
				 (double)z[1], (double)z[2], (double)got.fraction,
				 (double)want.fraction);
		if (want.startsolid)
			inside++;
		else if (want.fraction < 1)
			hits++;
		else
			misses++;
	}
	assert_true(hits > 1000);
	assert_true(misses > 1000);
	assert_true(inside > 1000);
}

static const struct CMUnitTest trace_tests[] = {
	cmocka_unit_test(test_point_contents),
	cmocka_unit_test(test_trace_hits_wall),
	cmocka_unit_test(test_trace_unblocked),
	cmocka_unit_test(test_trace_parallel),
	cmocka_unit_test(test_trace_solid_starts),
	cmocka_unit_test(test_hull_for_size),
	cmocka_unit_test(test_trace_box_offsets),
	cmocka_unit_test(test_trace_submodel),
	cmocka_unit_test(test_trace_water),
	cmocka_unit_test(test_trace_backoff),
	cmocka_unit_test(test_box_hull),
	cmocka_unit_test(test_box_hull_trace),
};

static const struct CMUnitTest trace_map_tests[] = {
	cmocka_unit_test(test_bundled_spawns),
	cmocka_unit_test(test_realmap_spawns),
	cmocka_unit_test(test_bundled_reverse),
	cmocka_unit_test(test_realmap_reverse),
	cmocka_unit_test(test_bundled_liquid),
	cmocka_unit_test(test_realmap_liquid),
	cmocka_unit_test(test_bundled_doors),
	cmocka_unit_test(test_realmap_doors),
};

QWD_TEST_GROUP(trace, trace_tests, setup_room, teardown_room)
QWD_TEST_GROUP(trace_maps, trace_map_tests, NULL, NULL)
