/*
 * qwd/common.h -- the pieces every module stands on.
 *
 * Design note
 *   Nothing here knows about sockets, clients or maps.  It holds:
 *   - vector math on float[3] (the engine's and the wire's unit),
 *   - the digests QuakeWorld interoperability needs: MD4 (RFC 1320) and the
 *     "block checksum" built on it (the four little-endian digest words
 *     XORed), which clients and servers use for map checksums; CRC-16-CCITT
 *     for the usercmd checksum byte,
 *   - bounded byte buffers for reading and writing messages (msg_*): a read
 *     past the end sets a flag and returns a neutral value, never touches
 *     memory outside the buffer; a write that does not fit sets overflowed,
 *   - info strings (\key\value\...) with hard size limits,
 *   - logging with a caller-supplied sink,
 *   - the clocks (one reading of a POSIX clock in ns or s: the server,
 *     the profiler and the tools read time the same way),
 *   - strict number parsing (a whole string within bounds, or false),
 *   - the histogram behind every percentile the project reports,
 *   - a JSON writer (the stats file, the tools' reports),
 *   - the allocation of the big tables read every frame (on huge pages
 *     where the kernel gives them).
 *   Every function takes its state explicitly; there are no globals.
 */
#ifndef QWD_COMMON_H
#define QWD_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- vectors ---------------------------------------------------------- */

typedef float vec3_t[3];

