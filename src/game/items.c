/*
 * items.c -- what players pick up: health, armour, weapons, ammo,
 * powerups, and the backpacks the dead drop (id's items.qc).
 *
 * Design note
 *   An item spawns as a trigger and is put on the floor 0.2 s after the
 *   level starts (so the brush entities it may stand on exist), 6 units
 *   up then dropped at most 256; one that finds no floor is removed.
 *   Picked up, it becomes invisible and not solid, then comes back
 *   (SUB_regen, with items/itembk2.wav) after:
 *     health, armour                      20 s
 *     mega health: when its owner has rotted back to 100 (1 point a
 *     second, starting 5 s after the pickup), then                20 s
 *     weapons, ammo                       30 s (15 s for ammo in dm 3)
 *     quad                                60 s
 *     pentagram, ring                     300 s
 *   The deathmatch modes (items.qc):
 *     1  as above
 *     2  weapons stay (a player takes one he does not have, and it stays);
 *        health, armour, ammo and the mega health never come back
 *     3  weapons stay; ammo returns after 15 s, the rest as in 1
 *     4  no weapon or ammo items; while a player's pentagram lasts he
 *        takes no health, armour or backpack; the mega health does not
 *        rot (and so never returns); the quad is the OctaPower (x8,
 *        takes the armour and the cells, which come back when it ends);
 *        a backpack is 10 health, and at 300 health the pentagram and
 *        OctaPower for 30 s ("bonus powers")
 *     5  no weapon items, weapons would stay; ammo returns after 15 s
 *   In 3 and 5 a backpack with a launcher tops the rockets up to 5.
 *   The match layer withholds powerups (g->match.powerups_off: hidden on
 *   the map, not respawning, given back at once when allowed again) and
 *   puts every item back at a match's start, silently.
 *   Powerups return after 60 s (quad, biosuit) or 300 s in every mode;
 *   taking one arms its expiry warning (player.c).
 *   Amounts: health 15 (rotten) / 25 / 100 (mega, over the maximum to
 *   250); armour green 100 x 0.3, yellow 150 x 0.6, red 200 x 0.8, taken
 *   only when better (type x value); ammo boxes shells 20/40, nails
 *   25/50, rockets 5/10, cells 6/12 (spawnflags 1: big), capped at
 *   100/200/100/100; weapons give shells 5, nails 30, rockets 5, cells 15.
 *   QuakeWorld widens an item's touch box by 15 units sideways (FL_ITEM in
 *   SV_LinkEdict); the world module does not know item flags, so the game
 *   widens the box itself once the item is on the floor.
 *   Keys (silver, gold; their look from the worldspawn's worldtype) stay
 *   with whoever takes them and open the doors that need them.
 *   Health and ammo boxes use the brush models maps/b_*.bsp, as stock
 *   QuakeWorld data; qwd ships its own (maps/b_*.map).
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void items_precache(struct game *g)
{
	if (g->deathmatch == 4)
		g->s_sight1 = g_precache_sound(g, "boss1/sight1.wav");
	g->s_itembk2 = g_precache_sound(g, "items/itembk2.wav");
	g->s_armor = g_precache_sound(g, "items/armor1.wav");
	g->s_pkup = g_precache_sound(g, "weapons/pkup.wav");
	g->s_lock4 = g_precache_sound(g, "weapons/lock4.wav");
	g->m_backpack = g_precache_model(g, "progs/backpack.mdl");
}

/* deathmatch 4: while the pentagram lasts nothing heals or armours */
static bool protected_dm4(struct game *g, struct game_entity *other)
{
	struct game_client *cl = g_client(g, other);

	return g->deathmatch == 4 && cl && cl->invincible_time > 0;
}

static void powerup_touch(struct game *g, struct game_entity *self,
			  struct game_entity *other);

/* a powerup the match withholds (KTX's k_pow, k_pow_q/_p/_r/_s) */
static bool withheld(const struct game *g, const struct game_entity *e)
{
	return e->touch == powerup_touch && (g->match.powerups_off & e->items);
}

/* off the map, and not coming back until given back */
static void hide_item(struct game *g, struct game_entity *e)
{
	e->modelindex = 0;
	e->obj->solid = SOLID_NOT;
	e->think = NULL;
	e->nextthink = 0;
	g_link(g, e, false);
}

/* on the map again, without the respawn's sound */
static void show_item(struct game *g, struct game_entity *e)
{
	e->modelindex = e->model_saved;
	e->obj->solid = SOLID_TRIGGER;
	e->think = NULL;
	e->nextthink = 0;
	e->owner = NULL;
	g_link(g, e, false);
}

