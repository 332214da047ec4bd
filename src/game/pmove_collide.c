/*
 * src/game/pmove_collide.c -- what the player's movement collides with
 * (QuakeWorld's pmovetst.c): the physents of a move and the traces and
 * point tests against them.  The movement itself is pmove.c.
 *
 * Design note
 *   At the start of a move the "physents" are gathered once: the world,
 *   then the solid objects (SOLID_BSP, _BBOX,
 *   _SLIDEBOX) whose boxes touch the player's origin +-256, in areanode
 *   order, at most 64 in all, skipping the player and what it owns (MVDSV
 *   AddLinksToPmove).  A brush model is traced through its hull 1, any
 *   other object as its box grown by the player's.  A trace keeps the
 *   nearest hit over all physents (the lowest id wins ties); a trace starting
 *   in solid counts as fraction 0.  This is not world_move: that keeps
 *   fraction 1 for an all-solid trace (pmove's ledge test would then
 *   always double friction), lets point-sized objects through (pmove is
 *   blocked by them: grenades can be stood on) and also skips the owner.
 *   Stock clients predict against the world, brush models and the other
 *   players only, so a box object such as a grenade is a prediction error
 *   on the client either way, as it is with MVDSV.
 *
 *   A crowd costs per trace what is not made once a move: the physents'
 *   cull bounds (pm_cull_bounds) are computed when they are gathered, and
 *   the box hull of the box physents is laid out once a move with only its
 *   six plane distances set per box; a position test asks the box directly
 *   (bsp_box_point_solid, the hull's answer without the walk).  The
 *   results are the same floats the per-trace computation gave.
 *
 *   A speculative move (pmove_run_read) also gathers what it read: the
 *   bounds of every trace and position test, grown by the player's box,
 *   as pm_cull sees them (an object outside them is culled by each), and
 *   the physents' whole box when a new object could change which ones
 *   are kept (near the 64 slots) or when every brush model is asked
 *   (point contents); and each trace's segment and each test's point,
 *   which say more finely whether a changed object could have been met
 *   (pmove_read_touches), with what each answered (the fraction and the
 *   object hit; the object that held the point), so that a changed box
 *   object can be asked again alone (pmove_read_holds): a trace's
 *   answer holds unless the object now wins, or it was the one hit and
 *   now answers otherwise (its whole trace is kept); a test's (held or
 *   clear, whoever holds) unless it held the point and now does not, or
 *   now holds a point that was clear.
 *
 *   Nothing here is global and nothing allocates.
 */
#include "internal.h"

#include <string.h>

/* objects asked of the areanode tree before filtering: more than enough
 * for 63 physents after skipping the player's own missiles */
#define PM_AREA_QUERY_MAX 256

/* ---- physents and traces ------------------------------------------------- */

static bool pm_valid_brush(const struct world *w, const struct world_obj *o)
{
	return o->model >= 0 && o->model < w->map->num_models;
}

/* a box object's box from its placed box (absmin..absmax: the box spread
 * by a unit), spread by 1/16 of a unit: more than the float rounding of
 * the placed box's sums, much less than the unit by which pm_cull spreads
 * a trace's segment (a physent it culls is beyond that unit, where a
 * trace cannot meet it), and close enough that a crowd in contact is not
 * traced for nothing */
#define PM_CULL_IN (1.0f - 1.0f / 16)

/* Where physent o can block the player's reference point, generously, as
 * MVDSV's (brush model bounds spread by a unit, as its loader does; a box
 * object's box from its placed box, which is in the object's first cache
 * line where its mins and maxs are in the second): made once a move,
 * tested by pm_cull for every trace.  MVDSV takes its physents by
 * absmin..absmax likewise. */
static void pm_cull_bounds(const struct pm_ctx *pm, const struct world_obj *o,
			   vec3_t lo, vec3_t hi)
{
	if (o->solid == SOLID_BSP) {
		const struct bsp_model *m = &pm->w->map->models[o->model];

		for (int i = 0; i < 3; i++) {
			lo[i] = o->origin[i] + m->mins[i] - 1 -
				pmove_player_maxs[i];
			hi[i] = o->origin[i] + m->maxs[i] + 1 -
				pmove_player_mins[i];
		}
	} else {
		for (int i = 0; i < 3; i++) {
			lo[i] = o->absmin[i] + PM_CULL_IN - pmove_player_maxs[i];
			hi[i] = o->absmax[i] - PM_CULL_IN - pmove_player_mins[i];
		}
	}
}

