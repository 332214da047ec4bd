/*
 * tools/gamebench/gamebench.c -- how long the game's world update takes
 * with a crowd of bots fighting on a real map.
 *
 * Design note
 *   The world update is game_frame: the thinks, movers, missiles, gibs
 *   and backpacks of one server frame (QuakeWorld's SV_Physics), the part
 *   of a frame whose cost grows with what the players fire.  The players'
 *   own moves (game_client_cmd: pmove, touches, firing) are timed apart,
 *   per command, and reported beside it.
 *   The run: the map is loaded with the game (deathmatch 1 unless told),
 *   N bots join, each a random walker (seeded splitmix64): running at
 *   full speed, turning to a new random heading every 0.3-2 s, jumping
 *   now and then, and firing all the time with a weapon of its own,
 *   given with its ammunition topped up every frame (--weapon mixed
 *   deals rocket launcher, super nailgun, thunderbolt, super shotgun and
 *   grenade launcher in turn; or one weapon for all).  The fire button
 *   is let go one frame in ten, so the dead press it again and respawn.
 *   Frames are 13 ms, 77 a second as a QuakeWorld server runs; the
 *   default 770 simulate 10 s of game time.
 *   Times are CPU time of this one thread (CLOCK_THREAD_CPUTIME_ID) read
 *   around each call, so other processes on the machine do not count;
 *   the wall time of the whole run is shown beside them.  Per-frame
 *   times go into the project's histogram (qwd_hist, nanoseconds), so the
 *   percentiles follow the rule qwd's and qwbots' figures follow.  The entity counts (players alive, projectiles: rockets,
 *   grenades, nails; everything in use) are taken after each frame,
 *   outside the timed calls.
 *   The same map, bots, seed and frames do the same work: the totals
 *   printed last (shots, kills, entity runs) must match between runs.
 *
 *   usage: gamebench [--map MAP.bsp] [--bots N] [--frames F] [--seed S]
 *                    [--weapon mixed|rl|gl|sng|ng|lg|ssg|sg]
 *                    [--deathmatch D] [--json FILE]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bsd/string.h>

#include "qwd/game.h"
#include "qwd/world.h"
#include "qwtools.h"

enum {
	BENCH_MAX_BOTS = 2048,
	BENCH_ENTITIES_BASE = 16384,	/* + the bots */
	BENCH_FRAME_MSEC = 13,
	BENCH_DEFAULT_FRAMES = 770,	/* 10 s at 77 frames a second */
	BENCH_NAMES = 512
};

struct rng {
	uint64_t s;
};

/* what the game asks of an engine: precache lists, everything else
 * counted and dropped */
struct engine {
	char models[BENCH_NAMES][64];
	int num_models;
	char sounds[BENCH_NAMES][64];
	int num_sounds;
	float deathmatch;
	uint64_t sounds_started, temp_entities, prints;
};

struct bot {
	float yaw;
	double next_turn;
	int weapon;
};

struct figures {
	double mean, p50, p99, max;	/* microseconds */
};

struct options {
	const char *map;
	long bots, frames, seed, deathmatch;
	const char *weapon;
	const char *json;
};

/* the project generator (src/common/rng.c) */
static double rng_unit(struct rng *r)
{
	return qwd_rng_unit(&r->s);
}

/* ---- the engine's side ---------------------------------------------- */

static int add_name(char list[][64], int *n, const char *name)
{
	for (int i = 1; i < *n; i++)
		if (strcmp(list[i], name) == 0)
			return i;
	if (*n >= BENCH_NAMES)
		return 0;
	strlcpy(list[*n], name, 64);
	return (*n)++;
}

static int e_model(void *ctx, const char *name)
{
	struct engine *e = ctx;

	return add_name(e->models, &e->num_models, name);
}

static int e_sound_index(void *ctx, const char *name)
{
	struct engine *e = ctx;

	return add_name(e->sounds, &e->num_sounds, name);
}

static void e_sound(void *ctx, int ent, int chan, int snd, float vol,
		    float attn, const vec3_t org)
{
	struct engine *e = ctx;

	(void)ent, (void)chan, (void)snd, (void)vol, (void)attn, (void)org;
	e->sounds_started++;
}

static void e_temp_entity(void *ctx, const struct game_temp_entity *te,
			  int multicast)
{
	struct engine *e = ctx;

	(void)te, (void)multicast;
	e->temp_entities++;
}

