/*
 * parse.c -- reading the svc messages of a server's reply.
 *
 * Design note
 *   Every message of protocol 28 (id's QW/client/cl_parse.c layouts) and of
 *   qwd's extension (docs/protocol-extension.md) is read far enough to find
 *   the next one; what the load generator and the tests need is kept
 *   (player number, serverdata, lists, stats, prints, player infos, packet
 *   entities), the rest is passed over by its layout (qwc_svc_skip,
 *   svc.c, the project's one walker of svc layouts) and counted.  A
 *   message cut short, an unknown svc byte or a number out of range ends
 *   the parse of the packet (there is no way to find the next message
 *   after an unknown one) and is counted by kind; nothing is read outside
 *   the payload (msg_* bounds).
 *
 *   Packet entities: a reply's list is a delta against the frame named by
 *   svc_deltapacketentities (or against nothing, for svc_packetentities);
 *   entities new to the list start from their baseline.  Frames live in
 *   frames[sequence & UPDATE_MASK]; a delta from a frame we no longer hold
 *   (or never had) is parsed to its end, counted, and the frame is marked
 *   invalid so the next request asks for a full update (no clc_delta).
 *   Stock layout of one update: short word (number in the low 9 bits,
 *   flags above), [byte more flags], [model] [frame] [colormap] [skin]
 *   [effects] [origin0 angle0 origin1 angle1 origin2 angle2] as flagged.
 */
#include "internal.h"

#include <string.h>

#include <bsd/string.h>

/* what this connection negotiated, for the walker (svc.c) */
static unsigned svc_form(const struct qwc *c)
{
	return (c->extended ? QWC_SVC_QWDX : 0) |
	       (c->fte_server & FTE_PEXT_CHUNKEDDOWNLOADS ? QWC_SVC_CHUNKED : 0);
}

static struct qwc_player *player_at(struct qwc *c, int slot)
{
	if (slot < 0 || slot >= c->opt.max_players) {
		c->stats.players_untracked++;
		return NULL;
	}
	return &c->players[slot];
}

/* ---- signon messages -------------------------------------------------- */

static bool parse_serverdata(struct qwc *c, struct msg_buf *m)
{
	int32_t protocol = msg_read_long(m);

	/* FTE's extensions in force come first, as a tag and the flags */
	c->fte_server = 0;
	while (!m->badread && (uint32_t)protocol == PROTOCOL_VERSION_FTE) {
		c->fte_server = (uint32_t)msg_read_long(m);
		protocol = msg_read_long(m);
	}
	if (m->badread)
		return false;
	if (protocol != PROTOCOL_VERSION) {
		c->stats.bad[QWC_BAD_SIGNON]++;
		return false;
	}
	c->protocol = protocol;
	c->paused = false;
	c->servercount = msg_read_long(m);
	msg_read_string(m, c->gamedir, sizeof(c->gamedir));
	/* the extension widens the player number to a short; the client
	 * knows it asked, which is how it knows to read a short */
	if (c->opt.extension) {
		int v = msg_read_short(m) & 0xffff;

		c->extended = true;
		c->playernum = v & 0x7fff;
		c->spectator = (v & 0x8000) != 0;
	} else {
		int v = msg_read_byte(m);

		c->extended = false;
		c->playernum = v & 127;
		c->spectator = (v & 128) != 0;
	}
	msg_read_string(m, c->levelname, sizeof(c->levelname));
	for (int i = 0; i < 10; i++)
		c->movevars[i] = msg_read_float(m);
	if (m->badread)
		return false;
	memset(c->lightstyles, 0, sizeof(c->lightstyles));	/* a new level's */
	qwc_signon_serverdata(c);
	return true;
}

int qwc_read_list(struct msg_buf *m, char *first, size_t size, int *next)
{
	int n = msg_read_byte(m);
	char name[64];

	for (;;) {
		size_t len = msg_read_string(m, name, sizeof(name));

		if (m->badread)
			return -1;
		if (len == 0)
			break;
		n++;
		if (first && n == 1)
			strlcpy(first, name, size);
		if (n > 255)
			return -1;
	}
	*next = msg_read_byte(m);
	return m->badread ? -1 : n;
}

static bool parse_list(struct qwc *c, struct msg_buf *m, bool models)
{
	int next, n = qwc_read_list(m, models ? c->mapmodel : NULL,
				    sizeof(c->mapmodel), &next);

	if (n < 0) {
		if (!m->badread)
			c->stats.bad[QWC_BAD_RANGE]++;
		return false;
	}
	if (models)
		c->models = n;
	else
		c->sounds = n;
	if (c->state == QWC_CONNECTED)
		qwc_signon_list(c, models, next);
	else
		c->stats.bad[QWC_BAD_SIGNON]++;
	return true;
}

