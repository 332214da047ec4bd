/*
 * test_counters.c -- the perf_event logic against a fake PMU: grouping,
 * group reads, scaling, rotation, derived figures, degradation.
 *
 * Design note: the fake PMU (fake_pmu.c) counts each event at a known
 * rate per phase, so every derived figure has an exact expected value:
 * IPC of a phase = rate(instructions) / rate(cycles), and so on.  The
 * tests run frames through prof_switch/prof_frame_end exactly as the
 * server will, and compare the profiler's figures with those rates.  The
 * fake also checks the attributes the profiler passes (read_format,
 * disabled leader, pid/cpu, CLOEXEC) and that members are closed before
 * their leader.
 */
#include "../harness.h"

#include "fake_pmu.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct fixture {
	struct fake_pmu pmu;
	struct prof_perf_ops ops;
	struct log_capture logcap;
	struct qwd_log log;
	struct prof_config cfg;
	struct prof *p;
};

/* phase lengths of a frame, multiples of 3 so that 1/3 shares are exact */
static const uint64_t frame_ns[PROF_PHASES] = {
	[PROF_WORLD] = 300000, [PROF_RECEIVE] = 600000, [PROF_EXECUTE] = 900000,
	[PROF_REPLY] = 1200000, [PROF_IDLE] = 3000000,
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	fake_pmu_init(&fx->pmu);
	fake_pmu_default_rates(&fx->pmu);
	fx->ops = fake_pmu_ops(&fx->pmu);
	fx->log = (struct qwd_log){log_capture_sink, &fx->logcap, QWD_LOG_DEBUG};
	fx->cfg.log = &fx->log;
	fx->cfg.max_clients = 4;
	fx->cfg.clock = fake_pmu_clock(&fx->pmu);
	fx->cfg.perf = &fx->ops;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	prof_destroy(fx->p);
	/* every descriptor closed, members before leaders */
	assert_int_equal(fx->pmu.open_fds, 0);
	assert_int_equal(fx->pmu.bad_attr, 0);
	free(fx);
	return 0;
}

static void start(struct fixture *fx, bool counters)
{
	fx->cfg.counters = counters;
	fx->p = prof_create(&fx->cfg);
	assert_non_null(fx->p);
}

static void run_phase(struct fixture *fx, int phase, uint64_t ns)
{
	prof_switch(fx->p, (enum prof_phase)phase);
	fx->pmu.phase = phase;
	fake_pmu_advance(&fx->pmu, ns);
}

/* a frame as the server runs it: idle, world, receive and execute
 * interleaved per packet, reply */
static void run_frame(struct fixture *fx)
{
	fx->pmu.phase = PROF_IDLE;
	fake_pmu_advance(&fx->pmu, frame_ns[PROF_IDLE]);
	run_phase(fx, PROF_WORLD, frame_ns[PROF_WORLD]);
	for (int pkt = 0; pkt < 3; pkt++) {
		run_phase(fx, PROF_RECEIVE, frame_ns[PROF_RECEIVE] / 3);
		run_phase(fx, PROF_EXECUTE, frame_ns[PROF_EXECUTE] / 3);
	}
	run_phase(fx, PROF_REPLY, frame_ns[PROF_REPLY]);
	prof_frame_end(fx->p);
	fx->pmu.phase = PROF_IDLE;
}

static double rate(const struct fixture *fx, int ev, int ph)
{
	return fx->pmu.rate[ev][ph];
}

static void near(double got, double want, const char *what, int ph)
{
	/* the fake counts in integers: allow their rounding, not more */
	if (isnan(got) || fabs(got - want) > 1e-3 * fabs(want) + 1e-9)
		fail_msg("%s of %s: got %.9g, want %.9g", what, prof_phase_name(ph),
			 got, want);
}

