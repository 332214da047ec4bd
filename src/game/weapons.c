/*
 * weapons.c -- the eight weapons, their missiles and ammunition, and the
 * weapon impulses (id's weapons.qc and the firing frames of player.qc).
 *
 * Design note
 *   A player fires when the attack button is down and time has reached
 *   attack_finished.  Numbers from id's QuakeC:
 *     axe        20 damage at 64 units; 0.5 s
 *     shotgun    6 pellets x 4, spread 0.04 x 0.04, 1 shell; 0.5 s
 *     super sg   14 pellets x 4, spread 0.14 x 0.08, 2 shells; 0.7 s
 *     nailgun    nail 1000 u/s, 9 damage, barrels 4 units left/right in
 *                turn, 1 nail every 0.1 s (the firing frames)
 *     super ng   nail 18 damage, 2 nails every 0.1 s
 *     grenade    600 u/s forward + 200 up, bounces, 2.5 s fuse or on
 *                hitting something that takes damage; splash 120; 0.6 s
 *     rocket     1000 u/s, 100-120 to what it hits, splash 120 to the
 *                rest; 0.8 s
 *     lightning  600-unit beam, 30 damage every 0.1 s, 1 cell; under
 *                water it discharges all cells as splash 35 x cells
 *   Pellets that hit the same entity add up before the damage is done
 *   (QuakeC's multidamage), and the puffs and blood of one shot go out as
 *   one gunshot and one blood temp entity.  A missile runs 0.05 s of
 *   physics at once when fired (QuakeWorld's SV_RunNewmis), so a shot at
 *   point blank hits before the next frame.  Nails are flagged for
 *   svc_nails.  Aim is the view direction: QuakeWorld's sv_aim is off.
 *   The axe swings one of four 4-frame animations (player.qc's axe,
 *   axeb, axec, axed, a quarter chance each) and strikes on the third
 *   frame, 0.2 s after the button: the first command of the player's at
 *   or after that time traces and hits (QuakeWorld runs the player's
 *   frame functions in its command, SV_RunThink).  Anything that resets
 *   the weapon state before then (QuakeC's player_run from
 *   W_SetCurrentAmmo: an ammo pickup, a respawn) or death cancels it.
 *   View kicks (svc_smallkick, svc_bigkick to the shooter): small for the
 *   shotgun, nailguns, grenades, rockets and every shaft tick, big for the
 *   super shotgun's double blast, none for the axe.
 *   deathmatch 4 (QuakeWorld's extra mode): no ammunition is used, the
 *   axe does 75, a grenade costs its thrower 10 health and 1.1 s, and a
 *   shaft fired under water kills its owner half of the time instead of
 *   discharging.
 */
#include "internal.h"

#include <math.h>
#include <string.h>

void weapons_precache(struct game *g)
{
	static const char *const views[9] = {NULL, "progs/v_axe.mdl",
		"progs/v_shot.mdl", "progs/v_shot2.mdl", "progs/v_nail.mdl",
		"progs/v_nail2.mdl", "progs/v_rock.mdl", "progs/v_rock2.mdl",
		"progs/v_light.mdl"};
	static const char *const client_side[] = {"weapons/r_exp3.wav",
		"weapons/ric1.wav", "weapons/ric2.wav", "weapons/ric3.wav",
		"weapons/tink1.wav", "weapons/lock4.wav"};

	for (int i = 1; i < 9; i++)
		g->m_v[i] = g_precache_model(g, views[i]);
	g->m_missile = g_precache_model(g, "progs/missile.mdl");
	g->m_grenade = g_precache_model(g, "progs/grenade.mdl");
	g->m_spike = g_precache_model(g, "progs/spike.mdl");
	g->m_s_spike = g_precache_model(g, "progs/s_spike.mdl");
	for (size_t i = 0; i < sizeof(client_side) / sizeof(client_side[0]); i++)
		g_precache_sound(g, client_side[i]);
	g->s_rocket = g_precache_sound(g, "weapons/sgun1.wav");
	g->s_spike = g_precache_sound(g, "weapons/rocket1i.wav");
	g->s_sspike = g_precache_sound(g, "weapons/spike2.wav");
	g->s_shotgun = g_precache_sound(g, "weapons/guncock.wav");
	g->s_sshotgun = g_precache_sound(g, "weapons/shotgn2.wav");
	g->s_grenade = g_precache_sound(g, "weapons/grenade.wav");
	g->s_bounce = g_precache_sound(g, "weapons/bounce.wav");
	g->s_axe = g_precache_sound(g, "weapons/ax1.wav");
	g->s_axhit = g_precache_sound(g, "player/axhit2.wav");
	g_precache_sound(g, "player/axhit1.wav");
	g->s_lstart = g_precache_sound(g, "weapons/lstart.wav");
	g->s_lhit = g_precache_sound(g, "weapons/lhit.wav");
}

