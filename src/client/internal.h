/*
 * src/client/internal.h -- what the client library's two files share.
 *
 * Design note: client.c owns the connection (connectionless dialogue,
 * netchan, moves, the command text a server stuffs); parse.c reads the
 * svc messages of one netchan payload; download.c the downloads.  None
 * keeps state outside struct qwc.
 */
#ifndef QWD_CLIENT_INTERNAL_H
#define QWD_CLIENT_INTERNAL_H

#include "qwd/client.h"

/* Parse the svc messages of one accepted payload (msg positioned after
 * the netchan header).  Stops at the first bad message, counted. */
void qwc_parse_payload(struct qwc *c, struct msg_buf *m, double now);

/* Append stufftext and run the complete lines in it. */
void qwc_stuff(struct qwc *c, const char *text);

/* download.c: svc_download in a reply (false: malformed, m->badread);
 * a connectionless datagram that may be an out-of-band chunk (true when
 * it was one, taken or counted); the chunk requests of the next packet
 * into m; the download's memory */
bool qwc_dl_parse(struct qwc *c, struct msg_buf *m);
bool qwc_dl_oob(struct qwc *c, const uint8_t *data, size_t len);
void qwc_dl_requests(struct qwc *c, struct msg_buf *m, double now);
void qwc_dl_free(struct qwc *c);

/* The signon steps parse.c triggers from svc messages. */
void qwc_signon_serverdata(struct qwc *c);
void qwc_signon_list(struct qwc *c, bool models, int next);

#endif
