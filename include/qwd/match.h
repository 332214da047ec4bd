/*
 * qwd/match.h -- the match layer: prewar, ready, countdown, the match and
 * its end, the modes (ffa, 1on1, 2on2, 3on3, 4on4, 10on10) and their
 * rules, as KTX (QW-Group/ktx) runs them, under KTX's command and cvar
 * names so that players, admins and configs move over unchanged.
 *
 * Design note
 *   The match stands on the game's public API only (qwd/game.h): it reads
 *   the players (g->clients: in the game, spectator, name, team, frags)
 *   and the rules the game read from its cvars (deathmatch, teamplay,
 *   timelimit, fraglimit), hands the game the rules it holds
 *   (game_set_match_rules: frags off in prewar, the limits its own, the
 *   powerups, the discharge), resets the map when a match starts
 *   (game_match_reset) and ends the level when it ends (game_end_level).
 *   It prints through the game's services (print, centerprint,
 *   stufftext), so every text reaches the clients and the demo as the
 *   game's own do; what only a server has (the serverinfo "status" key,
 *   console lines such as "timelimit 10" or "exec configs/...", whether a
 *   config file exists, the match's events) comes through struct
 *   match_services.  Nothing here knows the server: the server's feature
 *   (src/server/match.c) registers the k_* cvars from match_var_info, the
 *   client commands from match_command_info, and drives match_frame.
 *
 *   Time: the countdown, the clock and the pause countdown run on the
 *   game's level time (g->time: it stands still while the game is
 *   paused); the unpause countdown runs on the real clock the caller
 *   passes, since the level's time does not move while paused.
 *   Memory: match_create allocates one struct; nothing afterwards.
 *
 *   The match's events (started, ended with its scores, broken off) go to
 *   match_services.event: the points where statistics and per-match
 *   demos plug in.
 */
#ifndef QWD_MATCH_H
#define QWD_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "qwd/game.h"

enum match_state {
	MATCH_PREWAR,		/* players move and shoot, frags do not count */
	MATCH_COUNTDOWN,	/* everyone ready: k_count seconds */
	MATCH_PLAYING,		/* the clock runs, frags count */
	MATCH_OVER		/* the intermission, until the next level */
};

/* KTX's user modes this layer has (um_list); ctf is refused (no flags,
 * runes or hook in qwd's game) */
enum match_mode {
	MATCH_MODE_NONE,	/* no mode command yet: k_mode alone says */
	MATCH_MODE_1ON1, MATCH_MODE_2ON2, MATCH_MODE_3ON3, MATCH_MODE_4ON4,
	MATCH_MODE_10ON10, MATCH_MODE_FFA, MATCH_MODES
};

enum match_event {
	MATCH_EVENT_COUNTDOWN,	/* the countdown began (KTX starts its demo) */
	MATCH_EVENT_STARTED,	/* the map was reset, the clock runs */
	MATCH_EVENT_ENDED,	/* the limit was reached: the scores */
	MATCH_EVENT_BROKEN	/* broken off (vote, everyone left): prewar */
};

enum { MATCH_MAX_SCORES = 64 };	/* players in a result, the best */

/* one player's line of a match's scores */
struct match_score {
	int slot;
	char name[32];
	char team[16];
	int frags;
};

struct match_result {
	char map[64];
	int mode;		/* k_mode: 1 duel, 2 team, 3 ffa */
	double duration;	/* seconds of level time played */
	int num;
	struct match_score scores[MATCH_MAX_SCORES];	/* by frags, best first */
};

struct match_services {
	void *ctx;
	/* the serverinfo key "status" (Standby, Countdown, "N min left") */
	void (*status)(void *ctx, const char *value);
	/* one console line, as an operator's config would run it
	 * ("timelimit 10", "k_overtime 1", "exec configs/...", "map dm2") */
	void (*command)(void *ctx, const char *line);
	/* does the game folder hold this file (configs/usermodes/...) */
	bool (*file_exists)(void *ctx, const char *path);
	/* a match started, ended (r: its scores) or was broken off */
	void (*event)(void *ctx, enum match_event ev,
		      const struct match_result *r);
	/* votes and admin (vote.c, admin.c); any of them NULL:
	 * an admin's action, a refused login, a vote's outcome, as one
	 * logrcon-style line (who and what; never a code) */
	void (*log)(void *ctx, const char *line);
	/* drop slot from the server (an admin's kick); why said to it */
	void (*kick)(void *ctx, int slot, const char *why);
	/* slot's userid and address (the IP, no port) for the admin
	 * code's lockout; false when the slot has no client */
	bool (*client_info)(void *ctx, int slot, int *userid, char *addr,
			    size_t size);
	/* what the statistics file tells of a player that the game does
	 * not keep: the shirt colour (userinfo "topcolor") and the ping in
	 * ms; false when the slot has no client (NULL: both 0) */
	bool (*client_extra)(void *ctx, int slot, int *topcolor, int *ping);
	/* the operator's map list (KTX's k_ml_0, k_ml_1, ...): entry i into
	 * buf, false past the end */
	bool (*map_list)(void *ctx, int i, char *buf, size_t size);
	/* the server has the map (as its "map" command would find it);
	 * NULL: file_exists on maps/NAME.bsp */
	bool (*map_exists)(void *ctx, const char *name);
	/* a serverinfo key set as KTX's "serverinfo KEY VALUE" does
	 * (the "matchtag"); NULL: none */
	void (*serverinfo)(void *ctx, const char *key, const char *value);
};

