/*
 * test_pause.c -- the pause (src/server/pause.c) on an in-process server
 * with the fixture's protocol-28 clients.
 *
 * Design note
 *   What a player of a paused game sees is asserted on both sides: the
 *   svc_setpause the clients parse, the positions their replies carry,
 *   the prints they get; and on the server, the level's clock, the game's
 *   time, the item waiting to respawn, the commands the game ran.
 *   Long spans (an item's 20 s respawn, a one-minute timelimit) are not
 *   waited out: clock_jump() makes the server's next frame see that much
 *   more time pass, as if it had slept through it (the clock reading the
 *   frame counts from moves back), which is all a frame ever knows of
 *   time; advance() makes a span of such frames, 0.1 s each.  The server
 *   runs the same code for them as for real frames; the short spans
 *   (walking, chat) are stepped for real.
 */
#include "../harness.h"
#include "srvfix.h"

#include <qwd/client.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static char out_text[4096];

static const char *run(struct srvfix *f, const char *line)
{
	srvfix_command(f, line, out_text, sizeof(out_text));
	return out_text;
}

/* the next frame sees `seconds` more pass than really did */
static void clock_jump(struct srvfix *f, double seconds)
{
	f->sv->realtime -= seconds;
	f->sv->time_clock -= seconds;
	srvfix_step(f, false);
}

/* the game runs `seconds` on in frames of 0.1 s (a think fires when due
 * within the coming frame, as in QuakeWorld: one long frame would fire
 * them early) */
static void advance(struct srvfix *f, double seconds)
{
	for (double done = 0; done < seconds; done += 0.1)
		clock_jump(f, 0.1);
}

static float dist(const vec3_t a, const vec3_t b)
{
	vec3_t d;

	vec_sub(a, b, d);
	return sqrtf(vec_dot(d, d));
}

static struct game_entity *player_ent(struct srvfix *f, struct srv_client *c)
{
	return &f->sv->game->ents[game_player_entity(f->sv->game, c->q.playernum)];
}

/* the first entity of classname that is in use */
static struct game_entity *find_ent(struct srvfix *f, const char *classname)
{
	struct game *g = f->sv->game;

	for (int i = 0; i < g->num_entities; i++)
		if (g->ents[i].inuse && g->ents[i].classname &&
		    !strcmp(g->ents[i].classname, classname))
			return &g->ents[i];
	fail_msg("no %s on the map", classname);
	return NULL;
}

static bool all_paused(struct srvfix *f, bool paused)
{
	for (int i = 0; i < f->ncl; i++)
		if (f->cl[i] && f->cl[i]->q.state == QWC_ACTIVE &&
		    f->cl[i]->q.paused != paused)
			return false;
	return true;
}

/* step (clients sending) until every client in the game has seen the
 * pause state, at most 2 s */
static void until_clients_paused(struct srvfix *f, bool paused)
{
	double end = server_clock() + 2.0;

	while (!all_paused(f, paused) && server_clock() < end)
		srvfix_step(f, true);
	assert_true(all_paused(f, paused));
}

static void walk(struct srv_client *c, float forward)
{
	c->q.cmd.angles[1] = c->q.setangle[1];
	c->q.cmd.forwardmove = forward;
}

/* ---- the world stands still and resumes where it stopped --------------- */

