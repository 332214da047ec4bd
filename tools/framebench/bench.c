/*
 * bench.c -- one run of the frame benchmark: a server and its players in
 * lockstep through memory (framebench.h has the design of the whole).
 *
 * Design note
 *   Lockstep, one round per server frame:
 *     1. every player builds its next datagram with the client library
 *        (qwc_packet, forced: one request a frame, as a client at 77 Hz
 *        sends) and puts it in the server's in-queue from its address;
 *     2. the clock advances 13 ms and server_frame runs: WORLD (sv_mintic
 *        is 0, so the world's physics runs every frame), RECEIVE+EXECUTE
 *        of every request, REPLY.  A frame reads at most 1024 datagrams
 *        (the server's cap, RECV_ROUNDS * NET_BATCH, so that replies are
 *        not starved); with more players the round runs frames until
 *        every request was read, the later ones at the same time, and its
 *        figures are those frames' together;
 *     3. every datagram the server queued goes to the player whose
 *        address it names (qwc_receive): the replies acknowledge the
 *        requests, so the next requests ask for deltas from them, as in a
 *        real game.  With --lag R it is held back R rounds first (a
 *        ring sized for two datagrams a player and round), so a player
 *        sees and acknowledges the world of R frames before: antilag
 *        rewinds that far.
 *   After the join a player's requests are --interval ms apart (13 by
 *   default, as above; qwexp's players send 30 a second, 33).  With
 *   --spread K a player sends in one round of K, player i when
 *   (round + i) % K is 0, and a round is a K-th of the interval: a
 *   player's requests keep their interval, and a server frame reads a
 *   K-th of them, as a live server at hundreds of players runs a frame
 *   for each few dozen datagrams.  The frame's per-phase caches then
 *   serve a few dozen replies, not all of them (docs/framebench.md).
 *   Nothing waits and nothing is lost: the server's budgets and rate
 *   limits are those of a public server except where the lockstep needs
 *   otherwise (connectionless limits off, as every join comes at once;
 *   sv_mintic 0; sv_maxrate and the players' rate both --rate, by
 *   default the highest a channel takes, NETCHAN_MAX_RATE).  The rate is
 *   real: a crowd whose replies outgrow it at 77 requests a second gets
 *   some of them choked, as on the network, and the figures say how many
 *   (requests not answered in their frame).
 *   Players: addresses 10.0.0.1 and up (one host each), qport 1 and up,
 *   stock protocol 28 up to 32 players, QWDX beyond (the server gives
 *   stock clients the first 32 slots only).  They start connecting
 *   join_per_frame a frame; once all are in the game (or refused), warmup
 *   frames pass, then the measured frames.  In the game a player is the
 *   random walker (tools/lib/walker.c, qwbots' walker: the study's
 *   10/5/5 cycle, speed 400), its generator seeded from (seed, player).
 *   Phase times are qwd's own (prof_last_frame after each frame: world,
 *   receive, execute, reply); the run's clocks are read around
 *   server_frame only (frame_*) and around the whole round (loop_*).
 *   With --schedule the server measures the schedule of a parallel frame
 *   (server_sched_enable: every server frame's jobs, from the action
 *   lists of the clients whose moves ran, with the time the moves took);
 *   after each measured server frame its jobs go into the histograms and
 *   LPT (qwd/sched.h) assigns their measured costs to 1, 2, 4, 8 and 16
 *   workers: a simulation of the parallel frame's requests, not a run.
 *   Everything is allocated before the first frame.
 */
#include "framebench.h"
#include "qwtools.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bsd/string.h>

#include "qwd/client.h"
#include "qwd/net.h"
#include "qwd/sched.h"
#include "qwd/server.h"
#include "qwd/world.h"

static const double FB_FRAME_S = 0.013;	/* game time a frame */
static const uint64_t FNV_BASIS = 0xcbf29ce484222325ull;
static const double FB_START = 1000.0;	/* the run's clock at start */

enum {
	FB_FIRST_IP = 0x0a000001,	/* 10.0.0.1 */
	FB_PORT = 27001,
	FB_TRACKED_PLAYERS = 64		/* slots a player's client tracks */
};

