/*
 * test_compile.c -- compile the test maps and check the result the way the
 * server sees it: through qwd's own loader (bsp_load_mem), point contents,
 * hull traces and the PVS; plus the render lumps read raw.
 *
 * Design note: the maps live in tests/qwmap/maps/ (the tests run from the
 * repository root; $QWD_QWMAP_MAPS overrides the folder).  Each map's
 * header comment gives the coordinates the checks below rely on.  Raw lump
 * checks read the file bytes with small bounds-checked helpers, since the
 * loader keeps only what the server needs.
 */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/qwmap/qwmap.h"
#include "qwd/world.h"

static const char *maps_dir(void)
{
	const char *d = getenv("QWD_QWMAP_MAPS");

	return d && *d ? d : "tests/qwmap/maps";
}

struct compiled {
	struct qm_output out;
	struct bsp_map *map;
	char err[1024];
	int rc;
};

static void compile_text(const char *text, bool allow_leak, struct compiled *c)
{
	struct qm_ctx ctx = {"t.map", c->err, sizeof(c->err), NULL, 0};
	struct qm_options opt = {allow_leak};
	char lerr[512];

	memset(&c->out, 0, sizeof(c->out));
	c->map = NULL;
	c->err[0] = '\0';
	c->rc = qm_compile(&ctx, text, strlen(text), &opt, &c->out);
	if (c->rc != 0)
		return;
	c->map = bsp_load_mem("t.bsp", c->out.data, c->out.size, lerr, sizeof(lerr));
	if (!c->map)
		fail_msg("the loader refused the compiled map: %s", lerr);
}

static void compile_file(const char *file, struct compiled *c)
{
	char path[1024];
	size_t size;
	uint8_t *text;

	snprintf(path, sizeof(path), "%s/%s", maps_dir(), file);
	text = qwd_read_file(path, &size);
	if (!text)
		fail_msg("cannot read %s (run the tests from the repository root)", path);
	text[size] = '\0';
	compile_text((const char *)text, false, c);
	free(text);
	if (c->rc != 0)
		fail_msg("%s: %s", file, c->err);
}

static void release(struct compiled *c)
{
	bsp_free(c->map);
	qm_output_free(&c->out);
}

static int contents_at(const struct bsp_map *m, float x, float y, float z)
{
	vec3_t p = {x, y, z};

	return bsp_point_contents(m, p);
}

static int hull_contents_at(const struct bsp_map *m, int model, int hull,
			    float x, float y, float z)
{
	const struct bsp_hull *h = &m->models[model].hulls[hull];
	vec3_t p = {x, y, z};

	return bsp_hull_point_contents(h, h->firstclipnode, p);
}

static int32_t leaf_at(const struct bsp_map *m, float x, float y, float z)
{
	vec3_t p = {x, y, z};

	return bsp_point_leaf(m, p);
}

/* ---- raw lumps -------------------------------------------------------- */

