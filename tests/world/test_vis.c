/*
 * tests/world/test_vis.c -- PVS decompression, PHS, and the leaf walks.
 *
 * Design note: two maps are built by hand in memory.  The small one has
 * four planes (three axial, one slanted), four nodes and leafs 1..5 (5 is
 * solid) with a one-byte row per leaf, so the expected point leafs, PVS,
 * PHS, fat PVS and box leafs can be worked out on paper (the comments show
 * the working).  The wide one has 36 visible leafs (five-byte rows) to
 * exercise runs of zeros, stray bits past the last leaf and the refusals of
 * bad vis data.  Then the bundled maps (maps/NAME.map compiled by qwmap)
 * and, when they are there, the community maps are loaded through
 * bsp_load and checked against properties that must hold for any correct
 * PVS: spawn points sit in open leafs that see themselves, PHS contains
 * PVS, rows agree with an independent decoder, a room does not see the
 * whole map, and maps without vis see everything (the bundled small map
 * with its vis lump removed in memory, as a leaking compile writes it;
 * lqdm3, which leaked under qbsp).
 */
#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/world.h"

/* ---- the small map ------------------------------------------------------
 *
 *   node 0: x = 0             front -> node 1, back -> node 2
 *   node 1: y = 0             front -> leaf 1, back -> leaf 2
 *   node 2: -0.6x + 0.8y = 0  front -> leaf 3, back -> node 3
 *   node 3: z = 0             front -> leaf 4, back -> leaf 5 (solid)
 *
 *   PVS (bit i = leaf i + 1):   PHS (union of the PVS of the PVS):
 *     1: {1,2}      0x03          {1,2,3}     0x07
 *     2: {1,2,3}    0x07          {1,2,3,4}   0x0f
 *     3: {2,3,4}    0x0e          {1,2,3,4}   0x0f
 *     4: {3,4}      0x0c          {2,3,4}     0x0e
 *     5: no row (-1): all 0x1f    all         0x1f
 */

#define LEAF(i) (-1 - (i))

struct small_map {
	struct bsp_map map;
	struct bsp_plane planes[4];
	struct bsp_node nodes[4];
	struct bsp_leaf leafs[6];
	struct bsp_model model;
	uint8_t vis[4];
};

static void plane_set(struct bsp_plane *p, float x, float y, float z,
		      float dist, uint8_t type)
{
	vec_set(p->normal, x, y, z);
	p->dist = dist;
	p->type = type;
	p->signbits = (uint8_t)((x < 0) | (y < 0) << 1 | (z < 0) << 2);
}

static void node_set(struct bsp_node *n, int32_t plane, int32_t front,
		     int32_t back)
{
	n->planenum = plane;
	n->children[0] = front;
	n->children[1] = back;
}

static void small_init(struct small_map *s)
{
	static const uint8_t rows[4] = {0x03, 0x07, 0x0e, 0x0c};

	memset(s, 0, sizeof(*s));
	plane_set(&s->planes[0], 1, 0, 0, 0, 0);
	plane_set(&s->planes[1], 0, 1, 0, 0, 1);
	plane_set(&s->planes[2], -0.6f, 0.8f, 0, 0, 4);
	plane_set(&s->planes[3], 0, 0, 1, 0, 2);
	node_set(&s->nodes[0], 0, 1, 2);
	node_set(&s->nodes[1], 1, LEAF(1), LEAF(2));
	node_set(&s->nodes[2], 2, LEAF(3), 3);
	node_set(&s->nodes[3], 3, LEAF(4), LEAF(5));
	s->leafs[0].contents = CONTENTS_SOLID;
	s->leafs[0].visofs = -1;
	for (int i = 1; i <= 4; i++) {
		s->leafs[i].contents = CONTENTS_EMPTY;
		s->leafs[i].visofs = i - 1;
	}
	s->leafs[5].contents = CONTENTS_SOLID;
	s->leafs[5].visofs = -1;
	memcpy(s->vis, rows, sizeof(rows));
	s->model.headnode[0] = 0;
	s->model.visleafs = 5;

	s->map.planes = s->planes;
	s->map.num_planes = 4;
	s->map.nodes = s->nodes;
	s->map.num_nodes = 4;
	s->map.leafs = s->leafs;
	s->map.num_leafs = 6;
	s->map.models = &s->model;
	s->map.num_models = 1;
	s->map.visdata = s->vis;
	s->map.vis_size = sizeof(s->vis);
}

