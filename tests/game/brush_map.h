/*
 * tests/game/brush_map.h -- small BSP maps built in memory from convex
 * brushes, for the player movement tests.
 *
 * Design note: a brush is a list of planes n.p < d (strictly inside all of
 * them is inside the brush).  Each model's hull is a chain of clipnodes,
 * one per brush plane: the back side leads to the brush's next plane (and
 * after the last one to the brush's contents), the front side to the next
 * brush (and after the last brush to CONTENTS_EMPTY).  Any such decision
 * tree is a valid BSP tree, so the hull traces run on it unchanged.  Hulls
 * 1 and 2 move each plane out by the clip box (d' = d - min over the box of
 * n.q), as a map compiler does; liquid brushes exist in hull 0 only, since
 * the clipping hulls know only solid and empty.  Like a compiler's output,
 * a slanted brush should list the axial planes of its bounds as well
 * ("bevels"), or the grown hulls overshoot at its edges.
 *   The render tree is one node over one empty leaf: enough for linking
 * objects; nothing here needs visibility.
 */
#ifndef QWD_TESTS_BRUSH_MAP_H
#define QWD_TESTS_BRUSH_MAP_H

#include <assert.h>
#include <string.h>

#include "qwd/world.h"

enum {
	BM_MAX_BRUSH_PLANES = 8,
	BM_MAX_BRUSHES = 64,
	BM_MAX_MODELS = 4,
	BM_MAX_NODES = BM_MAX_BRUSHES * BM_MAX_BRUSH_PLANES + BM_MAX_MODELS,
	BM_HULLS = 3
};

struct bm_plane {
	vec3_t normal;
	float dist;
};

struct bm_brush {
	int model;
	int contents;
	int num_planes;
	struct bm_plane planes[BM_MAX_BRUSH_PLANES];
	vec3_t mins, maxs;
};

struct brush_map {
	struct bsp_map map;
	struct bsp_model models[BM_MAX_MODELS];
	int num_models;
	struct bm_brush brushes[BM_MAX_BRUSHES];
	int num_brushes;
	struct bsp_plane planes[BM_HULLS][BM_MAX_NODES];
	struct bsp_clipnode clip[BM_HULLS][BM_MAX_NODES];
	int num_clip[BM_HULLS];
	struct bsp_node nodes[1];
	struct bsp_leaf leafs[2];
};

static const vec3_t bm_clip_mins[BM_HULLS] = {
	{0, 0, 0}, {-16, -16, -24}, {-32, -32, -24}};
static const vec3_t bm_clip_maxs[BM_HULLS] = {
	{0, 0, 0}, {16, 16, 32}, {32, 32, 64}};

static inline void bm_init(struct brush_map *b)
{
	memset(b, 0, sizeof(*b));
	b->num_models = 1;	/* the world; bm_new_model adds the others */
}

static inline int bm_new_model(struct brush_map *b)
{
	assert(b->num_models < BM_MAX_MODELS);
	return b->num_models++;
}

/* a convex brush of model m; mins/maxs are its bounds */
static inline struct bm_brush *bm_brush(struct brush_map *b, int model,
					int contents, const vec3_t mins,
					const vec3_t maxs)
{
	struct bm_brush *br;

	assert(b->num_brushes < BM_MAX_BRUSHES);
	br = &b->brushes[b->num_brushes++];
	memset(br, 0, sizeof(*br));
	br->model = model;
	br->contents = contents;
	vec_copy(mins, br->mins);
	vec_copy(maxs, br->maxs);
	return br;
}

static inline void bm_plane(struct bm_brush *br, float nx, float ny,
			    float nz, float dist)
{
	struct bm_plane *p;

	assert(br->num_planes < BM_MAX_BRUSH_PLANES);
	p = &br->planes[br->num_planes++];
	vec_set(p->normal, nx, ny, nz);
	p->dist = dist;
}

/* an axial box brush */
static inline struct bm_brush *bm_box(struct brush_map *b, int model,
				      int contents, float x0, float y0,
				      float z0, float x1, float y1, float z1)
{
	struct bm_brush *br = bm_brush(b, model, contents,
				       (const float[3]){x0, y0, z0},
				       (const float[3]){x1, y1, z1});

	bm_plane(br, 1, 0, 0, x1);
	bm_plane(br, -1, 0, 0, -x0);
	bm_plane(br, 0, 1, 0, y1);
	bm_plane(br, 0, -1, 0, -y0);
	bm_plane(br, 0, 0, 1, z1);
	bm_plane(br, 0, 0, -1, -z0);
	return br;
}

/* a closed room: six solid slabs 16 thick around [x0,x1]x[y0,y1]x[z0,z1] */
static inline void bm_room(struct brush_map *b, float x0, float y0, float z0,
			   float x1, float y1, float z1)
{
	const float t = 16;

	bm_box(b, 0, CONTENTS_SOLID, x0 - t, y0 - t, z0 - t, x1 + t, y1 + t,
	       z0);
	bm_box(b, 0, CONTENTS_SOLID, x0 - t, y0 - t, z1, x1 + t, y1 + t,
	       z1 + t);
	bm_box(b, 0, CONTENTS_SOLID, x0 - t, y0 - t, z0, x0, y1 + t, z1);
	bm_box(b, 0, CONTENTS_SOLID, x1, y0 - t, z0, x1 + t, y1 + t, z1);
	bm_box(b, 0, CONTENTS_SOLID, x0, y0 - t, z0, x1, y0, z1);
	bm_box(b, 0, CONTENTS_SOLID, x0, y1, z0, x1, y1 + t, z1);
}

/* plane n.p = d as a stored plane: an axial normal pointing down an axis
 * becomes the positive axis (type 0-2, as the loader's fast path expects)
 * and reports that the sides swap */
