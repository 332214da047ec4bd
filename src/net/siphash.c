/*
 * siphash.c -- SipHash-2-4 and the random secrets it is keyed with.
 *
 * Design note
 *   SipHash (Jean-Philippe Aumasson and Daniel J. Bernstein, "SipHash: a
 *   fast short-input PRF", 2012) is a keyed hash built for exactly our
 *   inputs: a few bytes (an address, a time bucket) that an attacker
 *   chooses, under a 128-bit key the attacker does not know.  Without the
 *   key its output cannot be predicted, which is what stateless challenges
 *   and hash tables facing hostile input need.  Written from the paper's
 *   definition:
 *   - the key is two little-endian words k0, k1; the state v0..v3 starts as
 *     k0, k1, k0, k1 XORed with the ASCII of "somepseudorandomlygenerated
 *     bytes";
 *   - each 8-byte little-endian message word m is absorbed as
 *     v3 ^= m, two SipRounds, v0 ^= m;
 *   - the last word holds the 0-7 leftover bytes and, in its top byte, the
 *     message length mod 256;
 *   - finalisation: v2 ^= 0xff, four SipRounds, the result v0^v1^v2^v3.
 *   The paper's appendix test vector is in tests/net/test_security.c.
 */
#include <qwd/net.h>

#include <errno.h>
#include <sys/random.h>

static uint64_t rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

static uint64_t load_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

struct sip_state {
	uint64_t v0, v1, v2, v3;
};

static void sip_round(struct sip_state *s)
{
	s->v0 += s->v1;
	s->v1 = rotl(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = rotl(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = rotl(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = rotl(s->v2, 32);
}

static void sip_absorb(struct sip_state *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);
	sip_round(s);
	s->v0 ^= m;
}

uint64_t net_siphash24(const uint8_t key[16], const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t k0 = load_le64(key), k1 = load_le64(key + 8);
	struct sip_state s = {
		.v0 = k0 ^ 0x736f6d6570736575ull,
		.v1 = k1 ^ 0x646f72616e646f6dull,
		.v2 = k0 ^ 0x6c7967656e657261ull,
		.v3 = k1 ^ 0x7465646279746573ull,
	};
	size_t whole = len - len % 8;
	uint64_t last = (uint64_t)(len & 0xff) << 56;

	for (size_t i = 0; i < whole; i += 8)
		sip_absorb(&s, load_le64(p + i));
	for (size_t i = whole; i < len; i++)
		last |= (uint64_t)p[i] << (8 * (i - whole));
	sip_absorb(&s, last);

	s.v2 ^= 0xff;
	for (int i = 0; i < 4; i++)
		sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

bool net_secret_init(struct net_secret *s)
{
	size_t got = 0;

	while (got < sizeof(s->key)) {
		ssize_t n = getrandom(s->key + got, sizeof(s->key) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		got += (size_t)n;
	}
	return true;
}
