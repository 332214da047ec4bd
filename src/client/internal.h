/*
 * src/client/internal.h -- what the client library's two files share.
 *
 * Design note: client.c owns the connection (connectionless dialogue,
 * netchan, moves, the command text a server stuffs); parse.c reads the
 * svc messages of one netchan payload; download.c the downloads; mvd.c
 * reads demos, with parse.c's layouts of the messages a demo shares with
 * a connection; svc.c passes over any message (qwc_svc_skip in
 * qwd/client.h) for all of them.  None keeps state outside its struct
 * (qwc, mvd_reader).
 */
#ifndef QWD_CLIENT_INTERNAL_H
#define QWD_CLIENT_INTERNAL_H

#include "qwd/client.h"

/* Parse the svc messages of one accepted payload (msg positioned after
 * the netchan header).  Stops at the first bad message, counted. */
void qwc_parse_payload(struct qwc *c, struct msg_buf *m, double now);

/* Layouts shared with the demo reader.  The fields of an entity update
 * after its word (bits: the word's flags; a U_MOREBITS byte is read here),
 * onto e, a copy of the state it changes. */
void qwc_read_delta(struct msg_buf *m, int bits, struct qwc_entity *e);
/* svc_spawnbaseline and svc_spawnstatic after the number: e from zero */
void qwc_read_baseline(struct msg_buf *m, int num, struct qwc_entity *e);
/* svc_modellist or svc_soundlist after its svc byte: the number of the
 * page's last name (its start plus the names in it), the list's first
 * name into first (when not NULL and this page holds it), the next page's
 * start into *next; -1 when cut short (m->badread) or past 255 names */
int qwc_read_list(struct msg_buf *m, char *first, size_t size, int *next);
/* svc_temp_entity after its svc byte (svc.c): its type, or -1 for an
 * unknown type (whose size cannot be known); m->badread when cut short */
int qwc_skip_temp_entity(struct msg_buf *m);

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
