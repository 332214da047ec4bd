/*
 * src/net/internal.h -- what the net module's files share and nobody
 * else calls.
 *
 * Design note
 *   A send batch bound to an io_uring (uring.c) is flushed by udp.c's
 *   net_send_flush and refilled through net_send_slot; these two are the
 *   ring's side of that, kept out of qwd/net.h because only udp.c calls
 *   them.
 */
#ifndef QWD_NET_INTERNAL_H
#define QWD_NET_INTERNAL_H

#include <qwd/net.h>

/* Turn the batch's datagrams into sendmsg requests in its ring (not yet
 * submitted); returns how many were queued.  The buffers stay the ring's
 * until they complete (b->inflight). */
size_t net_uring_queue(struct net_send_batch *b);
/* Submit and wait until none of the batch's sends is in flight. */
void net_uring_settle(struct net_send_batch *b);

#endif
