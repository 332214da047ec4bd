/*
 * pics.c -- the pictures ezQuake loads at start, drawn with our font.
 *
 * Design note
 *   ezQuake (3.6) ends with an error at start when any of these is
 *   missing, so each is in the set:
 *     gfx/conback.lmp    the console background, exactly 320x200
 *     gfx/NAME.lmp       30 pictures it caches before showing anything:
 *                        pause, loading, the text box pieces box_*, the
 *                        menu titles and entries, menudot1..6, qplaque,
 *                        and the ranking/intermission titles
 *     gfx.wad lumps      disc, backtile, ram, net, turtle (screen
 *                        icons); the status bar's big digits num_* and
 *                        anum_*, weapons inv_* / inv2_* / inva1..5_*, ammo
 *                        sb_shells..sb_cells, armour, keys and powerups,
 *                        sigils, faces, and the bars sbar, ibar, scorebar
 *   Sizes are those of the original pictures where clients lay things out
 *   by them (the 24x24 status bar cells, 16x16 items, 48-wide thunderbolt,
 *   the 320x24 bars: ibar must be that size, clients cut the ammo counts
 *   out of it at fixed places) and the menu pictures' item spacing (20
 *   pixels); titles are as wide as their text.
 *   Each picture says what it is in our font (menus their entries, the
 *   status bar its digits and weapon initials, icons a letter on their
 *   colour), so a screenshot shows which one the client drew.  Index 255
 *   is see-through around the strokes.
 */
#include "mkassets.h"

#include <stdio.h>
#include <string.h>

void pic_start(struct pic *p, int w, int h, uint8_t fill)
{
	p->w = w < 1 ? 1 : w > PIC_MAX_W ? PIC_MAX_W : w;
	p->h = h < 1 ? 1 : h > PIC_MAX_H ? PIC_MAX_H : h;
	memset(p->px, fill, (size_t)p->w * (size_t)p->h);
}

void pic_rect(struct pic *p, int x, int y, int w, int h, uint8_t c)
{
	for (int j = y < 0 ? 0 : y; j < y + h && j < p->h; j++)
		for (int i = x < 0 ? 0 : x; i < x + w && i < p->w; i++)
			p->px[j * p->w + i] = c;
}

void pic_frame(struct pic *p, uint8_t c)
{
	pic_rect(p, 0, 0, p->w, 1, c);
	pic_rect(p, 0, p->h - 1, p->w, 1, c);
	pic_rect(p, 0, 0, 1, p->h, c);
	pic_rect(p, p->w - 1, 0, 1, p->h, c);
}

void pic_text(struct pic *p, int x, int y, const char *s, uint8_t c, int scale)
{
	for (; *s; s++, x += GLYPH * scale) {
		uint8_t rows[GLYPH];

		font_glyph((unsigned char)*s, rows);
		for (int j = 0; j < GLYPH; j++)
			for (int i = 0; i < GLYPH; i++)
				if (rows[j] & (0x80 >> i))
					pic_rect(p, x + i * scale, y + j * scale,
						 scale, scale, c);
	}
}

void pic_text_centred(struct pic *p, int y, const char *s, uint8_t c, int scale)
{
	int w = (int)strlen(s) * GLYPH * scale;

	pic_text(p, (p->w - w) / 2, y, s, c, scale);
}

/* ---- the drawings --------------------------------------------------- */

/* a title: big gold letters with a shadow, as wide as the text */
static void d_title(struct pic *p, const struct pic_spec *s)
{
	int w = s->w ? s->w : (int)strlen(s->text) * 2 * GLYPH + 16;

	pic_start(p, w, s->h, PAL_TRANSPARENT);
	pic_text_centred(p, 6, s->text, pal_index(ROW_BROWN, 3), 2);
	pic_text_centred(p, 4, s->text, pal_index(ROW_GOLD, 14), 2);
}

/* menu entries, one a line, 20 pixels apart */
static void d_menu(struct pic *p, const struct pic_spec *s)
{
	char line[32];
	const char *t = s->text;

	pic_start(p, s->w, s->h, PAL_TRANSPARENT);
	for (int y = 2; *t; y += 20) {
		size_t n = strcspn(t, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)n, t);
		pic_text(p, 2, y + 2, line, pal_index(ROW_GREY, 2), 2);
		pic_text(p, 0, y, line, pal_index(ROW_GREY, 13), 2);
		t += n + (t[n] == '\n');
	}
}

