/* netns.h — the jail's network namespace, made by a thread of init's beside
 * the root's build (launcher.h), instead of by the clone.
 *
 * A new network namespace is the dearest part of the clone (0.5 ms of its 0.6:
 * the loopback device, the sysctl tables of every protocol), and both the
 * clone and init's build of the root are on the start's critical path.  So
 * init's launcher thread makes it (unshare changes the calling thread's
 * namespace only) while init's main thread builds the root and its overlay
 * thread mounts the project's view; the command is that thread's child, so
 * it and everything it starts are in it.  The main thread enters it (setns)
 * when the system part of the root is built, before anything of the network
 * is set up and long before the command starts, so `jail exec`'s commands
 * are in it too.  Until then init's main thread runs in the host's
 * namespace, where its capabilities (those of the jail's user namespace)
 * grant nothing, and does nothing with the network.
 *
 * Not with `--net none` and published ports: that helper joins the namespace
 * by init's pid early in the start (before init has built the root), so the
 * clone makes it. */
#ifndef JAIL_NETNS_H
#define JAIL_NETNS_H
#include "config.h"
#include "util.h"

struct netns_maker {
	int fd;     /* the new namespace, until joined; -1 when none was made */
	int err;    /* errno of the step `what`, or 0 */
	const char *what;
	bool lo_up; /* lo is up in it */
};

/* Whether init makes the namespace itself (else the clone does). */
bool netns_late(const struct jail_config *cfg);
/* Move the calling thread into a new network namespace, bring up its lo,
 * and keep an fd of it in *m (errors in m->err). */
void netns_make(struct netns_maker *m);
/* Move the calling thread into the namespace m holds (none: nothing), or
 * report the error of its making. */
int netns_join(struct netns_maker *m, struct jail_err *e) WUR;
#endif
