/*
 * tests/game/test_pmove.c -- QuakeWorld player movement (src/game/pmove.c).
 *
 * Design note: the maps are built from brushes in memory (brush_map.h) so
 * every height and distance is known; one test climbs the west stairs of
 * the bundled large map (maps/gen/mkmaps.py), compiled by qwmap, and one,
 * when the community maps are there, the real staircase of
 * ewt_stairsteptest.bsp.  Expected numbers come from the movement rules
 * themselves, recomputed here in double precision frame by frame:
 *   ground friction  v -= max(v, stopspeed) * friction * ft  (x2 at a drop)
 *   acceleration     v += min(accelerate * ft * wishspeed, wishspeed - v)
 *   water            friction v * waterfriction * waterlevel * ft, wish
 *                    speed 0.7 x max, a 60 units/s drift down with no input
 *   gravity          vz -= 800 * ft, the same frame as a jump's +270
 * with ft = 13 ms.  A player at rest on a floor at height h has its origin
 * at h + 24 + 1/32 (the box's feet, and the 1/32 a trace stops short).
 */
#include "../harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/game.h"
#include "brush_map.h"

enum { MAX_OBJS = 128, MSEC = 13 };

#define FT ((double)(float)(MSEC * 0.001))
#define REST (24 + 1.0 / 32)	/* origin height above the floor at rest */
#define GRAVITY_STEP (800 * FT)

struct fx {
	struct brush_map bm;
	struct world w;
	struct world_obj objs[MAX_OBJS];
	struct pmove_vars mv;
	struct pmove_player p;
	struct pmove_result res;
	struct bsp_map *loaded;	/* a real map, freed by the teardown */
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	bm_init(&f->bm);
	pmove_vars_default(&f->mv);
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	world_free(&f->w);
	if (f->loaded)
		bsp_free(f->loaded);
	free(f);
	return 0;
}

/* the standard room: floor at 0, 1024 x 512 x 256 */
static void fx_room(struct fx *f)
{
	bm_room(&f->bm, -512, -256, 0, 512, 256, 256);
}

/* the world over map (the one before, if any, released) */
static void fx_world(struct fx *f, const struct bsp_map *map)
{
	world_free(&f->w);
	assert_int_equal(world_init(&f->w, map, f->objs, MAX_OBJS), 0);
}

static void fx_ready(struct fx *f)
{
	fx_world(f, bm_finish(&f->bm));
}

static void fx_place(struct fx *f, double x, double y, double z)
{
	static const vec3_t zero = {0, 0, 0};
	const float org[3] = {(float)x, (float)y, (float)z};

	pmove_player_reset(&f->p, org, zero);
}

static struct usercmd mkcmd(int msec, float pitch, float yaw, int fwd,
			    int side, int up, int buttons)
{
	struct usercmd c;

	memset(&c, 0, sizeof(c));
	c.msec = (uint8_t)msec;
	vec_set(c.angles, pitch, yaw, 0);
	c.forwardmove = (int16_t)fwd;
	c.sidemove = (int16_t)side;
	c.upmove = (int16_t)up;
	c.buttons = (uint8_t)buttons;
	return c;
}

static void run(struct fx *f, const struct usercmd *c)
{
	pmove_run(&f->w, NULL, &f->mv, c, &f->p, &f->res);
}

static double hspeed(const struct pmove_player *p)
{
	return sqrt((double)p->velocity[0] * p->velocity[0] +
		    (double)p->velocity[1] * p->velocity[1]);
}

#define assert_near(a, b, eps) \
	assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static bool has_touch(const struct pmove_result *r, int id)
{
	for (int i = 0; i < r->num_touch; i++)
		if (r->touch[i] == id)
			return true;
	return false;
}

/* ---- the expected values ------------------------------------------------- */

/* ground friction on a speed, as the rules say */
static double ground_friction(double v, double friction)
{
	double drop;

	if (v < 1)
		return 0;
	drop = (v < 100 ? 100 : v) * friction * FT;
	return v - drop > 0 ? v - drop : 0;
}

static double accelerate(double v, double wishspeed, double accel)
{
	double add = wishspeed - v, a = accel * FT * wishspeed;

	if (add <= 0)
		return v;
	return v + (a < add ? a : add);
}

/* ---- standing, walking, stopping ----------------------------------------- */

static void test_stand_still(void **state)
{
	struct fx *f = *state;
	struct usercmd c = mkcmd(MSEC, 0, 0, 0, 0, 0, 0);
	vec3_t start;

	fx_room(f);
	fx_ready(f);
	fx_place(f, 0, 0, REST);
	vec_copy(f->p.origin, start);
	for (int i = 0; i < 200; i++) {
		run(f, &c);
		assert_true(vec_equal(f->p.origin, start));
		assert_true(f->p.velocity[0] == 0 && f->p.velocity[1] == 0 &&
			    f->p.velocity[2] == 0);
		assert_true(f->p.onground);
		assert_int_equal(f->p.groundent, 0);
		assert_int_equal(f->p.waterlevel, 0);
		assert_int_equal(f->p.watertype, CONTENTS_EMPTY);
		assert_int_equal(f->res.num_touch, 0);
	}

	/* under 1 unit/s friction stops the player before he moves */
	vec_set(f->p.velocity, 0.9f, 0, 0);
	run(f, &c);
	assert_true(vec_equal(f->p.origin, start));
	assert_true(f->p.velocity[0] == 0);
}

static void test_walk_accelerates_to_maxspeed(void **state)
{
	struct fx *f = *state;
	struct usercmd c = mkcmd(MSEC, 0, 0, 400, 0, 0, 0);
	double v = 0, x = -400;

	fx_room(f);
	fx_ready(f);
	fx_place(f, x, 0, REST);
	for (int i = 0; i < 100; i++) {
		v = accelerate(ground_friction(v, 4), 320, 10);
		x += v * FT;
		run(f, &c);
		assert_near(f->p.velocity[0], v, 1e-3);
		assert_near(f->p.velocity[1], 0, 0);
		assert_near(f->p.origin[0], x, 1e-2);
		assert_near(f->p.origin[2], REST, 1e-4);
		assert_true(f->p.onground);
	}
	/* the cap: friction takes 4 * 13 ms of it, acceleration gives back
	 * at most wishspeed - v, which lands on 320 exactly */
	assert_true(f->p.velocity[0] == 320);
	/* first frames by hand: 41.6, then 36.4 + 41.6, 72.8 + 41.6 */
	fx_place(f, -400, 0, REST);
	run(f, &c);
	assert_near(f->p.velocity[0], 41.6, 1e-4);
	run(f, &c);
	assert_near(f->p.velocity[0], 78.0, 1e-4);
	run(f, &c);
	assert_near(f->p.velocity[0], 114.4, 1e-4);
}

