/*
 * src/server/core.h -- the server module's core: the frame, clients and
 * their sessions, receive, execute, send, the level; what the features
 * (and the core's own files) may call.
 *
 * Design note
 *   The core's files stand on each other in one direction, the lower ones
 *   first (scripts/check-layers.sh checks the includes, ccircles the calls;
 *   docs/ARCHITECTURE.md draws it):
 *     reliable.c   each client's reliable stream, the scoreboard
 *     events.c     each client's unreliable events, the frame's log of
 *                  those to everyone
 *     players.c    the players' entries and the player grid
 *     level.c      the level's data: precaches, signon, entity states
 *     sched.c      the schedule instrument of the parallel frame
 *     execute.c    the moves, queued and run (the parallel EXECUTE)
 *     pause.c      the pause
 *     user.c       a client's packets and string commands
 *     spectate.c   spectators: their admission, ptrack, join, observe
 *     send.c       the replies
 *     oob.c        the connectionless requests (connect among them)
 *     services.c   what the game calls back
 *     map.c        the level change
 *     frame.c      the loop, start-up and shutdown of the core
 *   and none of them calls a feature: they call the hooks (hooks.h).
 */
#ifndef QWD_SERVER_CORE_H
#define QWD_SERVER_CORE_H

#include <string.h>

#include "base.h"

/* frame.c: set up the core in sv's memory (socket, buffers, the core's
 * cvars); no level yet, no feature.  0, or -1 with the reason logged;
 * sv_core_shutdown is due either way (it frees what was set up) */
int sv_core_init(struct server *sv, const struct server_options *opt);
/* shutdown: every client dropped with the reason (sv_core_stop), then
 * the core's state freed and its last figures logged */
void sv_core_stop(struct server *sv);
void sv_core_shutdown(struct server *sv);
/* reliable.c: a serverinfo key changed: every client in the game is told
 * (the base's cvar.c calls it through sv->hooks.serverinfo) */
void sv_serverinfo_changed(struct server *sv, const char *key,
			   const char *value);

/* oob.c */
void sv_connectionless(struct server *sv, const struct net_addr *from,
		       struct msg_buf *msg);
/* the cvar of a kind's budget, its default and what it means */
const char *sv_oob_cvar_name(int kind);
const char *sv_oob_cvar_default(int kind);
const char *sv_oob_cvar_help(int kind);
/* "ping", "status", ... */
const char *sv_oob_kind_name(int kind);
/* user.c */
/* antilag: MVDSV's rewind time for cl's move packet (user.c) */
#define SV_LAG_MAX_PREDICTION 0.02	/* s past the reply a client predicts */
#define SV_LAG_PHYSFPS 77.0		/* MVDSV's sv_maxfps default */
void sv_antilag_aim(struct server *sv, struct client *cl);
void sv_client_packet(struct server *sv, struct client *cl,
		      struct msg_buf *msg);
void sv_drop_client(struct server *sv, struct client *cl, const char *why);
void sv_client_setup(struct server *sv, struct client *cl);
void sv_userinfo_changed(struct server *sv, struct client *cl);
/* a client's say (team: say_team); the match feature calls it when the
 * client is not muted */
void sv_cmd_say(struct server *sv, struct client *cl,
		const struct net_args *a, bool team);
/* pause.c (MVDSV's pause): the cvars (pausable, sv_paused); pause or
 * resume the game (false: it already was so), msg (or NULL) printed to
 * everyone; a client's "pause" command (pausable, not a spectator); the
 * console's; the upkeep's release when no player is left */
void sv_pause_register(struct server *sv);
bool sv_pause_set(struct server *sv, bool paused, const char *msg);
void sv_pause_client(struct server *sv, struct client *cl);
void sv_cmd_pause(struct server *sv, const struct net_args *a, FILE *out);
void sv_pause_upkeep(struct server *sv);
/* a level loads unpaused, its clock starting now (MVDSV: sv.paused
 * cleared by the spawn; the clients' new serverdata clears theirs) */
void sv_pause_level(struct server *sv);
const char *sv_bad_name(int kind);
void sv_log_bad_counts(struct server *sv);
/* frame.c: the defences' counters (server_stats' fields), one table: the
 * metrics page's label, the words of status's line, the field */
