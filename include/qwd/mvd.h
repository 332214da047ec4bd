/*
 * qwd/mvd.h -- multi-view demos (MVD) and their live stream (QTV): the
 * format as MVDSV writes it and ezQuake reads it, a reader of our own, and
 * the client side of the QTV handshake.
 *
 * Design note
 *   One owner for the format: the server's writer (src/server/mvd.c), the
 *   reader (src/client/mvd.c), the QTV client (src/client/qtv.c), the
 *   tests and tools/mvdcheck all take the constants from here.
 *
 *   A demo is a sequence of records, the same bytes in a file and on a QTV
 *   stream:
 *     byte  msec   milliseconds since the previous record (0..255)
 *     byte  type   MVD_ALL, MVD_STATS | slot << 3, MVD_SINGLE | slot << 3,
 *                  MVD_MULTIPLE, or MVD_READ (low 3 bits the type)
 *     [long mask]  MVD_MULTIPLE only: the players it is for (0: a hidden
 *                  block that clients skip)
 *     long  len    then len bytes of svc messages, whole messages only,
 *                  at most MVD_MAX_RECORD (ezQuake's buffer less the
 *                  header)
 *   A frame is what a client shows at one instant: the records from one
 *   with msec > 0 up to the next such record.  ezQuake starts a new frame
 *   when the time moves, and reads svc_deltapacketentities against the
 *   frame before; so each frame carries exactly one entity list.
 *
 *   The first message is svc_serverdata, where a demo differs from a
 *   connection: extension magics (each a long, then a long of flags)
 *   before the protocol number, and a float of demo time where a client
 *   would get its player number.  Then the signon (lists, baselines and
 *   statics, every slot's client info, light styles, "skins"), then the
 *   frames: svc_playerinfo in the demo form (MVD_DF_* flags, every field
 *   a delta against the player's last entry), the entity list, svc_nails2,
 *   stats as MVD_STATS records, and the game's events.  The last message
 *   is svc_disconnect "EndOfDemo".
 *
 *   QTV (MVDSV's sv_demo_qtv.c): a TCP client sends "QTV\n" and header
 *   lines "KEY: value" ending with a blank line; the server answers
 *   "QTVSV 1\n" and either "BEGIN\n\n" followed by the records, or a
 *   PERROR/ERROR line and closes.
 *
 *   The reader: mvd_read() takes the bytes of a file or stream as they
 *   come, parses every complete record (the rest is left for the next
 *   call), checks the framing and the messages against what ezQuake
 *   needs, keeps what the tests look at, and stops at the first fault
 *   with its reason and offset.  Every read is bounds-checked; nothing is
 *   allocated.
 */
#ifndef QWD_MVD_H
#define QWD_MVD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qwd/client.h"
#include "qwd/common.h"
#include "qwd/protocol.h"

/* record types (the low 3 bits of the type byte) */
enum mvd_type {
	MVD_CMD = 0,		/* a client demo's usercmd: never in an MVD */
	MVD_READ = 1,
	MVD_SET = 2,
	MVD_MULTIPLE = 3,
	MVD_SINGLE = 4,
	MVD_STATS = 5,
	MVD_ALL = 6
};

/* svc_playerinfo in a demo: flags of the fields that follow */
#define MVD_DF_ORIGIN (1 << 0)	/* << 0..2: x, y, z (coords) */
#define MVD_DF_ANGLES (1 << 3)	/* << 0..2: pitch, yaw, roll (angle16) */
#define MVD_DF_EFFECTS (1 << 6)
#define MVD_DF_SKINNUM (1 << 7)
#define MVD_DF_DEAD (1 << 8)
#define MVD_DF_GIB (1 << 9)
#define MVD_DF_WEAPONFRAME (1 << 10)
#define MVD_DF_MODEL (1 << 11)