static void test_friction_stops(void **state)
{
	struct fx *f = *state;
	struct usercmd c = mkcmd(MSEC, 0, 0, 0, 0, 0, 0);
	double v = 320;
	int frames = 0;

	fx_room(f);
	fx_ready(f);
	fx_place(f, -400, 0, REST);
	f->p.velocity[0] = 320;
	while (v > 0) {
		v = ground_friction(v, 4);
		run(f, &c);
		assert_near(f->p.velocity[0], v, 1e-3);
		frames++;
		assert_true(frames < 100);
	}
	assert_true(f->p.velocity[0] == 0);
	/* 320 -> 100 proportionally (x 0.948), then 5.2 a frame */
	assert_int_equal(frames, 42);
}

static void test_strafe_is_diagonal_capped(void **state)
{
	struct fx *f = *state;
	struct usercmd c = mkcmd(MSEC, 0, 0, 400, 400, 0, 0);

	fx_room(f);
	fx_ready(f);
	fx_place(f, -300, 200, REST);
	for (int i = 0; i < 60; i++)
		run(f, &c);
	/* forward + right: the wish is capped at maxspeed, not 320 * 1.41 */
	assert_near(hspeed(&f->p), 320, 1e-2);
	assert_near(f->p.velocity[0], -f->p.velocity[1], 1e-2);
}

/* ---- jumping ------------------------------------------------------------- */

static void test_jump_profile_and_landing(void **state)
{
	struct fx *f = *state;
	struct usercmd jump = mkcmd(MSEC, 0, 0, 0, 0, 0, PMOVE_BUTTON_JUMP);
	struct usercmd none = mkcmd(MSEC, 0, 0, 0, 0, 0, 0);
	double vz = 270, z = REST, top = REST;
	int frames = 0;

	fx_room(f);
	fx_ready(f);
	fx_place(f, 0, 0, REST);

	for (;;) {
		vz -= GRAVITY_STEP;	/* gravity in the jump frame too */
		z += vz * FT;
		run(f, &jump);
		frames++;
		if (z < REST)
			break;
		if (z > top)
			top = z;
		assert_near(f->p.velocity[2], vz, 1e-3);
		assert_near(f->p.origin[2], z, 1e-3);
		assert_false(f->p.onground);
		assert_true(f->p.jump_held);
	}
	/* the landing frame: stopped by the floor, on it, at rest height */
	assert_near(f->p.origin[2], REST, 1e-3);
	assert_true(f->p.velocity[2] == 0);
	assert_true(f->p.onground);
	/* 270^2 / 1600 = 45.6 in continuous time; with gravity before the
	 * move, 25 frames up give 0.013 * (25 * 270 - 5.2 * 25 * 26) */
	assert_near(top - REST, 43.81, 1e-2);
	assert_int_equal(frames, 51);	/* about 2 * 270 / 800 s */

	/* jump still held: no pogo stick */
	for (int i = 0; i < 50; i++) {
		run(f, &jump);
		assert_true(f->p.onground);
		assert_near(f->p.origin[2], REST, 1e-3);
	}
	/* released for one frame, pressed again: a new jump */
	run(f, &none);
	assert_false(f->p.jump_held);
	run(f, &jump);
	assert_false(f->p.onground);
	assert_near(f->p.velocity[2], 270 - GRAVITY_STEP, 1e-4);
}

/* MVDSV's jump fix: a player snapped onto the ground while still moving
 * down jumps with the full 270 (id's code gave 270 + the downward speed) */
static void test_jump_right_after_landing(void **state)
{
	struct fx *f = *state;
	struct usercmd jump = mkcmd(MSEC, 0, 0, 0, 0, 0, PMOVE_BUTTON_JUMP);

	fx_room(f);
	fx_ready(f);
	fx_place(f, 0, 0, REST + 0.5);
	f->p.velocity[2] = -200;
	run(f, &jump);
	assert_near(f->p.velocity[2], 270 - GRAVITY_STEP, 1e-4);
	assert_near(f->p.origin[2], REST + (270 - GRAVITY_STEP) * FT, 1e-3);
}

/* a landing within a unit of the floor snaps onto it; faster than 300
 * down, the velocity is also clipped along the ground */
static void test_landing_snap_and_clip(void **state)
{
	struct fx *f = *state;
	struct usercmd none = mkcmd(MSEC, 0, 0, 0, 0, 0, 0);
	const double speeds[2] = {-400, -250};

	fx_room(f);
	fx_ready(f);
	for (int k = 0; k < 2; k++) {
		double vz = speeds[k] - GRAVITY_STEP;
		/* start so the move ends half a unit above the floor */
		double z0 = REST + 0.5 - vz * FT;

		fx_place(f, 0, 0, z0);
		f->p.velocity[2] = (float)speeds[k];
		run(f, &none);
		assert_true(f->p.onground);
		assert_near(f->p.origin[2], REST, 1e-3);
		if (vz < -300)
			assert_true(f->p.velocity[2] == 0);
		else
			assert_near(f->p.velocity[2], vz, 1e-3);
	}
}

static void test_ceiling_stops_rise(void **state)
{
	struct fx *f = *state;
	struct usercmd jump = mkcmd(MSEC, 0, 0, 0, 0, 0, PMOVE_BUTTON_JUMP);
	const double ceiling = 90 - 32;	/* origin height where the head hits */
	double vz = 270, z = REST;
	int frame = 0;

	fx_room(f);
	bm_box(&f->bm, 0, CONTENTS_SOLID, -512, -256, 90, 512, 256, 120);
	fx_ready(f);
	fx_place(f, 0, 0, REST);

	for (;;) {
		vz -= GRAVITY_STEP;
		z += vz * FT;
		run(f, &jump);
		frame++;
		if (z >= ceiling - 1.0 / 32)
			break;
		assert_near(f->p.origin[2], z, 1e-3);
	}
	/* the hit frame: stopped 1/32 below the ceiling, vertical speed 0 */
	assert_int_equal(frame, 14);
	assert_near(f->p.origin[2], ceiling - 1.0 / 32, 1e-3);
	assert_true(f->p.velocity[2] == 0);
	assert_false(f->p.onground);
	/* then it falls from there */
	run(f, &jump);
	assert_near(f->p.velocity[2], -GRAVITY_STEP, 1e-4);
	for (int i = 0; i < 60 && !f->p.onground; i++)
		run(f, &jump);
	assert_true(f->p.onground);
	assert_near(f->p.origin[2], REST, 1e-3);
}

/* ---- steps and ledges ---------------------------------------------------- */

/* stairs of 16-unit steps, 48 deep, from x = 64 */
static void build_stairs(struct fx *f, int steps, float rise)
{
	fx_room(f);
	for (int k = 1; k <= steps; k++)
		bm_box(&f->bm, 0, CONTENTS_SOLID, 64 + 48.0f * (k - 1), -256, 0,
		       512, 256, rise * k);
	fx_ready(f);
}

/* Run frames of c with the player moving at speed along axis (0 x, 1 y)
 * up stairs of 16-unit steps from a floor at height floor: no speed is
 * lost on any step, the move stays on its line and on the ground, never
 * goes down, and always rests on a step top. */
