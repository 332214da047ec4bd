/*
 * sched.c -- the SCHEDULE of a parallel frame, measured on the sequential
 * one: each frame's action lists, their connected components (the jobs),
 * and each job's cost.
 *
 * Design note
 *   The graph: a node per entity, and one more, the shared node, for
 *   what acts anywhere.  A client is its player entity.  Before each of
 *   its commands runs (user.c, run_cmd), the entities its command can act
 *   on are asked of the areanode tree (world_area_objs, solids and
 *   triggers) in the box of the move's reach around it (game_cmd_action:
 *   pmove's physent reach), and, when the command fires, in the box of
 *   its line of fire; each is joined to the player's node.  The shared
 *   node joins every firing player (rule "shots": docs/parallel.md says
 *   why all shots of a frame are one job).  A command that acts anywhere
 *   (a respawn, the intermission's exit, or a move whose list holds an
 *   entity that acts far away: a teleporter, a button, a changelevel,
 *   game_entity_acts_far) makes the whole frame one job: every client
 *   joins the shared node.  At
 *   the end of RECEIVE+EXECUTE the components that hold a requesting
 *   client are the frame's jobs: clients, distinct entities (the
 *   study's weight) and the time the clients' moves took (the measured
 *   cost: the thread's CPU time, so that a move preempted on a busy
 *   machine does not count the time another process ran).
 *   The lists are taken as the sequential frame runs, each just before
 *   its command, so a list sees the moves run before it in the frame; a
 *   parallel frame takes them all before any move.  They differ by what
 *   one move of the others can change, within the reach's margin for
 *   walkers, and the instrument says which jobs a frame would have, not
 *   which order would replay it.
 *   Only the nodes a frame touched are reset after it (the touched list),
 *   so the cost per frame is that of its requests, not of the map.
 *   Every array is made by server_init (sv_sched_init); nothing here
 *   allocates.
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int sv_sched_init(struct server *sv)
{
	struct sv_sched *s = &sv->sched;
	size_t nodes = (size_t)sv->max_entities + 1;
	size_t clients = (size_t)sv->maxclients;

	memset(s, 0, sizeof(*s));
	s->nodes = (int)nodes;
	s->shared_node = sv->max_entities;
	s->parent = calloc(nodes, sizeof(*s->parent));
	s->size = calloc(nodes, sizeof(*s->size));
	s->mark = calloc(nodes, sizeof(*s->mark));
	s->job_of = calloc(nodes, sizeof(*s->job_of));
	s->touched = calloc(nodes, sizeof(*s->touched));
	s->found = calloc((size_t)sv->max_entities, sizeof(*s->found));
	s->requesting = calloc(clients, sizeof(*s->requesting));
	s->client_mark = calloc(clients, sizeof(*s->client_mark));
	s->client_ns = calloc(clients, sizeof(*s->client_ns));
	s->client_fires = calloc(clients, sizeof(*s->client_fires));
	s->jobs = calloc(clients, sizeof(*s->jobs));
	if (!s->parent || !s->size || !s->mark || !s->job_of || !s->touched ||
	    !s->found || !s->requesting || !s->client_mark || !s->client_ns ||
	    !s->client_fires || !s->jobs)
		return -1;
	sched_uf_init(&s->uf, s->parent, s->size, s->nodes);
	for (int i = 0; i < s->nodes; i++)
		s->job_of[i] = -1;
	s->stamp = 1;
	return 0;
}

void sv_sched_free(struct server *sv)
{
	struct sv_sched *s = &sv->sched;

	free(s->parent);
	free(s->size);
	free(s->mark);
	free(s->job_of);
	free(s->touched);
	free(s->found);
	free(s->requesting);
	free(s->client_mark);
	free(s->client_ns);
	free(s->client_fires);
	free(s->jobs);
	memset(s, 0, sizeof(*s));
}

const char *server_sched_rule_name(enum server_sched_rule rule)
{
	static const char *const names[SERVER_SCHED_RULES] = {
		"shots", "lines", "moves", "local"
	};

	return rule < SERVER_SCHED_RULES ? names[rule] : "?";
}

void server_sched_enable(struct server *sv, bool on, enum server_sched_rule rule)
{
	sv->sched.on = on && sv->sched.jobs;
	sv->sched.rule = rule;
	sv->sched.njobs = sv->sched.clients = 0;
	sv->sched.last_global = false;
}

void server_sched_last(const struct server *sv, struct server_sched_frame *out)
{
	out->clients = sv->sched.clients;
	out->global = sv->sched.last_global;
	out->jobs = sv->sched.njobs;
	out->job = sv->sched.jobs;
}

static void touch(struct sv_sched *s, int node)
{
	if (s->mark[node] == s->stamp)
		return;
	s->mark[node] = s->stamp;
	s->touched[s->ntouched++] = node;
}

/* every object in [mins, maxs] joined to node: the solids, and the
 * triggers when asked (a move touches them, a shot does not) */
