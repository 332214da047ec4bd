/*
 * qtv.c -- the client side of the QTV handshake (qwd/client.h, the
 * format's texts in qwd/mvd.h): the request a viewer or proxy sends, and
 * the reading of the server's answer.
 *
 * Design note
 *   Text only, no sockets: the caller owns the connection, so the test of
 *   the server and tools/mvdcheck share these functions; the password
 *   digest both sides compute is the format's (src/common/mvd.c).  The request
 *   is ezQuake's ("QTV\n", VERSION, USERINFO, AUTH, PASSWORD with its
 *   value quoted, a blank line).  The answer is read as ezQuake's
 *   CL_QTVPoll reads it: "QTVSV <version>" first, then "KEY: value" lines
 *   up to a blank line; BEGIN means the records follow the blank line,
 *   AUTH asks for a password, PERROR and ERROR refuse.  A header longer
 *   than QTV_HEADER_MAX without its blank line is not a QTV server.
 */
#include <qwd/client.h>

#include <stdio.h>
#include <string.h>

#include <bsd/string.h>

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
