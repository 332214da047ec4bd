/*
 * expo.c -- the Prometheus text exposition format (version 0.0.4), written
 * into a caller-owned buffer.
 *
 * Design note
 *   Every line is built whole before it is committed: a line goes into
 *   the free space after p->len, and only when its last byte (the '\n')
 *   fit does p->len move past it.  A line that does not fit leaves the
 *   page as it was and sets p->truncated; from then on every call returns
 *   at once.  So a truncated page still ends on a line boundary, and the
 *   HTTP side can refuse it (500) instead of serving half a histogram.
 *   No allocation and no locale: numbers are printed with %llu, or %.15g
 *   for fractions (%.17g when 15 digits do not read back as the same
 *   double), which the "C" locale the server runs in writes with a '.'.
 */
#include "qwd/metrics.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void metrics_page_init(struct metrics_page *p, char *buf, size_t size)
{
	p->buf = buf;
	p->size = size;
	p->len = 0;
	p->truncated = false;
	if (size > 0)
		buf[0] = '\0';
}

/* the line being built does not fit: the page ends at its last whole
 * line (the bytes of this one past the terminator are left over) */
static bool stop(struct metrics_page *p)
{
	p->truncated = true;
	if (p->size > 0)
		p->buf[p->len] = '\0';
	return false;
}

/* the part of a line being built: bytes from p->len + *at on */
static bool put(struct metrics_page *p, size_t *at, const char *s, size_t n)
{
	if (p->truncated || p->len + *at + n >= p->size)
		return stop(p);
	memcpy(p->buf + p->len + *at, s, n);
	*at += n;
	return true;
}

static bool puts_(struct metrics_page *p, size_t *at, const char *s)
{
	return put(p, at, s, strlen(s));
}

static bool putf(struct metrics_page *p, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool putf(struct metrics_page *p, size_t *at, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return stop(p);
	return put(p, at, tmp, (size_t)n);
}

/* the line's end: commit it (and keep the page a C string) */
static void commit(struct metrics_page *p, size_t at)
{
	if (!put(p, &at, "\n", 1))
		return;
	p->len += at;
	p->buf[p->len] = '\0';
}

size_t metrics_escape_label(const char *in, size_t inlen, char *out,
			    size_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < inlen; i++) {
		unsigned char c = (unsigned char)in[i];
		char e[2];
		size_t k = 1;

		e[0] = (char)c;
		if (c == '\\' || c == '"') {
			e[0] = '\\';
			e[1] = (char)c;
			k = 2;
		} else if (c == '\n') {
			e[0] = '\\';
			e[1] = 'n';
			k = 2;
		} else if (c < 0x20 || c >= 0x7f) {
			/* not UTF-8 text: Prometheus would refuse the page */
			e[0] = '?';
		}
		for (size_t j = 0; j < k; j++, n++)
			if (n + 1 < size)
				out[n] = e[j];
	}
	if (size > 0)
		out[n < size ? n : size - 1] = '\0';
	return n;
}

/* a label value, escaped straight into the line */
static bool put_label_value(struct metrics_page *p, size_t *at, const char *v)
{
	size_t room, n;

	if (p->truncated)
		return false;
	room = p->size - p->len - *at;
	n = metrics_escape_label(v, strlen(v), p->buf + p->len + *at, room);
	if (n >= room)
		return stop(p);
	*at += n;
	return true;
}

/* name{a="x",b="y"[,le="bound"]} -- le may be NULL */
static bool put_name(struct metrics_page *p, size_t *at, const char *name,
		     const char *suffix, const struct metrics_label *l, int n,
		     const char *le)
{
	bool open = false;

	if (!puts_(p, at, name) || !puts_(p, at, suffix))
		return false;
	for (int i = 0; i < n; i++) {
		if (!puts_(p, at, open ? "," : "{") || !puts_(p, at, l[i].name) ||
		    !puts_(p, at, "=\"") || !put_label_value(p, at, l[i].value) ||
		    !puts_(p, at, "\""))
			return false;
		open = true;
	}
	if (le) {
		if (!puts_(p, at, open ? ",le=\"" : "{le=\"") ||
		    !puts_(p, at, le) || !puts_(p, at, "\""))
			return false;
		open = true;
	}
	return !open || puts_(p, at, "}");
}

