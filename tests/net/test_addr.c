/*
 * test_addr.c -- IPv4 endpoints: parse, format, compare, resolve.
 *
 * Design note: parsing is checked both ways (what must be accepted and the
 * malformed forms that must be refused without touching the output), and
 * every accepted address is formatted back, so a byte-order slip in
 * either direction shows.
 */
#include "../harness.h"

#include <qwd/net.h>

#include <arpa/inet.h>
#include <string.h>

static void test_parse_and_format(void **state)
{
	struct net_addr a;
	char text[NET_ADDR_STRLEN];

	(void)state;
	assert_true(net_addr_parse("127.0.0.1:27500", 0, &a));
	assert_int_equal(a.ip, htonl(0x7f000001));
	assert_int_equal(a.port, htons(27500));
	assert_string_equal(net_addr_format(&a, text), "127.0.0.1:27500");

	assert_true(net_addr_parse("10.1.2.3", 27500, &a));
	assert_string_equal(net_addr_format(&a, text), "10.1.2.3:27500");

	assert_true(net_addr_parse("255.255.255.255:65535", 0, &a));
	assert_string_equal(net_addr_format(&a, text),
			    "255.255.255.255:65535");
	assert_int_equal(strlen(text) + 1, NET_ADDR_STRLEN);

	assert_true(net_addr_parse("0.0.0.0:0", 1, &a));
	assert_int_equal(a.ip, 0);
	assert_int_equal(a.port, 0);
}

static void test_parse_rejects(void **state)
{
	static const char *bad[] = {
		"",		 ":27500",	    "1.2.3",	 "1.2.3.4.5",
		"256.1.1.1",	 "1.2.3.4:",	    "1.2.3.4:x", "1.2.3.4:65536",
		"1.2.3.4:-1",	 "1.2.3.4:+80",	    "1.2.3.4:1:2", "::1",
		"010.1.1.1",	 "1.2.3.4 ",	    " 1.2.3.4",	 "localhost",
		"1.2.3.4:80 ",	 "1234567890123456789:1",
	};
	struct net_addr a = {.ip = 0x12345678, .port = 0x9abc};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (net_addr_parse(bad[i], 27500, &a))
			fail_msg("accepted \"%s\"", bad[i]);
		assert_int_equal(a.ip, 0x12345678);
		assert_int_equal(a.port, 0x9abc);
	}
	assert_false(net_addr_parse(NULL, 27500, &a));
}

static void test_compare(void **state)
{
	struct net_addr a, b, c;

	(void)state;
	assert_true(net_addr_parse("192.168.1.2:27001", 0, &a));
	assert_true(net_addr_parse("192.168.1.2:27001", 0, &b));
	assert_true(net_addr_parse("192.168.1.2:40000", 0, &c));
	assert_true(net_addr_equal(&a, &b));
	assert_false(net_addr_equal(&a, &c));
	assert_true(net_addr_equal_ip(&a, &c));
	assert_true(net_addr_parse("192.168.1.3:27001", 0, &c));
	assert_false(net_addr_equal(&a, &c));
	assert_false(net_addr_equal_ip(&a, &c));
}

static void test_sockaddr_roundtrip(void **state)
{
	struct net_addr a, b;
	struct sockaddr_in sa;

	(void)state;
	assert_true(net_addr_parse("1.2.3.4:5678", 0, &a));
	net_addr_to_sockaddr(&a, &sa);
	assert_int_equal(sa.sin_family, AF_INET);
	assert_int_equal(ntohs(sa.sin_port), 5678);
	assert_int_equal(ntohl(sa.sin_addr.s_addr), 0x01020304);
	net_addr_from_sockaddr(&sa, &b);
	assert_true(net_addr_equal(&a, &b));
}

static void test_resolve(void **state)
{
	struct net_addr a;
	char err[256];
	char text[NET_ADDR_STRLEN];

	(void)state;
	/* numeric addresses never reach the resolver */
	assert_true(net_addr_resolve("127.0.0.2:1234", 9, &a, err, sizeof(err)));
	assert_string_equal(net_addr_format(&a, text), "127.0.0.2:1234");
	err[0] = '\0';
	assert_false(net_addr_resolve("1.2.3.4:99999", 9, &a, err, sizeof(err)));
	assert_non_null(strstr(err, "bad address"));
	assert_false(net_addr_resolve(":5", 9, &a, err, sizeof(err)));

	/* "localhost" comes from /etc/hosts, no network involved */
	if (!net_addr_resolve("localhost:27500", 9, &a, err, sizeof(err)))
		qwd_skip("\"localhost\" does not resolve here (%s)", err);
	assert_int_equal(ntohl(a.ip) >> 24, 127);
	assert_int_equal(ntohs(a.port), 27500);
}

static const struct CMUnitTest addr_tests[] = {
	cmocka_unit_test(test_parse_and_format),
	cmocka_unit_test(test_parse_rejects),
	cmocka_unit_test(test_compare),
	cmocka_unit_test(test_sockaddr_roundtrip),
	cmocka_unit_test(test_resolve),
};

QWD_TEST_GROUP(net_addr, addr_tests, NULL, NULL)
