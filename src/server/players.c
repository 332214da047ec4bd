/*
 * players.c -- the players in a reply: each player's svc_playerinfo entry,
 * cached and shared by every viewer, and the player grid that serves an
 * extension client's reply nearest players first.
 *
 * Design note
 *   send.c builds a reply and calls sv_write_players for its players; this
 *   file owns how a player's entry is made (player_key: what it is a
 *   function of; put_player_body: its bytes, origins rounded to 1/8 unit
 *   as MVDSV does), the cache that makes it once per reply phase for all
 *   viewers (sv_player_entry_refresh: the parallel phase calls it for
 *   every player before its workers only read), who is shown to whom (the
 *   client itself, the player a spectator tracks, then the PVS: a reply's
 *   hundreds of tests read each player's 16-byte seen cell, made again
 *   only after the player moved or was changed, not its entry and its
 *   object), and the
 *   grid of cells that bounds an extension reply's work on a server of
 *   hundreds.  It calls nothing of send.c's; send.c and user.c (the grid's
 *   moves) call it.
 */
#include "core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- a player's entry ------------------------------------------------- */

static int16_t coord8(float f)
{
	/* MVDSV rounds origins to the nearest 1/8 unit */
	long v = lrintf(f * 8.0f);

	if (v > 32767)
		v = 32767;
	if (v < -32768)
		v = -32768;
	return (int16_t)v;
}

/* What a player's entry is made of, read once from the game and the
 * client: the entry is a function of these alone, its msec and, in the
 * player's own view, its weapon frame. */
static void player_key(const struct server *sv, int j, struct sv_player_key *k)
{
	const struct client *pc = &sv->clients[j];
	const struct game *g = sv->game;
	int num = game_player_entity(g, j);
	const struct game_entity *e = &g->ents[num];
	const struct game_client *gc = &g->clients[j];

	for (int i = 0; i < 3; i++) {
		k->origin[i] = sv->objs[num].origin[i];
		k->cmd_angles[i] = pc->lastcmd.angles[i];
		k->velocity[i] = (int)gc->pm.velocity[i];
	}
	k->move[0] = pc->lastcmd.forwardmove;
	k->move[1] = pc->lastcmd.sidemove;
	k->move[2] = pc->lastcmd.upmove;
	k->frame = e->frame;
	k->modelindex = e->modelindex;
	k->skin = e->skin;
	k->effects = e->effects;
	k->dead = e->health <= 0;
	if (k->dead) {
		/* a corpse does not look around */
		k->cmd_angles[0] = 0;
		k->cmd_angles[1] = e->angles[1];
		k->cmd_angles[2] = 0;
	}
	k->cmd_msec = pc->lastcmd.msec;
	k->spectator = pc->spectator;
	k->m_player = g->m_player;
	k->m_h_player = g->m_h_player;
}

/* The entry from its flags on; the player's own view (self) has no msec
 * or command; weaponframe (when not 0) is for the player's own view and
 * its trackers'. */
static uint8_t *put_player_body(uint8_t *p, const struct sv_player_key *k,
				int msec, bool self, int weaponframe)
{
	static const struct usercmd nullcmd;
	int flags = PF_MSEC | PF_COMMAND;

	if (k->modelindex != k->m_player)
		flags |= PF_MODEL;
	for (int i = 0; i < 3; i++)
		if (k->velocity[i])
			flags |= PF_VELOCITY1 << i;
	if (k->effects)
		flags |= PF_EFFECTS;
	if (k->skin)
		flags |= PF_SKINNUM;
	if (k->dead)
		flags |= PF_DEAD;
	if (k->modelindex && k->modelindex == k->m_h_player)
		flags |= PF_GIB;
	if (k->spectator)
		flags &= PF_VELOCITY1 | PF_VELOCITY2 | PF_VELOCITY3;
	else if (self)
		flags &= ~(PF_MSEC | PF_COMMAND);
	/* the player's own view, and a spectator tracking it, see its
	 * weapon frame */
	if (weaponframe && !k->spectator)
		flags |= PF_WEAPONFRAME;

	p = msg_put_short(p, flags);
	for (int i = 0; i < 3; i++)
		p = msg_put_short(p, coord8(k->origin[i]));
	p = msg_put_byte(p, k->frame);
	if (flags & PF_MSEC)
		p = msg_put_byte(p, msec);
	if (flags & PF_COMMAND) {
		struct usercmd c = {
			.msec = (uint8_t)k->cmd_msec,
			.forwardmove = (int16_t)k->move[0],
			.sidemove = (int16_t)k->move[1],
			.upmove = (int16_t)k->move[2],
		};

		for (int i = 0; i < 3; i++)
			c.angles[i] = k->cmd_angles[i];
		p = msg_put_delta_usercmd(p, &nullcmd, &c);
	}
	for (int i = 0; i < 3; i++)
		if (flags & (PF_VELOCITY1 << i))
			p = msg_put_short(p, k->velocity[i]);
	if (flags & PF_MODEL)
		p = msg_put_byte(p, k->modelindex);
	if (flags & PF_SKINNUM)
		p = msg_put_byte(p, k->skin);
	if (flags & PF_EFFECTS)
		p = msg_put_byte(p, k->effects);
	if (flags & PF_WEAPONFRAME)
		p = msg_put_byte(p, weaponframe);
	return p;
}