/* ---- what a move read (pmove_run_read) ------------------------------------ */

/* the margin beyond pm_cull's bounds: absmin/absmax hold the object's
 * box +-1 and are summed in another order than the cull bounds */
#define PM_READ_MARGIN 2
/* against a box object's own box: the hull walk's DIST_EPSILON (1/32)
 * and the rounding of its coordinates */
#define PM_READ_BOX_MARGIN 0.05f
/* the fraction recorded for a box of positions one object held whole
 * (pm_box_holds: lo..hi as the segment's ends); a test's is -1 */
#define PM_READ_HELD_BOX (-2.0f)

void pm_read_box(const struct pm_ctx *pm, const vec3_t mins, const vec3_t maxs)
{
	struct pmove_read *r = pm->read;

	if (!r)
		return;
	if (!r->any) {
		vec_copy(mins, r->mins);
		vec_copy(maxs, r->maxs);
		r->any = true;
		return;
	}
	for (int k = 0; k < 3; k++) {
		if (mins[k] < r->mins[k])
			r->mins[k] = mins[k];
		if (maxs[k] > r->maxs[k])
			r->maxs[k] = maxs[k];
	}
}

void pm_read_seg(const struct pm_ctx *pm, const vec3_t start, const vec3_t end)
{
	struct pmove_read *r = pm->read;

	if (!r)
		return;
	if (r->num_segs < PMOVE_READ_SEGS) {
		vec_copy(start, r->seg_start[r->num_segs]);
		vec_copy(end, r->seg_end[r->num_segs]);
	}
	r->num_segs++;
}

/* An object placed at [mins, maxs] (absmin..absmax) as the reference
 * point sees it, [lo, hi]: its box grown by the player's (a brush
 * model's hull 1 lies within it too) and by the margin within which a
 * trace or a test can meet it.  A box object's box is absmin + 1 ..
 * absmax - 1 to the float's rounding; a trace meets it only where the
 * reference point comes within DIST_EPSILON of its grown box (the hull
 * walk pulls each split back by that much, so a segment passing 1/32
 * outside a face is still stopped by it: players in contact meet), a
 * test only inside or on a face; so the margin is DIST_EPSILON and
 * rounding. */
static void read_reach(const vec3_t mins, const vec3_t maxs, bool brush,
		       vec3_t lo, vec3_t hi)
{
	float in = brush ? 0 : 1, margin = brush ? PM_READ_MARGIN : PM_READ_BOX_MARGIN;

	for (int k = 0; k < 3; k++) {
		lo[k] = mins[k] + in - pmove_player_maxs[k] - margin;
		hi[k] = maxs[k] - in - pmove_player_mins[k] + margin;
	}
}

/* Does segment i meet [lo, hi] (read_reach's)?  A test's point (most of
 * a stuck player's segments) is compared in place. */
static bool read_seg_meets(const struct pmove_read *r, int i,
			   const vec3_t lo, const vec3_t hi)
{
	const float *a = r->seg_start[i], *b = r->seg_end[i];

	if (r->seg_frac[i] == PM_READ_HELD_BOX)
		return a[0] <= hi[0] && b[0] >= lo[0] && a[1] <= hi[1] &&
		       b[1] >= lo[1] && a[2] <= hi[2] && b[2] >= lo[2];
	if (a[0] == b[0] && a[1] == b[1] && a[2] == b[2])
		return a[0] >= lo[0] && a[0] <= hi[0] && a[1] >= lo[1] &&
		       a[1] <= hi[1] && a[2] >= lo[2] && a[2] <= hi[2];
	return world_segment_meets(a, b, 0, lo, hi);
}

bool pmove_read_touches(const struct pmove_read *r, const vec3_t mins,
			const vec3_t maxs, bool brush)
{
	vec3_t lo, hi;

	if (!r->any)
		return false;
	for (int k = 0; k < 3; k++)
		if (mins[k] > r->maxs[k] || maxs[k] < r->mins[k])
			return false;
	if (r->wide || r->num_segs > PMOVE_READ_SEGS)
		return true;
	read_reach(mins, maxs, brush, lo, hi);
	for (int i = 0; i < r->num_segs; i++)
		if (read_seg_meets(r, i, lo, hi))
			return true;
	return false;
}

