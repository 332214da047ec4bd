/*
 * qwd/client.h -- a QuakeWorld protocol 28 client as a library: the test
 * client of the server's protocol tests and the engine of the load
 * generator (tools/qwbots); and, in its last section, the viewer's side
 * of MVD demos and QTV streams (a demo reader, the QTV handshake).
 *
 * Design note
 *   A client is plain data (struct qwc) driven by two calls, both given
 *   `now` (seconds, any monotonic clock):
 *     qwc_packet   build the next datagram to send, or nothing yet
 *     qwc_receive  take in one datagram that came from the server
 *   The library never touches a socket, never blocks and keeps no globals,
 *   so one thread can run many clients over one socket or one each.
 *   Memory is allocated once, in qwc_init (players, baselines and entity
 *   frames, sized by the options); receive and send never allocate.
 *
 *   Connection, as a stock client does it:
 *     getchallenge -> 'c' <n> [NUL, FTE's offer]  ->  connect 28 <qport>
 *     <n> "<userinfo>" [+ line "QWDX 1" to ask for qwd's extension]
 *     [+ line "0x58455446 0x<flags>": the FTE extensions taken from the
 *     offer, those of opt.fte_extensions] -> 'j' (or 'n' reason)
 *   then netchan packets.  The signon is driven by the client:
 *     new -> svc_serverdata -> soundlist <sc> 0 ... pages ... modellist
 *     <sc> 0 ... pages ... prespawn <sc> 0 <checksum2, signed decimal>;
 *     stufftext "cmd ..." lines are forwarded as clc_stringcmd; "skins"
 *     answers with begin <sc>; "changing" restarts the signon state and
 *     "reconnect" sends new again.
 *   Every netchan packet after the connect carries a clc_move (checksum
 *   byte, loss byte, three delta usercmds, the oldest from a null command)
 *   and, once a reply frame is valid, clc_delta <its sequence & 255>.
 *
 *   Every read of server bytes is bounds-checked: a bad message stops the
 *   parse of that packet and is counted by kind (enum qwc_bad_kind); the
 *   client never crashes on what a server sends.
 *
 *   Downloads (download.c): qwc_download asks for a file; the server
 *   answers in the stock form (reliable blocks, one "nextdl" each) or, when
 *   the serverdata says chunked downloads are in force, in FTE's: the
 *   client asks for FTE_CHUNK-byte chunks by number with unreliable
 *   "nextdl CHUNK PERCENT NUMBER" commands, chunks_per_packet in each
 *   packet, the lowest it lacks within chunk_window of the first missing
 *   one and not asked for in the last chunk_retry seconds; chunks come in
 *   replies or out of band; the end is "nextdl -1 100 NUMBER" or (option)
 *   "stopdownload".  The file's bytes and a byte per chunk are allocated
 *   when the server names the size, once per download.
 *
 *   Response time: each outgoing packet's sequence and send time sit in
 *   out[seq & QWC_OUT_MASK]; when a reply acknowledges a sequence, its
 *   acktime is set and the on_ack hook (if any) called once.  The server's
 *   reply to request N carries N as its own sequence (qwd and QW alike),
 *   so last_reply_sequence names the request answered.
 */
#ifndef QWD_CLIENT_H
#define QWD_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qwd/common.h"
#include "qwd/mvd.h"
#include "qwd/net.h"
#include "qwd/protocol.h"

enum {
	QWC_OUT_BACKUP = 64,		/* outgoing packets remembered */
	QWC_OUT_MASK = QWC_OUT_BACKUP - 1,
	QWC_MAX_REPLY_PLAYERS = 256,	/* players kept from one reply */
	QWC_MAX_FRAME_ENTITIES = QWDX_MAX_PACKET_ENTITIES,
	QWC_STUFF_MAX = 2048,		/* pending stufftext */
	QWC_PRINT_MAX = 256,		/* last print kept */
	QWC_NAME_MAX = 32,
	QWC_REASON_MAX = 256,
	QWC_STUFFED_OOB_MAX = 1024,	/* a stuffed "packet" datagram */
	QWC_MAX_CHUNK_REQUESTS = 40	/* nextdl commands in one packet */
};

