/*
 * qtv.c -- the client side of the QTV handshake (qwd/mvd.h): the request a
 * viewer or proxy sends, and the reading of the server's answer.
 *
 * Design note
 *   Text only, no sockets: the caller owns the connection, so the test of
 *   the server and tools/mvdcheck share these functions, and the server
 *   checks a password with the client's own qtv_digest.  The request
 *   is ezQuake's ("QTV\n", VERSION, USERINFO, AUTH, PASSWORD with its
 *   value quoted, a blank line).  The answer is read as ezQuake's
 *   CL_QTVPoll reads it: "QTVSV <version>" first, then "KEY: value" lines
 *   up to a blank line; BEGIN means the records follow the blank line,
 *   AUTH asks for a password, PERROR and ERROR refuse.  A header longer
 *   than QTV_HEADER_MAX without its blank line is not a QTV server.
 */
#include <qwd/mvd.h>

#include <stdio.h>
#include <string.h>

#include <bsd/string.h>
#include <nettle/sha3.h>

size_t qtv_build_request(const struct qtv_request *rq, char *out, size_t max)
{
	size_t n = 0;
	int w;

#define ADD(...)                                                         \
	do {                                                             \
		w = snprintf(out + n, max - n, __VA_ARGS__);             \
		if (w < 0 || (size_t)w >= max - n)                        \
			return 0;                                        \
		n += (size_t)w;                                          \
	} while (0)
	if (max == 0)
		return 0;
	out[0] = '\0';
	ADD("QTV\n");
	if (rq->version)
		ADD("VERSION: %d\n", rq->version);
	if (rq->userinfo)
		ADD("USERINFO: \"%s\"\n", rq->userinfo);
	for (const char *a = rq->auth; a && *a;) {
		size_t len = strcspn(a, " ");

		if (len)
			ADD("AUTH: %.*s\n", (int)len, a);
		a += len;
		a += strspn(a, " ");
	}
	if (rq->password)
		ADD("PASSWORD: \"%s\"\n", rq->password);
	ADD("\n");
#undef ADD
	return n;
}

void qtv_parse_reply(const uint8_t *data, size_t len, struct qtv_reply *out)
{
	static const char hello[] = "QTVSV ";
	const char *s = (const char *)data;
	size_t end = 0, line = 0;

	memset(out, 0, sizeof(*out));
	if (len >= sizeof(hello) - 1 && strncmp(s, hello, sizeof(hello) - 1) != 0) {
		out->answer = QTV_ANSWER_BAD;
		return;
	}
	/* the blank line that ends the header */
	while (end + 1 < len && !(s[end] == '\n' && s[end + 1] == '\n'))
		end++;
	if (end + 1 >= len) {
		out->answer = len > QTV_HEADER_MAX ? QTV_ANSWER_BAD : QTV_ANSWER_PARTIAL;
		return;
	}
	out->header_len = end + 2;
	out->answer = QTV_ANSWER_BAD;
	while (line <= end) {
		const char *nl = memchr(s + line, '\n', end + 1 - line);
		size_t n = (size_t)(nl - (s + line));
		char text[256];
		char *colon;

		strlcpy(text, s + line, n + 1 < sizeof(text) ? n + 1 : sizeof(text));
		line += n + 1;
		colon = strchr(text, ':');
		if (!colon) {
			if (strcmp(text, "BEGIN") == 0)
				out->answer = QTV_ANSWER_BEGIN;
			continue;
		}
		*colon++ = '\0';
		while (*colon == ' ')
			colon++;
		if (strcmp(text, "PERROR") == 0 || strcmp(text, "ERROR") == 0 ||
		    strcmp(text, "TERROR") == 0) {
			out->answer = QTV_ANSWER_ERROR;
			strlcpy(out->text, colon, sizeof(out->text));
			return;
		}
		if (strcmp(text, "AUTH") == 0) {
			out->answer = QTV_ANSWER_AUTH;
			strlcpy(out->auth, colon, sizeof(out->auth));
		} else if (strcmp(text, "CHALLENGE") == 0) {
			strlcpy(out->challenge, colon, sizeof(out->challenge));
		} else if (strcmp(text, "BEGIN") == 0) {
			out->answer = QTV_ANSWER_BEGIN;
		}
	}
}

bool qtv_digest(const char *method, const char *challenge, const char *password,
		char *out, size_t size)
{
	char both[512];
	int n = snprintf(both, sizeof(both), "%s%s", challenge, password);

	if (n < 0 || (size_t)n >= sizeof(both) || size == 0)
		return false;
	if (strcmp(method, "SHA3_512") == 0) {
		struct sha3_512_ctx c;
		uint8_t d[SHA3_512_DIGEST_SIZE];

		if (size < 2 * sizeof(d) + 1)
			return false;
		sha3_512_init(&c);
		sha3_512_update(&c, (size_t)n, (const uint8_t *)both);
		sha3_512_digest(&c, sizeof(d), d);
		for (size_t i = 0; i < sizeof(d); i++)
			snprintf(out + 2 * i, 3, "%02x", d[i]);
	} else if (strcmp(method, "MD4") == 0) {
		uint8_t d[16];
		uint32_t w[4];

		md4_digest(both, (size_t)n, d);
		for (int i = 0; i < 4; i++)
			w[i] = (uint32_t)d[4 * i] | (uint32_t)d[4 * i + 1] << 8 |
			       (uint32_t)d[4 * i + 2] << 16 | (uint32_t)d[4 * i + 3] << 24;
		snprintf(out, size, "%X%X%X%X", w[0], w[1], w[2], w[3]);
	} else if (strcmp(method, "CCITT") == 0) {
		snprintf(out, size, "0x%X", crc_block(both, (size_t)n));
	} else if (strcmp(method, "PLAIN") == 0 || strcmp(method, "NONE") == 0) {
		strlcpy(out, password, size);
	} else {
		return false;
	}
	return true;
}
