/*
 * combat.c -- damage, splash damage, death, blood and gibs (id's
 * combat.qc and the gib functions of player.qc).
 *
 * Design note
 *   combat_damage is the only thing that lowers health.  In order:
 *     quad          the attacker's quad multiplies by 4 (not for doors)
 *     armour        save = ceil(armortype x damage), at most what is left
 *                   (then the armour is gone); take = ceil(damage - save)
 *     knockback     walking targets get damage x 8 units/s away from the
 *                   inflictor's centre
 *     protection    the pentagram takes it all (with a sound every 2 s);
 *                   teamplay 1 spares teammates, teamplay 3 all but self
 *     health        lowered by take; at 0 or below the target is killed:
 *                   its die callback, and for players the obituary
 *   Splash (rockets, grenades, the lightning discharge): everything with
 *   takedamage whose centre is within damage + 40 units takes damage -
 *   distance / 2 (half of that if it is the attacker itself), when a line
 *   from the blast reaches its centre or one of four points 15 units
 *   aside (CanDamage).
 */
#include "internal.h"

#include <math.h>
#include <string.h>

enum { RADIUS_MAX = 256 };

static void entity_middle(const struct game_entity *e, vec3_t out)
{
	for (int k = 0; k < 3; k++)
		out[k] = e->obj->origin[k] + (e->obj->mins[k] + e->obj->maxs[k]) * 0.5f;
}

bool combat_can_damage(struct game *g, struct game_entity *targ,
		       struct game_entity *inflictor)
{
	static const float off[5][2] = {{0, 0}, {15, 15}, {-15, -15}, {-15, 15}, {15, -15}};
	const float *from = inflictor->obj->origin;
	struct trace tr;

	if (targ->movetype == MOVETYPE_PUSH) {
		vec3_t mid;

		for (int k = 0; k < 3; k++)
			mid[k] = (targ->obj->absmin[k] + targ->obj->absmax[k]) * 0.5f;
		g_traceline(g, from, mid, true, inflictor, &tr);
		return tr.fraction == 1.0f || tr.ent == targ->num;
	}
	for (int i = 0; i < 5; i++) {
		vec3_t p = {targ->obj->origin[0] + off[i][0],
			    targ->obj->origin[1] + off[i][1], targ->obj->origin[2]};

		g_traceline(g, from, p, true, inflictor, &tr);
		if (tr.fraction == 1.0f)
			return true;
	}
	return false;
}

static bool same_team(struct game *g, struct game_entity *a,
		      struct game_entity *b);

/* the kill event, before the obituary changes the frags */
static void kill_event(struct game *g, struct game_entity *targ,
		       struct game_entity *attacker)
{
	struct game_client *acl = g_client(g, attacker);
	struct game_ev_kill k = {
		.killer = g_ev_slot(attacker), .victim = targ->client,
		.deathtype = targ->deathtype,
		.weapon = game_ev_weapon_of(targ->deathtype),
		.victim_items = targ->items,
		.killer_quad = acl && acl->super_damage_finished > g->time,
	};

	if (!acl)
		k.flags |= GAME_KILL_WORLD;
	else if (attacker == targ)
		k.flags |= GAME_KILL_SUICIDE;
	else if (g->teamplay && same_team(g, targ, attacker))
		k.flags |= GAME_KILL_TEAM;
	if (targ->deathtype == DT_TELEFRAG)
		k.flags |= GAME_KILL_TELEFRAG;
	G_EVENT(g, kill, &k);
}

static void killed(struct game *g, struct game_entity *targ,
		   struct game_entity *attacker)
{
	if (targ->health < -99)
		targ->health = -99;
	if (targ->movetype == MOVETYPE_PUSH || targ->movetype == MOVETYPE_NONE) {
		if (targ->die)
			targ->die(g, targ, attacker);
		return;
	}
	targ->enemy = attacker;
	if (g_is_player(targ)) {
		if (g->events)
			kill_event(g, targ, attacker);
		player_obituary(g, targ, attacker);
	}
	targ->takedamage = false;
	targ->touch = NULL;
	targ->effects = 0;
	if (targ->die)
		targ->die(g, targ, attacker);
	else
		g_remove(g, targ);
}