enum qwc_state {
	QWC_DISCONNECTED = 0,
	QWC_CHALLENGING,	/* getchallenge sent, waiting for 'c' */
	QWC_CONNECTING,		/* connect sent, waiting for 'j' */
	QWC_CONNECTED,		/* netchan up, in the signon */
	QWC_SPAWNED,		/* begin sent */
	QWC_ACTIVE,		/* a reply with our own playerinfo came */
	QWC_REFUSED,		/* 'n' reason to a connect: see reason */
	QWC_DROPPED		/* svc_disconnect or a fatal channel error */
};

enum qwc_bad_kind {
	QWC_BAD_OOB,		/* a connectionless reply we cannot read */
	QWC_BAD_HEADER,		/* netchan rejected: short, impossible ack */
	QWC_BAD_STALE,		/* duplicate or out-of-order sequence */
	QWC_BAD_TRUNCATED,	/* a message cut short */
	QWC_BAD_SVC,		/* an unknown svc byte (parse stops there) */
	QWC_BAD_RANGE,		/* a number out of its range (player, stat) */
	QWC_BAD_DELTA,		/* delta from a frame we do not have */
	QWC_BAD_ENTITIES,	/* an entity list that breaks the rules */
	QWC_BAD_SIGNON,		/* wrong protocol, signon message out of order */
	QWC_BAD_STUFF,		/* stufftext line too long */
	QWC_BAD_KINDS
};

/* one entity as the client holds it (protocol units) */
struct qwc_entity {
	uint16_t number;
	uint8_t modelindex;
	uint8_t frame, colormap, skinnum, effects;
	uint8_t angles[3];
	int16_t origin[3];	/* 1/8 units */
};

struct qwc_entity_frame {
	uint32_t sequence;	/* the server's sequence of the reply */
	bool valid;
	uint16_t num;
	struct qwc_entity ents[QWC_MAX_FRAME_ENTITIES];
};

/* what the client knows of one player slot */
struct qwc_player {
	bool present;		/* an updateuserinfo with a userinfo came */
	int32_t userid;
	int16_t frags;
	int16_t ping;
	uint8_t pl;
	char name[QWC_NAME_MAX];
	uint32_t info_updates;	/* updateuserinfo messages received */
	uint32_t seen_count;	/* playerinfo entries received */
	uint32_t seen_sequence;	/* reply that last carried it */
	vec3_t origin;		/* from the last playerinfo */
	uint16_t flags;
};

/* one playerinfo entry of the last reply */
struct qwc_seen {
	uint16_t slot;
	uint16_t flags;
	vec3_t origin;
};

enum qwc_dl_state {
	QWC_DL_NONE = 0,
	QWC_DL_ASKED,		/* "download" sent, no answer yet */
	QWC_DL_RUNNING,		/* the server is sending it */
	QWC_DL_DONE,		/* every byte came, the end said */
	QWC_DL_REFUSED,		/* the server refused: see refusal */
	QWC_DL_FAILED		/* too large, out of memory, or cut short */
};

/* one download: the file's bytes as they come */
struct qwc_download {
	enum qwc_dl_state state;
	char name[128];
	bool chunked;		/* FTE's form (else the stock one) */
	int32_t refusal;	/* chunked: -1 no such file, -2 denied, ...;
				   stock: -1 */
	int32_t number;		/* chunked: download number, +1 a file */
	size_t size;		/* chunked: from the start; stock: so far */
	uint8_t *data;		/* size bytes (stock: capacity grows) */
	size_t capacity;
	/* chunked: a byte per chunk (received), when each was last asked */
	uint8_t *have;
	double *asked;
	size_t chunks, received, first_missing;
	uint64_t requests;		/* nextdl commands sent */
	uint64_t chunks_inband, chunks_oob;
	uint64_t duplicates;		/* a chunk that had come already */
	uint64_t stale;			/* out of band, another number */
	uint64_t unasked;		/* a chunk never asked for */
};

