/*
 * fake_pmu.c -- the simulated PMU, a log capture, and a minimal JSON
 * checker for the profiler's tests (see fake_pmu.h).
 */
#include "fake_pmu.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

void fake_pmu_init(struct fake_pmu *f)
{
	memset(f, 0, sizeof(*f));
	f->now = 1000000;
	f->hw_counters = 16;
	f->unsupported_errno = EOPNOTSUPP;
	f->phase = PROF_IDLE;
}

void fake_pmu_default_rates(struct fake_pmu *f)
{
	for (int ph = 0; ph < PROF_PHASES; ph++) {
		double busy = ph == PROF_IDLE ? 0.05 : 1.0;
		double cyc = 3.0 * busy;	/* 3 GHz while running */
		double ipc = 0.3 + 0.1 * ph;	/* 0.3 .. 0.7 */

		f->rate[PROF_EV_CYCLES][ph] = cyc;
		f->rate[PROF_EV_INSTRUCTIONS][ph] = cyc * ipc;
		f->rate[PROF_EV_BRANCHES][ph] = cyc * ipc * 0.2;
		f->rate[PROF_EV_BRANCH_MISSES][ph] = cyc * ipc * 0.2 * (0.05 + 0.02 * ph);
		f->rate[PROF_EV_L1D_MISSES][ph] = cyc * ipc * 0.01 * (ph + 1);
		f->rate[PROF_EV_L1I_MISSES][ph] = cyc * ipc * 0.004 * (ph + 1);
		f->rate[PROF_EV_LLC_MISSES][ph] = cyc * ipc * 0.0005 * (ph + 1);
		f->rate[PROF_EV_STALLED_FRONTEND][ph] = cyc * (0.10 + 0.01 * ph);
		f->rate[PROF_EV_STALLED_BACKEND][ph] = cyc * (0.25 - 0.01 * ph);
		f->rate[PROF_EV_TASK_CLOCK][ph] = busy;
		/* software rates: whole counts per 100 us, so that the
		 * fake's integer counters do not round them away */
		f->rate[PROF_EV_CONTEXT_SWITCHES][ph] = ph == PROF_IDLE ? 1e-4 : 1e-5;
		f->rate[PROF_EV_PAGE_FAULTS][ph] = 2e-5;
	}
}

static int event_of(const struct perf_event_attr *a)
{
	for (int ev = 0; ev < PROF_EVENTS; ev++) {
		uint32_t type;
		uint64_t config;

		prof_event_attr(ev, &type, &config);
		if (type == a->type && config == a->config)
			return ev;
	}
	return -1;
}

static struct fake_event *by_fd(struct fake_pmu *f, int fd)
{
	int i = fd - FAKE_FD_BASE;

	if (i < 0 || i >= FAKE_MAX_EVENTS || !f->events[i].used)
		return NULL;
	return &f->events[i];
}

/* hardware events in enabled groups, and the number of such groups */
static void hw_load(const struct fake_pmu *f, int *events, int *groups)
{
	*events = *groups = 0;
	for (int i = 0; i < FAKE_MAX_EVENTS; i++) {
		const struct fake_event *e = &f->events[i];

		if (e->used && e->leader == i && e->enabled && e->hw) {
			*events += e->nmembers;
			(*groups)++;
		}
	}
}

int fake_pmu_hw_enabled(const struct fake_pmu *f)
{
	int ev, g;

	hw_load(f, &ev, &g);
	return g;
}

void fake_pmu_mark(struct fake_pmu *f)
{
	f->max_hw_enabled = fake_pmu_hw_enabled(f);
}

void fake_pmu_advance(struct fake_pmu *f, uint64_t ns)
{
	int hw_events, hw_groups;
	double share = 1.0;

	hw_load(f, &hw_events, &hw_groups);
	if (hw_events > f->hw_counters && hw_groups > 0)
		share = 1.0 / hw_groups;
	if (f->forced_share > 0.0)
		share = f->forced_share;
	for (int i = 0; i < FAKE_MAX_EVENTS; i++) {
		struct fake_event *l = &f->events[i];
		double run;

		if (!l->used || l->leader != i || !l->enabled)
			continue;
		run = (double)ns * (l->hw ? share : 1.0);
		l->enabled_ns += (double)ns;
		l->running_ns += run;
		for (int m = 0; m < l->nmembers; m++) {
			struct fake_event *e = &f->events[l->members[m]];

			e->count += f->rate[e->ev][f->phase] * run;
		}
	}
	f->now += ns;
}

