/*
 * main.c -- the frame benchmark's program: options, the report and its
 * JSON (docs/framebench.md says how to read them).
 *
 * Design note
 *   The run itself is bench.c.  Rates are over the server's frames only
 *   (the wall time spent inside server_frame): frames/s is what the frame
 *   costs, not what the players' side in the same thread costs; the
 *   whole loop's wall and CPU time are printed beside it.  Percentiles
 *   are the project's (qwd_hist), as qwd's and gamebench's.
 *
 *   usage: framebench [--players N] [--frames F] [--warmup W] [--map M]
 *                     [--seed S] [--rate BYTES] [--join-rate N] [--log]
 *                     [--threads N|auto] [--threads-max N] [--cpus LIST]
 *                     [--set "NAME VALUE"] [--schedule [--schedule-rule R]]
 *                     [--quiet | --fighters N] [--lag R] [--spread K]
 *                     [--interval MS] [--json FILE]
 */
#include "framebench.h"
#include "qwtools.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "qwd/net.h"
#include "qwd/pool.h"
#include "qwd/server.h"

/* ns over frames as us per frame */
static double per_frame(uint64_t ns, uint64_t frames)
{
	return frames ? (double)ns / 1000.0 / (double)frames : 0.0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: framebench [--players N] [--frames F] [--warmup W] [--map M]\n"
		"                  [--seed S] [--rate BYTES] [--join-rate N] [--log]\n"
		"                  [--threads N|auto] [--threads-max N] [--cpus LIST]\n"
		"                  [--set \"NAME VALUE\"] [--schedule [--schedule-rule R]]\n"
		"                  [--quiet | --fighters N] [--lag R] [--spread K]\n"
		"                  [--interval MS] [--json FILE]\n"
		"  a qwd server in-process, N walker players in lockstep through memory\n"
		"  (no sockets); qwd's phase timers per frame and per request.\n"
		"  defaults: 512 players, 500 frames after 20 of warm-up, map small\n"
		"  (or large, or a .bsp path), seed 1, rate 100000 (the highest),\n"
		"  32 players starting to join a frame, 1 thread (the sequential frame;\n"
		"  N: the replies built by N workers, qwd -threads N; --cpus pins them,\n"
		"  qwd -cpus; auto: qwd -threads auto, the pool's size predicted, at most\n"
		"  --threads-max, on the bench's clock of 13 ms a frame); --set: a cvar\n"
		"  (sv_threads_period 0.1), up to 8\n"
		"  --schedule: the jobs of a parallel frame every frame (docs/parallel.md)\n"
		"  and LPT over their measured costs on 1-16 workers, simulated;\n"
		"  --schedule-rule: what a shot joins: shots (the rule: its line of\n"
		"  fire, all shots one job), lines (its line of fire), moves (nothing),\n"
		"  local (nothing, and what acts anywhere neither: move ranges alone)\n"
		"  --lag R: the replies reach the players R rounds (13 ms each) late\n"
		"  (their view that old: antilag rewinds that far)\n"
		"  --interval MS: after the join, a player's requests MS apart\n"
		"  (13; qwexp's 30 a second: 33); --spread K: a player sends in\n"
		"  one round of K (staggered), a round MS/K: a frame reads a K-th\n"
		"  of the requests, as a live server's frame of a few dozen\n"
		"  --quiet: the walkers never fire; --fighters N: the first N players\n"
		"  walk with the trigger held down (the rest are the study's walkers)\n"
		"  with N threads the moves run on the workers too (sv_threads_execute\n"
		"  4, the default: pipelined speculative moves, pmove ahead on a\n"
		"  snapshot beside the commit; 3: the steps ahead before the commit;\n"
		"  1: local jobs while the schedule pays; 2: always; 0: none);\n"
		"  the state digest (the game after every frame) is then the same\n");
}

static int number(const char *opt, const char *v, long lo, long hi, long *out)
{
	char *end;
	long n;

	if (!v) {
		fprintf(stderr, "framebench: %s needs a value\n", opt);
		return -1;
	}
	n = strtol(v, &end, 10);
	if (*v == '\0' || *end != '\0' || n < lo || n > hi) {
		fprintf(stderr, "framebench: %s: \"%s\" is not a number in %ld..%ld\n",
			opt, v, lo, hi);
		return -1;
	}
	*out = n;
	return 0;
}

