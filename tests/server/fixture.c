/*
 * tests/server/fixture.c -- the in-process server and its real clients
 * (fixture.h has the design note).
 */
#include "../harness.h"
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bsd/string.h>

/* ---- set-up ----------------------------------------------------------- */

static void count_sink(void *ctx, int level, const char *line)
{
	struct fx *f = ctx;

	f->log_lines++;
	if (f->log_mark && strstr(line, f->log_mark)) {
		f->log_matched++;
		strlcpy(f->log_last, line, sizeof(f->log_last));
	}
	if (level >= QWD_LOG_WARN)
		fprintf(stderr, "server: %s\n", line);
}

static bool map_checksum(const char *path, uint32_t *sum)
{
	char err[128];
	struct bsp_map *map = bsp_load(path, err, sizeof(err));

	if (!map) {
		fprintf(stderr, "%s: %s\n", path, err);
		return false;
	}
	*sum = map->checksum2;
	bsp_free(map);
	return true;
}

/* a community map into the base directory's id1/maps/ */
static bool link_realmap(const char *dir, const char *name, uint32_t *sum)
{
	char file[64], path[256], target[256];
	const char *src;

	snprintf(file, sizeof(file), "%s.bsp", name);
	src = qwd_realmap(file);
	if (!src)
		return false;
	snprintf(path, sizeof(path), "%s/id1/maps/%s", dir, file);
	if (!realpath(src, target) || symlink(target, path) != 0)
		return false;
	return map_checksum(src, sum);
}

/* the group's state, with an empty base directory; NULL on failure */
static struct fx *new_fx(void **state, const char *first, const char *second)
{
	struct fx *f = calloc(1, sizeof(*f));
	char path[192];

	*state = f;
	if (!f)
		return NULL;
	f->maps[0] = first;
	f->maps[1] = second;
	f->next_ip = 2;
	f->track_entities = true;
	strlcpy(f->dir, "/tmp/qwdfx.XXXXXX", sizeof(f->dir));
	if (!mkdtemp(f->dir)) {
		free(f);
		*state = NULL;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/id1", f->dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/id1/maps", f->dir);
	mkdir(path, 0700);
	f->rx = calloc(1, sizeof(*f->rx));
	return f->rx ? f : NULL;
}

int fx_setup(void **state)
{
	struct fx *f = new_fx(state, "small", "large");

	if (!f)
		return -1;
	for (int i = 0; i < 2; i++)
		if (!map_checksum(qwd_bundled_map(f->maps[i]), &f->sums[i]))
			return -1;
	f->have_maps = true;
	return 0;
}

int fx_setup_realmaps(void **state)
{
	struct fx *f = new_fx(state, "lqdm1", "lqdm2");

	if (!f)
		return -1;
	f->have_maps = link_realmap(f->dir, f->maps[0], &f->sums[0]) &&
		       link_realmap(f->dir, f->maps[1], &f->sums[1]);
	return 0;
}

/* the clients closed and the server stopped */
static void stop(struct fx *f)
{
	for (int i = 0; i < f->ntc; i++) {
		qwc_free(&f->tc[i]->q);
		net_udp_close(f->tc[i]->fd);
		free(f->tc[i]);
	}
	f->ntc = 0;
	if (f->sv) {
		server_shutdown(f->sv);
		free(f->sv);
		f->sv = NULL;
	}
}

int fx_test_teardown(void **state)
{
	struct fx *f = *state;

	stop(f);
	f->track_entities = true;
	f->print_mark = NULL;
	f->log_mark = NULL;
	f->log_lines = f->log_matched = 0;
	return 0;
}

int fx_teardown(void **state)
{
	struct fx *f = *state;
	char path[192];

	if (!f)
		return 0;
	stop(f);
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/id1/maps/%s.bsp", f->dir, f->maps[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/id1/maps", f->dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/id1", f->dir);
	rmdir(path);
	rmdir(f->dir);
	free(f->rx);
	free(f);
	return 0;
}

