/*
 * mvd.c -- the demo record stream: one writer of MVD records (qwd/mvd.h)
 * for the demo file and every QTV stream.
 *
 * Design note
 *   The writer builds each demo frame once, as records, in one buffer
 *   sized at start-up, and hands the same bytes to every destination
 *   (dest): the file being recorded and the QTV streams.  Only what one
 *   destination alone needs is written for it alone: its signon (the
 *   "gamestate": serverdata, lists, signon buffers, client infos, light
 *   styles) when it joins, and "EndOfDemo" when a file closes.
 *
 *   What goes in (the gamestate a destination gets when it joins, and a
 *   frame's state) is mvdframe.c's; this file owns the records, the
 *   destinations and the events.
 *   The first record of a frame carries the milliseconds since the last
 *   one (the demo clock follows the level's time); the others 0.  A
 *   frame is written only when the clock moved, so each frame holds one
 *   entity list, as ezQuake needs.  While the game is paused the clock
 *   stands still and 0 ms frames carry what happens without entity
 *   lists (paused_frame).
 *   A destination that joins (a stream, a file after a stream) gets its
 *   gamestate at once, and the next frame goes to everyone in full (all
 *   player fields, a full entity list, all stats): every destination is
 *   then in step, whatever it missed, at the cost of one larger frame.
 *   Protocol 28 has 32 player slots and entity numbers below 512: the
 *   players of the extension slots (32 and up) are not in a demo.
 *
 *   Output: a file is written through a buffer of its own, flushed when
 *   half full and at least once a second (write(2), errors stop the
 *   recording with MVDSV's message); a stream through a non-blocking
 *   socket: bytes the socket does not take wait in the stream's backlog
 *   (qtv_streambuffer KB, allocated when the stream joins; the socket's
 *   own buffer is bounded to a quarter of it, at most 64 KB, as loopback
 *   would let it grow to megabytes); a stream is sent to 20 times a
 *   second (or when 16 KB wait), not every frame, since a send costs
 *   more than the frame it carries; a stream whose backlog would
 *   overflow, or that took nothing for qtv_streamtimeout seconds, is
 *   dropped: a slow viewer never holds up the frame.  Nothing here
 *   allocates per frame.
 */
#include "demo.h"
#include "mvdwriter.h"

#include <qwd/mvd.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bsd/string.h>

/* ---- records ---------------------------------------------------------- */

static void rec_close(struct sv_mvd *m)
{
	m->rec_open = false;
}

/* Room for len bytes of messages for (type, to) at the end of the frame:
 * in the open record when it is for the same target and has room, else
 * in a new one.  NULL when the frame buffer is full up to limit. */
static uint8_t *frame_space(struct sv_mvd *m, int type, int to, size_t len,
			    size_t limit)
{
	uint8_t *p;

	if (len == 0 || len > MVD_MAX_RECORD)
		return NULL;
	if (m->rec_open && m->rec_type == type && m->rec_to == to &&
	    m->rec_len + len <= MVD_MAX_RECORD) {
		if (m->frame_len + len > limit)
			return NULL;
		m->rec_len += (uint32_t)len;
		for (int i = 0; i < 4; i++)
			m->frame[m->rec_len_at + (size_t)i] = (uint8_t)(m->rec_len >> (8 * i));
	} else {
		if (m->frame_len + MVD_HEADER_MAX + len > limit)
			return NULL;
		m->frame_len += mvd_record_header(m->frame + m->frame_len, 0, type,
						  (uint32_t)to, (uint32_t)len);
		m->rec_open = true;
		m->rec_type = type;
		m->rec_to = to;
		m->rec_len = (uint32_t)len;
		m->rec_len_at = m->frame_len - 4;
	}
	p = m->frame + m->frame_len;
	m->frame_len += len;
	return p;
}

bool sv_mvd_frame_add(struct sv_mvd *m, int type, int to, const void *data,
		      size_t len, size_t limit)
{
	uint8_t *p = frame_space(m, type, to, len, limit);

	if (!p)
		return false;
	memcpy(p, data, len);
	return true;
}

/* ---- destinations ----------------------------------------------------- */

void sv_mvd_dest_fail(struct mvd_dest *d, const char *why)
{
	if (!d->failed)
		strlcpy(d->why, why, sizeof(d->why));
	d->failed = true;
}

