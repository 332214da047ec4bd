/*
 * defer.c -- the game's calls to the server, queued while moves run on
 * several threads, and replayed afterwards in the order of the moves;
 * and the guard on what such moves must not touch.
 *
 * Design note
 *   A move run by a worker of the parallel frame (docs/parallel.md,
 *   "EXECUTE on workers") may call the server: a jump's sound, an item's
 *   pickup sound, its message and bonus flash, a damage flash.  Those
 *   write other clients' buffers, so a worker must not make them.  The
 *   server points the game at game_defer_services() for the phase; each
 *   of its calls is recorded into the queue the calling thread bound
 *   (game_defer_bind: one queue per worker, a key per move), with its
 *   text copied, and game_defer_replay makes the real calls afterwards,
 *   on the coordinator, ordered by key (a stable order within a key), so
 *   the server sees the calls of the moves in the order the moves
 *   arrived, whichever worker ran them.  Calls that answer something
 *   (precache, cvar, infokey) and those only a level's load makes go to
 *   the real services at once.
 *
 *   The guard: while a thread has a queue bound for a local move it runs
 *   a move
 *   one the schedule judged unable to reach the game's shared state (the
 *   random stream, the entity allocator, damage and what follows it,
 *   targets).  If one does anyway (a case the judgement missed), the
 *   call is an escape: counted, and run under one lock so no two
 *   threads run such calls at once; the frame stays safe but may not
 *   play as the sequential one would.  With QWD_SELF_CHECK it aborts.
 *
 *   The one thread-local variable of the game: which queue this thread
 *   records into (NULL: none, the calls go straight to the server).
 *   Nothing allocates after game_defer_create.
 */
#include "internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum defer_kind {
	D_SOUND, D_TEMP_ENTITY, D_MUZZLEFLASH, D_PRINT, D_CENTERPRINT,
	D_STUFFTEXT, D_FRAGS, D_DAMAGE, D_KICK, D_SETANGLE, D_INTERMISSION,
	D_CHANGE_LEVEL, D_LOG, D_FOUND_SECRET, D_LIGHTSTYLE, D_LOGFRAG,
	D_SET_PAUSE
};

struct defer_rec {
	uint32_t key;
	uint8_t kind;
	int a, b, c;
	float f1, f2;
	vec3_t v1, v2;
	struct game_temp_entity te;
	uint32_t text;		/* offset in the text arena, or UINT32_MAX */
};

struct game_defer {
	struct defer_rec *recs;
	int num, cap;
	char *text;
	size_t text_used, text_cap;
	uint32_t key;		/* of the calls recorded now */
	uint64_t dropped;	/* calls lost to a full queue */
};

static __thread struct game_defer *bound;
static __thread bool bound_local;	/* a local move: the guard is on */

static pthread_mutex_t escape_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int escape_depth;
static uint64_t escapes;	/* under escape_lock */

struct game_defer *game_defer_create(int records, size_t text_bytes)
{
	struct game_defer *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->recs = calloc((size_t)records, sizeof(*q->recs));
	q->text = malloc(text_bytes);
	if (!q->recs || !q->text) {
		game_defer_destroy(q);
		return NULL;
	}
	q->cap = records;
	q->text_cap = text_bytes;
	return q;
}

void game_defer_destroy(struct game_defer *q)
{
	if (!q)
		return;
	free(q->recs);
	free(q->text);
	free(q);
}

static void game_defer_reset(struct game_defer *q)
{
	q->num = 0;
	q->text_used = 0;
}

uint64_t game_defer_dropped(const struct game_defer *q)
{
	return q->dropped;
}

void game_defer_bind(struct game_defer *q, uint32_t key, bool local)
{
	bound = q;
	bound_local = q && local;
	if (q)
		q->key = key;
}

bool g_deferring(void)
{
	return bound_local;
}

/* ---- recording -------------------------------------------------------- */

static struct defer_rec *rec_new(int kind)
{
	struct game_defer *q = bound;
	struct defer_rec *r;

	if (!q || q->num == q->cap) {
		if (q)
			q->dropped++;
		return NULL;
	}
	r = &q->recs[q->num++];
	memset(r, 0, sizeof(*r));
	r->key = q->key;
	r->kind = (uint8_t)kind;
	r->text = UINT32_MAX;
	return r;
}

static void rec_text(struct defer_rec *r, const char *s)
{
	struct game_defer *q = bound;
	size_t n = strlen(s) + 1;

	if (q->text_used + n > q->text_cap) {
		q->dropped++;
		q->num--;	/* the call is lost whole, not cut */
		return;
	}
	memcpy(q->text + q->text_used, s, n);
	r->text = (uint32_t)q->text_used;
	q->text_used += n;
}

