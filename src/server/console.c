/*
 * console.c -- cvars and the operator's commands, for the stdin console,
 * server.cfg and rcon alike.
 *
 * Design note
 *   One command table; a line is tokenized with Quake's rules (net.h) and
 *   either names a command or a cvar ("hostname" shows it, "hostname x"
 *   sets it, as in every Quake server).  Output goes to the FILE the caller
 *   gives: stdout for the console, a memory buffer for rcon.  Cvars are a
 *   fixed array in struct server (no allocation); those flagged SERVERINFO
 *   are mirrored in the serverinfo string that status and clients read,
 *   and a change is pushed to connected clients (svc_serverinfo).
 *   Secret cvars (passwords) are never printed.  While rcon runs a line,
 *   the few commands and cvars rcon.c forbids are refused, by name or
 *   through "set".
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

struct cvar *cvar_get(struct server *sv, const char *name)
{
	for (int i = 0; i < sv->num_cvars; i++)
		if (strcasecmp(sv->cvars[i].name, name) == 0)
			return &sv->cvars[i];
	return NULL;
}

static void cvar_store(struct server *sv, struct cvar *v, const char *value)
{
	strlcpy(v->string, value, sizeof(v->string));
	v->value = (float)atof(value);
	v->modified++;
	if (v->flags & CVAR_SERVERINFO) {
		info_set_value_for_key(sv->serverinfo, sizeof(sv->serverinfo),
				       v->name, value);
		/* tell clients in the game */
		for (int i = 0; i < sv->maxclients && sv->clients; i++) {
			uint8_t buf[200];
			struct msg_buf m;

			if (sv->clients[i].state < CS_CONNECTED)
				continue;
			msg_init(&m, buf, sizeof(buf));
			msg_write_byte(&m, svc_serverinfo);
			msg_write_string(&m, v->name);
			msg_write_string(&m, value);
			sv_reliable_write(&sv->clients[i], m.data, m.cursize);
		}
	}
}

struct cvar *cvar_register(struct server *sv, const char *name,
			   const char *value, int flags, const char *help)
{
	struct cvar *v = cvar_get(sv, name);

	if (v)
		return v;
	if (sv->num_cvars == SV_CVAR_MAX)
		abort();	/* a programming error: raise SV_CVAR_MAX */
	v = &sv->cvars[sv->num_cvars++];
	v->name = name;
	v->flags = flags;
	v->help = help;
	cvar_store(sv, v, value);
	return v;
}

int cvar_set(struct server *sv, const char *name, const char *value)
{
	struct cvar *v = cvar_get(sv, name);

	if (!v)
		return -1;
	if (v->flags & CVAR_ROM)
		return -2;
	cvar_store(sv, v, value);
	return 0;
}

void cvar_force(struct server *sv, struct cvar *v, const char *value)
{
	cvar_store(sv, v, value);
}

/* ---- commands --------------------------------------------------------- */

struct command {
	const char *name;
	void (*fn)(struct server *sv, const struct net_args *a, FILE *out);
	const char *help;
};

static const struct command commands[];

static void c_map(struct server *sv, const struct net_args *a, FILE *out)
{
	char err[512];

	if (a->argc < 2) {
		fprintf(out, "map: %s\n", sv->mapname);
		return;
	}
	if (server_map(sv, net_args_argv(a, 1), err, sizeof(err)) != 0) {
		fprintf(out, "map refused, staying on %s: %s\n", sv->mapname, err);
		qwd_logf(&sv->log, QWD_LOG_WARN, "map refused: %s", err);
	}
}

