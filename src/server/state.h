/*
 * src/server/state.h -- the server's state: struct server, struct client
 * and the types in them; for the files of src/server/ and the tests only
 * (the rest of qwd and the tools see qwd/server.h).
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
 *   This header holds data only; what each layer of the module offers is
 *   in its own header (docs/ARCHITECTURE.md, "Inside the server"):
 *   base.h the base (cvars and commands, the feature registry of hooks.h,
 *   the log limit, the socket and the clock), core.h the core (the frame,
 *   clients, receive, execute, send, the level), and one header per
 *   feature (bans.h, demo.h, downloads.h, ...).  The state a feature keeps
 *   for itself (its bans, its log files) is its own header's type, held
 *   here by a pointer the feature sets at registration: the core holds it
 *   and never looks inside.  What the core keeps for a feature in struct
 *   client (a download's place) is the core's, and the feature's header
 *   says which fields it touches.
 */
#ifndef QWD_SERVER_STATE_H
#define QWD_SERVER_STATE_H
#include <stdatomic.h>
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

#include "hooks.h"

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
	SV_COMMANDS_MAX = 96,		/* console commands (cvar.c) */
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

/* A console command: cvar.c's table, which the features fill with theirs
 * at registration.  Output goes to out (stdout, or rcon's buffer). */
struct sv_command {
	const char *name;
	void (*fn)(struct server *sv, const struct net_args *a, FILE *out);
	const char *help;
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
/* The phase's send list by leaf (send.c, sv_reply_phase): the entities
 * touching exactly one leaf grouped by that leaf (group d: leaf
 * leafs[d]), those touching none or several apart (many); each entry's
 * group (group_of: d, or num_groups + k for many[k]), each group's count
 * of entities that are not nails (counts[2d]: all, counts[2d + 1]: those
 * numbered below MAX_EDICTS_P28), the nails' entries ascending, and the
 * first entry a stock client may not be told of.  Sized once:
 * max_entities entries, slot[] the map's leafs (grown when a larger map
 * loads). */
struct sv_send_leafs {
	struct cvar *enabled;		/* sv_send_leafs: 0 tests every entry */
	bool ready;			/* built for this phase */
	int num_groups, num_many, num_nails;
	int32_t *leafs, *group_of, *many, *nails;	/* max_entities */
	int32_t *counts;		/* 2 * max_entities */
	int32_t *slot;			/* per map leaf: its group + 1, or 0 */
	int num_slots;
	int p28_end;
};

struct sv_reply_worker {
	_Alignas(64) int index;		/* a cache line of its own: no false
					 * sharing between workers */
	struct sv_ring ring;
	uint8_t *fatpvs;		/* BSP_MAX_MAP_LEAFS / 8 */
	uint8_t *seen;			/* per group (then many entry) of
					 * sv_send_leafs: in this reply's PVS */
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

/* The server's entries sit in one array of their own (server.entries,
 * by slot), away from the clients: a reply on a server of hundreds shows
 * dozens of players, and what it reads of each (the stamps, the time of
 * its last move, the bytes) is one cache line, which a player's move
 * writes too (localtime).  The key and the leaf, read only when the
 * entry is checked, follow. */
/* who a reply may show: a spawned player, a spawned spectator (to
 * itself only), or no one (not in the game) */
enum sv_shown { SV_SHOWN_NONE, SV_SHOWN_SPECTATOR, SV_SHOWN_PLAYER };
struct sv_player_entry {
	_Alignas(64) uint32_t msec_stamp;	/* reply phase of msec */
	uint32_t stamp;		/* entry_epoch in which key was last checked */
	uint32_t touched;	/* the game's touched[] for it then */
	bool valid;
	bool moved;		/* its own move ran since the check */
	bool has_msec;
	uint8_t msec;		/* ms since its last command, this phase */
	double localtime;	/* game time of its last move */
	uint8_t len;
	uint8_t shown;		/* enum sv_shown, kept by sv_entry_sync */
	uint8_t bytes[SV_PLAYER_BODY_MAX];
	/* 64 bytes */
	int32_t leaf1;		/* its object's leaf1 as of that check */
	struct sv_player_key key;
};
_Static_assert(offsetof(struct sv_player_entry, bytes) + SV_PLAYER_BODY_MAX <= 64 &&
	       offsetof(struct sv_player_entry, localtime) + sizeof(double) <= 64,
	       "sv_player_entry: what a reply reads in one cache line");

/* Player j as a reply's visibility test sees it: leaf >= 0, a player
 * whose object touches that leaf alone; or one of SV_SEEN_*.  Made on
 * first use (or for every player by the parallel phase before its
 * workers only read), it holds across phases and frames while what
 * places the player's object holds, by the rule of the player's entry
 * (game.h: the game's changes and touched counters, its own move):
 * epoch == entry_epoch, touched == the game's touched[j], and neither
 * its own move (execute) nor a change of state or side (sv_entry_sync)
 * cleared epoch since.  A server of hundreds runs a frame for a few
 * dozen requests, and a player moves 30 times a second: the cell is
 * made about once per move, not once per frame. */
enum {
	SV_SEEN_LEAFS = -1,	/* a player touching several leafs: its object
				 * is tested */
	SV_SEEN_NONE = -2,	/* not in the game: shown to no one */
	SV_SEEN_SPECTATOR = -3	/* a spectator: shown to itself alone */
};
struct sv_seen_cell {
	uint32_t epoch;		/* entry_epoch when made; 0: to be made */
	uint32_t touched;	/* the game's touched[j] then */
	int32_t leaf;
	int32_t pad_;
};

/* 64-byte aligned (and so a multiple of 64 long): each client's groups of
 * fields read together fall in the same cache lines in every slot */
struct client {
	_Alignas(64) enum client_state state;
	int slot;
	int userid;
	bool extended;		/* negotiated the QWDX extension */
	bool spectator;
	int spec_track;		/* a spectator's tracked slot + 1, 0: none
				 * (ptrack; spectate.c) */
	uint32_t z_ext;		/* the client's "*z_ext" flags */
	/* the channel's head (the address, qport and sequences) in the
	 * struct's first cache lines, with the state: what a packet's lookup
	 * reads (io.c) */
	struct netchan chan;
	char team[16];		/* userinfo "team", for say_team */
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
	/* the server's reply_due bits, where sv_mark_due sets this
	 * client's: set with its slot, kept through a reconnect */
	uint64_t *due;
	bool restarted;		/* signon restarted by this packet */
	uint64_t request_ns;	/* receive time of the first one (prof) */
	int delta_sequence;	/* -1: send a full entity update */
	struct usercmd lastcmd;
	int lossage;
	uint32_t chokecount;
	/* antilag: the time this client's shots rewind the others to, from
	 * its last move packet (sv_antilag_aim), and whether it holds */
	bool lag_on;
	double lag_target;
	double cmd_bank;	/* speed check: msec of game time allowed */
	uint64_t requests, replies;
	uint64_t bad_checksums;

