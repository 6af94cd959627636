/* test_addrwatch.c — reading the host's new addresses from rtnetlink events
 * (here written by the test into a datagram socketpair, as the kernel would). */
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addrwatch.h"
#include "t.h"

/* One RTM_NEWADDR (or another type) with one address attribute. */
static size_t event(unsigned char *buf, uint16_t type, int family, unsigned prefix,
                    uint16_t attr, const char *addr)
{
	size_t alen = family == AF_INET ? 4 : 16;
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	memset(buf, 0, 256);
	h->nlmsg_type = type;
	h->nlmsg_len = (uint32_t)NLMSG_LENGTH(sizeof(struct ifaddrmsg) + RTA_LENGTH(alen));
	struct ifaddrmsg *ifa = NLMSG_DATA(h);
	ifa->ifa_family = (unsigned char)family;
	ifa->ifa_prefixlen = (unsigned char)prefix;
	struct rtattr *a = IFA_RTA(ifa);
	a->rta_type = attr;
	a->rta_len = (unsigned short)RTA_LENGTH(alen);
	inet_pton(family, addr, RTA_DATA(a));
	return NLMSG_ALIGN(h->nlmsg_len);
}

static const char *text(const struct nft_elem *el, char *buf)
{
	return inet_ntop(el->family, el->addr, buf, INET6_ADDRSTRLEN);
}

T(new_addresses_and_the_subnets_broadcast_and_anycast)
{
	int sv[2];
	CHECK_INT(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, sv), 0);
	unsigned char buf[1024];
	size_t len = event(buf, RTM_NEWADDR, AF_INET, 24, IFA_LOCAL, "12.34.56.1");
	len += event(buf + len, RTM_NEWADDR, AF_INET, 8, IFA_LOCAL, "127.0.0.2");  /* loopback */
	len += event(buf + len, RTM_DELADDR, AF_INET, 32, IFA_LOCAL, "12.34.56.9");
	CHECK(write(sv[1], buf, len) == (ssize_t)len);
	len = event(buf, RTM_NEWADDR, AF_INET6, 64, IFA_ADDRESS, "2001:db8::5");
	CHECK(write(sv[1], buf, len) == (ssize_t)len);
	struct nft_elem els[8];
	struct addr_prefix pre[4];
	size_t np;
	char a[INET6_ADDRSTRLEN];
	CHECK_INT((int)addrwatch_read(sv[0], els, 8, pre, 4, &np), 4);
	CHECK_STR(text(&els[0], a), "12.34.56.1");
	CHECK_STR(text(&els[1], a), "12.34.56.255");
	CHECK_STR(text(&els[2], a), "2001:db8::5");
	CHECK_STR(text(&els[3], a), "2001:db8::");  /* subnet-router anycast */
	CHECK(els[0].addr_only && els[2].addr_only);
	CHECK_INT((int)addrwatch_read(sv[0], els, 8, pre, 4, &np), 0);  /* nothing more queued */
	close(sv[0]);
	close(sv[1]);
}

T(an_event_past_the_room_stays_queued)
{
	int sv[2];
	CHECK_INT(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, sv), 0);
	unsigned char buf[256];
	size_t len = event(buf, RTM_NEWADDR, AF_INET, 24, IFA_LOCAL, "12.34.56.1");
	CHECK(write(sv[1], buf, len) == (ssize_t)len);
	len = event(buf, RTM_NEWADDR, AF_INET, 32, IFA_LOCAL, "12.34.57.1");
	CHECK(write(sv[1], buf, len) == (ssize_t)len);
	struct nft_elem els[3];
	struct addr_prefix pre[4];
	size_t np;
	char a[INET6_ADDRSTRLEN];
	CHECK_INT((int)addrwatch_read(sv[0], els, 3, pre, 4, &np), 2);  /* room for one event */
	CHECK_INT((int)addrwatch_read(sv[0], els, 3, pre, 4, &np), 1);
	CHECK_STR(text(&els[0], a), "12.34.57.1");
	CHECK_INT((int)addrwatch_read(sv[0], els, 3, pre, 4, &np), 0);
	close(sv[0]);
	close(sv[1]);
}

/* One RTM_NEWROUTE of a type and destination. */
static size_t route(unsigned char *buf, unsigned char type, int family, unsigned bits,
                    const char *dst)
{
	size_t alen = family == AF_INET ? 4 : 16;
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	memset(buf, 0, 256);
	h->nlmsg_type = RTM_NEWROUTE;
	h->nlmsg_len = (uint32_t)NLMSG_LENGTH(sizeof(struct rtmsg) + RTA_LENGTH(alen));
	struct rtmsg *r = NLMSG_DATA(h);
	r->rtm_family = (unsigned char)family;
	r->rtm_dst_len = (unsigned char)bits;
	r->rtm_type = type;
	struct rtattr *a = RTM_RTA(r);
	a->rta_type = RTA_DST;
	a->rta_len = (unsigned short)RTA_LENGTH(alen);
	inet_pton(family, dst, RTA_DATA(a));
	return NLMSG_ALIGN(h->nlmsg_len);
}

/* `ip route add local 12.34.61.7 dev lo` makes one address the host's,
 * on no interface: an element; a local route of a prefix, a prefix. */
T(new_local_routes_of_one_address_and_of_a_prefix)
{
	int sv[2];
	CHECK_INT(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, sv), 0);
	unsigned char buf[256];
	const struct { unsigned char type; int family; unsigned bits; const char *dst; } ev[] = {
		{RTN_LOCAL, AF_INET, 32, "12.34.61.7"},
		{RTN_UNICAST, AF_INET, 32, "12.34.62.7"},   /* a route out: not the host's */
		{RTN_LOCAL, AF_INET, 8, "127.0.0.0"},       /* loopback: the jail's own */
		{RTN_LOCAL, AF_INET6, 64, "2a0c:61::"},
		{RTN_ANYCAST, AF_INET6, 128, "2a0c:62::1"},
	};
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		size_t len = route(buf, ev[i].type, ev[i].family, ev[i].bits, ev[i].dst);
		CHECK(write(sv[1], buf, len) == (ssize_t)len);
	}
	struct nft_elem els[8];
	struct addr_prefix pre[4];
	size_t np;
	char a[INET6_ADDRSTRLEN];
	CHECK_INT((int)addrwatch_read(sv[0], els, 8, pre, 4, &np), 2);
	CHECK_STR(text(&els[0], a), "12.34.61.7");
	CHECK_STR(text(&els[1], a), "2a0c:62::1");
	CHECK(els[0].addr_only && els[1].addr_only);
	CHECK_INT((int)np, 1);
	CHECK_STR(inet_ntop(AF_INET6, pre[0].addr, a, sizeof(a)), "2a0c:61::");
	CHECK_INT((int)pre[0].bits, 64);
	CHECK_INT((int)addrwatch_read(sv[0], els, 8, pre, 4, &np), 0);
	CHECK_INT((int)np, 0);
	close(sv[0]);
	close(sv[1]);
}
