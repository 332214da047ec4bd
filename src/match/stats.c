/*
 * stats.c -- the match statistics: counted from the game's events, and
 * the end-of-match texts (KTX's "Player statistics" blocks, "Team
 * scores", the effi/scores/laststats commands).
 *
 * Design note
 *   Each event handler is a few additions into the slot's record (fixed
 *   arrays, nothing allocated); a slot outside 0..STATS_MAX_PLAYERS-1 or
 *   not in the match is ignored, as are events while no match runs.  What
 *   the figures mean is said in stats.h.  The texts follow KTX's layout
 *   and words; Quake's red text is the same letters with the high bit set,
 *   and the separator lines are Quake's bar glyphs (0x9d 0x9e.. 0x9f).
 *   Teams are summed when printed, from the players' records, so nothing
 *   is counted twice.
 */
#include "stats.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

void stats_text_init(struct stats_text *t, char *buf, size_t cap)
{
	t->buf = buf;
	t->cap = cap;
	t->len = 0;
	t->truncated = false;
	if (cap)
		buf[0] = 0;
}

__attribute__((format(printf, 2, 3)))
static void put(struct stats_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->truncated || t->len + 1 >= t->cap) {
		t->truncated = t->cap > 0;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		t->buf[t->len] = 0;
		t->truncated = true;
	} else if ((size_t)n >= t->cap - t->len) {
		t->len = t->cap - 1;
		t->truncated = true;
	} else {
		t->len += (size_t)n;
	}
}

/* Quake's red text: the letters with the high bit set, into out[size] */
static const char *red(char *out, size_t size, const char *s)
{
	size_t i = 0;

	for (; s[i] && i + 1 < size; i++)
		out[i] = (char)((unsigned char)s[i] | 0x80);
	out[i] = 0;
	return out;
}

/* the separator bar of n glyphs */
static void bar(struct stats_text *t, int n)
{
	char b[64];
	int i = 0;

	if (n > (int)sizeof(b) - 1)
		n = (int)sizeof(b) - 1;
	b[i++] = (char)0x9d;
	while (i < n - 1)
		b[i++] = (char)0x9e;
	b[i++] = (char)0x9f;
	b[i] = 0;
	put(t, "%s\n", b);
}

static void copy_bounded(char *dst, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, size - 1) : 0;

	if (n)
		memcpy(dst, src, n);
	dst[n] = 0;
}

/* ---- the match ---------------------------------------------------------- */

void stats_begin(struct match_stats *st, double time, int deathmatch,
		 int teamplay, int timelimit, int fraglimit)
{
	memset(st->pl, 0, sizeof(st->pl));
	for (int i = 0; i < STATS_MAX_PLAYERS; i++) {
		st->pl[i].spawn_time = -1;
		for (int k = 0; k < STATS_IT_COUNT; k++)
			st->pl[i].itm[k].since = -1;
	}
	st->deathmatch = deathmatch;
	st->teamplay = teamplay;
	st->timelimit = timelimit;
	st->fraglimit = fraglimit;
	st->duel = false;
	st->running = true;
	st->start = time;
	st->end = 0;
}

static struct stats_player *player(struct match_stats *st, int slot)
{
	if (!st->running || slot < 0 || slot >= STATS_MAX_PLAYERS ||
	    !st->pl[slot].used)
		return NULL;
	return &st->pl[slot];
}

static void update_duel(struct match_stats *st)
{
	int n = 0;

	for (int i = 0; i < STATS_MAX_PLAYERS; i++)
		n += st->pl[i].used;
	st->duel = n == 2 && !st->teamplay;
}

void stats_player_set(struct match_stats *st, int slot, const char *name,
		      const char *team, int topcolor, int bottomcolor, int ping)
{
	struct stats_player *p;

	if (slot < 0 || slot >= STATS_MAX_PLAYERS)
		return;
	p = &st->pl[slot];
	p->used = p->present = true;
	copy_bounded(p->name, sizeof(p->name), name);
	copy_bounded(p->team, sizeof(p->team), team);
	p->topcolor = topcolor;
	p->bottomcolor = bottomcolor;
	p->ping = ping;
	update_duel(st);
}

