/*
 * main.c -- the qwd binary: Quake-style arguments, the console, signals.
 *
 * Design note
 *   Arguments as QuakeWorld operators type them:
 *     qwd [-port N] [-ip ADDR] [-basedir DIR] [-game DIR] [-maxclients N]
 *         [+map NAME] [+maxclients N] [+set NAME VALUE] [+exec FILE] [+CMD ...]
 *   "-" options configure the process before the server starts; each "+"
 *   starts a console command, with the words up to the next "+" or "-"
 *   as its arguments, run in order once the server is up.  maxclients sizes
 *   every buffer, so "+maxclients N" (or "+set maxclients N") is read first.
 *   With no map command, the bundled map "small" is served.  A map the
 *   loader refuses at start-up ends the process with the loader's message
 *   and a non-zero status; at run time a refused map leaves the level as
 *   it is.
 *   Instruments (docs/instrumentation.md): -stats FILE writes one JSON line
 *   per interval (-statsinterval S, default 10), -statsline prints the
 *   one-line report on the console, -counters opens the perf_event
 *   counters; -notimers turns the phase timers off (no clock read per
 *   phase or packet: the baseline of the overhead benchmark, qwexp
 *   overhead); "stats" and "counters" on the console and over rcon.
 *   -metrics [ADDR:]PORT serves the Prometheus page at /metrics (on
 *   127.0.0.1 unless ADDR says otherwise; docs/metrics.md).
 *   Agones (docs/fleet.md): the SDK client is on when
 *   AGONES_SDK_HTTP_PORT is set (the sidecar's port; Agones sets it) or
 *   -agones PORT names it; -agones-conformance plays the SDK's
 *   conformance sequence once against the sidecar (that port, else
 *   AGONES_DEFAULT_PORT) and exits: 0 when every call answered as
 *   expected, 1 naming the call that did not (no server is started).
 *   -threads N builds the replies of each frame on N workers (the frame's
 *   thread and N-1 more, docs/parallel.md); 1, the default, is the
 *   sequential frame with no thread.  -cpus LIST ("0,1", "0-3") pins the
 *   frame's thread to the first CPU listed and worker w to the w-th.
 *   -threads auto makes a pool of -threads-max workers (default: the
 *   online CPUs) and uses as many as the predicted need asks for
 *   (src/server/autopool.c); -threads-max without auto does nothing.
 *   -seed N starts the game's random numbers (spawn spots, damage,
 *   sounds) at N, so a game can be repeated; without it the seed comes
 *   from the kernel (getrandom), so no two starts play the same sequence.
 *   Signals (docs/security.md, "Signals"): SIGINT and SIGTERM end the
 *   loop within a frame whatever stdin is (a terminal, an open pipe,
 *   closed): the handlers are installed without SA_RESTART, so a blocked
 *   select() or read() returns, and the frame never trusts a descriptor
 *   set that select() did not fill.  Clients are told why, the log names
 *   the signal.  SIGHUP is logged and ignored: nothing is re-read behind
 *   the operator's back (exec a config over the console or rcon instead),
 *   and a closed terminal does not take the server down with it.
 *   The numbers the handlers store are the only globals here: a signal
 *   handler has no other way to reach the loop.
 */
#include "qwd/agones.h"
#include "qwd/net.h"
#include "qwd/pool.h"
#include "qwd/protocol.h"
#include "qwd/server.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <bsd/string.h>

static volatile sig_atomic_t stop_signal;	/* SIGINT or SIGTERM, 0: none */
static volatile sig_atomic_t hangups;		/* SIGHUPs not logged yet */

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void on_hangup(int sig)
{
	(void)sig;
	hangups++;
}

static void catch_signal(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: blocking calls return EINTR */
	sigaction(sig, &sa, NULL);
}

/* the loop has seen a stop signal: say which, and tell the clients why */
static bool stopping(struct server *sv)
{
	const char *why;

	if (hangups) {
		hangups = 0;
		qwd_logf(server_log(sv), QWD_LOG_INFO,
			 "SIGHUP ignored: nothing is re-read (exec a config to apply it)");
	}
	if (!stop_signal)
		return false;
	why = stop_signal == SIGINT ? "SIGINT" : "SIGTERM";
	if (server_stop(sv, why))
		qwd_logf(server_log(sv), QWD_LOG_INFO, "%s received: shutting down", why);
	return true;
}

