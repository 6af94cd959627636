/* netgate.c — the SNI gate's side of the supervisor's network (snigate.h):
 * which names it lets through, and where it connects for them.
 *
 * A name goes through the gate when its only allowed port is 443
 * (allow_name_gated) and it is not brokered (the broker has its own address).
 * The gate resolves it with the jail's DNS upstream and keeps the answers the
 * DNS filter would open (net_refusal: never the host's, the helper's or a
 * special-purpose address unless the allowlist names it).  One blocking
 * query per type, A then AAAA, over UDP, again over TCP when truncated. */
#include "addrclass.h"
#include "broker.h"
#include "log.h"
#include "netpriv.h"
#include "snigate.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

#define DNS_TC_BIT 0x02       /* in the third byte of the header */
#define RESP_MAX 65535

static bool gate_allowed(void *arg, const char *name)
{
	struct net_host *n = arg;
	return allow_name_gated(&n->allow, name) && !broker_serves(n->broker, name);
}

/* Read exactly len bytes within deadline: 0, or -1. */
static int recv_all(int fd, unsigned char *buf, size_t len, double deadline)
{
	while (len) {
		struct pollfd p = {fd, POLLIN, 0};
		double left = deadline - mono_ms();
		if (left <= 0 || poll(&p, 1, (int)left + 1) <= 0)
			return -1;
		ssize_t r = recv(fd, buf, len, MSG_DONTWAIT);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r <= 0)
			return -1;
		buf += r;
		len -= (size_t)r;
	}
	return 0;
}

/* One exchange with the upstream: the response's length, or 0. */
static size_t exchange(const struct net_host *n, bool tcp, const unsigned char *q, size_t qlen,
                       unsigned char *resp, size_t cap)
{
	double deadline = mono_ms() + RES_UPSTREAM_MS;
	_cleanup_close_ int fd = socket(n->upstream.ss_family,
	                                (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
	struct timeval tv = {.tv_sec = RES_UPSTREAM_MS / 1000 + 1};
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    connect(fd, (const struct sockaddr *)&n->upstream, n->upstream_len) < 0)
		return 0;
	if (!tcp) {
		if (send(fd, q, qlen, MSG_NOSIGNAL) < 0)
			return 0;
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, RES_UPSTREAM_MS) <= 0)
			return 0;
		ssize_t r = recv(fd, resp, cap, MSG_DONTWAIT);
		return r > 0 ? (size_t)r : 0;
	}
	unsigned char hdr[2] = {(unsigned char)(qlen >> 8), (unsigned char)qlen};
	if (send(fd, hdr, 2, MSG_NOSIGNAL | MSG_MORE) < 0 || send(fd, q, qlen, MSG_NOSIGNAL) < 0 ||
	    recv_all(fd, hdr, 2, deadline) < 0)
		return 0;
	size_t len = (size_t)hdr[0] << 8 | hdr[1];
	return len <= cap && recv_all(fd, resp, len, deadline) == 0 ? len : 0;
}

/* An address the resolver would not open, named in the allowlist with port
 * 443, which is the port the gate connects to (named with another port, the
 * ruleset opens that port only).  Even so never one that is another place
 * from the host's network, where the gate connects, than from the jail's:
 * loopback and "this host" (0.0.0.0/8, ::, also spelled inside IPv6) are the
 * jail's own there and the host's here, the helper's are its door to the
 * host's loopback, and the host's own addresses are the jail's own interface
 * there (pasta gives it the host's) and the host here, where a server bound
 * to 0.0.0.0 answers on them. */
static bool named_for_gate(const struct net_host *n, const struct dns_addr *a)
{
	enum addr_class c = addr_classify(a->family, a->addr);
	if (c == ADDR_LOOPBACK || c == ADDR_UNSPECIFIED || c == ADDR_THIS_NETWORK ||
	    c == ADDR_MAPPED || c == ADDR_COMPATIBLE || net_helper_addr(n, a) ||
	    net_host_own_addr(n, a))
		return false;
	for (size_t i = 0; i < n->allow.n; i++) {
		const struct allow_entry *e = &n->allow.v[i];
		size_t alen = a->family == AF_INET ? 4 : 16;
		enum allow_kind kind = a->family == AF_INET ? ALLOW_V4 : ALLOW_V6;
		if (e->kind == kind && e->port == GATE_PORT && memcmp(e->addr, a->addr, alen) == 0)
			return true;
	}
	return false;
}

/* The name's addresses of one type that the gate may connect to, appended
 * to out (*k of max). */
static void resolve_type(struct net_host *n, const char *name, uint16_t type,
                         struct dns_addr *out, size_t max, size_t *k, char *why, size_t cap)
{
	struct dns_question q = {.qtype = type, .qclass = DNS_C_IN, .edns = true};
	snprintf(q.name, sizeof(q.name), "%s", name);
	uint16_t id;
	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		return;
	unsigned char query[RES_MAX_QUERY];
	size_t qlen = dns_build_upstream(&q, id, query, sizeof(query));
	_cleanup_free_ unsigned char *resp = xmalloc(RESP_MAX);
	size_t rlen = qlen ? exchange(n, false, query, qlen, resp, RESP_MAX) : 0;
	if (rlen > 2 && (resp[2] & DNS_TC_BIT))
		rlen = exchange(n, true, query, qlen, resp, RESP_MAX);
	struct dns_question r;
	if (!rlen || dns_parse_response(resp, rlen, &r) < 0 || r.id != id || r.qtype != type ||
	    strcmp(r.name, name) != 0 || (resp[3] & 0xf) != DNS_RCODE_OK) {
		snprintf(why, cap, "no answer from the DNS upstream");
		return;
	}
	struct dns_addr addrs[GATE_MAX_ADDRS];
	size_t na = 0;
	if (dns_answer_addrs(resp, rlen, name, addrs, GATE_MAX_ADDRS, &na) < 0)
		return;
	for (size_t i = 0; i < na && *k < max; i++) {
		const char *no = net_refusal(n, &addrs[i]);
		if (no && !named_for_gate(n, &addrs[i])) {
			snprintf(why, cap, "its address is %s", no);
			continue;
		}
		out[(*k)++] = addrs[i];
	}
}

static size_t gate_resolve(void *arg, const char *name, struct dns_addr *out, size_t max,
                           char *why, size_t cap)
{
	struct net_host *n = arg;
	size_t k = 0;
	snprintf(why, cap, "it has no address");
	resolve_type(n, name, DNS_T_A, out, max, &k, why, cap);
	resolve_type(n, name, DNS_T_AAAA, out, max, &k, why, cap);
	return k;
}

int net_gate_start(struct net_host *n, struct jail_err *e)
{
	if (n->gate_fd < 0)
		return 0;
	const struct snigate_ops ops = {gate_allowed, gate_resolve, n};
	return snigate_start(steal_fd(&n->gate_fd), &ops, n->quiet, &n->gate, e);
}

void net_gate_stop(struct net_host *n)
{
	n->blocked += snigate_stop(n->gate);
	n->gate = NULL;
}