/* extension magics in svc_serverdata, each followed by a long of flags */
#define MVD_MAGIC_FTE 0x58455446u	/* "FTEX" */
#define MVD_MAGIC_FTE2 0x32455446u	/* "FTE2" */
#define MVD_MAGIC_MVD1 0x3144564du	/* "MVD1" */
/* MVD1 flag: MVD_MULTIPLE records for nobody are hidden blocks */
#define MVD_PEXT1_HIDDEN_MESSAGES (1u << 5)

enum {
	MVD_MAX_RECORD = 8192 - 100,	/* payload of one record */
	MVD_HEADER_MAX = 10,		/* msec, type, mask, length */
	MVD_MAX_PACKET_ENTITIES = 300,	/* ezQuake's limit in a demo */
	MVD_MAX_NAILS = 255		/* svc_nails2 count byte */
};

/* "EndOfDemo": the text of the last message */
#define MVD_END_TEXT "EndOfDemo"

/* Write a record header for a payload of len bytes into out
 * (MVD_HEADER_MAX bytes); returns its size.  to: the slot (MVD_SINGLE,
 * MVD_STATS) or the mask (MVD_MULTIPLE). */
size_t mvd_record_header(uint8_t *out, int msec, int type, uint32_t to,
			 uint32_t len);

/* ---- QTV ---------------------------------------------------------------- */

#define QTV_SERVER_HELLO "QTVSV 1\n"
#define QTV_BEGIN "QTVSV 1\nBEGIN\n\n"
/* MVDSV's refusals, word for word */
#define QTV_ERR_COMMON_AUTH "QTVSV 1\nPERROR: You need to provide a common auth method.\n\n"
#define QTV_ERR_BAD_PASSWORD "QTVSV 1\nPERROR: Bad password.\n\n"
#define QTV_ERR_NEED_PASSWORD "QTVSV 1\nPERROR: You need to provide a password.\n\n"
#define QTV_ERR_VERSION "QTVSV 1\nPERROR: Incompatible version (valid version is v1)\n\n"
#define QTV_ERR_INIT_STREAM "QTVSV 1\nERROR: Can't init stream, probably server reach a limit on the number of proxies connected at any one time.\n\n"
#define QTV_ERR_TOO_MANY "QTVSV 1\nERROR: This server enforces a limit on the number of proxies connected at any one time. Please try again later\n\n"
/* a server asking the client for its plain password */
#define QTV_ASK_PLAIN "QTVSV 1\nAUTH: PLAIN\n\n"

enum { QTV_HEADER_MAX = 4096 };

/* What a QTV client asks for (tests and tools). */
struct qtv_request {
	const char *auth;	/* methods, space-separated, an AUTH line each
				 * ("SHA3_512 MD4 CCITT PLAIN NONE" as ezQuake
				 * offers them), NULL: none */
	const char *password;	/* PASSWORD line, NULL: none */
	const char *userinfo;	/* USERINFO line, NULL: none */
	int version;		/* VERSION line (1), 0: none */
};

/* The request text into out (NUL-terminated); its length, 0 if it did not
 * fit. */
size_t qtv_build_request(const struct qtv_request *rq, char *out, size_t max);

enum qtv_answer {
	QTV_ANSWER_PARTIAL = 0,	/* no blank line yet: read more */
	QTV_ANSWER_BEGIN,	/* the records follow */
	QTV_ANSWER_AUTH,	/* the server asks for a password (auth) */
	QTV_ANSWER_ERROR,	/* PERROR/ERROR (text) */
	QTV_ANSWER_BAD		/* not a QTV server, or too long */
};

struct qtv_reply {
	enum qtv_answer answer;
	size_t header_len;	/* bytes of the header, blank line included */
	char text[256];		/* the PERROR/ERROR text */
	char auth[32];		/* the AUTH method asked for */
	char challenge[80];	/* and its CHALLENGE */
};

/* Read the server's answer from the first len bytes of a stream. */
void qtv_parse_reply(const uint8_t *data, size_t len, struct qtv_reply *out);

