/*
 * fuzz_console.c -- libFuzzer target: server.cfg and console (and rcon)
 * command lines (server_command, src/server/console.c).
 *
 * Design note
 *   An operator's config is outside bytes too: a server.cfg copied from
 *   another server, edited by hand, or pasted over rcon.  Each input is a
 *   config text.  It is written to the game folder as fuzz.cfg and run
 *   with "exec fuzz.cfg", the path a server.cfg takes (the file reader,
 *   its line splitting and length limit, the tokenizer, the command table,
 *   cvars and the serverinfo they mirror into); a line of it may exec the
 *   file again, so the limits on exec chains are fuzzed too.
 *   Lines whose command would leave the process's sandbox or change what
 *   the next input meets are blanked first (FZ_DENIED: a level change
 *   reloads the map, quit ends the server's loop, capture, cmdrecord and
 *   the demo commands write or remove files (sv_demoAutoRecord starts
 *   them), so do the log files (logfile, logrcon, fraglogfile: a new
 *   numbered file each time, and the search for a free number grows with
 *   the files left by earlier inputs, to 10,000 stat calls),
 *   qtv_streamport opens a TCP port, counters open perf_event
 *   descriptors); their own parsers are reached by the tests.
 *   sv_execlimit is 64 here (4096 by default), so a self-exec costs
 *   64 commands, not 4096: the cut is the same code either way.
 *   Every input starts from the same server: the cvars, the user cvars of
 *   "set", the serverinfo and the pause are put back afterwards.
 *   Checks beyond ASan/UBSan (a broken one aborts): every cvar's string
 *   and the serverinfo stay terminated within their arrays, the serverinfo
 *   stays a well-formed info string (it goes to every client), and no
 *   command leaves the server quitting.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "netfix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FZ_MAX_INPUT = 64 << 10 };

static const char *const FZ_DENIED[] = {
	"map", "changelevel", "quit", "capture", "cmdrecord", "counters",
	"record", "sv_demorecord", "easyrecord", "sv_demoeasyrecord",
	"rmdemo", "sv_demoremove", "qtv_streamport", "sv_demoAutoRecord",
	"logfile", "logrcon", "fraglogfile",
};

struct console_fix {
	struct fx fx;
	FILE *out;		/* /dev/null: command output */
	char cfg[PATH_MAX];	/* <base>/qw/fuzz.cfg */
	struct cvar cvars[SV_CVAR_MAX];
	int num_cvars;
	char user_cvar_names[SV_USER_CVARS][32];
	int num_user_cvars;
	char serverinfo[MAX_SERVERINFO_STRING];
	char text[FZ_MAX_INPUT + 1];
};

static struct console_fix *con;

static void con_fail(const char *what, long a, long b)
{
	fprintf(stderr, "fuzz_console: contract broken: %s [%ld %ld]\n", what,
		a, b);
	abort();
}

static void con_cleanup(void)
{
	if (!con)
		return;
	if (con->out)
		fclose(con->out);
	fx_close(&con->fx);
	free(con);
	con = NULL;
}

static void con_init(void)
{
	struct server *sv;

	con = calloc(1, sizeof(*con));
	if (!con || fx_open(&con->fx, 4) != 0)
		exit(1);
	sv = con->fx.sv;
	con->out = fopen("/dev/null", "w");
	if (!con->out)
		exit(1);
	/* a chain's cut is the same code at 64 commands as at 4096, and an
	 * input that execs itself costs 64 commands instead of 4096 */
	server_command(sv, "sv_execlimit 64", con->out);
	snprintf(con->cfg, sizeof(con->cfg), "%s/%s/fuzz.cfg", sv->basedir,
		 sv->gamedir);
	memcpy(con->cvars, sv->cvars, sizeof(con->cvars));
	con->num_cvars = sv->num_cvars;
	memcpy(con->user_cvar_names, sv->user_cvar_names,
	       sizeof(con->user_cvar_names));
	con->num_user_cvars = sv->num_user_cvars;
	memcpy(con->serverinfo, sv->serverinfo, sizeof(con->serverinfo));
	atexit(con_cleanup);
}

static void con_restore(struct server *sv)
{
	memcpy(sv->cvars, con->cvars, sizeof(con->cvars));
	sv->num_cvars = con->num_cvars;
	memcpy(sv->user_cvar_names, con->user_cvar_names,
	       sizeof(con->user_cvar_names));
	sv->num_user_cvars = con->num_user_cvars;
	memcpy(sv->serverinfo, con->serverinfo, sizeof(con->serverinfo));
	sv->quit = false;
	sv->exec_depth = 0;
	sv->paused = false;	/* "pause": sv_paused is back to 0 above */
}

/* the first word of a line, as the tokenizer would see it: every byte up
 * to a space (a control byte or NUL included) is a blank, and a quote
 * changes nothing, so the word is compared without them */
static bool con_denied(const char *line, size_t len)
{
	size_t i = 0, start;

	while (i < len && ((unsigned char)line[i] <= ' ' || line[i] == '"'))
		i++;
	start = i;
	while (i < len && (unsigned char)line[i] > ' ' && line[i] != '"')
		i++;
	for (size_t k = 0; k < sizeof(FZ_DENIED) / sizeof(FZ_DENIED[0]); k++)
		if (i - start == strlen(FZ_DENIED[k]) &&
		    strncasecmp(line + start, FZ_DENIED[k], i - start) == 0)
			return true;
	return false;
}

/* the input with denied lines blanked, NULs made spaces */
static size_t con_filter(const uint8_t *data, size_t size)
{
	size_t n = 0, i = 0;

	while (i < size) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t len = nl ? (size_t)(nl - (data + i)) : size - i;

		if (!con_denied((const char *)data + i, len))
			for (size_t k = 0; k < len; k++)
				con->text[n++] = data[i + k] ? (char)data[i + k] : ' ';
		if (nl)
			con->text[n++] = '\n';
		i += len + (nl ? 1 : 0);
	}
	return n;
}

static void con_check(const struct server *sv)
{
	for (int i = 0; i < sv->num_cvars; i++)
		if (!memchr(sv->cvars[i].string, '\0', sizeof(sv->cvars[i].string)))
			con_fail("cvar string unterminated", i, 0);
	if (!memchr(sv->serverinfo, '\0', sizeof(sv->serverinfo)))
		con_fail("serverinfo unterminated", 0, 0);
	if (sv->serverinfo[0] && sv->serverinfo[0] != '\\')
		con_fail("serverinfo does not start with a backslash", 0,
			 (unsigned char)sv->serverinfo[0]);
	if (sv->quit)
		con_fail("a config left the server quitting", 0, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct server *sv;
	FILE *f;
	size_t n;

	if (!con)
		con_init();
	if (size > FZ_MAX_INPUT)
		return 0;
	sv = con->fx.sv;
	n = con_filter(data, size);
	f = fopen(con->cfg, "w");
	if (!f)
		con_fail("fixture: cannot write the config", 0, 0);
	if (n && fwrite(con->text, 1, n, f) != n)
		con_fail("fixture: short write of the config", (long)n, 0);
	fclose(f);
	server_command(sv, "exec fuzz.cfg", con->out);
	con_check(sv);
	con_restore(sv);
	return 0;
}