/* a file: everything waiting, written out */
static void file_flush(struct mvd_dest *d, double now)
{
	size_t done = 0;

	while (done < d->len && !d->failed) {
		ssize_t n = write(d->fd, d->buf + done, d->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			sv_mvd_dest_fail(d, n < 0 ? strerror(errno) : "nothing written");
			break;
		}
		done += (size_t)n;
	}
	d->len = 0;
	d->io_time = now;
}

/* a stream: as much of the backlog as the socket takes now */
static void stream_push(struct mvd_dest *d, double now)
{
	size_t done = 0;

	while (done < d->len) {
		ssize_t n = send(d->fd, d->buf + done, d->len - done,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			sv_mvd_dest_fail(d, n < 0 ? strerror(errno) : "connection closed");
			return;
		}
		done += (size_t)n;
		d->io_time = now;
	}
	memmove(d->buf, d->buf + done, d->len - done);
	d->len -= done;
}

static void dest_put(struct mvd_dest *d, const void *data, size_t len, double now)
{
	if (d->failed || len == 0)
		return;
	d->total += len;
	if (!d->stream) {
		if (d->len + len > d->cap)
			file_flush(d, now);
		if (len > d->cap) {	/* never: a frame is smaller */
			sv_mvd_dest_fail(d, "a frame larger than the file buffer");
			return;
		}
		memcpy(d->buf + d->len, data, len);
		d->len += len;
		return;
	}
	if (d->len + len > d->cap) {
		stream_push(d, now);
		if (d->len + len > d->cap) {
			sv_mvd_dest_fail(d, "too slow: more than qtv_streambuffer waiting");
			return;
		}
	}
	memcpy(d->buf + d->len, data, len);
	d->len += len;
}

/* one record for one destination */
void sv_mvd_dest_record(struct mvd_dest *d, int type, int to,
			const void *data, size_t len, double now)
{
	uint8_t head[MVD_HEADER_MAX];

	if (len == 0)
		return;
	dest_put(d, head, mvd_record_header(head, 0, type, (uint32_t)to, (uint32_t)len), now);
	dest_put(d, data, len, now);
}

static void dest_release(struct server *sv, struct mvd_dest *d)
{
	struct sv_mvd *m = sv->mvd;

	if (d->fd >= 0)
		close(d->fd);
	free(d->buf);
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	m->ndests--;
	while (m->top > 0 && !m->dests[m->top - 1].used)
		m->top--;
	if (m->ndests == 0) {
		/* nobody listens: the next destination starts afresh */
		m->frame_len = 0;
		rec_close(m);
		m->spawncount = -1;
	}
}

/* the frame so far to every destination, its first record stamped with
 * msec */
static void frame_out(struct server *sv, int msec)
{
	struct sv_mvd *m = sv->mvd;

	if (m->frame_len == 0)
		return;
	m->frame[0] = (uint8_t)msec;
	for (int i = 0; i < m->top; i++)
		if (m->dests[i].used && !m->dests[i].gamestate)
			dest_put(&m->dests[i], m->frame, m->frame_len, sv->realtime);
	m->bytes += m->frame_len;
	m->frame_len = 0;
	rec_close(m);
}

/* the records a destination gets alone, after the frame so far */
static void end_of_demo(struct server *sv, struct mvd_dest *d)
{
	uint8_t buf[16];
	struct msg_buf b;

	msg_init(&b, buf, sizeof(buf));
	msg_write_byte(&b, svc_disconnect);
	msg_write_string(&b, MVD_END_TEXT);
	sv_mvd_dest_record(d, MVD_ALL, 0, b.data, b.cursize, sv->realtime);
}

/* ---- entry points ----------------------------------------------------- */

int sv_mvd_init(struct server *sv)
{
	struct sv_mvd *m = calloc(1, sizeof(*m));

	if (!m)
		return -1;
	for (int i = 0; i < MVD_DESTS; i++)
		m->dests[i].fd = -1;
	m->spawncount = -1;
	m->demofps = cvar_register(sv, "sv_demofps", "77", 0,
				   "demo frames a second with players in the game");
	m->idlefps = cvar_register(sv, "sv_demoIdlefps", "10", 0,
				   "demo frames a second without players");
	m->pings = cvar_register(sv, "sv_demopings", "3", 0,
				 "seconds between the pings written to demos (0: none)");
	m->maxsize = cvar_register(sv, "sv_demoMaxSize", "20480", 0,
				   "KB a demo may reach; recording stops there (0: no limit)");
	m->silent = cvar_register(sv, "sv_silentrecord", "0", 0,
				  "1: players are not told when a demo starts or ends");
	m->streambuffer = cvar_register(sv, "qtv_streambuffer", "1024", 0,
					"KB of a QTV stream that may wait for a slow viewer "
					"before it is dropped (16..65536)");
	m->streamtimeout = cvar_register(sv, "qtv_streamtimeout", "45", 0,
					 "seconds a QTV stream may take nothing before it "
					 "is dropped");
	sv->mvd = m;
	return 0;
}