static int fake_open(void *ctx, struct perf_event_attr *attr, int pid, int cpu,
		     int group_fd, unsigned long flags)
{
	struct fake_pmu *f = ctx;
	int ev = event_of(attr), slot = -1;
	struct fake_event *leader = NULL;
	bool hw;
	const uint64_t want = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			      PERF_FORMAT_TOTAL_TIME_RUNNING;

	f->opens++;
	if (attr->size != sizeof(*attr) || (attr->read_format & want) != want ||
	    (attr->read_format & PERF_FORMAT_ID) || pid != 0 || cpu != -1 ||
	    !(flags & PERF_FLAG_FD_CLOEXEC) || ev < 0 ||
	    attr->disabled != (group_fd < 0) || attr->inherit)
		f->bad_attr++;
	if (ev < 0)
		goto fail_inval;
	hw = attr->type != PERF_TYPE_SOFTWARE;
	if (hw && f->hw_counters == 0) {
		errno = ENOENT;
		goto fail;
	}
	if (!hw && f->sw_errno) {
		errno = f->sw_errno;
		goto fail;
	}
	if (f->unsupported & (1u << ev)) {
		errno = f->unsupported_errno;
		goto fail;
	}
	if (f->deny_kernel && !attr->exclude_kernel) {
		errno = EACCES;
		goto fail;
	}
	if (group_fd >= 0) {
		leader = by_fd(f, group_fd);
		if (!leader || &f->events[leader->leader] != leader ||
		    leader->nmembers >= PROF_GROUP_MAX)
			goto fail_inval;
		/* a group must fit in the PMU at once */
		if (hw && leader->nmembers + 1 > f->hw_counters)
			goto fail_inval;
	}
	for (int i = 0; i < FAKE_MAX_EVENTS; i++)
		if (!f->events[i].used) {
			slot = i;
			break;
		}
	if (slot < 0) {
		errno = EMFILE;
		goto fail;
	}
	memset(&f->events[slot], 0, sizeof(f->events[slot]));
	f->events[slot].used = true;
	f->events[slot].ev = ev;
	f->events[slot].hw = hw;
	f->events[slot].attr = *attr;
	if (leader) {
		f->events[slot].leader = (int)(leader - f->events);
		leader->members[leader->nmembers++] = slot;
	} else {
		f->events[slot].leader = slot;
		f->events[slot].members[0] = slot;
		f->events[slot].nmembers = 1;
	}
	f->open_fds++;
	return FAKE_FD_BASE + slot;
fail_inval:
	errno = EINVAL;
fail:
	f->open_fails++;
	return -1;
}

static long fake_read(void *ctx, int fd, void *buf, size_t len)
{
	struct fake_pmu *f = ctx;
	struct fake_event *e = by_fd(f, fd);
	uint64_t out[3 + PROF_GROUP_MAX];
	size_t need;

	f->reads++;
	if (!e || &f->events[e->leader] != e) {
		errno = EINVAL;
		return -1;
	}
	need = (3 + (size_t)e->nmembers) * sizeof(uint64_t);
	if (len < need) {
		errno = ENOSPC;
		return -1;
	}
	out[0] = (uint64_t)e->nmembers;
	out[1] = (uint64_t)e->enabled_ns;
	out[2] = (uint64_t)e->running_ns;
	for (int m = 0; m < e->nmembers; m++)
		out[3 + m] = (uint64_t)llround(f->events[e->members[m]].count);
	if (f->short_reads)
		need = 8;
	memcpy(buf, out, need);
	return (long)need;
}

static int fake_ioctl(void *ctx, int fd, unsigned long request, uintptr_t arg)
{
	struct fake_pmu *f = ctx;
	struct fake_event *e = by_fd(f, fd);

	f->ioctls++;
	if (!e || &f->events[e->leader] != e || arg != PERF_IOC_FLAG_GROUP) {
		errno = EINVAL;
		return -1;
	}
	if (request == PERF_EVENT_IOC_ENABLE)
		e->enabled = true;
	else if (request == PERF_EVENT_IOC_DISABLE)
		e->enabled = false;
	else {
		errno = ENOTTY;
		return -1;
	}
	if (fake_pmu_hw_enabled(f) > f->max_hw_enabled)
		f->max_hw_enabled = fake_pmu_hw_enabled(f);
	return 0;
}

static int fake_close(void *ctx, int fd)
{
	struct fake_pmu *f = ctx;
	struct fake_event *e = by_fd(f, fd);

	f->closes++;
	if (!e) {
		errno = EBADF;
		return -1;
	}
	/* a leader closed before its members would orphan them: the
	 * profiler closes members first */
	if (&f->events[e->leader] == e && e->nmembers > 1)
		for (int m = 1; m < e->nmembers; m++)
			if (f->events[e->members[m]].used)
				f->bad_attr++;
	e->used = false;
	f->open_fds--;
	return 0;
}

