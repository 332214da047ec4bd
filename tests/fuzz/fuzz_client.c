/*
 * fuzz_client.c -- libFuzzer target: the client library's reading of what
 * a server sends (qwc_receive), in every state of a connection.
 *
 * Design note
 *   The client library is the load generator's engine, and the servers it
 *   loads may be hostile or broken: client.h promises that nothing a
 *   server sends can crash it.  Set-up runs netfix's script (a real server,
 *   a stock and a QWDX client brought into the game in lockstep) and copies
 *   the clients at each point of their connection:
 *     challenging  stock, getchallenge sent       input as connectionless
 *     connecting   stock, challenge received      input as connectionless
 *     signon       stock and QWDX, model list in  input as netchan payload
 *     active       stock and QWDX, deltas flowing input as netchan payload
 *   Each input is given to all six, each first restored from its copy
 *   (so an input always meets the same client and a finding replays
 *   alone).  Connectionless: the input with four 0xFF bytes in front
 *   unless it starts with them.  Netchan: the input behind the header the
 *   server would write next (sequence one past the last reply, the ack of
 *   the client's last packet and its even/odd bit), so it is accepted and
 *   parsed.  The script is the one mkpackets runs, so a captured reply
 *   deltas from frames these copies hold.
 *
 *   Checks beyond ASan/UBSan, after each qwc_receive (a broken one
 *   aborts):
 *   - the state is a known one; stuff_len, num_seen and the reliable
 *     message are inside their buffers; every text the client keeps
 *     (reason, last print, serverinfo, game dir, level name, map model,
 *     player names) is terminated;
 *   - the frame of the packet just parsed, when marked valid, holds at
 *     most the entities protocol allows (64 for stock, 256 with QWDX) in
 *     strictly ascending order;
 *   - the client's next datagram (qwc_packet, forced) is well formed: a
 *     connectionless getchallenge/connect, or a netchan packet whose
 *     payload the server's parser would accept whole (fx_clc_well_formed):
 *     whatever a server said, the client must not answer with garbage.
 *
 *   libFuzzer's entry points take no context, so the fixture lives in one
 *   static pointer, set once by LLVMFuzzerInitialize.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netfix.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
	CL_STATES = 6,
	CL_MAX_INPUT = NET_MAX_UDP_PACKET
};

struct cl_state {
	const char *name;
	int client;		/* the script's client: FX_STOCK or FX_WIDE */
	enum fx_point point;
	bool oob;		/* the input goes as a connectionless datagram */
	bool saved;
	struct fx_qwc_copy copy;
	struct qwc q;		/* restored before each input */
};

struct cl_fix {
	struct fx fx;
	struct fx_client c[FX_CLIENTS];
	struct cl_state st[CL_STATES];
	const struct cl_state *current;	/* named when a check fails */
	uint8_t pkt[CL_MAX_INPUT + NETCHAN_HEADER];
	uint8_t out[NETCHAN_MAX_PACKET];
};

static struct cl_fix *clf;

static const struct {
	const char *name;
	int client;
	enum fx_point point;
	bool oob;
} cl_plan[CL_STATES] = {
	{ "challenging", FX_STOCK, FX_CHALLENGING, true },
	{ "connecting", FX_STOCK, FX_CONNECTING, true },
	{ "signon", FX_STOCK, FX_SIGNON, false },
	{ "active", FX_STOCK, FX_ACTIVE, false },
	{ "signon-qwdx", FX_WIDE, FX_SIGNON, false },
	{ "active-qwdx", FX_WIDE, FX_ACTIVE, false },
};

static void cl_fail(const char *what, long a, long b)
{
	fprintf(stderr, "fuzz_client: contract broken (%s): %s [%ld %ld]\n",
		clf->current ? clf->current->name : "?", what, a, b);
	abort();
}

static void cl_snap(void *ctx, const struct fx_client *c, enum fx_point p)
{
	struct cl_fix *f = ctx;
	int client = (int)(c - f->c);

	for (int i = 0; i < CL_STATES; i++) {
		struct cl_state *s = &f->st[i];

		if (s->client != client || s->point != p || s->saved)
			continue;
		if (fx_qwc_save(&s->copy, &c->q) != 0 ||
		    qwc_init(&s->q, &c->q.opt) != 0) {
			fprintf(stderr, "fuzz_client: out of memory\n");
			exit(1);
		}
		s->saved = true;
	}
}

static void cl_cleanup(void)
{
	if (!clf)
		return;
	for (int i = 0; i < CL_STATES; i++) {
		qwc_free(&clf->st[i].q);
		fx_qwc_copy_free(&clf->st[i].copy);
	}
	for (int i = 0; i < FX_CLIENTS; i++)
		fx_client_close(&clf->c[i]);
	fx_close(&clf->fx);
	free(clf);
	clf = NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	clf = calloc(1, sizeof(*clf));
	if (!clf)
		exit(1);
	for (int i = 0; i < FX_CLIENTS; i++)
		clf->c[i].fd = -1;
	for (int i = 0; i < CL_STATES; i++) {
		clf->st[i].name = cl_plan[i].name;
		clf->st[i].client = cl_plan[i].client;
		clf->st[i].point = cl_plan[i].point;
		clf->st[i].oob = cl_plan[i].oob;
	}
	atexit(cl_cleanup);
	if (fx_open(&clf->fx, FX_MAXCLIENTS) != 0 ||
	    fx_script(&clf->fx, clf->c, NULL, cl_snap, clf) != 0)
		exit(1);
	for (int i = 0; i < CL_STATES; i++)
		if (!clf->st[i].saved) {
			fprintf(stderr, "fuzz_client: the script never reached "
				"state %s\n", clf->st[i].name);
			exit(1);
		}
	/* the server is not needed any more; the copies are */
	fx_close(&clf->fx);
	return 0;
}

