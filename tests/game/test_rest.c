/*
 * tests/game/test_rest.c -- the last parts of the deathmatch game: powerup
 * expiry warnings, weapon view kicks and the shaft under water, the map
 * entities of id's misc.qc and triggers.qc that deathmatch maps use, and
 * the rules of deathmatch 1 to 5.
 *
 * Design note: scenarios on small maps written as box brushes
 * (scenario.h), as in test_rules.c.  The expected texts, sounds and
 * times are those of id's QuakeWorld QuakeC: a powerup warns 3 s before
 * it runs out (client.qc's CheckPowerups), the super shotgun's double
 * blast is the only big kick (weapons.qc), deathmatch 2 leaves weapons
 * and never returns items, 3 leaves weapons and returns ammunition after
 * 15 s, 4 and 5 arm the players at spawn (client.qc's PutClientInServer)
 * and leave weapon items out (items.qc).  The axe's delayed blow is in
 * test_world.c (test_axe_and_quad).
 */
#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/game.h"
#include "scenario.h"

#define STAND 25.0f

static int count_str(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/* ---- powerups ------------------------------------------------------------ */

static void powerups_map(struct mapsrc *m)
{
	static const char *const cls[4] = {"item_artifact_super_damage",
		"item_artifact_invulnerability", "item_artifact_invisibility",
		"item_artifact_envirosuit"};

	for (int i = 0; i < 4; i++) {
		char keys[160];

		snprintf(keys, sizeof(keys), "\"classname\" \"%s\" \"origin\" \"0 0 24\"",
			 cls[i]);
		ms_open(m, keys);
		ms_close(m);
	}
}

static void test_powerup_expiry_warnings(void **state)
{
	struct scen *s = *state;
	struct game_entity *p;
	struct game_client *cl;
	double picked;
	int stuffs;
	static const int all = IT_QUAD | IT_INVULNERABILITY | IT_INVISIBILITY | IT_SUIT;

	scen_room_ok(s, powerups_map);
	p = scen_join(s, 0, "alice");
	cl = scen_client(s, 0);
	scen_place(s, 0, -300, 0, STAND, 0);
	scen_run(s, 0.3);		/* the items are on the floor */
	scen_place(s, 0, 0, 0, STAND, 0);
	scen_tick(s);
	picked = s->time;
	assert_int_equal(p->items & all, all);
	assert_true(cl->super_time == 1 && cl->invincible_time == 1);
	assert_true(cl->invisible_time == 1 && cl->rad_time == 1);
	scen_place(s, 0, -300, 0, STAND, 0);
	scen_tick(s);
	/* while they last: quad blue, pentagram red, the ring shows eyes */
	assert_int_equal(p->effects & (EF_DIMLIGHT | EF_BLUE | EF_RED),
			 EF_DIMLIGHT | EF_BLUE | EF_RED);
	assert_int_equal(p->modelindex, mock_model_index(&s->mock, "progs/eyes.mdl"));
	assert_true(mock_sounds(&s->mock, "items/inv3.wav") >= 1);

	/* 26.9 s after the pickup: no warning yet */
	while (s->time < picked + 26.9)
		scen_tick(s);
	assert_null(strstr(s->mock.prints, "wearing off"));
	assert_int_equal(mock_sounds(&s->mock, "items/damage2.wav"), 0);
	stuffs = s->mock.stuff_calls;

	/* past 27 s: each warns once, with its sound and a bonus flash */
	while (s->time < picked + 27.2)
		scen_tick(s);
	assert_int_equal(count_str(s->mock.prints, "Quad Damage is wearing off\n"), 1);
	assert_int_equal(count_str(s->mock.prints, "Protection is almost burned out\n"), 1);
	assert_int_equal(count_str(s->mock.prints, "Ring of Shadows magic is fading\n"), 1);
	assert_int_equal(count_str(s->mock.prints, "Air supply in Biosuit expiring\n"), 1);
	assert_int_equal(mock_sounds(&s->mock, "items/damage2.wav"), 1);
	assert_int_equal(mock_sounds(&s->mock, "items/protect2.wav"), 1);
	assert_int_equal(mock_sounds(&s->mock, "items/inv2.wav"), 1);
	assert_int_equal(mock_sounds(&s->mock, "items/suit2.wav"), 1);
	assert_int_equal(s->mock.stuff_calls - stuffs, 4);
	assert_true(p->effects & EF_BLUE);

	/* a flash a second until the end, no second warning */
	while (s->time < picked + 29.9)
		scen_tick(s);
	assert_int_equal(count_str(s->mock.prints, "Quad Damage is wearing off\n"), 1);
	assert_true(s->mock.stuff_calls - stuffs >= 4 + 4 * 2);
	assert_int_equal(p->items & all, all);

	/* then gone: bits, lights and the eyes */
	while (s->time < picked + 30.1)
		scen_tick(s);
	assert_int_equal(p->items & all, 0);
	assert_int_equal(p->effects & (EF_DIMLIGHT | EF_BLUE | EF_RED), 0);
	assert_int_equal(p->modelindex, mock_model_index(&s->mock, "progs/player.mdl"));
	assert_true(cl->super_damage_finished == 0 && cl->super_time == 0);
	assert_true(cl->radsuit_finished == 0 && cl->rad_time == 0);
	assert_int_equal(mock_sounds(&s->mock, "items/damage2.wav"), 1);
}

/* ---- weapons: kicks and the shaft in water ------------------------------- */

struct kick_case {
	int weapon, ammo;
	int small, big;		/* kicks of one press of 0.05 s */
};

static void test_weapon_kicks(void **state)
{
	struct scen *s = *state;
	static const struct kick_case cases[] = {
		{IT_AXE, 0, 0, 0},
		{IT_SHOTGUN, 10, 1, 0},
		{IT_SUPER_SHOTGUN, 10, 0, 1},
		{IT_SUPER_SHOTGUN, 1, 1, 0},	/* one shell: a shotgun blast */
		{IT_NAILGUN, 50, 1, 0},
		{IT_SUPER_NAILGUN, 50, 1, 0},
		{IT_GRENADE_LAUNCHER, 10, 1, 0},
		{IT_ROCKET_LAUNCHER, 10, 1, 0},
		{IT_LIGHTNING, 50, 1, 0},
	};

	scen_room_ok(s, NULL);
	scen_join(s, 0, "alice");
	scen_place(s, 0, -400, 0, STAND, 0);
	scen_run(s, 0.2);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int small0 = s->mock.kick_calls - s->mock.big_kick_calls;
		int big0 = s->mock.big_kick_calls;

		scen_place(s, 0, -400, 0, STAND, 0);
		scen_give(s, 0, cases[i].weapon, cases[i].ammo);
		scen_client(s, 0)->ammo_shells = cases[i].weapon == IT_SUPER_SHOTGUN ||
			cases[i].weapon == IT_SHOTGUN ? cases[i].ammo : 0;
		scen_hold(s, 0, 0, 0, 0, 0, 1);
		scen_tick(s);
		scen_hold(s, 0, 0, 0, 0, 0, 0);
		scen_run(s, 1.5);	/* the attack and any firing frames end */
		assert_int_equal(s->mock.kick_calls - s->mock.big_kick_calls - small0,
				 cases[i].small);
		assert_int_equal(s->mock.big_kick_calls - big0, cases[i].big);
	}
}

