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
#include "qwd/protocol.h"
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

/* What a step read of the world, for a move run ahead of its turn and
 * checked before it is used (docs/parallel.md, "Speculative moves"): a
 * box of world space such that an object whose placed box (absmin..
 * absmax) does not meet it, before or after a change, could not have
 * changed the step's result.  It holds every trace's and position
 * test's bounds grown by the player's box and a margin, every point
 * test, and the whole box the physents were gathered from when the
 * gathering was near its 64 slots (a new object may then displace one). */
/* segments kept: a dead player in two players at once (no one box holds
 * its whole span, pm_box_holds) makes the nudge's 45 tests and its traces */
enum { PMOVE_READ_SEGS = 64 };
struct pmove_read {
	bool any;		/* something was read (else the box is unset) */
	vec3_t mins, maxs;
	/* finer: the reference point's segment of every trace and the
	 * point of every position test; an object whose box, grown by the
	 * player's and a margin, none of them meets was met by none
	 * (pmove_read_touches).  wide: the physents' whole box was read
	 * (near the slots' end, or every brush asked): the box alone says */
	bool wide;
	int num_segs;		/* more than PMOVE_READ_SEGS: the box alone */
	vec3_t seg_start[PMOVE_READ_SEGS], seg_end[PMOVE_READ_SEGS];
	/* and what each answered: a trace its fraction and the object it
	 * hit (0 the world, -1 none); a position test (start = end) -1 and
	 * the object that held the point (-1: clear) */
	float seg_frac[PMOVE_READ_SEGS];
	int32_t seg_hit[PMOVE_READ_SEGS];
	/* a trace's whole answer (its ent aside): when the object it hit
	 * changes, that object alone is asked again and must answer the
	 * same */
	struct trace seg_trace[PMOVE_READ_SEGS];
};

/* Could an object placed (absmin..absmax) at [mins, maxs] have changed
 * what the step read?  From the segments when they say, else from the
 * box.  brush: it has a brush model (its hull lies within the box grown
 * by the player's; a box object is its box, absmin..absmax less the
 * link's unit). */
bool pmove_read_touches(const struct pmove_read *r, const vec3_t mins,
			const vec3_t maxs, bool brush);

/* Would the step read in r give the same answers with the object o
 * where it is now (o changed since the step ran, and was among the
 * changes pmove_read_touches could not rule out)?  Each recorded trace
 * and test is asked again of o alone, as pmove asks a physent: true when
 * o neither was what one of them hit or found solid nor now wins one
 * (a nearer hit, or an equal one with a lower id), nor holds a point a
 * test found clear.  A brush model, or a step read more coarsely (the box
 * alone: wide, or more segments than recorded), gives false.  self: the
 * moving player's object id (it and what it owns are no physents). */
bool pmove_read_holds(const struct pmove_read *r, const struct world_obj *o,
		      int self);

/* pmove_run, with what it read of the world put into *read */
void pmove_run_read(const struct world *w, const struct world_obj *self,
		    const struct pmove_vars *mv, const struct usercmd *cmd,
		    struct pmove_player *p, struct pmove_result *res,
		    struct pmove_read *read);

/* The server's view of a command (MVDSV SV_RunCmd): pitch clamped to
 * PMOVE_MIN_PITCH..PMOVE_MAX_PITCH, and a command over 50 ms halved with
 * integer division, again while over 50 ms (75 -> 37+37, 120 -> 4 x 30,
 * 255 -> 8 x 31).  Writes the command of one step into *step (cmd with
 * the clamped pitch and the step's msec) and returns the number of steps.
 * A server that runs game code per step, as MVDSV does (PlayerPreThink,
 * touches, and the impulse only in the first step), loops itself. */
int pmove_cmd_steps(const struct usercmd *cmd, struct usercmd *step);

/* How far from the player's origin one step of frametime seconds at
 * speed can touch anything: 2 x speed x frametime + 64 (acceleration,
 * a jump, a step, the player's box), at most 256 (MVDSV's physent range:
 * a step never meets what lies further).  The physents of a step are
 * those within it; the schedule of a parallel frame uses it as a move's
 * action range. */
float pmove_reach(float speed, double frametime);

/* pmove_cmd_steps and pmove_run for each step; touches of all steps are
 * merged into res (each object once). */
void pmove_run_cmd(const struct world *w, const struct world_obj *self,
		   const struct pmove_vars *mv, const struct usercmd *cmd,
		   struct pmove_player *p, struct pmove_result *res);

