/*
 * main.c -- qwcap FILE.pcap [--server-port P] [--csv] [--max-clients N]
 *
 * Design note: the command line only; the analysis is qwcap_analyze
 * (analyze.c) and the output qwcap_print / qwcap_print_csv (report.c), so
 * the tests run the same code without a process.  Exit status 0 on
 * success, 1 when the capture cannot be read, 2 on a usage error.
 */
#include "qwcap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: qwcap FILE.pcap [--server-port P] [--csv] [--max-clients N]\n"
		"  per client and direction: packets, bytes, sizes, rates, size\n"
		"  histogram, connectionless kinds and clc/svc message counts;\n"
		"  then the totals.  The server is the address with port P\n"
		"  (default 27500 if present, else the busiest port).\n");
}

/* a decimal in [lo, hi], or -1 */
static long number(const char *s, long lo, long hi)
{
	long long v;

	return qwd_parse_int(s, lo, hi, false, &v) ? (long)v : -1;
}

int main(int argc, char **argv)
{
	struct qwcap_options opt = {0};
	struct qwcap_report r;
	const char *path = NULL;
	bool csv = false;
	char err[512];

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--csv") == 0) {
			csv = true;
		} else if (strcmp(a, "--server-port") == 0 && i + 1 < argc) {
			long v = number(argv[++i], 1, 65535);

			if (v < 0) {
				fprintf(stderr, "qwcap: bad port %s\n", argv[i]);
				return 2;
			}
			opt.server_port = (int)v;
		} else if (strcmp(a, "--max-clients") == 0 && i + 1 < argc) {
			long v = number(argv[++i], 1, 1L << 24);

			if (v < 0) {
				fprintf(stderr, "qwcap: bad count %s\n", argv[i]);
				return 2;
			}
			opt.max_clients = (size_t)v;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, "qwcap: unknown option %s\n", a);
			usage(stderr);
			return 2;
		} else if (!path) {
			path = a;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!path) {
		usage(stderr);
		return 2;
	}
	if (qwcap_analyze(path, &opt, &r, err, sizeof(err)) != 0) {
		fprintf(stderr, "qwcap: %s\n", err);
		qwcap_report_free(&r);
		return 1;
	}
	if (csv)
		qwcap_print_csv(&r, stdout);
	else
		qwcap_print(&r, stdout);
	qwcap_report_free(&r);
	return ferror(stdout) ? 1 : 0;
}