static void climb(struct fx *f, const struct usercmd *c, int axis,
		  float speed, double floor, int frames)
{
	double at = f->p.origin[axis];
	const float across = f->p.origin[!axis];
	float last_z = f->p.origin[2];

	f->p.velocity[axis] = speed;
	for (int i = 0; i < frames; i++) {
		run(f, c);
		at += speed * FT;
		assert_true(f->p.velocity[axis] == speed);
		assert_true(f->p.velocity[!axis] == 0);
		assert_true(f->p.velocity[2] == 0);
		assert_near(f->p.origin[axis], at, 1e-2);
		assert_true(f->p.origin[!axis] == across);
		assert_true(f->p.onground);
		assert_true(f->p.origin[2] >= last_z);
		last_z = f->p.origin[2];
		/* on a step top, at rest height above it */
		assert_near(fmod(f->p.origin[2] - floor - REST + 0.5, 16), 0.5, 1e-3);
	}
}

static void test_stairs_full_speed(void **state)
{
	struct fx *f = *state;
	struct usercmd c = mkcmd(MSEC, 0, 0, 400, 0, 0, 0);

	build_stairs(f, 5, 16);
	fx_place(f, 0, 0, REST);
	climb(f, &c, 0, 320, 0, 80);
	assert_near(f->p.origin[2], 5 * 16 + REST, 1e-3);
}

static void test_step_height_limit(void **state)
{
	struct fx *f = *state;
	struct usercmd c = mkcmd(MSEC, 0, 0, 400, 0, 0, 0);

	/* 18 units: climbed */
	build_stairs(f, 1, 18);
	fx_place(f, 0, 0, REST);
	for (int i = 0; i < 40; i++)
		run(f, &c);
	assert_true(f->p.origin[0] > 64);
	assert_near(f->p.origin[2], 18 + REST, 1e-3);

	/* 19 units: a wall */
	bm_init(&f->bm);
	build_stairs(f, 1, 19);
	fx_place(f, 0, 0, REST);
	for (int i = 0; i < 40; i++)
		run(f, &c);
	assert_true(f->p.origin[0] <= 64 - 16);
	assert_true(f->p.origin[0] > 64 - 16 - 0.1);
	assert_near(f->p.origin[2], REST, 1e-3);
	assert_true(f->p.onground);
}

/* The west stairs of the bundled large map: 16 steps of 16 up towards +y,
 * 32 deep, from the west hall (floor 0, y < 768) to the west gallery
 * (floor 256, y >= 1280), 128 wide around x = -2368. */
static void test_bundled_stairs(void **state)
{
	struct fx *f = *state;
	const char *path = qwd_bundled_map("large");
	/* leftwards at yaw 0, so the wish is exactly along +y */
	struct usercmd c = mkcmd(MSEC, 0, 0, 0, -400, 0, 0);
	char err[256];

	f->loaded = bsp_load(path, err, sizeof(err));
	if (!f->loaded)
		fail_msg("%s (make maps)", err);
	fx_world(f, f->loaded);
	fx_place(f, -2368, 600, REST);
	climb(f, &c, 1, 320, 0, 200);
	/* y = 1432: in the gallery */
	assert_near(f->p.origin[2], 256 + REST, 1e-3);
}

/* The staircase of ericw-tools' stairsteptest: 7 steps of 16 up towards -x
 * (floor at -80, top at 32), 32 units deep, for y in [-177, 63]. */
static void test_real_stairs(void **state)
{
	struct fx *f = *state;
	const char *path = qwd_realmap("ewt_stairsteptest.bsp");
	/* backwards, so the wish is exactly along -x */
	struct usercmd c = mkcmd(MSEC, 0, 0, -400, 0, 0, 0);
	char err[256];

	if (!path)
		qwd_skip_no_realmaps();
	f->loaded = bsp_load(path, err, sizeof(err));
	if (!f->loaded)
		fail_msg("%s", err);
	fx_world(f, f->loaded);
	fx_place(f, 100, -50, -80 + REST);
	climb(f, &c, 0, -320, -80, 80);
	/* x = -232.8: on the top landing */
	assert_near(f->p.origin[2], 32 + REST, 1e-3);
}

/* The step-up's choice, at speed (800 units/s, 50 ms: 40 units), against
 * a 4-unit lip 2 thick on the edge of a platform over a pit: the raised
 * path clears the lip and finds no ground within 18 units.  MVDSV keeps
 * it (id's code did not) unless it ends lower than it started, which a
 * low ceiling forces by limiting the raise to 5 units. */
static void test_step_over_lip(void **state)
{
	struct fx *f = *state;
	struct usercmd none = mkcmd(50, 0, 0, 0, 0, 0, 0);
	const double start = -2 - 16 - 1.0 / 32;

	for (int ceiling = 0; ceiling <= 1; ceiling++) {
		bm_init(&f->bm);
		fx_room(f);
		bm_box(&f->bm, 0, CONTENTS_SOLID, -512, -256, 0, 0, 256, 128);
		bm_box(&f->bm, 0, CONTENTS_SOLID, -2, -256, 128, 0, 256, 132);
		if (ceiling)
			bm_box(&f->bm, 0, CONTENTS_SOLID, -512, -256,
			       (float)(128 + REST + 32 + 5), 512, 256, 250);
		fx_ready(f);
		fx_place(f, start, 0, 128 + REST);
		f->p.velocity[0] = 1000;
		run(f, &none);
		if (!ceiling) {
			/* over the lip, level, into the air above the pit */
			assert_near(f->p.origin[0], start + 800 * 0.05, 1e-2);
			assert_near(f->p.origin[2], 128 + REST, 1e-3);
			assert_near(f->p.velocity[0], 800, 1e-3);
			assert_false(f->p.onground);
		} else {
			/* the raised path would end 13 units lower: stopped */
			assert_near(f->p.origin[0], start, 1e-3);
			assert_near(f->p.origin[2], 128 + REST, 1e-3);
			assert_true(f->p.velocity[0] == 0);
			assert_true(f->p.onground);
		}
	}
}

/* a platform 128 high over x < 0, the floor beyond it */
static void build_platform(struct fx *f)
{
	fx_room(f);
	bm_box(&f->bm, 0, CONTENTS_SOLID, -512, -256, 0, 0, 256, 128);
	fx_ready(f);
}