struct player {
	struct qwc q;
	struct net_addr addr;
	char info[192];
	struct qwt_rng rng;
	struct qwt_walker walker;
	bool started, walking;
	uint64_t sent_hash;	/* of the datagrams the server sent it */
};

/* a reply held back by --lag */
struct held_reply {
	uint64_t due;		/* the round it is delivered in */
	uint32_t k;		/* its player */
	uint32_t len;
	uint8_t data[NETCHAN_MAX_PACKET];
};

struct bench {
	const struct fb_config *cfg;
	/* --lag: a ring of replies on their way, in the order sent */
	struct held_reply *held;
	size_t held_cap, held_head, held_count;
	struct fb_result *r;
	struct player *pl;
	struct net_mem in, out;
	struct server_link link;
	struct server *sv;
	char base[64];		/* temporary base directory */
	char map_link[224];	/* dir (128) / mapname (64) .bsp */
	char mapname[64];
	uint32_t checksum2;
	double now;
	uint64_t round;		/* rounds run, the join's included */
	uint64_t state_digest;	/* server_state_hash after every frame */
	double round_s;		/* game time a round: 13 ms in the join,
				 * then --interval / --spread */
	bool joined;		/* the join is over: --spread applies */
	struct server_exec_stats exec0;	/* at the measured frames' start */
	uint8_t pkt[NETCHAN_MAX_PACKET];
	/* --schedule: a frame's job costs and LPT's scratch, players each */
	uint64_t *job_cost;
	int *job_order;
	uint64_t load[SCHED_MAX_WORKERS];
};

const int fb_sched_workers[FB_SCHED_WORKERS] = { 1, 2, 4, 8, 16 };

static const char *const phase_names[FB_PHASES] = {
	"world", "receive", "execute", "reply"
};

const char *fb_phase_name(int phase)
{
	return phase >= 0 && phase < FB_PHASES ? phase_names[phase] : "?";
}

void fb_config_default(struct fb_config *c)
{
	memset(c, 0, sizeof(*c));
	c->map = "small";
	c->players = 512;
	c->frames = 500;
	c->warmup = 20;
	c->join_per_frame = 32;
	c->spread = 1;
	c->interval_ms = 13;
	c->join_frames_max = 5000;
	c->seed = 1;
	c->rate = NETCHAN_MAX_RATE;
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the map and the base directory ---------------------------------- */

static bool readable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A bundled map's file: beside the program (build/maps for build/X,
 * build/tests/X), or installed (../share/qwd/maps). */
static bool find_bundled(const char *name, char *path, size_t size)
{
	static const char *const rel[] = { "maps", "../maps", "../share/qwd/maps" };
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (len <= 0)
		return false;
	exe[len] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return false;
	*slash = '\0';
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		int n = snprintf(path, size, "%s/%s/%s.bsp", exe, rel[i], name);

		if (n > 0 && (size_t)n < size && readable(path))
			return true;
	}
	return false;
}

/* The map's file, its name for the server, its checksum; the server gets
 * a base directory of its own holding qw/maps/<name>.bsp, a link to the
 * file, so any path loads as a plain map name. */
