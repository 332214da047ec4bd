/*
 * faces.c -- the drawn surfaces: the parts of brush sides that can be seen
 * from an open leaf, as rectangles on the tree's nodes.
 *
 * Design note
 *   A face exists wherever an open leaf L (empty or liquid) touches a leaf
 *   N of other contents: the boundary seen from L looks like the stronger
 *   of the two (solid or sky seen from air or water, the liquid's surface
 *   seen from air, the surface seen from inside the liquid).  Its texture
 *   is that of the side, on the boundary plane, of the brush that gives
 *   the stronger leaf its contents: that brush contains the stronger leaf
 *   and cannot reach into the weaker one, so its side lies exactly on the
 *   boundary.  Faces are built on the tree before merging, where every
 *   leaf still knows such a brush.  The face lies on the node that
 *   separates L and N (their lowest common ancestor: for two boxes sharing
 *   a rectangle only that plane separates them), faces the way L looks,
 *   and is listed in L's marksurfaces.  Sides textured "skip" draw nothing.
 *
 *   Winding order: seen from the side the face faces, the vertices run
 *   clockwise, i.e. (p0 - p1) x (p2 - p1) points along the facing normal,
 *   the convention of the .map planes and of qbsp's windings.
 *
 *   Texture extents: clients refuse a lit (non-sky, non-liquid) surface
 *   whose texture extents pass 256 texels (id's clients; ezQuake allows
 *   512), so faces are cut on a world-aligned grid so that each piece
 *   spans at most 208 texels along s and t; with the rounding to 16 texels
 *   the extents stay at or under 240, as qbsp's subdivision keeps them.
 *
 *   T-junctions: after cutting, a vertex of one face may lie inside an edge
 *   of its neighbour, which leaves pixel cracks when drawn.  Every edge is
 *   axial, so the vertices on an edge share two coordinates: a sorted table
 *   of vertices per axis line finds them by binary search, and they are
 *   inserted into the edge (at most QM_FACE_MAX_VERTS per face; past that
 *   the face keeps its cracks).
 */
#include "qwmap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
	QM_FACE_MAX_VERTS = 32,
	QM_MAX_PIECES = 4096	/* pieces one face may be cut into */
};

#define EXTENT_LIMIT 208.0	/* texels a piece may span along s or t */

struct rect {
	int axis;
	double dist;
	double u0, u1, v0, v1;	/* on axes (axis+1)%3 and (axis+2)%3 */
};

static bool is_special(const char *name)
{
	return name[0] == '*' || strncasecmp(name, "sky", 3) == 0;
}

/* largest power of two not above x (x > 0) */
static double grid_step(double x)
{
	int e;

	frexp(x, &e);
	return ldexp(1.0, e - 1);
}

static int add_face(struct qm_faces *out, const struct qm_face *proto,
		    const struct rect *r)
{
	int u = (r->axis + 1) % 3, v = (r->axis + 2) % 3;
	double corners[4][2] = {
		{r->u0, r->v0}, {r->u0, r->v1}, {r->u1, r->v1}, {r->u1, r->v0}
	};
	struct qm_face *f = QM_PUSH(out->faces, out->num_faces, out->cap_faces);

	*f = *proto;
	f->first_vert = out->num_verts;
	f->num_verts = 4;
	for (int i = 0; i < 4; i++) {
		/* this order faces +axis; a face seen from below runs backwards */
		int c = proto->back ? 3 - i : i;
		double *p = *QM_PUSH(out->verts, out->num_verts, out->cap_verts);

		p[r->axis] = r->dist;
		p[u] = corners[c][0];
		p[v] = corners[c][1];
	}
	return 0;
}

