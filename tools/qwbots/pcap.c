/*
 * pcap.c -- a packet capture of a real client's session into an action
 * file (qwbots --from-pcap).
 *
 * Design note
 *   libpcap reads the file (pcap_open_offline: tcpdump -w output, pcapng
 *   too); each record is unwrapped by hand, every length checked against
 *   what was captured: the link header (Ethernet with optional VLAN tags,
 *   Linux cooked v1/v2, BSD loopback, raw IPv4), IPv4 (fragments are
 *   skipped: QuakeWorld datagrams never need them), UDP.
 *
 *   Which side is the client: the one whose UDP port is --client-port, or
 *   else the sender of the first connectionless getchallenge or connect.
 *   Its packets to the server are netchan packets
 *       seq(4) ack(4) qport(2) | clc messages
 *   read with the same helpers as the server's (msg_read_*,
 *   msg_read_delta_usercmd).  Each clc_move carries three commands,
 *   oldest first; the newest is this packet's.  When sequences jump, the
 *   older copies fill the gap as the server would use them (one missing
 *   packet: the middle copy, two: both), and anything older is counted
 *   lost.  A move whose checksum byte is wrong is dropped, since a server
 *   ignores it too.  Moves before the client's "begin" belong to the
 *   signon and are not kept (unless the capture holds no begin at all).
 *
 *   The server's replies go into a passive client (struct qwc that never
 *   sends): it follows the signon, so it learns the map (modellist entry
 *   1) and, once the player is in the game, the spawn origin from the
 *   player's own svc_playerinfo.  Its netchan is told of each client
 *   sequence seen, so the replies' acks are within what "it" sent.
 *
 *   A command's time is its packet's capture time (recovered copies: that
 *   minus the msec of the newer copies), from the first command kept.
 */
#include "qwbots.h"

#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

struct endpoint {
	uint32_t ip;	/* network order */
	uint16_t port;	/* network order */
};

struct extract {
	struct qwb_actions *out;
	struct qwb_pcap_stats *st;
	uint16_t client_port;	/* host order; 0: find it */
	bool flow_known;
	struct endpoint client, server;

	struct qwc q;		/* the passive client */
	bool q_ready;		/* its netchan is set up */

	bool have_seq;
	uint32_t last_seq;	/* newest client sequence with a move */
	size_t begin_index;	/* commands before the first begin */
	bool spawn_known;
	double t0;
	bool have_t0;
};

/* ---- link, IPv4, UDP --------------------------------------------------- */

struct udp_view {
	struct endpoint src, dst;
	const uint8_t *data;
	size_t len;
};

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* the offset of the IPv4 header in a frame, or -1 (not IPv4, too short) */
static long link_offset(int dlt, const uint8_t *p, size_t caplen)
{
	size_t off;
	uint16_t type;

	switch (dlt) {
	case DLT_EN10MB:
		off = 12;
		for (;;) {
			if (caplen < off + 2)
				return -1;
			type = be16(p + off);
			if (type != 0x8100 && type != 0x88a8)
				break;
			off += 4;	/* a VLAN tag */
		}
		return type == 0x0800 ? (long)(off + 2) : -1;
	case DLT_LINUX_SLL:
		return caplen >= 16 && be16(p + 14) == 0x0800 ? 16 : -1;
	case DLT_LINUX_SLL2:
		return caplen >= 20 && be16(p) == 0x0800 ? 20 : -1;
	case DLT_NULL:
	case DLT_LOOP:
		/* the address family in host or network order: 2 is AF_INET */
		if (caplen < 4)
			return -1;
		return (p[0] == 2 || p[3] == 2) ? 4 : -1;
	case DLT_RAW:
	case DLT_IPV4:
		return 0;
	default:
		return -1;
	}
}

static bool udp_of(int dlt, const uint8_t *p, size_t caplen, struct udp_view *u)
{
	long off = link_offset(dlt, p, caplen);
	size_t ihl, total, ulen;
	const uint8_t *ip, *udp;

	if (off < 0 || caplen < (size_t)off + 20)
		return false;
	ip = p + off;
	caplen -= (size_t)off;
	if ((ip[0] >> 4) != 4)
		return false;
	ihl = (size_t)(ip[0] & 15) * 4;
	total = be16(ip + 2);
	if (ihl < 20 || total < ihl + 8 || total > caplen)
		return false;	/* short, or cut by the snap length */
	if ((be16(ip + 6) & 0x3fff) != 0 || ip[9] != 17)
		return false;	/* a fragment, or not UDP */
	udp = ip + ihl;
	ulen = be16(udp + 4);
	if (ulen < 8 || ihl + ulen > total)
		return false;
	memcpy(&u->src.ip, ip + 12, 4);
	memcpy(&u->dst.ip, ip + 16, 4);
	memcpy(&u->src.port, udp, 2);
	memcpy(&u->dst.port, udp + 2, 2);
	u->data = udp + 8;
	u->len = ulen - 8;
	return true;
}

static bool same(const struct endpoint *a, const struct endpoint *b)
{
	return a->ip == b->ip && a->port == b->port;
}

