/*
 * src/server/internal.h -- the server's state and what its files share;
 * for the files of src/server/ and the tests only (the rest of qwd and
 * the tools see qwd/server.h).
 *
 * Design note
 *   One struct server holds everything; every function takes it (and the
 *   client it works on) explicitly, so nothing shifts under a caller and a
 *   later parallel mode stays possible.  All memory is sized at start-up
 *   from maxclients and the entity limit: the frame loop never allocates.
 *
 *   Entities belong to the game module (include/qwd/game.h): g->ents[i]
 *   (game fields) and objs[i] (collision fields, in the world's areanode
 *   tree) share the index i: 0 the world, 1..32 the stock player slots,
 *   then the map's and run-time entities, the extension player slots at
 *   the top.  The server only reads them to build replies; the game calls
 *   back through struct game_services (services.c) for sounds, temp
 *   entities, prints and frags.
 *
 *   The files and what they own: frame.c the loop, start-up and shutdown;
 *   oob.c the connectionless requests; user.c a client's packets and
 *   commands; send.c the replies (players.c their players' entries and
 *   the player grid); reliable.c each client's reliable
 *   stream; level.c the level and the signon; console.c, rcon.c, bans.c,
 *   master.c, logfile.c, loglimit.c, compat.c, profcmd.c, record.c the
 *   operator's side; spectate.c the spectators (their slots and
 *   passwords, ptrack, join and observe, clc_tmove); download.c and
 *   transfer.c the files served to clients; services.c what the game
 *   calls back; pause.c the pause; demo.c, mvd.c,
 *   mvdframe.c (with mvdwriter.h) and qtv.c the demos and their live
 *   stream.
 */
#ifndef QWD_SERVER_INTERNAL_H
#define QWD_SERVER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "qwd/capture.h"
#include "qwd/common.h"
#include "qwd/game.h"
#include "qwd/net.h"
#include "qwd/pool.h"
#include "qwd/prof.h"
#include "qwd/protocol.h"
#include "qwd/sched.h"
#include "qwd/server.h"
#include "qwd/world.h"

enum {
	SV_MAX_CLIENTS = 2048,		/* hard cap of maxclients */
	SV_MAX_ENTITIES = 8192,		/* entities of a level, players included */
	SV_SIGNON_BUFFERS = 64,		/* prespawn messages of MAX_MSGLEN */
	SV_MAX_NAME = 32,
	SV_BACKLOG = 8192,		/* reliable bytes queued beyond netchan */
	SV_COUNTER_SAMPLE = 8,		/* counters read in one frame of 8 */
	SV_INFO_RELIABLE = 480,		/* client infos per reliable message */
	SV_RELIABLE_EXT = 720,		/* extension clients' reliable message */
	SV_PATH = 256,
	SV_CVAR_MAX = 160,
	SV_GRID_CELL = 256,		/* player grid cell, units (grows for big maps) */
	SV_GRID_DIM = 64,		/* at most 64 x 64 cells */
	SV_REPLY_PLAYERS = 64,		/* players in one extension reply */
	SV_REPLY_TESTS = 512,		/* visibility tests for one reply */
	SV_USER_CVARS = 16,
	SV_COMPAT_WORDS = 2,		/* bits: MVDSV names already said (compat.c) */
	SV_DATAGRAM = 512,
	SV_MAX_NAILS = 32,		/* spikes in one svc_nails */
	SV_DL_QUEUE = 32,		/* chunk requests a client may have waiting */
	SV_EVENT_RADIUS = 1536,		/* extension servers: events reach the
					 * players within this many units, */
	SV_EVENT_TESTS = 256,		/* the nearest this many of them at most */
	/* other players' texts may fill a client's backlog up to here; the
	 * rest is kept for the client's own reliable data (reliable.c) */
	SV_TEXTS_STOCK = SV_BACKLOG * 3 / 4,
	SV_TEXTS_EXT = SV_BACKLOG / 2,
	SV_FP_MAX = 16,			/* chat times kept (fp_messages at most) */
	SV_SPECTATOR_SLOTS = 32,	/* slots beside the players' for
					 * spectators: maxspectators' bound,
					 * as MVDSV's (spectate.c) */
	SV_LOG_HELD = 16		/* sources named in "lines suppressed" */
};

/* A client's command budgets (user.c), a token bucket each: every string
 * command costs one of BUDGET_CMD, and those that cost others much more
 * than they cost the sender one of their own kind too. */
enum sv_budget_kind {
	BUDGET_CMD,		/* every string command */
	BUDGET_SETINFO,		/* a userinfo change: an update to everyone */
	BUDGET_KILL,		/* a suicide: a respawn, an obituary, frags */
	BUDGET_DOWNLOAD,	/* a download request: a file read */
	BUDGET_KINDS
};

/* ---- cvars ------------------------------------------------------------ */

enum cvar_flag {
	CVAR_SERVERINFO = 1,	/* mirrored in serverinfo */
	CVAR_SECRET = 2,	/* never shown (passwords) */
	CVAR_ROM = 4		/* set only at start-up */
};

struct cvar {
	const char *name;
	char string[256];
	float value;
	int flags;
	const char *help;
	unsigned modified;	/* counts the stores: "has it changed since" */
};

/* ---- the predicted pool (autopool.c, qwd -threads auto) ---------------- */

/* One check period's figures and the predictor they feed; all zero
 * (off) unless -threads auto with more than one thread. */
struct sv_autopool {
	bool on;
	struct pool_predictor pr;	/* pr.size: the workers active now */
	struct cvar *period, *alpha, *high, *low;
	double period_start;		/* sv->realtime the period began */
	uint64_t busy_ns;		/* the frames' busy time (all but idle) */
	uint64_t parallel_ns;		/* of which the pool's runs, wall */
	double work_ns;			/* the workers' time in the runs' items */
	double need;			/* the last closed period's */
	unsigned checks;		/* periods closed */
};

/* ---- entities --------------------------------------------------------- */

/* An entity as sent: quantised exactly as it goes on the wire, so "did it
 * change" compares what the client would see. */
struct entity_state {
	uint16_t number;
	uint16_t modelindex;
	int16_t origin[3];	/* 1/8 units, rounded */
	uint8_t angles[3];	/* 256 per turn */
	uint8_t frame, colormap, skinnum, effects;
};
/* send.c compares modelindex..effects as one run of bytes */
_Static_assert(offsetof(struct entity_state, effects) + 1 -
	       offsetof(struct entity_state, modelindex) == 15,
	       "entity_state: padding between modelindex and effects");

/* ---- files served to clients (download.c) ---------------------------- */

/* An open file: on disk (fd) or the loaded map's bytes (mem).  All-zero
 * is closed. */
struct sv_file {
	bool open;
	int fd;
	const uint8_t *mem;
	size_t size;
};

/* ---- the reply phase's workers (send.c) ------------------------------- */

/* Entity states of replies: a ring per worker, shared by the clients
 * whose replies that worker builds; a frame whose states were overwritten
 * is no longer a delta base. */
struct sv_ring {
	struct entity_state *states;
	uint32_t size;		/* power of two */
	uint32_t next;		/* absolute index of the next state */
	/* how far next may get before the phase in progress ends: set before
	 * a parallel phase (the ring's worker's bound), next otherwise; the
	 * only figure other workers read of a ring they do not write */
	uint32_t reach;
};