/* Cut r into grid pieces small enough for the texture extents. */
static int add_cut_face(struct qm_ctx *ctx, struct qm_faces *out,
			const struct qm_face *proto, const struct rect *r,
			int line)
{
	int u = (r->axis + 1) % 3, v = (r->axis + 2) % 3;
	double su = fabs(proto->vecs[0][u]), tu = fabs(proto->vecs[1][u]);
	double sv = fabs(proto->vecs[0][v]), tv = fabs(proto->vecs[1][v]);
	double lu, lv, gu, gv;

	if (proto->texflags & QM_TEX_SPECIAL)
		return add_face(out, proto, r);
	/* largest piece sides lu, lv with su*lu + sv*lv and tu*lu + tv*lv
	 * both within the limit: the whole budget to one side when each
	 * texture axis runs along one face axis, else half to each */
	if (sv == 0 && tu == 0) {
		lu = su > 0 ? EXTENT_LIMIT / su : 0;
		lv = tv > 0 ? EXTENT_LIMIT / tv : 0;
	} else if (su == 0 && tv == 0) {
		lu = tu > 0 ? EXTENT_LIMIT / tu : 0;
		lv = sv > 0 ? EXTENT_LIMIT / sv : 0;
	} else {
		double mu = su > tu ? su : tu, mv = sv > tv ? sv : tv;

		lu = mu > 0 ? EXTENT_LIMIT / 2 / mu : 0;
		lv = mv > 0 ? EXTENT_LIMIT / 2 / mv : 0;
	}
	gu = lu > 0 ? grid_step(lu) : 0;
	gv = lv > 0 ? grid_step(lv) : 0;
	double nu = gu > 0 ? floor(r->u1 / gu) - ceil(r->u0 / gu) + 2 : 1;
	double nv = gv > 0 ? floor(r->v1 / gv) - ceil(r->v0 / gv) + 2 : 1;

	if (nu * nv > QM_MAX_PIECES)
		return qm_fail(ctx, line,
			       "texture scale too small: a face would be cut into %.0f pieces "
			       "to keep its texture extents under 256", nu * nv);
	double a = r->u0;

	while (a < r->u1) {
		double an = gu > 0 ? (floor(a / gu) + 1) * gu : r->u1;
		double b = r->v0;

		if (an > r->u1)
			an = r->u1;
		while (b < r->v1) {
			double bn = gv > 0 ? (floor(b / gv) + 1) * gv : r->v1;
			struct rect piece = *r;

			if (bn > r->v1)
				bn = r->v1;
			piece.u0 = a;
			piece.u1 = an;
			piece.v0 = b;
			piece.v1 = bn;
			add_face(out, proto, &piece);
			b = bn;
		}
		a = an;
	}
	return 0;
}

/* ---- T-junctions ------------------------------------------------------ */

struct line_pt {
	double c1, c2;		/* the two fixed coordinates */
	double t;		/* the coordinate along the line */
};

static int cmp_line_pt(const void *a, const void *b)
{
	const struct line_pt *x = a, *y = b;

	if (x->c1 != y->c1)
		return x->c1 < y->c1 ? -1 : 1;
	if (x->c2 != y->c2)
		return x->c2 < y->c2 ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return 0;
}

struct line_table {
	struct line_pt *pts[3];
	int num[3];
};

static void line_table_build(struct line_table *lt, const struct qm_faces *f,
			     int first_face)
{
	for (int a = 0; a < 3; a++) {
		int n = 0;

		for (int i = first_face; i < f->num_faces; i++)
			n += f->faces[i].num_verts;
		lt->pts[a] = qm_calloc((size_t)n + 1, sizeof(struct line_pt));
		n = 0;
		for (int i = first_face; i < f->num_faces; i++) {
			const struct qm_face *fc = &f->faces[i];

			for (int k = 0; k < fc->num_verts; k++) {
				const double *p = f->verts[fc->first_vert + k];

				lt->pts[a][n].c1 = p[(a + 1) % 3];
				lt->pts[a][n].c2 = p[(a + 2) % 3];
				lt->pts[a][n].t = p[a];
				n++;
			}
		}
		qsort(lt->pts[a], (size_t)n, sizeof(struct line_pt), cmp_line_pt);
		/* unique */
		int w = 0;

		for (int i = 0; i < n; i++)
			if (w == 0 || cmp_line_pt(&lt->pts[a][w - 1], &lt->pts[a][i]) != 0)
				lt->pts[a][w++] = lt->pts[a][i];
		lt->num[a] = w;
	}
}

