/*
 * tests/server/srvfix.h -- the server's test fixture: an in-process
 * server with real protocol-28 clients (src/client) on loopback
 * addresses, for every test of tests/server.
 *
 * Design note
 *   The server runs in the test's thread: srvfix_step() is one
 *   server_frame() of at most 1 ms and one receive/send turn of every
 *   client, so a test drives both sides and every wait is bounded in real
 *   time (a hang fails in seconds); what tests assert is behaviour (states,
 *   counters), never durations.  The base directory is a fresh temporary
 *   folder, so a test can put config files and downloads under qw/.  The
 *   server starts on the first of two maps, the second being the one a
 *   map change loads: the project's own (srvfix_setup: small and large,
 *   in build/maps/, always built with the tests), or two community maps
 *   linked into id1/maps/ from the realmaps folder (srvfix_setup_realmaps:
 *   lqdm1 and lqdm2; have_maps is false without them, and srvfix_start
 *   fails the test, so such a group's tests skip first).  Each client
 *   has a socket of its own on an address the test names, or the next of
 *   127.0.0.2, .3, ...: all of 127/8 is loopback, so addresses stand for
 *   distinct hosts.  The server's log lines are kept
 *   (the last SRVFIX_LOG_LINES) so a test can ask what was said, and
 *   counted in all when they hold the test's log_mark; a client counts the
 *   prints holding print_mark.
 *   Instead of the in-process server, a test may start the real program
 *   (srvfix_spawn: build/qwd as a child in the same folder, its console a
 *   pipe, its log a file), for what only a process shows: start-up and
 *   shutdown, a restart.  The clients and steps are the same either way.
 */
#ifndef QWD_TESTS_SRVFIX_H
#define QWD_TESTS_SRVFIX_H

#include <stdbool.h>
#include <stdint.h>

#include <qwd/client.h>
#include "../server/svall.h"

enum { SRVFIX_MAX_CLIENTS = 200, SRVFIX_LOG_LINES = 512, SRVFIX_LOG_LEN = 200 };

/* a datagram held back by a client's simulated latency */
struct srv_delayed {
	double due;
	uint16_t len;
	uint8_t data[NETCHAN_MAX_PACKET];
};
enum { SRVFIX_DELAY_SLOTS = 256 };

struct srv_client {
	struct qwc q;
	int fd;
	char ip[32];		/* the 127.0.0.N it is bound to */
	char info[192];		/* the userinfo the options point at */
	struct net_stats net;
	int marked_prints;	/* svc_print texts holding print_mark */
	int last_mark_level;	/* the print level of the last of them */
	/* simulated latency (srvfix_delay): each way, and the datagrams held
	 * back (SRVFIX_DELAY_SLOTS each way; more are lost, counted) */
	double delay;
	struct srv_delayed *held_in, *held_out;
	int in_head, in_count, out_head, out_count;
	uint64_t delay_lost;
};

struct srvfix {
	char dir[64];		/* the base directory */
	struct server *sv;
	struct net_recv_batch *rx;
	const char *maps[2];	/* the first map, the one a map change loads */
	uint32_t sums[2];	/* their checksum2, for the clients */
	bool have_maps;		/* false: the community maps are absent */
	struct srv_client *cl[SRVFIX_MAX_CLIENTS];	/* NULL: forgotten */
	int ncl;
	int sockets[16];	/* srvfix_socket's */
	int nsockets;
	int next_ip;		/* last byte of the next 127.0.0.N */
	char log[SRVFIX_LOG_LINES][SRVFIX_LOG_LEN];
	int log_count;		/* lines seen in all */
	/* a test's choices, reset by the per-test tear-down */
	bool track_entities;	/* for clients made from now on (default on) */
	const char *print_mark;	/* counted in each client's marked_prints */
	const char *log_mark;	/* log lines holding it are counted ... */
	int log_matched;	/* ... here, in all (not only the kept ones) */
	char log_last[QWD_LOG_LINE_MAX];	/* the last of them */
	bool threads_auto;	/* srvfix_start: -threads auto -threads-max */
	int threads_max;
	/* a qwd child instead (srvfix_spawn): 0 none */
	int child;		/* its pid */
	int child_in;		/* its console, -1 closed */
	uint16_t child_port;
};

/* the downloads feature's state of a client's slot (downloads.h) */
static inline const struct sv_download *srvfix_download(const struct srvfix *f,
							 const struct client *cl)
{
	return &f->sv->downloads->slot[cl->slot];
}

/* cmocka group set-up and tear-down: a fixture in *state, no server yet,
 * on the project's maps or the community maps */
int srvfix_setup(void **state);
int srvfix_setup_realmaps(void **state);
int srvfix_teardown(void **state);
/* per-test tear-down: clients and server gone, the test's choices
 * (track_entities, the marks and their counts) reset, the base folder
 * kept */
int srvfix_test_teardown(void **state);

/* a server with maxclients slots on the first map, listening on
 * 127.0.0.1 (a running one and its clients are stopped first;
 * srvfix_socket's stay); fails the test without the maps */
void srvfix_start(struct srvfix *f, int maxclients);
/* "maps/<name>.bsp" of the first (0) or second (1) map */
const char *srvfix_map_model(const struct srvfix *f, int which);
/* write text into DIR/rel (folders made as needed) */
void srvfix_write(struct srvfix *f, const char *rel, const char *text);

/* a client bound to ip (NULL: the next 127.0.0.N); not connecting yet;
 * extra ("\\key\\value...") is appended to its userinfo, or NULL */
