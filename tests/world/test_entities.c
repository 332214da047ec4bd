/*
 * tests/world/test_entities.c -- the entity lump parser.
 *
 * Design note: small texts check the grammar (quoted and bare tokens,
 * comments, \r\n, a NUL ending the text, trailing spaces of keys, the first
 * of repeated keys winning) and each refusal with the line it names; every
 * limit is checked on both sides of its edge.  Then every bundled map's
 * entities are checked against its source, maps/NAME.map, read here by a
 * scanner of its own (not qwmap's parser, not ent_parse): the same
 * entities in the same order with the same pairs, and a "model" "*N" for
 * each entity that has brushes.  As an optional extra, every community
 * map is loaded and its entities counted against the corpus README.
 */
#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/world.h"

static bool list_is_empty(const struct ent_list *l)
{
	static const struct ent_list zero;

	return memcmp(l, &zero, sizeof(zero)) == 0;
}

static void test_parse_basic(void **state)
{
	static const char text[] =
		"// a comment before the first entity\r\n"
		"{\r\n"
		"\"classname\" \"worldspawn\"\r\n"
		"\"message\" \"two\nlines\" // comment after a pair\r\n"
		"\"wad\" \"\"\r\n"
		"}\n"
		"{ classname info_player_deathmatch \"origin\" \"1 2 3\"\n"
		"\"angle \" \"90\" \"angle\" \"180\" }\n"
		"{}\n";
	struct ent_list l;
	char err[128];

	(void)state;
	assert_int_equal(ent_parse(text, strlen(text), &l, err, sizeof(err)), 0);
	assert_int_equal(l.num_ents, 3);
	assert_int_equal(l.num_pairs, 7);

	assert_string_equal(ent_value(&l, 0, "classname"), "worldspawn");
	assert_string_equal(ent_value(&l, 0, "message"), "two\nlines");
	assert_string_equal(ent_value(&l, 0, "wad"), "");
	assert_null(ent_value(&l, 0, "origin"));
	assert_int_equal(l.ents[0].line, 2);
	assert_int_equal(l.ents[0].num_pairs, 3);

	/* bare words, and a key with a trailing space found without it */
	assert_string_equal(ent_value(&l, 1, "classname"), "info_player_deathmatch");
	assert_string_equal(ent_value(&l, 1, "origin"), "1 2 3");
	assert_string_equal(ent_value(&l, 1, "angle"), "90");
	assert_string_equal(ent_key_at(&l, l.ents[1].first_pair + 2), "angle");
	assert_string_equal(ent_value_at(&l, l.ents[1].first_pair + 3), "180");
	/* the quoted newline in entity 0 counts as a line */
	assert_int_equal(l.ents[1].line, 8);

	assert_int_equal(l.ents[2].num_pairs, 0);
	assert_int_equal(l.ents[2].line, 10);
	assert_null(ent_value(&l, 2, "classname"));
	assert_null(ent_value(&l, 3, "classname"));

	/* the pool is exactly the strings and their terminators */
	assert_int_equal(l.pool_size,
			 sizeof("classname") + sizeof("worldspawn") + sizeof("message") +
			 sizeof("two\nlines") + sizeof("wad") + sizeof("") +
			 sizeof("classname") + sizeof("info_player_deathmatch") +
			 sizeof("origin") + sizeof("1 2 3") + sizeof("angle") +
			 sizeof("90") + sizeof("angle") + sizeof("180"));
	ent_free(&l);
	assert_true(list_is_empty(&l));
	ent_free(&l);	/* freeing twice is harmless */
}

static void test_parse_nul_ends_text(void **state)
{
	static const char text[] = "{ \"a\" \"b\" }\0{ this is not parsed";
	struct ent_list l;
	char err[128];

	(void)state;
	assert_int_equal(ent_parse(text, sizeof(text), &l, err, sizeof(err)), 0);
	assert_int_equal(l.num_ents, 1);
	assert_string_equal(ent_value(&l, 0, "a"), "b");
	ent_free(&l);
}