struct lump_view {
	const uint8_t *p;
	uint32_t len;
};

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static float rdf(const uint8_t *p)
{
	uint32_t u = rd32(p);
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static struct lump_view lump(const struct qm_output *o, int i)
{
	struct lump_view v;
	uint32_t ofs = rd32(o->data + 4 + 8 * i), len = rd32(o->data + 8 + 8 * i);

	assert_true((uint64_t)ofs + len <= o->size);
	v.p = o->data + ofs;
	v.len = len;
	return v;
}

/* vertex k of face f */
static void face_vertex(const struct qm_output *o, uint32_t f, uint32_t k, float v[3])
{
	struct lump_view faces = lump(o, LUMP_FACES), se = lump(o, LUMP_SURFEDGES);
	struct lump_view ed = lump(o, LUMP_EDGES), vx = lump(o, LUMP_VERTEXES);
	int32_t e = (int32_t)rd32(se.p + 4 * (rd32(faces.p + 20 * f + 4) + k));
	uint32_t vi = e >= 0 ? rd16(ed.p + 4 * (uint32_t)e) : rd16(ed.p + 4 * (uint32_t)-e + 2);

	assert_true(12 * vi + 12 <= vx.len);
	for (int i = 0; i < 3; i++)
		v[i] = rdf(vx.p + 12 * vi + 4 * i);
}

static const char *face_texture(const struct qm_output *o, uint32_t f, int32_t *flags)
{
	struct lump_view faces = lump(o, LUMP_FACES), ti = lump(o, LUMP_TEXINFO);
	struct lump_view tx = lump(o, LUMP_TEXTURES);
	uint32_t t = rd16(faces.p + 20 * f + 10);
	uint32_t mt = rd32(ti.p + 40 * t + 32);

	*flags = (int32_t)rd32(ti.p + 40 * t + 36);
	return (const char *)tx.p + rd32(tx.p + 4 + 4 * mt);
}

/* ---- tests ------------------------------------------------------------ */

static void test_room(void **state)
{
	struct compiled c;

	(void)state;
	compile_file("room.map", &c);
	assert_int_equal(c.map->num_models, 1);
	assert_int_equal(c.map->num_visleafs, 1);
	assert_int_equal(contents_at(c.map, 256, 256, 64), CONTENTS_EMPTY);
	assert_int_equal(contents_at(c.map, 511, 1, 255), CONTENTS_EMPTY);
	assert_int_equal(contents_at(c.map, -8, 256, 64), CONTENTS_SOLID);
	assert_int_equal(contents_at(c.map, 256, 256, 264), CONTENTS_SOLID);
	/* outside the walls: filled */
	assert_int_equal(contents_at(c.map, -100, 256, 64), CONTENTS_SOLID);
	assert_int_equal(contents_at(c.map, 5000, 5000, 5000), CONTENTS_SOLID);
	assert_int_equal(hull_contents_at(c.map, 0, 1, 256, 256, 64), CONTENTS_EMPTY);
	assert_int_equal(hull_contents_at(c.map, 0, 1, -100, 256, 64), CONTENTS_SOLID);
	/* the world model's bounds are the brushes' */
	assert_true(c.map->models[0].mins[0] == -16 && c.map->models[0].maxs[2] == 272);
	/* the entity lump is the source's entities */
	assert_int_equal(c.map->ents.num_ents, 3);
	assert_string_equal(ent_value(&c.map->ents, 1, "classname"), "info_player_start");
	assert_string_equal(ent_value(&c.map->ents, 0, "mapversion"), "220");
	/* one leaf sees every face */
	struct lump_view lf = lump(&c.out, LUMP_LEAFS);

	assert_int_equal(rd16(lf.p + 28 + 22), lump(&c.out, LUMP_FACES).len / 20);
	release(&c);
}

/* Hull 1 and 2 traces stop where the player or large box touches a wall:
 * the brushes are grown by the box (mins - hull maxs .. maxs - hull mins). */
static void test_hull_traces(void **state)
{
	static const struct {
		int hull;
		float end[3];
		int axis;
		float stop;
	} cases[] = {
		{1, {1000, 256, 64}, 0, 512 - 16},
		{1, {-1000, 256, 64}, 0, 16},
		{1, {256, 256, -1000}, 2, 24},
		{1, {256, 256, 1000}, 2, 256 - 32},
		{2, {1000, 256, 80}, 0, 512 - 32},
		{2, {256, -1000, 80}, 1, 32},
		{2, {256, 256, 1000}, 2, 256 - 64},
		{2, {256, 256, -1000}, 2, 24},
	};
	struct compiled c;

	(void)state;
	compile_file("room.map", &c);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		vec3_t start = {256, 256, cases[i].hull == 2 ? 80 : 64};
		struct trace tr;

		bsp_trace_hull(&c.map->models[0].hulls[cases[i].hull], start,
			       cases[i].end, &tr);
		assert_false(tr.startsolid);
		assert_true(tr.fraction < 1);
		if (fabsf(tr.endpos[cases[i].axis] - cases[i].stop) > 0.1f)
			fail_msg("hull %d to (%g %g %g): stopped at %g, want %g", cases[i].hull,
				 (double)cases[i].end[0], (double)cases[i].end[1],
				 (double)cases[i].end[2], (double)tr.endpos[cases[i].axis],
				 (double)cases[i].stop);
	}
	/* a point trace goes to the wall itself */
	{
		vec3_t start = {256, 256, 64}, end = {1000, 256, 64};
		struct trace tr;

		bsp_trace_hull(&c.map->models[0].hulls[0], start, end, &tr);
		assert_true(fabsf(tr.endpos[0] - 512) < 0.1f);
	}
	release(&c);
}

/* The grown box keeps its corners: diagonally off a pillar's corner the
 * player box still hits it (no rounding, no bevel needed for boxes). */
static void test_hull_corners_and_clip(void **state)
{
	struct compiled c;

	(void)state;
	compile_file("door.map", &c);
	/* the clip pillar x 16..48, y 16..48, z 0..64 in room A */
	assert_int_equal(contents_at(c.map, 32, 32, 32), CONTENTS_EMPTY);
	assert_int_equal(hull_contents_at(c.map, 0, 1, 48 + 15, 48 + 15, 24), CONTENTS_SOLID);
	assert_int_equal(hull_contents_at(c.map, 0, 1, 48 + 17, 48 + 17, 24), CONTENTS_EMPTY);
	assert_int_equal(hull_contents_at(c.map, 0, 2, 48 + 31, 48 + 31, 40), CONTENTS_SOLID);
	assert_int_equal(hull_contents_at(c.map, 0, 2, 48 + 33, 48 + 33, 40), CONTENTS_EMPTY);
	/* above the pillar: its top grown by the box's -24 */
	assert_int_equal(hull_contents_at(c.map, 0, 1, 32, 32, 64 + 23), CONTENTS_SOLID);
	assert_int_equal(hull_contents_at(c.map, 0, 1, 32, 32, 64 + 25), CONTENTS_EMPTY);
	release(&c);
}

