/*
 * qwcap.h -- QuakeWorld traffic from a packet capture: message counts,
 * sizes and rates per client and direction.
 *
 * Design note
 *   The 2001 QuakeWorld study characterises the server's traffic by the
 *   size distribution of client-to-server and server-to-client messages
 *   and by their rates per client; qwcap measures the same from the wire,
 *   from any capture libpcap reads (qwd's own, src/capture/pcap.c, or
 *   tcpdump -w on an interface or loopback).
 *
 *     analyze.c  the capture's IPv4/UDP datagrams (tools/lib/pcapread.c),
 *                the server found by its port, one record per client
 *                endpoint; each datagram counted by size and walked
 *                message by message (clc_* from the client, svc_* from
 *                the server, skipped by the client library's walker)
 *     report.c   the report as text, or as CSV (one row per client and
 *                direction, and the totals)
 *     main.c     the command line
 *
 *   The server is every address with the server port: --server-port, else
 *   27500 when any datagram uses it, else the port seen in most datagrams
 *   (a first pass counts them).  A client is the other end, keyed by ip and
 *   port (a NAT that moves a client's port shows as a second client).
 *   Sizes are UDP payload bytes, which is what a QuakeWorld message is
 *   (add 28 for the IPv4 and UDP headers, more for the link).  A datagram
 *   the capture cut short (snap length) is counted by its real size from
 *   the headers but not walked.
 *
 *   Every length comes from the capture and is checked before use; the
 *   payloads are read with the msg_* readers, which never read outside
 *   the datagram.  A datagram whose messages cannot be walked to the end
 *   (an unknown message byte, a message cut short) is counted bad; the
 *   messages before the bad one still count.
 *
 *   Memory: a table of client records grown by doubling (a batch tool);
 *   nothing is kept per packet.
 */
#ifndef QWCAP_H
#define QWCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "qwd/net.h"
#include "qwtools.h"

enum qwcap_dir {
	QWCAP_C2S = 0,		/* client to server: requests */
	QWCAP_S2C = 1,		/* server to client: replies */
	QWCAP_DIRS
};

/* Size buckets, by lower edge in payload bytes: fine where moves (about
 * 30-60 bytes) and small replies sit, coarser up to MAX_DATAGRAM (1450)
 * and beyond. */
enum { QWCAP_BUCKETS = 15 };
extern const unsigned qwcap_bucket_lo[QWCAP_BUCKETS];
int qwcap_bucket(size_t size);

/* connectionless packets, by kind */
enum qwcap_oob {
	QWCAP_OOB_GETCHALLENGE = 0,	/* client requests */
	QWCAP_OOB_CONNECT,
	QWCAP_OOB_STATUS,
	QWCAP_OOB_PING,			/* "ping" text, or the 1-byte 'k' */
	QWCAP_OOB_RCON,
	QWCAP_OOB_CHALLENGE,		/* server replies: 'c' */
	QWCAP_OOB_ACCEPT,		/* 'j' */
	QWCAP_OOB_PRINT,		/* 'n' (status, rcon output, refusals) */
	QWCAP_OOB_ACK,			/* 'l', the answer to a ping */
	QWCAP_OOB_OTHER,
	QWCAP_OOB_KINDS
};

/* What one direction of one client (or of all) carried. */
struct qwcap_dir_stats {
	uint64_t packets, bytes;	/* bytes: UDP payload */
	uint32_t min, max;		/* min UINT32_MAX when empty */
	uint64_t hist[QWCAP_BUCKETS];
	uint64_t connectionless;	/* 0xFFFFFFFF packets and 1-byte pings */
	uint64_t oob[QWCAP_OOB_KINDS];
	uint64_t netchan;		/* sequenced packets */
	uint64_t reliable;		/* of those, with the reliable bit */
	uint64_t bad;			/* not walked to the end */
	uint64_t cut;			/* cut by the snap length, not walked */
	uint64_t messages;		/* clc or svc messages walked */
	uint64_t msg[256];		/* per message byte (clc or svc) */
	uint64_t msg_bytes[256];	/* bytes of those, the byte included */
};

struct qwcap_client {
	struct net_addr addr;		/* the client's end */
	struct net_addr server;		/* the server's end */
	int qport;			/* -1 until seen */
	bool extended;			/* asked for QWDX at connect */
	uint32_t fte;			/* FTE's extensions taken at connect */
	double first, last;		/* capture times of its datagrams */
	struct qwcap_dir_stats dir[QWCAP_DIRS];
};

struct qwcap_options {
	int server_port;		/* 0: 27500 if seen, else the busiest */
	size_t max_clients;		/* 0: QWCAP_DEFAULT_MAX_CLIENTS */
};
#define QWCAP_DEFAULT_MAX_CLIENTS 65536

struct qwcap_report {
	int dlt;			/* the capture's link type */
	uint16_t server_port;		/* host order */
	bool port_guessed;		/* not given, not 27500 */
	uint64_t frames;		/* records in the file */
	uint64_t udp;			/* of those, IPv4 UDP datagrams */
	uint64_t skipped;		/* not IPv4/UDP, fragments, short frames */
	uint64_t other;			/* UDP not to or from the server port */
	uint64_t over_limit;		/* datagrams of clients over max_clients */
	bool have_time;
	double first, last;		/* capture times of the server's datagrams */
	struct qwcap_dir_stats total[QWCAP_DIRS];
	struct qwcap_client *clients;	/* in order of first appearance */
	size_t nclients;

	/* private: the table and its index */
	size_t cap, max_clients;
	uint32_t *index;		/* open addressing; 0 empty, else i + 1 */
	size_t index_size;		/* a power of two, >= 2 * cap */
};

/* Read the capture at path.  r is set up here (free it with
 * qwcap_report_free, also after a failure).  Returns 0, or -1 with the
 * reason in err: a file libpcap cannot read, or a read error. */
int qwcap_analyze(const char *path, const struct qwcap_options *opt,
		  struct qwcap_report *r, char *err, size_t errsize);
void qwcap_report_free(struct qwcap_report *r);

/* The parts, for tests and other readers. */
/* an empty report for a server on port (host order) */
void qwcap_report_init(struct qwcap_report *r, uint16_t server_port,
		       size_t max_clients);
/* count one datagram captured at time t (seconds) */
void qwcap_datagram(struct qwcap_report *r, const struct qwt_udp *u,
		    double t);

/* "clc_move", "svc_playerinfo", ...; NULL for a byte with no message */
const char *qwcap_msg_name(enum qwcap_dir dir, int code);
const char *qwcap_oob_name(int kind);
const char *qwcap_dir_name(enum qwcap_dir dir);	/* "c2s", "s2c" */
/* packet and byte rates over seconds (0 when seconds <= 0) */
double qwcap_rate(uint64_t n, double seconds);

/* report.c */
void qwcap_print(const struct qwcap_report *r, FILE *out);
void qwcap_print_csv(const struct qwcap_report *r, FILE *out);

#endif