enum { SV_DEFENCE_COUNTERS = 13 };
struct sv_defence_counter {
	const char *name;		/* "texts_dropped" */
	const char *text;		/* "texts dropped" */
	size_t offset;			/* a uint64_t in struct server_stats */
};
extern const struct sv_defence_counter sv_defence_counters[SV_DEFENCE_COUNTERS];
uint64_t sv_defence_count(const struct server *sv, int i);
/* the defences' counters as one line of text (status, shutdown) */
void sv_defence_counts(const struct server *sv, char *out, size_t size);
/* send.c: the replies of the frame; the player grid */
void sv_send_replies(struct server *sv);
/* -threads-max: max when above 0, else the online CPUs (1 ..
 * POOL_MAX_THREADS) */
int sv_threads_max(int max);
/* the reply phase's workers: threads of them (<= 1: one, no thread),
 * pinned to cpus when given (qwd/pool.h); 0, or -1 with the reason
 * logged; sv_reply_workers_free frees what was made either way */
int sv_reply_workers_init(struct server *sv, int threads, const int *cpus,
			  int num_cpus);
void sv_reply_workers_free(struct server *sv);
/* every ring's states forgotten: no frame before is a delta base */
void sv_rings_forget(struct server *sv);
/* a new reply phase: the world is taken to stay as it is until the next
 * one (entity states, player entries and the list of sendable entities
 * are made once per phase); sv_send_replies starts one */
void sv_reply_phase(struct server *sv);
/* execute.c: the parallel EXECUTE (docs/parallel.md) */
int sv_exec_init(struct server *sv);
void sv_exec_free(struct server *sv);
/* moves are queued now: made, sv_threads_execute, no schedule instrument */
bool sv_exec_active(const struct server *sv);
/* queue a spawned client's n commands (speed-checked); false: run them
 * now (after sv_exec_flush) */
bool sv_exec_queue(struct server *sv, struct client *cl,
		   const struct usercmd *cmds, int n);
/* run the queued moves (nothing queued: nothing) */
void sv_exec_flush(struct server *sv);
/* user.c: one command through the game, the player grid after it */
void sv_run_game_cmd(struct server *sv, struct client *cl,
		     const struct usercmd *cmd);
/* sched.c: the schedule instrument (docs/parallel.md) */
int sv_sched_init(struct server *sv);
void sv_sched_free(struct server *sv);
/* cmd of cl is about to run: its action list joins the frame's graph */
void sv_sched_cmd(struct server *sv, struct client *cl,
		  const struct usercmd *cmd);
/* the thread's CPU time, ns: a move's cost without the time the thread
 * was not running (another process on the core) */
uint64_t sv_sched_clock(void);
/* cl's moves took ns more */
void sv_sched_cost(struct server *sv, struct client *cl, uint64_t ns);
/* the end of RECEIVE+EXECUTE: the frame's jobs, then a fresh graph */
void sv_sched_frame(struct server *sv);
/* players.c: the players' entries and the player grid */
void sv_grid_init(struct server *sv);
/* The players in the grid's cells around cell (cx, cy), ring by ring
 * outward (ring 0 is the cell itself), `rings` rings at most, each given
 * to fn until it returns false.  pre is given each player a while before
 * fn is, to ask memory for what fn will read of it (on a server of
 * hundreds those are misses, and the turn before is too close to hide
 * them): SV_GRID_AHEAD turns ahead within a cell, and a cell's first
 * players while the cell before it is walked.  Inlined into each caller
 * with its fns, so the walk costs no call per player. */
enum { SV_GRID_AHEAD = 4 };
static inline __attribute__((always_inline)) bool
sv_grid_cell(const struct sv_grid *g, int head,
	     bool (*fn)(void *ctx, int slot), void (*pre)(void *ctx, int slot),
	     void *ctx)
{
	int a = head;

	/* the first SV_GRID_AHEAD were asked for when the cell was reached */
	for (int k = 0; k < SV_GRID_AHEAD && a >= 0; k++)
		a = g->next[a];
	for (int j = head; j >= 0; j = g->next[j]) {
		if (a >= 0) {
			pre(ctx, a);
			a = g->next[a];
		}
		if (!fn(ctx, j))
			return false;
	}
	return true;
}

