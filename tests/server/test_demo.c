/*
 * test_demo.c -- MVD demos and QTV streams of an in-process server, read
 * back to their end with the project's MVD reader (src/client/mvd.c).
 *
 * Design note
 *   The players are qwc clients of the fixture that walk and fire (the
 *   walk turns now and then, the trigger is held every other second), so
 *   a demo holds moving players, missiles, sounds, stat changes.  Each
 *   test reads what the server wrote (the file under qw/demos/, or the
 *   bytes of a TCP stream) with mvd_read and asserts what a player of the
 *   demo would see: no fault of framing or layout, EndOfDemo at the end,
 *   one entity list a frame, every player in every frame, the players
 *   moving.  Console commands go through server_command with their output
 *   caught, so the words an operator reads are checked too.  The QTV
 *   client is a plain TCP socket speaking the handshake built by
 *   src/client/qtv.c; its port is one the system just gave out.
 */
#include "../harness.h"
#include "srvfix.h"

#include <qwd/client.h>
#include <qwd/mvd.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bsd/string.h>
#include <nettle/sha3.h>

enum { OUT = 16384, STREAM = 1 << 21 };

static char out_text[OUT];

/* a console line; its output in out_text */
static const char *run(struct srvfix *f, const char *line)
{
	FILE *out = fmemopen(out_text, sizeof(out_text), "w");

	assert_non_null(out);
	server_command(f->sv, line, out);
	fclose(out);
	return out_text;
}

/* the players walk, turning now and then, and fire every other second */
static void play(struct srvfix *f, double seconds)
{
	double end = server_clock() + seconds;

	while (server_clock() < end) {
		double t = server_clock();

		for (int i = 0; i < f->ncl; i++) {
			struct qwc *q;

			if (!f->cl[i])
				continue;
			q = &f->cl[i]->q;
			q->cmd.forwardmove = 400;
			q->cmd.angles[1] = (float)(((int)(t * 2) + i * 3) % 8) * 45.0f;
			q->cmd.buttons = ((int)t & 1) ? BUTTON_ATTACK : 0;
		}
		srvfix_step(f, true);
	}
}

/* the players stop walking and firing */
static void still(struct srvfix *f)
{
	for (int i = 0; i < f->ncl; i++)
		if (f->cl[i])
			memset(&f->cl[i]->q.cmd, 0, sizeof(f->cl[i]->q.cmd));
}

static char demo_path[512];

