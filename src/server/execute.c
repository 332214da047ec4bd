/*
 * execute.c -- the EXECUTE phase on several threads: the frame's moves
 * queued as they arrive, scheduled into jobs that share nothing, run on
 * the pool's workers, and committed in their arrival order.
 *
 * Design note
 *   With qwd -threads N (N > 1, sv_threads_execute 1) a spawned client's
 *   move is not run when its packet is parsed (user.c) but queued here,
 *   after the speed check and the command recorder saw it; everything
 *   else a packet carries runs at once, as before.  The queue is one
 *   segment of the frame, run (sv_exec_flush) before anything that may
 *   read or write what a move does: a string command, a second move of a
 *   client already queued, a connectionless packet, a drop, and the end
 *   of RECEIVE.  So every command sees the world the sequential frame
 *   would have shown it, and the segment's moves keep their arrival
 *   order wherever they touch each other.
 *
 *   The schedule of a segment (docs/parallel.md, "EXECUTE on workers"):
 *   - each move's reach r (game_cmd_action, summed over its commands),
 *     its region R (the player's box grown by r: where it may go) and
 *     its halo Q (R grown by r again: what its queries may ask); each
 *     mover is placed in the areanode tree by R (world_link_region), so
 *     any query meeting a place it may reach finds it;
 *   - union-find over entities plus a shared node: a mover joins every
 *     player whose placed box meets its Q and every item (FL_ITEM
 *     trigger) there; anything else with a touch there, any trigger
 *     that is not an item, and a mover that game_client_local refuses
 *     (fires, swings, dead, powerups, liquids, a fall that hurts) join
 *     the shared node, and so does everything in a firing move's line of
 *     fire (with sv_antilag 2 also every player whose rewound box meets
 *     it: the shot meets players where its shooter saw them,
 *     schedule_lagged); a move that acts anywhere (a respawn, the intermission's
 *     exit) or finds an entity that acts far (a teleporter, a button) in
 *     its Q makes the segment sequential;
 *   - the components without the shared node are the local jobs; they
 *     are weighted by their entities (the study's weight) and given to
 *     the workers by LPT (src/sched).
 *   Too few moves or fewer than two local jobs: the segment runs
 *   sequentially, in arrival order, as the sequential frame does.
 *
 *   The run: the world deferred (no areanode list changes; queries test
 *   the placed boxes first, qwd/world.h), the game's calls to the server
 *   recorded per job (game_defer_services), each worker runs its jobs'
 *   moves in arrival order.  Two jobs share no entity that either
 *   writes, and each thread's queries stay within its movers' halos, so
 *   no memory is written by one worker and read by another
 *   (ThreadSanitizer agrees, make tsan).  Then, on the coordinator: the
 *   movers and the items they may have taken are placed in the tree in
 *   arrival order (world_commit), the player grid follows, the recorded
 *   calls are made in arrival order, and last the shared job's moves run
 *   sequentially, in arrival order.  The local and shared jobs touch
 *   disjoint entities, so running the shared one after gives the same
 *   world as the arrival order; the server's calls of the shared moves
 *   come after the local ones' (sounds and prints in another order).
 *   A move that leaves its region, or reaches shared state anyway
 *   (game_escapes), is counted: the frame stays safe, its equivalence is
 *   then not promised.
 *
 *   Speculative moves (sv_threads_execute 3; docs/parallel.md,
 *   "Speculative moves") are the other design: no schedule, no deferred
 *   world.  Each queued move's first step is run ahead on the workers
 *   (game_spec_make: pmove alone, the game and the world only read, its
 *   result and what it read into the move's own cell); then the segment
 *   runs on the coordinator in arrival order, exactly as the sequential
 *   frame, each move's first pmove taking the speculative result when
 *   its input is bitwise the one speculated and no object linked or
 *   unlinked by the moves before it (the world's change log) meets what
 *   it read.  The game is the sequential one by construction; what runs
 *   in parallel is the share of pmove the crowd leaves unchanged.
 *
 *   Pipelined (sv_threads_execute 4; docs/parallel.md, "Pipelined
 *   speculative moves"): the steps ahead run beside the commit instead
 *   of before it.  The workers first make every move's input
 *   (game_spec_prepare) and a snapshot of the world's solid lists and
 *   objects (world_snap_take), the game and the world only read; then
 *   in one pool run the coordinator commits in arrival order while the
 *   other workers run the steps ahead on the snapshot (game_spec_run),
 *   each move's cell handed over by an atomic state: a worker claims a
 *   free cell and publishes its step with a release, the coordinator's
 *   turn claims a cell no worker took (its step then runs in the turn)
 *   or waits for the worker that has it.  A worker keeps PIPE_LEAD turns
 *   ahead of the coordinator.  The workers read only the cells' inputs,
 *   the snapshot and the map; the coordinator writes the game and the
 *   world, which no worker reads.  Each step is checked at its turn as
 *   in mode 3 (the snapshot is the world as the segment began).
 *
 *   Every array is made at start (sv_exec_init); nothing allocates per
 *   frame.
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>

/* a segment this short runs sequentially: waking the workers costs more */
enum { EXEC_MIN_PARALLEL = 8 };
/* the local share under which scheduling stops paying on two workers:
 * the schedule costs about a third of a move, and a local move saves
 * half of one (docs/parallel.md, measured) */
#define EXEC_SHARE_MIN 0.5

