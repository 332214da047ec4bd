/*
 * clientcmd.c -- one client's command (usercmd) run with the QuakeC
 * around the player's move, the player model's animation, and the stats
 * a client is sent (id's client.qc PlayerPreThink/PlayerPostThink and
 * player.qc's frames).
 *
 * Design note
 *   One usercmd runs as MVDSV's SV_RunCmd with QuakeWorld's QuakeC around
 *   it: split into steps of at most 50 ms (pmove_cmd_steps); per step the
 *   view angles and buttons are taken (the impulse in the first step
 *   only; while the match layer takes KTX's admin code, code_entry,
 *   impulses 1-9 are queued for it instead), PlayerPreThink (rules, liquids, death and respawn), the move
 *   (pmove_run, then the objects it hit are touched and the triggers at
 *   the new place), PlayerPostThink (landing, powerups, weapons).  The
 *   player's entity origin and velocity are the truth between commands:
 *   pushers, knockback, teleporters and push triggers change them, and
 *   the next move starts from there.
 *   Liquids: lava 10 x waterlevel every 0.2 s (1 s with the biosuit),
 *   slime 4 x waterlevel every second (none with the biosuit), drowning
 *   after 12 s under water: 2, 4, ... up to 15 damage a second.  Falling
 *   faster than 650 u/s hurts 5.
 *   Powerups (CheckPowerups, every step after the move): 3 s before one
 *   ends its owner gets the warning once ("Quad Damage is wearing off",
 *   "Protection is almost burned out", "Ring of Shadows magic is
 *   fading", "Air supply in Biosuit expiring"; "OctaPower is wearing
 *   off" in deathmatch 4) with a bonus flash and items/damage2, protect2,
 *   inv2 or suit2.wav, then a flash each second; the quad lights blue,
 *   the pentagram red (both dim light), the ring swaps the model for
 *   the eyes and whispers (inv3.wav) every 1-4 s.
 *   Animation: ten frames a second, a sequence started by
 *   player_anim_start (pain, attack, death) runs to its end, else the
 *   player runs or stands.  This is the game's hot path (every command
 *   of every player): the steps, the thinks and the animation stay in
 *   this one file, static, so the compiler keeps them together.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- animation -------------------------------------------------------- */

void player_anim_start(struct game *g, struct game_entity *e, int first,
		       int last, int prio, int wframes)
{
	struct game_client *cl = g_client(g, e);

	if (!cl || prio < cl->anim_prio)
		return;
	e->frame = first;
	cl->anim_end = last;
	cl->anim_prio = prio;
	cl->wframe_end = wframes;
	cl->weaponframe = wframes > 0 ? 1 : 0;
	cl->anim_time = g->time + 0.1;
}

/* ten frames a second: the running sequence, else standing */
static void player_animate(struct game *g, struct game_entity *e)
{
	struct game_client *cl = g_client(g, e);
	bool axe = e->weapon == IT_AXE;
	int first, last;

	if (g->time < cl->anim_time)
		return;
	cl->anim_time = g->time + 0.1;
	if (cl->anim_prio != ANIM_BASIC) {
		if (e->frame < cl->anim_end) {
			e->frame++;
			if (cl->weaponframe > 0 && cl->weaponframe < cl->wframe_end)
				cl->weaponframe++;
			return;
		}
		if (cl->anim_prio == ANIM_DEATH)
			return;	/* the body keeps its last frame */
		cl->anim_prio = ANIM_BASIC;
		cl->weaponframe = 0;
	}
	if (e->velocity[0] != 0 || e->velocity[1] != 0) {
		first = axe ? FR_AXRUN : FR_ROCKRUN;
		last = first + 5;
	} else {
		first = axe ? FR_AXSTND : FR_STAND;
		last = axe ? FR_AXSTND + 11 : FR_STAND + 4;
	}
	e->frame = e->frame < first || e->frame >= last ? first : e->frame + 1;
}

/* QuakeC's player_pain: a sound every half second, the pain frames
 * unless the weapon is busy or the player is invisible */
