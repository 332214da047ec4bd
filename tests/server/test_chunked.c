/*
 * test_chunked.c -- FTE's chunked downloads as ezQuake speaks them, and
 * the stock download beside them, with the project's client library.
 *
 * Design note
 *   The served files are pseudo-random bytes (splitmix64 from a seed) of
 *   a size that is not a multiple of a chunk, so a wrong offset, a lost
 *   or doubled chunk or a bad padding shows in the comparison of the
 *   client's copy.  Sizes stay small (tens of kilobytes) because the
 *   download rate is the client's: at most 100 000 bytes/s.  The client's
 *   retry is long (30 s) where a test needs every chunk asked for once, so
 *   a slow machine never makes it ask twice.  Chunks in one step of the
 *   fixture (one server frame, then the clients read) are the chunks of
 *   one frame: loopback delivers them before the clients' turn.
 */
#include "../harness.h"
#include "srvfix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

enum { ORDER_MAX = 4096 };

/* what on_chunk saw: numbers in order of arrival, out of band or not,
 * and the most in one fixture step; the ctx of the client's callbacks,
 * so it also answers the map checksum (the fixture's map, "small") */
struct seen {
	int32_t order[ORDER_MAX];
	int count;
	int oob;
	int this_step, most_in_step;
	uint32_t checksum2;
};

static bool seen_checksum(void *ctx, const char *model, uint32_t *sum)
{
	const struct seen *s = ctx;

	if (strcmp(model, "maps/small.bsp") != 0)
		return false;
	*sum = s->checksum2;
	return true;
}

/* the client's on_chunk, its ctx the test's log */
static void note_chunk(void *ctx, struct qwc *c, int32_t chunk, bool oob)
{
	struct seen *s = ctx;

	(void)c;
	if (s->count < ORDER_MAX)
		s->order[s->count] = chunk;
	s->count++;
	s->oob += oob;
	s->this_step++;
}

static uint8_t *random_file(struct srvfix *f, const char *rel, size_t size,
			    uint64_t seed)
{
	char path[256];
	uint8_t *bytes = malloc(size);
	FILE *fp;

	assert_non_null(bytes);
	for (size_t i = 0; i < size; i++)
		bytes[i] = (uint8_t)qwd_rng_next(&seed);
	srvfix_write(f, rel, "");
	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(bytes, 1, size, fp), size);
	fclose(fp);
	return bytes;
}

/* a client in the game; chunked downloads taken when fte; its chunks
 * noted in s */
static struct srv_client *player(struct srvfix *f, const char *name, bool fte,
				 const char *extra_info, struct seen *s)
{
	struct srv_client *c = srvfix_client(f, NULL, name, false, extra_info);

	memset(s, 0, sizeof(*s));
	s->checksum2 = f->sums[0];
	c->q.opt.ctx = s;	/* the fixture's print counting is not used */
	c->q.opt.on_print = NULL;
	c->q.opt.map_checksum = seen_checksum;
	c->q.opt.on_chunk = note_chunk;
	c->q.opt.fte_extensions = fte ? FTE_PEXT_CHUNKEDDOWNLOADS : 0;
	c->q.opt.chunk_retry = 30.0;
	qwc_connect(&c->q, server_clock());
	assert_true(srvfix_until(f, c, QWC_ACTIVE, 5.0));
	return c;
}

static const struct client *server_side(struct srvfix *f, struct srv_client *c)
{
	return &f->sv->clients[c->q.playernum];
}

/* step until the client's download leaves the running states; the most
 * chunks seen in one step is kept in s */
static void run_download(struct srvfix *f, struct srv_client *c,
			 struct seen *s, double seconds)
{
	double end = server_clock() + seconds;

	while (server_clock() < end && (c->q.dl.state == QWC_DL_ASKED ||
					c->q.dl.state == QWC_DL_RUNNING)) {
		s->this_step = 0;
		srvfix_step(f, true);
		if (s->this_step > s->most_in_step)
			s->most_in_step = s->this_step;
	}
}

