/*
 * util.c -- messages, growable arrays, the tables' hash and contents
 * ranks for qwmap.
 *
 * Design note
 *   Errors are formatted once into the caller's buffer as
 *   "file:line: what" (line 0: "file: what"), so every stage reports the
 *   same way and the command line prints the message unchanged.  Warnings
 *   go to the context's log, or nowhere when it is NULL (-q, tests).
 *   Arrays grow by doubling; running out of memory in a batch compiler
 *   has no useful recovery, so qm_grow ends the process with a message.
 */
#include "qwmap.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int qm_fail(struct qm_ctx *ctx, int line, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (line > 0)
		snprintf(ctx->err, ctx->errlen, "%s:%d: %s", ctx->name, line, what);
	else
		snprintf(ctx->err, ctx->errlen, "%s: %s", ctx->name, what);
	return -1;
}

void qm_warn(struct qm_ctx *ctx, int line, const char *fmt, ...)
{
	va_list ap;

	ctx->warnings++;
	if (!ctx->log)
		return;
	if (line > 0)
		fprintf(ctx->log, "%s:%d: warning: ", ctx->name, line);
	else
		fprintf(ctx->log, "%s: warning: ", ctx->name);
	va_start(ap, fmt);
	vfprintf(ctx->log, fmt, ap);
	va_end(ap);
	fputc('\n', ctx->log);
}

static void out_of_memory(void)
{
	fputs("qwmap: out of memory\n", stderr);
	exit(2);
}

void qm_grow(void *arr, int *cap, int need, size_t elem)
{
	void **p = arr;
	size_t ncap;
	void *n;

	if (need <= *cap)
		return;
	ncap = *cap ? (size_t)*cap : 16;
	while (ncap < (size_t)need)
		ncap *= 2;
	if (ncap > INT32_MAX || ncap > SIZE_MAX / elem)
		out_of_memory();
	n = realloc(*p, ncap * elem);
	if (!n)
		out_of_memory();
	*p = n;
	*cap = (int)ncap;
}

void *qm_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		out_of_memory();
	return p;
}

int qm_contents_rank(int contents)
{
	switch (contents) {
	case CONTENTS_SOLID: return 5;
	case CONTENTS_SKY: return 4;
	case CONTENTS_LAVA: return 3;
	case CONTENTS_SLIME: return 2;
	case CONTENTS_WATER: return 1;
	default: return 0;
	}
}

bool qm_open_hull0(int contents)
{
	return contents == CONTENTS_EMPTY || contents == CONTENTS_WATER ||
	       contents == CONTENTS_SLIME || contents == CONTENTS_LAVA;
}

bool qm_open_empty(int contents)
{
	return contents == CONTENTS_EMPTY;
}

uint32_t qm_hash(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}