static void tables_free(struct bsp_map *m)
{
	free(m->pvs);
	free(m->phs);
	m->pvs = m->phs = NULL;
}

static void build_ok(struct bsp_map *m)
{
	char err[256];

	if (bsp_vis_build(m, err, sizeof(err)) != 0)
		fail_msg("bsp_vis_build: %s", err);
}

static void test_small_point_leaf(void **state)
{
	struct small_map s;
	static const struct {
		float p[3];
		int32_t leaf;
	} cases[] = {
		{{10, 10, 0}, 1},
		{{10, -10, 0}, 2},
		{{10, 0, 0}, 2},	/* on the plane: distance 0 goes back */
		{{0, 5, 0}, 3},		/* x = 0 goes back; -0.6*0+0.8*5 > 0 */
		{{-10, -10, 5}, 4},	/* 6 - 8 < 0: back, then z > 0 */
		{{-10, -10, -5}, 5},
		{{-10, -10, 0}, 5},
	};

	(void)state;
	small_init(&s);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(bsp_point_leaf(&s.map, cases[i].p), cases[i].leaf);
}

static void test_small_pvs_phs(void **state)
{
	struct small_map s;
	static const uint8_t pvs[6] = {0x1f, 0x03, 0x07, 0x0e, 0x0c, 0x1f};
	static const uint8_t phs[6] = {0x1f, 0x07, 0x0f, 0x0f, 0x0e, 0x1f};

	(void)state;
	small_init(&s);
	build_ok(&s.map);
	assert_int_equal(s.map.num_visleafs, 5);
	assert_int_equal(s.map.vis_row_bytes, 4);
	for (int32_t leaf = 0; leaf <= 5; leaf++) {
		const uint8_t *v = bsp_leaf_pvs(&s.map, leaf);
		const uint8_t *h = bsp_leaf_phs(&s.map, leaf);

		assert_int_equal(v[0], pvs[leaf]);
		assert_int_equal(h[0], phs[leaf]);
		for (int b = 1; b < 4; b++) {
			assert_int_equal(v[b], 0);
			assert_int_equal(h[b], 0);
		}
	}
	/* bit i is leaf i + 1; leaf 0 is never "visible" */
	assert_true(bsp_vis_test(bsp_leaf_pvs(&s.map, 1), 2));
	assert_false(bsp_vis_test(bsp_leaf_pvs(&s.map, 1), 3));
	assert_false(bsp_vis_test(bsp_leaf_pvs(&s.map, 1), 0));
	/* leafs without a row read as row 0 */
	assert_ptr_equal(bsp_leaf_pvs(&s.map, 6), bsp_leaf_pvs(&s.map, 0));
	assert_ptr_equal(bsp_leaf_phs(&s.map, -3), bsp_leaf_phs(&s.map, 0));
	tables_free(&s.map);
}

static void test_small_no_vis(void **state)
{
	struct small_map s;

	(void)state;
	small_init(&s);
	s.map.visdata = NULL;
	s.map.vis_size = 0;
	build_ok(&s.map);
	for (int32_t leaf = 0; leaf <= 5; leaf++) {
		assert_int_equal(bsp_leaf_pvs(&s.map, leaf)[0], 0x1f);
		assert_int_equal(bsp_leaf_phs(&s.map, leaf)[0], 0x1f);
	}
	tables_free(&s.map);
}

