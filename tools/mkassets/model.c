/*
 * model.c -- a box for every model the server lists: Quake's alias model
 * (.mdl) and sprite (.spr) formats at their smallest.
 *
 * Design note
 *   A client refuses to enter a level until it holds every model of the
 *   server's model list (it asks the server for a missing one, and waits
 *   for each download in turn), so each name the game precaches gets a
 *   file: progs/ models and sprites, and the brush models (maps/b_*.bsp
 *   item boxes, exploding boxes), which are written as alias boxes too: a
 *   client tells the formats apart by a file's first four bytes ("IDPO",
 *   "IDSP", else a BSP), never by its name.  A model
 *   here is one box: 8 corners, each side two triangles written in both
 *   windings (the box shows whichever faces the client culls), one 8x8
 *   skin, one frame.  MDL layout (version 6, little-endian, "IDPO"):
 *     header  ident, version, scale[3], scale_origin[3], boundingradius,
 *             eyeposition[3], numskins, skinwidth, skinheight, numverts,
 *             numtris, numframes, synctype, flags, size (84 bytes)
 *     skins   per skin: int32 0 (single), skinwidth * skinheight indices
 *     st      per vertex: onseam, s, t (skin pixels)
 *     tris    per triangle: facesfront, three vertex indices
 *     frames  per frame: int32 0 (single), bboxmin and bboxmax as packed
 *             vertices, a 16-byte name, the packed vertices
 *   A packed vertex is three bytes (position = scale * byte +
 *   scale_origin) and a normal index (any of Quake's 162; ours are all 0,
 *   the box is lit flat).  The corners pack to 0 and 255.
 *   Shapes: the player stands in its bounding box (a little slimmer), the
 *   skin's top half in row 1 and bottom half in row 6, the rows clients
 *   repaint with the player's shirt and pants colours; a view model
 *   (v_*.mdl, drawn at the eye) is a thin bar low on the right of the
 *   view; a lightning beam (bolt*.mdl, drawn once every 30 units along
 *   the beam, the model's x axis along it) a 30-unit blue rod; everything
 *   else is a 16-unit cube standing on its origin, in a row picked from
 *   the name, so different items look different.
 *   A sprite (.spr, "IDSP" version 1) is one 16x16 frame facing the
 *   viewer: a disc of fire colours.
 */
#include "mkassets.h"

#include <math.h>
#include <string.h>

enum {
	MDL_VERSION = 6, SPR_VERSION = 1, SPR_VP_PARALLEL = 2,
	SKIN = 8, CORNERS = 8, SIDES = 6, SPRITE = 16
};

struct box {
	float mins[3], maxs[3];
	enum pal_row top, bottom;
};

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && strcmp(s + n - t, tail) == 0;
}

static void shape(const char *name, struct box *b)
{
	static const struct box player = {{-12, -12, -24}, {12, 12, 28},
					  ROW_BROWN, ROW_GOLD};
	static const struct box view = {{16, -8, -10}, {26, -5, -7},
					ROW_GREY, ROW_GREY};
	static const struct box item = {{-8, -8, 0}, {8, 8, 16},
					ROW_GREY, ROW_GREY};
	static const struct box beam = {{0, -2, -2}, {30, 2, 2},
					ROW_LIGHTBLUE, ROW_BLUE};
	/* a brush model's origin is its corner (the ammo boxes' size) */
	static const struct box crate = {{0, 0, 0}, {32, 32, 24},
					 ROW_GREY, ROW_GREY};
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	uint32_t h = 0;

	if (strcmp(base, "player.mdl") == 0) {
		*b = player;
		return;
	}
	if (strncmp(base, "bolt", 4) == 0) {
		*b = beam;
		return;
	}
	*b = ends_with(base, ".bsp") ? crate : strncmp(base, "v_", 2) == 0 ? view : item;
	for (const char *c = base; *c; c++)
		h = h * 31 + (unsigned char)*c;
	b->top = b->bottom = (enum pal_row)(ROW_LIGHTBLUE + h % (ROW_BLUE - ROW_LIGHTBLUE + 1));
}

