/*
 * qwd/prof.h -- what the server spends its time on: phase timers,
 * histograms, hardware and software counters, and the stats output.
 *
 * Design note
 *   The 2001 QuakeWorld study reports the execution-time breakdown of the
 *   frame (world, receive+parse, execute, reply, idle), request processing
 *   time, requests per frame, message sizes, and EMON hardware counters
 *   (IPC 0.416, 14% branch mispredictions, cache miss rates, 25% of cycles
 *   stalled).  This module measures the same figures in qwd:
 *
 *   - Phase accounting.  The frame is a sequence of phases; prof_switch()
 *     closes the phase in effect and opens the next, reading the clock once
 *     (CLOCK_MONOTONIC through the vDSO) and, when counters are on, the
 *     counter groups once.  Every nanosecond between two calls belongs to
 *     exactly one phase, so the shares add up to 100% of wall time.
 *   - Histograms: the project's one histogram (struct qwd_hist,
 *     qwd/common.h), log-linear, so a reported percentile is within
 *     1/128 (0.8%) of the exact one; the load generators use the same, so
 *     the server's and the clients' p99 of the same times agree.
 *   - Counters.  perf_event groups read with PERF_FORMAT_GROUP at every
 *     counter-phase boundary, scaled by time_enabled/time_running, and
 *     extrapolated over the phase time they did not cover.  Where the PMU
 *     holds fewer counters than the groups need, one hardware group is
 *     enabled per frame in turn ("rotating"), and the output says so.
 *     Where the CPU (or the VM) has no hardware events, one log line says
 *     so, and the software events and timers carry on.
 *   - Three scopes: the frame in progress, the interval (every interval_s
 *     seconds it is closed: one JSON line to the stats file, one console
 *     line if enabled), and the total since start or the last reset.
 *
 *   All memory is allocated by prof_create (about 125 KB plus 32 bytes per
 *   client slot); nothing on the frame path allocates, locks or does I/O,
 *   except prof_periodic()/prof_interval_close() which write one line per
 *   interval.  The counters' file descriptors are opened by
 *   prof_counters_set(p, true) and closed by prof_counters_set(p, false).
 *
 * Where the server calls what (src/server/frame.c and friends)
 *
 *   start-up   p = prof_create(&cfg)  (cfg.counters from -counters,
 *              cfg.max_clients = maxclients, cfg.log = &sv->log);
 *              prof_set_stats_file(p, f) for -stats FILE;
 *              prof_reset(p) just before the first frame if loading the
 *              map came in between (else it is the first frame's idle).
 *   frame      server_frame(sv, wait):
 *                  select(...)                      <- IDLE (already open)
 *                  prof_switch(p, PROF_WORLD);      world update
 *                  prof_switch(p, PROF_RECEIVE);    recvmmsg loop:
 *                      n = net_udp_recv_batch(...);
 *                      t = prof_now(p);             batch receive time
 *                      per packet a client's netchan accepts:
 *                          prof_request(p, slot, len);
 *                          if it is the client's first request this
 *                          frame, keep t in the client (the request
 *                          time is measured from it);
 *                          parse; around each move/command executed:
 *                          prof_switch(p, PROF_EXECUTE) ...
 *                          prof_switch(p, PROF_RECEIVE)
 *                      (connectionless packets count only in the
 *                      network totals)
 *                  prof_switch(p, PROF_REPLY);      sv_send_replies:
 *                      per reply queued (after net_send_commit):
 *                          prof_reply(p, slot, len);
 *                          prof_request_done(p, t_first, prof_now(p));
 *                          (one per reply: the longest-waiting request)
 *                  upkeep, console (suggested: PROF_WORLD, housekeeping)
 *                  prof_net_totals(p, net.packets_in, net.bytes_in,
 *                                  net.packets_out, net.bytes_out);
 *                  prof_frame_end(p);               reopens IDLE
 *                  prof_periodic(p);                once per interval:
 *                                                   JSON line + console line
 *   connect    prof_client_reset(p, slot) when a slot gets a new client.
 *   commands   "stats ..." and "counters ..." (console and rcon,
 *              src/server/profcmd.c): the setters, prof_get_stats,
 *              prof_get_settings and the formatters below.
 *   shutdown   prof_interval_close(p) (writes the last, partial interval),
 *              then prof_destroy(p); the server closes its stats FILE.
 *
 *   A frame therefore starts where the previous prof_frame_end() was
 *   called, with the idle wait, and ends at its own prof_frame_end().
 *   Counters count this thread only (pid 0, cpu -1), kernel time included
 *   when the kernel allows it (so recvmmsg/sendmmsg are in the figures).
 *   Two switches per packet cost two clock reads with counters off (tens
 *   of nanoseconds, see the benchmark in tests/prof/); with counters on,
 *   each switch that changes the counter phase also costs one read(2) per
 *   enabled group (about 1 us per group on the project's VMs).  To keep
 *   that off the per-packet path, cfg.counters_merge_rx_exec (or the
 *   command "counters merge on") counts RECEIVE and EXECUTE as one counter
 *   phase ("receive" in the counter output; the timers still split them).
 *
 * The stats file: JSON lines, schema "qwd-stats/1"; one object per
 * interval, fields documented at prof_write_json() below and in
 * docs/instrumentation.md.
 */
