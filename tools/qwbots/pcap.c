/*
 * pcap.c -- a packet capture of a real client's session into an action
 * file (qwbots --from-pcap).
 *
 * Design note
 *   The capture's IPv4/UDP datagrams come from the tools' reader
 *   (tools/lib/pcapread.c: anything libpcap reads, every length checked
 *   against what was captured); a datagram the snap length cut is
 *   skipped, since a move cannot be read from part of it.
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
#include "qwtools.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

struct extract {
	struct actions *out;
	struct qwb_pcap_stats *st;
	uint16_t client_port;	/* host order; 0: find it */
	bool flow_known;
	struct net_addr client, server;	/* network order */

	struct qwc q;		/* the passive client */
	bool q_ready;		/* its netchan is set up */

	bool have_seq;
	uint32_t last_seq;	/* newest client sequence with a move */
	size_t begin_index;	/* commands before the first begin */
	bool spawn_known;
	double t0;
	bool have_t0;
};

/* ---- connectionless packets ------------------------------------------- */

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
	netchan_setup(&x->q.chan, NETCHAN_CLIENT, &x->server, qport, t);
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
	if (actions_push(x->out, t - x->t0, cmd))
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
		actions_map_name(x->q.mapmodel, x->out->map, sizeof(x->out->map));
	if (!x->spawn_known && x->q.state == QWC_ACTIVE) {
		x->spawn_known = true;
		x->out->has_spawn = true;
		vec_copy(x->q.self_origin, x->out->spawn);
	}
}

/* ---- the capture ------------------------------------------------------- */

static void datagram(struct extract *x, const struct qwt_udp *u, double t)
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
		x->q.opt.server = x->server;
	}
	if (net_addr_equal(&u->src, &x->client) && net_addr_equal(&u->dst, &x->server))
		client_packet(x, u->data, u->len, t);
	else if (net_addr_equal(&u->src, &x->server) && net_addr_equal(&u->dst, &x->client))
		server_packet(x, u->data, u->len, t);
	else
		x->st->skipped++;
}

/* keep what follows the first begin, times from its first command */
static void cut_signon(struct extract *x)
{
	struct actions *a = x->out;
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
		     struct actions *out, struct qwb_pcap_stats *st,
		     char *err, size_t errsize)
{
	struct extract x;
	struct qwc_options o = {0};
	struct qwt_pcap pc;
	struct qwt_udp u;
	bool is_udp;
	double t;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(st, 0, sizeof(*st));
	strlcpy(out->map, "unknown", sizeof(out->map));
	if (qwt_pcap_open(&pc, path, err, errsize) != 0)
		return -1;
	memset(&x, 0, sizeof(x));
	x.out = out;
	x.st = st;
	x.client_port = (uint16_t)client_port;
	o.userinfo = "\\name\\capture";
	o.resend_interval = 1e9;	/* it never sends anyway */
	if (qwc_init(&x.q, &o) != 0) {
		snprintf(err, errsize, "out of memory");
		qwt_pcap_close(&pc);
		qwc_free(&x.q);
		return -1;
	}
	qwc_connect(&x.q, 0);
	while ((rc = qwt_pcap_next(&pc, &u, &is_udp, &t, err, errsize)) == 1) {
		st->frames++;
		if (!is_udp || u.caplen < u.len) {
			st->skipped++;
			continue;
		}
		st->udp++;
		datagram(&x, &u, t);
	}
	qwt_pcap_close(&pc);
	qwc_free(&x.q);
	if (rc < 0) {
		actions_free(out);
		return -1;
	}
	cut_signon(&x);
	if (!x.flow_known) {
		snprintf(err, errsize, "%s: no client found (%s)", path,
			 client_port ? "no UDP packet to or from that port"
				     : "no getchallenge or connect: give --client-port");
		actions_free(out);
		return -1;
	}
	snprintf(out->source, sizeof(out->source), "capture %s", path);
	return 0;
}
