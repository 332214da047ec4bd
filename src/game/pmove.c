/*
 * src/game/pmove.c -- QuakeWorld player movement (what it collides with,
 * the physents and traces, is pmove_collide.c).
 *
 * Design note
 *   Stock clients predict their own movement with QuakeWorld's pmove and
 *   correct towards what the server reports, so every difference between
 *   this file and the client's copy shows as a prediction error.  The
 *   reference is MVDSV's PM_PlayerMove (src/pmove.c, pmovetst.c, shared
 *   with ezQuake) with every movement extension off: pm_ktjump,
 *   pm_slidefix, pm_airstep, pm_pground, pm_rampjump, pm_bunnyspeedcap.
 *   That is id's QW/client/pmove.c plus these fixes, all kept here:
 *   - the step-up is PM_StepSlideMove: slide; if blocked, also slide from
 *     18 units up and press down 18; the raised path wins only if it went
 *     strictly farther, landed on ground (normal z >= 0.7, or nothing
 *     below) and did not end lower than it started (id: "farther or equal
 *     goes down", any miss below goes down);
 *   - water moves use the same step slide (id: a trace down from above);
 *   - the snap onto the ground is skipped in water (waterlevel >= 2) and in
 *     PM_FLY;
 *   - "jump fix": a jump while moving into the ground first clips the
 *     velocity along the ground plane, so a jump the frame after landing
 *     still gives the full 270; and a landing faster than 300 units/s down
 *     is clipped along the ground at the end of the move;
 *   - jump_held instead of oldbuttons; the water-jump timer counts down
 *     every move (id: only while jump is held);
 *   - PM_NudgePosition also tries 1..18 units up (maps that spawn players
 *     in the floor); the water jump tests contents in every brush model.
 *   Arithmetic follows the reference operation by operation: floats, the
 *   same order of products, and double constants where the C had them
 *   (0.7, 0.1, 0.001, 0.125...: a plane whose normal z is 0.7f is not
 *   ground, because 0.7f < 0.7).  Air acceleration uses `accelerate`:
 *   QuakeWorld never reads `airaccelerate`.
 *
 *   State is passed in struct pmove_player; nothing here is global and
 *   nothing allocates.
 */
#include "internal.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

const vec3_t pmove_player_mins = {-16, -16, -24};
const vec3_t pmove_player_maxs = {16, 16, 32};

#define PM_STEPSIZE 18
/* double, as the reference compares float normals with it */
#define PM_MIN_STEP_NORMAL 0.7
#define PM_STOP_EPSILON 0.1
#define PM_JUMPFIX_DOT (-0.1)
#define PM_FLY_FRICTION 4
#define PM_MAX_CLIP_PLANES 5
#define PM_NUM_BUMPS 4

enum { BLOCKED_FLOOR = 1, BLOCKED_STEP = 2, BLOCKED_OTHER = 4 };

/* ---- vector helpers with the reference's rounding ------------------------ */

static float pm_normalize(vec3_t v)
{
	float length = pm_length(v);

	if (length != 0) {
		float ilength = 1 / length;

		v[0] *= ilength;
		v[1] *= ilength;
		v[2] *= ilength;
	}
	return length;
}

static void pm_scale(const vec3_t v, float s, vec3_t out)
{
	out[0] = v[0] * s;
	out[1] = v[1] * s;
	out[2] = v[2] * s;
}

static void pm_cross(const vec3_t a, const vec3_t b, vec3_t out)
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

/* AngleVectors: float intermediates, sin/cos in double */
static void pm_angle_vectors(const vec3_t angles, vec3_t forward,
			     vec3_t right)
{
	const double deg = M_PI * 2 / 360;
	float angle, sr, sp, sy, cr, cp, cy;

	angle = (float)(angles[1] * deg);
	sy = (float)sin(angle);
	cy = (float)cos(angle);
	angle = (float)(angles[0] * deg);
	sp = (float)sin(angle);
	cp = (float)cos(angle);
	angle = (float)(angles[2] * deg);
	sr = (float)sin(angle);
	cr = (float)cos(angle);

	forward[0] = cp * cy;
	forward[1] = cp * sy;
	forward[2] = -sp;
	right[0] = -sr * sp * cy + -cr * -sy;
	right[1] = -sr * sp * sy + -cr * cy;
	right[2] = -sr * cp;
}