/* ---- current weapon --------------------------------------------------- */

/* the weapon's number, 1 (axe) .. 8 (lightning): the view model's index in
 * g->m_v and the events' enum game_ev_weapon alike */
int weapons_code(int w)
{
	switch (w) {
	case IT_SHOTGUN: return 2;
	case IT_SUPER_SHOTGUN: return 3;
	case IT_NAILGUN: return 4;
	case IT_SUPER_NAILGUN: return 5;
	case IT_GRENADE_LAUNCHER: return 6;
	case IT_ROCKET_LAUNCHER: return 7;
	case IT_LIGHTNING: return 8;
	default: return 1;
	}
}

static int current_ammo(const struct game_client *cl, int w)
{
	switch (w) {
	case IT_SHOTGUN:
	case IT_SUPER_SHOTGUN: return cl->ammo_shells;
	case IT_NAILGUN:
	case IT_SUPER_NAILGUN: return cl->ammo_nails;
	case IT_GRENADE_LAUNCHER:
	case IT_ROCKET_LAUNCHER: return cl->ammo_rockets;
	case IT_LIGHTNING: return cl->ammo_cells;
	default: return 0;
	}
}

void weapons_set_current(struct game *g, struct game_entity *p)
{
	struct game_client *cl = g_client(g, p);
	static const int ammo_bit[9] = {0, 0, IT_SHELLS, IT_SHELLS, IT_NAILS,
		IT_NAILS, IT_ROCKETS, IT_ROCKETS, IT_CELLS};
	int code = weapons_code(p->weapon);

	if (!cl)
		return;
	p->items &= ~(IT_SHELLS | IT_NAILS | IT_ROCKETS | IT_CELLS);
	p->items |= ammo_bit[code];
	cl->weaponmodel = g->m_v[code];
	cl->weaponframe = 0;
	cl->axe_pending = false;	/* player_run ends a swing */
}

int weapons_best(struct game *g, struct game_entity *p)
{
	struct game_client *cl = g_client(g, p);
	int it = p->items;

	if (!cl)
		return IT_AXE;
	if (p->waterlevel <= 1 && cl->ammo_cells >= 1 && (it & IT_LIGHTNING))
		return IT_LIGHTNING;
	if (cl->ammo_nails >= 2 && (it & IT_SUPER_NAILGUN))
		return IT_SUPER_NAILGUN;
	if (cl->ammo_shells >= 2 && (it & IT_SUPER_SHOTGUN))
		return IT_SUPER_SHOTGUN;
	if (cl->ammo_nails >= 1 && (it & IT_NAILGUN))
		return IT_NAILGUN;
	if (cl->ammo_shells >= 1 && (it & IT_SHOTGUN))
		return IT_SHOTGUN;
	return IT_AXE;
}

/* what an impulse 1..8 asks for, and whether the ammo is there */
static int impulse_weapon(const struct game_client *cl, int impulse, bool *no_ammo)
{
	static const int w[9] = {0, IT_AXE, IT_SHOTGUN, IT_SUPER_SHOTGUN,
		IT_NAILGUN, IT_SUPER_NAILGUN, IT_GRENADE_LAUNCHER,
		IT_ROCKET_LAUNCHER, IT_LIGHTNING};
	static const int need[9] = {0, 0, 1, 2, 1, 2, 1, 1, 1};

	*no_ammo = impulse > 1 && current_ammo(cl, w[impulse]) < need[impulse];
	return w[impulse];
}

static void change_weapon(struct game *g, struct game_entity *p, int impulse)
{
	struct game_client *cl = g_client(g, p);
	bool no_ammo;
	int w = impulse_weapon(cl, impulse, &no_ammo);

	if (!(p->items & w)) {
		g_sprint(g, p, PRINT_HIGH, "no weapon.\n");
		return;
	}
	if (no_ammo) {
		g_sprint(g, p, PRINT_HIGH, "not enough ammo.\n");
		return;
	}
	p->weapon = w;
	weapons_set_current(g, p);
}

static void cycle_weapon(struct game *g, struct game_entity *p, int step)
{
	struct game_client *cl = g_client(g, p);
	int code = weapons_code(p->weapon);

	for (int i = 0; i < 8; i++) {
		bool no_ammo;
		int w;

		code += step;
		if (code > 8)
			code = 1;
		if (code < 1)
			code = 8;
		w = impulse_weapon(cl, code, &no_ammo);
		if ((p->items & w) && !no_ammo) {
			p->weapon = w;
			weapons_set_current(g, p);
			return;
		}
	}
}