/* the answer of the segment pm_read_seg recorded last: a trace's whole
 * result (tr), or a test's (tr NULL) */
static void pm_read_answer(const struct pm_ctx *pm, float frac, int hit,
			   const struct trace *tr)
{
	struct pmove_read *r = pm->read;

	if (!r || r->num_segs < 1 || r->num_segs > PMOVE_READ_SEGS)
		return;
	r->seg_frac[r->num_segs - 1] = frac;
	r->seg_hit[r->num_segs - 1] = hit;
	if (tr)
		r->seg_trace[r->num_segs - 1] = *tr;
}

/* box object o's trace, box its hull (the object's box grown by the
 * player's, around its origin): pm_trace_physent's, and pmove_read_holds'
 * when o changed */
static void pm_trace_box(const struct bsp_box_hull *box,
			 const struct world_obj *o, const vec3_t start,
			 const vec3_t end, struct trace *tr)
{
	vec3_t a, b;

	vec_sub(start, o->origin, a);
	vec_sub(end, o->origin, b);
	bsp_trace_box_hull(box, a, b, tr);
	vec_add(tr->endpos, o->origin, tr->endpos);
}

/* the same answer, bit for bit, but for the physent index */
static bool pm_same_trace(const struct trace *a, const struct trace *b)
{
	return a->allsolid == b->allsolid && a->startsolid == b->startsolid &&
	       a->inopen == b->inopen && a->inwater == b->inwater &&
	       memcmp(&a->fraction, &b->fraction, sizeof(a->fraction)) == 0 &&
	       memcmp(a->endpos, b->endpos, sizeof(a->endpos)) == 0 &&
	       memcmp(&a->plane, &b->plane, sizeof(a->plane)) == 0;
}

bool pmove_read_holds(const struct pmove_read *r, const struct world_obj *o,
		      int self)
{
	struct bsp_box_hull box;
	vec3_t mins, maxs, lo, hi;
	bool blocks, hull_made = false;

	if (r->wide || r->num_segs > PMOVE_READ_SEGS || o->solid == SOLID_BSP)
		return false;
	/* what pm_gather_physents would take of it now */
	blocks = o->linked &&
		 (o->solid == SOLID_BBOX || o->solid == SOLID_SLIDEBOX) &&
		 o->id != self && o->owner != self;
	if (blocks) {
		vec_sub(o->mins, pmove_player_maxs, mins);
		vec_sub(o->maxs, pmove_player_mins, maxs);
		read_reach(o->absmin, o->absmax, false, lo, hi);
	}
	for (int i = 0; i < r->num_segs; i++) {
		float frac = r->seg_frac[i];
		int hit = r->seg_hit[i];
		struct trace tr;
		vec3_t a;

		if (frac < 0) {
			/* a test (its answer is held or clear, whoever
			 * holds): held by an object that did not change, or
			 * by o where o holds the point still; clear, and o
			 * does not hold it now */
			bool held;

			if (hit >= 0 && hit != o->id)
				continue;
			vec_sub(r->seg_start[i], o->origin, a);
			held = blocks && bsp_box_point_solid(mins, maxs, a);
			if (frac == PM_READ_HELD_BOX) {
				/* a box o held whole: both corners still */
				vec3_t b;

				vec_sub(r->seg_end[i], o->origin, b);
				held = held && bsp_box_point_solid(mins, maxs, b);
			}
			if (held != (hit == o->id))
				return false;
			continue;
		}
		if (!blocks) {
			if (hit == o->id)
				return false;
			continue;
		}
		/* a trace that cannot reach o now: o's answer is a miss,
		 * which wins nothing */
		if (hit != o->id && !read_seg_meets(r, i, lo, hi))
			continue;
		/* a trace: o's answer as pm_trace takes a physent's; the one
		 * o gave must come again whole (it still wins: what else
		 * changed is asked alone too) */
		if (!hull_made) {
			bsp_box_hull_init(&box);
			bsp_box_hull_set(&box, mins, maxs);
			hull_made = true;
		}
		pm_trace_box(&box, o, r->seg_start[i], r->seg_end[i], &tr);
		if (tr.allsolid)
			tr.startsolid = true;
		if (tr.startsolid)
			tr.fraction = 0;
		if (hit == o->id) {
			if (!pm_same_trace(&tr, &r->seg_trace[i]))
				return false;
			continue;
		}
		if (tr.fraction < frac ||
		    (tr.fraction == frac && hit > 0 && o->id < hit))
			return false;
	}
	return true;
}

