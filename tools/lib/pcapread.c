/*
 * pcapread.c -- the IPv4/UDP datagrams of a packet capture.
 *
 * Design note
 *   libpcap reads the file (pcap_open_offline: tcpdump -w output, pcapng,
 *   qwd's own DLT_RAW captures); each record is unwrapped by hand, every
 *   offset checked against the captured length before it is read:
 *   link header -> IPv4 (version 4, header length >= 20, not a fragment,
 *   protocol 17) -> UDP (length >= 8 and within the IPv4 total length).
 *   QuakeWorld datagrams never need fragments, so fragments are not
 *   reassembled but refused.  A datagram cut by the snap length is still
 *   a datagram: its real length comes from the UDP header and caplen says
 *   how much of it is there, so a reader counts it and does not walk it.
 */
#include "qwtools.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* offset of the IPv4 header in a frame, or -1 (not IPv4, too short) */
static long link_offset(int dlt, const uint8_t *p, size_t caplen)
{
	size_t off;
	uint16_t type;

	switch (dlt) {
	case DLT_EN10MB:
		off = 12;
		for (;;) {
			if (caplen < off + 2)
				return -1;
			type = be16(p + off);
			if (type != 0x8100 && type != 0x88a8)
				break;
			off += 4;	/* an 802.1Q or 802.1ad tag */
		}
		return type == 0x0800 ? (long)(off + 2) : -1;
	case DLT_LINUX_SLL:	/* 16 bytes, protocol at 14 */
		return caplen >= 16 && be16(p + 14) == 0x0800 ? 16 : -1;
	case DLT_LINUX_SLL2:	/* 20 bytes, protocol first */
		return caplen >= 20 && be16(p) == 0x0800 ? 20 : -1;
	case DLT_NULL:
	case DLT_LOOP:
		/* a 4-byte address family, host order (NULL) or network
		 * order (LOOP); AF_INET is 2 everywhere */
		if (caplen < 4)
			return -1;
		return (p[0] == 2 && p[3] == 0) || (p[0] == 0 && p[3] == 2) ? 4 : -1;
	case DLT_RAW:
	case DLT_IPV4:
		return 0;
	default:
		return -1;
	}
}

bool qwt_frame_udp(int dlt, const uint8_t *p, size_t caplen,
		   struct qwt_udp *u)
{
	long off = link_offset(dlt, p, caplen);
	size_t ihl, total, ulen, have;
	const uint8_t *ip, *udp;

	if (off < 0 || caplen < (size_t)off + 20)
		return false;
	ip = p + off;
	have = caplen - (size_t)off;
	if ((ip[0] >> 4) != 4)
		return false;
	ihl = (size_t)(ip[0] & 15) * 4;
	total = be16(ip + 2);
	if (ihl < 20 || total < ihl + 8 || have < ihl + 8)
		return false;	/* short, or the UDP header was not captured */
	if ((be16(ip + 6) & 0x3fff) != 0 || ip[9] != 17)
		return false;	/* a fragment, or not UDP */
	udp = ip + ihl;
	ulen = be16(udp + 4);
	if (ulen < 8 || ihl + ulen > total)
		return false;
	memcpy(&u->src.ip, ip + 12, 4);
	memcpy(&u->dst.ip, ip + 16, 4);
	memcpy(&u->src.port, udp, 2);
	memcpy(&u->dst.port, udp + 2, 2);
	u->data = udp + 8;
	u->len = ulen - 8;
	/* what the snap length left of the payload */
	have -= ihl + 8;
	u->caplen = have < u->len ? have : u->len;
	return true;
}

int qwt_pcap_open(struct qwt_pcap *r, const char *path, char *err,
		  size_t errsize)
{
	char perr[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, perr);

	memset(r, 0, sizeof(*r));
	if (!pc) {
		snprintf(err, errsize, "%s: %s", path, perr);
		return -1;
	}
	r->pc = pc;
	r->path = path;
	r->dlt = pcap_datalink(pc);
	return 0;
}

int qwt_pcap_next(struct qwt_pcap *r, struct qwt_udp *u, bool *is_udp,
		  double *t, char *err, size_t errsize)
{
	struct pcap_pkthdr *h;
	const u_char *p;
	int rc = pcap_next_ex(r->pc, &h, &p);

	if (rc == PCAP_ERROR) {
		snprintf(err, errsize, "%s: %s", r->path, pcap_geterr(r->pc));
		return -1;
	}
	if (rc != 1)
		return 0;	/* PCAP_ERROR_BREAK: the end of the file */
	*t = (double)h->ts.tv_sec + (double)h->ts.tv_usec * 1e-6;
	*is_udp = qwt_frame_udp(r->dlt, p, h->caplen, u);
	return 1;
}

void qwt_pcap_close(struct qwt_pcap *r)
{
	if (r->pc)
		pcap_close(r->pc);
	r->pc = NULL;
}
