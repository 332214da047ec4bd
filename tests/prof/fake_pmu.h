/*
 * fake_pmu.h -- a simulated PMU and clock behind struct prof_perf_ops.
 *
 * Design note: the fake keeps a simulated time (also the profiler's clock)
 * and, per open event, a count that grows at a rate chosen per event and
 * per phase of the simulated program.  It models what the profiler must
 * cope with: events the CPU lacks (ENOENT/EOPNOTSUPP), groups that outgrow
 * the PMU (EINVAL at open, as x86's group validation does), kernel-mode
 * counting refused (EACCES unless exclude_kernel), and more enabled
 * hardware events than counters: then each enabled hardware group runs a
 * 1/n share of the time (round robin, like the kernel's rotation), so
 * time_running < time_enabled and the counts are short by that share.
 */
#ifndef QWD_TESTS_FAKE_PMU_H
#define QWD_TESTS_FAKE_PMU_H

#include <qwd/prof.h>

enum { FAKE_MAX_EVENTS = 64, FAKE_FD_BASE = 1000 };

struct fake_event {
	bool used;
	int ev;			/* enum prof_event */
	int leader;		/* index of the group leader (itself if leader) */
	int members[PROF_GROUP_MAX];	/* leader only: indexes, join order */
	int nmembers;
	bool enabled;		/* leader only: the group's state */
	bool hw;
	double count;
	double enabled_ns, running_ns;	/* leader only */
	struct perf_event_attr attr;
};

struct fake_pmu {
	uint64_t now;			/* ns, also the profiler's clock */
	int hw_counters;		/* 0: no PMU at all (ENOENT) */
	uint32_t unsupported;		/* events refused with unsupported_errno */
	int unsupported_errno;
	bool deny_kernel;		/* EACCES unless exclude_kernel */
	int sw_errno;			/* nonzero: software events refused */
	double forced_share;		/* >0: hw groups run this share anyway */
	bool short_reads;		/* read returns 8 bytes */
	double rate[PROF_EVENTS][PROF_PHASES];	/* events per ns */
	int phase;

	struct fake_event events[FAKE_MAX_EVENTS];
	int opens, open_fails, reads, ioctls, closes, open_fds;
	int bad_attr;			/* opens with attributes we never send */
	int max_hw_enabled;		/* most hw groups enabled at once */
};

void fake_pmu_init(struct fake_pmu *f);
/* advance simulated time in the current phase */
void fake_pmu_advance(struct fake_pmu *f, uint64_t ns);
/* reset max_hw_enabled to the number enabled now */
void fake_pmu_mark(struct fake_pmu *f);
int fake_pmu_hw_enabled(const struct fake_pmu *f);
/* ops and clock bound to f */
struct prof_perf_ops fake_pmu_ops(struct fake_pmu *f);
struct prof_clock fake_pmu_clock(struct fake_pmu *f);
/* sensible rates: IPC etc. differ per phase */
void fake_pmu_default_rates(struct fake_pmu *f);

/* A log sink that keeps lines, for "said once" checks. */
struct log_capture {
	int lines;
	int warn_lines;
	char text[4096];
};
void log_capture_sink(void *ctx, int level, const char *line);
/* lines containing needle */
int log_capture_count(const struct log_capture *c, const char *needle);

/* A minimal JSON checker: the whole text is one valid JSON value
 * (objects, arrays, strings without escapes beyond \" and \\, numbers,
 * true, false, null). */
bool json_text_valid(const char *text);
/* The text of the value at a dotted path ("a.b.c") in an object, copied
 * into out; false when absent. */
bool json_text_get(const char *text, const char *path, char *out, size_t size);
/* the number at path, or NAN (absent or null) */
double json_text_num(const char *text, const char *path);

#endif
