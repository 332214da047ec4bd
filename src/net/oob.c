/*
 * oob.c -- connectionless packets and the command-line tokenizer.
 *
 * Design note
 *   A connectionless (out-of-band) packet begins with four 0xFF bytes, a
 *   sequence of -1 that no netchan packet can carry, then a text line such
 *   as "getchallenge" or "connect 28 <qport> <challenge> \"<userinfo>\"".
 *   Replies use the same prefix followed by text and no NUL (as id's
 *   Netchan_OutOfBandPrint sends them).  A reply that does not fit is not
 *   built at all: a cut status or challenge line would only mislead.
 *
 *   The tokenizer follows id's Cmd_TokenizeString/COM_Parse on one line:
 *   blanks are bytes 1-32; a token starting with '"' runs to the next '"'
 *   and keeps its blanks (an empty "" is an argument); other tokens run to
 *   the next blank, quotes included; "//" at the start of a token ends the
 *   line; arguments past NET_ARGS_MAX are dropped.  Three deliberate
 *   differences, all for safety with hostile input: everything is bounded
 *   (id wrote tokens into a fixed buffer unchecked); bytes 128-255 are
 *   ordinary characters (id read them through a signed char, so they
 *   split words); and nothing crosses a newline (in id a quoted string or
 *   a comment could run into the next line, i.e. the next command).
 *   Arguments are copied out of a private copy of the line, so argv and
 *   rest stay valid however the caller's text changes; the struct points
 *   into itself and must not be copied.
 */
#include <qwd/net.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool oob_is_connectionless(const struct msg_buf *msg)
{
	if (msg->cursize < 4 || msg->maxsize < 4)
		return false;
	return msg->data[0] == 0xff && msg->data[1] == 0xff &&
	       msg->data[2] == 0xff && msg->data[3] == 0xff;
}

size_t net_build_oob(void *out, size_t max, const char *fmt, ...)
{
	uint8_t *p = out;
	va_list ap;
	int n;

	if (max < 5)
		return 0;
	memset(p, 0xff, 4);
	/* vsnprintf needs room for its NUL, which is not sent */
	va_start(ap, fmt);
	n = vsnprintf((char *)p + 4, max - 4, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= max - 4)
		return 0;
	return 4 + (size_t)n;
}

/* ---- tokenizer -------------------------------------------------------- */

static bool is_blank(unsigned char c)
{
	return c >= 1 && c <= ' ';
}

/* Copy one token starting at line[i] into store[*out..], NUL-terminated;
 * returns the index just past it in line. */
static size_t copy_token(const char *line, size_t len, size_t i, char *store,
			 size_t *out)
{
	if (line[i] == '"') {
		for (i++; i < len && line[i] != '"'; i++)
			store[(*out)++] = line[i];
		if (i < len)
			i++; /* the closing quote */
	} else {
		for (; i < len && !is_blank((unsigned char)line[i]); i++)
			store[(*out)++] = line[i];
	}
	store[(*out)++] = '\0';
	return i;
}

int net_args_tokenize(struct net_args *a, const char *text)
{
	size_t len = strcspn(text, "\n");
	size_t i = 0, out = 0;

	a->argc = 0;
	a->line[0] = '\0';
	a->next = len + (text[len] == '\n');
	if (len >= NET_ARGS_LINE)
		return -1;
	memcpy(a->line, text, len);
	a->line[len] = '\0';

	/* store holds at most len token bytes plus one NUL per kept token:
	   dropped tokens give their room back */
	for (;;) {
		size_t tok;

		while (i < len && is_blank((unsigned char)a->line[i]))
			i++;
		if (i >= len || (a->line[i] == '/' && a->line[i + 1] == '/'))
			break;
		tok = out;
		if (a->argc < NET_ARGS_MAX) {
			a->start[a->argc] = i;
			a->argv[a->argc] = a->store + tok;
		}
		i = copy_token(a->line, len, i, a->store, &out);
		if (a->argc < NET_ARGS_MAX)
			a->argc++;
		else
			out = tok;
	}

	while (len > 0 && is_blank((unsigned char)a->line[len - 1]))
		a->line[--len] = '\0';
	return a->argc;
}

const char *net_args_argv(const struct net_args *a, int i)
{
	if (i < 0 || i >= a->argc)
		return "";
	return a->argv[i];
}

const char *net_args_rest(const struct net_args *a, int n)
{
	if (n < 0 || n >= a->argc)
		return "";
	return a->line + a->start[n];
}
