/*
 * mkpackets.c -- seed inputs for the packet fuzzers, captured from a real
 * session and built by hand.
 *
 *   mkpackets OOB_DIR GAME_DIR CLIENT_DIR
 *
 * Design note
 *   A packet fuzzer gets far faster from packets that already parse than
 *   from noise, and the deepest paths need packets that also fit the state
 *   they meet (a connect with the right challenge, a clc_delta naming a
 *   frame the server holds, a delta reply from a frame the client holds).
 *   So this tool runs netfix's script -- the same server, map, clients and
 *   lockstep as the fuzz targets' set-up -- with a tap on every datagram,
 *   then continues it CONT_ROUNDS more rounds, and writes:
 *     OOB_DIR     what clients sent connectionless, and hand-written
 *                 requests: status, ping, getchallenge, connects with the
 *                 challenge fuzz_oob's server gives FX_OOB_IP (stock,
 *                 QWDX, spectator, reconnect, wrong protocol, a negative
 *                 qport), rcon with and without the password;
 *     GAME_DIR    fuzz_game inputs (option byte, payload): every netchan
 *                 packet the clients sent, moves' checksum bytes turned
 *                 into fuzz_game's form (XOR with the right one, so 0),
 *                 the first continuation packet of each client (it fits
 *                 the target's saved state exactly), and hand-written
 *                 string commands: each command, the signon from the
 *                 client left in it (and from the others, which must
 *                 refuse it), downloads, moves with every field;
 *     CLIENT_DIR  every reply the server sent (payload without the netchan
 *                 header; connectionless ones whole) and one hand-written
 *                 message of each svc type, plus all of them in one.
 *   Identical datagrams are written once.  File names say where a seed
 *   came from: cap-* captured, next-* continuation, syn-* hand-written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netfix.h"

enum {
	ANSWER = 64,		/* fuzz_game: the client answers the reply */
	CONT_ROUNDS = 4,
	MAX_SEEDS = 400,	/* per directory: captured seeds beyond are dropped */
	SEED_MAX = NET_MAX_UDP_PACKET + 16
};

struct seed_dir {
	const char *dir;
	int count;
	uint64_t hash[MAX_SEEDS];
};

struct capture {
	struct seed_dir oob, game, client;
	const struct fx_client *c;	/* the script's clients, [0] stock */
	bool cont;			/* stepping past the script's end */
	bool first_next[FX_CLIENTS];	/* next-* written for client i */
	int failed;
};

static uint64_t seed_hash(const uint8_t *d, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ n;

	for (size_t i = 0; i < n; i++)
		h = (h ^ d[i]) * 0x100000001b3ULL;
	return h;
}

/* write one seed unless an identical one was written; returns 0 or -1 */
static int seed_write(struct seed_dir *d, const char *label, const void *data,
		      size_t len)
{
	uint64_t h = seed_hash(data, len);
	char path[4096];
	FILE *fp;

	for (int i = 0; i < d->count; i++)
		if (d->hash[i] == h)
			return 0;
	if (d->count == MAX_SEEDS)
		return 0;
	d->hash[d->count] = h;
	snprintf(path, sizeof(path), "%s/%s-%03d", d->dir, label, d->count++);
	fp = fopen(path, "wb");
	if (!fp || fwrite(data, 1, len, fp) != len) {
		fprintf(stderr, "mkpackets: %s: %s\n", path, strerror(errno));
		if (fp)
			fclose(fp);
		return -1;
	}
	return fclose(fp) == 0 ? 0 : -1;
}

static bool is_oob(const uint8_t *d, size_t n)
{
	return n >= 4 && d[0] == 0xff && d[1] == 0xff && d[2] == 0xff &&
	       d[3] == 0xff;
}

