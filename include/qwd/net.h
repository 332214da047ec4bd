/*
 * qwd/net.h -- UDP sockets, the QuakeWorld netchan, connectionless helpers
 * and the small security pieces around them.
 *
 * Design note
 *   Nothing here allocates after start-up and nothing keeps hidden state:
 *   every buffer, counter and key lives in a struct the caller owns.
 *
 *   net_addr / net_udp   IPv4 addresses (network byte order) and a
 *                        non-blocking UDP socket read with recvmmsg and
 *                        written with sendto/sendmmsg in fixed batches;
 *                        or, for a server driven in-process, queues in
 *                        memory that stand in for the socket (net_mem);
 *                        or through one io_uring (net_uring: receives,
 *                        sends and the frame's wait in one call).
 *   netchan              protocol 28 sequencing, one side of a connection;
 *                        the same code serves the server (reads the qport)
 *                        and a client or bot (writes it).
 *   oob / net_args       connectionless packets (four 0xFF bytes and a
 *                        text line) and a Quake-style line tokenizer.
 *   net_siphash24,       a keyed hash, stateless challenges built on it,
 *   challenge_,          a constant-time password compare and a per-address
 *   ratelimit_           token-bucket rate limiter for cheap-to-send,
 *                        costly-to-answer requests.
 *
 *   Time is always a caller-supplied `double now` in seconds from any
 *   monotonic clock (the same clock for all calls on one object).
 */
#ifndef QWD_NET_H
#define QWD_NET_H

#include <qwd/common.h>

/* struct mmsghdr (recvmmsg/sendmmsg) is a GNU extension: the Makefile
 * builds everything with -D_GNU_SOURCE */
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>

/* ---- limits ----------------------------------------------------------- */

/* Largest datagram read from the socket; larger ones arrive cut and are
 * dropped and counted (no valid QW packet comes near this). */
#define NET_MAX_UDP_PACKET 8192
/* Largest netchan payload: the reliable message, and reliable plus
 * unreliable data in one packet (QW protocol.h MAX_MSGLEN/MAX_DATAGRAM). */
#define NET_MAX_MSGLEN 1450
#define NET_MAX_DATAGRAM 1450
/* netchan header: sequence and ack (8 bytes), plus the qport (2) that only
 * client-to-server packets carry */
#define NETCHAN_HEADER 8
#define NETCHAN_HEADER_QPORT 10
/* the biggest datagram netchan_transmit builds */
#define NETCHAN_MAX_PACKET (NETCHAN_HEADER_QPORT + NET_MAX_MSGLEN)
/* datagrams per recvmmsg/sendmmsg call */
#define NET_BATCH 64

/* ---- addresses -------------------------------------------------------- */

/* An IPv4 endpoint.  Both fields are in network byte order, as in a
 * sockaddr_in, so conversion is a copy. */
struct net_addr {
	uint32_t ip;
	uint16_t port;
};

/* "255.255.255.255:65535" and its NUL */
#define NET_ADDR_STRLEN 22

/* same ip and port */
bool net_addr_equal(const struct net_addr *a, const struct net_addr *b);
/* same ip, any port (QW's "base address": clients behind NAT are matched by
 * ip and qport, and their port may change) */
bool net_addr_equal_ip(const struct net_addr *a, const struct net_addr *b);
/* "a.b.c.d:port" into out (NET_ADDR_STRLEN bytes); returns out */
char *net_addr_format(const struct net_addr *a, char out[NET_ADDR_STRLEN]);
/* Parse a numeric "a.b.c.d" or "a.b.c.d:port" (port in decimal, 0-65535;
 * default_port, host order, when absent).  Never blocks.  False on any
 * syntax error, *out untouched. */
bool net_addr_parse(const char *s, uint16_t default_port,
		    struct net_addr *out);
/* The same, and host names too (getaddrinfo, IPv4 only).  May block on
 * DNS: for start-up and configuration, never in the frame loop.  On
 * failure returns false and puts the reason in err. */
bool net_addr_resolve(const char *s, uint16_t default_port,
		      struct net_addr *out, char *err, size_t errsize);
void net_addr_to_sockaddr(const struct net_addr *a, struct sockaddr_in *sa);
void net_addr_from_sockaddr(const struct sockaddr_in *sa, struct net_addr *a);

/* ---- UDP socket ------------------------------------------------------- */