/* Slide off a plane; components within STOP_EPSILON of 0 become 0. */
static void pm_clip_velocity(const vec3_t in, const vec3_t normal,
			     vec3_t out)
{
	float backoff = vec_dot(in, normal);

	for (int i = 0; i < 3; i++) {
		float change = normal[i] * backoff;

		out[i] = in[i] - change;
		if (out[i] > -PM_STOP_EPSILON && out[i] < PM_STOP_EPSILON)
			out[i] = 0;
	}
}

/* ---- sliding and stepping ------------------------------------------------ */

/* PM_SlideMove: move by velocity * frametime, sliding along up to five
 * planes in four bumps; returns BLOCKED_* bits (3 when stuck in solid). */
static int pm_slide_move(struct pm_ctx *pm)
{
	struct pmove_player *p = pm->p;
	vec3_t planes[PM_MAX_CLIP_PLANES];
	vec3_t primal_velocity, original_velocity, end, dir;
	int numplanes = 0, blocked = 0;
	float time_left = pm->frametime;

	vec_copy(p->velocity, original_velocity);
	vec_copy(p->velocity, primal_velocity);

	for (int bump = 0; bump < PM_NUM_BUMPS; bump++) {
		struct trace tr;
		int i, j;

		vec_ma(p->origin, time_left, p->velocity, end);
		pm_trace(pm, p->origin, end, &tr);

		if (tr.startsolid || tr.allsolid) {
			/* trapped in another solid */
			vec_set(p->velocity, 0, 0, 0);
			return 3;
		}
		if (tr.fraction > 0) {
			/* covered some distance: earlier planes are behind */
			vec_copy(tr.endpos, p->origin);
			numplanes = 0;
		}
		if (tr.fraction == 1)
			break;

		pm_add_touch(pm, tr.ent);

		if (tr.plane.normal[2] >= PM_MIN_STEP_NORMAL)
			blocked |= BLOCKED_FLOOR;
		else if (tr.plane.normal[2] == 0)
			blocked |= BLOCKED_STEP;
		else
			blocked |= BLOCKED_OTHER;

		time_left -= time_left * tr.fraction;

		if (numplanes >= PM_MAX_CLIP_PLANES) {
			vec_set(p->velocity, 0, 0, 0);
			break;
		}
		vec_copy(tr.plane.normal, planes[numplanes]);
		numplanes++;

		/* a velocity along one plane that leaves all the others */
		for (i = 0; i < numplanes; i++) {
			pm_clip_velocity(original_velocity, planes[i],
					 p->velocity);
			for (j = 0; j < numplanes; j++)
				if (j != i &&
				    vec_dot(p->velocity, planes[j]) < 0)
					break;
			if (j == numplanes)
				break;
		}
		if (i == numplanes) {
			/* none: go along the crease of two planes, or stop */
			float d;

			if (numplanes != 2) {
				vec_set(p->velocity, 0, 0, 0);
				break;
			}
			pm_cross(planes[0], planes[1], dir);
			d = vec_dot(dir, p->velocity);
			pm_scale(dir, d, p->velocity);
		}

		/* turned back against the first velocity: stop dead, which
		 * avoids tiny oscillations in sloping corners */
		if (vec_dot(p->velocity, primal_velocity) <= 0) {
			vec_set(p->velocity, 0, 0, 0);
			break;
		}
	}

	/* a water jump keeps pushing against the ledge */
	if (p->waterjumptime != 0)
		vec_copy(primal_velocity, p->velocity);
	return blocked;
}

static float pm_dist2_xy(const vec3_t a, const vec3_t b)
{
	return (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]);
}

/* PM_StepSlideMove (not in the air: pm_airstep is off): slide; when
 * blocked, also try from a stair height up and keep what went farther. */