static void start(struct srvfix *f, int slots)
{
	srvfix_start(f, slots);
	/* the download rate is the client's (99999 when it gives none) */
	cvar_set(f->sv, "sv_maxrate", "0");
}

static void test_fte_offered_and_taken(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *fte, *stock;
	static struct seen s, t;

	start(f, 4);
	fte = player(f, "fte", true, NULL, &s);
	stock = player(f, "stock", false, NULL, &t);
	/* the offer goes to everyone; only the client that takes it gets it */
	assert_int_equal(fte->q.fte_offered, FTE_PEXT_CHUNKEDDOWNLOADS);
	assert_int_equal(stock->q.fte_offered, FTE_PEXT_CHUNKEDDOWNLOADS);
	assert_int_equal(fte->q.fte, FTE_PEXT_CHUNKEDDOWNLOADS);
	assert_int_equal(stock->q.fte, 0);
	assert_int_equal(server_side(f, fte)->fte, FTE_PEXT_CHUNKEDDOWNLOADS);
	assert_int_equal(server_side(f, stock)->fte, 0);
	/* the serverdata says what is in force */
	assert_int_equal(fte->q.fte_server, FTE_PEXT_CHUNKEDDOWNLOADS);
	assert_int_equal(stock->q.fte_server, 0);
	assert_int_equal(srvfix_log_count(f, "(FTE chunked downloads)"), 1);
}

static void test_chunked_download_whole(void **state)
{
	struct srvfix *f = *state;
	const size_t size = 60 * FTE_CHUNK + 333;
	uint8_t *bytes;
	struct srv_client *c;
	static struct seen s;

	start(f, 4);
	bytes = random_file(f, "qw/maps/big.bsp", size, 1);
	c = player(f, "getter", true, NULL, &s);
	/* ezQuake's pace: five requests a packet, more than the rate serves,
	 * so the server's queue fills and drops some; those are asked again */
	c->q.opt.chunk_retry = 1.0;
	assert_true(qwc_download(&c->q, "maps/big.bsp"));
	run_download(f, c, &s, 20.0);
	srvfix_run(f, 0.2, true);

	assert_int_equal(c->q.dl.state, QWC_DL_DONE);
	assert_true(c->q.dl.chunked);
	assert_int_equal(c->q.dl.size, size);
	assert_memory_equal(c->q.dl.data, bytes, size);
	/* only chunks asked for came; each was read when it was sent, a
	 * chunk at a time, never the file whole */
	assert_int_equal(c->q.dl.unasked, 0);
	assert_true(c->q.dl.chunks_inband + c->q.dl.chunks_oob >= 61);
	assert_true(f->sv->stats.download_read >= size);
	assert_true(f->sv->stats.download_read <=
		    (c->q.dl.chunks_inband + c->q.dl.chunks_oob) * FTE_CHUNK);
	/* the end was said (nextdl -1): the server closed it and says so */
	assert_false(srvfix_download(f, server_side(f, c))->file.open);
	assert_int_equal(srvfix_log_count(f, "downloading maps/big.bsp (61773 bytes, chunked)"), 1);
	assert_int_equal(srvfix_log_count(f, "download complete"), 1);
	assert_int_equal(c->q.state, QWC_ACTIVE);
	free(bytes);
}

static void test_chunks_come_in_the_order_asked(void **state)
{
	struct srvfix *f = *state;
	const size_t size = 40 * FTE_CHUNK + 1;
	uint8_t *bytes;
	struct srv_client *c;
	static struct seen s;

	start(f, 4);
	bytes = random_file(f, "qw/progs/thing.mdl", size, 2);
	c = player(f, "orderly", true, NULL, &s);
	/* one request per packet: the server's queue never fills, so the
	 * answers are the requests in order, the lowest missing first */
	c->q.opt.chunks_per_packet = 1;
	assert_true(qwc_download(&c->q, "progs/thing.mdl"));
	run_download(f, c, &s, 20.0);
	assert_int_equal(c->q.dl.state, QWC_DL_DONE);
	assert_int_equal(s.count, 41);
	for (int i = 0; i < s.count; i++)
		assert_int_equal(s.order[i], i);
	assert_memory_equal(c->q.dl.data, bytes, size);
	assert_int_equal(f->sv->stats.chunk_requests_dropped, 0);
	free(bytes);
}

