/*
 * user.c -- what a connected client sends: every client message of
 * protocol 28 (clc_nop, clc_move, clc_stringcmd, clc_delta, clc_tmove,
 * clc_upload); the signon dialogue; string commands; chat.
 *
 * Design note
 *   A packet is parsed whole before anything in it is executed: a packet
 *   that turns out malformed anywhere (unknown clc byte, a cut-short move,
 *   a string without its terminator, a second move) is dropped entire and
 *   counted by kind, so a client's state never holds half of a bad packet.
 *   A message that is well formed but not acted on never costs the rest
 *   of its datagram: clc_tmove (three coords: ezQuake's chase camera puts
 *   its spectator where the tracked player is, in the reliable stream)
 *   moves a spectator and is ignored and counted for a player (the last
 *   one of a datagram counts, in its place among the commands and the
 *   move); clc_upload (short size, byte percent, the bytes: MVDSV's) is
 *   skipped, counted and refused ("stopul"), since qwd asks for none.
 *   These six are all a stock ezQuake 3.6 sends to a server that offers
 *   no MVD or FTE2 extension (MVDSV's clc_mvd_weapon, clc_mvd_debug and
 *   clc_voicechat need one).
 *   A move whose checksum byte fails is ignored with the rest of the
 *   packet, as stock servers do (PROTOCOL-NOTES: "a wrong checksum is
 *   silent").
 *
 *   Chat is routed as MVDSV's SV_Say does it (hears() below): "name:
 *   text" to everyone, "(name): text" to the team, "[SPEC] name: text"
 *   from a spectator to the spectators (sv_spectalk, sv_sayteam_to_spec);
 *   the demo gets a message for everyone in a record for all, the rest in
 *   a record for the players who read it.
 *
 *   Moves (clc_move): checksum byte, loss byte, three delta usercmds, the
 *   oldest from a null command.  The newest runs now; after a gap in
 *   sequence numbers the older two (and then the last command, repeated)
 *   fill it, so a lost packet does not lose movement.  A speed check keeps
 *   a client from running more game time than real time allows plus a bank
 *   of sv_speedcheck milliseconds (MVDSV: 500).  While the game is paused
 *   (pause.c) no move runs.
 *
 *   Signon, driven by the client:
 *     new -> serverdata, cdtrack, fullserverinfo
 *     soundlist/modellist <sc> <start> -> one page each
 *     prespawn <sc> <n> [checksum2] -> signon buffer n (map checked at 0)
 *     spawn <sc> <first> -> client infos in pages, lightstyles, stats
 *     begin <sc> -> in the game
 *   A command for an older spawn count (the map changed under it) restarts
 *   the client at "new", as QuakeWorld does.
 *
 *   Budgets: every string command costs a token of the client's general
 *   bucket (sv_cmdrate a second, sv_cmdburst at once: a signon, at most
 *   about 80 commands on a map of 64 signon buffers, fits in it), and
 *   setinfo, kill and download, whose cost falls on everyone else or on
 *   the disk, one of their own bucket too.  A command over budget is
 *   ignored and counted; it still costs the general bucket, which runs
 *   into debt, and a client sv_cmdkick commands in debt is dropped.  A
 *   download over budget is refused rather than ignored (the client waits
 *   for an answer before it asks for the next file).  Chat has
 *   QuakeWorld's flood protection on top (fp_messages, fp_persecond,
 *   fp_secondsdead).  Log lines a client drives (chat, downloads) go
 *   through the per-address limiter (loglimit.c).
 */
#include "core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

/* every string command a datagram can hold (a clc byte and a NUL each) */
enum { MAX_STRINGCMDS = NET_MAX_UDP_PACKET / 2 };

struct parsed {
	bool has_move;
	int tmoves;		/* clc_tmove messages; the last one's: */
	vec3_t tmove;		/* origin */
	int tmove_at;		/* string commands before it */
	bool tmove_after_move;	/* the move came before it */
	int uploads;		/* clc_upload messages, skipped */
	size_t move_start;	/* offset of the checksum byte */
	size_t move_end;
	uint8_t checksum;
	uint8_t loss;
	struct usercmd cmds[3];
	int delta;		/* -1: none */
	int num_strings;
	const char **strings;	/* server scratch, MAX_STRINGCMDS entries */
};