/* every figure of every phase matches the fake's rates */
static void check_phase_figures(const struct fixture *fx,
				const struct prof_stats *st, uint32_t missing)
{
	for (int ph = 0; ph < PROF_PHASES; ph++) {
		const struct prof_derived *d = &st->phase[ph];
		double cyc = rate(fx, PROF_EV_CYCLES, ph);
		double ins = rate(fx, PROF_EV_INSTRUCTIONS, ph);
		double t = (double)frame_ns[ph] * (double)st->frames;

		near(d->ipc, ins / cyc, "ipc", ph);
		if (missing & (1u << PROF_EV_BRANCH_MISSES))
			assert_true(isnan(d->branch_miss_rate));
		else
			near(d->branch_miss_rate,
			     rate(fx, PROF_EV_BRANCH_MISSES, ph) / rate(fx, PROF_EV_BRANCHES, ph),
			     "branch miss rate", ph);
		near(d->l1d_mpki, 1000.0 * rate(fx, PROF_EV_L1D_MISSES, ph) / ins,
		     "l1d mpki", ph);
		near(d->l1i_mpki, 1000.0 * rate(fx, PROF_EV_L1I_MISSES, ph) / ins,
		     "l1i mpki", ph);
		if (missing & (1u << PROF_EV_LLC_MISSES))
			assert_true(isnan(d->llc_mpki));
		else
			near(d->llc_mpki, 1000.0 * rate(fx, PROF_EV_LLC_MISSES, ph) / ins,
			     "llc mpki", ph);
		near(d->stall_frontend, rate(fx, PROF_EV_STALLED_FRONTEND, ph) / cyc,
		     "frontend stalls", ph);
		near(d->stall_backend, rate(fx, PROF_EV_STALLED_BACKEND, ph) / cyc,
		     "backend stalls", ph);
		near(d->cpu_share, rate(fx, PROF_EV_TASK_CLOCK, ph), "cpu share", ph);
		near(d->cycles, cyc * t, "cycles", ph);
		near(d->instructions, ins * t, "instructions", ph);
		near(d->page_faults, rate(fx, PROF_EV_PAGE_FAULTS, ph) * t, "page faults", ph);
	}
}

static void test_groups_all_fit(void **state)
{
	struct fixture *fx = *state;
	struct prof_stats st;
	double cyc = 0.0, ins = 0.0;

	start(fx, true);
	/* 12 distinct events; every group opened whole and enabled */
	assert_true(prof_counters_on(fx->p));
	assert_int_equal(fx->pmu.open_fds, 4 + 4 + 3 + 3);
	assert_int_equal(fake_pmu_hw_enabled(&fx->pmu), 3);
	assert_int_equal(fx->pmu.bad_attr, 0);
	for (int i = 0; i < 14; i++)
		assert_int_equal(fx->pmu.events[i].attr.exclude_kernel, 0);
	for (int f = 0; f < 5; f++)
		run_frame(fx);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_int_equal(st.counter_mode, PROF_CTR_ALL);
	assert_int_equal(st.events_counted, (1u << PROF_EVENTS) - 1);
	assert_false(st.counters_user_only);
	check_phase_figures(fx, &st, 0);
	/* busy and all: ratios of summed counts */
	for (int ph = 0; ph < PROF_PHASES; ph++) {
		cyc += rate(fx, PROF_EV_CYCLES, ph) * (double)frame_ns[ph];
		ins += rate(fx, PROF_EV_INSTRUCTIONS, ph) * (double)frame_ns[ph];
	}
	near(st.all.ipc, ins / cyc, "ipc", PROF_PHASES);
	near(st.all.cycles, cyc * 5, "cycles", PROF_PHASES);
	assert_true(st.busy.ipc > st.phase[PROF_WORLD].ipc &&
		    st.busy.ipc < st.phase[PROF_REPLY].ipc);
	assert_int_equal(prof_last_frame(fx->p)->counter_group, -1);
	/* nothing missing, nothing said */
	assert_int_equal(fx->logcap.lines, 0);
}

static void test_reads_per_switch_and_off_costs_nothing(void **state)
{
	struct fixture *fx = *state;
	int reads;

	start(fx, false);
	assert_false(prof_counters_on(fx->p));
	reads = fx->pmu.reads;
	run_frame(fx);
	assert_int_equal(fx->pmu.reads, reads);	/* off: no syscalls at all */
	assert_int_equal(fx->pmu.opens, 0);

	assert_int_equal(prof_counters_set(fx->p, true), PROF_EVENTS);
	reads = fx->pmu.reads;
	prof_switch(fx->p, PROF_WORLD);
	/* one group read per enabled group, per boundary */
	assert_int_equal(fx->pmu.reads - reads, 4);
	reads = fx->pmu.reads;
	prof_switch(fx->p, PROF_WORLD);	/* same phase: no boundary */
	assert_int_equal(fx->pmu.reads, reads);
	prof_frame_end(fx->p);
	assert_int_equal(fx->pmu.reads - reads, 4);

	prof_counters_set(fx->p, false);
	assert_int_equal(fx->pmu.open_fds, 0);
	reads = fx->pmu.reads;
	run_frame(fx);
	assert_int_equal(fx->pmu.reads, reads);
}