static void test_pause_stops_the_world(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *a, *b;
	struct game *g;
	struct game_entity *armor, *pa;
	double respawn_at, left, t_paused, g_paused;
	vec3_t before, at_pause;
	uint64_t cmds;
	int frags;

	srvfix_start(f, 8);
	run(f, "k_matchless 1");	/* the engine's pause, no match layer */
	run(f, "timelimit 1");	/* the level ends one minute of game in */
	a = srvfix_player(f, "alice");
	b = srvfix_player(f, "bob");
	g = f->sv->game;
	pa = player_ent(f, a);

	/* alice takes the green armour: it is back 20 s of game later */
	srvfix_run(f, 0.3, true);
	armor = find_ent(f, "item_armor1");
	assert_non_null(armor->touch);
	armor->touch(g, armor, pa);
	assert_int_equal(armor->modelindex, 0);
	respawn_at = armor->nextthink;
	assert_true(respawn_at > g->time + 19);

	/* she walks; then the console pauses the game */
	vec_copy(pa->obj->origin, before);
	walk(a, 400);
	srvfix_run(f, 0.3, true);
	assert_non_null(strstr(run(f, "pause"), "game paused"));
	assert_true(f->sv->paused);
	assert_string_equal(cvar_get(f->sv, "sv_paused")->string, "1");
	assert_true(game_paused(g));
	t_paused = f->sv->time;
	g_paused = g->time;
	vec_copy(pa->obj->origin, at_pause);
	assert_true(dist(before, at_pause) > 1.0f);	/* she was moving */
	until_clients_paused(f, true);
	assert_int_equal(a->q.setpauses, 1);
	assert_int_equal(b->q.setpauses, 1);
	assert_non_null(strstr(b->q.last_print, "console paused the game"));
	assert_non_null(strstr(run(f, "pause 1"), "already paused"));

	/* she keeps pressing forward: no move runs, the clock stands */
	cmds = g->stats.commands;
	srvfix_run(f, 0.5, true);
	assert_true(g->stats.commands == cmds);
	assert_true(f->sv->time == t_paused);
	assert_true(g->time == g_paused);
	assert_true(dist(pa->obj->origin, at_pause) == 0.0f);
	assert_true(dist(a->q.self_origin, at_pause) < 0.5f);

	/* chat, pings and replies still flow; a suicide is refused (KTX) */
	f->print_mark = "PAUSECHAT";
	assert_true(qwc_stringcmd(&b->q, "say PAUSECHAT"));
	b->q.players[0].ping = -1;
	assert_true(qwc_stringcmd(&b->q, "pings"));
	frags = f->sv->clients[b->q.playernum].frags;
	assert_true(qwc_stringcmd(&b->q, "kill"));
	srvfix_run(f, 0.5, true);
	assert_int_equal(a->marked_prints, 1);
	assert_true(b->q.players[0].ping >= 0);
	assert_int_equal(f->sv->clients[b->q.playernum].frags, frags);
	assert_true(b->q.stat[STAT_HEALTH] > 0);

	/* longer than the armour's respawn and the whole timelimit: nothing */
	clock_jump(f, 70.0);
	srvfix_run(f, 0.2, true);
	assert_true(f->sv->time == t_paused);
	assert_int_equal(armor->modelindex, 0);
	assert_true(armor->nextthink == respawn_at);
	assert_false(g->intermission);

	/* resumed: the armour's wait goes on from where it stood */
	assert_non_null(strstr(run(f, "pause"), "game resumed"));
	assert_false(f->sv->paused);
	assert_string_equal(cvar_get(f->sv, "sv_paused")->string, "0");
	until_clients_paused(f, false);
	assert_int_equal(a->q.setpauses, 2);
	srvfix_run(f, 0.3, true);
	/* the walk goes on from the spot it stopped at */
	assert_true(dist(pa->obj->origin, at_pause) > 1.0f);
	walk(a, 0);
	left = respawn_at - f->sv->time;
	assert_true(left > 15.0 && left < 20.0);
	advance(f, left - 1.0);
	assert_int_equal(armor->modelindex, 0);
	advance(f, 2.0);
	assert_int_equal(armor->modelindex, armor->model_saved);
	/* and the timelimit counts the game's time only */
	assert_false(g->intermission);
	advance(f, 61.0 - f->sv->time);
	assert_true(g->intermission);
}

/* ---- a client's pause, as pausable allows ----------------------------- */

