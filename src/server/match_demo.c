/*
 * match_demo.c -- per-match demos and the statistics' file, as KTX has
 * MVDSV make them.
 *
 * Design note
 *   With demo_tmp_record 1 (KTX's cvar, off by default) the countdown
 *   starts a demo named as KTX names it (match_demo_name: duel_A_vs_B[map],
 *   4on4_T1_vs_T2[map], ffa_N[map], and the date when k_demoname_date
 *   gives strftime's format).  A demo the operator was recording is
 *   stopped and kept first (KTX cancels it: nothing accepted is lost
 *   here).  The match's end stops the demo and writes KTX's JSON
 *   statistics beside it (the demo's name with ".json"); without a demo
 *   the file goes to the demo folder under the name the demo would have
 *   had.  A match broken off (or a countdown aborted) removes its demo
 *   when it played less than k_demo_mintime seconds (KTX: 120 when 0 or
 *   less, at most 3600) or never started, as KTX's match_can_cancel_demo;
 *   a longer one is kept.  Every step is logged; a failure is logged and
 *   counted, never fatal.  State: whether the demo being recorded is the
 *   match's, and its name.
 */
#include "core.h"
#include "features.h"
#include "demo.h"
#include "match_demo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bsd/string.h>

enum { MD_NAME = 128, MD_PATH = SV_PATH * 4 };

struct sv_match_demo {
	struct cvar *tmp_record, *mintime, *name_date;
	bool ours;		/* the demo being recorded is the match's */
	char file[MD_NAME];	/* its name as listed (NAME.mvd) */
	unsigned long failures;	/* demos or files that could not be made */
};

struct sv_match_demo *sv_match_demo_register(struct server *sv)
{
	struct sv_match_demo *md = calloc(1, sizeof(*md));

	if (!md)
		return NULL;
	md->tmp_record = cvar_register(sv, "demo_tmp_record", "0", 0,
		"1: every match is recorded from its countdown (KTX's), its "
		"statistics written beside the demo");
	md->mintime = cvar_register(sv, "k_demo_mintime", "120", 0,
		"a match broken off before this many seconds loses its demo "
		"(0: 120; at most 3600)");
	md->name_date = cvar_register(sv, "k_demoname_date", "", 0,
		"strftime format added to a match demo's name (empty: none)");
	return md;
}

void sv_match_demo_free(struct sv_match_demo *md)
{
	free(md);
}

const char *sv_match_demo_file(const struct sv_match_demo *md)
{
	return md && md->ours ? md->file : NULL;
}

/* a FILE-said answer's first line into the log at level */
static void said(struct server *sv, int level, const char *what, const char *text)
{
	char line[256];

	strlcpy(line, text, sizeof(line));
	line[strcspn(line, "\n")] = '\0';
	qwd_logf(&sv->log, level, "match demo: %s%s%s", what, line[0] ? ": " : "",
		 line);
}

/* still ours?  (a "stop" on the console ends it for us too) */
static bool still_ours(struct server *sv, struct sv_match_demo *md)
{
	const char *now = sv_mvd_file(sv, NULL);

	if (md->ours && (!now || strcmp(now, md->file) != 0))
		md->ours = false;
	return md->ours;
}

static void start(struct server *sv, struct sv_match_demo *md, const struct match *m)
{
	char name[MD_NAME], text[512] = "";
	FILE *out;
	bool ok;

	if (md->tmp_record->value == 0)
		return;
	if (sv_mvd_file(sv, NULL) && !still_ours(sv, md)) {
		qwd_logf(&sv->log, QWD_LOG_INFO, "match demo: %s stopped and kept "
			 "for the match's own", sv_mvd_file(sv, NULL));
		sv_mvd_stop_file(sv, DEMO_STOP_DONE);
	} else if (md->ours) {
		sv_mvd_stop_file(sv, DEMO_STOP_CANCEL);	/* a countdown again */
		md->ours = false;
	}
	match_demo_name(m, md->name_date->string, time(NULL), name, sizeof(name));
	out = fmemopen(text, sizeof(text), "w");
	if (!out) {
		md->failures++;
		return;
	}
	ok = sv_demo_record_named(sv, name, out);
	fclose(out);
	if (!ok || !sv_mvd_file(sv, NULL)) {
		md->failures++;
		said(sv, QWD_LOG_WARN, "not recorded", text);
		return;
	}
	md->ours = true;
	strlcpy(md->file, sv_mvd_file(sv, NULL), sizeof(md->file));
	said(sv, QWD_LOG_INFO, "recording", md->file);
}

