/*
 * services.c -- what the game module asks of the server (struct
 * game_services, include/qwd/game.h): precaches, sounds, temporary
 * entities, prints, frags (and the frag log), view kicks, the
 * intermission, cvars, the pause (pause.c).
 *
 * Design note
 *   Unreliable events (svc_sound, svc_temp_entity, svc_muzzleflash,
 *   svc_damage) go into each receiving client's datagram buffer and ride
 *   on its next reply; an event that does not fit is dropped, as
 *   QuakeWorld drops a client datagram that overflowed; an event to
 *   everyone is written once and taken by each (events.c).  Everything the
 *   player must not miss (prints, frags, setangle, kicks, the
 *   intermission) goes on the reliable stream; what one player causes for
 *   everyone (frags, light styles, texts) goes the ways that can never
 *   overflow another player's stream (reliable.c: pending sets, texts dropped
 *   past a mark).  A demo being recorded or streamed (mvd.c) gets every
 *   event too, whoever it reaches: a demo shows everybody's view.
 *
 *   Who receives a multicast: QuakeWorld's SV_Multicast tests the leaf of
 *   each client against the PVS or PHS row of the leaf of the event's
 *   origin.  Here a client's player object's linked leafs are tested (the
 *   same rows, no tree walk per client).  On a server of hundreds of
 *   players (extension slots) only the players within SV_EVENT_RADIUS of
 *   the origin are looked at, found through the player grid, nearest cells
 *   first and SV_EVENT_TESTS of them at most (as a reply shows the nearest
 *   players), so an event costs a bounded amount of work instead of one
 *   test per player: in a crowd of thousands, every shot tested every
 *   player (18.6% of the frame at 2048 players).
 *
 *   Wire facts (id's QW/server/sv_send.c SV_StartSound): svc_sound carries
 *   a short of (entity << 3) | channel, bit 15 when a volume byte follows
 *   (volume != 255), bit 14 when an attenuation byte (attn * 64) follows
 *   (attn != 1), then the sound number and the origin.  Clients read 10
 *   bits of entity (id's hold 768), so sounds of entities past 1023, and
 *   past 511 for stock clients, play from the world at their origin.
 *   svc_temp_entity: the type byte, a count byte for gunshot and blood,
 *   the entity short and two points for beams, else one point.
 */
#include "core.h"

#include <math.h>
#include <string.h>

#include <bsd/string.h>

/* ---- delivery --------------------------------------------------------- */

/* one client of a multicast: does row reach it?  logged: the frame's log
 * of events to everyone is not empty (the client may have some to take
 * first) */
static void multicast_one(struct server *sv, struct client *cl,
			  const uint8_t *row, const struct msg_buf *wide,
			  const struct msg_buf *narrow, bool logged)
{
	const struct msg_buf *m = cl->extended ? wide : narrow;

	/* a datagram already full would drop it: no visibility test (in a
	 * crowd most of a frame's sounds meet full datagrams) */
	if (logged)
		sv_events_take(sv, cl);
	if (cl->state != CS_SPAWNED || !m ||
	    cl->datagram_len + m->cursize > sizeof(cl->datagram))
		return;
	if (row && !sv_obj_visible(&sv->objs[game_player_entity(sv->game, cl->slot)], row))
		return;
	sv_datagram_put(cl, m->data, m->cursize);
}

/* one player of the grid's walk for an event; false: its tests are spent */
struct grid_event {
	struct server *sv;
	const uint8_t *row;
	const struct msg_buf *wide, *narrow;
	int tests;
	bool logged;
};

/* what multicast_one reads of player j: its client's state and the
 * length of its datagram (far apart: two lines), and its object's leaf */
static inline __attribute__((always_inline)) void
grid_event_ahead(void *ctx, int j)
{
	const struct grid_event *e = ctx;
	const struct client *cl = &e->sv->clients[j];

	__builtin_prefetch(&cl->state);
	__builtin_prefetch(&cl->datagram_len);
	__builtin_prefetch(&e->sv->objs[game_player_entity(e->sv->game, j)]);
}

