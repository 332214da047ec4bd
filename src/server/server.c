/*
 * server.c -- the server module's top: the core and its features put
 * together, and the public API of qwd/server.h that is not the frame's.
 *
 * Design note
 *   The only file that names every feature.  server_init sets up the core
 *   (frame.c: the socket, the buffers, the clients, the game, the core's
 *   cvars), then registers each feature (features.h, in its order: the
 *   console commands first, the demo before the downloads, which read its
 *   folder cvar), then starts them (their start hooks: bans read
 *   listip.cfg).  server_shutdown takes it apart the other way: the
 *   clients dropped and told why, the features stopped while the core's
 *   state is there (the demo's last frame, the masters told, cmdrecord
 *   closed), the core freed with its last figures logged, then the
 *   features' memory (the log files close last, after those lines).
 *   Nothing calls this file but main.c, the tests and the tools.
 */
#include "features.h"

#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

int server_init(struct server *sv, const struct server_options *opt)
{
	if (sv_core_init(sv, opt) != 0)
		return -1;
	if (sv_console_register(sv) != 0 || sv_compat_register(sv) != 0 ||
	    sv_logs_register(sv) != 0 || sv_rcon_register(sv) != 0 ||
	    sv_bans_register(sv) != 0 || sv_masters_register(sv) != 0 ||
	    sv_demo_register(sv) != 0 || sv_downloads_register(sv) != 0 ||
	    sv_record_register(sv) != 0 || sv_overload_register(sv) != 0 ||
	    sv_profcmd_register(sv) != 0 ||
	    sv_autopool_register(sv, opt->threads_auto) != 0 ||
	    sv_metrics_register(sv, opt->metrics) != 0 ||
	    sv_agones_register(sv, opt->agones_port) != 0 ||
	    sv_match_register(sv) != 0) {
		qwd_logf(&sv->log, QWD_LOG_ERROR, "out of memory for the server's features");
		return -1;
	}
	return sv_hooks_start(sv);
}

void server_shutdown(struct server *sv)
{
	sv_core_stop(sv);
	sv_hooks_stop(sv);
	sv_core_shutdown(sv);
	sv_hooks_free(sv);
}

struct server *server_create(const struct server_options *opt)
{
	struct server *sv = malloc(sizeof(*sv));

	if (!sv) {
		fprintf(stderr, "qwd: out of memory for the server\n");
		return NULL;
	}
	if (server_init(sv, opt) != 0) {
		server_shutdown(sv);
		free(sv);
		return NULL;
	}
	return sv;
}

void server_destroy(struct server *sv)
{
	if (!sv)
		return;
	server_shutdown(sv);
	free(sv);
}

void server_begin(struct server *sv, int console_fd)
{
	sv->console_fd = console_fd;
	prof_reset(sv->prof);
}

void server_defer_sends(struct server *sv, bool on)
{
	sv->defer_sends = on;
}

bool server_quitting(const struct server *sv)
{
	return sv->quit;
}

bool server_stop(struct server *sv, const char *why)
{
	if (sv->quit_reason[0])
		return false;
	strlcpy(sv->quit_reason, why, sizeof(sv->quit_reason));
	return true;
}

const struct qwd_log *server_log(const struct server *sv)
{
	return &sv->log;
}

struct prof *server_prof(struct server *sv)
{
	return sv->prof;
}

