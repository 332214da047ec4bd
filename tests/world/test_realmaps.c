/*
 * test_realmaps.c -- the world model against every whole map: spawn points.
 *
 * Design note: for each info_player_* the world must agree that it is a
 * place a player can stand: its leaf is empty, a player box there is not
 * stuck, a trace straight down meets a floor within 256 units, and the
 * spot's PVS contains its own leaf.  These are the facts the server relies
 * on when it spawns a client.  The maps are every bundled one (maps/NAME.map
 * compiled by qwmap) and, as an optional extra, every map in
 * ../shared/realmaps: those were compiled by the community's compiler, so
 * their spawn points are where a stock server puts players.
 */
#include "harness.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/world.h"

/* Spawn points of the corpus that are not standable, and why: each is
 * checked to be exactly that, so a change in the traces still shows. */
struct known_bad {
	const char *file, *classname;
	bool stuck;		/* the box is in the floor */
	float floor_below;	/* otherwise: the floor is this far down */
};

static const struct known_bad known_bad[] = {
	/* the single-player start of a deathmatch map, placed with its feet
	 * 8 units inside the floor (floor top at z 8, origin z 24); QuakeWorld
	 * only uses info_player_deathmatch in deathmatch */
	{"lqdm11.bsp", "info_player_start", true, 0},
	{"lqdm11_2psb.bsp", "info_player_start", true, 0},
	/* an ericw-tools test map whose start floats 576 units up */
	{"ewt_testphongtjunc.bsp", "info_player_start", false, 576},
};

static const struct known_bad *find_known(const char *file, const char *cls)
{
	for (size_t i = 0; i < sizeof(known_bad) / sizeof(known_bad[0]); i++)
		if (!strcmp(known_bad[i].file, file) && !strcmp(known_bad[i].classname, cls))
			return &known_bad[i];
	return NULL;
}

static const vec3_t player_mins = {-16, -16, -24};
static const vec3_t player_maxs = {16, 16, 32};

/* check the spawn points of the map at path (file: its name, for the
 * known exceptions and the messages); adds their number to *spots */
static void check_map(const char *path, const char *file, int *spots)
{
	char err[512];
	struct bsp_map *m;

	m = bsp_load(path, err, sizeof(err));
	if (!m)
		fail_msg("%s", err);
	for (uint32_t e = 0; e < m->ents.num_ents; e++) {
		const char *cls = ent_value(&m->ents, e, "classname");
		const char *o = ent_value(&m->ents, e, "origin");
		vec3_t org, down;
		struct trace tr;
		int32_t leaf;

		if (!cls || strncmp(cls, "info_player_", 12) != 0)
			continue;
		if (!o || sscanf(o, "%f %f %f", &org[0], &org[1], &org[2]) != 3)
			fail_msg("%s: %s entity %u has no origin", file, cls, e);
		(*spots)++;

		leaf = bsp_point_leaf(m, org);
		if (leaf <= 0 || m->leafs[leaf].contents != CONTENTS_EMPTY)
			fail_msg("%s: %s at (%g %g %g) is in leaf %d with contents %d",
				 file, cls, (double)org[0], (double)org[1], (double)org[2],
				 leaf, leaf >= 0 ? m->leafs[leaf].contents : 0);

		bsp_trace_box(m, 0, (vec3_t){0, 0, 0}, player_mins, player_maxs,
			      org, org, &tr);
		const struct known_bad *kb = find_known(file, cls);
		if (kb) {
			vec_copy(org, down);
			down[2] -= 4096;
			if (kb->stuck) {
				assert_true(tr.startsolid);
			} else {
				assert_false(tr.startsolid);
				bsp_trace_box(m, 0, (vec3_t){0, 0, 0}, player_mins,
					      player_maxs, org, down, &tr);
				assert_true(fabsf(org[2] - tr.endpos[2] - kb->floor_below) < 1);
			}
			continue;
		}
		if (tr.startsolid)
			fail_msg("%s: %s at (%g %g %g): a player box there is stuck",
				 file, cls, (double)org[0], (double)org[1], (double)org[2]);

		vec_copy(org, down);
		down[2] -= 256;
		bsp_trace_box(m, 0, (vec3_t){0, 0, 0}, player_mins, player_maxs,
			      org, down, &tr);
		if (tr.fraction >= 1.0f || tr.plane.normal[2] < 0.7f)
			fail_msg("%s: %s at (%g %g %g): no floor within 256 units "
				 "(fraction %g, normal z %g)", file, cls, (double)org[0],
				 (double)org[1], (double)org[2], (double)tr.fraction,
				 (double)tr.plane.normal[2]);

		if (!bsp_vis_test(bsp_leaf_pvs(m, leaf), leaf))
			fail_msg("%s: %s leaf %d is not in its own PVS", file, cls, leaf);
	}
	bsp_free(m);
}

static void spawn_points_on_every_map(void **state)
{
	const char *dir = qwd_realmaps_dir();
	struct dirent *de;
	DIR *d;
	int maps = 0, spots = 0;

	(void)state;
	if (!dir)
		qwd_skip_no_realmaps();
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		char path[1024];

		if (n < 4 || strcmp(de->d_name + n - 4, ".bsp") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		check_map(path, de->d_name, &spots);
		maps++;
	}
	closedir(d);
	/* the corpus: 27 maps, every one with at least an info_player_start */
	assert_true(maps >= 27);
	assert_true(spots >= maps);
	print_message("checked %d spawn points on %d maps\n", spots, maps);
}

static void check_bundled(const char *name, void *spots)
{
	check_map(qwd_bundled_map(name), name, spots);
}

static void spawn_points_on_every_bundled_map(void **state)
{
	int spots = 0, maps;

	(void)state;
	maps = qwd_each_bundled_map(check_bundled, &spots);
	/* small's 72 and large's 68 deathmatch spots and a start each */
	assert_true(maps >= 2);
	assert_true(spots >= 142);
	print_message("checked %d spawn points on %d maps\n", spots, maps);
}

static const struct CMUnitTest realmap_tests[] = {
	cmocka_unit_test(spawn_points_on_every_bundled_map),
	cmocka_unit_test(spawn_points_on_every_map),
};

QWD_TEST_GROUP(realmaps, realmap_tests, NULL, NULL)
