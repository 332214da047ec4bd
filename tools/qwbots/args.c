/*
 * args.c -- the qwbots command line.
 *
 * Design note
 *   GNU-style long options ("--bots 16" or "--bots=16"), each checked for
 *   range here so the run never starts with a value it cannot honour; the
 *   first bad option ends the parse with a message naming it.  Defaults
 *   are the studies' workload: 30 requests/s per bot (the 25-30 frames/s
 *   clients of the 2001 study), the random walker with (10, 5, 5), 10%
 *   interval jitter, seed 1.
 *   --help prints every option; docs/qwbots.md explains them at length.
 */
#include "qwbots.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

void qwb_config_defaults(struct qwb_config *c)
{
	memset(c, 0, sizeof(*c));
	c->mode = QWB_MODE_RUN;
	net_addr_parse("127.0.0.1", PORT_SERVER, &c->server);
	strlcpy(c->server_text, "127.0.0.1:27500", sizeof(c->server_text));
	c->bots = 1;
	c->rate = 30;
	c->jitter = 0.1;
	c->duration = 10;
	c->warmup = 0;
	c->join_rate = 100;
	c->join_timeout = 30;
	c->tick = 0.001;
	c->series_interval = 1;
	c->behaviour = QWB_WALKER;
	c->walker.idle = 10;
	c->walker.walk = 5;
	c->walker.after = 5;
	c->walker.speed = 400;
	c->match_spawn = 16;
	c->replay_loop = true;
	c->seed = 1;
	c->qwdx = QWB_QWDX_AUTO;
	c->name_prefix = "bot";
	c->client_rate = 100000;
	c->track_entities = 64;
	c->record_bot = 0;
	c->progress = -1;
}

void qwb_usage(FILE *f)
{
	fprintf(f,
"usage: qwbots --server HOST:PORT --bots N --rate R --duration S --map FILE\n"
"              [--json FILE] [options]\n"
"       qwbots --from-pcap CAPTURE --out FILE [--client-port P]\n"
"       qwbots --check-actions FILE\n"
"\n"
"Runs N QuakeWorld protocol 28 clients (bots) in one thread against a server\n"
"and measures requests/s, replies/s, response time and bandwidth.\n"
"\n"
"load:\n"
"  --server HOST:PORT   server address (default 127.0.0.1:27500)\n"
"  --bots N             number of bots (default 1)\n"
"  --rate R             requests (client frames) per second per bot (30)\n"
"  --jitter F           each interval is 1/R * (1 +- F), uniform (0.1)\n"
"  --duration S         seconds measured once every bot is in the game (10)\n"
"  --warmup S           seconds between the join and the measurement (0)\n"
"  --join-rate J        bots started per second (100)\n"
"  --join-timeout S     longest wait for the bots to join (30)\n"
"  --seed N             seed of every random choice (1)\n"
"  --tick S             the loop's shortest period: requests due within S\n"
"                       go out in one batch, replies are read once per\n"
"                       tick (0.001)\n"
"protocol:\n"
"  --map FILE           the map's .bsp: its checksum2 goes in prespawn\n"
"  --checksum N         the checksum2 itself, instead of --map\n"
"  --qwdx auto|on|off   qwd's extension for more than 32 players\n"
"                       (auto: on when --bots > 32)\n"
"  --name PREFIX        bot names PREFIX0000, PREFIX0001... (bot)\n"
"  --client-rate N      the userinfo \"rate\" (100000)\n"
"  --userinfo \\K\\V      extra userinfo pairs (appended)\n"
"  --source IP[/COUNT]  local addresses: bot i uses IP + (i %% COUNT); with\n"
"                       COUNT > 1 one socket carries COUNT bots (IP_PKTINFO).\n"
"                       Default against a 127.x server: 127.1.0.1/N, one\n"
"                       loopback address per bot; otherwise 0.0.0.0/1, one\n"
"                       socket per bot\n"
"behaviour:\n"
"  --behaviour walker|replay|idle   (walker)\n"
"  --walker I,W,A       walker frames: standing I, walk W before the action,\n"
"                       A after it (10,5,5)\n"
"  --walk-speed N       walker forwardmove (400)\n"
"  --actions FILE       action file to replay; repeat for several, assigned\n"
"                       round-robin\n"
"  --match-spawn N      replay: kill and respawn up to N times to start at\n"
"                       the file's spawn point (16; 0: off)\n"
"  --replay-end loop|idle   at the end of a file (loop)\n"
"  --record FILE        record one bot's command stream as an action file\n"
"  --record-bot I       which bot (0)\n"
"output:\n"
"  --json FILE          totals and per-bot figures\n"
"  --csv FILE           per-bot figures and a total row\n"
"  --series FILE        one CSV row per second (rates, response time)\n"
"  --series-interval S  seconds per --series row, whole (1; a soak: 60)\n"
"  --track-entities N   bots that keep entity state, for entities/reply (64)\n"
"  --server-pid PID     also measure that process's CPU over the window\n"
"  --progress / --no-progress   the live line (default: on a terminal)\n"
"  --quiet              no summary on stderr\n"
"  --verbose            print what the server prints to the bots, and each\n"
"                       bot's state changes\n"
"action files:\n"
"  --from-pcap CAPTURE  read a capture (tcpdump -w) of a client's session\n"
"  --out FILE           and write its commands as an action file\n"
"  --client-port P      the client's UDP port (default: the sender of the\n"
"                       first getchallenge/connect)\n"
"  --check-actions FILE check an action file and print what it holds\n"
"\n"
"Exit status: 0 every bot reached the game; 1 some did not; 2 bad usage or\n"
"set-up; 3 all reached the game but the server dropped some.\n");
}

