/*
 * bans.c -- addip, removeip, listip, writeip, filterban: the address
 * filters, as MVDSV's operators know them.
 *
 * Design note
 *   The commands, the listing and the file are MVDSV's, so an operator's
 *   habits and an existing listip.cfg carry over:
 *     addip IP [ban|safe] [+SECONDS|UNIXTIME]   (0 or none: permanent)
 *     removeip IP   listip   writeip
 *   IP is an MVDSV filter: octets of 0 (or missing, or "*") are wildcards
 *   (net.h, ipfilter).  writeip writes <basedir>/<game>/listip.cfg, the
 *   safe filters first, each line "addip 127.0.0.2  ban 0" (the type
 *   padded to four characters, the last field the absolute expiry, 0 for
 *   none), which is what MVDSV writes and what `exec listip.cfg` reads back;
 *   the file is replaced whole (written beside it, then renamed), so a
 *   crash never leaves half a list.  qwd execs it at start-up, so bans
 *   persist without a line in server.cfg (an operator's own
 *   "exec listip.cfg" there only adds the same filters again).
 *
 *   filterban 1 (the default): an address matching a ban is refused;
 *   filterban 0: only addresses matching a ban filter are let in (MVDSV's
 *   private-server mode, where the "bans" are the guest list).  A safe
 *   filter is never refused, either way: it carves a friend out of a
 *   banned range.  (MVDSV keeps safe filters for its in-game ban command
 *   and does not look at them per packet; a list it wrote means the same
 *   here unless a safe filter lies inside a ban, which MVDSV would
 *   refuse and qwd lets in.)
 *
 *   Every received packet, connectionless or in-game, is checked first
 *   (sv_ban_filter, from frame.c's receive): a hash probe per wildcard
 *   pattern in use, nothing allocated, nothing looked at when the list is
 *   empty.  A refused packet gets MVDSV's answer, "\xff\xff\xff\xff" 'n'
 *   "\nbanned.\n" (ezQuake prints it), but at most one a second per
 *   address (three at once) and 200 a second in all: a spoofed flood
 *   from a banned range must not turn the server into a reflector.
 *   A change that refuses an address (addip, removeip of a safe filter,
 *   filterban, an expiry) drops the clients it now refuses, at once.
 *   Expiries are looked at once a second.
 */
#include "bans.h"
#include "features.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bsd/string.h>

enum {
	ANSWER_RATE = 1, ANSWER_BURST = 3,	/* per address */
	ANSWER_GLOBAL = 200, ANSWER_GLOBAL_BURST = 400
};

static void bans_init(struct server *sv)
{
	struct sv_bans *b = sv->bans;

	ipfilter_init(&b->list);
	b->filterban = cvar_register(sv, "filterban", "1", 0,
				     "1: addresses matching a ban filter are refused; "
				     "0: only those are let in (safe filters always are)");
	b->filterban_applied = b->filterban->modified;
	ratelimit_init(&b->answers, &sv->secret, ANSWER_RATE, ANSWER_BURST,
		       ANSWER_GLOBAL, ANSWER_GLOBAL_BURST);
	b->next_expiry = 0;
	b->refused = 0;
}

bool sv_banned(const struct server *sv, const struct net_addr *from)
{
	const struct sv_bans *b = sv->bans;
	bool ban_mode = b->filterban->value != 0;
	unsigned hits;

	if (b->list.count == 0)
		return !ban_mode;
	hits = ipfilter_match(&b->list, from->ip);
	if (hits & IPFILTER_HIT_SAFE)
		return false;
	return ban_mode ? (hits & IPFILTER_HIT_BAN) != 0
			: (hits & IPFILTER_HIT_BAN) == 0;
}

bool sv_ban_filter(struct server *sv, const struct net_addr *from)
{
	uint8_t buf[32];
	size_t n;

	if (!sv_banned(sv, from))
		return false;
	sv->bans->refused++;
	if (ratelimit_allow(&sv->bans->answers, from, sv->realtime)) {
		n = net_build_oob(buf, sizeof(buf), "%c\nbanned.\n", A2C_PRINT);
		if (n)
			sv_send_raw(sv, from, buf, n);
	}
	return true;
}

