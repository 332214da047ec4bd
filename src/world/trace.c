/*
 * src/world/trace.c -- point contents and swept-point traces through the
 * clipping hulls of a BSP map.
 *
 * Design note
 *   A hull is a BSP tree of planes whose leaves are CONTENTS_* values.  The
 *   loader builds three per model: hull 0 over the render nodes (a point),
 *   hulls 1 and 2 over the compiler's clipnodes, where every brush was grown
 *   by the player box or the large box.  Tracing a box through the world
 *   therefore becomes tracing its reference point through the grown hull.
 *
 *   Stock QuakeWorld clients predict their own movement with this very
 *   algorithm (PM_RecursiveHullCheck in id's pmovetst.c, identical to the
 *   server's SV_RecursiveHullCheck), so it is kept to the last epsilon:
 *   - a segment lying on one side of a plane (t >= 0 counts as front) goes
 *     down that side whole;
 *   - a crossing segment is split at a point DIST_EPSILON (1/32 unit) on
 *     the near side of the plane; the near half is traced first, then the
 *     far half if the far child is not solid at the split point;
 *   - when the far side is solid the split point is the impact, unless it
 *     lies in solid itself (a split inside the far subtree can fall back
 *     across an ancestor's plane, into solid the near half never reached,
 *     or float error puts it there); then the fraction of that piece backs
 *     off in steps of 0.1 until the point is clear, and if it would pass 0
 *     the point is left where it was;
 *   - the arithmetic mixes float and double exactly as id's C did (the
 *     epsilon and the 0.1 step are double literals), so results round the
 *     same way.
 *   QuakeWorld aborts the server on a node index outside
 *   firstclipnode..lastclipnode; here an index outside the clipnode array
 *   reads as solid, and one below firstclipnode is followed.  The loader
 *   already refuses bad indices and any graph deeper than BSP_MAX_DEPTH,
 *   which is what bounds the recursion.
 *
 *   Nothing here allocates or keeps state: every result goes to the caller's
 *   struct trace.
 */
#include "qwd/world.h"

#include <string.h>

/* 1/32 unit: the impact point is kept this far in front of the plane */
#define TRACE_DIST_EPSILON 0.03125
/* step by which the fraction backs away when the impact point is solid */
#define TRACE_BACKOFF_STEP 0.1

/* inside the hull's clipnode array; a child below firstclipnode is allowed
 * (compilers that share subtrees between models produce them) */
static bool hull_node_valid(const struct bsp_hull *hull, int num)
{
	return num >= 0 && num <= hull->lastclipnode;
}

/* signed distance of p from plane; axial planes skip the dot product, as
 * id's code does, so the rounding matches */
static float plane_dist(const struct bsp_plane *plane, const vec3_t p)
{
	if (plane->type < 3)
		return p[plane->type] - plane->dist;
	return vec_dot(plane->normal, p) - plane->dist;
}

int bsp_hull_point_contents(const struct bsp_hull *hull, int num,
			    const vec3_t p)
{
	while (num >= 0) {
		const struct bsp_clipnode *node;

		if (!hull_node_valid(hull, num))
			return CONTENTS_SOLID;
		node = &hull->clipnodes[num];
		num = node->children[plane_dist(&hull->planes[node->planenum],
						p) < 0];
	}
	return num;
}

int bsp_point_contents(const struct bsp_map *map, const vec3_t p)
{
	const struct bsp_hull *hull;

	if (map->num_models < 1)
		return CONTENTS_EMPTY;
	hull = &map->models[0].hulls[0];
	return bsp_hull_point_contents(hull, hull->firstclipnode, p);
}

int bsp_point_liquid(const struct bsp_map *map, const vec3_t p)
{
	const struct bsp_hull *hull;
	int num;

	if (map->num_models < 1)
		return CONTENTS_EMPTY;
	hull = &map->models[0].hulls[0];
	num = hull->firstclipnode;
	while (num >= 0) {
		const struct bsp_clipnode *node;

		if (!hull_node_valid(hull, num) ||
		    (map->hull0_liquid && !map->hull0_liquid[num]))
			return CONTENTS_EMPTY;
		node = &hull->clipnodes[num];
		num = node->children[plane_dist(&hull->planes[node->planenum],
						p) < 0];
	}
	return num <= CONTENTS_WATER ? num : CONTENTS_EMPTY;
}

