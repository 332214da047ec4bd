/*
 * log.c -- leveled logging into a caller-supplied sink.
 *
 * Design note
 *   The server, the tools and the tests each decide where lines go, so a
 *   log is a small struct they own: a sink function, its context, and the
 *   lowest level worth formatting.  There is no global logger; code that
 *   logs is handed a const struct qwd_log *.  NULL stands for "stderr,
 *   INFO and up", which is what a tool wants before it has set anything up.
 *
 *   A sink receives exactly one line: formatted into a stack buffer of
 *   QWD_LOG_LINE_MAX bytes (a longer message is cut and ends in "..."), with
 *   trailing newlines removed and every other control character replaced
 *   by '?'.  Messages quote client-controlled text (names, commands), and a
 *   newline in a name must not let a client forge a line in the log.
 *   Nothing is allocated, so logging is safe in the frame loop; a level
 *   below min_level costs one comparison, not a format.
 */
#include <qwd/common.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

/* level used when no qwd_log is given */
enum { DEFAULT_MIN_LEVEL = QWD_LOG_INFO };

const char *qwd_log_level_name(int level)
{
	static const char *const names[] = {"DEBUG", "INFO", "WARN", "ERROR"};

	if (level < QWD_LOG_DEBUG || level > QWD_LOG_ERROR)
		return "?";
	return names[level];
}

void qwd_log_stderr_sink(void *ctx, int level, const char *line)
{
	struct timespec ts;
	struct tm tm;
	char stamp[32] = "(no clock)";

	(void)ctx;
	if (clock_gettime(CLOCK_REALTIME, &ts) == 0 &&
	    gmtime_r(&ts.tv_sec, &tm) != NULL)
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	else
		ts.tv_nsec = 0;
	/* one fprintf, so that concurrent writers do not interleave inside
	 * a line (stdio locks the stream per call) */
	fprintf(stderr, "%s.%03ldZ %s %s\n", stamp, ts.tv_nsec / 1000000L,
		qwd_log_level_name(level), line);
}

/* make the buffer one printable line */
static void tidy_line(char *line, size_t len)
{
	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];

		if ((c < 32 && c != '\t') || c == 127)
			line[i] = '?';
	}
}

void qwd_vlogf(const struct qwd_log *log, int level, const char *fmt,
	       va_list ap)
{
	void (*sink)(void *, int, const char *) = qwd_log_stderr_sink;
	void *ctx = NULL;
	int min_level = DEFAULT_MIN_LEVEL;
	char line[QWD_LOG_LINE_MAX];
	int n;
	size_t len;

	if (log) {
		if (log->sink) {
			sink = log->sink;
			ctx = log->ctx;
		}
		min_level = log->min_level;
	}
	if (level < min_level)
		return;

	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n < 0) {
		snprintf(line, sizeof(line), "(bad log format: %s)", fmt);
		len = strlen(line);
	} else if ((size_t)n >= sizeof(line)) {
		len = sizeof(line) - 1;
		memcpy(line + len - 3, "...", 3);
	} else {
		len = (size_t)n;
	}
	tidy_line(line, len);
	sink(ctx, level, line);
}

void qwd_logf(const struct qwd_log *log, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	qwd_vlogf(log, level, fmt, ap);
	va_end(ap);
}
