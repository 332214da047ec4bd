/*
 * src/world/vis.c -- which leafs can see (PVS) and hear (PHS) which.
 *
 * Design note
 *   The vis compiler stores, for every leaf of the world model, one row of
 *   bits: bit i set means leaf i + 1 may be visible from it (leaf 0 is the
 *   shared solid leaf and has no bit).  Rows cover leafs 1..visleafs, where
 *   visleafs is the world model's count, and are run-length coded: a
 *   non-zero byte stands for itself, a zero byte is followed by a count of
 *   zero bytes (QuakeWorld's Mod_DecompressVis).  A leaf whose offset is -1,
 *   a map without vis data, and leaf 0 see everything.
 *
 *   At load time every row is decompressed into map->pvs, one row of
 *   vis_row_bytes (a multiple of 4) per leaf 0..visleafs; bits past the last
 *   leaf are always clear, so rows can be compared and counted whole.  The
 *   reader is bounds-checked: a row that runs past the end of the lump, or
 *   a run of zeros longer than what is left of the row, refuses the map
 *   (QuakeWorld would read or write past its buffers).
 *
 *   The PHS row of a leaf is the union of the PVS rows of every leaf in its
 *   PVS (QuakeWorld's SV_CalcPHS): a sound is sent to whoever could see a
 *   place that sees the source.  It is computed with 32-bit words and a
 *   short cut: once a leaf that sees everything is met, the row is all
 *   ones (maps without vis are then linear, not quadratic).  Unlike
 *   SV_CalcPHS, the last leaf's row takes part too (id's loop stops one
 *   short, an off-by-one).
 *
 *   The tree walks (point, fat PVS, box) follow the world's node tree from
 *   models[0].headnode[0].  The loader has proved it acyclic and no deeper
 *   than BSP_MAX_DEPTH, so an explicit stack of that size bounds every walk;
 *   the walks also stop on any index out of range rather than trust it.
 *   - bsp_point_leaf: front when the distance is > 0 (Mod_PointInLeaf).
 *   - bsp_fat_pvs: both sides when the point is within 8 units of a plane,
 *     solid leafs skipped (SV_AddToFatPVS): a view point near a wall still
 *     sees what the next leaf sees.
 *   - bsp_box_leafs: BOX_ON_PLANE_SIDE (axial planes by their type, others
 *     by the two extreme corners), solid leafs skipped (SV_FindTouchedLeafs).
 *   Nothing here allocates after bsp_vis_build.
 */
#include "qwd/world.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* QuakeWorld fattens the view point by this distance from each plane */
#define VIS_FAT_DIST 8.0f

/* Largest PVS (and PHS) table accepted.  The tables grow with the square of
 * the leaf count; this refuses a hostile map of a million leafs instead of
 * asking for terabytes.  The largest real maps need a few megabytes. */
#define VIS_MAX_TABLE_BYTES ((size_t)512 << 20)

/* ---- tree walks ------------------------------------------------------- */

struct leaf_visit {
	const struct bsp_map *map;
	/* fat PVS */
	uint8_t *fat;
	/* box leafs */
	int32_t *out;
	int max, count;
};

typedef void (*leaf_fn)(struct leaf_visit *v, int32_t leaf);

/* which children a region reaches: bit 0 front, bit 1 back */
typedef int (*side_fn)(const struct bsp_plane *p, const float *a,
		       const float *b);

/* The box [mins, maxs] against a plane, as QuakeWorld's BOX_ON_PLANE_SIDE:
 * an axial plane compares one coordinate; otherwise the corner furthest
 * along the normal and the one furthest against it decide. */
static int box_sides(const struct bsp_plane *p, const float *mins,
		     const float *maxs)
{
	float front = 0, back = 0;
	int sides = 0;

	if (p->type < 3) {
		if (p->dist <= mins[p->type])
			return 1;
		if (p->dist >= maxs[p->type])
			return 2;
		return 3;
	}
	for (int k = 0; k < 3; k++) {
		bool neg = p->normal[k] < 0;

		front += p->normal[k] * (neg ? mins[k] : maxs[k]);
		back += p->normal[k] * (neg ? maxs[k] : mins[k]);
	}
	if (front >= p->dist)
		sides = 1;
	if (back < p->dist)
		sides |= 2;
	return sides;
}

/* A point fattened by VIS_FAT_DIST along each plane's normal. */
static int fat_sides(const struct bsp_plane *p, const float *org,
		     const float *unused)
{
	float d = vec_dot(org, p->normal) - p->dist;

	(void)unused;
	if (d > VIS_FAT_DIST)
		return 1;
	if (d < -VIS_FAT_DIST)
		return 2;
	return 3;
}

/* Visit every non-solid leaf (index > 0) the region reaches.  Pending back
 * children wait on an explicit stack; each belongs to a different level of
 * the current path, so BSP_MAX_DEPTH entries always suffice.  Inlined into
 * each walk, so the side test and the visit of each are direct (a fat PVS
 * is made for every reply). */
