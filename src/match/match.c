/*
 * match.c -- the match's life as KTX's match.c runs it: prewar, the
 * countdown, the match with its clock, overtime and sudden death, the
 * end, a break, the pause; and the settings (KTX's cvars).
 *
 * Design note
 *   States: PREWAR (frags off, the clock off: "Standby"), COUNTDOWN (the
 *   start's conditions hold and every player is ready: "Countdown", a
 *   centerprint each second for max(3, k_count) seconds; a condition
 *   that stops holding aborts it), PLAYING (the map reset, frags count,
 *   "N min left"; KTX's timer: minutes and seconds, a tick each second,
 *   "[N] minutes remaining" at each minute, "[30] seconds", "[15]
 *   seconds" and each of the last ten in the last minute), OVER (the
 *   intermission; the next level starts in PREWAR).  The end: the
 *   timelimit (then k_overtime: 1 adds k_exttime minutes while the two
 *   best, players or teams, are level; 2 plays on until the next frag, 3
 *   until two frags part them), the fraglimit, or a sudden death's frag.
 *   A break (a majority's vote, everyone leaving) returns to PREWAR
 *   without an intermission.
 *   The match hands the game its rules whenever they change (m_apply_rules:
 *   not per frame); match_frame costs a few comparisons when nothing is
 *   due.  The pause (KTX's TogglePause): asked in a match only, falls 3 s
 *   later (level time, a "pausing" centerprint), is lifted 3 s after the
 *   unpause (real time: the level's is stopped).
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bsd/string.h>

/* ---- the settings ------------------------------------------------------ */

enum var_kind { V_INT, V_MODE, V_MAP, V_CODE, V_TEXT };

struct var_def {
	struct match_var_info info;
	enum var_kind kind;
	int min, max;
	size_t off;		/* in struct match_settings */
};

#define INT_VAR(n, d, lo, hi, field, h) \
	{ {n, d, h}, V_INT, lo, hi, offsetof(struct match_settings, field) }
