/*
 * main.c -- the qwbots program: parse the command line, run the mode,
 * turn the result into the exit status.
 *
 * Design note
 *   Three modes: the load run (qwb_run), --from-pcap (a capture into an
 *   action file) and --check-actions (parse a file and say what it holds).
 *   SIGINT and SIGTERM end a run early, with the outputs still written;
 *   the flag they set is this program's only global, because a signal
 *   handler has no other way to reach the loop.
 */
#include "qwbots.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int from_pcap(const struct qwb_config *c)
{
	struct actions a;
	struct qwb_pcap_stats st;
	char err[512];

	if (qwb_pcap_extract(c->pcap_path, c->client_port, &a, &st, err, sizeof(err)) != 0) {
		fprintf(stderr, "qwbots: %s\n", err);
		return 1;
	}
	fprintf(stderr,
		"qwbots: %s: %llu frames, %llu UDP, %llu client packets, %llu server "
		"packets; %llu moves, %llu commands written (%llu recovered from "
		"older copies, %llu lost, %llu duplicates, %llu bad checksums, %llu "
		"before begin, %llu unreadable)\n",
		c->pcap_path, (unsigned long long)st.frames, (unsigned long long)st.udp,
		(unsigned long long)st.client_packets,
		(unsigned long long)st.server_packets, (unsigned long long)st.moves,
		(unsigned long long)st.commands, (unsigned long long)st.recovered,
		(unsigned long long)st.lost, (unsigned long long)st.duplicates,
		(unsigned long long)st.bad_checksum, (unsigned long long)st.before_begin,
		(unsigned long long)st.bad_messages);
	if (a.n == 0) {
		fprintf(stderr, "qwbots: %s: no moves of the client found\n", c->pcap_path);
		actions_free(&a);
		return 1;
	}
	if (actions_save(c->out_path, &a, err, sizeof(err)) != 0) {
		fprintf(stderr, "qwbots: %s\n", err);
		actions_free(&a);
		return 1;
	}
	fprintf(stderr, "qwbots: wrote %s: map %s, spawn %s, %zu commands, %.1f s\n",
		c->out_path, a.map, a.has_spawn ? "known" : "unknown", a.n,
		a.v[a.n - 1].time);
	actions_free(&a);
	return 0;
}

static int check_actions(const struct qwb_config *c)
{
	struct actions a;
	struct actions_stats st;
	char err[512];

	if (actions_load(c->check_path, &a, &st, err, sizeof(err)) != 0) {
		fprintf(stderr, "qwbots: %s\n", err);
		if (st.bad_lines > 1)
			fprintf(stderr, "qwbots: %s: %zu bad lines in all\n",
				c->check_path, st.bad_lines);
		return 1;
	}
	printf("%s: map %s, ", c->check_path, a.map);
	if (a.has_spawn)
		printf("spawn %.1f %.1f %.1f, ", a.spawn[0], a.spawn[1], a.spawn[2]);
	else
		printf("spawn none, ");
	printf("%zu commands, %.3f s%s%s\n", a.n, a.n ? a.v[a.n - 1].time : 0.0,
	       a.source[0] ? ", source: " : "", a.source);
	actions_free(&a);
	return 0;
}

int main(int argc, char **argv)
{
	struct qwb_config cfg;
	char err[512];

	qwb_config_defaults(&cfg);
	if (qwb_args_parse(&cfg, argc, argv, err, sizeof(err)) != 0) {
		fprintf(stderr, "qwbots: %s\n(qwbots --help lists the options)\n", err);
		return 2;
	}
	switch (cfg.mode) {
	case QWB_MODE_HELP:
		qwb_usage(stdout);
		return 0;
	case QWB_MODE_PCAP:
		return from_pcap(&cfg);
	case QWB_MODE_CHECK:
		return check_actions(&cfg);
	default:
		break;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	return qwb_run(&cfg, &stop_requested);
}
