/*
 * player.c -- players: entering, spawning, their commands (the QuakeC
 * around the player's move), dying and respawning, obituaries and frags,
 * and the level's end (id's client.qc and player.qc).
 *
 * Design note
 *   One usercmd runs as MVDSV's SV_RunCmd with QuakeWorld's QuakeC around
 *   it: split into steps of at most 50 ms (pmove_cmd_steps); per step the
 *   view angles and buttons are taken (the impulse in the first step
 *   only), PlayerPreThink (rules, liquids, death and respawn), the move
 *   (pmove_run, then the objects it hit are touched and the triggers at
 *   the new place), PlayerPostThink (landing, powerups, weapons).  The
 *   player's entity origin and velocity are the truth between commands:
 *   pushers, knockback, teleporters and push triggers change them, and
 *   the next move starts from there.
 *
 *   Spawning (deathmatch): a random info_player_deathmatch with no player
 *   within 84 units (QuakeC's SelectSpawnPoint); when every spot is taken
 *   (more players than spots), a free place on rings of 40 units around
 *   the spots, reachable from the spot; only when that fails too, a spot
 *   at random, whose occupant is telefragged.
 *   Death: the backpack drops, the body falls (PM_DEAD), below -40 health
 *   it gibs; after 1 s (the death animation) the buttons must be released
 *   and pressed again to respawn, leaving the body behind (the last four
 *   stay: the body queue).  Liquids: lava 10 x waterlevel every
 *   0.2 s (1 s with the biosuit), slime 4 x waterlevel every second
 *   (none with the biosuit), drowning after 12 s under water: 2, 4, ...
 *   up to 15 damage a second.  Falling faster than 650 u/s hurts 5.
 *   Powerups (CheckPowerups, every step after the move): 3 s before one
 *   ends its owner gets the warning once ("Quad Damage is wearing off",
 *   "Protection is almost burned out", "Ring of Shadows magic is
 *   fading", "Air supply in Biosuit expiring"; "OctaPower is wearing
 *   off" in deathmatch 4) with a bonus flash and items/damage2, protect2,
 *   inv2 or suit2.wav, then a flash each second; the quad lights blue,
 *   the pentagram red (both dim light), the ring swaps the model for
 *   the eyes and whispers (inv3.wav) every 1-4 s.
 *   Deathmatch 4 and 5 arm a player at spawn (starting_kit).
 *   Rules: fraglimit when a frag is counted, timelimit each frame; the
 *   level then ends with an intermission of at least 5 s, left by a
 *   button press (or at once when nobody is playing), to the map the
 *   infokey named after this map gives, else the trigger_changelevel's,
 *   else this one (samelevel 1: always this one).
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

/* frame numbers of progs/player.mdl, in its $frame order */
enum {
	FR_AXRUN = 0, FR_ROCKRUN = 6, FR_STAND = 12, FR_AXSTND = 17,
	FR_AXPAIN = 29, FR_PAIN = 35, FR_AXDETH = 41, FR_DEATHA = 50
};

static const vec3_t player_mins = {-16, -16, -24};
static const vec3_t player_maxs = {16, 16, 32};

