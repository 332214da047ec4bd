/*
 * stats_json.c -- the match's statistics as KTX's JSON stats file (KTX's
 * stats_json.c, version 3), which the community's stat sites and the
 * tournament tools read.
 *
 * Design note
 *   Same keys, nesting, order and value types as KTX writes them: the
 *   match's header (version, date, map, hostname, ip, port, then matchtag,
 *   mode, tl, fl, dm, tp only when set, duration, demo), "teams" (the team
 *   names, in team games), and "players", teammates together, each with
 *   stats, dmg, xferRL/xferLG, spree, control, speed, then a "weapons"
 *   object (a member per weapon used, seen or dropped) and an "items"
 *   object (a member per item taken or held).  Members KTX leaves out when
 *   zero are left out here too.  KTX's own json_string escaping is
 *   replaced by the project's writer (common json.c: quotes, backslashes,
 *   control and high bytes as \u00XX), and its "fl" carries the fraglimit
 *   (KTX writes the timelimit there, a slip).  Written straight to the
 *   stream: nothing is held, nothing allocated.
 */
#include "stats.h"

#include <string.h>

enum { STATS_JSON_VERSION = 3 };

const char *stats_mode(const struct match_stats *st)
{
	if (st->duel)
		return "duel";
	if (st->teamplay)
		return "team";
	return "ffa";
}