static void test_walk_off_ledge(void **state)
{
	struct fx *f = *state;
	struct usercmd c = mkcmd(MSEC, 0, 0, 400, 0, 0, 0);
	double vz = 0;
	int i;

	build_platform(f);
	fx_place(f, -100, 0, 128 + REST);
	f->p.velocity[0] = 320;
	/* on the platform while any of the box is over it */
	for (i = 0; i < 100; i++) {
		run(f, &c);
		if (!f->p.onground)
			break;
		assert_true(f->p.origin[0] < 16);
		assert_near(f->p.origin[2], 128 + REST, 1e-3);
	}
	assert_true(f->p.origin[0] >= 16);
	assert_true(f->p.velocity[2] == 0);	/* it walked off: no fall yet */
	/* then a free fall, keeping the horizontal speed */
	while (!f->p.onground) {
		vz -= GRAVITY_STEP;
		run(f, &c);
		if (!f->p.onground)
			assert_near(f->p.velocity[2], vz, 1e-3);
		assert_true(f->p.velocity[0] == 320);
		assert_true(++i < 200);
	}
	assert_near(f->p.origin[2], REST, 1e-3);
}

/* friction doubles when a box 16 units ahead, its origin at the feet, could
 * drop 34 units: only once the player is more than halfway over the edge */
static void test_ledge_friction(void **state)
{
	struct fx *f = *state;
	struct usercmd none = mkcmd(MSEC, 0, 0, 0, 0, 0, 0);
	static const struct {
		float x, vx;
		double friction;
	} cases[] = {
		{8, 200, 8},	/* over the edge, moving off it: doubled */
		{-8, 200, 4},	/* less than halfway over */
		{8, -200, 4},	/* moving back onto the platform */
		{-200, 200, 4},	/* nowhere near */
	};

	build_platform(f);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		double v = 200 - 200 * cases[k].friction * FT;

		fx_place(f, cases[k].x, 0, 128 + REST);
		f->p.velocity[0] = cases[k].vx;
		run(f, &none);
		assert_true(f->p.onground);
		assert_near(fabs(f->p.velocity[0]), v, 1e-3);
	}
}

/* A 30 degree ramp, n.p < 150: from (-300, top) down to (300, 0). */
static const vec3_t ramp_normal = {0.5f, 0, 0.8660254f};

static void build_ramp(struct fx *f)
{
	const float top = 600 * (float)tan(M_PI / 6);
	struct bm_brush *ramp;

	bm_room(&f->bm, -512, -256, 0, 512, 256, 512);
	ramp = bm_brush(&f->bm, 0, CONTENTS_SOLID,
			(const float[3]){-300, -256, 0},
			(const float[3]){300, 256, top});
	bm_plane(ramp, ramp_normal[0], ramp_normal[1], ramp_normal[2], 150);
	bm_plane(ramp, 1, 0, 0, 300);
	bm_plane(ramp, -1, 0, 0, 300);
	bm_plane(ramp, 0, 1, 0, 256);
	bm_plane(ramp, 0, -1, 0, 256);
	bm_plane(ramp, 0, 0, 1, top);
	bm_plane(ramp, 0, 0, -1, 0);
	fx_ready(f);
}

/* origin height of a box resting on the ramp at x (hull 1 moves the plane
 * out by 16 * 0.5 + 24 * 0.866) */
static double ramp_rest(double x)
{
	return (150 + 8 + 24 * ramp_normal[2] - ramp_normal[0] * x) /
	       ramp_normal[2];
}

/* Walking down: a ground move is horizontal and the slope falls away under
 * it (2.4 units a frame at 320), so the player leaves the ground, falls,
 * is caught by the slope, and leaves it again. */
static void test_slope_walk_down(void **state)
{
	struct fx *f = *state;
	struct usercmd c = mkcmd(MSEC, 0, 0, 400, 0, 0, 0);
	int left = 0, caught = 0;

	build_ramp(f);
	fx_place(f, -250, 0, ramp_rest(-250) + 1);
	for (int i = 0; i < 200 && f->p.origin[0] < 250; i++) {
		bool before = f->p.onground;

		run(f, &c);
		left += before && !f->p.onground;
		caught += !before && f->p.onground;
		assert_true(f->p.origin[2] >= ramp_rest(f->p.origin[0]) - 0.05);
	}
	assert_true(f->p.origin[0] >= 250);
	assert_true(left >= 3);
	assert_true(caught >= 3);
}

/* Falling onto the slope: the velocity is clipped along it, which turns
 * part of the fall into speed down the slope. */
static void test_slope_landing_deflects(void **state)
{
	struct fx *f = *state;
	struct usercmd none = mkcmd(MSEC, 0, 0, 0, 0, 0, 0);
	double vz = -250 - GRAVITY_STEP;
	double backoff = vz * ramp_normal[2];

	build_ramp(f);
	fx_place(f, 0, 0, ramp_rest(0) + 2);
	f->p.velocity[2] = -250;
	run(f, &none);
	assert_true(f->p.onground);
	assert_near(f->p.velocity[0], -ramp_normal[0] * backoff, 1e-2);
	assert_near(f->p.velocity[2], vz - ramp_normal[2] * backoff, 1e-2);
	assert_near(vec_dot(f->p.velocity, ramp_normal), 0, 1e-3);
	/* 1/32 off the plane along its normal */
	assert_near(f->p.origin[2],
		    ramp_rest(f->p.origin[0]) + 1.0 / 32 / ramp_normal[2],
		    1e-3);
}

/* ---- water --------------------------------------------------------------- */

static void build_pool(struct fx *f, float depth)
{
	fx_room(f);
	bm_box(&f->bm, 0, CONTENTS_WATER, -512, -256, 0, 512, 256, depth);
	fx_ready(f);
}

static void test_water_sinks(void **state)
{
	struct fx *f = *state;
	struct usercmd none = mkcmd(MSEC, 0, 0, 0, 0, 0, 0);
	double v = 0, z = 100;

	build_pool(f, 200);
	fx_place(f, 0, 0, z);
	for (int i = 0; i < 60; i++) {
		/* water friction at level 3, then the drift: wish 60 down,
		 * swim speed 0.7 of it */
		if (v >= 1)
			v -= v * 4 * 3 * FT;
		v = accelerate(v, 60 * 0.7, 10);
		z -= v * FT;
		run(f, &none);
		assert_int_equal(f->p.waterlevel, 3);
		assert_int_equal(f->p.watertype, CONTENTS_WATER);
		assert_near(f->p.velocity[2], -v, 1e-3);
		assert_near(f->p.origin[2], z, 1e-2);
		assert_true(f->p.velocity[0] == 0 && f->p.velocity[1] == 0);
	}
	/* settles where friction eats the drift: 5.46 / 0.156 = 35 */
	assert_near(f->p.velocity[2], -35, 0.05);
}

