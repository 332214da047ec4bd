/*
 * mvd.c -- reading multi-view demos: the records of a file or a QTV stream
 * checked against what ezQuake needs to play them (qwd/client.h; the
 * format is qwd/mvd.h).
 *
 * Design note
 *   The reader is a function of the bytes alone: mvd_read() takes the
 *   complete records at the head of what it is given and leaves a cut
 *   record for the next call, so a file read whole and a stream read in
 *   pieces give the same result.  Inside a record every message is read
 *   through msg_* (bounds-checked); a message may not run past its record
 *   (ezQuake parses each record on its own).
 *
 *   What is checked, each the way ezQuake (cl_demo.c, cl_parse.c,
 *   cl_ents.c) would fail or misdraw:
 *     framing    record type (no usercmds, no type 7), length at most
 *                MVD_MAX_RECORD, targets (player < 32)
 *     start      the first message is svc_serverdata of protocol 28; its
 *                extension magics are read (MVD1, FTEX, FTE2) and an FTE
 *                entity or model extension is refused (not read here)
 *     frames     a frame (from a record with msec > 0 to the next one)
 *                holds at most one entity list; a delta list needs the
 *                list of the frame right before it, as ezQuake always
 *                deltas from the previous frame; the first list after a
 *                serverdata is a full one
 *     entities   numbers in order, at most MVD_MAX_PACKET_ENTITIES, no
 *                removal of what the base does not hold
 *     players    svc_playerinfo in the demo form, numbers < 32; stats
 *                only inside MVD_STATS records for a player
 *     messages   the svc bytes of protocol 28 (qwd's extension messages
 *                never belong in a demo), each read to its end
 *   The layouts a demo shares with a connection (entity fields, baselines,
 *   temporary entities) are parse.c's.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <bsd/string.h>

static const char *const fault_names[MVD_FAULTS] = {
	"none", "bad record type", "record too long", "no serverdata first",
	"not protocol 28", "bad message", "message past its record",
	"number out of range", "bad entity list", "delta without a base",
	"two entity lists in one frame"
};

const char *mvd_fault_name(enum mvd_fault f)
{
	return f < MVD_FAULTS ? fault_names[f] : "?";
}

void mvd_reader_init(struct mvd_reader *r)
{
	memset(r, 0, sizeof(*r));
}

__attribute__((format(printf, 3, 4)))
static bool fault(struct mvd_reader *r, enum mvd_fault f, const char *fmt, ...)
{
	va_list ap;

	if (r->fault)
		return false;
	r->fault = f;
	r->fault_offset = r->offset;
	va_start(ap, fmt);
	vsnprintf(r->fault_text, sizeof(r->fault_text), fmt, ap);
	va_end(ap);
	return false;
}

/* ---- the level -------------------------------------------------------- */

static bool read_serverdata(struct mvd_reader *r, struct msg_buf *m)
{
	int32_t v;

	for (int n = 0;; n++) {
		v = msg_read_long(m);
		if (m->badread || v == PROTOCOL_VERSION || n == 8)
			break;
		if ((uint32_t)v == MVD_MAGIC_FTE)
			r->fte_ext = (uint32_t)msg_read_long(m);
		else if ((uint32_t)v == MVD_MAGIC_FTE2)
			r->fte_ext2 = (uint32_t)msg_read_long(m);
		else if ((uint32_t)v == MVD_MAGIC_MVD1)
			r->mvd_ext1 = (uint32_t)msg_read_long(m);
		else
			break;
	}
	if (m->badread)
		return false;
	if (v != PROTOCOL_VERSION)
		return fault(r, MVD_FAULT_PROTOCOL, "serverdata of protocol %d", (int)v);
	/* entity and model numbers past 9 and 8 bits, float coordinates: the
	 * layouts would differ (FTE_PEXT_ENTITYDBL, MODELDBL, FLOATCOORDS...) */
	if (r->fte_ext || r->fte_ext2 || (r->mvd_ext1 & ~MVD_PEXT1_HIDDEN_MESSAGES))
		return fault(r, MVD_FAULT_PROTOCOL, "extensions FTEX %#x FTE2 %#x MVD1 %#x",
			     r->fte_ext, r->fte_ext2, r->mvd_ext1);
	r->servercount = msg_read_long(m);
	msg_read_string(m, r->gamedir, sizeof(r->gamedir));
	r->time = msg_read_float(m);
	msg_read_string(m, r->levelname, sizeof(r->levelname));
	msg_skip(m, 10 * 4);	/* movevars */
	if (m->badread)
		return false;
	if (r->serverdatas++ == 0)
		r->start_time = r->time;
	/* a new level: its lists, baselines and entities start over */
	memset(r->baselines, 0, sizeof(r->baselines));
	r->have_list = false;
	r->models = r->sounds = 0;
	r->mapmodel[0] = '\0';
	return true;
}

