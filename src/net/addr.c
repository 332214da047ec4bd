/*
 * addr.c -- IPv4 endpoints: compare, format, parse, resolve.
 *
 * Design note
 *   A struct net_addr holds the ip and port in network byte order, exactly
 *   as a sockaddr_in does, so the hot path (every received packet) converts
 *   by copying two fields and compares two integers.  QuakeWorld matches a
 *   connected client by ip and qport rather than ip and port (a NAT may
 *   move the port mid-game), hence net_addr_equal_ip.
 *
 *   Parsing is strict: four decimal octets (inet_pton's AF_INET form, which
 *   refuses octal and short forms) and an optional decimal port with no
 *   sign.  net_addr_parse never blocks; net_addr_resolve falls back to
 *   getaddrinfo for names and may block on DNS, so it is for start-up.
 *   A fuzzing build resolves numeric addresses only (no DNS wait per input).
 */
#include <qwd/net.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

bool net_addr_equal(const struct net_addr *a, const struct net_addr *b)
{
	return a->ip == b->ip && a->port == b->port;
}

bool net_addr_equal_ip(const struct net_addr *a, const struct net_addr *b)
{
	return a->ip == b->ip;
}

char *net_addr_format(const struct net_addr *a, char out[NET_ADDR_STRLEN])
{
	const uint8_t *ip = (const uint8_t *)&a->ip;

	snprintf(out, NET_ADDR_STRLEN, "%u.%u.%u.%u:%u", ip[0], ip[1], ip[2],
		 ip[3], (unsigned)ntohs(a->port));
	return out;
}

void net_addr_to_sockaddr(const struct net_addr *a, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = a->ip;
	sa->sin_port = a->port;
}

void net_addr_from_sockaddr(const struct sockaddr_in *sa, struct net_addr *a)
{
	a->ip = sa->sin_addr.s_addr;
	a->port = sa->sin_port;
}

/* Decimal 0..65535, digits only, at least one. */
static bool parse_port(const char *s, uint16_t *port)
{
	unsigned long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > 65535)
			return false;
	}
	*port = (uint16_t)v;
	return true;
}

/* Split "host[:port]" into host (copied into a bounded buffer) and a host
 * order port.  A second ':' (an IPv6 literal) fails as a bad port. */
static bool split_host_port(const char *s, uint16_t default_port, char *host,
			    size_t hostsize, uint16_t *port)
{
	const char *colon = strchr(s, ':');
	size_t hlen = colon ? (size_t)(colon - s) : strlen(s);

	if (hlen == 0 || hlen >= hostsize)
		return false;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	if (!colon) {
		*port = default_port;
		return true;
	}
	return parse_port(colon + 1, port);
}

bool net_addr_parse(const char *s, uint16_t default_port, struct net_addr *out)
{
	char host[16]; /* "255.255.255.255" and its NUL */
	uint16_t port;
	struct in_addr in;

	if (!s || !split_host_port(s, default_port, host, sizeof(host), &port))
		return false;
	if (inet_pton(AF_INET, host, &in) != 1)
		return false;
	out->ip = in.s_addr;
	out->port = htons(port);
	return true;
}

bool net_addr_resolve(const char *s, uint16_t default_port,
		      struct net_addr *out, char *err, size_t errsize)
{
	char host[256];
	uint16_t port;
	struct addrinfo hints, *res = NULL;
	struct sockaddr_in sa;
	int rc;

	if (net_addr_parse(s, default_port, out))
		return true;
	if (!s || !split_host_port(s, default_port, host, sizeof(host), &port)) {
		snprintf(err, errsize, "bad address \"%s\" (want host[:port])",
			 s ? s : "(null)");
		return false;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_DGRAM;
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	hints.ai_flags = AI_NUMERICHOST;
#endif
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc != 0 || !res || res->ai_addrlen < sizeof(sa)) {
		snprintf(err, errsize, "cannot resolve \"%s\": %s", host,
			 rc ? gai_strerror(rc) : "no IPv4 address");
		if (res)
			freeaddrinfo(res);
		return false;
	}
	memcpy(&sa, res->ai_addr, sizeof(sa));
	freeaddrinfo(res);
	out->ip = sa.sin_addr.s_addr;
	out->port = htons(port);
	return true;
}
