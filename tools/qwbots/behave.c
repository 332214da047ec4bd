/*
 * behave.c -- what a bot does each client frame: the random walker, the
 * replay of an action file (and getting to its spawn point first), and
 * the seeded generator both draw from.
 *
 * Design note
 *   A "client frame" is one request: a behaviour is stepped exactly once
 *   per clc_move the bot sends while in the game, and fills the usercmd
 *   (angles, moves, buttons, impulse; the client library sets msec from
 *   the real time between packets, as a stock client does).
 *
 *   Random walker (the parallel-QuakeWorld study's bot): with the
 *   parameters (idle, walk, after) = (10, 5, 5) the frame schedule of
 *   every 20-frame cycle is
 *       frames  0..9   standing (forwardmove 0)
 *       frames 10..19  walking forward at `speed`
 *       frame  15      one action drawn uniformly: jump (BUTTON_JUMP for
 *                      that frame), fire (BUTTON_ATTACK for that frame) or
 *                      turn (yaw := uniform [0, 360), kept afterwards)
 *   and frame 20 is frame 0 of the next cycle: the bot stops.  Pitch and
 *   roll stay 0.  The draws come from the bot's own generator only, so a
 *   given seed replays the same choices frame by frame.
 *
 *   Replay: time-based, as recorded (see qwbots.h); the angles are the
 *   recorded absolute angles, which is why the stream must start where it
 *   was recorded: the spawn matcher below kills and respawns the player
 *   until it stands at the file's spawn origin (QuakeWorld spawns at a
 *   random spot; qwd at the next free one in turn).
 */
#include "qwbots.h"

#include <math.h>
#include <string.h>

/* ---- SplitMix64 -------------------------------------------------------- */

void qwb_rng_seed(struct qwb_rng *r, uint64_t seed, uint64_t stream)
{
	r->state = seed ^ (stream * 0xd1b54a32d192ed03ull);
	/* one step so nearby seeds do not start with related outputs */
	qwb_rng_next(r);
}

uint64_t qwb_rng_next(struct qwb_rng *r)
{
	return qwd_rng_next(&r->state);
}

double qwb_rng_unit(struct qwb_rng *r)
{
	return qwd_rng_unit(&r->state);
}

uint32_t qwb_rng_below(struct qwb_rng *r, uint32_t n)
{
	return qwd_rng_below(&r->state, n);
}

/* ---- random walker ----------------------------------------------------- */

void qwb_walker_start(struct qwb_walker *w, float yaw)
{
	memset(w, 0, sizeof(*w));
	w->yaw = yaw;
}

static void clear_cmd(struct usercmd *cmd)
{
	uint8_t msec = cmd->msec;

	memset(cmd, 0, sizeof(*cmd));
	cmd->msec = msec;
}

enum qwb_walker_action qwb_walker_step(struct qwb_walker *w,
				       const struct qwb_walker_params *p,
				       struct qwb_rng *r, struct usercmd *cmd)
{
	uint32_t idle = p->idle > 0 ? (uint32_t)p->idle : 0;
	uint32_t walk = p->walk > 0 ? (uint32_t)p->walk : 0;
	uint32_t after = p->after > 0 ? (uint32_t)p->after : 0;
	uint32_t period = idle + walk + after;
	uint32_t phase;
	enum qwb_walker_action act = QWB_ACT_NONE;

	clear_cmd(cmd);
	if (period == 0)
		period = 1;
	phase = w->frame % period;
	if (phase >= idle)
		cmd->forwardmove = (int16_t)p->speed;
	if (phase == idle + walk && walk + after > 0) {
		act = (enum qwb_walker_action)(QWB_ACT_JUMP + qwb_rng_below(r, 3));
		switch (act) {
		case QWB_ACT_JUMP:
			cmd->buttons = BUTTON_JUMP;
			break;
		case QWB_ACT_FIRE:
			cmd->buttons = BUTTON_ATTACK;
			break;
		default:
			w->yaw = (float)(qwb_rng_unit(r) * 360.0);
			break;
		}
		w->actions[act]++;
	}
	cmd->angles[1] = w->yaw;
	w->frame++;
	return act;
}

const char *qwb_action_name(enum qwb_walker_action a)
{
	static const char *const names[] = {"none", "jump", "fire", "turn"};

	return (unsigned)a < 4 ? names[a] : "?";
}

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

	clear_cmd(cmd);
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
	clear_cmd(cmd);
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
