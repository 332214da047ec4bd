/*
 * test_parse.c -- the .map reader: brushes, texture axes, and every kind of
 * malformed input reported with its line.
 *
 * Design note: the texts are written inline so each error's expected line
 * number can be read off the test.  Brushes use the point layout editors
 * write (three points one unit apart on each plane); their orientation is
 * the convention of id's qbsp: (p0 - p1) x (p2 - p1) points out.
 */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/qwmap/qwmap.h"

/* a box x 32..80, y -240..-144, z 80..112, in an editor's point layout */
#define EDITOR_BOX(tex)                                                     \
	"{\n"                                                               \
	"( 32 -256 112 ) ( 32 -255 112 ) ( 32 -256 113 ) " tex " 0 0 0 1 1\n"  \
	"( 64 -240 96 ) ( 63 -240 96 ) ( 64 -240 97 ) " tex " 0 0 0 1 1\n"    \
	"( 64 -576 80 ) ( 64 -575 80 ) ( 63 -576 80 ) " tex " 0 0 0 1 1\n"    \
	"( -16 -256 112 ) ( -17 -256 112 ) ( -16 -255 112 ) " tex " 0 0 0 1 1\n" \
	"( -16 -144 112 ) ( -16 -144 113 ) ( -17 -144 112 ) " tex " 0 0 0 1 1\n" \
	"( 80 -576 96 ) ( 80 -576 97 ) ( 80 -575 96 ) " tex " 0 0 0 1 1\n"    \
	"}\n"

/* a 64-unit cube at the origin: six lines */
#define CUBE_LINES(tex)                                          \
	"( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 ) " tex " 0 0 0 1 1\n"    \
	"( 64 0 0 ) ( 64 0 64 ) ( 64 64 0 ) " tex " 0 0 0 1 1\n" \
	"( 0 0 64 ) ( 64 0 0 ) ( 0 0 0 ) " tex " 0 0 0 1 1\n"    \
	"( 0 64 0 ) ( 64 64 0 ) ( 0 64 64 ) " tex " 0 0 0 1 1\n" \
	"( 64 0 0 ) ( 0 64 0 ) ( 0 0 0 ) " tex " 0 0 0 1 1\n"    \
	"( 0 0 64 ) ( 0 64 64 ) ( 64 0 64 ) " tex " 0 0 0 1 1\n"

static int parse(const char *text, struct qm_map *map, char *err, size_t errlen)
{
	struct qm_ctx ctx = {"t.map", err, errlen, NULL, 0};

	return qm_parse(&ctx, text, strlen(text), map);
}

static void expect_error(const char *text, int line, const char *what)
{
	struct qm_map map;
	char err[512], prefix[32];

	err[0] = '\0';
	if (parse(text, &map, err, sizeof(err)) == 0) {
		qm_map_free(&map);
		fail_msg("parsed, but expected an error at line %d: %s", line, what);
	}
	snprintf(prefix, sizeof(prefix), "t.map:%d: ", line);
	if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, what))
		fail_msg("got \"%s\"; want line %d and \"%s\"", err, line, what);
}

static void test_editor_brush(void **state)
{
	struct qm_map map;
	char err[512];
	const char *text =
		"// Game: Quake\n"
		"{\n\"classname\" \"worldspawn\"\n"
		EDITOR_BOX("rock")
		"}\n";

	(void)state;
	assert_int_equal(parse(text, &map, err, sizeof(err)), 0);
	assert_int_equal(map.num_ents, 1);
	assert_int_equal(map.num_brushes, 1);
	const struct qm_brush *b = &map.brushes[0];

	assert_true(b->mins[0] == 32 && b->maxs[0] == 80);
	assert_true(b->mins[1] == -240 && b->maxs[1] == -144);
	assert_true(b->mins[2] == 80 && b->maxs[2] == 112);
	assert_int_equal(b->contents, CONTENTS_SOLID);
	assert_int_equal(b->line, 4);
	assert_string_equal(map.texnames[b->sides[0].tex], "rock");
	qm_map_free(&map);
}

static void test_entities_and_comments(void **state)
{
	struct qm_map map;
	char err[512];
	const char *text =
		"// a comment { with braces }\n"
		"{\n"
		"\"classname\" \"worldspawn\" // trailing comment\n"
		"\"message\" \"The Hall\"\n"
		"{\n" CUBE_LINES("*water0") "}\n"
		"}\n"
		"{\n\"classname\" \"info_player_start\"\n\"origin\" \"32 32 24\"\n}\n";

	(void)state;
	assert_int_equal(parse(text, &map, err, sizeof(err)), 0);
	assert_int_equal(map.num_ents, 2);
	assert_string_equal(qm_value(&map, 0, "message"), "The Hall");
	assert_string_equal(qm_value(&map, 1, "origin"), "32 32 24");
	assert_null(qm_value(&map, 1, "model"));
	assert_int_equal(map.ents[1].line, 14);
	assert_int_equal(map.brushes[0].contents, CONTENTS_WATER);
	qm_map_free(&map);
}