static int pm_step_slide_move(struct pm_ctx *pm)
{
	struct pmove_player *p = pm->p;
	vec3_t original, originalvel, down, downvel, dest;
	struct trace tr;
	bool use_down;
	int blocked;

	vec_copy(p->origin, original);
	vec_copy(p->velocity, originalvel);

	blocked = pm_slide_move(pm);
	if (!blocked)
		return blocked;

	vec_copy(p->origin, down);
	vec_copy(p->velocity, downvel);
	vec_copy(original, p->origin);
	vec_copy(originalvel, p->velocity);

	/* up a stair height, slide, press down again */
	vec_copy(p->origin, dest);
	dest[2] += PM_STEPSIZE;
	pm_trace(pm, p->origin, dest, &tr);
	if (!tr.startsolid && !tr.allsolid)
		vec_copy(tr.endpos, p->origin);

	pm_slide_move(pm);

	vec_copy(p->origin, dest);
	dest[2] -= PM_STEPSIZE;
	pm_trace(pm, p->origin, dest, &tr);
	/* the raised path must not end on a steep slope, nor lower than it
	 * started, and must go strictly farther */
	if (tr.fraction != 1 && tr.plane.normal[2] < PM_MIN_STEP_NORMAL) {
		use_down = true;
	} else {
		if (!tr.startsolid && !tr.allsolid)
			vec_copy(tr.endpos, p->origin);
		use_down = p->origin[2] < original[2] ||
			   pm_dist2_xy(down, original) >=
				   pm_dist2_xy(p->origin, original);
	}
	if (use_down) {
		vec_copy(down, p->origin);
		vec_copy(downvel, p->velocity);
		return blocked;
	}

	/* the raised path: its horizontal velocity, the lower one's z */
	p->velocity[2] = downvel[2];

	/* only reachable in PM_FLY off the ground (pm_airstep being off): a
	 * step up costs 1% of horizontal speed per unit climbed */
	if (!p->onground && p->waterlevel < 2 && (blocked & BLOCKED_STEP)) {
		float scale = (float)(1 - 0.01 * (p->origin[2] - original[2]));

		p->velocity[0] *= scale;
		p->velocity[1] *= scale;
	}
	return blocked;
}

/* ---- friction and acceleration ------------------------------------------- */

static void pm_friction(struct pm_ctx *pm)
{
	struct pmove_player *p = pm->p;
	const struct pmove_vars *mv = pm->mv;
	float speed, newspeed, drop;

	if (p->waterjumptime != 0)
		return;

	speed = pm_length(p->velocity);
	if (speed < 1) {
		p->velocity[0] = p->velocity[1] = 0;
		if (p->pm_type == PM_FLY)
			p->velocity[2] = 0;
		return;
	}

	if (p->waterlevel >= 2) {
		/* water friction, even in fly mode */
		drop = speed * mv->waterfriction * (float)p->waterlevel *
		       pm->frametime;
	} else if (p->pm_type == PM_FLY) {
		drop = speed * PM_FLY_FRICTION * pm->frametime;
	} else if (p->onground) {
		float friction = mv->friction, control;
		vec3_t start, stop;
		struct trace tr;

		/* the leading edge over a drop: a box 16 units ahead, its
		 * origin at the feet, falls 34 units unhindered */
		start[0] = stop[0] = p->origin[0] + p->velocity[0] / speed * 16;
		start[1] = stop[1] = p->origin[1] + p->velocity[1] / speed * 16;
		start[2] = p->origin[2] + pmove_player_mins[2];
		stop[2] = start[2] - 34;
		pm_trace(pm, start, stop, &tr);
		if (tr.fraction == 1)
			friction *= 2;

		control = speed < mv->stopspeed ? mv->stopspeed : speed;
		drop = control * friction * pm->frametime;
	} else {
		return;	/* in the air */
	}

	newspeed = speed - drop;
	if (!(newspeed > 0))
		newspeed = 0;
	newspeed /= speed;
	pm_scale(p->velocity, newspeed, p->velocity);
}

static void pm_accelerate(struct pm_ctx *pm, const vec3_t wishdir,
			  float wishspeed, float accel)
{
	struct pmove_player *p = pm->p;
	float addspeed, accelspeed;

	if (p->pm_type == PM_DEAD || p->waterjumptime != 0)
		return;
	addspeed = wishspeed - vec_dot(p->velocity, wishdir);
	if (addspeed <= 0)
		return;
	accelspeed = accel * pm->frametime * wishspeed;
	if (accelspeed > addspeed)
		accelspeed = addspeed;
	vec_ma(p->velocity, accelspeed, wishdir, p->velocity);
}

/* in the air the wished speed is capped at 30 (which allows strafe
 * jumping), the acceleration is not */
