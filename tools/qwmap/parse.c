/*
 * parse.c -- read the Quake .map text into entities and box brushes.
 *
 * Design note
 *   Grammar (what TrenchBroom and the classic editors write):
 *
 *     map    := { entity }
 *     entity := '{' { pair | brush } '}'
 *     pair   := "key" "value"
 *     brush  := '{' { plane } '}'
 *     plane  := '(' x y z ')' '(' x y z ')' '(' x y z ')' TEXNAME texdef
 *     texdef := xoff yoff rot xscale yscale                      standard
 *             | '[' ux uy uz uoff ']' '[' vx vy vz voff ']' rot xscale yscale
 *                                                                 Valve 220
 *
 *   Tokens are separated by whitespace only (as id's qbsp reads them), so a
 *   texture name such as "{grate" or "*water0" is one token; "//" at the
 *   start of a token comments out the rest of the line; quoted strings stay
 *   on one line and have no escapes.  A plane is one line: every token after
 *   its first '(' must be on that line (id's parser reads planes the same
 *   way), so a short line is reported as such.  Every token keeps its line
 *   number and every error names it.
 *
 *   Planes: the normal is (p0 - p1) x (p2 - p1), which points out of the
 *   brush for points written clockwise as seen from outside (id's qbsp
 *   map.c); the brush is the space behind all its planes.  qwmap accepts a
 *   plane only if its three points share one coordinate (an axial plane);
 *   the cross product's sign then says whether it bounds the brush from
 *   above or below on that axis.  Identical planes are dropped (id warns
 *   and does the same); the rest must be exactly the six faces of a box
 *   with volume, else the brush is refused with its entity and brush
 *   numbers and the line.
 *
 *   Texture axes: standard planes get Quake's axes (the base axis pair of
 *   the nearest of six directions, first best wins; rotated by rot degrees
 *   with exact values at multiples of 90; divided by the scales, a zero
 *   scale meaning 1; offsets as given): the facts of id's
 *   TextureAxisFromPlane and ParseBrush.  Valve planes give their axes
 *   directly: s = u / xscale + uoff, t = v / yscale + voff.
 *
 *   Brush contents come from the texture of the brush's first plane in the
 *   file: "*lava.." lava, "*slime.." slime, other "*.." water, "sky.." sky,
 *   "clip" clip (hulls 1 and 2 only), else solid; names compare without
 *   case, as Quake's compilers do.  "origin" and "hint"/"hintskip" brushes
 *   have no meaning here and are dropped with a warning.
 */
#include "qwmap.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { TOK_MAX = 1100 };	/* longest token: a 1023-byte value + quotes */

struct lexer {
	struct qm_ctx *ctx;
	const char *p, *end;
	int line;
	/* the current token */
	char tok[TOK_MAX];
	int tok_line;
	bool quoted;
	bool eof;
};

/* Read the next token.  Returns 0, or -1 on a lexical error.  At the end
 * of the text lx->eof is set and tok is empty. */
static int lex_next(struct lexer *lx)
{
	size_t n = 0;

	lx->quoted = false;
	lx->tok[0] = '\0';
	for (;;) {
		while (lx->p < lx->end && (unsigned char)*lx->p <= ' ') {
			if (*lx->p == '\n')
				lx->line++;
			lx->p++;
		}
		if (lx->p + 1 < lx->end && lx->p[0] == '/' && lx->p[1] == '/') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
			continue;
		}
		break;
	}
	lx->tok_line = lx->line;
	if (lx->p >= lx->end) {
		lx->eof = true;
		return 0;
	}
	if (*lx->p == '"') {
		lx->quoted = true;
		lx->p++;
		while (lx->p < lx->end && *lx->p != '"') {
			if (*lx->p == '\n' || *lx->p == '\0')
				return qm_fail(lx->ctx, lx->tok_line,
					       "unterminated quoted string");
			if (n + 1 >= TOK_MAX)
				return qm_fail(lx->ctx, lx->tok_line,
					       "quoted string longer than %d bytes", TOK_MAX - 1);
			lx->tok[n++] = *lx->p++;
		}
		if (lx->p >= lx->end)
			return qm_fail(lx->ctx, lx->tok_line, "unterminated quoted string");
		lx->p++;
		lx->tok[n] = '\0';
		return 0;
	}
	while (lx->p < lx->end && (unsigned char)*lx->p > ' ') {
		if (*lx->p == '\0')
			return qm_fail(lx->ctx, lx->tok_line, "NUL byte in the text");
		if (n + 1 >= TOK_MAX)
			return qm_fail(lx->ctx, lx->tok_line, "token longer than %d bytes",
				       TOK_MAX - 1);
		lx->tok[n++] = *lx->p++;
	}
	lx->tok[n] = '\0';
	return 0;
}

