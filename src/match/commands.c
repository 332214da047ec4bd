/*
 * commands.c -- the players' match commands (KTX's names and help
 * lines) and the modes' settings (KTX's user modes).
 *
 * Design note
 *   One table: name, who may use it, the handler, KTX's one help line.
 *   The server registers every name of it as a client command and hands
 *   each back to match_command; "commands" prints the list from it, so a
 *   command added later (votes, admin) appears there by being added
 *   here.  A mode command runs KTX's settings for the mode as console
 *   lines (the operator's cvars: deathmatch, teamplay, timelimit, the
 *   k_* ones), then the mode's config files where KTX keeps them
 *   (configs/usermodes/default.cfg, configs/usermodes/MODE/default.cfg,
 *   configs/usermodes/MAP.cfg, configs/usermodes/MODE/MAP.cfg), each
 *   when present.  KTX's "maxclients N" lines are left out: qwd's
 *   maxclients is the command line's.  ctf is refused with the reason.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

/* ---- the modes -------------------------------------------------------- */

struct mode_def {
	const char *name;	/* the command and the config folder */
	const char *display;	/* "\223 on \223": KTX's gold digits */
	/* KTX's settings for it */
	int timelimit, teamplay, deathmatch, exttime, pow;
	int membercount, lockmin, lockmax, kmode;
};

/* what every mode sets first (KTX's common_um_init, the part qwd has) */
static const char common_lines[] =
	"sv_antilag 2\n"
	"samelevel 1\n"
	"fraglimit 0\n"
	"k_dis 1\n"
	"k_spw 4\n"
	"k_membercount 0\n"
	"k_lockmin 0\n"
	"k_lockmax 64\n"
	"k_pow_q 1\n"
	"k_pow_p 1\n"
	"k_pow_r 1\n"
	"k_pow_s 1\n";

/* KTX's um_list; every mode here plays k_overtime 1 */
static const struct mode_def modes[MATCH_MODES] = {
	/*                     name   display              tl tp dm ext pow mc lmin lmax mode */
	[MATCH_MODE_1ON1]   = {"1on1", "\x93 on \x93",        10, 0, 3, 3, 0, 0, 0, 0, 1},
	[MATCH_MODE_2ON2]   = {"2on2", "\x94 on \x94",        10, 2, 3, 3, 1, 1, 1, 2, 2},
	[MATCH_MODE_3ON3]   = {"3on3", "\x95 on \x95",        15, 2, 1, 5, 1, 2, 1, 2, 2},
	[MATCH_MODE_4ON4]   = {"4on4", "\x96 on \x96",        20, 2, 1, 5, 1, 3, 1, 2, 2},
	[MATCH_MODE_10ON10] = {"10on10", "\x93\x92 on \x93\x92", 20, 2, 1, 5, 1, 5, 1, 2, 2},
	[MATCH_MODE_FFA]    = {"ffa", "ffa",                   20, 0, 3, 5, 1, 0, 0, 0, 3},
};

enum match_mode m_mode_by_name(const char *name)
{
	if (strcasecmp(name, "duel") == 0)
		return MATCH_MODE_1ON1;
	for (int i = 1; i < MATCH_MODES; i++)
		if (strcasecmp(name, modes[i].name) == 0)
			return (enum match_mode)i;
	return MATCH_MODE_NONE;
}

static void run_lines(struct match *m, const char *lines)
{
	char line[128];

	while (*lines) {
		size_t n = strcspn(lines, "\n");

		if (n < sizeof(line)) {
			memcpy(line, lines, n);
			line[n] = '\0';
			m->svc.command(m->svc.ctx, line);
		}
		lines += n + (lines[n] == '\n');
	}
}

static void exec_if_present(struct match *m, const char *path)
{
	char line[160];

	if (!m->svc.file_exists || !m->svc.file_exists(m->svc.ctx, path))
		return;
	snprintf(line, sizeof(line), "exec %s", path);
	m->svc.command(m->svc.ctx, line);
}

/* KTX's UserMode: by_slot the player who asked, -1 the console, -2 the
 * server emptying (k_defmode: said to no one) */
