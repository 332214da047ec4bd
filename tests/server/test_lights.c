/*
 * tests/server/test_lights.c -- light styles as a client receives them, on
 * a map with a switchable light that starts off.
 *
 * Design note
 *   The map is .map text written here from boxes (tests/game/scenario.h's
 *   writer) and compiled in memory by the project's map compiler, then put
 *   in the fixture's qw/maps/ as "lights" and loaded as its first map.
 *   One room; the player starts in the west half facing east; a
 *   trigger_once fills the east half and targets the light "lamp" (style
 *   32, START_OFF).  A second targeted light (style 33) starts on and an
 *   untargeted one (style 34) is inert, as in id's misc.qc.  A client
 *   must get id's animated styles 0-11 and 63 at signon with the level's
 *   own (32 "a", 33 "m", 34 and the other unused ones empty); walking
 *   into the trigger must send it style 32 "m", and a client joining
 *   later gets "m" in its signon.  Before the fix the engine's defaults
 *   were written over the level's after it loaded, so 32 read "" (full
 *   light) at signon: a light that starts off showed as on.
 */
#include "../harness.h"
#include "srvfix.h"
#include "../game/scenario.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../tools/qwmap/qwmap.h"

/* id's styles 0-11 as world.qc's worldspawn sets them */
static const char *const id_styles[] = {
	"m", "mmnmmommommnonmmonqnmmo",
	"abcdefghijklmnopqrstuvwxyzyxwvutsrqponmlkjihgfedcba",
	"mmmmmaaaaammmmmaaaaaabcdefgabcdefg", "mamamamamama",
	"jklmnopqrstuvwxyzyxwvutsrqponmlkj", "nmonqnmomnmomomno",
	"mmmaaaabcdefgmmmmaaaammmaamm",
	"mmmaaammmaaammmabcdefaaaammmmabcdefmmmaaaa", "aaaaaaaazzzzzzzz",
	"mmamammmmammamamaaamammma", "abcdefghijklmnopqrrqponmlkjihgfedcba",
};

static void lights_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"worldspawn\"");
	ms_room(m, -256, -256, 0, 256, 256, 192);
	ms_close(m);
	ms_open(m, "\"classname\" \"info_player_deathmatch\" \"origin\" \"-192 0 24\" "
		"\"angle\" \"0\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"light\" \"origin\" \"0 0 160\" \"style\" \"32\" "
		"\"targetname\" \"lamp\" \"spawnflags\" \"1\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"light\" \"origin\" \"0 128 160\" \"style\" \"33\" "
		"\"targetname\" \"other\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"light\" \"origin\" \"0 -128 160\" \"style\" \"34\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"trigger_once\" \"target\" \"lamp\"");
	ms_box(m, 64, -256, 0, 256, 256, 192, "trigger");
	ms_close(m);
}

/* the fixture on "lights", compiled into its qw/maps/ */
static int lights_setup(void **state)
{
	struct qm_ctx ctx;
	struct qm_options opt = {false};
	struct qm_output out;
	struct mapsrc m;
	struct srvfix *f;
	struct bsp_map *map;
	char err[256], path[256];
	FILE *fp;
	int rc;

	if (srvfix_setup(state) != 0)
		return -1;
	f = *state;
	memset(&ctx, 0, sizeof(ctx));
	ctx.name = "lights.map";
	ctx.err = err;
	ctx.errlen = sizeof(err);
	memset(&out, 0, sizeof(out));
	ms_init(&m);
	lights_map(&m);
	rc = qm_compile(&ctx, m.text, m.len, &opt, &out);
	ms_free(&m);
	if (rc != 0) {
		fprintf(stderr, "lights.map: %s\n", err);
		return -1;
	}
	map = bsp_load_mem("lights.bsp", out.data, out.size, err, sizeof(err));
	if (!map) {
		fprintf(stderr, "lights.bsp: %s\n", err);
		qm_output_free(&out);
		return -1;
	}
	f->sums[0] = map->checksum2;
	bsp_free(map);
	snprintf(path, sizeof(path), "%s/qw", f->dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/qw/maps", f->dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/qw/maps/lights.bsp", f->dir);
	fp = fopen(path, "wb");
	rc = fp && fwrite(out.data, 1, out.size, fp) == out.size ? 0 : -1;
	if (fp && fclose(fp) != 0)
		rc = -1;
	qm_output_free(&out);
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	f->maps[0] = "lights";
	return 0;
}