void player_pain(struct game *g, struct game_entity *e)
{
	struct game_client *cl = g_client(g, e);

	if (!cl || cl->weaponframe || cl->invisible_finished > g->time)
		return;
	if (cl->pain_finished <= g->time) {
		cl->pain_finished = g->time + 0.5;
		g_sound(g, e, GAME_CHAN_VOICE, g->s_pain[(int)(g_random(g) * 6) % 6],
			1, GAME_ATTN_NORM);
	}
	if (e->weapon == IT_AXE)
		player_anim_start(g, e, FR_AXPAIN, FR_AXPAIN + 5, ANIM_PAIN, 0);
	else
		player_anim_start(g, e, FR_PAIN, FR_PAIN + 5, ANIM_PAIN, 0);
}

/* ---- the player's frame ----------------------------------------------- */

static void water_move(struct game *g, struct game_entity *e)
{
	struct game_client *cl = g_client(g, e);

	if (e->health < 0)
		return;
	if (e->waterlevel != 3) {
		if (cl->air_finished < g->time)
			g_sound(g, e, GAME_CHAN_VOICE, g->s_gasp2, 1, GAME_ATTN_NORM);
		else if (cl->air_finished < g->time + 9)
			g_sound(g, e, GAME_CHAN_VOICE, g->s_gasp1, 1, GAME_ATTN_NORM);
		cl->air_finished = g->time + 12;
		cl->drown_dmg = 2;
	} else if (cl->air_finished < g->time && cl->pain_finished < g->time) {
		cl->drown_dmg += 2;
		if (cl->drown_dmg > 15)
			cl->drown_dmg = 10;
		combat_damage(g, e, &g->ents[0], &g->ents[0], (float)cl->drown_dmg, DT_WATER);
		cl->pain_finished = g->time + 1;
	}
	if (!e->inuse || e->health <= 0)
		return;
	if (!e->waterlevel) {
		if (e->flags & FL_INWATER) {
			g_sound(g, e, GAME_CHAN_BODY, g->s_outwater, 1, GAME_ATTN_NORM);
			e->flags &= ~FL_INWATER;
		}
		return;
	}
	if (e->watertype == CONTENTS_LAVA) {
		if (cl->dmgtime < g->time) {
			cl->dmgtime = g->time + (cl->radsuit_finished > g->time ? 1 : 0.2);
			combat_damage(g, e, &g->ents[0], &g->ents[0],
				      10.0f * (float)e->waterlevel, DT_WATER);
		}
	} else if (e->watertype == CONTENTS_SLIME) {
		if (cl->dmgtime < g->time && cl->radsuit_finished < g->time) {
			cl->dmgtime = g->time + 1;
			combat_damage(g, e, &g->ents[0], &g->ents[0],
				      4.0f * (float)e->waterlevel, DT_WATER);
		}
	}
	if (e->health > 0 && !(e->flags & FL_INWATER)) {
		int s = e->watertype == CONTENTS_LAVA ? g->s_inlava :
			e->watertype == CONTENTS_SLIME ? g->s_slimbrn : g->s_inh2o;

		g_sound(g, e, GAME_CHAN_BODY, s, 1, GAME_ATTN_NORM);
		e->flags |= FL_INWATER;
		cl->dmgtime = 0;
	}
}

