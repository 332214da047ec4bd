/*
 * lagshot -- a far shooter and a strafing target on any QuakeWorld
 * server, for antilag: how many of the shooter's shots hit.
 *
 *   lagshot --server HOST:PORT --map FILE.bsp [--delay S] [--shots N]
 *           [--impulse N] [--ready] [--timeout S]
 *
 * Design note
 *   Two clients of the project's library (src/client) on their own UDP
 *   sockets: a target that strafes across the shooter's line of sight
 *   (320 u/s, turning every 0.5 s), and a shooter whose datagrams are
 *   held back --delay seconds each way (a round trip of twice that, as a
 *   far player has), which walks to within 300-400 units of the target,
 *   stands, aims each frame where its last reply shows the target (the
 *   gun 16 units over its origin, at the target's middle), and every
 *   0.8 s presses the attack for one command.  A shot hits when the
 *   target's health (its own svc_updatestat) drops within the shot's
 *   round trip and 0.25 s more; a shot while the target is invulnerable
 *   (deathmatch 4's pentagram after a spawn: 3 s here, KTX's
 *   dmm4_invinc_time) or dead is not taken.  The same script runs
 *   against qwd and MVDSV+KTX (tests/interop/antilag-mvdsv.sh); with
 *   --ready both say "ready" and wait for KTX's "The match has begun"
 *   (KTX gives the deathmatch 4 arsenal only in a match).
 *   Prints one line per fact: "antilag <serverinfo sv_antilag>",
 *   "delay S", "weapon IT_*" (the shooter's, at the end), "shots N",
 *   "hits H", "pattern 1011...".  Exit 0 when every shot was taken, 1 when not, 2 on a usage
 *   or connection error.
 */
#include <qwd/client.h>
#include <qwd/common.h>
#include <qwd/net.h>
#include <qwd/protocol.h>
#include <qwd/world.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bsd/string.h>

enum { HELD = 512, MAX_SHOTS = 200 };

struct held {
	double due;
	size_t len;
	uint8_t data[NETCHAN_MAX_PACKET];
};

