/*
 * src/server/rcon.h -- hashed and plain rcon
 *
 * Design note
 *   A feature of the server (hooks.h): rcon.c.
 *   The connectionless "rcon" command (registered with the core's oob
 *   table), its password or digest checks, replay refusal, the line run
 *   through the console with its output sent back; while it runs
 *   (sv->rcon_running) the commands and cvars it may not touch are refused
 *   (the allowed hook).  It touches sv->rcon and, through logfile.h, the
 *   rcon log.
 */
#ifndef QWD_SERVER_RCON_H
#define QWD_SERVER_RCON_H

#include "core.h"

enum {
	SV_RCON_SEEN = 4096		/* hashed rcon digests remembered */
};

/* hashed and plain rcon (rcon.c) */
struct sv_rcon_digest {
	uint8_t sha1[20];
	int64_t client_time;		/* Unix time the client stamped */
	bool used;
};

struct sv_rcon {
	struct cvar *sv_crypt_rcon, *sv_timestamplen;
	/* digests accepted within the window: a second use is a replay */
	struct sv_rcon_digest seen[SV_RCON_SEEN];
	uint64_t accepted, refused, replays;
};

/* rcon.c: a connectionless "rcon ..." that passed its budget; returns
 * the bytes sent in answer */
size_t sv_rcon(struct server *sv, const struct net_addr *from,
	       const struct net_args *args);

#endif