/* what a parallel phase defers to its commit, per reply queued */
struct sv_reply_done {
	int slot;
	uint32_t bytes;
	uint64_t request_ns, reply_ns;
};

/* One worker of the reply phase and everything it writes that is not its
 * clients' own.  In the sequential frame worker 0 builds every reply and
 * queues it on the server's send batch at once; in a parallel phase each
 * worker queues into its own batches and defers what other clients or the
 * server's shared figures would see to the commit (send.c). */
struct sv_reply_worker {
	_Alignas(64) int index;		/* a cache line of its own: no false
					 * sharing between workers */
	struct sv_ring ring;
	uint8_t *fatpvs;		/* BSP_MAX_MAP_LEAFS / 8 */
	uint64_t replies, entity_cuts;	/* into server.stats at the commit */
	/* parallel only: the batches (enough for every reply of a phase:
	 * any worker may build any), the one being filled, their network
	 * figures */
	bool parallel;
	struct net_send_batch *batches;
	int num_batches, batch;
	struct net_stats net;
	struct sv_reply_done *done;	/* one per reply queued */
	int num_done;
	struct client **drops;		/* channels overflowed: dropped at the commit */
	int num_drops;
};

/* ---- clients ---------------------------------------------------------- */

enum client_state {
	CS_FREE = 0,
	CS_ZOMBIE,		/* dropped; slot held briefly */
	CS_CONNECTED,		/* netchan up, in the signon */
	CS_SPAWNED		/* in the game */
};

struct client_frame {
	uint32_t sequence;	/* netchan sequence of the reply */
	double senttime;	/* when the reply was sent */
	double sv_time;		/* game time the reply showed (antilag) */
	float ping_time;	/* -1 until acknowledged */
	uint32_t first_state;	/* in its ring (absolute index) */
	uint16_t num_states;
	uint8_t ring;		/* whose: server.workers[ring].ring */
	bool valid;
	bool delta_base;	/* sent after the client had read every level
				   reset queued for it: may be a delta base */
};

/* Where the last message that makes the client forget its entity frames
 * (serverdata, "changing") is in the reliable stream: queued, in the
 * reliable message in flight, or read (acknowledged; also: none) */
enum sv_reset_state { SV_RESET_READ = 0, SV_RESET_QUEUED, SV_RESET_SENT };

/* A player's svc_playerinfo entry as every other client sees it, from
 * its flags on (after the number, whose form depends on the viewer), and
 * everything the entry is made of (send.c's sv_write_player) but its msec
 * byte, which changes every frame: when a reply finds the same inputs, it
 * copies the bytes and stores the msec at SV_PLAYER_MSEC_AT instead of
 * encoding them again.  The key holds only 32-bit fields, so it has no
 * padding and compares whole with memcmp. */
#define SV_PLAYER_MSEC_AT (2 + 6 + 1)	/* after flags, origin, frame */
#define SV_PLAYER_BODY_MAX (2 + 6 + 1 + 1 + MSG_DELTA_USERCMD_MAX + 6 + 4)
struct sv_player_key {
	float origin[3], cmd_angles[3];
	int32_t velocity[3], move[3];
	int32_t frame, modelindex, skin, effects, dead, cmd_msec;
	int32_t spectator, m_player, m_h_player;
};
/* One entity a reply may carry, as its reply phase listed it (a reply
 * reads this and the entity's object, not the game's entity) */
struct sv_send_item {
	int32_t num;
	bool nail;		/* sent in svc_nails */
};

struct sv_player_entry {
	struct sv_player_key key;
	uint32_t stamp;		/* entry_epoch in which key was last checked */
	uint32_t msec_stamp;	/* reply phase of msec */
	bool valid;
	bool moved;		/* its own move ran since the check */
	bool has_msec;
	uint8_t msec;		/* ms since its last command, this phase */
	uint8_t len;
	uint8_t bytes[SV_PLAYER_BODY_MAX];
};

struct client {
	enum client_state state;
	int slot;
	int userid;
	bool extended;		/* negotiated the QWDX extension */
	bool spectator;
	int spec_track;		/* a spectator's tracked slot + 1, 0: none
				 * (ptrack; spectate.c) */
	uint32_t z_ext;		/* the client's "*z_ext" flags */
	char team[16];		/* userinfo "team", for say_team */
	struct sv_player_entry entry;	/* as others see this player */
	vec3_t pvs_view;		/* the view point of its cached fat PVS */
	bool pvs_valid;			/* sv->view_pvs holds it (send.c) */
	struct netchan chan;
	char userinfo[MAX_INFO_STRING];
	char name[SV_MAX_NAME];
	int spawncount;		/* the level the signon is for */
	double connect_time;
	double signon_since;	/* the signon (re)started or a download
				 * moved: sv_signontimeout counts from here */
	double zombie_until;
	double last_cmd_time;

	/* requests */
	bool send_reply;	/* a request arrived this frame */
	bool restarted;		/* signon restarted by this packet */
	uint64_t request_ns;	/* receive time of the first one (prof) */
	int delta_sequence;	/* -1: send a full entity update */
	struct usercmd lastcmd;
	int lossage;
	uint32_t chokecount;
	double localtime;	/* game time of the last move */
	/* antilag: the time this client's shots rewind the others to, from
	 * its last move packet (sv_antilag_aim), and whether it holds */
	bool lag_on;
	double lag_target;
	double cmd_bank;	/* speed check: msec of game time allowed */
	uint64_t requests, replies;
	uint64_t bad_checksums;

	/* replies */
	int32_t stats[MAX_CL_STATS];
	int32_t sent_stats[MAX_CL_STATS];
	struct client_frame frames[UPDATE_BACKUP];
	int last_frags;
	int frags;

	/* unreliable game events (sounds, temp entities, damage) for the
	 * next reply; what does not fit is dropped, as QuakeWorld does */
	uint8_t datagram[SV_DATAGRAM];
	size_t datagram_len;

	/* slots whose client info (name, frags, entry time, userinfo) this
	 * client has yet to be sent.  Set by joins, leaves and userinfo
	 * changes, sent as the reliable channel has room (reliable.c), so a
	 * thousand joins, or a flood of setinfo, never queue a message each */
	uint64_t info_pending[SV_MAX_CLIENTS / 64];
	int info_pending_count;
	int info_cursor;
	/* likewise the slots whose frags changed (5 bytes each, sent first) */
	uint64_t frags_pending[SV_MAX_CLIENTS / 64];
	int frags_pending_count;
	/* and the light styles that changed (bit per style) */
	uint64_t styles_pending;
	/* other players' texts dropped since the client was told so */
	uint32_t texts_dropped;

	/* command budgets (user.c): tokens of each kind, as of budget_time
	 * (0: never charged, every bucket full) */
	double budget[BUDGET_KINDS];
	double budget_time;
	uint32_t budget_told;	/* kinds whose refusal was said once */
	uint64_t cmds_ignored;
	/* chat flood protection: when the last messages were said (a ring,
	 * said_head the newest), and until when the client is muted */
	double said[SV_FP_MAX];
	int said_head;
	double muted_until;
	double mute_told;

	/* reliable data that did not fit in the netchan yet */
	uint8_t backlog[SV_BACKLOG];
	size_t backlog_len;
	bool backlog_overflowed;
	/* the last level reset queued (sv_reliable_mark_reset); while queued
	 * in the backlog, reset_backlog_end is where its record ends there */
	enum sv_reset_state reset_state;
	size_t reset_backlog_end;