/* A leaf reached by part of the segment: any non-solid leaf means the move
 * was not all in solid; a solid one means some of it started there. */
static void trace_leaf(int contents, struct trace *tr)
{
	if (contents == CONTENTS_SOLID) {
		tr->startsolid = true;
		return;
	}
	tr->allsolid = false;
	if (contents == CONTENTS_EMPTY)
		tr->inopen = true;
	else
		tr->inwater = true;
}

static void lerp(const vec3_t a, const vec3_t b, float frac, vec3_t out);

/* one step back from a split point still in solid, along p1..p2: false
 * when the fraction would fall below 0 (the point is then left) */
static inline bool back_off(float p1f, float p2f, const vec3_t p1,
			    const vec3_t p2, float *frac, float *midf,
			    vec3_t mid)
{
	*frac = (float)(*frac - TRACE_BACKOFF_STEP);
	if (*frac < 0)
		return false;
	*midf = p1f + (p2f - p1f) * *frac;
	lerp(p1, p2, *frac, mid);
	return true;
}

/* where a segment from distance t1 to t2 of a plane is split: the split
 * point sits DIST_EPSILON on p1's side of the plane; the double-precision
 * intermediate is what id's compiled code did */
static inline float split_frac(float t1, float t2)
{
	float frac;

	if (t1 < 0)
		frac = (float)((t1 + TRACE_DIST_EPSILON) / (t1 - t2));
	else
		frac = (float)((t1 - TRACE_DIST_EPSILON) / (t1 - t2));
	if (frac < 0)
		frac = 0;
	if (frac > 1)
		frac = 1;
	return frac;
}

static void lerp(const vec3_t a, const vec3_t b, float frac, vec3_t out)
{
	for (int i = 0; i < 3; i++)
		out[i] = a[i] + frac * (b[i] - a[i]);
}

/*
 * Trace the part of the segment from p1 (fraction p1f of the whole move) to
 * p2 (fraction p2f) through the subtree at num.  Returns true when that part
 * is free to continue, false when an impact was recorded (or the move never
 * left solid), which ends the walk.
 */
static bool hull_check(const struct bsp_hull *hull, int num, float p1f,
		       float p2f, const vec3_t p1, const vec3_t p2,
		       struct trace *tr)
{
	const struct bsp_clipnode *node;
	const struct bsp_plane *plane;
	float t1, t2, frac, midf;
	vec3_t mid;
	int side;

	if (num < 0) {
		trace_leaf(num, tr);
		return true;
	}
	if (!hull_node_valid(hull, num)) {
		trace_leaf(CONTENTS_SOLID, tr);
		return true;
	}

	node = &hull->clipnodes[num];
	plane = &hull->planes[node->planenum];
	t1 = plane_dist(plane, p1);
	t2 = plane_dist(plane, p2);

	if (t1 >= 0 && t2 >= 0)
		return hull_check(hull, node->children[0], p1f, p2f, p1, p2, tr);
	if (t1 < 0 && t2 < 0)
		return hull_check(hull, node->children[1], p1f, p2f, p1, p2, tr);

	frac = split_frac(t1, t2);
	midf = p1f + (p2f - p1f) * frac;
	lerp(p1, p2, frac, mid);
	side = t1 < 0;

	if (!hull_check(hull, node->children[side], p1f, midf, p1, mid, tr))
		return false;

	if (bsp_hull_point_contents(hull, node->children[side ^ 1], mid) !=
	    CONTENTS_SOLID)
		return hull_check(hull, node->children[side ^ 1], midf, p2f,
				  mid, p2, tr);

	if (tr->allsolid)
		return false;