/* Sampling: one frame in 4 is read (at each of its boundaries, plus the
 * rebase that ends the frame before it), the others make no syscall, and
 * every figure still matches the rates (counts extrapolated). */
static void test_sampling(void **state)
{
	struct fixture *fx = *state;
	struct prof_stats st;
	int reads, per_frame[12];

	fx->cfg.counter_sample = 4;
	start(fx, true);
	for (int f = 0; f < 12; f++) {
		reads = fx->pmu.reads;
		run_frame(fx);
		per_frame[f] = fx->pmu.reads - reads;
	}
	for (int f = 0; f < 12; f++) {
		if (f % 4 == 0)
			assert_true(per_frame[f] >= 4 * 4);	/* read frame */
		else if (f % 4 == 3)
			assert_int_equal(per_frame[f], 4);	/* the rebase */
		else
			assert_int_equal(per_frame[f], 0);
	}
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_int_equal(st.frames, 12);
	check_phase_figures(fx, &st, 0);

	/* 1: every frame again */
	prof_counters_sample(fx->p, 1);
	assert_int_equal(prof_counters_sample_every(fx->p), 1);
	run_frame(fx);
	reads = fx->pmu.reads;
	run_frame(fx);
	assert_true(fx->pmu.reads - reads >= 4 * 4);
}

/* Sampling and rotation: each read frame moves to the next group, so a
 * sample interval that is a multiple of the group count still sees all. */
static void test_sampling_rotates_per_read_frame(void **state)
{
	struct fixture *fx = *state;
	int seen[PROF_GROUPS] = {0};

	fx->pmu.hw_counters = 4;
	fx->cfg.counter_sample = 3;
	start(fx, true);
	run_frame(fx);	/* multiplexing seen: rotation starts */
	for (int i = 0; i < 27; i++) {
		run_frame(fx);
		if (prof_last_frame(fx->p)->counter_group >= 0)
			seen[prof_last_frame(fx->p)->counter_group]++;
	}
	assert_true(seen[PROF_GROUP_A] > 0);
	assert_true(seen[PROF_GROUP_B] > 0);
	assert_true(seen[PROF_GROUP_C] > 0);
}

static void test_scaling_when_multiplexed(void **state)
{
	struct fixture *fx = *state;
	struct prof_stats st;

	/* only group A exists (B and C events unsupported), and something
	 * else holds the PMU half the time: rotation cannot help, the counts
	 * are scaled by enabled/running */
	fx->pmu.unsupported = (1u << PROF_EV_L1D_MISSES) | (1u << PROF_EV_L1I_MISSES) |
			      (1u << PROF_EV_LLC_MISSES) | (1u << PROF_EV_STALLED_FRONTEND) |
			      (1u << PROF_EV_STALLED_BACKEND);
	fx->pmu.forced_share = 0.5;
	start(fx, true);
	for (int f = 0; f < 4; f++)
		run_frame(fx);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_int_equal(st.counter_mode, PROF_CTR_ALL);
	for (int ph = 0; ph < PROF_PHASES; ph++) {
		double t = (double)frame_ns[ph] * 4;

		/* the raw counts are half; scaled they are whole */
		near(st.phase[ph].cycles, rate(fx, PROF_EV_CYCLES, ph) * t, "cycles", ph);
		near(st.phase[ph].instructions, rate(fx, PROF_EV_INSTRUCTIONS, ph) * t,
		     "instructions", ph);
		near(st.phase[ph].ipc,
		     rate(fx, PROF_EV_INSTRUCTIONS, ph) / rate(fx, PROF_EV_CYCLES, ph),
		     "ipc", ph);
		/* group B is gone, B's instructions with it: no MPKI */
		assert_true(isnan(st.phase[ph].l1d_mpki));
		assert_true(isnan(st.phase[ph].stall_backend));
	}
	/* the missing events are named once */
	assert_int_equal(log_capture_count(&fx->logcap, "not counted here"), 1);
	assert_int_equal(log_capture_count(&fx->logcap, "stalled-cycles-backend"), 1);
	assert_int_equal(log_capture_count(&fx->logcap, "rotating"), 0);
}

