/*
 * compile.c -- the compile, stage by stage: .map text in, BSP29 bytes out.
 *
 * Design note
 *   1. Parse; sort the entities: worldspawn is model 0; func_group and
 *      func_detail entities (editor groups and layers) give their brushes
 *      to the world and are not written; every other entity with brushes
 *      becomes submodel *1, *2, ... in file order.  TrenchBroom layers
 *      marked "omit from export" lose their brushes.
 *   2. Hull 0 of each model: a tree over its brushes (clip brushes left
 *      out).  In the world each brush has the contents of its texture; in
 *      a brush entity every brush is solid, as in id's qbsp.
 *   3. World only: outside filling through the portals of open leafs
 *      (empty or liquid: sky seals a map like solid does).  Occupants are
 *      the point entities with an "origin" in an open leaf; at least one is
 *      needed to tell inside from outside.  If one is reachable from the
 *      void the map leaks: by default the compile stops with the entity,
 *      its line and where the path leaves the map, and the path is returned
 *      as a pointfile (editors draw it).  With allow_leak the file is
 *      written unfilled and without vis data (as qbsp does on a leak).
 *   4. Faces, on the filled tree before merging (every leaf there still
 *      knows a brush that holds it), then merge equal siblings.
 *   5. Vis over the world's merged leafs (skipped after a leak).
 *   6. Hulls 1 and 2 of each model: the brushes (solid, sky and clip; not
 *      liquids, which do not block movement) grown by the hull box,
 *      mins - hull_maxs .. maxs - hull_mins, then a tree over them, filled
 *      from outside for the world and merged.  Boxes need no bevels.
 *   7. Write.
 */
#include "qwmap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* the player and large boxes of hulls 1 and 2 (QuakeWorld's) */
static const double hull_box[3][2][3] = {
	{{0, 0, 0}, {0, 0, 0}},
	{{-16, -16, -24}, {16, 16, 32}},
	{{-32, -32, -24}, {32, 32, 64}},
};

static bool is_group(const char *cls)
{
	return cls && (strcmp(cls, "func_group") == 0 || strcmp(cls, "func_detail") == 0);
}

/* does brush b belong to model m (entity -> model as assigned) */
static int brush_model(const struct qm_map *map, const struct qm_brush *b)
{
	const struct qm_entity *e = &map->ents[b->entity];

	if (b->entity == 0)
		return 0;
	if (e->model >= 0)
		return e->model;
	return -1;
}

/* first line where a side uses texture tex */
static int texture_line(const struct qm_map *map, int tex)
{
	for (int i = 0; i < map->num_brushes; i++)
		for (int s = 0; s < 6; s++)
			if (map->brushes[i].sides[s].tex == tex)
				return map->brushes[i].sides[s].line;
	return 0;
}

/* Animated textures ("+0name".."+9name", alternates "+aname".."+jname"):
 * clients chain the frames at load and stop with an error on a bad frame
 * character or a missing frame, so the compile refuses them first. */
static int check_animations(struct qm_ctx *ctx, const struct qm_map *map)
{
	for (int i = 0; i < map->num_tex; i++) {
		const char *a = map->texnames[i];
		char c = a[1];
		bool digit = c >= '0' && c <= '9';
		bool alt = (c >= 'a' && c <= 'j') || (c >= 'A' && c <= 'J');
		int top = 0;

		if (a[0] != '+')
			continue;
		if (!digit && !alt)
			return qm_fail(ctx, texture_line(map, i),
				       "animated texture '%s': '+' must be followed by 0-9 or a-j", a);
		/* the highest frame of this sequence, then every frame below */
		for (int k = 0; k < map->num_tex; k++) {
			const char *b = map->texnames[k];
			char d = b[1] >= 'a' && b[1] <= 'z' ? (char)(b[1] - 'a' + 'A') : b[1];

			if (b[0] != '+' || strcasecmp(a + 2, b + 2) != 0)
				continue;
			if (digit && d >= '0' && d <= '9' && d - '0' > top)
				top = d - '0';
			if (alt && d >= 'A' && d <= 'J' && d - 'A' > top)
				top = d - 'A';
		}
		for (int f = 0; f <= top; f++) {
			bool found = false;

			for (int k = 0; k < map->num_tex && !found; k++) {
				const char *b = map->texnames[k];
				char d = b[1] >= 'a' && b[1] <= 'z' ? (char)(b[1] - 'a' + 'A') : b[1];

				found = b[0] == '+' && strcasecmp(a + 2, b + 2) == 0 &&
					d == (digit ? '0' : 'A') + f;
			}
			if (!found)
				return qm_fail(ctx, texture_line(map, i),
					       "animated texture '%s' has no frame %c (clients refuse "
					       "a sequence with a gap)", a, (digit ? '0' : 'a') + f);
		}
	}
	return 0;
}