static uint32_t read_u32(const uint8_t *d)
{
	return (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 |
	       (uint32_t)d[3] << 24;
}

/* fuzz_game's option byte naming the sender */
static uint8_t game_sender(int who)
{
	return (uint8_t)(who == FX_SIGNER ? 32 : who == FX_WIDE ? 16 : 0);
}

/* a client's netchan datagram as a fuzz_game input */
static int game_seed(struct seed_dir *d, const char *label, int who,
		     uint8_t opt, const uint8_t *pkt, size_t len)
{
	uint8_t in[SEED_MAX];
	size_t plen = len - NETCHAN_HEADER_QPORT, cks, end;
	uint32_t seq = read_u32(pkt) & 0x7fffffffu;

	if (plen + 1 > sizeof(in))
		return 0;
	in[0] = game_sender(who) | opt;
	memcpy(in + 1, pkt + NETCHAN_HEADER_QPORT, plen);
	if (fx_find_move(in + 1, plen, &cks, &end))
		in[1 + cks] ^= com_block_sequence_crc_byte(in + 1 + cks + 1,
							   end - cks - 1, seq);
	return seed_write(d, label, in, plen + 1);
}

static void tap(void *ctx, const struct fx_client *c, enum fx_dir dir,
		const uint8_t *data, size_t len)
{
	struct capture *cap = ctx;
	int who = (int)(c - cap->c);
	int rc = 0;

	if (dir == FX_TO_SERVER) {
		if (is_oob(data, len)) {
			rc = seed_write(&cap->oob, "cap", data, len);
		} else if (len >= NETCHAN_HEADER_QPORT) {
			bool next = cap->cont && !cap->first_next[who];

			cap->first_next[who] |= next;
			rc = game_seed(&cap->game, next ? "next" : "cap", who, 0,
				       data, len);
			if (next)
				rc |= game_seed(&cap->game, "next", who, ANSWER,
						data, len);
		}
	} else if (is_oob(data, len) || (len == 1 && data[0] == A2A_ACK)) {
		rc = seed_write(&cap->client, "cap", data, len);
	} else if (len > NETCHAN_HEADER) {
		rc = seed_write(&cap->client, cap->cont ? "next" : "cap",
				data + NETCHAN_HEADER, len - NETCHAN_HEADER);
	}
	cap->failed |= rc != 0;
}

/* ---- connectionless requests ------------------------------------------ */

static int oob_text(struct seed_dir *d, const char *text)
{
	uint8_t pkt[SEED_MAX];
	size_t n = qwc_build_oob(pkt, sizeof(pkt), text);

	return n ? seed_write(d, "syn", pkt, n) : -1;
}

static int oob_seeds(struct seed_dir *d)
{
	static const char *const fixed[] = {
		"ping", "ping\n", "status", "status\n", "getchallenge\n",
		"getchallenge", "connect 28", "connect",
		"rcon " FX_RCON_PASSWORD " status",
		"rcon " FX_RCON_PASSWORD " serverinfo",
		"rcon " FX_RCON_PASSWORD " help",
		"rcon " FX_RCON_PASSWORD " set fuzzvar \"some value\"",
		"rcon " FX_RCON_PASSWORD " hostname \"fuzz server\"",
		"rcon " FX_RCON_PASSWORD " password secret",
		"rcon " FX_RCON_PASSWORD " timeout",
		"rcon " FX_RCON_PASSWORD " kick 1",
		"rcon " FX_RCON_PASSWORD " kick home",
		"rcon " FX_RCON_PASSWORD " say hello there",
		"rcon " FX_RCON_PASSWORD " map",
		"rcon " FX_RCON_PASSWORD " exec nosuch.cfg",
		"rcon " FX_RCON_PASSWORD " quit",
		"rcon " FX_RCON_PASSWORD " maxclients 8",
		"rcon wrong status", "rcon",
	};
	static const struct {
		int protocol;
		long qport;
		int bad_challenge;
		const char *info;
		const char *more;
	} connects[] = {
		{ 28, FX_QPORT_STOCK, 0, "\\name\\again\\rate\\25000", "" },
		{ 28, 27100, 0, "\\name\\stock", "" },
		{ 28, 27101, 0, "\\name\\wide\\topcolor\\4", "QWDX 1\n" },
		{ 28, 27102, 0, "\\name\\spec\\spectator\\1", "QWDX 1\n" },
		{ 28, 27103, 0, "\\name\\pw\\password\\guess", "QWDX 1\n" },
		{ 28, 27104, 0, "\\name\\\x01\x02\\skin\\base", "QWDX 1\n" },
		{ 28, -1, 0, "\\name\\negative", "QWDX 2\n" },
		{ 27, 27105, 0, "\\name\\old", "" },
		{ 28, 27106, 1, "\\name\\badchallenge", "QWDX 1\n" },
	};
	int32_t ch = fx_oob_challenge(FX_OOB_IP);
	int rc = 0;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		rc |= oob_text(d, fixed[i]);
	for (size_t i = 0; i < sizeof(connects) / sizeof(connects[0]); i++) {
		char text[512];

		snprintf(text, sizeof(text), "connect %d %ld %d \"%s\"\n%s",
			 connects[i].protocol, connects[i].qport,
			 connects[i].bad_challenge ? ch + 1 : ch, connects[i].info,
			 connects[i].more);
		rc |= oob_text(d, text);
	}
	return rc;
}

/* ---- string commands and moves ---------------------------------------- */

/* one fuzz_game input of string commands (NULL-terminated list) */
static int game_cmds(struct seed_dir *d, uint8_t opt, const char *const *cmds)
{
	uint8_t in[SEED_MAX];
	struct msg_buf m;

	msg_init(&m, in, sizeof(in));
	msg_write_byte(&m, opt);
	for (int i = 0; cmds[i]; i++) {
		msg_write_byte(&m, clc_stringcmd);
		msg_write_string(&m, cmds[i]);
	}
	return m.overflowed ? -1 : seed_write(d, "syn", in, m.cursize);
}

/* a move as the client library writes it, checksum byte 0 (right) */
static void write_move(struct msg_buf *m, const struct usercmd cmd[3],
		       int delta)
{
	static const struct usercmd nullcmd;

	msg_write_byte(m, clc_move);
	msg_write_byte(m, 0);
	msg_write_byte(m, 5);
	msg_write_delta_usercmd(m, &nullcmd, &cmd[0]);
	msg_write_delta_usercmd(m, &cmd[0], &cmd[1]);
	msg_write_delta_usercmd(m, &cmd[1], &cmd[2]);
	if (delta >= 0) {
		msg_write_byte(m, clc_delta);
		msg_write_byte(m, delta);
	}
}

static int game_moves(struct seed_dir *d)
{
	static const uint8_t opts[] = { 0, 1, 3, 7, 8, 16, 16 | 2, ANSWER,
					16 | ANSWER };
	struct usercmd cmd[3];
	int rc = 0;

	memset(cmd, 0, sizeof(cmd));
	for (int i = 0; i < 3; i++) {
		cmd[i].msec = (uint8_t)(13 + i * 40);
		cmd[i].angles[0] = -30.0f + 40.0f * (float)i;
		cmd[i].angles[1] = 90.0f * (float)i;
		cmd[i].angles[2] = 5.0f;
		cmd[i].forwardmove = 400;
		cmd[i].sidemove = (int16_t)(i == 1 ? -350 : 350);
		cmd[i].upmove = (int16_t)(i == 2 ? 200 : 0);
		cmd[i].buttons = (uint8_t)(i == 2 ? 3 : 2);
		cmd[i].impulse = (uint8_t)(i == 2 ? 7 : 0);
	}
	for (size_t k = 0; k < sizeof(opts); k++) {
		uint8_t in[128];
		struct msg_buf m;

		msg_init(&m, in, sizeof(in));
		msg_write_byte(&m, opts[k]);
		write_move(&m, cmd, k % 2 ? 0 : -1);
		rc |= seed_write(d, "syn", in, m.cursize);
	}
	/* a move after string commands, as a client's packet often is */
	{
		uint8_t in[256];
		struct msg_buf m;

		msg_init(&m, in, sizeof(in));
		msg_write_byte(&m, 0);
		msg_write_byte(&m, clc_stringcmd);
		msg_write_string(&m, "say moving");
		msg_write_byte(&m, clc_nop);
		write_move(&m, cmd, 200);
		rc |= seed_write(d, "syn", in, m.cursize);
	}
	/* a spectator's camera: tmove in the reliable part before the move,
	 * and an upload nobody asked for */
	{
		static const uint8_t bytes[] = {1, 2, 3, 4};
		uint8_t in[256];
		struct msg_buf m;

		msg_init(&m, in, sizeof(in));
		msg_write_byte(&m, 0);
		msg_write_byte(&m, clc_stringcmd);
		msg_write_string(&m, "ptrack 0");
		msg_write_byte(&m, clc_tmove);
		msg_write_coord(&m, 64.0f);
		msg_write_coord(&m, -32.0f);
		msg_write_coord(&m, 24.0f);
		msg_write_byte(&m, clc_upload);
		msg_write_short(&m, (int)sizeof(bytes));
		msg_write_byte(&m, 50);
		msg_write_data(&m, bytes, sizeof(bytes));
		write_move(&m, cmd, 200);
		rc |= seed_write(d, "syn", in, m.cursize);
	}
	return rc;
}

static int game_seeds(struct seed_dir *d, const char *mapname, uint32_t sum)
{
	char prespawn[64], dlmap[96];
	const char *const single[] = {
		"new", "soundlist 1 0", "modellist 1 0", "prespawn 1 1",
		"spawn 1 0", "begin 1", "drop", "say hello", "say \"quoted text\"",
		"say_team hi", "setinfo", "setinfo name fuzzer",
		"setinfo rate 100000", "setinfo *ip 1", "setinfo topcolor 13",
		"setinfo name \"\x01\x1f\"", "pings", ("download " FX_SERVED_FILE),
		"download ../etc/passwd", "download progs/player.mdl", "nextdl",
		"stopdl", "ptrack 1", "ptrack", "join", "observe", "serverinfo", "info 0", "info 1", "kill",
		"frobnicate now", "soundlist 0 0", "modellist 1 300",
		"spawn 1 -1", "prespawn 1 999",
	};
	int rc = 0;

	snprintf(prespawn, sizeof(prespawn), "prespawn 1 0 %d", (int)(int32_t)sum);
	snprintf(dlmap, sizeof(dlmap), "download maps/%s.bsp", mapname);
	for (size_t i = 0; i < sizeof(single) / sizeof(single[0]); i++) {
		const char *one[] = { single[i], NULL };

		rc |= game_cmds(d, 0, one);
	}
	{
		const char *one[] = { prespawn, NULL };
		const char *dl[] = { dlmap, "nextdl", "nextdl", "nextdl", NULL };
		const char *served[] = { "download " FX_SERVED_FILE, "nextdl",
					 "nextdl", NULL };
		/* a command for an older level restarts the signon; the rest
		 * of the packet then runs it to the end */
		const char *signon[] = { "soundlist 7 0", "soundlist 1 0",
					 "modellist 1 0", prespawn, "prespawn 1 1",
					 "prespawn 1 2", "prespawn 1 3",
					 "spawn 1 0", "begin 1", NULL };
		const char *chat[] = { "say a", "say_team b", "pings", "info 1",
				       "serverinfo", NULL };
		const char *const wrong[] = { "prespawn 1 0 12345", "prespawn 1 0",
					      "new", "spawn 1 40", "begin 0",
					      "download maps/x.bsp" };

		rc |= game_cmds(d, 0, one);
		rc |= game_cmds(d, ANSWER, dl);
		rc |= game_cmds(d, game_sender(FX_WIDE) | ANSWER, served);
		rc |= game_cmds(d, 0, signon);
		rc |= game_cmds(d, game_sender(FX_WIDE), signon);
		rc |= game_cmds(d, 8 | ANSWER, chat);
		/* the client in its signon: the rest of it, each step alone,
		 * and the ways to get it wrong */
		rc |= game_cmds(d, game_sender(FX_SIGNER), signon + 3);
		rc |= game_cmds(d, game_sender(FX_SIGNER) | ANSWER, signon + 3);
		for (int i = 0; signon[i]; i++) {
			const char *step[] = { signon[i], NULL };

			rc |= game_cmds(d, game_sender(FX_SIGNER), step);
		}
		for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
			const char *step[] = { wrong[i], NULL };

			rc |= game_cmds(d, game_sender(FX_SIGNER), step);
		}
	}
	return rc | game_moves(d);
}