static void test_water_speed_cap(void **state)
{
	struct fx *f = *state;
	struct usercmd c = mkcmd(MSEC, 0, 0, 400, 0, 0, 0);
	double v = 0;

	/* under water: friction 4 * 3 per second; the swim wish 0.7 * 320
	 * is never reached (29.12 / 0.156 = 186.7) */
	build_pool(f, 200);
	fx_place(f, -500 + 16, 0, 100);
	for (int i = 0; i < 150; i++) {
		if (v >= 1)
			v -= v * 4 * 3 * FT;
		v = accelerate(v, 320 * 0.7, 10);
		run(f, &c);
		assert_int_equal(f->p.waterlevel, 3);
		assert_near(f->p.velocity[0], v, 1e-2);
		assert_true(f->p.velocity[2] == 0);
	}
	assert_near(f->p.velocity[0], 29.12 / 0.156, 0.1);

	/* waist deep on the pool floor: friction 4 * 2, and the speed stops
	 * at the wish, 0.7 * 320 = 224 exactly */
	bm_init(&f->bm);
	build_pool(f, 40);
	fx_place(f, -500 + 16, 0, REST);
	for (int i = 0; i < 100; i++) {
		run(f, &c);
		assert_int_equal(f->p.waterlevel, 2);
		assert_true(f->p.velocity[0] <= 224.001f);
	}
	assert_near(f->p.velocity[0], 224, 1e-3);
	/* no snap to the floor in water, and no gravity either */
	assert_near(f->p.origin[2], REST, 1e-3);
}

static void test_water_levels(void **state)
{
	struct fx *f = *state;
	struct usercmd none = mkcmd(MSEC, 0, 0, 0, 0, 0, 0);
	/* levels from the feet (origin - 23), the middle (origin + 4) and the
	 * eyes (origin + 22), for water up to z = 100 */
	static const struct {
		double z;
		int level;
	} cases[] = {
		{123, 0}, {122.9, 1}, {96, 1}, {95.9, 2}, {78, 2}, {77.9, 3},
	};

	build_pool(f, 100);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		fx_place(f, 0, 0, cases[k].z);
		f->p.pm_type = PM_NONE;	/* only categorise */
		run(f, &none);
		assert_int_equal(f->p.waterlevel, cases[k].level);
		assert_int_equal(f->p.watertype, cases[k].level ?
				 CONTENTS_WATER : CONTENTS_EMPTY);
	}
}

/* MVDSV does not snap a player onto the ground in water (id did) */
static void test_no_snap_in_water(void **state)
{
	struct fx *f = *state;
	struct usercmd none = mkcmd(MSEC, 0, 0, 0, 0, 0, 0);

	build_pool(f, 40);
	fx_place(f, 0, 0, REST + 0.5);
	run(f, &none);
	assert_int_equal(f->p.waterlevel, 2);
	assert_true(f->p.onground);
	/* only the drift moved it: 10 * ft * 42 units/s for one frame */
	assert_near(f->p.origin[2], REST + 0.5 - 10 * FT * 42 * FT, 1e-4);
}

static void test_swim_up(void **state)
{
	struct fx *f = *state;
	struct usercmd jump = mkcmd(MSEC, 0, 0, 0, 0, 0, PMOVE_BUTTON_JUMP);

	/* jump in water sets the vertical speed to 100 (slime 80, lava 50) */
	build_pool(f, 200);
	fx_place(f, 0, 0, 100);
	run(f, &jump);
	/* then water friction at level 3 and the drift acceleration */
	assert_near(f->p.velocity[2], 100 - 100 * 12 * FT - 10 * FT * 42, 1e-3);
}

/* the water jump: waist deep against a wall whose top is between 8 and 32
 * units above the origin */
static void test_water_jump(void **state)
{
	struct fx *f = *state;
	struct usercmd c = mkcmd(MSEC, 0, 0, 400, 0, 0, 0);

	fx_room(f);
	bm_box(&f->bm, 0, CONTENTS_SOLID, 40, -256, 0, 512, 256, 48);
	bm_box(&f->bm, 0, CONTENTS_WATER, -512, -256, 0, 40, 256, 40);
	fx_ready(f);
	fx_place(f, 40 - 16 - 1.0 / 32, 0, REST);

	run(f, &c);
	assert_near(f->p.velocity[0], 50, 1e-4);
	assert_near(f->p.velocity[2], 310, 1e-4);
	assert_near(f->p.waterjumptime, 2 - FT, 1e-5);
	assert_near(f->p.origin[2], REST + 310 * FT, 1e-3);
	/* out and onto the wall top */
	for (int i = 0; i < 100; i++)
		run(f, &c);
	assert_true(f->p.onground);
	assert_true(f->p.origin[0] > 40 - 16);
	assert_near(f->p.origin[2], 48 + REST, 1e-3);
	assert_true(f->p.waterjumptime == 0);
	assert_int_equal(f->p.waterlevel, 0);
}

/* ---- movement types ------------------------------------------------------ */

static void test_spectators(void **state)
{
	struct fx *f = *state;
	struct usercmd c = mkcmd(MSEC, 0, 0, 400, 0, 0, 0);
	struct usercmd none = mkcmd(MSEC, 0, 0, 0, 0, 0, 0);
	vec3_t before;

	fx_room(f);
	fx_ready(f);

	/* noclip: through the wall at x = 512, 65 units/s of acceleration per
	 * frame, capped at 500 */
	fx_place(f, 400, 0, 100);
	f->p.pm_type = PM_SPECTATOR;
	run(f, &c);
	assert_near(f->p.velocity[0], 10 * FT * 400, 1e-3);
	for (int i = 0; i < 100; i++)
		run(f, &c);
	assert_true(f->p.origin[0] > 600);
	assert_near(f->p.velocity[0], 400, 1e-3);
	assert_false(f->p.onground);

	/* coasting: friction 1.5 x 4, and the new spectator keeps moving */
	vec_copy(f->p.origin, before);
	run(f, &none);
	assert_near(f->p.velocity[0], 400 - 400 * 6 * FT, 1e-3);
	assert_true(f->p.origin[0] > before[0]);

	/* id's spectator stands still while coasting (its velocity decays) */
	f->p.pm_type = PM_OLD_SPECTATOR;
	vec_copy(f->p.origin, before);
	run(f, &none);
	assert_true(vec_equal(f->p.origin, before));
	assert_true(f->p.velocity[0] < 400 - 400 * 6 * FT);
}

static void test_dead(void **state)
{
	struct fx *f = *state;
	struct usercmd c = mkcmd(MSEC, 0, 0, 400, 0, 0, PMOVE_BUTTON_JUMP);

	fx_room(f);
	fx_ready(f);
	fx_place(f, 0, 0, REST);
	f->p.pm_type = PM_DEAD;
	run(f, &c);
	/* no acceleration, no jump, and the jump counts as held */
	assert_true(f->p.velocity[0] == 0 && f->p.velocity[2] == 0);
	assert_true(f->p.jump_held);
	assert_true(f->p.onground);

	/* a moving body slows by friction alone */
	f->p.velocity[0] = 200;
	run(f, &c);
	assert_near(f->p.velocity[0], ground_friction(200, 4), 1e-3);

	/* and falls */
	fx_place(f, 0, 0, 100);
	f->p.pm_type = PM_DEAD;
	run(f, &c);
	assert_near(f->p.velocity[2], -GRAVITY_STEP, 1e-4);
}

