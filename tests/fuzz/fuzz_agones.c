/*
 * fuzz_agones.c -- libFuzzer target: what qwd reads of the Agones
 * sidecar's answers and watch lines (src/agones/parse.c).
 *
 * Design note
 *   The input's first byte picks the call whose answer the rest is read
 *   as (agones_parse_answer), and the rest is also read as a watch line
 *   (agones_parse_gameserver).  Beyond ASan and UBSan the target checks
 *   the readers' contract: 0 or -1; on -1 the message is set; on 0 every
 *   copied string is terminated inside its field and the label and
 *   annotation counts stay within AGONES_KV_MAX.  A broken contract
 *   aborts, so libFuzzer keeps the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/agones.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_fail(const char *what)
{
	fprintf(stderr, "fuzz_agones: contract broken: %s\n", what);
	abort();
}

static void fz_terminated(const char *s, size_t size, const char *what)
{
	if (memchr(s, '\0', size) == NULL)
		fz_fail(what);
}

static void fz_check_gs(const struct agones_gs *gs)
{
	fz_terminated(gs->state, sizeof(gs->state), "state");
	fz_terminated(gs->name, sizeof(gs->name), "name");
	fz_terminated(gs->uid, sizeof(gs->uid), "uid");
	fz_terminated(gs->creation_timestamp, sizeof(gs->creation_timestamp),
		      "creation_timestamp");
	if (gs->num_labels < 0 || gs->num_labels > AGONES_KV_MAX ||
	    gs->num_annotations < 0 || gs->num_annotations > AGONES_KV_MAX)
		fz_fail("label or annotation count");
	for (int i = 0; i < gs->num_labels; i++) {
		fz_terminated(gs->labels[i].key, AGONES_KEY_MAX, "label key");
		fz_terminated(gs->labels[i].value, AGONES_VALUE_MAX,
			      "label value");
	}
	for (int i = 0; i < gs->num_annotations; i++) {
		fz_terminated(gs->annotations[i].key, AGONES_KEY_MAX,
			      "annotation key");
		fz_terminated(gs->annotations[i].value, AGONES_VALUE_MAX,
			      "annotation value");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct agones_gs gs;
	char err[128];
	if (size == 0)
		return 0;
	enum agones_call call = (enum agones_call)(data[0] % AGONES_CALLS);
	const char *text = (const char *)data + 1;
	size_t len = size - 1;

	err[0] = '\0';
	if (agones_parse_gameserver(text, len, &gs, err, sizeof(err)) == 0)
		fz_check_gs(&gs);
	else if (err[0] == '\0')
		fz_fail("gameserver: -1 without a message");

	struct agones_answer a = {.call = call};
	err[0] = '\0';
	if (agones_parse_answer(call, text, len, &a, &gs, err, sizeof(err)) ==
	    0) {
		if (call == AGONES_GAMESERVER && a.gs != &gs)
			fz_fail("gameserver answer without its GameServer");
		if (a.gs)
			fz_check_gs(a.gs);
		if (a.num_ids < 0)
			fz_fail("negative id count");
	} else if (err[0] == '\0') {
		fz_fail("answer: -1 without a message");
	}
	return 0;
}