static bool want(const char *a, const char *name, const char **inline_value)
{
	size_t n = strlen(name);

	*inline_value = NULL;
	if (strncmp(a, name, n) != 0)
		return false;
	if (a[n] == '\0')
		return true;
	if (a[n] == '=') {
		*inline_value = a + n + 1;
		return true;
	}
	return false;
}

static int num(const char *opt, const char *v, double lo, double hi,
	       double *out, char *err, size_t errsize)
{
	if (!qwd_parse_double(v, lo, hi, out)) {
		snprintf(err, errsize, "%s: \"%s\" is not a number in %g..%g", opt,
			 v, lo, hi);
		return -1;
	}
	return 0;
}

static int integer(const char *opt, const char *v, long long lo, long long hi,
		   long long *out, char *err, size_t errsize)
{
	/* decimal, or hexadecimal with 0x: never octal, "010" is ten */
	if (!qwd_parse_int(v, lo, hi, true, out)) {
		snprintf(err, errsize, "%s: \"%s\" is not an integer in %lld..%lld",
			 opt, v, lo, hi);
		return -1;
	}
	return 0;
}

static int parse_source(struct qwb_config *c, const char *v, char *err,
			size_t errsize)
{
	char ip[32];
	const char *slash = strchr(v, '/');
	size_t n = slash ? (size_t)(slash - v) : strlen(v);
	struct in_addr a;
	long long count = 1;

	if (n >= sizeof(ip)) {
		snprintf(err, errsize, "--source: \"%s\" is not IP[/COUNT]", v);
		return -1;
	}
	memcpy(ip, v, n);
	ip[n] = '\0';
	if (inet_pton(AF_INET, ip, &a) != 1) {
		snprintf(err, errsize, "--source: \"%s\" is not an IPv4 address", ip);
		return -1;
	}
	if (slash && integer("--source", slash + 1, 1, 1 << 24, &count, err, errsize))
		return -1;
	c->source_ip = ntohl(a.s_addr);
	c->source_count = (int)count;
	if (c->source_ip == 0 && count > 1) {
		snprintf(err, errsize, "--source: 0.0.0.0 (any) takes no COUNT");
		return -1;
	}
	if ((uint64_t)c->source_ip + (uint64_t)count > 0xffffffffull) {
		snprintf(err, errsize, "--source: %s + %lld runs past 255.255.255.255",
			 ip, count);
		return -1;
	}
	c->source_set = true;
	return 0;
}

static int parse_walker(struct qwb_config *c, const char *v, char *err,
			size_t errsize)
{
	int a, b, d;
	char tail;

	if (sscanf(v, "%d,%d,%d%c", &a, &b, &d, &tail) != 3 || a < 0 || b < 0 ||
	    d < 0 || a > 100000 || b > 100000 || d > 100000 || a + b + d == 0) {
		snprintf(err, errsize, "--walker: \"%s\" is not I,W,A (frames, not all 0)", v);
		return -1;
	}
	c->walker.idle = a;
	c->walker.walk = b;
	c->walker.after = d;
	return 0;
}