static void test_small_fat_pvs(void **state)
{
	struct small_map s;
	static const struct {
		float org[3];
		uint8_t fat;
	} cases[] = {
		/* far from x = 0 and y = 0: leaf 1 only */
		{{20, 20, 0}, 0x03},
		/* within 8 of x = 0: also node 2, where -2.4+16 > 8: leaf 3 */
		{{4, 20, 0}, 0x0f},
		/* node 2 at -6: both; z = 4: leaf 4 and the solid leaf 5,
		 * which is skipped (its row would make everything visible) */
		{{-30, -30, 4}, 0x0e},
		/* exactly 8 from x = 0 still counts as near */
		{{8, 20, 0}, 0x0f},
		{{8.5f, 20, 0}, 0x03},
	};
	uint8_t out[4];

	(void)state;
	small_init(&s);
	build_ok(&s.map);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(out, 0xaa, sizeof(out));
		bsp_fat_pvs(&s.map, cases[i].org, out);
		assert_int_equal(out[0], cases[i].fat);
		assert_int_equal(out[1] | out[2] | out[3], 0);
	}
	tables_free(&s.map);
}

static void test_small_box_leafs(void **state)
{
	struct small_map s;
	int32_t out[8];
	vec3_t mins, maxs;

	(void)state;
	small_init(&s);

	/* wholly in front of x = 0 and y = 0 */
	vec_set(mins, 1, 1, -1);
	vec_set(maxs, 5, 5, 1);
	assert_int_equal(bsp_box_leafs(&s.map, mins, maxs, out, 8), 1);
	assert_int_equal(out[0], 1);

	/* straddles every plane: leafs 1-4, the solid leaf 5 left out */
	vec_set(mins, -1, -1, -1);
	vec_set(maxs, 1, 1, 1);
	assert_int_equal(bsp_box_leafs(&s.map, mins, maxs, out, 8), 4);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 2);
	assert_int_equal(out[2], 3);
	assert_int_equal(out[3], 4);

	/* the count goes on past max; only max are stored */
	out[2] = 77;
	assert_int_equal(bsp_box_leafs(&s.map, mins, maxs, out, 2), 4);
	assert_int_equal(out[2], 77);
	assert_int_equal(bsp_box_leafs(&s.map, mins, maxs, NULL, 0), 4);

	/* mins on an axial plane: front only (the plane's dist <= mins) */
	vec_set(mins, 0, 1, -1);
	vec_set(maxs, 2, 2, 1);
	assert_int_equal(bsp_box_leafs(&s.map, mins, maxs, out, 8), 1);
	assert_int_equal(out[0], 1);

	/* maxs on x = 0: back only; then the slanted plane by its corners:
	 * nearest corner -0.6*0 + 0.8*1 = 0.8 >= 0, so front only */
	vec_set(mins, -2, 1, -1);
	vec_set(maxs, 0, 2, 1);
	assert_int_equal(bsp_box_leafs(&s.map, mins, maxs, out, 8), 1);
	assert_int_equal(out[0], 3);

	/* the back corner (0 0 z) lies on the slanted plane: front only */
	vec_set(mins, -2, 0, 2);
	vec_set(maxs, 0, 2, 3);
	assert_int_equal(bsp_box_leafs(&s.map, mins, maxs, out, 8), 1);
	assert_int_equal(out[0], 3);

	/* straddles the slanted plane only: leaf 3 and, under z = 0, 4 */
	vec_set(mins, -12, -12, 2);
	vec_set(maxs, -8, -8, 3);
	assert_int_equal(bsp_box_leafs(&s.map, mins, maxs, out, 8), 2);
	assert_int_equal(out[0], 3);
	assert_int_equal(out[1], 4);
}

