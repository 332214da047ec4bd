/*
 * report.c -- the analysis as text or CSV.
 *
 * Design note
 *   Text: a header (file facts, server port and how it was found), one
 *   block per client in order of first appearance, then the totals: each
 *   direction's counts, the mean per-client rates (each client's counts
 *   over its own lifetime, first to last datagram, then averaged, as the
 *   study quotes "bytes per second per player"), and the size
 *   distribution of both directions side by side (the study's message
 *   size figures).
 *   CSV: one header line, then one row per client and direction and one
 *   per direction for the totals (client "all"); fixed columns, so a
 *   plotting script can rely on them: summary figures, the size buckets
 *   (h_<lo>_<hi>), the connectionless kinds (oob_<kind>) and every named
 *   clc and svc message (count only).
 *   Rates over a lifetime of zero (a single datagram) are printed as 0.
 */
#include "qwcap.h"

#include <string.h>

#include <pcap/pcap.h>

static double lifetime(const struct qwcap_client *c)
{
	return c->last - c->first;
}

static double span(const struct qwcap_report *r)
{
	return r->have_time ? r->last - r->first : 0;
}

static double mean_size(const struct qwcap_dir_stats *d)
{
	return d->packets ? (double)d->bytes / (double)d->packets : 0;
}

static unsigned min_size(const struct qwcap_dir_stats *d)
{
	return d->packets ? d->min : 0;
}

/* "0-15", ..., "1451+" */
static void bucket_label(int b, char *out, size_t size)
{
	if (b + 1 < QWCAP_BUCKETS)
		snprintf(out, size, "%u-%u", qwcap_bucket_lo[b],
			 qwcap_bucket_lo[b + 1] - 1);
	else
		snprintf(out, size, "%u+", qwcap_bucket_lo[b]);
}

static const char *link_name(int dlt)
{
	const char *n = pcap_datalink_val_to_name(dlt);

	return n ? n : "unknown";
}

/* ---- text ------------------------------------------------------------- */

static void print_dir(FILE *out, enum qwcap_dir dir,
		      const struct qwcap_dir_stats *d, double seconds)
{
	char label[16];
	int col = 0;

	fprintf(out, "  %s  %llu pkts  %llu B  size mean %.1f min %u max %u"
		"  %.1f pkt/s  %.0f B/s\n",
		qwcap_dir_name(dir), (unsigned long long)d->packets,
		(unsigned long long)d->bytes, mean_size(d), min_size(d), d->max,
		qwcap_rate(d->packets, seconds), qwcap_rate(d->bytes, seconds));
	if (!d->packets)
		return;
	fprintf(out, "       connectionless %llu", (unsigned long long)d->connectionless);
	for (int k = 0; k < QWCAP_OOB_KINDS; k++)
		if (d->oob[k])
			fprintf(out, "%s%s %llu", col++ ? ", " : " (",
				qwcap_oob_name(k), (unsigned long long)d->oob[k]);
	fprintf(out, "%s | netchan %llu, reliable %llu | bad %llu",
		col ? ")" : "", (unsigned long long)d->netchan,
		(unsigned long long)d->reliable, (unsigned long long)d->bad);
	if (d->cut)
		fprintf(out, " | cut by snaplen %llu", (unsigned long long)d->cut);
	fprintf(out, "\n       sizes:");
	for (int b = 0; b < QWCAP_BUCKETS; b++) {
		if (!d->hist[b])
			continue;
		bucket_label(b, label, sizeof(label));
		fprintf(out, " %s:%llu", label, (unsigned long long)d->hist[b]);
	}
	fprintf(out, "\n");
	col = 0;
	for (int code = 0; code < 256; code++) {
		const char *name = qwcap_msg_name(dir, code);
		char unknown[16];

		if (!d->msg[code])
			continue;
		if (!name) {
			snprintf(unknown, sizeof(unknown), "#%d", code);
			name = unknown;
		}
		fprintf(out, "%s%s %llu (%llu B)",
			col % 3 == 0 ? (col ? "\n                 " : "       messages: ")
				     : ", ",
			name, (unsigned long long)d->msg[code],
			(unsigned long long)d->msg_bytes[code]);
		col++;
	}
	if (col)
		fprintf(out, "\n");
}