static void e_print(void *ctx, int slot, int level, const char *text)
{
	struct engine *e = ctx;

	(void)slot, (void)level, (void)text;
	e->prints++;
}

static const float *e_cvar(void *ctx, const char *name)
{
	struct engine *e = ctx;

	return strcmp(name, "deathmatch") == 0 ? &e->deathmatch : NULL;
}

static void services(struct engine *e, struct game_services *s)
{
	memset(s, 0, sizeof(*s));
	s->ctx = e;
	s->precache_model = e_model;
	s->precache_sound = e_sound_index;
	s->sound = e_sound;
	s->temp_entity = e_temp_entity;
	s->print = e_print;
	s->cvar = e_cvar;
}

/* ---- the bots ----------------------------------------------------------- */

static const struct {
	const char *name;
	int item;
} weapons[] = {
	{"rl", IT_ROCKET_LAUNCHER}, {"sng", IT_SUPER_NAILGUN}, {"lg", IT_LIGHTNING},
	{"ssg", IT_SUPER_SHOTGUN}, {"gl", IT_GRENADE_LAUNCHER}, {"ng", IT_NAILGUN},
	{"sg", IT_SHOTGUN},
};

enum { MIXED_WEAPONS = 5 };	/* the first five take turns in "mixed" */

static int weapon_item(const char *name)
{
	for (size_t i = 0; i < sizeof(weapons) / sizeof(weapons[0]); i++)
		if (strcmp(weapons[i].name, name) == 0)
			return weapons[i].item;
	return 0;
}

/* the weapon in hand with its ammunition full, while alive */
static void arm(struct game *g, int slot, int weapon)
{
	struct game_entity *e = &g->ents[game_player_entity(g, slot)];
	struct game_client *cl = &g->clients[slot];

	if (e->health <= 0)
		return;
	e->items |= weapon;
	e->weapon = weapon;
	switch (weapon) {
	case IT_ROCKET_LAUNCHER:
	case IT_GRENADE_LAUNCHER: cl->ammo_rockets = 100; break;
	case IT_NAILGUN:
	case IT_SUPER_NAILGUN: cl->ammo_nails = 200; break;
	case IT_LIGHTNING: cl->ammo_cells = 100; break;
	default: cl->ammo_shells = 100; break;
	}
}

static void bot_cmd(struct bot *b, struct rng *r, double time, int frame,
		    int slot, struct usercmd *c)
{
	memset(c, 0, sizeof(*c));
	if (time >= b->next_turn) {
		b->yaw = (float)(rng_unit(r) * 360.0);
		b->next_turn = time + 0.3 + rng_unit(r) * 1.7;
	}
	c->msec = BENCH_FRAME_MSEC;
	c->angles[1] = b->yaw;
	c->angles[0] = (float)(rng_unit(r) * 20.0 - 10.0);
	c->forwardmove = 320;
	c->buttons = (frame + slot) % 10 ? 1 : 0;
	if (rng_unit(r) < 0.02)
		c->buttons |= 2;
}

/* ---- figures ----------------------------------------------------------- */

/* a histogram of nanoseconds as microseconds, by the project's one
 * percentile rule (qwd_hist) */
static struct figures summarise(const struct qwd_hist *h)
{
	struct qwd_hist_summary m;

	qwd_hist_summarize(h, &m);
	return (struct figures){m.mean / 1e3, (double)m.p50 / 1e3,
				(double)m.p99 / 1e3, (double)m.max / 1e3};
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
	long long v;

	if (!qwd_parse_int(s, lo, hi, false, &v))
		return -1;
	*out = (long)v;
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: gamebench [--map MAP.bsp] [--bots N] [--frames F] [--seed S]\n"
		"                 [--weapon mixed|rl|gl|sng|ng|lg|ssg|sg] [--deathmatch D]\n"
		"                 [--json FILE]\n"
		"  defaults: $QWD_REALMAPS/lqdm1.bsp (../shared/realmaps), 256 bots,\n"
		"  770 frames of 13 ms (10 s of game time), seed 1, mixed weapons\n");
}

