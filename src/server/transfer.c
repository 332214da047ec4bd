/*
 * transfer.c -- sending files to clients: QuakeWorld's download, FTE's
 * chunked download as MVDSV and ezQuake speak it, and the rates both run
 * at (docs/downloads.md).
 *
 * Design note
 *   Both read the file through download.c: opened once, read a chunk at
 *   an offset, never whole.
 *
 *   Stock (every client): "download NAME" is answered with the first
 *   block as a reliable svc_download (short length, byte percent, the
 *   bytes), each "nextdl" with the next.  One block per round trip.
 *
 *   Chunked (a client that took FTE_PEXT_CHUNKEDDOWNLOADS at connect):
 *   "download NAME" is answered with svc_download, long -1, long size,
 *   string name (reliable).  The client then asks for chunks by number,
 *   several per packet, with the unreliable "nextdl CHUNK PERCENT NUMBER",
 *   asks again for those that do not come, and ends with "nextdl -1 ..."
 *   (ezQuake, to servers whose *version says MVDSV) or "stopdownload"
 *   (ezQuake, to the others).  A request joins the client's queue
 *   (SV_DL_QUEUE entries, a ring; a chunk already waiting is not queued
 *   twice; a full queue drops the request, which the client repeats) and
 *   the queue is answered oldest first: one chunk in the client's next
 *   reply when it has room, the rest out of band (A2C_PRINT "\chunk", the
 *   client's download number, the chunk) after the replies of every
 *   frame, as the rates below allow.  A chunk is read when it is sent: a
 *   queued request costs no disk.
 *
 *   Rates (MVDSV's rules, docs/downloads.md "Rates"; when the operator
 *   sets sv_maxrate or sv_maxdownloadrate every client's rates are bound
 *   again at the frame's next upkeep, sv_rates_upkeep): a chunked download
 *   has a rate of its own, apart from the game's.  The channel keeps the
 *   client's "rate" bounded by sv_maxrate for the game's replies whatever
 *   the download does; the download runs on its own clock (dl_clear) at
 *   the client's "drate" (99999 when it gives none) bounded by
 *   sv_maxdownloadrate, or by sv_maxrate when that is 0.  MVDSV sends a
 *   chunk in band at that rate and, with it, sv_downloadchunksperframe - 1
 *   more out of band past the rate (after a choked reply it sends none):
 *   N chunks for each one the rate lets through.  Here each chunk costs
 *   1/N of its bytes on the download's clock, which is the same rate
 *   without MVDSV's tie to the client's packets (MVDSV's in-band chunk
 *   waits for a client packet).  A chunk goes while the clock is less
 *   than a lead ahead of now: LEAD_SIGNON in the signon, longer than the
 *   time between two of a client's packets (13-50 ms; idle time is not
 *   banked, so the rate is used whole and over any span exceeded by at
 *   most the lead), and a shorter LEAD_GAME in the game, so a demo
 *   fetched while playing comes in small bursts.  A chunk riding in a
 *   reply is given back to the channel (netchan_refund): the game's rate
 *   pays for the game only.  The stock form's blocks travel in the
 *   reliable channel, so while one is open the channel runs at the
 *   download's rate, as in MVDSV.
 *
 *   The server-wide budget (qwd's; MVDSV has none): every chunk, in a
 *   reply or out of band, is also paid on the server's download clock at
 *   sv_maxdownloadtotal bytes/s, with LEAD_BUDGET of lead, so whatever
 *   many clients download, the bytes and the work (a read and a send per
 *   chunk) of a frame are bounded and the players' replies, built before
 *   the out-of-band chunks, keep their frame.  The out-of-band pump
 *   shares it round robin: one chunk per downloading client per pass, the
 *   next frame starting after the last client served; a client gets at
 *   most CHUNKS_PER_FRAME_MAX in a frame.

 *   A level change does not end a download (MVDSV's way: ezQuake ignores
 *   "changing" and "reconnect" while it downloads, and would wait for
 *   chunks forever); at its end the client is told "changing" and
 *   "reconnect", so it comes to the new level.  A map served from the
 *   old level's memory is opened again by name (the file on disk, or the
 *   new level's copy), else that download ends.
 *
 *   What can be fetched: relative names without "..", "\" or ":", under
 *   maps/, progs/, sound/, skins/ (allow_download) or demos/
 *   (allow_download_demos too; a plain file name in the demo folder).
 *   Refusals: stock, svc_download with length -1; chunked, size -1 (no
 *   such file) or -2 (not allowed), as FTE's clients read them.
 */