	/* What every turn of the reply phase reads, together, so that a
	 * reply on a server of hundreds (whose client struct is cold) finds
	 * them in a line or two; the buffers they count are below. */
	size_t datagram_len;		/* of datagram */
	uint32_t events_taken;		/* of sv->events, taken (events.c) */
	int info_pending_count;		/* of info_pending */
	int frags_pending_count;	/* of frags_pending */
	/* the light styles that changed (bit per style) */
	uint64_t styles_pending;
	/* other players' texts dropped since the client was told so */
	uint32_t texts_dropped;
	size_t backlog_len;		/* of backlog, queued from backlog_off */
	size_t backlog_off;
	bool backlog_overflowed;
	/* the last level reset queued (sv_reliable_mark_reset); while queued
	 * in the backlog, reset_backlog_end is where its record ends there */
	enum sv_reset_state reset_state;
	size_t reset_backlog_end;
	/* set by the downloads feature (downloads.h), read by the reply
	 * phase: a transfer that rides the channel is open (its replies may
	 * be choked like a spawned client's), and chunks wait for its reply
	 * (built on the frame's thread, after the workers') */
	bool transfer_open;
	bool transfer_pending;
	vec3_t pvs_view;		/* the view point of its cached fat PVS */
	bool pvs_valid;			/* sv->view_pvs holds it (send.c) */

	/* replies */
	int32_t stats[MAX_CL_STATS];
	int32_t sent_stats[MAX_CL_STATS];
	struct client_frame frames[UPDATE_BACKUP];
	int last_frags;
	int frags;

	/* unreliable game events (sounds, temp entities, damage) for the
	 * next reply; what does not fit is dropped, as QuakeWorld does
	 * (its length is with the reply's fields above) */
	uint8_t datagram[SV_DATAGRAM];

	/* slots whose client info (name, frags, entry time, userinfo) this
	 * client has yet to be sent.  Set by joins, leaves and userinfo
	 * changes, sent as the reliable channel has room (reliable.c), so a
	 * thousand joins, or a flood of setinfo, never queue a message each */
	uint64_t info_pending[SV_MAX_CLIENTS / 64];
	int info_cursor;
	/* likewise the slots whose frags changed (5 bytes each, sent first) */
	uint64_t frags_pending[SV_MAX_CLIENTS / 64];

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