static void test_rotation(void **state)
{
	struct fixture *fx = *state;
	struct prof_stats st;
	char line[1024], json[16384];
	FILE *f;
	int seen[PROF_GROUPS] = {0};

	/* a PMU of 4 counters: each group fits alone, not all 11 events */
	fx->pmu.hw_counters = 4;
	start(fx, true);
	assert_int_equal(fake_pmu_hw_enabled(&fx->pmu), 3);
	run_frame(fx);	/* multiplexed: seen, rotation starts at frame end */
	assert_int_equal(fake_pmu_hw_enabled(&fx->pmu), 1);
	assert_int_equal(log_capture_count(&fx->logcap, "rotating one group"), 1);
	fake_pmu_mark(&fx->pmu);
	prof_reset(fx->p);
	for (int i = 0; i < 30; i++) {
		run_frame(fx);
		seen[prof_last_frame(fx->p)->counter_group]++;
		/* A, B, C, A, ... */
		assert_int_equal(prof_last_frame(fx->p)->counter_group, i % 3);
	}
	assert_int_equal(fx->pmu.max_hw_enabled, 1);
	assert_int_equal(seen[PROF_GROUP_A], 10);
	assert_int_equal(seen[PROF_GROUP_SW], 0);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_int_equal(st.counter_mode, PROF_CTR_ROTATING);
	/* ratios exact within each group; counts extrapolated over the
	 * frames the group did not cover */
	check_phase_figures(fx, &st, 0);
	assert_int_equal(log_capture_count(&fx->logcap, "rotating one group"), 1);

	prof_format_line(&st, line, sizeof(line));
	assert_non_null(strstr(line, "[rotating]"));
	assert_non_null(strstr(line, "ipc "));
	f = fmemopen(json, sizeof(json), "w");
	assert_non_null(f);
	assert_int_equal(prof_write_json(&st, f), 0);
	fclose(f);
	assert_true(json_text_valid(json));
	assert_true(json_text_get(json, "counters.mode", line, sizeof(line)));
	assert_string_equal(line, "\"rotating\"");

	/* off and on again: straight back to rotating, said once */
	prof_counters_set(fx->p, false);
	prof_counters_set(fx->p, true);
	assert_int_equal(fake_pmu_hw_enabled(&fx->pmu), 1);
	run_frame(fx);
	assert_int_equal(log_capture_count(&fx->logcap, "rotating one group"), 1);
}

static void test_rotation_every_n_frames(void **state)
{
	struct fixture *fx = *state;
	static const int want[] = {0, 0, 1, 1, 2, 2, 0, 0};

	fx->pmu.hw_counters = 4;
	fx->cfg.rotate_frames = 2;
	start(fx, true);
	run_frame(fx);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		run_frame(fx);
		assert_int_equal(prof_last_frame(fx->p)->counter_group, want[i]);
	}
}

static void test_group_larger_than_pmu(void **state)
{
	struct fixture *fx = *state;
	struct prof_stats st;

	/* 3 counters: the 4th member of A and of B cannot join (EINVAL) */
	fx->pmu.hw_counters = 3;
	start(fx, true);
	assert_true(prof_counters_on(fx->p));
	assert_int_equal(fx->pmu.open_fds, 3 + 3 + 3 + 3);
	for (int f = 0; f < 13; f++)
		run_frame(fx);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_int_equal(st.counter_mode, PROF_CTR_ROTATING);
	assert_false(st.events_counted & (1u << PROF_EV_BRANCH_MISSES));
	assert_false(st.events_counted & (1u << PROF_EV_LLC_MISSES));
	check_phase_figures(fx, &st,
			    (1u << PROF_EV_BRANCH_MISSES) | (1u << PROF_EV_LLC_MISSES));
	assert_int_equal(log_capture_count(&fx->logcap,
					   "not counted here: branch-misses, LLC-load-misses"),
			 1);
}