#define MOTD_VAR(i) \
	{ {"k_motd" #i, "", "line " #i " of the message of the day shown to a player entering"}, \
	  V_TEXT, 0, 0, offsetof(struct match_settings, motd[(i) - 1]) }

static const struct var_def vars[] = {
	INT_VAR("k_count", "10", 0, 3600, count,
		"countdown seconds before a match (3 at least, as KTX)"),
	INT_VAR("k_overtime", "1", 0, 3, overtime,
		"when the time is up level: 0 end, 1 k_exttime more minutes, 2 sudden death, 3 tie-break (two frags)"),
	INT_VAR("k_exttime", "5", 1, 999, exttime,
		"minutes of overtime (k_overtime 1)"),
	INT_VAR("k_pow", "1", 0, 1, pow, "1: powerups on the map (k_pow_q/_p/_r/_s each)"),
	INT_VAR("k_pow_q", "1", 0, 1, pow_q, "1: the quad damage (with k_pow)"),
	INT_VAR("k_pow_p", "1", 0, 1, pow_p, "1: the pentagram (with k_pow)"),
	INT_VAR("k_pow_r", "1", 0, 1, pow_r, "1: the ring of shadows (with k_pow)"),
	INT_VAR("k_pow_s", "1", 0, 1, pow_s, "1: the biosuit (with k_pow)"),
	INT_VAR("k_dis", "1", 0, 1, dis,
		"1: the shaft fired under water discharges in a match; 0: the cells go, no blast"),
	INT_VAR("dp", "1", 0, 1, dp, "1: in a match the dead drop backpacks (none before it, as KTX)"),
	INT_VAR("k_frp", "0", 0, 2, frp,
		"fair packs: 1 a backpack holds the best weapon its owner had ammo for, 2 the last one he fired"),
	INT_VAR("dq", "0", 0, 1, dq, "1: in a match a dying quad carrier leaves the quad with its time left"),
	INT_VAR("dr", "0", 0, 1, dr, "1: in a match a dying ring carrier leaves the ring with its time left"),
	INT_VAR("k_spw", "4", 0, 4, spw,
		"spawn model in a match: 0 QW, 1 KT SpawnSafety, 2 Kombat Teams, 3 KTX, 4 KTX2 (docs/match.md)"),
	INT_VAR("k_lockmin", "0", 0, 64, lockmin, "team modes: teams needed to start"),
	INT_VAR("k_lockmax", "64", 0, 64, lockmax, "team modes: most teams allowed to start"),
	INT_VAR("k_membercount", "0", 0, 64, membercount,
		"team modes: players each team needs to start"),
	INT_VAR("k_mode", "3", 1, 3, mode, "1 duel, 2 team, 3 ffa (set by the mode commands)"),
	INT_VAR("k_matchless", "0", 0, 1, matchless,
		"1: no matches: frags always count, the timelimit runs from the map's start (stock deathmatch)"),
	INT_VAR("k_pause_without_matchtag", "0", 0, 1, pause_without_tag,
		"1: players may pause a match (3 requests each) though pausable is 0"),
	{ {"k_defmode", "", "mode the server goes back to when it empties (1on1, 2on2, 3on3, 4on4, 10on10, ffa; empty: none)"},
	  V_MODE, 0, 0, offsetof(struct match_settings, defmode) },
	{ {"k_defmap", "", "map the server goes back to when it empties (empty: none)"},
	  V_MAP, 0, 0, offsetof(struct match_settings, defmap) },
	/* votes and admin (vote.c, admin.c): KTX's ktx.cfg values */
	INT_VAR("k_vp_map", "51", 0, 100, vp_map,
		"percent of the players whose votes change the map (51 to 100; less counts as 51)"),
	INT_VAR("k_vp_break", "51", 0, 100, vp_break,
		"percent of the players whose votes stop a match"),
	INT_VAR("k_vp_admin", "51", 0, 100, vp_admin,
		"percent of the players whose votes elect an admin"),
	INT_VAR("k_allowvoteadmin", "1", 0, 1, allowvoteadmin,
		"1: players may elect an admin (elect, yes, no)"),
	INT_VAR("k_admins", "1", 0, 1, admins, "0: no admins on this server"),
	{ {"k_admincode", "", "the admins' code (admin CODE); empty or none: no logins by code"},
	  V_CODE, 0, 0, offsetof(struct match_settings, admincode) },
	MOTD_VAR(1), MOTD_VAR(2), MOTD_VAR(3), MOTD_VAR(4), MOTD_VAR(5),
	MOTD_VAR(6), MOTD_VAR(7), MOTD_VAR(8), MOTD_VAR(9), MOTD_VAR(10),
	MOTD_VAR(11), MOTD_VAR(12), MOTD_VAR(13), MOTD_VAR(14), MOTD_VAR(15),
	INT_VAR("k_motd_time", "0", 0, 30, motd_time,
		"seconds the message of the day is shown (0: 7, 3 on a matchless server)"),
	INT_VAR("k_idletime", "0", 0, 3600, idletime,
		"idle bot: once half the players are ready, the others have this many seconds, then are kicked and the match starts (0 off)"),
};

enum { NUM_VARS = sizeof(vars) / sizeof(vars[0]) };

int match_var_count(void)
{
	return NUM_VARS;
}

const struct match_var_info *match_var_info(int i)
{
	return i >= 0 && i < NUM_VARS ? &vars[i].info : NULL;
}

static const struct var_def *find_var(const char *name)
{
	for (int i = 0; i < NUM_VARS; i++)
		if (strcasecmp(vars[i].info.name, name) == 0)
			return &vars[i];
	return NULL;
}

static bool map_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n >= sizeof(((struct match_settings *)0)->defmap))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' &&
		    s[i] != '+')
			return false;
	return true;
}

int match_set(struct match *m, const char *name, const char *value,
	      char *err, size_t errlen)
{
	const struct var_def *v = find_var(name);
	char *base = (char *)&m->set;

	if (!v) {
		snprintf(err, errlen, "%s: not a match setting", name);
		return -1;
	}
	switch (v->kind) {
	case V_INT: {
		char *end;
		long n = strtol(value, &end, 10);

		while (*end == ' ')
			end++;
		/* "1.0" as configs write it is 1 */
		if (*end == '.' && strspn(end + 1, "0") == strlen(end + 1))
			end += strlen(end);
		if (!*value || *end || n < v->min || n > v->max) {
			snprintf(err, errlen, "%s: \"%s\" is not a whole number from %d to %d",
				 v->info.name, value, v->min, v->max);
			return -1;
		}
		*(int *)(base + v->off) = (int)n;
		break;
	}
	case V_MODE:
		if (*value && m_mode_by_name(value) == MATCH_MODE_NONE) {
			snprintf(err, errlen, "%s: \"%s\" is not a mode (1on1, 2on2, 3on3, 4on4, 10on10, ffa, or empty)",
				 v->info.name, value);
			return -1;
		}
		strlcpy(base + v->off, value, sizeof(m->set.defmode));
		break;
	case V_MAP:
		if (!map_name_ok(value)) {
			snprintf(err, errlen, "%s: \"%s\" is not a map name (letters, digits, _ - +; at most 63)",
				 v->info.name, value);
			return -1;
		}
		strlcpy(base + v->off, value, sizeof(m->set.defmap));
		break;
	case V_CODE:	/* the value is a secret: never in the message */
		if (strlen(value) >= sizeof(m->set.admincode) ||
		    strpbrk(value, " \t\"\\;")) {
			snprintf(err, errlen, "%s: not taken: at most %zu characters, no spaces, quotes, backslashes or ;",
				 v->info.name, sizeof(m->set.admincode) - 1);
			return -1;
		}
		strlcpy(base + v->off, value, sizeof(m->set.admincode));
		break;
	case V_TEXT: {
		size_t n = strlen(value);
		bool ctl = false;

		for (size_t i = 0; i < n; i++)
			ctl |= (unsigned char)value[i] < 0x20 || value[i] == 0x7f;
		if (n >= M_MOTD_LEN || ctl) {
			snprintf(err, errlen, "%s: not taken: at most %d characters, no control characters",
				 v->info.name, M_MOTD_LEN - 1);
			return -1;
		}
		strlcpy(base + v->off, value, M_MOTD_LEN);
		break;
	}
	}
	m_apply_rules(m);
	return 0;
}

