/*
 * rcon.c -- the hashed rcon digest of MVDSV and ezQuake, both ways: the
 * server checks it (src/server/rcon.c), tests and tools build it.
 *
 * Design note
 *   The layout (net.h) is the one ezQuake's CL_Rcon_f writes and MVDSV's
 *   Rcon_Validate reads; it is owned here, once.  Nothing here knows the
 *   clock or the window: the caller compares times and remembers digests.
 *   SHA-1 comes from libmd, which libbsd itself depends on (libbsd-dev
 *   pulls libmd-dev, libbsd0 pulls libmd0), so hashed rcon adds no
 *   package to the build; OpenSSL's libcrypto would add a development
 *   package and a large library for one hash, and a copy of SHA-1 in the
 *   tree would be one more thing to keep right.  SHA-1's weaknesses are
 *   collisions, which an attacker here cannot use: forging a digest for a
 *   new command still needs the password (a preimage of a keyed hash).
 *
 *   Hex is read in either case (ezQuake writes upper case); anything that
 *   is not exactly the expected number of hex digits is refused.
 */
#include <qwd/net.h>

#include <stdio.h>
#include <string.h>

#include <sha1.h>

_Static_assert(RCON_SHA1 == SHA1_DIGEST_LENGTH, "SHA-1 is 20 bytes");

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* n bytes from 2n hex digits */
static bool hex_bytes(const char *s, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hex_value(s[2 * i]), lo = hi < 0 ? -1 : hex_value(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

void rcon_time_hex(int64_t t, char out[RCON_TIME_HEX + 1])
{
	uint64_t u = (uint64_t)t;

	for (int i = 0; i < 8; i++)
		snprintf(out + 2 * i, 3, "%02X", (unsigned)(u >> (8 * i) & 0xff));
}

bool rcon_time_parse(const char *s, int64_t *t)
{
	uint8_t b[8];
	uint64_t u = 0;

	if (!hex_bytes(s, b, sizeof(b)))
		return false;
	for (int i = 7; i >= 0; i--)
		u = u << 8 | b[i];
	*t = (int64_t)u;
	return true;
}

bool rcon_digest_parse(const char *s, uint8_t out[RCON_SHA1])
{
	return hex_bytes(s, out, RCON_SHA1);
}

void rcon_digest(const char *password, const char *time_hex, int argc,
		 const char *const *argv, uint8_t out[RCON_SHA1])
{
	SHA1_CTX c;

	SHA1Init(&c);
	SHA1Update(&c, (const uint8_t *)"rcon ", 5);
	SHA1Update(&c, (const uint8_t *)password, strlen(password));
	SHA1Update(&c, (const uint8_t *)time_hex, RCON_TIME_HEX);
	SHA1Update(&c, (const uint8_t *)" ", 1);
	for (int i = 0; i < argc; i++) {
		SHA1Update(&c, (const uint8_t *)argv[i], strlen(argv[i]));
		SHA1Update(&c, (const uint8_t *)" ", 1);
	}
	SHA1Final(out, &c);
}

size_t rcon_build_hashed(void *out, size_t max, const char *password,
			 int64_t t, int argc, const char *const *argv)
{
	char time_hex[RCON_TIME_HEX + 1];
	uint8_t d[RCON_SHA1];
	char *p = out;
	size_t len;
	int n;

	rcon_time_hex(t, time_hex);
	rcon_digest(password, time_hex, argc, argv, d);
	if (max < 4 + 5 + RCON_DIGEST_HEX + RCON_TIME_HEX + 2)
		return 0;
	memset(p, 0xff, 4);
	len = 4;
	len += (size_t)snprintf(p + len, max - len, "rcon ");
	for (int i = 0; i < RCON_SHA1; i++)
		len += (size_t)snprintf(p + len, max - len, "%02X", d[i]);
	len += (size_t)snprintf(p + len, max - len, "%s ", time_hex);
	for (int i = 0; i < argc; i++) {
		n = snprintf(p + len, max - len, "%s ", argv[i]);
		if (n < 0 || (size_t)n >= max - len)
			return 0;
		len += (size_t)n;
	}
	return len + 1;		/* the NUL snprintf left */
}
