/*
 * tools/worldbench/worldbench.c -- how fast the world model answers the
 * questions a server frame asks.
 *
 * Design note
 *   A QuakeWorld frame spends its world time in four calls: hull traces
 *   (every move of every player and missile), point contents (water and
 *   lava checks), PVS tests (is entity B visible from client A's leaf) and
 *   one fat PVS per client per reply.  For each map this measures:
 *     load         bsp_load, best of BENCH_LOADS (file read, checks,
 *                  checksums, PVS/PHS decompression);
 *     trace long   bsp_trace_box with the player box (hull 1) between two
 *                  random empty points: mostly stopped by a wall early;
 *     trace short  the same from an empty point to a random point up to
 *                  24 units away per axis, the scale of one frame's move;
 *     contents     bsp_point_contents (hull 0) at random points in the
 *                  world model's box;
 *     pvs test     point leaf of A, point leaf of B,
 *                  bsp_vis_test(bsp_leaf_pvs(A), B) for empty points;
 *     fat pvs      bsp_fat_pvs at an empty point (a tenth of the count).
 *   "Empty" points are drawn uniformly in the world model's box and kept
 *   when hull 1 reads CONTENTS_EMPTY there and the point's leaf is not
 *   solid: spots where a player could stand.  A pool of BENCH_POOL of them
 *   is drawn before timing, so the timed loops only pick from it.
 *   Everything follows one splitmix64 generator with a fixed seed (-seed),
 *   so two runs do the same work; each test also prints a check figure
 *   (mean fraction, share of empty points or of visible pairs, mean leafs
 *   in a fat PVS) that uses every result, so the compiler keeps the work
 *   and runs on different builds can be compared for equal answers.
 *   Wall time is CLOCK_MONOTONIC; CPU time (CLOCK_PROCESS_CPUTIME_ID) is
 *   shown beside it: a large gap means the machine was busy.
 *
 *   usage: worldbench [-n TRACES] [-seed S] [MAP.bsp ...]
 *   Without maps it reads lqdm1.bsp, lq_e1m1.bsp and lqdm2_bsp2.bsp from
 *   $QWD_REALMAPS (default ../shared/realmaps).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "qwd/world.h"
#include "qwtools.h"

enum {
	BENCH_LOADS = 5,	/* loads timed per map; the best is shown */
	BENCH_POOL = 4096,	/* empty points drawn before timing */
	BENCH_RANDOM_POOL = 65536, /* any points, for contents */
	BENCH_MAX_TRIES = 1000,	/* draws per wanted empty point */
	BENCH_SHORT_MOVE = 24,	/* units per axis of a short trace */
	BENCH_MAX_MAPS = 64
};

/* the timed loops pick pool entries with a mask */
_Static_assert((BENCH_POOL & (BENCH_POOL - 1)) == 0, "pool size: power of 2");
_Static_assert((BENCH_RANDOM_POOL & (BENCH_RANDOM_POOL - 1)) == 0,
	       "pool size: power of 2");

enum bench_test {
	T_LONG, T_SHORT, T_CONTENTS, T_PVS, T_FATPVS, T_COUNT
};

static const char *const test_names[T_COUNT] = {
	"trace long", "trace short", "contents", "pvs test", "fat pvs"
};

static const char *const default_maps[] = {
	"lqdm1.bsp", "lq_e1m1.bsp", "lqdm2_bsp2.bsp"
};

static const vec3_t player_mins = { -16, -16, -24 };
static const vec3_t player_maxs = { 16, 16, 32 };
static const vec3_t origin_zero = { 0, 0, 0 };

struct rng {
	uint64_t s;
};

struct clock_pair {
	double wall, cpu;	/* seconds */
};

struct test_result {
	long count;
	double wall, cpu;	/* seconds */
	double check;
};

struct map_result {
	char name[64];
	const char *format;
	size_t bytes;
	int32_t leafs, visleafs, clipnodes, models;
	double load_ms;
	struct test_result t[T_COUNT];
};

/* the work of one map: its points and a scratch PVS row */
struct bench_ctx {
	const struct bsp_map *map;
	struct rng rng;
	vec3_t *empty;		/* BENCH_POOL */
	vec3_t *random;		/* BENCH_RANDOM_POOL */
	uint8_t *row;		/* vis_row_bytes */
};

/* the project generator (src/common/rng.c): fast, and enough for sampling */
static uint64_t rng_next(struct rng *r)
{
	return qwd_rng_next(&r->s);
}

/* uniform in [0, 1) with the 24 bits a float holds */
static float rng_unit(struct rng *r)
{
	return (float)(rng_next(r) >> 40) * (1.0f / 16777216.0f);
}