const char *match_get(const struct match *m, const char *name, char *buf,
		      size_t size)
{
	const struct var_def *v = find_var(name);
	const char *base = (const char *)&m->set;

	if (!v)
		return NULL;
	if (v->kind == V_INT)
		snprintf(buf, size, "%d", *(const int *)(base + v->off));
	else
		strlcpy(buf, base + v->off, size);
	return buf;
}

/* ---- life ------------------------------------------------------------- */

struct match *match_create(struct game *g, const struct match_services *svc)
{
	struct match *m = calloc(1, sizeof(*m));
	char err[128];

	if (!m)
		return NULL;
	m->slots = calloc((size_t)g->max_clients, sizeof(*m->slots));
	m->motd_list = calloc((size_t)g->max_clients, sizeof(*m->motd_list));
	if (!m->slots || !m->motd_list) {
		free(m->slots);
		free(m->motd_list);
		free(m);
		return NULL;
	}
	m->votes = m_votes_create(g->max_clients);
	m->stats = m_stats_create();
	if (!m->votes || !m->stats) {
		m_votes_destroy(m->votes);
		m_stats_destroy(m->stats);
		free(m->slots);
		free(m->motd_list);
		free(m);
		return NULL;
	}
	m->max_slots = g->max_clients;
	m->g = g;
	m->svc = *svc;
	m->walk_due = true;	/* the first frame walks the slots */
	for (int i = 0; i < NUM_VARS; i++)
		(void)match_set(m, vars[i].info.name, vars[i].info.def, err,
				sizeof(err));
	strlcpy(m->status, "Standby", sizeof(m->status));
	return m;
}

void match_destroy(struct match *m)
{
	if (!m)
		return;
	m_votes_destroy(m->votes);
	m_stats_destroy(m->stats);
	free(m->slots);
	free(m->motd_list);
	free(m);
}

enum match_state match_state(const struct match *m)
{
	return m->state;
}

enum match_mode match_mode(const struct match *m)
{
	return m->umode;
}

bool match_ready(const struct match *m, int slot)
{
	return slot >= 0 && slot < m->max_slots && m->slots[slot].ready;
}

const struct match_result *match_last_result(const struct match *m)
{
	return &m->last;
}

const char *match_status(const struct match *m)
{
	return m->status;
}

void m_set_status(struct match *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->status, sizeof(m->status), fmt, ap);
	va_end(ap);
	if (m->svc.status)
		m->svc.status(m->svc.ctx, m->status);
}

/* the game's rules as the match's state and settings say */
void m_apply_rules(struct match *m)
{
	struct game_match_rules r = {0};
	const struct match_settings *s = &m->set;

	r.owns_limits = !s->matchless;
	r.no_frags = m->state != MATCH_PLAYING && !s->matchless;
	if (!s->pow || !s->pow_q)
		r.powerups_off |= IT_QUAD;
	if (!s->pow || !s->pow_p)
		r.powerups_off |= IT_INVULNERABILITY;
	if (!s->pow || !s->pow_r)
		r.powerups_off |= IT_INVISIBILITY;
	if (!s->pow || !s->pow_s)
		r.powerups_off |= IT_SUIT;
	r.no_discharge = !s->dis;
	r.shaft_in_water = m->state != MATCH_PLAYING && !s->matchless;
	/* KTX's DropBackpack: only while the match is played */
	r.no_backpacks = !s->dp || (m->state != MATCH_PLAYING && !s->matchless);
	r.fair_packs = s->frp;
	r.drop_quad = m->state == MATCH_PLAYING && !s->matchless && s->dq;
	r.drop_ring = m->state == MATCH_PLAYING && !s->matchless && s->dr;
	/* KTX's models act only while the match is played */
	r.spawn_model = m->state == MATCH_PLAYING && !s->matchless ? s->spw : 0;
	if (memcmp(&r, &m->g->match, sizeof(r)) != 0)
		game_set_match_rules(m->g, &r);
}

/* ---- who plays -------------------------------------------------------- */

