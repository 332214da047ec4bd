/*
 * src/server/match_demo.h -- the match feature's part for per-match demos
 * and the statistics' file (match_demo.c).
 *
 * Design note
 *   Its own file, beside match.c (the settings, the commands, the
 *   status) and match_votes.c (votes and admins): match.c hands it the
 *   match's events and registers its cvars; it calls the demo feature
 *   (demo.h) for the recording and the folder.
 */
#ifndef QWD_SERVER_MATCH_DEMO_H
#define QWD_SERVER_MATCH_DEMO_H

#include "qwd/match.h"

struct server;
struct sv_match_demo;

/* demo_tmp_record, k_demo_mintime, k_demoname_date; NULL when memory is
 * short */
struct sv_match_demo *sv_match_demo_register(struct server *sv);
void sv_match_demo_free(struct sv_match_demo *md);
/* a match's event: the countdown starts the demo, the end stops it and
 * writes the statistics beside it, a break cancels a short one */
void sv_match_demo_event(struct server *sv, struct sv_match_demo *md,
			 const struct match *m, enum match_event ev,
			 const struct match_result *r);
/* the match's demo being recorded, or NULL */
const char *sv_match_demo_file(const struct sv_match_demo *md);

#endif