static void test_chunks_in_band_and_out_of_band(void **state)
{
	struct srvfix *f = *state;
	const size_t size = 50 * FTE_CHUNK + 7;
	uint8_t *first, *second;
	struct srv_client *c;
	static struct seen s;

	start(f, 4);
	first = random_file(f, "qw/maps/one.bsp", size, 3);
	second = random_file(f, "qw/maps/two.bsp", size, 4);
	c = player(f, "both", true, NULL, &s);
	c->q.opt.chunks_per_packet = 8;
	c->q.opt.chunk_retry = 1.0;
	assert_true(qwc_download(&c->q, "maps/one.bsp"));
	run_download(f, c, &s, 20.0);
	assert_int_equal(c->q.dl.state, QWC_DL_DONE);
	assert_int_equal(c->q.dl.number, 1);
	assert_memory_equal(c->q.dl.data, first, size);
	/* eight asked per packet: one rides in the reply, more go out of
	 * band in the same frame */
	assert_true(c->q.dl.chunks_inband > 0);
	assert_true(c->q.dl.chunks_oob > 0);
	assert_int_equal(f->sv->stats.chunks_inband, c->q.dl.chunks_inband);
	assert_int_equal(f->sv->stats.chunks_oob, c->q.dl.chunks_oob);

	/* the next file has the next number, and its out-of-band chunks
	 * carry it (a leftover of the first would be counted stale) */
	assert_true(qwc_download(&c->q, "maps/two.bsp"));
	run_download(f, c, &s, 20.0);
	assert_int_equal(c->q.dl.state, QWC_DL_DONE);
	assert_int_equal(c->q.dl.number, 2);
	assert_true(c->q.dl.chunks_oob > 0);
	assert_int_equal(c->q.dl.stale, 0);
	assert_memory_equal(c->q.dl.data, second, size);
	free(first);
	free(second);
}

/* chunks the client gets in `seconds` of the server's clock */
static int chunks_in(struct srvfix *f, struct seen *s, double seconds)
{
	int before = s->count;
	double t0 = f->sv->realtime;

	while (f->sv->realtime < t0 + seconds)
		srvfix_step(f, true);
	return s->count - before;
}

