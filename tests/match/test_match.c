/*
 * tests/match/test_match.c -- the match layer over a scripted game:
 * prewar, ready and break, the countdown, the reset at the start, the
 * clock and its status values, the ends (timelimit, fraglimit, overtime,
 * sudden death, tie-break), a break, powerups withheld, the modes, the
 * start's conditions, the pause, backpacks (dp, fair packs), the message
 * of the day, the idle bot, the matchtag, and docs/match.md's table of
 * KTX's commands against the command table.
 *
 * Design note: the game runs in memory on the scenario maps of
 * tests/game (scenario.h), its services mocked there; the match's own
 * services are mocked here: the serverinfo status values in order, the
 * console lines (settings go to the match or to the mock's rule cvars,
 * as the server's console would route them), the events.  Time is the
 * level's, stepped tick by tick (13 ms), so every assertion is about
 * what happened, never how long it took.  KTX's texts are compared in
 * plain letters (red and gold bytes read back as ASCII).
 */
#include "../harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/game.h"
#include "qwd/match.h"
#include "../game/scenario.h"

#define STAND 25.0f

struct fix {
	struct scen s;
	struct match *m;
	char status[32][32];
	int num_status;
	char lines[64][96];
	int num_lines;
	const char *present;	/* a config file that "exists" */
	int countdowns, started, ended, broken;
	struct match_result result;
	double real;
	char matchtag[32];	/* the serverinfo "matchtag" set */
};

/* the server's kick: the client leaves the game */
static void t_kick(void *ctx, int slot, const char *why)
{
	struct fix *f = ctx;

	(void)why;
	game_client_disconnect(f->s.g, slot);
}

static void t_serverinfo(void *ctx, const char *key, const char *value)
{
	struct fix *f = ctx;

	if (!strcmp(key, "matchtag"))
		snprintf(f->matchtag, sizeof(f->matchtag), "%s", value);
}

static void t_status(void *ctx, const char *v)
{
	struct fix *f = ctx;

	if (f->num_status < 32)
		snprintf(f->status[f->num_status++], sizeof(f->status[0]), "%s", v);
}

static void t_command(void *ctx, const char *line)
{
	struct fix *f = ctx;
	char name[64], value[64], err[160];

	if (f->num_lines < 64)
		snprintf(f->lines[f->num_lines++], sizeof(f->lines[0]), "%s", line);
	if (sscanf(line, "%63s %63s", name, value) != 2)
		return;
	if (!strcmp(name, "timelimit"))
		f->s.mock.timelimit = (float)atof(value);
	else if (!strcmp(name, "teamplay"))
		f->s.mock.teamplay = (float)atof(value);
	else if (!strcmp(name, "deathmatch"))
		f->s.mock.deathmatch = (float)atof(value);
	else if (!strcmp(name, "fraglimit"))
		f->s.mock.fraglimit = (float)atof(value);
	else if (!strncmp(name, "k_", 2))
		assert_int_equal(match_set(f->m, name, value, err, sizeof(err)), 0);
}

static bool t_exists(void *ctx, const char *path)
{
	struct fix *f = ctx;

	return f->present && !strcmp(path, f->present);
}

static void t_event(void *ctx, enum match_event ev, const struct match_result *r)
{
	struct fix *f = ctx;

	if (ev == MATCH_EVENT_COUNTDOWN)
		f->countdowns++;
	else if (ev == MATCH_EVENT_STARTED)
		f->started++;
	else if (ev == MATCH_EVENT_ENDED)
		f->ended++;
	else
		f->broken++;
	if (r)
		f->result = *r;
}

/* the room with a quad and a green armour on the floor */
static void items_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"item_artifact_super_damage\" \"origin\" \"0 300 24\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"item_armor1\" \"origin\" \"300 300 24\"");
	ms_close(m);
}

/* the room with a pool of water in one corner, 100 deep */
static void pool_map(struct mapsrc *m)
{
	ms_init(m);
	ms_open(m, "\"classname\" \"worldspawn\"");
	ms_room(m, -512, -512, 0, 512, 512, 384);
	ms_box(m, 100, 100, 0, 500, 500, 100, "*water0");
	ms_close(m);
	ms_open(m, "\"classname\" \"info_player_deathmatch\" \"origin\" \"-256 -256 24\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"info_player_deathmatch\" \"origin\" \"256 -256 24\"");
	ms_close(m);
}

/* the room with extra's entities, or the pool's room */
static int setup_on(void **state, bool pool, void (*extra)(struct mapsrc *m))
{
	struct fix *f = calloc(1, sizeof(*f));
	struct match_services svc = {0};

	assert_non_null(f);
	f->s.mock.deathmatch = 1;
	f->s.mock.timelimit = 0;
	if (pool) {
		struct mapsrc m;
		char err[256] = "";

		pool_map(&m);
		if (scen_start(&f->s, m.text, SCEN_MAX_CLIENTS, SCEN_MAX_ENTITIES,
			       err, sizeof(err)) != 0)
			fail_msg("scenario: %s", err);
		ms_free(&m);
	} else {
		scen_room_ok(&f->s, extra);
	}
	svc.ctx = f;
	svc.status = t_status;
	svc.command = t_command;
	svc.file_exists = t_exists;
	svc.event = t_event;
	svc.kick = t_kick;
	svc.serverinfo = t_serverinfo;
	f->m = match_create(f->s.g, &svc);
	assert_non_null(f->m);
	match_level_begin(f->m);
	f->real = 100;
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_on(state, false, items_map);
}

static int setup_pool(void **state)
{
	return setup_on(state, true, NULL);
}

static int teardown(void **state)
{
	struct fix *f = *state;

	match_destroy(f->m);
	scen_free(&f->s);
	free(f);
	return 0;
}

static bool printed(struct fix *f, const char *text)
{
	static char buf[MOCK_PRINTS];	/* test-only scratch */

	match_plain_text(f->s.mock.prints, buf, sizeof(buf));
	return strstr(buf, text) != NULL;
}

static bool centered(struct fix *f, const char *text)
{
	char buf[2048];

	match_plain_text(f->s.mock.centerprint, buf, sizeof(buf));
	return strstr(buf, text) != NULL;
}

static void forget_prints(struct fix *f)
{
	f->s.mock.prints[0] = '\0';
	f->s.mock.prints_len = 0;
}

/* ticks of the game and the match for this many seconds of level time */
static void run(struct fix *f, double seconds)
{
	int n = (int)(seconds / SCEN_TICK + 0.5);

	for (int i = 0; i < n; i++) {
		if (!f->s.mock.paused)
			scen_tick(&f->s);
		f->real += SCEN_TICK;
		match_frame(f->m, f->real);
	}
}

static void cmd(struct fix *f, int slot, const char *a0, const char *a1)
{
	const char *argv[2] = {a0, a1};

	assert_true(match_command(f->m, slot, a1 ? 2 : 1, argv));
}

static void set(struct fix *f, const char *name, const char *value)
{
	char err[160];

	assert_int_equal(match_set(f->m, name, value, err, sizeof(err)), 0);
}

