/*
 * test_budgets.c -- the rate limiter as the connectionless budgets use it:
 * a global bucket counted in bytes, the correction once an answer's size
 * is known, a cost of 0 for proven sources, and eviction that does not
 * let a flood of one-off sources reset a limited address.
 *
 * Design note
 *   The clock is the test's: every call gives `now`, so the figures are
 *   exact and nothing depends on how fast the machine is.
 */
#include "../harness.h"

#include <qwd/net.h>

#include <arpa/inet.h>
#include <string.h>

static void key_of(struct net_secret *s)
{
	memset(s->key, 7, sizeof(s->key));
}

static void test_global_bucket_in_bytes(void **state)
{
	static struct ratelimit rl;
	struct net_secret key;
	struct net_addr a = {.port = 1};
	int answered = 0;

	(void)state;
	key_of(&key);
	/* 2 per address; 10000 bytes/s, 3000 of burst; answers of 1000 */
	ratelimit_init(&rl, &key, 2.0, 2.0, 10000.0, 3000.0);
	for (uint32_t i = 0; i < 100; i++) {
		a.ip = htonl(0x0a000000 + i);
		answered += ratelimit_allow_cost(&rl, &a, 5.0, 1000.0);
	}
	assert_int_equal(answered, 3);
	/* a second later the bucket is full again, no fuller: three more */
	for (uint32_t i = 100; i < 200; i++) {
		a.ip = htonl(0x0a000000 + i);
		answered += ratelimit_allow_cost(&rl, &a, 6.0, 1000.0);
	}
	assert_int_equal(answered, 6);
	/* 0.15 s later: 1500 bytes, one answer */
	for (uint32_t i = 200; i < 300; i++) {
		a.ip = htonl(0x0a000000 + i);
		answered += ratelimit_allow_cost(&rl, &a, 6.15, 1000.0);
	}
	assert_int_equal(answered, 7);

	/* an answer larger than estimated is charged afterwards: the bucket
	 * goes below zero and stays shut until it has refilled */
	ratelimit_init(&rl, &key, 2.0, 2.0, 10000.0, 3000.0);
	a.ip = htonl(0x0b000001);
	assert_true(ratelimit_allow_cost(&rl, &a, 1.0, 1000.0));
	ratelimit_charge(&rl, 6000.0);	/* it was 7000 bytes */
	a.ip = htonl(0x0b000002);
	assert_false(ratelimit_allow_cost(&rl, &a, 1.0, 1.0));
	assert_false(ratelimit_allow_cost(&rl, &a, 1.3, 1.0));
	assert_true(ratelimit_allow_cost(&rl, &a, 1.5, 1.0));
}

static void test_cost_zero_skips_global(void **state)
{
	static struct ratelimit rl;
	struct net_secret key;
	struct net_addr a = {.ip = htonl(0x0a000001), .port = 1};
	struct net_addr b = {.ip = htonl(0x0a000002), .port = 1};

	(void)state;
	key_of(&key);
	ratelimit_init(&rl, &key, 1.0, 2.0, 1.0, 1.0);
	assert_true(ratelimit_allow(&rl, &a, 1.0));
	assert_false(ratelimit_allow(&rl, &b, 1.0));	/* global spent */
	assert_true(ratelimit_allow_cost(&rl, &b, 1.0, 0.0));
	assert_true(ratelimit_allow_cost(&rl, &b, 1.0, 0.0));
	/* ... but never past the address's own bucket */
	assert_false(ratelimit_allow_cost(&rl, &b, 1.0, 0.0));
}

static void test_limited_address_survives_churn(void **state)
{
	static struct ratelimit rl;
	struct net_secret key;
	struct net_addr victim = {.ip = htonl(0x7f030303), .port = 1};
	struct net_addr spoofed = {.port = 1};
	int answered = 0;

	(void)state;
	key_of(&key);
	/* the status budget's per-address part: 2 a second, 3 at once */
	ratelimit_init(&rl, &key, 2.0, 3.0, 0.0, 1.0);
	/* one second of flood: 64 one-off sources to every entry of the
	 * table, the victim's address among them, all at few distinct
	 * `now`s (a frame reads many packets at one time) */
	for (uint32_t i = 0; i < 64 * RATELIMIT_SETS * RATELIMIT_WAYS; i++) {
		double now = 10.0 + (double)(i / 1024) * (1.0 / 128);

		spoofed.ip = htonl(0x7f100000 + i);
		ratelimit_allow(&rl, &spoofed, now);
		if (i % 16 == 0)
			answered += ratelimit_allow(&rl, &victim, now);
	}
	/* its burst and one second of refill, no fresh buckets */
	assert_true(answered >= 3);
	assert_true(answered <= 5);
	assert_true(rl.evictions > 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_global_bucket_in_bytes),
	cmocka_unit_test(test_cost_zero_skips_global),
	cmocka_unit_test(test_limited_address_survives_churn),
};

QWD_TEST_GROUP(budgets, tests, NULL, NULL)
