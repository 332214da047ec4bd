/*
 * qwbots.h -- what the files of the load generator share.
 *
 * Design note
 *   qwbots runs many QuakeWorld clients (bots) in one process and one
 *   thread.  Each bot is a struct qwc from the client library (the
 *   protocol: challenge, connect, netchan, signon, clc_move) plus a
 *   behaviour that fills its usercmd once per request ("client frame"),
 *   plus its own metrics.  The files:
 *
 *     args.c     the command line into struct qwb_config
 *     behave.c   the behaviours: action-file replay (and the spawn
 *                matching it needs), idle; the random walker of the
 *                parallel-QuakeWorld study and the seeded generator are
 *                the tools' library's (tools/lib/walker.c, qwtools.h)
 *     pcap.c     a capture of a real client's session into an action file
 *     metrics.c  totals, JSON / CSV / progress
 *     run.c      the run: the event loop, its phases, the bots' states,
 *                the report (run.h: the state the next two share)
 *     sched.c    the schedule of requests (a heap by next send)
 *     io.c       sockets and the batched sendmmsg/recvmmsg
 *     main.c     the program: signals, the mode, the exit status
 *
 *   Everything but main.c is also linked into the tests (tests/qwbots),
 *   so the pure parts (walker schedule, parser, pcap reader, totals) are
 *   tested without sockets.
 *
 *   Time is seconds of CLOCK_MONOTONIC as a double everywhere (the client
 *   library's convention); response times go into the project's histogram
 *   (struct qwd_hist, qwd/common.h) in nanoseconds, as qwd's request
 *   times do, so both report the same p50 and p99 for the same times.
 */
#ifndef QWBOTS_H
#define QWBOTS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "qwd/actions.h"
#include "qwd/client.h"
#include "qwd/common.h"
#include "qwd/net.h"
#include "qwtools.h"

enum {
	QWB_MAX_ACTION_FILES = 64,
	QWB_NAME_MAX = 16		/* bot names: prefix and 4+ digits */
};

/* ---- behaviours -------------------------------------------------------- */

enum qwb_behaviour {
	QWB_WALKER = 0,
	QWB_REPLAY,
	QWB_IDLE
};

/* ---- action files (qwd/actions.h): replay -------------------------- */

/* Replay of one action stream, by time: each request takes the newest
 * line due at its moment; buttons of lines passed over between two
 * requests are ORed in and the first impulse among them is kept, so a
 * bot slower than the recording loses no jump or weapon change. */
struct qwb_replay {
	const struct actions *a;
	size_t pos;		/* first line not yet used */
	double start;
	uint32_t loops;		/* times the stream was started */
};

void qwb_replay_begin(struct qwb_replay *r, const struct actions *a,
		      double now);
/* Fill cmd (all but msec) for a request at now.  False once the stream
 * has been played to its end (cmd is then an empty move). */
bool qwb_replay_step(struct qwb_replay *r, double now, struct usercmd *cmd);

/* Getting to the file's spawn point with stock means: a bot that spawned
 * elsewhere sends "kill" and presses attack (which respawns a dead player
 * in QuakeWorld's game code; qwd respawns at once) until it stands at the
 * recorded spawn, at most max_tries times. */
enum qwb_spawn_do {
	QWB_SPAWN_PLAY = 0,	/* matched (or gave up): play the stream */
	QWB_SPAWN_KILL,		/* send "kill" now */
	QWB_SPAWN_WAIT		/* respawning: send cmd as filled */
};

struct qwb_spawnmatch {
	int max_tries, tries;
	int wait;		/* frames since the last kill */
	bool waiting, done, matched;
	vec3_t before;		/* origin when the kill was sent */
};

#define QWB_SPAWN_XY 16.0f	/* how close counts as the same spot */
#define QWB_SPAWN_Z 40.0f
#define QWB_SPAWN_WAIT_MAX 90	/* frames to wait for a respawn */

void qwb_spawnmatch_begin(struct qwb_spawnmatch *s, int max_tries);
enum qwb_spawn_do qwb_spawnmatch_step(struct qwb_spawnmatch *s,
				      const float *target, const float *origin,
				      int health, struct usercmd *cmd);

