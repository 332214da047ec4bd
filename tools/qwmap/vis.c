/*
 * vis.c -- the potentially visible set, by recursive portal flow.
 *
 * Design note
 *   Every portal between two open leafs (empty or liquid: liquids are
 *   treated as transparent, sky and solid block sight) is used once in
 *   each direction.  A directed portal's plane points into the leaf it
 *   leads to.  For each directed portal P the flow finds the portals that
 *   some straight line through P can reach (the classic algorithm of id's
 *   vis, written anew here):
 *
 *   1. might-see (a cheap flood): from P's leaf onwards, through portals Q
 *      that have a point in front of P and leave a point of P behind them.
 *      A line leaving P forward can only cross such portals.
 *   2. the flow: a depth-first walk from P through leafs, carrying the
 *      source (P, cut down as the walk goes) and the pass (the last portal
 *      crossed, cut down too).  To go on through portal Q of the current
 *      leaf, with lines running source -> pass -> Q:
 *        - the source keeps only its part behind Q's plane (a line crosses
 *          Q from behind), the target Q only its part in front of the
 *          pass's plane;
 *        - Q is cut by the separating planes of source and pass: planes
 *          through an edge of one and a point of the other with each
 *          wholly on its own side.  Every line through both stays on the
 *          pass's side of such a plane beyond the pass, so what lies on
 *          the other side of it cannot be reached (both orders are used).
 *      Whatever is left of Q is seen; the walk continues through it.
 *      Cutting only ever removes points no line through the source and the
 *      pass reaches, so nothing that can be seen is hidden: the result is
 *      conservative, and it is what full vis computes.  Lines that only
 *      graze a plane (a source lying in Q's plane) see nothing through it.
 *   Portals are processed from the one that might see least to the one
 *   that might see most; a finished portal's own result replaces its
 *   might-see set in later walks, which prunes them (anything seen through
 *   P and then Q is also seen from Q).  The walk keeps one frame per depth
 *   in an array, not on the C stack, and never revisits a portal on one
 *   path (a portal is never in its own might-see set).
 *
 *   Windings are convex polygons of at most VIS_MAX_POINTS points; a cut
 *   that would exceed that is skipped (keeping more is always safe).
 *   Points within VIS_EPSILON of a plane count as on it and are kept.
 *
 *   A leaf's PVS row: itself, the leafs behind its portals and behind every
 *   portal those see.  Rows are run-length coded as Quake reads them (a
 *   zero byte is followed by the count of zero bytes it stands for, at
 *   most 255) and identical rows are stored once.
 */
#include "qwmap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { VIS_MAX_POINTS = 48 };

#define VIS_EPSILON 0.05

struct vplane {
	double n[3];
	double d;
};

struct winding {
	int n;
	double p[VIS_MAX_POINTS][3];
};

struct vportal {
	struct vplane plane;	/* normal into 'to' */
	struct winding w;
	int from, to;		/* vis leaf indices */
	uint8_t *might;
	uint8_t *seen;
	int num_might;
	bool done;
};

struct frame {
	uint8_t *might;
	struct winding source, pass;
};

struct vis_state {
	struct vportal *portals;
	int num_portals;
	int bytes;		/* portal bitset bytes */
	int *leaf_first, *leaf_list;	/* outgoing portals per leaf (CSR) */
	int num_leafs;
	struct frame **frames;
	int num_frames, cap_frames;
	struct vportal *base;	/* portal being flowed */
};

static double plane_dist(const struct vplane *pl, const double *p)
{
	return pl->n[0] * p[0] + pl->n[1] * p[1] + pl->n[2] * p[2] - pl->d;
}

/* Keep the part of w in front of pl (distance >= -epsilon) into out.
 * Returns the number of points (0: nothing left).  *on is set when every
 * point lies on the plane. */
static int clip_front(const struct winding *w, const struct vplane *pl,
		      struct winding *out, bool *on)
{
	double dist[VIS_MAX_POINTS + 1];
	int side[VIS_MAX_POINTS + 1];
	int nfront = 0, nback = 0;
	struct winding tmp;

