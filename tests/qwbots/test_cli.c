/*
 * test_cli.c -- the qwbots program end to end, against qwd children.
 *
 * Design note: both programs are found beside the test program's folder
 * (BUILD/tests/test_qwbots -> BUILD/qwbots, BUILD/qwd), where make puts
 * them, and the maps are the project's (build/maps/: qwd finds them by
 * name, the bots read them by path); `make run-tests` builds all of
 * them, so without one the group fails to set up.  The group starts two
 * qwd children (64 slots, free ports) in an empty temporary base
 * directory and stops them at the end: one on small, the bots' usual
 * ground, and one on arena, where all 40 bots of the QWDX run stand in
 * view of each other (small's rooms show only their neighbours, fewer
 * than 32 players).  Each run of qwbots is bounded by timeout(1), so a
 * hang fails instead of stalling the suite.  What is checked is what a
 * user relies on: the exit status, the JSON totals (every bot reached
 * the game, replies answer requests), the files written, the messages
 * for bad input.
 */
#include "../harness.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "qwd/protocol.h"

struct server {
	char map[PATH_MAX];	/* the map's path, for the bots */
	pid_t pid;
	int port;
};

struct fixture {
	char dir[64];
	char bin[PATH_MAX];	/* the build folder */
	struct server small, arena;
	int status;
	char *out, *err;	/* of the last run */
};

static bool exe_dir(char *out, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return false;
	exe[n] = '\0';
	for (int i = 0; i < 2; i++) {
		slash = strrchr(exe, '/');
		if (!slash)
			return false;
		*slash = '\0';
	}
	snprintf(out, size, "%s", exe);
	return true;
}

static bool exists(const char *dir, const char *name)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, X_OK) == 0;
}

static int free_port(void)
{
	struct sockaddr_in sa = {0};
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_DGRAM, 0), port = -1;

	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
		port = ntohs(sa.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* wait until the server answers a ping, at most 10 s */
static bool server_up(int port)
{
	struct sockaddr_in sa = {0};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	bool up = false;

	if (fd < 0)
		return false;
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	for (int i = 0; i < 100 && !up; i++) {
		char buf[64];
		struct timespec ts = {0, 100 * 1000 * 1000};

		sendto(fd, "\xff\xff\xff\xffping\n", 9, 0, (struct sockaddr *)&sa, sizeof(sa));
		nanosleep(&ts, NULL);
		up = recv(fd, buf, sizeof(buf), 0) > 0;
	}
	close(fd);
	return up;
}

/* a qwd child on a bundled map, its output in qwd-<map>.log */
static bool start_qwd(const struct fixture *f, struct server *s, const char *map)
{
	if (!realpath(qwd_bundled_map(map), s->map)) {
		fprintf(stderr, "no %s (make maps)\n", qwd_bundled_map(map));
		return false;
	}
	s->port = free_port();
	s->pid = fork();
	if (s->pid < 0)
		return false;
	if (s->pid == 0) {
		char port[16], exe[PATH_MAX + 16], log[128];
		int fd;

		snprintf(port, sizeof(port), "%d", s->port);
		snprintf(exe, sizeof(exe), "%s/qwd", f->bin);
		snprintf(log, sizeof(log), "%s/qwd-%s.log", f->dir, map);
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execl(exe, "qwd", "-noconsole", "-basedir", f->dir, "-ip", "127.0.0.1",
		      "-port", port, "+maxclients", "64", "+map", map, (char *)NULL);
		_exit(127);
	}
	if (!server_up(s->port)) {
		fprintf(stderr, "qwd (%s) did not answer on port %d\n", map, s->port);
		return false;
	}
	return true;
}

static void stop_qwd(struct server *s)
{
	int st;

	if (s->pid <= 0)
		return;
	kill(s->pid, SIGTERM);
	for (int i = 0; i < 50 && waitpid(s->pid, &st, WNOHANG) == 0; i++)
		usleep(100000);
	kill(s->pid, SIGKILL);
	waitpid(s->pid, &st, 0);
	s->pid = -1;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	*state = f;
	f->small.pid = f->arena.pid = -1;
	if (!exe_dir(f->bin, sizeof(f->bin)) || !exists(f->bin, "qwbots") ||
	    !exists(f->bin, "qwd")) {
		fprintf(stderr, "no qwd and qwbots beside %s (make builds them)\n", f->bin);
		return -1;
	}
	strcpy(f->dir, "/tmp/qwbots-test-XXXXXX");
	if (!mkdtemp(f->dir)) {
		f->dir[0] = '\0';
		return -1;
	}
	if (!start_qwd(f, &f->small, "small") || !start_qwd(f, &f->arena, "arena"))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	if (!f)
		return 0;
	stop_qwd(&f->small);
	stop_qwd(&f->arena);
	if (f->dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", f->dir);
	}
	free(f->out);
	free(f->err);
	free(f);
	return 0;
}

static char *slurp(const char *path)
{
	size_t n = 0;
	uint8_t *d = qwd_read_file(path, &n);

	if (!d)
		return strdup("");
	d[n] = '\0';
	return (char *)d;
}

/* run qwbots with args (in the test's folder), at most 90 s */
static void qwbots(struct fixture *f, const char *args)
{
	char cmd[2 * PATH_MAX + 2048], path[128];
	int st;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && timeout -k 5 90 '%s/qwbots' %s >out.txt 2>err.txt",
		 f->dir, f->bin, args);
	st = system(cmd);
	f->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	free(f->out);
	free(f->err);
	snprintf(path, sizeof(path), "%s/out.txt", f->dir);
	f->out = slurp(path);
	snprintf(path, sizeof(path), "%s/err.txt", f->dir);
	f->err = slurp(path);
}

