/*
 * test_sched.c -- the schedule instrument on a real server (sched.c):
 * which clients' moves a frame makes one job.
 *
 * Design note
 *   Six stock players on the small map are put in two groups of three
 *   on the floor of two corners about 830 units apart (the members of a
 *   group 48 units from each other, within a standing player's reach of
 *   64 plus the box); then every player sends one move and one server
 *   frame reads them all (loopback delivers at once), and the frame's
 *   jobs are read back.  Apart, two jobs of three; together, one of six;
 *   a respawn makes the frame one job;
 *   a shot along the line to the other group joins it, a shot away from
 *   it does not, but two shots are one job under the rule (the fire
 *   node) and apart when only lines of fire count.  The
 *   moves are standing still (no move keys), so each group stays where
 *   it was put within the frame.
 */
#include "../harness.h"
#include "srvfix.h"
#include "../../src/game/internal.h"	/* DEAD_RESPAWNABLE */

#include <string.h>

enum { GROUP = 3, PLAYERS = 2 * GROUP };

static const vec3_t corner_a = { -960, -960, 24 };
static const vec3_t corner_b = { -960, -128, 24 };

/* player i of a group at base + 48 i along x, at rest, its weapon ready */
static void place(struct srvfix *f, struct srv_client *c, const vec3_t base,
		  int i)
{
	struct game *g = f->sv->game;
	struct game_entity *e = &g->ents[game_player_entity(g, c->q.playernum)];

	e->obj->origin[0] = base[0] + 48.0f * (float)i;
	e->obj->origin[1] = base[1];
	e->obj->origin[2] = base[2];
	memset(e->velocity, 0, sizeof(e->velocity));
	e->attack_finished = 0;	/* the weapon ready whenever a test fires */
	world_link(&f->sv->world, e->obj);
}

/* the first group at corner a, the second at b (b: a, beside the first) */
static void place_groups(struct srvfix *f, struct srv_client **p, const float *b)
{
	int off = b == corner_a ? GROUP : 0;

	for (int i = 0; i < GROUP; i++) {
		place(f, p[i], corner_a, i);
		place(f, p[GROUP + i], b, off + i);
	}
}

/* one move from every player (buttons and yaw of each), one frame */
static void frame(struct srvfix *f, struct srv_client **p, const int *buttons,
		  const float *yaw, struct server_sched_frame *out)
{
	uint8_t pkt[NETCHAN_MAX_PACKET];

	for (int i = 0; i < PLAYERS; i++) {
		size_t n;

		memset(&p[i]->q.cmd, 0, sizeof(p[i]->q.cmd));
		p[i]->q.cmd.buttons = (uint8_t)buttons[i];
		p[i]->q.cmd.angles[1] = yaw[i];
		n = qwc_packet(&p[i]->q, server_clock(), true, pkt, sizeof(pkt));
		assert_true(n > 0);
		net_udp_send(p[i]->fd, &p[i]->q.opt.server, pkt, n, &p[i]->net);
	}
	server_frame(f->sv, 0.5);
	server_sched_last(f->sv, out);
}

/* the job holding n clients, or NULL */
static const struct server_sched_job *job_with(const struct server_sched_frame *s,
					       int clients)
{
	for (int i = 0; i < s->jobs; i++)
		if (s->job[i].clients == clients)
			return &s->job[i];
	return NULL;
}

static void start(struct srvfix *f, struct srv_client **p)
{
	srvfix_start(f, 8);
	for (int i = 0; i < PLAYERS; i++)
		p[i] = srvfix_player(f, "p");
	/* whatever was on its way is read before the measured frames */
	for (int i = 0; i < 5; i++)
		srvfix_step(f, false);
	server_sched_enable(f->sv, true, SERVER_SCHED_SHOTS);
}

