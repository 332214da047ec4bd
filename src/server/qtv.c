/*
 * qtv.c -- the QTV listener: TCP connections on qtv_streamport, their
 * handshake, and the streams they become (fed by mvd.c).
 *
 * Design note
 *   As MVDSV's sv_demo_qtv.c does it, so ezQuake's qtvplay and the QTV
 *   proxies connect as they do to MVDSV:
 *     listen   qtv_streamport (TCP, on the game's address; 0: off),
 *              (re)opened when the cvar changes, retried every 10 s when
 *              the port is taken
 *     accept   non-blocking; with qtv_maxstreams streams (0: no limit)
 *              and 3 more handshakes pending, a newcomer is told the
 *              server's limit and closed
 *     request  "QTV" then "KEY: value" lines up to a blank line, at most
 *              QTV_HEADER_MAX bytes, within qtv_pendingtimeout seconds:
 *              VERSION (1 wanted), AUTH (each method the client can do),
 *              PASSWORD, USERINFO; other keys are ignored
 *     auth     without qtv_password anyone may watch; with it, the best
 *              method both sides have, MVDSV's order SHA3_512 > MD4 >
 *              CCITT > PLAIN ("NONE" counts as PLAIN): the challenge
 *              methods get "AUTH: <method>\nCHALLENGE: <63 characters>"
 *              and the client sends its request again with PASSWORD set
 *              to the digest of challenge + password (qtv_digest,
 *              src/client/qtv.c, holds the formats); PLAIN compares the
 *              password itself
 *     answer   "QTVSV 1\nBEGIN\n\n" and the stream joins the demo writer
 *              (its gamestate first), or one of MVDSV's refusals, word
 *              for word, then the connection is closed
 *   Nothing here blocks: a refusal that the socket does not take at once
 *   is cut short.  The pending handshakes live in a fixed table
 *   (QTV_PENDING); a stream's backlog is mvd.c's.  SHA3-512 is Nettle's
 *   (a maintained library packaged by Debian); MD4 and the CRC are the
 *   project's own (src/common).
 */
#include "demo.h"

#include <qwd/mvd.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bsd/string.h>

enum {
	QTV_PENDING = 8,	/* handshakes at once */
	QTV_CHALLENGE = 63,	/* ezQuake wants 63 characters for SHA3 */
	QTV_EXTRA_PENDING = 3	/* handshakes beyond qtv_maxstreams */
};

enum qtv_auth {		/* in MVDSV's order of preference */
	AUTH_NONE, AUTH_PLAIN, AUTH_CCITT, AUTH_MD4, AUTH_SHA3
};

static const char *const auth_names[] = {"NONE", "PLAIN", "CCITT", "MD4", "SHA3_512"};

struct qtv_pending {
	bool used;
	int fd;
	char peer[NET_ADDR_STRLEN];
	char challenge[QTV_CHALLENGE + 1];
	char in[QTV_HEADER_MAX + 1];
	size_t len;
	double since;
};

struct sv_qtv {
	int fd;			/* the listener, -1: none */
	int port;		/* its port */
	unsigned applied;	/* qtv_streamport's `modified` it follows */
	double retry;		/* when a failed listen is tried again */
	struct qtv_pending pend[QTV_PENDING];
	struct cvar *streamport, *maxstreams, *password, *pendingtimeout;
	uint64_t accepted, streams, refused;
};

int sv_qtv_init(struct server *sv)
{
	struct sv_qtv *q = calloc(1, sizeof(*q));

	if (!q)
		return -1;
	q->fd = -1;
	q->streamport = cvar_register(sv, "qtv_streamport", "0", 0,
				      "TCP port QTV viewers and proxies connect to (0: off)");
	q->maxstreams = cvar_register(sv, "qtv_maxstreams", "1", 0,
				      "QTV streams at once (0: no limit)");
	q->password = cvar_register(sv, "qtv_password", "", CVAR_SECRET,
				    "password to watch over QTV (empty: anyone)");
	q->pendingtimeout = cvar_register(sv, "qtv_pendingtimeout", "5", 0,
					  "seconds a QTV connection has for its request");
	q->applied = q->streamport->modified - 1;	/* looked at first time */
	sv->qtv = q;
	return 0;
}

