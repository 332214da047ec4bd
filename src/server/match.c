/*
 * match.c -- the match layer as a server feature: KTX's k_* cvars and
 * client commands on the console and the wire, the serverinfo "status"
 * key, the match driven once a frame.
 *
 * Design note
 *   The match itself is its own module (src/match/, qwd/match.h): it
 *   knows the game, never the server.  This feature puts it on the
 *   server: it creates the match over the core's game at start-up,
 *   registers every setting of match_var_info as a cvar (KTX's name,
 *   default and a help line) and every command of match_command_info as
 *   a client command (one handler that hands the command to
 *   match_command), and gives the match what only a server has (struct
 *   match_services): the serverinfo key "status" (set as KTX sets it with
 *   "serverinfo status ...": mirrored to every client in the game),
 *   console lines (a mode's "timelimit 10", "exec configs/usermodes/..."
 *   run as the operator's config would, their answers logged), whether a
 *   config file exists (where exec looks: the game folder, then id1),
 *   the match's events (logged; the statistics and per-match demos plug
 *   in there).  A cvar is the one owner of its value: each frame the
 *   feature hands the match the settings whose cvar changed (a compare
 *   of a counter per setting, nothing else when none did); a value the
 *   match refuses is logged with the reason and the cvar put back.
 *   Hooks: start (the match and its settings), level_begin (prewar),
 *   frame (the match's second), free.  The clients' commands go first to
 *   the registered table, so "pause" is KTX's here (in a match, with its
 *   countdowns) and the core's own is not reached.
 */
#include "core.h"
#include "features.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bsd/string.h>

#include "qwd/match.h"
#include "match_votes.h"
#include "match_demo.h"

enum { MATCH_VARS_MAX = 64 };	/* match_var_count()'s; checked at start */

struct sv_match {
	struct match *m;
	struct cvar *vars[MATCH_VARS_MAX];
	unsigned seen[MATCH_VARS_MAX];
	int num_vars;
	unsigned stores_seen;	/* server.cvar_stores when they were read */
	bool read;		/* they were, once */
	struct sv_match_demo *demo;	/* match_demo.c */
};

/* ---- what the match asks of the server -------------------------------- */

/* a serverinfo key the match sets (KTX's "serverinfo KEY VALUE"):
 * mirrored to every client in the game */
static void svc_info_key(void *ctx, const char *key, const char *value)
{
	struct server *sv = ctx;

	info_set_value_for_key(sv->serverinfo, sizeof(sv->serverinfo), key, value);
	sv_serverinfo_changed(sv, key, value);
}

static void svc_status(void *ctx, const char *value)
{
	svc_info_key(ctx, "status", value);
}

static void svc_command(void *ctx, const char *line)
{
	struct server *sv = ctx;
	char out[1024];
	FILE *f = fmemopen(out, sizeof(out), "w");

	/* a mode's lines, rare: the answers (a config's mistakes) logged */
	if (!f) {
		server_command(sv, line, stdout);
		return;
	}
	server_command(sv, line, f);
	fclose(f);
	out[sizeof(out) - 1] = '\0';
	for (char *p = out, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (*p)
			qwd_logf(&sv->log, QWD_LOG_INFO, "match: %s: %s", line, p);
		if (!nl)
			break;
	}
}

static bool svc_file_exists(void *ctx, const char *path)
{
	struct server *sv = ctx;
	const char *dirs[2] = {sv->gamedir, "id1"};
	char full[SV_PATH + 256];

	if (strstr(path, "..") || path[0] == '/')
		return false;
	for (int i = 0; i < 2; i++) {
		snprintf(full, sizeof(full), "%s/%s/%s", sv->basedir, dirs[i], path);
		if (access(full, R_OK) == 0)
			return true;
	}
	return false;
}

static void svc_event(void *ctx, enum match_event ev, const struct match_result *r)
{
	struct server *sv = ctx;
	char line[512];
	size_t n = 0;

	if (sv->match)
		sv_match_demo_event(sv, sv->match->demo, sv->match->m, ev, r);
	if (ev == MATCH_EVENT_COUNTDOWN)
		return;
	if (ev == MATCH_EVENT_STARTED) {
		qwd_logf(&sv->log, QWD_LOG_INFO, "match: started on %s", sv->mapname);
		return;
	}
	line[0] = '\0';
	for (int i = 0; r && i < r->num && n < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, " %s %d",
				      r->scores[i].name, r->scores[i].frags);
	qwd_logf(&sv->log, QWD_LOG_INFO, "match: %s on %s:%s",
		 ev == MATCH_EVENT_ENDED ? "ended" : "broken off", sv->mapname, line);
}