static void impulse_commands(struct game *g, struct game_entity *p)
{
	struct game_client *cl = g_client(g, p);

	if (cl->impulse >= 1 && cl->impulse <= 8)
		change_weapon(g, p, cl->impulse);
	else if (cl->impulse == 10)
		cycle_weapon(g, p, 1);
	else if (cl->impulse == 12)
		cycle_weapon(g, p, -1);
	cl->impulse = 0;
}

/* QuakeC's "if (deathmatch != 4) ammo = ammo - n" */
static void use_ammo(struct game *g, int *ammo, int n)
{
	if (g->deathmatch != 4)
		*ammo -= n;
}

/* ---- missiles --------------------------------------------------------- */

static void run_newmis(struct game *g, struct game_entity *m)
{
	double saved = g->frametime;

	g->frametime = 0.05;
	phys_run_entity(g, m);
	g->frametime = saved;
}

static struct game_entity *launch(struct game *g, struct game_entity *owner,
				  const char *cls, int movetype, int model,
				  const vec3_t org, const vec3_t vel)
{
	struct game_entity *m = g_spawn(g);
	static const vec3_t zero = {0, 0, 0};

	if (!m)
		return NULL;
	m->classname = cls;
	m->owner = owner;
	m->obj->owner = owner->num;
	m->movetype = movetype;
	m->obj->solid = SOLID_BBOX;
	m->modelindex = model;
	vec_copy(vel, m->velocity);
	g_vectoangles(vel, m->angles);
	vec_copy(zero, m->obj->mins);
	vec_copy(zero, m->obj->maxs);
	g_setorigin(g, m, org);
	g->stats.shots++;
	return m;
}

static bool in_sky(struct game *g, struct game_entity *e)
{
	return g_pointcontents(g, e->obj->origin) == CONTENTS_SKY;
}

/* The start of every missile's touch: not its owner, once only (a touch
 * can come from both sides in one frame), and gone without effect into
 * the sky.  True when the hit goes on. */
static bool missile_hits(struct game *g, struct game_entity *self,
			 struct game_entity *other)
{
	if (other == self->owner || self->voided)
		return false;
	self->voided = true;
	if (in_sky(g, self)) {
		g_remove(g, self);
		return false;
	}
	return true;
}

static void spike_hit(struct game *g, struct game_entity *self,
		      struct game_entity *other, float damage, int dt, int te)
{
	/* spikes fly through triggers */
	if (other->obj->solid == SOLID_TRIGGER || !missile_hits(g, self, other))
		return;
	if (other->takedamage) {
		if (g_is_player(other))
			G_EVENT(g, hit, g_ev_slot(self->owner),
				game_ev_weapon_of(dt), other->client, 1);
		combat_spawn_blood(g, self->obj->origin, 1);
		combat_damage(g, other, self, self->owner, damage, dt);
	} else {
		g_te_point(g, te, self->obj->origin, 0, GAME_MULTICAST_PHS);
	}
	g_remove(g, self);
}

static void spike_touch(struct game *g, struct game_entity *self,
			struct game_entity *other)
{
	spike_hit(g, self, other, 9, DT_NAIL, TE_SPIKE);
}

static void superspike_touch(struct game *g, struct game_entity *self,
			     struct game_entity *other)
{
	spike_hit(g, self, other, 18, DT_SUPERNAIL, TE_SUPERSPIKE);
}

static void explode(struct game *g, struct game_entity *self)
{
	vec3_t dir;

	vec_copy(self->velocity, dir);
	g_normalize(dir);
	vec_ma(self->obj->origin, -8, dir, self->obj->origin);
	g_te_point(g, TE_EXPLOSION, self->obj->origin, 0, GAME_MULTICAST_PHS);
	g_remove(g, self);
}

static void rocket_touch(struct game *g, struct game_entity *self,
			 struct game_entity *other)
{
	if (!missile_hits(g, self, other))
		return;
	if (other->takedamage && g_is_player(other))
		G_EVENT(g, hit, g_ev_slot(self->owner), GAME_WP_RL, other->client, 1);
	if (other->health > 0 || other->takedamage)
		combat_damage(g, other, self, self->owner,
			      100 + (float)g_random(g) * 20, DT_ROCKET);
	combat_radius(g, self, self->owner, 120, other, DT_ROCKET);
	explode(g, self);
}

static void grenade_explode(struct game *g, struct game_entity *self)
{
	if (self->voided)
		return;
	self->voided = true;
	combat_radius(g, self, self->owner, 120, &g->ents[0], DT_GRENADE);
	g_te_point(g, TE_EXPLOSION, self->obj->origin, 0, GAME_MULTICAST_PHS);
	g_remove(g, self);
}

