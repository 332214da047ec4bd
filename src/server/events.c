/*
 * events.c -- the game's unreliable events to each client: its datagram
 * buffer, and the frame's log of the events every client hears.
 *
 * Design note
 *   An unreliable event (a sound, a temporary entity, a muzzle flash,
 *   damage) goes into each receiving client's datagram, which rides on its
 *   next reply; what does not fit is dropped (QuakeWorld's rule), so what a
 *   client gets depends on the order its events came in.  An event that
 *   reaches everyone (a sound of no attenuation: a death, a gib, a
 *   teleport) was written into every client's datagram at once: on a
 *   server of thousands, a death cost thousands of writes in the frame's
 *   one sequential part.  Such an event is written once, into the frame's
 *   log, and each client takes what it has not taken (client.events_taken,
 *   a count of the log's events) into its datagram before anything else is
 *   done with that datagram: an event of its own is added
 *   (sv_datagram_add, multicasts), the reply reads it (send.c, on the
 *   reply's own thread), or the frame ends (sv_events_settle, for the
 *   clients that got no reply).  Each client then gets the same events, in
 *   the same order, with the same ones dropped, as when every event was
 *   written at once.  A client in the game when an event came takes it;
 *   one that joined after it (it joins at the log's end) or left before
 *   taking it (its datagram is cleared before any use) does not.
 *
 *   The log holds the events' two forms apart, each run of bytes
 *   contiguous (the extension clients' form, and the stock clients', empty
 *   for an event they do not get), with where each event starts in both:
 *   a client with room for all it has to take copies it in one go, and one
 *   whose datagram can hold none of the smallest event skips the rest.
 *   The log is emptied when the frame ends and when it is full (every
 *   client takes everything first), and at a level change; it is
 *   allocated once (sv_events_init).
 *
 *   Who may call: services.c adds events, user.c joins a client, send.c
 *   takes, frame.c settles; this file calls nothing of the core.
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>

enum { EVENTS_BYTES = 65536, EVENTS_MAX = 4096 };

int sv_events_init(struct server *sv)
{
	struct sv_events *ev = &sv->events;

	memset(ev, 0, sizeof(*ev));
	ev->bytes[0] = malloc(EVENTS_BYTES);
	ev->bytes[1] = malloc(EVENTS_BYTES);
	ev->at[0] = malloc(sizeof(*ev->at[0]) * (EVENTS_MAX + 1));
	ev->at[1] = malloc(sizeof(*ev->at[1]) * (EVENTS_MAX + 1));
	if (!ev->bytes[0] || !ev->bytes[1] || !ev->at[0] || !ev->at[1])
		return -1;
	ev->at[0][0] = ev->at[1][0] = 0;
	ev->min_len[0] = ev->min_len[1] = SV_DATAGRAM + 1;
	return 0;
}

void sv_events_free(struct server *sv)
{
	struct sv_events *ev = &sv->events;

	for (int f = 0; f < 2; f++) {
		free(ev->bytes[f]);
		free(ev->at[f]);
	}
	memset(ev, 0, sizeof(*ev));
}

void sv_events_take_rest(struct server *sv, struct client *cl)
{
	const struct sv_events *ev = &sv->events;
	uint32_t k = cl->events_taken, n = ev->count;
	int f = cl->extended ? 0 : 1;	/* the form it reads */
	const uint32_t *at = ev->at[f];
	size_t room;

	cl->events_taken = n;
	if (cl->state != CS_SPAWNED)
		return;	/* its datagram is cleared before it is read */
	room = sizeof(cl->datagram) - cl->datagram_len;
	if (at[n] - at[k] <= room) {	/* all of it fits */
		memcpy(cl->datagram + cl->datagram_len, ev->bytes[f] + at[k],
		       at[n] - at[k]);
		cl->datagram_len += at[n] - at[k];
		return;
	}
	/* one by one, each where it fits, until none could */
	for (; k < n && room >= ev->min_len[f]; k++) {
		size_t len = at[k + 1] - at[k];

		if (len == 0 || len > room)
			continue;
		memcpy(cl->datagram + cl->datagram_len, ev->bytes[f] + at[k], len);
		cl->datagram_len += len;
		room -= len;
	}
}

/* the log emptied; every client's count back to 0 (they took it all) */
static void events_clear(struct server *sv)
{
	struct sv_events *ev = &sv->events;

	for (int i = 0; i < sv->maxclients; i++)
		sv->clients[i].events_taken = 0;
	ev->count = 0;
	ev->min_len[0] = ev->min_len[1] = SV_DATAGRAM + 1;
}

void sv_events_settle(struct server *sv)
{
	if (sv->events.count == 0)
		return;
	for (int i = 0; i < sv->maxclients; i++)
		sv_events_take(sv, &sv->clients[i]);
	events_clear(sv);
}

void sv_events_join(struct server *sv, struct client *cl)
{
	cl->events_taken = sv->events.count;
}

void sv_events_reset(struct server *sv)
{
	events_clear(sv);
}

void sv_events_all(struct server *sv, const void *wide, size_t wide_len,
		   const void *narrow, size_t narrow_len)
{
	struct sv_events *ev = &sv->events;
	const void *data[2] = {wide, narrow};
	size_t len[2] = {wide_len, narrow ? narrow_len : 0};

	if (len[0] > SV_DATAGRAM || len[1] > SV_DATAGRAM)
		return;	/* it would fit no datagram */
	if (ev->count == EVENTS_MAX ||
	    ev->at[0][ev->count] + len[0] > EVENTS_BYTES ||
	    ev->at[1][ev->count] + len[1] > EVENTS_BYTES)
		sv_events_settle(sv);
	for (int f = 0; f < 2; f++) {
		uint32_t end = ev->at[f][ev->count];

		if (len[f])
			memcpy(ev->bytes[f] + end, data[f], len[f]);
		ev->at[f][ev->count + 1] = end + (uint32_t)len[f];
		if (len[f] && len[f] < ev->min_len[f])
			ev->min_len[f] = len[f];
	}
	ev->count++;
}
