/*
 * qwd/game.h -- the game module: player movement, entities and rules.
 *
 * Design note
 *   The game runs against the world module (traces, the areanode tree) and
 *   never sees the wire format.  Player movement (src/game/pmove.c) is the
 *   part stock clients predict themselves, so it follows QuakeWorld's player
 *   physics as MVDSV runs it with its movement extensions off (pm_ktjump,
 *   pm_slidefix, pm_airstep, pm_rampjump at 0): any difference shows up as a
 *   prediction error on the client.
 */
#ifndef QWD_GAME_H
#define QWD_GAME_H

#include <stdbool.h>
#include <stdint.h>

#include "qwd/common.h"
#include "qwd/world.h"

/* ---- player movement (src/game/pmove.c) ------------------------------- */

/* The movevars the server sends in svc_serverdata (same order there). */
struct pmove_vars {
	float gravity;		/* 800 */
	float stopspeed;	/* 100 */
	float maxspeed;		/* 320 */
	float spectatormaxspeed; /* 500 */
	float accelerate;	/* 10 */
	float airaccelerate;	/* 0.7 */
	float wateraccelerate;	/* 10 */
	float friction;		/* 4 */
	float waterfriction;	/* 4 */
	float entgravity;	/* 1.0 */
};

void pmove_vars_default(struct pmove_vars *mv);

/* Movement types, numbered as QuakeWorld's pmove.h (MVDSV, ezQuake). */
enum pm_type {
	PM_NORMAL = 0,		/* walk, swim, jump */
	PM_OLD_SPECTATOR = 1,	/* noclip fly that stops moving when coasting
				 * (id's bug, kept for old clients) */
	PM_SPECTATOR = 2,	/* noclip fly */
	PM_DEAD = 3,		/* no acceleration, no jumping */
	PM_FLY = 4,		/* fly, clipped by walls, no gravity */
	PM_NONE = 5,		/* no movement; position is only categorised */
	PM_LOCK = 6		/* as PM_NONE; the server sets origin, angles */
};

#define PMOVE_BUTTON_JUMP 2	/* usercmd.buttons bit */
#define PMOVE_MIN_PITCH (-70.0f)	/* MVDSV sv_minpitch default */
#define PMOVE_MAX_PITCH 80.0f		/* MVDSV sv_maxpitch default */

enum {
	PMOVE_MAX_PHYSENTS = 64,	/* world + solid objects nearby */
	PMOVE_MAX_TOUCH = PMOVE_MAX_PHYSENTS,
	PMOVE_MAX_STEP_MSEC = 50,	/* longer commands are halved */
	PMOVE_MAX_STEPS = 8		/* 255 ms -> 8 steps of 31 ms */
};

/* The player box pmove moves (hull 1 of brush models). */
extern const vec3_t pmove_player_mins;	/* -16 -16 -24 */
extern const vec3_t pmove_player_maxs;	/*  16  16  32 */

/* What persists of a player between moves, and what a move reports. */
struct pmove_player {
	vec3_t origin;		/* in/out */
	vec3_t velocity;	/* in/out */
	vec3_t angles;		/* out: the command's view angles (as used);
				 * untouched for PM_NONE and PM_LOCK */
	int pm_type;		/* in: enum pm_type */
	float waterjumptime;	/* in/out: seconds left of a water jump; QC's
				 * teleport_time shares it (a teleporter's
				 * value also suspends friction/acceleration) */
	bool jump_held;		/* in/out: jump not released since last jump */
	/* out (set by every move but spectators'; pground is off, so onground
	 * on input is ignored) */
	bool onground;
	int groundent;		/* world_obj id stood on (0 world), else -1 */
	int waterlevel;		/* 0 dry, 1 feet, 2 waist, 3 eyes */
	int watertype;		/* CONTENTS_* at the feet, or CONTENTS_EMPTY */
};

/* Objects hit during a move (QuakeWorld's touchindex), each once, in the
 * order first hit; the world (id 0) is not listed.  Triggers are not here:
 * the game touches those from the final position. */
struct pmove_result {
	int num_touch;
	int touch[PMOVE_MAX_TOUCH];
};

/* Put a player at rest at origin, facing angles, as PM_NORMAL.  jump_held
 * is kept: QuakeWorld keeps it across respawns, so the jump that respawns a
 * dead player does not also make him jump. */
void pmove_player_reset(struct pmove_player *p, const vec3_t origin,
			const vec3_t angles);

/* One physics step of cmd->msec milliseconds (frametime msec * 0.001),
 * exactly as MVDSV's PM_PlayerMove with pm_ktjump, pm_slidefix,
 * pm_airstep, pm_pground, pm_rampjump and pm_bunnyspeedcap off.  No pitch
 * clamp and no splitting here: see pmove_run_cmd.  self (may be NULL) is
 * the player's own object: neither it nor what it owns blocks the move.
 * res may be NULL.  mv is per player: MVDSV puts the client's own
 * maxspeed and entgravity (QC fields) there; airaccelerate is never read.
 * Afterwards the game copies p->origin to self->origin, relinks it,
 * touches the objects in res and the triggers at the new position, and
 * uses p->angles as the view angles. */
void pmove_run(const struct world *w, const struct world_obj *self,
	       const struct pmove_vars *mv, const struct usercmd *cmd,
	       struct pmove_player *p, struct pmove_result *res);

/* The server's view of a command (MVDSV SV_RunCmd): pitch clamped to
 * PMOVE_MIN_PITCH..PMOVE_MAX_PITCH, and a command over 50 ms halved with
 * integer division, again while over 50 ms (75 -> 37+37, 120 -> 4 x 30,
 * 255 -> 8 x 31).  Writes the command of one step into *step (cmd with
 * the clamped pitch and the step's msec) and returns the number of steps.
 * A server that runs game code per step, as MVDSV does (PlayerPreThink,
 * touches, and the impulse only in the first step), loops itself. */
int pmove_cmd_steps(const struct usercmd *cmd, struct usercmd *step);

/* pmove_cmd_steps and pmove_run for each step; touches of all steps are
 * merged into res (each object once). */
void pmove_run_cmd(const struct world *w, const struct world_obj *self,
		   const struct pmove_vars *mv, const struct usercmd *cmd,
		   struct pmove_player *p, struct pmove_result *res);

#endif