static int parse_args(int argc, char **argv, struct fb_config *c,
		      const char **json, int *cpus)
{
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		long n = 0;
		int rc = 0;

		if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			usage();
			exit(0);
		} else if (!strcmp(o, "--log")) {
			c->log = true;
			continue;
		} else if (!strcmp(o, "--schedule")) {
			c->schedule = true;
			continue;
		} else if (!strcmp(o, "--quiet")) {
			c->quiet = true;
			continue;
		} else if (!strcmp(o, "--fighters")) {
			rc = number(o, v, 0, FB_MAX_PLAYERS, &n);
			c->fighters = (int)n;
		} else if (!strcmp(o, "--spread")) {
			rc = number(o, v, 1, FB_MAX_SPREAD, &n);
			c->spread = (int)n;
		} else if (!strcmp(o, "--interval")) {
			rc = number(o, v, 1, 1000, &n);
			c->interval_ms = (int)n;
		} else if (!strcmp(o, "--lag")) {
			rc = number(o, v, 0, FB_MAX_LAG, &n);
			c->lag = (int)n;
		} else if (!strcmp(o, "--schedule-rule") && v) {
			c->schedule_rule = -1;
			for (int k = 0; k < SERVER_SCHED_RULES; k++)
				if (!strcmp(v, server_sched_rule_name(k)))
					c->schedule_rule = k;
			if (c->schedule_rule < 0) {
				fprintf(stderr, "framebench: --schedule-rule: shots, "
					"lines, moves or local, not \"%s\"\n", v);
				return -1;
			}
		} else if (!strcmp(o, "--map") && v) {
			c->map = v;
		} else if (!strcmp(o, "--json") && v) {
			*json = v;
		} else if (!strcmp(o, "--players")) {
			rc = number(o, v, 1, FB_MAX_PLAYERS, &n);
			c->players = (int)n;
		} else if (!strcmp(o, "--frames")) {
			rc = number(o, v, 1, 10000000, &n);
			c->frames = (int)n;
		} else if (!strcmp(o, "--warmup")) {
			rc = number(o, v, 0, 1000000, &n);
			c->warmup = (int)n;
		} else if (!strcmp(o, "--seed")) {
			rc = number(o, v, 0, INT64_MAX, &n);
			c->seed = (uint64_t)n;
		} else if (!strcmp(o, "--rate")) {
			rc = number(o, v, NETCHAN_MIN_RATE, NETCHAN_MAX_RATE, &n);
			c->rate = (int)n;
		} else if (!strcmp(o, "--join-rate")) {
			rc = number(o, v, 1, FB_MAX_PLAYERS, &n);
			c->join_per_frame = (int)n;
		} else if (!strcmp(o, "--threads") && v && !strcmp(v, "auto")) {
			c->threads_auto = true;
		} else if (!strcmp(o, "--threads")) {
			rc = number(o, v, 1, POOL_MAX_THREADS, &n);
			c->threads = (int)n;
		} else if (!strcmp(o, "--threads-max")) {
			rc = number(o, v, 1, POOL_MAX_THREADS, &n);
			c->threads_max = (int)n;
		} else if (!strcmp(o, "--set") && v) {
			if (c->num_sets == FB_MAX_SETS) {
				fprintf(stderr, "framebench: --set: at most %d\n", FB_MAX_SETS);
				return -1;
			}
			c->sets[c->num_sets++] = v;
		} else if (!strcmp(o, "--cpus") && v) {
			c->num_cpus = pool_parse_cpus(v, cpus, POOL_MAX_THREADS);
			c->cpus = cpus;
			if (c->num_cpus < 0) {
				fprintf(stderr, "framebench: --cpus: \"%s\" is not a CPU list "
					"(0,1 or 0-3, at most %d)\n", v, POOL_MAX_THREADS);
				return -1;
			}
		} else {
			fprintf(stderr, "framebench: unknown option or missing value: %s\n", o);
			usage();
			return -1;
		}
		if (rc != 0)
			return -1;
		i++;
	}
	return 0;
}

