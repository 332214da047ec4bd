/*
 * qwmap.h -- the map compiler's shared types: the parsed .map, the box BSP
 * trees, faces, and the stages that turn one into a BSP29 file.
 *
 * Design note
 *   qwmap only accepts axis-aligned box brushes.  That one restriction makes
 *   every region the compiler handles a box: a brush is a box, every BSP
 *   split is an axial plane, so every node's region and every leaf is a box,
 *   every portal between two leafs is an axis-aligned rectangle and every
 *   face is a rectangle.  No general polygon clipping is needed anywhere but
 *   in the visibility flow, whose separating planes are oblique.
 *
 *   Coordinates are doubles holding values that are exactly representable
 *   as floats (the parser rounds them), so the file's floats and the
 *   compiler's doubles describe the same geometry, and all comparisons
 *   between box coordinates are exact: no epsilon is needed outside vis.
 *
 *   Stages (compile.c calls them in this order):
 *     parse.c    .map text -> entities, key/value pairs, box brushes with
 *                their six sides' texture names and texture axes
 *     tree.c     boxes -> BSP tree of box leafs; portals between leafs;
 *                outside filling; merging of equal sibling leafs
 *     faces.c    visible parts of brush sides -> rectangles on tree nodes,
 *                cut for texture extents, T-junctions mended
 *     vis.c      portals -> PVS by recursive portal flow; Quake's RLE
 *     write.c    everything -> the BSP29 lumps, generated textures
 *   All state is passed explicitly; nothing is global.  Every ordering is
 *   by index or by value, never by pointer, so output is deterministic.
 *
 *   Memory: the compiler is a batch tool; out of memory ends the process
 *   with a message (qm_grow), everything else is an error returned with
 *   "file:line: what" in the context's message buffer.
 */
#ifndef QWMAP_QWMAP_H
#define QWMAP_QWMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "qwd/world.h"

enum {
	QM_TEXNAME = 16,		/* miptex name bytes, NUL included */
	QM_MAX_COORD = 16384,		/* |coordinate| accepted in a .map */
	QM_MAX_BRUSHES = 1 << 18,
	QM_MAX_ENTITIES = 65536,
	QM_MAX_MODELS = 256,		/* clients' MAX_MODELS: world + 255 */
	QM_MAX_DEPTH = 900,		/* deepest tree written (loader: 1024) */
	QM_MARGIN = 8			/* space around a model's brushes */
};

/* ---- context and helpers ---------------------------------------------- */

struct qm_ctx {
	const char *name;	/* the .map file name, for messages */
	char *err;		/* receives "name:line: what" on failure */
	size_t errlen;
	FILE *log;		/* warnings and progress; NULL: quiet */
	int warnings;
};

__attribute__((format(printf, 3, 4)))
int qm_fail(struct qm_ctx *ctx, int line, const char *fmt, ...);
__attribute__((format(printf, 3, 4)))
void qm_warn(struct qm_ctx *ctx, int line, const char *fmt, ...);

/* Make room for need elements of size elem in *arr (capacity *cap);
 * doubles the capacity.  Ends the process on out of memory. */
void qm_grow(void *arr, int *cap, int need, size_t elem);
/* FNV-1a of n bytes: the hash of qwmap's tables (vis rows, lump keys) */
uint32_t qm_hash(const void *p, size_t n);
void *qm_calloc(size_t n, size_t size);

#define QM_PUSH(arr, num, cap) \
	(qm_grow(&(arr), &(cap), (num) + 1, sizeof(*(arr))), &(arr)[(num)++])

/* contents strength: which contents wins where brushes overlap
 * (solid > sky > lava > slime > water > empty) */
int qm_contents_rank(int contents);

/* ---- the parsed map (parse.c) ----------------------------------------- */

struct qm_side {
	int tex;		/* index in qm_map.texnames */
	int line;
	double vecs[2][4];	/* texture s/t axes and offsets */
};

/* A box brush.  sides[axis * 2 + k]: k = 0 the face at mins[axis] (its
 * outward normal is -axis), k = 1 the face at maxs[axis] (+axis). */
