/*
 * json.c -- the project's one JSON writer: qwd's stats lines, qwbots',
 * udpecho's and gamebench's reports.
 *
 * Design note
 *   Output only, built piece by piece: the writer keeps a stack of open
 *   objects and arrays and places the commas, so a caller never counts
 *   members.  Strings are escaped (quote, backslash, bytes below 0x20,
 *   0x7f and bytes from 0x80 on as \u00XX: Quake's character set is not
 *   UTF-8, so a high byte is written as the code point of that byte and
 *   the text stays valid JSON); a number that is not finite is written as
 *   null, since JSON has no NaN and a reader must tell "not measured"
 *   from 0.
 *
 *   Two sinks.  Into a caller's buffer with snprintf's rule (len counts
 *   every byte asked for, so json_finish sees a cut and refuses to write
 *   it); qwd's stats file takes each line whole this way, with one
 *   fwrite, so a reader tailing the file never sees half an object.  Or
 *   straight to a stream, for reports too big to hold (one object per
 *   bot).  Neither allocates.
 *
 *   Layout: compact ({"a":1,"b":2}) or spaced ({"a": 1, "b": 2});
 *   json_break puts the next member (or a closing bracket) on a new line
 *   with the indentation given, which is how the reports stay readable.
 */
#include "qwd/common.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void put(struct json_out *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct json_out *j, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (j->f) {
		n = vfprintf(j->f, fmt, ap);
	} else {
		size_t room = j->len < j->size ? j->size - j->len : 0;

		n = vsnprintf(room ? j->buf + j->len : NULL, room, fmt, ap);
	}
	va_end(ap);
	if (n > 0)
		j->len += (size_t)n;
	else if (n < 0)
		j->failed = true;
}

/* n bytes as they are: the separators, names and strings, without a
 * format to parse (the stats line is built once a second on the server) */
static void put_bytes(struct json_out *j, const char *p, size_t n)
{
	if (j->f) {
		if (fwrite(p, 1, n, j->f) != n)
			j->failed = true;
	} else if (j->len < j->size) {
		size_t room = j->size - j->len - 1;	/* keep the NUL */

		memcpy(j->buf + j->len, p, n < room ? n : room);
		j->buf[j->len + (n < room ? n : room)] = '\0';
	}
	j->len += n;
}

void json_init(struct json_out *j, FILE *f, char *buf, size_t size)
{
	j->f = f;
	j->buf = buf;
	j->size = f ? 0 : size;
	j->len = 0;
	j->spaced = false;
	j->digits = 9;
	j->depth = 0;
	j->indent = -1;
	j->failed = false;
	j->has_item[0] = false;
	if (!f && size > 0)
		buf[0] = '\0';
}

void json_break(struct json_out *j, int indent)
{
	j->indent = indent;
}

/* a pending json_break: the new line and its indentation */
static void newline(struct json_out *j)
{
	if (j->indent < 0)
		return;
	put(j, "\n%*s", j->indent, "");
	j->indent = -1;
}

static bool plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

/* runs of plain characters go out whole, the others escaped */
static void put_string(struct json_out *j, const char *s)
{
	put_bytes(j, "\"", 1);
	while (s && *s) {
		size_t n = 0;
		unsigned char c;

		while (plain((unsigned char)s[n]))
			n++;
		if (n)
			put_bytes(j, s, n);
		s += n;
		c = (unsigned char)*s;
		if (!c)
			break;
		if (c == '"' || c == '\\')
			put(j, "\\%c", c);
		else
			put(j, "\\u%04x", c);
		s++;
	}
	put_bytes(j, "\"", 1);
}

/* the separator before a member or an element, and its key if any */
static void member(struct json_out *j, const char *key)
{
	bool *has = &j->has_item[j->depth];

	if (*has)
		put_bytes(j, ",", 1);
	if (j->indent >= 0)
		newline(j);
	else if (*has && j->spaced)
		put_bytes(j, " ", 1);
	*has = true;
	if (key) {
		put_string(j, key);
		put_bytes(j, ": ", j->spaced ? 2 : 1);
	}
}

void json_begin(struct json_out *j, const char *key, char open)
{
	member(j, key);
	put_bytes(j, &open, 1);
	if (j->depth + 1 < JSON_MAX_DEPTH) {
		j->depth++;
		j->close[j->depth] = open == '[' ? ']' : '}';
		j->has_item[j->depth] = false;
	} else {
		j->failed = true;	/* a caller bug: nested too deep */
	}
}

void json_end(struct json_out *j)
{
	newline(j);
	if (j->depth == 0) {
		j->failed = true;
		return;
	}
	put_bytes(j, &j->close[j->depth], 1);
	j->depth--;
}

void json_str(struct json_out *j, const char *key, const char *s)
{
	member(j, key);
	put_string(j, s);
}

void json_num(struct json_out *j, const char *key, double v)
{
	member(j, key);
	if (isfinite(v))
		put(j, "%.*g", j->digits, v);
	else
		put_bytes(j, "null", 4);
}

void json_fixed(struct json_out *j, const char *key, double v, int decimals)
{
	member(j, key);
	if (isfinite(v))
		put(j, "%.*f", decimals, v);
	else
		put_bytes(j, "null", 4);
}

void json_u64(struct json_out *j, const char *key, uint64_t v)
{
	member(j, key);
	put(j, "%" PRIu64, v);
}

void json_i64(struct json_out *j, const char *key, int64_t v)
{
	member(j, key);
	put(j, "%" PRId64, v);
}

void json_bool(struct json_out *j, const char *key, bool v)
{
	member(j, key);
	if (v)
		put_bytes(j, "true", 4);
	else
		put_bytes(j, "false", 5);
}

void json_null(struct json_out *j, const char *key)
{
	member(j, key);
	put_bytes(j, "null", 4);
}

void json_raw(struct json_out *j, const char *text)
{
	put_bytes(j, text, strlen(text));
}

int json_finish(struct json_out *j, FILE *f)
{
	if (j->failed || j->depth != 0)
		return -1;
	if (j->f)
		return ferror(j->f) ? -1 : 0;
	if (j->len >= j->size)
		return -1;	/* cut: the buffer was too small */
	if (f && (fwrite(j->buf, 1, j->len, f) != j->len || fflush(f) != 0))
		return -1;
	return 0;
}