struct figures {
	double mean, p99;	/* us */
};

static struct figures us(const struct qwd_hist *h)
{
	struct qwd_hist_summary s;

	qwd_hist_summarize(h, &s);
	return (struct figures){ s.mean / 1000.0, (double)s.p99 / 1000.0 };
}

static double per_s(double n, double s)
{
	return s > 0 ? n / s : 0.0;
}

static void json_figures(struct json_out *j, const char *key, const struct qwd_hist *h)
{
	struct figures f = us(h);

	json_begin(j, key, '{');
	json_fixed(j, "mean", f.mean, 3);
	json_fixed(j, "p99", f.p99, 3);
	json_end(j);
}

/* a histogram's count, mean, p50, p99 and max, each divided by scale */
static void json_hist(struct json_out *j, const char *key, const struct qwd_hist *h,
		      double scale)
{
	struct qwd_hist_summary s;

	qwd_hist_summarize(h, &s);
	json_begin(j, key, '{');
	json_u64(j, "count", s.count);
	json_fixed(j, "mean", s.mean / scale, 3);
	json_fixed(j, "p50", (double)s.p50 / scale, 3);
	json_fixed(j, "p99", (double)s.p99 / scale, 3);
	json_fixed(j, "max", (double)s.max / scale, 3);
	json_end(j);
}

static double speedup(const struct fb_schedule *s, int w)
{
	return s->makespan_ns[w] ? (double)s->cost_ns / (double)s->makespan_ns[w] : 0.0;
}

