/*
 * run.h -- the state of one run of the bots, shared by the files that
 * run it: run.c (the loop, its phases, the bots' states, the report),
 * sched.c (when each bot sends and what it sends) and io.c (the sockets
 * and the batched system calls).
 *
 * Design note
 *   One thread, one struct run, batched system calls both ways, a loop
 *   paced by a tick.  Everything here is allocated at start-up, sized by
 *   --bots (the bots, their histograms, the batches, the heap); nothing
 *   after.  The functions below are the seams between the three files:
 *   io.c never decides when to send, sched.c never touches a socket, and
 *   run.c only asks both.
 */
#ifndef QWBOTS_RUN_H
#define QWBOTS_RUN_H

#include "qwbots.h"

#include <netinet/in.h>
#include <sys/socket.h>

enum {
	RX_BATCH = 64,
	RX_BUF = 2048,		/* replies are at most 1458 bytes */
	TX_BATCH = 256,
	MAX_EVENTS = 256,
	FEW_SOCKETS = 8,	/* read them all each tick, no epoll needed */
	SOCKBUF_SHARED = 16 << 20,
	SOCKBUF_SINGLE = 256 << 10
};

#define PKTINFO_SPACE CMSG_SPACE(sizeof(struct in_pktinfo))
#define RX_CTL_SPACE (PKTINFO_SPACE + CMSG_SPACE(sizeof(struct timespec)))

enum phase { PH_JOIN, PH_WARMUP, PH_MEASURE, PH_DRAIN, PH_LEAVE, PH_DONE };

/* "join", "warmup", ... by enum phase (run.c) */
extern const char *const qwb_phase_names[];

/* how long the replies to the window's last requests are waited for */
#define DRAIN_MAX 3.0

struct run;

struct bot {
	struct qwc q;
	struct run *run;
	struct qwb_bot_stats *st;
	int id;
	int sock;			/* index into run->fds */
	uint32_t ip;			/* source address, host order (pktinfo) */
	char info[MAX_INFO_STRING];
	struct qwt_rng rng;
	double next_send;
	double connect_time;
	bool in_game;
	bool out;			/* refused or dropped */
	bool track;

	struct qwt_walker walker;
	struct qwb_replay replay;
	struct qwb_spawnmatch spawn;
	const struct actions *actions;
	bool replaying, replay_over;
	vec3_t idle_angles;

	bool origin_valid;
	vec3_t last_origin;
	uint64_t replies_seen, chokes_seen;
	uint32_t first_window_seq;	/* its requests counted in the */
	uint32_t last_window_seq;	/* window: 0 none */
	enum qwc_state last_state;	/* for --verbose */
};

struct rx_batch {
	struct mmsghdr hdr[RX_BATCH];
	struct iovec iov[RX_BATCH];
	struct sockaddr_in from[RX_BATCH];
	union {
		char buf[RX_CTL_SPACE];
		struct cmsghdr align;
	} ctl[RX_BATCH];
	uint8_t data[RX_BATCH][RX_BUF];
};

struct tx_batch {
	int count;
	int sock[TX_BATCH];
	uint32_t src[TX_BATCH];
	size_t len[TX_BATCH];
	struct sockaddr_in to[TX_BATCH];
	int bot[TX_BATCH];		/* whose request, -1: not one */
	uint32_t seq[TX_BATCH];		/* its netchan sequence */
	int order[TX_BATCH];
	struct mmsghdr hdr[TX_BATCH];
	struct iovec iov[TX_BATCH];
	union {
		char buf[PKTINFO_SPACE];
		struct cmsghdr align;
	} ctl[TX_BATCH];
	uint8_t data[TX_BATCH][NETCHAN_MAX_PACKET];
};

/* what the progress line and the series count: every bot in the game,
 * window or not */
struct live {
	uint64_t requests, replies, bytes_in, bytes_out, bad;
};

struct heap_entry {
	double when;		/* the bot's next send */
	int id;
};

struct run {
	const struct qwb_config *cfg;
	struct bot *bots;
	struct qwb_bot_stats *stats;
	int n;

	int *fds;
	int nfds;
	bool pktinfo;
	uint32_t first_ip;
	int per_sock;
	int epfd;
	const volatile sig_atomic_t *stop;
	struct sockaddr_in server_sa;

	struct heap_entry *heap;
	int heap_n;
	int n_in_game;		/* bots in the game now */
	int n_out;		/* bots refused or dropped */
	struct rx_batch *rx;
	struct tx_batch *tx;

	enum phase phase;
	double t0, join_deadline, phase_end;
	double window_start, window_end;
	bool measuring;		/* requests now are in the window */
	double drain_end;
	int next_join;
	int qwdx;
	uint32_t checksum2;
	char map[ACTIONS_MAP_MAX];
	double interval;

	struct actions actions[QWB_MAX_ACTION_FILES];
	int nactions;

	FILE *record;
	double record_start;
	bool record_started;

	/* progress */
	bool tty;
	FILE *series;
	double next_progress;
	struct live live, live_prev;
	struct qwd_hist interval_rt;
	/* --series rows: every cfg->series_interval seconds, their own
	 * counters and response times (the progress line keeps 1 s) */
	struct live series_prev;
	struct qwd_hist series_rt;
	double next_series, series_from;

	/* the report */
	struct qwb_report report;
	double cpu_start_user, cpu_start_sys;
	double server_cpu_start;
	uint64_t foreign, unroutable, send_errors, send_calls, recv_calls;
};

/* io.c: sockets and batches */
int io_open_sockets(struct run *r, char *err, size_t errsize);
/* the bot's source address and socket (from its number) */
void io_bot_address(struct run *r, struct bot *b);
/* build the bot's next packet into the send batch; its length, 0: none */
size_t io_tx_packet(struct run *r, struct bot *b, double now);
/* a connectionless datagram a server asked the bot to send */
void io_tx_stuffed_oob(struct run *r, struct bot *b);
/* send the batch (one sendmmsg per socket in it) */
void io_tx_flush(struct run *r);
/* sleep until `until`, then read every socket that has something */
void io_wait_events(struct run *r, double until);

/* sched.c: the request schedule */
/* start the bots due to join by now */
void sched_start_joins(struct run *r, double now);
/* every request due within a tick, in one batch */
void sched_send_due(struct run *r, double now);
/* when the loop must next run (at least a tick after last) */
double sched_next_wake(const struct run *r, double last);

/* run.c: a bot's state */
/* a datagram for bot b (cut: bigger than the receive buffer) */
void run_deliver(struct run *r, struct bot *b, const uint8_t *data,
		 size_t len, bool cut, double now);
/* after the client library took in a datagram or built one */
void run_check_state(struct run *r, struct bot *b, double now);

#endif
