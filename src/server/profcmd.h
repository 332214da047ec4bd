/*
 * src/server/profcmd.h -- "stats" and "counters" on the console
 *
 * Design note
 *   A feature of the server (hooks.h): profcmd.c.
 *   The profiler's commands over a struct prof (also used by tools), and
 *   the console's entries, which add the defences' counters to "stats".
 */
#ifndef QWD_SERVER_PROFCMD_H
#define QWD_SERVER_PROFCMD_H

#include "core.h"

/* profcmd.c: "stats ..." and "counters ..." over a profiler (argv[0] the
 * command's name; output to out; 0, or -1 with the usage printed), and
 * the console's entry, which adds the defences' counters to "stats" */
int sv_prof_command(struct prof *p, int argc, const char *const *argv,
		    FILE *out);
void sv_cmd_prof(struct server *sv, const struct net_args *a, FILE *out);

#endif
