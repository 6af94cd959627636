/* netns.h — the jail's network namespace, made by a thread of init's beside
 * the root's build, instead of by the clone.
 *
 * A new network namespace is the dearest part of the clone (0.5 ms of its 0.6:
 * the loopback device, the sysctl tables of every protocol), and both the
 * clone and init's build of the root are on the start's critical path.  So a
 * thread of init's makes it (unshare changes the calling thread's namespace
 * only) while init's main thread builds the root and its overlay thread
 * mounts the project's view; the main thread enters it (setns) when the
 * system part of the root is built, before anything of the network is set up
 * and long before the command starts, so the command, everything it starts
 * and `jail exec`'s commands are in it as before.  Until then init runs in the
 * host's namespace, where its capabilities (those of the jail's user
 * namespace) grant nothing, and does nothing with the network.
 *
 * Not with `--net none` and published ports: that helper joins the namespace
 * by init's pid early in the start (before init has built the root), so the
 * clone makes it. */
#ifndef JAIL_NETNS_H
#define JAIL_NETNS_H
#include "config.h"
#include "util.h"

#include <pthread.h>

struct netns_maker {
	pthread_t thread;
	bool started;
	int fd;  /* the new namespace, once the thread is joined */
	int err; /* the thread's errno, or 0 */
	const char *what;
};

/* Whether init makes the namespace itself (else the clone does). */
bool netns_late(const struct jail_config *cfg);
/* Start the thread that makes the namespace (none when !netns_late). */
int netns_start(struct netns_maker *m, const struct jail_config *cfg, struct jail_err *e) WUR;
/* Join the thread and move the calling thread (init's main thread) into the
 * namespace it made; nothing when none was started. */
int netns_enter(struct netns_maker *m, struct jail_err *e) WUR;
#endif
