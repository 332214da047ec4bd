/*
 * motd.c -- KTX's message of the day and its matchtag: the centerprint a
 * player sees on entering the game (k_motd1 .. k_motd15, k_motd_time),
 * the "motd" command, and the tag a mode command's words set.
 *
 * Design note
 *   KTX keeps a "motd" entity per client that thinks every 0.7 s (the
 *   first time 0.4 s after the player enters): at each think it ends the
 *   MOTD when its time is out (the centerprint cleared), when the
 *   countdown or the match has begun (not matchless), or when the player
 *   fired within his weapon's reload (attack_finished ahead: he wants to
 *   play, not read), and otherwise centerprints it again.  Here a slot
 *   has the same two times (until when, and the next think), and the
 *   slots being shown it are a heap by their next think
 *   (match.motd_list): a frame looks at the top alone, and thinks for
 *   those due, as KTX's entities do, so that 1,000 players entering cost
 *   their 1.4 thinks a second, not a look each frame.  A slot that comes
 *   into the game (its first frame, and again after each level change,
 *   as KTX's ClientConnect runs on every map) gets it for k_motd_time
 *   seconds (0: KTX's 7, or 3 on a matchless server); one that leaves
 *   (match_frame's walk over the slots when the roster moved) is taken
 *   off.  The text (match_motd_text) is
 *   composed into a caller's buffer at each print: the operator's lines,
 *   or "Welcome" when there are none, a bar, the "Running" line and the
 *   two hints; nothing is allocated.  It is cut at 1023 bytes, what a
 *   Quake client keeps of a centerprint (15 full lines would not fit).
 *   The matchtag is the match's (m->matchtag: the countdown, the pause,
 *   the demo and the statistics read it) and goes to the serverinfo key
 *   "matchtag" through match_services.serverinfo, as KTX's
 *   "serverinfo matchtag" does: KTX's clean_string (letters, digits,
 *   space, - and +; anything else an underscore), at most 19 bytes.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#include <bsd/string.h>

/* a Quake client keeps 1024 bytes of a centerprint (and the server's
 * message of it has room for that): a longer MOTD is cut there */
enum { MOTD_TEXT = 1024 };

#define MOTD_PERIOD 0.7		/* KTX's PMOTDThink */
#define MOTD_FIRST 0.4		/* KTX: 0.1, then 0.3 to the first print */
#define MOTD_COMMAND_TIME 10.0	/* KTX's motd_show */

void match_motd_text(const struct match *m, char *out, size_t size)
{
	char r1[M_TEXT], r2[M_TEXT], r3[M_TEXT];
	bool any = false;

	if (size == 0)
		return;
	out[0] = '\0';
	for (int i = 0; i < M_MOTD_LINES; i++) {
		if (!m->set.motd[i][0])
			continue;
		strlcat(out, m->set.motd[i], size);
		strlcat(out, "\n", size);
		any = true;
	}
	/* KTX: no "Welcome" when the operator wrote lines */
	if (!any)
		strlcat(out, "Welcome\n\n", size);
	strlcat(out, "\n\x9d\x9e\x9e\x9e\x9e\x9e\x9e\x9e\x9e\x9e\x9e\x9e\x9e\x9e\x9e\x9f\n\n",
		size);
	snprintf(out + strlen(out), size - strlen(out),
		 "Running %s\n\nType \"%s\" for available commands\nType \"%s\" for server details",
		 m_red(r1, sizeof(r1), "qwd"), m_red(r2, sizeof(r2), "commands"),
		 m_red(r3, sizeof(r3), "about"));
}

static void motd_show(struct match *m, int slot)
{
	char text[MOTD_TEXT];

	match_motd_text(m, text, sizeof(text));
	if (m->g->svc.centerprint)
		m->g->svc.centerprint(m->g->svc.ctx, slot, text);
}

/* ---- the heap of slots by their next think ------------------------------ */

/* a before b: the earlier think, then the lower slot (the order of a
 * frame's thinks is the same on every run) */
static bool think_before(const struct match *m, int a, int b)
{
	double ta = m->slots[a].motd_next, tb = m->slots[b].motd_next;

	return ta < tb || (ta == tb && a < b);
}

static void heap_put(struct match *m, int k, int s)
{
	m->motd_list[k] = s;
	m->slots[s].motd_pos = k + 1;
}

static void heap_up(struct match *m, int k)
{
	int s = m->motd_list[k];

	while (k > 0 && think_before(m, s, m->motd_list[(k - 1) / 2])) {
		heap_put(m, k, m->motd_list[(k - 1) / 2]);
		k = (k - 1) / 2;
	}
	heap_put(m, k, s);
}