/* ---- the deathmatch game (src/game/ but pmove.c) ---------------------
 *
 * The rules of QuakeWorld deathmatch (id's QuakeC for QuakeWorld, rewritten
 * in C) and the physics of everything that is not a player's own move
 * (MVDSV's sv_phys.c movetypes).  The engine owns the map, the areanode
 * tree (struct world and its world_obj array) and the network; the game
 * owns the entities, the players' game state and the rules.
 *
 * Who calls whom
 *   server -> game   game_create / game_destroy, game_load_level (after the
 *                    map and world are set up, before the model and sound
 *                    lists are sent), game_frame (the WORLD phase),
 *                    game_client_connect / _disconnect / _userinfo /
 *                    _kill,
 *                    game_client_cmd (each usercmd), and read-only access
 *                    to g->ents[] (what to send) and game_client_stats.
 *   game -> server   only through struct game_services (below).  A NULL
 *                    member is skipped, so the server can wire them in one
 *                    at a time.
 *
 * Entity numbers (the layout stock clients need):
 *   0                      the world
 *   1 .. 32                player slots 0..31 (stock clients see these)
 *   33 ..                  the map's entities in entity lump order
 *                          (what a spawn function makes, such as a plat's
 *                          trigger, right after its maker), then missiles,
 *                          gibs, backpacks, fog: the lowest free number
 *                          first, a number reused only 0.5 s after it was
 *                          freed, as QuakeWorld's ED_Alloc does, so
 *                          clients do not lerp a new entity from an old
 *                          one's place
 *   g->top ..              player slots 32.. at the top of the array
 *                          (extension clients only), so run-time
 *                          entities stay below 512 for stock clients
 *   game_player_entity() gives a slot's number.  objs[i] (the world's
 *   collision objects) and ents[i] share the index i.
 *
 * Time: the server passes its level time (seconds, starts at 1.0) to
 * game_frame; commands run at the time of the last game_frame, as in
 * QuakeWorld (all commands between two frames see the same sv.time).
 * Randomness: one xorshift state in struct game, seeded by game_create:
 * the same seed and the same calls give the same game.
 * Memory: every array is allocated by game_create; nothing allocates per
 * frame.
 *
 * Sending (what the server reads): an entity is sent when inuse and
 * modelindex != 0, from modelindex, frame, skin, effects, colormap,
 * angles and objs[num].origin; is_static ones (func_illusionary) go once
 * as svc_spawnstatic, nail ones in svc_nails.  A player's view: STAT_*
 * from game_client_stats, weaponframe, pm (origin, velocity, pm_type:
 * PM_DEAD when dead) in g->clients[slot].  Services may be called from
 * game_frame and game_client_cmd: change_level must only note the map
 * and load it after the frame.
 */

/* who receives a multicast (QuakeWorld's MULTICAST_*) */
enum game_multicast {
	GAME_MULTICAST_ALL = 0,
	GAME_MULTICAST_PHS = 1,
	GAME_MULTICAST_PVS = 2
};

/* sound channels and attenuations (svc_sound) */
enum { GAME_CHAN_AUTO = 0, GAME_CHAN_WEAPON = 1, GAME_CHAN_VOICE = 2,
       GAME_CHAN_ITEM = 3, GAME_CHAN_BODY = 4 };
#define GAME_ATTN_NONE 0.0f
#define GAME_ATTN_NORM 1.0f
#define GAME_ATTN_IDLE 2.0f
#define GAME_ATTN_STATIC 3.0f

/* QuakeWorld's .items bits (STAT_ITEMS) */
enum {
	IT_SHOTGUN = 1, IT_SUPER_SHOTGUN = 2, IT_NAILGUN = 4,
	IT_SUPER_NAILGUN = 8, IT_GRENADE_LAUNCHER = 16,
	IT_ROCKET_LAUNCHER = 32, IT_LIGHTNING = 64, IT_SHELLS = 256,
	IT_NAILS = 512, IT_ROCKETS = 1024, IT_CELLS = 2048, IT_AXE = 4096,
	IT_ARMOR1 = 8192, IT_ARMOR2 = 16384, IT_ARMOR3 = 32768,
	IT_SUPERHEALTH = 65536, IT_KEY1 = 131072, IT_KEY2 = 262144,
	IT_INVISIBILITY = 524288,
	IT_INVULNERABILITY = 1048576, IT_SUIT = 2097152, IT_QUAD = 4194304
};

/* entity effects (sent in packet entities) */
enum { EF_MUZZLEFLASH = 2, EF_BRIGHTLIGHT = 4, EF_DIMLIGHT = 8,
       EF_BLUE = 64, EF_RED = 128 };

/* one temporary entity; which fields matter depends on type */
struct game_temp_entity {
	int type;		/* enum te_type (qwd/protocol.h) */
	vec3_t origin;		/* the point, or a beam's start */
	vec3_t end;		/* beams */
	int count;		/* GUNSHOT and BLOOD: puffs, 1..255 */
	int entity;		/* beams: the entity the beam starts at */
};

/* What the game asks of the engine.  ctx is passed back unchanged.
 * Slots are player slots (0 .. max_clients-1); -1 means every client. */
struct game_services {
	void *ctx;
	/* model/sound precache list index of name (adding it if new), 0 when
	 * the list is full; only called from game_load_level */
	int (*precache_model)(void *ctx, const char *name);
	int (*precache_sound)(void *ctx, const char *name);
	/* svc_sound of precache index snd from entity ent at origin, sent to
	 * the PHS of origin (ATTN_NONE: to everyone); vol 0..1 */
	void (*sound)(void *ctx, int ent, int channel, int snd, float vol,
		      float attn, const vec3_t origin);
	/* svc_spawnstaticsound in the signon (ambient sounds, teleporter
	 * hums); only called from game_load_level */
	void (*static_sound)(void *ctx, const vec3_t origin, int snd, float vol,
			     float attn);
	/* svc_temp_entity, multicast from te->origin */
	void (*temp_entity)(void *ctx, const struct game_temp_entity *te,
			    int multicast);
	/* svc_muzzleflash of entity ent to the PVS of its origin */
	void (*muzzleflash)(void *ctx, int ent, const vec3_t origin);
	/* svc_print at level (PRINT_LOW ... PRINT_CHAT) to slot or all */
	void (*print)(void *ctx, int slot, int level, const char *text);
	void (*centerprint)(void *ctx, int slot, const char *text);
	/* svc_stufftext ("bf\n": the bonus flash on a pickup) */
	void (*stufftext)(void *ctx, int slot, const char *text);
	/* the slot's frags changed: svc_updatefrags to everyone */
	void (*frags)(void *ctx, int slot, int frags);
	/* svc_damage to slot: armour and blood taken, from where */
	void (*damage)(void *ctx, int slot, int armor, int blood,
		       const vec3_t from);
	/* svc_smallkick (big false) / svc_bigkick to slot */
	void (*kick)(void *ctx, int slot, bool big);
	/* svc_setangle: turn slot's view (spawn, teleport) */
	void (*setangle)(void *ctx, int slot, const vec3_t angles);
	/* svc_intermission to everyone: the level ended, camera here */
	void (*intermission)(void *ctx, const vec3_t origin,
			     const vec3_t angles);
	/* load the next level (the server calls game_load_level again) */
	void (*change_level)(void *ctx, const char *map);
	/* where the numeric value of a server cvar lives (deathmatch,
	 * teamplay, fraglimit, timelimit, samelevel, registered), or NULL
	 * when it does not exist (its value then counts as 0).  A value
	 * found stays at that place for the life of the services, so the
	 * game keeps the pointer and reads the rules through it every
	 * frame instead of looking them up by name. */
	const float *(*cvar)(void *ctx, const char *name);
	/* localinfo (else serverinfo) value of key, or NULL: QuakeWorld's
	 * map rotation reads the key named after the current map */
	const char *(*infokey)(void *ctx, const char *key);
	/* a message for the server's log (unknown classnames and such) */
	void (*log)(void *ctx, int level, const char *text);
	/* svc_foundsecret to everyone (a trigger_secret fired by a player;
	 * clients count it in their secrets stat) */
	void (*found_secret)(void *ctx);
	/* svc_lightstyle to everyone: style (0..63) now reads value ("a" dark,
	 * "m" normal).  game_load_level sets every style the level uses
	 * (id's 0-11 and 63, then the switchable lights' 32..62), so the
	 * engine starts a level with all of them empty and keeps what the
	 * game set for the signon */
	void (*lightstyle)(void *ctx, int style, const char *value);
	/* QuakeC's logfrag: a death that moved the frags, killer's slot and
	 * victim's (the same slot: a suicide or a team kill, scored -1) */
	void (*logfrag)(void *ctx, int killer, int victim);
	/* pause (true) or resume the game, as KTX's trap_setpause asks
	 * MVDSV: nothing when it already is so, no words (the game says its
	 * own); while paused the server runs no game_frame and no move, and
	 * its cvar "sv_paused" reads 1 */
	void (*set_pause)(void *ctx, bool paused);
};