/* The sanitizer build (make check) proves the rule of the game's changes
 * and touched counters (game.h) on every test it runs: an entry kept
 * without a check must equal one made now.  A difference is a change the
 * counters missed: a stale player on every client's screen, so it stops
 * there. */
static void check_entry(const struct server *sv, int j)
{
#ifdef QWD_SELF_CHECK
	struct sv_player_key k;

	player_key(sv, j, &k);
	if (memcmp(&sv->entries[j].key, &k, sizeof(k)) != 0 ||
	    sv->entries[j].leaf1 != sv->objs[game_player_entity(sv->game, j)].leaf1) {
		fprintf(stderr, "qwd: player %d changed without game->changes or touched\n", j);
		abort();
	}
#else
	(void)sv;
	(void)j;
#endif
}

/* A player's cached entry as of this reply phase: its inputs (and its
 * object's leaf, which moves only with them) read and compared when the
 * game's changes counter or its touched counter moved or its own move
 * ran, the bytes encoded again only when they changed; its msec made once
 * per phase (entry_refresh).  Once done in a phase it only reads. */
static inline __attribute__((always_inline)) bool
entry_fresh(const struct server *sv, int j)
{
	const struct sv_player_entry *c = &sv->entries[j];

	return c->valid && !c->moved && c->stamp == sv->entry_epoch &&
	       c->touched == sv->game->touched[j];
}

static inline __attribute__((always_inline)) void
entry_check(struct server *sv, int j)
{
	struct sv_player_entry *c = &sv->entries[j];

	if (!entry_fresh(sv, j)) {
		struct sv_player_key k;

		player_key(sv, j, &k);
		c->leaf1 = sv->objs[game_player_entity(sv->game, j)].leaf1;
		if (!c->valid || memcmp(&c->key, &k, sizeof(k)) != 0) {
			c->key = k;
			c->len = (uint8_t)(put_player_body(c->bytes, &k, 0, false, 0) - c->bytes);
			c->has_msec = !k.spectator;
			c->valid = true;
		}
		c->stamp = sv->entry_epoch;
		c->touched = sv->game->touched[j];
		c->moved = false;
	} else {
		check_entry(sv, j);
	}
}

static inline __attribute__((always_inline)) void
entry_refresh(struct server *sv, int j)
{
	struct sv_player_entry *c = &sv->entries[j];

	if (c->msec_stamp != sv->reply_stamp) {
		int msec = (int)(1000.0 * (sv->time - c->localtime));

		c->msec = (uint8_t)(msec > 255 ? 255 : (msec < 0 ? 0 : msec));
		c->msec_stamp = sv->reply_stamp;
		entry_check(sv, j);
	} else {
		/* checked in this phase already: nothing a reply reads moves
		 * within one (the sanitizer build proves it) */
		check_entry(sv, j);
	}
}

void sv_player_entry_refresh(struct server *sv, int j)
{
	entry_refresh(sv, j);
}

static enum sv_shown shown_of(const struct client *cl)
{
	if (cl->state != CS_SPAWNED)
		return SV_SHOWN_NONE;
	return cl->spectator ? SV_SHOWN_SPECTATOR : SV_SHOWN_PLAYER;
}

void sv_entry_sync(struct server *sv, const struct client *cl)
{
	sv->entries[cl->slot].shown = (uint8_t)shown_of(cl);
	sv->seen[cl->slot].epoch = 0;	/* made again at its next test */
}

void sv_seen_moved(struct server *sv, int slot)
{
	sv->seen[slot].epoch = 0;
}

/* Player j's cell, made again on its first test after what places its
 * object may have changed (state.h's rule): who may see it (its entry's
 * shown) and its object's leaf. */
static inline __attribute__((always_inline)) bool
seen_fresh(const struct server *sv, int j)
{
	const struct sv_seen_cell *c = &sv->seen[j];

	return c->epoch == sv->entry_epoch && c->touched == sv->game->touched[j];
}

