/*
 * io.c -- the server's clock, one datagram out of the reply batch, the
 * clients by address, the clients' sides.
 *
 * Design note
 *   A base file (base.h): small functions every layer of the module needs
 *   and that call nothing of the server.  The clock is the real one, or
 *   the driver's when a link drives the server in-process (tests,
 *   framebench).  A datagram sent outside the reply batch (connectionless
 *   answers, a last disconnect) goes through sv_send_raw so that a
 *   capture sees it.  The (address, qport) table is rebuilt whole when a
 *   client connects or leaves (rare), so a packet's lookup is a probe or
 *   two; the client a packet probably comes from (its first candidate) is
 *   asked of memory a packet ahead (sv_client_prefetch).  The sides: players and spectators counted, maxspectators
 *   bounded, the slot a client's view is (a tracking spectator's is the
 *   tracked player's).
 */
#include "base.h"

#include <time.h>

double server_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the server's time: the real clock, or its driver's (struct server_link) */
double sv_clock(const struct server *sv)
{
	return sv->link ? sv->link->now : server_clock();
}

void sv_send_raw(struct server *sv, const struct net_addr *to,
		 const void *data, size_t len)
{
	if (sv->link)
		net_mem_send(sv->link->out, to, data, len, &sv->net);
	else {
		/* the replies queued in the ring go first (uring.c) */
		net_send_sync(sv->tx);
		net_udp_send(sv->sock, to, data, len, &sv->net);
	}
	if (sv->capture)
		capture_out(sv->capture, to, data, len, sv->realtime);
}

static uint32_t client_hash(const struct server *sv, uint32_t ip, uint16_t qport)
{
	uint64_t x = ((uint64_t)ip << 16 | qport) * 0x9E3779B97F4A7C15ull;

	return (uint32_t)(x >> 40) & (sv->hash_size - 1);
}

/* Rebuilt whole when a client connects or leaves (rare); lookups per
 * packet are then a probe or two. */
void sv_rehash_clients(struct server *sv)
{
	for (uint32_t i = 0; i < sv->hash_size; i++)
		sv->hash[i] = -1;
	for (int i = 0; i < sv->maxclients; i++) {
		const struct client *cl = &sv->clients[i];
		uint32_t h;

		if (cl->state < CS_CONNECTED)
			continue;
		h = client_hash(sv, cl->chan.remote.ip, cl->chan.qport);
		while (sv->hash[h] >= 0)
			h = (h + 1) & (sv->hash_size - 1);
		sv->hash[h] = i;
	}
}

struct client *sv_find_client(struct server *sv, const struct net_addr *from,
				  uint16_t qport)
{
	uint32_t h = client_hash(sv, from->ip, qport);

	for (uint32_t n = 0; n < sv->hash_size; n++, h = (h + 1) & (sv->hash_size - 1)) {
		int slot = sv->hash[h];
		struct client *cl;

		if (slot < 0)
			return NULL;
		cl = &sv->clients[slot];
		if (cl->state >= CS_CONNECTED && cl->chan.remote.ip == from->ip &&
		    cl->chan.qport == qport)
			return cl;
	}
	return NULL;
}

void sv_client_prefetch(const struct server *sv, const struct net_packet *p)
{
	const uint8_t *d = p->data;
	const struct client *cl;
	uint32_t ack;
	int slot;

	/* connectionless (-1 sequence) or too short for a channel: nothing */
	if (p->len < NETCHAN_HEADER_QPORT || (d[0] & d[1] & d[2] & d[3]) == 0xff)
		return;
	slot = sv->hash[client_hash(sv, p->from.ip, (uint16_t)(d[8] | d[9] << 8))];
	if (slot < 0)
		return;
	cl = &sv->clients[slot];
	ack = ((uint32_t)d[4] | (uint32_t)d[5] << 8 | (uint32_t)d[6] << 16 |
	       (uint32_t)d[7] << 24) & 0x7fffffffu;
	__builtin_prefetch(&cl->state);		/* the lookup's, the channel's head */
	__builtin_prefetch(&cl->chan.incoming_sequence);
	__builtin_prefetch(&cl->send_reply);	/* the request's */
	__builtin_prefetch(&cl->frames[ack & UPDATE_MASK]);	/* its ping */
	/* its player's object, for the move (the walk fields, the origin);
	 * whether it has spawned is not asked: that read would wait for the
	 * line the prefetches above ask for */
	if (sv->game) {
		const struct world_obj *o = &sv->objs[game_player_entity(sv->game, slot)];

		__builtin_prefetch(o);
		__builtin_prefetch((const char *)o + 64);
	}
}

int sv_count_clients(const struct server *sv, bool spectators)
{
	int n = 0;

	for (int i = 0; i < sv->maxclients; i++)
		if (sv->clients[i].state >= CS_CONNECTED &&
		    sv->clients[i].spectator == spectators)
			n++;
	return n;
}

int sv_spectator_limit(const struct server *sv)
{
	int n = (int)sv->maxspectators->value;

	return n < 0 ? 0 : n > SV_SPECTATOR_SLOTS ? SV_SPECTATOR_SLOTS : n;
}

int sv_view_slot(const struct server *sv, const struct client *cl)
{
	if (cl->spectator && cl->spec_track > 0 && cl->spec_track <= sv->maxclients) {
		const struct client *t = &sv->clients[cl->spec_track - 1];

		if (t->state == CS_SPAWNED && !t->spectator)
			return t->slot;
	}
	return cl->slot;
}
