/*
 * analyze.c -- a capture into per-client, per-direction counts (see
 * qwcap.h for what is counted and how the server and clients are found).
 *
 * Design note
 *   The capture's IPv4/UDP datagrams come from the tools' reader
 *   (tools/lib/pcapread.c, every offset checked).  The payload is, by
 *   direction:
 *
 *     client -> server  ff ff ff ff text          connectionless request
 *                       'k' (one byte)            ping
 *                       seq(4) ack(4) qport(2)    netchan; bit 31 of seq
 *                       | clc messages            is the reliable flag
 *     server -> client  ff ff ff ff text          connectionless reply
 *                       'l' (one byte)            ping answer
 *                       seq(4) ack(4) | svc ...   netchan
 *
 *   clc messages are walked with the readers the server uses (msg_read_*,
 *   msg_read_delta_usercmd; layouts as in src/server/user.c).  svc
 *   messages are passed over by the client library's walker
 *   (qwc_svc_skip, src/client/svc.c: protocol 28, qwd's extension and
 *   FTE's), which needs no state but two per client, from its connect:
 *   whether it asked for QWDX, which makes the player number of
 *   svc_serverdata a short, and whether it took FTE's chunked downloads
 *   (docs/downloads.md), which makes svc_download a chunk.  The
 *   library's parser is not used because it keeps per-kind
 *   totals only and needs the whole signon to follow a connection.
 */
#include "qwcap.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/client.h"
#include "qwd/protocol.h"

const unsigned qwcap_bucket_lo[QWCAP_BUCKETS] = {
	0, 16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1280,
	MAX_DATAGRAM + 1
};

int qwcap_bucket(size_t size)
{
	int b = 0;

	while (b + 1 < QWCAP_BUCKETS && size >= qwcap_bucket_lo[b + 1])
		b++;
	return b;
}

/* ---- names ------------------------------------------------------------ */

static const char *const clc_names[256] = {
	[clc_nop] = "clc_nop",
	[clc_move] = "clc_move",
	[clc_stringcmd] = "clc_stringcmd",
	[clc_delta] = "clc_delta",
	[clc_tmove] = "clc_tmove",
	[clc_upload] = "clc_upload",
};

static const char *const svc_names[256] = {
	[svc_bad] = "svc_bad",
	[svc_nop] = "svc_nop",
	[svc_disconnect] = "svc_disconnect",
	[svc_updatestat] = "svc_updatestat",
	[svc_setview] = "svc_setview",
	[svc_sound] = "svc_sound",
	[svc_print] = "svc_print",
	[svc_stufftext] = "svc_stufftext",
	[svc_setangle] = "svc_setangle",
	[svc_serverdata] = "svc_serverdata",
	[svc_lightstyle] = "svc_lightstyle",
	[svc_updatefrags] = "svc_updatefrags",
	[svc_stopsound] = "svc_stopsound",
	[svc_damage] = "svc_damage",
	[svc_spawnstatic] = "svc_spawnstatic",
	[svc_spawnbaseline] = "svc_spawnbaseline",
	[svc_temp_entity] = "svc_temp_entity",
	[svc_setpause] = "svc_setpause",
	[svc_centerprint] = "svc_centerprint",
	[svc_killedmonster] = "svc_killedmonster",
	[svc_foundsecret] = "svc_foundsecret",
	[svc_spawnstaticsound] = "svc_spawnstaticsound",
	[svc_intermission] = "svc_intermission",
	[svc_finale] = "svc_finale",
	[svc_cdtrack] = "svc_cdtrack",
	[svc_sellscreen] = "svc_sellscreen",
	[svc_smallkick] = "svc_smallkick",
	[svc_bigkick] = "svc_bigkick",
	[svc_updateping] = "svc_updateping",
	[svc_updateentertime] = "svc_updateentertime",
	[svc_updatestatlong] = "svc_updatestatlong",
	[svc_muzzleflash] = "svc_muzzleflash",
	[svc_updateuserinfo] = "svc_updateuserinfo",
	[svc_download] = "svc_download",
	[svc_playerinfo] = "svc_playerinfo",
	[svc_nails] = "svc_nails",
	[svc_chokecount] = "svc_chokecount",
	[svc_modellist] = "svc_modellist",
	[svc_soundlist] = "svc_soundlist",
	[svc_packetentities] = "svc_packetentities",
	[svc_deltapacketentities] = "svc_deltapacketentities",
	[svc_maxspeed] = "svc_maxspeed",
	[svc_entgravity] = "svc_entgravity",
	[svc_setinfo] = "svc_setinfo",
	[svc_serverinfo] = "svc_serverinfo",
	[svc_updatepl] = "svc_updatepl",
	[svc_nails2] = "svc_nails2",
	[svcx_playerinfo] = "svcx_playerinfo",
	[svcx_packetentities] = "svcx_packetentities",
	[svcx_deltapacketentities] = "svcx_deltapacketentities",
	[svcx_updateuserinfo] = "svcx_updateuserinfo",
	[svcx_updatefrags] = "svcx_updatefrags",
	[svcx_updateping] = "svcx_updateping",
	[svcx_updatepl] = "svcx_updatepl",
	[svcx_updateentertime] = "svcx_updateentertime",
};

