/*
 * netfix.c -- the packet fuzzers' fixture: server, lockstep clients,
 * client copies (netfix.h has the design note).
 *
 * Design note (the parts that are only here)
 *   The base directory holds qw/maps/<map>.bsp (a symbolic link to the
 *   real file: server_map refuses names with "..", and clients download
 *   the map by that name) and qw/skins/fuzz.pcx, 1000 bytes, so a download
 *   of a served file takes two chunks.  It is ${TMPDIR:-/tmp}/qwdfuzz-<h>,
 *   h a hash of the map's real path, made if missing and then only read:
 *   every run on that map shares it (fork mode, targets side by side) and
 *   it is never removed, because a run that crashes -- a fuzzer's normal
 *   ending -- could not remove it anyway; so there is one small directory
 *   per map, not one per run.  Its content is written so that a reader
 *   never sees it half made (the served file by rename, the link checked
 *   by readlink).
 *
 *   Waits are bounded: a step waits at most 50 ms for the server to see
 *   the client's datagram and 50 ms for the reply, so a server that stays
 *   silent slows a session down but never hangs it.
 */
#include "netfix.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bsd/string.h>

enum { FX_SERVED_SIZE = 1000 };

static const double fx_step_seconds = 1.0 / 77.0;
static const double fx_wait = 0.05;

static void fx_log_sink(void *ctx, int level, const char *line)
{
	(void)ctx;
	fprintf(stderr, "qwd[%d]: %s\n", level, line);
}

/* the map file: QWD_FUZZ_MAP, else FX_MAP in the realmaps folder, else
 * the bundled map FX_BUNDLED_MAP (make builds it) */
static bool fx_find_map(char *path, size_t len)
{
	const char *env = getenv("QWD_FUZZ_MAP");
	const char *dir = getenv("QWD_REALMAPS");
	char rel[PATH_MAX];

	if (env && *env) {
		strlcpy(rel, env, sizeof(rel));
	} else {
		snprintf(rel, sizeof(rel), "%s/%s",
			 dir && *dir ? dir : "../shared/realmaps", FX_MAP);
		if (access(rel, R_OK) != 0)
			strlcpy(rel, FX_BUNDLED_MAP, sizeof(rel));
	}
	if (len < PATH_MAX || !realpath(rel, path)) {
		fprintf(stderr, "netfix: no map at %s (set QWD_FUZZ_MAP or "
			"QWD_REALMAPS): %s\n", rel, strerror(errno));
		return false;
	}
	return true;
}