/* index in [0, n): the high bits times n, no modulo bias worth noting */
static uint32_t rng_below(struct rng *r, uint32_t n)
{
	return qwd_rng_below(&r->s, n);
}

static struct clock_pair clock_now(void)
{
	return (struct clock_pair){qwd_clock_s(CLOCK_MONOTONIC),
				   qwd_clock_s(CLOCK_PROCESS_CPUTIME_ID)};
}

static void clock_since(struct clock_pair t0, struct test_result *res)
{
	struct clock_pair t1 = clock_now();

	res->wall = t1.wall - t0.wall;
	res->cpu = t1.cpu - t0.cpu;
}

static double rate(long count, double seconds)
{
	return seconds > 0 ? (double)count / seconds : 0;
}

static const char *format_name(enum bsp_format f)
{
	switch (f) {
	case BSP_FMT_29:
		return "BSP29";
	case BSP_FMT_BSP2:
		return "BSP2";
	case BSP_FMT_2PSB:
		return "2PSB";
	}
	return "?";
}

static void random_point(const struct bsp_map *map, struct rng *r, vec3_t p)
{
	const struct bsp_model *w = &map->models[0];

	for (int i = 0; i < 3; i++)
		p[i] = w->mins[i] + rng_unit(r) * (w->maxs[i] - w->mins[i]);
}

/* a spot where a player could stand: hull 1 empty, leaf not solid */
static bool point_is_empty(const struct bsp_map *map, const vec3_t p)
{
	const struct bsp_hull *h1 = &map->models[0].hulls[1];

	return bsp_hull_point_contents(h1, h1->firstclipnode, p) ==
		       CONTENTS_EMPTY &&
	       map->leafs[bsp_point_leaf(map, p)].contents != CONTENTS_SOLID;
}

static int fill_pools(struct bench_ctx *c)
{
	long tries = 0;

	for (int i = 0; i < BENCH_RANDOM_POOL; i++)
		random_point(c->map, &c->rng, c->random[i]);
	for (int i = 0; i < BENCH_POOL; i++) {
		do {
			if (++tries > (long)BENCH_POOL * BENCH_MAX_TRIES) {
				fprintf(stderr, "worldbench: %s: found only %d "
					"empty points\n", c->map->name, i);
				return -1;
			}
			random_point(c->map, &c->rng, c->empty[i]);
		} while (!point_is_empty(c->map, c->empty[i]));
	}
	return 0;
}

static void bench_long_traces(struct bench_ctx *c, long n,
			      struct test_result *res)
{
	struct trace tr;
	double sum = 0;
	struct clock_pair t0 = clock_now();

	for (long i = 0; i < n; i++) {
		const float *a = c->empty[rng_below(&c->rng, BENCH_POOL)];
		const float *b = c->empty[rng_below(&c->rng, BENCH_POOL)];

		bsp_trace_box(c->map, 0, origin_zero, player_mins, player_maxs,
			      a, b, &tr);
		sum += tr.fraction;
	}
	clock_since(t0, res);
	res->count = n;
	res->check = sum / (double)n;
}

static void bench_short_traces(struct bench_ctx *c, long n,
			       struct test_result *res)
{
	struct trace tr;
	double sum = 0;
	struct clock_pair t0 = clock_now();

	for (long i = 0; i < n; i++) {
		const float *a = c->empty[rng_below(&c->rng, BENCH_POOL)];
		vec3_t b;

		for (int k = 0; k < 3; k++)
			b[k] = a[k] + (rng_unit(&c->rng) * 2 - 1) *
					      BENCH_SHORT_MOVE;
		bsp_trace_box(c->map, 0, origin_zero, player_mins, player_maxs,
			      a, b, &tr);
		sum += tr.fraction;
	}
	clock_since(t0, res);
	res->count = n;
	res->check = sum / (double)n;
}

static void bench_contents(struct bench_ctx *c, long n,
			   struct test_result *res)
{
	long empty = 0;
	struct clock_pair t0 = clock_now();

	for (long i = 0; i < n; i++)
		empty += bsp_point_contents(
				 c->map, c->random[i & (BENCH_RANDOM_POOL - 1)]) ==
			 CONTENTS_EMPTY;
	clock_since(t0, res);
	res->count = n;
	res->check = 100.0 * (double)empty / (double)n;
}

static void bench_pvs(struct bench_ctx *c, long n, struct test_result *res)
{
	long seen = 0;
	struct clock_pair t0 = clock_now();

	for (long i = 0; i < n; i++) {
		const float *a = c->empty[rng_below(&c->rng, BENCH_POOL)];
		const float *b = c->empty[rng_below(&c->rng, BENCH_POOL)];
		int32_t la = bsp_point_leaf(c->map, a);
		int32_t lb = bsp_point_leaf(c->map, b);

		seen += bsp_vis_test(bsp_leaf_pvs(c->map, la), lb);
	}
	clock_since(t0, res);
	res->count = n;
	res->check = 100.0 * (double)seen / (double)n;
}