	for (int i = 0; i < w->n; i++) {
		dist[i] = plane_dist(pl, w->p[i]);
		side[i] = dist[i] > VIS_EPSILON ? 1 : dist[i] < -VIS_EPSILON ? -1 : 0;
		nfront += side[i] == 1;
		nback += side[i] == -1;
	}
	if (on)
		*on = nfront == 0 && nback == 0;
	if (nback == 0) {
		if (out != w)
			*out = *w;
		return w->n;
	}
	if (nfront == 0) {
		out->n = 0;
		return 0;
	}
	dist[w->n] = dist[0];
	side[w->n] = side[0];
	tmp.n = 0;
	for (int i = 0; i < w->n; i++) {
		const double *p = w->p[i];

		if (side[i] >= 0) {
			if (tmp.n >= VIS_MAX_POINTS)
				goto too_many;
			memcpy(tmp.p[tmp.n++], p, sizeof(tmp.p[0]));
		}
		if (side[i] == 0 || side[i + 1] == 0 || side[i + 1] == side[i])
			continue;
		/* the edge crosses the plane strictly: add the crossing */
		const double *q = w->p[(i + 1) % w->n];
		double f = dist[i] / (dist[i] - dist[i + 1]);

		if (tmp.n >= VIS_MAX_POINTS)
			goto too_many;
		for (int k = 0; k < 3; k++)
			tmp.p[tmp.n][k] = p[k] + f * (q[k] - p[k]);
		tmp.n++;
	}
	*out = tmp;
	return out->n;
too_many:
	if (out != w)
		*out = *w;
	return w->n;
}

/* Cut target by the separating planes of a (behind) and b (in front);
 * flip keeps the other side.  Returns false when nothing is left. */
static bool clip_separators(const struct winding *a, const struct winding *b,
			    bool flip, struct winding *target)
{
	for (int i = 0; i < a->n; i++) {
		int i2 = (i + 1) % a->n;
		double e[3];

		for (int k = 0; k < 3; k++)
			e[k] = a->p[i2][k] - a->p[i][k];
		for (int j = 0; j < b->n; j++) {
			struct vplane pl;
			double v[3], len;
			int k;
			bool a_front = false;

			for (k = 0; k < 3; k++)
				v[k] = b->p[j][k] - a->p[i][k];
			pl.n[0] = e[1] * v[2] - e[2] * v[1];
			pl.n[1] = e[2] * v[0] - e[0] * v[2];
			pl.n[2] = e[0] * v[1] - e[1] * v[0];
			len = sqrt(pl.n[0] * pl.n[0] + pl.n[1] * pl.n[1] + pl.n[2] * pl.n[2]);
			if (len < 1e-6)
				continue;
			for (k = 0; k < 3; k++)
				pl.n[k] /= len;
			pl.d = pl.n[0] * a->p[i][0] + pl.n[1] * a->p[i][1] + pl.n[2] * a->p[i][2];
			/* which side is a on?  (a is convex and the plane holds one
			 * of its edges, so one point off the plane tells) */
			for (k = 0; k < a->n; k++) {
				double d;

				if (k == i || k == i2)
					continue;
				d = plane_dist(&pl, a->p[k]);
				if (d < -VIS_EPSILON)
					break;
				if (d > VIS_EPSILON) {
					a_front = true;
					break;
				}
			}
			if (k == a->n)
				continue;	/* a lies in the plane: no separator */
			if (a_front) {
				for (k = 0; k < 3; k++)
					pl.n[k] = -pl.n[k];
				pl.d = -pl.d;
			}
			/* b must be wholly in front */
			for (k = 0; k < b->n; k++)
				if (k != j && plane_dist(&pl, b->p[k]) < -VIS_EPSILON)
					break;
			if (k < b->n)
				continue;
			if (flip) {
				for (k = 0; k < 3; k++)
					pl.n[k] = -pl.n[k];
				pl.d = -pl.d;
			}
			if (clip_front(target, &pl, target, NULL) == 0)
				return false;
		}
	}
	return true;
}

