/*
 * qwd/server.h -- the dedicated server as a whole: start it, give it a
 * level, turn its loop, stop it.  What the qwd binary (src/server/main.c)
 * needs; the server's state is src/server/state.h, and what its layers
 * share their own headers (base.h, core.h, hooks.h, one per feature:
 * docs/ARCHITECTURE.md, "Inside the server").
 *
 * Design note
 *   The frame (server_frame, src/server/frame.c), as the studies measure it:
 *     WORLD    advance game time: entity think/physics, relink
 *     RECEIVE  drain the socket (recvmmsg): connectionless -> oob.c,
 *              the rest -> client by address+qport -> netchan -> parse
 *     EXECUTE  each parsed move runs player physics at once; string
 *              commands run in order (signon, say, setinfo, ...)
 *     REPLY    every client that sent a request this frame gets one reply:
 *              reliable data, playerinfo of the players its PVS sees,
 *              packet entities delta-compressed against the frame it
 *              acknowledged (send.c); sendmmsg in batches
 *   Replies are client-paced, as in QuakeWorld: no request, no reply.
 *
 *   struct server is opaque here: it is large (every buffer is sized at
 *   start-up and the frame loop never allocates), and only the server's
 *   own files and the tests look inside it.
 */
#ifndef QWD_SERVER_H
#define QWD_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "qwd/common.h"
#include "qwd/net.h"

struct server;
struct net_mem;
struct prof;

/* A server with no socket and no clock of its own, driven in-process (the
 * frame benchmark, tools/framebench): it reads its datagrams from `in`
 * (net_mem, qwd/net.h), queues everything it sends into `out`, and its
 * time is `now`, which the driver sets before server_create and advances
 * between frames.  server_frame then never waits (no select, no
 * sys_ticrate sleep) and the console is not read.  The load (overload.c)
 * is measured on that clock too: a frame takes no time on it, so no join
 * is refused and no player let go for load. */
struct server_link {
	struct net_mem *in;
	struct net_mem *out;
	double now;
};

struct server_options {
	const char *basedir;
	const char *gamedir;
	const char *ip;
	int port;		/* < 0: 27500; 0: any free port */
	int maxclients;
	bool counters;		/* -counters: open perf_event counters */
	int counter_sample;	/* -countersample N: read them in one frame
				 * of N (0: every 8th) */
	bool notimers;		/* -notimers: the phase timers off */
	const char *stats_path;	/* -stats FILE: JSON lines per interval */
	double stats_interval;	/* seconds, <= 0: 10 */
	bool stats_console;	/* the one-line report on the console */
	bool quiet;		/* log warnings and errors only */
	int threads;		/* -threads N: the reply phase's workers
				 * (<= 1: the sequential frame, no thread) */
	bool threads_auto;	/* -threads auto: a pool of threads_max
				 * (<= 0: the online CPUs) workers, as many
				 * active as predicted (threads unused) */
	int threads_max;
	const int *cpus;	/* -cpus LIST: CPUs to pin them to (the
				 * frame's thread to the first), or NULL */
	int num_cpus;
	const char *metrics;	/* -metrics ADDR:PORT or PORT: the
				 * Prometheus endpoint (qwd/metrics.h),
				 * loopback when no ADDR; NULL: off */
	int agones_port;	/* the Agones SDK sidecar's HTTP port
				 * (AGONES_SDK_HTTP_PORT, -agones PORT);
				 * 0: off */
	uint64_t seed;		/* the game's random state at start (-seed N;
				 * qwd gives an unpredictable one unless told):
				 * 0 is the game's constant, so in-process
				 * drivers and tests repeat their games */
	enum net_path net;	/* -net select|uring|auto: the socket's
				 * path (auto: io_uring when granted) */
	struct server_link *link;	/* NULL: the socket and the real clock;
					 * else see struct server_link (kept by
					 * the caller for the server's life) */
};

/* A server (socket, buffers, cvars); no level yet.  NULL with the reason
 * logged. */
struct server *server_create(const struct server_options *opt);
/* Tell the clients, close everything, free (NULL: nothing). */
void server_destroy(struct server *sv);

/* Load a level by map name ("small" -> maps/small.bsp under the base and
 * game directories, or a path ending in .bsp).  On a refused map the
 * current level (if any) stays and -1 is returned with the message in err. */
int server_map(struct server *sv, const char *name, char *err, size_t errlen);

/* Before the first frame: read console commands from fd (-1: none), and
 * start the figures now (loading the level is not the first frame's
 * wait). */
void server_begin(struct server *sv, int console_fd);

/* One turn of the loop: wait up to `wait` seconds for packets, then world,
 * receive+execute, reply.  The frame's replies have left when it returns
 * (unless server_defer_sends). */
void server_frame(struct server *sv, double wait);
/* The caller calls server_frame again at once, in a loop (qwd's main):
 * on the io_uring path a frame's replies may then go out with the next
 * frame's wait, one system call for both.  Off by default, for drivers
 * that read the replies between frames (tests, fuzzers). */
