/*
 * netchan.c -- QuakeWorld protocol 28 sequencing, either end of a link.
 *
 * Design note
 *   Every in-band packet starts with this header (little-endian words):
 *
 *     bits  field
 *     31    sequence of this packet
 *      1    this packet carries the reliable message
 *     31    acknowledge: the newest sequence received from the peer
 *      1    even/odd bit: flips each time a reliable message is received
 *     16    qport (client-to-server packets only)
 *
 *   and then the payload: the reliable message first (if carried), the
 *   unreliable data after it if it fits.  The receiver does not tell the
 *   two apart.
 *
 *   Invariants and rules (id's net_chan.c semantics):
 *   - A packet whose sequence is not newer than the newest accepted one is
 *     dropped (duplicate or out of order) and changes nothing; a gap in
 *     sequences is counted as loss but never stops a packet being used.
 *   - One reliable message is in flight at a time.  Its even/odd bit is
 *     reliable_sequence.  The peer has it once a packet arrives carrying our
 *     bit back; it was lost when the peer acknowledges a packet newer than
 *     the one that carried it with the old bit, and it is then sent again.
 *     Exactly-once follows: a packet older than one already accepted is
 *     never accepted, so the lost copy can never turn up later.
 *   - Reliable data queued meanwhile waits in `message`; if that overflows,
 *     the link cannot stay consistent and fatal_error is set.
 *
 *   Where this differs from id's code, and why:
 *   - Our sequences start at 1.  id's start at 0 and its receivers drop
 *     sequence 0 (it is not newer than the initial "newest" of 0), so an id
 *     client's first packet -- the reliable "new" -- is lost and resent a
 *     few frames later.  We accept any sequence, 0 included, as the first
 *     packet of a channel, and never send 0 ourselves: both work with id's
 *     ends and with ours, and the signon starts one round trip sooner.
 *   - last_reliable_sequence is the sequence of the packet that carried the
 *     reliable message (id stores the one after it, retransmitting one
 *     packet later than it needs to).
 *   - A packet acknowledging a sequence we never sent is rejected: that
 *     catches the leftovers of a previous connection from the same ip and
 *     qport.  And the reliable is taken as received only when the ack also
 *     covers the packet that carried it, so a forged header with the right
 *     bit but a low ack cannot cancel it.  Legitimate traffic never meets
 *     either case.
 *   - 0x7fffffff sequences take a year at 77 packets a second; the channel
 *     stops (fatal_error) before the reliable bit could make a header read
 *     as 0xffffffff, the connectionless marker.
 */
#include <qwd/net.h>

#include <string.h>

#define SEQ_MASK 0x7fffffffu
#define HIGH_BIT 0x80000000u

static size_t header_in(const struct netchan *chan)
{
	return chan->side == NETCHAN_SERVER ? NETCHAN_HEADER_QPORT
					    : NETCHAN_HEADER;
}

static size_t header_out(const struct netchan *chan)
{
	return chan->side == NETCHAN_CLIENT ? NETCHAN_HEADER_QPORT
					    : NETCHAN_HEADER;
}

void netchan_setup(struct netchan *chan, enum netchan_side side,
		   const struct net_addr *remote, uint16_t qport, double now)
{
	memset(chan, 0, sizeof(*chan));
	chan->side = side;
	chan->remote = *remote;
	chan->qport = qport;
	chan->last_received = now;
	chan->cleartime = now;
	chan->outgoing_sequence = 1;
	netchan_set_rate(chan, NETCHAN_DEFAULT_RATE);
	/* without allow_overflow an overflowed buffer keeps a clean prefix;
	   either way overflow is fatal at the next transmit */
	msg_init(&chan->message, chan->message_buf, sizeof(chan->message_buf));
}

void netchan_set_rate(struct netchan *chan, int bytes_per_second)
{
	if (bytes_per_second <= 0)
		bytes_per_second = NETCHAN_DEFAULT_RATE;
	if (bytes_per_second < NETCHAN_MIN_RATE)
		bytes_per_second = NETCHAN_MIN_RATE;
	if (bytes_per_second > NETCHAN_MAX_RATE)
		bytes_per_second = NETCHAN_MAX_RATE;
	chan->rate = 1.0 / bytes_per_second;
}

bool netchan_peek_qport(const struct msg_buf *msg, uint16_t *qport)
{
	if (msg->cursize < NETCHAN_HEADER_QPORT ||
	    msg->maxsize < NETCHAN_HEADER_QPORT)
		return false;
	*qport = (uint16_t)(msg->data[8] | msg->data[9] << 8);
	return true;
}