#include "downloads.h"
#include "features.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

enum {
	STOCK_BLOCK = 768,		/* file bytes in one stock svc_download */
	DRATE_DEFAULT = 99999,		/* MVDSV's, when a client gives none */
	REFUSE_MISSING = -1,
	REFUSE_DENIED = -2,
	CHUNK_MSG = 1 + 4 + FTE_CHUNK,	/* svc_download, number, the bytes */
	CHUNKS_PER_FRAME_MAX = 30,	/* MVDSV's bound of chunksperframe */
	BUDGET_MIN = 10000		/* sv_maxdownloadtotal's floor */
};

/* seconds a download's clock may run ahead of now, in the signon and in
 * the game, and the server's download clock (see the note) */
#define LEAD_SIGNON 0.1
#define LEAD_GAME 0.02
#define LEAD_BUDGET 0.05

/* a client's download, kept by slot */
static struct sv_download *dl_of(const struct server *sv, const struct client *cl)
{
	return &sv->downloads->slot[cl->slot];
}

static bool chunked(const struct client *cl)
{
	return (cl->fte & FTE_PEXT_CHUNKEDDOWNLOADS) != 0;
}

/* what the reply phase reads of a client's download (state.h): a stock
 * download rides the channel; chunks wait for its reply */
static void dl_flags(struct server *sv, struct client *cl)
{
	const struct sv_download *d = dl_of(sv, cl);

	cl->transfer_open = d->file.open && !chunked(cl);
	cl->transfer_pending = d->count > 0;
}

static size_t chunks_of(const struct sv_download *d)
{
	return (d->file.size + FTE_CHUNK - 1) / FTE_CHUNK;
}

/* ---- rates ------------------------------------------------------------- */

/* MVDSV's bound of a rate a client asks for (SV_BoundRate): sv_maxrate
 * for the game; sv_maxdownloadrate for a download, or sv_maxrate when
 * that is 0; 0 is 2500; within netchan's range */
static int bound_rate(const struct server *sv, bool dl, int r)
{
	float max = dl && sv->sv_maxdownloadrate->value > 0
			    ? sv->sv_maxdownloadrate->value
			    : sv->sv_maxrate->value;

	if (r <= 0)
		r = NETCHAN_DEFAULT_RATE;
	if (max > 0 && r > (int)max)
		r = (int)max;
	if (r < NETCHAN_MIN_RATE)
		r = NETCHAN_MIN_RATE;
	if (r > NETCHAN_MAX_RATE)
		r = NETCHAN_MAX_RATE;
	return r;
}

void sv_apply_rate(struct server *sv, struct client *cl)
{
	struct sv_download *d = dl_of(sv, cl);
	char v[16];
	int rate;

	info_value_for_key(cl->userinfo, "rate", v, sizeof(v));
	rate = bound_rate(sv, false, v[0] ? atoi(v) : NETCHAN_DEFAULT_RATE);
	info_value_for_key(cl->userinfo, "drate", v, sizeof(v));
	d->rate = bound_rate(sv, true, v[0] ? atoi(v) : DRATE_DEFAULT);
	netchan_set_rate(&cl->chan, d->file.open && !chunked(cl) ? d->rate : rate);
}

void sv_rates_upkeep(struct server *sv)
{
	if (sv->downloads->maxrate_applied == sv->sv_maxrate->modified &&
	    sv->downloads->maxdlrate_applied == sv->sv_maxdownloadrate->modified)
		return;
	sv->downloads->maxrate_applied = sv->sv_maxrate->modified;
	sv->downloads->maxdlrate_applied = sv->sv_maxdownloadrate->modified;
	for (int i = 0; i < sv->maxclients; i++)
		if (sv->clients[i].state >= CS_CONNECTED)
			sv_apply_rate(sv, &sv->clients[i]);
}

/* sv_downloadchunksperframe, within MVDSV's bounds */
static int chunks_per_slot(const struct server *sv)
{
	int n = (int)sv->sv_downloadchunksperframe->value;

	return n < 1 ? 1 : n > CHUNKS_PER_FRAME_MAX ? CHUNKS_PER_FRAME_MAX : n;
}

/* the server's budget lets one more chunk go now */
static bool budget_allows(struct server *sv)
{
	if (sv->downloads->budget_clear < sv->realtime + LEAD_BUDGET)
		return true;
	sv->stats.chunk_budget_waits++;
	return false;
}