bool m_is_player(const struct match *m, int slot)
{
	const struct game_client *cl = &m->g->clients[slot];

	return cl->active && !cl->spectator;
}

int m_count_players(const struct match *m, bool ready_only)
{
	int n = 0;

	for (int s = 0; s < m->max_slots; s++)
		if (m_is_player(m, s) && (!ready_only || m->slots[s].ready))
			n++;
	return n;
}

bool m_team_mode(const struct match *m)
{
	return m->set.mode == 2;
}

int m_timelimit_minutes(const struct match *m)
{
	int t = (int)(m->g->timelimit / 60.0f + 0.5f);

	return t < 0 ? 0 : t > 9999 ? 9999 : t;
}

/* teams of the ready players (KTX's CountRTeams), each with its size */
static int ready_teams(const struct match *m, const char **names, int *sizes,
		       int max)
{
	int n = 0;

	for (int s = 0; s < m->max_slots; s++) {
		const char *t = m->g->clients[s].team;
		int k;

		if (!m_is_player(m, s) || !m->slots[s].ready || !t[0])
			continue;
		for (k = 0; k < n && strcmp(names[k], t) != 0; k++)
			;
		if (k == n) {
			if (n == max)
				continue;
			names[n] = t;
			sizes[n++] = 0;
		}
		sizes[k]++;
	}
	return n;
}

/* KTX's isCanStart: false (with the reason to slot, or to all when
 * slot < 0) when the mode's conditions do not hold */
bool m_can_start(struct match *m, int slot, bool members_warn)
{
	const char *names[MATCH_MAX_SCORES];
	int sizes[MATCH_MAX_SCORES], teams, sub;
	char buf[256], r1[M_TEXT], r2[M_TEXT], r3[M_TEXT];

	buf[0] = '\0';
	if (m->set.mode == 1) {
		sub = m_count_players(m, false) - 2;
		if (sub > 0)
			snprintf(buf, sizeof(buf), "Get rid of %d player%s!\n", sub,
				 m_plural(sub));
	} else if (m_team_mode(m)) {
		for (int s = 0; s < m->max_slots && !buf[0]; s++)
			if (m_is_player(m, s) && !m->g->clients[s].team[0])
				strlcpy(buf, "Get rid of players with empty team\n",
					sizeof(buf));
		teams = ready_teams(m, names, sizes, MATCH_MAX_SCORES);
		if (buf[0]) {
			/* said above */
		} else if (teams < m->set.lockmin) {
			sub = m->set.lockmin - teams;
			snprintf(buf, sizeof(buf), "%d more team%s required!\n", sub,
				 m_plural(sub));
		} else if (teams > m->set.lockmax) {
			sub = teams - m->set.lockmax;
			snprintf(buf, sizeof(buf), "Get rid of %d team%s!\n", sub,
				 m_plural(sub));
		} else {
			bool short_team = false;

			for (int k = 0; k < teams; k++)
				short_team |= sizes[k] < m->set.membercount;
			if (short_team) {
				/* said when everyone is ready, or asked to */
				if (!members_warn && slot < 0 &&
				    m_count_players(m, true) != m_count_players(m, false))
					return false;
				snprintf(buf, sizeof(buf), "%s %d %s\n%s\n",
					 m_red(r1, sizeof(r1), "Server wants at least"),
					 m->set.membercount,
					 m_red(r2, sizeof(r2), "players in each team"),
					 m_red(r3, sizeof(r3), "Waiting..."));
			}
		}
	}
	if (!buf[0])
		return true;
	if (slot >= 0)
		m_sprint(m, slot, "%s", buf);
	else
		m_bprint(m, "%s", buf);
	return false;
}

/* ---- the countdown ---------------------------------------------------- */

static const char *mode_word(const struct match *m)
{
	switch (m->set.mode) {
	case 1: return "D u e l";
	case 2: return "T e a m";
	default: return "F F A";
	}
}

/* KTX's names of the spawn models (respawn_model_name and its short one) */
const char *m_spawn_model_name(int spw, bool short_name)
{
	static const char *const names[5][2] = {
		{"Normal QW respawns", "QW"}, {"KT SpawnSafety", "KTS"},
		{"Kombat Teams respawns", "KT"}, {"KTX respawns", "KTX"},
		{"KTX2 respawns", "KT2"},
	};

	if (spw < 0 || spw > 4)
		return "!Unknown!";
	return names[spw][short_name];
}

void m_powerups_word(const struct match_settings *s, char *out, size_t size)
{
	if (!s->pow || (!s->pow_q && !s->pow_p && !s->pow_r && !s->pow_s)) {
		strlcpy(out, "off", size);
	} else if (s->pow_q && s->pow_p && s->pow_r && s->pow_s) {
		strlcpy(out, "on", size);
	} else {
		snprintf(out, size, "%s%s%s%s", s->pow_q ? "q" : "",
			 s->pow_p ? "p" : "", s->pow_r ? "r" : "", s->pow_s ? "s" : "");
	}
}

