/*
 * tests/server/srvfix.c -- the in-process server and loopback clients of
 * the hardening tests (see srvfix.h).
 *
 * Design note
 *   Everything a test starts is released by the tear-downs, so a failed
 *   assertion (cmocka longjmps out of the test) leaks nothing into the
 *   next test: the fixture owns the clients, the server and the folder.
 */
#include "srvfix.h"

#include "../harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bsd/string.h>

static void keep_line(void *ctx, int level, const char *line)
{
	struct srvfix *f = ctx;

	strlcpy(f->log[f->log_count % SRVFIX_LOG_LINES], line, SRVFIX_LOG_LEN);
	f->log_count++;
	if (level >= QWD_LOG_WARN || getenv("SRVFIX_VERBOSE"))
		fprintf(stderr, "server: %s\n", line);
}

int srvfix_setup(void **state)
{
	struct srvfix *f = calloc(1, sizeof(*f));
	char err[128];
	struct bsp_map *map;

	if (!f)
		return -1;
	*state = f;
	strlcpy(f->dir, "/tmp/qwdfix.XXXXXX", sizeof(f->dir));
	if (!mkdtemp(f->dir))
		return -1;
	f->rx = calloc(1, sizeof(*f->rx));
	map = bsp_load(qwd_bundled_map("small"), err, sizeof(err));
	if (!f->rx || !map) {
		fprintf(stderr, "srvfix: %s\n", map ? "out of memory" : err);
		bsp_free(map);
		return -1;
	}
	f->checksum2 = map->checksum2;
	bsp_free(map);
	return 0;
}

int srvfix_test_teardown(void **state)
{
	struct srvfix *f = *state;

	for (int i = 0; i < f->ncl; i++) {
		if (!f->cl[i])
			continue;
		qwc_free(&f->cl[i]->q);
		net_udp_close(f->cl[i]->fd);
		free(f->cl[i]);
		f->cl[i] = NULL;
	}
	f->ncl = 0;
	f->next_ip = 0;
	if (f->sv) {
		server_shutdown(f->sv);
		free(f->sv);
		f->sv = NULL;
	}
	f->log_count = 0;
	return 0;
}

int srvfix_teardown(void **state)
{
	struct srvfix *f = *state;
	char cmd[128];

	srvfix_test_teardown(state);
	/* the folder holds only what the tests wrote into it */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "srvfix: could not remove %s\n", f->dir);
	free(f->rx);
	free(f);
	return 0;
}

void srvfix_start(struct srvfix *f, int maxclients)
{
	struct server_options o = {0};
	char err[256];

	srvfix_test_teardown((void **)&f);
	f->next_ip = 2;
	f->sv = calloc(1, sizeof(*f->sv));
	assert_non_null(f->sv);
	o.basedir = f->dir;
	o.gamedir = "qw";
	o.ip = "127.0.0.1";
	o.port = 0;
	o.maxclients = maxclients;
	assert_int_equal(server_init(f->sv, &o), 0);
	f->sv->log.sink = keep_line;
	f->sv->log.ctx = f;
	if (server_map(f->sv, "small", err, sizeof(err)) != 0)
		fail_msg("map small: %s", err);
}