static void pm_air_accelerate(struct pm_ctx *pm, const vec3_t wishdir,
			      float wishspeed, float accel)
{
	struct pmove_player *p = pm->p;
	float wishspd = wishspeed < 30 ? wishspeed : 30;
	float addspeed, accelspeed;

	if (p->pm_type == PM_DEAD || p->waterjumptime != 0)
		return;
	addspeed = wishspd - vec_dot(p->velocity, wishdir);
	if (addspeed <= 0)
		return;
	accelspeed = accel * wishspeed * pm->frametime;
	if (accelspeed > addspeed)
		accelspeed = addspeed;
	vec_ma(p->velocity, accelspeed, wishdir, p->velocity);
}

/* wishvel -> wishdir and a wished speed capped at maxspeed */
static float pm_wish(const vec3_t wishvel, float maxspeed, vec3_t wishdir)
{
	float wishspeed;

	vec_copy(wishvel, wishdir);
	wishspeed = pm_normalize(wishdir);
	return wishspeed > maxspeed ? maxspeed : wishspeed;
}

/* ---- the movement kinds -------------------------------------------------- */

static void pm_water_move(struct pm_ctx *pm)
{
	const struct usercmd *cmd = pm->cmd;
	vec3_t wishvel, wishdir;
	float wishspeed;

	for (int i = 0; i < 3; i++)
		wishvel[i] = pm->forward[i] * cmd->forwardmove +
			     pm->right[i] * cmd->sidemove;
	if (pm->p->pm_type != PM_FLY && !cmd->forwardmove && !cmd->sidemove &&
	    !cmd->upmove)
		wishvel[2] -= 60;	/* drift towards the bottom */
	else
		wishvel[2] += cmd->upmove;

	wishspeed = pm_wish(wishvel, pm->mv->maxspeed, wishdir);
	wishspeed = (float)(wishspeed * 0.7);
	pm_accelerate(pm, wishdir, wishspeed, pm->mv->wateraccelerate);
	pm_step_slide_move(pm);
}

static void pm_fly_move(struct pm_ctx *pm)
{
	const struct usercmd *cmd = pm->cmd;
	vec3_t wishvel, wishdir;
	float wishspeed;

	for (int i = 0; i < 3; i++)
		wishvel[i] = pm->forward[i] * cmd->forwardmove +
			     pm->right[i] * cmd->sidemove;
	wishvel[2] += cmd->upmove;

	wishspeed = pm_wish(wishvel, pm->mv->maxspeed, wishdir);
	pm_accelerate(pm, wishdir, wishspeed, pm->mv->accelerate);
	pm_step_slide_move(pm);
}

static void pm_air_move(struct pm_ctx *pm)
{
	struct pmove_player *p = pm->p;
	const struct pmove_vars *mv = pm->mv;
	float fmove = pm->cmd->forwardmove, smove = pm->cmd->sidemove;
	vec3_t wishvel, wishdir;
	float wishspeed;

	/* walking ignores pitch */
	pm->forward[2] = 0;
	pm->right[2] = 0;
	pm_normalize(pm->forward);
	pm_normalize(pm->right);
	for (int i = 0; i < 2; i++)
		wishvel[i] = pm->forward[i] * fmove + pm->right[i] * smove;
	wishvel[2] = 0;

	wishspeed = pm_wish(wishvel, mv->maxspeed, wishdir);

	if (p->onground) {
		/* no gravity on the ground (pm_slidefix is off) */
		p->velocity[2] = 0;
		pm_accelerate(pm, wishdir, wishspeed, mv->accelerate);
		if (!p->velocity[0] && !p->velocity[1]) {
			p->velocity[2] = 0;
			return;
		}
		pm_step_slide_move(pm);
	} else {
		pm_air_accelerate(pm, wishdir, wishspeed, mv->accelerate);
		p->velocity[2] -= mv->entgravity * mv->gravity * pm->frametime;
		pm_slide_move(pm);
	}
}

