/*
 * qwd/actions.h -- the action file: a recorded, timed usercmd stream, as
 * the server's command recorder (cmdrecord) writes it and the load
 * generator (qwbots --actions, --from-pcap, --record) reads and writes it.
 *
 * Design note
 *   One owner for the format (src/common/actions.c; docs/qwbots.md has
 *   the full description):
 *
 *     qwbots-actions 1                      magic and version, first
 *     map lqdm1                             required, one word
 *     spawn 480.000 -352.000 88.000         or "spawn none"
 *     source walker bot 0, seed 1           optional free text
 *     # time msec pitch yaw roll forward side up buttons impulse
 *     0.000 33 0.0000 90.0000 0.0000 400 0 0 0 0
 *
 *   The writers format into a caller's buffer (the server's recorder,
 *   which bounds its file and allocates nothing per command) or onto a
 *   stream (qwbots); whatever they write, the reader reads back.
 */
#ifndef QWD_ACTIONS_H
#define QWD_ACTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "qwd/common.h"

#define ACTIONS_MAGIC "qwbots-actions"
#define ACTIONS_VERSION 1
/* the longest line the reader takes (a formatted one is far shorter) */
#define ACTIONS_LINE_MAX 1024
enum { ACTIONS_MAP_MAX = 64 };

/* One recorded command: when it was taken, seconds from the first. */
struct action {
	double time;
	struct usercmd cmd;
};

struct actions {
	char map[ACTIONS_MAP_MAX];	/* "unknown" when the source did not say */
	bool has_spawn;
	vec3_t spawn;		/* the origin the stream started from */
	char source[128];	/* free text: where it was recorded */
	struct action *v;
	size_t n, cap;
};

/* What a parse saw: a file is accepted only when bad_lines is 0, and the
 * first error (with its line number) is in err. */
struct actions_stats {
	size_t lines;		/* physical lines read */
	size_t commands;	/* command lines kept */
	size_t bad_lines;	/* malformed lines */
	size_t first_bad_line;	/* 0: none */
};

/* Parse text (len bytes, need not be terminated).  name is used in error
 * messages ("name:line: reason").  Returns 0, or -1 with err set; out is
 * then empty (and safe to free).  Allocates out->v. */
int actions_parse(const char *name, const char *text, size_t len,
		  struct actions *out, struct actions_stats *st, char *err,
		  size_t errsize);
int actions_load(const char *path, struct actions *out,
		 struct actions_stats *st, char *err, size_t errsize);
void actions_free(struct actions *a);
/* append one command (load-time growth); false when memory ran out */
bool actions_push(struct actions *a, double time, const struct usercmd *cmd);

/* The header (map: one word, else "unknown"; spawn NULL or not finite:
 * "spawn none"; source: free text, line breaks made blanks, none when
 * empty) and one command line (time clamped to the reader's 0..1e9,
 * angles wrapped into -360..360, a non-finite one 0), as the reader reads
 * them, into buf: snprintf's contract (the length wanted). */
int actions_format_header(char *buf, size_t size, const char *map,
			  const float *spawn, const char *source);
int actions_format_line(char *buf, size_t size, double time,
			const struct usercmd *cmd);
/* the same onto a stream */
void actions_write_header(FILE *f, const char *map, const float *spawn,
			  const char *source);
void actions_write_line(FILE *f, double time, const struct usercmd *cmd);
/* a whole file, times made never to go back; 0, or -1 with err set */
int actions_save(const char *path, const struct actions *a, char *err,
		 size_t errsize);
/* "maps/lqdm1.bsp" -> "lqdm1" (also plain names and paths): the map
 * line's word from a model or map path */
void actions_map_name(const char *model, char *out, size_t outsize);

#endif
