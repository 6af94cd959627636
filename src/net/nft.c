/* nft.c — the nftables plan (pure) and its installation (libnftnl + libmnl).
 *
 * Chain "output" in table inet "jail", policy drop:
 *   loopback passes (its connections marked NFT_CT_MARK_LO), established and
 *   related traffic of unmarked connections passes; IPv6 neighbour discovery
 *   passes (without it no IPv6 address is reachable at all); TCP and UDP to an
 *   "address . port" pair in allow4/allow6 pass, TCP alone to one in
 *   host4/host6 (host:PORT names a TCP server on the host's loopback, and the
 *   helper maps UDP to that loopback as well); everything else is logged to
 *   NFLOG and rejected at once (TCP reset, ICMP administratively prohibited)
 *   so that a blocked client fails fast instead of hanging.
 * Chain "input", policy drop, in both modes: loopback, established/related
 *   traffic of unmarked connections and neighbour discovery come in, nothing
 *   else.  The helper sends
 *   the jail's datagrams from a host socket bound to every host address on
 *   the jail's own source port and passes in whatever arrives there; a flow
 *   a host off the list started that way would have the jail's answers
 *   "established" in the output chain: a conversation with anyone who can
 *   send to the host.  The jail serves nothing but over loopback (--publish
 *   comes in through the helper's splice onto lo). */
#include "nft.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>

/* ---- the plan (pure) ---- */

static struct nft_rule *plan_rule(struct nft_plan *p, enum nft_verdict v, uint32_t arg)
{
	if (p->n_rules == NFT_MAX_RULES)
		abort();  /* a programming error: the rule list is fixed */
	struct nft_rule *r = &p->rules[p->n_rules++];
	memset(r, 0, sizeof(*r));
	r->verdict = v;
	r->arg = arg;
	return r;
}

static void rule_match(struct nft_rule *r, enum nft_match_type t, uint32_t value,
                       const char *str)
{
	if (r->n_match == NFT_MAX_MATCH)
		abort();
	r->match[r->n_match++] = (struct nft_match){t, value, str};
}

static void plan_set_rules(struct nft_plan *p, uint32_t nfproto, const char *set, bool tcp_only)
{
	static const uint8_t protos[] = {IPPROTO_TCP, IPPROTO_UDP};
	for (size_t i = 0; i < (tcp_only ? 1 : ARRAY_SIZE(protos)); i++) {
		struct nft_rule *r = plan_rule(p, NV_ACCEPT, 0);
		rule_match(r, NM_NFPROTO, nfproto, NULL);
		rule_match(r, NM_L4PROTO, protos[i], NULL);
		rule_match(r, NM_DADDR_DPORT, 0, set);
	}
}

static void plan_elems(const struct allow_list *allow, struct nft_plan *p)
{
	p->elems = allow->n ? xcalloc(allow->n, sizeof(*p->elems)) : NULL;
	for (size_t i = 0; i < allow->n; i++) {
		const struct allow_entry *a = &allow->v[i];
		if (a->kind != ALLOW_V4 && a->kind != ALLOW_V6)
			continue;
		struct nft_elem *el = &p->elems[p->n_elems++];
		el->family = a->kind == ALLOW_V4 ? AF_INET : AF_INET6;
		memcpy(el->addr, a->addr, sizeof(el->addr));
		el->port = a->port;
	}
}

/* IPv6 neighbour discovery passes (to multicast addresses: without it no
 * IPv6 address is reachable at all): out router solicitations, neighbour
 * solicitations and advertisements; in router and neighbour advertisements
 * and solicitations (conntrack tracks none of them). */
static void plan_nd(struct nft_plan *p, bool input)
{
	static const uint32_t out_types[] = {133, 135, 136}, in_types[] = {134, 135, 136};
	const uint32_t *types = input ? in_types : out_types;
	for (size_t i = 0; i < ARRAY_SIZE(out_types); i++) {
		struct nft_rule *r = plan_rule(p, NV_ACCEPT, 0);
		r->input = input;
		rule_match(r, NM_NFPROTO, NFPROTO_IPV6, NULL);
		rule_match(r, NM_L4PROTO, IPPROTO_ICMPV6, NULL);
		rule_match(r, NM_ICMPV6_TYPE, types[i], NULL);
	}
}

/* Established and related traffic passes, but never that of a connection
 * with a packet on loopback (marked NFT_CT_MARK_LO by the output chain's
 * first rule): the jail can play both ends of one there.  A socket bound
 * with IPV6_FREEBIND to a host's address sent to the jail's own over lo,
 * and the jail's answer to that host, out through the interface, was a
 * reply of an "established" connection no rule had checked. */
static void plan_established(struct nft_plan *p, bool input)
{
	struct nft_rule *r = plan_rule(p, NV_ACCEPT, 0);
	r->input = input;
	rule_match(r, NM_CT_MARK, 0, NULL);
	rule_match(r, NM_CT_STATE,
	           NF_CT_STATE_BIT(IP_CT_ESTABLISHED) | NF_CT_STATE_BIT(IP_CT_RELATED), NULL);
}