void m_run_mode(struct match *m, enum match_mode mode, int by_slot)
{
	const struct mode_def *d = &modes[mode];
	char path[256], r1[M_TEXT], r2[M_TEXT];

	if (!m->svc.command)
		return;
	if (by_slot >= 0)
		m_bprint(m, "%s %s %s\n", m_red(r1, sizeof(r1), d->display),
			 m_red(r2, sizeof(r2), "settings enabled by"),
			 m->g->clients[by_slot].name);
	else if (by_slot == -1)
		m_bprint(m, "%s %s\n", m_red(r1, sizeof(r1), d->display),
			 m_red(r2, sizeof(r2), "settings enabled"));
	run_lines(m, common_lines);
	snprintf(path, sizeof(path),
		 "timelimit %d\nteamplay %d\ndeathmatch %d\nk_overtime 1\n"
		 "k_exttime %d\nk_pow %d\nk_membercount %d\nk_lockmin %d\n"
		 "k_lockmax %d\nk_mode %d\n", d->timelimit, d->teamplay,
		 d->deathmatch, d->exttime, d->pow, d->membercount, d->lockmin,
		 d->lockmax, d->kmode);
	run_lines(m, path);
	exec_if_present(m, "configs/usermodes/default.cfg");
	snprintf(path, sizeof(path), "configs/usermodes/%s/default.cfg", d->name);
	exec_if_present(m, path);
	snprintf(path, sizeof(path), "configs/usermodes/%s.cfg", m->g->mapname);
	exec_if_present(m, path);
	snprintf(path, sizeof(path), "configs/usermodes/%s/%s.cfg", d->name,
		 m->g->mapname);
	exec_if_present(m, path);
	m->umode = mode;
}

bool match_mode_console(struct match *m, const char *name)
{
	enum match_mode mode = m_mode_by_name(name);

	if (mode == MATCH_MODE_NONE)
		return false;
	if (m->state != MATCH_PREWAR) {
		m_bprint(m, "UserMode: sv %s discarded: a match is on\n", name);
		return true;
	}
	m_run_mode(m, mode, -1);
	return true;
}

/* ---- the commands ----------------------------------------------------- */

typedef void (*cmd_fn)(struct match *m, int slot, int argc,
		       const char *const *argv);

struct cmd_def {
	struct match_command_info info;
	cmd_fn fn;
};

static void c_ready(struct match *m, int slot, int argc, const char *const *argv);
static void c_break(struct match *m, int slot, int argc, const char *const *argv);
static void c_toggleready(struct match *m, int slot, int argc, const char *const *argv);
static void c_commands(struct match *m, int slot, int argc, const char *const *argv);
static void c_about(struct match *m, int slot, int argc, const char *const *argv);
static void c_rules(struct match *m, int slot, int argc, const char *const *argv);
static void c_mode(struct match *m, int slot, int argc, const char *const *argv);
static void c_ctf(struct match *m, int slot, int argc, const char *const *argv);
static void c_powerups(struct match *m, int slot, int argc, const char *const *argv);
static void c_discharge(struct match *m, int slot, int argc, const char *const *argv);
static void c_spawn(struct match *m, int slot, int argc, const char *const *argv);
static void c_droppack(struct match *m, int slot, int argc, const char *const *argv);
static void c_dropquad(struct match *m, int slot, int argc, const char *const *argv);
static void c_fairpacks(struct match *m, int slot, int argc, const char *const *argv);
static void c_dropring(struct match *m, int slot, int argc, const char *const *argv);
static void c_overtime(struct match *m, int slot, int argc, const char *const *argv);
static void c_overtimeup(struct match *m, int slot, int argc, const char *const *argv);
static void c_pause(struct match *m, int slot, int argc, const char *const *argv);
static void c_lastscores(struct match *m, int slot, int argc, const char *const *argv);

