/* netwatch.c — the supervisor's network thread: the filtering DNS resolver on
 * the UDP and TCP sockets init made at 127.0.0.1:53 in the jail's netns, and
 * the NFLOG reader that reports denied connections.
 *
 * An allowed name (exact or *.suffix) is resolved upstream; its A/AAAA answers
 * (after CNAMEs) go into the ruleset's sets with the TTL as timeout *before*
 * the answer reaches the jail, so the connection that follows is let through.
 * Every other name gets NXDOMAIN and is reported.  With --net open the resolver
 * only forwards. */
#include "log.h"
#include "netpriv.h"
#include "nflog.h"
#include "nft.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#define UPSTREAM_TIMEOUT_MS 2500
#define TTL_MIN 30          /* an address stays open at least this long (s) */
#define TTL_MAX 86400
#define MAX_ADDRS 32
#define MAX_PORTS 16
#define DNS_BUF 65536
#define TCP_CLIENT_MS 3000  /* all the time one TCP DNS client gets */
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

static void report_refused(struct net_host *n, const char *name)
{
	n->refused++;
	if (n->quiet)
		return;
	_cleanup_free_ char *esc = escape_name(name);
	if (!repeated(n, esc))
		log_info("dns: refused %s (not on the allowlist)", esc);
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

/* ---- upstream ---- */

static int wait_fd(int fd, short ev, int ms)
{
	struct pollfd p = {fd, ev, 0};
	int r;
	do
		r = poll(&p, 1, ms);
	while (r < 0 && errno == EINTR);
	return r > 0 ? 0 : -1;
}

/* Does resp answer our query (same id, same question)? */
static bool answers(const unsigned char *resp, size_t len, const unsigned char *q, size_t qlen)
{
	struct dns_question a, b;
	return dns_parse_response(resp, len, &a) == 0 && dns_parse_query(q, qlen, &b) == 0 &&
	       a.id == b.id && a.qtype == b.qtype && a.qclass == b.qclass &&
	       strcmp(a.name, b.name) == 0;
}

static ssize_t upstream_udp(const struct net_host *n, const unsigned char *q, size_t qlen,
                            unsigned char *out, size_t cap)
{
	_cleanup_close_ int s = socket(n->upstream.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (const struct sockaddr *)&n->upstream, n->upstream_len) < 0)
		return -1;
	for (int attempt = 0; attempt < 2; attempt++) {
		if (send(s, q, qlen, 0) < 0)
			return -1;
		while (wait_fd(s, POLLIN, UPSTREAM_TIMEOUT_MS / 2) == 0) {
			ssize_t r = recv(s, out, cap, 0);
			if (r < 0)
				return -1;
			if (answers(out, (size_t)r, q, qlen))
				return r;  /* anything else is stray or spoofed: keep waiting */
		}
	}
	return -1;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Read exactly len bytes before the deadline: a client trickling bytes cannot
 * hold the thread longer than that. */
static int read_full(int s, unsigned char *buf, size_t len, long long deadline)
{
	for (size_t got = 0; got < len;) {
		long long left = deadline - now_ms();
		if (left <= 0 || wait_fd(s, POLLIN, (int)left) < 0)
			return -1;
		ssize_t r = recv(s, buf + got, len - got, 0);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static int write_framed(int s, const unsigned char *msg, size_t len)
{
	unsigned char hdr[2] = {(unsigned char)(len >> 8), (unsigned char)len};
	return write_all(s, hdr, 2) < 0 || write_all(s, msg, len) < 0 ? -1 : 0;
}

static ssize_t upstream_tcp(const struct net_host *n, const unsigned char *q, size_t qlen,
                            unsigned char *out, size_t cap)
{
	_cleanup_close_ int s =
		socket(n->upstream.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		return -1;
	if (connect(s, (const struct sockaddr *)&n->upstream, n->upstream_len) < 0 &&
	    (errno != EINPROGRESS || wait_fd(s, POLLOUT, UPSTREAM_TIMEOUT_MS) < 0))
		return -1;
	int err = 0;
	socklen_t el = sizeof(err);
	if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err ||
	    fcntl(s, F_SETFL, 0) < 0 || write_framed(s, q, qlen) < 0)
		return -1;
	unsigned char hdr[2];
	long long deadline = now_ms() + UPSTREAM_TIMEOUT_MS;
	if (read_full(s, hdr, 2, deadline) < 0)
		return -1;
	size_t len = (size_t)(hdr[0] << 8 | hdr[1]);
	if (len > cap || read_full(s, out, len, deadline) < 0 || !answers(out, len, q, qlen))
		return -1;
	return (ssize_t)len;
}

/* ---- the filter ---- */

static bool in4(const unsigned char *a, const char *net, int bits)
{
	unsigned char b[4];
	inet_pton(AF_INET, net, b);
	uint32_t x = (uint32_t)a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3];
	uint32_t y = (uint32_t)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3];
	return bits == 0 || (x >> (32 - bits)) == (y >> (32 - bits));
}

/* Addresses a DNS answer may never open: loopback, link-local (cloud
 * metadata), multicast, unspecified, the helper's own DNS forwarder; those
 * have to be named literally. */
static bool may_open(const struct net_host *n, const struct dns_addr *a)
{
	const unsigned char *p = a->addr;
	if (a->family == AF_INET)
		return !in4(p, "0.0.0.0", 8) && !in4(p, "127.0.0.0", 8) &&
		       !in4(p, "169.254.0.0", 16) && !in4(p, "224.0.0.0", 4) &&
		       !(n->has_helper_dns && memcmp(p, n->helper_dns, 4) == 0);
	static const unsigned char zero[16];
	bool loop = memcmp(p, zero, 15) == 0 && (p[15] == 1 || p[15] == 0);
	bool mapped = memcmp(p, zero, 10) == 0 && p[10] == 0xff && p[11] == 0xff;
	return !loop && !mapped && p[0] != 0xff && !(p[0] == 0xfe && (p[1] & 0xc0) == 0x80);
}

static uint32_t clamp_ttl(uint32_t ttl)
{
	return ttl < TTL_MIN ? TTL_MIN : ttl > TTL_MAX ? TTL_MAX : ttl;
}

/* Put the answer's addresses into the sets for the name's ports. */
static int open_answer(struct net_host *n, const char *name, const unsigned char *resp,
                       size_t len, const uint16_t *ports, size_t np)
{
	struct dns_addr addrs[MAX_ADDRS];
	struct nft_elem els[MAX_ADDRS * MAX_PORTS];
	size_t k, ne = 0;
	if (dns_answer_addrs(resp, len, name, addrs, MAX_ADDRS, &k) < 0)
		return -1;
	for (size_t i = 0; i < k; i++) {
		char a[INET6_ADDRSTRLEN];
		if (!may_open(n, &addrs[i])) {
			_cleanup_free_ char *esc = escape_name(name);
			inet_ntop(addrs[i].family, addrs[i].addr, a, sizeof(a));
			log_warn("dns: %s resolved to %s; not opened (allow it by address)", esc, a);
			continue;
		}
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

static size_t local_answer(const unsigned char *q, const struct dns_question *qq, uint8_t rcode,
                           const struct dns_addr *addrs, size_t n, unsigned char *out,
                           size_t cap)
{
	return dns_build_answer(q, qq, rcode, addrs, n, out, cap);
}

/* One query from the jail → the reply to send back (0: none). */
static size_t resolve(struct net_host *n, unsigned char *q, size_t len, bool tcp,
                      unsigned char *out, size_t cap)
{
	struct dns_question qq;
	if (dns_parse_query(q, len, &qq) < 0)
		return 0;
	if (strcmp(qq.name, ALLOW_HOST_NAME) == 0)
		return local_answer(q, &qq, n->n_host_addrs ? DNS_RCODE_OK : DNS_RCODE_NXDOMAIN,
		                    n->host_addrs, n->n_host_addrs, out, cap);
	uint16_t ports[MAX_PORTS];
	char norm[DNS_MAX_NAME];
	snprintf(norm, sizeof(norm), "%s", qq.name);
	size_t np = allow_normalize_name(norm) && strcmp(norm, qq.name) == 0
	                    ? allow_name_ports(&n->allow, qq.name, ports, MAX_PORTS)
	                    : 0;
	if (n->mode == NET_ALLOW && (np == 0 || qq.qclass != DNS_C_IN)) {
		report_refused(n, qq.name);
		return local_answer(q, &qq, DNS_RCODE_NXDOMAIN, NULL, 0, out, cap);
	}
	uint16_t id;
	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		return local_answer(q, &qq, DNS_RCODE_SERVFAIL, NULL, 0, out, cap);
	q[0] = (unsigned char)(id >> 8);  /* our own id upstream; the jail's back */
	q[1] = (unsigned char)id;
	ssize_t r = tcp ? upstream_tcp(n, q, len, out, cap) : upstream_udp(n, q, len, out, cap);
	q[0] = (unsigned char)(qq.id >> 8);
	q[1] = (unsigned char)qq.id;
	if (r < 0 || (n->mode == NET_ALLOW &&
	              open_answer(n, qq.name, out, (size_t)r, ports, np) < 0))
		return local_answer(q, &qq, DNS_RCODE_SERVFAIL, NULL, 0, out, cap);
	out[0] = q[0];
	out[1] = q[1];
	return (size_t)r;
}

static void serve_udp(struct net_host *n)
{
	static unsigned char q[4096], out[DNS_BUF];
	for (int i = 0; i < BURST; i++) {
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		ssize_t len = recvfrom(n->udp, q, sizeof(q), 0, (struct sockaddr *)&from, &fl);
		if (len < 0)
			return;
		size_t r = resolve(n, q, (size_t)len, false, out, sizeof(out));
		if (r && sendto(n->udp, out, r, 0, (struct sockaddr *)&from, fl) < 0)
			log_debug("dns: reply to the jail: %s", strerror(errno));
	}
}

/* One TCP client: a few framed queries within a few seconds, then close. */
static void serve_tcp(struct net_host *n)
{
	static unsigned char q[DNS_BUF], out[DNS_BUF];
	_cleanup_close_ int c = accept4(n->tcp, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return;
	long long deadline = now_ms() + TCP_CLIENT_MS;
	for (int i = 0; i < 8; i++) {
		unsigned char hdr[2];
		if (read_full(c, hdr, 2, deadline) < 0)
			return;
		size_t len = (size_t)(hdr[0] << 8 | hdr[1]);
		if (read_full(c, q, len, deadline) < 0)
			return;
		size_t r = resolve(n, q, len, true, out, sizeof(out));
		if (!r || write_framed(c, out, r) < 0)
			return;
	}
}

static void *watch_main(void *arg)
{
	struct net_host *n = arg;
	struct pollfd p[4] = {{n->stop[0], POLLIN, 0}, {n->udp, POLLIN, 0},
	                      {n->tcp, POLLIN, 0}, {n->nflog, POLLIN, 0}};
	nfds_t np = n->nflog >= 0 ? 4 : 3;
	for (;;) {
		if (poll(p, np, -1) < 0) {
			if (errno == EINTR)
				continue;
			log_warn("network thread: poll: %s", strerror(errno));
			return NULL;
		}
		if (p[0].revents)
			return NULL;
		if (p[1].revents)
			serve_udp(n);
		if (p[2].revents)
			serve_tcp(n);
		if (np == 4 && p[3].revents)
			read_nflog(n);
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
	if (set_nonblock(n->udp, e) < 0 || set_nonblock(n->tcp, e) < 0 ||
	    (n->nflog >= 0 && set_nonblock(n->nflog, e) < 0))
		return -1;
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
}
