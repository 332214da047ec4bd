/*
 * client.c -- the connection side of the client library: the
 * connectionless dialogue, the netchan, clc_move packets, and the command
 * text a server stuffs into the client.
 *
 * Design note
 *   Client to server datagram (qwc_packet, connected states):
 *     netchan header + qport | reliable stringcmds (if due) |
 *     clc_move cksum loss cmd0 cmd1 cmd2 | clc_delta <seq & 255>
 *   cmd0 is a delta from a null command, cmd1 from cmd0, cmd2 from cmd1
 *   (cmd2 newest), so the server can fill a gap of two lost packets.  The
 *   checksum byte is com_block_sequence_crc_byte over the bytes after it
 *   (loss and the three commands) with the sequence this packet carries;
 *   a wrong byte makes the server ignore the move silently.
 *
 *   Stuffed text is run as id's command buffer runs it: lines end at '\n',
 *   a ';' outside quotes also ends a command.  Only what a signon needs
 *   is understood (cmd, skins, changing, reconnect, fullserverinfo,
 *   disconnect, and packet: MVDSV's real-address check needs it);
 *   anything else is ignored, as a console would print it.
 *   Partial lines wait in c->stuff for the rest (servers may split a
 *   stufftext over messages).
 */
#include "internal.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

static const struct usercmd null_cmd;

int qwc_init(struct qwc *c, const struct qwc_options *opt)
{
	memset(c, 0, sizeof(*c));
	c->opt = *opt;
	if (c->opt.max_players <= 0)
		c->opt.max_players = 64;
	if (c->opt.max_baselines <= 0)
		c->opt.max_baselines = 8192 + 2048;
	if (c->opt.packet_interval <= 0)
		c->opt.packet_interval = 1.0 / 77.0;
	if (c->opt.resend_interval <= 0)
		c->opt.resend_interval = 1.0;
	if (!c->opt.userinfo)
		c->opt.userinfo = "\\name\\qwc\\topcolor\\0\\bottomcolor\\0\\rate\\25000";
	if (c->opt.qport == 0)
		c->opt.qport = (uint16_t)(((uintptr_t)c >> 4) & 0xffff);
	c->state = QWC_DISCONNECTED;
	c->playernum = -1;
	c->players = calloc((size_t)c->opt.max_players, sizeof(*c->players));
	if (!c->players)
		return -1;
	if (c->opt.track_entities) {
		c->baselines = calloc((size_t)c->opt.max_baselines, sizeof(*c->baselines));
		c->frames = calloc(UPDATE_BACKUP, sizeof(*c->frames));
		if (!c->baselines || !c->frames)
			return -1;
	}
	return 0;
}

void qwc_free(struct qwc *c)
{
	qwc_dl_free(c);
	free(c->players);
	free(c->baselines);
	free(c->frames);
	c->players = NULL;
	c->baselines = NULL;
	c->frames = NULL;
}

/* forget everything about the level (a new signon follows) */
static void reset_level(struct qwc *c)
{
	c->self_seen = false;
	c->valid_sequence = 0;
	c->num_seen = 0;
	c->total_seen = 0;
	c->sounds = 0;
	c->models = 0;
	c->mapmodel[0] = '\0';
	memset(c->stat, 0, sizeof(c->stat));
	memset(c->frame_ok, 0, sizeof(c->frame_ok));
	if (c->frames)
		for (int i = 0; i < UPDATE_BACKUP; i++)
			c->frames[i].valid = false;
	if (c->baselines)
		memset(c->baselines, 0, sizeof(*c->baselines) * (size_t)c->opt.max_baselines);
}

void qwc_connect(struct qwc *c, double now)
{
	(void)now;
	c->state = QWC_CHALLENGING;
	c->last_oob = -1e9;
	c->reason[0] = '\0';
	c->closing = false;
	reset_level(c);
}

bool qwc_stringcmd(struct qwc *c, const char *text)
{
	size_t n = strlen(text) + 2;

	if (c->state < QWC_CONNECTED || c->state > QWC_ACTIVE)
		return false;
	if (c->chan.message.cursize + n > c->chan.message.maxsize)
		return false;
	msg_write_byte(&c->chan.message, clc_stringcmd);
	msg_write_string(&c->chan.message, text);
	c->stats.stringcmds++;
	return true;
}