void sv_mvd_free(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;

	if (!m)
		return;
	for (int i = 0; i < MVD_DESTS; i++)
		if (m->dests[i].used)
			dest_release(sv, &m->dests[i]);
	free(m);
	sv->mvd = NULL;
}

bool sv_mvd_active(const struct server *sv)
{
	return sv->mvd && sv->mvd->ndests > 0;
}

void sv_mvd_message(struct server *sv, int slot, const void *data, size_t len)
{
	struct sv_mvd *m = sv->mvd;

	if (!m || m->ndests == 0 || slot >= MVD_PLAYERS)
		return;
	if (!sv_mvd_frame_add(m, slot < 0 ? MVD_ALL : MVD_SINGLE, slot < 0 ? 0 : slot,
		       data, len, MVD_EVENTS_MAX))
		m->events_dropped++;
}

void sv_mvd_message_mask(struct server *sv, uint32_t mask, const void *data,
			 size_t len)
{
	struct sv_mvd *m = sv->mvd;

	if (!m || m->ndests == 0 || mask == 0)
		return;
	if (!sv_mvd_frame_add(m, MVD_MULTIPLE, (int)mask, data, len, MVD_EVENTS_MAX))
		m->events_dropped++;
}

void sv_mvd_setangle(struct server *sv, int slot, const vec3_t angles)
{
	uint8_t buf[8];
	struct msg_buf b;

	if (!sv_mvd_active(sv) || slot < 0 || slot >= MVD_PLAYERS)
		return;
	/* a demo names whose view it is */
	msg_init(&b, buf, sizeof(buf));
	msg_write_byte(&b, svc_setangle);
	msg_write_byte(&b, slot);
	for (int k = 0; k < 3; k++)
		msg_write_angle(&b, angles[k]);
	sv_mvd_message(sv, -1, b.data, b.cursize);
}

static bool m_silent(const struct server *sv)
{
	return sv->mvd->silent->value != 0;
}

static struct mvd_dest *new_dest(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;

	for (int i = 0; i < MVD_DESTS; i++) {
		struct mvd_dest *d = &m->dests[i];

		if (d->used)
			continue;
		memset(d, 0, sizeof(*d));
		d->used = true;
		d->fd = -1;
		d->id = ++m->next_id;
		if (i >= m->top)
			m->top = i + 1;
		d->since = d->io_time = sv->realtime;
		return d;
	}
	return NULL;
}

/* a destination joins: the demo clock starts when it is the first one,
 * changes of the frame so far go to the others before it gets its
 * gamestate (which holds the state they describe) */
static void dest_join(struct server *sv, struct mvd_dest *d)
{
	struct sv_mvd *m = sv->mvd;

	if (m->ndests++ == 0) {
		m->prevtime = sv->time;
		m->last_frame = sv->realtime;
		m->last_pings = sv->realtime;
		m->frame_len = 0;
		rec_close(m);
		m->spawncount = sv->spawncount;
		memset(m->slots, 0, sizeof(m->slots));
		m->have_base = false;
	} else {
		sv_mvd_write_changes(sv);
	}
	sv_mvd_gamestate(sv, d);
}

