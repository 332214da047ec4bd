/*
 * write.c -- lay the compiled models out as a BSP29 file.
 *
 * Design note
 *   File layout (little-endian; the loader in src/world/bsp.c reads it):
 *   int32 version 29, then 15 lump entries (int32 offset, int32 length),
 *   then the lumps, each starting on a 4-byte boundary.  Records:
 *
 *     plane       20: f32 normal[3], f32 dist, i32 type (0..2 axial)
 *     node        24: i32 plane, u16 child[2], i16 mins[3], i16 maxs[3],
 *                     u16 firstface, u16 numfaces
 *                     (child: node index, or 65535 - leaf for a leaf)
 *     leaf        28: i32 contents, i32 visofs, i16 mins[3], i16 maxs[3],
 *                     u16 firstmarksurface, u16 num, u8 ambient[4]
 *     clipnode     8: i32 plane, i16 child[2] (clipnode, or contents)
 *     face        20: u16 plane, u16 side, i32 firstedge, u16 numedges,
 *                     u16 texinfo, u8 styles[4], i32 lightofs
 *     texinfo     40: f32 vecs[2][4], i32 miptex, i32 flags
 *     edge         4: u16 v[2] (edge 0 is unused: surfedge 0 has no sign)
 *     surfedge     4: i32 (negative: the edge walked backwards)
 *     marksurface  2: u16 face
 *     model       64: f32 mins[3], maxs[3], origin[3], i32 headnode[4],
 *                     i32 visleafs, firstface, numfaces
 *     miptex lump: i32 count, i32 offset[count], then per texture a
 *                  16-byte name, u32 width, height, u32 offset[4] of the
 *                  four mip levels from the texture's start, the pixels.
 *
 *   All planes are axial and stored with a positive normal; a face behind
 *   its plane has side 1 (Quake's convention).  Solid leafs of every
 *   model are leaf 0, the shared solid leaf; the world's other leafs are
 *   1..visleafs, then each submodel's.  Nodes and clipnodes are numbered in
 *   depth-first order, front child first; faces are grouped by model and
 *   then by node, so each node and each model owns one contiguous range.
 *   Vertices, edges, planes and texinfo are shared through exact-value
 *   hash tables; an edge already used forwards by one face is reused
 *   backwards (negative surfedge) by the next face that needs it, once.
 *   No lighting: every face has light offset -1 and no styles, which
 *   clients draw fullbright.
 *
 *   Textures are generated: one per texture name the faces use, a
 *   two-shade checker (64x64; sky 256x128 as skies are two 128x128
 *   layers) from palette rows 0..13, never the fullbright indices
 *   224..255.  Water, slime, lava and sky get blue, green, red and blue
 *   rows so they read as what they are; other names pick a row from a
 *   hash of the name, so the same name always looks the same.
 *
 *   BSP29 limits are checked before writing (a larger map is refused with
 *   the count and the limit): 32767 nodes, leafs and clipnodes (signed
 *   16-bit children), 65535 faces, vertexes, planes, texinfo,
 *   marksurfaces.
 */
#include "qwmap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- byte buffers ----------------------------------------------------- */

struct buf {
	uint8_t *p;
	int n, cap;
};

static uint8_t *buf_room(struct buf *b, int len)
{
	qm_grow(&b->p, &b->cap, b->n + len, 1);
	b->n += len;
	return b->p + b->n - len;
}

static void put_u8(struct buf *b, unsigned v)
{
	*buf_room(b, 1) = (uint8_t)v;
}