/* a held shaft kicks on every tick it fires (every 0.1 s) */
static void test_lightning_kicks_each_tick(void **state)
{
	struct scen *s = *state;
	int cells;

	scen_room_ok(s, NULL);
	scen_join(s, 0, "alice");
	scen_place(s, 0, -400, 0, STAND, 0);
	scen_run(s, 0.2);
	scen_give(s, 0, IT_LIGHTNING, 50);
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_run(s, 0.55);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	cells = 50 - scen_client(s, 0)->ammo_cells;
	assert_true(cells >= 5);
	assert_int_equal(s->mock.kick_calls, cells);
	assert_int_equal(s->mock.big_kick_calls, 0);
	assert_int_equal(mock_temp_entities(&s->mock, TE_LIGHTNING2), cells);
}

static void test_lightning_discharges_in_water(void **state)
{
	struct scen *s = *state;
	struct mapsrc m;
	char err[256] = "";
	struct game_entity *a, *b, *c;

	ms_init(&m);
	ms_open(&m, "\"classname\" \"worldspawn\"");
	ms_room(&m, -512, -512, 0, 512, 512, 384);
	ms_box(&m, -300, -300, 0, 300, 300, 96, "*water0");
	ms_close(&m);
	ms_open(&m, "\"classname\" \"info_player_deathmatch\" \"origin\" \"-400 -400 24\"");
	ms_close(&m);
	if (scen_start(s, m.text, SCEN_MAX_CLIENTS, SCEN_MAX_ENTITIES, err, sizeof(err)) != 0)
		fprintf(stderr, "scenario: %s\n", err);
	ms_free(&m);
	assert_non_null(s->g);
	a = scen_join(s, 0, "zapper");
	b = scen_join(s, 1, "fish");
	c = scen_join(s, 2, "dry");
	scen_place(s, 0, 0, 0, STAND, 0);
	scen_place(s, 1, 100, 0, STAND, 180);
	scen_place(s, 2, -420, 420, STAND, 0);
	scen_run(s, 0.3);
	assert_true(a->waterlevel > 1);
	scen_give(s, 0, IT_LIGHTNING, 6);
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	/* all 6 cells at once: 210 of splash (reaching 250 units), the
	 * zapper takes half */
	assert_int_equal(scen_client(s, 0)->ammo_cells, 0);
	assert_int_equal(mock_temp_entities(&s->mock, TE_LIGHTNING2), 0);
	assert_true(b->health <= 0);
	assert_true(a->health <= 0);
	assert_int_equal((int)c->health, 100);
	assert_non_null(strstr(s->mock.prints, "fish accepts zapper's discharge"));
	assert_non_null(strstr(s->mock.prints, "zapper discharges into the water."));
}