static inline __attribute__((always_inline)) bool
grid_event_one(void *ctx, int j)
{
	struct grid_event *e = ctx;

	multicast_one(e->sv, &e->sv->clients[j], e->row, e->wide, e->narrow,
		      e->logged);
	return ++e->tests < SV_EVENT_TESTS;
}

/* Send to the clients the multicast mode reaches from org.  narrow is
 * the stock clients' form (NULL: they get nothing). */
static void multicast(struct server *sv, const vec3_t org, int mode,
		      const struct msg_buf *wide, const struct msg_buf *narrow)
{
	const uint8_t *row = NULL;

	if (!sv->map || !sv->game)
		return;
	/* a demo hears everything, whoever is near (stock form) */
	if (narrow)
		sv_hooks_message(sv, -1, 0, narrow->data, narrow->cursize);
	if (mode == GAME_MULTICAST_PVS || mode == GAME_MULTICAST_PHS) {
		int32_t leaf = bsp_point_leaf(sv->map, org);

		row = mode == GAME_MULTICAST_PVS ? bsp_leaf_pvs(sv->map, leaf)
						 : bsp_leaf_phs(sv->map, leaf);
	}
	if (!row) {
		/* everyone's: written once, taken by each (events.c) */
		sv_events_all(sv, wide->data, wide->cursize,
			      narrow ? narrow->data : NULL,
			      narrow ? narrow->cursize : 0);
		return;
	}
	bool logged = sv->events.count > 0;

	if (sv->maxclients <= MAX_CLIENTS) {
		for (int i = 0; i < sv->maxclients; i++)
			multicast_one(sv, &sv->clients[i], row, wide, narrow,
				      logged);
		return;
	}
	/* hundreds of players: the grid cells around org, nearest first,
	 * SV_EVENT_TESTS players at most */
	const struct sv_grid *g = &sv->grid;
	struct grid_event e = {sv, row, wide, narrow, 0, logged};
	int r = (int)(SV_EVENT_RADIUS / g->cell) + 1;
	int cx = (int)((org[0] - g->ox) / g->cell), cy = (int)((org[1] - g->oy) / g->cell);

	sv_grid_visit(g, cx, cy, r + 1, grid_event_one, grid_event_ahead, &e);
}

static struct client *slot_client(struct server *sv, int slot)
{
	if (slot < 0 || slot >= sv->maxclients || sv->clients[slot].state < CS_CONNECTED)
		return NULL;
	return &sv->clients[slot];
}

static void reliable_to(struct server *sv, int slot, const struct msg_buf *m)
{
	sv_hooks_message(sv, slot, 0, m->data, m->cursize);
	if (slot >= 0) {
		struct client *cl = slot_client(sv, slot);

		if (cl)
			sv_reliable_write(cl, m->data, m->cursize);
		return;
	}
	for (int i = 0; i < sv->maxclients; i++)
		if (sv->clients[i].state == CS_SPAWNED)
			sv_reliable_write(&sv->clients[i], m->data, m->cursize);
}

/* ---- the services ----------------------------------------------------- */

static int svc_precache_model(void *ctx, const char *name)
{
	return sv_add_model(ctx, name);
}

static int svc_precache_sound(void *ctx, const char *name)
{
	return sv_add_sound(ctx, name);
}

static void write_sound(struct msg_buf *m, int ent, int channel, int snd,
			int v, int a, const vec3_t origin)
{
	int ch = (ent << 3) | (channel & 7);

	if (v != 255)
		ch |= SND_VOLUME;
	if (a != 64)
		ch |= SND_ATTENUATION;
	msg_write_byte(m, svc_sound);
	msg_write_short(m, ch);
	if (ch & SND_VOLUME)
		msg_write_byte(m, v);
	if (ch & SND_ATTENUATION)
		msg_write_byte(m, a);
	msg_write_byte(m, snd);
	for (int k = 0; k < 3; k++)
		msg_write_coord(m, origin[k]);
}

