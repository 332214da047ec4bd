/*
 * netfix.h -- the fixture the packet fuzzers and their seed writer share:
 * an in-process server on a real map, protocol clients driven in lockstep
 * with it, and copies of a client's state to start every input from.
 *
 * Design note
 *   The packet targets (fuzz_oob, fuzz_game, fuzz_client) and mkpackets
 *   must see the same server: the same map, the same fixed challenge
 *   secret, the same scripted session.  A seed is only as good as its
 *   match with the state it is fed to (a clc_delta byte names a frame, a
 *   connect names a challenge), so both sides build that state here.
 *
 *   Lockstep: every step the client sends exactly one datagram over the
 *   loopback, the server runs one frame that waits for it, and the client
 *   reads the one reply.  The server's rate bank is emptied before each
 *   frame so no reply is choked.  Sequence numbers therefore depend on the
 *   script alone, not on timing: a fuzz target and mkpackets that run the
 *   same session get the same sequences, and the frames a captured reply
 *   deltas from exist in the fuzz target's copy of the client.
 *
 *   Nothing here is used in a hot path of the server; the fixture
 *   allocates freely at set-up.
 */
#ifndef QWD_FUZZ_NETFIX_H
#define QWD_FUZZ_NETFIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qwd/client.h"
#include "../server/svall.h"

/* the connectionless target's fixed world: its secret and clock make the
 * challenge of an address a constant that mkpackets can write into seeds */
#define FX_SECRET "qwd fuzz secret!"	/* 16 bytes, the key */
#define FX_OOB_TIME 1000.0		/* sv->realtime of every input */
#define FX_OOB_IP "127.0.0.1"		/* where fuzzed datagrams come from */
#define FX_WIDE_IP "127.0.0.3"		/* the script's QWDX client */
#define FX_SIGNER_IP "127.0.0.4"	/* the script's client in its signon */
#define FX_RCON_PASSWORD "fuzzpw"
#define FX_MAP "lqdm11.bsp"		/* small deathmatch map, 224 KB */
#define FX_BUNDLED_MAP "build/maps/small.bsp"	/* without the real maps */
#define FX_SERVED_FILE "skins/fuzz.pcx"	/* a file the server lets clients fetch */

enum {
	FX_QPORT_STOCK = 27001,		/* protocol 28 client */
	FX_QPORT_QWDX = 27002,		/* client with the extension */
	FX_QPORT_SIGNER = 27003,	/* client left in its signon */
	FX_MAXCLIENTS = 4,		/* slots of the script's server */
	FX_SETTLE_STEPS = 8,		/* steps after QWC_ACTIVE: deltas flow */
	FX_MAX_BASELINES = 1024,	/* entity numbers a fuzz client keeps */
	FX_SESSION_STEPS = 600		/* a session that takes longer failed */
};

struct fx {
	char base[64];			/* base directory, shared per map */
	char mapname[64];		/* "lqdm11" */
	uint32_t checksum2;		/* of the map, for prespawn */
	struct server *sv;
	struct net_recv_batch *rx;	/* reads of the clients' sockets */
	struct net_stats net;
};

struct fx_client {
	struct qwc q;
	int fd;				/* the client's own UDP socket */
	struct net_addr addr;		/* where that socket is bound */
	char info[MAX_INFO_STRING];	/* the userinfo q.opt points at */
	double now;			/* the client's clock, advanced per step */
};

enum fx_dir { FX_TO_SERVER, FX_TO_CLIENT };

/* the script's clients (fx_script) */
enum fx_who { FX_STOCK, FX_WIDE, FX_SIGNER, FX_CLIENTS };

/* every datagram of a step, as it went over the wire */
typedef void (*fx_tap_fn)(void *ctx, const struct fx_client *c,
			  enum fx_dir dir, const uint8_t *data, size_t len);

/* the points of the script where a fuzz target copies a client */
enum fx_point {
	FX_CHALLENGING,		/* getchallenge about to go out */
	FX_CONNECTING,		/* challenge received */
	FX_SIGNON,		/* netchan up, the model list received */
	FX_ACTIVE,		/* the end of the script: in the game, deltas
				   flowing, both clients known to each other */
	FX_POINTS
};