/* one option with its value; returns 0 or -1 (err set) */
static int apply(struct qwb_config *c, const char *o, const char *v, char *err,
		 size_t errsize)
{
	long long n;

	if (!strcmp(o, "--server")) {
		if (!net_addr_resolve(v, PORT_SERVER, &c->server, err, errsize))
			return -1;
		net_addr_format(&c->server, c->server_text);
	} else if (!strcmp(o, "--bots")) {
		if (integer(o, v, 1, QWDX_MAX_CLIENTS, &n, err, errsize))
			return -1;
		c->bots = (int)n;
	} else if (!strcmp(o, "--rate")) {
		if (num(o, v, 0.1, 1000, &c->rate, err, errsize))
			return -1;
	} else if (!strcmp(o, "--jitter")) {
		if (num(o, v, 0, 0.9, &c->jitter, err, errsize))
			return -1;
	} else if (!strcmp(o, "--duration")) {
		if (num(o, v, 0, 1e7, &c->duration, err, errsize))
			return -1;
	} else if (!strcmp(o, "--warmup")) {
		if (num(o, v, 0, 1e6, &c->warmup, err, errsize))
			return -1;
	} else if (!strcmp(o, "--join-rate")) {
		if (num(o, v, 0.01, 1e6, &c->join_rate, err, errsize))
			return -1;
	} else if (!strcmp(o, "--join-timeout")) {
		if (num(o, v, 0.1, 1e6, &c->join_timeout, err, errsize))
			return -1;
	} else if (!strcmp(o, "--tick")) {
		if (num(o, v, 0, 0.1, &c->tick, err, errsize))
			return -1;
	} else if (!strcmp(o, "--seed")) {
		if (integer(o, v, 0, INT64_MAX, &n, err, errsize))
			return -1;
		c->seed = (uint64_t)n;
	} else if (!strcmp(o, "--map")) {
		c->map_path = v;
	} else if (!strcmp(o, "--checksum")) {
		if (integer(o, v, INT32_MIN, UINT32_MAX, &n, err, errsize))
			return -1;
		c->checksum2 = (uint32_t)n;
		c->have_checksum = true;
	} else if (!strcmp(o, "--qwdx")) {
		if (!strcmp(v, "auto"))
			c->qwdx = QWB_QWDX_AUTO;
		else if (!strcmp(v, "on"))
			c->qwdx = QWB_QWDX_ON;
		else if (!strcmp(v, "off"))
			c->qwdx = QWB_QWDX_OFF;
		else {
			snprintf(err, errsize, "--qwdx: \"%s\" is not auto, on or off", v);
			return -1;
		}
	} else if (!strcmp(o, "--name")) {
		if (!v[0] || strlen(v) > 8 || strpbrk(v, "\\\"")) {
			snprintf(err, errsize, "--name: 1 to 8 characters, no \\ or \"");
			return -1;
		}
		c->name_prefix = v;
	} else if (!strcmp(o, "--client-rate")) {
		if (integer(o, v, 500, 1000000, &n, err, errsize))
			return -1;
		c->client_rate = (int)n;
	} else if (!strcmp(o, "--userinfo")) {
		if (strlen(v) > 100 || strchr(v, '"')) {
			snprintf(err, errsize, "--userinfo: at most 100 characters, no quotes");
			return -1;
		}
		c->userinfo_extra = v;
	} else if (!strcmp(o, "--source")) {
		return parse_source(c, v, err, errsize);
	} else if (!strcmp(o, "--behaviour") || !strcmp(o, "--behavior")) {
		if (!strcmp(v, "walker"))
			c->behaviour = QWB_WALKER;
		else if (!strcmp(v, "replay"))
			c->behaviour = QWB_REPLAY;
		else if (!strcmp(v, "idle"))
			c->behaviour = QWB_IDLE;
		else {
			snprintf(err, errsize, "%s: \"%s\" is not walker, replay or idle", o, v);
			return -1;
		}
	} else if (!strcmp(o, "--walker")) {
		return parse_walker(c, v, err, errsize);
	} else if (!strcmp(o, "--walk-speed")) {
		if (integer(o, v, -32768, 32767, &n, err, errsize))
			return -1;
		c->walker.speed = (int)n;
	} else if (!strcmp(o, "--actions")) {
		if (c->nactions >= QWB_MAX_ACTION_FILES) {
			snprintf(err, errsize, "--actions: at most %d files", QWB_MAX_ACTION_FILES);
			return -1;
		}
		c->actions[c->nactions++] = v;
		c->behaviour = QWB_REPLAY;
	} else if (!strcmp(o, "--match-spawn")) {
		if (integer(o, v, 0, 1000, &n, err, errsize))
			return -1;
		c->match_spawn = (int)n;
	} else if (!strcmp(o, "--replay-end")) {
		if (!strcmp(v, "loop"))
			c->replay_loop = true;
		else if (!strcmp(v, "idle"))
			c->replay_loop = false;
		else {
			snprintf(err, errsize, "--replay-end: \"%s\" is not loop or idle", v);
			return -1;
		}
	} else if (!strcmp(o, "--record")) {
		c->record_path = v;
	} else if (!strcmp(o, "--record-bot")) {
		if (integer(o, v, 0, QWDX_MAX_CLIENTS - 1, &n, err, errsize))
			return -1;
		c->record_bot = (int)n;
	} else if (!strcmp(o, "--json")) {
		c->json_path = v;
	} else if (!strcmp(o, "--csv")) {
		c->csv_path = v;
	} else if (!strcmp(o, "--series")) {
		c->series_path = v;
	} else if (!strcmp(o, "--series-interval")) {
		if (num(o, v, 1, 3600, &c->series_interval, err, errsize))
			return -1;
	} else if (!strcmp(o, "--track-entities")) {
		if (integer(o, v, 0, QWDX_MAX_CLIENTS, &n, err, errsize))
			return -1;
		c->track_entities = (int)n;
	} else if (!strcmp(o, "--server-pid")) {
		if (integer(o, v, 1, INT32_MAX, &n, err, errsize))
			return -1;
		c->server_pid = (int)n;
	} else if (!strcmp(o, "--from-pcap")) {
		c->pcap_path = v;
		c->mode = QWB_MODE_PCAP;
	} else if (!strcmp(o, "--out")) {
		c->out_path = v;
	} else if (!strcmp(o, "--client-port")) {
		if (integer(o, v, 1, 65535, &n, err, errsize))
			return -1;
		c->client_port = (int)n;
	} else if (!strcmp(o, "--check-actions")) {
		c->check_path = v;
		c->mode = QWB_MODE_CHECK;
	} else {
		snprintf(err, errsize, "unknown option %s", o);
		return -1;
	}
	return 0;
}

