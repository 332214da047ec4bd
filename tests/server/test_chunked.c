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
	assert_false(server_side(f, c)->dl.open);
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

static void test_queue_frame_cap_and_rate(void **state)
{
	struct srvfix *f = *state;
	const size_t size = 40 * FTE_CHUNK + 100;
	uint8_t *bytes;
	struct srv_client *c;
	const struct client *sc;
	static struct seen s;
	double t0;

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
	/* never more than sv_downloadchunksperframe chunks in one frame */
	assert_true(s.most_in_step >= 1);
	assert_true(s.most_in_step <= 3);
	/* the game rate again once it is over */
	assert_false(sc->dl.open);
	assert_true(sc->chan.rate == 1.0 / 25000);

	/* a client that says drate 3000: its channel runs at 3000 while the
	 * download is open, and in a second it gets at most the rate and
	 * the lead's worth (4 chunks), however much it asks */
	c = player(f, "slow", true, "\\drate\\3000", &s);
	sc = server_side(f, c);
	c->q.opt.chunks_per_packet = QWC_MAX_CHUNK_REQUESTS;
	assert_true(qwc_download(&c->q, "maps/cap.bsp"));
	t0 = server_clock();
	while (server_clock() < t0 + 1.0)
		srvfix_step(f, true);
	assert_true(sc->dl.open);
	assert_true(sc->chan.rate == 1.0 / 3000);
	assert_true(s.count >= 1);
	assert_true(s.count <= 4);
	/* sv_maxdownloadrate bounds it further, from the next download on */
	cvar_set(f->sv, "sv_maxdownloadrate", "2000");
	qwc_stringcmd(&c->q, "stopdownload");
	srvfix_run(f, 0.2, true);
	assert_true(sc->chan.rate == 1.0 / 25000);
	assert_true(qwc_download(&c->q, "maps/cap.bsp"));
	srvfix_run(f, 0.2, true);
	assert_true(sc->dl.open);
	assert_true(sc->chan.rate == 1.0 / 2000);
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
	assert_false(sc->dl.open);
	assert_int_equal(srvfix_log_count(f, "download complete"), 1);

	/* "nextdl -1", as ezQuake ends one on MVDSV */
	c->q.opt.end_with_stopdownload = false;
	assert_true(qwc_download(&c->q, "maps/end.bsp"));
	run_download(f, c, &s, 20.0);
	srvfix_run(f, 0.2, true);
	assert_int_equal(c->q.dl.state, QWC_DL_DONE);
	assert_false(sc->dl.open);
	assert_int_equal(srvfix_log_count(f, "download complete"), 2);

	/* stopped half way: no chunk comes after the server has it */
	c->q.opt.chunks_per_packet = 1;
	assert_true(qwc_download(&c->q, "maps/end.bsp"));
	while (c->q.dl.received < 5)
		srvfix_step(f, true);
	assert_true(qwc_stringcmd(&c->q, "stopdownload"));
	srvfix_run(f, 0.3, true);
	assert_false(sc->dl.open);
	assert_int_equal(srvfix_log_count(f, "ended by the client after"), 1);
	before = s.count;
	srvfix_run(f, 0.5, true);
	assert_int_equal(s.count, before);
	assert_int_equal(c->q.dl.state, QWC_DL_RUNNING);
	assert_int_equal(f->sv->dl_queued, 0);
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
	cmocka_unit_test_teardown(test_the_ends_of_a_download, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_refusals, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_demo_downloads, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_stock_download_kept, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_download_across_a_map_change, srvfix_test_teardown),
};

QWD_TEST_GROUP(chunked, tests, srvfix_setup, srvfix_teardown)