/* drop the clients the filters now refuse; how many */
static int drop_refused(struct server *sv)
{
	int dropped = 0;

	for (int i = 0; i < sv->maxclients; i++) {
		struct client *cl = &sv->clients[i];

		if (cl->state < CS_CONNECTED || !sv_banned(sv, &cl->chan.remote))
			continue;
		sv_reliable_printf(cl, PRINT_HIGH, "You have been banned.\n");
		sv_drop_client(sv, cl, "banned");
		dropped++;
	}
	return dropped;
}

void sv_bans_upkeep(struct server *sv)
{
	struct sv_bans *b = sv->bans;
	bool changed = false;

	if (sv->realtime >= b->next_expiry) {
		b->next_expiry = sv->realtime + 1.0;
		/* an expired safe filter, or a guest under filterban 0, may
		 * leave someone refused */
		changed = ipfilter_expire(&b->list, (int64_t)time(NULL)) > 0;
	}
	if (b->filterban_applied != b->filterban->modified) {
		b->filterban_applied = b->filterban->modified;
		changed = true;
	}
	if (changed)
		drop_refused(sv);
}

/* "+SECONDS" from now or an absolute Unix time (0: never); false for
 * anything else, so a typo never turns into a permanent ban */
static bool parse_expiry(const char *s, int64_t *out)
{
	bool relative = *s == '+';
	char *end;
	long long v;

	if (relative)
		s++;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end || errno || v < 0 || v > (1LL << 40))
		return false;
	*out = relative ? (int64_t)time(NULL) + v : v;
	return true;
}

static void c_addip(struct server *sv, const struct net_args *a, FILE *out)
{
	const char *type = net_args_argv(a, 2), *when = net_args_argv(a, 3);
	enum ipfilter_type t = IPFILTER_BAN;
	int64_t expires = 0;
	uint32_t value;
	int dropped;

	if (!ipfilter_parse(net_args_argv(a, 1), &value)) {
		fprintf(out, "Bad filter address: %s\n", net_args_argv(a, 1));
		return;
	}
	if (!strcmp(type, "safe")) {
		t = IPFILTER_SAFE;
	} else if (type[0] && strcmp(type, "ban") != 0) {
		fprintf(out, "Wrong filter type %s, use ban or safe\n", type);
		return;
	}
	if (when[0] && !parse_expiry(when, &expires)) {
		fprintf(out, "Bad expiry %s: +SECONDS from now, or a Unix time "
			"(0: never)\n", when);
		return;
	}
	if (!ipfilter_add(&sv->bans->list, value, t, expires)) {
		fprintf(out, "IP filter list is full (%d)\n", IPFILTER_MAX);
		return;
	}
	dropped = drop_refused(sv);
	if (dropped)
		fprintf(out, "%d client%s dropped\n", dropped, dropped == 1 ? "" : "s");
}

static void c_removeip(struct server *sv, const struct net_args *a, FILE *out)
{
	uint32_t value;

	if (!ipfilter_parse(net_args_argv(a, 1), &value)) {
		fprintf(out, "Bad filter address: %s\n", net_args_argv(a, 1));
		return;
	}
	if (!ipfilter_remove(&sv->bans->list, value)) {
		fprintf(out, "Didn't find %s.\n", net_args_argv(a, 1));
		return;
	}
	fprintf(out, "Removed.\n");
	drop_refused(sv);
}

/* MVDSV's listing: "127.  0.  0.  2 |  ban" and " | N s" while it lasts */
static void c_listip(struct server *sv, FILE *out)
{
	const struct ipfilter *f = &sv->bans->list;
	int64_t now = (int64_t)time(NULL);

	fprintf(out, "Filter list:\n");
	for (int i = 0; i < f->count; i++) {
		const uint8_t *o = (const uint8_t *)&f->entry[i].value;

		fprintf(out, "%3u.%3u.%3u.%3u | %s", o[0], o[1], o[2], o[3],
			f->entry[i].type == IPFILTER_SAFE ? "safe" : " ban");
		if (f->entry[i].expires)
			fprintf(out, " | %lld s", (long long)(f->entry[i].expires - now));
		fprintf(out, "\n");
	}
	if (sv->bans->refused)
		fprintf(out, "%llu packets refused since start\n",
			(unsigned long long)sv->bans->refused);
}