static int prepare_map(struct bench *b, char *err, size_t errsize)
{
	const char *m = b->cfg->map;
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX], dir[128], *dot;
	struct bsp_map *map;
	char e[256];

	if (strchr(m, '/') || (strlen(m) > 4 && !strcmp(m + strlen(m) - 4, ".bsp")))
		strlcpy(path, m, sizeof(path));
	else if (!find_bundled(m, path, sizeof(path))) {
		snprintf(err, errsize, "no bundled map \"%s\" beside the program "
			 "(make builds build/maps; or give a .bsp path)", m);
		return -1;
	}
	if (!realpath(path, b->r->map_path)) {
		snprintf(err, errsize, "%s: %s", path, strerror(errno));
		return -1;
	}
	map = bsp_load(b->r->map_path, e, sizeof(e));
	if (!map) {
		snprintf(err, errsize, "%s: %s", b->r->map_path, e);
		return -1;
	}
	b->checksum2 = map->checksum2;
	bsp_free(map);
	strlcpy(b->mapname, strrchr(b->r->map_path, '/') + 1, sizeof(b->mapname));
	dot = strrchr(b->mapname, '.');
	if (dot)
		*dot = '\0';
	snprintf(b->base, sizeof(b->base), "%s/framebench-XXXXXX",
		 tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
	if (!mkdtemp(b->base)) {
		snprintf(err, errsize, "mkdtemp %s: %s", b->base, strerror(errno));
		b->base[0] = '\0';
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/qw", b->base);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/qw/maps", b->base);
	mkdir(dir, 0700);
	snprintf(b->map_link, sizeof(b->map_link), "%s/%s.bsp", dir, b->mapname);
	if (symlink(b->r->map_path, b->map_link) != 0) {
		snprintf(err, errsize, "symlink %s: %s", b->map_link, strerror(errno));
		b->map_link[0] = '\0';
		return -1;
	}
	return 0;
}

static void remove_base(struct bench *b)
{
	char dir[128];

	if (!b->base[0])
		return;
	if (b->map_link[0])
		unlink(b->map_link);
	snprintf(dir, sizeof(dir), "%s/qw/maps", b->base);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/qw", b->base);
	rmdir(dir);
	rmdir(b->base);
}

/* ---- the server -------------------------------------------------------- */

static void set(struct bench *b, const char *line)
{
	server_command(b->sv, line, stderr);
}

static int start_server(struct bench *b, char *err, size_t errsize)
{
	const struct fb_config *c = b->cfg;
	struct server_options o = { 0 };
	size_t per = 2 * (size_t)NETCHAN_MAX_PACKET + 64;
	char line[128];

	/* a frame's requests, and its replies and connectionless answers:
	 * at most one of each per player (record headers included) */
	if (net_mem_init(&b->in, (size_t)c->players * per + 65536) != 0 ||
	    net_mem_init(&b->out, (size_t)c->players * 2 * per + 65536) != 0) {
		snprintf(err, errsize, "out of memory for the queues");
		return -1;
	}
	b->now = FB_START;
	b->link.in = &b->in;
	b->link.out = &b->out;
	b->link.now = b->now;
	o.basedir = b->base;
	o.gamedir = "qw";
	o.port = FB_PORT - 1;
	o.maxclients = c->players;
	o.link = &b->link;
	o.quiet = !c->log;
	o.threads = c->threads;
	o.threads_auto = c->threads_auto;
	o.threads_max = c->threads_max;
	o.cpus = c->cpus;
	o.num_cpus = c->num_cpus;
	b->sv = server_create(&o);
	if (!b->sv) {
		snprintf(err, errsize, "the server did not start");
		return -1;
	}
	/* every join comes in the first frames: no connectionless limits */
	set(b, "sv_oob_getchallenge \"1e9 1e12 0 1\"");
	set(b, "sv_oob_connect \"1e9 1e12 0 1\"");
	set(b, "sv_mintic 0");
	set(b, "sv_maxclientsperip 0");
	snprintf(line, sizeof(line), "sv_maxrate %d", c->rate);
	set(b, line);
	for (int i = 0; i < c->num_sets; i++)
		set(b, c->sets[i]);
	if (server_map(b->sv, b->mapname, line, sizeof(line)) != 0) {
		snprintf(err, errsize, "map %s: %s", b->mapname, line);
		return -1;
	}
	return 0;
}

/* ---- the players ------------------------------------------------------- */

