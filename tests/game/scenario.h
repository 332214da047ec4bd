/*
 * tests/game/scenario.h -- scripted game scenarios: maps written as .map
 * text from boxes, compiled in memory by the project's map compiler, a
 * game on them driven through its API, and a mock of the engine's
 * services that records what the game asked for.
 *
 * Design note: the game is stepped as the server will step it: each tick
 * advances the level time by 13 ms (game_frame), then every player in the
 * scenario runs its held usercmd of 13 ms (game_client_cmd, which runs
 * pmove the way the server would).  The mock keeps the sounds (by name),
 * temp entities, prints, frags and level changes, so a test asserts on
 * what clients would have been sent.
 */
#ifndef QWD_TESTS_GAME_SCENARIO_H
#define QWD_TESTS_GAME_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#include "qwd/game.h"

/* ---- .map text ---------------------------------------------------------- */

struct mapsrc {
	char *text;
	size_t len, cap;
};

void ms_init(struct mapsrc *m);
void ms_free(struct mapsrc *m);
/* open an entity with its key/value text ("\"classname\" \"func_door\"") */
void ms_open(struct mapsrc *m, const char *keys);
void ms_close(struct mapsrc *m);
/* a box brush in the open entity; tex picks contents ("*lava1", "wall") */
void ms_box(struct mapsrc *m, float x0, float y0, float z0, float x1,
	    float y1, float z1, const char *tex);
/* six 16-unit walls around the empty box [mins, maxs] */
void ms_room(struct mapsrc *m, float x0, float y0, float z0, float x1,
	     float y1, float z1);

/* ---- the mock services -------------------------------------------------- */

enum { MOCK_LOG = 4096, MOCK_PRINTS = 32768 };

struct mock_sound {
	int ent, chan, snd;
	vec3_t org;
};

struct mock {
	char models[256][64];
	int num_models;
	char sounds[256][64];
	int num_sounds;
	struct mock_sound snd[MOCK_LOG];
	int num_snd;		/* all calls; the first MOCK_LOG are kept */
	struct game_temp_entity te[MOCK_LOG];
	int te_multicast[MOCK_LOG];
	int num_te;
	int static_sounds;
	char static_names[2048];	/* the static sounds' names, "a b ..." */
	char prints[MOCK_PRINTS];
	size_t prints_len;
	char centerprint[2048];
	int centerprint_slot;	/* of the last one */
	int centerprint_calls;
	int frags[64];
	int frag_calls;
	int damage_calls, kick_calls, muzzle_calls, stuff_calls;
	int big_kick_calls;		/* of kick_calls, svc_bigkick */
	int found_secret_calls;
	int lightstyle_calls, last_style;
	char last_style_value[16];
	int setangle_calls;
	vec3_t setangle;
	int intermission_calls;
	int change_calls;
	char change_map[64];
	float deathmatch, teamplay, fraglimit, timelimit, samelevel;
	float antilag, antilag_projectiles;	/* sv_antilag... */
	float paused, pausable;		/* sv_paused (set_pause), pausable */
	int pause_calls;
	char logs[4096];
	int log_calls;
	const char *infokey_key, *infokey_value;
};

/* how many sounds of that name were started, and temp entities of a type */
int mock_sounds(const struct mock *m, const char *name);
int mock_temp_entities(const struct mock *m, int type);
int mock_model_index(const struct mock *m, const char *name);

/* ---- a scenario --------------------------------------------------------- */

enum { SCEN_MAX_ENTITIES = 1024, SCEN_MAX_CLIENTS = 8 };
#define SCEN_TICK 0.013

struct scen {
	struct bsp_map *map;
	struct world world;
	struct world_obj *objs;
	struct game *g;
	struct mock mock;
	struct game_services svc;
	double time;
	bool playing[SCEN_MAX_CLIENTS];
	struct usercmd held[SCEN_MAX_CLIENTS];
};

/* Compile text, load it, start a game on it.  0, or -1 with err set. */
int scen_start(struct scen *s, const char *maptext, int max_clients,
	       int max_entities, char *err, size_t errlen);
/* the same with the entity lump replaced by lump (entity text the
 * compiler would refuse: hostile values) */
int scen_start_lump(struct scen *s, const char *maptext, const char *lump,
		    char *err, size_t errlen);
/* the same on a map file (a real map) */
int scen_start_file(struct scen *s, const char *path, int max_clients,
		    int max_entities, char *err, size_t errlen);
/* a 1024 x 1024 room, 384 high (floor at 0), spawn spots at
 * (-256 -256 24) and (256 -256 24), and what extra writes */
int scen_start_room(struct scen *s, void (*extra)(struct mapsrc *m),
		    char *err, size_t errlen);
void scen_free(struct scen *s);
/* cmocka fixtures: a zeroed struct scen as the state, freed after */
int scen_fx_setup(void **state);
int scen_fx_teardown(void **state);
/* scen_start_room that must succeed (the test fails with the reason) */
void scen_room_ok(struct scen *s, void (*extra)(struct mapsrc *m));
/* a weapon in hand with ammo for it */
void scen_give(struct scen *s, int slot, int weapon, int ammo);
/* a player enters; it holds a null command until told otherwise */
struct game_entity *scen_join(struct scen *s, int slot, const char *name);
/* put a player at org (standing there at rest), facing yaw */
void scen_place(struct scen *s, int slot, float x, float y, float z, float yaw);
/* what a player holds: view angles, moves, buttons */
void scen_hold(struct scen *s, int slot, float pitch, float yaw, int fwd,
	       int side, int buttons);
/* one tick (13 ms): game_frame, then each player's held command */
void scen_tick(struct scen *s);
/* ticks for this many seconds */
void scen_run(struct scen *s, double seconds);
struct game_entity *scen_player(struct scen *s, int slot);
struct game_client *scen_client(struct scen *s, int slot);
/* first entity of a class, or NULL */
struct game_entity *scen_find(struct scen *s, const char *classname);
int scen_count(struct scen *s, const char *classname);

#endif