void srvfix_write(struct srvfix *f, const char *rel, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	for (char *s = strchr(path + strlen(f->dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*s = '/';
	}
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static bool map_sum(void *ctx, const char *model, uint32_t *sum)
{
	struct srvfix *f = ctx;

	if (strcmp(model, "maps/small.bsp") != 0)
		return false;
	*sum = f->checksum2;
	return true;
}

struct srv_client *srvfix_client(struct srvfix *f, const char *ip,
				 const char *name, bool extension)
{
	struct srv_client *c = calloc(1, sizeof(*c));
	struct qwc_options o = {0};
	char own[32], err[128];

	assert_non_null(c);
	assert_true(f->ncl < SRVFIX_MAX_CLIENTS);
	if (!ip) {
		snprintf(own, sizeof(own), "127.0.0.%d", f->next_ip++);
		ip = own;
	}
	snprintf(c->info, sizeof(c->info),
		 "\\name\\%s\\topcolor\\1\\bottomcolor\\2\\rate\\25000", name);
	assert_true(net_addr_parse("127.0.0.1", (uint16_t)f->sv->port, &o.server));
	o.qport = (uint16_t)(2000 + f->ncl);
	o.userinfo = c->info;
	o.extension = extension;
	o.map_checksum = map_sum;
	o.ctx = f;
	o.max_players = 64;
	assert_int_equal(qwc_init(&c->q, &o), 0);
	c->fd = net_udp_open(ip, 0, err, sizeof(err));
	if (c->fd < 0)
		fail_msg("client socket on %s: %s", ip, err);
	f->cl[f->ncl++] = c;
	return c;
}

struct srv_client *srvfix_player(struct srvfix *f, const char *name)
{
	struct srv_client *c = srvfix_client(f, NULL, name, false);

	qwc_connect(&c->q, server_clock());
	assert_true(srvfix_until(f, c, QWC_ACTIVE, 5.0));
	return c;
}

void srvfix_forget(struct srvfix *f, struct srv_client *c)
{
	for (int i = 0; i < f->ncl; i++)
		if (f->cl[i] == c) {
			qwc_free(&c->q);
			net_udp_close(c->fd);
			free(c);
			f->cl[i] = NULL;
		}
}

static void client_turn(struct srvfix *f, struct srv_client *c, bool send)
{
	uint8_t pkt[NETCHAN_MAX_PACKET];
	double now = server_clock();
	size_t n;

	while (net_udp_recv_batch(c->fd, f->rx, &c->net) > 0)
		for (size_t i = 0; i < f->rx->count; i++)
			qwc_receive(&c->q, f->rx->packets[i].data,
				    f->rx->packets[i].len, now);
	if (!send)
		return;
	n = qwc_packet(&c->q, now, false, pkt, sizeof(pkt));
	if (n)
		net_udp_send(c->fd, &c->q.opt.server, pkt, n, &c->net);
}

void srvfix_step(struct srvfix *f, bool send)
{
	server_frame(f->sv, 0.001);
	for (int i = 0; i < f->ncl; i++)
		if (f->cl[i])
			client_turn(f, f->cl[i], send);
}

bool srvfix_until(struct srvfix *f, struct srv_client *c, enum qwc_state s,
		  double seconds)
{
	double end = server_clock() + seconds;

	while (server_clock() < end) {
		srvfix_step(f, true);
		if (c->q.state == s)
			return true;
	}
	return false;
}

void srvfix_run(struct srvfix *f, double seconds, bool send)
{
	double end = server_clock() + seconds;

	while (server_clock() < end)
		srvfix_step(f, send);
}

void srvfix_oob(struct srvfix *f, const char *from, const char *text)
{
	uint8_t buf[NET_MAX_UDP_PACKET];
	struct net_addr a;
	struct msg_buf m;
	size_t n = qwc_build_oob(buf, sizeof(buf), text);

	assert_true(n > 0);
	assert_true(net_addr_parse(from, 27001, &a));
	msg_init_read(&m, buf, n);
	sv_connectionless(f->sv, &a, &m);
}

int srvfix_connect_raw(struct srvfix *f, const char *from, int qport,
		       bool qwdx)
{
	char text[256];
	struct net_addr a;
	uint64_t connects = f->sv->stats.connects;

	assert_true(net_addr_parse(from, 27001, &a));
	snprintf(text, sizeof(text), "connect %d %d %d \"\\name\\raw%d\"\n%s",
		 PROTOCOL_VERSION, qport,
		 (int)challenge_make(&f->sv->secret, &a, f->sv->realtime), qport,
		 qwdx ? "QWDX 1\n" : "");
	srvfix_oob(f, from, text);
	if (f->sv->stats.connects == connects)
		return -1;
	for (int i = 0; i < f->sv->maxclients; i++) {
		const struct client *cl = &f->sv->clients[i];

		if (cl->state >= CS_CONNECTED && cl->chan.qport == qport &&
		    net_addr_equal(&cl->chan.remote, &a))
			return i;
	}
	return -1;
}

int srvfix_log_count(const struct srvfix *f, const char *text)
{
	int first = f->log_count > SRVFIX_LOG_LINES ? f->log_count - SRVFIX_LOG_LINES : 0;
	int n = 0;

	for (int i = first; i < f->log_count; i++)
		n += strstr(f->log[i % SRVFIX_LOG_LINES], text) != NULL;
	return n;
}

int srvfix_clients_from(const struct srvfix *f, const char *ip)
{
	struct net_addr a;
	int n = 0;

	assert_true(net_addr_parse(ip, 0, &a));
	for (int i = 0; i < f->sv->maxclients; i++)
		n += f->sv->clients[i].state >= CS_CONNECTED &&
		     f->sv->clients[i].chan.remote.ip == a.ip;
	return n;
}