static const char *const oob_names[QWCAP_OOB_KINDS] = {
	"getchallenge", "connect", "status", "ping", "rcon",
	"challenge", "accept", "print", "ack", "other"
};

const char *qwcap_msg_name(enum qwcap_dir dir, int code)
{
	if (code < 0 || code > 255)
		return NULL;
	return dir == QWCAP_C2S ? clc_names[code] : svc_names[code];
}

const char *qwcap_oob_name(int kind)
{
	return kind >= 0 && kind < QWCAP_OOB_KINDS ? oob_names[kind] : "?";
}

const char *qwcap_dir_name(enum qwcap_dir dir)
{
	return dir == QWCAP_C2S ? "c2s" : "s2c";
}

double qwcap_rate(uint64_t n, double seconds)
{
	return seconds > 0 ? (double)n / seconds : 0;
}

/* ---- the report and its clients --------------------------------------- */

static void dir_init(struct qwcap_dir_stats *d)
{
	memset(d, 0, sizeof(*d));
	d->min = UINT32_MAX;
}

void qwcap_report_init(struct qwcap_report *r, uint16_t server_port,
		       size_t max_clients)
{
	memset(r, 0, sizeof(*r));
	r->server_port = server_port;
	r->max_clients = max_clients ? max_clients : QWCAP_DEFAULT_MAX_CLIENTS;
	for (int d = 0; d < QWCAP_DIRS; d++)
		dir_init(&r->total[d]);
}

void qwcap_report_free(struct qwcap_report *r)
{
	free(r->clients);
	free(r->index);
	r->clients = NULL;
	r->index = NULL;
	r->nclients = r->cap = r->index_size = 0;
}

static uint32_t key_hash(const struct net_addr *a, const struct net_addr *s)
{
	uint32_t h = a->ip * 0x9e3779b1u ^ (uint32_t)a->port * 0x85ebca77u ^
		     s->ip * 0xc2b2ae3du;

	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	return h ^ (h >> 13);
}

static bool same_key(const struct qwcap_client *c, const struct net_addr *a,
		     const struct net_addr *s)
{
	return net_addr_equal(&c->addr, a) && c->server.ip == s->ip;
}

static void index_put(struct qwcap_report *r, size_t i)
{
	size_t mask = r->index_size - 1;
	size_t h = key_hash(&r->clients[i].addr, &r->clients[i].server) & mask;

	while (r->index[h])
		h = (h + 1) & mask;
	r->index[h] = (uint32_t)(i + 1);
}

/* room for one more client; false when memory ran out */
static bool grow(struct qwcap_report *r)
{
	size_t ncap = r->cap ? r->cap * 2 : 64;
	struct qwcap_client *nc;
	uint32_t *ni;

	nc = reallocarray(r->clients, ncap, sizeof(*nc));
	if (!nc)
		return false;
	r->clients = nc;
	ni = calloc(ncap * 2, sizeof(*ni));
	if (!ni)
		return false;
	free(r->index);
	r->index = ni;
	r->index_size = ncap * 2;
	r->cap = ncap;
	for (size_t i = 0; i < r->nclients; i++)
		index_put(r, i);
	return true;
}