static void print_histogram(FILE *out, const struct qwcap_report *r)
{
	const struct qwcap_dir_stats *c2s = &r->total[QWCAP_C2S];
	const struct qwcap_dir_stats *s2c = &r->total[QWCAP_S2C];
	char label[16], bar[2][24];

	fprintf(out, "size distribution (UDP payload bytes, share of packets)\n");
	fprintf(out, "  %-10s %10s %6s %-20s %10s %6s\n", "bytes",
		"c2s", "%", "", "s2c", "%");
	for (int b = 0; b < QWCAP_BUCKETS; b++) {
		double share[2] = {
			c2s->packets ? 100.0 * (double)c2s->hist[b] / (double)c2s->packets : 0,
			s2c->packets ? 100.0 * (double)s2c->hist[b] / (double)s2c->packets : 0,
		};

		for (int k = 0; k < 2; k++) {
			int n = (int)(share[k] / 5.0 + 0.5);	/* 20 marks = 100% */

			memset(bar[k], '#', (size_t)n);
			bar[k][n] = '\0';
		}
		bucket_label(b, label, sizeof(label));
		fprintf(out, "  %-10s %10llu %5.1f%% %-20s %10llu %5.1f%%%s%s\n", label,
			(unsigned long long)c2s->hist[b], share[0], bar[0],
			(unsigned long long)s2c->hist[b], share[1],
			bar[1][0] ? " " : "", bar[1]);
	}
}

void qwcap_print(const struct qwcap_report *r, FILE *out)
{
	double rate_sum[QWCAP_DIRS][2] = {{0}};
	size_t timed = 0;

	fprintf(out, "link %s | %llu frames, %llu IPv4/UDP, %llu skipped "
		"(not IPv4/UDP, fragments), %llu not the server's\n",
		link_name(r->dlt), (unsigned long long)r->frames,
		(unsigned long long)r->udp, (unsigned long long)r->skipped,
		(unsigned long long)r->other);
	fprintf(out, "server port %u (%s) | span %.3f s | %zu clients",
		r->server_port, r->port_guessed ? "the busiest port" : "given or 27500",
		span(r), r->nclients);
	if (r->over_limit)
		fprintf(out, " | %llu datagrams of clients over the limit not counted",
			(unsigned long long)r->over_limit);
	fprintf(out, "\n");

	for (size_t i = 0; i < r->nclients; i++) {
		const struct qwcap_client *c = &r->clients[i];
		char a[NET_ADDR_STRLEN];
		double life = lifetime(c);

		fprintf(out, "\nclient %s", net_addr_format(&c->addr, a));
		if (c->qport >= 0)
			fprintf(out, " qport %d", c->qport);
		if (c->extended)
			fprintf(out, " QWDX");
		fprintf(out, " | lifetime %.3f s (from +%.3f s)\n", life,
			c->first - r->first);
		for (int d = 0; d < QWCAP_DIRS; d++)
			print_dir(out, (enum qwcap_dir)d, &c->dir[d], life);
		if (life > 0) {
			for (int d = 0; d < QWCAP_DIRS; d++) {
				rate_sum[d][0] += qwcap_rate(c->dir[d].packets, life);
				rate_sum[d][1] += qwcap_rate(c->dir[d].bytes, life);
			}
			timed++;
		}
	}

	fprintf(out, "\ntotals over %.3f s\n", span(r));
	for (int d = 0; d < QWCAP_DIRS; d++)
		print_dir(out, (enum qwcap_dir)d, &r->total[d], span(r));
	if (timed) {
		fprintf(out, "per client (mean over %zu clients, each over its lifetime):", timed);
		for (int d = 0; d < QWCAP_DIRS; d++)
			fprintf(out, " %s %.1f pkt/s %.0f B/s%s",
				qwcap_dir_name((enum qwcap_dir)d),
				rate_sum[d][0] / (double)timed,
				rate_sum[d][1] / (double)timed, d == 0 ? "," : "");
		fprintf(out, "\n");
	}
	print_histogram(out, r);
}

