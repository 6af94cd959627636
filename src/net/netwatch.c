/* netwatch.c — the supervisor's network thread: one poll loop for the
 * filtering DNS resolver (its transport is resolver.c; what it answers is
 * decided here) and the NFLOG reader that reports denied connections.
 *
 * An allowed name (exact or *.suffix) is resolved upstream; the A/AAAA answers
 * (after CNAMEs) that may be opened — public addresses, never the host's, the
 * helper's or special-purpose ones (addrclass.c), unless the allowlist names
 * them — go into the ruleset's sets with the TTL as timeout *before* the
 * answer, rebuilt from them alone, reaches the jail.  Every other name gets
 * NXDOMAIN and is reported.  With --net open the resolver only forwards. */
#include "addrclass.h"
#include "addrwatch.h"
#include "broker.h"
#include "hostlisten.h"
#include "log.h"
#include "netpriv.h"
#include "nflog.h"
#include "nft.h"
#include "snigate.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#define TTL_MIN 30          /* an address stays open at least this long (s) */
#define TTL_MAX 86400
#define MAX_ADDRS 32
#define MAX_PORTS 16
#define DNS_BUF 65536
#define BURST 64            /* packets handled per wakeup, so no source starves the others */

/* ---- reporting ---- */

static void memo_add(struct net_host *n, const struct dns_addr *a, const char *name)
{
	struct net_memo *m = &n->memo[n->memo_next++ % NET_MEMO];
	m->family = a->family;
	memcpy(m->addr, a->addr, sizeof(m->addr));
	snprintf(m->name, sizeof(m->name), "%s", name);
}

static const char *memo_find(const struct net_host *n, int family, const unsigned char *addr)
{
	size_t alen = family == AF_INET ? 4 : 16;
	for (size_t i = 0; i < NET_MEMO; i++)
		if (n->memo[i].family == family && memcmp(n->memo[i].addr, addr, alen) == 0)
			return n->memo[i].name;
	return NULL;
}

/* A client retrying in a loop (or asking for A and AAAA) gets one line a
 * second, not a flood. */
static bool repeated(struct net_host *n, const char *line)
{
	time_t now = time(NULL);
	if (strcmp(line, n->last_line) == 0 && now - n->last_time < 1)
		return true;
	snprintf(n->last_line, sizeof(n->last_line), "%s", line);
	n->last_time = now;
	return false;
}

/* A refused question: a name off the list, or an allowed name asked in
 * another class than IN (CHAOS, HESIOD), which nothing needs: the line says
 * which, so an allowed name does not read as one off the list. */
static void report_refused(struct net_host *n, const struct dns_question *q, bool allowed)
{
	n->refused++;
	if (n->quiet)
		return;
	_cleanup_free_ char *esc = escape_name(q->name);
	char line[sizeof(n->last_line)];
	if (allowed)
		snprintf(line, sizeof(line), "dns: refused %s (class %u, not IN)", esc,
		         (unsigned)q->qclass);
	else
		snprintf(line, sizeof(line), "dns: refused %s (not on the allowlist)", esc);
	if (!repeated(n, line))
		log_info("%s", line);
}

static void report_blocked(const struct nflog_conn *c, void *arg)
{
	struct net_host *n = arg;
	n->blocked++;
	if (n->quiet)
		return;
	char a[INET6_ADDRSTRLEN], line[sizeof(n->last_line)];
	inet_ntop(c->family, c->daddr, a, sizeof(a));
	const char *name = memo_find(n, c->family, c->daddr);
	_cleanup_free_ char *esc = name ? escape_name(name) : NULL;
	snprintf(line, sizeof(line), c->family == AF_INET6 ? "%s [%s]:%u%s%s%s" : "%s %s:%u%s%s%s",
	         c->proto == IPPROTO_TCP ? "tcp" : "udp", a, c->dport, esc ? " (" : "",
	         esc ? esc : "", esc ? ")" : "");
	if (!repeated(n, line))
		log_info("blocked %s", line);
}

static void read_nflog(struct net_host *n)
{
	static unsigned char buf[DNS_BUF];
	for (int i = 0; i < BURST; i++) {
		ssize_t len = recv(n->nflog, buf, sizeof(buf), 0);
		if (len < 0 && errno == ENOBUFS)
			continue;  /* the kernel dropped some: the count is a lower bound */
		if (len <= 0)
			return;
		nflog_each(buf, (size_t)len, report_blocked, n);
	}
}

/* ---- the filter ---- */