/* ---- server messages -------------------------------------------------- */

static void svc_one(struct msg_buf *m, int svc)
{
	static const struct usercmd nullcmd;
	struct usercmd cmd = { .msec = 13, .forwardmove = 200 };

	msg_write_byte(m, svc);
	switch (svc) {
	case svc_updatestat:
		msg_write_byte(m, STAT_HEALTH);
		msg_write_byte(m, 77);
		break;
	case svc_updatestatlong:
		msg_write_byte(m, STAT_AMMO);
		msg_write_long(m, -5);
		break;
	case svc_setview:
	case svc_stopsound:
	case svc_muzzleflash:
		msg_write_short(m, 1);
		break;
	case svc_sound:
		msg_write_short(m, 0xc000 | 8 << 3 | 2);
		msg_write_byte(m, 200);
		msg_write_byte(m, 64);
		msg_write_byte(m, 3);
		for (int k = 0; k < 3; k++)
			msg_write_coord(m, 16.0f * (float)k);
		break;
	case svc_print:
		msg_write_byte(m, PRINT_HIGH);
		msg_write_string(m, "hello from the server\n");
		break;
	case svc_stufftext:
		msg_write_string(m, "cmd pings;fullserverinfo \"\\hostname\\x\"\n");
		break;
	case svc_setangle:
		for (int k = 0; k < 3; k++)
			msg_write_angle(m, 45.0f * (float)k);
		break;
	case svc_lightstyle:
		msg_write_byte(m, 3);
		msg_write_string(m, "abcz");
		break;
	case svc_damage:
		msg_write_byte(m, 10);
		msg_write_byte(m, 20);
		for (int k = 0; k < 3; k++)
			msg_write_coord(m, 8.0f);
		break;
	case svc_spawnbaseline:
	case svc_spawnstatic:
		if (svc == svc_spawnbaseline)
			msg_write_short(m, 100);
		msg_write_byte(m, 2);
		msg_write_byte(m, 1);
		msg_write_byte(m, 0);
		msg_write_byte(m, 0);
		for (int k = 0; k < 3; k++) {
			msg_write_coord(m, 64.0f);
			msg_write_angle(m, 90.0f);
		}
		break;
	case svc_temp_entity:
		msg_write_byte(m, 5);	/* lightning: entity and two points */
		msg_write_short(m, 1);
		for (int k = 0; k < 6; k++)
			msg_write_coord(m, 4.0f);
		break;
	case svc_setpause:
	case svc_cdtrack:
	case svc_chokecount:
		msg_write_byte(m, 1);
		break;
	case svc_centerprint:
	case svc_finale:
		msg_write_string(m, "centred");
		break;
	case svc_spawnstaticsound:
	case svc_intermission:
		for (int k = 0; k < 3; k++)
			msg_write_coord(m, 1.0f);
		for (int k = 0; k < 3; k++)
			msg_write_byte(m, 10);
		break;
	case svc_updatefrags:
	case svc_updateping:
		msg_write_byte(m, 1);
		msg_write_short(m, 12);
		break;
	case svc_updatepl:
		msg_write_byte(m, 1);
		msg_write_byte(m, 3);
		break;
	case svc_updateentertime:
		msg_write_byte(m, 1);
		msg_write_float(m, 12.5f);
		break;
	case svcx_updatefrags:
	case svcx_updateping:
		msg_write_short(m, 40);
		msg_write_short(m, 12);
		break;
	case svcx_updatepl:
		msg_write_short(m, 40);
		msg_write_byte(m, 3);
		break;
	case svcx_updateentertime:
		msg_write_short(m, 40);
		msg_write_float(m, 1.5f);
		break;
	case svc_updateuserinfo:
	case svcx_updateuserinfo:
		if (svc == svc_updateuserinfo)
			msg_write_byte(m, 2);
		else
			msg_write_short(m, 40);
		msg_write_long(m, 9);
		msg_write_string(m, "\\name\\other\\team\\red");
		break;
	case svc_download:
		msg_write_short(m, 4);
		msg_write_byte(m, 50);
		msg_write_long(m, 0x12345678);
		break;
	case svc_playerinfo:
	case svcx_playerinfo:
		if (svc == svc_playerinfo)
			msg_write_byte(m, 1);
		else
			msg_write_short(m, 40);
		msg_write_short(m, 0x1ff);
		for (int k = 0; k < 3; k++)
			msg_write_coord(m, 100.0f);
		msg_write_byte(m, 3);
		msg_write_byte(m, 13);
		msg_write_delta_usercmd(m, &nullcmd, &cmd);
		for (int k = 0; k < 3; k++)
			msg_write_short(m, 50);
		msg_write_byte(m, 2);
		msg_write_byte(m, 1);
		msg_write_byte(m, 4);
		msg_write_byte(m, 5);
		break;
	case svc_nails:
	case svc_nails2:
		msg_write_byte(m, 2);
		for (int k = 0; k < (svc == svc_nails ? 12 : 14); k++)
			msg_write_byte(m, k);
		break;
	case svc_modellist:
	case svc_soundlist:
		msg_write_byte(m, 0);
		msg_write_string(m, svc == svc_modellist ? "maps/x.bsp" : "a.wav");
		msg_write_string(m, svc == svc_modellist ? "*1" : "b.wav");
		msg_write_byte(m, 0);
		msg_write_byte(m, 0);
		break;
	case svc_packetentities:
	case svcx_packetentities:
		for (int e = 40; e < 44; e++) {
			int bits = U_ORIGIN1 | U_FRAME | U_MOREBITS;

			if (svc == svcx_packetentities) {
				msg_write_short(m, bits);
				msg_write_short(m, e * 3);
			} else {
				msg_write_short(m, bits | e);
			}
			msg_write_byte(m, U_MODEL | U_ANGLE3);
			msg_write_byte(m, 2);
			msg_write_byte(m, 1);
			msg_write_short(m, 800);
			msg_write_byte(m, 64);
		}
		msg_write_short(m, 0);
		break;
	case svc_deltapacketentities:
		msg_write_byte(m, 0);
		msg_write_short(m, 40 | U_REMOVE);
		msg_write_short(m, 45 | U_ORIGIN2);
		msg_write_short(m, 8);
		msg_write_short(m, 0);
		break;
	case svc_maxspeed:
	case svc_entgravity:
		msg_write_float(m, 320.0f);
		break;
	case svc_setinfo:
		msg_write_byte(m, 1);
		msg_write_string(m, "name");
		msg_write_string(m, "renamed");
		break;
	case svc_serverinfo:
		msg_write_string(m, "hostname");
		msg_write_string(m, "fuzzed");
		break;
	case svc_serverdata:
		msg_write_long(m, PROTOCOL_VERSION);
		msg_write_long(m, 2);
		msg_write_string(m, "qw");
		msg_write_byte(m, 0);
		msg_write_string(m, "A level");
		for (int k = 0; k < 10; k++)
			msg_write_float(m, 100.0f * (float)k);
		break;
	default:
		break;
	}
}