	uint32_t fte;		/* FTE extensions negotiated at connect */
};

/* the client's turn in the next reply phase has work (send.c) */
static inline void sv_mark_due(struct client *cl)
{
	cl->due[cl->slot >> 6] |= 1ull << (cl->slot & 63);
}

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
	uint64_t exec_spec_segments;	/* run speculatively (mode 3) */
	uint64_t exec_spec_moves;	/* first steps speculated */
	uint64_t exec_spec_rested;	/* moves not run ahead (rest rule) */
	uint64_t exec_pipe_segments;	/* of them pipelined (mode 4) */
	uint64_t exec_pipe_waits;	/* turns that waited for a worker */
	uint64_t exec_pipe_own;		/* turns that found no step ahead */
	uint64_t exec_pipe_gave_up;	/* waits given up: worker not run */
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
	/* speculative moves (sv_threads_execute 3): each queued move's
	 * first step run on the workers, and the segment's change log */
	struct game_spec *spec;		/* maxclients, by the move's place */
	struct world_changes *changes;
	struct cvar *spec_rest;		/* sv_threads_spec_rest */
	bool *rest;			/* maxclients: not ahead this segment */
	/* pipelined (sv_threads_execute 4): the world as the segment
	 * began (made at the first such segment, again only if a level
	 * outgrows it), each move's cell's state (enum in execute.c), the
	 * workers' next move and the coordinator's */
	struct world_snap snap;
	bool snap_made;
	_Atomic int *pipe_state;	/* maxclients, by the move's place */
	_Atomic int pipe_next;
	_Atomic int pipe_turn;
};

/* the frame's events to every client (events.c): by form (0: the
 * extension clients', 1: the stock clients'), the bytes of all, and
 * where event k starts (at[f][count]: the end) */
struct sv_events {
	uint8_t *bytes[2];
	uint32_t *at[2];
	uint32_t count;
	size_t min_len[2];	/* of an event in the form (0s aside) */
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

	/* the frame's events to every client, each taken into a client's
	 * datagram before it is next used (events.c) */
	struct sv_events events;

	struct cvar cvars[SV_CVAR_MAX];
	int num_cvars;
	unsigned cvar_stores;	/* every cvar's stores (cvar.c): a reader of
				 * many asks this one line whether any changed */
	struct sv_command commands[SV_COMMANDS_MAX];	/* cvar.c */
	int num_commands;
	bool rcon_running;		/* a line from rcon runs (cvar.c asks
					 * the features what it may do) */
	struct sv_hooks hooks;		/* the features (hooks.h) */
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
		*allow_download_demos;
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
	struct net_uring *uring;	/* the socket's io_uring, or NULL:
					 * select (frame.c picks, -net) */
	char net_why[160];		/* which path runs and why */
	bool defer_sends;		/* server_defer_sends: the replies
					 * go with the next wait (uring) */
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
	struct sv_compat *compat;	/* compat.h: names said once */
	int exec_depth;			/* nested exec: a config may not loop */
	int exec_run, exec_limit;	/* lines one exec chain ran, may run */
	bool exec_cut;			/* the chain hit exec_limit (said once) */
	bool exec_too_deep;		/* it nested too deep (said once) */
	struct net_args cmd_args;

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
	double frame_start;		/* the clock the frame's work began */
	bool frame_backlog;		/* its receive left packets waiting */
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
	/* the same list by leaf (sv_reply_phase, send.c): a reply marks the
	 * entities of the leafs its PVS holds instead of testing every one */
	struct sv_send_leafs send_leafs;
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
	struct sv_autopool *autopool;
	/* qwd -metrics: the Prometheus endpoint (metrics.c), or NULL */
	struct sv_metrics *metrics;
	/* beside an Agones sidecar: the SDK client (agones.c), or NULL */
	struct sv_agones *agones;
	/* the match layer (match.c, qwd/match.h) */
	struct sv_match *match;
	/* the slots whose replies the workers build this phase, in slot
	 * order from its start; those the commit builds from its end */
	int32_t *reply_list;		/* maxclients */
	/* a bit per slot whose turn in the reply phase has work (a request
	 * to answer, a backlog that overflowed): the phase visits these
	 * alone, in slot order, and every slot when the pings are due
	 * (send.c) */
	uint64_t *reply_due;		/* (maxclients + 63) / 64 words */
	/* each player's entry as others see it (players.c), by slot */
	struct sv_player_entry *entries;	/* maxclients */
	/* what a reply's visibility test reads of each player, by slot
	 * (players.c): 8 bytes a player, so that a reply's hundreds of tests
	 * read a few lines, not an entry and an object each */
	struct sv_seen_cell *seen;		/* maxclients */

	/* each client's fat PVS, one row of view_pvs_row bytes per slot,
	 * sized at level load (NULL: computed into the worker's fatpvs
	 * every reply) */
	uint8_t *view_pvs;
	size_t view_pvs_row;
	/* scratch, sized at start-up */
	int32_t *visible;		/* entity numbers of one reply */

	struct server_stats stats;
	/* the features' own state (their headers), set at registration */
	struct sv_bans *bans;		/* bans.h */
	struct sv_masters *masters;	/* master.h */
	struct sv_logs *logs;		/* logfile.h */
	struct sv_rcon *rcon;		/* rcon.h */
	struct sv_downloads *downloads;	/* downloads.h */
	struct prof *prof;		/* phase timers, histograms, counters */
	struct capture *capture;	/* traffic to a pcap file, or NULL */
	struct sv_mvd *mvd;		/* the demo record stream (mvd.c) */
	struct sv_qtv *qtv;		/* the QTV listener (qtv.c) */
	struct sv_demo *demo;		/* demo commands and folder (demo.c) */
	struct sv_record *record;	/* record.h (cmdrecord) */
	FILE *stats_file;		/* -stats FILE, or NULL */
	uint64_t batch_ns;		/* receive time of the current batch */
};


#endif
