/*
 * tests/game/test_rules.c -- the deathmatch game in scripted scenarios:
 * weapons, damage and frags, movers, triggers, items, liquids,
 * spawning, and the level's end.
 *
 * Design note: every scenario is a small map written as box brushes
 * (scenario.h), compiled by qwmap's compiler in memory, with players
 * driven through game_client_cmd exactly as the server will drive them.
 * Expected numbers are id's QuakeC's: a rocket does 100-120 to what it
 * hits, a door moves 100 u/s and waits 3 s, a plat 150 u/s and waits 3 s,
 * shells respawn after 30 s and health after 20 s, lava hurts 10 per
 * waterlevel every 0.2 s, a push trigger gives speed x 10.
 * Standing on a floor at height h puts a player's origin at h + 24 + 1/32.
 */
#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/game.h"
#include "../../src/game/internal.h"	/* g_spawn, g_remove */
#include "scenario.h"

#define STAND 25.0f

static void give(struct scen *s, int slot, int weapon, int ammo)
{
	scen_give(s, slot, weapon, ammo);
}

/* ---- weapons and frags -------------------------------------------------- */

static void test_rocket_kills_and_frags(void **state)
{
	struct scen *s = *state;
	struct game_entity *a, *b;

	scen_room_ok(s, NULL);
	a = scen_join(s, 0, "alice");
	b = scen_join(s, 1, "bob");
	scen_place(s, 0, -200, 0, STAND, 0);
	scen_place(s, 1, 200, 0, STAND, 180);
	scen_run(s, 0.2);
	give(s, 0, IT_ROCKET_LAUNCHER, 10);
	assert_int_equal((int)b->health, 100);

	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	assert_int_equal(scen_client(s, 0)->ammo_rockets, 9);
	assert_int_equal(scen_count(s, "missile"), 1);
	assert_int_equal(mock_sounds(&s->mock, "weapons/sgun1.wav"), 1);
	scen_run(s, 0.6);

	assert_true(b->health <= 0);
	assert_int_equal(scen_count(s, "missile"), 0);
	assert_int_equal(mock_temp_entities(&s->mock, TE_EXPLOSION), 1);
	assert_int_equal(scen_client(s, 0)->frags, 1);
	assert_int_equal(s->mock.frags[0], 1);
	assert_non_null(strstr(s->mock.prints, "bob rides alice's rocket"));
	assert_true(a->health > 0);
	/* a backpack with his shells fell */
	assert_int_equal(scen_count(s, "backpack"), 1);

	/* respawn: buttons released after the death, then pressed */
	scen_run(s, 1.2);
	assert_true(b->health <= 0);
	scen_hold(s, 1, 0, 0, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 1, 0, 0, 0, 0, 0);
	scen_run(s, 0.1);
	assert_int_equal((int)b->health, 100);
	assert_int_equal(scen_client(s, 1)->ammo_shells, 25);
	/* his body stays where he fell */
	{
		struct game_entity *body = scen_find(s, "bodyque");

		assert_non_null(body);
		assert_int_equal(body->modelindex, mock_model_index(&s->mock, "progs/player.mdl"));
		assert_true(body->obj->origin[0] > 150);
		assert_int_equal(body->colormap, 2);
	}
	assert_int_equal(b->weapon, IT_SHOTGUN);
}

static void test_grenade_bounces_and_explodes(void **state)
{
	struct scen *s = *state;

	scen_room_ok(s, NULL);
	scen_join(s, 0, "alice");
	scen_place(s, 0, -400, 300, STAND, 180);
	scen_run(s, 0.2);
	give(s, 0, IT_GRENADE_LAUNCHER, 5);
	scen_hold(s, 0, 0, 180, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 180, 0, 0, 0);
	assert_int_equal(scen_count(s, "grenade"), 1);

	scen_run(s, 1.0);
	assert_int_equal(scen_count(s, "grenade"), 1);
	assert_true(mock_sounds(&s->mock, "weapons/bounce.wav") >= 1);
	assert_int_equal(mock_temp_entities(&s->mock, TE_EXPLOSION), 0);

	scen_run(s, 1.6);
	assert_int_equal(scen_count(s, "grenade"), 0);
	assert_int_equal(mock_temp_entities(&s->mock, TE_EXPLOSION), 1);
}