static bool tok_is(const struct lexer *lx, const char *s)
{
	return !lx->eof && !lx->quoted && strcmp(lx->tok, s) == 0;
}

/* a short quoted rendering of the current token for messages */
static const char *tok_show(const struct lexer *lx, char *buf, size_t len)
{
	if (lx->eof)
		return "end of file";
	snprintf(buf, len, "'%.40s%s'", lx->tok, strlen(lx->tok) > 40 ? "..." : "");
	return buf;
}

/* Every token of a plane is on the plane's own line (id's parser reads
 * them the same way): a token found further down means the line ended
 * early, which is reported as such rather than as a strange token. */
static int next_on_line(struct lexer *lx, int line, const char *what)
{
	if (lex_next(lx))
		return -1;
	if (lx->eof || lx->tok_line != line)
		return qm_fail(lx->ctx, line, "the plane's line ends before %s", what);
	return 0;
}

static int expect(struct lexer *lx, int line, const char *what)
{
	char b[64], q[8];

	snprintf(q, sizeof(q), "'%s'", what);
	if (next_on_line(lx, line, q))
		return -1;
	if (!tok_is(lx, what))
		return qm_fail(lx->ctx, lx->tok_line, "expected '%s', found %s", what,
			       tok_show(lx, b, sizeof(b)));
	return 0;
}

static int read_number(struct lexer *lx, int line, const char *what, double *out)
{
	char b[64];
	char *end;
	double v;

	if (next_on_line(lx, line, what))
		return -1;
	if (lx->quoted || lx->tok[0] == '\0')
		return qm_fail(lx->ctx, lx->tok_line, "expected %s, found %s", what,
			       tok_show(lx, b, sizeof(b)));
	v = strtod(lx->tok, &end);
	if (*end != '\0' || end == lx->tok || !isfinite(v))
		return qm_fail(lx->ctx, lx->tok_line, "bad number %s for %s",
			       tok_show(lx, b, sizeof(b)), what);
	*out = v;
	return 0;
}

/* The BSP stores texture axes as 32-bit floats: a tiny scale (1e-300)
 * gives axes no float holds, which the loader would refuse. */
static int check_vecs(struct lexer *lx, int line, const double vecs[2][4])
{
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 4; k++)
			if (!isfinite((float)vecs[i][k]))
				return qm_fail(lx->ctx, line,
					       "texture axes out of range (a scale too "
					       "close to 0, or an offset too large)");
	return 0;
}

/* ---- textures --------------------------------------------------------- */

int qm_texture_contents(const char *name)
{
	if (name[0] == '*') {
		if (strncasecmp(name + 1, "lava", 4) == 0)
			return CONTENTS_LAVA;
		if (strncasecmp(name + 1, "slime", 5) == 0)
			return CONTENTS_SLIME;
		return CONTENTS_WATER;
	}
	if (strncasecmp(name, "sky", 3) == 0)
		return CONTENTS_SKY;
	if (strcasecmp(name, "clip") == 0)
		return CONTENTS_CLIP;
	if (strcasecmp(name, "origin") == 0 || strcasecmp(name, "hint") == 0 ||
	    strcasecmp(name, "hintskip") == 0)
		return CONTENTS_ORIGIN;
	return CONTENTS_SOLID;
}

