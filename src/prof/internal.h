/*
 * internal.h -- the profiler's state, shared by the files of src/prof/.
 *
 * Design note
 *   struct prof is opaque to the rest of qwd.  It holds three accumulators
 *   (the frame in progress, the interval, the total); each is plain data
 *   sized at prof_create, so closing a frame or an interval only adds and
 *   clears memory.  Counter values are kept per (group, member, phase) with
 *   the phase time each group covered, so that a figure is always a ratio
 *   of two counts of the same group, extrapolated over the same time.
 */
#ifndef QWD_PROF_INTERNAL_H
#define QWD_PROF_INTERNAL_H

#include "qwd/prof.h"

/* Counter sums of a scope.  value: scaled counts; covered_ns: phase time
 * during which the group was counting (extrapolation base); counted: bit m
 * set when member m delivered a value in this scope. */
struct prof_ctr_acc {
	double value[PROF_GROUPS][PROF_GROUP_MAX][PROF_PHASES];
	uint64_t covered_ns[PROF_GROUPS][PROF_PHASES];
	uint32_t counted[PROF_GROUPS];
	bool on;		/* counters were on at some time */
	bool hw;		/* a hardware group delivered values */
	bool rotating;		/* groups rotated at some time */
	bool user_only;
	bool merged;		/* receive and execute shared a counter phase */
};

struct prof_acc {
	uint64_t start_ns;
	uint64_t frames;
	uint64_t phase_ns[PROF_PHASES];
	uint64_t requests, replies;
	uint64_t packets_in, bytes_in, packets_out, bytes_out;
	struct qwd_hist request_time, reply_bytes, per_frame, frame_busy;
	bool untimed;		/* a frame of the scope ran with timers off */
	uint64_t *client_in, *client_out;	/* max_clients each */
	struct prof_ctr_acc ctr;
};

/* One perf_event group as opened. */
struct prof_ctr_group {
	int fd[PROF_GROUP_MAX];		/* -1: not open */
	int err[PROF_GROUP_MAX];	/* errno of a failed open */
	int leader;			/* member index, -1: group not open */
	int nopen;
	bool enabled;
	uint64_t last[PROF_GROUP_MAX];	/* raw values at the last read */
	uint64_t last_enabled, last_running;
	/* since the groups were enabled together: to see multiplexing */
	uint64_t sum_enabled, sum_running;
};

struct prof_counters {
	const struct prof_perf_ops *ops;
	bool on;
	bool user_only;		/* the kernel refused kernel-mode counting */
	bool hw;		/* a hardware group is open */
	bool rotating;		/* one hardware group at a time */
	bool need_rotation;	/* multiplexing seen: rotate from now on */
	bool merge;		/* receive and execute: one counter phase */
	int active;		/* the enabled hardware group when rotating */
	int frames_in_group;
	int rotate_frames;
	/* sampling: the boundaries of one frame in sample_every are read
	 * (a rebase read ends the frame before it); the rest cost nothing */
	int sample_every;
	uint64_t frame_no;
	bool sampling;		/* this frame's boundaries are read */
	int phase;		/* counter phase in effect */
	uint64_t phase_start;
	uint64_t read_errors;
	bool told_missing, told_rotating, told_user_only;
	struct prof_ctr_group g[PROF_GROUPS];
};

struct prof {
	struct prof_clock clock;
	const struct qwd_log *log;
	int max_clients;
	uint64_t interval_ns;
	bool report_console;
	FILE *stats_file;

	/* Phase timers (prof_set_timers): off, prof_switch and prof_now
	 * return at once without reading the clock; timers_want is applied
	 * at the next frame end or reset, so a frame is timed whole or not
	 * at all. */
	bool timers, timers_want;

	uint64_t created_ns;
	uint64_t last_frame_end;	/* end of the last finished frame */
	enum prof_phase phase;		/* phase in effect */
	uint64_t phase_start;

	struct prof_frame_record cur, last;
	struct prof_ctr_acc cur_ctr;	/* counter deltas of the frame */
	uint64_t frame_seq;

	uint64_t net_last[4];		/* last cumulative network totals */
	bool net_seen;

	struct prof_acc interval, total;
	struct prof_stats last_stats;	/* the last closed interval */
	uint64_t interval_seq;

	struct prof_counters ctr;
	bool told_write_error;
	uint64_t *client_mem;		/* backing store of the four arrays */
};

/* prof.c: the clock, whether the timers are on or not */
uint64_t prof_clock_ns(const struct prof *p);

/* counters.c */
void prof_ctr_init(struct prof *p, const struct prof_perf_ops *ops,
		   int rotate_frames, bool merge, int sample_every);
/* the counter phase of a timer phase */
int prof_ctr_phase_of(const struct prof_counters *c, int phase);
/* A boundary at `now` into timer phase `next`: read the enabled groups and
 * charge the deltas to the counter phase in effect, when the counter
 * phase changes or force is set. */
void prof_ctr_boundary(struct prof *p, int next, uint64_t now, bool force);
/* read every enabled group and drop the deltas (after a reset) */
void prof_ctr_rebase(struct prof *p, uint64_t now);
/* at the end of a frame: advance rotation */
void prof_ctr_frame_end(struct prof *p);
/* member index of event ev in group g, or -1 */
int prof_group_member(int g, int ev);
int prof_group_size(int g);
int prof_group_event(int g, int m);
/* figures of a set of phases (bit per phase) from a scope's sums */
void prof_ctr_derive(const struct prof_ctr_acc *acc,
		     const uint64_t phase_ns[PROF_PHASES], unsigned phases,
		     struct prof_derived *out);
void prof_ctr_acc_add(struct prof_ctr_acc *dst, const struct prof_ctr_acc *src);
void prof_ctr_acc_clear(struct prof_ctr_acc *acc);
/* names of the open groups, for the reports: "A B S" */
const char *prof_ctr_groups_open(const struct prof *p, char *buf, size_t size);

#endif