/* ---- game events (for the match layer's statistics) -------------------
 *
 * What happened, as the game sees it, for whoever keeps score (the match
 * layer's statistics, src/match/stats.c).  Every callback gets the level
 * time; a NULL member is skipped, and without events (game_set_events
 * NULL, the default) each place costs one pointer test.  Slots are player
 * slots; -1 is not a player (the world, a door, a monster).  The weapons
 * and items are numbered here, once, for every reader. */
enum game_ev_weapon {
	GAME_WP_NONE, GAME_WP_AXE, GAME_WP_SG, GAME_WP_SSG, GAME_WP_NG,
	GAME_WP_SNG, GAME_WP_GL, GAME_WP_RL, GAME_WP_LG, GAME_WP_COUNT
};
enum game_ev_item {
	GAME_ITEM_NONE, GAME_ITEM_H15, GAME_ITEM_H25, GAME_ITEM_MH,
	GAME_ITEM_GA, GAME_ITEM_YA, GAME_ITEM_RA, GAME_ITEM_QUAD,
	GAME_ITEM_PENT, GAME_ITEM_RING, GAME_ITEM_SUIT, GAME_ITEM_BACKPACK,
	GAME_ITEM_WEAPON,	/* a weapon on the map: weapon says which */
	GAME_ITEM_COUNT
};
/* the weapon a deathtype belongs to (GAME_WP_NONE for the rest) */
int game_ev_weapon_of(int deathtype);

enum { GAME_KILL_SUICIDE = 1, GAME_KILL_TEAM = 2, GAME_KILL_TELEFRAG = 4,
       GAME_KILL_WORLD = 8,
       GAME_KILL_COMMAND = 16	/* the "kill" command (with SUICIDE): the
				 * game takes 2 frags, as id's QuakeC */
};

struct game_ev_damage {
	int attacker, target;	/* slots, or -1 */
	int deathtype;		/* enum game_deathtype */
	int weapon;		/* game_ev_weapon_of(deathtype) */
	float health;		/* health taken, at most what the target had */
	float armour;		/* armour that absorbed the rest */
	bool team;		/* attacker and target share a team (teamplay) */
	int target_items;	/* the target's .items (enemy weapons carried) */
};

struct game_ev_kill {
	int killer, victim;	/* slots; killer -1: the world */
	int deathtype, weapon;
	int flags;		/* GAME_KILL_* */
	int victim_items;	/* what the victim carried */
	bool killer_quad;	/* the killer had the quad */
};

struct game_events {
	void *ctx;
	/* a shot: count attacks (pellets for the shotguns, as KTX counts) */
	void (*shot)(void *ctx, double time, int slot, int weapon, int count);
	/* count direct hits on a player (pellets, a missile's touch, a
	 * beam, a swing; not splash) */
	void (*hit)(void *ctx, double time, int slot, int weapon, int target,
		    int count);
	void (*damage)(void *ctx, double time, const struct game_ev_damage *d);
	void (*kill)(void *ctx, double time, const struct game_ev_kill *k);
	/* an item taken; weapon is the game_ev_weapon of a weapon (and of a
	 * backpack's launcher), new_weapon: the player did not have it */
	void (*item)(void *ctx, double time, int slot, int item, int weapon,
		     bool new_weapon);
	/* a dead player's backpack carries his weapon (game_ev_weapon) */
	void (*drop)(void *ctx, double time, int slot, int weapon);
	/* a powerup ran out (GAME_ITEM_QUAD/PENT/RING/SUIT) */
	void (*powerup_end)(void *ctx, double time, int slot, int item);
	/* a player (re)spawned into the game */
	void (*spawn)(void *ctx, double time, int slot);
};

struct game;
struct game_entity;

typedef void (*game_think_fn)(struct game *g, struct game_entity *self);
typedef void (*game_touch_fn)(struct game *g, struct game_entity *self,
			      struct game_entity *other);