static void two_players(struct fix *f)
{
	scen_join(&f->s, 0, "alice");
	scen_join(&f->s, 1, "bob");
	run(f, 0.3);
}

/* a dead player presses fire to come back */
static void respawn(struct fix *f, int slot)
{
	if (scen_player(&f->s, slot)->health > 0)
		return;
	run(f, 1.2);
	scen_hold(&f->s, slot, 0, 0, 0, 0, 1);
	run(f, 0.05);
	scen_hold(&f->s, slot, 0, 0, 0, 0, 0);
	run(f, 0.6);	/* the shot that respawned him is done */
}

/* killer frags victim with a rocket (both respawned first) */
static void frag(struct fix *f, int killer, int victim)
{
	respawn(f, killer);
	respawn(f, victim);
	scen_place(&f->s, killer, -100, 0, STAND, 0);
	scen_place(&f->s, victim, 100, 0, STAND, 180);
	scen_give(&f->s, killer, IT_ROCKET_LAUNCHER, 10);
	scen_hold(&f->s, killer, 0, 0, 0, 0, 1);
	run(f, SCEN_TICK);
	scen_hold(&f->s, killer, 0, 0, 0, 0, 0);
	run(f, 0.5);
	assert_true(scen_player(&f->s, victim)->health <= 0);
}

/* both ready; the countdown (k_count s) runs out; the match is on */
static void start(struct fix *f)
{
	cmd(f, 0, "ready", NULL);
	cmd(f, 1, "ready", NULL);
	assert_int_equal(match_state(f->m), MATCH_COUNTDOWN);
	run(f, 3.2);
	assert_int_equal(match_state(f->m), MATCH_PLAYING);
}

static bool status_seen(struct fix *f, int i, const char *v)
{
	return i < f->num_status && !strcmp(f->status[i], v);
}

/* ---- the tests -------------------------------------------------------- */

static void test_prewar_frags_not_counted(void **state)
{
	struct fix *f = *state;

	two_players(f);
	assert_int_equal(match_state(f->m), MATCH_PREWAR);
	assert_string_equal(match_status(f->m), "Standby");
	frag(f, 0, 1);
	assert_int_equal(scen_client(&f->s, 0)->frags, 0);
	game_client_kill(f->s.g, 0);
	assert_int_equal(scen_client(&f->s, 0)->frags, 0);
	/* the clock does not run from the map's load */
	f->s.mock.timelimit = 1;
	run(f, 65);
	assert_int_equal(f->s.mock.intermission_calls, 0);
}

static void test_ready_break_toggle(void **state)
{
	struct fix *f = *state;

	two_players(f);
	cmd(f, 0, "ready", NULL);
	assert_true(printed(f, "alice is ready"));
	assert_true(match_ready(f->m, 0));
	cmd(f, 0, "ready", NULL);
	assert_true(printed(f, "Type break to unready yourself"));
	cmd(f, 0, "break", NULL);
	assert_true(printed(f, "alice is not ready"));
	assert_false(match_ready(f->m, 0));
	cmd(f, 0, "toggleready", NULL);
	assert_true(match_ready(f->m, 0));
	cmd(f, 0, "notready", NULL);
	assert_false(match_ready(f->m, 0));
	cmd(f, 0, "toggleready", NULL);
	cmd(f, 0, "toggleready", NULL);
	assert_false(match_ready(f->m, 0));
	assert_int_equal(match_state(f->m), MATCH_PREWAR);
}

static void test_countdown_length_is_k_count(void **state)
{
	struct fix *f = *state;

	set(f, "k_count", "5");
	two_players(f);
	cmd(f, 0, "ready", NULL);
	assert_int_equal(match_state(f->m), MATCH_PREWAR);
	cmd(f, 1, "ready", NULL);
	assert_true(printed(f, "All players ready"));
	assert_true(printed(f, "Timer started"));
	assert_int_equal(match_state(f->m), MATCH_COUNTDOWN);
	assert_string_equal(match_status(f->m), "Countdown");
	run(f, 0.05);
	assert_true(centered(f, "Countdown:  5"));
	assert_true(centered(f, "Deathmatch  1"));
	assert_true(centered(f, "Mode    F F A"));
	run(f, 4.0);
	assert_true(centered(f, "Countdown:  1"));
	assert_int_equal(match_state(f->m), MATCH_COUNTDOWN);
	run(f, 1.0);
	assert_int_equal(match_state(f->m), MATCH_PLAYING);
	assert_true(printed(f, "The match has begun!"));
	assert_true(printed(f, "matchdate: "));
	assert_int_equal(f->started, 1);
	/* k_count under 3 still counts 3 */
	set(f, "k_count", "0");
	assert_int_equal(match_set(f->m, "k_count", "-1", (char[64]){0}, 64), -1);
}

static void test_break_stops_countdown(void **state)
{
	struct fix *f = *state;

	two_players(f);
	cmd(f, 0, "ready", NULL);
	cmd(f, 1, "ready", NULL);
	run(f, 1);
	cmd(f, 1, "break", NULL);
	assert_true(printed(f, "bob stops the countdown"));
	assert_int_equal(match_state(f->m), MATCH_PREWAR);
	assert_string_equal(match_status(f->m), "Standby");
}

static void test_reset_at_start(void **state)
{
	struct fix *f = *state;
	struct game_entity *armor = scen_find(&f->s, "item_armor1");
	struct game_entity *alice;

	set(f, "k_count", "3");
	two_players(f);
	assert_non_null(armor);
	/* prewar leaves its marks: an item taken, a wounded player */
	armor->modelindex = 0;
	armor->obj->solid = SOLID_NOT;
	alice = scen_player(&f->s, 0);
	alice->health = 40;
	scen_give(&f->s, 0, IT_ROCKET_LAUNCHER, 50);
	scen_client(&f->s, 1)->frags = 7;
	start(f);
	assert_int_equal(scen_client(&f->s, 0)->frags, 0);
	assert_int_equal(scen_client(&f->s, 1)->frags, 0);
	assert_true(alice->health >= 100);
	assert_int_equal(scen_client(&f->s, 0)->ammo_shells, 25);
	assert_int_equal(scen_client(&f->s, 0)->ammo_rockets, 0);
	assert_false(alice->items & IT_ROCKET_LAUNCHER);
	assert_int_not_equal(armor->modelindex, 0);
	assert_int_equal(armor->obj->solid, SOLID_TRIGGER);
	/* frags count now */
	frag(f, 0, 1);
	assert_int_equal(scen_client(&f->s, 0)->frags, 1);
}