void player_precache(struct game *g)
{
	char name[64];

	g->m_player = g_precache_model(g, "progs/player.mdl");
	g->m_eyes = g_precache_model(g, "progs/eyes.mdl");
	g->m_h_player = g_precache_model(g, "progs/h_player.mdl");
	g->m_gib[0] = g_precache_model(g, "progs/gib1.mdl");
	g->m_gib[1] = g_precache_model(g, "progs/gib2.mdl");
	g->m_gib[2] = g_precache_model(g, "progs/gib3.mdl");
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "misc/r_tele%d.wav", i + 1);
		g->s_tele[i] = g_precache_sound(g, name);
	}
	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "player/pain%d.wav", i + 1);
		g->s_pain[i] = g_precache_sound(g, name);
	}
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "player/death%d.wav", i + 1);
		g->s_death[i] = g_precache_sound(g, name);
	}
	g->s_gib = g_precache_sound(g, "player/gib.wav");
	g->s_udeath = g_precache_sound(g, "player/udeath.wav");
	g->s_teledeath = g_precache_sound(g, "player/teledth1.wav");
	g->s_land = g_precache_sound(g, "player/land.wav");
	g->s_land2 = g_precache_sound(g, "player/land2.wav");
	g->s_h2ojump = g_precache_sound(g, "player/h2ojump.wav");
	g->s_inh2o = g_precache_sound(g, "player/inh2o.wav");
	g->s_inlava = g_precache_sound(g, "player/inlava.wav");
	g->s_slimbrn = g_precache_sound(g, "player/slimbrn2.wav");
	g->s_outwater = g_precache_sound(g, "misc/outwater.wav");
	g->s_gasp1 = g_precache_sound(g, "player/gasp1.wav");
	g->s_gasp2 = g_precache_sound(g, "player/gasp2.wav");
	g->s_drown = g_precache_sound(g, "player/drown1.wav");
	g->s_lburn = g_precache_sound(g, "player/lburn1.wav");
	g->s_windfly = g_precache_sound(g, "ambience/windfly.wav");
	g->s_talk = g_precache_sound(g, "misc/talk.wav");
	g->s_null = g_precache_sound(g, "misc/null.wav");
	g->s_tornoff = g_precache_sound(g, "player/tornoff2.wav");
	g->s_protect3 = g_precache_sound(g, "items/protect3.wav");
	g->s_damage3 = g_precache_sound(g, "items/damage3.wav");
	g->s_jump = g_precache_sound(g, "player/plyrjmp8.wav");
}

static void add_frags(struct game *g, struct game_entity *p, int n);

/* ---- corpses ---------------------------------------------------------- */

/* four entities that take a dead player's look when he respawns, in turn,
 * so the last bodies stay where they fell */
void player_init_bodyque(struct game *g)
{
	for (int i = 0; i < 4; i++) {
		struct game_entity *b = g_spawn(g);

		g->bodyque[i] = b ? b->num : 0;
		if (b)
			b->classname = "bodyque";
	}
	g->bodyque_next = 0;
}

static void copy_to_bodyque(struct game *g, struct game_entity *e)
{
	struct game_entity *b;
	int n = g->bodyque[g->bodyque_next];

	g->bodyque_next = (g->bodyque_next + 1) % 4;
	if (n <= 0)
		return;
	b = &g->ents[n];
	vec_copy(e->angles, b->angles);
	b->modelindex = e->modelindex;
	b->frame = e->frame;
	b->colormap = e->colormap;
	b->skin = e->skin;
	b->movetype = e->movetype;
	vec_copy(e->velocity, b->velocity);
	b->flags = 0;
	b->obj->solid = SOLID_NOT;
	vec_copy(e->obj->mins, b->obj->mins);
	vec_copy(e->obj->maxs, b->obj->maxs);
	g_setorigin(g, b, e->obj->origin);
}

/* ---- spawn spots ------------------------------------------------------ */

bool player_spawn_point(struct game *g, struct game_entity *e, const char *cls)
{
	(void)g;
	if (strcmp(cls, "info_player_deathmatch") != 0 &&
	    strcmp(cls, "info_player_start") != 0 &&
	    strcmp(cls, "info_player_start2") != 0 &&
	    strcmp(cls, "info_player_coop") != 0 &&
	    strcmp(cls, "info_player_team1") != 0 &&
	    strcmp(cls, "info_player_team2") != 0)
		return false;
	e->obj->solid = SOLID_NOT;
	vec_copy(e->angles, e->mangle);
	return true;
}

static bool is_spot(const struct game_entity *e, const char *cls)
{
	return e->inuse && strcmp(e->classname, cls) == 0;
}

static bool player_near(struct game *g, const vec3_t org, float radius,
			const struct game_entity *self)
{
	for (int s = 0; s < g->max_clients; s++) {
		struct game_entity *p = &g->ents[game_player_entity(g, s)];
		vec3_t d;

		if (!g->clients[s].active || p == self || p->obj->solid != SOLID_SLIDEBOX)
			continue;
		vec_sub(p->obj->origin, org, d);
		if (g_vlen(d) <= radius)
			return true;
	}
	return false;
}