static int sort_entities(struct qm_ctx *ctx, struct qm_map *map, int *num_models)
{
	int models = 1;

	map->ents[0].model = 0;
	for (int e = 1; e < map->num_ents; e++) {
		struct qm_entity *ent = &map->ents[e];
		const char *cls = qm_value(map, e, "classname");

		if (is_group(cls)) {
			const char *omit = qm_value(map, e, "_tb_layer_omit_from_export");

			ent->drop = true;
			ent->model = omit && strcmp(omit, "1") == 0 ? -1 : 0;
			continue;
		}
		if (ent->num_brushes == 0)
			continue;
		if (models >= QM_MAX_MODELS)
			return qm_fail(ctx, ent->line,
				       "entity %d: more than %d brush entities (clients load at most %d models)",
				       e, QM_MAX_MODELS - 1, QM_MAX_MODELS);
		ent->model = models++;
	}
	*num_models = models;
	return 0;
}

static void add_bounds(double mins[3], double maxs[3], const double bmin[3],
		       const double bmax[3], bool *empty)
{
	for (int k = 0; k < 3; k++) {
		if (*empty || bmin[k] < mins[k])
			mins[k] = bmin[k];
		if (*empty || bmax[k] > maxs[k])
			maxs[k] = bmax[k];
	}
	*empty = false;
}

/* Build hull h of model m: boxes, region, tree. */
static int build_hull(struct qm_ctx *ctx, const struct qm_map *map,
		      struct qm_model *md, int m, int h)
{
	struct qm_box *boxes = NULL;
	int nb = 0, cb = 0, rc;
	double mins[3] = {0, 0, 0}, maxs[3] = {0, 0, 0};
	bool empty = true;

	for (int i = 0; i < map->num_brushes; i++) {
		const struct qm_brush *b = &map->brushes[i];
		int contents = b->contents;

		if (brush_model(map, b) != m)
			continue;
		if (m > 0 && contents != CONTENTS_CLIP)
			contents = CONTENTS_SOLID;
		if (h == 0) {
			if (contents == CONTENTS_CLIP)
				continue;
		} else {
			if (contents != CONTENTS_SOLID && contents != CONTENTS_SKY &&
			    contents != CONTENTS_CLIP)
				continue;
			contents = CONTENTS_SOLID;
		}
		struct qm_box *bx = QM_PUSH(boxes, nb, cb);

		for (int k = 0; k < 3; k++) {
			bx->mins[k] = b->mins[k] - hull_box[h][1][k];
			bx->maxs[k] = b->maxs[k] - hull_box[h][0][k];
		}
		bx->contents = contents;
		bx->brush = i;
		add_bounds(mins, maxs, bx->mins, bx->maxs, &empty);
	}
	if (empty) {
		/* nothing in this hull (a model of clip brushes has no hull 0,
		 * one of liquids no clip hulls): an empty box */
		for (int k = 0; k < 3; k++) {
			mins[k] = md->mins[k];
			maxs[k] = md->maxs[k];
		}
	}
	for (int k = 0; k < 3; k++) {
		mins[k] -= QM_MARGIN;
		maxs[k] += QM_MARGIN;
	}
	rc = qm_tree_build(ctx, &md->hull[h], boxes, nb, mins, maxs);
	free(boxes);
	if (rc == 0 && md->hull[h].root < 0 && h == 0) {
		/* the loader wants a node at the head of hull 0: one plane on
		 * the region's edge with the whole region in front */
		struct qm_tree *t = &md->hull[0];
		struct qm_node *n = QM_PUSH(t->nodes, t->num_nodes, t->cap_nodes);

		n->axis = 0;
		n->dist = t->mins[0];
		n->child[0] = t->root;
		n->child[1] = t->root;
		memcpy(n->mins, t->mins, sizeof(n->mins));
		memcpy(n->maxs, t->maxs, sizeof(n->maxs));
		t->root = t->num_nodes - 1;
	}
	return rc;
}

static bool parse_origin(const char *s, double p[3])
{
	char *end;

	for (int k = 0; k < 3; k++) {
		p[k] = strtod(s, &end);
		if (end == s || !isfinite(p[k]))
			return false;
		s = end;
	}
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == '\0';
}

