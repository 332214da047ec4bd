/*
 * info.c -- QuakeWorld info strings: "\key\value\key\value".
 *
 * Design note
 *   Userinfo (the client's name, team, skin, rate...; at most 196 bytes in
 *   QW) and serverinfo (512) are flat strings of pairs, each field
 *   introduced by a backslash.  Clients send them, so a reader must assume
 *   anything: a missing leading backslash (id's parser skips one if it is
 *   there, so "a\1" is accepted), an odd number of fields (the trailing key
 *   without a value is not a pair: readers ignore it, setters drop it),
 *   empty fields, duplicate keys (the first one is the value; setters and
 *   removal clear all of them, otherwise an older duplicate would come back
 *   after a set).
 *
 *   One parser (next_pair) yields spans into the string; nothing is copied
 *   on the way, so no field length can overrun a buffer, and every copy out
 *   is cut to the caller's size.
 *
 *   What a setter refuses (id's Info_SetValueForStarKey, plus control
 *   characters): a backslash would split the field; a double quote would
 *   break the quoted userinfo of `connect` and the "name" fields of the
 *   status reply; a control character (a newline above all) would let a
 *   client forge extra lines in status replies and logs.  Keys and values
 *   are at most 63 characters.  Keys beginning with '*' belong to the
 *   server (*ver, *spectator...) and only the star setter may write them.
 *   A setter checks everything, the final length included, before it
 *   changes a byte, so an error leaves the string as it was.
 */
#include <qwd/common.h>

#include <string.h>

/* Parse the pair at *pos.  On success *pos moves past it (to the next
 * backslash or the NUL) and *start is where the pair began, so that
 * [*start, *pos) is exactly the text to cut to remove it.  Fails at the
 * end of the string or at a trailing key that has no value. */
static bool next_pair(const char **pos, struct info_pair *pair,
		      const char **start)
{
	const char *p = *pos;
	const char *key;

	if (start)
		*start = p;
	if (*p == '\\')
		p++;
	if (*p == '\0')
		return false;
	key = p;
	while (*p != '\0' && *p != '\\')
		p++;
	if (*p == '\0')
		return false;
	pair->key = key;
	pair->key_len = (size_t)(p - key);
	pair->value = ++p;
	while (*p != '\0' && *p != '\\')
		p++;
	pair->value_len = (size_t)(p - pair->value);
	*pos = p;
	return true;
}

static bool key_is(const struct info_pair *pair, const char *key,
		   size_t key_len)
{
	return pair->key_len == key_len && memcmp(pair->key, key, key_len) == 0;
}

void info_iter_init(struct info_iter *it, const char *s)
{
	it->pos = s;
}

bool info_iter_next(struct info_iter *it, struct info_pair *pair)
{
	return next_pair(&it->pos, pair, NULL);
}

bool info_value_for_key(const char *s, const char *key, char *out,
			size_t outsize)
{
	size_t key_len = strlen(key);
	const char *pos = s;
	struct info_pair pair;

	if (outsize > 0)
		out[0] = '\0';
	while (next_pair(&pos, &pair, NULL)) {
		if (!key_is(&pair, key, key_len))
			continue;
		if (outsize > 0) {
			size_t n = pair.value_len < outsize - 1 ? pair.value_len
								: outsize - 1;

			memcpy(out, pair.value, n);
			out[n] = '\0';
		}
		return true;
	}
	return false;
}

/* Bytes that removing every `key` pair would free. */
static size_t key_pairs_len(const char *s, const char *key, size_t key_len)
{
	const char *pos = s, *start;
	struct info_pair pair;
	size_t total = 0;

	while (next_pair(&pos, &pair, &start))
		if (key_is(&pair, key, key_len))
			total += (size_t)(pos - start);
	return total;
}

static bool remove_key_len(char *s, const char *key, size_t key_len)
{
	const char *pos = s, *start;
	struct info_pair pair;
	bool removed = false;

	while (next_pair(&pos, &pair, &start)) {
		if (!key_is(&pair, key, key_len))
			continue;
		/* start points into s, which is ours to write */
		memmove(s + (start - s), pos, strlen(pos) + 1);
		pos = start;
		removed = true;
	}
	return removed;
}

bool info_remove_key(char *s, const char *key)
{
	return remove_key_len(s, key, strlen(key));
}

/* Where the last complete pair ends; anything after it is a dangling key. */
static size_t complete_len(const char *s)
{
	const char *pos = s;
	struct info_pair pair;

	while (next_pair(&pos, &pair, NULL))
		;
	return (size_t)(pos - s);
}

static enum info_result check_field(const char *f)
{
	size_t n = 0;

	for (; f[n] != '\0'; n++) {
		unsigned char c = (unsigned char)f[n];

		if (c == '\\' || c == '"' || c < 32 || c == 127)
			return INFO_ERR_BADCHAR;
	}
	return n > INFO_MAX_FIELD ? INFO_ERR_TOOLONG : INFO_OK;
}

enum info_result info_set_star_value_for_key(char *s, size_t size,
					     const char *key,
					     const char *value)
{
	enum info_result r;
	size_t len, key_len, value_len, keep, need;

	if (!value)
		value = "";
	if (key[0] == '\0')
		return INFO_ERR_EMPTYKEY;
	if ((r = check_field(key)) != INFO_OK ||
	    (r = check_field(value)) != INFO_OK)
		return r;
	key_len = strlen(key);
	value_len = strlen(value);

	/* a string not terminated inside its own buffer cannot be edited */
	len = size > 0 ? strnlen(s, size) : 0;
	if (len >= size)
		return INFO_ERR_NOROOM;

	/* the length once the dangling tail and the old pairs are gone */
	keep = complete_len(s);
	keep -= key_pairs_len(s, key, key_len);
	need = keep + (value_len ? 2 + key_len + value_len : 0);
	if (need >= size)
		return INFO_ERR_NOROOM;

	s[complete_len(s)] = '\0';
	remove_key_len(s, key, key_len);
	if (value_len) {
		len = strlen(s);
		s[len++] = '\\';
		memcpy(s + len, key, key_len);
		len += key_len;
		s[len++] = '\\';
		memcpy(s + len, value, value_len);
		s[len + value_len] = '\0';
	}
	return INFO_OK;
}

enum info_result info_set_value_for_key(char *s, size_t size, const char *key,
					const char *value)
{
	if (key[0] == '*')
		return INFO_ERR_STARKEY;
	return info_set_star_value_for_key(s, size, key, value);
}