/* KTX's match_can_cancel_demo: never started, or shorter than mintime
 * without a matchtag (a tagged match's demo is kept) */
static bool cancel_it(const struct sv_match_demo *md, const struct match *m,
		      const struct match_result *r)
{
	int min = (int)md->mintime->value;

	if (min > 3600)
		min = 3600;
	if (min <= 0)
		min = 120;
	if (!r || r->duration <= 0)
		return true;
	return !match_matchtag(m)[0] && r->duration < min;
}

static void write_stats(struct server *sv, struct sv_match_demo *md,
			const struct match *m, const char *demo)
{
	char dir[MD_PATH], path[MD_PATH + MD_NAME + 8], base[MD_NAME];
	char date[64], ip[64], text[256] = "";
	struct match_stats_facts f;
	time_t now = time(NULL);
	struct tm tm;
	FILE *out = fmemopen(text, sizeof(text), "w");
	bool ok = out && sv_demo_folder(sv, dir, sizeof(dir), out);

	if (out)
		fclose(out);
	if (!ok) {
		md->failures++;
		said(sv, QWD_LOG_WARN, "no statistics file", text);
		return;
	}
	if (demo) {
		size_t n = strlcpy(base, demo, sizeof(base));

		if (n > 4 && n < sizeof(base) && strcmp(base + n - 4, ".mvd") == 0)
			base[n - 4] = '\0';	/* NAME.mvd -> NAME.json */
	} else {
		match_demo_name(m, md->name_date->string, now, base, sizeof(base));
	}
	snprintf(path, sizeof(path), "%s/%s.json", dir, base);
	date[0] = '\0';
	if (localtime_r(&now, &tm))
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S %z", &tm);
	strlcpy(ip, sv->bind_ip[0] ? sv->bind_ip : "0.0.0.0", sizeof(ip));
	memset(&f, 0, sizeof(f));
	f.date = date;
	f.hostname = sv->hostname->string;
	f.ip = ip;
	f.port = sv->port;
	f.demo = demo;
	f.matchtag = match_matchtag(m);
	out = fopen(path, "w");
	if (!out || match_write_stats(m, &f, out) != 0) {
		if (out)
			fclose(out);
		md->failures++;
		qwd_logf(&sv->log, QWD_LOG_WARN, "match demo: statistics not written to %s",
			 path);
		return;
	}
	if (fclose(out) != 0) {
		md->failures++;
		qwd_logf(&sv->log, QWD_LOG_WARN, "match demo: statistics not written to %s",
			 path);
		return;
	}
	qwd_logf(&sv->log, QWD_LOG_INFO, "match demo: statistics written to %s", path);
}

void sv_match_demo_event(struct server *sv, struct sv_match_demo *md,
			 const struct match *m, enum match_event ev,
			 const struct match_result *r)
{
	char demo[MD_NAME];

	if (!md)
		return;
	switch (ev) {
	case MATCH_EVENT_COUNTDOWN:
		start(sv, md, m);
		break;
	case MATCH_EVENT_STARTED:
		break;
	case MATCH_EVENT_ENDED:
		demo[0] = '\0';
		if (still_ours(sv, md)) {
			strlcpy(demo, md->file, sizeof(demo));
			sv_mvd_stop_file(sv, DEMO_STOP_DONE);
			md->ours = false;
			qwd_logf(&sv->log, QWD_LOG_INFO, "match demo: %s kept", demo);
		}
		write_stats(sv, md, m, demo[0] ? demo : NULL);
		break;
	case MATCH_EVENT_BROKEN:
		if (!still_ours(sv, md))
			break;
		if (cancel_it(md, m, r)) {
			qwd_logf(&sv->log, QWD_LOG_INFO, "match demo: %s removed (the match "
				 "was broken off after %.0f s)", md->file,
				 r ? r->duration : 0.0);
			sv_mvd_stop_file(sv, DEMO_STOP_CANCEL);
		} else {
			qwd_logf(&sv->log, QWD_LOG_INFO, "match demo: %s kept (broken off "
				 "after %.0f s)", md->file, r->duration);
			sv_mvd_stop_file(sv, DEMO_STOP_DONE);
		}
		md->ours = false;
		break;
	}
}