static inline __attribute__((always_inline)) int32_t
seen_of(struct server *sv, int j)
{
	struct sv_seen_cell *c = &sv->seen[j];

	if (!seen_fresh(sv, j)) {
		enum sv_shown shown = (enum sv_shown)sv->entries[j].shown;

		if (shown == SV_SHOWN_NONE)
			c->leaf = SV_SEEN_NONE;
		else if (shown == SV_SHOWN_SPECTATOR)
			c->leaf = SV_SEEN_SPECTATOR;
		else {
			int32_t leaf1 = sv->objs[game_player_entity(sv->game, j)].leaf1;

			c->leaf = leaf1 >= 0 ? leaf1 : SV_SEEN_LEAFS;
		}
		c->epoch = sv->entry_epoch;
		c->touched = sv->game->touched[j];
	}
	return c->leaf;
}

void sv_player_seen_refresh(struct server *sv, int j)
{
	seen_of(sv, j);
}

/* One svc_playerinfo (or its extension form), one record; false when it
 * did not fit.  Another player's entry is the same for every viewer but
 * for its number and msec: it is copied from the player's cached entry,
 * whose inputs are read and compared once per reply phase (the world does
 * not change within one) and encoded again only when they changed. */
static inline __attribute__((always_inline)) bool
write_player(struct server *sv, struct client *cl, int j, struct msg_buf *m)
{
	enum { PLAYER_ENTRY_MAX = 3 + SV_PLAYER_BODY_MAX };
	uint8_t scratch[PLAYER_ENTRY_MAX], *start, *p;
	struct sv_player_entry *c = &sv->entries[j];
	size_t mark = m->cursize;

	entry_refresh(sv, j);
	start = msg_record_begin(m, scratch, sizeof(scratch));
	p = start;
	if (j >= MAX_CLIENTS || cl->extended) {
		p = msg_put_byte(p, svcx_playerinfo);
		p = msg_put_short(p, j);
	} else {
		p = msg_put_byte(p, svc_playerinfo);
		p = msg_put_byte(p, j);
	}
	if (j == cl->slot) {
		p = put_player_body(p, &c->key, c->msec, true, sv->game->clients[j].weaponframe);
	} else if (cl->spec_track == j + 1 && sv->game->clients[j].weaponframe) {
		/* the tracked player, with its weapon frame (MVDSV's) */
		p = put_player_body(p, &c->key, c->msec, false,
				    sv->game->clients[j].weaponframe);
	} else {
		/* the whole buffer (a fixed size: a few wide moves), of which
		 * len bytes count; the record has room for the largest entry */
		memcpy(p, c->bytes, sizeof(c->bytes));
		if (c->has_msec)
			p[SV_PLAYER_MSEC_AT] = c->msec;
		p += c->len;
	}
	msg_record_end(m, scratch, start, p);
	if (m->overflowed) {
		m->cursize = mark;
		m->overflowed = false;
		return false;
	}
	return true;
}

bool sv_write_player(struct server *sv, struct client *cl, int j,
		     struct msg_buf *m)
{
	return write_player(sv, cl, j, m);
}

static inline __attribute__((always_inline)) bool
player_shown(struct server *sv, struct client *cl, int j, const uint8_t *pvs)
{
	int32_t leaf = seen_of(sv, j);
	bool shown;

	if (leaf == SV_SEEN_NONE)
		shown = false;
	else if (j == cl->slot)
		shown = true;
	else if (leaf == SV_SEEN_SPECTATOR)
		shown = false;
	else if (cl->spec_track == j + 1)
		shown = true;	/* a spectator always sees the player it tracks */
	else if (leaf >= 0)
		shown = bsp_vis_test(pvs, leaf);
	else
		shown = sv_obj_visible(&sv->objs[game_player_entity(sv->game, j)], pvs);
#ifdef QWD_SELF_CHECK
	/* the cell must answer as the client's state and the object now */
	{
		enum sv_shown now = shown_of(&sv->clients[j]);
		const struct world_obj *o = &sv->objs[game_player_entity(sv->game, j)];
		bool want = now != SV_SHOWN_NONE &&
			    (j == cl->slot ||
			     (now == SV_SHOWN_PLAYER &&
			      (cl->spec_track == j + 1 || sv_obj_visible(o, pvs))));

		if (now != (enum sv_shown)sv->entries[j].shown) {
			fprintf(stderr, "qwd: client %d's state or side changed without sv_entry_sync\n", j);
			abort();
		}
		if (shown != want) {
			fprintf(stderr, "qwd: player %d's seen cell is stale (leaf %d, object's %d)\n",
				j, leaf, o->leaf1);
			abort();
		}
	}
#endif
	return shown;
}

/* one player of the grid's walk for an extension reply; false: the
 * reply has its players, or its tests, or no room */