void fx_start(struct fx *f, int maxclients)
{
	struct server_options o = {0};
	char err[256];

	assert_true(f->have_maps);
	stop(f);
	f->sv = calloc(1, sizeof(*f->sv));
	assert_non_null(f->sv);
	o.basedir = f->dir;
	o.gamedir = "qw";
	o.ip = "127.0.0.1";
	o.port = 0;	/* any free port; server_init reports it in sv.port */
	o.maxclients = maxclients;
	assert_int_equal(server_init(f->sv, &o), 0);
	f->sv->log.sink = count_sink;
	f->sv->log.ctx = f;
	if (server_map(f->sv, f->maps[0], err, sizeof(err)) != 0)
		fail_msg("map %s: %s", f->maps[0], err);
}

const char *fx_map_model(const struct fx *f, int which)
{
	static char name[64];

	snprintf(name, sizeof(name), "maps/%s.bsp", f->maps[which]);
	return name;
}

/* ---- clients ---------------------------------------------------------- */

/* checksum2 of the fixture's first or second map, by model name */
static bool map_sum(void *ctx, const char *model, uint32_t *sum)
{
	struct fx *f = ctx;

	for (int i = 0; i < 2; i++)
		if (strcmp(model, fx_map_model(f, i)) == 0) {
			*sum = f->sums[i];
			return true;
		}
	return false;
}

static void on_print(void *ctx, struct qwc *c, int level, const char *text)
{
	struct fx *f = ctx;
	struct fx_client *t = (struct fx_client *)((char *)c - offsetof(struct fx_client, q));

	if (f->print_mark && strstr(text, f->print_mark)) {
		t->marked_prints++;
		t->last_mark_level = level;
	}
}

int fx_open_socket(struct fx *f, const char *ip)
{
	char own[32], err[128];

	if (!ip) {
		snprintf(own, sizeof(own), "127.0.0.%d", f->next_ip++);
		ip = own;
	}
	return net_udp_open(ip, 0, err, sizeof(err));
}

struct fx_client *fx_client(struct fx *f, const char *name, bool extension,
			    const char *extra)
{
	struct fx_client *t = calloc(1, sizeof(*t));
	struct qwc_options o = {0};

	assert_non_null(t);
	assert_true(f->ntc < FX_MAX_CLIENTS);
	assert_true(f->next_ip < 255);
	snprintf(t->info, sizeof(t->info),
		 "\\name\\%s\\topcolor\\1\\bottomcolor\\2\\rate\\25000%s", name,
		 extra ? extra : "");
	snprintf(t->ip, sizeof(t->ip), "127.0.0.%d", f->next_ip++);
	assert_true(net_addr_parse("127.0.0.1", (uint16_t)f->sv->port, &o.server));
	o.qport = (uint16_t)(1000 + f->ntc);
	o.userinfo = t->info;
	o.extension = extension;
	o.map_checksum = map_sum;
	o.on_print = on_print;
	o.ctx = f;
	o.track_entities = f->track_entities;
	assert_int_equal(qwc_init(&t->q, &o), 0);
	t->fd = fx_open_socket(f, t->ip);
	assert_true(t->fd >= 0);
	f->tc[f->ntc++] = t;
	return t;
}

void fx_connect(struct fx_client *t)
{
	qwc_connect(&t->q, server_clock());
}

void fx_step(struct fx *f, struct fx_client *t, bool send)
{
	uint8_t pkt[NETCHAN_MAX_PACKET];
	double now = server_clock();
	size_t n;

	while (net_udp_recv_batch(t->fd, f->rx, &t->net) > 0)
		for (size_t i = 0; i < f->rx->count; i++)
			qwc_receive(&t->q, f->rx->packets[i].data,
				    f->rx->packets[i].len, now);
	if (!send)
		return;
	n = qwc_packet(&t->q, now, false, pkt, sizeof(pkt));
	if (n)
		net_udp_send(t->fd, &t->q.opt.server, pkt, n, &t->net);
}

void fx_step_all(struct fx *f, bool send)
{
	server_frame(f->sv, 0.001);
	for (int i = 0; i < f->ntc; i++)
		fx_step(f, f->tc[i], send);
}

void fx_run_for(struct fx *f, double seconds, bool send)
{
	double end = server_clock() + seconds;

	while (server_clock() < end)
		fx_step_all(f, send);
}