/* a text box piece: light edges on the sides text names (t, b, l, r) */
static void d_box(struct pic *p, const struct pic_spec *s)
{
	uint8_t edge = pal_index(ROW_GREY, 10);

	pic_start(p, s->w, s->h, pal_index(ROW_GREY, 3));
	if (strchr(s->text, 't'))
		pic_rect(p, 0, 0, p->w, 2, edge);
	if (strchr(s->text, 'b'))
		pic_rect(p, 0, p->h - 2, p->w, 2, edge);
	if (strchr(s->text, 'l'))
		pic_rect(p, 0, 0, 2, p->h, edge);
	if (strchr(s->text, 'r'))
		pic_rect(p, p->w - 2, 0, 2, p->h, edge);
}

/* the menu's spinning cursor: a dot on a circle, one step a picture */
static void d_dot(struct pic *p, const struct pic_spec *s)
{
	static const int step[6][2] = {{0, -5}, {4, -2}, {4, 3}, {0, 5},
				       {-4, 3}, {-4, -2}};
	int k = (s->text[0] - '1') % 6;

	pic_start(p, s->w, s->h, PAL_TRANSPARENT);
	pic_rect(p, 6 + step[k][0], 10 + step[k][1], 4, 4, pal_index(ROW_GOLD, 14));
}

/* the menus' side plaque: the letters down a brown board */
static void d_plaque(struct pic *p, const struct pic_spec *s)
{
	char one[2] = {0, 0};

	pic_start(p, s->w, s->h, pal_index(ROW_BROWN, 5));
	pic_frame(p, pal_index(ROW_BROWN, 11));
	for (int i = 0; s->text[i]; i++) {
		one[0] = s->text[i];
		pic_text(p, 8, 16 + 28 * i, one, pal_index(ROW_GOLD, 14), 2);
	}
}

static void d_conback(struct pic *p, const struct pic_spec *s)
{
	pic_start(p, s->w, s->h, pal_index(s->row, 2));
	pic_rect(p, 0, p->h - 2, p->w, 2, pal_index(s->row, 6));
	pic_text(p, 4, p->h - 12, s->text, pal_index(s->row, 8), 1);
}

/* a status bar digit: the font's cell three times over */
static void d_big(struct pic *p, const struct pic_spec *s)
{
	bool alt = s->name[0] == 'a';

	pic_start(p, s->w, s->h, PAL_TRANSPARENT);
	pic_text(p, 0, 0, s->text, alt ? pal_index(ROW_RED, 13) :
		 pal_index(ROW_GOLD, 14), 3);
}

/* a weapon: its initials, grey when held, bright when in hand, flashing
 * gold (inva1..5) just after the pick-up */
static void d_weapon(struct pic *p, const struct pic_spec *s)
{
	uint8_t ink = pal_index(ROW_GREY, 10);

	if (strncmp(s->name, "inv2_", 5) == 0)
		ink = pal_index(ROW_YELLOW, 15);
	else if (strncmp(s->name, "inva", 4) == 0)
		ink = pal_index(ROW_GOLD, 15 - 2 * (s->name[4] - '1'));
	pic_start(p, s->w, s->h, PAL_TRANSPARENT);
	pic_rect(p, 0, p->h - 2, p->w, 1, pal_index(ROW_GREY, 5));
	pic_text_centred(p, 4, s->text, ink, 1);
}

/* an item: a letter on a square of its colour */
static void d_icon(struct pic *p, const struct pic_spec *s)
{
	int scale = s->w >= 24 ? 2 : 1;

	pic_start(p, s->w, s->h, pal_index(s->row, 6));
	pic_frame(p, pal_index(s->row, 12));
	pic_text_centred(p, (p->h - GLYPH * scale) / 2, s->text,
			 pal_index(ROW_GREY, 15), scale);
}

static void d_sigil(struct pic *p, const struct pic_spec *s)
{
	pic_start(p, s->w, s->h, PAL_TRANSPARENT);
	pic_rect(p, 1, 1, p->w - 2, p->h - 2, pal_index(s->row, 11));
}

/* the player's face: faceN (1 healthy .. 5 near death) and face_pN (in
 * pain) darken with the damage; the powerup faces take the powerup's
 * colour, invisibility leaves only the eyes */
static void d_face(struct pic *p, const struct pic_spec *s)
{
	enum pal_row skin = s->row;
	int level = 1, shade;
	bool pain = strncmp(s->name, "face_p", 6) == 0;
	bool eyes_only = strcmp(s->name, "face_invis") == 0;

	if (sscanf(s->name, pain ? "face_p%d" : "face%d", &level) != 1)
		level = 1;
	shade = 13 - 2 * (level - 1);
	pic_start(p, s->w, s->h, PAL_TRANSPARENT);
	if (!eyes_only) {
		pic_rect(p, 3, 2, 18, 20, pal_index(skin, shade));
		pic_rect(p, 8, pain ? 15 : 16, 8, pain ? 4 : 2,
			 pal_index(ROW_RED, pain ? 6 : 4));
	}
	pic_rect(p, 7, 8, 3, 3, pal_index(ROW_GREY, eyes_only ? 15 : 0));
	pic_rect(p, 14, 8, 3, 3, pal_index(ROW_GREY, eyes_only ? 15 : 0));
}