/* Parse the whole payload; false (and the kind counted) if malformed. */
static bool parse_packet(struct server *sv, struct msg_buf *m, struct parsed *p)
{
	static const struct usercmd nullcmd;

	p->has_move = false;
	p->tmoves = 0;
	p->uploads = 0;
	p->delta = -1;
	p->num_strings = 0;
	p->strings = sv->parse_strings;
	while (msg_read_remaining(m) > 0) {
		int c = msg_read_byte(m);

		switch (c) {
		case clc_nop:
			break;
		case clc_delta:
			p->delta = msg_read_byte(m);
			break;
		case clc_move:
			if (p->has_move) {
				sv->stats.bad[BAD_MESSAGE_BYTE]++;
				return false;	/* one move per packet */
			}
			p->has_move = true;
			p->move_start = m->readpos;
			p->checksum = (uint8_t)msg_read_byte(m);
			p->loss = (uint8_t)msg_read_byte(m);
			if (!msg_read_delta_usercmd(m, &nullcmd, &p->cmds[0]) ||
			    !msg_read_delta_usercmd(m, &p->cmds[0], &p->cmds[1]) ||
			    !msg_read_delta_usercmd(m, &p->cmds[1], &p->cmds[2])) {
				sv->stats.bad[BAD_TRUNCATED]++;
				return false;
			}
			p->move_end = m->readpos;
			break;
		case clc_stringcmd: {
			const char *s = (const char *)m->data + m->readpos;
			size_t left = msg_read_remaining(m);
			size_t n = strnlen(s, left);

			if (n == left || n >= NET_ARGS_LINE) {
				sv->stats.bad[BAD_STRING]++;
				return false;
			}
			if (p->num_strings == MAX_STRINGCMDS) {
				sv->stats.bad[BAD_STRING]++;
				return false;
			}
			p->strings[p->num_strings++] = s;
			m->readpos += n + 1;
			break;
		}
		case clc_tmove:
			/* only the last one counts: each sets the origin */
			for (int k = 0; k < 3; k++)
				p->tmove[k] = msg_read_coord(m);
			p->tmove_at = p->num_strings;
			p->tmove_after_move = p->has_move;
			p->tmoves++;
			break;
		case clc_upload: {
			/* MVDSV's layout: short size, byte percent, the bytes.
			 * qwd asks for no uploads: skipped, refused after the
			 * parse */
			int size = msg_read_short(m);

			msg_read_byte(m);
			if (size < 0 || (size_t)size > msg_read_remaining(m)) {
				sv->stats.bad[BAD_TRUNCATED]++;
				return false;
			}
			m->readpos += (size_t)size;
			p->uploads++;
			break;
		}
		default:
			sv->stats.bad[BAD_MESSAGE_BYTE]++;
			return false;
		}
		if (m->badread) {
			sv->stats.bad[BAD_TRUNCATED]++;
			return false;
		}
	}
	return true;
}

/* ---- moves ------------------------------------------------------------ */

/* The speed check: game time may not run ahead of real time by more
 * than the bank; the command recorder sees the command as the game will
 * run it. */
static struct usercmd checked_cmd(struct server *sv, struct client *cl,
				  struct usercmd cmd)
{
	if (sv->sv_speedcheck->value > 0) {
		double bank_max = sv->sv_speedcheck->value;

		cl->cmd_bank += (sv->realtime - cl->last_cmd_time) * 1000.0;
		if (cl->cmd_bank > bank_max)
			cl->cmd_bank = bank_max;
		cl->last_cmd_time = sv->realtime;
		if (cmd.msec > cl->cmd_bank)
			cmd.msec = (uint8_t)(cl->cmd_bank > 0 ? cl->cmd_bank : 0);
		cl->cmd_bank -= cmd.msec;
	}
	/* the command as the game runs it (record.c's cmdrecord) */
	sv_hooks_usercmd(sv, cl, &cmd);
	return cmd;
}

static void run_cmd(struct server *sv, struct client *cl,
		    const struct usercmd *cmd)
{
	if (sv->sched.on) {
		uint64_t t0;

		/* measured: the command's action list, and its time */
		sv_sched_cmd(sv, cl, cmd);
		t0 = sv_sched_clock();
		sv_run_game_cmd(sv, cl, cmd);
		sv_sched_cost(sv, cl, sv_sched_clock() - t0);
	} else {
		sv_run_game_cmd(sv, cl, cmd);
	}
	sv->entries[cl->slot].localtime = sv->time;
}

/* MVDSV's rewind time for a packet of cl (sv_user.c): the game time of
 * the reply the packet acknowledges, plus what the client predicts past
 * it (one physics frame at MVDSV's default sv_maxfps 77 on a ping under
 * 20 ms, else 20 ms), never past now; with sv_antilag_no_pred the reply's
 * time.  Off (no rewind) with sv_antilag 0, or when that reply is not
 * one we still know (MVDSV would read its zeroed frame: a time long
 * gone). */
void sv_antilag_aim(struct server *sv, struct client *cl)
{
	const struct client_frame *f =
		&cl->frames[cl->chan.incoming_acknowledged & UPDATE_MASK];
	double ping, t;

	cl->lag_on = sv->sv_antilag->value != 0 && f->valid &&
		     f->sequence == cl->chan.incoming_acknowledged;
	if (!cl->lag_on)
		return;
	if (sv->sv_antilag_no_pred->value != 0) {
		t = f->sv_time;
	} else {
		ping = sv->realtime - f->senttime;
		t = f->sv_time + (ping < SV_LAG_MAX_PREDICTION ?
				  1.0 / SV_LAG_PHYSFPS : SV_LAG_MAX_PREDICTION);
		if (t > sv->time)
			t = sv->time;
	}
	cl->lag_target = t;
}

