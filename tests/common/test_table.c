/*
 * test_table.c -- the big tables (qwd_table_alloc, qwd_table_free,
 * qwd_table_thp_mode).
 *
 * Design note: a table is zeroed, aligned and writable whatever its size;
 * one of QWD_TABLE_HUGE_MIN bytes or more is a mapping of its own on a
 * 2 MB boundary that the kernel was told to back with huge pages (the
 * "hg" flag of its VMA in /proc/self/smaps, where the kernel has
 * transparent huge pages at all), and is gone once freed.  Whether the
 * kernel then gives huge pages is its policy, not asserted.
 */
#include "../harness.h"

#include <qwd/common.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static void test_small_table(void **state)
{
	(void)state;
	/* up to 1 MB, or the threshold if lower */
	size_t most = QWD_TABLE_HUGE_MIN < ((size_t)1 << 20) ? QWD_TABLE_HUGE_MIN
							       : (size_t)1 << 20;

	for (size_t n = 1; n < most; n = n * 7 + 13) {
		uint8_t *p = qwd_table_alloc(n);

		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 64, 0);
		assert_true(all_zero(p, n));
		memset(p, 0xAB, n);
		qwd_table_free(p, n);
	}
	qwd_table_free(NULL, 100);
	/* a size no mapping can hold: NULL, not a wrapped small one */
	assert_null(qwd_table_alloc(SIZE_MAX - 4096));
}

/* the VmFlags line of the mapping holding p; false when none holds it */
static bool vm_flags_of(const void *p, char *flags, size_t size)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false, found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		/* a mapping's header: "lo-hi perms ..."; its fields follow */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			snprintf(flags, size, "%.*s", (int)(size - 1), line + 8);
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

static bool mapped(const void *p)
{
	unsigned char v;

	return mincore((void *)p, (size_t)sysconf(_SC_PAGESIZE), &v) == 0 ||
	       errno != ENOMEM;
}

static void test_big_table(void **state)
{
	size_t n = ((size_t)4 << 20) + 1;
	/* the sanitizer build keeps every table on the heap (common.h) */
	bool huge = n >= QWD_TABLE_HUGE_MIN;
	uint8_t *p = qwd_table_alloc(n);
	char flags[512], mode[16];

	(void)state;
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % (huge ? (2u << 20) : 64), 0);
	assert_true(all_zero(p, n));
	memset(p, 0x5A, n);
	if (!huge) {
		qwd_table_free(p, n);
		return;
	}
	assert_true(mapped(p));
	assert_true(mapped(p + n - 1));
	qwd_table_thp_mode(mode, sizeof(mode));
	if (strcmp(mode, "unavailable")) {
		/* advised, whatever the mode: "hg" (VM_HUGEPAGE) */
		assert_true(vm_flags_of(p, flags, sizeof(flags)));
		assert_non_null(strstr(flags, " hg"));
	}
	qwd_table_free(p, n);
	assert_false(mapped(p));
	assert_false(mapped(p + n - 1));
}

static void test_thp_mode(void **state)
{
	char mode[16];
	const char *m = qwd_table_thp_mode(mode, sizeof(mode));

	(void)state;
	assert_ptr_equal(m, mode);
	assert_true(!strcmp(m, "always") || !strcmp(m, "madvise") ||
		    !strcmp(m, "never") || !strcmp(m, "unavailable"));
}

static const struct CMUnitTest table_tests[] = {
	cmocka_unit_test(test_small_table),
	cmocka_unit_test(test_big_table),
	cmocka_unit_test(test_thp_mode),
};

QWD_TEST_GROUP(common_table, table_tests, NULL, NULL)
