/*
 * table.c -- the big tables a server allocates once (its clients, the
 * entity-state rings, the game's entities): zeroed, cache-line aligned,
 * and on transparent huge pages where the kernel gives them.
 *
 * Design note
 *   A frame of a server of a thousand players reads a few fields of every
 *   client, player entry and entity state, scattered over some 40 MB: with
 *   4 KB pages nearly every such read is a TLB miss, and in a virtual
 *   machine a miss walks two page tables.  Many kernels (and this
 *   project's test machines) run transparent huge pages in "madvise" mode,
 *   so a table of QWD_TABLE_HUGE_MIN bytes or more is mapped on its own,
 *   2 MB aligned and rounded up to 2 MB, and advised MADV_HUGEPAGE; the
 *   kernel then backs it with 2 MB pages as it is touched (or does not:
 *   "never", a container's policy, no free huge pages; the table is the
 *   same memory either way).  A smaller table comes from the C heap, as
 *   before.  The size decides which, so the caller frees with the size it
 *   allocated (qwd_table_free), and nothing is recorded anywhere.
 *   qwd_table_thp_mode reads the kernel's mode, for the start-up log.
 *   The AddressSanitizer build takes every table from the heap
 *   (QWD_TABLE_HUGE_MIN is then SIZE_MAX): a mapping of its own has no
 *   redzone, and an overrun into its rounding would go unseen.
 */
#include <qwd/common.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define TABLE_PAGE ((size_t)2 << 20)	/* x86-64's huge page */

static size_t rounded(size_t size)
{
	return (size + TABLE_PAGE - 1) & ~(TABLE_PAGE - 1);
}

void *qwd_table_alloc(size_t size)
{
	if (size == 0)
		size = 1;
	if (size > SIZE_MAX - 2 * TABLE_PAGE)
		return NULL;	/* no mapping holds it; the rounding would wrap */
	if (size < QWD_TABLE_HUGE_MIN) {
		size_t n = (size + 63) & ~(size_t)63;
		void *p = aligned_alloc(64, n);

		if (p)
			memset(p, 0, n);
		return p;
	}
	/* map a huge page more than needed, keep the aligned part */
	size_t len = rounded(size);
	uint8_t *raw = mmap(NULL, len + TABLE_PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (raw == MAP_FAILED)
		return NULL;
	uintptr_t at = ((uintptr_t)raw + TABLE_PAGE - 1) & ~(uintptr_t)(TABLE_PAGE - 1);
	uint8_t *p = (uint8_t *)at;
	size_t head = (size_t)(p - raw), tail = TABLE_PAGE - head;

	if (head)
		munmap(raw, head);
	if (tail)
		munmap(p + len, tail);
#ifdef MADV_HUGEPAGE
	/* advice only: refused (EINVAL where THP is not built in), the
	 * table is the same on small pages */
	(void)madvise(p, len, MADV_HUGEPAGE);
#endif
	return p;
}

void qwd_table_free(void *p, size_t size)
{
	if (!p)
		return;
	if (size == 0)
		size = 1;
	if (size < QWD_TABLE_HUGE_MIN) {
		free(p);
		return;
	}
	munmap(p, rounded(size));
}

const char *qwd_table_thp_mode(char *buf, size_t size)
{
	char line[128];
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	const char *lb, *rb;

	snprintf(buf, size, "unavailable");
	if (!f)
		return buf;
	if (fgets(line, sizeof(line), f)) {
		/* "always [madvise] never": the bracketed word is the mode */
		lb = strchr(line, '[');
		rb = lb ? strchr(lb, ']') : NULL;
		if (rb && rb - lb - 1 < 16)
			snprintf(buf, size, "%.*s", (int)(rb - lb - 1), lb + 1);
	}
	fclose(f);
	return buf;
}