int sv_exec_init(struct server *sv)
{
	struct sv_exec *x = &sv->exec;
	size_t clients = (size_t)sv->maxclients;
	size_t nodes = (size_t)sv->max_entities + 1;
	int bins = sv->threads;

	memset(x, 0, sizeof(*x));
	x->enabled = cvar_register(sv, "sv_threads_execute", "4", 0,
				   "-threads N: run the frame's moves on the "
				   "workers too: 4 (the default) pipelined "
				   "speculative moves (pmove ahead on a snapshot "
				   "of the world while the moves before it "
				   "commit, checked in arrival order), 3 the "
				   "same with the steps ahead before the commit, "
				   "1 local jobs while the schedule finds work "
				   "for them, 2 always, 0 only the replies");
	x->spec_rest = cvar_register(sv, "sv_threads_spec_rest", "1", 0,
				     "sv_threads_execute 3 and 4: a player whose step "
				     "ahead was run again for the world is not "
				     "run ahead in its next segment (1), or "
				     "every step is (0)");
	if (sv->threads < 2)
		return 0;
	x->moves = calloc(clients, sizeof(*x->moves));
	x->cmds = calloc(clients * EXEC_MAX_CMDS, sizeof(*x->cmds));
	x->queued = calloc(clients, sizeof(*x->queued));
	x->parent = calloc(nodes, sizeof(*x->parent));
	x->size = calloc(nodes, sizeof(*x->size));
	x->job_of = calloc(nodes, sizeof(*x->job_of));
	x->touched = calloc(nodes, sizeof(*x->touched));
	x->marked = calloc(nodes, sizeof(*x->marked));
	x->found = calloc(nodes, sizeof(*x->found));
	x->items = calloc(clients * EXEC_MAX_ITEMS, sizeof(*x->items));
	x->job_first = calloc(clients, sizeof(*x->job_first));
	x->job_last = calloc(clients, sizeof(*x->job_last));
	x->next = calloc(clients, sizeof(*x->next));
	x->weight = calloc(clients, sizeof(*x->weight));
	x->order = calloc(clients, sizeof(*x->order));
	x->job_bin = calloc(clients, sizeof(*x->job_bin));
	x->bin_cmds = calloc((size_t)bins, sizeof(*x->bin_cmds));
	x->queues = calloc((size_t)bins, sizeof(*x->queues));
	x->replay_count = calloc(clients + 1, sizeof(*x->replay_count));
	/* room for every call every queue can hold: a replay never fails */
	x->replay_max = bins * ((int)clients * 8 + 256);
	x->spawn_min = calloc(EXEC_MAX_SPAWNS, sizeof(*x->spawn_min));
	x->spawn_max = calloc(EXEC_MAX_SPAWNS, sizeof(*x->spawn_max));
	x->far_min = calloc(EXEC_MAX_FAR, sizeof(*x->far_min));
	x->far_max = calloc(EXEC_MAX_FAR, sizeof(*x->far_max));
	x->far_line = calloc(EXEC_MAX_FAR, sizeof(*x->far_line));
	x->dropped_seen = calloc((size_t)bins, sizeof(*x->dropped_seen));
	x->replay_order = calloc((size_t)x->replay_max, sizeof(*x->replay_order));
	x->spec = calloc(clients, sizeof(*x->spec));
	x->rest = calloc(clients, sizeof(*x->rest));
	x->pipe_state = calloc(clients, sizeof(*x->pipe_state));
	/* a move links its player once a step, unlinking it first: room for
	 * four steps a move and what they spawn or take */
	x->changes = world_changes_create((int)clients * 8 + 4096);
	if (!x->moves || !x->cmds || !x->queued || !x->parent || !x->size ||
	    !x->job_of || !x->touched || !x->marked || !x->found || !x->items ||
	    !x->job_first || !x->job_last || !x->next || !x->weight ||
	    !x->order || !x->job_bin || !x->bin_cmds || !x->queues ||
	    !x->replay_count || !x->replay_order || !x->dropped_seen ||
	    !x->spawn_min || !x->spawn_max || !x->far_min || !x->far_max ||
	    !x->far_line || !x->spec || !x->changes || !x->rest ||
	    !x->pipe_state)
		goto oom;
	for (int b = 0; b < bins; b++) {
		x->queues[b] = game_defer_create(x->replay_max / bins,
						 clients * 128 + 4096);
		if (!x->queues[b])
			goto oom;
	}
	for (size_t i = 0; i < nodes; i++)
		x->job_of[i] = -1;
	sched_uf_init(&x->uf, x->parent, x->size, (int)nodes);
	x->shared_node = sv->max_entities;
	x->nbins = bins;
	x->share_avg = 1.0;	/* try from the start */
	x->on = true;
	return 0;
oom:
	qwd_logf(&sv->log, QWD_LOG_ERROR, "out of memory for the parallel EXECUTE");
	return -1;
}

void sv_exec_free(struct server *sv)
{
	struct sv_exec *x = &sv->exec;

	if (x->queues)
		for (int b = 0; b < x->nbins; b++)
			game_defer_destroy(x->queues[b]);
	free(x->moves);
	free(x->cmds);
	free(x->queued);
	free(x->parent);
	free(x->size);
	free(x->job_of);
	free(x->touched);
	free(x->marked);
	free(x->found);
	free(x->items);
	free(x->job_first);
	free(x->job_last);
	free(x->next);
	free(x->weight);
	free(x->order);
	free(x->job_bin);
	free(x->bin_cmds);
	free(x->queues);
	free(x->replay_count);
	free(x->replay_order);
	free(x->dropped_seen);
	free(x->spawn_min);
	free(x->spawn_max);
	free(x->far_min);
	free(x->far_max);
	free(x->far_line);
	free(x->spec);
	free(x->rest);
	free(x->pipe_state);
	world_snap_free(&x->snap);
	world_changes_destroy(x->changes);
	memset(x, 0, sizeof(*x));
}

bool sv_exec_active(const struct server *sv)
{
	return sv->exec.on && sv->exec.enabled->value != 0 &&
	       !sv->sched.on;
}