void qwc_read_baseline(struct msg_buf *m, int num, struct qwc_entity *e)
{
	memset(e, 0, sizeof(*e));
	e->number = (uint16_t)num;
	e->modelindex = (uint8_t)msg_read_byte(m);
	e->frame = (uint8_t)msg_read_byte(m);
	e->colormap = (uint8_t)msg_read_byte(m);
	e->skinnum = (uint8_t)msg_read_byte(m);
	for (int k = 0; k < 3; k++) {
		e->origin[k] = (int16_t)msg_read_short(m);
		e->angles[k] = (uint8_t)msg_read_byte(m);
	}
}

static bool parse_baseline(struct qwc *c, struct msg_buf *m, int num)
{
	struct qwc_entity e;

	qwc_read_baseline(m, num, &e);
	if (m->badread)
		return false;
	if (num >= 0 && c->baselines) {
		if (num < c->opt.max_baselines)
			c->baselines[num] = e;
		else
			c->stats.bad[QWC_BAD_RANGE]++;
	}
	return true;
}

/* ---- players ---------------------------------------------------------- */

/* the slot a player message names, once the message read whole: a stock
 * (narrow) message may not name a slot past protocol 28's 32 (counted) */
static bool slot_ok(struct qwc *c, const struct msg_buf *m, int slot, bool wide)
{
	if (m->badread)
		return false;
	if (!wide && slot >= MAX_CLIENTS) {
		c->stats.bad[QWC_BAD_RANGE]++;
		return false;
	}
	return true;
}

static bool parse_playerinfo(struct qwc *c, struct msg_buf *m, bool wide)
{
	static const struct usercmd nullcmd;
	int slot = wide ? (msg_read_short(m) & 0xffff) : msg_read_byte(m);
	int flags = msg_read_short(m) & 0xffff;
	vec3_t org;
	struct usercmd cmd;

	for (int k = 0; k < 3; k++)
		org[k] = msg_read_coord(m);
	msg_read_byte(m);	/* frame */
	if (flags & PF_MSEC)
		msg_read_byte(m);
	if (flags & PF_COMMAND)
		msg_read_delta_usercmd(m, &nullcmd, &cmd);
	for (int k = 0; k < 3; k++)
		if (flags & (PF_VELOCITY1 << k))
			msg_read_short(m);
	if (flags & PF_MODEL)
		msg_read_byte(m);
	if (flags & PF_SKINNUM)
		msg_read_byte(m);
	if (flags & PF_EFFECTS)
		msg_read_byte(m);
	if (flags & PF_WEAPONFRAME)
		msg_read_byte(m);
	if (!slot_ok(c, m, slot, wide))
		return false;
	c->stats.playerinfos++;
	if (c->num_seen < QWC_MAX_REPLY_PLAYERS) {
		struct qwc_seen *s = &c->seen[c->num_seen++];

		s->slot = (uint16_t)slot;
		s->flags = (uint16_t)flags;
		vec_copy(org, s->origin);
	}
	c->total_seen++;
	if (slot == c->playernum) {
		c->self_seen = true;
		vec_copy(org, c->self_origin);
		c->self_seen_sequence = c->chan.incoming_sequence;
		if (c->state == QWC_SPAWNED)
			c->state = QWC_ACTIVE;
	}
	struct qwc_player *p = player_at(c, slot);
	if (p) {
		p->seen_count++;
		p->seen_sequence = c->chan.incoming_sequence;
		p->flags = (uint16_t)flags;
		vec_copy(org, p->origin);
	}
	return true;
}

static bool parse_userinfo(struct qwc *c, struct msg_buf *m, bool wide)
{
	int slot = wide ? (msg_read_short(m) & 0xffff) : msg_read_byte(m);
	int32_t userid = msg_read_long(m);
	char info[MAX_INFO_STRING];
	struct qwc_player *p;

	msg_read_string(m, info, sizeof(info));
	if (!slot_ok(c, m, slot, wide))
		return false;
	p = player_at(c, slot);
	if (p) {
		p->userid = userid;
		p->present = info[0] != '\0';
		p->info_updates++;
		info_value_for_key(info, "name", p->name, sizeof(p->name));
	}
	return true;
}