static int make_players(struct bench *b, char *err, size_t errsize)
{
	const struct fb_config *c = b->cfg;
	bool qwdx = c->players > MAX_CLIENTS;

	b->pl = calloc((size_t)c->players, sizeof(*b->pl));
	if (c->lag > 0) {
		/* a reply and an answer per player and round, lag rounds */
		b->held_cap = (size_t)c->players * 2 * (size_t)(c->lag + 1) + 64;
		b->held = calloc(b->held_cap, sizeof(*b->held));
	}
	if (!b->pl || (c->lag > 0 && !b->held)) {
		snprintf(err, errsize, "out of memory for %d players", c->players);
		return -1;
	}
	for (int i = 0; i < c->players; i++) {
		struct player *p = &b->pl[i];
		struct qwc_options o = { 0 };

		p->addr.ip = htonl(FB_FIRST_IP + (uint32_t)i);
		p->addr.port = htons(FB_PORT);
		qwt_rng_seed(&p->rng, c->seed, (uint64_t)i + 1);
		snprintf(p->info, sizeof(p->info),
			 "\\name\\fb%d\\topcolor\\%u\\bottomcolor\\%u\\rate\\%d",
			 i, qwt_rng_below(&p->rng, 14), qwt_rng_below(&p->rng, 14),
			 c->rate);
		o.server.ip = htonl(0x7f000001);
		o.server.port = htons(FB_PORT - 1);
		o.qport = (uint16_t)(i + 1);
		o.userinfo = p->info;
		o.extension = qwdx;
		o.checksum2 = b->checksum2;
		o.max_players = FB_TRACKED_PLAYERS;
		o.resend_interval = 1.0;
		p->sent_hash = FNV_BASIS;
		if (qwc_init(&p->q, &o) != 0) {
			snprintf(err, errsize, "out of memory for player %d", i);
			return -1;
		}
	}
	return 0;
}

static bool out_of_game(const struct player *p)
{
	return p->q.state == QWC_REFUSED || p->q.state == QWC_DROPPED;
}

/* step 1: every started player's datagram into the in-queue; returns the
 * moves sent by players in the game */
static uint64_t send_requests(struct bench *b)
{
	uint64_t moves = 0;

	for (int i = 0; i < b->cfg->players; i++) {
		struct player *p = &b->pl[i];
		size_t n;

		if (!p->started || out_of_game(p))
			continue;
		if (b->joined &&
		    (b->round + (uint64_t)i) % (uint64_t)b->cfg->spread != 0)
			continue;
		if (p->q.state == QWC_ACTIVE) {
			if (!p->walking) {
				qwt_walker_start(&p->walker, p->q.setangle[1]);
				p->walking = true;
			}
			qwt_walker_step(&p->walker, &(struct qwt_walker_params){
						10, 5, 5, 400}, &p->rng, &p->q.cmd);
			/* --quiet: nobody fires; --fighters N: the first N
			 * hold the trigger down */
			if (b->cfg->quiet)
				p->q.cmd.buttons &= ~BUTTON_ATTACK;
			else if (i < b->cfg->fighters)
				p->q.cmd.buttons |= BUTTON_ATTACK;
		}
		n = qwc_packet(&p->q, b->now, p->q.state >= QWC_CONNECTED,
			       b->pkt, sizeof(b->pkt));
		if (!n)
			continue;
		net_mem_put(&b->in, &p->addr, b->pkt, n);
		if (p->q.state == QWC_ACTIVE)
			moves++;
	}
	return moves;
}

/* FNV-1a of n bytes onto h */
static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const uint8_t *)data)[i]) * 0x100000001b3ull;
	return h;
}

/* step 3: the server's datagrams to their players, each netchan packet
 * hashed into its player's record with the round (not the connectionless
 * answers: they carry the server's challenge, random in every run) */
static void deliver_replies(struct bench *b)
{
	static const uint8_t oob[4] = { 0xff, 0xff, 0xff, 0xff };
	const uint8_t *data;
	struct net_addr to;
	size_t len;

	while (net_mem_get(&b->out, &to, &data, &len)) {
		uint32_t k = ntohl(to.ip) - FB_FIRST_IP;

		if (k < (uint32_t)b->cfg->players && to.port == htons(FB_PORT)) {
			struct player *p = &b->pl[k];
			uint64_t head[2] = { b->round, len };

			if (len < sizeof(oob) || memcmp(data, oob, sizeof(oob)) != 0)
				p->sent_hash = fnv(fnv(p->sent_hash, head, sizeof(head)),
						   data, len);
			if (b->held && b->held_count < b->held_cap &&
			    len <= sizeof(b->held->data)) {
				struct held_reply *h = &b->held[(b->held_head +
					b->held_count) % b->held_cap];

				h->due = b->round + (uint64_t)b->cfg->lag;
				h->k = k;
				h->len = (uint32_t)len;
				memcpy(h->data, data, len);
				b->held_count++;
			} else {
				qwc_receive(&p->q, data, len, b->now);
			}
		}
	}
	/* --lag: what was sent lag rounds ago arrives now */
	while (b->held_count > 0 && b->held[b->held_head].due <= b->round) {
		const struct held_reply *h = &b->held[b->held_head];

		qwc_receive(&b->pl[h->k].q, h->data, h->len, b->now);
		b->held_head = (b->held_head + 1) % b->held_cap;
		b->held_count--;
	}
}

