/*
 * logfile.c -- logfile, logrcon, fraglogfile: the server's log files, as
 * MVDSV names and writes them.
 *
 * Design note
 *   Three files, each turned on and off by its command (no argument:
 *   toggle, as in MVDSV; "on" or "off": set, so a config run twice does
 *   not turn it back off):
 *     logfile      qconsole_<port>_NNNN.log   every line of the server's
 *                  log (the sink below), "[Tue Jan 02, 13:04:05 2024].[L] "
 *                  and the line, L the level (0 debug, 1 info, 2 warning,
 *                  3 error)
 *     logrcon      rcon_<port>_NNNN.log   every rcon, accepted or refused,
 *                  with the source address (rcon.c writes the lines), in
 *                  the same form; the password (or digest) never
 *     fraglogfile  frag_<port>_NNNN.log   one line per frag, QuakeC's
 *                  logfrag: frag_log_type 1 (the default) MVDSV's dated
 *                  "\frag\KILLER\VICTIM\KTEAM\VTEAM\2024-1-2 13:4:5\" and
 *                  a "\newmap\MAP\\\\DATE\" line per level; 0 MVDSV's
 *                  default, "\KILLER\VICTIM\", which has no time in it
 *   in sv_logdir (relative to the base directory; made if missing).  As in
 *   MVDSV, turning logfile or logrcon on appends to the newest file of its
 *   kind, and fraglogfile always starts a new one.  A file is followed by
 *   the next number when it passes sv_maxlogsize bytes (0: no limit) or,
 *   with sv_logdaily 1, at local midnight: rotation by size or by date.
 *   Times are local, to the second, as in MVDSV.
 *
 *   The console log is a sink put in front of the server's (struct
 *   qwd_log): it writes the line and hands it on, so what reaches the file
 *   is exactly what reaches the console, after the log's own level and
 *   rate limits (lines a remote source causes are limited per source
 *   before they are formatted).  The rcon log gets one line per rcon that
 *   passed rcon's budget (sv_oob_rcon), the frag log one per death: each
 *   bounded by what drives it.  A line is written whole with one fprintf
 *   and flushed, so a crash loses nothing logged.  A write that fails
 *   closes that file and says so on the console, once.
 *
 *   Over rcon none of these commands (nor sv_logdir) may run: whoever
 *   holds the rcon password may not turn off the record of what they do,
 *   nor point a log at a file of their choosing (rcon.c).
 */
#include "features.h"
#include "logfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <bsd/string.h>

enum { MAX_NUMBER = 10000 };	/* NNNN */

static const struct {
	const char *command, *prefix, *what, *off;
} kinds[SV_LOG_KINDS] = {
	[SV_LOG_CONSOLE] = {"logfile", "qconsole_", "console", "File logging off."},
	[SV_LOG_RCON] = {"logrcon", "rcon_", "rcon", "Rcon logging off."},
	[SV_LOG_FRAGS] = {"fraglogfile", "frag_", "frags", "Frag file logging off."},
};

static void logs_init(struct server *sv)
{
	struct sv_logs *l = sv->logs;

	l->sv_logdir = cvar_register(sv, "sv_logdir", ".", 0,
				     "folder of the log files (logfile, logrcon, "
				     "fraglogfile), relative to the base directory");
	l->sv_maxlogsize = cvar_register(sv, "sv_maxlogsize", "0", 0,
					 "bytes after which a log file is followed by "
					 "the next number (0: no limit)");
	l->sv_logdaily = cvar_register(sv, "sv_logdaily", "0", 0,
				       "1: each log file is followed by the next "
				       "number at local midnight");
	l->frag_log_type = cvar_register(sv, "frag_log_type", "1", 0,
					 "frag log lines: 1 \\frag\\killer\\victim\\"
					 "kteam\\vteam\\date\\ (and \\newmap\\), "
					 "0 \\killer\\victim\\ (no time)");
}

/* the folder of the logs; false when the path would not fit */
static bool logdir(const struct server *sv, char *out, size_t size)
{
	const char *d = sv->logs->sv_logdir->string;
	int n;

	if (d[0] == '/')
		n = snprintf(out, size, "%s", d);
	else if (!d[0] || !strcmp(d, "."))
		n = snprintf(out, size, "%s", sv->basedir);
	else
		n = snprintf(out, size, "%s/%s", sv->basedir, d);
	return n > 0 && (size_t)n < size;
}

static bool name_of(const struct server *sv, int kind, int number,
		    char *out, size_t size)
{
	char dir[2 * SV_PATH];
	int n;

	if (!logdir(sv, dir, sizeof(dir)))
		return false;
	n = snprintf(out, size, "%s/%s%u_%04d.log", dir, kinds[kind].prefix,
		     (unsigned)sv->port, number);
	return n > 0 && (size_t)n < size;
}

static int64_t next_midnight(time_t now)
{
	struct tm tm;

	localtime_r(&now, &tm);
	tm.tm_hour = 0;
	tm.tm_min = 0;
	tm.tm_sec = 0;
	tm.tm_mday++;
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm);
}