void pm_read_ref(const struct pm_ctx *pm, const vec3_t tmins, const vec3_t tmaxs)
{
	vec3_t mins, maxs;

	if (!pm->read)
		return;
	for (int k = 0; k < 3; k++) {
		mins[k] = tmins[k] + pmove_player_mins[k] - PM_READ_MARGIN;
		maxs[k] = tmaxs[k] + pmove_player_maxs[k] + PM_READ_MARGIN;
	}
	pm_read_box(pm, mins, maxs);
}

#define PM_PHYSENT_RANGE 256
/* what a step can reach beyond its start velocity's travel: acceleration
 * and gravity within 50 ms (under 12 units), a jump (14), a step up or
 * down (18), the nudge (1/8) and the player's box (16 across, 24/32 up),
 * with room to spare */
#define PM_REACH_MARGIN 64

float pmove_reach(float speed, double frametime)
{
	float reach = (float)(2.0 * speed * frametime) + PM_REACH_MARGIN;

	return reach < PM_PHYSENT_RANGE ? reach : PM_PHYSENT_RANGE;
}

void pm_gather_physents(struct pm_ctx *pm,
			       const struct world_obj *self)
{
	struct world_obj *found[PM_AREA_QUERY_MAX];
	vec3_t mins, maxs;
	int n;
	bool boxes = false;

	/* MVDSV gathers within 256 units; nothing beyond what this step can
	 * reach is ever tested, so the box is that reach when it is smaller.
	 * In a crowd that keeps the 63 slots for the players who matter and
	 * the per-trace loop short; the result is the same move. */
	float reach = pmove_reach(pm_length(pm->p->velocity), pm->frametime);

	pm->phys[0] = NULL;
	pm->num_phys = 1;
	for (int i = 0; i < 3; i++) {
		mins[i] = pm->p->origin[i] - reach;
		maxs[i] = pm->p->origin[i] + reach;
	}
	/* the lists' order is the links' history: it may decide only what
	 * is cut, so a crowd too large for the slots is sorted first (the
	 * lowest ids kept) and ties between physents go to the lowest id */
	n = world_area_any(pm->w, mins, maxs, AREA_SOLID, found,
			   PM_AREA_QUERY_MAX);
	if (n > PM_AREA_QUERY_MAX) {
		n = world_area_objs(pm->w, mins, maxs, AREA_SOLID, found,
				    PM_AREA_QUERY_MAX);
		n = PM_AREA_QUERY_MAX;
	} else if (n >= PMOVE_MAX_PHYSENTS) {
		world_objs_sort(found, n);
	}

	vec_copy(mins, pm->gather_min);
	vec_copy(maxs, pm->gather_max);
	/* near the slots' end, an object coming in may push one out */
	if (n >= PMOVE_MAX_PHYSENTS - 1 && pm->read) {
		pm_read_box(pm, mins, maxs);
		pm->read->wide = true;
	}

	for (int i = 0; i < n && pm->num_phys < PMOVE_MAX_PHYSENTS; i++) {
		const struct world_obj *o = found[i];

		if (self && (o == self || o->owner == self->id))
			continue;
		if (o->solid != SOLID_BSP && o->solid != SOLID_BBOX &&
		    o->solid != SOLID_SLIDEBOX)
			continue;
		/* MVDSV stops the server on these; here they block nothing */
		if (o->solid == SOLID_BSP && !pm_valid_brush(pm->w, o))
			continue;
		pm_cull_bounds(pm, o, pm->phys_lo[pm->num_phys],
			       pm->phys_hi[pm->num_phys]);
		if (o->solid != SOLID_BSP)
			boxes = true;
		pm->phys[pm->num_phys++] = o;
	}
	if (boxes)
		bsp_box_hull_init(pm->box);
}

int pm_phys_id(const struct pm_ctx *pm, int i)
{
	return i == 0 ? 0 : pm->phys[i]->id;
}

/* The box physent o as a hull: its box grown by the player's, around its
 * origin, in the hull laid out for the move. */
