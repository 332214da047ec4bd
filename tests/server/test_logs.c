/*
 * test_logs.c -- logfile, fraglogfile and logrcon: the files, their
 * names, their lines as MVDSV writes them, rotation by size and by date,
 * and what the rcon log keeps out (the password, the digest).
 *
 * Design note
 *   Each line's form is checked with a regular expression, so the time
 *   stamp is checked for its shape without a clock in the test.  The date
 *   rotation is brought forward by moving the file's next midnight
 *   (logs.file[].next_day) into the past: the server reads only that.
 */
#include "srvfix.h"

#include "../harness.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <bsd/string.h>

/* MVDSV's "[Tue Jan 02, 13:04:05 2024].[L] " */
#define STAMP "\\[[A-Z][a-z]{2} [A-Z][a-z]{2} [0-9]{2}, [0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]{4}\\]"
/* logfrag's "2024-1-2 13:4:5" */
#define DATE "[0-9]{4}-[0-9]{1,2}-[0-9]{1,2} [0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}"

/* the lines of DIR/rel matching the extended regular expression */
static int matching(const struct srvfix *f, const char *rel, const char *pattern)
{
	char path[256], line[1024];
	regex_t re;
	FILE *fp;
	int n = 0;

	assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	fp = fopen(path, "r");
	if (fp) {
		while (fgets(line, sizeof(line), fp)) {
			line[strcspn(line, "\n")] = '\0';
			n += regexec(&re, line, 0, NULL, 0) == 0;
		}
		fclose(fp);
	}
	regfree(&re);
	return n;
}

static bool exists(const struct srvfix *f, const char *rel)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	return stat(path, &st) == 0;
}

/* "logs/<prefix><port>_<n>.log" */
static const char *file_name(const struct srvfix *f, const char *prefix, int n)
{
	static char rel[128];

	snprintf(rel, sizeof(rel), "logs/%s%u_%04d.log", prefix, f->sv->port, n);
	return rel;
}

static void test_console_log(void **state)
{
	struct srvfix *f = *state;
	char out[512], want[512];
	const char *q0;

	srvfix_start(f, 8);
	srvfix_command(f, "sv_logdir logs", out, sizeof(out));
	srvfix_command(f, "logfile", out, sizeof(out));
	q0 = file_name(f, "qconsole_", 0);
	snprintf(want, sizeof(want), "Logging console to %s/%s\n", f->dir, q0);
	assert_string_equal(out, want);
	srvfix_command(f, "say hello there", out, sizeof(out));
	qwd_logf(&f->sv->log, QWD_LOG_WARN, "a warning");
	assert_int_equal(matching(f, q0, "^" STAMP "\\.\\[1\\] console: hello there$"), 1);
	assert_int_equal(matching(f, q0, "^" STAMP "\\.\\[2\\] a warning$"), 1);
	/* the server's own sink still has every line */
	assert_int_equal(srvfix_log_count(f, "console: hello there"), 1);

	srvfix_command(f, "logfile", out, sizeof(out));
	assert_string_equal(out, "File logging off.\n");
	srvfix_command(f, "say unheard", out, sizeof(out));
	assert_int_equal(matching(f, q0, "unheard"), 0);
	/* on again: the same file, appended to */
	srvfix_command(f, "logfile on", out, sizeof(out));
	assert_string_equal(out, want);
	srvfix_command(f, "logfile on", out, sizeof(out));	/* stays on */
	srvfix_command(f, "say again", out, sizeof(out));
	assert_int_equal(matching(f, q0, "console: (hello there|again)$"), 2);
	assert_false(exists(f, file_name(f, "qconsole_", 1)));

	/* by size: the next number once a file passed sv_maxlogsize */
	srvfix_command(f, "sv_maxlogsize 300", out, sizeof(out));
	for (int i = 0; i < 12; i++) {
		snprintf(out, sizeof(out), "say line %02d", i);
		srvfix_command(f, out, want, sizeof(want));
	}
	assert_true(exists(f, file_name(f, "qconsole_", 1)));
	{
		int total = 0, files = 0;

		for (int n = 0; exists(f, file_name(f, "qconsole_", n)); n++, files++) {
			struct stat st;
			char path[256];

			snprintf(path, sizeof(path), "%s/%s", f->dir, file_name(f, "qconsole_", n));
			assert_int_equal(stat(path, &st), 0);
			assert_true(st.st_size < 300 + 80);	/* passed by one line at most */
			total += matching(f, file_name(f, "qconsole_", n),
					  "console: line [0-9]{2}$");
		}
		assert_int_equal(total, 12);	/* none lost, none twice */
		assert_true(files >= 3);
	}

	/* by date: at midnight, the next number */
	srvfix_command(f, "sv_maxlogsize 0", out, sizeof(out));
	srvfix_command(f, "sv_logdaily 1", out, sizeof(out));
	{
		int before = f->sv->logs->file[SV_LOG_CONSOLE].number;

		srvfix_command(f, "say before midnight", out, sizeof(out));
		assert_int_equal(f->sv->logs->file[SV_LOG_CONSOLE].number, before);
		f->sv->logs->file[SV_LOG_CONSOLE].next_day = (int64_t)time(NULL) - 1;
		srvfix_command(f, "say after midnight", out, sizeof(out));
		assert_int_equal(f->sv->logs->file[SV_LOG_CONSOLE].number, before + 1);
		assert_int_equal(matching(f, file_name(f, "qconsole_", before + 1),
					  "console: after midnight$"), 1);
		assert_int_equal(matching(f, file_name(f, "qconsole_", before),
					  "console: before midnight$"), 1);
	}
	/* a folder it cannot write to: refused, and the server goes on */
	srvfix_command(f, "logfile off", out, sizeof(out));
	srvfix_command(f, "sv_logdir /proc", out, sizeof(out));
	srvfix_command(f, "logfile on", out, sizeof(out));
	assert_non_null(strstr(out, "Couldn't open /proc/qconsole_"));
	assert_null(f->sv->logs->file[SV_LOG_CONSOLE].fp);
}

