/*
 * test_hooks.c -- the features' registry (src/server/hooks.h): a feature
 * the test registers on a running server gets its hooks called at their
 * points, and its commands (console, client, connectionless) answered.
 *
 * Design note
 *   The feature here is the test's own, added after start-up as a real
 *   one is at registration: it counts each hook's calls in a file-static
 *   record (a hook is handed the server only, as every feature is), and
 *   the test drives the server with the fixture's clients and console
 *   and checks the counts against what happened: a frame, a level change
 *   with a client in it, a connect and a drop, a move, a print to
 *   everyone, a byte on a pipe the feature asked the frame's select() to
 *   watch.  A packet filter and an admission refusal are checked by what
 *   the sender gets (nothing; the refusal's text).
 */
#include "../harness.h"
#include "srvfix.h"

#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

static struct {
	int frame, upkeep, frame_end, frame_closed;
	int level_end, level_begin, level_client;
	int client_new, client_drop, userinfo, usercmd, message;
	int io_ready;		/* the pipe was readable */
	int pipe_rd;		/* -1: none */
	int hello, hello_args;	/* the client command and its argc */
	int knock;		/* the connectionless command */
	bool refuse;		/* admit refuses */
	char take_ip[32];	/* packets from this address are taken */
	int taken;
} seen;

static void h_frame(struct server *sv) { (void)sv; seen.frame++; }
static void h_upkeep(struct server *sv) { (void)sv; seen.upkeep++; }
static void h_frame_end(struct server *sv) { (void)sv; seen.frame_end++; }
static void h_frame_closed(struct server *sv) { (void)sv; seen.frame_closed++; }
static void h_level_end(struct server *sv) { (void)sv; seen.level_end++; }
static void h_level_begin(struct server *sv) { (void)sv; seen.level_begin++; }

static void h_level_client(struct server *sv, struct client *cl)
{
	(void)sv;
	(void)cl;
	seen.level_client++;
}

static void h_client_new(struct server *sv, struct client *cl)
{
	(void)sv;
	(void)cl;
	seen.client_new++;
}

static void h_client_drop(struct server *sv, struct client *cl)
{
	(void)sv;
	assert_true(cl->state >= CS_CONNECTED);	/* still in its slot */
	seen.client_drop++;
}

static void h_userinfo(struct server *sv, struct client *cl)
{
	(void)sv;
	(void)cl;
	seen.userinfo++;
}

static void h_usercmd(struct server *sv, struct client *cl,
		      const struct usercmd *cmd)
{
	(void)sv;
	(void)cl;
	(void)cmd;
	seen.usercmd++;
}

static void h_message(struct server *sv, int slot, uint32_t mask,
		      const void *data, size_t len)
{
	(void)sv;
	(void)slot;
	(void)mask;
	/* the print the test makes: svc_print, a level, "xyzzy" */
	if (len > 2 && memmem(data, len, "xyzzy", 5))
		seen.message++;
}

static void h_fds(struct server *sv, fd_set *r, fd_set *w, int *maxfd,
		  double *wait)
{
	(void)sv;
	(void)w;
	(void)wait;
	if (seen.pipe_rd < 0)
		return;
	FD_SET(seen.pipe_rd, r);
	if (seen.pipe_rd > *maxfd)
		*maxfd = seen.pipe_rd;
}

static void h_io(struct server *sv, const fd_set *r, const fd_set *w)
{
	char b;

	(void)sv;
	(void)w;
	if (seen.pipe_rd >= 0 && FD_ISSET(seen.pipe_rd, r) &&
	    read(seen.pipe_rd, &b, 1) == 1)
		seen.io_ready++;
}

static bool h_packet(struct server *sv, const struct net_addr *from,
		     const uint8_t *data, size_t len)
{
	char a[NET_ADDR_STRLEN];

	(void)sv;
	(void)data;
	(void)len;
	net_addr_format(from, a);
	if (seen.take_ip[0] && !strncmp(a, seen.take_ip, strlen(seen.take_ip)) &&
	    a[strlen(seen.take_ip)] == ':') {
		seen.taken++;
		return true;
	}
	return false;
}

static bool h_admit(struct server *sv, bool extended, char *why, size_t size)
{
	(void)sv;
	(void)extended;
	if (!seen.refuse)
		return true;
	snprintf(why, size, "the test says no");
	return false;
}

static const struct sv_feature counting = {
	.name = "test",
	.frame = h_frame,
	.upkeep = h_upkeep,
	.frame_end = h_frame_end,
	.frame_closed = h_frame_closed,
	.level_end = h_level_end,
	.level_begin = h_level_begin,
	.level_client = h_level_client,
	.client_new = h_client_new,
	.client_drop = h_client_drop,
	.userinfo = h_userinfo,
	.usercmd = h_usercmd,
	.message = h_message,
	.fds = h_fds,
	.io = h_io,
	.packet = h_packet,
	.admit = h_admit,
};

static void cmd_hello(struct server *sv, struct client *cl,
		      const struct net_args *a)
{
	seen.hello++;
	seen.hello_args = a->argc;
	sv_reliable_printf(cl, PRINT_HIGH, "hello %s\n", net_args_argv(a, 1));
	(void)sv;
}

