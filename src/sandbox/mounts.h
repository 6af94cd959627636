/* mounts.h — the jail's filesystem, built by init in its new mount namespace. */
#ifndef JAIL_MOUNTS_H
#define JAIL_MOUNTS_H
#include "launcher.h"
#include "plan.h"

/* Build the new root and pivot into it:
 *   tmpfs /                  read-only once built
 *   /usr /bin /sbin /lib*    read-only binds of the host's (symlinks copied)
 *   /etc                     chosen pieces read-only, passwd/group/hosts generated
 *   /proc /dev /tmp /run     new instances (devpts newinstance, tmpfs)
 *   $HOME                    tmpfs, or the session's home/ when persistent
 *   <project>                overlayfs: lower = the real dir, upper/work = session's
 *   --ro/--rw/--cow          as named; those that hold $HOME or the project first
 *   covers (cover.h)         wherever a bind shows the real home: the fake one;
 *                            the state dir: an empty tmpfs; a system bind's dir
 *                            of homes (/usr/home): an empty tmpfs
 * Each step fails closed: an error leaves no half-built jail running.
 * *sysuser: the new procfs's sys/user directory, opened before /proc/sys turns
 * read-only (for limits_userns_counts); the caller closes it.  The network
 * namespace the launcher's thread makes meanwhile is entered once the system
 * part is built.  The supervisor's word on the /etc snapshot is read from
 * `sock` (etcsnap.h); GO after it is the launcher's (launcher.h). */
int mounts_build_root(const struct jail_plan *p, int sock, struct launcher *l, int *sysuser,
                      struct jail_err *e) WUR;

/* Escape a path for an overlayfs option value (',' ':' '\\'). */
char *overlay_escape(const char *path);
#endif
