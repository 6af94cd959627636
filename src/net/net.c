/* net.c — the jail's network: lo only (none), an allowlist (allow), or open.
 *
 * init, inside the new netns and still holding capabilities:
 *   lo up → (allow) nftables ruleset, NFLOG socket, netlink socket for the sets
 *   → DNS listeners on 127.0.0.1:53 → each fd to the supervisor (SYNC_NET).
 * supervisor, on the host:
 *   receive the fds → start pasta / slirp4netns on the child's netns → open
 *   the host's loopback for host:PORT entries → the broker, the SNI gate →
 *   the DNS/NFLOG thread. */
#include "net.h"
#include "nftload.h"

#include "addrclass.h"
#include "addrwatch.h"
#include "broker.h"
#include "log.h"
#include "netpriv.h"
#include "nflog.h"
#include "nft.h"
#include "snigate.h"
#include "sync.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

int net_lo_up(struct jail_err *e)
{
	_cleanup_close_ int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return jail_err_sys(e, "socket for bringing up lo");
	struct ifreq ifr = {0};
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		return jail_err_sys(e, "get flags of lo");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		return jail_err_sys(e, "bring up lo");
	return 0;
}

/* A socket on a loopback address of the jail's netns: a port below 1024
 * needs the capability init still has; the supervisor serves it from the
 * host (the DNS on 127.0.0.1:53, the broker on BROKER_ADDR:443). */
static int jail_listener(int type, const char *addr, uint16_t port, const char *what,
                         struct jail_err *e)
{
	_cleanup_close_ int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return jail_err_sys(e, "socket for the jail's %s", what);
	int one = 1;
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(port)};
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		return jail_err_set(e, EINVAL, "the jail's %s: bad address %s", what, addr);
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		return jail_err_sys(e, "bind the jail's %s to %s:%u", what, addr, port);
	if (type == SOCK_STREAM && listen(fd, 64) < 0)
		return jail_err_sys(e, "listen on the jail's %s socket", what);
	return steal_fd(&fd);
}

static int dns_listener(int type, struct jail_err *e)
{
	return jail_listener(type, "127.0.0.1", NET_DNS_PORT, "DNS", e);
}

static int send_fd(int sock, enum net_fd_kind kind, int fd, struct jail_err *e)
{
	int k = kind;
	int r = sync_send(sock, SYNC_NET, &k, sizeof(k), fd, e);
	if (fd >= 0)
		close(fd);
	return r;
}

/* Does this configuration load a ruleset?  --net allow and --net open
 * always: open mode's small one closes the host itself (its own addresses,
 * and the helper's gateway, which host:PORT entries make the helper map to
 * the host's loopback) while everything else passes. */
static bool wants_ruleset(const struct jail_config *cfg)
{
	return cfg->net == NET_ALLOW || cfg->net == NET_OPEN;
}

/* The ruleset; *gate: may a name go through the SNI gate (its listener is
 * wanted)? */
static int install_ruleset(const struct jail_config *cfg, bool *gate, struct jail_err *e)
{
	struct allow_list allow;
	if (allow_parse(&cfg->allow, &allow, e) < 0)
		return -1;
	*gate = cfg->net == NET_ALLOW && allow_gate_wanted(&allow);
	struct nft_plan plan;
	if (cfg->net == NET_ALLOW)
		nft_plan_build(&allow, &plan);
	else
		nft_plan_build_open(&plan);
	int r = nft_install(&plan, e);
	nft_plan_free(&plan);
	allow_free(&allow);
	return r;
}