/* one outgoing packet, for response-time bookkeeping */
struct qwc_out {
	uint32_t sequence;
	double senttime;
	double acktime;		/* < 0 until a reply acknowledges it */
	bool has_move;
};

struct qwc;

struct qwc_options {
	struct net_addr server;
	uint16_t qport;		/* 0: picked from the address of c */
	const char *userinfo;	/* "\name\bot\..." (NULL: a default) */
	bool extension;		/* ask for QWDX */
	/* the map checksum for prespawn: the callback is asked with the
	 * model name "maps/<name>.bsp"; without it, checksum2 is used */
	bool (*map_checksum)(void *ctx, const char *model, uint32_t *sum);
	void *ctx;
	uint32_t checksum2;
	/* tracking (allocated once in qwc_init) */
	int max_players;	/* slots tracked (0: 64) */
	bool track_entities;	/* keep baselines and UPDATE_BACKUP frames */
	int max_baselines;	/* entity numbers tracked (0: 8192 + 2048) */
	double packet_interval;	/* seconds between packets (0: 1/77) */
	double resend_interval;	/* getchallenge/connect retries (0: 1.0) */
	/* called once when a reply first acknowledges out[seq] */
	void (*on_ack)(void *ctx, struct qwc *c, const struct qwc_out *o,
		       double now);
	/* called for every svc_print, (level, text) */
	void (*on_print)(void *ctx, struct qwc *c, int level, const char *text);
	/* FTE extensions to take when the server offers them
	 * (FTE_PEXT_CHUNKEDDOWNLOADS), 0: none, a stock client */
	uint32_t fte_extensions;
	/* chunked downloads: requests per packet (0: 5, ezQuake's; at most
	 * QWC_MAX_CHUNK_REQUESTS), how far past the first missing chunk to
	 * ask (0: 64), seconds before asking again (0: 1.0), the end said
	 * with "stopdownload" (ezQuake to servers not MVDSV) instead of
	 * "nextdl -1", the largest file taken (0: 64 MB) */
	int chunks_per_packet;
	int chunk_window;
	double chunk_retry;
	bool end_with_stopdownload;
	size_t max_download;
	/* called for every chunk that arrives, in order of arrival */
	void (*on_chunk)(void *ctx, struct qwc *c, int32_t chunk, bool oob);
};

struct qwc_stats {
	uint64_t packets_in, packets_out;
	uint64_t bytes_in, bytes_out;
	uint64_t replies;		/* netchan packets accepted */
	uint64_t acks;			/* requests acknowledged */
	uint64_t bad[QWC_BAD_KINDS];
	uint64_t prints, stuffs, stringcmds;
	uint64_t signons;		/* begins sent */
	uint64_t playerinfos, packetentities, deltas;
	uint64_t players_untracked;	/* slots >= max_players */
	uint64_t chokes;		/* sum of svc_chokecount */
	uint64_t sounds;		/* svc_sound messages */
	uint64_t temp_entities;		/* svc_temp_entity messages */
	uint64_t nails;			/* spikes in svc_nails */
	uint64_t secrets;		/* svc_foundsecret messages */
	uint64_t lightstyles;		/* svc_lightstyle messages */
	int last_lightstyle;		/* the style number of the last one */
	int last_temp_entity;		/* type byte of the last one */
	uint64_t other_svc;		/* recognised and skipped messages */
	uint64_t disconnects;
	int last_bad_svc;		/* the last unknown svc byte */
	int last_svc;			/* the message before it */
};

