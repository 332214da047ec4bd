/*
 * spectate.c -- spectators as MVDSV keeps them: slots of their own and a
 * password of their own, ptrack, join and observe.
 *
 * Design note
 *   Connect.  A client whose userinfo has "spectator" set (not "0")
 *   comes in as a spectator.  The value is MVDSV's spectator password:
 *   with spectator_password set (and not "none") it must equal it, and a
 *   spectator needs no player password; a player must give "password"
 *   when password is set.  Both keys leave the userinfo, and a spectator's
 *   gets "*spectator" "1", which clients read to list it apart on the
 *   scoreboard.  "*z_ext" (what the client supports) leaves it too.
 *
 *   Slots.  maxclients bounds the players and maxspectators (0..32) the
 *   spectators, each counted apart: spectators no longer take players'
 *   slots.  The server has maxclients + SV_SPECTATOR_SLOTS slots in all
 *   (frame.c), so a full game still has room for its spectators; a stock
 *   client of either kind still needs one of the 32 slots protocol 28 can
 *   number, as in MVDSV, whose two limits share those 32.
 *
 *   Tracking.  "ptrack N" makes a spectator follow player N (spec_track
 *   = N + 1), "ptrack" alone stops it; ezQuake sends them from its
 *   camera (track, autotrack, the mouse buttons).  A tracking spectator
 *   gets the tracked player's stats (health, armour, ammo, weapon,
 *   items, weapon frame: its status bar is the player's), the player's
 *   entry whatever its PVS says, with the weapon frame (send.c), and its
 *   camera moves the spectator's origin with clc_tmove, so the PVS its
 *   replies are filtered by is where the player is.  A player who leaves
 *   or changes side is tracked by nobody.  (clc_tmove is read and
 *   applied with the rest of the client's packet, in user.c; the counts of
 *   each side, maxspectators and the slot a client views are io.c's, for
 *   every layer.)
 *
 *   Sides.  "join" and "observe" turn a spectator into a player and back
 *   without a reconnect, for clients that say they can ("*z_ext" with
 *   Z_EXT_JOIN_OBSERVE; the serverinfo offers it, so ezQuake sends them
 *   for its own join/observe commands), within the limits of the side it
 *   goes to, and not with a password that side needs (the client must
 *   reconnect with it), nor in its first 5 seconds: MVDSV's rules and
 *   words.
 *
 *   In the core above user.c (core.h): ptrack, join and observe are
 *   registered in the client command table at start-up, and a side change
 *   runs the userinfo's consequences (user.c).
 */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <bsd/string.h>

/* a join or observe may come this long after the connect or the last
 * change of side (MVDSV's) */
static const double SIDE_WAIT = 5.0;

/* a password cvar that asks for one ("none" is MVDSV's word for none) */
static bool password_set(const struct cvar *c)
{
	return c->string[0] && strcasecmp(c->string, "none") != 0;
}

bool sv_spectate_admit(struct server *sv, char *userinfo, size_t size,
		       bool *spectator, char *why, size_t whylen)
{
	char value[MAX_INFO_STRING];

	*spectator = info_value_for_key(userinfo, "spectator", value, sizeof(value)) &&
		     value[0] && strcmp(value, "0") != 0;
	if (*spectator) {
		if (password_set(sv->spectator_password) &&
		    !net_secure_equal(sv->spectator_password->string, value)) {
			strlcpy(why, "requires a spectator password", whylen);
			return false;
		}
	} else if (password_set(sv->password) &&
		   (!info_value_for_key(userinfo, "password", value, sizeof(value)) ||
		    !net_secure_equal(sv->password->string, value))) {
		strlcpy(why, "bad password", whylen);
		return false;
	}
	info_remove_key(userinfo, "password");
	info_remove_key(userinfo, "spectator");
	info_remove_key(userinfo, "*z_ext");
	info_remove_key(userinfo, "*spectator");	/* the server's word only */
	if (*spectator &&
	    info_set_star_value_for_key(userinfo, size, "*spectator", "1") != INFO_OK) {
		strlcpy(why, "userinfo too long", whylen);
		return false;
	}
	return true;
}

static void cmd_ptrack(struct server *sv, struct client *cl,
		       const struct net_args *a)
{
	int i;

	if (!cl->spectator)
		return;
	if (a->argc != 2) {
		cl->spec_track = 0;
		return;
	}
	i = atoi(net_args_argv(a, 1));
	if (i < 0 || i >= sv->maxclients || sv->clients[i].state != CS_SPAWNED ||
	    sv->clients[i].spectator) {
		sv_reliable_printf(cl, PRINT_HIGH, "Invalid client to track\n");
		cl->spec_track = 0;
		return;
	}
	cl->spec_track = i + 1;
}