static void test_shotgun_hits(void **state)
{
	struct scen *s = *state;
	struct game_entity *b;

	scen_room_ok(s, NULL);
	scen_join(s, 0, "alice");
	b = scen_join(s, 1, "bob");
	scen_place(s, 0, -100, 0, STAND, 0);
	scen_place(s, 1, 100, 0, STAND, 180);
	scen_run(s, 0.2);
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	assert_int_equal(scen_client(s, 0)->ammo_shells, 24);
	assert_true(b->health < 100);
	assert_true(b->health >= 100 - 24);
	assert_int_equal(((int)(100 - b->health)) % 4, 0);
	assert_int_equal(mock_temp_entities(&s->mock, TE_BLOOD), 1);
	assert_true(s->mock.damage_calls >= 1);
	/* the next shot waits for attack_finished (0.5 s) */
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_run(s, 0.3);
	assert_int_equal(scen_client(s, 0)->ammo_shells, 24);
	scen_run(s, 0.3);
	assert_int_equal(scen_client(s, 0)->ammo_shells, 23);
}

static void test_lightning_kills(void **state)
{
	struct scen *s = *state;
	struct game_entity *b;

	scen_room_ok(s, NULL);
	scen_join(s, 0, "alice");
	b = scen_join(s, 1, "bob");
	scen_place(s, 0, -100, 0, STAND, 0);
	scen_place(s, 1, 100, 0, STAND, 180);
	scen_run(s, 0.2);
	give(s, 0, IT_LIGHTNING, 50);
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_run(s, 0.5);
	assert_true(b->health <= 0);
	assert_true(mock_temp_entities(&s->mock, TE_LIGHTNING2) >= 4);
	assert_true(scen_client(s, 0)->ammo_cells <= 46);
	assert_non_null(strstr(s->mock.prints, "bob accepts alice's shaft"));
	assert_int_equal(scen_client(s, 0)->frags, 1);
}

static void test_nailgun_fires_nails(void **state)
{
	struct scen *s = *state;
	struct game_entity *b;

	scen_room_ok(s, NULL);
	scen_join(s, 0, "alice");
	b = scen_join(s, 1, "bob");
	scen_place(s, 0, -300, 0, STAND, 0);
	scen_place(s, 1, 300, 0, STAND, 180);
	scen_run(s, 0.2);
	give(s, 0, IT_NAILGUN, 100);
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_run(s, 0.25);
	/* one nail every 0.1 s; they fly 1000 u/s and are sent as nails */
	{
		struct game_entity *n = scen_find(s, "spike");

		assert_non_null(n);
		assert_true(n->nail);
		assert_int_equal(n->modelindex, mock_model_index(&s->mock, "progs/spike.mdl"));
	}
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	scen_run(s, 1.0);
	assert_int_equal(scen_client(s, 0)->ammo_nails, 97);
	assert_int_equal((int)b->health, 100 - 3 * 9);
	assert_int_equal(scen_count(s, "spike"), 0);
}

static void test_fraglimit_ends_level(void **state)
{
	struct scen *s = *state;

	s->mock.fraglimit = 1;
	s->mock.infokey_key = "test";
	s->mock.infokey_value = "dm2";
	scen_room_ok(s, NULL);
	scen_join(s, 0, "alice");
	scen_join(s, 1, "bob");
	scen_place(s, 0, -100, 0, STAND, 0);
	scen_place(s, 1, 100, 0, STAND, 180);
	scen_run(s, 0.2);
	give(s, 0, IT_ROCKET_LAUNCHER, 10);
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	scen_run(s, 0.5);
	assert_int_equal(scen_client(s, 0)->frags, 1);
	assert_int_equal(s->mock.intermission_calls, 1);
	assert_true(s->g->intermission);
	/* no exit before 5 s, then a button press goes to the next map */
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_run(s, 2);
	assert_int_equal(s->mock.change_calls, 0);
	scen_run(s, 3.5);
	assert_int_equal(s->mock.change_calls, 1);
	assert_string_equal(s->mock.change_map, "dm2");
}

/* ---- movers ------------------------------------------------------------- */

static void plat_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"func_plat\"");
	ms_box(m, -64, -64, 0, 64, 64, 128, "plat");
	ms_close(m);
}