/* updatefrags, updateping, updatepl, updateentertime (narrow or wide) */
static bool parse_client_value(struct qwc *c, struct msg_buf *m, int what,
			       bool wide)
{
	int slot = wide ? (msg_read_short(m) & 0xffff) : msg_read_byte(m);
	int v = 0;
	struct qwc_player *p;

	switch (what) {
	case svc_updatefrags:
	case svc_updateping:
		v = msg_read_short(m);
		break;
	case svc_updatepl:
		v = msg_read_byte(m);
		break;
	default:
		msg_read_float(m);
		break;
	}
	if (!slot_ok(c, m, slot, wide))
		return false;
	p = player_at(c, slot);
	if (p) {
		if (what == svc_updatefrags)
			p->frags = (int16_t)v;
		else if (what == svc_updateping)
			p->ping = (int16_t)v;
		else if (what == svc_updatepl)
			p->pl = (uint8_t)v;
	}
	return true;
}

/* ---- packet entities -------------------------------------------------- */

void qwc_read_delta(struct msg_buf *m, int bits, struct qwc_entity *e)
{
	if (bits & U_MOREBITS)
		bits |= msg_read_byte(m);
	if (bits & U_MODEL)
		e->modelindex = (uint8_t)msg_read_byte(m);
	if (bits & U_FRAME)
		e->frame = (uint8_t)msg_read_byte(m);
	if (bits & U_COLORMAP)
		e->colormap = (uint8_t)msg_read_byte(m);
	if (bits & U_SKIN)
		e->skinnum = (uint8_t)msg_read_byte(m);
	if (bits & U_EFFECTS)
		e->effects = (uint8_t)msg_read_byte(m);
	if (bits & U_ORIGIN1)
		e->origin[0] = (int16_t)msg_read_short(m);
	if (bits & U_ANGLE1)
		e->angles[0] = (uint8_t)msg_read_byte(m);
	if (bits & U_ORIGIN2)
		e->origin[1] = (int16_t)msg_read_short(m);
	if (bits & U_ANGLE2)
		e->angles[1] = (uint8_t)msg_read_byte(m);
	if (bits & U_ORIGIN3)
		e->origin[2] = (int16_t)msg_read_short(m);
	if (bits & U_ANGLE3)
		e->angles[2] = (uint8_t)msg_read_byte(m);
}

struct ent_list {
	struct qwc_entity *ents;	/* NULL: parse only */
	int num, max;
	bool overflow, disorder;
	int last;
};

static void list_add(struct ent_list *l, const struct qwc_entity *e)
{
	if (e->number <= l->last && l->num > 0)
		l->disorder = true;
	l->last = e->number;
	if (!l->ents)
		return;
	if (l->num >= l->max) {
		l->overflow = true;
		return;
	}
	l->ents[l->num++] = *e;
}

static struct qwc_entity baseline_of(const struct qwc *c, int num)
{
	struct qwc_entity e;

	if (c->baselines && num < c->opt.max_baselines) {
		e = c->baselines[num];
	} else {
		memset(&e, 0, sizeof(e));
	}
	e.number = (uint16_t)num;
	return e;
}

static bool parse_packetentities(struct qwc *c, struct msg_buf *m,
				 bool delta, bool wide)
{
	const struct qwc_entity_frame *old = NULL;
	struct qwc_entity_frame *nf = NULL;
	struct ent_list out = {0};
	bool old_ok = !delta;
	int oldi = 0, oldn = 0;
	int max = c->extended ? QWDX_MAX_PACKET_ENTITIES : MAX_PACKET_ENTITIES;
	uint32_t seq = c->chan.incoming_sequence;

	c->stats.packetentities++;
	if (delta) {
		int from = msg_read_byte(m);

		c->stats.deltas++;
		if (m->badread)
			return false;
		{
			int i = from & UPDATE_MASK;
			uint32_t fs = c->frame_seq[i];

			if (c->frame_ok[i] && (fs & 0xff) == (uint32_t)from &&
			    seq - fs < UPDATE_BACKUP - 1 && fs != seq) {
				old_ok = true;
				if (c->frames) {
					old = &c->frames[i];
					oldn = old->num;
				}
			}
		}
		if (!old_ok)
			c->stats.bad[QWC_BAD_DELTA]++;
	}
	c->frame_ok[seq & UPDATE_MASK] = false;
	if (c->frames) {
		nf = &c->frames[seq & UPDATE_MASK];
		nf->valid = false;
		out.ents = nf->ents;
		out.max = max < QWC_MAX_FRAME_ENTITIES ? max : QWC_MAX_FRAME_ENTITIES;
	}
	for (;;) {
		int word = msg_read_short(m) & 0xffff;
		int num, bits;

		if (m->badread)
			return false;
		if (wide) {
			if (word == 0)
				break;
			bits = word & ~511;
			num = msg_read_short(m) & 0xffff;
			if (m->badread)
				return false;
		} else {
			if (word == 0)
				break;
			bits = word & ~511;
			num = word & 511;
		}
		/* old entities before this one are unchanged */
		while (old && oldi < oldn && old->ents[oldi].number < num)
			list_add(&out, &old->ents[oldi++]);
		if (bits & U_REMOVE) {
			if (old && oldi < oldn && old->ents[oldi].number == num)
				oldi++;
			else if (old)
				c->stats.bad[QWC_BAD_ENTITIES]++;	/* nothing to remove */
			continue;
		}
		struct qwc_entity e;

		if (old && oldi < oldn && old->ents[oldi].number == num)
			e = old->ents[oldi++];
		else
			e = baseline_of(c, num);
		qwc_read_delta(m, bits, &e);
		if (m->badread)
			return false;
		list_add(&out, &e);
	}
	while (old && oldi < oldn)
		list_add(&out, &old->ents[oldi++]);
	if (out.overflow || out.disorder) {
		c->stats.bad[QWC_BAD_ENTITIES]++;
		old_ok = false;
	}
	if (nf) {
		nf->num = (uint16_t)out.num;
		nf->sequence = seq;
		nf->valid = old_ok;
	}
	c->frame_seq[seq & UPDATE_MASK] = seq;
	c->frame_ok[seq & UPDATE_MASK] = old_ok;
	/* a bad base: ask for a full update next */
	c->valid_sequence = old_ok ? seq : 0;
	return true;
}