static void sub_regen(struct game *g, struct game_entity *self)
{
	if (withheld(g, self)) {
		hide_item(g, self);
		return;
	}
	self->modelindex = self->model_saved;
	self->obj->solid = SOLID_TRIGGER;
	g_sound(g, self, GAME_CHAN_VOICE, g->s_itembk2, 1, GAME_ATTN_NORM);
	g_link(g, self, false);
}

/* taken: gone until respawn seconds from now (never when <= 0) */
static void item_taken(struct game *g, struct game_entity *self,
		       struct game_entity *player, double respawn)
{
	self->modelindex = 0;
	self->obj->solid = SOLID_NOT;
	g_link(g, self, false);
	if (respawn > 0) {
		self->think = sub_regen;
		self->nextthink = g->time + respawn;
	}
	g_stuff(g, player, "bf\n");
	g_use_targets(g, self, player);
}

static void place_item(struct game *g, struct game_entity *self)
{
	vec3_t mins, maxs;

	self->flags = FL_ITEM;
	self->obj->solid = SOLID_TRIGGER;
	self->movetype = MOVETYPE_TOSS;
	vec_set(self->velocity, 0, 0, 0);
	self->obj->origin[2] += 6;
	if (!phys_droptofloor(g, self)) {
		g_logf(g, QWD_LOG_WARN, "%s: %s fell out of the level at (%.0f %.0f %.0f)",
		       g->mapname, self->classname, self->obj->origin[0],
		       self->obj->origin[1], self->obj->origin[2]);
		g_remove(g, self);
		return;
	}
	vec_copy(self->obj->mins, mins);
	vec_copy(self->obj->maxs, maxs);
	mins[0] -= 15;
	mins[1] -= 15;
	maxs[0] += 15;
	maxs[1] += 15;
	g_setsize(g, self, mins, maxs);
	if (withheld(g, self))
		hide_item(g, self);
}

static void start_item(struct game *g, struct game_entity *e, const vec3_t mins,
		       const vec3_t maxs, int model)
{
	e->modelindex = e->model_saved = model;
	e->obj->solid = SOLID_TRIGGER;
	e->movetype = MOVETYPE_NONE;
	vec_copy(mins, e->obj->mins);
	vec_copy(maxs, e->obj->maxs);
	g_link(g, e, false);
	e->nextthink = g->time + 0.2;
	e->think = place_item;
}

static bool can_take(struct game_entity *other)
{
	return g_is_player(other) && other->health > 0;
}

/* ---- health ----------------------------------------------------------- */

static bool heal(struct game_entity *e, float amount, bool ignore_max)
{
	if (e->health <= 0)
		return false;
	if (!ignore_max && e->health >= e->max_health)
		return false;
	e->health += ceilf(amount);
	if (!ignore_max && e->health >= e->max_health)
		e->health = e->max_health;
	if (e->health > 250)
		e->health = 250;
	return true;
}

static void megahealth_rot(struct game *g, struct game_entity *self)
{
	struct game_entity *o = self->owner;

	if (o && o->inuse && o->health > o->max_health) {
		o->health -= 1;
		self->nextthink = g->time + 1;
		return;
	}
	if (o)
		o->items &= ~IT_SUPERHEALTH;
	if (g->deathmatch != 2) {
		self->nextthink = g->time + 20;
		self->think = sub_regen;
	}
}

static void health_touch(struct game *g, struct game_entity *self,
			 struct game_entity *other)
{
	if (!g_is_player(other) || protected_dm4(g, other))
		return;
	if (self->healtype == 2) {
		if (other->health >= 250 || !heal(other, self->count, true))
			return;
	} else if (!heal(other, self->count, false)) {
		return;
	}
	g_sprint(g, other, PRINT_LOW, "You receive %d health\n", (int)self->count);
	g_sound(g, other, GAME_CHAN_ITEM, self->noise, 1, GAME_ATTN_NORM);
	G_EVENT(g, item, other->client, self->healtype == 2 ? GAME_ITEM_MH :
		self->healtype == 1 ? GAME_ITEM_H25 : GAME_ITEM_H15, GAME_WP_NONE,
		false);
	if (self->healtype == 2) {
		other->items |= IT_SUPERHEALTH;
		item_taken(g, self, other, 0);
		self->owner = other;
		if (g->deathmatch != 4) {	/* no rot, no return */
			self->think = megahealth_rot;
			self->nextthink = g->time + 5;
		}
	} else {
		item_taken(g, self, other, g->deathmatch != 2 ? 20 : 0);
	}
}