static void test_frag_log(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *a, *b;
	char out[512];
	const char *fr0, *fr1;

	srvfix_start(f, 8);
	srvfix_command(f, "sv_logdir logs", out, sizeof(out));
	a = srvfix_client(f, "127.0.0.2", "alice", false, NULL);
	b = srvfix_client(f, "127.0.0.3", "bob", false, NULL);
	qwc_connect(&a->q, server_clock());
	qwc_connect(&b->q, server_clock());
	assert_true(srvfix_until(f, a, QWC_ACTIVE, 5.0));
	assert_true(srvfix_until(f, b, QWC_ACTIVE, 5.0));

	fr0 = file_name(f, "frag_", 0);
	srvfix_command(f, "fraglogfile", out, sizeof(out));
	assert_non_null(strstr(out, fr0));
	/* a suicide through the game (QuakeC's ClientKill): the player twice */
	assert_true(qwc_stringcmd(&a->q, "kill"));
	srvfix_run(f, 0.5, true);
	assert_int_equal(matching(f, fr0, "^\\\\frag\\\\alice\\\\alice\\\\\\\\\\\\" DATE "\\\\$"), 1);

	/* killer, victim and their teams, in that order */
	{
		int sa = -1, sb = -1;

		for (int i = 0; i < f->sv->maxclients; i++) {
			if (!strcmp(f->sv->clients[i].name, "alice"))
				sa = i;
			if (!strcmp(f->sv->clients[i].name, "bob"))
				sb = i;
		}
		assert_true(sa >= 0 && sb >= 0);
		info_set_value_for_key(f->sv->clients[sa].userinfo,
				       sizeof(f->sv->clients[sa].userinfo), "team", "red");
		info_set_value_for_key(f->sv->clients[sb].userinfo,
				       sizeof(f->sv->clients[sb].userinfo), "team", "blue");
		f->sv->game_svc.logfrag(f->sv, sa, sb);
		assert_int_equal(matching(f, fr0, "^\\\\frag\\\\alice\\\\bob\\\\red\\\\blue\\\\"
					  DATE "\\\\$"), 1);
		/* MVDSV's default form: no time, no teams */
		srvfix_command(f, "frag_log_type 0", out, sizeof(out));
		f->sv->game_svc.logfrag(f->sv, sb, sa);
		assert_int_equal(matching(f, fr0, "^\\\\bob\\\\alice\\\\$"), 1);
	}
	/* a new level is a line of its own in the dated form */
	srvfix_command(f, "frag_log_type 1", out, sizeof(out));
	srvfix_command(f, "map small", out, sizeof(out));
	assert_int_equal(matching(f, fr0, "^\\\\newmap\\\\small\\\\\\\\\\\\\\\\" DATE "\\\\$"), 1);

	/* fraglogfile always starts a new file */
	srvfix_command(f, "fraglogfile off", out, sizeof(out));
	assert_string_equal(out, "Frag file logging off.\n");
	srvfix_command(f, "fraglogfile on", out, sizeof(out));
	fr1 = file_name(f, "frag_", 1);
	assert_non_null(strstr(out, fr1));
}

