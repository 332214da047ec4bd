/*
 * fuzz_metrics.c -- libFuzzer target: what is ours of the metrics
 * endpoint (src/metrics/): the label escaping, a page line carrying an
 * arbitrary label value, and the dispatch of (method, url).
 *
 * Design note
 *   A label value may come from outside (a map name, an address), and the
 *   request's method and url are a stranger's bytes that libmicrohttpd
 *   hands over as C strings.  Each input is used three ways; beyond ASan
 *   and UBSan the target checks the contracts:
 *   - metrics_escape_label: the length it returns is the length it writes
 *     when there is room; the output holds no raw newline, control or
 *     non-ASCII byte, every '"' and '\' is escaped, and unescaping gives
 *     the input back with its unprintable bytes as '?'; into a short
 *     buffer it writes a terminated prefix of the same output;
 *   - metrics_sample with the input (to its first NUL) as a label value,
 *     into a page of a size the input's first byte picks: the page is a
 *     C string of p.len bytes ending in '\n' (or empty), and truncated
 *     exactly when the line did not fit;
 *   - metrics_dispatch of the input cut at its first space (method, url):
 *     the page only for GET or HEAD of exactly /metrics, and so on;
 *   - metrics_parse_listen (qwd -metrics) of the input: accepted, the
 *     address is a terminated dotted quad and the port in 0..65535;
 *     refused, the reason is set.
 *   A broken contract aborts, so libFuzzer keeps the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwd/metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FZ_MAX = 8192 };

static char in[FZ_MAX + 1], out[2 * FZ_MAX + 1], small[17];
static char page[4 * FZ_MAX + 256];

static void fz_fail(const char *what)
{
	fprintf(stderr, "fuzz_metrics: contract broken: %s\n", what);
	abort();
}

static void fz_escape(const char *s, size_t n)
{
	size_t len = metrics_escape_label(s, n, out, sizeof(out)), j = 0;
	size_t slen;

	if (len >= sizeof(out) || strlen(out) != len)
		fz_fail("escaped length is not the length written");
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)out[i];
		unsigned char want = (unsigned char)s[j];

		if (c < 0x20 || c >= 0x7f)
			fz_fail("raw control or non-ASCII byte in the output");
		if (want < 0x20 ? want != '\n' : want >= 0x7f)
			want = '?';
		if (c == '\\') {
			if (++i == len)
				fz_fail("a lone backslash at the end");
			c = (unsigned char)out[i];
			if (c == 'n')
				c = '\n';
			else if (c != '\\' && c != '"')
				fz_fail("an escape that is not \\\\ \\\" or \\n");
		} else if (c == '"') {
			fz_fail("an unescaped quote");
		}
		if (j >= n || c != want)
			fz_fail("unescaping does not give the input back");
		j++;
	}
	if (j != n)
		fz_fail("input left over");
	slen = metrics_escape_label(s, n, small, 1 + (n % (sizeof(small) - 1)));
	if (slen != len || strncmp(small, out, strlen(small)) != 0)
		fz_fail("a short buffer does not hold a prefix of the output");
}

static void fz_page(const char *value, size_t room)
{
	struct metrics_label l = {"v", value};
	struct metrics_page p;

	metrics_page_init(&p, page, room);
	metrics_sample_u64(&p, "qwd_fuzz_total", &l, 1, 1);
	if (strlen(page) != p.len)
		fz_fail("the page is not a string of its length");
	if (p.len && page[p.len - 1] != '\n')
		fz_fail("the page does not end on a line");
	if (p.truncated != (p.len == 0))
		fz_fail("truncated does not say whether the line was written");
	if (!p.truncated && memchr(page, '\n', p.len) != page + p.len - 1)
		fz_fail("a label value broke its line");
}

static void fz_dispatch(char *s)
{
	char *sp = strchr(s, ' '), *url = "";
	enum metrics_route r;
	int get;

	if (sp) {
		*sp = '\0';
		url = sp + 1;
	}
	r = metrics_dispatch(s, url);
	get = strcmp(s, "GET") == 0 || strcmp(s, "HEAD") == 0;
	if ((r == METRICS_ROUTE_BAD_METHOD) != !get)
		fz_fail("a method other than GET/HEAD not refused, or refused");
	if ((r == METRICS_ROUTE_METRICS) != (get && !strcmp(url, "/metrics")))
		fz_fail("the page for another request");
	if ((r == METRICS_ROUTE_HEALTHZ) != (get && !strcmp(url, "/healthz")))
		fz_fail("health for another request");
	if (metrics_route_status(r) < 200 || metrics_route_status(r) > 499)
		fz_fail("a status out of range");
}

static void fz_listen(const char *s)
{
	char addr[64], err[256] = "";
	int port = -1;

	if (metrics_parse_listen(s, addr, sizeof(addr), &port, err,
				 sizeof(err))) {
		if (!memchr(addr, '\0', sizeof(addr)) || port < 0 ||
		    port > 65535)
			fz_fail("an accepted address or port out of range");
	} else if (!err[0]) {
		fz_fail("refused without a reason");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > FZ_MAX)
		size = FZ_MAX;
	memcpy(in, data, size);
	in[size] = '\0';
	fz_escape(in, size);
	fz_page(in, size ? 1 + (size_t)data[0] * 16 : sizeof(page));
	fz_page(in, sizeof(page));
	fz_listen(in);
	fz_dispatch(in);
	return 0;
}