static void execute_move(struct server *sv, struct client *cl,
			 const struct parsed *p, struct msg_buf *m)
{
	struct usercmd cmds[EXEC_MAX_CMDS];
	uint8_t want;
	int drop, n = 0;

	if (cl->state != CS_SPAWNED)
		return;
	want = com_block_sequence_crc_byte(m->data + p->move_start + 1,
					   p->move_end - p->move_start - 1,
					   cl->chan.incoming_sequence);
	if (want != p->checksum) {
		sv->stats.bad[BAD_CHECKSUM]++;
		cl->bad_checksums++;
		return;
	}
	cl->lossage = p->loss;
	sv->stats.requests++;
	cl->requests++;
	if (sv->paused) {
		/* MVDSV runs no move while paused, and keeps the last command
		 * (pause.c: the speed check does not count the pause) */
		cl->lastcmd = p->cmds[2];
		cl->lastcmd.buttons = 0;
		sv->entries[cl->slot].moved = true;	/* others see where it looks */
		return;
	}
	sv_antilag_aim(sv, cl);
	/* after a gap the older commands (and the last one, repeated) fill
	 * it: at most EXEC_MAX_CMDS in all */
	drop = (int)cl->chan.dropped;
	if (drop < 20) {
		while (drop > 2) {
			cmds[n++] = checked_cmd(sv, cl, cl->lastcmd);
			drop--;
		}
		if (drop > 1)
			cmds[n++] = checked_cmd(sv, cl, p->cmds[0]);
		if (drop > 0)
			cmds[n++] = checked_cmd(sv, cl, p->cmds[1]);
	}
	cmds[n++] = checked_cmd(sv, cl, p->cmds[2]);
	cl->lastcmd = p->cmds[2];
	cl->lastcmd.buttons = 0;	/* no repeated fire over lag */
	sv->entries[cl->slot].moved = true;	/* its entry is checked again */
	sv_seen_moved(sv, cl->slot);		/* and its seen cell made */
	/* on several threads the move waits for its segment (execute.c) */
	if (sv_exec_active(sv) && sv_exec_queue(sv, cl, cmds, n))
		return;
	sv_exec_flush(sv);
	game_antilag_aim(sv->game, cl->slot, cl->lag_on, cl->lag_target);
	for (int i = 0; i < n; i++)
		run_cmd(sv, cl, &cmds[i]);
	game_antilag_record(sv->game, cl->slot, sv->time);
}

/* ---- the signon ------------------------------------------------------- */

static void cmd_new(struct server *sv, struct client *cl)
{
	uint8_t buf[MAX_MSGLEN];
	struct msg_buf m;
	const struct pmove_vars *mv = &sv->movevars;

	if (cl->state == CS_SPAWNED)
		return;
	sv_client_setup(sv, cl);
	sv_hooks_client_new(sv, cl);	/* the client starts over */
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_serverdata);
	if (cl->fte) {	/* the FTE extensions in force, before the protocol */
		msg_write_long(&m, (int32_t)PROTOCOL_VERSION_FTE);
		msg_write_long(&m, (int32_t)cl->fte);
	}
	msg_write_long(&m, PROTOCOL_VERSION);
	msg_write_long(&m, sv->spawncount);
	msg_write_string(&m, sv->gamedir);
	if (cl->extended)
		msg_write_short(&m, cl->slot | (cl->spectator ? 0x8000 : 0));
	else
		msg_write_byte(&m, cl->slot | (cl->spectator ? 128 : 0));
	msg_write_string(&m, sv->levelname);
	msg_write_float(&m, mv->gravity);
	msg_write_float(&m, mv->stopspeed);
	msg_write_float(&m, mv->maxspeed);
	msg_write_float(&m, mv->spectatormaxspeed);
	msg_write_float(&m, mv->accelerate);
	msg_write_float(&m, mv->airaccelerate);
	msg_write_float(&m, mv->wateraccelerate);
	msg_write_float(&m, mv->friction);
	msg_write_float(&m, mv->waterfriction);
	msg_write_float(&m, mv->entgravity);
	msg_write_byte(&m, svc_cdtrack);
	msg_write_byte(&m, 0);
	msg_write_byte(&m, svc_stufftext);
	{
		char line[MAX_SERVERINFO_STRING + 32];

		snprintf(line, sizeof(line), "fullserverinfo \"%s\"\n", sv->serverinfo);
		msg_write_string(&m, line);
	}
	sv_reliable_write(cl, m.data, m.cursize);
	/* the client clears its level on serverdata, even in mid-game when
	 * the same packet ran "new" and then "begin" */
	sv_reliable_mark_reset(cl);
	sv_log_from(sv, &cl->chan.remote, QWD_LOG_DEBUG, "client %d: new", cl->slot);
}

static bool stale_level(struct server *sv, struct client *cl,
			const struct net_args *a, const char *what)
{
	if (atoi(net_args_argv(a, 1)) == sv->spawncount)
		return false;
	/* the level changed under the client: start it over */
	sv_log_from(sv, &cl->chan.remote, QWD_LOG_DEBUG,
		    "client %d: %s for level %s, not %d: restart",
		    cl->slot, what, net_args_argv(a, 1), sv->spawncount);
	sv->stats.bad[BAD_SIGNON]++;
	cl->state = CS_CONNECTED;
	sv_entry_sync(sv, cl);
	cmd_new(sv, cl);
	cl->restarted = true;	/* the rest of this packet is for the old level */
	return true;
}

