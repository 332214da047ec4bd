/*
 * tests/framebench/test_framebench.c -- the frame benchmark's run
 * (tools/framebench/bench.c) does what its figures claim: every player
 * joins through the connectionless and signon path, every request of a
 * measured frame is answered in that frame and read by the client library
 * without a fault, nothing is lost in the memory queues, qwd's timers saw
 * every frame and request, and a seed fixes the game: the same seed ends
 * with the same player origins, another seed with others.  And the
 * parallel REPLY phase (qwd -threads, docs/parallel.md) changes nothing a
 * player sees: with 2 or 3 threads the world and every reply, byte for
 * byte, round by round, are those of the sequential frame, and so with
 * -threads auto while its pool grows.  The parallel EXECUTE plays the
 * sequential frame's game: 256 walkers and fighters for 30 s of game
 * time reach the same state after every frame with 1, 2 and 3 threads.
 *
 * Design note: small runs on the bundled small map (64 players, QWDX,
 * 100 frames; 16 stock protocol-28 players), well under the rate, so no
 * reply is choked; the thread runs also take a crowd whose replies the
 * rate chokes (300 players), so the rate's decisions are compared too,
 * and stock players past the scoreboard's first pings (2 s).  No timing
 * is asserted; the times are the tool's to print (docs/framebench.md).
 */
#include "../harness.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/framebench/framebench.h"

/* the bench's defaults on a bundled map with these */
static void config_of(struct fb_config *c, const char *map, int players,
		      int frames, uint64_t seed, int threads)
{
	fb_config_default(c);
	c->map = qwd_bundled_map(map);
	c->players = players;
	c->frames = frames;
	c->seed = seed;
	c->threads = threads;
}

/* one run of c (a failed run fails the test) */
static struct fb_result *run_config(const struct fb_config *c)
{
	struct fb_result *r = calloc(1, sizeof(*r));
	char err[512] = "";

	assert_non_null(r);
	if (fb_run(c, r, err, sizeof(err)) != 0)
		fail_msg("fb_run: %s", err);
	return r;
}

/* the bench's defaults on the small map with these; auto: -threads auto
 * with `threads` at most, its sets as given */
static struct fb_result *run_with(int players, int frames, uint64_t seed,
				  int threads, bool automatic,
				  const char *const *sets, bool schedule)
{
	struct fb_config c;

	config_of(&c, "small", players, frames, seed, threads);
	c.schedule = schedule;
	c.threads_auto = automatic;
	c.threads_max = automatic ? threads : 0;
	for (int i = 0; sets && sets[i]; i++)
		c.sets[c.num_sets++] = sets[i];
	return run_config(&c);
}

/* the REPLY phase on the workers, the moves run as the sequential frame
 * runs them (sv_threads_execute 0): byte for byte the same replies.  With
 * the moves on the workers too, the world is the same (below) but a
 * sound's or a temporary entity's receivers are chosen after the
 * segment's moves rather than at the move (docs/parallel.md). */
static const char *const replies_only[] = {"sv_threads_execute 0", NULL};

static struct fb_result *run_threads(int players, int frames, uint64_t seed,
				     int threads)
{
	return run_with(players, frames, seed, threads, false, replies_only, false);
}

static struct fb_result *run(int players, int frames, uint64_t seed)
{
	return run_with(players, frames, seed, 1, false, NULL, false);
}

/* every request answered and read, by players and server alike */
static void check_lockstep(const struct fb_result *r, int players, int frames)
{
	uint64_t want = (uint64_t)players * (uint64_t)frames;

	assert_int_equal(r->joined, players);
	assert_int_equal(r->in_game, players);
	assert_int_equal(r->frames, frames);
	assert_int_equal(r->requests, want);
	assert_int_equal(r->answered, want);
	assert_int_equal(r->replies, want);
	assert_int_equal(r->bad, 0);
	assert_int_equal(r->dropped_datagrams, 0);
	assert_int_equal(r->prof.requests, want);
	assert_int_equal(r->prof.replies, want);
	assert_int_equal(r->prof.frames, frames);
	for (int k = 0; k < FB_PHASES; k++)
		assert_int_equal(r->phase_frame[k].count, frames);
}

