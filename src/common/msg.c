/*
 * msg.c -- bounded message buffers and the delta-compressed usercmd.
 *
 * Design note
 *   Every byte that crosses the wire passes through a struct msg_buf.  The
 *   wire is little-endian throughout (QW's MSG_* functions): shorts and
 *   longs are two's complement LE, floats are IEEE-754 single LE, strings
 *   end with a NUL, a coord is a short of value*8, an angle a byte of
 *   value*256/360, an angle16 a short of value*65536/360.  Conversions are
 *   done byte by byte, so the host's byte order and alignment never matter.
 *
 *   Invariants: cursize <= maxsize and readpos <= cursize; every access is
 *   checked against them first (and against a corrupted struct too: the
 *   read limit is min(cursize, maxsize)), so a hostile packet can at worst
 *   set badread.  Writes are all-or-nothing; overflow and badread rules are
 *   spelled out in qwd/common.h.
 *
 *   Delta usercmd (protocol 28, id's MSG_WriteDeltaUsercmd): one byte of
 *   CM_* bits, then the changed fields in the fixed order angle 0, 1, 2
 *   (angle16 each), forward, side, up (shorts), buttons, impulse (bytes),
 *   and msec as a byte, always, last.  The writer stores it as one record
 *   (qwd/common.h), so an overflow never leaves half a command behind, and
 *   writers of larger records (a player entry) store it inside theirs.
 *
 *   Speed: a reply is written a few bytes at a time, so the common case of
 *   every writer (room, nothing overflowed: msg_room) is inline in the
 *   header and the rules live in msg_get_space_slow; hot writers check
 *   bounds once per record and store the fields unchecked.  The readers
 *   stay out of line and check every field.
 */
#include <qwd/common.h>

#include <math.h>
#include <string.h>

/* ---- setup ------------------------------------------------------------ */

void msg_init(struct msg_buf *b, void *data, size_t maxsize)
{
	b->data = data;
	b->maxsize = maxsize;
	b->cursize = 0;
	b->readpos = 0;
	b->overflowed = false;
	b->allow_overflow = false;
	b->badread = false;
}

void msg_init_read(struct msg_buf *b, void *data, size_t len)
{
	msg_init(b, data, len);
	b->cursize = len;
}

void msg_clear(struct msg_buf *b)
{
	b->cursize = 0;
	b->readpos = 0;
	b->overflowed = false;
	b->badread = false;
}

void msg_begin_reading(struct msg_buf *b)
{
	b->readpos = 0;
	b->badread = false;
}

/* how far reads may go, robust to a caller that broke cursize <= maxsize */
static size_t read_limit(const struct msg_buf *b)
{
	return b->cursize < b->maxsize ? b->cursize : b->maxsize;
}

size_t msg_read_remaining(const struct msg_buf *b)
{
	size_t limit = read_limit(b);

	if (b->badread || b->readpos >= limit)
		return 0;
	return limit - b->readpos;
}

/* ---- writing ---------------------------------------------------------- */

void *msg_get_space_slow(struct msg_buf *b, size_t len)
{
	void *p;

	/* after a dropped write the contents must stay a clean prefix */
	if (b->overflowed && !b->allow_overflow)
		return NULL;
	if (b->cursize > b->maxsize || len > b->maxsize - b->cursize) {
		if (!b->allow_overflow) {
			b->overflowed = true;
			return NULL;
		}
		/* the owner of an allow_overflow buffer (id: the
		 * unreliable datagram) sees overflowed and discards it */
		msg_clear(b);
		b->overflowed = true;
		if (len > b->maxsize)
			return NULL;
	}
	p = b->data + b->cursize;
	b->cursize += len;
	return p;
}

void msg_write_data(struct msg_buf *b, const void *data, size_t len)
{
	uint8_t *p;

	if (len == 0)
		return;
	p = msg_get_space(b, len);
	if (p)
		memcpy(p, data, len);
}

void msg_write_float(struct msg_buf *b, float f)
{
	uint32_t bits;

	memcpy(&bits, &f, sizeof(bits));
	msg_write_long(b, (int32_t)bits);
}

void msg_write_string(struct msg_buf *b, const char *s)
{
	if (!s)
		s = "";
	msg_write_data(b, s, strlen(s) + 1);
}

/* (int)f as id's code does it, but defined for every float: truncation
 * toward zero, saturating at the int32 range, NaN -> 0 */