static int parse_args(int argc, char **argv, struct options *o, char *path,
		      size_t pathlen)
{
	const char *dir = getenv("QWD_REALMAPS");

	if (!dir || !*dir)
		dir = "../shared/realmaps";
	snprintf(path, pathlen, "%s/lqdm1.bsp", dir);
	*o = (struct options){path, 256, BENCH_DEFAULT_FRAMES, 1, 1, "mixed", NULL};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = 0;

		if (!v) {
			usage();
			return -1;
		}
		if (strcmp(a, "--map") == 0)
			o->map = v;
		else if (strcmp(a, "--bots") == 0)
			bad = parse_long(v, 1, BENCH_MAX_BOTS, &o->bots);
		else if (strcmp(a, "--frames") == 0)
			bad = parse_long(v, 1, 10000000, &o->frames);
		else if (strcmp(a, "--seed") == 0)
			bad = parse_long(v, 0, 0x7fffffff, &o->seed);
		else if (strcmp(a, "--deathmatch") == 0)
			bad = parse_long(v, 1, 5, &o->deathmatch);
		else if (strcmp(a, "--weapon") == 0)
			o->weapon = v;
		else if (strcmp(a, "--json") == 0)
			o->json = v;
		else
			bad = -1;
		if (bad || (strcmp(o->weapon, "mixed") != 0 && !weapon_item(o->weapon))) {
			usage();
			return -1;
		}
		i++;
	}
	return 0;
}

static bool is_projectile(const struct game_entity *e)
{
	return strcmp(e->classname, "missile") == 0 ||
	       strcmp(e->classname, "grenade") == 0 ||
	       strcmp(e->classname, "spike") == 0;
}

struct run {
	struct qwd_hist world_ns, cmd_ns;	/* CPU time per frame */
	double world_cpu, cmd_cpu, wall;
	uint64_t entity_runs, commands;
	double players_sum, proj_sum, total_sum;
	int proj_max, total_max, players_min;
	int free_min;		/* fewest free slots for non-players */
};

static void run_frames(struct game *g, const struct options *o, struct bot *bots,
		       struct rng *r, struct run *out)
{
	double time = 1.0;
	double w0 = qwd_clock_s(CLOCK_MONOTONIC);
	uint64_t runs0 = g->stats.entity_runs, cmds0 = g->stats.commands;

	qwd_hist_clear(&out->world_ns);
	qwd_hist_clear(&out->cmd_ns);
	out->players_min = (int)o->bots;
	out->free_min = g->top;
	for (long f = 0; f < o->frames; f++) {
		uint64_t t0, t1, t2;
		int players = 0, proj = 0, total = 0, used = 0;

		time += BENCH_FRAME_MSEC * 0.001;
		for (long i = 0; i < o->bots; i++)
			arm(g, (int)i, bots[i].weapon);
		t0 = qwd_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		game_frame(g, time);
		t1 = qwd_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		for (long i = 0; i < o->bots; i++) {
			struct usercmd c;

			bot_cmd(&bots[i], r, time, (int)f, (int)i, &c);
			game_client_cmd(g, (int)i, &c);
		}
		t2 = qwd_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		qwd_hist_add(&out->world_ns, t1 - t0);
		qwd_hist_add(&out->cmd_ns, t2 - t1);
		out->world_cpu += (double)(t1 - t0) * 1e-9;
		out->cmd_cpu += (double)(t2 - t1) * 1e-9;
		for (int i = 1; i < g->num_entities && i < g->top; i++) {
			const struct game_entity *e = &g->ents[i];

			if (!e->inuse)
				continue;
			total++;
			used += i >= g->first_free;
			if (e->client >= 0)
				players += e->health > 0;
			else if (is_projectile(e))
				proj++;
		}
		for (int i = g->top; i < g->max_entities; i++) {
			const struct game_entity *e = &g->ents[i];

			total += e->inuse;
			players += e->inuse && e->client >= 0 && e->health > 0;
		}
		out->players_sum += players;
		out->proj_sum += proj;
		out->total_sum += total;
		if (proj > out->proj_max)
			out->proj_max = proj;
		if (total > out->total_max)
			out->total_max = total;
		if (players < out->players_min)
			out->players_min = players;
		if (g->top - g->first_free - used < out->free_min)
			out->free_min = g->top - g->first_free - used;
	}
	out->wall = qwd_clock_s(CLOCK_MONOTONIC) - w0;
	out->entity_runs = g->stats.entity_runs - runs0;
	out->commands = g->stats.commands - cmds0;
}

static void json_figures(struct json_out *j, const char *key, const struct figures *f)
{
	json_break(j, 2);
	json_begin(j, key, '{');
	json_fixed(j, "mean", f->mean, 3);
	json_fixed(j, "p50", f->p50, 3);
	json_fixed(j, "p99", f->p99, 3);
	json_fixed(j, "max", f->max, 3);
	json_end(j);
}