int net_jail_setup(const struct jail_config *cfg, bool broker, bool lo_is_up, int sync_sock,
                   struct jail_err *e)
{
	bool gate = false;
	if (!lo_is_up && net_lo_up(e) < 0)
		return -1;
	if (cfg->net == NET_NONE)
		return 0;
	if (wants_ruleset(cfg)) {
		if (install_ruleset(cfg, &gate, e) < 0)
			return -1;
		int nft = nft_netlink_socket(e);
		if (nft < 0 || send_fd(sync_sock, NETFD_NFT, nft, e) < 0)
			return -1;
		int nflog = nflog_open(NFT_LOG_GROUP, e);
		if (nflog < 0 || send_fd(sync_sock, NETFD_NFLOG, nflog, e) < 0)
			return -1;
	}
	int udp = dns_listener(SOCK_DGRAM, e);
	if (udp < 0 || send_fd(sync_sock, NETFD_DNS_UDP, udp, e) < 0)
		return -1;
	int tcp = dns_listener(SOCK_STREAM, e);
	if (tcp < 0 || send_fd(sync_sock, NETFD_DNS_TCP, tcp, e) < 0)
		return -1;
	if (broker) {
		int bl = jail_listener(SOCK_STREAM, BROKER_ADDR, BROKER_PORT, "secrets broker", e);
		if (bl < 0 || send_fd(sync_sock, NETFD_BROKER, bl, e) < 0)
			return -1;
	}
	if (gate) {
		int gl = jail_listener(SOCK_STREAM, GATE_ADDR, GATE_PORT, "TLS gate", e);
		if (gl < 0 || send_fd(sync_sock, NETFD_GATE, gl, e) < 0)
			return -1;
	}
	return send_fd(sync_sock, NETFD_DONE, -1, e);
}

/* ---- the supervisor ---- */

static int recv_fds(struct net_host *n, int sock, struct jail_err *e)
{
	for (;;) {
		int kind = 0, fd = -1;
		size_t len = sizeof(kind);
		if (sync_recv(sock, SYNC_NET, &kind, &len, &fd, e) < 0)
			return -1;
		int *slot = kind == NETFD_DNS_UDP ? &n->udp : kind == NETFD_DNS_TCP ? &n->tcp
		            : kind == NETFD_NFT ? &n->nft : kind == NETFD_NFLOG ? &n->nflog
		            : kind == NETFD_BROKER && n->broker ? &n->broker_fd
		            : kind == NETFD_GATE && n->mode == NET_ALLOW ? &n->gate_fd : NULL;
		if (kind == NETFD_DONE && fd < 0)
			return 0;
		if (!slot || fd < 0 || *slot >= 0) {
			if (fd >= 0)
				close(fd);
			return jail_err_set(e, EPROTO, "network setup: unexpected message %d", kind);
		}
		*slot = fd;
	}
}

/* The first "nameserver" of the host's resolv.conf. */
static int host_upstream(struct net_host *n, struct jail_err *e)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	if (read_file_at(AT_FDCWD, "/etc/resolv.conf", 1 << 16, &text, &len, e) < 0)
		return jail_err_wrap(e, "find the host's DNS server (or give --dns-upstream)");
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char addr[128];
		if (sscanf(line, " nameserver %127s", addr) == 1) {
			struct jail_err ignored;
			if (addr_port_parse(addr, NET_DNS_PORT, &n->upstream, &n->upstream_len,
			                    &ignored) == 0)
				return 0;
		}
	}
	return jail_err_set(e, 0, "/etc/resolv.conf names no DNS server; give --dns-upstream ADDR");
}

static int upstream_setup(struct net_host *n, const struct jail_config *cfg,
                          struct jail_err *e)
{
	if (!cfg->dns_upstream)
		return host_upstream(n, e);
	if (addr_port_parse(cfg->dns_upstream, NET_DNS_PORT, &n->upstream, &n->upstream_len, e) < 0)
		return jail_err_wrap(e, "--dns-upstream");
	return 0;
}

/* An entry naming a host-loopback address of the helper's literally (its
 * gateway): with host:PORT entries the helper maps it to the host's
 * loopback, so the entry would open another port there than the user named
 * as host:PORT, while it reads as the router's. */