static const struct cmd_def cmds[] = {
	{ {"commands", MATCH_WHO_BOTH, "show commands list"}, c_commands },
	{ {"ready", MATCH_WHO_PLAYER, "when you feel ready"}, c_ready },
	{ {"break", MATCH_WHO_PLAYER, "unready / vote matchend"}, c_break },
	{ {"notready", MATCH_WHO_PLAYER, "unready / vote matchend"}, c_break },
	{ {"toggleready", MATCH_WHO_PLAYER, "just toggle ready"}, c_toggleready },
	{ {"rules", MATCH_WHO_PLAYER, "show game rules"}, c_rules },
	{ {"about", MATCH_WHO_BOTH, "mod's info"}, c_about },
	{ {"motd", MATCH_WHO_BOTH, "show motd"}, m_cmd_motd },
	{ {"lastscores", MATCH_WHO_BOTH, "last game scores"}, c_lastscores },
	/* the statistics: matchstats.c */
	{ {"scores", MATCH_WHO_BOTH, "print scores"}, m_cmd_scores },
	{ {"stats", MATCH_WHO_BOTH, "show match statistics"}, m_cmd_stats },
	{ {"effi", MATCH_WHO_BOTH, "print efficiency"}, m_cmd_effi },
	{ {"laststats", MATCH_WHO_BOTH, "show last game statistics"}, m_cmd_laststats },
	{ {"powerups", MATCH_WHO_PLAYER, "quad, \x98\x98\x98, ring & suit"}, c_powerups },
	{ {"discharge", MATCH_WHO_PLAYER, "underwater discharges"}, c_discharge },
	{ {"spawnmodel", MATCH_WHO_PLAYER, "next spawn model (k_spw)"}, c_spawn },
	{ {"droppack", MATCH_WHO_PLAYER, "the dead drop backpacks on/off (dp)"}, c_droppack },
	{ {"fairpacks", MATCH_WHO_PLAYER, "best/last weapon dropped (k_frp)"}, c_fairpacks },
	{ {"dropquad", MATCH_WHO_PLAYER, "a dying carrier drops the quad on/off (dq)"}, c_dropquad },
	{ {"dropring", MATCH_WHO_PLAYER, "a dying carrier drops the ring on/off (dr)"}, c_dropring },
	{ {"overtime", MATCH_WHO_PLAYER, "toggle overtime mode"}, c_overtime },
	{ {"overtimeup", MATCH_WHO_PLAYER, "change overtime length"}, c_overtimeup },
	{ {"1on1", MATCH_WHO_PLAYER, "duel settings"}, c_mode },
	{ {"duel", MATCH_WHO_PLAYER, "duel settings"}, c_mode },
	{ {"2on2", MATCH_WHO_PLAYER, "2 on 2 settings"}, c_mode },
	{ {"3on3", MATCH_WHO_PLAYER, "3 on 3 settings"}, c_mode },
	{ {"4on4", MATCH_WHO_PLAYER, "4 on 4 settings"}, c_mode },
	{ {"10on10", MATCH_WHO_PLAYER, "10 on 10 settings"}, c_mode },
	{ {"ffa", MATCH_WHO_PLAYER, "FFA settings"}, c_mode },
	{ {"ctf", MATCH_WHO_PLAYER, "CTF settings"}, c_ctf },
	{ {"pause", MATCH_WHO_PLAYER, "toggle pause"}, c_pause },
	/* votes and admin: vote.c, admin.c */
	{ {"votemap", MATCH_WHO_BOTH, "alternative map vote system"}, m_cmd_votemap },
	{ {"maps", MATCH_WHO_BOTH, "list custom maps"}, m_cmd_maps },
	{ {"yes", MATCH_WHO_PLAYER, "give vote"}, m_cmd_yes },
	{ {"no", MATCH_WHO_PLAYER, "withdraw vote"}, m_cmd_no },
	{ {"elect", MATCH_WHO_BOTH, "toggle admin election"}, m_cmd_elect },
	{ {"admin", MATCH_WHO_BOTH, "toggle admin-mode"}, m_cmd_admin },
	{ {"forcestart", MATCH_WHO_BOTH | MATCH_WHO_ADMIN, "force match to start"}, m_cmd_forcestart },
	{ {"forcebreak", MATCH_WHO_BOTH | MATCH_WHO_ADMIN, "force match to end"}, m_cmd_forcebreak },
	{ {"lock", MATCH_WHO_BOTH | MATCH_WHO_ADMIN, "lock server (no one new comes in)"}, m_cmd_lock },
	{ {"unlock", MATCH_WHO_BOTH | MATCH_WHO_ADMIN, "unlock server"}, m_cmd_unlock },
	{ {"force_spec", MATCH_WHO_BOTH | MATCH_WHO_ADMIN, "force spec players"}, m_cmd_force_spec },
	{ {"kick", MATCH_WHO_BOTH | MATCH_WHO_ADMIN, "kick NAME or USERID"}, m_cmd_kick },
	{ {"mute", MATCH_WHO_BOTH | MATCH_WHO_ADMIN, "mute NAME or USERID"}, m_cmd_mute },
	{ {"unmute", MATCH_WHO_BOTH | MATCH_WHO_ADMIN, "unmute NAME or USERID"}, m_cmd_unmute },
};

