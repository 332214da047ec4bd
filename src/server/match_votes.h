/*
 * src/server/match_votes.h -- the match feature's part for votes and
 * admins (match_votes.c): the services they need of the server, the
 * lock at a connect, the mute at a say, the map list, the counters.
 *
 * Design note
 *   Its own file so that the match feature's core (match.c) and this
 *   change apart; match.c calls the two registration functions and puts
 *   the two hooks in its struct sv_feature.
 */
#ifndef QWD_SERVER_MATCH_VOTES_H
#define QWD_SERVER_MATCH_VOTES_H

#include <stdbool.h>
#include <stddef.h>

#include "qwd/match.h"

struct server;
struct client;

enum { SV_MATCH_MAPLIST = 24 };	/* KTX's k_ml_0 .. k_ml_23 */

/* match.c: the feature's match (NULL before it is made) */
struct match *sv_match_get(const struct server *sv);

/* fill the votes' members of svc (log, kick, client_info, map_list) */
void sv_match_votes_services(struct match_services *svc);
/* the map list's cvars, say and say_team (the mute), "votestats" */
void sv_match_votes_register(struct server *sv);
/* hooks: a connect while an admin locked the server; a leaver */
bool sv_match_admit(struct server *sv, bool extended, char *why, size_t size);
void sv_match_client_drop(struct server *sv, struct client *cl);
/* the metrics page's lines of the votes' and admins' counters */
struct metrics_page;
void sv_match_votes_metrics(const struct server *sv, struct metrics_page *p);

#endif