/* ---- metrics of one bot ------------------------------------------------ */

/* bad replies: the client library's kinds, then the run's own */
enum {
	QWB_BAD_OVERSIZED = QWC_BAD_KINDS,	/* datagram cut by the buffer */
	QWB_BAD_KINDS
};

/* Counted in the measurement window only, while the bot is in the game;
 * bad replies and the join over the whole run. */
struct qwb_bot_stats {
	int id;
	char name[QWB_NAME_MAX];
	char addr[NET_ADDR_STRLEN];	/* the bot's local address */
	const char *state;		/* qwc_state_name at the end */
	char reason[96];		/* refusal or drop text */
	int slot;			/* player number, -1 before serverdata */
	bool reached;			/* was in the game at least once */
	bool dropped;			/* the server dropped it after that */
	double join_s;			/* connect to in-game, seconds */

	uint64_t requests, replies, acks;
	uint64_t bytes_out, bytes_in;
	uint64_t players_sum, players_max;
	uint64_t ents_replies, ents_sum, ents_max; /* tracked bots only */
	uint64_t chokes;		/* svc_chokecount sum */
	uint64_t lost;			/* sequence gaps in the replies */
	uint64_t bad[QWB_BAD_KINDS];	/* whole run */
	uint64_t signons;
	struct qwd_hist rt;		/* response times, ns */

	bool have_origin;
	vec3_t origin_start, origin_end;
	double moved_max;		/* farthest from origin_start */
	double path;			/* sum of reply-to-reply steps (but
					   jumps over QWB_TELEPORT: respawns) */

	/* behaviour */
	uint32_t walker_actions[4];
	int actions_file;		/* index into the files, -1: none */
	uint32_t replay_starts;		/* times the stream was started */
	uint32_t spawn_matches;		/* of those, at the file's spawn */
	uint32_t spawn_kills;		/* "kill"s sent to get there */
};

#define QWB_TELEPORT 256.0	/* units between two replies: not walked */

/* Totals over all bots for a window of `window` seconds. */
struct qwb_totals {
	int bots, reached, in_game, dropped;
	double window;
	uint64_t requests, replies, acks, bytes_out, bytes_in;
	uint64_t players_sum, players_max, ents_replies, ents_sum, ents_max;
	uint64_t chokes, lost, bad[QWB_BAD_KINDS], bad_total;
	double requests_per_s, replies_per_s, response_rate;
	double bytes_in_per_s, bytes_out_per_s;
	double players_per_reply, ents_per_reply;
	double join_mean_s, join_max_s;
	struct qwd_hist rt;
};

void qwb_totals_compute(const struct qwb_bot_stats *b, int n, double window,
			struct qwb_totals *t);

/* ---- configuration ----------------------------------------------------- */

enum qwb_mode {
	QWB_MODE_RUN = 0,
	QWB_MODE_PCAP,		/* --from-pcap */
	QWB_MODE_CHECK,		/* --check-actions */
	QWB_MODE_HELP
};

enum qwb_qwdx {
	QWB_QWDX_AUTO = 0,	/* on when more than 32 bots */
	QWB_QWDX_ON,
	QWB_QWDX_OFF
};

struct qwb_config {
	enum qwb_mode mode;
	struct net_addr server;
	char server_text[64];
	int bots;
	double rate;		/* requests per second per bot */
	double jitter;		/* +- fraction of the interval */
	double duration;	/* the measurement window */
	double warmup;		/* between the join and the window */
	double join_rate;	/* bots started per second */
	double join_timeout;	/* longest join phase */
	double tick;		/* sends due within this are batched */
	const char *map_path;
	bool have_checksum;
	uint32_t checksum2;
	enum qwb_behaviour behaviour;
	const char *actions[QWB_MAX_ACTION_FILES];
	int nactions;
	struct qwt_walker_params walker;
	int match_spawn;	/* replay: kills allowed to reach the spawn */
	bool replay_loop;	/* at the end of a stream: again, or idle */
	uint64_t seed;
	enum qwb_qwdx qwdx;
	bool source_set;
	uint32_t source_ip;	/* host order; 0: any */
	int source_count;	/* consecutive addresses from source_ip */
	const char *name_prefix;
	int client_rate;	/* the userinfo "rate" */
	const char *userinfo_extra;
	int track_entities;	/* bots keeping entity state */
	const char *json_path, *csv_path, *series_path;
	double series_interval;	/* seconds per --series row (1) */
	const char *record_path;
	int record_bot;
	int server_pid;		/* 0: none */
	int progress;		/* -1: when stderr is a terminal */
	bool quiet;
	bool verbose;		/* the servers' prints and the bots' states */
	/* --from-pcap */
	const char *pcap_path, *out_path;
	int client_port;	/* 0: find the client by its connect */
	const char *check_path;
};

