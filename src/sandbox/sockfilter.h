/* sockfilter.h — the sockets the jail may make: unix, netlink route, and of
 * the internet's TCP, UDP, ICMP and MPTCP; nothing else of the kernel's
 * protocol families and modules. */
#ifndef JAIL_SOCKFILTER_H
#define JAIL_SOCKFILTER_H
#include "config.h"

#include <linux/filter.h>
#include <stddef.h>

/* Write into out[0..cap) a classic-BPF prefix for the syscall filter: the
 * native ABI's socket(2) and socketpair(2) return EPERM for a family other
 * than AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK, for netlink with a protocol
 * other than NETLINK_ROUTE, and for AF_INET or AF_INET6 with a type (flags
 * masked off) other than SOCK_STREAM and SOCK_DGRAM or a protocol other than
 * 0, TCP, UDP, ICMP, ICMPv6 and MPTCP; every other syscall falls through
 * past the prefix.  Each call left out when cfg allows it back.  Returns the
 * number of instructions, or -1 when cap is too small. */
int sockfilter_prefix(const struct jail_config *cfg, struct sock_filter *out, size_t cap) WUR;
#endif
