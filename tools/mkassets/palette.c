/*
 * palette.c -- our 256-colour palette and the light table made from it.
 *
 * Design note
 *   The palette keeps Quake's layout because clients and our map
 *   compiler depend on it, not its colours: 16 rows of 16 shades, row r
 *   a ramp of one hue.  Player colours 0..13 name rows, and a client
 *   paints a player's shirt and pants by copying the chosen row over rows
 *   1 and 6 of the skin, reading rows 8..13 backwards (light to dark);
 *   index 0 must be black (the console font's see-through colour, a
 *   sky's empty texels); indices 224..255 are fullbright (never darkened
 *   by light, lit in models by a second texture) and 255 is the
 *   see-through colour of pictures.  qwmap paints walls with shades 2, 5,
 *   10 and 12 of rows 0..13 (water row 13, slime 3, lava 4), so each of
 *   those rows is a distinct hue and its shades are far enough apart to
 *   tell the checker squares apart.
 *   Our hues: grey, brown, light blue, green, red, orange, gold, peach,
 *   purple, magenta, tan, light green, yellow, blue (rows 0..13), a fire
 *   ramp (14) and fifteen saturated brights with magenta for 255 (15), so
 *   a picture drawn with 255 by mistake is plain to see.
 *   The light table (colormap.lmp) has 64 levels of 256 entries: level l
 *   scales a colour by (64 - l) / 32 (0 twice as bright, 32 unchanged, 63
 *   nearly black) and keeps the nearest of the 224 lit colours; the
 *   fullbrights map to themselves on every level.  GL clients barely use
 *   it but every client loads it at start.  The file holds one byte past
 *   the table, as the original does; clients read only the table, and
 *   ours writes 0 there.
 */
#include "mkassets.h"

#include <string.h>

/* the lightest shade of each lit row */
static const uint8_t row_top[14][3] = {
	{255, 255, 255}, {208, 156, 96}, {150, 176, 230}, {96, 208, 88},
	{236, 64, 52}, {244, 144, 40}, {236, 204, 64}, {244, 188, 156},
	{176, 104, 228}, {232, 84, 200}, {216, 196, 152}, {136, 236, 168},
	{252, 248, 96}, {72, 96, 244}
};

static const uint8_t brights[16][3] = {
	{255, 64, 64}, {255, 160, 64}, {255, 255, 64}, {160, 255, 64},
	{64, 255, 64}, {64, 255, 160}, {64, 255, 255}, {64, 160, 255},
	{64, 64, 255}, {160, 64, 255}, {255, 64, 255}, {255, 64, 160},
	{255, 255, 255}, {255, 224, 192}, {192, 224, 255}, {255, 0, 255}
};

uint8_t pal_index(enum pal_row row, int shade)
{
	shade = shade < 0 ? 0 : shade > PAL_SHADES - 1 ? PAL_SHADES - 1 : shade;
	if (row >= ROW_PURPLE && row <= ROW_BLUE)
		shade = PAL_SHADES - 1 - shade;
	return (uint8_t)(row * PAL_SHADES + shade);
}

void palette_make(uint8_t pal[PAL_BYTES])
{
	for (int row = ROW_GREY; row <= ROW_BLUE; row++) {
		for (int k = 0; k < PAL_SHADES; k++) {
			/* grey runs from black; the hues from a dark tone */
			int num = row == ROW_GREY ? k : k + 1;
			int den = row == ROW_GREY ? PAL_SHADES - 1 : PAL_SHADES;
			uint8_t *p = pal + 3 * pal_index((enum pal_row)row, k);

			for (int c = 0; c < 3; c++)
				p[c] = (uint8_t)(row_top[row][c] * num / den);
		}
	}
	for (int k = 0; k < PAL_SHADES; k++) {
		uint8_t *fire = pal + 3 * (ROW_FIRE * PAL_SHADES + k);

		/* dark red to pale yellow */
		fire[0] = (uint8_t)(136 + 119 * k / 15);
		fire[1] = (uint8_t)(24 + 216 * k / 15);
		fire[2] = (uint8_t)(8 + 120 * k / 15);
		memcpy(pal + 3 * (ROW_BRIGHTS * PAL_SHADES + k), brights[k], 3);
	}
}

static int nearest_lit(const uint8_t pal[PAL_BYTES], const int rgb[3])
{
	int best = 0;
	long best_d = -1;

	for (int i = 0; i < PAL_FULLBRIGHT; i++) {
		long d = 0;

		for (int c = 0; c < 3; c++) {
			long e = rgb[c] - pal[3 * i + c];

			d += e * e;
		}
		if (best_d < 0 || d < best_d) {
			best_d = d;
			best = i;
		}
	}
	return best;
}

void colormap_make(const uint8_t pal[PAL_BYTES], uint8_t map[COLORMAP_BYTES])
{
	for (int l = 0; l < COLORMAP_LEVELS; l++) {
		for (int i = 0; i < 256; i++) {
			int rgb[3];

			if (i >= PAL_FULLBRIGHT) {
				map[l * 256 + i] = (uint8_t)i;
				continue;
			}
			for (int c = 0; c < 3; c++) {
				int v = pal[3 * i + c] * (64 - l) / 32;

				rgb[c] = v > 255 ? 255 : v;
			}
			map[l * 256 + i] = (uint8_t)nearest_lit(pal, rgb);
		}
	}
	map[COLORMAP_BYTES - 1] = 0;
}
