/*
 * test_security.c -- SipHash, challenges, the password compare, the rate
 * limiter.
 *
 * Design note: SipHash-2-4 is checked against the test vector printed in
 * the paper's appendix (key 00..0f, message 00..0e) and against the first
 * entries of the reference implementation's vector table (the same key,
 * messages 00..i-1), which cover the empty message, every tail length and
 * a whole block.  Challenges and buckets are checked at their exact time
 * boundaries; the rate limiter with exact token arithmetic.
 */
#include "../harness.h"

#include <qwd/net.h>

#include <string.h>

static void test_siphash_vectors(void **state)
{
	static const struct {
		size_t len;
		uint64_t out;
	} vec[] = {
		{0, 0x726fdb47dd0e0e31ull}, {1, 0x74f839c593dc67fdull},
		{2, 0x0d6c8009d9a94f5aull}, {3, 0x85676696d7fb7e2dull},
		{4, 0xcf2794e0277187b7ull}, {5, 0x18765564cd99a68dull},
		{8, 0x93f5f5799a932462ull},
		{15, 0xa129ca6149be45e5ull}, /* the paper's appendix */
	};
	uint8_t key[16], msg[16];

	(void)state;
	for (int i = 0; i < 16; i++)
		key[i] = msg[i] = (uint8_t)i;
	for (size_t i = 0; i < sizeof(vec) / sizeof(vec[0]); i++)
		assert_int_equal(net_siphash24(key, msg, vec[i].len), vec[i].out);
	/* a different key, a different answer */
	key[0] ^= 1;
	assert_int_not_equal(net_siphash24(key, msg, 15), 0xa129ca6149be45e5ull);
}

static void test_secret_init(void **state)
{
	struct net_secret a, b;

	(void)state;
	assert_true(net_secret_init(&a));
	assert_true(net_secret_init(&b));
	assert_memory_not_equal(a.key, b.key, sizeof(a.key));
}

static void fixed_secret(struct net_secret *s, uint8_t fill)
{
	memset(s->key, fill, sizeof(s->key));
}

static void test_challenge(void **state)
{
	struct net_secret s, other;
	struct net_addr a, a_port, b;
	int32_t c;

	(void)state;
	fixed_secret(&s, 0x5a);
	fixed_secret(&other, 0xa5);
	assert_true(net_addr_parse("192.0.2.10:27001", 0, &a));
	assert_true(net_addr_parse("192.0.2.10:40000", 0, &a_port));
	assert_true(net_addr_parse("192.0.2.11:27001", 0, &b));

	/* now = 100: bucket 3 (90 <= t < 120) */
	c = challenge_make(&s, &a, 100.0);
	assert_true(c > 0);
	assert_int_equal(challenge_make(&s, &a, 90.0), c);
	assert_int_equal(challenge_make(&s, &a, 119.999), c);
	assert_int_not_equal(challenge_make(&s, &a, 120.0), c);
	assert_int_not_equal(challenge_make(&s, &b, 100.0), c);
	assert_int_not_equal(challenge_make(&other, &a, 100.0), c);

	/* valid in its bucket and the next, not before or after */
	assert_true(challenge_check(&s, &a, c, 100.0));
	assert_true(challenge_check(&s, &a, c, 149.999));
	assert_false(challenge_check(&s, &a, c, 150.0));
	assert_false(challenge_check(&s, &a, c, 89.0));
	/* the port may change (NAT), the ip may not */
	assert_true(challenge_check(&s, &a_port, c, 100.0));
	assert_false(challenge_check(&s, &b, c, 100.0));
	assert_false(challenge_check(&other, &a, c, 100.0));
	/* near misses and nonsense */
	assert_false(challenge_check(&s, &a, c ^ 1, 100.0));
	assert_false(challenge_check(&s, &a, 0, 100.0));
	assert_false(challenge_check(&s, &a, -c, 100.0));

	/* always a positive 31-bit number, whatever the address */
	for (uint32_t i = 0; i < 5000; i++) {
		struct net_addr x = {.ip = i * 2654435761u, .port = 0};
		int32_t v = challenge_make(&s, &x, 1e6 + i);

		assert_true(v > 0);
		assert_true(challenge_check(&s, &x, v, 1e6 + i));
	}
	/* a broken clock does not crash it */
	assert_true(challenge_make(&s, &a, -1.0 / 0.0) > 0);
	assert_true(challenge_make(&s, &a, 0.0 / 0.0) > 0);
}

static void test_secure_equal(void **state)
{
	(void)state;
	assert_true(net_secure_equal("hunter2", "hunter2"));
	assert_false(net_secure_equal("hunter2", "hunter3"));
	assert_false(net_secure_equal("hunter2", "Hunter2"));
	assert_false(net_secure_equal("hunter2", "hunter"));
	assert_false(net_secure_equal("hunter2", "hunter22"));
	assert_false(net_secure_equal("hunter2", ""));
	assert_false(net_secure_equal("", "x"));
	assert_true(net_secure_equal("", ""));
	assert_false(net_secure_equal("\xff", "\x7f"));
	/* a guess that is the secret plus a NUL-free tail */
	assert_false(net_secure_equal("a", "aa"));
}

