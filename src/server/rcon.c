/*
 * rcon.c -- remote console: who may run a command, and the record of it.
 *
 * Design note
 *   oob.c hands over an "rcon ..." packet once it passed its budget
 *   (sv_oob_rcon: password guessing is slow whatever the form).  Two forms:
 *     plain   rcon PASSWORD COMMAND...   the password in clear, each time
 *     hashed  rcon DIGESTTIME COMMAND... MVDSV's sv_crypt_rcon, ezQuake's
 *             cl_crypt_rcon (the layout: net.h, "hashed rcon")
 *   sv_crypt_rcon 1 (the default, as in MVDSV, whose operators' ezQuake
 *   sends hashed rcon by default) refuses the plain form without looking
 *   at it; 0 takes both.  A hashed command is accepted when its time stamp
 *   is within sv_timestamplen seconds (60) of the server's clock, its
 *   digest is that of this password, time and command, and the digest has
 *   not been accepted before.  MVDSV stops at the first two, so whoever
 *   sees one packet can send it again for two minutes; here every digest
 *   accepted is remembered until its time stamp leaves the window
 *   (SV_RCON_SEEN of them, a fixed table, scanned only for digests that
 *   were valid, whose rate the rcon budget bounds: 20 a second by default
 *   over a two-minute window is 2400), so a replay is refused, and if the
 *   table is ever full of live digests the command is refused rather
 *   than one forgotten.  The same command typed twice within a second
 *   has the same digest too: the second is refused, and says so.
 *   (A digest leaves the table when the wall clock passes its time plus
 *   the window; stepping the server's clock back by hand, or widening
 *   sv_timestamplen, could let one forgotten under the old window back
 *   in, as with any time-stamped scheme.)  The window is at least one
 *   second: MVDSV's 0, "no time check", would need a table without end.
 *
 *   Refusals say why in words a person can act on (wrong password, clock
 *   off by N s, plain rcon refused, already used), none of which tells
 *   a guesser anything about the password.  Every rcon, accepted or not,
 *   is logged with its source address (and the player's name when it
 *   comes from a connected client) in the server's log and in the rcon log
 *   (logfile.c); the password and the digest never are, only the command.
 *
 *   What rcon may not do: the commands and cvars sv_rcon_forbidden names
 *   (the log files and their folder, the rcon rules) are the console's
 *   and server.cfg's only, as MVDSV refuses them over rcon too: the holder
 *   of a stolen password cannot stop the record of what they do, nor
 *   make a log write into a file of their choosing.
 */
#include "features.h"
#include "logfile.h"
#include "rcon.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bsd/string.h>

enum { REPLY_CHUNK = 1300, MAX_WINDOW = 86400 };

enum verdict {
	RCON_OK,
	RCON_BAD_PASSWORD,
	RCON_PLAIN_REFUSED,
	RCON_OUT_OF_WINDOW,
	RCON_REPLAYED,
	RCON_TABLE_FULL
};

static const char *const forbidden[] = {
	"logfile", "logrcon", "fraglogfile", "sv_logdir",
	"sv_crypt_rcon", "sv_timestamplen", NULL
};

/* a command or cvar rcon may not run or set (the logs and the rcon rules
 * themselves): cvar.c asks through the allowed hook while rcon runs */
static bool rcon_allowed(struct server *sv, const char *name)
{
	(void)sv;
	for (int i = 0; forbidden[i]; i++)
		if (!strcasecmp(name, forbidden[i]))
			return false;
	return true;
}

static void rcon_init(struct server *sv)
{
	struct sv_rcon *r = sv->rcon;

	r->sv_crypt_rcon = cvar_register(sv, "sv_crypt_rcon", "1", 0,
					 "1: rcon only hashed (ezQuake's cl_crypt_rcon), "
					 "never the password in clear; 0: both");
	r->sv_timestamplen = cvar_register(sv, "sv_timestamplen", "60", 0,
					   "seconds a hashed rcon's time stamp may be off "
					   "the server's clock (1 to 86400)");
}

