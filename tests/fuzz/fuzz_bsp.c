/*
 * fuzz_bsp.c -- libFuzzer target: the map loader, and the walkers that
 * trust what it accepted.
 *
 * Design note
 *   The loader promises (include/qwd/world.h) that a map it accepts has
 *   every count, offset and index in range and acyclic node and clipnode
 *   graphs no deeper than BSP_MAX_DEPTH, so the recursive walkers never
 *   check again.  This target feeds arbitrary bytes to bsp_load_mem and,
 *   when a map comes back, runs each walker on it a few times: point
 *   contents in hulls 0-2, box traces of the three hull sizes against the
 *   world and the first submodels, the leaf of a point with its PVS and PHS
 *   rows, a fat PVS, bsp_box_leafs, and entity look-ups.
 *
 *   ASan and UBSan catch a read outside what the loader allocated, a runaway
 *   recursion (stack overflow), a leak on an error path or undefined
 *   arithmetic.  The checks below add the API contracts a sanitizer cannot
 *   see, and abort so that libFuzzer keeps the input:
 *   - a refused map leaves a message in err;
 *   - bsp_point_leaf and bsp_box_leafs return leafs in range, and a leaf
 *     reached through the world's tree has its bit inside a PVS row
 *     (bsp_vis_test reads row[(leaf - 1) >> 3] unchecked);
 *   - contents are CONTENTS_MIN..CONTENTS_EMPTY, trace fractions in [0, 1]
 *     (a NaN is let through: it can come from a NaN plane in the file and
 *     harms nothing), and bsp_box_leafs never reports a negative count.
 *   Query points come from a small generator seeded with a hash of the
 *   input, so one input always runs the same queries.  They lie in the
 *   world model's box widened by 64 units when that box is finite and of
 *   sane size, else in a fixed cube of +-4096 units.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/world.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
	FZ_POINTS = 8,		/* query points per input */
	FZ_MODELS = 4,		/* models traced: the world and 3 submodels */
	FZ_BOX_LEAFS = 16	/* room for bsp_box_leafs' output */
};

static const vec3_t fz_zero = { 0, 0, 0 };
/* point, player and large boxes, as QuakeWorld's hulls 0-2 */
static const vec3_t fz_mins[3] = { { 0, 0, 0 }, { -16, -16, -24 },
				   { -32, -32, -24 } };
static const vec3_t fz_maxs[3] = { { 0, 0, 0 }, { 16, 16, 32 },
				   { 32, 32, 64 } };

static void fz_fail(const struct bsp_map *map, const char *what, long a,
		    long b)
{
	fprintf(stderr, "fuzz_bsp: contract broken (%s): %s [%ld %ld]\n",
		map ? map->name : "?", what, a, b);
	abort();
}

/* splitmix64: a tiny deterministic generator */
static uint64_t fz_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static float fz_unit(uint64_t *s)
{
	return (float)(fz_next(s) >> 40) / (float)(1 << 24);
}

static uint64_t fz_hash(const uint8_t *data, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ size;
	size_t n = size < 256 ? size : 256;

	for (size_t i = 0; i < n; i++)
		h = (h ^ data[i]) * 0x100000001b3ULL;
	return h;
}

static bool fz_box_sane(const struct bsp_model *m)
{
	for (int i = 0; i < 3; i++)
		if (!isfinite(m->mins[i]) || !isfinite(m->maxs[i]) ||
		    m->mins[i] > m->maxs[i] || m->maxs[i] - m->mins[i] > 1e6f)
			return false;
	return true;
}

static void fz_points(const struct bsp_map *map, uint64_t *seed,
		      vec3_t pts[FZ_POINTS])
{
	vec3_t lo = { -4096, -4096, -4096 }, hi = { 4096, 4096, 4096 };

	if (map->num_models > 0 && fz_box_sane(&map->models[0])) {
		for (int i = 0; i < 3; i++) {
			lo[i] = map->models[0].mins[i] - 64;
			hi[i] = map->models[0].maxs[i] + 64;
		}
	}
	for (int p = 0; p < FZ_POINTS; p++)
		for (int i = 0; i < 3; i++)
			pts[p][i] = lo[i] + fz_unit(seed) * (hi[i] - lo[i]);
	/* one point exactly on the box's centre: axial planes often pass
	 * through it */
	for (int i = 0; i < 3; i++)
		pts[0][i] = (lo[i] + hi[i]) * 0.5f;
}

static void fz_check_contents(const struct bsp_map *map, int c)
{
	if (c < CONTENTS_MIN || c > CONTENTS_EMPTY)
		fz_fail(map, "contents outside CONTENTS_MIN..CONTENTS_EMPTY", c, 0);
}

/* a leaf the world's tree can reach: in range, and inside a PVS row */
static void fz_check_world_leaf(const struct bsp_map *map, int32_t leaf,
				const char *what)
{
	if (leaf < 0 || leaf >= map->num_leafs)
		fz_fail(map, what, leaf, map->num_leafs);
	if (leaf > 0 && (int64_t)(leaf - 1) >= (int64_t)map->vis_row_bytes * 8)
		fz_fail(map, "world leaf beyond the PVS row (bsp_vis_test would "
			"read past it)", leaf, map->vis_row_bytes);
}

static unsigned fz_row_sum(const struct bsp_map *map, const uint8_t *row)
{
	unsigned sum = 0;

	if (!row)
		fz_fail(map, "NULL PVS/PHS row", 0, 0);
	for (int32_t i = 0; i < map->vis_row_bytes; i++)
		sum += row[i];
	return sum;
}

