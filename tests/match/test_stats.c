/*
 * test_stats.c -- the match statistics (src/match/stats.c, stats_json.c)
 * driven by a game in memory: scripted players fire known shots, hit,
 * kill and pick up items, with the game's events hooked to the
 * statistics; the counts, the end prints and the JSON file (read back
 * with jansson) must say what the script did.
 *
 * Design note: the scenario helpers of tests/game make the game (a room,
 * players placed and holding commands); the figures expected are KTX's
 * (src/match/stats.h says what each means).  The JSON's key structure is
 * checked against tests/match/stats_keys.txt, a list of key paths written
 * for these tests from KTX's stats_json.c (no values).
 */
#include "../harness.h"

/* jansson's json_null() and the project's writer's share a name: jansson's
 * is renamed here (these tests never call it) */
#define json_null jansson_json_null
#include <jansson.h>
#undef json_null
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/match/stats.h"
#include "../game/scenario.h"
#include "qwd/game.h"

#define STAND 25.0f

struct fx {
	struct scen s;
	struct match_stats st;
	struct game_events ev;
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	scen_free(&f->s);
	free(f);
	return 0;
}

/* a room, the events hooked, a match begun, players joined */
static void start(struct fx *f, void (*extra)(struct mapsrc *m), int teamplay,
		  int nplayers)
{
	static const char *const names[] = {"alice", "bob", "carol"};
	static const char *const teams[] = {"red", "blue", "red"};

	f->s.mock.teamplay = (float)teamplay;
	scen_room_ok(&f->s, extra);
	stats_events(&f->st, &f->ev);
	game_set_events(f->s.g, &f->ev);
	stats_begin(&f->st, f->s.g->time, 1, teamplay, 10, 0);
	for (int i = 0; i < nplayers; i++) {
		stats_player_set(&f->st, i, names[i], teamplay ? teams[i] : "",
				 4, 4 + i, 12);
		if (teamplay)
			game_client_userinfo(f->s.g, i, names[i], teams[i], 4 + i);
		scen_join(&f->s, i, names[i]);
		if (teamplay)
			game_client_userinfo(f->s.g, i, names[i], teams[i], 4 + i);
	}
}

/* Quake's red text of s, for the expected lines */
static const char *red(char *out, const char *s)
{
	size_t i = 0;

	for (; s[i]; i++)
		out[i] = (char)((unsigned char)s[i] | 0x80);
	out[i] = 0;
	return out;
}

/* two players facing each other at -x and x, slot 0 fires one shot of
 * weapon, then the game runs for `after` seconds */
static void duel_shot(struct fx *f, float x, int weapon, double after)
{
	struct scen *s = &f->s;

	start(f, NULL, 0, 2);
	scen_place(s, 0, -x, 0, STAND, 0);
	scen_place(s, 1, x, 0, STAND, 180);
	scen_run(s, 0.2);
	scen_give(s, 0, weapon, 10);
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	scen_run(s, after);
}

/* alice at -200, bob at 200 facing each other; alice's rocket kills bob */
static void rocket_kill(struct fx *f)
{
	duel_shot(f, 200, IT_ROCKET_LAUNCHER, 0.6);
	assert_true(scen_player(&f->s, 1)->health <= 0);
}