/* ---- CSV -------------------------------------------------------------- */

static void csv_header(FILE *out)
{
	char label[16];

	fprintf(out, "client,qport,extended,dir,lifetime_s,packets,bytes,"
		"mean_size,min_size,max_size,packets_per_s,bytes_per_s,"
		"connectionless,netchan,reliable,bad,cut");
	for (int b = 0; b < QWCAP_BUCKETS; b++) {
		bucket_label(b, label, sizeof(label));
		for (char *p = label; *p; p++)
			if (*p == '-')
				*p = '_';
			else if (*p == '+')
				*p = '\0';
		fprintf(out, ",h_%s%s", label, b + 1 < QWCAP_BUCKETS ? "" : "_up");
	}
	for (int k = 0; k < QWCAP_OOB_KINDS; k++)
		fprintf(out, ",oob_%s", qwcap_oob_name(k));
	for (int d = 0; d < QWCAP_DIRS; d++)
		for (int code = 0; code < 256; code++) {
			const char *name = qwcap_msg_name((enum qwcap_dir)d, code);

			if (name)
				fprintf(out, ",%s", name);
		}
	fprintf(out, "\n");
}

static void csv_row(FILE *out, const char *client, int qport, bool extended,
		    enum qwcap_dir dir, const struct qwcap_dir_stats *s,
		    double seconds)
{
	fprintf(out, "%s,", client);
	if (qport >= 0)
		fprintf(out, "%d", qport);
	fprintf(out, ",%d,%s,%.6f,%llu,%llu,%.3f,%u,%u,%.3f,%.3f,%llu,%llu,%llu,%llu,%llu",
		extended ? 1 : 0, qwcap_dir_name(dir), seconds,
		(unsigned long long)s->packets, (unsigned long long)s->bytes,
		mean_size(s), min_size(s), s->max, qwcap_rate(s->packets, seconds),
		qwcap_rate(s->bytes, seconds), (unsigned long long)s->connectionless,
		(unsigned long long)s->netchan, (unsigned long long)s->reliable,
		(unsigned long long)s->bad, (unsigned long long)s->cut);
	for (int b = 0; b < QWCAP_BUCKETS; b++)
		fprintf(out, ",%llu", (unsigned long long)s->hist[b]);
	for (int k = 0; k < QWCAP_OOB_KINDS; k++)
		fprintf(out, ",%llu", (unsigned long long)s->oob[k]);
	for (int d = 0; d < QWCAP_DIRS; d++)
		for (int code = 0; code < 256; code++)
			if (qwcap_msg_name((enum qwcap_dir)d, code))
				fprintf(out, ",%llu",
					d == (int)dir ? (unsigned long long)s->msg[code] : 0ull);
	fprintf(out, "\n");
}

void qwcap_print_csv(const struct qwcap_report *r, FILE *out)
{
	csv_header(out);
	for (size_t i = 0; i < r->nclients; i++) {
		const struct qwcap_client *c = &r->clients[i];
		char a[NET_ADDR_STRLEN];

		net_addr_format(&c->addr, a);
		for (int d = 0; d < QWCAP_DIRS; d++)
			csv_row(out, a, c->qport, c->extended, (enum qwcap_dir)d,
				&c->dir[d], lifetime(c));
	}
	for (int d = 0; d < QWCAP_DIRS; d++)
		csv_row(out, "all", -1, false, (enum qwcap_dir)d, &r->total[d],
			span(r));
}