void stats_player_left(struct match_stats *st, int slot)
{
	if (slot >= 0 && slot < STATS_MAX_PLAYERS)
		st->pl[slot].present = false;
}

void stats_speed(struct match_stats *st, int slot, const float velocity[3])
{
	struct stats_player *p = player(st, slot);
	double v;

	if (!p)
		return;
	v = sqrt((double)velocity[0] * velocity[0] +
		 (double)velocity[1] * velocity[1]);
	p->vel_frames++;
	p->vel_sum += v;
	if (v > p->vel_max)
		p->vel_max = v;
}

void stats_endgame(struct match_stats *st, int slot, int health, int armour,
		   int items)
{
	struct stats_player *p = player(st, slot);

	if (!p)
		return;
	p->end_health = health;
	p->end_armour = armour;
	p->end_items = items;
}

/* an item held until now stops counting (KTX's adjust_pickup_time) */
static void item_stop(struct stats_player *p, int it, double time)
{
	struct stats_itm *m = &p->itm[it];

	if (m->since >= 0) {
		if (time > m->since)
			m->time += time - m->since;
		m->since = -1;
	}
}

static void control_stop(struct stats_player *p, double time)
{
	if (p->control_start > 0) {
		p->control_time += time - p->control_start;
		p->control_start = 0;
	}
}

void stats_end(struct match_stats *st, double time)
{
	struct stats_text t;

	if (!st->running)
		return;
	for (int i = 0; i < STATS_MAX_PLAYERS; i++) {
		struct stats_player *p = &st->pl[i];

		if (!p->used)
			continue;
		for (int k = 0; k < STATS_IT_COUNT; k++)
			item_stop(p, k, time);
		control_stop(p, time);
		if (p->spree > p->spree_max)
			p->spree_max = p->spree;
		if (p->spree_q > p->spree_max_q)
			p->spree_max_q = p->spree_q;
	}
	st->end = time;
	stats_text_init(&t, st->last, sizeof(st->last));
	stats_print_end(st, &t);
	st->last_len = t.len;
	st->running = false;
}

/* ---- events ------------------------------------------------------------- */

static bool valid_weapon(int w)
{
	return w > GAME_WP_NONE && w < GAME_WP_COUNT;
}

void stats_on_shot(void *ctx, double time, int slot, int weapon, int count)
{
	struct stats_player *p = player(ctx, slot);

	(void)time;
	if (p && valid_weapon(weapon) && count > 0)
		p->wpn[weapon].attacks += count;
}

void stats_on_hit(void *ctx, double time, int slot, int weapon, int target,
		  int count)
{
	struct stats_player *p = player(ctx, slot);

	(void)time;
	(void)target;
	if (p && valid_weapon(weapon) && count > 0)
		p->wpn[weapon].hits += count;
}

void stats_on_damage(void *ctx, double time, const struct game_ev_damage *d)
{
	struct match_stats *st = ctx;
	struct stats_player *a = player(st, d->attacker);
	struct stats_player *v = player(st, d->target);
	float dealt = d->health + d->armour;
	int w = valid_weapon(d->weapon) ? d->weapon : GAME_WP_NONE;

	(void)time;
	if (!a || !v)
		return;		/* KTX counts player on player only */
	if (d->attacker == d->target) {
		a->dmg_self += dealt;
		return;
	}
	if (d->team) {
		a->dmg_team += dealt;
		a->wpn[w].tdamage += (int)dealt;
		if (d->target_items & (IT_ROCKET_LAUNCHER | IT_LIGHTNING))
			a->dmg_tweapon += dealt;
	} else {
		a->dmg_g += dealt;
		v->dmg_t += dealt;
		a->wpn[w].edamage += (int)dealt;
		if (d->target_items & (IT_ROCKET_LAUNCHER | IT_LIGHTNING))
			a->dmg_eweapon += dealt;
	}
	if (dealt > 0 && (w == GAME_WP_RL || w == GAME_WP_GL)) {
		a->wpn[w].rhits++;
		a->wpn[w].vhits++;
		if (w == GAME_WP_RL)
			a->dmg_g_rl += dealt;
	}
}