static int32_t float_to_i32(float f)
{
	if (isnan(f))
		return 0;
	if (f >= 2147483647.0f)
		return INT32_MAX;
	if (f <= -2147483648.0f)
		return INT32_MIN;
	return (int32_t)f;
}

void msg_write_coord(struct msg_buf *b, float f)
{
	int32_t v = float_to_i32(f * 8);

	/* beyond +-4096 units the short cannot hold it; saturating keeps the
	 * sign instead of wrapping to the far side of the map */
	if (v > INT16_MAX)
		v = INT16_MAX;
	if (v < INT16_MIN)
		v = INT16_MIN;
	msg_write_short(b, v);
}

/* The float expressions below are id's, evaluated in float as there, so
 * the truncated result agrees with stock clients to the last bit. */
static uint8_t *put_angle16(uint8_t *p, float f)
{
	return msg_put_short(p, float_to_i32(f * 65536 / 360) & 65535);
}

void msg_write_angle(struct msg_buf *b, float f)
{
	msg_write_byte(b, float_to_i32(f * 256 / 360) & 255);
}

void msg_write_angle16(struct msg_buf *b, float f)
{
	uint8_t *p = msg_get_space(b, 2);

	if (p)
		put_angle16(p, f);
}

/* ---- reading ---------------------------------------------------------- */

/* n bytes at readpos, consumed; NULL and badread when they are not all
 * there (or an earlier read already failed) */
static const uint8_t *take(struct msg_buf *b, size_t n)
{
	const uint8_t *p;

	if (n > msg_read_remaining(b)) {
		b->badread = true;
		return NULL;
	}
	p = b->data + b->readpos;
	b->readpos += n;
	return p;
}