static void test_small_truncated(void **state)
{
	struct small_map s;
	char err[256];

	(void)state;
	small_init(&s);
	s.map.vis_size = 3;	/* leaf 4's row starts at the end */
	assert_int_equal(bsp_vis_build(&s.map, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "leaf 4:"));
	assert_non_null(strstr(err, "past the end"));
	assert_null(s.map.pvs);
	assert_null(s.map.phs);

	small_init(&s);
	s.leafs[2].visofs = -5;
	assert_int_equal(bsp_vis_build(&s.map, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "leaf 2:"));

	small_init(&s);
	s.model.visleafs = 6;	/* must be below num_leafs */
	assert_int_equal(bsp_vis_build(&s.map, err, sizeof(err)), -1);
	assert_null(s.map.pvs);
}

/* ---- the wide map: 36 visible leafs, five-byte rows ------------------- */

enum { WIDE_LEAFS = 36 };

struct wide_map {
	struct bsp_map map;
	struct bsp_plane plane;
	struct bsp_node node;
	struct bsp_leaf leafs[WIDE_LEAFS + 1];
	struct bsp_model model;
	uint8_t vis[32];
};

/* Lump: leaf 1 at 0, leaf 2 at 4, leaf 3 at 6, every other leaf at 12
 * (its own bit only is not needed: they all share one row). */
static const uint8_t wide_vis[] = {
	/* 0: leaf 1 -> 01 00 00 00 ff: leafs 1 and 33..40, but only 33..36
	 * exist, so the stray high bits must be cleared */
	0x01, 0x00, 0x03, 0xff,
	/* 4: leaf 2 -> five zero bytes: sees nothing */
	0x00, 0x05,
	/* 6: leaf 3 -> ff 00 00 80 00: leafs 1..8 and 32 */
	0xff, 0x00, 0x02, 0x80, 0x00, 0x01,
	/* 12: leafs 4..36 -> (a run of no zeros) 00 00 00 00 08: leaf 36 */
	0x00, 0x00, 0x00, 0x04, 0x08,
	/* 17: a zero-run past the row (bad) */
	0x00, 0x06,
	/* 19: a zero byte with its count missing (bad, when last) */
	0x00,
};

static void wide_init(struct wide_map *w)
{
	memset(w, 0, sizeof(*w));
	plane_set(&w->plane, 1, 0, 0, 0, 0);
	node_set(&w->node, 0, LEAF(1), LEAF(2));
	w->leafs[0].contents = CONTENTS_SOLID;
	w->leafs[0].visofs = -1;
	for (int i = 1; i <= WIDE_LEAFS; i++) {
		w->leafs[i].contents = CONTENTS_EMPTY;
		w->leafs[i].visofs = 12;
	}
	w->leafs[1].visofs = 0;
	w->leafs[2].visofs = 4;
	w->leafs[3].visofs = 6;
	memcpy(w->vis, wide_vis, sizeof(wide_vis));
	w->model.visleafs = WIDE_LEAFS;
	w->map.planes = &w->plane;
	w->map.num_planes = 1;
	w->map.nodes = &w->node;
	w->map.num_nodes = 1;
	w->map.leafs = w->leafs;
	w->map.num_leafs = WIDE_LEAFS + 1;
	w->map.models = &w->model;
	w->map.num_models = 1;
	w->map.visdata = w->vis;
	w->map.vis_size = 17;	/* the bad rows are past the end */
}

static void assert_row(const uint8_t *row, const uint8_t *want, int n)
{
	for (int i = 0; i < n; i++)
		if (row[i] != want[i])
			fail_msg("byte %d: %02x, want %02x", i, row[i], want[i]);
}