static struct qwcap_client *find_client(struct qwcap_report *r,
					const struct net_addr *a,
					const struct net_addr *s)
{
	struct qwcap_client *c;

	if (r->index_size) {
		size_t mask = r->index_size - 1;

		for (size_t h = key_hash(a, s) & mask; r->index[h]; h = (h + 1) & mask)
			if (same_key(&r->clients[r->index[h] - 1], a, s))
				return &r->clients[r->index[h] - 1];
	}
	if (r->nclients >= r->max_clients)
		return NULL;
	if (r->nclients == r->cap && !grow(r))
		return NULL;
	c = &r->clients[r->nclients];
	memset(c, 0, sizeof(*c));
	c->addr = *a;
	c->server = *s;
	c->qport = -1;
	for (int d = 0; d < QWCAP_DIRS; d++)
		dir_init(&c->dir[d]);
	index_put(r, r->nclients++);
	return c;
}

/* ---- counting --------------------------------------------------------- */

/* the client's and the total's stats of one direction, counted alike */
struct sink {
	struct qwcap_dir_stats *d[2];
};

static void count_size(struct sink *s, size_t len)
{
	uint32_t v = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;

	for (int k = 0; k < 2; k++) {
		struct qwcap_dir_stats *d = s->d[k];

		d->packets++;
		d->bytes += len;
		if (v < d->min)
			d->min = v;
		if (v > d->max)
			d->max = v;
		d->hist[qwcap_bucket(len)]++;
	}
}

static void count_msg(struct sink *s, int code, size_t bytes)
{
	for (int k = 0; k < 2; k++) {
		s->d[k]->messages++;
		s->d[k]->msg[code & 255]++;
		s->d[k]->msg_bytes[code & 255] += bytes;
	}
}

static void count_oob(struct sink *s, int kind)
{
	for (int k = 0; k < 2; k++) {
		s->d[k]->connectionless++;
		s->d[k]->oob[kind]++;
	}
}

static void count_netchan(struct sink *s, bool reliable)
{
	for (int k = 0; k < 2; k++) {
		s->d[k]->netchan++;
		if (reliable)
			s->d[k]->reliable++;
	}
}

static void count_bad(struct sink *s)
{
	s->d[0]->bad++;
	s->d[1]->bad++;
}

static void count_cut(struct sink *s)
{
	s->d[0]->cut++;
	s->d[1]->cut++;
}

/* ---- walking messages ------------------------------------------------- */

static bool walk_clc(struct msg_buf *m, int clc)
{
	static const struct usercmd nullcmd;
	struct usercmd c0, c1, c2;
	int n;

	switch (clc) {
	case clc_nop:
		break;
	case clc_move:
		/* checksum byte, loss byte, three commands each a delta from
		 * the one before, the first from a null command */
		msg_skip(m, 2);
		if (!msg_read_delta_usercmd(m, &nullcmd, &c0) ||
		    !msg_read_delta_usercmd(m, &c0, &c1) ||
		    !msg_read_delta_usercmd(m, &c1, &c2))
			return false;
		break;
	case clc_stringcmd:
		msg_read_string(m, NULL, 0);
		break;
	case clc_delta:
		msg_skip(m, 1);
		break;
	case clc_tmove:
		msg_skip(m, 6);
		break;
	case clc_upload:
		n = msg_read_short(m);
		msg_skip(m, 1);
		if (n > 0)
			msg_skip(m, (size_t)n);
		break;
	default:
		return false;
	}
	return !m->badread;
}

/* ---- one datagram ----------------------------------------------------- */

static bool is_oob(const uint8_t *d, size_t len)
{
	return len >= 4 && d[0] == 0xff && d[1] == 0xff && d[2] == 0xff &&
	       d[3] == 0xff;
}

/* the first word of a connectionless request */
static int request_kind(const uint8_t *text, size_t len)
{
	static const struct {
		const char *word;
		int kind;
	} words[] = {
		{"getchallenge", QWCAP_OOB_GETCHALLENGE},
		{"connect", QWCAP_OOB_CONNECT},
		{"status", QWCAP_OOB_STATUS},
		{"ping", QWCAP_OOB_PING},
		{"rcon", QWCAP_OOB_RCON},
	};
	size_t n = 0;

	while (n < len && text[n] > ' ')
		n++;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i].word) == n && memcmp(words[i].word, text, n) == 0)
			return words[i].kind;
	return QWCAP_OOB_OTHER;
}