static void spawn_health(struct game *g, struct game_entity *e)
{
	static const vec3_t mins = {0, 0, 0}, maxs = {32, 32, 56};
	int m;

	e->touch = health_touch;
	if (e->spawnflags & 1) {
		m = g_precache_model(g, "maps/b_bh10.bsp");
		e->noise = g_precache_sound(g, "items/r_item1.wav");
		e->count = 15;
		e->healtype = 0;
	} else if (e->spawnflags & 2) {
		m = g_precache_model(g, "maps/b_bh100.bsp");
		e->noise = g_precache_sound(g, "items/r_item2.wav");
		e->count = 100;
		e->healtype = 2;
	} else {
		m = g_precache_model(g, "maps/b_bh25.bsp");
		e->noise = g_precache_sound(g, "items/health1.wav");
		e->count = 25;
		e->healtype = 1;
	}
	start_item(g, e, mins, maxs, m);
}

/* ---- armour ----------------------------------------------------------- */

static void armor_touch(struct game *g, struct game_entity *self,
			struct game_entity *other)
{
	static const float type[3] = {0.3f, 0.6f, 0.8f}, value[3] = {100, 150, 200};
	static const int bit[3] = {IT_ARMOR1, IT_ARMOR2, IT_ARMOR3};
	int k = self->skin;

	if (!can_take(other) || k < 0 || k > 2 || protected_dm4(g, other))
		return;
	if (other->armortype * other->armorvalue >= type[k] * value[k])
		return;
	other->armortype = type[k];
	other->armorvalue = value[k];
	other->items = (other->items & ~(IT_ARMOR1 | IT_ARMOR2 | IT_ARMOR3)) | bit[k];
	g_sprint(g, other, PRINT_LOW, "You got armor\n");
	g_sound(g, other, GAME_CHAN_ITEM, g->s_armor, 1, GAME_ATTN_NORM);
	G_EVENT(g, item, other->client, GAME_ITEM_GA + k, GAME_WP_NONE, false);
	item_taken(g, self, other, g->deathmatch != 2 ? 20 : 0);
}

static void spawn_armor(struct game *g, struct game_entity *e, int skin)
{
	static const vec3_t mins = {-16, -16, 0}, maxs = {16, 16, 56};

	e->touch = armor_touch;
	e->skin = skin;
	start_item(g, e, mins, maxs, g_precache_model(g, "progs/armor.mdl"));
}

/* ---- weapons and ammo ------------------------------------------------- */

static void bound_ammo(struct game_client *cl)
{
	if (cl->ammo_shells > 100)
		cl->ammo_shells = 100;
	if (cl->ammo_nails > 200)
		cl->ammo_nails = 200;
	if (cl->ammo_rockets > 100)
		cl->ammo_rockets = 100;
	if (cl->ammo_cells > 100)
		cl->ammo_cells = 100;
}

static int rank_for_weapon(int w)
{
	switch (w) {
	case IT_LIGHTNING: return 1;
	case IT_ROCKET_LAUNCHER: return 2;
	case IT_SUPER_NAILGUN: return 3;
	case IT_GRENADE_LAUNCHER: return 4;
	case IT_SUPER_SHOTGUN: return 5;
	case IT_NAILGUN: return 6;
	default: return 7;
	}
}

static void weapon_touch(struct game *g, struct game_entity *self,
			 struct game_entity *other)
{
	struct game_client *cl = g_client(g, other);
	bool leave = g->deathmatch == 2 || g->deathmatch == 3 || g->deathmatch == 5;
	int neww = self->weapon;

	if (!cl || other->health <= 0)
		return;
	if (leave && (other->items & neww))
		return;
	switch (neww) {
	case IT_NAILGUN:
	case IT_SUPER_NAILGUN:
		cl->ammo_nails += 30;
		break;
	case IT_SUPER_SHOTGUN:
		cl->ammo_shells += 5;
		break;
	case IT_ROCKET_LAUNCHER:
	case IT_GRENADE_LAUNCHER:
		cl->ammo_rockets += 5;
		break;
	case IT_LIGHTNING:
		cl->ammo_cells += 15;
		break;
	default:
		return;
	}
	g_sprint(g, other, PRINT_LOW, "You got the %s\n", self->netname);
	g_sound(g, other, GAME_CHAN_ITEM, g->s_pkup, 1, GAME_ATTN_NORM);
	bound_ammo(cl);
	G_EVENT(g, item, other->client, GAME_ITEM_WEAPON, weapons_code(neww),
		!(other->items & neww));
	other->items |= neww;
	if (!((other->flags & FL_INWATER) && neww == IT_LIGHTNING) &&
	    rank_for_weapon(neww) < rank_for_weapon(other->weapon))
		other->weapon = neww;
	weapons_set_current(g, other);
	if (leave) {
		g_stuff(g, other, "bf\n");
		return;
	}
	item_taken(g, self, other, g->deathmatch != 2 ? 30 : 0);
}

static void spawn_weapon(struct game *g, struct game_entity *e, int weapon,
			 const char *model, const char *netname)
{
	static const vec3_t mins = {-16, -16, 0}, maxs = {16, 16, 56};

	e->weapon = weapon;
	e->netname = netname;
	e->touch = weapon_touch;
	start_item(g, e, mins, maxs, g_precache_model(g, model));
}

