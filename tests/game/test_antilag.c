/*
 * test_antilag.c -- the rewind of src/game/antilag.c against MVDSV's
 * rule (sv_user.c, sv_world.c): the ring kept per move, the position at
 * a time (interpolation with MVDSV's arithmetic, the 20 ms extrapolation,
 * one position, a time older than the ring), who is rewound, the box the
 * schedule asks for, and a lightning shot that meets a player where the
 * shooter saw it with sv_antilag 2 and where it stands with 0.
 *
 * Design note: the server's part (the rewind time from a packet) is
 * played by game_antilag_aim and game_antilag_record called as the
 * server calls them; positions are set with scen_place.
 */
#include "scenario.h"

#include "../harness.h"

#include <math.h>
#include <string.h>

/* slot stands at (x, y, 24) after a move at time t */
static void moved(struct scen *s, int slot, float x, float y, double t)
{
	scen_place(s, slot, x, y, 24, 0);
	game_antilag_record(s->g, slot, t);
}

static void test_ring_and_position(void **state)
{
	struct scen *s = *state;
	vec3_t p;
	double f;
	float want;

	s->mock.antilag = 2;
	scen_room_ok(s, NULL);
	scen_join(s, 0, "a");
	scen_join(s, 1, "b");
	/* nothing kept yet: not rewound */
	assert_false(game_antilag_position(s->g, 1, 1.0, p));
	moved(s, 1, 0, 0, 1.000);
	/* one position: that one, whatever the time before its move */
	assert_true(game_antilag_position(s->g, 1, 0.5, p));
	assert_true(p[0] == 0 && p[1] == 0);
	moved(s, 1, 10, 0, 1.013);
	/* a second move in the same frame keeps the first position */
	moved(s, 1, 11, 0, 1.013);
	assert_int_equal(s->g->lag[1].next, 2);
	moved(s, 1, 30, 0, 1.026);
	/* between two positions: a*(1-f) + b*f, f a double */
	assert_true(game_antilag_position(s->g, 1, 1.020, p));
	f = (1.020 - 1.013) / (1.026 - 1.013);
	want = (float)(10 * (1 - f) + 30 * f);
	assert_true(p[0] == want);
	/* at a kept time exactly: the search wants a time before it */
	assert_true(game_antilag_position(s->g, 1, 1.013, p));
	assert_true(fabsf(p[0] - 10) < 1e-4f);
	/* older than all it holds (not full): the oldest */
	assert_true(game_antilag_position(s->g, 1, 0.9, p));
	assert_true(p[0] == 0);
	/* past its last move: carried on by its velocity, 20 ms at most */
	vec_set(scen_player(s, 1)->velocity, 100, 0, 0);
	assert_true(game_antilag_position(s->g, 1, 1.036, p));
	assert_true(fabsf(p[0] - (30 + 1.0f)) < 1e-3f);	/* 10 ms */
	assert_true(game_antilag_position(s->g, 1, 1.5, p));
	assert_true(fabsf(p[0] - (30 + 2.0f)) < 1e-3f);	/* 20 ms */
	/* dead: not rewound */
	scen_player(s, 1)->health = 0;
	assert_false(game_antilag_position(s->g, 1, 1.020, p));
	scen_player(s, 1)->health = 100;
	/* sv_antilag 0 empties the ring at the next move */
	s->mock.antilag = 0;
	moved(s, 1, 40, 0, 1.039);
	assert_int_equal(s->g->lag[1].next, 0);
	assert_false(game_antilag_position(s->g, 1, 1.020, p));
	/* a spawn (QuakeC's setorigin) empties it too */
	s->mock.antilag = 2;
	moved(s, 1, 40, 0, 1.052);
	assert_int_equal(s->g->lag[1].next, 1);
	game_client_kill(s->g, 1);
	assert_int_equal(s->g->lag[1].next, 0);
}

/* a full ring and a time older than all of it: MVDSV's search ends on
 * the newest and the oldest and goes on past the oldest */