typedef void (*fx_snap_fn)(void *ctx, const struct fx_client *c,
			   enum fx_point p);

/* Find the map (QWD_FUZZ_MAP, else FX_MAP under QWD_REALMAPS or
 * ../shared/realmaps, else FX_BUNDLED_MAP), make a base directory holding it and a served file,
 * start a quiet server on 127.0.0.1 with an ephemeral port and load the
 * map.  The secret is FX_SECRET, both rate limiters are effectively off,
 * rcon_password is FX_RCON_PASSWORD (plain rcon allowed) and the
 * timeout is long (the fuzz loop does not run frames).  Returns 0, or -1 with the reason on stderr. */
int fx_open(struct fx *f, int maxclients);
void fx_close(struct fx *f);

/* A client bound to ip (port chosen by the kernel) for f's server. */
int fx_client_open(struct fx *f, struct fx_client *c, const char *ip,
		   uint16_t qport, const char *name, bool qwdx);
void fx_client_close(struct fx_client *c);

/* one lockstep exchange (see the design note); tap may be NULL */
void fx_step(struct fx *f, struct fx_client *c, fx_tap_fn tap, void *ctx);

/* Connect c and step until `until` (FX_SIGNON, or FX_ACTIVE: in the game
 * for FX_SETTLE_STEPS replies), calling snap (may be NULL) at each point
 * before it.  Returns 0, or -1 (refused, dropped, or FX_SESSION_STEPS ran
 * out). */
int fx_session(struct fx *f, struct fx_client *c, enum fx_point until,
	       fx_tap_fn tap, fx_snap_fn snap, void *ctx);

/* The script every packet target and mkpackets run on a server opened
 * with FX_MAXCLIENTS slots:
 *   c[FX_STOCK]   a stock client at FX_OOB_IP (qport FX_QPORT_STOCK, name
 *                 "fuzz"), brought into the game;
 *   c[FX_WIDE]    a QWDX client at FX_WIDE_IP (FX_QPORT_QWDX, "wide"),
 *                 brought into the game;
 *   c[FX_SIGNER]  a stock client at FX_SIGNER_IP (FX_QPORT_SIGNER,
 *                 "signer") left in its signon at FX_SIGNON (its prespawn
 *                 queued, not sent);
 * then FX_SETTLE_STEPS rounds of one step of each client in the game, and
 * snap(FX_ACTIVE) for those two.  Returns 0 or -1.  The next step of any
 * client continues it exactly as the targets' copies do. */
int fx_script(struct fx *f, struct fx_client c[FX_CLIENTS], fx_tap_fn tap,
	      fx_snap_fn snap, void *ctx);

/* A copy of a client and its tables, to restore before each input. */
struct fx_qwc_copy {
	struct qwc q;
	struct qwc_player *players;
	struct qwc_entity *baselines;
	struct qwc_entity_frame *frames;
};

int fx_qwc_save(struct fx_qwc_copy *t, const struct qwc *c);
void fx_qwc_copy_free(struct fx_qwc_copy *t);
/* Put c (same options as the copy) back as the copy was.  Only the entity
 * frames c may have written since (those of the sequences it accepted
 * after the copy's) are copied back, so a restore costs tens of KB, not
 * the whole frame table. */
void fx_qwc_restore(struct qwc *c, const struct fx_qwc_copy *t);

/* the challenge the connectionless target's server hands out to ip */
int32_t fx_oob_challenge(const char *ip);
void fx_fixed_secret(struct net_secret *s);

/* Where the first clc_move of a client payload (no netchan header) sits:
 * *cks the offset of its checksum byte, *end of its end.  Reads the
 * payload as the server does and stops at a malformed message; false when
 * no whole move comes before that. */
bool fx_find_move(const uint8_t *payload, size_t len, size_t *cks,
		  size_t *end);

/* A client-to-server netchan datagram of protocol 28's shape: the header
 * with qport, then whole clc messages only (nop, string commands shorter
 * than a command line, at most one move, deltas). */
bool fx_clc_well_formed(const uint8_t *data, size_t len);

#endif
