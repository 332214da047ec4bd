/*
 * tests/harness.c -- the shared main of every module's test program.
 *
 * Design note: groups register themselves before main (constructors); main
 * runs them all and exits non-zero if any test failed, so make sees a
 * failure.  The registry is a fixed array: a test program has few groups.
 * Two options let the suite's runner (scripts/suite.py) spread one
 * program over the cores: "--list" prints the groups' names, one a line,
 * and runs nothing; "--group NAME" (repeatable) runs only the groups so
 * named.  A name no group has is an error (exit 2), so a runner working
 * from a stale list fails rather than passes nothing quietly.
 */
#include "harness.h"

#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_GROUPS = 64 };
static const struct qwd_test_group *groups[MAX_GROUPS];
static int num_groups;

void qwd_test_register(const struct qwd_test_group *g)
{
	if (num_groups == MAX_GROUPS) {
		fprintf(stderr, "harness: more than %d test groups\n", MAX_GROUPS);
		abort();
	}
	groups[num_groups++] = g;
}

const char *qwd_realmaps_where(void)
{
	const char *dir = getenv("QWD_REALMAPS");

	return dir && *dir ? dir : "../shared/realmaps";
}

const char *qwd_realmaps_dir(void)
{
	const char *dir = qwd_realmaps_where();
	struct stat st;

	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return NULL;
	return dir;
}

const char *qwd_realmap(const char *file)
{
	static char path[1024];
	const char *dir = qwd_realmaps_dir();

	if (!dir)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return path;
}

void qwd_skip_reason(const char *func, const char *fmt, ...)
{
	va_list ap;

	printf("[  REASON  ] %s: ", func);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

const char *qwd_bundled_map(const char *name)
{
	static char path[1024];

	snprintf(path, sizeof(path), "%s/%s.bsp", QWD_MAPDIR, name);
	return path;
}

const char *qwd_bundled_map_source(const char *name)
{
	static char path[1024];

	snprintf(path, sizeof(path), "%s/%s.map", QWD_MAPSRC, name);
	return path;
}

static int is_map_source(const struct dirent *de)
{
	size_t n = strlen(de->d_name);

	return n > 4 && strcmp(de->d_name + n - 4, ".map") == 0;
}

int qwd_each_bundled_map(void (*fn)(const char *name, void *arg), void *arg)
{
	struct dirent **list;
	int n = scandir(QWD_MAPSRC, &list, is_map_source, alphasort);

	if (n < 0) {
		fprintf(stderr, "harness: %s: cannot list the map sources\n",
			QWD_MAPSRC);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		char name[256];

		snprintf(name, sizeof(name), "%.*s",
			 (int)(strlen(list[i]->d_name) - 4), list[i]->d_name);
		fn(name, arg);
	}
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
	return n;
}

const char *qwd_build_dir(void)
{
	static char dir[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);

	if (n <= 0)
		return NULL;
	dir[n] = '\0';
	/* .../BUILD/tests/test_module: two folders up */
	for (int i = 0; i < 2; i++) {
		char *slash = strrchr(dir, '/');

		if (!slash)
			return NULL;
		*slash = '\0';
	}
	return dir;
}

uint8_t *qwd_read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else if (buf) {
			*size = (size_t)n;
		}
	}
	fclose(f);
	return buf;
}

static int usage(const char *self)
{
	fprintf(stderr, "usage: %s [--list | --group NAME ...]\n", self);
	return 2;
}

/* is group g among the names given with --group (all when none is) */
static int wanted(const struct qwd_test_group *g, char **names, int n)
{
	if (n == 0)
		return 1;
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], g->name) == 0)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	/* QWD_TEST_GROUP=NAME stands for --group NAME, QWD_TEST_FILTER=TEST
	 * runs the tests so named (cmocka's pattern): a developer's loop */
	const char *env_group = getenv("QWD_TEST_GROUP");
	const char *filter = getenv("QWD_TEST_FILTER");
	char **names = calloc((size_t)argc + 1, sizeof(*names));
	int failed = 0, n = 0;

	if (filter && *filter)
		cmocka_set_test_filter(filter);

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--list") == 0 && argc == 2) {
			for (int g = 0; g < num_groups; g++)
				printf("%s\n", groups[g]->name);
			free(names);
			return 0;
		}
		if (strcmp(argv[i], "--group") != 0 || i + 1 == argc || !names) {
			free(names);
			return usage(argv[0]);
		}
		names[n++] = argv[++i];
	}
	if (n == 0 && env_group && *env_group && names)
		names[n++] = (char *)env_group;
	for (int i = 0; i < n; i++) {
		int found = 0;

		for (int g = 0; g < num_groups && !found; g++)
			found = strcmp(names[i], groups[g]->name) == 0;
		if (!found) {
			fprintf(stderr, "%s: no test group \"%s\" (--list names them)\n",
				argv[0], names[i]);
			free(names);
			return 2;
		}
	}
	for (int i = 0; i < num_groups; i++)
		if (wanted(groups[i], names, n))
			failed += _cmocka_run_group_tests(groups[i]->name, groups[i]->tests,
							  groups[i]->count, groups[i]->setup,
							  groups[i]->teardown);
	free(names);
	return failed ? 1 : 0;
}
