/* nft.h — the jail's nftables ruleset.
 *
 * nft_plan_build() is a pure function from the allowlist to a plan: one inet
 * table with an output chain (policy drop), an input chain (policy drop: only
 * answers to what the jail started come in, off loopback), four sets of "address . port" pairs
 * (IPv4, IPv6; TCP and UDP, or TCP only; with timeouts) and an ordered list of
 * rules.  nft_install()
 * turns the plan into one libnftnl netlink batch, all or nothing.
 * nft_elems_add() is what the DNS filter calls later to open a resolved
 * address for the ports its name is allowed on. */
#ifndef JAIL_NFT_H
#define JAIL_NFT_H
#include <stdbool.h>
#include <stdint.h>

#include "allow.h"

#define NFT_TABLE "jail"
#define NFT_CHAIN "output"
#define NFT_CHAIN_IN "input"
#define NFT_SET4 "allow4"
#define NFT_SET6 "allow6"
/* host:PORT elements (the host's loopback through the helper): TCP only */
#define NFT_HOST_SET4 "host4"
#define NFT_HOST_SET6 "host6"
/* --net open: the host itself, closed but for host4/host6: the helper's
 * gateway (which it maps to the host's loopback for host:PORT entries) and
 * the host's own addresses */
#define NFT_HELPER_SET4 "helper4"
#define NFT_HELPER_SET6 "helper6"
#define NFT_LOG_GROUP 7
/* The ct mark of a connection that had a packet on loopback: the ruleset
 * never checked where it goes, so "established" never lets it through an
 * interface (a reply forged on lo, from an address IPV6_FREEBIND let the
 * jail bind, made a connection to any host "established"). */
#define NFT_CT_MARK_LO 1

enum nft_match_type {
	NM_OIFNAME,      /* str: the output interface */
	NM_IIFNAME,      /* str: the input interface */
	NM_CT_STATE,     /* value: any of these ct state bits */
	NM_CT_MARK,      /* value: the connection's ct mark is this */
	NM_NFPROTO,      /* value: NFPROTO_IPV4 / NFPROTO_IPV6 */
	NM_L4PROTO,      /* value: IPPROTO_* */
	NM_ICMPV6_TYPE,  /* value: ICMPv6 type */
	NM_DADDR_DPORT,  /* str: set of "daddr . dport" (family from a preceding NM_NFPROTO) */
	NM_DADDR,        /* str: set of "daddr" (family from a preceding NM_NFPROTO) */
	NM_DADDR_PREFIX, /* str: an address, value: its prefix length (family as above) */
};

struct nft_match {
	enum nft_match_type type;
	uint32_t value;
	const char *str;
};

enum nft_verdict {
	NV_ACCEPT,
	NV_MARK_ACCEPT,    /* arg: set the connection's ct mark to it, and accept */
	NV_LOG,            /* arg: NFLOG group; the rule goes on to the next */
	NV_REJECT_TCP_RST,
	NV_REJECT_ICMPX,   /* arg: NFT_REJECT_ICMPX_* code */
};

/* The chain's policy: drop (--net allow), or accept (--net open, where only
 * the helper's door to the host's loopback is closed). */

#define NFT_MAX_MATCH 3
#define NFT_MAX_RULES 32

struct nft_rule {
	struct nft_match match[NFT_MAX_MATCH];
	size_t n_match;
	enum nft_verdict verdict;
	uint32_t arg;
	bool input;                /* in the input chain, else the output one */
};

/* One element of allow4/allow6, of host4/host6 when tcp_only, of
 * helper4/helper6 when addr_only. */
struct nft_elem {
	int family;                /* AF_INET or AF_INET6 */
	bool tcp_only;             /* host:PORT: a TCP server on the host's loopback */
	bool addr_only;            /* the helper's address, any port (port unused) */
	unsigned char addr[16];
	uint16_t port;             /* host order */
	uint32_t timeout_s;        /* 0: no timeout */
};

struct nft_plan {
	struct nft_rule rules[NFT_MAX_RULES];
	size_t n_rules;
	bool accept;               /* the chain's policy: accept, else drop */
	struct nft_elem *elems;    /* the literal addresses of the allowlist */
	size_t n_elems;
};

/* Pure: the ruleset for this allowlist. */
void nft_plan_build(const struct allow_list *allow, struct nft_plan *out);
/* Pure: the ruleset of --net open: everything passes but the host
 * (helper4/helper6: the helper's gateway, the host's own addresses), which
 * passes only for the host4/host6 pairs, and multicast and broadcast (sent
 * from the host, its own listeners take them in).  Without it the helper's gateway
 * would be a door to every port of the host's loopback, and the host's other
 * addresses to its servers bound to 0.0.0.0. */
void nft_plan_build_open(struct nft_plan *out);
void nft_plan_free(struct nft_plan *p);
/* Pure: --net open's rules that log and reject family's `net`/`bits` (the
 * masked prefix, as text: it must outlive the plan), as the plan rejects
 * multicast; for a prefix the host takes in whole (addrwatch.h), appended
 * with nft_rules_add once the host's routes are read. */
void nft_plan_prefix(struct nft_plan *p, int family, const char *net, unsigned bits);
/* The plan in nft(8) syntax, for tests, debugging and the man page. */
char *nft_plan_format(const struct nft_plan *p);
/* Format one element's key as "203.0.113.7 . 443" (for the plan text). */
void nft_elem_format(const struct nft_elem *el, char *buf, size_t len);

/* Install the plan in the current network namespace in one batch (needs
 * CAP_NET_ADMIN over it). */
int nft_install(const struct nft_plan *p, struct jail_err *e) WUR;
/* Add elements (refreshing the timeout of ones already there) through a
 * NETLINK_NETFILTER socket opened in the jail's netns. */
int nft_elems_add(int nl_fd, const struct nft_elem *els, size_t n, struct jail_err *e) WUR;
/* Append rules to the chain of the ruleset that nl_fd's namespace has. */
int nft_rules_add(int nl_fd, const struct nft_rule *rules, size_t n, struct jail_err *e) WUR;
/* On the helper's interface dev (in nl_fd's namespace), a netdev table's
 * egress chain that drops IP fragments: the kernel fragments a datagram
 * after the output chain judged it whole, and pasta reads every fragment
 * as a datagram of its own, its data where a UDP header would be (a port
 * the output chain never saw). */
int nft_egress_add(int nl_fd, const char *dev, struct jail_err *e) WUR;
/* A NETLINK_NETFILTER socket (close-on-exec) in the current network namespace. */
int nft_netlink_socket(struct jail_err *e) WUR;
#endif
