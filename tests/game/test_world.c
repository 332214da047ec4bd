/*
 * tests/game/test_world.c -- more of the game's world: keys and key
 * doors, the player model's frames, trains on path corners, buttons that
 * open targeted doors, trigger messages, hurt triggers against armour,
 * the axe with and without quad, rocket jumps, telefrags, the time limit,
 * and determinism.
 *
 * Design note: the same scenario machinery as test_rules.c (scenario.h).
 * Numbers from id's QuakeC: trains 100 u/s, buttons 40 u/s with a 4-unit
 * lip, green armour saves ceil(0.3 x damage), the axe does 20 (80 with
 * quad), a self-inflicted splash is halved.
 */
#include "../harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/game.h"
#include "scenario.h"

#define STAND 25.0f

static void train_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"func_train\" \"target\" \"p1\"");
	ms_box(m, 0, 0, 100, 64, 64, 116, "train");
	ms_close(m);
	ms_open(m, "\"classname\" \"path_corner\" \"targetname\" \"p1\" \"target\" \"p2\" "
		   "\"origin\" \"-200 200 100\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"path_corner\" \"targetname\" \"p2\" \"target\" \"p1\" "
		   "\"origin\" \"200 200 100\" \"wait\" \"2\"");
	ms_close(m);
}

static void test_train_follows_corners(void **state)
{
	struct scen *s = *state;
	struct game_entity *t;
	const float *mins;

	scen_room_ok(s, train_map);
	t = scen_find(s, "train");
	assert_non_null(t);
	mins = s->map->models[t->obj->model].mins;
	scen_run(s, 0.15);
	/* its mins corner sits on the first corner, then it leaves for p2 */
	assert_true(t->obj->origin[0] + mins[0] <= -199);
	scen_run(s, 2.0);
	assert_true(t->obj->origin[0] + mins[0] > -100);
	assert_true(t->obj->origin[0] + mins[0] < 100);
	scen_run(s, 2.5);
	assert_true(t->obj->origin[0] + mins[0] == 200);
	assert_true(t->obj->origin[1] + mins[1] == 200);
	/* waits 2 s there, then goes back */
	scen_run(s, 1.0);
	assert_true(t->obj->origin[0] + mins[0] == 200);
	scen_run(s, 2.0);
	assert_true(t->obj->origin[0] + mins[0] < 200);
}

static void button_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"func_button\" \"angle\" \"0\" \"target\" \"d1\"");
	ms_box(m, 300, -32, 0, 308, 32, 40, "button");
	ms_close(m);
	ms_open(m, "\"classname\" \"func_door\" \"angle\" \"-1\" \"targetname\" \"d1\"");
	ms_box(m, -400, 300, 0, -384, 400, 128, "door");
	ms_close(m);
}

static void test_button_opens_targeted_door(void **state)
{
	struct scen *s = *state;
	struct game_entity *door;

	scen_room_ok(s, button_map);
	door = scen_find(s, "door");
	assert_non_null(door);
	/* a targeted door has no trigger field of its own */
	assert_null(scen_find(s, "door_trigger"));
	scen_join(s, 0, "alice");
	scen_place(s, 0, -380, 200, STAND, 0);
	scen_run(s, 0.5);
	assert_true(door->obj->origin[2] == 0);

	scen_place(s, 0, 250, 0, STAND, 0);
	scen_hold(s, 0, 0, 0, 400, 0, 0);
	scen_run(s, 0.5);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	assert_true(mock_sounds(&s->mock, "buttons/airbut1.wav") >= 1);
	scen_run(s, 0.5);
	assert_true(door->obj->origin[2] > 0);
}

static void trigger_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"trigger_once\" \"message\" \"hello there\"");
	ms_box(m, -100, 200, 0, 100, 300, 64, "trigger");
	ms_close(m);
	ms_open(m, "\"classname\" \"trigger_hurt\" \"dmg\" \"10\"");
	ms_box(m, -100, -300, 0, 100, -200, 64, "trigger");
	ms_close(m);
	ms_open(m, "\"classname\" \"item_armor1\" \"origin\" \"-300 0 0\"");
	ms_close(m);
}