/* every style as the level sets it, 32 as given */
static void check_styles(const struct srv_client *c, const char *style32)
{
	for (int i = 0; i < MAX_LIGHTSTYLES; i++) {
		const char *want = i < 12 ? id_styles[i] : i == 63 ? "a" :
				   i == 32 ? style32 : i == 33 ? "m" : "";

		if (strcmp(c->q.lightstyles[i], want) != 0)
			fail_msg("style %d is \"%s\", not \"%s\"", i,
				 c->q.lightstyles[i], want);
	}
}

static void test_light_starts_off(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *a, *b;
	uint64_t styles;

	srvfix_start(f, 4);
	a = srvfix_player(f, "walker");
	/* the signon: 64 styles, the switchable light dark */
	assert_true(a->q.stats.lightstyles >= MAX_LIGHTSTYLES);
	check_styles(a, "a");
	assert_string_equal(f->sv->lightstyles[32], "a");
	/* standing still in the west half switches nothing */
	srvfix_run(f, 0.5, true);
	styles = a->q.stats.lightstyles;
	check_styles(a, "a");

	/* east into the trigger: the lamp goes on, once */
	a->q.cmd.angles[1] = 0;
	a->q.cmd.forwardmove = 400;
	for (double end = server_clock() + 5.0;
	     server_clock() < end && a->q.stats.lightstyles == styles;)
		srvfix_step(f, true);
	a->q.cmd.forwardmove = 0;
	srvfix_run(f, 0.5, true);
	assert_int_equal(a->q.stats.lightstyles, styles + 1);
	assert_int_equal(a->q.stats.last_lightstyle, 32);
	check_styles(a, "m");

	/* a client joining now finds it on */
	b = srvfix_player(f, "latecomer");
	check_styles(b, "m");
	for (int k = 0; k < QWC_BAD_KINDS; k++)
		assert_int_equal(a->q.stats.bad[k], 0);
}

/* a level change starts the next level with its own styles: the
 * fixture's second map has no switchable light, so 32 is empty there */
static void test_light_level_change(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *a;
	char err[256];
	double end;
	int old;

	srvfix_start(f, 4);
	a = srvfix_player(f, "stayer");
	check_styles(a, "a");
	old = a->q.servercount;
	assert_int_equal(server_map(f->sv, f->maps[1], err, sizeof(err)), 0);
	end = server_clock() + 5.0;
	while (server_clock() < end &&
	       (a->q.state != QWC_ACTIVE || a->q.servercount == old))
		srvfix_step(f, true);
	assert_int_equal(a->q.state, QWC_ACTIVE);
	srvfix_run(f, 0.3, true);
	assert_string_equal(a->q.mapmodel, srvfix_map_model(f, 1));
	for (int i = 0; i < MAX_LIGHTSTYLES; i++) {
		const char *want = i < 12 ? id_styles[i] : i == 63 ? "a" : "";

		if (strcmp(a->q.lightstyles[i], want) != 0)
			fail_msg("large: style %d is \"%s\", not \"%s\"", i,
				 a->q.lightstyles[i], want);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(test_light_starts_off, NULL, srvfix_test_teardown),
	cmocka_unit_test_setup_teardown(test_light_level_change, NULL, srvfix_test_teardown),
};

QWD_TEST_GROUP(server_lights, tests, lights_setup, srvfix_teardown)