static void test_plat_carries_player(void **state)
{
	struct scen *s = *state;
	struct game_entity *p, *plat;
	float bottom;

	scen_room_ok(s, plat_map);
	plat = scen_find(s, "plat");
	assert_non_null(plat);
	bottom = plat->pos2[2];
	assert_true(bottom < -100);
	assert_true(plat->obj->origin[2] == bottom);

	p = scen_join(s, 0, "alice");
	scen_place(s, 0, 0, 0, 128 + bottom + STAND, 0);
	scen_run(s, 0.1);
	assert_true(plat->obj->origin[2] > bottom);
	scen_run(s, 1.4);
	/* at the top, with its rider */
	assert_true(plat->obj->origin[2] == 0);
	assert_true(p->obj->origin[2] > 128 + 24 - 1);
	assert_true(p->obj->origin[2] < 128 + 24 + 1);
	/* it stays up while someone stands on it */
	scen_run(s, 4);
	assert_true(plat->obj->origin[2] == 0);
	/* the rider leaves: each touch at the top put the descent 1 s off */
	scen_place(s, 0, 300, 300, STAND, 0);
	scen_run(s, 0.7);
	assert_true(plat->obj->origin[2] == 0);
	scen_run(s, 1.5);
	assert_true(plat->obj->origin[2] == bottom);
	assert_true(mock_sounds(&s->mock, "plats/medplat1.wav") >= 2);
}

/* ---- game.h's rule for what the server keeps of a player ---------------- */

/* what a player's svc_playerinfo entry is made of, in the game */
struct look {
	vec3_t origin, velocity, angles;
	int frame, modelindex, skin, effects;
	bool dead;
};

static void look_at(struct scen *s, int slot, struct look *l)
{
	const struct game_entity *e = scen_player(s, slot);

	memset(l, 0, sizeof(*l));
	vec_copy(e->obj->origin, l->origin);
	vec_copy(scen_client(s, slot)->pm.velocity, l->velocity);
	vec_copy(e->angles, l->angles);
	l->frame = e->frame;
	l->modelindex = e->modelindex;
	l->skin = e->skin;
	l->effects = e->effects;
	l->dead = e->health <= 0;
}

/* every player but `mover` against what it was: a change must have
 * moved game->changes or its touched counter; the number of players so
 * changed */
static int rule_check(struct scen *s, int players, int mover,
		      const struct look *was, uint32_t changes,
		      const uint32_t *touched)
{
	int changed = 0;

	for (int i = 0; i < players; i++) {
		struct look now;

		look_at(s, i, &now);
		if (i == mover || memcmp(&now, &was[i], sizeof(now)) == 0)
			continue;
		changed++;
		if (s->g->changes == changes && s->g->touched[i] == touched[i])
			fail_msg("player %d changed outside its move, no counter moved", i);
	}
	return changed;
}

/* scen_tick with the rule checked after the world's frame and after
 * each player's move; the players changed from outside their moves */
static int rule_tick(struct scen *s, int players)
{
	struct look was[SCEN_MAX_CLIENTS];
	uint32_t touched[SCEN_MAX_CLIENTS], changes;
	int changed = 0;

	for (int step = -1; step < players; step++) {
		for (int i = 0; i < players; i++) {
			look_at(s, i, &was[i]);
			touched[i] = s->g->touched[i];
		}
		changes = s->g->changes;
		if (step < 0) {
			s->time += SCEN_TICK;
			game_frame(s->g, s->time);
		} else if (s->playing[step]) {
			game_client_cmd(s->g, step, &s->held[step]);
		}
		changed += rule_check(s, players, step, was, changes, touched);
	}
	return changed;
}

static int rule_run(struct scen *s, int players, double seconds)
{
	int changed = 0;

	for (int n = (int)(seconds / SCEN_TICK + 0.5); n > 0; n--)
		changed += rule_tick(s, players);
	return changed;
}

/* A rider that sends nothing is carried by the plat in the world's
 * frame: its touched counter moves, and the frames with no mover, no
 * shot and no damage move no counter at all (the server then keeps
 * every player's entry without reading the game). */
