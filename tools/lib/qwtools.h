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
 *     walker.c    the bots' seeded generator and the random walker of the
 *                 parallel-QuakeWorld study; used by qwbots (its walker
 *                 behaviour) and framebench (its players)
 */
#ifndef QWTOOLS_H
#define QWTOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qwd/net.h"
#include "qwd/common.h"

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
/* The machine a benchmark ran on, as its report and JSON name it: the
 * date (UTC), the CPU model, the RAM (from /proc). */
struct qwt_machine {
	char date[64], cpu[256], ram[64];
};
void qwt_machine_read(struct qwt_machine *m);
/* "tool", "date", "cpu", "ram" and "cpus_online" as the first fields of a
 * benchmark's JSON object, one a line */
void qwt_json_machine(struct json_out *j, const char *tool,
		      const struct qwt_machine *m);

/* ---- seeded bots: generator and random walker (walker.c) ----------------- */

/* SplitMix64 (Steele, Lea, Flood 2014): one 64-bit word of state, every
 * seed valid, good enough statistics for choosing actions and jitter.  One
 * generator per bot, seeded from (run seed, bot number), so a bot's
 * choices do not depend on how the others were scheduled. */
struct qwt_rng {
	uint64_t state;
};

void qwt_rng_seed(struct qwt_rng *r, uint64_t seed, uint64_t stream);
uint64_t qwt_rng_next(struct qwt_rng *r);
/* uniform in [0, 1) */
double qwt_rng_unit(struct qwt_rng *r);
/* uniform in [0, n), n > 0 */
uint32_t qwt_rng_below(struct qwt_rng *r, uint32_t n);

/* The random walker: frames counted from the bot's spawn; each cycle is
 * `idle` frames standing, then walking; `walk` frames after the start of
 * the walk one action (jump, fire or a turn to a random yaw) is taken;
 * `after` frames later the bot stops and the cycle repeats.  The study's
 * numbers are 10, 5, 5. */
struct qwt_walker_params {
	int idle, walk, after;
	int speed;		/* forwardmove while walking */
};

enum qwt_walker_action {
	QWT_ACT_NONE = 0,
	QWT_ACT_JUMP,
	QWT_ACT_FIRE,
	QWT_ACT_TURN
};

struct qwt_walker {
	uint32_t frame;		/* frames since the start */
	float yaw;		/* the current facing */
	uint32_t actions[4];	/* how often each action was taken */
};

void qwt_walker_start(struct qwt_walker *w, float yaw);
/* Fill cmd (all but msec) for the next frame; returns the action taken in
 * it (QWT_ACT_NONE on most frames). */
enum qwt_walker_action qwt_walker_step(struct qwt_walker *w,
				       const struct qwt_walker_params *p,
				       struct qwt_rng *r, struct usercmd *cmd);
const char *qwt_action_name(enum qwt_walker_action a);
/* zero every field of cmd but msec (what a behaviour fills afresh) */
void qwt_cmd_clear(struct usercmd *cmd);

#endif
