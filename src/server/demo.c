/*
 * demo.c -- the operator's demo commands and the demo folder: record,
 * easyrecord, stop, cancel, demolist, rmdemo, the size and count caps,
 * automatic recording; the demo frame's place in the server frame.
 *
 * Design note
 *   The commands and cvars are MVDSV's (sv_demo.c, sv_demo_misc.c), so an
 *   operator's configs and habits carry over: "record NAME" writes
 *   <basedir>/<gamedir>/<sv_demoDir>/NAME.mvd (the name cleaned as MVDSV
 *   cleans it: lower case, letters, digits and a few marks, the rest
 *   '_'); "easyrecord" names the demo after the match (duel_A_vs_B_MAP,
 *   NonM_T1_vs_T2_MAP, ffa_MAP(N)) with _01, _02... when taken; "stop"
 *   ends it, "cancel" ends and removes it; a level change ends it too.
 *   Each name is also there as sv_demo* (sv_demorecord, sv_demostop...).
 *   Caps, checked when a recording starts: sv_demoMaxDirSize (KB of demos
 *   in the folder) and sv_demoMaxDirCount (demos in it, qwd's own); past
 *   either, sv_demoClearOld N removes the N oldest demos first, else the
 *   recording is refused with MVDSV's words.  sv_demoMaxSize (mvd.c)
 *   ends one demo at its size.  sv_demoDir must stay inside the game
 *   folder: a relative path without "..".
 *   sv_demoAutoRecord N (qwd's own; 0 off): a level with N or more players
 *   in the game is recorded as by easyrecord; the demo ends with the
 *   level, or when the last player leaves.
 *   Listing the folder reads it whole into a table made for the command
 *   (operator commands, never the frame loop); the frame costs three
 *   tests when nothing records, streams or listens.
 */
#include "demo.h"
#include "features.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bsd/string.h>

enum {
	DEMO_NAME = 64,
	DEMO_LIST_MAX = 65536,
	DEMO_PATH = SV_PATH * 3,		/* the folder */
	DEMO_FILE = DEMO_PATH + DEMO_NAME * 2	/* a file in it */
};

/* a formatted path or name that fitted whole */
static bool fits(int n, size_t size)
{
	return n >= 0 && (size_t)n < size;
}

struct sv_demo {
	struct cvar *dir, *maxdirsize, *maxdircount, *clearold, *autorecord;
	bool auto_file;		/* the file recording was started by autorecord */
	int auto_refused;	/* level on which autorecord could not start */
	double auto_check;	/* next look at the player count */
};

static int demo_init(struct server *sv)
{
	struct sv_demo *d = calloc(1, sizeof(*d));

	if (!d)
		return -1;
	sv->demo = d;
	d->dir = cvar_register(sv, "sv_demoDir", "demos", 0,
			       "folder of the demos, in the game folder");
	d->maxdirsize = cvar_register(sv, "sv_demoMaxDirSize", "102400", 0,
				      "KB the demo folder may hold before a recording "
				      "is refused (0: no limit)");
	d->maxdircount = cvar_register(sv, "sv_demoMaxDirCount", "0", 0,
				       "demos the folder may hold before a recording is "
				       "refused (0: no limit)");
	d->clearold = cvar_register(sv, "sv_demoClearOld", "0", 0,
				    "past a folder cap, remove this many of the oldest "
				    "demos instead of refusing");
	d->autorecord = cvar_register(sv, "sv_demoAutoRecord", "0", 0,
				      "record every level that has this many players in "
				      "the game (0: off)");
	d->auto_refused = -1;
	if (sv_mvd_init(sv) != 0 || sv_qtv_init(sv) != 0)
		return -1;
	return 0;
}

/* shutdown: the demo's last frame while the core's state is still there
 * (stop), then the memory (free) */
static void demo_stop(struct server *sv)
{
	sv_mvd_shutdown(sv);
}

static void demo_free(struct server *sv)
{
	sv_qtv_free(sv);
	sv_mvd_free(sv);
	free(sv->demo);
	sv->demo = NULL;
}

/* ---- the folder ------------------------------------------------------- */

bool sv_demo_dir_ok(const char *dir)
{
	if (!dir[0] || dir[0] == '/' || strstr(dir, ".."))
		return false;
	for (const char *p = dir; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' ||
		      *p == '.' || *p == '/'))
			return false;
	return true;
}