static void test_touched_by_plat(void **state)
{
	struct scen *s = *state;
	struct game_entity *plat;
	uint32_t changes, touched;
	float bottom;

	scen_room_ok(s, plat_map);
	plat = scen_find(s, "plat");
	assert_non_null(plat);
	bottom = plat->pos2[2];
	scen_join(s, 0, "alice");
	scen_join(s, 1, "bob");
	scen_place(s, 1, 300, 300, STAND, 0);
	rule_run(s, 2, 0.5);
	/* nothing moves: no counter does */
	changes = s->g->changes;
	touched = s->g->touched[0] + s->g->touched[1];
	scen_run(s, 0.5);
	assert_int_equal(s->g->changes, changes);
	assert_int_equal(s->g->touched[0] + s->g->touched[1], touched);
	/* alice steps on (her move starts the plat), then sends nothing */
	scen_place(s, 0, 0, 0, 128 + bottom + STAND, 0);
	rule_tick(s, 2);
	s->playing[0] = false;
	touched = s->g->touched[0];
	changes = s->g->touched[1];
	assert_true(rule_run(s, 2, 1.5) > 0);	/* carried up, and checked */
	assert_true(plat->obj->origin[2] == 0);
	assert_true(scen_player(s, 0)->obj->origin[2] > 128 + 24 - 1);
	assert_true(s->g->touched[0] != touched);
	assert_int_equal(s->g->touched[1], changes);	/* bob: nothing */
}

/* Shots reach other players in the shooter's move (hitscan) and in the
 * world's frame (a rocket in flight, its splash, the knockback, a death):
 * each such change moves the victim's counter. */
static void test_touched_by_damage(void **state)
{
	struct scen *s = *state;
	uint32_t touched;

	scen_room_ok(s, NULL);
	scen_join(s, 0, "alice");
	scen_join(s, 1, "bob");
	scen_place(s, 0, -200, 0, STAND, 0);
	scen_place(s, 1, 200, 0, STAND, 180);
	rule_run(s, 2, 0.3);
	/* the shotgun: in alice's move */
	touched = s->g->touched[1];
	scen_give(s, 0, IT_SHOTGUN, 100);
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	assert_true(rule_run(s, 2, 0.6) > 0);
	assert_true(scen_player(s, 1)->health < 100);
	assert_true(s->g->touched[1] != touched);
	/* rockets: in the world's frame, to bob's death */
	touched = s->g->touched[1];
	scen_give(s, 0, IT_ROCKET_LAUNCHER, 100);
	assert_true(rule_run(s, 2, 2.0) > 0);
	assert_true(scen_client(s, 0)->frags > 0);	/* bob died */
	assert_true(s->g->touched[1] != touched);
}

static void door_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"func_door\" \"angle\" \"-1\"");
	ms_box(m, 256, -64, 0, 272, 64, 128, "door");
	ms_close(m);
}

static void test_door_opens_and_closes(void **state)
{
	struct scen *s = *state;
	struct game_entity *door;

	scen_room_ok(s, door_map);
	door = scen_find(s, "door");
	assert_non_null(door);
	assert_true(door->pos2[2] > 100);
	scen_join(s, 0, "alice");
	scen_place(s, 0, 200, 0, STAND, 0);
	scen_run(s, 0.1);
	assert_true(door->obj->origin[2] > 0);
	scen_place(s, 0, -300, 0, STAND, 0);
	scen_run(s, 1.5);
	assert_true(door->obj->origin[2] == door->pos2[2]);
	/* open for its wait (3 s), then it closes at the same speed */
	scen_run(s, 2.5);
	assert_true(door->obj->origin[2] == door->pos2[2]);
	scen_run(s, 2.5);
	assert_true(door->obj->origin[2] == 0);
}

static void teleport_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"trigger_teleport\" \"target\" \"t1\"");
	ms_box(m, -300, -32, 0, -236, 32, 64, "trigger");
	ms_close(m);
	ms_open(m, "\"classname\" \"info_teleport_destination\" \"targetname\" \"t1\" "
		   "\"origin\" \"300 200 24\" \"angle\" \"90\"");
	ms_close(m);
}

static void test_teleporter_moves_player(void **state)
{
	struct scen *s = *state;
	struct game_entity *p;

	scen_room_ok(s, teleport_map);
	p = scen_join(s, 0, "alice");
	scen_place(s, 0, -268, 0, STAND, 0);
	s->mock.num_te = 0;
	s->mock.setangle_calls = 0;
	scen_tick(s);
	assert_true(p->obj->origin[0] == 300);
	assert_true(p->obj->origin[1] == 200);
	assert_true(p->obj->origin[2] == 24 + 27);
	assert_true(p->velocity[1] > 299);
	assert_int_equal(mock_temp_entities(&s->mock, TE_TELEPORT), 2);
	assert_int_equal(s->mock.setangle_calls, 1);
	assert_true(s->mock.setangle[1] == 90);
	scen_run(s, 0.3);
	assert_true(p->obj->origin[1] > 230);
	assert_true(mock_sounds(&s->mock, "misc/r_tele1.wav") +
		    mock_sounds(&s->mock, "misc/r_tele2.wav") +
		    mock_sounds(&s->mock, "misc/r_tele3.wav") +
		    mock_sounds(&s->mock, "misc/r_tele4.wav") +
		    mock_sounds(&s->mock, "misc/r_tele5.wav") >= 2);
}

