/*
 * test_bsp.c -- the BSP loader: real maps load with the right checksums,
 * the three formats agree, and corrupt files are refused with a message
 * that names the lump and the bad value.
 *
 * Design note: the expected checksums were computed outside qwd, by a
 * script that hashes each lump with OpenSSL's MD4 and XORs the words as
 * QuakeWorld does, so they check our MD4 and our lump choice at once.  The
 * corrupt variants are made by patching one field of a real map (lqdm11,
 * the smallest deathmatch map) in memory.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/world.h"

struct expect {
	const char *file;
	enum bsp_format fmt;
	uint32_t checksum, checksum2;
};

static const struct expect maps[] = {
	{"ewt_calcpointstest.bsp", BSP_FMT_29, 0x728f46ff, 0xcbdecf3a},
	{"ewt_glasstest.bsp", BSP_FMT_29, 0x3413e14c, 0x2198ea2a},
	{"ewt_lightstest1.bsp", BSP_FMT_29, 0xaefa786c, 0xdaa58ab6},
	{"ewt_phongtest.bsp", BSP_FMT_29, 0xf41e8f39, 0x533a2a58},
	{"ewt_stairsteptest.bsp", BSP_FMT_29, 0xb28d51d2, 0xf7ca61b1},
	{"ewt_testphongtjunc.bsp", BSP_FMT_29, 0xc55443e4, 0x2deceb32},
	{"ewt_testrotators.bsp", BSP_FMT_29, 0x2a0bc94a, 0xa37cebff},
	{"ewt_testslime.bsp", BSP_FMT_29, 0x98ac5389, 0xba3dd164},
	{"lq_e1m1.bsp", BSP_FMT_29, 0x1e990e9a, 0xf462e9c5},
	{"lq_e1m2.bsp", BSP_FMT_29, 0x88881112, 0x935f7af0},
	{"lq_e2m2.bsp", BSP_FMT_29, 0xa5948e0f, 0x7d69e35d},
	{"lq_e3m3.bsp", BSP_FMT_29, 0x9f6eb4d4, 0x21b1fe31},
	{"lqdm1.bsp", BSP_FMT_29, 0x22371f4e, 0x4fdf910e},
	{"lqdm10.bsp", BSP_FMT_29, 0x08f2f293, 0xf954b7a2},
	{"lqdm11.bsp", BSP_FMT_29, 0x4244c62a, 0x4f1a6ea0},
	{"lqdm11_2psb.bsp", BSP_FMT_2PSB, 0x56ec819a, 0xc0f95b29},
	{"lqdm12.bsp", BSP_FMT_29, 0x2ececaaa, 0x8233a939},
	{"lqdm13.bsp", BSP_FMT_29, 0xf502f58b, 0xfba906f9},
	{"lqdm2.bsp", BSP_FMT_29, 0x2485cf39, 0x85be30a5},
	{"lqdm2_bsp2.bsp", BSP_FMT_BSP2, 0x86569d65, 0xf1ab69b7},
	{"lqdm3.bsp", BSP_FMT_29, 0xc542a676, 0x5982a488},
	{"lqdm4.bsp", BSP_FMT_29, 0xab5f15e7, 0xcf1f5018},
	{"lqdm5.bsp", BSP_FMT_29, 0x4d52254d, 0x65e42822},
	{"lqdm6.bsp", BSP_FMT_29, 0xc2ee22d2, 0x2b457354},
	{"lqdm7.bsp", BSP_FMT_29, 0x425effdb, 0xf7d69311},
	{"lqdm8.bsp", BSP_FMT_29, 0x4d342dde, 0x3b5147f7},
	{"lqdm9.bsp", BSP_FMT_29, 0x950c58fd, 0x3c935317},
};

static void realmaps_load_with_checksums(void **state)
{
	char err[512];

	(void)state;
	if (!qwd_realmaps_dir())
		skip();
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		struct bsp_map *m = bsp_load(qwd_realmap(maps[i].file), err, sizeof(err));

		if (!m)
			fail_msg("%s refused: %s", maps[i].file, err);
		assert_int_equal(m->format, maps[i].fmt);
		if (m->checksum != maps[i].checksum || m->checksum2 != maps[i].checksum2)
			fail_msg("%s: checksums %08x %08x, want %08x %08x", maps[i].file,
				 m->checksum, m->checksum2, maps[i].checksum,
				 maps[i].checksum2);
		assert_true(m->num_models >= 1);
		assert_true(m->ents.num_ents >= 1);
		assert_string_equal(ent_value(&m->ents, 0, "classname"), "worldspawn");
		/* every model has usable hulls */
		for (int32_t k = 0; k < m->num_models; k++) {
			assert_ptr_equal(m->models[k].hulls[0].clipnodes, m->hull0);
			assert_ptr_equal(m->models[k].hulls[1].clipnodes, m->clipnodes);
			assert_true(m->models[k].hulls[1].clip_mins[2] == -24.0f);
			assert_true(m->models[k].hulls[2].clip_maxs[2] == 64.0f);
		}
		bsp_free(m);
	}
}