/* the client's download rate, and the most it may get in a frame, let
 * one more chunk go now (the server's budget is asked apart) */
static bool rate_allows(const struct server *sv, struct client *cl)
{
	struct sv_download *d = dl_of(sv, cl);
	double lead = cl->state == CS_SPAWNED ? LEAD_GAME : LEAD_SIGNON;

	if (d->frame != sv->stats.frames) {
		d->frame = sv->stats.frames;
		d->frame_chunks = 0;
	}
	return d->frame_chunks < CHUNKS_PER_FRAME_MAX &&
	       d->clear < sv->realtime + lead;
}

/* a chunk of `bytes` on the wire was sent: paid on the download's clock
 * (1/N of it, see the note) and on the server's; idle time is not
 * banked on either */
static void chunk_paid(struct server *sv, struct client *cl, size_t bytes)
{
	struct sv_download *d = dl_of(sv, cl);
	double now = sv->realtime, total = sv->sv_maxdownloadtotal->value;

	if (total < BUDGET_MIN)
		total = BUDGET_MIN;
	if (d->clear < now)
		d->clear = now;
	d->clear += (double)bytes / ((double)d->rate * chunks_per_slot(sv));
	if (sv->downloads->budget_clear < now)
		sv->downloads->budget_clear = now;
	sv->downloads->budget_clear += (double)bytes / total;
	d->frame_chunks++;
	sv->stats.chunk_bytes += bytes;
}

/* ---- the queue of a chunked download ----------------------------------- */

static void enqueue(struct server *sv, struct client *cl, int32_t chunk)
{
	struct sv_download *d = dl_of(sv, cl);

	for (int i = 0; i < d->count; i++)
		if (d->want[(d->head + i) % SV_DL_QUEUE] == chunk)
			return;
	if (d->count == SV_DL_QUEUE) {
		sv->stats.chunk_requests_dropped++;
		return;
	}
	d->want[(d->head + d->count) % SV_DL_QUEUE] = chunk;
	d->count++;
	sv->downloads->queued++;
	dl_flags(sv, cl);
}

static int32_t dequeue(struct server *sv, struct client *cl)
{
	struct sv_download *d = dl_of(sv, cl);
	int32_t chunk = d->want[d->head];

	d->head = (d->head + 1) % SV_DL_QUEUE;
	d->count--;
	sv->downloads->queued--;
	dl_flags(sv, cl);
	return chunk;
}

/* the download is over: a client whose level changed meanwhile is
 * sent on to the new one */
static void finished(struct server *sv, struct client *cl)
{
	if (dl_of(sv, cl)->level != sv->spawncount)
		sv_reliable_stufftext(cl, "changing\nreconnect\n");
	sv_download_stop(sv, cl);
}

void sv_download_level_changed(struct server *sv, struct client *cl)
{
	struct sv_download *d = dl_of(sv, cl);
	size_t size = d->file.size;
	char name[sizeof(d->name)];

	if (!d->file.open || !d->file.mem)
		return;
	strlcpy(name, d->name, sizeof(name));
	if (sv_file_open(sv, &d->file, name) && d->file.size == size)
		return;
	qwd_logf(&sv->log, QWD_LOG_INFO, "client %d: download %s ended: the "
		 "level changed", cl->slot, name);
	sv_download_stop(sv, cl);
}

void sv_download_stop(struct server *sv, struct client *cl)
{
	struct sv_download *d = dl_of(sv, cl);
	bool was_open = d->file.open;

	sv_file_close(&d->file);
	d->name[0] = '\0';
	sv->downloads->queued -= d->count;
	d->count = 0;
	d->head = 0;
	dl_flags(sv, cl);
	if (was_open && cl->state >= CS_CONNECTED)
		sv_apply_rate(sv, cl);
}

/* The oldest chunk asked for into m: svc_download, its number, FTE_CHUNK
 * bytes (the file's last chunk padded with zeros).  False when the file
 * could not be read; the download is then over. */