/* the folder's path, made when missing; false (said on out) when the
 * cvar is not a folder inside the game folder or it cannot be made */
static bool demo_dir(struct server *sv, char *path, size_t size, FILE *out)
{
	const char *dir = sv->demo->dir->string;
	char *s;

	if (!sv_demo_dir_ok(dir)) {
		fprintf(out, "sv_demoDir \"%s\": a folder inside the game folder, no \"..\"\n", dir);
		return false;
	}
	if (!fits(snprintf(path, size, "%s/%s/%s", sv->basedir, sv->gamedir, dir), size)) {
		fprintf(out, "sv_demoDir \"%s\": the path is too long\n", dir);
		return false;
	}
	for (s = path + strlen(sv->basedir) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST) {
			fprintf(out, "cannot make %s: %s\n", path, strerror(errno));
			return false;
		}
		*s = '/';
	}
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		fprintf(out, "cannot make %s: %s\n", path, strerror(errno));
		return false;
	}
	return true;
}

struct demo_file {
	char name[DEMO_NAME + 8];
	off_t size;
	struct timespec mtime;
};

static bool is_demo(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && strcmp(name + n - 4, ".mvd") == 0 && name[0] != '.';
}

static int by_age(const void *a, const void *b)
{
	const struct demo_file *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* the demos of the folder, oldest first, in a table the caller frees */
static struct demo_file *list_demos(const char *path, int *count, off_t *total)
{
	DIR *dir = opendir(path);
	struct demo_file *list = NULL;
	struct dirent *e;
	int n = 0, cap = 0;

	*count = 0;
	*total = 0;
	if (!dir)
		return NULL;
	while ((e = readdir(dir)) != NULL && n < DEMO_LIST_MAX) {
		char full[DEMO_FILE];
		struct stat st;

		if (!is_demo(e->d_name) || strlen(e->d_name) >= sizeof(list->name))
			continue;
		snprintf(full, sizeof(full), "%s/%s", path, e->d_name);
		if (stat(full, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			struct demo_file *more = realloc(list, (size_t)(cap ? cap * 2 : 64) *
							 sizeof(*list));

			if (!more)
				break;
			list = more;
			cap = cap ? cap * 2 : 64;
		}
		strlcpy(list[n].name, e->d_name, sizeof(list[n].name));
		list[n].size = st.st_size;
		list[n].mtime = st.st_mtim;
		*total += st.st_size;
		n++;
	}
	closedir(dir);
	if (n)
		qsort(list, (size_t)n, sizeof(*list), by_age);
	*count = n;
	return list;
}

/* Room for one more demo under the caps, the oldest removed when
 * sv_demoClearOld says so; false (said on out) when there is none. */
static bool room_for_demo(struct server *sv, const char *path, FILE *out)
{
	struct sv_demo *d = sv->demo;
	int count, clear = (int)d->clearold->value;
	off_t total;
	struct demo_file *list = list_demos(path, &count, &total);
	bool over_size = d->maxdirsize->value > 0 &&
			 (double)total > d->maxdirsize->value * 1024;
	bool over_count = d->maxdircount->value > 0 && count >= (int)d->maxdircount->value;
	bool ok = true;

	if ((over_size || over_count) && clear <= 0) {
		fprintf(out, over_size ? "Insufficient directory space, increase sv_demoMaxDirSize\n"
				       : "Too many demos, increase sv_demoMaxDirCount\n");
		ok = false;
	} else if (over_size || over_count) {
		fprintf(out, "Clearing %d old demos\n", clear);
		for (int i = 0; i < count && i < clear; i++) {
			char full[DEMO_FILE];

			snprintf(full, sizeof(full), "%s/%s", path, list[i].name);
			if (unlink(full) == 0)
				qwd_logf(&sv->log, QWD_LOG_INFO, "demo %s removed (sv_demoClearOld)",
					 list[i].name);
		}
	}
	free(list);
	return ok;
}

/* ---- names ------------------------------------------------------------ */

/* MVDSV's demo name: Quake's high characters folded to plain ones, its
 * digits and brackets read as such, lower case; letters, digits and
 * ( ) [ ] { } . ! ' + - @ kept, anything else '_' (never two in a row) */
static void clean_name(const char *in, char *out, size_t size)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)in; *p && n + 1 < size; p++) {
		int c = *p & 127;

		if (c >= 18 && c <= 27)
			c += 30;
		else if (c == 29)
			c = '(';
		else if (c == 31)
			c = ')';
		else if (c == 16)
			c = '[';
		else if (c == 17)
			c = ']';
		else if (c == 5 || c == 14 || c == 15 || c == 28)
			c = '.';
		else if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      strchr("()[]{}.!'+-@", c)))
			c = '_';
		if (c == '_' && n > 0 && out[n - 1] == '_')
			continue;
		out[n++] = (char)c;
	}
	out[n] = '\0';
	/* never hidden, never a way up */
	if (out[0] == '.' || !out[0]) {
		memmove(out + 1, out, n + 1 < size ? n + 1 : size - 1);
		out[0] = '_';
		out[size - 1] = '\0';
	}
}