static int refuse_literal_host_addr(const struct net_host *n, struct jail_err *e)
{
	for (size_t i = 0; i < n->allow.n; i++) {
		const struct allow_entry *a = &n->allow.v[i];
		int family = a->kind == ALLOW_V4 ? AF_INET : a->kind == ALLOW_V6 ? AF_INET6 : 0;
		for (size_t j = 0; family && j < n->n_host_addrs; j++) {
			const struct dns_addr *h = &n->host_addrs[j];
			if (h->family != family || memcmp(h->addr, a->addr, family == AF_INET ? 4 : 16))
				continue;
			char text[INET6_ADDRSTRLEN];
			inet_ntop(family, a->addr, text, sizeof(text));
			return jail_err_set(e, 0, "--allow %s%s%s:%u: with host:PORT entries %s maps %s "
			                    "to the host's loopback, where this would open port %u; "
			                    "write host:%u for that", family == AF_INET6 ? "[" : "",
			                    text, family == AF_INET6 ? "]" : "", a->port,
			                    n->helper_name, text, a->port, a->port);
		}
	}
	return 0;
}

/* host:PORT entries: the helper's host-loopback address(es) . PORT, for good,
 * TCP only (host4/host6: nft.c); with --net open those addresses are closed
 * but for that (helper4/helper6). */
static int open_host_ports(struct net_host *n, struct jail_err *e)
{
	uint16_t ports[64];
	size_t np = allow_host_ports(&n->allow, ports, ARRAY_SIZE(ports));
	/* --net open has no other limit: a gateway that cannot be found cannot
	 * be closed, and the helper maps it all the same */
	if (n->mode == NET_OPEN && np && n->n_host_addrs == 0)
		return jail_err_set(e, 0, "--allow host:%u with --net open: the helper's gateway "
		                    "(its door to the host's loopback) was not found, so it cannot "
		                    "be limited to that port; use --net allow", ports[0]);
	if (n->mode == NET_NONE || np == 0 || n->n_host_addrs == 0)
		return 0;
	if (refuse_literal_host_addr(n, e) < 0)
		return -1;
	struct nft_elem els[3 * ARRAY_SIZE(ports) + 1];
	size_t ne = 0;
	for (size_t i = 0; n->mode == NET_OPEN && i < n->n_host_addrs; i++) {
		struct nft_elem *el = &els[ne++];
		memset(el, 0, sizeof(*el));
		el->family = n->host_addrs[i].family;
		el->addr_only = true;
		memcpy(el->addr, n->host_addrs[i].addr, sizeof(el->addr));
	}
	/* pasta's own link-local address, which it answers as a gateway too */
	if (n->mode == NET_OPEN && strcmp(n->helper_name, "pasta") == 0) {
		struct nft_elem *el = &els[ne++];
		memset(el, 0, sizeof(*el));
		el->family = AF_INET6;
		el->addr_only = true;
		inet_pton(AF_INET6, "fe80::1", el->addr);
	}
	for (size_t i = 0; i < n->n_host_addrs; i++)
		for (size_t j = 0; j < np; j++) {
			struct nft_elem *el = &els[ne++];
			memset(el, 0, sizeof(*el));
			el->family = n->host_addrs[i].family;
			el->tcp_only = true;  /* the helper maps UDP there too */
			memcpy(el->addr, n->host_addrs[i].addr, sizeof(el->addr));
			el->port = ports[j];
		}
	if (nft_elems_add(n->nft, els, ne, e) < 0)
		return jail_err_wrap(e, "open the host's loopback ports");
	return 0;
}

/* --net open: one prefix the host takes in whole (AnyIP's local routes:
 * addrwatch.h) rejected by a rule of its own, as multicast is: on no
 * interface's list, every address in it is the host's.  At most
 * NET_PREFIX_MAX over the run (a prefix seen again is not added again). */
int net_close_prefix(struct net_host *n, const struct addr_prefix *p, struct jail_err *e)
{
	for (size_t i = 0; i < n->n_closed; i++)
		if (!memcmp(&n->closed[i], p, sizeof(*p)))
			return 0;
	char net[INET6_ADDRSTRLEN];
	inet_ntop(p->family, p->addr, net, sizeof(net));
	if (n->n_closed == NET_PREFIX_MAX) {
		log_warn("network: the host takes in more than %d prefixes whole (local routes); "
		         "--net open does not close %s/%u", NET_PREFIX_MAX, net, p->bits);
		return 0;
	}
	struct nft_plan plan;
	nft_plan_prefix(&plan, p->family, net, p->bits);
	int r = nft_rules_add(n->nft, plan.rules, plan.n_rules, e);
	nft_plan_free(&plan);
	if (r < 0)
		return jail_err_wrap(e, "close the host's prefix %s/%u", net, p->bits);
	n->closed[n->n_closed++] = *p;
	return 0;
}