static void test_qwdx_players(void **state)
{
	struct fb_result *r = run(64, 100, 7);

	(void)state;
	check_lockstep(r, 64, 100);
	free(r);
}

static void test_stock_players(void **state)
{
	struct fb_result *r = run(16, 30, 7);

	(void)state;
	check_lockstep(r, 16, 30);
	free(r);
}

static void test_seed_fixes_the_game(void **state)
{
	struct fb_result *a = run(64, 100, 7), *b = run(64, 100, 7);
	struct fb_result *c = run(64, 100, 8);

	(void)state;
	assert_int_equal(a->digest, b->digest);
	assert_memory_equal(a->first_origin, b->first_origin, sizeof(a->first_origin));
	/* another seed walks elsewhere: the digest is no constant */
	assert_int_not_equal(a->digest, c->digest);
	free(a);
	free(b);
	free(c);
}

/* the same options with 1 and n threads: the same world, the same replies
 * (and the rate's decisions: the same answered count) */
static void check_threads_equal(int players, int frames, int n)
{
	struct fb_result *a = run_threads(players, frames, 5, 1);
	struct fb_result *b = run_threads(players, frames, 5, n);

	assert_int_equal(b->in_game, players);
	assert_int_equal(b->bad, 0);
	assert_int_equal(b->dropped_datagrams, 0);
	assert_true(a->replies > 0);
	assert_int_equal(a->replies, b->replies);
	assert_int_equal(a->answered, b->answered);
	assert_int_equal(a->prof.replies, b->prof.replies);
	assert_int_equal(a->digest, b->digest);
	assert_int_equal(a->reply_digest, b->reply_digest);
	free(a);
	free(b);
}

static void test_threads_same_replies(void **state)
{
	(void)state;
	check_threads_equal(64, 100, 2);
	check_threads_equal(64, 100, 3);
}

/* the replies' entities found by leaf (sv_send_leafs 1, the default)
 * and by testing every entity (0): the same replies, byte for byte, in
 * a crowd whose bodies and shots spread over many leafs */
static void test_send_leafs_same_replies(void **state)
{
	const char *plain[] = {"sv_send_leafs 0", NULL};
	struct fb_result *a = run_with(256, 120, 9, 1, false, NULL, false);
	struct fb_result *b = run_with(256, 120, 9, 1, false, plain, false);

	(void)state;
	assert_int_equal(a->bad, 0);
	assert_true(a->replies > 0);
	assert_int_equal(a->replies, b->replies);
	assert_int_equal(a->answered, b->answered);
	assert_int_equal(a->digest, b->digest);
	assert_int_equal(a->reply_digest, b->reply_digest);
	free(a);
	free(b);
}

/* -threads auto whose pool grows by a worker every few frames (any need
 * passes a threshold of 0) from 1 to 3 during the run: the same world
 * and replies as the sequential frame while the size changes (the
 * shrinking is tests/server's, which sets the thresholds mid-run) */
static void test_threads_auto_same_replies(void **state)
{
	const char *grow[] = {"sv_threads_period 0.05", "sv_threads_high 0",
			      "sv_threads_low 0", "sv_threads_execute 0", NULL};
	struct fb_result *a = run_threads(64, 100, 5, 1);
	struct fb_result *b = run_with(64, 100, 5, 3, true, grow, false);

	(void)state;
	assert_non_null(strstr(b->threads, "auto, 3 active of 3"));
	assert_non_null(strstr(b->threads, " 2 changes"));
	assert_int_equal(b->bad, 0);
	assert_int_equal(a->answered, b->answered);
	assert_int_equal(a->digest, b->digest);
	assert_int_equal(a->reply_digest, b->reply_digest);
	free(a);
	free(b);
}

static void test_threads_same_replies_choked(void **state)
{
	struct fb_result *r = run_threads(300, 40, 5, 2);

	(void)state;
	/* the crowd is choked (else the case below compares nothing more) */
	assert_true(r->answered < r->requests);
	free(r);
	check_threads_equal(300, 40, 2);
}