enum { NUM_CMDS = sizeof(cmds) / sizeof(cmds[0]) };

int match_command_count(void)
{
	return NUM_CMDS;
}

const struct match_command_info *match_command_info(int i)
{
	return i >= 0 && i < NUM_CMDS ? &cmds[i].info : NULL;
}

bool match_command(struct match *m, int slot, int argc, const char *const *argv)
{
	const struct game_client *cl;

	if (argc < 1 || slot < 0 || slot >= m->max_slots)
		return false;
	for (int i = 0; i < NUM_CMDS; i++) {
		if (strcasecmp(argv[0], cmds[i].info.name) != 0)
			continue;
		if (m->set.matchless && cmds[i].fn == c_pause)
			return false;	/* the server's own pause */
		cl = &m->g->clients[slot];
		if (!cl->active)
			return true;	/* not in the game yet */
		if (!(cmds[i].info.who & (cl->spectator ? MATCH_WHO_SPECTATOR
							: MATCH_WHO_PLAYER))) {
			m_sprint(m, slot, "%s: not for %s\n", cmds[i].info.name,
				 cl->spectator ? "spectators" : "players");
			return true;
		}
		if (m->set.matchless && (cmds[i].fn == c_ready ||
					 cmds[i].fn == c_break ||
					 cmds[i].fn == c_toggleready)) {
			m_sprint(m, slot, "No matches here: the server is matchless (k_matchless 1)\n");
			return true;
		}
		cmds[i].fn(m, slot, argc, argv);
		return true;
	}
	return false;
}

/* settings only change before a match */
static bool prewar_only(struct match *m, int slot)
{
	if (m->state == MATCH_PREWAR)
		return true;
	m_sprint(m, slot, "Command blocked: a match is on\n");
	return false;
}

/* set a setting through the console, as KTX's cvar_fset does (the cvar
 * is the one owner of the value; the server hands it back to the match) */
static void set_var(struct match *m, const char *name, int value)
{
	char line[64], err[128];
	char v[16];

	snprintf(v, sizeof(v), "%d", value);
	if (m->svc.command) {
		snprintf(line, sizeof(line), "%s %d", name, value);
		m->svc.command(m->svc.ctx, line);
	}
	/* at once too: the next line may read it */
	(void)match_set(m, name, v, err, sizeof(err));
}

static void c_ready(struct match *m, int slot, int argc, const char *const *argv)
{
	const struct game_client *cl = &m->g->clients[slot];
	char r[M_TEXT];
	int nready, players;

	(void)argc;
	(void)argv;
	if (m->state == MATCH_PLAYING || m->state == MATCH_OVER)
		return;
	if (m->slots[slot].ready) {
		m_sprint(m, slot, "Type break to unready yourself\n");
		return;
	}
	if (m_team_mode(m) && !cl->team[0]) {
		m_sprint(m, slot, "Set your %s before ready!\n", m_red(r, sizeof(r), "team"));
		return;
	}
	m->slots[slot].ready = true;
	m->slots[slot].brk = false;
	if (m_team_mode(m))
		m_bprint(m, "%s %s \x90%s\x91\n", cl->name,
			 m_red(r, sizeof(r), "is ready"), cl->team);
	else
		m_bprint(m, "%s %s\n", cl->name, m_red(r, sizeof(r), "is ready"));
	if (m->state != MATCH_PREWAR)
		return;
	if (!m_can_start(m, -1, false))
		return;
	nready = m_count_players(m, true);
	players = m_count_players(m, false);
	if (nready != players) {
		m_idle_check(m, slot);	/* KTX's IdlebotCheck */
		return;
	}
	if (nready < 2)
		return;
	m_bprint(m, "All players ready\n");
	m_bprint(m, "Timer started\n");
	m_start_countdown(m);
}