static void test_queue_frame_cap_and_rate(void **state)
{
	struct srvfix *f = *state;
	const size_t size = 40 * FTE_CHUNK + 100;
	uint8_t *bytes;
	struct srv_client *c;
	const struct client *sc;
	static struct seen s;
	int got;

	start(f, 4);
	bytes = random_file(f, "qw/maps/cap.bsp", size, 5);
	cvar_set(f->sv, "sv_downloadchunksperframe", "3");
	c = player(f, "greedy", true, NULL, &s);
	sc = server_side(f, c);
	/* far more requests than the queue holds: the excess is dropped and
	 * asked for again (a short retry here), the file still whole */
	c->q.opt.chunks_per_packet = QWC_MAX_CHUNK_REQUESTS;
	c->q.opt.chunk_window = 1000;
	c->q.opt.chunk_retry = 0.3;
	assert_true(qwc_download(&c->q, "maps/cap.bsp"));
	run_download(f, c, &s, 20.0);
	srvfix_run(f, 0.2, true);
	assert_int_equal(c->q.dl.state, QWC_DL_DONE);
	assert_memory_equal(c->q.dl.data, bytes, size);
	assert_true(f->sv->stats.chunk_requests_dropped > 0);
	/* never more than MVDSV's bound, 30, in one frame */
	assert_true(s.most_in_step >= 1);
	assert_true(s.most_in_step <= 30);
	/* the channel kept the game's rate throughout */
	assert_false(srvfix_download(f, sc)->file.open);
	assert_true(sc->chan.rate == 1.0 / 25000);

	/* a client that says drate 3000: its download runs at 3000, one
	 * chunk for each the rate lets through (chunksperframe 1): in a
	 * second at most the rate and the lead's worth (4 chunks), however
	 * much it asks; its channel keeps the game's rate */
	cvar_set(f->sv, "sv_downloadchunksperframe", "1");
	c = player(f, "slow", true, "\\drate\\3000", &s);
	sc = server_side(f, c);
	c->q.opt.chunks_per_packet = QWC_MAX_CHUNK_REQUESTS;
	assert_true(qwc_download(&c->q, "maps/cap.bsp"));
	srvfix_step(f, true);
	got = chunks_in(f, &s, 1.0);
	assert_true(srvfix_download(f, sc)->file.open);
	assert_int_equal(srvfix_download(f, sc)->rate, 3000);
	assert_true(sc->chan.rate == 1.0 / 25000);
	assert_true(got >= 1);
	assert_true(got <= 4);
	/* sv_maxdownloadrate bounds it further, from the next download on */
	cvar_set(f->sv, "sv_maxdownloadrate", "2000");
	qwc_stringcmd(&c->q, "stopdownload");
	srvfix_run(f, 0.2, true);
	assert_true(qwc_download(&c->q, "maps/cap.bsp"));
	srvfix_run(f, 0.2, true);
	assert_true(srvfix_download(f, sc)->file.open);
	assert_int_equal(srvfix_download(f, sc)->rate, 2000);
	assert_true(sc->chan.rate == 1.0 / 25000);
	free(bytes);
}

/* The download's rate is its own: a client with a game rate of 3000
 * (sv_maxrate 3000) and a drate of 40000 (sv_maxdownloadrate 40000)
 * gets its chunks at 40000, far more than its game rate would carry,
 * N times that with sv_downloadchunksperframe N (MVDSV's extra chunks),
 * while its channel, and so its game replies, keep the rate of 3000. */
static void test_download_rate_apart_from_game_rate(void **state)
{
	struct srvfix *f = *state;
	const size_t size = 400 * FTE_CHUNK + 1;
	uint8_t *bytes;
	struct srv_client *c;
	const struct client *sc;
	static struct seen s;
	int one, three;
	/* on the wire a chunk is at least its message (1029 bytes); in a
	 * second the game's rate would carry at most 3 of them */
	const int game_most = (int)(3000 * 1.1 / (1 + 4 + FTE_CHUNK)) + 1;
	const int dl_most = (int)(40000 * 1.1 / (1 + 4 + FTE_CHUNK)) + 1;

	start(f, 4);
	cvar_set(f->sv, "sv_maxrate", "3000");
	cvar_set(f->sv, "sv_maxdownloadrate", "40000");
	cvar_set(f->sv, "sv_downloadchunksperframe", "1");
	bytes = random_file(f, "qw/maps/fast.bsp", size, 11);
	c = player(f, "split", true, "\\drate\\40000", &s);
	sc = server_side(f, c);
	c->q.opt.chunks_per_packet = QWC_MAX_CHUNK_REQUESTS;
	c->q.opt.chunk_window = 1000;
	c->q.opt.chunk_retry = 0.3;
	assert_true(sc->chan.rate == 1.0 / 3000);
	assert_true(qwc_download(&c->q, "maps/fast.bsp"));
	srvfix_step(f, true);
	one = chunks_in(f, &s, 1.0);
	assert_true(srvfix_download(f, sc)->file.open);
	assert_int_equal(srvfix_download(f, sc)->rate, 40000);
	/* the channel: the game's rate, not the download's */
	assert_true(sc->chan.rate == 1.0 / 3000);
	assert_true(one > 3 * game_most);
	assert_true(one <= dl_most);

	/* three chunks for each the rate lets through */
	cvar_set(f->sv, "sv_downloadchunksperframe", "3");
	three = chunks_in(f, &s, 1.0);
	assert_true(three > dl_most);
	assert_true(three <= 3 * dl_most);
	assert_true(sc->chan.rate == 1.0 / 3000);
	/* the game went on beside it: the client is still in, its replies
	 * came */
	assert_int_equal(c->q.state, QWC_ACTIVE);
	for (int k = 0; k < QWC_BAD_KINDS; k++)
		assert_int_equal(c->q.stats.bad[k], 0);

	/* the operator lowers both bounds: the client's rates follow at the
	 * next upkeep (MVDSV bounds every client again), the download's and
	 * the game's each by its own */
	cvar_set(f->sv, "sv_maxdownloadrate", "20000");
	chunks_in(f, &s, 0.3);
	assert_int_equal(srvfix_download(f, sc)->rate, 20000);
	assert_true(sc->chan.rate == 1.0 / 3000);
	cvar_set(f->sv, "sv_maxrate", "2000");
	chunks_in(f, &s, 0.3);
	assert_true(sc->chan.rate == 1.0 / 2000);
	assert_int_equal(srvfix_download(f, sc)->rate, 20000);
	free(bytes);
}