static void test_fly(void **state)
{
	struct fx *f = *state;
	struct usercmd none = mkcmd(MSEC, 0, 0, 0, 0, 0, 0);
	struct usercmd up = mkcmd(MSEC, 0, 0, 0, 0, 200, 0);

	fx_room(f);
	fx_ready(f);
	fx_place(f, 0, 0, 100);
	f->p.pm_type = PM_FLY;
	for (int i = 0; i < 20; i++)
		run(f, &none);
	/* no gravity */
	assert_near(f->p.origin[2], 100, 0);
	assert_true(f->p.velocity[2] == 0);

	run(f, &up);
	assert_near(f->p.velocity[2], 10 * FT * 200, 1e-4);
	/* fly friction: 4 per second of the speed */
	run(f, &none);
	assert_near(f->p.velocity[2], 26 - 26 * 4 * FT, 1e-4);
}

static void test_none_and_lock(void **state)
{
	struct fx *f = *state;
	struct usercmd c = mkcmd(MSEC, 30, 90, 400, 0, 0, PMOVE_BUTTON_JUMP);

	fx_room(f);
	fx_ready(f);
	for (int t = PM_NONE; t <= PM_LOCK; t++) {
		fx_place(f, 0, 0, REST + 0.5);
		f->p.pm_type = t;
		run(f, &c);
		/* no move, no angles from the command: only categorised (and
		 * snapped onto the floor) */
		assert_near(f->p.origin[0], 0, 0);
		assert_near(f->p.origin[2], REST, 1e-3);
		assert_true(f->p.onground);
		assert_true(f->p.angles[1] == 0);
	}
}

/* ---- positions out of solid ---------------------------------------------- */

static void test_nudge_out_of_floor(void **state)
{
	struct fx *f = *state;
	struct usercmd none = mkcmd(MSEC, 0, 0, 0, 0, 0, 0);

	fx_room(f);
	fx_ready(f);

	/* 1/16 in the floor: nudged up 1/8, then snapped to rest height */
	fx_place(f, 0, 0, 24 - 1.0 / 16);
	run(f, &none);
	assert_near(f->p.origin[2], REST, 1e-3);
	assert_true(f->p.onground);

	/* 4 units in: moved up whole units until clear (24), then on it */
	fx_place(f, 0, 0, 20);
	run(f, &none);
	assert_near(f->p.origin[2], 24, 1e-3);
	assert_true(f->p.onground);

	/* 30 units in: beyond 18, left stuck */
	fx_place(f, 0, 0, -6);
	run(f, &none);
	assert_near(f->p.origin[2], -6, 0);
}

/* ---- objects: blocking, touching, standing on ---------------------------- */

static struct world_obj *link_box(struct fx *f, int id, int solid, float x,
				  float y, float z, float r, float h)
{
	struct world_obj *o = &f->objs[id];

	o->solid = solid;
	o->model = -1;
	o->owner = -1;
	vec_set(o->origin, x, y, z);
	vec_set(o->mins, -r, -r, 0);
	vec_set(o->maxs, r, r, h);
	world_link(&f->w, o);
	return o;
}

/* A dead player lying in another player's box (a corpse is not solid, so
 * players walk into it) is stuck at every nudge and stays; a box it can
 * rise out of within 18 units lets it up.  The plain move (which skips
 * the tests when one box holds every position) and the speculative one
 * (which runs them all, recording each) end the same, bit for bit. */
static void assert_same_player(const struct pmove_player *a,
			       const struct pmove_player *b)
{
	assert_memory_equal(a->origin, b->origin, sizeof(a->origin));
	assert_memory_equal(a->velocity, b->velocity, sizeof(a->velocity));
	assert_int_equal(a->onground, b->onground);
	assert_int_equal(a->groundent, b->groundent);
	assert_int_equal(a->waterlevel, b->waterlevel);
	assert_int_equal(a->watertype, b->watertype);
	assert_int_equal(a->jump_held, b->jump_held);
}

/* a live player's box at (0, 0, REST) in the room and a dead player
 * lying in it at x 4: the corpse, and the live player's object */
static struct world_obj *corpse_in_player(struct fx *f)
{
	struct world_obj *other;

	fx_room(f);
	fx_ready(f);
	other = link_box(f, 1, SOLID_SLIDEBOX, 0, 0, REST, 16, 0);
	vec_copy(pmove_player_mins, other->mins);
	vec_copy(pmove_player_maxs, other->maxs);
	world_link(&f->w, other);
	fx_place(f, 4, 0, REST);
	f->p.pm_type = PM_DEAD;
	return other;
}

static void test_nudge_inside_box(void **state)
{
	struct fx *f = *state;
	struct usercmd none = mkcmd(MSEC, 0, 0, 0, 0, 0, 0);
	static struct pmove_read read;
	struct pmove_player start, plain, spec;
	struct pmove_result res;
	struct world_obj *other;

	other = corpse_in_player(f);
	start = f->p;
	run(f, &none);
	plain = f->p;
	assert_near(plain.origin[0], 4, 0);
	assert_near(plain.origin[1], 0, 0);
	assert_near(plain.origin[2], REST, 0);
	spec = start;
	pmove_run_read(&f->w, NULL, &f->mv, &none, &spec, &res, &read);
	assert_same_player(&plain, &spec);
	assert_true(read.any);

	/* a low crate instead: up 8 units, onto it */
	world_unlink(&f->w, other);
	link_box(f, 2, SOLID_BBOX, 0, 0, 0, 16, 8);
	fx_place(f, 4, 0, REST);
	f->p.pm_type = PM_DEAD;
	start = f->p;
	run(f, &none);
	plain = f->p;
	assert_near(plain.origin[2], REST + 8, 1e-3);
	assert_true(plain.onground);
	spec = start;
	pmove_run_read(&f->w, NULL, &f->mv, &none, &spec, &res, &read);
	assert_same_player(&plain, &spec);
}

/* The same dead player's speculative move, asked again after the live
 * player it lies in has moved (pmove_read_holds): where that player
 * still holds the nudge's whole span, and gives each trace the same
 * answer, the recorded step is taken, and it is the step pmove gives
 * now; where it has left some point, the step is refused.  The record
 * holds the span as one box (not the 45 tests) and fits (else only its
 * bounds would say). */
static void test_nudge_read_holds(void **state)
{
	struct fx *f = *state;
	struct usercmd none = mkcmd(MSEC, 0, 0, 0, 0, 0, 0);
	static struct pmove_read read;
	struct pmove_player start, spec;
	struct pmove_result res;
	struct world_obj *other;
	int held = 0, refused = 0, freed = 0;

	other = corpse_in_player(f);
	start = f->p;
	spec = start;
	pmove_run_read(&f->w, NULL, &f->mv, &none, &spec, &res, &read);
	assert_true(read.num_segs >= 2 && read.num_segs < 45);
	assert_false(read.wide);

	for (int dx = -40; dx <= 40; dx += 4) {
		for (int dz = -8; dz <= 8; dz += 4) {
			world_unlink(&f->w, other);
			vec_set(other->origin, (float)dx, 0, (float)(REST + dz));
			world_link(&f->w, other);
			f->p = start;
			run(f, &none);
			/* the step's own object: one not linked here (the
			 * move ran with none), not other nor its owner (-1) */
			if (pmove_read_holds(&read, other, 7)) {
				held++;
				assert_same_player(&spec, &f->p);
			} else {
				refused++;
				freed += memcmp(spec.origin, f->p.origin,
						sizeof(spec.origin)) != 0;
			}
		}
	}
	/* the live player a little aside still holds him: taken */
	assert_true(held > 0);
	/* walked off: the corpse is free (it rises), refused */
	assert_true(refused > 0);
	assert_true(freed > 0);
	world_unlink(&f->w, other);
}

