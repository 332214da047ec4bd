/*
 * test_log.c -- logging through a capturing sink.
 *
 * Design note: the sink records what it was handed, so the tests check
 * the line and level a sink sees (level filter, formatting, truncation,
 * one-line guarantee), never stderr's timestamps.
 */
#include "../harness.h"

#include <qwd/common.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct capture {
	int calls;
	int level;
	char line[QWD_LOG_LINE_MAX + 16];
};

static void capture_sink(void *ctx, int level, const char *line)
{
	struct capture *c = ctx;
	size_t n = strlen(line);

	c->calls++;
	c->level = level;
	/* an overlong line must fail the test, not be cut here */
	assert_true(n < sizeof(c->line));
	memcpy(c->line, line, n + 1);
}

static void test_level_filter(void **state)
{
	struct capture cap = {0};
	struct qwd_log log = {capture_sink, &cap, QWD_LOG_WARN};

	(void)state;
	qwd_logf(&log, QWD_LOG_DEBUG, "debug %d", 1);
	qwd_logf(&log, QWD_LOG_INFO, "info");
	assert_int_equal(cap.calls, 0);
	qwd_logf(&log, QWD_LOG_WARN, "warn %s", "x");
	assert_int_equal(cap.calls, 1);
	assert_int_equal(cap.level, QWD_LOG_WARN);
	assert_string_equal(cap.line, "warn x");
	qwd_logf(&log, QWD_LOG_ERROR, "error");
	assert_int_equal(cap.calls, 2);
	assert_int_equal(cap.level, QWD_LOG_ERROR);

	log.min_level = QWD_LOG_DEBUG;
	qwd_logf(&log, QWD_LOG_DEBUG, "now %s", "seen");
	assert_int_equal(cap.calls, 3);
	assert_string_equal(cap.line, "now seen");
}

static void test_formatting(void **state)
{
	struct capture cap = {0};
	struct qwd_log log = {capture_sink, &cap, QWD_LOG_DEBUG};

	(void)state;
	qwd_logf(&log, QWD_LOG_INFO, "%s connected from %d.%d.%d.%d:%u (%.1f)",
		 "player", 10, 0, 0, 1, 27001u, 2.5);
	assert_string_equal(cap.line,
			    "player connected from 10.0.0.1:27001 (2.5)");
	qwd_logf(&log, QWD_LOG_INFO, "%s", "");
	assert_string_equal(cap.line, "");
}

static void test_one_line(void **state)
{
	struct capture cap = {0};
	struct qwd_log log = {capture_sink, &cap, QWD_LOG_DEBUG};

	(void)state;
	/* a trailing newline is dropped, not shown as '?' */
	qwd_logf(&log, QWD_LOG_INFO, "done\n");
	assert_string_equal(cap.line, "done");
	qwd_logf(&log, QWD_LOG_INFO, "crlf\r\n");
	assert_string_equal(cap.line, "crlf");
	/* a client name with a newline cannot forge a second log line */
	qwd_logf(&log, QWD_LOG_INFO, "name: %s",
		 "evil\n2024-01-01 ERROR forged");
	assert_int_equal(cap.calls, 3);
	assert_null(strchr(cap.line, '\n'));
	assert_string_equal(cap.line, "name: evil?2024-01-01 ERROR forged");
	/* tabs are kept */
	qwd_logf(&log, QWD_LOG_INFO, "a\tb");
	assert_string_equal(cap.line, "a\tb");
}

static void test_truncation(void **state)
{
	struct capture cap = {0};
	struct qwd_log log = {capture_sink, &cap, QWD_LOG_DEBUG};
	char big[QWD_LOG_LINE_MAX * 2];
	size_t n;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	qwd_logf(&log, QWD_LOG_WARN, "%s", big);
	n = strlen(cap.line);
	assert_int_equal(n, QWD_LOG_LINE_MAX - 1);
	assert_string_equal(cap.line + n - 3, "...");
	assert_int_equal(cap.line[n - 4], 'x');

	/* exactly the longest line that fits is not marked */
	big[QWD_LOG_LINE_MAX - 1] = '\0';
	qwd_logf(&log, QWD_LOG_WARN, "%s", big);
	assert_int_equal(strlen(cap.line), QWD_LOG_LINE_MAX - 1);
	assert_int_equal(cap.line[QWD_LOG_LINE_MAX - 2], 'x');
}

static void test_level_names(void **state)
{
	(void)state;
	assert_string_equal(qwd_log_level_name(QWD_LOG_DEBUG), "DEBUG");
	assert_string_equal(qwd_log_level_name(QWD_LOG_INFO), "INFO");
	assert_string_equal(qwd_log_level_name(QWD_LOG_WARN), "WARN");
	assert_string_equal(qwd_log_level_name(QWD_LOG_ERROR), "ERROR");
	assert_string_equal(qwd_log_level_name(-1), "?");
	assert_string_equal(qwd_log_level_name(4), "?");
}

/* NULL log and NULL sink fall back to stderr; the NULL log drops DEBUG.
 * stderr is pointed at a temporary file for the duration. */
static void test_default_sink(void **state)
{
	struct qwd_log no_sink = {NULL, NULL, QWD_LOG_ERROR};
	FILE *tmp = tmpfile();
	char out[1024];
	size_t n;
	int saved;

	(void)state;
	assert_non_null(tmp);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);

	qwd_logf(NULL, QWD_LOG_DEBUG, "test_log: not shown");
	qwd_logf(NULL, QWD_LOG_INFO, "test_log: default %s", "sink");
	qwd_logf(&no_sink, QWD_LOG_WARN, "test_log: filtered");
	qwd_logf(&no_sink, QWD_LOG_ERROR, "test_log: NULL sink");

	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, sizeof(out) - 1, tmp);
	out[n] = '\0';
	fclose(tmp);

	assert_non_null(strstr(out, "Z INFO test_log: default sink\n"));
	assert_non_null(strstr(out, "Z ERROR test_log: NULL sink\n"));
	assert_null(strstr(out, "not shown"));
	assert_null(strstr(out, "filtered"));
	/* "2024-05-01T12:00:00.123Z INFO ...": a timestamp opens each line */
	assert_true(out[4] == '-' && out[10] == 'T' && out[19] == '.');
}

static const struct CMUnitTest log_tests[] = {
	cmocka_unit_test(test_level_filter),
	cmocka_unit_test(test_formatting),
	cmocka_unit_test(test_one_line),
	cmocka_unit_test(test_truncation),
	cmocka_unit_test(test_level_names),
	cmocka_unit_test(test_default_sink),
};

QWD_TEST_GROUP(common_log, log_tests, NULL, NULL)
