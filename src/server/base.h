/*
 * src/server/base.h -- the server module's base layer: what every other
 * file of src/server/ may call.
 *
 * Design note
 *   The base knows the server's state (state.h) and calls nothing of the
 *   server above it: cvar.c (the cvars, the console's command table and
 *   its dispatch, "set", "exec", "help"), hooks.c (the features' registry,
 *   hooks.h), loglimit.c (log lines a remote source drives, rate-limited)
 *   and io.c (the server's clock, one datagram out of the reply batch, the
 *   client lookup by address, the clients' sides).  The core (core.h)
 *   stands on it, the features on both.
 */
#ifndef QWD_SERVER_BASE_H
#define QWD_SERVER_BASE_H

#include "state.h"

/* ---- cvars and console commands (cvar.c) ------------------------------ */

struct cvar *cvar_get(struct server *sv, const char *name);
struct cvar *cvar_register(struct server *sv, const char *name,
			   const char *value, int flags, const char *help);
int cvar_set(struct server *sv, const char *name, const char *value);
/* the server's own store into a cvar, read-only ones too (sv_paused) */
void cvar_force(struct server *sv, struct cvar *v, const char *value);
/* cvar.c: "set", "exec", "help" into the table (the module's top, first)
 * (server.c) */
void sv_console_base_register(struct server *sv);
/* a console command into the table (start-up; a full table is a
 * programming error) */
void sv_command_add(struct server *sv, const char *name,
		    void (*fn)(struct server *, const struct net_args *, FILE *),
		    const char *help);

/* ---- the base's other files ------------------------------------------- */

/* loglimit.c: a log line driven by a remote source, rate-limited per
 * source address and in all (sv_lograte, sv_logburst, sv_logtotal) */
void sv_log_limit_init(struct server *sv);
void sv_log_from(struct server *sv, const struct net_addr *from, int level,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* loglimit.c: the "N similar lines suppressed" summaries, every few
 * seconds (frame.c's upkeep) and at shutdown (force) */
void sv_log_summaries(struct server *sv, bool force);
/* io.c: one datagram now, outside the reply batch (connectionless
 * answers, a last disconnect); captured when a capture runs */
void sv_send_raw(struct server *sv, const struct net_addr *to,
		 const void *data, size_t len);
/* io.c: the server's clock now (the real one, or its driver's) */
double sv_clock(const struct server *sv);
/* io.c: rebuild the (address, qport) lookup after a connect or drop */
void sv_rehash_clients(struct server *sv);
/* io.c: clients in a slot (state >= CS_CONNECTED) that are
 * spectators, or players */
int sv_count_clients(const struct server *sv, bool spectators);
/* io.c: maxspectators, bounded to 0..SV_SPECTATOR_SLOTS */
int sv_spectator_limit(const struct server *sv);
/* io.c: the slot whose stats and view a client gets (the tracked
 * player of a tracking spectator, else its own) */
int sv_view_slot(const struct server *sv, const struct client *cl);

/* io.c: the client at an address and qport, or NULL */
struct client *sv_find_client(struct server *sv, const struct net_addr *from,
			      uint16_t qport);
/* Ask memory for what receive_packet will read of the client p probably
 * comes from (the first slot its address and qport hash to; a wrong
 * guess costs nothing but the prefetch), while the packet before it is
 * handled: on a server of hundreds its lines are cold. */
void sv_client_prefetch(const struct server *sv, const struct net_packet *p);

#endif
