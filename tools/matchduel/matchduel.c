/*
 * matchduel.c -- players of the project's client library play a
 * KTX-style duel's (or 2on2's) life on a server: all say "ready", the
 * match counts down, runs its clock to the end; what they saw is printed,
 * one fact a line, for a script to compare two servers
 * (tests/interop/match-ktx.sh).
 *
 *   matchduel --server HOST:PORT --map FILE.bsp [--timeout S]
 *             [--suicide] [--mode duel|2on2] [--players N]
 *             [--colors TOP,BOTTOM]
 *
 * Design note
 *   The players stand still (a duel's clock does not need them to move);
 *   with --suicide the first one, once the match is on, fires at the sky
 *   for FIRE_S (shots that hit no one: the statistics get a weapon's
 *   members) and types "kill", so the end has a frag to compare.  --players 1: only "alpha" plays, the
 *   other duellist is someone else's client (tests/interop/ezquake-duel.sh:
 *   ezQuake); alpha readies once in the game and waits for the match.
 *   --colors: alpha's shirt and pants (userinfo topcolor, bottomcolor,
 *   0..13), so a picture of the scoreboard can tell the duellists' rows
 *   apart by their swatches; without it the userinfo has no colours.
 *   --mode 2on2: four players (--players 4, the default there), team
 *   "red" alpha and beta, team "blue" gamma and delta (the duel's players
 *   have their own names as teams).  Printed, in the order seen: "status
 *   VALUE" each time the first player's serverinfo key "status" changes,
 *   "print TEXT" for the prints a player relies on (ready, the timer, the
 *   match's start and end, the clock's minutes and seconds; KTX's red
 *   letters and gold digits read as plain text), and at the end "frags
 *   NAME N" for every player.  Besides, from the countdown on (the first
 *   of the status "Countdown" and the print "Timer started", on the
 *   monotonic clock), "time S status VALUE" / "time S print TEXT" give
 *   each status change and timed print (the start, the clock's minutes
 *   and seconds, the end) with its seconds since then, to three places:
 *   the script compares the two servers' times with a tolerance (the
 *   arrival is known only to a server frame and a packet).  It ends when
 *   a print says the match is over and the status is back to Standby, or
 *   at the timeout (exit 1).
 */
#include "qwd/client.h"
#include <qwd/common.h>
#include <qwd/match.h>
#include <qwd/net.h>
#include <qwd/protocol.h>
#include <qwd/world.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bsd/string.h>

struct player {
	struct qwc q;
	int fd;
	struct net_stats net;
	const char *name;
	bool main;		/* the one whose prints and status are told */
	int top, bottom;	/* userinfo colours, -1: none sent */
	bool over;		/* "The match is over" seen */
	double *t0;		/* when the countdown was seen (0: not yet) */
};

enum { MAX_PLAYERS = 4 };

/* --suicide: how long alpha fires at the sky first (two shotgun shots,
 * 0.5 s apart: the statistics' weapon members to compare) */
static const double FIRE_S = 0.7;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* KTX's text as one plain line */
static void plain(const char *in, char *out, size_t size)
{
	size_t n;

	match_plain_text(in, out, size);
	for (char *p = out; *p; p++)
		if (*p == '\n')
			*p = ' ';
	n = strlen(out);
	while (n > 0 && out[n - 1] == ' ')
		out[--n] = '\0';
}

