/*
 * mvdcheck -- read a multi-view demo, from a file or a live QTV stream,
 * to its end with the project's reader (src/client/mvd.c), and say what
 * it holds.
 *
 *   mvdcheck FILE.mvd
 *   mvdcheck --qtv HOST:PORT [--password PW] [--seconds S]
 *
 * Design note
 *   One line per fact ("frames 812", "end EndOfDemo"), so scripts grep
 *   them.  Exit status 0 when the demo read without a fault (a stream:
 *   also when it was cut by --seconds), 1 on a fault, 2 on a usage,
 *   file or connection error.  A stream is read as ezQuake's qtvplay
 *   reads a server directly: the request with USERINFO and, with a
 *   password, every auth method ezQuake offers; the challenge the server
 *   answers with is answered once with the digest (qtv_digest).  The file is read in pieces through the same
 *   incremental reader as a stream, from one buffer of fixed size.
 */
#include <qwd/client.h>
#include <qwd/mvd.h>
#include <qwd/net.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { BUF = 1 << 20 };

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void report(const char *what, const struct mvd_reader *r, bool cut)
{
	printf("source     %s\n", what);
	if (r->fault)
		printf("result     fault: %s: %s (record at offset %llu)\n",
		       mvd_fault_name(r->fault), r->fault_text,
		       (unsigned long long)r->fault_offset);
	else
		printf("result     ok%s\n", cut ? " (stream cut by --seconds)" : "");
	printf("bytes      %llu\n", (unsigned long long)r->offset);
	printf("records    %llu\n", (unsigned long long)r->records);
	printf("frames     %llu\n", (unsigned long long)r->frames);
	printf("seconds    %.2f\n", r->time - r->start_time);
	printf("serverdata %d\n", r->serverdatas);
	printf("map        %s\n", r->mapmodel[0] ? r->mapmodel : "-");
	printf("gamedir    %s\n", r->gamedir[0] ? r->gamedir : "-");
	printf("mvd1       %#x\n", r->mvd_ext1);
	printf("players    ");
	for (int i = 0, n = 0; i < MAX_CLIENTS; i++)
		if (r->players[i].present)
			printf("%s%s(%d)", n++ ? " " : "", r->players[i].name, r->players[i].frags);
	printf("\n");
	printf("players_in_frame  %d\n", r->max_players_frame);
	printf("frames_with_players %d\n", r->frames_with_players);
	printf("playerinfos %llu\n", (unsigned long long)r->playerinfos);
	printf("entity_lists %llu (deltas %llu)\n", (unsigned long long)r->packetentities,
	       (unsigned long long)r->deltas);
	printf("entities_in_frame %d\n", r->max_entities_frame);
	printf("prints     %llu\n", (unsigned long long)r->prints);
	printf("sounds     %llu\n", (unsigned long long)r->sounds_played);
	printf("temp_entities %llu\n", (unsigned long long)r->temp_entities);
	printf("stats      %llu\n", (unsigned long long)r->stats_updates);
	printf("nails      %llu\n", (unsigned long long)r->nails);
	printf("end        %s\n", r->ended ? (r->end_text[0] ? r->end_text : "(no text)") : "none");
}

static int read_file(const char *path, uint8_t *buf)
{
	FILE *f = fopen(path, "rb");
	struct mvd_reader *r = calloc(1, sizeof(*r));
	size_t have = 0, n;

	if (!f || !r) {
		fprintf(stderr, "mvdcheck: %s: %s\n", path, f ? "out of memory" : strerror(errno));
		if (f)
			fclose(f);
		free(r);
		return 2;
	}
	mvd_reader_init(r);
	while ((n = fread(buf + have, 1, BUF - have, f)) > 0 && !r->fault) {
		size_t used;

		have += n;
		used = mvd_read(r, buf, have);
		memmove(buf, buf + used, have - used);
		have -= used;
	}
	fclose(f);
	if (have && !r->fault)
		printf("trailing   %zu bytes: a record cut short\n", have);
	report(path, r, false);
	int rc = r->fault || have ? 1 : 0;

	free(r);
	return rc;
}

