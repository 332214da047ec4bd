/*
 * pcap.c -- qwd's own datagrams into a pcap file (see the "Traffic
 * capture" section of qwd/capture.h for the contract and the server hooks).
 *
 * Design note
 *   One record per datagram, link type DLT_RAW, laid out as the kernel
 *   would have put it on the wire:
 *
 *     IPv4  0 ver/ihl 0x45 | tos 0 | total length (28 + payload)
 *           4 identification (record counter) | flags DF, offset 0
 *           8 ttl 64 | protocol 17 | header checksum (RFC 791)
 *          12 source ip | 16 destination ip         (network order)
 *     UDP  20 source port | destination port | length (8 + payload)
 *          26 checksum 0 ("no checksum", RFC 768, legal over IPv4)
 *          28 payload
 *
 *   The record is assembled in a buffer allocated at open and handed to
 *   pcap_dump, which copies it into stdio's buffer.  Invariants: bytes is
 *   exactly the size of what has been handed to the file; once `full` is
 *   set it stays set and nothing more is written, so the bound holds and
 *   the file has no holes.  The file is opened by hand (O_NOFOLLOW, mode
 *   0600) and given to pcap_dump_fopen, because pcap_dump_open would
 *   follow a planted link and create the file readable by everyone.
 */
#include "qwd/capture.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pcap/pcap.h>

struct capture {
	pcap_t *dead;
	pcap_dumper_t *dump;
	const struct qwd_log *log;
	char path[256];		/* for the log line (cut if longer) */
	struct net_addr server;
	struct net_addr peer;
	bool has_peer;
	double time_offset;
	uint16_t ip_id;
	struct capture_stats st;
	uint8_t record[CAPTURE_SNAPLEN];
};

/* ---- header fields ---------------------------------------------------- */

static void put_be16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* the internet checksum (RFC 1071) of an even number of bytes */
static uint16_t ip_checksum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* IPv4 and UDP headers for a payload of len bytes (len <= 65507) */
static void write_headers(struct capture *cap, const struct net_addr *from,
			  const struct net_addr *to, size_t len)
{
	uint8_t *ip = cap->record, *udp = cap->record + 20;

	memset(ip, 0, CAPTURE_HEADERS);
	ip[0] = 0x45;
	put_be16(ip + 2, (unsigned)(CAPTURE_HEADERS + len));
	put_be16(ip + 4, cap->ip_id++);
	put_be16(ip + 6, 0x4000);	/* DF: a datagram is never fragmented */
	ip[8] = 64;
	ip[9] = 17;
	/* addresses and ports are kept in network order already */
	memcpy(ip + 12, &from->ip, 4);
	memcpy(ip + 16, &to->ip, 4);
	put_be16(ip + 10, ip_checksum(ip, 20));
	memcpy(udp, &from->port, 2);
	memcpy(udp + 2, &to->port, 2);
	put_be16(udp + 4, (unsigned)(8 + len));
}

static void stamp(struct timeval *tv, double t)
{
	double sec;
	long usec;

	if (!isfinite(t) || t < 0)
		t = 0;
	if (t > 4e9)
		t = 4e9;	/* past 2096: keep tv_sec in 32 bits (pcap) */
	sec = floor(t);
	usec = lround((t - sec) * 1e6);
	if (usec >= 1000000) {
		sec += 1;
		usec -= 1000000;
	}
	tv->tv_sec = (time_t)sec;
	tv->tv_usec = (suseconds_t)usec;
}

/* ---- open and close --------------------------------------------------- */