static void test_brush_entities(void **state)
{
	struct compiled c;
	const struct bsp_model *door;

	(void)state;
	compile_file("door.map", &c);
	/* world, door, trigger; the func_group went into the world */
	assert_int_equal(c.map->num_models, 3);
	assert_int_equal(c.map->ents.num_ents, 4);
	assert_string_equal(ent_value(&c.map->ents, 2, "classname"), "func_door");
	assert_string_equal(ent_value(&c.map->ents, 2, "model"), "*1");
	assert_string_equal(ent_value(&c.map->ents, 2, "speed"), "100");
	assert_string_equal(ent_value(&c.map->ents, 3, "model"), "*2");
	assert_null(ent_value(&c.map->ents, 0, "model"));
	for (uint32_t e = 0; e < c.map->ents.num_ents; e++)
		assert_string_not_equal(ent_value(&c.map->ents, e, "classname"), "func_group");
	door = &c.map->models[1];
	assert_true(door->mins[0] == 272 && door->maxs[0] == 304);
	assert_true(door->mins[1] == 64 && door->maxs[1] == 192);
	assert_true(door->mins[2] == 0 && door->maxs[2] == 112);
	assert_true(door->numfaces > 0);
	/* the door is not in the world; the grouped pillar is */
	assert_int_equal(contents_at(c.map, 288, 128, 56), CONTENTS_EMPTY);
	assert_int_equal(contents_at(c.map, 464, 192, 64), CONTENTS_SOLID);
	assert_int_equal(hull_contents_at(c.map, 1, 0, 288, 128, 56), CONTENTS_SOLID);
	assert_int_equal(hull_contents_at(c.map, 1, 0, 250, 128, 56), CONTENTS_EMPTY);
	assert_int_equal(hull_contents_at(c.map, 1, 1, 272 - 15, 128, 56), CONTENTS_SOLID);
	assert_int_equal(hull_contents_at(c.map, 1, 1, 272 - 17, 128, 56), CONTENTS_EMPTY);
	assert_int_equal(hull_contents_at(c.map, 1, 2, 304 + 31, 128, 56), CONTENTS_SOLID);
	/* the trigger's model is solid inside its own box */
	assert_int_equal(hull_contents_at(c.map, 2, 0, 400, 100, 30), CONTENTS_SOLID);
	/* a player walking into the closed door is stopped by it */
	{
		vec3_t org = {0, 0, 0}, mins = {-16, -16, -24}, maxs = {16, 16, 32};
		vec3_t start = {200, 128, 40}, end = {400, 128, 40};
		struct trace tr;

		bsp_trace_box(c.map, 1, org, mins, maxs, start, end, &tr);
		assert_true(tr.fraction < 1);
		assert_true(fabsf(tr.endpos[0] - (272 - 16)) < 0.1f);
	}
	release(&c);
}

static void test_liquids_and_sky(void **state)
{
	struct compiled c;
	int specials = 0;

	(void)state;
	compile_file("liquids.map", &c);
	assert_int_equal(contents_at(c.map, 128, 128, -32), CONTENTS_WATER);
	assert_int_equal(contents_at(c.map, 384, 128, -32), CONTENTS_SLIME);
	assert_int_equal(contents_at(c.map, 640, 128, -32), CONTENTS_LAVA);
	assert_int_equal(contents_at(c.map, 384, 128, 288), CONTENTS_SKY);
	assert_int_equal(contents_at(c.map, 384, 128, 128), CONTENTS_EMPTY);
	assert_int_equal(contents_at(c.map, 128, 128, -4), CONTENTS_EMPTY);
	assert_int_equal(contents_at(c.map, 128, 128, -70), CONTENTS_SOLID);
	/* liquids do not block movement; the sky does */
	assert_int_equal(hull_contents_at(c.map, 0, 1, 128, 128, -30), CONTENTS_EMPTY);
	assert_int_equal(hull_contents_at(c.map, 0, 1, 384, 128, 230), CONTENTS_SOLID);
	assert_int_equal(hull_contents_at(c.map, 0, 1, 384, 128, 220), CONTENTS_EMPTY);
	/* water is transparent to vis: the room sees into the pools */
	{
		const uint8_t *row = bsp_leaf_pvs(c.map, leaf_at(c.map, 384, 128, 128));

		assert_true(bsp_vis_test(row, leaf_at(c.map, 128, 128, -32)));
		assert_true(bsp_vis_test(row, leaf_at(c.map, 640, 128, -32)));
		row = bsp_leaf_pvs(c.map, leaf_at(c.map, 128, 128, -32));
		assert_true(bsp_vis_test(row, leaf_at(c.map, 384, 128, 128)));
	}
	/* sky and liquid faces are special (no lightmap, drawn by the client) */
	for (uint32_t f = 0; f < lump(&c.out, LUMP_FACES).len / 20; f++) {
		int32_t flags;
		const char *name = face_texture(&c.out, f, &flags);
		bool special = name[0] == '*' || strncmp(name, "sky", 3) == 0;

		assert_int_equal(flags, special ? QM_TEX_SPECIAL : 0);
		specials += special;
	}
	assert_true(specials > 0);
	/* the sky texture is two 128x128 layers */
	{
		struct lump_view tx = lump(&c.out, LUMP_TEXTURES);
		int32_t n = (int32_t)rd32(tx.p);
		bool found = false;

		for (int32_t i = 0; i < n; i++) {
			const uint8_t *mt = tx.p + rd32(tx.p + 4 + 4 * i);

			if (strcmp((const char *)mt, "sky1") == 0) {
				assert_int_equal(rd32(mt + 16), 256);
				assert_int_equal(rd32(mt + 20), 128);
				found = true;
			}
			/* no fullbright colours anywhere */
			for (uint32_t k = 40; k < 40 + rd32(mt + 16) * rd32(mt + 20); k++)
				assert_true(mt[k] < 224);
		}
		assert_true(found);
	}
	release(&c);
}