static const struct bsp_box_hull *pm_box_hull_for(const struct pm_ctx *pm,
						  const struct world_obj *o)
{
	vec3_t mins, maxs;

	vec_sub(o->mins, pmove_player_maxs, mins);
	vec_sub(o->maxs, pmove_player_mins, maxs);
	bsp_box_hull_set(pm->box, mins, maxs);
	return pm->box;
}

/* Can a move within [tmins, tmaxs] (the segment +-1) reach physent i?  Only
 * a shortcut: the bounds (pm_cull_bounds) are generous. */
static bool pm_cull(const struct pm_ctx *pm, int i, const vec3_t tmins,
		    const vec3_t tmaxs)
{
	const float *lo = pm->phys_lo[i], *hi = pm->phys_hi[i];

	for (int k = 0; k < 3; k++)
		if (tmins[k] > hi[k] || tmaxs[k] < lo[k])
			return true;
	return false;
}

static void pm_trace_physent(const struct pm_ctx *pm, int i,
			     const vec3_t start, const vec3_t end,
			     struct trace *tr)
{
	static const vec3_t zero = {0, 0, 0};
	const struct world_obj *o = pm->phys[i];

	if (!o || o->solid == SOLID_BSP) {
		bsp_trace_box(pm->w->map, o ? o->model : 0,
			      o ? o->origin : zero, pmove_player_mins,
			      pmove_player_maxs, start, end, tr);
		return;
	}
	pm_trace_box(pm_box_hull_for(pm, o), o, start, end, tr);
}

/* tr->ent is a physent index (pm_phys_id turns it into an object id) */
void pm_trace(const struct pm_ctx *pm, const vec3_t start,
		     const vec3_t end, struct trace *total)
{
	vec3_t tmins, tmaxs;

	memset(total, 0, sizeof(*total));
	total->fraction = 1;
	total->ent = -1;
	vec_copy(end, total->endpos);

	for (int i = 0; i < 3; i++) {
		tmins[i] = (end[i] > start[i] ? start[i] : end[i]) - 1;
		tmaxs[i] = (end[i] > start[i] ? end[i] : start[i]) + 1;
	}
	pm_read_ref(pm, tmins, tmaxs);
	pm_read_seg(pm, start, end);

	for (int i = 0; i < pm->num_phys; i++) {
		struct trace tr;

		if (i > 0 && pm_cull(pm, i, tmins, tmaxs))
			continue;
		pm_trace_physent(pm, i, start, end, &tr);
		if (tr.allsolid)
			tr.startsolid = true;
		if (tr.startsolid)
			tr.fraction = 0;
		/* equal fractions: the lower id (the world, physent 0, first) */
		if (tr.fraction < total->fraction ||
		    (tr.fraction == total->fraction && i > 0 && total->ent > 0 &&
		     pm->phys[i]->id < pm->phys[total->ent]->id)) {
			*total = tr;
			total->ent = i;
		}
	}
	pm_read_answer(pm, total->fraction,
		       total->ent >= 0 ? pm_phys_id(pm, total->ent) : -1, total);
}

/* PM_TestPlayerPosition: is the player box at pos clear of every physent?
 * The answer is the same in any order, so the box physents are asked
 * first (a few compares each) and the brush models' hulls (a walk down
 * the clip tree, some 300 instructions on a real map) only when every box
 * left pos clear: a dead player lying under a live one (a corpse is not
 * solid, the player standing in it is) fails all 45 of the nudge's tests
 * on a box, and in a crowd most dead players do. */
