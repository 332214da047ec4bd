/*
 * oob.c -- connectionless packets: ping, status, getchallenge, connect,
 * rcon.
 *
 * Design note
 *   A connectionless packet is four 0xFF bytes and one text line; the
 *   answer is four 0xFF bytes, a type byte and text, except ping, which is
 *   answered by the single byte 'l' (as MVDSV does).  Everything here can
 *   be sent by anyone with a forged source address, so:
 *   - challenges are stateless (keyed hash of the address and a time
 *     bucket, net.h): a flood of spoofed getchallenge packets cannot push a
 *     real client's challenge out of a table, because there is none;
 *   - every kind (ping, status, getchallenge, connect, rcon) has a budget
 *     of its own, per address and global (a cvar each, "RATE BURST
 *     GLOBAL GLOBALBURST"), sized by what its answer costs and reflects:
 *     a flood of one kind spends only that kind's budget.  The tables are
 *     fixed (struct ratelimit): nothing is allocated per packet;
 *   - status is the one answer much larger than its request, so its global
 *     budget counts bytes sent, not replies: whatever the number of
 *     spoofed sources, the server reflects at most that many bytes a
 *     second, and at most the per-address rate to any one victim;
 *   - getchallenge answers with less than it was sent, so its global
 *     budget is high: it bounds the server's own send load, and a real
 *     player's request still gets through a flood of spoofed ones;
 *   - a connect whose challenge is valid has proved its address (the
 *     challenge went there), so it passes even when the global connect
 *     budget is spent by spoofed ones; only its address's budget applies;
 *   - rcon has the slowest budget, so guessing is slow even over many
 *     connections; what passes it goes to rcon.c (plain or hashed, the
 *     password compared in constant time, every attempt logged).
 *   Every log line a packet here causes goes through the per-address log
 *   limiter (loglimit.c).
 *   Refusals are texts a person can act on: "server is full", "wrong
 *   protocol", "bad challenge", "bad password", "banned".
 *
 *   getchallenge is answered `c<challenge>`, a NUL, then FTE's extension
 *   offer as MVDSV makes it: the longs PROTOCOL_VERSION_FTE and
 *   FTE_PEXT_CHUNKEDDOWNLOADS (docs/downloads.md); clients that do not
 *   know it read the number and stop at the NUL.
 *
 *   connect: `connect 28 <qport> <challenge> "<userinfo>"`, optionally
 *   followed by lines `QWDX <version>` asking for qwd's extension
 *   (docs/protocol-extension.md) and `0x58455446 0x<flags>` taking FTE
 *   extensions from the offer; other lines (FTE2, MVD1) are ignored.
 *   Stock clients get slots 0..31 only; extension clients take the slots
 *   above 31 first, so a few hundred of them cannot lock stock clients
 *   out of a server with room.  Players and spectators have limits of their
 *   own (maxclients, maxspectators) and passwords of their own (password,
 *   spectator_password; spectate.c).  One address holds at most
 *   sv_maxclientsperip slots (docs/security.md, "Slots"): one host cannot
 *   take every slot, while a LAN party behind one NAT still fits.
 */
#include "core.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

/* the budgets: name, cvar, default, and why that size.  Per address:
 * requests a second and the burst; global: the same over all addresses
 * (status: bytes a second and bytes of burst). */
static const struct {
	const char *kind, *cvar, *value, *help;
} budgets[OOB_KINDS] = {
	[OOB_PING] = {"ping", "sv_oob_ping", "4 8 4000 8000",
		"ping budget RATE BURST GLOBAL GLOBALBURST (one byte back)"},
	[OOB_STATUS] = {"status", "sv_oob_status", "2 3 100000 20000",
		"status budget RATE BURST per address, GLOBAL GLOBALBURST in bytes "
		"(the answer is up to a datagram: reflection)"},
	[OOB_GETCHALLENGE] = {"getchallenge", "sv_oob_getchallenge", "2 5 100000 20000",
		"getchallenge budget RATE BURST GLOBAL GLOBALBURST (the answer is "
		"smaller than the request)"},
	[OOB_CONNECT] = {"connect", "sv_oob_connect", "2 5 500 1000",
		"connect budget RATE BURST GLOBAL GLOBALBURST (a valid challenge "
		"skips the global part)"},
	[OOB_RCON] = {"rcon", "sv_oob_rcon", "0.5 3 20 40",
		"rcon budget RATE BURST GLOBAL GLOBALBURST (password guessing)"},
};

