/*
 * src/match/internal.h -- what the match module's files share: the
 * match's state, its settings, the texts' helpers.
 *
 * Design note
 *   match.c is the state machine (prewar, countdown, match, overtime,
 *   end, pause) and the settings; commands.c the players' commands (the
 *   table the "commands" list prints from, the modes' settings); text.c
 *   the Quake charset's helpers KTX's texts use (red text, gold digits,
 *   gold brackets); motd.c the message of the day and the matchtag;
 *   idle.c KTX's idle bot.  Per-slot state is one array made by
 *   match_create, sized by the game's slots.
 */
#ifndef QWD_MATCH_INTERNAL_H
#define QWD_MATCH_INTERNAL_H

#include "qwd/match.h"

#include <stdarg.h>

enum { M_MOTD_LINES = 15, M_MOTD_LEN = 128,	/* KTX's MOTD_LINES */
       M_TAG_LEN = 20 };			/* KTX's matchtag buffer */

/* the settings (KTX's cvars), validated */
struct match_settings {
	int count;		/* k_count: countdown seconds (3 at least) */
	int overtime;		/* k_overtime 0 off, 1 time, 2 sudden death,
				 * 3 tie-break */
	int exttime;		/* k_exttime: minutes of overtime 1 */
	int pow, pow_q, pow_p, pow_r, pow_s;	/* k_pow, k_pow_q/_p/_r/_s */
	int dis;		/* k_dis: the shaft's discharge under water */
	int dp;			/* dp: the dead drop backpacks */
	int frp;		/* k_frp: fair packs (1 the best weapon, 2 the
				 * last fired) */
	int dq, dr;		/* dq, dr: a dying carrier drops quad, ring */
	int spw;		/* k_spw: the spawn model in a match (0-4) */
	int lockmin, lockmax;	/* k_lockmin/k_lockmax: teams */
	int membercount;	/* k_membercount: players per team */
	int mode;		/* k_mode: 1 duel, 2 team, 3 ffa */
	int pause_without_tag;	/* k_pause_without_matchtag */
	int matchless;		/* k_matchless: stock deathmatch, no match */
	char defmode[16];	/* k_defmode */
	char defmap[64];	/* k_defmap */
	/* votes and admin (vote.c, admin.c) */
	int vp_map, vp_break, vp_admin;	/* k_vp_*: percent of the players */
	int allowvoteadmin;	/* k_allowvoteadmin */
	int admins;		/* k_admins: 0 no admins at all */
	char admincode[32];	/* k_admincode: empty or "none": no logins */
	/* motd.c, idle.c */
	char motd[M_MOTD_LINES][M_MOTD_LEN];	/* k_motd1 .. k_motd15 */
	int motd_time;		/* k_motd_time: seconds shown (0: 7, 3
				 * matchless) */
	int idletime;		/* k_idletime: the idle bot's seconds (0 off) */
};

struct match_slot {
	bool ready;
	bool brk;		/* votes to stop the match */
	int pause_requests;	/* left in this match */
	bool in_game;		/* was in the game last frame (motd.c) */
	double motd_until;	/* the MOTD shown until (level time; 0 none) */
	double motd_next;	/* its next think (KTX's PMOTDThink) */
	int motd_pos;		/* 1 + its place in match.motd_list; 0 none */
};

struct match {
	struct game *g;
	struct match_services svc;
	struct match_settings set;
	enum match_state state;
	enum match_mode umode;
	struct match_slot *slots;	/* g->max_clients */
	int max_slots;
	char status[32];

	/* countdown: seconds still to print; next tick (level time) */
	int count_left;
	double next_tick;
	/* the clock: minutes and seconds left as KTX's timer counts them */
	int minutes, seconds;
	double start_time;
	struct m_stats *stats;	/* matchstats.c: the statistics, or NULL */
	int sudden;		/* 0, or the overtime (2, 3) being played */
	int sd_frags[MATCH_MAX_SCORES];	/* frags when sudden death began */

	/* pause: when the pause falls (level time, 0 none) and who asked;
	 * when the unpause falls (real time, 0 none) */
	double pause_at;
	char pause_name[32];
	int pause_left;
	double unpause_at;
	double realtime;
	int pause_shown;

	int clients_seen;	/* in the game last frame (players and
				 * spectators): the server emptied when 0 */
	/* the slots' walk in match_frame: due when the game's roster moved
	 * since roster_seen, or when the level began (walk_due); otherwise
	 * a frame touches no slot but those whose MOTD thinks (motd_list,
	 * motd_count of them: a heap of the slots shown it, by their next
	 * think; motd.c) */
	uint32_t roster_seen;
	bool walk_due;
	int *motd_list;		/* max_slots */
	int motd_count;
	int levels;		/* levels begun: the first runs k_defmode */
	struct match_result last;
	struct match_result work;	/* scratch for events */

	struct m_votes *votes;	/* vote.c, admin.c */