static void test_texture_contents(void **state)
{
	(void)state;
	assert_int_equal(qm_texture_contents("*lava1"), CONTENTS_LAVA);
	assert_int_equal(qm_texture_contents("*LAVA_x"), CONTENTS_LAVA);
	assert_int_equal(qm_texture_contents("*slime0"), CONTENTS_SLIME);
	assert_int_equal(qm_texture_contents("*04water1"), CONTENTS_WATER);
	assert_int_equal(qm_texture_contents("*teleport"), CONTENTS_WATER);
	assert_int_equal(qm_texture_contents("sky4"), CONTENTS_SKY);
	assert_int_equal(qm_texture_contents("SKY1"), CONTENTS_SKY);
	assert_int_equal(qm_texture_contents("clip"), CONTENTS_CLIP);
	assert_int_equal(qm_texture_contents("hint"), CONTENTS_ORIGIN);
	assert_int_equal(qm_texture_contents("origin"), CONTENTS_ORIGIN);
	assert_int_equal(qm_texture_contents("+0button"), CONTENTS_SOLID);
	assert_int_equal(qm_texture_contents("{grate"), CONTENTS_SOLID);
	assert_int_equal(qm_texture_contents("skip"), CONTENTS_SOLID);
}

static const struct qm_side *side_of(const struct qm_map *map, int axis, int high)
{
	return &map->brushes[0].sides[axis * 2 + high];
}

/* Standard axes: a floor (+z) gets s = +x, t = -y; a +x wall s = +y,
 * t = -z; scales divide, offsets are copied, 90 degrees turns exactly. */
static void test_standard_axes(void **state)
{
	struct qm_map map;
	char err[512];
	const char *text =
		"{\n\"classname\" \"worldspawn\"\n{\n"
		"( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		"( 64 0 0 ) ( 64 0 64 ) ( 64 64 0 ) t 8 4 0 2 0.5\n"
		"( 0 0 64 ) ( 64 0 0 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		"( 0 64 0 ) ( 64 64 0 ) ( 0 64 64 ) t 0 0 0 1 1\n"
		"( 64 0 0 ) ( 0 64 0 ) ( 0 0 0 ) t 0 0 90 1 1\n"
		"( 0 0 64 ) ( 0 64 64 ) ( 64 0 64 ) t 16 0 0 0 0\n"
		"}\n}\n";

	(void)state;
	assert_int_equal(parse(text, &map, err, sizeof(err)), 0);
	/* top (+z): s = (1 0 0), t = (0 -1 0), offset 16, zero scales = 1 */
	const struct qm_side *s = side_of(&map, 2, 1);

	assert_true(s->vecs[0][0] == 1 && s->vecs[0][1] == 0 && s->vecs[0][2] == 0);
	assert_true(s->vecs[1][0] == 0 && s->vecs[1][1] == -1 && s->vecs[1][2] == 0);
	assert_true(s->vecs[0][3] == 16 && s->vecs[1][3] == 0);
	/* +x wall: s = (0 1 0) / 2, t = (0 0 -1) / 0.5, offsets 8 and 4 */
	s = side_of(&map, 0, 1);
	assert_true(s->vecs[0][0] == 0 && s->vecs[0][1] == 0.5 && s->vecs[0][2] == 0);
	assert_true(s->vecs[1][0] == 0 && s->vecs[1][1] == 0 && s->vecs[1][2] == -2);
	assert_true(s->vecs[0][3] == 8 && s->vecs[1][3] == 4);
	/* bottom (-z) turned 90 degrees: s = (0 1 0)... exactly, no rounding */
	s = side_of(&map, 2, 0);
	assert_true(s->vecs[0][0] == 0 && s->vecs[0][1] == 1 && s->vecs[0][2] == 0);
	assert_true(s->vecs[1][0] == 1 && s->vecs[1][1] == 0 && s->vecs[1][2] == 0);
	qm_map_free(&map);
}