static void test_clock_status_and_timelimit(void **state)
{
	struct fix *f = *state;

	set(f, "k_count", "3");
	set(f, "k_overtime", "0");
	f->s.mock.timelimit = 2;
	two_players(f);
	start(f);
	assert_string_equal(match_status(f->m), "2 min left");
	run(f, 60.2);
	assert_true(printed(f, "[1] minute remaining"));
	assert_string_equal(match_status(f->m), "1 min left");
	run(f, 30);
	assert_true(printed(f, "[30] seconds"));
	run(f, 15);
	assert_true(printed(f, "[15] seconds"));
	run(f, 10);
	assert_true(printed(f, "[5] seconds"));
	run(f, 4);
	assert_true(printed(f, "[1] second\n"));
	assert_int_equal(match_state(f->m), MATCH_PLAYING);
	run(f, 1.2);
	assert_true(printed(f, "The match is over"));
	assert_int_equal(match_state(f->m), MATCH_OVER);
	assert_int_equal(f->s.mock.intermission_calls, 1);
	assert_int_equal(f->ended, 1);
	assert_int_equal(f->result.num, 2);
	/* KTX's sequence of status values */
	assert_true(status_seen(f, 0, "Standby"));
	assert_true(status_seen(f, 1, "Countdown"));
	assert_true(status_seen(f, 2, "2 min left"));
	assert_true(status_seen(f, 3, "1 min left"));
	assert_true(status_seen(f, 4, "0 min left"));
	assert_true(status_seen(f, 5, "Standby"));
	assert_int_equal(f->num_status, 6);
	/* a new level: prewar again */
	match_level_begin(f->m);
	assert_int_equal(match_state(f->m), MATCH_PREWAR);
}

static void test_fraglimit_ends(void **state)
{
	struct fix *f = *state;

	set(f, "k_count", "3");
	f->s.mock.fraglimit = 2;
	two_players(f);
	start(f);
	frag(f, 0, 1);
	assert_int_equal(match_state(f->m), MATCH_PLAYING);
	frag(f, 0, 1);
	assert_int_equal(match_state(f->m), MATCH_OVER);
	assert_true(printed(f, "The match is over"));
	assert_int_equal(f->result.scores[0].frags, 2);
	assert_string_equal(f->result.scores[0].name, "alice");
}


/* the statistics count the match's own shots only: a prewar frag is not
 * in them; two rocket frags in the match are, in the end's blocks and
 * the JSON file (KTX's layout: the keys test_stats.c checks) */
static void test_match_statistics(void **state)
{
	struct fix *f = *state;
	char *json = NULL;
	size_t len = 0;
	FILE *out;
	struct match_stats_facts facts = { .date = "2026-11-28 10:00:00 +0000",
					   .hostname = "test", .ip = "127.0.0.1",
					   .port = 27500 };

	set(f, "k_count", "3");
	f->s.mock.fraglimit = 2;
	two_players(f);
	frag(f, 1, 0);			/* prewar: not counted */
	out = open_memstream(&json, &len);
	assert_int_equal(match_write_stats(f->m, &facts, out), -1);	/* none yet */
	fclose(out);
	free(json);
	start(f);
	frag(f, 0, 1);
	frag(f, 0, 1);
	assert_int_equal(match_state(f->m), MATCH_OVER);
	assert_true(printed(f, "Player statistics"));
	out = open_memstream(&json, &len);
	assert_int_equal(match_write_stats(f->m, &facts, out), 0);
	fclose(out);
	/* alice: 2 frags, 2 kills, 2 rockets fired; bob: 2 deaths, none fired */
	assert_non_null(strstr(json, "\"name\": \"alice\""));
	assert_non_null(strstr(json, "\"name\": \"bob\""));
	assert_non_null(strstr(json, "\"frags\": 2"));
	assert_non_null(strstr(json, "\"deaths\": 2"));
	assert_non_null(strstr(json, "\"rl\""));
	assert_null(strstr(json, "\"frags\": 1,"));	/* the prewar one */
	free(json);
}

static void test_overtime_extra_time(void **state)
{
	struct fix *f = *state;

	set(f, "k_count", "3");
	set(f, "k_overtime", "1");
	set(f, "k_exttime", "2");
	f->s.mock.timelimit = 1;
	two_players(f);
	start(f);
	run(f, 60.2);
	assert_true(printed(f, "time over, the game is a draw"));
	assert_true(printed(f, "[2] minutes overtime follows"));
	assert_string_equal(match_status(f->m), "2 min left");
	assert_int_equal(match_state(f->m), MATCH_PLAYING);
	frag(f, 0, 1);		/* no longer level when the overtime ends */
	run(f, 115);
	assert_int_equal(match_state(f->m), MATCH_PLAYING);
	run(f, 5);
	assert_int_equal(match_state(f->m), MATCH_OVER);
}

static void test_no_overtime_when_not_tied(void **state)
{
	struct fix *f = *state;

	set(f, "k_count", "3");
	set(f, "k_overtime", "1");
	f->s.mock.timelimit = 1;
	two_players(f);
	start(f);
	frag(f, 0, 1);
	run(f, 60);
	assert_int_equal(match_state(f->m), MATCH_OVER);
	assert_false(printed(f, "the game is a draw"));
}

static void test_sudden_death(void **state)
{
	struct fix *f = *state;

	set(f, "k_count", "3");
	set(f, "k_overtime", "2");
	f->s.mock.timelimit = 1;
	two_players(f);
	start(f);
	run(f, 60.2);
	assert_true(printed(f, "Sudden death overtime begins"));
	run(f, 90);
	assert_int_equal(match_state(f->m), MATCH_PLAYING);
	frag(f, 1, 0);
	assert_int_equal(match_state(f->m), MATCH_OVER);
}

static void test_tie_break(void **state)
{
	struct fix *f = *state;

	set(f, "k_count", "3");
	set(f, "k_overtime", "3");
	f->s.mock.timelimit = 1;
	two_players(f);
	start(f);
	frag(f, 0, 1);		/* one frag apart: still a tie-break */
	run(f, 60);
	assert_true(printed(f, "tie-break overtime begins"));
	frag(f, 1, 0);
	assert_int_equal(match_state(f->m), MATCH_PLAYING);
	frag(f, 1, 0);
	assert_int_equal(match_state(f->m), MATCH_PLAYING);
	frag(f, 1, 0);		/* two apart */
	assert_int_equal(match_state(f->m), MATCH_OVER);
}

static void test_break_vote_returns_to_prewar(void **state)
{
	struct fix *f = *state;

	set(f, "k_count", "3");
	f->s.mock.timelimit = 10;
	two_players(f);
	start(f);
	assert_int_equal(f->countdowns, 1);
	cmd(f, 0, "break", NULL);
	assert_true(printed(f, "alice votes for stopping the match (1)"));
	assert_int_equal(match_state(f->m), MATCH_PLAYING);
	cmd(f, 1, "break", NULL);
	assert_true(printed(f, "Match stopped by majority vote"));
	assert_int_equal(match_state(f->m), MATCH_PREWAR);
	assert_string_equal(match_status(f->m), "Standby");
	assert_int_equal(f->broken, 1);
	assert_int_equal(f->s.mock.intermission_calls, 0);
	frag(f, 0, 1);
	assert_int_equal(scen_client(&f->s, 0)->frags, 0);
}

