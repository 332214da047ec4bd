/*
 * mkseeds.c -- seed inputs for the fuzzers: tiny synthetic maps and entity
 * texts.
 *
 * Design note
 *   libFuzzer mutates small inputs far faster than the real maps (0.1 to
 *   3 MB each), and a loader spends most of its code on checks that any
 *   well-formed file reaches.  So besides copying the real maps, run.sh asks
 *   this tool for:
 *     mkseeds bsp DIR          one hand-built map in each on-disk format
 *                              (BSP29, "BSP2", "2PSB"), plus a BSP29 copy
 *                              without vis data, each a few KB;
 *     mkseeds ent DIR MAP...   a few hand-written entity texts and the
 *                              entity lump of each map (its first lump).
 *   The synthetic map is a closed 256-unit cube split at x = 0 into an
 *   empty leaf and a water leaf, with the hull 1 and hull 2 clipping boxes
 *   shrunk by the player and large box sizes, one textured face, a vis
 *   lump where both leafs see each other, and a second model that shares
 *   the world's tree.  Every index in it is valid, so mutations start from
 *   a file the loader accepts.
 *
 *   On-disk facts (id's bspfile.h, and the BSP2 layouts of the community
 *   engines): a header of a 4-byte version or magic and 15 (offset, length)
 *   lumps, all little-endian.  BSP29 keeps node and clipnode children,
 *   node/leaf boxes, face plane/side/edge counts/texinfo and edge vertices
 *   in 16 bits; "BSP2" widens all of them to 32 bits with float boxes;
 *   "2PSB" widens them too but keeps 16-bit node and leaf boxes.
 *   This tool writes only what it is told to and trusts nothing it reads:
 *   a map whose entity lump lies outside the file is skipped with a note.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum seed_fmt { FMT_29, FMT_BSP2, FMT_2PSB };

enum {
	NUM_LUMPS = 15,
	HEADER_SIZE = 4 + NUM_LUMPS * 8,
	OUT_CAP = 64 << 10,	/* the synthetic map needs about 3 KB */
	TEX_SIZE = 16		/* the one miptex is 16x16 */
};

/* lump numbers, as in the file header */
enum {
	L_ENTITIES, L_PLANES, L_TEXTURES, L_VERTEXES, L_VISIBILITY, L_NODES,
	L_TEXINFO, L_FACES, L_LIGHTING, L_CLIPNODES, L_LEAFS, L_MARKSURFACES,
	L_EDGES, L_SURFEDGES, L_MODELS
};

enum { C_EMPTY = -1, C_SOLID = -2, C_WATER = -3 };

/* A bounded output buffer: a write that does not fit sets overflow. */
struct out {
	uint8_t buf[OUT_CAP];
	size_t len;
	int overflow;
};