static bool box_free(struct game *g, const vec3_t org, struct game_entity *self)
{
	vec3_t mins, maxs;

	if (world_test_box(g->world, org, player_mins, player_maxs, self->obj))
		return false;
	for (int s = 0; s < g->max_clients; s++) {
		struct game_entity *p = &g->ents[game_player_entity(g, s)];

		if (!g->clients[s].active || p == self || p->obj->solid != SOLID_SLIDEBOX)
			continue;
		vec_add(org, player_mins, mins);
		vec_add(org, player_maxs, maxs);
		bool apart = false;

		for (int k = 0; k < 3; k++)
			if (mins[k] >= p->obj->origin[k] + p->obj->maxs[k] ||
			    maxs[k] <= p->obj->origin[k] + p->obj->mins[k])
				apart = true;
		if (!apart)
			return false;
	}
	return true;
}

static void select_spawn(struct game *g, struct game_entity *self, vec3_t org,
			 vec3_t ang)
{
	const char *cls = "info_player_deathmatch";
	struct game_entity *spots[256], *free_spots[256];
	int n = 0, nfree = 0;

	for (int pass = 0; pass < 2 && n == 0; pass++) {
		for (int i = 1; i < g->num_entities && n < 256; i++)
			if (is_spot(&g->ents[i], cls))
				spots[n++] = &g->ents[i];
		cls = "info_player_start";
	}
	if (n == 0) {
		const struct bsp_model *w = &g->map->models[0];

		for (int k = 0; k < 3; k++)
			org[k] = (w->mins[k] + w->maxs[k]) * 0.5f;
		vec_set(ang, 0, 0, 0);
		return;
	}
	for (int i = 0; i < n; i++)
		if (!player_near(g, spots[i]->obj->origin, 84, self))
			free_spots[nfree++] = spots[i];
	if (nfree > 0) {
		struct game_entity *s = free_spots[(int)(g_random(g) * nfree) % nfree];

		vec_copy(s->obj->origin, org);
		vec_copy(s->mangle, ang);
		return;
	}
	/* every spot taken: a free place near one, in turn from a random one */
	int first = (int)(g_random(g) * n) % n;

	for (int ring = 1; ring <= 12; ring++) {
		for (int j = 0; j < n; j++) {
			struct game_entity *s = spots[(first + j) % n];

			for (int k = 0; k < 8 * ring; k++) {
				float a = (float)k * 6.2831853f / (float)(8 * ring);
				vec3_t p = {s->obj->origin[0] + 40.0f * (float)ring * cosf(a),
					    s->obj->origin[1] + 40.0f * (float)ring * sinf(a),
					    s->obj->origin[2] + 1};
				struct trace tr;

				if (!box_free(g, p, self))
					continue;
				world_move(g->world, s->obj->origin, player_mins, player_maxs,
					   p, MOVE_NOMONSTERS, self->obj, &tr);
				if (tr.fraction < 1.0f || tr.startsolid)
					continue;
				vec_copy(p, org);
				org[2] -= 1;
				vec_copy(s->mangle, ang);
				return;
			}
		}
	}
	vec_copy(spots[first]->obj->origin, org);
	vec_copy(spots[first]->mangle, ang);
}

/* ---- fog and telefrags ------------------------------------------------ */

static void play_teleport(struct game *g, struct game_entity *self)
{
	int i = (int)(g_random(g) * 5) % 5;

	g_sound(g, self, GAME_CHAN_VOICE, g->s_tele[i], 1, GAME_ATTN_NORM);
	g_remove(g, self);
}

void player_spawn_tfog(struct game *g, const vec3_t org)
{
	struct game_entity *s = g_spawn(g);

	g_te_point(g, GAME_TE_TELEPORT, org, 0, GAME_MULTICAST_PHS);
	if (!s)
		return;
	s->classname = "tfog";
	s->obj->solid = SOLID_NOT;
	vec_copy(org, s->obj->origin);
	g_link(g, s, false);
	s->nextthink = g->time + 0.2;
	s->think = play_teleport;
}

/* QuakeC's spawn_tdeath, done at once: every living player whose box
 * meets the mover's box (1 unit larger) at org dies */