/* pointfile text: one point per line, the occupant first */
static char *leak_points(const struct qm_tree *t, const struct qm_portal *portals,
			 const struct qm_fill_result *fr, const double origin[3])
{
	struct {
		char *p;
		int n, cap;
	} s = {NULL, 0, 0};
	char line[128];
	double last[3];

	memcpy(last, origin, sizeof(last));
	for (int i = -1; i <= fr->path_len; i++) {
		double p[3];

		if (i < 0) {
			memcpy(p, origin, sizeof(p));
		} else if (i < fr->path_len) {
			const struct qm_portal *pt = &portals[fr->path[i]];

			for (int k = 0, j = 0; k < 3; k++)
				if (k == pt->axis) {
					p[k] = pt->dist;
				} else {
					p[k] = (pt->lo[j] + pt->hi[j]) / 2;
					j++;
				}
		} else {
			/* out through the nearest edge of the region */
			int ba = 0, bs = 0;
			double bd = INFINITY;

			memcpy(p, last, sizeof(p));
			for (int k = 0; k < 3; k++) {
				if (p[k] - t->mins[k] < bd) {
					bd = p[k] - t->mins[k];
					ba = k;
					bs = 0;
				}
				if (t->maxs[k] - p[k] < bd) {
					bd = t->maxs[k] - p[k];
					ba = k;
					bs = 1;
				}
			}
			p[ba] = bs ? t->maxs[ba] : t->mins[ba];
		}
		memcpy(last, p, sizeof(last));
		int n = snprintf(line, sizeof(line), "%g %g %g\n", p[0], p[1], p[2]);

		qm_grow(&s.p, &s.cap, s.n + n + 1, 1);
		memcpy(s.p + s.n, line, (size_t)n + 1);
		s.n += n;
	}
	return s.p;
}

/* Outside filling of the world's hull 0; sets *leaked. */
static int fill_world(struct qm_ctx *ctx, const struct qm_map *map,
		      struct qm_tree *t, const struct qm_options *opt,
		      struct qm_output *out, bool *leaked)
{
	struct qm_portal *portals = NULL;
	int np = qm_tree_portals(t, qm_open_hull0, &portals);
	bool *occupied = qm_calloc((size_t)t->num_leafs, sizeof(bool));
	int *occupant = qm_calloc((size_t)t->num_leafs, sizeof(int));
	int num_occ = 0, rc = 0;
	struct qm_fill_result fr;

	*leaked = false;
	for (int e = 1; e < map->num_ents; e++) {
		const char *org = qm_value(map, e, "origin");
		double p[3];
		int leaf;

		if (map->ents[e].num_brushes > 0 || map->ents[e].drop || !org)
			continue;
		if (!parse_origin(org, p)) {
			rc = qm_fail(ctx, map->ents[e].line, "entity %d: bad origin \"%s\"", e, org);
			goto out;
		}
		leaf = qm_tree_point_leaf(t, p);
		if (!qm_open_hull0(t->leafs[leaf].contents))
			continue;	/* in a wall or in the sky: qbsp skips these */
		if (!occupied[leaf])
			occupant[leaf] = e;
		occupied[leaf] = true;
		num_occ++;
	}
	if (num_occ == 0) {
		rc = qm_fail(ctx, 0, "no point entity with an origin inside the map "
			     "(add an info_player_start): cannot tell inside from outside");
		goto out;
	}
	qm_tree_fill(t, qm_open_hull0, portals, np, occupied, &fr);
	if (fr.leak_leaf >= 0) {
		int e = occupant[fr.leak_leaf];
		const char *cls = qm_value(map, e, "classname");
		double p[3];
		char *pts;

		parse_origin(qm_value(map, e, "origin"), p);
		pts = leak_points(t, portals, &fr, p);
		free(out->pointfile);
		out->pointfile = pts;
		*leaked = true;
		/* the last line of the pointfile is where the path leaves */
		const char *lastline = pts + strlen(pts) - 1;

		while (lastline > pts && lastline[-1] != '\n')
			lastline--;
		if (opt->allow_leak) {
			qm_warn(ctx, map->ents[e].line,
				"leak: entity %d (%s) at (%g %g %g) is reachable from outside the map; "
				"writing it unfilled and without vis", e, cls ? cls : "?",
				p[0], p[1], p[2]);
		} else {
			rc = qm_fail(ctx, map->ents[e].line,
				     "leak: entity %d (%s) at (%g %g %g) is reachable from outside "
				     "the map, through %d leafs, leaving near (%.*s); the map must be "
				     "sealed by world brushes",
				     e, cls ? cls : "?", p[0], p[1], p[2], fr.path_len + 1,
				     (int)strcspn(lastline, "\n"), lastline);
		}
	}
	free(fr.path);
out:
	free(portals);
	free(occupied);
	free(occupant);
	return rc;
}