static void test_pvs(void **state)
{
	struct compiled c;
	int32_t a, b, corr;

	(void)state;
	/* straight corridor: the rooms' far corners see each other (points
	 * off the corridor's line, whose strip may be one leaf end to end);
	 * above the corridor's ceiling (z 96) they do not */
	compile_file("straight.map", &c);
	a = leaf_at(c.map, 32, 32, 40);
	b = leaf_at(c.map, 992, 224, 40);
	assert_true(a > 0 && b > 0 && a != b);
	assert_true(bsp_vis_test(bsp_leaf_pvs(c.map, a), b));
	assert_true(bsp_vis_test(bsp_leaf_pvs(c.map, b), a));
	assert_true(bsp_vis_test(bsp_leaf_pvs(c.map, a), a));
	assert_false(bsp_vis_test(bsp_leaf_pvs(c.map, leaf_at(c.map, 32, 32, 112)),
				  leaf_at(c.map, 992, 224, 112)));
	release(&c);

	/* U-shaped corridor: no line of sight between the rooms, and the far
	 * side of the corridor is hidden too; the corridor's first leg is seen */
	compile_file("ushape.map", &c);
	a = leaf_at(c.map, 32, 32, 112);
	b = leaf_at(c.map, 32, 736, 112);
	corr = leaf_at(c.map, 400, 128, 48);
	assert_true(a > 0 && b > 0 && corr > 0);
	assert_false(bsp_vis_test(bsp_leaf_pvs(c.map, a), b));
	assert_false(bsp_vis_test(bsp_leaf_pvs(c.map, b), a));
	assert_false(bsp_vis_test(bsp_leaf_pvs(c.map, a), leaf_at(c.map, 400, 640, 48)));
	assert_true(bsp_vis_test(bsp_leaf_pvs(c.map, a), corr));
	/* the corridor's turn sees both legs */
	{
		int32_t turn = leaf_at(c.map, 608, 400, 48);

		assert_true(bsp_vis_test(bsp_leaf_pvs(c.map, turn), corr));
		assert_true(bsp_vis_test(bsp_leaf_pvs(c.map, turn),
					 leaf_at(c.map, 400, 640, 48)));
	}
	release(&c);
}

/* Vis never hides what a straight line can see: sample segments between
 * random points of the open space of a map; when the segment stays in open
 * space (point contents along it), the leafs of its ends see each other. */
static void test_pvs_conservative(void **state)
{
	static const char *files[] = {"straight.map", "ushape.map", "door.map", "liquids.map"};
	uint32_t seed = 12345;

	(void)state;
	for (size_t fi = 0; fi < sizeof(files) / sizeof(files[0]); fi++) {
		struct compiled c;
		int checked = 0;

		compile_file(files[fi], &c);
		const struct bsp_model *w = &c.map->models[0];

		for (int i = 0; i < 4000; i++) {
			float p[2][3];
			bool open = true;

			for (int k = 0; k < 2; k++)
				for (int j = 0; j < 3; j++) {
					seed = seed * 1103515245u + 12345u;
					p[k][j] = w->mins[j] + (w->maxs[j] - w->mins[j]) *
						  (float)((seed >> 8) & 0xffff) / 65536.0f;
				}
			for (int s = 0; s <= 256 && open; s++) {
				float t = (float)s / 256;
				int ct = contents_at(c.map, p[0][0] + t * (p[1][0] - p[0][0]),
						     p[0][1] + t * (p[1][1] - p[0][1]),
						     p[0][2] + t * (p[1][2] - p[0][2]));

				open = ct == CONTENTS_EMPTY || ct == CONTENTS_WATER ||
				       ct == CONTENTS_SLIME || ct == CONTENTS_LAVA;
			}
			if (!open)
				continue;
			int32_t la = leaf_at(c.map, p[0][0], p[0][1], p[0][2]);
			int32_t lb = leaf_at(c.map, p[1][0], p[1][1], p[1][2]);

			if (!bsp_vis_test(bsp_leaf_pvs(c.map, la), lb))
				fail_msg("%s: (%g %g %g) sees (%g %g %g) but leaf %d's PVS lacks leaf %d",
					 files[fi], (double)p[0][0], (double)p[0][1], (double)p[0][2],
					 (double)p[1][0], (double)p[1][1], (double)p[1][2], la, lb);
			checked++;
		}
		assert_true(checked > 20);
		release(&c);
	}
}