static void test_threads_same_replies_stock(void **state)
{
	(void)state;
	/* 200 rounds of 13 ms: the scoreboard's pings go out */
	check_threads_equal(16, 200, 2);
}

/* the reply digest sees the replies: another seed, another digest */
static void test_reply_digest_moves(void **state)
{
	struct fb_result *a = run_threads(64, 30, 5, 2);
	struct fb_result *b = run_threads(64, 30, 6, 2);

	(void)state;
	assert_int_not_equal(a->reply_digest, b->reply_digest);
	free(a);
	free(b);
}

/* --schedule: every move of every frame in exactly one job, LPT's
 * simulation consistent, and the game the same as without it */
static void test_schedule(void **state)
{
	struct fb_result *a = run_with(64, 100, 7, 1, false, NULL, true), *b = run(64, 100, 7);
	const struct fb_schedule *s = &a->sched;

	(void)state;
	check_lockstep(a, 64, 100);
	assert_int_equal(a->digest, b->digest);
	assert_int_equal(s->frames, 100);
	assert_int_equal(s->clients, 64 * 100);
	assert_int_equal(s->jobs_per_frame.count, 100);
	assert_int_equal(s->clients_per_job.sum, s->clients);
	assert_int_equal(s->clients_per_job.count, s->jobs_per_frame.sum);
	/* a job holds its players' entities at least */
	assert_true(s->entities_per_job.sum >= s->clients);
	assert_true(s->firing <= s->clients);
	/* one worker does all the work; more never take longer, and never
	 * less than the work over the workers */
	assert_int_equal(s->makespan_ns[0], s->cost_ns);
	for (int w = 1; w < FB_SCHED_WORKERS; w++) {
		assert_true(s->makespan_ns[w] <= s->makespan_ns[w - 1]);
		assert_true(s->makespan_ns[w] * (uint64_t)fb_sched_workers[w] >=
			    s->cost_ns);
	}
	/* without --schedule nothing is measured */
	assert_int_equal(b->sched.frames, 0);
	free(a);
	free(b);
}

/* The parallel EXECUTE (docs/parallel.md, "EXECUTE on workers"): 256
 * players, a quarter of them fighters with the trigger held down (kills,
 * respawns, teleports), the rest the study's walkers, for 30 s of game
 * time (2308 frames of 13 ms) on map, every segment scheduled: the game
 * after every frame is the same with 1, 2 and 3 threads, and moves did
 * run in local jobs on the workers (on the large map: the small one
 * holds them in one crowd, most segments then run in arrival order) */
static struct fb_result *run_game_with(const char *map, int players,
				       int fighters, int frames, uint64_t seed,
				       int threads, const char *const *sets,
				       int lag)
{
	struct fb_config c;

	config_of(&c, map, players, frames, seed, threads);
	c.fighters = fighters;
	c.sets[c.num_sets++] = "sv_threads_execute 2";
	c.lag = lag;
	for (int i = 0; sets && sets[i]; i++)
		c.sets[c.num_sets++] = sets[i];
	return run_config(&c);
}

static struct fb_result *run_game(const char *map, int players, int fighters,
				  int frames, uint64_t seed, int threads)
{
	return run_game_with(map, players, fighters, frames, seed, threads,
			     NULL, 0);
}

static void check_execute_equal_with(const char *map, int frames,
				     int threads, bool crowd,
				     const char *const *sets, int lag)
{
	struct fb_result *a = run_game_with(map, 256, 64, frames, 11, 1, sets,
					    lag);
	struct fb_result *b = run_game_with(map, 256, 64, frames, 11, threads,
					    sets, lag);

	assert_int_equal(a->joined, 256);
	assert_int_equal(a->frames, frames);
	assert_int_equal(b->joined, 256);
	assert_int_equal(a->state_digest, b->state_digest);
	assert_int_equal(a->digest, b->digest);
	/* the sequential frame schedules nothing; the parallel one ran
	 * moves on the workers, none of which left its region or reached
	 * shared state */
	assert_int_equal(a->exec.parallel + a->exec.sequential, 0);
	assert_true(b->exec.parallel + b->exec.sequential > 0);
	if (!crowd) {
		assert_true(b->exec.parallel > 0);
		assert_true(b->exec.local_moves > 0);
		assert_true(b->exec.shared_moves > 0);
	}
	assert_int_equal(b->exec.outside, 0);
	assert_int_equal(b->exec.escapes, 0);
	assert_int_equal(b->exec.calls_lost, 0);
	free(a);
	free(b);
}

