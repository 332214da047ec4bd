/*
 * fuzz_match.c -- libFuzzer target: the match layer's settings (KTX's
 * k_* cvars as an operator's config or a mode's lines give them) and the
 * players' match commands with any words.
 *
 * Design note
 *   The settings are outside text: a server.cfg copied from a KTX
 *   server, or a value typed over rcon; the server hands each changed
 *   cvar to match_set, which must refuse what it cannot take with a
 *   message and keep its value.  Each input is lines of words: a line
 *   naming a setting stores its second word (match_set), then reads it
 *   back (match_get); any other line runs as a player's command of slot
 *   0 with its words (match_command), on a game without a level (the
 *   player is not in the game: the table's lookup and refusal run).
 *   Checks beyond ASan/UBSan (a broken one aborts): a refusal's message
 *   is terminated and names the setting (any case); a value taken reads back as a
 *   setting's text (a whole number or a name), terminated; the message of
 *   the day composed from the k_motd lines taken is terminated within
 *   its buffer, whatever they hold.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "qwd/game.h"
#include "qwd/match.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FZ_WORDS = 8, FZ_LINE = 256 };

static void one_line(struct match *m, char *line)
{
	const char *argv[FZ_WORDS];
	char err[256], back[128];
	int argc = 0;

	for (char *t = strtok(line, " \t"); t && argc < FZ_WORDS; t = strtok(NULL, " \t"))
		argv[argc++] = t;
	if (argc == 0)
		return;
	if (match_get(m, argv[0], back, sizeof(back))) {
		memset(err, 0x55, sizeof(err));
		if (match_set(m, argv[0], argc > 1 ? argv[1] : "", err, sizeof(err)) != 0) {
			if (!memchr(err, '\0', sizeof(err)) || !strcasestr(err, argv[0]))
				abort();
		}
		memset(back, 0x55, sizeof(back));
		if (!match_get(m, argv[0], back, sizeof(back)) ||
		    !memchr(back, '\0', sizeof(back)))
			abort();
		if (!strncasecmp(argv[0], "k_motd", 6)) {
			static char motd[600];	/* short of 15 long lines: cut */

			memset(motd, 0x55, sizeof(motd));
			match_motd_text(m, motd, sizeof(motd));
			if (!memchr(motd, '\0', sizeof(motd)))
				abort();
		}
		return;
	}
	(void)match_command(m, 0, argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct game *g;
	struct match_services svc = {0};
	struct match *m;
	char line[FZ_LINE];
	size_t n = 0;

	if (!g) {
		struct game_config cfg = {.max_entities = 64, .max_clients = 4, .seed = 1};

		g = game_create(&cfg);
		if (!g)
			abort();
	}
	m = match_create(g, &svc);
	if (!m)
		abort();
	for (size_t i = 0; i <= size; i++) {
		if (i == size || data[i] == '\n' || data[i] == '\0') {
			line[n] = '\0';
			one_line(m, line);
			n = 0;
		} else if (n + 1 < sizeof(line)) {
			line[n++] = (char)data[i];
		}
	}
	match_destroy(m);
	return 0;
}