/* PlayerPreThink; false when the move is not to run */
static bool pre_think(struct game *g, struct game_entity *e)
{
	struct game_client *cl = g_client(g, e);

	if (cl->intermission || g->intermission) {
		if (g->time >= g->intermission_exit && (cl->buttons & 7))
			player_goto_next_map(g);
		return false;
	}
	if (cl->spectator)
		return true;
	water_move(g, e);
	if (e->deadflag == DEAD_DYING && g->time >= cl->death_time + 1.0)
		e->deadflag = DEAD_DEAD;
	if (e->deadflag >= DEAD_DEAD) {
		if (e->deadflag == DEAD_DEAD) {
			if (!(cl->buttons & 7))
				e->deadflag = DEAD_RESPAWNABLE;
			return true;
		}
		if (cl->buttons & 7) {
			player_copy_to_bodyque(g, e);
			player_put_in_server(g, e->client);
			return false;
		}
		return true;
	}
	if (e->deadflag == DEAD_DYING) {
		player_animate(g, e);
		return true;
	}
	if (!(cl->buttons & 2)) {
		e->flags |= FL_JUMPRELEASED;
	} else if (e->waterlevel < 2 && (e->flags & FL_ONGROUND) &&
		   (e->flags & FL_JUMPRELEASED)) {
		/* QuakeC's PlayerJump: only the sound; pmove jumps */
		e->flags &= ~FL_JUMPRELEASED;
		g_sound(g, e, GAME_CHAN_BODY, g->s_jump, 1, GAME_ATTN_NORM);
	}
	if (g->time > e->attack_finished && e->weapon != IT_AXE) {
		bool empty;

		switch (e->weapon) {
		case IT_SHOTGUN:
		case IT_SUPER_SHOTGUN: empty = cl->ammo_shells == 0; break;
		case IT_NAILGUN:
		case IT_SUPER_NAILGUN: empty = cl->ammo_nails == 0; break;
		case IT_GRENADE_LAUNCHER:
		case IT_ROCKET_LAUNCHER: empty = cl->ammo_rockets == 0; break;
		default: empty = cl->ammo_cells == 0; break;
		}
		if (empty) {
			e->weapon = weapons_best(g, e);
			weapons_set_current(g, e);
		}
	}
	return true;
}

/* the last 3 s of a powerup: the first time the warning (text, bonus
 * flash, sound), then a bonus flash every second; *when is QuakeC's
 * *_time field (1 until the warning) */
static void powerup_warning(struct game *g, struct game_entity *e,
			    double finished, double *when, const char *text,
			    int sound)
{
	if (finished >= g->time + 3)
		return;
	if (*when == 1) {
		g_sprint(g, e, PRINT_HIGH, "%s", text);
		g_stuff(g, e, "bf\n");
		g_sound(g, e, GAME_CHAN_AUTO, sound, 1, GAME_ATTN_NORM);
		*when = g->time + 1;
	}
	if (*when < g->time) {
		*when = g->time + 1;
		g_stuff(g, e, "bf\n");
	}
}

/* QuakeC's CheckPowerups, in its order: each powerup's block runs only
 * while its *_finished is set, and the light effects are switched inside
 * those blocks (so a player without powerups keeps his effects as they
 * are) */
static void check_powerups(struct game *g, struct game_entity *e)
{
	struct game_client *cl = g_client(g, e);

	if (e->health <= 0)
		return;
	if (cl->invisible_finished) {
		if (cl->invisible_sound < g->time) {
			g_sound(g, e, GAME_CHAN_AUTO, g->s_inv3, 0.5f, GAME_ATTN_IDLE);
			cl->invisible_sound = g->time + g_random(g) * 3 + 1;
		}
		powerup_warning(g, e, cl->invisible_finished, &cl->invisible_time,
				"Ring of Shadows magic is fading\n", g->s_inv2);
		if (cl->invisible_finished < g->time) {
			e->items &= ~IT_INVISIBILITY;
			G_EVENT(g, powerup_end, e->client, GAME_ITEM_RING);
			cl->invisible_finished = 0;
			cl->invisible_time = 0;
		}
		e->frame = 0;
		e->modelindex = g->m_eyes;
	} else {
		e->modelindex = g->m_player;
	}
	if (cl->invincible_finished) {
		powerup_warning(g, e, cl->invincible_finished, &cl->invincible_time,
				"Protection is almost burned out\n", g->s_protect2);
		if (cl->invincible_finished < g->time) {
			e->items &= ~IT_INVULNERABILITY;
			G_EVENT(g, powerup_end, e->client, GAME_ITEM_PENT);
			cl->invincible_time = 0;
			cl->invincible_finished = 0;
		}
		if (cl->invincible_finished > g->time)
			e->effects |= EF_DIMLIGHT | EF_RED;
		else
			e->effects &= ~(EF_DIMLIGHT | EF_RED);
	}
	if (cl->super_damage_finished) {
		powerup_warning(g, e, cl->super_damage_finished, &cl->super_time,
				g->deathmatch == 4 ? "OctaPower is wearing off\n" :
				"Quad Damage is wearing off\n", g->s_damage2);
		if (cl->super_damage_finished < g->time) {
			e->items &= ~IT_QUAD;
			G_EVENT(g, powerup_end, e->client, GAME_ITEM_QUAD);
			if (g->deathmatch == 4) {
				/* the OctaPower's price is paid back */
				cl->ammo_cells = 255;
				e->armorvalue = 1;
				e->armortype = 0.8f;
				e->health = 100;
			}
			cl->super_damage_finished = 0;
			cl->super_time = 0;
		}
		if (cl->super_damage_finished > g->time)
			e->effects |= EF_DIMLIGHT | EF_BLUE;
		else
			e->effects &= ~(EF_DIMLIGHT | EF_BLUE);
	}
	if (cl->radsuit_finished) {
		cl->air_finished = g->time + 12;	/* no drowning */
		powerup_warning(g, e, cl->radsuit_finished, &cl->rad_time,
				"Air supply in Biosuit expiring\n", g->s_suit2);
		if (cl->radsuit_finished < g->time) {
			e->items &= ~IT_SUIT;
			G_EVENT(g, powerup_end, e->client, GAME_ITEM_SUIT);
			cl->rad_time = 0;
			cl->radsuit_finished = 0;
		}
	}
}

