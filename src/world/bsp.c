/*
 * bsp.c -- load and validate a Quake BSP map (BSP29, BSP2, 2PSB).
 *
 * Design note
 *   A map file is outside input: every number in it is checked before it is
 *   used, and a bad file is refused whole with one message
 *   "<file>: lump <name>: <what is wrong>", never half-loaded.
 *
 *   File layout: a 4-byte version or magic, then 15 lump directory entries
 *   (int32 offset, int32 length), all little-endian.  The three formats
 *   differ only in the width of some records:
 *
 *     record      BSP29                  2PSB                   BSP2
 *     node        24: i32 plane,         32: i32 plane,         44: i32 plane,
 *                 u16 child[2], i16 box  i32 child[2], i16 box  i32 child[2],
 *                 u16 face, u16 nface    u32 face, u32 nface    f32 box, u32 x2
 *     clipnode     8: i32, u16 child[2]  12: i32, i32 child[2]  12 (as 2PSB)
 *     leaf        28: i16 box, u16 marks 32: i16 box, u32 marks 44: f32 box
 *     face        20                     28                     28
 *     edge         4: u16 v[2]           8: u32 v[2]            8
 *     marksurface  2: u16                4: u32                 4
 *
 *   BSP29 child fields are read unsigned (as modern engines do, so a map with
 *   more than 32767 nodes works): a node child c < numnodes is a node, else
 *   leaf 65535 - c; a clipnode child >= 0xFFF0 is a contents value.  After
 *   loading, all formats share the 32-bit convention of qwd/world.h.
 *
 *   Checks, in order: the header and lump directory (offsets and lengths
 *   inside the file, lengths a whole number of records); every record's
 *   indices (planes, children, faces, edges, texinfo, miptex, vis offsets);
 *   then the node and clipnode graphs of every model: acyclic and no deeper
 *   than BSP_MAX_DEPTH (one depth-first pass with a colour per node, so a
 *   shared subtree is walked once: O(nodes)).  Only then are the hulls, the
 *   map checksums, the entities and the PVS/PHS tables built.
 *
 *   Checksums are QuakeWorld's: the block checksum (MD4, words XORed) of
 *   each lump's bytes as stored, XORed together; checksum skips the
 *   entities, checksum2 also the visibility, leafs and nodes.  Clients send
 *   checksum2 at prespawn, so it is computed on the raw file bytes.
 */
#include "qwd/world.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

static const char *const lump_names[BSP_NUM_LUMPS] = {
	"entities", "planes", "textures", "vertexes", "visibility",
	"nodes", "texinfo", "faces", "lighting", "clipnodes",
	"leafs", "marksurfaces", "edges", "surfedges", "models"
};

const char *bsp_lump_name(int lump)
{
	if (lump < 0 || lump >= BSP_NUM_LUMPS)
		return "header";
	return lump_names[lump];
}

/* record sizes per format, indexed [lump][format]; 1 = bytes */
static const uint32_t rec_size[BSP_NUM_LUMPS][3] = {
	[LUMP_ENTITIES] = {1, 1, 1},
	[LUMP_PLANES] = {20, 20, 20},
	[LUMP_TEXTURES] = {1, 1, 1},
	[LUMP_VERTEXES] = {12, 12, 12},
	[LUMP_VISIBILITY] = {1, 1, 1},
	[LUMP_NODES] = {24, 44, 32},
	[LUMP_TEXINFO] = {40, 40, 40},
	[LUMP_FACES] = {20, 28, 28},
	[LUMP_LIGHTING] = {1, 1, 1},
	[LUMP_CLIPNODES] = {8, 12, 12},
	[LUMP_LEAFS] = {28, 44, 32},
	[LUMP_MARKSURFACES] = {2, 4, 4},
	[LUMP_EDGES] = {4, 8, 8},
	[LUMP_SURFEDGES] = {4, 4, 4},
	[LUMP_MODELS] = {64, 64, 64},
};

struct lump {
	const uint8_t *p;
	uint32_t len;
	uint32_t count;		/* len / record size */
};

struct loader {
	const char *name;
	const uint8_t *data;
	size_t size;
	enum bsp_format fmt;
	struct lump l[BSP_NUM_LUMPS];
	char *err;
	size_t errlen;
	struct bsp_map *map;
	uint32_t num_faces, num_texinfo, num_miptex, num_edges;
	uint32_t num_surfedges, num_marksurfaces, num_vertexes;
};

__attribute__((format(printf, 3, 4)))
static int fail(struct loader *ld, int lump, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (lump < 0)
		snprintf(ld->err, ld->errlen, "%s: %s", ld->name, what);
	else
		snprintf(ld->err, ld->errlen, "%s: lump %s: %s", ld->name,
			 bsp_lump_name(lump), what);
	return -1;
}

/* ---- little-endian readers (no alignment assumed) --------------------- */

static int32_t rd_i32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

static uint32_t rd_u32(const uint8_t *p)
{
	return (uint32_t)rd_i32(p);
}

static int16_t rd_i16(const uint8_t *p)
{
	return (int16_t)(uint16_t)(p[0] | p[1] << 8);
}

