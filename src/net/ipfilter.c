/*
 * ipfilter.c -- a list of IPv4 address filters (bans), checked per packet.
 *
 * Design note
 *   A filter is one 32-bit value whose zero octets are wildcards (MVDSV's
 *   addip: "192.168.1" bans the /24), so the octets a filter compares are
 *   a function of its value: its "pattern", four bits, one per non-zero
 *   octet.  An address matches a filter of pattern p exactly when the
 *   address masked by p's octets equals the filter's value.  Matching an
 *   address is therefore one hash lookup of (address & mask(p)) for each
 *   pattern some filter has; pattern_count says which, so a list of
 *   single-host bans costs one probe per packet however long it is.  A
 *   masked address whose kept octet happens to be 0 looks up a value of a
 *   smaller pattern, and any filter found there matches the address too
 *   (its octets are a subset), so no lookup can report a false match.
 *
 *   The entries stay in the order they were added (listip shows them so,
 *   as MVDSV does); the hash holds their indexes, open addressing with
 *   linear probing at a load of at most one half.  Removal shifts the
 *   array and rebuilds the hash: removals are operator commands and
 *   expiries, never per packet.  Values come from the operator, not the
 *   network, so the hash needs no key; the address looked up does come
 *   from the network, but the probe lengths depend only on the operator's
 *   filters.
 */
#include <qwd/net.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert((IPFILTER_HASH & (IPFILTER_HASH - 1)) == 0 &&
	       IPFILTER_HASH >= 2 * IPFILTER_MAX && IPFILTER_MAX < 32768,
	       "the hash must be a power of two with room to spare");

/* the octets of v that are not wildcards, as bits 0..3 (octet order in
 * memory, which is the dotted order) */
static unsigned pattern_of(uint32_t v)
{
	const uint8_t *o = (const uint8_t *)&v;
	unsigned p = 0;

	for (int i = 0; i < 4; i++)
		if (o[i])
			p |= 1u << i;
	return p;
}

static uint32_t mask_of(unsigned pattern)
{
	uint32_t m = 0;
	uint8_t *o = (uint8_t *)&m;

	for (int i = 0; i < 4; i++)
		if (pattern & (1u << i))
			o[i] = 0xff;
	return m;
}

static uint32_t hash_of(uint32_t v)
{
	return (v * 0x9E3779B1u) >> 19 & (IPFILTER_HASH - 1);
}

static void hash_insert(struct ipfilter *f, int index)
{
	uint32_t h = hash_of(f->entry[index].value);

	while (f->slot[h] >= 0)
		h = (h + 1) & (IPFILTER_HASH - 1);
	f->slot[h] = (int16_t)index;
}

static void rehash(struct ipfilter *f)
{
	for (int i = 0; i < IPFILTER_HASH; i++)
		f->slot[i] = -1;
	for (int i = 0; i < f->count; i++)
		hash_insert(f, i);
}

void ipfilter_init(struct ipfilter *f)
{
	f->count = 0;
	memset(f->pattern_count, 0, sizeof(f->pattern_count));
	rehash(f);
}

bool ipfilter_parse(const char *s, uint32_t *value)
{
	uint32_t v = 0;
	uint8_t *o = (uint8_t *)&v;
	int n = 0;

	for (;;) {
		if (n == 4)
			return false;
		if (*s == '*') {
			s++;
		} else {
			unsigned octet = 0;
			int digits = 0;

			while (*s >= '0' && *s <= '9' && digits < 4) {
				octet = octet * 10 + (unsigned)(*s++ - '0');
				digits++;
			}
			if (digits == 0 || octet > 255)
				return false;
			o[n] = (uint8_t)octet;
		}
		n++;
		if (*s == '\0')
			break;
		if (*s++ != '.')
			return false;
	}
	if (v == 0)
		return false;	/* every address: a typo, not a ban */
	*value = v;
	return true;
}

char *ipfilter_format(uint32_t value, char out[16])
{
	const uint8_t *o = (const uint8_t *)&value;

	snprintf(out, 16, "%u.%u.%u.%u", o[0], o[1], o[2], o[3]);
	return out;
}

int ipfilter_find(const struct ipfilter *f, uint32_t value)
{
	uint32_t h = hash_of(value);

	for (;;) {
		int i = f->slot[h];

		if (i < 0)
			return -1;
		if (f->entry[i].value == value)
			return i;
		h = (h + 1) & (IPFILTER_HASH - 1);
	}
}

bool ipfilter_add(struct ipfilter *f, uint32_t value, enum ipfilter_type type,
		  int64_t expires)
{
	int i = ipfilter_find(f, value);

	if (value == 0)
		return false;
	if (i < 0) {
		if (f->count == IPFILTER_MAX)
			return false;
		i = f->count++;
		f->entry[i].value = value;
		f->pattern_count[pattern_of(value)]++;
		hash_insert(f, i);
	}
	f->entry[i].type = (uint8_t)type;
	f->entry[i].expires = expires;
	return true;
}

static void remove_at(struct ipfilter *f, int i)
{
	f->pattern_count[pattern_of(f->entry[i].value)]--;
	memmove(&f->entry[i], &f->entry[i + 1],
		(size_t)(f->count - i - 1) * sizeof(f->entry[0]));
	f->count--;
}

bool ipfilter_remove(struct ipfilter *f, uint32_t value)
{
	int i = ipfilter_find(f, value);

	if (i < 0)
		return false;
	remove_at(f, i);
	rehash(f);
	return true;
}

int ipfilter_expire(struct ipfilter *f, int64_t now)
{
	int removed = 0;

	for (int i = 0; i < f->count;) {
		if (f->entry[i].expires > 0 && f->entry[i].expires <= now) {
			remove_at(f, i);
			removed++;
		} else {
			i++;
		}
	}
	if (removed)
		rehash(f);
	return removed;
}

unsigned ipfilter_match(const struct ipfilter *f, uint32_t ip)
{
	unsigned hits = 0;

	if (f->count == 0)
		return 0;
	for (unsigned p = 1; p < 16; p++) {
		int i;

		if (!f->pattern_count[p])
			continue;
		i = ipfilter_find(f, ip & mask_of(p));
		if (i >= 0)
			hits |= f->entry[i].type == IPFILTER_SAFE ? IPFILTER_HIT_SAFE
								  : IPFILTER_HIT_BAN;
	}
	return hits;
}
