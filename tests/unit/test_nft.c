/* test_nft.c — the allowlist parser and the nftables plan. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <linux/netlink.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include "allow.h"
#include "nflog.h"
#include "nft.h"
#include "t.h"

static int parse(struct allow_list *l, const char *const *specs, size_t n, struct jail_err *e)
{
	struct strv v = {0};
	for (size_t i = 0; i < n; i++)
		strv_push(&v, specs[i]);
	int r = allow_parse(&v, l, e);
	strv_free(&v);
	return r;
}

T(allow_parses_every_kind)
{
	const char *specs[] = {"203.0.113.7:443", "[2001:db8::1]:8443", "API.Example.com.:443",
	                       "*.example.org:80", "host:11434", "host.jail.internal:8080"};
	struct allow_list l;
	struct jail_err e;
	CHECK_INT(parse(&l, specs, 6, &e), 0);
	CHECK_INT(l.n, 6);
	CHECK_INT(l.v[0].kind, ALLOW_V4);
	CHECK_INT(l.v[0].port, 443);
	CHECK_INT(l.v[1].kind, ALLOW_V6);
	CHECK_INT(l.v[1].port, 8443);
	CHECK_INT(l.v[2].kind, ALLOW_NAME);
	CHECK_STR(l.v[2].name, "api.example.com");
	CHECK_INT(l.v[3].kind, ALLOW_SUFFIX);
	CHECK_STR(l.v[3].name, "example.org");
	CHECK_INT(l.v[4].kind, ALLOW_HOST);
	CHECK_INT(l.v[5].kind, ALLOW_HOST);
	uint16_t ports[4];
	CHECK_INT(allow_host_ports(&l, ports, 4), 2);
	CHECK_INT(ports[1], 8080);
	allow_free(&l);
}

T(allow_gates_names_allowed_on_443_only)
{
	const char *specs[] = {"api.example.com:443", "*.cdn.example:443", "both.example:443",
	                       "both.example:8443", "*.mixed.example:443", "x.mixed.example:80",
	                       "web.example:80", "203.0.113.7:443"};
	struct allow_list l;
	struct jail_err e;
	CHECK_INT(parse(&l, specs, ARRAY_SIZE(specs), &e), 0);
	CHECK(allow_gate_wanted(&l));
	CHECK(allow_name_gated(&l, "api.example.com"));
	CHECK(allow_name_gated(&l, "a.cdn.example"));
	CHECK(!allow_name_gated(&l, "cdn.example"));        /* not below the suffix */
	CHECK(!allow_name_gated(&l, "xcdn.example"));       /* ends so, not at a dot */
	CHECK(!allow_name_gated(&l, "a.cdn.example.evil.test"));
	CHECK(!allow_name_gated(&l, "api.example.com.evil.test"));
	CHECK(!allow_name_gated(&l, "xapi.example.com"));
	CHECK(!allow_name_gated(&l, ".cdn.example"));
	CHECK(!allow_name_gated(&l, "both.example"));       /* 8443 too: the address path */
	CHECK(allow_name_gated(&l, "y.mixed.example"));
	CHECK(!allow_name_gated(&l, "x.mixed.example"));    /* 80 too */
	CHECK(!allow_name_gated(&l, "web.example"));
	CHECK(!allow_name_gated(&l, "other.example"));
	CHECK(!allow_name_gated(&l, "203.0.113.7"));
	allow_free(&l);
	const char *none[] = {"web.example:80", "203.0.113.7:443", "host:443"};
	CHECK_INT(parse(&l, none, ARRAY_SIZE(none), &e), 0);
	CHECK(!allow_gate_wanted(&l));
	allow_free(&l);
}

T(allow_rejects_bad_entries)
{
	const char *bad[] = {"example.com", "example.com:0", "example.com:65536", "example.com:x",
	                     "2001:db8::1:443", "[2001:db8::1]443", "exa mple.com:1",
	                     "*.:443", "a..b:443", ":443", "**.x.com:1"};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct allow_list l;
		struct jail_err e;
		CHECK_INT(parse(&l, &bad[i], 1, &e), -1);
		CHECK(strstr(e.msg, "--allow") != NULL);
	}
}

T(allow_name_matching)
{
	const char *specs[] = {"api.example.com:443", "*.example.org:80", "*.example.org:443",
	                       "api.example.com:443"};
	struct allow_list l;
	struct jail_err e;
	CHECK_INT(parse(&l, specs, 4, &e), 0);
	uint16_t ports[4];
	CHECK_INT(allow_name_ports(&l, "api.example.com", ports, 4), 1); /* deduplicated */
	CHECK_INT(ports[0], 443);
	CHECK_INT(allow_name_ports(&l, "x.api.example.com", ports, 4), 0);
	CHECK_INT(allow_name_ports(&l, "example.com", ports, 4), 0);
	CHECK_INT(allow_name_ports(&l, "a.b.example.org", ports, 4), 2);
	CHECK_INT(allow_name_ports(&l, "example.org", ports, 4), 0);     /* not the apex */
	CHECK_INT(allow_name_ports(&l, "badexample.org", ports, 4), 0);
	allow_free(&l);
}