static int64_t window(const struct server *sv)
{
	double w = sv->rcon->sv_timestamplen->value;

	return w < 1 ? 1 : w > MAX_WINDOW ? MAX_WINDOW : (int64_t)w;
}

/* the digest was valid: refuse it if seen before, else remember it */
static enum verdict remember(struct server *sv, const uint8_t d[RCON_SHA1],
			     int64_t client_time, int64_t now)
{
	struct sv_rcon_digest *free_entry = NULL;
	int64_t w = window(sv);

	for (int i = 0; i < SV_RCON_SEEN; i++) {
		struct sv_rcon_digest *e = &sv->rcon->seen[i];

		if (e->used && e->client_time + w < now)
			e->used = false;	/* out of the window for good */
		if (!e->used) {
			if (!free_entry)
				free_entry = e;
			continue;
		}
		if (!memcmp(e->sha1, d, RCON_SHA1))
			return RCON_REPLAYED;
	}
	if (!free_entry)
		return RCON_TABLE_FULL;
	memcpy(free_entry->sha1, d, RCON_SHA1);
	free_entry->client_time = client_time;
	free_entry->used = true;
	return RCON_OK;
}

/* constant time: how far a guess matched says nothing */
static bool same_digest(const uint8_t *a, const uint8_t *b)
{
	uint8_t diff = 0;

	for (int i = 0; i < RCON_SHA1; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
}

static enum verdict check_hashed(struct server *sv, const struct net_args *args,
				 int64_t *skew)
{
	const char *key = net_args_argv(args, 1);
	const char *time_hex = key + RCON_DIGEST_HEX;
	uint8_t sent[RCON_SHA1], want[RCON_SHA1];
	int64_t client_time, now = (int64_t)time(NULL);

	if (!rcon_digest_parse(key, sent) || !rcon_time_parse(time_hex, &client_time))
		return RCON_BAD_PASSWORD;
	*skew = client_time - now;
	if (*skew > window(sv) || *skew < -window(sv))
		return RCON_OUT_OF_WINDOW;
	rcon_digest(sv->rcon_password->string, time_hex, args->argc - 2,
		    args->argv + 2, want);
	if (!same_digest(sent, want))
		return RCON_BAD_PASSWORD;
	return remember(sv, want, client_time, now);
}

static enum verdict check(struct server *sv, const struct net_args *args,
			  bool *hashed, int64_t *skew)
{
	const char *key = net_args_argv(args, 1);
	bool crypt_only = sv->rcon->sv_crypt_rcon->value != 0;
	enum verdict v;

	*hashed = strlen(key) == RCON_DIGEST_HEX + RCON_TIME_HEX;
	if (!sv->rcon_password->string[0])
		return RCON_BAD_PASSWORD;	/* rcon is off */
	if (*hashed) {
		v = check_hashed(sv, args, skew);
		/* with plain rcon allowed, a 56-digit password is a password */
		if (v != RCON_BAD_PASSWORD || crypt_only)
			return v;
		*hashed = false;
	}
	if (crypt_only)
		return RCON_PLAIN_REFUSED;
	return net_secure_equal(sv->rcon_password->string, key) ? RCON_OK
								 : RCON_BAD_PASSWORD;
}

static size_t send_print(struct server *sv, const struct net_addr *to,
			 const char *text)
{
	uint8_t buf[REPLY_CHUNK + 16];
	size_t n = net_build_oob(buf, sizeof(buf), "%c%.*s", A2C_PRINT,
				 REPLY_CHUNK, text);

	if (n)
		sv_send_raw(sv, to, buf, n);
	return n;
}

/* "ADDR" or "ADDR (NAME)" when a connected player sent it, for the logs */
static void source(const struct server *sv, const struct net_addr *a,
		   char *out, size_t size)
{
	char addr[NET_ADDR_STRLEN];

	net_addr_format(a, addr);
	snprintf(out, size, "%s", addr);
	for (int i = 0; i < sv->maxclients; i++)
		if (sv->clients[i].state >= CS_CONNECTED &&
		    net_addr_equal(&sv->clients[i].chan.remote, a)) {
			snprintf(out, size, "%s (%s)", addr, sv->clients[i].name);
			break;
		}
}

static size_t refuse(struct server *sv, const struct net_addr *from,
		     enum verdict v, int64_t skew, const char *src, const char *cmd)
{
	char reply[192];
	const char *why = "bad password";

	switch (v) {
	case RCON_PLAIN_REFUSED:
		why = "plain rcon refused";
		snprintf(reply, sizeof(reply), "plain rcon refused: this server takes "
			 "hashed rcon only (sv_crypt_rcon 1; ezQuake: cl_crypt_rcon 1)\n");
		break;
	case RCON_OUT_OF_WINDOW:
		why = "time stamp out of the window";
		snprintf(reply, sizeof(reply), "rcon refused: your clock is %+lld s off "
			 "the server's (sv_timestamplen %lld)\n", (long long)skew,
			 (long long)window(sv));
		break;
	case RCON_REPLAYED:
		why = "digest already used";
		snprintf(reply, sizeof(reply), "rcon refused: this command was sent "
			 "already with this time stamp (a replay, or the same command "
			 "twice within a second)\n");
		break;
	case RCON_TABLE_FULL:
		why = "too many hashed commands in the window";
		snprintf(reply, sizeof(reply), "rcon refused: too many commands in "
			 "the last %lld s; try again shortly\n", (long long)window(sv));
		break;
	default:
		snprintf(reply, sizeof(reply), "bad rcon password.\n");
		break;
	}
	sv->rcon->refused += v != RCON_REPLAYED;
	sv->rcon->replays += v == RCON_REPLAYED;
	sv_log_from(sv, from, QWD_LOG_WARN, "bad rcon from %s: %s", src, why);
	sv_log_rcon(sv, "Bad rcon from %s (%s): %s", src, why, cmd);
	return send_print(sv, from, reply);
}

size_t sv_rcon(struct server *sv, const struct net_addr *from,
	       const struct net_args *args)
{
	const char *cmd = net_args_rest(args, 2);
	char src[NET_ADDR_STRLEN + SV_MAX_NAME + 4], out[8192];
	int64_t skew = 0;
	bool hashed;
	enum verdict v = check(sv, args, &hashed, &skew);
	size_t sent = 0;
	FILE *f;
	long n;

	source(sv, from, src, sizeof(src));
	if (v != RCON_OK)
		return refuse(sv, from, v, skew, src, cmd);
	sv->rcon->accepted++;
	sv_log_from(sv, from, QWD_LOG_INFO, "rcon from %s (%s): %s", src,
		    hashed ? "hashed" : "plain", cmd);
	sv_log_rcon(sv, "Rcon from %s (%s): %s", src, hashed ? "hashed" : "plain", cmd);

	/* the command's output, sent back in packets of text */
	f = fmemopen(out, sizeof(out) - 1, "w");
	if (!f)
		return 0;
	sv->rcon_running = true;
	server_command(sv, cmd, f);
	sv->rcon_running = false;
	fflush(f);
	n = ftell(f);
	fclose(f);
	if (n < 0)
		n = 0;
	out[n] = '\0';
	for (long pos = 0; pos < n || pos == 0; pos += REPLY_CHUNK) {
		sent += send_print(sv, from, out + pos);
		if (n == 0)
			break;
	}
	return sent;
}

static void rcon_free(struct server *sv)
{
	free(sv->rcon);
	sv->rcon = NULL;
}

static const struct sv_feature rcon_feature = {
	.name = "rcon",
	.allowed = rcon_allowed,
	.free = rcon_free,
};

int sv_rcon_register(struct server *sv)
{
	sv->rcon = calloc(1, sizeof(*sv->rcon));
	if (!sv->rcon)
		return -1;
	rcon_init(sv);
	sv_oob_command_add(sv, "rcon", OOB_RCON, sv_rcon);
	sv_feature_add(sv, &rcon_feature);
	return 0;
}