static void svc_sound_fn(void *ctx, int ent, int channel, int snd, float vol,
			 float attn, const vec3_t origin)
{
	struct server *sv = ctx;
	uint8_t wbuf[16], nbuf[16];
	struct msg_buf w, n;
	int v = (int)lrintf(vol * 255.0f), a = (int)lrintf(attn * 64.0f);

	if (snd <= 0 || snd >= sv->num_sounds)
		return;
	if (ent < 0 || ent > 1023)
		ent = 0;
	v = v < 0 ? 0 : v > 255 ? 255 : v;
	a = a < 0 ? 0 : a > 255 ? 255 : a;
	msg_init(&w, wbuf, sizeof(wbuf));
	write_sound(&w, ent, channel, snd, v, a, origin);
	/* stock clients hold fewer entities (id's: 768): past 511 the
	 * sound comes from the world at the same place */
	msg_init(&n, nbuf, sizeof(nbuf));
	write_sound(&n, ent < MAX_EDICTS_P28 ? ent : 0, channel, snd, v, a, origin);
	multicast(sv, origin, attn == 0.0f ? GAME_MULTICAST_ALL : GAME_MULTICAST_PHS,
		  &w, &n);
}

static void svc_static_sound(void *ctx, const vec3_t origin, int snd, float vol,
			     float attn)
{
	struct server *sv = ctx;
	uint8_t buf[16];
	struct msg_buf m;
	int v = (int)lrintf(vol * 255.0f), a = (int)lrintf(attn * 64.0f);

	if (snd <= 0 || snd >= sv->num_sounds)
		return;
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_spawnstaticsound);
	for (int k = 0; k < 3; k++)
		msg_write_coord(&m, origin[k]);
	msg_write_byte(&m, snd);
	msg_write_byte(&m, v < 0 ? 0 : v > 255 ? 255 : v);
	msg_write_byte(&m, a < 0 ? 0 : a > 255 ? 255 : a);
	sv_signon_add(sv, m.data, m.cursize);
}

static void write_temp_entity(struct msg_buf *m, const struct game_temp_entity *te,
			      int ent)
{
	msg_write_byte(m, svc_temp_entity);
	msg_write_byte(m, te->type);
	switch (te->type) {
	case TE_GUNSHOT:
	case TE_BLOOD:
		msg_write_byte(m, te->count < 1 ? 1 : te->count > 255 ? 255 : te->count);
		break;
	case TE_LIGHTNING1:
	case TE_LIGHTNING2:
	case TE_LIGHTNING3:
		msg_write_short(m, ent);
		for (int k = 0; k < 3; k++)
			msg_write_coord(m, te->origin[k]);
		for (int k = 0; k < 3; k++)
			msg_write_coord(m, te->end[k]);
		return;
	default:
		break;
	}
	for (int k = 0; k < 3; k++)
		msg_write_coord(m, te->origin[k]);
}

static void svc_temp_entity_fn(void *ctx, const struct game_temp_entity *te,
			       int mode)
{
	struct server *sv = ctx;
	uint8_t wbuf[32], nbuf[32];
	struct msg_buf w, n;

	if (te->type < TE_SPIKE || te->type > TE_LIGHTNINGBLOOD)
		return;
	msg_init(&w, wbuf, sizeof(wbuf));
	write_temp_entity(&w, te, te->entity);
	/* stock clients know entity numbers below 512 only: a beam of an
	 * extension player starts at no entity for them */
	msg_init(&n, nbuf, sizeof(nbuf));
	write_temp_entity(&n, te, te->entity < MAX_EDICTS_P28 ? te->entity : 0);
	multicast(sv, te->origin, mode, &w, &n);
}

static void svc_muzzleflash_fn(void *ctx, int ent, const vec3_t origin)
{
	struct server *sv = ctx;
	uint8_t buf[4];
	struct msg_buf m;

	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_muzzleflash);
	msg_write_short(&m, ent);
	multicast(sv, origin, GAME_MULTICAST_PVS, &m,
		  ent < MAX_EDICTS_P28 ? &m : NULL);
}