static inline __attribute__((always_inline)) void
sv_grid_visit(const struct sv_grid *g, int cx, int cy, int rings,
	      bool (*fn)(void *ctx, int slot), void (*pre)(void *ctx, int slot),
	      void *ctx)
{
	int held = -1;	/* the cell reached before this one: walked next */

	for (int r = 0; r < rings; r++) {
		for (int y = cy - r; y <= cy + r; y++) {
			if (y < 0 || y >= g->ny)
				continue;
			/* the ring: full rows at the top and bottom, two
			 * cells in between */
			int step = (y == cy - r || y == cy + r) ? 1 : 2 * r;

			for (int x = cx - r; x <= cx + r; x += step ? step : 1) {
				if (x < 0 || x >= g->nx)
					continue;
				int head = g->head[y * g->nx + x], a = head;

				if (head < 0)
					continue;
				for (int k = 0; k < SV_GRID_AHEAD && a >= 0; k++, a = g->next[a])
					pre(ctx, a);
				if (held >= 0 && !sv_grid_cell(g, held, fn, pre, ctx))
					return;
				held = head;
			}
		}
	}
	if (held >= 0)
		sv_grid_cell(g, held, fn, pre, ctx);
}
void sv_grid_move(struct server *sv, int slot, const vec3_t org);
void sv_grid_remove(struct server *sv, int slot);
/* player j's svc_playerinfo as client cl sees it; false when it did not
 * fit (m unchanged) */
bool sv_write_player(struct server *sv, struct client *cl, int j,
		     struct msg_buf *m);
/* every player client cl sees from pvs, as many as fit in m */
void sv_write_players(struct server *sv, struct client *cl,
		      const uint8_t *pvs, struct msg_buf *m);
/* the client's state or side changed: its entry's shown follows */
void sv_entry_sync(struct server *sv, const struct client *cl);
/* player j's cached entry brought up to this reply phase (the parallel
 * phase does it for every player before the workers only read them) */
void sv_player_entry_refresh(struct server *sv, int j);
/* player j's seen cell made if it may be stale (the same: the parallel
 * phase makes every one before its workers only read them) */
void sv_player_seen_refresh(struct server *sv, int j);
/* the player in slot ran its own move: its seen cell is made again */
void sv_seen_moved(struct server *sv, int slot);
/* an object touches a leaf of pvs (the replies' visibility test) */
static inline __attribute__((always_inline)) bool
sv_obj_visible(const struct world_obj *o, const uint8_t *pvs)
{
	if (o->leaf1 >= 0)
		return bsp_vis_test(pvs, o->leaf1);
	if (o->leafs_overflow)
		return true;
	for (int i = 0; i < o->num_leafs; i++)
		if (bsp_vis_test(pvs, o->leafnums[i]))
			return true;
	return false;
}
/* reliable.c: the scoreboard's pings and losses to one client */
void sv_send_pings(struct server *sv, struct client *cl);
/* the same to a stock client, in a reply phase (made once per phase) */
void sv_send_stock_pings(struct server *sv, struct client *cl);
/* a colour of the client's userinfo ("topcolor", "bottomcolor"), held
 * to 0..16 as MVDSV's status lists it (user.c) */
int sv_client_color(const struct client *cl, const char *key);
int sv_client_ping(const struct client *c);
/* reliable.c: the reliable stream */
void sv_reliable_write(struct client *cl, const void *data, size_t len);
/* the next reliable message of a packet, from the backlog and the pending
 * sets (send.c, before the reply is built) */
void sv_reliable_fill(struct server *sv, struct client *cl);
/* the message just queued makes the client forget its entity frames: no
 * reply sent before it has read it can be a delta base */
