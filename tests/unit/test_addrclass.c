/* test_addrclass.c — which addresses a DNS answer may open: every special
 * range, every spelling that embeds an IPv4 address, and public addresses
 * that must pass. */
#include <arpa/inet.h>
#include <sys/socket.h>

#include "addrclass.h"
#include "t.h"

static const char *cls(const char *text)
{
	unsigned char a[16];
	int family = strchr(text, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(family, text, a) != 1)
		return "(bad test address)";
	enum addr_class c = addr_classify(family, a);
	return c == ADDR_PUBLIC ? "public" : addr_class_name(c);
}

#define EXPECT(addr, name) CHECK_STR(cls(addr), name)

T(ipv4_special_ranges)
{
	EXPECT("0.0.0.0", "unspecified");
	EXPECT("0.1.2.3", "this network");
	EXPECT("10.0.0.1", "private");
	EXPECT("10.255.255.255", "private");
	EXPECT("100.64.0.1", "shared");
	EXPECT("100.127.255.254", "shared");
	EXPECT("127.0.0.1", "loopback");
	EXPECT("127.255.1.2", "loopback");
	EXPECT("169.254.169.254", "link-local");
	EXPECT("172.16.0.1", "private");
	EXPECT("172.31.255.255", "private");
	EXPECT("192.0.0.9", "special-purpose");
	EXPECT("192.0.2.1", "documentation");
	EXPECT("192.31.196.1", "special-purpose");
	EXPECT("192.52.193.1", "special-purpose");
	EXPECT("192.88.99.1", "special-purpose");
	EXPECT("192.168.1.1", "private");
	EXPECT("192.175.48.1", "special-purpose");
	EXPECT("198.18.0.1", "benchmarking");
	EXPECT("198.19.255.255", "benchmarking");
	EXPECT("198.51.100.7", "documentation");
	EXPECT("203.0.113.7", "documentation");
	EXPECT("224.0.0.1", "multicast");
	EXPECT("239.255.255.250", "multicast");
	EXPECT("240.0.0.1", "reserved");
	EXPECT("255.255.255.254", "reserved");
	EXPECT("255.255.255.255", "broadcast");
}

T(ipv4_edges_and_public_pass)
{
	EXPECT("1.1.1.1", "public");
	EXPECT("8.8.8.8", "public");
	EXPECT("9.255.255.255", "public");   /* just below 10/8 */
	EXPECT("11.0.0.0", "public");        /* just above */
	EXPECT("100.63.255.255", "public");  /* below 100.64/10 */
	EXPECT("100.128.0.0", "public");     /* above */
	EXPECT("172.15.255.255", "public");
	EXPECT("172.32.0.0", "public");
	EXPECT("192.0.1.1", "public");
	EXPECT("192.167.255.255", "public");
	EXPECT("198.17.255.255", "public");
	EXPECT("198.20.0.0", "public");
	EXPECT("223.255.255.255", "public");
	EXPECT("140.82.112.3", "public");
}

T(ipv6_special_ranges)
{
	EXPECT("::", "unspecified");
	EXPECT("::1", "loopback");
	EXPECT("fc00::1", "private");
	EXPECT("fd12:3456::1", "private");
	EXPECT("fe80::1", "link-local");
	EXPECT("febf::1", "link-local");
	EXPECT("fec0::1", "site-local");
	EXPECT("feff::1", "site-local");
	EXPECT("ff02::1", "multicast");
	EXPECT("ff0e::101", "multicast");
	EXPECT("100::1", "discard-only");
	EXPECT("100:0:0:1::1", "special-purpose");
	EXPECT("2001::1", "Teredo");
	EXPECT("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo");
	EXPECT("2001:1::1", "special-purpose");
	EXPECT("2001:2::1", "benchmarking");
	EXPECT("2001:10::1", "special-purpose");
	EXPECT("2001:1ff::1", "special-purpose");
	EXPECT("2001:db8::1", "documentation");
	EXPECT("2001:db8:ffff::1", "documentation");
	EXPECT("3fff::1", "documentation");
	EXPECT("3fff:fff::1", "documentation");
	EXPECT("2620:4f:8000::1", "special-purpose");
	EXPECT("5f00::1", "reserved");
	EXPECT("4000::1", "reserved");
	EXPECT("1::1", "reserved");
	EXPECT("64:ff9b:1::1", "special-purpose");
	EXPECT("::ffff:0:1.2.3.4", "reserved");  /* SIIT IPv4-translated */
}

T(ipv4_embedded_in_ipv6_is_judged_as_ipv4)
{
	/* IPv4-mapped */
	EXPECT("::ffff:127.0.0.1", "loopback");
	EXPECT("::ffff:7f00:1", "loopback");
	EXPECT("::ffff:10.1.2.3", "private");
	EXPECT("::ffff:169.254.169.254", "link-local");
	EXPECT("::ffff:8.8.8.8", "IPv4-mapped");  /* never through the IPv6 set */
	/* IPv4-compatible (deprecated) */
	EXPECT("::127.0.0.1", "loopback");
	EXPECT("::192.168.0.1", "private");
	EXPECT("::8.8.8.8", "IPv4-compatible");
	EXPECT("::2", "this network");
	/* NAT64, well-known prefix: public IPv4 passes, the rest is refused */
	EXPECT("64:ff9b::127.0.0.1", "loopback");
	EXPECT("64:ff9b::7f00:1", "loopback");
	EXPECT("64:ff9b::10.0.2.2", "private");
	EXPECT("64:ff9b::100.64.0.1", "shared");
	EXPECT("64:ff9b::192.0.2.1", "documentation");
	EXPECT("64:ff9b::8.8.8.8", "public");
	/* 6to4: the IPv4 address is bits 16..47 */
	EXPECT("2002:7f00:1::1", "loopback");
	EXPECT("2002:c0a8:101::1", "private");
	EXPECT("2002:a9fe:a9fe::", "link-local");
	EXPECT("2002:808:808::1", "public");
}

T(ipv6_public_pass)
{
	EXPECT("2606:4700:4700::1111", "public");
	EXPECT("2a00:1450:4001:80b::200e", "public");
	EXPECT("2001:200::1", "public");       /* just above 2001::/23 */
	EXPECT("2001:db7:ffff::1", "public");  /* just below 2001:db8::/32 */
	EXPECT("2001:db9::1", "public");
	EXPECT("3ffe::1", "public");
	EXPECT("2620:4f:8001::1", "public");
	EXPECT("2000::1", "public");
}

T(embedded_v4_extraction)
{
	unsigned char a[16], v4[4];
	const char *yes[] = {"::ffff:1.2.3.4", "::1.2.3.4", "64:ff9b::1.2.3.4",
	                     "2002:102:304::1"};
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		CHECK(inet_pton(AF_INET6, yes[i], a) == 1);
		memset(v4, 0, sizeof(v4));
		CHECK(addr_embedded_v4(a, v4));
		CHECK(v4[0] == 1 && v4[1] == 2 && v4[2] == 3 && v4[3] == 4);
	}
	CHECK(inet_pton(AF_INET6, "2606:4700::1", a) == 1);
	CHECK(!addr_embedded_v4(a, v4));
	CHECK(inet_pton(AF_INET6, "::1", a) == 1);
	CHECK(!addr_embedded_v4(a, v4));  /* loopback, not ::0.0.0.1 */
}
