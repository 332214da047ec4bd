/*
 * fuzz_mapsrc.c -- libFuzzer target: the map compiler's .map reader, and
 * for small sources the whole compile (tools/qwmap).
 *
 * Design note
 *   A .map is text an operator or a level editor hands to qwmap: entities
 *   of "key" "value" pairs and brushes of three-point planes.  qm_parse
 *   turns it into arrays the compiler then indexes without checks, so
 *   beyond ASan and UBSan this target checks the parse's contract:
 *   - it returns 0 or -1; on -1 a message in err, and the map is empty
 *     and safe to free;
 *   - on 0: every entity's pairs and brushes lie inside their arrays,
 *     every key is a string, every brush belongs to an entity and each
 *     of its six sides names a texture of the list;
 *   - qm_value finds each key of an entity.
 *   A source that parses with at most FZ_COMPILE_BRUSHES brushes is then
 *   compiled (tree, faces, vis, the BSP writer), and a compile that
 *   succeeds must write a map the server's loader accepts: whatever qwmap
 *   writes, qwd loads.  Larger sources are left to the parse alone, so
 *   the run keeps thousands of inputs a second.
 *   A broken contract aborts, so libFuzzer keeps the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/qwmap/qwmap.h"
#include "qwd/world.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FZ_COMPILE_BRUSHES = 24 };

static void fz_fail(const char *what, long a, long b)
{
	fprintf(stderr, "fuzz_mapsrc: contract broken: %s [%ld %ld]\n", what,
		a, b);
	abort();
}

static void fz_check_map(const struct qm_map *m)
{
	if (m->num_ents < 0 || m->num_pairs < 0 || m->num_brushes < 0 ||
	    m->num_tex < 0)
		fz_fail("negative count", m->num_ents, m->num_brushes);
	for (int e = 0; e < m->num_ents; e++) {
		const struct qm_entity *ent = &m->ents[e];

		if (ent->first_pair < 0 || ent->num_pairs < 0 ||
		    ent->first_pair > m->num_pairs ||
		    ent->num_pairs > m->num_pairs - ent->first_pair)
			fz_fail("pairs outside the pair array", e, ent->first_pair);
		if (ent->first_brush < 0 || ent->num_brushes < 0 ||
		    ent->first_brush > m->num_brushes ||
		    ent->num_brushes > m->num_brushes - ent->first_brush)
			fz_fail("brushes outside the brush array", e,
				ent->first_brush);
		for (int p = ent->first_pair; p < ent->first_pair + ent->num_pairs;
		     p++) {
			const char *key = m->pairs[p].key, *v;

			if (!key)
				fz_fail("pair without a key", e, p);
			if (!m->pairs[p].value)
				continue;
			(void)strlen(m->pairs[p].value);
			v = qm_value(m, e, key);
			if (!v)
				fz_fail("qm_value misses a key", e, p);
		}
	}
	for (int b = 0; b < m->num_brushes; b++) {
		const struct qm_brush *br = &m->brushes[b];

		if (br->entity < 0 || br->entity >= m->num_ents)
			fz_fail("brush of no entity", b, br->entity);
		for (int f = 0; f < 6; f++)
			if (br->sides[f].tex < 0 || br->sides[f].tex >= m->num_tex)
				fz_fail("side texture outside the texture list", b,
					br->sides[f].tex);
	}
}

static void fz_compile(const char *text, size_t len)
{
	struct qm_ctx ctx = {.name = "fuzz.map"};
	struct qm_options opt = {.allow_leak = (len & 1) != 0};
	struct qm_output out;
	struct bsp_map *map;
	char err[256], lerr[256];

	memset(&out, 0, sizeof(out));
	ctx.err = err;
	ctx.errlen = sizeof(err);
	err[0] = '\0';
	if (qm_compile(&ctx, text, len, &opt, &out) != 0) {
		if (!err[0])
			fz_fail("compile refused without a message", (long)len, 0);
		qm_output_free(&out);
		return;
	}
	map = bsp_load_mem("fuzz.bsp", out.data, out.size, lerr, sizeof(lerr));
	if (!map) {
		fprintf(stderr, "fuzz_mapsrc: the loader refused qwmap's output: %s\n",
			lerr);
		fz_fail("compiled map refused by the loader", (long)out.size, 0);
	}
	bsp_free(map);
	qm_output_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qm_ctx ctx = {.name = "fuzz.map"};
	struct qm_map map;
	char err[256];
	int rc;

	memset(&map, 0, sizeof(map));
	memset(err, 0x7f, sizeof(err));
	ctx.err = err;
	ctx.errlen = sizeof(err);
	rc = qm_parse(&ctx, (const char *)data, size, &map);
	if (rc != 0 && rc != -1)
		fz_fail("qm_parse returned neither 0 nor -1", rc, 0);
	if (rc < 0) {
		if (err[0] == '\0' || !memchr(err, '\0', sizeof(err)))
			fz_fail("refused without a message", (long)size, 0);
		if (map.num_ents || map.num_brushes || map.num_pairs)
			fz_fail("refused map is not empty", map.num_ents,
				map.num_brushes);
		qm_map_free(&map);
		return 0;
	}
	fz_check_map(&map);
	if (map.num_brushes <= FZ_COMPILE_BRUSHES && map.num_ents > 0) {
		qm_map_free(&map);
		fz_compile((const char *)data, size);
		return 0;
	}
	qm_map_free(&map);
	return 0;
}