static void c_break(struct match *m, int slot, int argc, const char *const *argv)
{
	const struct game_client *cl = &m->g->clients[slot];
	char r[M_TEXT];
	int votes = 0, need;

	(void)argc;
	(void)argv;
	if (!m->slots[slot].ready || m->state == MATCH_OVER)
		return;
	if (m->state == MATCH_PREWAR) {
		m->slots[slot].ready = false;
		m_bprint(m, "%s %s\n", cl->name, m_red(r, sizeof(r), "is not ready"));
		return;
	}
	if (m->state == MATCH_COUNTDOWN) {
		if (m->count_left > 1) {
			m->slots[slot].ready = false;
			m_bprint(m, "%s %s\n", cl->name,
				 m_red(r, sizeof(r), "stops the countdown"));
			m_stop_countdown(m, NULL);
		}
		return;
	}
	/* in the match: a vote to stop it (the votes module will own this) */
	if (m->slots[slot].brk) {
		m->slots[slot].brk = false;
		m_bprint(m, "%s %s %s vote\n", cl->name, m_red(r, sizeof(r), "withdraws"),
			 "his");
		return;
	}
	m->slots[slot].brk = true;
	for (int s = 0; s < m->max_slots; s++)
		votes += m_is_player(m, s) && m->slots[s].brk;
	need = m_votes_needed(m, m->set.vp_break, votes);
	if (need > 0)
		m_bprint(m, "%s %s (%d)\n", cl->name,
			 m_red(r, sizeof(r), "votes for stopping the match"), need);
	else
		m_bprint(m, "%s %s\n", cl->name,
			 m_red(r, sizeof(r), "votes for stopping the match"));
	if (need <= 0) {
		char line[64];

		snprintf(line, sizeof(line), "%s\n",
			 m_red(r, sizeof(r), "Match stopped by majority vote"));
		m_break_match(m, line);
	}
}

static void c_toggleready(struct match *m, int slot, int argc, const char *const *argv)
{
	if (m->slots[slot].ready)
		c_break(m, slot, argc, argv);
	else
		c_ready(m, slot, argc, argv);
}

static void c_commands(struct match *m, int slot, int argc, const char *const *argv)
{
	const struct game_client *cl = &m->g->clients[slot];
	int who = cl->spectator ? MATCH_WHO_SPECTATOR : MATCH_WHO_PLAYER;
	size_t width = 0;
	char r1[M_TEXT], r2[M_TEXT], line[160];

	for (int i = 0; i < NUM_CMDS; i++)
		if (strlen(cmds[i].info.name) > width)
			width = strlen(cmds[i].info.name);
	m_sprint(m, slot, "\n%s commands for %s:\n\n", m_red(r1, sizeof(r1), "common"),
		 m_red(r2, sizeof(r2), cl->spectator ? "spectator" : "player"));
	for (int i = 0; i < NUM_CMDS; i++) {
		const struct match_command_info *c = &cmds[i].info;
		size_t n;

		if (!(c->who & who) ||
		    ((c->who & MATCH_WHO_ADMIN) && !m_is_admin(m, slot)))
			continue;
		if (argc > 1 && !strstr(c->name, argv[1]))
			continue;
		m_red(line, sizeof(line), c->name);
		n = strlen(line);
		while (n < width && n + 1 < sizeof(line))
			line[n++] = '.';
		snprintf(line + n, sizeof(line) - n, " %s\n", c->help);
		m_sprint(m, slot, "%s", line);
	}
}

