/*
 * test_bsp.c -- the BSP loader: maps load with the right checksums, the
 * three formats agree, and corrupt files are refused with a message that
 * names the lump and the bad value.
 *
 * Design note: everything runs on the maps the build compiles (maps/NAME.map
 * by qwmap into build/maps/); the community maps (../shared/realmaps or
 * $QWD_REALMAPS) are an optional extra, skipped with a reason when absent.
 *   - Checksums: for a bundled map they are recomputed here from the
 *     file's own lump directory (read without the loader), and changing a
 *     byte of a lump must move exactly the checksums that cover it.  For
 *     the community maps they were computed outside qwd, by a script that
 *     hashes each lump with OpenSSL's MD4 and XORs the words as QuakeWorld
 *     does, so they check our MD4 and our lump choice at once.
 *   - Formats: the test widens a bundled BSP29 map into "BSP2" and "2PSB"
 *     itself (widen() below, written from the format description) and the
 *     loader must give the same map from all three.  The community lqdm2
 *     and lqdm11 builds in BSP2/2PSB come from another compiler, so they
 *     also catch a misreading of the format shared by widen() and the
 *     loader.
 *   - Corrupt variants patch one field of a loaded map in memory: the
 *     bundled small map always, and lqdm11 (another compiler's layout)
 *     too when the community maps are there.
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

/* every model has usable hulls */
static void check_hulls(const struct bsp_map *m)
{
	for (int32_t k = 0; k < m->num_models; k++) {
		assert_ptr_equal(m->models[k].hulls[0].clipnodes, m->hull0);
		assert_ptr_equal(m->models[k].hulls[1].clipnodes, m->clipnodes);
		assert_true(m->models[k].hulls[1].clip_mins[2] == -24.0f);
		assert_true(m->models[k].hulls[2].clip_maxs[2] == 64.0f);
	}
}

static void realmaps_load_with_checksums(void **state)
{
	char err[512];

	(void)state;
	if (!qwd_realmaps_dir())
		qwd_skip_no_realmaps();
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
		check_hulls(m);
		bsp_free(m);
	}
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* QuakeWorld's two map checksums of a BSP file, from its lump directory:
 * the block checksums of every lump but the entities XORed together; the
 * second also leaves out the visibility, the leafs and the nodes */
static void file_checksums(const uint8_t *d, size_t size, uint32_t *c1,
			   uint32_t *c2)
{
	*c1 = *c2 = 0;
	assert_true(size >= 4 + 8 * BSP_NUM_LUMPS);
	for (int i = 0; i < BSP_NUM_LUMPS; i++) {
		uint32_t ofs = get32(d + 4 + 8 * i), len = get32(d + 8 + 8 * i);
		uint32_t c;

		assert_true((uint64_t)ofs + len <= size);
		if (i == LUMP_ENTITIES)
			continue;
		c = com_block_checksum(d + ofs, len);
		*c1 ^= c;
		if (i != LUMP_VISIBILITY && i != LUMP_LEAFS && i != LUMP_NODES)
			*c2 ^= c;
	}
}

static void load_bundled_checked(const char *name, void *arg)
{
	const char *path = qwd_bundled_map(name);
	struct bsp_map *m;
	uint8_t *d;
	size_t size = 0;
	uint32_t c1, c2;
	char err[512];

	(void)arg;
	d = qwd_read_file(path, &size);
	if (!d)
		fail_msg("%s: cannot read the bundled map (make maps)", path);
	m = bsp_load(path, err, sizeof(err));
	if (!m)
		fail_msg("%s refused: %s", name, err);
	assert_int_equal(m->format, BSP_FMT_29);
	file_checksums(d, size, &c1, &c2);
	if (m->checksum != c1 || m->checksum2 != c2)
		fail_msg("%s: checksums %08x %08x, recomputed %08x %08x", name,
			 m->checksum, m->checksum2, c1, c2);
	assert_true(m->num_models >= 1);
	assert_true(m->ents.num_ents >= 1);
	assert_string_equal(ent_value(&m->ents, 0, "classname"), "worldspawn");
	check_hulls(m);
	bsp_free(m);
	free(d);
}

