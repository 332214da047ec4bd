/*
 * src/world/area.c -- the areanode tree and box moves against the world
 * and the linked objects.
 *
 * Design note
 *   The tree is QuakeWorld's: a fixed binary tree of depth AREA_DEPTH built
 *   once over the world model's bounds (a server of hundreds of players
 *   asks for a deeper one, world_depth_for, so that each node's lists
 *   stay short), each node splitting the longer of
 *   its x/y extents at the middle (children[0] the upper half, children[1]
 *   the lower).  An object lives in exactly one node: the first whose split
 *   plane its box straddles, or the leaf it falls in.  Hence a query box
 *   only needs the nodes whose region it reaches: a child is entered when
 *   the box extends strictly past the split toward it, which is exact
 *   because an object stored below a node lies strictly on one side.
 *   Loose: a small object (a player, an item, a missile: narrower than
 *   2 AREA_LOOSE) that straddles a split goes on down on its centre's
 *   side, so the children's regions overlap by AREA_LOOSE and a walk
 *   enters a child when it reaches that far past the split.  Without it
 *   the players standing on the splits high in the tree (hundreds, on a
 *   crowded map) were tested by every walk that passed their node.
 *
 *   Each node holds two lists (solids and triggers), and a list is a
 *   chain of chunks of compact entries: the box the object was placed by
 *   and its id, 32 bytes, seven to a 256-byte chunk.  The walks read a
 *   node's candidates from them, so the loads overlap (the prefetcher
 *   sees dense memory) and an object's own line is read only when its
 *   placed box meets the query; a chain of pointers (QuakeWorld's
 *   intrusive lists) cost one serial cache miss per object.  Every chunk
 *   of a list but its head is full: an insert goes into the head (a new
 *   head from the pool when it is full), a removal fills its hole with
 *   the head's last entry (that object's position is updated) and frees
 *   the head when it empties.  The object knows its entry's position, so
 *   both are O(1).  A list of n entries holds ceil(n / 7) chunks, so a
 *   pool of one chunk per list and one per 7 objects never runs dry: it
 *   is allocated once by world_init (world_free releases it) and nothing
 *   is allocated afterwards (a copy of struct world would share it: a
 *   world is not copied).  Moving the last entry reorders the list,
 *   which no answer depends on (Order, below).
 *
 *   world_move is QuakeWorld's SV_Move: trace the world model first, then
 *   every linked solid whose box meets the box swept by the move, keeping
 *   the nearest hit.  Rules kept from id's code, because game logic and
 *   client prediction depend on them:
 *   - absmin/absmax carry a 1-unit margin, since moves stop DIST_EPSILON
 *     short of a surface and boxes that do not quite touch must still be
 *     clipped exactly;
 *   - the mover never clips against itself, its owner, or objects it owns;
 *   - a mover with a size never clips against a point-sized object;
 *   - MOVE_NOMONSTERS clips only brush models; MOVE_MISSILE clips objects
 *     flagged monster with a +-15 box, so missiles hit them more easily;
 *     a MOVE_NOMONSTERS move outside deferred phases tests the world's
 *     short list of the brush objects listed (world.bsp_ids, kept by
 *     list_add and list_remove: whether an object is one is decided when
 *     it is listed, as which list it goes to is) instead of the tree;
 *   - a start in solid is remembered even when another object is nearer
 *     (and names the object only when nothing nearer was hit).
 *   world_move_lagged is the same move with some objects (the players
 *   antilag rewinds, src/game/antilag.c) taken out of the lists and traced
 *   at the origins the caller gives instead, as MVDSV's MOVE_LAGGED.
 *   Boxes become a six-plane hull built on the stack (QuakeWorld uses one
 *   static hull), so moves are reentrant and need no storage.
 *
 *   A move's walk follows its line, not its bounds: a shot across a map
 *   of two thousand players has bounds that hold hundreds of them.  A
 *   child is entered only for the part of the move (a fraction range)
 *   whose swept box reaches past the split toward it, the child the
 *   move starts in first, and a box object is traced only when the
 *   segment comes within a unit of its box grown by the mover's before
 *   the nearest hit found so far; what is passed over could only have
 *   answered "fraction 1, not in solid", or a farther hit, neither of
 *   which wins, so the answer is the same (tests/world checks moves of
 *   every length, and moves grazing a face, against an object-by-object
 *   reference).  world_test_box, which asks only
 *   whether the box starts in solid, stops at the first thing that says
 *   so.
 *
 *   Order.  A list's order is the order of its links, which depends on
 *   who moved when; QuakeWorld lets it decide which object a query
 *   returns first and which of two hits at the same fraction a move
 *   keeps.  Here queries answer in id order (world_area_objs; or in the
 *   lists' order, world_area_any, or the first a caller's test accepts,
 *   world_area_find, for a caller that does not depend on
 *   it) and a move's answer is the same in any order (all-solid first,
 *   the nearer hit, the lower id), so the answers depend on the objects'
 *   places only: the frame run on several threads (whose links land in
 *   another order) plays the same game as the sequential one.
 *
 *   Deferred phases (world_defer): while moves run on several threads no
 *   list changes; each object's entry carries the box it was placed by
 *   (written only outside the phase) beside its live box, and
 *   a walk reads an object's live fields only when the placed box meets
 *   its query, so a thread never reads what another writes as long as
 *   each thread's queries stay within the regions its objects were
 *   placed by (the caller's schedule makes it so).
 */
#include "qwd/world.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- the lists ----------------------------------------------------------- */

static int32_t *list_head(struct world *w, int list)
{
	return &w->nodes[list >> 1].lists[list & 1];
}