static void pending_close(struct qtv_pending *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->used = false;
	p->fd = -1;
}

void sv_qtv_free(struct server *sv)
{
	struct sv_qtv *q = sv->qtv;

	if (!q)
		return;
	for (int i = 0; i < QTV_PENDING; i++)
		if (q->pend[i].used)
			pending_close(&q->pend[i]);
	if (q->fd >= 0)
		close(q->fd);
	free(q);
	sv->qtv = NULL;
}

/* ---- the listener ----------------------------------------------------- */

static void listen_on(struct server *sv, int port)
{
	struct sv_qtv *q = sv->qtv;
	struct sockaddr_in sa;
	struct net_addr a;
	int one = 1, fd;

	memset(&a, 0, sizeof(a));
	if (sv->bind_ip[0] && !net_addr_parse(sv->bind_ip, 0, &a)) {
		qwd_logf(&sv->log, QWD_LOG_WARN, "QTV: %s is not an address", sv->bind_ip);
		return;
	}
	a.port = htons((uint16_t)port);
	net_addr_to_sockaddr(&a, &sa);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 8) != 0) {
		qwd_logf(&sv->log, QWD_LOG_WARN, "QTV: cannot listen on TCP port %d: %s "
			 "(tried again in 10 s)", port, strerror(errno));
		if (fd >= 0)
			close(fd);
		q->retry = sv->realtime + 10;
		return;
	}
	q->fd = fd;
	q->port = port;
	qwd_logf(&sv->log, QWD_LOG_INFO, "QTV: listening on TCP port %d", port);
}

static void check_port(struct server *sv)
{
	struct sv_qtv *q = sv->qtv;
	int port = (int)q->streamport->value;

	if (port < 0 || port > 65535)
		port = 0;
	if (q->applied == q->streamport->modified &&
	    (q->fd >= 0 || port == 0 || sv->realtime < q->retry))
		return;
	if (q->applied != q->streamport->modified && q->fd >= 0) {
		if (port == q->port) {
			q->applied = q->streamport->modified;
			return;
		}
		close(q->fd);
		q->fd = -1;
		qwd_logf(&sv->log, QWD_LOG_INFO, "QTV: port %d closed", q->port);
	}
	q->applied = q->streamport->modified;
	if (port)
		listen_on(sv, port);
}

