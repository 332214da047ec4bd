/*
 * src/server/compat.h -- MVDSV and KTX names qwd accepts and ignores
 *
 * Design note
 *   A feature of the server (hooks.h): compat.c.
 *   A console line naming an MVDSV or KTX cvar or command qwd does not
 *   use is answered once (the unknown hook); "floodprot" sets the fp_*
 *   cvars.
 */
#ifndef QWD_SERVER_COMPAT_H
#define QWD_SERVER_COMPAT_H

#include "core.h"

/* the MVDSV and KTX names already answered (a bit each, by table row) */
struct sv_compat {
	uint64_t said[SV_COMPAT_WORDS];
};

/* compat.c: name is MVDSV's or KTX's and not used by qwd: say so on out
 * (once per name) and return true; false for a name it does not know */
bool sv_compat_ignore(struct server *sv, const char *name, FILE *out);
/* compat.c: "floodprot MESSAGES SECONDS SILENCE" (MVDSV's command) */
void sv_cmd_floodprot(struct server *sv, const struct net_args *a, FILE *out);

#endif