static struct area_entry *entry_of(const struct world *w,
				   const struct world_obj *obj)
{
	return &w->chunks[obj->area_pos / AREA_CHUNK_ENTRIES]
		.e[obj->area_pos % AREA_CHUNK_ENTRIES];
}

/* obj's entry into the list (node * 2 + kind), with its placed box */
static void list_add(struct world *w, int list, struct world_obj *obj,
		     const vec3_t mins, const vec3_t maxs)
{
	int32_t *head = list_head(w, list);
	struct area_chunk *c;
	struct area_entry *e;

	if (*head < 0 || w->chunks[*head].count == AREA_CHUNK_ENTRIES) {
		/* the pool holds a chunk for it (world_init's bound) */
		int32_t n = w->free_chunk;

		c = &w->chunks[n];
		w->free_chunk = c->next;
		c->next = *head;
		c->count = 0;
		c->list = list;
		*head = n;
	}
	c = &w->chunks[*head];
	e = &c->e[c->count];
	vec_copy(mins, e->lmin);
	vec_copy(maxs, e->lmax);
	e->id = obj->id;
	obj->area_pos = *head * AREA_CHUNK_ENTRIES + c->count++;
	if ((list & 1) == AREA_SOLID && obj->solid == SOLID_BSP &&
	    w->num_bsp >= 0) {
		if (w->num_bsp == WORLD_BSP_OBJS) {
			/* more than fit: the moves walk the tree from now on */
			for (int i = 0; i < w->num_bsp; i++)
				w->objs[w->bsp_ids[i]].bsp_pos = -1;
			w->num_bsp = -1;
		} else {
			obj->bsp_pos = w->num_bsp;
			w->bsp_ids[w->num_bsp++] = obj->id;
		}
	}
}

/* obj's entry out of its list: the head's last entry fills the hole */
static void list_remove(struct world *w, struct world_obj *obj)
{
	struct area_entry *hole = entry_of(w, obj);
	int32_t *head = list_head(w, w->chunks[obj->area_pos /
					       AREA_CHUNK_ENTRIES].list);
	struct area_chunk *h = &w->chunks[*head];
	struct area_entry *last = &h->e[h->count - 1];

	if (last != hole) {
		*hole = *last;
		w->objs[hole->id].area_pos = obj->area_pos;
	}
	obj->area_pos = -1;
	if (obj->bsp_pos >= 0) {
		/* the last brush object fills its place */
		int32_t moved = w->bsp_ids[--w->num_bsp];

		w->bsp_ids[obj->bsp_pos] = moved;
		w->objs[moved].bsp_pos = obj->bsp_pos;
		obj->bsp_pos = -1;
	}
	if (--h->count == 0) {
		int32_t n = *head;

		*head = h->next;
		h->next = w->free_chunk;
		w->free_chunk = n;
	}
}

/* ---- the tree ----------------------------------------------------------- */

static int area_node_create(struct world *w, int depth, const vec3_t mins,
			    const vec3_t maxs)
{
	int num = w->num_nodes++;
	struct area_node *node = &w->nodes[num];
	vec3_t lo_maxs, hi_mins;

	node->lists[AREA_SOLID] = node->lists[AREA_TRIGGERS] = -1;

	if (depth == w->depth) {
		node->axis = -1;
		node->dist = 0;
		node->children[0] = node->children[1] = -1;
		return num;
	}

	node->axis = maxs[0] - mins[0] > maxs[1] - mins[1] ? 0 : 1;
	node->dist = 0.5f * (maxs[node->axis] + mins[node->axis]);

	vec_copy(maxs, lo_maxs);
	vec_copy(mins, hi_mins);
	lo_maxs[node->axis] = hi_mins[node->axis] = node->dist;

	/* children are created one at a time: num_nodes moves meanwhile */
	node->children[0] = area_node_create(w, depth + 1, hi_mins, maxs);
	node->children[1] = area_node_create(w, depth + 1, mins, lo_maxs);
	return num;
}

int world_init(struct world *w, const struct bsp_map *map,
	       struct world_obj *objs, int max_objs)
{
	return world_init_depth(w, map, objs, max_objs, AREA_DEPTH);
}

int world_depth_for(int max_clients)
{
	int depth = AREA_DEPTH;

	for (int n = 32; n < max_clients && depth < AREA_MAX_DEPTH; n *= 2)
		depth++;
	return depth;
}

int world_init_depth(struct world *w, const struct bsp_map *map,
		     struct world_obj *objs, int max_objs, int depth)
{
	vec3_t mins = {0, 0, 0}, maxs = {0, 0, 0};
	size_t chunks;

	memset(w->nodes, 0, sizeof(w->nodes));
	w->depth = depth < 1 ? 1 : (depth > AREA_MAX_DEPTH ? AREA_MAX_DEPTH : depth);
	w->map = map;
	w->objs = objs;
	w->max_objs = max_objs;
	w->num_nodes = 0;
	w->deferred = false;
	w->changes = NULL;

	if (map->num_models > 0) {
		vec_copy(map->models[0].mins, mins);
		vec_copy(map->models[0].maxs, maxs);
	}
	area_node_create(w, 0, mins, maxs);

	for (int i = 0; i < max_objs; i++) {
		objs[i].id = i;
		objs[i].linked = false;
		objs[i].leafs_valid = false;
		objs[i].leaf1 = -1;
		objs[i].area_pos = -1;
		objs[i].bsp_pos = -1;
	}
	w->num_bsp = 0;