static void test_wide_decompress(void **state)
{
	struct wide_map w;
	static const uint8_t r0[8] = {0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0};
	static const uint8_t r1[8] = {0x01, 0, 0, 0, 0x0f, 0, 0, 0};
	static const uint8_t r2[8] = {0};
	static const uint8_t r3[8] = {0xff, 0, 0, 0x80, 0, 0, 0, 0};
	static const uint8_t r4[8] = {0, 0, 0, 0, 0x08, 0, 0, 0};
	/* PHS 1 = PVS 1 | PVS 33..36 (= r4 each) | PVS 1 */
	static const uint8_t h1[8] = {0x01, 0, 0, 0, 0x0f, 0, 0, 0};
	/* PHS 3 = PVS 3 | PVS 1 | PVS 2 | PVS 4..8 | PVS 32 */
	static const uint8_t h3[8] = {0xff, 0, 0, 0x80, 0x0f, 0, 0, 0};
	/* PHS 36 = PVS 36 */
	static const uint8_t h36[8] = {0, 0, 0, 0, 0x08, 0, 0, 0};

	(void)state;
	wide_init(&w);
	build_ok(&w.map);
	assert_int_equal(w.map.num_visleafs, WIDE_LEAFS);
	assert_int_equal(w.map.vis_row_bytes, 8);
	assert_row(bsp_leaf_pvs(&w.map, 0), r0, 8);
	assert_row(bsp_leaf_pvs(&w.map, 1), r1, 8);
	assert_row(bsp_leaf_pvs(&w.map, 2), r2, 8);
	assert_row(bsp_leaf_pvs(&w.map, 3), r3, 8);
	for (int32_t leaf = 4; leaf <= WIDE_LEAFS; leaf++)
		assert_row(bsp_leaf_pvs(&w.map, leaf), r4, 8);
	assert_row(bsp_leaf_phs(&w.map, 0), r0, 8);
	assert_row(bsp_leaf_phs(&w.map, 1), h1, 8);
	assert_row(bsp_leaf_phs(&w.map, 2), r2, 8);
	assert_row(bsp_leaf_phs(&w.map, 3), h3, 8);
	assert_row(bsp_leaf_phs(&w.map, 36), h36, 8);
	tables_free(&w.map);
}

static void test_wide_errors(void **state)
{
	struct wide_map w;
	char err[256];

	(void)state;
	/* a zero-run longer than the rest of the row */
	wide_init(&w);
	w.map.vis_size = sizeof(wide_vis);
	w.leafs[7].visofs = 17;
	assert_int_equal(bsp_vis_build(&w.map, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "leaf 7:"));
	assert_non_null(strstr(err, "overflows"));
	assert_null(w.map.pvs);

	/* the count of a zero-run is past the end */
	wide_init(&w);
	w.map.vis_size = sizeof(wide_vis);
	w.leafs[9].visofs = 19;
	assert_int_equal(bsp_vis_build(&w.map, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "leaf 9:"));
	assert_non_null(strstr(err, "past the end"));

	/* the row stops short of five bytes at the end of the lump */
	wide_init(&w);
	w.map.vis_size = 15;
	assert_int_equal(bsp_vis_build(&w.map, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "leaf 4:"));
	assert_non_null(strstr(err, "past the end"));

	/* an offset past the lump */
	wide_init(&w);
	w.leafs[5].visofs = 100;
	assert_int_equal(bsp_vis_build(&w.map, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "leaf 5:"));
}

/* ---- real maps ---------------------------------------------------------- */

static const char *const realmap_files[] = {
	"lqdm1.bsp", "lqdm2.bsp", "lqdm3.bsp", "lqdm4.bsp", "lqdm5.bsp",
	"lqdm6.bsp", "lqdm7.bsp", "lqdm8.bsp", "lqdm9.bsp", "lqdm10.bsp",
	"lqdm11.bsp", "lqdm12.bsp", "lqdm13.bsp", "lq_e1m1.bsp",
	"lq_e1m2.bsp", "lq_e2m2.bsp", "lq_e3m3.bsp", "ewt_lightstest1.bsp",
	"ewt_testrotators.bsp", "ewt_phongtest.bsp", "ewt_glasstest.bsp",
	"ewt_stairsteptest.bsp", "ewt_calcpointstest.bsp",
	"ewt_testphongtjunc.bsp", "ewt_testslime.bsp", "lqdm2_bsp2.bsp",
	"lqdm11_2psb.bsp",
};

static struct bsp_map *load_map(const char *path)
{
	char err[512];
	struct bsp_map *m = bsp_load(path, err, sizeof(err));