static bool file_exists(const char *dir, const char *name)
{
	char full[DEMO_FILE];
	struct stat st;

	return !fits(snprintf(full, sizeof(full), "%s/%s.mvd", dir, name), sizeof(full)) ||
	       stat(full, &st) == 0;
}

/* begin recording base (a cleaned name, no extension) in dir */
static bool start(struct server *sv, const char *dir, const char *base, FILE *out)
{
	char path[DEMO_FILE], name[DEMO_NAME + 8], err[DEMO_FILE + 64];

	snprintf(name, sizeof(name), "%s.mvd", base);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (sv_mvd_open_file(sv, path, name, err, sizeof(err)) != 0) {
		fprintf(out, "record: %s\n", err);
		return false;
	}
	fprintf(out, "recording to %s/%s\n", sv->demo->dir->string, name);
	qwd_logf(&sv->log, QWD_LOG_INFO, "demo: recording %s", path);
	sv->demo->auto_file = false;
	return true;
}

static bool can_record(struct server *sv, char *dir, size_t size, FILE *out)
{
	if (!sv->map) {
		fprintf(out, "Not active yet.\n");
		return false;
	}
	if (sv_mvd_file(sv, NULL)) {
		fprintf(out, "already recording %s (stop or cancel it first)\n",
			sv_mvd_file(sv, NULL));
		return false;
	}
	return demo_dir(sv, dir, size, out) && room_for_demo(sv, dir, out);
}

static void cmd_record(struct server *sv, const struct net_args *a, FILE *out)
{
	char dir[DEMO_PATH], base[DEMO_NAME];
	size_t n;

	if (a->argc != 2) {
		fprintf(out, "record <demoname>\n");
		return;
	}
	if (!can_record(sv, dir, sizeof(dir), out))
		return;
	clean_name(net_args_argv(a, 1), base, sizeof(base));
	n = strlen(base);
	if (n > 4 && strcmp(base + n - 4, ".mvd") == 0)
		base[n - 4] = '\0';
	start(sv, dir, base, out);
}

/* the players in the game, and the first two teams among them */
struct roster {
	int players;
	const struct client *first, *second;
	char team[2][16];
	int in_team[2];
};

static void roster_of(const struct server *sv, struct roster *r)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < sv->maxclients; i++) {
		const struct client *c = &sv->clients[i];
		char team[16];

		if (c->state != CS_SPAWNED || c->spectator)
			continue;
		r->players++;
		if (!r->first)
			r->first = c;
		else if (!r->second)
			r->second = c;
		info_value_for_key(c->userinfo, "team", team, sizeof(team));
		for (int t = 0; t < 2; t++) {
			if (!r->team[t][0] && (t == 0 || strcmp(team, r->team[0]) != 0))
				strlcpy(r->team[t], team, sizeof(r->team[t]));
			if (strcmp(team, r->team[t]) == 0) {
				r->in_team[t]++;
				break;
			}
		}
	}
}

static void match_name(const struct server *sv, char *out, size_t size)
{
	struct roster r;
	struct cvar *tp = cvar_get((struct server *)sv, "teamplay");

	roster_of(sv, &r);
	if (tp && tp->value >= 1 && r.players > 2)
		snprintf(out, size, "%don%d_%s_vs_%s_%s", r.in_team[0], r.in_team[1],
			 r.team[0], r.team[1], sv->mapname);
	else if (r.players == 2)
		snprintf(out, size, "duel_%s_vs_%s_%s", r.first->name, r.second->name,
			 sv->mapname);
	else
		snprintf(out, size, "ffa_%s(%d)", sv->mapname, r.players);
}