struct bot {
	struct qwc q;
	int fd;
	struct net_stats net;
	double delay;
	struct held *in, *out;	/* rings of HELD */
	int in_head, in_n, out_head, out_n;
	bool begun;		/* KTX: "The match has begun" */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_print(void *ctx, struct qwc *c, int level, const char *text)
{
	struct bot *b = ctx;
	char plain[256];
	size_t i;

	(void)c;
	(void)level;
	/* KTX writes some words in its red letters (the high bit set) */
	for (i = 0; text[i] && i + 1 < sizeof(plain); i++)
		plain[i] = (char)(text[i] & 0x7f);
	plain[i] = '\0';
	if (strstr(plain, "match has begun"))
		b->begun = true;
}

static void hold(struct bot *b, struct held *ring, int head, int *n,
		 const uint8_t *data, size_t len, double now)
{
	struct held *h;

	if (*n == HELD || len > sizeof(h->data))
		return;	/* lost, as on a full link */
	h = &ring[(head + *n) % HELD];
	h->due = now + b->delay;
	h->len = len;
	memcpy(h->data, data, len);
	(*n)++;
}

static const struct held *release(struct held *ring, int *head, int *n,
				  double now)
{
	const struct held *h;

	if (*n == 0 || ring[*head].due > now)
		return NULL;
	h = &ring[*head];
	*head = (*head + 1) % HELD;
	(*n)--;
	return h;
}

/* one turn of a bot: what came (held back by its delay), what is due */
static void turn(struct bot *b, struct net_recv_batch *rx, double now)
{
	uint8_t pkt[NETCHAN_MAX_PACKET];
	struct net_addr to;
	const struct held *h;
	size_t n;

	while (net_udp_recv_batch(b->fd, rx, &b->net) > 0)
		for (size_t i = 0; i < rx->count; i++) {
			if (b->delay > 0)
				hold(b, b->in, b->in_head, &b->in_n,
				     rx->packets[i].data, rx->packets[i].len, now);
			else
				qwc_receive(&b->q, rx->packets[i].data,
					    rx->packets[i].len, now);
		}
	while ((h = release(b->in, &b->in_head, &b->in_n, now)) != NULL)
		qwc_receive(&b->q, h->data, h->len, now);
	n = qwc_take_stuffed_oob(&b->q, pkt, sizeof(pkt), &to);
	if (n)
		net_udp_send(b->fd, &to, pkt, n, &b->net);
	while ((h = release(b->out, &b->out_head, &b->out_n, now)) != NULL)
		net_udp_send(b->fd, &b->q.opt.server, h->data, h->len, &b->net);
	n = qwc_packet(&b->q, now, false, pkt, sizeof(pkt));
	if (!n)
		return;
	if (b->delay > 0)
		hold(b, b->out, b->out_head, &b->out_n, pkt, n, now);
	else
		net_udp_send(b->fd, &b->q.opt.server, pkt, n, &b->net);
}

static int open_bot(struct bot *b, const struct net_addr *server,
		    const char *name, uint32_t checksum2)
{
	struct qwc_options o;
	char err[128];
	static char info[2][96];
	static int k;

	memset(&o, 0, sizeof(o));
	o.server = *server;
	snprintf(info[k], sizeof(info[k]), "\\name\\%s\\rate\\25000\\team\\%s",
		 name, name);
	o.userinfo = info[k++];
	o.checksum2 = checksum2;
	o.on_print = on_print;
	o.ctx = b;
	b->fd = net_udp_open("127.0.0.1", 0, err, sizeof(err));
	if (b->fd < 0) {
		fprintf(stderr, "lagshot: %s\n", err);
		return -1;
	}
	b->in = calloc(HELD, sizeof(*b->in));
	b->out = calloc(HELD, sizeof(*b->out));
	if (!b->in || !b->out || qwc_init(&b->q, &o) != 0)
		return -1;
	qwc_connect(&b->q, now_s());
	return 0;
}

static float yaw_to(const float *from, const float *to)
{
	return (float)(atan2(to[1] - from[1], to[0] - from[0]) * 180.0 / M_PI);
}

static float dist2d(const float *a, const float *b)
{
	return hypotf(a[0] - b[0], a[1] - b[1]);
}

static void usage(void)
{
	fprintf(stderr, "usage: lagshot --server HOST:PORT --map FILE.bsp "
		"[--delay S] [--shots N] [--impulse N] [--ready] "
		"[--timeout S]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *server = NULL, *map = NULL;
	double delay = 0.05, timeout = 120;
	int shots = 20, impulse = 8;
	bool ready = false;
	struct net_addr addr;
	struct net_recv_batch *rx = calloc(1, sizeof(*rx));
	struct bot *s = calloc(1, sizeof(*s)), *t = calloc(1, sizeof(*t));
	char err[256], pattern[MAX_SHOTS + 1] = "";
	struct bsp_map *m;
	uint32_t sum;
	double start, next_turn = 0, next_shot = 0, shot_at = 0, calm = 0;
	int dir = 1, taken = 0, hits = 0, phase = 0;
	uint64_t sent_mark = 0;
	int32_t health_before = 0;
	bool waiting = false, hit = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--ready")) {
			ready = true;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--server"))
			server = v;
		else if (!strcmp(a, "--map"))
			map = v;
		else if (!strcmp(a, "--delay"))
			delay = atof(v);
		else if (!strcmp(a, "--shots"))
			shots = atoi(v);
		else if (!strcmp(a, "--impulse"))
			impulse = atoi(v);
		else if (!strcmp(a, "--timeout"))
			timeout = atof(v);
		else
			usage();
	}
	if (!server || !map || shots < 1 || shots > MAX_SHOTS || delay < 0 ||
	    !rx || !s || !t)
		usage();
	m = bsp_load(map, err, sizeof(err));
	if (!m) {
		fprintf(stderr, "lagshot: %s: %s\n", map, err);
		return 2;
	}
	sum = m->checksum2;
	bsp_free(m);
	if (!net_addr_resolve(server, PORT_SERVER, &addr, err, sizeof(err))) {
		fprintf(stderr, "lagshot: %s: %s\n", server, err);
		return 2;
	}
	if (open_bot(t, &addr, "target", sum) < 0 ||
	    open_bot(s, &addr, "shooter", sum) < 0)
		return 2;

	start = now_s();
	for (;;) {
		double now = now_s();
		struct timespec ts = {0, 1000 * 1000};
		const struct qwc_player *tp;
		const float *so = s->q.self_origin, *to;

		if (now - start > timeout) {
			fprintf(stderr, "lagshot: timed out in phase %d (shooter %s, "
				"target %s)\n", phase, qwc_state_name(s->q.state),
				qwc_state_name(t->q.state));
			break;
		}
		turn(t, rx, now);
		turn(s, rx, now);
		nanosleep(&ts, NULL);
		if (s->q.state != QWC_ACTIVE || t->q.state != QWC_ACTIVE) {
			if (phase > 0)
				break;
			continue;
		}
		tp = qwc_player(&s->q, t->q.playernum);
		to = tp ? tp->origin : so;
		/* the target strafes across the line from the shooter */
		if (now >= next_turn) {
			dir = -dir;
			next_turn = now + 0.5;
		}
		t->q.cmd.angles[1] = yaw_to(t->q.self_origin, so) + 90;
		t->q.cmd.forwardmove = (int16_t)(320 * dir);
		t->q.cmd.buttons = t->q.stat[STAT_HEALTH] <= 0 && (int)(now * 2) % 2 ?
			1 : 0;	/* dead: press to respawn */
		switch (phase) {
		case 0:	/* in the game: ready (KTX), then the weapon */
			if (ready) {
				qwc_stringcmd(&s->q, "ready");
				qwc_stringcmd(&t->q, "ready");
			}
			phase = 1;
			break;
		case 1:
			/* KTX: the serverinfo's status leaves Standby and
			 * Countdown for "N min left" at the start */
			if (ready && !(s->begun || t->begun ||
				       strstr(s->q.serverinfo, "min left")))
				break;
			s->q.cmd.impulse = (uint8_t)impulse;
			calm = now + 3.5;	/* the spawn's pentagram */
			phase = 2;
			break;
		case 2:	/* the shooter closes in, then stands */
			s->q.cmd.angles[1] = yaw_to(so, to);
			s->q.cmd.forwardmove = dist2d(so, to) > 350 ? 320 : 0;
			if (now < calm || dist2d(so, to) > 400)
				break;
			s->q.cmd.impulse = 0;
			s->q.cmd.forwardmove = 0;
			s->delay = delay;
			next_shot = now + 2 * delay + 0.5;
			phase = 3;
			break;
		case 3: {	/* aim, and a shot every 0.8 s */
			float d = dist2d(so, to);
			float dz = (to[2] + 4) - (so[2] + 16);

			s->q.cmd.angles[0] = (float)(-atan2(dz, d) * 180.0 / M_PI);
			s->q.cmd.angles[1] = yaw_to(so, to);
			s->q.cmd.forwardmove = d > 450 ? 320 : 0;
			if (s->q.cmd.forwardmove)	/* stand still first: the
							 * aim is from where it
							 * sees itself */
				calm = now + 2 * delay + 0.5;
			if (waiting) {
				if (t->q.stat[STAT_HEALTH] < health_before)
					hit = true;
				if (now < shot_at + 2 * delay + 0.25)
					break;
				pattern[taken++] = hit ? '1' : '0';
				hits += hit;
				waiting = false;
				if (taken == shots)
					goto done;
				break;
			}
			if (s->q.cmd.buttons) {	/* one command with it */
				if (s->q.stats.packets_out != sent_mark) {
					s->q.cmd.buttons = 0;
					waiting = true;
				}
				break;
			}
			if (t->q.stat[STAT_HEALTH] <= 0) {
				calm = now + 3.5;	/* its respawn's pentagram */
				break;
			}
			if (now < next_shot || now < calm || d > 450)
				break;
			health_before = t->q.stat[STAT_HEALTH];
			hit = false;
			s->q.cmd.buttons = 1;
			sent_mark = s->q.stats.packets_out;
			shot_at = now;
			next_shot = now + 0.8;
			break;
		}
		}
	}
done:
	{
		char al[32] = "";
		const char *p = strstr(s->q.serverinfo, "\\sv_antilag\\");

		if (p)
			sscanf(p + 12, "%31[^\\]", al);
		printf("antilag %s\n", al[0] ? al : "(unset)");
	}
	printf("delay %.3f\n", delay);
	printf("weapon %d\n", (int)s->q.stat[STAT_ACTIVEWEAPON]);
	printf("shots %d\n", taken);
	printf("hits %d\n", hits);
	printf("pattern %s\n", pattern);
	qwc_disconnect(&s->q);
	qwc_disconnect(&t->q);
	for (int i = 0; i < 50; i++) {
		struct timespec ts = {0, 1000 * 1000};

		s->delay = 0;
		turn(s, rx, now_s());
		turn(t, rx, now_s());
		nanosleep(&ts, NULL);
	}
	return taken == shots ? 0 : 1;
}
