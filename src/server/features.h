/*
 * src/server/features.h -- the server's operator features, each one's
 * registration.
 *
 * Design note
 *   server.c, the module's top, calls each of these once at start-up, in
 *   this order, after the core is up: each registers its cvars, commands
 *   and hooks (hooks.h) and sets up its own state; -1 when it could not
 *   (the reason logged), which ends the start-up.  A feature's own header
 *   (bans.h, demo.h, ...) holds what its files share and the few calls
 *   another feature may make of it; this one only what server.c needs.
 *   A new feature adds its line here and in server.c, and nothing in the
 *   core changes.
 */
#ifndef QWD_SERVER_FEATURES_H
#define QWD_SERVER_FEATURES_H

#include "core.h"

/* server.c, the module's top: set up a server in sv's memory, the core
 * and every feature (no level yet); 0, or -1 with the reason logged;
 * server_shutdown is due either way (it frees what was set up).  The
 * tests set servers up in place with these. */
int server_init(struct server *sv, const struct server_options *opt);
void server_shutdown(struct server *sv);

int sv_console_register(struct server *sv);	/* console.c */
int sv_compat_register(struct server *sv);	/* compat.c */
int sv_logs_register(struct server *sv);	/* logfile.c */
int sv_rcon_register(struct server *sv);	/* rcon.c */
int sv_bans_register(struct server *sv);	/* bans.c */
int sv_masters_register(struct server *sv);	/* master.c */
int sv_downloads_register(struct server *sv);	/* transfer.c */
int sv_demo_register(struct server *sv);	/* demo.c */
int sv_record_register(struct server *sv);	/* record.c */
int sv_overload_register(struct server *sv);	/* overload.c */
int sv_profcmd_register(struct server *sv);	/* profcmd.c */
int sv_autopool_register(struct server *sv, bool on);	/* autopool.c */
int sv_metrics_register(struct server *sv, const char *listen); /* metrics.c */
int sv_agones_register(struct server *sv, int port);	/* agones.c */
int sv_match_register(struct server *sv);	/* match.c */

#endif