static int texture_index(struct qm_map *map, const char *name)
{
	for (int i = 0; i < map->num_tex; i++)
		if (strcasecmp(map->texnames[i], name) == 0)
			return i;
	char (*slot)[QM_TEXNAME] = QM_PUSH(map->texnames, map->num_tex, map->cap_tex);
	memset(*slot, 0, QM_TEXNAME);
	memcpy(*slot, name, strlen(name));
	return map->num_tex - 1;
}

/* Quake's base texture axes: for each of six directions (floor, ceiling,
 * west, east, south, north walls) the normal, then the s and t axes. */
static const double base_axis[18][3] = {
	{0, 0, 1}, {1, 0, 0}, {0, -1, 0},
	{0, 0, -1}, {1, 0, 0}, {0, -1, 0},
	{1, 0, 0}, {0, 1, 0}, {0, 0, -1},
	{-1, 0, 0}, {0, 1, 0}, {0, 0, -1},
	{0, 1, 0}, {1, 0, 0}, {0, 0, -1},
	{0, -1, 0}, {1, 0, 0}, {0, 0, -1},
};

static void standard_axes(const double normal[3], const double texdef[5],
			  double vecs[2][4])
{
	double v[2][3], best = 0, sinv, cosv, scale[2];
	int bestaxis = 0, sv, tv;

	for (int i = 0; i < 6; i++) {
		double d = normal[0] * base_axis[i * 3][0] +
			   normal[1] * base_axis[i * 3][1] +
			   normal[2] * base_axis[i * 3][2];
		if (d > best) {
			best = d;
			bestaxis = i;
		}
	}
	memcpy(v[0], base_axis[bestaxis * 3 + 1], sizeof(v[0]));
	memcpy(v[1], base_axis[bestaxis * 3 + 2], sizeof(v[1]));

	double rot = texdef[2];
	if (rot == 0) {
		sinv = 0; cosv = 1;
	} else if (rot == 90) {
		sinv = 1; cosv = 0;
	} else if (rot == 180) {
		sinv = 0; cosv = -1;
	} else if (rot == 270) {
		sinv = -1; cosv = 0;
	} else {
		sinv = sin(rot / 180 * M_PI);
		cosv = cos(rot / 180 * M_PI);
	}
	sv = v[0][0] != 0 ? 0 : v[0][1] != 0 ? 1 : 2;
	tv = v[1][0] != 0 ? 0 : v[1][1] != 0 ? 1 : 2;
	for (int i = 0; i < 2; i++) {
		double ns = cosv * v[i][sv] - sinv * v[i][tv];
		double nt = sinv * v[i][sv] + cosv * v[i][tv];

		v[i][sv] = ns;
		v[i][tv] = nt;
	}
	scale[0] = texdef[3] != 0 ? texdef[3] : 1;
	scale[1] = texdef[4] != 0 ? texdef[4] : 1;
	for (int i = 0; i < 2; i++) {
		for (int j = 0; j < 3; j++)
			vecs[i][j] = v[i][j] / scale[i];
		vecs[i][3] = texdef[i];
	}
}

/* ---- brushes ---------------------------------------------------------- */

struct plane_in {
	int axis;
	int high;		/* 1: bounds the brush from above (+axis normal) */
	double dist;
	int line;
	int tex;
	double vecs[2][4];
};

static double to_float_precision(double v)
{
	return (double)(float)v;
}

static const char *axis_name(int axis, int high)
{
	static const char *const names[3][2] = {
		{"-x", "+x"}, {"-y", "+y"}, {"-z", "+z"}
	};
	return names[axis][high];
}