	if (!m)
		fail_msg("%s", err);
	return m;
}

/* An independent decoder, written from the format description. */
static void ref_decompress(const struct bsp_map *m, int32_t leaf, uint8_t *row)
{
	const uint8_t *in = m->visdata + m->leafs[leaf].visofs;
	int32_t n = (m->num_visleafs + 7) / 8;

	memset(row, 0, (size_t)m->vis_row_bytes);
	for (int32_t o = 0; o < n; in++) {
		if (*in) {
			row[o++] = *in;
		} else {
			o += in[1];
			in++;
		}
	}
}

static bool row_bit(const uint8_t *row, int32_t bit)
{
	return row[bit >> 3] & (1u << (bit & 7));
}

/* Every row: no bit past the last leaf; PHS contains PVS and equals the
 * union of the PVS of the PVS for sampled leafs; PVS matches the reference
 * decoder. */
static void check_tables(const struct bsp_map *m, const char *file)
{
	int32_t nv = m->num_visleafs;
	int rb = m->vis_row_bytes;
	uint8_t *ref = malloc((size_t)rb + 1);
	bool novis = m->vis_size == 0;

	assert_non_null(ref);
	assert_int_equal(nv, m->models[0].visleafs);
	assert_int_equal(rb, (nv + 31) / 32 * 4);
	for (int32_t leaf = 0; leaf <= nv; leaf++) {
		const uint8_t *v = bsp_leaf_pvs(m, leaf);
		const uint8_t *h = bsp_leaf_phs(m, leaf);

		for (int32_t b = nv; b < rb * 8; b++)
			if (row_bit(v, b) || row_bit(h, b))
				fail_msg("%s: leaf %d has bit %d set past %d leafs",
					 file, leaf, b, nv);
		for (int i = 0; i < rb; i++)
			if ((v[i] & h[i]) != v[i])
				fail_msg("%s: leaf %d: PHS is not a superset of PVS", file, leaf);
		if (leaf == 0 || novis || m->leafs[leaf].visofs < 0) {
			for (int32_t b = 0; b < nv; b++)
				if (!row_bit(v, b))
					fail_msg("%s: leaf %d without vis misses leaf %d",
						 file, leaf, b + 1);
			continue;
		}
		ref_decompress(m, leaf, ref);
		if (memcmp(ref, v, (size_t)rb) != 0)
			fail_msg("%s: leaf %d: PVS differs from the reference", file, leaf);
		if (leaf % 17 != 1)
			continue;
		memset(ref, 0, (size_t)rb);
		for (int32_t b = 0; b < nv; b++) {
			if (!row_bit(v, b))
				continue;
			for (int i = 0; i < rb; i++)
				ref[i] |= bsp_leaf_pvs(m, b + 1)[i];
		}
		if (memcmp(ref, h, (size_t)rb) != 0)
			fail_msg("%s: leaf %d: PHS differs from the reference", file, leaf);
	}
	free(ref);
}

/* Every leaf the world's node tree reaches is 0, or 1..visleafs: the
 * indices that PVS rows describe. */
static void check_tree_leafs(const struct bsp_map *m, const char *file)
{
	int32_t *stack = malloc((size_t)m->num_nodes * sizeof(*stack));
	int sp = 0;

	assert_non_null(stack);
	stack[sp++] = m->models[0].headnode[0];
	while (sp > 0) {
		int32_t n = stack[--sp];

		for (int k = 0; k < 2; k++) {
			int32_t c = m->nodes[n].children[k];

			if (c >= 0) {
				assert_true(sp < m->num_nodes);
				stack[sp++] = c;
			} else if (-1 - c > m->num_visleafs) {
				fail_msg("%s: node %d reaches leaf %d past %d visleafs",
					 file, n, -1 - c, m->num_visleafs);
			}
		}
	}
	free(stack);
}

