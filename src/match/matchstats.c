/*
 * matchstats.c -- when the statistics count: the match's states wired to
 * stats.c, the players' stats commands, the JSON file and the demo's name.
 *
 * Design note
 *   stats.c keeps score from the game's events and knows nothing of a
 *   match; match.c runs the states and knows nothing of the figures.  This
 *   file is the seam: the events go to the statistics only while a match
 *   is played (game_set_events at the start, NULL at its end or break),
 *   so prewar and matchless servers pay one pointer test per event place
 *   and nothing per frame; each played frame samples the players' speed
 *   and notes who left; the end takes the players' health and armour,
 *   closes the figures and prints KTX's blocks to everyone.  The texts
 *   are made in one buffer of the match (struct m_stats, allocated with
 *   the match) and sent line-aligned in pieces a print takes.
 *   The JSON file and the demo's name are asked for by the server (it
 *   owns files and folders): match_write_stats, match_demo_name.
 */
#include "internal.h"
#include "stats.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bsd/string.h>

struct m_stats {
	struct match_stats st;
	struct game_events ev;
	char text[24576];	/* the end blocks, the commands' answers */
};

struct m_stats *m_stats_create(void)
{
	struct m_stats *s = calloc(1, sizeof(*s));

	if (s)
		stats_events(&s->st, &s->ev);
	return s;
}

void m_stats_destroy(struct m_stats *s)
{
	free(s);
}

/* the text to slot (-1: everyone) in pieces of whole lines */
static void send_text(struct match *m, int slot, const char *text)
{
	char piece[1000];
	size_t len = strlen(text), at = 0;

	if (!m->g->svc.print)
		return;
	while (at < len) {
		size_t n = len - at;

		if (n >= sizeof(piece)) {
			n = sizeof(piece) - 1;
			/* cut after the last newline that fits */
			for (size_t k = n; k > 0; k--) {
				if (text[at + k - 1] == '\n') {
					n = k;
					break;
				}
			}
		}
		memcpy(piece, text + at, n);
		piece[n] = '\0';
		m->g->svc.print(m->g->svc.ctx, slot, PRINT_HIGH, piece);
		at += n;
	}
}

/* the shirt colour and the ping, which the server keeps */
static void client_extra(struct match *m, int slot, int *top, int *ping)
{
	*top = *ping = 0;
	if (!m->svc.client_extra || !m->svc.client_extra(m->svc.ctx, slot, top, ping))
		*top = *ping = 0;
}

static void set_player(struct match *m, int slot)
{
	const struct game_client *cl = &m->g->clients[slot];
	int top, ping;

	client_extra(m, slot, &top, &ping);
	stats_player_set(&m->stats->st, slot, cl->name, cl->team, top,
			 cl->bottomcolor, ping);
}

void m_stats_start(struct match *m)
{
	struct game *g = m->g;

	if (!m->stats)
		return;
	stats_begin(&m->stats->st, g->time, g->deathmatch, g->teamplay,
		    m_timelimit_minutes(m), (int)g->fraglimit);
	for (int s = 0; s < m->max_slots && s < STATS_MAX_PLAYERS; s++)
		if (m_is_player(m, s))
			set_player(m, s);
	game_set_events(g, &m->stats->ev);
}

void m_stats_frame(struct match *m)
{
	struct game *g = m->g;
	struct match_stats *st;

	if (!m->stats || g->events != &m->stats->ev)
		return;
	st = &m->stats->st;
	for (int s = 0; s < m->max_slots && s < STATS_MAX_PLAYERS; s++) {
		bool in = m_is_player(m, s);

		if (in && !st->pl[s].present)
			set_player(m, s);	/* joined the match late */
		else if (!in && st->pl[s].present)
			stats_player_left(st, s);
		if (in && g->ents[game_player_entity(g, s)].health > 0)
			stats_speed(st, s, g->ents[game_player_entity(g, s)].velocity);
	}
}

void m_stats_end(struct match *m, bool played_out)
{
	struct game *g = m->g;
	struct match_stats *st;
	struct stats_text t;

	if (!m->stats || g->events != &m->stats->ev)
		return;
	game_set_events(g, NULL);
	st = &m->stats->st;
	if (!played_out) {
		st->running = false;	/* broken off: nothing printed */
		return;
	}
	for (int s = 0; s < m->max_slots && s < STATS_MAX_PLAYERS; s++) {
		const struct game_entity *e = &g->ents[game_player_entity(g, s)];

		int top, ping;

		if (!st->pl[s].present)
			continue;
		stats_endgame(st, s, (int)e->health, (int)e->armorvalue,
			      e->items);
		/* the ping at the end, as KTX writes it */
		client_extra(m, s, &top, &ping);
		st->pl[s].ping = ping;
	}
	stats_end(st, g->time);
	stats_text_init(&t, m->stats->text, sizeof(m->stats->text));
	stats_print_end(st, &t);
	send_text(m, -1, m->stats->text);
}