static void test_rcon_log(void **state)
{
	struct srvfix *f = *state;
	struct srv_client *c;
	struct net_addr from;
	struct net_args a;
	uint8_t pkt[256];
	char out[512], rel[128], digest[48];
	const char *argv[] = {"status"};
	int64_t now = (int64_t)time(NULL);

	srvfix_start(f, 8);
	srvfix_command(f, "rcon_password s3cr3t", out, sizeof(out));
	srvfix_command(f, "sv_logdir logs", out, sizeof(out));
	srvfix_command(f, "logrcon", out, sizeof(out));
	strlcpy(rel, file_name(f, "rcon_", 0), sizeof(rel));
	assert_non_null(strstr(out, rel));

	/* from a connected player: its address, port and name */
	c = srvfix_client(f, "127.0.0.2", "admin", false, NULL);
	qwc_connect(&c->q, server_clock());
	assert_true(srvfix_until(f, c, QWC_ACTIVE, 5.0));
	assert_true(net_addr_parse("127.0.0.2", 0, &from));
	for (int i = 0; i < f->sv->maxclients; i++)
		if (f->sv->clients[i].state >= CS_CONNECTED)
			from = f->sv->clients[i].chan.remote;

	assert_true(rcon_build_hashed(pkt, sizeof(pkt), "s3cr3t", now, 1, argv) > 0);
	memcpy(digest, pkt + 9, 40);
	digest[40] = '\0';
	assert_true(net_args_tokenize(&a, (char *)pkt + 4) > 0);
	sv_rcon(f->sv, &from, &a);
	assert_int_equal(matching(f, rel, "^" STAMP "\\.\\[1\\] Rcon from 127\\.0\\.0\\.2:[0-9]+ "
				  "\\(admin\\) \\(hashed\\): status$"), 1);
	/* refused ones too, with the reason */
	assert_true(rcon_build_hashed(pkt, sizeof(pkt), "guess", now, 1, argv) > 0);
	assert_true(net_args_tokenize(&a, (char *)pkt + 4) > 0);
	sv_rcon(f->sv, &from, &a);
	assert_true(net_args_tokenize(&a, "rcon s3cr3t kick admin") > 0);
	sv_rcon(f->sv, &from, &a);
	assert_int_equal(matching(f, rel, "Bad rcon from 127\\.0\\.0\\.2:[0-9]+ \\(admin\\) "
				  "\\(bad password\\): status$"), 1);
	assert_int_equal(matching(f, rel, "Bad rcon from 127\\.0\\.0\\.2:[0-9]+ \\(admin\\) "
				  "\\(plain rcon refused\\): kick admin$"), 1);
	/* never the password nor the digest, in any log */
	assert_int_equal(matching(f, rel, "s3cr3t"), 0);
	assert_int_equal(matching(f, rel, digest), 0);
	assert_int_equal(srvfix_log_count(f, "s3cr3t"), 0);
	assert_int_equal(srvfix_log_count(f, digest), 0);
	/* and rcon cannot turn its own record off */
	assert_true(rcon_build_hashed(pkt, sizeof(pkt), "s3cr3t", now, 1,
				      (const char *[]){"logrcon"}) > 0);
	assert_true(net_args_tokenize(&a, (char *)pkt + 4) > 0);
	sv_rcon(f->sv, &from, &a);
	assert_non_null(f->sv->logs->file[SV_LOG_RCON].fp);
	assert_int_equal(matching(f, rel, "\\(hashed\\): logrcon$"), 1);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_console_log, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_frag_log, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_rcon_log, srvfix_test_teardown),
};

QWD_TEST_GROUP(logs, tests, srvfix_setup, srvfix_teardown)