static void c_status(struct server *sv, const struct net_args *a, FILE *out)
{
	(void)a;
	fprintf(out, "map      %s\nplayers  %d of %d, spectators %d of %d\n",
		sv->mapname, sv_count_clients(sv, false), sv->max_players,
		sv_count_clients(sv, true), sv_spectator_limit(sv));
	fprintf(out, "load     %.0f%% (sv_maxload %.0f%%)\n",
		100.0 * sv->load, 100.0 * sv->sv_maxload->value);
	fprintf(out, "uptime   %.0f s\nrequests %llu, replies %llu, chokes %llu, "
		"entity lists cut %llu, prints dropped %llu\n",
		sv->realtime - sv->start_time,
		(unsigned long long)sv->stats.requests,
		(unsigned long long)sv->stats.replies,
		(unsigned long long)sv->stats.chokes,
		(unsigned long long)sv->stats.entity_cuts,
		(unsigned long long)sv->stats.prints_dropped);
	fprintf(out, "connectionless (answered/over budget):");
	for (int k = 0; k < OOB_KINDS; k++)
		fprintf(out, " %s %llu/%llu", sv_oob_kind_name(k),
			(unsigned long long)sv->stats.oob_answered[k],
			(unsigned long long)sv->stats.oob_limited[k]);
	fprintf(out, "\n");
	{
		char line[768];

		sv_defence_counts(sv, line, sizeof(line));
		fprintf(out, "defences: %s\n", line);
	}
	fprintf(out, "slot userid name             address                state     ping\n");
	for (int i = 0; i < sv->maxclients; i++) {
		const struct client *cl = &sv->clients[i];
		static const char *const states[] = {"free", "zombie", "signon", "in game"};
		char addr[NET_ADDR_STRLEN];

		if (cl->state < CS_CONNECTED)
			continue;
		fprintf(out, "%4d %6d %-16.16s %-22s %-9s %4d%s", i, cl->userid,
			cl->name, net_addr_format(&cl->chan.remote, addr),
			states[cl->state], sv_client_ping(cl),
			cl->extended ? " QWDX" : "");
		if (cl->state == CS_SPAWNED) {
			const float *o = sv->objs[sv_player_entity(sv, i)].origin;

			fprintf(out, " at %.0f %.0f %.0f", o[0], o[1], o[2]);
		}
		/* a spectator: whom it tracks, and the stats it was last sent
		 * (the tracked player's) */
		if (cl->spectator && cl->spec_track > 0)
			fprintf(out, " spectator tracking %d (health %d, armor %d, ammo %d)",
				cl->spec_track - 1, cl->sent_stats[STAT_HEALTH],
				cl->sent_stats[STAT_ARMOR], cl->sent_stats[STAT_AMMO]);
		else if (cl->spectator)
			fprintf(out, " spectator");
		fprintf(out, "\n");
	}
}

static struct client *find_client(struct server *sv, const char *who)
{
	char *end;
	long id = strtol(who, &end, 10);

	for (int i = 0; i < sv->maxclients; i++) {
		struct client *cl = &sv->clients[i];

		if (cl->state < CS_CONNECTED)
			continue;
		if ((*end == '\0' && cl->userid == id) || strcmp(cl->name, who) == 0)
			return cl;
	}
	return NULL;
}

static void c_kick(struct server *sv, const struct net_args *a, FILE *out)
{
	struct client *cl = find_client(sv, net_args_argv(a, 1));

	if (!cl) {
		fprintf(out, "kick: no player \"%s\" (give a userid or a name)\n",
			net_args_argv(a, 1));
		return;
	}
	sv_reliable_printf(cl, PRINT_HIGH, "You were kicked from the game\n");
	fprintf(out, "kicked %s\n", cl->name);
	sv_drop_client(sv, cl, "kicked");
}

static void c_say(struct server *sv, const struct net_args *a, FILE *out)
{
	(void)out;
	sv_broadcast_printf(sv, PRINT_CHAT, "console: %s\n", net_args_rest(a, 1));
	qwd_logf(&sv->log, QWD_LOG_INFO, "console: %s", net_args_rest(a, 1));
}

static void c_serverinfo(struct server *sv, const struct net_args *a, FILE *out)
{
	struct info_iter it;
	struct info_pair p;

	(void)a;
	info_iter_init(&it, sv->serverinfo);
	while (info_iter_next(&it, &p))
		fprintf(out, "%-20.*s %.*s\n", (int)p.key_len, p.key,
			(int)p.value_len, p.value);
}

