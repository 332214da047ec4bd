/*
 * tests/server/test_assets.c -- the client data build/mkassets writes
 * holds every model and sound the server lists, on every bundled map.
 *
 * Design note
 *   A client asks the server for each file of the model and sound lists
 *   it lacks, one at a time, before it enters; the generated data must
 *   spare it that.  For each bundled map (maps/<name>.map, built into
 *   build/maps/) mkassets is run on that map alone, as the README tells
 *   a newcomer to run it, into a folder of its own; then the in-process
 *   server loads the map in each deathmatch mode 1-5 (the rules choose
 *   what spawns, so what is precached) and every name of its model list
 *   but the level itself and its submodels ("*N"), which the client
 *   downloads or has in the level, must be a file there: a model starting
 *   "IDPO" or "IDSP", a sound a RIFF WAVE of PCM samples whose sizes add
 *   up.  The lists checked are the server's, built from the game's
 *   precaches; mkassets gets its own from the game too, but loaded
 *   through its own services, so a precache either misses fails here.
 */
#include "../harness.h"
#include "srvfix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_BUNDLED = 64, DM_MODES = 5 };

struct bundled {
	char names[MAX_BUNDLED][64];
	int n;
};

static void add_bundled(const char *name, void *arg)
{
	struct bundled *b = arg;

	if (b->n < MAX_BUNDLED)
		snprintf(b->names[b->n++], sizeof(b->names[0]), "%s", name);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* a RIFF WAVE whose chunks fill the file, with PCM "fmt " and "data" */
static bool wave_ok(const uint8_t *d, size_t size)
{
	bool fmt = false, data = false;
	size_t pos = 12;

	if (size < 12 || memcmp(d, "RIFF", 4) != 0 || memcmp(d + 8, "WAVE", 4) != 0 ||
	    le32(d + 4) != size - 8)
		return false;
	while (pos + 8 <= size) {
		uint32_t len = le32(d + pos + 4);

		if (len > size - pos - 8)
			return false;
		if (memcmp(d + pos, "fmt ", 4) == 0)
			fmt = len >= 16 && d[pos + 8] == 1 && d[pos + 9] == 0;
		if (memcmp(d + pos, "data", 4) == 0)
			data = len > 0;
		pos += 8 + len + (len & 1);
	}
	return pos == size && fmt && data;
}

/* rel under dir/id1 exists and is what kind says; false with the reason */
static bool asset_ok(const char *dir, const char *rel, bool sound, char *why,
		     size_t max)
{
	char path[512];
	size_t size;
	uint8_t *d;
	bool ok;

	snprintf(path, sizeof(path), "%s/id1/%s%s", dir, sound ? "sound/" : "", rel);
	d = qwd_read_file(path, &size);
	if (!d) {
		snprintf(why, max, "%s: missing", path);
		return false;
	}
	ok = sound ? wave_ok(d, size) :
	     size >= 4 && (memcmp(d, "IDPO", 4) == 0 || memcmp(d, "IDSP", 4) == 0);
	if (!ok)
		snprintf(why, max, "%s: not a %s", path, sound ? "PCM WAVE" :
			 "model (IDPO) or sprite (IDSP)");
	free(d);
	return ok;
}

/* the server's lists on map in mode dm against dir; how many were checked */
static int check_lists(struct srvfix *f, const char *map, int dm, const char *dir)
{
	char line[64], out[256], err[256], level[80], why[600];
	struct server *sv = f->sv;
	int checked = 0;

	snprintf(line, sizeof(line), "deathmatch %d", dm);
	srvfix_command(f, line, out, sizeof(out));
	if (server_map(sv, map, err, sizeof(err)) != 0)
		fail_msg("map %s: %s", map, err);
	snprintf(level, sizeof(level), "maps/%s.bsp", map);
	for (int i = 1; i < sv->num_models; i++) {
		const char *m = sv->model_names[i];

		if (m[0] == '*' || strcmp(m, level) == 0)
			continue;
		if (!asset_ok(dir, m, false, why, sizeof(why)))
			fail_msg("%s, deathmatch %d: %s", map, dm, why);
		checked++;
	}
	for (int i = 1; i < sv->num_sounds; i++) {
		if (!asset_ok(dir, sv->sound_names[i], true, why, sizeof(why)))
			fail_msg("%s, deathmatch %d: %s", map, dm, why);
		checked++;
	}
	return checked;
}

static void test_mkassets_holds_precaches(void **state)
{
	struct srvfix *f = *state;
	static struct bundled maps;
	char exe[512], dir[256], out[4096];
	const char *bin = qwd_build_dir();

	assert_non_null(bin);
	snprintf(exe, sizeof(exe), "%s/mkassets", bin);
	maps.n = 0;
	assert_true(qwd_each_bundled_map(add_bundled, &maps) > 0);
	srvfix_start(f, 2);
	for (int i = 0; i < maps.n; i++) {
		const char *argv[] = {exe, dir, qwd_bundled_map(maps.names[i]), NULL};
		int checked = 0;

		snprintf(dir, sizeof(dir), "%s/assets-%s", f->dir, maps.names[i]);
		if (!srvfix_program(f, argv, out, sizeof(out), 60.0, NULL, NULL))
			fail_msg("mkassets %s %s: %s", dir, argv[2], out);
		for (int dm = 1; dm <= DM_MODES; dm++)
			checked += check_lists(f, maps.names[i], dm, dir);
		/* every level lists the player, its sounds and the weapons */
		assert_true(checked > DM_MODES * 20);
		print_message("%s: %d names in 5 modes, each in mkassets' data\n",
			      maps.names[i], checked);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(test_mkassets_holds_precaches, NULL,
					srvfix_test_teardown),
};

QWD_TEST_GROUP(server_assets, tests, srvfix_setup, srvfix_teardown)
