/* addrwatch.h — the host's addresses as it takes them, for --net open.
 *
 * Open mode's ruleset closes the host's own addresses (net.c): the list read
 * at the start misses one the host takes later (a VPN, a docker network made
 * meanwhile, a DHCP lease), where a server bound to 0.0.0.0 answers too.  The
 * supervisor subscribes to the kernel's address events (rtnetlink) before it
 * reads that list, so nothing falls between the two, and closes each new
 * address as it comes. */
#ifndef JAIL_ADDRWATCH_H
#define JAIL_ADDRWATCH_H
#include <stddef.h>

#include "nft.h"
#include "util.h"

/* A non-blocking, close-on-exec rtnetlink socket of the current network
 * namespace, subscribed to new IPv4 and IPv6 addresses. */
int addrwatch_open(struct jail_err *e) WUR;
/* What is queued on fd: each new address (loopback ones left out) and its
 * subnet's broadcast (IPv4) or subnet-router anycast address (IPv6), as
 * addr_only elements into els (at most max; the events past that stay
 * queued: call again until it returns 0); returns how many.  When the
 * kernel dropped events, every address the host has now instead. */
size_t addrwatch_read(int fd, struct nft_elem *els, size_t max);

/* A prefix the host takes in whole, beyond its addresses: a "local" or
 * "anycast" route of more than one address (AnyIP: `ip route add local
 * 198.51.100.0/24 dev lo`, a proxy's or an anycast service's), in any table;
 * a server bound to 0.0.0.0 or :: answers at each address of it.  Loopback's
 * left out (the jail's own).  Up to max into out, the address masked;
 * returns how many, or -1 with errno when the kernel cannot be asked. */
struct addr_prefix {
	int family;
	unsigned char addr[16];
	unsigned bits;
};
int addrwatch_prefixes(struct addr_prefix *out, size_t max);
#endif