static void test_pause_from_a_client(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *a, *b, *spec, *late;
	struct client *ca;
	uint64_t cmds;
	vec3_t at;

	srvfix_start(f, 8);
	a = srvfix_player(f, "alice");
	b = srvfix_player(f, "bob");
	spec = srvfix_client(f, NULL, "watcher", false, "\\spectator\\1");
	srvfix_connect(spec);
	assert_true(srvfix_until(f, spec, QWC_ACTIVE, 5.0));
	ca = &f->sv->clients[a->q.playernum];

	run(f, "k_matchless 1");	/* MVDSV's pause, not KTX's */
	/* pausable 0, MVDSV's default: refused */
	assert_string_equal(cvar_get(f->sv, "pausable")->string, "0");
	assert_true(qwc_stringcmd(&a->q, "pause"));
	srvfix_run(f, 0.3, true);
	assert_false(f->sv->paused);
	assert_string_equal(a->q.last_print, "Pause not allowed.\n");
	assert_int_equal(b->q.setpauses, 0);

	run(f, "k_matchless 1");
	run(f, "pausable 1");
	assert_true(qwc_stringcmd(&spec->q, "pause"));
	srvfix_run(f, 0.3, true);
	assert_false(f->sv->paused);
	assert_string_equal(spec->q.last_print, "Spectators can not pause.\n");

	walk(a, 400);
	srvfix_run(f, 0.2, true);
	assert_true(qwc_stringcmd(&a->q, "pause"));
	srvfix_run(f, 0.1, true);
	assert_true(f->sv->paused);
	until_clients_paused(f, true);
	assert_true(spec->q.paused);
	assert_string_equal(b->q.last_print, "alice paused the game\n");

	/* her moves are read, acknowledged and not run; the speed check's
	 * clock will not count the pause */
	cmds = f->sv->game->stats.commands;
	srvfix_run(f, 1.0, true);
	assert_true(f->sv->game->stats.commands == cmds);
	assert_true(ca->requests > 0);

	/* somebody entering the game meanwhile is told */
	late = srvfix_player(f, "late");
	srvfix_run(f, 0.2, true);
	assert_true(late->q.paused);
	assert_string_equal(late->q.last_print, "Server is paused.\n");

	assert_true(qwc_stringcmd(&b->q, "pause"));
	srvfix_run(f, 0.1, true);
	assert_false(f->sv->paused);
	/* the second since the last move before the pause is not banked */
	assert_true(f->sv->realtime - ca->last_cmd_time < 0.5);
	until_clients_paused(f, false);
	assert_string_equal(a->q.last_print, "bob unpaused the game\n");
	srvfix_run(f, 0.2, true);
	assert_true(f->sv->game->stats.commands > cmds);
	walk(a, 0);
	/* the one who entered during the pause is not held back by it: it
	 * walks at once */
	vec_copy(player_ent(f, late)->obj->origin, at);
	walk(late, 400);
	srvfix_run(f, 0.3, true);
	assert_true(dist(player_ent(f, late)->obj->origin, at) > 32.0f);
	walk(late, 0);
}

/* ---- the game's call (the match layer's, KTX's trap_setpause) --------- */

static void test_pause_from_the_game(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *a;
	struct game *g;
	double t;

	srvfix_start(f, 8);
	a = srvfix_player(f, "alice");
	g = f->sv->game;
	f->print_mark = "paused the game";
	assert_false(game_paused(g));
	game_set_pause(g, true);
	assert_true(f->sv->paused);
	assert_true(game_paused(g));
	t = f->sv->time;
	until_clients_paused(f, true);
	/* the same again changes nothing, and the server says nothing: the
	 * game prints its own words */
	game_set_pause(g, true);
	srvfix_run(f, 0.3, true);
	assert_int_equal(a->q.setpauses, 1);
	assert_int_equal(a->marked_prints, 0);
	assert_true(f->sv->time == t);
	game_set_pause(g, false);
	assert_false(f->sv->paused);
	assert_false(game_paused(g));
	until_clients_paused(f, false);
	assert_int_equal(a->q.setpauses, 2);
	srvfix_run(f, 0.2, true);
	assert_true(f->sv->time > t);
}

/* ---- the parallel EXECUTE (qwd -threads): moves queued, calls deferred - */

