/*
 * test_pcap.c -- qwd's own traffic into a pcap file (src/capture/pcap.c).
 *
 * Design note: every capture is read back with libpcap's own reader
 * (pcap_open_offline), never with our writer's assumptions: the link type,
 * each record's lengths and time stamp, the IPv4 header (its checksum
 * verified the way a receiver does: the one's complement sum of the
 * header, checksum included, is 0xffff), the UDP header and the payload
 * bytes.  The bound is checked against the file's real size, and the
 * "capture is full" log line must come exactly once however many records
 * are dropped.  When tshark is installed, its QuakeWorld dissector must
 * take every record for QuakeWorld, in the right direction, with the
 * sequence numbers and qport written; without tshark that test skips.
 */
#include "../harness.h"

#include <qwd/capture.h>
#include <qwd/protocol.h>

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bsd/string.h>

static char dir[64];
static char path[128];

struct log_count {
	int lines[4];
	char last[QWD_LOG_LINE_MAX];
};

static void count_sink(void *ctx, int level, const char *line)
{
	struct log_count *lc = ctx;

	if (level >= 0 && level < 4)
		lc->lines[level]++;
	snprintf(lc->last, sizeof(lc->last), "%s", line);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/qwd-capture-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/c.pcap", dir);
	return 0;
}