/* The client leaves the game on one side and enters on the other, in
 * the same slot, as if it had reconnected: frags from 0, the scoreboard
 * told (with "*spectator"), the game's spawn. */
static void change_side(struct server *sv, struct client *cl, bool spectator)
{
	sv_exec_flush(sv);
	sv_spectate_untrack(sv, cl);
	game_client_disconnect(sv->game, cl->slot);
	cl->spectator = spectator;
	sv_entry_sync(sv, cl);
	cl->spec_track = 0;
	cl->connect_time = sv->realtime;
	if (spectator)
		info_set_star_value_for_key(cl->userinfo, sizeof(cl->userinfo),
					    "*spectator", "1");
	else
		info_remove_key(cl->userinfo, "*spectator");
	game_client_connect(sv->game, cl->slot, cl->name, spectator);
	sv_userinfo_changed(sv, cl);
	sv_grid_move(sv, cl->slot,
		     sv->objs[game_player_entity(sv->game, cl->slot)].origin);
	sv_broadcast_client_info(sv, cl);
	sv_log_from(sv, &cl->chan.remote, QWD_LOG_INFO, "client %d \"%s\" %s",
		    cl->slot, cl->name, spectator ? "observes" : "joins the game");
}

/* what join and observe ask before a change of side; false: refused,
 * and the client told why */
static bool side_allowed(struct server *sv, struct client *cl, bool spectator)
{
	const char *side = spectator ? "spectator" : "player";
	double since = sv->realtime - cl->connect_time;

	if (!(cl->z_ext & Z_EXT_JOIN_OBSERVE)) {
		sv_reliable_printf(cl, PRINT_HIGH,
				   "Your QW client doesn't support this command\n");
		return false;
	}
	if (password_set(spectator ? sv->spectator_password : sv->password)) {
		sv_reliable_printf(cl, PRINT_HIGH,
				   "This server requires a %s password. Please disconnect, "
				   "set the password and reconnect as %s.\n", side, side);
		return false;
	}
	if (since < SIDE_WAIT) {
		sv_reliable_printf(cl, PRINT_HIGH, "Wait %d seconds\n",
				   (int)(SIDE_WAIT - since));
		return false;
	}
	if (spectator && sv_count_clients(sv, true) >= sv_spectator_limit(sv)) {
		sv_reliable_printf(cl, PRINT_HIGH,
				   "Can't join, all spectator/vip slots full\n");
		return false;
	}
	if (!spectator && sv_count_clients(sv, false) >= sv->max_players) {
		sv_reliable_printf(cl, PRINT_HIGH, "Can't join, all player slots full\n");
		return false;
	}
	return true;
}

/* "join" and "observe" */
static void cmd_side(struct server *sv, struct client *cl,
		     const struct net_args *a)
{
	bool to_spectator = net_args_argv(a, 0)[0] == 'o';

	if (cl->state != CS_SPAWNED || cl->spectator == to_spectator)
		return;
	if (side_allowed(sv, cl, to_spectator))
		change_side(sv, cl, to_spectator);
}

void sv_spectate_init(struct server *sv)
{
	char z[16];

	sv->maxspectators = cvar_register(sv, "maxspectators", "8", CVAR_SERVERINFO,
					  "spectators at most (0-32), beside "
					  "maxclients' players");
	sv->spectator_password = cvar_register(sv, "spectator_password", "",
					       CVAR_SECRET,
					       "what a spectator's \"spectator\" "
					       "userinfo key must hold (empty or "
					       "\"none\": open)");
	sv->sv_spectalk = cvar_register(sv, "sv_spectalk", "1", 0,
					"1: spectators' say reaches the players; "
					"0: the spectators only");
	sv->sv_sayteam_to_spec = cvar_register(sv, "sv_sayteam_to_spec", "1", 0,
					       "1: a player's say_team holding a "
					       "$\\ reaches the spectators of its "
					       "team or tracking it");
	sv_client_command_add(sv, "ptrack", cmd_ptrack, BUDGET_CMD);
	sv_client_command_add(sv, "join", cmd_side, BUDGET_CMD);
	sv_client_command_add(sv, "observe", cmd_side, BUDGET_CMD);
	snprintf(z, sizeof(z), "%d", Z_EXT_JOIN_OBSERVE);
	info_set_star_value_for_key(sv->serverinfo, sizeof(sv->serverinfo), "*z_ext", z);
}
