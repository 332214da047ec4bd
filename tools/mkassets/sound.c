/*
 * sound.c -- a sound file for every sound the server lists: a tenth of a
 * second of silence in the WAV format Quake's sounds use.
 *
 * Design note
 *   A client asks the server for every sound of the sound list it lacks,
 *   one request a round trip, before it goes on to the models; with our
 *   files there it asks for none.  The sounds are silent: the data is
 *   there so that a client without Quake's files enters at once, not to
 *   be heard.  Layout (RIFF, little-endian; a chunk is a 4-byte id, a
 *   32-bit size, the data, a pad byte when the size is odd):
 *     "RIFF" size "WAVE"
 *     "fmt " 16   format 1 (PCM), 1 channel, 11025 samples/s, 11025
 *                 bytes/s, block 1, 8 bits (a sample 0..255, 128 silent)
 *     "data" N    N samples of 128
 *   and, for a looped sound (the static sounds, svc_spawnstaticsound: a
 *   client plays them only when they loop, and says "not looped"
 *   otherwise), the loop as Quake's tools wrote it:
 *     "cue " 28   one cue point: identifier, position, "data", chunk
 *                 start 0, block start 0, sample offset 0 (the loop start)
 *     "LIST" 32   "adtl", then "ltxt" 20: the cue point's identifier, the
 *                 loop's length in samples (N), purpose "mark", country,
 *                 language, dialect, code page (0)
 *   The cue point's identifier and position are both 0: ezQuake (through
 *   libsndfile) matches the label's identifier against the cue point's
 *   position, where a label would name the identifier; id's loader reads
 *   the sample offset and the label's length at fixed places, as here.
 */
#include "mkassets.h"

enum {
	WAV_RATE = 11025,
	WAV_SAMPLES = WAV_RATE / 10 / 2 * 2,	/* even: no pad byte */
	WAV_SILENCE = 128,
	FMT_SIZE = 16, CUE_SIZE = 4 + 24, LTXT_SIZE = 20,
	LIST_SIZE = 4 + 8 + LTXT_SIZE
};

static void chunk(struct msg_buf *b, const char *id, int size)
{
	msg_write_data(b, id, 4);
	msg_write_long(b, size);
}

void sound_make(bool looped, struct msg_buf *b)
{
	int riff = 4 + 8 + FMT_SIZE + 8 + WAV_SAMPLES;

	if (looped)
		riff += 8 + CUE_SIZE + 8 + LIST_SIZE;
	chunk(b, "RIFF", riff);
	msg_write_data(b, "WAVE", 4);
	chunk(b, "fmt ", FMT_SIZE);
	msg_write_short(b, 1);			/* PCM */
	msg_write_short(b, 1);			/* mono */
	msg_write_long(b, WAV_RATE);
	msg_write_long(b, WAV_RATE);		/* bytes a second */
	msg_write_short(b, 1);			/* bytes a sample */
	msg_write_short(b, 8);			/* bits a sample */
	if (looped) {
		chunk(b, "cue ", CUE_SIZE);
		msg_write_long(b, 1);		/* cue points */
		msg_write_long(b, 0);		/* identifier */
		msg_write_long(b, 0);		/* position */
		msg_write_data(b, "data", 4);
		msg_write_long(b, 0);		/* chunk start */
		msg_write_long(b, 0);		/* block start */
		msg_write_long(b, 0);		/* sample offset: the loop start */
		chunk(b, "LIST", LIST_SIZE);
		msg_write_data(b, "adtl", 4);
		chunk(b, "ltxt", LTXT_SIZE);
		msg_write_long(b, 0);		/* the cue point */
		msg_write_long(b, WAV_SAMPLES);	/* the loop's length */
		msg_write_data(b, "mark", 4);
		msg_write_long(b, 0);		/* country, language */
		msg_write_long(b, 0);		/* dialect, code page */
	}
	chunk(b, "data", WAV_SAMPLES);
	for (int i = 0; i < WAV_SAMPLES; i++)
		msg_write_byte(b, WAV_SILENCE);
}