typedef void (*game_use_fn)(struct game *g, struct game_entity *self,
			    struct game_entity *activator);
typedef void (*game_die_fn)(struct game *g, struct game_entity *self,
			    struct game_entity *attacker);

enum game_movetype {
	MOVETYPE_NONE, MOVETYPE_WALK, MOVETYPE_NOCLIP, MOVETYPE_PUSH,
	MOVETYPE_TOSS, MOVETYPE_BOUNCE, MOVETYPE_FLY, MOVETYPE_FLYMISSILE
};

/* entity flags */
enum { FL_ONGROUND = 1, FL_CLIENT = 2, FL_ITEM = 4, FL_INWATER = 8,
       FL_JUMPRELEASED = 16 };

enum game_deathtype {
	DT_NONE, DT_AXE, DT_SHOTGUN, DT_SUPER_SHOTGUN, DT_NAIL, DT_SUPERNAIL,
	DT_GRENADE, DT_ROCKET, DT_LIGHTNING, DT_DISCHARGE, DT_FALLING,
	DT_SQUISH, DT_TELEFRAG, DT_HURT, DT_WATER, DT_FIREBALL,
	DT_EXPLOBOX,		/* a misc_explobox's blast */
	DT_SELFWATER		/* deathmatch 4/5: the shaft fired under water */
};

/* An entity.  The server reads the first block (what clients are sent,
 * with objs[num].origin, and whose it is); everything else is the
 * game's.  Entities are 64-aligned, so that the block is one cache line:
 * every reply phase walks hundreds of entities for the ones to send,
 * reading it alone. */
struct game_entity {
	/* -- sent to clients -- */
	_Alignas(64) bool inuse;
	bool nail;		/* send in svc_nails instead of packet
				 * entities (spikes: progs/spike.mdl and
				 * progs/s_spike.mdl) */
	bool is_static;		/* func_illusionary: svc_spawnstatic once */
	int modelindex;		/* 0: nothing to draw */
	int frame, skin, effects, colormap;
	vec3_t angles;
	int client;		/* player slot, or -1 */

	/* -- the game's -- */
	int num;
	struct world_obj *obj;	/* &world->objs[num] */
	const char *classname;	/* a static string ("player", "rocket"...) */
	int movetype;		/* enum game_movetype */
	int flags;		/* FL_* */
	int spawnflags;
	vec3_t velocity, avelocity;
	vec3_t pos1, pos2, movedir, finaldest, mangle;
	struct game_entity *owner, *enemy, *groundentity, *chain;
	double nextthink, ltime, freetime, attack_finished;
	game_think_fn think, think1;
	game_touch_fn touch;
	game_use_fn use, blocked_use;
	game_touch_fn blocked;
	game_die_fn die;
	game_die_fn pain;	/* hurt but alive (not players: player.c) */
	float health, max_health;
	bool takedamage;
	bool voided;		/* a missile that already hit */
	int deadflag;
	int deathtype;		/* enum game_deathtype of the last damage */
	float armortype, armorvalue;
	int items;
	int weapon;		/* players: IT_* of the weapon in hand;
				 * items: what they give */
	float speed, wait, lip, dmg, delay, height, count;
	int state, sounds;
	int aflag;		/* ammo in a box */
	int model_saved;	/* modelindex to restore on respawn */
	int noise, noise1, noise2, noise3;	/* sound indices */
	int healtype;
	const char *target, *targetname, *killtarget, *message, *map;
	const char *netname;
	int waterlevel, watertype;
	double fly_sound;
	vec3_t oldorigin;
	vec3_t dest1, dest2;	/* secret doors: the two legs of the move */
	float t_width, t_length;
	int style;		/* lights: the light style they switch */
};

enum { GAME_MAX_UNKNOWN = 64 };

/* A player's game state that is not in its entity. */
struct game_client {
	bool active;		/* connected and in the game */
	bool spectator;
	char name[32];
	char team[16];
	int bottomcolor;	/* userinfo "bottomcolor" */
	int frags;
	struct pmove_player pm;
	struct game_spec *spec;	/* game_spec_attach's, or NULL */
	struct usercmd cmd;	/* the command being run */
	vec3_t v_angle;
	bool fixangle;
	int buttons;		/* of the last command */
	int impulse;
	int ammo_shells, ammo_nails, ammo_rockets, ammo_cells;
	int weaponmodel;	/* precache index of the view model */
	int weaponframe;
	double super_damage_finished, invincible_finished;
	double invisible_finished, radsuit_finished;
	double super_sound, invincible_sound, invisible_sound;
	/* QuakeC's super_time, invincible_time, invisible_time, rad_time:
	 * 1 from the pickup until the expiry warning, then the time of the
	 * next bonus flash; 0 without the powerup */
	double super_time, invincible_time, invisible_time, rad_time;
	double air_finished, pain_finished, dmgtime, teleport_time;
	double death_time;	/* when it died */
	double lightning_sound;
	float jump_flag;	/* vertical speed of the last frame */
	float dmg_take, dmg_save;
	vec3_t dmg_from;
	int drown_dmg;
	bool nail_side;		/* nailgun: alternate barrel */
	bool refire;		/* in the nailgun/lightning firing frames */
	int anim_prio;		/* what the model's frames show (player.c) */
	int anim_end;		/* last frame of the sequence */
	int wframe_end;		/* last view-model frame of it */
	double anim_time;	/* next frame */
	double refire_time;	/* next shot of those frames */
	double axe_time;	/* when the swing in progress strikes */
	bool axe_pending;	/* a swing strikes at axe_time */
	bool intermission;
	int last_fired;		/* IT_ bit of the weapon it last fired since
				 * its spawn (0: none; KTX's lastwepfired) */
	/* KTX's admin code typed as impulses: while code_entry is set (by
	 * the match) impulses 1..9 change no weapon and are queued here for
	 * the match to take (code_count of them, oldest first) */
	bool code_entry;
	int code_count;
	unsigned char code_digits[8];
	int last_spot;		/* entity of the spot it last spawned at
				 * under a spawn model (0: none) */
	double spawn_guard;	/* until when it keeps its spot (models 2-4) */
};