static void test_trigger_message_and_hurt_with_armour(void **state)
{
	struct scen *s = *state;
	struct game_entity *p;

	scen_room_ok(s, trigger_map);
	p = scen_join(s, 0, "alice");
	scen_place(s, 0, 400, 0, STAND, 0);
	scen_run(s, 0.3);

	scen_place(s, 0, 0, 250, STAND, 0);
	scen_tick(s);
	assert_string_equal(s->mock.centerprint, "hello there");
	scen_run(s, 0.3);
	assert_null(scen_find(s, "trigger_once"));	/* gone after use */

	/* green armour: 100 x 0.3 */
	scen_place(s, 0, -300 + 16, 16, STAND, 0);
	scen_tick(s);
	assert_true(p->armorvalue == 100);
	assert_true(p->items & IT_ARMOR1);

	/* 10 damage: ceil(3) saved by the armour, 7 taken; once a second */
	scen_place(s, 0, 0, -250, STAND, 0);
	scen_tick(s);
	assert_int_equal((int)p->health, 93);
	assert_int_equal((int)p->armorvalue, 97);
	scen_run(s, 0.5);
	assert_int_equal((int)p->health, 93);
	scen_run(s, 0.6);
	assert_int_equal((int)p->health, 86);
}

static void test_axe_and_quad(void **state)
{
	struct scen *s = *state;
	struct game_entity *b;

	scen_room_ok(s, NULL);
	scen_join(s, 0, "alice");
	b = scen_join(s, 1, "bob");
	scen_place(s, 0, 0, 0, STAND, 0);
	scen_place(s, 1, 40, 0, STAND, 180);
	scen_run(s, 0.2);
	scen_give(s, 0, IT_AXE, 0);
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	assert_int_equal(mock_sounds(&s->mock, "weapons/ax1.wav"), 1);
	/* the blow lands on the third frame, 0.2 s after the swing began:
	 * 15 ticks (0.195 s) on bob is untouched, the 16th (0.208 s) hits */
	for (int i = 0; i < 15; i++) {
		scen_tick(s);
		assert_int_equal((int)b->health, 100);
	}
	scen_tick(s);
	assert_int_equal((int)b->health, 80);
	assert_int_equal(s->mock.kick_calls, 0);	/* the axe does not kick */
	scen_run(s, 0.6);
	scen_client(s, 0)->super_damage_finished = s->time + 30;
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	scen_run(s, 0.25);
	assert_int_equal((int)b->health, 0);
	assert_non_null(strstr(s->mock.prints, "bob was ax-murdered by alice"));
}

static void test_rocket_jump(void **state)
{
	struct scen *s = *state;
	struct game_entity *a;

	scen_room_ok(s, NULL);
	a = scen_join(s, 0, "alice");
	scen_place(s, 0, 0, 0, STAND, 0);
	scen_run(s, 0.2);
	scen_give(s, 0, IT_ROCKET_LAUNCHER, 5);
	scen_hold(s, 0, 80, 0, 0, 0, 3);	/* look down, fire and jump */
	scen_tick(s);
	scen_hold(s, 0, 80, 0, 0, 0, 0);
	scen_tick(s);
	/* half of the splash, and thrown up */
	assert_true(a->health < 100);
	assert_true(a->health > 40);
	assert_true(a->velocity[2] > 300);
	scen_run(s, 0.3);
	assert_true(a->obj->origin[2] > STAND + 60);
	assert_int_equal(scen_client(s, 0)->frags, 0);
}

static void tele_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"trigger_teleport\" \"target\" \"t1\"");
	ms_box(m, -300, -32, 0, -236, 32, 64, "trigger");
	ms_close(m);
	ms_open(m, "\"classname\" \"info_teleport_destination\" \"targetname\" \"t1\" "
		   "\"origin\" \"300 200 24\" \"angle\" \"90\"");
	ms_close(m);
}