static void d_bar(struct pic *p, const struct pic_spec *s)
{
	pic_start(p, s->w, s->h, pal_index(ROW_GREY, 2));
	pic_rect(p, 0, 0, p->w, 1, pal_index(ROW_GREY, 6));
}

static void d_disc(struct pic *p, const struct pic_spec *s)
{
	pic_start(p, s->w, s->h, PAL_TRANSPARENT);
	for (int y = 0; y < p->h; y++) {
		for (int x = 0; x < p->w; x++) {
			int dx = 2 * x - p->w + 1, dy = 2 * y - p->h + 1;
			int d = dx * dx + dy * dy;

			if (d <= p->w * p->w && d >= 36)
				p->px[y * p->w + x] = pal_index(s->row, d > 300 ? 8 : 12);
		}
	}
}

static void d_backtile(struct pic *p, const struct pic_spec *s)
{
	pic_start(p, s->w, s->h, pal_index(ROW_GREY, 3));
	for (int y = 0; y < p->h; y += 16)
		for (int x = (y / 16) % 2 * 8; x < p->w; x += 16) {
			pic_rect(p, x, y, 8, 8, pal_index(ROW_GREY, 4));
			pic_rect(p, x + 8, y + 8, 8, 8, pal_index(ROW_GREY, 4));
		}
}

/* a warning icon: its word in a frame of its colour */
static void d_label(struct pic *p, const struct pic_spec *s)
{
	pic_start(p, s->w, s->h, PAL_TRANSPARENT);
	pic_frame(p, pal_index(s->row, 12));
	pic_text_centred(p, (p->h - GLYPH) / 2, s->text, pal_index(s->row, 14), 1);
}

/* ---- the lists ---------------------------------------------------------- */

struct list {
	struct pic_spec *v;
	size_t n, max;
	bool failed;	/* no room, or a name too long */
};

static void add(struct list *l, const char *name, int w, int h,
		void (*draw)(struct pic *, const struct pic_spec *),
		const char *text, enum pal_row row)
{
	struct pic_spec *s;
	size_t len = strlen(name);

	/* a wad lump's name has 15 characters at most */
	if (l->n >= l->max || len >= sizeof(s->name)) {
		l->failed = true;
		return;
	}
	s = &l->v[l->n++];
	memset(s->name, 0, sizeof(s->name));
	memcpy(s->name, name, len);
	s->w = w;
	s->h = h;
	s->draw = draw;
	s->text = text;
	s->row = row;
}

size_t lmp_pic_specs(struct pic_spec *out, size_t max)
{
	static const struct {
		const char *name, *edges;
		int w;
	} box[] = {
		{"box_tl", "tl", 8}, {"box_ml", "l", 8}, {"box_bl", "bl", 8},
		{"box_tm", "t", 16}, {"box_mm", "", 16}, {"box_mm2", "", 16},
		{"box_bm", "b", 16}, {"box_tr", "tr", 8}, {"box_mr", "r", 8},
		{"box_br", "br", 8},
	};
	static const char *const dots[6] = {"1", "2", "3", "4", "5", "6"};
	struct list l = {out, 0, max, false};
	char name[16];

	add(&l, "conback", 320, 200, d_conback, "qwd generated client data",
	    ROW_LIGHTBLUE);
	add(&l, "pause", 0, 24, d_title, "PAUSED", ROW_GOLD);
	add(&l, "loading", 0, 24, d_title, "LOADING", ROW_GOLD);
	for (size_t i = 0; i < sizeof(box) / sizeof(box[0]); i++)
		add(&l, box[i].name, box[i].w, 8, d_box, box[i].edges, ROW_GREY);
	add(&l, "ttl_main", 0, 24, d_title, "MAIN MENU", ROW_GOLD);
	add(&l, "mainmenu", 240, 112, d_menu,
	    "SINGLE PLAYER\nMULTIPLAYER\nOPTIONS\nHELP\nQUIT", ROW_GREY);
	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "menudot%d", i + 1);
		add(&l, name, 16, 24, d_dot, dots[i], ROW_GOLD);
	}
	add(&l, "ttl_sgl", 0, 24, d_title, "SINGLE PLAYER", ROW_GOLD);
	add(&l, "qplaque", 32, 144, d_plaque, "QWD", ROW_BROWN);
	add(&l, "sp_menu", 232, 64, d_menu, "NEW GAME\nLOAD\nSAVE", ROW_GREY);
	add(&l, "p_load", 0, 24, d_title, "LOAD", ROW_GOLD);
	add(&l, "p_save", 0, 24, d_title, "SAVE", ROW_GOLD);
	add(&l, "p_multi", 0, 24, d_title, "MULTIPLAYER", ROW_GOLD);
	add(&l, "ranking", 0, 24, d_title, "RANKING", ROW_GOLD);
	add(&l, "complete", 0, 24, d_title, "COMPLETE", ROW_GOLD);
	add(&l, "inter", 160, 64, d_menu, "TIME\nSECRETS\nKILLS", ROW_GREY);
	add(&l, "finale", 0, 24, d_title, "THE END", ROW_GOLD);
	return l.failed ? 0 : l.n;
}