static void rec_sound(void *ctx, int ent, int channel, int snd, float vol,
		      float attn, const vec3_t origin)
{
	struct defer_rec *r = rec_new(D_SOUND);

	(void)ctx;
	if (!r)
		return;
	r->a = ent;
	r->b = channel;
	r->c = snd;
	r->f1 = vol;
	r->f2 = attn;
	vec_copy(origin, r->v1);
}

static void rec_temp_entity(void *ctx, const struct game_temp_entity *te,
			    int multicast)
{
	struct defer_rec *r = rec_new(D_TEMP_ENTITY);

	(void)ctx;
	if (!r)
		return;
	r->te = *te;
	r->a = multicast;
}

static void rec_muzzleflash(void *ctx, int ent, const vec3_t origin)
{
	struct defer_rec *r = rec_new(D_MUZZLEFLASH);

	(void)ctx;
	if (!r)
		return;
	r->a = ent;
	vec_copy(origin, r->v1);
}

static void rec_print(void *ctx, int slot, int level, const char *text)
{
	struct defer_rec *r = rec_new(D_PRINT);

	(void)ctx;
	if (!r)
		return;
	r->a = slot;
	r->b = level;
	rec_text(r, text);
}

static void rec_slot_text(int kind, int slot, const char *text)
{
	struct defer_rec *r = rec_new(kind);

	if (!r)
		return;
	r->a = slot;
	rec_text(r, text);
}

static void rec_centerprint(void *ctx, int slot, const char *text)
{
	(void)ctx;
	rec_slot_text(D_CENTERPRINT, slot, text);
}

static void rec_stufftext(void *ctx, int slot, const char *text)
{
	(void)ctx;
	rec_slot_text(D_STUFFTEXT, slot, text);
}

static void rec_frags(void *ctx, int slot, int frags)
{
	struct defer_rec *r = rec_new(D_FRAGS);

	(void)ctx;
	if (!r)
		return;
	r->a = slot;
	r->b = frags;
}

static void rec_damage(void *ctx, int slot, int armor, int blood,
		       const vec3_t from)
{
	struct defer_rec *r = rec_new(D_DAMAGE);

	(void)ctx;
	if (!r)
		return;
	r->a = slot;
	r->b = armor;
	r->c = blood;
	vec_copy(from, r->v1);
}

static void rec_kick(void *ctx, int slot, bool big)
{
	struct defer_rec *r = rec_new(D_KICK);

	(void)ctx;
	if (!r)
		return;
	r->a = slot;
	r->b = big;
}

static void rec_setangle(void *ctx, int slot, const vec3_t angles)
{
	struct defer_rec *r = rec_new(D_SETANGLE);

	(void)ctx;
	if (!r)
		return;
	r->a = slot;
	vec_copy(angles, r->v1);
}

static void rec_intermission(void *ctx, const vec3_t origin,
			     const vec3_t angles)
{
	struct defer_rec *r = rec_new(D_INTERMISSION);

	(void)ctx;
	if (!r)
		return;
	vec_copy(origin, r->v1);
	vec_copy(angles, r->v2);
}

static void rec_change_level(void *ctx, const char *map)
{
	struct defer_rec *r = rec_new(D_CHANGE_LEVEL);

	(void)ctx;
	if (r)
		rec_text(r, map);
}

static void rec_log(void *ctx, int level, const char *text)
{
	struct defer_rec *r = rec_new(D_LOG);

	(void)ctx;
	if (!r)
		return;
	r->a = level;
	rec_text(r, text);
}

static void rec_found_secret(void *ctx)
{
	(void)ctx;
	rec_new(D_FOUND_SECRET);
}

static void rec_lightstyle(void *ctx, int style, const char *value)
{
	struct defer_rec *r = rec_new(D_LIGHTSTYLE);

	(void)ctx;
	if (!r)
		return;
	r->a = style;
	rec_text(r, value);
}

static void rec_logfrag(void *ctx, int killer, int victim)
{
	struct defer_rec *r = rec_new(D_LOGFRAG);

	(void)ctx;
	if (!r)
		return;
	r->a = killer;
	r->b = victim;
}

static void rec_set_pause(void *ctx, bool paused)
{
	struct defer_rec *r = rec_new(D_SET_PAUSE);

	(void)ctx;
	if (r)
		r->a = paused;
}

struct game_services game_defer_services(const struct game_services *real)
{
	struct game_services s = *real;	/* ctx and the answering calls */