static bool easyrecord(struct server *sv, const char *given, FILE *out)
{
	char dir[DEMO_PATH], raw[256], base[DEMO_NAME], name[DEMO_NAME + 8];

	if (!can_record(sv, dir, sizeof(dir), out))
		return false;
	if (given)
		strlcpy(raw, given, sizeof(raw));
	else
		match_name(sv, raw, sizeof(raw));
	clean_name(raw, base, sizeof(base) - 4);
	strlcpy(name, base, sizeof(name));
	for (int i = 1; file_exists(dir, name) && i < 1000; i++)
		snprintf(name, sizeof(name), "%s_%02d", base, i);
	return start(sv, dir, name, out);
}

bool sv_demo_record_named(struct server *sv, const char *name, FILE *out)
{
	return easyrecord(sv, name, out);
}

bool sv_demo_folder(struct server *sv, char *path, size_t size, FILE *out)
{
	return demo_dir(sv, path, size, out);
}

static void cmd_easyrecord(struct server *sv, const struct net_args *a, FILE *out)
{
	if (a->argc > 2) {
		fprintf(out, "easyrecord [demoname]\n");
		return;
	}
	easyrecord(sv, a->argc == 2 ? net_args_argv(a, 1) : NULL, out);
}

static void cmd_stop(struct server *sv, FILE *out, bool cancel)
{
	if (!sv_mvd_file(sv, NULL)) {
		fprintf(out, "Not recording a demo.\n");
		return;
	}
	fprintf(out, "%s %s\n", cancel ? "cancelled and removed" : "stopped",
		sv_mvd_file(sv, NULL));
	sv_mvd_stop_file(sv, cancel ? DEMO_STOP_CANCEL : DEMO_STOP_DONE);
	sv->demo->auto_file = false;
}

/* demolist [TEXT...]: the demos whose names hold every TEXT, oldest
 * first, numbered; the one being recorded marked with '*' */
static void cmd_demolist(struct server *sv, const struct net_args *a, FILE *out)
{
	char dir[DEMO_PATH];
	int count, shown = 0;
	off_t total;
	uint64_t recording_size = 0;
	const char *recording = sv_mvd_file(sv, &recording_size);
	struct demo_file *list;

	if (!demo_dir(sv, dir, sizeof(dir), out))
		return;
	list = list_demos(dir, &count, &total);
	fprintf(out, "Listing content of %s/%s\n", sv->gamedir, sv->demo->dir->string);
	for (int i = 0; i < count; i++) {
		bool match = true;
		bool live = recording && strcmp(recording, list[i].name) == 0;

		for (int k = 1; k < a->argc && match; k++)
			match = strstr(list[i].name, net_args_argv(a, k)) != NULL;
		if (!match)
			continue;
		shown++;
		fprintf(out, "%s%4d: %s (%lldk)\n", live ? "*" : "", i + 1, list[i].name,
			live ? (long long)(recording_size / 1024)
			     : (long long)(list[i].size / 1024));
	}
	if (!shown)
		fprintf(out, "no demos\n");
	fprintf(out, "\ndirectory size: %.1fMB\n", (double)total / (1024 * 1024));
	if (sv->demo->maxdirsize->value > 0) {
		double left = (sv->demo->maxdirsize->value * 1024 - (double)total) / (1024 * 1024);

		fprintf(out, "space available: %.1fMB\n", left > 0 ? left : 0.0);
	}
	free(list);
}

