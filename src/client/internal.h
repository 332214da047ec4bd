/*
 * src/client/internal.h -- what the client library's two files share.
 *
 * Design note: client.c owns the connection (connectionless dialogue,
 * netchan, moves, the command text a server stuffs); parse.c reads the
 * svc messages of one netchan payload.  Neither keeps state outside
 * struct qwc.
 */
#ifndef QWD_CLIENT_INTERNAL_H
#define QWD_CLIENT_INTERNAL_H

#include "qwd/client.h"

/* Parse the svc messages of one accepted payload (msg positioned after
 * the netchan header).  Stops at the first bad message, counted. */
void qwc_parse_payload(struct qwc *c, struct msg_buf *m, double now);

/* Append stufftext and run the complete lines in it. */
void qwc_stuff(struct qwc *c, const char *text);

/* The signon steps parse.c triggers from svc messages. */
void qwc_signon_serverdata(struct qwc *c);
void qwc_signon_list(struct qwc *c, bool models, int next);

#endif