void server_defer_sends(struct server *sv, bool on);

/* Run a console or rcon command line; output goes to out. */
void server_command(struct server *sv, const char *line, FILE *out);

/* The "quit" command ran: the loop should end. */
bool server_quitting(const struct server *sv);
/* The process is stopping (a signal): why ("SIGTERM") is told to the
 * clients at shutdown.  false when a reason was given already. */
bool server_stop(struct server *sv, const char *why);
/* the server's log */
const struct qwd_log *server_log(const struct server *sv);
/* its phase timers and figures (qwd/prof.h), for a driver that reads them
 * frame by frame */
struct prof *server_prof(struct server *sv);

/* The schedule of a parallel frame, measured on this sequential one
 * (src/server/sched.c, docs/parallel.md): off by default.  On, every
 * frame joins the action lists of the clients whose moves ran (the
 * entities within their move's reach and, when they fire, along their
 * line of fire) by union-find into jobs. */
struct server_sched_job {
	int clients;		/* clients whose moves are in it */
	int entities;		/* distinct entities in their action lists */
	int firing;		/* of its clients, those that fire */
	uint64_t cost_ns;	/* the time their moves took in this frame */
};
struct server_sched_frame {
	int clients;		/* clients whose moves ran in the frame */
	bool global;		/* a command acted anywhere: one job
				   (but under SERVER_SCHED_LOCAL) */
	int jobs;
	const struct server_sched_job *job;	/* jobs entries, the server's */
};
/* what a shot joins (docs/parallel.md) */
enum server_sched_rule {
	SERVER_SCHED_SHOTS,	/* the rule: its line of fire, and every
				   shot of the frame one job */
	SERVER_SCHED_LINES,	/* its line of fire only (shots apart) */
	SERVER_SCHED_MOVES,	/* nothing: as if nobody fired (a bound) */
	SERVER_SCHED_LOCAL,	/* as moves, and what acts anywhere joins
				   nothing either: the move ranges alone,
				   the study's measure (a bound) */
	SERVER_SCHED_RULES
};
void server_sched_enable(struct server *sv, bool on, enum server_sched_rule rule);
/* "shots", "lines", "moves", "local" */
const char *server_sched_rule_name(enum server_sched_rule rule);
/* the last frame's schedule (valid until the next frame) */
void server_sched_last(const struct server *sv, struct server_sched_frame *out);

/* The parallel EXECUTE's figures since start (qwd -threads N,
 * docs/parallel.md "EXECUTE on workers").  Its time, by step: the
 * schedule (of every segment, scheduled or not), the workers' run (wall,
 * to the barrier), COMMIT (placing, grid, the calls' replay), the shared
 * job, and the segments run in arrival order. */
enum server_exec_step {
	SERVER_EXEC_SCHEDULE, SERVER_EXEC_PARALLEL, SERVER_EXEC_COMMIT,
	SERVER_EXEC_SHARED, SERVER_EXEC_ARRIVAL, SERVER_EXEC_STEPS
};
struct server_exec_stats {
	uint64_t ns[SERVER_EXEC_STEPS];
	uint64_t parallel;	/* segments run on the workers */
	uint64_t sequential;	/* segments run in arrival order */
	uint64_t skipped;	/* of them, not scheduled (it did not pay) */
	uint64_t jobs;		/* local jobs of the parallel segments */
	uint64_t local_moves, shared_moves;	/* of the parallel ones */
	uint64_t outside;	/* a local mover left its region */
	uint64_t escapes;	/* a local move reached shared state */
	uint64_t calls_lost;	/* game calls a full queue lost */
	/* speculative moves (sv_threads_execute 3): segments, first steps
	 * speculated (and moves not run ahead: sv_threads_spec_rest), and at
 * their turn taken, run again for their input,
	 * run again for the world; notes of the change log, and segments
	 * whose log filled */
	uint64_t spec_segments, spec_moves, spec_rested;
	uint64_t spec_hits, spec_inputs, spec_world;
	uint64_t spec_noted, spec_overflows;
	/* pipelined (sv_threads_execute 4): segments, turns that waited for
	 * the worker running their step, turns whose step no worker had
	 * taken (run in the turn, as the sequential frame), and waits given
	 * up (the worker was not running: the step ran in the turn) */
	uint64_t pipe_segments, pipe_waits, pipe_own, pipe_gave_up;
};
void server_exec_stats(const struct server *sv, struct server_exec_stats *out);
/* h chained with the game's state: every entity in use (number,
 * origin, velocity, angles, frame, health, armour, items, weapon,
 * solid) and every player's frags, ammo and powerup times; for tests
 * that compare two runs frame by frame (-threads 1 against N). */
uint64_t server_state_hash(const struct server *sv, uint64_t h);

/* monotonic seconds */
double server_clock(void);

#endif