void qwc_disconnect(struct qwc *c)
{
	if (c->state >= QWC_CONNECTED && c->state <= QWC_ACTIVE) {
		qwc_stringcmd(c, "drop");
		c->closing = true;
	} else {
		c->state = QWC_DISCONNECTED;
	}
}

size_t qwc_build_oob(uint8_t *out, size_t max, const char *text)
{
	size_t n = strlen(text);

	if (max < n + 4)
		return 0;
	memset(out, 0xff, 4);
	memcpy(out + 4, text, n);
	return n + 4;
}

static size_t connect_packet(struct qwc *c, uint8_t *out, size_t max)
{
	char text[MAX_INFO_STRING + 96];

	char fte[32] = "";

	if (c->fte)
		snprintf(fte, sizeof(fte), "0x%x 0x%x\n", PROTOCOL_VERSION_FTE, c->fte);
	snprintf(text, sizeof(text), "connect %d %u %d \"%s\"\n%s%s",
		 PROTOCOL_VERSION, c->opt.qport, (int)c->challenge,
		 c->opt.userinfo,
		 c->opt.extension ? QWDX_PROTOCOL_NAME " 1\n" : "", fte);
	return qwc_build_oob(out, max, text);
}

/* percent of the server's packets that went missing */
static int loss_percent(const struct netchan *ch)
{
	uint64_t all = (uint64_t)ch->good_count + ch->dropped_total;

	return all ? (int)((uint64_t)ch->dropped_total * 100 / all) : 0;
}

static size_t move_packet(struct qwc *c, double now, uint8_t *out, size_t max)
{
	uint8_t data[64 + QWC_MAX_CHUNK_REQUESTS * 32];
	struct msg_buf m;
	double ms = (now - c->last_move_time) * 1000.0;
	struct qwc_out *o;
	size_t n;

	if (c->last_move_time <= 0 || ms < 0)
		ms = c->opt.packet_interval * 1000.0;
	if (ms > 250)
		ms = 250;
	c->last_move_time = now;
	c->cmd.msec = (uint8_t)lround(ms);
	c->sent[0] = c->sent[1];
	c->sent[1] = c->sent[2];
	c->sent[2] = c->cmd;

	msg_init(&m, data, sizeof(data));
	msg_write_byte(&m, clc_move);
	msg_write_byte(&m, 0);	/* the checksum, filled in below */
	msg_write_byte(&m, loss_percent(&c->chan));
	msg_write_delta_usercmd(&m, &null_cmd, &c->sent[0]);
	msg_write_delta_usercmd(&m, &c->sent[0], &c->sent[1]);
	msg_write_delta_usercmd(&m, &c->sent[1], &c->sent[2]);
	data[1] = com_block_sequence_crc_byte(data + 2, m.cursize - 2,
					      c->chan.outgoing_sequence);
	if (c->valid_sequence && c->state >= QWC_SPAWNED) {
		msg_write_byte(&m, clc_delta);
		msg_write_byte(&m, (int)(c->valid_sequence & 0xff));
	}
	qwc_dl_requests(c, &m, now);

	o = &c->out[c->chan.outgoing_sequence & QWC_OUT_MASK];
	o->sequence = c->chan.outgoing_sequence;
	o->senttime = now;
	o->acktime = -1;
	o->has_move = true;
	n = netchan_transmit(&c->chan, m.data, m.cursize, now, out, max);
	if (c->chan.fatal_error) {
		c->state = QWC_DROPPED;
		strlcpy(c->reason, "reliable channel overflowed", sizeof(c->reason));
		return 0;
	}
	return n;
}

