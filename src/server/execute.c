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
 *     fire; a move that acts anywhere (a respawn, the intermission's
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
 *   Every array is made at start (sv_exec_init); nothing allocates per
 *   frame.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* a segment this short runs sequentially: waking the workers costs more */
enum { EXEC_MIN_PARALLEL = 8 };

int sv_exec_init(struct server *sv)
{
	struct sv_exec *x = &sv->exec;
	size_t clients = (size_t)sv->maxclients;
	size_t nodes = (size_t)sv->max_entities + 1;
	int bins = sv->threads;

	memset(x, 0, sizeof(*x));
	x->enabled = cvar_register(sv, "sv_threads_execute", "1", 0,
				   "-threads N: run the frame's moves on the "
				   "workers too (0: only the replies)");
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
	x->replay_max = (int)clients * 16 + 1024;
	x->spawn_min = calloc(EXEC_MAX_SPAWNS, sizeof(*x->spawn_min));
	x->spawn_max = calloc(EXEC_MAX_SPAWNS, sizeof(*x->spawn_max));
	x->dropped_seen = calloc((size_t)bins, sizeof(*x->dropped_seen));
	x->replay_order = calloc((size_t)x->replay_max, sizeof(*x->replay_order));
	if (!x->moves || !x->cmds || !x->queued || !x->parent || !x->size ||
	    !x->job_of || !x->touched || !x->marked || !x->found || !x->items ||
	    !x->job_first || !x->job_last || !x->next || !x->weight ||
	    !x->order || !x->job_bin || !x->bin_cmds || !x->queues ||
	    !x->replay_count || !x->replay_order || !x->dropped_seen ||
	    !x->spawn_min || !x->spawn_max)
		goto oom;
	for (int b = 0; b < bins; b++) {
		x->queues[b] = game_defer_create((int)clients * 8 + 256,
						 clients * 128 + 4096);
		if (!x->queues[b])
			goto oom;
	}
	for (size_t i = 0; i < nodes; i++)
		x->job_of[i] = -1;
	sched_uf_init(&x->uf, x->parent, x->size, (int)nodes);
	x->shared_node = sv->max_entities;
	x->nbins = bins;
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

	for (int i = 0; i < mv->n; i++)
		sv_run_game_cmd(sv, cl, &cmds[i]);
	cl->localtime = sv->time;
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

static bool is_item(const struct game_entity *e)
{
	return (e->flags & FL_ITEM) != 0;
}

/* everything in a box where the shared job may act joins it */
static void join_box_shared(struct server *sv, const vec3_t mins,
			    const vec3_t maxs)
{
	struct sv_exec *x = &sv->exec;
	int n;

	n = world_area_objs(&sv->world, mins, maxs, AREA_SOLID, x->found,
			    sv->max_entities);
	for (int i = 0; i < n && i < sv->max_entities; i++)
		node_join(x, x->found[i]->id, x->shared_node);
	n = world_area_objs(&sv->world, mins, maxs, AREA_TRIGGERS, x->found,
			    sv->max_entities);
	for (int i = 0; i < n && i < sv->max_entities; i++)
		node_join(x, x->found[i]->id, x->shared_node);
}

/* where a respawn of this segment may act joins the shared job; false
 * when that is anywhere */
static bool join_spawns(struct server *sv)
{
	struct sv_exec *x = &sv->exec;
	int n = game_spawn_boxes(sv->game, x->spawn_min, x->spawn_max,
				 EXEC_MAX_SPAWNS);

	if (n < 0)
		return false;
	for (int i = 0; i < n; i++)
		join_box_shared(sv, x->spawn_min[i], x->spawn_max[i]);
	return true;
}

/* an entity that acts far, in a move's halo: where it acts joins the
 * shared job (a teleporter's destination); false: anywhere */
static bool join_far(struct server *sv, const struct sv_exec_move *mv, int id)
{
	vec3_t mins, maxs;

	if (!game_entity_far_box(sv->game, id, mins, maxs))
		return false;
	grow_box(mins, maxs, mv->reach, mins, maxs);
	join_box_shared(sv, mins, maxs);
	node_join(&sv->exec, id, sv->exec.shared_node);
	return true;
}

/* Join move m's lists; false when the segment must run sequentially
 * (something acts anywhere). */
static bool schedule_move(struct server *sv, int m)
{
	struct sv_exec *x = &sv->exec;
	struct sv_exec_move *mv = &x->moves[m];
	struct game *g = sv->game;
	int self = game_player_entity(g, mv->slot);
	struct world_obj *obj = &sv->objs[self];
	vec3_t qmin, qmax;
	int n;

	grow_box(mv->rmin, mv->rmax, mv->reach, qmin, qmax);
	node_touch(x, self);
	if (!mv->local)
		node_join(x, self, x->shared_node);
	mv->num_items = 0;

	n = world_area_objs(&sv->world, qmin, qmax, AREA_SOLID, x->found,
			    sv->max_entities);
	for (int i = 0; i < n && i < sv->max_entities; i++) {
		int id = x->found[i]->id;
		const struct game_entity *e = &g->ents[id];

		if (id == self)
			continue;
		if (game_entity_acts_far(g, id) && !join_far(sv, mv, id))
			return false;
		if (e->client >= 0)
			node_join(x, self, id);
		else if (e->touch)
			node_join(x, self, x->shared_node);
	}
	n = world_area_objs(&sv->world, qmin, qmax, AREA_TRIGGERS, x->found,
			    sv->max_entities);
	for (int i = 0; i < n && i < sv->max_entities; i++) {
		int id = x->found[i]->id;
		const struct game_entity *e = &g->ents[id];

		if (game_entity_acts_far(g, id) && !join_far(sv, mv, id))
			return false;
		if (is_item(e) && !game_entity_acts_far(g, id) && mv->num_items < EXEC_MAX_ITEMS) {
			x->items[(size_t)m * EXEC_MAX_ITEMS + mv->num_items++] = id;
			node_join(x, self, id);
		} else {
			node_join(x, self, x->shared_node);
		}
	}
	if (mv->fires) {
		n = world_area_objs(&sv->world, mv->fmin, mv->fmax, AREA_SOLID,
				    x->found, sv->max_entities);
		for (int i = 0; i < n && i < sv->max_entities; i++)
			node_join(x, x->found[i]->id, x->shared_node);
	}
	(void)obj;
	return true;
}

/* the moves' reaches, regions and local verdicts; false: sequential */
static bool measure_moves(struct server *sv)
{
	struct sv_exec *x = &sv->exec;
	struct game *g = sv->game;

	x->respawns = false;
	for (int m = 0; m < x->num; m++) {
		struct sv_exec_move *mv = &x->moves[m];
		const struct usercmd *cmds = &x->cmds[(size_t)m * EXEC_MAX_CMDS];
		const struct world_obj *obj =
			&sv->objs[game_player_entity(g, mv->slot)];
		float reach = 0;

		mv->fires = false;
		for (int i = 0; i < mv->n; i++) {
			struct game_action a;

			if (!game_cmd_action(g, mv->slot, &cmds[i], &a))
				return false;	/* not in the game */
			if (a.global) {
				/* a respawn (the intermission's exit: anywhere) */
				if (g->intermission)
					return false;
				x->respawns = true;
			}
			reach += a.reach;
			if (a.fires) {
				if (!mv->fires) {
					vec_copy(a.fire_mins, mv->fmin);
					vec_copy(a.fire_maxs, mv->fmax);
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
		grow_box(obj->absmin, obj->absmax, reach, mv->rmin, mv->rmax);
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

static void run_bin(void *ctx, int worker, int bin)
{
	struct server *sv = ctx;
	struct sv_exec *x = &sv->exec;
	uint64_t cmds = 0;

	(void)worker;
	for (int j = 0; j < x->njobs; j++) {
		if (x->job_bin[j] != bin)
			continue;
		for (int m = x->job_first[j]; m >= 0; m = x->next[m]) {
			const struct sv_exec_move *mv = &x->moves[m];
			struct client *cl = &sv->clients[mv->slot];
			const struct usercmd *c = &x->cmds[(size_t)m * EXEC_MAX_CMDS];

			game_defer_bind(x->queues[bin], (uint32_t)m);
			for (int i = 0; i < mv->n; i++)
				game_client_cmd_local(sv->game, mv->slot, &c[i]);
			cl->localtime = sv->time;
			cmds += (uint64_t)mv->n;
		}
	}
	game_defer_bind(NULL, 0);
	x->bin_cmds[bin] = cmds;
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
	int bins = pool_active(sv->pool);
	uint64_t load[SCHED_MAX_WORKERS];
	uint64_t cmds = 0;
	int made;

	if (bins > x->nbins)
		bins = x->nbins;
	x->njobs = njobs;
	sched_lpt(x->weight, njobs, bins, x->order, x->job_bin, load);
	/* the shared job's movers go back where the lists want them: they
	 * run after, as the sequential frame runs */
	for (int m = 0; m < x->num; m++)
		if (x->moves[m].job < 0)
			world_commit(&sv->world,
				     &sv->objs[game_player_entity(g, x->moves[m].slot)]);

	g->svc = game_defer_services(&real);
	world_defer(&sv->world, true);
	pool_run(sv->pool, run_bin, sv, bins);
	world_defer(&sv->world, false);
	g->svc = real;

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
	made = game_defer_replay(&real, x->queues, bins, (uint32_t)x->num,
				 x->replay_count, x->replay_order, x->replay_max);
	if (made < 0)
		sv->stats.exec_calls_lost++;
	for (int b = 0; b < bins; b++)
		sv->stats.exec_calls_lost += game_defer_dropped(x->queues[b]) -
					     x->dropped_seen[b];
	for (int b = 0; b < bins; b++)
		x->dropped_seen[b] = game_defer_dropped(x->queues[b]);

	sv->stats.exec_parallel++;
	sv->stats.exec_jobs += (uint64_t)njobs;
	sv->stats.exec_local_moves += (uint64_t)(x->num - x->num_shared);
	sv->stats.exec_shared_moves += (uint64_t)x->num_shared;
	for (int m = 0; m < x->num; m++)
		if (x->moves[m].job < 0)
			run_move_now(sv, m);
}

void sv_exec_flush(struct server *sv)
{
	struct sv_exec *x = &sv->exec;
	int njobs = 0;
	bool parallel;
	enum prof_phase back;

	if (x->num == 0 || x->flushing)
		return;
	x->flushing = true;
	back = prof_phase_now(sv->prof);
	prof_switch(sv->prof, PROF_EXECUTE);
	parallel = sv->pool && pool_active(sv->pool) > 1 &&
		   x->num >= EXEC_MIN_PARALLEL && measure_moves(sv);
	if (parallel) {
		for (int m = 0; m < x->num && parallel; m++) {
			const struct sv_exec_move *mv = &x->moves[m];

			world_link_region(&sv->world,
					  &sv->objs[game_player_entity(sv->game, mv->slot)],
					  mv->rmin, mv->rmax);
		}
		for (int m = 0; m < x->num && parallel; m++)
			parallel = schedule_move(sv, m);
		if (parallel && x->respawns)
			parallel = join_spawns(sv);
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
	if (parallel) {
		run_parallel(sv, njobs);
	} else {
		sv->stats.exec_sequential++;
		for (int m = 0; m < x->num; m++)
			run_move_now(sv, m);
	}
	schedule_reset(x);
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
	out->escapes = game_escapes();
	out->calls_lost = sv->stats.exec_calls_lost;
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
