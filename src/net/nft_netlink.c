/* nft_netlink.c — carrying out an nft_plan: one netlink batch built with
 * libnftnl, sent and acknowledged with libmnl helpers on a plain
 * NETLINK_NETFILTER socket (so the supervisor can use one opened in the jail's
 * network namespace and passed out). */
#include "nft.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>

#include "nftlib.h"

#define BATCH_LIMIT (128 * 1024)
#define BATCH_MAX_MSGS 256
#define SET_ID4 1
#define SET_ID6 2
#define HOST_SET_ID4 3
#define HOST_SET_ID6 4
#define HELPER_SET_ID4 5
#define HELPER_SET_ID6 6

struct batch {
	char *buf;
	struct mnl_nlmsg_batch *b;
	uint32_t seq0, seq;
	const char *what[BATCH_MAX_MSGS];  /* what each acknowledged message does */
	bool overflow;
};

static void *oom_check(void *p)
{
	if (!p)
		abort();  /* libnftnl allocation failed: out of memory */
	return p;
}

static void batch_start(struct batch *bt)
{
	memset(bt, 0, sizeof(*bt));
	bt->buf = xmalloc(2 * BATCH_LIMIT);  /* libmnl: room for one message past the limit */
	bt->b = oom_check(mnl_nlmsg_batch_start(bt->buf, BATCH_LIMIT));
	bt->seq0 = bt->seq = (uint32_t)time(NULL);
	nftnl_batch_begin(mnl_nlmsg_batch_current(bt->b), bt->seq++);
	mnl_nlmsg_batch_next(bt->b);
}

static void batch_free(struct batch *bt)
{
	if (bt->b)
		mnl_nlmsg_batch_stop(bt->b);
	free(bt->buf);
}

static struct nlmsghdr *batch_msg_family(struct batch *bt, uint16_t type, uint16_t family,
                                         uint16_t flags, const char *what)
{
	uint32_t idx = bt->seq - bt->seq0;
	if (idx < BATCH_MAX_MSGS)
		bt->what[idx] = what;
	return nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(bt->b), type, family,
	                             flags | NLM_F_ACK, bt->seq++);
}

static struct nlmsghdr *batch_msg(struct batch *bt, uint16_t type, uint16_t flags,
                                  const char *what)
{
	return batch_msg_family(bt, type, NFPROTO_INET, flags, what);
}

static void batch_next(struct batch *bt)
{
	if (!mnl_nlmsg_batch_next(bt->b))
		bt->overflow = true;
}

static const char *batch_what(const struct batch *bt, uint32_t seq)
{
	uint32_t idx = seq - bt->seq0;
	return idx < BATCH_MAX_MSGS && bt->what[idx] ? bt->what[idx] : "nftables batch";
}

/* Count the acknowledgements of one received buffer; keep the first error. */
static unsigned batch_acks(const struct batch *bt, const char *buf, int n, int *err,
                           const char **what)
{
	unsigned got = 0;
	for (const struct nlmsghdr *h = (const void *)buf; mnl_nlmsg_ok(h, n);
	     h = mnl_nlmsg_next(h, &n)) {
		if (h->nlmsg_type != NLMSG_ERROR)
			continue;
		got++;
		const struct nlmsgerr *ne = mnl_nlmsg_get_payload(h);
		if (ne->error && !*err) {
			*err = -ne->error;
			*what = batch_what(bt, h->nlmsg_seq);
		}
	}
	return got;
}

