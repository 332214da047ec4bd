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
 *   entry of its set, else the one whose loss forgets least (find_entry):
 *   the fullest bucket, then the least recently used.  Eviction can only
 *   forget an address that was limited when all of its set is limited
 *   too, so churning a set with spoofed one-off sources does not reset a
 *   victim's bucket; what is left is bounded by the global bucket.
 *   A clock that steps back never adds tokens.
 *
 *   The global bucket may count in another unit than requests: a caller
 *   whose replies differ in size (status) gives each request's cost in
 *   bytes, so the bucket bounds what the server sends, not how often.  A
 *   cost of 0 skips the global bucket (a request proven not spoofed).
 *   When the true cost is known only after answering, ratelimit_charge
 *   corrects the estimate; the bucket may go below zero and then stays
 *   shut until it has refilled.
 */
#include <qwd/net.h>

#include <math.h>
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

/* The entry of a's ip, found or made.  The entry given up for a new
 * address is the one whose loss forgets least: the most whole tokens once
 * refilled (a full bucket forgets nothing), then the least recently used
 * (by a counter, so addresses seen in one frame, at one `now`, still have
 * an order).  A flood of spoofed one-off sources, each a token short of
 * full, then churns among itself and does not push out the entry of an
 * address that is being held to its rate (a victim of reflection). */
static struct ratelimit_entry *find_entry(struct ratelimit *rl,
					  const struct net_addr *a, double now)
{
	uint64_t h = net_siphash24(rl->key.key, &a->ip, sizeof(a->ip));
	struct ratelimit_entry *set = rl->set[h & (RATELIMIT_SETS - 1)];
	struct ratelimit_entry *victim = NULL;
	double victim_tokens = 0.0;

	rl->tick++;
	for (int i = 0; i < RATELIMIT_WAYS; i++) {
		struct ratelimit_entry *e = &set[i];
		double t;

		if (e->used && e->ip == a->ip) {
			e->stamp = rl->tick;
			return e;
		}
		if (!e->used) {
			if (!victim || victim->used)
				victim = e;
			continue;
		}
		if (victim && !victim->used)
			continue;
		/* whole requests: a fraction of a token answers nothing */
		t = floor(refill(e->tokens, e->last, now, rl->rate, rl->burst));
		if (!victim || t > victim_tokens ||
		    (t == victim_tokens && e->stamp < victim->stamp)) {
			victim = e;
			victim_tokens = t;
		}
	}
	if (victim->used)
		rl->evictions++;
	victim->used = true;
	victim->ip = a->ip;
	victim->tokens = rl->burst;
	victim->last = now;
	victim->stamp = rl->tick;
	return victim;
}

bool ratelimit_allow(struct ratelimit *rl, const struct net_addr *a,
		     double now)
{
	return ratelimit_allow_cost(rl, a, now, 1.0);
}

void ratelimit_charge(struct ratelimit *rl, double global_cost)
{
	if (rl->global_rate > 0.0)
		rl->global_tokens -= global_cost;
}

bool ratelimit_allow_cost(struct ratelimit *rl, const struct net_addr *a,
			  double now, double global_cost)
{
	struct ratelimit_entry *e = find_entry(rl, a, now);

	e->tokens = refill(e->tokens, e->last, now, rl->rate, rl->burst);
	if (now > e->last)
		e->last = now;
	if (e->tokens < 1.0) {
		rl->denied++;
		return false;
	}
	if (rl->global_rate > 0.0 && global_cost > 0.0) {
		rl->global_tokens = refill(rl->global_tokens, rl->global_last,
					   now, rl->global_rate,
					   rl->global_burst);
		if (now > rl->global_last)
			rl->global_last = now;
		if (rl->global_tokens < global_cost) {
			rl->denied++;
			return false; /* the address keeps its token */
		}
		rl->global_tokens -= global_cost;
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