static const char *demo_file(struct srvfix *f, const char *name)
{
	snprintf(demo_path, sizeof(demo_path), "%s/qw/demos/%s", f->dir, name);
	return demo_path;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* the whole file through the reader; the reader is the caller's */
static void read_demo(const char *path, struct mvd_reader *r)
{
	size_t size, used;
	uint8_t *data = qwd_read_file(path, &size);

	if (!data)
		fail_msg("no demo %s", path);
	mvd_reader_init(r);
	used = mvd_read(r, data, size);
	free(data);
	if (r->fault)
		fail_msg("%s: %s: %s at %llu", path, mvd_fault_name(r->fault), r->fault_text,
			 (unsigned long long)r->fault_offset);
	assert_int_equal(used, size);	/* no record cut short */
}

static struct mvd_reader *new_reader(void)
{
	struct mvd_reader *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	return r;
}

/* ---- a recorded fight ------------------------------------------------- */

static void test_demo_of_a_fight(void **state)
{
	struct srvfix *f = *state;
	struct mvd_reader *r = new_reader();
	static const char *const names[] = {"alice", "bob", "carol", "dave"};

	srvfix_start(f, 8);
	for (int i = 0; i < 4; i++)
		srvfix_player(f, names[i]);
	double t0, t1;

	assert_non_null(strstr(run(f, "record fight"), "recording to demos/fight.mvd"));
	t0 = f->sv->time;
	play(f, 3.0);
	t1 = f->sv->time;
	assert_non_null(strstr(run(f, "stop"), "stopped fight.mvd"));
	assert_int_equal(srvfix_log_count(f, "demo fight.mvd written"), 1);

	read_demo(demo_file(f, "fight.mvd"), r);
	assert_true(r->ended);
	assert_string_equal(r->end_text, "EndOfDemo");
	assert_int_equal(r->serverdatas, 1);
	assert_int_equal(r->mvd_ext1, MVD_PEXT1_HIDDEN_MESSAGES);
	assert_string_equal(r->gamedir, "qw");
	assert_string_equal(r->mapmodel, "maps/small.bsp");
	assert_int_equal(r->models, f->sv->num_models - 1);
	assert_int_equal(r->sounds, f->sv->num_sounds - 1);
	/* frames at sv_demofps while the players send 77 packets a second */
	assert_true(r->frames >= 60);
	/* one entity list each, the first full, the others deltas */
	assert_int_equal(r->packetentities, r->frames);
	assert_int_equal(r->deltas, r->frames - 1);
	/* every player in every frame */
	assert_int_equal(r->max_players_frame, 4);
	assert_int_equal(r->frames_with_players, (int)r->frames);
	assert_int_equal(r->playerinfos, 4 * r->frames);
	for (int i = 0; i < 4; i++) {
		const struct client *c = &f->sv->clients[i];
		const struct mvd_player *p = &r->players[i];

		assert_true(p->present);
		assert_string_equal(p->name, c->name);
		assert_int_equal(p->userid, c->userid);
		/* walking: the demo shows them somewhere else at the end */
		assert_true(p->origin[0] != p->first_origin[0] ||
			    p->origin[1] != p->first_origin[1]);
		assert_int_equal(p->modelindex, f->sv->game->m_player);
		assert_true(p->stats[STAT_HEALTH] > 0 || p->flags & MVD_DF_DEAD);
	}
	/* the fight: shots heard, ammo spent, spikes or shells seen */
	assert_true(r->sounds_played > 0);
	assert_true(r->stats_updates > 4 * 10);
	assert_true(r->max_entities_frame > 0);
	/* the demo clock follows the level's: the demo spans the game time
	 * that passed while it was recorded (to a demo frame or two: 13 ms
	 * each at sv_demofps 77), however long that took on this machine */
	if (fabs((r->time - r->start_time) - (t1 - t0)) > 0.1)
		fail_msg("demo spans %.3f s, the level ran %.3f s",
			 r->time - r->start_time, t1 - t0);
	free(r);
}

/* ---- the commands ----------------------------------------------------- */

static void test_demo_commands(void **state)
{
	struct srvfix *f = *state;
	char outside[512];

	srvfix_start(f, 4);
	srvfix_player(f, "alice");
	srvfix_player(f, "bob");
	run(f, "rmdemo *");	/* the folder is the group's: empty it */
	assert_string_equal(run(f, "stop"), "Not recording a demo.\n");
	assert_string_equal(run(f, "record"), "record <demoname>\n");

	/* names are cleaned as MVDSV cleans them and stay in the folder */
	run(f, "record \"My Demo!\"");
	run(f, "stop");
	assert_true(exists(demo_file(f, "my_demo!.mvd")));
	run(f, "record ../escape");
	assert_non_null(strstr(run(f, "record other"), "already recording"));
	run(f, "sv_demostop");
	snprintf(outside, sizeof(outside), "%s/qw/escape.mvd", f->dir);
	assert_false(exists(outside));
	assert_true(exists(demo_file(f, "_.._escape.mvd")));

	/* cancel removes the file */
	run(f, "record gone");
	assert_true(exists(demo_file(f, "gone.mvd")));
	assert_non_null(strstr(run(f, "cancel"), "cancelled and removed gone.mvd"));
	assert_false(exists(demo_file(f, "gone.mvd")));

	/* easyrecord names a duel after its players, then numbers it */
	run(f, "easyrecord");
	srvfix_run(f, 0.2, true);
	run(f, "stop");
	run(f, "sv_demoeasyrecord");
	run(f, "stop");
	assert_true(exists(demo_file(f, "duel_alice_vs_bob_small.mvd")));
	assert_true(exists(demo_file(f, "duel_alice_vs_bob_small_01.mvd")));

	/* demolist: every demo, numbered, the one being recorded marked */
	run(f, "record live");
	run(f, "demolist");
	assert_non_null(strstr(out_text, "my_demo!.mvd"));
	assert_non_null(strstr(out_text, "duel_alice_vs_bob_small_01.mvd"));
	assert_non_null(strstr(out_text, "*   5: live.mvd"));
	assert_non_null(strstr(out_text, "directory size:"));
	assert_non_null(strstr(out_text, "space available:"));
	run(f, "sv_demolist duel _01");
	assert_null(strstr(out_text, "my_demo!"));
	assert_non_null(strstr(out_text, "duel_alice_vs_bob_small_01.mvd"));

	/* rmdemo: one name (the live one is stopped first), then a token */
	run(f, "rmdemo live");
	assert_non_null(strstr(out_text, "demo live.mvd successfully removed"));
	assert_null(sv_mvd_file(f->sv, NULL));
	assert_false(exists(demo_file(f, "live.mvd")));
	assert_non_null(strstr(run(f, "rmdemo *duel"), "2 demos removed"));
	assert_false(exists(demo_file(f, "duel_alice_vs_bob_small.mvd")));
	assert_string_equal(run(f, "rmdemo *duel"), "no match found\n");
	assert_non_null(strstr(run(f, "rmdemo ../qw/x"), "unable to remove"));

	/* the folder must stay inside the game folder */
	run(f, "sv_demoDir ../elsewhere");
	assert_non_null(strstr(run(f, "record x"), "a folder inside the game folder"));
	assert_null(sv_mvd_file(f->sv, NULL));
}

/* ---- caps ------------------------------------------------------------- */

static int demos_in(struct srvfix *f)
{
	int n = 0;

	run(f, "demolist");
	for (const char *p = out_text; (p = strstr(p, ".mvd (")) != NULL; p++)
		n++;
	return n;
}

static void test_demo_caps(void **state)
{
	struct srvfix *f = *state;
	struct mvd_reader *r = new_reader();

	srvfix_start(f, 4);
	srvfix_player(f, "alice");
	srvfix_player(f, "bob");
	srvfix_player(f, "carol");
	srvfix_player(f, "dave");
	run(f, "rmdemo *");	/* the folder is the group's: empty it */

	/* a count cap: refused, or the oldest cleared */
	run(f, "sv_demoMaxDirCount 2");
	run(f, "record one");
	run(f, "stop");
	run(f, "record two");
	run(f, "stop");
	assert_non_null(strstr(run(f, "record three"), "Too many demos, increase sv_demoMaxDirCount"));
	assert_null(sv_mvd_file(f->sv, NULL));
	run(f, "sv_demoClearOld 1");
	assert_non_null(strstr(run(f, "record three"), "Clearing 1 old demos"));
	run(f, "stop");
	assert_false(exists(demo_file(f, "one.mvd")));
	assert_true(exists(demo_file(f, "two.mvd")));
	assert_int_equal(demos_in(f), 2);

	/* a size cap on the folder */
	run(f, "sv_demoMaxDirCount 0");
	run(f, "sv_demoClearOld 0");
	run(f, "sv_demoMaxDirSize 1");
	assert_non_null(strstr(run(f, "record four"),
			       "Insufficient directory space, increase sv_demoMaxDirSize"));
	run(f, "sv_demoMaxDirSize 0");

	/* a size cap on one demo: it ends itself, whole */
	run(f, "sv_demoMaxSize 10");
	/* the player is told; counted whatever else is printed after it (the
	 * last print alone was read once, and a loaded machine lost it) */
	f->print_mark = "Max demo size exceeded";
	f->cl[0]->marked_prints = 0;
	run(f, "record big");
	for (int i = 0; i < 100 && sv_mvd_file(f->sv, NULL); i++)
		play(f, 0.1);
	assert_null(sv_mvd_file(f->sv, NULL));
	assert_int_equal(srvfix_log_count(f, "demo big.mvd written"), 1);
	still(f);
	for (int i = 0; i < 30 && f->cl[0]->marked_prints == 0; i++)
		srvfix_run(f, 0.1, true);
	assert_int_equal(f->cl[0]->marked_prints, 1);
	read_demo(demo_file(f, "big.mvd"), r);
	assert_true(r->ended);
	/* it stopped at the first frame past the cap */
	assert_true(r->offset > 10 * 1024 && r->offset < 12 * 1024);
	free(r);
}

/* ---- the level ends, the demo ends ------------------------------------ */

static void test_demo_ends_with_the_level(void **state)
{
	struct srvfix *f = *state;
	struct mvd_reader *r = new_reader();
	struct srv_client *c;

	srvfix_start(f, 4);
	c = srvfix_player(f, "alice");
	run(f, "record level");
	play(f, 1.0);
	run(f, "map small");
	assert_null(sv_mvd_file(f->sv, NULL));
	assert_int_equal(srvfix_log_count(f, "demo level.mvd written"), 1);
	read_demo(demo_file(f, "level.mvd"), r);
	assert_true(r->ended);
	assert_true(r->frames > 10);
	/* the player comes along to the new level, unrecorded */
	assert_true(srvfix_until(f, c, QWC_ACTIVE, 5.0));
	free(r);
}

/* ---- automatic recording ---------------------------------------------- */

static void test_demo_autorecord(void **state)
{
	struct srvfix *f = *state;
	struct mvd_reader *r = new_reader();
	struct srv_client *c;

	srvfix_start(f, 4);
	run(f, "sv_demoAutoRecord 1");
	srvfix_run(f, 1.5, true);
	assert_null(sv_mvd_file(f->sv, NULL));	/* nobody plays */
	c = srvfix_player(f, "alice");
	srvfix_run(f, 1.5, true);
	assert_non_null(sv_mvd_file(f->sv, NULL));
	assert_string_equal(sv_mvd_file(f->sv, NULL), "ffa_small(1).mvd");
	assert_non_null(strstr(run(f, "demostatus"), "(sv_demoAutoRecord)"));
	play(f, 1.0);
	qwc_disconnect(&c->q);
	srvfix_run(f, 2.0, true);
	assert_null(sv_mvd_file(f->sv, NULL));
	assert_int_equal(srvfix_log_count(f, "automatic recording stopped"), 1);
	read_demo(demo_file(f, "ffa_small(1).mvd"), r);
	assert_true(r->ended);
	assert_true(r->players[0].present || r->players[0].playerinfos > 0);
	free(r);
}

/* ---- QTV -------------------------------------------------------------- */

static int free_tcp_port(void)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	port = ntohs(sa.sin_port);
	close(fd);
	return port;
}