T(addr_port_parse_forms)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct jail_err e;
	CHECK_INT(addr_port_parse("127.0.0.1:5353", 53, &ss, &len, &e), 0);
	CHECK_INT(ntohs(((struct sockaddr_in *)&ss)->sin_port), 5353);
	CHECK_INT(addr_port_parse("10.0.0.1", 53, &ss, &len, &e), 0);
	CHECK_INT(ntohs(((struct sockaddr_in *)&ss)->sin_port), 53);
	CHECK_INT(addr_port_parse("::1", 53, &ss, &len, &e), 0);
	CHECK_INT(ss.ss_family, AF_INET6);
	CHECK_INT(addr_port_parse("[::1]:54", 53, &ss, &len, &e), 0);
	CHECK_INT(ntohs(((struct sockaddr_in6 *)&ss)->sin6_port), 54);
	CHECK_INT(addr_port_parse("dns.example:53", 53, &ss, &len, &e), -1);
	CHECK_INT(addr_port_parse("1.2.3.4:0", 53, &ss, &len, &e), -1);
}

static const char expected_plan[] =
	"table inet jail {\n"
	"\tset allow4 {\n\t\ttype ipv4_addr . inet_service\n\t\tflags timeout\n"
	"\t\telements = { 203.0.113.7 . 443 }\n\t}\n"
	"\tset allow6 {\n\t\ttype ipv6_addr . inet_service\n\t\tflags timeout\n"
	"\t\telements = { 2001:db8::1 . 8443 }\n\t}\n"
	"\tset host4 {\n\t\ttype ipv4_addr . inet_service\n\t\tflags timeout\n\t}\n"
	"\tset host6 {\n\t\ttype ipv6_addr . inet_service\n\t\tflags timeout\n\t}\n"
	"\tchain input {\n"
	"\t\ttype filter hook input priority 0; policy drop;\n"
	"\t\tiifname \"lo\" accept\n"
	"\t\tct mark 0x0 ct state established,related accept\n"
	"\t\tmeta nfproto ipv6 meta l4proto ipv6-icmp icmpv6 type 134 accept\n"
	"\t\tmeta nfproto ipv6 meta l4proto ipv6-icmp icmpv6 type 135 accept\n"
	"\t\tmeta nfproto ipv6 meta l4proto ipv6-icmp icmpv6 type 136 accept\n"
	"\t}\n"
	"\tchain output {\n"
	"\t\ttype filter hook output priority 0; policy drop;\n"
	"\t\toifname \"lo\" ct mark set 0x1 accept\n"
	"\t\tct mark 0x0 ct state established,related accept\n"
	"\t\tmeta nfproto ipv6 meta l4proto ipv6-icmp icmpv6 type 133 accept\n"
	"\t\tmeta nfproto ipv6 meta l4proto ipv6-icmp icmpv6 type 135 accept\n"
	"\t\tmeta nfproto ipv6 meta l4proto ipv6-icmp icmpv6 type 136 accept\n"
	"\t\tmeta nfproto ipv4 meta l4proto tcp ip daddr . th dport @allow4 accept\n"
	"\t\tmeta nfproto ipv4 meta l4proto udp ip daddr . th dport @allow4 accept\n"
	"\t\tmeta nfproto ipv6 meta l4proto tcp ip6 daddr . th dport @allow6 accept\n"
	"\t\tmeta nfproto ipv6 meta l4proto udp ip6 daddr . th dport @allow6 accept\n"
	"\t\tmeta nfproto ipv4 meta l4proto tcp ip daddr . th dport @host4 accept\n"
	"\t\tmeta nfproto ipv6 meta l4proto tcp ip6 daddr . th dport @host6 accept\n"
	"\t\tlog group 7\n"
	"\t\tmeta l4proto tcp reject with tcp reset\n"
	"\t\treject with icmpx admin-prohibited\n"
	"\t}\n}\n";

T(plan_for_an_allowlist)
{
	const char *specs[] = {"203.0.113.7:443", "api.example.com:443", "[2001:db8::1]:8443",
	                       "host:11434"};
	struct allow_list l;
	struct jail_err e;
	CHECK_INT(parse(&l, specs, 4, &e), 0);
	struct nft_plan p;
	nft_plan_build(&l, &p);
	/* names and the host are not in the static sets: DNS and the helper add them */
	CHECK_INT(p.n_elems, 2);
	char *text = nft_plan_format(&p);
	CHECK_STR(text, expected_plan);
	free(text);
	nft_plan_free(&p);
	allow_free(&l);
}