/* ---- map entities ---------------------------------------------------------- */

static void secret_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"trigger_secret\"");
	ms_box(m, -100, 200, 0, 100, 300, 64, "trigger");
	ms_close(m);
	ms_open(m, "\"classname\" \"trigger_secret\" \"message\" \"psst\" \"sounds\" \"2\"");
	ms_box(m, -100, -300, 0, 100, -200, 64, "trigger");
	ms_close(m);
	ms_open(m, "\"classname\" \"trigger_monsterjump\" \"angle\" \"90\"");
	ms_box(m, 200, -100, 0, 300, 100, 64, "trigger");
	ms_close(m);
}

static void test_trigger_secret_and_monsterjump(void **state)
{
	struct scen *s = *state;
	struct game_entity *p;

	scen_room_ok(s, secret_map);
	assert_int_equal(s->g->total_secrets, 2);
	assert_int_equal(s->g->found_secrets, 0);
	assert_null(strstr(s->mock.logs, "unknown"));
	assert_int_equal(scen_count(s, "trigger_secret"), 2);
	assert_int_equal(scen_count(s, "trigger_monsterjump"), 1);
	p = scen_join(s, 0, "alice");

	/* a player walking through a monster jump is not thrown */
	scen_place(s, 0, 250, 0, STAND, 90);
	scen_run(s, 0.3);
	assert_true(p->velocity[2] == 0 && p->velocity[1] == 0);

	scen_place(s, 0, 0, 250, STAND, 0);
	scen_tick(s);
	assert_int_equal(s->g->found_secrets, 1);
	assert_int_equal(s->mock.found_secret_calls, 1);
	assert_string_equal(s->mock.centerprint, "You found a secret area!");
	assert_int_equal(mock_sounds(&s->mock, "misc/secret.wav"), 1);
	scen_run(s, 1.0);	/* once only: gone 0.1 s later */
	assert_int_equal(s->mock.found_secret_calls, 1);
	assert_int_equal(scen_count(s, "trigger_secret"), 1);

	scen_place(s, 0, 0, -250, STAND, 0);
	scen_tick(s);
	assert_int_equal(s->g->found_secrets, 2);
	assert_string_equal(s->mock.centerprint, "psst");
	assert_int_equal(mock_sounds(&s->mock, "misc/talk.wav"), 1);
}