static void test_deterministic(void **state)
{
	static const char *files[] = {"room.map", "straight.map", "ushape.map",
				      "liquids.map", "door.map"};

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct compiled a, b;

		compile_file(files[i], &a);
		compile_file(files[i], &b);
		assert_int_equal(a.out.size, b.out.size);
		assert_memory_equal(a.out.data, b.out.data, a.out.size);
		assert_int_equal(a.map->checksum2, b.map->checksum2);
		release(&a);
		release(&b);
	}
}

/* Clients refuse lit faces whose texture extents pass 256 texels: faces
 * are cut so that none does, whatever the texture scale and rotation. */
static void test_texture_extents(void **state)
{
	const char *text =
		"{\n\"classname\" \"worldspawn\"\n"
		"{\n"
		"( -16 512 -16 ) ( -16 -16 272 ) ( -16 -16 -16 ) a 0 0 0 0.25 0.5\n"
		"( 0 -16 -16 ) ( 0 -16 272 ) ( 0 512 -16 ) a 0 0 0 0.25 0.5\n"
		"( -16 -16 272 ) ( 0 -16 -16 ) ( -16 -16 -16 ) a 0 0 0 0.25 0.5\n"
		"( -16 512 -16 ) ( 0 512 -16 ) ( -16 512 272 ) a 0 0 0 0.25 0.5\n"
		"( 0 -16 -16 ) ( -16 512 -16 ) ( -16 -16 -16 ) a 0 0 0 0.25 0.5\n"
		"( -16 -16 272 ) ( -16 512 272 ) ( 0 -16 272 ) a 0 0 0 0.25 0.5\n"
		"}\n"
		"{\n"
		"( 512 512 -16 ) ( 512 -16 272 ) ( 512 -16 -16 ) b 3 7 33 1 1\n"
		"( 528 -16 -16 ) ( 528 -16 272 ) ( 528 512 -16 ) b 3 7 33 1 1\n"
		"( 512 -16 272 ) ( 528 -16 -16 ) ( 512 -16 -16 ) b 3 7 33 1 1\n"
		"( 512 512 -16 ) ( 528 512 -16 ) ( 512 512 272 ) b 3 7 33 1 1\n"
		"( 528 -16 -16 ) ( 512 512 -16 ) ( 512 -16 -16 ) b 3 7 33 1 1\n"
		"( 512 -16 272 ) ( 512 512 272 ) ( 528 -16 272 ) b 3 7 33 1 1\n"
		"}\n"
		"{\n"
		"( 0 0 -16 ) ( 0 -16 0 ) ( 0 -16 -16 ) c 0 0 0 3 3\n"
		"( 512 -16 -16 ) ( 512 -16 0 ) ( 512 0 -16 ) c 0 0 0 3 3\n"
		"( 0 -16 0 ) ( 512 -16 -16 ) ( 0 -16 -16 ) c 0 0 0 3 3\n"
		"( 0 512 -16 ) ( 512 512 -16 ) ( 0 512 0 ) c 0 0 0 3 3\n"
		"( 512 -16 -16 ) ( 0 512 -16 ) ( 0 -16 -16 ) c 0 0 0 3 3\n"
		"( 0 -16 0 ) ( 0 512 0 ) ( 512 -16 0 ) c 0 0 0 3 3\n"
		"}\n"
		"{\n"
		"( 0 0 256 ) ( 0 -16 272 ) ( 0 -16 256 ) d 0 0 45 0.5 1\n"
		"( 512 -16 256 ) ( 512 -16 272 ) ( 512 0 256 ) d 0 0 45 0.5 1\n"
		"( 0 -16 272 ) ( 512 -16 256 ) ( 0 -16 256 ) d 0 0 45 0.5 1\n"
		"( 0 512 256 ) ( 512 512 256 ) ( 0 512 272 ) d 0 0 45 0.5 1\n"
		"( 512 -16 256 ) ( 0 512 256 ) ( 0 -16 256 ) d 0 0 45 0.5 1\n"
		"( 0 -16 272 ) ( 0 512 272 ) ( 512 -16 272 ) d 0 0 45 0.5 1\n"
		"}\n"
		"{\n"
		"( 0 0 0 ) ( 0 -16 256 ) ( 0 -16 0 ) e 0 0 0 1 1\n"
		"( 512 -16 0 ) ( 512 -16 256 ) ( 512 0 0 ) e 0 0 0 1 1\n"
		"( 0 -16 256 ) ( 512 -16 0 ) ( 0 -16 0 ) e 0 0 0 1 1\n"
		"( 0 0 0 ) ( 512 0 0 ) ( 0 0 256 ) e 0 0 0 1 1\n"
		"( 512 -16 0 ) ( 0 0 0 ) ( 0 -16 0 ) e 0 0 0 1 1\n"
		"( 0 -16 256 ) ( 0 0 256 ) ( 512 -16 256 ) e 0 0 0 1 1\n"
		"}\n"
		"{\n"
		"( 0 512 0 ) ( 0 496 256 ) ( 0 496 0 ) e 0 0 0 1 1\n"
		"( 512 496 0 ) ( 512 496 256 ) ( 512 512 0 ) e 0 0 0 1 1\n"
		"( 0 496 256 ) ( 512 496 0 ) ( 0 496 0 ) e 0 0 0 1 1\n"
		"( 0 512 0 ) ( 512 512 0 ) ( 0 512 256 ) e 0 0 0 1 1\n"
		"( 512 496 0 ) ( 0 512 0 ) ( 0 496 0 ) e 0 0 0 1 1\n"
		"( 0 496 256 ) ( 0 512 256 ) ( 512 496 256 ) e 0 0 0 1 1\n"
		"}\n"
		"}\n"
		"{\n\"classname\" \"info_player_start\"\n\"origin\" \"256 256 64\"\n}\n";
	struct compiled c;
	struct lump_view faces, ti;

	(void)state;
	compile_text(text, false, &c);
	if (c.rc)
		fail_msg("%s", c.err);
	faces = lump(&c.out, LUMP_FACES);
	ti = lump(&c.out, LUMP_TEXINFO);
	for (uint32_t f = 0; f < faces.len / 20; f++) {
		uint32_t n = rd16(faces.p + 20 * f + 8), t = rd16(faces.p + 20 * f + 10);
		float mins[2] = {1e30f, 1e30f}, maxs[2] = {-1e30f, -1e30f};

		for (uint32_t k = 0; k < n; k++) {
			float v[3];

			face_vertex(&c.out, f, k, v);
			for (int a = 0; a < 2; a++) {
				double s = (double)v[0] * rdf(ti.p + 40 * t + 16 * a) +
					   (double)v[1] * rdf(ti.p + 40 * t + 16 * a + 4) +
					   (double)v[2] * rdf(ti.p + 40 * t + 16 * a + 8) +
					   rdf(ti.p + 40 * t + 16 * a + 12);

				if (s < mins[a])
					mins[a] = (float)s;
				if (s > maxs[a])
					maxs[a] = (float)s;
			}
		}
		for (int a = 0; a < 2; a++) {
			int ext = ((int)ceil(maxs[a] / 16) - (int)floor(mins[a] / 16)) * 16;

			if (ext > 240)
				fail_msg("face %u has texture extents %d", f, ext);
		}
	}
	release(&c);
}