static void write_json(const char *file, const struct options *o,
		       const struct qwt_machine *m, const struct run *r,
		       const struct figures *wf, const struct figures *cf,
		       double ns_per_entity, const struct game *g)
{
	FILE *f = fopen(file, "w");
	double n = (double)o->frames;
	struct json_out j;

	if (!f) {
		fprintf(stderr, "gamebench: %s: %s\n", file, strerror(errno));
		return;
	}
	json_init(&j, f, NULL, 0);
	j.spaced = true;
	json_begin(&j, NULL, '{');
	qwt_json_machine(&j, "gamebench", m);
	json_break(&j, 2);
	json_str(&j, "clock", "CLOCK_THREAD_CPUTIME_ID (CPU time of one thread)");
	json_break(&j, 2);
	json_str(&j, "map", o->map);
	json_break(&j, 2);
	json_i64(&j, "bots", o->bots);
	json_break(&j, 2);
	json_str(&j, "weapon", o->weapon);
	json_break(&j, 2);
	json_i64(&j, "deathmatch", o->deathmatch);
	json_break(&j, 2);
	json_i64(&j, "seed", o->seed);
	json_break(&j, 2);
	json_i64(&j, "frames", o->frames);
	json_break(&j, 2);
	json_i64(&j, "frame_msec", BENCH_FRAME_MSEC);
	json_break(&j, 2);
	json_fixed(&j, "game_seconds", n * BENCH_FRAME_MSEC * 0.001, 3);
	json_figures(&j, "world_update_us", wf);
	json_break(&j, 2);
	json_fixed(&j, "world_update_ns_per_entity_run", ns_per_entity, 1);
	json_figures(&j, "commands_us_per_frame", cf);
	json_break(&j, 2);
	json_fixed(&j, "command_us", r->commands ? r->cmd_cpu / (double)r->commands * 1e6 : 0.0, 3);
	json_break(&j, 2);
	json_begin(&j, "entities", '{');
	json_fixed(&j, "players_alive_mean", r->players_sum / n, 1);
	json_i64(&j, "players_alive_min", r->players_min);
	json_fixed(&j, "projectiles_mean", r->proj_sum / n, 1);
	json_i64(&j, "projectiles_max", r->proj_max);
	json_fixed(&j, "total_mean", r->total_sum / n, 1);
	json_i64(&j, "total_max", r->total_max);
	json_fixed(&j, "runs_per_frame", (double)r->entity_runs / n, 1);
	json_i64(&j, "free_slots_min", r->free_min);
	json_end(&j);
	json_break(&j, 2);
	json_begin(&j, "totals", '{');
	json_u64(&j, "shots", g->stats.shots);
	json_u64(&j, "kills", g->stats.kills);
	json_u64(&j, "entity_runs", r->entity_runs);
	json_u64(&j, "commands", r->commands);
	json_end(&j);
	json_break(&j, 2);
	json_fixed(&j, "wall_seconds", r->wall, 3);
	json_break(&j, 0);
	json_end(&j);
	json_raw(&j, "\n");
	if (json_finish(&j, NULL) != 0 || fclose(f) != 0)
		fprintf(stderr, "gamebench: %s: write failed\n", file);
}