static void c_about(struct match *m, int slot, int argc, const char *const *argv)
{
	char r[M_TEXT];

	(void)argc;
	(void)argv;
	m_sprint(m, slot, "\n%s\n", m_red(r, sizeof(r), "ABOUT"));
	m_sprint(m, slot, "qwd: a QuakeWorld (protocol 28) server with its game built in\n"
		 "match layer: KTX's commands, settings and texts (ready, break, modes,\n"
		 "overtime, powerups, pause), written anew in C; not KTX's code\n");
}

static void c_rules(struct match *m, int slot, int argc, const char *const *argv)
{
	char pw[8];

	(void)argc;
	(void)argv;
	if (m->set.mode == 1)
		m_sprint(m, slot, "Server is in duel mode.\n");
	else if (m->set.mode == 2)
		m_sprint(m, slot, "Server is in team mode.\n");
	else
		m_sprint(m, slot, "Server is in FFA mode.\n");
	m_powerups_word(&m->set, pw, sizeof(pw));
	m_sprint(m, slot, "deathmatch %d, teamplay %d, timelimit %d, fraglimit %d\n"
		 "overtime %d (%d min), powerups %s, discharge %s, countdown %d s\n\n",
		 m->g->deathmatch, m->g->teamplay, m_timelimit_minutes(m),
		 (int)m->g->fraglimit, m->set.overtime, m->set.exttime, pw,
		 m->set.dis ? "on" : "off", m->set.count < 3 ? 3 : m->set.count);
}

/* KTX's UserMode: the mode's settings, then its words as the matchtag */
static void c_mode(struct match *m, int slot, int argc, const char *const *argv)
{
	if (!prewar_only(m, slot))
		return;
	m_run_mode(m, m_mode_by_name(argv[0]), slot);
	m_set_matchtag(m, argc, argv);
}

static void c_ctf(struct match *m, int slot, int argc, const char *const *argv)
{
	(void)argc;
	(void)argv;
	m_sprint(m, slot, "CTF is not available: qwd's game has no flags, runes or grappling hook\n");
}

static void c_powerups(struct match *m, int slot, int argc, const char *const *argv)
{
	static const char *const which[] = {"k_pow_q", "k_pow_p", "k_pow_r", "k_pow_s"};
	static const char *const names[] = {"Quad", "Pentagram", "Ring", "Suit"};
	int *field[] = {&m->set.pow_q, &m->set.pow_p, &m->set.pow_r, &m->set.pow_s};
	char r[M_TEXT];

	if (!prewar_only(m, slot))
		return;
	if (argc > 1) {
		const char *a = argv[1];
		int k = a[0] == 'q' ? 0 : a[0] == 'p' ? 1 : a[0] == 'r' ? 2 :
			a[0] == 's' ? 3 : -1;

		if (k < 0 || a[1]) {
			m_sprint(m, slot, "powerups: give q, p, r or s (quad, pentagram, ring, suit), or nothing for all\n");
			return;
		}
		set_var(m, which[k], !*field[k]);
		m_bprint(m, "%s %s\n", m_red(r, sizeof(r), names[k]),
			 *field[k] ? "enabled" : "disabled");
		return;
	}
	set_var(m, "k_pow", !m->set.pow);
	m_bprint(m, "%s %s by %s\n", m_red(r, sizeof(r), "Powerups"),
		 m->set.pow ? "enabled" : "disabled", m->g->clients[slot].name);
}

static void c_discharge(struct match *m, int slot, int argc, const char *const *argv)
{
	char r[M_TEXT];

	(void)argc;
	(void)argv;
	if (!prewar_only(m, slot))
		return;
	set_var(m, "k_dis", !m->set.dis);
	m_bprint(m, "%s %s\n", m_red(r, sizeof(r), "Underwater discharges"),
		 m->set.dis ? "on" : "off");
}

/* KTX's ToggleRespawns (its "spawn", which here is the protocol's signon
 * command, so "spawnmodel"): the next model, 4 wraps to 0 (no -1) */