static int batch_send(int fd, struct batch *bt, struct jail_err *e)
{
	nftnl_batch_end(mnl_nlmsg_batch_current(bt->b), bt->seq++);
	batch_next(bt);
	if (bt->overflow)
		return jail_err_set(e, E2BIG, "nftables batch over %d bytes", BATCH_LIMIT);
	unsigned want = bt->seq - bt->seq0 - 2, got = 0;  /* begin/end are not acked */
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	if (sendto(fd, mnl_nlmsg_batch_head(bt->b), mnl_nlmsg_batch_size(bt->b), 0,
	           (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return jail_err_sys(e, "send the nftables batch");
	int err = 0;
	const char *what = NULL;
	char buf[16384];
	while (got < want) {
		struct pollfd pfd = {fd, POLLIN, 0};
		int r = poll(&pfd, 1, 5000);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return jail_err_set(e, r ? errno : ETIMEDOUT, "nftables: waiting for the kernel");
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return jail_err_sys(e, "nftables: receive the kernel's answer");
		got += batch_acks(bt, buf, (int)n, &err, &what);
	}
	if (err)
		return jail_err_set(e, err, "nftables: %s", what);
	return 0;
}

/* ---- expressions ---- */

static struct nftnl_expr *expr(struct nftnl_rule *r, const char *name)
{
	struct nftnl_expr *x = oom_check(nftnl_expr_alloc(name));
	nftnl_rule_add_expr(r, x);
	return x;
}

static void expr_cmp(struct nftnl_rule *r, uint32_t reg, const void *data, uint32_t len)
{
	struct nftnl_expr *x = expr(r, "cmp");
	nftnl_expr_set_u32(x, NFTNL_EXPR_CMP_SREG, reg);
	nftnl_expr_set_u32(x, NFTNL_EXPR_CMP_OP, NFT_CMP_EQ);
	nftnl_expr_set(x, NFTNL_EXPR_CMP_DATA, data, len);
}

static void expr_meta(struct nftnl_rule *r, uint32_t key)
{
	struct nftnl_expr *x = expr(r, "meta");
	nftnl_expr_set_u32(x, NFTNL_EXPR_META_KEY, key);
	nftnl_expr_set_u32(x, NFTNL_EXPR_META_DREG, NFT_REG_1);
}

static void expr_payload(struct nftnl_rule *r, uint32_t base, uint32_t off, uint32_t len,
                         uint32_t reg)
{
	struct nftnl_expr *x = expr(r, "payload");
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_BASE, base);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_OFFSET, off);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_LEN, len);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_DREG, reg);
}

