/* netpriv.h — the supervisor's network state, shared by net.c (setup and
 * teardown), nethelper.c (pasta / slirp4netns) and netwatch.c (the thread that
 * serves DNS and reads the denied-connection log).  Not for other modules. */
#ifndef JAIL_NETPRIV_H
#define JAIL_NETPRIV_H
#include <pthread.h>
#include <sys/socket.h>

#include "addrwatch.h"
#include "allow.h"
#include "config.h"
#include "dns.h"
#include "net.h"
#include "resolver.h"

struct snigate;

/* The fds init hands out over the sync socket, one SYNC_NET message each. */
enum net_fd_kind { NETFD_DNS_UDP = 1, NETFD_DNS_TCP, NETFD_NFT, NETFD_NFLOG, NETFD_BROKER, NETFD_GATE,
                   NETFD_DONE };

#define NET_MEMO 256   /* addresses remembered with the name that resolved to them */
#define NET_DNS_PORT 53

struct net_memo {
	int family;
	unsigned char addr[16];
	char name[DNS_MAX_NAME];
};

/* An address of the host's or of the helper's: never opened by a DNS answer. */
struct net_local {
	int family;
	unsigned char addr[16];
	bool helper;                 /* the helper's, else the host's */
};
#define NET_LOCAL_MAX 256
#define NET_PREFIX_MAX 32

struct net_host {
	enum net_mode mode;
	bool quiet;
	struct allow_list allow;
	struct sockaddr_storage upstream;
	socklen_t upstream_len;

	/* made by init inside the jail's netns */
	int udp, tcp, nft, nflog, broker_fd;
	struct broker *broker;       /* the plan's; started and stopped here */
	int gate_fd;                 /* the SNI gate's listener (snigate.h), -1: none */
	int addrwatch;               /* --net open: the host's new addresses (addrwatch.h) */
	struct snigate *gate;

	/* --publish: host 127.0.0.1:host_port reaches the jail's 127.0.0.1:port */
	struct net_publish publish[NET_PUBLISH_MAX];
	size_t n_publish;

	/* the helper */
	const char *helper_name;
	pid_t helper;
	int helper_exit_fd;          /* slirp4netns --exit-fd, else -1 */
	char *rundir;                /* private temp dir: pid file, helper log */
	/* host.jail.internal: how the jail reaches the host's loopback */
	struct dns_addr host_addrs[2];
	size_t n_host_addrs;
	struct net_local local[NET_LOCAL_MAX];
	size_t n_local;
	bool local_full;             /* more than NET_LOCAL_MAX: the rest unlisted */
	/* --net open: the prefixes the host takes in whole, closed by rules */
	struct addr_prefix closed[NET_PREFIX_MAX];
	size_t n_closed;

	/* the thread */
	struct resolver *resolver;
	pthread_t thread;
	bool running;
	int stop[2];
	unsigned long blocked, refused;   /* read after the thread is joined */
	struct net_memo memo[NET_MEMO];
	size_t memo_next;
	char last_line[300];
	time_t last_time;
};

/* net.c */
int net_close_prefix(struct net_host *n, const struct addr_prefix *p, struct jail_err *e) WUR;

/* nethelper.c */
int net_helper_start(struct net_host *n, pid_t child, struct jail_err *e) WUR;
void net_helper_stop(struct net_host *n);
/* Does the host's kernel take a as its own now (also the IPv4 address an
 * IPv6 a spells)?  The list of addresses taken at start misses one the host
 * gets later (a DHCP lease, a VPN, an IPv6 temporary address), "local"
 * routes (AnyIP), where a server bound to 0.0.0.0 answers too, and the
 * IPv6 subnet-router anycast addresses of a host that forwards, where UDP
 * servers bound to :: answer.  True when the kernel cannot be asked. */
bool net_host_owns_now(const struct dns_addr *a);

/* netwatch.c */
/* Why a DNS answer may not open this address (the helper's, the host's, a
 * special-purpose one); NULL: it may. */
const char *net_refusal(const struct net_host *n, const struct dns_addr *a);
/* Is this address named in the allowlist (the ruleset opens it already)? */
bool net_named_literally(const struct net_host *n, const struct dns_addr *a);
/* Is this one of the network helper's addresses (its gateway, its DNS)? */
bool net_helper_addr(const struct net_host *n, const struct dns_addr *a);
/* Is this one of the host's own addresses (its interfaces', also spelled
 * inside an IPv6 address)? */
bool net_host_own_addr(const struct net_host *n, const struct dns_addr *a);
int net_watch_start(struct net_host *n, struct jail_err *e) WUR;
void net_watch_stop(struct net_host *n);

/* netgate.c: the SNI gate for names allowed on port 443 only (snigate.h) */
int net_gate_start(struct net_host *n, struct jail_err *e) WUR;
/* Its refusals are counted as blocked. */
void net_gate_stop(struct net_host *n);
#endif
