/*
 * hooks.c -- the registry of the server's features and the core's calls
 * of their hooks (hooks.h says what each hook is for).
 *
 * Design note
 *   A base file: it knows struct server only for the registry it holds
 *   (sv->hooks) and calls nothing of the server but what the features
 *   registered.  Each sv_hooks_X walks the features in registration order
 *   and calls those that set X: registration files each feature under the
 *   hooks it sets (sv_hooks.on), so a per-packet or per-reply hook costs
 *   a loop over the features that want it, nothing when none do.  The
 *   tables are filled once at start-up; a full one is a programming
 *   error (raise its limit in hooks.h).
 */
#include "base.h"

#include <stdlib.h>
#include <string.h>

/* every registered feature f that set hook h, in registration order */
#define EACH(sv, f, h)                                                       \
	for (int i_ = 0; i_ < (sv)->hooks.on.h.n; i_++)                       \
		for (const struct sv_feature *f = (sv)->hooks.on.h.f[i_]; f;  \
		     f = NULL)

/* SV_HOOK_NAMES names every hook of struct sv_feature (its name and
 * one function pointer per hook) */
#define SV_HOOK_COUNT(h) +1
_Static_assert(sizeof(struct sv_feature) ==
		       sizeof(const char *) +
			       (0 SV_HOOK_NAMES(SV_HOOK_COUNT)) * sizeof(void (*)(void)),
	       "SV_HOOK_NAMES lists every hook of struct sv_feature");
#undef SV_HOOK_COUNT

void sv_feature_add(struct server *sv, const struct sv_feature *f)
{
	if (sv->hooks.num_features == SV_FEATURES_MAX)
		abort();	/* a programming error: raise SV_FEATURES_MAX */
	sv->hooks.num_features++;
#define SV_HOOK_ADD(h)                                                        \
	if (f->h)                                                             \
		sv->hooks.on.h.f[sv->hooks.on.h.n++] = f;
	SV_HOOK_NAMES(SV_HOOK_ADD)
#undef SV_HOOK_ADD
}

struct sv_client_command *sv_client_command_add(struct server *sv,
						const char *name,
			   void (*fn)(struct server *, struct client *,
				      const struct net_args *),
			   int budget)
{
	/* the core's signon and leaving (user.c's dispatch): a feature's
	 * command of one of these names would be found first and break
	 * every join (registering "spawn" once did); say and pause may be
	 * taken over on purpose (the match's mute and KTX's pause) */
	static const char *const core[] = {
		"new", "soundlist", "modellist", "prespawn", "spawn", "begin",
		"drop"
	};
	struct sv_client_command *c;

	for (size_t i = 0; i < sizeof(core) / sizeof(core[0]); i++)
		if (!strcmp(name, core[i]))
			abort();	/* a programming error: another name */
	if (sv->hooks.num_client_cmds == SV_CLIENT_COMMANDS_MAX)
		abort();	/* a programming error: raise the limit */
	c = &sv->hooks.client_cmds[sv->hooks.num_client_cmds++];
	c->name = name;
	c->fn = fn;
	c->budget = budget;
	c->refused = NULL;
	return c;
}

void sv_oob_command_add(struct server *sv, const char *name, int kind,
			size_t (*fn)(struct server *, const struct net_addr *,
				     const struct net_args *))
{
	struct sv_oob_command *c;

	if (sv->hooks.num_oob_cmds == SV_OOB_COMMANDS_MAX)
		abort();	/* a programming error: raise the limit */
	c = &sv->hooks.oob_cmds[sv->hooks.num_oob_cmds++];
	c->name = name;
	c->kind = kind;
	c->fn = fn;
}

const struct sv_client_command *sv_client_command_find(const struct server *sv,
						       const char *name)
{
	for (int i = 0; i < sv->hooks.num_client_cmds; i++)
		if (!strcmp(sv->hooks.client_cmds[i].name, name))
			return &sv->hooks.client_cmds[i];
	return NULL;
}

const struct sv_oob_command *sv_oob_command_find(const struct server *sv,
						 const char *name)
{
	for (int i = 0; i < sv->hooks.num_oob_cmds; i++)
		if (!strcmp(sv->hooks.oob_cmds[i].name, name))
			return &sv->hooks.oob_cmds[i];
	return NULL;
}