	s.sound = real->sound ? rec_sound : NULL;
	s.temp_entity = real->temp_entity ? rec_temp_entity : NULL;
	s.muzzleflash = real->muzzleflash ? rec_muzzleflash : NULL;
	s.print = real->print ? rec_print : NULL;
	s.centerprint = real->centerprint ? rec_centerprint : NULL;
	s.stufftext = real->stufftext ? rec_stufftext : NULL;
	s.frags = real->frags ? rec_frags : NULL;
	s.damage = real->damage ? rec_damage : NULL;
	s.kick = real->kick ? rec_kick : NULL;
	s.setangle = real->setangle ? rec_setangle : NULL;
	s.intermission = real->intermission ? rec_intermission : NULL;
	s.change_level = real->change_level ? rec_change_level : NULL;
	s.log = real->log ? rec_log : NULL;
	s.found_secret = real->found_secret ? rec_found_secret : NULL;
	s.lightstyle = real->lightstyle ? rec_lightstyle : NULL;
	s.logfrag = real->logfrag ? rec_logfrag : NULL;
	s.set_pause = real->set_pause ? rec_set_pause : NULL;
	return s;
}

/* ---- replay ------------------------------------------------------------ */

static void replay_one(const struct game_services *s, const struct game_defer *q,
		       const struct defer_rec *r)
{
	const char *text = r->text == UINT32_MAX ? "" : q->text + r->text;
	void *ctx = s->ctx;

	switch (r->kind) {
	case D_SOUND:
		s->sound(ctx, r->a, r->b, r->c, r->f1, r->f2, r->v1);
		break;
	case D_TEMP_ENTITY: s->temp_entity(ctx, &r->te, r->a); break;
	case D_MUZZLEFLASH: s->muzzleflash(ctx, r->a, r->v1); break;
	case D_PRINT: s->print(ctx, r->a, r->b, text); break;
	case D_CENTERPRINT: s->centerprint(ctx, r->a, text); break;
	case D_STUFFTEXT: s->stufftext(ctx, r->a, text); break;
	case D_FRAGS: s->frags(ctx, r->a, r->b); break;
	case D_DAMAGE: s->damage(ctx, r->a, r->b, r->c, r->v1); break;
	case D_KICK: s->kick(ctx, r->a, r->b != 0); break;
	case D_SETANGLE: s->setangle(ctx, r->a, r->v1); break;
	case D_INTERMISSION: s->intermission(ctx, r->v1, r->v2); break;
	case D_CHANGE_LEVEL: s->change_level(ctx, text); break;
	case D_LOG: s->log(ctx, r->a, text); break;
	case D_FOUND_SECRET: s->found_secret(ctx); break;
	case D_LIGHTSTYLE: s->lightstyle(ctx, r->a, text); break;
	case D_LOGFRAG: s->logfrag(ctx, r->a, r->b); break;
	case D_SET_PAUSE: s->set_pause(ctx, r->a != 0); break;
	default: break;
	}
}

int game_defer_replay(const struct game_services *real,
		      struct game_defer *const *qs, int nq, uint32_t keys,
		      uint32_t *count, uint32_t *order, int max_order)
{
	int total = 0, placed = 0;

	/* a counting sort by key of (queue, record) pairs, stable within a
	 * queue: one key's calls come from one move, so from one queue */
	memset(count, 0, ((size_t)keys + 1) * sizeof(*count));
	for (int i = 0; i < nq; i++)
		for (int k = 0; k < qs[i]->num; k++) {
			uint32_t key = qs[i]->recs[k].key;

			count[(key < keys ? key : keys - 1) + 1]++;
			total++;
		}
	if (total > max_order)
		return -1;
	for (uint32_t k = 1; k <= keys; k++)
		count[k] += count[k - 1];
	for (int i = 0; i < nq; i++)
		for (int k = 0; k < qs[i]->num; k++) {
			uint32_t key = qs[i]->recs[k].key;

			key = key < keys ? key : keys - 1;
			order[count[key]++] = (uint32_t)i << 24 | (uint32_t)k;
		}
	for (int n = 0; n < total; n++) {
		uint32_t qi = order[n] >> 24, ri = order[n] & 0xffffff;

		replay_one(real, qs[qi], &qs[qi]->recs[ri]);
		placed++;
	}
	for (int i = 0; i < nq; i++)
		game_defer_reset(qs[i]);
	return placed;
}

/* ---- the guard --------------------------------------------------------- */

bool g_escape_enter(const char *what)
{
	if (!bound_local || escape_depth++ > 0)
		return false;
#ifdef QWD_SELF_CHECK
	fprintf(stderr, "game: a local move reached %s (the schedule let it "
		"run in parallel)\n", what);
	abort();
#else
	(void)what;
#endif
	pthread_mutex_lock(&escape_lock);
	escapes++;
	return true;
}

void g_escape_leave(bool entered)
{
	if (!bound_local)
		return;
	escape_depth--;
	if (entered)
		pthread_mutex_unlock(&escape_lock);
}

uint64_t game_escapes(void)
{
	uint64_t n;

	pthread_mutex_lock(&escape_lock);
	n = escapes;
	pthread_mutex_unlock(&escape_lock);
	return n;
}