/* Loopback passes, its connections marked (plan_established). */
static void plan_lo(struct nft_plan *p)
{
	rule_match(plan_rule(p, NV_MARK_ACCEPT, NFT_CT_MARK_LO), NM_OIFNAME, 0, "lo");
}

/* The input chain: what comes in off loopback is an answer to a flow the
 * jail started (or neighbour discovery); the chain's policy drops the rest. */
static void plan_input(struct nft_plan *p)
{
	struct nft_rule *r = plan_rule(p, NV_ACCEPT, 0);
	r->input = true;
	rule_match(r, NM_IIFNAME, 0, "lo");
	plan_established(p, true);
	plan_nd(p, true);
}

void nft_plan_build(const struct allow_list *allow, struct nft_plan *p)
{
	memset(p, 0, sizeof(*p));
	plan_input(p);
	plan_lo(p);
	plan_established(p, false);
	plan_nd(p, false);
	plan_set_rules(p, NFPROTO_IPV4, NFT_SET4, false);
	plan_set_rules(p, NFPROTO_IPV6, NFT_SET6, false);
	plan_set_rules(p, NFPROTO_IPV4, NFT_HOST_SET4, true);
	plan_set_rules(p, NFPROTO_IPV6, NFT_HOST_SET6, true);
	plan_rule(p, NV_LOG, NFT_LOG_GROUP);
	rule_match(plan_rule(p, NV_REJECT_TCP_RST, 0), NM_L4PROTO, IPPROTO_TCP, NULL);
	plan_rule(p, NV_REJECT_ICMPX, NFT_REJECT_ICMPX_ADMIN_PROHIBITED);
	plan_elems(allow, p);
}

/* Log and reject what matches m1 and m2 (the family and the set). */
static void plan_reject(struct nft_plan *p, const struct nft_match *m1, const struct nft_match *m2)
{
	struct nft_rule *r[3] = {plan_rule(p, NV_LOG, NFT_LOG_GROUP),
	                         plan_rule(p, NV_REJECT_TCP_RST, 0),
	                         plan_rule(p, NV_REJECT_ICMPX, NFT_REJECT_ICMPX_ADMIN_PROHIBITED)};
	for (size_t i = 0; i < ARRAY_SIZE(r); i++) {
		rule_match(r[i], m1->type, m1->value, m1->str);
		rule_match(r[i], m2->type, m2->value, m2->str);
	}
	rule_match(r[1], NM_L4PROTO, IPPROTO_TCP, NULL);
}

void nft_plan_build_open(struct nft_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->accept = true;
	plan_input(p);
	plan_lo(p);
	plan_established(p, false);
	plan_set_rules(p, NFPROTO_IPV4, NFT_HOST_SET4, true);
	plan_set_rules(p, NFPROTO_IPV6, NFT_HOST_SET6, true);
	plan_reject(p, &(struct nft_match){NM_NFPROTO, NFPROTO_IPV4, NULL},
	            &(struct nft_match){NM_DADDR, 0, NFT_HELPER_SET4});
	plan_reject(p, &(struct nft_match){NM_NFPROTO, NFPROTO_IPV6, NULL},
	            &(struct nft_match){NM_DADDR, 0, NFT_HELPER_SET6});
	/* multicast and broadcast: the helper sends them from the host, whose
	 * own listeners take them in (mDNS, LLMNR, SSDP); but neighbour
	 * discovery, which the helper answers itself */
	plan_nd(p, false);
	static const struct {
		uint32_t nfproto;
		const char *net;
		uint32_t bits;
	} cast[] = {{NFPROTO_IPV4, "224.0.0.0", 4}, {NFPROTO_IPV4, "255.255.255.255", 32},
	            {NFPROTO_IPV6, "ff00::", 8}};
	for (size_t i = 0; i < ARRAY_SIZE(cast); i++)
		plan_reject(p, &(struct nft_match){NM_NFPROTO, cast[i].nfproto, NULL},
		            &(struct nft_match){NM_DADDR_PREFIX, cast[i].bits, cast[i].net});
}

void nft_plan_prefix(struct nft_plan *p, int family, const char *net, unsigned bits)
{
	memset(p, 0, sizeof(*p));
	p->accept = true;
	uint32_t nfproto = family == AF_INET ? NFPROTO_IPV4 : NFPROTO_IPV6;
	plan_reject(p, &(struct nft_match){NM_NFPROTO, nfproto, NULL},
	            &(struct nft_match){NM_DADDR_PREFIX, bits, net});
}

void nft_plan_free(struct nft_plan *p)
{
	free(p->elems);
	p->elems = NULL;
	p->n_elems = 0;
}

void nft_elem_format(const struct nft_elem *el, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	if (!inet_ntop(el->family, el->addr, a, sizeof(a)))
		strcpy(a, "?");
	if (el->addr_only)
		snprintf(buf, len, "%s", a);
	else
		snprintf(buf, len, "%s . %u", a, el->port);
}