static struct frame *get_frame(struct vis_state *vs, int depth)
{
	while (vs->num_frames <= depth) {
		struct frame *f = qm_calloc(1, sizeof(*f));

		f->might = qm_calloc((size_t)vs->bytes, 1);
		*QM_PUSH(vs->frames, vs->num_frames, vs->cap_frames) = f;
	}
	return vs->frames[depth];
}

static bool bit(const uint8_t *set, int i)
{
	return set[i >> 3] & (1u << (i & 7));
}

static void flow(struct vis_state *vs, int leaf, int depth,
		 const struct winding *source, const struct winding *pass,
		 const struct vplane *pass_plane, const uint8_t *might)
{
	struct vportal *base = vs->base;
	struct frame *fr = get_frame(vs, depth);

	for (int k = vs->leaf_first[leaf]; k < vs->leaf_first[leaf + 1]; k++) {
		int qi = vs->leaf_list[k];
		struct vportal *q = &vs->portals[qi];
		const uint8_t *test = q->done ? q->seen : q->might;
		bool more = false, on;
		struct vplane back;

		if (!bit(might, qi))
			continue;
		for (int j = 0; j < vs->bytes; j++) {
			fr->might[j] = might[j] & test[j];
			if (fr->might[j] & ~base->seen[j])
				more = true;
		}
		if (!more && bit(base->seen, qi))
			continue;
		/* the source's part behind q */
		for (int j = 0; j < 3; j++)
			back.n[j] = -q->plane.n[j];
		back.d = -q->plane.d;
		if (clip_front(source, &back, &fr->source, &on) == 0 || on)
			continue;
		if (!pass) {
			base->seen[qi >> 3] |= (uint8_t)(1u << (qi & 7));
			flow(vs, q->to, depth + 1, &fr->source, &q->w, &q->plane, fr->might);
			continue;
		}
		if (clip_front(&q->w, pass_plane, &fr->pass, &on) == 0 || on)
			continue;
		if (!clip_separators(&fr->source, pass, false, &fr->pass))
			continue;
		if (!clip_separators(pass, &fr->source, true, &fr->pass))
			continue;
		base->seen[qi >> 3] |= (uint8_t)(1u << (qi & 7));
		flow(vs, q->to, depth + 1, &fr->source, &fr->pass, &q->plane, fr->might);
	}
}

/* might-see flood of portal p (see the note) */
static void might_see(struct vis_state *vs, int pi, bool *leaf_seen, int *stack)
{
	struct vportal *p = &vs->portals[pi];
	int sp = 0;

	memset(leaf_seen, 0, (size_t)vs->num_leafs * sizeof(bool));
	leaf_seen[p->to] = true;
	stack[sp++] = p->to;
	while (sp > 0) {
		int leaf = stack[--sp];

		for (int k = vs->leaf_first[leaf]; k < vs->leaf_first[leaf + 1]; k++) {
			int qi = vs->leaf_list[k];
			struct vportal *q = &vs->portals[qi];
			int i;

			if (bit(p->might, qi))
				continue;
			for (i = 0; i < q->w.n; i++)
				if (plane_dist(&p->plane, q->w.p[i]) > VIS_EPSILON)
					break;
			if (i == q->w.n)
				continue;
			for (i = 0; i < p->w.n; i++)
				if (plane_dist(&q->plane, p->w.p[i]) < -VIS_EPSILON)
					break;
			if (i == p->w.n)
				continue;
			p->might[qi >> 3] |= (uint8_t)(1u << (qi & 7));
			p->num_might++;
			if (!leaf_seen[q->to]) {
				leaf_seen[q->to] = true;
				stack[sp++] = q->to;
			}
		}
	}
}

size_t qm_vis_compress(const uint8_t *row, size_t bytes, uint8_t *out)
{
	size_t o = 0;

	for (size_t i = 0; i < bytes; i++) {
		if (row[i]) {
			out[o++] = row[i];
			continue;
		}
		size_t run = 1;

		while (i + run < bytes && row[i + run] == 0 && run < 255)
			run++;
		out[o++] = 0;
		out[o++] = (uint8_t)run;
		i += run - 1;
	}
	return o;
}

