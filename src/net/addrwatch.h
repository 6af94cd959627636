/* addrwatch.h — the host's addresses as it takes them, for --net open.
 *
 * Open mode's ruleset closes the host's own addresses (net.c): the list read
 * at the start misses one the host takes later (a VPN, a docker network made
 * meanwhile, a DHCP lease), where a server bound to 0.0.0.0 answers too.  The
 * supervisor subscribes to the kernel's address and route events (rtnetlink)
 * before it reads that list, so nothing falls between the two, and closes
 * each new address, and each new local route's, as it comes. */
#ifndef JAIL_ADDRWATCH_H
#define JAIL_ADDRWATCH_H
#include <stddef.h>

#include "nft.h"
#include "util.h"

/* A non-blocking, close-on-exec rtnetlink socket of the current network
 * namespace, subscribed to new IPv4 and IPv6 addresses and routes. */
int addrwatch_open(struct jail_err *e) WUR;
/* What the host takes as its own beyond its interfaces' addresses: a
 * "local" or "anycast" route, in any table, of a prefix (AnyIP: `ip route
 * add local 198.51.100.0/24 dev lo`, a proxy's or an anycast service's) or
 * of one address (`ip route add local 198.51.100.7 dev lo`); a server bound
 * to 0.0.0.0 or :: answers at each address of it.  Loopback's left out (the
 * jail's own).  The address masked; bits 32 or 128: one address. */
struct addr_prefix {
	int family;
	unsigned char addr[16];
	unsigned bits;
};
/* Every such route now (each address's own route among them), up to max
 * into out; returns how many, or -1 with errno when the kernel cannot be
 * asked. */
int addrwatch_prefixes(struct addr_prefix *out, size_t max);

/* What is queued on fd: each new address (loopback ones left out) and its
 * subnet's broadcast (IPv4) or subnet-router anycast address (IPv6), and
 * each new local route of one address, as addr_only elements into els (at
 * most max); each new local route of a prefix into pre (at most max_pre,
 * how many in *n_pre).  The events past that stay queued: call again until
 * it returns 0 with *n_pre 0.  Returns how many elements.  When the kernel
 * dropped events, every address and local route the host has now instead. */
size_t addrwatch_read(int fd, struct nft_elem *els, size_t max, struct addr_prefix *pre,
                      size_t max_pre, size_t *n_pre);
#endif