struct net_mem;

/* Counters of one socket; the caller owns it and may zero it at any time. */
struct net_stats {
	uint64_t packets_in, bytes_in;
	uint64_t packets_out, bytes_out;
	uint64_t oversized_in;	/* over NET_MAX_UDP_PACKET, dropped */
	uint64_t recv_errors;	/* failed receive calls (not EAGAIN) */
	uint64_t send_errors;	/* datagrams that could not be sent */
	uint64_t recv_calls, send_calls; /* system calls, to judge batching */
	uint64_t wait_calls;	/* select and nanosleep calls (sys_ticrate;
				   the uring path's checks too) */
	uint64_t enter_calls;	/* io_uring_enter calls (the uring path);
				   the four added: the socket's system calls */
};

/* Open a non-blocking UDP socket bound to ip ("" or NULL: all addresses)
 * and port (host order; 0: an ephemeral port).  SO_REUSEADDR stays off,
 * so a second server on the same port fails instead of sharing it.
 * Returns the descriptor, or -1 with a readable reason in err. */
int net_udp_open(const char *ip, uint16_t port, char *err, size_t errsize);
/* the address the socket is bound to (to learn an ephemeral port) */
bool net_udp_local_addr(int fd, struct net_addr *out);
/* Best effort: ask for kernel buffers of `bytes` each way (a burst of many
 * clients' packets must not overflow the default).  False if refused. */
bool net_udp_set_buffers(int fd, int bytes);
void net_udp_close(int fd);

/* One received datagram; data points into the batch's own storage and is
 * valid until the next net_udp_recv_batch on that batch. */
struct net_packet {
	struct net_addr from;
	uint8_t *data;
	size_t len;
};

/* Fixed storage for one recvmmsg call (about 530 KB: allocate it once at
 * start-up, never on the stack).  Only count and packets[] are for the
 * caller; the rest is the kernel's scratch. */
struct net_recv_batch {
	size_t count;
	struct net_packet packets[NET_BATCH];

	size_t used;		/* headers the last call wrote (udp.c) */

	struct mmsghdr hdr[NET_BATCH];
	struct iovec iov[NET_BATCH];
	struct sockaddr_in name[NET_BATCH];
	uint8_t buf[NET_BATCH][NET_MAX_UDP_PACKET];
};

/* Read up to NET_BATCH waiting datagrams without blocking.  Oversized ones
 * are dropped and counted.  Returns the number kept in b->packets (0 when
 * nothing was waiting) or -1 on a socket error (counted; b->count = 0). */
int net_udp_recv_batch(int fd, struct net_recv_batch *b,
		       struct net_stats *st);

/* Send one datagram now.  False if the kernel refused it (counted). */
bool net_udp_send(int fd, const struct net_addr *to, const void *data,
		  size_t len, struct net_stats *st);

/* Outgoing datagrams gathered for one sendmmsg call.  Build each packet in
 * place: p = net_send_slot(b, &max); len = build(p, max);
 * net_send_commit(b, to, len).  A full batch flushes itself, so a slot is
 * always available.  Same size advice as net_recv_batch. */
struct net_uring;

struct net_send_batch {
	int fd;
	struct net_mem *mem;	/* non-NULL: flushed into this queue, not fd */
	struct net_uring *uring; /* non-NULL: flushes queue sends in its ring */
	size_t inflight;	/* queued in the ring, not yet completed */
	struct net_stats *stats;
	size_t count;

	size_t len[NET_BATCH];
	struct mmsghdr hdr[NET_BATCH];
	struct iovec iov[NET_BATCH];
	struct sockaddr_in name[NET_BATCH];
	uint8_t buf[NET_BATCH][NET_MAX_UDP_PACKET];
};

void net_send_init(struct net_send_batch *b, int fd, struct net_stats *st);
/* the next free buffer (NET_MAX_UDP_PACKET bytes, *max set to that);
 * flushes first when the batch is full */
uint8_t *net_send_slot(struct net_send_batch *b, size_t *max);
/* queue the slot just filled; len 0 (nothing built) queues nothing */
void net_send_commit(struct net_send_batch *b, const struct net_addr *to,
		     size_t len);
/* send everything queued; returns how many datagrams went out.  A datagram
 * the kernel refuses is counted in send_errors and skipped; when the socket
 * buffer is full (EAGAIN) the rest of the batch is dropped and counted. */