/* the .items bit of each weapon, by enum game_ev_weapon */
static const int weapon_bit[GAME_WP_COUNT] = {
	0, IT_AXE, IT_SHOTGUN, IT_SUPER_SHOTGUN, IT_NAILGUN, IT_SUPER_NAILGUN,
	IT_GRENADE_LAUNCHER, IT_ROCKET_LAUNCHER, IT_LIGHTNING};

void stats_on_kill(void *ctx, double time, const struct game_ev_kill *k)
{
	struct match_stats *st = ctx;
	struct stats_player *v = player(st, k->victim);
	struct stats_player *a = player(st, k->killer);
	int w = valid_weapon(k->weapon) ? k->weapon : GAME_WP_NONE;

	if (!v)
		return;
	v->deaths++;
	for (int i = 0; i < STATS_IT_COUNT; i++)
		item_stop(v, i, time);
	if (v->spree > v->spree_max)
		v->spree_max = v->spree;
	if (v->spree_q > v->spree_max_q)
		v->spree_max_q = v->spree_q;
	v->spree = v->spree_q = 0;
	if (st->duel)
		control_stop(v, time);

	/* KTX: a death to the world costs a frag but is nobody's suicide */
	if ((k->flags & GAME_KILL_SUICIDE) && k->killer == k->victim) {
		v->frags -= k->flags & GAME_KILL_COMMAND ? 2 : 1;
		v->suicides++;
		v->wpn[w].suicides++;
		return;
	}
	if ((k->flags & GAME_KILL_WORLD) || !a) {
		v->frags--;
		return;
	}
	if (k->flags & GAME_KILL_TEAM) {
		a->frags--;
		a->friendly++;
		a->wpn[w].tkills++;
		return;
	}
	a->frags++;
	a->kills++;
	a->wpn[w].kills++;
	v->wpn[w].deaths++;
	/* KTX counts the kill for every weapon the victim carried */
	for (int i = GAME_WP_AXE; i < GAME_WP_COUNT; i++)
		if (k->victim_items & weapon_bit[i])
			a->wpn[i].ekills++;
	a->spree++;
	if (k->killer_quad)
		a->spree_q++;
	if (v->spawn_time >= 0 && v->spawn_time + 2 > time)
		a->spawn_frags++;
	if (st->duel && a->spree >= 2 && a->control_start <= 0)
		a->control_start = time;
}

static int stats_item_of(int item)
{
	switch (item) {
	case GAME_ITEM_H15: return STATS_IT_H15;
	case GAME_ITEM_H25: return STATS_IT_H25;
	case GAME_ITEM_MH: return STATS_IT_H100;
	case GAME_ITEM_GA: return STATS_IT_GA;
	case GAME_ITEM_YA: return STATS_IT_YA;
	case GAME_ITEM_RA: return STATS_IT_RA;
	case GAME_ITEM_QUAD: return STATS_IT_QUAD;
	case GAME_ITEM_PENT: return STATS_IT_PENT;
	case GAME_ITEM_RING: return STATS_IT_RING;
	default: return STATS_IT_NONE;
	}
}

