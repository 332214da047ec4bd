/*
 * framebench.h -- what the frame benchmark's files share: its options, a
 * run, and the figures of that run.
 *
 * Design note
 *   A run (bench.c) is a real server (server_create on a map) driven
 *   in-process through a struct server_link: N players, each a client of
 *   the protocol library (src/client, QWDX past 32 players), join through
 *   the connectionless and signon path, then every frame each player
 *   sends one request, the server runs one frame (world, receive+execute,
 *   reply) and each player reads its replies.  The datagrams go through
 *   memory queues (net_mem), never the kernel, and the server's clock is
 *   the run's: 13 ms of game time a frame, whatever the frame cost, so a
 *   seed gives the same requests, the same game and the same figures but
 *   the times.  main.c is the program (arguments, the report, JSON);
 *   bench.c is also linked into tests/framebench.
 */
#ifndef FRAMEBENCH_H
#define FRAMEBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qwd/common.h"
#include "qwd/prof.h"
#include "qwd/server.h"

enum {
	FB_MAX_PLAYERS = 2048,
	FB_MAX_LAG = 16,		/* --lag: rounds */
	FB_MAX_SPREAD = 128,		/* --spread: rounds a player's requests
					 * are apart */
	FB_PHASES = 4,		/* world, receive, execute, reply (prof's) */
	FB_SCHED_WORKERS = 5,	/* simulated: 1, 2, 4, 8, 16 workers */
	FB_MAX_SETS = 8		/* --set lines */
};

/* the worker counts of the simulation, FB_SCHED_WORKERS of them */
extern const int fb_sched_workers[FB_SCHED_WORKERS];

struct fb_config {
	const char *map;	/* "small", "large" (the bundled maps), or a
				   path to a .bsp */
	int players;
	int frames;		/* measured */
	int warmup;		/* frames after the join, not measured */
	int join_per_frame;	/* players starting to connect each frame */
	int join_frames_max;	/* a join that takes longer fails */
	uint64_t seed;
	int rate;		/* the players' "rate", bytes/s; sv_maxrate
				   is set to it */
	bool log;		/* the server's whole log (else warnings and
				   errors only) */
	int threads;		/* the server's reply workers (qwd -threads;
				   <= 1: the sequential frame) */
	const int *cpus;	/* qwd -cpus: where to pin them, or NULL */
	int num_cpus;
	bool schedule;		/* measure the schedule (server_sched_*) */
	bool quiet;		/* the walkers never fire */
	int fighters;		/* the first N players hold fire down */
	int lag;		/* replies reach the players this many rounds
				   late (0: the next round): their view is
				   that old, as a far player's */
	int spread;		/* after the join, a player sends in one round
				   of every spread (players staggered by
				   number) and a round is 13 ms / spread: each
				   still sends every 13 ms, and a server frame
				   reads about players / spread requests, as a
				   live server's frame that runs for every few
				   dozen datagrams (1: lockstep) */
	int interval_ms;	/* after the join, game time between a
				   player's requests (13: 77 a second; 33:
				   qwexp's 30) */
	int schedule_rule;	/* ... what a shot joins: enum
				   server_sched_rule */
	bool threads_auto;	/* qwd -threads auto -threads-max (threads
				   unused; docs/parallel.md) */
	int threads_max;
	const char *sets[FB_MAX_SETS];	/* console lines ("NAME VALUE") run
					   after the bench's own settings */
	int num_sets;
};

void fb_config_default(struct fb_config *c);

/* --schedule: the jobs of every measured server frame (one with moves),
 * and LPT over their measured costs as a simulation */
struct fb_schedule {
	uint64_t frames;	/* server frames with at least one job */
	uint64_t clients;	/* clients whose moves ran, all frames */
	uint64_t firing;	/* of those, firing */
	uint64_t global_frames;	/* frames made one job by a command that
				   acts anywhere (a respawn, a teleporter) */
	struct qwd_hist jobs_per_frame;
	struct qwd_hist entities_per_job;	/* the study's weight */
	struct qwd_hist clients_per_job;
	struct qwd_hist cost_per_job;		/* ns */
	/* the costliest job's share of its frame's cost, 1/10000 */
	struct qwd_hist largest_share;
	/* LPT on 2 workers: the largest load over the mean, 1/1000 */
	struct qwd_hist balance2;
	uint64_t cost_ns;	/* every job's cost, all frames */
	/* the simulated makespans, summed over the frames */
	uint64_t makespan_ns[FB_SCHED_WORKERS];
};

/* the measured frames' figures */
struct fb_result {
	char map_path[1024];	/* the file the map came from */
	int players;
	int joined;		/* reached the game */
	int in_game;		/* in the game at the end */
	int join_frames;	/* rounds the join took */
	int frames;		/* measured rounds (one request per player) */
	uint64_t server_frames;	/* server_frame calls in them: more than
				   rounds past 1024 players */

	/* players' side, over the measured frames */
	uint64_t requests;	/* moves sent by players in the game */
	uint64_t answered;	/* of those, acknowledged by a reply in the
				   same frame */
	uint64_t replies;	/* netchan packets the players accepted */
	uint64_t bad;		/* datagrams the client library rejected or
				   could not read, over the whole run */
	uint64_t dropped_datagrams;	/* memory queues full (must be 0) */

	/* server's side: qwd's own phase timers, per round and per request
	 * of the round (that round's phase time / its requests), ns */
	struct qwd_hist phase_frame[FB_PHASES];
	struct qwd_hist phase_request[FB_PHASES];
	struct qwd_hist busy_frame;	/* the four phases together */
	uint64_t phase_ns[FB_PHASES];	/* totals */
	struct prof_stats prof;	/* prof_get_stats over the measured frames */

	/* clocks around the server's frames only, and around the whole
	 * measured loop (the players' work included) */
	double frame_wall_s, frame_cpu_s;
	double loop_wall_s, loop_cpu_s;

	/* the world at the end: every player's slot and origin (as its own
	 * client last saw it) hashed; equal for equal seeds */
	uint64_t digest;
	int32_t first_origin[3];	/* player 0's, 1/8 units */
	/* every netchan datagram each player was sent (replies, byte for
	 * byte), with the round it came in, hashed per player, and the
	 * players' hashes in order: equal for equal options whatever the
	 * server's threads (docs/parallel.md).  The connectionless answers
	 * are left out: the challenge in them is random in every run. */
	uint64_t reply_digest;
	/* the game's state (every entity in use: origin, velocity, health,
	 * frags, items...) after every server frame, chained: equal for
	 * -threads 1 and N when the parallel frame plays the sequential
	 * one's game (docs/parallel.md) */
	uint64_t state_digest;
	struct server_exec_stats exec;	/* the parallel EXECUTE's figures,
					 * over the measured frames */

	struct fb_schedule sched;	/* with c->schedule */
	/* the server's "threads" line at the end (the predicted pool's
	 * size, need, changes) */
	char threads[192];
};

/* Run c; 0, or -1 with the reason in err.  r is large (histograms):
 * allocate it. */
int fb_run(const struct fb_config *c, struct fb_result *r, char *err,
	   size_t errsize);

/* "world", "receive", "execute", "reply" */
const char *fb_phase_name(int phase);

#endif