/* rmdemo NAME | rmdemo *TEXT (every demo whose name holds TEXT) */
static void cmd_rmdemo(struct server *sv, const struct net_args *a, FILE *out)
{
	char dir[DEMO_PATH], full[DEMO_FILE], name[DEMO_NAME + 8];
	const char *arg = net_args_argv(a, 1);
	const char *recording;
	size_t n;

	if (a->argc != 2) {
		fprintf(out, "rmdemo <demoname> - removes the demo\n"
			"rmdemo *<token>   - removes demo with <token> in the name\n"
			"rmdemo *          - removes all demos\n");
		return;
	}
	if (!demo_dir(sv, dir, sizeof(dir), out))
		return;
	if (arg[0] == '*') {
		int count, removed = 0;
		off_t total;
		struct demo_file *list = list_demos(dir, &count, &total);

		for (int i = 0; i < count; i++) {
			if (!strstr(list[i].name, arg + 1))
				continue;
			recording = sv_mvd_file(sv, NULL);
			if (recording && strcmp(recording, list[i].name) == 0)
				cmd_stop(sv, out, false);
			snprintf(full, sizeof(full), "%s/%s", dir, list[i].name);
			if (unlink(full) == 0) {
				fprintf(out, "removing %s...\n", list[i].name);
				removed++;
			}
		}
		free(list);
		if (removed)
			fprintf(out, "%d demos removed\n", removed);
		else
			fprintf(out, "no match found\n");
		return;
	}
	/* one name: only a plain file name of the folder */
	if (strchr(arg, '/') || arg[0] == '.' || strlen(arg) > DEMO_NAME) {
		fprintf(out, "unable to remove demo %s\n", arg);
		return;
	}
	strlcpy(name, arg, sizeof(name));
	n = strlen(name);
	if (n < 4 || strcmp(name + n - 4, ".mvd") != 0)
		strlcat(name, ".mvd", sizeof(name));
	recording = sv_mvd_file(sv, NULL);
	if (recording && strcmp(recording, name) == 0)
		cmd_stop(sv, out, false);
	snprintf(full, sizeof(full), "%s/%s", dir, name);
	if (unlink(full) == 0) {
		fprintf(out, "demo %s successfully removed\n", name);
		qwd_logf(&sv->log, QWD_LOG_INFO, "demo %s removed", name);
	} else {
		fprintf(out, "unable to remove demo %s\n", name);
	}
}

static void cmd_qtv_close(struct server *sv, const struct net_args *a, FILE *out)
{
	const char *which = net_args_argv(a, 1);
	int n;

	if (!which[0]) {
		fprintf(out, "Usage: qtv_close <#id | all>\n");
		return;
	}
	n = sv_mvd_close_stream(sv, strcasecmp(which, "all") == 0 ? -1 : atoi(which));
	if (n)
		fprintf(out, "%d QTV stream%s will be dropped\n", n, n == 1 ? "" : "s");
	else
		fprintf(out, "QTV id:%s not found\n", which);
}

static void cmd_demostatus(struct server *sv, FILE *out)
{
	uint64_t size = 0;
	const char *file = sv_mvd_file(sv, &size);

	if (file)
		fprintf(out, "recording %s/%s, %llu KB%s\n", sv->demo->dir->string, file,
			(unsigned long long)(size / 1024),
			sv->demo->auto_file ? " (sv_demoAutoRecord)" : "");
	else
		fprintf(out, "not recording a demo\n");
	fprintf(out, "QTV streams: %d\n", sv_mvd_streams(sv));
	sv_mvd_list_streams(sv, out);
	sv_mvd_figures(sv, out);
}

struct demo_command {
	const char *name, *alias;
	int id;
	const char *help;
};

enum { C_RECORD, C_EASY, C_STOP, C_CANCEL, C_LIST, C_RM, C_QTVLIST, C_QTVCLOSE,
       C_QTVSTATUS, C_STATUS };

static const struct demo_command demo_commands[] = {
	{"record", "sv_demorecord", C_RECORD, "record NAME: a demo in sv_demoDir"},
	{"easyrecord", "sv_demoeasyrecord", C_EASY, "easyrecord [NAME]: a demo named after the match"},
	{"stop", "sv_demostop", C_STOP, "stop: end the demo"},
	{"cancel", "sv_democancel", C_CANCEL, "cancel: end the demo and remove it"},
	{"demolist", "sv_demolist", C_LIST, "demolist [TEXT...]: the demos, oldest first"},
	{"rmdemo", "sv_demoremove", C_RM, "rmdemo NAME | *TEXT: remove demos"},
	{"demostatus", NULL, C_STATUS, "the demo and QTV streams: sizes, frames, cost"},
	{"qtv_list", NULL, C_QTVLIST, "the QTV streams"},
	{"qtv_close", NULL, C_QTVCLOSE, "qtv_close ID|all: drop QTV streams"},
	{"qtv_status", NULL, C_QTVSTATUS, "the QTV listener"},
};