static void relay_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"trigger_multiple\" \"target\" \"count\" \"wait\" \"1\"");
	ms_box(m, -100, 200, 0, 100, 300, 64, "trigger");
	ms_close(m);
	ms_open(m, "\"classname\" \"trigger_counter\" \"targetname\" \"count\" \"target\" \"relay\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"trigger_relay\" \"targetname\" \"relay\" \"target\" \"wall\" "
		"\"delay\" \"0.5\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"func_wall\" \"targetname\" \"wall\"");
	ms_box(m, 300, 300, 0, 332, 332, 64, "wall");
	ms_close(m);
}

static void test_counter_and_relay(void **state)
{
	struct scen *s = *state;
	struct game_entity *wall;

	scen_room_ok(s, relay_map);
	wall = scen_find(s, "func_wall");
	assert_non_null(wall);
	assert_int_equal(wall->frame, 0);
	scen_join(s, 0, "alice");
	scen_place(s, 0, 0, 250, STAND, 0);
	scen_tick(s);
	assert_string_equal(s->mock.centerprint, "Only 1 more to go...");
	scen_run(s, 1.2);	/* the trigger fires again after its wait */
	assert_string_equal(s->mock.centerprint, "Sequence completed!");
	/* the relay's delay: the wall switches its look 0.5 s later */
	assert_int_equal(wall->frame, 0);
	scen_place(s, 0, -300, 0, STAND, 0);
	scen_run(s, 0.6);
	assert_int_equal(wall->frame, 1);
}

static void misc_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"info_null\" \"origin\" \"0 0 100\" \"targetname\" \"x\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"info_notnull\" \"origin\" \"0 0 100\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"light\" \"origin\" \"0 0 200\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"light\" \"origin\" \"0 0 200\" \"targetname\" \"lamp\" "
		"\"style\" \"33\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"light_torch_small_walltorch\" \"origin\" \"-496 0 100\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"light_flame_large_yellow\" \"origin\" \"-400 0 40\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"light_fluoro\" \"origin\" \"0 400 300\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"ambient_drip\" \"origin\" \"0 -400 300\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"ambient_thunder\" \"origin\" \"0 -400 300\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"air_bubbles\" \"origin\" \"0 -400 30\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"misc_fireball\" \"origin\" \"400 400 30\" \"speed\" \"300\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"func_episodegate\" \"spawnflags\" \"1\"");
	ms_box(m, -200, 400, 0, -100, 500, 128, "wall");
	ms_close(m);
	ms_open(m, "\"classname\" \"func_bossgate\"");
	ms_box(m, 100, 400, 0, 200, 500, 128, "wall");
	ms_close(m);
	ms_open(m, "\"classname\" \"trigger_once\" \"target\" \"lamp\"");
	ms_box(m, -100, 200, 0, 100, 300, 64, "trigger");
	ms_close(m);
	ms_open(m, "\"classname\" \"light_bogus\" \"origin\" \"1 2 3\"");
	ms_close(m);
}

