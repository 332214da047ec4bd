/*
 * console.c -- the operator's commands on the server's state: map, status,
 * kick, say, serverinfo, quit, capture.
 *
 * Design note
 *   A feature (hooks.h): it registers its commands with the console's
 *   table (cvar.c owns the table, "set", "exec" and "help"; each other
 *   feature registers its own).  What these read and do is the core's:
 *   the clients, the level change (map.c), the defences' counters.
 *   Output goes to the FILE the caller gives (stdout, or rcon's buffer).
 */
#include "core.h"
#include "features.h"

#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

/* ---- commands ---------------------------------------------------------- */

static void c_map(struct server *sv, const struct net_args *a, FILE *out)
{
	char err[512];

	if (a->argc < 2) {
		fprintf(out, "map: %s\n", sv->mapname);
		return;
	}
	if (server_map(sv, net_args_argv(a, 1), err, sizeof(err)) != 0) {
		fprintf(out, "map refused, staying on %s: %s\n", sv->mapname, err);
		qwd_logf(&sv->log, QWD_LOG_WARN, "map refused: %s", err);
	}
}

static void c_status(struct server *sv, const struct net_args *a, FILE *out)
{
	(void)a;
	fprintf(out, "map      %s\nplayers  %d of %d, spectators %d of %d\n",
		sv->mapname, sv_count_clients(sv, false), sv->max_players,
		sv_count_clients(sv, true), sv_spectator_limit(sv));
	fprintf(out, "network  %s; %llu waits, %llu io_uring enters, %llu "
		"receive and %llu send calls\n", sv->net_why,
		(unsigned long long)sv->net.wait_calls,
		(unsigned long long)sv->net.enter_calls,
		(unsigned long long)sv->net.recv_calls,
		(unsigned long long)sv->net.send_calls);
	fprintf(out, "load     %.0f%% (sv_maxload %.0f%%)\n",
		100.0 * sv->load, 100.0 * sv->sv_maxload->value);
	fprintf(out, "uptime   %.0f s\nrequests %llu, replies %llu, chokes %llu, "
		"entity lists cut %llu, prints dropped %llu\n",
		sv->realtime - sv->start_time,
		(unsigned long long)sv->stats.requests,
		(unsigned long long)sv->stats.replies,
		(unsigned long long)sv->stats.chokes,
		(unsigned long long)sv->stats.entity_cuts,
		(unsigned long long)sv->stats.prints_dropped);
	fprintf(out, "connectionless (answered/over budget):");
	for (int k = 0; k < OOB_KINDS; k++)
		fprintf(out, " %s %llu/%llu", sv_oob_kind_name(k),
			(unsigned long long)sv->stats.oob_answered[k],
			(unsigned long long)sv->stats.oob_limited[k]);
	fprintf(out, "\n");
	{
		char line[768];

		sv_defence_counts(sv, line, sizeof(line));
		fprintf(out, "defences: %s\n", line);
	}
	fprintf(out, "slot userid name             address                state     ping\n");
	for (int i = 0; i < sv->maxclients; i++) {
		const struct client *cl = &sv->clients[i];
		static const char *const states[] = {"free", "zombie", "signon", "in game"};
		char addr[NET_ADDR_STRLEN];

		if (cl->state < CS_CONNECTED)
			continue;
		fprintf(out, "%4d %6d %-16.16s %-22s %-9s %4d%s", i, cl->userid,
			cl->name, net_addr_format(&cl->chan.remote, addr),
			states[cl->state], sv_client_ping(cl),
			cl->extended ? " QWDX" : "");
		if (cl->state == CS_SPAWNED) {
			const float *o = sv->objs[sv_player_entity(sv, i)].origin;

			fprintf(out, " at %.0f %.0f %.0f", o[0], o[1], o[2]);
		}
		/* a spectator: whom it tracks, and the stats it was last sent
		 * (the tracked player's) */
		if (cl->spectator && cl->spec_track > 0)
			fprintf(out, " spectator tracking %d (health %d, armor %d, ammo %d)",
				cl->spec_track - 1, cl->sent_stats[STAT_HEALTH],
				cl->sent_stats[STAT_ARMOR], cl->sent_stats[STAT_AMMO]);
		else if (cl->spectator)
			fprintf(out, " spectator");
		fprintf(out, "\n");
	}
}

static struct client *find_client(struct server *sv, const char *who)
{
	char *end;
	long id = strtol(who, &end, 10);

	for (int i = 0; i < sv->maxclients; i++) {
		struct client *cl = &sv->clients[i];

		if (cl->state < CS_CONNECTED)
			continue;
		if ((*end == '\0' && cl->userid == id) || strcmp(cl->name, who) == 0)
			return cl;
	}
	return NULL;
}