static char *file_text(struct fixture *f, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	return slurp(path);
}

/* the number after "key": in a JSON text (the first one) */
static double json_number(const char *text, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\": ", key);
	p = strstr(text, k);
	if (!p)
		fail_msg("no %s in the JSON", key);
	return strtod(p + strlen(k), NULL);
}

static int count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

static void test_usage(void **state)
{
	struct fixture *f = *state;

	qwbots(f, "--help");
	assert_int_equal(f->status, 0);
	for (const char *const *o = (const char *const[]){
		     "--server", "--bots", "--rate", "--duration", "--map", "--json",
		     "--csv", "--seed", "--join-rate", "--jitter", "--behaviour",
		     "--actions", "--record", "--from-pcap", "--qwdx", NULL};
	     *o; o++)
		if (!strstr(f->out, *o))
			fail_msg("--help does not list %s", *o);
	qwbots(f, "--bots");
	assert_int_equal(f->status, 2);
	assert_non_null(strstr(f->err, "--bots needs a value"));
	qwbots(f, "--bots 2");
	assert_int_equal(f->status, 2);
	assert_non_null(strstr(f->err, "--map"));
	qwbots(f, "--bots 2 --map nothere.bsp");
	assert_int_equal(f->status, 2);
	assert_non_null(strstr(f->err, "nothere.bsp"));
}

static void test_check_actions(void **state)
{
	struct fixture *f = *state;
	char path[128];
	FILE *o;

	snprintf(path, sizeof(path), "%s/bad.act", f->dir);
	o = fopen(path, "w");
	assert_non_null(o);
	fputs("qwbots-actions 1\nmap small\n0 1 2 3\n0 1 0 0 0 0 0 0 0 999\n", o);
	fclose(o);
	qwbots(f, "--check-actions bad.act");
	assert_int_equal(f->status, 1);
	assert_non_null(strstr(f->err, "bad.act:3: "));
	assert_non_null(strstr(f->err, "2 bad lines"));
	/* refused for a replay too, before any bot starts */
	qwbots(f, "--checksum 0 --actions bad.act");
	assert_int_equal(f->status, 2);
	assert_non_null(strstr(f->err, "bad.act:3: "));
}