static void c_quit(struct server *sv, const struct net_args *a, FILE *out)
{
	(void)a;
	fprintf(out, "shutting down\n");
	sv->quit = true;
}

/* a command or cvar rcon may not touch, while rcon runs one (rcon.c) */
static bool rcon_refuses(const struct server *sv, const char *name, FILE *out)
{
	if (!sv->rcon.running || !sv_rcon_forbidden(name))
		return false;
	fprintf(out, "%s: not over rcon (the server's console or config only)\n", name);
	return true;
}

static void c_set(struct server *sv, const struct net_args *a, FILE *out)
{
	const char *name = net_args_argv(a, 1);
	int rc;

	if (a->argc < 3) {
		fprintf(out, "usage: set NAME VALUE\n");
		return;
	}
	if (rcon_refuses(sv, name, out))
		return;
	/* "set k_..." in a KTX config: said once, not made a variable */
	if (!cvar_get(sv, name) && sv_compat_ignore(sv, name, out))
		return;
	rc = cvar_set(sv, name, net_args_argv(a, 2));
	if (rc == -1 && !(sv->num_cvars < SV_CVAR_MAX)) {
		fprintf(out, "set: no room for a new variable\n");
	} else if (rc == -1) {
		/* a new variable: serverinfo-visible, as Quake's set does */
		if (sv->num_user_cvars == SV_USER_CVARS) {
			fprintf(out, "set: too many new variables\n");
			return;
		}
		char *nm = sv->user_cvar_names[sv->num_user_cvars++];

		strlcpy(nm, name, sizeof(sv->user_cvar_names[0]));
		cvar_register(sv, nm, net_args_argv(a, 2), CVAR_SERVERINFO, "");
	} else if (rc == -2) {
		fprintf(out, "%s can only be set on the command line\n", name);
	}
}

/* Run a config file.  Two bounds, because a config can name itself (or a
 * ring of files can): the depth (EXEC_MAX_DEPTH nested files, else the
 * stack) and the commands one chain runs in all (sv_execlimit, read when
 * the outermost exec starts), since ten lines of "exec self.cfg" eight
 * deep are 10^8 commands and a server that never comes up.  Each cut is
 * said once per chain (on out, and the budget's in the log too), so the
 * answer to such a file stays a few lines. */
enum { EXEC_MAX_DEPTH = 8 };

static bool exec_budget(struct server *sv, const char *file, FILE *out)
{
	if (sv->exec_run < sv->exec_limit)
		return true;
	if (!sv->exec_cut) {
		sv->exec_cut = true;
		fprintf(out, "exec %s: more than %d commands in one exec chain, "
			"the rest is not run (sv_execlimit)\n", file, sv->exec_limit);
		qwd_logf(&sv->log, QWD_LOG_WARN, "exec %s: cut after %d commands "
			 "(sv_execlimit)", file, sv->exec_limit);
	}
	return false;
}