static void test_lights_ambients_and_misc(void **state)
{
	struct scen *s = *state;
	struct game_entity *torch, *gate;
	int statics = 0;

	scen_room_ok(s, misc_map);
	assert_null(scen_find(s, "info_null"));
	assert_non_null(scen_find(s, "info_notnull"));
	assert_null(scen_find(s, "air_bubbles"));
	assert_null(scen_find(s, "func_episodegate"));
	gate = scen_find(s, "func_bossgate");
	assert_non_null(gate);
	assert_int_equal(gate->obj->solid, SOLID_BSP);
	/* the inert light and the tube are gone, the switched one stays */
	assert_int_equal(scen_count(s, "light"), 1);
	assert_null(scen_find(s, "light_fluoro"));
	/* the worldspawn's 13 styles (id's 0-11 and 63), then the light's */
	assert_int_equal(s->mock.lightstyle_calls, 13 + 1);
	assert_int_equal(s->mock.last_style, 33);
	assert_string_equal(s->mock.last_style_value, "m");
	/* torches and flames: static models; their fire, the tube's hum and
	 * the ambients: static sounds */
	torch = scen_find(s, "light_torch_small_walltorch");
	assert_non_null(torch);
	assert_true(torch->is_static);
	assert_int_equal(torch->modelindex, mock_model_index(&s->mock, "progs/flame.mdl"));
	assert_int_equal(scen_find(s, "light_flame_large_yellow")->frame, 1);
	for (int i = 1; i < s->g->num_entities; i++)
		statics += s->g->ents[i].inuse && s->g->ents[i].is_static;
	assert_int_equal(statics, 2);
	assert_int_equal(count_str(s->mock.static_names, "ambience/fire1.wav"), 2);
	assert_int_equal(count_str(s->mock.static_names, "ambience/fl_hum1.wav"), 1);
	assert_int_equal(count_str(s->mock.static_names, "ambience/drip1.wav"), 1);
	assert_int_equal(count_str(s->mock.static_names, "ambience/thunder1.wav"), 1);
	assert_null(scen_find(s, "ambient_drip"));
	/* only the made-up class is unknown, reported once */
	assert_int_equal(count_str(s->mock.logs, "unknown classname"), 1);
	assert_non_null(strstr(s->mock.logs, "light_bogus"));

	/* a player fires the trigger: the light goes out */
	scen_join(s, 0, "alice");
	scen_place(s, 0, 0, 250, STAND, 0);
	scen_tick(s);
	assert_int_equal(s->mock.lightstyle_calls, 13 + 2);
	assert_string_equal(s->mock.last_style_value, "a");

	/* the fire pit throws lava balls within 8 s */
	{
		bool thrown = false;

		for (int i = 0; i < 700 && !thrown; i++) {
			scen_tick(s);
			for (int k = 1; k < s->g->num_entities; k++)
				if (s->g->ents[k].inuse && s->g->ents[k].movetype == MOVETYPE_TOSS &&
				    s->g->ents[k].modelindex ==
				    mock_model_index(&s->mock, "progs/lavaball.mdl"))
					thrown = true;
		}
		assert_true(thrown);
	}
}

static void explobox_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"misc_explobox\" \"origin\" \"0 0 40\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"misc_explobox2\" \"origin\" \"0 200 40\"");
	ms_close(m);
}

static void test_explobox(void **state)
{
	struct scen *s = *state;
	struct game_entity *box, *box2, *a, *b;

	scen_room_ok(s, explobox_map);
	box = scen_find(s, "misc_explobox");
	box2 = scen_find(s, "misc_explobox2");
	assert_non_null(box);
	assert_non_null(box2);
	/* dropped to the floor, solid, shootable */
	assert_true(box->obj->origin[2] < 1);
	assert_int_equal(box->obj->solid, SOLID_BBOX);
	assert_int_equal((int)box->obj->maxs[2], 64);
	assert_int_equal((int)box2->obj->maxs[2], 32);
	assert_int_equal(box->modelindex, mock_model_index(&s->mock, "maps/b_explob.bsp"));
	a = scen_join(s, 0, "alice");
	b = scen_join(s, 1, "bob");
	scen_place(s, 0, -400, 16, STAND, 0);
	scen_place(s, 1, 16, -60, STAND, 0);
	scen_run(s, 0.2);
	scen_give(s, 0, IT_ROCKET_LAUNCHER, 5);
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	scen_run(s, 0.5);
	/* the rocket's blast and the box's (160) */
	assert_null(scen_find(s, "misc_explobox"));
	assert_null(scen_find(s, "explo_box"));
	assert_true(mock_temp_entities(&s->mock, TE_EXPLOSION) >= 2);
	assert_true(b->health <= 0);
	assert_non_null(strstr(s->mock.prints, "bob blew up\n"));
	assert_int_equal((int)a->health, 100);
}

static void traps_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"trap_shooter\" \"origin\" \"-400 0 40\" \"angle\" \"0\" "
		"\"wait\" \"0.5\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"trap_spikeshooter\" \"origin\" \"-400 300 40\" "
		"\"angle\" \"0\" \"targetname\" \"zap\" \"spawnflags\" \"2\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"trigger_once\" \"target\" \"zap\"");
	ms_box(m, 200, 200, 0, 300, 400, 64, "trigger");
	ms_close(m);
}