static uint16_t rd_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static float rd_f32(const uint8_t *p)
{
	uint32_t u = rd_u32(p);
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static bool finite3(const float *v)
{
	return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

/* ---- header ----------------------------------------------------------- */

static int read_header(struct loader *ld)
{
	const uint8_t *d = ld->data;
	const size_t hdr = 4 + 8 * BSP_NUM_LUMPS;

	if (ld->size < hdr)
		return fail(ld, -1, "file is %zu bytes, shorter than a BSP header (%zu)",
			    ld->size, hdr);
	if (memcmp(d, "BSP2", 4) == 0)
		ld->fmt = BSP_FMT_BSP2;
	else if (memcmp(d, "2PSB", 4) == 0)
		ld->fmt = BSP_FMT_2PSB;
	else if (rd_i32(d) == 29)
		ld->fmt = BSP_FMT_29;
	else
		return fail(ld, -1, "unknown BSP version %d (want 29, \"BSP2\" or \"2PSB\")",
			    rd_i32(d));

	for (int i = 0; i < BSP_NUM_LUMPS; i++) {
		int32_t ofs = rd_i32(d + 4 + 8 * i);
		int32_t len = rd_i32(d + 8 + 8 * i);
		uint32_t rs = rec_size[i][ld->fmt];

		if (ofs < 0 || len < 0)
			return fail(ld, i, "negative offset %d or length %d", ofs, len);
		if ((uint64_t)ofs + (uint64_t)len > ld->size)
			return fail(ld, i, "offset %d + length %d runs past the end of the file (%zu bytes)",
				    ofs, len, ld->size);
		if ((uint32_t)len % rs != 0)
			return fail(ld, i, "length %d is not a multiple of the %u-byte record",
				    len, rs);
		ld->l[i].p = d + ofs;
		ld->l[i].len = (uint32_t)len;
		ld->l[i].count = (uint32_t)len / rs;
	}
	return 0;
}

/* ---- simple lumps whose records only point at others ------------------ */

static int check_vertexes(struct loader *ld)
{
	const struct lump *l = &ld->l[LUMP_VERTEXES];

	for (uint32_t i = 0; i < l->count; i++) {
		float v[3] = {rd_f32(l->p + 12 * i), rd_f32(l->p + 12 * i + 4),
			      rd_f32(l->p + 12 * i + 8)};
		if (!finite3(v))
			return fail(ld, LUMP_VERTEXES, "vertex %u is not a finite number", i);
	}
	ld->num_vertexes = l->count;
	return 0;
}

static int check_edges(struct loader *ld)
{
	const struct lump *l = &ld->l[LUMP_EDGES];
	bool wide = ld->fmt != BSP_FMT_29;

	for (uint32_t i = 0; i < l->count; i++) {
		for (int k = 0; k < 2; k++) {
			uint32_t v = wide ? rd_u32(l->p + 8 * i + 4 * k)
					  : rd_u16(l->p + 4 * i + 2 * k);
			if (v >= ld->num_vertexes)
				return fail(ld, LUMP_EDGES, "edge %u vertex %u out of range (%u vertexes)",
					    i, v, ld->num_vertexes);
		}
	}
	ld->num_edges = l->count;
	return 0;
}

static int check_surfedges(struct loader *ld)
{
	const struct lump *l = &ld->l[LUMP_SURFEDGES];

	for (uint32_t i = 0; i < l->count; i++) {
		int32_t e = rd_i32(l->p + 4 * i);
		int64_t a = e < 0 ? -(int64_t)e : e;

		if (a >= ld->num_edges)
			return fail(ld, LUMP_SURFEDGES, "surfedge %u edge %d out of range (%u edges)",
				    i, e, ld->num_edges);
	}
	ld->num_surfedges = l->count;
	return 0;
}

/* miptex lump: int32 count, int32 offset[count] (-1: texture not stored),
 * each stored texture a 40-byte header (16-byte name, width, height, four
 * mip offsets from the header) and its pixels. */
static int check_textures(struct loader *ld)
{
	const struct lump *l = &ld->l[LUMP_TEXTURES];
	int32_t n;

	if (l->len == 0) {
		ld->num_miptex = 0;
		return 0;
	}
	if (l->len < 4)
		return fail(ld, LUMP_TEXTURES, "length %u too short for the texture count", l->len);
	n = rd_i32(l->p);
	if (n < 0 || (uint64_t)n * 4 + 4 > l->len)
		return fail(ld, LUMP_TEXTURES, "texture count %d does not fit in the lump (%u bytes)",
			    n, l->len);
	for (int32_t i = 0; i < n; i++) {
		int32_t ofs = rd_i32(l->p + 4 + 4 * i);
		const uint8_t *mt;
		uint32_t w, h;

		if (ofs == -1)
			continue;
		if (ofs < 0 || (uint64_t)ofs + 40 > l->len)
			return fail(ld, LUMP_TEXTURES, "texture %d offset %d out of range (%u bytes)",
				    i, ofs, l->len);
		mt = l->p + ofs;
		w = rd_u32(mt + 16);
		h = rd_u32(mt + 20);
		if (w == 0 || h == 0 || w > 4096 || h > 4096)
			return fail(ld, LUMP_TEXTURES, "texture %d has size %ux%u (1..4096 allowed)",
				    i, w, h);
		for (int m = 0; m < 4; m++) {
			uint32_t mo = rd_u32(mt + 24 + 4 * m);
			uint64_t px = (uint64_t)(w >> m) * (h >> m);

			/* offset 0: pixels kept in an external wad */
			if (mo != 0 && (uint64_t)ofs + mo + px > l->len)
				return fail(ld, LUMP_TEXTURES,
					    "texture %d mip %d (offset %u, %llu bytes) runs past the lump",
					    i, m, mo, (unsigned long long)px);
		}
	}
	ld->num_miptex = (uint32_t)n;
	return 0;
}

static int check_texinfo(struct loader *ld)
{
	const struct lump *l = &ld->l[LUMP_TEXINFO];

	for (uint32_t i = 0; i < l->count; i++) {
		const uint8_t *r = l->p + 40 * i;
		int32_t mt = rd_i32(r + 32);

		for (int k = 0; k < 8; k++)
			if (!isfinite(rd_f32(r + 4 * k)))
				return fail(ld, LUMP_TEXINFO, "texinfo %u axis is not finite", i);
		if (mt < 0 || (uint32_t)mt >= ld->num_miptex)
			return fail(ld, LUMP_TEXINFO, "texinfo %u miptex %d out of range (%u textures)",
				    i, mt, ld->num_miptex);
	}
	ld->num_texinfo = l->count;
	return 0;
}

static int check_faces(struct loader *ld)
{
	const struct lump *l = &ld->l[LUMP_FACES];
	bool wide = ld->fmt != BSP_FMT_29;
	uint32_t light = ld->l[LUMP_LIGHTING].len;

	for (uint32_t i = 0; i < l->count; i++) {
		const uint8_t *r = l->p + (wide ? 28 : 20) * i;
		uint32_t plane, side, ti, nedges;
		int32_t first, lightofs;

		if (wide) {
			plane = rd_u32(r);
			side = rd_u32(r + 4);
			first = rd_i32(r + 8);
			nedges = rd_u32(r + 12);
			ti = rd_u32(r + 16);
			lightofs = rd_i32(r + 24);
		} else {
			plane = rd_u16(r);
			side = rd_u16(r + 2);
			first = rd_i32(r + 4);
			nedges = rd_u16(r + 8);
			ti = rd_u16(r + 10);
			lightofs = rd_i32(r + 16);
		}
		if (plane >= (uint32_t)ld->map->num_planes)
			return fail(ld, LUMP_FACES, "face %u plane %u out of range (%d planes)",
				    i, plane, ld->map->num_planes);
		if (side > 1)
			return fail(ld, LUMP_FACES, "face %u side %u is not 0 or 1", i, side);
		if (first < 0 || (uint64_t)first + nedges > ld->num_surfedges)
			return fail(ld, LUMP_FACES, "face %u edges %d+%u out of range (%u surfedges)",
				    i, first, nedges, ld->num_surfedges);
		if (ti >= ld->num_texinfo)
			return fail(ld, LUMP_FACES, "face %u texinfo %u out of range (%u texinfos)",
				    i, ti, ld->num_texinfo);
		if (lightofs < -1 || (lightofs >= 0 && (uint32_t)lightofs >= light))
			return fail(ld, LUMP_FACES, "face %u light offset %d out of range (%u bytes)",
				    i, lightofs, light);
	}
	ld->num_faces = l->count;
	return 0;
}

static int check_marksurfaces(struct loader *ld)
{
	const struct lump *l = &ld->l[LUMP_MARKSURFACES];
	bool wide = ld->fmt != BSP_FMT_29;

	for (uint32_t i = 0; i < l->count; i++) {
		uint32_t f = wide ? rd_u32(l->p + 4 * i) : rd_u16(l->p + 2 * i);

		if (f >= ld->num_faces)
			return fail(ld, LUMP_MARKSURFACES, "entry %u face %u out of range (%u faces)",
				    i, f, ld->num_faces);
	}
	ld->num_marksurfaces = l->count;
	return 0;
}

/* ---- the lumps the server uses: converted to the in-memory form ------- */

static int load_planes(struct loader *ld)
{
	const struct lump *l = &ld->l[LUMP_PLANES];
	struct bsp_map *m = ld->map;

	if (l->count == 0)
		return fail(ld, LUMP_PLANES, "map has no planes");
	m->planes = calloc(l->count, sizeof(*m->planes));
	if (!m->planes)
		return fail(ld, LUMP_PLANES, "out of memory for %u planes", l->count);
	m->num_planes = (int32_t)l->count;
	for (uint32_t i = 0; i < l->count; i++) {
		const uint8_t *r = l->p + 20 * i;
		struct bsp_plane *p = &m->planes[i];
		int32_t type = rd_i32(r + 16);

		for (int k = 0; k < 3; k++) {
			p->normal[k] = rd_f32(r + 4 * k);
			if (p->normal[k] < 0)
				p->signbits |= (uint8_t)(1u << k);
		}
		p->dist = rd_f32(r + 12);
		if (!finite3(p->normal) || !isfinite(p->dist))
			return fail(ld, LUMP_PLANES, "plane %u is not finite", i);
		if (type < 0 || type > 5)
			return fail(ld, LUMP_PLANES, "plane %u type %d out of range (0..5)", i, type);
		/* traces take the axial shortcut for types 0..2: the normal must
		 * then really be that axis */
		if (type < 3 && p->normal[type] != 1.0f)
			return fail(ld, LUMP_PLANES, "plane %u has axial type %d but normal (%g %g %g)",
				    i, type, (double)p->normal[0], (double)p->normal[1],
				    (double)p->normal[2]);
		p->type = (uint8_t)type;
	}
	return 0;
}

static bool contents_ok(int32_t c)
{
	return c <= CONTENTS_EMPTY && c >= CONTENTS_MIN;
}

static int load_leafs(struct loader *ld)
{
	const struct lump *l = &ld->l[LUMP_LEAFS];
	struct bsp_map *m = ld->map;
	uint32_t rs = rec_size[LUMP_LEAFS][ld->fmt];
	uint32_t vis = ld->l[LUMP_VISIBILITY].len;

	if (l->count == 0)
		return fail(ld, LUMP_LEAFS, "map has no leafs");
	if (l->count > BSP_MAX_MAP_LEAFS)
		return fail(ld, LUMP_LEAFS, "%u leafs, more than the %d accepted",
			    l->count, BSP_MAX_MAP_LEAFS);
	m->leafs = calloc(l->count, sizeof(*m->leafs));
	if (!m->leafs)
		return fail(ld, LUMP_LEAFS, "out of memory for %u leafs", l->count);
	m->num_leafs = (int32_t)l->count;
	for (uint32_t i = 0; i < l->count; i++) {
		const uint8_t *r = l->p + rs * i;
		struct bsp_leaf *lf = &m->leafs[i];
		uint32_t first, num;

		lf->contents = rd_i32(r);
		lf->visofs = rd_i32(r + 4);
		if (ld->fmt == BSP_FMT_BSP2) {
			for (int k = 0; k < 3; k++) {
				lf->mins[k] = rd_f32(r + 8 + 4 * k);
				lf->maxs[k] = rd_f32(r + 20 + 4 * k);
			}
			first = rd_u32(r + 32);
			num = rd_u32(r + 36);
		} else {
			for (int k = 0; k < 3; k++) {
				lf->mins[k] = rd_i16(r + 8 + 2 * k);
				lf->maxs[k] = rd_i16(r + 14 + 2 * k);
			}
			if (ld->fmt == BSP_FMT_2PSB) {
				first = rd_u32(r + 20);
				num = rd_u32(r + 24);
			} else {
				first = rd_u16(r + 20);
				num = rd_u16(r + 22);
			}
		}
		if (!contents_ok(lf->contents))
			return fail(ld, LUMP_LEAFS, "leaf %u contents %d is not a valid contents value",
				    i, lf->contents);
		/* a map compiled without vis (a leak) has an empty lump and
		 * offsets of 0: it has no PVS, every leaf sees every leaf */
		if (vis == 0)
			lf->visofs = -1;
		if (lf->visofs < -1 || (lf->visofs >= 0 && (uint32_t)lf->visofs >= vis))
			return fail(ld, LUMP_LEAFS, "leaf %u visibility offset %d out of range (%u bytes)",
				    i, lf->visofs, vis);
		if ((uint64_t)first + num > ld->num_marksurfaces)
			return fail(ld, LUMP_LEAFS, "leaf %u marksurfaces %u+%u out of range (%u)",
				    i, first, num, ld->num_marksurfaces);
		if (!finite3(lf->mins) || !finite3(lf->maxs))
			return fail(ld, LUMP_LEAFS, "leaf %u bounds are not finite", i);
	}
	return 0;
}

static int load_nodes(struct loader *ld)
{
	const struct lump *l = &ld->l[LUMP_NODES];
	struct bsp_map *m = ld->map;
	uint32_t rs = rec_size[LUMP_NODES][ld->fmt];

	if (l->count == 0)
		return fail(ld, LUMP_NODES, "map has no nodes");
	m->nodes = calloc(l->count, sizeof(*m->nodes));
	if (!m->nodes)
		return fail(ld, LUMP_NODES, "out of memory for %u nodes", l->count);
	m->num_nodes = (int32_t)l->count;
	for (uint32_t i = 0; i < l->count; i++) {
		const uint8_t *r = l->p + rs * i;
		struct bsp_node *n = &m->nodes[i];
		uint32_t first, num;

		n->planenum = rd_i32(r);
		if (n->planenum < 0 || n->planenum >= m->num_planes)
			return fail(ld, LUMP_NODES, "node %u plane %d out of range (%d planes)",
				    i, n->planenum, m->num_planes);
		for (int k = 0; k < 2; k++) {
			int64_t leaf = -1;

			if (ld->fmt == BSP_FMT_29) {
				uint16_t c = rd_u16(r + 4 + 2 * k);

				if (c < l->count)
					n->children[k] = c;
				else
					leaf = 65535 - c;
			} else {
				int32_t c = rd_i32(r + 4 + 4 * k);

				if (c >= 0) {
					if ((uint32_t)c >= l->count)
						return fail(ld, LUMP_NODES,
							    "node %u child %d = %d out of range (%u nodes)",
							    i, k, c, l->count);
					n->children[k] = c;
				} else {
					leaf = -1 - (int64_t)c;
				}
			}
			if (leaf >= 0) {
				if (leaf >= m->num_leafs)
					return fail(ld, LUMP_NODES,
						    "node %u child %d is leaf %lld, out of range (%d leafs)",
						    i, k, (long long)leaf, m->num_leafs);
				n->children[k] = (int32_t)(-1 - leaf);
			}
		}
		if (ld->fmt == BSP_FMT_BSP2) {
			for (int k = 0; k < 3; k++) {
				n->mins[k] = rd_f32(r + 12 + 4 * k);
				n->maxs[k] = rd_f32(r + 24 + 4 * k);
			}
			first = rd_u32(r + 36);
			num = rd_u32(r + 40);
		} else if (ld->fmt == BSP_FMT_2PSB) {
			for (int k = 0; k < 3; k++) {
				n->mins[k] = rd_i16(r + 12 + 2 * k);
				n->maxs[k] = rd_i16(r + 18 + 2 * k);
			}
			first = rd_u32(r + 24);
			num = rd_u32(r + 28);
		} else {
			for (int k = 0; k < 3; k++) {
				n->mins[k] = rd_i16(r + 8 + 2 * k);
				n->maxs[k] = rd_i16(r + 14 + 2 * k);
			}
			first = rd_u16(r + 20);
			num = rd_u16(r + 22);
		}
		if ((uint64_t)first + num > ld->num_faces)
			return fail(ld, LUMP_NODES, "node %u faces %u+%u out of range (%u faces)",
				    i, first, num, ld->num_faces);
		if (!finite3(n->mins) || !finite3(n->maxs))
			return fail(ld, LUMP_NODES, "node %u bounds are not finite", i);
	}
	return 0;
}

static int load_clipnodes(struct loader *ld)
{
	const struct lump *l = &ld->l[LUMP_CLIPNODES];
	struct bsp_map *m = ld->map;
	uint32_t rs = rec_size[LUMP_CLIPNODES][ld->fmt];

	/* a map of point-only hulls is odd but legal: calloc(0) is avoided */
	m->clipnodes = calloc(l->count ? l->count : 1, sizeof(*m->clipnodes));
	if (!m->clipnodes)
		return fail(ld, LUMP_CLIPNODES, "out of memory for %u clipnodes", l->count);
	m->num_clipnodes = (int32_t)l->count;
	for (uint32_t i = 0; i < l->count; i++) {
		const uint8_t *r = l->p + rs * i;
		struct bsp_clipnode *c = &m->clipnodes[i];

		c->planenum = rd_i32(r);
		if (c->planenum < 0 || c->planenum >= m->num_planes)
			return fail(ld, LUMP_CLIPNODES, "clipnode %u plane %d out of range (%d planes)",
				    i, c->planenum, m->num_planes);
		for (int k = 0; k < 2; k++) {
			int32_t v;

			if (ld->fmt == BSP_FMT_29) {
				uint16_t u = rd_u16(r + 4 + 2 * k);

				v = u >= 0xFFF0 ? (int32_t)u - 0x10000 : (int32_t)u;
			} else {
				v = rd_i32(r + 4 + 4 * k);
			}
			if (v < 0 ? !contents_ok(v) : (uint32_t)v >= l->count)
				return fail(ld, LUMP_CLIPNODES,
					    "clipnode %u child %d = %d is neither a clipnode (%u) nor contents",
					    i, k, v, l->count);
			c->children[k] = v;
		}
	}
	return 0;
}

static int load_models(struct loader *ld)
{
	const struct lump *l = &ld->l[LUMP_MODELS];
	struct bsp_map *m = ld->map;

	if (l->count == 0)
		return fail(ld, LUMP_MODELS, "map has no models (the world is model 0)");
	m->models = calloc(l->count, sizeof(*m->models));
	if (!m->models)
		return fail(ld, LUMP_MODELS, "out of memory for %u models", l->count);
	m->num_models = (int32_t)l->count;
	for (uint32_t i = 0; i < l->count; i++) {
		const uint8_t *r = l->p + 64 * i;
		struct bsp_model *md = &m->models[i];

		for (int k = 0; k < 3; k++) {
			md->mins[k] = rd_f32(r + 4 * k);
			md->maxs[k] = rd_f32(r + 12 + 4 * k);
			md->origin[k] = rd_f32(r + 24 + 4 * k);
		}
		for (int h = 0; h < BSP_MAX_HULLS; h++)
			md->headnode[h] = rd_i32(r + 36 + 4 * h);
		md->visleafs = rd_i32(r + 52);
		md->firstface = rd_i32(r + 56);
		md->numfaces = rd_i32(r + 60);
		if (!finite3(md->mins) || !finite3(md->maxs) || !finite3(md->origin))
			return fail(ld, LUMP_MODELS, "model %u bounds are not finite", i);
		if (md->headnode[0] < 0 || md->headnode[0] >= m->num_nodes)
			return fail(ld, LUMP_MODELS, "model %u head node %d out of range (%d nodes)",
				    i, md->headnode[0], m->num_nodes);
		/* clip hulls: a clipnode, or a bare contents value for a model
		 * whose hull is all one contents */
		for (int h = 1; h < 3; h++) {
			int32_t hn = md->headnode[h];

			if (hn < 0 ? !contents_ok(hn) : hn >= m->num_clipnodes)
				return fail(ld, LUMP_MODELS,
					    "model %u hull %d head %d out of range (%d clipnodes)",
					    i, h, hn, m->num_clipnodes);
		}
		if (md->firstface < 0 || md->numfaces < 0 ||
		    (uint64_t)md->firstface + (uint64_t)md->numfaces > ld->num_faces)
			return fail(ld, LUMP_MODELS, "model %u faces %d+%d out of range (%u faces)",
				    i, md->firstface, md->numfaces, ld->num_faces);
	}
	if (m->models[0].visleafs < 0 || m->models[0].visleafs >= m->num_leafs)
		return fail(ld, LUMP_MODELS, "world visleafs %d out of range (%d leafs)",
			    m->models[0].visleafs, m->num_leafs);
	return 0;
}

/* ---- graph checks ----------------------------------------------------- */

/* Depth-first walk from root over a graph whose child links are given by
 * the callback; rejects cycles and chains deeper than BSP_MAX_DEPTH.
 * state[] persists across roots (a subtree proven good is not walked
 * again); depth[] holds the height of finished nodes. */
struct graph {
	int32_t count;
	const int32_t (*kids)[2];	/* child >= 0: node; < 0: terminal */
	uint8_t *state;			/* 0 new, 1 on the path, 2 done */
	uint16_t *height;
	int32_t *stack;
};

static int graph_walk(struct loader *ld, int lump, const char *what,
		      struct graph *g, int32_t root)
{
	int sp = 0;

	if (root < 0 || g->state[root] == 2)
		return 0;
	g->stack[sp++] = root;
	g->state[root] = 1;
	while (sp > 0) {
		int32_t n = g->stack[sp - 1];
		bool pushed = false;
		int h = 0;

		for (int k = 0; k < 2; k++) {
			int32_t c = g->kids[n][k];

			if (c < 0)
				continue;
			if (g->state[c] == 1)
				return fail(ld, lump, "%s %d child %d = %d makes a cycle",
					    what, n, k, c);
			if (g->state[c] == 0) {
				if (sp >= BSP_MAX_DEPTH)
					return fail(ld, lump, "%s tree deeper than %d below %s %d",
						    what, BSP_MAX_DEPTH, what, root);
				g->state[c] = 1;
				g->stack[sp++] = c;
				pushed = true;
				break;
			}
			if (g->height[c] > h)
				h = g->height[c];
		}
		if (pushed)
			continue;
		if (h + 1 > BSP_MAX_DEPTH)
			return fail(ld, lump, "%s tree deeper than %d below %s %d",
				    what, BSP_MAX_DEPTH, what, root);
		g->height[n] = (uint16_t)(h + 1);
		g->state[n] = 2;
		sp--;
	}
	return 0;
}

static int check_graphs(struct loader *ld)
{
	struct bsp_map *m = ld->map;
	int32_t most = m->num_nodes > m->num_clipnodes ? m->num_nodes : m->num_clipnodes;
	int32_t (*kids)[2] = calloc((size_t)most + 1, sizeof(*kids));
	uint8_t *state = calloc((size_t)most + 1, 1);
	uint16_t *height = calloc((size_t)most + 1, sizeof(*height));
	int32_t *stack = calloc(BSP_MAX_DEPTH + 1, sizeof(*stack));
	int rc = -1;

	if (!kids || !state || !height || !stack) {
		fail(ld, LUMP_NODES, "out of memory checking the trees");
		goto out;
	}
	struct graph g = {m->num_nodes, (const int32_t (*)[2])kids, state, height, stack};

	for (int32_t i = 0; i < m->num_nodes; i++) {
		kids[i][0] = m->nodes[i].children[0];
		kids[i][1] = m->nodes[i].children[1];
	}
	for (int32_t i = 0; i < m->num_models; i++)
		if (graph_walk(ld, LUMP_NODES, "node", &g, m->models[i].headnode[0]))
			goto out;

	memset(state, 0, (size_t)most + 1);
	g.count = m->num_clipnodes;
	for (int32_t i = 0; i < m->num_clipnodes; i++) {
		kids[i][0] = m->clipnodes[i].children[0];
		kids[i][1] = m->clipnodes[i].children[1];
	}
	for (int32_t i = 0; i < m->num_models; i++)
		for (int h = 1; h < 3; h++)
			if (graph_walk(ld, LUMP_CLIPNODES, "clipnode", &g,
				       m->models[i].headnode[h]))
				goto out;
	rc = 0;
out:
	free(kids);
	free(state);
	free(height);
	free(stack);
	return rc;
}

/* Every leaf the world's tree reaches must have a PVS row (leafs 1 ..
 * visleafs; 0 is the shared solid leaf): the visibility code indexes rows
 * and bits by these numbers.  Runs after check_graphs, so the walk ends. */
static int check_world_leafs(struct loader *ld)
{
	struct bsp_map *m = ld->map;
	int32_t visleafs = m->models[0].visleafs;
	int32_t stack[BSP_MAX_DEPTH + 1];
	uint8_t *seen = calloc((size_t)m->num_nodes, 1);	/* a DAG: once each */
	int sp = 0, rc = 0;

	if (!seen)
		return fail(ld, LUMP_NODES, "out of memory checking the world tree");
	stack[sp++] = m->models[0].headnode[0];
	seen[stack[0]] = 1;
	while (sp > 0 && rc == 0) {
		int32_t n = stack[--sp];

		for (int k = 0; k < 2 && rc == 0; k++) {
			int32_t c = m->nodes[n].children[k];

			if (c >= 0) {
				if (seen[c])
					continue;
				seen[c] = 1;
				if (sp > BSP_MAX_DEPTH)
					rc = fail(ld, LUMP_NODES, "world tree too deep");
				else
					stack[sp++] = c;
			} else if (-1 - c > visleafs) {
				rc = fail(ld, LUMP_NODES,
					  "world node %d reaches leaf %d, beyond the %d leafs "
					  "the world's visibility covers", n, -1 - c, visleafs);
			}
		}
	}
	free(seen);
	return rc;
}

/* ---- derived data ----------------------------------------------------- */

/* Hull 0 is the render tree read as clipnodes: a leaf child becomes the
 * leaf's contents, which is all a point trace needs. */
static int build_hulls(struct loader *ld)
{
	struct bsp_map *m = ld->map;
	static const float hull_box[3][2][3] = {
		{{0, 0, 0}, {0, 0, 0}},
		{{-16, -16, -24}, {16, 16, 32}},
		{{-32, -32, -24}, {32, 32, 64}},
	};

	m->hull0 = calloc((size_t)m->num_nodes, sizeof(*m->hull0));
	if (!m->hull0)
		return fail(ld, LUMP_NODES, "out of memory for hull 0");
	for (int32_t i = 0; i < m->num_nodes; i++) {
		m->hull0[i].planenum = m->nodes[i].planenum;
		for (int k = 0; k < 2; k++) {
			int32_t c = m->nodes[i].children[k];

			m->hull0[i].children[k] = c >= 0 ? c : m->leafs[-1 - c].contents;
		}
	}
	for (int32_t i = 0; i < m->num_models; i++) {
		struct bsp_model *md = &m->models[i];

		for (int h = 0; h < 3; h++) {
			struct bsp_hull *hl = &md->hulls[h];

			hl->clipnodes = h == 0 ? m->hull0 : m->clipnodes;
			hl->planes = m->planes;
			hl->firstclipnode = md->headnode[h];
			hl->lastclipnode = (h == 0 ? m->num_nodes : m->num_clipnodes) - 1;
			vec_copy(hull_box[h][0], hl->clip_mins);
			vec_copy(hull_box[h][1], hl->clip_maxs);
		}
	}
	return 0;
}

/* Hull 0's liquid summary: hull0_liquid[n] says a leaf of liquid (or
 * sky: contents <= CONTENTS_WATER, what pmove's water test looks for)
 * lies below node n.  Post-order over the trees the models reach, which
 * check_graphs proved acyclic and no deeper than BSP_MAX_DEPTH (so the
 * stack, the current path, never overflows); a node no model reaches
 * keeps 1, which only means "walk on". */
static int build_liquid(struct loader *ld)
{
	struct bsp_map *m = ld->map;
	uint8_t *done = calloc((size_t)m->num_nodes + 1, 1);
	int32_t *stack = calloc(BSP_MAX_DEPTH + 1, sizeof(*stack));
	int rc = 0;

	m->hull0_liquid = malloc((size_t)m->num_nodes + 1);
	if (!done || !stack || !m->hull0_liquid) {
		rc = fail(ld, LUMP_NODES, "out of memory for hull 0's liquids");
		goto out;
	}
	memset(m->hull0_liquid, 1, (size_t)m->num_nodes + 1);
	for (int32_t i = 0; i < m->num_models; i++) {
		int32_t root = m->models[i].headnode[0];
		int sp = 0;

		if (root < 0 || root >= m->num_nodes || done[root])
			continue;
		stack[sp++] = root;
		while (sp > 0) {
			int32_t n = stack[sp - 1];
			bool pushed = false;
			uint8_t liquid = 0;

			for (int k = 0; k < 2; k++) {
				int32_t c = m->hull0[n].children[k];

				if (c < 0) {
					liquid |= c <= CONTENTS_WATER;
				} else if (!done[c]) {
					stack[sp++] = c;
					pushed = true;
					break;
				} else {
					liquid |= m->hull0_liquid[c];
				}
			}
			if (pushed)
				continue;
			m->hull0_liquid[n] = liquid;
			done[n] = 1;
			sp--;
		}
	}
out:
	free(done);
	free(stack);
	return rc;
}

static void compute_checksums(struct loader *ld)
{
	uint32_t c1 = 0, c2 = 0;

	for (int i = 0; i < BSP_NUM_LUMPS; i++) {
		uint32_t c;

		if (i == LUMP_ENTITIES)
			continue;
		c = com_block_checksum(ld->l[i].p, ld->l[i].len);
		c1 ^= c;
		if (i == LUMP_VISIBILITY || i == LUMP_LEAFS || i == LUMP_NODES)
			continue;
		c2 ^= c;
	}
	ld->map->checksum = c1;
	ld->map->checksum2 = c2;
}

static int load_entities(struct loader *ld)
{
	const struct lump *l = &ld->l[LUMP_ENTITIES];
	struct bsp_map *m = ld->map;
	size_t len = strnlen((const char *)l->p, l->len);
	char why[200];

	if (len > ENT_MAX_TEXT)
		return fail(ld, LUMP_ENTITIES, "%zu bytes of text, more than the %d accepted",
			    len, ENT_MAX_TEXT);
	m->entity_text = malloc(len + 1);
	if (!m->entity_text)
		return fail(ld, LUMP_ENTITIES, "out of memory for %zu bytes", len);
	memcpy(m->entity_text, l->p, len);
	m->entity_text[len] = '\0';
	m->entity_len = len;
	if (ent_parse(m->entity_text, len, &m->ents, why, sizeof(why)) != 0)
		return fail(ld, LUMP_ENTITIES, "%s", why);
	if (m->ents.num_ents == 0)
		return fail(ld, LUMP_ENTITIES, "no entities (a map needs a worldspawn)");
	return 0;
}

/* ---- entry points ----------------------------------------------------- */

void bsp_free(struct bsp_map *m)
{
	if (!m)
		return;
	free(m->file);
	free(m->planes);
	free(m->nodes);
	free(m->leafs);
	free(m->clipnodes);
	free(m->hull0);
	free(m->hull0_liquid);
	free(m->models);
	free(m->pvs);
	free(m->phs);
	free(m->entity_text);
	ent_free(&m->ents);
	free(m);
}

static struct bsp_map *load(const char *name, uint8_t *file, size_t size,
			    char *err, size_t errlen)
{
	struct loader ld = {.name = name, .data = file, .size = size,
			    .err = err, .errlen = errlen};
	struct bsp_map *m = calloc(1, sizeof(*m));
	char why[256];

	if (!m) {
		free(file);
		snprintf(err, errlen, "%s: out of memory", name);
		return NULL;
	}
	ld.map = m;
	m->file = file;
	m->file_size = size;
	strlcpy(m->name, name, sizeof(m->name));

	/* order matters: each check relies on the counts of those before */
	if (read_header(&ld) || check_vertexes(&ld) || check_edges(&ld) ||
	    check_surfedges(&ld) || check_textures(&ld) || check_texinfo(&ld) ||
	    load_planes(&ld) || check_faces(&ld) || check_marksurfaces(&ld) ||
	    load_leafs(&ld) || load_nodes(&ld) || load_clipnodes(&ld) ||
	    load_models(&ld) || check_graphs(&ld) || check_world_leafs(&ld) ||
	    build_hulls(&ld) || build_liquid(&ld) ||
	    load_entities(&ld))
		goto bad;
	m->format = ld.fmt;
	m->visdata = ld.l[LUMP_VISIBILITY].p;
	m->vis_size = (int32_t)ld.l[LUMP_VISIBILITY].len;
	compute_checksums(&ld);
	if (bsp_vis_build(m, why, sizeof(why)) != 0) {
		fail(&ld, LUMP_VISIBILITY, "%s", why);
		goto bad;
	}
	return m;
bad:
	bsp_free(m);
	return NULL;
}

struct bsp_map *bsp_load_mem(const char *name, const uint8_t *data,
			     size_t size, char *err, size_t errlen)
{
	uint8_t *copy;

	if (size > BSP_MAX_FILE) {
		snprintf(err, errlen, "%s: file is %zu bytes, more than the %d accepted",
			 name, size, BSP_MAX_FILE);
		return NULL;
	}
	copy = malloc(size ? size : 1);
	if (!copy) {
		snprintf(err, errlen, "%s: out of memory", name);
		return NULL;
	}
	memcpy(copy, data, size);
	return load(name, copy, size, err, errlen);
}

struct bsp_map *bsp_load(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		snprintf(err, errlen, "%s: cannot find the file size: %s", path,
			 strerror(errno));
		fclose(f);
		return NULL;
	}
	if ((unsigned long)n > BSP_MAX_FILE) {
		snprintf(err, errlen, "%s: file is %ld bytes, more than the %d accepted",
			 path, n, BSP_MAX_FILE);
		fclose(f);
		return NULL;
	}
	buf = malloc(n ? (size_t)n : 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		snprintf(err, errlen, "%s: %s", path,
			 buf ? "read error" : "out of memory");
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	return load(path, buf, (size_t)n, err, errlen);
}
