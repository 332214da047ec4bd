/*
 * tests/game/test_bench.c -- the game on whole maps: the project's own
 * maps and (an optional extra) every LibreQuake deathmatch map spawn and
 * play, and the game holds up under the benchmark's load, 256 bots firing
 * rockets continuously.
 *
 * Design note: the bots join the bundled small map (build/maps/small.bsp),
 * and lqdm1, the map tools/gamebench measures, when the community maps are
 * there; each with a rocket launcher and ammunition topped up, running
 * forward while turning at its own rate, fire held except one tick in ten
 * (so the dead release and press the button, and respawn), for 4 s of
 * game time at 13 ms a tick.  The test asserts behaviour only -- rockets
 * flew, players died and came back, no entity slot leaked; the time of
 * that world update is measured by tools/gamebench (make bench,
 * docs/gamebench.md).
 */
#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/game.h"
#include "scenario.h"

enum { BOTS = 256, BENCH_ENTITIES = 4096 };

static void bench_on(const char *path)
{
	struct scen *s;
	char err[256] = "";
	int ticks = (int)(4.0 / SCEN_TICK), max_live = 0, respawns = 0;

	s = calloc(1, sizeof(*s));
	assert_non_null(s);
	if (scen_start_file(s, path, BOTS, BENCH_ENTITIES, err, sizeof(err)) != 0)
		fprintf(stderr, "bench: %s\n", err);
	assert_non_null(s->g);
	for (int i = 0; i < BOTS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "bot%d", i);
		game_client_connect(s->g, i, name, false);
	}
	for (int t = 0; t < ticks; t++) {
		int live = 0;

		s->time += SCEN_TICK;
		game_frame(s->g, s->time);
		for (int i = 0; i < BOTS; i++) {
			struct game_entity *e = &s->g->ents[game_player_entity(s->g, i)];
			struct usercmd c;

			memset(&c, 0, sizeof(c));
			c.msec = 13;
			c.angles[1] = (float)((i * 37 + t * (1 + i % 5)) % 360);
			c.forwardmove = 320;
			c.buttons = (t + i) % 10 ? 1 : 0;
			if (e->health > 0) {
				e->items |= IT_ROCKET_LAUNCHER;
				e->weapon = IT_ROCKET_LAUNCHER;
				s->g->clients[i].ammo_rockets = 50;
			}
			{
				bool dead = e->deadflag != 0;

				game_client_cmd(s->g, i, &c);
				respawns += dead && !e->deadflag;
			}
		}
		for (int i = 0; i < s->g->num_entities; i++)
			live += s->g->ents[i].inuse;
		if (live > max_live)
			max_live = live;
	}
	assert_true(s->g->stats.shots > 100);
	assert_true(s->g->stats.kills > 0);
	assert_true(respawns > 0);
	assert_true(max_live < s->g->top);
	scen_free(s);
	free(s);
}

static void test_bench_256_bots(void **state)
{
	(void)state;
	bench_on(qwd_bundled_map("small"));
	if (qwd_realmaps_dir())
		bench_on(qwd_realmap("lqdm1.bsp"));
}

/* every LibreQuake deathmatch map (and the four single-player ones, with
 * their monsters reported and skipped) spawns and plays: items on
 * floors, movers and triggers in place, eight players running and firing */
