/*
 * tests/server/srvfix.h -- an in-process server on the bundled map "small"
 * with protocol-28 clients on loopback addresses, for the hardening tests
 * (slots, connectionless budgets, downloads, config limits).
 *
 * Design note
 *   The server runs in the test's thread: srvfix_step() is one
 *   server_frame() of at most 1 ms and one receive/send turn of every
 *   client, so a test drives both sides and every wait is bounded in real
 *   time (a hang fails in seconds).  The base directory is a fresh
 *   temporary folder, so a test can put config files and downloads under
 *   qw/.  Each client has a socket of its own on an address the test
 *   names, or the next of 127.0.0.2, .3, ...: all of 127/8 is loopback, so
 *   addresses stand for distinct hosts.  The server's log lines are kept
 *   (the last SRVFIX_LOG_LINES) so a test can ask what was said.
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
#include "../../src/server/internal.h"

enum { SRVFIX_MAX_CLIENTS = 48, SRVFIX_LOG_LINES = 512, SRVFIX_LOG_LEN = 200 };

struct srv_client {
	struct qwc q;
	int fd;
	char info[160];		/* the userinfo the options point at */
	struct net_stats net;
};

struct srvfix {
	char dir[64];		/* the base directory */
	struct server *sv;
	struct net_recv_batch *rx;
	uint32_t checksum2;	/* of the bundled "small" */
	struct srv_client *cl[SRVFIX_MAX_CLIENTS];
	int ncl;
	int sockets[16];	/* srvfix_socket's */
	int nsockets;
	int next_ip;		/* last byte of the next 127.0.0.N */
	char log[SRVFIX_LOG_LINES][SRVFIX_LOG_LEN];
	int log_count;		/* lines seen in all */
	/* a qwd child instead (srvfix_spawn): 0 none */
	int child;		/* its pid */
	int child_in;		/* its console, -1 closed */
	uint16_t child_port;
};

/* cmocka group set-up and tear-down: a fixture in *state, no server yet */
int srvfix_setup(void **state);
int srvfix_teardown(void **state);
/* per-test tear-down: clients and server gone, the base folder kept */
int srvfix_test_teardown(void **state);

/* a server with maxclients slots on "small", listening on 127.0.0.1 (a
 * running one and its clients are stopped first; srvfix_socket's stay) */
void srvfix_start(struct srvfix *f, int maxclients);
/* write text into DIR/rel (folders made as needed) */
void srvfix_write(struct srvfix *f, const char *rel, const char *text);

/* a client bound to ip (NULL: the next 127.0.0.N); not connecting yet */
struct srv_client *srvfix_client(struct srvfix *f, const char *ip,
				 const char *name, bool extension);
/* a stock client on the next address, connected and in the game (fails
 * the test when it is not within 5 s) */
struct srv_client *srvfix_player(struct srvfix *f, const char *name);
/* drop a client's socket and memory, keeping the others in place */
void srvfix_forget(struct srvfix *f, struct srv_client *c);

/* one server frame, then one turn of every client (send: clients send) */
void srvfix_step(struct srvfix *f, bool send);
/* step until c reaches state s (true) or seconds pass (false) */
bool srvfix_until(struct srvfix *f, struct srv_client *c, enum qwc_state s,
		  double seconds);
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
/* a UDP socket on ip (any port), closed with the fixture's test */
int srvfix_socket(struct srvfix *f, const char *ip);
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