	/* download in progress (the map or a served file), read a chunk at a
	 * time (transfer.c): the stock download at dl_pos; a chunked one
	 * (FTE) answers the chunk numbers queued in dl_want, oldest first */
	struct sv_file dl;
	size_t dl_pos;
	char dl_name[128];
	uint32_t fte;		/* FTE extensions negotiated at connect */
	int32_t dl_want[SV_DL_QUEUE];	/* a ring: dl_head, dl_count */
	int dl_head, dl_count;
	int32_t dl_number;	/* the client's download number (nextdl) */
	uint64_t dl_frame;	/* the frame dl_frame_chunks counts */
	int dl_frame_chunks;	/* chunks sent to it in that frame */
	uint32_t dl_sent;	/* chunks sent of this download */
	/* a chunked download's own rate, apart from the game's channel: the
	 * client's drate bounded as MVDSV bounds it (bytes/s), and the clock
	 * its chunks are paid on (transfer.c) */
	int dl_rate;
	double dl_clear;
	int dl_level;		/* the spawncount it began on */
};

/* Players by map cell (x, y), so a reply looks at the players near its
 * client instead of all of them.  Intrusive lists: no allocation. */
struct sv_grid {
	float ox, oy, cell;
	int nx, ny;
	int16_t head[SV_GRID_DIM * SV_GRID_DIM];	/* first slot, -1 none */
	int16_t next[SV_MAX_CLIENTS];
	int16_t cell_x[SV_MAX_CLIENTS], cell_y[SV_MAX_CLIENTS];
	bool in[SV_MAX_CLIENTS];
};

/* ---- connectionless budgets ------------------------------------------ */

/* Each kind of connectionless request has its own budget, per address
 * and global (oob.c, docs/security.md "Connectionless budgets"), so a
 * flood of one kind never starves another. */
enum oob_kind {
	OOB_PING,		/* 'k' and "ping": one byte back */
	OOB_STATUS,		/* serverinfo and players: up to a datagram */
	OOB_GETCHALLENGE,	/* a number back, smaller than the request */
	OOB_CONNECT,		/* with a valid challenge: per address only */
	OOB_RCON,
	OOB_KINDS
};

struct oob_budget {
	struct ratelimit rl;
	unsigned applied;	/* the cvar's `modified` the rates came from */
	bool ready;
};

/* ---- the operator's tools: bans, master servers, log files, rcon ------ */

enum {
	SV_MAX_MASTERS = 8,		/* setmaster's list (MVDSV's MAX_MASTERS) */
	SV_RCON_SEEN = 4096		/* hashed rcon digests remembered */
};

/* addip and its kin (bans.c): the filters, checked for every packet */
struct sv_bans {
	struct ipfilter list;
	struct cvar *filterban;
	unsigned filterban_applied;	/* its `modified` the clients were
					 * last checked against */
	struct ratelimit answers;	/* the "banned." replies */
	double next_expiry;		/* realtime of the next expiry pass */
	uint64_t refused;		/* packets from refused addresses */
};

/* setmaster (master.c) */
struct sv_masters {
	struct net_addr addr[SV_MAX_MASTERS];
	char name[SV_MAX_MASTERS][64];	/* as the operator gave it */
	int count;
	int sequence;			/* of the last heartbeat */
	double last_sent;		/* realtime; < 0: one is due now */
	int players_sent;		/* the count the last one carried */
	uint64_t heartbeats;
};

/* logfile, logrcon, fraglogfile (logfile.c) */
enum sv_log_kind { SV_LOG_CONSOLE, SV_LOG_RCON, SV_LOG_FRAGS, SV_LOG_KINDS };

struct sv_log_file {
	FILE *fp;			/* NULL: off */
	char path[2 * SV_PATH + 64];	/* the base directory, sv_logdir, name */
	int number;			/* NNNN of its name */
	uint64_t size;			/* bytes in the file */
	int64_t next_day;		/* Unix time of the next local midnight */
};

struct sv_logs {
	struct sv_log_file file[SV_LOG_KINDS];
	struct cvar *sv_logdir, *sv_maxlogsize, *sv_logdaily, *frag_log_type;
	/* the console log is a sink in front of the server's own: the one
	 * it passes every line on to */
	void (*next_sink)(void *ctx, int level, const char *line);
	void *next_ctx;
};

/* hashed and plain rcon (rcon.c) */
struct sv_rcon_digest {
	uint8_t sha1[20];
	int64_t client_time;		/* Unix time the client stamped */
	bool used;
};

struct sv_rcon {
	struct cvar *sv_crypt_rcon, *sv_timestamplen;
	/* digests accepted within the window: a second use is a replay */
	struct sv_rcon_digest seen[SV_RCON_SEEN];
	bool running;			/* a command from rcon is running */
	uint64_t accepted, refused, replays;
};

/* ---- the server ------------------------------------------------------- */

/* Log lines a remote source drives (loglimit.c): a token bucket per
 * source address and kind of line and one for all of them, and the counts
 * of the lines held back, told in a summary line each now and then. */
struct sv_log_limit {
	struct ratelimit rl;
	struct {
		struct net_addr from;
		const char *fmt;	/* the kind: the call's format */
		uint32_t lines;
	} held[SV_LOG_HELD];
	int num_held;
	uint32_t others;	/* held lines of sources past the table */
	double last_summary;
};

enum sv_bad_kind {		/* malformed input, counted by kind */
	BAD_SHORT_HEADER,	/* too short for a netchan header */
	BAD_UNKNOWN_CLIENT,	/* not connectionless, no such client */
	BAD_STALE,		/* duplicate or out-of-order sequence */
	BAD_MESSAGE_BYTE,	/* unknown clc_* */
	BAD_TRUNCATED,		/* a message cut short */
	BAD_STRING,		/* string without terminator or too long */
	BAD_CHECKSUM,		/* clc_move checksum failed */
	BAD_OOB,		/* unknown or malformed connectionless */
	BAD_OVERSIZED,		/* larger than any valid datagram */
	BAD_SIGNON,		/* a signon step out of order or stale */
	BAD_KINDS
};

struct server_stats {
	uint64_t frames;
	uint64_t requests;	/* clc_move accepted */
	uint64_t replies;
	uint64_t chokes;
	uint64_t entity_cuts;	/* entity lists ended early: datagram full */
	uint64_t prints_dropped;	/* other players' texts a client's
					 * backlog had no room for */
	uint64_t infos_folded;	/* info and frags updates folded into one
				 * already waiting for the same slot */
	uint64_t cmds_ignored;	/* string commands over a budget */
	uint64_t says_muted;	/* chat refused by flood protection */
	uint64_t tmoves_ignored;	/* clc_tmove from a player */
	uint64_t uploads_refused;	/* clc_upload: qwd takes no uploads */
	uint64_t mutes;		/* clients muted by flood protection */
	uint64_t flood_drops;	/* clients dropped far over their budget */
	uint64_t log_suppressed;	/* remote-driven log lines held back */
	uint64_t bad[BAD_KINDS];
	uint64_t connects, refusals, drops;
	uint64_t oob_in;
	uint64_t ratelimited;
	/* per kind of connectionless request: answered, refused by its
	 * budget, and the payload bytes sent in answer */
	uint64_t oob_answered[OOB_KINDS], oob_limited[OOB_KINDS];
	uint64_t oob_bytes[OOB_KINDS];
	uint64_t download_read;		/* bytes read from disk for downloads */
	uint64_t download_repeats;	/* "download" of the file already going */
	uint64_t chunks_inband;		/* chunks sent in a reply */
	uint64_t chunks_oob;		/* chunks sent out of band */
	uint64_t chunk_bytes;		/* bytes of chunks sent, both ways */
	uint64_t chunk_budget_waits;	/* a chunk due waited for the
					 * server-wide download budget */
	uint64_t chunk_requests_dropped;	/* the client's queue was full */
	uint64_t chunk_requests_bad;	/* past the file's end, negative */
	uint64_t busy_refusals;		/* connects refused for load */
	uint64_t overload_drops;	/* players let go in an overload */
	/* the parallel EXECUTE (execute.c): segments run on the workers and
	 * sequentially, local jobs, moves in local and in shared jobs */
	uint64_t exec_parallel, exec_sequential, exec_jobs;
	uint64_t exec_local_moves, exec_shared_moves;
	uint64_t exec_outside;		/* a local mover left its region */
	uint64_t exec_skipped;		/* segments not scheduled: no pay */
	uint64_t exec_calls_lost;	/* game calls a full queue lost */
	uint64_t exec_ns[SERVER_EXEC_STEPS];	/* by step (server.h) */
};