static void bundled_load_with_checksums(void **state)
{
	(void)state;
	/* small, large and the item boxes at least */
	assert_true(qwd_each_bundled_map(load_bundled_checked, NULL) >= 3);
}

/* load the bytes, which must be accepted, and give its two checksums */
static void mem_checksums(const uint8_t *d, size_t size, uint32_t *c1,
			  uint32_t *c2)
{
	char err[512];
	struct bsp_map *m = bsp_load_mem("edited.bsp", d, size, err, sizeof(err));

	if (!m)
		fail_msg("%s", err);
	*c1 = m->checksum;
	*c2 = m->checksum2;
	bsp_free(m);
}

/* A changed byte moves exactly the checksums whose lumps cover it: a
 * texture pixel both, a leaf's ambient sound level only the first, the
 * entity text neither (servers may rewrite entities, clients still
 * match the map). */
static void checksums_follow_lumps(void **state)
{
	size_t size = 0;
	uint8_t *d = qwd_read_file(qwd_bundled_map("small"), &size);
	uint32_t c1, c2, e1, e2;
	uint8_t *tex, *leafs;
	char *ents, *msg;

	(void)state;
	assert_non_null(d);
	mem_checksums(d, size, &c1, &c2);

	/* the last pixel of the textures lump */
	tex = d + get32(d + 4 + 8 * LUMP_TEXTURES) + get32(d + 8 + 8 * LUMP_TEXTURES) - 1;
	*tex ^= 0x55;
	mem_checksums(d, size, &e1, &e2);
	assert_int_not_equal(e1, c1);
	assert_int_not_equal(e2, c2);
	*tex ^= 0x55;

	/* leaf 1's first ambient level (byte 24 of a 28-byte leaf) */
	leafs = d + get32(d + 4 + 8 * LUMP_LEAFS);
	leafs[28 + 24] ^= 0x40;
	mem_checksums(d, size, &e1, &e2);
	assert_int_not_equal(e1, c1);
	assert_int_equal(e2, c2);
	leafs[28 + 24] ^= 0x40;

	/* one letter of the worldspawn's message */
	ents = (char *)d + get32(d + 4 + 8 * LUMP_ENTITIES);
	msg = strstr(ents, "\"message\" \"");
	assert_non_null(msg);
	msg[11] = msg[11] == 'x' ? 'y' : 'x';
	mem_checksums(d, size, &e1, &e2);
	assert_int_equal(e1, c1);
	assert_int_equal(e2, c2);
	free(d);
}