static void test_real_maps_play(void **state)
{
	static const char *const maps[] = {"lqdm1.bsp", "lqdm2.bsp", "lqdm3.bsp",
		"lqdm4.bsp", "lqdm5.bsp", "lqdm6.bsp", "lqdm7.bsp", "lqdm8.bsp",
		"lqdm9.bsp", "lqdm10.bsp", "lqdm11.bsp", "lqdm12.bsp", "lqdm13.bsp",
		"lq_e1m1.bsp", "lq_e1m2.bsp", "lq_e2m2.bsp", "lq_e3m3.bsp"};

	(void)state;
	if (!qwd_realmaps_dir())
		qwd_skip_no_realmaps();
	for (size_t m = 0; m < sizeof(maps) / sizeof(maps[0]); m++) {
		const char *path = qwd_realmap(maps[m]);
		struct scen *s = calloc(1, sizeof(*s));
		char err[256] = "";
		int items = 0, fell;

		assert_non_null(s);
		assert_non_null(path);
		if (scen_start_file(s, path, SCEN_MAX_CLIENTS, 2048, err, sizeof(err)) != 0)
			fprintf(stderr, "%s: %s\n", maps[m], err);
		assert_non_null(s->g);
		for (int i = 0; i < SCEN_MAX_CLIENTS; i++) {
			char name[16];

			snprintf(name, sizeof(name), "p%d", i);
			scen_join(s, i, name);
			scen_give(s, i, IT_ROCKET_LAUNCHER, 100);
			scen_hold(s, i, 0, (float)(i * 45), 320, 0, 1);
		}
		scen_run(s, 3);
		for (int i = 1; i < s->g->num_entities; i++)
			if (s->g->ents[i].inuse && (s->g->ents[i].flags & FL_ITEM))
				items++;
		fell = 0;
		for (const char *p = s->mock.logs; (p = strstr(p, "fell out")); p++)
			fell++;
		printf("%s: %d items on the floor, %d fell out; log: %s", maps[m], items,
		       fell, s->mock.logs[0] ? s->mock.logs : "(empty)\n");
		assert_true(items > 10);
		assert_true(fell <= 2);
		assert_true(s->g->stats.shots > 0);
		scen_free(s);
		free(s);
	}
}

/* the project's own maps (maps/small.map, maps/large.map, compiled here):
 * every entity known, items on the floors, and a game on them.  (large's
 * item_spikes at (0 -1920 -234) stands inside the tunnel's func_door, so
 * it fails to drop and is removed, as QuakeC's droptofloor does.) */
static void test_project_maps_play(void **state)
{
	static const char *const maps[] = {"small", "large"};

	(void)state;
	for (size_t m = 0; m < sizeof(maps) / sizeof(maps[0]); m++) {
		size_t size;
		char *text = (char *)qwd_read_file(qwd_bundled_map_source(maps[m]), &size);
		struct scen *s;
		char err[256] = "";
		int items = 0;

		if (!text)
			fail_msg("%s: cannot read the map source",
				 qwd_bundled_map_source(maps[m]));
		s = calloc(1, sizeof(*s));
		assert_non_null(s);
		text[size] = '\0';	/* qwd_read_file leaves room for it */
		if (scen_start(s, text, SCEN_MAX_CLIENTS, 2048, err, sizeof(err)) != 0)
			fprintf(stderr, "%s: %s\n", maps[m], err);
		free(text);
		assert_non_null(s->g);
		for (int i = 0; i < SCEN_MAX_CLIENTS; i++) {
			scen_join(s, i, "p");
			scen_give(s, i, IT_ROCKET_LAUNCHER, 100);
			scen_hold(s, i, 0, (float)(i * 45), 320, 0, 1);
		}
		scen_run(s, 3);
		for (int i = 1; i < s->g->num_entities; i++)
			if (s->g->ents[i].inuse && (s->g->ents[i].flags & FL_ITEM))
				items++;
		printf("%s: %d items on the floor; log: %s", maps[m], items,
		       s->mock.logs[0] ? s->mock.logs : "(empty)\n");
		assert_true(items > 5);
		assert_null(strstr(s->mock.logs, "unknown classname"));
		assert_true(s->g->stats.shots > 0);
		scen_free(s);
		free(s);
	}
}

static const struct CMUnitTest bench_tests[] = {
	cmocka_unit_test(test_project_maps_play),
	cmocka_unit_test(test_real_maps_play),
	cmocka_unit_test(test_bench_256_bots),
};

QWD_TEST_GROUP(game_bench, bench_tests, NULL, NULL)