size_t net_send_flush(struct net_send_batch *b);

/* ---- io_uring: the socket's other path (uring.c) --------------------- */

/* Which way the server's socket is read and written: select() with
 * recvmmsg/sendmmsg, or one io_uring (a multishot recvmsg into a ring of
 * provided buffers; the replies queued as sendmsg requests and submitted
 * with the next wait, one io_uring_enter a wakeup).  AUTO: io_uring when
 * the kernel grants it, else select. */
enum net_path {
	NET_PATH_AUTO = 0,
	NET_PATH_SELECT,
	NET_PATH_URING,
};

/* "auto", "select", "uring" (and back); false for anything else */
bool net_path_parse(const char *s, enum net_path *out);
const char *net_path_name(enum net_path p);

/* A ring on socket fd, everything allocated now (about 2.1 MB of receive
 * buffers).  NULL with the reason in err (the kernel's refusal: ENOSYS
 * without io_uring, EPERM under a seccomp profile or sysctl
 * kernel.io_uring_disabled, EINVAL for a feature missing). */
struct net_uring *net_uring_create(int fd, char *err, size_t errsize);
/* Waits for the sends still queued, then frees (NULL: nothing). */
void net_uring_destroy(struct net_uring *u);
/* net_udp_recv_batch's contract from the ring, with no system call: the
 * datagrams the last wait collected, b->packets pointing into the ring's
 * buffers until the next call on u.  Oversized datagrams are dropped and
 * counted in st->oversized_in, as on the select path. */
int net_uring_recv_batch(struct net_uring *u, struct net_recv_batch *b,
			 struct net_stats *st);
/* The frame's wait: submit the queued sends and (re)armed requests, then
 * wait up to `wait` seconds for a datagram or one of the descriptors in
 * fds/wfds (up to maxfd; polled in the same ring); on return fds/wfds
 * say which are ready, as select leaves them.  One io_uring_enter.
 * hold > 0 (sys_ticrate's coalescing) first sleeps that long whatever
 * arrives, in the same enter; a second one only when nothing came. */
void net_uring_wait(struct net_uring *u, double hold, double wait,
		    fd_set *fds, fd_set *wfds, int maxfd, struct net_stats *st);
/* A send batch whose flushes become sendmsg requests in u, sent by the
 * next net_uring_wait (or net_send_sync). */
void net_send_init_uring(struct net_send_batch *b, struct net_uring *u,
			 struct net_stats *st);
/* Submit whatever a uring batch has queued now (before a datagram sent
 * outside the batch, so it cannot overtake them); nothing otherwise. */
void net_send_sync(struct net_send_batch *b);

/* ---- in-memory datagrams: a socket's stand-in (mem.c) ------------------ */

/* A queue of datagrams in one buffer sized at creation, for a server
 * driven without the kernel's network stack (tools/framebench, tests):
 * what a socket would carry, in order, each with its peer's address (the
 * sender's on the way in, the destination's on the way out).  Puts
 * append; gets take the oldest; once every datagram put has been taken
 * the buffer starts over, so a producer and a consumer that take turns
 * (a frame's requests, then its replies) never run out of room as long as
 * one turn fits.  Nothing allocates after net_mem_init. */
struct net_mem {
	uint8_t *buf;
	size_t size;		/* bytes of buf */
	size_t head, tail;	/* the oldest datagram; where the next goes */
	uint64_t dropped;	/* puts that did not fit (counted, lost) */
};

/* 0, or -1 when out of memory */
int net_mem_init(struct net_mem *q, size_t bytes);
void net_mem_free(struct net_mem *q);
/* Queue one datagram (len <= NET_MAX_UDP_PACKET); false when it does not
 * fit (counted in dropped).  Several threads may put at once (each takes
 * its place atomically); everything else is one thread's. */
bool net_mem_put(struct net_mem *q, const struct net_addr *addr,
		 const void *data, size_t len);
/* A send batch bound to q (net_send_flush's memory path): every datagram
 * put, the batch's figures kept as a socket's flush keeps them, the
 * batch emptied; how many went in.  As net_mem_put, from any thread. */
size_t net_mem_send_batch(struct net_mem *q, struct net_send_batch *b);
/* The oldest datagram: its address and bytes (valid until the next put),
 * taken off the queue; false when the queue is empty. */