/* KTX's PrintCountdown: the centerprint of each second */
static void print_countdown(struct match *m, int seconds)
{
	struct game *g = m->g;
	char text[1024], r[M_TEXT], d[M_TEXT], pw[8];
	size_t n = 0;
	int tl = m_timelimit_minutes(m);

#define ADD(...) n += (size_t)snprintf(text + n, n < sizeof(text) ? sizeof(text) - n : 0, __VA_ARGS__)
	ADD("%s: %2s\n\n\n", m_red(r, sizeof(r), "Countdown"), m_gold(d, sizeof(d), seconds));
	ADD("%s %2s\n", "Deathmatch", m_gold(d, sizeof(d), g->deathmatch));
	ADD("%s %8s\n", "Mode", m_red(r, sizeof(r), mode_word(m)));
	ADD("%s %4s\n", "Respawns", m_spawn_model_name(m->set.spw, true));
	if (game_antilag_mode(g))
		ADD("%s %5s\n", "Antilag", m_gold(d, sizeof(d), game_antilag_mode(g)));
	if (m_team_mode(m))
		ADD("%s %4s\n", "Teamplay", m_gold(d, sizeof(d), g->teamplay));
	if (tl)
		ADD("%s %3s\n", "Timelimit", m_gold(d, sizeof(d), tl));
	if (g->fraglimit > 0)
		ADD("%s %3s\n", "Fraglimit", m_gold(d, sizeof(d), (int)g->fraglimit));
	if (tl && m->set.overtime) {
		char ot[M_TEXT];

		if (m->set.overtime == 1)
			m_gold(ot, sizeof(ot), m->set.exttime);
		else if (m->set.overtime == 2)
			m_red(ot, sizeof(ot), "sd");
		else
			snprintf(ot, sizeof(ot), "%s %s", m_gold(d, sizeof(d), 2),
				 m_red(r, sizeof(r), "tb"));
		ADD("%s %4s\n", "Overtime", ot);
	}
	m_powerups_word(&m->set, pw, sizeof(pw));
	if (strcmp(pw, "off") != 0)
		ADD("%s %4s\n", "Powerups", m_red(r, sizeof(r), pw));
	if (m->matchtag[0])
		ADD("\nmatchtag %s\n\n\n", m_red(r, sizeof(r), m->matchtag));
	else
		ADD("\nno matchtag\n\n\n");
#undef ADD
	m_centerprint_all(m, text);
}

void m_start_countdown(struct match *m)
{
	m_idle_off(m);
	m->state = MATCH_COUNTDOWN;
	m->count_left = (m->set.count < 3 ? 3 : m->set.count) + 1;
	m->next_tick = m->g->time;	/* the first second now */
	m_set_status(m, "Countdown");
	if (m->svc.event)
		m->svc.event(m->svc.ctx, MATCH_EVENT_COUNTDOWN, NULL);
}

/* KTX's StopTimer: prewar again */
static void back_to_prewar(struct match *m)
{
	if (m->state == MATCH_COUNTDOWN)
		m_centerprint_all(m, "");
	m->state = MATCH_PREWAR;
	m->sudden = 0;
	m->pause_at = 0;
	for (int s = 0; s < m->max_slots; s++)
		m->slots[s].brk = false;
	m_apply_rules(m);
	m_set_status(m, "Standby");
}

void m_stop_countdown(struct match *m, const char *why)
{
	if (why)
		m_bprint(m, "%s", why);
	m_collect(m, &m->work);	/* nothing played: duration 0 */
	if (m->svc.event)
		m->svc.event(m->svc.ctx, MATCH_EVENT_BROKEN, &m->work);
	back_to_prewar(m);
}

/* ---- scores ----------------------------------------------------------- */

static int by_frags(const void *a, const void *b)
{
	const struct match_score *x = a, *y = b;

	if (x->frags != y->frags)
		return y->frags - x->frags;
	return x->slot - y->slot;
}

void m_collect(struct match *m, struct match_result *r)
{
	memset(r, 0, sizeof(*r));
	strlcpy(r->map, m->g->mapname, sizeof(r->map));
	r->mode = m->set.mode;
	r->duration = m->state == MATCH_PLAYING ? m->g->time - m->start_time : 0;
	for (int s = 0; s < m->max_slots && r->num < MATCH_MAX_SCORES; s++) {
		const struct game_client *cl = &m->g->clients[s];
		struct match_score *e;

		if (!m_is_player(m, s))
			continue;
		e = &r->scores[r->num++];
		e->slot = s;
		strlcpy(e->name, cl->name, sizeof(e->name));
		strlcpy(e->team, cl->team, sizeof(e->team));
		e->frags = cl->frags;
	}
	qsort(r->scores, (size_t)r->num, sizeof(r->scores[0]), by_frags);
}