static bool read_list(struct mvd_reader *r, struct msg_buf *m, bool models)
{
	int next, n = qwc_read_list(m, models ? r->mapmodel : NULL,
				    sizeof(r->mapmodel), &next);

	if (n < 0)
		return m->badread ? false : fault(r, MVD_FAULT_RANGE, "more than 255 %s",
						  models ? "models" : "sounds");
	if (models)
		r->models = n;
	else
		r->sounds = n;
	return true;
}

/* ---- players ---------------------------------------------------------- */

static struct mvd_player *slot_player(struct mvd_reader *r, int slot)
{
	if (slot < 0 || slot >= MAX_CLIENTS) {
		fault(r, MVD_FAULT_RANGE, "player %d", slot);
		return NULL;
	}
	return &r->players[slot];
}

static bool read_playerinfo(struct mvd_reader *r, struct msg_buf *m)
{
	int slot = msg_read_byte(m);
	int flags = msg_read_short(m) & 0xffff;
	struct mvd_player *p;
	int16_t org[3];

	msg_read_byte(m);	/* frame */
	for (int k = 0; k < 3; k++)
		org[k] = (flags & (MVD_DF_ORIGIN << k)) ? (int16_t)msg_read_short(m) : 0;
	for (int k = 0; k < 3; k++)
		if (flags & (MVD_DF_ANGLES << k))
			msg_read_short(m);
	int model = (flags & MVD_DF_MODEL) ? msg_read_byte(m) : -1;

	if (flags & MVD_DF_SKINNUM)
		msg_read_byte(m);
	if (flags & MVD_DF_EFFECTS)
		msg_read_byte(m);
	if (flags & MVD_DF_WEAPONFRAME)
		msg_read_byte(m);
	if (m->badread || !(p = slot_player(r, slot)))
		return false;
	for (int k = 0; k < 3; k++)
		if (flags & (MVD_DF_ORIGIN << k))
			p->origin[k] = org[k];
	if (model >= 0)
		p->modelindex = model;
	p->flags = flags;
	if (p->playerinfos++ == 0)
		memcpy(p->first_origin, p->origin, sizeof(p->first_origin));
	p->last_frame = (uint32_t)r->frames;
	r->playerinfos++;
	if (r->players_this_frame++ == 0)
		r->frames_with_players++;
	if (r->players_this_frame > r->max_players_frame)
		r->max_players_frame = r->players_this_frame;
	return true;
}

static bool read_userinfo(struct mvd_reader *r, struct msg_buf *m)
{
	int slot = msg_read_byte(m);
	int32_t userid = msg_read_long(m);
	char info[MAX_INFO_STRING];
	struct mvd_player *p;

	msg_read_string(m, info, sizeof(info));
	if (m->badread || !(p = slot_player(r, slot)))
		return false;
	p->userid = userid;
	p->name[0] = '\0';
	info_value_for_key(info, "name", p->name, sizeof(p->name));
	p->present = p->name[0] != '\0';
	return true;
}