static int cmp_by_might(const void *a, const void *b, void *arg)
{
	const struct vportal *p = arg;
	int x = *(const int *)a, y = *(const int *)b;

	if (p[x].num_might != p[y].num_might)
		return p[x].num_might < p[y].num_might ? -1 : 1;
	return (x > y) - (x < y);
}

static void make_portals(struct vis_state *vs, const struct qm_portal *qp,
			 int nqp, const int *vis_of_leaf)
{
	vs->num_portals = nqp * 2;
	vs->portals = qm_calloc((size_t)vs->num_portals, sizeof(struct vportal));
	for (int i = 0; i < nqp; i++) {
		const struct qm_portal *q = &qp[i];
		int a = q->axis, u = a == 0 ? 1 : 0, v = a == 2 ? 1 : 2;
		double c[4][2] = {
			{q->lo[0], q->lo[1]}, {q->lo[0], q->hi[1]},
			{q->hi[0], q->hi[1]}, {q->hi[0], q->lo[1]}
		};

		for (int s = 0; s < 2; s++) {
			struct vportal *p = &vs->portals[i * 2 + s];

			/* s = 0 leads upwards, from leaf[0] into leaf[1] */
			p->from = vis_of_leaf[q->leaf[s]];
			p->to = vis_of_leaf[q->leaf[1 - s]];
			p->plane.n[a] = s == 0 ? 1 : -1;
			p->plane.d = s == 0 ? q->dist : -q->dist;
			p->w.n = 4;
			for (int k = 0; k < 4; k++) {
				p->w.p[k][a] = q->dist;
				p->w.p[k][u] = c[k][0];
				p->w.p[k][v] = c[k][1];
			}
			p->might = qm_calloc((size_t)vs->bytes, 1);
			p->seen = qm_calloc((size_t)vs->bytes, 1);
		}
	}
	/* outgoing portals per leaf, in portal order */
	vs->leaf_first = qm_calloc((size_t)vs->num_leafs + 1, sizeof(int));
	vs->leaf_list = qm_calloc((size_t)vs->num_portals + 1, sizeof(int));
	for (int i = 0; i < vs->num_portals; i++)
		vs->leaf_first[vs->portals[i].from + 1]++;
	for (int i = 0; i < vs->num_leafs; i++)
		vs->leaf_first[i + 1] += vs->leaf_first[i];
	int *fill = qm_calloc((size_t)vs->num_leafs + 1, sizeof(int));

	for (int i = 0; i < vs->num_portals; i++) {
		int l = vs->portals[i].from;

		vs->leaf_list[vs->leaf_first[l] + fill[l]++] = i;
	}
	free(fill);
}

/* compressed rows, identical rows shared */
struct row_store {
	uint8_t *data;
	int size, cap;
	int *slots;		/* hash table of row starts, -1 empty */
	int *lens;
	int num_slots;
};

static int32_t row_store_add(struct row_store *rs, const uint8_t *c, int len)
{
	uint32_t h = qm_hash(c, (size_t)len);
	int mask = rs->num_slots - 1;

	for (int i = (int)(h & (uint32_t)mask);; i = (i + 1) & mask) {
		int s = rs->slots[i];

		if (s < 0) {
			int ofs = rs->size;

			qm_grow(&rs->data, &rs->cap, rs->size + len, 1);
			memcpy(rs->data + rs->size, c, (size_t)len);
			rs->size += len;
			rs->slots[i] = ofs;
			rs->lens[i] = len;
			return ofs;
		}
		if (rs->lens[i] == len && memcmp(rs->data + s, c, (size_t)len) == 0)
			return s;
	}
}