/* register 1 & mask != 0 (mask: len bytes, at most 16) */
static void expr_any_bit(struct nftnl_rule *r, const void *mask, uint32_t len)
{
	static const uint8_t zero[16];
	struct nftnl_expr *x = expr(r, "bitwise");
	nftnl_expr_set_u32(x, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
	nftnl_expr_set_u32(x, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
	nftnl_expr_set_u32(x, NFTNL_EXPR_BITWISE_LEN, len);
	nftnl_expr_set(x, NFTNL_EXPR_BITWISE_MASK, mask, len);
	nftnl_expr_set(x, NFTNL_EXPR_BITWISE_XOR, zero, len);
	x = expr(r, "cmp");
	nftnl_expr_set_u32(x, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
	nftnl_expr_set_u32(x, NFTNL_EXPR_CMP_OP, NFT_CMP_NEQ);
	nftnl_expr_set(x, NFTNL_EXPR_CMP_DATA, zero, len);
}

static void expr_ct_state(struct nftnl_rule *r, uint32_t bits)
{
	struct nftnl_expr *x = expr(r, "ct");
	nftnl_expr_set_u32(x, NFTNL_EXPR_CT_KEY, NFT_CT_STATE);
	nftnl_expr_set_u32(x, NFTNL_EXPR_CT_DREG, NFT_REG_1);
	expr_any_bit(r, &bits, sizeof(bits));
}

/* The batch's id of a set made in it (a rule names its set by both). */
static uint32_t set_id(const char *name)
{
	return strcmp(name, NFT_SET4) == 0          ? SET_ID4
	       : strcmp(name, NFT_SET6) == 0        ? SET_ID6
	       : strcmp(name, NFT_HOST_SET4) == 0   ? HOST_SET_ID4
	       : strcmp(name, NFT_HOST_SET6) == 0   ? HOST_SET_ID6
	       : strcmp(name, NFT_HELPER_SET4) == 0 ? HELPER_SET_ID4
	                                            : HELPER_SET_ID6;
}

/* ip daddr . th dport @set: the address into the 32-bit registers from
 * NFT_REG32_00, the port into the one after it (zero-padded by the kernel). */
static void expr_daddr_dport(struct nftnl_rule *r, uint32_t nfproto, const char *set)
{
	bool v4 = nfproto == NFPROTO_IPV4;
	uint32_t alen = v4 ? 4 : 16;
	expr_payload(r, NFT_PAYLOAD_NETWORK_HEADER, v4 ? 16 : 24, alen, NFT_REG32_00);
	expr_payload(r, NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2, NFT_REG32_00 + alen / 4);
	struct nftnl_expr *x = expr(r, "lookup");
	nftnl_expr_set_u32(x, NFTNL_EXPR_LOOKUP_SREG, NFT_REG32_00);
	nftnl_expr_set_str(x, NFTNL_EXPR_LOOKUP_SET, set);
	nftnl_expr_set_u32(x, NFTNL_EXPR_LOOKUP_SET_ID, set_id(set));
}

/* ip daddr @set */
static void expr_daddr(struct nftnl_rule *r, uint32_t nfproto, const char *set)
{
	bool v4 = nfproto == NFPROTO_IPV4;
	expr_payload(r, NFT_PAYLOAD_NETWORK_HEADER, v4 ? 16 : 24, v4 ? 4 : 16, NFT_REG32_00);
	struct nftnl_expr *x = expr(r, "lookup");
	nftnl_expr_set_u32(x, NFTNL_EXPR_LOOKUP_SREG, NFT_REG32_00);
	nftnl_expr_set_str(x, NFTNL_EXPR_LOOKUP_SET, set);
	nftnl_expr_set_u32(x, NFTNL_EXPR_LOOKUP_SET_ID, set_id(set));
}

/* ip daddr NET/BITS: the address masked to its first bits, compared */
static void expr_daddr_prefix(struct nftnl_rule *r, uint32_t nfproto, const char *net,
                              uint32_t bits)
{
	bool v4 = nfproto == NFPROTO_IPV4;
	uint32_t alen = v4 ? 4 : 16;
	unsigned char addr[16] = {0}, mask[16] = {0}, zero[16] = {0};
	if (inet_pton(v4 ? AF_INET : AF_INET6, net, addr) != 1 || bits > alen * 8)
		abort();  /* a programming error: the plan's prefixes are fixed */
	for (uint32_t i = 0; i < bits; i++)
		mask[i / 8] |= (unsigned char)(0x80 >> (i % 8));
	expr_payload(r, NFT_PAYLOAD_NETWORK_HEADER, v4 ? 16 : 24, alen, NFT_REG32_00);
	struct nftnl_expr *x = expr(r, "bitwise");
	nftnl_expr_set_u32(x, NFTNL_EXPR_BITWISE_SREG, NFT_REG32_00);
	nftnl_expr_set_u32(x, NFTNL_EXPR_BITWISE_DREG, NFT_REG32_00);
	nftnl_expr_set_u32(x, NFTNL_EXPR_BITWISE_LEN, alen);
	nftnl_expr_set(x, NFTNL_EXPR_BITWISE_MASK, mask, alen);
	nftnl_expr_set(x, NFTNL_EXPR_BITWISE_XOR, zero, alen);
	expr_cmp(r, NFT_REG32_00, addr, alen);
}

static void rule_add_match(struct nftnl_rule *r, const struct nft_match *m, uint32_t nfproto)
{
	uint8_t u8 = (uint8_t)m->value;
	char ifname[IFNAMSIZ] = {0};
	switch (m->type) {
	case NM_OIFNAME:
	case NM_IIFNAME:
		strncpy(ifname, m->str, sizeof(ifname) - 1);
		expr_meta(r, m->type == NM_OIFNAME ? NFT_META_OIFNAME : NFT_META_IIFNAME);
		expr_cmp(r, NFT_REG_1, ifname, sizeof(ifname));
		break;
	case NM_CT_STATE: expr_ct_state(r, m->value); break;
	case NM_CT_MARK: {
		uint32_t mark = m->value;
		struct nftnl_expr *x = expr(r, "ct");
		nftnl_expr_set_u32(x, NFTNL_EXPR_CT_KEY, NFT_CT_MARK);
		nftnl_expr_set_u32(x, NFTNL_EXPR_CT_DREG, NFT_REG_1);
		expr_cmp(r, NFT_REG_1, &mark, sizeof(mark));
		break;
	}
	case NM_NFPROTO:
		expr_meta(r, NFT_META_NFPROTO);
		expr_cmp(r, NFT_REG_1, &u8, 1);
		break;
	case NM_L4PROTO:
		expr_meta(r, NFT_META_L4PROTO);
		expr_cmp(r, NFT_REG_1, &u8, 1);
		break;
	case NM_ICMPV6_TYPE:
		expr_payload(r, NFT_PAYLOAD_TRANSPORT_HEADER, 0, 1, NFT_REG_1);
		expr_cmp(r, NFT_REG_1, &u8, 1);
		break;
	case NM_DADDR_DPORT: expr_daddr_dport(r, nfproto, m->str); break;
	case NM_DADDR: expr_daddr(r, nfproto, m->str); break;
	case NM_DADDR_PREFIX: expr_daddr_prefix(r, nfproto, m->str, m->value); break;
	default: abort();
	}
}

static void rule_add_verdict(struct nftnl_rule *r, const struct nft_rule *pr)
{
	struct nftnl_expr *x;
	switch (pr->verdict) {
	case NV_ACCEPT:
		x = expr(r, "immediate");
		nftnl_expr_set_u32(x, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
		nftnl_expr_set_u32(x, NFTNL_EXPR_IMM_VERDICT, NF_ACCEPT);
		break;
	case NV_MARK_ACCEPT: {
		uint32_t mark = pr->arg;
		x = expr(r, "immediate");
		nftnl_expr_set_u32(x, NFTNL_EXPR_IMM_DREG, NFT_REG_1);
		nftnl_expr_set(x, NFTNL_EXPR_IMM_DATA, &mark, sizeof(mark));
		x = expr(r, "ct");
		nftnl_expr_set_u32(x, NFTNL_EXPR_CT_KEY, NFT_CT_MARK);
		nftnl_expr_set_u32(x, NFTNL_EXPR_CT_SREG, NFT_REG_1);
		x = expr(r, "immediate");
		nftnl_expr_set_u32(x, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
		nftnl_expr_set_u32(x, NFTNL_EXPR_IMM_VERDICT, NF_ACCEPT);
		break;
	}
	case NV_LOG:
		x = expr(r, "log");
		nftnl_expr_set_u16(x, NFTNL_EXPR_LOG_GROUP, (uint16_t)pr->arg);
		nftnl_expr_set_u32(x, NFTNL_EXPR_LOG_SNAPLEN, 128);
		break;
	case NV_REJECT_TCP_RST:
		x = expr(r, "reject");
		nftnl_expr_set_u32(x, NFTNL_EXPR_REJECT_TYPE, NFT_REJECT_TCP_RST);
		nftnl_expr_set_u8(x, NFTNL_EXPR_REJECT_CODE, 0);
		break;
	case NV_REJECT_ICMPX:
		x = expr(r, "reject");
		nftnl_expr_set_u32(x, NFTNL_EXPR_REJECT_TYPE, NFT_REJECT_ICMPX_UNREACH);
		nftnl_expr_set_u8(x, NFTNL_EXPR_REJECT_CODE, (uint8_t)pr->arg);
		break;
	default: abort();
	}
}

/* ---- objects ---- */

static void add_table(struct batch *bt)
{
	struct nftnl_table *t = oom_check(nftnl_table_alloc());
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, NFT_TABLE);
	nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, NFPROTO_INET);
	nftnl_table_nlmsg_build_payload(
		batch_msg(bt, NFT_MSG_NEWTABLE, NLM_F_CREATE | NLM_F_EXCL, "add table " NFT_TABLE), t);
	nftnl_table_free(t);
	batch_next(bt);
}

/* A base chain of our table, of type filter at priority 0, into the batch
 * (dev: the device of a netdev family's chain, else NULL). */
static void add_chain_of(struct batch *bt, uint16_t family, const char *name, uint32_t hook,
                         const char *dev, bool accept, const char *what)
{
	struct nftnl_chain *c = oom_check(nftnl_chain_alloc());
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, NFT_TABLE);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name);
	nftnl_chain_set_u32(c, NFTNL_CHAIN_FAMILY, family);
	nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, "filter");
	nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, hook);
	nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, 0);
	if (dev)
		nftnl_chain_set_str(c, NFTNL_CHAIN_DEV, dev);
	nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, accept ? NF_ACCEPT : NF_DROP);
	nftnl_chain_nlmsg_build_payload(
		batch_msg_family(bt, NFT_MSG_NEWCHAIN, family, NLM_F_CREATE | NLM_F_EXCL, what), c);
	nftnl_chain_free(c);
	batch_next(bt);
}