	/* a list of n entries holds ceil(n / 7) chunks: at most one not
	 * full per list, and the full ones hold distinct objects */
	chunks = 2 * (size_t)w->num_nodes +
		 (size_t)(max_objs > 0 ? max_objs : 0) / AREA_CHUNK_ENTRIES + 1;
	w->chunks = aligned_alloc(64, chunks * sizeof(*w->chunks));
	w->num_chunks = w->chunks ? (int)chunks : 0;
	w->free_chunk = w->num_chunks > 0 ? 0 : -1;
	for (int i = 0; i < w->num_chunks; i++) {
		w->chunks[i].next = i + 1 < w->num_chunks ? i + 1 : -1;
		w->chunks[i].count = 0;
		w->chunks[i].list = -1;
	}
	return w->chunks ? 0 : -1;
}

void world_free(struct world *w)
{
	free(w->chunks);
	w->chunks = NULL;
	w->num_chunks = 0;
	w->free_chunk = -1;
	/* the objects are the caller's, and may be gone already */
	for (int i = 0; i < w->num_nodes; i++)
		w->nodes[i].lists[AREA_SOLID] = w->nodes[i].lists[AREA_TRIGGERS] = -1;
}

static bool valid_brush_model(const struct world *w, const struct world_obj *obj)
{
	return obj->model >= 0 && obj->model < w->map->num_models;
}

/* the object's own bounds, relative to its origin: a brush model's come from
 * the model, anything else's from mins/maxs */
static void obj_bounds(const struct world *w, const struct world_obj *obj,
		       vec3_t mins, vec3_t maxs)
{
	if (obj->solid == SOLID_BSP && valid_brush_model(w, obj)) {
		vec_copy(w->map->models[obj->model].mins, mins);
		vec_copy(w->map->models[obj->model].maxs, maxs);
	} else {
		vec_copy(obj->mins, mins);
		vec_copy(obj->maxs, maxs);
	}
}

void world_unlink(struct world *w, struct world_obj *obj)
{
	if (w->deferred) {
		obj->pending = true;
		obj->gone = true;
		return;
	}
	if (!obj->linked)
		return;
	if (w->changes) {
		const struct area_entry *e = entry_of(w, obj);

		/* where it was */
		world_changes_note(w->changes, obj, e->lmin, e->lmax);
	}
	list_remove(w, obj);
	obj->linked = false;
}

/* Is a box small enough to be placed by its centre (narrower than
 * 2 AREA_LOOSE on both axes the tree splits)? */
static bool box_loose(const vec3_t mins, const vec3_t maxs)
{
	return maxs[0] - mins[0] < 2 * AREA_LOOSE &&
	       maxs[1] - mins[1] < 2 * AREA_LOOSE;
}

/* The areanode whose list holds a box: the first whose split it
 * straddles, or the leaf it falls in; a small box straddling a split
 * goes on down on its centre's side.  Either way what a node's child 0
 * holds lies above dist - AREA_LOOSE (strictly), what child 1 holds
 * below dist + AREA_LOOSE: the walks' rule for entering a child (the
 * tests say so, whatever rounding does to the centre). */
static struct area_node *node_for_box(struct world *w, const vec3_t mins,
				      const vec3_t maxs)
{
	struct area_node *node = &w->nodes[0];
	bool loose = box_loose(mins, maxs);

	while (node->axis != -1) {
		int a = node->axis;
		float d = node->dist;

		if (mins[a] > d)
			node = &w->nodes[node->children[0]];
		else if (maxs[a] < d)
			node = &w->nodes[node->children[1]];
		else if (loose && mins[a] + maxs[a] >= 2 * d &&
			 mins[a] > d - AREA_LOOSE)
			node = &w->nodes[node->children[0]];
		else if (loose && mins[a] + maxs[a] < 2 * d &&
			 maxs[a] < d + AREA_LOOSE)
			node = &w->nodes[node->children[1]];
		else
			break;	/* straddles the split: it stays here */
	}
	return node;
}

static void list_insert(struct world *w, struct world_obj *obj,
			const vec3_t mins, const vec3_t maxs)
{
	struct area_node *node = node_for_box(w, mins, maxs);
	int num = (int)(node - w->nodes);

	list_add(w, 2 * num + (obj->solid == SOLID_TRIGGER ? AREA_TRIGGERS :
			       AREA_SOLID), obj, mins, maxs);
	obj->linked = true;
}

void world_link(struct world *w, struct world_obj *obj)
{
	vec3_t mins, maxs;
	int n;

	if (!w->deferred)
		world_unlink(w, obj);
	if (obj->id == 0)
		return;	/* the world is traced on its own, never listed */

	obj_bounds(w, obj, mins, maxs);
	for (int i = 0; i < 3; i++) {
		float lo = obj->origin[i] + mins[i] - 1;
		float hi = obj->origin[i] + maxs[i] + 1;

		if (lo != obj->absmin[i] || hi != obj->absmax[i])
			obj->leafs_valid = false;
		obj->absmin[i] = lo;
		obj->absmax[i] = hi;
	}

	/* leafs are wanted even for SOLID_NOT objects: they are still seen.
	 * They are a function of the map and the box alone, so an object
	 * relinked where it was (a player standing, a think that does not
	 * move) keeps the ones it has: the tree walk is skipped */
	if (!obj->leafs_valid) {
		n = bsp_box_leafs(w->map, obj->absmin, obj->absmax, obj->leafnums,
				  WORLD_MAX_OBJ_LEAFS);
		obj->leafs_overflow = n > WORLD_MAX_OBJ_LEAFS;
		obj->num_leafs = obj->leafs_overflow ? WORLD_MAX_OBJ_LEAFS : n;
		obj->leaf1 = n == 1 ? obj->leafnums[0] : -1;
		obj->leafs_valid = true;
	}

	if (w->deferred) {
		/* stays where it was placed; gone if it left the lists */
		obj->pending = true;
		obj->gone = obj->solid == SOLID_NOT || !obj->linked;
		return;
	}
	if (obj->solid == SOLID_NOT)
		return;
	list_insert(w, obj, obj->absmin, obj->absmax);
	if (w->changes)
		world_changes_note(w->changes, obj, obj->absmin,
				   obj->absmax);	/* where it is */
}