static int check_spawns(const struct bsp_map *m, const char *file)
{
	static const vec3_t pmins = {-16, -16, -24}, pmaxs = {16, 16, 32};
	uint8_t *fat = malloc((size_t)m->vis_row_bytes + 1);
	int spawns = 0;

	assert_non_null(fat);
	for (uint32_t e = 0; e < m->ents.num_ents; e++) {
		const char *cls = ent_value(&m->ents, e, "classname");
		const char *o = ent_value(&m->ents, e, "origin");
		vec3_t org, mins, maxs;
		int32_t leaf, touched[64];
		int n;
		bool found = false;

		if (!cls || strcmp(cls, "info_player_deathmatch") != 0)
			continue;
		assert_non_null(o);
		assert_int_equal(sscanf(o, "%f %f %f", &org[0], &org[1], &org[2]), 3);
		leaf = bsp_point_leaf(m, org);
		if (leaf <= 0 || leaf > m->num_visleafs)
			fail_msg("%s: spawn %u at %s in leaf %d", file, e, o, leaf);
		if (m->leafs[leaf].contents == CONTENTS_SOLID)
			fail_msg("%s: spawn %u at %s in a solid leaf", file, e, o);
		if (!bsp_vis_test(bsp_leaf_pvs(m, leaf), leaf))
			fail_msg("%s: spawn leaf %d does not see itself", file, leaf);
		bsp_fat_pvs(m, org, fat);
		for (int i = 0; i < m->vis_row_bytes; i++)
			assert_int_equal(fat[i] & bsp_leaf_pvs(m, leaf)[i],
					 bsp_leaf_pvs(m, leaf)[i]);
		vec_add(org, pmins, mins);
		vec_add(org, pmaxs, maxs);
		n = bsp_box_leafs(m, mins, maxs, touched, 64);
		assert_true(n >= 1);
		for (int i = 0; i < n && i < 64; i++) {
			assert_true(touched[i] > 0 && touched[i] <= m->num_visleafs);
			assert_int_not_equal(m->leafs[touched[i]].contents, CONTENTS_SOLID);
			found |= touched[i] == leaf;
		}
		if (!found)
			fail_msg("%s: player box at %s misses its own leaf %d", file, o, leaf);
		spawns++;
	}
	free(fat);
	return spawns;
}

static void test_realmaps_vis(void **state)
{
	(void)state;
	if (!qwd_realmaps_dir())
		qwd_skip_no_realmaps();
	for (size_t i = 0; i < sizeof(realmap_files) / sizeof(realmap_files[0]); i++) {
		const char *file = realmap_files[i];
		struct bsp_map *m = load_map(qwd_realmap(file));

		check_tables(m, file);
		check_tree_leafs(m, file);
		if (strncmp(file, "ewt_", 4) != 0)
			assert_true(check_spawns(m, file) >= 7);
		bsp_free(m);
	}
}

static void bundled_vis(const char *name, void *arg)
{
	struct bsp_map *m = load_map(qwd_bundled_map(name));

	check_tables(m, name);
	check_tree_leafs(m, name);
	*(int *)arg += check_spawns(m, name);
	bsp_free(m);
}

static void test_bundled_vis(void **state)
{
	int spawns = 0;

	(void)state;
	assert_true(qwd_each_bundled_map(bundled_vis, &spawns) >= 2);
	/* small's 72 and large's 68 at least */
	assert_true(spawns >= 140);
}

/* Without vis data everything sees and hears everything, from anywhere. */
static void check_no_vis(const struct bsp_map *m, const vec3_t org)
{
	uint8_t *fat;

	assert_int_equal(m->vis_size, 0);
	for (int32_t leaf = 1; leaf <= m->num_visleafs; leaf += 97)
		for (int32_t other = 1; other <= m->num_visleafs; other++) {
			assert_true(bsp_vis_test(bsp_leaf_pvs(m, leaf), other));
			assert_true(bsp_vis_test(bsp_leaf_phs(m, leaf), other));
		}
	fat = malloc((size_t)m->vis_row_bytes);
	assert_non_null(fat);
	bsp_fat_pvs(m, org, fat);
	for (int32_t other = 1; other <= m->num_visleafs; other++)
		assert_true(bsp_vis_test(fat, other));
	free(fat);
}