static void put_u16(struct buf *b, unsigned v)
{
	uint8_t *p = buf_room(b, 2);

	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_i32(struct buf *b, int32_t v)
{
	uint8_t *p = buf_room(b, 4);
	uint32_t u = (uint32_t)v;

	p[0] = (uint8_t)u;
	p[1] = (uint8_t)(u >> 8);
	p[2] = (uint8_t)(u >> 16);
	p[3] = (uint8_t)(u >> 24);
}

static void put_f32(struct buf *b, float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	put_i32(b, (int32_t)u);
}

static void put_i16(struct buf *b, int v)
{
	put_u16(b, (unsigned)(uint16_t)(int16_t)v);
}

static int clamp16(double v)
{
	return v < -32767 ? -32767 : v > 32767 ? 32767 : (int)v;
}

/* ---- exact-key hash tables -------------------------------------------- */

struct keyset {
	int keysize;
	uint8_t *keys;
	int *vals;
	int num, cap_keys, cap_vals;
	int *slots;		/* index into keys, -1 empty */
	int num_slots;
};

static void keyset_init(struct keyset *ks, int keysize)
{
	memset(ks, 0, sizeof(*ks));
	ks->keysize = keysize;
	ks->num_slots = 1024;
	ks->slots = qm_calloc((size_t)ks->num_slots, sizeof(int));
	for (int i = 0; i < ks->num_slots; i++)
		ks->slots[i] = -1;
}

static void keyset_free(struct keyset *ks)
{
	free(ks->keys);
	free(ks->vals);
	free(ks->slots);
}

static int *keyset_slot(const struct keyset *ks, const void *key)
{
	int mask = ks->num_slots - 1;
	int i = (int)(qm_hash(key, (size_t)ks->keysize) & (uint32_t)mask);

	for (;; i = (i + 1) & mask) {
		int s = ks->slots[i];

		if (s < 0 || memcmp(ks->keys + (size_t)s * ks->keysize, key,
				    (size_t)ks->keysize) == 0)
			return &ks->slots[i];
	}
}

/* value stored for key, or -1 */
static int keyset_get(const struct keyset *ks, const void *key)
{
	int s = *keyset_slot(ks, key);

	return s < 0 ? -1 : ks->vals[s];
}

static void keyset_put(struct keyset *ks, const void *key, int val)
{
	int *slot;

	if ((ks->num + 1) * 2 > ks->num_slots) {
		free(ks->slots);
		ks->num_slots *= 2;
		ks->slots = qm_calloc((size_t)ks->num_slots, sizeof(int));
		for (int i = 0; i < ks->num_slots; i++)
			ks->slots[i] = -1;
		for (int k = 0; k < ks->num; k++)
			*keyset_slot(ks, ks->keys + (size_t)k * ks->keysize) = k;
	}
	slot = keyset_slot(ks, key);
	if (*slot >= 0) {
		ks->vals[*slot] = val;
		return;
	}
	qm_grow(&ks->keys, &ks->cap_keys, (ks->num + 1) * ks->keysize, 1);
	qm_grow(&ks->vals, &ks->cap_vals, ks->num + 1, sizeof(int));
	memcpy(ks->keys + (size_t)ks->num * ks->keysize, key, (size_t)ks->keysize);
	ks->vals[ks->num] = val;
	*slot = ks->num++;
}

/* ---- the writer's state ----------------------------------------------- */

struct edge {
	int v[2];
	bool reversed;		/* also used backwards by a face already */
};

struct writer {
	struct qm_ctx *ctx;
	const struct qm_write_in *in;
	struct buf lump[BSP_NUM_LUMPS];
	struct keyset planes, verts, edges, texinfo;
	int num_planes, num_verts, num_texinfo;
	struct edge *edgelist;
	int num_edges, cap_edges;
	int num_nodes, num_leafs, num_clipnodes, num_faces, num_marks;
	int num_surfedges;
	int *miptex_of_tex;	/* texture name -> miptex, -1 unused */
	int *miptex_tex;	/* miptex -> texture name */
	int num_miptex;
};

static int plane_index(struct writer *w, int axis, double dist)
{
	struct {
		int32_t axis;
		float dist;
	} key;
	int idx;

	memset(&key, 0, sizeof(key));
	key.axis = axis;
	key.dist = (float)dist;
	if (key.dist == 0)
		key.dist = 0;	/* one zero, not two */
	idx = keyset_get(&w->planes, &key);
	if (idx >= 0)
		return idx;
	idx = w->num_planes++;
	keyset_put(&w->planes, &key, idx);
	struct buf *b = &w->lump[LUMP_PLANES];

	for (int k = 0; k < 3; k++)
		put_f32(b, k == axis ? 1.0f : 0.0f);
	put_f32(b, key.dist);
	put_i32(b, axis);
	return idx;
}

static int vertex_index(struct writer *w, const double p[3])
{
	float key[3];
	int idx;

	for (int k = 0; k < 3; k++) {
		key[k] = (float)p[k];
		if (key[k] == 0)
			key[k] = 0;
	}
	idx = keyset_get(&w->verts, key);
	if (idx >= 0)
		return idx;
	idx = w->num_verts++;
	keyset_put(&w->verts, key, idx);
	for (int k = 0; k < 3; k++)
		put_f32(&w->lump[LUMP_VERTEXES], key[k]);
	return idx;
}

/* surfedge for the walk a -> b */
static int32_t edge_for(struct writer *w, int a, int b)
{
	int32_t key[2] = {b, a};
	int e = keyset_get(&w->edges, key);

	if (e > 0 && !w->edgelist[e].reversed) {
		w->edgelist[e].reversed = true;
		return -e;
	}
	e = w->num_edges;
	struct edge *ed = QM_PUSH(w->edgelist, w->num_edges, w->cap_edges);

	ed->v[0] = a;
	ed->v[1] = b;
	ed->reversed = false;
	key[0] = a;
	key[1] = b;
	keyset_put(&w->edges, key, e);
	return e;
}

static int texinfo_index(struct writer *w, const struct qm_face *f)
{
	struct {
		float vecs[2][4];
		int32_t miptex, flags;
	} key;
	int idx, tex = f->tex;

	memset(&key, 0, sizeof(key));
	if (w->miptex_of_tex[tex] < 0) {
		w->miptex_of_tex[tex] = w->num_miptex;
		w->miptex_tex[w->num_miptex++] = tex;
	}
	memcpy(key.vecs, f->vecs, sizeof(key.vecs));
	key.miptex = w->miptex_of_tex[tex];
	key.flags = f->texflags;
	idx = keyset_get(&w->texinfo, &key);
	if (idx >= 0)
		return idx;
	idx = w->num_texinfo++;
	keyset_put(&w->texinfo, &key, idx);
	struct buf *b = &w->lump[LUMP_TEXINFO];

	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 4; k++)
			put_f32(b, key.vecs[i][k]);
	put_i32(b, key.miptex);
	put_i32(b, key.flags);
	return idx;
}