static bool write_chunk(struct server *sv, struct client *cl, struct msg_buf *m)
{
	struct sv_download *d = dl_of(sv, cl);
	uint8_t data[FTE_CHUNK];
	int32_t chunk = dequeue(sv, cl);
	size_t n = sv_file_read(sv, &d->file, (size_t)chunk * FTE_CHUNK, data,
				sizeof(data));

	if (n == 0) {	/* the file shrank or went away under us */
		qwd_logf(&sv->log, QWD_LOG_WARN, "client %d: download %s: read "
			 "failed at chunk %d", cl->slot, d->name, (int)chunk);
		sv_download_stop(sv, cl);
		return false;
	}
	memset(data + n, 0, sizeof(data) - n);
	msg_write_byte(m, svc_download);
	msg_write_long(m, chunk);
	msg_write_data(m, data, sizeof(data));
	d->sent++;
	/* a download in the signon is progress: the deadline to enter the
	 * game counts from the last chunk */
	cl->signon_since = sv->realtime;
	return true;
}

size_t sv_download_datagram(struct server *sv, struct client *cl,
			    struct msg_buf *m)
{
	size_t before = m->cursize;

	/* transfer_pending first: every reply asks, and the download's
	 * own record is a line of memory most clients never need */
	if (!cl->transfer_pending || dl_of(sv, cl)->count == 0 || m->overflowed ||
	    m->cursize + CHUNK_MSG > m->maxsize || !rate_allows(sv, cl) ||
	    !budget_allows(sv) || !write_chunk(sv, cl, m))
		return 0;
	chunk_paid(sv, cl, m->cursize - before);
	sv->stats.chunks_inband++;
	return m->cursize - before;
}

/* one chunk of the client's out of band; false when none went (the
 * file could not be read: the download is over) */
static bool send_oob_chunk(struct server *sv, struct client *cl)
{
	size_t max;
	uint8_t *pkt = net_send_slot(sv->tx, &max);
	struct msg_buf m;

	msg_init(&m, pkt, max);
	msg_write_long(&m, -1);
	msg_write_byte(&m, A2C_PRINT);
	msg_write_data(&m, FTE_CHUNK_OOB_TAG, sizeof(FTE_CHUNK_OOB_TAG) - 1);
	msg_write_long(&m, dl_of(sv, cl)->number);
	if (!write_chunk(sv, cl, &m))
		return false;
	if (sv->capture)
		capture_out(sv->capture, &cl->chan.remote, pkt, m.cursize,
			    sv->realtime);
	net_send_commit(sv->tx, &cl->chan.remote, m.cursize);
	chunk_paid(sv, cl, m.cursize);
	sv->stats.chunks_oob++;
	return true;
}

/* ezQuake drops out-of-band chunks of a download number below 1, as
 * MVDSV sends none then: those go in replies only */
static bool pumped(struct server *sv, const struct client *cl)
{
	struct sv_download *d = dl_of(sv, cl);

	return d->count > 0 && cl->state >= CS_CONNECTED && d->number >= 1;
}

void sv_download_pump(struct server *sv)
{
	int n = sv->maxclients, next = sv->downloads->turn;

	if (sv->downloads->queued == 0 || n < 1)
		return;
	/* passes of one chunk per client, from the turn on, while any went
	 * and the budget lasts */
	for (int pass = 0; pass < CHUNKS_PER_FRAME_MAX; pass++) {
		bool any = false;

		for (int k = 0; k < n && sv->downloads->queued > 0; k++) {
			int slot = (sv->downloads->turn + k) % n;
			struct client *cl = &sv->clients[slot];

			if (!pumped(sv, cl) || !rate_allows(sv, cl))
				continue;
			if (!budget_allows(sv))
				goto out;
			if (send_oob_chunk(sv, cl)) {
				any = true;
				next = (slot + 1) % n;
			}
		}
		if (!any || sv->downloads->queued == 0)
			break;
	}
out:
	sv->downloads->turn = next;
}

/* ---- the stock download ------------------------------------------------ */

/* the next block of the file, read now from its offset */
static void stock_block(struct server *sv, struct client *cl)
{
	struct sv_download *d = dl_of(sv, cl);
	uint8_t buf[MAX_MSGLEN], data[STOCK_BLOCK];
	struct msg_buf m;
	size_t n = sv_file_read(sv, &d->file, d->pos, data, sizeof(data));
	int percent;

	if (n == 0) {	/* the file shrank or went away under us */
		qwd_logf(&sv->log, QWD_LOG_WARN, "client %d: download %s: read failed at %zu",
			 cl->slot, d->name, d->pos);
		sv_download_stop(sv, cl);
		return;
	}
	cl->signon_since = sv->realtime;
	d->pos += n;
	d->sent++;
	percent = (int)(d->pos * 100 / d->file.size);
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_download);
	msg_write_short(&m, (int)n);
	msg_write_byte(&m, percent);
	msg_write_data(&m, data, n);
	sv_reliable_write(cl, m.data, m.cursize);
	if (d->pos >= d->file.size) {
		sv_log_from(sv, &cl->chan.remote, QWD_LOG_INFO, "client %d: download complete", cl->slot);
		finished(sv, cl);
	}
}