struct grid_reply {
	struct server *sv;
	struct client *cl;
	const uint8_t *pvs;
	struct msg_buf *m;
	int shown, tests;
};

/* what player_shown and write_player read of player j, asked of memory
 * a few turns ahead (sv_grid_visit's pre): its entry's first line (the
 * stamps, the time of its last move and the bytes) */
static inline __attribute__((always_inline)) void
grid_reply_ahead(void *ctx, int j)
{
	const struct grid_reply *r = ctx;

	__builtin_prefetch(&r->sv->entries[j]);
}

static inline __attribute__((always_inline)) bool
grid_reply_one(void *ctx, int j)
{
	struct grid_reply *r = ctx;

	if (j == r->cl->slot)
		return true;
	if (++r->tests > SV_REPLY_TESTS || r->shown >= SV_REPLY_PLAYERS)
		return false;
	if (!player_shown(r->sv, r->cl, j, r->pvs))
		return true;
	if (!write_player(r->sv, r->cl, j, r->m))
		return false;
	r->shown++;
	return true;
}

/* The players a client sees.  A stock client can only be told of slots
 * 0..31: they are all tested.  An extension client on a server of
 * hundreds is served from the player grid, nearest cells first, and a reply
 * holds at most SV_REPLY_PLAYERS players after at most SV_REPLY_TESTS
 * visibility tests: the work per reply is bounded, not proportional to the
 * number of players (which would make a frame grow with their square). */
void sv_write_players(struct server *sv, struct client *cl,
		      const uint8_t *pvs, struct msg_buf *m)
{
	if (!cl->extended || sv->maxclients <= MAX_CLIENTS) {
		int limit = sv->maxclients < MAX_CLIENTS ? sv->maxclients : MAX_CLIENTS;

		for (int j = 0; j < limit; j++)
			if (player_shown(sv, cl, j, pvs) && !write_player(sv, cl, j, m))
				break;
		return;
	}

	const struct sv_grid *g = &sv->grid;
	struct grid_reply r = {.sv = sv, .cl = cl, .pvs = pvs, .m = m};

	if (!sv_write_player(sv, cl, cl->slot, m))
		return;
	sv_grid_visit(g, g->cell_x[cl->slot], g->cell_y[cl->slot],
		      g->nx > g->ny ? g->nx : g->ny, grid_reply_one,
		      grid_reply_ahead, &r);
}

/* ---- the player grid -------------------------------------------------- */

void sv_grid_init(struct server *sv)
{
	struct sv_grid *g = &sv->grid;
	const struct bsp_model *w = &sv->map->models[0];
	float sx = w->maxs[0] - w->mins[0], sy = w->maxs[1] - w->mins[1];

	g->cell = SV_GRID_CELL;
	while (sx / g->cell > SV_GRID_DIM || sy / g->cell > SV_GRID_DIM)
		g->cell *= 2;
	g->ox = w->mins[0];
	g->oy = w->mins[1];
	g->nx = (int)(sx / g->cell) + 1;
	g->ny = (int)(sy / g->cell) + 1;
	for (int i = 0; i < g->nx * g->ny; i++)
		g->head[i] = -1;
	for (int i = 0; i < sv->maxclients; i++) {
		g->cell_x[i] = g->cell_y[i] = 0;
		g->in[i] = false;
	}
}

void sv_grid_remove(struct server *sv, int slot)
{
	struct sv_grid *g = &sv->grid;
	int c;
	int16_t *p;

	if (!g->in[slot])
		return;
	c = g->cell_y[slot] * g->nx + g->cell_x[slot];
	for (p = &g->head[c]; *p >= 0; p = &g->next[*p])
		if (*p == slot) {
			*p = g->next[slot];
			break;
		}
	g->in[slot] = false;
}

/* put (or keep) a player in the cell of its origin; O(players in the
 * cell) when it changes cell, nothing otherwise */
void sv_grid_move(struct server *sv, int slot, const vec3_t org)
{
	struct sv_grid *g = &sv->grid;
	int x = (int)((org[0] - g->ox) / g->cell), y = (int)((org[1] - g->oy) / g->cell);

	if (x < 0)
		x = 0;
	if (x >= g->nx)
		x = g->nx - 1;
	if (y < 0)
		y = 0;
	if (y >= g->ny)
		y = g->ny - 1;
	if (g->in[slot] && g->cell_x[slot] == x && g->cell_y[slot] == y)
		return;
	sv_grid_remove(sv, slot);
	g->cell_x[slot] = (int16_t)x;
	g->cell_y[slot] = (int16_t)y;
	g->next[slot] = g->head[y * g->nx + x];
	g->head[y * g->nx + x] = (int16_t)slot;
	g->in[slot] = true;
}

