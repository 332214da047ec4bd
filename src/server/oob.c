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
 *   - status, getchallenge and connect cost more to answer than to send,
 *     so they are rate-limited per address and globally (a reflector for
 *     spoofed floods otherwise);
 *   - rcon compares the password in constant time and has its own, much
 *     slower, per-address limit, so guessing is slow even over many
 *     connections; a refused rcon is logged with the address.
 *   Every log line a packet here causes goes through the per-address log
 *   limiter (loglimit.c).
 *   Refusals are texts a person can act on: "server is full", "wrong
 *   protocol", "bad challenge", "bad password", "banned".
 *
 *   connect: `connect 28 <qport> <challenge> "<userinfo>"`, optionally
 *   followed by a line `QWDX <version>` asking for qwd's extension
 *   (docs/protocol-extension.md).  Stock clients get slots 0..31 only.
 */
#include "qwd/server.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

static void send_text(struct server *sv, const struct net_addr *to,
		      const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void send_text(struct server *sv, const struct net_addr *to,
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

/* "status": serverinfo, then one line per player as qstat reads it:
 * userid frags minutes ping "name" "skin" top bottom */
static void oob_status(struct server *sv, const struct net_addr *from)
{
	char text[NET_MAX_DATAGRAM - 16];
	size_t len;

	len = (size_t)snprintf(text, sizeof(text), "%c%s\n", A2C_PRINT, sv->serverinfo);
	for (int i = 0; i < sv->maxclients && len < sizeof(text); i++) {
		const struct client *cl = &sv->clients[i];
		char skin[64], top[16], bottom[16];
		int n;

		if (cl->state < CS_CONNECTED || cl->spectator)
			continue;
		info_value_for_key(cl->userinfo, "skin", skin, sizeof(skin));
		info_value_for_key(cl->userinfo, "topcolor", top, sizeof(top));
		info_value_for_key(cl->userinfo, "bottomcolor", bottom, sizeof(bottom));
		n = snprintf(text + len, sizeof(text) - len,
			     "%d %d %d %d \"%s\" \"%s\" %d %d\n", cl->userid,
			     cl->frags, (int)(sv->realtime - cl->connect_time) / 60,
			     sv_client_ping(cl), cl->name, skin, atoi(top) & 15,
			     atoi(bottom) & 15);
		if (n < 0 || (size_t)n >= sizeof(text) - len) {
			text[len] = '\0';	/* a full packet: the rest is cut */
			break;
		}
		len += (size_t)n;
	}
	send_text(sv, from, "%s", text);
}

static int count_clients(const struct server *sv, bool spectators)
{
	int n = 0;

	for (int i = 0; i < sv->maxclients; i++)
		if (sv->clients[i].state >= CS_CONNECTED &&
		    sv->clients[i].spectator == spectators)
			n++;
	return n;
}

static void oob_connect(struct server *sv, const struct net_addr *from,
			const struct net_args *args, const char *rest_lines)
{
	char a[NET_ADDR_STRLEN], userinfo[MAX_INFO_STRING], value[64];
	int version = atoi(net_args_argv(args, 1));
	int qport = atoi(net_args_argv(args, 2));
	int32_t challenge = (int32_t)strtol(net_args_argv(args, 3), NULL, 10);
	bool extended = false, spectator;
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
	if (!challenge_check(&sv->secret, from, challenge, sv->realtime)) {
		refuse(sv, from, "bad challenge: send getchallenge first");
		return;
	}
	if (strlen(net_args_argv(args, 4)) >= sizeof(userinfo)) {
		refuse(sv, from, "userinfo too long");
		return;
	}
	strlcpy(userinfo, net_args_argv(args, 4), sizeof(userinfo));
	/* the extension request is a line of its own after the command */
	if (rest_lines && strncmp(rest_lines, QWDX_PROTOCOL_NAME " ", 5) == 0 &&
	    atoi(rest_lines + 5) >= 1)
		extended = true;

	if (sv->password->string[0] &&
	    (!info_value_for_key(userinfo, "password", value, sizeof(value)) ||
	     !net_secure_equal(sv->password->string, value))) {
		refuse(sv, from, "bad password");
		return;
	}
	info_remove_key(userinfo, "password");
	info_value_for_key(userinfo, "spectator", value, sizeof(value));
	spectator = value[0] && strcmp(value, "0") != 0;

	/* a reconnect from the same address and qport replaces its old slot */
	for (int i = 0; i < sv->maxclients; i++) {
		struct client *c = &sv->clients[i];

		if (c->state >= CS_CONNECTED && net_addr_equal_ip(&c->chan.remote, from) &&
		    (c->chan.qport == qport || c->chan.remote.port == from->port)) {
			sv_log_from(sv, from, QWD_LOG_INFO, "%s reconnects (slot %d)",
				    net_addr_format(from, a), i);
			sv_drop_client(sv, c, NULL);
			c->state = CS_FREE;
		}
	}
	if (count_clients(sv, false) + count_clients(sv, true) >= sv->maxclients) {
		refuse(sv, from, "server is full");
		return;
	}
	/* stock clients only fit in the protocol-28 slots */
	int limit = extended ? sv->maxclients
			     : (sv->maxclients < MAX_CLIENTS ? sv->maxclients : MAX_CLIENTS);
	for (int i = 0; i < limit; i++)
		if (sv->clients[i].state == CS_FREE) {
			cl = &sv->clients[i];
			break;
		}
	if (!cl) {
		bool ext_free = false;

		for (int i = limit; i < sv->maxclients; i++)
			ext_free |= sv->clients[i].state == CS_FREE;
		refuse(sv, from, ext_free
			   ? "server is full for protocol 28 clients (the free slots need the QWDX extension)"
			   : "server is full");
		return;
	}

	int slot = cl->slot;
	memset(cl, 0, sizeof(*cl));
	cl->slot = slot;
	cl->state = CS_CONNECTED;
	cl->extended = extended;
	cl->spectator = spectator;
	cl->userid = ++sv->next_userid;
	cl->connect_time = sv->realtime;
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
	sv_log_from(sv, from, QWD_LOG_INFO, "client %d \"%s\" connected from %s%s%s",
		    cl->slot, cl->name, net_addr_format(from, a),
		    extended ? " (QWDX)" : "", spectator ? " as spectator" : "");
	send_text(sv, from, "%c", S2C_CONNECTION);
}

static void oob_rcon(struct server *sv, const struct net_addr *from,
		     const struct net_args *args)
{
	char a[NET_ADDR_STRLEN];

	net_addr_format(from, a);
	if (!ratelimit_allow(&sv->rl_rcon, from, sv->realtime)) {
		sv->stats.ratelimited++;
		return;
	}
	if (!sv->rcon_password->string[0] ||
	    !net_secure_equal(sv->rcon_password->string, net_args_argv(args, 1))) {
		sv_log_from(sv, from, QWD_LOG_WARN, "bad rcon from %s", a);
		send_text(sv, from, "%cbad rcon password.\n", A2C_PRINT);
		return;
	}
	const char *cmd = net_args_rest(args, 2);
	sv_log_from(sv, from, QWD_LOG_INFO, "rcon from %s: %s", a, cmd);

	/* collect the command's output and send it back in one or more
	 * packets of text */
	char out[8192];
	FILE *f = fmemopen(out, sizeof(out) - 1, "w");

	if (!f)
		return;
	server_command(sv, cmd, f);
	fflush(f);
	long n = ftell(f);
	fclose(f);
	if (n < 0)
		n = 0;
	out[n] = '\0';
	for (long pos = 0; pos < n || pos == 0; pos += 1300) {
		send_text(sv, from, "%c%.1300s", A2C_PRINT, out + pos);
		if (n == 0)
			break;
	}
}

void sv_connectionless(struct server *sv, const struct net_addr *from,
		       struct msg_buf *msg)
{
	char line[NET_ARGS_LINE];
	struct net_args *args = &sv->oob_args;
	size_t len = msg->cursize - 4;
	const char *nl;

	sv->stats.oob_in++;
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

	if (strcmp(c, "ping") == 0) {
		uint8_t ack = A2A_ACK;

		sv_send_raw(sv, from, &ack, 1);
		return;
	}
	if (strcmp(c, "rcon") == 0) {
		oob_rcon(sv, from, args);
		return;
	}
	if (strcmp(c, "status") != 0 && strcmp(c, "getchallenge") != 0 &&
	    strcmp(c, "connect") != 0) {
		sv->stats.bad[BAD_OOB]++;
		return;
	}
	if (!ratelimit_allow(&sv->rl_oob, from, sv->realtime)) {
		sv->stats.ratelimited++;
		return;
	}
	if (strcmp(c, "status") == 0) {
		oob_status(sv, from);
	} else if (strcmp(c, "getchallenge") == 0) {
		send_text(sv, from, "%c%d", S2C_CHALLENGE,
			  challenge_make(&sv->secret, from, sv->realtime));
	} else {
		nl = strchr(line, '\n');
		oob_connect(sv, from, args, nl ? nl + 1 : NULL);
	}
}