static int teardown(void **state)
{
	char p[160];

	(void)state;
	unlink(path);
	snprintf(p, sizeof(p), "%s/link", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/target", dir);
	unlink(p);
	rmdir(dir);
	return 0;
}

static struct net_addr addr(uint32_t ip, uint16_t port)
{
	struct net_addr a = {htonl(ip), htons(port)};

	return a;
}

static const uint32_t SERVER_IP = 0x0a000001, CLIENT_IP = 0x0a000002;

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* what a receiver checks: the sum over the header, checksum included */
static bool ip_header_valid(const uint8_t *ip)
{
	uint32_t sum = 0;

	for (int i = 0; i < 20; i += 2)
		sum += get16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

static long file_size(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

/* a payload whose every byte tells its position and its packet */
static void fill(uint8_t *buf, size_t len, int seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + (size_t)seed * 13);
}

struct expect {
	struct net_addr from, to;
	size_t len;
	double t;
	int seed;
};

/* read the file back and compare it with the records we meant */
static void check_file(const struct expect *ex, int n, size_t snaplen_payload)
{
	char perr[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, perr);
	struct pcap_pkthdr *h;
	const u_char *p;
	uint8_t want[NET_MAX_UDP_PACKET + 200];
	int i = 0, rc;

	assert_non_null(pc);
	assert_int_equal(pcap_datalink(pc), DLT_RAW);
	while ((rc = pcap_next_ex(pc, &h, &p)) == 1) {
		const struct expect *e = &ex[i];
		size_t cap = e->len < snaplen_payload ? e->len : snaplen_payload;
		double t = (double)h->ts.tv_sec + (double)h->ts.tv_usec * 1e-6;

		assert_true(i < n);
		assert_int_equal(h->len, 28 + e->len);
		assert_int_equal(h->caplen, 28 + cap);
		assert_true(fabs(t - e->t) < 1e-6);
		/* IPv4 */
		assert_int_equal(p[0], 0x45);
		assert_int_equal(get16(p + 2), 28 + e->len);
		assert_int_equal(get16(p + 6), 0x4000);
		assert_int_equal(p[8], 64);
		assert_int_equal(p[9], 17);
		assert_true(ip_header_valid(p));
		assert_memory_equal(p + 12, &e->from.ip, 4);
		assert_memory_equal(p + 16, &e->to.ip, 4);
		/* UDP */
		assert_memory_equal(p + 20, &e->from.port, 2);
		assert_memory_equal(p + 22, &e->to.port, 2);
		assert_int_equal(get16(p + 24), 8 + e->len);
		assert_int_equal(get16(p + 26), 0);
		fill(want, e->len, e->seed);
		assert_memory_equal(p + 28, want, cap);
		i++;
	}
	assert_int_equal(rc, PCAP_ERROR_BREAK);
	assert_int_equal(i, n);
	pcap_close(pc);
}

static void test_records_read_back(void **state)
{
	struct net_addr sv = addr(SERVER_IP, 27500), cl = addr(CLIENT_IP, 27001);
	struct net_addr other = addr(0xc0a80105, 40000);
	static uint8_t buf[NET_MAX_UDP_PACKET + 100];
	struct expect ex[6] = {
		{cl, sv, 14, 1000.25, 1},		/* capture_in */
		{sv, cl, 300, 1000.5, 2},		/* capture_out */
		{other, sv, 0, 1001.0, 3},		/* empty datagram */
		{sv, other, 1450, 1002.000001, 4},	/* MAX_DATAGRAM */
		{cl, other, NET_MAX_UDP_PACKET, 1003.0, 5},	/* the largest */
		{sv, cl, NET_MAX_UDP_PACKET + 50, 1004.0, 6},	/* cut */
	};
	struct capture_stats st;
	struct capture *cap;
	char err[256];

	(void)state;
	cap = capture_open(path, 1 << 20, &sv, NULL, err, sizeof(err));
	assert_non_null(cap);
	capture_set_time_offset(cap, 0);
	for (int i = 0; i < 6; i++) {
		fill(buf, ex[i].len, ex[i].seed);
		if (i == 0)
			assert_true(capture_in(cap, &ex[i].from, buf, ex[i].len, ex[i].t));
		else if (i == 1)
			assert_true(capture_out(cap, &ex[i].to, buf, ex[i].len, ex[i].t));
		else
			assert_true(capture_packet(cap, &ex[i].from, &ex[i].to, buf,
						   ex[i].len, ex[i].t));
	}
	capture_get_stats(cap, &st);
	assert_int_equal(st.records, 6);
	assert_int_equal(st.truncated, 1);
	assert_int_equal(st.dropped, 0);
	assert_false(st.full);
	assert_int_equal(capture_close(cap), 0);
	/* the accounting is the file's real size */
	assert_int_equal(file_size(path), (long)st.bytes);
	check_file(ex, 6, NET_MAX_UDP_PACKET);
}

/* the file holds rcon passwords: private, and never through a link */
static void test_open_private_and_errors(void **state)
{
	struct net_addr sv = addr(SERVER_IP, 27500);
	char err[256], link_path[160], target[160];
	struct capture *cap;
	struct stat st;
	FILE *f;

	(void)state;
	cap = capture_open(path, 0, &sv, NULL, err, sizeof(err));
	assert_non_null(cap);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(capture_close(cap), 0);
	assert_int_equal(file_size(path), CAPTURE_FILE_HEADER);

	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(link_path, sizeof(link_path), "%s/link", dir);
	f = fopen(target, "w");
	assert_non_null(f);
	fputs("keep", f);
	fclose(f);
	assert_int_equal(symlink(target, link_path), 0);
	err[0] = '\0';
	assert_null(capture_open(link_path, 0, &sv, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, link_path));
	assert_int_equal(file_size(target), 4);

	assert_null(capture_open("/nonexistent-dir/x.pcap", 0, &sv, NULL, err,
				 sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent-dir/x.pcap"));
	assert_null(capture_open(path, CAPTURE_FILE_HEADER - 1, &sv, NULL, err,
				 sizeof(err)));
	assert_null(capture_open("", 0, &sv, NULL, err, sizeof(err)));
	/* NULL is harmless everywhere */
	assert_false(capture_in(NULL, &sv, "x", 1, 0));
	assert_int_equal(capture_close(NULL), 0);
}

/* Records stop at the bound: the first that would cross it and every one
 * after (even a smaller one) are dropped, the log says so once. */
static void test_size_bound(void **state)
{
	struct net_addr sv = addr(SERVER_IP, 27500), cl = addr(CLIENT_IP, 27001);
	struct log_count lc = {{0}, ""};
	struct qwd_log log = {count_sink, &lc, QWD_LOG_DEBUG};
	uint8_t buf[100];
	struct expect ex[3];
	struct capture_stats st;
	struct capture *cap;
	char err[256];
	/* room for three records of 100 bytes and a bit */
	uint64_t bound = CAPTURE_FILE_HEADER + 3 * (16 + 28 + 100) + 40;

	(void)state;
	cap = capture_open(path, bound, &sv, &log, err, sizeof(err));
	assert_non_null(cap);
	capture_set_time_offset(cap, 0);
	for (int i = 0; i < 6; i++) {
		fill(buf, sizeof(buf), i);
		bool ok = capture_in(cap, &cl, buf, sizeof(buf), 10.0 + i);

		assert_true(ok == (i < 3));
		if (i < 3)
			ex[i] = (struct expect){cl, sv, sizeof(buf), 10.0 + i, i};
	}
	/* 40 bytes were left: a 1-byte record (45) does not come back */
	assert_false(capture_out(cap, &cl, "l", 1, 20.0));
	capture_get_stats(cap, &st);
	assert_int_equal(st.records, 3);
	assert_int_equal(st.dropped, 4);
	assert_true(st.full);
	assert_false(st.write_error);
	assert_true(st.bytes <= bound);
	assert_int_equal(lc.lines[QWD_LOG_WARN], 1);
	assert_int_equal(lc.lines[QWD_LOG_ERROR], 0);
	assert_non_null(strstr(lc.last, "size bound"));
	assert_int_equal(capture_close(cap), 0);
	assert_int_equal(file_size(path), (long)st.bytes);
	check_file(ex, 3, NET_MAX_UDP_PACKET);
}

/* exactly at the bound is allowed */
static void test_size_bound_exact(void **state)
{
	struct net_addr sv = addr(SERVER_IP, 27500), cl = addr(CLIENT_IP, 27001);
	struct log_count lc = {{0}, ""};
	struct qwd_log log = {count_sink, &lc, QWD_LOG_DEBUG};
	struct capture_stats st;
	struct capture *cap;
	char err[256];

	(void)state;
	cap = capture_open(path, CAPTURE_FILE_HEADER + 2 * (16 + 28 + 10), &sv,
			   &log, err, sizeof(err));
	assert_non_null(cap);
	assert_true(capture_in(cap, &cl, "0123456789", 10, 1.0));
	assert_true(capture_in(cap, &cl, "0123456789", 10, 2.0));
	assert_false(capture_in(cap, &cl, "", 0, 3.0));
	capture_get_stats(cap, &st);
	assert_int_equal(st.bytes, st.max_bytes);
	assert_int_equal(capture_close(cap), 0);
	assert_int_equal(file_size(path), CAPTURE_FILE_HEADER + 2 * (16 + 28 + 10));
	assert_int_equal(lc.lines[QWD_LOG_WARN], 1);
}

static void test_peer_filter(void **state)
{
	struct net_addr sv = addr(SERVER_IP, 27500), a = addr(CLIENT_IP, 27001);
	struct net_addr a2 = addr(CLIENT_IP, 27002), b = addr(0x0a000003, 27001);
	struct net_addr any_port = addr(CLIENT_IP, 0);
	struct capture_stats st;
	struct capture *cap;
	char err[256];

	(void)state;
	cap = capture_open(path, 0, &sv, NULL, err, sizeof(err));
	assert_non_null(cap);
	capture_set_peer(cap, &a);
	assert_true(capture_in(cap, &a, "x", 1, 1));
	assert_true(capture_out(cap, &a, "y", 1, 1));
	assert_false(capture_in(cap, &a2, "x", 1, 1));
	assert_false(capture_out(cap, &b, "y", 1, 1));
	capture_set_peer(cap, &any_port);	/* the whole ip */
	assert_true(capture_in(cap, &a2, "x", 1, 1));
	assert_false(capture_in(cap, &b, "x", 1, 1));
	capture_set_peer(cap, NULL);
	assert_true(capture_in(cap, &b, "x", 1, 1));
	capture_get_stats(cap, &st);
	assert_int_equal(st.records, 4);
	assert_int_equal(st.filtered, 3);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(capture_close(cap), 0);
}

/* By default `now` is CLOCK_MONOTONIC and the record is wall-clock time;
 * microseconds round to the nearest, carrying into the second. */
static void test_time_stamps(void **state)
{
	struct net_addr sv = addr(SERVER_IP, 27500), cl = addr(CLIENT_IP, 27001);
	char perr[PCAP_ERRBUF_SIZE], err[256];
	struct pcap_pkthdr *h;
	const u_char *p;
	struct timespec m;
	struct capture *cap;
	pcap_t *pc;
	time_t wall;

	(void)state;
	cap = capture_open(path, 0, &sv, NULL, err, sizeof(err));
	assert_non_null(cap);
	clock_gettime(CLOCK_MONOTONIC, &m);
	wall = time(NULL);
	assert_true(capture_in(cap, &cl, "a", 1,
			       (double)m.tv_sec + (double)m.tv_nsec * 1e-9));
	capture_set_time_offset(cap, 0);
	assert_true(capture_in(cap, &cl, "b", 1, 1000.9999997));
	assert_true(capture_in(cap, &cl, "c", 1, -5.0));	/* clamped */
	assert_int_equal(capture_close(cap), 0);

	pc = pcap_open_offline(path, perr);
	assert_non_null(pc);
	assert_int_equal(pcap_next_ex(pc, &h, &p), 1);
	/* a wall clock, not seconds since boot (a minute of slack) */
	assert_true(labs((long)(h->ts.tv_sec - wall)) < 60);
	assert_int_equal(pcap_next_ex(pc, &h, &p), 1);
	assert_int_equal(h->ts.tv_sec, 1001);
	assert_int_equal(h->ts.tv_usec, 0);
	assert_int_equal(pcap_next_ex(pc, &h, &p), 1);
	assert_int_equal(h->ts.tv_sec, 0);
	pcap_close(pc);
}

/* ---- tshark ----------------------------------------------------------- */

static bool have_tshark(void)
{
	return system("command -v tshark >/dev/null 2>&1") == 0;
}

static size_t c2s(uint8_t *buf, size_t max, uint32_t seq, uint16_t qport,
		  const char *cmd)
{
	struct msg_buf m;

	msg_init(&m, buf, max);
	msg_write_long(&m, (int32_t)(seq | 0x80000000u));
	msg_write_long(&m, 0);
	msg_write_short(&m, qport);
	msg_write_byte(&m, clc_stringcmd);
	msg_write_string(&m, cmd);
	return m.cursize;
}

static size_t s2c(uint8_t *buf, size_t max, uint32_t seq, uint32_t ack,
		  const char *text)
{
	struct msg_buf m;

	msg_init(&m, buf, max);
	msg_write_long(&m, (int32_t)seq);
	msg_write_long(&m, (int32_t)ack);
	msg_write_byte(&m, svc_print);
	msg_write_byte(&m, PRINT_HIGH);
	msg_write_string(&m, text);
	return m.cursize;
}

static void test_tshark_dissects_quakeworld(void **state)
{
	struct net_addr sv = addr(0x7f000001, PORT_SERVER), cl = addr(0x7f000001, 27001);
	static const char connect[] =
		"\xff\xff\xff\xff" "connect 28 4660 12345 \"\\name\\cap\"\n";
	static const char challenge[] = "\xff\xff\xff\xff" "c12345";
	char cmd[512], line[256], err[256];
	uint8_t buf[256];
	struct capture *cap;
	FILE *out;
	int n = 0;

	(void)state;
	if (!have_tshark())
		qwd_skip("tshark not installed (Debian package tshark)");
	cap = capture_open(path, 0, &sv, NULL, err, sizeof(err));
	assert_non_null(cap);
	capture_set_time_offset(cap, 0);
	assert_true(capture_out(cap, &cl, challenge, sizeof(challenge), 1.0));
	assert_true(capture_in(cap, &cl, connect, sizeof(connect) - 1, 1.1));
	for (uint32_t s = 1; s <= 3; s++) {
		size_t len = c2s(buf, sizeof(buf), s, 4660, "new");

		assert_true(capture_in(cap, &cl, buf, len, 1.0 + s));
		len = s2c(buf, sizeof(buf), s, s, "hello");
		assert_true(capture_out(cap, &cl, buf, len, 1.0 + s + 0.01));
	}
	assert_int_equal(capture_close(cap), 0);

	snprintf(cmd, sizeof(cmd),
		 "tshark -r %s -Y quakeworld -T fields -E separator=, "
		 "-e frame.number -e quakeworld.c2s -e quakeworld.s2c "
		 "-e quakeworld.connectionless.command "
		 "-e quakeworld.connectionless "
		 "-e quakeworld.game.seq1 -e quakeworld.game.rel1 "
		 "-e quakeworld.game.qport -e ip.checksum.status "
		 "-o ip.check_checksum:TRUE 2>/dev/null",
		 path);
	out = popen(cmd, "r");
	assert_non_null(out);
	while (fgets(line, sizeof(line), out)) {
		char f[9][32];
		int k = 0;
		char *p = line, *comma;

		line[strcspn(line, "\n")] = '\0';
		memset(f, 0, sizeof(f));
		while (k < 9) {
			comma = strchr(p, ',');
			if (comma)
				*comma = '\0';
			strlcpy(f[k++], p, sizeof(f[0]));
			if (!comma)
				break;
			p = comma + 1;
		}
		n++;
		assert_int_equal(atoi(f[0]), n);
		assert_string_equal(f[8], "1");		/* checksum good */
		if (n == 1) {
			assert_string_equal(f[2], "1");	/* server to client */
			assert_string_equal(f[3], "Challenge");
		} else if (n == 2) {
			/* client to server, connectionless (tshark 4.0 cannot
			 * read the text of a connect as a stock client sends
			 * it, without a NUL, and calls it malformed: the
			 * dissector's limit, not the capture's) */
			assert_string_equal(f[1], "1");
			assert_string_equal(f[4], "1");
		} else if (n % 2 == 1) {
			assert_string_equal(f[1], "1");
			assert_int_equal(atoi(f[5]), (n - 1) / 2);
			assert_string_equal(f[6], "1");	/* reliable */
			assert_string_equal(f[7], "4660");
		} else {
			assert_string_equal(f[2], "1");
			assert_int_equal(atoi(f[5]), (n - 2) / 2);
			assert_string_equal(f[6], "0");
			assert_string_equal(f[7], "");	/* no qport this way */
		}
	}
	assert_int_equal(pclose(out), 0);
	assert_int_equal(n, 8);
}

static const struct CMUnitTest capture_tests[] = {
	cmocka_unit_test_setup_teardown(test_records_read_back, setup, teardown),
	cmocka_unit_test_setup_teardown(test_open_private_and_errors, setup, teardown),
	cmocka_unit_test_setup_teardown(test_size_bound, setup, teardown),
	cmocka_unit_test_setup_teardown(test_size_bound_exact, setup, teardown),
	cmocka_unit_test_setup_teardown(test_peer_filter, setup, teardown),
	cmocka_unit_test_setup_teardown(test_time_stamps, setup, teardown),
	cmocka_unit_test_setup_teardown(test_tshark_dissects_quakeworld, setup, teardown),
};

QWD_TEST_GROUP(capture, capture_tests, NULL, NULL)