/* ---- one model -------------------------------------------------------- */

struct model_order {
	int *nodes;		/* hull-0 nodes in file order */
	int num_nodes, cap_nodes;
	int *node_file;		/* tree node -> file node index */
	int *leafs;		/* non-solid leafs in file order */
	int num_leafs;
	int *leaf_file;		/* tree leaf -> file leaf (0: solid) */
};

static void order_nodes(const struct qm_tree *t, int code, struct model_order *mo)
{
	while (code >= 0) {
		*QM_PUSH(mo->nodes, mo->num_nodes, mo->cap_nodes) = code;
		order_nodes(t, t->nodes[code].child[0], mo);
		code = t->nodes[code].child[1];
	}
}

static int32_t child_code(const struct model_order *mo, int code)
{
	if (code >= 0)
		return mo->node_file[code];
	return -1 - mo->leaf_file[-1 - code];
}

static int cmp_int2(const void *a, const void *b)
{
	const int *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

static void write_bounds(struct buf *b, const double mins[3], const double maxs[3])
{
	for (int k = 0; k < 3; k++)
		put_i16(b, clamp16(floor(mins[k])));
	for (int k = 0; k < 3; k++)
		put_i16(b, clamp16(ceil(maxs[k])));
}

static int32_t write_clipnodes(struct writer *w, const struct qm_tree *t, int code)
{
	int32_t idx, c0, c1;
	struct buf *b = &w->lump[LUMP_CLIPNODES];

	if (code < 0)
		return t->leafs[-1 - code].contents;
	idx = w->num_clipnodes++;
	/* reserve the record, fill it once the children are numbered */
	int ofs = b->n;

	buf_room(b, 8);
	c0 = write_clipnodes(w, t, t->nodes[code].child[0]);
	c1 = write_clipnodes(w, t, t->nodes[code].child[1]);
	struct buf rec = {NULL, 0, 0};

	put_i32(&rec, plane_index(w, t->nodes[code].axis, t->nodes[code].dist));
	put_i16(&rec, c0);
	put_i16(&rec, c1);
	memcpy(w->lump[LUMP_CLIPNODES].p + ofs, rec.p, 8);
	free(rec.p);
	return idx;
}

static int write_model(struct writer *w, int m)
{
	const struct qm_write_in *in = w->in;
	const struct qm_model *md = &in->models[m];
	const struct qm_tree *t = &md->hull[0];
	const struct qm_faces *fs = in->faces;
	struct model_order mo;
	int (*order)[2] = NULL, nf = 0, cf = 0;
	int first_face = w->num_faces, first_leaf = w->num_leafs;
	int *node_first, *node_count;
	int *leaf_first, *leaf_count, *marks;

	memset(&mo, 0, sizeof(mo));
	order_nodes(t, t->root, &mo);
	mo.node_file = qm_calloc((size_t)t->num_nodes + 1, sizeof(int));
	for (int i = 0; i < mo.num_nodes; i++)
		mo.node_file[mo.nodes[i]] = w->num_nodes + i;
	if (m == 0) {
		mo.leafs = qm_calloc((size_t)in->world_num_leafs + 1, sizeof(int));
		memcpy(mo.leafs, in->world_leaf_order, sizeof(int) * (size_t)in->world_num_leafs);
		mo.num_leafs = in->world_num_leafs;
	} else {
		mo.num_leafs = qm_tree_leaf_order(t, &mo.leafs);
	}
	mo.leaf_file = qm_calloc((size_t)t->num_leafs + 1, sizeof(int));
	for (int i = 0; i < mo.num_leafs; i++)
		mo.leaf_file[mo.leafs[i]] = w->num_leafs + i;

	/* faces of this model, grouped by node in file order */
	int *node_rank = qm_calloc((size_t)t->num_nodes + 1, sizeof(int));
	int rc = 0;

	for (int i = 0; i < t->num_nodes; i++)
		node_rank[i] = -1;
	for (int i = 0; i < mo.num_nodes; i++)
		node_rank[mo.nodes[i]] = i;
	for (int i = 0; i < fs->num_faces; i++) {
		if (fs->faces[i].model != m)
			continue;
		/* merging keeps every node that separates two contents (see
		 * tree.c); a face on a vanished node would be a compiler bug */
		if (fs->faces[i].node < 0 || node_rank[fs->faces[i].node] < 0) {
			rc = qm_fail(w->ctx, 0, "internal error: face %d of model %d lies on no node",
				     i, m);
			continue;
		}
		int *o = *QM_PUSH(order, nf, cf);

		o[0] = node_rank[fs->faces[i].node];
		o[1] = i;
	}
	if (nf > 1)	/* a model may have no faces: qsort(NULL, 0) is undefined */
		qsort(order, (size_t)nf, sizeof(*order), cmp_int2);
	node_first = qm_calloc((size_t)mo.num_nodes + 1, sizeof(int));
	node_count = qm_calloc((size_t)mo.num_nodes + 1, sizeof(int));
	for (int k = 0; k < nf; k++) {
		const struct qm_face *f = &fs->faces[order[k][1]];
		int fi = w->num_faces++;
		struct buf *b = &w->lump[LUMP_FACES];

		if (node_count[order[k][0]]++ == 0)
			node_first[order[k][0]] = fi;
		put_u16(b, (unsigned)plane_index(w, f->axis, f->dist));
		put_u16(b, (unsigned)f->back);
		put_i32(b, w->num_surfedges);
		put_u16(b, (unsigned)f->num_verts);
		put_u16(b, (unsigned)texinfo_index(w, f));
		for (int s = 0; s < 4; s++)
			put_u8(b, 255);
		put_i32(b, -1);
		for (int v = 0; v < f->num_verts; v++) {
			int a = vertex_index(w, fs->verts[f->first_vert + v]);
			int c = vertex_index(w, fs->verts[f->first_vert + (v + 1) % f->num_verts]);

			put_i32(&w->lump[LUMP_SURFEDGES], edge_for(w, a, c));
			w->num_surfedges++;
		}
	}

	/* marksurfaces: the faces each leaf sees, in face order */
	leaf_first = qm_calloc((size_t)mo.num_leafs + 1, sizeof(int));
	leaf_count = qm_calloc((size_t)mo.num_leafs + 1, sizeof(int));
	marks = qm_calloc((size_t)nf + 1, sizeof(int));
	{
		int *fill = qm_calloc((size_t)mo.num_leafs + 1, sizeof(int));

		for (int k = 0; k < nf; k++) {
			const struct qm_face *f = &fs->faces[order[k][1]];
			int lf = mo.leaf_file[qm_tree_final_leaf(t, f->leaf)] - first_leaf;

			leaf_count[lf]++;
		}
		for (int i = 0; i < mo.num_leafs; i++)
			leaf_first[i + 1] = leaf_first[i] + leaf_count[i];
		for (int k = 0; k < nf; k++) {
			const struct qm_face *f = &fs->faces[order[k][1]];
			int lf = mo.leaf_file[qm_tree_final_leaf(t, f->leaf)] - first_leaf;

			marks[leaf_first[lf] + fill[lf]++] = first_face + k;
		}
		free(fill);
	}

	/* nodes */
	for (int i = 0; i < mo.num_nodes; i++) {
		const struct qm_node *n = &t->nodes[mo.nodes[i]];
		struct buf *b = &w->lump[LUMP_NODES];

		put_i32(b, plane_index(w, n->axis, n->dist));
		put_u16(b, (unsigned)(uint16_t)child_code(&mo, n->child[0]));
		put_u16(b, (unsigned)(uint16_t)child_code(&mo, n->child[1]));
		write_bounds(b, n->mins, n->maxs);
		put_u16(b, (unsigned)(node_count[i] ? node_first[i] : 0));
		put_u16(b, (unsigned)node_count[i]);
	}

	/* leafs */
	for (int i = 0; i < mo.num_leafs; i++) {
		const struct qm_leaf *l = &t->leafs[mo.leafs[i]];
		struct buf *b = &w->lump[LUMP_LEAFS];
		int32_t visofs = -1;

		if (m == 0 && in->vis && i < in->vis->num_leafs)
			visofs = in->vis->ofs[i];
		put_i32(b, l->contents);
		put_i32(b, visofs);
		write_bounds(b, l->mins, l->maxs);
		put_u16(b, (unsigned)(w->num_marks + leaf_first[i]));
		put_u16(b, (unsigned)leaf_count[i]);
		for (int k = 0; k < 4; k++)
			put_u8(b, 0);
	}
	for (int k = 0; k < nf; k++)
		put_u16(&w->lump[LUMP_MARKSURFACES], (unsigned)marks[k]);
	w->num_marks += nf;

	/* clip hulls, then the model record */
	int32_t head[3];

	head[0] = w->num_nodes;
	w->num_nodes += mo.num_nodes;
	w->num_leafs += mo.num_leafs;
	for (int h = 1; h < 3; h++)
		head[h] = write_clipnodes(w, &md->hull[h], md->hull[h].root);
	struct buf *b = &w->lump[LUMP_MODELS];

	for (int k = 0; k < 3; k++)
		put_f32(b, (float)md->mins[k]);
	for (int k = 0; k < 3; k++)
		put_f32(b, (float)md->maxs[k]);
	for (int k = 0; k < 3; k++)
		put_f32(b, 0.0f);
	for (int h = 0; h < 3; h++)
		put_i32(b, head[h]);
	put_i32(b, 0);
	put_i32(b, mo.num_leafs);
	put_i32(b, first_face);
	put_i32(b, nf);

	free(order);
	free(node_rank);
	free(node_first);
	free(node_count);
	free(leaf_first);
	free(leaf_count);
	free(marks);
	free(mo.nodes);
	free(mo.node_file);
	free(mo.leafs);
	free(mo.leaf_file);
	return rc;
}

/* ---- textures --------------------------------------------------------- */

static int texture_row(const char *name)
{
	static const int rows[] = {0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12};
	uint32_t h = qm_hash(name, strlen(name));

	if (name[0] == '*') {
		if (strncasecmp(name + 1, "lava", 4) == 0)
			return 4;	/* reds */
		if (strncasecmp(name + 1, "slime", 5) == 0)
			return 3;	/* greens */
		return 13;		/* blues */
	}
	if (strncasecmp(name, "sky", 3) == 0)
		return 13;
	return rows[h % (sizeof(rows) / sizeof(rows[0]))];
}

static void write_miptex(struct buf *b, const char *name)
{
	bool sky = strncasecmp(name, "sky", 3) == 0;
	int wd = sky ? 256 : 64, ht = sky ? 128 : 64;
	int row = texture_row(name);
	uint8_t nm[QM_TEXNAME];
	uint32_t ofs = 40;

	memset(nm, 0, sizeof(nm));
	memcpy(nm, name, strlen(name));
	memcpy(buf_room(b, QM_TEXNAME), nm, QM_TEXNAME);
	put_i32(b, wd);
	put_i32(b, ht);
	for (int m = 0; m < 4; m++) {
		put_i32(b, (int32_t)ofs);
		ofs += (uint32_t)((wd >> m) * (ht >> m));
	}
	for (int m = 0; m < 4; m++) {
		for (int y = 0; y < (ht >> m); y++) {
			for (int x = 0; x < (wd >> m); x++) {
				int px = x << m, py = y << m;
				int cell = ((px >> 4) + (py >> 4)) & 1;
				int shade = cell ? 5 : 10;

				/* a darker line at the top and left of each
				 * 32-texel tile shows the texture alignment */
				if ((px & 31) == 0 || (py & 31) == 0)
					shade = 2;
				/* a sky's front layer (left half) is mostly
				 * index 0, which clients draw transparent */
				if (sky && px < 128)
					put_u8(b, cell && (py & 31) < 8 ? (unsigned)(row * 16 + 12) : 0u);
				else
					put_u8(b, (unsigned)(row * 16 + shade));
			}
		}
	}
}

static void write_textures(struct writer *w)
{
	struct buf *b = &w->lump[LUMP_TEXTURES];
	int table;

	put_i32(b, w->num_miptex);
	table = b->n;
	for (int i = 0; i < w->num_miptex; i++)
		put_i32(b, 0);
	for (int i = 0; i < w->num_miptex; i++) {
		int ofs = b->n;
		uint8_t *p = b->p + table + 4 * i;

		p[0] = (uint8_t)ofs;
		p[1] = (uint8_t)(ofs >> 8);
		p[2] = (uint8_t)(ofs >> 16);
		p[3] = (uint8_t)(ofs >> 24);
		write_miptex(b, w->in->map->texnames[w->miptex_tex[i]]);
	}
}

/* ---- entities --------------------------------------------------------- */

static void put_text(struct buf *b, const char *s)
{
	size_t n = strlen(s);

	memcpy(buf_room(b, (int)n), s, n);
}

static void write_entities(struct writer *w)
{
	const struct qm_map *map = w->in->map;
	struct buf *b = &w->lump[LUMP_ENTITIES];

	for (int e = 0; e < map->num_ents; e++) {
		const struct qm_entity *ent = &map->ents[e];
		char model[32];
		bool have_model = false;

		if (ent->drop)
			continue;
		snprintf(model, sizeof(model), "*%d", ent->model);
		put_text(b, "{\n");
		for (int i = 0; i < ent->num_pairs; i++) {
			const struct qm_pair *p = &map->pairs[ent->first_pair + i];
			const char *value = p->value;

			if (ent->model > 0 && strcmp(p->key, "model") == 0) {
				if (have_model)
					continue;
				value = model;
				have_model = true;
			}
			put_text(b, "\"");
			put_text(b, p->key);
			put_text(b, "\" \"");
			put_text(b, value);
			put_text(b, "\"\n");
		}
		if (ent->model > 0 && !have_model) {
			put_text(b, "\"model\" \"");
			put_text(b, model);
			put_text(b, "\"\n");
		}
		put_text(b, "}\n");
	}
	put_u8(b, 0);
}

/* ---- the file --------------------------------------------------------- */

static int check_limit(struct writer *w, const char *what, int count, int limit)
{
	if (count > limit)
		return qm_fail(w->ctx, 0, "map too large for BSP29: %d %s (the format allows %d)",
			       count, what, limit);
	return 0;
}

int qm_write_bsp(struct qm_ctx *ctx, const struct qm_write_in *in,
		 struct qm_output *out)
{
	struct writer w;
	struct buf file = {NULL, 0, 0};
	int rc = -1;

	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.in = in;
	keyset_init(&w.planes, 8);
	keyset_init(&w.verts, 12);
	keyset_init(&w.edges, 8);
	keyset_init(&w.texinfo, 40);
	w.miptex_of_tex = qm_calloc((size_t)in->map->num_tex + 1, sizeof(int));
	w.miptex_tex = qm_calloc((size_t)in->map->num_tex + 1, sizeof(int));
	for (int i = 0; i < in->map->num_tex; i++)
		w.miptex_of_tex[i] = -1;
	/* edge 0 and leaf 0 are reserved */
	QM_PUSH(w.edgelist, w.num_edges, w.cap_edges)->reversed = true;
	w.edgelist[0].v[0] = w.edgelist[0].v[1] = 0;
	{
		struct buf *b = &w.lump[LUMP_LEAFS];
		double zero[3] = {0, 0, 0};

		put_i32(b, CONTENTS_SOLID);
		put_i32(b, -1);
		write_bounds(b, zero, zero);
		put_u16(b, 0);
		put_u16(b, 0);
		for (int k = 0; k < 4; k++)
			put_u8(b, 0);
		w.num_leafs = 1;
	}
	for (int m = 0; m < in->num_models; m++)
		if (write_model(&w, m))
			goto out;
	/* every frame of an animation whose one frame is drawn: clients
	 * chain the frames at load and refuse a sequence with a gap */
	for (int i = 0; i < w.num_miptex; i++) {
		const char *a = in->map->texnames[w.miptex_tex[i]];

		if (a[0] != '+')
			continue;
		for (int k = 0; k < in->map->num_tex; k++) {
			const char *b = in->map->texnames[k];

			if (b[0] == '+' && w.miptex_of_tex[k] < 0 && strcasecmp(a + 2, b + 2) == 0) {
				w.miptex_of_tex[k] = w.num_miptex;
				w.miptex_tex[w.num_miptex++] = k;
			}
		}
	}
	if (in->world_num_leafs > 8192)
		qm_warn(w.ctx, 0, "%d world leafs: id's clients hold at most 8192 "
			"(ezQuake and other modern clients more)", in->world_num_leafs);
	for (int i = 0; i < w.num_edges; i++) {
		put_u16(&w.lump[LUMP_EDGES], (unsigned)w.edgelist[i].v[0]);
		put_u16(&w.lump[LUMP_EDGES], (unsigned)w.edgelist[i].v[1]);
	}
	write_textures(&w);
	write_entities(&w);
	if (in->vis)
		memcpy(buf_room(&w.lump[LUMP_VISIBILITY], (int)in->vis->size),
		       in->vis->data, in->vis->size);

	if (check_limit(&w, "nodes", w.num_nodes, 32767) ||
	    check_limit(&w, "leafs", w.num_leafs, 32767) ||
	    check_limit(&w, "clipnodes", w.num_clipnodes, 32767) ||
	    check_limit(&w, "faces", w.num_faces, 65535) ||
	    check_limit(&w, "vertexes", w.num_verts, 65535) ||
	    check_limit(&w, "planes", w.num_planes, 65535) ||
	    check_limit(&w, "texinfo", w.num_texinfo, 65535) ||
	    check_limit(&w, "marksurfaces", w.num_marks, 65535))
		goto out;

	put_i32(&file, 29);
	buf_room(&file, 8 * BSP_NUM_LUMPS);
	for (int i = 0; i < BSP_NUM_LUMPS; i++) {
		int ofs;

		while (file.n & 3)
			put_u8(&file, 0);
		ofs = file.n;
		if (w.lump[i].n)
			memcpy(buf_room(&file, w.lump[i].n), w.lump[i].p, (size_t)w.lump[i].n);
		for (int k = 0; k < 4; k++) {
			file.p[4 + 8 * i + k] = (uint8_t)((uint32_t)ofs >> (8 * k));
			file.p[8 + 8 * i + k] = (uint8_t)((uint32_t)w.lump[i].n >> (8 * k));
		}
	}
	while (file.n & 3)
		put_u8(&file, 0);
	out->data = file.p;
	out->size = (size_t)file.n;
	file.p = NULL;
	out->stats.planes = w.num_planes;
	out->stats.nodes = w.num_nodes;
	out->stats.leafs = w.num_leafs;
	out->stats.clipnodes = w.num_clipnodes;
	out->stats.faces = w.num_faces;
	out->stats.vertexes = w.num_verts;
	out->stats.edges = w.num_edges;
	out->stats.texinfo = w.num_texinfo;
	out->stats.miptex = w.num_miptex;
	out->stats.marksurfaces = w.num_marks;
	out->stats.visdata = (size_t)w.lump[LUMP_VISIBILITY].n;
	out->stats.entdata = (size_t)w.lump[LUMP_ENTITIES].n;
	out->stats.file_size = out->size;
	rc = 0;
out:
	free(file.p);
	for (int i = 0; i < BSP_NUM_LUMPS; i++)
		free(w.lump[i].p);
	keyset_free(&w.planes);
	keyset_free(&w.verts);
	keyset_free(&w.edges);
	keyset_free(&w.texinfo);
	free(w.edgelist);
	free(w.miptex_of_tex);
	free(w.miptex_tex);
	return rc;
}
