/*
 * text.c -- the match's texts as KTX prints them: red letters and gold
 * digits of the Quake charset, prints to one player or all, the
 * centerprint to everyone.
 *
 * Design note
 *   Quake's charset draws a byte with the high bit set in red (letters)
 *   or gold (digits 0x92..0x9b, brackets 0x90 0x91); KTX's texts use
 *   them and players know them, so the match writes the same bytes.  The
 *   prints go through the game's services (print, centerprint,
 *   stufftext): to the clients and to the demo, as the game's own.
 *   Formatting uses the caller's buffers: nothing static.
 */
#include "internal.h"

#include <stdio.h>

#include <bsd/string.h>

const char *m_red(char *buf, size_t size, const char *s)
{
	size_t i = 0;

	for (; s[i] && i + 1 < size; i++)
		buf[i] = (char)((unsigned char)s[i] | 0x80);
	buf[i] = '\0';
	return buf;
}

const char *m_gold(char *buf, size_t size, int n)
{
	snprintf(buf, size, "%d", n);
	for (char *p = buf; *p; p++)
		if (*p >= '0' && *p <= '9')
			*p = (char)((unsigned char)*p + 98);
	return buf;
}

void match_plain_text(const char *in, char *out, size_t size)
{
	size_t n = 0;

	if (size == 0)
		return;
	for (; *in && n + 1 < size; in++) {
		unsigned char c = (unsigned char)*in;

		if (c >= 0x92 && c <= 0x9b)
			c = (unsigned char)('0' + c - 0x92);
		else if (c == 0x90)
			c = '[';
		else if (c == 0x91)
			c = ']';
		else
			c &= 0x7f;
		out[n++] = (char)c;
	}
	out[n] = '\0';
}

const char *m_plural(int n)
{
	return n == 1 ? "" : "s";
}

static void vprint(struct match *m, int slot, const char *fmt, va_list ap)
{
	char text[1024];

	vsnprintf(text, sizeof(text), fmt, ap);
	if (m->g->svc.print)
		m->g->svc.print(m->g->svc.ctx, slot, PRINT_HIGH, text);
}

void m_bprint(struct match *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint(m, -1, fmt, ap);
	va_end(ap);
}

void m_sprint(struct match *m, int slot, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint(m, slot, fmt, ap);
	va_end(ap);
}

void m_centerprint_all(struct match *m, const char *text)
{
	if (m->g->svc.centerprint)
		m->g->svc.centerprint(m->g->svc.ctx, -1, text);
}

void m_stuff_all(struct match *m, const char *text)
{
	if (m->g->svc.stufftext)
		m->g->svc.stufftext(m->g->svc.ctx, -1, text);
}
