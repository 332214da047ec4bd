/*
 * compat.c -- the MVDSV and KTX settings an operator's server.cfg brings
 * along, and what qwd does with each.
 *
 * Design note
 *   An operator moving from MVDSV keeps their server.cfg.  Every line of
 *   it that qwd understands runs as it is (the cvars and commands of the
 *   same name: hostname, maxclients, timeout, rcon_password, sv_maxrate,
 *   fraglimit, ...).  A line naming something MVDSV or KTX has and qwd
 *   does not use is not an error: the config goes on, and the console
 *   says once per name (not once per line: a config may set it several
 *   times) what qwd does instead, so the operator learns the difference
 *   without a wall of repeats.  Anything else is an unknown command, as
 *   before.  This table is the one owner of those names and reasons;
 *   docs/operators.md ("Moving from MVDSV") lists the same.
 *   A name qwd implements is found before this table is consulted, so a
 *   setting that gains an implementation simply leaves the table's reach
 *   (the match layer's k_* cvars, match.c, did so).
 */
#include "compat.h"
#include "features.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct compat_entry {
	const char *name;
	bool prefix;		/* every name starting with it (k_*: KTX) */
	const char *why;
};

static const struct compat_entry compat[] = {
	/* the frame and the process */
	{"sv_maxtic", false, "qwd does not cap a physics step: a step is the time since the last"},
	{"maxfps", false, "qwd runs a frame per wakeup; see sys_ticrate"},
	{"sys_select_timeout", false, "qwd's frame waits for packets or the next game event"},
	{"sv_idlesleep", false, "qwd sleeps in select until a packet or a game event"},
	{"sys_restart_on_error", false, "use the service manager (deploy/qwd@.service: Restart=on-failure)"},
	{"sys_command_line", false, "read-only in MVDSV; qwd logs its command line at start"},
	{"developer", false, "qwd's log levels are fixed; the console shows INFO and above"},
	{"hostport", false, "give the port on the command line: -port N"},
	{"sv_serverip", false, "give the address on the command line: -ip ADDR"},
	{"sv_use_dns", false, "qwd never resolves client addresses"},
	{"sv_getrealip", false, "qwd has no real-IP proxy protocol"},
	{"telnet_log_level", false, "qwd has no telnet console; use rcon"},
	/* the game: qwd's deathmatch is built in, there is no QuakeC; its
	 * match layer (match.c, docs/match.md) registers the KTX settings it
	 * has, so they are found before this table: these are the others */
	{"k_", true, "a KTX setting qwd's match layer does not have (docs/match.md lists those it has)"},
	{"sv_progtype", false, "qwd runs no QuakeC: its game is built in"},
	{"sv_progsname", false, "qwd runs no QuakeC: its game is built in"},
	{"sv_loadentfiles", false, "qwd reads entities from the map only"},
	{"sv_loadentfiles_dir", false, "qwd reads entities from the map only"},
	{"sv_mod_msg_file", false, "qwd's frag messages are built in"},
	{"skill", false, "qwd has no monsters"},
	{"coop", false, "qwd plays deathmatch only"},
	{"watervis", false, "qwd sends what the PVS shows"},
	{"sv_phs", false, "qwd always filters sounds by the PHS"},
	{"registered", false, "read-only in MVDSV"},
	{"sv_bspversion", false, "qwd loads BSP29, BSP2 and 2PSB maps as they come"},
	{"sv_bigcoords", false, "protocol 28's coordinates only"},
	{"halflifebsp", false, "qwd loads Quake maps only"},
	/* players and spectators */
	{"maxvip_spectators", false, "qwd has no VIP spectators"},
	{"vip_password", false, "qwd has no VIP spectators"},
	{"vip_values", false, "qwd has no VIP spectators"},
	{"sv_forcespec_onfull", false, "a full server refuses the connect"},
	{"sv_forcenick", false, "qwd has no name registration"},
	{"sv_registrationinfo", false, "qwd has no name registration"},
	{"sv_default_name", false, "a client without a name is called \"unnamed\""},
	{"sv_specprint", false, "qwd's spectators see every print"},
	{"sv_reconnectlimit", false, "see sv_maxclientsperip and the connect budget (docs/security.md)"},
	{"sv_kicktop", false, "qwd never kicks for the top of the screen"},
	{"sv_allowlastscores", false, "qwd keeps no last scores"},
	{"sv_admininfo", false, "qwd has no admin login"},
	{"sv_unfake", false, "qwd has no unfake"},
	{"sv_highchars", false, "qwd passes names as they come, control characters removed"},
	{"sv_reliable_sound", false, "qwd sends sounds unreliably, as QuakeWorld does"},
	{"sv_hashpasswords", false, "qwd has no password hashing for logins"},
	/* the network and downloads */
	{"sv_rconlim", false, "see sv_oob_rcon, the rcon budget (docs/security.md)"},
	{"qconsole_log_say", false, "chat goes to the log with the rest"},
	{"allow_download_skins", false, "allow_download covers skins/"},
	{"allow_download_models", false, "allow_download covers progs/"},
	{"allow_download_sounds", false, "allow_download covers sound/"},
	{"allow_download_maps", false, "allow_download covers maps/"},
	{"allow_download_pakmaps", false, "qwd reads no pak files"},
	{"allow_download_other", false, "qwd serves maps/, progs/, sound/, skins/ and demos/ only"},
	{"download_map_url", false, "qwd serves maps itself"},
	{"sv_broadcast_enabled", false, "qwd has no server-to-server broadcast"},
	{"sv_broadcast_sender_validation_enabled", false, "qwd has no server-to-server broadcast"},
	{"pext_ezquake_verfortrans", false, "qwd speaks protocol 28 and its own QWDX"},
	{"countrycode", false, "not sent to masters by qwd"},
	{"city", false, "not sent to masters by qwd"},
	{"coords", false, "not sent to masters by qwd"},
	/* demos and QTV: what qwd's demos (docs/demos.md) leave out */
	{"sv_demotxt", false, "qwd writes no .txt beside a demo"},
	{"sv_demoExtraNames", false, "easyrecord names teams, not their players"},
	{"sv_demoPrefix", false, "a demo's name is the command's, cleaned"},
	{"sv_demoSuffix", false, "a demo's name is the command's, cleaned"},
	{"sv_demoRegexp", false, "demolist lists the .mvd files of sv_demoDir"},
	{"sv_demoDirAlt", false, "one demo folder: sv_demoDir"},
	{"sv_demoUseCache", false, "qwd buffers demo files itself"},
	{"sv_onrecordfinish", false, "qwd runs no scripts"},
	{"sv_ondemoremove", false, "qwd runs no scripts"},
	{"qtv_sayenabled", false, "what QTV viewers say is not relayed"},
	{"rmdemonum", false, "use rmdemo NAME"},
	{"sv_demonumremove", false, "use rmdemo NAME"},
	/* commands */
	{"localinfo", false, "qwd has no localinfo: its game is built in"},
	{"gamedir", false, "give the game folder on the command line: -game DIR"},
	{"sv_gamedir", false, "give the game folder on the command line: -game DIR"},
	{"floodprotmsg", false, "qwd's flood message is fixed"},
	{"localcommand", false, "qwd runs no shell commands"},
	{"master_rcon_password", false, "qwd has no master rcon"},
	{"updatebroadcasts", false, "qwd has no server-to-server broadcast"},
	{"devmap", false, "use map"},
	{"restart", false, "use map with the current map's name"},
	{"snap", false, "qwd has no screenshot requests"},
	{"snapall", false, "qwd has no screenshot requests"},
	{"check_maps", false, "maps are checked by the loader at map"},
	{"nslookup", false, "qwd never resolves client addresses"},
	{"mute", false, "chat flood protection is automatic (fp_*)"},
	{"cuff", false, "qwd has no cuffs"},
	{"penaltylist", false, "qwd keeps no penalties"},
	{"penaltyremove", false, "qwd keeps no penalties"},
	{"ls", false, "qwd has no file commands"},
	{"rm", false, "qwd has no file commands"},
	{"rmdir", false, "qwd has no file commands"},
	{"chmod", false, "qwd has no file commands"},
	{"save", false, "qwd does not save games"},
	{"load", false, "qwd does not save games"},
	{"god", false, "no cheats on a dedicated server"},
	{"give", false, "no cheats on a dedicated server"},
	{"noclip", false, "no cheats on a dedicated server"},
};

