/* nflog.h — the denied-connection log: the ruleset's "log group N" sends each
 * rejected packet's headers to an NFLOG netlink socket; the supervisor reads
 * them and says what was blocked. */
#ifndef JAIL_NFLOG_H
#define JAIL_NFLOG_H
#include <stdint.h>

#include "util.h"

struct nflog_conn {
	int family;              /* AF_INET or AF_INET6 */
	uint8_t proto;           /* IPPROTO_TCP or IPPROTO_UDP */
	unsigned char daddr[16];
	uint16_t dport;          /* host order */
};

/* init (with CAP_NET_ADMIN over the netns): a NETLINK_NETFILTER socket bound
 * to NFLOG group, copying the first 128 bytes of each packet. */
int nflog_open(uint16_t group, struct jail_err *e) WUR;

/* Pure: the TCP/UDP destination of a logged packet (an IPv4 or IPv6 header
 * and what follows).  -1 for anything else (ICMP, fragments, short). */
int nflog_parse_packet(int family, const unsigned char *pkt, size_t len,
                       struct nflog_conn *out) WUR;

/* Pure: walk one buffer of netlink messages from the NFLOG socket and call fn
 * for each TCP/UDP packet in it. */
void nflog_each(const void *buf, size_t len, void (*fn)(const struct nflog_conn *, void *),
                void *arg);
#endif