struct qwc {
	struct qwc_options opt;
	enum qwc_state state;
	char reason[QWC_REASON_MAX];	/* refusal or drop text */
	struct netchan chan;

	bool closing;		/* "drop" queued: disconnected after it */
	double last_oob;		/* last getchallenge/connect sent */
	double next_packet;
	double last_move_time;
	int32_t challenge;

	/* level */
	int protocol;
	int servercount;
	bool extended;		/* the server accepted QWDX */
	uint32_t fte_offered;	/* FTE extensions in the challenge reply */
	uint32_t fte;		/* those taken in the connect packet */
	uint32_t fte_server;	/* those the serverdata says are in force */
	struct qwc_download dl;
	int playernum;
	bool spectator;
	char gamedir[64];
	char levelname[128];
	char mapmodel[64];	/* modellist entry 1 */
	float movevars[10];
	char serverinfo[MAX_SERVERINFO_STRING];
	int sounds, models;	/* names received in the lists */
	int32_t stat[MAX_CL_STATS];	/* svc_updatestat values */
	float maxspeed, entgravity;
	vec3_t setangle;	/* the last svc_setangle (the view the server
				   placed, e.g. at spawn) */
	uint32_t setangles;	/* svc_setangle messages received */
	bool paused;		/* the last svc_setpause said 1 (a new
				   serverdata clears it, as ezQuake's) */
	uint32_t setpauses;	/* svc_setpause messages received */
	/* svc_lightstyle values as last received ("" until one came) */
	char lightstyles[MAX_LIGHTSTYLES][MAX_STYLESTRING];

	/* moves: the caller sets cmd (all but msec) between packets */
	struct usercmd cmd;
	struct usercmd sent[3];	/* the last three commands sent */

	/* tracking */
	struct qwc_player *players;	/* opt.max_players */
	struct qwc_seen seen[QWC_MAX_REPLY_PLAYERS];
	int num_seen;		/* entries of the last reply (capped) */
	int total_seen;		/* entries of the last reply */
	bool self_seen;
	vec3_t self_origin;	/* from our own playerinfo */
	uint32_t self_seen_sequence;
	struct qwc_entity *baselines;		/* opt.max_baselines */
	struct qwc_entity_frame *frames;	/* UPDATE_BACKUP */
	/* which replies' entity lists parsed whole from a good base: kept
	 * even without track_entities, so a client that does not hold the
	 * states still asks for deltas (the bytes parse the same either
	 * way) and loads the server as a real client does */
	uint32_t frame_seq[UPDATE_BACKUP];
	bool frame_ok[UPDATE_BACKUP];
	uint32_t valid_sequence;	/* last reply with a valid frame; 0 none */
	uint32_t last_reply_sequence;

	/* outgoing packets */
	struct qwc_out out[QWC_OUT_BACKUP];

	/* stufftext waiting for its end of line */
	char stuff[QWC_STUFF_MAX];
	size_t stuff_len;
	char last_print[QWC_PRINT_MAX];
	struct net_args args;	/* tokenizer scratch for stufftext */

	/* A connectionless datagram a stuffed "packet <addr> <text>" asked
	 * for (id's client sends it at once; MVDSV stuffs one to learn the
	 * client's address and, with sv_getrealip 2, drops a client that
	 * never sends it).  The caller sends it: see qwc_take_stuffed_oob.
	 * Added for tools/qwbots. */
	bool stuffed_oob_pending;
	struct net_addr stuffed_oob_to;
	size_t stuffed_oob_len;
	uint8_t stuffed_oob[QWC_STUFFED_OOB_MAX];

	struct qwc_stats stats;
};

/* Set up c (zeroed first) and allocate its tables; state DISCONNECTED.
 * Returns 0, or -1 when memory ran out (c is then safe to qwc_free). */
int qwc_init(struct qwc *c, const struct qwc_options *opt);
void qwc_free(struct qwc *c);

