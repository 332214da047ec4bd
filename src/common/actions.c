/*
 * actions.c -- the action file: a recorded, timed usercmd stream, read
 * and written for the server's command recorder (src/capture/commands.c) and
 * the load generator (tools/qwbots).
 *
 * Design note
 *   A text file, one record per line, so it can be read, diffed and
 *   written by hand (docs/qwbots.md has the full description):
 *
 *     qwbots-actions 1                      magic and version, first
 *     map lqdm1                             required
 *     spawn 480.000 -352.000 88.000         or "spawn none"
 *     source walker bot 0, seed 1           optional free text
 *     # time msec pitch yaw roll forward side up buttons impulse
 *     0.000 33 0.0000 90.0000 0.0000 400 0 0 0 0
 *
 *   Blank lines and lines starting with '#' are ignored anywhere.  Header
 *   lines come before the first command.  A command line has exactly ten
 *   fields: time (seconds from the first command, never decreasing), msec
 *   (0-255), three angles in degrees (-360..360), forward, side and up
 *   moves (-32768..32767), buttons and impulse (0-255).
 *
 *   The parser reads every line, counts each malformed one, and reports
 *   the first with its line number ("file:12: ..."); a file with any bad
 *   line is refused, so a replay never runs a half-understood stream.
 *   Nothing is read past the given length; lines are limited to
 *   ACTIONS_LINE_MAX bytes.
 */
#include "qwd/actions.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

#define ACTIONS_FILE_MAX (512u << 20)	/* a day at 77/s is ~300 MB */
#define ACTIONS_FIELDS 10

struct parser {
	const char *name;
	struct actions *out;
	struct actions_stats *st;
	char *err;
	size_t errsize;
	size_t line;
	bool magic, have_map, in_commands;
};

/* a map name: one word of visible characters (Quake's high bytes
 * included), so what the reader takes the writer writes back as it is */
static bool map_word(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s == 0x7f)
			return false;
	return true;
}

static void bad(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void bad(struct parser *p, const char *fmt, ...)
{
	char text[256];
	va_list ap;

	p->st->bad_lines++;
	if (p->st->first_bad_line)
		return;
	p->st->first_bad_line = p->line;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errsize, "%s:%zu: %s", p->name, p->line, text);
}

/* split in place at blanks; returns the number of fields (at most max) */
static int split(char *line, char **field, int max, int *total)
{
	int n = 0;
	char *s = line;

	*total = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		if (n < max)
			field[n++] = s;
		(*total)++;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
	return n;
}

static void header_line(struct parser *p, char **f, int n, const char *rest)
{
	struct actions *a = p->out;

	if (!p->magic) {
		long long v;

		if (strcmp(f[0], ACTIONS_MAGIC) != 0 || n != 2) {
			bad(p, "not an action file (the first line must be \"%s %d\")",
			    ACTIONS_MAGIC, ACTIONS_VERSION);
			return;
		}
		if (!qwd_parse_int(f[1], 0, 1000000, false, &v) || v != ACTIONS_VERSION) {
			bad(p, "unsupported version \"%s\" (this reader knows %d)",
			    f[1], ACTIONS_VERSION);
			return;
		}
		p->magic = true;
		return;
	}
	if (p->in_commands) {
		bad(p, "header line \"%s\" after the first command", f[0]);
		return;
	}
	if (strcmp(f[0], "map") == 0) {
		if (n != 2 || strlen(f[1]) >= sizeof(a->map) || !map_word(f[1])) {
			bad(p, "map needs one name (under %zu characters, no control "
			       "characters)", sizeof(a->map));
			return;
		}
		strlcpy(a->map, f[1], sizeof(a->map));
		p->have_map = true;
	} else if (strcmp(f[0], "spawn") == 0) {
		double v[3];

		if (n == 2 && strcmp(f[1], "none") == 0) {
			a->has_spawn = false;
			return;
		}
		if (n != 4) {
			bad(p, "spawn needs three coordinates or \"none\"");
			return;
		}
		for (int k = 0; k < 3; k++) {
			if (!qwd_parse_double(f[1 + k], -1e6, 1e6, &v[k])) {
				bad(p, "spawn coordinate \"%s\" is not a number", f[1 + k]);
				return;
			}
		}
		vec_set(a->spawn, (float)v[0], (float)v[1], (float)v[2]);
		a->has_spawn = true;
	} else if (strcmp(f[0], "source") == 0) {
		strlcpy(a->source, rest, sizeof(a->source));
	} else {
		bad(p, "unknown header line \"%s\"", f[0]);
	}
}