static void test_groups_apart_and_together(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *p[PLAYERS];
	static const int none[PLAYERS];
	static const float yaw[PLAYERS];
	struct server_sched_frame s;

	start(f, p);
	place_groups(f, p, corner_b);
	frame(f, p, none, yaw, &s);
	assert_int_equal(s.clients, PLAYERS);
	assert_int_equal(s.jobs, 2);
	assert_int_equal(s.job[0].clients, GROUP);
	assert_int_equal(s.job[1].clients, GROUP);
	/* each job holds at least its players, and no shot */
	for (int k = 0; k < 2; k++) {
		assert_true(s.job[k].entities >= GROUP);
		assert_int_equal(s.job[k].firing, 0);
	}

	/* the second group beside the first: one job of all six */
	place_groups(f, p, corner_a);
	frame(f, p, none, yaw, &s);
	assert_int_equal(s.clients, PLAYERS);
	assert_int_equal(s.jobs, 1);
	assert_int_equal(s.job[0].clients, PLAYERS);
	assert_true(s.job[0].entities >= PLAYERS);

	/* apart again, and a dead player of the first group respawns (a
	 * spawn spot of all, a telefrag there): one job, the frame said to
	 * be global */
	place_groups(f, p, corner_b);
	{
		struct game *g = f->sv->game;
		struct game_entity *e = &g->ents[game_player_entity(g, p[0]->q.playernum)];
		int jump[PLAYERS] = { BUTTON_JUMP };

		assert_false(s.global);
		e->health = 0;
		e->deadflag = DEAD_RESPAWNABLE;
		frame(f, p, jump, yaw, &s);
		assert_true(s.global);
		assert_int_equal(s.jobs, 1);
		assert_int_equal(s.job[0].clients, PLAYERS);

		/* the move ranges alone: still said, but two jobs */
		server_sched_enable(f->sv, true, SERVER_SCHED_LOCAL);
		place_groups(f, p, corner_b);
		e->health = 0;
		e->deadflag = DEAD_RESPAWNABLE;
		frame(f, p, jump, yaw, &s);
		assert_true(s.global);
		assert_int_equal(s.jobs, 2);
		server_sched_enable(f->sv, true, SERVER_SCHED_SHOTS);
	}

	/* off: nothing measured, the last figures cleared */
	server_sched_enable(f->sv, false, SERVER_SCHED_SHOTS);
	server_sched_last(f->sv, &s);
	assert_int_equal(s.jobs, 0);
}

static void test_a_shot_joins_what_it_can_hit(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *p[PLAYERS];
	int buttons[PLAYERS] = { 0 };
	/* corner b is along +y from corner a: yaw 90 faces it, 270 away */
	float yaw[PLAYERS] = { 0 };
	struct server_sched_frame s;
	const struct server_sched_job *j;

	start(f, p);
	place_groups(f, p, corner_b);
	/* player 0 fires at the other group: one job, the shot in it */
	buttons[0] = BUTTON_ATTACK;
	yaw[0] = 90;
	frame(f, p, buttons, yaw, &s);
	assert_int_equal(s.jobs, 1);
	assert_int_equal(s.job[0].clients, PLAYERS);
	assert_int_equal(s.job[0].firing, 1);

	/* the same with shots joining nothing: the moves alone, two jobs,
	 * the shot still counted */
	server_sched_enable(f->sv, true, SERVER_SCHED_MOVES);
	place_groups(f, p, corner_b);
	buttons[0] = BUTTON_ATTACK;
	yaw[0] = 90;
	frame(f, p, buttons, yaw, &s);
	assert_int_equal(s.jobs, 2);
	j = job_with(&s, GROUP);
	assert_non_null(j);
	assert_int_equal(s.job[0].firing + s.job[1].firing, 1);
	server_sched_enable(f->sv, true, SERVER_SCHED_SHOTS);

	/* a shot away from the other group leaves it alone */
	place_groups(f, p, corner_b);
	yaw[0] = 270;
	frame(f, p, buttons, yaw, &s);
	assert_int_equal(s.jobs, 2);
	assert_int_equal(s.job[0].clients, GROUP);
	assert_int_equal(s.job[1].clients, GROUP);
	assert_int_equal(s.job[0].firing + s.job[1].firing, 1);

	/* two shots, each away from the other group: one job (the shots
	 * share the fire node) */
	place_groups(f, p, corner_b);
	buttons[GROUP] = BUTTON_ATTACK;
	yaw[GROUP] = 90;
	frame(f, p, buttons, yaw, &s);
	assert_int_equal(s.jobs, 1);
	assert_int_equal(s.job[0].clients, PLAYERS);
	assert_int_equal(s.job[0].firing, 2);

	/* the same two shots, the lines of fire alone: two jobs again */
	server_sched_enable(f->sv, true, SERVER_SCHED_LINES);
	place_groups(f, p, corner_b);
	frame(f, p, buttons, yaw, &s);
	assert_int_equal(s.jobs, 2);
	assert_int_equal(s.job[0].firing, 1);
	assert_int_equal(s.job[1].firing, 1);

	/* and a shot along the line to the other group joins it there too */
	place_groups(f, p, corner_b);
	buttons[GROUP] = 0;
	yaw[0] = 90;
	frame(f, p, buttons, yaw, &s);
	assert_int_equal(s.jobs, 1);
	assert_int_equal(s.job[0].firing, 1);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_groups_apart_and_together, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_a_shot_joins_what_it_can_hit, srvfix_test_teardown),
};

QWD_TEST_GROUP(sched, tests, srvfix_setup, srvfix_teardown)