/* The server frame's jobs into the figures, and LPT over their costs
 * for every simulated worker count. */
static void add_schedule(struct bench *b, struct fb_schedule *fs)
{
	struct server_sched_frame f;
	uint64_t total = 0, largest = 0;

	server_sched_last(b->sv, &f);
	if (f.jobs <= 0)
		return;
	fs->frames++;
	fs->clients += (uint64_t)f.clients;
	fs->global_frames += f.global;
	qwd_hist_add(&fs->jobs_per_frame, (uint64_t)f.jobs);
	for (int i = 0; i < f.jobs; i++) {
		const struct server_sched_job *j = &f.job[i];

		qwd_hist_add(&fs->entities_per_job, (uint64_t)j->entities);
		qwd_hist_add(&fs->clients_per_job, (uint64_t)j->clients);
		qwd_hist_add(&fs->cost_per_job, j->cost_ns);
		fs->firing += (uint64_t)j->firing;
		b->job_cost[i] = j->cost_ns;
		total += j->cost_ns;
		if (j->cost_ns > largest)
			largest = j->cost_ns;
	}
	fs->cost_ns += total;
	if (total == 0)
		return;
	qwd_hist_add(&fs->largest_share, largest * 10000 / total);
	for (int w = 0; w < FB_SCHED_WORKERS; w++) {
		uint64_t m = sched_lpt(b->job_cost, f.jobs, fb_sched_workers[w],
				       b->job_order, NULL, b->load);

		fs->makespan_ns[w] += m;
		/* max over mean of 2 loads: 2 max / total */
		if (fb_sched_workers[w] == 2)
			qwd_hist_add(&fs->balance2, m * 2000 / total);
	}
}

/* One lockstep round: the requests, then server frames until every
 * request was read (one frame up to RECV_ROUNDS * NET_BATCH = 1024
 * datagrams, the server's cap; more players take more frames, the clock
 * advanced only before the first), then the replies.  With r, the frames
 * are timed and their phase records summed into *sum. */
static uint64_t round_trip(struct bench *b, struct fb_result *r,
			   struct prof_frame_record *sum)
{
	uint64_t moves = send_requests(b);
	struct prof *prof = server_prof(b->sv);

	b->now += b->round_s;
	b->link.now = b->now;
	if (sum)
		memset(sum, 0, sizeof(*sum));
	do {
		double w0 = 0, c0 = 0;

		if (r) {
			w0 = clock_s(CLOCK_MONOTONIC);
			c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		}
		server_frame(b->sv, 0);
		if (r) {
			r->frame_cpu_s += clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
			r->frame_wall_s += clock_s(CLOCK_MONOTONIC) - w0;
			r->server_frames++;
		}
		if (r && b->cfg->schedule)
			add_schedule(b, &r->sched);
		/* the game's state after every frame, warm-up included */
		b->state_digest = server_state_hash(b->sv, b->state_digest);
		if (sum) {
			const struct prof_frame_record *f = prof_last_frame(prof);

			for (int k = 0; k < PROF_PHASES; k++)
				sum->phase_ns[k] += f->phase_ns[k];
			sum->requests += f->requests;
			sum->replies += f->replies;
		}
	} while (b->in.head < b->in.tail);
	deliver_replies(b);
	b->round++;
	return moves;
}