static void command_line(struct parser *p, char **f, int total)
{
	static const char *const what[ACTIONS_FIELDS] = {
		"time", "msec", "pitch", "yaw", "roll", "forward", "side", "up",
		"buttons", "impulse"};
	struct usercmd cmd;
	double time, ang[3];
	long long v[ACTIONS_FIELDS];

	if (total != ACTIONS_FIELDS) {
		bad(p, "a command has %d fields (time msec pitch yaw roll forward "
		       "side up buttons impulse), this line has %d",
		    ACTIONS_FIELDS, total);
		return;
	}
	if (!qwd_parse_double(f[0], 0, 1e9, &time)) {
		bad(p, "time \"%s\" is not a number of seconds >= 0", f[0]);
		return;
	}
	if (p->out->n && time < p->out->v[p->out->n - 1].time) {
		bad(p, "time %s goes back (previous command at %.3f)", f[0],
		    p->out->v[p->out->n - 1].time);
		return;
	}
	for (int k = 0; k < 3; k++) {
		if (!qwd_parse_double(f[2 + k], -360, 360, &ang[k])) {
			bad(p, "%s \"%s\" is not an angle in -360..360", what[2 + k], f[2 + k]);
			return;
		}
	}
	if (!qwd_parse_int(f[1], 0, 255, false, &v[1])) {
		bad(p, "msec \"%s\" is not an integer in 0..255", f[1]);
		return;
	}
	for (int k = 5; k < 8; k++) {
		if (!qwd_parse_int(f[k], -32768, 32767, false, &v[k])) {
			bad(p, "%s \"%s\" is not an integer in -32768..32767", what[k], f[k]);
			return;
		}
	}
	for (int k = 8; k < 10; k++) {
		if (!qwd_parse_int(f[k], 0, 255, false, &v[k])) {
			bad(p, "%s \"%s\" is not an integer in 0..255", what[k], f[k]);
			return;
		}
	}
	memset(&cmd, 0, sizeof(cmd));
	cmd.msec = (uint8_t)v[1];
	vec_set(cmd.angles, (float)ang[0], (float)ang[1], (float)ang[2]);
	cmd.forwardmove = (int16_t)v[5];
	cmd.sidemove = (int16_t)v[6];
	cmd.upmove = (int16_t)v[7];
	cmd.buttons = (uint8_t)v[8];
	cmd.impulse = (uint8_t)v[9];
	if (!actions_push(p->out, time, &cmd)) {
		bad(p, "out of memory");
		return;
	}
	p->st->commands++;
}

static void one_line(struct parser *p, char *line)
{
	char *f[ACTIONS_FIELDS];
	char rest[ACTIONS_LINE_MAX];
	int total, n;
	const char *s = line;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s || *s == '#')
		return;
	/* the text after the keyword, for free-text header values */
	{
		const char *r = s;

		while (*r && *r != ' ' && *r != '\t')
			r++;
		while (*r == ' ' || *r == '\t')
			r++;
		strlcpy(rest, r, sizeof(rest));
	}
	n = split(line, f, ACTIONS_FIELDS, &total);
	if (!p->magic || !((f[0][0] >= '0' && f[0][0] <= '9') || f[0][0] == '.' ||
			   f[0][0] == '-' || f[0][0] == '+')) {
		header_line(p, f, n < total ? n : total, rest);
		return;
	}
	if (!p->have_map) {
		bad(p, "a command before the \"map\" line");
		return;
	}
	p->in_commands = true;
	command_line(p, f, total);
}

int actions_parse(const char *name, const char *text, size_t len,
		      struct actions *out, struct actions_stats *st,
		      char *err, size_t errsize)
{
	struct actions_stats local;
	struct parser p = {0};
	size_t pos = 0;

	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	memset(out, 0, sizeof(*out));
	strlcpy(out->map, "unknown", sizeof(out->map));
	if (errsize)
		err[0] = '\0';
	p.name = name;
	p.out = out;
	p.st = st;
	p.err = err;
	p.errsize = errsize;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		char line[ACTIONS_LINE_MAX];

		p.line = ++st->lines;
		if (n && text[pos + n - 1] == '\r')
			n--;
		if (n >= sizeof(line)) {
			bad(&p, "line longer than %d bytes", ACTIONS_LINE_MAX - 1);
		} else if (memchr(text + pos, '\0', n)) {
			bad(&p, "a NUL byte in the line");
		} else {
			memcpy(line, text + pos, n);
			line[n] = '\0';
			one_line(&p, line);
		}
		pos += (nl ? (size_t)(nl - (text + pos)) + 1 : len - pos);
	}
	p.line = st->lines;
	if (!p.magic && !st->bad_lines)
		bad(&p, "empty: no \"%s %d\" line", ACTIONS_MAGIC, ACTIONS_VERSION);
	else if (!p.have_map && !st->bad_lines)
		bad(&p, "no \"map\" line");
	if (st->bad_lines) {
		actions_free(out);
		strlcpy(out->map, "unknown", sizeof(out->map));
		return -1;
	}
	return 0;
}