/* The schedule instrument (sched.c): every frame's action lists joined
 * by union-find into jobs.  All arrays are made by server_init. */
struct sv_sched {
	bool on;
	enum server_sched_rule rule;	/* what a shot joins */
	bool global;			/* a command of the frame acts anywhere */
	bool last_global;		/* ... of the last frame */
	int nodes;			/* max_entities + 1 */
	int shared_node;		/* max_entities: what acts anywhere */
	struct sched_uf uf;
	int *parent, *size;		/* nodes */
	uint32_t *mark;			/* nodes: == stamp while in a list */
	int *job_of;			/* nodes: a root's job, -1 none */
	int *touched;			/* nodes: marked this frame */
	int ntouched;
	uint32_t stamp;
	struct world_obj **found;	/* max_entities: an area query's */
	int *requesting;		/* maxclients: slots with moves */
	int nrequesting;
	uint32_t *client_mark;		/* maxclients: == stamp once listed */
	uint64_t *client_ns;		/* maxclients: moves' time, ns */
	bool *client_fires;		/* maxclients */
	struct server_sched_job *jobs;	/* maxclients */
	int njobs, clients;		/* the last frame's */
};

/* The parallel EXECUTE (execute.c): the segment's queued moves and the
 * schedule's arrays, all made by server_init when -threads > 1. */
enum {
	EXEC_MAX_CMDS = 20,	/* commands one move may run (a gap's fill) */
	EXEC_MAX_ITEMS = 16,	/* items a move's halo remembers for commit */
	EXEC_MAX_SPAWNS = 256,	/* spawn spots a respawn's boxes cover */
	EXEC_MAX_FAR = 1024,	/* far boxes of a segment (lines of fire,
				 * landings, spots) */
	EXEC_PROBE = 16		/* while the schedule does not pay, one
				 * segment in this many is scheduled */
};

struct sv_exec_move {
	int slot;
	int n;			/* commands, in cmds[index * EXEC_MAX_CMDS] */
	float reach;		/* summed over its commands */
	vec3_t rmin, rmax;	/* where it may go */
	vec3_t qmin, qmax;	/* what it may ask about: rmin..rmax grown by
				 * its reach again */
	bool fires;
	vec3_t fmin, fmax;	/* its line of fire's box, when it fires */
	vec3_t fstart, fend;	/* the line */
	float fgrow;		/* and how far either side a shot reaches */
	bool fline;		/* one firing command: the line holds */
	bool local;		/* game_client_local said yes */
	bool lag_on;		/* its shots are rewound to lag_target */
	double lag_target;
	int job;		/* local job, -1: the shared job */
	int num_items;
};

struct sv_exec {
	struct cvar *enabled;	/* sv_threads_execute */
	bool on;		/* made: -threads > 1 */
	bool flushing;
	int num;		/* queued moves */
	struct sv_exec_move *moves;	/* maxclients, arrival order */
	/* antilag: a firing move of the segment rewinds, to lag_since at
	 * the earliest */
	bool lag_fire;
	double lag_since;
	struct usercmd *cmds;		/* maxclients x EXEC_MAX_CMDS */
	bool *queued;			/* maxclients: a move is queued */
	/* the schedule: a node per entity, and the shared node */
	struct sched_uf uf;
	int *parent, *size;
	int shared_node;
	int *job_of;			/* nodes: a root's local job, -1 */
	int *touched;
	bool *marked;
	int ntouched;
	struct world_obj **found;	/* an area query's */
	int *items;			/* maxclients x EXEC_MAX_ITEMS */
	int *job_first, *job_last, *next;	/* moves of a job */
	uint64_t *weight;		/* a job's entities */
	int *order, *job_bin;		/* LPT's */
	int njobs, num_shared;
	bool scheduled;			/* this segment's was made */
	double share_avg;		/* moves in local jobs, averaged */
	int skipped;
	int respawns;			/* moves of the segment that respawn */
	float respawn_reach;		/* the longest of their reaches */
	vec3_t *spawn_min, *spawn_max;	/* EXEC_MAX_SPAWNS */
	vec3_t *far_min, *far_max;	/* EXEC_MAX_FAR */
	int *far_line;			/* a far box's firing move, or -1 */
	int num_far;
	/* the run: a bin per worker, each with its queue of game calls */
	int nbins;
	uint64_t *bin_cmds;
	struct game_defer **queues;
	uint64_t *dropped_seen;
	uint32_t *replay_count;		/* maxclients + 1 */
	uint32_t *replay_order;
	int replay_max;
};

struct server {
	struct qwd_log log;
	FILE *console_out;		/* replies to console commands */

	/* configuration */
	char basedir[SV_PATH];
	char gamedir[64];
	char bind_ip[64];
	uint16_t port;
	int maxclients;			/* slots: players' and spectators'
					 * (stock clients use slots < 32) */
	int max_players;		/* the "maxclients" cvar: players */
	int max_entities;

	struct cvar cvars[SV_CVAR_MAX];
	int num_cvars;
	char user_cvar_names[SV_USER_CVARS][32];	/* made by "set" */
	int num_user_cvars;
	struct cvar *sys_ticrate;
	struct cvar *sv_mintic;
	/* antilag (user.c sv_antilag_aim, src/game/antilag.c) */
	struct cvar *sv_antilag, *sv_antilag_projectiles, *sv_antilag_no_pred;
	struct cvar *sv_maxload;
	struct cvar *sv_overloaddrop;
	struct cvar *hostname, *sv_timeout, *sv_zombietime, *rcon_password,
		*password, *sv_maxrate, *fraglimit, *timelimit, *deathmatch,
		*sv_mapcheck, *allow_download, *sv_speedcheck, *sv_maxspeed,
		*sv_execlimit, *sv_maxclientsperip, *sv_signontimeout,
		*sv_maxdownloadrate, *sv_downloadchunksperframe,
		*sv_maxdownloadtotal,
		*allow_download_demos, *sv_demodir;
	/* spectators and chat (spectate.c, user.c) */
	struct cvar *maxspectators, *spectator_password, *sv_spectalk,
		*sv_sayteam_to_spec, *teamplay;
	/* the defences against floods (docs/security.md) */
	struct cvar *budget_rate[BUDGET_KINDS], *budget_burst[BUDGET_KINDS],
		*sv_cmdkick, *fp_messages, *fp_persecond, *fp_secondsdead,
		*sv_lograte, *sv_logburst, *sv_logtotal;
	char serverinfo[MAX_SERVERINFO_STRING];
	char infokey_value[256];	/* the game's last infokey answer */

