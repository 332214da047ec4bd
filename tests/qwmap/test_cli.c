/*
 * test_cli.c -- the qwmap command: exit status, messages, files written.
 *
 * Design note: the program is found beside the test program's folder
 * (BUILD/tests/test_qwmap -> BUILD/qwmap), which is where make puts both;
 * if it is not there (a build without tools) the tests are skipped.  Each
 * test works in its own temporary folder.
 */
#include "harness.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qwd/world.h"

static const char *qwmap_path(void)
{
	static char path[PATH_MAX + 16];
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	struct stat st;

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	for (int i = 0; i < 2; i++) {
		slash = strrchr(exe, '/');
		if (!slash)
			return NULL;
		*slash = '\0';
	}
	snprintf(path, sizeof(path), "%s/qwmap", exe);
	if (stat(path, &st) != 0 || !(st.st_mode & S_IXUSR))
		return NULL;
	return path;
}

struct run {
	char dir[64];
	int status;
	char out[4096], err[4096];
};

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* run qwmap with args (relative to r->dir) */
static void run_qwmap(struct run *r, const char *args)
{
	const char *exe = qwmap_path();
	char cmd[2048], path[256];
	int st;

	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s >out.txt 2>err.txt", r->dir, exe, args);
	st = system(cmd);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	snprintf(path, sizeof(path), "%s/out.txt", r->dir);
	slurp(path, r->out, sizeof(r->out));
	snprintf(path, sizeof(path), "%s/err.txt", r->dir);
	slurp(path, r->err, sizeof(r->err));
}

static int setup(void **state)
{
	struct run *r = calloc(1, sizeof(*r));

	if (!r)
		return -1;
	strcpy(r->dir, "/tmp/qwmap-test-XXXXXX");
	if (!mkdtemp(r->dir)) {
		free(r);
		return -1;
	}
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct run *r = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", r->dir);
	if (system(cmd) != 0)
		return -1;
	free(r);
	return 0;
}

#define ROOM_TEXT                                                             \
	"{\n\"classname\" \"worldspawn\"\n"                                   \
	"{\n( -16 -16 -16 ) ( -16 -15 -16 ) ( -16 -16 -15 ) w 0 0 0 1 1\n"    \
	"( 272 -16 -16 ) ( 272 -16 -15 ) ( 272 -15 -16 ) w 0 0 0 1 1\n"       \
	"( -16 -16 -16 ) ( -16 -16 -15 ) ( -15 -16 -16 ) w 0 0 0 1 1\n"       \
	"( -16 272 -16 ) ( -15 272 -16 ) ( -16 272 -15 ) w 0 0 0 1 1\n"       \
	"( -16 -16 -16 ) ( -15 -16 -16 ) ( -16 -15 -16 ) w 0 0 0 1 1\n"       \
	"( -16 -16 0 ) ( -16 -15 0 ) ( -15 -16 0 ) w 0 0 0 1 1\n}\n"          \
	"{\n( -16 -16 128 ) ( -16 -15 128 ) ( -16 -16 129 ) w 0 0 0 1 1\n"    \
	"( 272 -16 128 ) ( 272 -16 129 ) ( 272 -15 128 ) w 0 0 0 1 1\n"       \
	"( -16 -16 128 ) ( -16 -16 129 ) ( -15 -16 128 ) w 0 0 0 1 1\n"       \
	"( -16 272 128 ) ( -15 272 128 ) ( -16 272 129 ) w 0 0 0 1 1\n"       \
	"( -16 -16 128 ) ( -15 -16 128 ) ( -16 -15 128 ) w 0 0 0 1 1\n"       \
	"( -16 -16 144 ) ( -16 -15 144 ) ( -15 -16 144 ) w 0 0 0 1 1\n}\n"

/* the four walls, to close ROOM_TEXT's floor and ceiling into a room */
#define WALLS_TEXT                                                            \
	"{\n( -16 -16 0 ) ( -16 -15 0 ) ( -16 -16 1 ) w 0 0 0 1 1\n"          \
	"( 0 -16 0 ) ( 0 -16 1 ) ( 0 -15 0 ) w 0 0 0 1 1\n"                   \
	"( -16 -16 0 ) ( -16 -16 1 ) ( -15 -16 0 ) w 0 0 0 1 1\n"             \
	"( -16 272 0 ) ( -15 272 0 ) ( -16 272 1 ) w 0 0 0 1 1\n"             \
	"( -16 -16 0 ) ( -15 -16 0 ) ( -16 -15 0 ) w 0 0 0 1 1\n"             \
	"( -16 -16 128 ) ( -16 -15 128 ) ( -15 -16 128 ) w 0 0 0 1 1\n}\n"    \
	"{\n( 256 -16 0 ) ( 256 -15 0 ) ( 256 -16 1 ) w 0 0 0 1 1\n"          \
	"( 272 -16 0 ) ( 272 -16 1 ) ( 272 -15 0 ) w 0 0 0 1 1\n"             \
	"( 256 -16 0 ) ( 256 -16 1 ) ( 257 -16 0 ) w 0 0 0 1 1\n"             \
	"( 256 272 0 ) ( 257 272 0 ) ( 256 272 1 ) w 0 0 0 1 1\n"             \
	"( 256 -16 0 ) ( 257 -16 0 ) ( 256 -15 0 ) w 0 0 0 1 1\n"             \
	"( 256 -16 128 ) ( 256 -15 128 ) ( 257 -16 128 ) w 0 0 0 1 1\n}\n"    \
	"{\n( 0 -16 0 ) ( 0 -15 0 ) ( 0 -16 1 ) w 0 0 0 1 1\n"                \
	"( 256 -16 0 ) ( 256 -16 1 ) ( 256 -15 0 ) w 0 0 0 1 1\n"             \
	"( 0 -16 0 ) ( 0 -16 1 ) ( 1 -16 0 ) w 0 0 0 1 1\n"                   \
	"( 0 0 0 ) ( 1 0 0 ) ( 0 0 1 ) w 0 0 0 1 1\n"                         \
	"( 0 -16 0 ) ( 1 -16 0 ) ( 0 -15 0 ) w 0 0 0 1 1\n"                   \
	"( 0 -16 128 ) ( 0 -15 128 ) ( 1 -16 128 ) w 0 0 0 1 1\n}\n"

