/*
 * qwd/protocol.h -- QuakeWorld protocol 28 on the wire, and qwd's extension.
 *
 * Design note
 *   Not a module but the contract every module that speaks to clients shares:
 *   the server, the load generator (tools/qwbots) and the protocol tests.
 *   The numbers are protocol 28's (id's QuakeWorld 2.40, kept by MVDSV and
 *   ezQuake) and are reproduced because interoperability needs them.
 *
 *   Server to client, per reply (one datagram, at most MAX_DATAGRAM bytes):
 *     netchan header | reliable part (if any) | svc_* messages
 *   Client to server:
 *     netchan header + qport | clc_move / clc_stringcmd / clc_delta ...
 *
 *   The qwd extension ("QWDX", docs/protocol-extension.md) widens player
 *   numbers and entity numbers for clients that ask for it at connect time;
 *   stock clients keep protocol 28 exactly.
 */
#ifndef QWD_PROTOCOL_H
#define QWD_PROTOCOL_H

#define PROTOCOL_VERSION 28
#define PORT_SERVER 27500

/* connectionless replies: 0xFFFFFFFF then one of these */
#define S2C_CHALLENGE 'c'
#define S2C_CONNECTION 'j'
#define A2A_PING 'k'
#define A2A_ACK 'l'
#define A2C_PRINT 'n'

/* server to master server (no 0xFF header): "a\n<sequence>\n<players>\n"
 * every few minutes, "C\n" when the server stops */
#define PORT_MASTER 27000
#define S2M_HEARTBEAT 'a'
#define S2M_SHUTDOWN 'C'

/* server to client */
enum svc {
	svc_bad = 0,
	svc_nop = 1,
	svc_disconnect = 2,
	svc_updatestat = 3,
	svc_setview = 5,
	svc_sound = 6,
	svc_print = 8,
	svc_stufftext = 9,
	svc_setangle = 10,
	svc_serverdata = 11,
	svc_lightstyle = 12,
	svc_updatefrags = 14,
	svc_stopsound = 16,
	svc_damage = 19,
	svc_spawnstatic = 20,
	svc_spawnbaseline = 22,
	svc_temp_entity = 23,
	svc_setpause = 24,
	svc_centerprint = 26,
	svc_killedmonster = 27,
	svc_foundsecret = 28,
	svc_spawnstaticsound = 29,
	svc_intermission = 30,
	svc_finale = 31,
	svc_cdtrack = 32,
	svc_sellscreen = 33,
	svc_smallkick = 34,
	svc_bigkick = 35,
	svc_updateping = 36,
	svc_updateentertime = 37,
	svc_updatestatlong = 38,
	svc_muzzleflash = 39,
	svc_updateuserinfo = 40,
	svc_download = 41,
	svc_playerinfo = 42,
	svc_nails = 43,
	svc_chokecount = 44,
	svc_modellist = 45,
	svc_soundlist = 46,
	svc_packetentities = 47,
	svc_deltapacketentities = 48,
	svc_maxspeed = 49,
	svc_entgravity = 50,
	svc_setinfo = 51,
	svc_serverinfo = 52,
	svc_updatepl = 53,
	svc_nails2 = 54,
	/* qwd extension (only to clients that negotiated it) */
	svcx_playerinfo = 200,		/* as svc_playerinfo, short player number */
	svcx_packetentities = 201,	/* as svc_packetentities, wide numbers */
	svcx_deltapacketentities = 202,
	svcx_updateuserinfo = 203,	/* short slot */
	svcx_updatefrags = 204,		/* short slot */
	svcx_updateping = 205,		/* short slot */
	svcx_updatepl = 206,		/* short slot */
	svcx_updateentertime = 207	/* short slot */
};

/* client to server */
enum clc {
	clc_bad = 0,
	clc_nop = 1,
	clc_move = 3,
	clc_stringcmd = 4,
	clc_delta = 5,
	clc_tmove = 6,		/* three coords: a spectator's new origin */
	clc_upload = 7		/* short size, byte percent, size bytes */
};

/* svc_playerinfo flags */
#define PF_MSEC (1 << 0)
#define PF_COMMAND (1 << 1)
#define PF_VELOCITY1 (1 << 2)
#define PF_VELOCITY2 (1 << 3)
#define PF_VELOCITY3 (1 << 4)
#define PF_MODEL (1 << 5)
#define PF_SKINNUM (1 << 6)
#define PF_EFFECTS (1 << 7)
#define PF_WEAPONFRAME (1 << 8)
#define PF_DEAD (1 << 9)
#define PF_GIB (1 << 10)

/* packet entity update: 9 bits of entity number and 7 flag bits, then
 * (with U_MOREBITS) a byte of more flags */