/* soundlist and modellist: one page of names from start, then 0 and the
 * next start (0 when this page ends the list) */
static void cmd_list(struct server *sv, struct client *cl,
		     const struct net_args *a, bool models)
{
	uint8_t buf[MAX_MSGLEN];
	struct msg_buf m;
	int start = atoi(net_args_argv(a, 2));

	if (cl->state != CS_CONNECTED || stale_level(sv, cl, a, models ? "modellist" : "soundlist"))
		return;
	if (start < 0 || start > 255) {
		sv->stats.bad[BAD_SIGNON]++;
		return;
	}
	msg_init(&m, buf, sizeof(buf));
	sv_write_list_page(sv, models, start, &m);
	sv_reliable_write(cl, m.data, m.cursize);
}

static void cmd_prespawn(struct server *sv, struct client *cl,
			 const struct net_args *a)
{
	int n = atoi(net_args_argv(a, 2));

	if (cl->state != CS_CONNECTED || stale_level(sv, cl, a, "prespawn"))
		return;
	if (n < 0 || n >= sv->num_signon) {
		sv->stats.bad[BAD_SIGNON]++;
		return;
	}
	if (n == 0 && sv->sv_mapcheck->value != 0) {
		int32_t sum = (int32_t)strtoul(net_args_argv(a, 3), NULL, 10);

		if (a->argc < 4 ||
		    (sum != (int32_t)sv->map->checksum2 && sum != (int32_t)sv->map->checksum)) {
			sv_reliable_printf(cl, PRINT_HIGH,
				"Map model file does not match (maps/%s.bsp), %d != %d.\n"
				"You may need a new version of the map.\n",
				sv->mapname, sum, (int32_t)sv->map->checksum2);
			sv_drop_client(sv, cl, "map checksum mismatch");
			return;
		}
	}
	sv_reliable_write(cl, sv->signon[n], sv->signon_len[n]);
	if (n + 1 < sv->num_signon)
		sv_reliable_stufftext(cl, "cmd prespawn %d %d\n", sv->spawncount, n + 1);
	else
		sv_reliable_stufftext(cl, "cmd spawn %d 0\n", sv->spawncount);
}

static void cmd_spawn(struct server *sv, struct client *cl,
		      const struct net_args *a)
{
	int first = atoi(net_args_argv(a, 2));
	int limit = cl->extended ? sv->maxclients
				 : (sv->maxclients < MAX_CLIENTS ? sv->maxclients : MAX_CLIENTS);
	uint8_t buf[MAX_MSGLEN];
	struct msg_buf m;
	int i;

	if (cl->state != CS_CONNECTED || stale_level(sv, cl, a, "spawn"))
		return;
	if (first < 0 || first > limit) {
		sv->stats.bad[BAD_SIGNON]++;
		return;
	}
	/* the pages (and the marks below) carry every slot's state now:
	 * what was pending is sent with them, changes from here on are
	 * marked again */
	if (first == 0)
		sv_pending_clear(cl);
	/* an extension client gets every occupied slot marked, and the
	 * infos as its reliable channel has room (reliable.c), no paging */
	if (cl->extended) {
		for (i = 0; i < limit; i++)
			if (sv->clients[i].state >= CS_CONNECTED)
				sv_info_mark(cl, i);
		first = limit;
	}
	/* a stock client: every player's name, frags, ping..., a page at a
	 * time */
	for (i = first; i < limit; i++) {
		/* slots past 32 exist only in the extension, whose clients
		 * start with them empty: only the occupied ones are sent */
		if (i >= MAX_CLIENTS && sv->clients[i].state < CS_CONNECTED)
			continue;
		msg_init(&m, buf, sizeof(buf));
		sv_write_client_info(sv, cl, &sv->clients[i], &m);
		if (cl->backlog_len + m.cursize > SV_BACKLOG / 2)
			break;
		sv_reliable_write(cl, m.data, m.cursize);
	}
	if (i < limit) {
		sv_reliable_stufftext(cl, "cmd spawn %d %d\n", sv->spawncount, i);
		return;
	}
	msg_init(&m, buf, sizeof(buf));
	for (int s = 0; s < MAX_LIGHTSTYLES; s++) {
		if (m.cursize + 2 + strlen(sv->lightstyles[s]) + 1 > sizeof(buf) - 8) {
			sv_reliable_write(cl, m.data, m.cursize);
			msg_clear(&m);
		}
		msg_write_byte(&m, svc_lightstyle);
		msg_write_byte(&m, s);
		msg_write_string(&m, sv->lightstyles[s]);
	}
	sv_reliable_write(cl, m.data, m.cursize);
	memset(cl->sent_stats, 0, sizeof(cl->sent_stats));
	cl->stats[STAT_HEALTH] = 100;
	sv_reliable_stufftext(cl, "skins\n");
}