static void test_rocket_kill_counts(void **state)
{
	struct fx *f = *state;
	const struct stats_player *a, *b;

	rocket_kill(f);
	a = &f->st.pl[0];
	b = &f->st.pl[1];
	assert_int_equal(a->wpn[GAME_WP_RL].attacks, 1);
	assert_int_equal(a->wpn[GAME_WP_RL].hits, 1);	/* a direct hit */
	assert_int_equal(a->wpn[GAME_WP_RL].kills, 1);
	assert_int_equal(a->wpn[GAME_WP_RL].vhits, 1);
	assert_int_equal(b->wpn[GAME_WP_RL].deaths, 1);
	assert_int_equal(a->frags, 1);
	assert_int_equal(a->kills, 1);
	assert_int_equal(b->deaths, 1);
	assert_int_equal(b->suicides, 0);
	/* bob's shotgun goes in no backpack */
	assert_int_equal(b->wpn[GAME_WP_SG].drops, 0);
	assert_int_equal(b->frags, 0);
	/* 100..120 on 100 health: the damage dealt is the health there was */
	assert_int_equal((int)a->dmg_g, 100);
	assert_int_equal((int)b->dmg_t, 100);
	assert_int_equal((int)a->dmg_self, 0);
	assert_int_equal(a->wpn[GAME_WP_RL].edamage, 100);
	assert_int_equal(stats_to_die(b), 100);
	assert_int_equal(stats_to_die(a), 99999);
	/* bob spawned less than 2 s before he died */
	assert_int_equal(a->spawn_frags, 1);
	assert_true(fabs(stats_efficiency(a) - 100.0) < 1e-9);
	assert_true(fabs(stats_efficiency(b)) < 1e-9);
	assert_true(f->st.duel);
	/* the game's own frag count agrees */
	assert_int_equal(scen_client(&f->s, 0)->frags, a->frags);
	/* and after alice's "kill" command (2 frags, a death, a suicide;
	 * her health as self damage, as KTX's T_Damage of 999999 counts) */
	{
		float self = a->dmg_self;
		float health = scen_player(&f->s, 0)->health;

		game_client_kill(f->s.g, 0);
		assert_true(health > 0);
		assert_true(fabs(a->dmg_self - self - health) < 1e-3);
	}
	assert_int_equal(a->frags, -1);
	assert_int_equal(scen_client(&f->s, 0)->frags, a->frags);
	assert_int_equal(a->deaths, 1);
	assert_int_equal(a->suicides, 1);
}

static void test_end_prints(void **state)
{
	struct fx *f = *state;
	static char buf[16384];
	struct stats_text t;
	char r1[64], r2[64], r3[64], want[256];

	rocket_kill(f);
	stats_endgame(&f->st, 0, 100, 0, 0);
	stats_end(&f->st, f->s.g->time);
	stats_text_init(&t, buf, sizeof(buf));
	stats_print_end(&f->st, &t);
	assert_false(t.truncated);
	assert_non_null(strstr(buf, red(r1, "Player statistics")));
	assert_non_null(strstr(buf, "\207 alice:\n  1 (1) 100.0%\n"));
	assert_non_null(strstr(buf, "\207 bob:\n  0 (-1) 0.0%\n"));
	snprintf(want, sizeof(want), "%s: %s100.0%% (1/1)\n", red(r1, "Wp"),
		 red(r2, "rl"));
	assert_non_null(strstr(buf, want));
	snprintf(want, sizeof(want), "%s: %s:100.0 %s:1\n", red(r1, "RL skill"),
		 red(r2, "ad"), red(r3, "dh"));
	assert_non_null(strstr(buf, want));
	snprintf(want, sizeof(want), "  %s: 1\n", red(r1, "SpawnFrags"));
	assert_non_null(strstr(buf, want));
	snprintf(want, sizeof(want), " %s: %s:100 %s:0\n", red(r1, "EndGame"),
		 red(r2, "H"), red(r3, "A"));
	assert_non_null(strstr(buf, want));
	assert_non_null(strstr(buf, red(r1, "ToDie")));
	/* laststats gives the same text after the match */
	stats_text_init(&t, buf, sizeof(buf));
	stats_print_last(&f->st, &t);
	assert_int_equal(t.len, f->st.last_len);
	assert_memory_equal(buf, f->st.last, t.len);
	/* effi: a line per player */
	stats_text_init(&t, buf, sizeof(buf));
	stats_print_effi(&f->st, &t);
	assert_non_null(strstr(buf, "alice"));
	assert_non_null(strstr(buf, "100.0%"));
	/* a small buffer is cut, never overrun */
	{
		char small[40];

		memset(small, 'x', sizeof(small));
		stats_text_init(&t, small, 32);
		stats_print_end(&f->st, &t);
		assert_true(t.truncated);
		assert_int_equal(t.len, 31);
		assert_int_equal(small[31], 0);
		assert_int_equal(small[32], 'x');
	}
}

static void test_shotgun_pellets(void **state)
{
	struct fx *f = *state;
	struct scen *s = &f->s;
	const struct stats_player *a, *b;
	int hits;

	duel_shot(f, 60, IT_SHOTGUN, 0.2);
	a = &f->st.pl[0];
	b = &f->st.pl[1];
	/* KTX counts each of the 6 pellets */
	assert_int_equal(a->wpn[GAME_WP_SG].attacks, 6);
	hits = a->wpn[GAME_WP_SG].hits;
	assert_true(hits >= 1 && hits <= 6);
	assert_int_equal(a->wpn[GAME_WP_SG].edamage, 4 * hits);
	assert_int_equal((int)b->dmg_t, 4 * hits);
	assert_int_equal((int)(100 - scen_player(s, 1)->health), 4 * hits);
	assert_true(fabs(stats_accuracy(&a->wpn[GAME_WP_SG]) - hits * 100.0 / 6) < 1e-9);
	assert_int_equal(b->wpn[GAME_WP_SG].attacks, 0);
}