/* The PASSWORD a client sends for method, as MVDSV checks it: SHA3_512,
 * lower-case hex of SHA3-512(challenge + password); MD4, the MD4 digest
 * of the same as four little-endian words "%X%X%X%X"; CCITT, the CRC of
 * the same as "0x%X"; PLAIN (and NONE) the password itself.  False for a
 * method it does not know. */
bool qtv_digest(const char *method, const char *challenge, const char *password,
		char *out, size_t size);

/* ---- the reader ------------------------------------------------------- */

enum mvd_fault {
	MVD_FAULT_NONE = 0,
	MVD_FAULT_TYPE,		/* a record type an MVD cannot hold */
	MVD_FAULT_LENGTH,	/* a record longer than MVD_MAX_RECORD */
	MVD_FAULT_START,	/* not starting with svc_serverdata */
	MVD_FAULT_PROTOCOL,	/* serverdata of another protocol */
	MVD_FAULT_SVC,		/* an svc byte a demo cannot hold */
	MVD_FAULT_TRUNCATED,	/* a message runs past its record */
	MVD_FAULT_RANGE,	/* a player, stat or entity number out of range */
	MVD_FAULT_ENTITIES,	/* an entity list ezQuake would refuse */
	MVD_FAULT_DELTA,	/* a delta from a frame that has no list */
	MVD_FAULT_FRAME,	/* two entity lists in one frame */
	MVD_FAULTS
};

struct mvd_player {
	bool present;		/* a userinfo with a name came */
	char name[32];
	int32_t userid;
	int frags;
	uint64_t playerinfos;
	uint32_t last_frame;	/* frame of its last playerinfo */
	int flags;		/* MVD_DF_* of the last one */
	int16_t origin[3];	/* 1/8 units */
	int16_t first_origin[3];	/* of its first playerinfo */
	int modelindex;
	int32_t stats[MAX_CL_STATS];
};

struct mvd_reader {
	/* progress */
	uint64_t offset;	/* bytes consumed */
	uint64_t records;
	uint64_t frames;	/* time steps (records with msec > 0) */
	double time;		/* the demo clock: serverdata time + msec */
	double start_time;	/* the first serverdata's time */
	int serverdatas;
	bool ended;		/* svc_disconnect came */
	char end_text[64];	/* its text */

	/* the first fault stops the reader */
	enum mvd_fault fault;
	char fault_text[160];
	uint64_t fault_offset;	/* offset of the record it is in */

	/* the level */
	uint32_t fte_ext, fte_ext2, mvd_ext1;
	int servercount;
	char gamedir[64];
	char levelname[128];
	char mapmodel[64];	/* model 1 */
	int models, sounds;
	char serverinfo[MAX_SERVERINFO_STRING];

	/* counts */
	uint64_t messages, playerinfos, packetentities, deltas, entities;
	uint64_t prints, sounds_played, temp_entities, stats_updates;
	uint64_t nails, hidden_records, stufftexts, intermissions;
	int max_players_frame;	/* most playerinfos in one frame */
	int max_entities_frame;	/* longest entity list */
	int frames_with_players;
	char last_print[256];

	struct mvd_player players[MAX_CLIENTS];
	struct qwc_entity baselines[MAX_EDICTS_P28];

	/* state of the parse */
	int record_type, record_to;
	int players_this_frame;
	uint64_t list_frame;	/* frame of the last entity list */
	bool have_list;
	int cur;		/* lists[cur] is the last entity list */
	struct qwc_entity lists[2][MVD_MAX_PACKET_ENTITIES];
	int list_count[2];
};

/* Zero the reader for a new demo. */
void mvd_reader_init(struct mvd_reader *r);

/* Parse the complete records at the head of data[0..len); returns the bytes
 * taken (the caller keeps the rest for later).  Stops at a fault
 * (r->fault).  After an svc_disconnect, later records are still read (a
 * demo of several maps continues with a new serverdata). */
size_t mvd_read(struct mvd_reader *r, const uint8_t *data, size_t len);

const char *mvd_fault_name(enum mvd_fault f);

#endif
