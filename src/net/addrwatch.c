/* addrwatch.c — the host's addresses as it takes them (see addrwatch.h).
 * Plain rtnetlink, no library: the messages are a header and attributes. */
#include "addrwatch.h"

#include "addrclass.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

int addrwatch_open(struct jail_err *e)
{
	_cleanup_close_ int fd =
		socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	if (fd < 0)
		return jail_err_sys(e, "open a netlink socket for the host's new addresses");
	/* and to routes: a "local" route makes addresses the host's that no
	 * interface lists (take_route) */
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK,
	                         .nl_groups = RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR |
	                                      RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE};
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return jail_err_sys(e, "listen for the host's new addresses");
	return steal_fd(&fd);
}

/* Append family/addr (and, for IPv4 under a /31, its subnet's broadcast). */
static size_t add(struct nft_elem *els, size_t k, size_t max, int family, const void *addr,
                  unsigned prefix)
{
	if (k >= max || addr_classify(family, addr) == ADDR_LOOPBACK)
		return k;
	struct nft_elem *el = &els[k++];
	memset(el, 0, sizeof(*el));
	el->family = family;
	el->addr_only = true;
	memcpy(el->addr, addr, family == AF_INET ? 4 : 16);
	if (family == AF_INET6 && prefix < 128 && k < max) {
		/* its prefix's subnet-router anycast address */
		unsigned char any[16] = {0};
		memcpy(any, addr, prefix / 8);
		if (prefix % 8)
			any[prefix / 8] = (unsigned char)(((const unsigned char *)addr)[prefix / 8] &
			                                  (0xff << (8 - prefix % 8)));
		return add(els, k, max, AF_INET6, any, 128);
	}
	if (family != AF_INET || prefix >= 31 || k >= max)
		return k;
	uint32_t a, mask = prefix ? htonl(~0u << (32 - prefix)) : 0;
	memcpy(&a, addr, 4);
	a |= ~mask;
	return add(els, k, max, AF_INET, &a, 32);
}

/* The kernel dropped events (ENOBUFS): every address the host has now. */
static size_t list_all(struct nft_elem *els, size_t max)
{
	struct ifaddrs *ifs = NULL;
	size_t k = 0;
	if (getifaddrs(&ifs) < 0)
		return 0;
	for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
		if (!i->ifa_addr || !i->ifa_netmask)
			continue;
		if (i->ifa_addr->sa_family == AF_INET) {
			struct in_addr m = ((struct sockaddr_in *)i->ifa_netmask)->sin_addr;
			unsigned prefix = (unsigned)__builtin_popcount(m.s_addr);
			k = add(els, k, max, AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr,
			        prefix);
		} else if (i->ifa_addr->sa_family == AF_INET6) {
			const unsigned char *m =
				((struct sockaddr_in6 *)i->ifa_netmask)->sin6_addr.s6_addr;
			unsigned prefix = 0;
			for (int b = 0; b < 16; b++)
				prefix += (unsigned)__builtin_popcount(m[b]);
			k = add(els, k, max, AF_INET6,
			        &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, prefix);
		}
	}
	freeifaddrs(ifs);
	return k;
}

/* One RTM_NEWADDR: its local address (IPv4: IFA_LOCAL, the address of a
 * point-to-point link too; IPv6: IFA_ADDRESS). */
static size_t new_addr(const struct nlmsghdr *h, struct nft_elem *els, size_t k, size_t max)
{
	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifaddrmsg)))
		return k;
	const struct ifaddrmsg *ifa = NLMSG_DATA(h);
	size_t alen = ifa->ifa_family == AF_INET ? 4 : ifa->ifa_family == AF_INET6 ? 16 : 0;
	const void *local = NULL, *address = NULL;
	int len = (int)IFA_PAYLOAD(h);
	for (const struct rtattr *a = IFA_RTA(ifa); alen && RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (RTA_PAYLOAD(a) != alen)
			continue;
		if (a->rta_type == IFA_LOCAL)
			local = RTA_DATA(a);
		else if (a->rta_type == IFA_ADDRESS)
			address = RTA_DATA(a);
	}
	const void *mine = ifa->ifa_family == AF_INET && local ? local : address;
	return mine ? add(els, k, max, ifa->ifa_family, mine, ifa->ifa_prefixlen) : k;
}

/* One route (of a dump or an event): a local or anycast one, of a prefix
 * (AnyIP) or of one address (a /32 or /128: AnyIP of one address, or an
 * address's own route, already listed). */
