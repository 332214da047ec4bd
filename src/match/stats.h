/*
 * stats.h -- the match layer's statistics (module-internal API): what each
 * player did during a match, counted from the game's events, and the texts
 * and the file made of it at the end.
 *
 * Design note
 *   The game reports (qwd/game.h, struct game_events) and this file keeps
 *   score; nothing here reads the game's entities, so a test drives it with
 *   made-up events as well as with a game.  The figures and their meaning
 *   are KTX's (QW-Group/ktx stats.c, combat.c, weapons.c, client.c), as the
 *   community's stat sites and tournament tools read them:
 *     attacks    a shot; each pellet of the shotguns (6 and 14)
 *     hits       a direct hit on a player: a pellet, a nail, a missile's
 *                touch, a beam, a swing; splash is not a hit
 *     rhits/vhits the rocket and grenade damage events on another player
 *                (splash included): the "Wp: rl" and "RL skill ad" figures
 *     damage     what was dealt: health taken (at most what the target
 *                had) plus the armour that absorbed the rest; given and
 *                taken count enemies only, team and self apart
 *     spawn frag a kill of a player who spawned less than 2 s before
 *     efficiency frags / (frags + deaths) x 100, 0 below one frag
 *     control    (duel) time from the second kill of a streak until death
 *   Everything is in fixed arrays sized at most STATS_MAX_PLAYERS; names
 *   and teams are copied with bounds.  The texts are KTX's, red text and
 *   the separators in Quake's character set (bytes >= 0x80), written into
 *   a caller's buffer (struct stats_text) with truncation noted, never
 *   overrun.
 */
#ifndef QWD_MATCH_STATS_H
#define QWD_MATCH_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "qwd/game.h"

enum { STATS_MAX_PLAYERS = 32, STATS_NAME = 32, STATS_TEAM = 16 };

/* KTX's item ids (itemName_t): the order of the JSON's "items" */
enum stats_item {
	STATS_IT_NONE, STATS_IT_H15, STATS_IT_H25, STATS_IT_H100,
	STATS_IT_GA, STATS_IT_YA, STATS_IT_RA, STATS_IT_QUAD,
	STATS_IT_PENT, STATS_IT_RING, STATS_IT_COUNT
};

struct stats_weapon {
	int attacks, hits, rhits, vhits;
	int kills, tkills, ekills, suicides, deaths;
	int drops, tooks, ttooks, stooks, sttooks;
	int edamage, tdamage;
};

struct stats_itm {
	int tooks;
	double time;		/* seconds held, summed */
	double since;		/* held since (level time), < 0 not held */
};

struct stats_player {
	bool used;		/* took part in this match */
	bool present;		/* still in the game */
	char name[STATS_NAME];
	char team[STATS_TEAM];
	int topcolor, bottomcolor, ping;
	int frags, deaths, kills, suicides, friendly, spawn_frags;
	float dmg_t, dmg_g, dmg_team, dmg_self, dmg_tweapon, dmg_eweapon;
	float dmg_g_rl;
	int spree, spree_q, spree_max, spree_max_q;
	double control_time, control_start;	/* control_start 0: none */
	double vel_max, vel_sum;
	long vel_frames;
	double spawn_time;	/* last spawn, < 0 never */
	int end_health, end_armour, end_items;	/* stats_endgame */
	struct stats_weapon wpn[GAME_WP_COUNT];
	struct stats_itm itm[STATS_IT_COUNT];
};

struct match_stats {
	struct stats_player pl[STATS_MAX_PLAYERS];
	int deathmatch, teamplay;
	int timelimit, fraglimit;
	bool duel;		/* two players, no teams: duel's lines */
	bool running;
	double start, end;	/* level times; end 0 while running */
	/* the last match's end prints, for "laststats" */
	char last[16384];
	size_t last_len;
};

/* a text being written: buf[cap], len bytes so far, kept terminated */
struct stats_text {
	char *buf;
	size_t cap, len;
	bool truncated;
};

void stats_text_init(struct stats_text *t, char *buf, size_t cap);

/* A new match at level time `time`: every count to 0 (the last match's
 * prints are kept).  Players are added with stats_player_set. */