void player_telefrag(struct game *g, const vec3_t org, struct game_entity *mover)
{
	for (int s = 0; s < g->max_clients; s++) {
		struct game_entity *p = &g->ents[game_player_entity(g, s)];
		bool apart = false;

		if (!g->clients[s].active || p == mover || p->health <= 0 || !p->takedamage)
			continue;
		for (int k = 0; k < 3; k++)
			if (org[k] + mover->obj->mins[k] - 1 > p->obj->origin[k] + p->obj->maxs[k] ||
			    org[k] + mover->obj->maxs[k] + 1 < p->obj->origin[k] + p->obj->mins[k])
				apart = true;
		if (apart)
			continue;
		combat_damage(g, p, mover, mover, 50000, DT_TELEFRAG);
	}
}

/* ---- entering the game ------------------------------------------------ */

static void player_setangle(struct game *g, struct game_entity *e, const vec3_t ang)
{
	struct game_client *cl = g_client(g, e);

	vec_copy(ang, cl->v_angle);
	cl->fixangle = true;
	if (g->svc.setangle)
		g->svc.setangle(g->svc.ctx, e->client, ang);
}

/* deathmatch 4 and 5 (client.qc's PutClientInServer): players start
 * armed, in red armour and with 3 s of the pentagram.  4: every weapon
 * but the grenade launcher with 255 of each ammunition (localinfo "axe"
 * non-zero: the axe and shotgun only, without shells), 250 health;
 * 5: every weapon, 30 shells, 80 nails, 10 rockets, 30 cells, 200
 * health. */
static void starting_kit(struct game *g, struct game_entity *e,
			 struct game_client *cl)
{
	static const int arsenal = IT_NAILGUN | IT_SUPER_NAILGUN | IT_SUPER_SHOTGUN |
				   IT_ROCKET_LAUNCHER | IT_LIGHTNING;

	if (g->deathmatch == 4) {
		const char *axe = g->svc.infokey ? g->svc.infokey(g->svc.ctx, "axe") : NULL;

		cl->ammo_shells = 0;
		if (!axe || atof(axe) == 0) {
			cl->ammo_shells = cl->ammo_nails = 255;
			cl->ammo_rockets = cl->ammo_cells = 255;
			e->items |= arsenal;
		}
		e->health = 250;
	} else {
		cl->ammo_nails = 80;
		cl->ammo_shells = 30;
		cl->ammo_rockets = 10;
		cl->ammo_cells = 30;
		e->items |= arsenal | IT_GRENADE_LAUNCHER;
		e->health = 200;
	}
	e->items = (e->items & ~(IT_ARMOR1 | IT_ARMOR2)) | IT_ARMOR3;
	e->armorvalue = 200;
	e->armortype = 0.8f;
	e->items |= IT_INVULNERABILITY;
	cl->invincible_time = 1;
	cl->invincible_finished = g->time + 3;
}

