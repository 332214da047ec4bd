/*
 * cvar.c -- the cvars and the console's command table: the base of the
 * server's console, for the stdin console, server.cfg and rcon alike.
 *
 * Design note
 *   A base file (base.h): it calls nothing of the server above it.  Cvars
 *   are a fixed array in struct server (no allocation); those flagged
 *   SERVERINFO are mirrored in the serverinfo string that status and
 *   clients read, and a change is handed to the core's serverinfo callback
 *   (which tells the connected clients).  Commands are a table the core
 *   and the features fill at start-up (sv_command_add); this file owns only
 *   the console's own: "set", "exec", "help".  A line is tokenized with
 *   Quake's rules (net.h) and either names a command or a cvar ("hostname"
 *   shows it, "hostname x" sets it, as in every Quake server); a name that
 *   is neither goes to the features' unknown hook (compat.c answers
 *   MVDSV's and KTX's names).  Output goes to the FILE the caller gives:
 *   stdout for the console, a memory buffer for rcon.  Secret cvars
 *   (passwords) are never printed.  While rcon runs a line
 *   (sv->rcon_running), the features' allowed hook may refuse a command or
 *   cvar, by name or through "set".
 */
#include "base.h"

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
	sv->cvar_stores++;
	if (v->flags & CVAR_SERVERINFO) {
		info_set_value_for_key(sv->serverinfo, sizeof(sv->serverinfo),
				       v->name, value);
		/* the clients in the game are told (the core's) */
		if (sv->hooks.serverinfo)
			sv->hooks.serverinfo(sv, v->name, value);
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

void sv_command_add(struct server *sv, const char *name,
		    void (*fn)(struct server *, const struct net_args *, FILE *),
		    const char *help)
{
	struct sv_command *c;

	if (sv->num_commands == SV_COMMANDS_MAX)
		abort();	/* a programming error: raise SV_COMMANDS_MAX */
	c = &sv->commands[sv->num_commands++];
	c->name = name;
	c->fn = fn;
	c->help = help;
}

/* ---- the console's own commands --------------------------------------- */

/* a command or cvar rcon may not touch, while rcon runs one (the
 * features say which: rcon.c's allowed hook) */
static bool rcon_refuses(struct server *sv, const char *name, FILE *out)
{
	if (!sv->rcon_running || sv_hooks_allowed(sv, name))
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
	if (!cvar_get(sv, name) && sv_hooks_unknown(sv, name, out))
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

static void c_help(struct server *sv, const struct net_args *a, FILE *out)
{
	(void)a;
	for (int i = 0; i < sv->num_commands; i++)
		fprintf(out, "  %-12s %s\n", sv->commands[i].name, sv->commands[i].help);
	sv_hooks_help(sv, out);
	fprintf(out, "variables (NAME shows, NAME VALUE sets):\n");
	for (int i = 0; i < sv->num_cvars; i++)
		fprintf(out, "  %-16s %s\n", sv->cvars[i].name, sv->cvars[i].help);
}

void sv_console_base_register(struct server *sv)
{
	sv_command_add(sv, "set", c_set, "set NAME VALUE");
	sv_command_add(sv, "exec", c_exec, "exec FILE: run a config file");
	sv_command_add(sv, "help", c_help, "this list");
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
	for (int i = 0; i < sv->num_commands; i++)
		if (strcasecmp(sv->commands[i].name, c) == 0) {
			sv->commands[i].fn(sv, &a, out);
			return;
		}
	v = cvar_get(sv, c);
	if (!v) {
		if (!sv_hooks_unknown(sv, c, out))
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