/* ---- antilag (src/game/antilag.c) ------------------------------------ */

enum { GAME_LAG_POSITIONS = 128 };	/* MVDSV's MAX_ANTILAG_POSITIONS */
#define GAME_LAG_MAX_EXTRAPOLATE 0.02	/* s a late player is carried on */

struct game_lag_pos {
	double time;		/* game time of the move packet */
	vec3_t origin;		/* where the player stood after it */
};

/* one player's antilag state: its recent positions, and the time its
 * own shots rewind the others to */
struct game_lag {
	struct game_lag_pos *ring;	/* GAME_LAG_POSITIONS */
	uint32_t next;		/* positions kept since the ring was emptied
				 * (the newest is next-1) */
	double localtime;	/* game time of its last move */
	double target;		/* its shots' rewind time (game_antilag_aim) */
	bool aims;		/* target holds: its last packet came with
				 * antilag on */
	uint32_t serial;	/* one per packet: whose rewound set is kept */
};

struct game_config {
	int max_entities;	/* objs[] and ents[] size, >= 1 + max_clients */
	int max_clients;	/* player slots */
	uint64_t seed;		/* random state; 0 is replaced by a constant */
};

struct game_stats {
	uint64_t frames;
	uint64_t entity_runs;	/* entities run by game_frame */
	uint64_t commands;
	uint64_t shots, kills;
	uint64_t lag_traces;	/* traces that met rewound players */
	uint64_t lag_builds;	/* rewound sets made (one walk of the slots) */
	/* speculative first steps (game_spec_make) at their turn: taken,
	 * run again because the input differed, because the world changed
	 * where they read */
	uint64_t spec_hits, spec_inputs, spec_world;
};

/* the rules' cvars, in the order of struct game's rule_vars */
enum game_rule {
	GAME_RULE_DEATHMATCH, GAME_RULE_TEAMPLAY, GAME_RULE_FRAGLIMIT,
	GAME_RULE_TIMELIMIT, GAME_RULE_SAMELEVEL, GAME_RULES
};

/* What the match layer (src/match/, KTX's match) holds of the rules; all
 * zero (game_create's) is stock deathmatch.  Set with
 * game_set_match_rules, read where each rule acts. */
struct game_match_rules {
	bool owns_limits;	/* the game's own timelimit and fraglimit
				 * checks are off: the match ends the level
				 * (game_end_level) */
	bool no_frags;		/* kills and suicides score nothing
				 * (prewar: frags do not count) */
	int powerups_off;	/* IT_QUAD, IT_INVULNERABILITY,
				 * IT_INVISIBILITY, IT_SUIT bits: those
				 * powerups are withheld from the map */
	bool no_discharge;	/* the shaft fired under water empties the
				 * cells without the blast (KTX's k_dis 0) */
	bool shaft_in_water;	/* ... and fires as on land (KTX before the
				 * match: no discharge at all) */
	bool drop_quad;		/* a quad carrier's death leaves the quad
				 * with the time he had left (KTX's dq) */
	bool drop_ring;		/* ... and the ring's (KTX's dr) */
	bool no_backpacks;	/* the dead drop no backpack (KTX's dp 0,
				 * and KTX's prewar and countdown) */
	int fair_packs;		/* KTX's k_frp: 1, a backpack holds the best
				 * weapon its owner had ammo for; 2, the last
				 * weapon he fired (if droppable); 0 the one
				 * in hand */
	int spawn_model;	/* KTX's k_spw while a match is played
				 * (0 outside one): 0 QuakeWorld's; 1 a
				 * player's last spot is not given to it
				 * again; 2, 3 that, and only a player
				 * within SPAWN_GUARD seconds of its spawn
				 * or teleport keeps a spot (the others are
				 * telefragged there); 4 the guard, and the
				 * last spot drawn again once */
};

/* KTX's k_1spawn: how long a spawned or teleported player keeps the spot
 * it stands at from the spawners of models 2-4 */
#define GAME_SPAWN_GUARD 2.6
#define GAME_TELEPORT_GUARD 0.78
/* the most spawn spots a spawn chooses from (the rest of a map's are
 * never drawn) */
#define GAME_SPAWN_SPOTS 256

struct game {
	struct game_services svc;
	const struct game_events *events;	/* NULL: none (game_set_events) */
	struct world *world;
	const struct bsp_map *map;
	struct game_entity *ents;	/* max_entities */
	int max_entities;
	int max_clients;
	struct game_client *clients;	/* max_clients */
	int first_free;		/* first number g_spawn gives (33) */
	/* g_spawn's numbers (game.c, spawn_free): a bit per number free and
	 * old enough to be given, words below spawn_word all 0; the numbers
	 * freed since, oldest first (a ring of max_entities) */
	uint64_t *spawn_ready;
	int spawn_words, spawn_word;
	/* a bit per entity number, set while ents[num].inuse (spawn_words
	 * words; g_set_inuse is its one writer): a reader of the numbers
	 * in use (the server's reply phase, every frame) walks the bits,
	 * not the hundreds of free entities between them */
	uint64_t *inuse_bits;
	int *spawn_young;
	int spawn_young_head, spawn_young_count;
	int top;		/* first extension player entity */
	int num_entities;	/* high-water mark of used numbers */
	/* What the server derived from a player (its svc_playerinfo entry)
	 * holds while neither counter moves and the player's own move has
	 * not run: a player's own move changes only itself and what is not
	 * a player.  changes is bumped by every call that may change any
	 * player: the level, joins, leaves, kills, userinfo, the match's
	 * rules, the intermission.  touched[slot] (max_clients of them) is
	 * bumped when one player is changed from outside its own move:
	 * damage (the only way one player's move reaches another: shots,
	 * splash, telefrags, knockback) and a pusher carrying it.  The
	 * world's frame runs no player's think, so it bumps neither unless
	 * one of these happens in it. */
	uint32_t changes;
	uint32_t *touched;
	/* Bumped by every join, every leave and the level's load: all that
	 * changes which clients are active, so that a reader of the slots
	 * (the match layer's frame) walks them only when it moved. */
	uint32_t roster;
	double time;		/* level time of the last game_frame */
	double frametime;
	uint64_t rng;
	struct pmove_vars movevars;
	char mapname[64];
	char nextmap[64];	/* from a trigger_changelevel, or empty */

