/* hostlisten.h — which loopback family of the host has a server on a port.
 *
 * host.jail.internal names the helper's gateway, which pasta maps to the
 * host's 127.0.0.1 (IPv4) and ::1 (IPv6).  Most local servers listen on one
 * family only, and pasta does not refuse a connection that the host refuses:
 * the jail's SYN to the other family goes unanswered.  A client that tries
 * IPv6 first then waits (curl 200 ms per connection, others until their
 * connect timeout), so the resolver answers only the families that have a
 * listener.  They are read from the kernel's socket tables (sock_diag over
 * netlink, listeners only: /proc/net/tcp walks every connection and costs
 * milliseconds); no packet is sent and the server sees nothing. */
#ifndef JAIL_HOSTLISTEN_H
#define JAIL_HOSTLISTEN_H
#include <stddef.h>
#include <stdint.h>

enum { HOSTLISTEN_V4 = 1, HOSTLISTEN_V6 = 2 };

/* The families a socket bound to addr (AF_INET: 4 bytes, AF_INET6: 16)
 * serves from the host's loopback: 127.0.0.1 and 0.0.0.0 IPv4, ::1 IPv6, ::
 * both (dual-stack unless IPV6_V6ONLY, which the tables do not show),
 * ::ffff:127.0.0.1 IPv4; any other address neither.  Pure. */
unsigned hostlisten_match(int family, const unsigned char *addr);
/* The families with a TCP listener or an unconnected UDP socket on one of
 * ports in this network namespace, in *found (0: none); -1 with errno when the
 * tables cannot be read. */
int hostlisten_families(const uint16_t *ports, size_t n, unsigned *found);
#endif