/* Start connecting (getchallenge goes out with the next qwc_packet). */
void qwc_connect(struct qwc *c, double now);
/* Queue "drop" and mark the client disconnected after the next packet. */
void qwc_disconnect(struct qwc *c);

/* Build the next datagram for the server into out (max >=
 * NETCHAN_MAX_PACKET).  Returns its length, or 0 when nothing is due yet
 * (packets go out every packet_interval; connectionless retries every
 * resend_interval).  force sends a netchan packet now regardless of the
 * interval. */
size_t qwc_packet(struct qwc *c, double now, bool force, uint8_t *out,
		  size_t max);

/* Take in one datagram from the server (the caller matched the address).
 * Returns false when it was rejected (and counted). */
bool qwc_receive(struct qwc *c, const uint8_t *data, size_t len, double now);

/* Queue a string command (reliable).  False if it does not fit. */
bool qwc_stringcmd(struct qwc *c, const char *text);

/* Ask for a file (a reliable "download NAME"); the last download's
 * bytes are forgotten.  False when not connected or the channel is full. */
bool qwc_download(struct qwc *c, const char *name);

/* the entity frame of the last valid reply, or NULL */
const struct qwc_entity_frame *qwc_current_frame(const struct qwc *c);
/* the player of slot, or NULL when out of range */
const struct qwc_player *qwc_player(const struct qwc *c, int slot);

const char *qwc_state_name(enum qwc_state s);
const char *qwc_bad_name(enum qwc_bad_kind k);

/* Build connectionless requests (4 0xFF bytes and the text), for probes
 * that need no client: "ping", "status", "getchallenge", "rcon pw cmd". */
size_t qwc_build_oob(uint8_t *out, size_t max, const char *text);

/* The datagram a stuffed "packet" command left (see stuffed_oob in struct
 * qwc), copied into out with its destination; returns its length and
 * forgets it, or 0 when none is waiting (or max is too small).  Call it
 * after qwc_receive. */
size_t qwc_take_stuffed_oob(struct qwc *c, uint8_t *out, size_t max,
			    struct net_addr *to);

/* What a connection negotiated that changes the svc layouts: qwd's
 * extension (svc_serverdata's player number is a short), FTE's chunked
 * downloads (svc_download is a chunk: a long number, then FTE_CHUNK
 * bytes, or with a negative number a start: the size and the name). */
enum {
	QWC_SVC_QWDX = 1,
	QWC_SVC_CHUNKED = 2
};

/* Pass over the body of one svc message of a connection (its svc byte
 * already read) by its protocol-28 layout, or the extensions' named in
 * form (QWC_SVC_*; a serverdata's FTE extension words are read as they
 * come).  The project's one walker of svc layouts (src/client/svc.c: the
 * parser, the demo reader and tools/qwcap use it).  False for a byte
 * that is no message or a temp entity of an unknown type (the next
 * message cannot be found), or a message cut short (m->badread set). */
bool qwc_svc_skip(struct msg_buf *m, int svc, unsigned form);

/* =============================================================== * MVD demos and QTV streams, the viewer's side (src/client/mvd.c, qtv.c)
 * =============================================================== *
 * The format itself (record types, limits, the QTV texts) is qwd/mvd.h.
 * The reader: mvd_read() takes the bytes of a file or stream as they
 * come, parses every complete record (the rest is left for the next
 * call), checks the framing and the messages against what ezQuake needs,
 * keeps what the tests look at, and stops at the first fault with its
 * reason and offset.  Every read is bounds-checked; nothing is
 * allocated.  The QTV client side is text only, no sockets: the request
 * a viewer or proxy sends and the reading of the server's answer.
 */

/* ---- QTV: the client side of the handshake ---------------------------- */

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

/* ---- the MVD reader ---------------------------------------------------- */

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
	uint64_t setpauses;	/* svc_setpause messages */
	bool paused;		/* the last of them said 1 */
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
