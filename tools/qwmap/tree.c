/*
 * tree.c -- BSP trees of box leafs built from box brushes; portals between
 * leafs; outside filling; merging of equal siblings.
 *
 * Design note
 *   Building.  A node owns a box region and the brushes that overlap it
 *   with volume.  Among the brushes that contain the whole region, the
 *   strongest (qm_contents_rank) decides the region's contents unless a
 *   stronger brush only partly covers it; those stronger brushes are the
 *   "relevant" ones.  With none, the region is a leaf whose contents is
 *   exact: every point of it has the same strongest brush.  Otherwise a
 *   relevant brush has a face strictly inside the region (it overlaps but
 *   does not contain it), so a split always exists and always makes
 *   progress; the recursion ends.  Weaker brushes never matter inside a
 *   region a stronger brush contains, so they are dropped from the lists.
 *
 *   The split plane is chosen among the relevant brushes' faces: for each
 *   axis the faces are sorted and swept, counting the brushes wholly in
 *   front, wholly behind and split; the score is 4 * split + |front - back|
 *   (few brush splits first, then balance, which keeps the tree shallow).
 *   Ties go to the lower axis, then the lower coordinate: deterministic,
 *   O(n log n) per node.
 *
 *   Leafs are boxes, so the neighbours of a leaf across one of its faces
 *   are found by walking the tree with that face's rectangle; a portal is
 *   the overlap rectangle of two open neighbours.  A face lying on the
 *   border of the root region has the void beyond it.
 *
 *   Outside filling (qbsp's FillOutside): the root region is the model's
 *   brush bounds plus a margin, so the void around the map is made of real
 *   leafs touching the region's border.  A breadth-first flood through
 *   portals from those leafs marks everything the outside can reach; if
 *   an occupied leaf (a point entity) is reached the map leaks and the
 *   path back to the void is reported, else the reached leafs turn solid.
 *
 *   Merging: a node whose two children are leafs of the same contents,
 *   solid or empty, becomes one leaf (their union is the node's box).
 *   Liquid and sky leafs are kept apart so each keeps a brush that holds
 *   it, which the faces need for textures.  Merged leafs remember what they
 *   became (qm_tree_final_leaf), so faces built before merging still find
 *   their leaf.  A node separating two different contents is never merged,
 *   so the node a face lies on survives.
 */
#include "qwmap.h"

#include <stdlib.h>
#include <string.h>

struct builder {
	struct qm_ctx *ctx;
	struct qm_tree *t;
	const struct qm_box *boxes;
	bool failed;
};

static bool box_contains(const struct qm_box *b, const double mins[3],
			 const double maxs[3])
{
	for (int k = 0; k < 3; k++)
		if (b->mins[k] > mins[k] || b->maxs[k] < maxs[k])
			return false;
	return true;
}

