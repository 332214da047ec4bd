/*
 * src/server/overload.h -- the load meter and the refusal of connects under load
 *
 * Design note
 *   A feature of the server (hooks.h): overload.c.
 *   The busy share of each window (frame_end), connects refused while
 *   the load is above sv_maxload (the admit hook), the newest players let go
 *   when sv_overloaddrop asks.  It touches sv->load* and drops clients.
 */
#ifndef QWD_SERVER_OVERLOAD_H
#define QWD_SERVER_OVERLOAD_H

#include "core.h"

/* overload.c: the load meter (once a frame: when its work began and ended,
 * and whether the receive left a backlog; a window closes at now with the
 * busy seconds gathered in sv->load_busy), admission for a connect (false:
 * refused, why says so), and letting the newest n players go */
void sv_load_frame(struct server *sv, double busy_from, double now,
		   bool backlog);
void sv_load_window(struct server *sv, double now);
bool sv_load_admits(struct server *sv, bool extended, char *why, size_t size);
int sv_overload_shed(struct server *sv, int n);

#endif