	/* the far side is solid: this plane is the surface hit, facing p1 */
	if (!side) {
		vec_copy(plane->normal, tr->plane.normal);
		tr->plane.dist = plane->dist;
	} else {
		/* 0 - x, not -x: zero components stay +0 as in id's code */
		vec_set(tr->plane.normal, 0 - plane->normal[0],
			0 - plane->normal[1], 0 - plane->normal[2]);
		tr->plane.dist = -plane->dist;
	}

	/* the split point may still be in solid (see the note at the top):
	 * back away along this piece until it is clear, or give up at 0 */
	while (bsp_hull_point_contents(hull, hull->firstclipnode, mid) ==
		       CONTENTS_SOLID &&
	       back_off(p1f, p2f, p1, p2, &frac, &midf, mid))
		;

	tr->fraction = midf;
	vec_copy(mid, tr->endpos);
	return false;
}

static void trace_init(const vec3_t end, struct trace *tr)
{
	memset(tr, 0, sizeof(*tr));
	tr->fraction = 1;
	tr->allsolid = true;
	vec_copy(end, tr->endpos);
	tr->ent = -1;
}

void bsp_trace_hull(const struct bsp_hull *hull, const vec3_t start,
		    const vec3_t end, struct trace *tr)
{
	trace_init(end, tr);
	hull_check(hull, hull->firstclipnode, 0, 1, start, end, tr);
}

/* The box hull's six planes and clip nodes, which never change (only the
 * planes' distances do, bsp_box_hull_set): plane i is axial on axis i / 2,
 * facing out; node i splits by plane i, its outer side empty, its inner
 * side node i + 1, the last one's solid.  Copied whole by every init (a
 * move's, a clip's): a copy, not six stores of each field after a
 * memset. */
#define BOX_NODE(i) {(i), {(i) & 1 ? (i) < 5 ? (i) + 1 : CONTENTS_SOLID : CONTENTS_EMPTY, \
			    (i) & 1 ? CONTENTS_EMPTY : (i) < 5 ? (i) + 1 : CONTENTS_SOLID}}
static const struct bsp_box_hull box_hull_template = {
	.hull = {.firstclipnode = 0, .lastclipnode = 5},
	.planes = {
		{{1, 0, 0}, 0, 0, 0, {0, 0}}, {{1, 0, 0}, 0, 0, 0, {0, 0}},
		{{0, 1, 0}, 0, 1, 0, {0, 0}}, {{0, 1, 0}, 0, 1, 0, {0, 0}},
		{{0, 0, 1}, 0, 2, 0, {0, 0}}, {{0, 0, 1}, 0, 2, 0, {0, 0}},
	},
	.clipnodes = {BOX_NODE(0), BOX_NODE(1), BOX_NODE(2), BOX_NODE(3),
		      BOX_NODE(4), BOX_NODE(5)},
};
#undef BOX_NODE

void bsp_box_hull_init(struct bsp_box_hull *b)
{
	*b = box_hull_template;
	b->hull.clipnodes = b->clipnodes;
	b->hull.planes = b->planes;
}

void bsp_box_hull_set(struct bsp_box_hull *b, const vec3_t mins,
		      const vec3_t maxs)
{
	for (int i = 0; i < 6; i++)
		b->planes[i].dist = i & 1 ? mins[i >> 1] : maxs[i >> 1];
}

/* ---- the box hull's walk, unrolled ----------------------------------------
 * bsp_trace_box_hull is hull_check on the box hull with what the template
 * fixes written in: node num's plane is axial on num / 2 (its distance is
 * p[num / 2] - dist, plane_dist's axial form), its outer side empty and
 * its inner side node num + 1, the last one's solid.  The same operations
 * in the same order: the same floats (tests/world compares them). */

static int box_child(int num, int side)
{
	int in = num < 5 ? num + 1 : CONTENTS_SOLID;

	if (num & 1)
		return side ? CONTENTS_EMPTY : in;
	return side ? in : CONTENTS_EMPTY;
}

static int box_contents(const struct bsp_box_hull *b, int num, const vec3_t p)
{
	while (num >= 0)
		num = box_child(num, p[num >> 1] - b->planes[num].dist < 0);
	return num;
}