static void test_traps(void **state)
{
	struct scen *s = *state;
	struct game_entity *p;
	bool laser = false;

	scen_room_ok(s, traps_map);
	assert_null(strstr(s->mock.logs, "unknown"));
	p = scen_join(s, 0, "alice");
	scen_place(s, 0, 0, 0, STAND, 0);
	scen_run(s, 1.2);
	/* a nail every 0.5 s from the start, 9 damage each */
	assert_true(mock_sounds(&s->mock, "weapons/spike2.wav") >= 2);
	assert_true(p->health < 100);
	assert_int_equal((100 - (int)p->health) % 9, 0);
	assert_int_equal(mock_model_index(&s->mock, "progs/laser.mdl") > 0, 1);
	/* the targeted one fires its laser when the trigger is touched */
	scen_place(s, 0, 250, 300, STAND, 0);
	scen_tick(s);
	for (int i = 1; i < s->g->num_entities; i++)
		laser |= s->g->ents[i].inuse && strcmp(s->g->ents[i].classname, "laser") == 0;
	assert_true(laser);
	assert_int_equal(mock_sounds(&s->mock, "enforcer/enfire.wav"), 1);
}

/* ---- deathmatch modes ------------------------------------------------------ */

static void dm_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"weapon_rocketlauncher\" \"origin\" \"-300 200 0\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"item_shells\" \"origin\" \"0 200 0\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"item_armor1\" \"origin\" \"300 200 0\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"item_health\" \"origin\" \"300 -200 0\"");
	ms_close(m);
}

struct dm_world {
	struct game_entity *p, *rl, *shells, *armor, *health;
};

static void dm_start(struct scen *s, int dm, struct dm_world *w)
{
	s->mock.deathmatch = (float)dm;
	scen_room_ok(s, dm_map);
	w->rl = scen_find(s, "weapon_rocketlauncher");
	w->shells = scen_find(s, "item_shells");
	w->armor = scen_find(s, "item_armor1");
	w->health = scen_find(s, "item_health");
	w->p = scen_join(s, 0, "alice");
	scen_place(s, 0, -400, -400, STAND, 0);
	scen_run(s, 0.3);
}

/* walk onto the items in turn, as hurt and as short of shells as asked */
static void take_all(struct scen *s, struct dm_world *w)
{
	static const float spots[4][2] = {{-284, 216}, {16, 216}, {300, 200}, {316, -184}};

	w->p->health = 50;
	w->p->armorvalue = 0;
	w->p->armortype = 0;
	scen_client(s, 0)->ammo_shells = 5;
	for (int i = 0; i < 4; i++) {
		scen_place(s, 0, spots[i][0], spots[i][1], STAND, 0);
		scen_tick(s);
	}
	scen_place(s, 0, -400, -400, STAND, 0);
	scen_tick(s);
}

static void test_deathmatch_1(void **state)
{
	struct scen *s = *state;
	struct dm_world w;

	dm_start(s, 1, &w);
	assert_int_equal(w.p->items & (IT_AXE | IT_SHOTGUN | IT_ROCKET_LAUNCHER),
			 IT_AXE | IT_SHOTGUN);
	assert_int_equal(scen_client(s, 0)->ammo_shells, 25);
	take_all(s, &w);
	assert_true(w.p->items & IT_ROCKET_LAUNCHER);
	assert_int_equal(w.rl->modelindex, 0);		/* taken away */
	assert_int_equal(w.shells->modelindex, 0);
	assert_int_equal(w.armor->modelindex, 0);
	assert_int_equal(w.health->modelindex, 0);
	scen_run(s, 20.5);	/* armour, health: 20 s */
	assert_true(w.armor->modelindex != 0);
	assert_true(w.health->modelindex != 0);
	assert_int_equal(w.shells->modelindex, 0);
	scen_run(s, 10);	/* weapons and ammunition: 30 s */
	assert_true(w.rl->modelindex != 0);
	assert_true(w.shells->modelindex != 0);
}

static void test_deathmatch_2(void **state)
{
	struct scen *s = *state;
	struct dm_world w;

	dm_start(s, 2, &w);
	take_all(s, &w);
	assert_true(w.p->items & IT_ROCKET_LAUNCHER);
	assert_int_equal(scen_client(s, 0)->ammo_rockets, 5);
	assert_true(w.rl->modelindex != 0);		/* weapons stay */
	assert_int_equal(w.rl->obj->solid, SOLID_TRIGGER);
	/* and give nothing to who has one */
	scen_place(s, 0, -284, 216, STAND, 0);
	scen_tick(s);
	assert_int_equal(scen_client(s, 0)->ammo_rockets, 5);
	/* nothing else ever comes back */
	scen_run(s, 60);
	assert_int_equal(w.shells->modelindex, 0);
	assert_int_equal(w.armor->modelindex, 0);
	assert_int_equal(w.health->modelindex, 0);
}