void stats_on_item(void *ctx, double time, int slot, int item, int weapon,
		   bool new_weapon)
{
	struct stats_player *p = player(ctx, slot);
	int it = stats_item_of(item);

	if (!p)
		return;
	if (item == GAME_ITEM_WEAPON || item == GAME_ITEM_BACKPACK) {
		bool spawned = item == GAME_ITEM_WEAPON;

		if (!valid_weapon(weapon))
			return;
		p->wpn[weapon].ttooks++;
		if (spawned)
			p->wpn[weapon].sttooks++;
		if (new_weapon) {
			if (spawned)
				p->wpn[weapon].stooks++;
			p->wpn[weapon].tooks++;
		}
		return;
	}
	if (it == STATS_IT_NONE)
		return;
	p->itm[it].tooks++;
	/* a new armour ends the time of the others */
	if (it == STATS_IT_GA || it == STATS_IT_YA || it == STATS_IT_RA)
		for (int a = STATS_IT_GA; a <= STATS_IT_RA; a++)
			item_stop(p, a, time);
	else
		item_stop(p, it, time);
	p->itm[it].since = time;
}

void stats_on_drop(void *ctx, double time, int slot, int weapon)
{
	struct stats_player *p = player(ctx, slot);

	(void)time;
	if (p && valid_weapon(weapon))
		p->wpn[weapon].drops++;
}

void stats_on_powerup_end(void *ctx, double time, int slot, int item)
{
	struct stats_player *p = player(ctx, slot);
	int it = stats_item_of(item);

	if (p && it != STATS_IT_NONE)
		item_stop(p, it, time);
}

void stats_on_spawn(void *ctx, double time, int slot)
{
	struct stats_player *p = player(ctx, slot);

	if (p)
		p->spawn_time = time;
}

void stats_events(struct match_stats *st, struct game_events *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->ctx = st;
	ev->shot = stats_on_shot;
	ev->hit = stats_on_hit;
	ev->damage = stats_on_damage;
	ev->kill = stats_on_kill;
	ev->item = stats_on_item;
	ev->drop = stats_on_drop;
	ev->powerup_end = stats_on_powerup_end;
	ev->spawn = stats_on_spawn;
}

/* ---- figures ------------------------------------------------------------ */

double stats_efficiency(const struct stats_player *p)
{
	if (p->frags < 1)
		return 0;
	return 100.0 * p->frags / (p->frags + p->deaths);
}

double stats_accuracy(const struct stats_weapon *w)
{
	return w->attacks > 0 ? 100.0 * w->hits / w->attacks : 0;
}

int stats_to_die(const struct stats_player *p)
{
	return p->deaths <= 0 ? 99999 : (int)(p->dmg_t / (float)p->deaths);
}

const char *stats_weapon_name(int weapon)
{
	static const char *const names[GAME_WP_COUNT] = {
		"unknown", "axe", "sg", "ssg", "ng", "sng", "gl", "rl", "lg"};

	return weapon >= 0 && weapon < GAME_WP_COUNT ? names[weapon] : "unknown";
}

const char *stats_item_name(int item)
{
	static const char *const names[STATS_IT_COUNT] = {
		"unknown", "health_15", "health_25", "health_100", "ga", "ya",
		"ra", "q", "p", "r"};

	return item >= 0 && item < STATS_IT_COUNT ? names[item] : "unknown";
}

/* ---- texts -------------------------------------------------------------- */

static bool team_game(const struct match_stats *st)
{
	return st->teamplay != 0;
}

void stats_print_player(const struct match_stats *st, int slot,
			struct stats_text *t)
{
	const struct stats_player *p;
	const struct stats_weapon *w;
	char r1[32], r2[32], r3[32], r4[32], r5[32], r6[32], r7[32];
	bool tp = team_game(st);

	if (slot < 0 || slot >= STATS_MAX_PLAYERS || !st->pl[slot].used)
		return;
	p = &st->pl[slot];
	w = p->wpn;
	if (tp)
		bar(t, 10);
	put(t, "\207 %s:\n  %d (%d) ", p->name, p->frags, p->frags - p->deaths);
	if (tp)
		put(t, "%d ", p->friendly);
	put(t, "%.1f%%\n", stats_efficiency(p));