static unsigned row_bits(const uint8_t *row, int32_t bytes)
{
	unsigned bits = 0;

	for (int32_t i = 0; i < bytes; i++)
		bits += (unsigned)__builtin_popcount(row[i]);
	return bits;
}

static void bench_fat_pvs(struct bench_ctx *c, long n,
			  struct test_result *res)
{
	double bits = 0;
	struct clock_pair t0 = clock_now();

	for (long i = 0; i < n; i++) {
		bsp_fat_pvs(c->map, c->empty[i & (BENCH_POOL - 1)], c->row);
		bits += row_bits(c->row, c->map->vis_row_bytes);
	}
	clock_since(t0, res);
	res->count = n;
	res->check = bits / (double)n;
}

static struct bsp_map *timed_load(const char *path, double *best_ms)
{
	struct bsp_map *map = NULL;
	char err[512];

	*best_ms = 0;
	for (int i = 0; i < BENCH_LOADS; i++) {
		struct clock_pair t0 = clock_now();
		double ms;

		bsp_free(map);
		map = bsp_load(path, err, sizeof(err));
		ms = (clock_now().wall - t0.wall) * 1e3;
		if (!map) {
			fprintf(stderr, "worldbench: %s\n", err);
			return NULL;
		}
		if (i == 0 || ms < *best_ms)
			*best_ms = ms;
	}
	return map;
}

static int bench_map(const char *path, long n, uint64_t seed,
		     struct map_result *res)
{
	struct bench_ctx c = { 0 };
	const char *base = strrchr(path, '/');
	struct bsp_map *map;
	int rc = -1;

	memset(res, 0, sizeof(*res));
	snprintf(res->name, sizeof(res->name), "%s", base ? base + 1 : path);
	map = timed_load(path, &res->load_ms);
	if (!map)
		return -1;
	if (map->num_models < 1) {
		fprintf(stderr, "worldbench: %s: no world model\n", path);
		bsp_free(map);
		return -1;
	}
	res->format = format_name(map->format);
	res->bytes = map->file_size;
	res->leafs = map->num_leafs;
	res->visleafs = map->num_visleafs;
	res->clipnodes = map->num_clipnodes;
	res->models = map->num_models;

	c.map = map;
	c.rng.s = seed;
	c.empty = calloc(BENCH_POOL, sizeof(vec3_t));
	c.random = calloc(BENCH_RANDOM_POOL, sizeof(vec3_t));
	c.row = calloc(map->vis_row_bytes > 0 ? (size_t)map->vis_row_bytes : 1, 1);
	if (!c.empty || !c.random || !c.row) {
		fprintf(stderr, "worldbench: out of memory\n");
		goto out;
	}
	if (fill_pools(&c) != 0)
		goto out;

	/* warm the caches and the branch predictors before timing */
	bench_long_traces(&c, n / 50 + 1, &res->t[T_LONG]);

	bench_long_traces(&c, n, &res->t[T_LONG]);
	bench_short_traces(&c, n, &res->t[T_SHORT]);
	bench_contents(&c, n, &res->t[T_CONTENTS]);
	bench_pvs(&c, n, &res->t[T_PVS]);
	bench_fat_pvs(&c, n / 10 > 0 ? n / 10 : 1, &res->t[T_FATPVS]);
	rc = 0;
out:
	free(c.empty);
	free(c.random);
	free(c.row);
	bsp_free(map);
	return rc;
}

static const char *check_label(enum bench_test t)
{
	switch (t) {
	case T_LONG:
	case T_SHORT:
		return "mean fraction";
	case T_CONTENTS:
		return "% empty";
	case T_PVS:
		return "% visible";
	case T_FATPVS:
		return "mean leafs";
	case T_COUNT:
		break;
	}
	return "";
}

static void print_map(const struct map_result *r)
{
	printf("\n%s: %s, %zu bytes, %d leafs (%d with vis), %d clipnodes, "
	       "%d models; load %.2f ms (best of %d)\n",
	       r->name, r->format, r->bytes, r->leafs, r->visleafs,
	       r->clipnodes, r->models, r->load_ms, BENCH_LOADS);
	printf("  %-12s %9s %9s %9s %12s %12s %9s  %s\n", "test", "count",
	       "wall s", "cpu s", "per wall s", "per cpu s", "ns each",
	       "check");
	for (int t = 0; t < T_COUNT; t++) {
		const struct test_result *x = &r->t[t];

		printf("  %-12s %9ld %9.3f %9.3f %12.0f %12.0f %9.1f  %.6f %s\n",
		       test_names[t], x->count, x->wall, x->cpu,
		       rate(x->count, x->wall), rate(x->count, x->cpu),
		       x->count ? x->wall * 1e9 / (double)x->count : 0,
		       x->check, check_label((enum bench_test)t));
	}
}

