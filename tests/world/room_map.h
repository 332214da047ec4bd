/*
 * tests/world/room_map.h -- a tiny BSP map built in memory for the trace
 * and area tests, so they need no loader and no file.
 *
 * Design note: model 0 is a closed room (empty inside ROOM_MINS..ROOM_MAXS,
 * solid outside); model 1 a solid block (BLOCK_MINS..BLOCK_MAXS in its own
 * space, empty outside).  Each is a chain of six axial clipnodes per hull;
 * hulls 1 and 2 are the same boxes grown by QuakeWorld's clip boxes, which
 * is exactly what a map compiler produces for box-shaped brushes.  The
 * render nodes mirror hull 0 with leaf 0 solid and leaf 1 empty, so code
 * that walks nodes (bsp_box_leafs) sees the room as one empty leaf.
 * The room is longer in x than in y, so the areanode root splits x.
 */
#ifndef QWD_TESTS_ROOM_MAP_H
#define QWD_TESTS_ROOM_MAP_H

#include <string.h>

#include "qwd/world.h"

#define ROOM_MINS_INIT {-512, -256, 0}
#define ROOM_MAXS_INIT {512, 256, 256}
#define BLOCK_MINS_INIT {-8, -64, 0}
#define BLOCK_MAXS_INIT {8, 64, 128}

enum {
	ROOM_NODES = 6,		/* clipnodes per hull per model */
	ROOM_HULLS = 3,
	ROOM_MODELS = 2
};

struct room_map {
	struct bsp_map map;
	struct bsp_model models[ROOM_MODELS];
	/* planes: [model][hull][6] */
	struct bsp_plane planes[ROOM_MODELS * ROOM_HULLS * ROOM_NODES];
	/* hulls 1 and 2 of both models: [model][hull-1][6] */
	struct bsp_clipnode clipnodes[ROOM_MODELS * 2 * ROOM_NODES];
	/* hull 0 of both models, and the render nodes that mirror it */
	struct bsp_clipnode hull0[ROOM_MODELS * ROOM_NODES];
	struct bsp_node nodes[ROOM_MODELS * ROOM_NODES];
	struct bsp_leaf leafs[2];
};

/* Six clipnodes bounding [lo, hi]: inside gets `in`, outside `out`.  Even
 * nodes test a max face, odd ones a min face, all with +axis normals. */
static inline void room_box_chain(struct bsp_clipnode *cn, int first,
				  struct bsp_plane *pl, int firstplane,
				  const vec3_t lo, const vec3_t hi, int in,
				  int out)
{
	for (int i = 0; i < ROOM_NODES; i++) {
		int axis = i >> 1, maxface = !(i & 1);
		struct bsp_plane *p = &pl[firstplane + i];
		struct bsp_clipnode *c = &cn[first + i];
		int next = i + 1 < ROOM_NODES ? first + i + 1 : in;

		memset(p, 0, sizeof(*p));
		p->normal[axis] = 1;
		p->type = (uint8_t)axis;
		p->dist = maxface ? hi[axis] : lo[axis];
		c->planenum = firstplane + i;
		/* front (>= dist) of a max face is outside, of a min face inside */
		c->children[0] = maxface ? out : next;
		c->children[1] = maxface ? next : out;
	}
}

static inline void room_map_build(struct room_map *r)
{
	static const vec3_t clip_mins[ROOM_HULLS] = {
		{0, 0, 0}, {-16, -16, -24}, {-32, -32, -24}};
	static const vec3_t clip_maxs[ROOM_HULLS] = {
		{0, 0, 0}, {16, 16, 32}, {32, 32, 64}};
	const vec3_t box_lo[ROOM_MODELS] = {ROOM_MINS_INIT, BLOCK_MINS_INIT};
	const vec3_t box_hi[ROOM_MODELS] = {ROOM_MAXS_INIT, BLOCK_MAXS_INIT};

	memset(r, 0, sizeof(*r));
	for (int m = 0; m < ROOM_MODELS; m++) {
		struct bsp_model *mod = &r->models[m];
		/* the room is empty inside; the block is solid inside */
		int in = m == 0 ? CONTENTS_EMPTY : CONTENTS_SOLID;
		int out = m == 0 ? CONTENTS_SOLID : CONTENTS_EMPTY;

		vec_copy(box_lo[m], mod->mins);
		vec_copy(box_hi[m], mod->maxs);
		for (int h = 0; h < ROOM_HULLS; h++) {
			struct bsp_hull *hull = &mod->hulls[h];
			int firstplane = (m * ROOM_HULLS + h) * ROOM_NODES;
			vec3_t lo, hi;

			/* a reference point is clear of the brush when the
			 * clip box around it is */
			vec_sub(box_lo[m], m == 0 ? clip_mins[h] : clip_maxs[h], lo);
			vec_sub(box_hi[m], m == 0 ? clip_maxs[h] : clip_mins[h], hi);
			hull->planes = r->planes;
			vec_copy(clip_mins[h], hull->clip_mins);
			vec_copy(clip_maxs[h], hull->clip_maxs);
			if (h == 0) {
				hull->clipnodes = r->hull0;
				hull->firstclipnode = m * ROOM_NODES;
				hull->lastclipnode = ROOM_MODELS * ROOM_NODES - 1;
				room_box_chain(r->hull0, m * ROOM_NODES, r->planes,
					       firstplane, lo, hi, in, out);
			} else {
				int first = (m * 2 + h - 1) * ROOM_NODES;

				hull->clipnodes = r->clipnodes;
				hull->firstclipnode = first;
				hull->lastclipnode = ROOM_MODELS * 2 * ROOM_NODES - 1;
				room_box_chain(r->clipnodes, first, r->planes,
					       firstplane, lo, hi, in, out);
			}
			mod->headnode[h] = hull->firstclipnode;
		}
		mod->visleafs = m == 0 ? 1 : 0;
	}

	/* render nodes: hull 0 with contents turned into leaf children */
	for (int i = 0; i < ROOM_MODELS * ROOM_NODES; i++) {
		r->nodes[i].planenum = r->hull0[i].planenum;
		for (int s = 0; s < 2; s++) {
			int c = r->hull0[i].children[s];

			if (c == CONTENTS_SOLID)
				c = -1;		/* leaf 0 */
			else if (c == CONTENTS_EMPTY)
				c = -2;		/* leaf 1 */
			r->nodes[i].children[s] = c;
		}
		vec_copy(r->models[0].mins, r->nodes[i].mins);
		vec_copy(r->models[0].maxs, r->nodes[i].maxs);
	}
	r->leafs[0].contents = CONTENTS_SOLID;
	r->leafs[0].visofs = -1;
	r->leafs[1].contents = CONTENTS_EMPTY;
	r->leafs[1].visofs = -1;
	vec_copy(r->models[0].mins, r->leafs[1].mins);
	vec_copy(r->models[0].maxs, r->leafs[1].maxs);

	strcpy(r->map.name, "room");
	r->map.planes = r->planes;
	r->map.num_planes = ROOM_MODELS * ROOM_HULLS * ROOM_NODES;
	r->map.nodes = r->nodes;
	r->map.num_nodes = ROOM_MODELS * ROOM_NODES;
	r->map.leafs = r->leafs;
	r->map.num_leafs = 2;
	r->map.clipnodes = r->clipnodes;
	r->map.num_clipnodes = ROOM_MODELS * 2 * ROOM_NODES;
	r->map.hull0 = r->hull0;
	r->map.models = r->models;
	r->map.num_models = ROOM_MODELS;
	r->map.num_visleafs = 1;
	r->map.vis_row_bytes = 4;
}

#endif