struct prof_perf_ops fake_pmu_ops(struct fake_pmu *f)
{
	struct prof_perf_ops ops = {fake_open, fake_read, fake_ioctl, fake_close, f};

	return ops;
}

static uint64_t fake_mono(void *ctx)
{
	return ((struct fake_pmu *)ctx)->now;
}

static uint64_t fake_wall(void *ctx)
{
	return 1700000000000000000ull + ((struct fake_pmu *)ctx)->now;
}

struct prof_clock fake_pmu_clock(struct fake_pmu *f)
{
	struct prof_clock c = {fake_mono, fake_wall, f};

	return c;
}

/* ---- log capture -------------------------------------------------------- */

void log_capture_sink(void *ctx, int level, const char *line)
{
	struct log_capture *c = ctx;
	size_t len = strlen(c->text);

	c->lines++;
	if (level >= QWD_LOG_WARN)
		c->warn_lines++;
	snprintf(c->text + len, sizeof(c->text) - len, "%s\n", line);
}

int log_capture_count(const struct log_capture *c, const char *needle)
{
	int n = 0;

	for (const char *s = c->text; (s = strstr(s, needle)) != NULL; s++)
		n++;
	return n;
}

/* ---- minimal JSON ------------------------------------------------------- */

static const char *ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

static const char *parse_value(const char *s, int depth);

static const char *parse_string(const char *s)
{
	if (*s != '"')
		return NULL;
	for (s++; *s && *s != '"'; s++) {
		if ((unsigned char)*s < 0x20)
			return NULL;
		if (*s == '\\') {
			s++;
			if (*s != '"' && *s != '\\')
				return NULL;
		}
	}
	return *s == '"' ? s + 1 : NULL;
}

static const char *parse_number(const char *s)
{
	const char *start = s;

	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return NULL;
	if (*s == '.') {
		s++;
		if (!(*s >= '0' && *s <= '9'))
			return NULL;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return NULL;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return s > start ? s : NULL;
}

static const char *parse_container(const char *s, int depth, char close,
				   bool keys)
{
	s = ws(s + 1);
	if (*s == close)
		return s + 1;
	for (;;) {
		if (keys) {
			s = parse_string(ws(s));
			if (!s)
				return NULL;
			s = ws(s);
			if (*s != ':')
				return NULL;
			s++;
		}
		s = parse_value(s, depth + 1);
		if (!s)
			return NULL;
		s = ws(s);
		if (*s == close)
			return s + 1;
		if (*s != ',')
			return NULL;
		s++;
	}
}

static const char *parse_value(const char *s, int depth)
{
	if (depth > 32)
		return NULL;
	s = ws(s);
	switch (*s) {
	case '{':
		return parse_container(s, depth, '}', true);
	case '[':
		return parse_container(s, depth, ']', false);
	case '"':
		return parse_string(s);
	case 't':
		return strncmp(s, "true", 4) ? NULL : s + 4;
	case 'f':
		return strncmp(s, "false", 5) ? NULL : s + 5;
	case 'n':
		return strncmp(s, "null", 4) ? NULL : s + 4;
	default:
		return parse_number(s);
	}
}

bool json_text_valid(const char *text)
{
	const char *end = parse_value(text, 0);

	return end && *ws(end) == '\0';
}

/* within the object at s, the value of key (len bytes) */
static const char *find_key(const char *s, const char *key, size_t len)
{
	s = ws(s);
	if (*s != '{')
		return NULL;
	s = ws(s + 1);
	while (*s == '"') {
		const char *k = s + 1, *end = parse_string(s);

		if (!end)
			return NULL;
		s = ws(end);
		if (*s != ':')
			return NULL;
		s = ws(s + 1);
		if ((size_t)(end - 1 - k) == len && !strncmp(k, key, len))
			return s;
		s = parse_value(s, 0);
		if (!s)
			return NULL;
		s = ws(s);
		if (*s == ',')
			s = ws(s + 1);
	}
	return NULL;
}

bool json_text_get(const char *text, const char *path, char *out, size_t size)
{
	const char *v = text, *end;

	while (*path) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);

		v = find_key(v, path, len);
		if (!v)
			return false;
		path += len + (dot ? 1 : 0);
	}
	end = parse_value(v, 0);
	if (!end || (size_t)(end - v) >= size)
		return false;
	memcpy(out, v, (size_t)(end - v));
	out[end - v] = '\0';
	return true;
}

double json_text_num(const char *text, const char *path)
{
	char buf[64];

	if (!json_text_get(text, path, buf, sizeof(buf)) || !strcmp(buf, "null"))
		return NAN;
	return strtod(buf, NULL);
}