static void test_valve_axes(void **state)
{
	struct qm_map map;
	char err[512];
	const char *text =
		"{\n\"classname\" \"worldspawn\"\n\"mapversion\" \"220\"\n{\n"
		"( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 ) t [ 0 1 0 5 ] [ 0 0 -1 6 ] 0 1 1\n"
		"( 64 0 0 ) ( 64 0 64 ) ( 64 64 0 ) t [ 0 1 0 0 ] [ 0 0 -1 0 ] 0 1 1\n"
		"( 0 0 64 ) ( 64 0 0 ) ( 0 0 0 ) t [ 1 0 0 0 ] [ 0 0 -1 0 ] 0 1 1\n"
		"( 0 64 0 ) ( 64 64 0 ) ( 0 64 64 ) t [ 1 0 0 0 ] [ 0 0 -1 0 ] 0 1 1\n"
		"( 64 0 0 ) ( 0 64 0 ) ( 0 0 0 ) t [ 0.6 0.8 0 1 ] [ -0.8 0.6 0 2 ] 37 2 4\n"
		"( 0 0 64 ) ( 0 64 64 ) ( 64 0 64 ) t [ 1 0 0 0 ] [ 0 -1 0 0 ] 0 1 1\n"
		"}\n}\n";

	(void)state;
	assert_int_equal(parse(text, &map, err, sizeof(err)), 0);
	const struct qm_side *s = side_of(&map, 0, 0);

	assert_true(s->vecs[0][1] == 1 && s->vecs[0][3] == 5);
	assert_true(s->vecs[1][2] == -1 && s->vecs[1][3] == 6);
	/* axes divided by the scales, rotation ignored (already in the axes) */
	s = side_of(&map, 2, 0);
	assert_true(fabs(s->vecs[0][0] - 0.3) < 1e-12 && fabs(s->vecs[0][1] - 0.4) < 1e-12);
	assert_true(fabs(s->vecs[1][0] + 0.2) < 1e-12 && fabs(s->vecs[1][1] - 0.15) < 1e-12);
	assert_true(s->vecs[0][3] == 1 && s->vecs[1][3] == 2);
	qm_map_free(&map);
}

static void test_duplicate_plane_dropped(void **state)
{
	struct qm_map map;
	char err[512];
	const char *text =
		"{\n\"classname\" \"worldspawn\"\n{\n" CUBE_LINES("t")
		"( 64 0 0 ) ( 64 0 64 ) ( 64 64 0 ) t 0 0 0 1 1\n"
		"}\n}\n";

	(void)state;
	assert_int_equal(parse(text, &map, err, sizeof(err)), 0);
	assert_int_equal(map.num_brushes, 1);
	qm_map_free(&map);
}

/* ---- malformed input -------------------------------------------------- */

static void test_unbalanced_braces(void **state)
{
	(void)state;
	/* entity never closed: reported at its opening brace */
	expect_error("{\n\"classname\" \"worldspawn\"\n{\n" CUBE_LINES("t") "}\n",
		     1, "unbalanced braces");
	/* brush never closed */
	expect_error("{\n\"classname\" \"worldspawn\"\n{\n"
		     "( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 ) t 0 0 0 1 1\n",
		     3, "end of file before the brush's '}'");
	/* one '}' too many */
	expect_error("{\n\"classname\" \"worldspawn\"\n}\n\n}\n", 5, "unbalanced braces");
}

static void test_bad_numbers(void **state)
{
	(void)state;
	expect_error("{\n\"classname\" \"worldspawn\"\n{\n"
		     "( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 64 0 0 ) ( 64 0 6x4 ) ( 64 64 0 ) t 0 0 0 1 1\n"
		     "}\n}\n",
		     5, "bad number '6x4'");
	expect_error("{\n\"classname\" \"worldspawn\"\n{\n"
		     "( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 ) t zero 0 0 1 1\n}\n}\n",
		     4, "bad number 'zero'");
	expect_error("{\n\"classname\" \"worldspawn\"\n{\n"
		     "( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 ) t 0 0 0 1 nan\n}\n}\n",
		     4, "bad number");
	expect_error("{\n\"classname\" \"worldspawn\"\n{\n"
		     "( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 )\n}\n}\n",
		     4, "the plane's line ends before the texture name");
	expect_error("{\n\"classname\" \"worldspawn\"\n{\n"
		     "( 0 64 0 ) ( 0 0 64 ( 0 0 0 ) t 0 0 0 1 1\n}\n}\n",
		     4, "expected ')', found '('");
	expect_error("{\n\"classname\" \"worldspawn\"\n{\n"
		     "( 0 64 0 ) ( 0 0 99999 ) ( 0 0 0 ) t 0 0 0 1 1\n}\n}\n",
		     4, "outside");
}

static void test_non_axial_plane(void **state)
{
	(void)state;
	/* entity 0 brush 0 is fine; brush 1's last plane (line 17) is tilted */
	expect_error("{\n\"classname\" \"worldspawn\"\n"
		     "{\n" CUBE_LINES("t") "}\n"
		     "{\n"
		     "( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 64 0 0 ) ( 64 0 64 ) ( 64 64 0 ) t 0 0 0 1 1\n"
		     "( 0 0 64 ) ( 64 0 0 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 0 64 0 ) ( 64 64 0 ) ( 0 64 64 ) t 0 0 0 1 1\n"
		     "( 64 0 0 ) ( 0 64 0 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 0 0 64 ) ( 0 64 64 ) ( 64 0 96 ) t 0 0 0 1 1\n"
		     "}\n}\n",
		     17, "entity 0, brush 1: plane 5 is not axis-aligned");
}