static void test_full_ring(void **state)
{
	struct scen *s = *state;
	const struct game_lag *l;
	const struct game_lag_pos *newest, *oldest;
	vec3_t p, mn, mx;
	double f, t = 0.5;

	s->mock.antilag = 2;
	scen_room_ok(s, NULL);
	scen_join(s, 0, "a");
	for (int i = 0; i < GAME_LAG_POSITIONS + 5; i++)
		moved(s, 0, (float)i, 0, 1.0 + 0.013 * i);
	l = &s->g->lag[0];
	assert_int_equal(l->next, GAME_LAG_POSITIONS + 5);
	newest = &l->ring[(l->next - 1) % GAME_LAG_POSITIONS];
	oldest = &l->ring[l->next % GAME_LAG_POSITIONS];
	assert_true(oldest->origin[0] == 5);
	assert_true(game_antilag_position(s->g, 0, t, p));
	f = (t - newest->time) / (oldest->time - newest->time);
	assert_true(p[0] == (float)(newest->origin[0] * (1 - f) +
				    oldest->origin[0] * f));
	/* the schedule: older than the ring is anywhere */
	assert_int_equal(game_antilag_reach(s->g, 0, t, mn, mx), -1);
	/* within it: the positions since, grown by the box */
	assert_int_equal(game_antilag_reach(s->g, 0, 1.0 + 0.013 * 100.5, mn, mx), 1);
	assert_true(mn[0] <= 100 - 16 && mx[0] >= 132 + 16);
	assert_true(mn[0] >= 99 - 16 - 1);
}

/* B stood on A's line of fire (yaw 0 from -256 -256) at the time A
 * saw, then moved off it; A fires once with weapon; B */
static struct game_entity *fire_at_past(struct scen *s, int weapon)
{
	struct game_entity *b;

	s->mock.deathmatch = 1;
	scen_room_ok(s, NULL);
	scen_join(s, 0, "a");
	b = scen_join(s, 1, "b");
	scen_give(s, 0, weapon, 100);
	scen_run(s, 0.5);
	moved(s, 0, -256, -256, s->time);
	moved(s, 1, 0, -256, s->time);
	moved(s, 1, 0, -100, s->time + 0.013);
	/* A's packet acknowledged a reply that showed B on its line */
	game_antilag_aim(s->g, 0, true, s->time);
	b->health = 100;
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	return b;
}

static void shoot_at_past(struct scen *s, float antilag, bool want_hit)
{
	struct game_entity *b;

	s->mock.antilag = antilag;
	b = fire_at_past(s, IT_LIGHTNING);
	if (want_hit) {
		assert_true(b->health < 100);
		assert_true(mock_temp_entities(&s->mock, TE_LIGHTNINGBLOOD) > 0);
		assert_true(s->g->stats.lag_traces > 0);
	} else {
		assert_true(b->health == 100);
		assert_int_equal(s->g->stats.lag_traces, 0);
	}
}

static void test_shot_rewound(void **state)
{
	shoot_at_past(*state, 2, true);
}

static void test_shot_present(void **state)
{
	shoot_at_past(*state, 0, false);
}

/* sv_antilag 1 keeps the positions and rewinds nothing (MVDSV rewinds
 * then only for a mod's FL_LAGGEDMOVE, which this game never sets) */
static void test_mode_one_keeps_only(void **state)
{
	shoot_at_past(*state, 1, false);
}

/* a rocket at where B stood at A's time: with sv_antilag_projectiles it
 * meets B there (explodes there), without it flies on to the wall */
static float rocket_burst_x(struct scen *s, float projectiles)
{
	s->mock.antilag = 2;
	s->mock.antilag_projectiles = projectiles;
	fire_at_past(s, IT_ROCKET_LAUNCHER);
	for (int i = 0; i < 200 && mock_temp_entities(&s->mock, TE_EXPLOSION) == 0; i++) {
		scen_tick(s);
		/* B stays where it stands now, and so does its ring */
		scen_place(s, 1, 0, -100, 24, 0);
	}
	assert_int_equal(mock_temp_entities(&s->mock, TE_EXPLOSION), 1);
	for (int i = 0; i < s->mock.num_te; i++)
		if (s->mock.te[i].type == TE_EXPLOSION)
			return s->mock.te[i].origin[0];
	return 0;
}

static void test_projectile_rewound(void **state)
{
	/* B's rewound box: x -16..16 */
	assert_true(rocket_burst_x(*state, 1) < 0);
}

static void test_projectile_present(void **state)
{
	/* on to the room's far wall (x 512) */
	assert_true(rocket_burst_x(*state, 0) > 400);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(test_projectile_rewound, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_projectile_present, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_ring_and_position, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_full_ring, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_shot_rewound, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_shot_present, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_mode_one_keeps_only, scen_fx_setup, scen_fx_teardown),
};

QWD_TEST_GROUP(antilag, tests, NULL, NULL)