/* ---- everything else -------------------------------------------------- */

static bool parse_temp_entity(struct qwc *c, struct msg_buf *m)
{
	int raw = msg_read_remaining(m) ? m->data[m->readpos] : -1;
	int type = qwc_skip_temp_entity(m);

	c->stats.temp_entities++;
	c->stats.last_temp_entity = raw;
	return type >= 0 && !m->badread;
}

/* text: len bytes and a NUL (msg_read_string's answer); a crowd's
 * obituaries come to every player, so the copy is one memcpy */
static void print_text(struct qwc *c, int level, const char *text, size_t len)
{
	size_t n = len < sizeof(c->last_print) - 1 ? len :
		   sizeof(c->last_print) - 1;

	c->stats.prints++;
	memcpy(c->last_print, text, n);
	c->last_print[n] = '\0';
	if (c->opt.on_print)
		c->opt.on_print(c->opt.ctx, c, level, text);
}

/* One message.  Returns false to stop the parse (bad, counted, or an
 * svc_disconnect). */
static bool parse_one(struct qwc *c, struct msg_buf *m, int svc)
{
	char text[1024];
	size_t len;
	int v;

	switch (svc) {
	case svc_nop:
		return true;
	case svc_disconnect:
		c->stats.disconnects++;
		c->state = QWC_DROPPED;
		strlcpy(c->reason, "server disconnected", sizeof(c->reason));
		return false;
	case svc_updatestat:
	case svc_updatestatlong:
		v = msg_read_byte(m);
		{
			int32_t value = svc == svc_updatestat ? msg_read_byte(m)
							      : msg_read_long(m);

			if (m->badread) {
				c->stats.bad[QWC_BAD_TRUNCATED]++;
				return false;
			}
			if (v >= MAX_CL_STATS) {
				c->stats.bad[QWC_BAD_RANGE]++;
				return false;
			}
			c->stat[v] = value;
		}
		return true;
	case svc_sound:
		c->stats.sounds++;
		qwc_svc_skip(m, svc, svc_form(c));
		break;
	case svc_print:
		v = msg_read_byte(m);
		len = msg_read_string(m, text, sizeof(text));
		if (m->badread) {
			c->stats.bad[QWC_BAD_TRUNCATED]++;
			return false;
		}
		print_text(c, v, text, len);
		return true;
	case svc_stufftext:
		msg_read_string(m, text, sizeof(text));
		if (m->badread) {
			c->stats.bad[QWC_BAD_TRUNCATED]++;
			return false;
		}
		qwc_stuff(c, text);
		return true;
	case svc_setangle:
		for (int k = 0; k < 3; k++)
			c->setangle[k] = msg_read_angle(m);
		c->setangles++;
		break;
	case svc_setpause:
		c->paused = msg_read_byte(m) != 0;
		c->setpauses++;
		break;
	case svc_serverdata:
		if (!parse_serverdata(c, m)) {
			if (m->badread)
				c->stats.bad[QWC_BAD_TRUNCATED]++;
			return false;
		}
		return true;
	case svc_lightstyle:
		v = msg_read_byte(m);
		c->stats.last_lightstyle = v;
		/* a style past MAX_LIGHTSTYLES is counted, not kept */
		if (v >= 0 && v < MAX_LIGHTSTYLES)
			msg_read_string(m, c->lightstyles[v], sizeof(c->lightstyles[v]));
		else
			msg_read_string(m, NULL, 0);
		c->stats.lightstyles++;
		break;
	case svc_spawnstatic:
		return parse_baseline(c, m, -1) || (c->stats.bad[QWC_BAD_TRUNCATED]++, false);
	case svc_spawnbaseline:
		v = msg_read_short(m) & 0xffff;
		return parse_baseline(c, m, v) || (c->stats.bad[QWC_BAD_TRUNCATED]++, false);
	case svc_temp_entity:
		if (!parse_temp_entity(c, m)) {
			c->stats.bad[m->badread ? QWC_BAD_TRUNCATED : QWC_BAD_SVC]++;
			return false;
		}
		break;
	case svc_foundsecret:
		c->stats.secrets++;
		break;
	case svc_updatefrags:
	case svc_updateping:
	case svc_updatepl:
	case svc_updateentertime:
		return parse_client_value(c, m, svc, false) ||
		       (m->badread && (c->stats.bad[QWC_BAD_TRUNCATED]++, false));
	case svcx_updatefrags:
	case svcx_updateping:
	case svcx_updatepl:
	case svcx_updateentertime: {
		static const int narrow[] = {svc_updatefrags, svc_updateping,
					     svc_updatepl, svc_updateentertime};

		return parse_client_value(c, m, narrow[svc - svcx_updatefrags], true) ||
		       (m->badread && (c->stats.bad[QWC_BAD_TRUNCATED]++, false));
	}
	case svc_updateuserinfo:
	case svcx_updateuserinfo:
		return parse_userinfo(c, m, svc == svcx_updateuserinfo) ||
		       (m->badread && (c->stats.bad[QWC_BAD_TRUNCATED]++, false));
	case svc_download:
		return qwc_dl_parse(c, m) ||
		       (m->badread && (c->stats.bad[QWC_BAD_TRUNCATED]++, false));
	case svc_playerinfo:
	case svcx_playerinfo:
		return parse_playerinfo(c, m, svc == svcx_playerinfo) ||
		       (m->badread && (c->stats.bad[QWC_BAD_TRUNCATED]++, false));
	case svc_nails:
		v = msg_read_byte(m);
		if (v > 0) {
			c->stats.nails += (uint64_t)v;
			msg_skip(m, (size_t)v * 6);
		}
		break;
	case svc_chokecount:
		v = msg_read_byte(m);
		if (v > 0)
			c->stats.chokes += (uint64_t)v;
		break;
	case svc_modellist:
	case svc_soundlist:
		if (!parse_list(c, m, svc == svc_modellist)) {
			if (m->badread)
				c->stats.bad[QWC_BAD_TRUNCATED]++;
			return false;
		}
		return true;
	case svc_packetentities:
	case svc_deltapacketentities:
	case svcx_packetentities:
	case svcx_deltapacketentities:
		if (!parse_packetentities(c, m,
					  svc == svc_deltapacketentities ||
						  svc == svcx_deltapacketentities,
					  svc >= svcx_packetentities)) {
			c->stats.bad[QWC_BAD_TRUNCATED]++;
			return false;
		}
		return true;
	case svc_maxspeed:
		c->maxspeed = msg_read_float(m);
		break;
	case svc_entgravity:
		c->entgravity = msg_read_float(m);
		break;
	case svc_serverinfo:
		msg_read_string(m, text, sizeof(text));
		{
			char value[256];

			msg_read_string(m, value, sizeof(value));
			if (!m->badread)
				info_set_value_for_key(c->serverinfo, sizeof(c->serverinfo),
						       text, value);
		}
		break;
	default:
		/* everything kept nothing of: passed over by its layout */
		if (qwc_svc_skip(m, svc, svc_form(c)) || m->badread)
			break;
		c->stats.bad[QWC_BAD_SVC]++;
		c->stats.last_bad_svc = svc;
		return false;
	}
	if (m->badread) {
		c->stats.bad[QWC_BAD_TRUNCATED]++;
		return false;
	}
	c->stats.other_svc++;
	return true;
}

void qwc_parse_payload(struct qwc *c, struct msg_buf *m, double now)
{
	(void)now;
	c->num_seen = 0;
	c->total_seen = 0;
	while (msg_read_remaining(m) > 0) {
		int svc = msg_read_byte(m);

		if (!parse_one(c, m, svc))
			break;
		c->stats.last_svc = svc;
	}
}