static void join_box(struct server *sv, int node, const vec3_t mins,
		     const vec3_t maxs, bool triggers)
{
	static const enum area_kind kinds[] = { AREA_SOLID, AREA_TRIGGERS };
	struct sv_sched *s = &sv->sched;

	for (size_t k = 0; k < (triggers ? 2u : 1u); k++) {
		int n = world_area_any(&sv->world, mins, maxs, kinds[k], s->found,
					sv->max_entities);

		if (n > sv->max_entities)
			n = sv->max_entities;
		for (int i = 0; i < n; i++) {
			int id = s->found[i]->id;

			/* the world itself is in every list: not a node */
			if (id <= 0 || id >= sv->max_entities)
				continue;
			touch(s, id);
			sched_uf_union(&s->uf, node, id);
			/* a teleporter, a button, a relay: what it acts on
			 * may be anywhere */
			if (game_entity_acts_far(sv->game, id))
				s->global = true;
		}
	}
}

void sv_sched_cmd(struct server *sv, struct client *cl,
		  const struct usercmd *cmd)
{
	struct sv_sched *s = &sv->sched;
	struct game_action a;
	int ent = game_player_entity(sv->game, cl->slot);
	const float *org;
	vec3_t mins, maxs;

	if (!s->on || ent <= 0 || ent >= sv->max_entities ||
	    !game_cmd_action(sv->game, cl->slot, cmd, &a))
		return;
	if (s->client_mark[cl->slot] != s->stamp) {
		s->client_mark[cl->slot] = s->stamp;
		s->client_ns[cl->slot] = 0;
		s->client_fires[cl->slot] = false;
		s->requesting[s->nrequesting++] = cl->slot;
	}
	touch(s, ent);
	org = sv->objs[ent].origin;
	for (int k = 0; k < 3; k++) {
		mins[k] = org[k] - a.reach;
		maxs[k] = org[k] + a.reach;
	}
	join_box(sv, ent, mins, maxs, true);
	s->global |= a.global;
	s->client_fires[cl->slot] |= a.fires;
	if (a.fires && s->rule == SERVER_SCHED_SHOTS) {
		touch(s, s->shared_node);
		sched_uf_union(&s->uf, ent, s->shared_node);
	}
	if (a.fires && s->rule < SERVER_SCHED_MOVES)
		join_box(sv, ent, a.fire_mins, a.fire_maxs, false);
}

uint64_t sv_sched_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void sv_sched_cost(struct server *sv, struct client *cl, uint64_t ns)
{
	struct sv_sched *s = &sv->sched;

	if (s->on && s->client_mark[cl->slot] == s->stamp)
		s->client_ns[cl->slot] += ns;
}

/* the job of node's component, made when first met */
static struct server_sched_job *job_of(struct sv_sched *s, int node)
{
	int root = sched_uf_find(&s->uf, node);

	if (s->job_of[root] < 0) {
		s->job_of[root] = s->njobs;
		memset(&s->jobs[s->njobs], 0, sizeof(s->jobs[0]));
		s->njobs++;
	}
	return &s->jobs[s->job_of[root]];
}

void sv_sched_frame(struct server *sv)
{
	struct sv_sched *s = &sv->sched;

	if (!s->on)
		return;
	s->njobs = 0;
	s->clients = s->nrequesting;
	/* something acted anywhere: every client with it, one job */
	if (s->global && s->rule != SERVER_SCHED_LOCAL) {
		touch(s, s->shared_node);
		for (int i = 0; i < s->nrequesting; i++)
			sched_uf_union(&s->uf, game_player_entity(sv->game,
								  s->requesting[i]),
				       s->shared_node);
	}
	/* the jobs in the order of their first client's request */
	for (int i = 0; i < s->nrequesting; i++) {
		int slot = s->requesting[i];
		struct server_sched_job *j =
			job_of(s, game_player_entity(sv->game, slot));

		j->clients++;
		j->cost_ns += s->client_ns[slot];
		j->firing += s->client_fires[slot];
	}
	for (int i = 0; i < s->ntouched; i++)
		if (s->touched[i] != s->shared_node)
			job_of(s, s->touched[i])->entities++;
	/* a fresh graph: only what this frame touched */
	for (int i = 0; i < s->ntouched; i++) {
		int node = s->touched[i];

		s->parent[node] = node;
		s->size[node] = 1;
		s->job_of[node] = -1;
	}
	s->ntouched = 0;
	s->nrequesting = 0;
	s->last_global = s->global;
	s->global = false;
	if (++s->stamp == 0) {
		memset(s->mark, 0, sizeof(*s->mark) * (size_t)s->nodes);
		memset(s->client_mark, 0, sizeof(*s->client_mark) * (size_t)sv->maxclients);
		s->stamp = 1;
	}
}
