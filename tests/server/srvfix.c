/*
 * tests/server/srvfix.c -- the in-process server and loopback clients of
 * the server's tests (see srvfix.h).
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
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bsd/string.h>

static void keep_line(void *ctx, int level, const char *line)
{
	struct srvfix *f = ctx;

	strlcpy(f->log[f->log_count % SRVFIX_LOG_LINES], line, SRVFIX_LOG_LEN);
	f->log_count++;
	if (f->log_mark && strstr(line, f->log_mark)) {
		f->log_matched++;
		strlcpy(f->log_last, line, sizeof(f->log_last));
	}
	if (level >= QWD_LOG_WARN || getenv("SRVFIX_VERBOSE"))
		fprintf(stderr, "server: %s\n", line);
}

static bool map_checksum(const char *path, uint32_t *sum)
{
	char err[128];
	struct bsp_map *map = bsp_load(path, err, sizeof(err));

	if (!map) {
		fprintf(stderr, "srvfix: %s: %s\n", path, err);
		return false;
	}
	*sum = map->checksum2;
	bsp_free(map);
	return true;
}

/* the group's state, with an empty base directory; NULL on failure */
static struct srvfix *new_fixture(void **state, const char *first,
				  const char *second)
{
	struct srvfix *f = calloc(1, sizeof(*f));

	*state = f;
	if (!f)
		return NULL;
	f->maps[0] = first;
	f->maps[1] = second;
	f->child_in = -1;
	f->next_ip = 2;
	f->track_entities = true;
	strlcpy(f->dir, "/tmp/qwdfix.XXXXXX", sizeof(f->dir));
	f->rx = calloc(1, sizeof(*f->rx));
	if (!f->rx || !mkdtemp(f->dir)) {
		free(f->rx);
		free(f);
		*state = NULL;
		return NULL;
	}
	return f;
}

int srvfix_setup(void **state)
{
	struct srvfix *f = new_fixture(state, "small", "large");

	if (!f)
		return -1;
	for (int i = 0; i < 2; i++)
		if (!map_checksum(qwd_bundled_map(f->maps[i]), &f->sums[i]))
			return -1;
	f->have_maps = true;
	return 0;
}

