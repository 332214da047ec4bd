/*
 * admin.c -- KTX's admins in the game: the login with k_admincode
 * ("admin CODE", or KTX's "admin" alone then six digits typed as
 * impulses 1-9), elected admins (vote.c runs the election), and what an
 * admin may do: forcestart, forcebreak, lock and unlock, force_spec,
 * kick, mute and unmute.  Every action and every refused login is
 * logged (match_services.log: who, from where, what; never the code).
 *
 * Design note
 *   Guessing is bounded twice: by slot (KTX's 5 seconds after a wrong
 *   code) and by address (M_CODE_TRIES wrong codes lock the address out
 *   for M_LOCKOUT seconds, whatever slot or name it comes back with); a
 *   fixed table of M_ADDR_SLOTS addresses keeps the failures, the oldest
 *   entry reused.  Every refusal is counted (struct match_vote_stats).
 *   The code is compared in a time that does not depend on where it
 *   differs.  What only the server can do goes through match_services
 *   (kick; the lock and the mute are the server's questions to the
 *   match: match_locked at a connect, match_muted at a say); force_spec
 *   is KTX's: the client is told to reconnect as a spectator.  An
 *   elected admin may not kick, mute or spec a real one (KTX).
 *   The digits: "admin" sets the game's code_entry for the slot, so its
 *   impulses 1-9 change no weapon and queue in the game's client; each
 *   frame (m_votes_frame) they are taken ("N more to go"), and the sixth
 *   tries the code as the argument form does, same waits and lockout.
 *   A level change (the game clears the client) or a second "admin"
 *   ends the entry.
 */
#include "votes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

bool m_is_admin(const struct match *m, int slot)
{
	return slot >= 0 && slot < m->votes->max_slots &&
	       m->votes->slot[slot].admin != M_ADMIN_NONE;
}

