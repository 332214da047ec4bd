/*
 * walker.c -- the bots' seeded generator and the random walker, shared by
 * the load generator (tools/qwbots) and the frame benchmark
 * (tools/framebench).
 *
 * Design note
 *   A "client frame" is one request: the walker is stepped exactly once
 *   per clc_move a bot sends while in the game, and fills the usercmd
 *   (angles, moves, buttons; msec is the client library's, from the time
 *   between packets, as a stock client sets it).
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
 */
#include "qwtools.h"

#include <string.h>

#include "qwd/protocol.h"

/* ---- SplitMix64 -------------------------------------------------------- */

void qwt_rng_seed(struct qwt_rng *r, uint64_t seed, uint64_t stream)
{
	r->state = seed ^ (stream * 0xd1b54a32d192ed03ull);
	/* one step so nearby seeds do not start with related outputs */
	qwt_rng_next(r);
}

uint64_t qwt_rng_next(struct qwt_rng *r)
{
	return qwd_rng_next(&r->state);
}

double qwt_rng_unit(struct qwt_rng *r)
{
	return qwd_rng_unit(&r->state);
}

uint32_t qwt_rng_below(struct qwt_rng *r, uint32_t n)
{
	return qwd_rng_below(&r->state, n);
}

/* ---- random walker ----------------------------------------------------- */

void qwt_walker_start(struct qwt_walker *w, float yaw)
{
	memset(w, 0, sizeof(*w));
	w->yaw = yaw;
}

void qwt_cmd_clear(struct usercmd *cmd)
{
	uint8_t msec = cmd->msec;

	memset(cmd, 0, sizeof(*cmd));
	cmd->msec = msec;
}

enum qwt_walker_action qwt_walker_step(struct qwt_walker *w,
				       const struct qwt_walker_params *p,
				       struct qwt_rng *r, struct usercmd *cmd)
{
	uint32_t idle = p->idle > 0 ? (uint32_t)p->idle : 0;
	uint32_t walk = p->walk > 0 ? (uint32_t)p->walk : 0;
	uint32_t after = p->after > 0 ? (uint32_t)p->after : 0;
	uint32_t period = idle + walk + after;
	uint32_t phase;
	enum qwt_walker_action act = QWT_ACT_NONE;

	qwt_cmd_clear(cmd);
	if (period == 0)
		period = 1;
	phase = w->frame % period;
	if (phase >= idle)
		cmd->forwardmove = (int16_t)p->speed;
	if (phase == idle + walk && walk + after > 0) {
		act = (enum qwt_walker_action)(QWT_ACT_JUMP + qwt_rng_below(r, 3));
		switch (act) {
		case QWT_ACT_JUMP:
			cmd->buttons = BUTTON_JUMP;
			break;
		case QWT_ACT_FIRE:
			cmd->buttons = BUTTON_ATTACK;
			break;
		default:
			w->yaw = (float)(qwt_rng_unit(r) * 360.0);
			break;
		}
		w->actions[act]++;
	}
	cmd->angles[1] = w->yaw;
	w->frame++;
	return act;
}

const char *qwt_action_name(enum qwt_walker_action a)
{
	static const char *const names[] = {"none", "jump", "fire", "turn"};

	return (unsigned)a < 4 ? names[a] : "?";
}