	/* weapons: lg, rl (virtual hits), gl, sg and ssg with their damage */
	put(t, "%s:", red(r1, sizeof(r1), "Wp"));
	if (w[GAME_WP_LG].attacks)
		put(t, " %s%.1f%% (%d/%d)", red(r1, sizeof(r1), "lg"),
		    stats_accuracy(&w[GAME_WP_LG]), w[GAME_WP_LG].hits,
		    w[GAME_WP_LG].attacks);
	double ph_rl = w[GAME_WP_RL].attacks ?
		100.0 * w[GAME_WP_RL].vhits / w[GAME_WP_RL].attacks : 0;
	double ph_gl = w[GAME_WP_GL].attacks ?
		100.0 * w[GAME_WP_GL].vhits / w[GAME_WP_GL].attacks : 0;
	double e_sg = stats_accuracy(&w[GAME_WP_SG]);
	double e_ssg = stats_accuracy(&w[GAME_WP_SSG]);
	if (ph_rl != 0)
		put(t, " %s%.1f%% (%d/%d)", red(r1, sizeof(r1), "rl"), ph_rl,
		    w[GAME_WP_RL].vhits, w[GAME_WP_RL].attacks);
	if (ph_gl != 0)
		put(t, " %s%.1f%%", red(r1, sizeof(r1), "gl"), ph_gl);
	if (e_sg != 0)
		put(t, " %s%.1f%% (%d)", red(r1, sizeof(r1), "sg"), e_sg,
		    w[GAME_WP_SG].edamage);
	if (e_ssg != 0)
		put(t, " %s%.1f%% (%d)", red(r1, sizeof(r1), "ssg"), e_ssg,
		    w[GAME_WP_SSG].edamage);
	put(t, "\n");

