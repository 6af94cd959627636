/* netns.c — the jail's network namespace, made off the clone (netns.h). */
#include "netns.h"
#include "net.h"

#include <errno.h>
#include <linux/sockios.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

bool netns_late(const struct jail_config *cfg)
{
	return !(cfg->net == NET_NONE && cfg->publish.n > 0);
}

/* The calling thread's namespace changes, and is kept by an fd of it: the
 * main thread joins it with setns.  The fd comes from a socket made in it
 * (SIOCGSKNS), not from /proc: the main thread moves the root (pivot_root)
 * meanwhile, and the process's /proc with it.  lo's start (its addresses
 * and routes, 0.1-0.2 ms) is done here too, off the main thread's path; a
 * failure there is the main thread's to report, when it tries again. */
void netns_make(struct netns_maker *m)
{
	*m = (struct netns_maker){.fd = -1};
	m->what = "unshare the jail's network namespace";
	if (unshare(CLONE_NEWNET) < 0) {
		m->err = errno;
		return;
	}
	m->what = "take hold of the jail's new network namespace";
	int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	m->fd = sock < 0 ? -1 : ioctl(sock, SIOCGSKNS);
	if (m->fd < 0)
		m->err = errno;
	if (sock >= 0)
		close(sock);
	struct jail_err ignored;
	m->lo_up = m->fd >= 0 && net_lo_up(&ignored) == 0;
}

int netns_join(struct netns_maker *m, struct jail_err *e)
{
	if (m->err)
		return jail_err_set(e, m->err, "%s", m->what);
	if (m->fd < 0)
		return 0;
	int r = setns(m->fd, CLONE_NEWNET);
	int err = errno;
	close(m->fd);
	m->fd = -1;
	if (r < 0)
		return jail_err_set(e, err, "enter the jail's network namespace");
	return 0;
}