static void push_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"trigger_push\" \"angle\" \"-1\" \"speed\" \"50\"");
	ms_box(m, -100, 100, 0, 100, 200, 64, "trigger");
	ms_close(m);
}

static void test_push_throws_player(void **state)
{
	struct scen *s = *state;
	struct game_entity *p;

	scen_room_ok(s, push_map);
	p = scen_join(s, 0, "alice");
	scen_place(s, 0, 0, 150, STAND, 0);
	scen_tick(s);
	assert_true(p->velocity[2] == 500);
	scen_run(s, 0.2);
	assert_true(p->obj->origin[2] > STAND + 60);
	assert_int_equal(mock_sounds(&s->mock, "ambience/windfly.wav"), 1);
}

/* ---- items -------------------------------------------------------------- */

static void items_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"item_shells\" \"origin\" \"0 200 0\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"item_health\" \"origin\" \"0 -200 0\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"weapon_rocketlauncher\" \"origin\" \"-300 200 0\"");
	ms_close(m);
}

static void test_item_pickup_and_respawn(void **state)
{
	struct scen *s = *state;
	struct game_entity *p, *shells, *health, *rl;
	int model;

	scen_room_ok(s, items_map);
	shells = scen_find(s, "item_shells");
	health = scen_find(s, "item_health");
	rl = scen_find(s, "weapon_rocketlauncher");
	assert_non_null(shells);
	assert_non_null(health);
	assert_non_null(rl);
	model = shells->modelindex;
	assert_int_equal(model, mock_model_index(&s->mock, "maps/b_shell0.bsp"));
	assert_int_equal(health->modelindex, mock_model_index(&s->mock, "maps/b_bh25.bsp"));
	p = scen_join(s, 0, "alice");
	scen_place(s, 0, -400, -400, STAND, 0);
	scen_run(s, 0.3);	/* items drop to the floor after 0.2 s */
	assert_true(shells->obj->origin[2] < 1);

	scen_client(s, 0)->ammo_shells = 10;
	p->health = 50;
	scen_place(s, 0, 16, 216, STAND, 0);
	scen_tick(s);
	assert_int_equal(scen_client(s, 0)->ammo_shells, 30);
	assert_int_equal(shells->modelindex, 0);
	assert_int_equal(shells->obj->solid, SOLID_NOT);
	assert_non_null(strstr(s->mock.prints, "You got the shells"));
	scen_place(s, 0, 16, -184, STAND, 0);
	scen_tick(s);
	assert_int_equal((int)p->health, 75);
	assert_int_equal(health->modelindex, 0);
	scen_place(s, 0, -300, 200, STAND, 0);
	scen_tick(s);
	assert_true(p->items & IT_ROCKET_LAUNCHER);
	assert_int_equal(p->weapon, IT_ROCKET_LAUNCHER);
	assert_int_equal(scen_client(s, 0)->ammo_rockets, 5);
	scen_place(s, 0, -400, -400, STAND, 0);

	/* health after 20 s, shells and the weapon after 30 s */
	scen_run(s, 19.5);
	assert_int_equal(health->modelindex, 0);
	scen_run(s, 1.0);
	assert_true(health->modelindex != 0);
	assert_int_equal(health->obj->solid, SOLID_TRIGGER);
	assert_int_equal(shells->modelindex, 0);
	scen_run(s, 9.5);
	assert_int_equal(shells->modelindex, model);
	assert_int_equal(shells->obj->solid, SOLID_TRIGGER);
	assert_true(rl->modelindex != 0);
	assert_int_equal(mock_sounds(&s->mock, "items/itembk2.wav"), 3);
}

/* ---- liquids ------------------------------------------------------------ */

static void liquid_map(struct mapsrc *m)
{
	(void)m;
}