static int client_seeds(struct seed_dir *d)
{
	static const int all[] = {
		svc_nop, svc_updatestat, svc_setview, svc_sound, svc_print,
		svc_stufftext, svc_setangle, svc_lightstyle, svc_updatefrags,
		svc_stopsound, svc_damage, svc_spawnstatic, svc_spawnbaseline,
		svc_temp_entity, svc_setpause, svc_centerprint,
		svc_killedmonster, svc_foundsecret, svc_spawnstaticsound,
		svc_intermission, svc_finale, svc_cdtrack, svc_sellscreen,
		svc_smallkick, svc_bigkick, svc_updateping,
		svc_updateentertime, svc_updatestatlong, svc_muzzleflash,
		svc_updateuserinfo, svc_download, svc_playerinfo, svc_nails,
		svc_chokecount, svc_modellist, svc_soundlist,
		svc_packetentities, svc_deltapacketentities, svc_maxspeed,
		svc_entgravity, svc_setinfo, svc_serverinfo, svc_updatepl,
		svc_nails2, svcx_playerinfo, svcx_packetentities,
		svcx_deltapacketentities, svcx_updateuserinfo,
		svcx_updatefrags, svcx_updateping, svcx_updatepl,
		svcx_updateentertime, svc_serverdata, svc_disconnect,
	};
	static const char *const stuffed[] = {
		"changing\n", "reconnect\n", "skins\n", "disconnect\n",
		"cmd spawn 1 0\ncmd begin 1\n", "fullserverinfo \"\\maxclients\\8\"\n",
		"echo \"a;b\";cmd say x\n", "cmd prespawn 1 0 12345",
	};
	static const char *const oob[] = { "c12345", "j", "nno room\n", "l" };
	uint8_t buf[SEED_MAX];
	struct msg_buf every;
	int rc = 0;

	msg_init(&every, buf, sizeof(buf));
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		uint8_t one[256];
		struct msg_buf m;

		msg_init(&m, one, sizeof(one));
		svc_one(&m, all[i]);
		rc |= seed_write(d, "syn", m.data, m.cursize);
		if (all[i] != svc_disconnect && all[i] != svc_serverdata &&
		    all[i] != svcx_deltapacketentities)
			svc_one(&every, all[i]);
	}
	rc |= seed_write(d, "syn", every.data, every.cursize);
	for (size_t i = 0; i < sizeof(stuffed) / sizeof(stuffed[0]); i++) {
		uint8_t one[256];
		struct msg_buf m;

		msg_init(&m, one, sizeof(one));
		msg_write_byte(&m, svc_stufftext);
		msg_write_string(&m, stuffed[i]);
		rc |= seed_write(d, "syn", m.data, m.cursize);
	}
	for (size_t i = 0; i < sizeof(oob) / sizeof(oob[0]); i++) {
		uint8_t pkt[64];
		size_t n = qwc_build_oob(pkt, sizeof(pkt), oob[i]);

		rc |= seed_write(d, "syn", pkt, n);
	}
	return rc;
}