/* --net open: what the host's local routes make its own at the start: one
 * address (a /32 or /128: AnyIP of one, which no interface lists) into the
 * set of closed addresses, a prefix by a rule.  Later ones: netwatch.c. */
#define NET_ROUTES_MAX 4096
static int close_host_routes(struct net_host *n, struct jail_err *e)
{
	_cleanup_free_ struct addr_prefix *pre = xcalloc(NET_ROUTES_MAX, sizeof(*pre));
	_cleanup_free_ struct nft_elem *els = xcalloc(NET_ROUTES_MAX, sizeof(*els));
	int np = addrwatch_prefixes(pre, NET_ROUTES_MAX);
	if (np < 0)
		return jail_err_sys(e, "--net open: list the host's local routes");
	if (np == NET_ROUTES_MAX)
		log_warn("network: the host has %d or more local routes; --net open closes the "
		         "first %d of them only", NET_ROUTES_MAX, NET_ROUTES_MAX);
	size_t ne = 0;
	for (int i = 0; i < np; i++) {
		if (pre[i].bits < (pre[i].family == AF_INET ? 32u : 128u)) {
			if (net_close_prefix(n, &pre[i], e) < 0)
				return -1;
			continue;
		}
		struct nft_elem *el = &els[ne++];
		el->family = pre[i].family;
		el->addr_only = true;
		memcpy(el->addr, pre[i].addr, sizeof(el->addr));
	}
	/* in batches of a size nft_netlink.c's limit takes (a node with
	 * thousands of service addresses has a local route each) */
	for (size_t at = 0; at < ne; at += NET_LOCAL_MAX) {
		size_t k = ne - at < NET_LOCAL_MAX ? ne - at : NET_LOCAL_MAX;
		if (nft_elems_add(n->nft, els + at, k, e) < 0)
			return jail_err_wrap(e, "close the addresses of the host's local routes");
	}
	return 0;
}

/* --net open: the host's own addresses (its interfaces', as at the start,
 * with their subnets' broadcast and anycast ones; later ones as they come:
 * netwatch.c) closed, as the helper's gateway is.  The helper connects from
 * the host, so a server bound to 0.0.0.0 or :: there answered the jail on
 * each of the host's other addresses (a second interface's, a docker
 * bridge's), past the host's firewall, which does not filter the host's
 * connections to itself.
 * (The jail's interface has the host's main address: that one is the jail's
 * own, and loopback never leaves the jail.) */
static int close_host_addrs(struct net_host *n, struct jail_err *e)
{
	if (n->mode != NET_OPEN || n->nft < 0)
		return 0;
	struct nft_elem els[NET_LOCAL_MAX];
	size_t ne = 0;
	for (size_t i = 0; i < n->n_local; i++) {
		const struct net_local *l = &n->local[i];
		if (l->helper || addr_classify(l->family, l->addr) == ADDR_LOOPBACK)
			continue;
		struct nft_elem *el = &els[ne++];
		memset(el, 0, sizeof(*el));
		el->family = l->family;
		el->addr_only = true;
		memcpy(el->addr, l->addr, l->family == AF_INET ? 4 : 16);
	}
	if (ne && nft_elems_add(n->nft, els, ne, e) < 0)
		return jail_err_wrap(e, "close the host's own addresses");
	return close_host_routes(n, e);
}