	put(t, "%s: %s:%.1f %s:%.0f\n", red(r1, sizeof(r1), "RL skill"),
	    red(r2, sizeof(r2), "ad"),
	    w[GAME_WP_RL].vhits ? p->dmg_g_rl / w[GAME_WP_RL].vhits : 0.0,
	    red(r3, sizeof(r3), "dh"), (double)w[GAME_WP_RL].hits);
	if (st->duel)
		put(t, "%s: %s:%.1f %s:%.1f\n", red(r1, sizeof(r1), "   Speed"),
		    red(r2, sizeof(r2), "max"), p->vel_max,
		    red(r3, sizeof(r3), "average"),
		    p->vel_frames > 0 ? p->vel_sum / (double)p->vel_frames : 0.0);
	put(t, "%s: %s:%d %s:%d %s:%d %s:%d\n", red(r1, sizeof(r1), "Armr&mhs"),
	    red(r2, sizeof(r2), "ga"), p->itm[STATS_IT_GA].tooks,
	    red(r3, sizeof(r3), "ya"), p->itm[STATS_IT_YA].tooks,
	    red(r4, sizeof(r4), "ra"), p->itm[STATS_IT_RA].tooks,
	    red(r5, sizeof(r5), "mh"), p->itm[STATS_IT_H100].tooks);
	if (tp) {
		put(t, "%s: %s:%d %s:%d %s:%d\n", red(r1, sizeof(r1), "Powerups"),
		    red(r2, sizeof(r2), "Q"), p->itm[STATS_IT_QUAD].tooks,
		    red(r3, sizeof(r3), "P"), p->itm[STATS_IT_PENT].tooks,
		    red(r4, sizeof(r4), "R"), p->itm[STATS_IT_RING].tooks);
		put(t, "%s: %s:%d %s:%d %s:%d\n", red(r1, sizeof(r1), "      RL"),
		    red(r2, sizeof(r2), "Took"), w[GAME_WP_RL].tooks,
		    red(r3, sizeof(r3), "Killed"), w[GAME_WP_RL].ekills,
		    red(r4, sizeof(r4), "Dropped"), w[GAME_WP_RL].drops);
		put(t, "%s: %s:%d %s:%d %s:%d\n", red(r1, sizeof(r1), "      LG"),
		    red(r2, sizeof(r2), "Took"), w[GAME_WP_LG].tooks,
		    red(r3, sizeof(r3), "Killed"), w[GAME_WP_LG].ekills,
		    red(r4, sizeof(r4), "Dropped"), w[GAME_WP_LG].drops);
	}
	if (tp && st->deathmatch == 1)
		put(t, "%s: %s:%.0f %s:%.0f %s:%.0f %s:%.0f %s:%.0f %s:%d\n",
		    red(r1, sizeof(r1), "  Damage"), red(r2, sizeof(r2), "Tkn"),
		    (double)p->dmg_t, red(r3, sizeof(r3), "Gvn"), (double)p->dmg_g,
		    red(r4, sizeof(r4), "EWep"), (double)p->dmg_eweapon,
		    red(r5, sizeof(r5), "Tm"), (double)p->dmg_team,
		    red(r6, sizeof(r6), "Self"), (double)p->dmg_self,
		    red(r7, sizeof(r7), "ToDie"), stats_to_die(p));
	else
		put(t, "%s: %s:%.0f %s:%.0f %s:%.0f %s:%.0f %s:%d\n",
		    red(r1, sizeof(r1), "  Damage"), red(r2, sizeof(r2), "Tkn"),
		    (double)p->dmg_t, red(r3, sizeof(r3), "Gvn"), (double)p->dmg_g,
		    red(r4, sizeof(r4), "Tm"), (double)p->dmg_team,
		    red(r5, sizeof(r5), "Self"), (double)p->dmg_self,
		    red(r6, sizeof(r6), "ToDie"), stats_to_die(p));
	double played = (st->end > 0 ? st->end : st->start) - st->start;
	if (played > 0) {
		if (st->duel)
			put(t, "%s: %s:%d (%d%%)\n", red(r1, sizeof(r1), "    Time"),
			    red(r2, sizeof(r2), "Control"), (int)p->control_time,
			    (int)(p->control_time / played * 100));
		else
			put(t, "%s: %s:%d\n", red(r1, sizeof(r1), "    Time"),
			    red(r2, sizeof(r2), "Quad"),
			    (int)p->itm[STATS_IT_QUAD].time);
	}
	if (st->duel) {
		static const char *const armour[] = {"ga:", "ya:", "ra:"};
		int a = p->end_items & IT_ARMOR3 ? 2 :
			p->end_items & IT_ARMOR2 ? 1 : 0;

		put(t, " %s: %s:%d %s:", red(r1, sizeof(r1), "EndGame"),
		    red(r2, sizeof(r2), "H"), p->end_health,
		    red(r3, sizeof(r3), "A"));
		if (p->end_armour)
			put(t, "%s%d\n", red(r4, sizeof(r4), armour[a]),
			    p->end_armour);
		else
			put(t, "0\n");
	} else {
		put(t, "%s: %s:%d %s:%d\n", red(r1, sizeof(r1), " Streaks"),
		    red(r2, sizeof(r2), "Frags"), p->spree_max,
		    red(r3, sizeof(r3), "QuadRun"), p->spree_max_q);
	}
	put(t, "  %s: %d\n", red(r1, sizeof(r1), "SpawnFrags"), p->spawn_frags);
	if (!tp)
		bar(t, 10);
}

/* the teams in order of first appearance: idx[] of a player per team */
static int teams(const struct match_stats *st, int first[STATS_MAX_PLAYERS])
{
	int n = 0;

	for (int i = 0; i < STATS_MAX_PLAYERS; i++) {
		bool seen = false;

		if (!st->pl[i].used)
			continue;
		for (int k = 0; k < n && !seen; k++)
			seen = strcmp(st->pl[first[k]].team, st->pl[i].team) == 0;
		if (!seen)
			first[n++] = i;
	}
	return n;
}