bool netchan_process(struct netchan *chan, struct msg_buf *msg, double now)
{
	uint32_t w1, w2, seq, ack, gap;
	uint8_t reliable, reliable_ack;

	msg_begin_reading(msg);
	if (msg->cursize < header_in(chan)) {
		chan->bad_count++;
		return false;
	}
	w1 = (uint32_t)msg_read_long(msg);
	w2 = (uint32_t)msg_read_long(msg);
	/* the server matched the qport before calling; skip it here */
	if (chan->side == NETCHAN_SERVER)
		msg_read_short(msg);
	seq = w1 & SEQ_MASK;
	ack = w2 & SEQ_MASK;
	reliable = (uint8_t)(w1 >> 31);
	reliable_ack = (uint8_t)(w2 >> 31);

	if (msg->badread || w1 == 0xffffffffu ||
	    ack >= chan->outgoing_sequence) {
		chan->bad_count++;
		msg_begin_reading(msg);
		return false;
	}
	if (chan->received_any && seq <= chan->incoming_sequence) {
		chan->stale_count++;
		msg_begin_reading(msg);
		return false;
	}

	/* the first packet sets the baseline: we cannot know where the peer
	   started counting (id at 0, ours at 1) */
	gap = chan->received_any ? seq - chan->incoming_sequence - 1 : 0;
	chan->dropped = gap;
	if (gap) {
		chan->drop_count++;
		chan->dropped_total += gap;
	}

	if (chan->reliable_length && reliable_ack == chan->reliable_sequence &&
	    ack >= chan->last_reliable_sequence)
		chan->reliable_length = 0;

	chan->incoming_sequence = seq;
	chan->incoming_acknowledged = ack;
	chan->incoming_reliable_acknowledged = reliable_ack;
	if (reliable)
		chan->incoming_reliable_sequence ^= 1;
	chan->received_any = true;
	chan->good_count++;
	chan->last_received = now;
	return true;
}

/* the peer acknowledged a packet newer than the one that carried the
   reliable message, and its even/odd bit says the message never came */
static bool reliable_lost(const struct netchan *chan)
{
	return chan->reliable_length &&
	       chan->incoming_acknowledged > chan->last_reliable_sequence &&
	       chan->incoming_reliable_acknowledged != chan->reliable_sequence;
}

size_t netchan_next_reliable(const struct netchan *chan)
{
	if (reliable_lost(chan))
		return chan->reliable_length;
	if (!chan->reliable_length)
		return chan->message.cursize;
	return 0;
}

size_t netchan_transmit(struct netchan *chan, const void *data, size_t len,
			double now, void *out, size_t out_max)
{
	struct msg_buf pkt;
	bool send_reliable;
	uint32_t w1, w2;

	if (out_max < NETCHAN_MAX_PACKET)
		return 0;
	if (chan->message.overflowed || chan->outgoing_sequence >= SEQ_MASK) {
		chan->fatal_error = true;
		return 0;
	}

	send_reliable = reliable_lost(chan);
	if (!chan->reliable_length && chan->message.cursize) {
		memcpy(chan->reliable_buf, chan->message_buf,
		       chan->message.cursize);
		chan->reliable_length = chan->message.cursize;
		msg_clear(&chan->message);
		chan->reliable_sequence ^= 1;
		send_reliable = true;
	}

	msg_init(&pkt, out, header_out(chan) + NET_MAX_DATAGRAM);
	w1 = chan->outgoing_sequence | (send_reliable ? HIGH_BIT : 0);
	w2 = chan->incoming_sequence |
	     ((uint32_t)chan->incoming_reliable_sequence << 31);
	msg_write_long(&pkt, (int32_t)w1);
	msg_write_long(&pkt, (int32_t)w2);
	if (chan->side == NETCHAN_CLIENT)
		msg_write_short(&pkt, chan->qport);
	if (send_reliable) {
		msg_write_data(&pkt, chan->reliable_buf, chan->reliable_length);
		chan->last_reliable_sequence = chan->outgoing_sequence;
	}
	if (len > pkt.maxsize - pkt.cursize)
		chan->unreliable_skipped++;
	else if (len)
		msg_write_data(&pkt, data, len);
	chan->outgoing_sequence++;
	netchan_charge(chan, pkt.cursize, now);
	return pkt.cursize;
}

void netchan_charge(struct netchan *chan, size_t len, double now)
{
	/* each byte costs `rate` seconds of the peer's bandwidth; idle time
	   is not banked: a quiet channel starts again from now */
	if (chan->cleartime < now)
		chan->cleartime = now + (double)len * chan->rate;
	else
		chan->cleartime += (double)len * chan->rate;
}

void netchan_refund(struct netchan *chan, size_t len, double now)
{
	chan->cleartime -= (double)len * chan->rate;
	if (chan->cleartime < now)
		chan->cleartime = now;
}

bool netchan_can_packet(const struct netchan *chan, double now)
{
	return chan->cleartime < now + NETCHAN_MAX_BACKUP * chan->rate;
}

bool netchan_can_reliable(const struct netchan *chan, double now)
{
	return chan->reliable_length == 0 && netchan_can_packet(chan, now);
}