bool net_mem_get(struct net_mem *q, struct net_addr *addr,
		 const uint8_t **data, size_t *len);
/* net_udp_recv_batch's contract, from q instead of a socket: up to
 * NET_BATCH datagrams copied into b, counted in st. */
int net_mem_recv_batch(struct net_mem *q, struct net_recv_batch *b,
		       struct net_stats *st);
/* net_udp_send's, into q */
bool net_mem_send(struct net_mem *q, const struct net_addr *to,
		  const void *data, size_t len, struct net_stats *st);
/* A send batch whose flushes go into q. */
void net_send_init_mem(struct net_send_batch *b, struct net_mem *q,
		       struct net_stats *st);

/* ---- netchan ---------------------------------------------------------- */

/* Which end of the connection this channel is: the server reads a qport
 * after the header of every incoming packet; a client writes one. */
enum netchan_side {
	NETCHAN_SERVER = 0,
	NETCHAN_CLIENT = 1,
};

/* One end of a sequenced connection (id's netchan_t).  Read any field;
 * write only `message` (queue reliable data with msg_write_*), `remote`
 * (the server updates the port when a NAT moves it) and the counters.
 * The struct holds a pointer into itself (message.data): never copy it,
 * set it up in place with netchan_setup. */
struct netchan {
	enum netchan_side side;
	struct net_addr remote;
	uint16_t qport;		/* client: sent in every packet; server: the
				   peer's, kept for matching */
	bool fatal_error;	/* reliable overflow or sequence exhaustion:
				   drop the connection (after an overflow,
				   msg_clear(&message) lets one last
				   packet, say a disconnect, go out) */

	double last_received;	/* `now` of the last accepted packet */
	double rate;		/* seconds per byte (1 / the peer's rate) */
	double cleartime;	/* when the bytes already sent have drained */

	/* sequencing (all 31-bit) */
	uint32_t outgoing_sequence;	/* carried by the next transmit */
	uint32_t incoming_sequence;	/* newest accepted from the peer */
	uint32_t incoming_acknowledged;	/* newest of ours the peer has seen */
	uint8_t incoming_reliable_acknowledged; /* peer's even/odd bit */
	uint8_t incoming_reliable_sequence;	/* our even/odd bit: flips
						   per reliable received */
	bool received_any;		/* a packet has been accepted */
	uint8_t reliable_sequence;	/* even/odd of the reliable in flight */
	uint32_t last_reliable_sequence; /* packet that last carried it */
	size_t reliable_length;		/* in flight, unacknowledged; 0: none */

	/* statistics */
	uint32_t dropped;	/* packets missing before the last accepted */
	uint32_t drop_count;	/* accepted packets that followed a gap */
	uint32_t dropped_total;	/* sum of all gaps */
	uint32_t good_count;	/* accepted packets */
	uint32_t stale_count;	/* duplicate or out-of-order, rejected */
	uint32_t bad_count;	/* truncated or impossible header, rejected */
	uint32_t choke_count;	/* the caller's: replies held back by rate */
	uint32_t unreliable_skipped; /* unreliable data that did not fit */

	/* reliable data queued for the next reliable message */
	struct msg_buf message;
	uint8_t message_buf[NET_MAX_MSGLEN];
	/* the reliable message in flight, kept for retransmission */
	uint8_t reliable_buf[NET_MAX_MSGLEN];
};

/* id's default rate before the userinfo says otherwise, and a sanity range
 * (id's server clamped "rate" to 500..10000, MVDSV to its sv_maxrate;
 * modern clients ask for 25000 or more: the server applies its own policy
 * before calling netchan_set_rate) */
#define NETCHAN_DEFAULT_RATE 2500
#define NETCHAN_MIN_RATE 500
#define NETCHAN_MAX_RATE 100000
/* bytes a channel may run ahead of its rate (id: MAX_BACKUP) */
#define NETCHAN_MAX_BACKUP 200

/* Reset chan for a new connection to remote.  qport: the client's (a
 * client picks one at random and keeps it; the server stores the one the
 * connect packet named). */
void netchan_setup(struct netchan *chan, enum netchan_side side,
		   const struct net_addr *remote, uint16_t qport, double now);
/* bytes per second; values outside NETCHAN_MIN_RATE..NETCHAN_MAX_RATE are
 * clamped (<= 0 means the default) */