static bool same_team(struct game *g, struct game_entity *a,
		      struct game_entity *b)
{
	struct game_client *ca = g_client(g, a), *cb = g_client(g, b);

	return ca && cb && ca->team[0] && strcmp(ca->team, cb->team) == 0;
}

static void apply_damage(struct game *g, struct game_entity *targ,
		   struct game_entity *inflictor, struct game_entity *attacker,
		   float damage, int deathtype);

void combat_damage(struct game *g, struct game_entity *targ,
		   struct game_entity *inflictor, struct game_entity *attacker,
		   float dmg, int deathtype)
{
	bool esc = g_escape_enter("damage");

	apply_damage(g, targ, inflictor, attacker, dmg, deathtype);
	g_escape_leave(esc);
}

static void apply_damage(struct game *g, struct game_entity *targ,
		   struct game_entity *inflictor, struct game_entity *attacker,
		   float damage, int deathtype)
{
	struct game_client *acl = g_client(g, attacker);
	struct game_client *tcl = g_client(g, targ);
	bool door = strcmp(inflictor->classname, "door") == 0;
	float save, take;

	g_touch_player(g, targ);
	if (!targ->inuse || !targ->takedamage)
		return;
	if (acl && acl->super_damage_finished > g->time && !door)
		damage *= g->deathmatch == 4 ? 8 : 4;

	save = ceilf(targ->armortype * damage);
	if (save >= targ->armorvalue) {
		save = targ->armorvalue;
		targ->armortype = 0;
		targ->items &= ~(IT_ARMOR1 | IT_ARMOR2 | IT_ARMOR3);
	}
	targ->armorvalue -= save;
	take = ceilf(damage - save);

	if (tcl) {
		tcl->dmg_take += take;
		tcl->dmg_save += save;
		entity_middle(inflictor, tcl->dmg_from);
		if (inflictor->num == 0)
			vec_copy(targ->obj->origin, tcl->dmg_from);
	}
	if (inflictor->num != 0 && targ->movetype == MOVETYPE_WALK) {
		vec3_t dir, mid;

		for (int k = 0; k < 3; k++)
			mid[k] = (inflictor->obj->absmin[k] + inflictor->obj->absmax[k]) * 0.5f;
		if (inflictor->obj->model < 0 && inflictor->obj->mins[0] == inflictor->obj->maxs[0])
			vec_copy(inflictor->obj->origin, mid);
		vec_sub(targ->obj->origin, mid, dir);
		g_normalize(dir);
		vec_ma(targ->velocity, damage * 8, dir, targ->velocity);
		if (tcl)
			vec_copy(targ->velocity, tcl->pm.velocity);
	}
	if (tcl && tcl->invincible_finished >= g->time) {
		if (tcl->invincible_sound < g->time) {
			g_sound(g, targ, GAME_CHAN_ITEM, g->s_protect3, 1, GAME_ATTN_NORM);
			tcl->invincible_sound = g->time + 2;
		}
		return;
	}
	if (acl && tcl && !door && same_team(g, targ, attacker) &&
	    (g->teamplay == 1 || (g->teamplay == 3 && targ != attacker)))
		return;

	if (g->events) {
		struct game_ev_damage d = {
			.attacker = g_ev_slot(attacker), .target = targ->client,
			.deathtype = deathtype,
			.weapon = game_ev_weapon_of(deathtype),
			.health = take < targ->health ? take :
				  (targ->health > 0 ? targ->health : 0),
			.armour = save,
			.team = acl && tcl && targ != attacker && g->teamplay &&
				same_team(g, targ, attacker),
			.target_items = targ->items,
		};

		G_EVENT(g, damage, &d);
	}
	targ->health -= take;
	targ->deathtype = deathtype;
	if (targ->health <= 0) {
		killed(g, targ, attacker);
		return;
	}
	if (tcl)
		player_pain(g, targ);
	else if (targ->pain)
		targ->pain(g, targ, attacker);
}