static void liquid_world(struct mapsrc *m)
{
	ms_init(m);
	ms_open(m, "\"classname\" \"worldspawn\"");
	ms_room(m, -512, -512, 0, 512, 512, 384);
	ms_box(m, -450, -100, 0, -250, 100, 64, "*lava1");
	ms_box(m, 0, -100, 0, 450, 100, 64, "*water0");
	ms_close(m);
	ms_open(m, "\"classname\" \"info_player_deathmatch\" \"origin\" \"-256 -256 24\"");
	ms_close(m);
	liquid_map(m);
}

static void test_lava_hurts_water_slows(void **state)
{
	struct scen *s = *state;
	struct game_entity *a, *b, *c;
	struct mapsrc m;
	char err[256] = "";
	float start_x_wet, start_x_dry;

	liquid_world(&m);
	if (scen_start(s, m.text, SCEN_MAX_CLIENTS, SCEN_MAX_ENTITIES, err, sizeof(err)) != 0)
		fprintf(stderr, "scenario: %s\n", err);
	ms_free(&m);
	assert_non_null(s->g);

	a = scen_join(s, 0, "wet");
	b = scen_join(s, 1, "dry");
	c = scen_join(s, 2, "burnt");
	scen_place(s, 0, 20, 0, STAND, 0);
	scen_place(s, 1, 20, 300, STAND, 0);
	scen_place(s, 2, -350, 0, STAND, 0);
	start_x_wet = a->obj->origin[0];
	start_x_dry = b->obj->origin[0];
	scen_hold(s, 0, 0, 0, 400, 0, 0);
	scen_hold(s, 1, 0, 0, 400, 0, 0);
	scen_run(s, 0.5);

	assert_true(c->health < 100);
	assert_true(mock_sounds(&s->mock, "player/inlava.wav") >= 1);
	assert_int_equal((100 - (int)c->health) % 10, 0);
	assert_true(a->waterlevel >= 2);
	assert_int_equal((int)a->health, 100);
	assert_true(a->obj->origin[0] - start_x_wet <
		    0.8f * (b->obj->origin[0] - start_x_dry));
	assert_true(b->obj->origin[0] - start_x_dry > 100);
	scen_run(s, 1.5);
	assert_true(c->health <= 0);
	assert_non_null(strstr(s->mock.prints, "burnt"));
}

/* ---- spawning and the entity lump --------------------------------------- */

static void unknown_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"monster_army\" \"origin\" \"10 20 30\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"monster_army\" \"origin\" \"40 50 60\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"item_cells\" \"origin\" \"0 0 0\" \"spawnflags\" \"2048\"");
	ms_close(m);
}

static void test_unknown_class_reported_once(void **state)
{
	struct scen *s = *state;
	const char *first;

	scen_room_ok(s, unknown_map);
	first = strstr(s->mock.logs, "monster_army");
	assert_non_null(first);
	assert_null(strstr(first + 1, "monster_army"));
	assert_non_null(strstr(s->mock.logs, "(10 20 30)"));
	assert_null(scen_find(s, "monster_army"));
	assert_null(scen_find(s, "item_cells"));	/* not in deathmatch */
}

/* QuakeWorld's ED_Alloc, the long way: the lowest number from first_free
 * that is free and was not freed in the last 0.5 s (after the level's
 * first 2 s), or -1 */
static int alloc_reference(const struct game *g)
{
	for (int i = g->first_free; i < g->top; i++) {
		const struct game_entity *e = &g->ents[i];

		if (!e->inuse && !(e->freetime > 2.0 && g->time - e->freetime < 0.5))
			return i;
	}
	return -1;
}

/* g_spawn starts its scan where every number below is in use: the same
 * numbers as a scan from first_free, through spawns, removals anywhere
 * (below the mark, above it, the last), the 0.5 s rule and a full table */
