/*
 * fuzz_oob.c -- libFuzzer target: the server's connectionless packets
 * (ping, status, getchallenge, connect, rcon and its console commands).
 *
 * Design note
 *   One server is set up once (netfix.c: a real map, a fixed challenge
 *   secret, rate limiters that never run dry, rcon password
 *   FX_RCON_PASSWORD).  Each input is one datagram from FX_OOB_IP, given
 *   to sv_connectionless() as receive_packet() in frame.c gives it: with
 *   the four 0xFF bytes in front when the input does not start with them.
 *   sv->realtime is FX_OOB_TIME for every input, so the challenge of the
 *   fuzzing address is a constant (fx_oob_challenge) and a seed's connect
 *   line stays valid: connects get past the challenge check and reach the
 *   slot logic.
 *
 *   The server holds 34 slots; 0..31 are taken before fuzzing by clients
 *   that connected from other addresses (spectators, long names, a control
 *   character, an empty name among them), so status lists players and
 *   fills its packet,
 *   a stock connect finds only the extension's slots free ("full for
 *   protocol 28 clients") and a QWDX connect gets slot 32.  Slot 31's
 *   client sits at FX_OOB_IP itself with qport FX_QPORT_STOCK: a connect
 *   naming that qport is a reconnect that replaces it.
 *
 *   Before each input everything an input may change is put back: the
 *   cvars and serverinfo (rcon set, password, hostname...), the prefilled
 *   clients (kick, reconnect: connected again with their old userid), any
 *   other slot emptied, the quit flag.  So one input always meets the same
 *   server and a finding replays alone.
 *
 *   Checks beyond ASan/UBSan (a broken one aborts, so libFuzzer keeps the
 *   input):
 *   - every datagram the server sent back is a well-formed reply: the
 *     single byte 'l', or 0xFFFFFFFF and 'c', 'j' or 'n' within
 *     NET_MAX_DATAGRAM bytes of text, or a netchan packet (the
 *     svc_disconnect of a replaced client);
 *   - connected clients have a name that is non-empty, terminated and free
 *     of control characters, a terminated userinfo, a slot below 32 unless
 *     they negotiated QWDX, and no two of them share an (address, qport):
 *     frame.c finds a client's packets by that pair alone.
 *
 *   libFuzzer's entry points take no context, so the fixture lives in one
 *   static pointer, set once by LLVMFuzzerInitialize.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

#include "netfix.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
	OOB_MAXCLIENTS = 34,
	OOB_PREFILLED = MAX_CLIENTS,	/* slots 0..31 */
	OOB_HOME_SLOT = MAX_CLIENTS - 1,	/* the one at FX_OOB_IP */
	OOB_FUZZ = OOB_PREFILLED	/* index of the fuzzing address */
};

struct oob_fix {
	struct fx fx;
	/* sockets that receive what the server sends to each address (and
	 * keep its port for us): [0..31] the prefilled, [OOB_FUZZ] ours */
	int sink[OOB_PREFILLED + 1];
	struct net_addr addr[OOB_PREFILLED + 1];
	char info[OOB_PREFILLED][MAX_INFO_STRING];
	uint16_t qport[OOB_PREFILLED];
	int userid[OOB_PREFILLED];
	int next_userid;
	/* the state inputs may change, as it was after set-up */
	struct cvar cvars[SV_CVAR_MAX];
	int num_cvars;
	char user_cvar_names[SV_USER_CVARS][32];
	int num_user_cvars;
	char serverinfo[MAX_SERVERINFO_STRING];
	struct net_recv_batch rx;
	uint8_t pkt[NET_MAX_UDP_PACKET];
};

static struct oob_fix *oob;

static void oob_fail(const char *what, long a, long b)
{
	fprintf(stderr, "fuzz_oob: contract broken: %s [%ld %ld]\n", what, a, b);
	abort();
}

static void oob_deliver(const struct net_addr *from, const uint8_t *data,
			size_t len)
{
	struct msg_buf m;

	memcpy(oob->pkt, data, len);
	msg_init_read(&m, oob->pkt, len);
	if (oob_is_connectionless(&m))
		sv_connectionless(oob->fx.sv, from, &m);
}