static bool box_check(const struct bsp_box_hull *b, int num, float p1f,
		      float p2f, const vec3_t p1, const vec3_t p2,
		      struct trace *tr)
{
	float t1, t2, frac, midf, dist;
	vec3_t mid;
	int side, axis;

	if (num < 0) {
		trace_leaf(num, tr);
		return true;
	}
	axis = num >> 1;
	dist = b->planes[num].dist;
	t1 = p1[axis] - dist;
	t2 = p2[axis] - dist;

	if (t1 >= 0 && t2 >= 0)
		return box_check(b, box_child(num, 0), p1f, p2f, p1, p2, tr);
	if (t1 < 0 && t2 < 0)
		return box_check(b, box_child(num, 1), p1f, p2f, p1, p2, tr);

	frac = split_frac(t1, t2);
	midf = p1f + (p2f - p1f) * frac;
	lerp(p1, p2, frac, mid);
	side = t1 < 0;

	if (!box_check(b, box_child(num, side), p1f, midf, p1, mid, tr))
		return false;

	if (box_contents(b, box_child(num, side ^ 1), mid) != CONTENTS_SOLID)
		return box_check(b, box_child(num, side ^ 1), midf, p2f, mid,
				 p2, tr);

	if (tr->allsolid)
		return false;

	/* the plane's normal (a unit axis) or its negation, 0 - x */
	for (int k = 0; k < 3; k++) {
		float n = k == axis ? 1.0f : 0.0f;

		tr->plane.normal[k] = side ? 0 - n : n;
	}
	tr->plane.dist = side ? -dist : dist;

	while (box_contents(b, 0, mid) == CONTENTS_SOLID &&
	       back_off(p1f, p2f, p1, p2, &frac, &midf, mid))
		;

	tr->fraction = midf;
	vec_copy(mid, tr->endpos);
	return false;
}

void bsp_trace_box_hull(const struct bsp_box_hull *b, const vec3_t start,
			const vec3_t end, struct trace *tr)
{
	trace_init(end, tr);
	box_check(b, 0, 0, 1, start, end, tr);
}

const struct bsp_hull *bsp_hull_for_size(const struct bsp_model *model,
					 const vec3_t mins, const vec3_t maxs,
					 vec3_t offset)
{
	const struct bsp_hull *hull;
	float size_x = maxs[0] - mins[0];

	/* only the x extent decides, as in QuakeWorld */
	if (size_x < 3)
		hull = &model->hulls[0];
	else if (size_x <= 32)
		hull = &model->hulls[1];
	else
		hull = &model->hulls[2];

	/* the hull was grown by clip_mins..clip_maxs around its reference
	 * point; the box's own mins sit where clip_mins would */
	vec_sub(mins, hull->clip_mins, offset);
	return hull;
}

void bsp_trace_box(const struct bsp_map *map, int modelnum,
		   const vec3_t origin, const vec3_t mins, const vec3_t maxs,
		   const vec3_t start, const vec3_t end, struct trace *tr)
{
	const struct bsp_hull *hull;
	vec3_t offset, start_l, end_l;

	if (modelnum < 0 || modelnum >= map->num_models) {
		/* nothing to hit: an unobstructed move */
		trace_init(end, tr);
		tr->allsolid = false;
		return;
	}

	hull = bsp_hull_for_size(&map->models[modelnum], mins, maxs, offset);
	/* into the model's own space: offset for the hull, minus the model's
	 * placement (rotation is not supported, as in QuakeWorld) */
	vec_sub(offset, origin, offset);
	vec_add(start, offset, start_l);
	vec_add(end, offset, end_l);

	bsp_trace_hull(hull, start_l, end_l, tr);

	/* back to world space; an unblocked move ends exactly at end, as in
	 * QuakeWorld (undoing the offset could round differently) */
	if (tr->fraction == 1)
		vec_copy(end, tr->endpos);
	else
		vec_sub(tr->endpos, offset, tr->endpos);
}