static void test_teleport_telefrags(void **state)
{
	struct scen *s = *state;
	struct game_entity *b;

	scen_room_ok(s, tele_map);
	scen_join(s, 0, "alice");
	b = scen_join(s, 1, "bob");
	scen_place(s, 1, 300, 200, STAND, 0);
	scen_place(s, 0, -268, 0, STAND, 0);
	scen_tick(s);
	assert_true(b->health <= 0);
	assert_non_null(strstr(s->mock.prints, "bob was telefragged by alice"));
	assert_int_equal(scen_client(s, 0)->frags, 1);
}

/* Everyone at the destination dies, in slot order, found through the
 * tree; a spectator there (damageable, never linked) too, as QuakeC's
 * scan of every player does. */
static void test_telefrag_crowd(void **state)
{
	struct scen *s = *state;
	struct game_entity *b, *c, *d;
	const char *pb, *pc;

	scen_room_ok(s, tele_map);
	scen_join(s, 0, "alice");
	b = scen_join(s, 1, "bob");
	c = scen_join(s, 2, "carol");
	scen_place(s, 2, 316, 200, STAND, 0);
	scen_place(s, 1, 290, 190, STAND, 0);
	scen_place(s, 0, -268, 0, STAND, 0);
	scen_tick(s);
	assert_true(b->health <= 0);
	assert_true(c->health <= 0);
	pb = strstr(s->mock.prints, "bob was telefragged by alice");
	pc = strstr(s->mock.prints, "carol was telefragged by alice");
	assert_non_null(pb);
	assert_non_null(pc);
	assert_true(pb < pc);
	assert_int_equal(scen_client(s, 0)->frags, 2);

	game_client_connect(s->g, 3, "dave", true);
	d = scen_player(s, 3);
	assert_false(d->obj->linked);
	vec_set(d->obj->origin, 300, 210, STAND);
	scen_place(s, 0, -268, 0, STAND, 0);
	scen_tick(s);
	assert_true(d->health <= 0);
	assert_int_equal(scen_client(s, 0)->frags, 3);
}

static void test_timelimit(void **state)
{
	struct scen *s = *state;

	s->mock.timelimit = 0.05f;	/* 3 s */
	scen_room_ok(s, NULL);
	scen_join(s, 0, "alice");
	scen_run(s, 1.5);
	assert_int_equal(s->mock.intermission_calls, 0);
	scen_run(s, 1.0);
	assert_int_equal(s->mock.intermission_calls, 1);
	/* nobody presses a button: the intermission holds */
	scen_run(s, 6);
	assert_int_equal(s->mock.change_calls, 0);
	game_client_disconnect(s->g, 0);
	s->playing[0] = false;
	scen_run(s, 0.1);
	assert_int_equal(s->mock.change_calls, 1);
	assert_string_equal(s->mock.change_map, "test");
}

/* the same commands on the same map give the same game */
static void replay(struct scen *s, float out[4])
{
	scen_room_ok(s, NULL);
	scen_join(s, 0, "alice");
	scen_join(s, 1, "bob");
	scen_give(s, 0, IT_SUPER_SHOTGUN, 50);
	scen_hold(s, 0, 0, 30, 300, 100, 1);
	scen_hold(s, 1, 0, 200, 300, -100, 0);
	scen_run(s, 3);
	out[0] = scen_player(s, 0)->obj->origin[0];
	out[1] = scen_player(s, 1)->obj->origin[1];
	out[2] = scen_player(s, 1)->health;
	out[3] = (float)s->mock.num_te;
	scen_free(s);
	memset(s, 0, sizeof(*s));
}

static void test_deterministic(void **state)
{
	struct scen *s = *state;
	float a[4], b[4];

	replay(s, a);
	replay(s, b);
	assert_memory_equal(a, b, sizeof(a));
}

static void key_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"item_key1\" \"origin\" \"-300 0 24\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"func_door\" \"angle\" \"-1\" \"spawnflags\" \"16\"");
	ms_box(m, 256, -64, 0, 272, 64, 128, "door");
	ms_close(m);
}