size_t qwc_packet(struct qwc *c, double now, bool force, uint8_t *out,
		  size_t max)
{
	size_t n = 0;

	switch (c->state) {
	case QWC_CHALLENGING:
		if (now - c->last_oob >= c->opt.resend_interval) {
			c->last_oob = now;
			n = qwc_build_oob(out, max, "getchallenge\n");
		}
		break;
	case QWC_CONNECTING:
		if (now - c->last_oob >= c->opt.resend_interval) {
			c->last_oob = now;
			n = connect_packet(c, out, max);
		}
		break;
	case QWC_CONNECTED:
	case QWC_SPAWNED:
	case QWC_ACTIVE:
		if (!force && now < c->next_packet)
			break;
		c->next_packet = now + c->opt.packet_interval;
		n = move_packet(c, now, out, max);
		if (c->closing)
			c->state = QWC_DISCONNECTED;
		break;
	default:
		break;
	}
	if (n) {
		c->stats.packets_out++;
		c->stats.bytes_out += n;
	}
	return n;
}

/* ---- connectionless replies ------------------------------------------- */

/* FTE's offer after the challenge's NUL: pairs of longs (tag, flags) */
static uint32_t fte_offer(const uint8_t *data, size_t len)
{
	const uint8_t *nul = memchr(data, 0, len);
	struct msg_buf m;
	uint32_t offer = 0;

	if (!nul)
		return 0;
	/* the reads never write: the cast leaves the bytes as they are */
	msg_init_read(&m, (void *)(uintptr_t)data, len);
	m.readpos = (size_t)(nul - data) + 1;
	while (msg_read_remaining(&m) >= 8) {
		uint32_t tag = (uint32_t)msg_read_long(&m);
		uint32_t flags = (uint32_t)msg_read_long(&m);

		if (tag == PROTOCOL_VERSION_FTE)
			offer = flags;
	}
	return offer;
}

static bool receive_oob(struct qwc *c, const uint8_t *data, size_t len,
			double now)
{
	char text[NET_MAX_DATAGRAM];
	size_t n = len - 4 < sizeof(text) - 1 ? len - 4 : sizeof(text) - 1;

	memcpy(text, data + 4, n);
	text[n] = '\0';
	if (n == 0) {
		c->stats.bad[QWC_BAD_OOB]++;
		return false;
	}
	switch (text[0]) {
	case S2C_CHALLENGE:
		if (c->state != QWC_CHALLENGING)
			return true;	/* a late duplicate */
		c->challenge = (int32_t)strtol(text + 1, NULL, 10);
		c->fte_offered = fte_offer(data + 4, len - 4);
		c->fte = c->fte_offered & c->opt.fte_extensions;
		c->state = QWC_CONNECTING;
		c->last_oob = -1e9;
		return true;
	case S2C_CONNECTION:
		if (c->state != QWC_CONNECTING)
			return true;
		netchan_setup(&c->chan, NETCHAN_CLIENT, &c->opt.server,
			      c->opt.qport, now);
		netchan_set_rate(&c->chan, 25000);
		c->state = QWC_CONNECTED;
		c->next_packet = now;
		c->last_move_time = 0;
		memset(c->sent, 0, sizeof(c->sent));
		memset(c->out, 0, sizeof(c->out));
		qwc_stringcmd(c, "new");
		return true;
	case A2C_PRINT:
		strlcpy(c->last_print, text + 1, sizeof(c->last_print));
		if (c->state == QWC_CONNECTING || c->state == QWC_CHALLENGING) {
			strlcpy(c->reason, text + 1, sizeof(c->reason));
			c->state = QWC_REFUSED;
		}
		return true;
	default:
		c->stats.bad[QWC_BAD_OOB]++;
		return false;
	}
}

