/*
 * match_votes.c -- the server's side of the match's votes and admins:
 * what the match asks (an admin's log line, a kick, a client's userid
 * and address, the operator's map list) and what the server asks the
 * match (is the server locked at a connect, is a client muted at a say).
 *
 * Design note
 *   The map list is KTX's: console variables k_ml_0, k_ml_1, ... (an
 *   operator's config "set k_ml_0 dm2"), registered here, read in order
 *   until the first empty one.  An admin's line goes to the rcon log
 *   (logrcon, as an rcon command would) and to the server's log; the
 *   match never hands the admin code to it.  The lock refuses a connect
 *   through the admit hook with a line the client shows; a muted
 *   client's say and say_team are answered and dropped (the client
 *   commands are registered here, in front of the core's own, which
 *   runs otherwise).  "votestats" prints the match's counters.
 */
#include "core.h"
#include "features.h"
#include "logfile.h"
#include "match_votes.h"

#include <stdio.h>
#include <string.h>

#include <bsd/string.h>

#include "qwd/metrics.h"

static void svc_log(void *ctx, const char *line)
{
	struct server *sv = ctx;

	qwd_logf(&sv->log, QWD_LOG_INFO, "match: %s", line);
	sv_log_rcon(sv, "%s", line);
}

static void svc_kick(void *ctx, int slot, const char *why)
{
	struct server *sv = ctx;
	struct client *cl;

	if (slot < 0 || slot >= sv->maxclients)
		return;
	cl = &sv->clients[slot];
	if (cl->state < CS_CONNECTED)
		return;
	sv_reliable_printf(cl, PRINT_HIGH, "You were %s\n", why);
	sv_drop_client(sv, cl, "kicked");
}

static bool svc_client_info(void *ctx, int slot, int *userid, char *addr,
			    size_t size)
{
	struct server *sv = ctx;
	struct client *cl;
	char a[NET_ADDR_STRLEN];
	char *colon;

	if (slot < 0 || slot >= sv->maxclients)
		return false;
	cl = &sv->clients[slot];
	if (cl->state < CS_CONNECTED)
		return false;
	*userid = cl->userid;
	net_addr_format(&cl->chan.remote, a);
	colon = strrchr(a, ':');
	if (colon)
		*colon = '\0';	/* the address, whatever the port */
	strlcpy(addr, a, size);
	return true;
}

static bool svc_client_extra(void *ctx, int slot, int *topcolor, int *ping)
{
	struct server *sv = ctx;
	const struct client *cl;

	if (slot < 0 || slot >= sv->maxclients)
		return false;
	cl = &sv->clients[slot];
	if (cl->state < CS_CONNECTED)
		return false;
	*topcolor = sv_client_color(cl, "topcolor");
	*ping = sv_client_ping(cl);
	return true;
}

static bool svc_map_list(void *ctx, int i, char *buf, size_t size)
{
	struct server *sv = ctx;
	char name[16];
	struct cvar *v;

	if (i < 0 || i >= SV_MATCH_MAPLIST)
		return false;
	snprintf(name, sizeof(name), "k_ml_%d", i);
	v = cvar_get(sv, name);
	if (!v || !v->string[0])
		return false;
	strlcpy(buf, v->string, size);
	return true;
}

static bool svc_map_exists(void *ctx, const char *name)
{
	struct server *sv = ctx;
	char path[SV_PATH + 128], err[160];

	return sv_level_find(sv, name, path, sizeof(path), err, sizeof(err));
}

void sv_match_votes_services(struct match_services *svc)
{
	svc->map_exists = svc_map_exists;
	svc->log = svc_log;
	svc->kick = svc_kick;
	svc->client_info = svc_client_info;
	svc->client_extra = svc_client_extra;
	svc->map_list = svc_map_list;
}

bool sv_match_admit(struct server *sv, bool extended, char *why, size_t size)
{
	struct match *m = sv_match_get(sv);

	(void)extended;
	if (!m || !match_locked(m))
		return true;
	snprintf(why, size, "the server is locked by an admin: no one new comes in now");
	return false;
}

void sv_match_client_drop(struct server *sv, struct client *cl)
{
	struct match *m = sv_match_get(sv);

	if (m)
		match_client_gone(m, cl->slot);
}