static void svc_print_fn(void *ctx, int slot, int level, const char *text)
{
	struct server *sv = ctx;
	struct client *cl;

	if (slot < 0) {
		sv_broadcast_printf(sv, level, "%s", text);
		return;
	}
	if ((cl = slot_client(sv, slot)) != NULL) {
		uint8_t buf[1100];
		struct msg_buf m;

		sv_reliable_printf(cl, level, "%s", text);
		msg_init(&m, buf, sizeof(buf));
		msg_write_byte(&m, svc_print);
		msg_write_byte(&m, level);
		msg_write_string(&m, text);
		if (!m.overflowed)
			sv_hooks_message(sv, slot, 0, m.data, m.cursize);
	}
}

static void svc_centerprint_fn(void *ctx, int slot, const char *text)
{
	uint8_t buf[1100];
	struct msg_buf m;

	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_centerprint);
	msg_write_string(&m, text);
	if (!m.overflowed)
		reliable_to(ctx, slot, &m);
}

static void svc_stufftext_fn(void *ctx, int slot, const char *text)
{
	struct server *sv = ctx;
	struct client *cl;

	if (slot < 0) {
		for (int i = 0; i < sv->maxclients; i++)
			if (sv->clients[i].state == CS_SPAWNED)
				sv_reliable_stufftext(&sv->clients[i], "%s", text);
		return;
	}
	if ((cl = slot_client(sv, slot)) != NULL)
		sv_reliable_stufftext(cl, "%s", text);
}

/* marked for everyone who may see the slot, sent as their channels have
 * room: one message per slot however many kills came meanwhile */
void sv_send_frags(struct server *sv, int slot)
{
	for (int i = 0; i < sv->maxclients; i++) {
		struct client *to = &sv->clients[i];

		if (to->state < CS_CONNECTED || (slot >= MAX_CLIENTS && !to->extended))
			continue;
		if (!sv_frags_mark(to, slot))
			sv->stats.infos_folded++;
	}
}

static void svc_frags_fn(void *ctx, int slot, int frags)
{
	struct server *sv = ctx;

	if (!slot_client(sv, slot))
		return;
	sv->clients[slot].frags = frags;
	sv_send_frags(sv, slot);
}

/* one reliable message to every client from state `min` up */
static void broadcast_reliable(struct server *sv, const struct msg_buf *m,
			       enum client_state min)
{
	for (int i = 0; i < sv->maxclients; i++)
		if (sv->clients[i].state >= min)
			sv_reliable_write(&sv->clients[i], m->data, m->cursize);
}

static void svc_found_secret_fn(void *ctx)
{
	struct server *sv = ctx;
	uint8_t buf[1];
	struct msg_buf m;

	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_foundsecret);
	broadcast_reliable(sv, &m, CS_SPAWNED);
	sv_hooks_message(sv, -1, 0, m.data, m.cursize);
}

/* the style is kept for clients that join later (their spawn sends all
 * styles) and marked for those already there: a switch flicked over and
 * over sends each client the newest style once (reliable.c) */
static void svc_lightstyle_fn(void *ctx, int style, const char *value)
{
	struct server *sv = ctx;

	_Static_assert(MAX_LIGHTSTYLES <= 64, "a bit per style in styles_pending");
	if (style < 0 || style >= MAX_LIGHTSTYLES || !value)
		return;
	strlcpy(sv->lightstyles[style], value, sizeof(sv->lightstyles[style]));
	for (int i = 0; i < sv->maxclients; i++)
		if (sv->clients[i].state >= CS_CONNECTED)
			sv->clients[i].styles_pending |= 1ull << style;
}

static void svc_damage_fn(void *ctx, int slot, int armor, int blood,
			  const vec3_t from)
{
	struct server *sv = ctx;
	struct client *cl = slot_client(sv, slot);
	uint8_t buf[16];
	struct msg_buf m;

	if (!cl)
		return;
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_damage);
	msg_write_byte(&m, armor < 0 ? 0 : armor > 255 ? 255 : armor);
	msg_write_byte(&m, blood < 0 ? 0 : blood > 255 ? 255 : blood);
	for (int k = 0; k < 3; k++)
		msg_write_coord(&m, from[k]);
	sv_datagram_add(sv, cl, m.data, m.cursize);
	sv_hooks_message(sv, slot, 0, m.data, m.cursize);
}

