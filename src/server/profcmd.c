/*
 * profcmd.c -- the operator's "stats" and "counters" commands (console and
 * rcon): the profiler's settings and figures as text.
 *
 * Design note
 *   The grammar of the server's console is the server's: the profiler
 *   (src/prof) only offers setters, snapshots (prof_get_stats,
 *   prof_get_settings) and formatters, and this file turns a command line
 *   into calls to them, so prof never sees a command.  sv_prof_command
 *   takes the profiler alone, so the tests drive it over a fake PMU;
 *   sv_cmd_prof is the console's entry, which adds the defences' counters
 *   to "stats" and "stats show".
 *     stats [show]          interval so far, last interval, total
 *     stats reset           zero interval and total
 *     stats on|off          the periodic console line
 *     stats interval SECS   the report interval (0.1 .. 3600)
 *     stats timers on|off   the phase timers
 *     counters              state and events
 *     counters on|off       open or close the counter groups
 *     counters report       the per-phase counter table (total scope)
 *     counters merge on|off one counter phase for receive and execute
 *     counters sample N     read the counters in one frame of N
 */
#include "features.h"
#include "profcmd.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void print_line(FILE *out, const char *label, const struct prof_stats *st)
{
	char line[QWD_LOG_LINE_MAX];

	prof_format_line(st, line, sizeof(line));
	fprintf(out, "%s: %s\n", label, line);
}

static int stats_usage(FILE *out)
{
	fprintf(out, "usage: stats [show|reset|on|off|interval SECONDS|timers on|off]\n");
	return -1;
}

static bool on_off(const char *word)
{
	return !strcasecmp(word, "on") || !strcasecmp(word, "off");
}

static int cmd_stats(struct prof *p, int argc, const char *const *argv, FILE *out)
{
	const char *sub = argc > 1 ? argv[1] : "show";
	struct prof_settings set;
	struct prof_stats st;

	if (!strcasecmp(sub, "show")) {
		char label[48];

		prof_get_stats(p, PROF_SCOPE_INTERVAL, &st);
		print_line(out, "interval so far", &st);
		prof_get_stats(p, PROF_SCOPE_LAST, &st);
		if (st.seq) {
			snprintf(label, sizeof(label), "last interval #%" PRIu64, st.seq);
			print_line(out, label, &st);
		}
		prof_get_stats(p, PROF_SCOPE_TOTAL, &st);
		print_line(out, "total", &st);
		prof_get_settings(p, &set);
		fprintf(out, "console report %s, every %.1f s; stats file %s; phase timers %s\n",
			set.report_console ? "on" : "off", set.interval_s,
			set.stats_file ? "on" : "off", set.timers ? "on" : "off");
	} else if (!strcasecmp(sub, "reset")) {
		prof_reset(p);
		fprintf(out, "stats reset\n");
	} else if (on_off(sub)) {
		prof_set_report_console(p, !strcasecmp(sub, "on"));
		fprintf(out, "console report %s\n", !strcasecmp(sub, "on") ? "on" : "off");
	} else if (!strcasecmp(sub, "timers") && argc > 2 && on_off(argv[2])) {
		prof_set_timers(p, !strcasecmp(argv[2], "on"));
		fprintf(out, "phase timers %s from the next frame\n",
			prof_timers_on(p) ? "on" : "off");
	} else if (!strcasecmp(sub, "interval") && argc > 2) {
		char *end;
		double v = strtod(argv[2], &end);

		if (end == argv[2] || *end || !(v >= 0.1 && v <= 3600.0))
			return stats_usage(out);
		prof_set_interval(p, v);
		fprintf(out, "stats interval %.1f s\n", v);
	} else {
		return stats_usage(out);
	}
	return 0;
}

static int counters_usage(FILE *out)
{
	fprintf(out, "usage: counters [on|off|report|merge on|off|sample N]\n");
	return -1;
}

static int cmd_counters(struct prof *p, int argc, const char *const *argv,
			FILE *out)
{
	const char *sub = argc > 1 ? argv[1] : "";
	struct prof_settings set;

	if (!strcasecmp(sub, "on")) {
		int n = prof_counters_set(p, true);

		prof_get_settings(p, &set);
		fprintf(out, "counters on: %d event(s), mode %s\n", n,
			prof_counter_mode_name(set.counter_mode));
	} else if (!strcasecmp(sub, "off")) {
		prof_counters_set(p, false);
		fprintf(out, "counters off\n");
	} else if (!strcasecmp(sub, "report")) {
		struct prof_stats st;
		char table[4096];

		prof_get_stats(p, PROF_SCOPE_TOTAL, &st);
		prof_format_counters(&st, table, sizeof(table));
		fputs(table, out);
	} else if (!strcasecmp(sub, "sample") && argc > 2 && atoi(argv[2]) > 0) {
		prof_counters_sample(p, atoi(argv[2]));
		fprintf(out, "counters: read in one frame of %d\n",
			prof_counters_sample_every(p));
	} else if (!strcasecmp(sub, "merge") && argc > 2 && on_off(argv[2])) {
		prof_counters_merge(p, !strcasecmp(argv[2], "on"));
		prof_get_settings(p, &set);
		fprintf(out, "counters: receive and execute %s\n",
			set.merge ? "share one counter phase" : "counted apart");
	} else if (!sub[0]) {
		prof_get_settings(p, &set);
		fprintf(out, "counters %s, mode %s, groups [%s]%s%s, read in 1 frame of %d, "
			"read errors %" PRIu64 "\n",
			set.counters ? "on" : "off", prof_counter_mode_name(set.counter_mode),
			set.groups, set.user_only ? ", user space only" : "",
			set.merge ? ", receive+execute merged" : "",
			set.sample_every, set.read_errors);
	} else {
		return counters_usage(out);
	}
	return 0;
}

int sv_prof_command(struct prof *p, int argc, const char *const *argv, FILE *out)
{
	if (argc < 1)
		return -1;
	if (!strcasecmp(argv[0], "stats"))
		return cmd_stats(p, argc, argv, out);
	if (!strcasecmp(argv[0], "counters"))
		return cmd_counters(p, argc, argv, out);
	fprintf(out, "unknown command \"%s\"\n", argv[0]);
	return -1;
}

void sv_cmd_prof(struct server *sv, const struct net_args *a, FILE *out)
{
	sv_prof_command(sv->prof, a->argc, a->argv, out);
	if (!strcasecmp(a->argv[0], "stats") &&
	    (a->argc < 2 || !strcasecmp(a->argv[1], "show"))) {
		char line[768];

		sv_defence_counts(sv, line, sizeof(line));
		fprintf(out, "defences: %s\n", line);
	}
}

int sv_profcmd_register(struct server *sv)
{
	sv_command_add(sv, "stats", sv_cmd_prof,
		       "stats show|reset|on|off|interval N: the frame figures");
	sv_command_add(sv, "counters", sv_cmd_prof,
		       "counters on|off|report|merge on|off: perf_event");
	return 0;
}