void combat_radius(struct game *g, struct game_entity *inflictor,
		   struct game_entity *attacker, float damage,
		   struct game_entity *ignore, int deathtype)
{
	struct world_obj *hits[RADIUS_MAX];
	struct game_entity *list[RADIUS_MAX];
	float rad = damage + 40;
	vec3_t mins, maxs;
	int n, count = 0;

	for (int k = 0; k < 3; k++) {
		mins[k] = inflictor->obj->origin[k] - rad - 64;
		maxs[k] = inflictor->obj->origin[k] + rad + 64;
	}
	n = world_area_objs(g->world, mins, maxs, AREA_SOLID, hits, RADIUS_MAX);
	if (n > RADIUS_MAX)
		n = RADIUS_MAX;
	for (int i = 0; i < n; i++) {
		struct game_entity *e = &g->ents[hits[i]->id];
		vec3_t mid, d;

		if (!e->takedamage || e == ignore)
			continue;
		entity_middle(e, mid);
		vec_sub(inflictor->obj->origin, mid, d);
		if (g_vlen(d) <= rad)
			list[count++] = e;
	}
	for (int i = 0; i < count; i++) {
		struct game_entity *e = list[i];
		vec3_t mid, d;
		float points;

		if (!e->inuse || !e->takedamage)
			continue;
		entity_middle(e, mid);
		vec_sub(inflictor->obj->origin, mid, d);
		points = 0.5f * g_vlen(d);
		if (points < 0)
			points = 0;
		points = damage - points;
		if (e == attacker)
			points *= 0.5f;
		if (points > 0 && combat_can_damage(g, e, inflictor))
			combat_damage(g, e, inflictor, attacker, points, deathtype);
	}
}

void combat_spawn_blood(struct game *g, const vec3_t org, int count)
{
	g_te_point(g, TE_BLOOD, org, count, GAME_MULTICAST_PVS);
}

static void velocity_for_damage(struct game *g, float dm, vec3_t v)
{
	vec_set(v, 100 * g_crandom(g), 100 * g_crandom(g),
		200 + 100 * (float)g_random(g));
	if (dm > -50)
		g_vscale(v, 0.7f, v);
	else if (dm > -200)
		g_vscale(v, 2, v);
	else
		g_vscale(v, 10, v);
}

static void throw_gib(struct game *g, struct game_entity *from, int model)
{
	struct game_entity *gib = g_spawn(g);

	if (!gib)
		return;
	gib->classname = "gib";
	gib->modelindex = model;
	gib->movetype = MOVETYPE_BOUNCE;
	gib->obj->solid = SOLID_NOT;
	velocity_for_damage(g, from->health, gib->velocity);
	vec_set(gib->avelocity, 600 * (float)g_random(g), 600 * (float)g_random(g),
		600 * (float)g_random(g));
	gib->think = g_think_remove;
	gib->nextthink = g->time + 10 + g_random(g) * 10;
	g_setorigin(g, gib, from->obj->origin);
}

/* the player becomes a head; three gibs fly */
void combat_throw_gibs(struct game *g, struct game_entity *e)
{
	bool tele = e->deathtype == DT_TELEFRAG;

	throw_gib(g, e, g->m_gib[0]);
	throw_gib(g, e, g->m_gib[1]);
	throw_gib(g, e, g->m_gib[2]);
	e->modelindex = g->m_h_player;
	e->frame = 0;
	velocity_for_damage(g, e->health, e->velocity);
	if (tele)
		g_sound(g, e, GAME_CHAN_VOICE, g->s_teledeath, 1, GAME_ATTN_NONE);
	else
		g_sound(g, e, GAME_CHAN_VOICE, g_random(g) < 0.5 ? g->s_gib : g->s_udeath,
			1, GAME_ATTN_NONE);
}