/* PM_CategorizePosition: ground, water level, and the snap to the ground */
static void pm_categorize(struct pm_ctx *pm)
{
	struct pmove_player *p = pm->p;
	struct trace tr;
	vec3_t point;
	int cont;

	memset(&tr, 0, sizeof(tr));
	tr.ent = -1;

	/* on ground: the box one unit down hits a surface flat enough, and
	 * the player is not moving up fast */
	vec_set(point, p->origin[0], p->origin[1], p->origin[2] - 1);
	if (p->velocity[2] > 180) {
		p->onground = false;
	} else {
		pm_trace(pm, p->origin, point, &tr);
		if (tr.fraction == 1 ||
		    tr.plane.normal[2] < PM_MIN_STEP_NORMAL) {
			p->onground = false;
		} else {
			p->onground = true;
			p->groundent = pm_phys_id(pm, tr.ent);
			vec_copy(tr.plane.normal, pm->groundnormal);
			p->waterjumptime = 0;
		}
		/* standing on (or against) an object touches it */
		pm_add_touch(pm, tr.ent);
	}
	if (!p->onground)
		p->groundent = -1;

	/* water level from the feet, the middle, and the eyes */
	p->waterlevel = 0;
	p->watertype = CONTENTS_EMPTY;
	point[2] = p->origin[2] + pmove_player_mins[2] + 1;
	cont = world_point_liquid(pm->w, point);
	if (cont <= CONTENTS_WATER) {
		p->watertype = cont;
		p->waterlevel = 1;
		point[2] = (float)(p->origin[2] + (pmove_player_mins[2] +
						   pmove_player_maxs[2]) * 0.5);
		cont = world_point_liquid(pm->w, point);
		if (cont <= CONTENTS_WATER) {
			p->waterlevel = 2;
			point[2] = p->origin[2] + 22;
			cont = world_point_liquid(pm->w, point);
			if (cont <= CONTENTS_WATER)
				p->waterlevel = 3;
		}
	}

	/* onto the ground, so a jump starts from it (not in water or fly) */
	if (p->onground && p->pm_type != PM_FLY && p->waterlevel < 2 &&
	    !tr.startsolid && !tr.allsolid)
		vec_copy(tr.endpos, p->origin);
}

static void pm_check_jump(struct pm_ctx *pm)
{
	struct pmove_player *p = pm->p;

	if (p->pm_type == PM_FLY)
		return;
	if (p->pm_type == PM_DEAD) {
		p->jump_held = true;	/* no jump on respawn */
		return;
	}
	if (!(pm->cmd->buttons & PMOVE_BUTTON_JUMP)) {
		p->jump_held = false;
		return;
	}
	if (p->waterjumptime != 0)
		return;

	if (p->waterlevel >= 2) {
		/* swimming up, not jumping */
		p->onground = false;
		if (p->watertype == CONTENTS_WATER)
			p->velocity[2] = 100;
		else if (p->watertype == CONTENTS_SLIME)
			p->velocity[2] = 80;
		else
			p->velocity[2] = 50;
		return;
	}
	if (!p->onground || p->jump_held)
		return;	/* in the air, or no pogo stick */

	/* moving into the ground (just landed): along it first */
	if (p->velocity[2] < 0 &&
	    vec_dot(p->velocity, pm->groundnormal) < PM_JUMPFIX_DOT)
		pm_clip_velocity(p->velocity, pm->groundnormal, p->velocity);

	p->onground = false;
	p->groundent = -1;
	p->velocity[2] += 270;
	p->jump_held = true;
}

/* jump out of the water onto a ledge in front: solid at 8 units above the
 * origin 24 units ahead, open air 24 units higher */
static void pm_check_water_jump(struct pm_ctx *pm)
{
	struct pmove_player *p = pm->p;
	vec3_t flatforward, spot;

	if (p->waterjumptime != 0)
		return;
	if (p->velocity[2] < -180)
		return;	/* not when diving in */

	vec_set(flatforward, pm->forward[0], pm->forward[1], 0);
	pm_normalize(flatforward);

	vec_ma(p->origin, 24, flatforward, spot);
	spot[2] += 8;
	if (pm_contents_all_brushes(pm, spot) != CONTENTS_SOLID)
		return;
	spot[2] += 24;
	if (pm_contents_all_brushes(pm, spot) != CONTENTS_EMPTY)
		return;

	pm_scale(flatforward, 50, p->velocity);
	p->velocity[2] = 310;
	p->waterjumptime = 2;	/* a safety net: landing ends it */
	p->jump_held = true;
}

/* Out of solid by a nudge of 1/8 unit on any axes (origins travel in 1/8
 * units), else up to 18 units up.  The reference first truncates the
 * origin to 1/8 but overwrites that before using it, so it is not done.
 * Most players stuck are dead ones under a live player (a corpse is not
 * solid, so players walk into it; MVDSV nudges it the same way), where
 * all 45 positions fail: when one box holds them all (pm_box_holds on
 * the corners of the positions' span) the origin stays without the 45
 * tests; a speculative move records the box and the one holding it. */
