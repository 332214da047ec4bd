/*
 * src/server/master.h -- setmaster and the heartbeats to the master servers
 *
 * Design note
 *   A feature of the server (hooks.h): master.c.
 *   setmaster, heartbeat; a heartbeat when one is due (upkeep), "C\n" at
 *   shutdown; a master's answer to its ping is taken (the packet hook).
 *   It reads the players' count and touches sv->masters->
 */
#ifndef QWD_SERVER_MASTER_H
#define QWD_SERVER_MASTER_H

#include "core.h"

enum {
	SV_MAX_MASTERS = 8		/* setmaster's list (MVDSV's MAX_MASTERS) */
};

/* setmaster (master.c) */
struct sv_masters {
	struct net_addr addr[SV_MAX_MASTERS];
	char name[SV_MAX_MASTERS][64];	/* as the operator gave it */
	int count;
	int sequence;			/* of the last heartbeat */
	double last_sent;		/* realtime; < 0: one is due now */
	int players_sent;		/* the count the last one carried */
	uint64_t heartbeats;
};

/* master.c: setmaster, heartbeat */
void sv_cmd_master(struct server *sv, const struct net_args *a, FILE *out);
/* master.c: a heartbeat when one is due (upkeep) */
void sv_masters_frame(struct server *sv);
/* master.c: is this address one of the masters */
bool sv_is_master(const struct server *sv, const struct net_addr *a);

#endif
