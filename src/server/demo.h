/*
 * src/server/demo.h -- demos (MVD) and their live stream (QTV)
 *
 * Design note
 *   A feature of the server (hooks.h): demo.c (commands, folder), mvd.c and mvdframe.c (the writer, mvdwriter.h), qtv.c (the listener).
 *   The messages the clients are sent (the message and setangle hooks)
 *   and each frame's state go into the demo's frames; record, stop,
 *   easyrecord and their kin, QTV's listener on qtv_streamport, the demo
 *   ended with the level (level_end).  Of the core it reads the entities,
 *   the players and their entries, and writes protocol 28 with send.c's
 *   layouts.
 */
#ifndef QWD_SERVER_DEMO_H
#define QWD_SERVER_DEMO_H

#include "core.h"

/* demo.c: sv_demoDir's value names a folder inside the game folder
 * (relative, no "..", plain characters); downloads of demos/ check it too */
bool sv_demo_dir_ok(const char *dir);
/* how a demo file ends (MVDSV's words to the players differ) */
enum sv_demo_stop {
	DEMO_STOP_DONE,		/* stop, a level change */
	DEMO_STOP_CANCEL,	/* cancel: the file removed */
	DEMO_STOP_FULL,		/* sv_demoMaxSize reached */
	DEMO_STOP_ERROR,	/* it could not be written */
	DEMO_STOP_QUIET		/* shutdown: nobody to tell */
};
/* demo.c, for the match's demos: record under name (cleaned as
 * easyrecord cleans it, a number added when taken); false, said on out,
 * when it cannot (not active, recording already, no room, no folder).
 * The folder demos go to (sv_demoDir inside the game folder), made when
 * missing; false, said on out, when it cannot be. */
bool sv_demo_record_named(struct server *sv, const char *name, FILE *out);
bool sv_demo_folder(struct server *sv, char *path, size_t size, FILE *out);
/* mvd.c: the writer (mvdframe.c's design note says what goes in a demo) */
int sv_mvd_init(struct server *sv);
void sv_mvd_free(struct server *sv);
/* something is recording or streaming */
bool sv_mvd_active(const struct server *sv);
/* an event for the demo's next frame: to everyone's view (slot < 0) or
 * one player's (svc messages of protocol 28, whole) */
void sv_mvd_message(struct server *sv, int slot, const void *data, size_t len);
/* an event for the views of the players of mask (bit N: slot N; MVD's
 * "multiple" record), as MVDSV writes a say_team */
void sv_mvd_message_mask(struct server *sv, uint32_t mask, const void *data,
			 size_t len);
/* svc_setangle as a demo holds it (with the player's number) */
void sv_mvd_setangle(struct server *sv, int slot, const vec3_t angles);
/* after the replies: the demo frame when due, the files and streams fed */
void sv_mvd_frame(struct server *sv);
/* before a level is replaced; and at shutdown */
void sv_mvd_level_end(struct server *sv);
void sv_mvd_shutdown(struct server *sv);
/* the demo file: opened at path (name: as listed), closed (the bytes
 * written, -1 when it failed or none was open); its name and size */
int sv_mvd_open_file(struct server *sv, const char *path, const char *name,
		     char *err, size_t errlen);
long long sv_mvd_stop_file(struct server *sv, enum sv_demo_stop why);
const char *sv_mvd_file(const struct server *sv, uint64_t *bytes);
/* QTV streams: a connection that passed the handshake joins (false: no
 * room, the caller closes fd); count, list, close (id < 0: all) */
bool sv_mvd_add_stream(struct server *sv, int fd, const char *peer);
int sv_mvd_streams(const struct server *sv);
void sv_mvd_list_streams(const struct server *sv, FILE *out);
int sv_mvd_close_stream(struct server *sv, int id);
/* frames, bytes, cost a frame */
void sv_mvd_figures(const struct server *sv, FILE *out);
/* qtv.c: the TCP listener on qtv_streamport and the handshakes */
int sv_qtv_init(struct server *sv);
void sv_qtv_free(struct server *sv);
void sv_qtv_poll(struct server *sv);
void sv_qtv_status(const struct server *sv, FILE *out);

#endif