	/* rules (cvars read at game_load_level and each frame, through
	 * rule_vars: where each lives, NULL until it is found) */
	const float *rule_vars[GAME_RULES];
	const float *paused_var;	/* the server's sv_paused, found as
					 * rule_vars are */
	int deathmatch, teamplay;
	float fraglimit, timelimit;
	int samelevel;
	int worldtype;		/* worldspawn's: 0 medieval, 1 metal, 2 base */
	bool liquids;		/* the map has a leaf of water, slime or lava */
	bool intermission;
	double intermission_exit;
	bool changed_level;
	int total_secrets;	/* trigger_secrets of the level */
	int found_secrets;	/* of them fired by players */
	int spawn_cursor;	/* where the last search for a free place
				 * around the spots ended (player.c) */
	/* per place of that search: 0 not yet tried, else an enum
	 * spawn_place (player.c): whether the world leaves room for a
	 * player there and lets one go there from its spot (the map's own
	 * geometry never moves: each place is traced against it once a
	 * level) */
	uint8_t *spawn_world;
	/* per place of it too: the entity of the player that kept a player
	 * from it when it was last tried (0: none), asked first the next
	 * time (player.c box_free_objs) */
	int32_t *spawn_kept;
	int spawn_world_size;	/* allocated, of each */
	/* places found taken by the player they remembered, without a walk
	 * of the tree (counted: tests/game reads it) */
	uint64_t spawn_kept_hits;
	int spawn_world_places;	/* the search's places when it was filled */
	/* the spots a spawn chooses from (player.c), found when the level
	 * loaded (the map's entities are its only spots): their entities
	 * and class; each is checked again when used */
	int spawn_spot[GAME_SPAWN_SPOTS];
	int num_spawn_spots;
	const char *spawn_spot_cls;
	int spectators;		/* active spectator clients: not linked
				 * (SOLID_NOT) yet damageable, so while
				 * there are any player_telefrag tests
				 * every slot, else it asks the tree */

	/* precache indices */
	int m_player, m_eyes, m_missile, m_grenade, m_spike, m_s_spike;
	int m_backpack, m_gib[3], m_h_player, m_lavaball;
	int m_v[9];		/* view models by weapon code (1..8) */
	int s_tele[5], s_pain[6], s_death[5];
	int s_rocket, s_grenade, s_bounce, s_shotgun, s_sshotgun, s_spike;
	int s_sspike, s_axe, s_axhit, s_lstart, s_lhit, s_pkup, s_lock4;
	int s_armor, s_itembk2, s_gib, s_udeath, s_land, s_land2, s_h2ojump;
	int s_inh2o, s_inlava, s_slimbrn, s_outwater, s_gasp1, s_gasp2;
	int s_drown, s_lburn, s_windfly, s_talk, s_null, s_tornoff;
	int s_damage2, s_damage3, s_protect3, s_inv2;
	int s_teledeath, s_jump;
	int s_inv3, s_protect2, s_suit2, s_sight1;	/* powerups */
	int s_enfire, s_enfstop, m_laser;	/* laser traps */

	/* antilag (antilag.c): a state per slot, their rings, the cvars
	 * sv_antilag and sv_antilag_projectiles (found at level load), the
	 * rewound set of the last shooter's packet */
	struct game_lag *lag;
	struct game_lag_pos *lag_ring;
	const float *lag_vars[2];
	int *lag_ids;
	float *lag_origins;
	float *lag_boxes;	/* the rewound boxes, 6 floats each */
	uint8_t *lag_mark;	/* by entity */
	int lag_num;
	int lag_cache_slot;
	uint32_t lag_cache_serial;
	bool lag_cache_projectile;	/* made for projectiles ... */
	uint64_t lag_cache_frame;	/* ... in this world frame */
	struct world_lag lag_world;

	/* the last four corpses (QuakeC's body queue) */
	int bodyque[4];
	int bodyque_next;

	/* classnames already reported unknown */
	const char *unknown[GAME_MAX_UNKNOWN];
	int num_unknown;

	struct game_stats stats;
	struct game_match_rules match;	/* game_set_match_rules */
};

/* Allocate a game for max_entities entities and max_clients slots; NULL
 * when memory is short or the sizes do not fit. */
struct game *game_create(const struct game_config *cfg);
void game_destroy(struct game *g);
/* who hears the game's events (NULL: nobody); ev must outlive its use */
void game_set_events(struct game *g, const struct game_events *ev);

/* Start a level: w must be world_init'ed over map with an objs array of
 * g->max_entities (the game uses objs[i] for entity i, and sets objs[0]
 * up as the world).  Precaches every model and sound the rules use
 * (services), spawns the map's entities, reads the rules cvars.  time is
 * the level's start time (1.0).  Every client leaves the game (frags
 * back to 0): the server re-enters each with game_client_connect when
 * its signon on the new level ends.  Returns 0, or -1 with a message. */