static void cmd_begin(struct server *sv, struct client *cl,
		      const struct net_args *a)
{
	if (cl->state != CS_CONNECTED || stale_level(sv, cl, a, "begin"))
		return;
	cl->state = CS_SPAWNED;
	sv_entry_sync(sv, cl);
	cl->last_cmd_time = sv->realtime;
	cl->cmd_bank = 0;
	cl->datagram_len = 0;
	sv_events_join(sv, cl);
	/* the game spawns the player, tells everyone and sets the view */
	game_client_connect(sv->game, cl->slot, cl->name, cl->spectator);
	sv_userinfo_changed(sv, cl);
	sv_grid_move(sv, cl->slot,
		     sv->objs[game_player_entity(sv->game, cl->slot)].origin);
	sv_log_from(sv, &cl->chan.remote, QWD_LOG_INFO,
		    "client %d \"%s\" entered the game", cl->slot, cl->name);
	if (sv->paused) {	/* as MVDSV tells a client entering a pause */
		static const uint8_t msg[2] = { svc_setpause, 1 };

		sv_reliable_write(cl, msg, sizeof(msg));
		sv_reliable_printf(cl, PRINT_HIGH, "Server is paused.\n");
	}
}

/* ---- command budgets -------------------------------------------------- */

static const char *const budget_names[BUDGET_KINDS] = {
	"string", "setinfo", "kill", "download"
};

/* every bucket of the client brought up to now (full when never used) */
static void budget_refill(struct server *sv, struct client *cl)
{
	for (int k = 0; k < BUDGET_KINDS; k++) {
		double burst = sv->budget_burst[k]->value;

		if (burst < 1.0)
			burst = 1.0;
		cl->budget[k] = cl->budget_time > 0
			? ratelimit_refill(cl->budget[k], cl->budget_time, sv->realtime,
					   sv->budget_rate[k]->value, burst)
			: burst;
	}
	if (sv->realtime > cl->budget_time)
		cl->budget_time = sv->realtime;
}

/* Charge one command of `kind` (and one of the general budget): true to
 * run it.  Over a budget the command is ignored and counted, the client
 * told once, and it still costs the general budget, which goes into debt:
 * a client more than sv_cmdkick commands in debt is dropped.  A budget
 * whose rate is 0 is off. */
static bool budget_charge(struct server *sv, struct client *cl, int kind)
{
	bool on_cmd = sv->budget_rate[BUDGET_CMD]->value > 0;
	bool on_kind = kind != BUDGET_CMD && sv->budget_rate[kind]->value > 0;
	int short_of;

	if (!on_cmd && !on_kind)
		return true;
	budget_refill(sv, cl);
	short_of = on_cmd && cl->budget[BUDGET_CMD] < 1.0 ? BUDGET_CMD
		 : on_kind && cl->budget[kind] < 1.0 ? kind : -1;
	if (on_cmd)
		cl->budget[BUDGET_CMD] -= 1.0;
	if (short_of < 0) {
		if (on_kind)
			cl->budget[kind] -= 1.0;
		cl->budget_told &= ~(1u << BUDGET_CMD | 1u << kind);
		return true;
	}
	cl->cmds_ignored++;
	sv->stats.cmds_ignored++;
	if (on_cmd && sv->sv_cmdkick->value > 0 &&
	    cl->budget[BUDGET_CMD] < -sv->sv_cmdkick->value) {
		char why[96];

		sv->stats.flood_drops++;
		snprintf(why, sizeof(why), "command flood (%llu commands over budget)",
			 (unsigned long long)cl->cmds_ignored);
		sv_reliable_printf(cl, PRINT_HIGH, "Dropped: too many commands.\n");
		sv_drop_client(sv, cl, why);
		return false;
	}
	if (!(cl->budget_told & 1u << short_of)) {
		cl->budget_told |= 1u << short_of;
		sv_reliable_printf(cl, PRINT_HIGH, "Too many %s commands: ignored.\n",
				   budget_names[short_of]);
	}
	return false;
}

/* QuakeWorld's chat flood protection (MVDSV's floodprot): after
 * fp_messages messages within fp_persecond seconds the next one mutes the
 * client for fp_secondsdead seconds, and it is told why; while muted it is
 * reminded at most once a second (the reminders are its own traffic). */
static bool chat_allowed(struct server *sv, struct client *cl)
{
	int n = (int)sv->fp_messages->value;
	double now = sv->realtime, oldest;

	if (n <= 0)
		return true;
	if (n > SV_FP_MAX)
		n = SV_FP_MAX;
	if (now < cl->muted_until) {
		sv->stats.says_muted++;
		if (now - cl->mute_told >= 1.0) {
			cl->mute_told = now;
			sv_reliable_printf(cl, PRINT_CHAT, "You can't talk for %d more seconds\n",
					   (int)ceil(cl->muted_until - now));
		}
		return false;
	}
	/* the n-th newest message: within the interval, this one is too many */
	oldest = cl->said[(cl->said_head - n + 1 + SV_FP_MAX) % SV_FP_MAX];
	if (oldest > 0 && now - oldest < sv->fp_persecond->value) {
		cl->muted_until = now + sv->fp_secondsdead->value;
		cl->mute_told = now;
		sv->stats.mutes++;
		sv->stats.says_muted++;
		sv_reliable_printf(cl, PRINT_CHAT, "FloodProt: You can't talk for %d seconds.\n",
				   (int)sv->fp_secondsdead->value);
		sv_log_from(sv, &cl->chan.remote, QWD_LOG_INFO,
			    "client %d \"%s\" muted for %.0f s: chat flood", cl->slot,
			    cl->name, sv->fp_secondsdead->value);
		return false;
	}
	cl->said_head = (cl->said_head + 1) % SV_FP_MAX;
	cl->said[cl->said_head] = now;
	return true;
}