static void fz_contents(const struct bsp_map *map, const vec3_t p)
{
	fz_check_contents(map, bsp_point_contents(map, p));
	if (map->num_models < 1)
		return;
	for (int h = 0; h < 3; h++) {
		const struct bsp_hull *hull = &map->models[0].hulls[h];

		fz_check_contents(map, bsp_hull_point_contents(
					       hull, hull->firstclipnode, p));
	}
}

static void fz_traces(const struct bsp_map *map, const vec3_t a,
		      const vec3_t b)
{
	int models = map->num_models < FZ_MODELS ? map->num_models : FZ_MODELS;
	struct trace tr;

	for (int m = 0; m < models; m++) {
		/* submodels sit at a, so the move crosses them */
		const float *origin = m ? a : fz_zero;

		for (int h = 0; h < 3; h++) {
			vec3_t offset;
			const struct bsp_hull *hull = bsp_hull_for_size(
				&map->models[m], fz_mins[h], fz_maxs[h], offset);

			if (hull != &map->models[m].hulls[h])
				fz_fail(map, "bsp_hull_for_size picked another hull",
					m, h);
			bsp_trace_box(map, m, origin, fz_mins[h], fz_maxs[h], a, b,
				      &tr);
			if (tr.fraction < 0 || tr.fraction > 1)
				fz_fail(map, "trace fraction outside [0,1]", m, h);
		}
	}
	/* a model number that does not exist must be a harmless miss */
	bsp_trace_box(map, map->num_models, fz_zero, fz_mins[1], fz_maxs[1], a,
		      b, &tr);
}

static unsigned fz_vis(const struct bsp_map *map, const vec3_t a,
		       const vec3_t b, uint8_t *fat)
{
	int32_t la = bsp_point_leaf(map, a);
	int32_t lb = bsp_point_leaf(map, b);
	int32_t out[FZ_BOX_LEAFS];
	vec3_t mins, maxs;
	unsigned sum = 0;
	int n;

	fz_check_world_leaf(map, la, "bsp_point_leaf out of range");
	fz_check_world_leaf(map, lb, "bsp_point_leaf out of range");
	sum += fz_row_sum(map, bsp_leaf_pvs(map, la));
	sum += fz_row_sum(map, bsp_leaf_phs(map, la));
	sum += bsp_vis_test(bsp_leaf_pvs(map, la), lb);
	sum += bsp_vis_test(bsp_leaf_phs(map, lb), la);

	bsp_fat_pvs(map, a, fat);
	sum += fz_row_sum(map, fat);

	for (int i = 0; i < 3; i++) {
		mins[i] = fminf(a[i], b[i]);
		maxs[i] = fmaxf(a[i], b[i]);
	}
	n = bsp_box_leafs(map, mins, maxs, out, FZ_BOX_LEAFS);
	if (n < 0)
		fz_fail(map, "bsp_box_leafs returned a negative count", n, 0);
	for (int i = 0; i < n && i < FZ_BOX_LEAFS; i++) {
		if (out[i] <= 0)
			fz_fail(map, "bsp_box_leafs returned leaf <= 0", out[i], i);
		fz_check_world_leaf(map, out[i], "bsp_box_leafs out of range");
		sum += bsp_vis_test(bsp_leaf_pvs(map, la), out[i]);
	}
	/* max 0: only the count, nothing stored */
	n = bsp_box_leafs(map, mins, maxs, out, 0);
	if (n < 0)
		fz_fail(map, "bsp_box_leafs returned a negative count", n, 0);
	return sum;
}

/* every leaf's rows, including those past num_visleafs (submodel leafs),
 * must be readable; only a few to keep executions fast */
static unsigned fz_leaf_rows(const struct bsp_map *map)
{
	int32_t probe[4] = { 0, 1, map->num_visleafs, map->num_leafs - 1 };
	unsigned sum = 0;

	for (int i = 0; i < 4; i++) {
		if (probe[i] < 0 || probe[i] >= map->num_leafs)
			continue;
		sum += fz_row_sum(map, bsp_leaf_pvs(map, probe[i]));
		sum += fz_row_sum(map, bsp_leaf_phs(map, probe[i]));
	}
	return sum;
}

static unsigned fz_entities(const struct bsp_map *map)
{
	unsigned sum = 0;
	uint32_t n = map->ents.num_ents < 64 ? map->ents.num_ents : 64;

	for (uint32_t i = 0; i < n; i++) {
		const char *v = ent_value(&map->ents, i, "classname");

		sum += v ? (unsigned)strlen(v) : 0;
	}
	return sum;
}

static void fz_exercise(const struct bsp_map *map, uint64_t seed)
{
	vec3_t pts[FZ_POINTS];
	/* fat PVS output; vis_row_bytes may be 0 for a map without leafs */
	uint8_t *fat = malloc(map->vis_row_bytes > 0 ?
				      (size_t)map->vis_row_bytes : 1);
	volatile unsigned sink = 0;

	if (!fat)
		return;
	fz_points(map, &seed, pts);
	for (int i = 0; i < FZ_POINTS; i++) {
		const float *b = pts[(i + 1) % FZ_POINTS];

		fz_contents(map, pts[i]);
		if (i < 4)
			fz_traces(map, pts[i], b);
		sink += fz_vis(map, pts[i], b, fat);
	}
	sink += fz_leaf_rows(map);
	sink += fz_entities(map);
	(void)sink;
	free(fat);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	struct bsp_map *map;

	/* no NUL anywhere: a loader that writes nothing is caught */
	memset(err, 0x7f, sizeof(err));
	map = bsp_load_mem("fuzz.bsp", data, size, err, sizeof(err));
	if (!map) {
		if (err[0] == '\0' || !memchr(err, '\0', sizeof(err)))
			fz_fail(NULL, "refused without a message", (long)size, 0);
		return 0;
	}
	fz_exercise(map, fz_hash(data, size));
	bsp_free(map);
	return 0;
}