static void grenade_touch(struct game *g, struct game_entity *self,
			  struct game_entity *other)
{
	if (other == self->owner)
		return;
	if (other->takedamage && g_is_player(other)) {	/* DAMAGE_AIM */
		G_EVENT(g, hit, g_ev_slot(self->owner), GAME_WP_GL, other->client, 1);
		grenade_explode(g, self);
		return;
	}
	g_sound(g, self, GAME_CHAN_WEAPON, g->s_bounce, 1, GAME_ATTN_NORM);
	if (self->velocity[0] == 0 && self->velocity[1] == 0 && self->velocity[2] == 0)
		vec_set(self->avelocity, 0, 0, 0);
}

/* ---- firing ----------------------------------------------------------- */

/* player.mdl frames of the attacks */
enum { FR_NAILATT = 103, FR_LIGHT = 105, FR_ROCKATT = 107, FR_SHOTATT = 113,
       FR_AXATT = 119, FR_AXATTB = 125, FR_AXATTC = 131, FR_AXATTD = 137 };

/* the two-frame loops of the nailgun and the lightning gun */
static void loop_frame(struct game *g, struct game_entity *p, int base, int wframes)
{
	struct game_client *cl = g_client(g, p);
	int f = p->frame == base ? base + 1 : base;
	int w = cl->weaponframe % wframes + 1;

	cl->anim_prio = ANIM_BASIC;
	player_anim_start(g, p, f, f, ANIM_ATTACK, 0);
	cl->weaponframe = w;
	cl->wframe_end = w;
}

static void eye_vectors(struct game_client *cl, vec3_t fwd, vec3_t right, vec3_t up)
{
	g_makevectors(cl->v_angle, fwd, right, up);
}

static void kick(struct game *g, struct game_entity *p, bool big)
{
	if (g->svc.kick)
		g->svc.kick(g->svc.ctx, p->client, big);
}

static void muzzleflash(struct game *g, struct game_entity *p)
{
	if (g->svc.muzzleflash)
		g->svc.muzzleflash(g->svc.ctx, p->num, p->obj->origin);
}

static void fire_axe(struct game *g, struct game_entity *p)
{
	struct game_client *cl = g_client(g, p);
	vec3_t fwd, src, end, org;
	struct trace tr;
	struct game_entity *hit;

	G_EVENT(g, shot, p->client, GAME_WP_AXE, 1);
	eye_vectors(cl, fwd, NULL, NULL);
	vec_copy(p->obj->origin, src);
	src[2] += 16;
	vec_ma(src, 64, fwd, end);
	g_traceline(g, src, end, false, p, &tr);
	if (tr.fraction == 1.0f)
		return;
	vec_ma(tr.endpos, -4, fwd, org);
	hit = g_trace_ent(g, &tr);
	if (hit && hit->takedamage) {
		if (g_is_player(hit))
			G_EVENT(g, hit, p->client, GAME_WP_AXE, hit->client, 1);
		combat_spawn_blood(g, org, 1);
		combat_damage(g, hit, p, p, g->deathmatch > 3 ? 75 : 20, DT_AXE);
	} else {
		g_sound(g, p, GAME_CHAN_WEAPON, g->s_axhit, 1, GAME_ATTN_NORM);
		g_te_point(g, TE_GUNSHOT, org, 3, GAME_MULTICAST_PVS);
	}
}

/* W_Attack's axe: one of the four swings; the strike comes 0.2 s later
 * (axe_strike, from weapons_frame) */
static void swing_axe(struct game *g, struct game_entity *p)
{
	static const int first[4] = {FR_AXATT, FR_AXATTB, FR_AXATTC, FR_AXATTD};
	static const int wfirst[4] = {1, 5, 1, 5};
	struct game_client *cl = g_client(g, p);
	int v = (int)(g_random(g) * 4) % 4;

	player_anim_start(g, p, first[v], first[v] + 3, ANIM_ATTACK, 4);
	if (cl->anim_prio == ANIM_ATTACK && p->frame == first[v]) {
		cl->weaponframe = wfirst[v];
		cl->wframe_end = wfirst[v] + 3;
	}
	cl->axe_pending = true;
	cl->axe_time = g->time + 0.2;
}

static void axe_strike(struct game *g, struct game_entity *p)
{
	struct game_client *cl = g_client(g, p);

	if (!cl->axe_pending || g->time < cl->axe_time)
		return;
	cl->axe_pending = false;
	if (p->weapon == IT_AXE && p->health > 0 && !g->intermission)
		fire_axe(g, p);
}

struct multidamage {
	struct game_entity *ent;
	float damage;
	int hits;		/* pellets on md.ent */
	int puffs, bloods;
	vec3_t blood_org;
};