void world_defer(struct world *w, bool on)
{
	w->deferred = on;
}

void world_link_region(struct world *w, struct world_obj *obj,
		       const vec3_t mins, const vec3_t maxs)
{
	if (!obj->linked || w->deferred)
		return;
	list_remove(w, obj);
	list_insert(w, obj, mins, maxs);
}

void world_commit(struct world *w, struct world_obj *obj)
{
	bool gone = obj->pending && obj->gone;

	obj->pending = false;
	obj->gone = false;
	if (gone)
		world_unlink(w, obj);
	else if (obj->linked)
		world_link(w, obj);
}

/* ---- queries ------------------------------------------------------------ */

/* boxes that share a face or an edge count as touching */
static bool boxes_touch(const vec3_t amin, const vec3_t amax,
			const vec3_t bmin, const vec3_t bmax)
{
	for (int i = 0; i < 3; i++)
		if (amin[i] > bmax[i] || amax[i] < bmin[i])
			return false;
	return true;
}

struct area_query {
	const float *mins, *maxs;
	enum area_kind kind;
	bool deferred;
	bool lowest;		/* past max, keep the lowest ids */
	struct world_obj **out;
	int max;
	int count;
};

/* Does obj, whose placed box meets the query, answer it?  Its live
 * fields are read only in a deferred phase (the placed box is never
 * written while one runs). */
static bool query_hits(const struct area_query *q, const struct world_obj *obj)
{
	if (!q->deferred)
		return true;	/* the placed box is the live one */
	return !obj->gone && boxes_touch(q->mins, q->maxs, obj->absmin,
					 obj->absmax);
}

/* Is a's id above b's?  The objects are one array whose objs[i].id is
 * i, so their addresses are in the order of their ids and neither's line
 * is read. */
static bool id_above(const struct world_obj *a, const struct world_obj *b)
{
	return a > b;
}

/* keep the max lowest ids once more than max were found: out[] is then a
 * heap with the highest id on top */
static void heap_down(struct world_obj **h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, top = i;

		if (l < n && id_above(h[l], h[top]))
			top = l;
		if (r < n && id_above(h[r], h[top]))
			top = r;
		if (top == i)
			return;
		struct world_obj *t = h[i];

		h[i] = h[top];
		h[top] = t;
		i = top;
	}
}

static void query_keep(struct area_query *q, struct world_obj *obj)
{
	if (q->count < q->max) {
		q->out[q->count] = obj;
	} else if (q->lowest && q->max > 0) {
		if (q->count == q->max)
			for (int i = q->max / 2 - 1; i >= 0; i--)
				heap_down(q->out, q->max, i);
		if (id_above(q->out[0], obj)) {
			q->out[0] = obj;
			heap_down(q->out, q->max, 0);
		}
	}
	q->count++;
}

/* One node's list of the query's kind: the first object whose placed box
 * meets the query and that visit accepts (NULL: none did).  Inlined with
 * its visit into both walks, so the gathering walk pays no call per
 * object. */
static inline __attribute__((always_inline)) struct world_obj *
node_scan(const struct world *w, const struct area_node *node,
	  const struct area_query *q,
	  bool (*visit)(void *ctx, const struct world_obj *obj), void *ctx)
{
	for (int32_t c = node->lists[q->kind]; c >= 0; c = w->chunks[c].next) {
		const struct area_chunk *chunk = &w->chunks[c];

		if (chunk->next >= 0)
			__builtin_prefetch(&w->chunks[chunk->next]);
		for (int i = 0; i < chunk->count; i++) {
			const struct area_entry *e = &chunk->e[i];
			struct world_obj *obj;

			if (!boxes_touch(q->mins, q->maxs, e->lmin, e->lmax))
				continue;
			obj = &w->objs[e->id];
			if (query_hits(q, obj) && visit(ctx, obj))
				return obj;
		}
	}
	return NULL;
}

/* area_query_node's visit: keeps every object, stops at none */
static inline __attribute__((always_inline)) bool
keep_visit(void *ctx, const struct world_obj *obj)
{
	struct area_query *q = ctx;

	query_keep(q, (struct world_obj *)obj);
	return false;
}

static void area_query_node(const struct world *w, int num,
			    struct area_query *q)
{
	const struct area_node *node = &w->nodes[num];

	node_scan(w, node, q, keep_visit, q);
	if (node->axis == -1)
		return;
	if (q->maxs[node->axis] > node->dist - AREA_LOOSE)
		area_query_node(w, node->children[0], q);
	if (q->mins[node->axis] < node->dist + AREA_LOOSE)
		area_query_node(w, node->children[1], q);
}

/* by id, in place: an insertion sort for the few most queries find, a
 * heap sort for more */
static void sort_by_id(struct world_obj **a, int n)
{
	if (n > 32) {
		for (int i = n / 2 - 1; i >= 0; i--)
			heap_down(a, n, i);
		for (int end = n - 1; end > 0; end--) {
			struct world_obj *t = a[0];

			a[0] = a[end];
			a[end] = t;
			heap_down(a, end, 0);
		}
		return;
	}
	for (int i = 1; i < n; i++) {
		struct world_obj *o = a[i];
		int j = i;

		for (; j > 0 && id_above(a[j - 1], o); j--)
			a[j] = a[j - 1];
		a[j] = o;
	}
}

void world_objs_sort(struct world_obj **objs, int n)
{
	sort_by_id(objs, n);
}

