/* net.c — the jail's network (placeholder: lo only; the allowlist issue adds the
 * rest). */
#include "net.h"

#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

static int lo_up(struct jail_err *e)
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

int net_jail_setup(const struct jail_config *cfg, int sync_sock, struct jail_err *e)
{
	if (lo_up(e) < 0)
		return -1;
	if (cfg->net != NET_NONE)
		return jail_err_set(e, 0, "--net %s is not implemented yet",
		                    cfg->net == NET_ALLOW ? "allow" : "open");
	return 0;
}

int net_host_start(const struct jail_config *cfg, pid_t child, int sync_sock,
                   struct net_host **out, struct jail_err *e)
{
	*out = NULL;
	return 0;
}

void net_host_stop(struct net_host *n, bool quiet) {}

const char *net_resolv_conf(const struct jail_config *cfg)
{
	return "# no network in this jail (net = none)\n";
}