static void ammo_touch(struct game *g, struct game_entity *self,
		       struct game_entity *other)
{
	struct game_client *cl = g_client(g, other);
	int best;

	if (!cl || other->health <= 0)
		return;
	best = weapons_best(g, other);
	switch (self->weapon) {
	case 1:
		if (cl->ammo_shells >= 100)
			return;
		cl->ammo_shells += self->aflag;
		break;
	case 2:
		if (cl->ammo_nails >= 200)
			return;
		cl->ammo_nails += self->aflag;
		break;
	case 3:
		if (cl->ammo_rockets >= 100)
			return;
		cl->ammo_rockets += self->aflag;
		break;
	case 4:
		if (cl->ammo_cells >= 100)
			return;
		cl->ammo_cells += self->aflag;
		break;
	default:
		return;
	}
	bound_ammo(cl);
	g_sprint(g, other, PRINT_LOW, "You got the %s\n", self->netname);
	g_sound(g, other, GAME_CHAN_ITEM, g->s_lock4, 1, GAME_ATTN_NORM);
	if (other->weapon == best)
		other->weapon = weapons_best(g, other);
	weapons_set_current(g, other);
	item_taken(g, self, other, g->deathmatch == 3 || g->deathmatch == 5 ? 15 :
		   g->deathmatch != 2 ? 30 : 0);
}

static void spawn_ammo(struct game *g, struct game_entity *e, int kind,
		       const char *small, const char *big, int n_small,
		       int n_big, const char *netname)
{
	static const vec3_t mins = {0, 0, 0}, maxs = {32, 32, 56};
	bool is_big = e->spawnflags & 1;

	e->touch = ammo_touch;
	e->weapon = kind;
	e->aflag = is_big ? n_big : n_small;
	e->netname = netname;
	start_item(g, e, mins, maxs, g_precache_model(g, is_big ? big : small));
}

/* ---- keys ------------------------------------------------------------- */

/* a key stays with its taker and does not come back (items.qc) */
static void key_touch(struct game *g, struct game_entity *self,
		      struct game_entity *other)
{
	if (!can_take(other) || (other->items & self->items))
		return;
	g_sprint(g, other, PRINT_LOW, "You got the %s\n", self->netname);
	g_sound(g, other, GAME_CHAN_ITEM, self->noise, 1, GAME_ATTN_NORM);
	other->items |= self->items;
	item_taken(g, self, other, 0);
}

static void spawn_key(struct game *g, struct game_entity *e, bool gold)
{
	static const vec3_t mins = {-16, -16, -24}, maxs = {16, 16, 32};
	static const char *const models[3][2] = {
		{"progs/w_s_key.mdl", "progs/w_g_key.mdl"},
		{"progs/m_s_key.mdl", "progs/m_g_key.mdl"},
		{"progs/b_s_key.mdl", "progs/b_g_key.mdl"}};
	static const char *const names[3][2] = {
		{"silver key", "gold key"}, {"silver runekey", "gold runekey"},
		{"silver keycard", "gold keycard"}};
	static const char *const noises[3] = {"misc/medkey.wav", "misc/runekey.wav",
		"misc/basekey.wav"};
	int w = g->worldtype;

	e->touch = key_touch;
	e->items = gold ? IT_KEY2 : IT_KEY1;
	e->netname = names[w][gold];
	e->noise = g_precache_sound(g, noises[w]);
	start_item(g, e, mins, maxs, g_precache_model(g, models[w][gold]));
}

/* ---- powerups --------------------------------------------------------- */

static void powerup_touch(struct game *g, struct game_entity *self,
			  struct game_entity *other)
{
	struct game_client *cl = g_client(g, other);
	double respawn = 60;