static void test_deathmatch_3(void **state)
{
	struct scen *s = *state;
	struct dm_world w;

	dm_start(s, 3, &w);
	take_all(s, &w);
	assert_true(w.p->items & IT_ROCKET_LAUNCHER);
	assert_true(w.rl->modelindex != 0);		/* weapons stay */
	assert_int_equal(w.shells->modelindex, 0);
	scen_run(s, 14.5);
	assert_int_equal(w.shells->modelindex, 0);
	scen_run(s, 1);		/* ammunition: 15 s */
	assert_true(w.shells->modelindex != 0);
	assert_int_equal(w.armor->modelindex, 0);
	scen_run(s, 5);		/* armour as in 1: 20 s */
	assert_true(w.armor->modelindex != 0);
}

static void test_deathmatch_4(void **state)
{
	struct scen *s = *state;
	struct dm_world w;
	struct game_client *cl;
	struct game_entity *b;
	static const int arsenal = IT_AXE | IT_SHOTGUN | IT_SUPER_SHOTGUN | IT_NAILGUN |
				   IT_SUPER_NAILGUN | IT_ROCKET_LAUNCHER | IT_LIGHTNING;

	dm_start(s, 4, &w);
	cl = scen_client(s, 0);
	/* no weapons or ammunition on the floor; armour and health are */
	assert_null(w.rl);
	assert_null(w.shells);
	assert_non_null(w.armor);
	/* armed at spawn: all but the grenade launcher, 255 of everything,
	 * red armour, 250 health, 3 s of the pentagram */
	assert_int_equal(w.p->items & (arsenal | IT_GRENADE_LAUNCHER), arsenal);
	assert_true(w.p->items & IT_ARMOR3);
	assert_int_equal(cl->ammo_shells, 255);
	assert_int_equal(cl->ammo_cells, 255);
	assert_int_equal((int)w.p->health, 250);
	assert_int_equal((int)w.p->armorvalue, 200);
	assert_true(w.p->items & IT_INVULNERABILITY);
	assert_true(cl->invincible_finished > s->time && cl->invincible_finished <= s->time + 3);
	/* while protected nothing heals or armours */
	w.p->health = 50;
	scen_place(s, 0, 316, -184, STAND, 0);
	scen_tick(s);
	assert_int_equal((int)w.p->health, 50);
	scen_place(s, 0, -400, -400, STAND, 0);
	scen_run(s, 3);
	assert_false(w.p->items & IT_INVULNERABILITY);
	scen_place(s, 0, 316, -184, STAND, 0);
	scen_tick(s);
	assert_int_equal((int)w.p->health, 75);
	/* firing uses no ammunition; the axe does 75 */
	b = scen_join(s, 1, "bob");
	scen_place(s, 0, 0, 0, STAND, 0);
	scen_place(s, 1, 40, 0, STAND, 180);
	scen_run(s, 3.1);	/* bob's pentagram ends */
	w.p->weapon = IT_ROCKET_LAUNCHER;
	scen_hold(s, 0, 0, 180, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 180, 0, 0, 0);
	assert_int_equal(cl->ammo_rockets, 255);
	scen_run(s, 1);
	b->health = 200;
	b->armorvalue = 0;
	b->armortype = 0;
	w.p->weapon = IT_AXE;
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	scen_run(s, 0.3);
	assert_int_equal((int)b->health, 125);
}