/* Read one plane line after its opening '(' has been read. */
static int read_plane(struct lexer *lx, struct qm_map *map, int ent, int bnum,
		      int pnum, struct plane_in *pl)
{
	double pts[3][3], t1[3], t2[3], n[3];
	int line = lx->tok_line;
	char b[64];

	for (int i = 0; i < 3; i++) {
		if (i > 0 && expect(lx, line, "("))
			return -1;
		for (int k = 0; k < 3; k++) {
			if (read_number(lx, line, "a plane point coordinate", &pts[i][k]))
				return -1;
			if (fabs(pts[i][k]) > QM_MAX_COORD)
				return qm_fail(lx->ctx, lx->tok_line,
					       "coordinate %g is outside +-%d", pts[i][k],
					       QM_MAX_COORD);
		}
		if (expect(lx, line, ")"))
			return -1;
	}
	if (next_on_line(lx, line, "the texture name"))
		return -1;
	if (lx->quoted || lx->tok[0] == '\0')
		return qm_fail(lx->ctx, lx->tok_line, "expected a texture name, found %s",
			       tok_show(lx, b, sizeof(b)));
	if (strlen(lx->tok) >= QM_TEXNAME)
		return qm_fail(lx->ctx, lx->tok_line,
			       "texture name '%s' is longer than %d characters",
			       lx->tok, QM_TEXNAME - 1);
	pl->tex = texture_index(map, lx->tok);
	pl->line = line;

	for (int k = 0; k < 3; k++) {
		t1[k] = pts[0][k] - pts[1][k];
		t2[k] = pts[2][k] - pts[1][k];
	}
	n[0] = t1[1] * t2[2] - t1[2] * t2[1];
	n[1] = t1[2] * t2[0] - t1[0] * t2[2];
	n[2] = t1[0] * t2[1] - t1[1] * t2[0];
	if (n[0] == 0 && n[1] == 0 && n[2] == 0)
		return qm_fail(lx->ctx, line,
			       "entity %d, brush %d: plane %d has three points on one line",
			       ent, bnum, pnum);
	pl->axis = -1;
	for (int a = 0; a < 3; a++)
		if (pts[0][a] == pts[1][a] && pts[1][a] == pts[2][a])
			pl->axis = a;
	if (pl->axis < 0) {
		double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);

		return qm_fail(lx->ctx, line,
			       "entity %d, brush %d: plane %d is not axis-aligned "
			       "(normal %.3g %.3g %.3g); qwmap accepts box brushes only",
			       ent, bnum, pnum, n[0] / len, n[1] / len, n[2] / len);
	}
	pl->high = n[pl->axis] > 0;
	pl->dist = to_float_precision(pts[1][pl->axis]);

	/* the texture definition: Valve 220 when a '[' follows */
	double normal[3] = {0, 0, 0};
	double texdef[5];

	normal[pl->axis] = pl->high ? 1 : -1;
	if (next_on_line(lx, line, "the texture x offset"))
		return -1;
	if (tok_is(lx, "[")) {
		double ax[2][4], rot, sc[2];

		for (int i = 0; i < 2; i++) {
			if (i > 0 && expect(lx, line, "["))
				return -1;
			for (int k = 0; k < 4; k++)
				if (read_number(lx, line, "a Valve texture axis", &ax[i][k]))
					return -1;
			if (expect(lx, line, "]"))
				return -1;
		}
		if (read_number(lx, line, "the texture rotation", &rot) ||
		    read_number(lx, line, "the texture x scale", &sc[0]) ||
		    read_number(lx, line, "the texture y scale", &sc[1]))
			return -1;
		for (int i = 0; i < 2; i++) {
			double s = sc[i] != 0 ? sc[i] : 1;

			for (int k = 0; k < 3; k++)
				pl->vecs[i][k] = ax[i][k] / s;
			pl->vecs[i][3] = ax[i][3];
		}
		return check_vecs(lx, line, pl->vecs);
	}
	/* standard: the token just read is the x offset */
	{
		char *end;

		texdef[0] = strtod(lx->tok, &end);
		if (lx->quoted || end == lx->tok || *end != '\0' ||
		    !isfinite(texdef[0]))
			return qm_fail(lx->ctx, lx->tok_line,
				       "bad number %s for the texture x offset",
				       tok_show(lx, b, sizeof(b)));
	}
	if (read_number(lx, line, "the texture y offset", &texdef[1]) ||
	    read_number(lx, line, "the texture rotation", &texdef[2]) ||
	    read_number(lx, line, "the texture x scale", &texdef[3]) ||
	    read_number(lx, line, "the texture y scale", &texdef[4]))
		return -1;
	standard_axes(normal, texdef, pl->vecs);
	return check_vecs(lx, line, pl->vecs);
}