/* first index whose key is >= (c1, c2, t) */
static int line_lower(const struct line_table *lt, int a, double c1, double c2,
		      double t)
{
	struct line_pt key = {c1, c2, t};
	int lo = 0, hi = lt->num[a];

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (cmp_line_pt(&lt->pts[a][mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Rebuild the model's faces with the vertices found inside their edges. */
static void fix_tjunctions(struct qm_faces *f, int first_face)
{
	struct line_table lt;
	double (*nv)[3] = NULL;
	int nn = 0, nc = 0;
	int first_vert = first_face < f->num_faces ? f->faces[first_face].first_vert
						   : f->num_verts;

	line_table_build(&lt, f, first_face);
	for (int i = first_face; i < f->num_faces; i++) {
		struct qm_face *fc = &f->faces[i];
		int start = nn, extra = 0;

		/* count what would be added first, to respect the cap */
		for (int pass = 0; pass < 2; pass++) {
			if (pass == 1 && fc->num_verts + extra > QM_FACE_MAX_VERTS)
				extra = -1;
			for (int k = 0; k < fc->num_verts; k++) {
				const double *p = f->verts[fc->first_vert + k];
				const double *q = f->verts[fc->first_vert + (k + 1) % fc->num_verts];
				int a = p[0] != q[0] ? 0 : p[1] != q[1] ? 1 : 2;
				double c1 = p[(a + 1) % 3], c2 = p[(a + 2) % 3];
				double lo = p[a] < q[a] ? p[a] : q[a];
				double hi = p[a] < q[a] ? q[a] : p[a];
				int s = line_lower(&lt, a, c1, c2, lo);
				int e = line_lower(&lt, a, c1, c2, hi);

				/* [s, e) holds lo itself at s, then the inner points */
				if (s < e && lt.pts[a][s].t == lo)
					s++;
				if (pass == 0) {
					extra += e - s;
					continue;
				}
				double *d = *QM_PUSH(nv, nn, nc);

				memcpy(d, p, sizeof(double) * 3);
				if (extra < 0)
					continue;
				for (int j = 0; j < e - s; j++) {
					int idx = p[a] < q[a] ? s + j : e - 1 - j;

					d = *QM_PUSH(nv, nn, nc);
					memcpy(d, p, sizeof(double) * 3);
					d[a] = lt.pts[a][idx].t;
				}
			}
		}
		fc->first_vert = first_vert + start;
		fc->num_verts = nn - start;
	}
	/* the model's vertices are the last ones: replace them */
	f->num_verts = first_vert;
	for (int i = 0; i < nn; i++)
		memcpy(*QM_PUSH(f->verts, f->num_verts, f->cap_verts), nv[i],
		       sizeof(double) * 3);
	free(nv);
	for (int a = 0; a < 3; a++)
		free(lt.pts[a]);
}

/* ---- building --------------------------------------------------------- */

int qm_faces_build(struct qm_ctx *ctx, const struct qm_map *map,
		   const struct qm_tree *t, int model, struct qm_faces *out)
{
	int *nb = NULL, cnb = 0;
	int first_face = out->num_faces;
	int rc = 0;

	/* every leaf of the unmerged tree is reachable: visit in index order */
	for (int li = 0; li < t->num_leafs && rc == 0; li++) {
		const struct qm_leaf *L = &t->leafs[li];

		if (L->merged != li || !qm_open_hull0(L->contents))
			continue;
		for (int a = 0; a < 3 && rc == 0; a++) {
			for (int high = 0; high < 2 && rc == 0; high++) {
				int n = qm_tree_neighbors(t, li, a, high, &nb, &cnb);

				for (int k = 0; k < n && rc == 0; k++) {
					const struct qm_leaf *N = &t->leafs[nb[k]];
					const struct qm_leaf *S;
					const struct qm_brush *br;
					const struct qm_side *side;
					int sidx;
					double d = high ? L->maxs[a] : L->mins[a];

					if (N->contents == L->contents)
						continue;
					S = qm_contents_rank(N->contents) > qm_contents_rank(L->contents)
						    ? N : L;
					if (S->brush < 0)
						continue;	/* the filled outside */
					br = &map->brushes[S->brush];
					/* the stronger brush's side facing the weaker leaf */
					if (S == N)
						sidx = a * 2 + (high ? 0 : 1);
					else
						sidx = a * 2 + (high ? 1 : 0);
					if ((sidx & 1 ? br->maxs[a] : br->mins[a]) != d)
						continue;	/* cannot happen: see the note */
					side = &br->sides[sidx];
					const char *tex = map->texnames[side->tex];

					if (strcasecmp(tex, "skip") == 0)
						continue;

					struct qm_face proto;
					struct rect r;
					int u = (a + 1) % 3, v = (a + 2) % 3;

					memset(&proto, 0, sizeof(proto));
					proto.model = model;
					proto.node = qm_tree_separating_node(t, li, nb[k]);
					proto.leaf = li;
					proto.axis = a;
					proto.dist = d;
					proto.back = high;	/* seen from below: normal -axis */
					proto.tex = side->tex;
					proto.texflags = is_special(tex) ? QM_TEX_SPECIAL : 0;
					for (int i = 0; i < 2; i++)
						for (int j = 0; j < 4; j++)
							proto.vecs[i][j] = (float)side->vecs[i][j];
					r.axis = a;
					r.dist = d;
					r.u0 = L->mins[u] > N->mins[u] ? L->mins[u] : N->mins[u];
					r.u1 = L->maxs[u] < N->maxs[u] ? L->maxs[u] : N->maxs[u];
					r.v0 = L->mins[v] > N->mins[v] ? L->mins[v] : N->mins[v];
					r.v1 = L->maxs[v] < N->maxs[v] ? L->maxs[v] : N->maxs[v];
					rc = add_cut_face(ctx, out, &proto, &r, side->line);
				}
			}
		}
	}
	free(nb);
	if (rc == 0)
		fix_tjunctions(out, first_face);
	return rc;
}

void qm_faces_free(struct qm_faces *f)
{
	free(f->faces);
	free(f->verts);
	memset(f, 0, sizeof(*f));
}
