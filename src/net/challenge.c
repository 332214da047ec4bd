/*
 * challenge.c -- stateless connection challenges and the password compare.
 *
 * Design note
 *   QuakeWorld's handshake is "getchallenge" -> "c<number>", then "connect
 *   28 <qport> <number> ...".  The number proves the client can receive at
 *   the address it claims.  id's server kept the numbers in a small table
 *   (MAX_CHALLENGES, oldest replaced); a flood of getchallenge packets from
 *   spoofed addresses rotates every real client's entry out of it, so
 *   nobody can connect while the flood lasts.  Here the number is computed,
 *   not stored: SipHash-2-4 under a server secret of a domain tag, the
 *   client's ip (not its port: id compared the base address too) and the
 *   time bucket floor(now / CHALLENGE_BUCKET_SECONDS).  A flood then costs
 *   one hash per packet and evicts nothing.  Checking recomputes the
 *   numbers of the current and the previous bucket, so a challenge lives
 *   between one and two buckets.  Replay within that window from the same
 *   ip proves nothing new and is harmless: it is the same client.
 *
 *   The password compare runs over the guess's whole length with no early
 *   exit, so response time tells an rcon guesser nothing about how many
 *   leading characters were right.
 */
#include <qwd/net.h>

#include <math.h>
#include <string.h>

static int64_t bucket_of(double now)
{
	double b = floor(now / CHALLENGE_BUCKET_SECONDS);

	/* a broken clock gives a fixed bucket rather than undefined behaviour */
	if (!(b >= -9.0e15 && b <= 9.0e15))
		return 0;
	return (int64_t)b;
}

static int32_t challenge_for(const struct net_secret *s,
			     const struct net_addr *a, int64_t bucket)
{
	uint8_t msg[1 + 4 + 8];
	uint64_t ub = (uint64_t)bucket, h;
	int32_t v;

	msg[0] = 'c'; /* domain tag: this key may hash other things too */
	memcpy(msg + 1, &a->ip, 4);
	for (int i = 0; i < 8; i++)
		msg[5 + i] = (uint8_t)(ub >> (8 * i));
	h = net_siphash24(s->key, msg, sizeof(msg));
	v = (int32_t)(h & 0x7fffffff);
	return v ? v : 1;
}

int32_t challenge_make(const struct net_secret *s, const struct net_addr *a,
		       double now)
{
	return challenge_for(s, a, bucket_of(now));
}

bool challenge_check(const struct net_secret *s, const struct net_addr *a,
		     int32_t challenge, double now)
{
	int64_t b = bucket_of(now);
	bool ok;

	if (challenge <= 0)
		return false;
	/* both computed every time: the answer's timing says nothing */
	ok = challenge_for(s, a, b) == challenge;
	ok |= challenge_for(s, a, b - 1) == challenge;
	return ok;
}

bool net_secure_equal(const char *secret, const char *guess)
{
	size_t ls = strlen(secret), lg = strlen(guess);
	size_t diff = ls ^ lg;

	for (size_t i = 0; i < lg; i++) {
		/* past the secret's end read its first byte (the NUL when it
		   is empty): the lengths already differ, and the loop keeps
		   one shape whatever the secret is */
		size_t si = i * (size_t)(i < ls);

		diff |= (unsigned char)secret[si] ^ (unsigned char)guess[i];
	}
	return diff == 0;
}