/* PlayerPostThink */
static void post_think(struct game *g, struct game_entity *e)
{
	struct game_client *cl = g_client(g, e);

	if (cl->spectator || e->deadflag)
		return;
	if (cl->jump_flag < -300 && (e->flags & FL_ONGROUND)) {
		if (e->watertype == CONTENTS_WATER) {
			g_sound(g, e, GAME_CHAN_BODY, g->s_h2ojump, 1, GAME_ATTN_NORM);
		} else if (cl->jump_flag < -650) {
			combat_damage(g, e, &g->ents[0], &g->ents[0], 5, DT_FALLING);
			g_sound(g, e, GAME_CHAN_VOICE, g->s_land2, 1, GAME_ATTN_NORM);
		} else {
			g_sound(g, e, GAME_CHAN_VOICE, g->s_land, 1, GAME_ATTN_NORM);
		}
	}
	cl->jump_flag = e->velocity[2];
	if (e->deadflag)
		return;
	check_powerups(g, e);
	weapons_frame(g, e);
	player_animate(g, e);
}

static void touch_hits(struct game *g, struct game_entity *e,
		       const struct pmove_result *res)
{
	for (int i = 0; i < res->num_touch; i++) {
		int id = res->touch[i];
		struct game_entity *t;

		if (id <= 0 || id >= g->max_entities)
			continue;
		t = &g->ents[id];
		if (t->inuse && t->touch && t->obj->solid != SOLID_NOT)
			t->touch(g, t, e);
		if (!e->inuse)
			return;
	}
}

static void flush_damage(struct game *g, struct game_entity *e)
{
	struct game_client *cl = g_client(g, e);

	if (!cl->dmg_take && !cl->dmg_save)
		return;
	if (g->svc.damage)
		g->svc.damage(g->svc.ctx, e->client, (int)cl->dmg_save,
			      (int)cl->dmg_take, cl->dmg_from);
	cl->dmg_take = cl->dmg_save = 0;
}

/* The pmove input of a step, as run_step builds it after pre_think:
 * the entity's origin and velocity, its movement type, and the command
 * with the angles the server set when the client has not turned yet
 * (fixangle).  The rest of *p is the player's pmove state. */
static void step_input(const struct game_client *cl,
		       const struct game_entity *e, const struct usercmd *cmd,
		       struct pmove_player *p, struct usercmd *c)
{
	vec_copy(e->obj->origin, p->origin);
	vec_copy(e->velocity, p->velocity);
	if (cl->spectator)
		p->pm_type = PM_SPECTATOR;
	else if (e->health <= 0 || e->deadflag)
		p->pm_type = PM_DEAD;
	else
		p->pm_type = PM_NORMAL;
	*c = *cmd;
	if (cl->fixangle)
		vec_copy(cl->v_angle, c->angles);
}

static bool same_bits(const void *a, const void *b, size_t n)
{
	return memcmp(a, b, n) == 0;
}