/* one table of rates, by wall time or by CPU time */
static void print_rates(const struct map_result *r, int n, bool cpu)
{
	printf("\n%s\n", cpu ? "summary: per second of CPU time"
			      : "summary: per second (wall clock)");
	printf("%-20s %-6s %7s %9s %11s %11s %11s %11s %10s\n", "map",
	       "format", "leafs", "load ms", "trace long", "trace short",
	       "contents", "pvs test", "fat pvs");
	for (int i = 0; i < n; i++) {
		printf("%-20s %-6s %7d %9.2f", r[i].name, r[i].format,
		       r[i].leafs, r[i].load_ms);
		for (int t = 0; t < T_COUNT; t++) {
			const struct test_result *x = &r[i].t[t];

			printf(t == T_FATPVS ? " %10.0f" : " %11.0f",
			       rate(x->count, cpu ? x->cpu : x->wall));
		}
		printf("\n");
	}
}

static void print_summary(const struct map_result *r, int n)
{
	double checksum = 0, wall = 0, cpu = 0;

	print_rates(r, n, false);
	print_rates(r, n, true);
	for (int i = 0; i < n; i++) {
		for (int t = 0; t < T_COUNT; t++) {
			checksum += r[i].t[t].check;
			wall += r[i].t[t].wall;
			cpu += r[i].t[t].cpu;
		}
	}
	printf("checksum (sum of the check figures): %.6f\n", checksum);
	/* one thread: CPU time well below wall time means we were waiting */
	if (wall > 0 && cpu < 0.9 * wall)
		printf("note: the timed loops got %.0f%% of a CPU (machine busy?); "
		       "the CPU-time figures are the steadier ones\n",
		       100 * cpu / wall);
}

static int parse_long(const char *s, long lo, long *out)
{
	long long v;

	if (!qwd_parse_int(s, lo, LONG_MAX, false, &v))
		return -1;
	*out = (long)v;
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: worldbench [-n TRACES] [-seed S] [MAP.bsp ...]\n"
			"  default maps: lqdm1.bsp lq_e1m1.bsp lqdm2_bsp2.bsp "
			"from $QWD_REALMAPS (../shared/realmaps)\n");
}

int main(int argc, char **argv)
{
	static struct map_result results[BENCH_MAX_MAPS];
	static char paths[BENCH_MAX_MAPS][1024];
	const char *maps[BENCH_MAX_MAPS];
	char cpu[256];
	long n = 1000000, seed = 1;
	int nmaps = 0, done = 0, failed = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
			if (parse_long(argv[++i], 1, &n) != 0) {
				usage();
				return 2;
			}
		} else if (strcmp(argv[i], "-seed") == 0 && i + 1 < argc) {
			if (parse_long(argv[++i], 0, &seed) != 0) {
				usage();
				return 2;
			}
		} else if (argv[i][0] == '-') {
			usage();
			return 2;
		} else if (nmaps < BENCH_MAX_MAPS) {
			maps[nmaps++] = argv[i];
		}
	}
	if (nmaps == 0) {
		const char *dir = getenv("QWD_REALMAPS");

		if (!dir || !*dir)
			dir = "../shared/realmaps";
		for (size_t i = 0; i < sizeof(default_maps) / sizeof(default_maps[0]); i++) {
			snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir,
				 default_maps[i]);
			maps[nmaps++] = paths[i];
		}
	}

	/* keep the report in order with the errors on stderr */
	setvbuf(stdout, NULL, _IOLBF, 0);
	qwt_proc_value("/proc/cpuinfo", "model name", cpu, sizeof(cpu));
	printf("worldbench: cpu %s (%ld online); %ld traces, seed %ld\n", cpu,
	       sysconf(_SC_NPROCESSORS_ONLN), n, seed);
	printf("compiler: %s%s%s\n",
#ifdef __clang__
	       "clang ",
#else
	       "gcc ",
#endif
	       __VERSION__,
#ifdef __OPTIMIZE__
	       ", optimized"
#else
	       ", not optimized"
#endif
#if defined(__SANITIZE_ADDRESS__)
	       ", with AddressSanitizer (figures not comparable)"
#else
	       ""
#endif
	);

	for (int i = 0; i < nmaps; i++) {
		if (bench_map(maps[i], n, (uint64_t)seed, &results[done]) != 0) {
			failed++;
			continue;
		}
		print_map(&results[done]);
		done++;
	}
	if (done > 0)
		print_summary(results, done);
	return failed ? 1 : 0;
}