static void test_parse_empty(void **state)
{
	struct ent_list l;
	char err[128];

	(void)state;
	assert_int_equal(ent_parse("", 0, &l, err, sizeof(err)), 0);
	assert_true(list_is_empty(&l));
	assert_int_equal(ent_parse(" \r\n// only a comment\n\t", 22, &l, err,
				   sizeof(err)), 0);
	assert_true(list_is_empty(&l));
	assert_null(ent_value(&l, 0, "classname"));
}

/* ---- refusals ---------------------------------------------------------- */

/* Parse text expecting a refusal at line, with what in the message. */
static void expect_error(const char *text, size_t len, unsigned line,
			 const char *what)
{
	struct ent_list l;
	char err[256], prefix[32];

	memset(&l, 0x5a, sizeof(l));	/* garbage in: must come back zeroed */
	err[0] = '\0';
	assert_int_equal(ent_parse(text, len, &l, err, sizeof(err)), -1);
	assert_true(list_is_empty(&l));
	snprintf(prefix, sizeof(prefix), "line %u: ", line);
	if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, what))
		fail_msg("want \"%s...%s\", got \"%s\"", prefix, what, err);
}

static void test_errors(void **state)
{
	static const struct {
		const char *text;
		unsigned line;
		const char *what;
	} cases[] = {
		{"{ \"a\" \"b\" }\n{\n\"c\" \"d\"\n", 2, "no matching '}'"},
		{"{ \"a\" \"b\" }\n\n}\n", 3, "'}' without a matching '{'"},
		{"{\n\"a\" \"b\"\n\"c\"\n}\n", 3, "key \"c\" has no value"},
		{"{\n\"a\"", 2, "key \"a\" has no value"},
		{"{\n\"a\" \"b\n\nc }\n", 2, "quoted string is not closed"},
		{"{\n\"a\" \"b\" \"c\n", 2, "quoted string is not closed"},
		{"{ \"a\" \"b\" }\n\"junk\"\n", 2, "outside an entity"},
		{"{ \"a\" \"b\" }\r\n// c\r\nworldspawn", 3, "outside an entity"},
		{"{\n\"a\" \"b\"\n{\n}\n}\n", 3, "'{' inside an entity"},
		{"{\n\"a\" {\n}\n", 2, "'{' inside an entity"},
		{"// \"{\"\n}", 2, "'}' without"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_error(cases[i].text, strlen(cases[i].text), cases[i].line,
			     cases[i].what);
}

/* "{\n" + pairs of "kN" "v" lines + "}" with one key or value of a given
 * length on line 2 */
static char *make_entity(size_t keylen, size_t vallen, int pairs)
{
	size_t cap = keylen + vallen + 64 + (size_t)pairs * 32;
	char *t = malloc(cap);
	size_t n = 0;

	assert_non_null(t);
	n += (size_t)snprintf(t + n, cap - n, "{\n\"");
	memset(t + n, 'k', keylen);
	n += keylen;
	n += (size_t)snprintf(t + n, cap - n, "\" \"");
	memset(t + n, 'v', vallen);
	n += vallen;
	n += (size_t)snprintf(t + n, cap - n, "\"\n");
	for (int i = 1; i < pairs; i++)
		n += (size_t)snprintf(t + n, cap - n, "\"k%d\" \"v\"\n", i);
	snprintf(t + n, cap - n, "}\n");
	return t;
}

static void expect_ok(const char *text, uint32_t pairs)
{
	struct ent_list l;
	char err[256];

	if (ent_parse(text, strlen(text), &l, err, sizeof(err)) != 0)
		fail_msg("refused: %s", err);
	assert_int_equal(l.num_ents, 1);
	assert_int_equal(l.num_pairs, pairs);
	ent_free(&l);
}

static void test_limits(void **state)
{
	char *t;

	(void)state;
	t = make_entity(ENT_MAX_KEY - 1, 1, 1);
	expect_ok(t, 1);
	free(t);
	t = make_entity(ENT_MAX_KEY, 1, 1);
	expect_error(t, strlen(t), 2, "bytes long");
	free(t);

	t = make_entity(1, ENT_MAX_VALUE - 1, 1);
	expect_ok(t, 1);
	free(t);
	t = make_entity(1, ENT_MAX_VALUE, 1);
	expect_error(t, strlen(t), 2, "value of \"k\"");
	free(t);

	/* line 2 + 256 pairs: the 257th pair is on line 258 */
	t = make_entity(1, 1, ENT_MAX_PAIRS);
	expect_ok(t, ENT_MAX_PAIRS);
	free(t);
	t = make_entity(1, 1, ENT_MAX_PAIRS + 1);
	expect_error(t, strlen(t), ENT_MAX_PAIRS + 2, "key/value pairs");
	free(t);
}

static void test_limit_entities(void **state)
{
	size_t n = 3 * (size_t)(ENT_MAX_ENTITIES + 1);
	char *t = malloc(n + 1);
	struct ent_list l;
	char err[128];

	(void)state;
	assert_non_null(t);
	for (size_t i = 0; i < n; i += 3)
		memcpy(t + i, "{}\n", 3);
	t[n] = '\0';
	assert_int_equal(ent_parse(t, n - 3, &l, err, sizeof(err)), 0);
	assert_int_equal(l.num_ents, ENT_MAX_ENTITIES);
	ent_free(&l);
	expect_error(t, n, ENT_MAX_ENTITIES + 1, "more than 65536 entities");
	free(t);
}

static void test_limit_text(void **state)
{
	size_t n = (size_t)ENT_MAX_TEXT + 1;
	char *t = malloc(n);

	(void)state;
	assert_non_null(t);
	memset(t, ' ', n);
	t[0] = '\n';
	expect_error(t, n, 2, "longer than");
	free(t);
}

/* ---- real maps --------------------------------------------------------- */

static const struct realmap_ents {
	const char *file;
	uint32_t ents;
	int dm, start, coop;
} realmaps[] = {
	{"lqdm1.bsp", 78, 8, 1, 0},	{"lqdm2.bsp", 117, 8, 1, 0},
	{"lqdm3.bsp", 102, 10, 1, 0},	{"lqdm4.bsp", 111, 9, 1, 0},
	{"lqdm5.bsp", 2691, 8, 1, 0},	{"lqdm6.bsp", 114, 9, 1, 0},
	{"lqdm7.bsp", 180, 12, 1, 0},	{"lqdm8.bsp", 164, 8, 1, 0},
	{"lqdm9.bsp", 193, 8, 1, 0},	{"lqdm10.bsp", 194, 10, 1, 0},
	{"lqdm11.bsp", 98, 8, 1, 0},	{"lqdm12.bsp", 170, 10, 1, 0},
	{"lqdm13.bsp", 108, 8, 1, 0},	{"lq_e1m1.bsp", 548, 7, 1, 4},
	{"lq_e1m2.bsp", 396, 11, 1, 4}, {"lq_e2m2.bsp", 460, 9, 1, 4},
	{"lq_e3m3.bsp", 473, 9, 1, 4},
	{"ewt_lightstest1.bsp", 85, 0, 1, 0},
	{"ewt_testrotators.bsp", 8, 0, 1, 0},
	{"ewt_phongtest.bsp", 4, 0, 1, 0},
	{"ewt_glasstest.bsp", 22, 0, 1, 0},
	{"ewt_stairsteptest.bsp", 5, 0, 1, 0},
	{"ewt_calcpointstest.bsp", 9, 0, 1, 0},
	{"ewt_testphongtjunc.bsp", 3, 0, 1, 0},
	{"ewt_testslime.bsp", 4, 0, 1, 0},
	/* the BSP2 builds of lqdm2 and lqdm11 share their sources */
	{"lqdm2_bsp2.bsp", 117, 8, 1, 0},
	{"lqdm11_2psb.bsp", 98, 8, 1, 0},
};

static int count_class(const struct ent_list *l, const char *classname)
{
	int n = 0;

	for (uint32_t i = 0; i < l->num_ents; i++) {
		const char *c = ent_value(l, i, "classname");

		if (c && strcmp(c, classname) == 0)
			n++;
	}
	return n;
}

static void test_realmaps(void **state)
{
	(void)state;
	if (!qwd_realmaps_dir())
		qwd_skip_no_realmaps();
	for (size_t i = 0; i < sizeof(realmaps) / sizeof(realmaps[0]); i++) {
		const struct realmap_ents *r = &realmaps[i];
		char err[512];
		struct bsp_map *m = bsp_load(qwd_realmap(r->file), err, sizeof(err));

		if (!m)
			fail_msg("%s", err);
		if (m->ents.num_ents != r->ents)
			fail_msg("%s: %u entities, want %u", r->file,
				 m->ents.num_ents, r->ents);
		assert_string_equal(ent_value(&m->ents, 0, "classname"), "worldspawn");
		assert_int_equal(m->ents.ents[0].line, 1);
		assert_int_equal(count_class(&m->ents, "info_player_deathmatch"), r->dm);
		assert_int_equal(count_class(&m->ents, "info_player_start"), r->start);
		assert_int_equal(count_class(&m->ents, "info_player_coop"), r->coop);
		for (uint32_t e = 0; e < m->ents.num_ents; e++)
			assert_non_null(ent_value(&m->ents, e, "classname"));
		bsp_free(m);
	}
}

/* lqdm5's lump is the largest: parse it straight from the file as well,
 * so the numbers do not depend on the loader. */
static void test_lqdm5_lump(void **state)
{
	const char *path = qwd_realmap("lqdm5.bsp");
	uint8_t *file;
	size_t size = 0;
	uint32_t ofs, len;
	struct ent_list l;
	char err[256];

	(void)state;
	if (!path)
		qwd_skip_no_realmaps();
	file = qwd_read_file(path, &size);
	assert_non_null(file);
	assert_true(size >= 4 + 8 * BSP_NUM_LUMPS);
	ofs = (uint32_t)file[4] | (uint32_t)file[5] << 8 | (uint32_t)file[6] << 16 |
	      (uint32_t)file[7] << 24;
	len = (uint32_t)file[8] | (uint32_t)file[9] << 8 | (uint32_t)file[10] << 16 |
	      (uint32_t)file[11] << 24;
	assert_true((uint64_t)ofs + len <= size);
	assert_int_equal(len, 346695);
	if (ent_parse((const char *)file + ofs, len, &l, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(l.num_ents, 2691);
	assert_int_equal(count_class(&l, "light"), 2590);
	assert_int_equal(count_class(&l, "light_fluoro"), 8);
	assert_int_equal(count_class(&l, "ambient_light_buzz"), 3);
	ent_free(&l);
	free(file);
}

/* ---- bundled maps against their sources ------------------------------ */

/* The next token of .map text: a brace, a quoted string (its contents) or
 * a bare word; // comments skipped.  Returns its length, or -1 at the end;
 * *quoted tells a string from a word. */
static int map_token(const char **p, const char **tok, bool *quoted)
{
	const char *s = *p;

	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
			s++;
		if (s[0] == '/' && s[1] == '/') {
			while (*s && *s != '\n')
				s++;
			continue;
		}
		break;
	}
	if (!*s)
		return -1;
	*quoted = *s == '"';
	if (*quoted) {
		const char *end = strchr(s + 1, '"');

		assert_non_null(end);
		*tok = s + 1;
		*p = end + 1;
		return (int)(end - s - 1);
	}
	*tok = s;
	if (*s == '{' || *s == '}') {
		*p = s + 1;
		return 1;
	}
	while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
		s++;
	*p = s;
	return (int)(s - *tok);
}

/* Walk the source's entities alongside the loaded map's: entity e of the
 * source has every one of its pairs in entity e of the map, and nothing
 * else but the "model" of its brushes. */
static void match_source(const struct bsp_map *m, const char *src,
			 const char *name)
{
	const char *p = src, *tok;
	char key[ENT_MAX_KEY], val[ENT_MAX_VALUE];
	uint32_t e = 0, pairs = 0;
	int depth = 0, brushes = 0, models = 0, len;
	bool quoted, have_key = false;

	while ((len = map_token(&p, &tok, &quoted)) >= 0) {
		if (!quoted && *tok == '{') {
			depth++;
			brushes += depth == 2;
			assert_true(depth <= 2);
			continue;
		}
		if (!quoted && *tok == '}') {
			if (--depth > 0)
				continue;
			assert_int_equal(depth, 0);
			assert_true(e < m->ents.num_ents);
			if (brushes && e > 0) {
				char want[16];

				snprintf(want, sizeof(want), "*%d", ++models);
				pairs++;
				if (!ent_value(&m->ents, e, "model") ||
				    strcmp(ent_value(&m->ents, e, "model"), want) != 0)
					fail_msg("%s: entity %u: model %s, want %s", name,
						 e, ent_value(&m->ents, e, "model"), want);
			}
			assert_int_equal(m->ents.ents[e].num_pairs, pairs);
			e++;
			pairs = 0;
			brushes = 0;
			continue;
		}
		if (depth != 1)
			continue;	/* inside a brush */
		assert_true(quoted);
		assert_true(len < ENT_MAX_VALUE);
		if (!have_key) {
			assert_true(len < ENT_MAX_KEY);
			snprintf(key, sizeof(key), "%.*s", len, tok);
		} else {
			const char *got;

			snprintf(val, sizeof(val), "%.*s", len, tok);
			got = ent_value(&m->ents, e, key);
			if (!got || strcmp(got, val) != 0)
				fail_msg("%s: entity %u: \"%s\" is \"%s\", source "
					 "says \"%s\"", name, e, key, got ? got : "(none)",
					 val);
			pairs++;
		}
		have_key = !have_key;
	}
	assert_int_equal(depth, 0);
	assert_false(have_key);
	assert_int_equal(e, m->ents.num_ents);
	assert_int_equal(models + 1, m->num_models);
}

static void bundled_against_source(const char *name, void *arg)
{
	size_t size = 0, fsize = 0;
	char *src = (char *)qwd_read_file(qwd_bundled_map_source(name), &size);
	uint8_t *file = qwd_read_file(qwd_bundled_map(name), &fsize);
	struct bsp_map *m;
	struct ent_list l;
	char err[512];
	uint32_t ofs, len;

	assert_non_null(src);
	if (!file)
		fail_msg("%s: cannot read the bundled map (make maps)",
			 qwd_bundled_map(name));
	src[size] = '\0';
	m = bsp_load(qwd_bundled_map(name), err, sizeof(err));
	if (!m)
		fail_msg("%s", err);
	assert_string_equal(ent_value(&m->ents, 0, "classname"), "worldspawn");
	assert_int_equal(m->ents.ents[0].line, 1);
	match_source(m, src, name);

	/* the lump straight from the file gives the loader's numbers */
	ofs = (uint32_t)file[4] | (uint32_t)file[5] << 8 | (uint32_t)file[6] << 16 |
	      (uint32_t)file[7] << 24;
	len = (uint32_t)file[8] | (uint32_t)file[9] << 8 | (uint32_t)file[10] << 16 |
	      (uint32_t)file[11] << 24;
	assert_true((uint64_t)ofs + len <= fsize);
	if (ent_parse((const char *)file + ofs, len, &l, err, sizeof(err)) != 0)
		fail_msg("%s: %s", name, err);
	assert_int_equal(l.num_ents, m->ents.num_ents);
	assert_int_equal(l.num_pairs, m->ents.num_pairs);
	*(uint32_t *)arg += l.num_ents;
	ent_free(&l);
	bsp_free(m);
	free(file);
	free(src);
}

static void test_bundled_maps(void **state)
{
	uint32_t ents = 0;

	(void)state;
	assert_true(qwd_each_bundled_map(bundled_against_source, &ents) >= 2);
	/* small's 108 and large's entities at least */
	assert_true(ents > 200);
}

static const struct CMUnitTest entities_tests[] = {
	cmocka_unit_test(test_parse_basic),
	cmocka_unit_test(test_parse_nul_ends_text),
	cmocka_unit_test(test_parse_empty),
	cmocka_unit_test(test_errors),
	cmocka_unit_test(test_limits),
	cmocka_unit_test(test_limit_entities),
	cmocka_unit_test(test_limit_text),
	cmocka_unit_test(test_bundled_maps),
	cmocka_unit_test(test_realmaps),
	cmocka_unit_test(test_lqdm5_lump),
};

QWD_TEST_GROUP(entities, entities_tests, NULL, NULL)