bool sv_exec_queue(struct server *sv, struct client *cl,
		   const struct usercmd *cmds, int n)
{
	struct sv_exec *x = &sv->exec;
	struct sv_exec_move *mv;

	if (x->queued[cl->slot])
		sv_exec_flush(sv);	/* its second move: the first runs now */
	if (n > EXEC_MAX_CMDS || x->num == sv->maxclients)
		return false;
	mv = &x->moves[x->num];
	mv->slot = cl->slot;
	mv->n = n;
	mv->lag_on = cl->lag_on;	/* this packet's, not a later one's */
	mv->lag_target = cl->lag_target;
	memcpy(&x->cmds[(size_t)x->num * EXEC_MAX_CMDS], cmds,
	       (size_t)n * sizeof(*cmds));
	x->queued[cl->slot] = true;
	x->num++;
	return true;
}

/* one move's commands as the sequential frame runs them */
static void run_move_now(struct server *sv, int m)
{
	struct sv_exec *x = &sv->exec;
	const struct sv_exec_move *mv = &x->moves[m];
	struct client *cl = &sv->clients[mv->slot];
	const struct usercmd *cmds = &x->cmds[(size_t)m * EXEC_MAX_CMDS];

	/* a move before it in the segment had the game pause (pause.c) */
	if (sv->paused)
		return;
	game_antilag_aim(sv->game, mv->slot, mv->lag_on, mv->lag_target);
	for (int i = 0; i < mv->n; i++)
		sv_run_game_cmd(sv, cl, &cmds[i]);
	sv->entries[mv->slot].localtime = sv->time;
	game_antilag_record(sv->game, mv->slot, sv->time);
}

/* ---- the schedule ------------------------------------------------------ */

static void node_touch(struct sv_exec *x, int node)
{
	if (x->marked[node])
		return;
	x->marked[node] = true;
	x->touched[x->ntouched++] = node;
}

static void node_join(struct sv_exec *x, int a, int b)
{
	node_touch(x, a);
	node_touch(x, b);
	sched_uf_union(&x->uf, a, b);
}

static void schedule_reset(struct sv_exec *x)
{
	for (int i = 0; i < x->ntouched; i++) {
		int n = x->touched[i];

		x->parent[n] = n;
		x->size[n] = 1;
		x->marked[n] = false;
		x->job_of[n] = -1;
	}
	x->ntouched = 0;
}

static void grow_box(const vec3_t mins, const vec3_t maxs, float by,
		     vec3_t omin, vec3_t omax)
{
	for (int k = 0; k < 3; k++) {
		omin[k] = mins[k] - by;
		omax[k] = maxs[k] + by;
	}
}

static bool boxes_meet(const vec3_t amin, const vec3_t amax,
		       const vec3_t bmin, const vec3_t bmax)
{
	for (int k = 0; k < 3; k++)
		if (amin[k] > bmax[k] || amax[k] < bmin[k])
			return false;
	return true;
}

/* a box where the shared job may act (a line of fire, a teleporter's
 * landing, a respawn's spots): every mover whose halo meets it joins
 * the shared job (pass 2); false when there are too many */
static bool far_box(struct sv_exec *x, const vec3_t mins, const vec3_t maxs)
{
	if (x->num_far == EXEC_MAX_FAR)
		return false;
	vec_copy(mins, x->far_min[x->num_far]);
	vec_copy(maxs, x->far_max[x->num_far]);
	x->far_line[x->num_far] = -1;
	x->num_far++;
	return true;
}

/* a line of fire: its box, and the segment within which it is tested */
static bool far_line(struct sv_exec *x, int m)
{
	if (!far_box(x, x->moves[m].fmin, x->moves[m].fmax))
		return false;
	if (x->moves[m].fline)
		x->far_line[x->num_far - 1] = m;
	return true;
}

/* an entity that acts far, in a move's halo: where it acts is a far box
 * (a teleporter's destination, grown by the reach of the move that may
 * take it); false: it acts anywhere */
static bool far_entity(struct server *sv, const struct sv_exec_move *mv, int id)
{
	vec3_t mins, maxs;

	if (!game_entity_far_box(sv->game, id, mins, maxs))
		return false;
	grow_box(mins, maxs, mv->reach, mins, maxs);
	node_join(&sv->exec, id, sv->exec.shared_node);
	return far_box(&sv->exec, mins, maxs);
}

/* Pass 1, move m's halo: the players and items there join it; what else
 * may act there joins the shared job.  False when the segment must run
 * sequentially (something acts anywhere). */
static bool schedule_move(struct server *sv, int m)
{
	struct sv_exec *x = &sv->exec;
	struct sv_exec_move *mv = &x->moves[m];
	struct game *g = sv->game;
	int self = game_player_entity(g, mv->slot);
	int n;

	node_touch(x, self);
	if (!mv->local)
		node_join(x, self, x->shared_node);
	if (mv->fires && !far_line(x, m))
		return false;
	mv->num_items = 0;

	n = world_area_any(&sv->world, mv->qmin, mv->qmax, AREA_SOLID, x->found,
			   sv->max_entities);
	for (int i = 0; i < n && i < sv->max_entities; i++) {
		int id = x->found[i]->id;
		const struct game_entity *e = &g->ents[id];

		if (id == self)
			continue;
		if (game_entity_acts_far(g, id) && !far_entity(sv, mv, id))
			return false;
		if (e->client >= 0)
			node_join(x, self, id);
		else if (e->touch)
			node_join(x, self, x->shared_node);
	}
	n = world_area_any(&sv->world, mv->qmin, mv->qmax, AREA_TRIGGERS,
			   x->found, sv->max_entities);
	for (int i = 0; i < n && i < sv->max_entities; i++) {
		int id = x->found[i]->id;
		bool far = game_entity_acts_far(g, id);

		if (far && !far_entity(sv, mv, id))
			return false;
		if (!far && game_entity_local_item(g, id) &&
		    mv->num_items < EXEC_MAX_ITEMS) {
			x->items[(size_t)m * EXEC_MAX_ITEMS + mv->num_items++] = id;
			node_join(x, self, id);
		} else {
			node_join(x, self, x->shared_node);
		}
	}
	return true;
}

