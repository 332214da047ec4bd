/*
 * download.c -- the client's side of downloads: QuakeWorld's stock form
 * and FTE's chunked one, as ezQuake speaks them (docs/downloads.md).
 *
 * Design note
 *   Which form a download takes is the server's serverdata's word: FTE's
 *   extension tag with FTE_PEXT_CHUNKEDDOWNLOADS set means every
 *   svc_download is chunked.
 *   Stock: svc_download is short length (-1: refused), byte percent, the
 *   bytes; "nextdl" (reliable) asks for the next block until percent is
 *   100.  The buffer grows by doubling, so a file costs a few allocations.
 *   Chunked: svc_download is long chunk number; -1 starts a download
 *   (long size, string name; a negative size is a refusal: -1 no such
 *   file, -2 denied, -3 stopped), else FTE_CHUNK bytes follow.  A chunk
 *   may also come out of band: A2C_PRINT, FTE_CHUNK_OOB_TAG, long download
 *   number, then the same svc_download; one whose number is not this
 *   download's is a leftover of an earlier file and is dropped.  The file,
 *   a byte per chunk and each chunk's last request time are allocated
 *   when the size is known, once per download.  Requests ride in each
 *   outgoing packet after the move: the lowest chunks missing within
 *   chunk_window of the first missing one and not asked for within
 *   chunk_retry, chunks_per_packet at most; a lost chunk is asked for
 *   again after chunk_retry.  When every chunk is in, the end is said
 *   (reliable) and the state is DONE.
 *   Everything read from the server is bounds-checked (msg_* reads); a
 *   chunk number outside the file is counted, never written.
 */
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

enum {
	MAX_DOWNLOAD_DEFAULT = 64 << 20,
	CHUNK_WINDOW_DEFAULT = 64,
	CHUNKS_PER_PACKET_DEFAULT = 5	/* ezQuake's cl_chunksperframe */
};

static void release(struct qwc_download *d)
{
	free(d->data);
	free(d->have);
	free(d->asked);
	d->data = NULL;
	d->have = NULL;
	d->asked = NULL;
}

void qwc_dl_free(struct qwc *c)
{
	release(&c->dl);
}

static size_t max_download(const struct qwc *c)
{
	return c->opt.max_download ? c->opt.max_download : MAX_DOWNLOAD_DEFAULT;
}

bool qwc_download(struct qwc *c, const char *name)
{
	struct qwc_download *d = &c->dl;
	int32_t number = d->number;
	char cmd[sizeof(d->name) + 16];

	if (strlen(name) >= sizeof(d->name))
		return false;
	snprintf(cmd, sizeof(cmd), "download %s", name);
	if (!qwc_stringcmd(c, cmd))
		return false;
	release(d);
	memset(d, 0, sizeof(*d));
	d->number = number;
	strlcpy(d->name, name, sizeof(d->name));
	d->state = QWC_DL_ASKED;
	d->chunked = (c->fte_server & FTE_PEXT_CHUNKEDDOWNLOADS) != 0;
	return true;
}

/* ---- chunked ----------------------------------------------------------- */

static void chunked_done(struct qwc *c)
{
	struct qwc_download *d = &c->dl;
	char cmd[48];

	d->state = QWC_DL_DONE;
	if (c->opt.end_with_stopdownload)
		snprintf(cmd, sizeof(cmd), "stopdownload");
	else
		snprintf(cmd, sizeof(cmd), "nextdl -1 100 %d", (int)d->number);
	qwc_stringcmd(c, cmd);
}

/* one chunk's FTE_CHUNK bytes, from a reply or out of band */
static void chunk_in(struct qwc *c, int32_t chunk, const uint8_t *bytes,
		     bool oob)
{
	struct qwc_download *d = &c->dl;
	size_t off, n;

	if (c->opt.on_chunk)
		c->opt.on_chunk(c->opt.ctx, c, chunk, oob);
	if (!d->chunked || !d->have ||
	    (d->state != QWC_DL_RUNNING && d->state != QWC_DL_DONE))
		return;
	if (chunk < 0 || (size_t)chunk >= d->chunks) {
		c->stats.bad[QWC_BAD_RANGE]++;
		return;
	}
	if (oob)
		d->chunks_oob++;
	else
		d->chunks_inband++;
	if (d->asked[chunk] < 0)
		d->unasked++;
	if (d->have[chunk]) {
		d->duplicates++;
		return;
	}
	d->have[chunk] = 1;
	d->received++;
	off = (size_t)chunk * FTE_CHUNK;
	n = d->size - off < FTE_CHUNK ? d->size - off : FTE_CHUNK;
	memcpy(d->data + off, bytes, n);
	while (d->first_missing < d->chunks && d->have[d->first_missing])
		d->first_missing++;
	if (d->received == d->chunks && d->state == QWC_DL_RUNNING)
		chunked_done(c);
}