bool fx_all_in_state(const struct fx *f, enum qwc_state s)
{
	for (int i = 0; i < f->ntc; i++)
		if (f->tc[i]->q.state != s)
			return false;
	return true;
}

bool fx_run_until_active(struct fx *f, double seconds)
{
	double end = server_clock() + seconds;

	while (server_clock() < end) {
		fx_step_all(f, true);
		if (fx_all_in_state(f, QWC_ACTIVE))
			return true;
	}
	return false;
}

void fx_dump_client(const struct fx_client *t)
{
	fprintf(stderr, "client %s state %s reason \"%s\" replies %llu bad:", t->ip,
		qwc_state_name(t->q.state), t->q.reason,
		(unsigned long long)t->q.stats.replies);
	for (int k = 0; k < QWC_BAD_KINDS; k++)
		if (t->q.stats.bad[k])
			fprintf(stderr, " %s=%llu", qwc_bad_name(k),
				(unsigned long long)t->q.stats.bad[k]);
	fprintf(stderr, " (last unknown svc %d after %d)\n",
		t->q.stats.last_bad_svc, t->q.stats.last_svc);
}

/* ---- what an attacker sends ------------------------------------------- */

void fx_send_raw(struct fx_client *t, int fd, const void *payload, size_t len)
{
	static uint8_t pkt[NET_MAX_UDP_PACKET];
	size_t n = netchan_transmit(&t->q.chan, NULL, 0, server_clock(), pkt,
				    sizeof(pkt));

	assert_true(n > 0);
	assert_true(n + len <= sizeof(pkt));
	if (len)
		memcpy(pkt + n, payload, len);
	assert_true(net_udp_send(fd >= 0 ? fd : t->fd, &t->q.opt.server, pkt,
				 n + len, &t->net));
}

size_t fx_stringcmds(uint8_t *buf, size_t max, const char *text, int count)
{
	size_t len = strlen(text) + 2, n = 0;

	for (int i = 0; i < count; i++) {
		assert_true(n + len <= max);
		buf[n] = clc_stringcmd;
		memcpy(buf + n + 1, text, len - 1);
		n += len;
	}
	return n;
}

/* ---- connectionless exchanges ----------------------------------------- */

size_t fx_oob_exchange(struct fx *f, int fd, const void *req, size_t reqlen,
		       uint8_t *reply, size_t max)
{
	struct net_addr to;
	double end = server_clock() + 2.0;

	assert_true(net_addr_parse("127.0.0.1", (uint16_t)f->sv->port, &to));
	assert_true(net_udp_send(fd, &to, req, reqlen, &f->net));
	while (server_clock() < end) {
		server_frame(f->sv, 0.001);
		if (net_udp_recv_batch(fd, f->rx, &f->net) > 0) {
			size_t n = f->rx->packets[0].len < max ? f->rx->packets[0].len : max;

			memcpy(reply, f->rx->packets[0].data, n);
			return n;
		}
	}
	return 0;
}

size_t fx_oob_text(struct fx *f, int fd, const char *text, char *reply,
		   size_t max)
{
	uint8_t req[1500], rep[1500];
	size_t n = qwc_build_oob(req, sizeof(req), text);
	size_t r = fx_oob_exchange(f, fd, req, n, rep, sizeof(rep));

	if (r < 4) {
		reply[0] = '\0';
		return r;
	}
	r -= 4;
	if (r >= max)
		r = max - 1;
	memcpy(reply, rep + 4, r);
	reply[r] = '\0';
	return r;
}

void fx_raw_connect(struct fx *f, int protocol, bool bad_challenge, bool qwdx,
		    char *reply, size_t max)
{
	char text[512], rep[512];
	int fd = fx_open_socket(f, NULL);

	assert_true(fd >= 0);
	fx_oob_text(f, fd, "getchallenge\n", rep, sizeof(rep));
	assert_int_equal(rep[0], 'c');
	snprintf(text, sizeof(text), "connect %d %d %ld \"\\name\\raw%d\"\n%s",
		 protocol, 27000 + f->next_ip,
		 atol(rep + 1) + (bad_challenge ? 1 : 0), f->next_ip,
		 qwdx ? "QWDX 1\n" : "");
	fx_oob_text(f, fd, text, reply, max);
	net_udp_close(fd);
}
