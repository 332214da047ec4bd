/*
 * counters.c -- perf_event counter groups: open, read per phase, scale,
 * rotate, derive.
 *
 * Design note
 *   Four groups (see prof.h): three of hardware events, one of software
 *   events.  A group is opened member by member with perf_event_open
 *   (pid 0, cpu -1: this thread on any CPU); the first member that opens is
 *   the leader, opened disabled, the others join it, so the kernel
 *   schedules the group as a whole and one read(2) with PERF_FORMAT_GROUP
 *   returns {nr, time_enabled, time_running, value[nr]} with the values in
 *   the order the members joined.  A member the CPU does not have (ENOENT,
 *   EOPNOTSUPP; EINVAL when the group outgrows the PMU) is left out and
 *   named once in the log; a group none of whose members opened is absent.
 *   The kernel refuses kernel-mode counting to unprivileged users under
 *   perf_event_paranoid >= 2 (EACCES): then everything is reopened with
 *   exclude_kernel and the output says "user space only".
 *
 *   At every counter-phase boundary each enabled group is read once; the
 *   difference to the last read is charged to the phase that ended,
 *   scaled by d(time_enabled)/d(time_running) when the kernel multiplexed
 *   the group during it, and the phase's wall time is added to the group's
 *   covered time.  A figure of a phase is a ratio of two members of one
 *   group; an absolute count is extrapolated as value * phase time /
 *   covered time.  That is what makes rotation sound: when the groups do
 *   not fit in the PMU together (time_running < 99% of time_enabled, seen
 *   over all reads since they were enabled), only one hardware group is
 *   enabled per frame, in turn, and each keeps exact ratios for the frames
 *   it covered.  Per-phase reads would otherwise see a group that the
 *   kernel's 1-4 ms multiplexing tick happened not to schedule, and get
 *   nothing to scale.
 *
 *   Everything goes through struct prof_perf_ops so the tests drive the
 *   whole logic with a fake PMU; nothing here allocates.
 */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bsd/string.h>

/* ---- events and groups ------------------------------------------------ */

static const char *const event_names[PROF_EVENTS] = {
	"cycles",
	"instructions",
	"branches",
	"branch-misses",
	"L1-dcache-load-misses",
	"L1-icache-load-misses",
	"LLC-load-misses",
	"stalled-cycles-frontend",
	"stalled-cycles-backend",
	"task-clock",
	"context-switches",
	"page-faults",
};

