/*
 * idle.c -- KTX's idle bot (k_idletime): when at least half of the
 * players are ready, the others get k_idletime seconds to say ready;
 * then they are kicked and the match starts with the ready ones.
 *
 * Design note
 *   KTX's "idlebot" entity is two fields of the match (seconds left, the
 *   next second in level time).  It is started by a ready that leaves
 *   some players not ready (KTX's IdlebotCheck from PlayerReady), ticks
 *   once a second in prewar (KTX's IdlebotThink: the count to those not
 *   ready at 5, 10, ... and each of the last four; gone, with KTX's words,
 *   when fewer than half are ready, fewer than two play, or the start's
 *   conditions stop holding), and at 0 kicks the players not ready
 *   (match_services.kick; KTX stuffs "disconnect") and starts the
 *   countdown when two or more are left.  Any countdown (all ready, an
 *   admin's forcestart) and a new level end it (m_idle_off).  KTX's
 *   texts, including its "console:" prefix.
 */
#include "internal.h"

#include <stdio.h>

/* at least half the players ready, and two playing (KTX's test) */
static bool enough_ready(const struct match *m)
{
	int players = m_count_players(m, false);

	return players >= 2 && 2 * m_count_players(m, true) >= players;
}

static void chickening_out(struct match *m)
{
	char r[M_TEXT];

	m_bprint(m, "console: bah! chickening out?\nserver disables the %s\n",
		 m_red(r, sizeof(r), "idle bot"));
	m_idle_off(m);
}

void m_idle_off(struct match *m)
{
	m->idle_left = 0;
}

void m_idle_check(struct match *m, int slot)
{
	char r[M_TEXT];

	if (m->set.idletime <= 0 || m->set.matchless) {
		m_idle_off(m);
		return;
	}
	if (!enough_ready(m)) {
		if (m->idle_left > 0)
			chickening_out(m);
		return;
	}
	if (m->state != MATCH_PREWAR || m->idle_left > 0)
		return;
	if (!m_can_start(m, -1, false)) {
		m_sprint(m, slot, "Can't issue %s!\n", m_red(r, sizeof(r), "idle bot"));
		return;
	}
	m->idle_left = m->set.idletime < 3 ? 3 : m->set.idletime;
	m->idle_next = m->g->time;
	m_bprint(m, "\nserver activates the %s\n", m_red(r, sizeof(r), "idle bot"));
}

/* KTX's IdlebotForceStart: the players not ready go; two left start */
static void force_start(struct match *m)
{
	int ready = 0;

	m_idle_off(m);
	m_bprint(m, "server is tired of waiting\nmatch WILL commence!\n");
	for (int s = 0; s < m->max_slots; s++) {
		if (!m_is_player(m, s))
			continue;
		if (m->slots[s].ready) {
			ready++;
			continue;
		}
		m_bprint(m, "%s was kicked by IDLE BOT\n", m->g->clients[s].name);
		m_sprint(m, s, "Bye bye! Pay attention next time.\n");
		m_vlog(m, "idle bot: %s kicked (not ready after k_idletime %d s)",
		       m->g->clients[s].name, m->set.idletime);
		if (m->svc.kick)
			m->svc.kick(m->svc.ctx, s, "kicked by the idle bot");
		else if (m->g->svc.stufftext)
			m->g->svc.stufftext(m->g->svc.ctx, s, "disconnect\n");
		match_client_gone(m, s);
	}
	if (ready > 1)
		m_start_countdown(m);
	else
		m_bprint(m, "Can't start! More players needed.\n");
}

static void idle_second(struct match *m)
{
	char r[M_TEXT];
	int left;

	m->idle_next += 1;
	m->idle_left--;
	if (!enough_ready(m)) {
		chickening_out(m);
		return;
	}
	if (!m_can_start(m, -1, false)) {
		m_bprint(m, "%s removed\n", m_red(r, sizeof(r), "idle bot"));
		m_idle_off(m);
		return;
	}
	if (m->idle_left < 1) {
		force_start(m);
		return;
	}
	left = m->idle_left;
	if (left < 5 || left % 5 == 0)
		for (int s = 0; s < m->max_slots; s++)
			if (m_is_player(m, s) && !m->slots[s].ready)
				m_sprint(m, s, "console: %d second%s to go ready\n", left,
					 m_plural(left));
}

void m_idle_frame(struct match *m)
{
	if (m->idle_left <= 0)
		return;
	if (m->set.idletime <= 0 || m->set.matchless) {
		m_idle_off(m);
		return;
	}
	while (m->idle_left > 0 && m->state == MATCH_PREWAR &&
	       m->g->time >= m->idle_next)
		idle_second(m);
}