static void apply_multidamage(struct game *g, struct game_entity *p,
			      struct multidamage *md, int dt)
{
	if (md->ent) {
		if (g_is_player(md->ent))
			G_EVENT(g, hit, p->client, game_ev_weapon_of(dt),
				md->ent->client, md->hits);
		combat_damage(g, md->ent, p, p, md->damage, dt);
	}
	md->ent = NULL;
	md->damage = 0;
	md->hits = 0;
}

static void fire_bullets(struct game *g, struct game_entity *p, int shots,
			 float sx, float sy, int dt)
{
	struct game_client *cl = g_client(g, p);
	struct multidamage md = {0};
	vec3_t fwd, right, up, src, end, puff_org;
	struct trace tr;

	G_EVENT(g, shot, p->client, game_ev_weapon_of(dt), shots);
	eye_vectors(cl, fwd, right, up);
	vec_ma(p->obj->origin, 10, fwd, src);
	src[2] = p->obj->absmin[2] + (p->obj->absmax[2] - p->obj->absmin[2]) * 0.7f;
	vec_ma(src, GAME_FIRE_RANGE, fwd, end);
	g_traceline(g, src, end, false, p, &tr);
	vec_ma(tr.endpos, -4, fwd, puff_org);
	for (int i = 0; i < shots; i++) {
		vec3_t dir;
		float cr = g_crandom(g), cu = g_crandom(g);

		for (int k = 0; k < 3; k++)
			dir[k] = fwd[k] + cr * sx * right[k] + cu * sy * up[k];
		vec_ma(src, GAME_FIRE_RANGE, dir, end);
		g_traceline(g, src, end, false, p, &tr);
		if (tr.fraction == 1.0f)
			continue;
		struct game_entity *hit = g_trace_ent(g, &tr);

		if (hit && hit->takedamage) {
			md.bloods++;
			vec_ma(tr.endpos, -4, dir, md.blood_org);
			if (hit != md.ent) {
				apply_multidamage(g, p, &md, dt);
				md.ent = hit;
			}
			md.damage += 4;
			md.hits++;
		} else {
			md.puffs++;
		}
	}
	apply_multidamage(g, p, &md, dt);
	if (md.puffs)
		g_te_point(g, TE_GUNSHOT, puff_org, md.puffs, GAME_MULTICAST_PVS);
	if (md.bloods)
		g_te_point(g, TE_BLOOD, md.blood_org, md.bloods, GAME_MULTICAST_PVS);
}

static void fire_spike(struct game *g, struct game_entity *p, bool super)
{
	struct game_client *cl = g_client(g, p);
	vec3_t fwd, right, org, vel;
	struct game_entity *m;

	G_EVENT(g, shot, p->client, super ? GAME_WP_SNG : GAME_WP_NG, 1);
	eye_vectors(cl, fwd, right, NULL);
	vec_copy(p->obj->origin, org);
	org[2] += 16;
	if (!super) {
		vec_ma(org, cl->nail_side ? -4.0f : 4.0f, right, org);
		cl->nail_side = !cl->nail_side;
	}
	g_vscale(fwd, 1000, vel);
	m = launch(g, p, "spike", MOVETYPE_FLYMISSILE,
		   super ? g->m_s_spike : g->m_spike, org, vel);
	if (!m)
		return;
	m->nail = true;
	m->touch = super ? superspike_touch : spike_touch;
	m->think = g_think_remove;
	m->nextthink = g->time + 6;
	run_newmis(g, m);
}

/* misc.qc's trap_spikeshooter: a nail (or, spawnflags 2, an enforcer's
 * laser: 600 u/s, 15 damage, lit) from a map entity along dir */
static void laser_touch(struct game *g, struct game_entity *self,
			struct game_entity *other)
{
	vec3_t dir, org;

	if (!missile_hits(g, self, other))
		return;
	g_sound(g, self, GAME_CHAN_WEAPON, g->s_enfstop, 1, GAME_ATTN_STATIC);
	vec_copy(self->velocity, dir);
	g_normalize(dir);
	vec_ma(self->obj->origin, -8, dir, org);
	if (other->health != 0) {
		combat_spawn_blood(g, org, 1);
		combat_damage(g, other, self, self->owner, 15, DT_NONE);
	} else {
		g_te_point(g, TE_GUNSHOT, org, 5, GAME_MULTICAST_PVS);
	}
	g_remove(g, self);
}