/* does box (grown by the clip's margin) meet a far box or line? */
static bool meets_far(const struct sv_exec *x, const vec3_t bmin,
		      const vec3_t bmax)
{
	vec3_t mn, mx;

	grow_box(bmin, bmax, 2, mn, mx);
	for (int f = 0; f < x->num_far; f++) {
		const struct sv_exec_move *l = x->far_line[f] >= 0 ?
			&x->moves[x->far_line[f]] : NULL;

		if (!boxes_meet(mn, mx, x->far_min[f], x->far_max[f]))
			continue;
		if (l && !world_segment_meets(l->fstart, l->fend, l->fgrow, mn, mx))
			continue;
		return true;
	}
	return false;
}

/* Antilag (sv_antilag 2, src/game/antilag.c): a firing move meets the
 * players where its shooter saw them, not where they stand.  Every
 * player whose rewound box (from the segment's earliest rewind time on)
 * meets a far box joins the shared job; a mover's box holds its region
 * too (it may move before the shot or after, and the rewind reads its
 * newest position).  A player that joins brings the movers near it,
 * which joined it in pass 1.  False when one may be anywhere. */
static bool schedule_lagged(struct server *sv)
{
	struct sv_exec *x = &sv->exec;
	struct game *g = sv->game;
	vec3_t mn, mx;

	for (int s = 0; s < sv->maxclients; s++) {
		int r;

		if (sv->clients[s].state != CS_SPAWNED || x->queued[s])
			continue;
		r = game_antilag_reach(g, s, x->lag_since, mn, mx);
		if (r < 0)
			return false;
		if (r > 0 && meets_far(x, mn, mx))
			node_join(x, game_player_entity(g, s), x->shared_node);
	}
	for (int m = 0; m < x->num; m++) {
		const struct sv_exec_move *mv = &x->moves[m];
		int r = game_antilag_reach(g, mv->slot, x->lag_since, mn, mx);

		if (r < 0)
			return false;
		for (int k = 0; k < 3 && r > 0; k++) {
			if (mv->rmin[k] < mn[k])
				mn[k] = mv->rmin[k];
			if (mv->rmax[k] > mx[k])
				mx[k] = mv->rmax[k];
		}
		if (meets_far(x, r > 0 ? mn : mv->rmin, r > 0 ? mx : mv->rmax))
			node_join(x, game_player_entity(g, mv->slot),
				  x->shared_node);
	}
	return true;
}

/* Pass 2: every mover whose halo meets a far box joins the shared job.
 * A respawn's boxes are its spots'; false when they are anywhere. */
static bool schedule_far(struct server *sv)
{
	struct sv_exec *x = &sv->exec;

	if (x->respawns) {
		int n = game_spawn_boxes(sv->game, x->respawns, x->spawn_min,
					 x->spawn_max, EXEC_MAX_SPAWNS);

		if (n < 0)
			return false;
		for (int i = 0; i < n; i++) {
			grow_box(x->spawn_min[i], x->spawn_max[i],
				 x->respawn_reach + 64, x->spawn_min[i],
				 x->spawn_max[i]);
			if (!far_box(x, x->spawn_min[i], x->spawn_max[i]))
				return false;
		}
	}
	for (int m = 0; m < x->num; m++) {
		const struct sv_exec_move *mv = &x->moves[m];

		for (int f = 0; f < x->num_far; f++) {
			const struct sv_exec_move *l = x->far_line[f] >= 0 ?
				&x->moves[x->far_line[f]] : NULL;

			if (!boxes_meet(mv->qmin, mv->qmax, x->far_min[f],
					x->far_max[f]))
				continue;
			if (l && !world_segment_meets(l->fstart, l->fend, l->fgrow,
						mv->qmin, mv->qmax))
				continue;
			{
				node_join(x, game_player_entity(sv->game, mv->slot),
					  x->shared_node);
				break;
			}
		}
	}
	if (x->lag_fire)
		return schedule_lagged(sv);
	return true;
}

/* the moves' reaches, regions and local verdicts; false: sequential */
static bool measure_moves(struct server *sv)
{
	struct sv_exec *x = &sv->exec;
	struct game *g = sv->game;

	x->respawns = 0;
	x->respawn_reach = 0;
	x->lag_fire = false;
	for (int m = 0; m < x->num; m++) {
		struct sv_exec_move *mv = &x->moves[m];
		const struct usercmd *cmds = &x->cmds[(size_t)m * EXEC_MAX_CMDS];
		const struct world_obj *obj =
			&sv->objs[game_player_entity(g, mv->slot)];
		float reach = 0;
		bool respawn = false;

		mv->fires = false;
		mv->fgrow = 0;
		for (int i = 0; i < mv->n; i++) {
			struct game_action a;

			if (!game_cmd_action(g, mv->slot, &cmds[i], &a))
				return false;	/* not in the game */
			if (a.global) {
				/* a respawn (the intermission's exit: anywhere) */
				if (g->intermission)
					return false;
				x->respawns++;
				respawn = true;
			}
			reach += a.reach;
			if (a.fires) {
				if (!mv->fires) {
					vec_copy(a.fire_mins, mv->fmin);
					vec_copy(a.fire_maxs, mv->fmax);
					vec_copy(a.fire_start, mv->fstart);
					vec_copy(a.fire_end, mv->fend);
					mv->fgrow = a.fire_grow;
					mv->fline = true;
				} else {
					/* two lines: their box only */
					mv->fline = false;
				}
				for (int k = 0; k < 3; k++) {
					if (a.fire_mins[k] < mv->fmin[k])
						mv->fmin[k] = a.fire_mins[k];
					if (a.fire_maxs[k] > mv->fmax[k])
						mv->fmax[k] = a.fire_maxs[k];
				}
				mv->fires = true;
			}
		}
		mv->reach = reach;
		/* the firing command may start anywhere the move reaches */
		mv->fgrow += reach;
		if (respawn && reach > x->respawn_reach)
			x->respawn_reach = reach;
		grow_box(obj->absmin, obj->absmax, reach, mv->rmin, mv->rmax);
		grow_box(mv->rmin, mv->rmax, reach, mv->qmin, mv->qmax);
		/* a shot rewound (MVDSV's traceline with sv_antilag 2) */
		if (mv->fires && mv->lag_on && game_antilag_mode(g) == 2 &&
		    (!x->lag_fire || mv->lag_target < x->lag_since)) {
			x->lag_fire = true;
			x->lag_since = mv->lag_target;
		}
		mv->local = !mv->fires && obj->linked &&
			    game_client_local(g, mv->slot, cmds, mv->n,
					      mv->rmin, mv->rmax);
	}
	return true;
}