/* Read a brush after its '{'; appends it to map unless it is dropped. */
static int read_brush(struct lexer *lx, struct qm_map *map, int ent, int bnum)
{
	struct plane_in planes[6], pl;
	int have[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
	int num = 0, pnum = 0, line = lx->tok_line, first_tex = -1;
	char b[64];

	for (;;) {
		if (lex_next(lx))
			return -1;
		if (lx->eof)
			return qm_fail(lx->ctx, line,
				       "entity %d, brush %d: end of file before the brush's '}'",
				       ent, bnum);
		if (tok_is(lx, "}"))
			break;
		if (!tok_is(lx, "("))
			return qm_fail(lx->ctx, lx->tok_line,
				       "entity %d, brush %d: expected '(' or '}', found %s",
				       ent, bnum, tok_show(lx, b, sizeof(b)));
		if (read_plane(lx, map, ent, bnum, pnum, &pl))
			return -1;
		pnum++;
		if (first_tex < 0)
			first_tex = pl.tex;
		int *slot = &have[pl.axis][pl.high];

		if (*slot >= 0) {
			if (planes[*slot].dist == pl.dist)
				continue;	/* the same plane twice */
			return qm_fail(lx->ctx, pl.line,
				       "entity %d, brush %d: two planes face %s (at %g and %g); "
				       "a box brush has one plane per side",
				       ent, bnum, axis_name(pl.axis, pl.high),
				       planes[*slot].dist, pl.dist);
		}
		*slot = num;
		planes[num++] = pl;
	}
	for (int a = 0; a < 3; a++)
		for (int h = 0; h < 2; h++)
			if (have[a][h] < 0)
				return qm_fail(lx->ctx, line,
					       "entity %d, brush %d: brush is not closed: no plane faces %s",
					       ent, bnum, axis_name(a, h));
	struct qm_brush br;

	memset(&br, 0, sizeof(br));
	for (int a = 0; a < 3; a++) {
		br.mins[a] = planes[have[a][0]].dist;
		br.maxs[a] = planes[have[a][1]].dist;
		if (br.mins[a] >= br.maxs[a])
			return qm_fail(lx->ctx, line,
				       "entity %d, brush %d: brush has no volume (%c from %g to %g)",
				       ent, bnum, "xyz"[a], br.mins[a], br.maxs[a]);
		for (int h = 0; h < 2; h++) {
			const struct plane_in *p = &planes[have[a][h]];
			struct qm_side *s = &br.sides[a * 2 + h];

			s->tex = p->tex;
			s->line = p->line;
			memcpy(s->vecs, p->vecs, sizeof(s->vecs));
		}
	}
	br.contents = qm_texture_contents(map->texnames[first_tex]);
	br.entity = ent;
	br.number = bnum;
	br.line = line;
	if (br.contents == CONTENTS_ORIGIN) {
		qm_warn(lx->ctx, line, "entity %d, brush %d: '%s' brush ignored", ent, bnum,
			map->texnames[first_tex]);
		return 0;
	}
	if (map->num_brushes >= QM_MAX_BRUSHES)
		return qm_fail(lx->ctx, line, "more than %d brushes", QM_MAX_BRUSHES);
	*QM_PUSH(map->brushes, map->num_brushes, map->cap_brushes) = br;
	return 0;
}

static char *dup_token(const struct lexer *lx)
{
	size_t n = strlen(lx->tok) + 1;
	char *s = qm_calloc(n, 1);

	memcpy(s, lx->tok, n);
	return s;
}

/* Read an entity after its '{'. */
static int read_entity(struct lexer *lx, struct qm_map *map)
{
	int e = map->num_ents, bnum = 0;
	struct qm_entity *ent;
	char b[64];

	if (e >= QM_MAX_ENTITIES)
		return qm_fail(lx->ctx, lx->tok_line, "more than %d entities", QM_MAX_ENTITIES);
	ent = QM_PUSH(map->ents, map->num_ents, map->cap_ents);
	memset(ent, 0, sizeof(*ent));
	ent->line = lx->tok_line;
	ent->first_pair = map->num_pairs;
	ent->first_brush = map->num_brushes;
	ent->model = -1;
	for (;;) {
		if (lex_next(lx))
			return -1;
		if (lx->eof)
			return qm_fail(lx->ctx, map->ents[e].line,
				       "entity %d: end of file before the entity's '}' "
				       "(unbalanced braces)", e);
		if (tok_is(lx, "}"))
			break;
		if (tok_is(lx, "{")) {
			if (read_brush(lx, map, e, bnum++))
				return -1;
			continue;
		}
		if (!lx->quoted)
			return qm_fail(lx->ctx, lx->tok_line,
				       "entity %d: expected a quoted key, '{' or '}', found %s",
				       e, tok_show(lx, b, sizeof(b)));
		if (strlen(lx->tok) >= ENT_MAX_KEY)
			return qm_fail(lx->ctx, lx->tok_line, "entity %d: key longer than %d bytes",
				       e, ENT_MAX_KEY - 1);
		if (map->num_pairs - map->ents[e].first_pair >= ENT_MAX_PAIRS)
			return qm_fail(lx->ctx, lx->tok_line, "entity %d: more than %d keys",
				       e, ENT_MAX_PAIRS);
		struct qm_pair *pr = QM_PUSH(map->pairs, map->num_pairs, map->cap_pairs);

		pr->key = dup_token(lx);
		pr->value = NULL;
		if (lex_next(lx))
			return -1;
		if (!lx->quoted)
			return qm_fail(lx->ctx, lx->tok_line,
				       "entity %d: key \"%s\" has no quoted value (found %s)",
				       e, pr->key, tok_show(lx, b, sizeof(b)));
		if (strlen(lx->tok) >= ENT_MAX_VALUE)
			return qm_fail(lx->ctx, lx->tok_line,
				       "entity %d: value longer than %d bytes", e, ENT_MAX_VALUE - 1);
		pr->value = dup_token(lx);
	}
	ent = &map->ents[e];
	ent->num_pairs = map->num_pairs - ent->first_pair;
	ent->num_brushes = map->num_brushes - ent->first_brush;
	return 0;
}

int qm_parse(struct qm_ctx *ctx, const char *text, size_t len, struct qm_map *map)
{
	struct lexer *lx = qm_calloc(1, sizeof(*lx));
	char b[64];
	int rc = -1;

	memset(map, 0, sizeof(*map));
	lx->ctx = ctx;
	lx->p = text;
	lx->end = text + len;
	lx->line = 1;
	for (;;) {
		if (lex_next(lx))
			goto out;
		if (lx->eof)
			break;
		if (!tok_is(lx, "{")) {
			qm_fail(ctx, lx->tok_line, "expected '{' to open an entity, found %s%s",
				tok_show(lx, b, sizeof(b)),
				tok_is(lx, "}") ? " (unbalanced braces)" : "");
			goto out;
		}
		if (read_entity(lx, map))
			goto out;
	}
	if (map->num_ents == 0) {
		qm_fail(ctx, 0, "no entities (a map needs a worldspawn)");
		goto out;
	}
	const char *cls = qm_value(map, 0, "classname");

	if (!cls || strcmp(cls, "worldspawn") != 0) {
		qm_fail(ctx, map->ents[0].line,
			"the first entity must be the worldspawn (classname is \"%s\")",
			cls ? cls : "");
		goto out;
	}
	rc = 0;
out:
	free(lx);
	if (rc)
		qm_map_free(map);
	return rc;
}

void qm_map_free(struct qm_map *map)
{
	for (int i = 0; i < map->num_pairs; i++) {
		free(map->pairs[i].key);
		free(map->pairs[i].value);
	}
	free(map->pairs);
	free(map->ents);
	free(map->brushes);
	free(map->texnames);
	memset(map, 0, sizeof(*map));
}

const char *qm_value(const struct qm_map *map, int e, const char *key)
{
	const struct qm_entity *ent = &map->ents[e];

	for (int i = 0; i < ent->num_pairs; i++) {
		const struct qm_pair *p = &map->pairs[ent->first_pair + i];

		if (p->value && strcmp(p->key, key) == 0)
			return p->value;
	}
	return NULL;
}
