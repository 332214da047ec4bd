/*
 * ratelimit.c -- per-address token buckets in a fixed table.
 *
 * Design note
 *   Each source ip has a bucket of up to `burst` tokens refilled at `rate`
 *   per second; a request takes one or is refused.  An optional global
 *   bucket caps the sum, because spoofed sources each get a fresh bucket:
 *   the per-address limit stops one host hammering rcon or status, the
 *   global one stops the server becoming a reflector for a flood.
 *
 *   The table is RATELIMIT_SETS sets of RATELIMIT_WAYS entries (memory and
 *   time fixed at start-up: a lookup scans 8 entries).  The set is chosen
 *   by SipHash of the ip under a secret key, so an attacker cannot aim a
 *   stream of addresses at the set of a victim.  A new address takes a free
 *   entry of its set or the one seen least recently.  Eviction forgets
 *   that an address was limited; an attacker able to churn a set with many
 *   sources gains nothing the global bucket does not already bound.
 *   A clock that steps back never adds tokens.
 */
#include <qwd/net.h>

#include <string.h>

_Static_assert((RATELIMIT_SETS & (RATELIMIT_SETS - 1)) == 0,
	       "RATELIMIT_SETS must be a power of two");

static double refill(double tokens, double last, double now, double rate,
		     double burst)
{
	double dt = now - last;

	if (!(dt > 0.0)) /* also catches NaN */
		return tokens;
	tokens += dt * rate;
	return tokens > burst ? burst : tokens;
}

void ratelimit_init(struct ratelimit *rl, const struct net_secret *key,
		    double rate, double burst, double global_rate,
		    double global_burst)
{
	memset(rl, 0, sizeof(*rl));
	rl->key = *key;
	rl->rate = rate > 0.0 ? rate : 0.0;
	rl->burst = burst >= 1.0 ? burst : 1.0;
	rl->global_rate = global_rate;
	rl->global_burst = global_burst >= 1.0 ? global_burst : 1.0;
	rl->global_tokens = rl->global_burst;
}

/* the entry of a's ip, found or made (evicting the stalest of its set) */
static struct ratelimit_entry *find_entry(struct ratelimit *rl,
					  const struct net_addr *a, double now)
{
	uint64_t h = net_siphash24(rl->key.key, &a->ip, sizeof(a->ip));
	struct ratelimit_entry *set = rl->set[h & (RATELIMIT_SETS - 1)];
	struct ratelimit_entry *victim = NULL;

	for (int i = 0; i < RATELIMIT_WAYS; i++) {
		struct ratelimit_entry *e = &set[i];

		if (e->used && e->ip == a->ip)
			return e;
		if (!e->used) {
			if (!victim || victim->used)
				victim = e;
		} else if (!victim || (victim->used && e->last < victim->last)) {
			victim = e;
		}
	}
	if (victim->used)
		rl->evictions++;
	victim->used = true;
	victim->ip = a->ip;
	victim->tokens = rl->burst;
	victim->last = now;
	return victim;
}

bool ratelimit_allow(struct ratelimit *rl, const struct net_addr *a,
		     double now)
{
	struct ratelimit_entry *e = find_entry(rl, a, now);

	e->tokens = refill(e->tokens, e->last, now, rl->rate, rl->burst);
	if (now > e->last)
		e->last = now;
	if (e->tokens < 1.0) {
		rl->denied++;
		return false;
	}
	if (rl->global_rate > 0.0) {
		rl->global_tokens = refill(rl->global_tokens, rl->global_last,
					   now, rl->global_rate,
					   rl->global_burst);
		if (now > rl->global_last)
			rl->global_last = now;
		if (rl->global_tokens < 1.0) {
			rl->denied++;
			return false; /* the address keeps its token */
		}
		rl->global_tokens -= 1.0;
	}
	e->tokens -= 1.0;
	rl->allowed++;
	return true;
}

double ratelimit_refill(double tokens, double last, double now, double rate,
			double burst)
{
	return refill(tokens, last, now, rate, burst);
}