static const char *local_match(const struct net_host *n, const struct dns_addr *a, bool helper)
{
	unsigned char v4[4];
	bool embeds = a->family == AF_INET6 && addr_embedded_v4(a->addr, v4);
	for (size_t i = 0; i < n->n_local; i++) {
		const struct net_local *l = &n->local[i];
		size_t alen = l->family == AF_INET ? 4 : 16;
		if (l->helper == helper &&
		    ((l->family == a->family && memcmp(l->addr, a->addr, alen) == 0) ||
		     (embeds && l->family == AF_INET && memcmp(l->addr, v4, 4) == 0)))
			return helper ? "network helper" : "the host";
	}
	return NULL;
}

/* Why a DNS answer may not open this address; NULL: it may.  The helper's
 * addresses (gateway, DNS forwarder) first, also spelled inside an IPv6
 * address, then the special-purpose ranges, then the host's own addresses,
 * those of the start and those it has now. */
const char *net_refusal(const struct net_host *n, const struct dns_addr *a)
{
	const char *why = local_match(n, a, true);
	if (why)
		return why;
	enum addr_class c = addr_classify(a->family, a->addr);
	if (c != ADDR_PUBLIC)
		return addr_class_name(c);
	return net_host_own_addr(n, a) ? "the host" : NULL;
}

bool net_helper_addr(const struct net_host *n, const struct dns_addr *a)
{
	return local_match(n, a, true) != NULL;
}

bool net_host_own_addr(const struct net_host *n, const struct dns_addr *a)
{
	return local_match(n, a, false) != NULL || net_host_owns_now(a);
}

/* Named by address in the allowlist: the ruleset already opens it. */
bool net_named_literally(const struct net_host *n, const struct dns_addr *a)
{
	for (size_t i = 0; i < n->allow.n; i++) {
		const struct allow_entry *e = &n->allow.v[i];
		if ((e->kind == ALLOW_V4 && a->family == AF_INET && memcmp(e->addr, a->addr, 4) == 0) ||
		    (e->kind == ALLOW_V6 && a->family == AF_INET6 && memcmp(e->addr, a->addr, 16) == 0))
			return true;
	}
	return false;
}

static void report_not_opened(struct net_host *n, const char *name, const struct dns_addr *a,
                              const char *why)
{
	if (n->quiet)
		return;
	char text[INET6_ADDRSTRLEN], line[sizeof(n->last_line)];
	inet_ntop(a->family, a->addr, text, sizeof(text));
	_cleanup_free_ char *esc = escape_name(name);
	snprintf(line, sizeof(line), "dns: %s answered %s (%s); not opened", esc, text, why);
	if (!repeated(n, line))
		log_info("%s", line);
}

static uint32_t clamp_ttl(uint32_t ttl)
{
	return ttl < TTL_MIN ? TTL_MIN : ttl > TTL_MAX ? TTL_MAX : ttl;
}

/* Keep the addresses of the queried family that may be opened (in place);
 * returns how many. */
static size_t filter_answer(struct net_host *n, const struct dns_question *q,
                            struct dns_addr *addrs, size_t k)
{
	int family = q->qtype == DNS_T_A ? AF_INET : AF_INET6;
	size_t kept = 0;
	for (size_t i = 0; i < k; i++) {
		const char *why = net_refusal(n, &addrs[i]);
		if (addrs[i].family != family)
			continue;
		if (why && !net_named_literally(n, &addrs[i])) {
			report_not_opened(n, q->name, &addrs[i], why);
			continue;
		}
		if (addrs[i].ttl > TTL_MAX)
			addrs[i].ttl = TTL_MAX;  /* no longer in the client's cache than in the set */
		addrs[kept++] = addrs[i];
	}
	return kept;
}

/* Put the kept addresses into the sets for the name's ports (those named
 * literally are there already). */
static int open_addrs(struct net_host *n, const char *name, const struct dns_addr *addrs,
                      size_t k)
{
	uint16_t ports[MAX_PORTS];
	size_t np = allow_name_ports(&n->allow, name, ports, MAX_PORTS);
	struct nft_elem els[MAX_ADDRS * MAX_PORTS];
	size_t ne = 0;
	for (size_t i = 0; i < k; i++) {
		if (net_named_literally(n, &addrs[i]))
			continue;
		memo_add(n, &addrs[i], name);
		for (size_t j = 0; j < np; j++) {
			struct nft_elem *el = &els[ne++];
			memset(el, 0, sizeof(*el));
			el->family = addrs[i].family;
			memcpy(el->addr, addrs[i].addr, sizeof(el->addr));
			el->port = ports[j];
			el->timeout_s = clamp_ttl(addrs[i].ttl);
		}
	}
	struct jail_err e;
	if (ne && nft_elems_add(n->nft, els, ne, &e) < 0) {
		log_warn("dns: %s", e.msg);
		return -1;
	}
	return 0;
}