static const char *proto_name(uint32_t p)
{
	switch (p) {
	case IPPROTO_TCP: return "tcp";
	case IPPROTO_UDP: return "udp";
	case IPPROTO_ICMPV6: return "ipv6-icmp";
	default: return "?";
	}
}

static void format_match(struct strbuf *b, const struct nft_match *m, uint32_t nfproto)
{
	switch (m->type) {
	case NM_OIFNAME: sb_printf(b, "oifname \"%s\" ", m->str); break;
	case NM_IIFNAME: sb_printf(b, "iifname \"%s\" ", m->str); break;
	case NM_CT_STATE: sb_puts(b, "ct state established,related "); break;
	case NM_CT_MARK: sb_printf(b, "ct mark 0x%x ", m->value); break;
	case NM_NFPROTO:
		sb_printf(b, "meta nfproto %s ", m->value == NFPROTO_IPV4 ? "ipv4" : "ipv6");
		break;
	case NM_L4PROTO: sb_printf(b, "meta l4proto %s ", proto_name(m->value)); break;
	case NM_ICMPV6_TYPE: sb_printf(b, "icmpv6 type %u ", m->value); break;
	case NM_DADDR_DPORT:
		sb_printf(b, "%s daddr . th dport @%s ", nfproto == NFPROTO_IPV4 ? "ip" : "ip6",
		          m->str);
		break;
	case NM_DADDR:
		sb_printf(b, "%s daddr @%s ", nfproto == NFPROTO_IPV4 ? "ip" : "ip6", m->str);
		break;
	case NM_DADDR_PREFIX:
		sb_printf(b, "%s daddr %s/%u ", nfproto == NFPROTO_IPV4 ? "ip" : "ip6", m->str,
		          m->value);
		break;
	default: sb_puts(b, "? "); break;
	}
}

static void format_rule(struct strbuf *b, const struct nft_rule *r)
{
	uint32_t nfproto = 0;
	sb_puts(b, "\t\t");
	for (size_t i = 0; i < r->n_match; i++) {
		if (r->match[i].type == NM_NFPROTO)
			nfproto = r->match[i].value;
		format_match(b, &r->match[i], nfproto);
	}
	switch (r->verdict) {
	case NV_ACCEPT: sb_puts(b, "accept\n"); break;
	case NV_MARK_ACCEPT: sb_printf(b, "ct mark set 0x%x accept\n", r->arg); break;
	case NV_LOG: sb_printf(b, "log group %u\n", r->arg); break;
	case NV_REJECT_TCP_RST: sb_puts(b, "reject with tcp reset\n"); break;
	case NV_REJECT_ICMPX: sb_puts(b, "reject with icmpx admin-prohibited\n"); break;
	default: sb_puts(b, "?\n"); break;
	}
}

static void format_set(struct strbuf *b, const struct nft_plan *p, const char *name,
                       int family, bool tcp_only, bool addr_only)
{
	sb_printf(b, "\tset %s {\n\t\ttype %s%s\n\t\tflags timeout\n", name,
	          family == AF_INET ? "ipv4_addr" : "ipv6_addr",
	          addr_only ? "" : " . inet_service");
	const char *sep = "\t\telements = { ";
	for (size_t i = 0; i < p->n_elems; i++) {
		if (p->elems[i].family != family || p->elems[i].tcp_only != tcp_only ||
		    p->elems[i].addr_only != addr_only)
			continue;
		char el[80];
		nft_elem_format(&p->elems[i], el, sizeof(el));
		sb_printf(b, "%s%s", sep, el);
		sep = ", ";
	}
	if (strcmp(sep, ", ") == 0)
		sb_puts(b, " }\n");
	sb_puts(b, "\t}\n");
}

char *nft_plan_format(const struct nft_plan *p)
{
	struct strbuf b = {0};
	sb_puts(&b, "table inet " NFT_TABLE " {\n");
	format_set(&b, p, NFT_SET4, AF_INET, false, false);
	format_set(&b, p, NFT_SET6, AF_INET6, false, false);
	format_set(&b, p, NFT_HOST_SET4, AF_INET, true, false);
	format_set(&b, p, NFT_HOST_SET6, AF_INET6, true, false);
	if (p->accept) {
		format_set(&b, p, NFT_HELPER_SET4, AF_INET, false, true);
		format_set(&b, p, NFT_HELPER_SET6, AF_INET6, false, true);
	}
	sb_puts(&b, "\tchain " NFT_CHAIN_IN " {\n"
	            "\t\ttype filter hook input priority 0; policy drop;\n");
	for (size_t i = 0; i < p->n_rules; i++)
		if (p->rules[i].input)
			format_rule(&b, &p->rules[i]);
	sb_printf(&b, "\t}\n\tchain " NFT_CHAIN " {\n"
	              "\t\ttype filter hook output priority 0; policy %s;\n",
	          p->accept ? "accept" : "drop");
	for (size_t i = 0; i < p->n_rules; i++)
		if (!p->rules[i].input)
			format_rule(&b, &p->rules[i]);
	sb_puts(&b, "\t}\n}\n");
	return sb_steal(&b);
}