static void on_print(void *ctx, struct qwc *c, int level, const char *text)
{
	static const char *const told[] = {
		"is ready", "All players ready", "Timer started",
		"The match has begun", "minute", "second", "The match is over",
		"time over", "overtime"
	};
	/* what the clock times: the countdown's end and the match's */
	static const char *const timed[] = {
		"The match has begun", "minute", "second", "The match is over"
	};
	struct player *p = ctx;
	char t[512];
	double now = now_s();

	(void)c;
	(void)level;
	plain(text, t, sizeof(t));
	if (strstr(t, "The match is over"))
		p->over = true;
	if (!p->main)
		return;
	if (!*p->t0 && strstr(t, "Timer started"))
		*p->t0 = now;
	for (size_t i = 0; *p->t0 && i < sizeof(timed) / sizeof(timed[0]); i++)
		if (strstr(t, timed[i])) {
			printf("time %.3f print %s\n", now - *p->t0, t);
			break;
		}
	for (size_t i = 0; i < sizeof(told) / sizeof(told[0]); i++)
		if (strstr(t, told[i])) {
			printf("print %s\n", t);
			fflush(stdout);
			return;
		}
}

static int open_player(struct player *p, const struct net_addr *server,
		       uint32_t checksum2, const char *team, char *info,
		       size_t info_size)
{
	struct qwc_options o;
	char err[128];
	int n = snprintf(info, info_size, "\\name\\%s\\rate\\25000\\team\\%s",
			 p->name, team);

	if (p->top >= 0 && n > 0 && (size_t)n < info_size)
		snprintf(info + n, info_size - (size_t)n,
			 "\\topcolor\\%d\\bottomcolor\\%d", p->top, p->bottom);
	memset(&o, 0, sizeof(o));
	o.server = *server;
	o.userinfo = info;
	o.checksum2 = checksum2;
	o.on_print = on_print;
	o.ctx = p;
	p->fd = net_udp_open("127.0.0.1", 0, err, sizeof(err));
	if (p->fd < 0) {
		fprintf(stderr, "matchduel: %s\n", err);
		return -1;
	}
	if (qwc_init(&p->q, &o) != 0)
		return -1;
	qwc_connect(&p->q, now_s());
	return 0;
}

/* what came in, what is due out */
static void exchange(struct player *p, struct net_recv_batch *rx, double now)
{
	uint8_t pkt[NETCHAN_MAX_PACKET];
	struct net_addr to;
	size_t n;

	while (net_udp_recv_batch(p->fd, rx, &p->net) > 0)
		for (size_t i = 0; i < rx->count; i++)
			qwc_receive(&p->q, rx->packets[i].data, rx->packets[i].len, now);
	n = qwc_take_stuffed_oob(&p->q, pkt, sizeof(pkt), &to);
	if (n)
		net_udp_send(p->fd, &to, pkt, n, &p->net);
	n = qwc_packet(&p->q, now, false, pkt, sizeof(pkt));
	if (n)
		net_udp_send(p->fd, &p->q.opt.server, pkt, n, &p->net);
}

static void status_of(const struct qwc *q, char *out, size_t size)
{
	if (!info_value_for_key(q->serverinfo, "status", out, size))
		out[0] = '\0';
}