/* a community map into the base directory's id1/maps/ */
static bool link_realmap(struct srvfix *f, const char *name, uint32_t *sum)
{
	char file[64], path[256], target[PATH_MAX];
	const char *src;

	snprintf(file, sizeof(file), "%s.bsp", name);
	src = qwd_realmap(file);
	if (!src || !realpath(src, target))
		return false;
	snprintf(path, sizeof(path), "%s/id1/maps", f->dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/id1/maps/%s", f->dir, file);
	if (symlink(target, path) != 0 && errno != EEXIST)
		return false;
	return map_checksum(src, sum);
}

int srvfix_setup_realmaps(void **state)
{
	struct srvfix *f = new_fixture(state, "lqdm1", "lqdm2");
	char path[128];

	if (!f)
		return -1;
	snprintf(path, sizeof(path), "%s/id1", f->dir);
	mkdir(path, 0700);
	f->have_maps = link_realmap(f, f->maps[0], &f->sums[0]) &&
		       link_realmap(f, f->maps[1], &f->sums[1]);
	return 0;
}

static void end_child(struct srvfix *f)
{
	int st;

	if (f->child_in >= 0)
		close(f->child_in);
	f->child_in = -1;
	if (f->child > 0) {
		kill(f->child, SIGKILL);
		waitpid(f->child, &st, 0);
	}
	f->child = 0;
}

/* the clients and the server (or child) gone; the test's sockets stay */
static void stop(struct srvfix *f)
{
	for (int i = 0; i < f->ncl; i++) {
		if (!f->cl[i])
			continue;
		qwc_free(&f->cl[i]->q);
		net_udp_close(f->cl[i]->fd);
		free(f->cl[i]->held_in);
		free(f->cl[i]->held_out);
		free(f->cl[i]);
		f->cl[i] = NULL;
	}
	f->ncl = 0;
	f->next_ip = 2;
	end_child(f);
	if (f->sv) {
		server_shutdown(f->sv);
		free(f->sv);
		f->sv = NULL;
	}
	f->log_count = 0;
}

int srvfix_test_teardown(void **state)
{
	struct srvfix *f = *state;

	stop(f);
	for (int i = 0; i < f->nsockets; i++)
		net_udp_close(f->sockets[i]);
	f->nsockets = 0;
	f->track_entities = true;
	f->print_mark = NULL;
	f->log_mark = NULL;
	f->log_matched = 0;
	f->log_last[0] = '\0';
	f->threads_auto = false;
	f->threads_max = 0;
	return 0;
}

int srvfix_teardown(void **state)
{
	struct srvfix *f = *state;
	char cmd[128];

	if (!f)
		return 0;
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

	assert_true(f->have_maps);
	stop(f);
	f->sv = calloc(1, sizeof(*f->sv));
	assert_non_null(f->sv);
	o.basedir = f->dir;
	o.gamedir = "qw";
	o.ip = "127.0.0.1";
	o.port = 0;
	o.maxclients = maxclients;
	o.threads_auto = f->threads_auto;
	o.threads_max = f->threads_max;
	/* QWD_NET=select|uring: the socket's path (the suite runs the
	 * protocol groups on both); unset: auto, as qwd starts */
	if (getenv("QWD_NET") && !net_path_parse(getenv("QWD_NET"), &o.net))
		fail_msg("QWD_NET=%s: want select, uring or auto", getenv("QWD_NET"));
	assert_int_equal(server_init(f->sv, &o), 0);
	f->sv->log.sink = keep_line;
	f->sv->log.ctx = f;
	if (server_map(f->sv, f->maps[0], err, sizeof(err)) != 0)
		fail_msg("map %s: %s", f->maps[0], err);
}

const char *srvfix_map_model(const struct srvfix *f, int which)
{
	static char name[64];

	snprintf(name, sizeof(name), "maps/%s.bsp", f->maps[which]);
	return name;
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

/* checksum2 of the fixture's first or second map, by model name */
static bool map_sum(void *ctx, const char *model, uint32_t *sum)
{
	struct srvfix *f = ctx;

	for (int i = 0; i < 2; i++)
		if (strcmp(model, srvfix_map_model(f, i)) == 0) {
			*sum = f->sums[i];
			return true;
		}
	return false;
}

static void on_print(void *ctx, struct qwc *q, int level, const char *text)
{
	struct srvfix *f = ctx;
	struct srv_client *c = (struct srv_client *)((char *)q - offsetof(struct srv_client, q));

	if (f->print_mark && strstr(text, f->print_mark)) {
		c->marked_prints++;
		c->last_mark_level = level;
	}
}

struct srv_client *srvfix_client(struct srvfix *f, const char *ip,
				 const char *name, bool extension,
				 const char *extra)
{
	struct srv_client *c = calloc(1, sizeof(*c));
	struct qwc_options o = {0};
	char err[128];

	assert_non_null(c);
	assert_true(f->ncl < SRVFIX_MAX_CLIENTS);
	if (ip) {
		strlcpy(c->ip, ip, sizeof(c->ip));
	} else {
		assert_true(f->next_ip < 255);
		snprintf(c->ip, sizeof(c->ip), "127.0.0.%d", f->next_ip++);
	}
	snprintf(c->info, sizeof(c->info),
		 "\\name\\%s\\topcolor\\1\\bottomcolor\\2\\rate\\25000%s", name,
		 extra ? extra : "");
	assert_true(net_addr_parse("127.0.0.1", f->sv ? f->sv->port : f->child_port,
				   &o.server));
	o.qport = (uint16_t)(2000 + f->ncl);
	o.userinfo = c->info;
	o.extension = extension;
	o.map_checksum = map_sum;
	o.on_print = on_print;
	o.ctx = f;
	o.track_entities = f->track_entities;
	assert_int_equal(qwc_init(&c->q, &o), 0);
	c->fd = net_udp_open(c->ip, 0, err, sizeof(err));
	if (c->fd < 0)
		fail_msg("client socket on %s: %s", c->ip, err);
	f->cl[f->ncl++] = c;
	return c;
}

void srvfix_connect(struct srv_client *c)
{
	qwc_connect(&c->q, server_clock());
}

struct srv_client *srvfix_player(struct srvfix *f, const char *name)
{
	struct srv_client *c = srvfix_client(f, NULL, name, false, NULL);

	srvfix_connect(c);
	assert_true(srvfix_until(f, c, QWC_ACTIVE, 5.0));
	return c;
}

void srvfix_forget(struct srvfix *f, struct srv_client *c)
{
	for (int i = 0; i < f->ncl; i++)
		if (f->cl[i] == c) {
			qwc_free(&c->q);
			net_udp_close(c->fd);
			free(c->held_in);
			free(c->held_out);
			free(c);
			f->cl[i] = NULL;
		}
}

void srvfix_delay(struct srv_client *c, double seconds)
{
	if (!c->held_in) {
		c->held_in = calloc(SRVFIX_DELAY_SLOTS, sizeof(*c->held_in));
		c->held_out = calloc(SRVFIX_DELAY_SLOTS, sizeof(*c->held_out));
		assert_non_null(c->held_in);
		assert_non_null(c->held_out);
	}
	c->delay = seconds;
}

/* hold a datagram back until now + the client's delay */
static void hold(struct srv_client *c, struct srv_delayed *ring, int head,
		 int *count, const uint8_t *data, size_t len, double now)
{
	struct srv_delayed *d;

	if (*count == SRVFIX_DELAY_SLOTS || len > sizeof(d->data)) {
		c->delay_lost++;
		return;
	}
	d = &ring[(head + *count) % SRVFIX_DELAY_SLOTS];
	d->due = now + c->delay;
	d->len = (uint16_t)len;
	memcpy(d->data, data, len);
	(*count)++;
}

/* the oldest held datagram when it is due, else NULL */
static const struct srv_delayed *due(struct srv_delayed *ring, int *head,
				     int *count, double now)
{
	const struct srv_delayed *d;

	if (*count == 0 || ring[*head].due > now)
		return NULL;
	d = &ring[*head];
	*head = (*head + 1) % SRVFIX_DELAY_SLOTS;
	(*count)--;
	return d;
}

void srvfix_client_step(struct srvfix *f, struct srv_client *c, bool send)
{
	uint8_t pkt[NETCHAN_MAX_PACKET];
	double now = server_clock();
	const struct srv_delayed *d;
	size_t n;

	while (net_udp_recv_batch(c->fd, f->rx, &c->net) > 0)
		for (size_t i = 0; i < f->rx->count; i++) {
			if (c->held_in && (c->delay > 0 || c->in_count > 0))
				hold(c, c->held_in, c->in_head, &c->in_count,
				     f->rx->packets[i].data,
				     f->rx->packets[i].len, now);
			else
				qwc_receive(&c->q, f->rx->packets[i].data,
					    f->rx->packets[i].len, now);
		}
	while (c->held_in &&
	       (d = due(c->held_in, &c->in_head, &c->in_count, now)) != NULL)
		qwc_receive(&c->q, d->data, d->len, now);
	while (c->held_out &&
	       (d = due(c->held_out, &c->out_head, &c->out_count, now)) != NULL)
		net_udp_send(c->fd, &c->q.opt.server, d->data, d->len, &c->net);
	if (!send)
		return;
	n = qwc_packet(&c->q, now, false, pkt, sizeof(pkt));
	if (!n)
		return;
	if (c->held_out && (c->delay > 0 || c->out_count > 0))
		hold(c, c->held_out, c->out_head, &c->out_count, pkt, n, now);
	else
		net_udp_send(c->fd, &c->q.opt.server, pkt, n, &c->net);
}

void srvfix_step(struct srvfix *f, bool send)
{
	if (f->sv) {
		server_frame(f->sv, 0.001);
	} else {
		struct timespec ts = {0, 1000 * 1000};

		nanosleep(&ts, NULL);
	}
	for (int i = 0; i < f->ncl; i++)
		if (f->cl[i])
			srvfix_client_step(f, f->cl[i], send);
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

bool srvfix_all_in_state(const struct srvfix *f, enum qwc_state s)
{
	for (int i = 0; i < f->ncl; i++)
		if (f->cl[i] && f->cl[i]->q.state != s)
			return false;
	return true;
}

bool srvfix_until_all(struct srvfix *f, enum qwc_state s, double seconds)
{
	double end = server_clock() + seconds;

	while (server_clock() < end) {
		srvfix_step(f, true);
		if (srvfix_all_in_state(f, s))
			return true;
	}
	return false;
}

void srvfix_dump_client(const struct srv_client *c)
{
	fprintf(stderr, "client %s state %s reason \"%s\" replies %llu bad:", c->ip,
		qwc_state_name(c->q.state), c->q.reason,
		(unsigned long long)c->q.stats.replies);
	for (int k = 0; k < QWC_BAD_KINDS; k++)
		if (c->q.stats.bad[k])
			fprintf(stderr, " %s=%llu", qwc_bad_name(k),
				(unsigned long long)c->q.stats.bad[k]);
	fprintf(stderr, " (last unknown svc %d after %d)\n",
		c->q.stats.last_bad_svc, c->q.stats.last_svc);
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

int srvfix_socket(struct srvfix *f, const char *ip)
{
	char err[128], own[32];
	int fd;

	if (!ip) {
		assert_true(f->next_ip < 255);
		snprintf(own, sizeof(own), "127.0.0.%d", f->next_ip++);
		ip = own;
	}
	fd = net_udp_open(ip, 0, err, sizeof(err));

	if (fd < 0)
		fail_msg("socket on %s: %s", ip, err);
	assert_true(f->nsockets < (int)(sizeof(f->sockets) / sizeof(f->sockets[0])));
	f->sockets[f->nsockets++] = fd;
	return fd;
}

size_t srvfix_exchange(struct srvfix *f, int fd, const void *data, size_t len,
		       uint8_t *reply, size_t max, double seconds)
{
	struct net_stats st = {0};
	struct net_addr to;
	double end = server_clock() + seconds;

	assert_true(net_addr_parse("127.0.0.1", f->sv ? f->sv->port : f->child_port, &to));
	if (len)
		assert_true(net_udp_send(fd, &to, data, len, &st));
	while (server_clock() < end) {
		ssize_t n;

		srvfix_step(f, false);
		/* one datagram: the next may be the next call's */
		n = recv(fd, reply, max, MSG_DONTWAIT);
		if (n > 0)
			return (size_t)n;
	}
	return 0;
}

size_t srvfix_oob_text(struct srvfix *f, int fd, const char *text, char *reply,
		       size_t max)
{
	uint8_t req[NET_MAX_UDP_PACKET], rep[NET_MAX_UDP_PACKET];
	size_t n = qwc_build_oob(req, sizeof(req), text);
	size_t r = srvfix_exchange(f, fd, req, n, rep, sizeof(rep), 2.0);

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

void srvfix_connect_udp(struct srvfix *f, int protocol, bool bad_challenge,
			bool qwdx, char *reply, size_t max)
{
	char text[512], rep[512], err[128], ip[32];
	int fd, n;

	assert_true(f->next_ip < 255);
	n = f->next_ip++;
	snprintf(ip, sizeof(ip), "127.0.0.%d", n);
	fd = net_udp_open(ip, 0, err, sizeof(err));
	if (fd < 0)
		fail_msg("socket on %s: %s", ip, err);
	srvfix_oob_text(f, fd, "getchallenge\n", rep, sizeof(rep));
	if (rep[0] != S2C_CHALLENGE) {
		net_udp_close(fd);
		fail_msg("getchallenge from %s: \"%s\"", ip, rep);
	}
	snprintf(text, sizeof(text), "connect %d %d %ld \"\\name\\raw%d\"\n%s",
		 protocol, 27000 + n, atol(rep + 1) + (bad_challenge ? 1 : 0), n,
		 qwdx ? "QWDX 1\n" : "");
	srvfix_oob_text(f, fd, text, reply, max);
	net_udp_close(fd);
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

void srvfix_command(struct srvfix *f, const char *line, char *out, size_t max)
{
	FILE *fp = fmemopen(out, max, "w");

	assert_non_null(fp);
	server_command(f->sv, line, fp);
	fclose(fp);
	out[max - 1] = '\0';
}

void srvfix_send_raw(struct srv_client *c, int fd, const void *payload,
		     size_t len)
{
	static uint8_t pkt[NET_MAX_UDP_PACKET];
	size_t n = netchan_transmit(&c->q.chan, NULL, 0, server_clock(), pkt,
				    sizeof(pkt));

	assert_true(n > 0);
	assert_true(n + len <= sizeof(pkt));
	if (len)
		memcpy(pkt + n, payload, len);
	assert_true(net_udp_send(fd >= 0 ? fd : c->fd, &c->q.opt.server, pkt,
				 n + len, &c->net));
}

size_t srvfix_stringcmds(uint8_t *buf, size_t max, const char *text, int count)
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

/* a port nobody listens on now (the kernel's pick, given back) */
static uint16_t free_port(void)
{
	struct net_addr a = {0};
	char err[128];
	int fd = net_udp_open("127.0.0.1", 0, err, sizeof(err));

	assert_true(fd >= 0);
	assert_true(net_udp_local_addr(fd, &a));
	net_udp_close(fd);
	return ntohs(a.port);
}

void srvfix_spawn(struct srvfix *f, const char *const *extra)
{
	const char *bin = qwd_build_dir();
	char exe[PATH_MAX + 8], port[16], log[96];
	const char *argv[40];
	int argc = 0, in[2], loaded, fd;
	double end;

	/* a console write to a child that died must fail the test, not
	 * end the program */
	signal(SIGPIPE, SIG_IGN);
	stop(f);
	f->next_ip = 2;
	assert_non_null(bin);
	snprintf(exe, sizeof(exe), "%s/qwd", bin);
	snprintf(log, sizeof(log), "%s/qwd.log", f->dir);
	f->child_port = free_port();
	snprintf(port, sizeof(port), "%u", f->child_port);
	argv[argc++] = "qwd";
	for (const char *a[] = {"-basedir", f->dir, "-game", "qw", "-ip", "127.0.0.1",
				"-port", port, NULL}, **p = a; *p; p++)
		argv[argc++] = *p;
	for (; extra && *extra && argc < 38; extra++)
		argv[argc++] = *extra;
	argv[argc] = NULL;
	loaded = srvfix_file_count(f, "qwd.log", "map small loaded");

	assert_int_equal(pipe(in), 0);
	f->child = fork();
	assert_true(f->child >= 0);
	if (f->child == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
		dup2(in[0], 0);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		close(in[1]);
		execv(exe, (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	f->child_in = in[1];
	end = server_clock() + 10.0;
	while (srvfix_file_count(f, "qwd.log", "map small loaded") == loaded) {
		struct timespec ts = {0, 20 * 1000 * 1000};
		int st;

		if (server_clock() > end || waitpid(f->child, &st, WNOHANG) == f->child) {
			f->child = 0;
			fail_msg("%s did not start (see %s)", exe, log);
		}
		nanosleep(&ts, NULL);
	}
}

void srvfix_console(struct srvfix *f, const char *line)
{
	size_t n = strlen(line);

	assert_true(f->child_in >= 0);
	assert_int_equal(write(f->child_in, line, n), (ssize_t)n);
	assert_int_equal(write(f->child_in, "\n", 1), 1);
}

bool srvfix_stop_child(struct srvfix *f)
{
	double end = server_clock() + 5.0;
	int st = -1;

	srvfix_console(f, "quit");
	while (server_clock() < end) {
		struct timespec ts = {0, 10 * 1000 * 1000};

		if (waitpid(f->child, &st, WNOHANG) == f->child) {
			f->child = 0;
			end_child(f);
			return WIFEXITED(st) && WEXITSTATUS(st) == 0;
		}
		nanosleep(&ts, NULL);
	}
	end_child(f);
	return false;
}

bool srvfix_program(struct srvfix *f, const char *const *argv, char *out,
		    size_t max, double seconds, void (*hook)(struct srvfix *f, void *ctx),
		    void *ctx)
{
	double end = server_clock() + seconds;
	size_t len = 0;
	int pipefd[2], st = -1;
	bool ended = false;
	pid_t pid;
	ssize_t n;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	fcntl(pipefd[0], F_SETFL, fcntl(pipefd[0], F_GETFL) | O_NONBLOCK);
	while (!ended && server_clock() < end) {
		srvfix_step(f, true);
		if (hook)
			hook(f, ctx);
		while (len < max - 1 && (n = read(pipefd[0], out + len, max - 1 - len)) > 0)
			len += (size_t)n;
		ended = waitpid(pid, &st, WNOHANG) == pid;
	}
	if (!ended) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	while (len < max - 1 && (n = read(pipefd[0], out + len, max - 1 - len)) > 0)
		len += (size_t)n;
	close(pipefd[0]);
	out[len] = '\0';
	return ended && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int srvfix_file_count(const struct srvfix *f, const char *rel, const char *text)
{
	char path[256], line[1024];
	FILE *fp;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	fp = fopen(path, "r");
	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp))
		n += strstr(line, text) != NULL;
	fclose(fp);
	return n;
}
