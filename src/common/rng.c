/*
 * rng.c -- the project's seeded pseudo-random numbers (splitmix64).
 *
 * Design note: the tools (qwbots, the benchmarks, udpecho) need
 * reproducible streams from a seed, not cryptographic ones.  splitmix64
 * (Steele, Lea, Flood 2014) is one add and three xor-multiply steps, and
 * a state of one word that the caller owns (no global state).  The game
 * keeps its own generator (QuakeC's random()), which this does not touch.
 */
#include "qwd/common.h"

uint64_t qwd_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

double qwd_rng_unit(uint64_t *state)
{
	/* the top 53 bits: every double in [0, 1) at that spacing */
	return (double)(qwd_rng_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

uint32_t qwd_rng_below(uint64_t *state, uint32_t n)
{
	/* multiply-shift (Lemire); the bias is below 2^-32 */
	return (uint32_t)(((qwd_rng_next(state) >> 32) * (uint64_t)n) >> 32);
}