static void test_no_hardware(void **state)
{
	struct fixture *fx = *state;
	struct prof_stats st;
	char line[1024];

	/* this project's VMs: no PMU, perf_event_open(cycles) -> ENOENT */
	fx->pmu.hw_counters = 0;
	start(fx, true);
	assert_true(prof_counters_on(fx->p));
	assert_int_equal(fx->pmu.open_fds, 3);
	for (int f = 0; f < 3; f++)
		run_frame(fx);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_int_equal(st.counter_mode, PROF_CTR_SOFTWARE);
	assert_int_equal(st.events_counted,
			 (1u << PROF_EV_TASK_CLOCK) | (1u << PROF_EV_CONTEXT_SWITCHES) |
				 (1u << PROF_EV_PAGE_FAULTS));
	for (int ph = 0; ph < PROF_PHASES; ph++) {
		double t = (double)frame_ns[ph] * 3;

		assert_true(isnan(st.phase[ph].ipc));
		assert_true(isnan(st.phase[ph].l1d_mpki));
		assert_true(isnan(st.phase[ph].cycles));
		near(st.phase[ph].cpu_share, rate(fx, PROF_EV_TASK_CLOCK, ph), "cpu", ph);
		near(st.phase[ph].context_switches,
		     rate(fx, PROF_EV_CONTEXT_SWITCHES, ph) * t, "context switches", ph);
	}
	/* timers unaffected */
	assert_int_equal(st.phase_ns[PROF_EXECUTE], 3 * frame_ns[PROF_EXECUTE]);
	prof_format_line(&st, line, sizeof(line));
	assert_non_null(strstr(line, "[sw only: no hw counters]"));
	assert_non_null(strstr(line, "cpu "));
	assert_null(strstr(line, "ipc"));
	/* said once, as a warning, naming the reason */
	assert_int_equal(fx->logcap.lines, 1);
	assert_int_equal(fx->logcap.warn_lines, 1);
	assert_int_equal(log_capture_count(&fx->logcap, "hardware events not supported"), 1);
	assert_int_equal(log_capture_count(&fx->logcap, "No such file or directory"), 1);
	/* toggling does not repeat it */
	prof_counters_set(fx->p, false);
	prof_counters_set(fx->p, true);
	run_frame(fx);
	assert_int_equal(fx->logcap.lines, 1);
}

static void test_unsupported_eopnotsupp(void **state)
{
	struct fixture *fx = *state;
	struct prof_stats st;

	fx->pmu.unsupported = (1u << PROF_EV_TASK_CLOCK) - 1;	/* every hw event */
	fx->pmu.unsupported_errno = EOPNOTSUPP;
	start(fx, true);
	run_frame(fx);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_int_equal(st.counter_mode, PROF_CTR_SOFTWARE);
	assert_int_equal(log_capture_count(&fx->logcap, "hardware events not supported"), 1);
}

static void test_nothing_at_all(void **state)
{
	struct fixture *fx = *state;
	struct prof_stats st;

	fx->pmu.hw_counters = 0;
	fx->pmu.sw_errno = ENOSYS;
	start(fx, true);
	assert_int_equal(fx->pmu.open_fds, 0);
	for (int f = 0; f < 2; f++)
		run_frame(fx);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_int_equal(st.counter_mode, PROF_CTR_NONE);
	assert_int_equal(st.events_counted, 0);
	assert_true(isnan(st.all.cpu_share));
	assert_int_equal(st.frames, 2);
	assert_int_equal(st.phase_ns[PROF_REPLY], 2 * frame_ns[PROF_REPLY]);
	assert_int_equal(log_capture_count(&fx->logcap, "phase timers only"), 1);
	assert_int_equal(fx->pmu.reads, 0);
}

static void test_user_space_only(void **state)
{
	struct fixture *fx = *state;
	struct prof_stats st;

	/* perf_event_paranoid 2 for an unprivileged user */
	fx->pmu.deny_kernel = true;
	start(fx, true);
	assert_int_equal(fx->pmu.open_fds, 14);
	for (int i = 0; i < FAKE_MAX_EVENTS; i++)
		if (fx->pmu.events[i].used)
			assert_int_equal(fx->pmu.events[i].attr.exclude_kernel, 1);
	run_frame(fx);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_true(st.counters_user_only);
	assert_int_equal(st.counter_mode, PROF_CTR_ALL);
	check_phase_figures(fx, &st, 0);
	assert_int_equal(log_capture_count(&fx->logcap, "user space only"), 1);
}