	/* network */
	int sock;			/* -1 with a link */
	struct server_link *link;	/* NULL: the socket, the real clock */
	struct net_stats net;
	struct net_recv_batch *rx;
	struct net_send_batch *tx;
	struct net_secret secret;
	struct oob_budget oob[OOB_KINDS];
	struct cvar *sv_oob[OOB_KINDS];	/* "RATE BURST GLOBAL GLOBALBURST" */
	size_t status_estimate;		/* bytes of the last status answer */
	struct sv_log_limit loglimit;	/* remote-driven log lines */
	struct net_args oob_args;	/* tokenizer scratch, reused */
	const char *parse_strings[NET_MAX_UDP_PACKET / 2]; /* one packet's */
	uint64_t compat_said[SV_COMPAT_WORDS];	/* compat.c: said once */
	int exec_depth;			/* nested exec: a config may not loop */
	int exec_run, exec_limit;	/* lines one exec chain ran, may run */
	bool exec_cut;			/* the chain hit exec_limit (said once) */
	bool exec_too_deep;		/* it nested too deep (said once) */
	struct net_args cmd_args;
	int dl_queued;			/* chunk requests queued, all clients */
	/* the server-wide download budget's clock (transfer.c): when all the
	 * chunks sent so far are paid for at sv_maxdownloadtotal */
	double dl_budget_clear;
	int dl_turn;			/* the slot the next pump starts at */
	/* the `modified` stamps of sv_maxrate and sv_maxdownloadrate the
	 * clients' rates were last bounded by (transfer.c) */
	unsigned maxrate_applied, maxdlrate_applied;

	/* time */
	double realtime;		/* monotonic seconds */
	double start_time;
	double time;			/* game time of the level */
	double physics_time;		/* time of the world's last physics run */
	double time_clock;		/* the clock reading up to which `time`
					 * has counted (pause.c: a pause's
					 * span never counts) */

	/* the pause (pause.c): the game's clock stopped, moves not run */
	bool paused;
	double paused_since;		/* the clock reading the pause began */
	struct cvar *pausable, *sv_paused;

	/* the load (overload.c): the last full window's busy share */
	double load;
	double load_window_start, load_busy;
	bool load_backlog, load_backlog_now;
	int overloaded_windows;
	bool quit;
	char quit_reason[32];		/* why the server stops ("SIGTERM"),
					 * told to clients; "" a plain quit */

	/* the level */
	struct bsp_map *map;
	char mapname[64];
	char levelname[128];
	int spawncount;
	struct world world;
	struct world_obj *objs;		/* max_entities */
	struct game *game;		/* the rules and the entities */
	struct game_services game_svc;	/* what the game calls back */
	char pending_map[64];		/* a level change the game asked for */
	struct entity_state *baselines;	/* max_entities; zero: none */
	/* each entity's wire state, made once per reply phase and shared by
	 * every reply of it (stamp == reply_stamp: current) */
	struct entity_state *frame_states;
	uint32_t *frame_stamp;
	uint32_t reply_stamp;
	/* the players' entries (sv_write_player) are checked again when the
	 * game's changes counter moved (another epoch) or their own move ran */
	uint32_t entry_epoch;
	uint32_t entry_changes;		/* game->changes of entry_epoch */
	/* the entities a reply may carry (sv_entity_sendable), ascending,
	 * listed once per reply phase: a reply tests only these */
	struct sv_send_item *send_list;	/* max_entities */
	int send_count;
	/* the scoreboard's pings and losses as every stock client gets them,
	 * made in the reply phase stock_pings_stamp (reliable.c) */
	uint8_t stock_pings[MAX_CLIENTS * 12];
	size_t stock_pings_len;
	uint32_t stock_pings_stamp;
	const char *model_precache[MAX_MODELS];
	int num_models;
	const char *sound_precache[MAX_SOUNDS];
	int num_sounds;
	char model_names[MAX_MODELS][64];
	char sound_names[MAX_SOUNDS][64];
	char lightstyles[MAX_LIGHTSTYLES][MAX_STYLESTRING];
	struct pmove_vars movevars;

	/* signon buffers: baselines and statics, MAX_MSGLEN each */
	uint8_t signon[SV_SIGNON_BUFFERS][MAX_MSGLEN];
	size_t signon_len[SV_SIGNON_BUFFERS];
	int num_signon;

	/* clients */
	struct client *clients;		/* maxclients */
	struct sv_grid grid;
	struct sv_sched sched;		/* the schedule instrument */
	struct sv_exec exec;		/* the parallel EXECUTE */
	int next_userid;
	int16_t *hash;			/* (ip, qport) -> slot, -1 empty */
	uint32_t hash_size;		/* power of two >= 2 * maxclients */
	double last_upkeep;
	double last_pings;

	/* the stdin console */
	int console_fd;			/* -1: none */
	char console_buf[1024];
	size_t console_len;

	/* the reply phase's workers (send.c, docs/parallel.md "Threads and
	 * the REPLY phase"): threads of them, worker 0 the frame's own
	 * thread; pool is NULL with one thread (the sequential frame) */
	int threads;
	struct pool *pool;
	struct sv_reply_worker *workers;
	/* qwd -threads auto: how many of them the runs use (autopool.c) */
	struct sv_autopool autopool;
	/* the slots whose replies the workers build this phase, in slot
	 * order from its start; those the commit builds from its end */
	int32_t *reply_list;		/* maxclients */

	/* each client's fat PVS, one row of view_pvs_row bytes per slot,
	 * sized at level load (NULL: computed into the worker's fatpvs
	 * every reply) */
	uint8_t *view_pvs;
	size_t view_pvs_row;
	/* scratch, sized at start-up */
	int32_t *visible;		/* entity numbers of one reply */

	struct server_stats stats;
	struct sv_bans bans;
	struct sv_masters masters;
	struct sv_logs logs;
	struct sv_rcon rcon;
	struct prof *prof;		/* phase timers, histograms, counters */
	struct capture *capture;	/* traffic to a pcap file, or NULL */
	struct sv_mvd *mvd;		/* the demo record stream (mvd.c) */
	struct sv_qtv *qtv;		/* the QTV listener (qtv.c) */
	struct sv_demo *demo;		/* demo commands and folder (demo.c) */
	struct recorder *recorder;	/* one client's usercmds, or NULL */
	int record_userid;		/* whose; 0: the first to move */
	int record_spawncount;		/* its level; -1 until the first command */
	FILE *stats_file;		/* -stats FILE, or NULL */
	uint64_t batch_ns;		/* receive time of the current batch */
};

/* ---- set-up in place (server_create and the tests) -------------------- */

/* Set up a server in sv's memory (socket, buffers, cvars); no level yet.
 * Returns 0, or -1 with the reason logged; server_shutdown is due either
 * way (it frees what was set up). */
int server_init(struct server *sv, const struct server_options *opt);
void server_shutdown(struct server *sv);

/* cvars */
struct cvar *cvar_get(struct server *sv, const char *name);
struct cvar *cvar_register(struct server *sv, const char *name,
			   const char *value, int flags, const char *help);