/* lqdm3 leaked under qbsp, so it has no vis data. */
static void test_lqdm3_no_vis(void **state)
{
	struct bsp_map *m;
	static const vec3_t org = {360, 944, 52};	/* the leak's occupant */

	(void)state;
	if (!qwd_realmap("lqdm3.bsp"))
		qwd_skip_no_realmaps();
	m = load_map(qwd_realmap("lqdm3.bsp"));
	assert_int_equal(m->num_visleafs, 4701);
	check_no_vis(m, org);
	bsp_free(m);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The bundled small map as a leaking compile leaves it (lqdm3's layout):
 * an empty visibility lump, every leaf's offset -1 but leaf 0's, 0. */
static void test_bundled_no_vis(void **state)
{
	static const vec3_t org = {-832, -832, 48};	/* the sw room */
	size_t size = 0;
	uint8_t *d = qwd_read_file(qwd_bundled_map("small"), &size);
	uint8_t *leafs;
	uint32_t num;
	struct bsp_map *m;
	char err[512];

	(void)state;
	assert_non_null(d);
	assert_true(rd32(d + 8 + 8 * LUMP_VISIBILITY) > 0);
	memset(d + 8 + 8 * LUMP_VISIBILITY, 0, 4);
	leafs = d + rd32(d + 4 + 8 * LUMP_LEAFS);
	num = rd32(d + 8 + 8 * LUMP_LEAFS) / 28;
	for (uint32_t i = 0; i < num; i++)
		memset(leafs + 28 * i + 4, i ? 0xff : 0, 4);
	m = bsp_load_mem("small-novis.bsp", d, size, err, sizeof(err));
	if (!m)
		fail_msg("%s", err);
	assert_true(m->num_visleafs > 1);
	check_no_vis(m, org);
	bsp_free(m);
	free(d);
}

/* With vis, a room does not see the whole of a deathmatch map. */
static void check_selective(const struct bsp_map *m)
{
	int32_t seen = 0, heard = 0;

	for (int32_t leaf = 1; leaf <= m->num_visleafs; leaf++) {
		seen += bsp_vis_test(bsp_leaf_pvs(m, 1), leaf);
		heard += bsp_vis_test(bsp_leaf_phs(m, 1), leaf);
	}
	if (!(seen > 0 && seen < m->num_visleafs))
		fail_msg("%s: leaf 1 sees %d of %d leafs", m->name, seen,
			 m->num_visleafs);
	assert_true(heard >= seen && heard <= m->num_visleafs);
}

static void test_pvs_is_selective(void **state)
{
	static const char *const names[] = {"small", "large"};

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct bsp_map *m = load_map(qwd_bundled_map(names[i]));

		check_selective(m);
		bsp_free(m);
	}
	if (qwd_realmaps_dir()) {
		struct bsp_map *m = load_map(qwd_realmap("lqdm1.bsp"));

		check_selective(m);
		bsp_free(m);
	}
}

static const struct CMUnitTest vis_tests[] = {
	cmocka_unit_test(test_small_point_leaf),
	cmocka_unit_test(test_small_pvs_phs),
	cmocka_unit_test(test_small_no_vis),
	cmocka_unit_test(test_small_fat_pvs),
	cmocka_unit_test(test_small_box_leafs),
	cmocka_unit_test(test_small_truncated),
	cmocka_unit_test(test_wide_decompress),
	cmocka_unit_test(test_wide_errors),
	cmocka_unit_test(test_bundled_vis),
	cmocka_unit_test(test_realmaps_vis),
	cmocka_unit_test(test_bundled_no_vis),
	cmocka_unit_test(test_lqdm3_no_vis),
	cmocka_unit_test(test_pvs_is_selective),
};

QWD_TEST_GROUP(vis, vis_tests, NULL, NULL)