static void add_chain(struct batch *bt, const char *name, uint32_t hook, bool accept,
                      const char *what)
{
	add_chain_of(bt, NFPROTO_INET, name, hook, NULL, accept, what);
}

/* Key types as nft(8) numbers them: ipv4_addr 7, ipv6_addr 8, inet_service 13,
 * a concatenation is (a << 6) | b; each field is padded to 4 bytes. */
static const char *set_name(int family, bool tcp_only, bool addr_only)
{
	if (addr_only)
		return family == AF_INET ? NFT_HELPER_SET4 : NFT_HELPER_SET6;
	if (tcp_only)
		return family == AF_INET ? NFT_HOST_SET4 : NFT_HOST_SET6;
	return family == AF_INET ? NFT_SET4 : NFT_SET6;
}

static struct nftnl_set *set_of(int family, bool tcp_only, bool addr_only)
{
	const char *name = set_name(family, tcp_only, addr_only);
	struct nftnl_set *s = oom_check(nftnl_set_alloc());
	nftnl_set_set_str(s, NFTNL_SET_TABLE, NFT_TABLE);
	nftnl_set_set_str(s, NFTNL_SET_NAME, name);
	nftnl_set_set_u32(s, NFTNL_SET_FAMILY, NFPROTO_INET);
	nftnl_set_set_u32(s, NFTNL_SET_ID, set_id(name));
	return s;
}