static void qtv_on(struct srvfix *f, int *port)
{
	char line[64];

	*port = free_tcp_port();
	snprintf(line, sizeof(line), "qtv_streamport %d", *port);
	run(f, line);
	srvfix_step(f, true);
	assert_int_equal(srvfix_log_count(f, "QTV: listening on TCP port"), 1);
}

/* a viewer: its socket and what it received */
struct viewer {
	int fd;
	uint8_t *buf;
	size_t len;
	bool closed;
};

static void viewer_open(struct viewer *v, int port, int rcvbuf)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};

	memset(v, 0, sizeof(*v));
	v->buf = malloc(STREAM);
	assert_non_null(v->buf);
	v->fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(v->fd >= 0);
	if (rcvbuf)
		setsockopt(v->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	assert_int_equal(connect(v->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(fcntl(v->fd, F_SETFL, O_NONBLOCK), 0);
}

static void viewer_close(struct viewer *v)
{
	if (v->fd >= 0)
		close(v->fd);
	free(v->buf);
	v->fd = -1;
	v->buf = NULL;
}

static void viewer_send(struct viewer *v, const struct qtv_request *rq)
{
	char text[1024];
	size_t n = qtv_build_request(rq, text, sizeof(text));

	assert_true(n > 0);
	assert_int_equal(send(v->fd, text, n, MSG_NOSIGNAL), (ssize_t)n);
}

static void viewer_take(struct viewer *v)
{
	for (;;) {
		ssize_t n;

		if (v->len == STREAM)
			fail_msg("viewer buffer full");
		n = recv(v->fd, v->buf + v->len, STREAM - v->len, 0);
		if (n > 0) {
			v->len += (size_t)n;
			continue;
		}
		if (n == 0)
			v->closed = true;
		return;
	}
}

/* server frames (the players playing) until the answer's header is in */
static void viewer_answer(struct srvfix *f, struct viewer *v, struct qtv_reply *rp)
{
	double end = server_clock() + 3.0;

	do {
		play(f, 0.01);
		viewer_take(v);
		qtv_parse_reply(v->buf, v->len, rp);
	} while (rp->answer == QTV_ANSWER_PARTIAL && !v->closed && server_clock() < end);
	if (rp->header_len) {
		memmove(v->buf, v->buf + rp->header_len, v->len - rp->header_len);
		v->len -= rp->header_len;
	}
}

/* the server's whole answer is words, then it closes the connection */
static void refused(struct srvfix *f, int port, const struct qtv_request *rq,
		    const char *words)
{
	struct viewer v;
	double end = server_clock() + 3.0;

	viewer_open(&v, port, 0);
	viewer_send(&v, rq);
	while (!v.closed && server_clock() < end) {
		play(f, 0.01);
		viewer_take(&v);
	}
	assert_true(v.closed);
	v.buf[v.len] = '\0';
	assert_string_equal((char *)v.buf, words);
	viewer_close(&v);
}

static void test_qtv_stream_to_its_end(void **state)
{
	struct srvfix *f = *state;
	struct mvd_reader *r = new_reader(), *file = new_reader();
	struct qtv_request rq = {.version = 1, .userinfo = "\\name\\viewer"};
	struct qtv_reply rp;
	struct viewer v;
	int port;

	srvfix_start(f, 4);
	srvfix_player(f, "alice");
	srvfix_player(f, "bob");
	qtv_on(f, &port);
	/* the file started first: the stream joins a demo in progress */
	run(f, "record both");
	play(f, 0.5);
	viewer_open(&v, port, 0);
	viewer_send(&v, &rq);
	viewer_answer(f, &v, &rp);
	assert_int_equal(rp.answer, QTV_ANSWER_BEGIN);
	assert_int_equal(sv_mvd_streams(f->sv), 1);
	assert_non_null(strstr(run(f, "qtv_list"), "127.0.0.1"));
	play(f, 1.5);
	run(f, "stop");
	/* a new level: the stream goes on with its gamestate */
	run(f, "map small");
	play(f, 1.5);
	viewer_take(&v);
	server_shutdown(f->sv);
	free(f->sv);
	f->sv = NULL;
	viewer_take(&v);
	assert_true(v.closed);

	mvd_reader_init(r);
	assert_int_equal(mvd_read(r, v.buf, v.len), v.len);
	if (r->fault)
		fail_msg("stream: %s: %s", mvd_fault_name(r->fault), r->fault_text);
	assert_true(r->ended);
	assert_string_equal(r->end_text, "EndOfDemo");
	assert_int_equal(r->serverdatas, 2);
	assert_true(r->frames > 40);
	assert_int_equal(r->packetentities, r->frames);
	assert_int_equal(r->max_players_frame, 2);
	assert_string_equal(r->players[0].name, "alice");
	assert_string_equal(r->players[1].name, "bob");
	/* the file went on whole while the stream joined it */
	read_demo(demo_file(f, "both.mvd"), file);
	assert_true(file->ended);
	assert_int_equal(file->packetentities, file->frames);
	viewer_close(&v);
	free(r);
	free(file);
}

static void md4_words(const char *text, char *out, size_t size)
{
	uint8_t d[16];
	uint32_t w[4];

	md4_digest(text, strlen(text), d);
	for (int i = 0; i < 4; i++)
		w[i] = (uint32_t)d[4 * i] | (uint32_t)d[4 * i + 1] << 8 |
		       (uint32_t)d[4 * i + 2] << 16 | (uint32_t)d[4 * i + 3] << 24;
	snprintf(out, size, "%X%X%X%X", w[0], w[1], w[2], w[3]);
}

static void sha3_hex(const char *text, char *out)
{
	struct sha3_512_ctx c;
	uint8_t d[SHA3_512_DIGEST_SIZE];
	static const char hex[] = "0123456789abcdef";

	sha3_512_init(&c);
	sha3_512_update(&c, strlen(text), (const uint8_t *)text);
	sha3_512_digest(&c, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[2 * sizeof(d)] = '\0';
}

/* a challenge method: the server asks, the viewer answers with the
 * digest computed here (ezQuake's formulas), BEGIN */
static void challenge(struct srvfix *f, int port, const char *method)
{
	struct qtv_request rq = {.version = 1, .auth = "SHA3_512 MD4 CCITT PLAIN NONE"};
	struct qtv_reply rp;
	struct viewer v;
	char both[512], digest[160];

	/* the best of what the viewer offers and the server knows */
	if (strcmp(method, "MD4") == 0)
		rq.auth = "MD4 CCITT PLAIN";
	viewer_open(&v, port, 0);
	viewer_send(&v, &rq);
	viewer_answer(f, &v, &rp);
	assert_int_equal(rp.answer, QTV_ANSWER_AUTH);
	assert_string_equal(rp.auth, method);
	/* ezQuake wants at least 63 characters for SHA3_512 */
	assert_int_equal(strlen(rp.challenge), 63);
	snprintf(both, sizeof(both), "%s%s", rp.challenge, "pw");
	if (!strcmp(method, "MD4"))
		md4_words(both, digest, sizeof(digest));
	else
		sha3_hex(both, digest);
	rq.auth = method;
	rq.password = digest;
	viewer_send(&v, &rq);
	viewer_answer(f, &v, &rp);
	assert_int_equal(rp.answer, QTV_ANSWER_BEGIN);
	assert_int_equal(sv_mvd_streams(f->sv), 1);
	viewer_close(&v);
	srvfix_run(f, 0.2, true);	/* the server sees it go */
	assert_int_equal(sv_mvd_streams(f->sv), 0);

	/* a wrong digest is a bad password */
	rq.auth = method;
	rq.password = NULL;
	viewer_open(&v, port, 0);
	viewer_send(&v, &rq);
	viewer_answer(f, &v, &rp);
	assert_int_equal(rp.answer, QTV_ANSWER_AUTH);
	rq.password = "0123456789abcdef";
	viewer_send(&v, &rq);
	viewer_answer(f, &v, &rp);
	assert_int_equal(rp.answer, QTV_ANSWER_ERROR);
	assert_string_equal(rp.text, "Bad password.");
	viewer_close(&v);
}

static void test_qtv_handshake_and_refusals(void **state)
{
	struct srvfix *f = *state;
	struct qtv_request rq = {.version = 1};
	struct qtv_reply rp;
	struct viewer keep, v;
	int port;

	srvfix_start(f, 4);
	srvfix_player(f, "alice");
	qtv_on(f, &port);
	run(f, "qtv_password pw");

	refused(f, port, &rq, QTV_ERR_COMMON_AUTH);
	rq.auth = "PLAIN";
	refused(f, port, &rq, QTV_ERR_NEED_PASSWORD);
	rq.password = "wrong";
	refused(f, port, &rq, QTV_ERR_BAD_PASSWORD);
	rq.password = "pw";
	rq.version = 0;
	refused(f, port, &rq, QTV_ERR_VERSION);
	rq.version = 1;

	/* the right password: a stream; a second is over qtv_maxstreams 1 */
	viewer_open(&keep, port, 0);
	viewer_send(&keep, &rq);
	viewer_answer(f, &keep, &rp);
	assert_int_equal(rp.answer, QTV_ANSWER_BEGIN);
	refused(f, port, &rq, QTV_ERR_INIT_STREAM);
	assert_non_null(strstr(run(f, "qtv_close all"), "1 QTV stream will be dropped"));
	srvfix_run(f, 0.2, true);
	assert_int_equal(sv_mvd_streams(f->sv), 0);
	viewer_close(&keep);

	/* not a QTV client: closed without a word */
	viewer_open(&v, port, 0);
	assert_int_equal(send(v.fd, "GET / HTTP/1.0\n\n", 16, MSG_NOSIGNAL), 16);
	srvfix_run(f, 0.2, true);
	viewer_take(&v);
	assert_true(v.closed);
	assert_int_equal(v.len, 0);
	viewer_close(&v);

	/* the challenge methods ezQuake offers first */
	challenge(f, port, "MD4");
	challenge(f, port, "SHA3_512");
}

/* a viewer that never reads: dropped once its bounded backlog is full,
 * while the game goes on */
static void test_qtv_slow_viewer_dropped(void **state)
{
	struct srvfix *f = *state;
	struct qtv_request rq = {.version = 1};
	struct qtv_reply rp;
	struct srv_client *c;
	struct viewer v;
	uint64_t replies;
	int port;

	srvfix_start(f, 8);
	c = srvfix_player(f, "alice");
	for (int i = 0; i < 5; i++)
		srvfix_player(f, "crowd");
	qtv_on(f, &port);
	run(f, "qtv_streambuffer 16");
	viewer_open(&v, port, 1024);
	viewer_send(&v, &rq);
	viewer_answer(f, &v, &rp);
	assert_int_equal(rp.answer, QTV_ANSWER_BEGIN);
	replies = f->sv->clients[c->q.playernum].replies;
	for (int i = 0; i < 300 && sv_mvd_streams(f->sv); i++)
		play(f, 0.1);
	assert_int_equal(sv_mvd_streams(f->sv), 0);
	assert_int_equal(srvfix_log_count(f, "dropped: too slow: more than qtv_streambuffer waiting"), 1);
	assert_int_equal(c->q.state, QWC_ACTIVE);
	assert_true(f->sv->clients[c->q.playernum].replies > replies + 100);
	viewer_close(&v);
}

/* and one that stops taking anything for qtv_streamtimeout seconds */
static void test_qtv_stalled_viewer_dropped(void **state)
{
	struct srvfix *f = *state;
	struct qtv_request rq = {.version = 1};
	struct qtv_reply rp;
	struct viewer v;
	int port;

	srvfix_start(f, 8);
	for (int i = 0; i < 6; i++)
		srvfix_player(f, "crowd");
	qtv_on(f, &port);
	run(f, "qtv_streambuffer 64");
	run(f, "qtv_streamtimeout 1");
	viewer_open(&v, port, 1024);
	viewer_send(&v, &rq);
	viewer_answer(f, &v, &rp);
	assert_int_equal(rp.answer, QTV_ANSWER_BEGIN);
	for (int i = 0; i < 300 && sv_mvd_streams(f->sv); i++)
		play(f, 0.1);
	assert_int_equal(sv_mvd_streams(f->sv), 0);
	assert_int_equal(srvfix_log_count(f, "dropped: took nothing for qtv_streamtimeout"), 1);
	viewer_close(&v);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_demo_of_a_fight, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_demo_commands, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_demo_caps, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_demo_ends_with_the_level, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_demo_autorecord, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_qtv_stream_to_its_end, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_qtv_handshake_and_refusals, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_qtv_slow_viewer_dropped, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_qtv_stalled_viewer_dropped, srvfix_test_teardown),
};

QWD_TEST_GROUP(demo, tests, srvfix_setup, srvfix_teardown)