static void c_exec(struct server *sv, const struct net_args *a, FILE *out)
{
	char path[SV_PATH + 128], line[NET_ARGS_LINE];
	const char *file = net_args_argv(a, 1);
	FILE *f = NULL;
	int n = 0;

	if (!*file || strstr(file, "..") || file[0] == '/') {
		fprintf(out, "exec: give a config file name under the game folder\n");
		return;
	}
	if (sv->exec_depth == 0) {	/* a new chain */
		sv->exec_run = 0;
		sv->exec_cut = false;
		sv->exec_too_deep = false;
		sv->exec_limit = sv->sv_execlimit->value >= 1
				 ? (int)sv->sv_execlimit->value : 1;
	}
	if (sv->exec_depth >= EXEC_MAX_DEPTH) {
		if (!sv->exec_too_deep)
			fprintf(out, "exec %s: nested more than %d deep, not run\n",
				file, EXEC_MAX_DEPTH);
		sv->exec_too_deep = true;
		return;
	}
	if (!exec_budget(sv, file, out))
		return;
	const char *dirs[3] = {sv->gamedir, "id1", NULL};
	for (int i = 0; i < 2 && !f; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", sv->basedir, dirs[i], file);
		f = fopen(path, "r");
	}
	if (!f) {
		snprintf(path, sizeof(path), "%s", file);
		f = fopen(path, "r");
	}
	if (!f) {
		fprintf(out, "exec: cannot find %s\n", file);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (!strchr(line, '\n') && !feof(f)) {
			fprintf(out, "%s:%d: line too long, skipped\n", path, n);
			int ch;
			while ((ch = fgetc(f)) != EOF && ch != '\n')
				;
			continue;
		}
		line[strcspn(line, "\r\n")] = '\0';
		if (!exec_budget(sv, file, out))
			break;
		sv->exec_run++;
		sv->exec_depth++;
		server_command(sv, line, out);
		sv->exec_depth--;
	}
	fclose(f);
}

static void c_help(struct server *sv, const struct net_args *a, FILE *out);

/* "capture start FILE [MAXMB] [client USERID]" / "capture stop" / "capture":
 * the server's own traffic to a pcap file (docs/instrumentation.md).  The
 * file name comes from the console or rcon: only a plain name, written in
 * the working directory, so rcon cannot write elsewhere. */
static void c_capture(struct server *sv, const struct net_args *a, FILE *out)
{
	const char *verb = net_args_argv(a, 1);
	struct capture_stats st;

	if (!strcmp(verb, "stop") || !strcmp(verb, "start")) {
		if (sv->capture) {
			capture_get_stats(sv->capture, &st);
			capture_close(sv->capture);
			sv->capture = NULL;
			fprintf(out, "capture stopped: %llu records, %llu bytes, %llu dropped\n",
				(unsigned long long)st.records, (unsigned long long)st.bytes,
				(unsigned long long)st.dropped);
		}
		if (!strcmp(verb, "stop"))
			return;
	} else {
		if (!sv->capture) {
			fprintf(out, "no capture running (capture start FILE [MAXMB] [client USERID])\n");
			return;
		}
		capture_get_stats(sv->capture, &st);
		fprintf(out, "capture: %llu records, %llu of %llu bytes, %llu dropped%s\n",
			(unsigned long long)st.records, (unsigned long long)st.bytes,
			(unsigned long long)st.max_bytes, (unsigned long long)st.dropped,
			st.full ? " (full)" : "");
		return;
	}
	const char *file = net_args_argv(a, 2);
	if (!*file || strchr(file, '/') || file[0] == '.') {
		fprintf(out, "capture start FILE: a plain file name (written in the working directory)\n");
		return;
	}
	uint64_t max = 0;
	int argi = 3;
	if (a->argc > argi && strcmp(net_args_argv(a, argi), "client") != 0)
		max = (uint64_t)atoi(net_args_argv(a, argi++)) << 20;
	struct client *who = NULL;
	if (!strcmp(net_args_argv(a, argi), "client")) {
		who = find_client(sv, net_args_argv(a, argi + 1));
		if (!who) {
			fprintf(out, "capture: no client %s\n", net_args_argv(a, argi + 1));
			return;
		}
	}
	struct net_addr local;
	char err[256];

	if (!net_udp_local_addr(sv->sock, &local))
		memset(&local, 0, sizeof(local));
	sv->capture = capture_open(file, max, &local, &sv->log, err, sizeof(err));
	if (!sv->capture) {
		fprintf(out, "capture: %s\n", err);
		return;
	}
	if (who) {
		struct net_addr peer = who->chan.remote;

		peer.port = 0;	/* the whole address: a NAT may move the port */
		capture_set_peer(sv->capture, &peer);
	}
	fprintf(out, "capturing to %s%s%s\n", file, who ? " for " : "", who ? who->name : "");
}