/* every field pmove reads or leaves as it was, bit for bit */
static bool same_player(const struct pmove_player *a,
			const struct pmove_player *b)
{
	return same_bits(a->origin, b->origin, sizeof(a->origin)) &&
	       same_bits(a->velocity, b->velocity, sizeof(a->velocity)) &&
	       same_bits(a->angles, b->angles, sizeof(a->angles)) &&
	       a->pm_type == b->pm_type &&
	       same_bits(&a->waterjumptime, &b->waterjumptime,
			 sizeof(a->waterjumptime)) &&
	       a->jump_held == b->jump_held && a->onground == b->onground &&
	       a->groundent == b->groundent &&
	       a->waterlevel == b->waterlevel && a->watertype == b->watertype;
}

static bool same_cmd(const struct usercmd *a, const struct usercmd *b)
{
	return a->msec == b->msec &&
	       same_bits(a->angles, b->angles, sizeof(a->angles)) &&
	       a->forwardmove == b->forwardmove &&
	       a->sidemove == b->sidemove && a->upmove == b->upmove &&
	       a->buttons == b->buttons && a->impulse == b->impulse;
}

bool game_spec_prepare(const struct game *g, int slot,
		       const struct usercmd *cmd, struct game_spec *s)
{
	const struct game_client *cl;
	const struct game_entity *e;
	struct usercmd step;

	s->made = false;
	s->ready = false;
	if (slot < 0 || slot >= g->max_clients || !g->clients[slot].active)
		return false;
	cl = &g->clients[slot];
	e = &g->ents[game_player_entity(g, slot)];
	pmove_cmd_steps(cmd, &step);
	s->in = cl->pm;
	step_input(cl, e, &step, &s->in, &s->cmd);
	s->mv = g->movevars;
	s->self = e->obj->id;
	s->ready = true;
	return true;
}

void game_spec_run(const struct world *w, struct game_spec *s)
{
	if (!s->ready || s->self < 0 || s->self >= w->max_objs)
		return;
	s->out = s->in;
	pmove_run_read(w, &w->objs[s->self], &s->mv, &s->cmd, &s->out,
		       &s->res, &s->read);
	s->made = true;
}

void game_spec_make(const struct game *g, int slot, const struct usercmd *cmd,
		    struct game_spec *s)
{
	if (game_spec_prepare(g, slot, cmd, s))
		game_spec_run(g->world, s);
}

void game_spec_attach(struct game *g, int slot, struct game_spec *s)
{
	if (s)
		s->outcome = GAME_SPEC_UNUSED;
	if (slot >= 0 && slot < g->max_clients)
		g->clients[slot].spec = s;
}

/* The changed objects a step ahead could have met: a brush model, or
 * any when the step read coarsely, says so at once; a box object is
 * kept (once) for pmove_read_holds, which asks its recorded traces and
 * tests again of the object where it is now. */
enum { SPEC_SUSPECTS = 16 };
struct spec_suspects {
	const struct pmove_read *read;
	int n;
	int ids[SPEC_SUSPECTS];
};

static bool spec_read_touches(void *ctx, int id, const vec3_t mins,
			      const vec3_t maxs, bool brush)
{
	struct spec_suspects *q = ctx;
	const struct pmove_read *r = q->read;

	/* a suspect already (it changed more than once): asked where it is
	 * now, once */
	if (!brush)
		for (int i = 0; i < q->n; i++)
			if (q->ids[i] == id)
				return false;
	if (!pmove_read_touches(r, mins, maxs, brush))
		return false;
	if (brush || r->wide || r->num_segs > PMOVE_READ_SEGS)
		return true;
	if (q->n == SPEC_SUSPECTS)
		return true;
	q->ids[q->n++] = id;
	return false;
}

/* Did an object changed since the step ran ahead change what it read? */
static bool spec_world_changed(const struct game *g, const struct game_entity *e,
			       const struct game_spec *s)
{
	struct spec_suspects q;
	const struct world *w = g->world;

	if (!w->changes)
		return true;
	if (!s->read.any)
		return false;
	q.read = &s->read;
	q.n = 0;
	if (world_changes_meet(w, s->read.mins, s->read.maxs, e->obj->id,
			       spec_read_touches, &q))
		return true;
	for (int i = 0; i < q.n; i++)
		if (q.ids[i] < 0 || q.ids[i] >= w->max_objs ||
		    !pmove_read_holds(&s->read, &w->objs[q.ids[i]], e->obj->id))
			return true;
	return false;
}