static void put_bytes(struct out *o, const void *p, size_t n)
{
	if (o->overflow || n > OUT_CAP - o->len) {
		o->overflow = 1;
		return;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static void put_u8(struct out *o, unsigned v)
{
	uint8_t b = (uint8_t)v;

	put_bytes(o, &b, 1);
}

static void put_u16(struct out *o, int v)
{
	uint8_t b[2] = { (uint8_t)v, (uint8_t)((unsigned)v >> 8) };

	put_bytes(o, b, 2);
}

static void put_u32(struct out *o, int64_t v)
{
	uint32_t u = (uint32_t)v;
	uint8_t b[4] = { (uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16),
			 (uint8_t)(u >> 24) };

	put_bytes(o, b, 4);
}

static void put_f32(struct out *o, float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	put_u32(o, u);
}

static void set_u32(struct out *o, size_t at, uint32_t v)
{
	if (at + 4 > o->len)
		return;
	for (int i = 0; i < 4; i++)
		o->buf[at + i] = (uint8_t)(v >> (8 * i));
}

/* a 32-bit field in BSP2/2PSB, 16-bit in BSP29 */
static void put_wide(struct out *o, enum seed_fmt f, int v)
{
	if (f == FMT_29)
		put_u16(o, v);
	else
		put_u32(o, v);
}

/* a box coordinate: float in BSP2, 16-bit integer otherwise */
static void put_coord(struct out *o, enum seed_fmt f, float v)
{
	if (f == FMT_BSP2)
		put_f32(o, v);
	else
		put_u16(o, (int)v);
}

struct plane {
	float n[3], dist;
	int type;
};

/* The planes: 0-5 the cube's walls, 6 the splitter at x = 0, 7-12 the
 * walls moved in by the player box (-16 -16 -24 .. 16 16 32), 13-17 by
 * the large box (-32 -32 -24 .. 32 32 64; its floor is plane 12). */
static const struct plane seed_planes[] = {
	{ { 1, 0, 0 }, 128, 0 },  { { 1, 0, 0 }, -128, 0 },
	{ { 0, 1, 0 }, 128, 1 },  { { 0, 1, 0 }, -128, 1 },
	{ { 0, 0, 1 }, 128, 2 },  { { 0, 0, 1 }, -128, 2 },
	{ { 1, 0, 0 }, 0, 0 },
	{ { 1, 0, 0 }, 112, 0 },  { { 1, 0, 0 }, -112, 0 },
	{ { 0, 1, 0 }, 112, 1 },  { { 0, 1, 0 }, -112, 1 },
	{ { 0, 0, 1 }, 96, 2 },   { { 0, 0, 1 }, -104, 2 },
	{ { 1, 0, 0 }, 96, 0 },   { { 1, 0, 0 }, -96, 0 },
	{ { 0, 1, 0 }, 96, 1 },   { { 0, 1, 0 }, -96, 1 },
	{ { 0, 0, 1 }, 64, 2 },
};

/* A node or clipnode: its plane and the child on each side.  The walls
 * are chained one inside the other; every plane faces +axis, so the
 * outside (solid) of a "max" wall is its front and of a "min" wall its
 * back. */
struct link {
	int plane;
	int front, back;
};

/* nodes: children >= 0 node, < 0 leaf -1 - child (leaf 0 solid, 1 empty
 * x > 0, 2 water x < 0) */
static const struct link seed_nodes[] = {
	{ 0, -1, 1 }, { 1, 2, -1 }, { 2, -1, 3 }, { 3, 4, -1 },
	{ 4, -1, 5 }, { 5, 6, -1 }, { 6, -2, -3 },
};

/* clipnodes: children >= 0 clipnode, < 0 contents */
static const struct link seed_clipnodes[] = {
	{ 7, C_SOLID, 1 },  { 8, 2, C_SOLID },  { 9, C_SOLID, 3 },
	{ 10, 4, C_SOLID }, { 11, C_SOLID, 5 }, { 12, C_EMPTY, C_SOLID },
	{ 13, C_SOLID, 7 }, { 14, 8, C_SOLID }, { 15, C_SOLID, 9 },
	{ 16, 10, C_SOLID }, { 17, C_SOLID, 11 }, { 12, C_EMPTY, C_SOLID },
};

static const char seed_entities[] =
	"{\n\"classname\" \"worldspawn\"\n\"wad\" \"seed.wad\"\n}\n"
	"{\n\"classname\" \"info_player_start\"\n\"origin\" \"64 0 0\"\n}\n"
	"{\n\"classname\" \"info_player_deathmatch\"\n"
	"\"origin\" \"-64 32 -80\"\n\"angle\" \"90\"\n}\n"
	"{\n\"classname\" \"func_door\"\n\"model\" \"*1\"\n}\n";

static void begin_lump(struct out *o, uint32_t *ofs)
{
	while (o->len % 4)
		put_u8(o, 0);
	*ofs = (uint32_t)o->len;
}

static void put_box(struct out *o, enum seed_fmt f, const float *mins,
		    const float *maxs)
{
	for (int i = 0; i < 3; i++)
		put_coord(o, f, mins[i]);
	for (int i = 0; i < 3; i++)
		put_coord(o, f, maxs[i]);
}

static void write_lump(struct out *o, int lump, enum seed_fmt f, int vis)
{
	static const float cube_min[3] = { -128, -128, -128 };
	static const float cube_max[3] = { 128, 128, 128 };
	static const float half_min[3] = { 0, -128, -128 };
	static const float half_max[3] = { 128, 128, 128 };
	static const float top[4][3] = {
		{ -128, -128, 128 }, { 128, -128, 128 },
		{ 128, 128, 128 },   { -128, 128, 128 },
	};

	switch (lump) {
	case L_ENTITIES:
		put_bytes(o, seed_entities, sizeof(seed_entities));
		break;
	case L_PLANES:
		for (size_t i = 0; i < sizeof(seed_planes) / sizeof(seed_planes[0]); i++) {
			const struct plane *p = &seed_planes[i];

			for (int k = 0; k < 3; k++)
				put_f32(o, p->n[k]);
			put_f32(o, p->dist);
			put_u32(o, p->type);
		}
		break;
	case L_TEXTURES: {
		/* one miptex: count, offset, then the 40-byte header and the
		 * four mip levels of a 16x16 picture */
		char name[16] = "seed";
		int mip = TEX_SIZE * TEX_SIZE;

		put_u32(o, 1);
		put_u32(o, 8);
		put_bytes(o, name, sizeof(name));
		put_u32(o, TEX_SIZE);
		put_u32(o, TEX_SIZE);
		put_u32(o, 40);
		put_u32(o, 40 + mip);
		put_u32(o, 40 + mip + mip / 4);
		put_u32(o, 40 + mip + mip / 4 + mip / 16);
		for (int i = 0; i < mip + mip / 4 + mip / 16 + mip / 64; i++)
			put_u8(o, (unsigned)(i * 7) & 0xff);
		break;
	}
	case L_VERTEXES:
		for (int i = 0; i < 4; i++)
			for (int k = 0; k < 3; k++)
				put_f32(o, top[i][k]);
		break;
	case L_VISIBILITY:
		/* leaf 1's row, then leaf 2's: each sees leafs 1 and 2 */
		if (vis) {
			put_u8(o, 0x03);
			put_u8(o, 0x03);
		}
		break;
	case L_NODES:
		for (size_t i = 0; i < sizeof(seed_nodes) / sizeof(seed_nodes[0]); i++) {
			const struct link *n = &seed_nodes[i];

			put_u32(o, n->plane);
			put_wide(o, f, n->front);
			put_wide(o, f, n->back);
			put_box(o, f, cube_min, cube_max);
			/* the top wall's node holds the one face */
			put_wide(o, f, 0);
			put_wide(o, f, n->plane == 4 ? 1 : 0);
		}
		break;
	case L_TEXINFO:
		for (int k = 0; k < 8; k++)
			put_f32(o, (k == 0 || k == 5) ? 1.0f : 0.0f);
		put_u32(o, 0);
		put_u32(o, 0);
		break;
	case L_FACES:
		/* the ceiling: plane 4, back side, edges 1-4 */
		put_wide(o, f, 4);
		put_wide(o, f, 1);
		put_u32(o, 0);
		put_wide(o, f, 4);
		put_wide(o, f, 0);
		put_u8(o, 0);
		put_u8(o, 255);
		put_u8(o, 255);
		put_u8(o, 255);
		put_u32(o, -1);
		break;
	case L_LIGHTING:
		break;
	case L_CLIPNODES:
		for (size_t i = 0; i < sizeof(seed_clipnodes) / sizeof(seed_clipnodes[0]); i++) {
			const struct link *c = &seed_clipnodes[i];

			put_u32(o, c->plane);
			put_wide(o, f, c->front);
			put_wide(o, f, c->back);
		}
		break;
	case L_LEAFS: {
		/* 0 the shared solid leaf, 1 empty (x > 0), 2 water (x < 0) */
		static const int contents[3] = { C_SOLID, C_EMPTY, C_WATER };

		for (int i = 0; i < 3; i++) {
			float lo[3] = { i == 2 ? -128.0f : 0.0f, -128, -128 };

			put_u32(o, contents[i]);
			put_u32(o, (vis && i > 0) ? i - 1 : -1);
			if (i == 0)
				put_box(o, f, cube_min, cube_min);
			else if (i == 1)
				put_box(o, f, half_min, half_max);
			else
				put_box(o, f, lo, (const float[3]){ 0, 128, 128 });
			put_wide(o, f, 0);
			put_wide(o, f, i == 1 ? 1 : 0);
			for (int k = 0; k < 4; k++)
				put_u8(o, 0);
		}
		break;
	}
	case L_MARKSURFACES:
		put_wide(o, f, 0);
		break;
	case L_EDGES:
		/* edge 0 is never used (its sign could not be stored) */
		for (int i = 0; i < 5; i++) {
			put_wide(o, f, i ? i - 1 : 0);
			put_wide(o, f, i ? i % 4 : 0);
		}
		break;
	case L_SURFEDGES:
		for (int i = 1; i <= 4; i++)
			put_u32(o, i);
		break;
	case L_MODELS:
		/* the world, then a door sharing the world's split node */
		for (int m = 0; m < 2; m++) {
			const float *lo = m ? half_min : cube_min;
			const float *hi = m ? half_max : cube_max;

			for (int k = 0; k < 3; k++)
				put_f32(o, lo[k]);
			for (int k = 0; k < 3; k++)
				put_f32(o, hi[k]);
			for (int k = 0; k < 3; k++)
				put_f32(o, 0);
			put_u32(o, m ? 6 : 0);
			put_u32(o, m ? 5 : 0);
			put_u32(o, m ? 11 : 6);
			put_u32(o, 0);
			put_u32(o, m ? 0 : 2);
			put_u32(o, 0);
			put_u32(o, m ? 0 : 1);
		}
		break;
	default:
		break;
	}
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *fp = fopen(path, "wb");

	if (!fp) {
		fprintf(stderr, "mkseeds: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fwrite(data, 1, len, fp) != len || fclose(fp) != 0) {
		fprintf(stderr, "mkseeds: %s: write failed\n", path);
		return -1;
	}
	return 0;
}

static int make_map(const char *dir, const char *file, enum seed_fmt f,
		    int vis)
{
	static struct out o;	/* 64 KB: kept off the stack */
	uint32_t ofs[NUM_LUMPS];
	char path[4096];

	memset(&o, 0, sizeof(o));
	if (f == FMT_29)
		put_u32(&o, 29);
	else
		put_bytes(&o, f == FMT_BSP2 ? "BSP2" : "2PSB", 4);
	for (int i = 0; i < NUM_LUMPS * 2; i++)
		put_u32(&o, 0);
	for (int l = 0; l < NUM_LUMPS; l++) {
		begin_lump(&o, &ofs[l]);
		write_lump(&o, l, f, vis);
		set_u32(&o, 4 + 8 * (size_t)l, ofs[l]);
		set_u32(&o, 8 + 8 * (size_t)l, (uint32_t)(o.len - ofs[l]));
	}
	if (o.overflow) {
		fprintf(stderr, "mkseeds: %s: map larger than %d bytes\n", file,
			OUT_CAP);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return write_file(path, o.buf, o.len);
}

static int make_bsp_seeds(const char *dir)
{
	int rc = 0;

	rc |= make_map(dir, "synth-bsp29.bsp", FMT_29, 1);
	rc |= make_map(dir, "synth-bsp2.bsp", FMT_BSP2, 1);
	rc |= make_map(dir, "synth-2psb.bsp", FMT_2PSB, 1);
	rc |= make_map(dir, "synth-bsp29-novis.bsp", FMT_29, 0);
	return rc;
}

/* Hand-written entity texts: the shapes a parser must get right (comments,
 * empty values, an empty entity, braces inside values, CRLF, a text cut
 * short) so the fuzzer starts next to each edge. */
static const char *const ent_texts[] = {
	"{\n\"classname\" \"worldspawn\"\n\"message\" \"seed\"\n}\n"
	"{\n\"classname\" \"light\"\n\"origin\" \"0 0 64\"\n\"light\" \"300\"\n}\n",
	"// a comment line\n{\r\n\"classname\" \"worldspawn\"\r\n}\r\n"
	"{\n\"origin\" \"\"\n\"target\" \"{ } braces\"\n}\n",
	"{\n}\n{\n\"classname\" \"info_player_start\"\n\"angle\" \"-1\"\n}\n",
	"{\n\"classname\" \"worldspawn\"\n\"wad\" \"a.wad;b.wad\"\n"
	"\"classname\" \"repeated\"\n}\n",
	"{\n\"classname\" \"func_door\"\n\"model\" \"*1\"\n",
	"{ \"a\" \"b\" } { \"c\" \"d\" \"e\" \"f\" }",
};

static int extract_entities(const char *dir, const char *map)
{
	char path[4096];
	const char *base = strrchr(map, '/');
	uint8_t head[HEADER_SIZE];
	uint32_t ofs, len;
	long size;
	char *text;
	FILE *fp = fopen(map, "rb");
	int rc = -1;

	if (!fp) {
		fprintf(stderr, "mkseeds: %s: %s\n", map, strerror(errno));
		return -1;
	}
	if (fread(head, 1, sizeof(head), fp) != sizeof(head) ||
	    fseek(fp, 0, SEEK_END) != 0 || (size = ftell(fp)) < 0) {
		fprintf(stderr, "mkseeds: %s: no BSP header, skipped\n", map);
		fclose(fp);
		return 0;
	}
	ofs = (uint32_t)head[4] | (uint32_t)head[5] << 8 |
	      (uint32_t)head[6] << 16 | (uint32_t)head[7] << 24;
	len = (uint32_t)head[8] | (uint32_t)head[9] << 8 |
	      (uint32_t)head[10] << 16 | (uint32_t)head[11] << 24;
	if (len == 0 || ofs > (uint64_t)size || len > (uint64_t)size - ofs) {
		fprintf(stderr, "mkseeds: %s: entity lump out of the file, "
			"skipped\n", map);
		fclose(fp);
		return 0;
	}
	text = malloc(len);
	if (text && fseek(fp, (long)ofs, SEEK_SET) == 0 &&
	    fread(text, 1, len, fp) == len) {
		snprintf(path, sizeof(path), "%s/%s.ent", dir,
			 base ? base + 1 : map);
		rc = write_file(path, text, len);
	} else {
		fprintf(stderr, "mkseeds: %s: cannot read the entity lump\n", map);
	}
	free(text);
	fclose(fp);
	return rc;
}

static int make_ent_seeds(const char *dir, int nmaps, char **maps)
{
	char path[4096];
	int rc = 0;

	for (size_t i = 0; i < sizeof(ent_texts) / sizeof(ent_texts[0]); i++) {
		snprintf(path, sizeof(path), "%s/synth-%zu.ent", dir, i);
		rc |= write_file(path, ent_texts[i], strlen(ent_texts[i]));
	}
	snprintf(path, sizeof(path), "%s/synth-map.ent", dir);
	rc |= write_file(path, seed_entities, sizeof(seed_entities));
	for (int i = 0; i < nmaps; i++)
		rc |= extract_entities(dir, maps[i]);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "bsp") == 0)
		return make_bsp_seeds(argv[2]) ? 1 : 0;
	if (argc >= 3 && strcmp(argv[1], "ent") == 0)
		return make_ent_seeds(argv[2], argc - 3, argv + 3) ? 1 : 0;
	fprintf(stderr, "usage: mkseeds bsp DIR\n"
			"       mkseeds ent DIR [MAP...]\n");
	return 2;
}
