/*
 * mvd.c -- the pieces of the MVD/QTV format (qwd/mvd.h) that both the
 * server and the client library use: the record header and the QTV
 * password digest.
 *
 * Design note
 *   The format sits below the server (the writer, the QTV service) and
 *   the client library (the reader, the QTV client) so that neither
 *   depends on the other; the server checks a viewer's password with the
 *   very digest a client computes.  Both functions write into the
 *   caller's buffer, sized by the contract in qwd/mvd.h, and allocate
 *   nothing.
 */
#include "qwd/common.h"
#include "qwd/mvd.h"

#include <stdio.h>
#include <string.h>

#include <bsd/string.h>
#include <nettle/sha3.h>

size_t mvd_record_header(uint8_t *out, int msec, int type, uint32_t to,
			 uint32_t len)
{
	size_t n = 0;

	out[n++] = (uint8_t)msec;
	if (type == MVD_SINGLE || type == MVD_STATS)
		out[n++] = (uint8_t)(type | (to << 3));
	else
		out[n++] = (uint8_t)type;
	if (type == MVD_MULTIPLE) {
		for (int i = 0; i < 4; i++)
			out[n++] = (uint8_t)(to >> (8 * i));
	}
	for (int i = 0; i < 4; i++)
		out[n++] = (uint8_t)(len >> (8 * i));
	return n;
}

bool qtv_digest(const char *method, const char *challenge, const char *password,
		char *out, size_t size)
{
	char both[512];
	int n = snprintf(both, sizeof(both), "%s%s", challenge, password);

	if (n < 0 || (size_t)n >= sizeof(both) || size == 0)
		return false;
	if (strcmp(method, "SHA3_512") == 0) {
		struct sha3_512_ctx c;
		uint8_t d[SHA3_512_DIGEST_SIZE];

		if (size < 2 * sizeof(d) + 1)
			return false;
		sha3_512_init(&c);
		sha3_512_update(&c, (size_t)n, (const uint8_t *)both);
		sha3_512_digest(&c, sizeof(d), d);
		for (size_t i = 0; i < sizeof(d); i++)
			snprintf(out + 2 * i, 3, "%02x", d[i]);
	} else if (strcmp(method, "MD4") == 0) {
		uint8_t d[16];
		uint32_t w[4];

		md4_digest(both, (size_t)n, d);
		for (int i = 0; i < 4; i++)
			w[i] = (uint32_t)d[4 * i] | (uint32_t)d[4 * i + 1] << 8 |
			       (uint32_t)d[4 * i + 2] << 16 | (uint32_t)d[4 * i + 3] << 24;
		snprintf(out, size, "%X%X%X%X", w[0], w[1], w[2], w[3]);
	} else if (strcmp(method, "CCITT") == 0) {
		snprintf(out, size, "0x%X", crc_block(both, (size_t)n));
	} else if (strcmp(method, "PLAIN") == 0 || strcmp(method, "NONE") == 0) {
		strlcpy(out, password, size);
	} else {
		return false;
	}
	return true;
}