static void test_powerups_off_removes_quad(void **state)
{
	struct fix *f = *state;
	struct game_entity *quad = scen_find(&f->s, "item_artifact_super_damage");

	run(f, 0.5);
	assert_non_null(quad);
	assert_int_not_equal(quad->modelindex, 0);
	set(f, "k_pow", "0");
	assert_int_equal(quad->modelindex, 0);
	assert_int_equal(quad->obj->solid, SOLID_NOT);
	run(f, 100);	/* and it does not come back */
	assert_int_equal(quad->modelindex, 0);
	set(f, "k_pow", "1");
	assert_int_not_equal(quad->modelindex, 0);
	assert_int_equal(quad->obj->solid, SOLID_TRIGGER);
	set(f, "k_pow_q", "0");
	assert_int_equal(quad->modelindex, 0);
	/* a player's command does the same */
	set(f, "k_pow_q", "1");
	scen_join(&f->s, 0, "alice");
	cmd(f, 0, "powerups", "q");
	assert_int_equal(quad->modelindex, 0);
	assert_true(printed(f, "Quad disabled"));
	cmd(f, 0, "powerups", "x");
	assert_true(printed(f, "powerups: give q, p, r or s"));
}

static void test_mode_commands(void **state)
{
	struct fix *f = *state;
	char buf[16];

	two_players(f);
	cmd(f, 0, "duel", NULL);
	assert_true(printed(f, "1 on 1 settings enabled by alice"));
	assert_int_equal((int)f->s.mock.timelimit, 10);
	assert_int_equal((int)f->s.mock.teamplay, 0);
	assert_int_equal((int)f->s.mock.deathmatch, 3);
	assert_string_equal(match_get(f->m, "k_mode", buf, sizeof(buf)), "1");
	assert_string_equal(match_get(f->m, "k_pow", buf, sizeof(buf)), "0");
	assert_int_equal(match_mode(f->m), MATCH_MODE_1ON1);
	f->present = "configs/usermodes/4on4/default.cfg";
	cmd(f, 0, "4on4", NULL);
	assert_int_equal((int)f->s.mock.timelimit, 20);
	assert_int_equal((int)f->s.mock.teamplay, 2);
	assert_int_equal((int)f->s.mock.deathmatch, 1);
	assert_string_equal(match_get(f->m, "k_membercount", buf, sizeof(buf)), "3");
	assert_string_equal(match_get(f->m, "k_mode", buf, sizeof(buf)), "2");
	assert_string_equal(f->lines[f->num_lines - 1],
			    "exec configs/usermodes/4on4/default.cfg");
	cmd(f, 0, "ffa", NULL);
	assert_int_equal((int)f->s.mock.teamplay, 0);
	assert_string_equal(match_get(f->m, "k_mode", buf, sizeof(buf)), "3");
	cmd(f, 0, "ctf", NULL);
	assert_true(printed(f, "CTF is not available"));
	/* the console's form */
	assert_true(match_mode_console(f->m, "2on2"));
	assert_false(match_mode_console(f->m, "5on5"));
	assert_int_equal((int)f->s.mock.timelimit, 10);
}

static void test_start_conditions(void **state)
{
	struct fix *f = *state;

	two_players(f);
	cmd(f, 0, "4on4", NULL);
	run(f, 0.1);
	/* no team: refused */
	cmd(f, 0, "ready", NULL);
	assert_true(printed(f, "Set your team before ready!"));
	assert_false(match_ready(f->m, 0));
	game_client_userinfo(f->s.g, 0, "alice", "red", 4);
	game_client_userinfo(f->s.g, 1, "bob", "blue", 13);
	cmd(f, 0, "ready", NULL);
	assert_true(printed(f, "alice is ready [red]"));
	cmd(f, 1, "ready", NULL);
	assert_true(printed(f, "Server wants at least 3 players in each team"));
	assert_int_equal(match_state(f->m), MATCH_PREWAR);
	/* one team only, where two are wanted */
	cmd(f, 0, "break", NULL);
	cmd(f, 1, "break", NULL);
	set(f, "k_membercount", "1");
	set(f, "k_lockmin", "2");
	cmd(f, 0, "ready", NULL);
	assert_true(printed(f, "1 more team required!"));
	/* a duel of three */
	cmd(f, 0, "break", NULL);
	cmd(f, 0, "1on1", NULL);
	scen_join(&f->s, 2, "carol");
	cmd(f, 0, "ready", NULL);
	assert_true(printed(f, "Get rid of 1 player!"));
	assert_int_equal(match_state(f->m), MATCH_PREWAR);
}

static void test_pause_unpause_countdown(void **state)
{
	struct fix *f = *state;

	set(f, "k_count", "3");
	f->s.mock.timelimit = 10;
	two_players(f);
	cmd(f, 0, "pause", NULL);	/* prewar: nothing (KTX) */
	run(f, 4);
	assert_int_equal(f->s.mock.pause_calls, 0);
	start(f);
	cmd(f, 0, "pause", NULL);
	assert_true(printed(f, "Pause is not allowed"));
	f->s.mock.pausable = 1;
	cmd(f, 0, "pause", NULL);
	run(f, 0.1);
	assert_true(centered(f, "pausing\n\n3"));
	cmd(f, 1, "pause", NULL);
	assert_true(printed(f, "Pause already in progress."));
	run(f, 3);
	assert_int_equal((int)f->s.mock.paused, 1);
	assert_true(printed(f, "alice paused the game. He has 3 remaining request(s)."));
	/* the clock stands still while paused */
	run(f, 120);
	assert_int_equal(match_state(f->m), MATCH_PLAYING);
	cmd(f, 1, "pause", NULL);
	assert_true(printed(f, "bob unpaused the game (will resume in 3 seconds)"));
	run(f, 0.1);
	assert_true(centered(f, "unpausing\n\n3"));
	cmd(f, 0, "pause", NULL);
	assert_true(printed(f, "Unpause is pending, 2 seconds"));
	run(f, 2);
	assert_int_equal((int)f->s.mock.paused, 1);
	run(f, 1);
	assert_int_equal((int)f->s.mock.paused, 0);
	assert_true(printed(f, "game unpaused"));
	assert_string_equal(match_status(f->m), "10 min left");
}

static void test_commands_list_and_info(void **state)
{
	struct fix *f = *state;

	two_players(f);
	forget_prints(f);
	cmd(f, 0, "commands", NULL);
	assert_true(printed(f, "common commands for player:"));
	assert_true(printed(f, "ready...... when you feel ready"));
	assert_true(printed(f, "break...... unready / vote matchend"));
	cmd(f, 0, "about", NULL);
	assert_true(printed(f, "ABOUT"));
	cmd(f, 0, "rules", NULL);
	assert_true(printed(f, "Server is in FFA mode."));
	cmd(f, 0, "lastscores", NULL);
	assert_true(printed(f, "No scores of a last game"));
	{
		const char *argv[1] = {"jump"};

		assert_false(match_command(f->m, 0, 1, argv));
	}
	for (int i = 0; i < match_command_count(); i++)
		assert_non_null(match_command_info(i)->help);
}