static void json_schedule(struct json_out *j, const struct fb_schedule *s,
			  int rule)
{
	json_begin(j, "schedule", '{');
	json_u64(j, "frames", s->frames);
	json_u64(j, "clients", s->clients);
	json_u64(j, "firing_clients", s->firing);
	json_u64(j, "global_frames", s->global_frames);
	json_str(j, "rule", server_sched_rule_name(rule));
	json_break(j, 4);
	json_hist(j, "jobs_per_frame", &s->jobs_per_frame, 1.0);
	json_hist(j, "entities_per_job", &s->entities_per_job, 1.0);
	json_hist(j, "clients_per_job", &s->clients_per_job, 1.0);
	json_hist(j, "cost_per_job_us", &s->cost_per_job, 1000.0);
	json_hist(j, "largest_job_share_pct", &s->largest_share, 100.0);
	json_hist(j, "lpt2_max_over_mean", &s->balance2, 1000.0);
	json_break(j, 4);
	json_u64(j, "cost_ns", s->cost_ns);
	json_begin(j, "simulated_lpt", '[');
	for (int w = 0; w < FB_SCHED_WORKERS; w++) {
		json_begin(j, NULL, '{');
		json_i64(j, "workers", fb_sched_workers[w]);
		json_u64(j, "makespan_ns", s->makespan_ns[w]);
		json_fixed(j, "speedup", speedup(s, w), 3);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

static void write_json(const char *file, const struct fb_config *c,
		       const struct fb_result *r, const struct qwt_machine *m)
{
	FILE *f = fopen(file, "w");
	struct json_out j;
	char digest[24], replies[24];

	if (!f) {
		perror(file);
		return;
	}
	snprintf(digest, sizeof(digest), "%016" PRIx64, r->digest);
	snprintf(replies, sizeof(replies), "%016" PRIx64, r->reply_digest);
	json_init(&j, f, NULL, 0);
	json_begin(&j, NULL, '{');
	qwt_json_machine(&j, "framebench", m);
	json_break(&j, 2);
	json_str(&j, "map", r->map_path);
	json_break(&j, 2);
	json_i64(&j, "players", r->players);
	json_i64(&j, "joined", r->joined);
	json_i64(&j, "in_game", r->in_game);
	json_i64(&j, "join_frames", r->join_frames);
	json_break(&j, 2);
	json_u64(&j, "seed", c->seed);
	json_i64(&j, "rate", c->rate);
	json_i64(&j, "warmup", c->warmup);
	json_i64(&j, "threads", c->threads > 1 ? c->threads : 1);
	if (c->threads_auto)
		json_str(&j, "threads_auto", r->threads);
	json_i64(&j, "frames", r->frames);
	json_fixed(&j, "frame_game_ms", 13.0, 1);
	json_break(&j, 2);
	json_fixed(&j, "frames_per_s", per_s(r->frames, r->frame_wall_s), 2);
	json_fixed(&j, "requests_per_s", per_s((double)r->prof.requests, r->frame_wall_s), 1);
	json_fixed(&j, "replies_per_s", per_s((double)r->prof.replies, r->frame_wall_s), 1);
	json_break(&j, 2);
	json_begin(&j, "server", '{');
	json_u64(&j, "requests", r->prof.requests);
	json_u64(&j, "replies", r->prof.replies);
	json_u64(&j, "frames", r->server_frames);
	json_fixed(&j, "frame_wall_s", r->frame_wall_s, 6);
	json_fixed(&j, "frame_cpu_s", r->frame_cpu_s, 6);
	json_end(&j);
	json_break(&j, 2);
	json_begin(&j, "players_side", '{');
	json_u64(&j, "requests", r->requests);
	json_u64(&j, "answered", r->answered);
	json_u64(&j, "replies", r->replies);
	json_u64(&j, "bad", r->bad);
	json_u64(&j, "queue_drops", r->dropped_datagrams);
	json_end(&j);
	json_break(&j, 2);
	json_begin(&j, "phase_us_per_frame", '{');
	for (int k = 0; k < FB_PHASES; k++)
		json_figures(&j, fb_phase_name(k), &r->phase_frame[k]);
	json_figures(&j, "busy", &r->busy_frame);
	json_end(&j);
	json_break(&j, 2);
	json_begin(&j, "phase_us_per_request", '{');
	for (int k = 0; k < FB_PHASES; k++)
		json_figures(&j, fb_phase_name(k), &r->phase_request[k]);
	json_end(&j);
	json_break(&j, 2);
	json_begin(&j, "request_time_us", '{');
	json_fixed(&j, "mean", r->prof.request_time_ns.mean / 1000.0, 3);
	json_fixed(&j, "p99", (double)r->prof.request_time_ns.p99 / 1000.0, 3);
	json_end(&j);
	json_break(&j, 2);
	json_fixed(&j, "loop_wall_s", r->loop_wall_s, 6);
	json_fixed(&j, "loop_cpu_s", r->loop_cpu_s, 6);
	json_break(&j, 2);
	json_str(&j, "world_digest", digest);
	json_str(&j, "reply_digest", replies);
	snprintf(digest, sizeof(digest), "%016" PRIx64, r->state_digest);
	json_str(&j, "state_digest", digest);
	json_break(&j, 2);
	json_str(&j, "behaviour", c->quiet ? "quiet" : c->fighters ? "fighters" : "walkers");
	json_i64(&j, "fighters", c->fighters);
	json_i64(&j, "spread", c->spread);
	json_i64(&j, "interval_ms", c->interval_ms);
	json_begin(&j, "execute", '{');
	json_u64(&j, "parallel", r->exec.parallel);
	json_u64(&j, "sequential", r->exec.sequential);
	json_u64(&j, "skipped", r->exec.skipped);
	json_u64(&j, "jobs", r->exec.jobs);
	json_u64(&j, "local_moves", r->exec.local_moves);
	json_u64(&j, "shared_moves", r->exec.shared_moves);
	json_u64(&j, "outside", r->exec.outside);
	json_u64(&j, "escapes", r->exec.escapes);
	json_u64(&j, "calls_lost", r->exec.calls_lost);
	json_u64(&j, "schedule_ns", r->exec.ns[SERVER_EXEC_SCHEDULE]);
	json_u64(&j, "workers_ns", r->exec.ns[SERVER_EXEC_PARALLEL]);
	json_u64(&j, "commit_ns", r->exec.ns[SERVER_EXEC_COMMIT]);
	json_u64(&j, "shared_ns", r->exec.ns[SERVER_EXEC_SHARED]);
	json_u64(&j, "arrival_ns", r->exec.ns[SERVER_EXEC_ARRIVAL]);
	json_u64(&j, "spec_segments", r->exec.spec_segments);
	json_u64(&j, "spec_moves", r->exec.spec_moves);
	json_u64(&j, "spec_rested", r->exec.spec_rested);
	json_u64(&j, "spec_hits", r->exec.spec_hits);
	json_u64(&j, "spec_inputs", r->exec.spec_inputs);
	json_u64(&j, "spec_world", r->exec.spec_world);
	json_u64(&j, "spec_noted", r->exec.spec_noted);
	json_u64(&j, "spec_overflows", r->exec.spec_overflows);
	json_u64(&j, "pipe_segments", r->exec.pipe_segments);
	json_u64(&j, "pipe_waits", r->exec.pipe_waits);
	json_u64(&j, "pipe_own", r->exec.pipe_own);
	json_u64(&j, "pipe_gave_up", r->exec.pipe_gave_up);
	json_end(&j);
	if (c->schedule) {
		json_break(&j, 2);
		json_schedule(&j, &r->sched, c->schedule_rule);
	}
	json_break(&j, 0);
	json_end(&j);
	json_raw(&j, "\n");
	if (json_finish(&j, NULL) != 0 || fclose(f) != 0)
		fprintf(stderr, "framebench: %s: write failed\n", file);
}

static void report_hist(const char *what, const struct qwd_hist *h, double scale)
{
	struct qwd_hist_summary s;

	qwd_hist_summarize(h, &s);
	printf("  %-34s %9.2f %9.2f %9.2f %9.2f\n", what, s.mean / scale,
	       (double)s.p50 / scale, (double)s.p99 / scale, (double)s.max / scale);
}

static void report_schedule(const struct fb_schedule *s, int rule)
{
	static const char *const rules[SERVER_SCHED_RULES] = {
		"rule shots: a shot joins its line of fire, all shots one job",
		"rule lines: a shot joins its line of fire, shots apart",
		"rule moves: shots join nothing (a bound: as if nobody fired)",
		"rule local: shots and what acts anywhere join nothing (the move "
		"ranges alone, a bound)",
	};

	printf("schedule: a parallel frame's jobs (connected components of the clients'\n"
	       "action lists), %" PRIu64 " server frames, %.1f clients with moves a frame, "
	       "%.2f%% of them firing; %s\n", s->frames,
	       s->frames ? (double)s->clients / (double)s->frames : 0.0,
	       s->clients ? 100.0 * (double)s->firing / (double)s->clients : 0.0,
	       rules[rule]);
	printf("  %" PRIu64 " frames with a command that acts anywhere (a respawn, "
	       "a teleporter, a button): one job%s\n", s->global_frames,
	       rule == SERVER_SCHED_LOCAL ? " but under this rule" : "");
	printf("  %-34s %9s %9s %9s %9s\n", "", "mean", "p50", "p99", "max");
	report_hist("jobs per frame", &s->jobs_per_frame, 1.0);
	report_hist("entities per job", &s->entities_per_job, 1.0);
	report_hist("clients per job", &s->clients_per_job, 1.0);
	report_hist("cost per job (us, measured)", &s->cost_per_job, 1000.0);
	report_hist("largest job's share of frame (%)", &s->largest_share, 100.0);
	report_hist("LPT on 2 workers: max/mean load", &s->balance2, 1000.0);
	printf("  SIMULATION: LPT over the measured job costs (moves only), summed "
	       "over the frames\n  workers     makespan ms   speedup (sum %.1f ms / makespan)\n",
	       (double)s->cost_ns / 1e6);
	for (int w = 0; w < FB_SCHED_WORKERS; w++)
		printf("  %7d %15.1f %9.2f\n", fb_sched_workers[w],
		       (double)s->makespan_ns[w] / 1e6, speedup(s, w));
}

static void report(const struct fb_config *c, const struct fb_result *r,
		   const struct qwt_machine *m)
{
	double busy = 0;

	for (int k = 0; k < FB_PHASES; k++)
		busy += (double)r->phase_ns[k];
	printf("framebench: qwd's frame in-process, players in lockstep through memory\n");
	printf("  map        %s\n", r->map_path);
	printf("  players    %d (%d joined in %d frames, %d in the game at the end), "
	       "random walkers (seed %" PRIu64 "), %s, rate %d\n", r->players,
	       r->joined, r->join_frames, r->in_game, c->seed,
	       r->players > 32 ? "QWDX" : "protocol 28", c->rate);
	if (c->spread > 1)
		printf("  frames     %d measured after %d of warm-up; %.3f ms of game time each, "
		       "a player's requests %d ms apart, one frame in %d (--spread)\n",
		       r->frames, c->warmup, (double)c->interval_ms / c->spread,
		       c->interval_ms, c->spread);
	else
		printf("  frames     %d measured after %d of warm-up; %d ms of game time each, "
		       "one request per player per frame\n", r->frames, c->warmup,
		       c->interval_ms);
	if (c->threads_auto)
		printf("  server     -threads auto: at the end, %s%s\n", r->threads,
		       c->num_cpus > 0 ? ", pinned (--cpus)" : "");
	else
		printf("  server     %d thread%s%s\n", c->threads > 1 ? c->threads : 1,
		       c->threads > 1 ? "s (the replies built by the workers)" : " (the sequential frame)",
		       c->num_cpus > 0 ? ", pinned (--cpus)" : "");
	printf("  machine    %s, %ld CPUs online, RAM %s\n", m->cpu,
	       sysconf(_SC_NPROCESSORS_ONLN), m->ram);
	printf("  date       %s\n", m->date);
#if defined(__SANITIZE_ADDRESS__)
	printf("  build      with AddressSanitizer: figures not comparable\n");
#endif
	printf("rates over the frames' wall time (%.3f s in server_frame, CPU %.3f s):\n",
	       r->frame_wall_s, r->frame_cpu_s);
	if (r->server_frames > (uint64_t)r->frames)
		printf("  (%" PRIu64 " server frames for %d rounds: a frame reads at most 1024 "
		       "requests; figures per round below)\n", r->server_frames, r->frames);
	printf("  %.1f frames/s, %.0f requests/s, %.0f replies/s\n",
	       per_s(r->frames, r->frame_wall_s),
	       per_s((double)r->prof.requests, r->frame_wall_s),
	       per_s((double)r->prof.replies, r->frame_wall_s));
	printf("phases (qwd's timers)   per frame: mean     p99  |  per request: mean    p99   share\n");
	for (int k = 0; k < FB_PHASES; k++) {
		struct figures f = us(&r->phase_frame[k]), q = us(&r->phase_request[k]);

		printf("  %-8s             %10.1f us %8.1f us | %10.3f us %7.3f us %5.1f%%\n",
		       fb_phase_name(k), f.mean, f.p99, q.mean, q.p99,
		       busy > 0 ? 100.0 * (double)r->phase_ns[k] / busy : 0.0);
	}
	{
		struct figures f = us(&r->busy_frame);

		printf("  %-8s             %10.1f us %8.1f us\n", "all four", f.mean, f.p99);
	}
	printf("request time (receive to reply queued): mean %.1f us, p99 %.1f us\n",
	       r->prof.request_time_ns.mean / 1000.0,
	       (double)r->prof.request_time_ns.p99 / 1000.0);
	printf("players' side: %" PRIu64 " requests, %" PRIu64 " answered in their frame "
	       "(%" PRIu64 " choked by the rate), %" PRIu64 " replies read, %" PRIu64
	       " bad, %" PRIu64 " queue drops\n", r->requests, r->answered,
	       r->requests - r->answered, r->replies, r->bad, r->dropped_datagrams);
	printf("whole loop (players' work included): wall %.3f s, CPU %.3f s\n",
	       r->loop_wall_s, r->loop_cpu_s);
	printf("world digest (equal for equal options): %016" PRIx64 "\n", r->digest);
	printf("reply digest (every reply to every player; equal for equal options, "
	       "any --threads): %016" PRIx64 "\n", r->reply_digest);
	printf("state digest (the game after every frame; equal for equal options, "
	       "any --threads): %016" PRIx64 "\n", r->state_digest);
	if (r->exec.parallel || r->exec.sequential) {
		const struct server_exec_stats *x = &r->exec;
		uint64_t moves = x->local_moves + x->shared_moves;

		printf("execute on workers: %" PRIu64 " segments in parallel, %" PRIu64
		       " in arrival order (%" PRIu64 " not scheduled); %.1f local jobs and %.1f moves per parallel "
		       "segment, %.1f%% of their moves local; %" PRIu64 " out of region, %"
		       PRIu64 " escapes, %" PRIu64 " calls lost\n", x->parallel,
		       x->sequential, x->skipped, x->parallel ? (double)x->jobs / (double)x->parallel : 0,
		       x->parallel ? (double)moves / (double)x->parallel : 0,
		       moves ? 100.0 * (double)x->local_moves / (double)moves : 0,
		       x->outside, x->escapes, x->calls_lost);
		printf("  execute by step, per frame: schedule %.1f us, workers %.1f us "
		       "(to the barrier), commit %.1f us, shared job %.1f us, in arrival "
		       "order %.1f us\n",
		       per_frame(x->ns[SERVER_EXEC_SCHEDULE], r->server_frames),
		       per_frame(x->ns[SERVER_EXEC_PARALLEL], r->server_frames),
		       per_frame(x->ns[SERVER_EXEC_COMMIT], r->server_frames),
		       per_frame(x->ns[SERVER_EXEC_SHARED], r->server_frames),
		       per_frame(x->ns[SERVER_EXEC_ARRIVAL], r->server_frames));
	}
	if (r->exec.spec_segments) {
		const struct server_exec_stats *x = &r->exec;
		uint64_t asked = x->spec_hits + x->spec_inputs + x->spec_world;

		printf("speculative moves: %" PRIu64 " segments, %" PRIu64
		       " first steps ahead (%" PRIu64 " moves resting); at their turn %" PRIu64 " taken (%.1f%%), %"
		       PRIu64 " run again for their input, %" PRIu64
		       " for the world; %" PRIu64 " logs filled\n",
		       x->spec_segments, x->spec_moves, x->spec_rested, x->spec_hits,
		       asked ? 100.0 * (double)x->spec_hits / (double)asked : 0,
		       x->spec_inputs, x->spec_world, x->spec_overflows);
		if (x->pipe_segments)
			printf("  pipelined: %" PRIu64 " segments; turns that waited "
			       "for their step %" PRIu64 " (gave up %" PRIu64
			       "), that found it not taken (run in the turn) %"
			       PRIu64 "\n"
			       "  per frame: inputs and snapshot on the workers %.1f us, "
			       "commit with steps ahead beside it %.1f us\n",
			       x->pipe_segments, x->pipe_waits, x->pipe_gave_up,
			       x->pipe_own,
			       per_frame(x->ns[SERVER_EXEC_PARALLEL], r->server_frames),
			       per_frame(x->ns[SERVER_EXEC_ARRIVAL], r->server_frames));
		else
			printf("  per frame: ahead on the workers %.1f us (to the barrier), "
			       "in arrival order %.1f us\n",
			       per_frame(x->ns[SERVER_EXEC_PARALLEL], r->server_frames),
			       per_frame(x->ns[SERVER_EXEC_ARRIVAL], r->server_frames));
	}
	if (c->schedule)
		report_schedule(&r->sched, c->schedule_rule);
}

int main(int argc, char **argv)
{
	struct fb_config c;
	struct fb_result *r;
	const char *json = NULL;
	int cpus[POOL_MAX_THREADS];
	char err[512];
	struct qwt_machine machine;

	fb_config_default(&c);
	if (parse_args(argc, argv, &c, &json, cpus) != 0)
		return 2;
	r = calloc(1, sizeof(*r));
	if (!r) {
		fprintf(stderr, "framebench: out of memory\n");
		return 1;
	}
	if (fb_run(&c, r, err, sizeof(err)) != 0) {
		fprintf(stderr, "framebench: %s\n", err);
		free(r);
		return 1;
	}
	qwt_machine_read(&machine);
	report(&c, r, &machine);
	if (json)
		write_json(json, &c, r, &machine);
	free(r);
	return 0;
}
