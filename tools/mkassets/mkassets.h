/*
 * mkassets.h -- the client data generator's shared pieces: the palette
 * layout, an 8-bit picture to draw on, the font, the files it writes.
 *
 * Design note
 *   Every picture is palette indices, as Quake keeps them: the palette's
 *   16 rows of 16 shades (palette.c) are the only colours there are, so a
 *   colour is named by row and shade (pal_index) and every drawing call
 *   takes an index.  Rows 0..7 run dark to light, rows 8..13 light to dark
 *   (clients translate player colours assuming exactly that), rows 14 and
 *   15 are the fullbright colours, never darkened by light; index 255 is
 *   the transparent colour of pictures and index 0 (black) the transparent
 *   colour of the console font.
 *   Pictures are drawn into one struct pic (at most 320x200, the console
 *   background) and copied out; nothing here allocates but the output
 *   buffers of main.
 */
#ifndef MKASSETS_MKASSETS_H
#define MKASSETS_MKASSETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qwd/common.h"

enum {
	PAL_ROWS = 16,
	PAL_SHADES = 16,
	PAL_BYTES = 768,
	PAL_FULLBRIGHT = 224,	/* first index never darkened */
	PAL_TRANSPARENT = 255,	/* see-through in pictures and model skins */
	COLORMAP_LEVELS = 64,
	COLORMAP_BYTES = COLORMAP_LEVELS * 256 + 1,
	PIC_MAX_W = 320,
	PIC_MAX_H = 200,
	CONCHARS_SIZE = 128,	/* 16 x 16 characters of 8 x 8 */
	GLYPH = 8
};

/* palette rows, by the names clients and qwmap give them */
enum pal_row {
	ROW_GREY, ROW_BROWN, ROW_LIGHTBLUE, ROW_GREEN, ROW_RED, ROW_ORANGE,
	ROW_GOLD, ROW_PEACH, ROW_PURPLE, ROW_MAGENTA, ROW_TAN, ROW_LIGHTGREEN,
	ROW_YELLOW, ROW_BLUE, ROW_FIRE, ROW_BRIGHTS
};

/* palette.c */
/* the index of row's shade, 0 darkest .. 15 lightest whatever the row's
 * direction (rows 14, 15: 0 .. 15 as stored) */
uint8_t pal_index(enum pal_row row, int shade);
void palette_make(uint8_t pal[PAL_BYTES]);
void colormap_make(const uint8_t pal[PAL_BYTES], uint8_t map[COLORMAP_BYTES]);

/* font.c: the 8 rows of character c's cell, bit 7 the leftmost pixel */
void font_glyph(int c, uint8_t rows[GLYPH]);
/* the console font: 256 cells in a 128 x 128 picture, 0 transparent */
void conchars_make(uint8_t out[CONCHARS_SIZE * CONCHARS_SIZE]);

/* pics.c */
struct pic {
	int w, h;
	uint8_t px[PIC_MAX_W * PIC_MAX_H];
};

void pic_start(struct pic *p, int w, int h, uint8_t fill);
void pic_rect(struct pic *p, int x, int y, int w, int h, uint8_t c);
void pic_frame(struct pic *p, uint8_t c);
/* text in the font, each font pixel scale x scale */
void pic_text(struct pic *p, int x, int y, const char *s, uint8_t c, int scale);
void pic_text_centred(struct pic *p, int y, const char *s, uint8_t c, int scale);

/* one picture the client loads: a gfx/NAME.lmp file or a gfx.wad lump;
 * draw starts the picture itself (its size from w, h, or from text) */
struct pic_spec {
	char name[16];
	int w, h;
	void (*draw)(struct pic *p, const struct pic_spec *s);
	const char *text;
	enum pal_row row;
};

/* the pictures, into out (room for max); the count, or 0 if max is short
 * or a name too long for a wad lump */
size_t lmp_pic_specs(struct pic_spec *out, size_t max);
size_t wad_pic_specs(struct pic_spec *out, size_t max);

/* model.c: a valid one-frame model for a model name (.mdl or .bsp: an
 * alias box; .spr: a sprite), written into b; false when the name has
 * another extension */
bool model_make(const char *name, struct msg_buf *b);

/* sound.c: a valid WAV (RIFF WAVE, PCM, 8-bit mono, 11025 Hz) of a
 * tenth of a second of silence into b; looped: with a loop over all of
 * it (a cue point and its "mark" label), as static sounds need */
void sound_make(bool looped, struct msg_buf *b);

#endif