static void test_objects(void **state)
{
	struct fx *f = *state;
	struct usercmd c = mkcmd(MSEC, 0, 0, 400, 0, 0, 0);
	struct usercmd none = mkcmd(MSEC, 0, 0, 0, 0, 0, 0);
	struct world_obj *self, *crate, *missile, *grenade, *lift;
	int lift_model;
	bool touched = false;

	fx_room(f);
	lift_model = bm_new_model(&f->bm);
	bm_box(&f->bm, lift_model, CONTENTS_SOLID, -32, -32, 0, 32, 32, 16);
	fx_ready(f);

	self = link_box(f, 1, SOLID_SLIDEBOX, -200, 0, REST, 16, 0);
	vec_copy(pmove_player_mins, self->mins);
	vec_copy(pmove_player_maxs, self->maxs);
	world_link(&f->w, self);
	crate = link_box(f, 2, SOLID_BBOX, 0, 0, 0, 16, 32);
	/* the player's own missile in his way blocks nothing */
	missile = link_box(f, 3, SOLID_BBOX, -150, 0, REST, 4, 8);
	missile->owner = self->id;
	world_link(&f->w, missile);

	/* walk into the crate: stopped at it, and it is touched */
	fx_place(f, -200, 0, REST);
	for (int i = 0; i < 60; i++) {
		pmove_run(&f->w, self, &f->mv, &c, &f->p, &f->res);
		touched |= has_touch(&f->res, crate->id);
		assert_false(has_touch(&f->res, missile->id));
		assert_false(has_touch(&f->res, self->id));
		assert_false(has_touch(&f->res, 0));
	}
	assert_true(touched);
	assert_near(f->p.origin[0], -32 - 1.0 / 32, 1e-3);

	/* on top of it: it is the ground, and touched */
	fx_place(f, 0, 0, 32 + REST);
	pmove_run(&f->w, self, &f->mv, &none, &f->p, &f->res);
	assert_true(f->p.onground);
	assert_int_equal(f->p.groundent, crate->id);
	assert_true(has_touch(&f->res, crate->id));
	assert_near(f->p.origin[2], 32 + REST, 1e-3);

	/* a point-sized object (a grenade, 8 up) blocks pmove too */
	grenade = link_box(f, 4, SOLID_BBOX, 100, 0, 8, 0, 0);
	fx_place(f, 100, 0, 60);
	for (int i = 0; i < 100 && !f->p.onground; i++)
		pmove_run(&f->w, self, &f->mv, &none, &f->p, &f->res);
	assert_true(f->p.onground);
	assert_int_equal(f->p.groundent, grenade->id);
	assert_near(f->p.origin[2], 8 + REST, 1e-3);

	/* a brush model (a lift at z 100): hull 1 at its origin */
	lift = &f->objs[5];
	lift->solid = SOLID_BSP;
	lift->model = lift_model;
	lift->owner = -1;
	vec_set(lift->origin, 200, 0, 100);
	world_link(&f->w, lift);
	fx_place(f, 200, 0, 150);
	for (int i = 0; i < 100 && !f->p.onground; i++)
		pmove_run(&f->w, self, &f->mv, &none, &f->p, &f->res);
	assert_true(f->p.onground);
	assert_int_equal(f->p.groundent, lift->id);
	assert_near(f->p.origin[2], 116 + REST, 1e-3);
}

/* Physents are gathered within what the step can reach: a fast move
 * still meets what is far ahead, and in a crowd of more boxes than there
 * are physent slots the one in the way is among them. */
static void test_physent_reach(void **state)
{
	struct fx *f = *state;
	struct usercmd fast = mkcmd(50, 0, 0, 0, 0, 0, 0);
	struct usercmd walk = mkcmd(MSEC, 0, 0, 400, 0, 0, 0);
	struct world_obj *self, *crate;
	bool touched = false;
	int id = 3;

	fx_room(f);
	fx_ready(f);
	self = link_box(f, 1, SOLID_SLIDEBOX, -200, 0, REST, 16, 0);
	vec_copy(pmove_player_mins, self->mins);
	vec_copy(pmove_player_maxs, self->maxs);
	world_link(&f->w, self);
	crate = link_box(f, 2, SOLID_BBOX, -100, 0, 0, 16, 64);

	/* 2000 units/s for 50 ms: 100 units, the crate's face 68 away */
	fx_place(f, -200, 0, REST);
	f->p.velocity[0] = 2000;
	pmove_run(&f->w, self, &f->mv, &fast, &f->p, &f->res);
	assert_true(has_touch(&f->res, crate->id));
	assert_near(f->p.origin[0], -100 - 16 - 16 - 1.0 / 32, 1e-3);

	/* a crowd: 100 boxes along the walls, all within 256 units of the
	 * walk, more than the 63 physent slots; the crate ahead stops him */
	for (int i = 0; i < 50; i++)
		for (int side = -1; side <= 1; side += 2)
			link_box(f, id++, SOLID_BBOX, (float)(-400 + 12 * i),
				 (float)(side * (180 + 4 * (i % 10))), 0, 4, 56);
	world_unlink(&f->w, crate);
	vec_set(crate->origin, 0, 0, 0);
	world_link(&f->w, crate);
	fx_place(f, -200, 0, REST);
	for (int i = 0; i < 80; i++) {
		pmove_run(&f->w, self, &f->mv, &walk, &f->p, &f->res);
		touched |= has_touch(&f->res, crate->id);
	}
	assert_true(touched);
	assert_near(f->p.origin[0], -32 - 1.0 / 32, 1e-3);
}

/* ---- commands: splitting, pitch, determinism ----------------------------- */

