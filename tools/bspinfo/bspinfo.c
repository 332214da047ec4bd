/*
 * bspinfo -- check a map file the way qwd will load it, and describe it.
 *
 * Design note: an operator who drops a custom map into maps/ wants to know
 * before the server does whether it loads.  bspinfo runs the same loader and
 * validation as qwd (src/world/bsp.c), prints the loader's one-line message
 * and exits 1 on a refused file; on success it prints the format, the
 * record counts, the two QuakeWorld checksums (checksum2 is what clients
 * send at prespawn), the entity classes and the spawn points with whether
 * a player can stand there.
 *
 *   bspinfo [-q] MAP.bsp...     -q: only the verdict line per map
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/world.h"

static const char *format_name(enum bsp_format f)
{
	switch (f) {
	case BSP_FMT_29: return "BSP29";
	case BSP_FMT_BSP2: return "BSP2";
	case BSP_FMT_2PSB: return "2PSB";
	}
	return "?";
}

struct class_count {
	const char *name;
	int n;
};

static int cmp_class(const void *a, const void *b)
{
	const struct class_count *x = a, *y = b;

	if (x->n != y->n)
		return y->n - x->n;
	return strcmp(x->name, y->name);
}

static void print_classes(const struct bsp_map *m)
{
	struct class_count *cc = calloc(m->ents.num_ents, sizeof(*cc));
	int used = 0;

	if (!cc)
		return;
	for (uint32_t e = 0; e < m->ents.num_ents; e++) {
		const char *c = ent_value(&m->ents, e, "classname");
		int k;

		if (!c)
			c = "(no classname)";
		for (k = 0; k < used; k++)
			if (strcmp(cc[k].name, c) == 0)
				break;
		if (k == used)
			cc[used++].name = c;
		cc[k].n++;
	}
	qsort(cc, (size_t)used, sizeof(*cc), cmp_class);
	printf("  entities     %u in %d classes:", m->ents.num_ents, used);
	for (int k = 0; k < used; k++)
		printf("%s %s x%d", k % 4 ? "," : "\n   ", cc[k].name, cc[k].n);
	printf("\n");
	free(cc);
}

static void print_spawns(const struct bsp_map *m)
{
	static const vec3_t mins = {-16, -16, -24}, maxs = {16, 16, 32};
	static const vec3_t zero = {0, 0, 0};

	for (uint32_t e = 0; e < m->ents.num_ents; e++) {
		const char *c = ent_value(&m->ents, e, "classname");
		const char *o = ent_value(&m->ents, e, "origin");
		vec3_t org, down;
		struct trace tr, fall;

		if (!c || strncmp(c, "info_player_", 12) != 0)
			continue;
		if (!o || sscanf(o, "%f %f %f", &org[0], &org[1], &org[2]) != 3) {
			printf("  spawn        %s (entity %u): no origin\n", c, e);
			continue;
		}
		bsp_trace_box(m, 0, zero, mins, maxs, org, org, &tr);
		vec_copy(org, down);
		down[2] -= 8192;
		bsp_trace_box(m, 0, zero, mins, maxs, org, down, &fall);
		printf("  spawn        %-24s (%6.0f %6.0f %6.0f) leaf %5d %s, ",
		       c, (double)org[0], (double)org[1], (double)org[2],
		       bsp_point_leaf(m, org), tr.startsolid ? "STUCK" : "clear");
		if (fall.fraction < 1)
			printf("floor %.0f below\n", (double)(org[2] - fall.endpos[2]));
		else
			printf("NO floor within 8192\n");
	}
}

int main(int argc, char **argv)
{
	bool quiet = false;
	int bad = 0, first = 1;

	if (argc > 1 && strcmp(argv[1], "-q") == 0) {
		quiet = true;
		first = 2;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: bspinfo [-q] MAP.bsp...\n");
		return 2;
	}
	for (int i = first; i < argc; i++) {
		char err[512];
		struct bsp_map *m = bsp_load(argv[i], err, sizeof(err));

		if (!m) {
			printf("REFUSED %s\n", err);
			bad = 1;
			continue;
		}
		printf("OK %s: %s, %zu bytes, checksum %08x checksum2 %08x (%d)\n",
		       m->name, format_name(m->format), m->file_size, m->checksum,
		       m->checksum2, (int32_t)m->checksum2);
		if (!quiet) {
			const struct bsp_model *w = &m->models[0];

			printf("  records      planes %d, nodes %d, leafs %d (%d with PVS), "
			       "clipnodes %d, models %d\n", m->num_planes, m->num_nodes,
			       m->num_leafs, m->num_visleafs, m->num_clipnodes,
			       m->num_models);
			printf("  bounds       (%g %g %g) .. (%g %g %g)\n",
			       (double)w->mins[0], (double)w->mins[1], (double)w->mins[2],
			       (double)w->maxs[0], (double)w->maxs[1], (double)w->maxs[2]);
			printf("  visibility   %d bytes%s, row %d bytes\n", m->vis_size,
			       m->vis_size ? "" : " (none: every leaf sees every leaf)",
			       m->vis_row_bytes);
			print_classes(m);
			print_spawns(m);
		}
		bsp_free(m);
	}
	return bad;
}