int game_load_level(struct game *g, struct world *w,
		    const struct bsp_map *map, const char *mapname,
		    const struct game_services *svc, double time,
		    char *err, size_t errlen);

/* The WORLD phase: advance to time, run think, movers and missiles,
 * check the rules (timelimit, intermission). */
void game_frame(struct game *g, double time);

/* The match layer's pause: ask the server to pause or resume the game
 * (services.set_pause); whether it is paused now (the server's cvar
 * sv_paused, as KTX reads it).  While paused "kill" does nothing (KTX). */
void game_set_pause(struct game *g, bool paused);
bool game_paused(struct game *g);

/* ---- the match layer's calls (game.c, items.c, player.c) -----------
 * KTX's match (src/match/) runs prewar, countdown and match over the
 * deathmatch game: it says which rules hold (struct game_match_rules;
 * powerups withheld or given back take effect at once, on the map), puts
 * the level back as at its start when a match begins (game_match_reset:
 * every item back in place, backpacks and missiles gone, every player
 * respawned with a fresh spawn's health, armour, weapons and ammo, frags
 * 0, each told to the clients), and ends the level when the match ends
 * (game_end_level: the intermission, as a timelimit would).  A game
 * without a match layer never calls them and plays as before. */
void game_set_match_rules(struct game *g, const struct game_match_rules *r);
void game_match_reset(struct game *g);
void game_end_level(struct game *g);

/* A client enters the game (after "begin"): spawned at a spawn spot. */
void game_client_connect(struct game *g, int slot, const char *name,
			 bool spectator);
void game_client_disconnect(struct game *g, int slot);
/* clc_tmove: a spectator's origin, placed by its client (a chase camera
 * keeps it at the player it tracks, so its view and PVS are that
 * player's); nothing for a player or a slot not in the game */
void game_spectator_move(struct game *g, int slot, const vec3_t origin);
/* the "kill" command: suicide, 2 frags off (QuakeWorld's extra penalty),
 * and an immediate respawn */
void game_client_kill(struct game *g, int slot);
/* userinfo changed: name, team, bottomcolor */
void game_client_userinfo(struct game *g, int slot, const char *name,
			  const char *team, int bottomcolor);
/* Run one usercmd of slot (pitch clamp, split in steps, think, pmove,
 * touches, weapons), as MVDSV's SV_RunCmd with the QuakeC around it. */
void game_client_cmd(struct game *g, int slot, const struct usercmd *cmd);

/* Antilag as MVDSV's sv_antilag (src/game/antilag.c).  The server names,
 * at each packet of slot, the game time its shots rewind the others to
 * (on false: not rewound, as MVDSV with sv_antilag 0 at that packet), and
 * after each move the time of that move (the player's position is kept
 * then, when sv_antilag is on).  game_antilag_position: where slot is
 * rewound to for time t (false: not rewound: not in the game, dead, no
 * position).  game_antilag_reach, for the parallel frame's schedule:
 * the box slot's player may be rewound into for any time from since on,
 * 1; 0 when it is not rewound; -1 when since is older than its ring
 * (anywhere). */
int game_antilag_mode(const struct game *g);
void game_antilag_aim(struct game *g, int slot, bool on, double target);
void game_antilag_record(struct game *g, int slot, double time);
bool game_antilag_position(const struct game *g, int slot, double t,
			   vec3_t out);
int game_antilag_reach(const struct game *g, int slot, double since,
		       vec3_t mins, vec3_t maxs);
/* slot's rewind time; *aims false (and 0) when it has none */
double game_antilag_target(const struct game *g, int slot, bool *aims);

/* entity number of a player slot (see the layout above): the stock
 * slots are entities 1..32, the extension's sit from g->top up; inline,
 * since every reply asks it for every player it tests */
static inline int game_player_entity(const struct game *g, int slot)
{
	return slot < MAX_CLIENTS ? slot + 1 : g->top + (slot - MAX_CLIENTS);
}
/* The action range of one usercmd of slot, for the schedule of a
 * parallel frame (docs/parallel.md): what the command's game code may
 * read or write.  reach: pmove_reach summed over the command's steps, at
 * the player's present speed, around its origin.  fires: the command
 * fires this frame (alive, and an axe swing under way, or attack held in
 * the nailgun's or lightning's firing frames or with the weapon ready);
 * fire_mins/maxs then bound its line of fire, GAME_FIRE_RANGE
 * along its view and the widest spread (the super shotgun's) either
 * side.  False, and nothing set, for a slot not in the game. */
#define GAME_FIRE_RANGE 2048	/* the bullets' trace (W_FireBullets) */
struct game_action {
	float reach;
	bool fires;
	vec3_t fire_mins, fire_maxs;
	/* the same line as a segment and how far either side of it a shot
	 * may reach (fire_mins/maxs is its box) */
	vec3_t fire_start, fire_end;
	float fire_grow;
	/* the command acts anywhere: a respawn (a spawn spot of all, a
	 * telefrag there, the body queue) or the intermission's exit */
	bool global;
};
bool game_cmd_action(const struct game *g, int slot, const struct usercmd *cmd,
		     struct game_action *a);
/* Entity id acts beyond its box when touched or used: it has a target or
 * a killtarget (a teleporter's destination, a button's door, a trigger's
 * relays) or names a map (a changelevel).  False for an id out of range
 * or not in use. */
bool game_entity_acts_far(const struct game *g, int id);
/* An item a local move may take: its pickup writes only the item (which
 * waits to respawn) and the player; not one with targets, not a backpack
 * (removed when taken). */
bool game_entity_local_item(const struct game *g, int id);
/* Where such an entity acts, when one box says it: a teleporter's
 * destination (where the player lands, telefrags, and goes on from; the
 * caller grows it by the mover's reach).  False for what acts wider (a
 * button, a relay, a changelevel, a teleporter whose destination has
 * targets of its own). */