static void add_set(struct batch *bt, int family, bool tcp_only, bool addr_only)
{
	struct nftnl_set *s = set_of(family, tcp_only, addr_only);
	uint32_t type = family == AF_INET ? 7 : 8, alen = family == AF_INET ? 4 : 16;
	nftnl_set_set_u32(s, NFTNL_SET_KEY_TYPE, addr_only ? type : (type << 6) | 13);
	nftnl_set_set_u32(s, NFTNL_SET_KEY_LEN, addr_only ? alen : alen + 4);
	nftnl_set_set_u32(s, NFTNL_SET_FLAGS, NFT_SET_TIMEOUT);
	nftnl_set_nlmsg_build_payload(
		batch_msg(bt, NFT_MSG_NEWSET, NLM_F_CREATE | NLM_F_EXCL, "add set"), s);
	nftnl_set_free(s);
	batch_next(bt);
}

/* One NEWSETELEM (or DELSETELEM) message for the elements of one set. */
static void add_set_elems(struct batch *bt, int family, bool tcp_only, bool addr_only,
                          const struct nft_elem *els, size_t n, uint16_t type)
{
	struct nftnl_set *s = set_of(family, tcp_only, addr_only);
	size_t count = 0;
	for (size_t i = 0; i < n; i++) {
		if (els[i].family != family || els[i].tcp_only != tcp_only ||
		    els[i].addr_only != addr_only)
			continue;
		unsigned char key[20] = {0};
		size_t alen = family == AF_INET ? 4 : 16;
		memcpy(key, els[i].addr, alen);
		key[alen] = (unsigned char)(els[i].port >> 8);
		key[alen + 1] = (unsigned char)els[i].port;
		struct nftnl_set_elem *el = oom_check(nftnl_set_elem_alloc());
		nftnl_set_elem_set(el, NFTNL_SET_ELEM_KEY, key, (uint32_t)alen + (addr_only ? 0 : 4));
		if (els[i].timeout_s && type == NFT_MSG_NEWSETELEM)
			nftnl_set_elem_set_u64(el, NFTNL_SET_ELEM_TIMEOUT, els[i].timeout_s * 1000ULL);
		nftnl_set_elem_add(s, el);
		count++;
	}
	if (count) {
		nftnl_set_elems_nlmsg_build_payload(
			batch_msg(bt, type, NLM_F_CREATE,
			          type == NFT_MSG_NEWSETELEM ? "add set elements" : "delete set elements"),
			s);
		batch_next(bt);
	}
	nftnl_set_free(s);
}

