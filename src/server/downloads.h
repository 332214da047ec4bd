/*
 * src/server/downloads.h -- the files served to clients: the map, models, sounds, demos
 *
 * Design note
 *   A feature of the server (hooks.h): download.c (the files), transfer.c (the commands and the chunks).
 *   The client commands download, nextdl, stopdl/stopdownload (registered
 *   with the core's table); a chunk of a chunked download into each reply
 *   (the datagram hook) and more out of band after the replies
 *   (replies_sent); the rates from the userinfo (userinfo hook) and when
 *   sv_maxrate changes (upkeep); a level change under a download
 *   (level_client); a dropped client's download closed (client_drop).  Its
 *   state is its own (struct sv_downloads, one struct sv_download per
 *   slot); of the core's it touches each client's channel rate and the
 *   two flags the reply phase reads (transfer_open, transfer_pending),
 *   and reads the client's FTE extensions and userinfo.
 */
#ifndef QWD_SERVER_DOWNLOADS_H
#define QWD_SERVER_DOWNLOADS_H

#include "core.h"

/* An open file: on disk (fd) or the loaded map's bytes (mem).  All-zero
 * is closed. */
struct sv_file {
	bool open;
	int fd;
	const uint8_t *mem;
	size_t size;
};

/* One slot's download in progress (the map or a served file), read a
 * chunk at a time: the stock download at pos; a chunked one (FTE)
 * answers the chunk numbers queued in want, oldest first.  All-zero is
 * none (a slot's is cleared when its client is dropped). */
struct sv_download {
	struct sv_file file;
	size_t pos;
	char name[128];
	int32_t want[SV_DL_QUEUE];	/* a ring: head, count */
	int head, count;
	int32_t number;		/* the client's download number (nextdl) */
	uint64_t frame;		/* the frame frame_chunks counts */
	int frame_chunks;	/* chunks sent to it in that frame */
	uint32_t sent;		/* chunks sent of this download */
	/* a chunked download's own rate, apart from the game's channel: the
	 * client's drate bounded as MVDSV bounds it (bytes/s), and the clock
	 * its chunks are paid on */
	int rate;
	double clear;
	int level;		/* the spawncount it began on */
};

struct sv_downloads {
	struct sv_download *slot;	/* maxclients */
	int queued;			/* chunk requests queued, all clients */
	/* the server-wide download budget's clock: when all the chunks sent
	 * so far are paid for at sv_maxdownloadtotal */
	double budget_clear;
	int turn;			/* the slot the next pump starts at */
	/* the `modified` stamps of sv_maxrate and sv_maxdownloadrate the
	 * clients' rates were last bounded by */
	unsigned maxrate_applied, maxdlrate_applied;
	struct cvar *demodir;		/* the demo feature's sv_demoDir */
};

/* download.c: open a served file by its checked relative name (the map
 * being played, then the game folder, id1, the bundled maps); read len
 * bytes at offset (fewer at the end; 0 on error or past it); close (a
 * closed file may be closed again) */
bool sv_file_open(struct server *sv, struct sv_file *f, const char *name);
/* download.c: open NAME (a plain file name) in the demo folder,
 * <basedir>/<gamedir>/<sv_demoDir> */
bool sv_file_open_demo(struct server *sv, struct sv_file *f, const char *name);
size_t sv_file_read(struct server *sv, struct sv_file *f, size_t offset,
		    void *buf, size_t len);
void sv_file_close(struct sv_file *f);
/* transfer.c: the download commands ("download NAME", "nextdl [CHUNK
 * PERCENT NUMBER]", "stopdl"/"stopdownload"), the stock form or FTE's
 * chunked one as the client negotiated */
void sv_cmd_download(struct server *sv, struct client *cl,
		     const struct net_args *a);
void sv_cmd_nextdl(struct server *sv, struct client *cl,
		   const struct net_args *a);
void sv_cmd_stopdownload(struct server *sv, struct client *cl);
/* transfer.c: refuse a download of name (missing: no such file, else
 * not allowed), in the form the client's download speaks */
void sv_download_refuse(struct client *cl, const char *name, bool missing);
/* transfer.c: the level changed under a client (level.c): its download
 * goes on (ezQuake ignores "reconnect" while it downloads) and is told to
 * reconnect at its end; a file served from the old level's memory is
 * opened again by name, or the download ends */
void sv_download_level_changed(struct server *sv, struct client *cl);
/* transfer.c: end the client's download, if any, silently */
void sv_download_stop(struct server *sv, struct client *cl);
/* transfer.c: the client's rates from its userinfo: the channel's is its
 * "rate" bounded by sv_maxrate (the game's; while a stock download is
 * open, the download's, as its blocks ride in the channel); a chunked
 * download's own is "drate" bounded by sv_maxdownloadrate (else
 * sv_maxrate) */
void sv_apply_rate(struct server *sv, struct client *cl);
/* every client's rates bounded again when sv_maxrate or
 * sv_maxdownloadrate changed since the last call (MVDSV does it when
 * either is set); the frame's upkeep calls it */
void sv_rates_upkeep(struct server *sv);
/* transfer.c: the oldest chunk a client waits for into its reply, if
 * there is room and its download rate and the server's budget allow;
 * the bytes it added (0: none), which the caller gives back to the
 * channel once the reply is sent (send.c, building the reply) */
size_t sv_download_datagram(struct server *sv, struct client *cl,
			    struct msg_buf *m);
/* transfer.c: more chunks out of band, as each client's download rate
 * and the server-wide budget allow (send.c, after the replies, into the
 * same send batch) */
void sv_download_pump(struct server *sv);

#endif