	char matchtag[M_TAG_LEN];	/* KTX's serverinfo "matchtag" ("" none) */
	int idle_left;		/* idle.c: the idle bot's seconds left (0 off) */
	double idle_next;	/* its next second (level time) */
};

/* match.c */
void m_apply_rules(struct match *m);
void m_start_countdown(struct match *m);
void m_stop_countdown(struct match *m, const char *why);
void m_break_match(struct match *m, const char *why);
bool m_can_start(struct match *m, int slot, bool members_warn);
int m_count_players(const struct match *m, bool ready_only);
bool m_is_player(const struct match *m, int slot);
bool m_team_mode(const struct match *m);
int m_timelimit_minutes(const struct match *m);
void m_collect(struct match *m, struct match_result *r);
void m_pause_command(struct match *m, int slot);
/* KTX's Get_PowerupsStr: off, on, or the letters of those on (qprs) */
void m_powerups_word(const struct match_settings *s, char *out, size_t size);
const char *m_spawn_model_name(int spw, bool short_name);
void m_set_status(struct match *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* commands.c */
void m_run_mode(struct match *m, enum match_mode mode, int by_slot);
enum match_mode m_mode_by_name(const char *name);

/* vote.c, admin.c: the votes' and admins' state, made with the match */
struct m_votes *m_votes_create(int max_slots);
void m_votes_destroy(struct m_votes *v);
void m_votes_level(struct match *m);	/* a new level: votes gone */
void m_votes_frame(struct match *m);	/* timeouts, leavers */
/* votes needed still: KTX's ceil(percent * players) - votes */
int m_votes_needed(const struct match *m, int percent, int votes);
void m_cmd_votemap(struct match *m, int slot, int argc, const char *const *argv);
void m_cmd_maps(struct match *m, int slot, int argc, const char *const *argv);
void m_cmd_yes(struct match *m, int slot, int argc, const char *const *argv);
void m_cmd_no(struct match *m, int slot, int argc, const char *const *argv);
void m_cmd_elect(struct match *m, int slot, int argc, const char *const *argv);
void m_cmd_admin(struct match *m, int slot, int argc, const char *const *argv);
void m_cmd_forcestart(struct match *m, int slot, int argc, const char *const *argv);
void m_cmd_forcebreak(struct match *m, int slot, int argc, const char *const *argv);
void m_cmd_lock(struct match *m, int slot, int argc, const char *const *argv);
void m_cmd_unlock(struct match *m, int slot, int argc, const char *const *argv);
void m_cmd_force_spec(struct match *m, int slot, int argc, const char *const *argv);
void m_cmd_kick(struct match *m, int slot, int argc, const char *const *argv);
void m_cmd_mute(struct match *m, int slot, int argc, const char *const *argv);
void m_cmd_unmute(struct match *m, int slot, int argc, const char *const *argv);
/* slot is an admin (real or elected) */
bool m_is_admin(const struct match *m, int slot);
/* log one admin or vote line through match_services.log */
void m_vlog(struct match *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* text.c: KTX's look, in the Quake charset */
void m_bprint(struct match *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void m_sprint(struct match *m, int slot, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void m_centerprint_all(struct match *m, const char *text);
void m_stuff_all(struct match *m, const char *text);
/* red text (high bit set) of s into buf; buf returned */
enum { M_TEXT = 64 };
const char *m_red(char *buf, size_t size, const char *s);
/* n in gold digits into buf */
const char *m_gold(char *buf, size_t size, int n);
/* "s" unless n is 1 (KTX's count_s) */
const char *m_plural(int n);

/* motd.c: KTX's message of the day, to each player entering: slot s
 * entered or left the game (match_frame's walk of the slots calls it);
 * the thinks due, each frame */
void m_motd_slot(struct match *m, int s);
void m_motd_frame(struct match *m);
void m_cmd_motd(struct match *m, int slot, int argc, const char *const *argv);
/* a mode command's words after the mode: KTX's UserMode_SetMatchTag */
void m_set_matchtag(struct match *m, int argc, const char *const *argv);

/* idle.c: KTX's idle bot (k_idletime) */
void m_idle_check(struct match *m, int slot);	/* slot said ready */
void m_idle_frame(struct match *m);		/* prewar, each frame */
void m_idle_off(struct match *m);		/* a countdown, a level */

/* matchstats.c: the statistics wired to the match's states */
struct m_stats *m_stats_create(void);
void m_stats_destroy(struct m_stats *s);
void m_stats_start(struct match *m);	/* the match begins: count */
void m_stats_frame(struct match *m);	/* a played frame: speeds, leavers */
void m_stats_end(struct match *m, bool played_out);	/* print if so */
void m_cmd_stats(struct match *m, int slot, int argc, const char *const *argv);
void m_cmd_effi(struct match *m, int slot, int argc, const char *const *argv);
void m_cmd_scores(struct match *m, int slot, int argc, const char *const *argv);
void m_cmd_laststats(struct match *m, int slot, int argc, const char *const *argv);

#endif