int world_area_objs(const struct world *w, const vec3_t mins,
		    const vec3_t maxs, enum area_kind kind,
		    struct world_obj **out, int max)
{
	struct area_query q = {mins, maxs, kind, w->deferred, true, out, max, 0};

	area_query_node(w, 0, &q);
	sort_by_id(out, q.count < max ? q.count : max);
	return q.count;
}

int world_area_any(const struct world *w, const vec3_t mins,
		   const vec3_t maxs, enum area_kind kind,
		   struct world_obj **out, int max)
{
	struct area_query q = {mins, maxs, kind, w->deferred, false, out, max, 0};

	area_query_node(w, 0, &q);
	return q.count;
}

bool world_area_visits(const struct world *w, const struct world_obj *obj,
		       const vec3_t mins, const vec3_t maxs,
		       enum area_kind kind)
{
	struct area_query q = {mins, maxs, kind, w->deferred, false, NULL, 0, 0};
	const struct area_entry *e;

	if (!obj->linked || obj->area_pos < 0 ||
	    (w->chunks[obj->area_pos / AREA_CHUNK_ENTRIES].list & 1) !=
	    (int)kind)
		return false;
	e = entry_of(w, obj);
	return boxes_touch(mins, maxs, e->lmin, e->lmax) && query_hits(&q, obj);
}

/* world_area_find's walk: area_query_node's, stopping at the first
 * object fn accepts */
static const struct world_obj *area_find_node(const struct world *w, int num,
					      const struct area_query *q,
					      world_area_pred fn, void *ctx)
{
	const struct area_node *node = &w->nodes[num];
	const struct world_obj *found = node_scan(w, node, q, fn, ctx);

	if (found || node->axis == -1)
		return found;
	if (q->maxs[node->axis] > node->dist - AREA_LOOSE &&
	    (found = area_find_node(w, node->children[0], q, fn, ctx)))
		return found;
	if (q->mins[node->axis] < node->dist + AREA_LOOSE)
		return area_find_node(w, node->children[1], q, fn, ctx);
	return NULL;
}

const struct world_obj *world_area_find(const struct world *w,
					const vec3_t mins, const vec3_t maxs,
					enum area_kind kind,
					world_area_pred fn, void *ctx)
{
	struct area_query q = {mins, maxs, kind, w->deferred, false, NULL, 0, 0};

	return area_find_node(w, 0, &q, fn, ctx);
}

int world_point_contents(const struct world *w, const vec3_t p)
{
	return bsp_point_contents(w->map, p);
}

int world_point_liquid(const struct world *w, const vec3_t p)
{
	return bsp_point_liquid(w->map, p);
}

/* ---- moves -------------------------------------------------------------- */

struct move_clip {
	vec3_t boxmins, boxmaxs;	/* everything the move may touch */
	const float *mins, *maxs;	/* the moving box */
	vec3_t mins2, maxs2;		/* the moving box against monsters */
	const float *start, *end;
	const struct world_obj *passobj;
	enum move_kind kind;
	struct trace tr;
	/* for the box objects, world_move's own (outside this struct, which
	 * is cleared per move): laid out at the first, its planes set per
	 * object */
	bool box_ready;
	struct bsp_box_hull *box;
	const struct world_lag *lag;	/* world_move_lagged's, or NULL */
	bool test_only;		/* world_test_box: only startsolid is asked */
};

/* trace the moving box against one object, results in world space */
static void clip_to_obj(const struct world *w, struct move_clip *clip,
			const struct world_obj *obj, const float *origin,
			const vec3_t start, const vec3_t mins,
			const vec3_t maxs, const vec3_t end, struct trace *tr)
{
	if (obj->solid == SOLID_BSP) {
		bsp_trace_box(w->map, obj->model, origin, mins, maxs,
			      start, end, tr);
	} else {
		/* the object's box grown by the mover's, around its origin */
		vec3_t hmins, hmaxs, start_l, end_l;

		if (!clip->box_ready) {
			bsp_box_hull_init(clip->box);
			clip->box_ready = true;
		}
		vec_sub(obj->mins, maxs, hmins);
		vec_sub(obj->maxs, mins, hmaxs);
		bsp_box_hull_set(clip->box, hmins, hmaxs);
		vec_sub(start, origin, start_l);
		vec_sub(end, origin, end_l);
		bsp_trace_box_hull(clip->box, start_l, end_l, tr);
		if (tr->fraction == 1)
			vec_copy(end, tr->endpos);
		else
			vec_add(tr->endpos, origin, tr->endpos);
	}
	tr->ent = tr->fraction < 1 || tr->startsolid ? obj->id : -1;
}

/* x extent of an object as linked, to tell point-sized objects apart */
static float obj_size_x(const struct world *w, const struct world_obj *obj)
{
	vec3_t mins, maxs;

	obj_bounds(w, obj, mins, maxs);
	return maxs[0] - mins[0];
}

static bool clip_skips(const struct world *w, const struct move_clip *clip,
		       const struct world_obj *obj)
{
	const struct world_obj *pass = clip->passobj;

	if (obj->solid == SOLID_NOT || obj->solid == SOLID_TRIGGER)
		return true;
	if (obj == pass)
		return true;
	if (clip->kind == MOVE_NOMONSTERS && obj->solid != SOLID_BSP)
		return true;
	if (!boxes_touch(clip->boxmins, clip->boxmaxs, obj->absmin,
			 obj->absmax))
		return true;
	if (pass && obj_size_x(w, pass) != 0 && obj_size_x(w, obj) == 0)
		return true;	/* a sized mover passes through points */
	return false;
}

