/* net.h — the jail's network: lo only, an allowlist, or open.
 *
 * Two halves run at the same time during setup and talk over the sync socket
 * (SYNC_NET messages):
 *   init (in the new netns, still holding capabilities): net_jail_setup()
 *   supervisor (on the host): net_host_start(), later net_host_stop() */
#ifndef JAIL_NET_H
#define JAIL_NET_H
#include "config.h"

#include <stdint.h>

/* init: bring up lo (unless lo_is_up: the thread that made the namespace did,
 * netns.h); for net=allow install the nftables ruleset and hand the sockets
 * that must live in the netns (DNS listener, netlink) to the supervisor. */
/* With brokered secrets, also the broker's listener on BROKER_ADDR:443; with
 * a name allowed on port 443, the SNI gate's on GATE_ADDR:443 (snigate.h). */
int net_jail_setup(const struct jail_config *cfg, bool broker, bool lo_is_up, int sync_sock,
                   struct jail_err *e) WUR;
/* Bring up the calling thread's namespace's lo (it needs CAP_NET_ADMIN there). */
int net_lo_up(struct jail_err *e) WUR;

struct net_host;
struct broker;
/* Whether the host's side has a network helper to start (not for net=none
 * without published ports): it makes its own sandbox inside the jail's user
 * namespace, so init bounds the namespace counts only after it (init.c). */
bool net_host_wanted(const struct jail_config *cfg);
/* supervisor: start pasta/slirp4netns on the child's netns, serve DNS, read the
 * denied-connection log, start the broker (NULL: none; DNS answers its hosts
 * with BROKER_ADDR).  *out is NULL for net=none. */
int net_host_start(const struct jail_config *cfg, struct broker *broker, pid_t child,
                   int sync_sock, struct net_host **out, struct jail_err *e) WUR;
/* Stop the helper and the DNS/NFLOG threads; print the blocked count unless quiet. */
void net_host_stop(struct net_host *n, bool quiet);
/* Check --allow and --dns-upstream before anything starts (exit 125 early). */
int net_validate(const struct jail_config *cfg, struct jail_err *e) WUR;
#define NET_PUBLISH_MAX 32
struct net_publish {
	uint16_t port;       /* inside the jail */
	uint16_t host_port;  /* on the host's loopback */
};
/* Parse one --publish value, PORT[:HOSTPORT] (HOSTPORT defaults to PORT). */
int net_publish_parse(const char *s, struct net_publish *out, struct jail_err *e) WUR;

/* The jail's /etc/resolv.conf for this configuration. */
const char *net_resolv_conf(const struct jail_config *cfg);
#endif