/* The step's pmove from the speculation attached to the player, when
 * it ran on this very input and nothing it read has changed since;
 * used once (the player's next step runs for real). */
static bool spec_take(struct game *g, struct game_client *cl,
		      const struct game_entity *e, const struct pmove_vars *mv,
		      const struct usercmd *c, struct pmove_result *res)
{
	struct game_spec *s = cl->spec;

	if (!s)
		return false;
	cl->spec = NULL;
	if (!s->made)
		return false;
	if (!same_player(&s->in, &cl->pm) || !same_cmd(&s->cmd, c) ||
	    !same_bits(&s->mv, mv, sizeof(*mv))) {
		g->stats.spec_inputs++;
		s->outcome = GAME_SPEC_INPUT;
		return false;
	}
	if (spec_world_changed(g, e, s)) {
		g->stats.spec_world++;
		s->outcome = GAME_SPEC_WORLD;
		return false;
	}
#ifdef QWD_SELF_CHECK
	{
		/* the sanitizer builds run it again: a result taken must be
		 * the one pmove gives now */
		struct pmove_player now = cl->pm;
		struct pmove_result r;

		pmove_run(g->world, e->obj, mv, c, &now, &r);
		if (!same_player(&now, &s->out) || r.num_touch != s->res.num_touch ||
		    memcmp(r.touch, s->res.touch,
			   (size_t)r.num_touch * sizeof(r.touch[0])) != 0)
			abort();
	}
#endif
	cl->pm = s->out;
	/* the touches only: nothing reads past them, and every line of the
	 * cell comes from the CPU that ran the step */
	res->num_touch = s->res.num_touch;
	memcpy(res->touch, s->res.touch,
	       (size_t)s->res.num_touch * sizeof(res->touch[0]));
	g->stats.spec_hits++;
	s->outcome = GAME_SPEC_TAKEN;
	return true;
}

static void run_step(struct game *g, int slot, const struct usercmd *cmd,
		     bool first)
{
	struct game_client *cl = &g->clients[slot];
	struct game_entity *e = &g->ents[game_player_entity(g, slot)];
	struct pmove_result res;
	struct pmove_vars mv = g->movevars;
	struct usercmd c;

	cl->cmd = *cmd;
	if (!cl->fixangle)
		vec_copy(cmd->angles, cl->v_angle);
	cl->buttons = cmd->buttons;
	if (first && cmd->impulse >= 1 && cmd->impulse <= 9 && cl->code_entry) {
		/* a digit of KTX's admin code: the match's, no weapon's */
		if (cl->code_count < (int)sizeof(cl->code_digits))
			cl->code_digits[cl->code_count++] = cmd->impulse;
	} else if (first && cmd->impulse) {
		cl->impulse = cmd->impulse;
	}
	if (e->health > 0 && !cl->intermission) {
		e->angles[0] = -cl->v_angle[0] / 3;
		e->angles[1] = cl->v_angle[1];
		e->angles[2] = 0;
	}
	if (!pre_think(g, e))
		return;

	step_input(cl, e, cmd, &cl->pm, &c);
	if (!spec_take(g, cl, e, &mv, &c, &res))
		pmove_run(g->world, e->obj, &mv, &c, &cl->pm, &res);
	cl->fixangle = false;
	vec_copy(cl->pm.origin, e->obj->origin);
	vec_copy(cl->pm.velocity, e->velocity);
	e->waterlevel = cl->pm.waterlevel;
	e->watertype = cl->pm.watertype;
	if (cl->pm.onground && cl->pm.groundent >= 0) {
		e->flags |= FL_ONGROUND;
		e->groundentity = &g->ents[cl->pm.groundent];
	} else {
		e->flags &= ~FL_ONGROUND;
		e->groundentity = NULL;
	}
	if (cl->spectator) {
		g_link(g, e, false);
		return;
	}
	g_link(g, e, true);
	if (!e->inuse)
		return;
	touch_hits(g, e, &res);
	if (!e->inuse)
		return;
	post_think(g, e);
}