int actions_load(const char *path, struct actions *out,
		     struct actions_stats *st, char *err, size_t errsize)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, cap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!f) {
		snprintf(err, errsize, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		size_t got;

		if (len + 65536 > cap) {
			char *n;

			if (cap >= ACTIONS_FILE_MAX) {
				snprintf(err, errsize, "%s: larger than %u MB", path,
					 ACTIONS_FILE_MAX >> 20);
				free(text);
				fclose(f);
				return -1;
			}
			cap = cap ? cap * 2 : 262144;
			n = realloc(text, cap);
			if (!n) {
				snprintf(err, errsize, "%s: out of memory", path);
				free(text);
				fclose(f);
				return -1;
			}
			text = n;
		}
		got = fread(text + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errsize, "%s: read error", path);
		free(text);
		fclose(f);
		return -1;
	}
	fclose(f);
	rc = actions_parse(path, text ? text : "", len, out, st, err, errsize);
	free(text);
	return rc;
}

void actions_free(struct actions *a)
{
	free(a->v);
	a->v = NULL;
	a->n = 0;
	a->cap = 0;
}

bool actions_push(struct actions *a, double time,
		      const struct usercmd *cmd)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 1024;
		struct action *v = reallocarray(a->v, cap, sizeof(*v));

		if (!v)
			return false;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n].time = time;
	a->v[a->n].cmd = *cmd;
	a->n++;
	return true;
}

/* a map line's one word, as the reader takes it, else "unknown" */
static const char *one_word(const char *map)
{
	return map && map[0] && map_word(map) ? map : "unknown";
}

int actions_format_header(char *buf, size_t size, const char *map,
			  const float *spawn, const char *source)
{
	char src[sizeof(((struct actions *)0)->source)], where[64];

	strlcpy(src, source ? source : "", sizeof(src));
	for (char *c = src; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	if (spawn && isfinite(spawn[0]) && isfinite(spawn[1]) && isfinite(spawn[2]))
		snprintf(where, sizeof(where), "%.3f %.3f %.3f", spawn[0], spawn[1],
			 spawn[2]);
	else
		strlcpy(where, "none", sizeof(where));
	return snprintf(buf, size, "%s %d\nmap %s\nspawn %s\n%s%s%s"
			"# time msec pitch yaw roll forward side up buttons impulse\n",
			ACTIONS_MAGIC, ACTIONS_VERSION, one_word(map), where,
			src[0] ? "source " : "", src, src[0] ? "\n" : "");
}

/* angles outside -360..360 (a client may send any float) are wrapped so
 * the file always reads back */
static float wrap_angle(float a)
{
	if (!isfinite(a))
		return 0;
	return fmodf(a, 360.0f);
}

int actions_format_line(char *buf, size_t size, double time,
			const struct usercmd *cmd)
{
	if (!(time >= 0))	/* also NaN */
		time = 0;
	if (time > 1e9)		/* the reader's limit: 30 years */
		time = 1e9;
	return snprintf(buf, size, "%.3f %u %.4f %.4f %.4f %d %d %d %u %u\n", time,
			cmd->msec, wrap_angle(cmd->angles[0]), wrap_angle(cmd->angles[1]),
			wrap_angle(cmd->angles[2]), cmd->forwardmove, cmd->sidemove,
			cmd->upmove, cmd->buttons, cmd->impulse);
}

void actions_write_header(FILE *f, const char *map, const float *spawn,
			  const char *source)
{
	char buf[ACTIONS_LINE_MAX];

	actions_format_header(buf, sizeof(buf), map, spawn, source);
	fputs(buf, f);
}

void actions_write_line(FILE *f, double time, const struct usercmd *cmd)
{
	char buf[ACTIONS_LINE_MAX];

	actions_format_line(buf, sizeof(buf), time, cmd);
	fputs(buf, f);
}

int actions_save(const char *path, const struct actions *a,
		     char *err, size_t errsize)
{
	FILE *f = fopen(path, "w");
	double last = 0;

	if (!f) {
		snprintf(err, errsize, "%s: %s", path, strerror(errno));
		return -1;
	}
	actions_write_header(f, a->map, a->has_spawn ? a->spawn : NULL, a->source);
	for (size_t i = 0; i < a->n; i++) {
		/* the file keeps milliseconds: round, and never go back */
		double t = a->v[i].time < last ? last : a->v[i].time;

		actions_write_line(f, t, &a->v[i].cmd);
		last = t;
	}
	if (fclose(f) != 0) {
		snprintf(err, errsize, "%s: write error", path);
		return -1;
	}
	return 0;
}

void actions_map_name(const char *model, char *out, size_t outsize)
{
	const char *base = strrchr(model, '/');
	size_t n;

	base = base ? base + 1 : model;
	n = strlen(base);
	if (n >= 4 && strcmp(base + n - 4, ".bsp") == 0)
		n -= 4;
	if (n == 0) {
		strlcpy(out, "unknown", outsize);
		return;
	}
	if (outsize == 0)
		return;
	if (n >= outsize)
		n = outsize - 1;
	memcpy(out, base, n);
	out[n] = '\0';
}