static void test_key_door(void **state)
{
	struct scen *s = *state;
	struct game_entity *p, *door;

	scen_room_ok(s, key_map);
	door = scen_find(s, "door");
	assert_non_null(door);
	assert_null(scen_find(s, "door_trigger"));
	p = scen_join(s, 0, "alice");
	scen_run(s, 0.3);
	/* without the key the door says so and stays shut */
	scen_place(s, 0, 220, 0, STAND, 0);
	scen_hold(s, 0, 0, 0, 400, 0, 0);
	scen_run(s, 0.3);
	assert_string_equal(s->mock.centerprint, "You need the silver key");
	assert_true(door->obj->origin[2] == 0);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	scen_place(s, 0, -300, 0, STAND, 0);
	scen_tick(s);
	assert_true(p->items & IT_KEY1);
	assert_int_equal(scen_find(s, "item_key1")->modelindex, 0);
	/* with it, the door opens for good and takes the key */
	scen_run(s, 2.1);
	scen_place(s, 0, 220, 0, STAND, 0);
	scen_hold(s, 0, 0, 0, 400, 0, 0);
	scen_run(s, 0.3);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	assert_false(p->items & IT_KEY1);
	scen_run(s, 6);
	assert_true(door->obj->origin[2] == door->pos2[2]);
}

static void test_player_frames(void **state)
{
	struct scen *s = *state;
	struct game_entity *a;

	scen_room_ok(s, NULL);
	a = scen_join(s, 0, "alice");
	scen_place(s, 0, 0, 0, STAND, 0);
	scen_run(s, 0.5);
	/* standing with a shotgun: stand1..stand5 */
	assert_true(a->frame >= 12 && a->frame <= 16);
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	/* firing: shotatt1..6, and the view model's frames from 1 */
	assert_true(a->frame >= 113 && a->frame <= 118);
	assert_true(scen_client(s, 0)->weaponframe >= 1);
	scen_run(s, 0.8);
	assert_int_equal(scen_client(s, 0)->weaponframe, 0);
	/* running: rockrun1..6 */
	scen_hold(s, 0, 0, 0, 400, 0, 0);
	scen_run(s, 0.5);
	assert_true(a->frame >= 6 && a->frame <= 11);
}

/* outside input: an entity lump with values no compiler writes (not
 * finite, huge, negative, missing targets, loops) never crashes the game */
static void test_hostile_entity_lump(void **state)
{
	static const char lump[] =
		"{ \"classname\" \"worldspawn\" \"worldtype\" \"7\" }\n"
		"{ \"classname\" \"info_player_deathmatch\" \"origin\" \"0 0 24\" }\n"
		"{ \"classname\" \"item_health\" \"origin\" \"nan inf -inf\" }\n"
		"{ \"classname\" \"item_key2\" \"origin\" \"1e30 -1e30 0\" }\n"
		"{ \"classname\" \"weapon_nailgun\" \"origin\" \"0 0 99999\" }\n"
		"{ \"classname\" \"func_train\" \"model\" \"*1\" \"target\" \"nowhere\" "
		"\"speed\" \"-5\" }\n"
		"{ \"classname\" \"func_door\" \"model\" \"*2\" \"wait\" \"-1\" "
		"\"speed\" \"1e38\" \"lip\" \"nan\" \"sounds\" \"99\" \"angle\" \"inf\" }\n"
		"{ \"classname\" \"func_button\" \"model\" \"*3\" \"target\" \"loop\" "
		"\"targetname\" \"loop\" \"delay\" \"-1\" \"sounds\" \"-7\" }\n"
		"{ \"classname\" \"func_wall\" \"model\" \"*99999999999\" }\n"
		"{ \"classname\" \"func_plat\" \"model\" \"*-4\" }\n"
		"{ \"classname\" \"trigger_counter\" \"count\" \"-3\" \"targetname\" \"loop\" }\n"
		"{ \"classname\" \"trigger_teleport\" \"model\" \"*1\" }\n"
		"{ \"classname\" \"path_corner\" \"targetname\" \"p\" \"target\" \"p\" }\n"
		"{ \"classname\" \"func_train\" \"model\" \"*1\" \"target\" \"p\" \"speed\" \"1e-30\" }\n"
		"{ \"noclassname\" \"x\" }\n";
	struct scen *s = *state;
	struct mapsrc m;
	char err[256] = "";
	int rc;

	ms_init(&m);
	ms_open(&m, "\"classname\" \"worldspawn\"");
	ms_room(&m, -512, -512, 0, 512, 512, 384);
	ms_close(&m);
	ms_open(&m, "\"classname\" \"info_player_deathmatch\" \"origin\" \"0 0 24\"");
	ms_close(&m);
	ms_open(&m, "\"classname\" \"func_wall\"");
	ms_box(&m, 0, 200, 200, 32, 232, 232, "a");
	ms_close(&m);
	ms_open(&m, "\"classname\" \"func_wall\"");
	ms_box(&m, 100, 100, 0, 132, 132, 64, "b");
	ms_close(&m);
	ms_open(&m, "\"classname\" \"func_wall\"");
	ms_box(&m, -100, 100, 0, -92, 132, 32, "c");
	ms_close(&m);
	rc = scen_start_lump(s, m.text, lump, err, sizeof(err));
	ms_free(&m);
	if (rc != 0)
		fprintf(stderr, "scenario: %s\n", err);
	assert_int_equal(rc, 0);

	scen_join(s, 0, "alice");
	scen_place(s, 0, 116, 60, STAND, 90);
	scen_hold(s, 0, 0, 90, 400, 0, 1);
	scen_run(s, 3);
	scen_place(s, 0, -120, 116, STAND, 0);
	scen_hold(s, 0, 0, 0, 400, 0, 0);
	scen_run(s, 3);
	assert_non_null(strstr(s->mock.logs, "does not exist"));
	for (int i = 0; i < s->g->num_entities; i++)
		for (int k = 0; k < 3; k++)
			assert_true(isfinite(s->objs[i].origin[k]));
}