/* A brokered host is the broker's address inside the jail (A), a name
 * through the SNI gate the gate's; no other record, so no client goes around
 * them over IPv6 (neither has an IPv6 address) or by an HTTPS record's
 * address hints. */
static size_t local_answer(const char *addr, const unsigned char *qpkt,
                           const struct dns_question *q, unsigned char *out, size_t cap)
{
	struct dns_addr a = {.family = AF_INET, .ttl = TTL_MIN};
	if (inet_pton(AF_INET, addr, a.addr) != 1)
		return 0;
	bool v4 = q->qtype == DNS_T_A;
	return dns_build_answer(qpkt, q, DNS_RCODE_OK, v4 ? &a : NULL, v4, out, cap);
}

/* host.jail.internal: the helper's addresses for the host's loopback, only
 * those of the families where a host:PORT server listens (hostlisten.h: the
 * other family would leave the client's connection hanging); all of them
 * while none listens yet. */
static size_t answer_host(struct net_host *n, const struct dns_question *q,
                          const unsigned char *qpkt, unsigned char *out, size_t cap)
{
	if (!n->n_host_addrs)
		return dns_build_answer(qpkt, q, DNS_RCODE_NXDOMAIN, NULL, 0, out, cap);
	uint16_t ports[64];
	size_t np = allow_host_ports(&n->allow, ports, ARRAY_SIZE(ports));
	unsigned fams;
	if (hostlisten_families(ports, np, &fams) < 0)  /* then answer all, as if none listened */
		log_debug("dns: which of the host's loopback families listen: %s", strerror(errno));
	struct dns_addr addrs[ARRAY_SIZE(n->host_addrs)];
	size_t na = 0;
	for (size_t i = 0; i < n->n_host_addrs; i++) {
		unsigned f = n->host_addrs[i].family == AF_INET ? HOSTLISTEN_V4 : HOSTLISTEN_V6;
		if (!fams || (fams & f))
			addrs[na++] = n->host_addrs[i];
	}
	return dns_build_answer(qpkt, q, DNS_RCODE_OK, addrs, na, out, cap);
}

/* A query from the jail: answered here (NXDOMAIN for a name off the list,
 * host.jail.internal), or 0: ask upstream. */
static size_t decide(void *arg, const struct dns_question *q, const unsigned char *qpkt,
                     unsigned char *out, size_t cap)
{
	struct net_host *n = arg;
	if (strcmp(q->name, ALLOW_HOST_NAME) == 0)
		return answer_host(n, q, qpkt, out, cap);
	if (q->qclass == DNS_C_IN && broker_serves(n->broker, q->name))
		return local_answer(BROKER_ADDR, qpkt, q, out, cap);
	if (n->mode != NET_ALLOW)
		return 0;
	uint16_t ports[1];
	char norm[DNS_MAX_NAME];
	snprintf(norm, sizeof(norm), "%s", q->name);
	bool allowed = allow_normalize_name(norm) && strcmp(norm, q->name) == 0 &&
	               allow_name_ports(&n->allow, q->name, ports, 1) > 0;
	if (allowed && q->qclass == DNS_C_IN)
		return n->gate && allow_name_gated(&n->allow, q->name)
		       ? local_answer(GATE_ADDR, qpkt, q, out, cap) : 0;
	report_refused(n, q, allowed);
	return dns_build_answer(qpkt, q, DNS_RCODE_NXDOMAIN, NULL, 0, out, cap);
}

/* The upstream response as it is (net=open, or a type that opens nothing),
 * with the client's spelling of the question. */
static size_t pass_through(const struct dns_question *q, const unsigned char *qpkt,
                           const unsigned char *resp, size_t rlen, unsigned char *out,
                           size_t cap)
{
	struct dns_question r;
	if (rlen > cap || dns_parse_response(resp, rlen, &r) < 0)
		return 0;
	memcpy(out, resp, rlen);
	if (r.end == q->end && !(resp[DNS_HEADER] & 0xc0))
		memcpy(out + DNS_HEADER, qpkt + DNS_HEADER, q->end - DNS_HEADER);
	return rlen;
}

/* The reply to an allowed question from upstream's response: for A and AAAA
 * only the addresses that may be opened, each opened before the jail sees it. */