static void cmd_say(struct server *sv, struct client *cl,
		    const struct net_args *a)
{
	struct match *m = sv_match_get(sv);
	bool team = strcmp(net_args_argv(a, 0), "say_team") == 0;

	if (m && cl->state == CS_SPAWNED && match_muted(m, cl->slot)) {
		match_count_muted(m);
		sv_reliable_printf(cl, PRINT_HIGH, "You are muted by an admin\n");
		return;
	}
	sv_cmd_say(sv, cl, a, team);
}

static void c_votestats(struct server *sv, const struct net_args *a, FILE *out)
{
	struct match *m = sv_match_get(sv);
	const struct match_vote_stats *st;

	(void)a;
	if (!m) {
		fprintf(out, "votestats: no match\n");
		return;
	}
	st = match_vote_stats(m);
	fprintf(out, "admin: %lu granted, %lu wrong codes, %lu refused while locked out, "
		"%lu actions, %lu commands of non-admins refused\n"
		"votes: %lu cast, %lu refused, %lu maps refused, %lu passed, %lu timed out\n"
		"server %s; muted chat dropped: %lu\n",
		st->admin_granted, st->admin_denied, st->admin_lockouts,
		st->admin_actions, st->admin_refused, st->votes_cast,
		st->votes_refused, st->maps_refused, st->votes_passed,
		st->votes_timed_out, match_locked(m) ? "locked" : "not locked",
		st->muted_says);
}

void sv_match_votes_metrics(const struct server *sv, struct metrics_page *p)
{
	static const char fam[] = "qwd_match_admin_votes_total";
	struct match *m = sv_match_get(sv);
	const struct match_vote_stats *st;

	if (!m)
		return;
	st = match_vote_stats(m);
	const struct { const char *kind; unsigned long n; } rows[] = {
		{"admin_granted", st->admin_granted},
		{"admin_code_wrong", st->admin_denied},
		{"admin_locked_out", st->admin_lockouts},
		{"admin_actions", st->admin_actions},
		{"admin_refused", st->admin_refused},
		{"votes_cast", st->votes_cast},
		{"votes_refused", st->votes_refused},
		{"maps_refused", st->maps_refused},
		{"votes_passed", st->votes_passed},
		{"votes_timed_out", st->votes_timed_out},
		{"muted_says", st->muted_says},
	};

	metrics_family(p, fam, METRICS_COUNTER,
		       "The match's admin logins and actions and its votes, by "
		       "what happened (docs/match.md).");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct metrics_label l = {"kind", rows[i].kind};

		metrics_sample_u64(p, fam, &l, 1, rows[i].n);
	}
	metrics_gauge(p, "qwd_match_locked", "1 while an admin has locked the "
		      "server (no one new comes in).", match_locked(m));
	{
		static const char *const states[] = {"prewar", "countdown",
						     "playing", "over"};
		static const char sfam[] = "qwd_match_state";

		metrics_family(p, sfam, METRICS_GAUGE, "The match's state, 1 for "
			       "the present one (KTX's: prewar, countdown, playing, "
			       "over; a matchless server stays in prewar).");
		for (int i = 0; i < 4; i++) {
			struct metrics_label l = {"state", states[i]};

			metrics_sample(p, sfam, &l, 1,
				       (int)match_state(m) == i ? 1 : 0);
		}
	}
}

/* the cvars' names (the table keeps the pointer) */
static const char *const maplist_names[SV_MATCH_MAPLIST] = {
	"k_ml_0", "k_ml_1", "k_ml_2", "k_ml_3", "k_ml_4", "k_ml_5",
	"k_ml_6", "k_ml_7", "k_ml_8", "k_ml_9", "k_ml_10", "k_ml_11",
	"k_ml_12", "k_ml_13", "k_ml_14", "k_ml_15", "k_ml_16", "k_ml_17",
	"k_ml_18", "k_ml_19", "k_ml_20", "k_ml_21", "k_ml_22", "k_ml_23"
};

void sv_match_votes_register(struct server *sv)
{
	for (int i = 0; i < SV_MATCH_MAPLIST; i++)
		(void)cvar_register(sv, maplist_names[i], "", 0,
				    "the map list for votemap and maps (KTX's): k_ml_0, k_ml_1, ... up to the first empty");
	sv_client_command_add(sv, "say", cmd_say, BUDGET_CMD);
	sv_client_command_add(sv, "say_team", cmd_say, BUDGET_CMD);
	sv_command_add(sv, "votestats", c_votestats,
		       "votestats: the match's votes and admin logins: granted, refused, locked out");
}
