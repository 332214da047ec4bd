/*
 * internal.h -- what the game's files share and nobody else sees.
 *
 * Design note
 *   The game is QuakeC's deathmatch rules rewritten as C: each QuakeC
 *   function that matters became a small static function in the file of
 *   its subject (combat.c, items.c, weapons.c, doors.c, plats.c,
 *   triggers.c, misc.c with movers.c for what they share, player.c for
 *   the player's life, clientcmd.c for what a client asks), the engine
 *   builtins it called (spawn, setorigin, traceline, sound...) live in
 *   game.c and phys.c.  "self" and "other"
 *   are parameters instead of globals; "time" is g->time.
 */
#ifndef QWD_GAME_INTERNAL_H
#define QWD_GAME_INTERNAL_H

#include <math.h>
#include <stdarg.h>

#include "qwd/game.h"
#include "qwd/protocol.h"

enum { STATE_TOP, STATE_BOTTOM, STATE_UP, STATE_DOWN };
enum { DEAD_NO, DEAD_DYING, DEAD_DEAD, DEAD_RESPAWNABLE };

#define SPAWNFLAG_NOT_DEATHMATCH 2048

static inline void g_vscale(const vec3_t v, float s, vec3_t out)
{
	out[0] = v[0] * s;
	out[1] = v[1] * s;
	out[2] = v[2] * s;
}

/* antilag.c: the rings and the rewound traces (game_create, the level,
 * setorigin of a player, tracelines and projectile moves) */
int g_antilag_create(struct game *g);
void g_antilag_destroy(struct game *g);
void g_antilag_level(struct game *g);
void g_antilag_reset(struct game *g, const struct game_entity *e);
/* world_move, meeting the rewound players when pass's shots (projectile:
 * its projectile moves) are rewound */
void g_antilag_move(struct game *g, const vec3_t start, const vec3_t mins,
		    const vec3_t maxs, const vec3_t end, enum move_kind kind,
		    struct game_entity *pass, bool projectile, struct trace *tr);

/* game.c: engine builtins */
double g_random(struct game *g);			/* [0, 1) */
/* defer.c: a thread runs a local move (its calls to the server are
 * recorded); the guard around shared state such a move must not reach
 * (true: this call entered it, pass it to g_escape_leave) */
bool g_deferring(void);
bool g_escape_enter(const char *what);
void g_escape_leave(bool entered);
float g_crandom(struct game *g);			/* (-1, 1) */
struct game_entity *g_spawn(struct game *g);		/* NULL when full */
void g_remove(struct game *g, struct game_entity *e);
/* e->inuse and its bit in g->inuse_bits together: the one way to set it */
void g_set_inuse(struct game *g, struct game_entity *e, bool inuse);
void g_link(struct game *g, struct game_entity *e, bool touch_triggers);
void g_setorigin(struct game *g, struct game_entity *e, const vec3_t org);
void g_setsize(struct game *g, struct game_entity *e, const vec3_t mins,
	       const vec3_t maxs);
void g_set_brush_model(struct game *g, struct game_entity *e, int sub);
/* the engine's index of a model or sound, 0 when it has none */
int g_precache_model(struct game *g, const char *name);
int g_precache_sound(struct game *g, const char *name);
void g_sound(struct game *g, struct game_entity *e, int chan, int snd,
	     float vol, float attn);
void g_sound_at(struct game *g, const vec3_t org, int snd, float attn);
void g_te_point(struct game *g, int type, const vec3_t org, int count,
		int multicast);
void g_te_beam(struct game *g, int type, int ent, const vec3_t start,
	       const vec3_t end);
