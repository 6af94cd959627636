/* netns.h — the jail's network namespace, made by init while it waits for the
 * project's overlay, instead of by the clone.
 *
 * A new network namespace is the dearest part of the clone (0.5 ms of its 0.6:
 * the loopback device, the sysctl tables of every protocol), and the clone is
 * on the start's critical path.  Init's main thread, once it has built the
 * system part of the root, waits for the thread that mounts the project's
 * view and overlay (mounts.c); it unshares the network namespace then, before
 * anything of the network is set up and long before the command starts, so
 * the command, everything it starts and `jail exec`'s commands are in it as
 * before.  Until then init runs in the host's namespace, where its
 * capabilities (those of the jail's user namespace) grant nothing, and does
 * nothing with the network.
 *
 * Not with `--net none` and published ports: that helper joins the namespace
 * by init's pid early in the start (before init has built the root), so the
 * clone makes it. */
#ifndef JAIL_NETNS_H
#define JAIL_NETNS_H
#include "config.h"
#include "util.h"

/* Whether init makes the namespace itself (else the clone does). */
bool netns_late(const struct jail_config *cfg);
/* Move the calling thread (init's main thread) into a new network namespace. */
int netns_make(struct jail_err *e) WUR;
#endif