#ifndef QWD_PROF_H
#define QWD_PROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/perf_event.h>

#include "qwd/common.h"

/* ---- phases ----------------------------------------------------------- */

enum prof_phase {
	PROF_WORLD = 0,		/* game time, movers, housekeeping */
	PROF_RECEIVE,		/* recvmmsg, netchan, parsing */
	PROF_EXECUTE,		/* moves (player physics), string commands */
	PROF_REPLY,		/* building and sending replies */
	PROF_IDLE,		/* waiting in select() */
	PROF_PHASES
};

/* "world", "receive", "execute", "reply", "idle"; "?" out of range */
const char *prof_phase_name(int phase);

/* ---- counters: events and the perf_event seam ------------------------- */

enum prof_event {
	PROF_EV_CYCLES = 0,
	PROF_EV_INSTRUCTIONS,
	PROF_EV_BRANCHES,
	PROF_EV_BRANCH_MISSES,
	PROF_EV_L1D_MISSES,		/* L1D read misses (HW_CACHE) */
	PROF_EV_L1I_MISSES,		/* L1I read misses (HW_CACHE) */
	PROF_EV_LLC_MISSES,		/* LLC read misses (HW_CACHE) */
	PROF_EV_STALLED_FRONTEND,
	PROF_EV_STALLED_BACKEND,
	PROF_EV_TASK_CLOCK,		/* software: ns on a CPU */
	PROF_EV_CONTEXT_SWITCHES,	/* software */
	PROF_EV_PAGE_FAULTS,		/* software */
	PROF_EVENTS
};

/* "cycles", "instructions", ... (perf's names); "?" out of range */
const char *prof_event_name(int ev);
/* the perf_event_attr type and config of an event */
void prof_event_attr(int ev, uint32_t *type, uint64_t *config);

/* The groups, in the order they are opened and rotated.  Each ratio is
 * taken inside one group, so it stays exact when groups rotate:
 *   A  cycles, instructions, branches, branch-misses     IPC, miss rate
 *   B  instructions, L1D, L1I, LLC read misses           MPKI
 *   C  cycles, stalled-cycles-frontend, -backend         stall shares
 *   S  task-clock, context-switches, page-faults         (software)   */
enum prof_group {
	PROF_GROUP_A = 0,
	PROF_GROUP_B,
	PROF_GROUP_C,
	PROF_GROUP_SW,
	PROF_GROUPS
};
#define PROF_GROUP_MAX 4	/* events in the largest group */

/* The system calls the counters use, replaceable for tests (a fake PMU).
 * Each has the system call's contract: -1 with errno set on failure.
 * ioctl's arg is an integer or a pointer cast to uintptr_t. */
struct prof_perf_ops {
	int (*open)(void *ctx, struct perf_event_attr *attr, int pid, int cpu,
		    int group_fd, unsigned long flags);
	long (*read)(void *ctx, int fd, void *buf, size_t len);
	int (*ioctl)(void *ctx, int fd, unsigned long request, uintptr_t arg);
	int (*close)(void *ctx, int fd);
	void *ctx;
};

/* the real system calls (ctx unused) */
extern const struct prof_perf_ops prof_perf_syscalls;

/* ---- the profiler ----------------------------------------------------- */