	if (!cl || other->health <= 0)
		return;
	g_sprint(g, other, PRINT_LOW, "You got the %s\n", self->netname);
	if (self->items == IT_INVULNERABILITY || self->items == IT_INVISIBILITY)
		respawn = 300;
	g_sound(g, other, GAME_CHAN_VOICE, self->noise, 1, GAME_ATTN_NORM);
	other->items |= self->items;
	G_EVENT(g, item, other->client,
		self->items == IT_QUAD ? GAME_ITEM_QUAD :
		self->items == IT_INVULNERABILITY ? GAME_ITEM_PENT :
		self->items == IT_INVISIBILITY ? GAME_ITEM_RING : GAME_ITEM_SUIT,
		GAME_WP_NONE, false);
	if (self->attack_finished > 0) {	/* dropped: its time left */
		double *fin = self->items == IT_QUAD ? &cl->super_damage_finished
						     : &cl->invisible_finished;
		double left = self->attack_finished - g->time;

		*fin = (*fin > g->time ? *fin : g->time) + left;
		if (*fin > g->time + 30)
			*fin = g->time + 30;
		if (self->items == IT_QUAD)
			cl->super_time = 1;
		else
			cl->invisible_time = 1;
		g_stuff(g, other, "bf\n");
		g_remove(g, self);
		return;
	}
	switch (self->items) {
	case IT_INVULNERABILITY:
		cl->invincible_time = 1;
		cl->invincible_finished = g->time + 30;
		break;
	case IT_INVISIBILITY:
		cl->invisible_time = 1;
		cl->invisible_finished = g->time + 30;
		break;
	case IT_QUAD:
		if (g->deathmatch == 4) {	/* the OctaPower's price */
			other->armortype = 0;
			other->armorvalue = 0;
			cl->ammo_cells = 0;
		}
		cl->super_time = 1;
		cl->super_damage_finished = g->time + 30;
		break;
	case IT_SUIT:
		cl->rad_time = 1;
		cl->radsuit_finished = g->time + 30;
		break;
	default:
		break;
	}
	item_taken(g, self, other, respawn);
}

static void spawn_powerup(struct game *g, struct game_entity *e, int item,
			  const char *model, const char *noise,
			  const char *netname, int effects)
{
	static const vec3_t mins = {-16, -16, -24}, maxs = {16, 16, 32};

	e->touch = powerup_touch;
	e->items = item;
	e->noise = g_precache_sound(g, noise);
	/* the sounds of the powerup's life: id precaches them with the item */
	switch (item) {
	case IT_INVULNERABILITY:
		g->s_protect2 = g_precache_sound(g, "items/protect2.wav");
		g->s_protect3 = g_precache_sound(g, "items/protect3.wav");
		break;
	case IT_INVISIBILITY:
		g->s_inv2 = g_precache_sound(g, "items/inv2.wav");
		g->s_inv3 = g_precache_sound(g, "items/inv3.wav");
		break;
	case IT_QUAD:
		g->s_damage2 = g_precache_sound(g, "items/damage2.wav");
		g->s_damage3 = g_precache_sound(g, "items/damage3.wav");
		if (g->deathmatch == 4)
			netname = "OctaPower";
		break;
	default:
		g->s_suit2 = g_precache_sound(g, "items/suit2.wav");
		break;
	}
	e->netname = netname;
	e->effects = effects;
	start_item(g, e, mins, maxs, g_precache_model(g, model));
}

/* ---- backpacks -------------------------------------------------------- */

/* deathmatch 4: a backpack is 10 health; at 300 the pentagram and the
 * OctaPower come with it ("bonus powers") */
static void backpack_dm4(struct game *g, struct game_entity *self,
			 struct game_entity *other, struct game_client *cl)
{
	other->health += 10;
	g_sprint(g, other, PRINT_LOW, "You get 10 additional health\n");
	g_sound(g, other, GAME_CHAN_ITEM, other->health > 250 && other->health < 300 ?
		g->s_protect3 : g->s_lock4, 1, GAME_ATTN_NORM);
	g_stuff(g, other, "bf\n");
	g_remove(g, self);
	if (other->health > 299 && cl->invincible_time != 1) {
		cl->invincible_time = 1;
		cl->invincible_finished = g->time + 30;
		other->items |= IT_INVULNERABILITY;
		cl->super_time = 1;
		cl->super_damage_finished = g->time + 30;
		other->items |= IT_QUAD;
		cl->ammo_cells = 0;
		g_sound(g, other, GAME_CHAN_VOICE, g->s_sight1, 1, GAME_ATTN_NORM);
		g_stuff(g, other, "bf\n");
		g_bprint(g, PRINT_HIGH, "%s attains bonus powers!!!\n", cl->name);
	}
}

static int append(char *msg, size_t size, int n, bool *first, const char *fmt,
		  int v)
{
	if (n < 0 || (size_t)n >= size)
		return n;
	if (!*first)
		n += snprintf(msg + n, size - (size_t)n, ", ");
	*first = false;
	if ((size_t)n < size)
		n += snprintf(msg + n, size - (size_t)n, fmt, v);
	return n;
}

/* BackpackTouch: "You get the <weapon>, N shells, ..." and the weapon
 * change of a weapon pickup (Deathmatch_Weapon: a better-ranked weapon
 * is taken in hand, the shaft not under water) */
static void backpack_touch(struct game *g, struct game_entity *self,
			   struct game_entity *other)
{
	struct game_client *cl = g_client(g, other);
	char msg[160];
	bool first = true;
	int n, neww;
	unsigned packed = (unsigned)self->aflag;
	int shells = (int)(packed >> 24 & 0xff), nails = (int)(packed >> 16 & 0xff);
	int rockets = (int)(packed >> 8 & 0xff), cells = (int)(packed & 0xff);