void netchan_set_rate(struct netchan *chan, int bytes_per_second);

/* Take in one packet from the peer (the caller has matched it to this
 * channel: by address and qport on the server).  On success returns true
 * with msg positioned at the payload.  Returns false, with the channel
 * unchanged but for stale_count/bad_count, for a packet that is too short,
 * acknowledges a sequence never sent, or is a duplicate or out of order. */
bool netchan_process(struct netchan *chan, struct msg_buf *msg, double now);

/* Build the next packet into out (out_max >= NETCHAN_MAX_PACKET): header,
 * the reliable message if one is due (new or retransmitted), then len bytes
 * of unreliable data if they fit in NET_MAX_DATAGRAM with it.  len 0 still
 * makes a packet (acks, reliable).  Returns the datagram length, or 0 with
 * nothing changed when out_max is too small, or 0 with fatal_error set
 * while the queued reliable data is overflowed.  Charges the rate. */
size_t netchan_transmit(struct netchan *chan, const void *data, size_t len,
			double now, void *out, size_t out_max);

/* Charge len bytes sent to the peer to the channel's rate, as a packet
 * of that size is (netchan_transmit charges each packet it builds). */
void netchan_charge(struct netchan *chan, size_t len, double now);
/* Give back len bytes of the last packet that another rate pays for (a
 * download chunk riding in a reply is paid on the download's own rate);
 * the channel's clock never goes back before `now`. */
void netchan_refund(struct netchan *chan, size_t len, double now);

/* false while the channel is over its rate: skip this reply (and count it
 * in choke_count) */
bool netchan_can_packet(const struct netchan *chan, double now);
/* true when nothing is in flight and the rate allows a packet: a good
 * moment to queue more reliable data */
bool netchan_can_reliable(const struct netchan *chan, double now);
/* Reliable bytes the next netchan_transmit will carry (a retransmission,
 * or the queued message when nothing is in flight): the unreliable part
 * must fit in NET_MAX_DATAGRAM beside them or it is skipped. */
size_t netchan_next_reliable(const struct netchan *chan);

/* The qport of a client-to-server packet (bytes 8-9), for matching a
 * packet to its client before netchan_process.  False if too short. */
bool netchan_peek_qport(const struct msg_buf *msg, uint16_t *qport);

/* ---- connectionless packets ------------------------------------------- */

/* starts with the four 0xFF bytes (sequence -1) */
bool oob_is_connectionless(const struct msg_buf *msg);

/* "\xff\xff\xff\xff" followed by the formatted text (no NUL, as id sends
 * it) into out.  Returns the length, or 0 if it does not fit in max - 1
 * bytes (the last one is room for vsnprintf's NUL): a reply is never sent
 * cut. */
