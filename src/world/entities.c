/*
 * src/world/entities.c -- the entity lump: text blocks of key/value pairs.
 *
 * Design note
 *   The lump is text written by the map compiler, in the grammar Quake's
 *   COM_Parse reads (common.c):
 *
 *     lump   := { entity }
 *     entity := '{' { token token } '}'
 *     token  := '"' any bytes but '"' and NUL '"'  |  bare word
 *
 *   Whitespace is every byte from 1 to 32 (so \r\n line ends work); "//"
 *   at the start of a token begins a comment that runs to the end of the
 *   line; a NUL byte ends the text.  A bare word runs to whitespace or a
 *   brace.  Quoted strings have no escapes and may span lines.  As in
 *   QuakeWorld's ED_ParseEdict, trailing spaces of a key are dropped (old
 *   editors wrote "angle " and the like).  Two deliberate departures from
 *   COM_Parse, which also splits bare words at ( ) ' : and silently accepts
 *   an unterminated quoted string or a missing '}': here bare words split
 *   only at whitespace and braces (nothing in key/value text needs more),
 *   and both truncations are errors, since they mean a damaged lump.
 *
 *   Parsing runs the same walk twice: the first pass checks everything
 *   and counts entities, pairs and string bytes; the second allocates the
 *   three arrays once each at their exact size and fills them.  The second
 *   pass cannot fail, so an error never leaves a half-built list behind:
 *   *out stays all zero and nothing is allocated.  Every limit
 *   (ENT_MAX_KEY, _VALUE, _PAIRS, _ENTITIES, _TEXT) is checked before any
 *   byte is copied, so a hostile lump costs at most one linear scan.
 */
#include "qwd/world.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tok_kind { TOK_END, TOK_OPEN, TOK_CLOSE, TOK_WORD, TOK_BAD };

struct token {
	enum tok_kind kind;
	const char *s;		/* TOK_WORD: first byte of the text */
	size_t len;
	uint32_t line;
};

struct lexer {
	const char *p, *end;
	uint32_t line;
};

/* One walk over the text; list arrays are NULL during the counting pass. */
struct walk {
	struct lexer lx;
	struct ent_list *list;
	uint32_t num_ents, num_pairs;
	size_t pool_used;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 3, 4)))
static int walk_fail(struct walk *w, uint32_t line, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (w->err && w->errlen)
		snprintf(w->err, w->errlen, "line %u: %s", line, what);
	return -1;
}

static bool is_space(char c)
{
	return (unsigned char)c <= ' ';
}

/* Skip whitespace and // comments, counting lines. */
static void lex_skip(struct lexer *lx)
{
	while (lx->p < lx->end) {
		char c = *lx->p;

		if (c == '\n') {
			lx->line++;
			lx->p++;
		} else if (is_space(c)) {
			lx->p++;
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
		} else {
			return;
		}
	}
}

static struct token lex_next(struct lexer *lx)
{
	struct token t = {TOK_END, NULL, 0, 0};

	lex_skip(lx);
	t.line = lx->line;
	if (lx->p >= lx->end)
		return t;
	if (*lx->p == '{' || *lx->p == '}') {
		t.kind = *lx->p == '{' ? TOK_OPEN : TOK_CLOSE;
		lx->p++;
		return t;
	}
	if (*lx->p == '"') {
		const char *q = memchr(lx->p + 1, '"', (size_t)(lx->end - lx->p - 1));

		if (!q) {
			/* t.line stays at the opening quote for the message */
			t.kind = TOK_BAD;
			lx->p = lx->end;
			return t;
		}
		t.kind = TOK_WORD;
		t.s = lx->p + 1;
		t.len = (size_t)(q - t.s);
		for (const char *c = t.s; c < q; c++)
			if (*c == '\n')
				lx->line++;
		lx->p = q + 1;
		return t;
	}
	t.kind = TOK_WORD;
	t.s = lx->p;
	while (lx->p < lx->end && !is_space(*lx->p) && *lx->p != '{' &&
	       *lx->p != '}')
		lx->p++;
	t.len = (size_t)(lx->p - t.s);
	return t;
}

/* Copy a string into the pool (fill pass) and return its offset. */
static uint32_t pool_add(struct walk *w, const char *s, size_t len)
{
	uint32_t ofs = (uint32_t)w->pool_used;

	if (w->list->pool) {
		memcpy(w->list->pool + ofs, s, len);
		w->list->pool[ofs + len] = '\0';
	}
	w->pool_used += len + 1;
	return ofs;
}

/* Text a token stands for, for messages: quoted words shown up to 24
 * bytes, so a 1 MB value does not flood the log. */
static int tok_show_len(const struct token *t)
{
	return t->len > 24 ? 24 : (int)t->len;
}