	if (!cl || other->health <= 0 || protected_dm4(g, other))
		return;
	if (g->deathmatch == 4) {
		backpack_dm4(g, self, other, cl);
		return;
	}
	n = snprintf(msg, sizeof(msg), "You get ");
	if (self->items && !(other->items & self->items)) {
		n += snprintf(msg + n, sizeof(msg) - (size_t)n, "the %s", self->netname);
		first = false;
	}
	cl->ammo_shells += shells;
	cl->ammo_nails += nails;
	cl->ammo_rockets += rockets;
	cl->ammo_cells += cells;
	neww = self->items ? self->items : other->weapon;
	G_EVENT(g, item, other->client, GAME_ITEM_BACKPACK,
		self->items ? weapons_code(self->items) : GAME_WP_NONE,
		self->items && !(other->items & self->items));
	other->items |= self->items;
	bound_ammo(cl);
	if (shells)
		n = append(msg, sizeof(msg), n, &first, "%d shells", shells);
	if (nails)
		n = append(msg, sizeof(msg), n, &first, "%d nails", nails);
	if (rockets)
		n = append(msg, sizeof(msg), n, &first, "%d rockets", rockets);
	if (cells)
		n = append(msg, sizeof(msg), n, &first, "%d cells", cells);
	if ((g->deathmatch == 3 || g->deathmatch == 5) &&
	    (neww == IT_GRENADE_LAUNCHER || neww == IT_ROCKET_LAUNCHER) &&
	    cl->ammo_rockets < 5)
		cl->ammo_rockets = 5;
	if (n >= 0 && (size_t)n < sizeof(msg) - 1)
		snprintf(msg + n, sizeof(msg) - (size_t)n, "\n");
	g_sprint(g, other, PRINT_LOW, "%s", msg);
	g_sound(g, other, GAME_CHAN_ITEM, g->s_lock4, 1, GAME_ATTN_NORM);
	g_stuff(g, other, "bf\n");
	g_remove(g, self);
	if (!((other->flags & FL_INWATER) && neww == IT_LIGHTNING) &&
	    rank_for_weapon(neww) < rank_for_weapon(other->weapon))
		other->weapon = neww;
	weapons_set_current(g, other);
}

static const char *weapon_netname(int w)
{
	switch (w) {
	case IT_AXE: return "Axe";
	case IT_SHOTGUN: return "Shotgun";
	case IT_SUPER_SHOTGUN: return "Double-barrelled Shotgun";
	case IT_NAILGUN: return "Nailgun";
	case IT_SUPER_NAILGUN: return "Super Nailgun";
	case IT_GRENADE_LAUNCHER: return "Grenade Launcher";
	case IT_ROCKET_LAUNCHER: return "Rocket Launcher";
	case IT_LIGHTNING: return "Thunderbolt";
	default: return "";
	}
}