static void test_pause_with_threads(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *c[3];
	struct game *g;
	struct game_defer *q;
	struct game_services rec;
	uint32_t count[2], order[4];
	uint64_t cmds;

	f->threads_auto = true;
	f->threads_max = 2;
	srvfix_start(f, 8);
	assert_true(sv_exec_active(f->sv));
	for (int i = 0; i < 3; i++) {
		c[i] = srvfix_player(f, "walker");
		walk(c[i], 300);
	}
	g = f->sv->game;
	run(f, "k_matchless 1");
	run(f, "pausable 1");
	srvfix_run(f, 0.3, true);
	assert_true(qwc_stringcmd(&c[1]->q, "pause"));
	srvfix_run(f, 0.2, true);
	assert_true(f->sv->paused);
	cmds = g->stats.commands;
	srvfix_run(f, 0.5, true);
	assert_true(g->stats.commands == cmds);
	assert_int_equal(f->sv->exec.num, 0);	/* nothing queued either */

	/* a move on a worker that asks to resume: recorded, made at the
	 * replay, in the moves' order */
	q = game_defer_create(4, 64);
	assert_non_null(q);
	rec = game_defer_services(&g->svc);
	game_defer_bind(q, 0, false);
	rec.set_pause(rec.ctx, false);
	game_defer_bind(NULL, 0, false);
	assert_true(f->sv->paused);
	assert_int_equal(game_defer_replay(&g->svc, &q, 1, 1, count, order, 4), 1);
	assert_false(f->sv->paused);
	game_defer_destroy(q);
	srvfix_run(f, 0.3, true);
	assert_true(g->stats.commands > cmds);
	for (int i = 0; i < 3; i++)
		walk(c[i], 0);
}

/* ---- the last player gone, a new level -------------------------------- */

static void test_pause_released(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *a;

	srvfix_start(f, 8);
	a = srvfix_player(f, "alice");
	run(f, "pause");
	assert_true(f->sv->paused);
	/* a new level starts unpaused (its clients' serverdata clears it) */
	run(f, "map small");
	assert_false(f->sv->paused);
	assert_string_equal(cvar_get(f->sv, "sv_paused")->string, "0");
	assert_true(srvfix_until(f, a, QWC_ACTIVE, 5.0));
	assert_false(a->q.paused);

	run(f, "pause");
	assert_true(f->sv->paused);
	qwc_disconnect(&a->q);
	srvfix_run(f, 0.5, true);
	assert_false(f->sv->paused);
	/* the level change said nothing; the release is logged */
	assert_int_equal(srvfix_log_count(f, "game resumed"), 1);
}

/* ---- the demo: the pause in it, its clock stopped --------------------- */

static void test_pause_in_the_demo(void **state)
{
	struct srvfix *f = *state;
	struct mvd_reader *r = calloc(1, sizeof(*r));
	char path[256];
	uint8_t *data;
	size_t size;
	double t0, t1;

	assert_non_null(r);
	srvfix_start(f, 8);
	srvfix_player(f, "alice");
	srvfix_player(f, "bob");
	run(f, "rmdemo *");
	assert_non_null(strstr(run(f, "record paused"), "recording to demos/paused.mvd"));
	t0 = f->sv->time;
	srvfix_run(f, 0.5, true);
	run(f, "pause");
	srvfix_run(f, 1.0, true);
	run(f, "say during the pause");
	srvfix_run(f, 0.5, true);
	run(f, "pause");
	srvfix_run(f, 0.5, true);
	t1 = f->sv->time;
	assert_non_null(strstr(run(f, "stop"), "stopped paused.mvd"));

	snprintf(path, sizeof(path), "%s/qw/demos/paused.mvd", f->dir);
	data = qwd_read_file(path, &size);
	assert_non_null(data);
	mvd_reader_init(r);
	mvd_read(r, data, size);
	free(data);
	if (r->fault)
		fail_msg("demo fault %s: %s", mvd_fault_name(r->fault), r->fault_text);
	assert_true(r->ended);
	assert_int_equal(r->setpauses, 2);
	assert_false(r->paused);
	/* the demo spans the game's time, not the 2.5 s of the recording */
	if (fabs((r->time - r->start_time) - (t1 - t0)) > 0.1)
		fail_msg("demo spans %.3f s, the game ran %.3f s",
			 r->time - r->start_time, t1 - t0);
	assert_true(t1 - t0 < 1.6);
	free(r);
}