static void test_entity_numbers(void **state)
{
	struct scen *s = *state;
	struct game *g;
	uint32_t r = 0x5eed0a11u;
	int spawned = 0, removed = 0, full = 0;

	scen_room_ok(s, NULL);
	g = s->g;
	scen_run(s, 2.5);	/* past the level's first 2 s */
	for (int step = 0; step < 6000; step++) {
		r ^= r << 13;
		r ^= r >> 17;
		r ^= r << 5;
		if (r % 3 != 0) {
			int want = alloc_reference(g);
			struct game_entity *e = g_spawn(g);

			assert_int_equal(e ? (int)e->num : -1, want);
			spawned += e != NULL;
			full += e == NULL;
			if (e)
				e->classname = "test";
		} else {
			int i = g->first_free + (int)((r >> 8) %
				(uint32_t)(g->top - g->first_free));

			if (g->ents[i].inuse && strcmp(g->ents[i].classname, "test") == 0) {
				g_remove(g, &g->ents[i]);
				removed++;
			}
		}
		if (step % 16 == 0)
			g->time += 0.1;	/* some freed numbers come of age */
	}
	assert_true(spawned > 1000);
	assert_true(removed > 500);
	assert_true(full > 0);
}

static void test_spawn_avoids_telefrag(void **state)
{
	struct scen *s = *state;

	scen_room_ok(s, NULL);
	for (int i = 0; i < SCEN_MAX_CLIENTS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "p%d", i);
		scen_join(s, i, name);
	}
	scen_run(s, 0.5);
	for (int i = 0; i < SCEN_MAX_CLIENTS; i++) {
		struct game_entity *a = scen_player(s, i);

		assert_int_equal((int)a->health, 100);
		assert_int_equal(scen_client(s, i)->frags, 0);
		for (int j = i + 1; j < SCEN_MAX_CLIENTS; j++) {
			struct game_entity *b = scen_player(s, j);
			float dx = a->obj->origin[0] - b->obj->origin[0];
			float dy = a->obj->origin[1] - b->obj->origin[1];

			assert_true(dx * dx + dy * dy >= 32 * 32);
		}
	}
	assert_null(strstr(s->mock.prints, "telefragged"));
}

/* The spawn search remembers which of its places the map's walls leave
 * no room at (struct game spawn_world): eight players on two spots search
 * the rings, and land where a search that traces every place lands. */
static void join_eight(struct scen *s)
{
	for (int i = 0; i < SCEN_MAX_CLIENTS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "p%d", i);
		scen_join(s, i, name);
	}
	scen_run(s, 0.5);
}

/* Eight players join s and plain (the same map; plain remembers
 * nothing, its search traces every place), both searches starting at
 * place `cursor`: every player of s lands where plain's does, both end at
 * the same place; plain is freed.  counts[k]: s's places remembered as
 * k (0 not tried, 1 open, 2 in the walls, 3 walled off). */
static void search_both(struct scen *s, struct scen *plain, int cursor,
			int counts[4])
{
	plain->g->spawn_world_places = 0;
	s->g->spawn_cursor = plain->g->spawn_cursor = cursor;
	join_eight(s);
	join_eight(plain);
	memset(counts, 0, 4 * sizeof(*counts));
	for (int i = 0; i < s->g->spawn_world_places; i++)
		counts[s->g->spawn_world[i] & 3]++;
	for (int i = 0; i < SCEN_MAX_CLIENTS; i++)
		assert_memory_equal(scen_player(s, i)->obj->origin,
				    scen_player(plain, i)->obj->origin,
				    sizeof(vec3_t));
	assert_int_equal(plain->g->spawn_cursor, s->g->spawn_cursor);
	scen_free(plain);
	free(plain);
}

static void test_spawn_places_remembered(void **state)
{
	struct scen *s = *state, *plain = calloc(1, sizeof(*plain));
	int counts[4];

	assert_non_null(plain);
	scen_room_ok(s, NULL);
	scen_room_ok(plain, NULL);
	/* 12 rings of 8, 16, ... 96 places around each of the 2 spots */
	assert_int_equal(s->g->spawn_world_places, 2 * 8 * 78);
	/* both searches start on the outer ring (ring 12: the last 2 x 96
	 * places, the first spot's first), halfway round (x = -256 - 480:
	 * past the room's wall at -512) */
	search_both(s, plain, 2 * 8 * 78 - 2 * 96 + 48, counts);
	assert_true(counts[1] > 0);	/* room */
	assert_true(counts[2] > 0);	/* in the walls */
}

/* the room with a wall across its south half, 120 units north of the
 * first spot: the places beyond it are open but walled off from it */