/* ---- the commands ------------------------------------------------------ */

enum fetch_kind { FETCH_NO, FETCH_GAME, FETCH_DEMO };

/* Only plain relative paths into the folders clients fetch from. */
static enum fetch_kind fetch_kind(const struct server *sv, const char *name)
{
	static const char *const folders[] = {"maps/", "progs/", "sound/", "skins/"};

	if (sv->allow_download->value == 0 || !*name || name[0] == '/' ||
	    name[0] == '.' || strstr(name, "..") || strchr(name, '\\') ||
	    strchr(name, ':') || strlen(name) > 120)
		return FETCH_NO;
	if (strncmp(name, "demos/", 6) == 0)
		return sv->allow_download_demos->value != 0 && name[6] &&
		       !strchr(name + 6, '/') ? FETCH_DEMO : FETCH_NO;
	for (size_t i = 0; i < sizeof(folders) / sizeof(folders[0]); i++)
		if (strncmp(name, folders[i], strlen(folders[i])) == 0)
			return FETCH_GAME;
	return FETCH_NO;
}

void sv_download_refuse(struct client *cl, const char *name, bool missing)
{
	uint8_t buf[16 + 128];
	struct msg_buf m;

	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_download);
	if (chunked(cl)) {
		char shown[128];

		strlcpy(shown, name, sizeof(shown));
		msg_write_long(&m, -1);
		msg_write_long(&m, missing ? REFUSE_MISSING : REFUSE_DENIED);
		msg_write_string(&m, shown);
	} else {
		msg_write_short(&m, -1);
		msg_write_byte(&m, 0);
	}
	sv_reliable_write(cl, m.data, m.cursize);
}

/* "download NAME": the file is opened, not read.  Asking again for the
 * file already going costs nothing (the command is ignored), so a packet
 * of hundreds of them is hundreds of string compares. */
void sv_cmd_download(struct server *sv, struct client *cl,
		     const struct net_args *a)
{
	struct sv_download *d = dl_of(sv, cl);
	const char *name = net_args_argv(a, 1);
	enum fetch_kind kind;
	bool found;

	if (d->file.open && strcmp(name, d->name) == 0) {
		sv->stats.download_repeats++;
		return;
	}
	sv_download_stop(sv, cl);
	kind = fetch_kind(sv, name);
	if (kind == FETCH_NO) {
		sv_log_from(sv, &cl->chan.remote, QWD_LOG_INFO, "client %d: download %s refused",
			 cl->slot, name);
		sv_download_refuse(cl, name, false);
		return;
	}
	found = kind == FETCH_DEMO ? sv_file_open_demo(sv, &d->file, name + 6)
				   : sv_file_open(sv, &d->file, name);
	/* chunk numbers and sizes are longs on the wire */
	if (!found || d->file.size > INT32_MAX) {
		sv_file_close(&d->file);
		sv_log_from(sv, &cl->chan.remote, QWD_LOG_INFO, "client %d: download %s: no such file",
			 cl->slot, name);
		sv_download_refuse(cl, name, true);
		return;
	}
	strlcpy(d->name, name, sizeof(d->name));
	d->pos = 0;
	d->sent = 0;
	d->number = 0;
	d->level = sv->spawncount;
	dl_flags(sv, cl);
	sv_apply_rate(sv, cl);
	sv_log_from(sv, &cl->chan.remote, QWD_LOG_INFO, "client %d: downloading %s (%zu bytes, %s)",
		 cl->slot, name, d->file.size, chunked(cl) ? "chunked" : "stock");
	if (!chunked(cl)) {
		stock_block(sv, cl);
		return;
	}
	uint8_t buf[16 + sizeof(d->name)];
	struct msg_buf m;

	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_download);
	msg_write_long(&m, -1);
	msg_write_long(&m, (int32_t)d->file.size);
	msg_write_string(&m, d->name);
	sv_reliable_write(cl, m.data, m.cursize);
}

