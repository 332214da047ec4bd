/*
 * src/match/votes.h -- what vote.c and admin.c share: per slot, the
 * votes given and the admin rights held; the running election; the
 * lock; the admin code's failures by address; the counters.
 *
 * Design note
 *   Kept apart from internal.h so that the match's core and the votes
 *   change without touching each other.  One block made with the match
 *   (m_votes_create): a slot array sized by the game's slots and a
 *   fixed table of addresses; nothing is allocated afterwards.  Times
 *   are the server's real clock (m->realtime): a vote or a lockout runs
 *   out even while the game is paused.
 */
#ifndef QWD_MATCH_VOTES_H
#define QWD_MATCH_VOTES_H

#include "internal.h"

enum m_admin { M_ADMIN_NONE, M_ADMIN_REAL, M_ADMIN_ELECTED };

enum {
	M_CODE_TRIES = 3,	/* wrong codes before a lockout */
	M_ADDR_SLOTS = 16,	/* addresses whose failures are remembered */
	M_CODE_DIGITS = 6	/* KTX: "admin" alone, then 6 impulses 1-9 */
};

#define M_CODE_WAIT 5.0		/* KTX: seconds after a wrong code */
#define M_LOCKOUT 60.0		/* seconds locked out after M_CODE_TRIES */
#define M_VOTE_TIMEOUT 60.0	/* KTX's election guard: 60 s */
#define M_ELECT_BLOCK 30.0	/* KTX: no new election by him for 30 s */
#define M_VOTE_GAP 1.0		/* one vote command a second per slot */

struct m_vslot {
	char map[64];		/* the map voted for, "" none */
	bool yes;		/* a yes in the running election */
	enum m_admin admin;
	bool muted;
	double next_vote;	/* no vote command before */
	double elect_block;	/* no election of his before */
	int code_fails;
	double code_retry;	/* no login before */
	int code_left;		/* digits still to type ("admin" alone) */
	bool coding;		/* typing the code (counted in m_votes.coding) */
	char code_typed[M_CODE_DIGITS + 1];
};

struct m_addr_fail {
	char addr[48];
	int fails;
	double until;		/* locked out till */
	double last;		/* the last failure (the oldest is reused) */
};

struct m_votes {
	struct m_vslot *slot;
	int max_slots;
	int elect_slot;		/* the candidate, -1: no election */
	double elect_until;
	double map_until;	/* map votes run out (0: none given) */
	int coding;		/* slots typing the admin code (code_left) */
	bool locked;
	struct m_addr_fail addr[M_ADDR_SLOTS];
	struct match_vote_stats st;
};

/* vote.c: a vote command may run now (the spam gap; counted if not) */
bool m_vote_gap(struct match *m, int slot);
/* admin.c: end slot's election (aborted, timed out or won) */
void m_elect_end(struct match *m, bool blocked);
/* admin.c: the digits typed as impulses this frame (m_votes_frame) */
void m_admin_digits(struct match *m, int slot);
/* slot's target by NAME or USERID (-1: said so to slot) */
int m_find_target(struct match *m, int slot, const char *cmd, const char *who);

#endif