int stats_json_path(const char *demo_path, const char *ext, char *out,
		    size_t size)
{
	const char *slash = strrchr(demo_path, '/');
	const char *dot = strrchr(demo_path, '.');
	size_t stem = strlen(demo_path);
	int n;

	if (dot && (!slash || dot > slash))
		stem = (size_t)(dot - demo_path);
	if (stem > (size_t)1 << 20)
		return -1;
	n = snprintf(out, size, "%.*s%s", (int)stem, demo_path, ext);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

static void weapon_json(struct json_out *j, const struct match_stats *st,
			int w, const struct stats_weapon *s)
{
	int ekills = s->ekills;

	/* KTX: no enemy-weapon kills for the axe and the shotgun, nor in
	 * deathmatch 4 and up */
	if (st->deathmatch >= 4 || w == GAME_WP_AXE || w == GAME_WP_SG)
		ekills = 0;
	json_begin(j, stats_weapon_name(w), '{');
	if (s->attacks || s->hits || s->rhits || s->vhits) {
		json_begin(j, "acc", '{');
		json_i64(j, "attacks", s->attacks);
		json_i64(j, "hits", s->hits);
		if (s->rhits || s->vhits) {
			json_i64(j, "real", s->rhits);
			json_i64(j, "virtual", s->vhits);
		}
		json_end(j);
	}
	if (s->kills || s->tkills || ekills || s->suicides) {
		json_begin(j, "kills", '{');
		json_i64(j, "total", s->kills);
		json_i64(j, "team", s->tkills);
		json_i64(j, "enemy", ekills);
		json_i64(j, "self", s->suicides);
		json_end(j);
	}
	if (st->deathmatch < 4)
		json_i64(j, "deaths", s->deaths);
	if (st->deathmatch < 4 &&
	    (s->drops || s->tooks || s->ttooks || s->stooks || s->sttooks)) {
		json_begin(j, "pickups", '{');
		if (s->drops)
			json_i64(j, "dropped", s->drops);
		if (s->tooks)
			json_i64(j, "taken", s->tooks);
		if (s->ttooks)
			json_i64(j, "total-taken", s->ttooks);
		if (s->stooks)
			json_i64(j, "spawn-taken", s->stooks);
		if (s->sttooks)
			json_i64(j, "spawn-total-taken", s->sttooks);
		json_end(j);
	}
	if (s->edamage || s->tdamage) {
		json_begin(j, "damage", '{');
		json_i64(j, "enemy", s->edamage);
		json_i64(j, "team", s->tdamage);
		json_end(j);
	}
	json_end(j);
}

static void player_json(struct json_out *j, const struct match_stats *st,
			const struct stats_player *p)
{
	json_break(j, 4);
	json_begin(j, NULL, '{');
	json_i64(j, "top-color", p->topcolor);
	json_i64(j, "bottom-color", p->bottomcolor);
	json_i64(j, "ping", p->ping);
	json_str(j, "login", "");
	json_str(j, "name", p->name);
	json_str(j, "team", p->team);
	json_begin(j, "stats", '{');
	json_i64(j, "frags", p->frags);
	json_i64(j, "deaths", p->deaths);
	json_i64(j, "tk", p->friendly);
	json_i64(j, "spawn-frags", p->spawn_frags);
	json_i64(j, "kills", p->kills);
	json_i64(j, "suicides", p->suicides);
	json_end(j);
	json_begin(j, "dmg", '{');
	json_i64(j, "taken", (int)p->dmg_t);
	json_i64(j, "given", (int)p->dmg_g);
	json_i64(j, "team", (int)p->dmg_team);
	json_i64(j, "self", (int)p->dmg_self);
	json_i64(j, "team-weapons", (int)p->dmg_tweapon);
	json_i64(j, "enemy-weapons", (int)p->dmg_eweapon);
	json_i64(j, "taken-to-die", stats_to_die(p));
	json_end(j);
	json_i64(j, "xferRL", 0);
	json_i64(j, "xferLG", 0);
	json_begin(j, "spree", '{');
	json_i64(j, "max", p->spree_max);
	json_i64(j, "quad", p->spree_max_q);
	json_end(j);
	json_fixed(j, "control", p->control_time, 6);
	json_begin(j, "speed", '{');
	json_fixed(j, "max", p->vel_max, 6);
	json_fixed(j, "avg", p->vel_frames > 0 ?
		   p->vel_sum / (double)p->vel_frames : 0.0, 6);
	json_end(j);

	json_begin(j, "weapons", '{');
	for (int w = 1; w < GAME_WP_COUNT; w++) {
		const struct stats_weapon *s = &p->wpn[w];

		if (s->attacks || s->deaths || s->drops || s->sttooks ||
		    s->ttooks)
			weapon_json(j, st, w, s);
	}
	json_end(j);
	json_begin(j, "items", '{');
	for (int i = 1; i < STATS_IT_COUNT; i++) {
		const struct stats_itm *m = &p->itm[i];

		if (!m->tooks && !(st->deathmatch <= 3 && m->time != 0))
			continue;
		json_begin(j, stats_item_name(i), '{');
		if (m->tooks)
			json_i64(j, "took", m->tooks);
		if ((int)m->time)
			json_i64(j, "time", (int)m->time);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

int stats_write_json(const struct match_stats *st,
		     const struct stats_json_info *info, FILE *f)
{
	struct json_out j;
	bool served[STATS_MAX_PLAYERS] = {false};
	bool any_team = false;
	double end = st->end > 0 ? st->end : st->start;

	json_init(&j, f, NULL, 0);
	j.spaced = true;
	json_begin(&j, NULL, '{');
	json_i64(&j, "version", STATS_JSON_VERSION);
	json_str(&j, "date", info->date ? info->date : "");
	json_str(&j, "map", info->map ? info->map : "");
	json_str(&j, "hostname", info->hostname ? info->hostname : "");
	json_str(&j, "ip", info->ip ? info->ip : "");
	json_i64(&j, "port", info->port);
	if (info->matchtag && info->matchtag[0])
		json_str(&j, "matchtag", info->matchtag);
	json_str(&j, "mode", info->mode && info->mode[0] ? info->mode :
		 stats_mode(st));
	if (st->timelimit)
		json_i64(&j, "tl", st->timelimit);
	if (st->fraglimit)
		json_i64(&j, "fl", st->fraglimit);
	if (st->deathmatch)
		json_i64(&j, "dm", st->deathmatch);
	if (st->teamplay)
		json_i64(&j, "tp", st->teamplay);
	json_i64(&j, "duration", (int)(end - st->start));
	if (info->demo && info->demo[0])
		json_str(&j, "demo", info->demo);

	/* KTX lists the teams of a team game (its tmStats) */
	for (int i = 0; i < STATS_MAX_PLAYERS && st->teamplay; i++) {
		bool seen = false;

		if (!st->pl[i].used)
			continue;
		for (int k = 0; k < i && !seen; k++)
			seen = st->pl[k].used &&
			       strcmp(st->pl[k].team, st->pl[i].team) == 0;
		if (seen)
			continue;
		if (!any_team)
			json_begin(&j, "teams", '[');
		any_team = true;
		json_str(&j, NULL, st->pl[i].team);
	}
	if (any_team)
		json_end(&j);

	json_begin(&j, "players", '[');
	for (int i = 0; i < STATS_MAX_PLAYERS; i++) {
		if (!st->pl[i].used || served[i])
			continue;
		for (int k = i; k < STATS_MAX_PLAYERS; k++) {
			if (!st->pl[k].used || served[k] ||
			    strcmp(st->pl[k].team, st->pl[i].team) != 0)
				continue;
			player_json(&j, st, &st->pl[k]);
			served[k] = true;
		}
	}
	json_break(&j, 2);
	json_end(&j);
	json_break(&j, 0);
	json_end(&j);
	json_raw(&j, "\n");
	return json_finish(&j, NULL);
}