int cvar_set(struct server *sv, const char *name, const char *value);
/* the server's own store into a cvar, read-only ones too (sv_paused) */
void cvar_force(struct server *sv, struct cvar *v, const char *value);

/* ---- internals shared between the server's files ---------------------- */

/* oob.c */
void sv_connectionless(struct server *sv, const struct net_addr *from,
		       struct msg_buf *msg);
/* the cvar of a kind's budget, its default and what it means */
const char *sv_oob_cvar_name(int kind);
const char *sv_oob_cvar_default(int kind);
const char *sv_oob_cvar_help(int kind);
/* "ping", "status", ... */
const char *sv_oob_kind_name(int kind);
/* user.c */
/* antilag: MVDSV's rewind time for cl's move packet (user.c) */
#define SV_LAG_MAX_PREDICTION 0.02	/* s past the reply a client predicts */
#define SV_LAG_PHYSFPS 77.0		/* MVDSV's sv_maxfps default */
void sv_antilag_aim(struct server *sv, struct client *cl);
void sv_client_packet(struct server *sv, struct client *cl,
		      struct msg_buf *msg);
void sv_drop_client(struct server *sv, struct client *cl, const char *why);
void sv_client_setup(struct server *sv, struct client *cl);
void sv_userinfo_changed(struct server *sv, struct client *cl);
/* frame.c: one datagram now, outside the reply batch (connectionless
 * answers, a last disconnect); captured when a capture runs */
void sv_send_raw(struct server *sv, const struct net_addr *to,
		 const void *data, size_t len);
/* frame.c: the server's clock now (the real one, or its driver's) */
double sv_clock(const struct server *sv);
/* pause.c (MVDSV's pause): the cvars (pausable, sv_paused); pause or
 * resume the game (false: it already was so), msg (or NULL) printed to
 * everyone; a client's "pause" command (pausable, not a spectator); the
 * console's; the upkeep's release when no player is left */
void sv_pause_register(struct server *sv);
bool sv_pause_set(struct server *sv, bool paused, const char *msg);
void sv_pause_client(struct server *sv, struct client *cl);
void sv_cmd_pause(struct server *sv, const struct net_args *a, FILE *out);
void sv_pause_upkeep(struct server *sv);
/* a level loads unpaused, its clock starting now (MVDSV: sv.paused
 * cleared by the spawn; the clients' new serverdata clears theirs) */
void sv_pause_level(struct server *sv);
/* frame.c: rebuild the (address, qport) lookup after a connect or drop */
void sv_rehash_clients(struct server *sv);
const char *sv_bad_name(int kind);
void sv_log_bad_counts(struct server *sv);
/* frame.c: the defences' counters as one line of text (status, shutdown) */
/* overload.c: the load meter (once a frame: when its work began and ended,
 * and whether the receive left a backlog; a window closes at now with the
 * busy seconds gathered in sv->load_busy), admission for a connect (false:
 * refused, why says so), and letting the newest n players go */
void sv_load_frame(struct server *sv, double busy_from, double now,
		   bool backlog);
void sv_load_window(struct server *sv, double now);
bool sv_load_admits(struct server *sv, bool extended, char *why, size_t size);
int sv_overload_shed(struct server *sv, int n);

void sv_defence_counts(const struct server *sv, char *out, size_t size);
/* send.c: the replies of the frame; the player grid */
void sv_send_replies(struct server *sv);
/* -threads-max: max when above 0, else the online CPUs (1 ..
 * POOL_MAX_THREADS) */
int sv_threads_max(int max);
/* the reply phase's workers: threads of them (<= 1: one, no thread),
 * pinned to cpus when given (qwd/pool.h); 0, or -1 with the reason
 * logged; sv_reply_workers_free frees what was made either way */
int sv_reply_workers_init(struct server *sv, int threads, const int *cpus,
			  int num_cpus);
void sv_reply_workers_free(struct server *sv);
/* every ring's states forgotten: no frame before is a delta base */
void sv_rings_forget(struct server *sv);
/* a new reply phase: the world is taken to stay as it is until the next
 * one (entity states, player entries and the list of sendable entities
 * are made once per phase); sv_send_replies starts one */
void sv_reply_phase(struct server *sv);
/* execute.c: the parallel EXECUTE (docs/parallel.md) */
int sv_exec_init(struct server *sv);
void sv_exec_free(struct server *sv);
/* moves are queued now: made, sv_threads_execute, no schedule instrument */
bool sv_exec_active(const struct server *sv);
/* queue a spawned client's n commands (speed-checked); false: run them
 * now (after sv_exec_flush) */
bool sv_exec_queue(struct server *sv, struct client *cl,
		   const struct usercmd *cmds, int n);
/* run the queued moves (nothing queued: nothing) */
void sv_exec_flush(struct server *sv);
/* user.c: one command through the game, the player grid after it */
void sv_run_game_cmd(struct server *sv, struct client *cl,
		     const struct usercmd *cmd);

/* sched.c: the schedule instrument (docs/parallel.md) */
int sv_sched_init(struct server *sv);
void sv_sched_free(struct server *sv);
/* cmd of cl is about to run: its action list joins the frame's graph */
void sv_sched_cmd(struct server *sv, struct client *cl,
		  const struct usercmd *cmd);
/* the thread's CPU time, ns: a move's cost without the time the thread
 * was not running (another process on the core) */
uint64_t sv_sched_clock(void);
/* cl's moves took ns more */
void sv_sched_cost(struct server *sv, struct client *cl, uint64_t ns);
/* the end of RECEIVE+EXECUTE: the frame's jobs, then a fresh graph */
void sv_sched_frame(struct server *sv);
/* players.c: the players' entries and the player grid */
void sv_grid_init(struct server *sv);

/* The players in the grid's cells around cell (cx, cy), ring by ring
 * outward (ring 0 is the cell itself), `rings` rings at most, each given
 * to fn until it returns false.  Inlined into each caller with its fn, so
 * the walk costs no call per player. */
static inline __attribute__((always_inline)) void
sv_grid_visit(const struct sv_grid *g, int cx, int cy, int rings,
	      bool (*fn)(void *ctx, int slot), void *ctx)
{
	for (int r = 0; r < rings; r++) {
		for (int y = cy - r; y <= cy + r; y++) {
			if (y < 0 || y >= g->ny)
				continue;
			/* the ring: full rows at the top and bottom, two
			 * cells in between */
			int step = (y == cy - r || y == cy + r) ? 1 : 2 * r;

			for (int x = cx - r; x <= cx + r; x += step ? step : 1) {
				if (x < 0 || x >= g->nx)
					continue;
				for (int j = g->head[y * g->nx + x]; j >= 0; j = g->next[j])
					if (!fn(ctx, j))
						return;
			}
		}
	}
}
void sv_grid_move(struct server *sv, int slot, const vec3_t org);
void sv_grid_remove(struct server *sv, int slot);
/* player j's svc_playerinfo as client cl sees it; false when it did not
 * fit (m unchanged) */
bool sv_write_player(struct server *sv, struct client *cl, int j,
		     struct msg_buf *m);
/* every player client cl sees from pvs, as many as fit in m */
void sv_write_players(struct server *sv, struct client *cl,
		      const uint8_t *pvs, struct msg_buf *m);
/* player j's cached entry brought up to this reply phase (the parallel
 * phase does it for every player before the workers only read them) */