bool game_cmd_action(const struct game *g, int slot, const struct usercmd *cmd,
		     struct game_action *a)
{
	const struct game_client *cl;
	const struct game_entity *e;
	struct usercmd step;
	float speed;
	int n;

	if (slot < 0 || slot >= g->max_clients || !g->clients[slot].active)
		return false;
	cl = &g->clients[slot];
	e = &g->ents[game_player_entity(g, slot)];
	speed = g_vlen(e->velocity);
	n = pmove_cmd_steps(cmd, &step);
	a->reach = (float)n * pmove_reach(speed, step.msec * 0.001);
	/* as pre_think decides: the buttons that respawn a dead player or
	 * end the intermission */
	a->global = (cmd->buttons & 7) &&
		    (((cl->intermission || g->intermission) &&
		      g->time >= g->intermission_exit) ||
		     e->deadflag == DEAD_RESPAWNABLE);
	/* as weapons_frame decides: an axe swing under way strikes, the
	 * nailgun's and the lightning's firing frames go on while the
	 * button is held, and otherwise the button fires once the weapon
	 * is ready */
	a->fires = !cl->spectator && !cl->intermission && e->health > 0 &&
		   !e->deadflag &&
		   (cl->axe_pending ||
		    ((cmd->buttons & BUTTON_ATTACK) &&
		     (cl->refire || g->time >= e->attack_finished)));
	if (a->fires) {
		vec3_t fwd, right, up, end;
		/* how far the weapon in hand reaches and how wide, at its end:
		 * a hitscan's trace and spread (SHOTGUN 0.04, SUPER_SHOTGUN
		 * 0.14 x 0.08 as weapons_frame fires them), the beam's 600
		 * units, the axe's 64; a missile (nails, grenade, rocket) only
		 * starts here (it flies in the WORLD phase); 64 units for the
		 * eye, the muzzle and the boxes.  A command that changes the
		 * weapon may fire any of them: the widest. */
		float range = GAME_FIRE_RANGE + 10, spread = W_SSG_SPREAD_X;

		if (!cmd->impulse) {
			switch (e->weapon) {
			case IT_SHOTGUN: spread = 0.04f; break;
			case IT_SUPER_SHOTGUN: break;
			case IT_LIGHTNING: range = 600 + 10; spread = 0; break;
			case IT_AXE: range = 64; spread = 0; break;
			default: range = 8; spread = 0; break;	/* missiles */
			}
		}
		/* the shaft under water discharges around the player: far */
		if ((e->weapon == IT_LIGHTNING || cmd->impulse) && e->waterlevel > 1)
			a->global = true;
		float grow = range * spread * 1.42f + 64;

		g_makevectors(cl->fixangle ? cl->v_angle : cmd->angles, fwd,
			      right, up);
		vec_ma(e->obj->origin, range, fwd, end);
		vec_copy(e->obj->origin, a->fire_start);
		vec_copy(end, a->fire_end);
		a->fire_grow = grow;
		for (int k = 0; k < 3; k++) {
			float lo = e->obj->origin[k] < end[k] ? e->obj->origin[k] : end[k];
			float hi = e->obj->origin[k] < end[k] ? end[k] : e->obj->origin[k];

			a->fire_mins[k] = lo - grow;
			a->fire_maxs[k] = hi + grow;
		}
	}
	return true;
}

void game_client_cmd_local(struct game *g, int slot, const struct usercmd *cmd)
{
	struct usercmd step;
	int n;

	if (slot < 0 || slot >= g->max_clients || !g->clients[slot].active)
		return;
	n = pmove_cmd_steps(cmd, &step);
	for (int i = 0; i < n; i++)
		run_step(g, slot, &step, i == 0);
	flush_damage(g, &g->ents[game_player_entity(g, slot)]);
}

void game_client_cmd(struct game *g, int slot, const struct usercmd *cmd)
{
	if (slot < 0 || slot >= g->max_clients || !g->clients[slot].active)
		return;
	g->stats.commands++;
	game_client_cmd_local(g, slot, cmd);
}