void player_put_in_server(struct game *g, int slot)
{
	struct game_client *cl = &g->clients[slot];
	struct game_entity *e = &g->ents[game_player_entity(g, slot)];
	vec3_t org, ang, fwd, fog;

	if (e->obj->linked)
		world_unlink(g->world, e->obj);
	memset(&e->velocity, 0, sizeof(e->velocity));
	e->inuse = true;
	e->classname = "player";
	e->client = slot;
	e->health = 100;
	e->max_health = 100;
	e->takedamage = true;
	e->obj->solid = cl->spectator ? SOLID_NOT : SOLID_SLIDEBOX;
	e->obj->model = -1;
	e->obj->owner = -1;
	e->movetype = MOVETYPE_WALK;
	e->flags = FL_CLIENT;
	e->effects = 0;
	e->deadflag = DEAD_NO;
	e->items = IT_SHOTGUN | IT_AXE;
	e->armortype = 0;
	e->armorvalue = 0;
	e->weapon = IT_SHOTGUN;
	e->attack_finished = g->time;
	e->die = player_player_die;
	e->touch = NULL;
	e->think = NULL;
	e->nextthink = 0;
	e->frame = 0;
	e->skin = 0;
	e->colormap = slot < MAX_CLIENTS_STOCK ? slot + 1 : 0;
	e->netname = cl->name;
	cl->ammo_shells = 25;
	cl->ammo_nails = cl->ammo_rockets = cl->ammo_cells = 0;
	cl->super_damage_finished = cl->invincible_finished = 0;
	cl->invisible_finished = cl->radsuit_finished = 0;
	cl->air_finished = g->time + 12;
	cl->drown_dmg = 2;
	cl->dmg_take = cl->dmg_save = 0;
	cl->refire = false;
	cl->impulse = 0;
	cl->teleport_time = 0;
	cl->anim_prio = ANIM_BASIC;
	cl->anim_time = 0;
	cl->weaponframe = 0;
	cl->axe_pending = false;
	cl->super_time = cl->invincible_time = 0;
	cl->invisible_time = cl->rad_time = 0;
	weapons_set_current(g, e);
	if (g->deathmatch == 4 || g->deathmatch == 5)
		starting_kit(g, e, cl);
	e->modelindex = cl->spectator ? 0 : g->m_player;
	vec_copy(player_mins, e->obj->mins);
	vec_copy(player_maxs, e->obj->maxs);

	select_spawn(g, e, org, ang);
	org[2] += 1;
	vec_copy(org, e->obj->origin);
	vec_copy(ang, e->angles);
	pmove_player_reset(&cl->pm, org, ang);
	cl->pm.pm_type = cl->spectator ? PM_SPECTATOR : PM_NORMAL;
	player_setangle(g, e, ang);
	g_link(g, e, false);
	if (cl->spectator)
		return;
	g_makevectors(e->angles, fwd, NULL, NULL);
	vec_ma(org, 20, fwd, fog);
	player_spawn_tfog(g, fog);
	player_telefrag(g, org, e);
}

void game_client_connect(struct game *g, int slot, const char *name,
			 bool spectator)
{
	struct game_client *cl;

	if (slot < 0 || slot >= g->max_clients || !g->world)
		return;		/* no level yet */
	cl = &g->clients[slot];
	memset(cl, 0, sizeof(*cl));
	cl->active = true;
	cl->spectator = spectator;
	strlcpy(cl->name, name ? name : "player", sizeof(cl->name));
	if (!spectator)
		g_bprint(g, PRINT_HIGH, "%s entered the game\n", cl->name);
	player_put_in_server(g, slot);
	if (g->svc.frags)
		g->svc.frags(g->svc.ctx, slot, 0);
}

void game_client_disconnect(struct game *g, int slot)
{
	struct game_client *cl;
	struct game_entity *e;

	if (slot < 0 || slot >= g->max_clients || !g->clients[slot].active)
		return;
	cl = &g->clients[slot];
	e = &g->ents[game_player_entity(g, slot)];
	if (!cl->spectator) {
		g_bprint(g, PRINT_HIGH, "%s left the game with %d frags\n", cl->name,
			 cl->frags);
		g_sound(g, e, GAME_CHAN_BODY, g->s_tornoff, 1, GAME_ATTN_NONE);
	}
	if (e->obj->linked)
		world_unlink(g->world, e->obj);
	e->obj->solid = SOLID_NOT;
	e->inuse = false;
	e->modelindex = 0;
	e->takedamage = false;
	cl->active = false;
}

void game_client_kill(struct game *g, int slot)
{
	struct game_client *cl;
	struct game_entity *e;

	if (slot < 0 || slot >= g->max_clients || !g->clients[slot].active ||
	    g->clients[slot].spectator || g->intermission)
		return;
	cl = &g->clients[slot];
	e = &g->ents[game_player_entity(g, slot)];
	if (e->deadflag)
		return;
	g_bprint(g, PRINT_MEDIUM, "%s suicides\n", cl->name);
	e->modelindex = g->m_player;
	e->frame = FR_DEATHA + 10;	/* QuakeC's set_suicide_frame */
	add_frags(g, e, -2);
	copy_to_bodyque(g, e);
	player_put_in_server(g, slot);
}

void game_client_userinfo(struct game *g, int slot, const char *name,
			  const char *team, int bottomcolor)
{
	struct game_client *cl;

	if (slot < 0 || slot >= g->max_clients)
		return;
	cl = &g->clients[slot];
	if (name)
		strlcpy(cl->name, name, sizeof(cl->name));
	strlcpy(cl->team, team ? team : "", sizeof(cl->team));
	cl->bottomcolor = bottomcolor;
}