static int walk_pair(struct walk *w, const struct token *key,
		     uint32_t pairs_here)
{
	struct token val;
	size_t klen = key->len;

	while (klen > 0 && key->s[klen - 1] == ' ')
		klen--;
	if (klen >= ENT_MAX_KEY)
		return walk_fail(w, key->line, "key \"%.*s...\" is %zu bytes long (at most %d)",
				 tok_show_len(key), key->s, klen, ENT_MAX_KEY - 1);
	if (pairs_here >= ENT_MAX_PAIRS)
		return walk_fail(w, key->line, "entity has more than %d key/value pairs",
				 ENT_MAX_PAIRS);
	val = lex_next(&w->lx);
	if (val.kind == TOK_BAD)
		return walk_fail(w, val.line, "quoted string is not closed");
	if (val.kind == TOK_OPEN)
		return walk_fail(w, val.line, "'{' inside an entity");
	if (val.kind != TOK_WORD)
		return walk_fail(w, key->line, "key \"%.*s\" has no value",
				 (int)klen, key->s);
	if (val.len >= ENT_MAX_VALUE)
		return walk_fail(w, val.line, "value of \"%.*s\" is %zu bytes long (at most %d)",
				 (int)klen, key->s, val.len, ENT_MAX_VALUE - 1);
	if (w->list->pairs) {
		struct ent_pair *pr = &w->list->pairs[w->num_pairs];

		pr->key = pool_add(w, key->s, klen);
		pr->value = pool_add(w, val.s, val.len);
	} else {
		w->pool_used += klen + 1 + val.len + 1;
	}
	w->num_pairs++;
	return 0;
}

/* The body of one entity, after its '{'. */
static int walk_entity(struct walk *w, uint32_t open_line)
{
	uint32_t first = w->num_pairs;

	if (w->num_ents >= ENT_MAX_ENTITIES)
		return walk_fail(w, open_line, "more than %d entities", ENT_MAX_ENTITIES);
	for (;;) {
		struct token t = lex_next(&w->lx);

		if (t.kind == TOK_CLOSE)
			break;
		if (t.kind == TOK_END)
			return walk_fail(w, open_line, "'{' has no matching '}'");
		if (t.kind == TOK_BAD)
			return walk_fail(w, t.line, "quoted string is not closed");
		if (t.kind == TOK_OPEN)
			return walk_fail(w, t.line, "'{' inside an entity (opened on line %u)",
					 open_line);
		if (walk_pair(w, &t, w->num_pairs - first) != 0)
			return -1;
	}
	if (w->list->ents) {
		struct ent_def *e = &w->list->ents[w->num_ents];

		e->first_pair = first;
		e->num_pairs = w->num_pairs - first;
		e->line = open_line;
	}
	w->num_ents++;
	return 0;
}

static int walk_text(struct walk *w)
{
	for (;;) {
		struct token t = lex_next(&w->lx);

		switch (t.kind) {
		case TOK_END:
			return 0;
		case TOK_OPEN:
			if (walk_entity(w, t.line) != 0)
				return -1;
			break;
		case TOK_CLOSE:
			return walk_fail(w, t.line, "'}' without a matching '{'");
		case TOK_BAD:
			return walk_fail(w, t.line, "quoted string is not closed");
		case TOK_WORD:
			return walk_fail(w, t.line, "\"%.*s\" outside an entity (expected '{')",
					 tok_show_len(&t), t.s);
		}
	}
}

static uint32_t count_lines(const char *text, size_t len)
{
	uint32_t n = 1;
	const char *p = text, *end = text + len;

	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		n++;
		p++;
	}
	return n;
}

int ent_parse(const char *text, size_t len, struct ent_list *out,
	      char *err, size_t errlen)
{
	struct ent_list counting = {0};
	struct walk w = {.list = &counting, .err = err, .errlen = errlen};

	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	len = text ? strnlen(text, len) : 0;
	if (len > ENT_MAX_TEXT)
		return walk_fail(&w, count_lines(text, ENT_MAX_TEXT),
				 "entity text is longer than %d bytes", ENT_MAX_TEXT);

	w.lx = (struct lexer){text, text + len, 1};
	if (walk_text(&w) != 0)
		return -1;

	/* second pass: same walk, now storing */
	out->num_ents = w.num_ents;
	out->num_pairs = w.num_pairs;
	out->pool_size = w.pool_used;
	if (w.num_ents)
		out->ents = malloc(w.num_ents * sizeof(*out->ents));
	if (w.num_pairs)
		out->pairs = malloc(w.num_pairs * sizeof(*out->pairs));
	if (w.pool_used)
		out->pool = malloc(w.pool_used);
	if ((w.num_ents && !out->ents) || (w.num_pairs && !out->pairs) ||
	    (w.pool_used && !out->pool)) {
		ent_free(out);
		return walk_fail(&w, 1, "out of memory for %u entities", w.num_ents);
	}
	w = (struct walk){.lx = {text, text + len, 1}, .list = out,
			  .err = err, .errlen = errlen};
	if (walk_text(&w) != 0) {
		/* unreachable: the text was accepted by the first pass */
		ent_free(out);
		return -1;
	}
	return 0;
}

void ent_free(struct ent_list *list)
{
	if (!list)
		return;
	free(list->ents);
	free(list->pairs);
	free(list->pool);
	memset(list, 0, sizeof(*list));
}

const char *ent_value(const struct ent_list *list, uint32_t i, const char *key)
{
	const struct ent_def *e;

	if (!list || i >= list->num_ents)
		return NULL;
	e = &list->ents[i];
	for (uint32_t k = 0; k < e->num_pairs; k++)
		if (strcmp(ent_key_at(list, e->first_pair + k), key) == 0)
			return ent_value_at(list, e->first_pair + k);
	return NULL;
}
