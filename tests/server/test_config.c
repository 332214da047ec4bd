/*
 * test_config.c -- exec chains are bounded in the commands they run, not
 * only in depth, and the cut is said once.
 *
 * Design note
 *   A server.cfg of ten lines "exec self.cfg" nests eight deep and would
 *   run 10^8 commands: the server would never come up.  The tests run
 *   such files through the console command (server_command, as +exec and
 *   rcon do) and check what ran (sv->exec_run, a cvar the lines set) and
 *   what was said (the output and the log).
 */
#include "../harness.h"
#include "srvfix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

static int count_in(const char *text, const char *what)
{
	int n = 0;

	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* a server whose qw/self.cfg is ten lines "exec self.cfg" */
static void start_with_fanout(struct srvfix *f)
{
	char cfg[256] = "";

	srvfix_start(f, 4);
	for (int i = 0; i < 10; i++)
		strlcat(cfg, "exec self.cfg\n", sizeof(cfg));
	srvfix_write(f, "qw/self.cfg", cfg);
}

static void test_exec_fanout_is_cut_once(void **state)
{
	struct srvfix *f = *state;
	static char out[1 << 16];

	start_with_fanout(f);
	assert_int_equal(cvar_set(f->sv, "sv_execlimit", "1000"), 0);

	srvfix_command(f, "exec self.cfg", out, sizeof(out));
	assert_int_equal(f->sv->exec_run, 1000);
	assert_int_equal(count_in(out, "the rest is not run"), 1);
	assert_int_equal(count_in(out, "deep, not run"), 1);
	assert_int_equal(srvfix_log_count(f, "cut after 1000 commands"), 1);
	assert_int_equal(f->sv->exec_depth, 0);

	/* the next chain starts with a full budget and is cut once again */
	srvfix_command(f, "exec self.cfg", out, sizeof(out));
	assert_int_equal(f->sv->exec_run, 1000);
	assert_int_equal(count_in(out, "the rest is not run"), 1);
	assert_int_equal(srvfix_log_count(f, "cut after 1000 commands"), 2);
}

static void test_exec_default_limit_holds(void **state)
{
	struct srvfix *f = *state;
	static char out[1 << 16];

	start_with_fanout(f);
	srvfix_command(f, "exec self.cfg", out, sizeof(out));
	assert_int_equal(f->sv->exec_run, (int)f->sv->sv_execlimit->value);
	assert_true(f->sv->exec_run < 100000);
	assert_int_equal(count_in(out, "the rest is not run"), 1);
}

static void test_exec_chain_within_budget(void **state)
{
	struct srvfix *f = *state;
	char out[4096];

	srvfix_start(f, 4);
	srvfix_write(f, "qw/a.cfg", "hostname first\nexec b.cfg\ntimelimit 7\n");
	srvfix_write(f, "qw/b.cfg", "hostname second\nfraglimit 9\n");
	assert_int_equal(cvar_set(f->sv, "sv_execlimit", "5"), 0);
	srvfix_command(f, "exec a.cfg", out, sizeof(out));
	/* five lines in all: exactly the budget, nothing cut */
	assert_int_equal(f->sv->exec_run, 5);
	assert_string_equal(f->sv->hostname->string, "second");
	assert_int_equal((int)f->sv->fraglimit->value, 9);
	assert_int_equal((int)f->sv->timelimit->value, 7);
	assert_int_equal(count_in(out, "the rest is not run"), 0);

	/* one line fewer of budget: the last line of a.cfg is the one cut */
	assert_int_equal(cvar_set(f->sv, "sv_execlimit", "4"), 0);
	assert_int_equal(cvar_set(f->sv, "timelimit", "0"), 0);
	srvfix_command(f, "exec a.cfg", out, sizeof(out));
	assert_int_equal(f->sv->exec_run, 4);
	assert_int_equal((int)f->sv->timelimit->value, 0);
	assert_int_equal(count_in(out, "the rest is not run"), 1);
}

/* An MVDSV + KTX server.cfg: what qwd has runs, what it does not use is
 * said once per name and does not stop the config, the rest is unknown */
static void test_mvdsv_config(void **state)
{
	struct srvfix *f = *state;
	static char out[1 << 14];

	srvfix_start(f, 4);
	srvfix_write(f, "qw/mvdsv.cfg",
		     "hostname \"moved from mvdsv\"\n"
		     "sv_mintic 0.02\n"
		     "sv_maxtic 0.1\n"
		     "sv_maxtic 0.1\n"
		     "set k_remove_end_hurt 1\n"
		     "set k_allowed_free_modes 255\n"
		     "k_motd1 \"welcome\"\n"
		     "floodprot 6 3 5\n"
		     "localinfo k_admins 12345\n"
		     "no_such_thing 1\n"
		     "sv_demotxt 0\n"
		     "sv_demodir ktxdemos\n"
		     "sv_demoMaxDirSize 262144\n"
		     "fraglimit 40\n");
	srvfix_command(f, "exec mvdsv.cfg", out, sizeof(out));
	/* what qwd has, ran: before and after the lines it does not use */
	assert_string_equal(cvar_get(f->sv, "hostname")->string, "moved from mvdsv");
	assert_string_equal(cvar_get(f->sv, "fraglimit")->string, "40");
	/* floodprot sets the three fp_* cvars */
	assert_string_equal(cvar_get(f->sv, "fp_messages")->string, "6");
	assert_string_equal(cvar_get(f->sv, "fp_persecond")->string, "3");
	assert_string_equal(cvar_get(f->sv, "fp_secondsdead")->string, "5");
	/* said once per name, with what qwd does instead */
	assert_int_equal(count_in(out, "\"sv_maxtic\": MVDSV's, not used by qwd"), 1);
	assert_non_null(strstr(out, "does not cap a physics step"));
	/* sv_mintic is qwd's too (the world's physics rate) */
	assert_string_equal(cvar_get(f->sv, "sv_mintic")->string, "0.02");
	assert_null(strstr(out, "\"sv_mintic\""));
	assert_int_equal(count_in(out, "not used by qwd (a KTX setting"), 1);
	assert_int_equal(count_in(out, "\"localinfo\": MVDSV's, not used"), 1);
	/* KTX's demo settings: the folder and the cap taken, the .txt not */
	assert_string_equal(cvar_get(f->sv, "sv_demoDir")->string, "ktxdemos");
	assert_string_equal(cvar_get(f->sv, "sv_demoMaxDirSize")->string, "262144");
	assert_int_equal(count_in(out, "\"sv_demotxt\": MVDSV's, not used by qwd"), 1);
	/* a KTX "set" makes no variable of its own */
	assert_null(cvar_get(f->sv, "k_remove_end_hurt"));
	assert_int_equal(f->sv->num_user_cvars, 0);
	/* a name neither has is still unknown */
	assert_int_equal(count_in(out, "unknown command \"no_such_thing\""), 1);
	/* and the next time, nothing more is said of them */
	srvfix_command(f, "exec mvdsv.cfg", out, sizeof(out));
	assert_null(strstr(out, "not used by qwd"));
	assert_int_equal(count_in(out, "unknown command"), 1);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_mvdsv_config, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_exec_fanout_is_cut_once, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_exec_default_limit_holds, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_exec_chain_within_budget, srvfix_test_teardown),
};

QWD_TEST_GROUP(config, tests, srvfix_setup, srvfix_teardown)