static int clamp_byte(int v)
{
	return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* the weapons a backpack can hold (KTX's IT_DROPPABLE_WEAPONS) */
#define DROPPABLE_WEAPONS (IT_SUPER_SHOTGUN | IT_NAILGUN | IT_SUPER_NAILGUN | \
			   IT_GRENADE_LAUNCHER | IT_ROCKET_LAUNCHER | IT_LIGHTNING)

/* KTX's fair packs (k_frp 1): the best weapon held with ammo for it, in
 * KTX's order from worst to best; the one in hand when none */
static int fair_pack_weapon(const struct game_entity *player,
			    const struct game_client *cl, int in_hand)
{
	const struct { int it; int ammo; } order[] = {
		{IT_NAILGUN, cl->ammo_nails}, {IT_SUPER_SHOTGUN, cl->ammo_shells},
		{IT_SUPER_NAILGUN, cl->ammo_nails},
		{IT_GRENADE_LAUNCHER, cl->ammo_rockets},
		{IT_LIGHTNING, cl->ammo_cells}, {IT_ROCKET_LAUNCHER, cl->ammo_rockets},
	};
	int best = in_hand;

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if ((player->items & order[i].it) && order[i].ammo > 0)
			best = order[i].it;
	return best;
}

/* a dropped powerup whose time ran out on the floor */
static void dropped_expire(struct game *g, struct game_entity *self)
{
	g_remove(g, self);
}

/* KTX's DropPowerups (dq, dr): the quad and the ring a dying player
 * carries stay where he died, holding the time he had left, for anyone
 * to take; gone when taken or when that time is out */
void items_drop_powerups(struct game *g, struct game_entity *player)
{
	struct game_client *cl = g_client(g, player);

	if (!cl)
		return;
	for (int k = 0; k < 2; k++) {
		bool quad = k == 0;
		double fin = quad ? cl->super_damage_finished : cl->invisible_finished;
		int item = quad ? IT_QUAD : IT_INVISIBILITY;
		struct game_entity *e;

		if (!(quad ? g->match.drop_quad : g->match.drop_ring) ||
		    (g->match.powerups_off & item) || fin <= g->time)
			continue;
		e = g_spawn(g);
		if (!e)
			return;
		e->classname = quad ? "item_artifact_super_damage"
				    : "item_artifact_invisibility";
		vec_copy(player->obj->origin, e->obj->origin);
		if (quad)
			spawn_powerup(g, e, IT_QUAD, "progs/quaddama.mdl",
				      "items/damage.wav", "Quad Damage", EF_BLUE);
		else
			spawn_powerup(g, e, IT_INVISIBILITY, "progs/invisibl.mdl",
				      "items/inv1.wav", "Ring of Shadows", 0);
		e->model_saved = 0;	/* not a placed item: no respawn */
		e->attack_finished = fin;
		e->think = dropped_expire;
		e->nextthink = fin;
	}
}

void items_drop_backpack(struct game *g, struct game_entity *player)
{
	struct game_client *cl = g_client(g, player);
	static const vec3_t mins = {-16, -16, 0}, maxs = {16, 16, 56};
	struct game_entity *b;
	vec3_t org;

	if (!cl || g->match.no_backpacks)
		return;
	/* an empty pack is not dropped; KTX's k_frp 2 drops the last fired
	 * weapon without ammo too */
	if (!(cl->ammo_shells + cl->ammo_nails + cl->ammo_rockets + cl->ammo_cells) &&
	    !(g->match.fair_packs == 2 && (cl->last_fired & DROPPABLE_WEAPONS)))
		return;
	b = g_spawn(g);
	if (!b)
		return;
	b->classname = "backpack";
	vec_copy(player->obj->origin, org);
	org[2] -= 24;
	b->items = player->weapon == IT_AXE || player->weapon == IT_SHOTGUN ? 0 : player->weapon;
	if (g->match.fair_packs == 1)
		b->items = fair_pack_weapon(player, cl, b->items);
	else if (g->match.fair_packs == 2 && (cl->last_fired & DROPPABLE_WEAPONS))
		b->items = cl->last_fired;
	b->netname = weapon_netname(b->items);
	if (b->items)
		G_EVENT(g, drop, player->client, weapons_code(b->items));
	/* four bytes in one int, packed unsigned (255 shells reach bit 31) */
	b->aflag = (int)((unsigned)clamp_byte(cl->ammo_shells) << 24 |
			 (unsigned)clamp_byte(cl->ammo_nails) << 16 |
			 (unsigned)clamp_byte(cl->ammo_rockets) << 8 |
			 (unsigned)clamp_byte(cl->ammo_cells));
	vec_set(b->velocity, -100 + 200 * (float)g_random(g),
		-100 + 200 * (float)g_random(g), 300);
	b->flags = FL_ITEM;
	b->obj->solid = SOLID_TRIGGER;
	b->movetype = MOVETYPE_TOSS;
	b->modelindex = g->m_backpack;
	vec_copy(mins, b->obj->mins);
	vec_copy(maxs, b->obj->maxs);
	b->touch = backpack_touch;
	b->nextthink = g->time + 120;
	b->think = g_think_remove;
	g_setorigin(g, b, org);
}

/* ---- the match layer's ---------------------------------------------- */

/* items on the floor (placed: FL_ITEM), not backpacks */
static bool placed_item(const struct game_entity *e)
{
	return e->inuse && (e->flags & FL_ITEM) && e->model_saved &&
	       strcmp(e->classname, "backpack") != 0;
}

void items_apply_powerups(struct game *g)
{
	for (int i = 1 + MAX_CLIENTS; i < g->num_entities && i < g->top; i++) {
		struct game_entity *e = &g->ents[i];

		if (!placed_item(e) || e->touch != powerup_touch)
			continue;
		if (withheld(g, e)) {
			if (e->modelindex || e->think)
				hide_item(g, e);
		} else if (!e->modelindex && !e->think) {
			show_item(g, e);	/* given back */
		}
	}
}

void items_match_reset(struct game *g)
{
	for (int i = 1 + MAX_CLIENTS; i < g->num_entities && i < g->top; i++) {
		struct game_entity *e = &g->ents[i];

		if (!e->inuse || !(e->flags & FL_ITEM))
			continue;
		if (strcmp(e->classname, "backpack") == 0)
			g_remove(g, e);
		else if (!placed_item(e))
			continue;
		else if (withheld(g, e))
			hide_item(g, e);
		else
			show_item(g, e);
	}
}

bool items_spawn(struct game *g, struct game_entity *e, const char *cls)
{
	/* weapons lie on the floor in deathmatch 1-3 only, ammunition in all
	 * but 4; QuakeC's spawn functions leave nothing there otherwise */
	if ((g->deathmatch > 3 && strncmp(cls, "weapon_", 7) == 0) ||
	    (g->deathmatch == 4 && (strcmp(cls, "item_shells") == 0 ||
				    strcmp(cls, "item_spikes") == 0 ||
				    strcmp(cls, "item_rockets") == 0 ||
				    strcmp(cls, "item_cells") == 0))) {
		if (strcmp(cls, "weapon_supershotgun") == 0 || strcmp(cls, "weapon_nailgun") == 0 ||
		    strcmp(cls, "weapon_supernailgun") == 0 ||
		    strcmp(cls, "weapon_grenadelauncher") == 0 ||
		    strcmp(cls, "weapon_rocketlauncher") == 0 ||
		    strcmp(cls, "weapon_lightning") == 0 || strncmp(cls, "item_", 5) == 0) {
			g_remove(g, e);
			return true;
		}
	}
	if (strcmp(cls, "item_health") == 0)
		spawn_health(g, e);
	else if (strcmp(cls, "item_armor1") == 0)
		spawn_armor(g, e, 0);
	else if (strcmp(cls, "item_armor2") == 0)
		spawn_armor(g, e, 1);
	else if (strcmp(cls, "item_armorInv") == 0)
		spawn_armor(g, e, 2);
	else if (strcmp(cls, "weapon_supershotgun") == 0)
		spawn_weapon(g, e, IT_SUPER_SHOTGUN, "progs/g_shot.mdl", "Double-barrelled Shotgun");
	else if (strcmp(cls, "weapon_nailgun") == 0)
		spawn_weapon(g, e, IT_NAILGUN, "progs/g_nail.mdl", "nailgun");
	else if (strcmp(cls, "weapon_supernailgun") == 0)
		spawn_weapon(g, e, IT_SUPER_NAILGUN, "progs/g_nail2.mdl", "Super Nailgun");
	else if (strcmp(cls, "weapon_grenadelauncher") == 0)
		spawn_weapon(g, e, IT_GRENADE_LAUNCHER, "progs/g_rock.mdl", "Grenade Launcher");
	else if (strcmp(cls, "weapon_rocketlauncher") == 0)
		spawn_weapon(g, e, IT_ROCKET_LAUNCHER, "progs/g_rock2.mdl", "Rocket Launcher");
	else if (strcmp(cls, "weapon_lightning") == 0)
		spawn_weapon(g, e, IT_LIGHTNING, "progs/g_light.mdl", "Thunderbolt");
	else if (strcmp(cls, "item_shells") == 0)
		spawn_ammo(g, e, 1, "maps/b_shell0.bsp", "maps/b_shell1.bsp", 20, 40, "shells");
	else if (strcmp(cls, "item_spikes") == 0)
		spawn_ammo(g, e, 2, "maps/b_nail0.bsp", "maps/b_nail1.bsp", 25, 50, "nails");
	else if (strcmp(cls, "item_rockets") == 0)
		spawn_ammo(g, e, 3, "maps/b_rock0.bsp", "maps/b_rock1.bsp", 5, 10, "rockets");
	else if (strcmp(cls, "item_cells") == 0)
		spawn_ammo(g, e, 4, "maps/b_batt0.bsp", "maps/b_batt1.bsp", 6, 12, "cells");
	else if (strcmp(cls, "item_key1") == 0)
		spawn_key(g, e, false);
	else if (strcmp(cls, "item_key2") == 0)
		spawn_key(g, e, true);
	else if (strcmp(cls, "item_artifact_super_damage") == 0)
		spawn_powerup(g, e, IT_QUAD, "progs/quaddama.mdl", "items/damage.wav",
			      "Quad Damage", EF_BLUE);
	else if (strcmp(cls, "item_artifact_invulnerability") == 0)
		spawn_powerup(g, e, IT_INVULNERABILITY, "progs/invulner.mdl",
			      "items/protect.wav", "Pentagram of Protection", EF_RED);
	else if (strcmp(cls, "item_artifact_invisibility") == 0)
		spawn_powerup(g, e, IT_INVISIBILITY, "progs/invisibl.mdl",
			      "items/inv1.wav", "Ring of Shadows", 0);
	else if (strcmp(cls, "item_artifact_envirosuit") == 0)
		spawn_powerup(g, e, IT_SUIT, "progs/suit.mdl", "items/suit.wav",
			      "Biosuit", 0);
	else
		return false;
	return true;
}

bool game_entity_local_item(const struct game *g, int id)
{
	const struct game_entity *e;

	if (id <= 0 || id >= g->max_entities)
		return false;
	e = &g->ents[id];
	/* a backpack is removed when taken (the entity allocator) */
	return e->inuse && (e->flags & FL_ITEM) && !game_entity_acts_far(g, id) &&
	       strcmp(e->classname, "backpack") != 0;
}