void weapons_trap_shot(struct game *g, struct game_entity *trap, int kind)
{
	static const vec3_t zero = {0, 0, 0};
	struct game_entity *m;
	vec3_t vel;

	if (kind == 2) {
		g_sound(g, trap, GAME_CHAN_VOICE, g->s_enfire, 1, GAME_ATTN_NORM);
		g_vscale(trap->movedir, 600, vel);
		m = g_spawn(g);
		if (!m)
			return;
		m->classname = "laser";
		m->owner = trap;
		m->obj->owner = trap->num;
		m->movetype = MOVETYPE_FLY;
		m->obj->solid = SOLID_BBOX;
		m->effects = EF_DIMLIGHT;
		m->modelindex = g->m_laser;
		vec_copy(zero, m->obj->mins);
		vec_copy(zero, m->obj->maxs);
		vec_copy(vel, m->velocity);
		g_vectoangles(vel, m->angles);
		m->touch = laser_touch;
		m->think = g_think_remove;
		m->nextthink = g->time + 5;
		g_setorigin(g, m, trap->obj->origin);
		return;
	}
	g_sound(g, trap, GAME_CHAN_VOICE, g->s_sspike, 1, GAME_ATTN_NORM);
	g_vscale(trap->movedir, 500, vel);
	m = launch(g, trap, "spike", MOVETYPE_FLYMISSILE, kind == 1 ? g->m_s_spike :
		   g->m_spike, trap->obj->origin, vel);
	if (!m)
		return;
	m->nail = true;
	m->touch = kind == 1 ? superspike_touch : spike_touch;
	m->think = g_think_remove;
	m->nextthink = g->time + 6;
}

static bool fire_nails(struct game *g, struct game_entity *p)
{
	struct game_client *cl = g_client(g, p);

	if (p->weapon == IT_SUPER_NAILGUN && cl->ammo_nails >= 2) {
		g_sound(g, p, GAME_CHAN_WEAPON, g->s_sspike, 1, GAME_ATTN_NORM);
		use_ammo(g, &cl->ammo_nails, 2);
		fire_spike(g, p, true);
	} else if (cl->ammo_nails >= 1) {
		g_sound(g, p, GAME_CHAN_WEAPON, g->s_spike, 1, GAME_ATTN_NORM);
		use_ammo(g, &cl->ammo_nails, 1);
		fire_spike(g, p, false);
	} else {
		p->weapon = weapons_best(g, p);
		weapons_set_current(g, p);
		return false;
	}
	kick(g, p, false);
	muzzleflash(g, p);
	return true;
}

static void fire_rocket(struct game *g, struct game_entity *p)
{
	struct game_client *cl = g_client(g, p);
	vec3_t fwd, org, vel;
	struct game_entity *m;

	use_ammo(g, &cl->ammo_rockets, 1);
	G_EVENT(g, shot, p->client, GAME_WP_RL, 1);
	g_sound(g, p, GAME_CHAN_WEAPON, g->s_rocket, 1, GAME_ATTN_NORM);
	kick(g, p, false);
	muzzleflash(g, p);
	eye_vectors(cl, fwd, NULL, NULL);
	vec_ma(p->obj->origin, 8, fwd, org);
	org[2] += 16;
	g_vscale(fwd, 1000, vel);
	m = launch(g, p, "missile", MOVETYPE_FLYMISSILE, g->m_missile, org, vel);
	if (!m)
		return;
	m->touch = rocket_touch;
	m->think = g_think_remove;
	m->nextthink = g->time + 5;
	run_newmis(g, m);
}

static void fire_grenade(struct game *g, struct game_entity *p)
{
	struct game_client *cl = g_client(g, p);
	vec3_t fwd, right, up, vel;
	struct game_entity *m;

	use_ammo(g, &cl->ammo_rockets, 1);
	G_EVENT(g, shot, p->client, GAME_WP_GL, 1);
	g_sound(g, p, GAME_CHAN_WEAPON, g->s_grenade, 1, GAME_ATTN_NORM);
	kick(g, p, false);
	muzzleflash(g, p);
	eye_vectors(cl, fwd, right, up);
	if (cl->v_angle[0] != 0) {
		float cr = g_crandom(g), cu = g_crandom(g);

		for (int k = 0; k < 3; k++)
			vel[k] = fwd[k] * 600 + up[k] * 200 + cr * right[k] * 10 +
				 cu * up[k] * 10;
	} else {
		g_vscale(fwd, 600, vel);
		vel[2] = 200;
	}
	m = launch(g, p, "grenade", MOVETYPE_BOUNCE, g->m_grenade,
		   p->obj->origin, vel);
	if (!m)
		return;
	vec_set(m->avelocity, 300, 300, 300);
	m->touch = grenade_touch;
	m->think = grenade_explode;
	m->nextthink = g->time + 2.5;
	if (g->deathmatch == 4) {
		p->attack_finished = g->time + 1.1;
		combat_damage(g, p, p, &g->ents[0], 10, DT_NONE);
	}
	if (m->inuse)
		run_newmis(g, m);
}