/* Many clients downloading at once, each allowed far more than the
 * server's budget (drate 100000, 30 chunks per rate slot): all the chunks
 * together keep to sv_maxdownloadtotal, every downloader gets its share,
 * and the players beside them get a reply to their packets as before. */
enum { DOWNLOADERS = 16, WATCHERS = 4 };

static void test_many_downloaders_keep_to_the_budget(void **state)
{
	struct srvfix *f = *state;
	const size_t size = 30 * FTE_CHUNK + 17;
	const double budget = 100000, span = 1.5;
	uint8_t *bytes;
	struct srv_client *dl[DOWNLOADERS], *pl[WATCHERS];
	static struct seen s[DOWNLOADERS], t[WATCHERS];
	uint64_t bytes0, out0[WATCHERS], in0[WATCHERS];
	int got0[DOWNLOADERS];
	double t0, spent;
	char name[16];

	start(f, DOWNLOADERS + WATCHERS);
	cvar_set(f->sv, "sv_maxdownloadrate", "100000");
	cvar_set(f->sv, "sv_downloadchunksperframe", "30");
	cvar_set(f->sv, "sv_maxdownloadtotal", "100000");
	bytes = random_file(f, "qw/maps/crowd.bsp", size, 12);
	for (int i = 0; i < WATCHERS; i++) {
		snprintf(name, sizeof(name), "player%d", i);
		pl[i] = player(f, name, false, NULL, &t[i]);
	}
	for (int i = 0; i < DOWNLOADERS; i++) {
		snprintf(name, sizeof(name), "dl%d", i);
		dl[i] = player(f, name, true, "\\drate\\100000", &s[i]);
		dl[i]->q.opt.chunks_per_packet = QWC_MAX_CHUNK_REQUESTS;
		dl[i]->q.opt.chunk_window = 1000;
		dl[i]->q.opt.chunk_retry = 0.3;
	}
	bytes0 = f->sv->stats.chunk_bytes;
	for (int i = 0; i < DOWNLOADERS; i++) {
		assert_true(qwc_download(&dl[i]->q, "maps/crowd.bsp"));
		got0[i] = s[i].count;
	}
	for (int i = 0; i < WATCHERS; i++) {
		out0[i] = pl[i]->q.stats.packets_out;
		in0[i] = pl[i]->q.stats.replies;
	}
	t0 = f->sv->realtime;
	while (f->sv->realtime < t0 + span)
		srvfix_step(f, true);
	spent = f->sv->realtime - t0;

	/* the budget held from the first chunk on (without it the files
	 * would be gone in a few frames): the span's worth, the clock's lead
	 * (0.05 s) and the chunk that crossed it */
	uint64_t sent = f->sv->stats.chunk_bytes - bytes0;

	assert_true((double)sent <= budget * (spent + 0.1) + 2 * 1100);
	/* and was used: every downloader was still asking (16 files of 31
	 * chunks take 5 s of it) */
	assert_true((double)sent >= budget * spent * 0.5);
	assert_true(f->sv->stats.chunk_budget_waits > 0);
	/* and the operator sees it: status's defences line counts the
	 * chunks the budget held */
	{
		char out[4096], want[96];

		srvfix_command(f, "status", out, sizeof(out));
		snprintf(want, sizeof(want),
			 "download chunks held by the server-wide budget %llu",
			 (unsigned long long)f->sv->stats.chunk_budget_waits);
		assert_non_null(strstr(out, want));
	}
	/* each downloader got its share */
	for (int i = 0; i < DOWNLOADERS; i++)
		assert_true(s[i].count - got0[i] >= 2);
	/* the players were answered: a reply for (nearly) every packet */
	for (int i = 0; i < WATCHERS; i++) {
		uint64_t out = pl[i]->q.stats.packets_out - out0[i];
		uint64_t in = pl[i]->q.stats.replies - in0[i];

		assert_true(out > 0);
		assert_true(in * 10 >= out * 8);
		assert_int_equal(pl[i]->q.state, QWC_ACTIVE);
		assert_int_equal(f->sv->clients[pl[i]->q.playernum].state, CS_SPAWNED);
		for (int k = 0; k < QWC_BAD_KINDS; k++)
			assert_int_equal(pl[i]->q.stats.bad[k], 0);
	}
	assert_int_equal(f->sv->net.send_errors, 0);

	/* a larger budget: every download completes, byte for byte */
	cvar_set(f->sv, "sv_maxdownloadtotal", "2000000");
	for (double end = server_clock() + 20.0; server_clock() < end;) {
		int running = 0;

		for (int i = 0; i < DOWNLOADERS; i++)
			running += dl[i]->q.dl.state == QWC_DL_RUNNING;
		if (!running)
			break;
		srvfix_step(f, true);
	}
	for (int i = 0; i < DOWNLOADERS; i++) {
		assert_int_equal(dl[i]->q.dl.state, QWC_DL_DONE);
		assert_memory_equal(dl[i]->q.dl.data, bytes, size);
	}
	free(bytes);
}