#define U_ORIGIN1 (1 << 9)
#define U_ORIGIN2 (1 << 10)
#define U_ORIGIN3 (1 << 11)
#define U_ANGLE2 (1 << 12)
#define U_FRAME (1 << 13)
#define U_REMOVE (1 << 14)
#define U_MOREBITS (1 << 15)
#define U_ANGLE1 (1 << 0)
#define U_ANGLE3 (1 << 1)
#define U_MODEL (1 << 2)
#define U_COLORMAP (1 << 3)
#define U_SKIN (1 << 4)
#define U_EFFECTS (1 << 5)
#define U_SOLID (1 << 6)
#define U_CHECKMOREBITS ((1 << 9) - 1)

/* svc_temp_entity types, and what follows the type byte: a count and
 * a point (gunshot, blood), an entity short and two points (the beams),
 * else one point */
enum te_type {
	TE_SPIKE = 0,
	TE_SUPERSPIKE = 1,
	TE_GUNSHOT = 2,		/* + count */
	TE_EXPLOSION = 3,
	TE_TAREXPLOSION = 4,
	TE_LIGHTNING1 = 5,	/* entity, start, end */
	TE_LIGHTNING2 = 6,
	TE_WIZSPIKE = 7,
	TE_KNIGHTSPIKE = 8,
	TE_LIGHTNING3 = 9,
	TE_LAVASPLASH = 10,
	TE_TELEPORT = 11,
	TE_BLOOD = 12,		/* + count */
	TE_LIGHTNINGBLOOD = 13
};

/* svc_sound: flags above the entity and channel in its first short; a
 * volume byte and an attenuation byte follow when they are set */
#define SND_VOLUME (1 << 15)
#define SND_ATTENUATION (1 << 14)

/* svc_print levels */
#define PRINT_LOW 0
#define PRINT_MEDIUM 1
#define PRINT_HIGH 2
#define PRINT_CHAT 3

/* usercmd buttons */
#define BUTTON_ATTACK (1 << 0)
#define BUTTON_JUMP (1 << 1)

/* stats (svc_updatestat index) */
enum client_stat {
	STAT_HEALTH = 0,
	STAT_WEAPON = 2,
	STAT_AMMO = 3,
	STAT_ARMOR = 4,
	STAT_WEAPONFRAME = 5,
	STAT_SHELLS = 6,
	STAT_NAILS = 7,
	STAT_ROCKETS = 8,
	STAT_CELLS = 9,
	STAT_ACTIVEWEAPON = 10,
	STAT_TOTALSECRETS = 11,
	STAT_TOTALMONSTERS = 12,
	STAT_SECRETS = 13,
	STAT_MONSTERS = 14,
	STAT_ITEMS = 15,
	MAX_CL_STATS = 32
};

/* limits of protocol 28 */
enum {
	MAX_CLIENTS = 32,		/* player numbers 0..31 */
	MAX_EDICTS_P28 = 512,		/* entity numbers in 9 bits */
	MAX_PACKET_ENTITIES = 64,	/* per reply */
	UPDATE_BACKUP = 64,		/* frames a client may delta from */
	UPDATE_MASK = UPDATE_BACKUP - 1,
	MAX_MSGLEN = 1450,		/* reliable message */
	MAX_DATAGRAM = 1450,		/* one reply */
	MAX_MODELS = 256,
	MAX_SOUNDS = 256,
	MAX_LIGHTSTYLES = 64,
	MAX_STYLESTRING = 64
};

/* FTE's protocol extensions, as MVDSV and ezQuake negotiate them
 * (docs/downloads.md): the challenge reply carries, after "c<challenge>"
 * and its NUL, pairs of little-endian longs (this tag, the server's
 * flags); the client appends the line "0x<tag> 0x<flags>" to its connect
 * packet with the flags it takes.  qwd offers chunked downloads only. */
#define PROTOCOL_VERSION_FTE 0x58455446u	/* "FTEX" read as a long */
#define FTE_PEXT_CHUNKEDDOWNLOADS 0x20000000u
/* a chunk: svc_download, long chunk number, FTE_CHUNK bytes (the last
 * one padded); one sent out of band starts with A2C_PRINT, this tag and
 * the long download number the client gave in its nextdl */
#define FTE_CHUNK_OOB_TAG "\\chunk"
enum { FTE_CHUNK = 1024 };

/* Client and server capabilities in the "*z_ext" key (the client's
 * userinfo at connect, the server's serverinfo), ZQuake's flags as MVDSV
 * and ezQuake read them.  qwd offers only join/observe: a spectator
 * becomes a player (and back) without reconnecting, and the client
 * switches its view when its own "*spectator" changes. */
#define Z_EXT_JOIN_OBSERVE (1 << 5)

/* qwd extension limits (docs/protocol-extension.md) */
#define QWDX_PROTOCOL_NAME "QWDX"
#define QWDX_VERSION 1
enum {
	QWDX_MAX_CLIENTS = 4096,
	QWDX_MAX_EDICTS = 65535,
	QWDX_MAX_PACKET_ENTITIES = 256
};

#endif