static bool cl_is_oob(const uint8_t *d, size_t n)
{
	return n >= 4 && d[0] == 0xff && d[1] == 0xff && d[2] == 0xff &&
	       d[3] == 0xff;
}

static void cl_terminated(const char *s, size_t size, const char *what)
{
	if (!memchr(s, '\0', size))
		cl_fail(what, (long)size, 0);
}

static void cl_check_frame(const struct qwc *q)
{
	const struct qwc_entity_frame *fr;
	int max = q->extended ? QWDX_MAX_PACKET_ENTITIES : MAX_PACKET_ENTITIES;

	if (!q->frames)
		return;
	fr = &q->frames[q->chan.incoming_sequence & UPDATE_MASK];
	if (!fr->valid || fr->sequence != q->chan.incoming_sequence)
		return;
	if (fr->num > max || fr->num > QWC_MAX_FRAME_ENTITIES)
		cl_fail("valid frame holds too many entities", fr->num, max);
	for (int i = 1; i < fr->num; i++)
		if (fr->ents[i].number <= fr->ents[i - 1].number)
			cl_fail("valid frame not in ascending entity order", i,
				fr->ents[i].number);
}

static void cl_check_state(const struct qwc *q)
{
	if (q->state < QWC_DISCONNECTED || q->state > QWC_DROPPED)
		cl_fail("unknown state", q->state, 0);
	if (q->stuff_len >= sizeof(q->stuff))
		cl_fail("stufftext buffer overrun", (long)q->stuff_len, 0);
	if (q->num_seen < 0 || q->num_seen > QWC_MAX_REPLY_PLAYERS ||
	    q->num_seen > q->total_seen)
		cl_fail("playerinfo count out of range", q->num_seen,
			q->total_seen);
	if (q->chan.message.cursize > q->chan.message.maxsize)
		cl_fail("reliable message past its buffer",
			(long)q->chan.message.cursize, 0);
	cl_terminated(q->reason, sizeof(q->reason), "reason unterminated");
	cl_terminated(q->last_print, sizeof(q->last_print),
		      "last print unterminated");
	cl_terminated(q->serverinfo, sizeof(q->serverinfo),
		      "serverinfo unterminated");
	cl_terminated(q->gamedir, sizeof(q->gamedir), "gamedir unterminated");
	cl_terminated(q->levelname, sizeof(q->levelname),
		      "levelname unterminated");
	cl_terminated(q->mapmodel, sizeof(q->mapmodel), "mapmodel unterminated");
	for (int i = 0; i < q->opt.max_players; i++)
		cl_terminated(q->players[i].name, sizeof(q->players[i].name),
			      "player name unterminated");
	cl_check_frame(q);
}

/* whatever it was told, what the client sends next must be well formed */
static void cl_check_next(struct qwc *q, double now)
{
	size_t n = qwc_packet(q, now, true, clf->out, sizeof(clf->out));

	if (n == 0)
		return;
	if (n > sizeof(clf->out))
		cl_fail("datagram longer than its buffer", (long)n, 0);
	if (cl_is_oob(clf->out, n)) {
		if (n < 5 || (memcmp(clf->out + 4, "getchallenge", 12) != 0 &&
			      memcmp(clf->out + 4, "connect ", 8) != 0))
			cl_fail("connectionless datagram neither getchallenge "
				"nor connect", (long)n, 0);
		return;
	}
	if (!fx_clc_well_formed(clf->out, n)) {
		fprintf(stderr, "fuzz_client: the datagram:");
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, "%s%02x", i % 32 ? " " : "\n  ", clf->out[i]);
		fprintf(stderr, "\n");
		cl_fail("netchan datagram the server would refuse", (long)n,
			clf->out[NETCHAN_HEADER_QPORT]);
	}
}

/* the header the server would put on its next packet to q */
static size_t cl_wrap(const struct qwc *q, const uint8_t *data, size_t size)
{
	uint32_t w1 = q->chan.incoming_sequence + 1;
	uint32_t w2 = (q->chan.outgoing_sequence - 1) |
		      ((uint32_t)q->chan.reliable_sequence << 31);

	for (int i = 0; i < 4; i++) {
		clf->pkt[i] = (uint8_t)(w1 >> (8 * i));
		clf->pkt[4 + i] = (uint8_t)(w2 >> (8 * i));
	}
	if (size)
		memcpy(clf->pkt + NETCHAN_HEADER, data, size);
	return NETCHAN_HEADER + size;
}

static size_t cl_oob(const uint8_t *data, size_t size)
{
	size_t n = 0;

	if (!cl_is_oob(data, size)) {
		memset(clf->pkt, 0xff, 4);
		n = 4;
	}
	if (size)
		memcpy(clf->pkt + n, data, size);
	return n + size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > CL_MAX_INPUT)
		return 0;
	for (int i = 0; i < CL_STATES; i++) {
		struct cl_state *s = &clf->st[i];
		double now = s->copy.q.last_move_time + 0.05;
		size_t n;

		clf->current = s;
		fx_qwc_restore(&s->q, &s->copy);
		n = s->oob ? cl_oob(data, size) : cl_wrap(&s->q, data, size);
		qwc_receive(&s->q, clf->pkt, n, now);
		cl_check_state(&s->q);
		cl_check_next(&s->q, now + 0.02);
	}
	clf->current = NULL;
	return 0;
}