/* Every face is a convex polygon whose vertices wind clockwise seen from
 * the side it faces (as qbsp writes them), lies on its plane, and every
 * edge but edge 0 is used at most once in each direction. */
static void test_face_geometry(void **state)
{
	static const char *files[] = {"room.map", "door.map", "liquids.map"};

	(void)state;
	for (size_t fi = 0; fi < sizeof(files) / sizeof(files[0]); fi++) {
		struct compiled c;
		struct lump_view faces, planes, se, ed;
		uint8_t *used;

		compile_file(files[fi], &c);
		faces = lump(&c.out, LUMP_FACES);
		planes = lump(&c.out, LUMP_PLANES);
		se = lump(&c.out, LUMP_SURFEDGES);
		ed = lump(&c.out, LUMP_EDGES);
		used = calloc(ed.len / 4 + 1, 1);
		for (uint32_t f = 0; f < faces.len / 20; f++) {
			uint32_t pl = rd16(faces.p + 20 * f), side = rd16(faces.p + 20 * f + 2);
			uint32_t first = rd32(faces.p + 20 * f + 4), n = rd16(faces.p + 20 * f + 8);
			double nrm[3] = {0, 0, 0}, want[3];
			float v[64][3];

			assert_true(n >= 3 && n <= 64);
			for (uint32_t k = 0; k < n; k++) {
				int32_t e = (int32_t)rd32(se.p + 4 * (first + k));
				uint32_t ae = (uint32_t)(e < 0 ? -e : e);

				assert_true(ae > 0);
				assert_false(used[ae] & (e < 0 ? 2 : 1));
				used[ae] |= e < 0 ? 2 : 1;
				face_vertex(&c.out, f, k, v[k]);
			}
			for (int j = 0; j < 3; j++)
				want[j] = rdf(planes.p + 20 * pl + 4 * j) * (side ? -1 : 1);
			/* on the plane */
			for (uint32_t k = 0; k < n; k++) {
				double d = v[k][0] * rdf(planes.p + 20 * pl) +
					   v[k][1] * rdf(planes.p + 20 * pl + 4) +
					   v[k][2] * rdf(planes.p + 20 * pl + 8) -
					   rdf(planes.p + 20 * pl + 12);

				assert_true(fabs(d) < 0.01);
			}
			/* clockwise from the front: the Newell normal points back */
			for (uint32_t k = 0; k < n; k++) {
				const float *a = v[k], *b = v[(k + 1) % n];

				nrm[0] += (double)(a[1] - b[1]) * (a[2] + b[2]);
				nrm[1] += (double)(a[2] - b[2]) * (a[0] + b[0]);
				nrm[2] += (double)(a[0] - b[0]) * (a[1] + b[1]);
			}
			assert_true(nrm[0] * want[0] + nrm[1] * want[1] + nrm[2] * want[2] < 0);
		}
		free(used);
		release(&c);
	}
}