/* ---- the players' commands -------------------------------------------- */

static void answer(struct match *m, int slot,
		   void (*fn)(struct match *m, struct stats_text *t))
{
	struct stats_text t;

	stats_text_init(&t, m->stats->text, sizeof(m->stats->text));
	fn(m, &t);
	send_text(m, slot, m->stats->text);
}

static bool running(struct match *m, int slot)
{
	if (m->stats && m->g->events == &m->stats->ev)
		return true;
	m_sprint(m, slot, "No match in progress\n");
	return false;
}

static void do_stats(struct match *m, struct stats_text *t)
{
	stats_print_end(&m->stats->st, t);
}

static void do_effi(struct match *m, struct stats_text *t)
{
	stats_print_effi(&m->stats->st, t);
}

static void do_scores(struct match *m, struct stats_text *t)
{
	stats_print_scores(&m->stats->st, m->g->time, t);
}

static void do_last(struct match *m, struct stats_text *t)
{
	stats_print_last(&m->stats->st, t);
}

void m_cmd_stats(struct match *m, int slot, int argc, const char *const *argv)
{
	(void)argc; (void)argv;
	if (running(m, slot))
		answer(m, slot, do_stats);
}

void m_cmd_effi(struct match *m, int slot, int argc, const char *const *argv)
{
	(void)argc; (void)argv;
	if (running(m, slot))
		answer(m, slot, do_effi);
}

void m_cmd_scores(struct match *m, int slot, int argc, const char *const *argv)
{
	(void)argc; (void)argv;
	if (running(m, slot))
		answer(m, slot, do_scores);
}

void m_cmd_laststats(struct match *m, int slot, int argc, const char *const *argv)
{
	(void)argc; (void)argv;
	if (m->stats)
		answer(m, slot, do_last);
}

/* ---- for the server: the file and the name ----------------------------- */

int match_write_stats(const struct match *m, const struct match_stats_facts *f,
		      FILE *out)
{
	struct stats_json_info info;

	if (!m->stats || !m->stats->st.end)
		return -1;	/* no match played to its end */
	memset(&info, 0, sizeof(info));
	info.date = f->date;
	info.map = m->g->mapname;
	info.hostname = f->hostname;
	info.ip = f->ip;
	info.port = f->port;
	info.matchtag = f->matchtag;
	info.mode = stats_mode(&m->stats->st);
	info.demo = f->demo;
	return stats_write_json(&m->stats->st, &info, out);
}

/* the teams in the order their first player holds a slot */
static int teams_of(const struct match *m, char teams[][16], int max)
{
	int n = 0;

	for (int s = 0; s < m->max_slots; s++) {
		const char *team = m->g->clients[s].team;
		int i;

		if (!m_is_player(m, s) || !team[0])
			continue;
		for (i = 0; i < n && strcmp(teams[i], team) != 0; i++)
			;
		if (i == n && n < max)
			strlcpy(teams[n++], team, sizeof(teams[0]));
	}
	return n;
}

void match_demo_name(const struct match *m, const char *datefmt, time_t now,
		     char *out, size_t size)
{
	static const char *const modes[MATCH_MODES] = {
		[MATCH_MODE_1ON1] = "duel", [MATCH_MODE_2ON2] = "2on2",
		[MATCH_MODE_3ON3] = "3on3", [MATCH_MODE_4ON4] = "4on4",
		[MATCH_MODE_10ON10] = "10on10",
	};
	char teams[8][16], date[128];
	const char *vs = "_";
	int players = m_count_players(m, false);

	if (size == 0)
		return;
	out[0] = '\0';
	if (m->set.mode == 1) {		/* duel: the players */
		strlcat(out, "duel", size);
		for (int s = 0; s < m->max_slots; s++) {
			if (!m_is_player(m, s) || !m->g->clients[s].name[0])
				continue;
			strlcat(out, vs, size);
			strlcat(out, m->g->clients[s].name, size);
			vs = "_vs_";
		}
	} else if (m->set.mode == 2) {	/* team: the mode, the teams */
		int n = teams_of(m, teams, 8);

		if (m->umode > MATCH_MODE_NONE && m->umode < MATCH_MODES &&
		    modes[m->umode])
			strlcat(out, modes[m->umode], size);
		else
			strlcat(out, "team", size);
		for (int i = 0; i < n; i++) {
			strlcat(out, vs, size);
			strlcat(out, teams[i], size);
			vs = "_vs_";
		}
	} else {
		char n[24];

		snprintf(n, sizeof(n), "ffa_%d", players);
		strlcat(out, n, size);
	}
	strlcat(out, "[", size);
	strlcat(out, m->g->mapname, size);
	strlcat(out, "]", size);
	if (datefmt && datefmt[0]) {
		struct tm tm;

		if (localtime_r(&now, &tm) && strftime(date, sizeof(date), datefmt, &tm))
			strlcat(out, date, size);
	}
}
