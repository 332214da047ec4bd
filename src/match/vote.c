/*
 * vote.c -- KTX's votes: votemap and maps (the operator's map list), the
 * admin election (elect, yes, no), the percentages (k_vp_map,
 * k_vp_break, k_vp_admin) and the timeouts, with KTX's texts.
 *
 * Design note
 *   A vote is a mark on the voter's slot (struct m_vslot: the map he
 *   votes for, his yes); a count is a walk over the slots, so a leaver's
 *   vote goes with him (m_votes_frame clears it; his admin rights and
 *   mute go when the server says he left: match_client_gone).  The votes
 *   needed are KTX's: ceil(percent * players) with the percent held to
 *   51..100, so one player alone carries a vote.  A map must be on the
 *   operator's list (k_ml_0, k_ml_1, ... through match_services.map_list;
 *   no list: any map) and on the server (maps/NAME.bsp); anything else
 *   is refused naming the map, and counted.  Map votes and elections
 *   both run out after KTX's 60 seconds.  Spam is bounded: one vote
 *   command a second per slot (the rest refused with KTX's "Wait"
 *   line and counted), and a bprint per accepted vote only.
 */
#include "votes.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

struct m_votes *m_votes_create(int max_slots)
{
	struct m_votes *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->slot = calloc((size_t)max_slots, sizeof(*v->slot));
	if (!v->slot) {
		free(v);
		return NULL;
	}
	v->max_slots = max_slots;
	v->elect_slot = -1;
	return v;
}

void m_votes_destroy(struct m_votes *v)
{
	if (!v)
		return;
	free(v->slot);
	free(v);
}

static void clear_map_votes(struct m_votes *v)
{
	for (int s = 0; s < v->max_slots; s++)
		v->slot[s].map[0] = '\0';
	v->map_until = 0;
}

void m_votes_level(struct match *m)
{
	struct m_votes *v = m->votes;

	clear_map_votes(v);
	if (v->elect_slot >= 0)
		m_elect_end(m, false);
}

void match_client_gone(struct match *m, int slot)
{
	struct m_votes *v = m->votes;

	if (slot < 0 || slot >= v->max_slots)
		return;
	if (v->elect_slot == slot)
		m_elect_end(m, false);
	/* the next one in the slot starts clean; the address table keeps
	 * the lockout of a guesser who reconnects */
	if (v->slot[slot].coding)
		v->coding--;
	memset(&v->slot[slot], 0, sizeof(v->slot[slot]));
	/* a lock outlives no admin: else one who locked and left would keep
	 * everyone out */
	if (v->locked) {
		for (int s = 0; s < v->max_slots; s++)
			if (v->slot[s].admin)
				return;
		v->locked = false;
		m_bprint(m, "Server unlocked: no admin left\n");
		m_vlog(m, "admin: server unlocked: no admin left");
	}
}

void m_votes_frame(struct match *m)
{
	struct m_votes *v = m->votes;

	/* nothing running: nothing to time out, no digits to take, and the
	 * slots' votes are stale (a map vote sets map_until, an election
	 * clears every yes when it starts), so the frame does not walk them */
	if (v->elect_slot < 0 && v->map_until <= 0 && v->coding == 0)
		return;
	/* out of the game (gone, or in a level change's signon): his votes
	 * do not count; his rights and mute stay until match_client_gone
	 * (the server calls it when the client is dropped) */
	for (int s = 0; s < v->max_slots; s++) {
		struct m_vslot *vs = &v->slot[s];

		if (vs->coding)
			m_admin_digits(m, s);
		if (m->g->clients[s].active)
			continue;
		vs->map[0] = '\0';
		vs->yes = false;
		if (v->elect_slot == s)
			m_elect_end(m, false);
	}
	if (v->elect_slot >= 0 && m->realtime >= v->elect_until) {
		m_bprint(m, "The voting has timed out.\nElection aborted\n");
		m_vlog(m, "vote: admin election of %s timed out",
		       m->g->clients[v->elect_slot].name);
		v->st.votes_timed_out++;
		m_elect_end(m, true);
	}
	if (v->map_until > 0 && m->realtime >= v->map_until) {
		m_bprint(m, "The voting has timed out.\nMap votes cleared\n");
		m_vlog(m, "vote: map votes timed out");
		v->st.votes_timed_out++;
		clear_map_votes(v);
	}
}