static size_t take_route(const struct nlmsghdr *h, struct addr_prefix *out, size_t k, size_t max)
{
	if (h->nlmsg_type != RTM_NEWROUTE || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg)))
		return k;
	const struct rtmsg *r = NLMSG_DATA(h);
	size_t alen = r->rtm_family == AF_INET ? 4 : r->rtm_family == AF_INET6 ? 16 : 0;
	if (!alen || r->rtm_dst_len > alen * 8 || k >= max ||
	    (r->rtm_type != RTN_LOCAL && r->rtm_type != RTN_ANYCAST))
		return k;
	unsigned char dst[16] = {0};
	int len = (int)RTM_PAYLOAD(h);
	for (const struct rtattr *a = RTM_RTA(r); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == RTA_DST && RTA_PAYLOAD(a) == alen)
			memcpy(dst, RTA_DATA(a), alen);
	for (size_t i = 0; i < alen; i++) { /* the masked prefix */
		unsigned keep = r->rtm_dst_len > 8 * i ? r->rtm_dst_len - 8 * i : 0;
		dst[i] &= keep >= 8 ? 0xff : (unsigned char)(0xff << (8 - keep));
	}
	if (addr_classify(r->rtm_family, dst) == ADDR_LOOPBACK)
		return k;
	out[k] = (struct addr_prefix){.family = r->rtm_family, .bits = r->rtm_dst_len};
	memcpy(out[k].addr, dst, alen);
	return k + 1;
}

/* One family's routes, every table (a dump answers them all). */
static int dump_prefixes(int family, struct addr_prefix *out, size_t *k, size_t max)
{
	_cleanup_close_ int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	struct {
		struct nlmsghdr h;
		struct rtmsg r;
	} req = {
		.h = {.nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETROUTE,
		      .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP},
		.r = {.rtm_family = (unsigned char)family},
	};
	struct timeval tv = {.tv_sec = 1};
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    send(fd, &req, sizeof(req), 0) < 0)
		return -1;
	static __thread union {
		struct nlmsghdr h;
		char buf[32768];
	} u;
	for (;;) {
		ssize_t n = recv(fd, &u, sizeof(u), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		int left = (int)n;
		for (struct nlmsghdr *h = &u.h; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				errno = EPROTO;
				return -1;
			}
			*k = take_route(h, out, *k, max);
		}
	}
}

int addrwatch_prefixes(struct addr_prefix *out, size_t max)
{
	size_t k = 0;
	if (dump_prefixes(AF_INET, out, &k, max) < 0 || dump_prefixes(AF_INET6, out, &k, max) < 0)
		return -1;
	return (int)k;
}

/* A route taken into pre[*n_pre]: one address becomes an element (as
 * an address does), a prefix stays in pre. */
static size_t route_elem(struct nft_elem *els, size_t k, size_t max, struct addr_prefix *pre,
                         size_t *n_pre)
{
	struct addr_prefix *p = &pre[*n_pre];
	if (p->bits < (p->family == AF_INET ? 32u : 128u)) {
		(*n_pre)++;
		return k;
	}
	if (k >= max)
		return k;
	struct nft_elem *el = &els[k++];
	memset(el, 0, sizeof(*el));
	el->family = p->family;
	el->addr_only = true;
	memcpy(el->addr, p->addr, p->family == AF_INET ? 4 : 16);
	return k;
}

/* The kernel dropped events (ENOBUFS): every address and local route the
 * host has now (the routes of one address are most of a dump: read into a
 * list of their own, so that they do not crowd the prefixes out of pre). */
#define DUMP_MAX 4096
static size_t list_everything(struct nft_elem *els, size_t max, struct addr_prefix *pre,
                              size_t max_pre, size_t *n_pre)
{
	size_t k = list_all(els, max);
	_cleanup_free_ struct addr_prefix *all = calloc(DUMP_MAX, sizeof(*all));
	int got = all ? addrwatch_prefixes(all, DUMP_MAX) : -1;
	for (int i = 0; i < got && *n_pre < max_pre; i++) {
		pre[*n_pre] = all[i];
		k = route_elem(els, k, max, pre, n_pre);
	}
	return k;
}

size_t addrwatch_read(int fd, struct nft_elem *els, size_t max, struct addr_prefix *pre,
                      size_t max_pre, size_t *n_pre)
{
	union {
		struct nlmsghdr h;
		char buf[8192];
	} u;
	size_t k = 0;
	*n_pre = 0;
	/* an event makes at most two elements, or one prefix: one that may not
	 * fit stays queued for the next call */
	while (k + 2 <= max && *n_pre < max_pre) {
		ssize_t n = recv(fd, &u, sizeof(u), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS)
			return list_everything(els, max, pre, max_pre, n_pre);
		if (n <= 0)
			return k;
		int left = (int)n;
		for (struct nlmsghdr *h = &u.h; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_type == RTM_NEWADDR)
				k = new_addr(h, els, k, max);
			else if (take_route(h, pre, *n_pre, max_pre) > *n_pre)
				k = route_elem(els, k, max, pre, n_pre);
		}
	}
	return k;
}