void stats_begin(struct match_stats *st, double time, int deathmatch,
		 int teamplay, int timelimit, int fraglimit);
/* who plays in slot: name, team (copied, cut to fit), colours, ping */
void stats_player_set(struct match_stats *st, int slot, const char *name,
		      const char *team, int topcolor, int bottomcolor,
		      int ping);
/* the slot's player left: kept in the figures, not in "present" */
void stats_player_left(struct match_stats *st, int slot);
/* a frame's sample of a player's speed (horizontal, units/s) */
void stats_speed(struct match_stats *st, int slot, const float velocity[3]);
/* what a player had at the end (duel's "EndGame" line) */
void stats_endgame(struct match_stats *st, int slot, int health,
		   int armour, int items);
/* the match ends at `time`: powerups and control stop counting, and the
 * end prints are kept for laststats */
void stats_end(struct match_stats *st, double time);

/* the game's events (ctx: the struct match_stats) */
void stats_on_shot(void *ctx, double time, int slot, int weapon, int count);
void stats_on_hit(void *ctx, double time, int slot, int weapon, int target,
		  int count);
void stats_on_damage(void *ctx, double time, const struct game_ev_damage *d);
void stats_on_kill(void *ctx, double time, const struct game_ev_kill *k);
void stats_on_item(void *ctx, double time, int slot, int item, int weapon,
		   bool new_weapon);
void stats_on_drop(void *ctx, double time, int slot, int weapon);
void stats_on_powerup_end(void *ctx, double time, int slot, int item);
void stats_on_spawn(void *ctx, double time, int slot);
/* all of the above into ev, with st as their ctx */
void stats_events(struct match_stats *st, struct game_events *ev);

/* efficiency as KTX: frags / (frags + deaths) x 100, 0 below one frag */
double stats_efficiency(const struct stats_player *p);
/* hits / attacks x 100 (0 without attacks) */
double stats_accuracy(const struct stats_weapon *w);
/* damage taken per death (99999 without deaths): "ToDie" */
int stats_to_die(const struct stats_player *p);
/* KTX's weapon and item names in the JSON ("sg", "health_100", "q") */
const char *stats_weapon_name(int weapon);
const char *stats_item_name(int item);

/* ---- the texts (KTX's, Quake's charset) ---- */
/* one player's block of the end prints */
void stats_print_player(const struct match_stats *st, int slot,
			struct stats_text *t);
/* "Player statistics:" with every player's block (by team), then in
 * team games "Team scores:" */
void stats_print_end(const struct match_stats *st, struct stats_text *t);
/* the "effi" command: a line per player, frags, rank, efficiency */
void stats_print_effi(const struct match_stats *st, struct stats_text *t);
/* the "scores" command: the time played and the frags, per team in team
 * games; "stats" prints stats_print_end's blocks during the match */
void stats_print_scores(const struct match_stats *st, double time,
			struct stats_text *t);
/* the "laststats" command: the last match's end prints, or a line that
 * there are none */
void stats_print_last(const struct match_stats *st, struct stats_text *t);

/* ---- the JSON file (stats_json.c): KTX's stats_json.c layout ----
 * Header facts KTX takes from the server. */
struct stats_json_info {
	const char *date;	/* "%Y-%m-%d %H:%M:%S %z" */
	const char *map, *hostname, *ip;
	int port;
	const char *matchtag;	/* NULL or "": left out */
	const char *mode;	/* "duel", "team", "ffa" */
	const char *demo;	/* the demo's name, NULL or "": left out */
};
/* KTX's mode name for these rules */
const char *stats_mode(const struct match_stats *st);
/* the JSON to f; 0, or -1 on a write error */
int stats_write_json(const struct match_stats *st,
		     const struct stats_json_info *info, FILE *f);
/* The file beside the demo: the demo's path with its extension (".mvd")
 * replaced by ext (".json"; MVDSV's sv_demoinfoadd appends KTX's file to
 * the demo's ".txt"); out[size].  0, or -1 when it does not fit. */
int stats_json_path(const char *demo_path, const char *ext, char *out,
		    size_t size);

#endif