void game_add_commands(struct game *g, uint64_t n)
{
	g->stats.commands += n;
}

/* any leaf of liquid within the box (more leafs than we look at: say
 * yes) */
static bool liquid_within(const struct game *g, const vec3_t mins,
			  const vec3_t maxs)
{
	int32_t leafs[64];
	int n;

	if (!g->liquids)
		return false;
	n = bsp_box_leafs(g->map, mins, maxs, leafs, 64);
	if (n > 64)
		return true;
	for (int i = 0; i < n; i++) {
		int c = g->map->leafs[leafs[i]].contents;

		if (c == CONTENTS_WATER || c == CONTENTS_SLIME ||
		    c == CONTENTS_LAVA)
			return true;
	}
	return false;
}

bool game_client_local(const struct game *g, int slot,
		       const struct usercmd *cmds, int n, const vec3_t rmin,
		       const vec3_t rmax)
{
	const struct game_client *cl;
	const struct game_entity *e;
	double t = 0;

	if (slot < 0 || slot >= g->max_clients || !g->clients[slot].active)
		return false;
	cl = &g->clients[slot];
	e = &g->ents[game_player_entity(g, slot)];
	if (cl->spectator || cl->intermission || g->intermission ||
	    e->deadflag != DEAD_NO || e->health <= 0 ||
	    e->movetype != MOVETYPE_WALK)
		return false;
	if (cl->axe_pending || cl->refire || cl->impulse)
		return false;
	if (cl->super_time || cl->invincible_time || cl->invisible_time ||
	    cl->rad_time || cl->super_damage_finished > 0 ||
	    cl->invincible_finished > 0 || cl->invisible_finished > 0 ||
	    cl->radsuit_finished > 0)
		return false;
	for (int i = 0; i < n; i++) {
		if ((cmds[i].buttons & BUTTON_ATTACK) || cmds[i].impulse)
			return false;
		t += cmds[i].msec * 0.001;
	}
	/* post_think hurts a landing after a fall faster than 650 u/s: the
	 * last step's speed and the slowest this move can reach */
	if (cl->jump_flag < -600 ||
	    e->velocity[2] - g->movevars.gravity * (t + 0.05) < -600)
		return false;
	if (e->waterlevel || liquid_within(g, rmin, rmax))
		return false;
	return true;
}

void game_client_stats(const struct game *g, int slot, int32_t *stats,
		       int num_stats)
{
	const struct game_client *cl;
	const struct game_entity *e;
	int32_t v[STAT_ITEMS + 1] = {0};
	int ammo = 0;

	if (slot < 0 || slot >= g->max_clients)
		return;
	cl = &g->clients[slot];
	e = &g->ents[game_player_entity(g, slot)];
	switch (e->weapon) {
	case IT_SHOTGUN:
	case IT_SUPER_SHOTGUN: ammo = cl->ammo_shells; break;
	case IT_NAILGUN:
	case IT_SUPER_NAILGUN: ammo = cl->ammo_nails; break;
	case IT_GRENADE_LAUNCHER:
	case IT_ROCKET_LAUNCHER: ammo = cl->ammo_rockets; break;
	case IT_LIGHTNING: ammo = cl->ammo_cells; break;
	default: break;
	}
	v[STAT_HEALTH] = (int32_t)e->health;
	v[STAT_WEAPON] = cl->weaponmodel;
	v[STAT_AMMO] = ammo;
	v[STAT_ARMOR] = (int32_t)e->armorvalue;
	v[STAT_WEAPONFRAME] = cl->weaponframe;
	v[STAT_SHELLS] = cl->ammo_shells;
	v[STAT_NAILS] = cl->ammo_nails;
	v[STAT_ROCKETS] = cl->ammo_rockets;
	v[STAT_CELLS] = cl->ammo_cells;
	v[STAT_ACTIVEWEAPON] = e->weapon;
	v[STAT_ITEMS] = e->items;
	for (int i = 0; i < num_stats && i <= STAT_ITEMS; i++)
		stats[i] = v[i];
}