void qwb_config_defaults(struct qwb_config *cfg);
/* Returns 0, or -1 with a message in err (the caller prints the usage). */
int qwb_args_parse(struct qwb_config *cfg, int argc, char **argv, char *err,
		   size_t errsize);
void qwb_usage(FILE *f);

/* ---- pcap -------------------------------------------------------------- */

struct qwb_pcap_stats {
	uint64_t frames;		/* records in the capture */
	uint64_t udp;			/* IPv4 UDP datagrams */
	uint64_t skipped;		/* not IPv4/UDP, fragments, cut */
	uint64_t client_packets;	/* netchan, client to server */
	uint64_t server_packets;	/* server to client */
	uint64_t moves;			/* clc_move messages read */
	uint64_t commands;		/* commands written */
	uint64_t recovered;		/* taken from a move's older copies */
	uint64_t lost;			/* commands missing for good */
	uint64_t duplicates;		/* old or repeated sequences */
	uint64_t bad_checksum;		/* moves a server would ignore */
	uint64_t bad_messages;		/* unreadable client messages */
	uint64_t before_begin;		/* moves of the signon, not kept */
	bool saw_begin;
};

/* Read a capture (anything libpcap reads: tcpdump -w, pcapng) and turn
 * the client's moves into out.  client_port 0: the client is the sender
 * of the first connectionless "getchallenge" or "connect".  Returns 0, or
 * -1 with err set. */
int qwb_pcap_extract(const char *path, int client_port,
		     struct actions *out, struct qwb_pcap_stats *st,
		     char *err, size_t errsize);

/* ---- the run ----------------------------------------------------------- */

/* Run the bots as configured, write the outputs, return the exit status
 * (0: every bot reached the game; 1: not all did; 2: set-up error; 3: all
 * reached the game but the server dropped some).  *stop (a signal flag)
 * ends the run early, still writing the outputs. */
int qwb_run(const struct qwb_config *cfg, const volatile sig_atomic_t *stop);

/* Outputs (metrics.c). */
struct qwb_report {
	const struct qwb_config *cfg;
	const char *map;		/* the map name */
	const char *started;		/* ISO time of the start */
	int qwdx;			/* extension asked */
	double join_phase_s;		/* start to the window */
	double window_start_unix;	/* the window on the wall clock, for */
	double window_end_unix;		/* matching the server's own figures */
	double cpu_user_s, cpu_sys_s;	/* ours, over the window */
	double server_cpu_s;		/* -1: not measured */
	int nsockets;
	uint64_t foreign;		/* datagrams from other addresses */
	uint64_t unroutable;		/* to no bot's address */
	uint64_t send_errors, send_calls, recv_calls;
	const char *const *action_files;
	int nactions;
};

int qwb_write_json(FILE *f, const struct qwb_report *r,
		   const struct qwb_bot_stats *b, int n,
		   const struct qwb_totals *t);
int qwb_write_csv(FILE *f, const struct qwb_bot_stats *b, int n,
		  const struct qwb_totals *t);
/* one progress line (no newline) into out */
void qwb_progress_line(char *out, size_t outsize, double t, const char *phase,
		       int in_game, int bots, double req_s, double rep_s,
		       const struct qwd_hist *interval, double in_bps,
		       double out_bps, uint64_t bad);

#endif