static void pm_nudge_position(struct pm_ctx *pm)
{
	static const int sign[3] = {0, -1, 1};
	struct pmove_player *p = pm->p;
	vec3_t base, lo, hi;

	vec_copy(p->origin, base);
	/* the first position is base itself, but as the sum below makes it
	 * (a -0 comes out +0) */
	for (int k = 0; k < 3; k++)
		p->origin[k] = (float)(base[k] + 0.0);
	if (pm_position_clear(pm, p->origin))
		return;
	vec_copy(base, p->origin);
	for (int k = 0; k < 3; k++) {
		lo[k] = (float)(base[k] - 0.125);
		hi[k] = (float)(base[k] + 0.125);
	}
	if (base[2] + (float)PM_STEPSIZE > hi[2])
		hi[2] = base[2] + (float)PM_STEPSIZE;
	if (pm_box_holds(pm, lo, hi))
		return;
	for (int i = 1; i < 27; i++) {
		/* z slowest, x fastest, each through 0, -1/8, +1/8 */
		int x = i % 3, y = i / 3 % 3, z = i / 9;

		p->origin[0] = (float)(base[0] + sign[x] * 0.125);
		p->origin[1] = (float)(base[1] + sign[y] * 0.125);
		p->origin[2] = (float)(base[2] + sign[z] * 0.125);
		if (pm_position_clear(pm, p->origin))
			return;
	}

	for (int z = 1; z <= PM_STEPSIZE; z++) {
		vec_set(p->origin, base[0], base[1], base[2] + (float)z);
		if (pm_position_clear(pm, p->origin))
			return;
	}
	vec_copy(base, p->origin);
}

/* noclip flight: 1.5 x friction, spectator max speed, no collision */
static void pm_spectator_move(struct pm_ctx *pm)
{
	struct pmove_player *p = pm->p;
	const struct pmove_vars *mv = pm->mv;
	float speed, wishspeed, addspeed;
	vec3_t wishvel, wishdir;

	speed = pm_length(p->velocity);
	if (speed < 1) {
		vec_set(p->velocity, 0, 0, 0);
	} else {
		float friction = (float)(mv->friction * 1.5);
		float control = speed < mv->stopspeed ? mv->stopspeed : speed;
		float drop = control * friction * pm->frametime;
		float newspeed = speed - drop;

		if (newspeed < 0)
			newspeed = 0;
		newspeed /= speed;
		pm_scale(p->velocity, newspeed, p->velocity);
	}

	pm_normalize(pm->forward);
	pm_normalize(pm->right);
	for (int i = 0; i < 3; i++)
		wishvel[i] = pm->forward[i] * pm->cmd->forwardmove +
			     pm->right[i] * pm->cmd->sidemove;
	wishvel[2] += pm->cmd->upmove;

	wishspeed = pm_wish(wishvel, mv->spectatormaxspeed, wishdir);
	addspeed = wishspeed - vec_dot(p->velocity, wishdir);

	/* id's spectator does not move at all while coasting */
	if (p->pm_type == PM_OLD_SPECTATOR && addspeed <= 0)
		return;
	if (addspeed > 0) {
		float accelspeed = mv->accelerate * pm->frametime * wishspeed;

		if (accelspeed > addspeed)
			accelspeed = addspeed;
		vec_ma(p->velocity, accelspeed, wishdir, p->velocity);
	}
	vec_ma(p->origin, pm->frametime, p->velocity, p->origin);
}

/* ---- entry points -------------------------------------------------------- */

void pmove_vars_default(struct pmove_vars *mv)
{
	mv->gravity = 800;
	mv->stopspeed = 100;
	mv->maxspeed = 320;
	mv->spectatormaxspeed = 500;
	mv->accelerate = 10;
	mv->airaccelerate = 0.7f;
	mv->wateraccelerate = 10;
	mv->friction = 4;
	mv->waterfriction = 4;
	mv->entgravity = 1.0f;
}

void pmove_player_reset(struct pmove_player *p, const vec3_t origin,
			const vec3_t angles)
{
	bool jump_held = p->jump_held;

	memset(p, 0, sizeof(*p));
	vec_copy(origin, p->origin);
	vec_copy(angles, p->angles);
	p->pm_type = PM_NORMAL;
	p->jump_held = jump_held;
	p->groundent = -1;
	p->watertype = CONTENTS_EMPTY;
}