int sv_hooks_start(struct server *sv)
{
	EACH(sv, f, start)
		if (f->start(sv) != 0)
			return -1;
	return 0;
}

void sv_hooks_fds(struct server *sv, fd_set *r, fd_set *w, int *maxfd,
		  double *wait)
{
	EACH(sv, f, fds)
		f->fds(sv, r, w, maxfd, wait);
}

void sv_hooks_io(struct server *sv, const fd_set *r, const fd_set *w)
{
	EACH(sv, f, io)
		f->io(sv, r, w);
}

bool sv_hooks_packet(struct server *sv, const struct net_addr *from,
		     const uint8_t *data, size_t len)
{
	EACH(sv, f, packet)
		if (f->packet(sv, from, data, len))
			return true;
	return false;
}

bool sv_hooks_admit(struct server *sv, bool extended, char *why, size_t size)
{
	EACH(sv, f, admit)
		if (!f->admit(sv, extended, why, size))
			return false;
	return true;
}

size_t sv_hooks_datagram(struct server *sv, struct client *cl,
			 struct msg_buf *m)
{
	size_t n = 0;

	EACH(sv, f, datagram)
		n += f->datagram(sv, cl, m);
	return n;
}

void sv_hooks_replies_sent(struct server *sv)
{
	EACH(sv, f, replies_sent)
		f->replies_sent(sv);
}

void sv_hooks_frame(struct server *sv)
{
	EACH(sv, f, frame)
		f->frame(sv);
}

void sv_hooks_upkeep(struct server *sv)
{
	EACH(sv, f, upkeep)
		f->upkeep(sv);
}

void sv_hooks_frame_end(struct server *sv)
{
	EACH(sv, f, frame_end)
		f->frame_end(sv);
}

void sv_hooks_frame_closed(struct server *sv)
{
	EACH(sv, f, frame_closed)
		f->frame_closed(sv);
}

void sv_hooks_pool_ran(struct server *sv, uint64_t ns)
{
	EACH(sv, f, pool_ran)
		f->pool_ran(sv, ns);
}

void sv_hooks_level_end(struct server *sv)
{
	EACH(sv, f, level_end)
		f->level_end(sv);
}

void sv_hooks_level_begin(struct server *sv)
{
	EACH(sv, f, level_begin)
		f->level_begin(sv);
}

void sv_hooks_level_client(struct server *sv, struct client *cl)
{
	EACH(sv, f, level_client)
		f->level_client(sv, cl);
}

void sv_hooks_client_drop(struct server *sv, struct client *cl)
{
	EACH(sv, f, client_drop)
		f->client_drop(sv, cl);
}

void sv_hooks_client_new(struct server *sv, struct client *cl)
{
	EACH(sv, f, client_new)
		f->client_new(sv, cl);
}

void sv_hooks_userinfo(struct server *sv, struct client *cl)
{
	EACH(sv, f, userinfo)
		f->userinfo(sv, cl);
}

void sv_hooks_usercmd(struct server *sv, struct client *cl,
		      const struct usercmd *cmd)
{
	EACH(sv, f, usercmd)
		f->usercmd(sv, cl, cmd);
}

void sv_hooks_message(struct server *sv, int slot, uint32_t mask,
		      const void *data, size_t len)
{
	EACH(sv, f, message)
		f->message(sv, slot, mask, data, len);
}

void sv_hooks_setangle(struct server *sv, int slot, const vec3_t angles)
{
	EACH(sv, f, setangle)
		f->setangle(sv, slot, angles);
}

void sv_hooks_frag(struct server *sv, int killer, int victim)
{
	EACH(sv, f, frag)
		f->frag(sv, killer, victim);
}

bool sv_hooks_allowed(struct server *sv, const char *name)
{
	EACH(sv, f, allowed)
		if (!f->allowed(sv, name))
			return false;
	return true;
}

bool sv_hooks_unknown(struct server *sv, const char *name, FILE *out)
{
	EACH(sv, f, unknown)
		if (f->unknown(sv, name, out))
			return true;
	return false;
}

void sv_hooks_help(struct server *sv, FILE *out)
{
	EACH(sv, f, help)
		f->help(out);
}

void sv_hooks_stop(struct server *sv)
{
	EACH(sv, f, stop)
		f->stop(sv);
}

void sv_hooks_free(struct server *sv)
{
	EACH(sv, f, free)
		f->free(sv);
}
