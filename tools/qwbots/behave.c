/*
 * behave.c -- what a bot does each client frame besides walking (the
 * random walker and the seeded generator are tools/lib/walker.c, shared
 * with the frame benchmark): the replay of an action file, and getting to
 * its spawn point first.
 *
 * Design note
 *   A "client frame" is one request: a behaviour is stepped exactly once
 *   per clc_move the bot sends while in the game, and fills the usercmd
 *   (angles, moves, buttons, impulse; the client library sets msec from
 *   the real time between packets, as a stock client does).
 *
 *   Replay: time-based, as recorded (see qwbots.h); the angles are the
 *   recorded absolute angles, which is why the stream must start where it
 *   was recorded: the spawn matcher below kills and respawns the player
 *   until it stands at the file's spawn origin (QuakeWorld spawns at a
 *   random spot; qwd at the next free one in turn).
 */
#include "qwbots.h"
#include "qwtools.h"

#include <math.h>
#include <string.h>

/* ---- replay ------------------------------------------------------------ */

void qwb_replay_begin(struct qwb_replay *r, const struct actions *a,
		      double now)
{
	r->a = a;
	r->pos = 0;
	r->start = now;
	r->loops++;
}

bool qwb_replay_step(struct qwb_replay *r, double now, struct usercmd *cmd)
{
	const struct actions *a = r->a;
	double t = now - r->start;
	size_t end = r->pos;
	uint8_t buttons = 0, impulse = 0;
	const struct action *line;

	qwt_cmd_clear(cmd);
	if (!a || a->n == 0)
		return false;
	while (end < a->n && a->v[end].time <= t) {
		buttons |= a->v[end].cmd.buttons;
		if (!impulse)
			impulse = a->v[end].cmd.impulse;
		end++;
	}
	if (end == r->pos) {
		if (r->pos == a->n)
			return false;	/* played to the end */
		if (r->pos == 0) {
			/* before the first line: face its way, stand still */
			vec_copy(a->v[0].cmd.angles, cmd->angles);
			return true;
		}
		/* no new line yet: the last one is still held (its buttons
		 * too), but an impulse is a one-shot */
		line = &a->v[r->pos - 1];
		buttons = line->cmd.buttons;
	} else {
		line = &a->v[end - 1];
		r->pos = end;
	}
	vec_copy(line->cmd.angles, cmd->angles);
	cmd->forwardmove = line->cmd.forwardmove;
	cmd->sidemove = line->cmd.sidemove;
	cmd->upmove = line->cmd.upmove;
	cmd->buttons = buttons;
	cmd->impulse = impulse;
	return true;
}

/* ---- spawn matching ---------------------------------------------------- */

void qwb_spawnmatch_begin(struct qwb_spawnmatch *s, int max_tries)
{
	memset(s, 0, sizeof(*s));
	s->max_tries = max_tries;
}

static bool near_spot(const float *a, const float *b)
{
	return fabsf(a[0] - b[0]) <= QWB_SPAWN_XY &&
	       fabsf(a[1] - b[1]) <= QWB_SPAWN_XY &&
	       fabsf(a[2] - b[2]) <= QWB_SPAWN_Z;
}

enum qwb_spawn_do qwb_spawnmatch_step(struct qwb_spawnmatch *s,
				      const float *target, const float *origin,
				      int health, struct usercmd *cmd)
{
	qwt_cmd_clear(cmd);
	if (s->done)
		return QWB_SPAWN_PLAY;
	if (s->waiting) {
		bool moved = fabsf(origin[0] - s->before[0]) > 1.0f ||
			     fabsf(origin[1] - s->before[1]) > 1.0f ||
			     fabsf(origin[2] - s->before[2]) > 1.0f;

		s->wait++;
		/* QuakeWorld's game code respawns a dead player on a button
		 * pressed after all were released: press every other frame */
		if (s->wait % 2 == 0)
			cmd->buttons = BUTTON_ATTACK;
		if ((moved && health > 0 && s->wait >= 2) ||
		    s->wait >= QWB_SPAWN_WAIT_MAX)
			s->waiting = false;	/* look again next frame */
		return QWB_SPAWN_WAIT;
	}
	if (near_spot(target, origin)) {
		s->done = true;
		s->matched = true;
		return QWB_SPAWN_PLAY;
	}
	if (s->tries >= s->max_tries) {
		s->done = true;
		return QWB_SPAWN_PLAY;
	}
	s->tries++;
	s->waiting = true;
	s->wait = 0;
	vec_copy(origin, s->before);
	return QWB_SPAWN_KILL;
}