static const struct command commands[] = {
	{"map", c_map, "map NAME: change level (clients come along)"},
	{"status", c_status, "players, addresses, pings"},
	{"kick", c_kick, "kick USERID|NAME"},
	{"say", c_say, "say TEXT: to everyone"},
	{"serverinfo", c_serverinfo, "show the serverinfo"},
	{"set", c_set, "set NAME VALUE"},
	{"exec", c_exec, "exec FILE: run a config file"},
	{"quit", c_quit, "shut down cleanly"},
	{"threads", sv_cmd_threads, "the reply phase's workers: active, max, the predicted need (-threads auto)"},
	{"stats", sv_cmd_prof, "stats show|reset|on|off|interval N: the frame figures"},
	{"counters", sv_cmd_prof, "counters on|off|report|merge on|off: perf_event"},
	{"capture", c_capture, "capture start FILE [MAXMB] [client ID] | stop: traffic to pcap"},
	{"cmdrecord", sv_cmd_cmdrecord, "cmdrecord start FILE [MAXMB] [client ID] | stop: usercmds to an action file"},
	{"addip", sv_cmd_bans, "addip IP [ban|safe] [+SECONDS|UNIXTIME]: filter an address (0 octets: any)"},
	{"removeip", sv_cmd_bans, "removeip IP: remove the filter given as IP"},
	{"listip", sv_cmd_bans, "the address filters"},
	{"writeip", sv_cmd_bans, "save the filters to listip.cfg (read at start-up)"},
	{"setmaster", sv_cmd_master, "setmaster HOST[:PORT] ... | none: master servers (up to 8)"},
	{"heartbeat", sv_cmd_master, "a heartbeat to the master servers now"},
	{"logfile", sv_cmd_logs, "logfile [on|off]: the console log (none: toggle)"},
	{"logrcon", sv_cmd_logs, "logrcon [on|off]: the rcon log (none: toggle)"},
	{"fraglogfile", sv_cmd_logs, "fraglogfile [on|off]: the frag log (none: toggle)"},
	{"pause", sv_cmd_pause, "pause [1|0]: stop or resume the game's clock and moves (none: toggle; MVDSV's pause)"},
	{"floodprot", sv_cmd_floodprot, "floodprot MESSAGES SECONDS SILENCE: MVDSV's chat flood protection (the fp_* cvars)"},
	{"help", c_help, "this list"},
	{NULL, NULL, NULL}
};

static void c_help(struct server *sv, const struct net_args *a, FILE *out)
{
	(void)a;
	for (const struct command *c = commands; c->name; c++)
		fprintf(out, "  %-12s %s\n", c->name, c->help);
	sv_demo_help(out);
	fprintf(out, "variables (NAME shows, NAME VALUE sets):\n");
	for (int i = 0; i < sv->num_cvars; i++)
		fprintf(out, "  %-16s %s\n", sv->cvars[i].name, sv->cvars[i].help);
}

void server_command(struct server *sv, const char *line, FILE *out)
{
	struct net_args a;
	struct cvar *v;

	if (net_args_tokenize(&a, line) <= 0)
		return;
	const char *c = net_args_argv(&a, 0);
	if (rcon_refuses(sv, c, out))
		return;
	if (sv_demo_command(sv, &a, out))
		return;
	for (const struct command *cmd = commands; cmd->name; cmd++)
		if (strcasecmp(cmd->name, c) == 0) {
			cmd->fn(sv, &a, out);
			return;
		}
	v = cvar_get(sv, c);
	if (!v) {
		if (!sv_compat_ignore(sv, c, out))
			fprintf(out, "unknown command \"%s\" (try help)\n", c);
		return;
	}
	if (a.argc == 1) {
		fprintf(out, "\"%s\" is \"%s\"\n", v->name,
			(v->flags & CVAR_SECRET) ? "(hidden)" : v->string);
		return;
	}
	if (cvar_set(sv, c, net_args_argv(&a, 1)) == -2)
		fprintf(out, "%s can only be set on the command line\n", v->name);
}
