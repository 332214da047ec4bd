/*
 * test_download.c -- downloads read their file a chunk at a time, and a
 * client hammering "download" costs the server next to nothing while
 * others play.
 *
 * Design note
 *   The served files are sparse files of the size of a large map (15 MB)
 *   under the fixture's qw/maps/; sv->stats.download_read counts the bytes
 *   the server read from disk, so "read in bounded chunks" is a number:
 *   never more than a chunk per svc_download sent, and a whole download
 *   reads the file exactly once.  The players are qwc clients that must
 *   stay in the game throughout.
 */
#include "../harness.h"
#include "srvfix.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { BIG = 15 << 20, CHUNK = 768 };

static void sparse_file(struct srvfix *f, const char *rel, size_t size)
{
	char path[256];
	int fd;

	srvfix_write(f, rel, "");
	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	/* a marker at the end, so the last chunk is not all zeros */
	assert_int_equal(pwrite(fd, "end", 3, (off_t)size - 3), 3);
	close(fd);
}

/* queue `text` as often as the client's reliable message takes it, up to
 * max times; returns how many went in */
static int queue_many(struct srv_client *c, const char *text, int max)
{
	int n = 0;

	while (n < max && qwc_stringcmd(&c->q, text))
		n++;
	return n;
}

static void test_hammered_download_reads_chunks(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *p[3], *hammer;
	const struct client *hs;
	int sent = 0;

	srvfix_start(f, 8);
	/* the reading itself, without the command budgets (test_flood.c has
	 * those): a budget would refuse most of these downloads first */
	cvar_set(f->sv, "sv_dlrate", "0");
	cvar_set(f->sv, "sv_cmdrate", "0");
	sparse_file(f, "qw/maps/big.bsp", BIG);
	sparse_file(f, "qw/maps/big2.bsp", BIG);
	p[0] = srvfix_player(f, "one");
	p[1] = srvfix_player(f, "two");
	p[2] = srvfix_player(f, "three");
	hammer = srvfix_player(f, "hammer");
	hs = &f->sv->clients[hammer->q.playernum];

	/* hundreds of "download" of one file, as fast as the channel takes */
	for (int round = 0; round < 200 && sent < 400; round++) {
		sent += queue_many(hammer, "download maps/big.bsp", 400 - sent);
		srvfix_step(f, true);
	}
	srvfix_run(f, 0.5, true);
	assert_int_equal(sent, 400);
	/* one open, one chunk sent: the repeats read nothing */
	assert_true(srvfix_download(f, hs)->file.open);
	assert_int_equal(f->sv->stats.download_repeats, 399);
	assert_true(f->sv->stats.download_read <= CHUNK);
	assert_true(f->sv->stats.download_read > 0);

	/* two files in turn: each command opens one and sends its first
	 * chunk, never a whole file */
	sent = 0;
	for (int round = 0; round < 200 && sent < 100; round++) {
		sent += queue_many(hammer, sent % 2 ? "download maps/big.bsp"
						    : "download maps/big2.bsp", 1);
		srvfix_step(f, true);
	}
	srvfix_run(f, 0.5, true);
	assert_true(f->sv->stats.download_read <= (uint64_t)(sent + 1) * CHUNK);

	/* the players were not touched (the hammer itself may have been
	 * dropped: a first chunk per command fills its reliable channel) */
	for (int i = 0; i < 3; i++) {
		assert_int_equal(p[i]->q.state, QWC_ACTIVE);
		assert_int_equal(f->sv->clients[p[i]->q.playernum].state, CS_SPAWNED);
	}
	assert_int_equal(srvfix_log_count(f, "\"one\" dropped") +
			 srvfix_log_count(f, "\"two\" dropped") +
			 srvfix_log_count(f, "\"three\" dropped"), 0);
}

static void test_whole_download_reads_each_byte_once(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *c;
	const struct client *cs;
	const size_t size = 20 * CHUNK + 100;
	int nexts = 0;

	srvfix_start(f, 4);
	sparse_file(f, "qw/progs/thing.mdl", size);
	c = srvfix_player(f, "getter");
	cs = &f->sv->clients[c->q.playernum];
	assert_true(qwc_stringcmd(&c->q, "download progs/thing.mdl"));
	srvfix_run(f, 0.2, true);
	assert_true(srvfix_download(f, cs)->file.open);
	assert_int_equal(srvfix_download(f, cs)->file.size, size);
	/* "nextdl" until the server closes it: 21 more chunks, asked at a
	 * pace a stock client keeps (one after the last came) */
	for (int round = 0; round < 4000 && srvfix_download(f, cs)->file.open; round++) {
		if (round % 20 == 0 && qwc_stringcmd(&c->q, "nextdl"))
			nexts++;
		srvfix_step(f, true);
	}
	assert_false(srvfix_download(f, cs)->file.open);
	assert_int_equal(f->sv->stats.download_read, size);
	assert_true(nexts >= 20);
	assert_int_equal(srvfix_log_count(f, "download complete"), 1);
	assert_int_equal(c->q.state, QWC_ACTIVE);
}

static void test_download_path_checks_hold(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *c;
	static const char *const bad[] = {
		"download ../secret.cfg", "download /etc/passwd",
		"download maps/../../x", "download server.cfg",
		"download maps\\\\x.bsp", "download maps/none.bsp",
		"download maps/fifo.bsp",
	};
	char path[256];

	srvfix_start(f, 4);
	srvfix_write(f, "qw/maps/.keep", "");
	/* a FIFO named like a map: opening it must not block the frame */
	snprintf(path, sizeof(path), "%s/qw/maps/fifo.bsp", f->dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	c = srvfix_player(f, "prober");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(qwc_stringcmd(&c->q, bad[i]));
		srvfix_run(f, 0.05, true);
	}
	srvfix_run(f, 0.2, true);
	assert_false(srvfix_download(f, &f->sv->clients[c->q.playernum])->file.open);
	assert_int_equal(f->sv->stats.download_read, 0);
	assert_int_equal(srvfix_log_count(f, "refused") +
			 srvfix_log_count(f, "no such file"), 7);
	/* the map being played comes from memory: no read */
	assert_true(qwc_stringcmd(&c->q, "download maps/small.bsp"));
	srvfix_run(f, 0.2, true);
	assert_true(srvfix_download(f, &f->sv->clients[c->q.playernum])->file.open);
	assert_int_equal(f->sv->stats.download_read, 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_hammered_download_reads_chunks, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_whole_download_reads_each_byte_once, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_download_path_checks_hold, srvfix_test_teardown),
};

QWD_TEST_GROUP(download, tests, srvfix_setup, srvfix_teardown)