#define CACHE_READ_MISS(id) \
	((uint64_t)(id) | ((uint64_t)PERF_COUNT_HW_CACHE_OP_READ << 8) | \
	 ((uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16))

static const struct {
	uint32_t type;
	uint64_t config;
} event_attrs[PROF_EVENTS] = {
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
	{PERF_TYPE_HW_CACHE, CACHE_READ_MISS(PERF_COUNT_HW_CACHE_L1D)},
	{PERF_TYPE_HW_CACHE, CACHE_READ_MISS(PERF_COUNT_HW_CACHE_L1I)},
	{PERF_TYPE_HW_CACHE, CACHE_READ_MISS(PERF_COUNT_HW_CACHE_LL)},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
	{PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
	{PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
	{PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
};

/* -1 ends a group */
static const int group_events[PROF_GROUPS][PROF_GROUP_MAX] = {
	[PROF_GROUP_A] = {PROF_EV_CYCLES, PROF_EV_INSTRUCTIONS, PROF_EV_BRANCHES,
			  PROF_EV_BRANCH_MISSES},
	[PROF_GROUP_B] = {PROF_EV_INSTRUCTIONS, PROF_EV_L1D_MISSES,
			  PROF_EV_L1I_MISSES, PROF_EV_LLC_MISSES},
	[PROF_GROUP_C] = {PROF_EV_CYCLES, PROF_EV_STALLED_FRONTEND,
			  PROF_EV_STALLED_BACKEND, -1},
	[PROF_GROUP_SW] = {PROF_EV_TASK_CLOCK, PROF_EV_CONTEXT_SWITCHES,
			   PROF_EV_PAGE_FAULTS, -1},
};

static const char *const group_names[PROF_GROUPS] = {"A", "B", "C", "S"};

const char *prof_event_name(int ev)
{
	return ev >= 0 && ev < PROF_EVENTS ? event_names[ev] : "?";
}

void prof_event_attr(int ev, uint32_t *type, uint64_t *config)
{
	if (ev < 0 || ev >= PROF_EVENTS) {
		*type = PERF_TYPE_MAX;
		*config = 0;
		return;
	}
	*type = event_attrs[ev].type;
	*config = event_attrs[ev].config;
}

int prof_group_size(int g)
{
	int n = 0;

	while (n < PROF_GROUP_MAX && group_events[g][n] >= 0)
		n++;
	return n;
}

int prof_group_event(int g, int m)
{
	return group_events[g][m];
}

int prof_group_member(int g, int ev)
{
	for (int m = 0; m < prof_group_size(g); m++)
		if (group_events[g][m] == ev)
			return m;
	return -1;
}

static bool is_hw_group(int g)
{
	return g != PROF_GROUP_SW;
}

/* ---- the real system calls -------------------------------------------- */

static int sys_open(void *ctx, struct perf_event_attr *attr, int pid, int cpu,
		    int group_fd, unsigned long flags)
{
	(void)ctx;
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static long sys_read(void *ctx, int fd, void *buf, size_t len)
{
	(void)ctx;
	return (long)read(fd, buf, len);
}

static int sys_ioctl(void *ctx, int fd, unsigned long request, uintptr_t arg)
{
	(void)ctx;
	return ioctl(fd, request, arg);
}

static int sys_close(void *ctx, int fd)
{
	(void)ctx;
	return close(fd);
}

const struct prof_perf_ops prof_perf_syscalls = {
	sys_open, sys_read, sys_ioctl, sys_close, NULL,
};

/* ---- opening and closing ---------------------------------------------- */

void prof_ctr_init(struct prof *p, const struct prof_perf_ops *ops,
		   int rotate_frames, bool merge, int sample_every)
{
	struct prof_counters *c = &p->ctr;

	memset(c, 0, sizeof(*c));
	c->ops = ops ? ops : &prof_perf_syscalls;
	c->rotate_frames = rotate_frames > 0 ? rotate_frames : 1;
	c->sample_every = sample_every > 0 ? sample_every : 1;
	c->merge = merge;
	for (int g = 0; g < PROF_GROUPS; g++) {
		c->g[g].leader = -1;
		for (int m = 0; m < PROF_GROUP_MAX; m++)
			c->g[g].fd[m] = -1;
	}
}

/* close a group's descriptors; the open errors stay for the report */
static void close_group(struct prof_counters *c, int g)
{
	struct prof_ctr_group *gr = &c->g[g];
	int err[PROF_GROUP_MAX];

	/* members before the leader, so it is closed last */
	for (int m = PROF_GROUP_MAX - 1; m >= 0; m--)
		if (gr->fd[m] >= 0)
			c->ops->close(c->ops->ctx, gr->fd[m]);
	memcpy(err, gr->err, sizeof(err));
	memset(gr, 0, sizeof(*gr));
	memcpy(gr->err, err, sizeof(err));
	gr->leader = -1;
	for (int m = 0; m < PROF_GROUP_MAX; m++)
		gr->fd[m] = -1;
}

static void close_groups(struct prof_counters *c)
{
	for (int g = 0; g < PROF_GROUPS; g++)
		close_group(c, g);
}

static int open_member(struct prof_counters *c, struct prof_ctr_group *gr,
		       int ev)
{
	struct perf_event_attr a;
	uint64_t config;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	prof_event_attr(ev, &a.type, &config);
	a.config = config;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	/* the leader waits for the group-wide enable; members follow it */
	a.disabled = gr->leader < 0;
	a.exclude_kernel = c->user_only;
	a.exclude_hv = 1;
	return c->ops->open(c->ops->ctx, &a, 0, -1,
			    gr->leader < 0 ? -1 : gr->fd[gr->leader],
			    PERF_FLAG_FD_CLOEXEC);
}

/* Open every group; true when some open was refused for permission
 * (the caller retries with user_only). */
static bool open_groups_once(struct prof_counters *c)
{
	bool denied = false;

	for (int g = 0; g < PROF_GROUPS; g++) {
		struct prof_ctr_group *gr = &c->g[g];

		for (int m = 0; m < prof_group_size(g); m++) {
			int fd;

			errno = 0;
			fd = open_member(c, gr, group_events[g][m]);
			if (fd < 0) {
				gr->err[m] = errno ? errno : EINVAL;
				if (gr->err[m] == EACCES || gr->err[m] == EPERM)
					denied = true;
				continue;
			}
			gr->fd[m] = fd;
			if (gr->leader < 0)
				gr->leader = m;
			gr->nopen++;
		}
	}
	return denied;
}

static bool open_elsewhere(const struct prof_counters *c, int g, int ev)
{
	for (int o = 0; o < PROF_GROUPS; o++) {
		int m = prof_group_member(o, ev);

		if (o != g && m >= 0 && c->g[o].fd[m] >= 0)
			return true;
	}
	return false;
}

/* A hardware group left with only events another group counts (B with
 * its instructions but no cache events, say) adds no figure; kept, it
 * would only take turns in the rotation. */
static void drop_redundant_groups(struct prof_counters *c)
{
	for (int g = PROF_GROUPS - 1; g >= 0; g--) {
		bool adds = false;

		if (!is_hw_group(g) || c->g[g].nopen == 0)
			continue;
		for (int m = 0; m < prof_group_size(g); m++)
			if (c->g[g].fd[m] >= 0 && !open_elsewhere(c, g, group_events[g][m]))
				adds = true;
		if (!adds)
			close_group(c, g);
	}
}

static void open_groups(struct prof_counters *c)
{
	if (open_groups_once(c) && !c->user_only) {
		close_groups(c);
		c->user_only = true;
		open_groups_once(c);
	}
	drop_redundant_groups(c);
}

/* an event is counted when some group that has it opened it */
static bool event_open(const struct prof_counters *c, int ev, int *err)
{
	*err = 0;
	for (int g = 0; g < PROF_GROUPS; g++) {
		int m = prof_group_member(g, ev);

		if (m < 0)
			continue;
		if (c->g[g].fd[m] >= 0)
			return true;
		if (!*err)
			*err = c->g[g].err[m];
	}
	return false;
}

static int count_events(const struct prof_counters *c, bool hw_only)
{
	int n = 0, err;

	for (int ev = 0; ev < PROF_EVENTS; ev++)
		if (event_open(c, ev, &err) &&
		    (!hw_only || event_attrs[ev].type != PERF_TYPE_SOFTWARE))
			n++;
	return n;
}

/* what is missing, said once per profiler */
static void report_open(struct prof *p)
{
	struct prof_counters *c = &p->ctr;
	char missing[512] = "";
	int err, first_err = 0, first_ev = -1;
	bool sw = c->g[PROF_GROUP_SW].nopen > 0;

	if (c->user_only && (c->hw || sw) && !c->told_user_only) {
		c->told_user_only = true;
		qwd_logf(p->log, QWD_LOG_WARN,
			 "counters: kernel-mode counting refused (perf_event_paranoid); "
			 "counting user space only");
	}
	if (c->told_missing)
		return;
	c->told_missing = true;
	for (int ev = 0; ev < PROF_EVENTS; ev++) {
		if (event_open(c, ev, &err))
			continue;
		if (first_ev < 0) {
			first_ev = ev;
			first_err = err;
		}
		if (missing[0])
			strlcat(missing, ", ", sizeof(missing));
		strlcat(missing, event_names[ev], sizeof(missing));
	}
	if (first_ev < 0)
		return;
	if (!c->hw && !sw)
		qwd_logf(p->log, QWD_LOG_WARN,
			 "counters: perf_event_open gave no events (%s: %s); "
			 "phase timers only", event_names[first_ev], strerror(first_err));
	else if (!c->hw)
		qwd_logf(p->log, QWD_LOG_WARN,
			 "counters: hardware events not supported here (%s: %s); "
			 "keeping software events (%s) and phase timers",
			 event_names[first_ev], strerror(first_err),
			 "task-clock, context-switches, page-faults");
	else
		qwd_logf(p->log, QWD_LOG_INFO, "counters: not counted here: %s",
			 missing);
}

/* ---- reading ---------------------------------------------------------- */

/* One group read: values in member order (the order they joined). */
static bool read_group(struct prof_counters *c, struct prof_ctr_group *gr,
		       uint64_t val[PROF_GROUP_MAX], uint64_t *enabled,
		       uint64_t *running)
{
	uint64_t buf[3 + PROF_GROUP_MAX];
	long n;
	size_t k = 3;

	if (gr->leader < 0)
		return false;
	n = c->ops->read(c->ops->ctx, gr->fd[gr->leader], buf, sizeof(buf));
	if (n < (long)(3 * sizeof(uint64_t)) || buf[0] != (uint64_t)gr->nopen ||
	    (size_t)n < (3 + buf[0]) * sizeof(uint64_t)) {
		c->read_errors++;
		return false;
	}
	*enabled = buf[1];
	*running = buf[2];
	for (int m = 0; m < PROF_GROUP_MAX; m++)
		val[m] = gr->fd[m] >= 0 ? buf[k++] : 0;
	return true;
}

static void set_baseline(struct prof_counters *c, struct prof_ctr_group *gr)
{
	uint64_t val[PROF_GROUP_MAX], en, run;

	if (!read_group(c, gr, val, &en, &run))
		return;
	memcpy(gr->last, val, sizeof(gr->last));
	gr->last_enabled = en;
	gr->last_running = run;
}

static void group_enable(struct prof_counters *c, int g)
{
	struct prof_ctr_group *gr = &c->g[g];

	if (gr->leader < 0 || gr->enabled)
		return;
	if (c->ops->ioctl(c->ops->ctx, gr->fd[gr->leader], PERF_EVENT_IOC_ENABLE,
			  PERF_IOC_FLAG_GROUP) != 0)
		return;
	gr->enabled = true;
	set_baseline(c, gr);
}

static void group_disable(struct prof_counters *c, int g)
{
	struct prof_ctr_group *gr = &c->g[g];

	if (!gr->enabled)
		return;
	c->ops->ioctl(c->ops->ctx, gr->fd[gr->leader], PERF_EVENT_IOC_DISABLE,
		      PERF_IOC_FLAG_GROUP);
	gr->enabled = false;
}

static int hw_groups_open(const struct prof_counters *c)
{
	int n = 0;

	for (int g = 0; g < PROF_GROUPS; g++)
		if (is_hw_group(g) && c->g[g].nopen > 0)
			n++;
	return n;
}

/* the open hardware group after `from`, cyclically (from itself if alone) */
static int next_hw_group(const struct prof_counters *c, int from)
{
	for (int i = 1; i <= PROF_GROUPS; i++) {
		int g = (from + i) % PROF_GROUPS;

		if (is_hw_group(g) && c->g[g].nopen > 0)
			return g;
	}
	return from;
}

int prof_ctr_phase_of(const struct prof_counters *c, int phase)
{
	return c->merge && phase == PROF_EXECUTE ? PROF_RECEIVE : phase;
}

/* Read the enabled groups; charge the deltas to the counter phase in
 * effect (or drop them: rebase), then make these reads the baseline. */
static void read_all(struct prof *p, uint64_t now, bool charge)
{
	struct prof_counters *c = &p->ctr;
	struct prof_ctr_acc *acc = &p->cur_ctr;
	int ph = c->phase;
	uint64_t span = now - c->phase_start;

	if (charge) {
		acc->on = true;
		acc->user_only |= c->user_only;
		acc->rotating |= c->rotating;
		acc->merged |= c->merge;
	}
	for (int g = 0; g < PROF_GROUPS; g++) {
		struct prof_ctr_group *gr = &c->g[g];
		uint64_t val[PROF_GROUP_MAX], en, run, den, drun;
		double scale;

		if (!gr->enabled || !read_group(c, gr, val, &en, &run))
			continue;
		den = en - gr->last_enabled;
		drun = run - gr->last_running;
		if (is_hw_group(g) && !c->rotating) {
			gr->sum_enabled += den;
			gr->sum_running += drun;
		}
		if (charge && drun > 0) {
			/* the kernel counted drun of den ns: extrapolate */
			scale = den > drun ? (double)den / (double)drun : 1.0;
			for (int m = 0; m < PROF_GROUP_MAX; m++) {
				if (gr->fd[m] < 0 || val[m] < gr->last[m])
					continue;
				acc->value[g][m][ph] += (double)(val[m] - gr->last[m]) * scale;
				acc->counted[g] |= 1u << m;
			}
			acc->covered_ns[g][ph] += span;
			if (is_hw_group(g))
				acc->hw = true;
		}
		memcpy(gr->last, val, sizeof(gr->last));
		gr->last_enabled = en;
		gr->last_running = run;
		/* multiplexed: the groups do not fit together; rotating can
		 * help only when there are several */
		if (is_hw_group(g) && !c->rotating && !c->need_rotation &&
		    gr->sum_running < gr->sum_enabled - gr->sum_enabled / 100 &&
		    hw_groups_open(c) > 1)
			c->need_rotation = true;
	}
}

void prof_ctr_boundary(struct prof *p, int next, uint64_t now, bool force)
{
	struct prof_counters *c = &p->ctr;
	int to = prof_ctr_phase_of(c, next);

	if (!force && to == c->phase)
		return;
	if (!c->sampling) {
		c->phase = to;
		return;
	}
	read_all(p, now, true);
	c->phase = to;
	c->phase_start = now;
}

void prof_ctr_rebase(struct prof *p, uint64_t now)
{
	read_all(p, now, false);
	p->ctr.phase_start = now;
}

static void start_rotation(struct prof *p)
{
	struct prof_counters *c = &p->ctr;
	double share = 0.0;

	c->active = next_hw_group(c, PROF_GROUPS - 1);
	for (int g = 0; g < PROF_GROUPS; g++) {
		const struct prof_ctr_group *gr = &c->g[g];

		if (is_hw_group(g) && gr->sum_enabled > 0 && share == 0.0)
			share = (double)gr->sum_running / (double)gr->sum_enabled;
		if (is_hw_group(g) && g != c->active)
			group_disable(c, g);
	}
	c->rotating = true;
	c->frames_in_group = 0;
	if (!c->told_rotating) {
		c->told_rotating = true;
		qwd_logf(p->log, QWD_LOG_INFO,
			 "counters: the PMU has fewer counters than the %d hardware "
			 "events (groups ran %.0f%% of the time); rotating one group "
			 "every %d frame(s)", count_events(c, true), share * 100.0,
			 c->rotate_frames);
	}
}

void prof_ctr_frame_end(struct prof *p)
{
	struct prof_counters *c = &p->ctr;
	int next;

	if (!c->on)
		return;
	/* sampling: the frame after this one is read when its number comes
	 * up; a rebase now makes its first phase start clean.  Rotation moves
	 * on only after a read frame, so every group gets its samples. */
	bool was = c->sampling;

	c->frame_no++;
	c->sampling = c->frame_no % (uint64_t)c->sample_every == 0;
	if (c->sampling && !was)
		prof_ctr_rebase(p, prof_clock_ns(p));
	if (!was)
		return;
	if (!c->rotating) {
		if (c->need_rotation)
			start_rotation(p);
		return;
	}
	if (++c->frames_in_group < c->rotate_frames)
		return;
	c->frames_in_group = 0;
	next = next_hw_group(c, c->active);
	if (next == c->active)
		return;
	group_disable(c, c->active);
	group_enable(c, next);
	c->active = next;
}

/* ---- the public control ----------------------------------------------- */

int prof_counters_set(struct prof *p, bool on)
{
	struct prof_counters *c = &p->ctr;
	uint64_t now = prof_clock_ns(p);

	if (!on) {
		if (c->on) {
			read_all(p, now, true);	/* keep what was counted */
			close_groups(c);
		}
		c->on = false;
		c->rotating = false;
		c->hw = false;
		return 0;
	}
	if (!p->timers_want) {
		/* counters are read at phase boundaries, which need the timers */
		qwd_logf(p->log, QWD_LOG_WARN,
			 "counters: not opened, the phase timers are off (-notimers)");
		return 0;
	}
	if (c->on)
		return count_events(c, false);
	open_groups(c);
	c->hw = hw_groups_open(c) > 0;
	report_open(p);
	if (c->need_rotation && hw_groups_open(c) > 1) {
		c->rotating = true;
		c->frames_in_group = 0;
		c->active = next_hw_group(c, PROF_GROUPS - 1);
		group_enable(c, c->active);
	} else {
		for (int g = 0; g < PROF_GROUPS; g++)
			if (is_hw_group(g))
				group_enable(c, g);
	}
	group_enable(c, PROF_GROUP_SW);
	c->on = true;
	c->sampling = true;
	c->frame_no = 0;
	c->phase = prof_ctr_phase_of(c, p->phase);
	c->phase_start = now;
	return count_events(c, false);
}

bool prof_counters_on(const struct prof *p)
{
	return p->ctr.on;
}

void prof_counters_sample(struct prof *p, int every)
{
	p->ctr.sample_every = every > 0 ? every : 1;
}

int prof_counters_sample_every(const struct prof *p)
{
	return p->ctr.sample_every;
}

void prof_counters_merge(struct prof *p, bool merge_rx_exec)
{
	struct prof_counters *c = &p->ctr;

	if (c->merge == merge_rx_exec)
		return;
	/* close the counter phase under the old mapping first */
	if (c->on)
		read_all(p, prof_clock_ns(p), true);
	c->merge = merge_rx_exec;
	c->phase = prof_ctr_phase_of(c, p->phase);
	c->phase_start = prof_clock_ns(p);
}

const char *prof_ctr_groups_open(const struct prof *p, char *buf, size_t size)
{
	buf[0] = '\0';
	for (int g = 0; g < PROF_GROUPS; g++) {
		if (p->ctr.g[g].nopen == 0)
			continue;
		if (buf[0])
			strlcat(buf, " ", size);
		strlcat(buf, group_names[g], size);
	}
	return buf;
}

/* ---- accumulators and derived figures --------------------------------- */

void prof_ctr_acc_clear(struct prof_ctr_acc *acc)
{
	memset(acc, 0, sizeof(*acc));
}

void prof_ctr_acc_add(struct prof_ctr_acc *dst, const struct prof_ctr_acc *src)
{
	for (int g = 0; g < PROF_GROUPS; g++) {
		for (int m = 0; m < PROF_GROUP_MAX; m++)
			for (int ph = 0; ph < PROF_PHASES; ph++)
				dst->value[g][m][ph] += src->value[g][m][ph];
		for (int ph = 0; ph < PROF_PHASES; ph++)
			dst->covered_ns[g][ph] += src->covered_ns[g][ph];
		dst->counted[g] |= src->counted[g];
	}
	dst->on |= src->on;
	dst->hw |= src->hw;
	dst->rotating |= src->rotating;
	dst->user_only |= src->user_only;
	dst->merged |= src->merged;
}

/* The count of member m of group g over the phases in the set, each
 * phase extrapolated to its wall time; NaN when a phase with time was
 * never covered or the member never counted. */
static double estimate(const struct prof_ctr_acc *acc,
		       const uint64_t phase_ns[PROF_PHASES], unsigned phases,
		       int g, int m)
{
	double sum = 0.0;
	bool any = false;

	if (m < 0 || !(acc->counted[g] & (1u << m)))
		return NAN;
	for (int ph = 0; ph < PROF_PHASES; ph++) {
		if (!(phases & (1u << ph)) || phase_ns[ph] == 0)
			continue;
		if (acc->covered_ns[g][ph] == 0)
			return NAN;
		sum += acc->value[g][m][ph] * (double)phase_ns[ph] /
		       (double)acc->covered_ns[g][ph];
		any = true;
	}
	return any ? sum : NAN;
}

static double est_event(const struct prof_ctr_acc *acc,
			const uint64_t phase_ns[PROF_PHASES], unsigned phases,
			int g, int ev)
{
	return estimate(acc, phase_ns, phases, g, prof_group_member(g, ev));
}

static double ratio(double num, double den)
{
	if (isnan(num) || isnan(den) || den <= 0.0)
		return NAN;
	return num / den;
}

void prof_ctr_derive(const struct prof_ctr_acc *acc,
		     const uint64_t phase_ns[PROF_PHASES], unsigned phases,
		     struct prof_derived *out)
{
	double a_cyc = est_event(acc, phase_ns, phases, PROF_GROUP_A, PROF_EV_CYCLES);
	double a_ins = est_event(acc, phase_ns, phases, PROF_GROUP_A,
				 PROF_EV_INSTRUCTIONS);
	double b_ins = est_event(acc, phase_ns, phases, PROF_GROUP_B,
				 PROF_EV_INSTRUCTIONS);
	double c_cyc = est_event(acc, phase_ns, phases, PROF_GROUP_C, PROF_EV_CYCLES);
	double wall = 0.0;

	for (int ph = 0; ph < PROF_PHASES; ph++)
		if (phases & (1u << ph))
			wall += (double)phase_ns[ph];
	out->ipc = ratio(a_ins, a_cyc);
	out->branch_miss_rate =
		ratio(est_event(acc, phase_ns, phases, PROF_GROUP_A,
				PROF_EV_BRANCH_MISSES),
		      est_event(acc, phase_ns, phases, PROF_GROUP_A, PROF_EV_BRANCHES));
	out->l1d_mpki = ratio(est_event(acc, phase_ns, phases, PROF_GROUP_B,
					PROF_EV_L1D_MISSES) * 1000.0, b_ins);
	out->l1i_mpki = ratio(est_event(acc, phase_ns, phases, PROF_GROUP_B,
					PROF_EV_L1I_MISSES) * 1000.0, b_ins);
	out->llc_mpki = ratio(est_event(acc, phase_ns, phases, PROF_GROUP_B,
					PROF_EV_LLC_MISSES) * 1000.0, b_ins);
	out->stall_frontend = ratio(est_event(acc, phase_ns, phases, PROF_GROUP_C,
					      PROF_EV_STALLED_FRONTEND), c_cyc);
	out->stall_backend = ratio(est_event(acc, phase_ns, phases, PROF_GROUP_C,
					     PROF_EV_STALLED_BACKEND), c_cyc);
	out->cpu_share = ratio(est_event(acc, phase_ns, phases, PROF_GROUP_SW,
					 PROF_EV_TASK_CLOCK), wall);
	out->cycles = isnan(a_cyc) ? c_cyc : a_cyc;
	out->instructions = isnan(a_ins) ? b_ins : a_ins;
	out->context_switches = est_event(acc, phase_ns, phases, PROF_GROUP_SW,
					  PROF_EV_CONTEXT_SWITCHES);
	out->page_faults = est_event(acc, phase_ns, phases, PROF_GROUP_SW,
				     PROF_EV_PAGE_FAULTS);
}
