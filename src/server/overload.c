/*
 * overload.c -- the server's load, and what it does when it has too much:
 * refuse joins first, then let go of the newest players, so the players it
 * keeps are served in full.
 *
 * Design note
 *   A sequential server past its capacity does not slow down evenly: every
 *   request still gets executed, but replies go out later and fewer a
 *   second, and a reply to a crowd costs more than one to a smaller game,
 *   so the more players it takes the fewer replies it delivers.  The cure
 *   is to hold the player count at what the machine can serve.
 *
 *   Load: the share of wall time the loop works, from select()'s return
 *   to the end of the frame, in windows of LOAD_WINDOW s (sv->load, the
 *   last full window); the waits in select() and the sys_ticrate sleep
 *   are the rest.  Wall time rather than the thread's CPU time: a server
 *   that other work on its core crowds out cannot keep up either, and
 *   its players see that as they would see a slow server.  One clock
 *   read a frame more, none per packet.  A frame also notes whether its
 *   receive stopped at its cap with datagrams still waiting (a backlog).
 *   The phase timers (src/prof) measure the same share for the reports;
 *   this one is the control input and runs with them off.
 *
 *   Admission (sv_maxload, default 0.9): a connect is refused with "server
 *   is busy" while the load is at or over sv_maxload for a client that
 *   speaks the extension (QWDX: the load generator's bots), and at or
 *   over halfway from sv_maxload to 1 for a stock client, so protocol-28 players still get
 *   in after the crowd of bots is held back.  0 turns admission off.
 *
 *   Shedding (sv_overloaddrop, default 1): a window at LOAD_SATURATED or
 *   more with a backlog is overloaded; after SHED_AFTER such windows in a
 *   row, each further one drops the newest spawned players, extension
 *   clients before stock ones, one in SHED_SHARE of those in the game (at
 *   least one), each told why ("server overloaded").  A burst (a map
 *   load, a long exec) is one window and drops nobody.
 *
 *   Counted: refusals for load (stats.busy_refusals) and players let go
 *   (stats.overload_drops), both in the defence line at shutdown.
 */
#include "features.h"
#include "overload.h"

#include <stdio.h>

enum { SHED_AFTER = 2, SHED_SHARE = 50 };

static const double LOAD_WINDOW = 0.5;
static const double LOAD_SATURATED = 0.98;

/* the newest spawned client, extension clients first; NULL when none */
static struct client *newest_player(struct server *sv)
{
	struct client *best = NULL;

	for (int i = 0; i < sv->maxclients; i++) {
		struct client *c = &sv->clients[i];

		if (c->state != CS_SPAWNED)
			continue;
		if (!best || (c->extended && !best->extended) ||
		    (c->extended == best->extended &&
		     c->connect_time > best->connect_time))
			best = c;
	}
	return best;
}

int sv_overload_shed(struct server *sv, int n)
{
	int dropped = 0;

	while (dropped < n) {
		struct client *c = newest_player(sv);

		if (!c)
			break;
		qwd_logf(&sv->log, QWD_LOG_WARN, "overload: load %.0f%%, dropping "
			 "client %d \"%s\" (the newest%s)", 100.0 * sv->load,
			 c->slot, c->name, c->extended ? " QWDX client" : "");
		sv_reliable_printf(c, PRINT_HIGH, "Dropped: server overloaded, "
				   "try again later.\n");
		sv_drop_client(sv, c, "server overloaded: dropped to keep the "
			       "others playing");
		sv->stats.overload_drops++;
		dropped++;
	}
	return dropped;
}

static void window_closed(struct server *sv)
{
	int in_game = 0, n;

	if (!(sv->load >= LOAD_SATURATED && sv->load_backlog)) {
		sv->overloaded_windows = 0;
		return;
	}
	if (++sv->overloaded_windows <= SHED_AFTER ||
	    sv->sv_overloaddrop->value == 0)
		return;
	for (int i = 0; i < sv->maxclients; i++)
		if (sv->clients[i].state == CS_SPAWNED)
			in_game++;
	n = in_game / SHED_SHARE;
	sv_overload_shed(sv, n > 0 ? n : 1);
}

void sv_load_window(struct server *sv, double now)
{
	double wall = now - sv->load_window_start;

	sv->load = wall > 0 ? sv->load_busy / wall : 0;
	if (sv->load > 1)
		sv->load = 1;
	sv->load_backlog = sv->load_backlog_now;
	sv->load_backlog_now = false;
	sv->load_window_start = now;
	sv->load_busy = 0;
	window_closed(sv);
}

void sv_load_frame(struct server *sv, double busy_from, double now,
		   bool backlog)
{
	if (sv->load_window_start <= 0 || now < sv->load_window_start) {
		sv->load_window_start = busy_from;
		sv->load_busy = 0;
		sv->load_backlog_now = false;
	}
	if (now > busy_from)
		sv->load_busy += now - busy_from;
	sv->load_backlog_now |= backlog;
	if (now - sv->load_window_start >= LOAD_WINDOW)
		sv_load_window(sv, now);
}

bool sv_load_admits(struct server *sv, bool extended, char *why, size_t size)
{
	double max = sv->sv_maxload->value, limit;

	if (max <= 0)
		return true;
	limit = extended ? max : max + (1.0 - max) / 2;
	if (sv->load < limit)
		return true;
	snprintf(why, size, "server is busy (load %.0f%%, over %.0f%%), try again "
		 "later", 100.0 * sv->load, 100.0 * limit);
	sv->stats.busy_refusals++;
	return false;
}

/* the frame's end: its work from sv->frame_start to now */
static void overload_frame_end(struct server *sv)
{
	sv_load_frame(sv, sv->frame_start, sv_clock(sv), sv->frame_backlog);
}

static const struct sv_feature overload_feature = {
	.name = "overload",
	.admit = sv_load_admits,
	.frame_end = overload_frame_end,
};

int sv_overload_register(struct server *sv)
{
	sv_feature_add(sv, &overload_feature);
	return 0;
}