static inline __attribute__((always_inline)) void walk_tree(struct leaf_visit *v, side_fn sides, const float *a,
		      const float *b, leaf_fn visit)
{
	const struct bsp_map *map = v->map;
	int32_t stack[BSP_MAX_DEPTH];
	int sp = 0;
	int32_t n;

	if (map->num_models < 1 || !map->nodes)
		return;
	n = map->models[0].headnode[0];
	for (;;) {
		if (n >= 0 && n < map->num_nodes) {
			const struct bsp_node *node = &map->nodes[n];
			int s;

			if (node->planenum < 0 || node->planenum >= map->num_planes)
				goto next;
			s = sides(&map->planes[node->planenum], a, b);
			if (s == 3 && sp < BSP_MAX_DEPTH)
				stack[sp++] = node->children[1];
			n = node->children[s & 1 ? 0 : 1];
			if (s == 0)
				goto next;
			continue;
		}
		if (n < 0) {
			int32_t leaf = -1 - n;

			if (leaf > 0 && leaf < map->num_leafs &&
			    map->leafs[leaf].contents != CONTENTS_SOLID)
				visit(v, leaf);
		}
next:
		if (sp == 0)
			return;
		n = stack[--sp];
	}
}

int32_t bsp_point_leaf(const struct bsp_map *map, const vec3_t p)
{
	int32_t n;

	if (map->num_models < 1 || !map->nodes)
		return 0;
	n = map->models[0].headnode[0];
	for (int depth = 0; n >= 0; depth++) {
		const struct bsp_node *node;
		float d;

		if (n >= map->num_nodes || depth > BSP_MAX_DEPTH)
			return 0;
		node = &map->nodes[n];
		if (node->planenum < 0 || node->planenum >= map->num_planes)
			return 0;
		d = vec_dot(p, map->planes[node->planenum].normal) -
		    map->planes[node->planenum].dist;
		n = node->children[d > 0 ? 0 : 1];
	}
	n = -1 - n;
	return n < map->num_leafs ? n : 0;
}

/* ---- lookups ---------------------------------------------------------- */

/* Row of a table for a leaf; leafs without a row (0, past visleafs) get
 * row 0, which sees everything. */
static const uint8_t *table_row(const struct bsp_map *map, const uint8_t *t,
				int32_t leaf)
{
	if (!t)
		return NULL;	/* bsp_vis_build has not run, or failed */
	if (leaf < 0 || leaf > map->num_visleafs)
		leaf = 0;
	return t + (size_t)leaf * (size_t)map->vis_row_bytes;
}

const uint8_t *bsp_leaf_pvs(const struct bsp_map *map, int32_t leaf)
{
	return table_row(map, map->pvs, leaf);
}

const uint8_t *bsp_leaf_phs(const struct bsp_map *map, int32_t leaf)
{
	return table_row(map, map->phs, leaf);
}

/* the leaf's PVS row into the fat one, eight bytes at a time */
static void fat_add(struct leaf_visit *v, int32_t leaf)
{
	const uint8_t *row = bsp_leaf_pvs(v->map, leaf);
	size_t n = (size_t)v->map->vis_row_bytes, i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t a, b;

		memcpy(&a, v->fat + i, 8);
		memcpy(&b, row + i, 8);
		a |= b;
		memcpy(v->fat + i, &a, 8);
	}
	for (; i < n; i++)
		v->fat[i] |= row[i];
}

void bsp_fat_pvs(const struct bsp_map *map, const vec3_t org, uint8_t *out)
{
	struct leaf_visit v = {.map = map, .fat = out};

	memset(out, 0, (size_t)map->vis_row_bytes);
	walk_tree(&v, fat_sides, org, NULL, fat_add);
}

static void box_add(struct leaf_visit *v, int32_t leaf)
{
	if (v->count < v->max)
		v->out[v->count] = leaf;
	v->count++;
}

int bsp_box_leafs(const struct bsp_map *map, const vec3_t mins,
		  const vec3_t maxs, int32_t *out, int max)
{
	struct leaf_visit v = {.map = map, .out = out, .max = max};

	walk_tree(&v, box_sides, mins, maxs, box_add);
	return v.count;
}

/* ---- building the tables ---------------------------------------------- */

__attribute__((format(printf, 3, 4)))
static int vis_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Bits for leafs 1..n set, the rest of the row clear. */
static void row_fill_ones(uint8_t *row, int32_t n)
{
	memset(row, 0xff, (size_t)n / 8);
	if (n % 8)
		row[n / 8] = (uint8_t)((1u << (n % 8)) - 1);
}