static void check_execute_equal(const char *map, int frames, int threads,
				bool crowd)
{
	check_execute_equal_with(map, frames, threads, crowd, NULL, 0);
}

/* antilag (sv_antilag 2, projectiles too) with the players' replies 8
 * rounds (104 ms) late: the fighters' shots meet the players where the
 * shooter saw them, 8 frames back; the schedule joins whoever may be
 * rewound into a line of fire to the shared job, so the game stays the
 * sequential one's */
static void test_execute_same_game_antilag(void **state)
{
	static const char *const lag[] = {"sv_antilag 2",
					  "sv_antilag_projectiles 1", NULL};
	static const char *const off[] = {"sv_antilag 0", NULL};
	struct fb_result *a = run_game_with("large", 256, 64, 400, 11, 1, lag, 8);
	struct fb_result *b = run_game_with("large", 256, 64, 400, 11, 1, off, 8);

	(void)state;
	/* the rewind plays another game than the present positions do */
	assert_int_not_equal(a->state_digest, b->state_digest);
	free(a);
	free(b);
	check_execute_equal_with("large", 1200, 2, false, lag, 8);
	check_execute_equal_with("large", 400, 3, false, lag, 8);
}

static void test_execute_same_game(void **state)
{
	(void)state;
	check_execute_equal("large", 2308, 2, false);
	check_execute_equal("large", 400, 3, false);
	/* 256 on the small map are one crowd: whatever the schedule finds */
	check_execute_equal("small", 400, 2, true);
}

/* Speculative moves (sv_threads_execute 3, docs/parallel.md
 * "Speculative moves"): every queued move's first step runs ahead on
 * the workers, the segment then in arrival order taking what still
 * holds; pipelined (4): the steps ahead on a snapshot of the world while
 * the coordinator commits the moves before them.  The same crowd of
 * walkers and fighters: the game after every frame is the sequential
 * one's with 2 and 3 threads; steps were taken and steps were run again
 * (the fighters' kills, respawns, the crowd's moves meeting what others
 * read), players rested after those, no change log filled. */
static void check_speculative_equal(const char *map, int frames, int threads,
				    int mode)
{
	static const char *const spec[] = {"sv_threads_execute 3", NULL};
	static const char *const piped[] = {"sv_threads_execute 4", NULL};
	const char *const *sets = mode == 4 ? piped : spec;
	struct fb_result *a = run_game_with(map, 256, 64, frames, 11, 1, sets, 0);
	struct fb_result *b = run_game_with(map, 256, 64, frames, 11, threads,
					    sets, 0);
	struct fb_result *c = run_game(map, 256, 64, frames, 11, 1);

	assert_int_equal(a->joined, 256);
	assert_int_equal(a->frames, frames);
	assert_int_equal(b->joined, 256);
	/* one thread: the sequential frame, whatever the cvar says */
	assert_int_equal(a->state_digest, c->state_digest);
	assert_int_equal(a->exec.spec_segments, 0);
	assert_int_equal(a->state_digest, b->state_digest);
	assert_int_equal(a->digest, b->digest);
	assert_true(b->exec.spec_segments > 0);
	assert_true(b->exec.spec_moves > 0);
	assert_true(b->exec.spec_hits > 0);
	assert_true(b->exec.spec_world > 0);
	/* a step the world changed rests its player's next one */
	assert_true(b->exec.spec_rested > 0);
	assert_int_equal(b->exec.spec_overflows, 0);
	assert_int_equal(b->exec.parallel, 0);
	assert_int_equal(b->exec.escapes, 0);
	assert_int_equal(b->exec.calls_lost, 0);
	if (mode == 4)
		assert_int_equal(b->exec.pipe_segments, b->exec.spec_segments);
	else
		assert_int_equal(b->exec.pipe_segments, 0);
	free(a);
	free(b);
	free(c);
}