static size_t oob_knock(struct server *sv, const struct net_addr *from,
			const struct net_args *args)
{
	static const char answer[] = "\xff\xff\xff\xffn" "come in\n";

	(void)args;
	seen.knock++;
	sv_send_raw(sv, from, answer, sizeof(answer) - 1);
	return sizeof(answer) - 1;
}

static void c_ping_test(struct server *sv, const struct net_args *a, FILE *out)
{
	(void)sv;
	fprintf(out, "pong %s\n", net_args_argv(a, 1));
}

static struct srvfix *start(void **state)
{
	struct srvfix *f = *state;

	memset(&seen, 0, sizeof(seen));
	seen.pipe_rd = -1;
	srvfix_start(f, 8);
	sv_feature_add(f->sv, &counting);
	return f;
}

static void test_hooks_at_their_points(void **state)
{
	struct srvfix *f = start(state);
	struct srv_client *c;
	char out[512], err[256];
	int p[2];

	c = srvfix_player(f, "hooked");
	assert_true(seen.client_new >= 1);	/* its signon's "new" */
	assert_true(seen.userinfo >= 1);	/* the connect's userinfo */
	srvfix_run(f, 0.5, true);
	assert_true(seen.frame > 0);
	assert_true(seen.upkeep > 0);
	assert_true(seen.usercmd > 0);		/* its moves */
	/* every frame ends once, before and after the profiler closes it */
	assert_int_equal(seen.frame_end, seen.frame);
	assert_int_equal(seen.frame_closed, seen.frame);

	srvfix_command(f, "say xyzzy", out, sizeof(out));
	assert_int_equal(seen.message, 1);

	/* a level change with a client in the game */
	assert_int_equal(server_map(f->sv, f->maps[1], err, sizeof(err)), 0);
	assert_int_equal(seen.level_end, 1);
	assert_int_equal(seen.level_begin, 1);
	assert_int_equal(seen.level_client, 1);

	/* a descriptor the feature watches through the frame's select() */
	assert_int_equal(pipe(p), 0);
	seen.pipe_rd = p[0];
	srvfix_step(f, false);
	assert_int_equal(seen.io_ready, 0);
	assert_int_equal(write(p[1], "x", 1), 1);
	srvfix_step(f, false);
	assert_int_equal(seen.io_ready, 1);
	seen.pipe_rd = -1;
	close(p[0]);
	close(p[1]);

	srvfix_command(f, "kick hooked", out, sizeof(out));
	assert_int_equal(seen.client_drop, 1);
	(void)c;
}

static void test_commands_registered(void **state)
{
	struct srvfix *f = start(state);
	struct srv_client *c;
	static char out[16384];
	int fd;

	sv_client_command_add(f->sv, "hello", cmd_hello, -1);
	sv_oob_command_add(f->sv, "knock", OOB_STATUS, oob_knock);
	sv_command_add(f->sv, "pingtest", c_ping_test, "the test's");

	c = srvfix_player(f, "caller");
	f->print_mark = "hello there";
	assert_true(qwc_stringcmd(&c->q, "hello there"));
	for (int i = 0; i < 100 && !c->marked_prints; i++)
		srvfix_step(f, true);
	assert_int_equal(seen.hello, 1);
	assert_int_equal(seen.hello_args, 2);
	assert_int_equal(c->marked_prints, 1);

	fd = srvfix_socket(f, NULL);
	assert_true(srvfix_oob_text(f, fd, "knock", out, sizeof(out)) > 0);
	assert_int_equal(seen.knock, 1);
	assert_string_equal(out, "ncome in\n");

	srvfix_command(f, "pingtest 7", out, sizeof(out));
	assert_string_equal(out, "pong 7\n");
	srvfix_command(f, "help", out, sizeof(out));
	assert_non_null(strstr(out, "pingtest"));
}

static void test_packet_filter_and_admission(void **state)
{
	struct srvfix *f = start(state);
	char reply[256];
	int taken_fd, other_fd;

	taken_fd = srvfix_socket(f, "127.0.0.77");
	other_fd = srvfix_socket(f, "127.0.0.78");
	strcpy(seen.take_ip, "127.0.0.77");
	/* the filter takes the one address's datagrams, no other's */
	assert_int_equal(srvfix_oob_text(f, taken_fd, "status", reply, sizeof(reply)), 0);
	assert_true(seen.taken >= 1);
	assert_true(srvfix_oob_text(f, other_fd, "status", reply, sizeof(reply)) > 0);

	seen.refuse = true;
	srvfix_connect_udp(f, PROTOCOL_VERSION, false, false, reply, sizeof(reply));
	assert_non_null(strstr(reply, "the test says no"));
	seen.refuse = false;
	srvfix_connect_udp(f, PROTOCOL_VERSION, false, false, reply, sizeof(reply));
	assert_int_equal(reply[0], S2C_CONNECTION);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_hooks_at_their_points, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_commands_registered, srvfix_test_teardown),
	cmocka_unit_test_teardown(test_packet_filter_and_admission, srvfix_test_teardown),
};

QWD_TEST_GROUP(hooks, tests, srvfix_setup, srvfix_teardown)