bool qwc_receive(struct qwc *c, const uint8_t *data, size_t len, double now)
{
	struct msg_buf m;
	uint32_t stale, ack;

	c->stats.packets_in++;
	c->stats.bytes_in += len;
	if (len >= 4 && data[0] == 0xff && data[1] == 0xff && data[2] == 0xff &&
	    data[3] == 0xff)
		return qwc_dl_oob(c, data, len) || receive_oob(c, data, len, now);
	if (len == 1 && data[0] == A2A_ACK)
		return true;
	if (c->state < QWC_CONNECTED || c->state > QWC_ACTIVE) {
		c->stats.bad[QWC_BAD_HEADER]++;
		return false;
	}
	/* netchan_process only reads: the cast leaves the bytes as they are */
	msg_init_read(&m, (void *)(uintptr_t)data, len);
	stale = c->chan.stale_count;
	if (!netchan_process(&c->chan, &m, now)) {
		if (c->chan.stale_count != stale)
			c->stats.bad[QWC_BAD_STALE]++;
		else
			c->stats.bad[QWC_BAD_HEADER]++;
		return false;
	}
	c->stats.replies++;
	c->last_reply_sequence = c->chan.incoming_sequence;
	ack = c->chan.incoming_acknowledged;
	{
		struct qwc_out *o = &c->out[ack & QWC_OUT_MASK];

		if (o->sequence == ack && o->senttime > 0 && o->acktime < 0) {
			o->acktime = now;
			c->stats.acks++;
			if (c->opt.on_ack)
				c->opt.on_ack(c->opt.ctx, c, o, now);
		}
	}
	qwc_parse_payload(c, &m, now);
	return true;
}

/* ---- the signon ------------------------------------------------------- */