static uint32_t get_le(const uint8_t *p, size_t n)
{
	uint32_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

int msg_read_byte(struct msg_buf *b)
{
	const uint8_t *p = take(b, 1);

	return p ? p[0] : -1;
}

int msg_read_char(struct msg_buf *b)
{
	const uint8_t *p = take(b, 1);

	return p ? (int8_t)p[0] : -1;
}

int msg_read_short(struct msg_buf *b)
{
	const uint8_t *p = take(b, 2);

	return p ? (int16_t)get_le(p, 2) : -1;
}

int32_t msg_read_long(struct msg_buf *b)
{
	const uint8_t *p = take(b, 4);

	return p ? (int32_t)get_le(p, 4) : -1;
}

float msg_read_float(struct msg_buf *b)
{
	const uint8_t *p = take(b, 4);
	uint32_t bits;
	float f;

	if (!p)
		return 0.0f;
	bits = get_le(p, 4);
	memcpy(&f, &bits, sizeof(f));
	return f;
}

/* The scale factors are powers of two (and 45 / 8192), so these products
 * are exact: the same floats id's double arithmetic produced. */
float msg_read_coord(struct msg_buf *b)
{
	const uint8_t *p = take(b, 2);

	return p ? (int16_t)get_le(p, 2) * (1.0f / 8) : 0.0f;
}

float msg_read_angle(struct msg_buf *b)
{
	const uint8_t *p = take(b, 1);

	return p ? (int8_t)p[0] * (360.0f / 256) : 0.0f;
}

float msg_read_angle16(struct msg_buf *b)
{
	const uint8_t *p = take(b, 2);

	return p ? (int16_t)get_le(p, 2) * (360.0f / 65536) : 0.0f;
}

bool msg_skip(struct msg_buf *b, size_t len)
{
	return take(b, len) != NULL;
}

bool msg_read_data(struct msg_buf *b, void *out, size_t len)
{
	const uint8_t *p;

	if (len == 0)
		return !b->badread;
	p = take(b, len);
	if (!p)
		return false;
	memcpy(out, p, len);
	return true;
}

/* Shared by both string readers: copy up to a terminator, and consume
 * the rest of the string after out is full so the stream stays in step
 * with the sender.  The terminator is found with memchr, not byte by
 * byte: the load generator and the benches parse every obituary and
 * print of a crowd. */
static size_t read_until(struct msg_buf *b, char *out, size_t outsize,
			 bool stop_at_newline)
{
	size_t avail = msg_read_remaining(b), len, n = 0;
	const uint8_t *s = b->data + b->readpos;
	const uint8_t *end = avail ? memchr(s, 0, avail) : NULL;

	len = end ? (size_t)(end - s) : avail;
	if (stop_at_newline && len > 0) {
		const uint8_t *nl = memchr(s, '\n', len);

		if (nl) {
			end = nl;
			len = (size_t)(nl - s);
		}
	}
	if (outsize > 0) {
		n = len < outsize - 1 ? len : outsize - 1;
		memcpy(out, s, n);
		out[n] = '\0';
	}
	b->readpos += len + (end ? 1 : 0);
	if (!end)
		b->badread = true;
	return n;
}

size_t msg_read_string(struct msg_buf *b, char *out, size_t outsize)
{
	return read_until(b, out, outsize, false);
}

size_t msg_read_string_line(struct msg_buf *b, char *out, size_t outsize)
{
	return read_until(b, out, outsize, true);
}

/* ---- delta usercmd ---------------------------------------------------- */

static int usercmd_delta_bits(const struct usercmd *from,
			      const struct usercmd *to)
{
	int bits = 0;

	if (to->angles[0] != from->angles[0])
		bits |= CM_ANGLE1;
	if (to->angles[1] != from->angles[1])
		bits |= CM_ANGLE2;
	if (to->angles[2] != from->angles[2])
		bits |= CM_ANGLE3;
	if (to->forwardmove != from->forwardmove)
		bits |= CM_FORWARD;
	if (to->sidemove != from->sidemove)
		bits |= CM_SIDE;
	if (to->upmove != from->upmove)
		bits |= CM_UP;
	if (to->buttons != from->buttons)
		bits |= CM_BUTTONS;
	if (to->impulse != from->impulse)
		bits |= CM_IMPULSE;
	return bits;
}

uint8_t *msg_put_delta_usercmd(uint8_t *p, const struct usercmd *from,
			       const struct usercmd *to)
{
	int bits = usercmd_delta_bits(from, to);

	p = msg_put_byte(p, bits);
	if (bits & CM_ANGLE1)
		p = put_angle16(p, to->angles[0]);
	if (bits & CM_ANGLE2)
		p = put_angle16(p, to->angles[1]);
	if (bits & CM_ANGLE3)
		p = put_angle16(p, to->angles[2]);
	if (bits & CM_FORWARD)
		p = msg_put_short(p, to->forwardmove);
	if (bits & CM_SIDE)
		p = msg_put_short(p, to->sidemove);
	if (bits & CM_UP)
		p = msg_put_short(p, to->upmove);
	if (bits & CM_BUTTONS)
		p = msg_put_byte(p, to->buttons);
	if (bits & CM_IMPULSE)
		p = msg_put_byte(p, to->impulse);
	return msg_put_byte(p, to->msec);
}

void msg_write_delta_usercmd(struct msg_buf *b, const struct usercmd *from,
			     const struct usercmd *to)
{
	uint8_t scratch[MSG_DELTA_USERCMD_MAX];
	uint8_t *start = msg_record_begin(b, scratch, sizeof(scratch));

	msg_record_end(b, scratch, start, msg_put_delta_usercmd(start, from, to));
}

bool msg_read_delta_usercmd(struct msg_buf *b, const struct usercmd *from,
			    struct usercmd *out)
{
	/* work on a copy, so out may alias from */
	struct usercmd cmd = *from;
	int bits = msg_read_byte(b);

	if (bits < 0) {
		*out = *from;
		return false;
	}
	if (bits & CM_ANGLE1)
		cmd.angles[0] = msg_read_angle16(b);
	if (bits & CM_ANGLE2)
		cmd.angles[1] = msg_read_angle16(b);
	if (bits & CM_ANGLE3)
		cmd.angles[2] = msg_read_angle16(b);
	if (bits & CM_FORWARD)
		cmd.forwardmove = (int16_t)msg_read_short(b);
	if (bits & CM_SIDE)
		cmd.sidemove = (int16_t)msg_read_short(b);
	if (bits & CM_UP)
		cmd.upmove = (int16_t)msg_read_short(b);
	if (bits & CM_BUTTONS)
		cmd.buttons = (uint8_t)msg_read_byte(b);
	if (bits & CM_IMPULSE)
		cmd.impulse = (uint8_t)msg_read_byte(b);
	cmd.msec = (uint8_t)msg_read_byte(b);

	*out = b->badread ? *from : cmd;
	return !b->badread;
}