int main(int argc, char **argv)
{
	static char default_map[1024];
	struct options o;
	struct engine *eng;
	struct game_services svc;
	struct bsp_map *map;
	struct world world;
	struct world_obj *objs;
	struct game *g;
	struct bot *bots;
	struct run r;
	struct rng rng;
	struct figures wf, cf;
	char err[256];
	struct qwt_machine machine;
	int max_entities;
	double ns_per_entity;

	if (parse_args(argc, argv, &o, default_map, sizeof(default_map)) != 0)
		return 2;
	map = bsp_load(o.map, err, sizeof(err));
	if (!map) {
		fprintf(stderr, "gamebench: %s\n", err);
		return 1;
	}
	max_entities = BENCH_ENTITIES_BASE + (int)o.bots;
	eng = calloc(1, sizeof(*eng));
	objs = calloc((size_t)max_entities, sizeof(*objs));
	bots = calloc((size_t)o.bots, sizeof(*bots));
	memset(&r, 0, sizeof(r));
	g = game_create(&(struct game_config){max_entities, (int)o.bots,
					      (uint64_t)o.seed + 1});
	if (!eng || !objs || !bots || !g) {
		fprintf(stderr, "gamebench: out of memory\n");
		return 1;
	}
	eng->num_models = eng->num_sounds = 1;
	eng->deathmatch = (float)o.deathmatch;
	add_name(eng->models, &eng->num_models, "maps/bench.bsp");
	for (int i = 1; i < map->num_models; i++) {
		char name[16];

		snprintf(name, sizeof(name), "*%d", i);
		add_name(eng->models, &eng->num_models, name);
	}
	if (world_init(&world, map, objs, max_entities) != 0) {
		fprintf(stderr, "gamebench: out of memory for the areanode lists\n");
		return 1;
	}
	services(eng, &svc);
	if (game_load_level(g, &world, map, "bench", &svc, 1.0, err, sizeof(err)) != 0) {
		fprintf(stderr, "gamebench: %s\n", err);
		world_free(&world);
		return 1;
	}
	rng.s = (uint64_t)o.seed;
	for (long i = 0; i < o.bots; i++) {
		char name[32];

		snprintf(name, sizeof(name), "bot%ld", i);
		game_client_connect(g, (int)i, name, false);
		bots[i].weapon = strcmp(o.weapon, "mixed") == 0 ?
			weapons[i % MIXED_WEAPONS].item : weapon_item(o.weapon);
		bots[i].yaw = (float)(rng_unit(&rng) * 360.0);
	}

	run_frames(g, &o, bots, &rng, &r);

	ns_per_entity = r.entity_runs ? r.world_cpu / (double)r.entity_runs * 1e9 : 0;
	wf = summarise(&r.world_ns);
	cf = summarise(&r.cmd_ns);
	qwt_machine_read(&machine);

	printf("gamebench: the game's world update (game_frame) under load\n");
	printf("  map        %s (%d entities in its lump)\n", o.map, (int)map->ents.num_ents);
	printf("  players    %ld bots, random walkers (seed %ld): full speed, a new heading "
	       "every 0.3-2 s, jumping now and then\n", o.bots, o.seed);
	printf("  weapons    %s, fire held (released 1 frame in 10 to respawn), "
	       "ammunition topped up; deathmatch %ld\n",
	       strcmp(o.weapon, "mixed") == 0 ? "mixed (rl, sng, lg, ssg, gl in turn)" : o.weapon,
	       o.deathmatch);
	printf("  frames     %ld of %d ms = %.2f s of game time\n", o.frames,
	       BENCH_FRAME_MSEC, (double)o.frames * BENCH_FRAME_MSEC * 0.001);
	printf("  machine    %s, %ld CPUs online, RAM %s\n", machine.cpu,
	       sysconf(_SC_NPROCESSORS_ONLN), machine.ram);
	printf("  date       %s\n", machine.date);
	printf("  clock      CPU time of this one thread (CLOCK_THREAD_CPUTIME_ID); "
	       "wall time of the run %.2f s\n", r.wall);
#if defined(__SANITIZE_ADDRESS__)
	printf("  build      with AddressSanitizer: figures not comparable\n");
#endif
	printf("world update per frame: mean %.1f us, p50 %.1f us, p99 %.1f us, max %.1f us\n",
	       wf.mean, wf.p50, wf.p99, wf.max);
	printf("world update per entity run: %.0f ns (%.1f entities run per frame)\n",
	       ns_per_entity, (double)r.entity_runs / (double)o.frames);
	printf("player commands per frame: mean %.1f us, p50 %.1f us, p99 %.1f us, max %.1f us"
	       " (%.2f us per command)\n", cf.mean, cf.p50, cf.p99, cf.max,
	       r.commands ? r.cmd_cpu / (double)r.commands * 1e6 : 0.0);
	printf("entities per frame: players alive %.1f (min %d), projectiles %.1f (max %d), "
	       "in use %.1f (max %d)\n", r.players_sum / (double)o.frames, r.players_min,
	       r.proj_sum / (double)o.frames, r.proj_max, r.total_sum / (double)o.frames,
	       r.total_max);
	if (r.free_min <= 0)
		printf("warning: the entity array was full at times (spawns refused); "
		       "the load was capped\n");
	printf("totals (equal between runs of the same options): %" PRIu64 " shots, %" PRIu64
	       " kills, %" PRIu64 " entity runs, %" PRIu64 " commands\n", g->stats.shots,
	       g->stats.kills, r.entity_runs, r.commands);
	if (o.json)
		write_json(o.json, &o, &machine, &r, &wf, &cf, ns_per_entity, g);

	game_destroy(g);
	world_free(&world);
	free(bots);
	free(objs);
	free(eng);
	bsp_free(map);
	return 0;
}