static void test_deathmatch_4_backpack_is_health(void **state)
{
	struct scen *s = *state;
	struct dm_world w;
	struct game_entity *b, *pack = NULL;

	dm_start(s, 4, &w);
	b = scen_join(s, 1, "bob");
	scen_place(s, 0, 0, 0, STAND, 0);
	scen_place(s, 1, 40, 0, STAND, 180);
	scen_run(s, 3.1);	/* the spawn pentagrams end */
	b->health = 1;
	b->armorvalue = 0;
	b->armortype = 0;
	w.p->weapon = IT_AXE;
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	scen_run(s, 0.3);
	assert_true(b->health <= 0);
	for (int i = 1; i < s->g->num_entities; i++)
		if (s->g->ents[i].inuse && strcmp(s->g->ents[i].classname, "backpack") == 0)
			pack = &s->g->ents[i];
	assert_non_null(pack);
	scen_run(s, 1.0);	/* on the floor */
	w.p->health = 100;
	scen_place(s, 0, pack->obj->origin[0], pack->obj->origin[1], STAND, 0);
	scen_tick(s);
	assert_int_equal((int)w.p->health, 110);
	assert_non_null(strstr(s->mock.prints, "You get 10 additional health\n"));
}

static void test_deathmatch_5(void **state)
{
	struct scen *s = *state;
	struct dm_world w;
	struct game_client *cl;

	dm_start(s, 5, &w);
	cl = scen_client(s, 0);
	assert_null(w.rl);		/* no weapon items */
	assert_non_null(w.shells);	/* ammunition stays */
	assert_true(w.p->items & IT_GRENADE_LAUNCHER);
	assert_true(w.p->items & IT_LIGHTNING);
	assert_int_equal(cl->ammo_shells, 30);
	assert_int_equal(cl->ammo_nails, 80);
	assert_int_equal(cl->ammo_rockets, 10);
	assert_int_equal(cl->ammo_cells, 30);
	assert_int_equal((int)w.p->health, 200);
	assert_int_equal((int)w.p->armorvalue, 200);
	assert_true(w.p->items & IT_INVULNERABILITY);
	take_all(s, &w);
	assert_int_equal(w.shells->modelindex, 0);
	scen_run(s, 15.5);	/* ammunition after 15 s, as in 3 */
	assert_true(w.shells->modelindex != 0);
	/* ammunition is used */
	scen_give(s, 0, IT_ROCKET_LAUNCHER, 10);
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	assert_int_equal(cl->ammo_rockets, 9);
}

/* a backpack's message lists what it gave, without a stray comma */
static void test_backpack_message(void **state)
{
	struct scen *s = *state;
	struct game_entity *a, *b, *pack = NULL;

	scen_room_ok(s, NULL);
	a = scen_join(s, 0, "alice");
	b = scen_join(s, 1, "bob");
	scen_place(s, 0, -100, 0, STAND, 0);
	scen_place(s, 1, 100, 0, STAND, 180);
	scen_run(s, 0.2);
	scen_client(s, 1)->ammo_shells = 7;
	scen_client(s, 1)->ammo_rockets = 3;
	b->health = 1;
	scen_give(s, 0, IT_SHOTGUN, 10);
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	assert_true(b->health <= 0);
	for (int i = 1; i < s->g->num_entities; i++)
		if (s->g->ents[i].inuse && strcmp(s->g->ents[i].classname, "backpack") == 0)
			pack = &s->g->ents[i];
	assert_non_null(pack);
	scen_run(s, 1.5);
	scen_place(s, 0, pack->obj->origin[0], pack->obj->origin[1], STAND, 0);
	scen_tick(s);
	assert_non_null(strstr(s->mock.prints, "You get 7 shells, 3 rockets\n"));
	assert_int_equal(a->weapon, IT_SHOTGUN);
}

static const struct CMUnitTest rest_tests[] = {
	cmocka_unit_test_setup_teardown(test_powerup_expiry_warnings, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_weapon_kicks, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_lightning_kicks_each_tick, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_lightning_discharges_in_water, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_trigger_secret_and_monsterjump, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_counter_and_relay, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_lights_ambients_and_misc, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_explobox, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_traps, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_deathmatch_1, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_deathmatch_2, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_deathmatch_3, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_deathmatch_4, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_deathmatch_4_backpack_is_health, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_deathmatch_5, scen_fx_setup, scen_fx_teardown),
	cmocka_unit_test_setup_teardown(test_backpack_message, scen_fx_setup, scen_fx_teardown),
};

QWD_TEST_GROUP(game_rest, rest_tests, NULL, NULL)