static void test_leak(void **state)
{
	char path[1024];
	size_t size;
	uint8_t *text;
	struct compiled c;

	(void)state;
	snprintf(path, sizeof(path), "%s/leak.map", maps_dir());
	text = qwd_read_file(path, &size);
	assert_non_null(text);
	text[size] = '\0';
	compile_text((const char *)text, false, &c);
	assert_int_equal(c.rc, -1);
	/* the info_player_start's entity opens on line 79 of leak.map */
	if (strncmp(c.err, "t.map:79: leak: entity 1 (info_player_start)",
		    strlen("t.map:79: leak: entity 1 (info_player_start)")) != 0)
		fail_msg("got \"%s\"", c.err);
	assert_non_null(c.out.pointfile);
	assert_memory_equal(c.out.pointfile, "256 256 64\n", 11);
	assert_null(c.out.data);
	qm_output_free(&c.out);

	/* allowed: written unfilled, without vis */
	compile_text((const char *)text, true, &c);
	assert_int_equal(c.rc, 0);
	assert_true(c.out.stats.leaked);
	assert_int_equal(c.map->vis_size, 0);
	assert_int_equal(contents_at(c.map, 256, 256, 64), CONTENTS_EMPTY);
	assert_int_equal(contents_at(c.map, 256, 256, 264), CONTENTS_SOLID);
	release(&c);
	free(text);
}

static void test_compile_errors(void **state)
{
	struct compiled c;

	(void)state;
	/* no point entity: inside and outside cannot be told apart */
	compile_text("{\n\"classname\" \"worldspawn\"\n{\n"
		     "( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 64 0 0 ) ( 64 0 64 ) ( 64 64 0 ) t 0 0 0 1 1\n"
		     "( 0 0 64 ) ( 64 0 0 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 0 64 0 ) ( 64 64 0 ) ( 0 64 64 ) t 0 0 0 1 1\n"
		     "( 64 0 0 ) ( 0 64 0 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 0 0 64 ) ( 0 64 64 ) ( 64 0 64 ) t 0 0 0 1 1\n"
		     "}\n}\n", false, &c);
	assert_int_equal(c.rc, -1);
	assert_non_null(strstr(c.err, "no point entity"));
	qm_output_free(&c.out);
	/* no brushes */
	compile_text("{\n\"classname\" \"worldspawn\"\n}\n", false, &c);
	assert_int_equal(c.rc, -1);
	assert_non_null(strstr(c.err, "the world has no brushes"));
	qm_output_free(&c.out);
	/* a bad origin, with its entity's line */
	compile_text("{\n\"classname\" \"worldspawn\"\n{\n"
		     "( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 64 0 0 ) ( 64 0 64 ) ( 64 64 0 ) t 0 0 0 1 1\n"
		     "( 0 0 64 ) ( 64 0 0 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 0 64 0 ) ( 64 64 0 ) ( 0 64 64 ) t 0 0 0 1 1\n"
		     "( 64 0 0 ) ( 0 64 0 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 0 0 64 ) ( 0 64 64 ) ( 64 0 64 ) t 0 0 0 1 1\n"
		     "}\n}\n{\n\"classname\" \"light\"\n\"origin\" \"1 2 x\"\n}\n", false, &c);
	assert_int_equal(c.rc, -1);
	assert_non_null(strstr(c.err, "t.map:12: entity 1: bad origin"));
	qm_output_free(&c.out);
	/* animated textures the clients would refuse: a gap, a bad frame */
	compile_text("{\n\"classname\" \"worldspawn\"\n{\n"
		     "( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 ) +0lit 0 0 0 1 1\n"
		     "( 64 0 0 ) ( 64 0 64 ) ( 64 64 0 ) +0lit 0 0 0 1 1\n"
		     "( 0 0 64 ) ( 64 0 0 ) ( 0 0 0 ) +0lit 0 0 0 1 1\n"
		     "( 0 64 0 ) ( 64 64 0 ) ( 0 64 64 ) +0lit 0 0 0 1 1\n"
		     "( 64 0 0 ) ( 0 64 0 ) ( 0 0 0 ) +2lit 0 0 0 1 1\n"
		     "( 0 0 64 ) ( 0 64 64 ) ( 64 0 64 ) +Zap 0 0 0 1 1\n"
		     "}\n}\n", false, &c);
	assert_int_equal(c.rc, -1);
	if (!strstr(c.err, "t.map:4: animated texture '+0lit' has no frame 1"))
		fail_msg("got \"%s\"", c.err);
	qm_output_free(&c.out);
	compile_text("{\n\"classname\" \"worldspawn\"\n{\n"
		     "( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 64 0 0 ) ( 64 0 64 ) ( 64 64 0 ) t 0 0 0 1 1\n"
		     "( 0 0 64 ) ( 64 0 0 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 0 64 0 ) ( 64 64 0 ) ( 0 64 64 ) t 0 0 0 1 1\n"
		     "( 64 0 0 ) ( 0 64 0 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 0 0 64 ) ( 0 64 64 ) ( 64 0 64 ) +Zap 0 0 0 1 1\n"
		     "}\n}\n", false, &c);
	assert_int_equal(c.rc, -1);
	assert_non_null(strstr(c.err, "t.map:9: animated texture '+Zap'"));
	qm_output_free(&c.out);
}