static int fx_mkdir(const char *path)
{
	return mkdir(path, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

/* path is a link to map, made now if missing */
static int fx_link(const char *map, const char *path)
{
	char target[PATH_MAX];
	ssize_t n;

	if (symlink(map, path) == 0)
		return 0;
	if (errno != EEXIST)
		return -1;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -1;
	target[n] = '\0';
	return strcmp(target, map) == 0 ? 0 : -1;
}

/* the served file, written under another name and renamed into place */
static int fx_write_served(const char *path)
{
	uint8_t data[FX_SERVED_SIZE];
	char tmp[PATH_MAX];
	struct stat st;
	FILE *fp;
	int rc;

	if (stat(path, &st) == 0 && st.st_size == FX_SERVED_SIZE)
		return 0;
	snprintf(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid());
	fp = fopen(tmp, "wb");
	if (!fp)
		return -1;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 13 + 7);
	rc = fwrite(data, 1, sizeof(data), fp) == sizeof(data) ? 0 : -1;
	if (fclose(fp) != 0)
		rc = -1;
	if (rc == 0)
		rc = rename(tmp, path);
	if (rc != 0)
		unlink(tmp);
	return rc;
}

/* base/qw/{maps,skins}, the map linked in, the served file written */
static int fx_make_base(struct fx *f, const char *map)
{
	static const char *const dirs[] = { "", "/qw", "/qw/maps", "/qw/skins" };
	const char *tmpdir = getenv("TMPDIR");
	char path[PATH_MAX];
	const char *slash = strrchr(map, '/');
	uint64_t h = 0xcbf29ce484222325ULL;
	char *dot;

	for (const char *p = map; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	snprintf(f->base, sizeof(f->base), "%s/qwdfuzz-%016llx",
		 tmpdir && *tmpdir && strlen(tmpdir) < 30 ? tmpdir : "/tmp",
		 (unsigned long long)h);
	strlcpy(f->mapname, slash ? slash + 1 : map, sizeof(f->mapname));
	dot = strrchr(f->mapname, '.');
	if (dot)
		*dot = '\0';
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", f->base, dirs[i]);
		if (fx_mkdir(path) != 0)
			return -1;
	}
	snprintf(path, sizeof(path), "%s/qw/maps/%s.bsp", f->base, f->mapname);
	if (fx_link(map, path) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/qw/%s", f->base, FX_SERVED_FILE);
	return fx_write_served(path);
}

void fx_fixed_secret(struct net_secret *s)
{
	_Static_assert(sizeof(FX_SECRET) - 1 == sizeof(s->key),
		       "FX_SECRET is the 16-byte key");
	memcpy(s->key, FX_SECRET, sizeof(s->key));
}

int32_t fx_oob_challenge(const char *ip)
{
	struct net_secret s;
	struct net_addr a;

	fx_fixed_secret(&s);
	if (!net_addr_parse(ip, 0, &a))
		return 0;
	return challenge_make(&s, &a, FX_OOB_TIME);
}

int fx_open(struct fx *f, int maxclients)
{
	struct server_options o = { 0 };
	char map[PATH_MAX], err[512];
	struct server *sv;

	memset(f, 0, sizeof(*f));
	if (!fx_find_map(map, sizeof(map)))
		return -1;
	if (fx_make_base(f, map) != 0) {
		fprintf(stderr, "netfix: cannot set up %s: %s\n", f->base,
			strerror(errno));
		return -1;
	}
	f->rx = calloc(1, sizeof(*f->rx));
	f->sv = sv = calloc(1, sizeof(*f->sv));
	if (!f->rx || !sv)
		return -1;
	o.basedir = f->base;
	o.gamedir = "qw";
	o.ip = "127.0.0.1";
	o.port = 0;
	o.maxclients = maxclients;
	/* the select path: the harness calls the reply phase itself and
	 * restores the server's memory between inputs, which a ring's state
	 * (queued sends, lent buffers) cannot follow; the parsers fuzzed are
	 * the same on both paths.  QWD_NET=uring tries the other anyway. */
	o.net = NET_PATH_SELECT;
	if (getenv("QWD_NET") && !net_path_parse(getenv("QWD_NET"), &o.net)) {
		fprintf(stderr, "netfix: QWD_NET=%s: select, uring or auto\n",
			getenv("QWD_NET"));
		return -1;
	}
	if (server_init(sv, &o) != 0) {
		fprintf(stderr, "netfix: server_init failed\n");
		return -1;
	}
	/* QWD_FUZZ_LOG=1 shows the server's log; otherwise nothing is even
	 * formatted (min_level above every level) */
	sv->log.sink = fx_log_sink;
	sv->log.min_level = getenv("QWD_FUZZ_LOG") ? QWD_LOG_DEBUG
						   : QWD_LOG_ERROR + 1;
	/* a known key: the connectionless target's challenges are constants;
	 * limiters that never run dry, so they mask no path */
	fx_fixed_secret(&sv->secret);
	for (int k = 0; k < OOB_KINDS; k++)
		cvar_set(sv, sv_oob_cvar_name(k), "1e9 1e12 0 1");
	cvar_set(sv, "rcon_password", FX_RCON_PASSWORD);
	/* the plain form, so a fuzzed packet can reach the console commands
	 * (a hashed one would need the digest right) */
	cvar_set(sv, "sv_crypt_rcon", "0");
	cvar_set(sv, "timeout", "100000000");
	cvar_set(sv, "sv_signontimeout", "0");
	cvar_set(sv, "sv_maxclientsperip", "0");
	if (server_map(sv, f->mapname, err, sizeof(err)) != 0) {
		fprintf(stderr, "netfix: map %s: %s\n", map, err);
		return -1;
	}
	f->checksum2 = sv->map->checksum2;
	return 0;
}

void fx_close(struct fx *f)
{
	if (f->sv) {
		if (f->sv->clients)
			server_shutdown(f->sv);
		free(f->sv);
		f->sv = NULL;
	}
	free(f->rx);
	f->rx = NULL;
}

int fx_client_open(struct fx *f, struct fx_client *c, const char *ip,
		   uint16_t qport, const char *name, bool qwdx)
{
	struct qwc_options o = { 0 };
	char err[256];

	memset(c, 0, sizeof(*c));
	c->fd = net_udp_open(ip, 0, err, sizeof(err));
	if (c->fd < 0 || !net_udp_local_addr(c->fd, &c->addr)) {
		fprintf(stderr, "netfix: client socket on %s: %s\n", ip, err);
		return -1;
	}
	snprintf(c->info, sizeof(c->info),
		 "\\name\\%s\\topcolor\\3\\bottomcolor\\4\\skin\\base\\rate\\25000",
		 name);
	if (!net_addr_parse("127.0.0.1", f->sv->port, &o.server))
		return -1;
	o.qport = qport;
	o.userinfo = c->info;
	o.extension = qwdx;
	o.checksum2 = f->checksum2;
	o.track_entities = true;
	o.max_baselines = FX_MAX_BASELINES;
	o.resend_interval = 0.5;
	c->now = 1.0;
	return qwc_init(&c->q, &o);
}

void fx_client_close(struct fx_client *c)
{
	qwc_free(&c->q);
	if (c->fd >= 0)
		net_udp_close(c->fd);
	c->fd = -1;
}

static void fx_wait_readable(int fd, double seconds)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	poll(&p, 1, (int)(seconds * 1000.0));
}

void fx_step(struct fx *f, struct fx_client *c, fx_tap_fn tap, void *ctx)
{
	uint8_t pkt[NETCHAN_MAX_PACKET];
	struct server *sv = f->sv;
	size_t n;
	int got;

	/* lockstep: every request gets its reply, whatever the clock says */
	for (int i = 0; i < sv->maxclients; i++)
		sv->clients[i].chan.cleartime = 0;
	n = qwc_packet(&c->q, c->now, true, pkt, sizeof(pkt));
	if (n) {
		if (tap)
			tap(ctx, c, FX_TO_SERVER, pkt, n);
		net_udp_send(c->fd, &c->q.opt.server, pkt, n, &f->net);
	}
	server_frame(sv, n ? fx_wait : 0);
	if (n)
		fx_wait_readable(c->fd, fx_wait);
	while ((got = net_udp_recv_batch(c->fd, f->rx, &f->net)) > 0) {
		for (int i = 0; i < got; i++) {
			const struct net_packet *p = &f->rx->packets[i];

			if (tap)
				tap(ctx, c, FX_TO_CLIENT, p->data, p->len);
			qwc_receive(&c->q, p->data, p->len, c->now);
		}
		if (got < NET_BATCH)
			break;
	}
	c->now += fx_step_seconds;
}

int fx_session(struct fx *f, struct fx_client *c, enum fx_point until,
	       fx_tap_fn tap, fx_snap_fn snap, void *ctx)
{
	bool seen[FX_POINTS] = { false };
	int settle = 0;

	qwc_connect(&c->q, c->now);
	if (snap)
		snap(ctx, c, FX_CHALLENGING);
	for (int step = 0; step < FX_SESSION_STEPS; step++) {
		enum fx_point p = FX_POINTS;

		fx_step(f, c, tap, ctx);
		switch (c->q.state) {
		case QWC_CONNECTING:
			p = FX_CONNECTING;
			break;
		case QWC_CONNECTED:
			if (c->q.models > 0)
				p = FX_SIGNON;
			break;
		case QWC_ACTIVE:
			if (++settle >= FX_SETTLE_STEPS)
				p = FX_ACTIVE;
			break;
		case QWC_REFUSED:
		case QWC_DROPPED:
			fprintf(stderr, "netfix: session %s: %s\n",
				qwc_state_name(c->q.state), c->q.reason);
			return -1;
		default:
			break;
		}
		if (p == until)
			return 0;
		if (p == FX_POINTS || seen[p])
			continue;
		seen[p] = true;
		if (snap)
			snap(ctx, c, p);
	}
	fprintf(stderr, "netfix: session stuck in state %s\n",
		qwc_state_name(c->q.state));
	return -1;
}

int fx_script(struct fx *f, struct fx_client c[FX_CLIENTS], fx_tap_fn tap,
	      fx_snap_fn snap, void *ctx)
{
	static const struct {
		const char *ip;
		uint16_t qport;
		const char *name;
		bool qwdx;
		enum fx_point until;
	} plan[FX_CLIENTS] = {
		[FX_STOCK] = { FX_OOB_IP, FX_QPORT_STOCK, "fuzz", false, FX_ACTIVE },
		[FX_WIDE] = { FX_WIDE_IP, FX_QPORT_QWDX, "wide", true, FX_ACTIVE },
		[FX_SIGNER] = { FX_SIGNER_IP, FX_QPORT_SIGNER, "signer", false,
				FX_SIGNON },
	};

	for (int k = 0; k < FX_CLIENTS; k++)
		if (fx_client_open(f, &c[k], plan[k].ip, plan[k].qport,
				   plan[k].name, plan[k].qwdx) != 0 ||
		    fx_session(f, &c[k], plan[k].until, tap, snap, ctx) != 0)
			return -1;
	if (snap)
		snap(ctx, &c[FX_SIGNER], FX_SIGNON);
	/* the two in the game hear of each other and settle into deltas */
	for (int i = 0; i < FX_SETTLE_STEPS; i++)
		for (int k = FX_STOCK; k <= FX_WIDE; k++)
			fx_step(f, &c[k], tap, ctx);
	for (int k = FX_STOCK; k <= FX_WIDE; k++) {
		if (c[k].q.state != QWC_ACTIVE) {
			fprintf(stderr, "netfix: client %d left the game: %s\n",
				k, c[k].q.reason);
			return -1;
		}
		if (snap)
			snap(ctx, &c[k], FX_ACTIVE);
	}
	return 0;
}

/* ---- client copies ---------------------------------------------------- */

int fx_qwc_save(struct fx_qwc_copy *t, const struct qwc *c)
{
	size_t np = (size_t)c->opt.max_players;

	memset(t, 0, sizeof(*t));
	t->q = *c;
	t->players = malloc(np * sizeof(*t->players));
	if (!t->players)
		return -1;
	memcpy(t->players, c->players, np * sizeof(*t->players));
	if (c->baselines) {
		size_t nb = (size_t)c->opt.max_baselines;

		t->baselines = malloc(nb * sizeof(*t->baselines));
		if (!t->baselines)
			return -1;
		memcpy(t->baselines, c->baselines, nb * sizeof(*t->baselines));
	}
	if (c->frames) {
		t->frames = malloc(UPDATE_BACKUP * sizeof(*t->frames));
		if (!t->frames)
			return -1;
		memcpy(t->frames, c->frames, UPDATE_BACKUP * sizeof(*t->frames));
	}
	return 0;
}

void fx_qwc_copy_free(struct fx_qwc_copy *t)
{
	free(t->players);
	free(t->baselines);
	free(t->frames);
	memset(t, 0, sizeof(*t));
}

void fx_qwc_restore(struct qwc *c, const struct fx_qwc_copy *t)
{
	struct qwc_player *players = c->players;
	struct qwc_entity *baselines = c->baselines;
	struct qwc_entity_frame *frames = c->frames;
	uint32_t from = t->q.chan.incoming_sequence;
	uint32_t to = c->chan.incoming_sequence;

	*c = t->q;
	c->players = players;
	c->baselines = baselines;
	c->frames = frames;
	/* the netchan's message points into the struct itself */
	c->chan.message.data = c->chan.message_buf;
	memcpy(players, t->players,
	       (size_t)c->opt.max_players * sizeof(*players));
	if (baselines)
		memcpy(baselines, t->baselines,
		       (size_t)c->opt.max_baselines * sizeof(*baselines));
	if (!frames)
		return;
	/* only the frames of sequences accepted since the copy were written;
	 * any other history (a channel set up again) copies them all */
	if (to - from >= UPDATE_BACKUP) {
		memcpy(frames, t->frames, UPDATE_BACKUP * sizeof(*frames));
		return;
	}
	for (uint32_t s = from + 1; s - from <= to - from; s++)
		frames[s & UPDATE_MASK] = t->frames[s & UPDATE_MASK];
	for (int i = 0; i < UPDATE_BACKUP; i++)
		frames[i].valid = t->frames[i].valid;
}

/* ---- the shape of client packets -------------------------------------- */

/* One clc message at m's cursor (its byte c already read), checked as
 * protocol 28 lays it out (and user.c reads it; clc_tmove's three
 * coords, clc_upload's short size, byte percent and bytes): false when it is cut
 * short, unknown, a string without its end or longer than a command line,
 * or a second move.  A move's bounds go to *cks and *end.  The number of
 * string commands is not limited: the protocol sets none (user.c's
 * MAX_STRINGCMDS is the server's own rule, see the fuzzing notes). */
static bool fx_clc_one(struct msg_buf *m, int c, bool *move, size_t *cks,
		       size_t *end)
{
	static const struct usercmd nullcmd;
	struct usercmd a, b, d;

	switch (c) {
	case clc_nop:
		return true;
	case clc_delta:
		msg_read_byte(m);
		return !m->badread;
	case clc_move:
		if (*move)
			return false;
		*move = true;
		*cks = m->readpos;
		msg_read_byte(m);
		msg_read_byte(m);
		if (!msg_read_delta_usercmd(m, &nullcmd, &a) ||
		    !msg_read_delta_usercmd(m, &a, &b) ||
		    !msg_read_delta_usercmd(m, &b, &d))
			return false;
		*end = m->readpos;
		return !m->badread;
	case clc_stringcmd: {
		size_t left = msg_read_remaining(m);
		size_t n = strnlen((const char *)m->data + m->readpos, left);

		if (n == left || n >= NET_ARGS_LINE)
			return false;
		m->readpos += n + 1;
		return true;
	}
	case clc_tmove:
		for (int i = 0; i < 3; i++)
			msg_read_short(m);
		return !m->badread;
	case clc_upload: {
		int size = msg_read_short(m);

		msg_read_byte(m);
		if (m->badread || size < 0 || (size_t)size > msg_read_remaining(m))
			return false;
		m->readpos += (size_t)size;
		return true;
	}
	default:
		return false;
	}
}

bool fx_find_move(const uint8_t *payload, size_t len, size_t *cks,
		  size_t *end)
{
	struct msg_buf m;
	bool move = false;

	msg_init_read(&m, (void *)(uintptr_t)payload, len);
	while (msg_read_remaining(&m) > 0) {
		if (!fx_clc_one(&m, msg_read_byte(&m), &move, cks, end))
			return false;
		if (move)
			return true;
	}
	return false;
}

bool fx_clc_well_formed(const uint8_t *data, size_t len)
{
	struct msg_buf m;
	bool move = false;
	size_t cks, end;

	if (len < NETCHAN_HEADER_QPORT || len > NETCHAN_MAX_PACKET)
		return false;
	if (data[0] == 0xff && data[1] == 0xff && data[2] == 0xff &&
	    data[3] == 0xff)
		return false;
	msg_init_read(&m, (void *)(uintptr_t)data, len);
	m.readpos = NETCHAN_HEADER_QPORT;
	while (msg_read_remaining(&m) > 0)
		if (!fx_clc_one(&m, msg_read_byte(&m), &move, &cks, &end))
			return false;
	return true;
}