static bool is_oob(const uint8_t *d, size_t len)
{
	return len >= 4 && d[0] == 0xff && d[1] == 0xff && d[2] == 0xff && d[3] == 0xff;
}

static bool oob_starts(const uint8_t *d, size_t len, const char *word)
{
	size_t n = strlen(word);

	return is_oob(d, len) && len >= 4 + n && memcmp(d + 4, word, n) == 0;
}

/* ---- the client's packets ---------------------------------------------- */

static void passive_setup(struct extract *x, uint16_t qport, double t)
{
	struct net_addr server = {.ip = x->server.ip, .port = x->server.port};

	netchan_setup(&x->q.chan, NETCHAN_CLIENT, &server, qport, t);
	x->q.state = QWC_CONNECTED;
	x->q_ready = true;
}

static void keep(struct extract *x, double t, const struct usercmd *cmd)
{
	if (!x->have_t0) {
		x->t0 = t;
		x->have_t0 = true;
	}
	if (t < x->t0)
		t = x->t0;
	if (x->out->n && t - x->t0 < x->out->v[x->out->n - 1].time)
		t = x->t0 + x->out->v[x->out->n - 1].time;
	if (qwb_actions_push(x->out, t - x->t0, cmd))
		x->st->commands++;
}

/* one clc_move at the read position (after the clc byte) */
static bool read_move(struct extract *x, struct msg_buf *m, uint32_t seq,
		      double t)
{
	static const struct usercmd null_cmd;
	struct usercmd c[3];
	size_t start;
	int sum, take;

	sum = msg_read_byte(m);
	start = m->readpos;
	msg_read_byte(m);	/* loss */
	msg_read_delta_usercmd(m, &null_cmd, &c[0]);
	msg_read_delta_usercmd(m, &c[0], &c[1]);
	msg_read_delta_usercmd(m, &c[1], &c[2]);
	if (m->badread)
		return false;
	x->st->moves++;
	if (com_block_sequence_crc_byte(m->data + start, m->readpos - start, seq) !=
	    (uint8_t)sum) {
		x->st->bad_checksum++;
		return true;
	}
	if (!x->have_seq) {
		take = 1;
	} else if (seq <= x->last_seq) {
		x->st->duplicates++;
		return true;
	} else {
		uint32_t gap = seq - x->last_seq;

		take = gap >= 3 ? 3 : (int)gap;
		if (gap > 3)
			x->st->lost += gap - 3;
	}
	x->have_seq = true;
	x->last_seq = seq;
	for (int k = 3 - take; k < 3; k++) {
		double later = 0;

		for (int j = k + 1; j < 3; j++)
			later += c[j].msec / 1000.0;
		if (k < 2)
			x->st->recovered++;
		keep(x, t - later, &c[k]);
	}
	return true;
}

static void client_netchan(struct extract *x, const uint8_t *d, size_t len,
			   double t)
{
	struct msg_buf m;
	uint32_t w1, seq;
	uint16_t qport;

	/* the cast: the reader never writes */
	msg_init_read(&m, (void *)(uintptr_t)d, len);
	w1 = (uint32_t)msg_read_long(&m);
	msg_read_long(&m);
	qport = (uint16_t)msg_read_short(&m);
	if (m.badread) {
		x->st->bad_messages++;
		return;
	}
	seq = w1 & 0x7fffffffu;
	x->st->client_packets++;
	if (!x->q_ready)
		passive_setup(x, qport, t);
	if (x->q.chan.outgoing_sequence <= seq)
		x->q.chan.outgoing_sequence = seq + 1;
	while (msg_read_remaining(&m) > 0) {
		int clc = msg_read_byte(&m);
		char text[256];
		int n;

		switch (clc) {
		case clc_nop:
			break;
		case clc_move:
			if (!read_move(x, &m, seq, t)) {
				x->st->bad_messages++;
				return;
			}
			break;
		case clc_stringcmd:
			msg_read_string(&m, text, sizeof(text));
			if (!m.badread && !x->st->saw_begin &&
			    strncmp(text, "begin", 5) == 0 &&
			    (text[5] == ' ' || text[5] == '\0')) {
				x->st->saw_begin = true;
				x->begin_index = x->out->n;
			}
			break;
		case clc_delta:
			msg_read_byte(&m);
			break;
		case clc_tmove:
			for (int k = 0; k < 3; k++)
				msg_read_short(&m);
			break;
		case clc_upload:
			n = msg_read_short(&m);
			msg_read_byte(&m);
			if (n > 0 && (size_t)n <= msg_read_remaining(&m))
				m.readpos += (size_t)n;
			else if (n != 0)
				m.badread = true;
			break;
		default:
			x->st->bad_messages++;
			return;
		}
		if (m.badread) {
			x->st->bad_messages++;
			return;
		}
	}
}

