/*
 * fuzz_entities.c -- libFuzzer target: the entity lump parser.
 *
 * Design note
 *   The entity lump is text from a map file: "{ "key" "value" ... }" blocks.
 *   ent_parse turns it into flat arrays (entities -> pairs -> offsets into
 *   one string pool); callers then index those arrays without checks, so
 *   the parse result itself is what this target checks, on top of ASan and
 *   UBSan (reads past the input or the pool, leaks, overflowed counters):
 *   - on failure: a message in err and an empty list, whatever the list
 *     held before (it starts filled with garbage here), safe to ent_free;
 *   - on success: counts within ENT_MAX_*, every entity's pairs inside the
 *     pair array, every key and value NUL-terminated inside the pool and
 *     shorter than ENT_MAX_KEY / ENT_MAX_VALUE;
 *   - ent_value finds each key of an entity and returns the first pair's
 *     value when a key repeats;
 *   - a NUL ends the text: parsing up to the first NUL gives the same list.
 *   A broken contract aborts, so libFuzzer keeps the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/world.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_fail(const char *what, long a, long b)
{
	fprintf(stderr, "fuzz_entities: contract broken: %s [%ld %ld]\n", what,
		a, b);
	abort();
}

/* offset of a NUL-terminated string inside the pool; returns its length */
static size_t fz_pool_string(const struct ent_list *l, uint32_t ofs,
			     size_t limit, const char *what)
{
	const char *end;

	if (ofs >= l->pool_size)
		fz_fail(what, ofs, (long)l->pool_size);
	end = memchr(l->pool + ofs, '\0', l->pool_size - ofs);
	if (!end)
		fz_fail("string not terminated inside the pool", ofs, 0);
	if ((size_t)(end - (l->pool + ofs)) >= limit)
		fz_fail(what, (long)(end - (l->pool + ofs)), (long)limit);
	return (size_t)(end - (l->pool + ofs));
}

/* the first pair of entity e with this key */
static uint32_t fz_first_with_key(const struct ent_list *l,
				  const struct ent_def *e, const char *key)
{
	for (uint32_t p = e->first_pair; p < e->first_pair + e->num_pairs; p++)
		if (strcmp(ent_key_at(l, p), key) == 0)
			return p;
	return UINT32_MAX;
}

static void fz_check_list(const struct ent_list *l)
{
	if (l->num_ents > ENT_MAX_ENTITIES)
		fz_fail("more than ENT_MAX_ENTITIES", l->num_ents, 0);
	if (l->num_ents && !l->ents)
		fz_fail("entities without an array", l->num_ents, 0);
	for (uint32_t i = 0; i < l->num_ents; i++) {
		const struct ent_def *e = &l->ents[i];

		if (e->num_pairs > ENT_MAX_PAIRS)
			fz_fail("more than ENT_MAX_PAIRS", i, e->num_pairs);
		if (e->first_pair > l->num_pairs ||
		    e->num_pairs > l->num_pairs - e->first_pair)
			fz_fail("pairs outside the pair array", i, e->first_pair);
		for (uint32_t p = e->first_pair; p < e->first_pair + e->num_pairs;
		     p++) {
			const char *key = ent_key_at(l, p);
			const char *v;
			uint32_t first;

			fz_pool_string(l, l->pairs[p].key, ENT_MAX_KEY,
				       "key offset or length");
			fz_pool_string(l, l->pairs[p].value, ENT_MAX_VALUE,
				       "value offset or length");
			v = ent_value(l, i, key);
			first = fz_first_with_key(l, e, key);
			if (!v || v != ent_value_at(l, first))
				fz_fail("ent_value misses a key or the first pair",
					i, p);
		}
	}
}

static void fz_check_same(const struct ent_list *a, const struct ent_list *b)
{
	if (a->num_ents != b->num_ents || a->num_pairs != b->num_pairs)
		fz_fail("text after a NUL changed the result", a->num_ents,
			b->num_ents);
	for (uint32_t p = 0; p < a->num_pairs; p++)
		if (strcmp(ent_key_at(a, p), ent_key_at(b, p)) != 0 ||
		    strcmp(ent_value_at(a, p), ent_value_at(b, p)) != 0)
			fz_fail("text after a NUL changed a pair", p, 0);
}

/* parse into a list that starts as garbage; returns the parse's result */
static int fz_parse(const char *text, size_t len, struct ent_list *l)
{
	char err[256];
	int rc;

	memset(l, 0xa5, sizeof(*l));
	memset(err, 0x7f, sizeof(err));
	rc = ent_parse(text, len, l, err, sizeof(err));
	if (rc != 0 && rc != -1)
		fz_fail("ent_parse returned neither 0 nor -1", rc, 0);
	if (rc < 0) {
		if (err[0] == '\0' || !memchr(err, '\0', sizeof(err)))
			fz_fail("refused without a message", (long)len, 0);
		if (l->num_ents || l->num_pairs || l->ents || l->pairs || l->pool)
			fz_fail("refused list is not empty", l->num_ents,
				l->num_pairs);
	}
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *nul = memchr(text, '\0', size);
	struct ent_list list, cut;
	int rc;

	rc = fz_parse(text, size, &list);
	if (rc == 0) {
		fz_check_list(&list);
		(void)ent_value(&list, 0, "classname");
	}
	if (nul) {
		int rc2 = fz_parse(text, (size_t)(nul - text), &cut);

		if (rc != rc2)
			fz_fail("text after a NUL changed success", rc, rc2);
		if (rc == 0)
			fz_check_same(&list, &cut);
		ent_free(&cut);
	}
	ent_free(&list);
	return 0;
}
