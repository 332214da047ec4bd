/*
 * commands.c -- the server's command recorder: one client's usercmds, as the
 * server runs them, written as a qwbots action file.
 *
 * Design note
 *   The file is the load generator's action-file format, version 1
 *   (docs/qwbots.md; its one reader and writer is src/common/actions.c):
 *
 *     qwbots-actions 1
 *     map NAME
 *     spawn X Y Z                 where the player stood at the first command
 *     source TEXT
 *     # time msec pitch yaw roll forward side up buttons impulse
 *     0.000 13 0.0000 90.0000 0.0000 400 0 0 0 0
 *
 *   so `qwbots --check-actions FILE` accepts it and `qwbots --actions FILE`
 *   replays it.  The header needs the spawn origin, known only when the
 *   first command runs, so it is written then.  Times are seconds from the
 *   first command on the caller's clock (monotonic: never decreasing, as
 *   the reader demands), printed to the millisecond by the format's own
 *   writer, which also wraps angles outside -360..360 (a client may send
 *   any float) so the file always reads back.
 *
 *   Bounded: the file never grows beyond max_bytes.  The first line that
 *   would cross the bound ends writing: it and every later command are
 *   counted in `dropped` and one log line says so; the file is thus a
 *   gap-free prefix of the stream and stays readable (only whole lines).
 *   A failed write ends writing the same way.
 *
 *   Memory: the struct and stdio's buffer are allocated by recorder_open;
 *   a command is formatted into a fixed line buffer (actions_format_line)
 *   and handed to fwrite: nothing is allocated per command.  The file is created mode
 *   0600 and not through a symbolic link, like a capture (a recording
 *   tells what a player did).
 */
#include "qwd/actions.h"
#include "qwd/capture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bsd/string.h>

#define RECORD_STDIO_BUFFER 65536

struct recorder {
	FILE *f;
	char *iobuf;			/* stdio's buffer, ours */
	const struct qwd_log *log;
	char path[256];
	char map[64];
	char source[256];
	uint64_t max_bytes;
	uint64_t bytes;
	uint64_t commands;
	uint64_t dropped;
	double t0;			/* time of the first command */
	double last;			/* time of the last line written */
	bool started;			/* header written */
	bool full, write_error, told;
};

struct recorder *recorder_open(const char *path, uint64_t max_bytes,
			       const char *map, const char *source,
			       const struct qwd_log *log, char *err,
			       size_t errlen)
{
	struct recorder *r;
	int fd;

	if (max_bytes == 0)
		max_bytes = RECORD_DEFAULT_MAX_BYTES;
	if (max_bytes < ACTIONS_LINE_MAX) {
		snprintf(err, errlen, "%s: a bound of %llu bytes is too small", path,
			 (unsigned long long)max_bytes);
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->iobuf = malloc(RECORD_STDIO_BUFFER))) {
		free(r);
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || !(r->f = fdopen(fd, "w"))) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(r->iobuf);
		free(r);
		return NULL;
	}
	setvbuf(r->f, r->iobuf, _IOFBF, RECORD_STDIO_BUFFER);
	r->log = log;
	r->max_bytes = max_bytes;
	strlcpy(r->path, path, sizeof(r->path));
	strlcpy(r->map, map ? map : "", sizeof(r->map));
	strlcpy(r->source, source ? source : "", sizeof(r->source));
	return r;
}

/* stop writing for good: the bound is reached or the disk refused */
static void stop_writing(struct recorder *r, bool error)
{
	if (r->full)
		return;
	r->full = true;
	r->write_error = error;
	qwd_logf(r->log, QWD_LOG_WARN, "record: %s %s after %llu commands; later ones are dropped",
		 r->path, error ? "could not be written" : "reached its size bound",
		 (unsigned long long)r->commands);
}

/* write len bytes of text, all or nothing against the bound */
static bool put(struct recorder *r, const char *text, size_t len)
{
	if (r->full)
		return false;
	if (r->bytes + len > r->max_bytes) {
		stop_writing(r, false);
		return false;
	}
	if (fwrite(text, 1, len, r->f) != len) {
		stop_writing(r, true);
		return false;
	}
	r->bytes += len;
	return true;
}

bool recorder_cmd(struct recorder *r, double now, const float origin[3],
		  const struct usercmd *cmd)
{
	char line[ACTIONS_LINE_MAX];
	double t;
	int n;

	if (!r)
		return false;
	if (r->full) {
		r->dropped++;
		return false;
	}
	if (!r->started) {
		n = actions_format_header(line, sizeof(line), r->map, origin, r->source);
		if (n < 0 || (size_t)n >= sizeof(line) || !put(r, line, (size_t)n)) {
			r->dropped++;
			return false;
		}
		r->started = true;
		r->t0 = now;
	}
	t = now - r->t0;
	if (!(t >= r->last))	/* a clock that went back, or NaN */
		t = r->last;
	n = actions_format_line(line, sizeof(line), t, cmd);
	if (n < 0 || (size_t)n >= sizeof(line) || !put(r, line, (size_t)n)) {
		r->dropped++;
		return false;
	}
	r->last = t;
	r->commands++;
	return true;
}

void recorder_set_map(struct recorder *r, const char *map)
{
	if (!r || r->started)
		return;
	strlcpy(r->map, map ? map : "", sizeof(r->map));
}

void recorder_get_stats(const struct recorder *r, struct recorder_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!r)
		return;
	out->commands = r->commands;
	out->bytes = r->bytes;
	out->max_bytes = r->max_bytes;
	out->dropped = r->dropped;
	out->seconds = r->started ? r->last : 0.0;
	out->full = r->full;
	out->write_error = r->write_error;
}

int recorder_flush(struct recorder *r)
{
	if (!r || r->write_error)
		return r ? -1 : 0;
	if (fflush(r->f) != 0) {
		stop_writing(r, true);
		return -1;
	}
	return 0;
}

int recorder_close(struct recorder *r)
{
	int rc;

	if (!r)
		return 0;
	if (!r->started && !r->full) {
		/* no command came: still a valid (empty) action file */
		char head[ACTIONS_LINE_MAX];
		int n = actions_format_header(head, sizeof(head), r->map, NULL, r->source);

		if (n > 0 && (size_t)n < sizeof(head))
			put(r, head, (size_t)n);
	}
	rc = r->write_error ? -1 : 0;
	if (fclose(r->f) != 0) {
		if (!r->write_error)
			qwd_logf(r->log, QWD_LOG_WARN, "record: %s could not be written",
				 r->path);
		rc = -1;
	}
	free(r->iobuf);
	free(r);
	return rc;
}