int sv_mvd_open_file(struct server *sv, const char *path, const char *name,
		     char *err, size_t errlen)
{
	struct mvd_dest *d;
	int fd;

	if (!sv->map) {
		snprintf(err, errlen, "no level loaded yet");
		return -1;
	}
	if (sv_mvd_file(sv, NULL)) {
		snprintf(err, errlen, "already recording %s (stop or cancel it first)",
			 sv_mvd_file(sv, NULL));
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	d = new_dest(sv);
	if (d)
		d->buf = malloc(MVD_FILE_BUF);
	if (!d || !d->buf) {
		if (d)
			d->used = false;
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	d->fd = fd;
	d->cap = MVD_FILE_BUF;
	strlcpy(d->name, name, sizeof(d->name));
	strlcpy(d->path, path, sizeof(d->path));
	if (m_silent(sv))
		qwd_logf(&sv->log, QWD_LOG_INFO, "demo %s started", name);
	else
		sv_broadcast_printf(sv, PRINT_CHAT, "Server starts recording (disk):\n%s\n", name);
	dest_join(sv, d);
	return 0;
}

static struct mvd_dest *file_dest(const struct server *sv)
{
	if (!sv->mvd)
		return NULL;
	for (int i = 0; i < MVD_DESTS; i++)
		if (sv->mvd->dests[i].used && !sv->mvd->dests[i].stream)
			return &sv->mvd->dests[i];
	return NULL;
}

const char *sv_mvd_file(const struct server *sv, uint64_t *bytes)
{
	struct mvd_dest *d = file_dest(sv);

	if (!d)
		return NULL;
	if (bytes)
		*bytes = d->total;
	return d->name;
}

/* The file ends: the frame so far goes out first (so its last events are
 * in it), then EndOfDemo, to the file only; a cancelled file is removed.
 * The players are told as MVDSV tells them. */
long long sv_mvd_stop_file(struct server *sv, enum sv_demo_stop why)
{
	static const char *const said[] = {
		[DEMO_STOP_DONE] = "Server recording completed\n",
		[DEMO_STOP_CANCEL] = "Server recording canceled, demo removed\n",
		[DEMO_STOP_FULL] = "Server recording stopped\nMax demo size exceeded\n",
		[DEMO_STOP_ERROR] = "Error in MVD/QTV recording, recording stopped\n",
		[DEMO_STOP_QUIET] = NULL,
	};
	struct mvd_dest *d = file_dest(sv);
	bool remove = why == DEMO_STOP_CANCEL;
	long long total;
	bool ok;

	if (!d)
		return -1;
	frame_out(sv, 0);
	end_of_demo(sv, d);
	file_flush(d, sv->realtime);
	ok = !d->failed;
	total = (long long)d->total;
	if (remove || !ok)
		unlink(d->path);
	qwd_logf(&sv->log, QWD_LOG_INFO, "demo %s %s: %lld bytes, %.0f s%s%s", d->name,
		 remove ? "cancelled and removed" : ok ? "written" : "failed",
		 total, sv->realtime - d->since, ok ? "" : ": ", ok ? "" : d->why);
	dest_release(sv, d);
	if (!ok)
		why = DEMO_STOP_ERROR;
	if (said[why] && !(m_silent(sv) &&
			   (why == DEMO_STOP_DONE || why == DEMO_STOP_CANCEL)))
		sv_broadcast_printf(sv, PRINT_CHAT, "%s", said[why]);
	return ok ? total : -1;
}

bool sv_mvd_add_stream(struct server *sv, int fd, const char *peer)
{
	struct mvd_dest *d = new_dest(sv);
	double kb = sv->mvd->streambuffer->value;
	size_t cap = (size_t)(kb < 16 ? 16 : kb > 65536 ? 65536 : kb) * 1024;
	int sndbuf = (int)(cap / 4 < MVD_STREAM_SNDBUF ? cap / 4 : MVD_STREAM_SNDBUF);

	if (d)
		d->buf = malloc(cap);
	if (!d || !d->buf) {
		if (d)
			d->used = false;
		return false;
	}
	d->fd = fd;
	d->stream = true;
	d->cap = cap;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	strlcpy(d->name, peer, sizeof(d->name));
	dest_join(sv, d);
	stream_push(d, sv->realtime);
	qwd_logf(&sv->log, QWD_LOG_INFO, "QTV stream %d to %s started", d->id, peer);
	return true;
}

int sv_mvd_streams(const struct server *sv)
{
	int n = 0;

	for (int i = 0; sv->mvd && i < MVD_DESTS; i++)
		n += sv->mvd->dests[i].used && sv->mvd->dests[i].stream;
	return n;
}

void sv_mvd_list_streams(const struct server *sv, FILE *out)
{
	for (int i = 0; sv->mvd && i < MVD_DESTS; i++) {
		const struct mvd_dest *d = &sv->mvd->dests[i];

		if (d->used && d->stream)
			fprintf(out, "%4d %-22s %6.0f s %10llu bytes, %zu waiting\n", d->id,
				d->name, sv->realtime - d->since,
				(unsigned long long)d->total, d->len);
	}
}

int sv_mvd_close_stream(struct server *sv, int id)
{
	int n = 0;

	for (int i = 0; sv->mvd && i < MVD_DESTS; i++) {
		struct mvd_dest *d = &sv->mvd->dests[i];

		if (d->used && d->stream && (id < 0 || d->id == id)) {
			sv_mvd_dest_fail(d, "closed by the operator");
			n++;
		}
	}
	return n;
}

void sv_mvd_figures(const struct server *sv, FILE *out)
{
	const struct sv_mvd *m = sv->mvd;

	if (!m)
		return;
	fprintf(out, "demo frames %llu, %llu bytes, %.1f us a frame, %llu events "
		"dropped, %llu entities left out\n",
		(unsigned long long)m->frames, (unsigned long long)m->bytes,
		m->frames ? (double)m->ns / (double)m->frames / 1000.0 : 0.0,
		(unsigned long long)m->events_dropped,
		(unsigned long long)m->entity_cuts);
}

/* before a level is replaced: the frame so far and EndOfDemo to everyone
 * (a QTV viewer ignores it, a file ends), the file closed; the streams
 * get the next level's gamestate when it is up */
void sv_mvd_level_end(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;

	if (!sv_mvd_active(sv))
		return;
	frame_out(sv, 0);
	for (int i = 0; i < MVD_DESTS; i++) {
		struct mvd_dest *d = &m->dests[i];

		if (!d->used || !d->stream)
			continue;
		end_of_demo(sv, d);
		d->gamestate = true;
	}
	if (file_dest(sv))
		sv_mvd_stop_file(sv, DEMO_STOP_DONE);
	m->spawncount = -1;
}

/* destinations that failed are closed, with a word in the log (and to
 * the players for a file, as MVDSV says it) */
static void reap(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;

	for (int i = 0; i < m->top; i++) {
		struct mvd_dest *d = &m->dests[i];

		if (!d->used || !d->failed)
			continue;
		if (d->stream) {
			qwd_logf(&sv->log, QWD_LOG_INFO, "QTV stream %d to %s dropped: %s",
				 d->id, d->name, d->why);
			dest_release(sv, d);
		} else {
			qwd_logf(&sv->log, QWD_LOG_WARN, "demo %s: %s", d->name, d->why);
			sv_mvd_stop_file(sv, DEMO_STOP_ERROR);
		}
	}
}

/* what streams send is read and dropped (a proxy's chat and user lists);
 * a closed connection is seen here */
static void stream_input(struct mvd_dest *d)
{
	uint8_t tmp[2048];

	for (int k = 0; k < 4; k++) {
		ssize_t n = recv(d->fd, tmp, sizeof(tmp), MSG_DONTWAIT);

		if (n > 0)
			continue;
		if (n == 0)
			sv_mvd_dest_fail(d, "connection closed by the viewer");
		else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			sv_mvd_dest_fail(d, strerror(errno));
		return;
	}
}

/* The streams (not a file) learn how long a paused frame really took,
 * as MVDSV tells them, so a proxy keeps its delay while the demo's clock
 * stands still (qwd/mvd.h, MVD_HIDDEN_PAUSED_DURATION). */
static void paused_duration(struct server *sv, double seconds)
{
	struct sv_mvd *m = sv->mvd;
	double ms = seconds * 1000.0;
	uint8_t block[3] = {
		MVD_HIDDEN_PAUSED_DURATION & 255, MVD_HIDDEN_PAUSED_DURATION >> 8,
		(uint8_t)(ms > 255 ? 255 : ms < 0 ? 0 : ms)
	};

	for (int i = 0; i < m->top; i++) {
		struct mvd_dest *d = &m->dests[i];

		if (d->used && d->stream && !d->gamestate && !d->failed)
			sv_mvd_dest_record(d, MVD_MULTIPLE, 0, block, sizeof(block),
					   sv->realtime);
	}
}

/* While the game is paused the demo clock stands still, as MVDSV's (its
 * paused frames carry 0 ms): what happens meanwhile (the svc_setpause,
 * prints, names, pings) goes out at sv_demoIdlefps in 0 ms frames without
 * entity lists, since a reader keeps one list per demo time (ezQuake
 * deltas from the previous time's).  A destination that joined meanwhile
 * needs its full frame: it goes 1 ms on, which the clock takes back from
 * the first frame after the pause. */
static void paused_frame(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;
	double fps = m->idlefps->value;

	if (fps < 4)
		fps = 4;
	if (fps > 500)
		fps = 500;
	if (sv->realtime - m->last_frame < 1.0 / fps)
		return;
	paused_duration(sv, sv->realtime - m->last_frame);
	m->last_frame = sv->realtime;
	if (m->full) {
		m->prevtime += 0.001;
		sv_mvd_write_state(sv);
		frame_out(sv, 1);
		m->sequence++;
		m->frames++;
	} else {
		sv_mvd_write_paused(sv);
		frame_out(sv, 0);
	}
}

void sv_mvd_frame(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;
	bool players = false;
	double fps;
	int msec;

	if (!m || m->ndests == 0 || !sv->map)
		return;
	uint64_t t0 = prof_now(sv->prof);

	/* a new level: its gamestate to whoever waits for it */
	if (m->spawncount != sv->spawncount) {
		m->spawncount = sv->spawncount;
		m->prevtime = sv->time;
		m->last_frame = sv->realtime;
		memset(m->slots, 0, sizeof(m->slots));
		m->have_base = false;
		for (int i = 0; i < m->top; i++)
			if (m->dests[i].used && m->dests[i].gamestate)
				sv_mvd_gamestate(sv, &m->dests[i]);
	}
	for (int i = 0; i < sv_mvd_stock_slots(sv) && !players; i++)
		players = sv_mvd_in_demo(&sv->clients[i]);
	fps = players ? m->demofps->value : m->idlefps->value;
	if (fps < 4)
		fps = 4;
	if (fps > 500)
		fps = 500;
	msec = (int)((sv->time - m->prevtime) * 1000.0);
	if (sv->paused) {
		paused_frame(sv);
	} else if (sv->realtime - m->last_frame >= 1.0 / fps && msec >= 1) {
		/* the demo clock keeps the level's pace; a stall longer than a
		 * record can say is cut short, as MVDSV does */
		m->prevtime += msec * 0.001;
		if (msec > 255)
			msec = 255;
		m->last_frame = sv->realtime;
		sv_mvd_write_state(sv);
		frame_out(sv, msec);
		m->sequence++;
		m->frames++;
	}
	for (int i = 0; i < m->top; i++) {
		struct mvd_dest *d = &m->dests[i];

		if (!d->used || d->failed)
			continue;
		if (!d->stream) {
			if (d->len > d->cap / 2 || sv->realtime - d->io_time >= 1.0)
				file_flush(d, sv->realtime);
			if (m->maxsize->value > 0 &&
			    d->total > (uint64_t)m->maxsize->value * 1024)
				sv_mvd_stop_file(sv, DEMO_STOP_FULL);
			continue;
		}
		/* a few sends a second: a send to a stream costs tens of
		 * microseconds (the peer's TCP work is done in it, on
		 * loopback), a viewer buffers half a second anyway */
		if (sv->realtime - d->pushed < MVD_STREAM_PUSH && d->len < MVD_STREAM_PUSH_BYTES)
			continue;
		d->pushed = sv->realtime;
		stream_input(d);
		stream_push(d, sv->realtime);
		if (d->len && sv->realtime - d->io_time > m->streamtimeout->value)
			sv_mvd_dest_fail(d, "took nothing for qtv_streamtimeout seconds");
	}
	reap(sv);
	m->ns += prof_now(sv->prof) - t0;
}

void sv_mvd_shutdown(struct server *sv)
{
	struct sv_mvd *m = sv->mvd;

	if (!sv_mvd_active(sv))
		return;
	if (file_dest(sv))
		sv_mvd_stop_file(sv, DEMO_STOP_QUIET);
	frame_out(sv, 0);
	for (int i = 0; i < MVD_DESTS; i++) {
		struct mvd_dest *d = &m->dests[i];

		if (!d->used)
			continue;
		end_of_demo(sv, d);
		/* a last try to hand over what waits, without blocking */
		stream_push(d, sv->realtime);
		qwd_logf(&sv->log, QWD_LOG_INFO, "QTV stream %d to %s ended: server shut down",
			 d->id, d->name);
		dest_release(sv, d);
	}
}