const char *sv_oob_kind_name(int kind)
{
	return kind >= 0 && kind < OOB_KINDS ? budgets[kind].kind : "?";
}

const char *sv_oob_cvar_name(int kind)
{
	return kind >= 0 && kind < OOB_KINDS ? budgets[kind].cvar : "?";
}

const char *sv_oob_cvar_default(int kind)
{
	return kind >= 0 && kind < OOB_KINDS ? budgets[kind].value : "";
}

const char *sv_oob_cvar_help(int kind)
{
	return kind >= 0 && kind < OOB_KINDS ? budgets[kind].help : "";
}

/* the limiter of a kind, its rates (re)read from the cvar when it changed;
 * a value that does not parse leaves the default in force, said once */
static struct ratelimit *budget(struct server *sv, enum oob_kind k)
{
	struct oob_budget *b = &sv->oob[k];
	const struct cvar *v = sv->sv_oob[k];
	double r, burst, g, gburst;
	char extra;

	if (b->ready && b->applied == v->modified)
		return &b->rl;
	if (sscanf(v->string, "%lf %lf %lf %lf %c", &r, &burst, &g, &gburst,
		   &extra) != 4 || !(r >= 0) || !(burst >= 1) || !(g >= 0) ||
	    !(gburst >= 1)) {
		qwd_logf(&sv->log, QWD_LOG_WARN, "%s \"%s\": want RATE BURST "
			 "GLOBAL GLOBALBURST (numbers, bursts >= 1); using \"%s\"",
			 v->name, v->string, budgets[k].value);
		sscanf(budgets[k].value, "%lf %lf %lf %lf", &r, &burst, &g, &gburst);
	}
	ratelimit_init(&b->rl, &sv->secret, r, burst, g, gburst);
	b->applied = v->modified;
	b->ready = true;
	return &b->rl;
}

/* one token of the kind for this address, global_cost of its global
 * bucket (0: skip it); counted either way */
static bool within_budget(struct server *sv, enum oob_kind k,
			  const struct net_addr *from, double global_cost)
{
	if (ratelimit_allow_cost(budget(sv, k), from, sv->realtime, global_cost)) {
		sv->stats.oob_answered[k]++;
		return true;
	}
	sv->stats.oob_limited[k]++;
	sv->stats.ratelimited++;
	return false;
}