static bool clip_skips_owned(const struct move_clip *clip,
			     const struct world_obj *obj)
{
	const struct world_obj *pass = clip->passobj;

	if (!pass)
		return false;
	/* own missiles, and the owner of a missile, never block it */
	return obj->owner == pass->id || (pass->owner >= 0 &&
					  pass->owner == obj->id);
}

/* Is tr (object id) a better answer than best?  Whatever the order the
 * objects come in: all-solid first, then the nearer hit, then at equal
 * fractions the lower id (the world, traced first, is id 0); a trace
 * that hit nothing never wins. */
static bool better(const struct trace *tr, int id, const struct trace *best)
{
	if (tr->allsolid != best->allsolid)
		return tr->allsolid;
	if (tr->fraction != best->fraction)
		return tr->fraction < best->fraction;
	if (!(tr->fraction < 1 || tr->startsolid || tr->allsolid))
		return false;
	return best->ent < 0 || (best->ent > 0 && id < best->ent);
}

/* Does the move surely miss a box object standing at origin, or meet it
 * only past the nearest hit found so far?  The segment start..end
 * against the object's box grown by the mover's (the box hull
 * clip_to_obj traces) and SWEEP_MARGIN more: a segment that never comes
 * that near never enters the hull, whose trace then ends at fraction 1,
 * neither starting nor all in solid -- an answer that never wins and
 * changes nothing (see better), so skipping the trace is exact.  A long
 * trace (a shot across the map) whose bounds hold hundreds of players
 * traces only those near its line.
 *
 * Past the nearest hit: where a box hull's trace stops (hull_check) is
 * a point of the segment within DIST_EPSILON of the hull -- the split
 * point before the plane it hits, inside the planes after it, and past
 * those before it less DIST_EPSILON; its backing away never runs, since
 * that point is outside the hit plane.  So the trace's fraction is at
 * least the fraction where the segment first comes within SWEEP_MARGIN
 * (far more than DIST_EPSILON and any rounding) of the hull, and
 * strictly more when that is past the start: a trace whose segment
 * comes that near only after clip->tr.fraction would answer a farther
 * hit, not in solid, which never wins.  A move visiting the nearer
 * objects first (clip_to_links) traces few of those beyond its hit.
 * Brush models trace their own hulls (sized by the mover's box class,
 * not its box, and backing away through their own solids): never
 * skipped here.  NaNs make every comparison false: never skipped
 * either. */
enum { SWEEP_MARGIN = 1 };

static bool sweep_misses(const struct move_clip *clip,
			 const struct world_obj *obj, const float *origin)
{
	const float *mmins = obj->monster ? clip->mins2 : clip->mins;
	const float *mmaxs = obj->monster ? clip->maxs2 : clip->maxs;
	vec3_t lo, hi;

	if (obj->solid == SOLID_BSP)
		return false;
	for (int i = 0; i < 3; i++) {
		lo[i] = origin[i] + obj->mins[i] - mmaxs[i] - SWEEP_MARGIN;
		hi[i] = origin[i] + obj->maxs[i] - mmins[i] + SWEEP_MARGIN;
	}
	/* an axis the move (nearly) keeps: both ends lie within 1e-3 of
	 * the start, far inside the margin */
	return !world_slabs_meet_upto(clip->start, clip->end, lo, hi, 1e-3f,
				      clip->tr.fraction);
}

/* one object's clip, the object standing at origin */
static void clip_one(const struct world *w, struct move_clip *clip,
		     const struct world_obj *obj, const float *origin)
{
	struct trace tr;
	bool startsolid;

	if (clip_skips_owned(clip, obj))
		return;
	if (obj->monster)
		clip_to_obj(w, clip, obj, origin, clip->start, clip->mins2,
			    clip->maxs2, clip->end, &tr);
	else
		clip_to_obj(w, clip, obj, origin, clip->start, clip->mins,
			    clip->maxs, clip->end, &tr);

	/* a start in solid is kept whoever wins.  QuakeWorld lets the last
	 * start in solid win over a nearer hit and the first of equal ones
	 * stand, both of which depend on the lists' order. */
	startsolid = clip->tr.startsolid || tr.startsolid;
	if (better(&tr, obj->id, &clip->tr)) {
		tr.ent = obj->id;
		clip->tr = tr;
	}
	clip->tr.startsolid = startsolid;
}

/* The part [*t0, *t1] of the move (as a fraction of start..end) whose
 * swept box, SWEEP_MARGIN larger, reaches past dist on axis toward child
 * side (0: above, 1: below); false when none does.  Objects below a node
 * lie strictly on their side of its split and within the regions of the
 * node's ancestors, so a child is entered only for the part of the move
 * its region can meet. */
static inline __attribute__((always_inline)) bool
sweep_side(const struct move_clip *clip, int axis, float dist, int side,
	   float *t0, float *t1)
{
	float s = clip->start[axis], d = clip->end[axis] - s;
	/* the swept box's edge toward the side, as an offset from the path:
	 * the larger of the two boxes a move traces with (a missile's
	 * against monsters, its own against the rest) */
	float hi = clip->maxs2[axis] > clip->maxs[axis] ? clip->maxs2[axis] :
		clip->maxs[axis];
	float lo = clip->mins2[axis] < clip->mins[axis] ? clip->mins2[axis] :
		clip->mins[axis];
	float edge = side == 0 ? hi + 1 + SWEEP_MARGIN : lo - 1 - SWEEP_MARGIN;
	float tc;

	if (d > -1e-3f && d < 1e-3f)
		return true;	/* (nearly) still: the box test decides */
	tc = (dist - edge - s) / d;
	if (!(tc == tc))
		return true;
	/* above: s + t d + edge > dist; below: s + t d + edge < dist */
	if ((side == 0) == (d > 0)) {
		if (tc > *t0)
			*t0 = tc;
	} else {
		if (tc < *t1)
			*t1 = tc;
	}
	return *t0 <= *t1;
}