/* connect prefilled client i from its own address, as userid[i] */
static void oob_prefill(int i)
{
	struct server *sv = oob->fx.sv;
	char text[MAX_INFO_STRING + 96];
	uint8_t pkt[sizeof(text) + 4];
	size_t n;

	snprintf(text, sizeof(text), "connect %d %u %d \"%s\"\n",
		 PROTOCOL_VERSION, oob->qport[i],
		 (int)challenge_make(&sv->secret, &oob->addr[i], sv->realtime),
		 oob->info[i]);
	n = qwc_build_oob(pkt, sizeof(pkt), text);
	if (oob->userid[i])
		sv->next_userid = oob->userid[i] - 1;
	oob_deliver(&oob->addr[i], pkt, n);
	if (sv->clients[i].state != CS_CONNECTED)
		oob_fail("fixture: a prefilled client did not get its slot", i,
			 sv->clients[i].state);
	oob->userid[i] = sv->clients[i].userid;
}

/* every prefilled client different in what status and connect read */
static void oob_userinfo(int i, char *out, size_t len)
{
	switch (i % 4) {
	case 0:
		snprintf(out, len, "\\name\\player %02d with a long name"
			 "\\topcolor\\%d\\bottomcolor\\%d\\skin\\base\\rate\\%d",
			 i, i % 16, (i * 7) % 16, 2500 + 1000 * i);
		break;
	case 1:
		snprintf(out, len, "\\name\\spec%02d\\spectator\\1", i);
		break;
	case 2:
		snprintf(out, len, "\\name\\\\skin\\%s", i == 2 ? "" : "base");
		break;
	default:
		snprintf(out, len, "\\name\\p\x05%02d and a name too long to "
			 "keep\\spectator\\0\\topcolor\\99\\skin\\a_skin_name", i);
		break;
	}
}

static int oob_sink(int i, const char *ip)
{
	char err[128];

	oob->sink[i] = net_udp_open(ip, 0, err, sizeof(err));
	if (oob->sink[i] < 0 || !net_udp_local_addr(oob->sink[i], &oob->addr[i])) {
		fprintf(stderr, "fuzz_oob: socket on %s: %s\n", ip, err);
		return -1;
	}
	return 0;
}

static void oob_save_state(void)
{
	struct server *sv = oob->fx.sv;

	memcpy(oob->cvars, sv->cvars, sizeof(oob->cvars));
	oob->num_cvars = sv->num_cvars;
	memcpy(oob->user_cvar_names, sv->user_cvar_names,
	       sizeof(oob->user_cvar_names));
	oob->num_user_cvars = sv->num_user_cvars;
	memcpy(oob->serverinfo, sv->serverinfo, sizeof(oob->serverinfo));
	oob->next_userid = sv->next_userid;
}

static void oob_cleanup(void)
{
	if (!oob)
		return;
	fx_close(&oob->fx);
	for (int i = 0; i <= OOB_FUZZ; i++)
		if (oob->sink[i] >= 0)
			net_udp_close(oob->sink[i]);
	free(oob);
	oob = NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	oob = calloc(1, sizeof(*oob));
	if (!oob)
		exit(1);
	for (int i = 0; i <= OOB_FUZZ; i++)
		oob->sink[i] = -1;
	atexit(oob_cleanup);
	if (fx_open(&oob->fx, OOB_MAXCLIENTS) != 0)
		exit(1);
	oob->fx.sv->realtime = FX_OOB_TIME;
	for (int i = 0; i < OOB_PREFILLED; i++) {
		bool home = i == OOB_HOME_SLOT;

		if (oob_sink(i, home ? FX_OOB_IP : "127.0.0.2") != 0)
			exit(1);
		if (home)
			snprintf(oob->info[i], sizeof(oob->info[i]),
				 "\\name\\home\\rate\\25000");
		else
			oob_userinfo(i, oob->info[i], sizeof(oob->info[i]));
		oob->qport[i] = (uint16_t)(home ? FX_QPORT_STOCK : 30000 + i);
		oob_prefill(i);
	}
	if (oob_sink(OOB_FUZZ, FX_OOB_IP) != 0)
		exit(1);
	oob_save_state();
	return 0;
}