static void svc_kick_fn(void *ctx, int slot, bool big)
{
	uint8_t b = big ? svc_bigkick : svc_smallkick;
	struct client *cl = slot_client(ctx, slot);

	if (cl)
		sv_reliable_write(cl, &b, 1);
	sv_hooks_message(ctx, slot, 0, &b, 1);
}

static void svc_setangle_fn(void *ctx, int slot, const vec3_t angles)
{
	struct client *cl = slot_client(ctx, slot);
	uint8_t buf[8];
	struct msg_buf m;

	if (!cl)
		return;
	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_setangle);
	for (int k = 0; k < 3; k++)
		msg_write_angle(&m, angles[k]);
	sv_reliable_write(cl, m.data, m.cursize);
	sv_hooks_setangle(ctx, slot, angles);
}

static void svc_intermission_fn(void *ctx, const vec3_t origin,
				const vec3_t angles)
{
	uint8_t buf[16];
	struct msg_buf m;

	msg_init(&m, buf, sizeof(buf));
	msg_write_byte(&m, svc_intermission);
	for (int k = 0; k < 3; k++)
		msg_write_coord(&m, origin[k]);
	for (int k = 0; k < 3; k++)
		msg_write_angle(&m, angles[k]);
	reliable_to(ctx, -1, &m);
}

static void svc_change_level(void *ctx, const char *map)
{
	struct server *sv = ctx;

	/* the game is in the middle of a frame: load it afterwards */
	strlcpy(sv->pending_map, map, sizeof(sv->pending_map));
}

/* sv->cvars is a fixed array: a cvar never moves */
static const float *svc_cvar_fn(void *ctx, const char *name)
{
	struct cvar *v = cvar_get(ctx, name);

	return v ? &v->value : NULL;
}

static const char *svc_infokey_fn(void *ctx, const char *key)
{
	struct server *sv = ctx;

	if (!info_value_for_key(sv->serverinfo, key, sv->infokey_value,
				sizeof(sv->infokey_value)) || !sv->infokey_value[0])
		return NULL;
	return sv->infokey_value;
}

static void svc_log_fn(void *ctx, int level, const char *text)
{
	struct server *sv = ctx;

	qwd_logf(&sv->log, level, "game: %s", text);
}

static void svc_logfrag_fn(void *ctx, int killer, int victim)
{
	sv_hooks_frag(ctx, killer, victim);
}

/* KTX's trap_setpause: the state asked for, without words */
static void svc_set_pause_fn(void *ctx, bool paused)
{
	sv_pause_set(ctx, paused, NULL);
}

void sv_game_services(struct server *sv)
{
	struct game_services *s = &sv->game_svc;

	memset(s, 0, sizeof(*s));
	s->ctx = sv;
	s->precache_model = svc_precache_model;
	s->precache_sound = svc_precache_sound;
	s->sound = svc_sound_fn;
	s->static_sound = svc_static_sound;
	s->temp_entity = svc_temp_entity_fn;
	s->muzzleflash = svc_muzzleflash_fn;
	s->print = svc_print_fn;
	s->centerprint = svc_centerprint_fn;
	s->stufftext = svc_stufftext_fn;
	s->frags = svc_frags_fn;
	s->damage = svc_damage_fn;
	s->kick = svc_kick_fn;
	s->setangle = svc_setangle_fn;
	s->intermission = svc_intermission_fn;
	s->change_level = svc_change_level;
	s->logfrag = svc_logfrag_fn;
	s->cvar = svc_cvar_fn;
	s->infokey = svc_infokey_fn;
	s->log = svc_log_fn;
	s->found_secret = svc_found_secret_fn;
	s->lightstyle = svc_lightstyle_fn;
	s->set_pause = svc_set_pause_fn;
}