void sv_reliable_mark_reset(struct client *cl);
void sv_reliable_printf(struct client *cl, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void sv_reliable_stufftext(struct client *cl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sv_broadcast_printf(struct server *sv, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* other players' traffic, which never overflows a client's backlog: a
 * text that does not fit under its mark is dropped for that client and
 * counted (false); infos, frags and light styles wait in pending sets, the
 * newest state of each sent as the channel has room */
bool sv_reliable_text(struct server *sv, struct client *cl, const void *data,
		      size_t len);
void sv_broadcast_client_info(struct server *sv, struct client *who);
/* true when newly marked, false when it folded into a pending one */
bool sv_info_mark(struct client *to, int slot);
bool sv_frags_mark(struct client *to, int slot);
/* the pending sets forgotten: the signon is about to send every state */
void sv_pending_clear(struct client *cl);
void sv_write_client_info(struct server *sv, struct client *to,
			  struct client *who, struct msg_buf *m);
/* events.c: the game's unreliable events to each client's datagram.
 * The log of the frame's events to every client, allocated once (0, or
 * -1 out of memory) */
int sv_events_init(struct server *sv);
void sv_events_free(struct server *sv);
/* an event to every client in the game: the extension clients' form, and
 * the stock clients' (NULL: they get nothing) */
void sv_events_all(struct server *sv, const void *wide, size_t wide_len,
		   const void *narrow, size_t narrow_len);
/* what cl has not taken of the log, into its datagram: before anything
 * else reads or writes the datagram */
void sv_events_take_rest(struct server *sv, struct client *cl);
static inline void sv_events_take(struct server *sv, struct client *cl)
{
	if (cl->events_taken < sv->events.count)
		sv_events_take_rest(sv, cl);
}
/* an event into cl's datagram, which the caller found in the game with
 * room for it after it took the log's (sv_events_take) */
static inline void sv_datagram_put(struct client *cl, const void *data,
				   size_t len)
{
	memcpy(cl->datagram + cl->datagram_len, data, len);
	cl->datagram_len += len;
}
/* an event to cl alone (in the game), after what it has to take; dropped
 * when it does not fit */
static inline void sv_datagram_add(struct server *sv, struct client *cl,
				   const void *data, size_t len)
{
	sv_events_take(sv, cl);
	if (cl->state != CS_SPAWNED || cl->datagram_len + len > sizeof(cl->datagram))
		return;
	sv_datagram_put(cl, data, len);
}
/* the frame's end: every client takes the rest, the log empties */
void sv_events_settle(struct server *sv);
/* cl enters the game: the events before are not its own */
void sv_events_join(struct server *sv, struct client *cl);
/* a level change: every datagram was cleared, the log empties */
void sv_events_reset(struct server *sv);
/* send.c: protocol 28's layouts, shared with the demo writer: one
 * entity's update (force: written even when nothing changed, as for an
 * entity new to the list), a removal, a spike's six bytes of svc_nails */
void sv_write_entity_delta(const struct entity_state *from,
			   const struct entity_state *to, struct msg_buf *m,
			   bool force);
void sv_write_entity_remove(struct msg_buf *m, int number);
void sv_write_nail(const struct server *sv, int num, struct msg_buf *m);
/* level.c */
int sv_player_entity(const struct server *sv, int slot);
void sv_entity_state(const struct server *sv, int num, struct entity_state *st);
/* an entity that replies and demos carry in their entity lists (or in
 * svc_nails): in use, drawn, neither static nor a player */
static inline bool sv_entity_sendable(const struct game_entity *e)
{
	return e->inuse && e->modelindex && !e->is_static && e->client < 0;
}
/* level.c: a map name checked and found (maps/NAME.bsp under the game
 * folder, id1 or the bundled maps): its path; false with err said */
bool sv_level_find(const struct server *sv, const char *name, char *path,
		   size_t size, char *err, size_t errlen);
/* level.c: the level's name from the worldspawn's message; the signon
 * buffers from the precaches, baselines and statics (map.c) */
void sv_level_read_name(struct server *sv);
void sv_level_build_signon(struct server *sv);
/* the folder of the bundled maps (QWD_MAPDIR) */
const char *sv_bundled_map_dir(void);
/* level.c: precache list index of a name (added when new), 0 when full */
int sv_add_model(struct server *sv, const char *name);
int sv_add_sound(struct server *sv, const char *name);
/* level.c: one page of the model or sound list from start, as the signon
 * sends it (svc_modellist/svc_soundlist, the start, names up to half a
 * message, an empty name, the next page's start); returns that start, 0
 * when this page ends the list */
int sv_write_list_page(const struct server *sv, bool models, int start,
		       struct msg_buf *m);
/* level.c: append a message to the signon buffers */
void sv_signon_add(struct server *sv, const uint8_t *data, size_t len);
/* services.c: fill sv->game_svc */
void sv_game_services(struct server *sv);
/* services.c: svc_updatefrags of slot to everyone who may see it */
void sv_send_frags(struct server *sv, int slot);
/* spectate.c: the cvars (maxspectators, spectator_password,
 * sv_spectalk, sv_sayteam_to_spec), the serverinfo's "*z_ext" and the
 * client commands ptrack, join, observe (frame.c, at start-up) */
void sv_spectate_init(struct server *sv);
/* spectate.c: may a connect with this userinfo come in as a spectator
 * (true, and *spectator set) or a player: the passwords and the limits of
 * each side; false with the refusal's text in why.  The userinfo's
 * "spectator" (MVDSV: the spectator password) and "password" keys are
 * removed, "*spectator" set for a spectator. */
bool sv_spectate_admit(struct server *sv, char *userinfo, size_t size,
		       bool *spectator, char *why, size_t whylen);
/* user.c: clc_tmove: a spectator's origin moved (a player's is
 * ignored and counted) */
void sv_spectate_tmove(struct server *sv, struct client *cl, const vec3_t org);
/* user.c: the client leaves its side (drop, join, observe): nobody
 * tracks it any more */
void sv_spectate_untrack(struct server *sv, const struct client *cl);

#endif