/* ---- QTV streams: told the real time, a viewer joining a pause --------- */

struct stream {
	int fd;			/* the viewer's end of a socket pair */
	uint8_t *buf;
	size_t len;
	struct mvd_reader r;
};

static void stream_open(struct srvfix *f, struct stream *st)
{
	int fds[2];

	memset(st, 0, sizeof(*st));
	st->buf = malloc(1 << 20);
	assert_non_null(st->buf);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
	st->fd = fds[1];
	assert_true(sv_mvd_add_stream(f->sv, fds[0], "pair"));
	mvd_reader_init(&st->r);
}

/* what came, read by the demo reader (a cut record waits for more) */
static void stream_read(struct stream *st)
{
	ssize_t n;
	size_t used;

	while (st->len < (1 << 20) &&
	       (n = recv(st->fd, st->buf + st->len, (1 << 20) - st->len,
			 MSG_DONTWAIT)) > 0)
		st->len += (size_t)n;
	used = mvd_read(&st->r, st->buf, st->len);
	memmove(st->buf, st->buf + used, st->len - used);
	st->len -= used;
	if (st->r.fault)
		fail_msg("stream fault %s: %s", mvd_fault_name(st->r.fault),
			 st->r.fault_text);
}

static void test_pause_on_a_stream(void **state)
{
	struct srvfix *f = *state;
	struct stream *s1 = calloc(1, sizeof(*s1)), *s2 = calloc(1, sizeof(*s2));
	uint64_t lists;

	assert_true(s1 && s2);
	srvfix_start(f, 8);
	srvfix_player(f, "alice");
	stream_open(f, s1);
	srvfix_run(f, 0.5, true);
	stream_read(s1);
	assert_int_equal(s1->r.hidden_records, 0);
	run(f, "pause");
	srvfix_run(f, 0.7, true);
	stream_read(s1);
	lists = s1->r.packetentities;
	srvfix_run(f, 0.3, true);
	stream_read(s1);
	assert_true(s1->r.packetentities == lists);	/* nothing moves */
	/* a viewer joining the pause: told so, and shown the world (its full
	 * frame 1 ms on, the one list of that instant, for everyone) */
	stream_open(f, s2);
	srvfix_run(f, 0.5, true);
	stream_read(s1);
	stream_read(s2);
	assert_true(s1->r.paused);
	assert_true(s2->r.paused);
	assert_int_equal(s2->r.setpauses, 1);
	assert_true(s2->r.packetentities >= 1);
	assert_true(s1->r.packetentities == lists + 1);
	/* the first viewer got the real time of each paused frame, at
	 * sv_demoIdlefps (10: about 15 in 1.5 s) */
	assert_true(s1->r.hidden_records >= 5);
	run(f, "pause");
	srvfix_run(f, 0.5, true);
	stream_read(s1);
	stream_read(s2);
	assert_false(s1->r.paused);
	assert_false(s2->r.paused);
	assert_int_equal(s1->r.setpauses, 2);
	assert_int_equal(s2->r.setpauses, 2);
	assert_true(s1->r.packetentities > lists + 1);
	close(s1->fd);
	close(s2->fd);
	free(s1->buf);
	free(s2->buf);
	free(s1);
	free(s2);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_pause_stops_the_world, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_pause_from_a_client, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_pause_from_the_game, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_pause_with_threads, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_pause_released, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_pause_in_the_demo, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_pause_on_a_stream, srvfix_test_teardown),
};

QWD_TEST_GROUP(pause, tests, srvfix_setup, srvfix_teardown)