static void client_packet(struct extract *x, const uint8_t *d, size_t len,
			  double t)
{
	if (is_oob(d, len)) {
		if (oob_starts(d, len, "connect")) {
			/* the extension is asked on a line of its own */
			x->q.opt.extension = memmem(d, len, "\n" QWDX_PROTOCOL_NAME " ",
						    strlen(QWDX_PROTOCOL_NAME) + 2) != NULL;
			if (x->q.state == QWC_CHALLENGING)
				x->q.state = QWC_CONNECTING;
		}
		return;
	}
	client_netchan(x, d, len, t);
}

/* ---- the server's packets ---------------------------------------------- */

static void server_packet(struct extract *x, const uint8_t *d, size_t len,
			  double t)
{
	if (!is_oob(d, len))
		x->st->server_packets++;
	qwc_receive(&x->q, d, len, t);
	if (x->q.state >= QWC_CONNECTED && x->q.state <= QWC_ACTIVE)
		x->q_ready = true;
	if (x->q.mapmodel[0])
		qwb_map_name(x->q.mapmodel, x->out->map, sizeof(x->out->map));
	if (!x->spawn_known && x->q.state == QWC_ACTIVE) {
		x->spawn_known = true;
		x->out->has_spawn = true;
		vec_copy(x->q.self_origin, x->out->spawn);
	}
}

/* ---- the capture ------------------------------------------------------- */

static void datagram(struct extract *x, const struct udp_view *u, double t)
{
	if (!x->flow_known) {
		if (x->client_port) {
			if (ntohs(u->src.port) == x->client_port) {
				x->client = u->src;
				x->server = u->dst;
			} else if (ntohs(u->dst.port) == x->client_port) {
				x->client = u->dst;
				x->server = u->src;
			} else {
				x->st->skipped++;
				return;
			}
		} else if (oob_starts(u->data, u->len, "getchallenge") ||
			   oob_starts(u->data, u->len, "connect")) {
			x->client = u->src;
			x->server = u->dst;
		} else {
			x->st->skipped++;
			return;
		}
		x->flow_known = true;
		x->q.opt.server.ip = x->server.ip;
		x->q.opt.server.port = x->server.port;
	}
	if (same(&u->src, &x->client) && same(&u->dst, &x->server))
		client_packet(x, u->data, u->len, t);
	else if (same(&u->src, &x->server) && same(&u->dst, &x->client))
		server_packet(x, u->data, u->len, t);
	else
		x->st->skipped++;
}

/* keep what follows the first begin, times from its first command */
static void cut_signon(struct extract *x)
{
	struct qwb_actions *a = x->out;
	size_t k = x->begin_index;
	double t0;

	if (!x->st->saw_begin || k == 0)
		return;
	x->st->before_begin = k;
	x->st->commands -= k;
	memmove(a->v, a->v + k, (a->n - k) * sizeof(*a->v));
	a->n -= k;
	if (a->n == 0)
		return;
	t0 = a->v[0].time;
	for (size_t i = 0; i < a->n; i++)
		a->v[i].time -= t0;
}

int qwb_pcap_extract(const char *path, int client_port,
		     struct qwb_actions *out, struct qwb_pcap_stats *st,
		     char *err, size_t errsize)
{
	char perr[PCAP_ERRBUF_SIZE];
	struct extract x;
	struct qwc_options o = {0};
	struct pcap_pkthdr *h;
	const u_char *p;
	pcap_t *pc;
	int dlt, rc;

	memset(out, 0, sizeof(*out));
	memset(st, 0, sizeof(*st));
	strlcpy(out->map, "unknown", sizeof(out->map));
	pc = pcap_open_offline(path, perr);
	if (!pc) {
		snprintf(err, errsize, "%s: %s", path, perr);
		return -1;
	}
	dlt = pcap_datalink(pc);
	memset(&x, 0, sizeof(x));
	x.out = out;
	x.st = st;
	x.client_port = (uint16_t)client_port;
	o.userinfo = "\\name\\capture";
	o.resend_interval = 1e9;	/* it never sends anyway */
	if (qwc_init(&x.q, &o) != 0) {
		snprintf(err, errsize, "out of memory");
		pcap_close(pc);
		qwc_free(&x.q);
		return -1;
	}
	qwc_connect(&x.q, 0);
	while ((rc = pcap_next_ex(pc, &h, &p)) == 1) {
		struct udp_view u;
		double t = (double)h->ts.tv_sec + (double)h->ts.tv_usec * 1e-6;

		st->frames++;
		if (!udp_of(dlt, p, h->caplen, &u)) {
			st->skipped++;
			continue;
		}
		st->udp++;
		datagram(&x, &u, t);
	}
	if (rc == -1) {
		snprintf(err, errsize, "%s: %s", path, pcap_geterr(pc));
		pcap_close(pc);
		qwc_free(&x.q);
		qwb_actions_free(out);
		return -1;
	}
	pcap_close(pc);
	qwc_free(&x.q);
	cut_signon(&x);
	if (!x.flow_known) {
		snprintf(err, errsize, "%s: no client found (%s)", path,
			 client_port ? "no UDP packet to or from that port"
				     : "no getchallenge or connect: give --client-port");
		qwb_actions_free(out);
		return -1;
	}
	snprintf(out->source, sizeof(out->source), "capture %s", path);
	return 0;
}