void g_bprint(struct game *g, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void g_sprint(struct game *g, struct game_entity *e, int level,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void g_centerprint(struct game *g, struct game_entity *e, const char *text);
void g_stuff(struct game *g, struct game_entity *e, const char *text);
void g_logf(struct game *g, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct game_entity *g_find_target(struct game *g, struct game_entity *from,
				  const char *targetname);
void g_use_targets(struct game *g, struct game_entity *self,
		   struct game_entity *activator);
/* the super shotgun's spread, the widest of the bullets' (W_FireSuperShotgun):
 * sideways and up, per unit of range */
#define W_SSG_SPREAD_X 0.14f
#define W_SSG_SPREAD_Y 0.08f
void g_makevectors(const vec3_t angles, vec3_t fwd, vec3_t right, vec3_t up);
void g_vectoangles(const vec3_t v, vec3_t angles);
float g_normalize(vec3_t v);
float g_vlen(const vec3_t v);
/* QuakeC's traceline: a point trace, nomonsters skips boxes */
void g_traceline(struct game *g, const vec3_t start, const vec3_t end,
		 bool nomonsters, struct game_entity *pass, struct trace *tr);
struct game_entity *g_trace_ent(struct game *g, const struct trace *tr);
int g_pointcontents(struct game *g, const vec3_t p);
void g_think_remove(struct game *g, struct game_entity *self);
bool g_is_player(const struct game_entity *e);
struct game_client *g_client(struct game *g, struct game_entity *e);
/* e, when a player, was changed from outside its own move (game.h's
 * touched: damage, a pusher) */
void g_touch_player(struct game *g, const struct game_entity *e);
/* an event to whoever listens (game_set_events): one pointer test when
 * nobody does */
#define G_EVENT(g, fn, ...)						\
	do {								\
		const struct game_events *ev_ = (g)->events;		\
		if (ev_ && ev_->fn)					\
			ev_->fn(ev_->ctx, (g)->time, __VA_ARGS__);	\
	} while (0)
/* a player's slot for the events, -1 for anything else */
static inline int g_ev_slot(const struct game_entity *e)
{
	return e ? e->client : -1;
}

/* phys.c: the world phase */
void phys_run_entity(struct game *g, struct game_entity *e);
bool phys_run_think(struct game *g, struct game_entity *e);
void phys_impact(struct game *g, struct game_entity *e1,
		 struct game_entity *e2);
void phys_touch_triggers(struct game *g, struct game_entity *e);
bool phys_droptofloor(struct game *g, struct game_entity *e);

/* movers.c: what the moving brush entities share, and the spawn of every
 * mover, trigger and misc.qc entity by class (it asks doors.c, plats.c,
 * triggers.c and misc.c, each of which says whether the class is its) */
void sub_calc_move(struct game *g, struct game_entity *e, const vec3_t dest,
		   float speed, game_think_fn done);
/* the bounds of e's brush model (the world's when it has none) */
void mover_model_bounds(struct game *g, struct game_entity *e, vec3_t mins,
			vec3_t maxs);
/* QuakeC's SetMovedir: angle -1 is up, -2 down, else the facing */
void mover_set_movedir(struct game_entity *e);
void mover_brush_setup(struct game *g, struct game_entity *e, int solid,
		       int movetype);
/* a looping sound where it stands, sent once in the signon */
void mover_static_sound(struct game *g, const vec3_t org, const char *name,
			float vol);
bool movers_spawn(struct game *g, struct game_entity *e, const char *cls);
bool doors_spawn(struct game *g, struct game_entity *e, const char *cls);
bool plats_spawn(struct game *g, struct game_entity *e, const char *cls);
bool triggers_spawn(struct game *g, struct game_entity *e, const char *cls);
bool misc_spawn(struct game *g, struct game_entity *e, const char *cls);
/* misc.c: the worldspawn's light styles (0-11, 63), before the lights' */
void misc_world_lightstyles(struct game *g);
/* doors.c: link the doors whose boxes touch, give each group its field */
void movers_link_doors(struct game *g);

/* items.c */
bool items_spawn(struct game *g, struct game_entity *e, const char *cls);
void items_drop_backpack(struct game *g, struct game_entity *player);
void items_drop_powerups(struct game *g, struct game_entity *player);
void items_precache(struct game *g);
/* the match layer's: the powerups withheld or given back as
 * g->match.powerups_off says; every item back in place (backpacks
 * gone), silently, as at the level's start */
void items_apply_powerups(struct game *g);
void items_match_reset(struct game *g);

/* combat.c */
void combat_damage(struct game *g, struct game_entity *targ,
		   struct game_entity *inflictor, struct game_entity *attacker,
		   float damage, int deathtype);
void combat_radius(struct game *g, struct game_entity *inflictor,
		   struct game_entity *attacker, float damage,
		   struct game_entity *ignore, int deathtype);
bool combat_can_damage(struct game *g, struct game_entity *targ,
		       struct game_entity *inflictor);
void combat_spawn_blood(struct game *g, const vec3_t org, int count);
void combat_throw_gibs(struct game *g, struct game_entity *e);

/* weapons.c */
void weapons_precache(struct game *g);
void weapons_frame(struct game *g, struct game_entity *player);
int weapons_code(int w);
void weapons_set_current(struct game *g, struct game_entity *player);
int weapons_best(struct game *g, struct game_entity *player);
/* a trap's shot along trap->movedir: kind 0 nail, 1 super nail, 2 laser */
void weapons_trap_shot(struct game *g, struct game_entity *trap, int kind);

/* player.c: entering, spawning, dying, frags, the level's end */
void player_precache(struct game *g);
void player_init_bodyque(struct game *g);
/* the body left behind: a copy of e in the body queue */
void player_copy_to_bodyque(struct game *g, struct game_entity *e);
void player_goto_next_map(struct game *g);
void player_put_in_server(struct game *g, int slot);
void player_player_die(struct game *g, struct game_entity *self,
		       struct game_entity *attacker);
void player_obituary(struct game *g, struct game_entity *targ,
		     struct game_entity *attacker);
void player_check_rules(struct game *g, struct game_entity *player);
void player_frags_changed(struct game *g, struct game_entity *player);
void player_next_level(struct game *g);
void player_spawn_tfog(struct game *g, const vec3_t org);
/* the spawn search's memory of the world at each of its places, sized
 * for this level's spots (at level load: no allocation in a frame) */
void player_init_spawn_places(struct game *g);
void player_telefrag(struct game *g, const vec3_t org,
		     struct game_entity *mover);
void player_intermission_frame(struct game *g);
bool player_spawn_point(struct game *g, struct game_entity *e,
			const char *cls);

/* clientcmd.c: a command's run (game_client_cmd) and the animation.
 * Frame numbers of progs/player.mdl, in its $frame order; a sequence of
 * the player's model, with the view model's frames 1..wframes alongside */
enum {
	FR_AXRUN = 0, FR_ROCKRUN = 6, FR_STAND = 12, FR_AXSTND = 17,
	FR_AXPAIN = 29, FR_PAIN = 35, FR_AXDETH = 41, FR_DEATHA = 50
};
enum { ANIM_BASIC, ANIM_PAIN, ANIM_ATTACK, ANIM_DEATH };
void player_anim_start(struct game *g, struct game_entity *e, int first,
		       int last, int prio, int wframes);
void player_pain(struct game *g, struct game_entity *e);

/* pmove.c and pmove_collide.c: the player's movement and what it collides
 * with, sharing the move in progress */
/* One move in progress. */
struct pm_ctx {
	const struct world *w;
	const struct pmove_vars *mv;
	const struct usercmd *cmd;
	struct pmove_player *p;
	struct pmove_result *res;
	float frametime;
	vec3_t forward, right;
	vec3_t groundnormal;	/* of the last ground found */
	int num_phys;
	const struct world_obj *phys[PMOVE_MAX_PHYSENTS]; /* [0] NULL: world */
	/* per physent, made once a move: the bounds pm_cull tests */
	vec3_t phys_lo[PMOVE_MAX_PHYSENTS], phys_hi[PMOVE_MAX_PHYSENTS];
	/* the hull of the box physents, laid out once a move when there is
	 * one; its planes are set per box */
	struct bsp_box_hull *box;
	/* NULL, or where the move's reads of the world are gathered
	 * (pmove_run_read: a speculative move's validation) */
	struct pmove_read *read;
	vec3_t gather_min, gather_max;	/* the physents' query box */
};

/* the read box grows by a box of the reference point (a trace's or a
 * test's bounds): the objects whose boxes meet it, grown by the player's */
void pm_read_ref(const struct pm_ctx *pm, const vec3_t tmins, const vec3_t tmaxs);
/* ... and keeps the reference point's segment (start == end: a test) */
void pm_read_seg(const struct pm_ctx *pm, const vec3_t start, const vec3_t end);
/* ... or by a box of world space (a point test, the physents' box) */
void pm_read_box(const struct pm_ctx *pm, const vec3_t mins, const vec3_t maxs);

/* the reference's length: the squares summed in float, the root in double */
static inline float pm_length(const vec3_t v)
{
	return (float)sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* the physents of a move: the world, then what may block it */
void pm_gather_physents(struct pm_ctx *pm, const struct world_obj *self);
/* world_obj id of physent i: what touches and groundent report */
int pm_phys_id(const struct pm_ctx *pm, int i);
/* PM_PlayerTrace: the player box from start to end against every
 * physent; tr->ent is a physent index */
void pm_trace(const struct pm_ctx *pm, const vec3_t start, const vec3_t end,
	      struct trace *total);
/* PM_TestPlayerPosition: is the player box at pos clear of every physent? */
bool pm_position_clear(const struct pm_ctx *pm, const vec3_t pos);
bool pm_box_holds(const struct pm_ctx *pm, const vec3_t lo, const vec3_t hi);
/* PM_PointContents_AllBSPs */
int pm_contents_all_brushes(const struct pm_ctx *pm, const vec3_t p);
/* physent touched by the move (once each; the world is not one) */
void pm_add_touch(struct pm_ctx *pm, int physent);

#endif