static void walled_room_ok(struct scen *s)
{
	struct mapsrc m;
	char err[256] = "";

	ms_init(&m);
	ms_open(&m, "\"classname\" \"worldspawn\"");
	ms_room(&m, -512, -512, 0, 512, 512, 384);
	ms_box(&m, -512, -136, 0, 0, -120, 384, "wall");
	ms_close(&m);
	ms_open(&m, "\"classname\" \"info_player_deathmatch\" \"origin\" \"-256 -256 24\"");
	ms_close(&m);
	ms_open(&m, "\"classname\" \"info_player_deathmatch\" \"origin\" \"256 -256 24\"");
	ms_close(&m);
	if (scen_start(s, m.text, SCEN_MAX_CLIENTS, SCEN_MAX_ENTITIES, err,
		       sizeof(err)) != 0)
		fail_msg("walled room: %s", err);
	ms_free(&m);
}

/* Places the world walls off from their spot are remembered as such and
 * skipped: the players land where a search that traces every place and
 * every move from the spot lands (searches starting on the fourth ring,
 * whose north half lies beyond the wall). */
static void test_spawn_places_walled_off(void **state)
{
	struct scen *s = *state, *plain = calloc(1, sizeof(*plain));
	int counts[4];

	assert_non_null(plain);
	walled_room_ok(s);
	walled_room_ok(plain);
	/* rings 1-3 hold 2 x (8 + 16 + 24) places: start on ring 4 */
	search_both(s, plain, 2 * 48, counts);
	assert_true(counts[1] > 0);	/* open */
	assert_true(counts[3] > 0);	/* walled off */
}

/* players 0..n-1 join s one by one, each search for a place starting
 * at the first (spawn_cursor 0) */
static void join_from_first(struct scen *s, int first, int n)
{
	for (int i = first; i < n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "p%d", i);
		s->g->spawn_cursor = 0;
		scen_join(s, i, name);
		scen_run(s, 0.1);
	}
}

/* Two on the spots, three on the places around them; the first of those
 * goes away (from left), and three more join, each search starting at
 * the first place. */
static void kept_round(struct scen *s, vec3_t left)
{
	join_from_first(s, 0, 5);
	vec_copy(scen_player(s, 2)->obj->origin, left);
	scen_place(s, 2, 0, 400, STAND, 0);
	scen_run(s, 0.1);
	join_from_first(s, 5, 8);
}

/* A search remembers, per place, the player that kept it (struct game
 * spawn_kept) and asks that one first the next time: while it is still
 * there the walk of the tree is saved, and once it left the place is
 * free again.  The game is the one that walks every time (plain
 * remembers nothing). */
static void test_spawn_places_kept(void **state)
{
	struct scen *s = *state, *plain = calloc(1, sizeof(*plain));
	vec3_t left, plain_left;

	assert_non_null(plain);
	scen_room_ok(s, NULL);
	scen_room_ok(plain, NULL);
	plain->g->spawn_world_places = 0;
	kept_round(s, left);
	kept_round(plain, plain_left);
	/* the place player 2 left is the first place again: player 5 took it */
	assert_memory_equal(scen_player(s, 5)->obj->origin, left, sizeof(vec3_t));
	assert_true(s->g->spawn_kept_hits > 0);
	assert_int_equal(plain->g->spawn_kept_hits, 0);
	for (int i = 0; i < SCEN_MAX_CLIENTS; i++) {
		assert_true(scen_player(s, i)->health > 0);
		assert_memory_equal(scen_player(s, i)->obj->origin,
				    scen_player(plain, i)->obj->origin,
				    sizeof(vec3_t));
	}
	assert_int_equal(plain->g->spawn_cursor, s->g->spawn_cursor);
	assert_null(strstr(s->mock.prints, "telefragged"));
	scen_free(plain);
	free(plain);
}

static const struct CMUnitTest rules_tests[] = {
	cmocka_unit_test_setup_teardown(test_rocket_kills_and_frags, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_entity_numbers, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_grenade_bounces_and_explodes, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_shotgun_hits, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_lightning_kills, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_nailgun_fires_nails, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_fraglimit_ends_level, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_plat_carries_player, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_touched_by_plat, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_touched_by_damage, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_door_opens_and_closes, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_teleporter_moves_player, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_push_throws_player, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_item_pickup_and_respawn, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_lava_hurts_water_slows, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_unknown_class_reported_once, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_spawn_avoids_telefrag, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_spawn_places_remembered, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_spawn_places_walled_off, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_spawn_places_kept, scen_fx_setup, scen_fx_teardown),
};

QWD_TEST_GROUP(game_rules, rules_tests, NULL, NULL)