#define EAST_WALL_TEXT                                                        \
	"{\n( 0 256 0 ) ( 0 257 0 ) ( 0 256 1 ) w 0 0 0 1 1\n"                \
	"( 256 256 0 ) ( 256 256 1 ) ( 256 257 0 ) w 0 0 0 1 1\n"             \
	"( 0 256 0 ) ( 0 256 1 ) ( 1 256 0 ) w 0 0 0 1 1\n"                   \
	"( 0 272 0 ) ( 1 272 0 ) ( 0 272 1 ) w 0 0 0 1 1\n"                   \
	"( 0 256 0 ) ( 1 256 0 ) ( 0 257 0 ) w 0 0 0 1 1\n"                   \
	"( 0 256 128 ) ( 0 257 128 ) ( 1 256 128 ) w 0 0 0 1 1\n}\n"

#define PLAYER_TEXT "{\n\"classname\" \"info_player_start\"\n\"origin\" \"128 128 40\"\n}\n"

static void test_cli_compiles(void **state)
{
	struct run *r = *state;
	char path[256], err[256];
	struct bsp_map *m;

	if (!qwmap_path())
		fail_msg("no qwmap beside the test program (make builds it)");
	write_text(r->dir, "room.map", ROOM_TEXT WALLS_TEXT EAST_WALL_TEXT "}\n" PLAYER_TEXT);
	run_qwmap(r, "room.map room.bsp");
	if (r->status != 0)
		fail_msg("exit %d: %s", r->status, r->err);
	assert_non_null(strstr(r->out, "qwmap: room.map -> room.bsp: "));
	assert_non_null(strstr(r->out, " s\n"));
	snprintf(path, sizeof(path), "%s/room.bsp", r->dir);
	m = bsp_load(path, err, sizeof(err));
	if (!m)
		fail_msg("%s", err);
	bsp_free(m);
	/* -q: silent */
	run_qwmap(r, "-q room.map room2.bsp");
	assert_int_equal(r->status, 0);
	assert_string_equal(r->out, "");
	assert_string_equal(r->err, "");
}

static void test_cli_errors(void **state)
{
	struct run *r = *state;
	struct stat st;
	char path[256];

	if (!qwmap_path())
		fail_msg("no qwmap beside the test program (make builds it)");
	/* a bad number on line 4: exit 1, the file and line, no output file */
	write_text(r->dir, "bad.map",
		   "{\n\"classname\" \"worldspawn\"\n{\n"
		   "( 0 64 0 ) ( 0 0 6.4.0 ) ( 0 0 0 ) t 0 0 0 1 1\n}\n}\n");
	run_qwmap(r, "bad.map bad.bsp");
	assert_int_equal(r->status, 1);
	assert_non_null(strstr(r->err, "qwmap: bad.map:4: bad number '6.4.0'"));
	snprintf(path, sizeof(path), "%s/bad.bsp", r->dir);
	assert_int_not_equal(stat(path, &st), 0);
	/* a missing file */
	run_qwmap(r, "none.map none.bsp");
	assert_int_equal(r->status, 1);
	assert_non_null(strstr(r->err, "none.map"));
	/* usage */
	run_qwmap(r, "only-one.map");
	assert_int_equal(r->status, 1);
	assert_non_null(strstr(r->err, "usage"));
	run_qwmap(r, "-x a.map b.bsp");
	assert_int_equal(r->status, 1);
}

static void test_cli_leak(void **state)
{
	struct run *r = *state;
	char path[256], pts[256];

	if (!qwmap_path())
		fail_msg("no qwmap beside the test program (make builds it)");
	/* no east wall: the room is open to the void */
	write_text(r->dir, "leaky.map", ROOM_TEXT WALLS_TEXT "}\n" PLAYER_TEXT);
	run_qwmap(r, "leaky.map leaky.bsp");
	assert_int_equal(r->status, 1);
	assert_non_null(strstr(r->err, "qwmap: leaky.map:"));
	assert_non_null(strstr(r->err, "leak: entity 1 (info_player_start)"));
	snprintf(path, sizeof(path), "%s/leaky.pts", r->dir);
	slurp(path, pts, sizeof(pts));
	assert_memory_equal(pts, "128 128 40\n", 11);
	/* -leak writes the map anyway */
	run_qwmap(r, "-leak leaky.map leaky.bsp");
	assert_int_equal(r->status, 0);
	assert_non_null(strstr(r->out, "LEAKED"));
}

static const struct CMUnitTest cli_tests[] = {
	cmocka_unit_test_setup_teardown(test_cli_compiles, setup, teardown),
	cmocka_unit_test_setup_teardown(test_cli_errors, setup, teardown),
	cmocka_unit_test_setup_teardown(test_cli_leak, setup, teardown),
};

QWD_TEST_GROUP(qwmap_cli, cli_tests, NULL, NULL)