/* the lightning gun: an attack per cell fired, a hit per beam on bob;
 * 30 a beam on 100 health: 30 + 30 + 30 + 10 dealt */
static void test_lightning_beams(void **state)
{
	struct fx *f = *state;
	struct scen *s = &f->s;
	const struct stats_player *a;

	start(f, NULL, 0, 2);
	scen_place(s, 0, -100, 0, STAND, 0);
	scen_place(s, 1, 100, 0, STAND, 180);
	scen_run(s, 0.2);
	scen_give(s, 1, IT_ROCKET_LAUNCHER, 5);	/* bob holds an rl */
	scen_give(s, 0, IT_LIGHTNING, 50);
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_run(s, 0.6);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	scen_run(s, 0.2);
	a = &f->st.pl[0];
	assert_true(scen_player(s, 1)->health <= 0);
	assert_int_equal(a->wpn[GAME_WP_LG].attacks, 50 - scen_client(s, 0)->ammo_cells);
	assert_true(a->wpn[GAME_WP_LG].hits >= 4);
	assert_int_equal(a->wpn[GAME_WP_LG].kills, 1);
	assert_int_equal((int)a->dmg_g, 100);
	assert_int_equal(a->wpn[GAME_WP_LG].edamage, 100);
	assert_int_equal(f->st.pl[1].deaths, 1);
	assert_int_equal((int)f->st.pl[1].dmg_t, 100);
	/* his backpack carries the rl: a drop; the kill took an rl from an
	 * enemy (KTX counts every weapon the victim carried) */
	assert_int_equal(f->st.pl[1].wpn[GAME_WP_RL].drops, 1);
	assert_int_equal(a->wpn[GAME_WP_RL].ekills, 1);
	assert_int_equal(a->wpn[GAME_WP_SG].ekills, 1);
	assert_int_equal(a->wpn[GAME_WP_LG].ekills, 0);
	assert_int_equal((int)a->dmg_eweapon, 100);
}

static void items_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"item_armor2\" \"origin\" \"0 200 0\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"item_health\" \"spawnflags\" \"2\" \"origin\" \"0 -200 0\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"item_artifact_super_damage\" \"origin\" \"300 200 24\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"weapon_rocketlauncher\" \"origin\" \"-300 200 0\"");
	ms_close(m);
}

static void test_items_and_quad_time(void **state)
{
	struct fx *f = *state;
	struct scen *s = &f->s;
	const struct stats_player *a;

	start(f, items_map, 0, 2);
	scen_place(s, 0, -400, -400, STAND, 0);
	scen_place(s, 1, 400, -400, STAND, 0);
	scen_run(s, 0.3);
	scen_place(s, 0, 16, 216, STAND, 0);	/* the yellow armour */
	scen_tick(s);
	scen_place(s, 0, 16, -184, STAND, 0);	/* the mega health */
	scen_tick(s);
	scen_place(s, 0, -300, 200, STAND, 0);	/* the rocket launcher */
	scen_tick(s);
	scen_place(s, 0, 300, 200, STAND, 0);	/* the quad */
	scen_tick(s);
	scen_place(s, 0, -400, -400, STAND, 0);
	a = &f->st.pl[0];
	assert_int_equal(a->itm[STATS_IT_YA].tooks, 1);	/* item_armor2: yellow */
	assert_int_equal(a->itm[STATS_IT_H100].tooks, 1);
	assert_int_equal(a->itm[STATS_IT_QUAD].tooks, 1);
	assert_int_equal(a->wpn[GAME_WP_RL].tooks, 1);
	assert_int_equal(a->wpn[GAME_WP_RL].stooks, 1);
	assert_int_equal(a->wpn[GAME_WP_RL].ttooks, 1);
	/* the quad runs out after 30 s: held 30 s */
	scen_run(s, 31);
	assert_true(a->itm[STATS_IT_QUAD].since < 0);
	assert_int_equal((int)(a->itm[STATS_IT_QUAD].time + 0.5), 30);
	stats_end(&f->st, s->g->time);
	/* the armour counted until the end */
	assert_true(a->itm[STATS_IT_YA].time > 30);
	assert_int_equal(f->st.pl[1].itm[STATS_IT_YA].tooks, 0);
}