static size_t send_text(struct server *sv, const struct net_addr *to,
			const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* returns the bytes sent */
static size_t send_text(struct server *sv, const struct net_addr *to,
			const char *fmt, ...)
{
	uint8_t buf[NET_MAX_DATAGRAM + 64];
	char text[NET_MAX_DATAGRAM];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	n = net_build_oob(buf, sizeof(buf), "%s", text);
	if (n)
		sv_send_raw(sv, to, buf, n);
	return n;
}

/* "c<challenge>", its NUL, and the FTE offer; returns the bytes sent */
static size_t send_challenge(struct server *sv, const struct net_addr *from)
{
	uint8_t buf[64];
	struct msg_buf m;
	size_t n = net_build_oob(buf, sizeof(buf), "%c%d", S2C_CHALLENGE,
				 (int)challenge_make(&sv->secret, from, sv->realtime));

	if (!n)
		return 0;
	msg_init(&m, buf, sizeof(buf));
	m.cursize = n;
	msg_write_byte(&m, 0);
	msg_write_long(&m, (int32_t)PROTOCOL_VERSION_FTE);
	msg_write_long(&m, (int32_t)FTE_PEXT_CHUNKEDDOWNLOADS);
	sv_send_raw(sv, from, m.data, m.cursize);
	return m.cursize;
}

static void refuse(struct server *sv, const struct net_addr *to,
		   const char *why)
{
	char a[NET_ADDR_STRLEN];

	sv->stats.refusals++;
	sv_log_from(sv, to, QWD_LOG_INFO, "connect from %s refused: %s",
		    net_addr_format(to, a), why);
	send_text(sv, to, "%c\n%s\n", A2C_PRINT, why);
}

/* "status [FLAGS]"'s flags, MVDSV's: none (0) is the serverinfo and the
 * players; ezQuake's browser asks 23 (serverinfo, players, spectators,
 * teams) */
enum {
	STATUS_SERVERINFO = 1,
	STATUS_PLAYERS = 2,
	STATUS_SPECTATORS = 4,
	STATUS_SPECTATORS_AS_PLAYERS = 8,	/* frags "S", for ASE */
	STATUS_SHOWTEAMS = 16,
	STATUS_SHOWFLAGS = 64,			/* a login flag: none here */
	STATUS_SHOWCLIENTTYPE = 128		/* 'h' human, 'b' bot */
};

/* "status": serverinfo, then one line per client as qstat reads it:
 * userid frags minutes ping "name" "skin" top bottom.  A spectator (when
 * the flags ask for spectators) as MVDSV lists it: frags -9999, the ping
 * negative, the name after "\s\" (or frags "S" with flag 8). */
static size_t oob_status(struct server *sv, const struct net_addr *from,
			 int opt)
{
	char text[NET_MAX_DATAGRAM - 16];
	size_t len = 1;

	text[0] = A2C_PRINT;
	text[1] = '\0';
	if (opt == 0 || (opt & STATUS_SERVERINFO))
		len += (size_t)snprintf(text + 1, sizeof(text) - 1, "%s\n", sv->serverinfo);
	for (int i = 0; i < sv->maxclients && len < sizeof(text); i++) {
		const struct client *cl = &sv->clients[i];
		char skin[64], frags[16], name[SV_MAX_NAME + 4];
		int n, ping = sv_client_ping(cl);

		if (cl->state < CS_CONNECTED)
			continue;
		if (cl->spectator ? !(opt & STATUS_SPECTATORS)
				  : !(opt == 0 || (opt & STATUS_PLAYERS)))
			continue;
		strlcpy(name, cl->name, sizeof(name));
		snprintf(frags, sizeof(frags), "%d", cl->frags);
		if (cl->spectator && (opt & STATUS_SPECTATORS_AS_PLAYERS)) {
			strlcpy(frags, "S", sizeof(frags));
		} else if (cl->spectator) {
			strlcpy(frags, "-9999", sizeof(frags));
			ping = -ping;
			snprintf(name, sizeof(name), "\\s\\%s", cl->name);
		}
		info_value_for_key(cl->userinfo, "skin", skin, sizeof(skin));
		n = snprintf(text + len, sizeof(text) - len,
			     "%d %s %d %d \"%s\" \"%s\" %d %d%s%s%s%s%s\n", cl->userid,
			     frags, (int)(sv->realtime - cl->connect_time) / 60,
			     ping, name, skin, sv_client_color(cl, "topcolor"),
			     sv_client_color(cl, "bottomcolor"),
			     opt & STATUS_SHOWTEAMS ? " \"" : "",
			     opt & STATUS_SHOWTEAMS ? cl->team : "",
			     opt & STATUS_SHOWTEAMS ? "\"" : "",
			     opt & STATUS_SHOWFLAGS ? " \"\"" : "",
			     opt & STATUS_SHOWCLIENTTYPE ? " \"h\"" : "");
		if (n < 0 || (size_t)n >= sizeof(text) - len) {
			text[len] = '\0';	/* a full packet: the rest is cut */
			break;
		}
		len += (size_t)n;
	}
	return send_text(sv, from, "%s", text);
}

/* connected clients (spectators too) at the ip of a, any port */
static int clients_from(const struct server *sv, const struct net_addr *a)
{
	int n = 0;

	for (int i = 0; i < sv->maxclients; i++)
		n += sv->clients[i].state >= CS_CONNECTED &&
		     net_addr_equal_ip(&sv->clients[i].chan.remote, a);
	return n;
}

/* The slot for a new client, or NULL.  A stock client fits only in the
 * protocol-28 slots 0..31.  An extension client takes the slots from 32
 * upward first and a low one only when none of those is free, so stock
 * clients keep 0..31 for as long as the server has room elsewhere. */
static struct client *free_slot(struct server *sv, bool extended)
{
	int stock = sv->maxclients < MAX_CLIENTS ? sv->maxclients : MAX_CLIENTS;

	if (extended)
		for (int i = stock; i < sv->maxclients; i++)
			if (sv->clients[i].state == CS_FREE)
				return &sv->clients[i];
	for (int i = 0; i < stock; i++)
		if (sv->clients[i].state == CS_FREE)
			return &sv->clients[i];
	return NULL;
}

/* The extension lines after a connect's first line: QWDX asked, and the
 * FTE extensions taken (only those offered count). */
static void connect_extensions(const char *lines, bool *qwdx, uint32_t *fte)
{
	*qwdx = false;
	*fte = 0;
	while (lines && *lines) {
		const char *nl = strchr(lines, '\n');
		char *end;
		unsigned long tag = strtoul(lines, &end, 0);

		if (strncmp(lines, QWDX_PROTOCOL_NAME " ", 5) == 0)
			*qwdx = *qwdx || atoi(lines + 5) >= 1;
		else if (end != lines && tag == PROTOCOL_VERSION_FTE)
			*fte = (uint32_t)strtoul(end, NULL, 0) & FTE_PEXT_CHUNKEDDOWNLOADS;
		lines = nl ? nl + 1 : NULL;
	}
}

/* challenge_ok: the connect's challenge is the one this address was given */
static void oob_connect(struct server *sv, const struct net_addr *from,
			const struct net_args *args, const char *rest_lines,
			bool challenge_ok)
{
	char a[NET_ADDR_STRLEN], userinfo[MAX_INFO_STRING], value[64], why[96];
	int version = atoi(net_args_argv(args, 1));
	int qport = atoi(net_args_argv(args, 2));
	bool extended, spectator;
	uint32_t fte, z_ext;
	struct client *cl = NULL;

	if (args->argc < 5) {
		sv->stats.bad[BAD_OOB]++;
		refuse(sv, from, "malformed connect (connect 28 qport challenge \"userinfo\")");
		return;
	}
	if (qport < 0 || qport > 65535) {
		/* stored as 16 bits: an out-of-range number would match
		 * another client's qport after the cut */
		sv->stats.bad[BAD_OOB]++;
		refuse(sv, from, "malformed connect (qport must be 0..65535)");
		return;
	}
	if (version != PROTOCOL_VERSION) {
		refuse(sv, from, "wrong protocol: this server speaks QuakeWorld protocol 28");
		return;
	}
	if (!challenge_ok) {
		refuse(sv, from, "bad challenge: send getchallenge first");
		return;
	}
	if (strlen(net_args_argv(args, 4)) >= sizeof(userinfo)) {
		refuse(sv, from, "userinfo too long");
		return;
	}
	strlcpy(userinfo, net_args_argv(args, 4), sizeof(userinfo));
	/* the extension requests are lines of their own after the command */
	connect_extensions(rest_lines, &extended, &fte);

	info_value_for_key(userinfo, "*z_ext", value, sizeof(value));
	z_ext = (uint32_t)strtoul(value, NULL, 10);
	/* the passwords of each side; the keys that held them go */
	if (!sv_spectate_admit(sv, userinfo, sizeof(userinfo), &spectator,
			       why, sizeof(why))) {
		refuse(sv, from, why);
		return;
	}

	/* a reconnect from the same address and qport replaces its old slot */
	for (int i = 0; i < sv->maxclients; i++) {
		struct client *c = &sv->clients[i];

		if (c->state >= CS_CONNECTED && net_addr_equal_ip(&c->chan.remote, from) &&
		    (c->chan.qport == qport || c->chan.remote.port == from->port)) {
			sv_log_from(sv, from, QWD_LOG_INFO, "%s reconnects (slot %d)",
				    net_addr_format(from, a), i);
			sv_drop_client(sv, c, NULL);
			c->state = CS_FREE;
			sv_entry_sync(sv, c);
		}
	}
	/* each side has its own limit: spectators take no player's slot */
	if (spectator ? sv_count_clients(sv, true) >= sv_spectator_limit(sv)
		      : sv_count_clients(sv, false) >= sv->max_players) {
		refuse(sv, from, spectator ? "server is full (all spectator slots taken)"
					   : "server is full");
		return;
	}
	int per_ip = (int)sv->sv_maxclientsperip->value;

	if (per_ip > 0 && clients_from(sv, from) >= per_ip) {
		snprintf(why, sizeof(why), "too many clients from your address "
			 "(%d; sv_maxclientsperip)", per_ip);
		refuse(sv, from, why);
		return;
	}
	if (!sv_hooks_admit(sv, extended, why, sizeof(why))) {
		refuse(sv, from, why);
		return;
	}
	cl = free_slot(sv, extended);
	if (!cl) {
		refuse(sv, from, free_slot(sv, true)
			   ? "server is full for protocol 28 clients (the free slots need the QWDX extension)"
			   : "server is full");
		return;
	}

	int slot = cl->slot;
	memset(cl, 0, sizeof(*cl));
	cl->slot = slot;
	cl->due = sv->reply_due;
	memset(&sv->entries[slot], 0, sizeof(sv->entries[slot]));
	cl->state = CS_CONNECTED;
	cl->extended = extended;
	cl->fte = fte;
	cl->spectator = spectator;
	sv_entry_sync(sv, cl);
	cl->z_ext = z_ext;
	cl->userid = ++sv->next_userid;
	cl->connect_time = sv->realtime;
	cl->signon_since = sv->realtime;
	cl->delta_sequence = -1;
	strlcpy(cl->userinfo, userinfo, sizeof(cl->userinfo));
	netchan_setup(&cl->chan, NETCHAN_SERVER, from, (uint16_t)qport, sv->realtime);
	sv_userinfo_changed(sv, cl);
	sv_client_setup(sv, cl);
	sv_rehash_clients(sv);
	prof_client_reset(sv->prof, cl->slot);
	sv->stats.connects++;
	/* everyone learns of the new player at once, as QuakeWorld does */
	sv_broadcast_client_info(sv, cl);
	sv_log_from(sv, from, QWD_LOG_INFO, "client %d \"%s\" connected from %s%s%s%s",
		    cl->slot, cl->name, net_addr_format(from, a),
		    extended ? " (QWDX)" : "",
		    fte & FTE_PEXT_CHUNKEDDOWNLOADS ? " (FTE chunked downloads)" : "",
		    spectator ? " as spectator" : "");
	send_text(sv, from, "%c", S2C_CONNECTION);
}


/* a feature's command (rcon.c's "rcon"): the budget of its kind here,
 * the rest (plain or hashed, the logs) in the feature */
static void oob_feature(struct server *sv, const struct net_addr *from,
			const struct net_args *args,
			const struct sv_oob_command *oc)
{
	if (!within_budget(sv, oc->kind, from, 1.0))
		return;
	sv->stats.oob_bytes[oc->kind] += oc->fn(sv, from, args);
}

static void oob_ping(struct server *sv, const struct net_addr *from)
{
	uint8_t ack = A2A_ACK;

	if (!within_budget(sv, OOB_PING, from, 1.0))
		return;
	sv_send_raw(sv, from, &ack, 1);
	sv->stats.oob_bytes[OOB_PING]++;
}

void sv_connectionless(struct server *sv, const struct net_addr *from,
		       struct msg_buf *msg)
{
	char line[NET_ARGS_LINE];
	struct net_args *args = &sv->oob_args;
	size_t len, n;
	const char *nl;

	sv->stats.oob_in++;
	if (msg->cursize == 1) {	/* the bare ping byte */
		oob_ping(sv, from);
		return;
	}
	len = msg->cursize - 4;
	if (len >= sizeof(line)) {
		sv->stats.bad[BAD_OOB]++;
		return;
	}
	memcpy(line, msg->data + 4, len);
	line[len] = '\0';
	if (strlen(line) != len && strlen(line) + 1 != len) {
		/* a NUL inside the text: not a command line */
		sv->stats.bad[BAD_OOB]++;
		return;
	}
	if (net_args_tokenize(args, line) <= 0) {
		sv->stats.bad[BAD_OOB]++;
		return;
	}
	const char *c = net_args_argv(args, 0);
	const struct sv_oob_command *oc = sv_oob_command_find(sv, c);

	if (strcmp(c, "ping") == 0) {
		oob_ping(sv, from);
	} else if (oc) {
		oob_feature(sv, from, args, oc);
	} else if (strcmp(c, "status") == 0) {
		/* the global budget is in bytes: take the last answer's size,
		 * then correct it by this one's */
		if (!within_budget(sv, OOB_STATUS, from, (double)sv->status_estimate))
			return;
		n = oob_status(sv, from, atoi(net_args_argv(args, 1)));
		ratelimit_charge(budget(sv, OOB_STATUS),
				 (double)n - (double)sv->status_estimate);
		sv->status_estimate = n ? n : 1;
		sv->stats.oob_bytes[OOB_STATUS] += n;
	} else if (strcmp(c, "getchallenge") == 0) {
		if (!within_budget(sv, OOB_GETCHALLENGE, from, 1.0))
			return;
		sv->stats.oob_bytes[OOB_GETCHALLENGE] += send_challenge(sv, from);
	} else if (strcmp(c, "connect") == 0) {
		int32_t ch = (int32_t)strtol(net_args_argv(args, 3), NULL, 10);
		bool ok = challenge_check(&sv->secret, from, ch, sv->realtime);
		uint64_t sent = sv->net.bytes_out;

		if (!within_budget(sv, OOB_CONNECT, from, ok ? 0.0 : 1.0))
			return;
		nl = strchr(line, '\n');
		oob_connect(sv, from, args, nl ? nl + 1 : NULL, ok);
		sv->stats.oob_bytes[OOB_CONNECT] += sv->net.bytes_out - sent;
	} else {
		sv->stats.bad[BAD_OOB]++;
	}
}