/* Clocks in nanoseconds; NULL functions mean CLOCK_MONOTONIC and
 * CLOCK_REALTIME.  Tests pass a fake to drive time. */
struct prof_clock {
	uint64_t (*mono_ns)(void *ctx);
	uint64_t (*wall_ns)(void *ctx);
	void *ctx;
};

struct prof_config {
	const struct qwd_log *log;	/* NULL: stderr */
	int max_clients;		/* per-client slots, 0..4096 */
	double interval_s;		/* report interval; <= 0: 10 s */
	bool report_console;		/* log the one-line report each interval */
	bool counters;			/* open the counters now (-counters) */
	bool counters_merge_rx_exec;	/* one counter phase for both */
	int rotate_frames;		/* frames per hardware group; <= 0: 1 */
	int counter_sample;		/* read the counters in one frame of
					 * this many; <= 0: 1, every frame */
	struct prof_clock clock;
	const struct prof_perf_ops *perf;	/* NULL: prof_perf_syscalls */
};

struct prof;

/* NULL when out of memory.  With cfg->counters the counters are opened
 * (see prof_counters_set).  The first frame starts now, in PROF_IDLE. */
struct prof *prof_create(const struct prof_config *cfg);
void prof_destroy(struct prof *p);

/* the monotonic clock, ns (the injected one in tests); 0 without reading
 * it when the timers are off (prof_request_done ignores a 0) */
uint64_t prof_now(const struct prof *p);

/* Phase timers on (the default) or off (qwd -notimers, "stats timers
 * off"): off, prof_switch and prof_now return 0 without reading the
 * clock, and only prof_frame_end reads it, once per frame, so intervals
 * still close and requests, replies, sizes and traffic are still counted;
 * phase times, busy time and request times are not, and the stats say
 * "untimed".  Counters need the phase boundaries: turning the timers off
 * closes them, and they cannot be opened while the timers are off.  The
 * change takes effect at the next prof_frame_end or prof_reset.
 * prof_timers_on tells the setting asked for. */
void prof_set_timers(struct prof *p, bool on);
bool prof_timers_on(const struct prof *p);

/* Close the phase in effect and open `next`.  Returns the time read. */
uint64_t prof_switch(struct prof *p, enum prof_phase next);
/* the phase in effect (to switch back to it after a nested one) */
enum prof_phase prof_phase_now(const struct prof *p);
/* Close the frame: the phase in effect ends, the frame's record is added
 * to the interval and the total, rotation advances, and the next frame
 * starts in PROF_IDLE. */
void prof_frame_end(struct prof *p);

/* A request: a packet from the client in `slot`, accepted by its netchan
 * (bytes as received).  Counts toward requests, requests per frame and the
 * client's bandwidth in.  Slots outside 0..max_clients-1 count only in
 * the totals. */
void prof_request(struct prof *p, int slot, size_t bytes);
/* A reply of `bytes` queued for the client in `slot`. */
void prof_reply(struct prof *p, int slot, size_t bytes);
/* Request processing time: from the batch receive time of the request a
 * reply answers to the time that reply was queued.  recv_ns 0 or later
 * than reply_ns is ignored (no receive time known). */
void prof_request_done(struct prof *p, uint64_t recv_ns, uint64_t reply_ns);
/* Network totals, cumulative as the socket counts them (struct
 * net_stats); called once per frame, the module keeps the differences.
 * The first call counts from zero; a value that went down means the
 * caller zeroed its counters, and counts from zero again. */
void prof_net_totals(struct prof *p, uint64_t packets_in, uint64_t bytes_in,
		     uint64_t packets_out, uint64_t bytes_out);
/* a new client in this slot: forget the old one's bytes */
void prof_client_reset(struct prof *p, int slot);

/* Zero the interval and the total (the frame in progress restarts now). */
void prof_reset(struct prof *p);

/* ---- counters control ------------------------------------------------- */

/* Open (true) or close (false) the counter groups.  Opening logs, once per
 * profiler, what is missing ("hardware events not supported here ...");
 * it returns the number of events that are counted (0: timers only).
 * Off, no descriptor is open and a switch costs one branch more. */
int prof_counters_set(struct prof *p, bool on);
bool prof_counters_on(const struct prof *p);
void prof_counters_merge(struct prof *p, bool merge_rx_exec);
/* Read the counters at every phase boundary of one frame in `every` (1:
 * every frame); the others cost nothing, and absolute counts are
 * extrapolated over the time the read frames covered. */