int m_votes_needed(const struct match *m, int percent, int votes)
{
	int players = m_count_players(m, false);
	int p = percent < 51 ? 51 : percent > 100 ? 100 : percent;
	int need = (p * players + 99) / 100 - votes;

	return need > 0 ? need : 0;
}

bool m_vote_gap(struct match *m, int slot)
{
	struct m_vslot *vs = &m->votes->slot[slot];

	if (m->realtime < vs->next_vote) {
		m_sprint(m, slot, "Wait 1 second!\n");
		m->votes->st.votes_refused++;
		return false;
	}
	vs->next_vote = m->realtime + M_VOTE_GAP;
	return true;
}

/* ---- maps ------------------------------------------------------------ */

static bool map_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= sizeof(((struct m_vslot *)0)->map))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' &&
		    s[i] != '+')
			return false;
	return true;
}

/* on the operator's list (or there is none) */
static bool map_listed(struct match *m, const char *name, bool *have_list)
{
	char buf[64];

	*have_list = false;
	if (!m->svc.map_list)
		return true;
	for (int i = 0; i < 1000 && m->svc.map_list(m->svc.ctx, i, buf, sizeof(buf)); i++) {
		*have_list = true;
		if (strcasecmp(buf, name) == 0)
			return true;
	}
	return !*have_list;
}

static bool map_on_disk(struct match *m, const char *name)
{
	char path[96];

	if (m->svc.map_exists)
		return m->svc.map_exists(m->svc.ctx, name);
	if (!m->svc.file_exists)
		return true;
	snprintf(path, sizeof(path), "maps/%s.bsp", name);
	return m->svc.file_exists(m->svc.ctx, path);
}

static void check_map(struct match *m)
{
	struct m_votes *v = m->votes;
	const char *best = NULL;
	int best_votes = 0;

	for (int s = 0; s < v->max_slots; s++) {
		int n = 0;

		if (!v->slot[s].map[0] || !m_is_player(m, s))
			continue;
		for (int t = 0; t < v->max_slots; t++)
			n += m_is_player(m, t) &&
			     strcmp(v->slot[t].map, v->slot[s].map) == 0;
		if (n > best_votes) {
			best_votes = n;
			best = v->slot[s].map;
		}
	}
	if (!best || m_votes_needed(m, m->set.vp_map, best_votes) > 0)
		return;
	{
		char map[64], r[M_TEXT], line[96];

		strlcpy(map, best, sizeof(map));
		m_bprint(m, "%s votes for mapchange.\n", m_red(r, sizeof(r), "Majority"));
		m_vlog(m, "vote: map %s passed (%d of %d players)", map, best_votes,
		       m_count_players(m, false));
		v->st.votes_passed++;
		clear_map_votes(v);
		if (m->svc.command) {
			snprintf(line, sizeof(line), "map %s", map);
			m->svc.command(m->svc.ctx, line);
		}
	}
}