bool game_entity_far_box(const struct game *g, int id, vec3_t mins,
			 vec3_t maxs);
/* Where `respawns` respawns this frame may read or place a player: a box
 * around every spawn spot they choose among (up to max; mins/maxs max
 * entries each): the spot's neighbourhood, or, when fewer spots than
 * respawns are surely free (no player's box in the areanode tree near
 * them), the rings a respawn then searches.  The caller grows them by
 * what the respawned player's commands may reach.  -1 when they are more
 * than max, or when there is none (a respawn then goes to the map's
 * centre). */
int game_spawn_boxes(const struct game *g, int respawns, vec3_t *mins,
		     vec3_t *maxs, int max);
/* ---- moves on several threads (src/game/defer.c, docs/parallel.md) --

 * Can slot's commands of this frame (n of them) run as a local job, on a
 * worker beside others?  True when nothing they may do reaches the
 * game's shared state (the random stream, the entity allocator, damage,
 * targets, another player): the player is alive, walking and in the
 * game; no command fires, swings or changes weapon (no attack, no
 * impulse, no firing frames or swing under way); no powerup runs; it is
 * out of liquids and none lies within [rmin, rmax], the region its
 * commands may reach; and it cannot fall fast enough in them to be
 * hurt.  What is near it (items, triggers, other players) is the
 * caller's schedule. */
bool game_client_local(const struct game *g, int slot,
		       const struct usercmd *cmds, int n, const vec3_t rmin,
		       const vec3_t rmax);
/* game_client_cmd without counting the command in g->stats (a worker
 * runs it; the caller adds its commands with game_add_commands) */
void game_client_cmd_local(struct game *g, int slot, const struct usercmd *cmd);
void game_add_commands(struct game *g, uint64_t n);

/* Speculative moves (docs/parallel.md, "Speculative moves"): a
 * player's first step run ahead of its turn, on any thread, while the
 * game and the world are only read.  game_spec_make builds the pmove
 * input as run_step would from the state now (after a pre_think that
 * changes nothing: origin, velocity, pm_type, the rest of the player's
 * pmove state, the movevars, the step's usercmd with fixangle's angles)
 * and runs pmove into s, with what it read of the world.  It writes
 * nothing but s.  game_spec_attach(g, slot, s) (s NULL: none) gives it
 * to slot's next pmove, which takes its result when the input it builds
 * is bitwise the same and no object changed since the world's change
 * log began (world_changes_begin) could have changed what it read (a box
 * meeting what it read, then for a box object its recorded traces and
 * tests asked again of it: pmove_read_holds); else it runs pmove
 * itself.  Either way the game is the one pmove gives:
 * pmove is a pure function of its input and of those objects.  Counted
 * in g->stats (spec_hits, spec_inputs, spec_world) and in s->outcome;
 * a speculation not made (s->made false) is neither. */
enum game_spec_outcome {
	GAME_SPEC_UNUSED,	/* no pmove took it (or none was made) */
	GAME_SPEC_TAKEN,
	GAME_SPEC_INPUT,	/* run again: the input differed */
	GAME_SPEC_WORLD		/* run again: the world changed where it read */
};
struct game_spec {
	bool made;		/* pmove ran on the input (game_spec_run) */
	bool ready;		/* the input was made (game_spec_prepare) */
	int self;		/* the player's object id */
	enum game_spec_outcome outcome;	/* set at its turn */
	struct pmove_player in, out;
	struct pmove_vars mv;
	struct usercmd cmd;
	struct pmove_result res;
	struct pmove_read read;
};
void game_spec_make(const struct game *g, int slot, const struct usercmd *cmd,
		    struct game_spec *s);
/* game_spec_make in two halves, for the pipelined run: prepare reads the
 * game (the input of the first step, as run_step builds it; false when
 * the slot plays no move), run only the input and w -- the world the
 * game plays in, or a snapshot of it (struct world_snap) taken before
 * anything the step reads could change -- and writes only *s. */
bool game_spec_prepare(const struct game *g, int slot,
		       const struct usercmd *cmd, struct game_spec *s);
void game_spec_run(const struct world *w, struct game_spec *s);
void game_spec_attach(struct game *g, int slot, struct game_spec *s);

/* A queue of the game's calls to the server (records of at most
 * `records` calls and text_bytes of their text); NULL when memory is
 * short. */
struct game_defer;
struct game_defer *game_defer_create(int records, size_t text_bytes);
void game_defer_destroy(struct game_defer *q);
/* The services to give the game while local jobs run: every call to
 * the server is recorded into the calling thread's bound queue; calls
 * that answer (precache, cvar, infokey) go to real at once. */
struct game_services game_defer_services(const struct game_services *real);
/* The calling thread records into q (NULL: none) under key, until bound
 * again; key orders the replay (the move's place in the frame).  local:
 * the move runs beside others (the guard on shared state is on). */
void game_defer_bind(struct game_defer *q, uint32_t key, bool local);
/* Make the recorded calls of nq queues on real, by key (0 .. keys-1;
 * a larger key counts as keys-1), each key's calls in their recorded
 * order, and empty the queues.  count (keys + 1 entries) and order
 * (max_order) are the caller's scratch.  Returns the calls made, or -1
 * (nothing made, nothing emptied) when they were more than max_order. */
int game_defer_replay(const struct game_services *real,
		      struct game_defer *const *qs, int nq, uint32_t keys,
		      uint32_t *count, uint32_t *order, int max_order);
/* calls a full queue lost */
uint64_t game_defer_dropped(const struct game_defer *q);
/* local moves that reached shared state anyway (escapes), since start */
uint64_t game_escapes(void);

/* the client's STAT_* values (health, ammo, items, weapon model...) */
void game_client_stats(const struct game *g, int slot, int32_t *stats,
		       int num_stats);

#endif