static int pm_position_held_by(const struct pm_ctx *pm, const vec3_t pos)
{
	vec3_t pmins, pmaxs, test;

	/* the same generous bounds test as pm_trace: a physent whose grown
	 * box is more than a unit away cannot hold pos (in a crowd most of
	 * the 64 are; the exact test below is then skipped, the result is
	 * the same) */
	for (int k = 0; k < 3; k++) {
		pmins[k] = pos[k] - 1;
		pmaxs[k] = pos[k] + 1;
	}
	pm_read_ref(pm, pmins, pmaxs);
	for (int i = 1; i < pm->num_phys; i++) {
		const struct world_obj *o = pm->phys[i];
		vec3_t mins, maxs;

		if (o->solid == SOLID_BSP || pm_cull(pm, i, pmins, pmaxs))
			continue;
		vec_sub(o->mins, pmove_player_maxs, mins);
		vec_sub(o->maxs, pmove_player_mins, maxs);
		vec_sub(pos, o->origin, test);
		if (bsp_box_point_solid(mins, maxs, test))
			return o->id;
	}
	for (int i = 0; i < pm->num_phys; i++) {
		const struct world_obj *o = pm->phys[i];
		const struct bsp_hull *hull;
		vec3_t offset;

		if (o && (o->solid != SOLID_BSP || pm_cull(pm, i, pmins, pmaxs)))
			continue;
		hull = &pm->w->map->models[o ? o->model : 0].hulls[1];
		vec_sub(hull->clip_mins, pmove_player_mins, offset);
		if (o)
			vec_add(offset, o->origin, offset);
		vec_sub(pos, offset, test);
		if (bsp_hull_point_contents(hull, hull->firstclipnode, test) ==
		    CONTENTS_SOLID)
			return o ? o->id : 0;
	}
	return -1;
}

bool pm_position_clear(const struct pm_ctx *pm, const vec3_t pos)
{
	int by;

	pm_read_seg(pm, pos, pos);
	by = pm_position_held_by(pm, pos);
	pm_read_answer(pm, -1, by, NULL);
	return by < 0;
}

/* Does one box physent hold every point of lo..hi (each axis between the
 * two)?  bsp_box_point_solid's tests are per axis and the subtraction
 * keeps the order of floats, so a box solid at both corners is solid at
 * every point between: pm_position_clear would fail at each.  A
 * speculative move records the box and the one that holds it (only when
 * one does: else the tests that follow say the same). */
bool pm_box_holds(const struct pm_ctx *pm, const vec3_t lo, const vec3_t hi)
{
	for (int i = 1; i < pm->num_phys; i++) {
		const struct world_obj *o = pm->phys[i];
		vec3_t mins, maxs, a, b;

		if (o->solid == SOLID_BSP)
			continue;
		vec_sub(o->mins, pmove_player_maxs, mins);
		vec_sub(o->maxs, pmove_player_mins, maxs);
		vec_sub(lo, o->origin, a);
		vec_sub(hi, o->origin, b);
		if (bsp_box_point_solid(mins, maxs, a) &&
		    bsp_box_point_solid(mins, maxs, b)) {
			if (pm->read) {
				vec3_t rlo, rhi;

				for (int k = 0; k < 3; k++) {
					rlo[k] = lo[k] - 1;
					rhi[k] = hi[k] + 1;
				}
				pm_read_ref(pm, rlo, rhi);
				pm_read_seg(pm, lo, hi);
				pm_read_answer(pm, PM_READ_HELD_BOX, o->id, NULL);
			}
			return true;
		}
	}
	return false;
}

/* PM_PointContents_AllBSPs: solid if any brush model is solid at p, else
 * the first non-empty contents (the world's liquids, mostly) */
int pm_contents_all_brushes(const struct pm_ctx *pm, const vec3_t p)
{
	int final = CONTENTS_EMPTY;

	/* every brush physent is asked, culled by nothing */
	pm_read_box(pm, pm->gather_min, pm->gather_max);
	if (pm->read)
		pm->read->wide = true;

	for (int i = 0; i < pm->num_phys; i++) {
		const struct world_obj *o = pm->phys[i];
		const struct bsp_hull *hull;
		vec3_t test;
		int c;

		if (o && o->solid != SOLID_BSP)
			continue;
		hull = &pm->w->map->models[o ? o->model : 0].hulls[0];
		if (o)
			vec_sub(p, o->origin, test);
		else
			vec_copy(p, test);
		c = bsp_hull_point_contents(hull, hull->firstclipnode, test);
		if (c == CONTENTS_SOLID)
			return CONTENTS_SOLID;
		if (final == CONTENTS_EMPTY)
			final = c;
	}
	return final;
}

void pm_add_touch(struct pm_ctx *pm, int physent)
{
	struct pmove_result *res = pm->res;
	int id;

	if (physent <= 0)
		return;	/* the world has nothing to touch */
	id = pm_phys_id(pm, physent);
	for (int i = 0; i < res->num_touch; i++)
		if (res->touch[i] == id)
			return;
	if (res->num_touch < PMOVE_MAX_TOUCH)
		res->touch[res->num_touch++] = id;
}