static int connect_to(const char *where)
{
	struct net_addr a;
	struct sockaddr_in sa;
	char err[128];
	int fd;

	if (!net_addr_resolve(where, PORT_SERVER, &a, err, sizeof(err))) {
		fprintf(stderr, "mvdcheck: %s: %s\n", where, err);
		return -1;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	net_addr_to_sockaddr(&a, &sa);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		fprintf(stderr, "mvdcheck: connect %s: %s\n", where, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* the request as ezQuake's qtvplay makes it: with a password, every
 * method it knows offered; the answer to a challenge in the same way */
static bool send_request(int fd, const char *password, const char *method,
			 const char *challenge)
{
	struct qtv_request rq = {
		.version = 1,
		.userinfo = "\\name\\mvdcheck",
		.auth = method ? method : password ? "SHA3_512 MD4 CCITT PLAIN NONE" : NULL,
	};
	char text[1024], digest[160];
	size_t n;

	if (method) {
		if (!qtv_digest(method, challenge, password, digest, sizeof(digest)))
			return false;
		rq.password = digest;
	}
	n = qtv_build_request(&rq, text, sizeof(text));
	return n && send(fd, text, n, MSG_NOSIGNAL) == (ssize_t)n;
}

static int read_stream(const char *where, const char *password, double seconds,
		       uint8_t *buf)
{
	struct mvd_reader *r = calloc(1, sizeof(*r));
	size_t have = 0;
	bool begun = false, asked = false, cut = false;
	double end = now_s() + seconds;
	int fd = r ? connect_to(where) : -1;

	if (fd < 0 || !send_request(fd, password, NULL, NULL)) {
		free(r);
		if (fd >= 0)
			close(fd);
		return 2;
	}
	mvd_reader_init(r);
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		double left = end - now_s();
		ssize_t n;

		if (seconds > 0 && left <= 0) {
			cut = true;
			break;
		}
		if (poll(&p, 1, seconds > 0 ? (int)(left * 1000) + 1 : -1) <= 0)
			continue;
		n = recv(fd, buf + have, BUF - have, 0);
		if (n <= 0)
			break;
		have += (size_t)n;
		if (!begun) {
			struct qtv_reply rp;

			qtv_parse_reply(buf, have, &rp);
			if (rp.answer == QTV_ANSWER_PARTIAL)
				continue;
			if (rp.answer == QTV_ANSWER_AUTH && !asked && password) {
				asked = true;
				memmove(buf, buf + rp.header_len, have - rp.header_len);
				have -= rp.header_len;
				if (!send_request(fd, password, rp.auth, rp.challenge))
					break;
				continue;
			}
			if (rp.answer != QTV_ANSWER_BEGIN) {
				printf("source     %s\nresult     refused: %s\n", where,
				       rp.answer == QTV_ANSWER_ERROR ? rp.text : "not a QTV answer");
				close(fd);
				free(r);
				return 1;
			}
			begun = true;
			memmove(buf, buf + rp.header_len, have - rp.header_len);
			have -= rp.header_len;
		}
		size_t used = mvd_read(r, buf, have);

		memmove(buf, buf + used, have - used);
		have -= used;
		if (r->fault)
			break;
	}
	close(fd);
	if (!begun) {
		printf("source     %s\nresult     no answer\n", where);
		free(r);
		return 1;
	}
	report(where, r, cut);
	int rc = r->fault || (!cut && have) ? 1 : 0;

	free(r);
	return rc;
}

int main(int argc, char **argv)
{
	const char *qtv = NULL, *password = NULL, *file = NULL;
	double seconds = 0;
	uint8_t *buf;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--qtv") && i + 1 < argc)
			qtv = argv[++i];
		else if (!strcmp(argv[i], "--password") && i + 1 < argc)
			password = argv[++i];
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (argv[i][0] != '-' && !file)
			file = argv[i];
		else {
			fprintf(stderr, "usage: mvdcheck FILE.mvd | mvdcheck --qtv HOST:PORT "
				"[--password PW] [--seconds S]\n");
			return 2;
		}
	}
	if (!qtv == !file) {
		fprintf(stderr, "usage: mvdcheck FILE.mvd | mvdcheck --qtv HOST:PORT "
			"[--password PW] [--seconds S]\n");
		return 2;
	}
	buf = malloc(BUF);
	if (!buf)
		return 2;
	rc = qtv ? read_stream(qtv, password, seconds, buf) : read_file(file, buf);
	free(buf);
	return rc;
}