/* svc_download -1: the start (size, name) or a refusal (negative size) */
static bool chunked_start(struct qwc *c, struct msg_buf *m)
{
	struct qwc_download *d = &c->dl;
	int32_t size = msg_read_long(m);
	char name[sizeof(d->name)];

	msg_read_string(m, name, sizeof(name));
	if (m->badread)
		return false;
	if (size < 0) {
		d->state = QWC_DL_REFUSED;
		d->refusal = size;
		return true;
	}
	if (d->state != QWC_DL_ASKED) {
		/* a start nobody asked for (ezQuake stops with an error) */
		c->stats.bad[QWC_BAD_RANGE]++;
		return true;
	}
	d->number++;
	d->size = (size_t)size;
	d->chunks = (d->size + FTE_CHUNK - 1) / FTE_CHUNK;
	if (d->size > max_download(c)) {
		d->state = QWC_DL_FAILED;
		return true;
	}
	d->data = malloc(d->size ? d->size : 1);
	d->have = calloc(d->chunks ? d->chunks : 1, 1);
	d->asked = malloc((d->chunks ? d->chunks : 1) * sizeof(*d->asked));
	if (!d->data || !d->have || !d->asked) {
		release(d);
		d->state = QWC_DL_FAILED;
		return true;
	}
	for (size_t i = 0; i < d->chunks; i++)
		d->asked[i] = -1.0;
	d->state = QWC_DL_RUNNING;
	if (d->chunks == 0)
		chunked_done(c);
	return true;
}

bool qwc_dl_oob(struct qwc *c, const uint8_t *data, size_t len)
{
	const size_t tag = sizeof(FTE_CHUNK_OOB_TAG) - 1;
	struct msg_buf m;
	int32_t number, chunk;

	if (len < 5 + tag || data[4] != A2C_PRINT ||
	    memcmp(data + 5, FTE_CHUNK_OOB_TAG, tag) != 0)
		return false;
	/* the reads never write: the cast leaves the bytes as they are */
	msg_init_read(&m, (void *)(uintptr_t)data, len);
	m.readpos = 5 + tag;
	number = msg_read_long(&m);
	if (msg_read_byte(&m) != svc_download) {
		c->stats.bad[QWC_BAD_OOB]++;
		return true;
	}
	chunk = msg_read_long(&m);
	if (m.badread || msg_read_remaining(&m) < FTE_CHUNK) {
		c->stats.bad[QWC_BAD_OOB]++;
		return true;
	}
	if (number != c->dl.number) {
		c->dl.stale++;
		return true;
	}
	chunk_in(c, chunk, m.data + m.readpos, true);
	return true;
}

void qwc_dl_requests(struct qwc *c, struct msg_buf *m, double now)
{
	struct qwc_download *d = &c->dl;
	int want = c->opt.chunks_per_packet > 0 ? c->opt.chunks_per_packet
						: CHUNKS_PER_PACKET_DEFAULT;
	size_t window = c->opt.chunk_window > 0 ? (size_t)c->opt.chunk_window
						: CHUNK_WINDOW_DEFAULT;
	double retry = c->opt.chunk_retry > 0 ? c->opt.chunk_retry : 1.0;
	size_t end = d->first_missing + window;

	if (d->state != QWC_DL_RUNNING || !d->chunked)
		return;
	if (want > QWC_MAX_CHUNK_REQUESTS)
		want = QWC_MAX_CHUNK_REQUESTS;
	if (end > d->chunks)
		end = d->chunks;
	for (size_t i = d->first_missing; i < end && want > 0; i++) {
		char cmd[64];
		int n;

		if (d->have[i] || (d->asked[i] >= 0 && now - d->asked[i] < retry))
			continue;
		n = snprintf(cmd, sizeof(cmd), "nextdl %zu %d %d", i,
			     (int)(d->received * 100 / d->chunks), (int)d->number);
		if (m->cursize + (size_t)n + 2 > m->maxsize)
			break;
		msg_write_byte(m, clc_stringcmd);
		msg_write_string(m, cmd);
		d->asked[i] = now;
		d->requests++;
		want--;
	}
}

/* ---- in a reply -------------------------------------------------------- */

static bool stock_block(struct qwc *c, struct msg_buf *m)
{
	struct qwc_download *d = &c->dl;
	int size = msg_read_short(m);
	int percent = msg_read_byte(m);

	if (m->badread)
		return false;
	if (size == -1) {
		d->state = QWC_DL_REFUSED;
		d->refusal = -1;
		return true;
	}
	if (size < 0 || msg_read_remaining(m) < (size_t)size) {
		m->badread = true;
		return false;
	}
	if (d->state == QWC_DL_ASKED || d->state == QWC_DL_RUNNING) {
		if (d->size + (size_t)size > max_download(c)) {
			d->state = QWC_DL_FAILED;
		} else {
			if (d->size + (size_t)size > d->capacity) {
				size_t cap = d->capacity ? d->capacity : 4096;
				uint8_t *p;

				while (cap < d->size + (size_t)size)
					cap *= 2;
				p = realloc(d->data, cap);
				if (!p) {
					d->state = QWC_DL_FAILED;
					m->readpos += (size_t)size;
					return true;
				}
				d->data = p;
				d->capacity = cap;
			}
			memcpy(d->data + d->size, m->data + m->readpos, (size_t)size);
			d->size += (size_t)size;
			d->state = QWC_DL_RUNNING;
			if (percent == 100)
				d->state = QWC_DL_DONE;
			else
				qwc_stringcmd(c, "nextdl");
		}
	}
	m->readpos += (size_t)size;
	return true;
}

bool qwc_dl_parse(struct qwc *c, struct msg_buf *m)
{
	int32_t chunk;

	if (!(c->fte_server & FTE_PEXT_CHUNKEDDOWNLOADS))
		return stock_block(c, m);
	chunk = msg_read_long(m);
	if (m->badread)
		return false;
	if (chunk < 0)
		return chunked_start(c, m);
	if (msg_read_remaining(m) < FTE_CHUNK) {
		m->badread = true;
		return false;
	}
	chunk_in(c, chunk, m->data + m->readpos, false);
	m->readpos += FTE_CHUNK;
	return true;
}