/* Decompress leaf's row (already zeroed) from the vis lump. */
static int row_decompress(const struct bsp_map *map, int32_t leaf,
			  uint8_t *row, char *err, size_t errlen)
{
	const uint8_t *vis = map->visdata;
	size_t in = (size_t)map->leafs[leaf].visofs;
	size_t size = (size_t)map->vis_size;
	size_t need = ((size_t)map->num_visleafs + 7) / 8;
	size_t o = 0;

	if (in > size)
		return vis_fail(err, errlen,
				"leaf %d: visibility offset %zu is past the end of the lump (%zu bytes)",
				leaf, in, size);
	while (o < need) {
		uint8_t b;

		if (in >= size)
			return vis_fail(err, errlen,
					"leaf %d: visibility data runs past the end of the lump (%zu bytes)",
					leaf, size);
		b = vis[in++];
		if (b) {
			row[o++] = b;
			continue;
		}
		if (in >= size)
			return vis_fail(err, errlen,
					"leaf %d: visibility data runs past the end of the lump (%zu bytes)",
					leaf, size);
		b = vis[in++];
		if (b > need - o)
			return vis_fail(err, errlen,
					"leaf %d: a run of %u zero bytes at offset %zu overflows the %zu-byte row",
					leaf, b, in - 2, need);
		o += b;		/* the row starts zeroed */
	}
	/* a compiler may leave stray bits past the last leaf: clear them */
	if (map->num_visleafs % 8)
		row[need - 1] &= (uint8_t)((1u << (map->num_visleafs % 8)) - 1);
	return 0;
}

static bool row_is_full(const uint32_t *row, const uint32_t *ones, int words)
{
	return memcmp(row, ones, (size_t)words * sizeof(*row)) == 0;
}

/* PHS row = union of the PVS rows of every leaf in the PVS row.  A leaf
 * seeing everything makes the union everything at once. */
static void phs_row(const uint32_t *pvs, const bool *full, int words,
		    int32_t leaf, uint32_t *restrict dst)
{
	const uint32_t *src = pvs + (size_t)leaf * (size_t)words;

	memcpy(dst, src, (size_t)words * sizeof(*dst));
	if (full[leaf])
		return;
	for (int w = 0; w < words; w++) {
		uint32_t bits = src[w];

		while (bits) {
			int32_t other = w * 32 + __builtin_ctz(bits) + 1;
			const uint32_t *restrict o = pvs + (size_t)other * (size_t)words;

			bits &= bits - 1;
			if (full[other]) {
				memcpy(dst, pvs, (size_t)words * sizeof(*dst));
				return;
			}
			for (int k = 0; k < words; k++)
				dst[k] |= o[k];
		}
	}
}

int bsp_vis_build(struct bsp_map *map, char *err, size_t errlen)
{
	int32_t nv;
	size_t row_bytes, rows, table;
	uint32_t *pvs = NULL, *phs = NULL;
	bool *full = NULL;
	bool novis;
	int words;

	free(map->pvs);
	free(map->phs);
	map->pvs = map->phs = NULL;
	if (map->num_models < 1)
		return vis_fail(err, errlen, "no world model");
	nv = map->models[0].visleafs;
	if (nv < 0 || nv >= map->num_leafs)
		return vis_fail(err, errlen, "world visleafs %d out of range (%d leafs)",
				nv, map->num_leafs);
	if (map->vis_size < 0 || (map->vis_size > 0 && !map->visdata))
		return vis_fail(err, errlen, "visibility lump of %d bytes has no data",
				map->vis_size);
	novis = map->vis_size == 0;
	row_bytes = ((size_t)nv + 31) / 32 * 4;
	rows = (size_t)nv + 1;
	if (row_bytes && rows > VIS_MAX_TABLE_BYTES / row_bytes)
		return vis_fail(err, errlen,
				"%d visible leafs need more than %zu bytes of PVS",
				nv, VIS_MAX_TABLE_BYTES);
	table = rows * row_bytes;
	words = (int)(row_bytes / 4);
	/* never a zero-byte allocation: callers may still read row[0] */
	pvs = calloc(table ? table / 4 : 1, sizeof(*pvs));
	phs = calloc(table ? table / 4 : 1, sizeof(*phs));
	full = calloc(rows, sizeof(*full));
	if (!pvs || !phs || !full) {
		vis_fail(err, errlen, "out of memory for %zu bytes of PVS and PHS",
			 2 * table);
		goto bad;
	}

	map->num_visleafs = nv;
	map->vis_row_bytes = (int32_t)row_bytes;
	for (int32_t leaf = 0; leaf <= nv; leaf++) {
		uint8_t *row = (uint8_t *)pvs + (size_t)leaf * row_bytes;
		int32_t ofs = map->leafs[leaf].visofs;

		if (leaf == 0 || novis || ofs == -1) {
			row_fill_ones(row, nv);
			continue;
		}
		if (ofs < 0) {
			vis_fail(err, errlen, "leaf %d: visibility offset %d is negative",
				 leaf, ofs);
			goto bad;
		}
		if (row_decompress(map, leaf, row, err, errlen) != 0)
			goto bad;
	}
	for (int32_t leaf = 0; leaf <= nv; leaf++)
		full[leaf] = row_is_full(pvs + (size_t)leaf * (size_t)words, pvs, words);
	for (int32_t leaf = 0; leaf <= nv; leaf++)
		phs_row(pvs, full, words, leaf, phs + (size_t)leaf * (size_t)words);
	free(full);
	map->pvs = (uint8_t *)pvs;
	map->phs = (uint8_t *)phs;
	return 0;
bad:
	free(pvs);
	free(phs);
	free(full);
	map->num_visleafs = 0;
	map->vis_row_bytes = 0;
	return -1;
}