static void test_run_16(void **state)
{
	struct fixture *f = *state;
	char args[PATH_MAX + 1024];
	char *json, *csv;

	snprintf(args, sizeof(args),
		 "--server 127.0.0.1:%d --bots 16 --rate 30 --duration 3 --map '%s' "
		 "--json run.json --csv run.csv --series series.csv --seed 3 --no-progress",
		 f->small.port, f->small.map);
	qwbots(f, args);
	if (f->status != 0)
		fail_msg("exit %d: %s", f->status, f->err);
	json = file_text(f, "run.json");
	assert_true(json_number(json, "bots_reached") == 16);
	assert_true(json_number(json, "bots_in_game") == 16);
	assert_true(json_number(json, "response_rate") > 0.9);
	assert_true(json_number(json, "requests") > 16 * 30 * 3 * 0.5);
	assert_true(json_number(json, "bad_total") == 0);
	assert_true(json_number(json, "window_s") >= 2.9);
	assert_int_equal(count(json, "\"reached\": true"), 16);
	/* the walker walked */
	assert_true(count(json, "\"moved\": 0,") < 16);
	assert_non_null(strstr(f->err, "16/16 bots reached the game"));
	csv = file_text(f, "run.csv");
	assert_int_equal(count(csv, "\n"), 1 + 16 + 1);
	free(json);
	free(csv);
	csv = file_text(f, "series.csv");
	assert_true(count(csv, ",measure,") >= 2);
	free(csv);
}

static void test_record_replay(void **state)
{
	struct fixture *f = *state;
	char args[PATH_MAX + 1024];
	char *json;

	snprintf(args, sizeof(args),
		 "--server 127.0.0.1:%d --bots 2 --duration 3 --map '%s' --record rec.act "
		 "--record-bot 1 --no-progress",
		 f->small.port, f->small.map);
	qwbots(f, args);
	if (f->status != 0)
		fail_msg("exit %d: %s", f->status, f->err);
	qwbots(f, "--check-actions rec.act");
	if (f->status != 0)
		fail_msg("exit %d: %s", f->status, f->err);
	assert_non_null(strstr(f->out, "map small, spawn "));
	assert_null(strstr(f->out, "spawn none"));

	snprintf(args, sizeof(args),
		 "--server 127.0.0.1:%d --bots 3 --duration 3 --map '%s' --actions rec.act "
		 "--match-spawn 0 --json replay.json --no-progress",
		 f->small.port, f->small.map);
	qwbots(f, args);
	if (f->status != 0)
		fail_msg("exit %d: %s", f->status, f->err);
	json = file_text(f, "replay.json");
	assert_non_null(strstr(json, "\"behaviour\": \"replay\""));
	assert_true(json_number(json, "bots_reached") == 3);
	/* with spawn matching off every bot starts its file at once (matching
	 * by "kill" depends on the game's respawn rules: random spots, a
	 * button press after death, so it is not timed in a 3 s test) */
	assert_int_equal(count(json, "\"replay_starts\": 0,"), 0);
	free(json);
}

static void test_qwdx(void **state)
{
	struct fixture *f = *state;
	char args[PATH_MAX + 1024];
	char *json;

	/* more than 32 players: the extension is asked for by itself; in
	 * the arena every bot sees all the others */
	snprintf(args, sizeof(args),
		 "--server 127.0.0.1:%d --bots 40 --duration 1 --map '%s' --json x.json "
		 "--no-progress",
		 f->arena.port, f->arena.map);
	qwbots(f, args);
	if (f->status != 0)
		fail_msg("exit %d: %s", f->status, f->err);
	json = file_text(f, "x.json");
	assert_non_null(strstr(json, "\"qwdx\": true"));
	assert_true(json_number(json, "bots_reached") == 40);
	assert_true(json_number(json, "players_max") > 32);
	free(json);
}