static void test_settings_validated(void **state)
{
	struct fix *f = *state;
	char err[160], buf[16];

	assert_int_equal(match_set(f->m, "k_overtime", "7", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "k_overtime"));
	assert_non_null(strstr(err, "0 to 3"));
	assert_int_equal(match_set(f->m, "k_count", "ten", err, sizeof(err)), -1);
	assert_int_equal(match_set(f->m, "k_defmode", "5on5", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a mode"));
	assert_int_equal(match_set(f->m, "k_defmap", "../etc", err, sizeof(err)), -1);
	assert_int_equal(match_set(f->m, "k_nosuch", "1", err, sizeof(err)), -1);
	assert_int_equal(match_set(f->m, "k_count", "5.0", err, sizeof(err)), 0);
	assert_string_equal(match_get(f->m, "k_count", buf, sizeof(buf)), "5");
	assert_string_equal(match_get(f->m, "k_overtime", buf, sizeof(buf)), "1");
	assert_int_equal(match_set(f->m, "k_defmode", "duel", err, sizeof(err)), 0);
	assert_int_equal(match_set(f->m, "k_defmap", "dm6", err, sizeof(err)), 0);
}

/* alice fires the shaft once, both standing in the pool */
static void shaft_in_pool(struct fix *f)
{
	respawn(f, 0);
	respawn(f, 1);
	scen_place(&f->s, 0, 200, 300, STAND, 0);
	scen_place(&f->s, 1, 400, 300, STAND, 180);
	run(f, 0.1);
	scen_give(&f->s, 0, IT_LIGHTNING, 50);
	scen_hold(&f->s, 0, 0, 0, 0, 0, 1);
	run(f, SCEN_TICK);
	scen_hold(&f->s, 0, 0, 0, 0, 0, 0);
	run(f, 0.3);
}

static void test_discharge_rules(void **state)
{
	struct fix *f = *state;

	set(f, "k_count", "3");
	two_players(f);
	/* prewar: the shaft fires as on land (KTX: no discharge) */
	shaft_in_pool(f);
	assert_true(scen_player(&f->s, 0)->waterlevel >= 2);
	assert_int_equal(scen_client(&f->s, 0)->ammo_cells, 49);
	assert_true(scen_player(&f->s, 1)->health < 100);
	assert_true(scen_player(&f->s, 0)->health > 0);
	start(f);
	/* k_dis 0: the cells go, no blast */
	set(f, "k_dis", "0");
	shaft_in_pool(f);
	assert_int_equal(scen_client(&f->s, 0)->ammo_cells, 0);
	assert_true(scen_player(&f->s, 0)->health >= 100);
	assert_true(scen_player(&f->s, 1)->health >= 100);
	/* k_dis 1: the discharge (50 cells: everyone near dies) */
	set(f, "k_dis", "1");
	shaft_in_pool(f);
	assert_int_equal(scen_client(&f->s, 0)->ammo_cells, 0);
	assert_true(scen_player(&f->s, 0)->health <= 0);
	assert_true(scen_player(&f->s, 1)->health <= 0);
}

static void test_empty_server_goes_home(void **state)
{
	struct fix *f = *state;

	set(f, "k_defmode", "1on1");
	set(f, "k_defmap", "dm6");
	two_players(f);
	game_client_disconnect(f->s.g, 0);
	game_client_disconnect(f->s.g, 1);
	run(f, 0.1);
	assert_int_equal(match_mode(f->m), MATCH_MODE_1ON1);
	assert_string_equal(f->lines[f->num_lines - 1], "map dm6");
}

/* KTX runs k_defmode's user mode on the server's first map, not on later
 * ones (those keep the mode the server has) */
static void test_first_level_runs_defmode(void **state)
{
	struct fix *f = *state;
	struct match_services svc = {0};
	bool ran;

	svc.ctx = f;
	svc.status = t_status;
	svc.command = t_command;
	svc.file_exists = t_exists;
	svc.event = t_event;
	match_destroy(f->m);
	f->m = match_create(f->s.g, &svc);
	assert_non_null(f->m);
	set(f, "k_defmode", "2on2");
	match_level_begin(f->m);
	assert_int_equal(match_mode(f->m), MATCH_MODE_2ON2);
	assert_true(f->num_lines > 0);
	ran = false;
	for (int i = 0; i < f->num_lines; i++)
		ran = ran || strstr(f->lines[i], "k_mode 2") != NULL;
	assert_true(ran);
	set(f, "k_defmode", "1on1");
	match_level_begin(f->m);
	assert_int_equal(match_mode(f->m), MATCH_MODE_2ON2);
}

/* the room's two spots and two more: four */
static void spots_map(struct mapsrc *m)
{
	ms_open(m, "\"classname\" \"info_player_deathmatch\" \"origin\" \"-256 256 24\"");
	ms_close(m);
	ms_open(m, "\"classname\" \"info_player_deathmatch\" \"origin\" \"256 256 24\"");
	ms_close(m);
}

static int setup_spots(void **state)
{
	int rc = setup_on(state, false, spots_map);

	set(*state, "k_count", "3");
	return rc;
}

/* the four spots of spots_map's room */
static const float spot_xy[4][2] = {{-256, -256}, {256, -256}, {-256, 256}, {256, 256}};

/* which of the four spots slot stands at (-1: none) */
static int spot_of(struct fix *f, int slot)
{
	const float *o = scen_player(&f->s, slot)->obj->origin;

	for (int i = 0; i < 4; i++)
		if (fabsf(o[0] - spot_xy[i][0]) < 1 && fabsf(o[1] - spot_xy[i][1]) < 1)
			return i;
	return -1;
}

/* 3 s on (every guard over), slot kills itself and is put in again at
 * once (QuakeWorld's kill): the spot it got */
static int again(struct fix *f, int slot)
{
	run(f, 3);
	game_client_kill(f->s.g, slot);
	assert_true(scen_player(&f->s, slot)->health > 0);
	return spot_of(f, slot);
}

/* bob (slot 1) stands still at spot i, as long there as his guard lasts */
static void bob_at(struct fix *f, int i)
{

	scen_place(&f->s, 1, spot_xy[i][0], spot_xy[i][1], STAND, 0);
}

/* k_spw 1: never the last spot, never a spot a living player is near */
static void test_spawn_model_1(void **state)
{
	struct fix *f = *state;
	int last = -1;

	set(f, "k_spw", "1");
	two_players(f);
	start(f);
	run(f, 3);
	bob_at(f, 3);
	for (int i = 0; i < 30; i++) {
		int s = again(f, 0);

		assert_true(s >= 0);
		assert_int_not_equal(s, last);
		assert_int_not_equal(s, 3);
		bob_at(f, 3);
		last = s;
	}
	assert_true(scen_player(&f->s, 1)->health > 0);
}

/* k_spw 2 and 3: never the last spot; a player out of his guard (2.6 s
 * after his spawn) keeps no spot, he is telefragged there */
static void test_spawn_models_2_3(void **state)
{
	struct fix *f = *state;

	for (int model = 2; model <= 3; model++) {
		int last = -1, taken = 0;

		set(f, "k_spw", model == 2 ? "2" : "3");
		if (match_state(f->m) != MATCH_PLAYING) {
			two_players(f);
			start(f);
		}
		run(f, 3);
		for (int i = 0; i < 30; i++) {
			int s;

			respawn(f, 1);
			bob_at(f, 3);
			s = again(f, 0);	/* bob's guard is over */
			assert_true(s >= 0);
			assert_int_not_equal(s, last);
			if (s == 3) {
				taken++;
				assert_true(scen_player(&f->s, 1)->health <= 0);
			}
			last = s;
		}
		assert_true(taken > 0);
	}
}

/* k_spw 4, the default: a player just spawned keeps his spot; the last
 * spot comes back seldom (drawn twice) where model 0 gives it a quarter
 * of the time */
static void test_spawn_model_4(void **state)
{
	struct fix *f = *state;
	int last = -1, repeats = 0;

	two_players(f);
	start(f);
	for (int i = 0; i < 40; i++) {
		int s = again(f, 0);

		assert_true(s >= 0);
		repeats += s == last;
		last = s;
	}
	assert_true(repeats <= 5);
	/* bob is put in; alice right after him, within his guard: never on
	 * his spot, and he lives */
	for (int i = 0; i < 20; i++) {
		int b;

		respawn(f, 1);	/* telefragged by alice above */
		respawn(f, 0);
		run(f, 3);
		scen_place(&f->s, 0, 0, 0, STAND, 0);	/* off every spot */
		game_client_kill(f->s.g, 1);
		b = spot_of(f, 1);
		assert_true(b >= 0);
		game_client_kill(f->s.g, 0);
		assert_true(spot_of(f, 0) >= 0);
		assert_int_not_equal(spot_of(f, 0), b);
		assert_true(scen_player(&f->s, 1)->health > 0);
	}
}

/* the spawn command cycles k_spw in prewar */
static void test_spawn_command(void **state)
{
	struct fix *f = *state;

	two_players(f);
	cmd(f, 0, "spawnmodel", NULL);
	assert_true(printed(f, "Normal QW respawns"));
	cmd(f, 0, "spawnmodel", NULL);
	assert_true(printed(f, "KT SpawnSafety"));
}

/* dp 0 (droppack): a frag leaves no backpack; dp 1 one */
static void test_drop_pack(void **state)
{
	struct fix *f = *state;

	set(f, "k_count", "3");
	two_players(f);
	/* KTX drops no backpack before the match */
	frag(f, 0, 1);
	assert_int_equal(scen_count(&f->s, "backpack"), 0);
	cmd(f, 0, "droppack", NULL);
	assert_true(printed(f, "DropPacks off"));
	start(f);
	frag(f, 1, 0);
	assert_int_equal(scen_count(&f->s, "backpack"), 0);
	set(f, "dp", "1");
	frag(f, 0, 1);
	assert_int_equal(scen_count(&f->s, "backpack"), 1);
	/* matchless: stock deathmatch, packs always */
	set(f, "k_matchless", "1");
	run(f, 0.1);
	frag(f, 1, 0);
	assert_int_equal(scen_count(&f->s, "backpack"), 2);
}

/* dq 1: in a match a quad carrier's death leaves a quad that gives its
 * taker the time left; dq 0: nothing stays */
static void test_drop_quad(void **state)
{
	struct fix *f = *state;
	struct game_entity *placed = scen_find(&f->s, "item_artifact_super_damage");

	set(f, "k_count", "3");
	two_players(f);
	cmd(f, 0, "dropquad", NULL);
	assert_true(printed(f, "DropQuad on"));
	start(f);
	assert_int_equal(scen_count(&f->s, "item_artifact_super_damage"), 1);
	/* bob has 20 s of quad left and dies */
	respawn(f, 1);
	scen_client(&f->s, 1)->super_damage_finished = f->s.g->time + 20;
	scen_player(&f->s, 1)->items |= IT_QUAD;
	frag(f, 0, 1);
	assert_int_equal(scen_count(&f->s, "item_artifact_super_damage"), 2);
	/* alice walks over it: she has the time that was left (20 s less
	 * the frag's 0.5 s, and whatever passes till she gets there) */
	for (int i = 1; i < f->s.g->num_entities; i++) {
		struct game_entity *e = &f->s.g->ents[i];

		if (e->inuse && e != placed &&
		    !strcmp(e->classname, "item_artifact_super_damage")) {
			scen_place(&f->s, 0, e->obj->origin[0], e->obj->origin[1],
				   STAND, 0);
			break;
		}
	}
	run(f, 0.2);
	assert_int_equal(scen_count(&f->s, "item_artifact_super_damage"), 1);
	{
		double left = scen_client(&f->s, 0)->super_damage_finished - f->s.g->time;

		assert_true(left > 18 && left < 20);
	}
	/* dq 0: a carrier's death leaves nothing */
	set(f, "dq", "0");
	scen_client(&f->s, 0)->super_damage_finished = f->s.g->time + 20;
	frag(f, 1, 0);
	assert_int_equal(scen_count(&f->s, "item_artifact_super_damage"), 1);
}

/* in a match, k_frp 2: the backpack holds the last weapon fired; 1:
 * the best weapon with ammo; 0: the one in hand.  The fairpacks command
 * turns 0, 1, 2 in prewar */
static void test_fair_packs(void **state)
{
	struct fix *f = *state;

	set(f, "k_count", "3");
	two_players(f);
	cmd(f, 0, "fairpacks", NULL);
	assert_true(printed(f, "Fairpacks enabled - drop best weapon"));
	cmd(f, 0, "fairpacks", NULL);
	assert_true(printed(f, "Fairpacks enabled - drop last fired weapon"));
	start(f);
	for (int frp = 2; frp >= 0; frp--) {
		static const int want[] = {IT_SUPER_SHOTGUN, IT_GRENADE_LAUNCHER, IT_NAILGUN};
		struct game_entity *pack;
		char v[4];

		snprintf(v, sizeof(v), "%d", frp);
		set(f, "k_frp", v);
		respawn(f, 1);
		scen_place(&f->s, 1, -300, 300, STAND, 90);
		scen_give(&f->s, 1, IT_GRENADE_LAUNCHER, 10);
		scen_give(&f->s, 1, IT_NAILGUN, 50);
		scen_hold(&f->s, 1, 0, 90, 0, 0, 1);	/* one nail, at the wall */
		run(f, SCEN_TICK);
		scen_hold(&f->s, 1, 0, 90, 0, 0, 0);
		run(f, 0.3);
		assert_int_equal(scen_client(&f->s, 1)->last_fired, IT_NAILGUN);
		scen_give(&f->s, 1, IT_SUPER_SHOTGUN, 20);	/* in hand */
		frag(f, 0, 1);
		pack = scen_find(&f->s, "backpack");
		assert_non_null(pack);
		assert_int_equal(pack->items, want[frp]);
		pack->touch = NULL;	/* the next frag's pack is the one found */
		pack->classname = "taken";
	}
	cmd(f, 0, "fairpacks", NULL);
	assert_true(printed(f, "Command blocked: a match is on"));
}

/* KTX's MOTD: the operator's lines, the bar, "Running qwd" and the
 * hints, centerprinted again and again for k_motd_time seconds to a
 * player entering, then cleared; stopped by a shot (at KTX's think);
 * the motd command;
 * "Welcome" without lines; the lines checked */
static void test_motd(void **state)
{
	struct fix *f = *state;
	char text[2048], err[160];
	int calls;

	set(f, "k_motd1", "qwd duel server");
	set(f, "k_motd2", "be nice");
	set(f, "k_motd_time", "3");
	scen_join(&f->s, 0, "alice");
	run(f, 0.6);
	assert_true(centered(f, "qwd duel server\nbe nice\n"));
	assert_true(centered(f, "Running qwd"));
	assert_true(centered(f, "Type \"commands\" for available commands"));
	assert_int_equal(f->s.mock.centerprint_slot, 0);
	calls = f->s.mock.centerprint_calls;
	run(f, 2.0);
	assert_true(f->s.mock.centerprint_calls >= calls + 2);	/* repeated */
	run(f, 1.0);
	assert_string_equal(f->s.mock.centerprint, "");	/* time out: cleared */
	calls = f->s.mock.centerprint_calls;
	run(f, 2.0);
	assert_int_equal(f->s.mock.centerprint_calls, calls);
	/* the command: 10 s more; asked again, said so; a shot ends it */
	cmd(f, 0, "motd", NULL);
	run(f, 0.6);
	assert_true(centered(f, "be nice"));
	cmd(f, 0, "motd", NULL);
	assert_true(printed(f, "Already showing motd"));
	/* KTX looks at the shot at the MOTD's think (every 0.7 s): the
	 * player's attack_finished still ahead, he fired within his
	 * weapon's reload; fire held over a think ends it */
	scen_hold(&f->s, 0, 0, 0, 0, 0, 1);
	run(f, 0.8);
	scen_hold(&f->s, 0, 0, 0, 0, 0, 0);
	assert_true(f->s.g->ents[game_player_entity(f->s.g, 0)].attack_finished > 0);
	calls = f->s.mock.centerprint_calls;
	run(f, 2.0);
	assert_int_equal(f->s.mock.centerprint_calls, calls);
	/* no lines: KTX's Welcome */
	set(f, "k_motd1", "");
	set(f, "k_motd2", "");
	match_motd_text(f->m, text, sizeof(text));
	assert_memory_equal(text, "Welcome\n\n", 9);
	/* a line with a control character, a time past 30: refused */
	assert_int_equal(match_set(f->m, "k_motd3", "a\nb", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "k_motd3"));
	assert_int_equal(match_set(f->m, "k_motd_time", "31", err, sizeof(err)), -1);
}

/* The MOTD's slots between the walks over every slot (match_frame makes
 * the list of slots shown it when the roster moves, and sees to those
 * alone otherwise): a player joining while another is shown it, one
 * leaving while shown it (nothing more to it, and again in full when he
 * comes back), the command for one already cleared, and a level change
 * showing it to everyone again. */
static void test_motd_slots(void **state)
{
	struct fix *f = *state;
	int calls;

	set(f, "k_motd1", "hello");
	set(f, "k_motd_time", "2");
	scen_join(&f->s, 0, "alice");
	run(f, 1.0);
	scen_join(&f->s, 1, "bob");
	run(f, 0.6);
	assert_int_equal(f->s.mock.centerprint_slot, 1);
	assert_true(centered(f, "hello"));
	/* KTX's thinks, every 0.7 s from 0.4 s after the join: alice's at
	 * 0.4, 1.1, 1.8 and 2.5 s of hers, bob's at 1.4, 2.1, 2.8 of
	 * alice's; her 2 s end at her first think past them, 2.5 */
	run(f, 0.55);	/* 2.15: bob's think printed; alice's time is out
			 * but her think has not come */
	assert_int_equal(f->s.mock.centerprint_slot, 1);
	assert_true(centered(f, "hello"));
	run(f, 0.4);	/* 2.55: her think cleared it */
	assert_int_equal(f->s.mock.centerprint_slot, 0);
	assert_string_equal(f->s.mock.centerprint, "");
	run(f, 0.3);	/* 2.85: bob's still on */
	assert_int_equal(f->s.mock.centerprint_slot, 1);
	assert_true(centered(f, "hello"));
	/* bob leaves while shown it: nothing more to his slot */
	game_client_disconnect(f->s.g, 1);
	run(f, 0.1);
	calls = f->s.mock.centerprint_calls;
	run(f, 3.0);
	assert_int_equal(f->s.mock.centerprint_calls, calls);
	/* back: his full time again, then cleared at his think at 2.5 s */
	scen_join(&f->s, 1, "bob");
	run(f, 0.6);
	assert_int_equal(f->s.mock.centerprint_slot, 1);
	assert_true(centered(f, "hello"));
	run(f, 1.7);	/* 2.3: printed at 1.8, not yet cleared */
	assert_int_equal(f->s.mock.centerprint_slot, 1);
	assert_true(centered(f, "hello"));
	run(f, 0.3);
	assert_int_equal(f->s.mock.centerprint_slot, 1);
	assert_string_equal(f->s.mock.centerprint, "");
	calls = f->s.mock.centerprint_calls;
	run(f, 1.0);
	assert_int_equal(f->s.mock.centerprint_calls, calls);
	/* the command, for alice alone, with no roster change */
	cmd(f, 0, "motd", NULL);
	run(f, 0.6);
	assert_int_equal(f->s.mock.centerprint_slot, 0);
	assert_true(centered(f, "hello"));
	run(f, 10.0);
	assert_string_equal(f->s.mock.centerprint, "");
	/* a new level: both are shown it again */
	match_level_begin(f->m);
	calls = f->s.mock.centerprint_calls;
	run(f, 0.6);
	assert_true(f->s.mock.centerprint_calls >= calls + 2);
	run(f, 2.0);
	assert_string_equal(f->s.mock.centerprint, "");
	calls = f->s.mock.centerprint_calls;
	run(f, 1.0);
	assert_int_equal(f->s.mock.centerprint_calls, calls);
}

/* KTX's idle bot: half the players ready starts it; the others are
 * counted down and kicked, and the match starts; fewer than half ready
 * stops it */
static void test_idle_bot(void **state)
{
	struct fix *f = *state;

	set(f, "k_idletime", "10");
	scen_join(&f->s, 0, "alice");
	scen_join(&f->s, 1, "bob");
	scen_join(&f->s, 2, "carol");
	run(f, 0.3);
	/* one of two ready then breaks: the bot comes and goes */
	cmd(f, 0, "ready", NULL);
	assert_false(printed(f, "server activates the idle bot"));	/* 1 of 3 */
	cmd(f, 1, "ready", NULL);
	assert_true(printed(f, "server activates the idle bot"));
	cmd(f, 1, "break", NULL);
	run(f, 1.1);
	assert_true(printed(f, "console: bah! chickening out?\nserver disables the idle bot"));
	forget_prints(f);
	run(f, 12);
	assert_false(printed(f, "tired of waiting"));
	/* again, to the end */
	cmd(f, 1, "ready", NULL);
	assert_true(printed(f, "server activates the idle bot"));
	run(f, 5.5);
	/* at 5, 10, ... and each of the last four: 9..6 unsaid */
	assert_true(printed(f, "console: 5 seconds to go ready") &&
		    !printed(f, "console: 6 seconds to go ready"));
	run(f, 3.0);
	assert_true(printed(f, "console: 1 second to go ready"));
	assert_int_equal(match_state(f->m), MATCH_PREWAR);
	run(f, 1.5);
	assert_true(printed(f, "server is tired of waiting\nmatch WILL commence!"));
	assert_true(printed(f, "carol was kicked by IDLE BOT"));
	assert_true(printed(f, "Bye bye! Pay attention next time."));
	assert_false(scen_client(&f->s, 2)->active);
	assert_int_equal(match_state(f->m), MATCH_COUNTDOWN);
}

/* KTX's matchtag: the words after a mode command, cleaned; in the
 * serverinfo and the countdown; a mode without words takes it away */
static void test_matchtag(void **state)
{
	struct fix *f = *state;

	two_players(f);
	cmd(f, 0, "ffa", "cup;final");
	assert_true(printed(f, "matchtag is cup_final"));
	assert_string_equal(match_matchtag(f->m), "cup_final");
	assert_string_equal(f->matchtag, "cup_final");
	cmd(f, 0, "ready", NULL);
	cmd(f, 1, "ready", NULL);
	run(f, 0.05);
	assert_true(centered(f, "matchtag cup_final"));
	cmd(f, 0, "break", NULL);
	assert_int_equal(match_state(f->m), MATCH_PREWAR);
	cmd(f, 0, "ffa", NULL);
	assert_true(printed(f, "matchtag disabled"));
	assert_string_equal(f->matchtag, "");
	cmd(f, 0, "ffa", NULL);
	assert_true(printed(f, "matchtag not set"));
	cmd(f, 0, "ffa", "a-very-long-matchtag-of-a-cup");
	assert_int_equal(strlen(match_matchtag(f->m)), 19);
	/* a tagged match may be paused with pausable 0 (KTX) */
	set(f, "k_count", "3");
	f->s.mock.timelimit = 10;
	start(f);
	cmd(f, 0, "pause", NULL);
	run(f, 0.1);
	assert_false(printed(f, "Pause is not allowed"));
	assert_true(centered(f, "pausing"));
}

/* docs/match.md's "KTX's commands: what qwd has": every KTX name it
 * marks "yes" is in qwd's command table, and every command of the table
 * is named in the section */
static void test_commands_table_matches_docs(void **state)
{
	static char doc[65536];	/* the section */
	char path[1024], line[1024];
	const char *src = qwd_bundled_map_source("x");
	const char *cut = strstr(src, "/maps/x.map");
	bool in = false;
	int yes = 0;
	size_t len = 0;
	FILE *fp;

	(void)state;
	assert_non_null(cut);
	snprintf(path, sizeof(path), "%.*s/docs/match.md", (int)(cut - src), src);
	fp = fopen(path, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		char *qwd;

		if (!strncmp(line, "## ", 3))
			in = !strcmp(line, "## KTX's commands: what qwd has\n");
		if (!in)
			continue;
		assert_true(len + strlen(line) < sizeof(doc));
		memcpy(doc + len, line, strlen(line) + 1);
		len += strlen(line);
		/* | `a`, `b` | what | yes ... | */
		qwd = strrchr(line, '|');
		if (line[0] != '|' || line[2] != '`' || !qwd)
			continue;
		*qwd = '\0';
		qwd = strrchr(line, '|');
		if (strncmp(qwd, "| yes", 5) != 0)
			continue;
		for (char *p = line + 2; *p == '`';) {
			char *end = strchr(p + 1, '`');
			bool found = false;

			assert_non_null(end);
			*end = '\0';
			for (int i = 0; i < match_command_count(); i++)
				found |= !strcmp(match_command_info(i)->name, p + 1);
			if (!found)
				fail_msg("docs/match.md says qwd has \"%s\"; commands.c has not", p + 1);
			yes++;
			p = end + 1;
			p += strspn(p, ", ");
		}
	}
	fclose(fp);
	assert_true(yes >= 30);
	for (int i = 0; i < match_command_count(); i++) {
		char want[64];

		snprintf(want, sizeof(want), "`%s`", match_command_info(i)->name);
		if (!strstr(doc, want))
			fail_msg("qwd's command \"%s\" is not in docs/match.md's KTX table", want);
	}
}

static const struct CMUnitTest match_tests[] = {
	cmocka_unit_test_setup_teardown(test_prewar_frags_not_counted, setup, teardown),
	cmocka_unit_test_setup_teardown(test_ready_break_toggle, setup, teardown),
	cmocka_unit_test_setup_teardown(test_countdown_length_is_k_count, setup, teardown),
	cmocka_unit_test_setup_teardown(test_break_stops_countdown, setup, teardown),
	cmocka_unit_test_setup_teardown(test_reset_at_start, setup, teardown),
	cmocka_unit_test_setup_teardown(test_clock_status_and_timelimit, setup, teardown),
	cmocka_unit_test_setup_teardown(test_fraglimit_ends, setup, teardown),
	cmocka_unit_test_setup_teardown(test_match_statistics, setup, teardown),
	cmocka_unit_test_setup_teardown(test_overtime_extra_time, setup, teardown),
	cmocka_unit_test_setup_teardown(test_no_overtime_when_not_tied, setup, teardown),
	cmocka_unit_test_setup_teardown(test_sudden_death, setup, teardown),
	cmocka_unit_test_setup_teardown(test_tie_break, setup, teardown),
	cmocka_unit_test_setup_teardown(test_break_vote_returns_to_prewar, setup, teardown),
	cmocka_unit_test_setup_teardown(test_powerups_off_removes_quad, setup, teardown),
	cmocka_unit_test_setup_teardown(test_mode_commands, setup, teardown),
	cmocka_unit_test_setup_teardown(test_start_conditions, setup, teardown),
	cmocka_unit_test_setup_teardown(test_pause_unpause_countdown, setup, teardown),
	cmocka_unit_test_setup_teardown(test_commands_list_and_info, setup, teardown),
	cmocka_unit_test_setup_teardown(test_settings_validated, setup, teardown),
	cmocka_unit_test_setup_teardown(test_empty_server_goes_home, setup, teardown),
	cmocka_unit_test_setup_teardown(test_first_level_runs_defmode, setup, teardown),
	cmocka_unit_test_setup_teardown(test_discharge_rules, setup_pool, teardown),
	cmocka_unit_test_setup_teardown(test_spawn_model_1, setup_spots, teardown),
	cmocka_unit_test_setup_teardown(test_spawn_models_2_3, setup_spots, teardown),
	cmocka_unit_test_setup_teardown(test_spawn_model_4, setup_spots, teardown),
	cmocka_unit_test_setup_teardown(test_spawn_command, setup_spots, teardown),
	cmocka_unit_test_setup_teardown(test_drop_pack, setup, teardown),
	cmocka_unit_test_setup_teardown(test_drop_quad, setup, teardown),
	cmocka_unit_test_setup_teardown(test_fair_packs, setup, teardown),
	cmocka_unit_test_setup_teardown(test_motd, setup, teardown),
	cmocka_unit_test_setup_teardown(test_motd_slots, setup, teardown),
	cmocka_unit_test_setup_teardown(test_idle_bot, setup, teardown),
	cmocka_unit_test_setup_teardown(test_matchtag, setup, teardown),
	cmocka_unit_test(test_commands_table_matches_docs),
};

QWD_TEST_GROUP(match, match_tests, NULL, NULL)