static void c_spawn(struct match *m, int slot, int argc, const char *const *argv)
{
	(void)argc;
	(void)argv;
	if (!prewar_only(m, slot))
		return;
	set_var(m, "k_spw", m->set.spw >= 4 ? 0 : m->set.spw + 1);
	m_bprint(m, "%s\n", m_spawn_model_name(m->set.spw, false));
}

/* KTX's ToggleDropPack, ToggleDropQuad, ToggleDropRing: one cvar
 * flipped in prewar, said to all */
static void drop_toggle(struct match *m, int slot, const char *var, int *value,
			const char *what)
{
	char r[M_TEXT];

	if (!prewar_only(m, slot))
		return;
	set_var(m, var, !*value);
	m_bprint(m, "%s %s\n", m_red(r, sizeof(r), what), *value ? "on" : "off");
}

static void c_droppack(struct match *m, int slot, int argc, const char *const *argv)
{
	(void)argc;
	(void)argv;
	drop_toggle(m, slot, "dp", &m->set.dp, "DropPacks");
}

static void c_dropquad(struct match *m, int slot, int argc, const char *const *argv)
{
	(void)argc;
	(void)argv;
	drop_toggle(m, slot, "dq", &m->set.dq, "DropQuad");
}

static void c_dropring(struct match *m, int slot, int argc, const char *const *argv)
{
	(void)argc;
	(void)argv;
	drop_toggle(m, slot, "dr", &m->set.dr, "DropRing");
}

/* a setting turned to its next value (0..n-1 in turn) in prewar, its
 * new meaning said to all as "Label<sep> kind" */
static void cycle_var(struct match *m, int slot, const char *var, const int *value,
		      int n, const char *label, const char *sep,
		      const char *const *kinds)
{
	char r[M_TEXT];

	if (!prewar_only(m, slot))
		return;
	set_var(m, var, (*value + 1) % n);
	m_bprint(m, "%s%s %s\n", m_red(r, sizeof(r), label), sep, kinds[*value]);
}

/* KTX's ToggleFairPacks: k_frp 0, 1, 2 in turn */
static void c_fairpacks(struct match *m, int slot, int argc, const char *const *argv)
{
	static const char *const kinds[] = {"disabled", "enabled - drop best weapon",
					    "enabled - drop last fired weapon"};

	(void)argc;
	(void)argv;
	cycle_var(m, slot, "k_frp", &m->set.frp, 3, "Fairpacks", "", kinds);
}

static void c_overtime(struct match *m, int slot, int argc, const char *const *argv)
{
	static const char *const kinds[] = {"off", "time based", "sudden death", "tie-break"};

	(void)argc;
	(void)argv;
	cycle_var(m, slot, "k_overtime", &m->set.overtime, 4, "Overtime", ":", kinds);
}

static void c_overtimeup(struct match *m, int slot, int argc, const char *const *argv)
{
	char r[M_TEXT];
	int t;

	(void)argc;
	(void)argv;
	if (!prewar_only(m, slot))
		return;
	t = m->set.exttime >= 10 ? 1 : m->set.exttime + 1;
	set_var(m, "k_exttime", t);
	m_bprint(m, "%s: %d minute%s\n", m_red(r, sizeof(r), "Overtime length"), t,
		 m_plural(t));
}

static void c_pause(struct match *m, int slot, int argc, const char *const *argv)
{
	(void)argc;
	(void)argv;
	m_pause_command(m, slot);
}

static void c_lastscores(struct match *m, int slot, int argc, const char *const *argv)
{
	const struct match_result *r = &m->last;

	(void)argc;
	(void)argv;
	if (r->num == 0) {
		m_sprint(m, slot, "No scores of a last game\n");
		return;
	}
	m_sprint(m, slot, "Last game on %s, %d:%02d:\n", r->map,
		 (int)r->duration / 60, (int)r->duration % 60);
	for (int i = 0; i < r->num; i++)
		m_sprint(m, slot, "%3d %s%s%s%s\n", r->scores[i].frags,
			 r->scores[i].name, r->scores[i].team[0] ? " [" : "",
			 r->scores[i].team, r->scores[i].team[0] ? "]" : "");
}