static void test_team_kill(void **state)
{
	struct fx *f = *state;
	struct scen *s = &f->s;
	const struct stats_player *a;
	static char buf[16384];
	struct stats_text t;

	start(f, NULL, 2, 3);	/* alice and carol red, bob blue */
	scen_place(s, 0, -200, 0, STAND, 0);
	scen_place(s, 2, 200, 0, STAND, 180);
	scen_place(s, 1, 0, 300, STAND, 0);
	scen_run(s, 0.2);
	assert_string_equal(scen_client(s, 2)->team, "red");
	scen_give(s, 0, IT_ROCKET_LAUNCHER, 10);
	scen_hold(s, 0, 0, 0, 0, 0, 1);
	scen_tick(s);
	scen_hold(s, 0, 0, 0, 0, 0, 0);
	scen_run(s, 0.6);
	assert_true(scen_player(s, 2)->health <= 0);
	a = &f->st.pl[0];
	assert_int_equal(a->friendly, 1);
	assert_int_equal(a->frags, -1);
	assert_int_equal(a->wpn[GAME_WP_RL].tkills, 1);
	assert_int_equal((int)a->dmg_team, 100);
	assert_int_equal((int)a->dmg_g, 0);
	assert_int_equal(f->st.pl[2].deaths, 1);
	assert_false(f->st.duel);
	stats_end(&f->st, s->g->time);
	stats_text_init(&t, buf, sizeof(buf));
	stats_print_end(&f->st, &t);
	assert_non_null(strstr(buf, "Team \220red\221:\n"));
	assert_non_null(strstr(buf, "\220red\221: -1 \217 0.0%\n"));
	assert_non_null(strstr(buf, "\220blue\221: 0 \217 0.0%\n"));
}

/* deaths without an enemy, by events alone: the world's and one's own */
static void test_world_death_and_suicide(void **state)
{
	struct fx *f = *state;
	struct game_ev_kill k = {.killer = -1, .victim = 0,
		.deathtype = DT_FALLING, .weapon = GAME_WP_NONE,
		.flags = GAME_KILL_WORLD};
	const struct stats_player *p = &f->st.pl[0];

	stats_begin(&f->st, 1.0, 1, 0, 0, 0);
	stats_player_set(&f->st, 0, "alice", "", 0, 0, 0);
	stats_on_kill(&f->st, 2.0, &k);
	assert_int_equal(p->frags, -1);
	assert_int_equal(p->deaths, 1);
	assert_int_equal(p->suicides, 0);
	k.killer = 0;
	k.deathtype = DT_ROCKET;
	k.weapon = GAME_WP_RL;
	k.flags = GAME_KILL_SUICIDE;
	stats_on_kill(&f->st, 3.0, &k);
	assert_int_equal(p->frags, -2);
	assert_int_equal(p->deaths, 2);
	assert_int_equal(p->suicides, 1);
	assert_int_equal(p->wpn[GAME_WP_RL].suicides, 1);
	assert_int_equal(p->wpn[GAME_WP_RL].deaths, 0);
	assert_true(stats_efficiency(p) == 0);
	/* the kill command: the game takes 2 frags */
	k.deathtype = DT_NONE;
	k.weapon = GAME_WP_NONE;
	k.flags = GAME_KILL_SUICIDE | GAME_KILL_COMMAND;
	stats_on_kill(&f->st, 3.5, &k);
	assert_int_equal(p->frags, -4);
	assert_int_equal(p->suicides, 2);
	assert_int_equal(p->deaths, 3);
	/* after the end nothing counts */
	stats_end(&f->st, 4.0);
	stats_on_kill(&f->st, 5.0, &k);
	assert_int_equal(p->deaths, 3);
}