/* ---- death ------------------------------------------------------------ */

void player_player_die(struct game *g, struct game_entity *self,
		       struct game_entity *attacker)
{
	struct game_client *cl = g_client(g, self);

	(void)attacker;
	self->items &= ~(IT_INVISIBILITY | IT_INVULNERABILITY | IT_QUAD | IT_SUIT);
	cl->invisible_finished = cl->invincible_finished = 0;
	cl->super_damage_finished = cl->radsuit_finished = 0;
	self->modelindex = g->m_player;
	items_drop_backpack(g, self);
	cl->weaponmodel = 0;
	cl->refire = false;
	cl->axe_pending = false;
	self->deadflag = DEAD_DYING;
	cl->death_time = g->time;
	self->obj->solid = SOLID_NOT;
	g_link(g, self, false);
	self->flags &= ~FL_ONGROUND;
	self->movetype = MOVETYPE_TOSS;
	if (self->velocity[2] < 10)
		self->velocity[2] += (float)g_random(g) * 300;
	vec_copy(self->velocity, cl->pm.velocity);
	g->stats.kills++;
	if (self->health < -40) {
		combat_throw_gibs(g, self);
		self->deadflag = DEAD_DEAD;
		return;
	}
	g_sound(g, self, GAME_CHAN_VOICE, g->s_death[(int)(g_random(g) * 5) % 5], 1,
		GAME_ATTN_NORM);
	self->angles[0] = self->angles[2] = 0;
	cl->anim_prio = ANIM_BASIC;
	if (self->weapon == IT_AXE)
		player_anim_start(g, self, FR_AXDETH, FR_AXDETH + 8, ANIM_DEATH, 0);
	else
		player_anim_start(g, self, FR_DEATHA, FR_DEATHA + 10, ANIM_DEATH, 0);
}

void player_frags_changed(struct game *g, struct game_entity *player)
{
	struct game_client *cl = g_client(g, player);

	if (!cl)
		return;
	if (g->svc.frags)
		g->svc.frags(g->svc.ctx, player->client, cl->frags);
	player_check_rules(g, player);
}

static void add_frags(struct game *g, struct game_entity *p, int n)
{
	struct game_client *cl = g_client(g, p);

	if (!cl)
		return;
	cl->frags += n;
	player_frags_changed(g, p);
}

static const char *pick(struct game *g, const char *a, const char *b)
{
	return g_random(g) < 0.5 ? a : b;
}

/* QuakeC's ClientObituary: who killed whom, and the frags */
void player_obituary(struct game *g, struct game_entity *targ,
		     struct game_entity *attacker)
{
	struct game_client *tc = g_client(g, targ), *ac = g_client(g, attacker);
	const char *tn = tc ? tc->name : "", *an = ac ? ac->name : "";
	bool team = ac && tc && g->teamplay && tc->team[0] &&
		    strcmp(tc->team, ac->team) == 0;
	int dt = targ->deathtype;