static void test_the_ends_of_a_download(void **state)
{
	struct srvfix *f = *state;
	const size_t size = 20 * FTE_CHUNK + 5;
	uint8_t *bytes;
	struct srv_client *c;
	const struct client *sc;
	static struct seen s;
	int before;

	start(f, 4);
	bytes = random_file(f, "qw/maps/end.bsp", size, 6);
	c = player(f, "ender", true, NULL, &s);
	sc = server_side(f, c);

	/* "stopdownload", as ezQuake ends one on servers not MVDSV */
	c->q.opt.end_with_stopdownload = true;
	assert_true(qwc_download(&c->q, "maps/end.bsp"));
	run_download(f, c, &s, 20.0);
	srvfix_run(f, 0.2, true);
	assert_int_equal(c->q.dl.state, QWC_DL_DONE);
	assert_false(srvfix_download(f, sc)->file.open);
	assert_int_equal(srvfix_log_count(f, "download complete"), 1);

	/* "nextdl -1", as ezQuake ends one on MVDSV */
	c->q.opt.end_with_stopdownload = false;
	assert_true(qwc_download(&c->q, "maps/end.bsp"));
	run_download(f, c, &s, 20.0);
	srvfix_run(f, 0.2, true);
	assert_int_equal(c->q.dl.state, QWC_DL_DONE);
	assert_false(srvfix_download(f, sc)->file.open);
	assert_int_equal(srvfix_log_count(f, "download complete"), 2);

	/* stopped half way: no chunk comes after the server has it */
	c->q.opt.chunks_per_packet = 1;
	assert_true(qwc_download(&c->q, "maps/end.bsp"));
	while (c->q.dl.received < 5)
		srvfix_step(f, true);
	assert_true(qwc_stringcmd(&c->q, "stopdownload"));
	srvfix_run(f, 0.3, true);
	assert_false(srvfix_download(f, sc)->file.open);
	assert_int_equal(srvfix_log_count(f, "ended by the client after"), 1);
	before = s.count;
	srvfix_run(f, 0.5, true);
	assert_int_equal(s.count, before);
	assert_int_equal(c->q.dl.state, QWC_DL_RUNNING);
	assert_int_equal(f->sv->downloads->queued, 0);
	free(bytes);
}