static void test_names_bounded(void **state)
{
	struct fx *f = *state;
	char longname[200];

	(void)f;
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	stats_begin(&f->st, 1.0, 1, 0, 0, 0);
	stats_player_set(&f->st, 3, longname, longname, 0, 0, 0);
	assert_int_equal(strlen(f->st.pl[3].name), STATS_NAME - 1);
	assert_int_equal(strlen(f->st.pl[3].team), STATS_TEAM - 1);
	stats_player_set(&f->st, 3, NULL, NULL, 0, 0, 0);
	assert_string_equal(f->st.pl[3].name, "");
	/* slots out of range and events for nobody are ignored */
	stats_player_set(&f->st, -1, "x", "y", 0, 0, 0);
	stats_player_set(&f->st, STATS_MAX_PLAYERS, "x", "y", 0, 0, 0);
	stats_on_shot(&f->st, 1.0, 40, GAME_WP_RL, 1);
	stats_on_shot(&f->st, 1.0, 3, 99, 1);
	stats_on_hit(&f->st, 1.0, 3, -5, 0, 1);
	assert_int_equal(f->st.pl[3].wpn[GAME_WP_RL].attacks, 0);
	char path[32];
	assert_int_equal(stats_json_path("demos/duel_a_vs_b.mvd", ".json", path,
					 sizeof(path)), 0);
	assert_string_equal(path, "demos/duel_a_vs_b.json");
	assert_int_equal(stats_json_path("d.x/noext", ".txt", path, sizeof(path)), 0);
	assert_string_equal(path, "d.x/noext.txt");
	assert_int_equal(stats_json_path("a/very/long/name/of/the/demo.mvd", ".json",
					 path, sizeof(path)), -1);
}

/* the key paths of a JSON value, one per line into out ("players[].dmg.
 * taken"); arrays' elements as [] */
static void key_paths(json_t *v, const char *prefix, char *out, size_t cap)
{
	const char *key;
	json_t *val;
	size_t i;
	char path[256];

	if (json_is_object(v)) {
		json_object_foreach(v, key, val) {
			snprintf(path, sizeof(path), "%s%s%s", prefix,
				 prefix[0] ? "." : "", key);
			if (!strstr(out, path)) {
				strncat(out, path, cap - strlen(out) - 2);
				strncat(out, "\n", cap - strlen(out) - 1);
			}
			key_paths(val, path, out, cap);
		}
	} else if (json_is_array(v)) {
		snprintf(path, sizeof(path), "%s[]", prefix);
		json_array_foreach(v, i, val)
			key_paths(val, path, out, cap);
	}
}

static json_t *write_and_read(struct fx *f)
{
	struct stats_json_info info = {
		.date = "2026-11-28 10:00:00 +0000", .map = "test",
		.hostname = "qwd \"test\"\\", .ip = "127.0.0.1", .port = 27500,
		.demo = "duel_alice_vs_bob.mvd",
	};
	FILE *tmp = tmpfile();
	json_error_t err;
	json_t *root;

	assert_non_null(tmp);
	assert_int_equal(stats_write_json(&f->st, &info, tmp), 0);
	rewind(tmp);
	root = json_loadf(tmp, 0, &err);
	if (!root)
		fail_msg("JSON does not parse: %s (line %d)", err.text, err.line);
	fclose(tmp);
	return root;
}

static void test_json_values(void **state)
{
	struct fx *f = *state;
	json_t *root, *players, *alice = NULL, *bob = NULL, *p;
	size_t i;

	rocket_kill(f);
	stats_end(&f->st, f->s.g->time);
	/* a name with a quote, a backslash, a control byte and a Quake
	 * high-bit character: escaped, read back as the code point */
	strcpy(f->st.pl[1].name, "b\"o\\b\x01\xe1");
	root = write_and_read(f);
	assert_int_equal(json_integer_value(json_object_get(root, "version")), 3);
	assert_string_equal(json_string_value(json_object_get(root, "mode")), "duel");
	assert_string_equal(json_string_value(json_object_get(root, "hostname")),
			    "qwd \"test\"\\");
	assert_int_equal(json_integer_value(json_object_get(root, "tl")), 10);
	assert_null(json_object_get(root, "fl"));
	assert_null(json_object_get(root, "teams"));
	players = json_object_get(root, "players");
	assert_int_equal(json_array_size(players), 2);
	json_array_foreach(players, i, p) {
		const char *n = json_string_value(json_object_get(p, "name"));

		if (strcmp(n, "alice") == 0)
			alice = p;
		else if (strcmp(n, "b\"o\\b\x01\xc3\xa1") == 0)
			bob = p;
	}
	assert_non_null(alice);
	assert_non_null(bob);
#define GETI(obj, path) json_integer_value(json_object_get(obj, path))
	json_t *as = json_object_get(alice, "stats");
	assert_int_equal(GETI(as, "frags"), 1);
	assert_int_equal(GETI(as, "kills"), 1);
	assert_int_equal(GETI(as, "spawn-frags"), 1);
	assert_int_equal(GETI(json_object_get(bob, "stats"), "deaths"), 1);
	json_t *ad = json_object_get(alice, "dmg");
	assert_int_equal(GETI(ad, "given"), 100);
	assert_int_equal(GETI(ad, "taken-to-die"), 99999);
	assert_int_equal(GETI(json_object_get(bob, "dmg"), "taken"), 100);
	json_t *rl = json_object_get(json_object_get(alice, "weapons"), "rl");
	assert_non_null(rl);
	json_t *acc = json_object_get(rl, "acc");
	assert_int_equal(GETI(acc, "attacks"), 1);
	assert_int_equal(GETI(acc, "hits"), 1);
	assert_int_equal(GETI(acc, "virtual"), 1);
	assert_int_equal(GETI(json_object_get(rl, "kills"), "total"), 1);
	assert_int_equal(GETI(json_object_get(rl, "damage"), "enemy"), 100);
	/* bob died to the rl: his rl entry has the death only */
	json_t *brl = json_object_get(json_object_get(bob, "weapons"), "rl");
	assert_int_equal(GETI(brl, "deaths"), 1);
	assert_null(json_object_get(brl, "acc"));
	assert_true(json_is_real(json_object_get(alice, "control")));
	assert_true(json_is_real(json_object_get(json_object_get(alice, "speed"), "max")));
#undef GETI
	json_decref(root);
}