struct srv_client *srvfix_client(struct srvfix *f, const char *ip,
				 const char *name, bool extension,
				 const char *extra);
/* start connecting */
void srvfix_connect(struct srv_client *c);
/* a stock client on the next address, connected and in the game (fails
 * the test when it is not within 5 s) */
struct srv_client *srvfix_player(struct srvfix *f, const char *name);
/* hold c's datagrams back `seconds` each way from now on (0: none): a
 * round trip of twice that, as a far player has */
void srvfix_delay(struct srv_client *c, double seconds);
/* drop a client's socket and memory, keeping the others in place */
void srvfix_forget(struct srvfix *f, struct srv_client *c);

/* one server frame, then one turn of every client (send: clients send) */
void srvfix_step(struct srvfix *f, bool send);
/* one client's turn alone: receive what came, then send what is due if
 * send */
void srvfix_client_step(struct srvfix *f, struct srv_client *c, bool send);
/* step until c reaches state s (true) or seconds pass (false) */
bool srvfix_until(struct srvfix *f, struct srv_client *c, enum qwc_state s,
		  double seconds);
/* every client in state s; step until they are (true) or seconds pass */
bool srvfix_all_in_state(const struct srvfix *f, enum qwc_state s);
bool srvfix_until_all(struct srvfix *f, enum qwc_state s, double seconds);
/* a client's state, reason and bad-message counts on stderr */
void srvfix_dump_client(const struct srv_client *c);
/* step for seconds */
void srvfix_run(struct srvfix *f, double seconds, bool send);

/* a connectionless datagram as it came from `from` ("a.b.c.d" or
 * "a.b.c.d:port", port 27001 when absent), handed straight to the server
 * (no socket): the tests of the budgets choose the source address and the
 * clock (sv->realtime) themselves.  The server's answers go out of its
 * socket to that address, where nobody listens. */
void srvfix_oob(struct srvfix *f, const char *from, const char *text);
/* datagram data from the socket fd (srvfix_socket) to the server (none
 * when len is 0), then steps until a datagram comes to fd or `seconds`
 * pass: its length in reply (0: none); the clients step too, without
 * sending */
size_t srvfix_exchange(struct srvfix *f, int fd, const void *data, size_t len,
		       uint8_t *reply, size_t max, double seconds);
/* the same with the text of a connectionless request and answer (the
 * answer's text after the 0xff bytes, NUL-terminated; 2 s at most) */
size_t srvfix_oob_text(struct srvfix *f, int fd, const char *text, char *reply,
		       size_t max);
/* a UDP socket on ip (NULL: the next 127.0.0.N; any port), closed with
 * the fixture's test */
int srvfix_socket(struct srvfix *f, const char *ip);
/* getchallenge and connect (protocol, the challenge plus one when
 * bad_challenge, QWDX asked or not) over a socket of a fresh address;
 * the answer's text ('j' or 'n'...) into reply */
void srvfix_connect_udp(struct srvfix *f, int protocol, bool bad_challenge,
			bool qwdx, char *reply, size_t max);

/* what an attacker sends: a netchan packet of c's channel (its next
 * sequence) carrying payload after the header (and any reliable data
 * due), which may be as large as a datagram the server reads
 * (NET_MAX_UDP_PACKET), larger than a netchan message; from fd (-1: c's
 * own socket) */
void srvfix_send_raw(struct srv_client *c, int fd, const void *payload,
		     size_t len);
/* payload of `count` clc_stringcmd copies of text into buf; its length */
size_t srvfix_stringcmds(uint8_t *buf, size_t max, const char *text, int count);
/* a connect from `from` with the challenge the server would have given it
 * (qport, QWDX asked or not); the slot it got, or -1 */
int srvfix_connect_raw(struct srvfix *f, const char *from, int qport,
		       bool qwdx);

/* build/qwd as a child on "small" in the fixture's folder on 127.0.0.1
 * (the in-process server and any earlier child stopped first), "-game qw"
 * and the NULL-terminated extra arguments after the fixture's own; its
 * output is appended to DIR/qwd.log.  Returns when the map is loaded. */
void srvfix_spawn(struct srvfix *f, const char *const *extra);
/* a line on the child's console */
void srvfix_console(struct srvfix *f, const char *line);
/* "quit" on the child's console; true when it ended by itself, with
 * status 0, within a few seconds (else it is killed) */
bool srvfix_stop_child(struct srvfix *f);
/* run a program (argv[0] a path) while the server steps, until it ends
 * or `seconds` pass (then it is killed); its output (stdout and stderr)
 * into out, NUL-terminated; each step also calls hook(ctx) when given.
 * True when it ended by itself with status 0. */
bool srvfix_program(struct srvfix *f, const char *const *argv, char *out,
		    size_t max, double seconds, void (*hook)(struct srvfix *f, void *ctx),
		    void *ctx);
/* the lines of the file DIR/rel containing text (0: no such file) */
int srvfix_file_count(const struct srvfix *f, const char *rel, const char *text);

/* run a console line on the in-process server, its output into out
 * (NUL-terminated) */
void srvfix_command(struct srvfix *f, const char *line, char *out, size_t max);
/* the server's log lines containing text */
int srvfix_log_count(const struct srvfix *f, const char *text);
/* the connected clients (state >= CS_CONNECTED) whose address is ip */
int srvfix_clients_from(const struct srvfix *f, const char *ip);

#endif