/* put back what the last input changed (see the design note) */
static void oob_restore(void)
{
	struct server *sv = oob->fx.sv;
	bool refill = false;

	sv->realtime = FX_OOB_TIME;
	sv->quit = false;
	memcpy(sv->cvars, oob->cvars, sizeof(oob->cvars));
	sv->num_cvars = oob->num_cvars;
	memcpy(sv->user_cvar_names, oob->user_cvar_names,
	       sizeof(oob->user_cvar_names));
	sv->num_user_cvars = oob->num_user_cvars;
	memcpy(sv->serverinfo, oob->serverinfo, sizeof(oob->serverinfo));

	for (int i = 0; i < sv->maxclients; i++) {
		struct client *cl = &sv->clients[i];

		if (i < OOB_PREFILLED && cl->state == CS_CONNECTED &&
		    cl->userid == oob->userid[i]) {
			/* nothing reads what was queued for it: keep it empty */
			msg_clear(&cl->chan.message);
			cl->backlog_len = 0;
			cl->backlog_off = 0;
			cl->backlog_overflowed = false;
			continue;
		}
		if (i >= OOB_PREFILLED && cl->state == CS_FREE)
			continue;
		if (cl->state >= CS_CONNECTED)
			sv_drop_client(sv, cl, NULL);
		cl->state = CS_FREE;
		refill = true;
	}
	if (!refill)
		return;
	for (int i = 0; i < OOB_PREFILLED; i++)
		if (sv->clients[i].state == CS_FREE)
			oob_prefill(i);
	sv->next_userid = oob->next_userid;
	sv_rehash_clients(sv);
}

static bool oob_is_oob(const uint8_t *d, size_t n)
{
	return n >= 4 && d[0] == 0xff && d[1] == 0xff && d[2] == 0xff &&
	       d[3] == 0xff;
}

/* what came back to the fuzzing address */
static void oob_check_replies(void)
{
	int got;

	while ((got = net_udp_recv_batch(oob->sink[OOB_FUZZ], &oob->rx,
					 &oob->fx.net)) > 0) {
		for (int i = 0; i < got; i++) {
			const uint8_t *d = oob->rx.packets[i].data;
			size_t n = oob->rx.packets[i].len;

			if (n == 1 && d[0] == A2A_ACK)
				continue;
			if (!oob_is_oob(d, n)) {
				if (n < NETCHAN_HEADER || n > NETCHAN_MAX_PACKET)
					oob_fail("in-band datagram of impossible size",
						 (long)n, 0);
				continue;
			}
			if (n < 5 || n > 4 + NET_MAX_DATAGRAM)
				oob_fail("connectionless reply of impossible size",
					 (long)n, 0);
			if (d[4] != S2C_CHALLENGE && d[4] != S2C_CONNECTION &&
			    d[4] != A2C_PRINT)
				oob_fail("connectionless reply of unknown type", d[4], 0);
			if (d[4] == S2C_CHALLENGE && (n < 6 || d[5] < '0' || d[5] > '9'))
				oob_fail("challenge reply without a number", (long)n, 0);
		}
		if (got < NET_BATCH)
			break;
	}
}

static void oob_check_clients(void)
{
	const struct server *sv = oob->fx.sv;

	for (int i = 0; i < sv->maxclients; i++) {
		const struct client *cl = &sv->clients[i];

		if (cl->state < CS_CONNECTED)
			continue;
		if (!memchr(cl->name, '\0', sizeof(cl->name)) || !cl->name[0])
			oob_fail("client name empty or unterminated", i, 0);
		for (const char *p = cl->name; *p; p++)
			if ((unsigned char)*p < 32)
				oob_fail("control character in a client name", i,
					 (unsigned char)*p);
		if (!memchr(cl->userinfo, '\0', sizeof(cl->userinfo)))
			oob_fail("userinfo unterminated", i, 0);
		if (!cl->extended && i >= MAX_CLIENTS)
			oob_fail("stock client in an extension slot", i, 0);
		for (int j = i + 1; j < sv->maxclients; j++) {
			const struct client *o = &sv->clients[j];

			if (o->state >= CS_CONNECTED &&
			    o->chan.remote.ip == cl->chan.remote.ip &&
			    o->chan.qport == cl->chan.qport)
				oob_fail("two clients share an address and qport "
					 "(packets reach only one)", i, j);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t pkt[NET_MAX_UDP_PACKET];
	size_t n = 0;

	/* the socket never hands over more (larger datagrams are dropped) */
	if (!oob_is_oob(data, size)) {
		if (size > sizeof(pkt) - 4)
			return 0;
		memset(pkt, 0xff, 4);
		n = 4;
	} else if (size > sizeof(pkt)) {
		return 0;
	}
	memcpy(pkt + n, data, size);
	n += size;

	oob_restore();
	oob_deliver(&oob->addr[OOB_FUZZ], pkt, n);
	oob_check_replies();
	oob_check_clients();
	return 0;
}