static void c_kick(struct server *sv, const struct net_args *a, FILE *out)
{
	struct client *cl = find_client(sv, net_args_argv(a, 1));

	if (!cl) {
		fprintf(out, "kick: no player \"%s\" (give a userid or a name)\n",
			net_args_argv(a, 1));
		return;
	}
	sv_reliable_printf(cl, PRINT_HIGH, "You were kicked from the game\n");
	fprintf(out, "kicked %s\n", cl->name);
	sv_drop_client(sv, cl, "kicked");
}

static void c_say(struct server *sv, const struct net_args *a, FILE *out)
{
	(void)out;
	sv_broadcast_printf(sv, PRINT_CHAT, "console: %s\n", net_args_rest(a, 1));
	qwd_logf(&sv->log, QWD_LOG_INFO, "console: %s", net_args_rest(a, 1));
}

static void c_serverinfo(struct server *sv, const struct net_args *a, FILE *out)
{
	struct info_iter it;
	struct info_pair p;

	(void)a;
	info_iter_init(&it, sv->serverinfo);
	while (info_iter_next(&it, &p))
		fprintf(out, "%-20.*s %.*s\n", (int)p.key_len, p.key,
			(int)p.value_len, p.value);
}

static void c_quit(struct server *sv, const struct net_args *a, FILE *out)
{
	(void)a;
	fprintf(out, "shutting down\n");
	sv->quit = true;
}

/* "capture start FILE [MAXMB] [client USERID]" / "capture stop" / "capture":
 * the server's own traffic to a pcap file (docs/instrumentation.md).  The
 * file name comes from the console or rcon: only a plain name, written in
 * the working directory, so rcon cannot write elsewhere. */
static void c_capture(struct server *sv, const struct net_args *a, FILE *out)
{
	const char *verb = net_args_argv(a, 1);
	struct capture_stats st;

	if (!strcmp(verb, "stop") || !strcmp(verb, "start")) {
		if (sv->capture) {
			capture_get_stats(sv->capture, &st);
			capture_close(sv->capture);
			sv->capture = NULL;
			fprintf(out, "capture stopped: %llu records, %llu bytes, %llu dropped\n",
				(unsigned long long)st.records, (unsigned long long)st.bytes,
				(unsigned long long)st.dropped);
		}
		if (!strcmp(verb, "stop"))
			return;
	} else {
		if (!sv->capture) {
			fprintf(out, "no capture running (capture start FILE [MAXMB] [client USERID])\n");
			return;
		}
		capture_get_stats(sv->capture, &st);
		fprintf(out, "capture: %llu records, %llu of %llu bytes, %llu dropped%s\n",
			(unsigned long long)st.records, (unsigned long long)st.bytes,
			(unsigned long long)st.max_bytes, (unsigned long long)st.dropped,
			st.full ? " (full)" : "");
		return;
	}
	const char *file = net_args_argv(a, 2);
	if (!*file || strchr(file, '/') || file[0] == '.') {
		fprintf(out, "capture start FILE: a plain file name (written in the working directory)\n");
		return;
	}
	uint64_t max = 0;
	int argi = 3;
	if (a->argc > argi && strcmp(net_args_argv(a, argi), "client") != 0)
		max = (uint64_t)atoi(net_args_argv(a, argi++)) << 20;
	struct client *who = NULL;
	if (!strcmp(net_args_argv(a, argi), "client")) {
		who = find_client(sv, net_args_argv(a, argi + 1));
		if (!who) {
			fprintf(out, "capture: no client %s\n", net_args_argv(a, argi + 1));
			return;
		}
	}
	struct net_addr local;
	char err[256];

	if (!net_udp_local_addr(sv->sock, &local))
		memset(&local, 0, sizeof(local));
	sv->capture = capture_open(file, max, &local, &sv->log, err, sizeof(err));
	if (!sv->capture) {
		fprintf(out, "capture: %s\n", err);
		return;
	}
	if (who) {
		struct net_addr peer = who->chan.remote;

		peer.port = 0;	/* the whole address: a NAT may move the port */
		capture_set_peer(sv->capture, &peer);
	}
	fprintf(out, "capturing to %s%s%s\n", file, who ? " for " : "", who ? who->name : "");
}

int sv_console_register(struct server *sv)
{
	sv_command_add(sv, "map", c_map, "map NAME: change level (clients come along)");
	sv_command_add(sv, "status", c_status, "players, addresses, pings");
	sv_command_add(sv, "kick", c_kick, "kick USERID|NAME");
	sv_command_add(sv, "say", c_say, "say TEXT: to everyone");
	sv_command_add(sv, "serverinfo", c_serverinfo, "show the serverinfo");
	sv_command_add(sv, "quit", c_quit, "shut down cleanly");
	sv_command_add(sv, "capture", c_capture,
		       "capture start FILE [MAXMB] [client ID] | stop: traffic to pcap");
	return 0;
}
