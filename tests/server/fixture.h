/*
 * tests/server/fixture.h -- a server in-process on 127.0.0.1 and real
 * protocol-28 clients (src/client) talking to it over UDP, in one thread:
 * the fixture of the server's tests (test_protocol.c, test_flood.c,
 * test_loglimit.c).
 *
 * Design note
 *   A group's set-up makes an empty temporary base directory and picks
 *   two maps, the first and the one a map change loads: the project's own
 *   (fx_setup: small and large, in build/maps/, which the server finds by
 *   name and which are always built with the tests), or two community
 *   maps linked into id1/maps/ from the realmaps folder (fx_setup_realmaps:
 *   lqdm1 and lqdm2; have_maps is false without them, and those tests
 *   skip).  fx_start starts a struct server on an ephemeral port on the
 *   first map; the test then alternates server_frame(sv, 0.001) with client
 *   steps (receive what came, send what is due).  Every wait is bounded in
 *   real time, so a hang fails in seconds; what tests assert is behaviour
 *   (states, counters), never durations.
 *   Each client binds its own 127.0.0.N (all of 127/8 is loopback on
 *   Linux): the server limits connectionless requests per address.
 *   The server's log goes to a sink that counts lines (and those holding a
 *   chosen text) and shows warnings on stderr.
 */
#ifndef QWD_TESTS_SERVER_FIXTURE_H
#define QWD_TESTS_SERVER_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>

#include <qwd/client.h>
#include "../../src/server/internal.h"

enum { FX_MAX_CLIENTS = 200 };

struct fx_client {
	struct qwc q;
	int fd;
	char ip[32];		/* the 127.0.0.N it is bound to */
	char info[160];		/* the userinfo the options point at */
	struct net_stats net;
	int marked_prints;	/* svc_print texts holding fx.print_mark */
	int last_mark_level;	/* the print level of the last of them */
};

struct fx {
	char dir[128];
	struct server *sv;
	struct net_recv_batch *rx;
	struct net_stats net;	/* of raw sockets */
	const char *maps[2];	/* the first map, the one a map change loads */
	uint32_t sums[2];	/* their checksum2, for the clients */
	bool have_maps;		/* false: the community maps are absent */
	struct fx_client *tc[FX_MAX_CLIENTS];
	int ntc;
	int next_ip;		/* last byte of the next 127.0.0.N */
	bool track_entities;	/* for clients made from now on (default on) */
	const char *print_mark;	/* counted in each client's marked_prints */
	/* the server's log */
	int log_lines;
	int log_matched;	/* lines holding log_mark */
	const char *log_mark;
	char log_last[QWD_LOG_LINE_MAX];	/* the last of them */
};

/* group set-ups (cmocka) on the project's maps or the community maps, the
 * group tear-down, and the per-test tear-down that closes the clients,
 * stops the server and resets the test's choices (track_entities, the
 * marks and their counts) */
int fx_setup(void **state);
int fx_setup_realmaps(void **state);
int fx_teardown(void **state);
int fx_test_teardown(void **state);

/* a server with maxclients slots on the first map (a running one is
 * stopped first); fails the test if it cannot start */
void fx_start(struct fx *f, int maxclients);
/* "maps/<name>.bsp" of the first (0) or second (1) map */
const char *fx_map_model(const struct fx *f, int which);

/* a client (not yet connecting); extra ("\\key\\value...") is appended to
 * its userinfo, or NULL */
struct fx_client *fx_client(struct fx *f, const char *name, bool extension,
			    const char *extra);
void fx_connect(struct fx_client *t);
/* receive what came for t, then send what is due if `send` */
void fx_step(struct fx *f, struct fx_client *t, bool send);
/* a server frame, then every client's step */
void fx_step_all(struct fx *f, bool send);
void fx_run_for(struct fx *f, double seconds, bool send);
bool fx_all_in_state(const struct fx *f, enum qwc_state s);
/* until every client is active, at most `seconds`; false if not */
bool fx_run_until_active(struct fx *f, double seconds);
void fx_dump_client(const struct fx_client *t);

/* a socket on a fresh 127.0.0.N, or on ip when given (any port) */
int fx_open_socket(struct fx *f, const char *ip);
/* A netchan packet of t's channel (its next sequence) carrying payload
 * after the header (and any reliable data due), which may be as large as
 * a datagram the server reads (NET_MAX_UDP_PACKET), larger than a netchan
 * message: what an attacker sends.  From fd (-1: t's own socket). */
void fx_send_raw(struct fx_client *t, int fd, const void *payload, size_t len);
/* payload of `count` clc_stringcmd copies of text into buf; its length */
size_t fx_stringcmds(uint8_t *buf, size_t max, const char *text, int count);

/* connectionless: send req from fd, pump the server, return the first
 * reply's length (0: none within 2 s) */
size_t fx_oob_exchange(struct fx *f, int fd, const void *req, size_t reqlen,
		       uint8_t *reply, size_t max);
/* the same for a text request; the reply's text after the 0xff bytes */
size_t fx_oob_text(struct fx *f, int fd, const char *text, char *reply,
		   size_t max);
/* getchallenge + connect from a fresh address; the reply text ('j' or
 * 'n'...) into reply */
void fx_raw_connect(struct fx *f, int protocol, bool bad_challenge, bool qwdx,
		    char *reply, size_t max);

#endif
