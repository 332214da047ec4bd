/*
 * fuzz_actions.c -- libFuzzer target: the action-file reader
 * (actions_parse, src/common/actions.c).
 *
 * Design note
 *   An action file is text a researcher writes, edits or downloads: a
 *   header and timed usercmd lines.  Beyond ASan and UBSan the target
 *   checks the reader's contract:
 *   - it returns 0 or -1; on -1 the message is set and the list is empty
 *     and safe to free, and at least one line was counted bad, or the
 *     header was incomplete;
 *   - on 0: no bad line, the commands counted are the commands kept, the
 *     times never decrease and each field is within the range the file
 *     format states (docs/qwbots.md), the map name is terminated;
 *   - a file that parsed, written back with the writer and read again,
 *     gives the same commands (the writer and the reader agree on the
 *     format), within the writer's printed precision.
 *   A broken contract aborts, so libFuzzer keeps the input.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/actions.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FZ_ROUND_TRIP_MAX = 4096 };	/* commands written back and re-read */

static void fz_fail(const char *what, long a, long b)
{
	fprintf(stderr, "fuzz_actions: contract broken: %s [%ld %ld]\n", what,
		a, b);
	abort();
}

static void fz_check(const struct actions *a,
		     const struct actions_stats *st)
{
	if (st->bad_lines != 0)
		fz_fail("accepted with bad lines", (long)st->bad_lines, 0);
	if (st->commands != a->n)
		fz_fail("commands counted are not the commands kept",
			(long)st->commands, (long)a->n);
	if (!memchr(a->map, '\0', sizeof(a->map)) ||
	    !memchr(a->source, '\0', sizeof(a->source)))
		fz_fail("map or source unterminated", 0, 0);
	for (size_t i = 0; i < a->n; i++) {
		const struct action *c = &a->v[i];

		if (!isfinite(c->time) || c->time < 0 ||
		    (i && c->time < a->v[i - 1].time))
			fz_fail("time negative, not finite or decreasing", (long)i, 0);
		for (int k = 0; k < 3; k++)
			if (!isfinite(c->cmd.angles[k]) || fabsf(c->cmd.angles[k]) > 360)
				fz_fail("angle out of range", (long)i, k);
	}
}

static void fz_round_trip(const struct actions *a)
{
	struct actions b;
	struct actions_stats st;
	char *text = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	actions_write_header(f, a->map, a->has_spawn ? a->spawn : NULL,
				 a->source);
	for (size_t i = 0; i < a->n; i++)
		actions_write_line(f, a->v[i].time, &a->v[i].cmd);
	fclose(f);
	memset(&st, 0, sizeof(st));
	if (actions_parse("again", text, len, &b, &st, err, sizeof(err)) != 0) {
		fprintf(stderr, "fuzz_actions: written back, refused: %s\n", err);
		fz_fail("the writer's output is refused by the reader", 0, 0);
	}
	if (b.n != a->n)
		fz_fail("round trip changed the command count", (long)a->n, (long)b.n);
	for (size_t i = 0; i < a->n; i++) {
		const struct usercmd *x = &a->v[i].cmd, *y = &b.v[i].cmd;

		if (x->msec != y->msec || x->forwardmove != y->forwardmove ||
		    x->sidemove != y->sidemove || x->upmove != y->upmove ||
		    x->buttons != y->buttons || x->impulse != y->impulse)
			fz_fail("round trip changed a command", (long)i, 0);
		if (fabs(a->v[i].time - b.v[i].time) > 0.001)
			fz_fail("round trip changed a time", (long)i, 0);
	}
	if (strcmp(a->map, b.map) != 0)
		fz_fail("round trip changed the map", 0, 0);
	actions_free(&b);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct actions a;
	struct actions_stats st;
	char err[256];
	int rc;

	memset(&a, 0xa5, sizeof(a));
	memset(&st, 0, sizeof(st));
	memset(err, 0x7f, sizeof(err));
	rc = actions_parse("fuzz.act", (const char *)data, size, &a, &st,
			       err, sizeof(err));
	if (rc != 0 && rc != -1)
		fz_fail("parse returned neither 0 nor -1", rc, 0);
	if (rc < 0) {
		if (err[0] == '\0' || !memchr(err, '\0', sizeof(err)))
			fz_fail("refused without a message", (long)size, 0);
		if (a.n != 0 || a.v != NULL)
			fz_fail("refused list is not empty", (long)a.n, 0);
	} else {
		fz_check(&a, &st);
		if (a.n <= FZ_ROUND_TRIP_MAX)
			fz_round_trip(&a);
	}
	actions_free(&a);
	return 0;
}
