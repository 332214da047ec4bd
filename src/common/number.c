/*
 * number.c -- a whole string as a number within bounds, or a refusal.
 *
 * Design note: every command line and every text format of the project
 * (the tools' options, the action files) reads numbers the same strict
 * way: the whole string must be the number (no trailing junk, no empty
 * string), the value must be finite and inside [lo, hi], and an overflow
 * is an error rather than a clamp; on any failure the output is left as
 * it was.  strtoll/strtod do the conversion (errno reset first, since
 * they only ever set it).  Integers are decimal, or hexadecimal after 0x
 * where the caller allows it; never octal, so "010" is ten.
 */
#include "qwd/common.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

bool qwd_parse_int(const char *s, long long lo, long long hi, bool hex,
		   long long *out)
{
	int base = hex && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, base);
	if (end == s || *end || errno || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

bool qwd_parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}
