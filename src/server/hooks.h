/*
 * src/server/hooks.h -- what an operator feature gives the server's core:
 * the one way the core reaches a feature.
 *
 * Design note
 *   The server module has three layers (docs/ARCHITECTURE.md, "Inside the
 *   server"): the base (cvar.c, hooks.c, loglimit.c, io.c: the cvar and
 *   command tables, this registry, rate-limited logging, the socket's
 *   send and the clock), the core (the frame, clients and their sessions,
 *   receive, execute, send, the level) and the features (console
 *   commands, bans, logs, demos and QTV, masters, downloads, rcon, compat,
 *   overload, the predicted pool, cmdrecord, stats, metrics, agones).  A feature
 *   calls the core; the core never calls a feature by name.  Instead each
 *   feature, at start-up (server.c, the module's top, lists them),
 *   registers its cvars and commands (cvar.c), its client and
 *   connectionless commands (below) and one struct sv_feature: the hooks
 *   it wants, any of them NULL.  The core calls every registered
 *   feature's hook at its point, in registration order.
 *
 *   The hooks are the points where the core used to call a feature: the
 *   frame's select and its upkeep, the level's end and start, a client's
 *   drop and userinfo, every received packet (a filter), a connect's
 *   admission, each reply's room for a feature's bytes, the messages the
 *   clients are sent (the demo's record of them), a frag, a move about to
 *   run, a pool run's time, shutdown.  Each hook's comment says what it may
 *   do there.  A hook runs on the frame's thread, never inside the
 *   parallel phases' workers.
 *
 *   The registry is a fixed array in struct server (SV_FEATURES_MAX):
 *   registered once at start-up, read every frame, never allocated.
 */
#ifndef QWD_SERVER_HOOKS_H
#define QWD_SERVER_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/select.h>

#include "qwd/common.h"
#include "qwd/net.h"
#include "qwd/protocol.h"

struct server;
struct client;
struct msg_buf;
struct usercmd;

enum {
	SV_FEATURES_MAX = 32,
	SV_CLIENT_COMMANDS_MAX = 64,
	SV_OOB_COMMANDS_MAX = 8
};

struct sv_feature {
	const char *name;
	/* after every feature registered and the socket is bound (no level
	 * yet): -1 ends the start-up (the reason logged) */
	int (*start)(struct server *sv);
	/* the frame's wait: descriptors for its select() (set in r or w,
	 * *maxfd raised) and *wait lowered when the feature needs to run
	 * sooner; then, after the wait, its run over what select found */
	void (*fds)(struct server *sv, fd_set *r, fd_set *w, int *maxfd,
		    double *wait);
	void (*io)(struct server *sv, const fd_set *r, const fd_set *w);
	/* a received datagram, before anything reads it: true takes it (it
	 * goes no further: a refused address, a master's answer) */
	bool (*packet)(struct server *sv, const struct net_addr *from,
		       const uint8_t *data, size_t len);
	/* may a connect come in now (false: refused, why says so) */
	bool (*admit)(struct server *sv, bool extended, char *why, size_t size);
	/* a reply is being built for cl: the feature's bytes into m (after
	 * the game's); returns the bytes added */
	size_t (*datagram)(struct server *sv, struct client *cl,
			   struct msg_buf *m);
	/* after the replies, into the same send batch (downloads' chunks
	 * out of band) */
	void (*replies_sent)(struct server *sv);
	/* once a frame, after the replies: the feature's own work */
	void (*frame)(struct server *sv);
	/* every tenth of a second or so: expiries, heartbeats, re-reads */
	void (*upkeep)(struct server *sv);
	/* the frame's end, before the profiler closes it (sv->frame_start,
	 * sv->frame_backlog say when it began and whether the receive left
	 * packets waiting); and after (prof_frame_end: its figures final) */
	void (*frame_end)(struct server *sv);
	void (*frame_closed)(struct server *sv);
	/* a pool run of a parallel phase took ns of wall time */
	void (*pool_ran)(struct server *sv, uint64_t ns);
	/* the level is about to be replaced; a new one has loaded (its
	 * signon built, the clients told to reconnect); for each client
	 * that stays through it */
	void (*level_end)(struct server *sv);
	void (*level_begin)(struct server *sv);
	void (*level_client)(struct server *sv, struct client *cl);
	/* cl is being dropped (still in its slot); it (re)starts its signon
	 * ("new"); its userinfo changed */
	void (*client_drop)(struct server *sv, struct client *cl);
	void (*client_new)(struct server *sv, struct client *cl);
	void (*userinfo)(struct server *sv, struct client *cl);
	/* cl's move is about to run */
	void (*usercmd)(struct server *sv, struct client *cl,
			const struct usercmd *cmd);
	/* a message the clients were sent: to slot's view alone (slot >= 0),
	 * or the views of the players in mask (bit N: slot N), or everyone's
	 * (slot < 0, mask 0); the angles a player was turned to */
	void (*message)(struct server *sv, int slot, uint32_t mask,
			const void *data, size_t len);
	void (*setangle)(struct server *sv, int slot, const vec3_t angles);
	/* killer fragged victim (the same slot: a suicide) */
	void (*frag)(struct server *sv, int killer, int victim);
	/* a console or rcon line names `name`, a command or cvar, while a
	 * line from rcon runs: false refuses it */
	bool (*allowed)(struct server *sv, const char *name);
	/* a console line named nothing registered: true when the feature
	 * answered it (on out) */
	bool (*unknown)(struct server *sv, const char *name, FILE *out);
	/* the console's "help": the feature's extra lines */
	void (*help)(FILE *out);
	/* shutdown: after the clients were dropped, before the core frees
	 * its state (stop); the feature's memory (free, also after a failed
	 * start) */
	void (*stop)(struct server *sv);
	void (*free)(struct server *sv);
};