static void test_refusals(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *fte, *stock;
	static const struct {
		const char *name;
		int32_t refusal;
	} cases[] = {
		{"maps/none.bsp", -1},		/* no such file */
		{"../secret.cfg", -2},		/* not a path clients fetch */
		{"server.cfg", -2},
		{"demos/sub/x.mvd", -2},	/* demos: a plain file name */
		{"demos/none.mvd", -1},
	};
	static struct seen s, t;

	start(f, 4);
	srvfix_write(f, "qw/server.cfg", "rcon_password secret\n");
	fte = player(f, "fte", true, NULL, &s);
	stock = player(f, "stock", false, NULL, &t);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_true(qwc_download(&fte->q, cases[i].name));
		assert_true(qwc_download(&stock->q, cases[i].name));
		srvfix_run(f, 0.2, true);
		assert_int_equal(fte->q.dl.state, QWC_DL_REFUSED);
		assert_int_equal(fte->q.dl.refusal, cases[i].refusal);
		/* the stock form has one refusal */
		assert_int_equal(stock->q.dl.state, QWC_DL_REFUSED);
		assert_int_equal(stock->q.dl.refusal, -1);
	}
	/* nothing was read, both still in the game */
	assert_int_equal(f->sv->stats.download_read, 0);
	assert_int_equal(fte->q.state, QWC_ACTIVE);
	assert_int_equal(stock->q.state, QWC_ACTIVE);
}

static void test_demo_downloads(void **state)
{
	struct srvfix *f = *state;
	const size_t size = 12 * FTE_CHUNK + 99;
	uint8_t *demo, *other;
	struct srv_client *c;
	static struct seen s;

	start(f, 4);
	demo = random_file(f, "qw/demos/match.mvd", size, 7);
	other = random_file(f, "qw/mvds/other.mvd", size, 8);
	c = player(f, "caster", true, NULL, &s);
	assert_true(qwc_download(&c->q, "demos/match.mvd"));
	srvfix_run(f, 2.0, true);
	assert_int_equal(c->q.dl.state, QWC_DL_DONE);
	assert_memory_equal(c->q.dl.data, demo, size);

	/* the folder is sv_demoDir's, under the game folder */
	cvar_set(f->sv, "sv_demoDir", "mvds");
	assert_true(qwc_download(&c->q, "demos/other.mvd"));
	srvfix_run(f, 2.0, true);
	assert_int_equal(c->q.dl.state, QWC_DL_DONE);
	assert_memory_equal(c->q.dl.data, other, size);

	/* a folder outside the game folder is not the demo folder (the demo
	 * module's rule): here it would name the same files */
	cvar_set(f->sv, "sv_demoDir", "../qw/mvds");
	assert_true(qwc_download(&c->q, "demos/other.mvd"));
	srvfix_run(f, 0.3, true);
	assert_int_equal(c->q.dl.state, QWC_DL_REFUSED);
	cvar_set(f->sv, "sv_demoDir", "mvds");

	/* allow_download_demos 0 refuses them (maps still come) */
	cvar_set(f->sv, "allow_download_demos", "0");
	assert_true(qwc_download(&c->q, "demos/other.mvd"));
	srvfix_run(f, 0.3, true);
	assert_int_equal(c->q.dl.state, QWC_DL_REFUSED);
	assert_int_equal(c->q.dl.refusal, -2);
	assert_true(qwc_download(&c->q, "maps/small.bsp"));
	srvfix_run(f, 0.3, true);
	assert_true(c->q.dl.state == QWC_DL_RUNNING || c->q.dl.state == QWC_DL_DONE);
	free(demo);
	free(other);
}

