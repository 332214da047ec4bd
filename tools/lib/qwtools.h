/*
 * qwtools.h -- what the tools share and the server does not use: reading
 * packet captures and sampling other processes through /proc.
 *
 * Design note
 *   libqwtools.a (the .c files of tools/lib, built by the Makefile) is linked by every
 *   tool beside libqwd.a, so no tool copies another's code; what the
 *   server also needs (clocks, the histogram, the JSON writer, the action
 *   files) lives in src/ instead, one level down.  Nothing here keeps
 *   hidden state: every reader is a struct the caller owns.
 *
 *     pcapread.c  the IPv4/UDP datagrams of a capture file (anything
 *                 libpcap reads: tcpdump -w, pcapng, qwd's own capture)
 *                 with every offset checked against the captured length;
 *                 used by qwcap (traffic analysis) and qwbots --from-pcap
 *     procstat.c  CPU time of a process (/proc/PID/stat, schedstat) and
 *                 of this one (getrusage); the machine's description
 *                 (/proc/cpuinfo, /proc/meminfo); used by qwbots,
 *                 udpecho and the benchmarks
 */
#ifndef QWTOOLS_H
#define QWTOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qwd/net.h"

/* ---- packet captures (pcapread.c) ---------------------------------------- */

/* One IPv4/UDP datagram found in a frame. */
struct qwt_udp {
	struct net_addr src, dst;	/* network order */
	const uint8_t *data;		/* the payload as captured */
	size_t len;			/* its real length (UDP header) */
	size_t caplen;			/* bytes of it captured, <= len */
};

/* The datagram in one frame of link type dlt (Ethernet with 802.1Q/802.1ad
 * tags, Linux cooked v1 and v2, BSD loopback, raw IPv4); false when there
 * is none: another link type or protocol, an IPv4 fragment, a header
 * that does not add up or was not captured.  A payload cut by the snap
 * length is returned with caplen < len. */
bool qwt_frame_udp(int dlt, const uint8_t *p, size_t caplen,
		   struct qwt_udp *u);

/* A capture file open for reading, record by record. */
struct qwt_pcap {
	void *pc;		/* the libpcap handle */
	const char *path;	/* for messages; the caller's string */
	int dlt;		/* the file's link type */
};

/* 0, or -1 with "path: reason" in err. */
int qwt_pcap_open(struct qwt_pcap *r, const char *path, char *err,
		  size_t errsize);
/* The next record: 1 with its capture time in *t (Unix seconds) and, when
 * it holds an IPv4/UDP datagram, *is_udp true and u filled (pointing into
 * libpcap's buffer, valid until the next call); 0 at the end of the file;
 * -1 on a read error, with "path: reason" in err. */
int qwt_pcap_next(struct qwt_pcap *r, struct qwt_udp *u, bool *is_udp,
		  double *t, char *err, size_t errsize);
void qwt_pcap_close(struct qwt_pcap *r);

/* ---- processes and the machine (procstat.c) ------------------------------ */

/* CPU time of a process, user and system, in seconds, from the clock-tick
 * counts of /proc/PID/stat (10 ms resolution); -1 if unknown (pid <= 0,
 * no such process). */
double qwt_proc_cpu_ticks_s(long pid);
/* The same from /proc/PID/task/<tid>/schedstat, summed over the threads
 * (nanosecond resolution); the tick count where the kernel keeps no run
 * time statistics; -1 if unknown. */
double qwt_proc_cpu_s(long pid);
/* this process's own CPU time, user and system seconds (getrusage) */
void qwt_self_cpu(double *user_s, double *sys_s);
/* The value of the first "key: value" line of a /proc text file such as
 * /proc/cpuinfo ("model name") or /proc/meminfo ("MemTotal"), into out
 * (always terminated); "unknown" when the file or the key is missing. */
void qwt_proc_value(const char *file, const char *key, char *out,
		    size_t outsize);

#endif