/* ---- the settings ---------------------------------------------------- */

/* hand the match the settings whose cvar changed (none when no cvar
 * was stored since: one line read a frame, not one a setting) */
static void sync_vars(struct server *sv)
{
	struct sv_match *sm = sv->match;
	char err[256], back[80];

	if (sm->read && sm->stores_seen == sv->cvar_stores)
		return;
	for (int i = 0; i < sm->num_vars; i++) {
		struct cvar *v = sm->vars[i];

		if (v->modified == sm->seen[i])
			continue;
		if (match_set(sm->m, v->name, v->string, err, sizeof(err)) != 0) {
			qwd_logf(&sv->log, QWD_LOG_WARN, "%s (kept %s)", err,
				 match_get(sm->m, v->name, back, sizeof(back)));
			cvar_force(sv, v, back);
		}
		sm->seen[i] = v->modified;
	}
	sm->stores_seen = sv->cvar_stores;
	sm->read = true;
}

/* ---- the clients' commands -------------------------------------------- */

static void client_cmd(struct server *sv, struct client *cl,
		       const struct net_args *a)
{
	const char *argv[8];
	int argc = a->argc < 8 ? a->argc : 8;

	if (!sv->match || cl->state != CS_SPAWNED || !sv->map)
		return;
	sync_vars(sv);
	for (int i = 0; i < argc; i++)
		argv[i] = net_args_argv(a, i);
	if (!match_command(sv->match->m, cl->slot, argc, argv) &&
	    strcmp(argv[0], "pause") == 0)
		sv_pause_client(sv, cl);	/* matchless: MVDSV's pause */
}

/* the match, for the votes' and admins' part (match_votes.c) */
struct match *sv_match_get(const struct server *sv)
{
	return sv->match ? sv->match->m : NULL;
}

/* ---- the hooks -------------------------------------------------------- */

static void match_level_begin_hook(struct server *sv)
{
	sync_vars(sv);
	match_level_begin(sv->match->m);
}

static void match_frame_hook(struct server *sv)
{
	sync_vars(sv);
	match_frame(sv->match->m, sv->realtime);
}

static void match_free(struct server *sv)
{
	if (!sv->match)
		return;
	match_destroy(sv->match->m);
	sv_match_demo_free(sv->match->demo);
	free(sv->match);
	sv->match = NULL;
}

static const struct sv_feature match_feature = {
	.name = "match",
	.level_begin = match_level_begin_hook,
	.frame = match_frame_hook,
	.free = match_free,
	.admit = sv_match_admit,
	.client_drop = sv_match_client_drop,
};

int sv_match_register(struct server *sv)
{
	struct match_services svc = {
		.ctx = sv,
		.status = svc_status,
		.command = svc_command,
		.file_exists = svc_file_exists,
		.event = svc_event,
		.serverinfo = svc_info_key,
	};

	sv_match_votes_services(&svc);
	struct sv_match *sm = calloc(1, sizeof(*sm));

	if (!sm)
		return -1;
	sv->match = sm;
	sv_feature_add(sv, &match_feature);
	sm->m = match_create(sv->game, &svc);
	if (!sm->m) {
		qwd_logf(&sv->log, QWD_LOG_ERROR, "match: out of memory");
		return -1;
	}
	if (match_var_count() > MATCH_VARS_MAX) {
		/* a setting beyond the table would be silently missing */
		qwd_logf(&sv->log, QWD_LOG_ERROR, "match: %d settings, room for %d",
			 match_var_count(), MATCH_VARS_MAX);
		return -1;
	}
	for (int i = 0; i < match_var_count(); i++) {
		const struct match_var_info *vi = match_var_info(i);

		sm->vars[i] = cvar_register(sv, vi->name, vi->def, 0, vi->help);
		sm->seen[i] = sm->vars[i]->modified - 1;	/* read at once */
		sm->num_vars++;
	}
	for (int i = 0; i < match_command_count(); i++)
		sv_client_command_add(sv, match_command_info(i)->name, client_cmd,
				      BUDGET_CMD);
	sv_match_votes_register(sv);
	sm->demo = sv_match_demo_register(sv);
	if (!sm->demo)
		return -1;
	svc_status(sv, match_status(sm->m));
	return 0;
}