void prof_counters_sample(struct prof *p, int every);
int prof_counters_sample_every(const struct prof *p);

/* ---- reading the figures ---------------------------------------------- */

/* Counter-derived figures of one phase (or of all phases); NaN where the
 * events behind a figure were not counted. */
struct prof_derived {
	double ipc;			/* instructions / cycles (group A) */
	double branch_miss_rate;	/* branch-misses / branches */
	double l1d_mpki, l1i_mpki, llc_mpki;	/* misses per 1000 instr. */
	double stall_frontend;		/* stalled-cycles-frontend / cycles */
	double stall_backend;		/* stalled-cycles-backend / cycles */
	double cpu_share;		/* task-clock / wall time */
	double cycles, instructions;	/* estimated counts (group A) */
	double context_switches, page_faults;	/* estimated counts */
};

enum prof_counter_mode {
	PROF_CTR_OFF = 0,	/* counters off during all of the scope */
	PROF_CTR_NONE,		/* on, but perf_event_open gave nothing */
	PROF_CTR_SOFTWARE,	/* software events only (no PMU: these VMs) */
	PROF_CTR_ALL,		/* hardware groups counted together */
	PROF_CTR_ROTATING	/* one hardware group per frame, in turn */
};

/* "off", "none", "software", "all", "rotating" */
const char *prof_counter_mode_name(int mode);

enum prof_scope {
	PROF_SCOPE_INTERVAL,	/* the interval in progress, to the last frame end */
	PROF_SCOPE_TOTAL,	/* since start or reset, to the last frame end */
	PROF_SCOPE_LAST		/* the last closed interval */
};

struct prof_stats {
	uint64_t seq;			/* interval number (LAST), else 0 */
	double uptime_s;		/* at the end of the scope */
	double wall_time;		/* Unix seconds at the end of the scope */
	double seconds;			/* wall time the scope covers */
	uint64_t frames;
	bool untimed;			/* frames ran with the timers off */
	uint64_t phase_ns[PROF_PHASES];
	double phase_share[PROF_PHASES];	/* of seconds; 0 if empty */
	uint64_t requests, replies;
	uint64_t packets_in, bytes_in, packets_out, bytes_out;
	struct qwd_hist_summary request_time_ns;	/* prof_request_done */
	struct qwd_hist_summary reply_bytes;	/* prof_reply */
	struct qwd_hist_summary requests_per_frame;
	struct qwd_hist_summary frame_busy_ns;	/* frame time minus idle */
	int clients_active;		/* slots with traffic in the scope */
	double client_in_Bps_mean, client_in_Bps_max;	/* over active */
	double client_out_Bps_mean, client_out_Bps_max;

	/* counters */
	int counter_mode;		/* enum prof_counter_mode */
	bool counters_user_only;	/* kernel refused: user space only */
	bool counters_merged;		/* receive figures include execute */
	uint32_t events_counted;	/* bit (1 << prof_event) */
	struct prof_derived phase[PROF_PHASES];
	struct prof_derived busy;	/* all phases but idle */
	struct prof_derived all;
};

/* Figures of a scope (computed now; a few microseconds). */
void prof_get_stats(struct prof *p, enum prof_scope scope,
		    struct prof_stats *out);
/* The histograms behind the total scope's summaries (since start or the
 * last prof_reset), for a reader that wants the distribution itself: the
 * metrics page (src/server/metrics.c) draws its Prometheus histograms
 * from them.  Request and frame times in ns, reply sizes in bytes. */
enum prof_hist_kind {
	PROF_HIST_REQUEST_TIME = 0,	/* prof_request_done */
	PROF_HIST_REPLY_BYTES,		/* prof_reply */
	PROF_HIST_REQUESTS_PER_FRAME,
	PROF_HIST_FRAME_BUSY,		/* frame time minus idle */
	PROF_HISTS
};
/* NULL for a kind out of range */
const struct qwd_hist *prof_total_hist(const struct prof *p,
				       enum prof_hist_kind kind);