static void test_execute_speculative_same_game(void **state)
{
	(void)state;
	check_speculative_equal("large", 1200, 2, 3);
	check_speculative_equal("large", 400, 3, 3);
	check_speculative_equal("small", 400, 2, 3);
}

static void test_execute_pipelined_same_game(void **state)
{
	(void)state;
	check_speculative_equal("large", 1200, 2, 4);
	check_speculative_equal("large", 400, 3, 4);
	check_speculative_equal("small", 400, 2, 4);
}

/* --spread: a live server's frames, a few requests each.  96 players
 * (a quarter of them fighters: kills, respawns, teleports) sending every
 * 33 ms, one round in 8 each: every round reads 12 requests, each
 * answered in its round, every request of the run once; the game is the
 * seed's alone, and it is not the lockstep's (the clock runs otherwise).
 * The sanitizer build (QWD_SELF_CHECK) checks here, on every test of a
 * reply, the player caches that outlive a frame against the game now. */
static struct fb_result *run_spread(int spread, uint64_t seed, int threads)
{
	struct fb_config c;

	config_of(&c, "small", 96, 400, seed, threads);
	c.fighters = 24;
	c.warmup = 16;
	c.spread = spread;
	c.interval_ms = 33;
	return run_config(&c);
}

static void test_spread(void **state)
{
	struct fb_result *a = run_spread(8, 3, 1), *b = run_spread(8, 3, 1);
	struct fb_result *c = run_spread(1, 3, 1), *d = run_spread(8, 3, 2);

	(void)state;
	assert_int_equal(a->in_game, 96);
	assert_int_equal(a->bad, 0);
	assert_int_equal(a->dropped_datagrams, 0);
	assert_int_equal(a->requests, 96 * 400 / 8);
	assert_int_equal(a->prof.requests, a->requests);
	assert_int_equal(a->answered, a->requests);
	assert_int_equal(a->prof.frames, 400);
	/* 12 requests in every round: no round without, none with more */
	assert_int_equal(a->phase_request[0].count, 400);
	assert_int_equal(a->digest, b->digest);
	assert_int_equal(a->state_digest, b->state_digest);
	assert_int_equal(a->reply_digest, b->reply_digest);
	assert_int_not_equal(a->state_digest, c->state_digest);
	assert_int_equal(c->requests, 96 * 400);
	/* the workers' frame: the same game */
	assert_int_equal(d->state_digest, a->state_digest);
	free(a);
	free(b);
	free(c);
	free(d);
}

/* the state digest sees the game: another seed, another game */
static void test_state_digest_moves(void **state)
{
	struct fb_result *a = run_game("large", 64, 16, 100, 5, 1);
	struct fb_result *b = run_game("large", 64, 16, 100, 6, 1);

	(void)state;
	assert_int_not_equal(a->state_digest, b->state_digest);
	free(a);
	free(b);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_execute_same_game),
	cmocka_unit_test(test_execute_same_game_antilag),
	cmocka_unit_test(test_execute_speculative_same_game),
	cmocka_unit_test(test_execute_pipelined_same_game),
	cmocka_unit_test(test_state_digest_moves),
	cmocka_unit_test(test_spread),
	cmocka_unit_test(test_qwdx_players),
	cmocka_unit_test(test_stock_players),
	cmocka_unit_test(test_seed_fixes_the_game),
	cmocka_unit_test(test_threads_same_replies),
	cmocka_unit_test(test_send_leafs_same_replies),
	cmocka_unit_test(test_threads_auto_same_replies),
	cmocka_unit_test(test_threads_same_replies_choked),
	cmocka_unit_test(test_threads_same_replies_stock),
	cmocka_unit_test(test_reply_digest_moves),
	cmocka_unit_test(test_schedule),
};
QWD_TEST_GROUP(framebench, tests, NULL, NULL);