void m_vlog(struct match *m, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (!m->svc.log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	m->svc.log(m->svc.ctx, line);
}

void m_elect_end(struct match *m, bool blocked)
{
	struct m_votes *v = m->votes;

	if (v->elect_slot >= 0 && blocked)
		v->slot[v->elect_slot].elect_block = m->realtime + M_ELECT_BLOCK;
	v->elect_slot = -1;
	v->elect_until = 0;
	for (int s = 0; s < v->max_slots; s++)
		v->slot[s].yes = false;
}

/* "who": slot, userid and address, for the log */
static void who_str(struct match *m, int slot, char *buf, size_t size)
{
	char addr[48] = "";
	int userid = -1;

	if (m->svc.client_info)
		(void)m->svc.client_info(m->svc.ctx, slot, &userid, addr, sizeof(addr));
	snprintf(buf, size, "%s (userid %d, %s)", m->g->clients[slot].name, userid,
		 addr[0] ? addr : "no address");
}

/* ---- the login -------------------------------------------------------- */

static struct m_addr_fail *addr_entry(struct match *m, int slot, bool make)
{
	struct m_votes *v = m->votes;
	struct m_addr_fail *old = &v->addr[0];
	char addr[48] = "";
	int userid;

	if (!m->svc.client_info ||
	    !m->svc.client_info(m->svc.ctx, slot, &userid, addr, sizeof(addr)) ||
	    !addr[0])
		return NULL;
	for (int i = 0; i < M_ADDR_SLOTS; i++) {
		if (strcmp(v->addr[i].addr, addr) == 0)
			return &v->addr[i];
		if (v->addr[i].last < old->last)
			old = &v->addr[i];
	}
	if (!make)
		return NULL;
	memset(old, 0, sizeof(*old));
	strlcpy(old->addr, addr, sizeof(old->addr));
	return old;
}

/* equal, in a time that does not say where they differ */
static bool code_equal(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	unsigned diff = na != nb;

	for (size_t i = 0; i < nb; i++)
		diff |= (unsigned)(unsigned char)(i < na ? a[i] : 0) ^
			(unsigned char)b[i];
	return diff == 0;
}

static void become_admin(struct match *m, int slot, enum m_admin kind)
{
	char r[M_TEXT];

	m->votes->slot[slot].admin = kind;
	m->votes->slot[slot].map[0] = '\0';
	m->votes->slot[slot].yes = false;
	m_bprint(m, "%s %s!\n", m->g->clients[slot].name,
		 m_red(r, sizeof(r), "gains admins status"));
	m_sprint(m, slot, "Please give up admin rights when you're done\n"
		 "Type %s for info\n", m_red(r, sizeof(r), "commands"));
}

/* a code typed (the argument, or the digits): KTX's 5 s after a wrong
 * one; the address's lockout after M_CODE_TRIES */
static void try_code(struct match *m, int slot, const char *code)
{
	struct m_votes *v = m->votes;
	struct m_vslot *vs = &v->slot[slot];
	struct m_addr_fail *af;
	char r[M_TEXT], who[128];
	int till;

	who_str(m, slot, who, sizeof(who));
	af = addr_entry(m, slot, false);
	if (af && af->until > m->realtime) {
		till = (int)(af->until - m->realtime + 0.999);
		m_sprint(m, slot, "admin: too many wrong codes from your address: wait %d second%s\n",
			 till, m_plural(till));
		v->st.admin_lockouts++;
		m_vlog(m, "admin: login of %s refused: locked out for %d s", who, till);
		return;
	}
	till = (int)(vs->code_retry - m->realtime + 0.999);
	if (till > 0) {
		m_sprint(m, slot, "Wait %d second%s!\n", till, m_plural(till));
		v->st.admin_lockouts++;
		return;
	}
	if (m->set.admincode[0] && strcmp(m->set.admincode, "none") != 0 &&
	    code_equal(code, m->set.admincode)) {
		vs->code_fails = 0;
		if (af)
			af->fails = 0;
		v->st.admin_granted++;
		m_vlog(m, "admin: %s logged in with the admin code", who);
		become_admin(m, slot, M_ADMIN_REAL);
		return;
	}
	m_sprint(m, slot, "%s...\n", m_red(r, sizeof(r), "Access denied"));
	v->st.admin_denied++;
	vs->code_retry = m->realtime + M_CODE_WAIT;
	vs->code_fails++;
	af = addr_entry(m, slot, true);
	if (af) {
		af->fails++;
		af->last = m->realtime;
	}
	m_vlog(m, "admin: wrong admin code from %s (%d of %d)", who,
	       af ? af->fails : vs->code_fails, M_CODE_TRIES);
	if ((af ? af->fails : vs->code_fails) >= M_CODE_TRIES) {
		if (af) {
			af->until = m->realtime + M_LOCKOUT;
			af->fails = 0;
		}
		vs->code_retry = m->realtime + M_LOCKOUT;
		vs->code_fails = 0;
		m_sprint(m, slot, "admin: %d wrong codes: no logins from you for %d seconds\n",
			 M_CODE_TRIES, (int)M_LOCKOUT);
		m_vlog(m, "admin: %s locked out for %d s after %d wrong codes", who,
		       (int)M_LOCKOUT, M_CODE_TRIES);
	}
}

/* KTX's digit-by-digit entry: off (cancelled, done, or the slot left) */
static void code_entry_off(struct match *m, int slot)
{
	struct m_vslot *vs = &m->votes->slot[slot];

	if (vs->coding)
		m->votes->coding--;
	vs->coding = false;
	vs->code_left = 0;
	memset(vs->code_typed, 0, sizeof(vs->code_typed));
	m->g->clients[slot].code_entry = false;
	m->g->clients[slot].code_count = 0;
}

void m_admin_digits(struct match *m, int slot)
{
	struct m_vslot *vs = &m->votes->slot[slot];
	struct game_client *cl = &m->g->clients[slot];
	char r[M_TEXT];
	int n = cl->code_count;

	/* a level change's reconnect (the game cleared the client) or gone */
	if (!cl->active || !cl->code_entry) {
		code_entry_off(m, slot);
		return;
	}
	cl->code_count = 0;
	for (int i = 0; i < n && i < (int)sizeof(cl->code_digits) && vs->code_left; i++) {
		int d = cl->code_digits[i];

		if (d < 1 || d > 9)
			continue;
		vs->code_typed[M_CODE_DIGITS - vs->code_left] = (char)('0' + d);
		vs->code_left--;
		if (vs->code_left)
			m_sprint(m, slot, "%d %s\n", vs->code_left,
				 m_red(r, sizeof(r), "more to go"));
	}
	if (vs->code_left)
		return;
	{
		char code[M_CODE_DIGITS + 1];

		memcpy(code, vs->code_typed, sizeof(code));
		code_entry_off(m, slot);
		try_code(m, slot, code);
		memset(code, 0, sizeof(code));
	}
}

void m_cmd_admin(struct match *m, int slot, int argc, const char *const *argv)
{
	struct m_votes *v = m->votes;
	struct m_vslot *vs = &v->slot[slot];
	char r1[M_TEXT], r2[M_TEXT], who[128];

	if (v->elect_slot == slot) {
		m_sprint(m, slot, "Abort %s first\n", m_red(r1, sizeof(r1), "election"));
		return;
	}
	if (vs->admin) {
		who_str(m, slot, who, sizeof(who));
		m_bprint(m, "%s is no longer an %s\n", m->g->clients[slot].name,
			 m_red(r1, sizeof(r1), "admin"));
		m_vlog(m, "admin: %s gave up admin rights", who);
		vs->admin = M_ADMIN_NONE;
		return;
	}
	if (vs->code_left) {
		code_entry_off(m, slot);
		m_sprint(m, slot, "%s code canceled\n", m_red(r1, sizeof(r1), "admin"));
		return;
	}
	if (!m->set.admins) {
		m_sprint(m, slot, "%s on this server!\n", m_red(r1, sizeof(r1), "NO admins"));
		return;
	}
	if (argc >= 2) {
		try_code(m, slot, argv[1]);
		return;
	}
	/* KTX: "admin" alone, then the code's digits as impulses 1-9 (the
	 * number keys); the game hands them here instead of to the weapons */
	vs->code_left = M_CODE_DIGITS;
	vs->coding = true;
	m->votes->coding++;
	memset(vs->code_typed, 0, sizeof(vs->code_typed));
	m->g->clients[slot].code_entry = true;
	m->g->clients[slot].code_count = 0;
	m_sprint(m, slot, "Use %s or %s to enter code\n", m_red(r1, sizeof(r1), "numbers"),
		 m_red(r2, sizeof(r2), "impulses"));
}

/* ---- what admins do --------------------------------------------------- */

static bool need_admin(struct match *m, int slot, const char *cmd)
{
	char r[M_TEXT];

	if (m_is_admin(m, slot))
		return true;
	m_sprint(m, slot, "%s: you must be an %s\n", cmd, m_red(r, sizeof(r), "admin"));
	m->votes->st.admin_refused++;
	return false;
}

static void acted(struct match *m, int slot, const char *what)
{
	char who[128];

	who_str(m, slot, who, sizeof(who));
	m->votes->st.admin_actions++;
	m_vlog(m, "admin: %s %s: %s",
	       m->votes->slot[slot].admin == M_ADMIN_REAL ? "admin" : "elected admin",
	       who, what);
}

int m_find_target(struct match *m, int slot, const char *cmd, const char *who)
{
	char *end;
	long id = strtol(who, &end, 10);

	for (int s = 0; s < m->max_slots; s++) {
		int userid = -1;
		char addr[8];

		if (!m->g->clients[s].active)
			continue;
		if (strcasecmp(m->g->clients[s].name, who) == 0)
			return s;
		if (*who && !*end && m->svc.client_info &&
		    m->svc.client_info(m->svc.ctx, s, &userid, addr, sizeof(addr)) &&
		    userid == id)
			return s;
	}
	m_sprint(m, slot, "%s: client %.32s not found (give a name or a userid)\n", cmd, who);
	return -1;
}

/* target of an admin's command on a player; -1 refused (said so) */
static int admin_target(struct match *m, int slot, int argc,
			const char *const *argv)
{
	int t;

	if (!need_admin(m, slot, argv[0]))
		return -1;
	if (argc < 2) {
		m_sprint(m, slot, "Usage: %s NAME or USERID\n", argv[0]);
		return -1;
	}
	t = m_find_target(m, slot, argv[0], argv[1]);
	if (t < 0)
		return -1;
	if (m->votes->slot[t].admin == M_ADMIN_REAL &&
	    m->votes->slot[slot].admin != M_ADMIN_REAL) {
		m_sprint(m, slot, "You can't %s real admin \x8d %s as elected admin\n",
			 argv[0], m->g->clients[t].name);
		m->votes->st.admin_refused++;
		return -1;
	}
	return t;
}

void m_cmd_forcestart(struct match *m, int slot, int argc, const char *const *argv)
{
	(void)argc;
	if (!need_admin(m, slot, argv[0]))
		return;
	if (m->state != MATCH_PREWAR) {
		m_sprint(m, slot, "forcestart: %s\n", m->state == MATCH_COUNTDOWN ?
			 "forcestart already in progress!" : "a match is on");
		return;
	}
	if (m_count_players(m, false) < 1) {
		m_sprint(m, slot, "forcestart: no players\n");
		return;
	}
	m_bprint(m, "%s forces matchstart!\n", m->g->clients[slot].name);
	acted(m, slot, "forcestart");
	m_start_countdown(m);
}

void m_cmd_forcebreak(struct match *m, int slot, int argc, const char *const *argv)
{
	(void)argc;
	if (!need_admin(m, slot, argv[0]))
		return;
	if (m->state != MATCH_COUNTDOWN && m->state != MATCH_PLAYING) {
		m_sprint(m, slot, "forcebreak: no match to break\n");
		return;
	}
	m_bprint(m, "%s forces a break!\n", m->g->clients[slot].name);
	acted(m, slot, "forcebreak");
	if (m->state == MATCH_COUNTDOWN)
		m_stop_countdown(m, NULL);
	else
		m_break_match(m, NULL);
}

static void set_lock(struct match *m, int slot, bool on)
{
	char r[M_TEXT];

	if (m->votes->locked == on) {
		m_sprint(m, slot, "The server is %s\n", on ? "locked already" : "not locked");
		return;
	}
	m->votes->locked = on;
	m_bprint(m, "%s %s\n", m->g->clients[slot].name,
		 m_red(r, sizeof(r), on ? "locked server" : "unlocked server"));
	acted(m, slot, on ? "lock" : "unlock");
}

void m_cmd_lock(struct match *m, int slot, int argc, const char *const *argv)
{
	(void)argc;
	if (need_admin(m, slot, argv[0]))
		set_lock(m, slot, !m->votes->locked);	/* KTX's lock toggles */
}

void m_cmd_unlock(struct match *m, int slot, int argc, const char *const *argv)
{
	(void)argc;
	if (need_admin(m, slot, argv[0]))
		set_lock(m, slot, false);
}

void m_cmd_force_spec(struct match *m, int slot, int argc, const char *const *argv)
{
	int t = admin_target(m, slot, argc, argv);
	char what[96];

	if (t < 0)
		return;
	if (m->g->clients[t].spectator) {
		m_sprint(m, slot, "force_spec: %s is a spectator already\n",
			 m->g->clients[t].name);
		return;
	}
	m_sprint(m, t, "You were forced to reconnect as spectator by the admin\n");
	if (m->g->svc.stufftext)
		m->g->svc.stufftext(m->g->svc.ctx, t,
				    "spectator 1\ndisconnect\nwait;wait;reconnect\n");
	snprintf(what, sizeof(what), "force_spec %s", m->g->clients[t].name);
	acted(m, slot, what);
}

void m_cmd_kick(struct match *m, int slot, int argc, const char *const *argv)
{
	int t = admin_target(m, slot, argc, argv);
	char what[96];

	if (t < 0)
		return;
	m_bprint(m, "%s was kicked by %s\n", m->g->clients[t].name,
		 m->g->clients[slot].name);
	snprintf(what, sizeof(what), "kick %s", m->g->clients[t].name);
	acted(m, slot, what);
	if (m->svc.kick)
		m->svc.kick(m->svc.ctx, t, "kicked by an admin");
	match_client_gone(m, t);
}

static void set_mute(struct match *m, int slot, int argc, const char *const *argv,
		     bool on)
{
	int t = admin_target(m, slot, argc, argv);
	char what[96];

	if (t < 0)
		return;
	m->votes->slot[t].muted = on;
	m_sprint(m, t, "You were %s by the admin\n", on ? "muted" : "unmuted");
	m_sprint(m, slot, "%s is %s\n", m->g->clients[t].name, on ? "muted" : "unmuted");
	snprintf(what, sizeof(what), "%s %s", on ? "mute" : "unmute",
		 m->g->clients[t].name);
	acted(m, slot, what);
}

void m_cmd_mute(struct match *m, int slot, int argc, const char *const *argv)
{
	set_mute(m, slot, argc, argv, true);
}

void m_cmd_unmute(struct match *m, int slot, int argc, const char *const *argv)
{
	set_mute(m, slot, argc, argv, false);
}