/* svc_updatestat and svc_updatestatlong: a player's view, so only in a
 * record for that player */
static bool read_stat(struct mvd_reader *r, struct msg_buf *m, bool is_long)
{
	int stat = msg_read_byte(m);
	int32_t v = is_long ? msg_read_long(m) : msg_read_byte(m);

	if (m->badread)
		return false;
	if (stat >= MAX_CL_STATS)
		return fault(r, MVD_FAULT_RANGE, "stat %d", stat);
	if (r->record_type != MVD_STATS)
		return fault(r, MVD_FAULT_RANGE, "a stat outside a stats record");
	r->players[r->record_to].stats[stat] = v;
	r->stats_updates++;
	return true;
}

/* ---- entities --------------------------------------------------------- */

static bool read_entities(struct mvd_reader *r, struct msg_buf *m, bool delta)
{
	const struct qwc_entity *old = r->lists[r->cur];
	struct qwc_entity *out = r->lists[!r->cur];
	int oldn = 0, oldi = 0, n = 0, last = 0;

	if (r->have_list && r->list_frame == r->frames)
		return fault(r, MVD_FAULT_FRAME, "second entity list in frame %llu",
			     (unsigned long long)r->frames);
	if (delta) {
		msg_read_byte(m);	/* the base's sequence: a demo's is the
					 * frame before, whatever it says */
		if (!r->have_list || r->list_frame + 1 != r->frames)
			return fault(r, MVD_FAULT_DELTA, "delta list in frame %llu, last list in %s %llu",
				     (unsigned long long)r->frames,
				     r->have_list ? "frame" : "none, frame",
				     (unsigned long long)r->list_frame);
		oldn = r->list_count[r->cur];
		r->deltas++;
	}
	for (;;) {
		int word = msg_read_short(m) & 0xffff;
		int num = word & 511, bits = word & ~511;
		struct qwc_entity e;

		if (m->badread)
			return false;
		if (word == 0)
			break;
		if (num <= last)
			return fault(r, MVD_FAULT_ENTITIES, "entity %d after %d", num, last);
		last = num;
		while (oldi < oldn && old[oldi].number < num) {
			if (n == MVD_MAX_PACKET_ENTITIES)
				return fault(r, MVD_FAULT_ENTITIES, "more than %d entities",
					     MVD_MAX_PACKET_ENTITIES);
			out[n++] = old[oldi++];
		}
		bool in_old = oldi < oldn && old[oldi].number == num;

		if (bits & U_REMOVE) {
			if (!in_old)
				return fault(r, MVD_FAULT_ENTITIES, "removal of entity %d, not in the base", num);
			oldi++;
			continue;
		}
		if (in_old) {
			e = old[oldi++];
		} else {
			e = r->baselines[num];
			e.number = (uint16_t)num;
		}
		qwc_read_delta(m, bits, &e);
		if (m->badread)
			return false;
		if (n == MVD_MAX_PACKET_ENTITIES)
			return fault(r, MVD_FAULT_ENTITIES, "more than %d entities",
				     MVD_MAX_PACKET_ENTITIES);
		out[n++] = e;
	}
	while (oldi < oldn) {
		if (n == MVD_MAX_PACKET_ENTITIES)
			return fault(r, MVD_FAULT_ENTITIES, "more than %d entities",
				     MVD_MAX_PACKET_ENTITIES);
		out[n++] = old[oldi++];
	}
	r->cur = !r->cur;
	r->list_count[r->cur] = n;
	r->have_list = true;
	r->list_frame = r->frames;
	r->packetentities++;
	r->entities += (uint64_t)n;
	if (n > r->max_entities_frame)
		r->max_entities_frame = n;
	return true;
}

/* ---- one message ------------------------------------------------------ */