void stats_print_end(const struct match_stats *st, struct stats_text *t)
{
	char r1[32], r2[32], r3[32], r4[32];
	int first[STATS_MAX_PLAYERS], nt = teams(st, first);
	bool tp = team_game(st);

	put(t, "\n%s:\n", red(r1, sizeof(r1), "Player statistics"));
	bar(t, 38);
	put(t, "%s (%s) %s\217 %s\n", red(r1, sizeof(r1), "Frags"),
	    red(r2, sizeof(r2), "rank"), tp ? red(r3, sizeof(r3), "friendkills ") : "",
	    red(r4, sizeof(r4), "efficiency"));
	for (int k = 0; k < nt; k++) {
		const char *team = st->pl[first[k]].team;

		if (tp)
			put(t, "Team \220%s\221:\n", team);
		for (int i = 0; i < STATS_MAX_PLAYERS; i++)
			if (st->pl[i].used && strcmp(st->pl[i].team, team) == 0)
				stats_print_player(st, i, t);
	}
	if (!tp)
		return;
	int sum = 0, frags[STATS_MAX_PLAYERS] = {0};
	for (int k = 0; k < nt; k++) {
		for (int i = 0; i < STATS_MAX_PLAYERS; i++)
			if (st->pl[i].used &&
			    strcmp(st->pl[i].team, st->pl[first[k]].team) == 0)
				frags[k] += st->pl[i].frags;
		sum += frags[k] > 0 ? frags[k] : 0;
	}
	put(t, "\n%s: %s\n", red(r1, sizeof(r1), "Team scores"),
	    red(r2, sizeof(r2), "frags \217 percentage"));
	bar(t, 38);
	for (int k = 0; k < nt; k++)
		put(t, "\220%s\221: %d \217 %.1f%%\n", st->pl[first[k]].team,
		    frags[k], sum > 0 ? 100.0 * frags[k] / sum : 0.0);
	if (nt)
		bar(t, 38);
}

void stats_print_effi(const struct match_stats *st, struct stats_text *t)
{
	char r1[32], r2[32], r3[32], r4[32];
	bool tp = team_game(st);

	put(t, "%s:\n%s %s %s \217  %s\n",
	    red(r1, sizeof(r1), "Player statistics"), red(r2, sizeof(r2), "Frags"),
	    red(r3, sizeof(r3), "rank"), tp ? "friendkills " : "  ",
	    red(r4, sizeof(r4), "efficiency"));
	bar(t, tp ? 38 : 28);
	for (int i = 0; i < STATS_MAX_PLAYERS; i++) {
		const struct stats_player *p = &st->pl[i];

		if (!p->used)
			continue;
		put(t, "%-10.10s ", p->name);
		if (tp)
			put(t, "%-4.4s ", p->team);
		put(t, "%3d (%3d) ", p->frags, p->frags - p->deaths);
		if (tp)
			put(t, "%2d ", p->friendly);
		put(t, "\217 %5.1f%%\n", stats_efficiency(p));
	}
}

void stats_print_scores(const struct match_stats *st, double time,
			struct stats_text *t)
{
	char r1[32];
	double played = (st->end > 0 ? st->end : time) - st->start;
	int first[STATS_MAX_PLAYERS], nt = teams(st, first);

	if (played < 0)
		played = 0;
	put(t, "%s: %d:%02d\n", red(r1, sizeof(r1), "Played"),
	    (int)played / 60, (int)played % 60);
	if (team_game(st)) {
		for (int k = 0; k < nt; k++) {
			int f = 0;

			for (int i = 0; i < STATS_MAX_PLAYERS; i++)
				if (st->pl[i].used &&
				    strcmp(st->pl[i].team, st->pl[first[k]].team) == 0)
					f += st->pl[i].frags;
			put(t, "\220%s\221: %d\n", st->pl[first[k]].team, f);
		}
		return;
	}
	for (int i = 0; i < STATS_MAX_PLAYERS; i++)
		if (st->pl[i].used)
			put(t, "%s: %d\n", st->pl[i].name, st->pl[i].frags);
}

void stats_print_last(const struct match_stats *st, struct stats_text *t)
{
	if (!st->last_len) {
		put(t, "No statistics of a last match\n");
		return;
	}
	put(t, "%.*s", (int)st->last_len, st->last);
}
