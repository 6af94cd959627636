/* userns.h — why this host (or the sandbox jail runs in) refuses a user namespace. */
#ifndef JAIL_USERNS_H
#define JAIL_USERNS_H

#include <stdbool.h>

/* What blocks an unprivileged user namespace, given the errno of the failed
 * clone/unshare, as "cause; fix: ..." (static text, one line). */
const char *userns_blocker(int err);

/* A number from a /proc/sys file, or -1 when it cannot be read. */
long sysctl_long(const char *path);

/* The AppArmor label this process runs under ("unconfined", "jail (unconfined)"),
 * or NULL when AppArmor is not active.  Freed by the caller. */
char *apparmor_label(void);

#endif