/* the client says a chunked download is over */
static void chunked_end(struct server *sv, struct client *cl)
{
	struct sv_download *d = dl_of(sv, cl);
	size_t all = chunks_of(d);

	if (d->sent >= all)
		sv_log_from(sv, &cl->chan.remote, QWD_LOG_INFO, "client %d: download complete "
			 "(%u chunks sent for %zu)", cl->slot, d->sent, all);
	else
		sv_log_from(sv, &cl->chan.remote, QWD_LOG_INFO, "client %d: download %s ended by "
			 "the client after %u of %zu chunks", cl->slot,
			 d->name, d->sent, all);
	finished(sv, cl);
}

void sv_cmd_nextdl(struct server *sv, struct client *cl,
		   const struct net_args *a)
{
	struct sv_download *d = dl_of(sv, cl);
	long chunk;

	if (!d->file.open)
		return;
	if (!chunked(cl)) {
		stock_block(sv, cl);
		return;
	}
	chunk = strtol(net_args_argv(a, 1), NULL, 10);
	if (a->argc < 2) {
		sv->stats.chunk_requests_bad++;
		return;
	}
	if (chunk < 0) {
		chunked_end(sv, cl);
		return;
	}
	if ((size_t)chunk >= chunks_of(d)) {
		sv->stats.chunk_requests_bad++;
		return;
	}
	d->number = (int32_t)strtol(net_args_argv(a, 3), NULL, 10);
	enqueue(sv, cl, (int32_t)chunk);
}

/* "stopdl" / "stopdownload": the stock client's download ends silently;
 * ezQuake says "stopdownload" when a chunked one is complete, and would
 * take any answer for the end of the next one */
void sv_cmd_stopdownload(struct server *sv, struct client *cl)
{
	if (!dl_of(sv, cl)->file.open)
		return;
	if (chunked(cl))
		chunked_end(sv, cl);
	else
		sv_download_stop(sv, cl);
}

/* ---- registration ------------------------------------------------------ */

static void cmd_stopdl(struct server *sv, struct client *cl,
		       const struct net_args *a)
{
	(void)a;
	sv_cmd_stopdownload(sv, cl);
}

/* a download the command budget refused: the client waits for an answer */
static void download_refused(struct server *sv, struct client *cl,
			     const struct net_args *a)
{
	(void)sv;
	sv_download_refuse(cl, net_args_argv(a, 1), false);
}

/* a dropped client's slot starts the next one's afresh */
static void downloads_drop(struct server *sv, struct client *cl)
{
	sv_download_stop(sv, cl);
	memset(dl_of(sv, cl), 0, sizeof(struct sv_download));
}

static void downloads_free(struct server *sv)
{
	if (sv->downloads) {
		for (int i = 0; i < sv->maxclients; i++)
			sv_file_close(&sv->downloads->slot[i].file);
		free(sv->downloads->slot);
	}
	free(sv->downloads);
	sv->downloads = NULL;
}

static const struct sv_feature downloads_feature = {
	.name = "downloads",
	.datagram = sv_download_datagram,
	.replies_sent = sv_download_pump,
	.upkeep = sv_rates_upkeep,
	.level_client = sv_download_level_changed,
	.client_drop = downloads_drop,
	.client_new = sv_download_stop,
	.userinfo = sv_apply_rate,
	.free = downloads_free,
};

int sv_downloads_register(struct server *sv)
{
	struct sv_client_command *c;

	sv_feature_add(sv, &downloads_feature);	/* its free runs whatever follows */
	sv->downloads = calloc(1, sizeof(*sv->downloads));
	if (!sv->downloads)
		return -1;
	sv->downloads->slot = calloc((size_t)sv->maxclients, sizeof(struct sv_download));
	if (!sv->downloads->slot)
		return -1;
	/* the demo folder is the demo feature's cvar (demo.c registers it
	 * first); downloads of demos/ read it */
	sv->downloads->demodir = cvar_get(sv, "sv_demoDir");
	c = sv_client_command_add(sv, "download", sv_cmd_download, BUDGET_DOWNLOAD);
	c->refused = download_refused;
	/* nextdl asks for the next chunk each time one arrives (a map is a
	 * thousand chunks): no budget, a flood only overflows the client's
	 * own stream */
	sv_client_command_add(sv, "nextdl", sv_cmd_nextdl, -1);
	sv_client_command_add(sv, "stopdl", cmd_stopdl, BUDGET_CMD);
	sv_client_command_add(sv, "stopdownload", cmd_stopdl, BUDGET_CMD);
	return 0;
}