/* the two best sides' difference (players in duel and ffa, teams in team
 * modes); *sides: how many sides there are */
static int score_gap(struct match *m, int *sides)
{
	struct match_result *r = &m->work;

	m_collect(m, r);
	if (!m_team_mode(m)) {
		*sides = r->num;
		return r->num >= 2 ? r->scores[0].frags - r->scores[1].frags : 0;
	}
	{
		const char *names[MATCH_MAX_SCORES];
		int sum[MATCH_MAX_SCORES], n = 0, best = 0, second = 0;

		for (int i = 0; i < r->num; i++) {
			int k;

			for (k = 0; k < n && strcmp(names[k], r->scores[i].team) != 0; k++)
				;
			if (k == n) {
				names[n] = r->scores[i].team;
				sum[n++] = 0;
			}
			sum[k] += r->scores[i].frags;
		}
		*sides = n;
		for (int k = 0; k < n; k++) {
			if (k == 0 || sum[k] > best) {
				second = k == 0 ? second : best;
				best = sum[k];
			} else if (k == 1 || sum[k] > second) {
				second = sum[k];
			}
		}
		return n >= 2 ? best - second : 0;
	}
}

/* ---- the match -------------------------------------------------------- */

static void start_match(struct match *m)
{
	char date[64], r[M_TEXT];
	time_t now = time(NULL);
	struct tm tm;
	int tl = m_timelimit_minutes(m);

	m->state = MATCH_PLAYING;
	m->sudden = 0;
	m->pause_at = 0;
	for (int s = 0; s < m->max_slots; s++) {
		m->slots[s].brk = false;
		m->slots[s].pause_requests = 3;	/* KTX's MAX_PAUSE_REQUESTS */
	}
	m_apply_rules(m);
	m_stats_start(m);	/* before the reset: its spawns count */
	game_match_reset(m->g);
	m->start_time = m->g->time;
	if (gmtime_r(&now, &tm) &&
	    strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", &tm))
		m_bprint(m, "matchdate: %s\n", date);
	m_bprint(m, "%s\n", m_red(r, sizeof(r), "The match has begun!"));
	m->minutes = tl;
	m->seconds = 60;
	m->next_tick = m->g->time + 1;
	m_set_status(m, "%d min left", tl);
	if (m->svc.event)
		m->svc.event(m->svc.ctx, MATCH_EVENT_STARTED, NULL);
}

static void end_match(struct match *m)
{
	m_bprint(m, "The match is over\n");
	m_collect(m, &m->last);
	m_stats_end(m, true);
	if (m->svc.event)
		m->svc.event(m->svc.ctx, MATCH_EVENT_ENDED, &m->last);
	m->state = MATCH_OVER;
	m->sudden = 0;
	m->pause_at = 0;
	m_apply_rules(m);
	m_set_status(m, "Standby");
	game_end_level(m->g);
}

void m_break_match(struct match *m, const char *why)
{
	if (why)
		m_bprint(m, "%s", why);
	m_collect(m, &m->work);
	m_stats_end(m, false);
	if (m->svc.event)
		m->svc.event(m->svc.ctx, MATCH_EVENT_BROKEN, &m->work);
	if (game_paused(m->g))
		game_set_pause(m->g, false);
	m->unpause_at = 0;
	back_to_prewar(m);
}

/* KTX's CheckOvertime: the time is up */
static void time_up(struct match *m)
{
	int sides, gap = score_gap(m, &sides);
	int ot = m->set.overtime;
	char r[M_TEXT], d[M_TEXT];

	if (ot && m_team_mode(m) && sides != 2)
		ot = 0;
	else if (ot && sides >= 2 && ((ot == 3 && abs(gap) > 1) || (ot != 3 && gap != 0)))
		ot = 0;
	else if (sides < 2)
		ot = 0;
	if (!ot) {
		end_match(m);
		return;
	}
	m_bprint(m, "time over, the game is a draw\n");
	if (ot == 1) {
		m->minutes = m->set.exttime;
		m->seconds = 60;
		m_set_status(m, "%d min left", m->minutes);
		m_bprint(m, "\x90%s\x91 minute%s overtime follows\n",
			 m_gold(d, sizeof(d), m->set.exttime), m_plural(m->set.exttime));
		m->next_tick = m->g->time + 1;
		return;
	}
	m->sudden = ot;
	{
		struct match_result *res = &m->work;

		m_collect(m, res);
		memset(m->sd_frags, 0, sizeof(m->sd_frags));
		for (int i = 0; i < res->num; i++)
			if (res->scores[i].slot < MATCH_MAX_SCORES)
				m->sd_frags[res->scores[i].slot] = res->scores[i].frags;
	}
	m_bprint(m, "%s %s\n", ot == 2 ? "Sudden death" : "tie-break",
		 m_red(r, sizeof(r), "overtime begins"));
}

/* KTX's TimerThink: one second of the clock */
static void clock_tick(struct match *m)
{
	char d[M_TEXT];

	m->next_tick += 1;
	if (--m->seconds == 0) {
		m->seconds = 60;
		m->minutes--;
		m_set_status(m, "%d min left", m->minutes);
		if (m->minutes == 0) {
			time_up(m);
			return;
		}
		m_bprint(m, "\x90%s\x91 minute%s remaining\n",
			 m_gold(d, sizeof(d), m->minutes), m_plural(m->minutes));
		return;
	}
	if (m->minutes == 1 && (m->seconds == 30 || m->seconds == 15 || m->seconds <= 10))
		m_bprint(m, "\x90%s\x91 second%s\n", m_gold(d, sizeof(d), m->seconds),
			 m_plural(m->seconds));
}

/* the frags' end: fraglimit, sudden death */
static void check_frags(struct match *m)
{
	float fl = m->g->fraglimit;

	for (int s = 0; s < m->max_slots; s++) {
		if (!m_is_player(m, s))
			continue;
		if (fl > 0 && m->g->clients[s].frags >= fl) {
			end_match(m);
			return;
		}
		if (m->sudden == 2 && s < MATCH_MAX_SCORES &&
		    m->g->clients[s].frags != m->sd_frags[s]) {
			end_match(m);
			return;
		}
	}
	if (m->sudden == 3) {
		int sides, gap = score_gap(m, &sides);

		if (abs(gap) >= 2)
			end_match(m);
	}
}

static void countdown_tick(struct match *m)
{
	char r[M_TEXT];

	if (!m_can_start(m, -1, true)) {
		m_stop_countdown(m, "Aborting...\n");
		return;
	}
	m->next_tick += 1;
	if (--m->count_left <= 0) {
		m_centerprint_all(m, "");
		start_match(m);
		return;
	}
	print_countdown(m, m->count_left);
	if (m->count_left < 6) {
		m_red(r, sizeof(r), "Get ready");
		for (int s = 0; s < m->max_slots; s++)
			if (m_is_player(m, s) && !m->slots[s].ready)
				m_sprint(m, s, "%s!\n", r);
		m_stuff_all(m, "play buttons/switch04.wav\n");
	}
}

/* ---- the pause (KTX's TogglePause, WillPause, PausedTic) --------------- */

void m_pause_command(struct match *m, int slot)
{
	const struct game_client *cl = &m->g->clients[slot];
	const float *pausable;

	if (m->state != MATCH_PLAYING)
		return;		/* KTX: only in a match */
	if (game_paused(m->g)) {
		if (m->unpause_at > 0) {
			int sec = (int)(m->unpause_at - m->realtime);

			if (sec < 0)
				sec = 0;
			m_sprint(m, slot, "Unpause is pending, %d second%s\n", sec,
				 m_plural(sec));
			return;
		}
		m->unpause_at = m->realtime + 3;
		m->pause_shown = -1;
		m_bprint(m, "%s unpaused the game (will resume in 3 seconds)\n", cl->name);
		return;
	}
	if (m->pause_at > 0) {
		m_sprint(m, slot, "Pause already in progress.\n");
		return;
	}
	if (!m->sudden && m->minutes == 1 && m->seconds <= 3) {
		m_sprint(m, slot, "Too late to pause. Please wait for match to finish.\n");
		return;
	}
	pausable = m->g->svc.cvar ? m->g->svc.cvar(m->g->svc.ctx, "pausable") : NULL;
	if (!(pausable && *pausable)) {
		/* KTX: a matchtag (an official match) or
		 * k_pause_without_matchtag lets each player pause thrice */
		if ((!m->set.pause_without_tag && !m->matchtag[0]) ||
		    m->slots[slot].pause_requests <= 0) {
			m_sprint(m, slot, "Pause is not allowed\n");
			return;
		}
		m->slots[slot].pause_requests--;
	}
	m->pause_at = m->g->time + 3;
	m->pause_shown = -1;
	strlcpy(m->pause_name, cl->name, sizeof(m->pause_name));
	m->pause_left = m->slots[slot].pause_requests;
}

/* the seconds left of a pause's or an unpause's countdown, shown once
 * each: "pausing" / "unpausing" and the count, with KTX's click */
static void show_left(struct match *m, const char *what, double now, double at)
{
	char text[64];
	int left = (int)(at - now) + 1;

	if (left == m->pause_shown)
		return;
	m->pause_shown = left;
	snprintf(text, sizeof(text), "%s\n\n%d", what, left);
	m_centerprint_all(m, text);
	m_stuff_all(m, "play buttons/switch04.wav\n");
}

static void pause_frame(struct match *m)
{
	if (m->pause_at > 0) {
		if (m->g->time < m->pause_at) {
			show_left(m, "pausing", m->g->time, m->pause_at);
			return;
		}
		m->pause_at = 0;
		m_centerprint_all(m, " ");
		m->unpause_at = 0;
		m_bprint(m, "%s paused the game. He has %d remaining request(s).\n",
			 m->pause_name, m->pause_left);
		game_set_pause(m->g, true);
		return;
	}
	if (!game_paused(m->g) || m->unpause_at <= 0)
		return;
	if (m->realtime < m->unpause_at) {
		show_left(m, "unpausing", m->realtime, m->unpause_at);
		return;
	}
	m->unpause_at = 0;
	m_centerprint_all(m, " ");
	m_bprint(m, "game unpaused\n");
	game_set_pause(m->g, false);
}

/* ---- the server's calls ------------------------------------------------ */

void match_level_begin(struct match *m)
{
	m_stats_end(m, false);	/* a level changed under a match */
	m->state = MATCH_PREWAR;
	m->sudden = 0;
	m->pause_at = m->unpause_at = 0;
	memset(m->slots, 0, sizeof(*m->slots) * (size_t)m->max_slots);
	m->motd_count = 0;
	m->walk_due = true;	/* the slots' walk runs next frame */
	m_votes_level(m);
	m_idle_off(m);
	m_apply_rules(m);
	m_set_status(m, "%s", m->set.matchless ? "matchless" : "Standby");
	/* KTX runs k_defmode's user mode (its settings and configs) on the
	 * server's first map, before anyone came */
	if (m->levels++ == 0 && !m->set.matchless) {
		enum match_mode dm = m_mode_by_name(m->set.defmode);

		if (m->set.defmode[0] && dm != MATCH_MODE_NONE)
			m_run_mode(m, dm, -2);
	}
}

/* the server emptied: KTX's k_defmode, k_defmap */
static void emptied(struct match *m)
{
	enum match_mode dm = m_mode_by_name(m->set.defmode);
	char line[96];

	if (m->set.defmode[0] && dm != MATCH_MODE_NONE && dm != m->umode)
		m_run_mode(m, dm, -2);
	if (m->set.defmap[0] && strcmp(m->set.defmap, m->g->mapname) != 0 &&
	    m->svc.command) {
		snprintf(line, sizeof(line), "map %s", m->set.defmap);
		m->svc.command(m->svc.ctx, line);
	}
}

void match_frame(struct match *m, double realtime)
{
	struct game *g = m->g;
	int clients = 0;

	m->realtime = realtime;
	/* the slots change only when someone joins or leaves (the game's
	 * roster): other frames skip the walk, which was most of this
	 * function's cost on a server woken for a request or two; the MOTD's
	 * thinks due run in every frame (m_motd_frame) */
	if (!g->world || g->roster != m->roster_seen || m->walk_due) {
		for (int s = 0; s < m->max_slots; s++) {
			struct match_slot *ms = &m->slots[s];

			if (g->clients[s].active) {
				clients++;
			} else if (ms->ready || ms->brk) {
				/* a leaver's flags go with him */
				ms->ready = ms->brk = false;
			}
			/* the MOTD: a slot entering or leaving */
			if (!g->world || g->clients[s].active != ms->in_game)
				m_motd_slot(m, s);
		}
		m->roster_seen = g->roster;
		m->walk_due = !g->world;
	} else {
		clients = m->clients_seen;
	}
	m_motd_frame(m);
	m_votes_frame(m);
	if (clients == 0 && m->clients_seen > 0)
		emptied(m);
	m->clients_seen = clients;
	if (!g->world)
		return;
	if (m->set.matchless && m->state != MATCH_PREWAR) {
		/* k_matchless set meanwhile: no match */
		if (m->state == MATCH_PLAYING)
			m_break_match(m, NULL);
		else
			back_to_prewar(m);
		return;
	}

	switch (m->state) {
	case MATCH_PREWAR:
		m_idle_frame(m);
		break;
	case MATCH_OVER:
		break;
	case MATCH_COUNTDOWN:
		while (m->state == MATCH_COUNTDOWN && g->time >= m->next_tick)
			countdown_tick(m);
		break;
	case MATCH_PLAYING:
		if (m_count_players(m, false) == 0) {
			m_break_match(m, NULL);
			break;
		}
		pause_frame(m);
		if (game_paused(g))
			break;
		check_frags(m);
		while (m->state == MATCH_PLAYING && !m->sudden && m->minutes > 0 &&
		       g->time >= m->next_tick)
			clock_tick(m);
		if (m->state == MATCH_PLAYING)
			m_stats_frame(m);
		break;
	}
}