/* every linked solid the move may touch (placed box first, as queries
 * do), in the lists' order, the child the move starts in before the
 * other: clip_one's answer does not depend on the order, only how many
 * objects sweep_misses spares does.  [t0, t1] is the part of the move
 * that may reach this node's region. */
static inline __attribute__((always_inline)) bool
clip_child(const struct world *w, const struct area_node *node, int side,
	   struct move_clip *clip, float t0, float t1);

/* a listed object whose entry meets the move: its tests and its clip;
 * false when the answer is known (a test that starts in solid) */
static inline __attribute__((always_inline)) bool
clip_listed(const struct world *w, struct move_clip *clip,
	    const struct world_obj *obj)
{
	if (clip_skips(w, clip, obj) || sweep_misses(clip, obj, obj->origin))
		return true;
	clip_one(w, clip, obj, obj->origin);
	return !(clip->test_only && clip->tr.startsolid);
}

/* The box swept by the part [t0, t1] of the move, within its whole box:
 * a node's objects lie in its region, which the move reaches only then
 * (sweep_side), so a long move (a shot across the map) tests a deep
 * node's entries against the few units it crosses there.  One more
 * SWEEP_MARGIN than the region's edges, for the rounding of t. */
static void part_bounds(const struct move_clip *clip, float t0, float t1,
			vec3_t lo, vec3_t hi)
{
	for (int k = 0; k < 3; k++) {
		float d = clip->end[k] - clip->start[k];
		float a = clip->start[k] + t0 * d, b = clip->start[k] + t1 * d;
		float mn = clip->mins2[k] < clip->mins[k] ? clip->mins2[k] :
			clip->mins[k];
		float mx = clip->maxs2[k] > clip->maxs[k] ? clip->maxs2[k] :
			clip->maxs[k];
		float l = (a < b ? a : b) + mn - 1 - 2 * SWEEP_MARGIN;
		float h = (a < b ? b : a) + mx + 1 + 2 * SWEEP_MARGIN;

		lo[k] = l > clip->boxmins[k] ? l : clip->boxmins[k];
		hi[k] = h < clip->boxmaxs[k] ? h : clip->boxmaxs[k];
	}
}

static void clip_to_links(const struct world *w, int num, struct move_clip *clip,
			  float t0, float t1)
{
	const struct area_node *node = &w->nodes[num];
	vec3_t lo, hi;
	const float *bmin = clip->boxmins, *bmax = clip->boxmaxs;

	if ((t0 > 0 || t1 < 1) && node->lists[AREA_SOLID] >= 0) {
		part_bounds(clip, t0, t1, lo, hi);
		bmin = lo;
		bmax = hi;
	}
	for (int32_t c = node->lists[AREA_SOLID]; c >= 0;
	     c = w->chunks[c].next) {
		const struct area_chunk *chunk = &w->chunks[c];

		if (chunk->next >= 0)
			__builtin_prefetch(&w->chunks[chunk->next]);
		for (int i = 0; i < chunk->count; i++) {
			const struct area_entry *e = &chunk->e[i];
			const struct world_obj *obj;

			if (!boxes_touch(bmin, bmax, e->lmin, e->lmax))
				continue;
			if (clip->lag && clip->lag->mark[e->id])
				continue;	/* traced where the rewind puts it */
			obj = &w->objs[e->id];
			if (w->deferred && obj->gone)
				continue;
			if (!clip_listed(w, clip, obj))
				return;	/* the answer is known, whatever follows */
		}
	}

	if (node->axis == -1)
		return;
	/* the child the move starts in first: its hits, when it has any,
	 * spare the traces of the objects beyond them (sweep_misses) */
	if (clip->end[node->axis] > clip->start[node->axis]) {
		if (clip_child(w, node, 1, clip, t0, t1))
			clip_child(w, node, 0, clip, t0, t1);
	} else {
		if (clip_child(w, node, 0, clip, t0, t1))
			clip_child(w, node, 1, clip, t0, t1);
	}
}

/* clip_to_links for a move that clips only brush objects
 * (MOVE_NOMONSTERS), outside deferred phases: the same tests of the
 * objects world.bsp_ids lists, which are every such object a walk would
 * come to; the answer does not depend on the order they come in */
static void clip_to_brushes(const struct world *w, struct move_clip *clip)
{
	for (int i = 0; i < w->num_bsp; i++) {
		const struct world_obj *obj = &w->objs[w->bsp_ids[i]];
		const struct area_entry *e = entry_of(w, obj);

		if (boxes_touch(clip->boxmins, clip->boxmaxs, e->lmin, e->lmax) &&
		    !clip_listed(w, clip, obj))
			return;
	}
}

/* clip_to_links on child `side` of node when the move may reach it;
 * false when the answer is known (a test that starts in solid) */
static inline __attribute__((always_inline)) bool
clip_child(const struct world *w, const struct area_node *node, int side,
	   struct move_clip *clip, float t0, float t1)
{
	float a = t0, b = t1;
	/* the child's objects lie past this (node_for_box) */
	float edge = side == 0 ? node->dist - AREA_LOOSE :
		node->dist + AREA_LOOSE;

	if (side == 0 ? !(clip->boxmaxs[node->axis] > edge) :
	    !(clip->boxmins[node->axis] < edge))
		return true;
	if (!sweep_side(clip, node->axis, edge, side, &a, &b))
		return true;
	clip_to_links(w, node->children[side], clip, a, b);
	return !(clip->test_only && clip->tr.startsolid);
}