/* ---- other commands --------------------------------------------------- */

/* Who hears a say or say_team, as MVDSV's SV_Say routes them: a
 * team message reaches the sender, its team's players (teamplay on; team
 * from userinfo "team") and, with sv_sayteam_to_spec, the spectators on
 * that team or tracking a player of it, but only a message holding the
 * client's "$\" mark (fake: a carriage return, what ezQuake's team binds
 * use for what may be shown); a spectator's team message reaches the
 * spectators.  A spectator's say reaches the players only with
 * sv_spectalk. */
static bool hears(const struct server *sv, const struct client *from,
		  const struct client *to, bool team, bool fake)
{
	if (!team)
		return !from->spectator || to->spectator || sv->sv_spectalk->value != 0;
	if (from->spectator)
		return to->spectator;
	if (to == from)
		return true;
	if (to->spectator) {
		const char *their = to->team;

		if (sv->sv_sayteam_to_spec->value == 0 || !fake)
			return false;
		if (to->spec_track > 0 && to->spec_track <= sv->maxclients)
			their = sv->clients[to->spec_track - 1].team;
		return strcmp(from->team, their) == 0;
	}
	return sv->teamplay->value != 0 && strcmp(from->team, to->team) == 0;
}

void sv_cmd_say(struct server *sv, struct client *cl,
		const struct net_args *a, bool team)
{
	char text[256], line[SV_MAX_NAME + 300];
	uint8_t buf[SV_MAX_NAME + 320];
	struct msg_buf m;
	const char *s = net_args_rest(a, 1);
	uint32_t mask = 0;
	bool fake;
	size_t n;

	if (!*s)
		return;
	strlcpy(text, s, sizeof(text));
	n = strlen(text);
	if (n > 2 && text[0] == '"' && text[n - 1] == '"') {
		memmove(text, text + 1, n - 2);
		text[n - 2] = '\0';
	}
	if (!chat_allowed(sv, cl))
		return;
	if (cl->spectator && (team || sv->sv_spectalk->value == 0))
		snprintf(line, sizeof(line), "[SPEC] %s: %s\n", cl->name, text);
	else if (team)
		snprintf(line, sizeof(line), "(%s): %s\n", cl->name, text);
	else
		snprintf(line, sizeof(line), "%s: %s\n", cl->name, text);
	fake = strchr(text, '\r') != NULL;
	sv_log_from(sv, &cl->chan.remote, QWD_LOG_INFO, "%.*s",
		    (int)strlen(line) - 1, line);
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_print);
	msg_write_byte(&m, PRINT_CHAT);
	msg_write_string(&m, line);
	for (int i = 0; i < sv->maxclients; i++) {
		struct client *to = &sv->clients[i];

		if (to->state != CS_SPAWNED || !hears(sv, cl, to, team, fake))
			continue;
		if (i < MAX_CLIENTS)
			mask |= 1u << i;
		sv_reliable_text(sv, to, m.data, m.cursize);
	}
	/* the demo: what everyone may read to everyone's view, the rest to
	 * the views of those who read it (MVDSV's) */
	if (!team && (!cl->spectator || sv->sv_spectalk->value != 0))
		sv_hooks_message(sv, -1, 0, m.data, m.cursize);
	else
		sv_hooks_message(sv, -1, mask, m.data, m.cursize);
}

static void cmd_setinfo(struct server *sv, struct client *cl,
			const struct net_args *a)
{
	const char *k = net_args_argv(a, 1), *v = net_args_argv(a, 2);

	if (a->argc == 1) {
		sv_reliable_printf(cl, PRINT_HIGH, "%s\n", cl->userinfo);
		return;
	}
	/* the passwords ("spectator" holds the spectator's) are read at
	 * connect only; every player is sent this userinfo, so they are
	 * never kept in it (MVDSV sends others a short userinfo without
	 * them) */
	if (a->argc != 3 || k[0] == '*' || !strcmp(k, "password") || !strcmp(k, "spectator"))
		return;
	if (info_set_value_for_key(cl->userinfo, sizeof(cl->userinfo), k, v) != INFO_OK) {
		sv_reliable_printf(cl, PRINT_HIGH, "setinfo %s refused\n", k);
		return;
	}
	sv_userinfo_changed(sv, cl);
	/* everyone who can see this slot gets its whole userinfo, once
	 * however many changes came meanwhile (reliable.c), instead of a
	 * svc_setinfo per change */
	sv_broadcast_client_info(sv, cl);
}

/* ---- spectators' part of the protocol ------------------------------- */

