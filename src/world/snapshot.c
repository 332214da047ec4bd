/*
 * src/world/snapshot.c -- a copy of the world's solid lists and of the
 * objects in them, for readers that run while the world changes.
 *
 * Design note
 *   The pipelined speculative moves (docs/parallel.md, "Pipelined
 *   speculative moves") run a move's first pmove on a worker while the
 *   coordinator commits the moves before it, linking and unlinking
 *   objects as it goes.  The worker must read none of that: it reads a
 *   snapshot taken as the segment began, and the segment's change log
 *   (changes.c) says at the move's turn whether anything it read has
 *   changed since.
 *
 *   A snapshot is a struct world of its own whose tree is the source's
 *   (the same nodes, the same depth and splits), whose solid lists are
 *   copies of the source's chunks at the same indices, and whose objects
 *   are copies of those the solid lists hold, at the same ids, so that
 *   every walk (world_area_any, world_area_objs) and every reader of an
 *   object's walk fields, kind, owner, model, box and origin answers as
 *   the source answered when it was taken.  The trigger lists are left
 *   empty, an object's leafs are not copied (only the fields before
 *   num_leafs are), and nothing is ever linked into it.
 *
 *   Taking one is split in parts (world_snap_take over node ranges) so
 *   that workers copy it side by side: an object lives in one list and a
 *   list in one node, so the parts write disjoint memory.  Every array is
 *   made by world_snap_init; nothing allocates afterwards.
 */
#include "qwd/world.h"
#include "internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* what a copied object carries: the walk's line and the live box */
#define SNAP_OBJ_BYTES offsetof(struct world_obj, num_leafs)

int world_snap_init(struct world_snap *s, const struct world *src)
{
	memset(s, 0, sizeof(*s));
	if (src->max_objs <= 0 || src->num_chunks <= 0)
		return -1;
	s->objs = aligned_alloc(64, (size_t)src->max_objs * sizeof(*s->objs));
	s->chunks = aligned_alloc(64, (size_t)src->num_chunks * sizeof(*s->chunks));
	if (!s->objs || !s->chunks) {
		world_snap_free(s);
		return -1;
	}
	memset(s->objs, 0, (size_t)src->max_objs * sizeof(*s->objs));
	memset(s->chunks, 0, (size_t)src->num_chunks * sizeof(*s->chunks));
	for (int i = 0; i < src->max_objs; i++) {
		s->objs[i].id = i;
		s->objs[i].area_pos = -1;
		s->objs[i].leaf1 = -1;
	}
	s->max_objs = src->max_objs;
	s->max_chunks = src->num_chunks;
	return 0;
}

void world_snap_free(struct world_snap *s)
{
	free(s->objs);
	free(s->chunks);
	s->objs = NULL;
	s->chunks = NULL;
	s->max_objs = s->max_chunks = 0;
}

bool world_snap_fits(const struct world_snap *s, const struct world *src)
{
	return s->objs && src->max_objs <= s->max_objs &&
	       src->num_chunks <= s->max_chunks && !src->deferred;
}

void world_snap_take(struct world_snap *s, const struct world *src,
		     int part, int parts)
{
	struct world *w = &s->w;
	int begin = (int)((long long)src->num_nodes * part / parts);
	int end = (int)((long long)src->num_nodes * (part + 1) / parts);

	if (part == 0) {
		w->map = src->map;
		w->num_nodes = src->num_nodes;
		w->depth = src->depth;
		w->objs = s->objs;
		w->max_objs = src->max_objs;
		w->deferred = false;
		w->changes = NULL;
		w->chunks = s->chunks;
		w->num_chunks = src->num_chunks;
		w->free_chunk = -1;
		w->num_bsp = -1;	/* its moves walk the copied lists */
	}
	for (int n = begin; n < end; n++) {
		const struct area_node *from = &src->nodes[n];
		struct area_node *to = &w->nodes[n];

		*to = *from;
		to->lists[AREA_TRIGGERS] = -1;
		for (int32_t c = from->lists[AREA_SOLID]; c >= 0;
		     c = src->chunks[c].next) {
			const struct area_chunk *chunk = &src->chunks[c];

			s->chunks[c] = *chunk;
			for (int i = 0; i < chunk->count; i++)
				memcpy(&s->objs[chunk->e[i].id],
				       &src->objs[chunk->e[i].id], SNAP_OBJ_BYTES);
		}
	}
}