static inline bool bm_store_plane(struct bsp_plane *out, const vec3_t n,
				  float d)
{
	memset(out, 0, sizeof(*out));
	for (int a = 0; a < 3; a++) {
		if (n[(a + 1) % 3] == 0 && n[(a + 2) % 3] == 0 && n[a] != 0) {
			bool flip = n[a] < 0;

			out->normal[a] = 1;
			out->dist = flip ? -d : d;
			out->type = (uint8_t)a;
			return flip;
		}
	}
	vec_copy(n, out->normal);
	out->dist = d;
	out->type = 3;
	return false;
}

/* the exits of nodes [from, to) (their CONTENTS_EMPTY children) lead to
 * node next instead */
static inline void bm_link_exits(struct bsp_clipnode *c, int from, int to,
				 int next)
{
	for (int n = from; n < to; n++)
		for (int s = 0; s < 2; s++)
			if (c[n].children[s] == CONTENTS_EMPTY)
				c[n].children[s] = next;
}

static inline void bm_build_hull(struct brush_map *b, int h)
{
	b->num_clip[h] = 0;
	for (int m = 0; m < b->num_models; m++) {
		struct bsp_hull *hull = &b->models[m].hulls[h];
		int first = b->num_clip[h];
		int prev_start = -1, prev_end = -1;

		for (int i = 0; i < b->num_brushes; i++) {
			const struct bm_brush *br = &b->brushes[i];
			int start = b->num_clip[h];

			if (br->model != m)
				continue;
			if (h > 0 && br->contents != CONTENTS_SOLID)
				continue;
			assert(br->contents != CONTENTS_EMPTY);
			for (int k = 0; k < br->num_planes; k++) {
				const struct bm_plane *p = &br->planes[k];
				int n = b->num_clip[h]++;
				struct bsp_clipnode *c = &b->clip[h][n];
				float d = p->dist;
				int out;

				assert(n < BM_MAX_NODES);
				for (int a = 0; a < 3; a++) {
					float na = p->normal[a];
					float lo = bm_clip_mins[h][a];
					float hi = bm_clip_maxs[h][a];

					d -= na * (na >= 0 ? lo : hi);
				}
				/* front (>= 0) is outside, unless stored
				 * flipped */
				out = bm_store_plane(&b->planes[h][n],
						     p->normal, d) ? 1 : 0;
				c->planenum = n;
				c->children[out] = CONTENTS_EMPTY;
				c->children[out ^ 1] =
					k + 1 < br->num_planes ? n + 1 :
								 br->contents;
			}
			if (prev_start >= 0)
				bm_link_exits(b->clip[h], prev_start, prev_end,
					      start);
			prev_start = start;
			prev_end = b->num_clip[h];
		}
		if (b->num_clip[h] == first) {
			/* no brush in this hull: one node, empty both sides */
			int n = b->num_clip[h]++;

			b->planes[h][n].normal[2] = 1;
			b->planes[h][n].type = 2;
			b->clip[h][n].planenum = n;
			b->clip[h][n].children[0] = CONTENTS_EMPTY;
			b->clip[h][n].children[1] = CONTENTS_EMPTY;
		}
		hull->clipnodes = b->clip[h];
		hull->planes = b->planes[h];
		hull->firstclipnode = first;
		vec_copy(bm_clip_mins[h], hull->clip_mins);
		vec_copy(bm_clip_maxs[h], hull->clip_maxs);
		b->models[m].headnode[h] = first;
	}
	for (int m = 0; m < b->num_models; m++)
		b->models[m].hulls[h].lastclipnode = b->num_clip[h] - 1;
}

/* finish the map: hulls, bounds, the render stub */
static inline struct bsp_map *bm_finish(struct brush_map *b)
{
	for (int m = 0; m < b->num_models; m++) {
		bool any = false;

		for (int i = 0; i < b->num_brushes; i++) {
			const struct bm_brush *br = &b->brushes[i];

			if (br->model != m)
				continue;
			for (int a = 0; a < 3; a++) {
				if (!any || br->mins[a] < b->models[m].mins[a])
					b->models[m].mins[a] = br->mins[a];
				if (!any || br->maxs[a] > b->models[m].maxs[a])
					b->models[m].maxs[a] = br->maxs[a];
			}
			any = true;
		}
	}
	for (int h = 0; h < BM_HULLS; h++)
		bm_build_hull(b, h);

	b->nodes[0].planenum = 0;
	b->nodes[0].children[0] = -2;	/* leaf 1 */
	b->nodes[0].children[1] = -2;
	vec_copy(b->models[0].mins, b->nodes[0].mins);
	vec_copy(b->models[0].maxs, b->nodes[0].maxs);
	b->leafs[0].contents = CONTENTS_SOLID;
	b->leafs[0].visofs = -1;
	b->leafs[1].contents = CONTENTS_EMPTY;
	b->leafs[1].visofs = -1;
	vec_copy(b->models[0].mins, b->leafs[1].mins);
	vec_copy(b->models[0].maxs, b->leafs[1].maxs);
	b->models[0].visleafs = 1;

	strcpy(b->map.name, "brushes");
	b->map.planes = b->planes[0];
	b->map.num_planes = b->num_clip[0];
	b->map.nodes = b->nodes;
	b->map.num_nodes = 1;
	b->map.leafs = b->leafs;
	b->map.num_leafs = 2;
	b->map.clipnodes = b->clip[1];
	b->map.num_clipnodes = b->num_clip[1];
	b->map.hull0 = b->clip[0];
	b->map.models = b->models;
	b->map.num_models = b->num_models;
	b->map.num_visleafs = 1;
	b->map.vis_row_bytes = 4;
	return &b->map;
}

#endif