size_t wad_pic_specs(struct pic_spec *out, size_t max)
{
	/* in the order of the status bar's weapon bits */
	static const struct {
		const char *name, *initials;
	} weapon[7] = {
		{"shotgun", "SG"}, {"sshotgun", "SSG"}, {"nailgun", "NG"},
		{"snailgun", "SNG"}, {"rlaunch", "GL"}, {"srlaunch", "RL"},
		{"lightng", "LG"},
	};
	static const struct {
		const char *name, *letter;
		int size;
		enum pal_row row;
	} item[] = {
		{"sb_shells", "S", 24, ROW_ORANGE}, {"sb_nails", "N", 24, ROW_LIGHTBLUE},
		{"sb_rocket", "R", 24, ROW_RED}, {"sb_cells", "C", 24, ROW_BLUE},
		{"sb_armor1", "A", 24, ROW_GREEN}, {"sb_armor2", "A", 24, ROW_YELLOW},
		{"sb_armor3", "A", 24, ROW_RED}, {"sb_key1", "K", 16, ROW_GREY},
		{"sb_key2", "K", 16, ROW_GOLD}, {"sb_invis", "I", 16, ROW_PURPLE},
		{"sb_invuln", "P", 16, ROW_RED}, {"sb_suit", "S", 16, ROW_GREEN},
		{"sb_quad", "Q", 16, ROW_BLUE},
	};
	static const char *const digits[10] = {"0", "1", "2", "3", "4", "5",
						"6", "7", "8", "9"};
	static const char *const sets[7] = {"inv", "inv2", "inva1", "inva2",
					    "inva3", "inva4", "inva5"};
	struct list l = {out, 0, max, false};
	char name[32];

	add(&l, "disc", 24, 24, d_disc, "", ROW_LIGHTBLUE);
	add(&l, "backtile", 64, 64, d_backtile, "", ROW_GREY);
	add(&l, "ram", 32, 32, d_label, "RAM", ROW_RED);
	add(&l, "net", 32, 32, d_label, "NET", ROW_RED);
	add(&l, "turtle", 32, 32, d_label, "LAG", ROW_RED);
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "num_%d", i);
		add(&l, name, 24, 24, d_big, digits[i], ROW_GOLD);
		snprintf(name, sizeof(name), "anum_%d", i);
		add(&l, name, 24, 24, d_big, digits[i], ROW_RED);
	}
	add(&l, "num_minus", 24, 24, d_big, "-", ROW_GOLD);
	add(&l, "anum_minus", 24, 24, d_big, "-", ROW_RED);
	add(&l, "num_colon", 24, 24, d_big, ":", ROW_GOLD);
	add(&l, "num_slash", 24, 24, d_big, "/", ROW_GOLD);
	for (int s = 0; s < 7; s++) {
		for (int w = 0; w < 7; w++) {
			snprintf(name, sizeof(name), "%s_%s", sets[s], weapon[w].name);
			add(&l, name, w == 6 ? 48 : 24, 16, d_weapon,
			    weapon[w].initials, ROW_GREY);
		}
	}
	for (size_t i = 0; i < sizeof(item) / sizeof(item[0]); i++)
		add(&l, item[i].name, item[i].size, item[i].size, d_icon,
		    item[i].letter, item[i].row);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "sb_sigil%d", i + 1);
		add(&l, name, 8, 16, d_sigil, "", ROW_MAGENTA);
	}
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "face%d", i + 1);
		add(&l, name, 24, 24, d_face, "", ROW_PEACH);
		snprintf(name, sizeof(name), "face_p%d", i + 1);
		add(&l, name, 24, 24, d_face, "", ROW_PEACH);
	}
	add(&l, "face_invis", 24, 24, d_face, "", ROW_PEACH);
	add(&l, "face_invul2", 24, 24, d_face, "", ROW_RED);
	add(&l, "face_inv2", 24, 24, d_face, "", ROW_RED);
	add(&l, "face_quad", 24, 24, d_face, "", ROW_BLUE);
	add(&l, "sbar", 320, 24, d_bar, "", ROW_GREY);
	add(&l, "ibar", 320, 24, d_bar, "", ROW_GREY);
	add(&l, "scorebar", 320, 24, d_bar, "", ROW_GREY);
	return l.failed ? 0 : l.n;
}