static void write_mdl(const char *name, struct msg_buf *m)
{
	/* each side's corners in order around it; corner bits: 1 x, 2 y, 4 z */
	static const int side[SIDES][4] = {
		{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1},
		{2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}
	};
	struct box b;
	float scale[3], radius = 0, size = 0;
	char frame[16] = "box";

	shape(name, &b);
	for (int c = 0; c < 3; c++) {
		float far = fmaxf(fabsf(b.mins[c]), fabsf(b.maxs[c]));

		scale[c] = (b.maxs[c] - b.mins[c]) / 255.0f;
		radius += far * far;
		size += (b.maxs[c] - b.mins[c]) / 3.0f;
	}
	msg_write_data(m, "IDPO", 4);
	msg_write_long(m, MDL_VERSION);
	for (int c = 0; c < 3; c++)
		msg_write_float(m, scale[c]);
	for (int c = 0; c < 3; c++)
		msg_write_float(m, b.mins[c]);
	msg_write_float(m, sqrtf(radius));
	for (int c = 0; c < 3; c++)
		msg_write_float(m, 0);
	msg_write_long(m, 1);			/* skins */
	msg_write_long(m, SKIN);
	msg_write_long(m, SKIN);
	msg_write_long(m, CORNERS);
	msg_write_long(m, SIDES * 4);		/* two triangles, both ways */
	msg_write_long(m, 1);			/* frames */
	msg_write_long(m, 0);			/* synctype: in step */
	msg_write_long(m, 0);			/* flags: no trail, no spin */
	msg_write_float(m, size);

	msg_write_long(m, 0);
	for (int y = 0; y < SKIN; y++)
		for (int x = 0; x < SKIN; x++)
			msg_write_byte(m, y < SKIN / 2 ? pal_index(b.top, 11 - y) :
				       pal_index(b.bottom, 9 - (y - SKIN / 2)));

	/* the top corners take the skin's top edge, the sides its width */
	for (int v = 0; v < CORNERS; v++) {
		msg_write_long(m, 0);
		msg_write_long(m, v & 1 ? SKIN - 1 : 0);
		msg_write_long(m, v & 4 ? 0 : SKIN - 1);
	}
	for (int s = 0; s < SIDES; s++) {
		const int *q = side[s];
		const int tri[4][3] = {{q[0], q[1], q[2]}, {q[0], q[2], q[3]},
				       {q[0], q[2], q[1]}, {q[0], q[3], q[2]}};

		for (int t = 0; t < 4; t++) {
			msg_write_long(m, 1);
			for (int k = 0; k < 3; k++)
				msg_write_long(m, tri[t][k]);
		}
	}

	msg_write_long(m, 0);
	for (int k = 0; k < 4; k++)
		msg_write_byte(m, 0);
	for (int k = 0; k < 3; k++)
		msg_write_byte(m, 255);
	msg_write_byte(m, 0);
	msg_write_data(m, frame, sizeof(frame));
	for (int v = 0; v < CORNERS; v++) {
		msg_write_byte(m, v & 1 ? 255 : 0);
		msg_write_byte(m, v & 2 ? 255 : 0);
		msg_write_byte(m, v & 4 ? 255 : 0);
		msg_write_byte(m, 0);
	}
}

static void write_spr(struct msg_buf *m)
{
	msg_write_data(m, "IDSP", 4);
	msg_write_long(m, SPR_VERSION);
	msg_write_long(m, SPR_VP_PARALLEL);
	msg_write_float(m, SPRITE * 0.75f);	/* radius of the corners */
	msg_write_long(m, SPRITE);
	msg_write_long(m, SPRITE);
	msg_write_long(m, 1);			/* frames */
	msg_write_float(m, 0);			/* beam length */
	msg_write_long(m, 0);			/* synctype */

	msg_write_long(m, 0);			/* a single frame */
	msg_write_long(m, -SPRITE / 2);		/* origin: centred */
	msg_write_long(m, SPRITE / 2);
	msg_write_long(m, SPRITE);
	msg_write_long(m, SPRITE);
	for (int y = 0; y < SPRITE; y++) {
		for (int x = 0; x < SPRITE; x++) {
			int dx = 2 * x - SPRITE + 1, dy = 2 * y - SPRITE + 1;
			int d = dx * dx + dy * dy;

			msg_write_byte(m, d > SPRITE * SPRITE ? PAL_TRANSPARENT :
				       PAL_FULLBRIGHT + 15 - d * 15 / (SPRITE * SPRITE));
		}
	}
}

bool model_make(const char *name, struct msg_buf *b)
{
	if (ends_with(name, ".mdl") || ends_with(name, ".bsp"))
		write_mdl(name, b);
	else if (ends_with(name, ".spr"))
		write_spr(b);
	else
		return false;
	return true;
}