void sv_spectate_untrack(struct server *sv, const struct client *cl)
{
	for (int i = 0; i < sv->maxclients; i++)
		if (sv->clients[i].spec_track == cl->slot + 1)
			sv->clients[i].spec_track = 0;
}

void sv_spectate_tmove(struct server *sv, struct client *cl, const vec3_t org)
{
	if (!cl->spectator || cl->state != CS_SPAWNED) {
		sv->stats.tmoves_ignored++;
		return;
	}
	sv_exec_flush(sv);	/* the moves before it have run */
	game_spectator_move(sv->game, cl->slot, org);
	sv_grid_move(sv, cl->slot, org);
}

/* ---- dispatch --------------------------------------------------------- */

/* The budget a command of the core's is charged to besides the general
 * one (those that cost others much more than they cost the sender have
 * their own), or -1 for none at all: "drop" ends everything.  A
 * feature's commands name theirs at registration (hooks.h). */
static int command_kind(const char *c)
{
	if (!strcmp(c, "drop"))
		return -1;
	if (!strcmp(c, "setinfo"))
		return BUDGET_SETINFO;
	if (!strcmp(c, "kill"))
		return BUDGET_KILL;
	return BUDGET_CMD;
}

static void string_command(struct server *sv, struct client *cl, const char *s)
{
	struct net_args *a = &sv->cmd_args;
	const struct sv_client_command *fc;
	const char *c;
	int kind;

	if (net_args_tokenize(a, s) <= 0)
		return;
	c = net_args_argv(a, 0);
	fc = sv_client_command_find(sv, c);
	kind = fc ? fc->budget : command_kind(c);
	if (kind >= 0 && !budget_charge(sv, cl, kind)) {
		if (fc && fc->refused && cl->state >= CS_CONNECTED)
			fc->refused(sv, cl, a);
		return;
	}
	if (fc) {	/* a feature's (downloads) or the spectators' */
		fc->fn(sv, cl, a);
		return;
	}
	if (!strcmp(c, "new"))
		cmd_new(sv, cl);
	else if (!strcmp(c, "soundlist"))
		cmd_list(sv, cl, a, false);
	else if (!strcmp(c, "modellist"))
		cmd_list(sv, cl, a, true);
	else if (!strcmp(c, "prespawn"))
		cmd_prespawn(sv, cl, a);
	else if (!strcmp(c, "spawn"))
		cmd_spawn(sv, cl, a);
	else if (!strcmp(c, "begin"))
		cmd_begin(sv, cl, a);
	else if (!strcmp(c, "drop"))
		sv_drop_client(sv, cl, "disconnected");
	else if (!strcmp(c, "say"))
		sv_cmd_say(sv, cl, a, false);
	else if (!strcmp(c, "say_team"))
		sv_cmd_say(sv, cl, a, true);
	else if (!strcmp(c, "setinfo"))
		cmd_setinfo(sv, cl, a);
	else if (!strcmp(c, "pings"))
		sv_send_pings(sv, cl);
	else if (!strcmp(c, "pause"))
		sv_pause_client(sv, cl);
	else if (!strcmp(c, "serverinfo"))
		sv_reliable_printf(cl, PRINT_HIGH, "%s\n", sv->serverinfo);
	else if (!strcmp(c, "info")) {
		int slot = atoi(net_args_argv(a, 1));

		if (slot >= 0 && slot < sv->maxclients &&
		    sv->clients[slot].state >= CS_CONNECTED)
			sv_reliable_printf(cl, PRINT_HIGH, "%s\n", sv->clients[slot].userinfo);
	} else if (!strcmp(c, "kill")) {
		if (cl->state == CS_SPAWNED)
			game_client_kill(sv->game, cl->slot);
	} else
		sv_reliable_printf(cl, PRINT_HIGH, "Bad user command: %s\n", c);
}

/* The datagram's last clc_tmove (each sets the origin, so the earlier
 * ones are superseded); a player's are ignored, every one counted. */
static void apply_tmove(struct server *sv, struct client *cl,
			const struct parsed *p)
{
	if (!cl->spectator)
		sv->stats.tmoves_ignored += (uint64_t)(p->tmoves - 1);
	sv_spectate_tmove(sv, cl, p->tmove);
}

/* An upload nobody asked for (MVDSV takes one only after its own
 * request): the client is told to stop, once per packet, at the cost of
 * a command of its budget, so a stream of them costs what commands do. */
static void refuse_upload(struct server *sv, struct client *cl, int count)
{
	sv->stats.uploads_refused += (uint64_t)count;
	if (!budget_charge(sv, cl, BUDGET_CMD))
		return;
	sv_reliable_printf(cl, PRINT_HIGH, "Upload denied\n");
	sv_reliable_stufftext(cl, "stopul\n");
}

