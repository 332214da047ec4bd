/*
 * master.c -- setmaster and heartbeats: how the server gets into the
 * server browsers' lists.
 *
 * Design note
 *   QuakeWorld's master protocol, as MVDSV speaks it (sv_master.c there):
 *     setmaster HOST[:PORT] ...   up to 8 masters, port 27000 when none
 *                                 is given; each is sent a ping, 'k' '\0',
 *                                 and "setmaster none" (or no master) stops
 *     heartbeat "a\n<sequence>\n<players>\n"   no 0xFF header, from the
 *                                 game port, so the master lists the
 *                                 address it came from; players counts
 *                                 every connected slot, spectators too
 *     shutdown  "C\n"             the server is going away
 *   A master answers the ping with 'l' (taken here, not counted as
 *   malformed), may ping the server ('k', answered 'l' by oob.c), and
 *   queries it with "status" like any browser.
 *
 *   When: the first heartbeat goes out as soon as a level is loaded after
 *   setmaster (or `heartbeat`), then every HEARTBEAT_SECONDS (MVDSV's 300),
 *   and sooner when the number of players changed, but never within
 *   HEARTBEAT_MIN_SECONDS of the last one: a player leaving and coming back
 *   all evening costs each master a datagram every few seconds at most.
 *   Host names are looked up once, when setmaster runs (it may wait on
 *   the resolver then; a number never does); the frame loop only sends.
 */
#include "master.h"
#include "features.h"

#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

enum {
	HEARTBEAT_SECONDS = 300,
	HEARTBEAT_MIN_SECONDS = 10
};

static void masters_init(struct server *sv)
{
	sv->masters->last_sent = -1;
	sv->masters->players_sent = -1;
}

bool sv_is_master(const struct server *sv, const struct net_addr *a)
{
	for (int i = 0; i < sv->masters->count; i++)
		if (net_addr_equal(&sv->masters->addr[i], a))
			return true;
	return false;
}

static int players(const struct server *sv)
{
	int n = 0;

	for (int i = 0; i < sv->maxclients; i++)
		n += sv->clients[i].state >= CS_CONNECTED;
	return n;
}

static void send_all(struct server *sv, const char *text)
{
	for (int i = 0; i < sv->masters->count; i++)
		sv_send_raw(sv, &sv->masters->addr[i], text, strlen(text));
}

void sv_masters_frame(struct server *sv)
{
	struct sv_masters *m = sv->masters;
	double since = sv->realtime - m->last_sent;
	char text[64];
	int n;

	if (m->count == 0 || !sv->map)
		return;
	n = players(sv);
	if (m->last_sent >= 0 && since < HEARTBEAT_SECONDS &&
	    (n == m->players_sent || since < HEARTBEAT_MIN_SECONDS))
		return;
	m->sequence++;
	m->last_sent = sv->realtime;
	m->players_sent = n;
	m->heartbeats++;
	snprintf(text, sizeof(text), "%c\n%d\n%d\n", S2M_HEARTBEAT, m->sequence, n);
	send_all(sv, text);
	qwd_logf(&sv->log, QWD_LOG_INFO, "heartbeat %d (%d player%s) to %d master%s",
		 m->sequence, n, n == 1 ? "" : "s", m->count, m->count == 1 ? "" : "s");
}

static void masters_shutdown(struct server *sv)
{
	char text[4];

	if (sv->masters->count == 0 || sv->sock < 0)
		return;
	snprintf(text, sizeof(text), "%c\n", S2M_SHUTDOWN);
	send_all(sv, text);
	qwd_logf(&sv->log, QWD_LOG_INFO, "shutdown notice to %d master%s",
		 sv->masters->count, sv->masters->count == 1 ? "" : "s");
}

static void c_setmaster(struct server *sv, const struct net_args *a, FILE *out)
{
	struct sv_masters *m = sv->masters;
	const uint8_t ping[2] = {A2A_PING, 0};
	char shown[NET_ADDR_STRLEN], err[128];

	if (a->argc < 2) {
		if (m->count == 0)
			fprintf(out, "No master servers (setmaster HOST[:PORT] ...)\n");
		for (int i = 0; i < m->count; i++)
			fprintf(out, "Master server at %s (%s)\n",
				net_addr_format(&m->addr[i], shown), m->name[i]);
		return;
	}
	m->count = 0;
	for (int i = 1; i < a->argc; i++) {
		const char *s = net_args_argv(a, i);
		struct net_addr addr;

		if (!strcmp(s, "none")) {
			fprintf(out, "Setting nomaster mode.\n");
			m->count = 0;
			return;
		}
		if (m->count == SV_MAX_MASTERS) {
			fprintf(out, "At most %d master servers: %s and the rest are "
				"left out\n", SV_MAX_MASTERS, s);
			break;
		}
		if (!net_addr_resolve(s, PORT_MASTER, &addr, err, sizeof(err))) {
			fprintf(out, "Bad master server %s: %s\n", s, err);
			continue;
		}
		if (addr.port == 0)
			addr.port = htons(PORT_MASTER);
		m->addr[m->count] = addr;
		strlcpy(m->name[m->count], s, sizeof(m->name[0]));
		m->count++;
		fprintf(out, "Master server at %s\nSending a ping.\n",
			net_addr_format(&addr, shown));
		sv_send_raw(sv, &addr, ping, sizeof(ping));
	}
	m->last_sent = -1;	/* a heartbeat at the next chance */
}

void sv_cmd_master(struct server *sv, const struct net_args *a, FILE *out)
{
	if (!strcasecmp(net_args_argv(a, 0), "setmaster")) {
		c_setmaster(sv, a, out);
		return;
	}
	if (sv->masters->count == 0) {
		fprintf(out, "No master servers to send a heartbeat to (setmaster)\n");
		return;
	}
	sv->masters->last_sent = -1;
	sv_masters_frame(sv);
}

/* a master server answering setmaster's ping */
static bool masters_packet(struct server *sv, const struct net_addr *from,
			   const uint8_t *data, size_t len)
{
	return len == 1 && data[0] == A2A_ACK && sv_is_master(sv, from);
}

static void masters_free(struct server *sv)
{
	free(sv->masters);
	sv->masters = NULL;
}

static const struct sv_feature masters_feature = {
	.name = "masters",
	.packet = masters_packet,
	.upkeep = sv_masters_frame,
	.stop = masters_shutdown,
	.free = masters_free,
};

int sv_masters_register(struct server *sv)
{
	sv->masters = calloc(1, sizeof(*sv->masters));
	if (!sv->masters)
		return -1;
	masters_init(sv);
	sv_command_add(sv, "setmaster", sv_cmd_master,
		       "setmaster HOST[:PORT] ... | none: master servers (up to 8)");
	sv_command_add(sv, "heartbeat", sv_cmd_master,
		       "a heartbeat to the master servers now");
	sv_feature_add(sv, &masters_feature);
	return 0;
}