static struct net_host *net_host_new(const struct jail_config *cfg)
{
	struct net_host *n = xcalloc(1, sizeof(*n));
	n->mode = cfg->net;
	n->quiet = cfg->quiet;
	n->udp = n->tcp = n->nft = n->nflog = n->broker_fd = n->gate_fd = n->addrwatch = -1;
	n->helper = -1;
	n->helper_exit_fd = -1;
	n->stop[0] = n->stop[1] = -1;
	return n;
}

static int parse_port(const char *s, const char *end, uint16_t *out)
{
	long v = 0;
	if (s == end || end - s > 5)
		return -1;
	for (const char *p = s; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
	}
	if (v < 1 || v > 65535)
		return -1;
	*out = (uint16_t)v;
	return 0;
}

int net_publish_parse(const char *s, struct net_publish *out, struct jail_err *e)
{
	const char *colon = strchr(s, ':');
	const char *end = colon ? colon : s + strlen(s);
	if (parse_port(s, end, &out->port) < 0 ||
	    (colon && parse_port(colon + 1, colon + 1 + strlen(colon + 1), &out->host_port) < 0)) {
		_cleanup_free_ char *esc = escape_name(s);
		return jail_err_set(e, 0, "--publish %s: give PORT or PORT:HOSTPORT (1-65535)", esc);
	}
	if (!colon)
		out->host_port = out->port;
	return 0;
}

static int publish_setup(struct net_host *n, const struct jail_config *cfg, struct jail_err *e)
{
	if (cfg->publish.n > NET_PUBLISH_MAX)
		return jail_err_set(e, 0, "--publish: at most %d ports", NET_PUBLISH_MAX);
	for (size_t i = 0; i < cfg->publish.n; i++) {
		if (net_publish_parse(cfg->publish.v[i], &n->publish[i], e) < 0)
			return -1;
		for (size_t j = 0; j < i; j++)
			if (n->publish[j].host_port == n->publish[i].host_port)
				return jail_err_set(e, 0, "--publish: host port %u given twice",
				                    n->publish[i].host_port);
	}
	n->n_publish = cfg->publish.n;
	return 0;
}

int net_validate(const struct jail_config *cfg, struct jail_err *e)
{
	struct allow_list allow;
	if (cfg->publish.n) { /* (a net_host is large: not made for nothing) */
		struct net_host *pub = net_host_new(cfg);
		int r = publish_setup(pub, cfg, e);
		free(pub);
		if (r < 0)
			return -1;
	}
	if (cfg->net == NET_NONE)
		return 0;
	/* the filter's libraries, before the clone: init installs the ruleset with
	 * them (nftlib.h) */
	if (wants_ruleset(cfg) && nftlib_load(e) < 0)
		return -1;
	if (allow_parse(&cfg->allow, &allow, e) < 0)
		return -1;
	allow_free(&allow);
	struct sockaddr_storage ss;
	socklen_t len;
	if (cfg->dns_upstream &&
	    addr_port_parse(cfg->dns_upstream, NET_DNS_PORT, &ss, &len, e) < 0)
		return jail_err_wrap(e, "--dns-upstream");
	return 0;
}

bool net_host_wanted(const struct jail_config *cfg)
{
	return cfg->net != NET_NONE || cfg->publish.n > 0;
}

/* --net allow: no IP fragment leaves through the helper's interface (each
 * interface of the jail's but lo, read from /proc/CHILD/net/dev once the
 * helper made it).  The output chain judges a datagram whole, the kernel
 * fragments it after, and pasta takes every fragment for a datagram: the
 * data at the start of a later one, where a UDP header would be, named a
 * port of an allowed address that the ruleset never opened.  A kernel
 * without the egress hook (before 5.16) gets a warning. */
