/*
 * test_ipfilter.c -- the address filters behind addip: MVDSV's wildcard
 * rules, ban and safe, expiry, removal, a full list.
 *
 * Design note: every match is checked against a plain reference (each
 * filter compared with the address octet by octet, the way MVDSV's
 * linear scan does), over lists built to use many wildcard patterns at
 * once, so the hashed lookup is held to the obvious definition rather
 * than to figures written here.
 */
#include "../harness.h"

#include <qwd/net.h>

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

static uint32_t ip(const char *s)
{
	struct net_addr a;

	assert_true(net_addr_parse(s, 0, &a));
	return a.ip;
}

static uint32_t filter(const char *s)
{
	uint32_t v;

	assert_true(ipfilter_parse(s, &v));
	return v;
}

/* the definition: every non-zero octet of the filter equals the address's */
static unsigned reference_match(const struct ipfilter *f, uint32_t addr)
{
	const uint8_t *a = (const uint8_t *)&addr;
	unsigned hits = 0;

	for (int i = 0; i < f->count; i++) {
		const uint8_t *v = (const uint8_t *)&f->entry[i].value;
		bool match = true;

		for (int k = 0; k < 4; k++)
			if (v[k] && v[k] != a[k])
				match = false;
		if (match)
			hits |= f->entry[i].type == IPFILTER_SAFE ? IPFILTER_HIT_SAFE
								  : IPFILTER_HIT_BAN;
	}
	return hits;
}

static void test_parse_forms(void **state)
{
	char out[16];
	uint32_t v;

	(void)state;
	/* a missing trailing octet, a 0 and a '*' are the same wildcard */
	assert_int_equal(filter("192.168.1"), filter("192.168.1.0"));
	assert_int_equal(filter("192.168.1.*"), filter("192.168.1.0"));
	assert_int_equal(filter("192.168.1"), ip("192.168.1.0"));
	assert_string_equal(ipfilter_format(filter("10.*.*.5"), out), "10.0.0.5");
	assert_string_equal(ipfilter_format(filter("127.0.0.2"), out), "127.0.0.2");
	assert_string_equal(ipfilter_format(filter("7"), out), "7.0.0.0");

	static const char *bad[] = {
		"", ".", "1.", "1..2", "1.2.3.4.5", "256.1.1.1", "1.2.3.4x",
		"a.b.c.d", "-1.2.3.4", "1.2.3.4 ", "0", "0.0.0.0", "*.*", "12345",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 0x5a5a5a5a;
		if (ipfilter_parse(bad[i], &v))
			fail_msg("\"%s\" parsed", bad[i]);
		assert_int_equal(v, 0x5a5a5a5a);
	}
}

static void test_wildcards_match_as_mvdsv(void **state)
{
	static struct ipfilter f;

	(void)state;
	ipfilter_init(&f);
	assert_int_equal(ipfilter_match(&f, ip("127.0.0.2")), 0);

	assert_true(ipfilter_add(&f, filter("127.0.0.2"), IPFILTER_BAN, 0));
	/* 0 octets are wildcards: 127.0.0.2 bans 127.*.*.2 */
	assert_int_equal(ipfilter_match(&f, ip("127.0.0.2")), IPFILTER_HIT_BAN);
	assert_int_equal(ipfilter_match(&f, ip("127.9.8.2")), IPFILTER_HIT_BAN);
	assert_int_equal(ipfilter_match(&f, ip("127.0.0.3")), 0);
	assert_int_equal(ipfilter_match(&f, ip("128.0.0.2")), 0);

	assert_true(ipfilter_add(&f, filter("192.168"), IPFILTER_BAN, 0));
	assert_int_equal(ipfilter_match(&f, ip("192.168.44.3")), IPFILTER_HIT_BAN);
	assert_int_equal(ipfilter_match(&f, ip("192.169.44.3")), 0);

	/* a safe mark inside a banned range: both reported */
	assert_true(ipfilter_add(&f, filter("192.168.44.3"), IPFILTER_SAFE, 0));
	assert_int_equal(ipfilter_match(&f, ip("192.168.44.3")),
			 IPFILTER_HIT_BAN | IPFILTER_HIT_SAFE);
	assert_int_equal(ipfilter_match(&f, ip("192.168.44.4")), IPFILTER_HIT_BAN);

	/* adding the same value again replaces it, never duplicates */
	assert_true(ipfilter_add(&f, filter("192.168.0.0"), IPFILTER_SAFE, 99));
	assert_int_equal(f.count, 3);
	assert_int_equal(f.entry[ipfilter_find(&f, filter("192.168"))].type,
			 IPFILTER_SAFE);
	assert_int_equal(ipfilter_match(&f, ip("192.168.44.4")), IPFILTER_HIT_SAFE);
}

