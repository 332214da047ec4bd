/*
 * mvdwriter.h -- the demo writer's state, shared by its two files:
 * mvd.c (records, destinations, events, the entry points declared in
 * demo.h) and mvdframe.c (what a demo holds: the gamestate and a
 * frame's state).  For those two files only.
 *
 * Design note
 *   struct sv_mvd is allocated once (sv_mvd_init) and holds the frame
 *   being built, every destination and what the demo last got of each
 *   player slot, light style and the serverinfo, so that a frame writes
 *   only the changes.  A frame's records go into m->frame through
 *   sv_mvd_frame_add, up to a limit that keeps room for the frame's
 *   state after the events; a destination alone gets its records through
 *   sv_mvd_dest_record.
 */
#ifndef QWD_SERVER_MVDWRITER_H
#define QWD_SERVER_MVDWRITER_H

#include "demo.h"

#include <qwd/mvd.h>

/* seconds between sends to a stream */
#define MVD_STREAM_PUSH 0.05

enum {
	MVD_FRAME_BUF = 1 << 16,	/* one frame's records */
	MVD_EVENTS_MAX = MVD_FRAME_BUF - 3 * MVD_MAX_RECORD, /* room for events */
	MVD_FILE_BUF = 1 << 16,
	MVD_STREAM_SNDBUF = 64 << 10,	/* at most, the kernel's share */
	MVD_STREAM_PUSH_BYTES = 16 << 10,	/* sent at once from this much */
	MVD_CHANGES_EVERY = 4,		/* frames between looks at infos */
	MVD_DESTS = 33,			/* a file and up to 32 streams */
	MVD_PLAYERS = MAX_CLIENTS
};

struct mvd_dest {
	bool used;
	bool stream;
	bool failed;		/* closed at the next flush */
	bool gamestate;		/* its signon is due (a new level) */
	int fd;
	int id;
	char name[96];		/* a file's name in the folder, a stream's peer */
	char path[SV_PATH + 160];	/* a file's path */
	char why[80];		/* why it failed */
	uint8_t *buf;		/* bytes not written yet */
	size_t len, cap;
	uint64_t total;		/* bytes handed to it */
	double since;		/* when it joined */
	double io_time;		/* a stream's last progress, a file's flush */
	double pushed;		/* a stream's last send */
};

/* what the demo last got of a player slot */
struct mvd_slot {
	bool shown;		/* a playerinfo went out and is the base */
	int16_t origin[3], angles[3];
	uint8_t frame, model, skin, effects, weaponframe;
	bool stats_sent;
	int32_t stats[MAX_CL_STATS];
	bool present;		/* client info as last written */
	int userid, frags;
	char userinfo[MAX_INFO_STRING];
};

struct sv_mvd {
	struct mvd_dest dests[MVD_DESTS];
	int ndests;
	int top;		/* dests[top..] are all free */
	int next_id;
	struct cvar *demofps, *idlefps, *pings, *streamtimeout, *streambuffer;
	struct cvar *maxsize, *silent;

	/* the frame being built */
	uint8_t frame[MVD_FRAME_BUF];
	size_t frame_len;
	bool rec_open;		/* the last record may take more messages */
	int rec_type, rec_to;
	size_t rec_len_at;	/* offset of its length field */
	uint32_t rec_len;
	uint64_t events_dropped;

	/* the demo clock and level */
	double prevtime;	/* demo time of the last frame */
	double last_frame;	/* realtime of the last frame */
	double last_pings;
	int spawncount;		/* level of the gamestates written, -1 none */
	bool full;		/* the next frame in full */
	uint32_t sequence;	/* frames written, for the delta byte */

	struct mvd_slot slots[MVD_PLAYERS];
	char lightstyles[MAX_LIGHTSTYLES][MAX_STYLESTRING];
	char serverinfo[MAX_SERVERINFO_STRING];
	struct entity_state ents[2][MVD_MAX_PACKET_ENTITIES];
	int nents[2];
	int cur;		/* ents[cur]: the last frame's list */
	bool have_base;

	/* figures */
	uint64_t frames, bytes, ns, entity_cuts;
};

/* mvd.c: records into the frame being built (false: no room up to
 * limit); one record for one destination alone; a destination that
 * failed (closed at the next flush, why kept for the log) */
bool sv_mvd_frame_add(struct sv_mvd *m, int type, int to, const void *data,
		      size_t len, size_t limit);
void sv_mvd_dest_record(struct mvd_dest *d, int type, int to,
			const void *data, size_t len, double now);
void sv_mvd_dest_fail(struct mvd_dest *d, const char *why);

/* mvdframe.c: the player slots a demo holds (protocol 28's 32 at most);
 * is a client in the game, so in the demo */
int sv_mvd_stock_slots(const struct server *sv);
bool sv_mvd_in_demo(const struct client *c);
/* mvdframe.c: a joining destination's gamestate; the changes of infos,
 * frags, light styles and serverinfo since the demo last got them; a
 * frame's state (changes when due, pings, stats, players, entities)
 * appended after the events */
void sv_mvd_gamestate(struct server *sv, struct mvd_dest *d);
void sv_mvd_write_changes(struct server *sv);
void sv_mvd_write_state(struct server *sv);
/* mvdframe.c: a paused frame's (changes and pings, no players, no
 * entities) */
void sv_mvd_write_paused(struct server *sv);

#endif