static void beyond_classic_limits(void **state)
{
	char err[512];
	const char *path = qwd_realmap("lqdm5.bsp");
	struct bsp_map *m;

	(void)state;
	if (!path)
		skip();
	m = bsp_load(path, err, sizeof(err));
	if (!m)
		fail_msg("%s", err);
	/* 2691 entities in a 346,695-byte lump: over the classic limits */
	assert_int_equal(m->ents.num_ents, 2691);
	assert_int_equal(m->entity_len, 346695 - 1);
	bsp_free(m);
}

/* deterministic pseudo-random numbers for point sampling */
static uint32_t rng(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

static float rnd_in(uint32_t *s, float lo, float hi)
{
	return lo + (hi - lo) * (float)(rng(s) & 0xFFFF) / 65535.0f;
}

/* The same source compiled as BSP29 and as BSP2/2PSB must give the same
 * world: same contents, same leafs, same traces.  The PVS comes from a
 * separate vis run per file, which is not bit-exact between runs (lqdm11:
 * one bit of 55,368 differs in the 2PSB file), so it must agree on at least
 * 99.99% of the visible pairs and every leaf must see itself in both. */
static void compare_formats(const char *a_file, const char *b_file)
{
	char err[512];
	const char *pa = qwd_realmap(a_file);
	struct bsp_map *a, *b;
	uint32_t seed = 12345;

	if (!pa)
		skip();
	a = bsp_load(pa, err, sizeof(err));
	if (!a)
		fail_msg("%s", err);
	b = bsp_load(qwd_realmap(b_file), err, sizeof(err));
	if (!b)
		fail_msg("%s", err);
	assert_int_equal(a->num_nodes, b->num_nodes);
	assert_int_equal(a->num_leafs, b->num_leafs);
	assert_int_equal(a->num_clipnodes, b->num_clipnodes);
	assert_int_equal(a->num_models, b->num_models);
	assert_int_equal(a->num_visleafs, b->num_visleafs);
	assert_string_equal(a->entity_text, b->entity_text);
	for (int i = 0; i < 2000; i++) {
		const struct bsp_model *w = &a->models[0];
		vec3_t p, q;
		struct trace ta, tb;
		int32_t la, lb;

		for (int k = 0; k < 3; k++) {
			p[k] = rnd_in(&seed, w->mins[k], w->maxs[k]);
			q[k] = rnd_in(&seed, w->mins[k], w->maxs[k]);
		}
		assert_int_equal(bsp_point_contents(a, p), bsp_point_contents(b, p));
		la = bsp_point_leaf(a, p);
		lb = bsp_point_leaf(b, p);
		assert_int_equal(la, lb);
		bsp_trace_hull(&a->models[0].hulls[1], p, q, &ta);
		bsp_trace_hull(&b->models[0].hulls[1], p, q, &tb);
		assert_true(ta.fraction == tb.fraction);
		assert_int_equal(ta.startsolid, tb.startsolid);
		assert_int_equal(ta.allsolid, tb.allsolid);
	}
	long set = 0, differ = 0;
	for (int32_t l = 1; l <= a->num_visleafs; l++) {
		const uint8_t *ra = bsp_leaf_pvs(a, l), *rb = bsp_leaf_pvs(b, l);

		assert_true(bsp_vis_test(ra, l) && bsp_vis_test(rb, l));
		for (int32_t k = 1; k <= a->num_visleafs; k++) {
			set += bsp_vis_test(ra, k);
			differ += bsp_vis_test(ra, k) != bsp_vis_test(rb, k);
		}
	}
	assert_true(set > 0);
	if (differ * 10000 > set)
		fail_msg("%s and %s: PVS differs in %ld of %ld visible pairs",
			 a_file, b_file, differ, set);
	bsp_free(a);
	bsp_free(b);
}

static void bsp2_matches_bsp29(void **state)
{
	(void)state;
	compare_formats("lqdm2.bsp", "lqdm2_bsp2.bsp");
}

static void psb2_matches_bsp29(void **state)
{
	(void)state;
	compare_formats("lqdm11.bsp", "lqdm11_2psb.bsp");
}

/* ---- corrupt variants ------------------------------------------------- */

struct raw {
	uint8_t *d;
	size_t size;
};

static struct raw raw_map(const char *file)
{
	struct raw r = {0};
	const char *path = qwd_realmap(file);

	if (!path)
		skip();
	r.d = qwd_read_file(path, &r.size);
	assert_non_null(r.d);
	return r;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static uint8_t *lump_at(struct raw *r, int lump, uint32_t *len)
{
	if (len)
		*len = get32(r->d + 8 + 8 * lump);
	return r->d + get32(r->d + 4 + 8 * lump);
}

/* load r and expect a refusal whose message contains every given part */
static void expect_refused(struct raw *r, const char *part1, const char *part2)
{
	char err[512] = "";
	struct bsp_map *m = bsp_load_mem("corrupt.bsp", r->d, r->size, err, sizeof(err));

	if (m) {
		bsp_free(m);
		fail_msg("corrupt map was accepted (expected \"%s\")", part1);
	}
	if (strncmp(err, "corrupt.bsp: ", 13) != 0)
		fail_msg("message does not name the file: %s", err);
	if (!strstr(err, part1) || (part2 && !strstr(err, part2)))
		fail_msg("message \"%s\" lacks \"%s\" / \"%s\"", err, part1,
			 part2 ? part2 : "");
	free(r->d);
}

static void corrupt_truncated(void **state)
{
	struct raw r = raw_map("lqdm11.bsp");

	(void)state;
	r.size = 40;	/* shorter than the header */
	expect_refused(&r, "shorter than a BSP header", NULL);
	r = raw_map("lqdm11.bsp");
	r.size -= 1000;	/* the last lump now runs past the end */
	expect_refused(&r, "runs past the end of the file", NULL);
}

static void corrupt_offset_past_end(void **state)
{
	struct raw r = raw_map("lqdm11.bsp");

	(void)state;
	put32(r.d + 4 + 8 * LUMP_LEAFS, (uint32_t)r.size + 4);
	expect_refused(&r, "lump leafs:", "runs past the end of the file");
}

static void corrupt_bad_version(void **state)
{
	struct raw r = raw_map("lqdm11.bsp");

	(void)state;
	put32(r.d, 30);
	expect_refused(&r, "unknown BSP version 30", NULL);
}

static void corrupt_child_out_of_range(void **state)
{
	struct raw r = raw_map("lqdm11.bsp");
	uint32_t len;
	uint8_t *nodes = lump_at(&r, LUMP_NODES, &len);

	(void)state;
	/* BSP29 child 0x7000: not a node (824 nodes) and leaf 65535-0x7000 is
	 * far beyond the 419 leafs */
	put16(nodes + 24 * 5 + 4, 0x7000);
	expect_refused(&r, "lump nodes: node 5 child 0 is leaf", "out of range");

	r = raw_map("lqdm11.bsp");
	uint8_t *clip = lump_at(&r, LUMP_CLIPNODES, &len);
	put16(clip + 8 * 7 + 6, 0x9000);
	expect_refused(&r, "lump clipnodes: clipnode 7 child 1", "neither a clipnode");
}

static void corrupt_bad_plane(void **state)
{
	struct raw r = raw_map("lqdm11.bsp");
	uint8_t *nodes = lump_at(&r, LUMP_NODES, NULL);

	(void)state;
	put32(nodes + 24 * 3, 999999);
	expect_refused(&r, "lump nodes: node 3 plane 999999 out of range", NULL);
}

static void corrupt_node_cycle(void **state)
{
	struct raw r = raw_map("lqdm11.bsp");
	uint8_t *nodes = lump_at(&r, LUMP_NODES, NULL);
	uint8_t *models = lump_at(&r, LUMP_MODELS, NULL);
	uint32_t root = get32(models + 36);
	uint32_t child = nodes[24 * root + 4] | nodes[24 * root + 5] << 8;

	(void)state;
	assert_true(child < 824);	/* the root's front child is a node */
	/* point that child back at the root */
	put16(nodes + 24 * child + 4, (uint16_t)root);
	expect_refused(&r, "lump nodes:", "makes a cycle");
}

static void corrupt_clipnode_cycle(void **state)
{
	struct raw r = raw_map("lqdm11.bsp");
	uint8_t *clip = lump_at(&r, LUMP_CLIPNODES, NULL);
	uint8_t *models = lump_at(&r, LUMP_MODELS, NULL);
	uint32_t root = get32(models + 40);

	(void)state;
	put16(clip + 8 * root + 4, (uint16_t)root);	/* a self-loop */
	expect_refused(&r, "lump clipnodes:", "makes a cycle");
}

static void corrupt_absurd_count(void **state)
{
	struct raw r = raw_map("lqdm11.bsp");
	uint8_t *tex = lump_at(&r, LUMP_TEXTURES, NULL);

	(void)state;
	put32(tex, 0x7fffffff);
	expect_refused(&r, "lump textures: texture count 2147483647", NULL);

	r = raw_map("lqdm11.bsp");
	put32(r.d + 8 + 8 * LUMP_NODES, 0x7ffffff0);	/* absurd node lump length */
	expect_refused(&r, "lump nodes:", NULL);
}

static void corrupt_bad_visofs(void **state)
{
	struct raw r = raw_map("lqdm11.bsp");
	uint32_t vislen;
	uint8_t *leafs = lump_at(&r, LUMP_LEAFS, NULL);

	(void)state;
	lump_at(&r, LUMP_VISIBILITY, &vislen);
	put32(leafs + 28 * 9 + 4, vislen + 100);
	expect_refused(&r, "lump leafs: leaf 9 visibility offset", "out of range");
}

static void corrupt_vis_overrun(void **state)
{
	struct raw r = raw_map("lqdm11.bsp");
	uint32_t vislen;
	uint8_t *leafs = lump_at(&r, LUMP_LEAFS, NULL);

	(void)state;
	lump_at(&r, LUMP_VISIBILITY, &vislen);
	/* a row that starts on the last byte cannot be complete */
	put32(leafs + 28 * 9 + 4, vislen - 1);
	expect_refused(&r, "lump visibility:", NULL);
}

static void corrupt_bad_contents(void **state)
{
	struct raw r = raw_map("lqdm11.bsp");
	uint8_t *leafs = lump_at(&r, LUMP_LEAFS, NULL);

	(void)state;
	put32(leafs + 28 * 4, 7);
	expect_refused(&r, "lump leafs: leaf 4 contents 7", NULL);
}

static void corrupt_model_headnode(void **state)
{
	struct raw r = raw_map("lqdm11.bsp");
	uint8_t *models = lump_at(&r, LUMP_MODELS, NULL);

	(void)state;
	put32(models + 64 + 40, 123456);	/* model 1, hull 1 */
	expect_refused(&r, "lump models: model 1 hull 1 head 123456", NULL);
}

/* found by the fuzzer: a world tree reaching leafs that have no PVS row */
static void corrupt_world_leaf_past_visleafs(void **state)
{
	struct raw r = raw_map("lqdm11.bsp");
	uint8_t *models = lump_at(&r, LUMP_MODELS, NULL);

	(void)state;
	put32(models + 52, 5);	/* world visleafs 392 -> 5 */
	expect_refused(&r, "lump nodes: world node", "beyond the 5 leafs");
}

static void corrupt_entities(void **state)
{
	struct raw r = raw_map("lqdm11.bsp");
	uint32_t len;
	char *ents = (char *)lump_at(&r, LUMP_ENTITIES, &len);
	char *close = memchr(ents, '}', len);

	(void)state;
	assert_non_null(close);
	*close = ' ';	/* the worldspawn block never closes */
	expect_refused(&r, "lump entities: line", NULL);
}

static void missing_file(void **state)
{
	char err[256];

	(void)state;
	assert_null(bsp_load("/nonexistent/x.bsp", err, sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent/x.bsp"));
}

/* Every single-byte truncation point of the header region and a sweep of
 * sizes must be refused cleanly (the sanitizer build checks memory). */
static void truncation_sweep(void **state)
{
	struct raw r = raw_map("lqdm11.bsp");
	char err[512];

	(void)state;
	for (size_t n = 0; n < r.size; n += n < 256 ? 1 : 4093) {
		struct bsp_map *m = bsp_load_mem("t.bsp", r.d, n, err, sizeof(err));

		if (m)
			fail_msg("truncated to %zu bytes but accepted", n);
	}
	free(r.d);
}

static const struct CMUnitTest bsp_tests[] = {
	cmocka_unit_test(realmaps_load_with_checksums),
	cmocka_unit_test(beyond_classic_limits),
	cmocka_unit_test(bsp2_matches_bsp29),
	cmocka_unit_test(psb2_matches_bsp29),
	cmocka_unit_test(corrupt_truncated),
	cmocka_unit_test(corrupt_offset_past_end),
	cmocka_unit_test(corrupt_bad_version),
	cmocka_unit_test(corrupt_child_out_of_range),
	cmocka_unit_test(corrupt_bad_plane),
	cmocka_unit_test(corrupt_node_cycle),
	cmocka_unit_test(corrupt_clipnode_cycle),
	cmocka_unit_test(corrupt_absurd_count),
	cmocka_unit_test(corrupt_bad_visofs),
	cmocka_unit_test(corrupt_vis_overrun),
	cmocka_unit_test(corrupt_bad_contents),
	cmocka_unit_test(corrupt_model_headnode),
	cmocka_unit_test(corrupt_world_leaf_past_visleafs),
	cmocka_unit_test(corrupt_entities),
	cmocka_unit_test(missing_file),
	cmocka_unit_test(truncation_sweep),
};

QWD_TEST_GROUP(bsp, bsp_tests, NULL, NULL)