static void test_remove_and_expire(void **state)
{
	static struct ipfilter f;

	(void)state;
	ipfilter_init(&f);
	assert_true(ipfilter_add(&f, filter("10.1.1.1"), IPFILTER_BAN, 0));
	assert_true(ipfilter_add(&f, filter("10.2"), IPFILTER_BAN, 1000));
	assert_true(ipfilter_add(&f, filter("10.3.3.3"), IPFILTER_BAN, 2000));

	/* removal names the filter as it was added, not an address inside */
	assert_false(ipfilter_remove(&f, filter("10.2.2.2")));
	assert_true(ipfilter_remove(&f, filter("10.1.1.1")));
	assert_false(ipfilter_remove(&f, filter("10.1.1.1")));
	assert_int_equal(ipfilter_match(&f, ip("10.1.1.1")), 0);
	/* the order of the rest is kept */
	assert_int_equal(f.entry[0].value, filter("10.2"));
	assert_int_equal(f.entry[1].value, filter("10.3.3.3"));

	assert_int_equal(ipfilter_expire(&f, 999), 0);
	assert_int_equal(ipfilter_match(&f, ip("10.2.7.7")), IPFILTER_HIT_BAN);
	assert_int_equal(ipfilter_expire(&f, 1000), 1);
	assert_int_equal(ipfilter_match(&f, ip("10.2.7.7")), 0);
	assert_int_equal(ipfilter_match(&f, ip("10.3.3.3")), IPFILTER_HIT_BAN);
	assert_int_equal(ipfilter_expire(&f, 5000), 1);
	assert_int_equal(f.count, 0);
	assert_int_equal(ipfilter_match(&f, ip("10.3.3.3")), 0);
}

/* A full list of every wildcard pattern, checked against the reference
 * for random addresses drawn near the filters (so that many match),
 * then again after removing every third filter and expiring a batch. */
static void test_full_list_matches_reference(void **state)
{
	static struct ipfilter f;
	uint64_t rng = 15;
	int added = 0;

	(void)state;
	ipfilter_init(&f);
	while (added < IPFILTER_MAX) {
		uint32_t v = 0;
		uint8_t *o = (uint8_t *)&v;

		for (int k = 0; k < 4; k++)	/* small octets: overlaps */
			o[k] = qwd_rng_below(&rng, 4) == 0 ? 0
				: (uint8_t)(1 + qwd_rng_below(&rng, k < 2 ? 3 : 40));
		if (v == 0 || ipfilter_find(&f, v) >= 0)
			continue;
		assert_true(ipfilter_add(&f, v,
					 qwd_rng_below(&rng, 8) ? IPFILTER_BAN : IPFILTER_SAFE,
					 (int64_t)qwd_rng_below(&rng, 3) * 100));
		added++;
	}
	assert_int_equal(f.count, IPFILTER_MAX);
	/* full: a new value is refused, an existing one still replaced */
	assert_false(ipfilter_add(&f, ip("200.200.200.200"), IPFILTER_BAN, 0));
	assert_true(ipfilter_add(&f, f.entry[7].value, IPFILTER_BAN, 0));

	for (int round = 0; round < 3; round++) {
		int matched = 0;

		for (int n = 0; n < 20000; n++) {
			uint32_t a;
			uint8_t *o = (uint8_t *)&a;
			unsigned want;

			for (int k = 0; k < 4; k++)
				o[k] = (uint8_t)qwd_rng_below(&rng, k < 2 ? 5 : 45);
			want = reference_match(&f, a);
			matched += want != 0;
			if (ipfilter_match(&f, a) != want) {
				char text[16];

				fail_msg("%s: %u, the reference says %u",
					 ipfilter_format(a, text), ipfilter_match(&f, a), want);
			}
		}
		assert_true(matched > 1000);	/* the draw does hit filters */
		if (round == 0)
			for (int i = f.count - 1; i >= 0; i -= 3)
				assert_true(ipfilter_remove(&f, f.entry[i].value));
		if (round == 1)
			assert_true(ipfilter_expire(&f, 150) > 0);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_parse_forms),
	cmocka_unit_test(test_wildcards_match_as_mvdsv),
	cmocka_unit_test(test_remove_and_expire),
	cmocka_unit_test(test_full_list_matches_reference),
};

QWD_TEST_GROUP(ipfilter, tests, NULL, NULL)