void sv_client_packet(struct server *sv, struct client *cl, struct msg_buf *m)
{
	struct parsed p;
	struct client_frame *f;

	/* ping: the reply to the frame this packet acknowledges came back */
	f = &cl->frames[cl->chan.incoming_acknowledged & UPDATE_MASK];
	if (f->valid && f->ping_time < 0)
		f->ping_time = (float)(sv->realtime - f->senttime);

	if (!parse_packet(sv, m, &p))
		return;
	/* the reply carries the request's sequence, so the client's delta
	 * byte names our frame; a request older than the last reply gets none */
	if (cl->chan.incoming_sequence >= cl->chan.outgoing_sequence) {
		cl->chan.outgoing_sequence = cl->chan.incoming_sequence;
		if (!cl->send_reply)
			cl->request_ns = sv->batch_ns;	/* the oldest waiting */
		cl->send_reply = true;
		sv_mark_due(cl);
	}
	prof_switch(sv->prof, PROF_EXECUTE);
	cl->delta_sequence = p.delta;
	cl->restarted = false;
	/* a string command sees the moves that came before it */
	if (p.num_strings > 0)
		sv_exec_flush(sv);
	for (int i = 0; i <= p.num_strings && cl->state >= CS_CONNECTED &&
			!cl->restarted; i++) {
		/* the spectator's origin, in its place among the commands
		 * (a player's is ignored and counted) */
		if (p.tmoves && !p.tmove_after_move && p.tmove_at == i)
			apply_tmove(sv, cl, &p);
		if (i < p.num_strings)
			string_command(sv, cl, p.strings[i]);
	}
	if (cl->restarted || cl->state < CS_CONNECTED)
		return;
	if (p.uploads)
		refuse_upload(sv, cl, p.uploads);
	if (p.has_move && cl->state == CS_SPAWNED)
		execute_move(sv, cl, &p, m);
	/* a tmove after the move in the datagram places the spectator after
	 * it, as a server reading in order does (ezQuake sends it first, in
	 * the reliable part) */
	if (p.tmoves && p.tmove_after_move)
		apply_tmove(sv, cl, &p);
	prof_switch(sv->prof, PROF_RECEIVE);
}

/* ---- userinfo and client lifetime ------------------------------------- */

void sv_userinfo_changed(struct server *sv, struct client *cl)
{
	char name[SV_MAX_NAME];

	info_value_for_key(cl->userinfo, "name", name, sizeof(name));
	/* names are shown to everyone: no control characters, not empty */
	for (char *p = name; *p; p++)
		if ((unsigned char)*p < 32)
			*p = '?';
	if (!name[0])
		strlcpy(name, "unnamed", sizeof(name));
	strlcpy(cl->name, name, sizeof(cl->name));
	info_value_for_key(cl->userinfo, "team", cl->team, sizeof(cl->team));
	if (cl->state == CS_SPAWNED) {
		char team[16];

		info_value_for_key(cl->userinfo, "team", team, sizeof(team));
		game_client_userinfo(sv->game, cl->slot, cl->name, team,
				     sv_client_color(cl, "bottomcolor"));
	}
	sv_hooks_userinfo(sv, cl);	/* its rates (transfer.c) */
}

int sv_client_color(const struct client *cl, const char *key)
{
	char v[16];
	int c;

	info_value_for_key(cl->userinfo, key, v, sizeof(v));
	c = atoi(v);
	return c < 0 ? 0 : c > 16 ? 16 : c;
}

void sv_client_setup(struct server *sv, struct client *cl)
{
	cl->delta_sequence = -1;
	cl->spawncount = sv->spawncount;
	memset(cl->frames, 0, sizeof(cl->frames));
	memset(cl->stats, 0, sizeof(cl->stats));
	memset(cl->sent_stats, 0, sizeof(cl->sent_stats));
}

void sv_drop_client(struct server *sv, struct client *cl, const char *why)
{
	uint8_t pkt[NETCHAN_MAX_PACKET];
	uint8_t disc = svc_disconnect;
	size_t n;

	if (cl->state < CS_CONNECTED)
		return;
	sv_exec_flush(sv);	/* the moves before the drop run first */
	if (why)
		qwd_logf(&sv->log, QWD_LOG_INFO, "client %d \"%s\" dropped: %s",
			 cl->slot, cl->name, why);
	/* tell the client (one unreliable svc_disconnect, with any reliable
	 * data still queued, such as a kick message) */
	n = netchan_transmit(&cl->chan, &disc, 1, sv->realtime, pkt, sizeof(pkt));
	if (n)
		sv_send_raw(sv, &cl->chan.remote, pkt, n);
	/* the game tells everyone (with the frags) and frees the body */
	if (cl->state == CS_SPAWNED)
		game_client_disconnect(sv->game, cl->slot);
	sv_grid_remove(sv, cl->slot);
	sv_hooks_client_drop(sv, cl);	/* its download ends (transfer.c) */
	sv_spectate_untrack(sv, cl);
	cl->spec_track = 0;
	cl->state = CS_ZOMBIE;
	sv_entry_sync(sv, cl);
	cl->zombie_until = sv->realtime + sv->sv_zombietime->value;
	cl->userinfo[0] = '\0';
	cl->name[0] = '\0';
	cl->frags = 0;
	sv->stats.drops++;
	sv_rehash_clients(sv);
	/* everyone learns that the slot is empty */
	sv_broadcast_client_info(sv, cl);
}
