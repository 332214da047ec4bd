/*
 * src/server/record.h -- cmdrecord: one client's usercmds to an action file
 *
 * Design note
 *   A feature of the server (hooks.h): record.c.
 *   "cmdrecord start FILE [MAXMB] [client USERID]", "cmdrecord stop"; each
 *   move about to run (the usercmd hook) is written for the client
 *   recorded.
 */
#ifndef QWD_SERVER_RECORD_H
#define QWD_SERVER_RECORD_H

#include "core.h"

/* the recording: one client's usercmds (src/capture), or none */
struct sv_record {
	struct recorder *rec;		/* NULL: none */
	int userid;			/* whose; 0: the first to move */
	int spawncount;			/* its level; -1 until the first command */
};

/* record.c: "cmdrecord start FILE [MAXMB] [client USERID]" /
 * "cmdrecord stop" / "cmdrecord" (console and rcon) */
void sv_cmd_cmdrecord(struct server *sv, const struct net_args *a, FILE *out);
/* record.c: a command the server is about to run for cl (user.c) */
void sv_record_cmd(struct server *sv, struct client *cl,
		   const struct usercmd *cmd);
/* record.c: close the recording, if any (shutdown); says so on out */
void sv_record_stop(struct server *sv, FILE *out);

#endif