/* open number `number` of the kind for appending; false with the reason
 * on out (or the console when out is NULL) */
static bool open_number(struct server *sv, int kind, int number, FILE *out)
{
	struct sv_log_file *f = &sv->logs->file[kind];
	char dir[2 * SV_PATH];
	struct stat st;

	if (!logdir(sv, dir, sizeof(dir)) ||
	    !name_of(sv, kind, number, f->path, sizeof(f->path))) {
		if (out)
			fprintf(out, "sv_logdir: the path is too long\n");
		errno = ENAMETOOLONG;
		return false;
	}
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		if (out)
			fprintf(out, "Couldn't make %s: %s\n", dir, strerror(errno));
		return false;
	}
	f->fp = fopen(f->path, "a");
	if (!f->fp) {
		if (out)
			fprintf(out, "Couldn't open %s: %s\n", f->path, strerror(errno));
		return false;
	}
	f->number = number;
	f->size = fstat(fileno(f->fp), &st) == 0 ? (uint64_t)st.st_size : 0;
	f->next_day = next_midnight(time(NULL));
	return true;
}

/* the first number whose file does not exist yet */
static int first_free(const struct server *sv, int kind)
{
	char path[2 * SV_PATH + 64];
	struct stat st;
	int i;

	for (i = 0; i < MAX_NUMBER - 1; i++)
		if (!name_of(sv, kind, i, path, sizeof(path)) || stat(path, &st) != 0)
			break;
	return i;
}

static void close_file(struct sv_log_file *f)
{
	if (f->fp)
		fclose(f->fp);
	f->fp = NULL;
}

/* every line of the server's log passes here when logfile is on */
static void console_sink(void *ctx, int level, const char *line);

/* a line to the sink the console log stands in front of */
static void pass_on(struct server *sv, int level, const char *line)
{
	if (sv->logs->next_sink)
		sv->logs->next_sink(sv->logs->next_ctx, level, line);
	else
		qwd_log_stderr_sink(NULL, level, line);
}

static void write_line(struct server *sv, int kind, const char *text)
{
	struct sv_log_file *f = &sv->logs->file[kind];
	double max = sv->logs->sv_maxlogsize->value;
	int n;

	if (!f->fp)
		return;
	if ((max > 0 && (double)f->size >= max) ||
	    (sv->logs->sv_logdaily->value != 0 && (int64_t)time(NULL) >= f->next_day)) {
		int next = f->number + 1 < MAX_NUMBER ? f->number + 1 : 0;

		close_file(f);
		if (!open_number(sv, kind, next, NULL))
			goto failed;
	}
	n = fprintf(f->fp, "%s", text);
	if (n < 0 || fflush(f->fp) != 0)
		goto failed;
	f->size += (uint64_t)n;
	return;
failed:
	{
		char why[2 * SV_PATH + 160];

		snprintf(why, sizeof(why), "%s: %s; %s log closed", f->path,
			 strerror(errno), kinds[kind].what);
		close_file(f);
		if (kind == SV_LOG_CONSOLE && sv->log.sink == console_sink) {
			sv->log.sink = sv->logs->next_sink;
			sv->log.ctx = sv->logs->next_ctx;
		}
		/* straight to the next sink: the console log is what failed */
		pass_on(sv, QWD_LOG_ERROR, why);
	}
}

/* "[Tue Jan 02, 13:04:05 2024].[1] " and the text, one line */
static void write_dated(struct server *sv, int kind, int level, const char *text)
{
	char stamp[64], line[QWD_LOG_LINE_MAX + 96];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%a %b %d, %H:%M:%S %Y", &tm);
	snprintf(line, sizeof(line), "[%s].[%d] %s\n", stamp, level, text);
	write_line(sv, kind, line);
}

static void console_sink(void *ctx, int level, const char *line)
{
	struct server *sv = ctx;

	write_dated(sv, SV_LOG_CONSOLE, level, line);
	pass_on(sv, level, line);
}

static void turn_off(struct server *sv, int kind, FILE *out)
{
	close_file(&sv->logs->file[kind]);
	if (kind == SV_LOG_CONSOLE && sv->log.sink == console_sink) {
		sv->log.sink = sv->logs->next_sink;
		sv->log.ctx = sv->logs->next_ctx;
	}
	if (out)
		fprintf(out, "%s\n", kinds[kind].off);
}

static void turn_on(struct server *sv, int kind, FILE *out)
{
	int number = first_free(sv, kind);

	/* the console and rcon logs go on in the newest file */
	if (kind != SV_LOG_FRAGS && number > 0)
		number--;
	if (!open_number(sv, kind, number, out))
		return;
	fprintf(out, "Logging %s to %s\n", kinds[kind].what, sv->logs->file[kind].path);
	if (kind == SV_LOG_CONSOLE && sv->log.sink != console_sink) {
		sv->logs->next_sink = sv->log.sink;
		sv->logs->next_ctx = sv->log.ctx;
		sv->log.sink = console_sink;
		sv->log.ctx = sv;
	}
}

