/* addrclass.h — which addresses a DNS answer may open.  An answer from
 * upstream must never open the host, the network helper, loopback, the LAN or
 * any other special-purpose space (the IANA IPv4 and IPv6 Special-Purpose
 * Address Registries, plus multicast and reserved space); those are reachable
 * only when the allowlist names them by address.  Pure code, no syscalls. */
#ifndef JAIL_ADDRCLASS_H
#define JAIL_ADDRCLASS_H
#include <stdbool.h>

enum addr_class {
	ADDR_PUBLIC = 0,     /* may be opened */
	ADDR_UNSPECIFIED,
	ADDR_THIS_NETWORK,   /* 0/8 */
	ADDR_LOOPBACK,
	ADDR_PRIVATE,        /* RFC 1918, fc00::/7 */
	ADDR_SHARED,         /* 100.64/10, carrier-grade NAT */
	ADDR_LINK_LOCAL,
	ADDR_SITE_LOCAL,     /* fec0::/10 */
	ADDR_MULTICAST,
	ADDR_BROADCAST,
	ADDR_DOCUMENTATION,
	ADDR_BENCHMARKING,
	ADDR_RESERVED,
	ADDR_SPECIAL,        /* the rest of the special-purpose registries */
	ADDR_DISCARD,        /* 100::/64 */
	ADDR_TEREDO,
	ADDR_MAPPED,         /* ::ffff:a.b.c.d of a public address */
	ADDR_COMPATIBLE,     /* ::a.b.c.d of a public address */
};

/* The class of an AF_INET (4 bytes) or AF_INET6 (16 bytes) address.  IPv6
 * spellings of an IPv4 address (mapped, compatible, NAT64 64:ff9b::/96,
 * 6to4) get the class of that IPv4 address when it is not public. */
enum addr_class addr_classify(int family, const unsigned char *addr);
/* A short name for messages: "private", "loopback", ... */
const char *addr_class_name(enum addr_class c);
/* The IPv4 address an IPv6 address spells, if it does (IPv4-mapped,
 * IPv4-compatible, NAT64 well-known prefix, 6to4). */
bool addr_embedded_v4(const unsigned char v6[16], unsigned char v4[4]);
#endif