void sv_player_entry_refresh(struct server *sv, int j);

/* an object touches a leaf of pvs (the replies' visibility test) */
static inline __attribute__((always_inline)) bool
sv_obj_visible(const struct world_obj *o, const uint8_t *pvs)
{
	if (o->leaf1 >= 0)
		return bsp_vis_test(pvs, o->leaf1);
	if (o->leafs_overflow)
		return true;
	for (int i = 0; i < o->num_leafs; i++)
		if (bsp_vis_test(pvs, o->leafnums[i]))
			return true;
	return false;
}
/* reliable.c: the scoreboard's pings and losses to one client */
void sv_send_pings(struct server *sv, struct client *cl);
/* the same to a stock client, in a reply phase (made once per phase) */
void sv_send_stock_pings(struct server *sv, struct client *cl);
int sv_client_ping(const struct client *c);
/* reliable.c: the reliable stream */
void sv_reliable_write(struct client *cl, const void *data, size_t len);
/* the next reliable message of a packet, from the backlog and the pending
 * sets (send.c, before the reply is built) */
void sv_reliable_fill(struct server *sv, struct client *cl);
/* the message just queued makes the client forget its entity frames: no
 * reply sent before it has read it can be a delta base */
void sv_reliable_mark_reset(struct client *cl);
void sv_reliable_printf(struct client *cl, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void sv_reliable_stufftext(struct client *cl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sv_broadcast_printf(struct server *sv, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* other players' traffic, which never overflows a client's backlog: a
 * text that does not fit under its mark is dropped for that client and
 * counted (false); infos, frags and light styles wait in pending sets, the
 * newest state of each sent as the channel has room */
bool sv_reliable_text(struct server *sv, struct client *cl, const void *data,
		      size_t len);
void sv_broadcast_client_info(struct server *sv, struct client *who);
/* true when newly marked, false when it folded into a pending one */
bool sv_info_mark(struct client *to, int slot);
bool sv_frags_mark(struct client *to, int slot);
/* the pending sets forgotten: the signon is about to send every state */
void sv_pending_clear(struct client *cl);
void sv_write_client_info(struct server *sv, struct client *to,
			  struct client *who, struct msg_buf *m);
/* send.c: protocol 28's layouts, shared with the demo writer: one
 * entity's update (force: written even when nothing changed, as for an
 * entity new to the list), a removal, a spike's six bytes of svc_nails */
void sv_write_entity_delta(const struct entity_state *from,
			   const struct entity_state *to, struct msg_buf *m,
			   bool force);
void sv_write_entity_remove(struct msg_buf *m, int number);
void sv_write_nail(const struct server *sv, int num, struct msg_buf *m);
/* level.c */
int sv_player_entity(const struct server *sv, int slot);
void sv_entity_state(const struct server *sv, int num, struct entity_state *st);
/* an entity that replies and demos carry in their entity lists (or in
 * svc_nails): in use, drawn, neither static nor a player */
static inline bool sv_entity_sendable(const struct game_entity *e)
{
	return e->inuse && e->modelindex && !e->is_static && e->client < 0;
}
/* the folder of the bundled maps (QWD_MAPDIR) */
const char *sv_bundled_map_dir(void);
/* level.c: precache list index of a name (added when new), 0 when full */
int sv_add_model(struct server *sv, const char *name);
int sv_add_sound(struct server *sv, const char *name);
/* level.c: one page of the model or sound list from start, as the signon
 * sends it (svc_modellist/svc_soundlist, the start, names up to half a
 * message, an empty name, the next page's start); returns that start, 0
 * when this page ends the list */
int sv_write_list_page(const struct server *sv, bool models, int start,
		       struct msg_buf *m);
/* level.c: append a message to the signon buffers */
void sv_signon_add(struct server *sv, const uint8_t *data, size_t len);
/* download.c: open a served file by its checked relative name (the map
 * being played, then the game folder, id1, the bundled maps); read len
 * bytes at offset (fewer at the end; 0 on error or past it); close (a
 * closed file may be closed again) */
bool sv_file_open(struct server *sv, struct sv_file *f, const char *name);
/* download.c: open NAME (a plain file name) in the demo folder,
 * <basedir>/<gamedir>/<sv_demoDir> */
bool sv_file_open_demo(struct server *sv, struct sv_file *f, const char *name);
size_t sv_file_read(struct server *sv, struct sv_file *f, size_t offset,
		    void *buf, size_t len);
void sv_file_close(struct sv_file *f);
/* transfer.c: the download commands ("download NAME", "nextdl [CHUNK
 * PERCENT NUMBER]", "stopdl"/"stopdownload"), the stock form or FTE's
 * chunked one as the client negotiated */
void sv_cmd_download(struct server *sv, struct client *cl,
		     const struct net_args *a);
void sv_cmd_nextdl(struct server *sv, struct client *cl,
		   const struct net_args *a);
void sv_cmd_stopdownload(struct server *sv, struct client *cl);
/* transfer.c: refuse a download of name (missing: no such file, else
 * not allowed), in the form the client's download speaks */
void sv_download_refuse(struct client *cl, const char *name, bool missing);
/* transfer.c: the level changed under a client (level.c): its download
 * goes on (ezQuake ignores "reconnect" while it downloads) and is told to
 * reconnect at its end; a file served from the old level's memory is
 * opened again by name, or the download ends */
void sv_download_level_changed(struct server *sv, struct client *cl);
/* transfer.c: end the client's download, if any, silently */
void sv_download_stop(struct server *sv, struct client *cl);
/* transfer.c: the client's rates from its userinfo: the channel's is its
 * "rate" bounded by sv_maxrate (the game's; while a stock download is
 * open, the download's, as its blocks ride in the channel); a chunked
 * download's own is "drate" bounded by sv_maxdownloadrate (else
 * sv_maxrate) */
void sv_apply_rate(struct server *sv, struct client *cl);
/* every client's rates bounded again when sv_maxrate or
 * sv_maxdownloadrate changed since the last call (MVDSV does it when
 * either is set); the frame's upkeep calls it */
void sv_rates_upkeep(struct server *sv);
/* transfer.c: the oldest chunk a client waits for into its reply, if
 * there is room and its download rate and the server's budget allow;
 * the bytes it added (0: none), which the caller gives back to the
 * channel once the reply is sent (send.c, building the reply) */
size_t sv_download_datagram(struct server *sv, struct client *cl,
			    struct msg_buf *m);
/* transfer.c: more chunks out of band, as each client's download rate
 * and the server-wide budget allow (send.c, after the replies, into the
 * same send batch) */
void sv_download_pump(struct server *sv);
/* services.c: fill sv->game_svc */
void sv_game_services(struct server *sv);
/* services.c: svc_updatefrags of slot to everyone who may see it */
void sv_send_frags(struct server *sv, int slot);
/* loglimit.c: a log line driven by a remote source, rate-limited per
 * source address and in all (sv_lograte, sv_logburst, sv_logtotal) */
void sv_log_limit_init(struct server *sv);
void sv_log_from(struct server *sv, const struct net_addr *from, int level,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* loglimit.c: the "N similar lines suppressed" summaries, every few
 * seconds (frame.c's upkeep) and at shutdown (force) */
void sv_log_summaries(struct server *sv, bool force);
/* spectate.c: the cvars (maxspectators, spectator_password,
 * sv_spectalk, sv_sayteam_to_spec) and the serverinfo's "*z_ext" */
void sv_spectate_init(struct server *sv);
/* spectate.c: clients in a slot (state >= CS_CONNECTED) that are
 * spectators, or players */
int sv_count_clients(const struct server *sv, bool spectators);
/* spectate.c: may a connect with this userinfo come in as a spectator
 * (true, and *spectator set) or a player: the passwords and the limits of
 * each side; false with the refusal's text in why.  The userinfo's
 * "spectator" (MVDSV: the spectator password) and "password" keys are
 * removed, "*spectator" set for a spectator. */
bool sv_spectate_admit(struct server *sv, char *userinfo, size_t size,
		       bool *spectator, char *why, size_t whylen);
/* spectate.c: "ptrack [N]", "join", "observe" (true: it was one of them) */
bool sv_spectate_command(struct server *sv, struct client *cl,
			 const struct net_args *a);
/* spectate.c: maxspectators, bounded to 0..SV_SPECTATOR_SLOTS */
int sv_spectator_limit(const struct server *sv);
/* spectate.c: the slot whose stats and view a client gets (the tracked
 * player of a tracking spectator, else its own) */
int sv_view_slot(const struct server *sv, const struct client *cl);
/* spectate.c: clc_tmove: a spectator's origin moved (a player's is
 * ignored and counted) */
void sv_spectate_tmove(struct server *sv, struct client *cl, const vec3_t org);
/* spectate.c: the client leaves its side (drop, join, observe): nobody
 * tracks it any more */
void sv_spectate_untrack(struct server *sv, const struct client *cl);
/* compat.c: name is MVDSV's or KTX's and not used by qwd: say so on out
 * (once per name) and return true; false for a name it does not know */
bool sv_compat_ignore(struct server *sv, const char *name, FILE *out);
/* compat.c: "floodprot MESSAGES SECONDS SILENCE" (MVDSV's command) */
void sv_cmd_floodprot(struct server *sv, const struct net_args *a, FILE *out);
/* record.c: "cmdrecord start FILE [MAXMB] [client USERID]" /
 * "cmdrecord stop" / "cmdrecord" (console and rcon) */
void sv_cmd_cmdrecord(struct server *sv, const struct net_args *a, FILE *out);
/* record.c: a command the server is about to run for cl (user.c) */
void sv_record_cmd(struct server *sv, struct client *cl,
		   const struct usercmd *cmd);
/* record.c: close the recording, if any (shutdown); says so on out */
void sv_record_stop(struct server *sv, FILE *out);
/* profcmd.c: "stats ..." and "counters ..." over a profiler (argv[0] the
 * command's name; output to out; 0, or -1 with the usage printed), and
 * the console's entry, which adds the defences' counters to "stats" */
int sv_prof_command(struct prof *p, int argc, const char *const *argv,
		    FILE *out);
void sv_cmd_prof(struct server *sv, const struct net_args *a, FILE *out);

/* ---- demos and QTV (docs/demos.md) ------------------------------------ */

/* demo.c: the demo cvars, the writer and the QTV listener set up (-1: out
 * of memory); the end of all of it at shutdown */
int sv_demo_init(struct server *sv);
void sv_demo_shutdown(struct server *sv);
/* demo.c: sv_demoDir's value names a folder inside the game folder
 * (relative, no "..", plain characters); downloads of demos/ check it too */
bool sv_demo_dir_ok(const char *dir);
/* demo.c: once a frame, after the replies: QTV connections, automatic
 * recording, the demo frame */
void sv_demo_frame(struct server *sv);
/* demo.c: the console commands (record, easyrecord, stop, cancel,
 * demolist, rmdemo, and their sv_demo* names; qtv_list, qtv_close) */
bool sv_demo_command(struct server *sv, const struct net_args *a, FILE *out);
void sv_demo_help(FILE *out);

/* how a demo file ends (MVDSV's words to the players differ) */
enum sv_demo_stop {
	DEMO_STOP_DONE,		/* stop, a level change */
	DEMO_STOP_CANCEL,	/* cancel: the file removed */
	DEMO_STOP_FULL,		/* sv_demoMaxSize reached */
	DEMO_STOP_ERROR,	/* it could not be written */
	DEMO_STOP_QUIET		/* shutdown: nobody to tell */
};

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

/* ---- the operator's tools (bans.c, master.c, logfile.c, rcon.c) -------- */

/* autopool.c: the predicted pool's cvars; on with -threads auto (the
 * pool made, max workers in it): one worker active to start with */
void sv_autopool_init(struct server *sv, bool on);
/* autopool.c: a pool run of the reply phase (send.c) or of the EXECUTE
 * phase (execute.c) took ns of wall time; the workers' time in its items
 * is taken from the pool */
void sv_autopool_run(struct server *sv, uint64_t ns);
/* autopool.c: after each frame's prof_frame_end: its busy time into the
 * period; at the period's end the need, the prediction, the new size */
void sv_autopool_frame(struct server *sv);
/* autopool.c: "threads": active, max, need, prediction, changes */
void sv_cmd_threads(struct server *sv, const struct net_args *a, FILE *out);

/* each registers its cvars and sets up its state (server_init) */
void sv_bans_init(struct server *sv);
void sv_masters_init(struct server *sv);
void sv_logs_init(struct server *sv);
void sv_rcon_init(struct server *sv);
/* bans.c: a packet from a refused address is answered "banned." (within
 * a budget) and dropped: true.  Runs for every received packet. */
bool sv_ban_filter(struct server *sv, const struct net_addr *from);
/* bans.c: would an address be refused now */
bool sv_banned(const struct server *sv, const struct net_addr *from);
/* bans.c: exec the game folder's listip.cfg, if any (start-up) */
void sv_bans_load(struct server *sv);
/* bans.c: expiries, and the clients a filterban change now refuses */
void sv_bans_upkeep(struct server *sv);
/* bans.c: addip, removeip, listip, writeip */
void sv_cmd_bans(struct server *sv, const struct net_args *a, FILE *out);
/* master.c: setmaster, heartbeat */
void sv_cmd_master(struct server *sv, const struct net_args *a, FILE *out);
/* master.c: a heartbeat when one is due (upkeep) */
void sv_masters_frame(struct server *sv);
/* master.c: "C\n" to every master (shutdown) */
void sv_masters_shutdown(struct server *sv);
/* master.c: is this address one of the masters */
bool sv_is_master(const struct server *sv, const struct net_addr *a);
/* logfile.c: logfile, logrcon, fraglogfile */
void sv_cmd_logs(struct server *sv, const struct net_args *a, FILE *out);
/* logfile.c: a line for the rcon log (when it is on) */
void sv_log_rcon(struct server *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* logfile.c: killer fragged victim (the same slot: a suicide), for the
 * frag log; a new level starts ("\newmap\" in frag_log_type 1) */
void sv_log_frag(struct server *sv, int killer, int victim);
void sv_log_newmap(struct server *sv);
/* logfile.c: close every log file (shutdown) */
void sv_logs_close(struct server *sv);
/* rcon.c: a connectionless "rcon ..." that passed its budget; returns
 * the bytes sent in answer */
size_t sv_rcon(struct server *sv, const struct net_addr *from,
	       const struct net_args *args);
/* rcon.c: names a command or cvar that rcon may not run or set (the
 * logs and the rcon rules themselves; console.c asks) */
bool sv_rcon_forbidden(const char *name);

#endif
