/*
 * qwd/mvd.h -- multi-view demos (MVD) and their live stream (QTV): the
 * format as MVDSV writes it and ezQuake reads it.
 *
 * Design note
 *   One owner for the format: the server's writer (src/server/mvd.c) and
 *   QTV service (src/server/qtv.c), the reader and QTV client of the
 *   client library (src/client/mvd.c, qtv.c; declared in qwd/client.h),
 *   the tests and tools/mvdcheck all take the constants from here.  The
 *   format is common's (src/common/mvd.c: the record header, the QTV
 *   password digest), below both the server and the client library, so
 *   neither depends on the other.
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
 */
#ifndef QWD_MVD_H
#define QWD_MVD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
/* A hidden block MVDSV sends its QTV streams (not files) with each demo
 * frame written while the game is paused, whose clock then says 0 ms: a
 * short of this type and a byte of the real milliseconds the frame took
 * (0..255), without the length field other hidden blocks start with
 * (MVDSV's sv_demo.c writes it so; QTV reads it so). */
#define MVD_HIDDEN_PAUSED_DURATION 0x000A

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

/* the longest request or answer header, blank line included */
enum { QTV_HEADER_MAX = 4096 };

/* The PASSWORD a client sends for method, as MVDSV checks it: SHA3_512,
 * lower-case hex of SHA3-512(challenge + password); MD4, the MD4 digest
 * of the same as four little-endian words "%X%X%X%X"; CCITT, the CRC of
 * the same as "0x%X"; PLAIN (and NONE) the password itself.  False for a
 * method it does not know. */
bool qtv_digest(const char *method, const char *challenge, const char *password,
		char *out, size_t size);

#endif