T(plan_never_accepts_without_a_match)
{
	struct allow_list l = {0};
	struct nft_plan p;
	nft_plan_build(&l, &p);
	CHECK_INT(p.n_elems, 0);
	bool rejects_last = p.rules[p.n_rules - 1].verdict == NV_REJECT_ICMPX &&
	                    p.rules[p.n_rules - 1].n_match == 0;
	CHECK(rejects_last);
	for (size_t i = 0; i < p.n_rules; i++) {
		const struct nft_rule *r = &p.rules[i];
		if (r->verdict == NV_ACCEPT)
			CHECK(r->n_match > 0);
		/* every IPv6 accept is as narrow as the IPv4 ones: a set or ND */
		for (size_t j = 0; j < r->n_match; j++)
			if (r->match[j].type == NM_NFPROTO && r->match[j].value == NFPROTO_IPV6)
				CHECK(r->n_match == 3);
	}
	nft_plan_free(&p);
}

/* --net open with host:PORT: everything passes but the helper's addresses,
 * which only the host4/host6 pairs get through. */
T(plan_for_net_open_closes_the_helper)
{
	struct nft_plan p;
	nft_plan_build_open(&p);
	char *text = nft_plan_format(&p);
	CHECK(strstr(text, "policy accept;") != NULL);
	CHECK(strstr(text, "set helper4 {\n\t\ttype ipv4_addr\n") != NULL);
	const char *host = strstr(text, "ip daddr . th dport @host4 accept");
	const char *reject = strstr(text, "meta nfproto ipv4 ip daddr @helper4 "
	                                  "reject with icmpx admin-prohibited");
	CHECK(host && reject && host < reject);
	CHECK(strstr(text, "ip6 daddr @helper6 reject with icmpx") != NULL);
	/* multicast and broadcast reach the host's own listeners */
	CHECK(strstr(text, "meta nfproto ipv4 ip daddr 224.0.0.0/4 reject with icmpx") != NULL);
	CHECK(strstr(text, "ip daddr 255.255.255.255/32 reject with icmpx") != NULL);
	const char *nd = strstr(text, "meta l4proto ipv6-icmp icmpv6 type 135 accept");
	const char *mcast6 = strstr(text, "meta nfproto ipv6 ip6 daddr ff00::/8 log group");
	CHECK(nd && mcast6 && nd < mcast6);  /* IPv6 needs neighbour discovery */
	/* open out, but nothing comes in that the jail did not start */
	CHECK(strstr(text, "chain input {\n\t\ttype filter hook input priority 0; policy drop;\n"
	                   "\t\tiifname \"lo\" accept\n"
	                   "\t\tct mark 0x0 ct state established,related accept\n")
	      != NULL);
	/* a flow with a packet on lo (where the jail plays both ends) never
	 * passes as established through the interface */
	CHECK(strstr(text, "\t\toifname \"lo\" ct mark set 0x1 accept\n"
	                   "\t\tct mark 0x0 ct state established,related accept\n") != NULL);
	free(text);
	nft_plan_free(&p);
}

/* In a child in a new user and network namespace: install the plan, then add
 * a resolved element; a second install must fail (the table exists). */
static int install_in_new_netns(void)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
		return 10;
	const char *specs[] = {"203.0.113.7:443", "[2001:db8::1]:443"};
	struct allow_list l;
	struct jail_err e;
	if (parse(&l, specs, 2, &e) < 0)
		return 11;
	struct nft_plan p;
	nft_plan_build(&l, &p);
	if (nft_install(&p, &e) < 0) {
		fprintf(stderr, "  %s\n", e.msg);
		return 12;
	}
	int fd = nft_netlink_socket(&e);
	struct nft_elem el[2] = {{.family = AF_INET, .port = 8080, .timeout_s = 60},
	                         {.family = AF_INET6, .tcp_only = true, .port = 11434}};
	inet_pton(AF_INET, "198.51.100.9", el[0].addr);
	inet_pton(AF_INET6, "fd00::2", el[1].addr);
	if (fd < 0 || nft_elems_add(fd, el, 2, &e) < 0 || nft_elems_add(fd, el, 2, &e) < 0) {
		fprintf(stderr, "  %s\n", e.msg);
		return 13;
	}
	if (nft_install(&p, &e) == 0 || e.errnum != EEXIST)
		return 14;
	return 0;
}

T(install_in_an_unprivileged_netns)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(install_in_new_netns());
	int st = -1;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st));
	CHECK_INT(WEXITSTATUS(st), 0);
}