static void usage(void)
{
	fprintf(stderr, "usage: matchduel --server HOST:PORT --map FILE.bsp "
		"[--timeout S] [--suicide] [--mode duel|2on2] [--players N] "
		"[--colors TOP,BOTTOM]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *server = NULL, *map = NULL;
	static const char *const names[MAX_PLAYERS] = {
		"alpha", "beta", "gamma", "delta"
	};
	static const char *const teams[MAX_PLAYERS] = {
		"red", "red", "blue", "blue"
	};
	double timeout = 180, start, killed = 0, fired = 0, t0 = 0;
	bool suicide = false, readied = false, team_game = false;
	struct player *pl = calloc(MAX_PLAYERS, sizeof(*pl));
	struct net_recv_batch *rx = calloc(1, sizeof(*rx));
	char info[MAX_PLAYERS][96], status[64] = "", now_status[64], err[256];
	struct net_addr addr;
	struct bsp_map *m;
	uint32_t sum;
	int rc = 1, n = 0, top = -1, bottom = -1;
	bool all_active;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--server") && i + 1 < argc)
			server = argv[++i];
		else if (!strcmp(argv[i], "--map") && i + 1 < argc)
			map = argv[++i];
		else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
			timeout = atof(argv[++i]);
		else if (!strcmp(argv[i], "--suicide"))
			suicide = true;
		else if (!strcmp(argv[i], "--players") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--colors") && i + 1 < argc) {
			if (sscanf(argv[++i], "%d,%d", &top, &bottom) != 2 ||
			    top < 0 || top > 13 || bottom < 0 || bottom > 13) {
				fprintf(stderr, "matchduel: --colors wants TOP,BOTTOM, "
					"each 0..13, not \"%s\"\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "2on2"))
				team_game = true;
			else if (strcmp(argv[i], "duel") != 0)
				usage();
		} else
			usage();
	}
	if (!n)
		n = team_game ? 4 : 2;
	if (!server || !map || !pl || !rx || timeout <= 0 || n < 1 ||
	    n > (team_game ? 4 : 2))
		usage();
	m = bsp_load(map, err, sizeof(err));
	if (!m) {
		fprintf(stderr, "matchduel: %s: %s\n", map, err);
		return 2;
	}
	sum = m->checksum2;
	bsp_free(m);
	if (!net_addr_resolve(server, PORT_SERVER, &addr, err, sizeof(err))) {
		fprintf(stderr, "matchduel: %s: %s\n", server, err);
		return 2;
	}
	pl[0].main = true;
	for (int i = 0; i < n; i++) {
		pl[i].name = names[i];
		pl[i].t0 = &t0;
		pl[i].top = i == 0 ? top : -1;
		pl[i].bottom = i == 0 ? bottom : -1;
		if (open_player(&pl[i], &addr, sum,
				team_game ? teams[i] : names[i], info[i],
				sizeof(info[i])) < 0)
			return 2;
	}

	start = now_s();
	for (;;) {
		double now = now_s();
		struct timespec ts = {0, 2 * 1000 * 1000};

		if (now - start > timeout) {
			fprintf(stderr, "matchduel: timed out (status \"%s\";",
				status);
			for (int i = 0; i < n; i++)
				fprintf(stderr, " %s %s", pl[i].name,
					qwc_state_name(pl[i].q.state));
			fprintf(stderr, ")\n");
			break;
		}
		all_active = true;
		for (int i = 0; i < n; i++) {
			exchange(&pl[i], rx, now);
			all_active = all_active && pl[i].q.state == QWC_ACTIVE;
		}
		nanosleep(&ts, NULL);
		if (!all_active)
			continue;
		status_of(&pl[0].q, now_status, sizeof(now_status));
		if (strcmp(now_status, status) != 0) {
			strlcpy(status, now_status, sizeof(status));
			if (!t0 && !strcmp(status, "Countdown"))
				t0 = now;
			if (t0)
				printf("time %.3f status %s\n", now - t0, status);
			printf("status %s\n", status);
			fflush(stdout);
		}
		if (!readied && now - start > 1.0) {
			/* a second in the game first: the server's prewar set */
			for (int i = 0; i < n; i++)
				qwc_stringcmd(&pl[i].q, "ready");
			readied = true;
		}
		if (suicide && !fired && strstr(status, "min left"))
			fired = now;
		if (suicide && !killed && fired && now - fired > FIRE_S) {
			qwc_stringcmd(&pl[0].q, "kill");
			killed = now;
		}
		/* the dead press fire to come back */
		pl[0].q.cmd.buttons = pl[0].q.stat[STAT_HEALTH] <= 0 &&
				      (int)(now * 2) % 2 ? 1 : 0;
		if (fired && !killed) {
			pl[0].q.cmd.angles[0] = -80;	/* at the sky */
			pl[0].q.cmd.buttons = 1;
		}
		if (pl[0].over && !strcmp(status, "Standby")) {
			rc = 0;
			break;
		}
	}
	for (int i = 0; i < n; i++) {
		const struct qwc_player *p = qwc_player(&pl[0].q, pl[i].q.playernum);

		printf("frags %s %d\n", pl[i].name, p ? p->frags : 0);
	}
	return rc;
}