struct qm_brush {
	double mins[3], maxs[3];
	int contents;		/* CONTENTS_*, or CONTENTS_CLIP for clip */
	int entity;
	int number;		/* brush number inside its entity, from 0 */
	int line;		/* line of its opening brace */
	struct qm_side sides[6];
};

struct qm_pair {
	char *key, *value;
};

struct qm_entity {
	int first_pair, num_pairs;
	int first_brush, num_brushes;
	int line;		/* line of its opening brace */
	int model;		/* compile: -1 none, 0 world, n submodel n */
	bool drop;		/* compile: not written (func_group ...) */
};

struct qm_map {
	struct qm_entity *ents;
	int num_ents, cap_ents;
	struct qm_pair *pairs;
	int num_pairs, cap_pairs;
	struct qm_brush *brushes;
	int num_brushes, cap_brushes;
	char (*texnames)[QM_TEXNAME];
	int num_tex, cap_tex;
};

/* Parse a .map text of len bytes.  Returns 0, or -1 with the message. */
int qm_parse(struct qm_ctx *ctx, const char *text, size_t len,
	     struct qm_map *map);
void qm_map_free(struct qm_map *map);
/* value of key in entity e, or NULL */
const char *qm_value(const struct qm_map *map, int e, const char *key);
/* contents a texture name gives a world brush (CONTENTS_CLIP for clip,
 * CONTENTS_ORIGIN for origin/hint brushes, which are dropped) */
int qm_texture_contents(const char *name);

/* ---- box BSP trees (tree.c) ------------------------------------------- */

struct qm_box {
	double mins[3], maxs[3];
	int contents;
	int brush;		/* index in qm_map.brushes, -1 for none */
};

/* child codes: >= 0 node index, < 0 leaf -1 - code.  children[0] is the
 * front, the region where coordinate >= dist (Quake's convention for a
 * plane whose normal is the positive axis). */
struct qm_node {
	int axis;
	double dist;
	int child[2];
	double mins[3], maxs[3];	/* the node's region */
};

struct qm_leaf {
	int contents;
	int brush;		/* a brush containing the leaf with its
				 * contents (-1: empty or filled) */
	double mins[3], maxs[3];
	int merged;		/* the leaf it was merged into, or itself */
	bool outside;		/* reached from the void by the fill */
};

struct qm_tree {
	struct qm_node *nodes;
	int num_nodes, cap_nodes;
	struct qm_leaf *leafs;
	int num_leafs, cap_leafs;
	int root;		/* child code */
	double mins[3], maxs[3];	/* the root's region */
	int depth;
};

/* A portal: the rectangle where leaf[0] (below, coordinate < dist) meets
 * leaf[1] (above) on the plane axis = dist.  lo/hi bound the rectangle on
 * the two other axes, in increasing axis order. */
struct qm_portal {
	int leaf[2];
	int axis;
	double dist;
	double lo[2], hi[2];
};

typedef bool (*qm_open_fn)(int contents);

int qm_tree_build(struct qm_ctx *ctx, struct qm_tree *t,
		  const struct qm_box *boxes, int num_boxes,
		  const double mins[3], const double maxs[3]);
void qm_tree_free(struct qm_tree *t);
/* leaf holding p (front when on a plane, as the hull traces go) */
int qm_tree_point_leaf(const struct qm_tree *t, const double p[3]);
/* Leafs across face (axis, high ? maxs : mins) of leaf, appended to *out
 * (growable).  Returns how many, or -1 when that face is the edge of the
 * tree's region (the void lies beyond). */
int qm_tree_neighbors(const struct qm_tree *t, int leaf, int axis, int high,
		      int **out, int *cap);
/* Portals between reachable leafs that are both open. */
int qm_tree_portals(const struct qm_tree *t, qm_open_fn open,
		    struct qm_portal **out);
/* Reachable leafs that are not solid, in depth-first order (front first):
 * the order of the file's leafs.  Returns the count. */
int qm_tree_leaf_order(const struct qm_tree *t, int **out);
/* lowest node whose plane separates two leafs */
int qm_tree_separating_node(const struct qm_tree *t, int a, int b);