/* The record of the last finished frame: ns per phase, requests, replies. */
struct prof_frame_record {
	uint64_t seq;			/* frame number, from 1 */
	uint64_t start_ns, end_ns;
	uint64_t phase_ns[PROF_PHASES];
	uint32_t requests, replies;
	int counter_group;		/* hardware group counted, -1 none/all */
};
const struct prof_frame_record *prof_last_frame(const struct prof *p);

/* ---- output ----------------------------------------------------------- */

/* The one-line report, e.g.
 *   stats 10.0s 998 fps | world 0.4% recv 2.1% exec 3.0% reply 6.2%
 *   idle 88.3% | req 3180/s 3.2/frame rep 3180/s | rt p50 85us p99 410us
 *   max 1.2ms | reply 410B avg 1380B max | in 3180 pkt/s 190 kB/s out 3180
 *   pkt/s 1.3 MB/s | ipc 0.42 br 14.0% mpki l1d 12.1 l1i 8.0 llc 0.5
 *   stall fe 12% be 25% cpu 11% [rotating]
 * (one line).  Counter figures appear when counted; "[sw only: no hw
 * counters]" or "[rotating]" say how.  snprintf's contract: returns the
 * length it wanted, buf always terminated when size > 0. */
int prof_format_line(const struct prof_stats *st, char *buf, size_t size);

/* The counter table ("counters report"): one line per phase with every
 * derived figure, then the mode; several lines, each ending in '\n'. */
int prof_format_counters(const struct prof_stats *st, char *buf, size_t size);

/* One JSON object on one line, '\n'-terminated (schema "qwd-stats/1"):
 *   schema "qwd-stats/1", seq, time (Unix s), uptime_s, interval_s, frames,
 *   phase_ns {world,receive,execute,reply,idle}, phase_share {same keys},
 *   requests, requests_per_s, replies, replies_per_s,
 *   requests_per_frame {count,mean,p50,p99,max},
 *   request_time_us {count,mean,p50,p99,max},
 *   reply_bytes {count,mean,p50,p99,max},
 *   frame_busy_us {count,mean,p50,p99,max},
 *   net {packets_in,bytes_in,packets_out,bytes_out,
 *        packets_in_per_s,bytes_in_per_s,packets_out_per_s,bytes_out_per_s},
 *   clients {active,in_Bps_mean,in_Bps_max,out_Bps_mean,out_Bps_max},
 *   counters: null when off, else {mode, user_only, merged_rx_exec,
 *        events [names], phases {world,...,idle,busy,all: {ipc,
 *        branch_miss_rate, l1d_mpki, l1i_mpki, llc_mpki, stall_frontend,
 *        stall_backend, cpu_share, cycles, instructions,
 *        context_switches, page_faults}}}
 *   A figure that was not measured is null.  Returns 0, or -1 if the
 *   write failed. */
int prof_write_json(const struct prof_stats *st, FILE *f);

/* Where prof_periodic writes the JSON lines; NULL: nowhere.  The caller
 * keeps ownership (and closes it after prof_destroy). */
void prof_set_stats_file(struct prof *p, FILE *f);
void prof_set_interval(struct prof *p, double seconds);
void prof_set_report_console(struct prof *p, bool on);

/* After prof_frame_end: when interval_s has passed since the interval
 * began, close it (prof_interval_close) and return true; otherwise one
 * comparison and false. */
bool prof_periodic(struct prof *p);
/* Close the interval now: compute its stats (then PROF_SCOPE_LAST), write
 * the JSON line to the stats file, log the one-line report if enabled,
 * and start a new interval. */
void prof_interval_close(struct prof *p);

/* What the profiler is set to, for the operator's "stats" and
 * "counters" commands (src/server/profcmd.c) and the tests. */
struct prof_settings {
	bool report_console;	/* prof_set_report_console */
	double interval_s;	/* prof_set_interval */
	bool stats_file;	/* a stats file is set */
	bool timers;		/* prof_timers_on */
	bool counters;		/* prof_counters_on */
	int counter_mode;	/* enum prof_counter_mode, now */
	char groups[32];	/* the open groups: "A B S", "" for none */
	bool user_only;		/* the kernel refused kernel-mode counting */
	bool merge;		/* receive and execute: one counter phase */
	int sample_every;	/* prof_counters_sample */
	uint64_t read_errors;	/* counter reads that failed */
};
void prof_get_settings(const struct prof *p, struct prof_settings *out);

#endif