/* the local jobs: components without the shared node, moves in arrival
 * order; returns how many */
static int build_jobs(struct server *sv)
{
	struct sv_exec *x = &sv->exec;
	int shared = sched_uf_find(&x->uf, x->shared_node);
	int njobs = 0;

	x->num_shared = 0;
	for (int m = 0; m < x->num; m++) {
		struct sv_exec_move *mv = &x->moves[m];
		int root = sched_uf_find(&x->uf,
					 game_player_entity(sv->game, mv->slot));
		int j;

		x->next[m] = -1;
		if (root == shared) {
			mv->job = -1;
			x->num_shared++;
			continue;
		}
		j = x->job_of[root];
		if (j < 0) {
			j = njobs++;
			x->job_of[root] = j;
			x->job_first[j] = m;
			x->weight[j] = (uint64_t)x->size[root];
		} else {
			x->next[x->job_last[j]] = m;
		}
		x->job_last[j] = m;
		mv->job = j;
	}
	return njobs;
}

/* ---- the run ------------------------------------------------------------ */

/* one job, on whichever worker took it: its moves in arrival order,
 * the game's calls to the server into that worker's queue */
static void run_job(void *ctx, int worker, int item)
{
	struct server *sv = ctx;
	struct sv_exec *x = &sv->exec;
	int j = x->order[item];
	uint64_t cmds = 0;

	for (int m = x->job_first[j]; m >= 0; m = x->next[m]) {
		const struct sv_exec_move *mv = &x->moves[m];
		const struct usercmd *c = &x->cmds[(size_t)m * EXEC_MAX_CMDS];

		game_defer_bind(x->queues[worker], (uint32_t)m, true);
		game_antilag_aim(sv->game, mv->slot, mv->lag_on, mv->lag_target);
		for (int i = 0; i < mv->n; i++)
			game_client_cmd_local(sv->game, mv->slot, &c[i]);
		sv->entries[mv->slot].localtime = sv->time;
		game_antilag_record(sv->game, mv->slot, sv->time);
		cmds += (uint64_t)mv->n;
	}
	game_defer_bind(NULL, 0, false);
	x->bin_cmds[worker] += cmds;
}

static bool inside(const vec3_t mins, const vec3_t maxs, const vec3_t rmin,
		   const vec3_t rmax)
{
	for (int k = 0; k < 3; k++)
		if (mins[k] < rmin[k] || maxs[k] > rmax[k])
			return false;
	return true;
}

static void run_parallel(struct server *sv, int njobs)
{
	struct sv_exec *x = &sv->exec;
	struct game *g = sv->game;
	struct game_services real = g->svc;
	int bins = x->nbins;
	uint64_t cmds = 0, t0, t1;
	int made;

	/* heaviest first (LPT's order); the workers take them one at a time
	 * from the pool's shared counter, so each goes to the first free
	 * worker, as LPT assigns them, and a worker the system has not
	 * scheduled holds nobody up */
	x->njobs = njobs;
	sched_lpt(x->weight, njobs, pool_active(sv->pool), x->order, x->job_bin,
		  NULL);
	memset(x->bin_cmds, 0, (size_t)bins * sizeof(*x->bin_cmds));
	/* the shared job's movers go back where the lists want them: they
	 * run after, as the sequential frame runs */
	for (int m = 0; m < x->num; m++)
		if (x->moves[m].job < 0)
			world_commit(&sv->world,
				     &sv->objs[game_player_entity(g, x->moves[m].slot)]);

	g->svc = game_defer_services(&real);
	world_defer(&sv->world, true);
	t0 = prof_now(sv->prof);
	pool_run_shared(sv->pool, run_job, sv, njobs, 1);
	t1 = prof_now(sv->prof);
	sv->stats.exec_ns[SERVER_EXEC_PARALLEL] += t1 - t0;
	sv_hooks_pool_ran(sv, t1 - t0);	/* -threads auto: parallel work */
	world_defer(&sv->world, false);

	for (int b = 0; b < bins; b++)
		cmds += x->bin_cmds[b];
	game_add_commands(g, cmds);
	for (int m = 0; m < x->num; m++) {
		const struct sv_exec_move *mv = &x->moves[m];
		int self = game_player_entity(g, mv->slot);
		struct world_obj *obj = &sv->objs[self];

		if (mv->job < 0)
			continue;
		if (!inside(obj->absmin, obj->absmax, mv->rmin, mv->rmax))
			sv->stats.exec_outside++;
		world_commit(&sv->world, obj);
		for (int i = 0; i < mv->num_items; i++) {
			struct world_obj *it =
				&sv->objs[x->items[(size_t)m * EXEC_MAX_ITEMS + i]];

			if (it->pending)
				world_commit(&sv->world, it);
		}
		sv_grid_move(sv, mv->slot, obj->origin);
	}
	t0 = prof_now(sv->prof);
	sv->stats.exec_ns[SERVER_EXEC_COMMIT] += t0 - t1;
	/* the shared job, in arrival order, its calls to the server queued
	 * as well, so that all of them are made in the moves' order */
	for (int m = 0; m < x->num; m++) {
		if (x->moves[m].job >= 0)
			continue;
		game_defer_bind(x->queues[0], (uint32_t)m, false);
		run_move_now(sv, m);
	}
	game_defer_bind(NULL, 0, false);
	g->svc = real;
	t1 = prof_now(sv->prof);
	sv->stats.exec_ns[SERVER_EXEC_SHARED] += t1 - t0;
	made = game_defer_replay(&real, x->queues, bins, (uint32_t)x->num,
				 x->replay_count, x->replay_order, x->replay_max);
	if (made < 0)
		sv->stats.exec_calls_lost++;
	for (int b = 0; b < bins; b++) {
		uint64_t d = game_defer_dropped(x->queues[b]);

		sv->stats.exec_calls_lost += d - x->dropped_seen[b];
		x->dropped_seen[b] = d;
	}

	sv->stats.exec_ns[SERVER_EXEC_COMMIT] += prof_now(sv->prof) - t1;
	sv->stats.exec_parallel++;
	sv->stats.exec_jobs += (uint64_t)njobs;
	sv->stats.exec_local_moves += (uint64_t)(x->num - x->num_shared);
	sv->stats.exec_shared_moves += (uint64_t)x->num_shared;
}