static int reply_kind(const uint8_t *text, size_t len)
{
	if (len == 0)
		return QWCAP_OOB_OTHER;
	switch (text[0]) {
	case S2C_CHALLENGE:
		return QWCAP_OOB_CHALLENGE;
	case S2C_CONNECTION:
		return QWCAP_OOB_ACCEPT;
	case A2C_PRINT:
		return QWCAP_OOB_PRINT;
	case A2A_ACK:
		return QWCAP_OOB_ACK;
	default:
		return QWCAP_OOB_OTHER;
	}
}

/* "connect 28 <qport> <challenge> "<userinfo>"" [\n "QWDX 1"]
 * [\n "0x58455446 0x<flags>"]: the qport, whether the extension was
 * asked for, FTE's extensions taken */
static void read_connect(struct qwcap_client *c, const uint8_t *text,
			 size_t len)
{
	static const char ext[] = "\n" QWDX_PROTOCOL_NAME " ";
	char line[64], fte[32];
	size_t n = len < sizeof(line) - 1 ? len : sizeof(line) - 1;
	const uint8_t *tag;
	unsigned qport;
	int k;

	memcpy(line, text, n);
	line[n] = '\0';
	if (sscanf(line, "connect %*d %u", &qport) == 1 && qport <= 0xffff)
		c->qport = (int)qport;
	c->extended = memmem(text, len, ext, sizeof(ext) - 1) != NULL;
	k = snprintf(fte, sizeof(fte), "\n0x%x ", PROTOCOL_VERSION_FTE);
	tag = memmem(text, len, fte, (size_t)k);
	c->fte = 0;
	if (tag) {
		size_t at = (size_t)(tag - text) + (size_t)k;

		n = len - at < sizeof(line) - 1 ? len - at : sizeof(line) - 1;
		memcpy(line, tag + k, n);
		line[n] = '\0';
		c->fte = (uint32_t)strtoul(line, NULL, 0);
	}
}

/* what the client's connect negotiated, for the svc walker */
static unsigned svc_form(const struct qwcap_client *c)
{
	return (c->extended ? QWC_SVC_QWDX : 0) |
	       (c->fte & FTE_PEXT_CHUNKEDDOWNLOADS ? QWC_SVC_CHUNKED : 0);
}

/* a netchan datagram: its header (with the client's qport from a
 * client), then its messages, walked by the direction's layouts */
static void netchan_datagram(struct qwcap_client *c, struct sink *s,
			     const struct qwt_udp *u, enum qwcap_dir dir)
{
	size_t hdr = dir == QWCAP_C2S ? NETCHAN_HEADER_QPORT : NETCHAN_HEADER;
	const uint8_t *d = u->data;
	size_t have = u->caplen;
	struct msg_buf m;

	if (have < hdr) {
		if (have < u->len)
			count_cut(s);
		else
			count_bad(s);
		return;
	}
	count_netchan(s, (d[3] & 0x80) != 0);
	if (dir == QWCAP_C2S)
		c->qport = d[8] | d[9] << 8;
	if (have < u->len) {
		count_cut(s);
		return;
	}
	/* the cast: the readers never write */
	msg_init_read(&m, (void *)(uintptr_t)d, have);
	m.readpos = hdr;
	while (msg_read_remaining(&m) > 0) {
		size_t start = m.readpos;
		int code = msg_read_byte(&m);
		bool ok = dir == QWCAP_C2S ? walk_clc(&m, code)
					   : qwc_svc_skip(&m, code, svc_form(c));

		if (!ok) {
			count_bad(s);
			return;
		}
		count_msg(s, code, m.readpos - start);
	}
}

static void client_to_server(struct qwcap_client *c, struct sink *s,
			     const struct qwt_udp *u)
{
	const uint8_t *d = u->data;
	size_t have = u->caplen;

	if (u->len == 1 && have == 1 && d[0] == A2A_PING) {
		count_oob(s, QWCAP_OOB_PING);
		return;
	}
	if (is_oob(d, have)) {
		int kind = request_kind(d + 4, have - 4);

		count_oob(s, kind);
		if (kind == QWCAP_OOB_CONNECT)
			read_connect(c, d + 4, have - 4);
		if (have < u->len)
			count_cut(s);
		return;
	}
	netchan_datagram(c, s, u, QWCAP_C2S);
}