/* the game's random state when -seed does not give one: from the
 * kernel, so spawns and damage do not repeat from one start to the
 * next (the game's own constant made every server play the same
 * sequence after a restart) */
static uint64_t random_seed(void)
{
	uint64_t seed = 0;

	if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	return seed ? seed : 1;
}

/* -seed's value: decimal, or hexadecimal after 0x, the whole string, 1
 * to 2^64-1 (a 64-bit state: the game's own constant is 0x9E3779B97F4A7C15) */
static bool parse_seed(const char *v, uint64_t *out)
{
	bool hex = v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
	const char *digits = hex ? v + 2 : v;
	unsigned long long n;
	char *end;

	if (!*digits || !(hex ? isxdigit((unsigned char)*digits) : isdigit((unsigned char)*digits)))
		return false;
	errno = 0;
	n = strtoull(digits, &end, hex ? 16 : 10);
	if (errno || *end || n == 0)
		return false;
	*out = (uint64_t)n;
	return true;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: qwd [-port N] [-ip ADDR] [-basedir DIR] [-game DIR] [-maxclients N]\n"
		"           [-noconsole] [-stats FILE] [-statsinterval S] [-statsline] [-counters] [-countersample N] [-notimers]\n"
		"           [-threads N|auto] [-threads-max N] [-cpus LIST] [-metrics [ADDR:]PORT]\n"
		"           [-agones PORT] [-agones-conformance] [-net select|uring|auto] [-seed N]\n"
		"           [+map NAME] [+set NAME VALUE] [+exec FILE] [+CMD ARGS...]\n"
		"  with no map, serves the bundled map \"small\" on port %d\n", PORT_SERVER);
}