/* ---- speculative moves (sv_threads_execute 3) --------------------------- */

/* one move's first step, ahead, on whichever worker took it: reads the
 * game and the world, writes its own cell */
static void spec_item(void *ctx, int worker, int item)
{
	struct server *sv = ctx;
	struct sv_exec *x = &sv->exec;
	const struct sv_exec_move *mv = &x->moves[item];

	(void)worker;
	/* in contact last time: likely again, run in its turn only */
	if (mv->n < 1 || x->rest[mv->slot]) {
		x->spec[item].made = false;
		return;
	}
	game_spec_make(sv->game, mv->slot, &x->cmds[(size_t)item * EXEC_MAX_CMDS],
		       &x->spec[item]);
}

/* Move m in its turn, its step ahead attached (taken if it holds), and
 * the rest rule: a step the world changed rests its player's next one
 * (the segment after runs ahead again, to see whether it still does) */
static void spec_turn(struct server *sv, int m)
{
	struct sv_exec *x = &sv->exec;
	int slot = x->moves[m].slot;
	struct game_spec *s = &x->spec[m];

	game_spec_attach(sv->game, slot, s);
	run_move_now(sv, m);
	game_spec_attach(sv->game, slot, NULL);
	if (s->made)
		sv->stats.exec_spec_moves++;
	else if (x->rest[slot])
		sv->stats.exec_spec_rested++;
	x->rest[slot] = x->spec_rest->value != 0 && s->made &&
			s->outcome == GAME_SPEC_WORLD;
}

static void run_speculative(struct server *sv)
{
	struct sv_exec *x = &sv->exec;
	uint64_t t0 = prof_now(sv->prof), t1;

	pool_run_shared(sv->pool, spec_item, sv, x->num, 8);
	t1 = prof_now(sv->prof);
	sv->stats.exec_ns[SERVER_EXEC_PARALLEL] += t1 - t0;
	sv_hooks_pool_ran(sv, t1 - t0);	/* -threads auto: parallel work */

	world_changes_begin(&sv->world, x->changes);
	for (int m = 0; m < x->num; m++)
		spec_turn(sv, m);
	world_changes_end(&sv->world);
	sv->stats.exec_ns[SERVER_EXEC_ARRIVAL] += prof_now(sv->prof) - t1;
	sv->stats.exec_spec_segments++;
}

/* ---- pipelined speculative moves (sv_threads_execute 4) ----------------- */

/* A move's cell: free, its step run by a worker, its step there, or the
 * coordinator's turn came first (pmove runs in the turn) */
enum { PIPE_FREE, PIPE_BUSY, PIPE_DONE, PIPE_OWN };
/* the snapshot's parts, taken beside the inputs */
enum { PIPE_SNAP_PARTS = 16 };
/* a worker takes no step fewer than this many turns ahead of the
 * coordinator's (which would reach it before the worker is done and
 * wait) */
enum { PIPE_LEAD = 3 };

/* the longest a turn waits for the worker running its step (a step
 * takes a few microseconds; a worker the system took the CPU from may
 * not run again for milliseconds) */
#define PIPE_WAIT_S 50e-6