static int drop_fragments(const struct net_host *n, pid_t child, struct jail_err *e)
{
	_cleanup_free_ char *path = xasprintf("/proc/%d/net/dev", (int)child), *text = NULL;
	size_t len;
	if (read_file_at(AT_FDCWD, path, 1 << 16, &text, &len, e) < 0)
		return jail_err_wrap(e, "list the jail's interfaces");
	char *save = NULL;
	size_t n_dev = 0;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;  /* the two header lines */
		*colon = '\0';
		line += strspn(line, " ");
		if (strcmp(line, "lo") == 0)
			continue;
		n_dev++;
		if (nft_egress_add(n->nft, line, e) == 0)
			continue;
		/* no netdev family (EAFNOSUPPORT), or no egress hook in it */
		if (e->errnum != EOPNOTSUPP && e->errnum != ENOENT && e->errnum != EAFNOSUPPORT)
			return jail_err_wrap(e, "drop IP fragments on the jail's interface %s", line);
		log_warn("this kernel has no netfilter egress hook (Linux >= 5.16): an IP fragment "
		         "the jail sends reaches the helper, which reads it as a datagram to a port "
		         "the allowlist may not name");
	}
	/* the helper made its interface before it said it was ready */
	if (n_dev == 0)
		return jail_err_set(e, 0, "%s made no interface in the jail's network namespace",
		                    n->helper_name);
	return 0;
}

int net_host_start(const struct jail_config *cfg, struct broker *broker, pid_t child,
                   int sync_sock, struct net_host **out, struct jail_err *e)
{
	*out = NULL;
	if (!net_host_wanted(cfg))
		return 0;
	struct net_host *n = net_host_new(cfg);
	*out = n;  /* net_host_stop() cleans up whatever was started */
	n->broker = cfg->net == NET_NONE ? NULL : broker;
	if (publish_setup(n, cfg, e) < 0)
		return -1;
	/* net=none with published ports: a helper that only forwards them in */
	if (cfg->net == NET_NONE)
		return net_helper_start(n, child, e);
	if (allow_parse(&cfg->allow, &n->allow, e) < 0 || upstream_setup(n, cfg, e) < 0)
		return -1;
	if (recv_fds(n, sync_sock, e) < 0)
		return jail_err_wrap(e, "set up the jail's network");
	if ((wants_ruleset(cfg) && (n->nft < 0 || n->nflog < 0)) || n->udp < 0 || n->tcp < 0 ||
	    (n->broker && n->broker_fd < 0) ||
	    (cfg->net == NET_ALLOW && allow_gate_wanted(&n->allow) && n->gate_fd < 0))
		return jail_err_set(e, EPROTO, "set up the jail's network: sockets missing");
	/* subscribed before the helper's start lists the host's addresses:
	 * one taken meanwhile is in one or the other */
	if (n->mode == NET_OPEN && (n->addrwatch = addrwatch_open(e)) < 0)
		return -1;
	if (net_helper_start(n, child, e) < 0 ||
	    (n->mode == NET_ALLOW && drop_fragments(n, child, e) < 0) ||
	    open_host_ports(n, e) < 0 || close_host_addrs(n, e) < 0)
		return -1;
	if (n->broker && broker_start(n->broker, steal_fd(&n->broker_fd), e) < 0)
		return -1;
	if (net_gate_start(n, e) < 0)
		return -1;
	return net_watch_start(n, e);
}

void net_host_stop(struct net_host *n, bool quiet)
{
	if (!n)
		return;
	net_watch_stop(n);
	net_gate_stop(n);
	broker_stop(n->broker, quiet);
	net_helper_stop(n);
	int *fds[] = {&n->udp, &n->tcp, &n->nft, &n->nflog, &n->broker_fd, &n->gate_fd,
	              &n->addrwatch};
	for (size_t i = 0; i < ARRAY_SIZE(fds); i++)
		if (*fds[i] >= 0)
			close(*fds[i]);
	if (!quiet && n->mode == NET_ALLOW && (n->blocked || n->refused))
		log_info("network: %lu connection attempt%s blocked, %lu DNS lookup%s refused",
		         n->blocked, n->blocked == 1 ? "" : "s", n->refused,
		         n->refused == 1 ? "" : "s");
	allow_free(&n->allow);
	free(n);
}

const char *net_resolv_conf(const struct jail_config *cfg)
{
	if (cfg->net == NET_NONE)
		return "# no network in this jail (net = none)\n";
	return "# the jail's filtering resolver (served by jail on the host)\n"
	       "nameserver 127.0.0.1\n";
}