int qm_vis_build(struct qm_ctx *ctx, const struct qm_tree *t,
		 const int *leaf_order, int n, struct qm_vis *out)
{
	struct vis_state vs;
	struct qm_portal *qp = NULL;
	int nqp, *vis_of_leaf, *order, *stack;
	bool *leaf_seen;
	size_t row_bytes = ((size_t)n + 7) / 8;
	uint8_t *row, *comp;
	struct row_store rs;

	(void)ctx;
	memset(out, 0, sizeof(*out));
	memset(&vs, 0, sizeof(vs));
	vs.num_leafs = n;
	vis_of_leaf = qm_calloc((size_t)t->num_leafs, sizeof(int));
	for (int i = 0; i < t->num_leafs; i++)
		vis_of_leaf[i] = -1;
	for (int i = 0; i < n; i++)
		vis_of_leaf[leaf_order[i]] = i;
	nqp = qm_tree_portals(t, qm_open_hull0, &qp);
	vs.bytes = (nqp * 2 + 7) / 8 + 1;
	make_portals(&vs, qp, nqp, vis_of_leaf);
	free(qp);

	leaf_seen = qm_calloc((size_t)n + 1, sizeof(bool));
	stack = qm_calloc((size_t)n + 1, sizeof(int));
	for (int i = 0; i < vs.num_portals; i++)
		might_see(&vs, i, leaf_seen, stack);
	order = qm_calloc((size_t)vs.num_portals + 1, sizeof(int));
	for (int i = 0; i < vs.num_portals; i++)
		order[i] = i;
	qsort_r(order, (size_t)vs.num_portals, sizeof(int), cmp_by_might, vs.portals);
	for (int i = 0; i < vs.num_portals; i++) {
		struct vportal *p = &vs.portals[order[i]];

		vs.base = p;
		flow(&vs, p->to, 0, &p->w, NULL, NULL, p->might);
		p->done = true;
	}

	/* rows */
	row = qm_calloc(row_bytes + 1, 1);
	comp = qm_calloc(row_bytes * 2 + 4, 1);
	memset(&rs, 0, sizeof(rs));
	rs.num_slots = 16;
	while (rs.num_slots < n * 2)
		rs.num_slots *= 2;
	rs.slots = qm_calloc((size_t)rs.num_slots, sizeof(int));
	rs.lens = qm_calloc((size_t)rs.num_slots, sizeof(int));
	for (int i = 0; i < rs.num_slots; i++)
		rs.slots[i] = -1;
	out->ofs = qm_calloc((size_t)n + 1, sizeof(int32_t));
	out->num_leafs = n;
	out->num_portals = vs.num_portals;
	for (int l = 0; l < n; l++) {
		memset(row, 0, row_bytes);
		row[l >> 3] |= (uint8_t)(1u << (l & 7));
		for (int k = vs.leaf_first[l]; k < vs.leaf_first[l + 1]; k++) {
			const struct vportal *p = &vs.portals[vs.leaf_list[k]];

			row[p->to >> 3] |= (uint8_t)(1u << (p->to & 7));
			for (int b = 0; b < vs.bytes; b++) {
				if (!p->seen[b])
					continue;
				for (int q = b * 8; q < b * 8 + 8 && q < vs.num_portals; q++) {
					int to = vs.portals[q].to;

					if (bit(p->seen, q))
						row[to >> 3] |= (uint8_t)(1u << (to & 7));
				}
			}
		}
		for (size_t b = 0; b < row_bytes; b++)
			out->visible += __builtin_popcount(row[b]);
		size_t len = qm_vis_compress(row, row_bytes, comp);

		out->ofs[l] = row_store_add(&rs, comp, (int)len);
	}
	out->data = rs.data;
	out->size = (size_t)rs.size;

	free(rs.slots);
	free(rs.lens);
	free(row);
	free(comp);
	free(order);
	free(stack);
	free(leaf_seen);
	free(vis_of_leaf);
	for (int i = 0; i < vs.num_portals; i++) {
		free(vs.portals[i].might);
		free(vs.portals[i].seen);
	}
	free(vs.portals);
	free(vs.leaf_first);
	free(vs.leaf_list);
	for (int i = 0; i < vs.num_frames; i++) {
		free(vs.frames[i]->might);
		free(vs.frames[i]);
	}
	free(vs.frames);
	return 0;
}

void qm_vis_free(struct qm_vis *v)
{
	free(v->data);
	free(v->ofs);
	memset(v, 0, sizeof(*v));
}