static void heap_down(struct match *m, int k)
{
	int s = m->motd_list[k];

	for (;;) {
		int c = 2 * k + 1;

		if (c >= m->motd_count)
			break;
		if (c + 1 < m->motd_count &&
		    think_before(m, m->motd_list[c + 1], m->motd_list[c]))
			c++;
		if (!think_before(m, m->motd_list[c], s))
			break;
		heap_put(m, k, m->motd_list[c]);
		k = c;
	}
	heap_put(m, k, s);
}

/* slot s's next think moved (or it is new to the heap) */
static void heap_fix(struct match *m, int s)
{
	struct match_slot *ms = &m->slots[s];

	if (!ms->motd_pos) {
		heap_put(m, m->motd_count++, s);
	}
	heap_up(m, ms->motd_pos - 1);
	heap_down(m, ms->motd_pos - 1);
}

/* the MOTD of slot s is over: off the heap */
static void motd_end(struct match *m, int s)
{
	struct match_slot *ms = &m->slots[s];
	int k = ms->motd_pos - 1;

	ms->motd_until = 0;
	if (k < 0)
		return;
	ms->motd_pos = 0;
	if (--m->motd_count > k) {
		int last = m->motd_list[m->motd_count];

		heap_put(m, k, last);
		heap_up(m, k);
		heap_down(m, m->slots[last].motd_pos - 1);
	}
}

static void motd_start(struct match *m, int slot, double seconds)
{
	struct match_slot *ms = &m->slots[slot];

	ms->motd_until = m->g->time + seconds;
	ms->motd_next = m->g->time + MOTD_FIRST;
	heap_fix(m, slot);
}

void m_motd_slot(struct match *m, int s)
{
	const struct game *g = m->g;
	struct match_slot *ms = &m->slots[s];

	if (!g->clients[s].active || !g->world) {
		ms->in_game = false;
		motd_end(m, s);
		return;
	}
	if (!ms->in_game) {
		ms->in_game = true;
		motd_start(m, s, m->set.motd_time ? m->set.motd_time :
			   m->set.matchless ? 3 : 7);
	}
}

/* KTX's PMOTDThink for slot s */
static void motd_think(struct match *m, int s)
{
	const struct game *g = m->g;
	struct match_slot *ms = &m->slots[s];

	if (g->time > ms->motd_until) {
		motd_end(m, s);
		if (g->svc.centerprint)
			g->svc.centerprint(g->svc.ctx, s, "");
		return;
	}
	if ((!m->set.matchless && m->state != MATCH_PREWAR) ||
	    g->ents[game_player_entity(g, s)].attack_finished > g->time) {
		motd_end(m, s);
		return;
	}
	ms->motd_next = g->time + MOTD_PERIOD;
	heap_down(m, ms->motd_pos - 1);
	motd_show(m, s);
}

void m_motd_frame(struct match *m)
{
	while (m->motd_count > 0 &&
	       m->g->time >= m->slots[m->motd_list[0]].motd_next)
		motd_think(m, m->motd_list[0]);
}

/* KTX's motd_show: 10 s more of it, not during a match */
void m_cmd_motd(struct match *m, int slot, int argc, const char *const *argv)
{
	(void)argc;
	(void)argv;
	if (!m->set.matchless && m->state != MATCH_PREWAR)
		return;
	if (m->slots[slot].motd_until > 0) {
		m_sprint(m, slot, "Already showing motd\n");
		return;
	}
	motd_start(m, slot, MOTD_COMMAND_TIME);
}

/* ---- the matchtag ------------------------------------------------------ */

const char *match_matchtag(const struct match *m)
{
	return m->matchtag;
}

void m_set_matchtag(struct match *m, int argc, const char *const *argv)
{
	char tag[M_TAG_LEN] = "", r1[M_TEXT], r2[M_TEXT];
	bool had = m->matchtag[0] != '\0';
	size_t n = 0;

	/* the words after the mode, one space between, as KTX's CmdArgs */
	for (int i = 1; i < argc && n + 1 < sizeof(tag); i++) {
		if (i > 1)
			tag[n++] = ' ';
		for (const char *p = argv[i]; *p && n + 1 < sizeof(tag); p++) {
			char c = *p;

			tag[n++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				   (c >= '0' && c <= '9') || c == ' ' || c == '-' ||
				   c == '+' ? c : '_';
		}
	}
	tag[n] = '\0';
	strlcpy(m->matchtag, tag, sizeof(m->matchtag));
	if (m->svc.serverinfo)
		m->svc.serverinfo(m->svc.ctx, "matchtag", m->matchtag);
	if (m->matchtag[0])
		m_bprint(m, "\n%s is %s\n", m_red(r1, sizeof(r1), "matchtag"), m->matchtag);
	else if (had)
		m_bprint(m, "\n%s %s\n", m_red(r1, sizeof(r1), "matchtag"),
			 m_red(r2, sizeof(r2), "disabled"));
	else
		m_bprint(m, "\n%s not set\n", m_red(r1, sizeof(r1), "matchtag"));
}