static bool read_message(struct mvd_reader *r, struct msg_buf *m, int svc)
{
	char text[1024];
	int v;

	if (r->serverdatas == 0 && svc != svc_serverdata)
		return fault(r, MVD_FAULT_START, "message %d before the serverdata", svc);
	switch (svc) {
	case svc_disconnect:
		/* the text is optional to ezQuake */
		r->end_text[0] = '\0';
		if (msg_read_remaining(m))
			msg_read_string(m, r->end_text, sizeof(r->end_text));
		r->ended = true;
		break;
	case svc_updatestat:
	case svc_updatestatlong:
		return read_stat(r, m, svc == svc_updatestatlong);
	case svc_sound:
		qwc_svc_skip(m, svc, 0);
		r->sounds_played++;
		break;
	case svc_print:
		msg_read_byte(m);
		msg_read_string(m, r->last_print, sizeof(r->last_print));
		r->prints++;
		break;
	case svc_stufftext:
		msg_read_string(m, NULL, 0);
		r->stufftexts++;
		break;
	case svc_setangle:
		/* a demo names the player first */
		v = msg_read_byte(m);
		msg_skip(m, 3);
		if (!m->badread && v >= MAX_CLIENTS)
			return fault(r, MVD_FAULT_RANGE, "setangle of player %d", v);
		break;
	case svc_serverdata:
		return read_serverdata(r, m);
	case svc_updatefrags:
	case svc_updateping: {
		int slot = msg_read_byte(m);
		int value = msg_read_short(m);
		struct mvd_player *p;

		if (m->badread || !(p = slot_player(r, slot)))
			return false;
		if (svc == svc_updatefrags)
			p->frags = value;
		break;
	}
	case svc_updatepl:
		v = msg_read_byte(m);
		msg_read_byte(m);
		if (!m->badread && !slot_player(r, v))
			return false;
		break;
	case svc_updateentertime:
		v = msg_read_byte(m);
		msg_read_float(m);
		if (!m->badread && !slot_player(r, v))
			return false;
		break;
	case svc_spawnstatic: {
		struct qwc_entity e;

		qwc_read_baseline(m, 0, &e);
		break;
	}
	case svc_spawnbaseline: {
		int num = msg_read_short(m) & 0xffff;
		struct qwc_entity e;

		qwc_read_baseline(m, num, &e);
		if (m->badread)
			return false;
		if (num >= MAX_EDICTS_P28)
			return fault(r, MVD_FAULT_RANGE, "baseline of entity %d", num);
		r->baselines[num] = e;
		break;
	}
	case svc_temp_entity:
		if (qwc_skip_temp_entity(m) < 0 && !m->badread)
			return fault(r, MVD_FAULT_SVC, "unknown temporary entity");
		r->temp_entities++;
		break;
	case svc_intermission:
		qwc_svc_skip(m, svc, 0);
		r->intermissions++;
		break;
	case svc_setpause:
		r->paused = msg_read_byte(m) != 0;
		r->setpauses++;
		break;
	case svc_updateuserinfo:
		return read_userinfo(r, m);
	case svc_playerinfo:
		return read_playerinfo(r, m);
	case svc_nails:
	case svc_nails2:
		v = msg_read_byte(m);
		if (v > 0) {
			msg_skip(m, (size_t)v * (svc == svc_nails2 ? 7 : 6));
			r->nails += (uint64_t)v;
		}
		break;
	case svc_modellist:
	case svc_soundlist:
		return read_list(r, m, svc == svc_modellist);
	case svc_packetentities:
	case svc_deltapacketentities:
		return read_entities(r, m, svc == svc_deltapacketentities);
	case svc_setinfo:
		v = msg_read_byte(m);
		msg_read_string(m, NULL, 0);
		msg_read_string(m, NULL, 0);
		if (!m->badread && !slot_player(r, v))
			return false;
		break;
	case svc_serverinfo: {
		char value[256];

		msg_read_string(m, text, sizeof(text));
		msg_read_string(m, value, sizeof(value));
		if (!m->badread)
			info_set_value_for_key(r->serverinfo, sizeof(r->serverinfo),
					       text, value);
		break;
	}
	default:
		/* what a demo writes as a connection does and nothing here
		 * keeps, passed over by its layout (qwd's extension's
		 * messages are never in a demo) */
		if (svc < svcx_playerinfo && qwc_svc_skip(m, svc, 0))
			break;
		if (m->badread)
			return false;
		return fault(r, MVD_FAULT_SVC, "message byte %d", svc);
	}
	return !m->badread;
}