static void beyond_classic_limits(void **state)
{
	char err[512];
	const char *path = qwd_realmap("lqdm5.bsp");
	struct bsp_map *m;

	(void)state;
	if (!path)
		qwd_skip_no_realmaps();
	m = bsp_load(path, err, sizeof(err));
	if (!m)
		fail_msg("%s", err);
	/* 2691 entities in a 346,695-byte lump: over the classic limits */
	assert_int_equal(m->ents.num_ents, 2691);
	assert_int_equal(m->entity_len, 346695 - 1);
	bsp_free(m);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* The bundled small map with 4000 lights added to its entities: over
 * 4000 entities in about 300 KB, far over id's 1024 entities and 64 KB
 * of text (and QuakeWorld's 768 edicts).  The new lump goes after the
 * others, so nothing else moves. */
static void bundled_beyond_classic_limits(void **state)
{
	enum { LIGHTS = 4000 };
	size_t size = 0, cap, len;
	uint8_t *d = qwd_read_file(qwd_bundled_map("small"), &size);
	uint32_t ofs, old_len, base, ents;
	struct bsp_map *m;
	char err[512], *text;

	(void)state;
	assert_non_null(d);
	m = bsp_load_mem("small.bsp", d, size, err, sizeof(err));
	if (!m)
		fail_msg("%s", err);
	ents = m->ents.num_ents;
	bsp_free(m);
	ofs = get32(d + 4 + 8 * LUMP_ENTITIES);
	old_len = get32(d + 8 + 8 * LUMP_ENTITIES);
	cap = old_len + (size_t)LIGHTS * 96;
	d = realloc(d, size + cap);
	assert_non_null(d);
	text = (char *)d + size;
	len = strnlen((const char *)d + ofs, old_len);
	memcpy(text, d + ofs, len);
	base = (uint32_t)len;
	for (int i = 0; i < LIGHTS; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"{\n\"classname\" \"light\"\n\"origin\" "
					"\"%d %d 96\"\n\"light\" \"%d\"\n}\n",
					-1000 + i % 2000, -900 + i / 20, 100 + i);
	assert_true(len < cap);
	text[len] = '\0';
	put32(d + 4 + 8 * LUMP_ENTITIES, (uint32_t)size);
	put32(d + 8 + 8 * LUMP_ENTITIES, (uint32_t)len + 1);
	assert_true(len > 65536 && len - base > 200000);

	m = bsp_load_mem("many.bsp", d, size + len + 1, err, sizeof(err));
	if (!m)
		fail_msg("%s", err);
	assert_int_equal(m->entity_len, len);
	assert_int_equal(m->ents.num_ents, ents + LIGHTS);
	assert_string_equal(ent_value(&m->ents, 0, "classname"), "worldspawn");
	assert_string_equal(ent_value(&m->ents, ents, "origin"), "-1000 -900 96");
	assert_string_equal(ent_value(&m->ents, ents + LIGHTS - 1, "origin"),
			    "999 -701 96");
	assert_string_equal(ent_value(&m->ents, ents + LIGHTS - 1, "light"), "4099");
	bsp_free(m);
	free(d);
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
 * world: same contents, same leafs, same traces.  The PVS of a community
 * build comes from a separate vis run per file, which is not bit-exact
 * between runs (lqdm11: one bit of 55,368 differs in the 2PSB file), so
 * it must agree on all but max_differ of each 10,000 visible pairs, and
 * every leaf must see itself in both. */
static void compare_formats(const struct bsp_map *a, const struct bsp_map *b,
			    long max_differ)
{
	uint32_t seed = 12345;

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
	if (differ * 10000 > set * max_differ)
		fail_msg("%s and %s: PVS differs in %ld of %ld visible pairs",
			 a->name, b->name, differ, set);
}

static void compare_realmaps(const char *a_file, const char *b_file)
{
	char err[512];
	struct bsp_map *a, *b;

	a = bsp_load(qwd_realmap(a_file), err, sizeof(err));
	if (!a)
		fail_msg("%s", err);
	b = bsp_load(qwd_realmap(b_file), err, sizeof(err));
	if (!b)
		fail_msg("%s", err);
	compare_formats(a, b, 1);
	bsp_free(a);
	bsp_free(b);
}

static void bsp2_matches_bsp29(void **state)
{
	(void)state;
	if (!qwd_realmaps_dir())
		qwd_skip_no_realmaps();
	compare_realmaps("lqdm2.bsp", "lqdm2_bsp2.bsp");
}

static void psb2_matches_bsp29(void **state)
{
	(void)state;
	if (!qwd_realmaps_dir())
		qwd_skip_no_realmaps();
	compare_realmaps("lqdm11.bsp", "lqdm11_2psb.bsp");
}

/* ---- BSP29 widened to BSP2 and 2PSB, in memory ------------------------ */

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void putf(uint8_t *p, float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	put32(p, u);
}

/* a node/leaf box: six int16 in BSP29 and 2PSB, six floats in BSP2 */
static uint8_t *put_box(uint8_t *o, const uint8_t *in, enum bsp_format fmt)
{
	for (int k = 0; k < 6; k++) {
		int16_t v = (int16_t)get16(in + 2 * k);

		if (fmt == BSP_FMT_BSP2) {
			putf(o, v);
			o += 4;
		} else {
			put16(o, (uint16_t)v);
			o += 2;
		}
	}
	return o;
}

/* One BSP29 lump rewritten in fmt: the records listed in the table at the
 * top of src/world/bsp.c widen, the other lumps are copied.  Returns the
 * new length. */
static uint32_t widen_lump(int lump, const uint8_t *in, uint32_t len,
			   uint32_t num_nodes, enum bsp_format fmt, uint8_t *out)
{
	uint8_t *o = out;

	switch (lump) {
	case LUMP_NODES:	/* i32 plane, u16 child[2], box, u16 face x2 */
		for (uint32_t i = 0; i < len / 24; i++) {
			const uint8_t *r = in + 24 * i;

			put32(o, get32(r));
			for (int k = 0; k < 2; k++) {
				uint16_t c = get16(r + 4 + 2 * k);

				/* a node, or leaf 65535 - c stored as -1 - leaf */
				put32(o + 4 + 4 * k,
				      c < num_nodes ? c : (uint32_t)c - 65536u);
			}
			o = put_box(o + 12, r + 8, fmt);
			put32(o, get16(r + 20));
			put32(o + 4, get16(r + 22));
			o += 8;
		}
		break;
	case LUMP_CLIPNODES:	/* i32 plane, u16 child[2] (>= 0xfff0 contents) */
		for (uint32_t i = 0; i < len / 8; i++) {
			const uint8_t *r = in + 8 * i;

			put32(o, get32(r));
			for (int k = 0; k < 2; k++) {
				uint16_t c = get16(r + 4 + 2 * k);

				put32(o + 4 + 4 * k, c >= 0xfff0 ? (uint32_t)c - 65536u : c);
			}
			o += 12;
		}
		break;
	case LUMP_LEAFS:	/* contents, visofs, box, u16 marks x2, ambient[4] */
		for (uint32_t i = 0; i < len / 28; i++) {
			const uint8_t *r = in + 28 * i;

			memcpy(o, r, 8);
			o = put_box(o + 8, r + 8, fmt);
			put32(o, get16(r + 20));
			put32(o + 4, get16(r + 22));
			memcpy(o + 8, r + 24, 4);
			o += 12;
		}
		break;
	case LUMP_FACES:	/* u16 plane, side; i32 edge; u16 nedges, texinfo */
		for (uint32_t i = 0; i < len / 20; i++) {
			const uint8_t *r = in + 20 * i;

			put32(o, get16(r));
			put32(o + 4, get16(r + 2));
			put32(o + 8, get32(r + 4));
			put32(o + 12, get16(r + 8));
			put32(o + 16, get16(r + 10));
			memcpy(o + 20, r + 12, 8);	/* styles, light offset */
			o += 28;
		}
		break;
	case LUMP_EDGES:
	case LUMP_MARKSURFACES:	/* u16 each */
		for (uint32_t i = 0; i < len / 2; i++) {
			put32(o, get16(in + 2 * i));
			o += 4;
		}
		break;
	default:
		memcpy(o, in, len);
		o += len;
		break;
	}
	return (uint32_t)(o - out);
}

/* the BSP29 file d as a "BSP2" or "2PSB" file (malloc'd; *size in/out) */
static uint8_t *widen(const uint8_t *d, size_t *size, enum bsp_format fmt)
{
	const size_t head = 4 + 8 * BSP_NUM_LUMPS;
	uint8_t *out = calloc(1, head + 2 * *size + 4 * BSP_NUM_LUMPS);
	uint32_t num_nodes = get32(d + 8 + 8 * LUMP_NODES) / 24;
	size_t at = head;

	assert_non_null(out);
	assert_int_equal(get32(d), 29);
	memcpy(out, fmt == BSP_FMT_BSP2 ? "BSP2" : "2PSB", 4);
	for (int i = 0; i < BSP_NUM_LUMPS; i++) {
		uint32_t ofs = get32(d + 4 + 8 * i), len = get32(d + 8 + 8 * i);
		uint32_t n;

		assert_true((uint64_t)ofs + len <= *size);
		at = (at + 3) & ~(size_t)3;
		n = widen_lump(i, d + ofs, len, num_nodes, fmt, out + at);
		put32(out + 4 + 8 * i, (uint32_t)at);
		put32(out + 8 + 8 * i, n);
		at += n;
	}
	*size = at;
	return out;
}

#define ASSERT_SAME_ARRAY(a, b, field, count)                              \
	assert_memory_equal((a)->field, (b)->field,                          \
			    (size_t)(a)->count * sizeof(*(a)->field))

/* The loader must read the three encodings of one map into the same map:
 * every converted record, the hulls' roots and the PVS/PHS tables equal,
 * and the sampled contents, leafs and traces of compare_formats. */
static void widened_matches(enum bsp_format fmt)
{
	static const char *const names[] = {"small", "large"};

	for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
		size_t size = 0, wsize;
		uint8_t *d = qwd_read_file(qwd_bundled_map(names[n]), &size);
		uint8_t *w;
		struct bsp_map *a, *b;
		char err[512];

		assert_non_null(d);
		wsize = size;
		w = widen(d, &wsize, fmt);
		a = bsp_load_mem(names[n], d, size, err, sizeof(err));
		if (!a)
			fail_msg("%s", err);
		b = bsp_load_mem(fmt == BSP_FMT_BSP2 ? "bsp2" : "2psb", w, wsize,
				 err, sizeof(err));
		if (!b)
			fail_msg("%s", err);
		assert_int_equal(a->format, BSP_FMT_29);
		assert_int_equal(b->format, fmt);
		assert_true(wsize > size);
		compare_formats(a, b, 0);
		assert_int_equal(a->num_planes, b->num_planes);
		ASSERT_SAME_ARRAY(a, b, planes, num_planes);
		ASSERT_SAME_ARRAY(a, b, nodes, num_nodes);
		ASSERT_SAME_ARRAY(a, b, leafs, num_leafs);
		ASSERT_SAME_ARRAY(a, b, clipnodes, num_clipnodes);
		ASSERT_SAME_ARRAY(a, b, hull0, num_nodes);
		for (int32_t i = 0; i < a->num_models; i++) {
			const struct bsp_model *ma = &a->models[i], *mb = &b->models[i];

			assert_memory_equal(ma->headnode, mb->headnode, sizeof(ma->headnode));
			assert_int_equal(ma->visleafs, mb->visleafs);
			assert_true(vec_equal(ma->mins, mb->mins) &&
				    vec_equal(ma->maxs, mb->maxs));
		}
		assert_int_equal(a->vis_row_bytes, b->vis_row_bytes);
		assert_memory_equal(a->pvs, b->pvs,
				    (size_t)(a->num_visleafs + 1) * (size_t)a->vis_row_bytes);
		assert_memory_equal(a->phs, b->phs,
				    (size_t)(a->num_visleafs + 1) * (size_t)a->vis_row_bytes);
		/* the lumps QuakeWorld's second checksum covers did not all
		 * keep their bytes: the faces and edges widened too */
		assert_int_not_equal(a->checksum2, b->checksum2);
		bsp_free(a);
		bsp_free(b);
		free(d);
		free(w);
	}
}

static void bundled_bsp2_matches_bsp29(void **state)
{
	(void)state;
	widened_matches(BSP_FMT_BSP2);
}

static void bundled_psb2_matches_bsp29(void **state)
{
	(void)state;
	widened_matches(BSP_FMT_2PSB);
}

/* ---- corrupt variants ------------------------------------------------- */

struct raw {
	uint8_t *d;
	size_t size;
};

static struct raw raw_map(const char *path)
{
	struct raw r = {0};

	r.d = qwd_read_file(path, &r.size);
	if (!r.d)
		fail_msg("%s: cannot read the map", path);
	return r;
}

/* run one corrupt variant on the bundled small map, and on lqdm11 when
 * the community maps are there */
static void on_each_source(void (*variant)(const char *path))
{
	variant(qwd_bundled_map("small"));
	if (qwd_realmaps_dir())
		variant(qwd_realmap("lqdm11.bsp"));
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

static void truncated(const char *path)
{
	struct raw r = raw_map(path);

	r.size = 40;	/* shorter than the header */
	expect_refused(&r, "shorter than a BSP header", NULL);
	r = raw_map(path);
	r.size -= 1000;	/* the last lump now runs past the end */
	expect_refused(&r, "runs past the end of the file", NULL);
}

static void offset_past_end(const char *path)
{
	struct raw r = raw_map(path);

	put32(r.d + 4 + 8 * LUMP_LEAFS, (uint32_t)r.size + 4);
	expect_refused(&r, "lump leafs:", "runs past the end of the file");
}

static void bad_version(const char *path)
{
	struct raw r = raw_map(path);

	put32(r.d, 30);
	expect_refused(&r, "unknown BSP version 30", NULL);
}

static void child_out_of_range(const char *path)
{
	struct raw r = raw_map(path);
	uint32_t len;
	uint8_t *nodes = lump_at(&r, LUMP_NODES, &len);

	/* BSP29 child 0x7000: not a node (the maps have hundreds) and leaf
	 * 65535-0x7000 is far beyond their leafs */
	assert_true(len / 24 < 0x7000);
	put16(nodes + 24 * 5 + 4, 0x7000);
	expect_refused(&r, "lump nodes: node 5 child 0 is leaf", "out of range");

	r = raw_map(path);
	uint8_t *clip = lump_at(&r, LUMP_CLIPNODES, &len);
	assert_true(len / 8 < 0x9000);
	put16(clip + 8 * 7 + 6, 0x9000);
	expect_refused(&r, "lump clipnodes: clipnode 7 child 1", "neither a clipnode");
}

static void bad_plane(const char *path)
{
	struct raw r = raw_map(path);
	uint8_t *nodes = lump_at(&r, LUMP_NODES, NULL);

	put32(nodes + 24 * 3, 999999);
	expect_refused(&r, "lump nodes: node 3 plane 999999 out of range", NULL);
}

static void node_cycle(const char *path)
{
	struct raw r = raw_map(path);
	uint32_t len;
	uint8_t *nodes = lump_at(&r, LUMP_NODES, &len);
	uint8_t *models = lump_at(&r, LUMP_MODELS, NULL);
	uint32_t root = get32(models + 36);
	uint32_t child = get16(nodes + 24 * root + 4);

	assert_true(child < len / 24);	/* the root's front child is a node */
	/* point that child back at the root */
	put16(nodes + 24 * child + 4, (uint16_t)root);
	expect_refused(&r, "lump nodes:", "makes a cycle");
}

static void clipnode_cycle(const char *path)
{
	struct raw r = raw_map(path);
	uint8_t *clip = lump_at(&r, LUMP_CLIPNODES, NULL);
	uint8_t *models = lump_at(&r, LUMP_MODELS, NULL);
	uint32_t root = get32(models + 40);

	put16(clip + 8 * root + 4, (uint16_t)root);	/* a self-loop */
	expect_refused(&r, "lump clipnodes:", "makes a cycle");
}

static void absurd_count(const char *path)
{
	struct raw r = raw_map(path);
	uint8_t *tex = lump_at(&r, LUMP_TEXTURES, NULL);

	put32(tex, 0x7fffffff);
	expect_refused(&r, "lump textures: texture count 2147483647", NULL);

	r = raw_map(path);
	put32(r.d + 8 + 8 * LUMP_NODES, 0x7ffffff0);	/* absurd node lump length */
	expect_refused(&r, "lump nodes:", NULL);
}

static void bad_visofs(const char *path)
{
	struct raw r = raw_map(path);
	uint32_t vislen;
	uint8_t *leafs = lump_at(&r, LUMP_LEAFS, NULL);

	lump_at(&r, LUMP_VISIBILITY, &vislen);
	assert_true(vislen > 0);
	put32(leafs + 28 * 9 + 4, vislen + 100);
	expect_refused(&r, "lump leafs: leaf 9 visibility offset", "out of range");
}

static void vis_overrun(const char *path)
{
	struct raw r = raw_map(path);
	uint32_t vislen;
	uint8_t *leafs = lump_at(&r, LUMP_LEAFS, NULL);

	lump_at(&r, LUMP_VISIBILITY, &vislen);
	assert_true(vislen > 0);
	/* a row that starts on the last byte cannot be complete */
	put32(leafs + 28 * 9 + 4, vislen - 1);
	expect_refused(&r, "lump visibility:", NULL);
}

static void bad_contents(const char *path)
{
	struct raw r = raw_map(path);
	uint8_t *leafs = lump_at(&r, LUMP_LEAFS, NULL);

	put32(leafs + 28 * 4, 7);
	expect_refused(&r, "lump leafs: leaf 4 contents 7", NULL);
}

static void model_headnode(const char *path)
{
	struct raw r = raw_map(path);
	uint32_t len;
	uint8_t *models = lump_at(&r, LUMP_MODELS, &len);

	assert_true(len >= 2 * 64);	/* a brush entity: model 1 */
	put32(models + 64 + 40, 123456);	/* model 1, hull 1 */
	expect_refused(&r, "lump models: model 1 hull 1 head 123456", NULL);
}

/* found by the fuzzer: a world tree reaching leafs that have no PVS row */
static void world_leaf_past_visleafs(const char *path)
{
	struct raw r = raw_map(path);
	uint8_t *models = lump_at(&r, LUMP_MODELS, NULL);

	assert_true(get32(models + 52) > 5);
	put32(models + 52, 5);	/* the world's visleafs down to 5 */
	expect_refused(&r, "lump nodes: world node", "beyond the 5 leafs");
}

static void bad_entities(const char *path)
{
	struct raw r = raw_map(path);
	uint32_t len;
	char *ents = (char *)lump_at(&r, LUMP_ENTITIES, &len);
	char *close = memchr(ents, '}', len);

	assert_non_null(close);
	*close = ' ';	/* the worldspawn block never closes */
	expect_refused(&r, "lump entities: line", NULL);
}

/* Every single-byte truncation point of the header region and a sweep of
 * sizes must be refused cleanly (the sanitizer build checks memory). */
static void truncations(const char *path)
{
	struct raw r = raw_map(path);
	char err[512];

	for (size_t n = 0; n < r.size; n += n < 256 ? 1 : 4093) {
		struct bsp_map *m = bsp_load_mem("t.bsp", r.d, n, err, sizeof(err));

		if (m)
			fail_msg("%s truncated to %zu bytes but accepted", path, n);
	}
	free(r.d);
}

#define CORRUPT_TEST(name, variant)                  \
	static void name(void **state)               \
	{                                            \
		(void)state;                         \
		on_each_source(variant);             \
	}

CORRUPT_TEST(corrupt_truncated, truncated)
CORRUPT_TEST(corrupt_offset_past_end, offset_past_end)
CORRUPT_TEST(corrupt_bad_version, bad_version)
CORRUPT_TEST(corrupt_child_out_of_range, child_out_of_range)
CORRUPT_TEST(corrupt_bad_plane, bad_plane)
CORRUPT_TEST(corrupt_node_cycle, node_cycle)
CORRUPT_TEST(corrupt_clipnode_cycle, clipnode_cycle)
CORRUPT_TEST(corrupt_absurd_count, absurd_count)
CORRUPT_TEST(corrupt_bad_visofs, bad_visofs)
CORRUPT_TEST(corrupt_vis_overrun, vis_overrun)
CORRUPT_TEST(corrupt_bad_contents, bad_contents)
CORRUPT_TEST(corrupt_model_headnode, model_headnode)
CORRUPT_TEST(corrupt_world_leaf_past_visleafs, world_leaf_past_visleafs)
CORRUPT_TEST(corrupt_entities, bad_entities)
CORRUPT_TEST(truncation_sweep, truncations)

static void missing_file(void **state)
{
	char err[256];

	(void)state;
	assert_null(bsp_load("/nonexistent/x.bsp", err, sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent/x.bsp"));
}

static const struct CMUnitTest bsp_tests[] = {
	cmocka_unit_test(bundled_load_with_checksums),
	cmocka_unit_test(checksums_follow_lumps),
	cmocka_unit_test(realmaps_load_with_checksums),
	cmocka_unit_test(bundled_beyond_classic_limits),
	cmocka_unit_test(beyond_classic_limits),
	cmocka_unit_test(bundled_bsp2_matches_bsp29),
	cmocka_unit_test(bundled_psb2_matches_bsp29),
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