static bool put_double(struct metrics_page *p, size_t *at, double v)
{
	char tmp[32];

	if (isnan(v))
		return puts_(p, at, "NaN");
	if (isinf(v))
		return puts_(p, at, v > 0 ? "+Inf" : "-Inf");
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return putf(p, at, "%lld", (long long)v);
	/* the shortest of 15 or 17 digits that reads back as v */
	snprintf(tmp, sizeof(tmp), "%.15g", v);
	if (strtod(tmp, NULL) != v)
		snprintf(tmp, sizeof(tmp), "%.17g", v);
	return puts_(p, at, tmp);
}

/* HELP text: backslash and newline escaped (quotes stay) */
static bool put_help(struct metrics_page *p, size_t *at, const char *s)
{
	for (; *s; s++) {
		const char *e = *s == '\\' ? "\\\\" : *s == '\n' ? "\\n" : NULL;

		if (!(e ? puts_(p, at, e) : put(p, at, s, 1)))
			return false;
	}
	return true;
}

void metrics_family(struct metrics_page *p, const char *name,
		    enum metrics_type type, const char *help)
{
	static const char *const types[] = {"counter", "gauge", "histogram"};
	size_t at = 0;

	if (puts_(p, &at, "# HELP ") && puts_(p, &at, name) &&
	    puts_(p, &at, " ") && put_help(p, &at, help))
		commit(p, at);
	at = 0;
	if (puts_(p, &at, "# TYPE ") && puts_(p, &at, name) &&
	    puts_(p, &at, " ") && puts_(p, &at, types[type]))
		commit(p, at);
}

void metrics_sample(struct metrics_page *p, const char *name,
		    const struct metrics_label *labels, int n, double value)
{
	size_t at = 0;

	if (put_name(p, &at, name, "", labels, n, NULL) &&
	    puts_(p, &at, " ") && put_double(p, &at, value))
		commit(p, at);
}

void metrics_sample_u64(struct metrics_page *p, const char *name,
			const struct metrics_label *labels, int n,
			uint64_t value)
{
	size_t at = 0;

	if (put_name(p, &at, name, "", labels, n, NULL) &&
	    putf(p, &at, " %llu", (unsigned long long)value))
		commit(p, at);
}

void metrics_counter(struct metrics_page *p, const char *name,
		     const char *help, uint64_t value)
{
	metrics_family(p, name, METRICS_COUNTER, help);
	metrics_sample_u64(p, name, NULL, 0, value);
}

void metrics_gauge(struct metrics_page *p, const char *name,
		   const char *help, double value)
{
	metrics_family(p, name, METRICS_GAUGE, help);
	metrics_sample(p, name, NULL, 0, value);
}

void metrics_histogram(struct metrics_page *p, const char *name,
		       const struct metrics_label *labels, int n,
		       const struct qwd_hist *h, const uint64_t *le, int nle,
		       double scale)
{
	char bound[40];
	size_t at;

	for (int i = 0; i <= nle; i++) {
		uint64_t c = i < nle ? qwd_hist_count_le(h, le[i]) : h->count;

		if (i < nle)
			snprintf(bound, sizeof(bound), "%.12g",
				 (double)le[i] * scale);
		else
			snprintf(bound, sizeof(bound), "+Inf");
		at = 0;
		if (put_name(p, &at, name, "_bucket", labels, n, bound) &&
		    putf(p, &at, " %llu", (unsigned long long)c))
			commit(p, at);
	}
	at = 0;
	if (put_name(p, &at, name, "_sum", labels, n, NULL) &&
	    puts_(p, &at, " ") &&
	    put_double(p, &at, (double)h->sum * scale))
		commit(p, at);
	at = 0;
	if (put_name(p, &at, name, "_count", labels, n, NULL) &&
	    putf(p, &at, " %llu", (unsigned long long)h->count))
		commit(p, at);
}