static void test_ratelimit_per_address(void **state)
{
	static struct ratelimit rl;
	struct net_secret key;
	struct net_addr a, a2, b;

	(void)state;
	fixed_secret(&key, 1);
	/* 3 at once, then 1 per second */
	ratelimit_init(&rl, &key, 1.0, 3.0, 0.0, 0.0);
	assert_true(net_addr_parse("198.51.100.1:1", 0, &a));
	assert_true(net_addr_parse("198.51.100.1:2", 0, &a2));
	assert_true(net_addr_parse("198.51.100.2:1", 0, &b));

	assert_true(ratelimit_allow(&rl, &a, 10.0));
	assert_true(ratelimit_allow(&rl, &a, 10.0));
	assert_true(ratelimit_allow(&rl, &a2, 10.0)); /* same ip */
	assert_false(ratelimit_allow(&rl, &a, 10.0));
	assert_false(ratelimit_allow(&rl, &a, 10.5));
	/* another address has its own bucket */
	assert_true(ratelimit_allow(&rl, &b, 10.5));
	/* refill: one token per second */
	assert_true(ratelimit_allow(&rl, &a, 11.0));
	assert_false(ratelimit_allow(&rl, &a, 11.0));
	/* a long rest refills to the burst, no further */
	for (int i = 0; i < 3; i++)
		assert_true(ratelimit_allow(&rl, &a, 1000.0));
	assert_false(ratelimit_allow(&rl, &a, 1000.0));
	/* a clock stepping back adds nothing */
	assert_false(ratelimit_allow(&rl, &a, 500.0));
	assert_false(ratelimit_allow(&rl, &a, 1000.5));
	assert_true(ratelimit_allow(&rl, &a, 1001.0));
	assert_int_equal(rl.allowed, 9);
	assert_int_equal(rl.denied, 6);
}

static void test_ratelimit_global(void **state)
{
	static struct ratelimit rl;
	struct net_secret key;

	(void)state;
	fixed_secret(&key, 2);
	/* generous per address, 5 at once and 2/s in total */
	ratelimit_init(&rl, &key, 100.0, 100.0, 2.0, 5.0);
	for (uint32_t i = 0; i < 5; i++) {
		struct net_addr x = {.ip = htonl(0x0a000001 + i), .port = 1};

		assert_true(ratelimit_allow(&rl, &x, 1.0));
	}
	for (uint32_t i = 5; i < 50; i++) {
		struct net_addr x = {.ip = htonl(0x0a000001 + i), .port = 1};

		assert_false(ratelimit_allow(&rl, &x, 1.0));
	}
	/* half a second later, one more token in the global bucket */
	{
		struct net_addr x = {.ip = htonl(0x0a000001), .port = 1};

		assert_true(ratelimit_allow(&rl, &x, 1.5));
		assert_false(ratelimit_allow(&rl, &x, 1.5));
	}
}

static void test_ratelimit_eviction(void **state)
{
	static struct ratelimit rl;
	struct net_secret key;
	struct net_addr first = {.ip = htonl(0xc0000201), .port = 1};
	struct net_addr busy = {.ip = htonl(0xc0000202), .port = 1};
	struct net_addr last = {.port = 1};
	const uint32_t n = 20 * RATELIMIT_SETS * RATELIMIT_WAYS;
	uint32_t busy_allowed = 0;

	(void)state;
	fixed_secret(&key, 3);
	/* one request each, refill so slow it never matters */
	ratelimit_init(&rl, &key, 1e-9, 1.0, 0.0, 0.0);
	assert_true(ratelimit_allow(&rl, &first, 0.0));
	assert_false(ratelimit_allow(&rl, &first, 0.0));
	assert_true(ratelimit_allow(&rl, &busy, 0.0));
	/* far more addresses than entries, each seen later than the first;
	   `busy` keeps asking, so it is never the stalest of its set */
	for (uint32_t i = 0; i < n; i++) {
		double t = 1.0 + i * 1e-3;

		last.ip = htonl(0x0b000000 + i);
		assert_true(ratelimit_allow(&rl, &last, t));
		if (i % 4 == 0 && ratelimit_allow(&rl, &busy, t))
			busy_allowed++;
	}
	assert_true(rl.evictions >= n + 2 - RATELIMIT_SETS * RATELIMIT_WAYS);
	/* the recently seen are remembered (and stay limited) ... */
	assert_int_equal(busy_allowed, 0);
	assert_false(ratelimit_allow(&rl, &last, 1.0 + n * 1e-3));
	/* ... the stalest was evicted, so it starts over with a full bucket */
	assert_true(ratelimit_allow(&rl, &first, 1.0 + n * 1e-3));
}

static const struct CMUnitTest security_tests[] = {
	cmocka_unit_test(test_siphash_vectors),
	cmocka_unit_test(test_secret_init),
	cmocka_unit_test(test_challenge),
	cmocka_unit_test(test_secure_equal),
	cmocka_unit_test(test_ratelimit_per_address),
	cmocka_unit_test(test_ratelimit_global),
	cmocka_unit_test(test_ratelimit_eviction),
};

QWD_TEST_GROUP(net_security, security_tests, NULL, NULL)