static void test_stock_download_kept(void **state)
{
	struct srvfix *f = *state;
	const size_t size = 30 * 768 + 5;
	uint8_t *bytes;
	struct srv_client *c;
	static struct seen s;

	start(f, 4);
	bytes = random_file(f, "qw/sound/long.wav", size, 9);
	c = player(f, "stock", false, NULL, &s);
	assert_true(qwc_download(&c->q, "sound/long.wav"));
	srvfix_run(f, 3.0, true);
	assert_int_equal(c->q.dl.state, QWC_DL_DONE);
	assert_false(c->q.dl.chunked);
	assert_int_equal(c->q.dl.size, size);
	assert_memory_equal(c->q.dl.data, bytes, size);
	assert_int_equal(srvfix_log_count(f, "(23045 bytes, stock)"), 1);
	assert_int_equal(srvfix_log_count(f, "download complete"), 1);
	assert_int_equal(f->sv->stats.chunks_inband + f->sv->stats.chunks_oob, 0);
	free(bytes);
}

/* step until the client holds n chunks of its download (or seconds pass) */
static bool until_received(struct srvfix *f, struct srv_client *c, size_t n,
			   double seconds)
{
	double end = server_clock() + seconds;

	while (server_clock() < end && c->q.dl.received < n)
		srvfix_step(f, true);
	return c->q.dl.received >= n;
}

static void test_download_across_a_map_change(void **state)
{
	struct srvfix *f = *state;
	const size_t size = 40 * FTE_CHUNK + 3;
	uint8_t *bytes, *small;
	size_t small_size;
	struct srv_client *c;
	static struct seen s;
	char err[256];
	int level;

	start(f, 4);
	bytes = random_file(f, "qw/sound/long.wav", size, 10);
	small = qwd_read_file(qwd_bundled_map("small"), &small_size);
	assert_non_null(small);
	c = player(f, "traveller", true, NULL, &s);
	c->q.opt.chunks_per_packet = 1;

	/* a file on disk goes on; at its end the client is sent on to the
	 * new level (it ignored "reconnect" meanwhile, as ezQuake does) */
	assert_true(qwc_download(&c->q, "sound/long.wav"));
	assert_true(until_received(f, c, 10, 10.0));
	level = f->sv->spawncount;
	assert_int_equal(server_map(f->sv, "small", err, sizeof(err)), 0);
	run_download(f, c, &s, 20.0);
	assert_int_equal(c->q.dl.state, QWC_DL_DONE);
	assert_memory_equal(c->q.dl.data, bytes, size);
	assert_true(srvfix_until(f, c, QWC_ACTIVE, 5.0));
	assert_int_equal(c->q.servercount, level + 1);

	/* the map being played comes from the loader's copy, which a level
	 * change frees: it is opened again and goes on */
	assert_true(qwc_download(&c->q, "maps/small.bsp"));
	assert_true(until_received(f, c, 10, 10.0));
	assert_int_equal(server_map(f->sv, "small", err, sizeof(err)), 0);
	run_download(f, c, &s, 60.0);
	assert_int_equal(c->q.dl.state, QWC_DL_DONE);
	assert_int_equal(c->q.dl.size, small_size);
	assert_memory_equal(c->q.dl.data, small, small_size);
	assert_true(srvfix_until(f, c, QWC_ACTIVE, 5.0));
	assert_int_equal(c->q.servercount, level + 2);
	assert_int_equal(srvfix_log_count(f, "ended: the level changed"), 0);
	free(bytes);
	free(small);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_fte_offered_and_taken, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_chunked_download_whole, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_chunks_come_in_the_order_asked, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_chunks_in_band_and_out_of_band, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_queue_frame_cap_and_rate, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_download_rate_apart_from_game_rate, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_many_downloaders_keep_to_the_budget, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_the_ends_of_a_download, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_refusals, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_demo_downloads, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_stock_download_kept, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_download_across_a_map_change, srvfix_test_teardown),
};

QWD_TEST_GROUP(chunked, tests, srvfix_setup, srvfix_teardown)