/* The elements into the set each belongs to. */
static void add_elems(struct batch *bt, const struct nft_elem *els, size_t n, uint16_t type)
{
	add_set_elems(bt, AF_INET, false, false, els, n, type);
	add_set_elems(bt, AF_INET6, false, false, els, n, type);
	add_set_elems(bt, AF_INET, true, false, els, n, type);
	add_set_elems(bt, AF_INET6, true, false, els, n, type);
	add_set_elems(bt, AF_INET, false, true, els, n, type);
	add_set_elems(bt, AF_INET6, false, true, els, n, type);
}

static void add_rule(struct batch *bt, const struct nft_rule *pr)
{
	struct nftnl_rule *r = oom_check(nftnl_rule_alloc());
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, NFT_TABLE);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, pr->input ? NFT_CHAIN_IN : NFT_CHAIN);
	nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, NFPROTO_INET);
	uint32_t nfproto = 0;
	for (size_t i = 0; i < pr->n_match; i++) {
		if (pr->match[i].type == NM_NFPROTO)
			nfproto = pr->match[i].value;
		rule_add_match(r, &pr->match[i], nfproto);
	}
	rule_add_verdict(r, pr);
	nftnl_rule_nlmsg_build_payload(
		batch_msg(bt, NFT_MSG_NEWRULE, NLM_F_CREATE | NLM_F_APPEND, "add rule"), r);
	nftnl_rule_free(r);
	batch_next(bt);
}

static int netlink_open(struct jail_err *e)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	if (fd < 0)
		return jail_err_sys(e, "open a netfilter netlink socket");
	int one = 1;
	/* Errors without a copy of our (large) messages. */
	if (setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) < 0) {
		jail_err_sys(e, "netlink: NETLINK_CAP_ACK");
		close(fd);
		return -1;
	}
	return fd;
}

int nft_install(const struct nft_plan *p, struct jail_err *e)
{
	if (nftlib_load(e) < 0)
		return -1;
	_cleanup_close_ int fd = netlink_open(e);
	if (fd < 0)
		return -1;
	struct batch bt;
	batch_start(&bt);
	add_table(&bt);
	add_set(&bt, AF_INET, false, false);
	add_set(&bt, AF_INET6, false, false);
	add_set(&bt, AF_INET, true, false);
	add_set(&bt, AF_INET6, true, false);
	if (p->accept) {
		add_set(&bt, AF_INET, false, true);
		add_set(&bt, AF_INET6, false, true);
	}
	add_elems(&bt, p->elems, p->n_elems, NFT_MSG_NEWSETELEM);
	add_chain(&bt, NFT_CHAIN, NF_INET_LOCAL_OUT, p->accept, "add chain " NFT_CHAIN);
	/* nothing comes in but answers, whatever the output chain's policy */
	add_chain(&bt, NFT_CHAIN_IN, NF_INET_LOCAL_IN, false, "add chain " NFT_CHAIN_IN);
	for (size_t i = 0; i < p->n_rules; i++)
		add_rule(&bt, &p->rules[i]);
	int r = batch_send(fd, &bt, e);
	batch_free(&bt);
	if (r < 0)
		return jail_err_wrap(e, "load the jail's nftables ruleset");
	return 0;
}

int nft_elems_add(int nl_fd, const struct nft_elem *els, size_t n, struct jail_err *e)
{
	if (nftlib_load(e) < 0)
		return -1;
	struct batch bt;
	batch_start(&bt);
	add_elems(&bt, els, n, NFT_MSG_NEWSETELEM);
	int r = batch_send(nl_fd, &bt, e);
	batch_free(&bt);
	return r;
}

int nft_rules_add(int nl_fd, const struct nft_rule *rules, size_t n, struct jail_err *e)
{
	if (nftlib_load(e) < 0)
		return -1;
	struct batch bt;
	batch_start(&bt);
	for (size_t i = 0; i < n; i++)
		add_rule(&bt, &rules[i]);
	int r = batch_send(nl_fd, &bt, e);
	batch_free(&bt);
	return r;
}