static void lightning_hit(struct game *g, struct game_entity *p,
			  struct game_entity *hit, const struct trace *tr)
{
	if (g_is_player(hit))
		G_EVENT(g, hit, p->client, GAME_WP_LG, hit->client, 1);
	g_te_point(g, TE_LIGHTNINGBLOOD, tr->endpos, 0, GAME_MULTICAST_PVS);
	combat_damage(g, hit, p, p, 30, DT_LIGHTNING);
}

static void lightning_damage(struct game *g, struct game_entity *p,
			     const vec3_t p1, const vec3_t p2)
{
	vec3_t f, a, b;
	struct trace tr;
	struct game_entity *e1 = NULL, *e2 = NULL, *hit;

	vec_sub(p2, p1, f);
	g_normalize(f);
	vec_set(f, -f[1] * 16, f[0] * 16, 0);
	g_traceline(g, p1, p2, false, p, &tr);
	hit = g_trace_ent(g, &tr);
	if (hit && hit->takedamage)
		lightning_hit(g, p, hit, &tr);
	e1 = hit;
	vec_add(p1, f, a);
	vec_add(p2, f, b);
	g_traceline(g, a, b, false, p, &tr);
	hit = g_trace_ent(g, &tr);
	if (hit && hit != e1 && hit->takedamage)
		lightning_hit(g, p, hit, &tr);
	e2 = hit;
	vec_sub(p1, f, a);
	vec_sub(p2, f, b);
	g_traceline(g, a, b, false, p, &tr);
	hit = g_trace_ent(g, &tr);
	if (hit && hit != e1 && hit != e2 && hit->takedamage)
		lightning_hit(g, p, hit, &tr);
}

static bool fire_lightning(struct game *g, struct game_entity *p)
{
	struct game_client *cl = g_client(g, p);
	vec3_t fwd, org, end;
	struct trace tr;

	if (cl->ammo_cells < 1) {
		p->weapon = weapons_best(g, p);
		weapons_set_current(g, p);
		return false;
	}
	if (p->waterlevel > 1 && !g->match.shaft_in_water) {
		int cells = cl->ammo_cells;

		if (g->deathmatch > 3 && g_random(g) <= 0.5) {
			p->deathtype = DT_SELFWATER;
			combat_damage(g, p, p, &g->ents[0], 4000, DT_SELFWATER);
			return false;
		}
		cl->ammo_cells = 0;
		weapons_set_current(g, p);
		if (!g->match.no_discharge)	/* KTX's k_dis 0: no blast */
			combat_radius(g, p, p, 35.0f * (float)cells, &g->ents[0],
				      DT_DISCHARGE);
		return false;
	}
	if (cl->lightning_sound < g->time) {
		g_sound(g, p, GAME_CHAN_WEAPON, g->s_lhit, 1, GAME_ATTN_NORM);
		cl->lightning_sound = g->time + 0.6;
	}
	kick(g, p, false);
	use_ammo(g, &cl->ammo_cells, 1);
	G_EVENT(g, shot, p->client, GAME_WP_LG, 1);
	eye_vectors(cl, fwd, NULL, NULL);
	vec_copy(p->obj->origin, org);
	org[2] += 16;
	vec_ma(org, 600, fwd, end);
	g_traceline(g, org, end, true, p, &tr);
	g_te_beam(g, TE_LIGHTNING2, p->num, org, tr.endpos);
	vec_ma(tr.endpos, 4, fwd, end);
	lightning_damage(g, p, p->obj->origin, end);
	g->stats.shots++;
	return true;
}

static void super_damage_sound(struct game *g, struct game_entity *p)
{
	struct game_client *cl = g_client(g, p);

	if (cl->super_damage_finished > g->time && cl->super_sound < g->time) {
		cl->super_sound = g->time + 1;
		g_sound(g, p, GAME_CHAN_BODY, g->s_damage3, 1, GAME_ATTN_NORM);
	}
}

static bool check_ammo(struct game *g, struct game_entity *p)
{
	struct game_client *cl = g_client(g, p);

	if (p->weapon == IT_AXE || current_ammo(cl, p->weapon) > 0)
		return true;
	p->weapon = weapons_best(g, p);
	weapons_set_current(g, p);
	return false;
}