struct qm_fill_result {
	int filled;		/* leafs made solid */
	int leak_leaf;		/* an occupied leaf reached, or -1 */
	int *path;		/* portals from leak_leaf out to the void */
	int path_len;
};
/* Outside filling: every open leaf connected to the edge of the region
 * through portals becomes solid.  When occupied[leaf] is set for a leaf
 * reached, nothing is filled and the leak is described instead. */
int qm_tree_fill(struct qm_tree *t, qm_open_fn open,
		 const struct qm_portal *portals, int num_portals,
		 const bool *occupied, struct qm_fill_result *res);
/* Merge sibling leafs of equal contents (solid or empty only). */
void qm_tree_merge(struct qm_tree *t);
/* final leaf of a leaf after merging */
int qm_tree_final_leaf(const struct qm_tree *t, int leaf);

bool qm_open_hull0(int contents);	/* empty and liquids */
bool qm_open_empty(int contents);	/* empty only (clip hulls) */

/* ---- faces (faces.c) -------------------------------------------------- */

struct qm_face {
	int model;
	int node;		/* node of the model's hull-0 tree */
	int leaf;		/* leaf (pre-merge index) it is seen from */
	int axis;
	double dist;
	int back;		/* 1: seen from below, normal is -axis */
	int tex;		/* texture name index */
	int texflags;		/* TEX_SPECIAL for sky and liquids */
	float vecs[2][4];
	int first_vert, num_verts;	/* in qm_faces.verts */
};

struct qm_faces {
	struct qm_face *faces;
	int num_faces, cap_faces;
	double (*verts)[3];
	int num_verts, cap_verts;
};

/* Build the faces of a model's hull-0 tree (before merging). */
int qm_faces_build(struct qm_ctx *ctx, const struct qm_map *map,
		   const struct qm_tree *t, int model, struct qm_faces *out);
void qm_faces_free(struct qm_faces *f);

enum { QM_TEX_SPECIAL = 1 };

/* ---- visibility (vis.c) ----------------------------------------------- */

struct qm_vis {
	uint8_t *data;		/* compressed rows */
	size_t size;
	int32_t *ofs;		/* per vis leaf (0 .. num_leafs-1) */
	int num_leafs;
	int num_portals;	/* directed portals flowed */
	long long visible;	/* sum of the rows' bit counts */
};

/* PVS of the leafs leaf_order[0..n-1] (file leafs 1..n) of tree t. */
int qm_vis_build(struct qm_ctx *ctx, const struct qm_tree *t,
		 const int *leaf_order, int n, struct qm_vis *out);
void qm_vis_free(struct qm_vis *v);
/* Quake's run-length code of one row; returns the bytes written to out
 * (which needs room for 2 * bytes + 2). */
size_t qm_vis_compress(const uint8_t *row, size_t bytes, uint8_t *out);

/* ---- the compile and the file (compile.c, write.c) -------------------- */

struct qm_model {
	int entity;
	double mins[3], maxs[3];	/* bounds of its brushes */
	struct qm_tree hull[3];
};

struct qm_stats {
	int brushes, entities, models;
	int planes, nodes, leafs, clipnodes, faces, vertexes, edges;
	int texinfo, miptex, marksurfaces, portals;
	size_t visdata, entdata, file_size;
	double avg_visible;	/* mean leafs in a PVS row */
	bool leaked;
};

struct qm_options {
	bool allow_leak;	/* write a leaking map unfilled, without vis */
};

struct qm_output {
	uint8_t *data;		/* the BSP file */
	size_t size;
	char *pointfile;	/* leak path "x y z" lines, or NULL */
	struct qm_stats stats;
};

/* Compile .map text to a BSP29 file.  Returns 0, or -1 with the message. */
int qm_compile(struct qm_ctx *ctx, const char *text, size_t len,
	       const struct qm_options *opt, struct qm_output *out);
void qm_output_free(struct qm_output *out);

struct qm_write_in {
	const struct qm_map *map;
	struct qm_model *models;
	int num_models;
	const struct qm_faces *faces;
	const struct qm_vis *vis;	/* NULL: no vis data */
	const int *world_leaf_order;	/* world's reachable leafs */
	int world_num_leafs;
};

int qm_write_bsp(struct qm_ctx *ctx, const struct qm_write_in *in,
		 struct qm_output *out);

#endif
