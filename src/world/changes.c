/*
 * src/world/changes.c -- a log of the objects linked and unlinked while a
 * segment of moves commits, and the question a speculative move asks of
 * it: did anything that changed meet the box I read?
 *
 * Design note
 *   A speculative move (docs/parallel.md, "Speculative moves") ran ahead
 *   of its turn against the world as the segment began; when its turn
 *   comes, its result holds if no object linked or unlinked since then
 *   has, before or after, a placed box meeting what it read.  world_link
 *   and world_unlink append the object's old and new placed boxes here
 *   when a log is attached (world_changes_begin); nothing else in the
 *   world writes it.
 *
 *   The question is asked once a move, of every change of the segment:
 *   a coarse grid answers it, columns of WC_CELL units (x, y) hashed into
 *   a table; an entry is filed under each column its box covers (a box
 *   over more than WC_BIG_CELLS columns goes to a list asked every time).
 *   A column's list is valid only under the segment's stamp, so starting
 *   a segment clears nothing.  Every array is made by world_changes_create;
 *   a log that fills says so (full), and then every question is answered
 *   yes: the rest of the segment runs for real.
 */
#include "qwd/world.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define WC_CELL 128.0f
#define WC_HASH 4096		/* columns in the table (a power of two) */
#define WC_BIG_CELLS 16		/* a box over more: the big list */
#define WC_ASK_CELLS 64		/* a question over more: scan every entry */

struct wc_entry {
	int id;
	bool brush;		/* it has a brush model (solid or not now) */
	vec3_t mins, maxs;
};

struct wc_node {
	int entry;
	int next;
};

struct world_changes {
	struct wc_entry *entries;
	int num, max;
	struct wc_node *nodes;
	int num_nodes, max_nodes;
	int *big;		/* entries over many columns */
	int num_big;
	int head[WC_HASH];
	uint32_t stamp[WC_HASH];
	uint32_t now;
	bool full;
	uint64_t noted, overflows;
};

struct world_changes *world_changes_create(int max_entries)
{
	struct world_changes *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->max = max_entries > 0 ? max_entries : 1;
	c->max_nodes = c->max * 4;
	c->entries = calloc((size_t)c->max, sizeof(*c->entries));
	c->nodes = calloc((size_t)c->max_nodes, sizeof(*c->nodes));
	c->big = calloc((size_t)c->max, sizeof(*c->big));
	if (!c->entries || !c->nodes || !c->big) {
		world_changes_destroy(c);
		return NULL;
	}
	return c;
}

void world_changes_destroy(struct world_changes *c)
{
	if (!c)
		return;
	free(c->entries);
	free(c->nodes);
	free(c->big);
	free(c);
}

void world_changes_begin(struct world *w, struct world_changes *c)
{
	c->now++;
	if (c->now == 0) {	/* the stamp wrapped: every column is stale */
		memset(c->stamp, 0, sizeof(c->stamp));
		c->now = 1;
	}
	c->num = 0;
	c->num_nodes = 0;
	c->num_big = 0;
	c->full = false;
	w->changes = c;
}

void world_changes_end(struct world *w)
{
	w->changes = NULL;
}

static int wc_col(float v)
{
	float f = v / WC_CELL;

	/* far outside any map: clamp, the hash stays defined */
	if (f < -1e6f)
		f = -1e6f;
	else if (f > 1e6f)
		f = 1e6f;
	return (int)(f < 0 ? f - 1 : f);
}

static int wc_hash(int cx, int cy)
{
	uint32_t h = (uint32_t)cx * 73856093u ^ (uint32_t)cy * 19349663u;

	return (int)(h & (WC_HASH - 1));
}

static void wc_file(struct world_changes *c, int cell, int entry)
{
	if (c->num_nodes == c->max_nodes) {
		c->full = true;
		return;
	}
	if (c->stamp[cell] != c->now) {
		c->stamp[cell] = c->now;
		c->head[cell] = -1;
	}
	c->nodes[c->num_nodes].entry = entry;
	c->nodes[c->num_nodes].next = c->head[cell];
	c->head[cell] = c->num_nodes++;
}

void world_changes_note(struct world_changes *c, const struct world_obj *obj,
			const vec3_t mins, const vec3_t maxs)
{
	struct wc_entry *e;
	int x0, x1, y0, y1, i;

	c->noted++;
	if (c->full)
		return;
	if (c->num == c->max) {
		c->full = true;
		c->overflows++;
		return;
	}
	i = c->num++;
	e = &c->entries[i];
	e->id = obj->id;
	e->brush = obj->model >= 0;
	vec_copy(mins, e->mins);
	vec_copy(maxs, e->maxs);
	x0 = wc_col(e->mins[0]);
	x1 = wc_col(e->maxs[0]);
	y0 = wc_col(e->mins[1]);
	y1 = wc_col(e->maxs[1]);
	if ((int64_t)(x1 - x0 + 1) * (y1 - y0 + 1) > WC_BIG_CELLS) {
		c->big[c->num_big++] = i;
		return;
	}
	for (int x = x0; x <= x1; x++)
		for (int y = y0; y <= y1; y++)
			wc_file(c, wc_hash(x, y), i);
	if (c->full)
		c->overflows++;
}

struct wc_ask {
	const float *mins, *maxs;
	int skip;
	world_changes_test test;
	void *ctx;
};

static bool wc_meets(const struct wc_entry *e, const struct wc_ask *q)
{
	if (e->id == q->skip)
		return false;
	for (int k = 0; k < 3; k++)
		if (e->mins[k] > q->maxs[k] || e->maxs[k] < q->mins[k])
			return false;
	return !q->test || q->test(q->ctx, e->id, e->mins, e->maxs, e->brush);
}

bool world_changes_meet(const struct world *w, const vec3_t mins,
			const vec3_t maxs, int skip, world_changes_test test,
			void *ctx)
{
	struct wc_ask q = {mins, maxs, skip, test, ctx};
	const struct world_changes *c = w->changes;
	int x0, x1, y0, y1;

	if (!c || c->full)
		return true;	/* nothing says what changed */
	for (int i = 0; i < c->num_big; i++)
		if (wc_meets(&c->entries[c->big[i]], &q))
			return true;
	x0 = wc_col(mins[0]);
	x1 = wc_col(maxs[0]);
	y0 = wc_col(mins[1]);
	y1 = wc_col(maxs[1]);
	if ((int64_t)(x1 - x0 + 1) * (y1 - y0 + 1) > WC_ASK_CELLS) {
		for (int i = 0; i < c->num; i++)
			if (wc_meets(&c->entries[i], &q))
				return true;
		return false;
	}
	for (int x = x0; x <= x1; x++)
		for (int y = y0; y <= y1; y++) {
			int cell = wc_hash(x, y);

			if (c->stamp[cell] != c->now)
				continue;
			for (int n = c->head[cell]; n >= 0; n = c->nodes[n].next)
				if (wc_meets(&c->entries[c->nodes[n].entry], &q))
					return true;
		}
	return false;
}

void world_changes_counts(const struct world_changes *c, uint64_t *noted,
			  uint64_t *overflows)
{
	*noted = c->noted;
	*overflows = c->overflows;
}

/* the segment against the box grown by r (slabs): a capsule's test, made
 * coarser at the box's corners */
bool world_segment_meets(const vec3_t a, const vec3_t b, float r,
			 const vec3_t mins, const vec3_t maxs)
{
	vec3_t lo, hi;

	for (int k = 0; k < 3; k++) {
		lo[k] = mins[k] - r;
		hi[k] = maxs[k] + r;
	}
	return world_slabs_meet(a, b, lo, hi, 0);
}