/* Found by fuzz_mapsrc: sources qwmap compiled into maps the loader then
 * refused.  Now the compiler refuses them, with the reason. */
static void test_compile_refuses_unloadable(void **state)
{
	static const char skip_only[] =
		"{\n\"classname\" \"worldspawn\"\n{\n"
		"( 0 0 0 ) ( 0 32 0 ) ( 0 0 240 ) skip 0 0 0 1 1\n"
		"( 48 -24 40 ) ( 48 -16 -16 ) ( 48 -24 -16 ) skip 0 0 0 1 1\n"
		"( -16 -24 -16 ) ( -16 -24 40 ) ( 48 -24 -16 ) skip 0 0 0 1 1\n"
		"( 48 -16 -16 ) ( -16 -16 40 ) ( -16 -16 -16 ) skip 0 0 0 1 1\n"
		"( -16 -24 -16 ) ( 48 -24 -16 ) ( -16 -16 -16 ) skip 0 0 0 1 1\n"
		"( -16 -16 40 ) ( 48 -24 40 ) ( -16 -24 40 ) skip 0 0 0 1 1\n"
		"}\n}\n{\n\"classname\" \"info_null\"\n\"origin\" \"-8 -8 8\"\n}\n";
	struct compiled c;
	char path[1024], *tiny, *at;
	size_t size;
	uint8_t *text;

	(void)state;
	/* every face skip: no vertex, no edge, nothing a client could draw */
	compile_text(skip_only, true, &c);
	assert_int_equal(c.rc, -1);
	if (!strstr(c.err, "nothing to draw"))
		fail_msg("got \"%s\"", c.err);
	qm_output_free(&c.out);
	/* a scale so close to 0 that the axes overflow a float */
	snprintf(path, sizeof(path), "%s/room.map", maps_dir());
	text = qwd_read_file(path, &size);
	assert_non_null(text);
	text[size] = '\0';
	tiny = malloc(size + 32);
	assert_non_null(tiny);
	at = strstr((char *)text, "] 0 1 1");
	assert_non_null(at);
	snprintf(tiny, size + 32, "%.*s] 0 1e-300 1%s", (int)(at - (char *)text),
		 (char *)text, at + strlen("] 0 1 1"));
	compile_text(tiny, false, &c);
	assert_int_equal(c.rc, -1);
	if (!strstr(c.err, "t.map:8: texture axes out of range"))
		fail_msg("got \"%s\"", c.err);
	qm_output_free(&c.out);
	free(tiny);
	free(text);
}

static void test_rle(void **state)
{
	uint8_t row[700], out[1500];
	size_t n;

	(void)state;
	memset(row, 0, sizeof(row));
	row[0] = 0x81;
	row[600] = 0x02;
	n = qm_vis_compress(row, sizeof(row), out);
	/* 0x81, then 599 zeros as 255 + 255 + 89, 0x02, then 99 zeros */
	static const uint8_t want[] = {0x81, 0, 255, 0, 255, 0, 89, 0x02, 0, 99};

	assert_int_equal(n, sizeof(want));
	assert_memory_equal(out, want, sizeof(want));
	memset(row, 0xff, 8);
	assert_int_equal(qm_vis_compress(row, 8, out), 8);
}

static const struct CMUnitTest compile_tests[] = {
	cmocka_unit_test(test_room),
	cmocka_unit_test(test_hull_traces),
	cmocka_unit_test(test_hull_corners_and_clip),
	cmocka_unit_test(test_brush_entities),
	cmocka_unit_test(test_liquids_and_sky),
	cmocka_unit_test(test_pvs),
	cmocka_unit_test(test_pvs_conservative),
	cmocka_unit_test(test_deterministic),
	cmocka_unit_test(test_texture_extents),
	cmocka_unit_test(test_face_geometry),
	cmocka_unit_test(test_leak),
	cmocka_unit_test(test_compile_errors),
	cmocka_unit_test(test_compile_refuses_unloadable),
	cmocka_unit_test(test_rle),
};

QWD_TEST_GROUP(qwmap_compile, compile_tests, NULL, NULL)