static void test_merge_receive_execute(void **state)
{
	struct fixture *fx = *state;
	struct prof_stats st;
	double cyc, ins;
	int reads;

	fx->cfg.counters_merge_rx_exec = true;
	start(fx, true);
	prof_switch(fx->p, PROF_RECEIVE);
	reads = fx->pmu.reads;
	/* per-packet switches between receive and execute read nothing */
	for (int i = 0; i < 10; i++) {
		prof_switch(fx->p, PROF_EXECUTE);
		prof_switch(fx->p, PROF_RECEIVE);
	}
	assert_int_equal(fx->pmu.reads, reads);
	prof_frame_end(fx->p);
	for (int f = 0; f < 4; f++)
		run_frame(fx);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_true(st.counters_merged);
	/* timers still split */
	assert_int_equal(st.phase_ns[PROF_EXECUTE], 4 * frame_ns[PROF_EXECUTE]);
	/* counters: receive holds receive+execute, execute is not measured */
	assert_true(isnan(st.phase[PROF_EXECUTE].ipc));
	cyc = rate(fx, PROF_EV_CYCLES, PROF_RECEIVE) * (double)frame_ns[PROF_RECEIVE] +
	      rate(fx, PROF_EV_CYCLES, PROF_EXECUTE) * (double)frame_ns[PROF_EXECUTE];
	ins = rate(fx, PROF_EV_INSTRUCTIONS, PROF_RECEIVE) * (double)frame_ns[PROF_RECEIVE] +
	      rate(fx, PROF_EV_INSTRUCTIONS, PROF_EXECUTE) * (double)frame_ns[PROF_EXECUTE];
	near(st.phase[PROF_RECEIVE].ipc, ins / cyc, "ipc", PROF_RECEIVE);
	near(st.phase[PROF_RECEIVE].cycles, 4 * cyc, "cycles", PROF_RECEIVE);
	near(st.phase[PROF_WORLD].ipc,
	     rate(fx, PROF_EV_INSTRUCTIONS, PROF_WORLD) / rate(fx, PROF_EV_CYCLES, PROF_WORLD),
	     "ipc", PROF_WORLD);

	/* and back: execute gets its own figures again (for a new scope) */
	prof_counters_merge(fx->p, false);
	prof_reset(fx->p);
	run_frame(fx);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_false(st.counters_merged);
	near(st.phase[PROF_EXECUTE].ipc,
	     rate(fx, PROF_EV_INSTRUCTIONS, PROF_EXECUTE) /
		     rate(fx, PROF_EV_CYCLES, PROF_EXECUTE),
	     "ipc", PROF_EXECUTE);
}

static void test_bad_reads_are_skipped(void **state)
{
	struct fixture *fx = *state;
	struct prof_stats st;
	struct prof_settings set;

	start(fx, true);
	fx->pmu.short_reads = true;
	run_frame(fx);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	assert_int_equal(st.counter_mode, PROF_CTR_NONE);	/* on, nothing read */
	assert_true(isnan(st.all.ipc));
	assert_int_equal(st.frames, 1);
	prof_get_settings(fx->p, &set);
	/* 9 boundaries in the frame (world, 3 x receive/execute, reply,
	 * frame end), 4 groups each */
	assert_int_equal(set.read_errors, 36);
}

static void test_counters_toggled_mid_interval(void **state)
{
	struct fixture *fx = *state;
	struct prof_stats st;

	start(fx, false);
	run_frame(fx);
	run_frame(fx);
	prof_counters_set(fx->p, true);
	run_frame(fx);
	run_frame(fx);
	prof_get_stats(fx->p, PROF_SCOPE_TOTAL, &st);
	/* counted half the frames: counts are extrapolated to all four,
	 * ratios are those of the frames counted */
	assert_int_equal(st.counter_mode, PROF_CTR_ALL);
	check_phase_figures(fx, &st, 0);
}

static const struct CMUnitTest counter_tests[] = {
	cmocka_unit_test_setup_teardown(test_groups_all_fit, setup, teardown),
	cmocka_unit_test_setup_teardown(test_reads_per_switch_and_off_costs_nothing,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_scaling_when_multiplexed, setup, teardown),
	cmocka_unit_test_setup_teardown(test_sampling, setup, teardown),
	cmocka_unit_test_setup_teardown(test_sampling_rotates_per_read_frame, setup, teardown),
	cmocka_unit_test_setup_teardown(test_rotation, setup, teardown),
	cmocka_unit_test_setup_teardown(test_rotation_every_n_frames, setup, teardown),
	cmocka_unit_test_setup_teardown(test_group_larger_than_pmu, setup, teardown),
	cmocka_unit_test_setup_teardown(test_no_hardware, setup, teardown),
	cmocka_unit_test_setup_teardown(test_unsupported_eopnotsupp, setup, teardown),
	cmocka_unit_test_setup_teardown(test_nothing_at_all, setup, teardown),
	cmocka_unit_test_setup_teardown(test_user_space_only, setup, teardown),
	cmocka_unit_test_setup_teardown(test_merge_receive_execute, setup, teardown),
	cmocka_unit_test_setup_teardown(test_bad_reads_are_skipped, setup, teardown),
	cmocka_unit_test_setup_teardown(test_counters_toggled_mid_interval, setup,
					teardown),
};

QWD_TEST_GROUP(prof_counters, counter_tests, NULL, NULL)
