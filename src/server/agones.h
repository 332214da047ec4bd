/*
 * src/server/agones.h -- the Agones feature's calls another feature
 * makes: its figures on the metrics page.
 *
 * Design note
 *   agones.c is the server's side of the Agones SDK (docs/fleet.md); its
 *   registration is in features.h.  The metrics feature reads its
 *   counters through this one call, so the page's names for them are
 *   written next to the figures they describe and counted once.
 */
#ifndef QWD_SERVER_AGONES_H
#define QWD_SERVER_AGONES_H

struct server;
struct metrics_page;

/* the agones families (nothing when the feature is off) */
void sv_agones_metrics(const struct server *sv, struct metrics_page *p);

#endif
