/*
 * tests/world/test_area.c -- the areanode tree and moves against linked
 * objects (src/world/area.c).
 *
 * Design note: the tree is checked in two ways: its shape against the
 * hand-computed splits of the synthetic room (room_map.h: x -512..512,
 * y -256..256), and its queries against a brute-force scan over random
 * boxes with a fixed seed, through links, relinks and unlinks.  Moves are
 * checked against QuakeWorld's rules: the nearest hit wins, the mover's
 * owner and its own objects never block it, MOVE_NOMONSTERS sees only
 * brush models, MOVE_MISSILE widens monsters by 15 units.  The change
 * log of speculative moves (src/world/changes.c) is checked by hand and
 * against a scan over every box it was told of.
 */
#include "../harness.h"

#include <stdlib.h>
#include <string.h>

#include "qwd/world.h"
#include "../../src/world/internal.h"	/* world_slabs_meet_upto */
#include "room_map.h"

#define EPS (1.0f / 32)

enum { MAX_OBJS = 256 };

struct area_fixture {
	struct room_map room;
	struct world w;
	struct world_obj objs[MAX_OBJS];
};

static const vec3_t zero = {0, 0, 0};

static int setup_world(void **state)
{
	struct area_fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	room_map_build(&f->room);
	if (world_init(&f->w, &f->room.map, f->objs, MAX_OBJS) != 0) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

/* the same room with the deepest tree a server of hundreds asks for */
static int setup_world_deep(void **state)
{
	struct area_fixture *f;

	if (setup_world(state) != 0)
		return -1;
	f = *state;
	world_free(&f->w);
	return world_init_depth(&f->w, &f->room.map, f->objs, MAX_OBJS,
				AREA_MAX_DEPTH);
}

static int teardown_world(void **state)
{
	struct area_fixture *f = *state;

	world_free(&f->w);
	free(f);
	return 0;
}

/* put a box object at origin, half-size r, and link it */
static struct world_obj *place(struct area_fixture *f, int id, int solid,
			       float x, float y, float z, float r)
{
	struct world_obj *o = &f->objs[id];

	o->solid = solid;
	o->model = -1;
	o->owner = -1;
	o->monster = false;
	vec_set(o->origin, x, y, z);
	vec_set(o->mins, -r, -r, -r);
	vec_set(o->maxs, r, r, r);
	world_link(&f->w, o);
	return o;
}

/* is o's entry in node n's list of the kind? (and where o says it is) */
static bool in_list(const struct world *w, const struct area_node *n,
		    enum area_kind kind, const struct world_obj *o)
{
	for (int32_t c = n->lists[kind]; c >= 0; c = w->chunks[c].next)
		for (int i = 0; i < w->chunks[c].count; i++)
			if (w->chunks[c].e[i].id == o->id)
				return o->area_pos == c * AREA_CHUNK_ENTRIES + i;
	return false;
}

/* the entry of a linked object: the box it is placed by */
static const struct area_entry *placed(const struct world *w,
				       const struct world_obj *o)
{
	return &w->chunks[o->area_pos / AREA_CHUNK_ENTRIES]
		.e[o->area_pos % AREA_CHUNK_ENTRIES];
}

/* ---- the tree ------------------------------------------------------------ */

static void test_tree_shape(void **state)
{
	struct area_fixture *f = *state;
	const struct world *w = &f->w;
	const struct area_node *root = &w->nodes[0], *upper, *n;
	int leaves = 0;

	assert_int_equal(w->num_nodes, 31);
	for (int i = 0; i < w->num_nodes; i++) {
		n = &w->nodes[i];
		assert_int_equal(n->lists[AREA_SOLID], -1);
		assert_int_equal(n->lists[AREA_TRIGGERS], -1);
		if (n->axis == -1) {
			leaves++;
			continue;
		}
		assert_true(n->children[0] > i && n->children[0] < 31);
		assert_true(n->children[1] > i && n->children[1] < 31);
	}
	assert_int_equal(leaves, 16);

	/* x is the longer side of the room: split at its middle; then the
	 * upper half (x 0..512, y -256..256) is square, so y splits */
	assert_int_equal(root->axis, 0);
	assert_float_equal(root->dist, 0, 0);
	upper = &w->nodes[root->children[0]];
	assert_int_equal(upper->axis, 1);
	assert_float_equal(upper->dist, 0, 0);
	n = &w->nodes[upper->children[0]];	/* x 0..512, y 0..256 */
	assert_int_equal(n->axis, 0);
	assert_float_equal(n->dist, 256, 0);
	n = &w->nodes[n->children[0]];		/* x 256..512, y 0..256 */
	assert_int_equal(n->axis, 1);
	assert_float_equal(n->dist, 128, 0);
	assert_int_equal(w->nodes[n->children[1]].axis, -1);
}

static void test_link_placement(void **state)
{
	struct area_fixture *f = *state;
	struct world *w = &f->w;
	const struct area_node *n;
	struct world_obj *a, *b, *t;

	/* a box as wide as 2 AREA_LOOSE straddling x = 0: stays at the root */
	a = place(f, 1, SOLID_BBOX, 0, 100, 50, AREA_LOOSE - 1);
	assert_true(a->linked);
	assert_true(in_list(w, &w->nodes[0], AREA_SOLID, a));
	assert_float_equal(a->absmin[0], -AREA_LOOSE, 0);
	assert_float_equal(a->absmax[2], 50 + AREA_LOOSE, 0);

	/* a player's box there goes down on its centre's side: child 0 when
	 * the centre is on the split, child 1 just below it */
	a = place(f, 1, SOLID_SLIDEBOX, 0, 100, 50, 16);
	assert_float_equal(a->absmin[0], -17, 0);
	assert_false(in_list(w, &w->nodes[0], AREA_SOLID, a));
	n = &w->nodes[w->nodes[0].children[0]];	/* on down to a leaf */
	n = &w->nodes[n->children[0]];
	n = &w->nodes[n->children[1]];
	n = &w->nodes[n->children[1]];
	assert_int_equal(n->axis, -1);
	assert_true(in_list(w, n, AREA_SOLID, a));
	a = place(f, 1, SOLID_SLIDEBOX, -0.5f, 300, 50, 16);
	assert_false(in_list(w, &w->nodes[0], AREA_SOLID, a));
	assert_false(in_list(w, n, AREA_SOLID, a));
	n = &w->nodes[w->nodes[0].children[1]];	/* x < 0, y 256..: a leaf */
	n = &w->nodes[n->children[0]];
	n = &w->nodes[n->children[0]];
	n = &w->nodes[n->children[0]];
	assert_int_equal(n->axis, -1);
	assert_true(in_list(w, n, AREA_SOLID, a));
	/* and is found by a query from the other side of the split */
	{
		struct world_obj *out[4];

		assert_int_equal(world_area_objs(w, (vec3_t){16, 290, 40},
						 (vec3_t){40, 310, 60},
						 AREA_SOLID, out, 4), 1);
		assert_ptr_equal(out[0], a);
	}

	/* x 300, y 100: upper x, upper y, x > 256, y < 128: a leaf */
	b = place(f, 2, SOLID_SLIDEBOX, 300, 100, 50, 8);
	n = &w->nodes[w->nodes[0].children[0]];
	n = &w->nodes[n->children[0]];
	n = &w->nodes[n->children[0]];
	n = &w->nodes[n->children[1]];
	assert_int_equal(n->axis, -1);
	assert_true(in_list(w, n, AREA_SOLID, b));
	assert_false(in_list(w, &w->nodes[0], AREA_SOLID, b));

	/* the 1-unit margin counts: 0.5 from the split is still across it */
	b = place(f, 2, SOLID_BBOX, AREA_LOOSE + 0.5f, 0.5f + 200, 50,
		  AREA_LOOSE);
	assert_true(in_list(w, &w->nodes[0], AREA_SOLID, b));

	/* triggers go to the trigger list */
	t = place(f, 3, SOLID_TRIGGER, 0, 0, 50, AREA_LOOSE);
	assert_true(in_list(w, &w->nodes[0], AREA_TRIGGERS, t));
	assert_false(in_list(w, &w->nodes[0], AREA_SOLID, t));

	/* relinking moves it; unlinking twice is harmless */
	a->origin[0] = -300;
	world_link(w, a);
	assert_false(in_list(w, &w->nodes[0], AREA_SOLID, a));
	world_unlink(w, a);
	assert_false(a->linked);
	world_unlink(w, a);
	assert_false(a->linked);

	/* SOLID_NOT: its leafs are known, but it is in no list */
	a = place(f, 4, SOLID_NOT, 0, 0, 50, 16);
	assert_false(a->linked);
	assert_int_equal(a->num_leafs, 1);
	assert_int_equal(a->leafnums[0], 1);
	assert_false(a->leafs_overflow);

	/* the world itself is never listed */
	f->objs[0].solid = SOLID_BSP;
	f->objs[0].model = 0;
	world_link(w, &f->objs[0]);
	assert_false(f->objs[0].linked);
}

static void test_link_bsp_bounds(void **state)
{
	struct area_fixture *f = *state;
	struct world_obj *o = &f->objs[7];

	/* a brush object's box comes from its model (the block: x -8..8,
	 * y -64..64, z 0..128), whatever mins/maxs say */
	o->solid = SOLID_BSP;
	o->model = 1;
	o->owner = -1;
	vec_set(o->origin, 100, 0, 0);
	vec_set(o->mins, -1, -1, -1);
	vec_set(o->maxs, 1, 1, 1);
	world_link(&f->w, o);
	assert_true(o->linked);
	assert_float_equal(o->absmin[0], 91, 0);
	assert_float_equal(o->absmax[0], 109, 0);
	assert_float_equal(o->absmin[1], -65, 0);
	assert_float_equal(o->absmax[2], 129, 0);
	assert_int_equal(o->num_leafs, 1);
}

/* A query box that only touches an object below a split still finds it:
 * the descent must not skip a child the box reaches by its face. */
static void test_area_split_edges(void **state)
{
	struct area_fixture *f = *state;
	struct world_obj *out[4];
	struct world_obj *hi, *lo;

	/* absmin x = 1 and absmax x = -1: on either side of the root split */
	hi = place(f, 1, SOLID_BBOX, 10, 100, 50, 8);
	lo = place(f, 2, SOLID_BBOX, -10, 100, 50, 8);
	assert_false(in_list(&f->w, &f->w.nodes[0], AREA_SOLID, hi));
	assert_false(in_list(&f->w, &f->w.nodes[0], AREA_SOLID, lo));

	assert_int_equal(world_area_objs(&f->w, (vec3_t){-100, 90, 40},
					 (vec3_t){1, 110, 60}, AREA_SOLID, out,
					 4),
			 2);
	assert_int_equal(world_area_objs(&f->w, (vec3_t){-100, 90, 40},
					 (vec3_t){0.99f, 110, 60}, AREA_SOLID,
					 out, 4),
			 1);
	assert_ptr_equal(out[0], lo);
	assert_int_equal(world_area_objs(&f->w, (vec3_t){-1, 90, 40},
					 (vec3_t){100, 110, 60}, AREA_SOLID, out,
					 4),
			 2);
	assert_int_equal(world_area_objs(&f->w, (vec3_t){-0.99f, 90, 40},
					 (vec3_t){100, 110, 60}, AREA_SOLID,
					 out, 4),
			 1);
	assert_ptr_equal(out[0], hi);
	/* solids are not triggers */
	assert_int_equal(world_area_objs(&f->w, (vec3_t){-100, 90, 40},
					 (vec3_t){100, 110, 60}, AREA_TRIGGERS,
					 out, 4),
			 0);
}

/* ---- queries against brute force ----------------------------------------- */

static uint32_t rng_next(uint32_t *s)
{
	/* xorshift32: a fixed sequence for a fixed seed */
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* a whole number in [lo, hi]: integer coordinates make touching boxes
 * (equal faces) common, which is where off-by-one tests fail */
static float rng_range(uint32_t *s, int lo, int hi)
{
	return (float)(lo + (int)(rng_next(s) % (uint32_t)(hi - lo + 1)));
}

static void random_obj(struct area_fixture *f, int id, uint32_t *s)
{
	static const int kinds[] = {SOLID_NOT, SOLID_TRIGGER, SOLID_BBOX,
				    SOLID_SLIDEBOX};
	struct world_obj *o = &f->objs[id];
	int big = rng_next(s) % 10 == 0;

	o->solid = kinds[rng_next(s) % 4];
	o->model = -1;
	o->owner = -1;
	/* some objects lie partly or wholly outside the world's bounds */
	vec_set(o->origin, rng_range(s, -700, 700), rng_range(s, -400, 400),
		rng_range(s, -100, 400));
	for (int k = 0; k < 3; k++) {
		o->mins[k] = -rng_range(s, 0, big ? 400 : 40);
		o->maxs[k] = rng_range(s, 0, big ? 400 : 40);
	}
	world_link(&f->w, o);
}

static bool brute_touch(const struct world_obj *o, const vec3_t mins,
			const vec3_t maxs)
{
	for (int k = 0; k < 3; k++) {
		float lo = o->origin[k] + o->mins[k] - 1;
		float hi = o->origin[k] + o->maxs[k] + 1;

		if (mins[k] > hi || maxs[k] < lo)
			return false;
	}
	return true;
}

static int cmp_ptr_id(const void *a, const void *b)
{
	const struct world_obj *x = *(struct world_obj *const *)a;
	const struct world_obj *y = *(struct world_obj *const *)b;

	return (x->id > y->id) - (x->id < y->id);
}

/* world_area_find's test: accepts the ids divisible by `every`, and
 * counts its calls */
struct find_ask {
	int every;
	int calls;
};

static bool find_pred(void *ctx, const struct world_obj *obj)
{
	struct find_ask *a = ctx;

	a->calls++;
	return obj->id % a->every == 0;
}

/* world_area_find against the brute force's answer want[0..nw): what it
 * returns is one of them that the test accepts, NULL only when none is;
 * accepting every one, it stops at the first (one call) */
static void check_find(struct area_fixture *f, const vec3_t mins,
		       const vec3_t maxs, enum area_kind kind,
		       struct world_obj *const *want, int nw)
{
	struct find_ask a = {3, 0};
	const struct world_obj *got = world_area_find(&f->w, mins, maxs, kind,
						      find_pred, &a);
	bool any = false, listed = false;

	for (int i = 0; i < nw; i++) {
		any |= want[i]->id % 3 == 0;
		listed |= want[i] == got;
	}
	assert_true(got ? listed && got->id % 3 == 0 : !any);
	assert_true(a.calls <= nw);
	a = (struct find_ask){1, 0};
	got = world_area_find(&f->w, mins, maxs, kind, find_pred, &a);
	assert_true(nw > 0 ? got != NULL && a.calls == 1 : got == NULL && a.calls == 0);
}

static void check_queries(struct area_fixture *f, const bool *live,
			  uint32_t *s, int rounds)
{
	struct world_obj *got[MAX_OBJS], *want[MAX_OBJS];

	for (int q = 0; q < rounds; q++) {
		int big = rng_next(s) % 4 == 0;
		vec3_t c, mins, maxs;
		enum area_kind kind = rng_next(s) % 2 ? AREA_SOLID : AREA_TRIGGERS;
		int n, nw = 0;

		vec_set(c, rng_range(s, -700, 700), rng_range(s, -400, 400),
			rng_range(s, -100, 400));
		for (int k = 0; k < 3; k++) {
			mins[k] = c[k] - rng_range(s, 0, big ? 500 : 50);
			maxs[k] = c[k] + rng_range(s, 0, big ? 500 : 50);
		}

		for (int i = 1; i < MAX_OBJS; i++) {
			const struct world_obj *o = &f->objs[i];
			bool kind_ok = kind == AREA_TRIGGERS ?
				o->solid == SOLID_TRIGGER :
				o->solid != SOLID_TRIGGER;

			if (live[i] && o->solid != SOLID_NOT && kind_ok &&
			    brute_touch(o, mins, maxs))
				want[nw++] = &f->objs[i];
		}
		check_find(f, mins, maxs, kind, want, nw);
		/* world_area_visits: exactly the objects the walk comes to */
		for (int i = 1, w = 0; i < MAX_OBJS; i++) {
			bool in = w < nw && want[w] == &f->objs[i];

			w += in;
			assert_int_equal(world_area_visits(&f->w, &f->objs[i],
							   mins, maxs, kind),
					 in);
		}
		n = world_area_objs(&f->w, mins, maxs, kind, got, MAX_OBJS);
		assert_int_equal(n, nw);
		qsort(got, (size_t)n, sizeof(got[0]), cmp_ptr_id);
		for (int i = 0; i < n; i++)
			assert_ptr_equal(got[i], want[i]);

		/* a short output array: the count is still the full count */
		if (nw > 2) {
			struct world_obj *few[2];

			assert_int_equal(world_area_objs(&f->w, mins, maxs, kind,
							 few, 2),
					 nw);
		}
	}
}

static void test_area_brute_force(void **state)
{
	struct area_fixture *f = *state;
	bool live[MAX_OBJS] = {false};
	uint32_t s = 0x5eed1234u;
	int found_some = 0;

	for (int i = 1; i < MAX_OBJS; i++) {
		random_obj(f, i, &s);
		live[i] = true;
	}
	check_queries(f, live, &s, 2000);

	/* move half of them (linking again unlinks first), drop a quarter */
	for (int i = 1; i < MAX_OBJS; i++) {
		uint32_t r = rng_next(&s) % 4;

		if (r < 2) {
			random_obj(f, i, &s);
		} else if (r == 2) {
			world_unlink(&f->w, &f->objs[i]);
			live[i] = false;
		}
	}
	check_queries(f, live, &s, 2000);

	/* the queries above were not all trivially empty */
	{
		struct world_obj *out[MAX_OBJS];
		vec3_t big_min = {-2000, -2000, -2000};
		vec3_t big_max = {2000, 2000, 2000};

		found_some = world_area_objs(&f->w, big_min, big_max, AREA_SOLID,
					     out, MAX_OBJS);
	}
	assert_true(found_some > 50);
}

/* A snapshot (struct world_snap) answers the solid queries as the world
 * did when it was taken, in its parts, and goes on doing so while the
 * world changes; it holds no triggers; a deferred world is not taken. */
enum { SNAP_QUERIES = 400, SNAP_MAX_FOUND = 64 };

static int snap_query(const struct world *w, const vec3_t mins,
		      const vec3_t maxs, int *ids)
{
	struct world_obj *out[MAX_OBJS];
	int n = world_area_objs(w, mins, maxs, AREA_SOLID, out, MAX_OBJS);

	for (int i = 0; i < n && i < SNAP_MAX_FOUND; i++)
		ids[i] = out[i]->id;
	return n;
}

/* A snapshot's MOVE_NOMONSTERS moves meet the brush objects it copied,
 * as the source's do (it has no list of them of its own: it walks) */
static void test_snapshot_brush_moves(void **state)
{
	struct area_fixture *f = *state;
	struct world_snap *snap = calloc(1, sizeof(*snap));
	struct world_obj *o;
	struct trace a, b;
	vec3_t start = {-300, 0, 60}, end = {300, 0, 60};

	assert_non_null(snap);
	o = place(f, 9, SOLID_BSP, 100, 0, 20, 8);
	o->model = 1;
	world_link(&f->w, o);
	assert_int_equal(world_snap_init(snap, &f->w), 0);
	world_snap_take(snap, &f->w, 0, 1);
	world_move(&f->w, start, zero, zero, end, MOVE_NOMONSTERS, NULL, &a);
	world_move(&snap->w, start, zero, zero, end, MOVE_NOMONSTERS, NULL, &b);
	assert_int_equal(a.ent, 9);
	assert_int_equal(b.ent, 9);
	assert_true(b.fraction == a.fraction);
	world_snap_free(snap);
	free(snap);
}

static void test_snapshot_answers_as_taken(void **state)
{
	struct area_fixture *f = *state;
	struct world_snap *snap = calloc(1, sizeof(*snap));
	vec3_t (*qmin)[1] = calloc(SNAP_QUERIES, sizeof(*qmin));
	vec3_t (*qmax)[1] = calloc(SNAP_QUERIES, sizeof(*qmax));
	int (*want)[SNAP_MAX_FOUND] = calloc(SNAP_QUERIES, sizeof(*want));
	int *nwant = calloc(SNAP_QUERIES, sizeof(*nwant));
	int got[SNAP_MAX_FOUND];
	uint32_t s = 0x51a9u;
	int nonempty = 0;

	assert_non_null(snap);
	assert_non_null(qmin);
	assert_non_null(qmax);
	assert_non_null(want);
	assert_non_null(nwant);
	for (int i = 1; i < MAX_OBJS; i++)
		random_obj(f, i, &s);
	assert_int_equal(world_snap_init(snap, &f->w), 0);
	assert_true(world_snap_fits(snap, &f->w));
	/* in three parts, the last first: the parts are independent */
	for (int part = 2; part >= 0; part--)
		world_snap_take(snap, &f->w, part, 3);

	for (int q = 0; q < SNAP_QUERIES; q++) {
		vec3_t c;

		vec_set(c, rng_range(&s, -700, 700), rng_range(&s, -400, 400),
			rng_range(&s, -100, 400));
		for (int k = 0; k < 3; k++) {
			qmin[q][0][k] = c[k] - rng_range(&s, 0, 120);
			qmax[q][0][k] = c[k] + rng_range(&s, 0, 120);
		}
		nwant[q] = snap_query(&f->w, qmin[q][0], qmax[q][0], want[q]);
		assert_int_equal(snap_query(&snap->w, qmin[q][0], qmax[q][0], got),
				 nwant[q]);
		for (int i = 0; i < nwant[q] && i < SNAP_MAX_FOUND; i++)
			assert_int_equal(got[i], want[q][i]);
		nonempty += nwant[q] > 0;
	}
	assert_true(nonempty > SNAP_QUERIES / 4);
	{
		struct world_obj *out[MAX_OBJS];
		vec3_t big_min = {-2000, -2000, -2000};
		vec3_t big_max = {2000, 2000, 2000};

		assert_int_equal(world_area_objs(&snap->w, big_min, big_max,
						 AREA_TRIGGERS, out, MAX_OBJS), 0);
		assert_true(world_area_objs(&f->w, big_min, big_max,
					    AREA_TRIGGERS, out, MAX_OBJS) > 0);
	}

	/* the world moves on: the snapshot still answers as taken */
	for (int i = 1; i < MAX_OBJS; i++) {
		if (rng_next(&s) % 2)
			random_obj(f, i, &s);
		else if (rng_next(&s) % 4 == 0)
			world_unlink(&f->w, &f->objs[i]);
	}
	for (int q = 0; q < SNAP_QUERIES; q++) {
		assert_int_equal(snap_query(&snap->w, qmin[q][0], qmax[q][0], got),
				 nwant[q]);
		for (int i = 0; i < nwant[q] && i < SNAP_MAX_FOUND; i++)
			assert_int_equal(got[i], want[q][i]);
	}

	/* a deferred phase's lists are not what its objects say: refused */
	world_defer(&f->w, true);
	assert_false(world_snap_fits(snap, &f->w));
	world_defer(&f->w, false);
	assert_true(world_snap_fits(snap, &f->w));

	world_snap_free(snap);
	world_snap_free(snap);	/* a second free does nothing */
	assert_false(world_snap_fits(snap, &f->w));
	free(snap);
	free(qmin);
	free(qmax);
	free(want);
	free(nwant);
}

/* the same queries through the deepest tree */
static void test_area_brute_force_deep(void **state)
{
	test_area_brute_force(state);
}

/* The depth a server asks for: QuakeWorld's up to 32 slots, one level
 * more per doubling, and a full binary tree of that depth. */
static void test_depth_for_slots(void **state)
{
	struct area_fixture *f = *state;

	assert_int_equal(world_depth_for(1), AREA_DEPTH);
	assert_int_equal(world_depth_for(32), AREA_DEPTH);
	assert_int_equal(world_depth_for(33), AREA_DEPTH + 1);
	assert_int_equal(world_depth_for(64), AREA_DEPTH + 1);
	assert_int_equal(world_depth_for(65), AREA_DEPTH + 2);
	assert_int_equal(world_depth_for(512), AREA_MAX_DEPTH);
	assert_int_equal(world_depth_for(4096), AREA_MAX_DEPTH);
	assert_int_equal(f->w.depth, AREA_MAX_DEPTH);
	assert_int_equal(f->w.num_nodes, (2 << AREA_MAX_DEPTH) - 1);
	world_free(&f->w);
	assert_int_equal(world_init_depth(&f->w, &f->room.map, f->objs,
					  MAX_OBJS, 99), 0);
	assert_int_equal(f->w.depth, AREA_MAX_DEPTH);
	world_free(&f->w);
	assert_int_equal(world_init_depth(&f->w, &f->room.map, f->objs,
					  MAX_OBJS, 0), 0);
	assert_int_equal(f->w.num_nodes, 3);
}

/* ---- the lists' chunks ---------------------------------------------------- */

/* Every list against the objects: each entry names a linked object of
 * the list's kind whose position is the entry's and whose live box is
 * the entry's (outside a deferred phase, unless placed by a region),
 * every chunk but a list's head is full, no chunk is empty, and the
 * chunks in lists and in the free list are all the pool's. */
static void check_lists(const struct world *w, bool boxes)
{
	int listed = 0, linked = 0, used = 0, free_chunks = 0;

	for (int n = 0; n < w->num_nodes; n++) {
		for (int kind = 0; kind < 2; kind++) {
			int32_t head = w->nodes[n].lists[kind];

			for (int32_t c = head; c >= 0; c = w->chunks[c].next) {
				const struct area_chunk *ch = &w->chunks[c];

				used++;
				assert_int_equal(ch->list, 2 * n + kind);
				assert_true(ch->count > 0);
				if (c != head)
					assert_int_equal(ch->count,
							 AREA_CHUNK_ENTRIES);
				for (int i = 0; i < ch->count; i++) {
					const struct area_entry *e = &ch->e[i];
					const struct world_obj *o = &w->objs[e->id];

					listed++;
					assert_true(o->linked);
					assert_int_equal(o->area_pos,
							 c * AREA_CHUNK_ENTRIES + i);
					assert_int_equal(kind == AREA_TRIGGERS,
							 o->solid == SOLID_TRIGGER);
					if (!boxes)
						continue;
					for (int k = 0; k < 3; k++) {
						assert_float_equal(e->lmin[k],
								   o->absmin[k], 0);
						assert_float_equal(e->lmax[k],
								   o->absmax[k], 0);
					}
				}
			}
		}
	}
	for (int i = 0; i < w->max_objs; i++)
		if (w->objs[i].linked)
			linked++;
		else
			assert_int_equal(w->objs[i].area_pos, -1);
	assert_int_equal(listed, linked);
	for (int32_t c = w->free_chunk; c >= 0; c = w->chunks[c].next)
		free_chunks++;
	assert_int_equal(used + free_chunks, w->num_chunks);
}

/* Many objects linked, relinked, retyped and unlinked in random order
 * into a tree of three nodes: chunks fill and empty, holes are filled
 * from the heads; every query answers as a scan of the linked objects. */
static void test_lists_churn(void **state)
{
	struct area_fixture *f = *state;
	bool live[MAX_OBJS] = {false};
	uint32_t s = 0xc0ffee11u;

	world_free(&f->w);
	assert_int_equal(world_init_depth(&f->w, &f->room.map, f->objs,
					  MAX_OBJS, 1), 0);
	assert_int_equal(f->w.num_nodes, 3);
	for (int step = 0; step < 20000; step++) {
		int id = 1 + (int)(rng_next(&s) % (MAX_OBJS - 1));

		if (rng_next(&s) % 3 == 0) {
			world_unlink(&f->w, &f->objs[id]);
			live[id] = false;
		} else {
			random_obj(f, id, &s);
			live[id] = true;
		}
		if (step % 200 == 0) {
			check_lists(&f->w, true);
			check_queries(f, live, &s, 20);
		}
	}
	/* all of them in, then all out in random order */
	for (int i = 1; i < MAX_OBJS; i++) {
		random_obj(f, i, &s);
		live[i] = true;
	}
	check_lists(&f->w, true);
	check_queries(f, live, &s, 200);
	for (int left = MAX_OBJS - 1; left > 0; left--) {
		int id = 1 + (int)(rng_next(&s) % (MAX_OBJS - 1));

		while (!live[id])
			id = id % (MAX_OBJS - 1) + 1;
		world_unlink(&f->w, &f->objs[id]);
		live[id] = false;
		if (left % 16 == 0) {
			check_lists(&f->w, true);
			check_queries(f, live, &s, 10);
		}
	}
	check_lists(&f->w, true);
	for (int n = 0; n < f->w.num_nodes; n++) {
		assert_int_equal(f->w.nodes[n].lists[AREA_SOLID], -1);
		assert_int_equal(f->w.nodes[n].lists[AREA_TRIGGERS], -1);
	}
}

/* world_free twice, then the world made again: empty, and it works */
static void test_free_reinit(void **state)
{
	struct area_fixture *f = *state;
	bool live[MAX_OBJS] = {false};
	uint32_t s = 0x1234abcdu;

	for (int i = 1; i < MAX_OBJS; i++) {
		random_obj(f, i, &s);
		live[i] = true;
	}
	check_queries(f, live, &s, 50);
	world_free(&f->w);
	world_free(&f->w);
	assert_null(f->w.chunks);
	assert_int_equal(world_init(&f->w, &f->room.map, f->objs, MAX_OBJS), 0);
	memset(live, 0, sizeof(live));
	check_lists(&f->w, true);
	check_queries(f, live, &s, 50);
	for (int i = 1; i < MAX_OBJS; i += 2) {
		random_obj(f, i, &s);
		live[i] = true;
	}
	check_lists(&f->w, true);
	check_queries(f, live, &s, 200);
}

/* A deferred phase: objects placed by their regions (the entry goes to
 * the region's node), moved and unlinked in the phase with the lists
 * unchanged, queries answering by the live boxes, then committed. */
static void test_deferred_region(void **state)
{
	struct area_fixture *f = *state;
	struct world *w = &f->w;
	bool live[MAX_OBJS] = {false};
	vec3_t rmin[MAX_OBJS], rmax[MAX_OBJS];
	int32_t pos[MAX_OBJS];
	uint32_t s = 0x0defe44du;

	for (int i = 1; i < MAX_OBJS; i++) {
		struct world_obj *o = place(f, i, i % 5 ? SOLID_SLIDEBOX :
					    SOLID_TRIGGER,
					    rng_range(&s, -400, 400),
					    rng_range(&s, -200, 200),
					    rng_range(&s, 0, 200), 16);

		live[i] = true;
		/* the region it may reach: 40 units around its box */
		for (int k = 0; k < 3; k++) {
			rmin[i][k] = o->absmin[k] - 40;
			rmax[i][k] = o->absmax[k] + 40;
		}
	}
	/* one across the root split: its region keeps it at the root */
	f->objs[1].origin[0] = 0;
	world_link(w, &f->objs[1]);
	vec_copy(f->objs[1].absmin, rmin[1]);
	vec_copy(f->objs[1].absmax, rmax[1]);
	rmin[1][0] -= 40;
	rmax[1][0] += 40;
	for (int i = 1; i < MAX_OBJS; i++)
		world_link_region(w, &f->objs[i], rmin[i], rmax[i]);
	assert_true(in_list(w, &w->nodes[0], AREA_SOLID, &f->objs[1]));
	check_lists(w, false);
	for (int i = 1; i < MAX_OBJS; i++)
		pos[i] = f->objs[i].area_pos;

	world_defer(w, true);
	for (int i = 1; i < MAX_OBJS; i++) {
		struct world_obj *o = &f->objs[i];

		if (rng_next(&s) % 4 == 0) {
			world_unlink(w, o);
			live[i] = false;
			continue;
		}
		/* within its region */
		for (int k = 0; k < 3; k++)
			o->origin[k] += rng_range(&s, -38, 38);
		world_link(w, o);
	}
	for (int i = 1; i < MAX_OBJS; i++)
		assert_int_equal(f->objs[i].area_pos, pos[i]);
	check_lists(w, false);
	check_queries(f, live, &s, 500);
	world_defer(w, false);

	for (int i = 1; i < MAX_OBJS; i++)
		world_commit(w, &f->objs[i]);
	for (int i = 1; i < MAX_OBJS; i++)
		assert_int_equal(f->objs[i].linked, live[i]);
	check_lists(w, true);
	check_queries(f, live, &s, 500);
}

/* ---- moves --------------------------------------------------------------- */

static void test_move_world_only(void **state)
{
	struct area_fixture *f = *state;
	struct trace tr;

	world_move(&f->w, (vec3_t){0, 0, 64}, zero, zero, (vec3_t){100, 0, 64},
		   MOVE_NORMAL, NULL, &tr);
	assert_float_equal(tr.fraction, 1, 0);
	assert_int_equal(tr.ent, -1);
	assert_float_equal(tr.endpos[0], 100, 0);

	world_move(&f->w, (vec3_t){0, 0, 64}, zero, zero, (vec3_t){1000, 0, 64},
		   MOVE_NORMAL, NULL, &tr);
	assert_int_equal(tr.ent, 0);
	assert_float_equal(tr.endpos[0], 512 - EPS, 0);

	assert_int_equal(world_point_contents(&f->w, (vec3_t){0, 0, 64}),
			 CONTENTS_EMPTY);
	assert_int_equal(world_point_contents(&f->w, (vec3_t){0, 0, -64}),
			 CONTENTS_SOLID);
}

static void test_move_stops_at_box(void **state)
{
	struct area_fixture *f = *state;
	struct world *w = &f->w;
	struct world_obj *box = place(f, 10, SOLID_BBOX, 200, 0, 64, 16);
	struct world_obj *mover = &f->objs[11];
	const vec3_t start = {0, 0, 64}, end = {400, 0, 64};
	const vec3_t pmins = {-16, -16, -24}, pmaxs = {16, 16, 32};
	struct trace tr;

	mover->owner = -1;
	world_move(w, start, zero, zero, end, MOVE_NORMAL, NULL, &tr);
	assert_int_equal(tr.ent, 10);
	assert_float_equal(tr.endpos[0], 184 - EPS, 0);
	assert_float_equal(tr.fraction, (184 - EPS) / 400, 1e-6);
	assert_float_equal(tr.plane.normal[0], -1, 0);
	assert_false(tr.startsolid);

	/* a player box meets it 16 units earlier */
	world_move(w, start, pmins, pmaxs, end, MOVE_NORMAL, mover, &tr);
	assert_int_equal(tr.ent, 10);
	assert_float_equal(tr.endpos[0], 168 - EPS, 0);

	/* a mover never hits itself */
	world_move(w, start, zero, zero, end, MOVE_NORMAL, box, &tr);
	assert_int_equal(tr.ent, -1);

	/* nor its own missile ... */
	box->owner = 11;
	world_move(w, start, zero, zero, end, MOVE_NORMAL, mover, &tr);
	assert_int_equal(tr.ent, -1);
	assert_float_equal(tr.fraction, 1, 0);
	box->owner = -1;

	/* ... nor, being a missile, its owner */
	mover->owner = 10;
	world_move(w, start, zero, zero, end, MOVE_NORMAL, mover, &tr);
	assert_int_equal(tr.ent, -1);
	mover->owner = -1;

	/* MOVE_NOMONSTERS sees only brush models: on to the wall */
	world_move(w, start, zero, zero, (vec3_t){1000, 0, 64}, MOVE_NOMONSTERS,
		   NULL, &tr);
	assert_int_equal(tr.ent, 0);
	assert_float_equal(tr.endpos[0], 512 - EPS, 0);

	/* slideboxes block too; triggers and unlinked objects do not */
	box->solid = SOLID_SLIDEBOX;
	world_link(w, box);
	world_move(w, start, zero, zero, end, MOVE_NORMAL, NULL, &tr);
	assert_int_equal(tr.ent, 10);
	box->solid = SOLID_TRIGGER;
	world_link(w, box);
	world_move(w, start, zero, zero, end, MOVE_NORMAL, NULL, &tr);
	assert_int_equal(tr.ent, -1);
	box->solid = SOLID_BBOX;
	world_link(w, box);
	world_unlink(w, box);
	world_move(w, start, zero, zero, end, MOVE_NORMAL, NULL, &tr);
	assert_int_equal(tr.ent, -1);

	/* a move that misses it to the side */
	world_link(w, box);
	world_move(w, (vec3_t){0, 30, 64}, zero, zero, (vec3_t){400, 30, 64},
		   MOVE_NORMAL, NULL, &tr);
	assert_int_equal(tr.ent, -1);
	/* ends exactly at end, in world space, though traced near the box */
	assert_float_equal(tr.fraction, 1, 0);
	assert_float_equal(tr.endpos[0], 400, 0);
	assert_float_equal(tr.endpos[1], 30, 0);
	assert_float_equal(tr.endpos[2], 64, 0);
}

static void test_move_nearest_wins(void **state)
{
	struct area_fixture *f = *state;
	struct trace tr;

	/* linked far first, in the same leaf */
	place(f, 20, SOLID_BBOX, 450, -100, 64, 8);
	place(f, 21, SOLID_BBOX, 300, -100, 64, 8);
	/* and one across the root's split, visited first */
	place(f, 22, SOLID_BBOX, 0, -100, 64, 8);

	world_move(&f->w, (vec3_t){100, -100, 64}, zero, zero,
		   (vec3_t){500, -100, 64}, MOVE_NORMAL, NULL, &tr);
	assert_int_equal(tr.ent, 21);
	assert_float_equal(tr.endpos[0], 292 - EPS, 0);

	world_move(&f->w, (vec3_t){500, -100, 64}, zero, zero,
		   (vec3_t){-400, -100, 64}, MOVE_NORMAL, NULL, &tr);
	assert_int_equal(tr.ent, 20);
	assert_float_equal(tr.endpos[0], 458 + EPS, 0);
	assert_float_equal(tr.plane.normal[0], 1, 0);

	/* starting inside the root's box, blocked by a deeper one: the
	 * nearer hit wins, and the solid start is not forgotten */
	world_move(&f->w, (vec3_t){4, -100, 64}, zero, zero,
		   (vec3_t){500, -100, 64}, MOVE_NORMAL, NULL, &tr);
	assert_int_equal(tr.ent, 21);
	assert_true(tr.startsolid);
	assert_float_equal(tr.endpos[0], 292 - EPS, 0);

	/* a move that just reaches into a box below the root's split */
	place(f, 23, SOLID_BBOX, -20, 50, 64, 4);
	world_move(&f->w, (vec3_t){100, 50, 64}, zero, zero,
		   (vec3_t){-16.5f, 50, 64}, MOVE_NORMAL, NULL, &tr);
	assert_int_equal(tr.ent, 23);
	assert_float_equal(tr.endpos[0], -16 + EPS, 0);

	/* ... and above it */
	place(f, 24, SOLID_BBOX, 20, 50, 64, 4);
	world_move(&f->w, (vec3_t){-10, 50, 64}, zero, zero,
		   (vec3_t){16.5f, 50, 64}, MOVE_NORMAL, NULL, &tr);
	assert_int_equal(tr.ent, 24);
	assert_float_equal(tr.endpos[0], 16 - EPS, 0);

	/* moves starting half a unit inside them, leaving */
	world_move(&f->w, (vec3_t){-16.5f, 50, 64}, zero, zero,
		   (vec3_t){0, 50, 64}, MOVE_NORMAL, NULL, &tr);
	assert_true(tr.startsolid);
	assert_int_equal(tr.ent, 23);
	world_move(&f->w, (vec3_t){16.5f, 50, 64}, zero, zero,
		   (vec3_t){0, 50, 64}, MOVE_NORMAL, NULL, &tr);
	assert_true(tr.startsolid);
	assert_int_equal(tr.ent, 24);

	/* starting inside one box: reported as a solid start */
	world_move(&f->w, (vec3_t){300, -100, 64}, zero, zero,
		   (vec3_t){500, -100, 64}, MOVE_NORMAL, NULL, &tr);
	assert_true(tr.startsolid);
}

/* A move wholly inside the world's solid is that, whatever else is there. */
static void test_move_allsolid_world(void **state)
{
	struct area_fixture *f = *state;
	struct trace tr;

	place(f, 25, SOLID_BBOX, 600, 0, 64, 8);
	world_move(&f->w, (vec3_t){580, 0, 64}, zero, zero,
		   (vec3_t){620, 0, 64}, MOVE_NORMAL, NULL, &tr);
	assert_true(tr.allsolid);
	assert_int_equal(tr.ent, 0);
}

static void test_move_missile(void **state)
{
	struct area_fixture *f = *state;
	struct world_obj *mon = place(f, 30, SOLID_SLIDEBOX, 200, 0, 64, 16);
	const vec3_t start = {0, 25, 64}, end = {400, 25, 64};
	struct trace tr;

	mon->monster = true;
	/* 25 units off the axis misses a 16-unit box ... */
	world_move(&f->w, start, zero, zero, end, MOVE_NORMAL, NULL, &tr);
	assert_int_equal(tr.ent, -1);
	/* ... but a missile is 15 units wide against monsters */
	world_move(&f->w, start, zero, zero, end, MOVE_MISSILE, NULL, &tr);
	assert_int_equal(tr.ent, 30);
	assert_float_equal(tr.endpos[0], 200 - 16 - 15 - EPS, 0);

	/* only against monsters */
	mon->monster = false;
	world_move(&f->w, start, zero, zero, end, MOVE_MISSILE, NULL, &tr);
	assert_int_equal(tr.ent, -1);
}

static void test_move_bsp_object(void **state)
{
	struct area_fixture *f = *state;
	struct world_obj *door = &f->objs[40];
	struct trace tr;

	door->solid = SOLID_BSP;
	door->model = 1;
	door->owner = -1;
	vec_set(door->origin, 100, 0, 0);
	world_link(&f->w, door);

	world_move(&f->w, (vec3_t){0, 0, 64}, zero, zero, (vec3_t){200, 0, 64},
		   MOVE_NORMAL, NULL, &tr);
	assert_int_equal(tr.ent, 40);
	assert_float_equal(tr.endpos[0], 92 - EPS, 0);

	/* brush models block even MOVE_NOMONSTERS */
	world_move(&f->w, (vec3_t){0, 0, 64}, (vec3_t){-16, -16, -24},
		   (vec3_t){16, 16, 32}, (vec3_t){200, 0, 64}, MOVE_NOMONSTERS,
		   NULL, &tr);
	assert_int_equal(tr.ent, 40);
	assert_float_equal(tr.endpos[0], 92 - 16 - EPS, 0);

	/* over it */
	world_move(&f->w, (vec3_t){0, 0, 140}, zero, zero,
		   (vec3_t){200, 0, 140}, MOVE_NORMAL, NULL, &tr);
	assert_int_equal(tr.ent, -1);
}

static void test_move_points_pass_points(void **state)
{
	struct area_fixture *f = *state;
	struct world_obj *mover = &f->objs[51];
	const vec3_t bmin = {-16, -16, -16}, bmax = {16, 16, 16};
	struct trace tr;

	place(f, 50, SOLID_BBOX, 200, 0, 64, 0);
	vec_copy(bmin, mover->mins);
	vec_copy(bmax, mover->maxs);
	mover->solid = SOLID_BBOX;
	mover->model = -1;
	mover->owner = -1;

	/* without a mover object, the box meets the point-sized object */
	world_move(&f->w, (vec3_t){0, 0, 64}, bmin, bmax, (vec3_t){400, 0, 64},
		   MOVE_NORMAL, NULL, &tr);
	assert_int_equal(tr.ent, 50);
	assert_float_equal(tr.endpos[0], 184 - EPS, 0);
	/* a mover with a size passes through it */
	world_move(&f->w, (vec3_t){0, 0, 64}, bmin, bmax, (vec3_t){400, 0, 64},
		   MOVE_NORMAL, mover, &tr);
	assert_int_equal(tr.ent, -1);
}

/* ---- moves against brute force ------------------------------------------ */

/* The rule a move's answer follows, object by object with no tree: the
 * world first, then every solid box object but the mover (and points,
 * for a sized mover) traced as a box hull; all-solid first, the nearer
 * hit, the lower id; a start in solid kept whoever wins.  The tree's
 * walk (which skips nodes and objects the move cannot reach) must give
 * exactly this. */
static void brute_move(struct area_fixture *f, const bool *live,
		       const vec3_t start, const vec3_t mins, const vec3_t maxs,
		       const vec3_t end, enum move_kind kind,
		       const struct world_obj *pass, struct trace *best)
{
	struct bsp_box_hull box;
	bool startsolid;

	bsp_box_hull_init(&box);
	bsp_trace_box(&f->room.map, 0, zero, mins, maxs, start, end, best);
	best->ent = best->fraction < 1 || best->startsolid ? 0 : -1;
	startsolid = best->startsolid;
	for (int i = 1; i < MAX_OBJS; i++) {
		const struct world_obj *o = &f->objs[i];
		const float *mmins = mins, *mmaxs = maxs;
		vec3_t hmins, hmaxs, s_l, e_l, m15 = {-15, -15, -15},
			p15 = {15, 15, 15};
		struct trace tr;
		bool better;

		if (!live[i] || o == pass || (o->solid != SOLID_BBOX &&
					      o->solid != SOLID_SLIDEBOX &&
					      o->solid != SOLID_BSP))
			continue;
		if (kind == MOVE_NOMONSTERS && o->solid != SOLID_BSP)
			continue;
		if (pass && pass->maxs[0] != pass->mins[0] &&
		    o->maxs[0] == o->mins[0])
			continue;
		if (kind == MOVE_MISSILE && o->monster) {
			mmins = m15;
			mmaxs = p15;
		}
		if (o->solid == SOLID_BSP) {
			bsp_trace_box(&f->room.map, o->model, o->origin, mmins,
				      mmaxs, start, end, &tr);
		} else {
			vec_sub(o->mins, mmaxs, hmins);
			vec_sub(o->maxs, mmins, hmaxs);
			bsp_box_hull_set(&box, hmins, hmaxs);
			vec_sub(start, o->origin, s_l);
			vec_sub(end, o->origin, e_l);
			bsp_trace_hull(&box.hull, s_l, e_l, &tr);
			if (tr.fraction == 1)
				vec_copy(end, tr.endpos);
			else
				vec_add(tr.endpos, o->origin, tr.endpos);
		}
		startsolid = startsolid || tr.startsolid;
		if (tr.allsolid != best->allsolid)
			better = tr.allsolid;
		else if (tr.fraction != best->fraction)
			better = tr.fraction < best->fraction;
		else
			better = (tr.fraction < 1 || tr.startsolid ||
				  tr.allsolid) &&
				(best->ent < 0 || (best->ent > 0 && i < best->ent));
		if (better) {
			*best = tr;
			best->ent = i;
		}
		best->startsolid = startsolid;
	}
}

/* the walk's answer is the object-by-object one, to the bit */
static void assert_same_trace(const struct trace *got, const struct trace *want)
{
	assert_int_equal(got->ent, want->ent);
	assert_true(got->fraction == want->fraction);
	assert_int_equal(got->startsolid, want->startsolid);
	assert_int_equal(got->allsolid, want->allsolid);
	for (int k = 0; k < 3; k++)
		assert_true(got->endpos[k] == want->endpos[k]);
}

/* a crowd of boxes, many on the deepest tree's split planes, and moves of
 * every length (shots across the room, steps, zero-length tests) */
static void test_move_brute_force(void **state)
{
	struct area_fixture *f = *state;
	bool live[MAX_OBJS] = {false};
	uint32_t s = 0xc0ffee11u;
	const vec3_t pmins = {-16, -16, -24}, pmaxs = {16, 16, 32};
	int hits = 0, stuck = 0, misses = 0, brushed = 0, live_brushes = 0;

	for (int i = 1; i < MAX_OBJS; i++) {
		struct world_obj *o = &f->objs[i];
		int r = (int)rng_range(&s, 4, 24);

		/* a third on a split of the tree (x and y multiples of 64) */
		float x = rng_next(&s) % 3 == 0 ?
			64.0f * rng_range(&s, -8, 8) : rng_range(&s, -520, 520);
		float y = rng_next(&s) % 3 == 0 ?
			64.0f * rng_range(&s, -4, 4) : rng_range(&s, -260, 260);

		place(f, i, rng_next(&s) % 2 ? SOLID_BBOX : SOLID_SLIDEBOX, x,
		      y, rng_range(&s, 20, 200), (float)r);
		o->monster = rng_next(&s) % 4 == 0;
		if (rng_next(&s) % 16 == 0) {	/* a point */
			vec_set(o->mins, 0, 0, 0);
			vec_set(o->maxs, 0, 0, 0);
			world_link(&f->w, o);
		}
		if (i % 16 == 0) {
			/* a brush object (the map's block: x -8..8, y -64..64,
			 * z 0..128), which MOVE_NOMONSTERS clips too */
			o->solid = SOLID_BSP;
			o->model = 1;
			o->monster = false;
			vec_set(o->mins, -8, -64, 0);
			vec_set(o->maxs, 8, 64, 128);
			world_link(&f->w, o);
		}
		live[i] = true;
	}
	for (int round = 0; round < 2; round++) {
		for (int q = 0; q < 3000; q++) {
			int len = (int)(rng_next(&s) % 4);
			bool sized = rng_next(&s) % 2;
			uint32_t pick = rng_next(&s) % 4;
			enum move_kind kind = pick == 0 ? MOVE_NOMONSTERS :
				!sized && pick == 1 ? MOVE_MISSILE : MOVE_NORMAL;
			const float *mins = sized ? pmins : zero;
			const float *maxs = sized ? pmaxs : zero;
			const struct world_obj *pass = rng_next(&s) % 2 ?
				&f->objs[1 + rng_next(&s) % (MAX_OBJS - 1)] :
				NULL;
			vec3_t start, end, d;
			struct trace got, want;

			vec_set(start, rng_range(&s, -520, 520),
				rng_range(&s, -260, 260), rng_range(&s, 20, 200));
			/* zero, a step, a room's length, a shot's (past it) */
			float reach = len == 0 ? 0 : len == 1 ? 40 :
				len == 2 ? 600 : 4000;

			vec_set(d, rng_range(&s, -100, 100),
				rng_range(&s, -100, 100), rng_range(&s, -30, 30));
			if (rng_next(&s) % 8 == 0)
				d[rng_next(&s) % 2] = 0;	/* along an axis */
			vec_ma(start, reach / 100, d, end);
			brute_move(f, live, start, mins, maxs, end, kind, pass,
				   &want);
			world_move(&f->w, start, mins, maxs, end, kind, pass,
				   &got);
			assert_same_trace(&got, &want);
			if (kind == MOVE_NORMAL)
				assert_int_equal(world_test_box(&f->w, start,
								mins, maxs,
								pass),
						 want.startsolid ||
						 (len == 0 && want.allsolid));
			hits += want.ent > 0;
			stuck += want.startsolid;
			misses += want.ent < 0;
			brushed += kind == MOVE_NOMONSTERS && want.ent > 0;
		}
		/* move a third, drop a few */
		for (int i = 1; i < MAX_OBJS; i++) {
			uint32_t r = rng_next(&s) % 6;

			if (r < 2) {
				vec_set(f->objs[i].origin,
					rng_range(&s, -520, 520),
					rng_range(&s, -260, 260),
					rng_range(&s, 20, 200));
				world_link(&f->w, &f->objs[i]);
				live[i] = true;
			} else if (r == 2) {
				world_unlink(&f->w, &f->objs[i]);
				live[i] = false;
			}
		}
	}
	/* every kind of answer came up; MOVE_NOMONSTERS tested the world's
	 * list of brush objects (every one linked), not the tree */
	for (int i = 1; i < MAX_OBJS; i++)
		live_brushes += live[i] && f->objs[i].solid == SOLID_BSP;
	assert_true(live_brushes > 8);
	assert_int_equal(f->w.num_bsp, live_brushes);
	assert_true(brushed > 20);
	assert_true(hits > 300);
	assert_true(stuck > 50);
	assert_true(misses > 300);
}

/* More brush objects than the world's list holds (WORLD_BSP_OBJS): the
 * list is given up and MOVE_NOMONSTERS walks the tree, with the same
 * answers; unlinking them all keeps it given up */
static void test_brush_list_overflow(void **state)
{
	struct area_fixture *f = *state;
	bool live[MAX_OBJS] = {false};
	int n = WORLD_BSP_OBJS + 6;

	for (int i = 1; i <= n; i++) {
		struct world_obj *o = place(f, i, SOLID_BSP, -500 + 14.0f * (float)i,
					    (float)(i % 5) * 40 - 100, 40, 8);

		o->model = 1;
		vec_set(o->mins, -8, -64, 0);
		vec_set(o->maxs, 8, 64, 128);
		world_link(&f->w, o);
		live[i] = true;
		assert_int_equal(f->w.num_bsp, i <= WORLD_BSP_OBJS ? i : -1);
		assert_int_equal(o->bsp_pos, i <= WORLD_BSP_OBJS ? i - 1 : -1);
	}
	for (int i = 1; i <= n; i++)
		assert_int_equal(f->objs[i].bsp_pos, -1);
	int hit = 0;

	for (int q = 0; q < 40; q++) {
		vec3_t start = {-505, (float)q * 10 - 200, 60};
		vec3_t end = {505, (float)q * 7 - 140, 100};
		struct trace got, want;

		brute_move(f, live, start, zero, zero, end, MOVE_NOMONSTERS,
			   NULL, &want);
		world_move(&f->w, start, zero, zero, end, MOVE_NOMONSTERS, NULL,
			   &got);
		assert_same_trace(&got, &want);
		hit += want.ent > 0;
	}
	assert_true(hit > 20);
	for (int i = 1; i <= n; i++)
		world_unlink(&f->w, &f->objs[i]);
	assert_int_equal(f->w.num_bsp, -1);
}

/* Loose placement (area.c): small boxes straddling the deep tree's splits
 * go down on their centre's side, so a walk must enter a child when it
 * reaches AREA_LOOSE past the split.  Queries whose face lies exactly on
 * an object's face, and moves that graze it by half a unit from across
 * the split, against the brute-force answers (a query walk's margin one
 * unit short fails, a move walk's three: its swept box has 2 to spare). */
static void test_loose_edges(void **state)
{
	struct area_fixture *f = *state;
	bool live[MAX_OBJS] = {false};
	uint32_t s = 0x10053ed6u;
	const vec3_t pmins = {-16, -16, -24}, pmaxs = {16, 16, 32};
	struct world_obj *got[MAX_OBJS];
	int found = 0, hits = 0;

	/* the deepest tree splits x at multiples of 64, y of 32 */
	for (int i = 1; i < MAX_OBJS; i++) {
		/* half sizes up to the loosest (linked 47.5 wide), centres
		 * up to AREA_LOOSE from a split, a third within 2 units */
		int near = rng_next(&s) % 3 == 0 ? 2 : AREA_LOOSE;
		float r = rng_range(&s, 4, AREA_LOOSE - 2) +
			0.25f * rng_range(&s, 0, 3);
		float x = 64.0f * rng_range(&s, -7, 7) +
			rng_range(&s, -near, near) + 0.25f * rng_range(&s, 0, 3);
		float y = 32.0f * rng_range(&s, -7, 7) +
			rng_range(&s, -near, near) + 0.25f * rng_range(&s, 0, 3);

		place(f, i, rng_next(&s) % 2 ? SOLID_BBOX : SOLID_SLIDEBOX, x,
		      y, rng_range(&s, 20, 200), r);
		live[i] = true;
	}
	for (int q = 0; q < 4000; q++) {
		const struct world_obj *o = &f->objs[1 + rng_next(&s) % (MAX_OBJS - 1)];
		int a = (int)(rng_next(&s) % 2), side = (int)(rng_next(&s) % 2);
		vec3_t mins, maxs;
		int n, nw = 0;

		/* a query touching o's face on axis a from outside */
		for (int k = 0; k < 3; k++) {
			float c = 0.5f * (o->absmin[k] + o->absmax[k]);

			mins[k] = c - rng_range(&s, 0, 30);
			maxs[k] = c + rng_range(&s, 0, 30);
		}
		if (side == 0) {
			maxs[a] = o->absmin[a];
			mins[a] = maxs[a] - rng_range(&s, 0, 60);
		} else {
			mins[a] = o->absmax[a];
			maxs[a] = mins[a] + rng_range(&s, 0, 60);
		}
		n = world_area_objs(&f->w, mins, maxs, AREA_SOLID, got, MAX_OBJS);
		for (int i = 1; i < MAX_OBJS; i++)
			if (live[i] && brute_touch(&f->objs[i], mins, maxs)) {
				assert_true(nw < n);
				assert_ptr_equal(got[nw], &f->objs[i]);
				nw++;
			}
		assert_int_equal(n, nw);
		found += n;

		/* a move along the other axis whose box enters o's by half a
		 * unit on axis a, from the side the query came from */
		bool sized = rng_next(&s) % 2;
		const float *mmins = sized ? pmins : zero;
		const float *mmaxs = sized ? pmaxs : zero;
		vec3_t start, end;
		struct trace tr, want;

		vec_copy(o->origin, start);
		if (side == 0)
			start[a] = o->origin[a] + o->mins[a] - mmaxs[a] + 0.5f;
		else
			start[a] = o->origin[a] + o->maxs[a] - mmins[a] - 0.5f;
		vec_copy(start, end);
		start[1 - a] -= rng_range(&s, 40, 300);
		end[1 - a] += rng_range(&s, 40, 300);
		if (rng_next(&s) % 2) {	/* the other way */
			vec3_t t;

			vec_copy(start, t);
			vec_copy(end, start);
			vec_copy(t, end);
		}
		brute_move(f, live, start, mmins, mmaxs, end, MOVE_NORMAL, NULL,
			   &want);
		world_move(&f->w, start, mmins, mmaxs, end, MOVE_NORMAL, NULL, &tr);
		assert_int_equal(tr.ent, want.ent);
		assert_true(tr.fraction == want.fraction);
		assert_int_equal(tr.startsolid, want.startsolid);
		assert_int_equal(tr.allsolid, want.allsolid);
		hits += want.ent > 0;
	}
	assert_true(found > 4000);
	assert_true(hits > 1000);
}

/* Moves that cross a box's face with a tiny normal component, through a
 * crowd strung along their line.  The trace's split point stays
 * DIST_EPSILON before the face along its normal, which is a large part of
 * such a move: the hull's answer comes well before the point where the
 * segment meets the box.  A move skips the objects its segment comes
 * near only past the nearest hit so far (sweep_misses); "near" must keep
 * its margin for these, or a farther object wins (a walk without it
 * fails here). */
static void test_move_grazing(void **state)
{
	struct area_fixture *f = *state;
	bool live[MAX_OBJS] = {false};
	uint32_t s = 0x62a21e55u;
	const vec3_t pmins = {-16, -16, -24}, pmaxs = {16, 16, 32};
	int early = 0, hits = 0;

	/* a crowd in a band along x, another along y: every line meets it */
	for (int i = 1; i < MAX_OBJS; i++) {
		bool along_x = i % 2;
		float x = along_x ? rng_range(&s, -500, 500) : rng_range(&s, -40, 40);
		float y = along_x ? rng_range(&s, -40, 40) : rng_range(&s, -240, 240);

		place(f, i, rng_next(&s) % 2 ? SOLID_BBOX : SOLID_SLIDEBOX, x,
		      y, rng_range(&s, 80, 140), (float)rng_range(&s, 4, 20));
		live[i] = true;
	}
	for (int q = 0; q < 6000; q++) {
		const struct world_obj *o = &f->objs[1 + rng_next(&s) % (MAX_OBJS - 1)];
		int b = (int)(rng_next(&s) % 2);	/* along x or y */
		int a = rng_next(&s) % 2 ? 2 : 1 - b;	/* the face's axis */
		int c = 3 - a - b;
		int sgn = rng_next(&s) % 2 ? 1 : -1;
		bool sized = rng_next(&s) % 2;
		const float *mmins = sized ? pmins : zero;
		const float *mmaxs = sized ? pmaxs : zero;
		vec3_t start, end, lo, hi;
		struct trace got, want;

		for (int k = 0; k < 3; k++) {
			lo[k] = o->origin[k] + o->mins[k] - mmaxs[k];
			hi[k] = o->origin[k] + o->maxs[k] - mmins[k];
		}
		/* from just outside the face (up to DIST_EPSILON) to just
		 * inside it, across a room's length */
		float face = sgn > 0 ? hi[a] : lo[a];
		float out = (float)rng_range(&s, 1, 30) / 1024.0f;
		float in = (float)rng_range(&s, 0, 60) / 1024.0f;

		start[a] = face + (float)sgn * out;
		end[a] = face - (float)sgn * in;
		start[b] = o->origin[b] - (float)rng_range(&s, 60, 400);
		end[b] = o->origin[b] + (float)rng_range(&s, 60, 400);
		start[c] = end[c] = o->origin[c] +
			(float)rng_range(&s, -3, 3) * 0.25f * (o->maxs[c] - mmins[c]);
		if (rng_next(&s) % 2) {	/* the other way along b */
			float t = start[b];

			start[b] = end[b];
			end[b] = t;
		}
		brute_move(f, live, start, mmins, mmaxs, end, MOVE_NORMAL, NULL,
			   &want);
		world_move(&f->w, start, mmins, mmaxs, end, MOVE_NORMAL, NULL,
			   &got);
		assert_same_trace(&got, &want);
		if (want.ent > 0 && !want.startsolid) {
			const struct world_obj *w = &f->objs[want.ent];

			for (int k = 0; k < 3; k++) {
				lo[k] = w->origin[k] + w->mins[k] - mmaxs[k];
				hi[k] = w->origin[k] + w->maxs[k] - mmins[k];
			}
			hits++;
			/* the answer well before the segment meets the box:
			 * what this is for */
			early += !world_slabs_meet_upto(start, end, lo, hi, 0,
							want.fraction + 0.01f);
		}
	}
	assert_true(hits > 2000);
	assert_true(early > 100);
}

static void test_test_box(void **state)
{
	struct area_fixture *f = *state;
	struct world_obj *box = place(f, 60, SOLID_BBOX, -200, 0, 64, 16);
	const vec3_t pmins = {-16, -16, -24}, pmaxs = {16, 16, 32};

	place(f, 61, SOLID_TRIGGER, 200, 0, 64, 32);
	assert_false(world_test_box(&f->w, (vec3_t){0, 0, 64}, pmins, pmaxs,
				    NULL));
	/* into the floor */
	assert_true(world_test_box(&f->w, (vec3_t){0, 0, 20}, pmins, pmaxs,
				   NULL));
	/* the objects alone: the floor is not asked, the box is */
	assert_false(world_test_box_objs(&f->w, (vec3_t){0, 0, 20}, pmins,
					 pmaxs, NULL));
	assert_true(world_test_box_objs(&f->w, (vec3_t){-180, 0, 20}, pmins,
					pmaxs, NULL));
	assert_false(world_test_box_objs(&f->w, (vec3_t){-180, 0, 20}, pmins,
					 pmaxs, box));
	/* overlapping the box, unless it is the one asking */
	assert_true(world_test_box(&f->w, (vec3_t){-180, 0, 64}, pmins, pmaxs,
				   NULL));
	assert_false(world_test_box(&f->w, (vec3_t){-180, 0, 64}, pmins, pmaxs,
				    box));
	/* half a unit into it is */
	assert_true(world_test_box(&f->w, (vec3_t){-168.5f, 0, 64}, pmins,
				   pmaxs, NULL));
	/* touching it face to face is not stuck */
	assert_false(world_test_box(&f->w, (vec3_t){-168, 0, 64}, pmins, pmaxs,
				    NULL));
	/* triggers never make a box stuck */
	assert_false(world_test_box(&f->w, (vec3_t){200, 0, 64}, pmins, pmaxs,
				    NULL));
}

/* world_move_lagged (MVDSV's MOVE_LAGGED): a marked object is passed
 * over where it stands and met where the caller puts it, with the same
 * rules of passing; the others are met as world_move meets them */
static void test_move_lagged(void **state)
{
	struct area_fixture *f = *state;
	struct world *w = &f->w;
	struct world_obj *box = place(f, 10, SOLID_SLIDEBOX, 200, 0, 64, 16);
	struct world_obj *other = place(f, 12, SOLID_BBOX, 300, 0, 64, 16);
	struct world_obj *mover = &f->objs[11];
	const vec3_t start = {0, 0, 64}, end = {400, 0, 64};
	uint8_t mark[MAX_OBJS] = {0};
	int ids[1] = {10};
	float origins[3] = {100, 0, 64};
	float boxes[6] = {100 - 16, -16, 64 - 16, 100 + 16, 16, 64 + 16};
	struct world_lag lag = {1, ids, origins, boxes, mark};
	struct trace tr;

	mover->owner = -1;
	mark[10] = 1;
	/* met at its rewound place, nearer than where it stands */
	world_move_lagged(w, start, zero, zero, end, MOVE_NORMAL, mover, &lag, &tr);
	assert_int_equal(tr.ent, 10);
	assert_float_equal(tr.endpos[0], 84 - EPS, 0);
	/* rewound off the line: the move passes where it stands and meets
	 * the next object */
	origins[1] = boxes[1] = boxes[4] = 100;
	boxes[1] -= 16;
	boxes[4] += 16;
	world_move_lagged(w, start, zero, zero, end, MOVE_NORMAL, mover, &lag, &tr);
	assert_int_equal(tr.ent, 12);
	origins[1] = 0;
	boxes[1] = -16;
	boxes[4] = 16;
	/* the rules of passing hold: its owner's move passes it */
	box->owner = 11;
	world_move_lagged(w, start, zero, zero, end, MOVE_NORMAL, mover, &lag, &tr);
	assert_int_equal(tr.ent, 12);
	box->owner = -1;
	/* not solid (dead): passed over */
	box->solid = SOLID_NOT;
	world_move_lagged(w, start, zero, zero, end, MOVE_NORMAL, mover, &lag, &tr);
	assert_int_equal(tr.ent, 12);
	box->solid = SOLID_SLIDEBOX;
	/* MOVE_NOMONSTERS sees brush models only */
	world_move_lagged(w, start, zero, zero, end, MOVE_NOMONSTERS, mover,
			  &lag, &tr);
	assert_int_equal(tr.ent, -1);
	/* unmarked, it is met where it stands, as world_move meets it */
	mark[10] = 0;
	lag.num = 0;
	world_move_lagged(w, start, zero, zero, end, MOVE_NORMAL, mover, &lag, &tr);
	assert_int_equal(tr.ent, 10);
	assert_float_equal(tr.endpos[0], 184 - EPS, 0);
	(void)other;
}

/* ---- the change log of speculative moves (src/world/changes.c) ---------- */

static bool box_meets(const vec3_t amin, const vec3_t amax, const vec3_t bmin,
		      const vec3_t bmax)
{
	for (int k = 0; k < 3; k++)
		if (amin[k] > bmax[k] || amax[k] < bmin[k])
			return false;
	return true;
}

static bool ask(const struct world *w, float x, float y, float z, float r,
		int skip)
{
	vec3_t mn = {x - r, y - r, z - r}, mx = {x + r, y + r, z + r};

	return world_changes_meet(w, mn, mx, skip, NULL, NULL);
}

static bool say_no(void *ctx, int id, const vec3_t mins, const vec3_t maxs,
		   bool brush)
{
	(void)ctx;
	(void)id;
	(void)mins;
	(void)maxs;
	(void)brush;
	return false;
}

/* links and unlinks under a log note the old and the new boxes; a box
 * far from both is not met, the object asking is skipped, a new segment
 * forgets the last, and no log answers yes */
static void test_changes_log(void **state)
{
	struct area_fixture *f = *state;
	struct world_changes *c = world_changes_create(64);
	struct world_obj *a, *b;
	vec3_t mn = {90, -10, -10}, mx = {110, 10, 10};
	uint64_t noted, over;

	assert_non_null(c);
	a = place(f, 1, SOLID_BBOX, 100, 0, 0, 16);
	b = place(f, 2, SOLID_BBOX, -300, 0, 0, 16);
	assert_true(ask(&f->w, 0, 0, 0, 8, -1));	/* no log: yes */
	world_changes_begin(&f->w, c);
	assert_false(ask(&f->w, 100, 0, 0, 8, -1));
	vec_set(a->origin, 140, 0, 0);
	world_link(&f->w, a);
	assert_true(ask(&f->w, 100, 0, 0, 8, -1));	/* where it was */
	assert_true(ask(&f->w, 150, 0, 0, 8, -1));	/* where it is */
	assert_false(ask(&f->w, 100, 0, 0, 8, 1));	/* its own move */
	assert_false(ask(&f->w, -300, 0, 0, 8, -1));	/* b did not move */
	assert_false(ask(&f->w, 120, 200, 0, 8, -1));
	assert_false(world_changes_meet(&f->w, mn, mx, -1, say_no, NULL));
	world_unlink(&f->w, b);
	assert_true(ask(&f->w, -300, 0, 0, 8, -1));
	world_changes_counts(c, &noted, &over);
	assert_int_equal(noted, 3);
	assert_int_equal(over, 0);
	world_changes_end(&f->w);
	assert_null(f->w.changes);
	/* links outside a log are not noted */
	world_link(&f->w, b);
	world_changes_begin(&f->w, c);
	assert_false(ask(&f->w, 100, 0, 0, 8, -1));
	assert_false(ask(&f->w, -300, 0, 0, 8, -1));
	world_changes_end(&f->w);
	world_changes_destroy(c);
}

/* a full log answers yes everywhere; a box over many columns is found
 * far from its corner */
static void test_changes_full_and_big(void **state)
{
	struct area_fixture *f = *state;
	struct world_changes *c = world_changes_create(2);
	uint64_t noted, over;

	assert_non_null(c);
	world_changes_begin(&f->w, c);
	place(f, 3, SOLID_BBOX, 0, 0, 0, 400);	/* 7 x 7 columns: the big list */
	assert_true(ask(&f->w, 380, 380, 0, 4, -1));
	assert_true(ask(&f->w, -380, -380, 0, 4, -1));
	assert_false(ask(&f->w, 450, 0, 0, 4, -1));
	place(f, 4, SOLID_BBOX, 200, 200, 0, 8);
	assert_false(ask(&f->w, 450, 0, 0, 4, -1));
	place(f, 5, SOLID_BBOX, -200, 200, 0, 8);	/* the third note */
	assert_true(ask(&f->w, 450, 0, 0, 4, -1));
	world_changes_counts(c, &noted, &over);
	assert_int_equal(noted, 3);
	assert_int_equal(over, 1);
	world_changes_end(&f->w);
	world_changes_destroy(c);
}

/* against the brute force: random moves of random boxes under a log,
 * random questions, answered as a scan over every noted box answers */
static void test_changes_brute_force(void **state)
{
	struct area_fixture *f = *state;
	struct world_changes *c = world_changes_create(4096);
	static vec3_t nmin[2048], nmax[2048];
	static int nid[2048];
	int n = 0;
	unsigned seed = 7;

	assert_non_null(c);
	for (int i = 1; i < 40; i++)
		place(f, i, SOLID_SLIDEBOX, (float)(rand_r(&seed) % 1000 - 500),
		      (float)(rand_r(&seed) % 500 - 250), 0, 16);
	for (int round = 0; round < 20; round++) {
		world_changes_begin(&f->w, c);
		n = 0;
		for (int m = 0; m < 30; m++) {
			struct world_obj *o = &f->objs[1 + rand_r(&seed) % 39];

			if (o->linked) {
				vec_copy(placed(&f->w, o)->lmin, nmin[n]);
				vec_copy(placed(&f->w, o)->lmax, nmax[n]);
				nid[n++] = o->id;
			}
			o->origin[0] += (float)(rand_r(&seed) % 65 - 32);
			o->origin[1] += (float)(rand_r(&seed) % 65 - 32);
			if (rand_r(&seed) % 8 == 0) {
				world_unlink(&f->w, o);
				continue;
			}
			world_link(&f->w, o);
			vec_copy(placed(&f->w, o)->lmin, nmin[n]);
			vec_copy(placed(&f->w, o)->lmax, nmax[n]);
			nid[n++] = o->id;
		}
		for (int q = 0; q < 200; q++) {
			float x = (float)(rand_r(&seed) % 1100 - 550);
			float y = (float)(rand_r(&seed) % 600 - 300);
			float r = (float)(1 + rand_r(&seed) % 300);
			int skip = rand_r(&seed) % 4 ? -1 : 1 + rand_r(&seed) % 39;
			vec3_t mn = {x - r, y - r, -r}, mx = {x + r, y + r, r};
			bool want = false;

			for (int i = 0; i < n && !want; i++)
				want = nid[i] != skip &&
				       box_meets(mn, mx, nmin[i], nmax[i]);
			assert_int_equal(world_changes_meet(&f->w, mn, mx, skip,
							    NULL, NULL), want);
		}
		world_changes_end(&f->w);
	}
	world_changes_destroy(c);
}

static void test_segment_meets(void **state)
{
	vec3_t mn = {0, 0, 0}, mx = {10, 10, 10};
	vec3_t a = {-5, 5, 5}, b = {15, 5, 5}, c = {-5, 12, 5}, d = {15, 12, 5};
	vec3_t e = {-5, -5, 5}, g = {-1, 5, 5};

	(void)state;
	assert_true(world_segment_meets(a, b, 0, mn, mx));
	assert_false(world_segment_meets(c, d, 1, mn, mx));	/* 2 beside */
	assert_true(world_segment_meets(c, d, 2, mn, mx));
	assert_false(world_segment_meets(e, g, 0.5f, mn, mx));	/* short of it */
	assert_true(world_segment_meets(g, g, 1, mn, mx));	/* a point */
	assert_false(world_segment_meets(g, g, 0.5f, mn, mx));
}

static const struct CMUnitTest area_tests[] = {
	cmocka_unit_test_setup_teardown(test_tree_shape, setup_world,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_link_placement, setup_world,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_link_bsp_bounds, setup_world,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_area_split_edges, setup_world,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_area_brute_force_deep, setup_world_deep,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_depth_for_slots, setup_world_deep,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_area_brute_force, setup_world,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_lists_churn, setup_world,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_snapshot_answers_as_taken,
					setup_world_deep, teardown_world),
	cmocka_unit_test_setup_teardown(test_free_reinit, setup_world,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_deferred_region, setup_world_deep,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_move_world_only, setup_world,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_move_stops_at_box, setup_world,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_move_nearest_wins, setup_world,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_move_allsolid_world, setup_world,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_move_missile, setup_world,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_move_bsp_object, setup_world,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_move_points_pass_points,
					setup_world, teardown_world),
	cmocka_unit_test_setup_teardown(test_move_brute_force,
					setup_world_deep, teardown_world),
	cmocka_unit_test_setup_teardown(test_brush_list_overflow,
					setup_world_deep, teardown_world),
	cmocka_unit_test_setup_teardown(test_snapshot_brush_moves,
					setup_world, teardown_world),
	cmocka_unit_test_setup_teardown(test_loose_edges, setup_world_deep,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_move_grazing, setup_world_deep,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_test_box, setup_world,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_move_lagged, setup_world,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_changes_log, setup_world,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_changes_full_and_big, setup_world,
					teardown_world),
	cmocka_unit_test_setup_teardown(test_changes_brute_force,
					setup_world_deep, teardown_world),
	cmocka_unit_test(test_segment_meets),
};

QWD_TEST_GROUP(area, area_tests, NULL, NULL)