static int new_leaf(struct qm_tree *t, int contents, int brush,
		    const double mins[3], const double maxs[3])
{
	struct qm_leaf *l = QM_PUSH(t->leafs, t->num_leafs, t->cap_leafs);

	memset(l, 0, sizeof(*l));
	l->contents = contents;
	l->brush = brush;
	memcpy(l->mins, mins, sizeof(l->mins));
	memcpy(l->maxs, maxs, sizeof(l->maxs));
	l->merged = t->num_leafs - 1;
	return -1 - (t->num_leafs - 1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Pick the split among the relevant boxes' faces strictly inside the
 * region.  Returns false only if there is none (cannot happen for a
 * relevant box; checked anyway). */
static bool choose_plane(const struct qm_box *boxes, const int *rel, int m,
			 const double mins[3], const double maxs[3],
			 int *axis_out, double *dist_out)
{
	double *lo = qm_calloc((size_t)m * 2, sizeof(double));
	double *hi = lo + m;
	long long best = -1;

	for (int a = 0; a < 3; a++) {
		int il = 0, ih = 0, i = 0, j = 0;
		double prev = 0;
		bool have_prev = false;

		for (int k = 0; k < m; k++) {
			lo[k] = boxes[rel[k]].mins[a];
			hi[k] = boxes[rel[k]].maxs[a];
		}
		qsort(lo, (size_t)m, sizeof(double), cmp_double);
		qsort(hi, (size_t)m, sizeof(double), cmp_double);
		/* walk the merged, increasing list of candidate values */
		while (i < m || j < m) {
			double v;

			if (j >= m || (i < m && lo[i] <= hi[j]))
				v = lo[i++];
			else
				v = hi[j++];
			if (have_prev && v == prev)
				continue;
			prev = v;
			have_prev = true;
			if (v <= mins[a] || v >= maxs[a])
				continue;
			while (ih < m && hi[ih] <= v)
				ih++;
			while (il < m && lo[il] < v)
				il++;
			long long back = ih, front = m - il;
			long long split = m - back - front;
			long long diff = front > back ? front - back : back - front;
			long long score = split * 4 + diff;

			if (best < 0 || score < best) {
				best = score;
				*axis_out = a;
				*dist_out = v;
			}
		}
	}
	free(lo);
	return best >= 0;
}

static int build_node(struct builder *b, const int *list, int n,
		      const double mins[3], const double maxs[3], int depth)
{
	const struct qm_box *boxes = b->boxes;
	struct qm_tree *t = b->t;
	int best = -1, best_rank = 0, m = 0, axis = 0, code;
	double dist = 0;
	int *rel;

	for (int i = 0; i < n; i++) {
		const struct qm_box *bx = &boxes[list[i]];
		int r = qm_contents_rank(bx->contents);

		if (r > best_rank && box_contains(bx, mins, maxs)) {
			best_rank = r;
			best = list[i];
		}
	}
	rel = qm_calloc((size_t)n + 1, sizeof(int));
	for (int i = 0; i < n; i++)
		if (qm_contents_rank(boxes[list[i]].contents) > best_rank)
			rel[m++] = list[i];
	if (m == 0 || b->failed) {
		free(rel);
		return new_leaf(t, best >= 0 ? boxes[best].contents : CONTENTS_EMPTY,
				best >= 0 ? boxes[best].brush : -1, mins, maxs);
	}
	if (depth >= QM_MAX_DEPTH || !choose_plane(boxes, rel, m, mins, maxs, &axis, &dist)) {
		if (!b->failed)
			qm_fail(b->ctx, 0, "BSP tree deeper than %d nodes: the map is too complex",
				QM_MAX_DEPTH);
		b->failed = true;
		free(rel);
		return new_leaf(t, CONTENTS_SOLID, -1, mins, maxs);
	}
	if (depth + 1 > t->depth)
		t->depth = depth + 1;

	/* the children's lists: the containing box, then the relevant ones
	 * that reach into each half */
	int *kids = qm_calloc((size_t)m + 1, sizeof(int));
	int nk, node = t->num_nodes;
	struct qm_node *nd = QM_PUSH(t->nodes, t->num_nodes, t->cap_nodes);
	double cmin[3], cmax[3];
	int child[2];

	nd->axis = axis;
	nd->dist = dist;
	memcpy(nd->mins, mins, sizeof(nd->mins));
	memcpy(nd->maxs, maxs, sizeof(nd->maxs));
	for (int side = 0; side < 2; side++) {
		nk = 0;
		if (best >= 0)
			kids[nk++] = best;
		for (int i = 0; i < m; i++) {
			const struct qm_box *bx = &boxes[rel[i]];

			if (side == 0 ? bx->maxs[axis] > dist : bx->mins[axis] < dist)
				kids[nk++] = rel[i];
		}
		memcpy(cmin, mins, sizeof(cmin));
		memcpy(cmax, maxs, sizeof(cmax));
		if (side == 0)
			cmin[axis] = dist;
		else
			cmax[axis] = dist;
		child[side] = build_node(b, kids, nk, cmin, cmax, depth + 1);
	}
	t->nodes[node].child[0] = child[0];
	t->nodes[node].child[1] = child[1];
	code = node;
	free(kids);
	free(rel);
	return code;
}

int qm_tree_build(struct qm_ctx *ctx, struct qm_tree *t,
		  const struct qm_box *boxes, int num_boxes,
		  const double mins[3], const double maxs[3])
{
	struct builder b = {ctx, t, boxes, false};
	int *list = qm_calloc((size_t)num_boxes + 1, sizeof(int));
	int n = 0;

	memset(t, 0, sizeof(*t));
	memcpy(t->mins, mins, sizeof(t->mins));
	memcpy(t->maxs, maxs, sizeof(t->maxs));
	for (int i = 0; i < num_boxes; i++) {
		bool inside = true;

		for (int k = 0; k < 3; k++)
			if (boxes[i].maxs[k] <= mins[k] || boxes[i].mins[k] >= maxs[k])
				inside = false;
		if (inside)
			list[n++] = i;
	}
	t->root = build_node(&b, list, n, mins, maxs, 0);
	free(list);
	return b.failed ? -1 : 0;
}

void qm_tree_free(struct qm_tree *t)
{
	free(t->nodes);
	free(t->leafs);
	memset(t, 0, sizeof(*t));
}

int qm_tree_point_leaf(const struct qm_tree *t, const double p[3])
{
	int code = t->root;

	while (code >= 0) {
		const struct qm_node *n = &t->nodes[code];

		code = n->child[p[n->axis] >= n->dist ? 0 : 1];
	}
	return -1 - code;
}

/* ---- neighbours and portals ------------------------------------------ */

struct query {
	const struct qm_tree *t;
	int axis;		/* the face's axis */
	double d;		/* the face's plane */
	int high;		/* 1: looking at the space just above d */
	double lo[3], hi[3];	/* the face rectangle (axis entry unused) */
	int **out;
	int *cap;
	int count;
};

static void query_walk(struct query *q, int code)
{
	while (code >= 0) {
		const struct qm_node *n = &q->t->nodes[code];

		if (n->axis == q->axis) {
			bool front = q->high ? q->d >= n->dist : q->d > n->dist;

			code = n->child[front ? 0 : 1];
			continue;
		}
		bool f = q->hi[n->axis] > n->dist, bk = q->lo[n->axis] < n->dist;

		if (f && bk) {
			query_walk(q, n->child[0]);
			code = n->child[1];
		} else {
			code = n->child[f ? 0 : 1];
		}
	}
	qm_grow(q->out, q->cap, q->count + 1, sizeof(int));
	(*q->out)[q->count++] = -1 - code;
}

int qm_tree_neighbors(const struct qm_tree *t, int leaf, int axis, int high,
		      int **out, int *cap)
{
	const struct qm_leaf *l = &t->leafs[leaf];
	struct query q;

	memset(&q, 0, sizeof(q));
	q.t = t;
	q.axis = axis;
	q.high = high;
	q.d = high ? l->maxs[axis] : l->mins[axis];
	if (high ? q.d >= t->maxs[axis] : q.d <= t->mins[axis])
		return -1;
	memcpy(q.lo, l->mins, sizeof(q.lo));
	memcpy(q.hi, l->maxs, sizeof(q.hi));
	q.out = out;
	q.cap = cap;
	query_walk(&q, t->root);
	return q.count;
}

static void order_walk(const struct qm_tree *t, int code, bool all,
		       int **out, int *num, int *cap)
{
	while (code >= 0) {
		order_walk(t, t->nodes[code].child[0], all, out, num, cap);
		code = t->nodes[code].child[1];
	}
	int leaf = -1 - code;

	if (!all && t->leafs[leaf].contents == CONTENTS_SOLID)
		return;
	*QM_PUSH(*out, *num, *cap) = leaf;
}

int qm_tree_leaf_order(const struct qm_tree *t, int **out)
{
	int num = 0, cap = 0;

	*out = NULL;
	order_walk(t, t->root, false, out, &num, &cap);
	return num;
}

int qm_tree_portals(const struct qm_tree *t, qm_open_fn open,
		    struct qm_portal **out)
{
	int *leafs = NULL, nl = 0, cl = 0, *nb = NULL, cnb = 0, np = 0, cp = 0;

	*out = NULL;
	order_walk(t, t->root, true, &leafs, &nl, &cl);
	for (int i = 0; i < nl; i++) {
		const struct qm_leaf *l = &t->leafs[leafs[i]];

		if (!open(l->contents))
			continue;
		for (int a = 0; a < 3; a++) {
			int n = qm_tree_neighbors(t, leafs[i], a, 1, &nb, &cnb);

			for (int k = 0; k < n; k++) {
				const struct qm_leaf *o = &t->leafs[nb[k]];
				struct qm_portal *p;

				if (!open(o->contents))
					continue;
				p = QM_PUSH(*out, np, cp);
				p->leaf[0] = leafs[i];
				p->leaf[1] = nb[k];
				p->axis = a;
				p->dist = l->maxs[a];
				for (int j = 0, s = 0; j < 3; j++) {
					if (j == a)
						continue;
					p->lo[s] = l->mins[j] > o->mins[j] ? l->mins[j] : o->mins[j];
					p->hi[s] = l->maxs[j] < o->maxs[j] ? l->maxs[j] : o->maxs[j];
					s++;
				}
			}
		}
	}
	free(leafs);
	free(nb);
	return np;
}

int qm_tree_separating_node(const struct qm_tree *t, int a, int b)
{
	const struct qm_leaf *la = &t->leafs[a], *lb = &t->leafs[b];
	double ca[3], cb[3];
	int code = t->root;

	for (int k = 0; k < 3; k++) {
		ca[k] = (la->mins[k] + la->maxs[k]) / 2;
		cb[k] = (lb->mins[k] + lb->maxs[k]) / 2;
	}
	while (code >= 0) {
		const struct qm_node *n = &t->nodes[code];
		int sa = ca[n->axis] >= n->dist ? 0 : 1;
		int sb = cb[n->axis] >= n->dist ? 0 : 1;

		if (sa != sb)
			return code;
		code = n->child[sa];
	}
	return -1;
}

/* ---- outside filling -------------------------------------------------- */

int qm_tree_fill(struct qm_tree *t, qm_open_fn open,
		 const struct qm_portal *portals, int num_portals,
		 const bool *occupied, struct qm_fill_result *res)
{
	int nl = t->num_leafs;
	int *start = qm_calloc((size_t)nl + 1, sizeof(int));
	int *adj = qm_calloc((size_t)num_portals * 2 + 1, sizeof(int));
	int *parent = qm_calloc((size_t)nl, sizeof(int));
	int *queue = qm_calloc((size_t)nl, sizeof(int));
	bool *seen = qm_calloc((size_t)nl, sizeof(bool));
	int *leafs = NULL, num = 0, cap = 0, head = 0, tail = 0;

	memset(res, 0, sizeof(*res));
	res->leak_leaf = -1;
	/* adjacency lists, in portal order */
	for (int i = 0; i < num_portals; i++) {
		start[portals[i].leaf[0] + 1]++;
		start[portals[i].leaf[1] + 1]++;
	}
	for (int i = 0; i < nl; i++)
		start[i + 1] += start[i];
	{
		int *fill = qm_calloc((size_t)nl, sizeof(int));

		for (int i = 0; i < num_portals; i++)
			for (int s = 0; s < 2; s++) {
				int l = portals[i].leaf[s];

				adj[start[l] + fill[l]++] = i;
			}
		free(fill);
	}
	/* seeds: open leafs on the border of the region, in tree order */
	order_walk(t, t->root, true, &leafs, &num, &cap);
	for (int i = 0; i < num; i++) {
		const struct qm_leaf *l = &t->leafs[leafs[i]];
		bool border = false;

		if (!open(l->contents))
			continue;
		for (int k = 0; k < 3; k++)
			if (l->mins[k] <= t->mins[k] || l->maxs[k] >= t->maxs[k])
				border = true;
		if (border) {
			seen[leafs[i]] = true;
			parent[leafs[i]] = -1;
			queue[tail++] = leafs[i];
		}
	}
	while (head < tail) {
		int l = queue[head++];

		for (int k = start[l]; k < start[l + 1]; k++) {
			const struct qm_portal *p = &portals[adj[k]];
			int o = p->leaf[0] == l ? p->leaf[1] : p->leaf[0];

			if (seen[o])
				continue;
			seen[o] = true;
			parent[o] = adj[k];
			queue[tail++] = o;
		}
	}
	if (occupied) {
		for (int i = 0; i < num && res->leak_leaf < 0; i++)
			if (occupied[leafs[i]] && seen[leafs[i]])
				res->leak_leaf = leafs[i];
	}
	if (res->leak_leaf >= 0) {
		int l = res->leak_leaf, pc = 0;

		while (parent[l] >= 0) {
			const struct qm_portal *p = &portals[parent[l]];

			*QM_PUSH(res->path, res->path_len, pc) = parent[l];
			l = p->leaf[0] == l ? p->leaf[1] : p->leaf[0];
		}
	} else {
		for (int i = 0; i < num; i++) {
			struct qm_leaf *l = &t->leafs[leafs[i]];

			if (!seen[leafs[i]])
				continue;
			l->contents = CONTENTS_SOLID;
			l->brush = -1;
			l->outside = true;
			res->filled++;
		}
	}
	free(start);
	free(adj);
	free(parent);
	free(queue);
	free(seen);
	free(leafs);
	return 0;
}

/* ---- merging ---------------------------------------------------------- */

static int merge_walk(struct qm_tree *t, int code)
{
	int c0, c1;

	if (code < 0)
		return code;
	c0 = merge_walk(t, t->nodes[code].child[0]);
	c1 = merge_walk(t, t->nodes[code].child[1]);
	t->nodes[code].child[0] = c0;
	t->nodes[code].child[1] = c1;
	if (c0 < 0 && c1 < 0) {
		int l0 = -1 - c0, l1 = -1 - c1;
		int c = t->leafs[l0].contents;

		if (c == t->leafs[l1].contents &&
		    (c == CONTENTS_SOLID || c == CONTENTS_EMPTY)) {
			bool outside = t->leafs[l0].outside && t->leafs[l1].outside;
			int nl = new_leaf(t, c, -1, t->nodes[code].mins, t->nodes[code].maxs);

			t->leafs[-1 - nl].outside = outside;
			t->leafs[l0].merged = -1 - nl;
			t->leafs[l1].merged = -1 - nl;
			return nl;
		}
	}
	return code;
}

void qm_tree_merge(struct qm_tree *t)
{
	t->root = merge_walk(t, t->root);
}

int qm_tree_final_leaf(const struct qm_tree *t, int leaf)
{
	while (t->leafs[leaf].merged != leaf)
		leaf = t->leafs[leaf].merged;
	return leaf;
}