/* every key path KTX writes for a duel with these weapons and items is
 * ours too, and we write none KTX does not */
static void test_json_keys_as_ktx(void **state)
{
	struct fx *f = *state;
	static char ours[16384];
	char line[256];
	FILE *keys;
	json_t *root;
	int n = 0;

	rocket_kill(f);
	/* an item and a sg shot, so "items" and a second weapon appear */
	stats_on_item(&f->st, f->s.g->time, 0, GAME_ITEM_RA, GAME_WP_NONE, false);
	stats_on_shot(&f->st, f->s.g->time, 1, GAME_WP_SG, 6);
	stats_on_hit(&f->st, f->s.g->time, 1, GAME_WP_SG, 0, 2);
	stats_end(&f->st, f->s.g->time + 3);
	root = write_and_read(f);
	ours[0] = 0;
	key_paths(root, "", ours, sizeof(ours));
	json_decref(root);

	/* the source tree: the bundled maps' sources are in its maps/ */
	char kpath[1024];
	const char *src = qwd_bundled_map_source("x");
	const char *cut = strstr(src, "/maps/x.map");
	assert_non_null(cut);
	snprintf(kpath, sizeof(kpath), "%.*s/tests/match/stats_keys.txt",
		 (int)(cut - src), src);
	keys = fopen(kpath, "r");
	assert_non_null(keys);
	while (fgets(line, sizeof(line), keys)) {
		char want[260];

		line[strcspn(line, "\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		snprintf(want, sizeof(want), "\n%s\n", line);
		char with_nl[sizeof(ours) + 2];
		snprintf(with_nl, sizeof(with_nl), "\n%s", ours);
		if (!strstr(with_nl, want))
			fail_msg("KTX's key %s is not in ours:\n%s", line, ours);
		n++;
	}
	fclose(keys);
	/* and nothing more than the list */
	int ours_n = 0;
	for (const char *c = ours; *c; c++)
		ours_n += *c == '\n';
	assert_int_equal(ours_n, n);
}

static const struct CMUnitTest stats_tests[] = {
	cmocka_unit_test_setup_teardown(test_rocket_kill_counts, fx_setup, fx_teardown),
	cmocka_unit_test_setup_teardown(test_end_prints, fx_setup, fx_teardown),
	cmocka_unit_test_setup_teardown(test_shotgun_pellets, fx_setup, fx_teardown),
	cmocka_unit_test_setup_teardown(test_lightning_beams, fx_setup, fx_teardown),
	cmocka_unit_test_setup_teardown(test_items_and_quad_time, fx_setup, fx_teardown),
	cmocka_unit_test_setup_teardown(test_team_kill, fx_setup, fx_teardown),
	cmocka_unit_test_setup_teardown(test_world_death_and_suicide, fx_setup, fx_teardown),
	cmocka_unit_test_setup_teardown(test_names_bounded, fx_setup, fx_teardown),
	cmocka_unit_test_setup_teardown(test_json_values, fx_setup, fx_teardown),
	cmocka_unit_test_setup_teardown(test_json_keys_as_ktx, fx_setup, fx_teardown),
};

QWD_TEST_GROUP(match_stats, stats_tests, NULL, NULL)