/* the box swept by the move, one unit larger on every side */
static void move_bounds(const vec3_t start, const vec3_t mins,
			const vec3_t maxs, const vec3_t end, vec3_t boxmins,
			vec3_t boxmaxs)
{
	for (int i = 0; i < 3; i++) {
		if (end[i] > start[i]) {
			boxmins[i] = start[i] + mins[i] - 1;
			boxmaxs[i] = end[i] + maxs[i] + 1;
		} else {
			boxmins[i] = end[i] + mins[i] - 1;
			boxmaxs[i] = start[i] + maxs[i] + 1;
		}
	}
}

/* the rewound objects of world_move_lagged, each at its rewound origin:
 * MVDSV's order of tests (its own box there against the move's, no
 * margin), then the same clip and the same rule for the nearest */
static void clip_to_lagged(const struct world *w, struct move_clip *clip)
{
	const struct world_lag *lag = clip->lag;
	const struct world_obj *pass = clip->passobj;

	for (int i = 0; i < lag->num; i++) {
		const float *b = &lag->boxes[6 * i];
		const struct world_obj *obj;
		const float *lp;
		bool apart = false;

		/* the dense quick test first: most are far from the move */
		if (clip->boxmins[0] > b[3] || clip->boxmaxs[0] < b[0] ||
		    clip->boxmins[1] > b[4] || clip->boxmaxs[1] < b[1] ||
		    clip->boxmins[2] > b[5] || clip->boxmaxs[2] < b[2])
			continue;
		obj = &w->objs[lag->ids[i]];
		lp = &lag->origins[3 * i];
		if (!obj->linked || obj->solid == SOLID_NOT ||
		    obj->solid == SOLID_TRIGGER || obj == pass)
			continue;
		if (clip->kind == MOVE_NOMONSTERS && obj->solid != SOLID_BSP)
			continue;
		for (int k = 0; k < 3; k++)
			if (clip->boxmins[k] > lp[k] + obj->maxs[k] ||
			    clip->boxmaxs[k] < lp[k] + obj->mins[k])
				apart = true;
		if (apart)
			continue;
		if (pass && obj_size_x(w, pass) != 0 && obj_size_x(w, obj) == 0)
			continue;
		if (sweep_misses(clip, obj, lp))
			continue;
		clip_one(w, clip, obj, lp);
	}
}

static void move_run(const struct world *w, const vec3_t start,
		     const vec3_t mins, const vec3_t maxs, const vec3_t end,
		     enum move_kind kind, const struct world_obj *passobj,
		     const struct world_lag *lag, bool test_only, bool objs_only,
		     struct trace *tr)
{
	struct move_clip clip;
	struct bsp_box_hull box;

	memset(&clip, 0, sizeof(clip));
	clip.box = &box;
	clip.lag = lag;
	if (objs_only) {
		/* what a trace that hits nothing says */
		clip.tr.fraction = 1;
		vec_copy(end, clip.tr.endpos);
	} else {
		bsp_trace_box(w->map, 0, (const float[3]){0, 0, 0}, mins, maxs,
			      start, end, &clip.tr);
	}
	clip.tr.ent = clip.tr.fraction < 1 || clip.tr.startsolid ? 0 : -1;
	clip.test_only = test_only;
	if (test_only && clip.tr.startsolid) {
		*tr = clip.tr;	/* stuck in the world: nothing undoes it */
		return;
	}

	clip.start = start;
	clip.end = end;
	clip.mins = mins;
	clip.maxs = maxs;
	clip.kind = kind;
	clip.passobj = passobj;

	if (kind == MOVE_MISSILE) {
		vec_set(clip.mins2, -15, -15, -15);
		vec_set(clip.maxs2, 15, 15, 15);
	} else {
		vec_copy(mins, clip.mins2);
		vec_copy(maxs, clip.maxs2);
	}
	move_bounds(start, clip.mins2, clip.maxs2, end, clip.boxmins,
		    clip.boxmaxs);

	if (kind == MOVE_NOMONSTERS && !lag && !w->deferred && w->num_bsp >= 0)
		clip_to_brushes(w, &clip);
	else
		clip_to_links(w, 0, &clip, 0, 1);
	if (lag)
		clip_to_lagged(w, &clip);
	*tr = clip.tr;
}

void world_move(const struct world *w, const vec3_t start, const vec3_t mins,
		const vec3_t maxs, const vec3_t end, enum move_kind kind,
		const struct world_obj *passobj, struct trace *tr)
{
	move_run(w, start, mins, maxs, end, kind, passobj, NULL, false, false,
		 tr);
}

void world_move_lagged(const struct world *w, const vec3_t start,
		       const vec3_t mins, const vec3_t maxs, const vec3_t end,
		       enum move_kind kind, const struct world_obj *passobj,
		       const struct world_lag *lag, struct trace *tr)
{
	move_run(w, start, mins, maxs, end, kind, passobj, lag, false, false,
		 tr);
}

/* only startsolid is asked, and once set it stays: the walk stops at the
 * first object (or the world) that sets it */
static bool test_box(const struct world *w, const vec3_t origin,
		     const vec3_t mins, const vec3_t maxs,
		     const struct world_obj *passobj, bool objs_only)
{
	struct trace tr;

	move_run(w, origin, mins, maxs, origin, MOVE_NORMAL, passobj, NULL,
		 true, objs_only, &tr);
	return tr.startsolid;
}

bool world_test_box(const struct world *w, const vec3_t origin,
		    const vec3_t mins, const vec3_t maxs,
		    const struct world_obj *passobj)
{
	return test_box(w, origin, mins, maxs, passobj, false);
}

bool world_test_box_objs(const struct world *w, const vec3_t origin,
			 const vec3_t mins, const vec3_t maxs,
			 const struct world_obj *passobj)
{
	return test_box(w, origin, mins, maxs, passobj, true);
}