void sv_cmd_logs(struct server *sv, const struct net_args *a, FILE *out)
{
	const char *c = net_args_argv(a, 0), *arg = net_args_argv(a, 1);
	int kind = SV_LOG_CONSOLE;
	bool on;

	for (int k = 0; k < SV_LOG_KINDS; k++)
		if (!strcasecmp(c, kinds[k].command))
			kind = k;
	if (!strcmp(arg, "on") || !strcmp(arg, "1"))
		on = true;
	else if (!strcmp(arg, "off") || !strcmp(arg, "0"))
		on = false;
	else if (!arg[0])
		on = sv->logs->file[kind].fp == NULL;
	else {
		fprintf(out, "usage: %s [on|off] (none: turn it %s)\n", kinds[kind].command,
			sv->logs->file[kind].fp ? "off" : "on");
		return;
	}
	if (sv->logs->file[kind].fp)
		turn_off(sv, kind, on ? NULL : out);
	if (on)
		turn_on(sv, kind, out);
}

void sv_log_rcon(struct server *sv, const char *fmt, ...)
{
	char text[QWD_LOG_LINE_MAX];
	va_list ap;

	if (!sv->logs->file[SV_LOG_RCON].fp)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* the command is the sender's text: one line, whatever it holds */
	for (char *s = text; *s; s++)
		if ((unsigned char)*s < 32 || *s == 127)
			*s = '?';
	write_dated(sv, SV_LOG_RCON, QWD_LOG_INFO, text);
}

/* a name or team as a frag log field: no separator, no line break */
static void field(char *out, size_t size, const char *s)
{
	size_t n = 0;

	for (; *s && n + 1 < size; s++)
		out[n++] = (*s == '\\' || (unsigned char)*s < 32) ? '_' : *s;
	out[n] = '\0';
}

static void frag_date(char *out, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	snprintf(out, size, "%d-%d-%d %d:%d:%d", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static void logs_frag(struct server *sv, int killer, int victim)
{
	char line[256], k[SV_MAX_NAME], v[SV_MAX_NAME], kt[32], vt[32], date[40];

	if (!sv->logs->file[SV_LOG_FRAGS].fp || killer < 0 || victim < 0 ||
	    killer >= sv->maxclients || victim >= sv->maxclients)
		return;
	field(k, sizeof(k), sv->clients[killer].name);
	field(v, sizeof(v), sv->clients[victim].name);
	if (sv->logs->frag_log_type->value == 0) {
		snprintf(line, sizeof(line), "\\%s\\%s\\\n", k, v);
	} else {
		char team[32];

		info_value_for_key(sv->clients[killer].userinfo, "team", team, sizeof(team));
		field(kt, sizeof(kt), team);
		info_value_for_key(sv->clients[victim].userinfo, "team", team, sizeof(team));
		field(vt, sizeof(vt), team);
		frag_date(date, sizeof(date));
		snprintf(line, sizeof(line), "\\frag\\%s\\%s\\%s\\%s\\%s\\\n", k, v,
			 kt, vt, date);
	}
	write_line(sv, SV_LOG_FRAGS, line);
}

static void logs_newmap(struct server *sv)
{
	char line[160], date[40];

	if (!sv->logs->file[SV_LOG_FRAGS].fp || sv->logs->frag_log_type->value == 0)
		return;
	frag_date(date, sizeof(date));
	snprintf(line, sizeof(line), "\\newmap\\%s\\\\\\\\%s\\\n", sv->mapname, date);
	write_line(sv, SV_LOG_FRAGS, line);
}

static void logs_close(struct server *sv)
{
	for (int k = 0; k < SV_LOG_KINDS; k++)
		if (sv->logs->file[k].fp)
			turn_off(sv, k, NULL);
}

static void logs_free(struct server *sv)
{
	logs_close(sv);
	free(sv->logs);
	sv->logs = NULL;
}

/* the files stay open through the shutdown's last lines: closed when the
 * features are freed, after the core's final figures */
static const struct sv_feature logs_feature = {
	.name = "logs",
	.frag = logs_frag,
	.level_begin = logs_newmap,
	.free = logs_free,
};

int sv_logs_register(struct server *sv)
{
	sv->logs = calloc(1, sizeof(*sv->logs));
	if (!sv->logs)
		return -1;
	logs_init(sv);
	sv_command_add(sv, "logfile", sv_cmd_logs,
		       "logfile [on|off]: the console log (none: toggle)");
	sv_command_add(sv, "logrcon", sv_cmd_logs,
		       "logrcon [on|off]: the rcon log (none: toggle)");
	sv_command_add(sv, "fraglogfile", sv_cmd_logs,
		       "fraglogfile [on|off]: the frag log (none: toggle)");
	sv_feature_add(sv, &logs_feature);
	return 0;
}
