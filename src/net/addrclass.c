/* addrclass.c — classifying addresses for the DNS filter (see addrclass.h).
 * The tables follow the IANA IPv4 and IPv6 Special-Purpose Address
 * Registries, the multicast ranges and the reserved space; README "Network"
 * lists each range and why.  First match wins: specific entries come first. */
#include "addrclass.h"

#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "util.h"

struct range {
	unsigned char net[16];
	unsigned bits;
	enum addr_class cls;
	unsigned char embed;  /* IPv6: where an IPv4 address it spells starts, 0: none */
};

static const struct range v4[] = {
	{{255, 255, 255, 255}, 32, ADDR_BROADCAST, 0},
	{{0, 0, 0, 0}, 32, ADDR_UNSPECIFIED, 0},
	{{0}, 8, ADDR_THIS_NETWORK, 0},
	{{10}, 8, ADDR_PRIVATE, 0},
	{{100, 64}, 10, ADDR_SHARED, 0},
	{{127}, 8, ADDR_LOOPBACK, 0},
	{{169, 254}, 16, ADDR_LINK_LOCAL, 0},
	{{172, 16}, 12, ADDR_PRIVATE, 0},
	{{192, 0, 0}, 24, ADDR_SPECIAL, 0},        /* IETF protocol assignments */
	{{192, 0, 2}, 24, ADDR_DOCUMENTATION, 0},  /* TEST-NET-1 */
	{{192, 31, 196}, 24, ADDR_SPECIAL, 0},     /* AS112-v4 */
	{{192, 52, 193}, 24, ADDR_SPECIAL, 0},     /* AMT */
	{{192, 88, 99}, 24, ADDR_SPECIAL, 0},      /* 6to4 relay anycast (deprecated) */
	{{192, 168}, 16, ADDR_PRIVATE, 0},
	{{192, 175, 48}, 24, ADDR_SPECIAL, 0},     /* AS112 direct delegation */
	{{198, 18}, 15, ADDR_BENCHMARKING, 0},
	{{198, 51, 100}, 24, ADDR_DOCUMENTATION, 0},  /* TEST-NET-2 */
	{{203, 0, 113}, 24, ADDR_DOCUMENTATION, 0},   /* TEST-NET-3 */
	{{224}, 4, ADDR_MULTICAST, 0},
	{{240}, 4, ADDR_RESERVED, 0},
};

static const struct range v6[] = {
	{{0}, 128, ADDR_UNSPECIFIED, 0},
	{{[15] = 1}, 128, ADDR_LOOPBACK, 0},
	{{[10] = 0xff, [11] = 0xff}, 96, ADDR_MAPPED, 12},
	{{0}, 96, ADDR_COMPATIBLE, 12},
	{{0x00, 0x64, 0xff, 0x9b}, 96, ADDR_PUBLIC, 12},  /* NAT64, well-known prefix */
	{{0x00, 0x64, 0xff, 0x9b, 0, 1}, 48, ADDR_SPECIAL, 0},  /* local-use NAT64 */
	{{0x01}, 64, ADDR_DISCARD, 0},
	{{0x01, 0, 0, 0, 0, 0, 0, 1}, 64, ADDR_SPECIAL, 0},     /* dummy prefix */
	{{0x20, 0x01, 0, 0}, 32, ADDR_TEREDO, 0},
	{{0x20, 0x01, 0, 2, 0, 0}, 48, ADDR_BENCHMARKING, 0},
	{{0x20, 0x01}, 23, ADDR_SPECIAL, 0},        /* IETF protocol assignments, ORCHID */
	{{0x20, 0x01, 0x0d, 0xb8}, 32, ADDR_DOCUMENTATION, 0},
	{{0x20, 0x02}, 16, ADDR_PUBLIC, 2},      /* 6to4: 2002:AABB:CCDD::/48 */
	{{0x26, 0x20, 0, 0x4f, 0x80, 0}, 48, ADDR_SPECIAL, 0},  /* AS112-v6 */
	{{0x3f, 0xff}, 20, ADDR_DOCUMENTATION, 0},
	{{0xfc}, 7, ADDR_PRIVATE, 0},               /* unique local */
	{{0xfe, 0x80}, 10, ADDR_LINK_LOCAL, 0},
	{{0xfe, 0xc0}, 10, ADDR_SITE_LOCAL, 0},
	{{0xff}, 8, ADDR_MULTICAST, 0},
	{{0x20}, 3, ADDR_PUBLIC, 0},                /* global unicast */
	{{0}, 0, ADDR_RESERVED, 0},                 /* everything else */
};

static bool in_prefix(const unsigned char *a, const unsigned char *net, unsigned bits)
{
	size_t whole = bits / 8;
	if (memcmp(a, net, whole) != 0)
		return false;
	unsigned rest = bits % 8;
	if (!rest)
		return true;
	unsigned char mask = (unsigned char)(0xff << (8 - rest));
	return (a[whole] & mask) == (net[whole] & mask);
}

static const struct range *lookup(const struct range *t, size_t n, const unsigned char *a)
{
	for (size_t i = 0; i < n; i++)
		if (in_prefix(a, t[i].net, t[i].bits))
			return &t[i];
	return NULL;
}

static enum addr_class classify4(const unsigned char *a)
{
	const struct range *r = lookup(v4, ARRAY_SIZE(v4), a);
	return r ? r->cls : ADDR_PUBLIC;
}

bool addr_embedded_v4(const unsigned char a[16], unsigned char out[4])
{
	const struct range *r = lookup(v6, ARRAY_SIZE(v6), a);
	if (!r || !r->embed)
		return false;
	memcpy(out, a + r->embed, 4);
	return true;
}

enum addr_class addr_classify(int family, const unsigned char *a)
{
	if (family == AF_INET)
		return classify4(a);
	if (family != AF_INET6)
		return ADDR_RESERVED;
	const struct range *r = lookup(v6, ARRAY_SIZE(v6), a);
	unsigned char in4[4];
	if (!addr_embedded_v4(a, in4))
		return r->cls;
	/* An IPv6 spelling of an IPv4 address is judged as that address: 64:ff9b::
	 * 127.0.0.1 is loopback.  Mapped and compatible forms are refused even
	 * when public: the kernel sends them as IPv4, never through an IPv6 set. */
	enum addr_class c4 = classify4(in4);
	return c4 != ADDR_PUBLIC ? c4 : r->cls;
}

const char *addr_class_name(enum addr_class c)
{
	static const char *const names[] = {
		[ADDR_PUBLIC] = "public",         [ADDR_UNSPECIFIED] = "unspecified",
		[ADDR_THIS_NETWORK] = "this network", [ADDR_LOOPBACK] = "loopback",
		[ADDR_PRIVATE] = "private",       [ADDR_SHARED] = "shared",
		[ADDR_LINK_LOCAL] = "link-local", [ADDR_SITE_LOCAL] = "site-local",
		[ADDR_MULTICAST] = "multicast",   [ADDR_BROADCAST] = "broadcast",
		[ADDR_DOCUMENTATION] = "documentation", [ADDR_BENCHMARKING] = "benchmarking",
		[ADDR_RESERVED] = "reserved",     [ADDR_SPECIAL] = "special-purpose",
		[ADDR_DISCARD] = "discard-only",  [ADDR_TEREDO] = "Teredo",
		[ADDR_MAPPED] = "IPv4-mapped",    [ADDR_COMPATIBLE] = "IPv4-compatible",
	};
	return (size_t)c < ARRAY_SIZE(names) && names[c] ? names[c] : "reserved";
}