static void fill_hull(struct qm_tree *t)
{
	struct qm_portal *portals = NULL;
	int np = qm_tree_portals(t, qm_open_empty, &portals);
	struct qm_fill_result fr;

	qm_tree_fill(t, qm_open_empty, portals, np, NULL, &fr);
	free(fr.path);
	free(portals);
}

int qm_compile(struct qm_ctx *ctx, const char *text, size_t len,
	       const struct qm_options *opt, struct qm_output *out)
{
	struct qm_map map;
	struct qm_model *models = NULL;
	struct qm_faces faces;
	struct qm_vis vis;
	int num_models = 0, rc = -1, *order = NULL, norder = 0;
	bool leaked = false, have_vis = false;

	memset(out, 0, sizeof(*out));
	memset(&faces, 0, sizeof(faces));
	memset(&vis, 0, sizeof(vis));
	if (qm_parse(ctx, text, len, &map))
		return -1;
	if (check_animations(ctx, &map) || sort_entities(ctx, &map, &num_models))
		goto out;
	models = qm_calloc((size_t)num_models, sizeof(*models));
	for (int m = 0; m < num_models; m++)
		models[m].entity = -1;
	for (int e = 0; e < map.num_ents; e++)
		if (map.ents[e].model > 0 || e == 0)
			models[map.ents[e].model].entity = e;
	/* bounds of every model over all its brushes */
	{
		bool *empty = qm_calloc((size_t)num_models, sizeof(bool));

		for (int m = 0; m < num_models; m++)
			empty[m] = true;
		for (int i = 0; i < map.num_brushes; i++) {
			int m = brush_model(&map, &map.brushes[i]);

			if (m >= 0)
				add_bounds(models[m].mins, models[m].maxs, map.brushes[i].mins,
					   map.brushes[i].maxs, &empty[m]);
		}
		if (empty[0]) {
			free(empty);
			qm_fail(ctx, 0, "the world has no brushes");
			goto out;
		}
		free(empty);
	}

	for (int m = 0; m < num_models; m++)
		if (build_hull(ctx, &map, &models[m], m, 0))
			goto out;
	if (fill_world(ctx, &map, &models[0].hull[0], opt, out, &leaked))
		goto out;
	for (int m = 0; m < num_models; m++)
		if (qm_faces_build(ctx, &map, &models[m].hull[0], m, &faces))
			goto out;
	if (faces.num_faces == 0) {
		/* no vertex, no edge: a BSP with nothing to draw, which no
		 * loader should have to accept */
		qm_fail(ctx, 0, "nothing to draw: every face is skip, clip or hidden");
		goto out;
	}
	for (int m = 0; m < num_models; m++)
		qm_tree_merge(&models[m].hull[0]);
	norder = qm_tree_leaf_order(&models[0].hull[0], &order);
	if (!leaked) {
		if (qm_vis_build(ctx, &models[0].hull[0], order, norder, &vis))
			goto out;
		have_vis = true;
	}
	for (int m = 0; m < num_models; m++)
		for (int h = 1; h < 3; h++) {
			if (build_hull(ctx, &map, &models[m], m, h))
				goto out;
			if (m == 0 && !leaked)
				fill_hull(&models[m].hull[h]);
			qm_tree_merge(&models[m].hull[h]);
		}

	struct qm_write_in win = {
		.map = &map, .models = models, .num_models = num_models,
		.faces = &faces, .vis = have_vis ? &vis : NULL,
		.world_leaf_order = order, .world_num_leafs = norder
	};

	if (qm_write_bsp(ctx, &win, out))
		goto out;
	out->stats.brushes = map.num_brushes;
	out->stats.entities = map.num_ents;
	out->stats.models = num_models;
	out->stats.portals = vis.num_portals / 2;
	out->stats.avg_visible = norder ? (double)vis.visible / norder : 0;
	out->stats.leaked = leaked;
	rc = 0;
out:
	if (rc) {
		free(out->data);
		out->data = NULL;
		out->size = 0;
	}
	for (int m = 0; m < num_models; m++)
		for (int h = 0; h < 3; h++)
			qm_tree_free(&models[m].hull[h]);
	free(models);
	free(order);
	qm_faces_free(&faces);
	qm_vis_free(&vis);
	qm_map_free(&map);
	return rc;
}

void qm_output_free(struct qm_output *out)
{
	free(out->data);
	free(out->pointfile);
	memset(out, 0, sizeof(*out));
}