/* best effort, never blocking: a refusal cut short is still a refusal */
static void say(int fd, const char *text)
{
	if (send(fd, text, strlen(text), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		return;
}

static void make_challenge(struct qtv_pending *p)
{
	static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	uint8_t rnd[QTV_CHALLENGE];
	size_t n = strlcpy(p->challenge, p->peer, sizeof(p->challenge));

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		for (size_t i = 0; i < sizeof(rnd); i++)
			rnd[i] = (uint8_t)(rand() & 255);
	for (size_t i = n; i < QTV_CHALLENGE; i++)
		p->challenge[i] = alnum[rnd[i] % (sizeof(alnum) - 1)];
	p->challenge[QTV_CHALLENGE] = '\0';
}

static void accept_new(struct server *sv)
{
	struct sv_qtv *q = sv->qtv;

	for (int k = 0; k < QTV_PENDING; k++) {
		struct sockaddr_in sa;
		socklen_t sl = sizeof(sa);
		struct qtv_pending *p = NULL;
		struct net_addr a;
		int fd = accept4(q->fd, (struct sockaddr *)&sa, &sl,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		int pending = 0, max = (int)q->maxstreams->value;

		if (fd < 0)
			return;
		for (int i = 0; i < QTV_PENDING; i++) {
			if (q->pend[i].used)
				pending++;
			else if (!p)
				p = &q->pend[i];
		}
		net_addr_from_sockaddr(&sa, &a);
		if (!p || (max > 0 && sv_mvd_streams(sv) + pending >= max + QTV_EXTRA_PENDING)) {
			char addr[NET_ADDR_STRLEN];

			say(fd, QTV_ERR_TOO_MANY);
			close(fd);
			q->refused++;
			qwd_logf(&sv->log, QWD_LOG_INFO, "QTV: %s refused: too many connections",
				 net_addr_format(&a, addr));
			continue;
		}
		memset(p, 0, sizeof(*p));
		p->used = true;
		p->fd = fd;
		p->since = sv->realtime;
		net_addr_format(&a, p->peer);
		make_challenge(p);
		q->accepted++;
		qwd_logf(&sv->log, QWD_LOG_INFO, "QTV: connection from %s", p->peer);
	}
}

/* ---- the request ------------------------------------------------------ */

struct qtv_request_seen {
	bool qtv;
	int version;
	enum qtv_auth auth;
	bool has_password;
	char password[256];
	char userinfo[512];
};

/* the value after "KEY:", as Quake's tokenizer reads it (quotes removed) */
static void header_value(const char *text, char *out, size_t outsize)
{
	struct net_args a;

	if (net_args_tokenize(&a, text) > 0)
		strlcpy(out, net_args_argv(&a, 0), outsize);
	else
		out[0] = '\0';
}

static void read_request(char *text, struct qtv_request_seen *rq)
{
	char *line = text, *nl;
	bool first = true;

	memset(rq, 0, sizeof(*rq));
	for (; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
		char value[256], *colon;

		*nl = '\0';
		if (first) {
			first = false;
			header_value(line, value, sizeof(value));
			rq->qtv = strcmp(value, "QTV") == 0;
			continue;
		}
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		while (*line == ' ')
			line++;
		if (!strcmp(line, "VERSION")) {
			header_value(colon + 1, value, sizeof(value));
			if (atoi(value) == 1)
				rq->version = 1;
		} else if (!strcmp(line, "PASSWORD")) {
			header_value(colon + 1, rq->password, sizeof(rq->password));
			rq->has_password = true;
		} else if (!strcmp(line, "USERINFO")) {
			header_value(colon + 1, rq->userinfo, sizeof(rq->userinfo));
		} else if (!strcmp(line, "AUTH")) {
			enum qtv_auth m = AUTH_NONE;

			header_value(colon + 1, value, sizeof(value));
			if (!strcmp(value, "NONE") || !strcmp(value, "PLAIN"))
				m = AUTH_PLAIN;
			else if (!strcmp(value, "CCITT"))
				m = AUTH_CCITT;
			else if (!strcmp(value, "MD4"))
				m = AUTH_MD4;
			else if (!strcmp(value, "SHA3_512"))
				m = AUTH_SHA3;
			if (m > rq->auth)
				rq->auth = m;
		}
	}
}

static bool password_ok(const struct sv_qtv *q, const struct qtv_pending *p,
			const struct qtv_request_seen *rq)
{
	char want[160];

	if (rq->auth == AUTH_NONE ||
	    !qtv_digest(auth_names[rq->auth], p->challenge, q->password->string,
			want, sizeof(want)))
		return false;
	if (rq->auth == AUTH_CCITT) {
		/* a number: "0x..." as ezQuake writes it, or decimal */
		char *end;
		unsigned long v = strtoul(rq->password, &end, 0);

		return rq->password[0] && !*end && v == strtoul(want, NULL, 0);
	}
	return net_secure_equal(want, rq->password);
}

/* One complete request.  Returns true while the connection stays pending
 * (a challenge was sent and the answer is awaited). */
static bool answer(struct server *sv, struct qtv_pending *p, char *text)
{
	struct sv_qtv *q = sv->qtv;
	struct qtv_request_seen rq;
	const char *refusal = NULL;
	bool authed = false;

	read_request(text, &rq);
	if (!rq.qtv) {
		qwd_logf(&sv->log, QWD_LOG_INFO, "QTV: %s is not a QTV client", p->peer);
		q->refused++;
		return false;
	}
	if (!q->password->string[0]) {
		authed = true;
	} else if (rq.has_password && rq.password[0]) {
		if (rq.auth == AUTH_NONE)
			refusal = QTV_ERR_COMMON_AUTH;
		else if (!(authed = password_ok(q, p, &rq)))
			refusal = QTV_ERR_BAD_PASSWORD;
	} else if (rq.auth == AUTH_NONE) {
		refusal = QTV_ERR_COMMON_AUTH;
	} else if (rq.auth != AUTH_PLAIN) {
		char ask[160];

		snprintf(ask, sizeof(ask), "QTVSV 1\nAUTH: %s\nCHALLENGE: %s\n\n",
			 auth_names[rq.auth], p->challenge);
		say(p->fd, ask);
		return true;
	}
	if (!refusal && !rq.version)
		refusal = QTV_ERR_VERSION;
	if (!refusal && !authed)
		refusal = QTV_ERR_NEED_PASSWORD;
	if (!refusal) {
		int max = (int)q->maxstreams->value;

		if ((max > 0 && sv_mvd_streams(sv) >= max) || !sv->map) {
			refusal = QTV_ERR_INIT_STREAM;
		} else {
			say(p->fd, QTV_BEGIN);
			if (sv_mvd_add_stream(sv, p->fd, p->peer)) {
				p->fd = -1;	/* the writer's now */
				q->streams++;
				return false;
			}
			refusal = QTV_ERR_INIT_STREAM;
		}
	}
	say(p->fd, refusal);
	q->refused++;
	qwd_logf(&sv->log, QWD_LOG_INFO, "QTV: %s refused: %s", p->peer,
		 refusal + strlen(QTV_SERVER_HELLO));
	return false;
}

static void serve_pending(struct server *sv, struct qtv_pending *p)
{
	struct sv_qtv *q = sv->qtv;
	char *end;

	if (sv->realtime - p->since > q->pendingtimeout->value) {
		qwd_logf(&sv->log, QWD_LOG_INFO, "QTV: %s sent no request in %g s", p->peer,
			 q->pendingtimeout->value);
		pending_close(p);
		return;
	}
	for (;;) {
		ssize_t n = recv(p->fd, p->in + p->len, QTV_HEADER_MAX - p->len, MSG_DONTWAIT);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
			       errno != EINTR)) {
			pending_close(p);
			return;
		}
		if (n < 0)
			break;
		p->len += (size_t)n;
		if (p->len == QTV_HEADER_MAX)
			break;
	}
	p->in[p->len] = '\0';
	/* a request ends with a blank line; a NUL in it is not text */
	while (p->used && (end = strstr(p->in, "\n\n")) != NULL) {
		size_t used = (size_t)(end + 2 - p->in);
		char text[QTV_HEADER_MAX + 1];

		memcpy(text, p->in, used);
		text[used] = '\0';
		memmove(p->in, p->in + used, p->len - used + 1);
		p->len -= used;
		if (!answer(sv, p, text))
			pending_close(p);
	}
	if (p->used && (p->len == QTV_HEADER_MAX || strlen(p->in) != p->len)) {
		qwd_logf(&sv->log, QWD_LOG_INFO, "QTV: %s sent no valid request", p->peer);
		pending_close(p);
	}
}

void sv_qtv_poll(struct server *sv)
{
	struct sv_qtv *q = sv->qtv;

	if (!q)
		return;
	check_port(sv);
	if (q->fd >= 0 && sv->map)
		accept_new(sv);
	for (int i = 0; i < QTV_PENDING; i++)
		if (q->pend[i].used)
			serve_pending(sv, &q->pend[i]);
}

void sv_qtv_status(const struct server *sv, FILE *out)
{
	const struct sv_qtv *q = sv->qtv;
	int pending = 0;

	if (!q)
		return;
	for (int i = 0; i < QTV_PENDING; i++)
		pending += q->pend[i].used;
	fprintf(out, "QTV status\nListen socket  : %s\nPort           : %d\n"
		"Streams        : %d\nPending streams: %d\n",
		q->fd >= 0 ? "listen" : "invalid", q->fd >= 0 ? q->port : 0,
		sv_mvd_streams(sv), pending);
	fprintf(out, "connections %llu, streams %llu, refused %llu\n",
		(unsigned long long)q->accepted, (unsigned long long)q->streams,
		(unsigned long long)q->refused);
}