enum { COMPAT_COUNT = sizeof(compat) / sizeof(compat[0]) };
_Static_assert(COMPAT_COUNT <= 64 * SV_COMPAT_WORDS,
	       "server.compat_said has a bit for every entry");

static int compat_find(const char *name)
{
	for (int i = 0; i < COMPAT_COUNT; i++) {
		const struct compat_entry *e = &compat[i];

		if (e->prefix ? strncasecmp(name, e->name, strlen(e->name)) == 0
			      : strcasecmp(name, e->name) == 0)
			return i;
	}
	return -1;
}

bool sv_compat_ignore(struct server *sv, const char *name, FILE *out)
{
	int i = compat_find(name);
	uint64_t bit;

	if (i < 0)
		return false;
	bit = 1ull << (i % 64);
	if (!(sv->compat->said[i / 64] & bit)) {
		sv->compat->said[i / 64] |= bit;
		if (compat[i].prefix)
			fprintf(out, "\"%s\": not used by qwd (%s); said once for every %s*\n",
				name, compat[i].why, compat[i].name);
		else
			fprintf(out, "\"%s\": MVDSV's, not used by qwd (%s); said once\n",
				name, compat[i].why);
	}
	return true;
}

/* "floodprot MESSAGES SECONDS SILENCE": MVDSV's one command for what qwd
 * keeps in three cvars (fp_messages, fp_persecond, fp_secondsdead) */
void sv_cmd_floodprot(struct server *sv, const struct net_args *a, FILE *out)
{
	static const char *const names[3] = {"fp_messages", "fp_persecond",
					      "fp_secondsdead"};

	if (a->argc == 1) {
		fprintf(out, "floodprot: %s messages in %s s, then %s s of silence\n",
			cvar_get(sv, names[0])->string, cvar_get(sv, names[1])->string,
			cvar_get(sv, names[2])->string);
		return;
	}
	if (a->argc != 4) {
		fprintf(out, "usage: floodprot MESSAGES SECONDS SILENCE (0 0 0: off)\n");
		return;
	}
	for (int k = 0; k < 3; k++)
		cvar_set(sv, names[k], net_args_argv(a, k + 1));
}

static void compat_free(struct server *sv)
{
	free(sv->compat);
	sv->compat = NULL;
}

static const struct sv_feature compat_feature = {
	.name = "compat",
	.unknown = sv_compat_ignore,
	.free = compat_free,
};

int sv_compat_register(struct server *sv)
{
	sv->compat = calloc(1, sizeof(*sv->compat));
	if (!sv->compat)
		return -1;
	sv_command_add(sv, "floodprot", sv_cmd_floodprot,
		       "floodprot MESSAGES SECONDS SILENCE: MVDSV's chat flood protection (the fp_* cvars)");
	sv_feature_add(sv, &compat_feature);
	return 0;
}
