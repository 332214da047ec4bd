/*
 * src/server/logfile.h -- the log files: console, rcon, frags
 *
 * Design note
 *   A feature of the server (hooks.h): logfile.c.
 *   logfile, logrcon, fraglogfile, as MVDSV names them; a frag (the frag
 *   hook) and a new level (level_begin) go to the frag log; the console
 *   log is a sink in front of the server's own log.  rcon.c writes the
 *   rcon log through sv_log_rcon.  It touches sv->log (its sink) and
 *   sv->logs->
 */
#ifndef QWD_SERVER_LOGFILE_H
#define QWD_SERVER_LOGFILE_H

#include "core.h"

/* logfile, logrcon, fraglogfile (logfile.c) */
enum sv_log_kind { SV_LOG_CONSOLE, SV_LOG_RCON, SV_LOG_FRAGS, SV_LOG_KINDS };

struct sv_log_file {
	FILE *fp;			/* NULL: off */
	char path[2 * SV_PATH + 64];	/* the base directory, sv_logdir, name */
	int number;			/* NNNN of its name */
	uint64_t size;			/* bytes in the file */
	int64_t next_day;		/* Unix time of the next local midnight */
};

struct sv_logs {
	struct sv_log_file file[SV_LOG_KINDS];
	struct cvar *sv_logdir, *sv_maxlogsize, *sv_logdaily, *frag_log_type;
	/* the console log is a sink in front of the server's own: the one
	 * it passes every line on to */
	void (*next_sink)(void *ctx, int level, const char *line);
	void *next_ctx;
};

/* logfile.c: logfile, logrcon, fraglogfile */
void sv_cmd_logs(struct server *sv, const struct net_args *a, FILE *out);
/* logfile.c: a line for the rcon log (when it is on) */
void sv_log_rcon(struct server *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
