/*
 * md4.c -- MD4 (RFC 1320) and QuakeWorld's block checksum built on it.
 *
 * Design note
 *   QuakeWorld identifies a map by an MD4-based checksum: the server sends
 *   nothing but the client sends `prespawn <sc> 0 <checksum2>`, and both
 *   sides compute it the same way.  The "block checksum" of a byte range is
 *   its 16-byte MD4 digest read as four little-endian 32-bit words, XORed
 *   (id's Com_BlockChecksum on a little-endian machine).  We read the words
 *   explicitly little-endian, so the result does not depend on the host.
 *
 *   MD4 itself, per RFC 1320: the message is padded with 0x80, zeros to 56
 *   mod 64 bytes, and the 64-bit little-endian bit length; each 64-byte
 *   block is sixteen little-endian words run through three rounds of
 *   sixteen steps on the state (A, B, C, D).  Step i of a round updates one
 *   state word, the four words taking turns A, D, C, B; the message word
 *   order and the rotation amounts of each round are the tables below.
 *
 *   Invariant of struct md4_ctx: block[] holds length % 64 pending bytes;
 *   every full block has been folded into state[].  MD4 is broken as a
 *   cryptographic hash; here it only has to agree with the clients.
 */
#include <qwd/common.h>

#include <string.h>

/* message word taken at each step of rounds 2 and 3 (round 1 is 0..15) */
static const uint8_t md4_order2[16] = {0, 4, 8,  12, 1, 5, 9,  13,
				       2, 6, 10, 14, 3, 7, 11, 15};
static const uint8_t md4_order3[16] = {0, 8, 4, 12, 2, 10, 6, 14,
				       1, 9, 5, 13, 3, 11, 7, 15};
/* rotation of the four steps of a group, per round */
static const uint8_t md4_shift[3][4] = {
	{3, 7, 11, 19},
	{3, 5, 9, 13},
	{3, 9, 11, 15},
};

static uint32_t rotl32(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

static uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void store_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* the auxiliary function of each round, with its additive constant */
static uint32_t md4_round_fn(int round, uint32_t x, uint32_t y, uint32_t z)
{
	switch (round) {
	case 0: /* x selects y or z */
		return (x & y) | (~x & z);
	case 1: /* majority, plus sqrt(2) * 2^30 */
		return ((x & y) | (x & z) | (y & z)) + 0x5a827999u;
	default: /* parity, plus sqrt(3) * 2^30 */
		return (x ^ y ^ z) + 0x6ed9eba1u;
	}
}

static void md4_block(uint32_t state[4], const uint8_t block[64])
{
	uint32_t x[16];
	uint32_t s[4];

	for (int i = 0; i < 16; i++)
		x[i] = load_le32(block + 4 * i);
	memcpy(s, state, sizeof(s));

	for (int round = 0; round < 3; round++) {
		for (int step = 0; step < 16; step++) {
			/* the word updated goes A, D, C, B; the other three
			 * follow it cyclically as b, c, d */
			int a = (4 - step % 4) % 4;
			uint32_t *w = &s[a];
			uint32_t b = s[(a + 1) % 4], c = s[(a + 2) % 4],
				 d = s[(a + 3) % 4];
			int k = round == 0   ? step
				: round == 1 ? md4_order2[step]
					     : md4_order3[step];

			*w = rotl32(*w + md4_round_fn(round, b, c, d) + x[k],
				    md4_shift[round][step % 4]);
		}
	}

	for (int i = 0; i < 4; i++)
		state[i] += s[i];
}

void md4_init(struct md4_ctx *ctx)
{
	ctx->state[0] = 0x67452301u;
	ctx->state[1] = 0xefcdab89u;
	ctx->state[2] = 0x98badcfeu;
	ctx->state[3] = 0x10325476u;
	ctx->length = 0;
}

void md4_update(struct md4_ctx *ctx, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t have = (size_t)(ctx->length % 64);

	if (len == 0) /* data may then be NULL, which memcpy must not see */
		return;
	ctx->length += len;
	if (have) {
		size_t take = 64 - have < len ? 64 - have : len;

		memcpy(ctx->block + have, p, take);
		p += take;
		len -= take;
		if (have + take < 64)
			return;
		md4_block(ctx->state, ctx->block);
	}
	for (; len >= 64; p += 64, len -= 64)
		md4_block(ctx->state, p);
	if (len)
		memcpy(ctx->block, p, len);
}

void md4_final(struct md4_ctx *ctx, uint8_t out[16])
{
	uint64_t bits = ctx->length * 8;
	size_t have = (size_t)(ctx->length % 64);
	uint8_t tail[64 + 8];
	/* pad to 56 mod 64, one or two blocks of padding in all */
	size_t padlen = (have < 56 ? 56 : 120) - have;

	memset(tail, 0, sizeof(tail));
	tail[0] = 0x80;
	for (int i = 0; i < 8; i++)
		tail[padlen + (size_t)i] = (uint8_t)(bits >> (8 * i));
	md4_update(ctx, tail, padlen + 8);

	for (int i = 0; i < 4; i++)
		store_le32(out + 4 * i, ctx->state[i]);
	memset(ctx, 0, sizeof(*ctx));
}

void md4_digest(const void *data, size_t len, uint8_t out[16])
{
	struct md4_ctx ctx;

	md4_init(&ctx);
	md4_update(&ctx, data, len);
	md4_final(&ctx, out);
}

uint32_t com_block_checksum(const void *data, size_t len)
{
	uint8_t d[16];

	md4_digest(data, len, d);
	return load_le32(d) ^ load_le32(d + 4) ^ load_le32(d + 8) ^
	       load_le32(d + 12);
}