static void server_to_client(struct qwcap_client *c, struct sink *s,
			     const struct qwt_udp *u)
{
	const uint8_t *d = u->data;
	size_t have = u->caplen;

	if (u->len == 1 && have == 1 && d[0] == A2A_ACK) {
		count_oob(s, QWCAP_OOB_ACK);
		return;
	}
	if (is_oob(d, have)) {
		count_oob(s, reply_kind(d + 4, have - 4));
		if (have < u->len)
			count_cut(s);
		return;
	}
	netchan_datagram(c, s, u, QWCAP_S2C);
}

void qwcap_datagram(struct qwcap_report *r, const struct qwt_udp *u,
		    double t)
{
	uint16_t sport = ntohs(u->src.port), dport = ntohs(u->dst.port);
	const struct net_addr *client, *server;
	enum qwcap_dir dir;
	struct qwcap_client *c;
	struct sink s;

	if (sport == r->server_port && dport != r->server_port) {
		dir = QWCAP_S2C;
		client = &u->dst;
		server = &u->src;
	} else if (dport == r->server_port && sport != r->server_port) {
		dir = QWCAP_C2S;
		client = &u->src;
		server = &u->dst;
	} else {
		r->other++;	/* not the server's, or server to server */
		return;
	}
	c = find_client(r, client, server);
	if (!c) {
		r->over_limit++;
		return;
	}
	if (c->dir[0].packets + c->dir[1].packets == 0) {
		c->first = c->last = t;
	} else {
		if (t < c->first)
			c->first = t;
		if (t > c->last)
			c->last = t;
	}
	if (!r->have_time || t < r->first)
		r->first = t;
	if (!r->have_time || t > r->last)
		r->last = t;
	r->have_time = true;
	s.d[0] = &c->dir[dir];
	s.d[1] = &r->total[dir];
	count_size(&s, u->len);
	if (dir == QWCAP_C2S)
		client_to_server(c, &s, u);
	else
		server_to_client(c, &s, u);
}

/* ---- the file --------------------------------------------------------- */

/* the port in most datagrams, 27500 if it is in any */
static int guess_port(const char *path, char *err, size_t errsize)
{
	uint64_t *count = calloc(65536, sizeof(*count));
	struct qwt_pcap pc;
	struct qwt_udp u;
	bool is_udp;
	double t;
	int rc, best = PORT_SERVER;

	if (!count) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	if (qwt_pcap_open(&pc, path, err, errsize) != 0) {
		free(count);
		return -1;
	}
	while ((rc = qwt_pcap_next(&pc, &u, &is_udp, &t, err, errsize)) == 1) {
		if (!is_udp)
			continue;
		count[ntohs(u.src.port)]++;
		count[ntohs(u.dst.port)]++;
	}
	if (rc < 0) {
		best = -1;
	} else if (count[PORT_SERVER] == 0) {
		for (int port = 0; port < 65536; port++)
			if (count[port] > count[best])
				best = port;
	}
	qwt_pcap_close(&pc);
	free(count);
	return best;
}

int qwcap_analyze(const char *path, const struct qwcap_options *opt,
		  struct qwcap_report *r, char *err, size_t errsize)
{
	struct qwt_pcap pc;
	struct qwt_udp u;
	bool is_udp;
	double t;
	int port = opt->server_port, rc;

	memset(r, 0, sizeof(*r));
	if (port <= 0) {
		port = guess_port(path, err, errsize);
		if (port < 0)
			return -1;
	}
	qwcap_report_init(r, (uint16_t)port, opt->max_clients);
	r->port_guessed = opt->server_port <= 0 && port != PORT_SERVER;
	if (qwt_pcap_open(&pc, path, err, errsize) != 0)
		return -1;
	r->dlt = pc.dlt;
	while ((rc = qwt_pcap_next(&pc, &u, &is_udp, &t, err, errsize)) == 1) {
		r->frames++;
		if (!is_udp) {
			r->skipped++;
			continue;
		}
		r->udp++;
		qwcap_datagram(r, &u, t);
	}
	qwt_pcap_close(&pc);
	return rc < 0 ? -1 : 0;
}
