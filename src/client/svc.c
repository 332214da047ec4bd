/*
 * svc.c -- the layout of every svc message, to pass over one without
 * keeping anything.
 *
 * Design note
 *   The project's one walker of server-to-client messages: the client
 *   library's parser (parse.c) hands it every message it does not keep,
 *   the demo reader (mvd.c) the ones a demo writes as a connection does,
 *   and the capture analyser (tools/qwcap) every message of a reply.  The
 *   layouts are protocol 28's (id's QW/client/cl_parse.c), qwd's
 *   extension's (docs/protocol-extension.md: svcx_* with short player
 *   numbers and entity numbers in a short of their own, and a short
 *   player number in svc_serverdata when the connection asked for it) and
 *   FTE's as MVDSV speaks them (docs/downloads.md: extension words ahead
 *   of svc_serverdata's protocol, and chunked svc_downloads where they
 *   were negotiated).
 *   A message whose size depends on its content (strings, lists, entity
 *   updates, player infos, temp entities) is read far enough to know it;
 *   every read is the msg_* readers', so a message cut short sets badread
 *   and nothing is read outside the payload.  An unknown svc byte or
 *   temp entity type ends the walk: the next message cannot be found.
 */
#include "internal.h"

/* svc_playerinfo after the player number */
static void skip_playerinfo(struct msg_buf *m)
{
	static const struct usercmd nullcmd;
	struct usercmd cmd;
	int flags = msg_read_short(m) & 0xffff;

	msg_skip(m, 6 + 1);		/* origin, frame */
	if (flags & PF_MSEC)
		msg_skip(m, 1);
	if (flags & PF_COMMAND)
		msg_read_delta_usercmd(m, &nullcmd, &cmd);
	for (int k = 0; k < 3; k++)
		if (flags & (PF_VELOCITY1 << k))
			msg_skip(m, 2);
	if (flags & PF_MODEL)
		msg_skip(m, 1);
	if (flags & PF_SKINNUM)
		msg_skip(m, 1);
	if (flags & PF_EFFECTS)
		msg_skip(m, 1);
	if (flags & PF_WEAPONFRAME)
		msg_skip(m, 1);
}

/* an entity list to its terminating zero word; wide: the number follows
 * the word in a short of its own (QWDX) */
static void skip_entities(struct msg_buf *m, bool wide)
{
	struct qwc_entity e;

	while (!m->badread) {
		int bits = msg_read_short(m) & 0xffff;

		if (m->badread || bits == 0)
			return;
		if (wide)
			msg_skip(m, 2);
		if (!(bits & U_REMOVE))
			qwc_read_delta(m, bits, &e);
	}
}

int qwc_skip_temp_entity(struct msg_buf *m)
{
	int type = msg_read_byte(m);

	switch (type) {
	case TE_GUNSHOT:
	case TE_BLOOD:
		msg_skip(m, 1 + 6);
		break;
	case TE_LIGHTNING1:
	case TE_LIGHTNING2:
	case TE_LIGHTNING3:
		msg_skip(m, 2 + 6 + 6);
		break;
	case TE_SPIKE:
	case TE_SUPERSPIKE:
	case TE_EXPLOSION:
	case TE_TAREXPLOSION:
	case TE_WIZSPIKE:
	case TE_KNIGHTSPIKE:
	case TE_LAVASPLASH:
	case TE_TELEPORT:
	case TE_LIGHTNINGBLOOD:
		msg_skip(m, 6);
		break;
	default:
		return -1;
	}
	return type;
}

/* svc_download: a stock block (short size, -1 for no such file; a
 * percent byte; the bytes) or, chunked, a chunk or a download's start */
static void skip_download(struct msg_buf *m, bool chunked)
{
	int32_t n;

	if (chunked) {
		n = msg_read_long(m);
		if (n >= 0) {
			msg_skip(m, FTE_CHUNK);
		} else {
			msg_skip(m, 4);			/* size */
			msg_read_string(m, NULL, 0);	/* name */
		}
		return;
	}
	n = msg_read_short(m);
	msg_skip(m, 1);
	if (n > 0)
		msg_skip(m, (size_t)n);
}