static bool demo_command(struct server *sv, const struct net_args *a, FILE *out)
{
	const char *c = net_args_argv(a, 0);

	if (!sv->demo)
		return false;
	for (size_t i = 0; i < sizeof(demo_commands) / sizeof(demo_commands[0]); i++) {
		const struct demo_command *dc = &demo_commands[i];

		if (strcasecmp(c, dc->name) != 0 && !(dc->alias && strcasecmp(c, dc->alias) == 0))
			continue;
		switch (dc->id) {
		case C_RECORD: cmd_record(sv, a, out); break;
		case C_EASY: cmd_easyrecord(sv, a, out); break;
		case C_STOP: cmd_stop(sv, out, false); break;
		case C_CANCEL: cmd_stop(sv, out, true); break;
		case C_LIST: cmd_demolist(sv, a, out); break;
		case C_RM: cmd_rmdemo(sv, a, out); break;
		case C_STATUS: cmd_demostatus(sv, out); break;
		case C_QTVLIST:
			if (!sv_mvd_streams(sv))
				fprintf(out, "QTV list: empty\n");
			sv_mvd_list_streams(sv, out);
			break;
		case C_QTVCLOSE: cmd_qtv_close(sv, a, out); break;
		case C_QTVSTATUS: sv_qtv_status(sv, out); break;
		}
		return true;
	}
	return false;
}

/* ---- the frame -------------------------------------------------------- */

static void autorecord(struct server *sv)
{
	struct sv_demo *d = sv->demo;
	int want = (int)d->autorecord->value;
	struct roster r;

	if (sv->realtime < d->auto_check || !sv->map)
		return;
	d->auto_check = sv->realtime + 1.0;
	if (!sv_mvd_file(sv, NULL))
		d->auto_file = false;
	if (want <= 0 && !d->auto_file)
		return;
	roster_of(sv, &r);
	if (d->auto_file) {
		if (r.players == 0) {
			qwd_logf(&sv->log, QWD_LOG_INFO, "demo: the last player left, "
				 "automatic recording stopped");
			sv_mvd_stop_file(sv, DEMO_STOP_DONE);
			d->auto_file = false;
		}
		return;
	}
	if (sv_mvd_file(sv, NULL) || r.players < want || d->auto_refused == sv->spawncount)
		return;
	{
		char text[1024] = "";
		FILE *out = fmemopen(text, sizeof(text), "w");
		bool ok;

		if (!out)
			return;
		ok = easyrecord(sv, NULL, out);
		fclose(out);
		if (ok) {
			d->auto_file = true;
		} else {
			text[strcspn(text, "\n")] = '\0';
			qwd_logf(&sv->log, QWD_LOG_WARN, "demo: automatic recording refused: %s",
				 text);
			d->auto_refused = sv->spawncount;
		}
	}
}

static void demo_frame(struct server *sv)
{
	if (!sv->demo)
		return;
	sv_qtv_poll(sv);
	autorecord(sv);
	sv_mvd_frame(sv);
}

/* ---- registration ------------------------------------------------------ */

static void demo_console(struct server *sv, const struct net_args *a, FILE *out)
{
	(void)demo_command(sv, a, out);
}

/* what the clients were sent, into the demo's next frame */
static void demo_message(struct server *sv, int slot, uint32_t mask,
			 const void *data, size_t len)
{
	if (slot < 0 && mask)
		sv_mvd_message_mask(sv, mask, data, len);
	else
		sv_mvd_message(sv, slot, data, len);
}

static const struct sv_feature demo_feature = {
	.name = "demo",
	.frame = demo_frame,
	.level_end = sv_mvd_level_end,
	.message = demo_message,
	.setangle = sv_mvd_setangle,
	.stop = demo_stop,
	.free = demo_free,
};

int sv_demo_register(struct server *sv)
{
	/* first: its free hook runs whatever the set-up below did */
	sv_feature_add(sv, &demo_feature);
	if (demo_init(sv) != 0) {
		qwd_logf(&sv->log, QWD_LOG_ERROR, "out of memory for the demo writer");
		return -1;
	}
	for (size_t i = 0; i < sizeof(demo_commands) / sizeof(demo_commands[0]); i++) {
		const struct demo_command *dc = &demo_commands[i];

		sv_command_add(sv, dc->name, demo_console, dc->help);
		if (dc->alias)
			sv_command_add(sv, dc->alias, demo_console, dc->help);
	}
	return 0;
}
