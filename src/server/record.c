/*
 * record.c -- the operator's command recorder: one client's usercmds to a
 * qwbots action file (the writer is src/capture/commands.c).
 *
 * Design note
 *   Its command is "cmdrecord": "record" is MVDSV's demo command (demo.c).
 *   "cmdrecord start FILE [MAXMB] [client USERID]" opens the file; every
 *   command the server then runs for that client (user.c run_cmd, after
 *   the speed check: what the game really ran, the drop-recovery copies
 *   of a lost packet included) becomes one line, stamped with the server's
 *   monotonic clock.  Without "client", the first client to move is
 *   chosen and kept.  "cmdrecord stop" closes the file; "cmdrecord" shows the
 *   state.  The file name obeys the rule of "capture": a plain name,
 *   written in the working directory, so rcon cannot write elsewhere.
 *
 *   An action file holds one map, the level of the first command (so
 *   "qwd +cmdrecord start FILE" works before the first level loads): when
 *   the level changes (spawncount) or
 *   the client leaves (its userid no longer runs commands; a new client
 *   in the slot has another userid), nothing more is written for it; a
 *   level change closes the file with a log line.  Cost with no recording:
 *   one pointer test per command.
 */
#include "features.h"
#include "record.h"

#include <stdlib.h>
#include <string.h>

static struct client *client_by_userid(struct server *sv, const char *text)
{
	char *end;
	long id = strtol(text, &end, 10);

	if (!*text || *end || id <= 0)
		return NULL;
	for (int i = 0; i < sv->maxclients; i++) {
		struct client *cl = &sv->clients[i];

		if (cl->state >= CS_CONNECTED && cl->userid == id)
			return cl;
	}
	return NULL;
}

static void print_stats(const struct server *sv, FILE *out, const char *what)
{
	struct recorder_stats st;

	recorder_get_stats(sv->record->rec, &st);
	fprintf(out, "%s: %llu commands, %.1f s, %llu of %llu bytes, %llu dropped%s%s\n",
		what, (unsigned long long)st.commands, st.seconds,
		(unsigned long long)st.bytes, (unsigned long long)st.max_bytes,
		(unsigned long long)st.dropped, st.full ? " (full)" : "",
		st.write_error ? " (write error)" : "");
}

void sv_record_stop(struct server *sv, FILE *out)
{
	if (!sv->record->rec)
		return;
	if (out)
		print_stats(sv, out, "cmdrecord stopped");
	if (recorder_close(sv->record->rec) != 0 && out)
		fprintf(out, "cmdrecord: the file could not be written whole\n");
	sv->record->rec = NULL;
}

void sv_cmd_cmdrecord(struct server *sv, const struct net_args *a, FILE *out)
{
	const char *verb = net_args_argv(a, 1);
	const char *file = net_args_argv(a, 2);
	struct client *who = NULL;
	uint64_t max = 0;
	int argi = 3;
	char err[256], source[160];

	if (!strcmp(verb, "stop")) {
		if (!sv->record->rec)
			fprintf(out, "no command recording running\n");
		sv_record_stop(sv, out);
		return;
	}
	if (strcmp(verb, "start") != 0) {
		if (verb[0]) {
			fprintf(out, "usage: cmdrecord start FILE [MAXMB] [client USERID] | cmdrecord stop | cmdrecord\n");
		} else if (!sv->record->rec) {
			fprintf(out, "no command recording running (cmdrecord start FILE [MAXMB] [client USERID])\n");
		} else {
			print_stats(sv, out, "cmdrecord");
			if (sv->record->userid)
				fprintf(out, "cmdrecord: userid %d\n", sv->record->userid);
			else
				fprintf(out, "waiting for the first client to move\n");
		}
		return;
	}
	if (!*file || strchr(file, '/') || file[0] == '.') {
		fprintf(out, "cmdrecord start FILE: a plain file name (written in the working directory)\n");
		return;
	}
	if (a->argc > argi && strcmp(net_args_argv(a, argi), "client") != 0) {
		char *end;
		long mb = strtol(net_args_argv(a, argi), &end, 10);

		if (*end || mb < 1 || mb > 4096) {
			fprintf(out, "cmdrecord: MAXMB must be 1..4096\n");
			return;
		}
		max = (uint64_t)mb << 20;
		argi++;
	}
	if (!strcmp(net_args_argv(a, argi), "client")) {
		who = client_by_userid(sv, net_args_argv(a, argi + 1));
		if (!who) {
			fprintf(out, "cmdrecord: no client with userid \"%s\" (see status)\n",
				net_args_argv(a, argi + 1));
			return;
		}
	} else if (a->argc > argi) {
		fprintf(out, "usage: cmdrecord start FILE [MAXMB] [client USERID]\n");
		return;
	}
	sv_record_stop(sv, out);	/* one recording at a time */
	if (who)
		snprintf(source, sizeof(source), "qwd server-side recording of %s (userid %d)",
			 who->name, who->userid);
	else
		snprintf(source, sizeof(source), "qwd server-side recording");
	sv->record->rec = recorder_open(file, max, sv->mapname, source, &sv->log, err,
				     sizeof(err));
	if (!sv->record->rec) {
		fprintf(out, "cmdrecord: %s\n", err);
		return;
	}
	sv->record->userid = who ? who->userid : 0;
	sv->record->spawncount = -1;	/* the level of the first command */
	fprintf(out, "cmdrecord: usercmds to %s%s%s\n", file, who ? " for " : " (the first client to move)",
		who ? who->name : "");
}

void sv_record_cmd(struct server *sv, struct client *cl, const struct usercmd *cmd)
{
	int ent;

	if (!sv->record->rec)
		return;
	if (sv->record->spawncount >= 0 && sv->record->spawncount != sv->spawncount) {
		qwd_logf(&sv->log, QWD_LOG_INFO,
			 "cmdrecord: the level changed, recording closed (one map per action file)");
		sv_record_stop(sv, NULL);
		return;
	}
	if (!sv->record->userid)
		sv->record->userid = cl->userid;	/* the first to move */
	if (cl->userid != sv->record->userid)
		return;
	if (sv->record->spawncount < 0) {
		/* "+cmdrecord start" runs before the first level loads */
		sv->record->spawncount = sv->spawncount;
		recorder_set_map(sv->record->rec, sv->mapname);
	}
	ent = game_player_entity(sv->game, cl->slot);
	recorder_cmd(sv->record->rec, sv->realtime, ent > 0 ? sv->objs[ent].origin : NULL, cmd);
}

static void record_shutdown(struct server *sv)
{
	sv_record_stop(sv, NULL);
}

static void record_free(struct server *sv)
{
	free(sv->record);
	sv->record = NULL;
}

static const struct sv_feature record_feature = {
	.name = "cmdrecord",
	.usercmd = sv_record_cmd,
	.stop = record_shutdown,
	.free = record_free,
};

int sv_record_register(struct server *sv)
{
	sv->record = calloc(1, sizeof(*sv->record));
	if (!sv->record)
		return -1;
	sv_command_add(sv, "cmdrecord", sv_cmd_cmdrecord,
		       "cmdrecord start FILE [MAXMB] [client ID] | stop: usercmds to an action file");
	sv_feature_add(sv, &record_feature);
	return 0;
}