/* the fullserverinfo a demo stuffs, kept like a client keeps it */
static void note_stufftext(struct mvd_reader *r, const struct msg_buf *m,
			   size_t at)
{
	static const char key[] = "fullserverinfo \"";
	const char *s = (const char *)m->data + at;
	size_t n = m->readpos - at;

	if (n > sizeof(key) && strncmp(s, key, sizeof(key) - 1) == 0) {
		const char *v = s + sizeof(key) - 1;
		const char *end = memchr(v, '"', n - (sizeof(key) - 1));

		if (end && (size_t)(end - v) < sizeof(r->serverinfo)) {
			memcpy(r->serverinfo, v, (size_t)(end - v));
			r->serverinfo[end - v] = '\0';
		}
	}
}

static bool read_payload(struct mvd_reader *r, const uint8_t *data, size_t len)
{
	struct msg_buf m;

	/* the reader never writes: the cast only satisfies msg_init_read */
	msg_init_read(&m, (void *)(uintptr_t)data, len);
	while (msg_read_remaining(&m) > 0) {
		int svc = msg_read_byte(&m);
		size_t at = m.readpos;

		r->messages++;
		if (!read_message(r, &m, svc)) {
			if (!r->fault)
				fault(r, MVD_FAULT_TRUNCATED, "message %d runs past its record", svc);
			return false;
		}
		if (svc == svc_stufftext)
			note_stufftext(r, &m, at);
	}
	return true;
}

size_t mvd_read(struct mvd_reader *r, const uint8_t *data, size_t len)
{
	size_t pos = 0;

	while (!r->fault && len - pos >= 2) {
		const uint8_t *h = data + pos;
		int msec = h[0], type = h[1] & 7;
		size_t head = 2;
		uint32_t size;

		if (type == MVD_SET) {
			/* two sequence numbers, no length */
			if (len - pos < 10)
				break;
			pos += 10;
			r->offset += 10;
			r->records++;
			continue;
		}
		if (type == MVD_CMD || type > MVD_ALL) {
			fault(r, MVD_FAULT_TYPE, "record type %d", type);
			break;
		}
		if (type == MVD_MULTIPLE)
			head += 4;
		if (len - pos < head + 4)
			break;
		size = (uint32_t)h[head] | (uint32_t)h[head + 1] << 8 |
		       (uint32_t)h[head + 2] << 16 | (uint32_t)h[head + 3] << 24;
		head += 4;
		if (size > MVD_MAX_RECORD) {
			fault(r, MVD_FAULT_LENGTH, "record of %u bytes", size);
			break;
		}
		if (len - pos < head + size)
			break;
		if (msec > 0) {
			r->frames++;
			r->time += msec * 0.001;
			r->players_this_frame = 0;
		}
		r->record_type = type;
		r->record_to = h[1] >> 3;
		r->records++;
		if (type == MVD_MULTIPLE &&
		    (h[2] | h[3] | h[4] | h[5]) == 0 &&
		    (r->mvd_ext1 & MVD_PEXT1_HIDDEN_MESSAGES)) {
			/* a block for tools, skipped by players */
			r->hidden_records++;
		} else if (!read_payload(r, h + head, size)) {
			break;
		}
		pos += head + size;
		r->offset += head + size;
	}
	return pos;
}