void pmove_run(const struct world *w, const struct world_obj *self,
	       const struct pmove_vars *mv, const struct usercmd *cmd,
	       struct pmove_player *p, struct pmove_result *res)
{
	pmove_run_read(w, self, mv, cmd, p, res, NULL);
}

void pmove_run_read(const struct world *w, const struct world_obj *self,
		    const struct pmove_vars *mv, const struct usercmd *cmd,
		    struct pmove_player *p, struct pmove_result *res,
		    struct pmove_read *read)
{
	struct pmove_result scratch;
	struct bsp_box_hull box;
	struct pm_ctx pm;

	/* field by field: the physent arrays are written as they fill */
	pm.w = w;
	pm.mv = mv;
	pm.cmd = cmd;
	pm.p = p;
	pm.res = res ? res : &scratch;
	pm.res->num_touch = 0;
	pm.frametime = (float)(cmd->msec * 0.001);
	vec_set(pm.forward, 0, 0, 0);
	vec_set(pm.right, 0, 0, 0);
	vec_set(pm.groundnormal, 0, 0, 1);
	pm.box = &box;
	pm.read = read;
	if (read) {
		read->any = false;
		read->wide = false;
		read->num_segs = 0;
	}

	pm_gather_physents(&pm, self);

	if (p->pm_type == PM_NONE || p->pm_type == PM_LOCK) {
		pm_categorize(&pm);
		return;
	}

	vec_copy(cmd->angles, p->angles);
	pm_angle_vectors(p->angles, pm.forward, pm.right);

	if (p->pm_type == PM_SPECTATOR || p->pm_type == PM_OLD_SPECTATOR) {
		pm_spectator_move(&pm);
		p->onground = false;
		p->groundent = -1;
		return;
	}

	pm_nudge_position(&pm);
	pm_categorize(&pm);

	if (p->waterlevel == 2 && p->pm_type != PM_FLY)
		pm_check_water_jump(&pm);
	if (p->velocity[2] < 0 || p->pm_type == PM_DEAD)
		p->waterjumptime = 0;
	if (p->waterjumptime != 0) {
		p->waterjumptime -= pm.frametime;
		if (p->waterjumptime < 0)
			p->waterjumptime = 0;
	}

	pm_check_jump(&pm);
	pm_friction(&pm);

	if (p->waterlevel >= 2)
		pm_water_move(&pm);
	else if (p->pm_type == PM_FLY)
		pm_fly_move(&pm);
	else
		pm_air_move(&pm);

	pm_categorize(&pm);

	/* a hard landing ends along the ground, so the game sees it once
	 * (landing sound, falling damage) */
	if (p->onground && p->velocity[2] < -300 &&
	    vec_dot(p->velocity, pm.groundnormal) < PM_JUMPFIX_DOT)
		pm_clip_velocity(p->velocity, pm.groundnormal, p->velocity);
}

int pmove_cmd_steps(const struct usercmd *cmd, struct usercmd *step)
{
	int steps = 1;

	*step = *cmd;
	if (step->angles[0] < PMOVE_MIN_PITCH)
		step->angles[0] = PMOVE_MIN_PITCH;
	else if (step->angles[0] > PMOVE_MAX_PITCH)
		step->angles[0] = PMOVE_MAX_PITCH;

	/* MVDSV halves recursively, each half again while over 50 ms */
	while (step->msec > PMOVE_MAX_STEP_MSEC) {
		step->msec /= 2;
		steps *= 2;
	}
	return steps;
}

void pmove_run_cmd(const struct world *w, const struct world_obj *self,
		   const struct pmove_vars *mv, const struct usercmd *cmd,
		   struct pmove_player *p, struct pmove_result *res)
{
	struct usercmd step;
	struct pmove_result one;
	int steps = pmove_cmd_steps(cmd, &step);

	if (res)
		res->num_touch = 0;
	for (int s = 0; s < steps; s++) {
		pmove_run(w, self, mv, &step, p, &one);
		if (!res)
			continue;
		for (int i = 0; i < one.num_touch; i++) {
			int j = 0;

			while (j < res->num_touch &&
			       res->touch[j] != one.touch[i])
				j++;
			if (j == res->num_touch && j < PMOVE_MAX_TOUCH)
				res->touch[res->num_touch++] = one.touch[i];
		}
	}
}
