/*
 * src/server/bans.h -- addip and its kin: the address filters checked for every packet
 *
 * Design note
 *   A feature of the server (hooks.h): bans.c.
 *   addip, removeip, listip, writeip and the filterban cvar; a received
 *   packet from a refused address is answered "banned." within a budget
 *   and taken (the packet hook); the upkeep expires filters and drops the
 *   clients a filterban change now refuses.  It touches of the core's state
 *   the clients' addresses and states (to drop them) and sv->bans->
 */
#ifndef QWD_SERVER_BANS_H
#define QWD_SERVER_BANS_H

#include "core.h"

/* addip and its kin (bans.c): the filters, checked for every packet */
struct sv_bans {
	struct ipfilter list;
	struct cvar *filterban;
	unsigned filterban_applied;	/* its `modified` the clients were
					 * last checked against */
	struct ratelimit answers;	/* the "banned." replies */
	double next_expiry;		/* realtime of the next expiry pass */
	uint64_t refused;		/* packets from refused addresses */
};

/* bans.c: a packet from a refused address is answered "banned." (within
 * a budget) and dropped: true.  Runs for every received packet. */
bool sv_ban_filter(struct server *sv, const struct net_addr *from);
/* bans.c: would an address be refused now */
bool sv_banned(const struct server *sv, const struct net_addr *from);
/* bans.c: expiries, and the clients a filterban change now refuses */
void sv_bans_upkeep(struct server *sv);
/* bans.c: addip, removeip, listip, writeip */
void sv_cmd_bans(struct server *sv, const struct net_args *a, FILE *out);

#endif