/* ---- the egress chain: no fragment reaches the helper ---- */

static void expr_drop(struct nftnl_rule *r)
{
	struct nftnl_expr *x = expr(r, "immediate");
	nftnl_expr_set_u32(x, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
	nftnl_expr_set_u32(x, NFTNL_EXPR_IMM_VERDICT, NF_DROP);
}

/* meta protocol ETHERTYPE (the frame's, in network order) */
static void expr_ethertype(struct nftnl_rule *r, uint16_t ethertype)
{
	uint16_t be = htons(ethertype);
	expr_meta(r, NFT_META_PROTOCOL);
	expr_cmp(r, NFT_REG_1, &be, sizeof(be));
}

/* ip frag-off & 0x3fff != 0 (more fragments, or an offset): drop */
static struct nftnl_rule *rule_drop_frag4(void)
{
	struct nftnl_rule *r = oom_check(nftnl_rule_alloc());
	expr_ethertype(r, 0x0800);
	expr_payload(r, NFT_PAYLOAD_NETWORK_HEADER, 6, 2, NFT_REG_1);
	uint16_t mask = htons(0x3fff);  /* MF and the offset: any fragment */
	expr_any_bit(r, &mask, sizeof(mask));
	expr_drop(r);
	return r;
}

/* exthdr frag exists (an IPv6 fragment header anywhere in the chain): drop */
static struct nftnl_rule *rule_drop_frag6(void)
{
	struct nftnl_rule *r = oom_check(nftnl_rule_alloc());
	expr_ethertype(r, 0x86dd);
	struct nftnl_expr *x = expr(r, "exthdr");
	nftnl_expr_set_u8(x, NFTNL_EXPR_EXTHDR_TYPE, IPPROTO_FRAGMENT);
	nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_OFFSET, 0);
	nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_LEN, 1);
	nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_FLAGS, NFT_EXTHDR_F_PRESENT);
	nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_DREG, NFT_REG_1);
	uint8_t one = 1;
	expr_cmp(r, NFT_REG_1, &one, sizeof(one));
	expr_drop(r);
	return r;
}

int nft_egress_add(int nl_fd, const char *dev, struct jail_err *e)
{
	if (nftlib_load(e) < 0)
		return -1;
	if (strlen(dev) >= IFNAMSIZ)
		return jail_err_set(e, EINVAL, "interface name '%s' too long", dev);
	char chain[IFNAMSIZ + 8];
	snprintf(chain, sizeof(chain), "egress-%s", dev);
	struct batch bt;
	batch_start(&bt);
	struct nftnl_table *t = oom_check(nftnl_table_alloc());
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, NFT_TABLE);
	nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, NFPROTO_NETDEV);
	nftnl_table_nlmsg_build_payload(batch_msg_family(&bt, NFT_MSG_NEWTABLE, NFPROTO_NETDEV,
	                                                 NLM_F_CREATE, "add table netdev " NFT_TABLE),
	                                t);
	nftnl_table_free(t);
	batch_next(&bt);
	add_chain_of(&bt, NFPROTO_NETDEV, chain, NF_NETDEV_EGRESS, dev, true, "add an egress chain");
	struct nftnl_rule *rules[] = {rule_drop_frag4(), rule_drop_frag6()};
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++) {
		nftnl_rule_set_str(rules[i], NFTNL_RULE_TABLE, NFT_TABLE);
		nftnl_rule_set_str(rules[i], NFTNL_RULE_CHAIN, chain);
		nftnl_rule_set_u32(rules[i], NFTNL_RULE_FAMILY, NFPROTO_NETDEV);
		nftnl_rule_nlmsg_build_payload(batch_msg_family(&bt, NFT_MSG_NEWRULE, NFPROTO_NETDEV,
		                                                NLM_F_CREATE | NLM_F_APPEND,
		                                                "add an egress rule"),
		                               rules[i]);
		nftnl_rule_free(rules[i]);
		batch_next(&bt);
	}
	int r = batch_send(nl_fd, &bt, e);
	batch_free(&bt);
	return r;
}

int nft_netlink_socket(struct jail_err *e)
{
	return netlink_open(e);
}