int main(int argc, char **argv)
{
	static struct capture cap;
	static struct fx f;
	static struct fx_client c[FX_CLIENTS];
	int rc = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: mkpackets OOB_DIR GAME_DIR CLIENT_DIR\n");
		return 2;
	}
	cap.oob.dir = argv[1];
	cap.game.dir = argv[2];
	cap.client.dir = argv[3];
	cap.c = c;
	for (int k = 0; k < FX_CLIENTS; k++)
		c[k].fd = -1;
	if (fx_open(&f, FX_MAXCLIENTS) != 0 ||
	    fx_script(&f, c, tap, NULL, &cap) != 0) {
		rc = 1;
	} else {
		cap.cont = true;
		for (int r = 0; r < CONT_ROUNDS; r++)
			for (int k = 0; k < FX_CLIENTS; k++)
				fx_step(&f, &c[k], tap, &cap);
		rc |= cap.failed;
		rc |= oob_seeds(&cap.oob) != 0;
		rc |= game_seeds(&cap.game, f.mapname, f.checksum2) != 0;
		rc |= client_seeds(&cap.client) != 0;
		printf("mkpackets: %d connectionless, %d game, %d client seeds\n",
		       cap.oob.count, cap.game.count, cap.client.count);
	}
	for (int k = 0; k < FX_CLIENTS; k++)
		fx_client_close(&c[k]);
	fx_close(&f);
	return rc ? 1 : 0;
}