	if (!tc)
		return;
	if (g->deathmatch > 3 && dt == DT_SELFWATER) {
		/* id's text, with its stray space after the newline */
		g_bprint(g, PRINT_MEDIUM, "%s electrocutes himself.\n ", tn);
		add_frags(g, targ, -1);
		return;
	}
	if (dt == DT_TELEFRAG && ac && attacker != targ) {
		g_bprint(g, PRINT_MEDIUM, "%s was telefragged by %s\n", tn, an);
		add_frags(g, attacker, 1);
		return;
	}
	if (dt == DT_SQUISH) {
		if (ac && team && attacker != targ) {
			g_bprint(g, PRINT_MEDIUM, "%s squished a teammate\n", an);
			add_frags(g, attacker, -1);
		} else if (ac && attacker != targ) {
			g_bprint(g, PRINT_MEDIUM, "%s squishes %s\n", an, tn);
			add_frags(g, attacker, 1);
		} else {
			g_bprint(g, PRINT_MEDIUM, "%s was squished\n", tn);
			add_frags(g, targ, -1);
		}
		return;
	}
	if (ac) {
		const char *s1 = " was killed by ", *s2 = "\n";

		if (attacker == targ) {
			const char *how = " becomes bored with life\n";

			if (dt == DT_GRENADE)
				how = " tries to put the pin back in\n";
			else if (dt == DT_DISCHARGE && targ->watertype == CONTENTS_SLIME)
				how = " discharges into the slime\n";
			else if (dt == DT_DISCHARGE && targ->watertype == CONTENTS_LAVA)
				how = " discharges into the lava\n";
			else if (dt == DT_DISCHARGE)
				how = " discharges into the water.\n";
			g_bprint(g, PRINT_MEDIUM, "%s%s", tn, how);
			add_frags(g, attacker, -1);
			return;
		}
		if (g->teamplay == 2 && team) {
			static const char *const lines[4] = {" mows down a teammate\n",
				" checks his glasses\n", " gets a frag for the other team\n",
				" loses another friend\n"};

			g_bprint(g, PRINT_MEDIUM, "%s%s", an, lines[(int)(g_random(g) * 4) % 4]);
			add_frags(g, attacker, -1);
			return;
		}
		switch (dt) {
		case DT_NAIL:
			s1 = " was nailed by ";
			break;
		case DT_SUPERNAIL:
			s1 = " was punctured by ";
			break;
		case DT_GRENADE:
			s1 = targ->health < -40 ? " was gibbed by " : " eats ";
			s2 = targ->health < -40 ? "'s grenade\n" : "'s pineapple\n";
			break;
		case DT_ROCKET:
			if (ac->super_damage_finished > 0 && targ->health < -40) {
				double r = g_random(g);

				if (r >= 0.6) {
					g_bprint(g, PRINT_MEDIUM, "%s rips %s a new one\n", an, tn);
					add_frags(g, attacker, 1);
					return;
				}
				s1 = r < 0.3 ? " was brutalized by " : " was smeared by ";
				s2 = "'s quad rocket\n";
			} else {
				s1 = targ->health < -40 ? " was gibbed by " : " rides ";
				s2 = "'s rocket\n";
			}
			break;
		case DT_AXE:
			s1 = " was ax-murdered by ";
			break;
		case DT_SHOTGUN:
			s1 = " chewed on ";
			s2 = "'s boomstick\n";
			break;
		case DT_SUPER_SHOTGUN:
			s1 = " ate 2 loads of ";
			s2 = "'s buckshot\n";
			break;
		case DT_LIGHTNING:
		case DT_DISCHARGE:
			s1 = " accepts ";
			s2 = attacker->waterlevel > 1 ? "'s discharge\n" : "'s shaft\n";
			break;
		default:
			break;
		}
		g_bprint(g, PRINT_MEDIUM, "%s%s%s%s", tn, s1, an, s2);
		add_frags(g, attacker, 1);
		return;
	}
	/* the world killed him */
	const char *how = " died\n";

	if (targ->watertype == CONTENTS_WATER && dt == DT_WATER)
		how = pick(g, " sleeps with the fishes\n", " sucks it down\n");
	else if (targ->watertype == CONTENTS_SLIME && dt == DT_WATER)
		how = pick(g, " gulped a load of slime\n", " can't exist on slime alone\n");
	else if (targ->watertype == CONTENTS_LAVA && dt == DT_WATER)
		how = targ->health < -15 ? " burst into flames\n" :
		      pick(g, " turned into hot slag\n", " visits the Volcano God\n");
	else if (dt == DT_EXPLOBOX)
		how = " blew up\n";
	else if (dt == DT_FALLING)
		how = " fell to his death\n";
	else if (dt == DT_FIREBALL)
		how = " ate a lavaball\n";
	g_bprint(g, PRINT_MEDIUM, "%s%s", tn, how);
	add_frags(g, targ, -1);
}

/* ---- the level's end -------------------------------------------------- */

void player_check_rules(struct game *g, struct game_entity *player)
{
	struct game_client *cl = g_client(g, player);

	if (g->intermission || !cl)
		return;
	if (g->fraglimit > 0 && cl->frags >= g->fraglimit)
		player_next_level(g);
}