static const char *const value_opts[] = {
	"--server", "--bots", "--rate", "--jitter", "--duration", "--warmup",
	"--join-rate", "--join-timeout", "--tick", "--seed", "--map",
	"--checksum", "--qwdx", "--name", "--client-rate", "--userinfo",
	"--source", "--behaviour", "--behavior", "--walker", "--walk-speed",
	"--actions", "--match-spawn", "--replay-end", "--record", "--record-bot",
	"--json", "--csv", "--series", "--series-interval", "--track-entities", "--server-pid",
	"--from-pcap", "--out", "--client-port", "--check-actions"};

static int check(struct qwb_config *c, char *err, size_t errsize)
{
	switch (c->mode) {
	case QWB_MODE_PCAP:
		if (!c->out_path) {
			snprintf(err, errsize, "--from-pcap needs --out FILE");
			return -1;
		}
		return 0;
	case QWB_MODE_CHECK:
	case QWB_MODE_HELP:
		return 0;
	default:
		break;
	}
	if (!c->map_path && !c->have_checksum) {
		snprintf(err, errsize, "--map FILE (or --checksum N) is needed: "
				       "prespawn carries the map's checksum");
		return -1;
	}
	if (c->behaviour == QWB_REPLAY && c->nactions == 0) {
		snprintf(err, errsize, "--behaviour replay needs --actions FILE");
		return -1;
	}
	if (c->source_set && c->source_count > 1 &&
	    (int64_t)c->source_count > (int64_t)c->bots)
		c->source_count = c->bots;
	return 0;
}

int qwb_args_parse(struct qwb_config *c, int argc, char **argv, char *err,
		   size_t errsize)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		bool takes = false;
		size_t k;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			c->mode = QWB_MODE_HELP;
			return 0;
		}
		if (!strcmp(a, "--progress")) {
			c->progress = 1;
			continue;
		}
		if (!strcmp(a, "--no-progress")) {
			c->progress = 0;
			continue;
		}
		if (!strcmp(a, "--quiet")) {
			c->quiet = true;
			continue;
		}
		if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
			c->verbose = true;
			continue;
		}
		for (k = 0; k < sizeof(value_opts) / sizeof(value_opts[0]); k++) {
			if (want(a, value_opts[k], &v)) {
				takes = true;
				break;
			}
		}
		if (!takes) {
			snprintf(err, errsize, "unknown option %s", a);
			return -1;
		}
		if (!v) {
			if (i + 1 >= argc) {
				snprintf(err, errsize, "%s needs a value", value_opts[k]);
				return -1;
			}
			v = argv[++i];
		}
		if (apply(c, value_opts[k], v, err, errsize))
			return -1;
	}
	return check(c, err, errsize);
}
