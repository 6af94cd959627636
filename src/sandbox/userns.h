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

/* Mount points below `proc` ("/proc", or where the host's is seen; its
 * self/mountinfo is read) other than
 * binfmt_misc's: a container masks /proc/kcore, /proc/keys, /proc/acpi, ... by
 * mounting over them, and the kernel then refuses a new procfs in a user
 * namespace, which would show what is masked.  "a, b, c" (at most three), or
 * NULL when nothing is masked.  Freed by the caller. */
char *proc_masked_paths(const char *proc);

/* The fix for a masked /proc, for an error line. */
#define PROC_MASKED_FIX                                                                \
	"run the container with --security-opt unmask=ALL (podman) or --security-opt " \
	"systempaths=unconfined (docker)"

#endif