int main(int argc, char **argv)
{
	struct server_options opt = {.port = -1, .threads = 1};
	int cpus[POOL_MAX_THREADS];
	struct server *sv;
	bool console = true, have_map = false, conformance = false, seeded = false;
	char err[512];
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "-help")) {
			usage();
			return 0;
		} else if (!strcmp(a, "-port") && v) {
			opt.port = atoi(v);
			i++;
		} else if (!strcmp(a, "-ip") && v) {
			opt.ip = v;
			i++;
		} else if (!strcmp(a, "-basedir") && v) {
			opt.basedir = v;
			i++;
		} else if (!strcmp(a, "-game") && v) {
			opt.gamedir = v;
			i++;
		} else if (!strcmp(a, "-maxclients") && v) {
			opt.maxclients = atoi(v);
			i++;
		} else if (!strcmp(a, "-noconsole")) {
			console = false;
		} else if (!strcmp(a, "-notimers")) {
			opt.notimers = true;
		} else if (!strcmp(a, "-counters")) {
			opt.counters = true;
		} else if (!strcmp(a, "-countersample") && v) {
			opt.counter_sample = atoi(v);
			i++;
		} else if (!strcmp(a, "-stats") && v) {
			opt.stats_path = v;
			i++;
		} else if (!strcmp(a, "-statsinterval") && v) {
			opt.stats_interval = atof(v);
			i++;
		} else if (!strcmp(a, "-net") && v) {
			if (!net_path_parse(v, &opt.net)) {
				fprintf(stderr, "qwd: -net: select, uring or auto, not \"%s\"\n", v);
				return 2;
			}
			i++;
		} else if (!strcmp(a, "-seed") && v) {
			if (!parse_seed(v, &opt.seed)) {
				fprintf(stderr, "qwd: -seed: a number from 1 to 2^64-1 (0x... for hex), not \"%s\"\n", v);
				return 2;
			}
			seeded = true;
			i++;
		} else if (!strcmp(a, "-metrics") && v) {
			opt.metrics = v;
			i++;
		} else if (!strcmp(a, "-agones") && v) {
			opt.agones_port = atoi(v);
			i++;
			if (opt.agones_port < 1 || opt.agones_port > 65535) {
				fprintf(stderr, "qwd: -agones: a port, 1 to 65535\n");
				return 2;
			}
		} else if (!strcmp(a, "-agones-conformance")) {
			conformance = true;
		} else if (!strcmp(a, "-statsline")) {
			opt.stats_console = true;
		} else if (!strcmp(a, "-threads") && v) {
			opt.threads_auto = !strcmp(v, "auto");
			opt.threads = opt.threads_auto ? 1 : atoi(v);
			i++;
			if (opt.threads < 1 || opt.threads > POOL_MAX_THREADS) {
				fprintf(stderr, "qwd: -threads: auto or 1 to %d\n",
					POOL_MAX_THREADS);
				return 2;
			}
		} else if (!strcmp(a, "-threads-max") && v) {
			opt.threads_max = atoi(v);
			i++;
			if (opt.threads_max < 1 || opt.threads_max > POOL_MAX_THREADS) {
				fprintf(stderr, "qwd: -threads-max: 1 to %d\n", POOL_MAX_THREADS);
				return 2;
			}
		} else if (!strcmp(a, "-cpus") && v) {
			opt.num_cpus = pool_parse_cpus(v, cpus, POOL_MAX_THREADS);
			opt.cpus = cpus;
			i++;
			if (opt.num_cpus < 0) {
				fprintf(stderr, "qwd: -cpus: \"%s\" is not a CPU list (0,1 or 0-3, "
					"at most %d)\n", v, POOL_MAX_THREADS);
				return 2;
			}
		} else if (!strcmp(a, "+maxclients") && v) {
			opt.maxclients = atoi(v);
		} else if (!strcmp(a, "+set") && v && !strcmp(v, "maxclients") && i + 2 < argc) {
			opt.maxclients = atoi(argv[i + 2]);
		} else if (!strcmp(a, "+map")) {
			have_map = true;
		} else if (a[0] == '-') {
			fprintf(stderr, "qwd: unknown option %s\n", a);
			usage();
			return 2;
		}
	}
	if (!seeded)
		opt.seed = random_seed();
	if (opt.port < -1 || opt.port > 65535 || opt.maxclients < 0) {
		fprintf(stderr, "qwd: bad -port or maxclients\n");
		return 2;
	}

	if (!opt.agones_port) {
		opt.agones_port = agones_env_port();
		if (opt.agones_port < 0) {
			fprintf(stderr, "qwd: AGONES_SDK_HTTP_PORT=\"%s\" is not a port\n",
				getenv("AGONES_SDK_HTTP_PORT"));
			return 2;
		}
	}
	if (conformance) {
		int port = opt.agones_port ? opt.agones_port : AGONES_DEFAULT_PORT;

		if (agones_conformance(port, NULL, err, sizeof(err)) != 0) {
			fprintf(stderr, "qwd: agones conformance FAILED: %s\n", err);
			return 1;
		}
		printf("agones conformance: passed\n");
		return 0;
	}

	sv = server_create(&opt);
	if (!sv)
		return 1;
	catch_signal(SIGINT, on_stop);
	catch_signal(SIGTERM, on_stop);
	catch_signal(SIGHUP, on_hangup);
	signal(SIGPIPE, SIG_IGN);

	/* the "+" commands, in order; a failing map at start-up is fatal */
	for (i = 1; i < argc && !stopping(sv); i++) {
		char line[NET_ARGS_LINE];
		size_t len = 0;

		if (argv[i][0] != '+')
			continue;
		if (!strcmp(argv[i], "+maxclients"))
			continue;
		line[0] = '\0';
		strlcat(line, argv[i] + 1, sizeof(line));
		while (i + 1 < argc && argv[i + 1][0] != '+' && argv[i + 1][0] != '-') {
			i++;
			strlcat(line, " \"", sizeof(line));
			strlcat(line, argv[i], sizeof(line));
			strlcat(line, "\"", sizeof(line));
		}
		len = strlen(line);
		(void)len;
		if (!strncmp(line, "map ", 4)) {
			struct net_args a;

			net_args_tokenize(&a, line);
			if (server_map(sv, net_args_argv(&a, 1), err, sizeof(err)) != 0) {
				fprintf(stderr, "qwd: %s\n", err);
				server_destroy(sv);
				return 1;
			}
			continue;
		}
		if (!strncmp(line, "set maxclients", 14))
			continue;
		server_command(sv, line, stdout);
	}
	if (!have_map && !stop_signal) {
		if (server_map(sv, "small", err, sizeof(err)) != 0) {
			fprintf(stderr, "qwd: %s\n", err);
			server_destroy(sv);
			return 1;
		}
	}
	server_begin(sv, console ? STDIN_FILENO : -1);
	/* the loop below waits again at once: a frame's replies ride with
	 * the next wait's io_uring_enter */
	server_defer_sends(sv, true);
	while (!server_quitting(sv) && !stopping(sv))
		server_frame(sv, 0.05);
	server_destroy(sv);
	return 0;
}