static inline void pipe_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Wait for move m's step: true when it is done, false when the wait
 * passed PIPE_WAIT_S (the cell stays the worker's) */
static bool pipe_wait_done(struct server *sv, int m)
{
	_Atomic int *st = &sv->exec.pipe_state[m];
	double start = 0;

	for (unsigned n = 0;; n++) {
		if (atomic_load_explicit(st, memory_order_acquire) == PIPE_DONE)
			return true;
		pipe_pause();
		if ((n & 63) != 63)
			continue;
		/* the real clock (the phase timers may be off) */
		if (start == 0)
			start = server_clock();
		else if (server_clock() - start > PIPE_WAIT_S)
			return false;
	}
}

/* Before the segment commits, on every worker: each move's input from
 * the game as it is (no one writes it now), and the world's snapshot */
static void pipe_prepare_item(void *ctx, int worker, int item)
{
	struct server *sv = ctx;
	struct sv_exec *x = &sv->exec;
	const struct sv_exec_move *mv;
	struct game_spec *s;

	(void)worker;
	if (item >= x->num) {
		world_snap_take(&x->snap, &sv->world, item - x->num,
				PIPE_SNAP_PARTS);
		return;
	}
	mv = &x->moves[item];
	s = &x->spec[item];
	atomic_store_explicit(&x->pipe_state[item], PIPE_FREE,
			      memory_order_relaxed);
	s->made = false;
	s->ready = false;
	/* in contact last time: likely again, run in its turn only */
	if (mv->n < 1 || x->rest[mv->slot])
		return;
	game_spec_prepare(sv->game, mv->slot,
			  &x->cmds[(size_t)item * EXEC_MAX_CMDS], s);
}

/* A worker: the next move no one has, its step on the snapshot into its
 * cell; it reads only the cells' inputs, the snapshot and the map */
static void pipe_ahead(struct sv_exec *x)
{
	_Atomic int *next = &x->pipe_next;

	for (;;) {
		int m = atomic_fetch_add_explicit(next, 1, memory_order_relaxed);
		int lead = atomic_load_explicit(&x->pipe_turn,
						memory_order_relaxed) + PIPE_LEAD;
		int expect = PIPE_FREE;

		/* a step the coordinator would reach before it is done is
		 * left to it: jump ahead of it instead */
		if (m < lead) {
			int cur = m + 1;

			m = lead;
			while (cur <= m && !atomic_compare_exchange_weak_explicit(
				       next, &cur, m + 1, memory_order_relaxed,
				       memory_order_relaxed))
				;
		}
		if (m >= x->num)
			return;
		if (!x->spec[m].ready ||
		    !atomic_compare_exchange_strong_explicit(
			    &x->pipe_state[m], &expect, PIPE_BUSY,
			    memory_order_acquire, memory_order_relaxed))
			continue;
		game_spec_run(&x->snap.w, &x->spec[m]);
		atomic_store_explicit(&x->pipe_state[m], PIPE_DONE,
				      memory_order_release);
	}
}

/* The coordinator: the segment in arrival order, as run_speculative's,
 * each turn taking its cell first (its step is then run in the turn) or
 * waiting for the worker that runs it */
static void pipe_commit(struct server *sv)
{
	struct sv_exec *x = &sv->exec;

	world_changes_begin(&sv->world, x->changes);
	for (int m = 0; m < x->num; m++) {
		struct game_spec *s = &x->spec[m];
		int st = PIPE_FREE;

		atomic_store_explicit(&x->pipe_turn, m, memory_order_relaxed);

		if (atomic_compare_exchange_strong_explicit(
			    &x->pipe_state[m], &st, PIPE_OWN,
			    memory_order_acquire, memory_order_acquire)) {
			if (s->ready)
				sv->stats.exec_pipe_own++;
			s->made = false;
		} else if (st == PIPE_BUSY) {
			sv->stats.exec_pipe_waits++;
			if (!pipe_wait_done(sv, m)) {
				/* its worker is not running: the move goes on
				 * without its step, whose cell is not read */
				sv->stats.exec_pipe_gave_up++;
				run_move_now(sv, m);
				x->rest[x->moves[m].slot] = false;
				continue;
			}
		}
		spec_turn(sv, m);
	}
	world_changes_end(&sv->world);
}

static void pipe_item(void *ctx, int worker, int item)
{
	struct server *sv = ctx;

	(void)worker;
	if (item == 0) {
		pipe_commit(sv);
	} else {
		pipe_ahead(&sv->exec);
	}
}

/* false: nothing ran (no snapshot could be made, or the world is in a
 * deferred phase, whose lists a snapshot would not copy as they are) */
static bool run_pipelined(struct server *sv)
{
	struct sv_exec *x = &sv->exec;
	uint64_t t0, t1, t2;

	if (sv->world.deferred)
		return false;
	if (!x->snap_made || !world_snap_fits(&x->snap, &sv->world)) {
		world_snap_free(&x->snap);
		x->snap_made = world_snap_init(&x->snap, &sv->world) == 0;
		if (!x->snap_made)
			return false;
	}
	t0 = prof_now(sv->prof);
	atomic_store_explicit(&x->pipe_next, 0, memory_order_relaxed);
	atomic_store_explicit(&x->pipe_turn, 0, memory_order_relaxed);
	pool_run_shared(sv->pool, pipe_prepare_item, sv,
			x->num + PIPE_SNAP_PARTS, 8);
	t1 = prof_now(sv->prof);
	/* item w to worker w: the coordinator commits, the others run
	 * ahead */
	pool_run(sv->pool, pipe_item, sv, pool_active(sv->pool));
	t2 = prof_now(sv->prof);
	sv->stats.exec_ns[SERVER_EXEC_PARALLEL] += t1 - t0;
	sv->stats.exec_ns[SERVER_EXEC_ARRIVAL] += t2 - t1;
	sv_hooks_pool_ran(sv, t2 - t0);	/* -threads auto: parallel work */
	sv->stats.exec_spec_segments++;
	sv->stats.exec_pipe_segments++;
	return true;
}

/* sv_threads_execute 1: a schedule whose segments leave little to the
 * workers costs more than it saves.  Each scheduled segment's local
 * share (its moves in local jobs; none when it ran sequentially) moves
 * an exponential average; while that stays under EXEC_SHARE_MIN, only
 * one segment in EXEC_PROBE is scheduled, to see whether the game
 * changed.  2: every segment is scheduled. */
static bool worth_trying(struct server *sv)
{
	struct sv_exec *x = &sv->exec;

	if (x->enabled->value >= 2 || x->share_avg >= EXEC_SHARE_MIN)
		return true;
	if (++x->skipped < EXEC_PROBE) {
		sv->stats.exec_skipped++;
		return false;
	}
	x->skipped = 0;
	return true;
}

static void share_seen(struct sv_exec *x, double share)
{
	x->share_avg = 0.5 * share + 0.5 * x->share_avg;
}

void sv_exec_flush(struct server *sv)
{
	struct sv_exec *x = &sv->exec;
	int njobs = 0;
	bool parallel;
	enum prof_phase back;
	uint64_t t0, t1;

	if (x->num == 0 || x->flushing)
		return;
	x->flushing = true;
	back = prof_phase_now(sv->prof);
	t0 = prof_switch(sv->prof, PROF_EXECUTE);
	if ((x->enabled->value == 3 || x->enabled->value == 4) && sv->pool &&
	    pool_active(sv->pool) > 1 && x->num >= EXEC_MIN_PARALLEL) {
		sv->stats.exec_ns[SERVER_EXEC_SCHEDULE] += prof_now(sv->prof) - t0;
		if (x->enabled->value != 4 || !run_pipelined(sv))
			run_speculative(sv);
		goto done;
	}
	parallel = sv->pool && pool_active(sv->pool) > 1 &&
		   x->num >= EXEC_MIN_PARALLEL && worth_trying(sv) &&
		   measure_moves(sv);
	x->scheduled = parallel;
	if (parallel) {
		for (int m = 0; m < x->num && parallel; m++) {
			const struct sv_exec_move *mv = &x->moves[m];

			world_link_region(&sv->world,
					  &sv->objs[game_player_entity(sv->game, mv->slot)],
					  mv->rmin, mv->rmax);
		}
		x->num_far = 0;
		for (int m = 0; m < x->num && parallel; m++)
			parallel = schedule_move(sv, m);
		if (parallel)
			parallel = schedule_far(sv);
		if (parallel)
			njobs = build_jobs(sv);
		if (!parallel || njobs < 2) {
			parallel = false;
			for (int m = 0; m < x->num; m++)
				world_commit(&sv->world,
					     &sv->objs[game_player_entity(sv->game,
								  x->moves[m].slot)]);
		}
	}
	if (x->scheduled)
		share_seen(x, parallel ? (double)(x->num - x->num_shared) /
			   (double)x->num : 0.0);
	t1 = prof_now(sv->prof);
	sv->stats.exec_ns[SERVER_EXEC_SCHEDULE] += t1 - t0;
	if (parallel) {
		run_parallel(sv, njobs);
	} else {
		sv->stats.exec_sequential++;
		for (int m = 0; m < x->num; m++)
			run_move_now(sv, m);
		sv->stats.exec_ns[SERVER_EXEC_ARRIVAL] += prof_now(sv->prof) - t1;
	}
	schedule_reset(x);
done:
	for (int m = 0; m < x->num; m++)
		x->queued[x->moves[m].slot] = false;
	x->num = 0;
	x->flushing = false;
	prof_switch(sv->prof, back);
}

void server_exec_stats(const struct server *sv, struct server_exec_stats *out)
{
	out->parallel = sv->stats.exec_parallel;
	out->sequential = sv->stats.exec_sequential;
	out->jobs = sv->stats.exec_jobs;
	out->local_moves = sv->stats.exec_local_moves;
	out->shared_moves = sv->stats.exec_shared_moves;
	out->outside = sv->stats.exec_outside;
	out->skipped = sv->stats.exec_skipped;
	out->escapes = game_escapes();
	out->calls_lost = sv->stats.exec_calls_lost;
	out->spec_segments = sv->stats.exec_spec_segments;
	out->spec_moves = sv->stats.exec_spec_moves;
	out->spec_rested = sv->stats.exec_spec_rested;
	out->pipe_segments = sv->stats.exec_pipe_segments;
	out->pipe_waits = sv->stats.exec_pipe_waits;
	out->pipe_own = sv->stats.exec_pipe_own;
	out->pipe_gave_up = sv->stats.exec_pipe_gave_up;
	out->spec_hits = out->spec_inputs = out->spec_world = 0;
	if (sv->game) {
		const struct game_stats *gs = &sv->game->stats;

		out->spec_hits = gs->spec_hits;
		out->spec_inputs = gs->spec_inputs;
		out->spec_world = gs->spec_world;
	}
	out->spec_noted = out->spec_overflows = 0;
	if (sv->exec.changes)
		world_changes_counts(sv->exec.changes, &out->spec_noted,
				     &out->spec_overflows);
	memcpy(out->ns, sv->stats.exec_ns, sizeof(out->ns));
}

static uint64_t hash_bytes(uint64_t h, const void *data, size_t n)
{
	const uint8_t *b = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

uint64_t server_state_hash(const struct server *sv, uint64_t h)
{
	const struct game *g = sv->game;

	if (!h)
		h = 0xcbf29ce484222325ull;
	if (!g)
		return h;
	for (int i = 0; i < g->num_entities && i < g->max_entities; i++) {
		const struct game_entity *e = &g->ents[i];
		const struct world_obj *o = &sv->objs[i];
		struct {
			int32_t num, frame, items, weapon, solid, modelindex;
			float origin[3], velocity[3], angles[3];
			float health, armor;
		} v;

		if (!e->inuse)
			continue;
		memset(&v, 0, sizeof(v));
		v.num = i;
		v.frame = e->frame;
		v.items = e->items;
		v.weapon = e->weapon;
		v.solid = o->solid;
		v.modelindex = e->modelindex;
		vec_copy(o->origin, v.origin);
		vec_copy(e->velocity, v.velocity);
		vec_copy(e->angles, v.angles);
		v.health = e->health;
		v.armor = e->armorvalue;
		h = hash_bytes(h, &v, sizeof(v));
	}
	for (int s = 0; s < g->max_clients; s++) {
		const struct game_client *c = &g->clients[s];
		struct {
			int32_t active, frags, shells, nails, rockets, cells;
			double quad, pent, ring, suit;
		} v;

		memset(&v, 0, sizeof(v));
		v.active = c->active;
		if (c->active) {
			v.frags = c->frags;
			v.shells = c->ammo_shells;
			v.nails = c->ammo_nails;
			v.rockets = c->ammo_rockets;
			v.cells = c->ammo_cells;
			v.quad = c->super_damage_finished;
			v.pent = c->invincible_finished;
			v.ring = c->invisible_finished;
			v.suit = c->radsuit_finished;
		}
		h = hash_bytes(h, &v, sizeof(v));
	}
	return h;
}

void sv_run_game_cmd(struct server *sv, struct client *cl,
		     const struct usercmd *cmd)
{
	/* the game clamps the pitch, moves, touches, fires */
	game_client_cmd(sv->game, cl->slot, cmd);
	sv_grid_move(sv, cl->slot,
		     sv->objs[game_player_entity(sv->game, cl->slot)].origin);
}