static void stringcmdf(struct qwc *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void stringcmdf(struct qwc *c, const char *fmt, ...)
{
	char text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	qwc_stringcmd(c, text);
}

void qwc_signon_serverdata(struct qwc *c)
{
	reset_level(c);
	c->state = QWC_CONNECTED;
	stringcmdf(c, "soundlist %d 0", c->servercount);
}

void qwc_signon_list(struct qwc *c, bool models, int next)
{
	uint32_t sum = c->opt.checksum2;

	if (next) {
		stringcmdf(c, "%s %d %d", models ? "modellist" : "soundlist",
			   c->servercount, next);
		return;
	}
	if (!models) {
		stringcmdf(c, "modellist %d 0", c->servercount);
		return;
	}
	if (c->opt.map_checksum &&
	    !c->opt.map_checksum(c->opt.ctx, c->mapmodel, &sum))
		sum = c->opt.checksum2;
	stringcmdf(c, "prespawn %d 0 %d", c->servercount, (int)(int32_t)sum);
}

/* ---- stuffed commands ------------------------------------------------- */

/* "packet <destination> <contents>" (added for tools/qwbots): id's client
 * sends the contents as a connectionless datagram, "\n" in them read as
 * a newline, to the destination (port 27500 when none is given).  Servers
 * configured with their loopback or any-address stuff 127.0.0.1 or
 * 0.0.0.0 to remote clients; as FTE does, such a destination is taken to
 * mean the server itself.  The datagram waits in c->stuffed_oob. */
static void stuffed_packet(struct qwc *c, const struct net_args *a)
{
	const char *in = net_args_argv(a, 2);
	struct net_addr to;
	size_t n = 4;

	if (a->argc != 3 || !net_addr_parse(net_args_argv(a, 1), PORT_SERVER, &to))
		return;
	if ((to.ip == htonl(INADDR_LOOPBACK) || to.ip == htonl(INADDR_ANY)) &&
	    (ntohl(c->opt.server.ip) >> 24) != 127)
		to.ip = c->opt.server.ip;
	memset(c->stuffed_oob, 0xff, 4);
	for (size_t i = 0; in[i] && n < sizeof(c->stuffed_oob); i++) {
		if (in[i] == '\\' && in[i + 1] == 'n') {
			c->stuffed_oob[n++] = '\n';
			i++;
		} else {
			c->stuffed_oob[n++] = (uint8_t)in[i];
		}
	}
	c->stuffed_oob_len = n;
	c->stuffed_oob_to = to;
	c->stuffed_oob_pending = true;
}

size_t qwc_take_stuffed_oob(struct qwc *c, uint8_t *out, size_t max,
			    struct net_addr *to)
{
	size_t n = c->stuffed_oob_len;

	if (!c->stuffed_oob_pending || n > max)
		return 0;
	memcpy(out, c->stuffed_oob, n);
	*to = c->stuffed_oob_to;
	c->stuffed_oob_pending = false;
	return n;
}

static void run_command(struct qwc *c, const char *line)
{
	struct net_args *a = &c->args;
	const char *cmd;

	if (net_args_tokenize(a, line) <= 0)
		return;
	cmd = net_args_argv(a, 0);
	if (strcmp(cmd, "cmd") == 0) {
		if (a->argc > 1)
			qwc_stringcmd(c, net_args_rest(a, 1));
	} else if (strcmp(cmd, "skins") == 0) {
		/* stock clients fetch missing skins here, then begin */
		if (c->state == QWC_CONNECTED) {
			stringcmdf(c, "begin %d", c->servercount);
			c->state = QWC_SPAWNED;
			c->stats.signons++;
		}
	} else if (strcmp(cmd, "changing") == 0) {
		if (c->state >= QWC_CONNECTED && c->state <= QWC_ACTIVE)
			c->state = QWC_CONNECTED;
		reset_level(c);
	} else if (strcmp(cmd, "reconnect") == 0) {
		/* as ezQuake: not while a download runs (the server says it
		 * again when the download is over) */
		if (c->dl.state == QWC_DL_ASKED || c->dl.state == QWC_DL_RUNNING)
			return;
		if (c->state >= QWC_CONNECTED && c->state <= QWC_ACTIVE) {
			c->state = QWC_CONNECTED;
			qwc_stringcmd(c, "new");
		}
	} else if (strcmp(cmd, "fullserverinfo") == 0) {
		strlcpy(c->serverinfo, net_args_argv(a, 1), sizeof(c->serverinfo));
	} else if (strcmp(cmd, "disconnect") == 0) {
		c->state = QWC_DROPPED;
		strlcpy(c->reason, "server stuffed disconnect", sizeof(c->reason));
	} else if (strcmp(cmd, "packet") == 0) {
		stuffed_packet(c, a);
	}
}

/* Run every complete line of the stuff buffer: a line ends at '\n'; a ';'
 * outside quotes ends a command inside it. */
static void run_stuff(struct qwc *c)
{
	size_t start = 0;

	for (;;) {
		char *nl = memchr(c->stuff + start, '\n', c->stuff_len - start);
		char line[QWC_STUFF_MAX];
		size_t len, cmd_start = 0;
		bool quoted = false;

		if (!nl)
			break;
		len = (size_t)(nl - (c->stuff + start));
		memcpy(line, c->stuff + start, len);
		line[len] = '\0';
		start += len + 1;
		for (size_t i = 0; i <= len; i++) {
			if (line[i] == '"')
				quoted = !quoted;
			if ((line[i] == ';' && !quoted) || line[i] == '\0') {
				line[i] = '\0';
				run_command(c, line + cmd_start);
				cmd_start = i + 1;
			}
		}
	}
	memmove(c->stuff, c->stuff + start, c->stuff_len - start);
	c->stuff_len -= start;
}

void qwc_stuff(struct qwc *c, const char *text)
{
	size_t n = strlen(text);

	c->stats.stuffs++;
	if (c->stuff_len + n >= sizeof(c->stuff)) {
		/* a line longer than any command: not a command, drop it all */
		c->stats.bad[QWC_BAD_STUFF]++;
		c->stuff_len = 0;
		return;
	}
	memcpy(c->stuff + c->stuff_len, text, n);
	c->stuff_len += n;
	run_stuff(c);
}

/* ---- queries ---------------------------------------------------------- */

const struct qwc_entity_frame *qwc_current_frame(const struct qwc *c)
{
	const struct qwc_entity_frame *f;

	if (!c->frames || !c->valid_sequence)
		return NULL;
	f = &c->frames[c->valid_sequence & UPDATE_MASK];
	return f->valid && f->sequence == c->valid_sequence ? f : NULL;
}

const struct qwc_player *qwc_player(const struct qwc *c, int slot)
{
	if (slot < 0 || slot >= c->opt.max_players)
		return NULL;
	return &c->players[slot];
}

const char *qwc_state_name(enum qwc_state s)
{
	static const char *const names[] = {
		"disconnected", "challenging", "connecting", "connected",
		"spawned", "active", "refused", "dropped"};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

const char *qwc_bad_name(enum qwc_bad_kind k)
{
	static const char *const names[] = {
		"oob", "header", "stale", "truncated", "svc", "range",
		"delta", "entities", "signon", "stuff"};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}