size_t net_build_oob(void *out, size_t max, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- line tokenizer --------------------------------------------------- */

/* Quake's Cmd_TokenizeString, bounded: arguments are separated by blanks
 * (bytes 1-32), a "quoted string" is one argument and keeps its blanks
 * (it ends at the closing quote or at the end of the line), "//" at the
 * start of an argument ends the line.  Only the first line of the text is
 * read (up to '\n').  Bytes 128-255 are ordinary characters. */
#define NET_ARGS_MAX 80		/* id's MAX_ARGS; more are ignored */
#define NET_ARGS_LINE 1024	/* longest line, its NUL included */

/* argv points into the struct itself: tokenize in place, never copy */
struct net_args {
	int argc;
	const char *argv[NET_ARGS_MAX];
	size_t start[NET_ARGS_MAX];	/* where each argument began in line */
	size_t next;	/* offset of the text after this line */
	char line[NET_ARGS_LINE];	/* copy of the line, NUL-terminated */
	char store[NET_ARGS_LINE + NET_ARGS_MAX]; /* the arguments */
};

/* Split the first line of text.  Returns argc, or -1 (argc 0) if the line
 * is NET_ARGS_LINE bytes or longer. */
int net_args_tokenize(struct net_args *a, const char *text);
/* argument i, or "" when i is out of range (never NULL) */
const char *net_args_argv(const struct net_args *a, int i);
/* The raw rest of the line from argument n on (id's Cmd_Args is n = 1):
 * quotes and spacing as sent, comments included, trailing blanks removed.
 * "" when there is no argument n. */
const char *net_args_rest(const struct net_args *a, int n);

/* ---- keyed hash, challenges, passwords, rate limits -------------------- */

/* SipHash-2-4 (Aumasson and Bernstein, 2012) of len bytes under a 128-bit
 * key, the 64-bit result read as a little-endian word. */
uint64_t net_siphash24(const uint8_t key[16], const void *data, size_t len);

struct net_secret {
	uint8_t key[16];
};

/* fill with random bytes from the kernel; false if none were available */
bool net_secret_init(struct net_secret *s);

/* Stateless challenges.  A challenge is a keyed hash of the client's ip
 * and a time bucket of CHALLENGE_BUCKET_SECONDS, cut to a positive 31-bit
 * number (clients print it with %i).  It is accepted during its bucket and
 * the next one, so it lives 30 to 60 seconds.  There is no table, so a
 * flood of spoofed getchallenge packets evicts nothing and costs no
 * memory, and a challenge cannot be predicted without the secret, so a
 * spoofed connect (which never sees the reply) cannot present one. */
#define CHALLENGE_BUCKET_SECONDS 30

int32_t challenge_make(const struct net_secret *s, const struct net_addr *a,
		       double now);
bool challenge_check(const struct net_secret *s, const struct net_addr *a,
		     int32_t challenge, double now);

/* Compare a secret (rcon password) with a guess in time that depends on
 * the guess's length only, never on where they differ.  The secret's length
 * may show through the time of strlen on it (a constant across tries); its
 * content does not.  An empty secret matches only an empty guess: callers
 * treat an empty password as "disabled" before asking. */
bool net_secure_equal(const char *secret, const char *guess);

/* Per-address token buckets in a fixed table, plus an optional global
 * bucket.  Addresses hash (keyed, so an attacker cannot aim at one set)
 * into sets of RATELIMIT_WAYS entries; a new address takes a free entry
 * or evicts the one of its set that forgets least (the fullest bucket,
 * then the least recently seen).  Why: status, rcon
 * and getchallenge replies cost more than the request, so an unlimited
 * server is a reflector for spoofed floods and a password-guessing oracle;
 * the global bucket caps the total even when the sources are spoofed. */
#define RATELIMIT_SETS 256
#define RATELIMIT_WAYS 8

struct ratelimit_entry {
	uint32_t ip;
	bool used;
	double tokens;
	double last;
	uint64_t stamp;		/* rl->tick when last looked up */
};

struct ratelimit {
	struct net_secret key;
	double rate, burst;		/* per address: tokens/s, bucket size */
	double global_rate, global_burst; /* rate <= 0: no global limit */
	double global_tokens, global_last;
	uint64_t allowed, denied, evictions;
	uint64_t tick;			/* lookups so far: the LRU order */
	struct ratelimit_entry set[RATELIMIT_SETS][RATELIMIT_WAYS];
};

/* burst >= 1 is the number of requests allowed at once, rate the refill in
 * requests per second; key hashes addresses to sets */
void ratelimit_init(struct ratelimit *rl, const struct net_secret *key,
		    double rate, double burst, double global_rate,
		    double global_burst);
/* one bucket's tokens at now, given the count at last: refilled at rate
 * up to burst, and never by a clock that stepped back (the rule of these
 * buckets, for buckets kept elsewhere: a client's command budgets) */
double ratelimit_refill(double tokens, double last, double now, double rate,
			double burst);
/* take one token from a's bucket (and the global one): true = answer */
bool ratelimit_allow(struct ratelimit *rl, const struct net_addr *a,
		     double now);
/* the same, taking global_cost from the global bucket (a request costs
 * one token of its address either way); global_cost 0 skips the global
 * bucket, for requests that have proved their source */
bool ratelimit_allow_cost(struct ratelimit *rl, const struct net_addr *a,
			  double now, double global_cost);
/* take global_cost more (or, negative, give back) from the global bucket:
 * the correction once an answer's true cost is known */
void ratelimit_charge(struct ratelimit *rl, double global_cost);

/* ---- address filters (bans) ------------------------------------------- */

/* A list of IPv4 filters as QuakeWorld servers keep them (id's and MVDSV's
 * addip): four octets, each one exact or a wildcard.  As in MVDSV an
 * octet of 0 is a wildcard, and so is a missing trailing octet or "*":
 * "192.168.1", "192.168.1.0" and "192.168.1.*" are the same filter, and
 * "10.0.0.5" matches 10.*.*.5.  So the wildcards follow from the value:
 * a filter is its one 32-bit value, and a list holds each value once.
 * Each filter is a ban or a "safe" mark (an address never refused) and
 * may expire (Unix time; 0: never).
 * Matching an address costs one hash probe per wildcard pattern in use
 * (at most 15, usually one or two), whatever the number of filters: the
 * check runs for every received packet.  Adding is O(1); removing
 * rebuilds the hash (O(n), an operator's command). */
#define IPFILTER_MAX 4096
#define IPFILTER_HASH 8192		/* slots, a power of two >= 2 * MAX */

enum ipfilter_type {
	IPFILTER_BAN = 0,
	IPFILTER_SAFE = 1
};

struct ipfilter_entry {
	uint32_t value;		/* network byte order; 0 octets are wildcards */
	uint8_t type;		/* enum ipfilter_type */
	int64_t expires;	/* Unix time, 0: never */
};

struct ipfilter {
	int count;
	uint16_t pattern_count[16];	/* filters per set of exact octets */
	struct ipfilter_entry entry[IPFILTER_MAX];	/* in the order added */
	int16_t slot[IPFILTER_HASH];	/* index into entry, -1 empty */
};

/* what a match found: IPFILTER_HIT_BAN, IPFILTER_HIT_SAFE, both or 0 */
#define IPFILTER_HIT_BAN 1u
#define IPFILTER_HIT_SAFE 2u

void ipfilter_init(struct ipfilter *f);
/* "a.b.c.d" with 1 to 4 decimal octets (0-255) or "*", dot-separated;
 * false for anything else and for the all-wildcard filter */
bool ipfilter_parse(const char *s, uint32_t *value);
/* "a.b.c.d", wildcards as 0 (the form MVDSV reads back) */
char *ipfilter_format(uint32_t value, char out[16]);
/* add or replace the filter of that value; false when the list is full */
bool ipfilter_add(struct ipfilter *f, uint32_t value, enum ipfilter_type type,
		  int64_t expires);
/* the index of the filter of that value, or -1 */
int ipfilter_find(const struct ipfilter *f, uint32_t value);
/* remove the filter of that value; false when there is none */
bool ipfilter_remove(struct ipfilter *f, uint32_t value);
/* remove the filters whose time has come (0 < expires <= now); how many */
int ipfilter_expire(struct ipfilter *f, int64_t now);
/* which kinds of filter match ip (network byte order) */
unsigned ipfilter_match(const struct ipfilter *f, uint32_t ip);

/* ---- hashed rcon (MVDSV's sv_crypt_rcon, ezQuake's cl_crypt_rcon) ----- */

/* The packet ezQuake sends with cl_crypt_rcon 1 (its CL_Rcon_f):
 *   0xFFFFFFFF "rcon " DIGEST TIME " " ARG " " ARG " " ... NUL
 * TIME is the client's Unix time as 8 bytes, least significant first, each
 * "%02X" (16 characters); DIGEST is the SHA-1, 40 upper-case hex digits, of
 *   "rcon " PASSWORD TIME " " ARG " " ARG " " ...
 * (every argument as the tokenizer splits it, each followed by a space).
 * MVDSV checks the digest and that TIME is within sv_timestamplen seconds
 * of its own clock.  SHA-1 is libmd's (libbsd's own dependency). */
#define RCON_TIME_HEX 16
#define RCON_DIGEST_HEX 40
#define RCON_SHA1 20

void rcon_time_hex(int64_t t, char out[RCON_TIME_HEX + 1]);
/* the 16 hex digits at s (either case); false if they are not that */
bool rcon_time_parse(const char *s, int64_t *t);
/* the digest of the arguments argv[0..argc) under password and time */
void rcon_digest(const char *password, const char *time_hex, int argc,
		 const char *const *argv, uint8_t out[RCON_SHA1]);
/* 40 hex digits (either case) at s into out; false if they are not that */
bool rcon_digest_parse(const char *s, uint8_t out[RCON_SHA1]);
/* ezQuake's packet for the command argv[0..argc) at Unix time t; its
 * length (the NUL included, as ezQuake sends it), 0 if it does not fit */
size_t rcon_build_hashed(void *out, size_t max, const char *password,
			 int64_t t, int argc, const char *const *argv);

#endif