static FILE *create_private(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		      0600);
	FILE *f;

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	f = fdopen(fd, "wb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

struct capture *capture_open(const char *path, uint64_t max_bytes,
			     const struct net_addr *server,
			     const struct qwd_log *log, char *err,
			     size_t errlen)
{
	struct capture *cap;
	FILE *f;

	if (!path || !*path) {
		snprintf(err, errlen, "capture: no file name");
		return NULL;
	}
	if (max_bytes == 0)
		max_bytes = CAPTURE_DEFAULT_MAX_BYTES;
	if (max_bytes < CAPTURE_FILE_HEADER) {
		snprintf(err, errlen, "%s: a bound of %llu bytes holds no capture",
			 path, (unsigned long long)max_bytes);
		return NULL;
	}
	cap = calloc(1, sizeof(*cap));
	if (!cap) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	cap->dead = pcap_open_dead(DLT_RAW, CAPTURE_SNAPLEN);
	if (!cap->dead) {
		snprintf(err, errlen, "%s: libpcap: out of memory", path);
		free(cap);
		return NULL;
	}
	f = create_private(path, err, errlen);
	if (!f) {
		pcap_close(cap->dead);
		free(cap);
		return NULL;
	}
	cap->dump = pcap_dump_fopen(cap->dead, f);
	if (!cap->dump) {
		snprintf(err, errlen, "%s: %s", path, pcap_geterr(cap->dead));
		fclose(f);
		pcap_close(cap->dead);
		free(cap);
		return NULL;
	}
	snprintf(cap->path, sizeof(cap->path), "%s", path);
	cap->log = log;
	if (server)
		cap->server = *server;
	cap->time_offset = qwd_mono_to_wall_s();
	cap->st.max_bytes = max_bytes;
	cap->st.bytes = CAPTURE_FILE_HEADER;
	return cap;
}

/* Stop writing for good; say why once. */
static void stop(struct capture *cap, bool write_error)
{
	if (cap->st.full)
		return;
	cap->st.full = true;
	if (write_error) {
		cap->st.write_error = true;
		qwd_logf(cap->log, QWD_LOG_ERROR,
			 "capture %s: write failed after %llu records; capture stopped",
			 cap->path, (unsigned long long)cap->st.records);
	} else {
		qwd_logf(cap->log, QWD_LOG_WARN,
			 "capture %s: size bound of %llu bytes reached after %llu "
			 "records; later packets are not captured",
			 cap->path, (unsigned long long)cap->st.max_bytes,
			 (unsigned long long)cap->st.records);
	}
}

int capture_flush(struct capture *cap)
{
	if (!cap)
		return 0;
	if (cap->st.write_error)
		return -1;
	if (pcap_dump_flush(cap->dump) != 0 || ferror(pcap_dump_file(cap->dump))) {
		stop(cap, true);
		return -1;
	}
	return 0;
}

int capture_close(struct capture *cap)
{
	int rc;

	if (!cap)
		return 0;
	rc = capture_flush(cap);
	/* pcap_dump_close closes the FILE, which may flush a last time */
	pcap_dump_close(cap->dump);
	pcap_close(cap->dead);
	free(cap);
	return rc;
}

/* ---- records ---------------------------------------------------------- */

static bool matches(const struct net_addr *peer, const struct net_addr *a)
{
	return a->ip == peer->ip && (peer->port == 0 || a->port == peer->port);
}

bool capture_packet(struct capture *cap, const struct net_addr *from,
		    const struct net_addr *to, const void *data, size_t len,
		    double now)
{
	struct pcap_pkthdr h;
	size_t caplen;

	if (!cap || !from || !to || (!data && len))
		return false;
	if (cap->has_peer && !matches(&cap->peer, from) &&
	    !matches(&cap->peer, to)) {
		cap->st.filtered++;
		return false;
	}
	/* no IPv4 datagram carries more: such a payload is not a datagram */
	if (len > 65535 - CAPTURE_HEADERS) {
		cap->st.dropped++;
		return false;
	}
	caplen = CAPTURE_HEADERS + len;
	if (caplen > CAPTURE_SNAPLEN)
		caplen = CAPTURE_SNAPLEN;
	if (!cap->st.full &&
	    cap->st.bytes + CAPTURE_RECORD_HEADER + caplen > cap->st.max_bytes)
		stop(cap, false);
	if (cap->st.full) {
		cap->st.dropped++;
		return false;
	}
	write_headers(cap, from, to, len);
	if (caplen > CAPTURE_HEADERS)
		memcpy(cap->record + CAPTURE_HEADERS, data, caplen - CAPTURE_HEADERS);
	stamp(&h.ts, now + cap->time_offset);
	h.caplen = (bpf_u_int32)caplen;
	h.len = (bpf_u_int32)(CAPTURE_HEADERS + len);
	pcap_dump((u_char *)cap->dump, &h, cap->record);
	if (ferror(pcap_dump_file(cap->dump))) {
		stop(cap, true);
		cap->st.dropped++;
		return false;
	}
	cap->st.records++;
	cap->st.bytes += CAPTURE_RECORD_HEADER + caplen;
	if (caplen < h.len)
		cap->st.truncated++;
	return true;
}

bool capture_in(struct capture *cap, const struct net_addr *from,
		const void *data, size_t len, double now)
{
	if (!cap)
		return false;
	return capture_packet(cap, from, &cap->server, data, len, now);
}

bool capture_out(struct capture *cap, const struct net_addr *to,
		 const void *data, size_t len, double now)
{
	if (!cap)
		return false;
	return capture_packet(cap, &cap->server, to, data, len, now);
}

void capture_set_peer(struct capture *cap, const struct net_addr *peer)
{
	if (!cap)
		return;
	cap->has_peer = peer != NULL;
	if (peer)
		cap->peer = *peer;
}

void capture_set_time_offset(struct capture *cap, double offset)
{
	if (cap)
		cap->time_offset = offset;
}

void capture_get_stats(const struct capture *cap, struct capture_stats *out)
{
	if (!cap) {
		memset(out, 0, sizeof(*out));
		return;
	}
	*out = cap->st;
}