static void test_no_server(void **state)
{
	struct fixture *f = *state;
	char args[PATH_MAX + 1024];
	char *json;

	/* nobody answers: the bots never get in, the exit status says so */
	snprintf(args, sizeof(args),
		 "--server 127.0.0.1:%d --bots 3 --duration 0.2 --join-timeout 1 "
		 "--map '%s' --json none.json --no-progress",
		 free_port(), f->small.map);
	qwbots(f, args);
	assert_int_equal(f->status, 1);
	assert_non_null(strstr(f->err, "never reached the game"));
	json = file_text(f, "none.json");
	assert_true(json_number(json, "bots_reached") == 0);
	assert_true(json_number(json, "response_rate") == 0);
	free(json);
}

/* A server that lets clients connect, then answers every netchan packet
 * with something broken, in turn: an unknown svc byte, a message cut
 * short, a stat number out of range, a serverdata of protocol 27, a
 * header too short, a datagram too long for any reply.  Runs until
 * killed. */
static void bad_server(int fd)
{
	static const uint8_t bodies[][8] = {
		{0xee},
		{svc_setangle, 0x10},
		{svc_updatestat, 200, 1},
		{svc_serverdata, 27, 0, 0, 0},
	};
	static const size_t lens[] = {1, 2, 3, 5};
	uint8_t in[2048], out[3000];
	uint32_t seq = 1;
	int turn = 0;

	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, in, sizeof(in), 0, (struct sockaddr *)&from, &fl);
		size_t len = 0;

		if (n < 8)
			continue;
		if (memcmp(in, "\xff\xff\xff\xff", 4) == 0) {
			if (n >= 16 && memcmp(in + 4, "getchallenge", 12) == 0)
				len = (size_t)snprintf((char *)out, sizeof(out), "\xff\xff\xff\xff" "c42");
			else if (n >= 11 && memcmp(in + 4, "connect", 7) == 0)
				len = (size_t)snprintf((char *)out, sizeof(out), "\xff\xff\xff\xff" "j");
		} else {
			int k = turn++ % 6;
			uint32_t ack = ((uint32_t)in[0] | (uint32_t)in[1] << 8 |
					(uint32_t)in[2] << 16 | (uint32_t)(in[3] & 0x7f) << 24);

			memset(out, 0, sizeof(out));
			out[0] = (uint8_t)seq;
			out[1] = (uint8_t)(seq >> 8);
			seq++;
			memcpy(out + 4, &ack, 4);	/* little-endian host */
			if (k < 4) {
				memcpy(out + 8, bodies[k], lens[k]);
				len = 8 + lens[k];
			} else if (k == 4) {
				len = 5;
			} else {
				len = sizeof(out);
			}
		}
		if (len)
			sendto(fd, out, len, 0, (struct sockaddr *)&from, fl);
	}
}

static void test_bad_replies(void **state)
{
	struct fixture *f = *state;
	struct sockaddr_in sa = {0};
	socklen_t sl = sizeof(sa);
	char args[256];
	char *json;
	pid_t pid;
	int fd, st;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(fd >= 0);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		bad_server(fd);
		_exit(0);
	}
	close(fd);
	snprintf(args, sizeof(args),
		 "--server 127.0.0.1:%d --bots 4 --duration 0.5 --join-timeout 2 "
		 "--checksum 0 --json bad.json --no-progress",
		 ntohs(sa.sin_port));
	qwbots(f, args);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	/* no crash: the normal "not every bot got in" status, the report */
	assert_int_equal(f->status, 1);
	json = file_text(f, "bad.json");
	assert_true(json_number(json, "svc") > 0);
	assert_true(json_number(json, "truncated") > 0);
	assert_true(json_number(json, "range") > 0);
	assert_true(json_number(json, "signon") > 0);
	assert_true(json_number(json, "header") > 0);
	assert_true(json_number(json, "oversized") > 0);
	assert_true(json_number(json, "bad_total") > 6);
	free(json);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_bad_replies),
	cmocka_unit_test(test_usage),
	cmocka_unit_test(test_check_actions),
	cmocka_unit_test(test_run_16),
	cmocka_unit_test(test_record_replay),
	cmocka_unit_test(test_qwdx),
	cmocka_unit_test(test_no_server),
};

QWD_TEST_GROUP(qwbots_cli, tests, setup, teardown)