static void secret_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"func_door_secret\" \"angle\" \"0\"");
	ms_box(m, 300, -64, 0, 316, 64, 128, "secret");
	ms_close(m);
}

/* a shot opens a secret door: out sideways, along, and back later */
static void test_secret_door(void **state)
{
	struct scen *s = *state;
	struct game_entity *d;

	scen_room_ok(s, secret_map);
	d = scen_find(s, "door_secret");
	assert_non_null(d);
	scen_join(s, 0, "alice");
	scen_place(s, 0, 100, 0, STAND, 0);
	scen_run(s, 0.2);
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	scen_run(s, 1.0);
	assert_true(d->obj->origin[1] < -10);	/* first leg: to its right */
	assert_true(d->obj->origin[0] == 0);
	scen_run(s, 3.5);
	assert_true(d->obj->origin[0] == 16);	/* second leg: along its facing */
	assert_true(d->obj->origin[1] == -128);
	scen_run(s, 10);
	assert_true(vec_equal(d->obj->origin, d->oldorigin));
	assert_true(d->takedamage);
}

static void test_kill_command(void **state)
{
	struct scen *s = *state;
	struct game_entity *a;

	scen_room_ok(s, NULL);
	a = scen_join(s, 0, "alice");
	scen_run(s, 0.2);
	a->health = 40;
	game_client_kill(s->g, 0);
	assert_int_equal(scen_client(s, 0)->frags, -2);
	assert_int_equal(s->mock.frags[0], -2);
	assert_int_equal((int)a->health, 100);
	assert_non_null(strstr(s->mock.prints, "alice suicides"));
	assert_non_null(scen_find(s, "bodyque"));
}

static const struct CMUnitTest world_tests[] = {
	cmocka_unit_test_setup_teardown(test_kill_command, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_secret_door, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_hostile_entity_lump, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_key_door, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_player_frames, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_train_follows_corners, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_button_opens_targeted_door, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_trigger_message_and_hurt_with_armour, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_axe_and_quad, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_rocket_jump, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_teleport_telefrags, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_telefrag_crowd, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_timelimit, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_deterministic, scen_fx_setup, scen_fx_teardown),
};

QWD_TEST_GROUP(game_world, world_tests, NULL, NULL)