static struct game_entity *find_class(struct game *g, const char *cls)
{
	for (int i = 1; i < g->num_entities; i++)
		if (g->ents[i].inuse && strcmp(g->ents[i].classname, cls) == 0)
			return &g->ents[i];
	return NULL;
}

void player_next_level(struct game *g)
{
	struct game_entity *spot;
	vec3_t org = {0, 0, 0}, ang = {0, 0, 0};

	if (g->intermission)
		return;
	g->intermission = true;
	g->intermission_exit = g->time + 5;
	spot = find_class(g, "info_intermission");
	if (!spot)
		spot = find_class(g, "info_player_start");
	if (!spot)
		spot = find_class(g, "info_player_deathmatch");
	if (spot) {
		vec_copy(spot->obj->origin, org);
		vec_copy(spot->mangle, ang);
	}
	if (g->svc.intermission)
		g->svc.intermission(g->svc.ctx, org, ang);
	for (int s = 0; s < g->max_clients; s++) {
		struct game_entity *p = &g->ents[game_player_entity(g, s)];

		if (!g->clients[s].active)
			continue;
		g->clients[s].intermission = true;
		p->takedamage = false;
		p->obj->solid = SOLID_NOT;
		p->movetype = MOVETYPE_NONE;
		p->modelindex = 0;
		g_link(g, p, false);
	}
}

static void goto_next_map(struct game *g)
{
	const char *next = g->mapname;
	const char *info = g->svc.infokey ? g->svc.infokey(g->svc.ctx, g->mapname) : NULL;

	if (g->changed_level)
		return;
	if (g->samelevel != 1) {
		if (info && *info)
			next = info;
		else if (g->nextmap[0])
			next = g->nextmap;
	}
	g->changed_level = true;
	if (g->svc.change_level)
		g->svc.change_level(g->svc.ctx, next);
}

void player_intermission_frame(struct game *g)
{
	bool anyone = false;

	if (!g->intermission || g->time < g->intermission_exit)
		return;
	for (int s = 0; s < g->max_clients; s++)
		if (g->clients[s].active && !g->clients[s].spectator)
			anyone = true;
	if (!anyone)
		goto_next_map(g);
}

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
			goto_next_map(g);
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
			copy_to_bodyque(g, e);
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

static void run_step(struct game *g, int slot, const struct usercmd *cmd,
		     bool first)
{
	struct game_client *cl = &g->clients[slot];
	struct game_entity *e = &g->ents[game_player_entity(g, slot)];
	struct pmove_result res;
	struct pmove_vars mv = g->movevars;

	cl->cmd = *cmd;
	if (!cl->fixangle)
		vec_copy(cmd->angles, cl->v_angle);
	cl->buttons = cmd->buttons;
	if (first && cmd->impulse)
		cl->impulse = cmd->impulse;
	if (e->health > 0 && !cl->intermission) {
		e->angles[0] = -cl->v_angle[0] / 3;
		e->angles[1] = cl->v_angle[1];
		e->angles[2] = 0;
	}
	if (!pre_think(g, e))
		return;

	vec_copy(e->obj->origin, cl->pm.origin);
	vec_copy(e->velocity, cl->pm.velocity);
	if (cl->spectator)
		cl->pm.pm_type = PM_SPECTATOR;
	else if (e->health <= 0 || e->deadflag)
		cl->pm.pm_type = PM_DEAD;
	else
		cl->pm.pm_type = PM_NORMAL;
	if (cl->fixangle) {
		/* the client has not turned yet: move with the new angles */
		struct usercmd c = *cmd;

		vec_copy(cl->v_angle, c.angles);
		pmove_run(g->world, e->obj, &mv, &c, &cl->pm, &res);
		cl->fixangle = false;
	} else {
		pmove_run(g->world, e->obj, &mv, cmd, &cl->pm, &res);
	}
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

void game_client_cmd(struct game *g, int slot, const struct usercmd *cmd)
{
	struct usercmd step;
	int n;

	if (slot < 0 || slot >= g->max_clients || !g->clients[slot].active)
		return;
	g->stats.commands++;
	n = pmove_cmd_steps(cmd, &step);
	for (int i = 0; i < n; i++)
		run_step(g, slot, &step, i == 0);
	flush_damage(g, &g->ents[game_player_entity(g, slot)]);
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