/* A client's string command a feature answers ("download", "ptrack"):
 * budget is the command budget it is charged to besides the general one
 * (enum sv_budget_kind; -1: none at all); refused, when set, answers a
 * command its budget refused (a client waits for a download's answer). */
struct sv_client_command {
	const char *name;
	void (*fn)(struct server *sv, struct client *cl,
		   const struct net_args *a);
	int budget;
	void (*refused)(struct server *sv, struct client *cl,
			const struct net_args *a);
};

/* A connectionless command ("rcon"): the bytes sent in answer. */
struct sv_oob_command {
	const char *name;
	int kind;			/* enum oob_kind: its budget */
	size_t (*fn)(struct server *sv, const struct net_addr *from,
		     const struct net_args *args);
};

/* the registry, in struct server */
/* every hook of struct sv_feature, in its order */
#define SV_HOOK_NAMES(X)                                                      \
	X(start) X(fds) X(io) X(packet) X(admit) X(datagram) X(replies_sent) \
	X(frame) X(upkeep) X(frame_end) X(frame_closed) X(pool_ran)          \
	X(level_end) X(level_begin) X(level_client) X(client_drop)           \
	X(client_new) X(userinfo) X(usercmd) X(message) X(setangle) X(frag)  \
	X(allowed) X(unknown) X(help) X(stop) X(free)

/* the features that set one hook, in registration order */
struct sv_hook_list {
	const struct sv_feature *f[SV_FEATURES_MAX];
	int n;
};

struct sv_hooks {
	int num_features;
	/* one list per hook, filled at registration: a call walks only the
	 * features that set its hook (the per-packet and per-reply hooks
	 * are called tens of thousands of times a second) */
#define SV_HOOK_LIST_FIELD(h) struct sv_hook_list h;
	struct {
		SV_HOOK_NAMES(SV_HOOK_LIST_FIELD)
	} on;
#undef SV_HOOK_LIST_FIELD
	struct sv_client_command client_cmds[SV_CLIENT_COMMANDS_MAX];
	int num_client_cmds;
	struct sv_oob_command oob_cmds[SV_OOB_COMMANDS_MAX];
	int num_oob_cmds;
	/* the core's own: a serverinfo cvar changed (cvar.c calls it; the
	 * core tells the clients in the game) */
	void (*serverinfo)(struct server *sv, const char *key,
			   const char *value);
};

/* registration (start-up); a full table is a programming error (abort);
 * a client command's entry is returned for its optional fields */
void sv_feature_add(struct server *sv, const struct sv_feature *f);
struct sv_client_command *sv_client_command_add(struct server *sv,
						const char *name,
			   void (*fn)(struct server *, struct client *,
				      const struct net_args *),
			   int budget);
void sv_oob_command_add(struct server *sv, const char *name, int kind,
			size_t (*fn)(struct server *, const struct net_addr *,
				     const struct net_args *));
const struct sv_client_command *sv_client_command_find(const struct server *sv,
						       const char *name);
const struct sv_oob_command *sv_oob_command_find(const struct server *sv,
						 const char *name);

/* the core's calls of the hooks (hooks.c), one per hook */
int sv_hooks_start(struct server *sv);
void sv_hooks_fds(struct server *sv, fd_set *r, fd_set *w, int *maxfd,
		  double *wait);
void sv_hooks_io(struct server *sv, const fd_set *r, const fd_set *w);
bool sv_hooks_packet(struct server *sv, const struct net_addr *from,
		     const uint8_t *data, size_t len);
bool sv_hooks_admit(struct server *sv, bool extended, char *why, size_t size);
size_t sv_hooks_datagram(struct server *sv, struct client *cl,
			 struct msg_buf *m);
void sv_hooks_replies_sent(struct server *sv);
void sv_hooks_frame(struct server *sv);
void sv_hooks_upkeep(struct server *sv);
void sv_hooks_frame_end(struct server *sv);
void sv_hooks_frame_closed(struct server *sv);
void sv_hooks_pool_ran(struct server *sv, uint64_t ns);
void sv_hooks_level_end(struct server *sv);
void sv_hooks_level_begin(struct server *sv);
void sv_hooks_level_client(struct server *sv, struct client *cl);
void sv_hooks_client_drop(struct server *sv, struct client *cl);
void sv_hooks_client_new(struct server *sv, struct client *cl);
void sv_hooks_userinfo(struct server *sv, struct client *cl);
void sv_hooks_usercmd(struct server *sv, struct client *cl,
		      const struct usercmd *cmd);
void sv_hooks_message(struct server *sv, int slot, uint32_t mask,
		      const void *data, size_t len);
void sv_hooks_setangle(struct server *sv, int slot, const vec3_t angles);
void sv_hooks_frag(struct server *sv, int killer, int victim);
bool sv_hooks_allowed(struct server *sv, const char *name);
bool sv_hooks_unknown(struct server *sv, const char *name, FILE *out);
void sv_hooks_help(struct server *sv, FILE *out);
void sv_hooks_stop(struct server *sv);
void sv_hooks_free(struct server *sv);

#endif
