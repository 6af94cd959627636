/* netns.c — the jail's network namespace, made off the clone (netns.h). */
#include "netns.h"

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

/* The thread's own namespace changes, and is kept by an fd of it: the thread
 * ends, the namespace stays for the main thread's setns.  The fd comes from a
 * socket made in it (SIOCGSKNS), not from /proc: the main thread moves the
 * root (pivot_root) meanwhile, and the process's /proc with it. */
static void *maker_main(void *arg)
{
	struct netns_maker *m = arg;
	m->what = "unshare the jail's network namespace";
	if (unshare(CLONE_NEWNET) < 0) {
		m->err = errno;
		return NULL;
	}
	m->what = "take hold of the jail's new network namespace";
	int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	m->fd = sock < 0 ? -1 : ioctl(sock, SIOCGSKNS);
	if (m->fd < 0)
		m->err = errno;
	if (sock >= 0)
		close(sock);
	return NULL;
}

int netns_start(struct netns_maker *m, const struct jail_config *cfg, struct jail_err *e)
{
	*m = (struct netns_maker){.fd = -1};
	if (!netns_late(cfg))
		return 0;
	int err = pthread_create(&m->thread, NULL, maker_main, m);
	if (err != 0)
		return jail_err_set(e, err, "start a thread for the jail's network namespace");
	m->started = true;
	return 0;
}

int netns_enter(struct netns_maker *m, struct jail_err *e)
{
	if (!m->started)
		return 0;
	pthread_join(m->thread, NULL);
	m->started = false;
	if (m->err)
		return jail_err_set(e, m->err, "%s", m->what);
	int r = setns(m->fd, CLONE_NEWNET);
	int err = errno;
	close(m->fd);
	m->fd = -1;
	if (r < 0)
		return jail_err_set(e, err, "enter the jail's network namespace");
	return 0;
}