static size_t finish(void *arg, const struct dns_question *q, const unsigned char *qpkt,
                     unsigned char *resp, size_t rlen, unsigned char *out, size_t cap)
{
	struct net_host *n = arg;
	if (!resp)
		return dns_build_answer(qpkt, q, DNS_RCODE_SERVFAIL, NULL, 0, out, cap);
	if (n->mode != NET_ALLOW)
		return pass_through(q, qpkt, resp, rlen, out, cap);
	uint8_t rcode = resp[3] & 0xf;
	if (q->qtype != DNS_T_A && q->qtype != DNS_T_AAAA)
		return rcode == DNS_RCODE_OK || rcode == DNS_RCODE_NXDOMAIN
		               ? pass_through(q, qpkt, resp, rlen, out, cap)
		               : dns_build_answer(qpkt, q, rcode, NULL, 0, out, cap);
	struct dns_addr addrs[MAX_ADDRS];
	size_t k = 0;
	if (rcode != DNS_RCODE_OK)
		return dns_build_answer(qpkt, q, rcode, NULL, 0, out, cap);
	if (dns_answer_addrs(resp, rlen, q->name, addrs, MAX_ADDRS, &k) < 0)
		return dns_build_answer(qpkt, q, DNS_RCODE_SERVFAIL, NULL, 0, out, cap);
	k = filter_answer(n, q, addrs, k);
	if (open_addrs(n, q->name, addrs, k) < 0)
		return dns_build_answer(qpkt, q, DNS_RCODE_SERVFAIL, NULL, 0, out, cap);
	return dns_build_answer(qpkt, q, DNS_RCODE_OK, addrs, k, out, cap);
}

/* --net open: the addresses the host took since the start, and those its
 * new local routes give it, closed as its others are (net.c). */
static void close_new_addrs(struct net_host *n)
{
	struct nft_elem els[NET_LOCAL_MAX];
	struct addr_prefix pre[NET_PREFIX_MAX];
	size_t k, np;
	while ((k = addrwatch_read(n->addrwatch, els, ARRAY_SIZE(els), pre, ARRAY_SIZE(pre),
	                           &np)) > 0 || np > 0) {
		struct jail_err e;
		if (k && nft_elems_add(n->nft, els, k, &e) < 0)
			log_warn("network: close the host's new address: %s", e.msg);
		for (size_t i = 0; i < np; i++)
			if (net_close_prefix(n, &pre[i], &e) < 0)
				log_warn("network: %s", e.msg);
	}
}

static void *watch_main(void *arg)
{
	struct net_host *n = arg;
	struct pollfd p[3 + RES_MAX_POLL];
	for (;;) {
		nfds_t np = 0;
		p[np++] = (struct pollfd){n->stop[0], POLLIN, 0};
		if (n->nflog >= 0)
			p[np++] = (struct pollfd){n->nflog, POLLIN, 0};
		nfds_t aw = np;
		if (n->addrwatch >= 0 && n->nft >= 0)
			p[np++] = (struct pollfd){n->addrwatch, POLLIN, 0};
		size_t base = np;
		np += resolver_pollfds(n->resolver, p + base);
		if (poll(p, np, resolver_timeout_ms(n->resolver)) < 0) {
			if (errno == EINTR)
				continue;
			log_warn("network thread: poll: %s", strerror(errno));
			return NULL;
		}
		if (p[0].revents)
			return NULL;
		if (n->nflog >= 0 && p[1].revents)
			read_nflog(n);
		if (aw < base && p[aw].revents)
			close_new_addrs(n);
		resolver_handle(n->resolver, p + base, np - base);
	}
}

static int set_nonblock(int fd, struct jail_err *e)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return jail_err_sys(e, "make a network socket non-blocking");
	return 0;
}

int net_watch_start(struct net_host *n, struct jail_err *e)
{
	if (n->nflog >= 0 && set_nonblock(n->nflog, e) < 0)
		return -1;
	const struct resolver_ops ops = {decide, finish, n};
	n->resolver = resolver_new(n->udp, n->tcp, &n->upstream, n->upstream_len, &ops);
	if (pipe2(n->stop, O_CLOEXEC) < 0)
		return jail_err_sys(e, "pipe");
	int r = pthread_create(&n->thread, NULL, watch_main, n);
	if (r != 0)
		return jail_err_set(e, r, "start the DNS/NFLOG thread");
	n->running = true;
	return 0;
}

void net_watch_stop(struct net_host *n)
{
	if (n->running) {
		/* Report what is still queued before the thread ends. */
		if (write_all(n->stop[1], "x", 1) < 0)
			log_warn("stop the network thread: %s", strerror(errno));
		pthread_join(n->thread, NULL);
		n->running = false;
		if (n->nflog >= 0)
			read_nflog(n);
	}
	for (int i = 0; i < 2; i++)
		if (n->stop[i] >= 0)
			close(steal_fd(&n->stop[i]));
	resolver_free(n->resolver);
	n->resolver = NULL;
}
