/*
 * pause.c -- the pause, as MVDSV's engine gives it: the game's clock
 * stops, the world is not run, the players' moves are not run; everything
 * else (pings, chat, downloads, the signon, rcon) goes on.
 *
 * Design note
 *   Who pauses: the console and rcon (`pause`, `pause 1`, `pause 0`; MVDSV
 *   has no console command, an operator there pauses through the mod),
 *   a client's `pause` when `pausable` is set (MVDSV's Cmd_Pause_f: not a
 *   spectator, "Pause not allowed." otherwise; default 0 as MVDSV's), and
 *   the game through game_services.set_pause (KTX's trap_setpause: it
 *   prints its own words).  `sv_paused` (read-only, MVDSV's) says 1 while
 *   paused: the game reads it through its cvar service, as KTX reads
 *   cvar("sv_paused").  When the last player leaves a paused server it
 *   resumes, with MVDSV's words.
 *
 *   What a pause does (MVDSV's SV_TogglePause, SV_Frame,
 *   SV_ExecuteClientMove):
 *     the wire   svc_setpause 1 (0 when it ends) on the reliable stream
 *                of every connected client and into the demo and the QTV
 *                streams; a client entering the game meanwhile gets
 *                svc_setpause 1 and "Server is paused."
 *     the clock  the level's time (sv->time, what game_frame and every
 *                timer in the game reads: item respawns, powerups, doors
 *                and plats, the timelimit) counts only unpaused real
 *                time: sv->time_clock is the clock reading up to which it
 *                has counted, moved on at a pause and a resume, so a
 *                pause that begins or ends inside a frame takes exactly
 *                its span out, not a frame's
 *     moves      a move's checksum is checked and its last command kept
 *                (MVDSV: the others see where the player looks), its
 *                commands are not run, not checked by the speed check
 *                and not recorded (user.c); the speed check's clock
 *                (last_cmd_time) is moved on at the resume by the part of
 *                the pause since the client's last command, so the paused
 *                time is not banked into a burst
 *                (MVDSV's realtime does not run while paused, which has
 *                the same effect on its msec count)
 *     demos      the demo clock stands still: what happens meanwhile
 *                goes out at sv_demoIdlefps in 0 ms frames, the QTV
 *                streams told each frame's real length (mvd.c)
 *     the game   "kill" is refused while sv_paused says 1 (player.c, as
 *                KTX's ClientKill)
 *   A pause the game asks for inside a move that runs on a worker
 *   (qwd -threads) is replayed after that segment's moves, like every
 *   other call such a move makes (execute.c).
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void sv_pause_register(struct server *sv)
{
	sv->pausable = cvar_register(sv, "pausable", "0", 0,
				     "1: players may pause the game with the "
				     "\"pause\" command (MVDSV's; spectators never)");
	sv->sv_paused = cvar_register(sv, "sv_paused", "0", CVAR_ROM,
				      "1 while the game is paused (read-only)");
	sv_command_add(sv, "pause", sv_cmd_pause,
		       "pause [1|0]: stop or resume the game's clock and moves (none: toggle; MVDSV's pause)");
}

/* svc_setpause to every connected client and to the demo */
static void tell_pause(struct server *sv)
{
	uint8_t msg[2] = { svc_setpause, sv->paused ? 1 : 0 };

	for (int i = 0; i < sv->maxclients; i++)
		sv_reliable_write(&sv->clients[i], msg, sizeof(msg));
	sv_hooks_message(sv, -1, 0, msg, sizeof(msg));
}

bool sv_pause_set(struct server *sv, bool paused, const char *msg)
{
	double now;

	if (paused == sv->paused)
		return false;
	/* moves that arrived before the pause run before it (execute.c) */
	sv_exec_flush(sv);
	now = sv_clock(sv);
	if (paused) {
		/* the game's time up to this moment counts, the rest not */
		sv->time += now - sv->time_clock;
		sv->paused_since = now;
	} else {
		/* the speed check counts real time since a client's last
		 * command: the part of it paused is not time it could have
		 * moved in (all of the pause, or since it entered the game
		 * during it) */
		for (int i = 0; i < sv->maxclients; i++) {
			struct client *cl = &sv->clients[i];
			double from = cl->last_cmd_time > sv->paused_since
				      ? cl->last_cmd_time : sv->paused_since;

			if (cl->state == CS_SPAWNED && now > from)
				cl->last_cmd_time += now - from;
		}
	}
	sv->time_clock = now;
	sv->paused = paused;
	cvar_force(sv, sv->sv_paused, paused ? "1" : "0");
	if (msg)
		sv_broadcast_printf(sv, PRINT_HIGH, "%s", msg);
	tell_pause(sv);
	qwd_logf(&sv->log, QWD_LOG_INFO, "game %s at level time %.3f",
		 paused ? "paused" : "resumed", sv->time);
	return true;
}

void sv_pause_client(struct server *sv, struct client *cl)
{
	char line[SV_MAX_NAME + 32];

	if (sv->pausable->value == 0) {
		sv_reliable_printf(cl, PRINT_HIGH, "Pause not allowed.\n");
		return;
	}
	if (cl->spectator) {
		sv_reliable_printf(cl, PRINT_HIGH, "Spectators can not pause.\n");
		return;
	}
	snprintf(line, sizeof(line), "%s %s the game\n", cl->name,
		 sv->paused ? "unpaused" : "paused");
	sv_pause_set(sv, !sv->paused, line);
}

void sv_cmd_pause(struct server *sv, const struct net_args *a, FILE *out)
{
	const char *arg = net_args_argv(a, 1);
	bool want = !sv->paused;

	if (a->argc > 1) {
		if (!strcmp(arg, "1") || !strcasecmp(arg, "on"))
			want = true;
		else if (!strcmp(arg, "0") || !strcasecmp(arg, "off"))
			want = false;
		else {
			fprintf(out, "usage: pause [1|0] (none: toggle)\n");
			return;
		}
	}
	if (!sv->map) {
		fprintf(out, "pause: no level loaded\n");
		return;
	}
	if (!sv_pause_set(sv, want, want ? "console paused the game\n"
					 : "console unpaused the game\n")) {
		fprintf(out, "the game is already %s\n", want ? "paused" : "running");
		return;
	}
	fprintf(out, "game %s at level time %.1f\n", want ? "paused" : "resumed",
		sv->time);
}

/* MVDSV's SV_CheckTimeouts: a paused server nobody plays on resumes */
void sv_pause_upkeep(struct server *sv)
{
	if (!sv->paused)
		return;
	for (int i = 0; i < sv->maxclients; i++)
		if (sv->clients[i].state >= CS_CONNECTED && !sv->clients[i].spectator)
			return;
	sv_pause_set(sv, false, "Pause released since no players are left.\n");
}

void sv_pause_level(struct server *sv)
{
	sv->paused = false;
	cvar_force(sv, sv->sv_paused, "0");
	sv->time_clock = sv->realtime;
}
