/*
 * qwd/capture.h -- what the server writes down of a session for later
 * study or replay: its datagrams (a pcap file) and one client's usercmds
 * (a qwbots action file).
 *
 * Design note
 *   Both are recordings of the running server into a bounded file, opened
 *   and closed by the operator (the console's "capture" and "record"
 *   commands, src/server/console.c and record.c) and fed by the server's
 *   receive, send and execute paths.  The module sees addresses
 *   (struct net_addr) and usercmds, never a client or a map, so it stands
 *   on common and net only and the tests drive it with made-up traffic.
 *   Both files share the same rules: created mode 0600, not through a
 *   symbolic link (they hold passwords and what a player did), everything
 *   allocated at open, nothing per datagram or command, and the first
 *   write that would cross the bound (or fails) ends writing, so the file
 *   is a readable, gap-free prefix.
 */
#ifndef QWD_CAPTURE_H
#define QWD_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qwd/common.h"
#include "qwd/net.h"

/* ======================================================================
 * Traffic capture (src/capture/pcap.c)
 * ======================================================================
 *
 * Design note
 *   qwd writes its own datagrams to a pcap file, so Wireshark, tshark,
 *   tools/qwcap and the load generator's action-file recorder (qwbots
 *   --from-pcap) read them as if tcpdump had taken them on the wire.  No
 *   socket is sniffed, so no root and no capability is needed: libpcap
 *   only formats the file (pcap_open_dead + pcap_dump).
 *
 *   Link type DLT_RAW (LINKTYPE_RAW, 101): each record is an IPv4 header
 *   (20 bytes, no options, DF set, TTL 64, a 16-bit identification that
 *   counts records, header checksum computed), a UDP header (8 bytes,
 *   length filled, checksum 0, which RFC 768 allows for IPv4 and which
 *   spares a pass over every reply), then the payload exactly as qwd sent
 *   or received it.  tshark's QuakeWorld dissector picks the packets up by
 *   UDP port 27500 (and tells the direction by it); for a server on
 *   another port use `tshark -o quakeworld.udp.port:PORT`.  (tshark 4.0
 *   flags connectionless packets whose text does not end in a NUL, as
 *   stock clients and servers send them, "malformed"; the netchan packets
 *   decode fully.)
 *
 *   Bounded: the file never grows beyond max_bytes (24-byte file header,
 *   16 bytes per record header, 28 + payload bytes per record).  The first
 *   record that would cross the bound closes the capture for writing: it
 *   and every later one are counted in `dropped` and one log line says
 *   so.  The capture is thus a gap-free prefix of the traffic.  A failed
 *   write (disk full) ends writing the same way.
 *
 *   Memory: everything, the record buffer included, is allocated by
 *   capture_open; capture_packet copies into that buffer and hands it to
 *   pcap_dump (buffered stdio), and never allocates.  The file is created
 *   mode 0600 and not through a symbolic link: a capture holds rcon
 *   passwords and userinfo in clear.
 *
 *   Time: capture_packet takes `now` in seconds on the caller's clock and
 *   stamps now + offset.  capture_open sets the offset to CLOCK_REALTIME -
 *   CLOCK_MONOTONIC, so the server passes sv->realtime (server_clock(),
 *   monotonic) and the records carry wall-clock times;
 *   capture_set_time_offset(cap, 0) takes Unix seconds as they are.
 *
 * Where the server calls what
 *
 *   console    "capture start FILE [MAXMB] [client USERID]":
 *                  cap = capture_open(FILE, MAXMB << 20, &local, &sv->log,
 *                                     err, sizeof(err));
 *              with local = net_udp_local_addr(sv->sock) (an ip of 0,
 *              bound to all addresses, is written as 0.0.0.0; give the
 *              real address if Wireshark should show it);
 *              with "client USERID": capture_set_peer(cap,
 *              &cl->chan.remote) (update it where frame.c follows a NAT
 *              port move, or pass port 0 to keep the whole ip).
 *              "capture stop": capture_close(cap); cap = NULL.
 *              "capture" alone: capture_get_stats for a status line.
 *   in         src/server/frame.c receive_packet(), first statement,
 *              for every datagram (connectionless and A2A_PING too):
 *                  if (sv->capture)
 *                      capture_in(sv->capture, &p->from, p->data, p->len,
 *                                 sv->realtime);
 *   out        after every datagram the server sends:
 *              src/server/send.c, after net_send_commit(sv->tx,
 *              &cl->chan.remote, n) (pkt stays valid until the flush):
 *                  capture_out(cap, &cl->chan.remote, pkt, n, sv->realtime);
 *              and next to each net_udp_send() call: frame.c
 *              receive_packet (A2A_ACK), oob.c send_text and the ping
 *              reply, user.c sv_drop_client (the final svc_disconnect):
 *                  capture_out(cap, to, buf, n, sv->realtime);
 *              (a wrapper sv_send_raw(sv, to, buf, n) that does both keeps
 *              this in one place).  Datagrams the kernel later refuses
 *              are in the capture all the same: it records what qwd sent.
 *   shutdown   capture_close(sv->capture).
 *   Cost per datagram: a copy of the payload into the record buffer and
 *   into stdio's, a 20-byte header checksum, and a write(2) whenever
 *   stdio's buffer fills; with no capture open, one pointer test.
 */

/* the largest record: IPv4 and UDP headers and the biggest datagram qwd
 * reads or sends; longer payloads are written cut to this (the record's
 * wire length stays the real one) */
#define CAPTURE_HEADERS 28
#define CAPTURE_SNAPLEN (CAPTURE_HEADERS + NET_MAX_UDP_PACKET)
/* the bound when capture_open is given 0 */
#define CAPTURE_DEFAULT_MAX_BYTES (64ull << 20)
/* bytes of the pcap file header and of each record's header */
#define CAPTURE_FILE_HEADER 24
#define CAPTURE_RECORD_HEADER 16