static int join(struct bench *b, char *err, size_t errsize)
{
	const struct fb_config *c = b->cfg;
	int started = 0;

	for (int f = 0; f < c->join_frames_max; f++) {
		int waiting = 0;

		for (int k = 0; k < c->join_per_frame && started < c->players; k++) {
			b->pl[started].started = true;
			qwc_connect(&b->pl[started].q, b->now);
			started++;
		}
		round_trip(b, NULL, NULL);
		for (int i = 0; i < c->players; i++)
			if (!b->pl[i].started ||
			    (b->pl[i].q.state != QWC_ACTIVE && !out_of_game(&b->pl[i])))
				waiting++;
		if (waiting == 0) {
			b->r->join_frames = f + 1;
			return 0;
		}
	}
	snprintf(err, errsize, "the join did not finish in %d frames",
		 c->join_frames_max);
	return -1;
}

/* ---- the run ----------------------------------------------------------- */

static void player_totals(struct bench *b, uint64_t *acks, uint64_t *replies)
{
	*acks = *replies = 0;
	for (int i = 0; i < b->cfg->players; i++) {
		*acks += b->pl[i].q.stats.acks;
		*replies += b->pl[i].q.stats.replies;
	}
}

static void add_frame(struct fb_result *r, const struct prof_frame_record *f)
{
	uint64_t busy = 0;

	for (int k = 0; k < FB_PHASES; k++) {
		uint64_t ns = f->phase_ns[PROF_WORLD + k];

		qwd_hist_add(&r->phase_frame[k], ns);
		if (f->requests)
			qwd_hist_add(&r->phase_request[k], ns / f->requests);
		r->phase_ns[k] += ns;
		busy += ns;
	}
	qwd_hist_add(&r->busy_frame, busy);
}

static void measure(struct bench *b)
{
	struct fb_result *r = b->r;
	struct prof *prof = server_prof(b->sv);
	struct prof_frame_record sum;
	uint64_t acks0, replies0, acks1, replies1;
	double w0, c0;

	for (int k = 0; k < FB_PHASES; k++) {
		qwd_hist_clear(&r->phase_frame[k]);
		qwd_hist_clear(&r->phase_request[k]);
	}
	qwd_hist_clear(&r->busy_frame);
	qwd_hist_clear(&r->sched.jobs_per_frame);
	qwd_hist_clear(&r->sched.entities_per_job);
	qwd_hist_clear(&r->sched.clients_per_job);
	qwd_hist_clear(&r->sched.cost_per_job);
	qwd_hist_clear(&r->sched.largest_share);
	qwd_hist_clear(&r->sched.balance2);
	player_totals(b, &acks0, &replies0);
	server_begin(b->sv, -1);	/* the figures start now */
	server_sched_enable(b->sv, b->cfg->schedule, b->cfg->schedule_rule);
	w0 = clock_s(CLOCK_MONOTONIC);
	c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	for (int f = 0; f < b->cfg->frames; f++) {
		r->requests += round_trip(b, r, &sum);
		add_frame(r, &sum);
	}
	r->loop_cpu_s = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	r->loop_wall_s = clock_s(CLOCK_MONOTONIC) - w0;
	r->frames = b->cfg->frames;
	prof_get_stats(prof, PROF_SCOPE_TOTAL, &r->prof);
	player_totals(b, &acks1, &replies1);
	r->answered = acks1 - acks0;
	r->replies = replies1 - replies0;
}