void m_cmd_votemap(struct match *m, int slot, int argc, const char *const *argv)
{
	struct m_votes *v = m->votes;
	struct m_vslot *vs = &v->slot[slot];
	const char *name = m->g->clients[slot].name;
	char r1[M_TEXT], r2[M_TEXT], map[64];
	bool have_list, voted = false, any = false;

	if (argc < 2) {
		m_sprint(m, slot, "Usage: %s <mapname>\n", m_red(r1, sizeof(r1), "votemap"));
		return;
	}
	if (m->g->clients[slot].spectator && !m_is_admin(m, slot)) {
		m_sprint(m, slot, "votemap: spectators vote only as admins\n");
		v->st.votes_refused++;
		return;
	}
	if (m->state != MATCH_PREWAR && !m->set.matchless) {
		m_sprint(m, slot, "votemap: not during a match\n");
		v->st.votes_refused++;
		return;
	}
	if (!map_name_valid(argv[1])) {
		m_sprint(m, slot, "votemap: \"%.32s\" is not a map name (letters, digits, _ - +; at most 63)\n",
			 argv[1]);
		v->st.maps_refused++;
		return;
	}
	strlcpy(map, argv[1], sizeof(map));
	for (char *p = map; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (!map_listed(m, map, &have_list) || !map_on_disk(m, map)) {
		m_sprint(m, slot, "Map '%s' not available on this server\n", argv[1]);
		v->st.maps_refused++;
		return;
	}
	if (!m_vote_gap(m, slot))
		return;
	if (strcmp(vs->map, map) == 0) {
		m_sprint(m, slot, "--- your vote is still good ---\n");
		return;
	}
	for (int s = 0; s < v->max_slots; s++) {
		if (s == slot || !v->slot[s].map[0])
			continue;
		any = true;
		voted |= strcmp(v->slot[s].map, map) == 0;
	}
	if (!any)
		m_bprint(m, "%s %s %s\n", name, m_red(r1, sizeof(r1), "suggests map"), map);
	else if (voted)
		m_bprint(m, "%s %s %s %s\n", name, m_red(r1, sizeof(r1), "agrees"),
			 m_red(r2, sizeof(r2),
			       m_count_players(m, false) < 3 ? "to map" : "on map"), map);
	else
		m_bprint(m, "%s %s %s\n", name,
			 m_red(r1, sizeof(r1), "would rather play on"), map);
	strlcpy(vs->map, map, sizeof(vs->map));
	if (v->map_until == 0)
		v->map_until = m->realtime + M_VOTE_TIMEOUT;
	v->st.votes_cast++;
	check_map(m);
}

void m_cmd_maps(struct match *m, int slot, int argc, const char *const *argv)
{
	char r1[M_TEXT], r2[M_TEXT], buf[64];
	int cnt = 0, total = 0;

	m_sprint(m, slot, "Vote for maps by typing \"%s\".\n",
		 m_red(r1, sizeof(r1), "votemap dm6"));
	(void)r2;
	for (int i = 0; m->svc.map_list && i < 1000 &&
	     m->svc.map_list(m->svc.ctx, i, buf, sizeof(buf)); i++) {
		total++;
		if (argc > 1 && !strstr(buf, argv[1]))
			continue;
		if (!cnt)
			m_sprint(m, slot, "\n---List of maps\n");
		m_sprint(m, slot, (cnt & 1) ? "%s\n" : "%-17s ", buf);
		cnt++;
	}
	if (cnt)
		m_sprint(m, slot, "%s---End of list (%d/%d maps)\n",
			 (cnt & 1) ? "\n" : "", cnt, total);
	else if (!total)
		m_sprint(m, slot, "No map list on this server (k_ml_0, k_ml_1, ...): any map it has\n");
}

/* ---- the admin election ----------------------------------------------- */

static int count_yes(const struct match *m)
{
	int n = 0;

	for (int s = 0; s < m->votes->max_slots; s++)
		n += m_is_player(m, s) && m->votes->slot[s].yes;
	return n;
}

static void check_elect(struct match *m)
{
	struct m_votes *v = m->votes;
	int cand = v->elect_slot;
	char r[M_TEXT];

	if (cand < 0 || m_votes_needed(m, m->set.vp_admin, count_yes(m)) > 0)
		return;
	v->slot[cand].admin = M_ADMIN_ELECTED;
	v->st.admin_granted++;
	v->st.votes_passed++;
	m_vlog(m, "admin: %s elected admin (%d of %d players)",
	       m->g->clients[cand].name, count_yes(m), m_count_players(m, false));
	m_elect_end(m, false);
	m_bprint(m, "%s %s!\n", m->g->clients[cand].name,
		 m_red(r, sizeof(r), "gains admins status"));
	m_sprint(m, cand, "Please give up admin rights when you're done\n"
		 "Type %s for info\n", m_red(r, sizeof(r), "commands"));
}

static void say_needed(struct match *m)
{
	int need = m_votes_needed(m, m->set.vp_admin, count_yes(m));

	if (need)
		m_bprint(m, "\x90%d\x91 more vote%s needed\n", need, m_plural(need));
}

void m_cmd_elect(struct match *m, int slot, int argc, const char *const *argv)
{
	struct m_votes *v = m->votes;
	const char *name = m->g->clients[slot].name;
	char r[M_TEXT];
	int till;

	(void)argc;
	(void)argv;
	if (v->elect_slot == slot) {
		m_bprint(m, "%s %s!\n", name, m_red(r, sizeof(r), "aborts election"));
		m_elect_end(m, true);
		return;
	}
	if (v->elect_slot >= 0) {
		m_sprint(m, slot, "An election is already in progress\n");
		v->st.votes_refused++;
		return;
	}
	if (!m->set.admins) {
		m_sprint(m, slot, "%s on this server!\n", m_red(r, sizeof(r), "NO admins"));
		v->st.votes_refused++;
		return;
	}
	if (!m->set.allowvoteadmin) {
		m_sprint(m, slot, "Admin election is not allowed on this server\n");
		v->st.votes_refused++;
		return;
	}
	if (v->slot[slot].code_left) {
		m_sprint(m, slot, "Finish entering the code first\n");
		return;
	}
	if (m_is_admin(m, slot)) {
		m_sprint(m, slot, "You are already an admin\n");
		return;
	}
	till = (int)(v->slot[slot].elect_block - m->realtime + 0.999);
	if (till > 0) {
		m_sprint(m, slot, "Wait %d second%s!\n", till, m_plural(till));
		v->st.votes_refused++;
		return;
	}
	if (m->g->clients[slot].spectator && m->state != MATCH_PREWAR) {
		m_sprint(m, slot, "elect: spectators not during a match\n");
		v->st.votes_refused++;
		return;
	}
	if (!m_vote_gap(m, slot))
		return;
	m_bprint(m, "%s has %s rights!\n", name, m_red(r, sizeof(r), "requested admin"));
	for (int s = 0; s < v->max_slots; s++)
		if (s != slot && m_is_player(m, s))
			m_sprint(m, s, "Type %s in console to approve\n",
				 m_red(r, sizeof(r), "yes"));
	m_sprint(m, slot, "Type %s to abort election\n", m_red(r, sizeof(r), "elect"));
	for (int s = 0; s < v->max_slots; s++)
		v->slot[s].yes = false;
	v->elect_slot = slot;
	v->elect_until = m->realtime + M_VOTE_TIMEOUT;
	v->slot[slot].yes = m_is_player(m, slot);	/* his own */
	v->st.votes_cast++;
	m_vlog(m, "vote: %s asks to be elected admin", name);
	check_elect(m);
}

void m_cmd_yes(struct match *m, int slot, int argc, const char *const *argv)
{
	struct m_votes *v = m->votes;

	(void)argc;
	(void)argv;
	if (v->elect_slot < 0) {
		m_sprint(m, slot, "No election to vote in\n");
		return;
	}
	if (v->elect_slot == slot) {
		m_sprint(m, slot, "You cannot vote for yourself\n");
		return;
	}
	if (v->slot[slot].yes) {
		m_sprint(m, slot, "--- your vote is still good ---\n");
		return;
	}
	if (!m_vote_gap(m, slot))
		return;
	v->slot[slot].yes = true;
	v->st.votes_cast++;
	m_bprint(m, "%s gives his vote\n", m->g->clients[slot].name);
	say_needed(m);
	check_elect(m);
}

void m_cmd_no(struct match *m, int slot, int argc, const char *const *argv)
{
	struct m_votes *v = m->votes;

	(void)argc;
	(void)argv;
	if (v->elect_slot < 0 || v->elect_slot == slot || !v->slot[slot].yes)
		return;
	if (!m_vote_gap(m, slot))
		return;
	v->slot[slot].yes = false;
	m_bprint(m, "%s withdraws his vote\n", m->g->clients[slot].name);
	say_needed(m);
}

/* ---- the server's queries --------------------------------------------- */

bool match_locked(const struct match *m)
{
	return m->votes->locked;
}

bool match_muted(const struct match *m, int slot)
{
	return slot >= 0 && slot < m->votes->max_slots && m->votes->slot[slot].muted;
}

void match_count_muted(struct match *m)
{
	m->votes->st.muted_says++;
}

const struct match_vote_stats *match_vote_stats(const struct match *m)
{
	return &m->votes->st;
}