struct capture;

struct capture_stats {
	uint64_t records;	/* written */
	uint64_t bytes;		/* file size, the file header included */
	uint64_t max_bytes;	/* the bound */
	uint64_t dropped;	/* not written: bound reached or write failed */
	uint64_t filtered;	/* not to or from the peer (capture_set_peer) */
	uint64_t truncated;	/* written cut to CAPTURE_SNAPLEN */
	bool full;		/* no more records will be written */
	bool write_error;	/* the file could not be written */
};

/* Create (or truncate) path and write the pcap file header.  max_bytes
 * bounds the file (0: CAPTURE_DEFAULT_MAX_BYTES; less than the file
 * header is an error).  server is the server's address, used by
 * capture_in/capture_out; log (kept, may be NULL: stderr) gets the one
 * line when the capture fills up.  Returns NULL with the reason in err
 * (errlen bytes) on failure. */
struct capture *capture_open(const char *path, uint64_t max_bytes,
			     const struct net_addr *server,
			     const struct qwd_log *log, char *err,
			     size_t errlen);

/* Write one datagram from `from` to `to` (payload len bytes) stamped
 * `now` (see Time above).  Returns true when it was written; false when
 * it was filtered or dropped (and counted).  NULL cap: false. */
bool capture_packet(struct capture *cap, const struct net_addr *from,
		    const struct net_addr *to, const void *data, size_t len,
		    double now);
/* a datagram the server received from `from` / sent to `to` */
bool capture_in(struct capture *cap, const struct net_addr *from,
		const void *data, size_t len, double now);
bool capture_out(struct capture *cap, const struct net_addr *to,
		 const void *data, size_t len, double now);

/* Keep only datagrams to or from peer (port 0: any port of its ip);
 * NULL: everything (the default).  The others are counted in filtered. */
void capture_set_peer(struct capture *cap, const struct net_addr *peer);
/* seconds added to `now` for the records' time stamps */
void capture_set_time_offset(struct capture *cap, double offset);

void capture_get_stats(const struct capture *cap, struct capture_stats *out);
/* Push buffered records to the file (so a reader sees them now).
 * Returns 0, or -1 when the write failed (writing then stops). */
int capture_flush(struct capture *cap);
/* Flush, close and free; NULL is a no-op.  Returns 0, or -1 if any write
 * failed (the file then holds what was written before the failure). */
int capture_close(struct capture *cap);

/* ======================================================================
 * Command recorder (src/capture/commands.c)
 * ======================================================================
 *
 * Design note
 *   One client's usercmds, as the server runs them, written as a qwbots
 *   action file (format "qwbots-actions 1", docs/qwbots.md), so a real
 *   player's or a bot's session becomes a replayable workload:
 *   `qwbots --check-actions FILE`, `qwbots --actions FILE`.  The header
 *   (map, spawn origin, source) is written with the first command, whose
 *   origin is the spawn; each command is one line: time (seconds from the
 *   first command, millisecond resolution), msec, pitch, yaw, roll,
 *   forward, side, up, buttons, impulse.
 *
 *   Bounded (max_bytes; the first line that would cross the bound ends
 *   writing, so the file is a readable prefix; one log line says so);
 *   allocation only in recorder_open; the file is created mode 0600, not
 *   through a symbolic link.
 *
 * Where the server calls what (src/server/record.c)
 *   console    "record start FILE [MAXMB] [client USERID]", "record stop",
 *              "record" (status): recorder_open / recorder_close /
 *              recorder_get_stats.
 *   execute    src/server/user.c run_cmd, before the game runs the
 *              command: sv_record_cmd(sv, cl, &cmd) ->
 *              recorder_cmd(rec, sv->realtime, origin, &cmd).
 *   shutdown   recorder_close.
 */

#define RECORD_DEFAULT_MAX_BYTES (16ull << 20)	/* ~45 B a line: 3 h at 30/s */

struct recorder;

struct recorder_stats {
	uint64_t commands;	/* lines written */
	uint64_t bytes;		/* file size, the header included */
	uint64_t max_bytes;	/* the bound */
	uint64_t dropped;	/* not written: bound reached or write failed */
	double seconds;		/* time of the last command written */
	bool full;		/* no more commands will be written */
	bool write_error;
};

/* Create (or truncate) path.  max_bytes bounds the file (0:
 * RECORD_DEFAULT_MAX_BYTES; under 1024 is an error); map (one word, else
 * "unknown") and source (free text) go into the header; log (kept, may
 * be NULL: stderr) gets the one line when writing stops.  NULL with the
 * reason in err on failure. */
struct recorder *recorder_open(const char *path, uint64_t max_bytes,
			       const char *map, const char *source,
			       const struct qwd_log *log, char *err,
			       size_t errlen);
/* One command run at `now` (seconds, a clock that does not go back) by a
 * player standing at origin (NULL: "spawn none" if it is the first).
 * true when written; false when dropped (and counted).  NULL r: false. */
bool recorder_cmd(struct recorder *r, double now, const float origin[3],
		  const struct usercmd *cmd);
/* the map of the header, until the first command has written it (the
 * server's level may load after the recording was asked for) */
void recorder_set_map(struct recorder *r, const char *map);
void recorder_get_stats(const struct recorder *r, struct recorder_stats *out);
/* Push buffered lines to the file.  0, or -1 when the write failed. */
int recorder_flush(struct recorder *r);
/* Flush, close, free (NULL: no-op); a recorder that got no command still
 * leaves a valid, empty action file.  0, or -1 if a write failed. */
int recorder_close(struct recorder *r);

#endif