/* The same for open mode's plan (its prefixes are masked compares). */
T(install_open_in_an_unprivileged_netns)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		struct nft_plan p;
		struct jail_err e;
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
			_exit(10);
		nft_plan_build_open(&p);
		if (nft_install(&p, &e) < 0) {
			fprintf(stderr, "  %s\n", e.msg);
			_exit(12);
		}
		_exit(0);
	}
	int st = -1;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st));
	CHECK_INT(WEXITSTATUS(st), 0);
}

T(nflog_packet_destinations)
{
	unsigned char v4[40] = {0x45, 0, 0, 40, 0, 0, 0x40, 0, 64, IPPROTO_TCP};
	inet_pton(AF_INET, "203.0.113.7", v4 + 16);
	v4[22] = 0x01; /* dport 443 */
	v4[23] = 0xbb;
	struct nflog_conn c;
	CHECK_INT(nflog_parse_packet(AF_INET, v4, sizeof(v4), &c), 0);
	CHECK_INT(c.proto, IPPROTO_TCP);
	CHECK_INT(c.dport, 443);
	char a[64];
	inet_ntop(AF_INET, c.daddr, a, sizeof(a));
	CHECK_STR(a, "203.0.113.7");
	CHECK_INT(nflog_parse_packet(AF_INET, v4, 23, &c), -1);  /* no room for the port */
	v4[7] = 8;                                                 /* a later fragment */
	CHECK_INT(nflog_parse_packet(AF_INET, v4, sizeof(v4), &c), -1);
	v4[7] = 0;
	v4[9] = IPPROTO_ICMP;
	CHECK_INT(nflog_parse_packet(AF_INET, v4, sizeof(v4), &c), -1);
	CHECK_INT(nflog_parse_packet(AF_INET6, v4, sizeof(v4), &c), -1); /* not v6 */

	unsigned char v6[48] = {0x60, 0, 0, 0, 0, 8, IPPROTO_UDP, 64};
	inet_pton(AF_INET6, "2001:db8::53", v6 + 24);
	v6[42] = 0;
	v6[43] = 53;
	CHECK_INT(nflog_parse_packet(AF_INET6, v6, sizeof(v6), &c), 0);
	CHECK_INT(c.proto, IPPROTO_UDP);
	CHECK_INT(c.dport, 53);
	inet_ntop(AF_INET6, c.daddr, a, sizeof(a));
	CHECK_STR(a, "2001:db8::53");
}

static void count_conn(const struct nflog_conn *c, void *arg)
{
	(void)c;
	(*(int *)arg)++;
}

T(nflog_messages_walked)
{
	/* one NFULNL_MSG_PACKET with an NFULA_PAYLOAD holding an IPv4 TCP header,
	 * then a message of another type */
	unsigned char buf[256] = {0};
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	h->nlmsg_type = (NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_PACKET;
	struct nfgenmsg *g = (struct nfgenmsg *)(buf + NLMSG_HDRLEN);
	g->nfgen_family = AF_INET;
	struct nlattr *at = (struct nlattr *)(buf + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(*g)));
	at->nla_type = NFULA_PAYLOAD;
	at->nla_len = NLA_HDRLEN + 24;
	unsigned char *ip = (unsigned char *)at + NLA_HDRLEN;
	ip[0] = 0x45;
	ip[9] = IPPROTO_TCP;
	h->nlmsg_len = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(*g)) + NLA_ALIGN(at->nla_len);
	struct nlmsghdr *h2 = (struct nlmsghdr *)(buf + h->nlmsg_len);
	h2->nlmsg_type = NLMSG_NOOP;
	h2->nlmsg_len = NLMSG_HDRLEN;
	int n = 0;
	nflog_each(buf, h->nlmsg_len + h2->nlmsg_len, count_conn, &n);
	CHECK_INT(n, 1);
	nflog_each(buf, h->nlmsg_len - 1, count_conn, &n);  /* truncated: ignored */
	CHECK_INT(n, 1);
}

/* A prefix the host takes in whole (AnyIP): logged and rejected as the
 * plan rejects multicast (net.c appends these once the routes are read). */
T(plan_for_a_host_prefix_rejects_it)
{
	struct nft_plan p;
	nft_plan_prefix(&p, AF_INET6, "2a0c:60::", 64);
	char *text = nft_plan_format(&p);
	CHECK(strstr(text, "meta nfproto ipv6 ip6 daddr 2a0c:60::/64 log group") != NULL);
	CHECK(strstr(text, "ip6 daddr 2a0c:60::/64 reject with icmpx admin-prohibited") != NULL);
	free(text);
	nft_plan_free(&p);
	nft_plan_prefix(&p, AF_INET, "198.51.100.0", 24);
	text = nft_plan_format(&p);
	CHECK(strstr(text, "meta nfproto ipv4 ip daddr 198.51.100.0/24 reject with icmpx") != NULL);
	free(text);
	nft_plan_free(&p);
}