static void test_brush_shapes(void **state)
{
	(void)state;
	/* five planes: open towards +z */
	expect_error("{\n\"classname\" \"worldspawn\"\n{\n"
		     "( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 64 0 0 ) ( 64 0 64 ) ( 64 64 0 ) t 0 0 0 1 1\n"
		     "( 0 0 64 ) ( 64 0 0 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 0 64 0 ) ( 64 64 0 ) ( 0 64 64 ) t 0 0 0 1 1\n"
		     "( 64 0 0 ) ( 0 64 0 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "}\n}\n",
		     3, "no plane faces +z");
	/* top at z = 0 = bottom: no volume */
	expect_error("{\n\"classname\" \"worldspawn\"\n{\n"
		     "( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 64 0 0 ) ( 64 0 64 ) ( 64 64 0 ) t 0 0 0 1 1\n"
		     "( 0 0 64 ) ( 64 0 0 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 0 64 0 ) ( 64 64 0 ) ( 0 64 64 ) t 0 0 0 1 1\n"
		     "( 64 0 0 ) ( 0 64 0 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 0 0 0 ) ( 0 64 0 ) ( 64 0 0 ) t 0 0 0 1 1\n"
		     "}\n}\n",
		     3, "brush has no volume (z from 0 to 0)");
	/* inside out: the "top" is below the bottom */
	expect_error("{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"func_wall\"\n{\n"
		     "( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 64 0 0 ) ( 64 0 64 ) ( 64 64 0 ) t 0 0 0 1 1\n"
		     "( 0 0 64 ) ( 64 0 0 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 0 64 0 ) ( 64 64 0 ) ( 0 64 64 ) t 0 0 0 1 1\n"
		     "( 64 0 0 ) ( 0 64 0 ) ( 0 0 0 ) t 0 0 0 1 1\n"
		     "( 0 0 -8 ) ( 0 64 -8 ) ( 64 0 -8 ) t 0 0 0 1 1\n"
		     "}\n}\n",
		     6, "entity 1, brush 0: brush has no volume");
	/* two planes facing +x */
	expect_error("{\n\"classname\" \"worldspawn\"\n{\n" CUBE_LINES("t")
		     "( 32 0 0 ) ( 32 0 64 ) ( 32 64 0 ) t 0 0 0 1 1\n"
		     "}\n}\n",
		     10, "two planes face +x (at 64 and 32)");
	/* three points on a line */
	expect_error("{\n\"classname\" \"worldspawn\"\n{\n"
		     "( 0 0 0 ) ( 0 0 32 ) ( 0 0 64 ) t 0 0 0 1 1\n}\n}\n",
		     4, "three points on one line");
}

static void test_other_errors(void **state)
{
	(void)state;
	expect_error("{\n\"classname\" \"worldspawn\n}\n", 2, "unterminated quoted string");
	expect_error("{\n\"classname\" \"info_null\"\n}\n", 1, "must be the worldspawn");
	expect_error("{\n\"classname\" \"worldspawn\"\n\"key\"\n}\n", 4, "has no quoted value");
	expect_error("{\n\"classname\" \"worldspawn\"\nkey \"value\"\n}\n", 3, "expected a quoted key");
	expect_error("{\n\"classname\" \"worldspawn\"\n{\n"
		     "( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 ) a_very_long_texture_name 0 0 0 1 1\n}\n}\n",
		     4, "longer than 15 characters");
	expect_error("\"classname\" \"worldspawn\"\n", 1, "expected '{'");
	expect_error("{\n\"classname\" \"worldspawn\"\n{\n"
		     "( 0 64 0 ) ( 0 0 64 ) ( 0 0 0 ) t [ 1 0 0 0 ] 0 1 1\n}\n}\n",
		     4, "expected '['");
	{
		struct qm_map map;
		char err[256];

		assert_int_equal(parse("// only a comment\n", &map, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "no entities"));
	}
}

static const struct CMUnitTest parse_tests[] = {
	cmocka_unit_test(test_editor_brush),
	cmocka_unit_test(test_entities_and_comments),
	cmocka_unit_test(test_texture_contents),
	cmocka_unit_test(test_standard_axes),
	cmocka_unit_test(test_valve_axes),
	cmocka_unit_test(test_duplicate_plane_dropped),
	cmocka_unit_test(test_unbalanced_braces),
	cmocka_unit_test(test_bad_numbers),
	cmocka_unit_test(test_non_axial_plane),
	cmocka_unit_test(test_brush_shapes),
	cmocka_unit_test(test_other_errors),
};

QWD_TEST_GROUP(qwmap_parse, parse_tests, NULL, NULL)