static void write_type(FILE *fp, const struct ipfilter *f, enum ipfilter_type t)
{
	char ip[16];

	for (int i = 0; i < f->count; i++)
		if (f->entry[i].type == t)
			fprintf(fp, "addip %s %s %lld\n",
				ipfilter_format(f->entry[i].value, ip),
				t == IPFILTER_SAFE ? "safe" : " ban",
				(long long)f->entry[i].expires);
}

static void c_writeip(struct server *sv, FILE *out)
{
	char dir[SV_PATH + 72], path[SV_PATH + 96], tmp[SV_PATH + 104];
	FILE *fp;
	bool bad;

	snprintf(dir, sizeof(dir), "%s/%s", sv->basedir, sv->gamedir);
	snprintf(path, sizeof(path), "%s/listip.cfg", dir);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	fprintf(out, "Writing %s.\n", path);
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(out, "Couldn't make %s: %s\n", dir, strerror(errno));
		return;
	}
	fp = fopen(tmp, "w");
	if (!fp) {
		fprintf(out, "Couldn't open %s: %s\n", tmp, strerror(errno));
		return;
	}
	write_type(fp, &sv->bans->list, IPFILTER_SAFE);
	write_type(fp, &sv->bans->list, IPFILTER_BAN);
	bad = ferror(fp) != 0;
	bad |= fclose(fp) != 0;
	if (bad || rename(tmp, path) != 0) {
		fprintf(out, "Couldn't write %s: %s\n", path, strerror(errno));
		unlink(tmp);
		return;
	}
	qwd_logf(&sv->log, QWD_LOG_INFO, "%d address filters written to %s",
		 sv->bans->list.count, path);
}

void sv_cmd_bans(struct server *sv, const struct net_args *a, FILE *out)
{
	const char *c = net_args_argv(a, 0);

	if (!strcasecmp(c, "addip"))
		c_addip(sv, a, out);
	else if (!strcasecmp(c, "removeip"))
		c_removeip(sv, a, out);
	else if (!strcasecmp(c, "listip"))
		c_listip(sv, out);
	else
		c_writeip(sv, out);
}

/* start-up: the game folder's listip.cfg, if any */
static int bans_load(struct server *sv)
{
	char path[SV_PATH + 96];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s/listip.cfg", sv->basedir, sv->gamedir);
	if (stat(path, &st) != 0)
		return 0;
	server_command(sv, "exec listip.cfg", stdout);
	qwd_logf(&sv->log, QWD_LOG_INFO, "%d address filters from %s",
		 sv->bans->list.count, path);
	return 0;
}

/* every received packet: a refused address goes no further */
static bool bans_packet(struct server *sv, const struct net_addr *from,
			const uint8_t *data, size_t len)
{
	(void)data;
	(void)len;
	return sv_ban_filter(sv, from);
}

static void bans_free(struct server *sv)
{
	free(sv->bans);
	sv->bans = NULL;
}

static const struct sv_feature bans_feature = {
	.name = "bans",
	.start = bans_load,
	.packet = bans_packet,
	.upkeep = sv_bans_upkeep,
	.free = bans_free,
};

int sv_bans_register(struct server *sv)
{
	sv->bans = calloc(1, sizeof(*sv->bans));
	if (!sv->bans)
		return -1;
	bans_init(sv);
	sv_command_add(sv, "addip", sv_cmd_bans,
		       "addip IP [ban|safe] [+SECONDS|UNIXTIME]: filter an address (0 octets: any)");
	sv_command_add(sv, "removeip", sv_cmd_bans, "removeip IP: remove the filter given as IP");
	sv_command_add(sv, "listip", sv_cmd_bans, "the address filters");
	sv_command_add(sv, "writeip", sv_cmd_bans, "save the filters to listip.cfg (read at start-up)");
	sv_feature_add(sv, &bans_feature);
	return 0;
}