static void attack(struct game *g, struct game_entity *p)
{
	struct game_client *cl = g_client(g, p);

	if (!check_ammo(g, p))
		return;
	cl->last_fired = p->weapon;	/* KTX's lastwepfired (k_frp 2) */
	switch (p->weapon) {
	case IT_AXE:
		p->attack_finished = g->time + 0.5;
		g_sound(g, p, GAME_CHAN_WEAPON, g->s_axe, 1, GAME_ATTN_NORM);
		swing_axe(g, p);
		break;
	case IT_SHOTGUN:
		player_anim_start(g, p, FR_SHOTATT, FR_SHOTATT + 5, ANIM_ATTACK, 6);
		g_sound(g, p, GAME_CHAN_WEAPON, g->s_shotgun, 1, GAME_ATTN_NORM);
		kick(g, p, false);
		muzzleflash(g, p);
		use_ammo(g, &cl->ammo_shells, 1);
		fire_bullets(g, p, 6, 0.04f, 0.04f, DT_SHOTGUN);
		g->stats.shots++;
		p->attack_finished = g->time + 0.5;
		break;
	case IT_SUPER_SHOTGUN:
		player_anim_start(g, p, FR_SHOTATT, FR_SHOTATT + 5, ANIM_ATTACK, 6);
		if (cl->ammo_shells < 2) {
			g_sound(g, p, GAME_CHAN_WEAPON, g->s_shotgun, 1, GAME_ATTN_NORM);
			kick(g, p, false);
			use_ammo(g, &cl->ammo_shells, 1);
			fire_bullets(g, p, 6, 0.04f, 0.04f, DT_SHOTGUN);
		} else {
			g_sound(g, p, GAME_CHAN_WEAPON, g->s_sshotgun, 1, GAME_ATTN_NORM);
			kick(g, p, true);
			use_ammo(g, &cl->ammo_shells, 2);
			fire_bullets(g, p, 14, W_SSG_SPREAD_X, W_SSG_SPREAD_Y,
				     DT_SUPER_SHOTGUN);
		}
		muzzleflash(g, p);
		g->stats.shots++;
		p->attack_finished = g->time + 0.7;
		break;
	case IT_NAILGUN:
	case IT_SUPER_NAILGUN:
		if (fire_nails(g, p)) {
			loop_frame(g, p, FR_NAILATT, 8);
			cl->refire = true;
			cl->refire_time = g->time + 0.1;
			p->attack_finished = g->time + 0.2;
		}
		break;
	case IT_GRENADE_LAUNCHER:
		player_anim_start(g, p, FR_ROCKATT, FR_ROCKATT + 5, ANIM_ATTACK, 6);
		p->attack_finished = g->time + 0.6;
		fire_grenade(g, p);
		break;
	case IT_ROCKET_LAUNCHER:
		player_anim_start(g, p, FR_ROCKATT, FR_ROCKATT + 5, ANIM_ATTACK, 6);
		fire_rocket(g, p);
		p->attack_finished = g->time + 0.8;
		break;
	case IT_LIGHTNING:
		g_sound(g, p, GAME_CHAN_AUTO, g->s_lstart, 1, GAME_ATTN_NORM);
		if (fire_lightning(g, p)) {
			loop_frame(g, p, FR_LIGHT, 4);
			cl->refire = true;
			cl->refire_time = g->time + 0.1;
		}
		p->attack_finished = g->time + 0.2;
		break;
	default:
		break;
	}
	cl->impulse = 0;
}

/* the nailgun and lightning firing frames: a shot every 0.1 s while the
 * button is held, whatever attack_finished says */
static void refire(struct game *g, struct game_entity *p)
{
	struct game_client *cl = g_client(g, p);
	bool ok = false;

	if (!(cl->buttons & 1) || g->intermission || cl->impulse ||
	    (p->weapon != IT_NAILGUN && p->weapon != IT_SUPER_NAILGUN &&
	     p->weapon != IT_LIGHTNING)) {
		cl->refire = false;
		return;
	}
	if (g->time < cl->refire_time)
		return;
	super_damage_sound(g, p);
	if (p->weapon == IT_LIGHTNING) {
		ok = fire_lightning(g, p);
		if (ok)
			loop_frame(g, p, FR_LIGHT, 4);
	} else {
		ok = fire_nails(g, p);
		if (ok)
			loop_frame(g, p, FR_NAILATT, 8);
	}
	cl->refire = ok;
	cl->refire_time = g->time + 0.1;
	p->attack_finished = g->time + 0.2;
}

/* QuakeC's W_WeaponFrame, from PlayerPostThink */
void weapons_frame(struct game *g, struct game_entity *p)
{
	struct game_client *cl = g_client(g, p);

	axe_strike(g, p);
	if (cl->refire) {
		refire(g, p);
		if (cl->refire)
			return;
	}
	if (g->time < p->attack_finished)
		return;
	impulse_commands(g, p);
	if (cl->buttons & 1) {
		super_damage_sound(g, p);
		attack(g, p);
	}
}