static void finish(struct bench *b)
{
	struct fb_result *r = b->r;
	uint64_t h = FNV_BASIS, sent = FNV_BASIS;

	for (int i = 0; i < b->cfg->players; i++) {
		const struct qwc *q = &b->pl[i].q;
		int32_t v[4] = { q->playernum, 0, 0, 0 };

		for (int k = 0; k < 3; k++)
			v[k + 1] = (int32_t)(q->self_origin[k] * 8.0f);
		if (i == 0)
			memcpy(r->first_origin, v + 1, sizeof(r->first_origin));
		h = fnv(h, v, sizeof(v));
		sent = fnv(sent, &b->pl[i].sent_hash, sizeof(b->pl[i].sent_hash));
		if (q->state == QWC_ACTIVE)
			r->in_game++;
		for (int k = 0; k < QWC_BAD_KINDS; k++)
			r->bad += q->stats.bad[k];
	}
	r->digest = h;
	r->reply_digest = sent;
	r->state_digest = b->state_digest;
	/* the measured frames' figures */
	server_exec_stats(b->sv, &r->exec);
	r->exec.parallel -= b->exec0.parallel;
	r->exec.sequential -= b->exec0.sequential;
	r->exec.skipped -= b->exec0.skipped;
	r->exec.jobs -= b->exec0.jobs;
	r->exec.local_moves -= b->exec0.local_moves;
	r->exec.shared_moves -= b->exec0.shared_moves;
	r->exec.outside -= b->exec0.outside;
	r->exec.escapes -= b->exec0.escapes;
	r->exec.calls_lost -= b->exec0.calls_lost;
	r->exec.spec_segments -= b->exec0.spec_segments;
	r->exec.spec_moves -= b->exec0.spec_moves;
	r->exec.spec_rested -= b->exec0.spec_rested;
	r->exec.spec_hits -= b->exec0.spec_hits;
	r->exec.spec_inputs -= b->exec0.spec_inputs;
	r->exec.spec_world -= b->exec0.spec_world;
	r->exec.spec_noted -= b->exec0.spec_noted;
	r->exec.spec_overflows -= b->exec0.spec_overflows;
	r->exec.pipe_segments -= b->exec0.pipe_segments;
	r->exec.pipe_waits -= b->exec0.pipe_waits;
	r->exec.pipe_own -= b->exec0.pipe_own;
	r->exec.pipe_gave_up -= b->exec0.pipe_gave_up;
	for (int k = 0; k < SERVER_EXEC_STEPS; k++)
		r->exec.ns[k] -= b->exec0.ns[k];
	FILE *out = fmemopen(r->threads, sizeof(r->threads), "w");

	if (out) {
		server_command(b->sv, "threads", out);
		fclose(out);
	}
	r->threads[strcspn(r->threads, "\n")] = '\0';
	r->dropped_datagrams = b->in.dropped + b->out.dropped;
}

int fb_run(const struct fb_config *c, struct fb_result *r, char *err,
	   size_t errsize)
{
	struct bench *b = calloc(1, sizeof(*b));
	int rc = -1;

	if (!b) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	memset(r, 0, sizeof(*r));
	r->players = c->players;
	b->cfg = c;
	b->r = r;
	b->round_s = FB_FRAME_S;
	if (c->players < 1 || c->players > FB_MAX_PLAYERS) {
		snprintf(err, errsize, "players: 1 to %d", FB_MAX_PLAYERS);
		goto out;
	}
	b->job_cost = calloc((size_t)c->players, sizeof(*b->job_cost));
	b->job_order = calloc((size_t)c->players, sizeof(*b->job_order));
	if (!b->job_cost || !b->job_order) {
		snprintf(err, errsize, "out of memory");
		goto out;
	}
	if (prepare_map(b, err, errsize) != 0 ||
	    start_server(b, err, errsize) != 0 ||
	    make_players(b, err, errsize) != 0 || join(b, err, errsize) != 0)
		goto out;
	for (int i = 0; i < c->players; i++)
		r->joined += b->pl[i].walking || b->pl[i].q.state == QWC_ACTIVE;
	b->joined = true;
	b->round_s = c->interval_ms / 1000.0 / c->spread;
	for (int f = 0; f < c->warmup; f++)
		round_trip(b, NULL, NULL);
	server_exec_stats(b->sv, &b->exec0);
	measure(b);
	finish(b);
	rc = 0;
out:
	if (b->sv)
		server_destroy(b->sv);
	if (b->pl)
		for (int i = 0; i < c->players; i++)
			qwc_free(&b->pl[i].q);
	free(b->pl);
	free(b->held);
	free(b->job_cost);
	free(b->job_order);
	net_mem_free(&b->in);
	net_mem_free(&b->out);
	remove_base(b);
	free(b);
	return rc;
}