static void test_cmd_steps(void **state)
{
	static const struct {
		int msec, steps, step_msec;
	} cases[] = {
		{0, 1, 0}, {13, 1, 13}, {50, 1, 50}, {51, 2, 25}, {75, 2, 37},
		{101, 2, 50}, {102, 4, 25}, {120, 4, 30}, {255, 8, 31},
	};
	struct usercmd cmd, step;

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		cmd = mkcmd(cases[k].msec, 10, 20, 1, 2, 3, 4);
		cmd.impulse = 7;
		assert_int_equal(pmove_cmd_steps(&cmd, &step), cases[k].steps);
		assert_int_equal(step.msec, cases[k].step_msec);
		assert_true(step.angles[0] == 10 && step.angles[1] == 20);
		assert_int_equal(step.forwardmove, 1);
		assert_int_equal(step.buttons, 4);
	}

	/* the pitch limits */
	cmd = mkcmd(13, 89, 0, 0, 0, 0, 0);
	pmove_cmd_steps(&cmd, &step);
	assert_true(step.angles[0] == 80);
	cmd = mkcmd(13, -89, 0, 0, 0, 0, 0);
	pmove_cmd_steps(&cmd, &step);
	assert_true(step.angles[0] == -70);
}

static void test_split_equals_halves(void **state)
{
	struct fx *f = *state;
	struct usercmd whole =
		mkcmd(75, 85, 30, 400, 100, 0, PMOVE_BUTTON_JUMP);
	struct usercmd half = mkcmd(37, 80, 30, 400, 100, 0, PMOVE_BUTTON_JUMP);
	struct pmove_player a, b;

	fx_room(f);
	fx_ready(f);
	fx_place(f, 0, 0, REST);
	f->p.velocity[0] = 100;
	a = b = f->p;

	for (int i = 0; i < 20; i++) {
		pmove_run_cmd(&f->w, NULL, &f->mv, &whole, &a, NULL);
		pmove_run(&f->w, NULL, &f->mv, &half, &b, NULL);
		pmove_run(&f->w, NULL, &f->mv, &half, &b, NULL);
		assert_memory_equal(&a, &b, sizeof(a));
	}
	/* the angles used are the clamped ones */
	assert_true(a.angles[0] == 80);

	/* and halving matters: one 75 ms step lands elsewhere */
	fx_place(f, 0, 0, REST);
	a = f->p;
	pmove_run_cmd(&f->w, NULL, &f->mv, &whole, &a, NULL);
	pmove_run(&f->w, NULL, &f->mv, &whole, &f->p, NULL);
	assert_false(a.origin[0] == f->p.origin[0]);
}

/* a fixed pseudo-random walk, jumps and all, over stairs, water and a
 * crate: two runs agree bit for bit */
static void scripted_run(struct fx *f, struct pmove_player *p,
			 struct pmove_result *touches, int frames)
{
	uint32_t seed = 12345;

	pmove_player_reset(p, (const float[3]){-300, 0, REST},
			   (const float[3]){0, 0, 0});
	for (int i = 0; i < frames; i++) {
		struct usercmd c;

		seed = seed * 1664525u + 1013904223u;
		c = mkcmd(1 + (int)(seed >> 26),
			  (float)((seed >> 8) % 140) - 70,
			  (float)((seed >> 12) % 360) - 180,
			  (int)((seed >> 4) % 801) - 400,
			  (int)((seed >> 14) % 801) - 400,
			  (int)((seed >> 18) % 401) - 200,
			  (seed >> 24) & PMOVE_BUTTON_JUMP);
		pmove_run_cmd(&f->w, NULL, &f->mv, &c, p, &touches[i]);
	}
}

static void test_deterministic(void **state)
{
	struct fx *f = *state;
	enum { FRAMES = 2000 };
	struct pmove_result *ta = calloc(FRAMES, sizeof(*ta));
	struct pmove_result *tb = calloc(FRAMES, sizeof(*tb));
	struct pmove_player a, b;

	assert_non_null(ta);
	assert_non_null(tb);
	fx_room(f);
	for (int k = 1; k <= 3; k++)
		bm_box(&f->bm, 0, CONTENTS_SOLID, 100 + 48.0f * (k - 1), -256,
		       0, 512, 256, 16.0f * k);
	bm_box(&f->bm, 0, CONTENTS_WATER, -512, -256, 0, -300, 256, 60);
	fx_ready(f);
	link_box(f, 2, SOLID_BBOX, 0, 100, 0, 16, 32);

	/* different leftovers before the reset (jump_held, which the reset
	 * keeps, must be a valid bool) */
	memset(&a, 0x55, sizeof(a));
	memset(&b, 0xaa, sizeof(b));
	a.jump_held = b.jump_held = false;
	scripted_run(f, &a, ta, FRAMES);
	scripted_run(f, &b, tb, FRAMES);
	assert_memory_equal(&a, &b, sizeof(a));
	for (int i = 0; i < FRAMES; i++) {
		assert_int_equal(ta[i].num_touch, tb[i].num_touch);
		assert_memory_equal(ta[i].touch, tb[i].touch,
				    sizeof(int) * (size_t)ta[i].num_touch);
	}
	/* it went somewhere and stayed inside the room */
	assert_true(fabs(a.origin[0]) < 512 && fabs(a.origin[1]) < 256);
	assert_true(a.origin[2] > 0 && a.origin[2] < 256);
	free(ta);
	free(tb);
}

static void test_reset_keeps_jump_held(void **state)
{
	struct pmove_player p;
	const vec3_t org = {1, 2, 3}, ang = {4, 5, 6};

	(void)state;
	memset(&p, 0x7f, sizeof(p));
	p.jump_held = true;
	pmove_player_reset(&p, org, ang);
	assert_true(p.jump_held);
	assert_true(vec_equal(p.origin, org) && vec_equal(p.angles, ang));
	assert_true(p.velocity[0] == 0 && p.velocity[1] == 0 &&
		    p.velocity[2] == 0);
	assert_int_equal(p.pm_type, PM_NORMAL);
	assert_int_equal(p.groundent, -1);
	assert_true(p.waterjumptime == 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

static const struct CMUnitTest pmove_tests[] = {
	T(test_stand_still),
	T(test_walk_accelerates_to_maxspeed),
	T(test_friction_stops),
	T(test_strafe_is_diagonal_capped),
	T(test_jump_profile_and_landing),
	T(test_jump_right_after_landing),
	T(test_landing_snap_and_clip),
	T(test_ceiling_stops_rise),
	T(test_stairs_full_speed),
	T(test_step_height_limit),
	T(test_bundled_stairs),
	T(test_real_stairs),
	T(test_step_over_lip),
	T(test_walk_off_ledge),
	T(test_ledge_friction),
	T(test_slope_walk_down),
	T(test_slope_landing_deflects),
	T(test_water_sinks),
	T(test_water_speed_cap),
	T(test_water_levels),
	T(test_no_snap_in_water),
	T(test_swim_up),
	T(test_water_jump),
	T(test_spectators),
	T(test_dead),
	T(test_fly),
	T(test_none_and_lock),
	T(test_nudge_out_of_floor),
	T(test_nudge_inside_box),
	T(test_nudge_read_holds),
	T(test_objects),
	T(test_physent_reach),
	T(test_cmd_steps),
	T(test_split_equals_halves),
	T(test_deterministic),
	T(test_reset_keeps_jump_held),
};

QWD_TEST_GROUP(pmove, pmove_tests, NULL, NULL)