bool qwc_svc_skip(struct msg_buf *m, int svc, unsigned form)
{
	int n;

	switch (svc) {
	case svc_nop:
	case svc_disconnect:
	case svc_killedmonster:
	case svc_foundsecret:
	case svc_sellscreen:
	case svc_smallkick:
	case svc_bigkick:
		break;
	case svc_setpause:
	case svc_cdtrack:
	case svc_chokecount:
		msg_skip(m, 1);
		break;
	case svc_updatestat:
	case svc_setview:
	case svc_stopsound:
	case svc_muzzleflash:
	case svc_updatepl:
		msg_skip(m, 2);
		break;
	case svc_setangle:
	case svc_updatefrags:
	case svc_updateping:
	case svcx_updatepl:
		msg_skip(m, 3);
		break;
	case svc_maxspeed:
	case svc_entgravity:
	case svcx_updatefrags:
	case svcx_updateping:
		msg_skip(m, 4);
		break;
	case svc_updatestatlong:
	case svc_updateentertime:
		msg_skip(m, 5);
		break;
	case svcx_updateentertime:
		msg_skip(m, 6);
		break;
	case svc_damage:
		msg_skip(m, 2 + 6);
		break;
	case svc_spawnstaticsound:
	case svc_intermission:
		msg_skip(m, 6 + 3);
		break;
	case svc_spawnstatic:		/* model frame colormap skin, 3 x
					   (coord, angle) */
		msg_skip(m, 4 + 9);
		break;
	case svc_spawnbaseline:
		msg_skip(m, 2 + 4 + 9);
		break;
	case svc_sound:
		n = msg_read_short(m) & 0xffff;
		if (n & SND_VOLUME)
			msg_skip(m, 1);
		if (n & SND_ATTENUATION)
			msg_skip(m, 1);
		msg_skip(m, 1 + 6);	/* sound number, origin */
		break;
	case svc_print:
	case svc_lightstyle:
		msg_skip(m, 1);
		msg_read_string(m, NULL, 0);
		break;
	case svc_stufftext:
	case svc_centerprint:
	case svc_finale:
		msg_read_string(m, NULL, 0);
		break;
	case svc_setinfo:
		msg_skip(m, 1);
		msg_read_string(m, NULL, 0);
		msg_read_string(m, NULL, 0);
		break;
	case svc_serverinfo:
		msg_read_string(m, NULL, 0);
		msg_read_string(m, NULL, 0);
		break;
	case svc_serverdata:
		/* FTE's extension words (a tag, the flags) ahead of the
		 * protocol; each pair is 8 bytes, so the loop ends */
		while (!m->badread &&
		       (uint32_t)msg_read_long(m) == PROTOCOL_VERSION_FTE)
			msg_skip(m, 4);
		msg_skip(m, 4);			/* spawn count */
		msg_read_string(m, NULL, 0);	/* game dir */
		msg_skip(m, form & QWC_SVC_QWDX ? 2 : 1);	/* player number */
		msg_read_string(m, NULL, 0);	/* level name */
		msg_skip(m, 10 * 4);		/* movevars */
		break;
	case svc_updateuserinfo:
		msg_skip(m, 1 + 4);
		msg_read_string(m, NULL, 0);
		break;
	case svcx_updateuserinfo:
		msg_skip(m, 2 + 4);
		msg_read_string(m, NULL, 0);
		break;
	case svc_download:
		skip_download(m, form & QWC_SVC_CHUNKED);
		break;
	case svc_playerinfo:
		msg_skip(m, 1);
		skip_playerinfo(m);
		break;
	case svcx_playerinfo:
		msg_skip(m, 2);
		skip_playerinfo(m);
		break;
	case svc_nails:
	case svc_nails2:
		n = msg_read_byte(m);
		if (n > 0)
			msg_skip(m, (size_t)n * (svc == svc_nails ? 6 : 7));
		break;
	case svc_modellist:
	case svc_soundlist:
		if (qwc_read_list(m, NULL, 0, &n) < 0 && !m->badread)
			return false;	/* past 255 names */
		break;
	case svc_packetentities:
		skip_entities(m, false);
		break;
	case svc_deltapacketentities:
		msg_skip(m, 1);
		skip_entities(m, false);
		break;
	case svcx_packetentities:
		skip_entities(m, true);
		break;
	case svcx_deltapacketentities:
		msg_skip(m, 1);
		skip_entities(m, true);
		break;
	case svc_temp_entity:
		if (qwc_skip_temp_entity(m) < 0 && !m->badread)
			return false;
		break;
	default:
		return false;
	}
	return !m->badread;
}
