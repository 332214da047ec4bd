/*
 * tests/harness.h -- one cmocka program per module, many files per program.
 *
 * Design note: each test file registers its groups with QWD_TEST_GROUP; the
 * shared main (tests/harness.c) runs every registered group in the order
 * the linker put them, so adding a file to tests/<module>/ adds its tests to
 * that module's program without editing a list.  Tests that read the real
 * maps find them through qwd_realmaps_dir() ($QWD_REALMAPS, by default
 * ../shared/realmaps) and are skipped when the folder is absent.
 *
 * A skip always says why: qwd_skip("...") prints one line
 * "[  REASON  ] <test>: <why>" before cmocka's own "[  SKIPPED ]", and
 * scripts/suite.py gathers those lines into its totals.  A skip is for
 * a missing optional extra (the community maps, tshark, a peer), never
 * for the project's own data: the bundled maps are always built.
 */
#ifndef QWD_TESTS_HARNESS_H
#define QWD_TESTS_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

struct qwd_test_group {
	const char *name;
	const struct CMUnitTest *tests;
	size_t count;
	CMFixtureFunction setup, teardown;
};

void qwd_test_register(const struct qwd_test_group *g);

#define QWD_TEST_GROUP(gname, array, setup_fn, teardown_fn)                  \
	static const struct qwd_test_group qwd_group_##gname = {             \
		#gname, array, sizeof(array) / sizeof((array)[0]), setup_fn, \
		teardown_fn};                                                \
	__attribute__((constructor)) static void qwd_reg_##gname(void)       \
	{                                                                    \
		qwd_test_register(&qwd_group_##gname);                       \
	}

/* folder of the real maps, or NULL when it is not there */
const char *qwd_realmaps_dir(void);
/* the folder looked in for them, there or not */
const char *qwd_realmaps_where(void);
/* path of a real map in a static buffer, or NULL when they are absent */
const char *qwd_realmap(const char *file);
/* say why the running test is skipped, then skip it (cmocka's skip()) */
void qwd_skip_reason(const char *func, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#define qwd_skip(...)                                   \
	do {                                            \
		qwd_skip_reason(__func__, __VA_ARGS__); \
		skip();                                 \
	} while (0)
/* skip the running test: it needs the community maps, which are absent */
#define qwd_skip_no_realmaps()                                               \
	qwd_skip("no community maps in %s (optional; set QWD_REALMAPS)", \
		 qwd_realmaps_where())
/* path of a map the build compiled from maps/<name>.map (build/maps/) */
const char *qwd_bundled_map(const char *name);
/* path of that map's source, maps/<name>.map of the source tree */
const char *qwd_bundled_map_source(const char *name);
/* call fn once per bundled map (each maps/<name>.map, by name in C
 * order) with its name; returns how many there were (0: the folder
 * could not be read, which the caller's assertion turns into a failure) */
int qwd_each_bundled_map(void (*fn)(const char *name, void *arg), void *arg);
/* the build folder the running test program was built in (the folder
 * above build/tests/, or build/san/tests/), where qwd and the tools are;
 * NULL when /proc/self/exe cannot be read */
const char *qwd_build_dir(void);
/* read a whole file into a malloc'd buffer, one byte longer than *size
 * (room for a terminating NUL); NULL on failure */
uint8_t *qwd_read_file(const char *path, size_t *size);

#endif