static inline float vec_dot(const vec3_t a, const vec3_t b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void vec_copy(const vec3_t a, vec3_t out)
{
	out[0] = a[0];
	out[1] = a[1];
	out[2] = a[2];
}

static inline void vec_set(vec3_t out, float x, float y, float z)
{
	out[0] = x;
	out[1] = y;
	out[2] = z;
}

static inline void vec_add(const vec3_t a, const vec3_t b, vec3_t out)
{
	out[0] = a[0] + b[0];
	out[1] = a[1] + b[1];
	out[2] = a[2] + b[2];
}

static inline void vec_sub(const vec3_t a, const vec3_t b, vec3_t out)
{
	out[0] = a[0] - b[0];
	out[1] = a[1] - b[1];
	out[2] = a[2] - b[2];
}

/* out = a + s * b */
static inline void vec_ma(const vec3_t a, float s, const vec3_t b, vec3_t out)
{
	out[0] = a[0] + s * b[0];
	out[1] = a[1] + s * b[1];
	out[2] = a[2] + s * b[2];
}

static inline bool vec_equal(const vec3_t a, const vec3_t b)
{
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/* ---- clocks ----------------------------------------------------------- */

#include <time.h>

/* One reading of a POSIX clock: CLOCK_MONOTONIC for intervals,
 * CLOCK_REALTIME for Unix time, CLOCK_THREAD_CPUTIME_ID and friends for
 * CPU time.  Inline because the profiler reads the clock twice per packet
 * and a call more would show in its own cost. */
static inline uint64_t qwd_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline double qwd_clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* what to add to a CLOCK_MONOTONIC reading in seconds to get Unix time
 * (the two clocks read back to back) */
static inline double qwd_mono_to_wall_s(void)
{
	struct timespec m, w;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &w);
	return ((double)w.tv_sec - (double)m.tv_sec) +
	       ((double)w.tv_nsec - (double)m.tv_nsec) * 1e-9;
}

/* ---- numbers in text (number.c) --------------------------------------- */

/* The whole of s as an integer in [lo, hi]: decimal, or hexadecimal after
 * 0x when hex is true; never octal.  False (out untouched) for an empty
 * string, trailing characters, an overflow or a value out of range. */
bool qwd_parse_int(const char *s, long long lo, long long hi, bool hex,
		   long long *out);
/* The whole of s as a finite number in [lo, hi]; false as above. */
bool qwd_parse_double(const char *s, double lo, double hi, double *out);

/* ---- histograms (hist.c) ---------------------------------------------- */

/* HDR-style log-linear buckets, fixed size (15 KB, no allocation).  Values
 * below 2^QWD_HIST_SUB_BITS have a bucket each; above, every power of two
 * is split in 2^QWD_HIST_SUB_BITS equal buckets, so a bucket is at most
 * 1/64 of its lower bound wide.  Values of 2^QWD_HIST_MAX_BITS (17 s in
 * ns) and more share the top bucket (count, sum, min and max stay exact).
 * Times go in as nanoseconds everywhere (qwd's request times, qwbots' and
 * udpecho's response times, gamebench's frame times): the same times then
 * fall in the same buckets and give the same p50, p99 and max wherever
 * they are measured. */
#define QWD_HIST_SUB_BITS 6
#define QWD_HIST_MAX_BITS 34
#define QWD_HIST_SUB (1u << QWD_HIST_SUB_BITS)
#define QWD_HIST_BUCKETS \
	(QWD_HIST_SUB + (QWD_HIST_MAX_BITS - QWD_HIST_SUB_BITS) * QWD_HIST_SUB)

struct qwd_hist {
	uint64_t count, sum, min, max;	/* min is UINT64_MAX when empty */
	uint64_t bucket[QWD_HIST_BUCKETS];
};

/* count, mean and quantiles of a histogram, in its unit */
struct qwd_hist_summary {
	uint64_t count;
	double mean;		/* 0 when empty */
	uint64_t p50, p99, max;
};

void qwd_hist_clear(struct qwd_hist *h);
void qwd_hist_add(struct qwd_hist *h, uint64_t v);
/* a time in seconds, added as whole nanoseconds (rounded; a negative or
 * NaN time, a clock that stepped back, counts as 0) */
void qwd_hist_add_s(struct qwd_hist *h, double seconds);
void qwd_hist_merge(struct qwd_hist *dst, const struct qwd_hist *src);
/* The one percentile definition: the value of rank ceil(q * count) (q in
 * [0, 1], clamped), reported as the middle of its bucket clamped to
 * [min, max]; 0 when empty.  q = 1 is max exactly. */
uint64_t qwd_hist_quantile(const struct qwd_hist *h, double q);
void qwd_hist_summarize(const struct qwd_hist *h, struct qwd_hist_summary *out);
/* the mean, 0 when empty */
double qwd_hist_mean(const struct qwd_hist *h);
/* The number of values in the buckets that lie wholly at or below bound
 * (a Prometheus histogram's cumulative `le` count, qwd/metrics.h): exact
 * when bound + 1 starts a bucket (every value below 64, and 64 + k, k <
 * 64, times a power of two), else short by the values of the one bucket
 * that straddles bound (at most 1/64 of bound wide). */
uint64_t qwd_hist_count_le(const struct qwd_hist *h, uint64_t bound);

/* ---- seeded random numbers (rng.c: splitmix64, state owned by the caller) */

uint64_t qwd_rng_next(uint64_t *state);
double qwd_rng_unit(uint64_t *state);		/* [0, 1) */
uint32_t qwd_rng_below(uint64_t *state, uint32_t n);	/* [0, n) */

/* ---- digests ---------------------------------------------------------- */

/* MD4 of len bytes (RFC 1320); out receives the 16-byte digest. */
void md4_digest(const void *data, size_t len, uint8_t out[16]);

/* QuakeWorld's block checksum: the MD4 digest read as four little-endian
 * 32-bit words, XORed together. */
uint32_t com_block_checksum(const void *data, size_t len);

/* Incremental MD4, for data that arrives in pieces; md4_digest is the
 * one-shot form.  The context is plain data: copy it, keep it anywhere. */
struct md4_ctx {
	uint32_t state[4];
	uint64_t length;	/* bytes fed so far */
	uint8_t block[64];	/* pending partial block */
};

void md4_init(struct md4_ctx *ctx);
void md4_update(struct md4_ctx *ctx, const void *data, size_t len);
void md4_final(struct md4_ctx *ctx, uint8_t out[16]);

/* CRC-16-CCITT as Quake uses it: polynomial 0x1021, initial value 0xFFFF,
 * most significant bit first, no reflection, no final xor ("CCITT-FALSE";
 * the CRC of "123456789" is 0x29B1). */
#define CRC_INIT 0xffffu

uint16_t crc_update(uint16_t crc, const void *data, size_t len);
uint16_t crc_block(const void *data, size_t len);

/* The clc_move checksum byte: the CRC of at most COM_SEQUENCE_CRC_MAX bytes
 * of the move followed by four bytes of a fixed table picked by the
 * packet's sequence, low 8 bits.  Netchan sequences are 31-bit, so any
 * valid sequence gives the same byte as id's client. */
#define COM_SEQUENCE_CRC_MAX 60

uint8_t com_block_sequence_crc_byte(const void *base, size_t len,
				    uint32_t sequence);

/* ---- message buffers -------------------------------------------------- */

/* A bounded byte buffer, written at cursize and read at readpos.
 * Invariants: cursize <= maxsize, readpos <= cursize; no call ever touches
 * data[] outside [0, maxsize).
 * Writes are all-or-nothing.  A write that does not fit sets overflowed;
 * with allow_overflow the buffer is first cleared (the caller treats the
 * contents as lost, as id's SZ_GetSpace did), without it the write is
 * dropped, and so is every later write until msg_clear, so the contents
 * stay a clean prefix of what was asked for.
 * Reads: a read past cursize sets badread, which is sticky: every later
 * read fails too.  Failed integer reads (byte, char, short, long) return
 * -1, failed float reads (float, coord, angle, angle16) return 0.0f; the
 * flag, not the value, is the test. */
struct msg_buf {
	uint8_t *data;
	size_t maxsize;
	size_t cursize;
	size_t readpos;
	bool overflowed;
	bool allow_overflow;
	bool badread;
};

/* an empty buffer for writing into data[0..maxsize) */
void msg_init(struct msg_buf *b, void *data, size_t maxsize);
/* a full buffer for reading len received bytes */
void msg_init_read(struct msg_buf *b, void *data, size_t len);
/* empty the buffer and forget overflowed, readpos and badread */
void msg_clear(struct msg_buf *b);
/* restart reading at the first byte, forgetting badread */
void msg_begin_reading(struct msg_buf *b);
/* bytes left to read */
size_t msg_read_remaining(const struct msg_buf *b);

/* Reserve len bytes at the end and return them, or NULL (with the overflow
 * rules above) when they do not fit.  The common case (room, nothing
 * overflowed) is inline; msg_get_space_slow applies the rules. */
void *msg_get_space_slow(struct msg_buf *b, size_t len);

/* len more bytes fit with no overflow rule coming into play */
static inline bool msg_room(const struct msg_buf *b, size_t len)
{
	return !b->overflowed && b->cursize <= b->maxsize &&
	       len <= b->maxsize - b->cursize;
}

static inline void *msg_get_space(struct msg_buf *b, size_t len)
{
	if (msg_room(b, len)) {
		void *p = b->data + b->cursize;

		b->cursize += len;
		return p;
	}
	return msg_get_space_slow(b, len);
}

void msg_write_data(struct msg_buf *b, const void *data, size_t len);

/* Unchecked stores of the wire encodings at p, returning the byte after:
 * only into room already reserved (msg_get_space, msg_record_begin). */
static inline uint8_t *msg_put_byte(uint8_t *p, int c)
{
	p[0] = (uint8_t)c;
	return p + 1;
}

static inline uint8_t *msg_put_short(uint8_t *p, int c)
{
	p[0] = (uint8_t)c;
	p[1] = (uint8_t)((unsigned)c >> 8);
	return p + 2;
}

static inline uint8_t *msg_put_long(uint8_t *p, int32_t c)
{
	uint32_t v = (uint32_t)c;

	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	return p + 4;
}

/* The checked writers: each a whole write or, by the rules above, none. */
static inline void msg_write_byte(struct msg_buf *b, int c) /* low 8 bits */
{
	uint8_t *p = msg_get_space(b, 1);

	if (p)
		msg_put_byte(p, c);
}

static inline void msg_write_char(struct msg_buf *b, int c) /* low 8 bits */
{
	msg_write_byte(b, c);
}

static inline void msg_write_short(struct msg_buf *b, int c) /* low 16, LE */
{
	uint8_t *p = msg_get_space(b, 2);

	if (p)
		msg_put_short(p, c);
}

static inline void msg_write_long(struct msg_buf *b, int32_t c) /* LE */
{
	uint8_t *p = msg_get_space(b, 4);

	if (p)
		msg_put_long(p, c);
}

void msg_write_float(struct msg_buf *b, float f);  /* IEEE-754 LE */
/* the string and its NUL; NULL writes an empty string */
void msg_write_string(struct msg_buf *b, const char *s);
/* short of f*8, truncated toward zero (id's rule; round before calling
 * for the nearest 1/8 unit); out-of-range values saturate */
void msg_write_coord(struct msg_buf *b, float f);
/* byte of f*256/360, truncated, modulo 256 */
void msg_write_angle(struct msg_buf *b, float f);
/* short of f*65536/360, truncated, modulo 65536 */
void msg_write_angle16(struct msg_buf *b, float f);

/* A record: a run of fields that is written whole or not at all, bounds
 * checked once for all of them instead of once a field.
 *     uint8_t scratch[MAX], *start = msg_record_begin(b, scratch, MAX), *p = start;
 *     p = msg_put_short(p, ...); ...
 *     msg_record_end(b, scratch, start, p);
 * begin returns the buffer's end when MAX bytes fit there (and nothing has
 * overflowed), else scratch; end then commits the bytes in place, or
 * appends scratch's with msg_write_data, so a record that does not fit
 * follows the overflow rules as one write: none of it is in the buffer.
 * At most MAX bytes may be stored. */
static inline uint8_t *msg_record_begin(struct msg_buf *b, uint8_t *scratch,
					size_t max)
{
	return msg_room(b, max) ? b->data + b->cursize : scratch;
}

static inline void msg_record_end(struct msg_buf *b, const uint8_t *scratch,
				  const uint8_t *start, const uint8_t *end)
{
	if (start == scratch)
		msg_write_data(b, scratch, (size_t)(end - scratch));
	else
		b->cursize += (size_t)(end - start);
}

int msg_read_byte(struct msg_buf *b);	/* 0..255 */
int msg_read_char(struct msg_buf *b);	/* -128..127 */
int msg_read_short(struct msg_buf *b);	/* -32768..32767 */
int32_t msg_read_long(struct msg_buf *b);
float msg_read_float(struct msg_buf *b);
float msg_read_coord(struct msg_buf *b);	/* signed short / 8 */
float msg_read_angle(struct msg_buf *b);	/* signed byte * 360/256 */
float msg_read_angle16(struct msg_buf *b);	/* signed short * 360/65536 */
/* Copy len bytes out; false (and badread) if fewer are left, nothing read. */
bool msg_read_data(struct msg_buf *b, void *out, size_t len);
/* Pass over len bytes; false (and badread) if fewer are left. */
bool msg_skip(struct msg_buf *b, size_t len);
/* Read a string up to and including its NUL into out (outsize bytes,
 * always terminated when outsize > 0; a longer string is truncated but
 * consumed whole, so the next read starts after it; out NULL with outsize
 * 0 passes over the string).  Data that ends without a NUL sets badread.
 * Returns the length stored in out. */
size_t msg_read_string(struct msg_buf *b, char *out, size_t outsize);
/* the same, ending at NUL or '\n' (consumed, not stored) */
size_t msg_read_string_line(struct msg_buf *b, char *out, size_t outsize);

/* ---- usercmd ---------------------------------------------------------- */

/* One client move (protocol 28). */
struct usercmd {
	uint8_t msec;
	vec3_t angles;
	int16_t forwardmove, sidemove, upmove;
	uint8_t buttons, impulse;
};

/* Bits of the delta usercmd's first byte (QW protocol.h); note ANGLE2 is
 * the top bit.  msec is not flagged: it is always sent, last. */
#define CM_ANGLE1 (1 << 0)
#define CM_ANGLE3 (1 << 1)
#define CM_FORWARD (1 << 2)
#define CM_SIDE (1 << 3)
#define CM_UP (1 << 4)
#define CM_BUTTONS (1 << 5)
#define CM_IMPULSE (1 << 6)
#define CM_ANGLE2 (1 << 7)

/* largest encoding: bits, 3 angle16, 3 shorts, buttons, impulse, msec */
#define MSG_DELTA_USERCMD_MAX 16

/* Write `to` as a delta from `from`, all-or-nothing (the whole command or,
 * on overflow, none of it). */
void msg_write_delta_usercmd(struct msg_buf *b, const struct usercmd *from,
			     const struct usercmd *to);
/* The same stored unchecked at p (MSG_DELTA_USERCMD_MAX bytes of room),
 * for a record; returns the byte after it. */
uint8_t *msg_put_delta_usercmd(uint8_t *p, const struct usercmd *from,
			       const struct usercmd *to);
/* Read a delta against `from`.  Returns false on a short read (badread
 * set); `out` then equals `from`.  Angles come back in [-180, 180). */
bool msg_read_delta_usercmd(struct msg_buf *b, const struct usercmd *from,
			    struct usercmd *out);

/* ---- info strings ----------------------------------------------------- */

/* "\key\value\key\value" (QuakeWorld userinfo and serverinfo).  Readers
 * accept a missing leading backslash and ignore a trailing key with no
 * value (setters drop it); nothing reads or writes outside the given
 * sizes.  Setters keep strlen(s) < size (size counts the NUL) and leave s
 * unchanged on error. */
#define MAX_INFO_STRING 196	   /* userinfo */
#define MAX_SERVERINFO_STRING 512 /* serverinfo */
#define INFO_MAX_FIELD 63	   /* longest key or value (QW: < 64 chars) */

enum info_result {
	INFO_OK = 0,
	INFO_ERR_BADCHAR = -1,	/* '\\', '"' or a control character */
	INFO_ERR_TOOLONG = -2,	/* key or value over INFO_MAX_FIELD */
	INFO_ERR_NOROOM = -3,	/* the result would not fit in size */
	INFO_ERR_STARKEY = -4,	/* '*' keys are the server's */
	INFO_ERR_EMPTYKEY = -5,
};

/* One pair, pointing into the string (not terminated). */
struct info_pair {
	const char *key;
	size_t key_len;
	const char *value;
	size_t value_len;
};

struct info_iter {
	const char *pos;
};

void info_iter_init(struct info_iter *it, const char *s);
/* next pair, or false at the end */
bool info_iter_next(struct info_iter *it, struct info_pair *pair);

/* Copy the value of the first `key` into out (truncated to outsize-1,
 * always terminated when outsize > 0).  Returns false, with out = "", when
 * the key is absent. */
bool info_value_for_key(const char *s, const char *key, char *out,
			size_t outsize);
/* Remove every pair with this key.  Returns true if one was removed. */
bool info_remove_key(char *s, const char *key);
/* Set key to value in s (a buffer of size bytes), replacing any old pairs
 * with that key; an empty value removes the key.  Keys starting with '*'
 * are refused (clients may not set them); the server uses
 * info_set_star_value_for_key. */
enum info_result info_set_value_for_key(char *s, size_t size, const char *key,
					const char *value);
enum info_result info_set_star_value_for_key(char *s, size_t size,
					     const char *key,
					     const char *value);

/* ---- JSON output (json.c) ---------------------------------------------- */

#include <stdio.h>

/* A JSON text written member by member, into a buffer (then json_finish
 * writes it with one fwrite) or straight to a stream.  The writer places
 * the commas, escapes strings (bytes >= 0x7f as \u00XX: Quake's charset
 * is not UTF-8) and writes a number that is not finite as null.  A member
 * of an object takes its key; an array's element, or the top value,
 * passes key NULL.  Layout: compact ({"a":1,"b":2}) unless `spaced`
 * ({"a": 1, "b": 2}); json_break(j, n) puts the next member, or the next
 * closing bracket, on a new line indented n spaces. */
#define JSON_MAX_DEPTH 8

struct json_out {
	FILE *f;		/* the stream, or NULL: into buf */
	char *buf;
	size_t size, len;	/* len: bytes asked for so far (snprintf's
				   rule: more than size means cut) */
	bool spaced;		/* ", " and ": " (default compact) */
	int digits;		/* significant digits of json_num (9) */
	int depth, indent;	/* indent: a pending json_break, -1 none */
	bool failed;		/* a write failed, or a nesting error */
	bool has_item[JSON_MAX_DEPTH];
	char close[JSON_MAX_DEPTH];
};

/* f non-NULL: to the stream; else into buf[size] (kept terminated) */
void json_init(struct json_out *j, FILE *f, char *buf, size_t size);
/* open '{' or '[' (as the member key, or an element: key NULL) */
void json_begin(struct json_out *j, const char *key, char open);
void json_end(struct json_out *j);
void json_str(struct json_out *j, const char *key, const char *s);
/* %.*g with j->digits; not finite: null */
void json_num(struct json_out *j, const char *key, double v);
/* %.*f; not finite: null */
void json_fixed(struct json_out *j, const char *key, double v, int decimals);
void json_u64(struct json_out *j, const char *key, uint64_t v);
void json_i64(struct json_out *j, const char *key, int64_t v);
void json_bool(struct json_out *j, const char *key, bool v);
void json_null(struct json_out *j, const char *key);
void json_break(struct json_out *j, int indent);
/* text as it is, outside the structure (a line's closing "\n") */
void json_raw(struct json_out *j, const char *text);
/* Done: 0, or -1 when a write failed, an object was left open, or the
 * buffer was too small.  Buffer mode writes the text to f (when not NULL)
 * with one fwrite and a fflush. */
int json_finish(struct json_out *j, FILE *f);

/* ---- big tables (table.c) --------------------------------------------- */

/* A table allocated once and read every frame: zeroed, 64-byte aligned;
 * from QWD_TABLE_HUGE_MIN bytes up, mapped on its own 2 MB boundary and
 * advised MADV_HUGEPAGE (the kernel may back it with huge pages: fewer TLB
 * misses over a crowd's scattered reads).  Free it with the size it was
 * allocated with.  NULL when out of memory. */
#if defined(__SANITIZE_ADDRESS__)
/* the sanitizer build keeps every table on the heap, where its redzones
 * catch an overrun */
#define QWD_TABLE_HUGE_MIN SIZE_MAX
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QWD_TABLE_HUGE_MIN SIZE_MAX
#endif
#endif
#ifndef QWD_TABLE_HUGE_MIN
#define QWD_TABLE_HUGE_MIN ((size_t)1 << 20)
#endif
void *qwd_table_alloc(size_t size);
void qwd_table_free(void *p, size_t size);
/* the kernel's transparent huge page mode ("always", "madvise", "never")
 * or "unavailable", into buf */
const char *qwd_table_thp_mode(char *buf, size_t size);

/* ---- logging ---------------------------------------------------------- */

#include <stdarg.h>

enum qwd_log_level {
	QWD_LOG_DEBUG = 0,
	QWD_LOG_INFO = 1,
	QWD_LOG_WARN = 2,
	QWD_LOG_ERROR = 3,
};

/* longest line handed to a sink; longer ones are cut and end in "..." */
#define QWD_LOG_LINE_MAX 1024

/* A sink gets one formatted line: no newline, control characters other
 * than tab shown as '?'.  Lines below min_level are dropped before
 * formatting.  A NULL sink means qwd_log_stderr_sink; a NULL qwd_log means
 * that sink with min_level QWD_LOG_INFO. */
struct qwd_log {
	void (*sink)(void *ctx, int level, const char *line);
	void *ctx;
	int min_level;
};

void qwd_logf(const struct qwd_log *log, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void qwd_vlogf(const struct qwd_log *log, int level, const char *fmt,
	       va_list ap) __attribute__((format(printf, 3, 0)));
/* "2024-05-01T12:00:00.123Z WARN text\n" on stderr (ctx unused) */
void qwd_log_stderr_sink(void *ctx, int level, const char *line);
/* "DEBUG", "INFO", "WARN", "ERROR", or "?" */
const char *qwd_log_level_name(int level);

#endif