struct match;

struct match *match_create(struct game *g, const struct match_services *svc);
void match_destroy(struct match *m);

/* ---- the settings: KTX's cvars ----------------------------------------- */

/* One setting.  Numbers are checked against min..max; the strings
 * (k_defmode: a mode's name or empty; k_defmap: a map name or empty)
 * by their own rules. */
struct match_var_info {
	const char *name;
	const char *def;	/* KTX's value */
	const char *help;	/* one line: what it does, its values */
};
int match_var_count(void);
const struct match_var_info *match_var_info(int i);
/* Store a setting: 0, or -1 with a message naming the setting and what
 * is allowed (the value is then not taken). */
int match_set(struct match *m, const char *name, const char *value,
	      char *err, size_t errlen);
/* the value the match holds, as text (for the cvar put back after a
 * refused value) */
const char *match_get(const struct match *m, const char *name, char *buf,
		      size_t size);

/* ---- the players' commands --------------------------------------------- */

enum match_who { MATCH_WHO_PLAYER = 1, MATCH_WHO_SPECTATOR = 2,
		 MATCH_WHO_BOTH = 3, MATCH_WHO_ADMIN = 4 };

struct match_command_info {
	const char *name;
	int who;		/* enum match_who bits */
	const char *help;	/* KTX's one line (the "commands" list) */
};
int match_command_count(void);
const struct match_command_info *match_command_info(int i);
/* Run the client command argv[0] of slot; false when it is not one of
 * the match's (nothing done), and for "pause" when matchless (k_matchless
 * 1: the server's own pause then answers). */
bool match_command(struct match *m, int slot, int argc,
		   const char *const *argv);
/* A console line of the operator's that names a mode ("1on1"): KTX's
 * "sv invoked" form.  False when name is not a mode. */
bool match_mode_console(struct match *m, const char *name);

/* ---- the server's calls ------------------------------------------------ */

/* A level loaded: prewar, "Standby", the rules handed to the game. */
void match_level_begin(struct match *m);
/* Once a server frame, after the game's; realtime: the server's clock
 * (seconds), for the unpause countdown. */
void match_frame(struct match *m, double realtime);

enum match_state match_state(const struct match *m);
enum match_mode match_mode(const struct match *m);
bool match_ready(const struct match *m, int slot);
/* the last match's scores (num 0: none yet) */
const struct match_result *match_last_result(const struct match *m);
/* the "status" value the match set last */
const char *match_status(const struct match *m);
/* KTX's matchtag ("" none): the words after a mode command ("4on4 cup
 * final"), cleaned as KTX cleans them; kept across levels */
const char *match_matchtag(const struct match *m);
/* KTX's message of the day as it is centerprinted to a player entering
 * (k_motd1 .. k_motd15, or "Welcome"; the bar, "Running qwd", the hints)
 * into out, terminated, cut to size */
void match_motd_text(const struct match *m, char *out, size_t size);

/* ---- the statistics' file and the match's demo name (matchstats.c) --- */

/* what only the server knows, for the JSON file's header */
struct match_stats_facts {
	const char *date;	/* "%Y-%m-%d %H:%M:%S %z" */
	const char *hostname, *ip;
	int port;
	const char *matchtag;	/* NULL or "": left out */
	const char *demo;	/* the demo's file name, NULL or "": none */
};
/* The last match played to its end in KTX's stats_json.c layout to out:
 * 0, or -1 (no such match, or a write error). */
int match_write_stats(const struct match *m, const struct match_stats_facts *f,
		      FILE *out);
/* KTX's demo name for the match being played: duel_A_vs_B[map],
 * 4on4_T1_vs_T2[map], ffa_N[map], then the date by datefmt
 * (k_demoname_date, strftime's; empty: none) at now */
void match_demo_name(const struct match *m, const char *datefmt, time_t now,
		     char *out, size_t size);

/* KTX's texts as plain ASCII: red letters (the high bit) as letters, gold
 * digits (0x92..0x9b) as digits, gold brackets (0x90 0x91) as [ ]; into
 * out (size bytes, terminated).  For logs, tools and tests. */
void match_plain_text(const char *in, char *out, size_t size);

/* ---- votes and admin (vote.c, admin.c) --------------------------------- */

/* an admin locked the server: no one new comes in */
bool match_locked(const struct match *m);
/* an admin muted slot: its say and say_team go nowhere */
bool match_muted(const struct match *m, int slot);
/* slot's client left the server (its admin rights, votes and mute go
 * with it; a level change's reconnect keeps them: do not call it then) */
void match_client_gone(struct match *m, int slot);

/* what was refused or done, since the start */
struct match_vote_stats {
	unsigned long admin_denied;	/* wrong admin codes */
	unsigned long admin_lockouts;	/* logins refused while locked out */
	unsigned long admin_granted;	/* logins and elections won */
	unsigned long admin_actions;	/* forcestart, kick, lock, ... */
	unsigned long admin_refused;	/* admin commands by non-admins */
	unsigned long votes_cast;
	unsigned long votes_refused;	/* too soon, not now, bad name */
	unsigned long maps_refused;	/* votemap of a map not there */
	unsigned long votes_passed;
	unsigned long votes_timed_out;
	unsigned long muted_says;	/* chat of muted players dropped */
};
const struct match_vote_stats *match_vote_stats(const struct match *m);
/* the same, counted: a muted player's chat dropped */
void match_count_muted(struct match *m);

#endif
